//! The site's content and a fake web, in memory.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use schemars::JsonSchema;
use serde::Serialize;

/// A page of the site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Page {
    /// The page's id.
    pub id: u32,
    /// Where it lives: `/about` has slug `about`.
    pub slug: String,
    /// Its title.
    pub title: String,
    /// Its content, in Markdown.
    pub body: String,
}

/// A blog post.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Post {
    /// The post's id.
    pub id: u32,
    /// Where it lives: `/blog/hello` has slug `hello`.
    pub slug: String,
    /// Its title.
    pub title: String,
    /// Its content, in Markdown.
    pub body: String,
    /// Whether readers can see it.
    pub published: bool,
}

/// A request `httpPost` sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sent {
    /// Where.
    pub url: String,
    /// What.
    pub body: String,
}

#[derive(Debug)]
pub(crate) struct Data {
    pub(crate) pages: Vec<Page>,
    pub(crate) posts: Vec<Post>,
    pub(crate) web: BTreeMap<&'static str, &'static str>,
    pub(crate) sent: Vec<Sent>,
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

impl Cms {
    /// A site with three pages and two posts, and a web of two URLs.
    #[must_use]
    pub fn sample() -> Self {
        let page = |id: u32, slug: &str, title: &str, body: &str| Page {
            id,
            slug: slug.to_owned(),
            title: title.to_owned(),
            body: body.to_owned(),
        };
        let post = |id: u32, slug: &str, title: &str, published: bool| Post {
            id,
            slug: slug.to_owned(),
            title: title.to_owned(),
            body: format!("# {title}"),
            published,
        };
        let data = Data {
            pages: vec![
                page(1, "home", "Home", "Welcome."),
                page(2, "about", "About us", "We bake bread."),
                page(3, "contact", "Contact", "Call us."),
            ],
            posts: vec![
                post(4, "sourdough", "Our sourdough", true),
                post(5, "rye", "Rye, coming soon", false),
            ],
            web: BTreeMap::from([
                ("https://example.com/flour", "Flour prices are up 3%."),
                ("https://example.com/hooks", "ok"),
            ]),
            sent: Vec::new(),
            next_id: 5,
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

    /// What `httpPost` sent, oldest first.
    #[must_use]
    pub fn sent(&self) -> Vec<Sent> {
        self.lock().sent.clone()
    }
}
