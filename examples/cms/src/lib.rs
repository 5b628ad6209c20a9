//! USE-CASES C on toolkit: a CMS agent's 34 atomic CRUD tools, named `verbEntity`
//! in camelCase under the crate's own verb vocabulary (`[package.metadata.toolkit]`
//! in `Cargo.toml`).
//!
//! - [`tools`]: the tools. `get*` select by `id` | `slug` | `all` and answer
//!   `{success, count, items}`; destructive calls preview first; old names are
//!   aliases; each tool carries its guidance.
//! - [`registry`]: every CMS tool plus the built-in search tool, named
//!   `searchTools` here. The three default tools are `always`; the rest are
//!   routed.
//! - [`Agent`]: one conversation: the view, the tools to send this turn (picked by
//!   the lexical router, or found by the model with `searchTools`), and the
//!   system prompt whose `<tool-guidance>` block holds only the active tools.
//!
//! ```
//! use example_cms::{Agent, Cms, registry};
//!
//! let agent = Agent::new(registry(), Cms::sample());
//! # futures_executor::block_on(async {
//! let turn = agent.route("publish the rye post").await;
//! assert_eq!(
//!     turn.tools,
//!     ["acknowledgeRequest", "createPost", "deletePost", "finalAnswer", "searchTools", "updatePost"]
//! );
//! assert!(turn.prompt.contains("<updatePost>Publishing is an update: set status to published.</updatePost>"));
//! # });
//! ```

mod store;
pub mod tools;

use std::sync::{Arc, OnceLock};

use toolkit::route::{
    FoundTools, LexicalRouter, Outcome, RouteRequest, SEARCH_TAG, ToolSearch, select,
};
use toolkit::{Context, Registry, Response, Scope, View, registry::RegisteredTool};

pub use store::{
    Cms, Entry, Image, NavItem, Page, PageStatus, Post, PostStatus, Said, Section, SectionTemplate,
    Sent, StockPhoto,
};

/// Every CMS tool and `searchTools`, built once: the CMS's own `#[tool]`s only, so
/// a binary that links other tool crates too (the routing benchmark) still gets
/// exactly these 34.
///
/// # Panics
/// If two tools claim one name (a test builds it).
#[must_use]
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let tools = toolkit::registry()
            .iter()
            .map(RegisteredTool::tool)
            .filter(|tool| tool.location.module_path.starts_with("example_cms"))
            .chain([&tools::SEARCH_TOOLS]);
        Registry::new(tools).expect("the CMS's tools have unique names")
    })
}

/// The CMS's catalog as JSON catalog entries, the way an external catalog arrives:
/// what the routing benchmark loads (`bench/routing/data/cms.json`; a test keeps
/// the two equal).
#[must_use]
pub fn catalog_json() -> String {
    let catalog = toolkit::route::Catalog::from_tools(registry());
    let mut json = serde_json::to_string_pretty(&catalog).unwrap_or_default();
    json.push('\n');
    json
}

/// The system prompt: the agent's role, then the guidance of the tools sent this
/// turn (`$tool_guidance`).
pub const SYSTEM_PROMPT: &str = "You edit the website of a bakery with the tools you have. \
Call `acknowledgeRequest` before long work and `finalAnswer` at the end. \
If a tool you need is missing, find it with `searchTools`.\n\n$tool_guidance";

/// One turn's tools and prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The names of the tools sent, in name order.
    pub tools: Vec<&'static str>,
    /// The system prompt, with the guidance of exactly those tools.
    pub prompt: String,
    /// Whether the router fell back to every routed tool (its error is logged by
    /// the application).
    pub fell_back: bool,
}

/// One conversation of the CMS agent: its view, router and found tools.
pub struct Agent {
    view: View<'static>,
    router: Arc<LexicalRouter>,
    found: FoundTools,
    ctx: Context,
}

impl Agent {
    /// A conversation over every shared tool of `registry`, editing `cms`.
    ///
    /// # Panics
    /// If the view cannot be built (it names no allowlist, so it can't).
    #[must_use]
    pub fn new(registry: &'static Registry, cms: Cms) -> Self {
        let view = registry
            .view()
            .scopes([Scope::Shared])
            .build()
            .expect("a scope-only view always builds");
        // Indexed once per view shape; shared by the router and the search tool.
        let router = Arc::new(LexicalRouter::new(view.catalog()));
        let found = FoundTools::new();
        let ctx = Context::new()
            .with(cms)
            .with(ToolSearch::new(Arc::clone(&router), found.clone()));
        Agent {
            view,
            router,
            found,
            ctx,
        }
    }

    /// The view the model acts through.
    #[must_use]
    pub fn view(&self) -> &View<'static> {
        &self.view
    }

    /// The routed tools this conversation found with `searchTools`.
    #[must_use]
    pub fn found(&self) -> &FoundTools {
        &self.found
    }

    /// The tools and prompt for `message`: the always tools, the routed tools the
    /// lexical router picks, and those found earlier with `searchTools`.
    pub async fn route(&self, message: &str) -> Turn {
        let allowed = |name: &str| self.view.contains(name);
        let request = RouteRequest::new(message).limit(3).within(&allowed);
        let selection = select(&*self.router, &request).await;
        let active: Vec<&RegisteredTool> = self
            .view
            .iter()
            .filter(|tool| {
                tool.always
                    || self.found.contains(tool.name)
                    || selection
                        .tools
                        .iter()
                        .any(|picked| picked.name == tool.name)
            })
            .collect();
        Agent::turn(&active, matches!(selection.outcome, Outcome::FellBack(_)))
    }

    /// The tools and prompt when the model finds routed tools only with
    /// `searchTools`: the always tools and what it found so far.
    #[must_use]
    pub fn search_only(&self) -> Turn {
        Agent::turn(&self.view.active_found(&self.found), false)
    }

    fn turn(active: &[&RegisteredTool], fell_back: bool) -> Turn {
        let guidance = toolkit::prompt::guidance(active.iter().copied());
        let prompt = toolkit::prompt::substitute(SYSTEM_PROMPT, |name| {
            (name == "tool_guidance").then_some(guidance.as_str())
        });
        debug_assert!(active.iter().any(|tool| tool.tags.contains(&SEARCH_TAG)));
        Turn {
            tools: active.iter().map(|tool| tool.name).collect(),
            prompt,
            fell_back,
        }
    }

    /// Calls a tool as the model asked, through the view.
    pub async fn call(&self, name: &str, arguments: &str) -> Response {
        self.view.call(name, arguments, &self.ctx).await
    }
}
