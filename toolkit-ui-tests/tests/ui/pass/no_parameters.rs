//! A tool without parameters, returning nothing: the schema is an empty object and
//! the result is `null`.

use toolkit::{Context, tool};

/// Get nothing at all.
#[tool(scope = channel, tier = auto, always)]
async fn get_nothing() {}

fn main() {
    let tool = get_nothing::definition();
    assert!(tool.params.is_empty());
    assert!(tool.always);
    let response =
        futures_executor::block_on(toolkit::registry().call("get_nothing", "", &Context::new()));
    assert_eq!(response.to_json(), serde_json::json!({"result": null}));
}
