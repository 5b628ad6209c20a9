//! Destructive calls (`deletePage`, `deletePost`, `httpPost`) answer with a
//! preview first and act only when called again with `confirmed: true`. Exact
//! JSON, as the model reads it.

use example_cms::Cms;
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::{Context, Tier, registry};

#[allow(clippy::needless_pass_by_value)] // `json!(..)` at every call site
fn call(ctx: &Context, name: &str, arguments: Value) -> Value {
    block_on(registry().call_value(name, &arguments, ctx)).to_json()
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
    assert_eq!(confirm, ["deletePage", "deletePost", "httpPost"]);
    // The framework adds `confirmed`; nobody writes it by hand.
    let schema = registry().get("deletePage").unwrap().schema().clone();
    assert_eq!(schema["properties"]["confirmed"]["type"], "boolean");
    assert_eq!(schema["required"], json!(["ids"]));
}

#[test]
fn delete_page_previews_then_deletes_on_the_confirmed_call() {
    let (cms, ctx) = site();
    assert_eq!(
        call(&ctx, "deletePage", json!({"ids": [2, 3]})),
        json!({
            "requires_confirmation": true,
            "message": "This deletes 2 pages for good; visitors will get a 404. Show the user, and only if they agree call `deletePage` again with `confirmed: true`.",
            "items": [
                {"id": 2, "slug": "about", "title": "About us"},
                {"id": 3, "slug": "contact", "title": "Contact"}
            ]
        })
    );
    // Nothing happened yet, also with `confirmed: false`.
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
}

#[test]
fn a_preview_sees_the_same_checked_arguments_as_the_action() {
    let (cms, ctx) = site();
    // An unknown id fails at the preview: the user is never asked about it.
    assert_eq!(
        call(&ctx, "deletePage", json!({"ids": [1, 9]})),
        json!({"error": {"kind": "failed", "message": "no page with id 9; nothing was deleted"}})
    );
    // Wrong types fail before any preview.
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
fn delete_post_previews_by_old_name_and_counts_published_posts() {
    let (cms, ctx) = site();
    assert_eq!(
        call(&ctx, "deletePost", json!({"ids": [4, 5]})),
        json!({
            "requires_confirmation": true,
            "message": "This deletes 2 posts for good (1 published). Show the user, and only if they agree call `deletePost` again with `confirmed: true`.",
            "items": [
                {"id": 4, "slug": "sourdough", "title": "Our sourdough"},
                {"id": 5, "slug": "rye", "title": "Rye, coming soon"}
            ]
        })
    );
    assert_eq!(
        call(&ctx, "deletePost", json!({"ids": [5], "confirmed": true})),
        json!({"result": {"success": true, "count": 1, "items": [5]}})
    );
    assert_eq!(cms.posts().len(), 1);
    assert_eq!(
        call(&ctx, "cms_deletePages", json!({"ids": [1]}))["requires_confirmation"],
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
