//! Every test file here is a module of one test binary: a binary of its own per
//! file linked the whole dependency tree again each time (about 40-70 MB and several
//! seconds of linking apiece), which made a first `cargo test --workspace` take
//! more disk and time than anything the tests do.

mod catalog;
#[cfg(feature = "embeddings-encoder")]
mod encoder;
mod labelled;
