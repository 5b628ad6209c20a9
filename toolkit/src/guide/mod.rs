//! The guide: everything past the README's front page, one chapter a module.
//!
//! Each chapter is a Markdown file beside this one (`toolkit/src/guide/NN-name.md`,
//! readable on the repository as it is), included as the module's documentation,
//! so docs.rs carries it and its Rust blocks are doctests that
//! `cargo test --workspace` compiles and, unless they serve or wait on a network,
//! runs. Two blocks are not (`link_tools!` of crates of yours, and a `rig-agent`
//! loop): each says why beside it. The modules hold no items and exist only for `cargo doc` and doctests
//! (`cfg(any(doc, doctest))`): a build of the library compiles none of this.
//!
//! A chapter about a feature (`inbox`, `postgres`, `mcp`, `oauth`, `mcp-client`,
//! `rig`) carries its text, and its doctests, only when the feature is on (docs.rs
//! turns every feature on); without it the module says which feature it needs.
//!
//! # Chapters
//!
//! Defining tools:
//!
//! 1. [`attribute`]: `#[tool]` in depth: parameters, results, handles, examples,
//!    and every mistake the compiler catches.
//! 2. [`scopes`]: scopes and the bindings of `#[ctx]` parameters.
//! 3. [`confirm`]: `tier = confirm`, the preview before acting.
//! 4. [`registry`]: the registry, tools in other crates.
//! 5. [`schemas`]: the canonical schema and each provider's dialect.
//! 6. [`calling`]: calling tools, argument errors, limits, panics.
//!
//! Serving them to models and people:
//!
//! 7. [`views`]: what one consumer may list and call.
//! 8. [`quotas`]: how often a caller may call a tool.
//! 9. [`approvals`]: tiers, signed human approvals, who may decide.
//! 10. [`inbox`]: the approval inbox (feature `inbox`).
//! 11. [`fleet`]: replicas behind a load balancer (feature `postgres`).
//! 12. [`selection`]: sending only the tools that matter: routers, tool search.
//! 13. [`prompts`]: guidance in the system prompt, a catalog for people.
//!
//! MCP:
//!
//! 14. [`mcp`]: serving tools over MCP, stdio and streamable HTTP (feature `mcp`).
//! 15. [`oauth`]: behind an OAuth 2.1 authorization server (feature `oauth`).
//! 16. [`mcp_approvals`]: approvals over MCP, MCP Tasks, approval cards (feature `mcp`).
//! 17. [`mcp_results`]: rich results, progress, cancellation, asking the client.
//! 18. [`mcp_support`]: what is supported, conformance, the clients tested.
//! 19. [`mcp_client`]: tools on other MCP servers (feature `mcp-client`).
//! 20. [`production`]: the production checklist.
//!
//! Beside:
//!
//! 21. [`rig`]: a view's tools as rig-core tools (feature `rig`).
//! 22. [`observability`]: spans, events, OpenTelemetry.
//! 23. [`testing`]: testing your tools, and which tool the model gets.
//! 24. [`examples`]: the workspace's examples by use case; state shared between calls.
//! 25. [`contributing`]: fuzzing and the workspace's layout.

/// A chapter whose text and doctests need a feature: with the feature, the
/// Markdown file; without it, one line saying which feature to turn on.
macro_rules! chapter {
    ($feature:literal, $file:literal, $name:ident, $title:literal) => {
        #[cfg_attr(feature = $feature, doc = include_str!($file))]
        #[cfg_attr(not(feature = $feature), doc = concat!("# ", $title, "\n"))]
        #[cfg_attr(not(feature = $feature), doc = concat!("Needs the `", $feature, "` feature:"))]
        #[cfg_attr(not(feature = $feature), doc = "`cargo doc -p toolkit-llm --features")]
        #[cfg_attr(not(feature = $feature), doc = concat!($feature, "`"))]
        #[cfg_attr(not(feature = $feature), doc = "(docs.rs shows every feature), or read")]
        #[cfg_attr(not(feature = $feature), doc = concat!("`toolkit/src/guide/", $file, "`."))]
        pub mod $name {}
    };
}

#[doc = include_str!("01-attribute.md")]
pub mod attribute {}

#[doc = include_str!("02-scopes.md")]
pub mod scopes {}

#[doc = include_str!("03-confirm.md")]
pub mod confirm {}

#[doc = include_str!("04-registry.md")]
pub mod registry {}

#[doc = include_str!("05-schemas.md")]
pub mod schemas {}

#[doc = include_str!("06-calling.md")]
pub mod calling {}

#[doc = include_str!("07-views.md")]
pub mod views {}

#[doc = include_str!("08-quotas.md")]
pub mod quotas {}

#[doc = include_str!("09-approvals.md")]
pub mod approvals {}

chapter!("inbox", "10-inbox.md", inbox, "Approving calls: the inbox");

chapter!("postgres", "11-fleet.md", fleet, "Running a fleet");

#[doc = include_str!("12-selection.md")]
pub mod selection {}

#[doc = include_str!("13-prompts.md")]
pub mod prompts {}

chapter!("mcp", "14-mcp.md", mcp, "Serving tools over MCP");

chapter!(
    "oauth",
    "15-oauth.md",
    oauth,
    "Behind a real authorization server (OAuth 2.1)"
);

chapter!(
    "mcp",
    "16-mcp-approvals.md",
    mcp_approvals,
    "Approvals over MCP"
);

#[doc = include_str!("17-mcp-results.md")]
pub mod mcp_results {}

#[doc = include_str!("18-mcp-support.md")]
pub mod mcp_support {}

chapter!(
    "mcp-client",
    "19-mcp-client.md",
    mcp_client,
    "Tools on other MCP servers"
);

#[doc = include_str!("20-production.md")]
pub mod production {}

chapter!("rig", "21-rig.md", rig, "rig");

#[doc = include_str!("22-observability.md")]
pub mod observability {}

#[doc = include_str!("23-testing.md")]
pub mod testing {}

#[doc = include_str!("24-examples.md")]
pub mod examples {}

#[doc = include_str!("25-contributing.md")]
pub mod contributing {}
