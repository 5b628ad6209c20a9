//! Writes 1,000 `#[tool]` functions into `OUT_DIR/tools.rs`: enough tools that
//! building every schema at start-up shows (BENCHMARKS.md, "First use").

use std::fmt::Write as _;

/// How many tools the binary links.
const TOOLS: usize = 1_000;

fn main() {
    let mut source = String::new();
    for index in 0..TOOLS {
        // Three parameter shapes, so the schemas are not all one size.
        let params = match index % 3 {
            0 => "/// The record's id.\n    id: u32,\n",
            1 => {
                "/// The record's id.\n    id: u32,\n    /// A note to keep, if any.\n    note: Option<String>,\n"
            }
            _ => {
                "/// The labels to set.\n    labels: Vec<String>,\n    /// How many at most.\n    #[tool(default = 20)]\n    limit: u32,\n"
            }
        };
        let _ = writeln!(
            source,
            "/// Tool number {index}: gets record {index} of the generated set.\n\
             #[tool(scope = shared, tier = auto)]\n\
             #[allow(unused_variables)]\n\
             pub fn get_record_{index:04}(\n    {params}) -> u32 {{\n    {index}\n}}\n"
        );
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(std::path::Path::new(&out).join("tools.rs"), source)
        .expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
}
