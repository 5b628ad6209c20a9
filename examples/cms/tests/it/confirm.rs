//! Destructive calls (every `delete*` and `httpPost`) answer with a preview first
//! and act only when called again with `confirmed: true`. Exact JSON, as the model
//! reads it.

use example_cms::{Cms, registry};
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::{Context, Tier};

#[allow(clippy::needless_pass_by_value)] // `json!(..)` at every call site
fn call(ctx: &Context, name: &str, arguments: Value) -> Value {
    block_on(registry().call_value(name, &arguments, ctx)).to_json()
}

/// What the model reads for invalid arguments with one problem.
fn invalid(path: &str, message: &str) -> Value {
    json!({"error": {
        "kind": "invalid_arguments",
        "problems": [{"path": path, "message": message}],
        "message": format!("invalid arguments at `{path}`: {message}")
    }})
}

fn site() -> (Cms, Context) {
    let cms = Cms::sample();
    let ctx = Context::new().with(cms.clone());
    (cms, ctx)
}

#[test]
fn exactly_the_destructive_tools_need_confirmation() {
    let confirm: Vec<&str> = registry()
        .iter()
        .filter(|tool| tool.tier == Tier::Confirm)
        .map(|tool| tool.name)
        .collect();
    assert_eq!(
        confirm,
        [
            "deleteEntry",
            "deleteImage",
            "deleteNavItem",
            "deletePage",
            "deletePost",
            "deleteSection",
            "httpPost"
        ]
    );
    // The framework adds `confirmed`; nobody writes it by hand.
    let schema = registry().get("deletePage").unwrap().schema().clone();
    assert_eq!(schema["properties"]["confirmed"]["type"], "boolean");
    assert_eq!(schema["required"], json!(["ids"]));
}

#[test]
fn delete_page_previews_then_deletes_the_pages_and_their_sections() {
    let (cms, ctx) = site();
    assert_eq!(
        call(&ctx, "deletePage", json!({"ids": [2, 3]})),
        json!({
            "requires_confirmation": true,
            "message": "This deletes 2 pages for good with their 1 section; visitors will get a 404. Show the user, and only if they agree call `deletePage` again with `confirmed: true`.",
            "items": [{"id": 2, "slug": "about"}, {"id": 3, "slug": "contact"}]
        })
    );
    assert_eq!(
        call(
            &ctx,
            "deletePage",
            json!({"ids": [2, 3], "confirmed": false})
        )["requires_confirmation"],
        true
    );
    assert_eq!(cms.pages().len(), 3);
    assert_eq!(
        call(
            &ctx,
            "deletePage",
            json!({"ids": [2, 3], "confirmed": true})
        ),
        json!({"result": {"success": true, "count": 2, "items": [2, 3]}})
    );
    assert_eq!(
        cms.pages()
            .iter()
            .map(|page| page.slug.as_str())
            .collect::<Vec<_>>(),
        ["home"]
    );
    assert_eq!(
        call(&ctx, "getSection", json!({"all": true}))["result"]["count"],
        1
    );
}

#[test]
fn a_preview_sees_the_same_checked_arguments_as_the_action() {
    let (cms, ctx) = site();
    assert_eq!(
        call(&ctx, "deletePage", json!({"ids": [1, 9]})),
        json!({"error": {"kind": "failed", "message": "no page with id 9; nothing was deleted"}})
    );
    assert_eq!(
        call(&ctx, "deleteImage", json!({"ids": []})),
        invalid("ids", "empty; pass at least one id")
    );
    assert_eq!(
        call(&ctx, "deletePage", json!({"ids": "all"}))["error"]["kind"],
        "invalid_arguments"
    );
    assert_eq!(
        call(&ctx, "deletePage", json!({"ids": [1], "confirmed": "yes"}))["error"]["kind"],
        "invalid_arguments"
    );
    assert_eq!(cms.pages().len(), 3);
}

#[test]
fn every_delete_previews_what_it_would_remove() {
    let (cms, ctx) = site();
    assert_eq!(
        call(&ctx, "deletePost", json!({"ids": [9, 10]})),
        json!({
            "requires_confirmation": true,
            "message": "This deletes 2 posts for good (1 published). Show the user, and only if they agree call `deletePost` again with `confirmed: true`.",
            "items": [{"id": 9, "slug": "sourdough"}, {"id": 10, "slug": "rye"}]
        })
    );
    assert_eq!(
        call(&ctx, "deleteSection", json!({"ids": [7]}))["message"],
        "This deletes 1 section for good. Show the user, and only if they agree call `deleteSection` again with `confirmed: true`."
    );
    assert_eq!(
        call(&ctx, "deleteEntry", json!({"ids": [13]}))["items"],
        json!([{"id": 13, "slug": "ada"}])
    );
    assert_eq!(
        call(
            &ctx,
            "deleteNavItem",
            json!({"ids": [11, 12], "confirmed": true})
        ),
        json!({"result": {"success": true, "count": 2, "items": [11, 12]}})
    );
    assert_eq!(
        call(&ctx, "deletePost", json!({"ids": [10], "confirmed": true})),
        json!({"result": {"success": true, "count": 1, "items": [10]}})
    );
    assert_eq!(cms.posts().len(), 1);
    assert_eq!(
        call(&ctx, "cms_removePage", json!({"ids": [1]}))["requires_confirmation"],
        true
    );
}

#[test]
fn http_post_shows_what_leaves_the_site_before_sending() {
    let (cms, ctx) = site();
    let arguments =
        json!({"url": "https://example.com/hooks", "body": "{\"event\": \"published\"}"});
    assert_eq!(
        call(&ctx, "httpPost", arguments.clone()),
        json!({
            "requires_confirmation": true,
            "message": "This sends 22 bytes to https://example.com/hooks, outside the site; it cannot be taken back. Show the user, and only if they agree call `httpPost` again with `confirmed: true`.",
            "items": [{"url": "https://example.com/hooks", "body": "{\"event\": \"published\"}"}]
        })
    );
    assert_eq!(cms.sent(), []);
    let mut confirmed = arguments;
    confirmed["confirmed"] = json!(true);
    assert_eq!(
        call(&ctx, "httpPost", confirmed),
        json!({"result": {"status": 200, "body": "ok"}})
    );
    assert_eq!(cms.sent().len(), 1);
}
