//! What the server adds for a client that declared the extension: the cards'
//! metadata on `tools/list`, the app-only tools, the cards as resources, and the
//! confirmation beside a preview. It translates; the rules are the view's
//! ([`View::confirm`](crate::View::confirm), [`View::reaches`](crate::View::reaches))
//! and the approvals' ([`Approvals::confirmation`](crate::approval::Approvals::confirmation),
//! [`Approvals::status`](crate::approval::Approvals::status)).

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, CreateTaskResult, MetaObject, ResourceContents,
    ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::cards::{approval_card, preview_card};
use super::{
    APPROVAL_CARD, Apps, CONFIRM_TOOL, Confirmation, EXTENSION, META_CONFIRMATION, MIME_TYPE,
    PREVIEW_CARD, STATUS_TOOL, ToolUi, UiResource, client_supports,
};
use crate::approval::{CallState, PendingApproval};
use crate::declaration::Tier;
use crate::error::ToolError;
use crate::mcp::result::{META_PENDING_APPROVAL, call_result};
use crate::mcp::{Grant, ToolSet};
use crate::response::Response;

/// A server's Apps settings, for a request whose client declared the extension.
#[derive(Clone, Copy, Debug)]
pub(in crate::mcp) struct AppsOn<'a>(&'a Apps);

impl<'a> AppsOn<'a> {
    /// `apps`, when the request's client declared the extension; `None` for every
    /// other client, which is served as if the server had no Apps.
    pub(in crate::mcp) fn of(
        apps: Option<&'a Apps>,
        context: &RequestContext<RoleServer>,
    ) -> Option<Self> {
        let apps = apps?;
        context
            .client_capabilities()
            .is_some_and(|capabilities| client_supports(&capabilities))
            .then_some(AppsOn(apps))
    }
}

/// The arguments of [`CONFIRM_TOOL`].
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ConfirmArguments {
    /// The confirmation the preview came with (`_meta["toolkit/confirmation"]`).
    confirmation: Confirmation,
}

/// The arguments of [`STATUS_TOOL`].
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StatusArguments {
    /// The call id of the pending approval (`_meta["toolkit/pending_approval"].call_id`),
    /// which is also the id of the task made for it for a client with tasks.
    call_id: String,
}

/// What [`STATUS_TOOL`] answers: one `approve` call as the approval card shows it.
#[derive(Debug, Serialize)]
struct CardStatus<'a> {
    /// `waiting`, `approved`, `running`, `ran`, `failed`, `denied`, `expired`,
    /// `withdrawn` or `not_run`.
    state: &'static str,
    /// Whether the call's life is over (the card stops reading).
    #[serde(rename = "final")]
    is_final: bool,
    tool: &'a str,
    /// The requester's principal key (`issuer|subject[|tenant]`), as the inbox
    /// link names it.
    principal: &'a str,
    /// The requester as a person reads it ([`Principal::display_name`](crate::Principal::display_name)):
    /// `name` is the text the card shows.
    requester: crate::principal::DisplayName<'a>,
    arguments: &'a Value,
    requested_at: u64,
    expires_at: u64,
    /// The result, once it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    /// Why it failed or will not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    /// Where the approver decides it.
    #[serde(skip_serializing_if = "Option::is_none")]
    inbox_url: Option<String>,
}

/// The extension's settings a server declares.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExtensionSettings {
    mime_types: [&'static str; 1],
}

/// A resource as `resources/list` shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed<'a> {
    uri: &'a str,
    name: &'a str,
    description: &'a str,
    mime_type: &'a str,
}

/// A resource's content as `resources/read` returns it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Content<'a> {
    uri: &'a str,
    mime_type: &'a str,
    text: &'a str,
    #[serde(rename = "_meta")]
    meta: UiMeta<'a>,
}

#[derive(Serialize)]
struct UiMeta<'a> {
    ui: &'a super::ResourceUi,
}

/// Which cards the caller's tools have: the preview card where a `confirm` tool
/// is, the approval card where an `approve` tool is, both only for a set with
/// approvals (whose key signs confirmations and whose store knows the calls),
/// and neither when a tool of the set already has the app-only tool's name (the
/// set's tool is what that name calls).
fn cards(tools: &dyn ToolSet) -> (bool, bool) {
    if tools.approvals().is_none() {
        return (false, false);
    }
    let (mut preview, mut approval) = (false, false);
    for tool in tools.tools() {
        match tool.tier {
            Tier::Confirm => preview = true,
            Tier::Approve => approval = true,
            Tier::Auto => {}
        }
    }
    (
        preview && tools.get(CONFIRM_TOOL).is_none(),
        approval && tools.get(STATUS_TOOL).is_none(),
    )
}

/// Declares the extension and resources in the server's capabilities.
pub(in crate::mcp) fn declare(capabilities: &mut ServerCapabilities) {
    capabilities.resources = Some(rmcp::model::ResourcesCapability::default());
    let settings = ExtensionSettings {
        mime_types: [MIME_TYPE],
    };
    if let Ok(Value::Object(settings)) = serde_json::to_value(settings) {
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(EXTENSION.to_owned(), settings);
    }
}

/// `tools/list` for a client with Apps: each `confirm` and `approve` tool with
/// its card, and the app-only tools its cards call.
pub(in crate::mcp) fn list_tools(
    _apps: AppsOn<'_>,
    grant: &Grant,
    tools: &mut Vec<rmcp::model::Tool>,
) {
    let (preview, approval) = cards(grant.tools());
    for entry in tools.iter_mut() {
        let Some(tool) = grant.tools().get(&entry.name) else {
            continue;
        };
        let uri = match tool.tier {
            Tier::Confirm if preview => PREVIEW_CARD,
            Tier::Approve if approval => APPROVAL_CARD,
            _ => continue,
        };
        set_ui(entry, &ToolUi::card(uri));
    }
    if preview {
        tools.push(app_tool(
            CONFIRM_TOOL,
            "Runs the call a person confirmed on the preview card, exactly as previewed, once.",
            &schemars::schema_for!(ConfirmArguments),
            PREVIEW_CARD,
        ));
    }
    if approval {
        tools.push(app_tool(
            STATUS_TOOL,
            "Reads where an `approve` call is: waiting, approved, ran, denied, expired.",
            &schemars::schema_for!(StatusArguments),
            APPROVAL_CARD,
        ));
    }
}

fn set_ui(entry: &mut rmcp::model::Tool, ui: &ToolUi) {
    let Ok(ui) = serde_json::to_value(ui) else {
        return;
    };
    entry
        .meta
        .get_or_insert_with(|| MetaObject(serde_json::Map::new()))
        .0
        .insert("ui".to_owned(), ui);
}

fn app_tool(
    name: &'static str,
    description: &'static str,
    schema: &schemars::Schema,
    card: &'static str,
) -> rmcp::model::Tool {
    let schema = match schema.as_value() {
        Value::Object(schema) => schema.clone(),
        _ => serde_json::Map::new(),
    };
    let mut tool = rmcp::model::Tool::new(
        Cow::Borrowed(name),
        Cow::Borrowed(description),
        Arc::new(schema),
    );
    set_ui(&mut tool, &ToolUi::app_only(card));
    tool
}

/// Answers a call of an app-only tool, or `None` when `request` names none the
/// caller's cards have (it is then an ordinary call).
pub(in crate::mcp) async fn call_app_tool(
    apps: AppsOn<'_>,
    grant: &Grant,
    request: &CallToolRequestParams,
) -> Option<CallToolResult> {
    let (preview, approval) = cards(grant.tools());
    let response = match &*request.name {
        CONFIRM_TOOL if preview => confirm(grant, request).await,
        STATUS_TOOL if approval => return Some(status(apps, grant, request).await),
        _ => return None,
    };
    Some(call_result(response))
}

fn arguments<T: for<'de> Deserialize<'de>>(
    request: &CallToolRequestParams,
) -> Result<T, ToolError> {
    let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
    serde_path_to_error::deserialize(arguments).map_err(|error| {
        ToolError::invalid_arguments(error.path().to_string(), error.inner().to_string())
    })
}

async fn confirm(grant: &Grant, request: &CallToolRequestParams) -> Response {
    match arguments::<ConfirmArguments>(request) {
        Ok(ConfirmArguments { confirmation }) => {
            grant.tools().confirm(&confirmation, grant.context()).await
        }
        Err(error) => Response::Error(error),
    }
}

async fn status(
    apps: AppsOn<'_>,
    grant: &Grant,
    request: &CallToolRequestParams,
) -> CallToolResult {
    let call_id = match arguments::<StatusArguments>(request) {
        Ok(StatusArguments { call_id }) => call_id,
        Err(error) => return call_result(Response::Error(error)),
    };
    let Some((approvals, principal)) = grant.tools().approvals() else {
        return call_result(Response::Error(
            crate::approval::ApprovalError::NotConfigured.into(),
        ));
    };
    let found = match approvals.status(principal, &call_id).await {
        Ok(found) => found,
        Err(error) => return call_result(Response::Error(error.into())),
    };
    // Only calls this view reaches: a narrower token of the same user learns
    // nothing of a call it could not make, exactly as if there were none.
    let Some(status) = found.filter(|status| grant.tools().reaches(&status.pending)) else {
        return call_result(Response::Error(ToolError::failed(format!(
            "no call `{}` waits here",
            crate::echo::echo(&call_id)
        ))));
    };
    let (state, result, message) = match &status.state {
        CallState::Waiting { .. } => ("waiting", None, None),
        CallState::Approved => ("approved", None, None),
        CallState::Running { .. } | CallState::Retrying { .. } => ("running", None, None),
        CallState::Ran(result) => ("ran", result.as_ref(), None),
        CallState::Failed { message, .. } => ("failed", None, Some(message.as_str())),
        CallState::NotRun { kind, message } => (
            match kind.as_str() {
                "denied" => "denied",
                "expired" => "expired",
                _ => "not_run",
            },
            None,
            Some(message.as_str()),
        ),
        CallState::Withdrawn => ("withdrawn", None, None),
    };
    let card = CardStatus {
        state,
        is_final: status.state.is_final(),
        tool: &status.pending.tool,
        principal: status.pending.principal.key(),
        requester: status.pending.principal.display_name(),
        arguments: &status.pending.arguments,
        requested_at: status.pending.requested_at,
        expires_at: status.pending.expires_at,
        result,
        message,
        inbox_url: apps
            .0
            .inbox_link(status.pending.principal.key(), &status.pending.call_id),
    };
    match serde_json::to_value(&card) {
        Ok(value) => CallToolResult::structured(value),
        Err(error) => call_result(Response::Error(ToolError::failed(error))),
    }
}

/// The result of an ordinary call: today's, and for a client with Apps a
/// preview also carries its [`Confirmation`] under [`META_CONFIRMATION`].
pub(in crate::mcp) async fn result_for(
    apps: Option<AppsOn<'_>>,
    grant: &Grant,
    request: &CallToolRequestParams,
    response: Response,
) -> CallToolResult {
    let confirmation = match (&response, apps) {
        (Response::Preview(_), Some(_)) if cards(grant.tools()).0 => {
            confirmation_for(grant, request).await
        }
        _ => None,
    };
    let mut result = call_result(response);
    if let Some(confirmation) = confirmation
        && let Ok(confirmation) = serde_json::to_value(confirmation)
    {
        result
            .meta
            .get_or_insert_with(|| MetaObject(serde_json::Map::new()))
            .0
            .insert(META_CONFIRMATION.to_owned(), confirmation);
    }
    result
}

/// The task made for a pending `approve` call, for a client that declared both
/// Apps and tasks: it also carries the pending approval under
/// [`META_PENDING_APPROVAL`], as the pending result would have, so the approval
/// card learns the call it follows. The task id is that call id too, and the card
/// reads the call's state with [`STATUS_TOOL`] through the same view check either
/// way. Other clients' tasks are left as they are.
pub(in crate::mcp) fn task_created(
    apps: Option<AppsOn<'_>>,
    grant: &Grant,
    pending: &PendingApproval,
    created: &mut CreateTaskResult,
) {
    if apps.is_none() || !cards(grant.tools()).1 {
        return;
    }
    let Ok(detail) = serde_json::to_value(pending) else {
        return;
    };
    created
        .meta
        .get_or_insert_with(|| MetaObject(serde_json::Map::new()))
        .0
        .insert(META_PENDING_APPROVAL.to_owned(), detail);
}

/// The confirmation of the previewed call `request`: its arguments without
/// `confirmed`, for the view's principal.
async fn confirmation_for(grant: &Grant, request: &CallToolRequestParams) -> Option<Confirmation> {
    let tool = grant.tools().get(&request.name)?;
    if tool.tier != Tier::Confirm || tool.name != request.name {
        return None;
    }
    let (approvals, principal) = grant.tools().approvals()?;
    let mut arguments = request.arguments.clone().unwrap_or_default();
    arguments.remove("confirmed");
    approvals
        .confirmation(principal, tool.name, Value::Object(arguments))
        .await
        .map_err(|error| tracing::warn!(%error, "a preview's confirmation was not issued"))
        .ok()
}

/// The cards the caller's tools have, for `resources/list` (none for a client
/// without Apps).
pub(in crate::mcp) fn list_resources(
    apps: Option<AppsOn<'_>>,
    grant: &Grant,
) -> Vec<rmcp::model::Resource> {
    if apps.is_none() {
        return Vec::new();
    }
    resources(grant)
        .filter_map(|card| {
            let listed = Listed {
                uri: card.uri,
                name: card.name,
                description: card.description,
                mime_type: MIME_TYPE,
            };
            serde_json::to_value(listed)
                .and_then(serde_json::from_value)
                .map_err(|error| tracing::error!(%error, "a card does not fit rmcp's resource"))
                .ok()
        })
        .collect()
}

/// `resources/read` of a card the caller's tools have.
pub(in crate::mcp) fn read_resource(
    apps: Option<AppsOn<'_>>,
    grant: &Grant,
    uri: &str,
) -> Result<rmcp::model::ReadResourceResult, ErrorData> {
    let card = apps
        .and_then(|_| resources(grant).find(|card| card.uri == uri))
        .ok_or_else(|| {
            ErrorData::resource_not_found(
                format!("no resource `{}` here", crate::echo::echo(uri)),
                None,
            )
        })?;
    let content = Content {
        uri: card.uri,
        mime_type: MIME_TYPE,
        text: &card.html,
        meta: UiMeta { ui: &card.ui },
    };
    let content: ResourceContents = serde_json::to_value(content)
        .and_then(serde_json::from_value)
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
    Ok(rmcp::model::ReadResourceResult::new(vec![content]))
}

fn resources(grant: &Grant) -> impl Iterator<Item = &'static UiResource> {
    let (preview, approval) = cards(grant.tools());
    [preview.then(preview_card), approval.then(approval_card)]
        .into_iter()
        .flatten()
}
