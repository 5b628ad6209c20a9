//! Raw identifiers: `r#type` is the parameter `type` for the model, and a raw
//! function name is the tool's name without `r#`.

use toolkit::{Context, tool};

/// Search by type.
#[tool(scope = shared, tier = auto)]
fn search_items(
    /// The kind of item.
    r#type: String,
    /// Whether to match case.
    r#match: Option<bool>,
) -> String {
    format!("{type}:{}", r#match.unwrap_or(false))
}

fn main() {
    let tool = toolkit::registry().get("search_items").expect("registered");
    let names: Vec<&str> = tool.params.iter().map(|param| param.name).collect();
    assert_eq!(names, ["type", "match"]);
    assert_eq!(
        tool.schema(),
        &serde_json::json!({
            "type": "object",
            "properties": {
                "type": {"type": "string", "description": "The kind of item."},
                "match": {"type": "boolean", "description": "Whether to match case."}
            },
            "required": ["type"],
            "additionalProperties": false
        })
    );
    let response = futures_executor::block_on(toolkit::registry().call(
        "search_items",
        r#"{"type": "book", "match": true}"#,
        &Context::new(),
    ));
    assert_eq!(
        response.to_json(),
        serde_json::json!({"result": "book:true"})
    );
}
