//! The CMS's 34 tools: `verbEntity` names in camelCase, checked against the crate's
//! vocabulary in `Cargo.toml` (get, create, update, delete, browse, import, search,
//! fetch, http, acknowledge, final).
//!
//! - Every `get*` selects by `id`, `slug` or `all: true` (at least one, else a clear
//!   error) and answers `{success, count, items}`, `items` always a list.
//! - Every `delete*` takes a list of ids and, like `httpPost`, is `tier = confirm`:
//!   called without `confirmed: true` it answers with a preview of what it would
//!   do and acts only when called again with `confirmed: true`.
//! - Every tool carries its guidance: the one gotcha a schema can't say, which the
//!   system prompt holds only while the tool is active.
//! - The old `cms_*` names are aliases.
//! - The three default tools (`searchTools`, `acknowledgeRequest`, `finalAnswer`)
//!   are `always`; every other tool is routed.

use std::collections::{BTreeMap, HashSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{Preview, State, Tool, ToolError, call::Progress, tool};

use crate::store::{
    Cms, Entry, Image, NavItem, Page, PageStatus, Post, PostStatus, Record, Said, Section,
    SectionTemplate, Sent, StockPhoto,
};

/// The built-in search tool under the CMS's naming: the model finds routed tools
/// with it (`toolkit::route::ToolSearch` in the context).
pub static SEARCH_TOOLS: Tool = toolkit::route::search_tool("searchTools");

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

/// One named value: a section's content field, an entry's field, a header.
/// Free-form data arrives as a list of these rather than a JSON object with any
/// keys, which strict modes and Gemini's `parameters` cannot express.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// Its value, as text.
    pub value: String,
}

/// The fields as a map; a name given twice is an error at `path`.
fn to_map(path: &str, fields: Vec<Field>) -> Result<BTreeMap<String, String>, ToolError> {
    let mut map = BTreeMap::new();
    for field in fields {
        if map.contains_key(&field.name) {
            return Err(ToolError::invalid_arguments(
                path,
                format!("`{}` is given twice", field.name),
            ));
        }
        map.insert(field.name, field.value);
    }
    Ok(map)
}

/// The records a `get*` call selects: by `id`, by `slug`, or all of them. At least
/// one selector is required; `id` wins over `slug`, and either over `all`.
fn select<T: Record>(
    records: &[T],
    id: Option<u32>,
    slug: Option<&str>,
    all: bool,
) -> Result<Found<T>, ToolError> {
    let matching: Vec<T> = match (id, slug) {
        (Some(id), _) => records.iter().filter(|r| r.id() == id).cloned().collect(),
        (None, Some(slug)) => records
            .iter()
            .filter(|r| r.slug() == slug)
            .cloned()
            .collect(),
        (None, None) if all => return Ok(Found::new(records.to_vec())),
        (None, None) => {
            return Err(ToolError::invalid_arguments(
                ".",
                format!("say which {}s: give `id`, `slug`, or `all: true`", T::WHAT),
            ));
        }
    };
    if matching.is_empty() {
        let by = match (id, slug) {
            (Some(id), _) => format!("id {id}"),
            (None, Some(slug)) => format!("slug `{slug}`"),
            (None, None) => String::new(),
        };
        return Err(ToolError::failed(format!("no {} with {by}", T::WHAT)));
    }
    Ok(Found::new(matching))
}

/// Checks that every id names a record; the first unknown one is the error.
/// Returns the ids as a set, so the caller's pass over the records stays linear
/// (the store is locked: a model sending 100,000 ids must not make it quadratic).
fn require_all<T: Record>(records: &[T], ids: &[u32]) -> Result<HashSet<u32>, ToolError> {
    if ids.is_empty() {
        return Err(ToolError::invalid_arguments(
            "ids",
            "empty; pass at least one id",
        ));
    }
    let known: HashSet<u32> = records.iter().map(Record::id).collect();
    match ids.iter().find(|id| !known.contains(id)) {
        Some(id) => Err(ToolError::failed(format!(
            "no {} with id {id}; nothing was deleted",
            T::WHAT
        ))),
        None => Ok(ids.iter().copied().collect()),
    }
}

/// Deletes every record in `ids`, or none if one is unknown.
fn delete_all<T: Record>(records: &mut Vec<T>, ids: Vec<u32>) -> Result<Found<u32>, ToolError> {
    let doomed = require_all(records, &ids)?;
    records.retain(|record| !doomed.contains(&record.id()));
    Ok(Found::new(ids))
}

/// The record with `id`, to change.
fn find_mut<T: Record>(records: &mut [T], id: u32) -> Result<&mut T, ToolError> {
    records
        .iter_mut()
        .find(|record| record.id() == id)
        .ok_or_else(|| ToolError::failed(format!("no {} with id {id}", T::WHAT)))
}

/// A slug must be new among `records`.
fn require_new_slug<T: Record>(records: &[T], slug: &str) -> Result<(), ToolError> {
    if slug.is_empty()
        || !slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(ToolError::invalid_arguments(
            "slug",
            "lowercase letters, digits and `-` only, like `opening-hours`",
        ));
    }
    if records.iter().any(|record| record.slug() == slug) {
        return Err(ToolError::failed(format!(
            "a {} with slug `{slug}` exists; update it instead",
            T::WHAT
        )));
    }
    Ok(())
}

/// `opening-hours` from `Opening hours!`.
fn slugify(text: &str) -> String {
    let mut slug = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_owned()
}

/// `1 page`, `2 pages`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// A record as a delete preview lists it.
#[derive(Serialize)]
struct Affected<'a> {
    id: u32,
    slug: &'a str,
}

/// The preview of a `delete*` call: what it would delete, or the first unknown id.
fn preview_delete<T: Record>(
    records: &[T],
    ids: &[u32],
    tool: &str,
    consequence: &str,
) -> Result<Preview, ToolError> {
    let doomed = require_all(records, ids)?;
    let affected: Vec<Affected<'_>> = records
        .iter()
        .filter(|record| doomed.contains(&record.id()))
        .map(|record| Affected {
            id: record.id(),
            slug: record.slug(),
        })
        .collect();
    Ok(Preview::new(format!(
        "This deletes {} for good{consequence}. Show the user, and only if they agree call `{tool}` again with `confirmed: true`.",
        count(affected.len(), T::WHAT)
    ))
    .items(affected))
}

// ---------------------------------------------------------------- pages

/// Get pages: one by `id` or `slug`, or all of them with `all: true`. Returns {success, count, items}.
#[tool(scope = shared, tier = auto, group = "pages", name = "getPage",
       aliases = ["cms_listPages", "cms_getPage"],
       guidance = "Get a page by slug when the user names its URL: `/about` is slug `about`.")]
pub fn get_page(
    #[ctx] cms: State<Cms>,
    /// Select one by id.
    id: Option<u32>,
    /// Select one by its URL slug.
    slug: Option<String>,
    /// Select every one.
    #[tool(default = false)]
    all: bool,
) -> Result<Found<Page>, ToolError> {
    select(&cms.lock().pages, id, slug.as_deref(), all)
}

/// Create a page of the site; returns it with its id.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "pages", name = "createPage",
       aliases = ["cms_createPage"],
       guidance = "New pages start as drafts; add sections with createSection, then publish with updatePage.")]
pub fn create_page(
    #[ctx] cms: State<Cms>,
    /// The page title.
    title: String,
    /// The URL path segment: lowercase words joined by `-`.
    slug: String,
    /// draft or published.
    #[tool(default = PageStatus::Draft)]
    status: PageStatus,
) -> Result<Page, ToolError> {
    let mut data = cms.lock();
    require_new_slug(&data.pages, &slug)?;
    let page = Page {
        id: data.next_id(),
        slug,
        title,
        status,
    };
    data.pages.push(page.clone());
    Ok(page)
}

/// Update a page: only the fields given change.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "pages", name = "updatePage",
       guidance = "To publish, set status to published; changing the slug breaks links to the old URL.")]
pub fn update_page(
    #[ctx] cms: State<Cms>,
    /// Which one to change.
    id: u32,
    /// The page title.
    title: Option<String>,
    /// The URL path segment.
    slug: Option<String>,
    /// draft or published.
    status: Option<PageStatus>,
) -> Result<Page, ToolError> {
    let mut data = cms.lock();
    if let Some(slug) = &slug {
        let others: Vec<Page> = data.pages.iter().filter(|p| p.id != id).cloned().collect();
        require_new_slug(&others, slug)?;
    }
    let page = find_mut(&mut data.pages, id)?;
    if let Some(title) = title {
        page.title = title;
    }
    if let Some(slug) = slug {
        page.slug = slug;
    }
    if let Some(status) = status {
        page.status = status;
    }
    Ok(page.clone())
}

/// Delete pages by id. Returns a preview first; call again with `confirmed: true` to act.
#[tool(scope = shared, tier = confirm, quota = "10/min", group = "pages", name = "deletePage",
       aliases = ["cms_deletePages", "cms_removePage"], preview = preview_delete_page,
       guidance = "Deleting a page also deletes its sections; visitors get a 404.")]
pub fn delete_page(
    #[ctx] cms: State<Cms>,
    /// The ids of the pages to delete.
    ids: Vec<u32>,
) -> Result<Found<u32>, ToolError> {
    let mut data = cms.lock();
    let deleted = delete_all(&mut data.pages, ids)?;
    let pages: HashSet<u32> = deleted.items.iter().copied().collect();
    data.sections
        .retain(|section| !pages.contains(&section.page_id));
    Ok(deleted)
}

/// What `deletePage` would delete.
// A preview function takes the tool's parameters by value, like the tool.
#[allow(clippy::needless_pass_by_value)]
pub fn preview_delete_page(cms: State<Cms>, ids: Vec<u32>) -> Result<Preview, ToolError> {
    let data = cms.lock();
    let pages: HashSet<u32> = ids.iter().copied().collect();
    let sections = data
        .sections
        .iter()
        .filter(|section| pages.contains(&section.page_id))
        .count();
    preview_delete(
        &data.pages,
        &ids,
        "deletePage",
        &format!(
            " with their {}; visitors will get a 404",
            count(sections, "section")
        ),
    )
}

// ---------------------------------------------------------------- sections

/// Get section templates: the layouts a section can be built from (hero, gallery, text, pricing table).
#[tool(scope = shared, tier = auto, group = "sections", name = "getSectionTemplate",
       aliases = ["cms_listTemplates"],
       guidance = "Read the template before creating a section from it: its fields are the section's content keys.")]
pub fn get_section_template(
    #[ctx] cms: State<Cms>,
    /// Select one by id.
    id: Option<u32>,
    /// Select one by its name, like `hero`.
    slug: Option<String>,
    /// Select every one.
    #[tool(default = false)]
    all: bool,
) -> Result<Found<SectionTemplate>, ToolError> {
    select(&cms.lock().templates, id, slug.as_deref(), all)
}

/// Get sections: one by `id` or `slug`, or all of them with `all: true`. Returns {success, count, items}.
///
/// Section: a block on a page built from a template.
#[tool(scope = shared, tier = auto, group = "sections", name = "getSection",
       guidance = "Sections are ordered by position within their page, 0 at the top.")]
pub fn get_section(
    #[ctx] cms: State<Cms>,
    /// Select one by id.
    id: Option<u32>,
    /// Select one by its slug, like `home-hero`.
    slug: Option<String>,
    /// Select every one.
    #[tool(default = false)]
    all: bool,
) -> Result<Found<Section>, ToolError> {
    select(&cms.lock().sections, id, slug.as_deref(), all)
}

/// Checks a section's page, template and content together.
fn check_section(
    data: &crate::store::Data,
    page_id: u32,
    template_id: u32,
    content: &BTreeMap<String, String>,
) -> Result<(String, String), ToolError> {
    let page = data
        .pages
        .iter()
        .find(|page| page.id == page_id)
        .ok_or_else(|| ToolError::failed(format!("no page with id {page_id}")))?;
    let template = data
        .templates
        .iter()
        .find(|template| template.id == template_id)
        .ok_or_else(|| ToolError::failed(format!("no section template with id {template_id}")))?;
    if let Some(key) = content.keys().find(|key| !template.fields.contains(key)) {
        return Err(ToolError::invalid_arguments(
            format!("content.{key}"),
            format!(
                "template `{}` has no field `{key}`; its fields: {}",
                template.slug,
                template.fields.join(", ")
            ),
        ));
    }
    if let Some(missing) = template
        .fields
        .iter()
        .find(|field| !content.contains_key(*field))
    {
        return Err(ToolError::invalid_arguments(
            "content",
            format!("template `{}` needs `{missing}`", template.slug),
        ));
    }
    Ok((page.slug.clone(), template.slug.clone()))
}

/// Create a section on a page from a section template.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "sections", name = "createSection",
       guidance = "Fill every field of the template, no other; position 0 puts it at the top.")]
pub fn create_section(
    #[ctx] cms: State<Cms>,
    /// The page the section belongs to.
    #[serde(rename = "pageId")]
    page_id: u32,
    /// The template it follows.
    #[serde(rename = "templateId")]
    template_id: u32,
    /// The fields the template asks for.
    content: Vec<Field>,
    /// Where on the page, from the top; after the last section if left out.
    position: Option<u32>,
) -> Result<Section, ToolError> {
    let content = to_map("content", content)?;
    let mut data = cms.lock();
    let (page, template) = check_section(&data, page_id, template_id, &content)?;
    let position = position.unwrap_or_else(|| {
        let on_page = data
            .sections
            .iter()
            .filter(|s| s.page_id == page_id)
            .count();
        u32::try_from(on_page).unwrap_or(u32::MAX)
    });
    let id = data.next_id();
    let section = Section {
        id,
        slug: format!("{page}-{template}-{id}"),
        page_id,
        template_id,
        content,
        position,
    };
    data.sections.push(section.clone());
    Ok(section)
}

/// Update a section: only the fields given change.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "sections", name = "updateSection",
       guidance = "Content replaces the whole content: send every field of the template.")]
pub fn update_section(
    #[ctx] cms: State<Cms>,
    /// Which one to change.
    id: u32,
    /// The page the section belongs to.
    #[serde(rename = "pageId")]
    page_id: Option<u32>,
    /// The template it follows.
    #[serde(rename = "templateId")]
    template_id: Option<u32>,
    /// The fields the template asks for.
    content: Option<Vec<Field>>,
    /// Where on the page, from the top.
    position: Option<u32>,
) -> Result<Section, ToolError> {
    let content = content
        .map(|content| to_map("content", content))
        .transpose()?;
    let mut data = cms.lock();
    let current = find_mut(&mut data.sections, id)?.clone();
    let page_id = page_id.unwrap_or(current.page_id);
    let template_id = template_id.unwrap_or(current.template_id);
    let content = content.unwrap_or(current.content);
    check_section(&data, page_id, template_id, &content)?;
    let section = find_mut(&mut data.sections, id)?;
    section.page_id = page_id;
    section.template_id = template_id;
    section.content = content;
    if let Some(position) = position {
        section.position = position;
    }
    Ok(section.clone())
}

/// Delete sections by id. Returns a preview first; call again with `confirmed: true` to act.
#[tool(scope = shared, tier = confirm, quota = "10/min", group = "sections", name = "deleteSection",
       preview = preview_delete_section,
       guidance = "Only the sections named go; their page stays.")]
pub fn delete_section(
    #[ctx] cms: State<Cms>,
    /// The ids of the sections to delete.
    ids: Vec<u32>,
) -> Result<Found<u32>, ToolError> {
    delete_all(&mut cms.lock().sections, ids)
}

/// What `deleteSection` would delete.
#[allow(clippy::needless_pass_by_value)]
pub fn preview_delete_section(cms: State<Cms>, ids: Vec<u32>) -> Result<Preview, ToolError> {
    preview_delete(&cms.lock().sections, &ids, "deleteSection", "")
}

// ---------------------------------------------------------------- media

/// Get images: one by `id` or `slug`, or all of them with `all: true`. Returns {success, count, items}.
///
/// Image in the media library.
#[tool(scope = shared, tier = auto, group = "media", name = "getImage",
       aliases = ["cms_listMedia"],
       guidance = "An image's slug is its file name without the extension.")]
pub fn get_image(
    #[ctx] cms: State<Cms>,
    /// Select one by id.
    id: Option<u32>,
    /// Select one by its file name, like `loaf`.
    slug: Option<String>,
    /// Select every one.
    #[tool(default = false)]
    all: bool,
) -> Result<Found<Image>, ToolError> {
    select(&cms.lock().images, id, slug.as_deref(), all)
}

/// The file name of a URL without its extension: `loaf` for `.../loaf.jpg`.
fn file_stem(url: &str) -> String {
    let name = url.rsplit('/').next().unwrap_or(url);
    slugify(name.split('.').next().unwrap_or(name))
}

/// Create an image record for a file already uploaded to the media library.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "media", name = "createImage",
       aliases = ["cms_uploadImage"],
       guidance = "Use importImage for a file on the web; createImage only records an uploaded file.")]
pub fn create_image(
    #[ctx] cms: State<Cms>,
    /// Where the file is, on `https://cdn.example.com/`.
    url: String,
    /// Alternative text for screen readers.
    alt: String,
    /// Text shown under it.
    caption: Option<String>,
) -> Result<Image, ToolError> {
    if !url.starts_with("https://cdn.example.com/") {
        return Err(ToolError::invalid_arguments(
            "url",
            "not in the media library (`https://cdn.example.com/...`); use importImage for a file on the web",
        ));
    }
    let mut data = cms.lock();
    let slug = file_stem(&url);
    require_new_slug(&data.images, &slug)?;
    let image = Image {
        id: data.next_id(),
        slug,
        url,
        alt,
        caption,
    };
    data.images.push(image.clone());
    Ok(image)
}

/// Update an image's record: only the fields given change.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "media", name = "updateImage",
       guidance = "Alt text describes the picture for screen readers; the caption is for everyone.")]
pub fn update_image(
    #[ctx] cms: State<Cms>,
    /// Which one to change.
    id: u32,
    /// Alternative text for screen readers.
    alt: Option<String>,
    /// Text shown under it.
    caption: Option<String>,
) -> Result<Image, ToolError> {
    let mut data = cms.lock();
    let image = find_mut(&mut data.images, id)?;
    if let Some(alt) = alt {
        image.alt = alt;
    }
    if let Some(caption) = caption {
        image.caption = Some(caption);
    }
    Ok(image.clone())
}

/// Delete images by id. Returns a preview first; call again with `confirmed: true` to act.
#[tool(scope = shared, tier = confirm, quota = "10/min", group = "media", name = "deleteImage",
       preview = preview_delete_image,
       guidance = "Sections showing a deleted image show nothing in its place.")]
pub fn delete_image(
    #[ctx] cms: State<Cms>,
    /// The ids of the images to delete.
    ids: Vec<u32>,
) -> Result<Found<u32>, ToolError> {
    delete_all(&mut cms.lock().images, ids)
}

/// What `deleteImage` would delete.
#[allow(clippy::needless_pass_by_value)]
pub fn preview_delete_image(cms: State<Cms>, ids: Vec<u32>) -> Result<Preview, ToolError> {
    preview_delete(&cms.lock().images, &ids, "deleteImage", "")
}

// ---------------------------------------------------------------- blog

/// Get posts: one by `id` or `slug`, or all of them with `all: true`. Returns {success, count, items}.
///
/// Blog post.
#[tool(scope = shared, tier = auto, group = "blog", name = "getPost",
       aliases = ["cms_listPosts"],
       guidance = "Drafts and scheduled posts are included; check status before calling one live.")]
pub fn get_post(
    #[ctx] cms: State<Cms>,
    /// Select one by id.
    id: Option<u32>,
    /// Select one by its URL slug.
    slug: Option<String>,
    /// Select every one.
    #[tool(default = false)]
    all: bool,
) -> Result<Found<Post>, ToolError> {
    select(&cms.lock().posts, id, slug.as_deref(), all)
}

/// A scheduled post needs a time; no other post takes one.
fn check_schedule(status: PostStatus, publish_at: Option<&String>) -> Result<(), ToolError> {
    match (status, publish_at) {
        (PostStatus::Scheduled, None) => Err(ToolError::invalid_arguments(
            "publishAt",
            "a scheduled post needs `publishAt`",
        )),
        (PostStatus::Draft | PostStatus::Published, Some(_)) => Err(ToolError::invalid_arguments(
            "publishAt",
            "only a scheduled post takes `publishAt`",
        )),
        _ => Ok(()),
    }
}

/// Create a blog post as a draft, scheduled or published.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "blog", name = "createPost",
       aliases = ["cms_createPost"],
       guidance = "Start as a draft unless the user says to publish; scheduled needs publishAt.")]
pub fn create_post(
    #[ctx] cms: State<Cms>,
    /// The headline.
    title: String,
    /// Markdown text.
    body: String,
    /// draft, scheduled or published.
    #[tool(default = PostStatus::Draft)]
    status: PostStatus,
    /// When a scheduled post goes live (RFC 3339).
    #[serde(rename = "publishAt")]
    publish_at: Option<String>,
) -> Result<Post, ToolError> {
    check_schedule(status, publish_at.as_ref())?;
    let mut data = cms.lock();
    let slug = slugify(&title);
    require_new_slug(&data.posts, &slug)?;
    let post = Post {
        id: data.next_id(),
        slug,
        title,
        body,
        status,
        publish_at,
    };
    data.posts.push(post.clone());
    Ok(post)
}

/// Update a post: only the fields given change.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "blog", name = "updatePost",
       aliases = ["cms_publishPost"],
       guidance = "Publishing is an update: set status to published.")]
pub fn update_post(
    #[ctx] cms: State<Cms>,
    /// Which one to change.
    id: u32,
    /// The headline.
    title: Option<String>,
    /// Markdown text.
    body: Option<String>,
    /// draft, scheduled or published.
    status: Option<PostStatus>,
    /// When a scheduled post goes live (RFC 3339).
    #[serde(rename = "publishAt")]
    publish_at: Option<String>,
) -> Result<Post, ToolError> {
    let mut data = cms.lock();
    let post = find_mut(&mut data.posts, id)?;
    let new_status = status.unwrap_or(post.status);
    let new_publish_at = match (status, publish_at) {
        (_, Some(at)) => Some(at),
        (Some(PostStatus::Draft | PostStatus::Published), None) => None,
        (_, None) => post.publish_at.clone(),
    };
    check_schedule(new_status, new_publish_at.as_ref())?;
    if let Some(title) = title {
        post.title = title;
    }
    if let Some(body) = body {
        post.body = body;
    }
    post.status = new_status;
    post.publish_at = new_publish_at;
    Ok(post.clone())
}

/// Delete posts by id. Returns a preview first; call again with `confirmed: true` to act.
#[tool(scope = shared, tier = confirm, quota = "10/min", group = "blog", name = "deletePost",
       preview = preview_delete_post,
       guidance = "To take a post offline without losing it, set it back to draft instead.")]
pub fn delete_post(
    #[ctx] cms: State<Cms>,
    /// The ids of the posts to delete.
    ids: Vec<u32>,
) -> Result<Found<u32>, ToolError> {
    delete_all(&mut cms.lock().posts, ids)
}

/// What `deletePost` would delete, counting the published posts among them.
#[allow(clippy::needless_pass_by_value)]
pub fn preview_delete_post(cms: State<Cms>, ids: Vec<u32>) -> Result<Preview, ToolError> {
    let data = cms.lock();
    let chosen: HashSet<u32> = ids.iter().copied().collect();
    let published = data
        .posts
        .iter()
        .filter(|post| chosen.contains(&post.id) && post.status == PostStatus::Published)
        .count();
    preview_delete(
        &data.posts,
        &ids,
        "deletePost",
        &format!(" ({published} published)"),
    )
}

// ---------------------------------------------------------------- navigation

/// Get navigation items: one by `id` or `slug`, or all of them with `all: true`. Returns {success, count, items}.
///
/// Navigation item: a link in the site menu.
#[tool(scope = shared, tier = auto, group = "navigation", name = "getNavItem",
       aliases = ["cms_listNav"],
       guidance = "Items with a parentId are submenu entries of that item.")]
pub fn get_nav_item(
    #[ctx] cms: State<Cms>,
    /// Select one by id.
    id: Option<u32>,
    /// Select one by its key, like `menu-about`.
    slug: Option<String>,
    /// Select every one.
    #[tool(default = false)]
    all: bool,
) -> Result<Found<NavItem>, ToolError> {
    select(&cms.lock().nav, id, slug.as_deref(), all)
}

/// Create a navigation item in the site menu.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "navigation", name = "createNavItem",
       guidance = "Link pages by path (`/about`), other sites by full URL.")]
pub fn create_nav_item(
    #[ctx] cms: State<Cms>,
    /// The text of the link.
    label: String,
    /// Where it points.
    href: String,
    /// The item it nests under.
    #[serde(rename = "parentId")]
    parent_id: Option<u32>,
    /// Position among its siblings; last if left out.
    order: Option<u32>,
) -> Result<NavItem, ToolError> {
    let mut data = cms.lock();
    if let Some(parent) = parent_id
        && !data.nav.iter().any(|item| item.id == parent)
    {
        return Err(ToolError::failed(format!(
            "no navigation item with id {parent} to nest under"
        )));
    }
    let slug = format!("menu-{}", slugify(&label));
    require_new_slug(&data.nav, &slug)?;
    let siblings = data
        .nav
        .iter()
        .filter(|item| item.parent_id == parent_id)
        .count();
    let item = NavItem {
        id: data.next_id(),
        slug,
        label,
        href,
        parent_id,
        order: order.unwrap_or_else(|| u32::try_from(siblings).unwrap_or(u32::MAX)),
    };
    data.nav.push(item.clone());
    Ok(item)
}

/// Update a navigation item: only the fields given change.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "navigation", name = "updateNavItem",
       guidance = "Reorder by setting order on each sibling that moves.")]
pub fn update_nav_item(
    #[ctx] cms: State<Cms>,
    /// Which one to change.
    id: u32,
    /// The text of the link.
    label: Option<String>,
    /// Where it points.
    href: Option<String>,
    /// Position among its siblings.
    order: Option<u32>,
) -> Result<NavItem, ToolError> {
    let mut data = cms.lock();
    let item = find_mut(&mut data.nav, id)?;
    if let Some(label) = label {
        item.label = label;
    }
    if let Some(href) = href {
        item.href = href;
    }
    if let Some(order) = order {
        item.order = order;
    }
    Ok(item.clone())
}

/// Delete navigation items by id. Returns a preview first; call again with `confirmed: true` to act.
#[tool(scope = shared, tier = confirm, quota = "10/min", group = "navigation", name = "deleteNavItem",
       preview = preview_delete_nav_item,
       guidance = "Deleting an item deletes its submenu items too; the pages stay.")]
pub fn delete_nav_item(
    #[ctx] cms: State<Cms>,
    /// The ids of the navigation items to delete.
    ids: Vec<u32>,
) -> Result<Found<u32>, ToolError> {
    let mut data = cms.lock();
    let deleted = delete_all(&mut data.nav, ids)?;
    let parents: HashSet<u32> = deleted.items.iter().copied().collect();
    data.nav.retain(|item| {
        item.parent_id
            .is_none_or(|parent| !parents.contains(&parent))
    });
    Ok(deleted)
}

/// What `deleteNavItem` would delete.
#[allow(clippy::needless_pass_by_value)]
pub fn preview_delete_nav_item(cms: State<Cms>, ids: Vec<u32>) -> Result<Preview, ToolError> {
    preview_delete(&cms.lock().nav, &ids, "deleteNavItem", "")
}

// ---------------------------------------------------------------- collections

/// Get collection entries: one by `id` or `slug`, or all of them with `all: true`. Returns {success, count, items}.
///
/// Entry of a custom collection (team members, testimonials, FAQs, products).
#[tool(scope = shared, tier = auto, group = "collections", name = "getEntry",
       aliases = ["cms_listEntries"],
       guidance = "Entries of every collection come back together; read `collection` on each.")]
pub fn get_entry(
    #[ctx] cms: State<Cms>,
    /// Select one by id.
    id: Option<u32>,
    /// Select one by its key, like `ada`.
    slug: Option<String>,
    /// Select every one.
    #[tool(default = false)]
    all: bool,
) -> Result<Found<Entry>, ToolError> {
    select(&cms.lock().entries, id, slug.as_deref(), all)
}

/// Create an entry in a custom collection (team members, testimonials, FAQs, products).
#[tool(scope = shared, tier = auto, quota = "30/min", group = "collections", name = "createEntry",
       guidance = "Give a `name` field: the entry's slug is made from it.")]
pub fn create_entry(
    #[ctx] cms: State<Cms>,
    /// Which collection, like `team` or `faq`.
    collection: String,
    /// The entry's field values.
    fields: Vec<Field>,
) -> Result<Entry, ToolError> {
    let fields = to_map("fields", fields)?;
    let Some(name) = fields.get("name") else {
        return Err(ToolError::invalid_arguments(
            "fields",
            "give a `name` field; the entry's slug is made from it",
        ));
    };
    let slug = slugify(name);
    let mut data = cms.lock();
    require_new_slug(&data.entries, &slug)?;
    let entry = Entry {
        id: data.next_id(),
        slug,
        collection,
        fields,
    };
    data.entries.push(entry.clone());
    Ok(entry)
}

/// Update an entry: only the fields given change.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "collections", name = "updateEntry",
       guidance = "Fields merge: a field left out keeps its value.")]
pub fn update_entry(
    #[ctx] cms: State<Cms>,
    /// Which one to change.
    id: u32,
    /// Which collection.
    collection: Option<String>,
    /// The entry's field values to change.
    fields: Option<Vec<Field>>,
) -> Result<Entry, ToolError> {
    let fields = fields.map(|fields| to_map("fields", fields)).transpose()?;
    let mut data = cms.lock();
    let entry = find_mut(&mut data.entries, id)?;
    if let Some(collection) = collection {
        entry.collection = collection;
    }
    entry.fields.extend(fields.unwrap_or_default());
    Ok(entry.clone())
}

/// Delete collection entries by id. Returns a preview first; call again with `confirmed: true` to act.
#[tool(scope = shared, tier = confirm, quota = "10/min", group = "collections", name = "deleteEntry",
       preview = preview_delete_entry,
       guidance = "Pages listing the collection drop the entry at once.")]
pub fn delete_entry(
    #[ctx] cms: State<Cms>,
    /// The ids of the collection entries to delete.
    ids: Vec<u32>,
) -> Result<Found<u32>, ToolError> {
    delete_all(&mut cms.lock().entries, ids)
}

/// What `deleteEntry` would delete.
#[allow(clippy::needless_pass_by_value)]
pub fn preview_delete_entry(cms: State<Cms>, ids: Vec<u32>) -> Result<Preview, ToolError> {
    preview_delete(&cms.lock().entries, &ids, "deleteEntry", "")
}

// ---------------------------------------------------------------- external

/// Browse stock photo providers for images matching a query; returns previews with their licences.
#[tool(scope = shared, tier = auto, group = "external", name = "browseImages",
       aliases = ["cms_stockSearch"],
       guidance = "Browse first, then importImage the one the user picks.")]
pub fn browse_images(
    #[ctx] cms: State<Cms>,
    /// What the picture should show.
    query: String,
    /// landscape, portrait or square.
    orientation: Option<String>,
) -> Found<StockPhoto> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let data = cms.lock();
    Found::new(
        data.stock
            .iter()
            .filter(|photo| {
                let description = photo.description.to_lowercase();
                words.iter().any(|word| description.contains(word.as_str()))
                    && orientation
                        .as_ref()
                        .is_none_or(|wanted| *wanted == photo.orientation)
            })
            .cloned()
            .collect(),
    )
}

// An import is slow (fetch, scale, store), so it reports each step through
// `Progress`: MCP `notifications/progress` when the client asked for them, the
// application's callback in process. The library's lock is never held across a
// report, so another call can read the library meanwhile; the slug is checked
// again when the image is added.
/// Import an image from a URL into the media library.
// A task where the client takes them: an import waits on another server, and a
// client that polls gets its result even if the request that asked dies.
#[tool(scope = shared, tier = auto, group = "external", name = "importImage", task = optional,
       guidance = "Only free-licence images; the URL comes from browseImages or the user.")]
pub async fn import_image(
    #[ctx] cms: State<Cms>,
    #[ctx] progress: Progress,
    /// The image's address.
    url: String,
    /// Alternative text.
    alt: String,
) -> Result<Image, ToolError> {
    const STEPS: f64 = 3.0;
    let slug = {
        let data = cms.lock();
        if !data.stock.iter().any(|photo| photo.url == url) {
            return Err(ToolError::failed(format!(
                "no image at {url}; browse with browseImages first"
            )));
        }
        let slug = file_stem(&url);
        require_new_slug(&data.images, &slug)?;
        slug
    };
    progress
        .report(1.0, Some(STEPS), Some("found the image; fetching it"))
        .await;
    // The stock photos are in memory here; a real import fetches and scales the
    // file between these two reports.
    progress
        .report(
            2.0,
            Some(STEPS),
            Some("fetched; adding it to the media library"),
        )
        .await;
    let image = {
        let mut data = cms.lock();
        require_new_slug(&data.images, &slug)?;
        let image = Image {
            id: data.next_id(),
            url: format!("https://cdn.example.com/{slug}.jpg"),
            slug,
            alt,
            caption: None,
        };
        data.images.push(image.clone());
        image
    };
    progress.report(STEPS, Some(STEPS), Some("imported")).await;
    Ok(image)
}

/// One web search result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WebResult {
    /// The page's address.
    pub url: String,
    /// The start of its text.
    pub snippet: String,
}

/// Search the web; returns URLs and snippets.
#[tool(scope = shared, tier = auto, group = "external", name = "searchWeb",
       aliases = ["cms_webSearch"],
       guidance = "Snippets are short; fetchContent the page before quoting it.")]
pub fn search_web(
    #[ctx] cms: State<Cms>,
    /// The search terms.
    query: String,
) -> Found<WebResult> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let data = cms.lock();
    Found::new(
        data.web
            .iter()
            .filter(|(_, text)| {
                let text = text.to_lowercase();
                words.iter().any(|word| text.contains(word.as_str()))
            })
            .map(|(url, text)| WebResult {
                url: (*url).to_owned(),
                snippet: text.chars().take(40).collect(),
            })
            .collect(),
    )
}

/// A fetched page's text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Content {
    /// The page's address.
    pub url: String,
    /// Its readable text.
    pub text: String,
}

/// Fetch a web page and return its readable text.
#[tool(scope = shared, tier = auto, group = "external", name = "fetchContent",
       aliases = ["cms_fetchUrl"],
       guidance = "For pages people read; for APIs use httpGet.")]
pub fn fetch_content(
    #[ctx] cms: State<Cms>,
    /// The page's address.
    url: String,
) -> Result<Content, ToolError> {
    let data = cms.lock();
    let text = data
        .web
        .get(url.as_str())
        .ok_or_else(|| ToolError::failed(format!("{url} could not be fetched (404)")))?;
    Ok(Content {
        text: (*text).to_owned(),
        url,
    })
}

/// The answer to an HTTP request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The response body, as text.
    pub body: String,
}

/// Send an HTTP GET request to an API and return the response body.
#[tool(scope = shared, tier = auto, quota = "10/min", group = "external", name = "httpGet",
       guidance = "The body comes back as text; parse JSON yourself.")]
pub fn http_get(
    #[ctx] cms: State<Cms>,
    /// The endpoint, with `https://`.
    url: String,
    /// Request headers.
    #[tool(default = Vec::new())]
    headers: Vec<Field>,
) -> HttpResponse {
    let _ = headers;
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

/// Send an HTTP POST request with a JSON body. Returns a preview first; call again with `confirmed: true` to send.
#[tool(scope = shared, tier = confirm, quota = "10/min", group = "external", name = "httpPost",
       preview = preview_http_post,
       guidance = "It leaves the site and cannot be taken back: webhooks, forms, APIs.")]
pub fn http_post(
    #[ctx] cms: State<Cms>,
    /// The endpoint, with `https://`.
    url: String,
    /// The JSON body, as text.
    body: String,
    /// Request headers.
    #[tool(default = Vec::new())]
    headers: Vec<Field>,
) -> HttpResponse {
    let _ = headers;
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

/// What `httpPost` would send, and where.
#[allow(clippy::needless_pass_by_value)]
#[must_use]
pub fn preview_http_post(
    _cms: State<Cms>,
    url: String,
    body: String,
    _headers: Vec<Field>,
) -> Preview {
    Preview::new(format!(
        "This sends {} to {url}, outside the site; it cannot be taken back. Show the user, and only if they agree call `httpPost` again with `confirmed: true`.",
        count(body.len(), "byte")
    ))
    .item(Sent { url, body })
}

// ---------------------------------------------------------------- default

/// What `acknowledgeRequest` and `finalAnswer` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Told {
    /// Always `true`.
    pub success: bool,
}

/// Tell the user the request was understood and work has started, before a long task.
#[tool(scope = shared, tier = auto, always, group = "default", name = "acknowledgeRequest",
       guidance = "One short sentence, once per request, only before work that takes several calls.")]
pub fn acknowledge_request(
    #[ctx] cms: State<Cms>,
    /// A short acknowledgement.
    message: String,
) -> Told {
    cms.lock().said.push(Said::Acknowledged(message));
    Told { success: true }
}

/// Give the final answer to the user and end the turn.
#[tool(scope = shared, tier = auto, always, group = "default", name = "finalAnswer",
       guidance = "Call it last, once: say what changed, with links to the pages touched.")]
pub fn final_answer(
    #[ctx] cms: State<Cms>,
    /// The answer in Markdown.
    answer: String,
) -> Told {
    cms.lock().said.push(Said::Answered(answer));
    Told { success: true }
}
