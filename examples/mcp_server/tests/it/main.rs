//! Every test file here is a module of one test binary: a binary of its own per
//! file linked the whole dependency tree again each time (about 40-70 MB and several
//! seconds of linking apiece), which made a first `cargo test --workspace` take
//! more disk and time than anything the tests do.
//!
//! Beside it, in binaries of their own:
//! - `cancellation`, `external`, `logging`, `progress` and `token_passthrough`
//!   define `#[tool]` functions, and a test binary's registry is every tool linked
//!   into it: here the registry is the example's tools and nothing else;
//! - `observability` installs a counting `#[global_allocator]`, which is one per
//!   process.
//!
//! The script-driven tests (`fleet`, `inspector`, `python_client`, ...) take turns
//! (see `common::run_script`): they share the clients installed under `target/`.

// Shared with the binaries beside this one and with `benches/oauth.rs`.
#[path = "../common/mod.rs"]
mod common;

mod approvals;
mod ask;
mod conformance;
mod fleet;
mod hostile_names;
mod http;
mod inbox;
mod inspector;
mod introspection;
mod oauth;
mod oauth_clients;
mod python_client;
mod rig_adapter;
mod slow_clients;
mod stdio;
mod tasks;
