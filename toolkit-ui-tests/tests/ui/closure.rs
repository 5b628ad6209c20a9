//! `#[tool]` on a closure. rustc itself rejects attributes on expressions (two
//! E0658 errors, which no macro can prevent); `#[tool]` adds what to write instead.

use toolkit::tool;

fn main() {
    let _search = #[tool(scope = shared, tier = auto)]
    async |query: String| query.len();
}
