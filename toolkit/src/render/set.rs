//! Rendering a set of registered tools: each tool's cached text joined into the
//! one JSON array a request carries.

use serde_json::Value;

use super::{Dialect, RenderError, Rendered};
use crate::registry::RegisteredTool;

/// Renders one tool in `dialect` as a [`Value`]; see [`RegisteredTool::render`].
pub fn render_tool(tool: &RegisteredTool, dialect: Dialect) -> Result<Value, RenderError> {
    tool.render(dialect)
}

/// Renders tools in `dialect` as one JSON array, all or nothing: the first tool
/// (in the order given) that the dialect cannot express is the error.
///
/// A convenience for tests and start-up checks; a request path wants
/// [`render_set`], which copies cached text and skips what can't be rendered.
pub fn render<'a>(
    tools: impl IntoIterator<Item = &'a RegisteredTool>,
    dialect: Dialect,
) -> Result<Value, RenderError> {
    render_set(tools, dialect)
        .all_or_error()
        .map(|json| super::to_value(&json))
}

/// Renders a set of tools in `dialect` as the JSON array a request carries.
///
/// Each tool's rendering is built once per dialect and kept as compact JSON text
/// ([`RegisteredTool::render_json`]); a set is those texts copied into one buffer
/// between `[`, `,` and `]`, in the order `tools` gives them (views and the
/// registry give name order). A tool the dialect cannot express is left out of the
/// array and listed in [`Rendered::skipped`], so one such tool never takes the
/// others down; [`Rendered::all_or_error`] insists on every tool.
///
/// ```
/// # use toolkit::{Dialect, render::render_set};
/// let rendered = render_set(toolkit::registry(), Dialect::OpenAiChat);
/// assert!(rendered.skipped.is_empty());
/// let body = format!(r#"{{"model": "gpt-5", "tools": {}}}"#, rendered.json);
/// # assert!(body.contains("gpt-5"));
/// ```
pub fn render_set<'a>(
    tools: impl IntoIterator<Item = &'a RegisteredTool>,
    dialect: Dialect,
) -> Rendered {
    Rendered::join(tools.into_iter().map(|tool| tool.render_json(dialect)))
}
