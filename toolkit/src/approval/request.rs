//! A request: an `approve` call checked like any call, then kept as a signed
//! pending approval bound to the principal, the tool and the arguments' digest.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::key::{digest, pending_payload, to_hex};
use super::{
    ApprovalError, Approvals, CallingView, Decider, PendingApproval, PendingCaps, SavedPending,
    check_arguments,
};
use crate::context::{CallId, Context};
use crate::error::ToolError;
use crate::principal::Principal;
use crate::registry::RegisteredTool;
use crate::response::Response;

/// The arguments as a JSON value; empty text or `null` mean `{}`, as in dispatch.
pub(super) fn arguments_value(arguments: &str) -> Result<Value, ToolError> {
    let trimmed = arguments.trim();
    if trimmed.is_empty() || trimmed == "null" {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(trimmed).map_err(|error| ToolError::MalformedJson {
        message: error.to_string(),
        line: error.line(),
        column: error.column(),
    })
}

fn made_up_call_id(principal: &Principal, tool: &str, digest: &str) -> String {
    made_up_id("approval", principal.key(), tool, digest)
}

/// An id nobody else makes: `prefix`, `_` and 24 hex digits.
pub(super) fn made_up_id(prefix: &str, principal: &str, tool: &str, digest: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // Only entropy for a made-up id, never a time decision (those read the store's clock).
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let seed = format!(
        "{principal}\u{0}{tool}\u{0}{digest}\u{0}{nanos}\u{0}{}\u{0}{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    format!(
        "{prefix}_{}",
        &to_hex(&Sha256::digest(seed.as_bytes()))[..24]
    )
}

/// `View::call` for an `approve` tool.
pub(crate) async fn request<'r>(
    view: &impl CallingView<'r>,
    tool: &RegisteredTool,
    arguments: &str,
    ctx: &Context,
) -> Response {
    let Some((approvals, principal)) = view.approvals() else {
        return Response::Error(ToolError::ApprovalRequired {
            tool: tool.name.to_owned(),
        });
    };
    if let Err(error) = check_arguments(view.registry(), tool, arguments) {
        return Response::Error(error);
    }
    let arguments = match arguments_value(arguments) {
        Ok(arguments) => arguments,
        Err(error) => return Response::Error(error),
    };
    let call_id = match ctx.get::<CallId>() {
        Some(CallId(id)) => id.clone(),
        None => made_up_call_id(principal, tool.name, &digest(&arguments)),
    };
    let now = match approvals.store_now().await {
        Ok(now) => now,
        Err(error) => return Response::Error(error.into()),
    };
    let pending =
        approvals.make_pending(principal, view.label(), tool.name, call_id, arguments, now);
    // Stored before anyone sees it, so an inbox lists what waits; a second call with
    // the same call id keeps the first pending approval. The caps on what may wait
    // are counted in the same step as the insert.
    match approvals
        .store
        .save_pending_capped(&pending, pending_caps(view, tool))
        .await
    {
        Ok(SavedPending::Saved | SavedPending::AlreadySaved) => {}
        Ok(SavedPending::Full { limit, of_tool }) => {
            return Response::Error(ToolError::TooManyPending {
                tool: tool.name.to_owned(),
                limit,
                of_tool,
            });
        }
        Err(error) => return Response::Error(ApprovalError::Store(error).into()),
    }
    let Some(decider) = &approvals.inline_decider else {
        return Response::Pending(Box::new(pending));
    };
    let Some(decision) = decider.decide(&pending, ctx).await else {
        return Response::Pending(Box::new(pending));
    };
    let person = decider.decided_by(&pending, ctx);
    let who = person
        .as_ref()
        .map_or(Decider::Application, Decider::Person);
    match approvals
        .decide_by_at(view.registry(), &pending, decision, who)
        .await
    {
        Ok((approval, now)) => super::run::resume(view, &approval, ctx, Some(now)).await,
        Err(error) => Response::Error(error.into()),
    }
}

/// The caps on waiting approvals of the view's quotas
/// ([`QuotasBuilder::pending_approvals`](crate::quota::QuotasBuilder::pending_approvals)):
/// over every tool, and of this one.
fn pending_caps<'r>(view: &impl CallingView<'r>, tool: &RegisteredTool) -> PendingCaps {
    let Some(quotas) = view.quotas() else {
        return PendingCaps::default();
    };
    let (per_principal, per_tool) = quotas.pending_limits(tool);
    PendingCaps {
        per_principal,
        per_tool,
    }
}

impl Approvals {
    fn make_pending(
        &self,
        principal: &Principal,
        view: Option<&str>,
        tool: &str,
        call_id: String,
        arguments: Value,
        now: u64,
    ) -> PendingApproval {
        let mut pending = PendingApproval {
            call_id,
            principal: principal.clone(),
            view: view.map(str::to_owned),
            tool: tool.to_owned(),
            digest: digest(&arguments),
            arguments,
            requested_at: now,
            expires_at: now.saturating_add(self.pending_ttl.as_secs()),
            signature: String::new(),
        };
        pending.signature = self.sign(&pending_payload(&pending));
        pending
    }
}
