//! A second tools crate. The test binaries depend on it but call nothing in it, so
//! without `toolkit::link_tools!` the linker would drop its tools. It depends on
//! toolkit under another name, `tk`, which `#[tool]` reads from its Cargo.toml.

// The tool is `async` like real I/O-bound tools, though it never awaits.
#![allow(clippy::unused_async)]

use tk::tool;

/// Link two memories so recalling one brings up the other.
#[tool(scope = shared, tier = auto, group = "memories", aliases = ["relate_memories"])]
pub async fn link_memories(
    /// The first memory.
    from: u64,
    /// The second memory.
    to: u64,
) -> String {
    format!("linked {from} and {to}")
}
