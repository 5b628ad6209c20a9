//! What a toolkit response becomes on the wire: the MCP result of a call (plain,
//! rich, or flagged with its `_meta` detail), and the question an approval puts to
//! the client. Both the call path (`server`) and tasks (`task`) answer with these.

use rmcp::model::{CallToolResult, ContentBlock};

use crate::approval::PendingApproval;
use crate::response::Response;

/// The key of the one input request an approval asks the client for.
pub(super) const APPROVAL_INPUT: &str = "approval";

/// What the user is asked about a pending approval.
pub(super) fn approval_question(pending: &PendingApproval) -> String {
    format!(
        "Allow `{}` to run with {}? It has not run yet.",
        pending.tool,
        crate::approval::canonical_json(&pending.arguments)
    )
}

/// The `_meta` key of an error result's error (`{"kind", "message"}`).
pub const META_ERROR: &str = "toolkit/error";
/// The `_meta` key of the milliseconds a call refused by its quota should wait
/// before it is tried again ([`ToolError::RateLimited`](crate::ToolError::RateLimited)).
pub const META_RETRY_AFTER_MS: &str = "retryAfterMs";
/// The `_meta` key of a `confirm` tool's preview (the call did not act).
pub const META_PREVIEW: &str = "toolkit/preview";
/// The `_meta` key of a pending approval (the call waits for a human).
pub const META_PENDING_APPROVAL: &str = "toolkit/pending_approval";

/// The MCP result of a toolkit response: a result as content (see
/// [`plain_result`]); anything else as `isError: true` with the text the model
/// reads.
///
/// An error, a preview and a pending approval carry no `structuredContent`: a
/// tool's `outputSchema` describes what it returns when it runs, and clients check
/// structured content against it even on error results (the TypeScript SDK
/// rejects the whole result when it does not match, so the model would never see
/// the message). The specification asks structured content to conform to the
/// output schema and puts no such rule on `_meta`, so the machine-readable detail
/// goes there, under [`META_ERROR`], [`META_PREVIEW`] and
/// [`META_PENDING_APPROVAL`].
pub(super) fn call_result(response: Response) -> CallToolResult {
    let flagged = |text: String, key: &str, detail: serde_json::Value| {
        let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
        let mut meta = serde_json::Map::new();
        meta.insert(key.to_owned(), detail);
        result.meta = Some(rmcp::model::MetaObject(meta));
        result
    };
    match response {
        Response::Result(value) => match crate::content::Contents::from_result(&value) {
            Some((items, structured)) => rich_result(&items, structured),
            None => plain_result(value),
        },
        // The tool has not run: an error result saying so, with the pending
        // approval for an application that resumes it out of band.
        Response::Pending(pending) => {
            // Whether this client could not be asked or the policy leaves the
            // decision to someone else, the call waits for a person.
            let message = format!(
                "`{}` waits for a person's approval; it has not run",
                pending.tool
            );
            let detail = unwrap_json(Response::Pending(pending).into_json());
            flagged(message, META_PENDING_APPROVAL, detail)
        }
        Response::Error(error) => {
            let message = error.to_string();
            let retry_after_ms = match &error {
                crate::error::ToolError::RateLimited { retry_after_ms, .. } => {
                    Some(*retry_after_ms)
                }
                _ => None,
            };
            let detail = unwrap_json(Response::Error(error).into_json());
            let mut result = flagged(message, META_ERROR, detail);
            // A refusal by a quota is a tool result the model reads, not a
            // JSON-RPC error: the specification reserves its error codes, and a
            // client shows a result's text to the model. The wait is machine
            // readable beside it.
            if let (Some(retry_after_ms), Some(meta)) = (retry_after_ms, result.meta.as_mut()) {
                meta.0
                    .insert(META_RETRY_AFTER_MS.to_owned(), retry_after_ms.into());
            }
            result
        }
        // A `confirm` tool called without `confirmed: true` has not acted either:
        // flagged, with the preview (message and items) as the text the model
        // reads.
        Response::Preview(preview) => {
            let json = preview.to_json();
            flagged(json.to_string(), META_PREVIEW, json)
        }
    }
}

/// A tool's value as MCP content: structured content and its JSON text, except a
/// string, which is text the model reads as it is (newlines and quotes not
/// JSON-escaped) and has no structured content.
///
/// Any other value (an array, a number) is structured content: the 2026-07-28
/// revision lets `structuredContent` be any JSON value (SEP-2106). Earlier
/// revisions require an object; for a client on one of them rmcp drops a
/// non-object `structuredContent` (and a non-object `outputSchema` from
/// `tools/list`) before answering, and the text keeps the value.
fn plain_result(value: serde_json::Value) -> CallToolResult {
    match value {
        serde_json::Value::String(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        value => CallToolResult::structured(value),
    }
}

/// A [`Contents`](crate::content::Contents) result: its blocks as MCP content,
/// its structured value (if any) as `structuredContent`.
fn rich_result(
    items: &[crate::content::Content],
    structured: Option<serde_json::Value>,
) -> CallToolResult {
    let blocks = serde_json::to_value(items)
        .and_then(serde_json::from_value::<Vec<ContentBlock>>)
        .unwrap_or_else(|error| {
            vec![ContentBlock::text(format!(
                "the tool's content could not be sent: {error}"
            ))]
        });
    let mut result = CallToolResult::success(blocks);
    result.structured_content = structured;
    result
}

/// The body of a one-key object (`{"error": body}` -> `body`).
fn unwrap_json(json: serde_json::Value) -> serde_json::Value {
    match json {
        serde_json::Value::Object(object) if object.len() == 1 => object
            .into_iter()
            .next()
            .map_or(serde_json::Value::Null, |(_, body)| body),
        other => other,
    }
}
