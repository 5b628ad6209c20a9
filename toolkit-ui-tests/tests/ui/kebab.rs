//! Keys written in kebab-case, and a crate named in `link_tools!` as its package
//! is: Rust writes both with `_`.

use toolkit::tool;

/// Get the weather.
#[tool(scope = shared, tier = auto, asked-as = ["will it rain"])]
fn get_weather() {}

toolkit::link_tools!(serde_json, billing-tools);

fn main() {}
