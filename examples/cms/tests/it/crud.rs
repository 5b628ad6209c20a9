//! The CMS tools called as a model calls them, by their camelCase names and their
//! old `cms_*` names, with the exact JSON the model reads back.

use example_cms::{Cms, Said, registry};
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::Context;
use toolkit::route::Catalog;

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
fn the_catalog_is_34_camel_case_verb_entity_tools_three_of_them_always() {
    let names: Vec<&str> = registry().iter().map(|tool| tool.name).collect();
    assert_eq!(
        names,
        [
            "acknowledgeRequest",
            "browseImages",
            "createEntry",
            "createImage",
            "createNavItem",
            "createPage",
            "createPost",
            "createSection",
            "deleteEntry",
            "deleteImage",
            "deleteNavItem",
            "deletePage",
            "deletePost",
            "deleteSection",
            "fetchContent",
            "finalAnswer",
            "getEntry",
            "getImage",
            "getNavItem",
            "getPage",
            "getPost",
            "getSection",
            "getSectionTemplate",
            "httpGet",
            "httpPost",
            "importImage",
            "searchTools",
            "searchWeb",
            "updateEntry",
            "updateImage",
            "updateNavItem",
            "updatePage",
            "updatePost",
            "updateSection",
        ]
    );
    let mut verbs: Vec<&str> = registry().iter().map(|tool| tool.verb()).collect();
    verbs.sort_unstable();
    verbs.dedup();
    assert_eq!(
        verbs,
        [
            "acknowledge",
            "browse",
            "create",
            "delete",
            "fetch",
            "final",
            "get",
            "http",
            "import",
            "search",
            "update"
        ]
    );
    let always: Vec<&str> = registry()
        .iter()
        .filter(|tool| tool.always)
        .map(|tool| tool.name)
        .collect();
    assert_eq!(always, ["acknowledgeRequest", "finalAnswer", "searchTools"]);
    // Every tool but the built-in search tool carries its gotcha.
    let without: Vec<&str> = registry()
        .iter()
        .filter(|tool| tool.guidance.is_none())
        .map(|tool| tool.name)
        .collect();
    assert_eq!(without, ["searchTools"]);
}

#[test]
fn the_routing_benchmark_routes_this_catalog() {
    // Regenerate with `cargo run -p example-cms --bin cms_catalog > bench/routing/data/cms.json`.
    let json = include_str!("../../../../bench/routing/data/cms.json");
    assert_eq!(json, example_cms::catalog_json());
    let bench = Catalog::from_json(json).expect("a catalog");
    assert_eq!(bench, Catalog::from_tools(registry()));
}

#[test]
fn old_names_are_aliases_of_the_new_ones() {
    let resolve = |old: &str| registry().get(old).map(|tool| tool.name);
    for (old, new) in [
        ("cms_listPages", "getPage"),
        ("cms_getPage", "getPage"),
        ("cms_createPage", "createPage"),
        ("cms_deletePages", "deletePage"),
        ("cms_removePage", "deletePage"),
        ("cms_listTemplates", "getSectionTemplate"),
        ("cms_listMedia", "getImage"),
        ("cms_uploadImage", "createImage"),
        ("cms_listPosts", "getPost"),
        ("cms_createPost", "createPost"),
        ("cms_publishPost", "updatePost"),
        ("cms_listNav", "getNavItem"),
        ("cms_listEntries", "getEntry"),
        ("cms_stockSearch", "browseImages"),
        ("cms_webSearch", "searchWeb"),
        ("cms_fetchUrl", "fetchContent"),
    ] {
        assert_eq!(resolve(old), Some(new), "{old}");
    }
    let (_, ctx) = site();
    assert_eq!(
        call(
            &ctx,
            "cms_publishPost",
            json!({"id": 10, "status": "published"})
        ),
        json!({"result": {"id": 10, "slug": "rye", "title": "Rye, coming soon", "body": "# Rye, coming soon", "status": "published"}})
    );
}

#[test]
fn every_get_selects_by_id_slug_or_all_and_answers_a_list() {
    let (_, ctx) = site();
    assert_eq!(
        call(&ctx, "getPage", json!({"slug": "about"})),
        json!({"result": {"success": true, "count": 1, "items": [
            {"id": 2, "slug": "about", "title": "About us", "status": "published"}
        ]}})
    );
    assert_eq!(
        call(&ctx, "getPost", json!({"all": true})),
        json!({"result": {"success": true, "count": 2, "items": [
            {"id": 9, "slug": "sourdough", "title": "Our sourdough", "body": "# Our sourdough", "status": "published"},
            {"id": 10, "slug": "rye", "title": "Rye, coming soon", "body": "# Rye, coming soon", "status": "draft"}
        ]}})
    );
    assert_eq!(
        call(&ctx, "getSectionTemplate", json!({"slug": "hero"})),
        json!({"result": {"success": true, "count": 1, "items": [
            {"id": 4, "slug": "hero", "fields": ["heading", "image"]}
        ]}})
    );
    assert_eq!(
        call(&ctx, "getSection", json!({"id": 6})),
        json!({"result": {"success": true, "count": 1, "items": [
            {"id": 6, "slug": "home-hero", "pageId": 1, "templateId": 4, "content": {"heading": "Fresh bread daily", "image": "8"}, "position": 0}
        ]}})
    );
    assert_eq!(
        call(&ctx, "getNavItem", json!({"slug": "menu-about"})),
        json!({"result": {"success": true, "count": 1, "items": [
            {"id": 12, "slug": "menu-about", "label": "About", "href": "/about", "order": 1}
        ]}})
    );
    assert_eq!(
        call(&ctx, "getEntry", json!({"all": true})),
        json!({"result": {"success": true, "count": 1, "items": [
            {"id": 13, "slug": "ada", "collection": "team", "fields": {"name": "Ada", "role": "Baker"}}
        ]}})
    );
    assert_eq!(
        call(&ctx, "getImage", json!({"id": 8, "slug": "other"})),
        json!({"result": {"success": true, "count": 1, "items": [
            {"id": 8, "slug": "loaf", "url": "https://cdn.example.com/loaf.jpg", "alt": "A sourdough loaf"}
        ]}})
    );
}

#[test]
fn a_get_without_a_selector_or_with_a_wrong_one_says_what_to_give() {
    let (_, ctx) = site();
    assert_eq!(
        call(&ctx, "getPage", json!({})),
        invalid(".", "say which pages: give `id`, `slug`, or `all: true`")
    );
    assert_eq!(
        call(&ctx, "getNavItem", json!({"all": false})),
        invalid(
            ".",
            "say which navigation items: give `id`, `slug`, or `all: true`"
        )
    );
    assert_eq!(
        call(&ctx, "getPost", json!({"slug": "spelt"})),
        json!({"error": {"kind": "failed", "message": "no post with slug `spelt`"}})
    );
    assert_eq!(
        call(&ctx, "getEntry", json!({"id": 99})),
        json!({"error": {"kind": "failed", "message": "no entry with id 99"}})
    );
    assert_eq!(
        call(&ctx, "getPage", json!({"id": "two"}))["error"]["kind"],
        "invalid_arguments"
    );
}

#[test]
fn creates_and_updates_check_what_a_schema_cannot() {
    let (cms, ctx) = site();
    assert_eq!(
        call(
            &ctx,
            "createPage",
            json!({"title": "Opening hours", "slug": "opening-hours"})
        ),
        json!({"result": {"id": 15, "slug": "opening-hours", "title": "Opening hours", "status": "draft"}})
    );
    assert_eq!(
        call(
            &ctx,
            "createPage",
            json!({"title": "About", "slug": "about"})
        ),
        json!({"error": {"kind": "failed", "message": "a page with slug `about` exists; update it instead"}})
    );
    assert_eq!(
        call(
            &ctx,
            "createPage",
            json!({"title": "X", "slug": "Bad Slug"})
        ),
        invalid(
            "slug",
            "lowercase letters, digits and `-` only, like `opening-hours`"
        )
    );
    assert_eq!(
        call(
            &ctx,
            "createSection",
            json!({"pageId": 15, "templateId": 4, "content": [{"name": "heading", "value": "Hours"}]})
        ),
        invalid("content", "template `hero` needs `image`")
    );
    assert_eq!(
        call(
            &ctx,
            "createSection",
            json!({"pageId": 15, "templateId": 5, "content": [{"name": "markdown", "value": "9-5"}, {"name": "colour", "value": "red"}]})
        ),
        invalid(
            "content.colour",
            "template `text` has no field `colour`; its fields: markdown"
        )
    );
    assert_eq!(
        call(
            &ctx,
            "createSection",
            json!({"pageId": 15, "templateId": 5, "content": [{"name": "markdown", "value": "9-5"}]})
        ),
        json!({"result": {"id": 16, "slug": "opening-hours-text-16", "pageId": 15, "templateId": 5, "content": {"markdown": "9-5"}, "position": 0}})
    );
    assert_eq!(
        call(
            &ctx,
            "createPost",
            json!({"title": "Spelt!", "body": "Soon.", "status": "scheduled"})
        ),
        invalid("publishAt", "a scheduled post needs `publishAt`")
    );
    assert_eq!(
        call(
            &ctx,
            "createPost",
            json!({"title": "Spelt!", "body": "Soon.", "status": "scheduled", "publishAt": "2026-12-01T08:00:00Z"})
        ),
        json!({"result": {"id": 17, "slug": "spelt", "title": "Spelt!", "body": "Soon.", "status": "scheduled", "publishAt": "2026-12-01T08:00:00Z"}})
    );
    assert_eq!(
        call(&ctx, "updatePost", json!({"id": 17, "status": "published"})),
        json!({"result": {"id": 17, "slug": "spelt", "title": "Spelt!", "body": "Soon.", "status": "published"}})
    );
    assert_eq!(
        call(
            &ctx,
            "createNavItem",
            json!({"label": "Opening hours", "href": "/opening-hours"})
        ),
        json!({"result": {"id": 18, "slug": "menu-opening-hours", "label": "Opening hours", "href": "/opening-hours", "order": 2}})
    );
    assert_eq!(
        call(
            &ctx,
            "createEntry",
            json!({"collection": "faq", "fields": [{"name": "question", "value": "Gluten-free?"}]})
        ),
        invalid(
            "fields",
            "give a `name` field; the entry's slug is made from it"
        )
    );
    assert_eq!(
        call(
            &ctx,
            "updateEntry",
            json!({"id": 13, "fields": [{"name": "role", "value": "A"}, {"name": "role", "value": "B"}]})
        ),
        invalid("fields", "`role` is given twice")
    );
    assert_eq!(
        call(
            &ctx,
            "updateEntry",
            json!({"id": 13, "fields": [{"name": "role", "value": "Head baker"}]})
        ),
        json!({"result": {"id": 13, "slug": "ada", "collection": "team", "fields": {"name": "Ada", "role": "Head baker"}}})
    );
    assert_eq!(
        call(
            &ctx,
            "createImage",
            json!({"url": "https://elsewhere.example/x.png", "alt": "X"})
        ),
        invalid(
            "url",
            "not in the media library (`https://cdn.example.com/...`); use importImage for a file on the web"
        )
    );
    assert_eq!(cms.pages().len(), 4);
}

#[test]
fn external_tools_browse_import_search_and_fetch() {
    let (cms, ctx) = site();
    assert_eq!(
        call(
            &ctx,
            "browseImages",
            json!({"query": "croissant", "orientation": "landscape"})
        ),
        json!({"result": {"success": true, "count": 1, "items": [
            {"url": "https://stock.example.com/croissant.jpg", "description": "Croissants on a tray", "orientation": "landscape", "licence": "free"}
        ]}})
    );
    assert_eq!(
        call(
            &ctx,
            "importImage",
            json!({"url": "https://stock.example.com/croissant.jpg", "alt": "Croissants"})
        ),
        json!({"result": {"id": 15, "slug": "croissant", "url": "https://cdn.example.com/croissant.jpg", "alt": "Croissants"}})
    );
    assert_eq!(cms.images().len(), 2);
    assert_eq!(
        call(
            &ctx,
            "importImage",
            json!({"url": "https://evil.example/x.jpg", "alt": "X"})
        ),
        json!({"error": {"kind": "failed", "message": "no image at https://evil.example/x.jpg; browse with browseImages first"}})
    );
    assert_eq!(
        call(&ctx, "searchWeb", json!({"query": "rye starter"})),
        json!({"result": {"success": true, "count": 1, "items": [
            {"url": "https://example.com/rye", "snippet": "Rye bread keeps for a week and needs a s"}
        ]}})
    );
    assert_eq!(
        call(
            &ctx,
            "fetchContent",
            json!({"url": "https://example.com/flour"})
        ),
        json!({"result": {"url": "https://example.com/flour", "text": "Flour prices are up 3% this year."}})
    );
    assert_eq!(
        call(
            &ctx,
            "fetchContent",
            json!({"url": "https://example.com/none"})
        ),
        json!({"error": {"kind": "failed", "message": "https://example.com/none could not be fetched (404)"}})
    );
    assert_eq!(
        call(
            &ctx,
            "httpGet",
            json!({"url": "https://example.com/hooks", "headers": [{"name": "accept", "value": "text/plain"}]})
        ),
        json!({"result": {"status": 200, "body": "ok"}})
    );
}

#[test]
fn the_default_tools_tell_the_user() {
    let (cms, ctx) = site();
    assert_eq!(
        call(&ctx, "acknowledgeRequest", json!({"message": "On it."})),
        json!({"result": {"success": true}})
    );
    assert_eq!(
        call(
            &ctx,
            "finalAnswer",
            json!({"answer": "Published [Rye](/blog/rye)."})
        ),
        json!({"result": {"success": true}})
    );
    assert_eq!(
        cms.said(),
        [
            Said::Acknowledged("On it.".to_owned()),
            Said::Answered("Published [Rye](/blog/rye).".to_owned())
        ]
    );
}
