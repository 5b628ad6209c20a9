//! The CMS tools: `verbEntity` names in camelCase, checked against the crate's
//! vocabulary in `Cargo.toml`. Every `get*` selects by `id`, `slug` or
//! `all: true` and answers `{success, count, items}`; every `delete*` takes a list
//! of ids. Destructive calls (`deletePage`, `deletePost`, `httpPost`) are
//! `tier = confirm` with a `preview = ..` function: called without
//! `confirmed: true` they answer with what they would do, from the same checked
//! arguments, and act only when called again with `confirmed: true`.

use schemars::JsonSchema;
use serde::Serialize;
use toolkit::{Preview, State, ToolError, tool};

use crate::store::{Cms, Page, Post, Sent};

/// What every `get*` tool answers: `items` is always a list, even for one match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Found<T> {
    /// Always `true`: a failed lookup is an error instead.
    pub success: bool,
    /// How many items.
    pub count: usize,
    /// The matches.
    pub items: Vec<T>,
}

impl<T> Found<T> {
    fn new(items: Vec<T>) -> Self {
        Found {
            success: true,
            count: items.len(),
            items,
        }
    }
}

/// The records a `get*` call selects: by `id`, by `slug`, or all of them. At least
/// one selector is required; `id` wins over `slug`, and either over `all`.
fn select<T: Clone>(
    records: &[T],
    what: &str,
    key: impl Fn(&T) -> (u32, &str),
    id: Option<u32>,
    slug: Option<&str>,
    all: bool,
) -> Result<Found<T>, ToolError> {
    let matching: Vec<T> = match (id, slug) {
        (Some(id), _) => records.iter().filter(|r| key(r).0 == id).cloned().collect(),
        (None, Some(slug)) => records
            .iter()
            .filter(|r| key(r).1 == slug)
            .cloned()
            .collect(),
        (None, None) if all => records.to_vec(),
        (None, None) => {
            return Err(ToolError::failed(format!(
                "say which {what}s: give `id`, `slug`, or `all: true`"
            )));
        }
    };
    if matching.is_empty() {
        let by = match (id, slug) {
            (Some(id), _) => format!("id {id}"),
            (None, Some(slug)) => format!("slug `{slug}`"),
            (None, None) => return Ok(Found::new(matching)),
        };
        return Err(ToolError::failed(format!("no {what} with {by}")));
    }
    Ok(Found::new(matching))
}

/// Checks that every id names a record; the first unknown one is the error.
fn require_all<T>(
    records: &[T],
    what: &str,
    id_of: impl Fn(&T) -> u32,
    ids: &[u32],
) -> Result<(), ToolError> {
    if ids.is_empty() {
        return Err(ToolError::failed("`ids` is empty; pass at least one id"));
    }
    match ids
        .iter()
        .find(|&&id| !records.iter().any(|record| id_of(record) == id))
    {
        Some(id) => Err(ToolError::failed(format!(
            "no {what} with id {id}; nothing was deleted"
        ))),
        None => Ok(()),
    }
}

/// Get pages: one by `id` or `slug`, or every page with `all: true`.
#[tool(scope = shared, tier = auto, always, group = "pages", name = "getPage",
       aliases = ["cms_listPages", "cms_getPage"])]
pub fn get_page(
    #[ctx] cms: State<Cms>,
    /// The page's id.
    id: Option<u32>,
    /// The page's slug, like `about`.
    slug: Option<String>,
    /// Every page.
    #[tool(default = false)]
    all: bool,
) -> Result<Found<Page>, ToolError> {
    let data = cms.lock();
    select(
        &data.pages,
        "page",
        |p| (p.id, &p.slug),
        id,
        slug.as_deref(),
        all,
    )
}

/// Create a page.
#[tool(scope = shared, tier = auto, group = "pages", name = "createPage")]
pub fn create_page(
    #[ctx] cms: State<Cms>,
    /// Where it lives: lowercase words joined by `-`.
    slug: String,
    /// Its title.
    title: String,
    /// Its content, in Markdown.
    body: String,
) -> Result<Page, ToolError> {
    let mut data = cms.lock();
    if data.pages.iter().any(|page| page.slug == slug) {
        return Err(ToolError::failed(format!(
            "a page with slug `{slug}` exists; update it instead"
        )));
    }
    let page = Page {
        id: data.next_id(),
        slug,
        title,
        body,
    };
    data.pages.push(page.clone());
    Ok(page)
}

/// Change a page's title or content; fields left out stay as they are.
#[tool(scope = shared, tier = auto, group = "pages", name = "updatePage")]
pub fn update_page(
    #[ctx] cms: State<Cms>,
    /// The page's id.
    id: u32,
    /// The new title.
    title: Option<String>,
    /// The new content, in Markdown.
    body: Option<String>,
) -> Result<Page, ToolError> {
    let mut data = cms.lock();
    let page = data
        .pages
        .iter_mut()
        .find(|page| page.id == id)
        .ok_or_else(|| ToolError::failed(format!("no page with id {id}")))?;
    if let Some(title) = title {
        page.title = title;
    }
    if let Some(body) = body {
        page.body = body;
    }
    Ok(page.clone())
}

/// Delete pages by id, for good.
#[tool(scope = shared, tier = confirm, group = "pages", name = "deletePage",
       aliases = ["cms_deletePages"], preview = preview_delete_page)]
pub fn delete_page(
    #[ctx] cms: State<Cms>,
    /// The ids of the pages to delete.
    ids: Vec<u32>,
) -> Result<Found<u32>, ToolError> {
    let mut data = cms.lock();
    require_all(&data.pages, "page", |page| page.id, &ids)?;
    data.pages.retain(|page| !ids.contains(&page.id));
    Ok(Found::new(ids))
}

/// Get blog posts: one by `id` or `slug`, or every post with `all: true`.
#[tool(scope = shared, tier = auto, always, group = "posts", name = "getPost",
       aliases = ["cms_listPosts"])]
pub fn get_post(
    #[ctx] cms: State<Cms>,
    /// The post's id.
    id: Option<u32>,
    /// The post's slug, like `sourdough`.
    slug: Option<String>,
    /// Every post.
    #[tool(default = false)]
    all: bool,
) -> Result<Found<Post>, ToolError> {
    let data = cms.lock();
    select(
        &data.posts,
        "post",
        |p| (p.id, &p.slug),
        id,
        slug.as_deref(),
        all,
    )
}

/// Create a blog post, unpublished until `updatePost` publishes it.
#[tool(scope = shared, tier = auto, group = "posts", name = "createPost")]
pub fn create_post(
    #[ctx] cms: State<Cms>,
    /// Where it lives: lowercase words joined by `-`.
    slug: String,
    /// Its title.
    title: String,
    /// Its content, in Markdown.
    body: String,
) -> Result<Post, ToolError> {
    let mut data = cms.lock();
    if data.posts.iter().any(|post| post.slug == slug) {
        return Err(ToolError::failed(format!(
            "a post with slug `{slug}` exists; update it instead"
        )));
    }
    let post = Post {
        id: data.next_id(),
        slug,
        title,
        body,
        published: false,
    };
    data.posts.push(post.clone());
    Ok(post)
}

/// Change a post's title, content or visibility; fields left out stay as they are.
#[tool(scope = shared, tier = auto, group = "posts", name = "updatePost",
       aliases = ["cms_publishPost"])]
pub fn update_post(
    #[ctx] cms: State<Cms>,
    /// The post's id.
    id: u32,
    /// The new title.
    title: Option<String>,
    /// The new content, in Markdown.
    body: Option<String>,
    /// Whether readers can see it.
    published: Option<bool>,
) -> Result<Post, ToolError> {
    let mut data = cms.lock();
    let post = data
        .posts
        .iter_mut()
        .find(|post| post.id == id)
        .ok_or_else(|| ToolError::failed(format!("no post with id {id}")))?;
    if let Some(title) = title {
        post.title = title;
    }
    if let Some(body) = body {
        post.body = body;
    }
    if let Some(published) = published {
        post.published = published;
    }
    Ok(post.clone())
}

/// Delete blog posts by id, for good.
#[tool(scope = shared, tier = confirm, group = "posts", name = "deletePost",
       preview = preview_delete_post)]
pub fn delete_post(
    #[ctx] cms: State<Cms>,
    /// The ids of the posts to delete.
    ids: Vec<u32>,
) -> Result<Found<u32>, ToolError> {
    let mut data = cms.lock();
    require_all(&data.posts, "post", |post| post.id, &ids)?;
    data.posts.retain(|post| !ids.contains(&post.id));
    Ok(Found::new(ids))
}

/// The answer to an HTTP request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The response body, as text.
    pub body: String,
}

/// Fetch a URL with GET and return its body as text.
#[tool(scope = shared, tier = auto, group = "external", name = "httpGet")]
pub fn http_get(
    #[ctx] cms: State<Cms>,
    /// The URL, with `https://`.
    url: String,
) -> HttpResponse {
    match cms.lock().web.get(url.as_str()) {
        Some(body) => HttpResponse {
            status: 200,
            body: (*body).to_owned(),
        },
        None => HttpResponse {
            status: 404,
            body: String::new(),
        },
    }
}

/// Send `body` to a URL with POST. It leaves the site: webhooks, forms, APIs.
#[tool(scope = shared, tier = confirm, group = "external", name = "httpPost",
       preview = preview_http_post)]
pub fn http_post(
    #[ctx] cms: State<Cms>,
    /// The URL, with `https://`.
    url: String,
    /// The request body, usually JSON text.
    body: String,
) -> HttpResponse {
    let mut data = cms.lock();
    let known = data.web.contains_key(url.as_str());
    data.sent.push(Sent { url, body });
    HttpResponse {
        status: if known { 200 } else { 404 },
        body: if known {
            "ok".to_owned()
        } else {
            String::new()
        },
    }
}

/// A page or post as a preview lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct Affected<'a> {
    id: u32,
    slug: &'a str,
    title: &'a str,
}

/// `1 page`, `2 pages`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// What `deletePage` would delete: the pages, or the first unknown id.
// A preview function takes the tool's parameters by value, like the tool.
#[allow(clippy::needless_pass_by_value)]
pub fn preview_delete_page(cms: State<Cms>, ids: Vec<u32>) -> Result<Preview, ToolError> {
    let data = cms.lock();
    require_all(&data.pages, "page", |page| page.id, &ids)?;
    let pages = data.pages.iter().filter(|page| ids.contains(&page.id));
    Ok(Preview::new(format!(
        "This deletes {} for good; visitors will get a 404. Show the user, and only if they agree call `deletePage` again with `confirmed: true`.",
        count(pages.clone().count(), "page")
    ))
    .items(pages.map(|page| Affected {
        id: page.id,
        slug: &page.slug,
        title: &page.title,
    })))
}

/// What `deletePost` would delete: the posts, or the first unknown id.
#[allow(clippy::needless_pass_by_value)]
pub fn preview_delete_post(cms: State<Cms>, ids: Vec<u32>) -> Result<Preview, ToolError> {
    let data = cms.lock();
    require_all(&data.posts, "post", |post| post.id, &ids)?;
    let posts = data.posts.iter().filter(|post| ids.contains(&post.id));
    let published = posts.clone().filter(|post| post.published).count();
    Ok(Preview::new(format!(
        "This deletes {} for good ({published} published). Show the user, and only if they agree call `deletePost` again with `confirmed: true`.",
        count(posts.clone().count(), "post")
    ))
    .items(posts.map(|post| Affected {
        id: post.id,
        slug: &post.slug,
        title: &post.title,
    })))
}

/// What `httpPost` would send, and where.
#[allow(clippy::needless_pass_by_value)]
#[must_use]
pub fn preview_http_post(_cms: State<Cms>, url: String, body: String) -> Preview {
    Preview::new(format!(
        "This sends {} to {url}, outside the site; it cannot be taken back. Show the user, and only if they agree call `httpPost` again with `confirmed: true`.",
        count(body.len(), "byte")
    ))
    .item(Sent { url, body })
}
