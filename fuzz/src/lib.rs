//! Fuzz targets for toolkit (run with `cargo +nightly fuzz run <target>` from the
//! repository root; see the guide's `contributing` chapter, "Fuzzing"):
//!
//! - [`dispatch`]: arbitrary names and argument text against the assistant's
//!   tools, the conformance corpus and [`tricky`]'s tools;
//! - [`schema`]: the schema cleaner and every dialect renderer on arbitrary
//!   schemas, each accepted rendering checked by the conformance checker.
//!
//! The logic lives here, not in `fuzz_targets/`, so the replay tests
//! (`cargo test --lib --no-default-features`, stable) run every seed and every
//! kept regression input through the same code.

#[allow(dead_code, unreachable_pub)]
#[path = "../../toolkit/tests/conformance/checker.rs"]
pub(crate) mod checker;
// The corpus allows its own dead code.
#[allow(unreachable_pub, missing_docs)]
#[path = "../../toolkit/tests/conformance/corpus.rs"]
pub(crate) mod corpus;

pub mod dispatch;
pub mod generate;
pub mod schema;
pub mod tricky;
pub mod wellformed;

#[cfg(test)]
mod replay;

/// The process-wide registry, checked once to hold all three tool sets (a tool
/// crate the linker dropped would silently shrink what is fuzzed).
#[must_use]
pub fn registry() -> &'static toolkit::Registry {
    static CHECKED: std::sync::Once = std::sync::Once::new();
    let registry = toolkit::registry();
    CHECKED.call_once(|| {
        for name in ["get_tasks", "set_integers", "set_target"] {
            assert!(registry.get(name).is_some(), "`{name}` is not linked");
        }
        // Keep the corpus's definitions list referenced.
        assert!(corpus::definitions().len() > 20);
    });
    registry
}
