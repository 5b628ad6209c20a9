//! toolkit's own `WordPiece` tokenizer (the one `StaticEmbeddings` reads with)
//! against the tokenizers crate the encoder uses, token by token, over the
//! examples' and the MCP servers' tool texts, every labelled message, and
//! messages in many scripts with emoji (feature `embeddings-encoder`; the
//! model's files from `TOOLKIT_EMBEDDINGS_DIR`, as scripts/embeddings.sh
//! writes them).

use toolkit::route::embedding::{MAX_ENCODER_TOKENS, SentenceEncoder, StaticEmbeddings};

/// Messages no catalog has: scripts, emoji, symbols, marks, invisible
/// characters, punctuation outside ASCII.
const SCRIPTS: [&str; 16] = [
    "Grüße aus Köln — wie geht’s?",
    "Привет, мир! Как дела?",
    "世界你好，今天天气怎么样？",
    "مرحبا بالعالم، كيف حالك؟",
    "שלום עולם",
    "नमस्ते दुनिया। आप कैसे हैं?",
    "こんにちは、世界！カタカナ",
    "안녕하세요 세계",
    "ΓΕΙΑ ΣΟΥ ΚΟΣΜΕ",
    "ሰላም ዓለም",
    "สวัสดีชาวโลก",
    "book a table 🙂🚀 for 👩‍💻 in 🇫🇷 tonight",
    "price: 5€ or £4 (±10%) © 2024 ™ §3 ¶2 «quoted» ¿qué? ¡sí!",
    "tall🙂tall x²+y³ 3½ café\u{301} naïve ﬁne Ⅻ ①",
    "zero\u{200b}width soft\u{ad}hyphen bom\u{feff}here nul\u{0}char tab\tnew\nline",
    "smart “quotes” and ‘single’ … ellipsis – dash — em • bullet ※ ‰",
];

#[test]
fn our_wordpiece_splits_as_the_tokenizers_crate_does() {
    let Some(dir) = std::env::var_os("TOOLKIT_EMBEDDINGS_DIR") else {
        panic!(
            "this test needs all-MiniLM-L6-v2: run `scripts/embeddings.sh target/minilm` and set \
             TOOLKIT_EMBEDDINGS_DIR=target/minilm"
        );
    };
    let ours = StaticEmbeddings::load(&dir).expect("the static table");
    let theirs = SentenceEncoder::load(&dir).expect("the encoder");
    let mut texts: Vec<String> = Vec::new();
    for catalog in [
        routing_bench::assistant_catalog(),
        routing_bench::cms_catalog(),
        routing_bench::mcp_catalog(),
    ] {
        for entry in &catalog {
            texts.push(entry.name.clone());
            texts.push(entry.description.clone());
        }
    }
    for cases in [
        routing_bench::labelled_cases(),
        routing_bench::fresh_cases(),
        routing_bench::tune3_cases(),
        routing_bench::mcp_cases(),
    ] {
        texts.extend(cases.into_iter().map(|case| case.message));
    }
    texts.extend(SCRIPTS.iter().map(|text| (*text).to_owned()));
    let mut differences = Vec::new();
    for text in &texts {
        let theirs = theirs.tokens(text).expect("tokens");
        // Without `[CLS]` and `[SEP]`, and up to the encoder's window.
        let theirs = theirs.get(1..theirs.len().saturating_sub(1)).unwrap_or(&[]);
        let mut ours = ours.tokens(text);
        if theirs.len() == MAX_ENCODER_TOKENS - 2 {
            ours.truncate(theirs.len());
        }
        if ours != theirs {
            differences.push(format!("{text:?}:\n  ours   {ours:?}\n  theirs {theirs:?}"));
        }
    }
    assert!(texts.len() > 1000, "{}", texts.len());
    assert!(
        differences.is_empty(),
        "{} of {} texts split differently:\n{}",
        differences.len(),
        texts.len(),
        differences.join("\n")
    );
}
