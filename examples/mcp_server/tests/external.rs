//! Tools on another MCP server (a second process: this crate's binary over
//! stdio), pinned by hash and joined to a registry as runtime tools: views list,
//! render, route and call them like local ones, and the MCP server serves them.

mod common;

use std::sync::{Arc, OnceLock};

use common::{call, text};
use rmcp::model::ProtocolVersion;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt as _};
use serde_json::json;
use toolkit::approval::{ApprovalKey, Approvals, Decision, MemoryApprovalStore};
use toolkit::call::CallId;
use toolkit::mcp::{
    AccessError, ExternalReport, ExternalServer, ExternalTools, Grant, McpHttp, Pins,
};
use toolkit::quota::{MemoryQuotaStore, Quotas};
use toolkit::{
    Context, Dialect, Registry, Response, Scope, Tier, ToolError, registry::RegisteredTool,
};

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

/// A local tool with the name an external one gets: the local one wins.
#[toolkit::tool(scope = shared, tier = auto)]
fn assistant_update_tasks() -> &'static str {
    "the local one"
}

async fn attach() -> ExternalServer {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp_server"));
    command.args(["stdio", "--client", "external"]);
    ExternalServer::stdio("assistant", command).await.unwrap()
}

const REMOTE: [&str; 3] = [
    "assistant_create_tasks",
    "assistant_get_tasks",
    "assistant_update_tasks",
];

/// The server attached and every tool it offers pinned.
async fn pinned() -> (ExternalServer, Pins) {
    let server = attach().await;
    let reports = server.refresh(&Pins::new()).await.unwrap();
    // Nothing is offered before a person pins it.
    assert!(server.tools().is_empty());
    let unpinned: Vec<&str> = reports
        .iter()
        .map(|report| match report {
            ExternalReport::Unpinned { tool, .. } => tool.as_str(),
            other => panic!("only unpinned tools at first: {other:?}"),
        })
        .collect();
    assert_eq!(unpinned, REMOTE);
    let mut pins = Pins::new();
    pins.pin_unpinned(&reports);
    assert!(server.refresh(&pins).await.unwrap().is_empty());
    (server, pins)
}

fn local_tools() -> impl Iterator<Item = &'static toolkit::Tool> {
    toolkit::registry().iter().map(RegisteredTool::tool)
}

fn names<'a>(tools: impl IntoIterator<Item = &'a RegisteredTool>) -> Vec<&'static str> {
    tools.into_iter().map(|tool| tool.name).collect()
}

#[tokio::test]
async fn external_tools_join_views_render_route_and_forward() {
    let (server, _) = pinned().await;
    assert_eq!(
        server.remote_name("assistant_get_tasks").as_deref(),
        Some("get_tasks")
    );
    let external = ExternalTools::new(vec![server]);
    let registry = external
        .registry(local_tools(), |tool| {
            if tool.remote_name == "create_tasks" {
                Tier::Approve
            } else {
                Tier::Auto
            }
        })
        .unwrap();
    // The local `assistant_update_tasks` wins, reported once however often the
    // registry is built.
    assert_eq!(external.shadowed(), ["assistant_update_tasks"]);
    let again = external.registry(local_tools(), |_| Tier::Auto).unwrap();
    assert_eq!(external.shadowed(), ["assistant_update_tasks"]);
    assert_eq!(
        again.get("assistant_create_tasks").unwrap().tier,
        Tier::Auto
    );
    assert!(!registry.get("assistant_update_tasks").unwrap().is_runtime());

    let view = registry
        .view()
        .scopes([Scope::Shared])
        .allow(["@assistant", "get_context"])
        .label("external-test")
        .build()
        .unwrap();
    assert_eq!(
        names(&view),
        [
            "assistant_create_tasks",
            "assistant_get_tasks",
            "get_context"
        ]
    );
    let get = view.get("assistant_get_tasks").unwrap();
    assert!(get.is_runtime());
    assert_eq!(
        (get.scope, get.tier, get.always, get.group),
        (Scope::Shared, Tier::Auto, false, Some("assistant"))
    );

    // Routed, in the view's catalog, grouped under the server's label.
    let catalog = view.catalog();
    let routed: Vec<(&str, Option<&str>)> = catalog
        .iter()
        .map(|entry| (entry.name.as_str(), entry.group.as_deref()))
        .collect();
    assert_eq!(
        routed,
        [
            ("assistant_create_tasks", Some("assistant")),
            ("assistant_get_tasks", Some("assistant")),
        ]
    );

    // Rendered in every dialect by the same cleaner as local tools.
    for dialect in Dialect::ALL {
        let rendered = view.render(dialect);
        assert!(
            rendered.skipped.is_empty(),
            "{dialect}: {:?}",
            rendered.skipped
        );
    }
    // Exact text: the remote's schema as its server rendered it for MCP, cleaned
    // again here (no `title`), written by the local dialect writers (the lenient
    // dialects leave out what dispatch checks anyway: `additionalProperties`,
    // a lone `minimum: 0`, a `default` of `false`).
    assert_eq!(get.render_json(Dialect::OpenAiChat), Ok(OPENAI_GET_TASKS));
    assert_eq!(get.render_json(Dialect::Anthropic), Ok(ANTHROPIC_GET_TASKS));

    // Calls are checked against the schema the model saw, then forwarded.
    let ctx = Context::new();
    let empty = view.call("assistant_get_tasks", "{}", &ctx).await;
    assert_eq!(empty, Response::Result(json!([])));
    let bad = view
        .call("assistant_get_tasks", r#"{"limit": "ten"}"#, &ctx)
        .await;
    assert_eq!(bad.error().map(ToolError::kind), Some("invalid_arguments"));
    // The view's tier rules apply: an `approve` external tool does not run from a
    // view without approvals, and nothing reaches the server.
    let create = view
        .call(
            "assistant_create_tasks",
            r#"{"tasks": [{"title": "Water the plants"}]}"#,
            &ctx,
        )
        .await;
    assert_eq!(
        create,
        Response::Error(ToolError::ApprovalRequired {
            tool: "assistant_create_tasks".to_owned()
        })
    );
    assert_eq!(
        view.call("assistant_get_tasks", "{}", &ctx).await,
        Response::Result(json!([]))
    );
    // With approvals, it waits for a human, then runs on the server once.
    let approvals = Approvals::new(
        ApprovalKey::new(*b"an application secret of 32 bytes").expect("32 bytes"),
        MemoryApprovalStore::new(),
    );
    let approving = registry
        .view()
        .scopes([Scope::Shared])
        .allow(["@assistant"])
        .approvals(&approvals, p("user:7"))
        .build()
        .unwrap();
    let asking = Context::new().with(CallId::new("call_1"));
    let Response::Pending(pending) = approving
        .call(
            "assistant_create_tasks",
            r#"{"tasks": [{"title": "Water the plants"}]}"#,
            &asking,
        )
        .await
    else {
        panic!("an approve external tool waits for a human");
    };
    assert_eq!(
        view.call("assistant_get_tasks", "{}", &ctx).await,
        Response::Result(json!([]))
    );
    let approval = approvals
        .decide(&registry, &pending, Decision::Approve)
        .unwrap();
    assert_eq!(
        approving.resume(&approval, &asking).await,
        Response::Result(common::first_task())
    );
    assert_eq!(
        approving
            .resume(&approval, &asking)
            .await
            .error()
            .map(ToolError::kind),
        Some("already_ran"),
        "a replay runs nothing, and is told the call ran"
    );
    assert_eq!(
        view.call("assistant_get_tasks", r#"{"id": 1}"#, &ctx).await,
        Response::Result(common::first_task())
    );

    // An external tool outside the view can't be reached by any spelling.
    let narrow = registry
        .view()
        .scopes([Scope::Shared])
        .allow(["assistant_create_tasks"])
        .build()
        .unwrap();
    for spelling in [
        "assistant_get_tasks",
        "ASSISTANT_GET_TASKS",
        " assistant_get_tasks",
        "assistant_get_tasks\u{200b}",
        "assistant_get-5ftasks",
    ] {
        let hidden = narrow.call(spelling, "{}", &ctx).await;
        assert_eq!(
            hidden.error().map(ToolError::kind),
            Some("unknown_tool"),
            "{spelling:?}"
        );
    }
    assert_eq!(
        narrow.call("assistant_get_tasks", "{}", &ctx).await,
        Response::Error(ToolError::UnknownTool {
            name: "assistant_get_tasks".to_owned(),
            suggestion: Some("assistant_create_tasks".to_owned()),
        })
    );
}

/// `assistant_get_tasks` as OpenAI Chat Completions sees it.
const OPENAI_GET_TASKS: &str = r#"{"type":"function","function":{"name":"assistant_get_tasks","description":"Get tasks: one by `id`, or the open tasks, newest first.","parameters":{"type":"object","properties":{"id":{"type":"integer","description":"Return only this task (even if it is done)."},"include_done":{"type":"boolean","description":"Also list tasks that are done."},"limit":{"type":"integer","description":"At most this many tasks.","default":20}}}}}"#;

/// `assistant_get_tasks` as Anthropic sees it.
const ANTHROPIC_GET_TASKS: &str = r#"{"name":"assistant_get_tasks","description":"Get tasks: one by `id`, or the open tasks, newest first.","input_schema":{"type":"object","properties":{"id":{"type":"integer","description":"Return only this task (even if it is done)."},"include_done":{"type":"boolean","description":"Also list tasks that are done."},"limit":{"type":"integer","description":"At most this many tasks.","default":20}}}}"#;

#[tokio::test]
async fn a_changed_pinned_definition_is_withheld_and_reported() {
    let (server, mut pins) = pinned().await;
    let external = ExternalTools::new(vec![server]);
    let registry = external.registry([], |_| Tier::Auto).unwrap();
    let before = registry.view().build().unwrap();
    assert_eq!(names(&before), REMOTE);

    // What was reviewed differs from what the server sends now.
    pins.pin("assistant_get_tasks", "sha256:00");
    let withheld = external.servers()[0].refresh(&pins).await.unwrap();
    assert_eq!(withheld.len(), 1);
    let ExternalReport::Changed { tool, pinned, .. } = &withheld[0] else {
        panic!("a changed definition: {withheld:?}");
    };
    assert_eq!(
        (tool.as_str(), pinned.as_str()),
        ("assistant_get_tasks", "sha256:00")
    );
    // Out of every view built from now on, in the registry built before too; a
    // view built before the change refuses the call.
    let after = registry.view().build().unwrap();
    assert_eq!(
        names(&after),
        ["assistant_create_tasks", "assistant_update_tasks"]
    );
    let refused = before
        .call("assistant_get_tasks", "{}", &Context::new())
        .await;
    assert_eq!(
        refused,
        Response::Error(ToolError::UnknownTool {
            name: "assistant_get_tasks".to_owned(),
            suggestion: None,
        })
    );
}

/// The MCP server serves a registry with external tools like any other: listed
/// in the MCP dialect, calls forwarded.
#[tokio::test]
async fn the_mcp_server_serves_external_tools() {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    let (server, _) = pinned().await;
    let external = Arc::new(ExternalTools::new(vec![server]));
    let registry: &'static Registry =
        REGISTRY.get_or_init(|| external.registry(local_tools(), |_| Tier::Auto).unwrap());
    let access = move |caller: &toolkit::mcp::Caller<'_>| -> Result<Grant, AccessError> {
        let view = registry
            .view()
            .scopes([Scope::Shared])
            .allow(["@assistant", "assistant_update_tasks", "get_context"])
            .label(caller.client.to_owned())
            .build()?;
        let ctx = Context::new().with(example_assistant::AssistantState::new());
        Ok(Grant::new(view, ctx))
    };
    let router = McpHttp::new(access)
        .endpoint("internal", "/mcp", "token")
        .into_router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
        .auth_header("token");
    let client = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();

    let tools = client.list_all_tools().await.unwrap();
    let listed: Vec<&str> = tools.iter().map(|tool| &*tool.name).collect();
    assert_eq!(
        listed,
        [
            "assistant_create_tasks",
            "assistant_get_tasks",
            "assistant_update_tasks",
            "get_context"
        ]
    );
    // The entry is the view's MCP rendering: the remote's hints are not passed on.
    let get = serde_json::to_value(&tools[1]).unwrap();
    assert_eq!(
        get,
        registry
            .get("assistant_get_tasks")
            .unwrap()
            .render(Dialect::Mcp)
            .unwrap()
    );

    let created = client
        .call_tool(call(
            "assistant_create_tasks",
            json!({"tasks": [{"title": "Water the plants"}]}),
        ))
        .await
        .unwrap();
    assert_eq!(created.is_error, Some(false), "{created:?}");
    assert_eq!(created.structured_content, Some(common::first_task()));
    let read = client
        .call_tool(call("assistant_get_tasks", json!({"id": 1})))
        .await
        .unwrap();
    assert_eq!(read.structured_content, Some(common::first_task()));
    // The shadowed name answers with the local tool.
    let local = client
        .call_tool(call("assistant_update_tasks", json!({})))
        .await
        .unwrap();
    // A string result is its text, with no structured content.
    assert_eq!(text(&local), "the local one");
    assert_eq!(local.structured_content, None);
    // A remote tool the remote does not serve to us is unknown here too.
    let hidden = client
        .call_tool(call("assistant_delete_tasks", json!({"ids": [1]})))
        .await
        .unwrap();
    assert_eq!(
        text(&hidden),
        "unknown tool `assistant_delete_tasks`; did you mean `assistant_create_tasks`?"
    );
}

/// The `@assistant` tools of `registry` for the local user 7, counted by `quotas`.
fn view<'a>(registry: &'a Registry, quotas: &'a Quotas) -> toolkit::View<'a> {
    registry
        .view()
        .scopes([Scope::Shared])
        .allow(["@assistant"])
        .principal(toolkit::Principal::local("7").unwrap())
        .quotas(quotas)
        .build()
        .unwrap()
}

/// An external tool's calls go through `View::call`, so a view's quotas count
/// them like a local tool's: over its limit, the call is refused with the wait
/// and never reaches the other server; a registry built again (after a refresh)
/// counts on where the last one stopped.
#[tokio::test]
async fn an_external_tools_calls_are_counted_by_the_views_quotas() {
    let (server, _) = pinned().await;
    let external = ExternalTools::new(vec![server]);
    let registry = external.registry(local_tools(), |_| Tier::Auto).unwrap();
    // Time stands still: the refusal's wait is exact.
    let store = MemoryQuotaStore::new().clock(|| std::time::Duration::from_secs(1_000));
    let quotas = Quotas::builder(&registry, store)
        .tool("assistant_create_tasks", "2/min".parse().unwrap())
        .build()
        .unwrap();
    let ctx = Context::new();
    let create = r#"{"tasks": [{"title": "Water the plants"}]}"#;
    let first = view(&registry, &quotas);
    for _ in 0..2 {
        assert!(
            first
                .call("assistant_create_tasks", create, &ctx)
                .await
                .is_success()
        );
    }
    let refused = ToolError::RateLimited {
        tool: "assistant_create_tasks".to_owned(),
        limit: "2/min".parse().unwrap(),
        retry_after_ms: 30_000,
    };
    assert_eq!(
        first.call("assistant_create_tasks", create, &ctx).await,
        Response::Error(refused.clone())
    );
    let again = external.registry(local_tools(), |_| Tier::Auto).unwrap();
    assert_eq!(
        view(&again, &quotas)
            .call("assistant_create_tasks", create, &ctx)
            .await,
        Response::Error(refused)
    );
    // The other server ran the two admitted calls only.
    let listed = first.call("assistant_get_tasks", "{}", &ctx).await;
    assert_eq!(
        listed
            .result()
            .and_then(serde_json::Value::as_array)
            .map(Vec::len),
        Some(2),
        "{listed:?}"
    );
}
