//! The tools the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! calls, written with `#[tool]` and served by `toolkit::mcp::McpServer`.
//!
//! ```text
//! mcp_conformance http [--addr 127.0.0.1:0]   # streamable HTTP with sessions, at /mcp
//! mcp_conformance stdio
//! ```
//!
//! Over HTTP it serves rmcp's streamable HTTP transport with sessions (not
//! `McpHttp`'s stateless endpoints): sampling and elicitation are requests to the
//! client in the middle of a call, and only a session carries the client's
//! answer back to that call. It has no bearer token (the suite can't send one)
//! and accepts loopback `Host` names only; it prints `listening on
//! http://ADDR/mcp` once listening. `tests/conformance.rs` runs the suite against
//! it.

#![allow(deprecated)] // Sampling and logging: deprecated for 2026-07-28, part of 2025-11-25.

use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CreateMessageRequestParams, LoggingLevel};
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};
use toolkit::approval::{
    ApprovalKey, Approvals, Deciders, MemoryApprovalStore, SqliteApprovalStore,
};
use toolkit::content::{Audio, Contents, EmbeddedResource, Image};
use toolkit::mcp::{AccessError, Ask, Caller, Grant, McpRequest, McpServer};
use toolkit::runtime::RuntimeTool;
use toolkit::{
    Context, Principal, Registry, Response, Scope, Tier, ToolError, call::Progress, tool,
};

/// A 1x1 red PNG.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file with no samples (8 kHz, 8-bit mono).
const EMPTY_WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

/// Returns a fixed text.
#[tool(scope = shared, tier = auto, group = "conformance")]
fn test_simple_text() -> Contents {
    Contents::new().text("This is a simple text response for testing.")
}

/// Returns a 1x1 red PNG image.
#[tool(scope = shared, tier = auto, group = "conformance")]
fn test_image_content() -> Contents {
    Contents::new().image(Image::new(RED_PIXEL_PNG, "image/png"))
}

/// Returns a short WAV sound.
#[tool(scope = shared, tier = auto, group = "conformance")]
fn test_audio_content() -> Contents {
    Contents::new().audio(Audio::new(EMPTY_WAV, "audio/wav"))
}

/// Returns an embedded text resource.
#[tool(scope = shared, tier = auto, group = "conformance")]
fn test_embedded_resource() -> Contents {
    Contents::new().resource(EmbeddedResource::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns text, an image and an embedded resource.
#[tool(scope = shared, tier = auto, group = "conformance")]
fn test_multiple_content_types() -> Contents {
    Contents::new()
        .text("Multiple content types test:")
        .image(Image::new(RED_PIXEL_PNG, "image/png"))
        .resource(EmbeddedResource::text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ))
}

/// Sends three log messages to the client while it runs.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_tool_with_logging(#[ctx] request: McpRequest) -> Result<String, ToolError> {
    for (at, message) in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    .into_iter()
    .enumerate()
    {
        if at > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        request.log(LoggingLevel::Info, json!(message)).await?;
    }
    Ok("Tool with logging executed successfully".to_owned())
}

/// Always fails.
#[tool(scope = shared, tier = auto, group = "conformance")]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::failed(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0, 50 and 100 of 100, 50 ms apart.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_tool_with_progress(#[ctx] progress: Progress) -> String {
    for done in [0.0, 50.0, 100.0] {
        if done > 0.0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        progress
            .report(done, Some(100.0), Some(&format!("{done}% done")))
            .await;
    }
    "Tool with progress executed successfully".to_owned()
}

/// Asks the client's model to answer a prompt.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_sampling(
    /// What to ask the model.
    prompt: String,
    #[ctx] request: McpRequest,
) -> Result<String, ToolError> {
    let params: CreateMessageRequestParams = serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": 100,
    }))
    .map_err(|error| ToolError::failed(error.to_string()))?;
    let answer = request.create_message(params).await?;
    let answer =
        serde_json::to_value(answer).map_err(|error| ToolError::failed(error.to_string()))?;
    let text = ["/content/text", "/message/content/text"]
        .iter()
        .find_map(|pointer| answer.pointer(pointer).and_then(Value::as_str))
        .unwrap_or_default();
    Ok(format!("LLM response: {text}"))
}

/// Asks the client's user for a username and an email.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_elicitation(
    /// What to tell the user.
    message: String,
    #[ctx] request: McpRequest,
) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    });
    elicited(&request, message, schema, "User response").await
}

/// Asks the user with a default for every primitive type.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_elicitation_sep1034_defaults(
    #[ctx] request: McpRequest,
) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true},
        },
    });
    elicited(
        &request,
        "Please review your profile".to_owned(),
        schema,
        "Elicitation completed",
    )
    .await
}

/// Asks the user with each kind of enum.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_elicitation_sep1330_enums(#[ctx] request: McpRequest) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"},
            ]}},
        },
    });
    elicited(
        &request,
        "Pick your options".to_owned(),
        schema,
        "Elicitation completed",
    )
    .await
}

async fn elicited(
    request: &McpRequest,
    message: String,
    schema: Value,
    label: &str,
) -> Result<String, ToolError> {
    let answer = request.elicit(message, schema).await?;
    let action = serde_json::to_value(answer.action).unwrap_or_default();
    let content = answer.content.unwrap_or(Value::Null);
    Ok(format!(
        "{label}: action={}, content={content}",
        action.as_str().unwrap_or_default()
    ))
}

/// Sleeps `seconds`, then says it is done: a task for a client that takes them.
/// Cancelled mid-run, it stops where it sleeps. Reports its progress each second
/// (`n` of `seconds`), which its task keeps (`tasks/get` shows the latest).
#[tool(scope = shared, tier = auto, task = optional, group = "conformance")]
async fn slow_compute(
    #[ctx] progress: Progress,
    /// How long to work, in seconds (at most an hour).
    seconds: u32,
    /// A label echoed in the result.
    #[tool(default = String::new())]
    label: String,
) -> String {
    let total = seconds.min(3600);
    for second in 0..total {
        progress
            .report(f64::from(second), Some(f64::from(total)), Some("computing"))
            .await;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    format!("computed {label} in {seconds} s")
}

/// Fails after a second, with the tool's own error: its task completes with
/// `isError: true`. Only ever a task.
#[tool(scope = shared, tier = auto, task = required, group = "conformance")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::failed("the job failed, as it always does"))
}

/// Panics: a protocol error, and its task is `failed`.
#[tool(scope = shared, tier = auto, task = optional, group = "conformance")]
#[allow(clippy::unused_async)] // a task's tool, awaited in the background
async fn protocol_error_job() -> String {
    panic!("protocol_error_job fails at the protocol level, as the suite asks")
}

/// A name the user gives.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// The name.
    name: String,
}

/// A color the user likes.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Color {
    /// The color.
    color: String,
}

/// A yes or no.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirmation {
    /// Whether the user agrees.
    ok: bool,
}

/// The text of a sampling result.
fn sampled_text(answer: &rmcp::model::CreateMessageResult) -> String {
    let answer = serde_json::to_value(answer).unwrap_or_default();
    ["/content/text", "/message/content/text"]
        .iter()
        .find_map(|pointer| answer.pointer(pointer).and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned()
}

/// A sampling request of one user message.
fn sampling(text: &str, max_tokens: u32) -> Result<CreateMessageRequestParams, ToolError> {
    serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": max_tokens,
    }))
    .map_err(|error| ToolError::failed(error.to_string()))
}

/// Asks the user's name mid-call, then greets them.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_input_required_result_elicitation(#[ctx] ask: Ask) -> Result<String, ToolError> {
    let name = ask
        .elicit::<Name>("user_name", "What is your name?")
        .await?
        .accepted()
        .map_or_else(|| "stranger".to_owned(), |name| name.name);
    Ok(format!("Hello, {name}!"))
}

/// Asks the client's model mid-call, then says what it answered.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_input_required_result_sampling(#[ctx] ask: Ask) -> Result<String, ToolError> {
    let answer = ask
        .sample(
            "capital_question",
            sampling("What is the capital of France?", 100)?,
        )
        .await?;
    Ok(format!("The model said: {}", sampled_text(&answer)))
}

/// Asks the client for its roots mid-call, then lists them.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_input_required_result_list_roots(#[ctx] ask: Ask) -> Result<String, ToolError> {
    let roots = ask.list_roots("client_roots").await?;
    let uris: Vec<&str> = roots.roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("The client's roots: {}", uris.join(", ")))
}

/// Asks for a confirmation in a sealed round trip.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_input_required_result_request_state(#[ctx] ask: Ask) -> Result<String, ToolError> {
    let ok = ask
        .elicit::<Confirmation>("confirm", "Please confirm")
        .await?
        .accepted()
        .is_some_and(|answer| answer.ok);
    Ok(format!("state-ok: confirmed={ok}"))
}

/// Asks the user, the model and the roots in one round.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_input_required_result_multiple_inputs(#[ctx] ask: Ask) -> Result<String, ToolError> {
    // Made before any is awaited: all three are in the round.
    let name = ask.elicit::<Name>("user_name", "What is your name?");
    let greeting = ask.sample("greeting", sampling("Generate a greeting", 50)?);
    let roots = ask.list_roots("client_roots");
    let (name, greeting, roots) = (name.await?, greeting.await?, roots.await?);
    Ok(format!(
        "name={}, greeting={}, roots={}",
        name.accepted().map(|name| name.name).unwrap_or_default(),
        sampled_text(&greeting),
        roots.roots.len()
    ))
}

/// Asks two questions, one round each.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_input_required_result_multi_round(#[ctx] ask: Ask) -> Result<String, ToolError> {
    let name = ask
        .elicit::<Name>("step1", "Step 1: What is your name?")
        .await?
        .accepted()
        .map(|name| name.name)
        .unwrap_or_default();
    let color = ask
        .elicit::<Color>("step2", "Step 2: What is your favorite color?")
        .await?
        .accepted()
        .map(|color| color.color)
        .unwrap_or_default();
    Ok(format!("{name} likes {color}"))
}

/// Asks for a confirmation; its sealed state refuses any change.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_input_required_result_tampered_state(#[ctx] ask: Ask) -> Result<String, ToolError> {
    let ok = ask
        .elicit::<Confirmation>("confirm", "Please confirm")
        .await?
        .accepted()
        .is_some_and(|answer| answer.ok);
    Ok(format!("confirmed={ok}"))
}

/// Asks only what the client declared it answers: its model, its user, or both.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_input_required_result_capabilities(#[ctx] ask: Ask) -> Result<String, ToolError> {
    let sampled = ask
        .can_sample()
        .then(|| Ok::<_, ToolError>(ask.sample("question", sampling("Say hello", 20)?)))
        .transpose()?;
    let elicited = ask
        .can_elicit()
        .then(|| ask.elicit::<Name>("user_name", "What is your name?"));
    let mut said = Vec::new();
    if let Some(sampled) = sampled {
        said.push(format!("model: {}", sampled_text(&sampled.await?)));
    }
    if let Some(elicited) = elicited {
        let name = elicited.await?.accepted().map(|name| name.name);
        said.push(format!("user: {}", name.unwrap_or_default()));
    }
    Ok(said.join("; "))
}

/// Needs the client's model: refused (`-32021`) when the client did not declare
/// sampling.
#[tool(scope = shared, tier = auto, group = "conformance")]
async fn test_missing_capability(#[ctx] ask: Ask) -> Result<String, ToolError> {
    let answer = ask.sample("question", sampling("Say hello", 20)?).await?;
    Ok(sampled_text(&answer))
}

/// Whether to go ahead.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Go {
    /// Yes to go ahead.
    confirm: bool,
}

/// Deletes a file once the user confirms: as a task, it waits
/// `input_required` for the answer.
#[tool(scope = shared, tier = auto, task = optional, group = "conformance")]
async fn confirm_delete(
    /// The file to delete.
    filename: String,
    #[ctx] ask: Ask,
) -> Result<String, ToolError> {
    let go = ask
        .elicit::<Go>("confirm", format!("Delete {filename}?"))
        .await?
        .accepted()
        .is_some_and(|go| go.confirm);
    Ok(if go {
        format!("Deleted {filename}")
    } else {
        format!("Kept {filename}")
    })
}

/// Deletes an archive once a person approved the call, and then asks its user
/// whether to go ahead: an `approve` tool that asks its client in its approved
/// run (tests/it/ask.rs).
#[tool(scope = shared, tier = approve, group = "conformance")]
async fn delete_archives(
    /// The archive to delete.
    name: String,
    #[ctx] ask: Ask,
) -> Result<String, ToolError> {
    let go = ask
        .elicit::<Go>("confirm", format!("Delete the archive {name} for good?"))
        .await?
        .accepted()
        .is_some_and(|go| go.confirm);
    Ok(if go {
        format!("Deleted the archive {name}")
    } else {
        format!("Kept the archive {name}")
    })
}

/// Asks the user's name in the request (input-required rounds), then greets
/// them as a task: its questions end at `ask.ready()`.
#[tool(scope = shared, tier = auto, task = required, asks_first, group = "conformance")]
async fn test_tool_with_task(#[ctx] ask: Ask) -> Result<String, ToolError> {
    let name = ask
        .elicit::<Name>("user_name", "What is your name?")
        .await?
        .accepted()
        .map_or_else(|| "stranger".to_owned(), |name| name.name);
    ask.ready()?;
    Ok(format!("Hello, {name}! (from a task)"))
}

/// Asks two questions at once: as a task, both wait until each is answered.
#[tool(scope = shared, tier = auto, task = optional, group = "conformance")]
async fn multi_input(#[ctx] ask: Ask) -> Result<String, ToolError> {
    let name = ask.elicit::<Name>("name", "What is your name?");
    let go = ask.elicit::<Go>("confirm", "Go ahead?");
    let (name, go) = (name.await?, go.await?);
    Ok(format!(
        "name={}, confirmed={}",
        name.accepted().map(|name| name.name).unwrap_or_default(),
        go.accepted().is_some_and(|go| go.confirm)
    ))
}

/// `greet`, the suite's sync fixture: a runtime tool, as a name that is not
/// `verb_resource` comes from outside the program (as another MCP server's tools
/// do), not from a `#[tool]`.
fn greet() -> RuntimeTool {
    RuntimeTool::builder(
        "greet",
        "Greets someone by name.",
        json!({
            "type": "object",
            "properties": {"name": {"type": "string", "description": "Who to greet."}},
            "required": ["name"],
        }),
    )
    .scope(Scope::Shared)
    .tier(Tier::Auto)
    .group("conformance")
    .build(
        |arguments: serde_json::Map<String, Value>, _: &Context| async move {
            let name = arguments
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            Response::Result(Value::String(format!("Hello, {name}!")))
        },
    )
    .unwrap_or_else(|error| panic!("greet: {error}"))
}

/// The schema of `json_schema_2020_12_tool`, verbatim from the suite
/// (0.2.0-alpha.12, scenario `json-schema-2020-12`, SEP-1613 and SEP-2106).
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            },
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false,
    })
}

/// `json_schema_2020_12_tool`, the suite's fixture for JSON Schema 2020-12 in
/// `inputSchema`: a runtime tool whose hand-written schema MCP clients get as
/// written (no Rust signature says "a phone or an email, as `contactMethod`
/// says"); calls are checked against it, then answered `ok`.
fn json_schema_2020_12_tool() -> RuntimeTool {
    RuntimeTool::builder(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        json_schema_2020_12(),
    )
    .mcp_schema_as_written()
    .group("conformance")
    .build(|_: serde_json::Map<String, Value>, _: &Context| async {
        Response::Result(Value::String("ok".to_owned()))
    })
    .unwrap_or_else(|error| panic!("json_schema_2020_12_tool: {error}"))
}

/// The `#[tool]`s of this binary, `greet` and `json_schema_2020_12_tool`.
fn registry() -> &'static Registry {
    static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    REGISTRY.get_or_init(|| {
        let tools = toolkit::registry()
            .iter()
            .map(toolkit::registry::RegisteredTool::tool);
        Registry::with_runtime(tools, [greet(), json_schema_2020_12_tool()])
            .unwrap_or_else(|error| panic!("{error}"))
    })
}

/// The approvals that keep tasks: in memory (one process: the suite's server),
/// or, for replicas of one fleet in tests, in the SQLite file
/// `MCP_CONFORMANCE_SQLITE` with the approval key `MCP_CONFORMANCE_APPROVAL_KEY`
/// and a run lease of `MCP_CONFORMANCE_RUN_LEASE_SECS` (tests/it/ask.rs).
fn approvals() -> &'static Approvals {
    static APPROVALS: std::sync::OnceLock<Approvals> = std::sync::OnceLock::new();
    APPROVALS.get_or_init(|| {
        let key = std::env::var("MCP_CONFORMANCE_APPROVAL_KEY").unwrap_or_else(|_| {
            example_mcp_server::random_secret()
                .unwrap_or_else(|error| panic!("no randomness for the approval key: {error}"))
        });
        let key = ApprovalKey::new(key.into_bytes()).unwrap_or_else(|error| panic!("{error}"));
        let approvals = match std::env::var("MCP_CONFORMANCE_SQLITE") {
            Ok(path) => Approvals::new(
                key,
                SqliteApprovalStore::open(path).unwrap_or_else(|error| panic!("{error}")),
            ),
            Err(_) => Approvals::new(key, MemoryApprovalStore::new()),
        }
        // Its requester may approve `delete_archives` too (asked as the call's
        // client); anyone else may, in the store.
        .policy(Deciders::others().requester_decides([delete_archives::NAME]));
        match std::env::var("MCP_CONFORMANCE_RUN_LEASE_SECS")
            .ok()
            .and_then(|seconds| seconds.parse().ok())
        {
            Some(seconds) => approvals.run_lease(Duration::from_secs(seconds)),
            None => approvals,
        }
    })
}

/// Every conformance tool, for the one principal every caller is here.
fn view() -> Result<toolkit::View<'static>, toolkit::view::ViewError> {
    registry()
        .view()
        .scopes([Scope::Shared])
        .allow(["@conformance"])
        .approvals(
            approvals(),
            Principal::local("conformance").unwrap_or_else(|error| panic!("{error}")),
        )
        .build()
}

/// Every conformance tool, for every caller, with its tasks kept in
/// [`approvals`].
fn access(_caller: &Caller<'_>) -> Result<Grant, AccessError> {
    Ok(Grant::new(view()?, Context::new()))
}

/// With `MCP_CONFORMANCE_TASK_PASS_SECS` set, runs the task runner's pass that
/// often: a task whose replica died is run again here after its lease, even if
/// nobody polls it (tests/it/ask.rs).
fn spawn_task_pass() {
    let Some(every) = std::env::var("MCP_CONFORMANCE_TASK_PASS_SECS")
        .ok()
        .and_then(|seconds| seconds.parse().ok())
    else {
        return;
    };
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(every)).await;
            let pass = toolkit::mcp::run_tasks(approvals(), |_| {
                Ok((view().map_err(|error| error.to_string())?, Context::new()))
            })
            .await;
            if let Err(error) = pass {
                eprintln!("mcp_conformance: task runner: {error}");
            }
        }
    });
}

/// The conformance server, over any transport: it takes tasks, and seals
/// request states with `MCP_CONFORMANCE_STATE_KEY` (replicas that share it
/// answer each other's retries; tests/it/ask.rs) or a random key per process.
fn server() -> McpServer {
    let key = std::env::var("MCP_CONFORMANCE_STATE_KEY").unwrap_or_else(|_| {
        example_mcp_server::random_secret()
            .unwrap_or_else(|error| panic!("no randomness for the request-state key: {error}"))
    });
    McpServer::new("conformance", access)
        .approvals(key.into_bytes())
        .unwrap_or_else(|error| panic!("the request-state key is unusable: {error}"))
}

const USAGE: &str = "usage: mcp_conformance http [--addr 127.0.0.1:0] | mcp_conformance stdio";

#[tokio::main]
async fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match arguments.first().map(String::as_str) {
        Some("stdio") => server().serve_stdio().await,
        Some("http") => {
            let addr = arguments
                .iter()
                .position(|argument| argument == "--addr")
                .and_then(|at| arguments.get(at + 1))
                .map_or("127.0.0.1:0", String::as_str);
            serve_http(addr).await
        }
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2)
        }
    };
    if let Err(error) = outcome {
        eprintln!("mcp_conformance: {error}");
        std::process::exit(1)
    }
}

async fn serve_http(addr: &str) -> std::io::Result<()> {
    spawn_task_pass();
    let server = server();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_legacy_session_mode(true),
    );
    // 2026-07-28 clients have no session: their cancellations, which rmcp's
    // stateless path drops, reach their calls through toolkit's layer.
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(toolkit::mcp::CancellationLayer::new());
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening on http://{local}/mcp")?;
    stdout.flush()?;
    axum::serve(listener, router).await
}
