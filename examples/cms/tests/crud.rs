//! The CMS tools called as a model calls them, by their camelCase names and their
//! old `cms_*` names, with the exact JSON the model reads back.

use example_cms::Cms;
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::{Context, registry};

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
fn the_catalog_is_camel_case_verb_entity() {
    let names: Vec<&str> = registry().iter().map(|tool| tool.name).collect();
    assert_eq!(
        names,
        [
            "createPage",
            "createPost",
            "deletePage",
            "deletePost",
            "getPage",
            "getPost",
            "httpGet",
            "httpPost",
            "updatePage",
            "updatePost",
        ]
    );
    let verbs: Vec<&str> = registry().iter().map(|tool| tool.verb()).collect();
    assert_eq!(
        verbs,
        [
            "create", "create", "delete", "delete", "get", "get", "http", "http", "update",
            "update"
        ]
    );
}

#[test]
fn every_get_selects_by_id_slug_or_all_and_answers_a_list() {
    let (_, ctx) = site();
    assert_eq!(
        call(&ctx, "getPage", json!({"slug": "about"})),
        json!({"result": {"success": true, "count": 1, "items": [
            {"id": 2, "slug": "about", "title": "About us", "body": "We bake bread."}
        ]}})
    );
    assert_eq!(
        call(&ctx, "getPost", json!({"all": true})),
        json!({"result": {"success": true, "count": 2, "items": [
            {"id": 4, "slug": "sourdough", "title": "Our sourdough", "body": "# Our sourdough", "published": true},
            {"id": 5, "slug": "rye", "title": "Rye, coming soon", "body": "# Rye, coming soon", "published": false}
        ]}})
    );
    // The old name of the tool still answers.
    assert_eq!(
        call(&ctx, "cms_listPages", json!({"id": 3})),
        json!({"result": {"success": true, "count": 1, "items": [
            {"id": 3, "slug": "contact", "title": "Contact", "body": "Call us."}
        ]}})
    );
    assert_eq!(
        call(&ctx, "getPage", json!({})),
        json!({"error": {"kind": "failed", "message": "say which pages: give `id`, `slug`, or `all: true`"}})
    );
    assert_eq!(
        call(&ctx, "getPost", json!({"slug": "spelt"})),
        json!({"error": {"kind": "failed", "message": "no post with slug `spelt`"}})
    );
}

#[test]
fn creates_and_updates_act_at_once() {
    let (cms, ctx) = site();
    assert_eq!(
        call(
            &ctx,
            "createPost",
            json!({"slug": "spelt", "title": "Spelt", "body": "New."})
        ),
        json!({"result": {"id": 6, "slug": "spelt", "title": "Spelt", "body": "New.", "published": false}})
    );
    assert_eq!(
        call(&ctx, "cms_publishPost", json!({"id": 6, "published": true})),
        json!({"result": {"id": 6, "slug": "spelt", "title": "Spelt", "body": "New.", "published": true}})
    );
    assert_eq!(
        call(
            &ctx,
            "createPage",
            json!({"slug": "about", "title": "Again", "body": ""})
        ),
        json!({"error": {"kind": "failed", "message": "a page with slug `about` exists; update it instead"}})
    );
    assert_eq!(
        call(&ctx, "updatePage", json!({"id": 1, "title": "Welcome"})),
        json!({"result": {"id": 1, "slug": "home", "title": "Welcome", "body": "Welcome."}})
    );
    assert_eq!(cms.pages().len(), 3);
    assert_eq!(
        call(&ctx, "httpGet", json!({"url": "https://example.com/flour"})),
        json!({"result": {"status": 200, "body": "Flour prices are up 3%."}})
    );
}
