//! `#[tool(examples = [..], asked_as = [..])]` as a downstream crate uses them:
//! the examples kept on the definition, checked by the registry with the
//! messages the model would read, rendered as Anthropic's `input_examples` and
//! nowhere else; the messages read by the router and never rendered.
//!
//! Every tool here is put in a registry by hand (`Registry::new`): `wrong_example`
//! is meant to stop a registry, so this binary never builds `registry()`.

use serde_json::json;
use toolkit::route::{Catalog, CatalogEntry, LexicalRouter, RouteRequest, select};
use toolkit::{Dialect, Registry, ToolError, call::Problem, registry::RegistryError, tool};

/// Move a task to another list.
#[tool(scope = shared, tier = auto, group = "tasks",
       examples = [r#"{"id": 3, "list": "groceries"}"#, r#"{"id": 12, "list": "work", "position": 0}"#],
       asked_as = ["put the milk task on my groceries list", "file this under work"])]
pub fn update_task_lists(
    /// The task to move.
    id: u32,
    /// The list it goes to.
    list: String,
    /// Where in the list, from 0 (the end unless given).
    position: Option<u32>,
) -> String {
    format!("{id} {list} {position:?}")
}

/// A type the macro cannot read from its spelling (a `String` parameter would
/// have its example refused at compile time), so the registry checks it.
pub type CityName = String;

/// Get the weather for a city.
#[tool(scope = shared, tier = auto, examples = [r#"{"city": 3}"#])]
pub fn get_weather(
    /// The city's name.
    city: CityName,
) -> String {
    city
}

/// Rename a note.
#[tool(scope = shared, tier = auto, examples = "tests/data/rename_notes.examples.json")]
pub fn update_note_titles(
    /// The note.
    id: u32,
    /// Its new title.
    title: String,
    /// Whether it stays on top of the list.
    pinned: Option<bool>,
) -> String {
    format!("{id} {title} {pinned:?}")
}

/// Delete notes by id.
#[tool(scope = shared, tier = auto, asked_as = ["throw away my shopping note"])]
pub fn delete_notes(
    /// The notes to delete.
    ids: Vec<u32>,
) -> usize {
    ids.len()
}

#[test]
fn examples_and_messages_are_kept_on_the_definition_as_written() {
    let tool = update_task_lists::definition();
    assert_eq!(
        tool.examples,
        [
            r#"{"id": 3, "list": "groceries"}"#,
            r#"{"id": 12, "list": "work", "position": 0}"#
        ]
    );
    assert_eq!(
        tool.asked_as,
        [
            "put the milk task on my groceries list",
            "file this under work"
        ]
    );
    assert!(delete_notes::definition().examples.is_empty());
}

#[test]
fn examples_from_a_file_are_its_items_checked_like_inline_ones() {
    // `examples = "tests/data/rename_notes.examples.json"`, read from the
    // crate's directory: one example per item of the file's array.
    let examples: Vec<serde_json::Value> = update_note_titles::definition()
        .examples
        .iter()
        .map(|example| serde_json::from_str(example).unwrap())
        .collect();
    assert_eq!(
        examples,
        [
            json!({"id": 7, "title": "Groceries"}),
            json!({"id": 12, "title": "Books to read", "pinned": true})
        ]
    );
    let registry = Registry::new([update_note_titles::definition()]).expect("the examples fit");
    let tool = registry.get("update_note_titles").expect("registered");
    assert_eq!(
        tool.render(Dialect::Anthropic).expect("renders")["input_examples"],
        json!(examples)
    );
}

#[test]
fn a_wrong_example_stops_the_registry_with_the_message_the_model_would_read() {
    let error = Registry::new([get_weather::definition()]).expect_err("the example is wrong");
    let RegistryError::InvalidExample {
        tool,
        number,
        example,
        error: call_error,
        ..
    } = &error
    else {
        panic!("expected an invalid example, got {error:?}");
    };
    assert_eq!(
        (*tool, *number, *example),
        ("get_weather", 1, r#"{"city": 3}"#)
    );
    assert_eq!(
        call_error,
        &ToolError::InvalidArguments {
            problems: vec![Problem {
                path: "city".to_owned(),
                message: "expected a string, got 3".to_owned(),
            }],
        }
    );
    assert_eq!(
        std::error::Error::source(&error).and_then(|cause| cause.downcast_ref::<ToolError>()),
        Some(call_error),
        "the call's error is the source"
    );
    let line = get_weather::definition().location.line;
    assert_eq!(
        error.to_string(),
        format!(
            "example 1 of tool `get_weather` at toolkit-derive-tests/tests/examples.rs:{line} (examples) does not fit its arguments: invalid arguments at `city`: expected a string, got 3; fix the example `{{\"city\": 3}}` or remove it"
        )
    );
}

#[test]
fn anthropic_gets_the_examples_as_input_examples_and_no_other_dialect_gets_them() {
    let registry = Registry::new([update_task_lists::definition(), delete_notes::definition()])
        .expect("valid");
    let tool = registry.get("update_task_lists").expect("registered");
    let examples = json!([
        {"id": 3, "list": "groceries"},
        {"id": 12, "list": "work", "position": 0}
    ]);
    assert_eq!(
        tool.render(Dialect::Anthropic).expect("renders"),
        json!({
            "name": "update_task_lists",
            "description": "Move a task to another list.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "description": "The task to move."},
                    "list": {"type": "string", "description": "The list it goes to."},
                    "position": {
                        "type": "integer",
                        "description": "Where in the list, from 0 (the end unless given)."
                    }
                },
                "required": ["id", "list"]
            },
            "input_examples": examples
        })
    );
    assert_eq!(
        tool.render(Dialect::AnthropicStrict).expect("renders")["input_examples"],
        examples
    );
    // The key sits after the schema, where a reader of the request expects it.
    let text = tool.render_json(Dialect::Anthropic).expect("renders");
    assert!(
        text.ends_with(r#","input_examples":[{"id":3,"list":"groceries"},{"id":12,"list":"work","position":0}]}"#),
        "{text}"
    );
    for dialect in Dialect::ALL {
        let rendered = tool.render_json(dialect).expect("renders");
        let has_examples = rendered.contains("groceries");
        assert_eq!(
            has_examples,
            matches!(dialect, Dialect::Anthropic | Dialect::AnthropicStrict),
            "{dialect}: {rendered}"
        );
        // The user messages are for the router only.
        assert!(!rendered.contains("milk"), "{dialect}: {rendered}");
    }
}

#[test]
fn the_router_finds_a_tool_by_its_asked_as_messages() {
    let catalog = Catalog::new(
        [update_task_lists::definition(), delete_notes::definition()]
            .into_iter()
            .map(CatalogEntry::from_tool),
    );
    assert_eq!(
        catalog
            .get("delete_notes")
            .expect("in the catalog")
            .asked_as,
        ["throw away my shopping note"]
    );
    let router = LexicalRouter::new(catalog);
    // Neither "milk" nor "file" is in any name or description: only the
    // examples of what users say connect them to their tool.
    futures_executor::block_on(async {
        let request = RouteRequest::new("the milk goes on the groceries list").limit(1);
        assert_eq!(
            select(&router, &request).await.names(),
            ["update_task_lists"]
        );
        let request = RouteRequest::new("file it under work").limit(1);
        assert_eq!(
            select(&router, &request).await.names(),
            ["update_task_lists"]
        );
    });
}
