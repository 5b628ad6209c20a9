//! The door a person's confirmation of a preview comes through (an MCP Apps
//! card's Confirm button): [`View::confirm`]. The rule (signature, principal,
//! digest, expiry, once) is [`Approvals`](crate::approval::Approvals)'; the view
//! adds that the tool is one it can call now, by its name, and that it is a
//! `confirm` tool.

use crate::approval::{ApprovalError, Confirmation};
use crate::context::Context;
use crate::declaration::Tier;
use crate::response::Response;
use crate::view::View;

impl View<'_> {
    /// Runs the previewed call a person confirmed, exactly as it was previewed,
    /// once: `confirmation` must be one this view's
    /// [`Approvals::confirmation`](crate::approval::Approvals::confirmation)
    /// issued for this view's principal, unexpired (store time), unaltered and
    /// never used (in any process sharing the store); the tool must be a `confirm`
    /// tool this view can call now by that name. The call then runs as
    /// [`View::call`] with the confirmation's arguments and `confirmed: true`, and
    /// its outcome is recorded.
    ///
    /// Otherwise nothing runs: [`ToolError::UnknownTool`](crate::ToolError::UnknownTool)
    /// for a tool outside the view (answered like any unknown name), and
    /// [`ToolError::ApprovalRejected`](crate::ToolError::ApprovalRejected) saying
    /// why for the rest ([`ApprovalError::BadSignature`],
    /// [`WrongPrincipal`](ApprovalError::WrongPrincipal),
    /// [`ArgumentsAltered`](ApprovalError::ArgumentsAltered),
    /// [`Expired`](ApprovalError::Expired), [`AlreadyUsed`](ApprovalError::AlreadyUsed),
    /// [`NotConfigured`](ApprovalError::NotConfigured) for a view without
    /// approvals).
    pub async fn confirm(&self, confirmation: &Confirmation, ctx: &Context) -> Response {
        let Some((approvals, principal)) = self.approvals() else {
            return Response::Error(ApprovalError::NotConfigured.into());
        };
        let reached = self
            .get(&confirmation.tool)
            .is_some_and(|tool| tool.name == confirmation.tool && tool.tier == Tier::Confirm);
        if !reached {
            return Response::Error(self.unknown_tool(&confirmation.tool));
        }
        let mut arguments = match &confirmation.arguments {
            serde_json::Value::Object(members) => members.clone(),
            _ => return Response::Error(ApprovalError::ArgumentsAltered.into()),
        };
        let redeemed = match approvals.redeem_confirmation(principal, confirmation).await {
            Ok(redeemed) => redeemed,
            Err(error) => return Response::Error(error.into()),
        };
        arguments.insert("confirmed".to_owned(), serde_json::Value::Bool(true));
        let text = serde_json::Value::Object(arguments).to_string();
        let response = self.call(&confirmation.tool, &text, ctx).await;
        approvals.confirmed_ran(&redeemed, &response).await;
        response
    }
}
