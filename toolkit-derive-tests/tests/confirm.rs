//! The `confirm` tier, macro side: toolkit adds a `confirmed` argument to the
//! schema; a call without `confirmed: true` returns the tool's preview (built from
//! the same validated arguments) and does not run the tool; a confirmed call runs it.

// The async tool and preview stand in for real I/O-bound ones.
#![allow(clippy::unused_async)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures_executor::block_on;
use serde_json::json;
use toolkit::{Context, Preview, Response, State, ToolError, definition::Param, registry, tool};

/// Pages by id.
#[derive(Clone, Default)]
struct Pages(Arc<Mutex<BTreeMap<u32, String>>>);

impl Pages {
    fn with(pages: &[(u32, &str)]) -> Pages {
        let map = pages
            .iter()
            .map(|&(id, title)| (id, title.to_owned()))
            .collect();
        Pages(Arc::new(Mutex::new(map)))
    }

    fn ids(&self) -> Vec<u32> {
        self.0
            .lock()
            .expect("not poisoned")
            .keys()
            .copied()
            .collect()
    }
}

/// Delete pages for good.
#[tool(scope = shared, tier = confirm, preview = preview_delete_pages)]
fn delete_pages(
    #[ctx] pages: State<Pages>,
    /// The pages to delete.
    ids: Vec<u32>,
) -> Vec<u32> {
    let mut all = pages.0.0.lock().expect("not poisoned");
    ids.into_iter()
        .filter(|id| all.remove(id).is_some())
        .collect()
}

/// Sees what the tool would see: the same context and the parsed `ids`, by value
/// like the tool.
#[allow(clippy::needless_pass_by_value)]
fn preview_delete_pages(pages: State<Pages>, ids: Vec<u32>) -> Preview {
    let all = pages.0.0.lock().expect("not poisoned");
    let titles: Vec<&String> = ids.iter().filter_map(|id| all.get(id)).collect();
    Preview::new(format!("Delete {} pages?", titles.len())).items(titles)
}

/// Delete posts; shows the default preview.
#[tool(scope = shared, tier = confirm)]
fn delete_posts(
    /// The posts to delete.
    ids: Vec<u32>,
    /// Why, for the audit log.
    reason: Option<String>,
) -> usize {
    ids.len() + reason.map_or(0, |reason| reason.len())
}

/// Update the site's title. Its preview is `async` and may refuse.
#[tool(scope = shared, tier = confirm, preview = preview_update_title)]
async fn update_title(
    /// The new title.
    title: String,
) -> String {
    title
}

async fn preview_update_title(title: String) -> Result<Preview, ToolError> {
    if title.is_empty() {
        return Err(ToolError::failed("the title cannot be empty"));
    }
    Ok(Preview::new(format!("Rename the site to {title:?}?")))
}

fn call(name: &str, arguments: &str, ctx: &Context) -> Response {
    block_on(registry().call(name, arguments, ctx))
}

#[test]
fn the_schema_and_params_carry_confirmed() {
    let confirmed_doc = "Set to true only after the user has seen this tool's preview and agreed to it. Without it (or with false) the tool does not act: it returns that preview.";
    assert_eq!(
        *registry().get("delete_pages").expect("registered").schema(),
        json!({
            "type": "object",
            "properties": {
                "ids": {
                    "type": "array",
                    "description": "The pages to delete.",
                    "items": {"type": "integer", "minimum": 0}
                },
                "confirmed": {
                    "type": "boolean",
                    "description": confirmed_doc,
                    "default": false
                }
            },
            "required": ["ids"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        delete_pages::definition().params,
        [
            Param {
                name: "ids",
                description: "The pages to delete.",
                required: true,
            },
            Param {
                name: "confirmed",
                description: confirmed_doc,
                required: false,
            },
        ]
    );
}

#[test]
fn without_confirmed_the_preview_comes_back_and_nothing_runs() {
    let pages = Pages::with(&[(1, "About"), (2, "Team"), (3, "Jobs")]);
    let ctx = Context::new().with(pages.clone());
    let expected = json!({
        "requires_confirmation": true,
        "message": "Delete 2 pages?",
        "items": ["About", "Jobs"]
    });
    let response = call("delete_pages", r#"{"ids": [1, 3]}"#, &ctx);
    assert_eq!(response.to_json(), expected);
    assert_eq!(
        response.preview(),
        Some(&Preview {
            message: "Delete 2 pages?".to_owned(),
            items: vec![json!("About"), json!("Jobs")],
        })
    );
    assert_eq!(pages.ids(), [1, 2, 3]);
    // `false` is the same as leaving it out.
    let declined = call(
        "delete_pages",
        r#"{"ids": [1, 3], "confirmed": false}"#,
        &ctx,
    );
    assert_eq!(declined.to_json(), expected);
    assert_eq!(pages.ids(), [1, 2, 3]);
}

#[test]
fn with_confirmed_true_the_tool_runs() {
    let pages = Pages::with(&[(1, "About"), (2, "Team"), (3, "Jobs")]);
    let ctx = Context::new().with(pages.clone());
    assert_eq!(
        call(
            "delete_pages",
            r#"{"ids": [1, 3], "confirmed": true}"#,
            &ctx
        ),
        Response::Result(json!([1, 3]))
    );
    assert_eq!(pages.ids(), [2]);
}

#[test]
fn the_preview_sees_only_validated_arguments() {
    let pages = Pages::with(&[(1, "About")]);
    let ctx = Context::new().with(pages.clone());
    assert_eq!(
        call("delete_pages", r#"{"ids": ["one"]}"#, &ctx),
        Response::Error(ToolError::invalid_arguments(
            "ids[0]".to_owned(),
            "expected a non-negative integer, got the string \"one\"".to_owned()
        ))
    );
    assert_eq!(
        call("delete_pages", r#"{"ids": [1], "confirmed": "yes"}"#, &ctx),
        Response::Error(ToolError::invalid_arguments(
            "confirmed".to_owned(),
            "expected true or false, got the string \"yes\"".to_owned()
        ))
    );
    // A missing `#[ctx]` value stops the preview as it would stop the tool.
    assert_eq!(
        call("delete_pages", r#"{"ids": [1]}"#, &Context::new()),
        Response::Error(ToolError::MissingContext {
            type_name: "confirm::Pages".to_owned(),
        })
    );
    assert_eq!(pages.ids(), [1]);
}

#[test]
fn without_a_preview_function_the_default_preview_shows_the_arguments() {
    let ctx = Context::new();
    assert_eq!(
        call("delete_posts", r#"{"ids": [4, 5], "reason": null}"#, &ctx).to_json(),
        json!({
            "requires_confirmation": true,
            "message": "`delete_posts` has not run; call it again with `confirmed: true` to proceed",
            "items": [{"ids": [4, 5]}]
        })
    );
    assert_eq!(
        call(
            "delete_posts",
            r#"{"ids": [4, 5], "reason": "spam", "confirmed": true}"#,
            &ctx
        ),
        Response::Result(json!(6))
    );
}

#[test]
fn an_async_preview_is_awaited_and_its_error_returned() {
    let ctx = Context::new();
    assert_eq!(
        call("update_title", r#"{"title": "Acme"}"#, &ctx).to_json(),
        json!({
            "requires_confirmation": true,
            "message": "Rename the site to \"Acme\"?",
            "items": []
        })
    );
    assert_eq!(
        call("update_title", r#"{"title": ""}"#, &ctx),
        Response::Error(ToolError::Failed {
            message: "the title cannot be empty".to_owned(),
        })
    );
    assert_eq!(
        call(
            "update_title",
            r#"{"title": "Acme", "confirmed": true}"#,
            &ctx
        ),
        Response::Result(json!("Acme"))
    );
}

#[test]
fn a_preview_is_ok_json_for_callers_that_want_a_result() {
    let response = call("update_title", r#"{"title": "Acme"}"#, &Context::new());
    assert!(!response.is_success());
    assert_eq!(response.result(), None);
    assert_eq!(response.error(), None);
    assert_eq!(
        response.into_result(),
        Ok(json!({
            "requires_confirmation": true,
            "message": "Rename the site to \"Acme\"?",
            "items": []
        }))
    );
}
