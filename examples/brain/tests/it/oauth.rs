//! The brain's MCP server against an authorization server of the test's own
//! (discovery, a JWKS, tokens signed with RSA keys): a token's scopes choose the
//! client's view, its subject is the principal in the ledger, and requests without
//! a usable token are refused before anything is listed or run.

use std::sync::Arc;

use example_brain::server::{SCOPES, oauth_resource_server, oauth_router};
use example_brain::{Brain, Client, Home, LedgerEntry, Reply};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion,
};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _, RoleClient};
use serde_json::{Value, json};
use toolkit_test_support::oauth::{self, Issuer, issuer, metadata_url, token};

/// The brain's server on a free loopback port: its `/mcp` URL and the brain.
async fn serve(issuer: &Issuer) -> (String, Arc<Brain>) {
    serve_brain(issuer, Brain::new(Home::sample())).await
}

async fn serve_brain(issuer: &Issuer, brain: Brain) -> (String, Arc<Brain>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let auth = oauth_resource_server(&issuer.url, &resource).await.unwrap();
    let brain = Arc::new(brain);
    let router = oauth_router(Arc::clone(&brain), auth);
    tokio::spawn(async move { axum::serve(listener, router).await });
    (resource, brain)
}

#[derive(Clone)]
struct Tester;

impl ClientHandler for Tester {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("brain-oauth-test", "0.0.0"),
        )
    }
}

async fn connect(resource: &str, token: &str) -> RunningService<RoleClient, Tester> {
    let config =
        StreamableHttpClientTransportConfig::with_uri(resource.to_owned()).auth_header(token);
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    Tester
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            lifecycle,
        )
        .await
        .unwrap()
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    if let Value::Object(arguments) = arguments {
        params = params.with_arguments(arguments);
    }
    params
}

/// The text of a result's only content block.
fn text(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "{result:?}");
    &result.content[0].as_text().expect("a text block").text
}

async fn names(client: &RunningService<RoleClient, Tester>) -> Vec<String> {
    let tools = client.list_all_tools().await.unwrap();
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

/// A raw `tools/call` of `update_list_items` (a tool with an effect) with
/// `token`: the status, the `WWW-Authenticate` header and the body.
async fn raw_call(url: &str, token: Option<&str>) -> (u16, String, String) {
    oauth::raw_call(
        url,
        token,
        "update_list_items",
        json!({"ids": [6], "done": true}),
    )
    .await
}

#[tokio::test]
async fn a_copilot_token_gets_the_copilot_view_and_its_subject_is_in_the_ledger() {
    let issuer = issuer().await;
    let (resource, brain) = serve(&issuer).await;
    // `external` too: the most capable client scope wins.
    let copilot = token(&issuer, &resource, "alice", "mcp external copilot");
    let client = connect(&resource, &copilot).await;
    let expected: Vec<&str> = brain.view(Client::Copilot).names().collect();
    assert_eq!(names(&client).await, expected);
    assert_ne!(
        expected,
        brain.view(Client::External).names().collect::<Vec<_>>()
    );

    let done = client
        .call_tool(call("update_list_items", json!({"ids": [6], "done": true})))
        .await
        .unwrap();
    assert_eq!(done.is_error, Some(false), "{done:?}");
    let answer: Value = serde_json::from_str(text(&done)).unwrap();
    assert_eq!(
        answer,
        json!({"count": 1, "items": [{"id": 6, "list": "groceries", "text": "oat milk", "done": true}]})
    );
    assert_eq!(
        brain.home().ledger(),
        [LedgerEntry {
            client: "copilot",
            // The principal's key: the token's issuer and subject.
            principal: Some(format!("{}|alice", issuer.url)),
            tool: "update_list_items",
            arguments: json!({"ids": [6], "done": true}),
        }]
    );
}

#[tokio::test]
async fn an_external_token_cannot_reach_an_internal_tool_under_any_name() {
    let issuer = issuer().await;
    let (resource, brain) = serve(&issuer).await;
    let external = token(&issuer, &resource, "ext-app", "mcp external");
    let client = connect(&resource, &external).await;
    let expected: Vec<&str> = brain.view(Client::External).names().collect();
    assert_eq!(names(&client).await, expected);
    assert!(!expected.contains(&"set_prompt"));

    // Arguments each tool would accept: only the view stands in the way.
    let prompt = json!({"name": "morning", "text": "pwned"});
    let contact = json!({"contacts": [{"name": "Eve", "email": "eve@example.com"}]});
    let view = brain.view(Client::External);
    for (name, arguments) in [
        ("set_prompt", &prompt),
        ("SET_PROMPT", &prompt),
        ("Set_Prompt", &prompt),
        ("set-prompt", &prompt),
        ("setPrompt", &prompt),
        ("prompts.set_prompt", &prompt),
        ("create_contacts", &contact),
    ] {
        let refused = client
            .call_tool(call(name, arguments.clone()))
            .await
            .unwrap();
        assert_eq!(refused.is_error, Some(true), "{name}");
        assert_eq!(
            text(&refused),
            view.unknown_tool(name).to_string(),
            "{name}"
        );
    }
    // Nothing ran: no ledger entry, the prompt is as it was.
    assert_eq!(brain.home().ledger(), []);
    assert_eq!(
        brain
            .call_tool(Client::Internal, "get_prompts", &json!({"name": "morning"}))
            .await,
        Reply::ok(json!([{
            "name": "morning",
            "text": "Summarise today's events and the open chores."
        }]))
    );
}

#[tokio::test]
async fn a_token_without_a_client_scope_lists_and_runs_nothing() {
    let issuer = issuer().await;
    let (resource, brain) = serve(&issuer).await;
    let bare = token(&issuer, &resource, "carol", "mcp profile");
    let client = connect(&resource, &bare).await;
    assert_eq!(names(&client).await, Vec::<String>::new());
    let refused = client
        .call_tool(call("get_personality", json!({})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(text(&refused), "unknown tool `get_personality`");
    let refused = client
        .call_tool(call("update_list_items", json!({"ids": [6], "done": true})))
        .await
        .unwrap();
    assert_eq!(text(&refused), "unknown tool `update_list_items`");
    assert_eq!(brain.home().ledger(), []);
}

#[tokio::test]
async fn requests_without_a_usable_token_are_refused_before_anything_runs() {
    let issuer = issuer().await;
    let (resource, brain) = serve(&issuer).await;
    let metadata = metadata_url(&resource);

    // No token: the challenge points at the metadata, which names the issuer.
    assert_eq!(
        raw_call(&resource, None).await,
        (
            401,
            format!("Bearer resource_metadata=\"{metadata}\""),
            "a bearer access token is required".to_owned()
        )
    );
    let document: Value = reqwest::get(&metadata).await.unwrap().json().await.unwrap();
    assert_eq!(
        document,
        json!({
            "resource": resource,
            "authorization_servers": [issuer.url],
            "scopes_supported": SCOPES,
            "bearer_methods_supported": ["header"],
            "resource_name": "toolkit brain",
        })
    );

    // A token for another resource.
    let elsewhere = token(
        &issuer,
        "https://other.example/mcp",
        "alice",
        "mcp internal",
    );
    let reason = "the token is not for this resource (`aud`)";
    assert_eq!(
        raw_call(&resource, Some(&elsewhere)).await,
        (
            401,
            format!(
                "Bearer error=\"invalid_token\", error_description=\"{reason}\", resource_metadata=\"{metadata}\""
            ),
            format!("invalid token: {reason}")
        )
    );

    // A client scope without the required one.
    let unscoped = token(&issuer, &resource, "alice", "internal");
    assert_eq!(
        raw_call(&resource, Some(&unscoped)).await,
        (
            403,
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"mcp\", error_description=\"the token lacks the scope mcp\", resource_metadata=\"{metadata}\""
            ),
            "the token lacks the scope mcp".to_owned()
        )
    );
    assert_eq!(brain.home().ledger(), []);

    // The control: the same raw request with a good token runs.
    let good = token(&issuer, &resource, "alice", "mcp internal");
    let (status, _, body) = raw_call(&resource, Some(&good)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(brain.home().ledger().len(), 1);
}

#[tokio::test]
async fn names_no_local_tool_has_fall_through_for_a_client_only() {
    let issuer = issuer().await;
    let weather =
        Brain::new(Home::sample()).with_external(Arc::new(|name: &str, params: &Value| {
            (name == "get_weather")
                .then(|| Reply::ok(json!({"city": params["city"], "sky": "clear"})))
        }));
    let (resource, _) = serve_brain(&issuer, weather).await;
    let copilot = connect(
        &resource,
        &token(&issuer, &resource, "alice", "mcp copilot"),
    )
    .await;
    let answer = copilot
        .call_tool(call("get_weather", json!({"city": "Oslo"})))
        .await
        .unwrap();
    assert_eq!(answer.is_error, Some(false), "{answer:?}");
    let answer: Value = serde_json::from_str(text(&answer)).unwrap();
    assert_eq!(answer, json!({"city": "Oslo", "sky": "clear"}));
    // Without a client scope there is nothing, not even the external server.
    let bare = connect(&resource, &token(&issuer, &resource, "carol", "mcp")).await;
    let refused = bare
        .call_tool(call("get_weather", json!({"city": "Oslo"})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(text(&refused), "unknown tool `get_weather`");
}
