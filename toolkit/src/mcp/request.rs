//! What a tool called over MCP can reach of the request it serves: the client's
//! log, its model (sampling) and its user (elicitation).

// Logging and sampling are deprecated in rmcp for the 2026-07-28 revision
// (SEP-2577); clients on 2025-11-25, the current stable revision, use them.
#![allow(deprecated)]

use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    LoggingLevel, LoggingMessageNotificationParam,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::{Peer, RoleServer};
use serde_json::Value;

use crate::context::{Context, FromContext};
use crate::error::ToolError;

/// The MCP request a tool call came in: a `#[ctx] request: McpRequest` parameter
/// (or `Option<McpRequest>` for a tool also called outside MCP).
///
/// Log messages are notifications and work on every transport. Sampling and
/// elicitation are requests to the client in the middle of the call: they need a
/// client that advertised the capability and a transport that carries the
/// client's answer back to this call (stdio, or HTTP with sessions); the
/// stateless streamable HTTP of [`McpHttp`](super::McpHttp) has no such path, and
/// the 2026-07-28 revision forbids them (it asks through input-required results).
/// [`McpRequest::can_ask`] says whether they can be sent. To ask on every
/// revision (input-required rounds on 2026-07-28, these requests on a
/// 2025-11-25 session, a waiting task), take an [`Ask`](super::Ask) instead.
#[derive(Clone)]
pub struct McpRequest {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) can_ask: bool,
    /// The session's least severe level to send, as [`level_rank`] (0: all).
    pub(crate) log_level: Arc<AtomicU8>,
}

/// `level`'s place from least to most severe, counted from 1, so that 0 can
/// mean "no level set".
pub(crate) fn level_rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 1,
        LoggingLevel::Info => 2,
        LoggingLevel::Notice => 3,
        LoggingLevel::Warning => 4,
        LoggingLevel::Error => 5,
        LoggingLevel::Critical => 6,
        LoggingLevel::Alert => 7,
        LoggingLevel::Emergency => 8,
    }
}

impl McpRequest {
    /// Whether [`McpRequest::elicit`] and [`McpRequest::create_message`] can reach
    /// the client on this request.
    #[must_use]
    pub fn can_ask(&self) -> bool {
        self.can_ask
    }

    /// Sends `data` to the client's log at `level` (`notifications/message`),
    /// unless the client asked for more severe messages only
    /// (`logging/setLevel`).
    pub async fn log(&self, level: LoggingLevel, data: Value) -> Result<(), ToolError> {
        if level_rank(level) < self.log_level.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.peer
            .notify_logging_message(LoggingMessageNotificationParam::new(level, data))
            .await
            .map_err(|error| ToolError::failed(format!("could not log to the client: {error}")))
    }

    /// Asks the client's user for input shaped by `schema` (a flat JSON Schema
    /// object of primitive properties, as `elicitation/create` allows).
    pub async fn elicit(
        &self,
        message: impl Into<String>,
        schema: Value,
    ) -> Result<ElicitResult, ToolError> {
        if !self.can_ask {
            return Err(ToolError::failed(
                "this client can't be asked for input during a call",
            ));
        }
        let requested_schema = serde_json::from_value(schema).map_err(|error| {
            ToolError::failed(format!("the elicitation schema is not valid: {error}"))
        })?;
        self.peer
            .create_elicitation(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: message.into(),
                requested_schema,
            })
            .await
            .map_err(|error| ToolError::failed(format!("the client did not answer: {error}")))
    }

    /// Asks the client's model for a message (`sampling/createMessage`).
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        if !self.can_ask {
            return Err(ToolError::failed(
                "this client can't be asked for a message during a call",
            ));
        }
        self.peer
            .create_message(params)
            .await
            .map_err(|error| ToolError::failed(format!("the client did not answer: {error}")))
    }

    /// rmcp's handle on the client, for anything else.
    #[must_use]
    pub fn peer(&self) -> &Peer<RoleServer> {
        &self.peer
    }
}

impl std::fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRequest")
            .field("can_ask", &self.can_ask)
            .finish_non_exhaustive()
    }
}

/// The request the MCP server put in the context; missing outside MCP.
// Not listed in the error for a type that is not `FromContext`: that error
// speaks of `State<T>` and the user's own types, not of toolkit's.
#[diagnostic::do_not_recommend]
impl FromContext for McpRequest {
    type Binding = crate::binding::BoundToNothing;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.require::<McpRequest>().cloned()
    }

    fn from_context_if_present(ctx: &Context) -> Result<Option<Self>, ToolError> {
        Ok(ctx.get::<McpRequest>().cloned())
    }
}
