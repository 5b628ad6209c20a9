//! rmcp's own client against the streamable HTTP endpoints, on loopback: each
//! client kind sees its view, tokens are checked first, both protocol revisions.

use crate::common;

use common::{COPILOT_TOOLS, EXTERNAL_TOOLS, call, stateless, text};
use example_assistant::AssistantState;
use rmcp::model::Tool;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt as _, RoleClient};
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const TOKENS: [&str; 3] = ["internal-secret", "copilot-secret", "external-secret"];

/// Starts the example's router on a free loopback port; gives its address.
async fn serve() -> std::net::SocketAddr {
    let router = example_mcp_server::http_router(
        AssistantState::new(),
        example_mcp_server::Settings::ephemeral().unwrap(),
        TOKENS,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}

async fn connect(
    addr: std::net::SocketAddr,
    client: &str,
    token: &str,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, ()> {
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp/{client}"))
            .auth_header(token);
    let transport = StreamableHttpClientTransport::from_config(config);
    ().serve_with_lifecycle(transport, lifecycle).await.unwrap()
}

fn names(tools: &[Tool]) -> Vec<&str> {
    tools.iter().map(|tool| &*tool.name).collect()
}

#[tokio::test]
async fn each_client_kind_lists_its_own_view_in_name_order() {
    let addr = serve().await;
    for lifecycle in [ClientLifecycleMode::Initialize, stateless()] {
        let internal = connect(addr, "internal", TOKENS[0], lifecycle.clone()).await;
        assert_eq!(internal.list_all_tools().await.unwrap().len(), 23);
        let copilot = connect(addr, "copilot", TOKENS[1], lifecycle.clone()).await;
        assert_eq!(
            names(&copilot.list_all_tools().await.unwrap()),
            COPILOT_TOOLS
        );
        let external = connect(addr, "external", TOKENS[2], lifecycle).await;
        assert_eq!(
            names(&external.list_all_tools().await.unwrap()),
            EXTERNAL_TOOLS
        );
    }
}

#[tokio::test]
async fn the_stateless_list_is_private_to_the_token() {
    let addr = serve().await;
    let external = connect(addr, "external", TOKENS[2], stateless()).await;
    let listed = external.list_tools(None).await.unwrap();
    assert_eq!(listed.cache_scope, Some(rmcp::model::CacheScope::Private));
    // The older revision has no caching hints.
    let legacy = connect(addr, "external", TOKENS[2], ClientLifecycleMode::Initialize).await;
    let listed = legacy.list_tools(None).await.unwrap();
    assert_eq!(listed.cache_scope, None);
}

#[tokio::test]
async fn calls_dispatch_through_the_view() {
    let addr = serve().await;
    let external = connect(addr, "external", TOKENS[2], stateless()).await;
    let created = external
        .call_tool(call(
            "create_tasks",
            json!({"tasks": [{"title": "Water the plants"}]}),
        ))
        .await
        .unwrap();
    assert_eq!(created.is_error, Some(false), "{created:?}");
    let read = external
        .call_tool(call("get_tasks", json!({"id": 1})))
        .await
        .unwrap();
    assert_eq!(
        read.structured_content,
        Some(json!([{"id": 1, "title": "Water the plants", "priority": "normal", "done": false}]))
    );

    // Bad arguments: a tool error the model can act on, not a protocol error.
    let bad = external
        .call_tool(call("create_tasks", json!({"tasks": [{"title": 42}]})))
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    let expected = common::direct_message("create_tasks", &json!({"tasks": [{"title": 42}]})).await;
    assert!(
        expected.starts_with("invalid arguments at `tasks[0].title`: "),
        "{expected}"
    );
    assert_eq!(text(&bad), expected);
}

#[tokio::test]
async fn a_tool_outside_the_view_is_answered_like_an_unknown_tool() {
    let addr = serve().await;
    let external = connect(addr, "external", TOKENS[2], stateless()).await;
    let hidden = external
        .call_tool(call("delete_tasks", json!({"ids": [1]})))
        .await
        .unwrap();
    let missing = external
        .call_tool(call("delete_tazks", json!({"ids": [1]})))
        .await
        .unwrap();
    assert_eq!(hidden.is_error, Some(true));
    assert_eq!(text(&hidden), "unknown tool `delete_tasks`");
    assert_eq!(text(&missing), "unknown tool `delete_tazks`");
    // Through an alias of the hidden tool too; suggestions come only from the view.
    let alias = external
        .call_tool(call("delete_task", json!({})))
        .await
        .unwrap();
    assert_eq!(text(&alias), "unknown tool `delete_task`");
    let near = external
        .call_tool(call("get_taks", json!({})))
        .await
        .unwrap();
    assert_eq!(
        text(&near),
        "unknown tool `get_taks`; did you mean `get_tasks`?"
    );
    // The internal endpoint has it.
    let internal = connect(addr, "internal", TOKENS[0], stateless()).await;
    let tools = internal.list_all_tools().await.unwrap();
    assert!(names(&tools).contains(&"delete_tasks"));
}

#[tokio::test]
async fn an_alias_is_neither_listed_nor_run_and_names_the_tool_to_call() {
    let addr = serve().await;
    for lifecycle in [ClientLifecycleMode::Initialize, stateless()] {
        let internal = connect(addr, "internal", TOKENS[0], lifecycle).await;
        let tools = internal.list_all_tools().await.unwrap();
        assert!(names(&tools).contains(&"get_memories"));
        assert!(!names(&tools).contains(&"fetch_memory"));
        let by_alias = internal
            .call_tool(call("fetch_memory", json!({"id": 1})))
            .await
            .unwrap();
        assert_eq!(by_alias.is_error, Some(true));
        assert_eq!(
            text(&by_alias),
            "unknown tool `fetch_memory`; did you mean `get_memories`?"
        );
        assert_eq!(by_alias.structured_content, None);
    }
}

/// Sends one raw `tools/list` POST and gives the status line.
async fn raw_status(addr: std::net::SocketAddr, path: &str, authorization: Option<&str>) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    raw_post(addr, path, authorization, body).await.0
}

/// Sends one raw POST; gives the status line and the body.
async fn raw_post(
    addr: std::net::SocketAddr,
    path: &str,
    authorization: Option<&str>,
    body: &str,
) -> (String, String) {
    let authorization =
        authorization.map_or(String::new(), |value| format!("Authorization: {value}\r\n"));
    let response = raw_exchange(addr, path, &authorization, body).await;
    let status = response.lines().next().unwrap_or_default().to_owned();
    let body = response
        .split_once("\r\n\r\n")
        .map_or("", |(_, body)| body)
        .to_owned();
    (status, body)
}

/// Sends one raw POST of `body` with the extra header lines `headers` (each
/// ending in CRLF); gives the whole answer.
async fn raw_exchange(addr: std::net::SocketAddr, path: &str, headers: &str, body: &str) -> String {
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

#[tokio::test]
async fn a_body_that_is_not_one_json_rpc_message_is_400_with_a_json_rpc_error() {
    let addr = serve().await;
    let auth = Some("Bearer internal-secret");
    let error = |body: &str| serde_json::from_str::<serde_json::Value>(body).unwrap();
    let (status, body) = raw_post(addr, "/mcp/internal", auth, "{not json").await;
    assert_eq!(status, "HTTP/1.1 400 Bad Request");
    let body = error(&body);
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["id"], json!(null));
    assert_eq!(body["error"]["code"], -32700);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Parse error: key must be a string"),
        "{body}"
    );
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#;
    let (status, body) = raw_post(addr, "/mcp/internal", auth, batch).await;
    assert_eq!(status, "HTTP/1.1 400 Bad Request");
    assert_eq!(
        error(&body),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
            "message": "Invalid Request: batch requests are not supported"}})
    );
    let (status, body) = raw_post(addr, "/mcp/internal", auth, r#"{"id": 1}"#).await;
    assert_eq!(status, "HTTP/1.1 400 Bad Request");
    assert_eq!(error(&body)["error"]["code"], -32600);
    // The token is still checked first.
    let (status, _) = raw_post(addr, "/mcp/internal", None, "{not json").await;
    assert_eq!(status, "HTTP/1.1 401 Unauthorized");
}

#[tokio::test]
async fn a_call_without_a_name_is_invalid_params() {
    let addr = serve().await;
    let auth = Some("Bearer internal-secret");
    let request = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{}}}"#;
    let (status, body) = raw_post(addr, "/mcp/internal", auth, request).await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["id"], 7);
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert_eq!(
        body["error"]["message"],
        "invalid params for `tools/call`: missing field `name`"
    );
    // A method the protocol does not have is still "method not found".
    let request = r#"{"jsonrpc":"2.0","id":8,"method":"tools/frobnicate","params":{}}"#;
    let (_, body) = raw_post(addr, "/mcp/internal", auth, request).await;
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], -32601, "{body}");
}

#[tokio::test]
async fn a_missing_or_wrong_token_is_401_before_anything_else() {
    let addr = serve().await;
    assert_eq!(
        raw_status(addr, "/mcp/external", None).await,
        "HTTP/1.1 401 Unauthorized"
    );
    assert_eq!(
        raw_status(addr, "/mcp/external", Some("Bearer wrong")).await,
        "HTTP/1.1 401 Unauthorized"
    );
    // Another kind's token opens only that kind's endpoint.
    assert_eq!(
        raw_status(addr, "/mcp/external", Some("Bearer internal-secret")).await,
        "HTTP/1.1 401 Unauthorized"
    );
    assert_eq!(
        raw_status(addr, "/mcp/external", Some("Bearer external-secret")).await,
        "HTTP/1.1 200 OK"
    );

    // rmcp's client gets no further than its first request.
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp/internal"))
            .auth_header("external-secret");
    let refused = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            stateless(),
        )
        .await;
    assert!(refused.is_err());
}

/// A stateless `tools/list` on the `internal` endpoint with this `Host` header:
/// the status and body of the answer.
async fn list_with_host(router: axum::Router, host: &str) -> (u16, String) {
    use tower::ServiceExt as _;
    let request = common::list_request("/mcp/internal", host, TOKENS[0]);
    let response = router.oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

#[tokio::test]
async fn only_allowed_host_names_reach_the_endpoints() {
    let router = |settings: example_mcp_server::Settings| {
        example_mcp_server::http_router(AssistantState::new(), settings, TOKENS)
    };
    let forbidden = (403, "Forbidden: Host header is not allowed".to_owned());
    let settings = example_mcp_server::Settings::ephemeral().unwrap();
    // By default only loopback names: a rebinding page's name is refused.
    assert_eq!(
        list_with_host(router(settings), "127.0.0.1:8080").await.0,
        200
    );
    assert_eq!(list_with_host(router(settings), "localhost").await.0, 200);
    assert_eq!(
        list_with_host(router(settings), "evil.example").await,
        forbidden
    );
    assert_eq!(
        list_with_host(router(settings), "tools.example.com").await,
        forbidden
    );
    // `--allowed-host tools.example.com` adds the deployed name, and only it.
    let deployed = settings.allowed_hosts(["tools.example.com".to_owned()]);
    assert_eq!(
        list_with_host(router(deployed), "tools.example.com")
            .await
            .0,
        200
    );
    assert_eq!(
        list_with_host(router(deployed), "tools.example.com:443")
            .await
            .0,
        200
    );
    assert_eq!(
        list_with_host(router(deployed), "localhost:8080").await.0,
        200
    );
    assert_eq!(
        list_with_host(router(deployed), "evil.example").await,
        forbidden
    );
    // An empty list in toolkit never turns the check off (rmcp reads an empty
    // list as any host).
    let empty = toolkit::mcp::McpHttp::new(
        |_: &toolkit::mcp::Caller<'_>| -> Result<toolkit::mcp::Grant, toolkit::mcp::AccessError> {
            Err(toolkit::mcp::AccessError::failed("no grant"))
        },
    )
    .allowed_hosts(Vec::<String>::new())
    .endpoint("internal", "/mcp/internal", TOKENS[0])
    .into_router();
    assert_eq!(list_with_host(empty, "evil.example").await, forbidden);

    // A hook that fails: the client reads a JSON-RPC internal error with the
    // hook's words, never its cause's (that is for the server's log).
    let failing = toolkit::mcp::McpHttp::new(
        |_: &toolkit::mcp::Caller<'_>| -> Result<toolkit::mcp::Grant, toolkit::mcp::AccessError> {
            Err(toolkit::mcp::AccessError::caused_by(
                "no grant",
                std::io::Error::other("the directory at 10.0.0.7 is away"),
            ))
        },
    )
    .endpoint("internal", "/mcp/internal", TOKENS[0])
    .into_router();
    let (status, body) = list_with_host(failing, "localhost").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"code\":-32603"), "{body}");
    assert!(
        body.contains("\"message\":\"the server could not build the tool list: no grant\""),
        "{body}"
    );
    assert!(!body.contains("10.0.0.7"), "{body}");
}

/// Sends `method` as a 2026-07-28 request (its headers and `_meta`); gives the
/// status line and the JSON-RPC answer.
async fn stateless_request(
    addr: std::net::SocketAddr,
    method: &str,
    params: serde_json::Value,
) -> (String, serde_json::Value) {
    stateless_request_with(addr, json!({}), method, params).await
}

/// [`stateless_request`] from a client declaring `capabilities`; names the tool
/// or resource in `Mcp-Name` as the revision asks.
async fn stateless_request_with(
    addr: std::net::SocketAddr,
    capabilities: serde_json::Value,
    method: &str,
    params: serde_json::Value,
) -> (String, serde_json::Value) {
    let mut params = params;
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(serde_json::Value::as_str)
        .map(|name| format!("Mcp-Name: {name}\r\n"))
        .unwrap_or_default();
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let request = format!(
        "POST /mcp/internal HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nAuthorization: Bearer internal-secret\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{name}\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.lines().next().unwrap().to_owned();
    (status, serde_json::from_str(body).unwrap())
}

#[tokio::test]
async fn methods_the_server_lacks_or_the_revision_removed_are_not_found() {
    let addr = serve().await;
    // Removed by 2026-07-28 (no session), with or without valid params; and
    // methods of features this server does not have, whatever their params.
    for (method, params) in [
        ("logging/setLevel", json!({"level": "error"})),
        ("logging/setLevel", json!({})),
        ("initialize", json!({})),
        ("resources/subscribe", json!({})),
        ("completion/complete", json!({})),
        ("prompts/get", json!({})),
    ] {
        let (status, answer) = stateless_request(addr, method, params).await;
        assert_eq!(status, "HTTP/1.1 404 Not Found", "{method}: {answer}");
        assert_eq!(
            answer["error"],
            json!({"code": -32601, "message": method}),
            "{method}"
        );
    }
    // A method the revision has, with bad params, is still invalid params.
    let (status, answer) = stateless_request(addr, "tools/call", json!({})).await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    // On the earlier revision `logging/setLevel` exists: bad params are -32602,
    // `resources/subscribe` is still not found.
    let auth = Some("Bearer internal-secret");
    for (request, code) in [
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{}}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{}}"#,
            -32601,
        ),
    ] {
        let (_, body) = raw_post(addr, "/mcp/internal", auth, request).await;
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["error"]["code"], code, "{body}");
    }
}

/// A client that declares MCP Apps gets the cards of the `internal` view's
/// `confirm` and `approve` tools, their app-only tools and the cards as
/// resources; a client that does not gets the same list without any of that.
#[tokio::test]
async fn an_apps_client_gets_the_cards_and_others_the_plain_list() {
    use toolkit::mcp::apps::{
        APPROVAL_CARD, CONFIRM_TOOL, EXTENSION, MIME_TYPE, PREVIEW_CARD, STATUS_TOOL,
    };
    let addr = serve().await;
    let apps = json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}});
    let (_, with) = stateless_request_with(addr, apps.clone(), "tools/list", json!({})).await;
    let (_, without) = stateless_request(addr, "tools/list", json!({})).await;
    let listed = |answer: &serde_json::Value, name: &str| {
        answer["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|tool| tool["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no `{name}` in {answer}"))
    };
    assert_eq!(
        listed(&with, "delete_tasks")["_meta"]["ui"],
        json!({"resourceUri": PREVIEW_CARD})
    );
    assert_eq!(
        listed(&with, "delete_memories")["_meta"]["ui"],
        json!({"resourceUri": APPROVAL_CARD})
    );
    assert_eq!(
        listed(&with, CONFIRM_TOOL)["_meta"]["ui"],
        json!({"resourceUri": PREVIEW_CARD, "visibility": ["app"]})
    );
    assert_eq!(
        listed(&with, STATUS_TOOL)["_meta"]["ui"],
        json!({"resourceUri": APPROVAL_CARD, "visibility": ["app"]})
    );
    // Without the extension: exactly the Apps list less the app-only tools and
    // every `_meta.ui`.
    let mut plain: Vec<serde_json::Value> = with["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|tool| tool["name"] != CONFIRM_TOOL && tool["name"] != STATUS_TOOL)
        .cloned()
        .collect();
    for tool in &mut plain {
        let meta = tool.as_object_mut().unwrap();
        if let Some(serde_json::Value::Object(fields)) = meta.get_mut("_meta") {
            fields.remove("ui");
            if fields.is_empty() {
                meta.remove("_meta");
            }
        }
    }
    assert_eq!(without["result"]["tools"], json!(plain));
    assert!(!without.to_string().contains("ui://"), "{without}");

    // The cards are resources for the Apps client only.
    let (_, resources) =
        stateless_request_with(addr, apps.clone(), "resources/list", json!({})).await;
    let uris: Vec<&str> = resources["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|resource| resource["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, [PREVIEW_CARD, APPROVAL_CARD]);
    let (_, read) =
        stateless_request_with(addr, apps, "resources/read", json!({"uri": APPROVAL_CARD})).await;
    let content = &read["result"]["contents"][0];
    assert_eq!(content["mimeType"], MIME_TYPE);
    assert!(
        content["text"]
            .as_str()
            .unwrap()
            .starts_with("<!DOCTYPE html>"),
        "{content}"
    );
    let (_, resources) = stateless_request(addr, "resources/list", json!({})).await;
    assert_eq!(resources["result"]["resources"], json!([]));
    let (_, read) = stateless_request(addr, "resources/read", json!({"uri": APPROVAL_CARD})).await;
    assert_eq!(
        read["error"],
        json!({"code": -32602, "message": "no resource `ui://toolkit/approval-card` here"})
    );
}

/// Sends a `tools/call` of `name` with `arguments` as a client of `revision`
/// would (2026-07-28: its headers and `_meta`; older: the version header only);
/// gives the JSON-RPC result.
async fn call_as(
    addr: std::net::SocketAddr,
    revision: &str,
    name: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let mut params = json!({"name": name, "arguments": arguments});
    let mut headers = format!("MCP-Protocol-Version: {revision}\r\n");
    if revision == "2026-07-28" {
        headers = format!("{headers}Mcp-Method: tools/call\r\nMcp-Name: {name}\r\n");
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": revision,
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        });
    }
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
    let request = format!(
        "POST /mcp/internal HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nAuthorization: Bearer internal-secret\r\n\
         {headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let answer: serde_json::Value = serde_json::from_str(body).unwrap();
    answer["result"].clone()
}

/// A tool whose value is not an object (an array here): `structuredContent` on
/// 2026-07-28, which lets it be any JSON value (SEP-2106), and text alone for an
/// older client, whose `structuredContent` must be an object (rmcp drops it; the
/// text already holds the value, so nothing is added).
#[tokio::test]
async fn a_non_object_result_is_structured_content_only_where_the_revision_allows_it() {
    let addr = serve().await;
    let task = |id: u64| json!({"done": false, "id": id, "priority": "normal", "title": "Water the plants"});
    // The text is the value as the tool serialized it (fields in declaration order).
    let as_text = |id: u64| {
        format!(r#"[{{"id":{id},"title":"Water the plants","priority":"normal","done":false}}]"#)
    };
    let arguments = json!({"tasks": [{"title": "Water the plants"}]});
    assert_eq!(
        call_as(addr, "2026-07-28", "create_tasks", arguments.clone()).await,
        json!({
            "resultType": "complete",
            "content": [{"type": "text", "text": as_text(1)}],
            "structuredContent": [task(1)],
            "isError": false,
        })
    );
    for (id, revision) in [(2, "2025-11-25"), (3, "2025-06-18")] {
        assert_eq!(
            call_as(addr, revision, "create_tasks", arguments.clone()).await,
            json!({"content": [{"type": "text", "text": as_text(id)}], "isError": false}),
            "{revision}"
        );
    }
}

/// A `tasks/*` request whose `taskId` is no string is `-32602 invalid params`
/// naming `taskId`, on both revisions: the method exists, its params are wrong.
#[tokio::test]
async fn a_task_id_that_is_no_string_is_invalid_params_naming_it() {
    let addr = serve().await;
    let auth = Some("Bearer internal-secret");
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        for (task_id, problem) in [
            (json!(7), "`taskId` must be a string"),
            (json!(null), "`taskId` must be a string"),
            (json!(["approval_1"]), "`taskId` must be a string"),
            (json!({"id": "approval_1"}), "`taskId` must be a string"),
        ] {
            let expected = json!({
                "code": -32602,
                "message": format!("invalid params for `{method}`: {problem}"),
            });
            let params = json!({"taskId": task_id, "inputResponses": {}});
            let (status, answer) = stateless_request(addr, method, params.clone()).await;
            assert_eq!(status, "HTTP/1.1 200 OK", "{method} {task_id}: {answer}");
            assert_eq!(answer["error"], expected, "{method} {task_id}");
            let request =
                json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params}).to_string();
            let (status, body) = raw_post(addr, "/mcp/internal", auth, &request).await;
            assert_eq!(status, "HTTP/1.1 200 OK", "{method} {task_id}: {body}");
            let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(answer["error"], expected, "{method} {task_id} (2025-11-25)");
        }
        // No `taskId` at all.
        let (_, answer) = stateless_request(addr, method, json!({"inputResponses": {}})).await;
        assert_eq!(
            answer["error"],
            json!({"code": -32602,
                "message": format!("invalid params for `{method}`: missing field `taskId`")}),
            "{method}"
        );
    }
}

/// Sends `request` as it is on a new connection; gives the status line and body.
async fn raw_request(addr: std::net::SocketAddr, request: &str) -> (String, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response.lines().next().unwrap_or_default().to_owned();
    let body = response
        .split_once("\r\n\r\n")
        .map_or("", |(_, body)| body)
        .to_owned();
    (status, body)
}

/// Which host a request is for must be one answer: a proxy in front may read the
/// other `Host`, or the `Host` where this server reads the request target's, and
/// route or check by a name this server never checked.
#[tokio::test]
async fn two_host_headers_or_a_request_target_for_another_host_are_refused_400() {
    let settings = example_mcp_server::Settings::ephemeral().unwrap();
    let router = example_mcp_server::http_router(AssistantState::new(), settings, TOKENS).nest(
        "/approvals",
        example_mcp_server::inbox(settings, "inbox-secret").router(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(example_mcp_server::serve(listener, router, settings.limits));

    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let post = |target: &str, hosts: &str| {
        format!(
            "POST {target} HTTP/1.1\r\n{hosts}Content-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nAuthorization: Bearer {}\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{list}",
            TOKENS[0],
            list.len()
        )
    };
    let get = |target: &str, hosts: &str| {
        format!(
            "GET {target} HTTP/1.1\r\n{hosts}Authorization: Bearer inbox-secret\r\n\
             Connection: close\r\n\r\n"
        )
    };
    let two = (
        "HTTP/1.1 400 Bad Request".to_owned(),
        "Bad Request: more than one Host header".to_owned(),
    );
    let differs = (
        "HTTP/1.1 400 Bad Request".to_owned(),
        "Bad Request: the request target's host differs from the Host header".to_owned(),
    );
    for hosts in [
        "Host: 127.0.0.1\r\nHost: evil.example\r\n",
        "Host: evil.example\r\nHost: 127.0.0.1\r\n",
        "Host: 127.0.0.1\r\nHost: 127.0.0.1\r\n",
    ] {
        assert_eq!(
            raw_request(addr, &post("/mcp/internal", hosts)).await,
            two,
            "{hosts}"
        );
        assert_eq!(
            raw_request(addr, &get("/approvals/api/pending", hosts)).await,
            two,
            "{hosts}"
        );
    }
    let host = "Host: 127.0.0.1\r\n";
    assert_eq!(
        raw_request(addr, &post("http://evil.example/mcp/internal", host)).await,
        differs
    );
    assert_eq!(
        raw_request(
            addr,
            &get("http://evil.example/approvals/api/pending", host)
        )
        .await,
        differs
    );
    // The target names the host the `Host` names: answered.
    let (status, body) = raw_request(addr, &post("http://127.0.0.1/mcp/internal", host)).await;
    assert_eq!(status, "HTTP/1.1 200 OK", "{body}");
    assert!(body.contains("\"tools\""), "{body}");
}

/// One raw `tools/list` POST with extra header lines; gives the whole answer's
/// head (status line and headers).
async fn raw_head(addr: std::net::SocketAddr, path: &str, headers: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let response = raw_exchange(addr, path, headers, body).await;
    response
        .split_once("\r\n\r\n")
        .map_or(response.as_str(), |(head, _)| head)
        .to_owned()
}

/// The example's server loop (which gives each request its peer) with
/// `MCP_PEER_LIMIT`'s setting, on a free loopback port.
async fn serve_peer_limited(limit: &str, proxies: Vec<std::net::IpAddr>) -> std::net::SocketAddr {
    let settings = example_mcp_server::Settings::ephemeral()
        .unwrap()
        .peer_limit(limit.parse().unwrap(), proxies);
    let router = example_mcp_server::http_router(AssistantState::new(), settings, TOKENS);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(example_mcp_server::serve(listener, router, settings.limits));
    addr
}

#[tokio::test]
async fn the_peer_limit_answers_429_before_a_token_is_looked_at() {
    let addr = serve_peer_limited("3/hour", Vec::new()).await;
    let status = |head: String| head.lines().next().unwrap_or_default().to_owned();
    // A valid token is never counted.
    for _ in 0..5 {
        assert_eq!(
            status(
                raw_head(
                    addr,
                    "/mcp/external",
                    "Authorization: Bearer external-secret\r\n"
                )
                .await
            ),
            "HTTP/1.1 200 OK"
        );
    }
    for _ in 0..3 {
        assert_eq!(
            status(raw_head(addr, "/mcp/external", "Authorization: Bearer wrong\r\n").await),
            "HTTP/1.1 401 Unauthorized"
        );
    }
    // Over the limit: refused before the token is compared, the good one too.
    let refused = raw_head(addr, "/mcp/external", "Authorization: Bearer wrong\r\n").await;
    assert_eq!(status(refused.clone()), "HTTP/1.1 429 Too Many Requests");
    let retry_after = refused
        .lines()
        .find_map(|line| line.strip_prefix("retry-after: "))
        .and_then(|seconds| seconds.parse::<u64>().ok());
    assert!(
        retry_after.is_some_and(|seconds| (1..=1200).contains(&seconds)),
        "{refused}"
    );
    assert_eq!(
        status(
            raw_head(
                addr,
                "/mcp/external",
                "Authorization: Bearer external-secret\r\n"
            )
            .await
        ),
        "HTTP/1.1 429 Too Many Requests"
    );
    // A client cannot pick another peer's count: the header of an untrusted
    // peer is ignored.
    assert_eq!(
        status(
            raw_head(
                addr,
                "/mcp/external",
                "Authorization: Bearer wrong\r\nX-Forwarded-For: 203.0.113.9\r\n"
            )
            .await
        ),
        "HTTP/1.1 429 Too Many Requests"
    );
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_count() {
    let loopback = std::net::IpAddr::from([127, 0, 0, 1]);
    let addr = serve_peer_limited("1/hour", vec![loopback]).await;
    let status = |head: String| head.lines().next().unwrap_or_default().to_owned();
    let from =
        |client: &str| format!("Authorization: Bearer wrong\r\nX-Forwarded-For: {client}\r\n");
    assert_eq!(
        status(raw_head(addr, "/mcp/external", &from("203.0.113.1")).await),
        "HTTP/1.1 401 Unauthorized"
    );
    assert_eq!(
        status(raw_head(addr, "/mcp/external", &from("203.0.113.1")).await),
        "HTTP/1.1 429 Too Many Requests"
    );
    // Another client behind the same proxy is not limited by the first.
    assert_eq!(
        status(raw_head(addr, "/mcp/external", &from("203.0.113.2")).await),
        "HTTP/1.1 401 Unauthorized"
    );
}
