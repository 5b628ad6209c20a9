//! MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): cards a host
//! renders in the conversation, for the decisions toolkit already makes.
//!
//! Turned on with [`McpServer::apps`](super::McpServer::apps) or
//! [`McpHttp::apps`](super::McpHttp::apps). For a client that declared the
//! extension (`capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes`
//! holding [`MIME_TYPE`]) and a view built with approvals:
//!
//! - a `confirm` tool is listed with `_meta.ui.resourceUri` =
//!   [`PREVIEW_CARD`]; its preview result carries, beside today's
//!   `_meta["toolkit/preview"]`, a signed [`Confirmation`] under
//!   [`META_CONFIRMATION`]. The card shows the preview with Confirm and Cancel;
//!   Confirm calls the app-only tool [`CONFIRM_TOOL`] with that confirmation, which
//!   runs exactly the previewed arguments, once, for the same principal
//!   ([`View::confirm`](crate::View::confirm)).
//! - an `approve` tool is listed with `_meta.ui.resourceUri` = [`APPROVAL_CARD`];
//!   the card shows what waits, for whom and until when, and its live state, read
//!   with the app-only tool [`STATUS_TOOL`]
//!   ([`Approvals::status`](crate::approval::Approvals::status)). **It never
//!   decides**, even where the [policy](crate::approval::Approvals::policy) would
//!   let the requester decide (a personal assistant): its one button opens the
//!   inbox at that call (`ui/open-link`, [`Apps::inbox`]), where the approver
//!   signs in as themself and the policy applies.
//!   It shows the requester by name as every page of toolkit does
//!   ([`Principal::display_name`](crate::Principal::display_name): the subject,
//!   with its issuer when that is not the application's own, and its tenant), from
//!   the status tool's `requester.name`.
//! - a client that declared the tasks extension as well gets a task for an
//!   `approve` call (MCP Tasks, SEP-2663), not a pending result: the task also
//!   carries the pending approval under `_meta["toolkit/pending_approval"]`, and
//!   its id is the call id, so the card follows the call either way (a host that
//!   drops the task's `_meta` still hands the card the task id). A client with
//!   tasks and without Apps gets today's task, without that `_meta`.
//! - both cards are `ui://` resources of MIME type [`MIME_TYPE`], listed by
//!   `resources/list` only where a tool they belong to is in the caller's view,
//!   and read with `resources/read`.
//!
//! A client that did not declare the extension sees exactly what it saw without
//! Apps: the same `tools/list`, the same results, no resources, and the app-only
//! tool names are unknown to it. (The server's capabilities do say `resources`
//! and the extension, as they are the server's, not the client's.)
//!
//! # What an app-only tool is not
//!
//! A server cannot tell a card's `tools/call`, proxied by the host, from the
//! model's: `visibility: ["app"]` keeps a tool out of the model's list, and is
//! audience filtering, not authorization. So the app-only tools decide nothing of
//! their own: [`CONFIRM_TOOL`] runs a call only with a confirmation the server
//! signed for this principal, tool and arguments, unexpired (store time) and
//! unused, in a view that can call the tool now; [`STATUS_TOOL`] only reads, and
//! only calls the caller's view reaches. A model that calls them itself gains
//! nothing it could not do with the tool itself (a `confirm` tool runs on the
//! model's own `confirmed: true`; an `approve` call waits for its approver
//! whatever the card says).

mod cards;
mod serve;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use crate::approval::Confirmation;
pub(super) use serve::{
    AppsOn, call_app_tool, declare, list_resources, list_tools, read_resource, result_for,
    task_created,
};

/// The extension's identifier, as clients and servers declare it.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an MCP Apps HTML resource.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The preview card of `confirm` tools.
pub const PREVIEW_CARD: &str = "ui://toolkit/preview-card";

/// The approval card of `approve` tools.
pub const APPROVAL_CARD: &str = "ui://toolkit/approval-card";

/// The app-only tool the preview card's Confirm button calls, with
/// `{"confirmation": Confirmation}`.
pub const CONFIRM_TOOL: &str = "toolkit_confirm_preview";

/// The app-only tool the approval card reads the call's state with, with
/// `{"call_id": ...}`.
pub const STATUS_TOOL: &str = "toolkit_approval_status";

/// The `_meta` key of a preview result's [`Confirmation`] (for clients that
/// declared the extension).
pub const META_CONFIRMATION: &str = "toolkit/confirmation";

/// Who may call a tool (`_meta.ui.visibility`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The model sees and calls it.
    Model,
    /// A card of this server calls it, through the host.
    App,
}

/// A tool's `_meta.ui`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolUi {
    /// The `ui://` resource the host renders the tool's calls with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call it; absent means model and app.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// Rendered with the resource `uri`, visible to the model and the app.
    #[must_use]
    pub fn card(uri: impl Into<String>) -> Self {
        ToolUi {
            resource_uri: Some(uri.into()),
            visibility: None,
        }
    }

    /// Only for the card at `uri`: the model does not see it.
    #[must_use]
    pub fn app_only(uri: impl Into<String>) -> Self {
        ToolUi {
            resource_uri: Some(uri.into()),
            visibility: Some(vec![Visibility::App]),
        }
    }

    /// Whether the model may see it (no visibility, or one naming the model).
    #[must_use]
    pub fn is_for_model(&self) -> bool {
        self.visibility
            .as_ref()
            .is_none_or(|visibility| visibility.contains(&Visibility::Model))
    }
}

/// The origins a card may reach (`_meta.ui.csp`): every list empty is the
/// extension's restrictive default (no network, no outside scripts, styles,
/// images or frames), which is what toolkit's cards declare.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceCsp {
    /// Origins for `fetch`, XHR and web sockets.
    #[serde(default)]
    pub connect_domains: Vec<String>,
    /// Origins for scripts, styles, images, fonts and media.
    #[serde(default)]
    pub resource_domains: Vec<String>,
    /// Origins for nested frames.
    #[serde(default)]
    pub frame_domains: Vec<String>,
    /// Origins allowed as the document's base URI.
    #[serde(default)]
    pub base_uri_domains: Vec<String>,
}

/// A resource content's `_meta.ui`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceUi {
    /// What the card may load; see [`ResourceCsp`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<ResourceCsp>,
    /// Whether the host draws a border and background around the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// A `ui://` resource: one HTML document a host renders in a sandboxed frame.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UiResource {
    /// Its `ui://` URI.
    pub uri: &'static str,
    /// Its name in `resources/list`.
    pub name: &'static str,
    /// What it shows.
    pub description: &'static str,
    /// The HTML document.
    pub html: Arc<str>,
    /// Its `_meta.ui`.
    pub ui: ResourceUi,
}

/// The Apps settings of a server ([`McpServer::apps`](super::McpServer::apps),
/// [`McpHttp::apps`](super::McpHttp::apps)).
///
/// ```
/// use toolkit::mcp::apps::Apps;
///
/// let apps = Apps::new().inbox("https://assistant.example/inbox/");
/// # let _ = apps;
/// ```
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct Apps {
    inbox: Option<Arc<str>>,
}

impl Apps {
    /// Cards for `confirm` and `approve` tools; the approval card opens no inbox
    /// until [`Apps::inbox`] says where it is.
    pub fn new() -> Self {
        Apps::default()
    }

    /// The URL of the inbox's page (`toolkit::inbox`, feature `inbox`): the approval card's button
    /// opens it at the call (`?principal=..&call_id=..` added), where the
    /// approver signs in and decides.
    pub fn inbox(mut self, url: impl Into<String>) -> Self {
        self.inbox = Some(Arc::from(url.into()));
        self
    }

    /// Where the inbox shows the call `call_id` of `principal`, if the inbox's
    /// URL is set.
    #[must_use]
    pub fn inbox_link(&self, principal: &str, call_id: &str) -> Option<String> {
        let base = self.inbox.as_deref()?;
        let query =
            serde_urlencoded::to_string([("principal", principal), ("call_id", call_id)]).ok()?;
        let separator = if base.contains('?') { '&' } else { '?' };
        Some(format!("{base}{separator}{query}"))
    }
}

/// Whether a client's capabilities declare the extension with toolkit's MIME
/// type.
#[must_use]
pub fn client_supports(capabilities: &rmcp::model::ClientCapabilities) -> bool {
    capabilities
        .extensions
        .as_ref()
        .and_then(|extensions| extensions.get(EXTENSION))
        .and_then(|settings| settings.get("mimeTypes"))
        .and_then(serde_json::Value::as_array)
        .is_some_and(|types| types.iter().any(|kind| kind.as_str() == Some(MIME_TYPE)))
}

#[cfg(test)]
mod tests;
