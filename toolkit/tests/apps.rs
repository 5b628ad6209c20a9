//! MCP Apps as a host meets them: the cards listed and read where their tools
//! are, a preview confirmed once through the app-only tool, an approval's state
//! read and never decided, every forged path refused, and a client without the
//! extension served exactly as by a server without Apps.
//!
//! A binary of its own: its `#[tool]` functions are its registry's tools.

#![cfg(feature = "mcp")]
// The tools are `async`, as most real tools are, though these never await.
#![allow(clippy::unused_async)]

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use toolkit::approval::{ApprovalKey, Approvals, Decision, MemoryApprovalStore};
use toolkit::call::CallId;
use toolkit::mcp::apps::{
    APPROVAL_CARD, Apps, CONFIRM_TOOL, EXTENSION, MIME_TYPE, PREVIEW_CARD, STATUS_TOOL,
};
use toolkit::mcp::{AccessError, Caller, Grant, McpHttp};
use toolkit::{Context, Principal, Scope, tool};
use tower::ServiceExt as _;

/// Every run of `delete_pages`, by its ids: each test deletes its own pages, so
/// tests running at once do not see each other's runs.
static DELETED: Mutex<Vec<Vec<u64>>> = Mutex::new(Vec::new());

fn runs_of(ids: &[u64]) -> usize {
    DELETED
        .lock()
        .unwrap()
        .iter()
        .filter(|ran| ran.as_slice() == ids)
        .count()
}

/// Delete pages of the site, by id.
#[tool(scope = shared, tier = confirm)]
async fn delete_pages(
    /// The pages to delete.
    ids: Vec<u64>,
) -> String {
    let count = ids.len();
    DELETED.lock().unwrap().push(ids);
    format!("deleted {count} pages")
}

/// Delete drafts of the site, by id.
#[tool(scope = shared, tier = confirm)]
async fn delete_drafts(
    /// The drafts to delete.
    ids: Vec<u64>,
) -> String {
    format!("deleted {} drafts", ids.len())
}

/// Create a transfer of money to a payee.
#[tool(scope = shared, tier = approve)]
async fn create_transfers(
    /// Cents to move.
    amount: u64,
    /// Who receives it.
    payee: String,
) -> String {
    format!("sent {amount} to {payee}")
}

/// Create a refund of a payment.
#[tool(scope = shared, tier = approve)]
async fn create_refunds(
    /// Cents to give back.
    amount: u64,
) -> String {
    format!("refunded {amount}")
}

/// Get the pages of the site.
#[tool(scope = shared, tier = auto)]
async fn get_pages() -> Vec<u64> {
    vec![1, 2]
}

const START: u64 = 1_800_000_000;

struct World {
    approvals: &'static Approvals,
    now: Arc<AtomicU64>,
    router: axum::Router,
}

/// The view each endpoint's caller gets: `/ann` every tool for `user:ann`,
/// `/bob` every tool for `user:bob`, `/narrow` a narrower token of `user:ann`
/// (no `delete_pages`, no `create_transfers`), `/plain` every tool and no
/// approvals.
fn view(
    approvals: &'static Approvals,
    client: &str,
) -> Result<toolkit::View<'static>, AccessError> {
    let registry = toolkit::registry();
    let view = registry.view().scopes([Scope::Shared]);
    Ok(match client {
        "ann" => view.approvals(approvals, ann()).build()?,
        "bob" => view.approvals(approvals, bob()).build()?,
        "eve" => view.approvals(approvals, eve()).build()?,
        "narrow" => view
            .allow(["get_pages", "delete_drafts", "create_refunds"])
            .approvals(approvals, ann())
            .build()?,
        _ => view.build()?,
    })
}

fn world(apps: bool) -> World {
    world_with(apps, false)
}

/// A world whose server also takes `approve` calls as tasks (SEP-2663) for
/// clients that declare the extension, when `tasks`.
fn world_with(apps: bool, tasks: bool) -> World {
    let now = Arc::new(AtomicU64::new(START));
    let clock = Arc::clone(&now);
    let store = MemoryApprovalStore::new().clock(move || clock.load(Ordering::SeqCst));
    let key = ApprovalKey::new(*b"the apps tests' approval key, 32").unwrap();
    let approvals: &'static Approvals = Box::leak(Box::new(Approvals::new(key, store)));
    let access = move |caller: &Caller<'_>| -> Result<Grant, AccessError> {
        let view = view(approvals, caller.client)?;
        Ok(Grant::new(view, Context::new().with(CallId::new("call_1"))))
    };
    let http = ["ann", "bob", "eve", "narrow", "plain"]
        .into_iter()
        .fold(McpHttp::new(access), |http, client| {
            http.endpoint(client, format!("/{client}"), "secret")
        });
    let http = if apps {
        http.apps(Apps::new().inbox("https://inbox.example/inbox/"))
    } else {
        http
    };
    let http = if tasks {
        http.approvals(*b"the apps tests' request key, 32b")
            .unwrap()
    } else {
        http
    };
    World {
        approvals,
        now,
        router: http.into_router(),
    }
}

/// Whether the client declares the extension.
#[derive(Clone, Copy)]
enum Client {
    WithApps,
    WithoutApps,
    /// Declares both Apps and tasks.
    WithAppsAndTasks,
    /// Declares tasks only.
    WithTasks,
}

impl World {
    /// One stateless (2026-07-28) request to `/{client}`; the whole JSON-RPC answer.
    async fn send(&self, path: &str, client: Client, method: &str, params: Value) -> Value {
        let capabilities = match client {
            Client::WithApps => json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}}),
            Client::WithoutApps => json!({}),
            Client::WithAppsAndTasks => json!({"extensions": {
                EXTENSION: {"mimeTypes": [MIME_TYPE]},
                "io.modelcontextprotocol/tasks": {},
            }}),
            Client::WithTasks => json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
        };
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        let mut request = http::Request::post(format!("/{path}"))
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("authorization", "Bearer secret")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        if let Some(name) = params.get("name").or_else(|| params.get("uri")) {
            request = request.header("mcp-name", name.as_str().unwrap());
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let request = request
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    async fn call(&self, path: &str, client: Client, name: &str, arguments: Value) -> Value {
        let answer = self
            .send(
                path,
                client,
                "tools/call",
                json!({"name": name, "arguments": arguments}),
            )
            .await;
        answer["result"].clone()
    }
}

fn names(listed: &Value) -> Vec<&str> {
    listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

fn tool<'a>(listed: &'a Value, name: &str) -> &'a Value {
    listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap()
}

/// The text a result's first content block says.
fn said(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn a_client_without_the_extension_is_served_exactly_as_without_apps() {
    let without = world(false);
    let with = world(true);
    for (method, params) in [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "delete_pages", "arguments": {"ids": [101]}}),
        ),
        (
            "tools/call",
            json!({"name": "delete_pages", "arguments": {"ids": [102], "confirmed": true}}),
        ),
        (
            "tools/call",
            json!({"name": "create_transfers", "arguments": {"amount": 5, "payee": "Ada"}}),
        ),
        ("tools/call", json!({"name": "get_pages", "arguments": {}})),
        (
            "tools/call",
            json!({"name": CONFIRM_TOOL, "arguments": {"confirmation": {}}}),
        ),
        (
            "tools/call",
            json!({"name": STATUS_TOOL, "arguments": {"call_id": "call_1"}}),
        ),
    ] {
        for path in ["ann", "plain"] {
            assert_eq!(
                with.send(path, Client::WithoutApps, method, params.clone())
                    .await,
                without
                    .send(path, Client::WithoutApps, method, params.clone())
                    .await,
                "{path} {method} {params}"
            );
        }
    }
    // No resources for it: an empty list where Apps are on.
    assert_eq!(
        with.send("ann", Client::WithoutApps, "resources/list", json!({}))
            .await["result"]["resources"],
        json!([])
    );
    let read = with
        .send(
            "ann",
            Client::WithoutApps,
            "resources/read",
            json!({"uri": PREVIEW_CARD}),
        )
        .await;
    assert_eq!(
        read["error"],
        json!({"code": -32602, "message": "no resource `ui://toolkit/preview-card` here"})
    );
    // The app-only tools are unknown to it, as to a server without Apps.
    let unknown = with
        .call("ann", Client::WithoutApps, CONFIRM_TOOL, json!({}))
        .await;
    assert_eq!(unknown["_meta"]["toolkit/error"]["kind"], "unknown_tool");
}

#[tokio::test]
async fn a_client_with_the_extension_sees_the_cards_where_their_tools_are() {
    let world = world(true);
    let listed = world
        .send("ann", Client::WithApps, "tools/list", json!({}))
        .await;
    assert_eq!(
        names(&listed),
        [
            "create_refunds",
            "create_transfers",
            "delete_drafts",
            "delete_pages",
            "get_pages",
            CONFIRM_TOOL,
            STATUS_TOOL
        ]
    );
    assert_eq!(
        tool(&listed, "delete_pages")["_meta"]["ui"],
        json!({"resourceUri": PREVIEW_CARD})
    );
    assert_eq!(
        tool(&listed, "create_transfers")["_meta"]["ui"],
        json!({"resourceUri": APPROVAL_CARD})
    );
    assert_eq!(tool(&listed, "get_pages")["_meta"].get("ui"), None);
    assert_eq!(
        tool(&listed, CONFIRM_TOOL)["_meta"],
        json!({"ui": {"resourceUri": PREVIEW_CARD, "visibility": ["app"]}})
    );
    assert_eq!(
        tool(&listed, STATUS_TOOL)["_meta"],
        json!({"ui": {"resourceUri": APPROVAL_CARD, "visibility": ["app"]}})
    );
    // Without `_meta.ui`, the tools are as a client without Apps sees them.
    let plain = world
        .send("ann", Client::WithoutApps, "tools/list", json!({}))
        .await;
    for name in ["delete_pages", "create_transfers", "get_pages"] {
        let mut entry = tool(&listed, name).clone();
        entry["_meta"].as_object_mut().unwrap().remove("ui");
        assert_eq!(&entry, tool(&plain, name));
    }

    let resources = world
        .send("ann", Client::WithApps, "resources/list", json!({}))
        .await;
    assert_eq!(
        resources["result"]["resources"],
        json!([
            {"uri": PREVIEW_CARD, "name": "toolkit_preview_card", "mimeType": MIME_TYPE,
             "description": "The preview of a `confirm` tool's call, with Confirm and Cancel."},
            {"uri": APPROVAL_CARD, "name": "toolkit_approval_card", "mimeType": MIME_TYPE,
             "description": "An `approve` tool's call waiting for a person: what, for whom, until when, and its state."},
        ])
    );
    let read = world
        .send(
            "ann",
            Client::WithApps,
            "resources/read",
            json!({"uri": APPROVAL_CARD}),
        )
        .await;
    let content = &read["result"]["contents"][0];
    assert_eq!(content["uri"], APPROVAL_CARD);
    assert_eq!(content["mimeType"], MIME_TYPE);
    assert_eq!(
        content["_meta"],
        json!({"ui": {"csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}, "prefersBorder": true}})
    );
    assert!(
        content["text"]
            .as_str()
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );

    // A narrower view: only the cards of its tools, and no app-only tool for a
    // card it lacks.
    let narrow = world
        .send("narrow", Client::WithApps, "tools/list", json!({}))
        .await;
    assert_eq!(
        names(&narrow),
        [
            "create_refunds",
            "delete_drafts",
            "get_pages",
            CONFIRM_TOOL,
            STATUS_TOOL
        ]
    );
    // A view without approvals has no cards at all: nothing can be confirmed
    // or read through it.
    let plain = world
        .send("plain", Client::WithApps, "tools/list", json!({}))
        .await;
    assert_eq!(
        names(&plain),
        [
            "create_refunds",
            "create_transfers",
            "delete_drafts",
            "delete_pages",
            "get_pages"
        ]
    );
    assert!(
        plain["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|tool| tool["_meta"].get("ui").is_none())
    );
    assert_eq!(
        world
            .send("plain", Client::WithApps, "resources/list", json!({}))
            .await["result"]["resources"],
        json!([])
    );
    let unread = world
        .send(
            "plain",
            Client::WithApps,
            "resources/read",
            json!({"uri": PREVIEW_CARD}),
        )
        .await;
    assert_eq!(
        unread["error"],
        json!({"code": -32602, "message": "no resource `ui://toolkit/preview-card` here"})
    );
}

/// The model's preview call, as a host with Apps gets it: today's preview and,
/// beside it, the confirmation the card hands back.
async fn preview(world: &World, path: &str, ids: &[u64]) -> (Value, Value) {
    let result = world
        .call(path, Client::WithApps, "delete_pages", json!({"ids": ids}))
        .await;
    let confirmation = result["_meta"]["toolkit/confirmation"].clone();
    (result, confirmation)
}

#[tokio::test]
async fn confirm_runs_exactly_the_previewed_call_once() {
    let world = world(true);
    let (result, confirmation) = preview(&world, "ann", &[201, 202]).await;
    let body = json!({
        "requires_confirmation": true,
        "message": "`delete_pages` has not run; call it again with `confirmed: true` to proceed",
        "items": [{"ids": [201, 202]}],
    });
    assert_eq!(result["_meta"]["toolkit/preview"], body);
    assert_eq!(said(&result), body.to_string());
    assert_eq!(confirmation["principal"], ann().key());
    assert_eq!(confirmation["tool"], "delete_pages");
    assert_eq!(confirmation["arguments"], json!({"ids": [201, 202]}));
    assert_eq!(confirmation["issued_at"], START);
    assert_eq!(confirmation["expires_at"], START + 600);
    assert_eq!(runs_of(&[201, 202]), 0, "a preview runs nothing");

    let confirmed = world
        .call(
            "ann",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": confirmation}),
        )
        .await;
    assert_eq!(confirmed["isError"], false, "{confirmed}");
    assert_eq!(said(&confirmed), "deleted 2 pages");
    assert_eq!(runs_of(&[201, 202]), 1);

    // Twice: refused, and it ran once.
    let again = world
        .call(
            "ann",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": confirmation}),
        )
        .await;
    assert_eq!(
        said(&again),
        "the approval was refused: it was already used, and an approved call runs once; nothing ran"
    );
    assert_eq!(runs_of(&[201, 202]), 1);
}

#[tokio::test]
async fn a_confirmation_with_changed_arguments_runs_nothing() {
    let world = world(true);
    let (_, confirmation) = preview(&world, "ann", &[301]).await;
    let mut changed = confirmation.clone();
    changed["arguments"] = json!({"ids": [301, 302, 303]});
    let refused = world
        .call(
            "ann",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": changed}),
        )
        .await;
    assert_eq!(refused["isError"], true);
    assert_eq!(
        said(&refused),
        "the approval was refused: the arguments do not match the approved digest; nothing ran"
    );
    // With the digest changed too, the signature no longer matches.
    changed["digest"] = json!(toolkit::approval::digest(&changed["arguments"]));
    let refused = world
        .call(
            "ann",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": changed}),
        )
        .await;
    assert_eq!(
        said(&refused),
        "the approval was refused: its signature does not match (forged or altered); nothing ran"
    );
    assert_eq!(runs_of(&[301, 302, 303]), 0);
    assert_eq!(runs_of(&[301]), 0);
    // The untouched confirmation still runs, once.
    let confirmed = world
        .call(
            "ann",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": confirmation}),
        )
        .await;
    assert_eq!(said(&confirmed), "deleted 1 pages");
    assert_eq!(runs_of(&[301]), 1);
}

#[tokio::test]
async fn an_expired_confirmation_runs_nothing() {
    let world = world(true);
    let (_, confirmation) = preview(&world, "ann", &[401]).await;
    world.now.store(START + 601, Ordering::SeqCst);
    let refused = world
        .call(
            "ann",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": confirmation}),
        )
        .await;
    assert_eq!(
        said(&refused),
        format!(
            "the approval was refused: it expired at {} (Unix seconds); nothing ran",
            START + 600
        )
    );
    assert_eq!(runs_of(&[401]), 0);
}

#[tokio::test]
async fn another_principal_or_a_narrower_view_cannot_confirm() {
    let world = world(true);
    let (_, confirmation) = preview(&world, "ann", &[501]).await;
    // Bob holds Ann's confirmation.
    let refused = world
        .call(
            "bob",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": confirmation}),
        )
        .await;
    assert_eq!(
        said(&refused),
        "the approval was refused: it was issued for another principal; nothing ran"
    );
    // Bob rewrites it as his: the signature says no.
    let mut bobs = confirmation.clone();
    bobs["principal"] = json!(bob().key());
    let refused = world
        .call(
            "bob",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": bobs}),
        )
        .await;
    assert_eq!(
        said(&refused),
        "the approval was refused: its signature does not match (forged or altered); nothing ran"
    );
    // A narrower token of Ann's, without `delete_pages`: the tool is unknown to it.
    let refused = world
        .call(
            "narrow",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": confirmation}),
        )
        .await;
    assert_eq!(refused["_meta"]["toolkit/error"]["kind"], "unknown_tool");
    assert!(
        said(&refused).starts_with("unknown tool `delete_pages`"),
        "{refused}"
    );
    assert_eq!(runs_of(&[501]), 0);
    // Ann's own view still can, once: every refusal above used nothing up.
    let confirmed = world
        .call(
            "ann",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": confirmation}),
        )
        .await;
    assert_eq!(said(&confirmed), "deleted 1 pages");
    assert_eq!(runs_of(&[501]), 1);
}

#[tokio::test]
async fn malformed_confirmations_are_invalid_arguments() {
    let world = world(true);
    let refused = world
        .call(
            "ann",
            Client::WithApps,
            CONFIRM_TOOL,
            json!({"confirmation": {"id": 7}}),
        )
        .await;
    assert_eq!(refused["isError"], true);
    assert_eq!(
        refused["_meta"]["toolkit/error"]["kind"],
        "invalid_arguments"
    );
    let refused = world
        .call("ann", Client::WithApps, STATUS_TOOL, json!({"call": "x"}))
        .await;
    assert_eq!(
        refused["_meta"]["toolkit/error"]["kind"],
        "invalid_arguments"
    );
}

#[tokio::test]
async fn the_approval_card_reads_the_state_and_never_decides() {
    let world = world(true);
    let pending = world
        .call(
            "ann",
            Client::WithApps,
            "create_transfers",
            json!({"amount": 700, "payee": "Ada <b>&</b>\u{202E}"}),
        )
        .await;
    let detail = &pending["_meta"]["toolkit/pending_approval"];
    assert_eq!(detail["call_id"], "call_1");
    let status = |path: &'static str| {
        let world = &world;
        async move {
            world
                .call(
                    path,
                    Client::WithApps,
                    STATUS_TOOL,
                    json!({"call_id": "call_1"}),
                )
                .await
        }
    };
    let waiting = status("ann").await;
    assert_eq!(
        waiting["structuredContent"],
        json!({
            "state": "waiting",
            "final": false,
            "tool": "create_transfers",
            "principal": ann().key(),
            "requester": {"name": "ann", "subject": "ann"},
            "arguments": {"amount": 700, "payee": "Ada <b>&</b>\u{202E}"},
            "requested_at": START,
            "expires_at": START + 24 * 3600,
            "inbox_url": "https://inbox.example/inbox/?principal=local%7Cann&call_id=call_1",
        })
    );
    // Reading decides nothing, however often.
    assert_eq!(status("ann").await["structuredContent"]["state"], "waiting");
    let stored = world
        .approvals
        .status(&ann(), "call_1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stored.state,
        toolkit::approval::CallState::Waiting {
            requester_decides: false
        }
    );
    // Another principal, and a narrower token of Ann's, learn nothing of it.
    for path in ["bob", "narrow"] {
        let hidden = status(path).await;
        assert_eq!(said(&hidden), "no call `call_1` waits here", "{path}");
        assert_eq!(hidden["isError"], true);
    }

    // The approver decides in the inbox; Ann's next run of it (a runner) runs it.
    let pending: toolkit::approval::PendingApproval =
        serde_json::from_value(detail.clone()).unwrap();
    world
        .approvals
        .decide_as(toolkit::registry(), &pending, Decision::Approve, &owner())
        .await
        .unwrap();
    assert_eq!(
        status("ann").await["structuredContent"]["state"],
        "approved"
    );
    let view = view(world.approvals, "ann").unwrap();
    let ctx = Context::new();
    world.approvals.run_approved(&view, &ctx, &pending).await;
    let ran = status("ann").await["structuredContent"].clone();
    assert_eq!(ran["state"], "ran");
    assert_eq!(ran["final"], true);
    assert_eq!(ran["result"], json!("sent 700 to Ada <b>&</b>\u{202E}"));
    assert_eq!(ran.get("message"), None);
}

#[tokio::test]
async fn an_apps_and_tasks_client_gets_a_task_the_approval_card_follows() {
    let world = world_with(true, true);
    let arguments = json!({"amount": 700, "payee": "Ada"});
    let task = world
        .call(
            "ann",
            Client::WithAppsAndTasks,
            "create_transfers",
            arguments.clone(),
        )
        .await;
    assert_eq!(task["resultType"], "task");
    assert_eq!(task["taskId"], "call_1");
    assert_eq!(task["status"], "input_required");
    // The task carries the call as a pending result would, for the card.
    let detail = &task["_meta"]["toolkit/pending_approval"];
    assert_eq!(detail["call_id"], "call_1");
    assert_eq!(detail["tool"], "create_transfers");
    assert_eq!(detail["arguments"], arguments);
    let pending: toolkit::approval::PendingApproval =
        serde_json::from_value(detail.clone()).unwrap();
    // The card reads the call by the task id, through the same view check.
    let status = |path: &'static str| {
        let world = &world;
        async move {
            world
                .call(
                    path,
                    Client::WithAppsAndTasks,
                    STATUS_TOOL,
                    json!({"call_id": "call_1"}),
                )
                .await
        }
    };
    assert_eq!(status("ann").await["structuredContent"]["state"], "waiting");
    for path in ["bob", "narrow"] {
        assert_eq!(
            said(&status(path).await),
            "no call `call_1` waits here",
            "{path}"
        );
    }
    world
        .approvals
        .decide_as(toolkit::registry(), &pending, Decision::Approve, &owner())
        .await
        .unwrap();
    let view = view(world.approvals, "ann").unwrap();
    world
        .approvals
        .run_approved(&view, &Context::new(), &pending)
        .await;
    let ran = status("ann").await["structuredContent"].clone();
    assert_eq!(ran["state"], "ran");
    assert_eq!(ran["result"], json!("sent 700 to Ada"));
}

#[tokio::test]
async fn a_client_with_tasks_but_without_apps_gets_todays_task() {
    // The same call by a tasks-only client, on a server with Apps and without:
    // the same task, with no `_meta`.
    let mut answers = Vec::new();
    for apps in [true, false] {
        let world = world_with(apps, true);
        let task = world
            .call(
                "ann",
                Client::WithTasks,
                "create_transfers",
                json!({"amount": 700, "payee": "Ada"}),
            )
            .await;
        assert_eq!(task["taskId"], "call_1");
        assert_eq!(task.get("_meta"), None);
        answers.push(task);
    }
    assert_eq!(answers[0], answers[1]);
}

#[tokio::test]
async fn the_approval_card_shows_a_denial_and_an_expiry() {
    let world = world(true);
    let pending = world
        .call(
            "ann",
            Client::WithApps,
            "create_transfers",
            json!({"amount": 800, "payee": "Bo"}),
        )
        .await;
    let pending: toolkit::approval::PendingApproval =
        serde_json::from_value(pending["_meta"]["toolkit/pending_approval"].clone()).unwrap();
    world
        .approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Deny("not this month".to_owned()),
            &owner(),
        )
        .await
        .unwrap();
    let denied = world
        .call(
            "ann",
            Client::WithApps,
            STATUS_TOOL,
            json!({"call_id": "call_1"}),
        )
        .await;
    assert_eq!(denied["structuredContent"]["state"], "denied");
    assert_eq!(denied["structuredContent"]["final"], true);

    let world = self::world(true);
    world
        .call(
            "ann",
            Client::WithApps,
            "create_transfers",
            json!({"amount": 900, "payee": "Cy"}),
        )
        .await;
    world.now.store(START + 24 * 3600 + 1, Ordering::SeqCst);
    let expired = world
        .call(
            "ann",
            Client::WithApps,
            STATUS_TOOL,
            json!({"call_id": "call_1"}),
        )
        .await;
    assert_eq!(expired["structuredContent"]["state"], "expired");
    assert_eq!(expired["structuredContent"]["final"], true);
}

/// Over stdio (the handshake revision: the client declares the extension in
/// `initialize`), with raw JSON-RPC lines as a host writes them.
#[tokio::test]
async fn over_stdio_a_client_declaring_the_extension_gets_the_cards_and_others_do_not() {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};

    async fn session(declares: bool) -> (Value, Value, Value) {
        let world = world(true);
        let approvals = world.approvals;
        let access = move |_: &Caller<'_>| -> Result<Grant, AccessError> {
            Ok(Grant::new(view(approvals, "ann")?, Context::new()))
        };
        let server = toolkit::mcp::McpServer::new("ann", access).apps(Apps::new());
        let (client_side, server_side) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_side);
        let serving = tokio::spawn(async move {
            let running = rmcp::ServiceExt::serve(server, (server_read, server_write))
                .await
                .unwrap();
            let _ = running.waiting().await;
        });
        let (client_read, mut client_write) = tokio::io::split(client_side);
        let mut lines = tokio::io::BufReader::new(client_read).lines();
        let capabilities = if declares {
            json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}})
        } else {
            json!({})
        };
        let mut exchange = async |message: Value| -> Option<Value> {
            let mut line = message.to_string();
            line.push('\n');
            client_write.write_all(line.as_bytes()).await.unwrap();
            message.get("id")?;
            let answer = lines.next_line().await.unwrap().unwrap();
            Some(serde_json::from_str(&answer).unwrap())
        };
        let initialized = exchange(json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": "host", "version": "1"},
            },
        }))
        .await
        .unwrap();
        exchange(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        let listed = exchange(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
            .await
            .unwrap();
        let read = exchange(json!({
            "jsonrpc": "2.0", "id": 3, "method": "resources/read",
            "params": {"uri": PREVIEW_CARD},
        }))
        .await
        .unwrap();
        drop(client_write);
        serving.abort();
        (initialized, listed, read)
    }

    let (initialized, listed, read) = session(true).await;
    let capabilities = &initialized["result"]["capabilities"];
    assert_eq!(
        capabilities["extensions"][EXTENSION],
        json!({"mimeTypes": [MIME_TYPE]})
    );
    assert_eq!(capabilities["resources"], json!({}));
    assert!(names(&listed).contains(&CONFIRM_TOOL));
    assert_eq!(
        tool(&listed, "delete_pages")["_meta"]["ui"],
        json!({"resourceUri": PREVIEW_CARD})
    );
    assert_eq!(read["result"]["contents"][0]["mimeType"], MIME_TYPE);

    let (_, listed, read) = session(false).await;
    assert!(!names(&listed).contains(&CONFIRM_TOOL));
    assert!(
        listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|tool| tool["_meta"].get("ui").is_none())
    );
    // The 2025-11-25 revision's code for an unknown resource (rmcp answers
    // 2026-07-28 requests with -32602).
    assert_eq!(
        read["error"],
        json!({"code": -32002, "message": "no resource `ui://toolkit/preview-card` here"})
    );
}

/// Waits (20 s at most) until the text of `css` in the card's frame starts with
/// `start`; the text it had last otherwise.
async fn text_starting(client: &fantoccini::Client, css: &str, start: &str) -> String {
    let mut last = String::new();
    for _ in 0..100 {
        if let Ok(element) = client.find(fantoccini::Locator::Css(css)).await {
            last = element.text().await.unwrap_or_default();
            if last.starts_with(start) {
                return last;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    panic!("`{css}` never said `{start}…`; it said `{last}`")
}

/// The world's server with the test host page (`tests/apps/host.html`) at
/// `/host`, on a free loopback port: the port and the server's task.
async fn serve_host(world: &World) -> (u16, tokio::task::JoinHandle<std::io::Result<()>>) {
    let page = include_str!("apps/host.html");
    let router = world.router.clone().route(
        "/host",
        axum::routing::get(move || async move { axum::response::Html(page) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    (
        port,
        tokio::spawn(async move { axum::serve(listener, router).await }),
    )
}

/// Another person (the owner) approves `requester`'s `call_1` in the inbox's
/// place, and a runner runs it with the view of the endpoint `client`.
async fn approve_as_owner_and_run(world: &World, requester: &Principal, client: &str) {
    let status = world
        .approvals
        .status(requester, "call_1")
        .await
        .unwrap()
        .unwrap();
    world
        .approvals
        .decide_as(
            toolkit::registry(),
            &status.pending,
            Decision::Approve,
            &owner(),
        )
        .await
        .unwrap();
    let view = view(world.approvals, client).unwrap();
    world
        .approvals
        .run_approved(&view, &Context::new(), &status.pending)
        .await;
}

/// A host in a real browser (Debian's Chromium): `tests/apps/host.html`, a
/// minimal SEP-1865 host, renders each card in a sandboxed frame from the real
/// server's `resources/read`, and proxies its calls. The preview card confirms
/// once; the approval card shows the waiting call with its hostile payee inert,
/// opens the inbox, and turns to "ran" without a reload once an approver decides
/// and the call runs. Screenshots go to `target/inbox-screenshots/`.
#[tokio::test(flavor = "multi_thread")]
async fn a_host_in_chromium_renders_both_cards_and_confirm_runs_once() {
    let world = world(true);
    let (port, server) = serve_host(&world).await;
    let Some(browser) = toolkit_test_support::Browser::start("apps", (420, 900)).await else {
        server.abort();
        return;
    };
    let client = &browser.client;
    let host = |tool: &str, arguments: Value| {
        let query = serde_urlencoded::to_string([
            ("endpoint", "/ann"),
            ("tool", tool),
            ("arguments", &arguments.to_string()),
        ])
        .unwrap();
        format!("http://127.0.0.1:{port}/host?{query}")
    };

    // The preview card: the preview, then Confirm runs it once.
    client
        .goto(&host("delete_pages", json!({"ids": [601, 602]})))
        .await
        .unwrap();
    toolkit_test_support::present(client, "iframe#card").await;
    client.enter_frame(0).await.unwrap();
    assert_eq!(
        text_starting(client, "#message", "`delete_pages`").await,
        "`delete_pages` has not run; call it again with `confirmed: true` to proceed"
    );
    assert_eq!(
        text_starting(client, "#items li", "{").await,
        "{\n \"ids\": [\n  601,\n  602\n ]\n}"
    );
    assert_eq!(runs_of(&[601, 602]), 0);
    toolkit_test_support::screenshot(client, "apps-preview-card.png").await;
    toolkit_test_support::click(client, "#confirm").await;
    assert_eq!(
        text_starting(client, "#state", "Done").await,
        "Done: deleted 2 pages"
    );
    assert_eq!(runs_of(&[601, 602]), 1);
    // Nothing left to press.
    assert!(
        !client
            .find(fantoccini::Locator::Css("#confirm"))
            .await
            .unwrap()
            .is_enabled()
            .await
            .unwrap()
    );
    toolkit_test_support::screenshot(client, "apps-preview-card-confirmed.png").await;

    // The approval card: waiting, with the hostile payee as inert text.
    let payee =
        "Ada <b>release</b> it\u{202E}gpj.exe<img src=x onerror=\"parent.document.title='pwned'\">";
    client
        .goto(&host(
            "create_transfers",
            json!({"amount": 700, "payee": payee}),
        ))
        .await
        .unwrap();
    toolkit_test_support::present(client, "iframe#card").await;
    client.enter_frame(0).await.unwrap();
    assert_eq!(
        text_starting(client, "#state", "Waiting").await,
        "Waiting for an approver's decision. Nothing has run."
    );
    let arguments = text_starting(client, "#arguments", "{").await;
    assert!(
        arguments.contains("Ada <b>release</b> itU+202Egpj.exe<img src=x onerror="),
        "{arguments}"
    );
    assert!(
        client
            .find_all(fantoccini::Locator::Css("#arguments b, #arguments img"))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(text_starting(client, "#principal", "ann").await, "ann");
    toolkit_test_support::click(client, "#open").await;
    toolkit_test_support::screenshot(client, "apps-approval-card-waiting.png").await;
    client.enter_parent_frame().await.unwrap();
    assert_eq!(
        text_starting(client, "#opened", "https").await,
        "https://inbox.example/inbox/?principal=local%7Cann&call_id=call_1"
    );
    assert_eq!(client.title().await.unwrap(), "toolkit's test host");

    // Another person approves it in the inbox, and a runner runs it: the card
    // turns to "ran", with the result, without a reload.
    approve_as_owner_and_run(&world, &ann(), "ann").await;
    client.enter_frame(0).await.unwrap();
    let ran = text_starting(client, "#state", "Approved, and it ran.").await;
    assert!(
        ran.contains("Result: sent 700 to Ada <b>release</b>"),
        "{ran}"
    );
    assert_eq!(
        text_starting(client, "h1", "Approved").await,
        "Approved and ran"
    );
    // Its life is over: nothing left to open.
    assert!(
        !client
            .find(fantoccini::Locator::Css("#open"))
            .await
            .unwrap()
            .is_displayed()
            .await
            .unwrap()
    );
    toolkit_test_support::screenshot(client, "apps-approval-card-ran.png").await;
    drop(browser);
    server.abort();
}

/// A host with Apps and tasks in Chromium: the `approve` call becomes a task,
/// the host hands the card that task, and the card follows the call by the task
/// id from waiting to ran, without a reload.
#[tokio::test(flavor = "multi_thread")]
async fn a_host_with_tasks_in_chromium_sees_the_approval_card_turn_to_ran() {
    let world = world_with(true, true);
    let (port, server) = serve_host(&world).await;
    let Some(browser) = toolkit_test_support::Browser::start("apps-tasks", (420, 900)).await else {
        server.abort();
        return;
    };
    let client = &browser.client;
    let query = serde_urlencoded::to_string([
        ("endpoint", "/eve"),
        ("tool", "create_transfers"),
        ("arguments", r#"{"amount":700,"payee":"Ada"}"#),
        ("tasks", "1"),
    ])
    .unwrap();
    client
        .goto(&format!("http://127.0.0.1:{port}/host?{query}"))
        .await
        .unwrap();
    toolkit_test_support::present(client, "iframe#card").await;
    client.enter_frame(0).await.unwrap();
    assert_eq!(
        text_starting(client, "#state", "Waiting").await,
        "Waiting for an approver's decision. Nothing has run."
    );
    // The requester by name, issuer and tenant, the hostile subject as text.
    assert_eq!(
        text_starting(client, "#principal", "Eve").await,
        "Eve <b>x</b>U+202E (signed in with https://id.example), tenant acme"
    );
    assert!(
        client
            .find_all(fantoccini::Locator::Css("#principal b"))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        text_starting(client, "#tool", "create").await,
        "create_transfers"
    );
    // The host got a task for the call, and handed the card that.
    client.enter_parent_frame().await.unwrap();
    assert_eq!(text_starting(client, "#got", "task").await, "task");
    client.enter_frame(0).await.unwrap();
    approve_as_owner_and_run(&world, &eve(), "eve").await;
    let ran = text_starting(client, "#state", "Approved, and it ran.").await;
    assert_eq!(ran, "Approved, and it ran.\nResult: sent 700 to Ada");
    drop(browser);
    server.abort();
}

/// Ann, Bob and the owner who decides, as the application names its local users.
fn ann() -> Principal {
    Principal::local("ann").expect("a valid subject")
}

/// A person signed in with an identity provider, in a tenant, whose subject
/// is hostile.
fn eve() -> Principal {
    Principal::with_tenant("https://id.example", "Eve <b>x</b>\u{202E}", "acme")
        .expect("a valid principal")
}

fn bob() -> Principal {
    Principal::local("bob").expect("a valid subject")
}

fn owner() -> Principal {
    Principal::local("owner").expect("a valid subject")
}
