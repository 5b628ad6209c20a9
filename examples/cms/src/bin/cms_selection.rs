//! Prints how a labelled set scores against the CMS agent's routed tools: sending
//! all of them, toolkit's router, and a provider's search (plain BM25 over name
//! and description), side by side, then the router's report. The command a crate
//! of your own carries in a few lines, around
//! `toolkit::testing::selection_command_main`.
//!
//! ```sh
//! cargo run -p example-cms --bin cms_selection -- examples/cms/tests/selection.toml
//! cargo run -p example-cms --bin cms_selection -- examples/cms/tests/selection.toml --k 3 --json
//! ```

use example_cms::{Agent, Cms, registry};

fn main() -> std::process::ExitCode {
    toolkit::testing::selection_command_main(
        &Agent::new(registry(), Cms::sample()).view().catalog(),
    )
}
