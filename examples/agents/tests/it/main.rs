//! Every test file here is a module of one test binary: a binary of its own per
//! file linked the whole dependency tree again each time (about 40-70 MB and several
//! seconds of linking apiece), which made a first `cargo test --workspace` take
//! more disk and time than anything the tests do.

use toolkit::quota::{MemoryQuotaStore, Quotas};

mod approvals;
mod demo;
mod inbox_browser;
mod schedules;
mod selection;
mod views;

/// The org's quotas, counted in a store of this test's own (so no test spends
/// another's), for as long as the test binary lives.
fn quotas() -> &'static Quotas {
    Box::leak(Box::new(
        example_agents::consumers::quotas(MemoryQuotaStore::new()).expect("the org's quotas"),
    ))
}
