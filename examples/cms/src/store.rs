//! The site's content, its media library and a fake web, in memory.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Whether visitors can see a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PageStatus {
    /// Only editors see it.
    Draft,
    /// Visitors see it.
    Published,
}

/// Whether readers can see a post, or when they will.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PostStatus {
    /// Only editors see it.
    Draft,
    /// Goes live at `publishAt`.
    Scheduled,
    /// Readers see it.
    Published,
}

/// A page of the site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Page {
    /// The page's id.
    pub id: u32,
    /// Where it lives: `/about` has slug `about`.
    pub slug: String,
    /// Its title.
    pub title: String,
    /// Draft or published.
    pub status: PageStatus,
}

/// A layout a section is built from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SectionTemplate {
    /// The template's id.
    pub id: u32,
    /// Its name, like `hero`.
    pub slug: String,
    /// The content fields a section of this template fills.
    pub fields: Vec<String>,
}

/// A block on a page, built from a template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Section {
    /// The section's id.
    pub id: u32,
    /// Its name on the page, like `home-hero`.
    pub slug: String,
    /// The page it is on.
    pub page_id: u32,
    /// The template it follows.
    pub template_id: u32,
    /// The template's fields, filled.
    pub content: BTreeMap<String, String>,
    /// Where on the page, from the top (0 first).
    pub position: u32,
}

/// An image in the media library.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Image {
    /// The image's id.
    pub id: u32,
    /// Its file name without extension.
    pub slug: String,
    /// Where the file is.
    pub url: String,
    /// Alternative text for screen readers.
    pub alt: String,
    /// Text shown under it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
}

/// A blog post.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Post {
    /// The post's id.
    pub id: u32,
    /// Where it lives: `/blog/rye` has slug `rye`.
    pub slug: String,
    /// The headline.
    pub title: String,
    /// Markdown text.
    pub body: String,
    /// Draft, scheduled or published.
    pub status: PostStatus,
    /// When a scheduled post goes live (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publish_at: Option<String>,
}

/// A link in the site menu.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NavItem {
    /// The item's id.
    pub id: u32,
    /// Its key, like `menu-about`.
    pub slug: String,
    /// The text of the link.
    pub label: String,
    /// Where it points.
    pub href: String,
    /// The item it nests under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<u32>,
    /// Position among its siblings (0 first).
    pub order: u32,
}

/// An entry of a custom collection (team members, testimonials, FAQs, products).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Entry {
    /// The entry's id.
    pub id: u32,
    /// Its key in the collection, like `ada-lovelace`.
    pub slug: String,
    /// The collection, like `team`.
    pub collection: String,
    /// Its field values.
    pub fields: BTreeMap<String, String>,
}

/// A request `httpPost` sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sent {
    /// Where.
    pub url: String,
    /// What.
    pub body: String,
}

/// What the agent told the user: acknowledgements and final answers, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Said {
    /// `acknowledgeRequest`.
    Acknowledged(String),
    /// `finalAnswer`.
    Answered(String),
}

/// A stock photo `browseImages` finds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct StockPhoto {
    /// Where the photo is; `importImage` takes it.
    pub url: String,
    /// What it shows.
    pub description: String,
    /// landscape, portrait or square.
    pub orientation: String,
    /// Its licence.
    pub licence: String,
}

/// Records the `get*` tools select from: an id and a slug each.
pub(crate) trait Record: Clone {
    /// What one record is called in messages: `page`, `navigation item`.
    const WHAT: &'static str;
    fn id(&self) -> u32;
    fn slug(&self) -> &str;
}

macro_rules! record {
    ($($type:ty => $what:literal),* $(,)?) => {$(
        impl Record for $type {
            const WHAT: &'static str = $what;
            fn id(&self) -> u32 {
                self.id
            }
            fn slug(&self) -> &str {
                &self.slug
            }
        }
    )*};
}

record!(
    Page => "page",
    SectionTemplate => "section template",
    Section => "section",
    Image => "image",
    Post => "post",
    NavItem => "navigation item",
    Entry => "entry",
);

#[derive(Debug)]
pub(crate) struct Data {
    pub(crate) pages: Vec<Page>,
    pub(crate) templates: Vec<SectionTemplate>,
    pub(crate) sections: Vec<Section>,
    pub(crate) images: Vec<Image>,
    pub(crate) posts: Vec<Post>,
    pub(crate) nav: Vec<NavItem>,
    pub(crate) entries: Vec<Entry>,
    pub(crate) stock: Vec<StockPhoto>,
    pub(crate) web: BTreeMap<&'static str, &'static str>,
    pub(crate) sent: Vec<Sent>,
    pub(crate) said: Vec<Said>,
    next_id: u32,
}

impl Data {
    pub(crate) fn next_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }
}

/// The CMS, shared by every tool through `#[ctx] cms: State<Cms>`. Cheap to clone;
/// clones share the same data.
#[derive(Clone, Debug)]
pub struct Cms {
    data: Arc<Mutex<Data>>,
}

fn owned(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|&(key, value)| (key.to_owned(), value.to_owned()))
        .collect()
}

impl Cms {
    /// A bakery's site: three pages, two section templates and two sections, one
    /// image, two posts, two menu items, one team member, two stock photos and a
    /// web of three URLs. Ids run 1..=14 in that order; new records get 15, 16, ...
    #[must_use]
    pub fn sample() -> Self {
        let page = |id: u32, slug: &str, title: &str, status| Page {
            id,
            slug: slug.to_owned(),
            title: title.to_owned(),
            status,
        };
        let post = |id: u32, slug: &str, title: &str, status| Post {
            id,
            slug: slug.to_owned(),
            title: title.to_owned(),
            body: format!("# {title}"),
            status,
            publish_at: None,
        };
        let data = Data {
            pages: vec![
                page(1, "home", "Home", PageStatus::Published),
                page(2, "about", "About us", PageStatus::Published),
                page(3, "contact", "Contact", PageStatus::Draft),
            ],
            templates: vec![
                SectionTemplate {
                    id: 4,
                    slug: "hero".to_owned(),
                    fields: vec!["heading".to_owned(), "image".to_owned()],
                },
                SectionTemplate {
                    id: 5,
                    slug: "text".to_owned(),
                    fields: vec!["markdown".to_owned()],
                },
            ],
            sections: vec![
                Section {
                    id: 6,
                    slug: "home-hero".to_owned(),
                    page_id: 1,
                    template_id: 4,
                    content: owned(&[("heading", "Fresh bread daily"), ("image", "8")]),
                    position: 0,
                },
                Section {
                    id: 7,
                    slug: "about-story".to_owned(),
                    page_id: 2,
                    template_id: 5,
                    content: owned(&[("markdown", "We bake bread.")]),
                    position: 0,
                },
            ],
            images: vec![Image {
                id: 8,
                slug: "loaf".to_owned(),
                url: "https://cdn.example.com/loaf.jpg".to_owned(),
                alt: "A sourdough loaf".to_owned(),
                caption: None,
            }],
            posts: vec![
                post(9, "sourdough", "Our sourdough", PostStatus::Published),
                post(10, "rye", "Rye, coming soon", PostStatus::Draft),
            ],
            nav: vec![
                NavItem {
                    id: 11,
                    slug: "menu-home".to_owned(),
                    label: "Home".to_owned(),
                    href: "/".to_owned(),
                    parent_id: None,
                    order: 0,
                },
                NavItem {
                    id: 12,
                    slug: "menu-about".to_owned(),
                    label: "About".to_owned(),
                    href: "/about".to_owned(),
                    parent_id: None,
                    order: 1,
                },
            ],
            entries: vec![Entry {
                id: 13,
                slug: "ada".to_owned(),
                collection: "team".to_owned(),
                fields: owned(&[("name", "Ada"), ("role", "Baker")]),
            }],
            stock: vec![
                StockPhoto {
                    url: "https://stock.example.com/croissant.jpg".to_owned(),
                    description: "Croissants on a tray".to_owned(),
                    orientation: "landscape".to_owned(),
                    licence: "free".to_owned(),
                },
                StockPhoto {
                    url: "https://stock.example.com/baker.jpg".to_owned(),
                    description: "A baker kneading dough".to_owned(),
                    orientation: "portrait".to_owned(),
                    licence: "free".to_owned(),
                },
            ],
            web: BTreeMap::from([
                (
                    "https://example.com/flour",
                    "Flour prices are up 3% this year.",
                ),
                ("https://example.com/hooks", "ok"),
                (
                    "https://example.com/rye",
                    "Rye bread keeps for a week and needs a sour starter.",
                ),
            ]),
            sent: Vec::new(),
            said: Vec::new(),
            next_id: 14,
        };
        Cms {
            data: Arc::new(Mutex::new(data)),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Data> {
        self.data.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The pages, in id order.
    #[must_use]
    pub fn pages(&self) -> Vec<Page> {
        self.lock().pages.clone()
    }

    /// The posts, in id order.
    #[must_use]
    pub fn posts(&self) -> Vec<Post> {
        self.lock().posts.clone()
    }

    /// The images, in id order.
    #[must_use]
    pub fn images(&self) -> Vec<Image> {
        self.lock().images.clone()
    }

    /// What `httpPost` sent, oldest first.
    #[must_use]
    pub fn sent(&self) -> Vec<Sent> {
        self.lock().sent.clone()
    }

    /// What the agent told the user, oldest first.
    #[must_use]
    pub fn said(&self) -> Vec<Said> {
        self.lock().said.clone()
    }
}
