//! A plain (not `async`) function is a tool, and stays callable as a function.

use toolkit::{Context, Scope, Tier, tool};

/// Add two numbers.
#[tool(scope = shared, tier = auto)]
fn get_sum(
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
) -> i64 {
    a + b
}

fn main() {
    assert_eq!(get_sum(2, 3), 5);
    assert_eq!(get_sum::NAME, "get_sum");
    assert_eq!(get_sum::SCOPE, Scope::Shared);
    assert_eq!(get_sum::TIER, Tier::Auto);
    let response = futures_executor::block_on(toolkit::registry().call(
        "get_sum",
        r#"{"a": 2, "b": 40}"#,
        &Context::new(),
    ));
    assert_eq!(response.to_json(), serde_json::json!({"result": 42}));
}
