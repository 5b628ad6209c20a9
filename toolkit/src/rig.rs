//! The rig adapter (feature `rig`): a view's tools as rig tools, so an agent built
//! on `rig-core` uses toolkit tools while every call still goes through the view
//! (scopes, allowlists, tiers and approvals apply).
//!
//! `rig-core` is pinned to 0.44: the newest release that builds with the rustc this
//! workspace supports (0.46 needs rustc 1.97).
//!
//! An agent of `rig-agent` (0.44: rig's agent loop, which left rig-core in 0.41)
//! takes them as dynamic tools and runs its multi-turn loop over them:
//!
//! ```ignore
//! use std::sync::Arc;
//! use toolkit::{Context, Scope};
//!
//! let view = toolkit::registry().view().scopes([Scope::Shared]).build()?;
//! let tools = toolkit::rig::tools(&Arc::new(view), &Arc::new(Context::new()));
//! let agent = rig_agent::AgentBuilder::new(model).dynamic_tools(tools).build();
//! let answer = agent.prompt("Remind me to water the plants").max_turns(5).await?;
//! ```
//!
//! (`examples/mcp_server/tests/rig_adapter.rs` runs exactly this with a scripted
//! model.) Without an agent, send each tool's `definition()` with a rig
//! `CompletionRequest` and run the model's calls with `tool.execute(arguments)`.

use std::sync::Arc;

use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput};

use crate::context::Context;
use crate::response::Response;
use crate::view::View;

/// One rig [`DynamicTool`] per tool of `view`, in name order: the tool's name,
/// description and cleaned JSON schema; executing one calls [`View::call`] with
/// `ctx`. A result is the tool's JSON; an error carries toolkit's error JSON as
/// the model's output (`{"error": {"kind", "message", ...}}`), and an `approve`
/// call left pending is refused with the pending approval as the model's output.
#[must_use]
pub fn tools(view: &Arc<View<'static>>, ctx: &Arc<Context>) -> Vec<DynamicTool> {
    view.iter()
        .filter_map(|tool| {
            let name = ToolName::new(tool.name).ok()?;
            let dispatch = {
                let view = Arc::clone(view);
                let ctx = Arc::clone(ctx);
                let tool_name = tool.name;
                move |arguments: serde_json::Value| {
                    let view = Arc::clone(&view);
                    let ctx = Arc::clone(&ctx);
                    let future: rig_core::wasm_compat::WasmBoxedFuture<'static, _> =
                        Box::pin(async move {
                            outcome(&view.call_value(tool_name, &arguments, &ctx).await)
                        });
                    future
                }
            };
            Some(DynamicTool::new(
                name,
                tool.description,
                tool.schema().clone(),
                dispatch,
            ))
        })
        .collect()
}

/// A toolkit response as rig's tool outcome.
fn outcome(response: &Response) -> Result<ToolOutput, ToolExecutionError> {
    let (kind, message) = match response {
        Response::Result(value) => return Ok(ToolOutput::json(value.clone())),
        // A `confirm` tool's preview is what the model reads before it confirms.
        Response::Preview(preview) => return Ok(ToolOutput::json(preview.to_json())),
        Response::Error(error) => (
            match error.kind() {
                "unknown_tool" => ToolErrorKind::NotFound,
                "malformed_json" | "invalid_arguments" | "unknown_field" => {
                    ToolErrorKind::InvalidArgs
                }
                "approval_required" | "approval_rejected" | "denied" => {
                    ToolErrorKind::PermissionDenied
                }
                _ => ToolErrorKind::Other,
            },
            error.to_string(),
        ),
        Response::Pending(pending) => (
            ToolErrorKind::PermissionDenied,
            format!(
                "`{}` waits for a human's approval; it has not run",
                pending.tool
            ),
        ),
    };
    Err(ToolExecutionError::new(kind, message)
        .with_model_output(ToolOutput::json(response.to_json())))
}
