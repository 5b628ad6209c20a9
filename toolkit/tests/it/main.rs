//! Every test file here is a module of one test binary: a binary of its own per
//! file linked the whole dependency tree again each time (about 40-70 MB and several
//! seconds of linking apiece), which made a first `cargo test --workspace` take
//! more disk and time than anything the tests do.
//!
//! Beside it, in binaries of their own: `conformance`, `inbox`, `quota` and `route_delivery`
//! define `#[tool]` functions, and a test binary's registry is every tool linked into
//! it, so each keeps the registry its tests assert on.

mod deep_values;
mod features;
mod module_graph;
