//! The `tracing` span of every dispatch through a view or the registry, read by a
//! capturing subscriber: exact fields, arguments only for tools the view opts in,
//! and nothing at all when no subscriber is interested. And the server's
//! OpenTelemetry (toolkit's `otel` feature), exported over OTLP to a receiver that
//! decodes it with the official protobuf definitions (`scripts/otel_test.sh`).

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use example_assistant::AssistantState;
use serde_json::{Map, Value, json};
use toolkit::runtime::RuntimeTool;
use toolkit::{Context, Registry, Response, Scope};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

/// One span as the subscriber saw it: its name and every field recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Captured {
    name: &'static str,
    fields: BTreeMap<&'static str, String>,
}

/// Records the spans whose target starts with `prefix`; `interested: false` is a
/// subscriber that wants none.
#[derive(Clone)]
struct Capture {
    prefix: &'static str,
    interested: bool,
    spans: Arc<Mutex<Vec<Captured>>>,
}

impl Capture {
    fn new(interested: bool) -> Self {
        Capture {
            prefix: "toolkit::call",
            interested,
            spans: Arc::default(),
        }
    }

    /// The spans so far, each with `duration_us` checked to be a number and then
    /// left out (it varies).
    fn take(&self) -> Vec<Captured> {
        let mut spans = self.spans.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::take(&mut *spans)
            .into_iter()
            .map(|mut span| {
                let duration = span.fields.remove("duration_us").expect("a duration");
                duration.parse::<u64>().expect("microseconds");
                span
            })
            .collect()
    }
}

struct Fields<'a>(&'a mut BTreeMap<&'static str, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), value.to_owned());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name(), value.to_string());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name(), value.to_string());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name(), format!("{value:?}"));
    }
}

impl Subscriber for Capture {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        // Asked again per span: tests on other threads have other subscribers.
        Interest::sometimes()
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.interested && metadata.target().starts_with(self.prefix)
    }

    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        let mut fields = BTreeMap::new();
        attributes.record(&mut Fields(&mut fields));
        let mut spans = self.spans.lock().unwrap_or_else(PoisonError::into_inner);
        spans.push(Captured {
            name: attributes.metadata().name(),
            fields,
        });
        Id::from_u64(spans.len() as u64)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().unwrap_or_else(PoisonError::into_inner);
        let index = usize::try_from(span.into_u64() - 1).unwrap();
        values.record(&mut Fields(&mut spans[index].fields));
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

fn span(fields: &[(&'static str, &str)]) -> Captured {
    Captured {
        name: "toolkit.call",
        fields: fields
            .iter()
            .map(|&(name, value)| (name, value.to_owned()))
            .collect(),
    }
}

#[tokio::test]
async fn every_dispatch_has_a_span_with_exact_fields() {
    let capture = Capture::new(true);
    let _default = tracing::subscriber::set_default(capture.clone());
    let ctx = Context::new().with(AssistantState::new());
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .label("copilot")
        .log_arguments(["create_task"]) // an alias names the tool
        .build()
        .unwrap();

    let created = view
        .call(
            "create_tasks",
            r#"{"tasks": [{"title": "Water the plants"}]}"#,
            &ctx,
        )
        .await;
    assert!(created.result().is_some(), "{created:?}");
    let listed = view.call("get_tasks", r#"{"limit": 5}"#, &ctx).await;
    assert!(listed.result().is_some(), "{listed:?}");
    let bad = view.call("get_tasks", r#"{"limit": "ten"}"#, &ctx).await;
    assert!(bad.error().is_some());
    let preview = view.call("delete_tasks", r#"{"ids": [1]}"#, &ctx).await;
    assert!(matches!(preview, Response::Preview(_)), "{preview:?}");
    let approve = view.call("delete_memories", r#"{"ids": [1]}"#, &ctx).await;
    assert!(approve.error().is_some());
    let unknown = view.call("get_weather\u{7}", "{}", &ctx).await;
    assert!(unknown.error().is_some());
    let direct = toolkit::registry().call("get_tasks", "{}", &ctx).await;
    assert!(direct.result().is_some());

    let shared = [("scope", "shared"), ("view", "copilot")];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut fields = shared.to_vec();
        fields.extend_from_slice(extra);
        span(&fields)
    };
    assert_eq!(
        capture.take(),
        [
            with(&[
                ("tool", "create_tasks"),
                ("tier", "auto"),
                ("outcome", "ok"),
                ("arguments", r#"{"tasks": [{"title": "Water the plants"}]}"#),
            ]),
            // Arguments only for the tools the view names.
            with(&[("tool", "get_tasks"), ("tier", "auto"), ("outcome", "ok")]),
            with(&[
                ("tool", "get_tasks"),
                ("tier", "auto"),
                ("outcome", "invalid_arguments"),
            ]),
            with(&[
                ("tool", "delete_tasks"),
                ("tier", "confirm"),
                ("outcome", "preview"),
            ]),
            with(&[
                ("tool", "delete_memories"),
                ("tier", "approve"),
                ("outcome", "approval_required"),
            ]),
            // An unknown name: as called, control characters escaped; no scope or
            // tier.
            span(&[
                ("tool", r"get_weather\u{7}"),
                ("view", "copilot"),
                ("outcome", "unknown_tool"),
            ]),
            span(&[
                ("tool", "get_tasks"),
                ("scope", "shared"),
                ("tier", "auto"),
                ("view", "registry"),
                ("outcome", "ok"),
            ]),
        ]
    );
}

/// A refused call's `gen_ai.execute_tool` span says the error's kind, never its
/// message (which quotes the value refused), unless the view logs the tool's
/// arguments.
#[tokio::test]
async fn a_run_span_quotes_no_argument_in_its_status_unless_the_view_logs_arguments() {
    let capture = Capture {
        prefix: "toolkit::otel",
        interested: true,
        spans: Arc::default(),
    };
    let _default = tracing::subscriber::set_default(capture.clone());
    let ctx = Context::new().with(AssistantState::new());
    let quiet = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .build()
        .unwrap();
    let logged = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .log_arguments(["get_tasks"])
        .build()
        .unwrap();
    let secret = r#"{"limit": "SECRET-7f3a9"}"#;
    let refused = quiet.call("get_tasks", secret, &ctx).await;
    let message = refused.error().expect("refused").to_string();
    assert!(message.contains("SECRET-7f3a9"), "{message}");
    assert!(
        logged
            .call("get_tasks", secret, &ctx)
            .await
            .error()
            .is_some()
    );

    let spans = std::mem::take(&mut *capture.spans.lock().unwrap_or_else(PoisonError::into_inner));
    assert_eq!(spans.len(), 2, "{spans:#?}");
    let status = |span: &Captured| {
        ["error.type", "otel.status_code", "otel.status_description"]
            .map(|field| span.fields.get(field).cloned().unwrap_or_default())
    };
    assert_eq!(
        status(&spans[0]),
        ["invalid_arguments", "error", "invalid_arguments"]
    );
    assert!(
        !format!("{:?}", spans[0]).contains("SECRET"),
        "{:?}",
        spans[0]
    );
    assert_eq!(
        status(&spans[1]),
        ["invalid_arguments".to_owned(), "error".to_owned(), message]
    );
}

#[tokio::test]
async fn an_approved_resume_has_its_span() {
    use toolkit::approval::{ApprovalKey, Approvals, Decision, MemoryApprovalStore};
    use toolkit::call::CallId;

    let capture = Capture::new(true);
    let _default = tracing::subscriber::set_default(capture.clone());
    let approvals = Approvals::new(
        ApprovalKey::new(*b"an application secret of 32 bytes").expect("32 bytes"),
        MemoryApprovalStore::new(),
    );
    let ctx = Context::new()
        .with(AssistantState::new())
        .with(CallId::new("call_1"));
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .label("internal")
        .approvals(&approvals, p("user:7"))
        .build()
        .unwrap();
    let Response::Pending(pending) = view.call("delete_memories", r#"{"ids": [1]}"#, &ctx).await
    else {
        panic!("an approve tool waits");
    };
    let approval = approvals
        .decide(toolkit::registry(), &pending, Decision::Approve)
        .unwrap();
    let resumed = view.resume(&approval, &ctx).await;
    // No memory 1: the tool ran, and said so.
    assert_eq!(
        resumed.error().map(toolkit::ToolError::kind),
        Some("failed")
    );
    let fields = [
        ("tool", "delete_memories"),
        ("scope", "shared"),
        ("tier", "approve"),
        ("view", "internal"),
        ("principal", "local|user:7"),
    ];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut all = fields.to_vec();
        all.extend_from_slice(extra);
        span(&all)
    };
    assert_eq!(
        capture.take(),
        [
            with(&[("outcome", "pending_approval")]),
            with(&[("resumed", "true"), ("outcome", "failed")]),
        ]
    );
}

#[tokio::test]
async fn a_runtime_tool_span_says_so() {
    let capture = Capture::new(true);
    let _default = tracing::subscriber::set_default(capture.clone());
    let echo = RuntimeTool::builder(
        "docs_echo",
        "Echo a text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    )
    .group("docs")
    .build(|arguments: Map<String, Value>, _: &Context| async move {
        Response::Result(arguments.get("text").cloned().unwrap_or_default())
    })
    .unwrap();
    let registry = Registry::with_runtime([], [echo]).unwrap();
    let view = registry.view().build().unwrap();
    let echoed = view
        .call("docs_echo", r#"{"text": "hi"}"#, &Context::new())
        .await;
    assert_eq!(echoed, Response::Result(json!("hi")));
    assert_eq!(
        capture.take(),
        [span(&[
            ("tool", "docs_echo"),
            ("scope", "shared"),
            ("tier", "auto"),
            ("runtime", "true"),
            ("outcome", "ok"),
        ])]
    );
}

#[tokio::test]
async fn no_span_when_no_subscriber_is_interested() {
    let capture = Capture::new(false);
    let _default = tracing::subscriber::set_default(capture.clone());
    let ctx = Context::new().with(AssistantState::new());
    let view = toolkit::registry().view().label("copilot").build().unwrap();
    let listed = view.call("get_tasks", "{}", &ctx).await;
    assert_eq!(listed, Response::Result(json!([])));
    assert!(
        capture
            .spans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    );
}

/// Counts the allocations of the current thread, so a test can tell what one call
/// allocates.
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    pub(crate) struct Counting;

    thread_local! {
        static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    }

    // SAFETY: every call is passed to `System` unchanged; the counter is a
    // thread-local `Cell` with a const initializer, which never allocates.
    #[allow(unsafe_code)]
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            ALLOCATIONS.with(|count| count.set(count.get() + 1));
            // SAFETY: the caller's contract for `alloc` is passed on as it is.
            unsafe { System.alloc(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: the caller's contract for `dealloc` is passed on as it is.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    /// Allocations on this thread so far.
    pub(crate) fn allocations() -> u64 {
        ALLOCATIONS.with(Cell::get)
    }
}

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

/// Polls a future that finishes without waiting (an in-memory tool) to its end.
fn run_now<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut context) {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => panic!("an in-memory tool finishes in one poll"),
    }
}

/// The allocations of `tool.call_with_limits` alone, and of the same call through
/// `view.call`, with a subscriber that is `interested` or not.
fn allocations_alone_and_dispatched(interested: bool) -> (u64, u64) {
    let capture = Capture::new(interested);
    let _default = tracing::subscriber::set_default(capture);
    let ctx = Context::new().with(AssistantState::new());
    let view = toolkit::registry().view().label("copilot").build().unwrap();
    let tool = view.get("get_tasks").unwrap();
    let limits = toolkit::registry().limits();
    // Once each first: the callsite registers, the tool's plan is built.
    let _ = run_now(view.call("get_tasks", "{}", &ctx));
    let _ = run_now(tool.call_with_limits("{}", &ctx, limits));

    let before = counting::allocations();
    let direct = run_now(tool.call_with_limits("{}", &ctx, limits));
    let alone = counting::allocations() - before;
    let before = counting::allocations();
    let through_view = run_now(view.call("get_tasks", "{}", &ctx));
    let dispatched = counting::allocations() - before;
    assert_eq!(direct, through_view);
    (alone, dispatched)
}

#[test]
fn an_unobserved_dispatch_allocates_no_more_than_the_tool() {
    let (alone, dispatched) = allocations_alone_and_dispatched(false);
    assert_eq!(dispatched, alone, "the span machinery allocated");
    // The measure sees the span when a subscriber records it.
    let (alone, dispatched) = allocations_alone_and_dispatched(true);
    assert!(dispatched > alone, "{dispatched} > {alone}");
}

/// The attributes `tracing-opentelemetry` adds to every span (where in the code,
/// which thread, busy and idle time): left out of the comparisons.
const LAYER_ATTRIBUTES: [&str; 8] = [
    "busy_ns",
    "idle_ns",
    "code.file.path",
    "code.line.number",
    "code.module.name",
    "target",
    "thread.id",
    "thread.name",
];

/// The client's trace the script's requests continue (`traceparent` in
/// `params._meta`), and its `tracestate`.
const CLIENT_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

/// One exported span, as the receiver decoded it, without the layer's own
/// attributes.
fn exported(span: &Value) -> Value {
    let mut span = span.clone();
    if let Some(Value::Object(attributes)) = span.get_mut("attributes") {
        attributes.retain(|key, _| !LAYER_ATTRIBUTES.contains(&key.as_str()));
    }
    span
}

#[test]
fn the_server_exports_mcp_and_tool_spans_and_metrics_over_otlp() {
    // `MCP_SERVER_BIN` names a copy of the binary where builds share a target
    // directory (another build may replace the one cargo made for this test).
    let server = std::env::var("MCP_SERVER_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_mcp_server").to_owned());
    let Some(stdout) = common::run_script(
        "otel_test.sh",
        &["python3"],
        &[("MCP_SERVER_BIN", &server)],
        "the OpenTelemetry export",
    ) else {
        return;
    };
    let document: Value = serde_json::from_str(&stdout).expect("the script prints JSON");
    // tools/list, three calls (ok, a tool error, no such tool), a method the
    // server lacks (404 in 2026-07-28), a call with no trace context.
    assert_eq!(document["statuses"], json!([200, 200, 200, 200, 404, 200]));
    let spans: Vec<Value> = document["spans"]
        .as_array()
        .expect("spans")
        .iter()
        .map(exported)
        .collect();
    assert_eq!(spans.len(), 10, "{spans:#?}");
    let server = |request_id: &str| {
        spans
            .iter()
            .find(|span| span["attributes"]["jsonrpc.request.id"] == request_id)
            .unwrap_or_else(|| panic!("no span for request {request_id}"))
    };
    let run_of = |parent: &Value| {
        spans
            .iter()
            .find(|span| span["parent_span_id"] == parent["span_id"])
            .unwrap_or_else(|| panic!("no execute_tool span under {parent}"))
    };
    let common = |request_id: &str, method: &str| {
        json!({
            "jsonrpc.request.id": request_id,
            "mcp.method.name": method,
            "mcp.protocol.version": "2026-07-28",
            "network.protocol.name": "http",
            "network.transport": "tcp",
            "toolkit.client": "internal",
        })
    };
    let with = |mut base: Value, more: Value| {
        base.as_object_mut()
            .unwrap()
            .extend(more.as_object().unwrap().clone());
        base
    };
    let unset = json!({"code": "STATUS_CODE_UNSET", "message": ""});
    let description =
        "Get entities: one by `id`, or all of them (optionally of one kind), oldest first.";

    // Each request's span is a server span whose parent is the client's span
    // named in its `_meta`, in the client's trace, with its `tracestate`.
    for (request_id, client_span) in [
        ("1", "1111111111111111"),
        ("2", "2222222222222222"),
        ("3", "3333333333333333"),
        ("4", "4444444444444444"),
        ("5", "5555555555555555"),
    ] {
        let span = server(request_id);
        assert_eq!(span["kind"], "SPAN_KIND_SERVER");
        assert_eq!(span["trace_id"], CLIENT_TRACE);
        assert_eq!(span["parent_span_id"], client_span);
        assert_eq!(span["trace_state"], "congo=t61rcWkgMzE");
        assert_eq!(span["scope"], "example-mcp-server");
        assert_eq!(span["service"], "otel-test-server");
        assert_eq!(span["links"], json!([]));
    }

    let list = server("1");
    assert_eq!(list["name"], "tools/list");
    assert_eq!(list["status"], unset);
    assert_eq!(list["attributes"], common("1", "tools/list"));

    // A call that runs: `tools/call {tool}`, and its run inside it.
    let call = server("2");
    assert_eq!(call["name"], "tools/call get_entities");
    assert_eq!(call["status"], unset);
    let call_attributes = with(
        common("2", "tools/call"),
        json!({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_entities"}),
    );
    assert_eq!(call["attributes"], call_attributes);
    let run = run_of(call);
    assert_eq!(run["name"], "execute_tool get_entities");
    assert_eq!(run["kind"], "SPAN_KIND_INTERNAL");
    assert_eq!(run["trace_id"], CLIENT_TRACE);
    assert_eq!(run["status"], unset);
    let run_attributes = json!({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_entities",
        "gen_ai.tool.description": description,
        "gen_ai.tool.call.id": "2",
        "toolkit.tool.scope": "shared",
        "toolkit.tool.tier": "auto",
        "toolkit.view": "internal",
        "toolkit.principal": "local|internal",
        "toolkit.outcome": "ok",
    });
    assert_eq!(run["attributes"], run_attributes);

    // A tool that fails (`isError`): both spans are errors.
    let failed = server("3");
    assert_eq!(failed["name"], "tools/call get_entities");
    assert_eq!(
        failed["status"],
        json!({"code": "STATUS_CODE_ERROR", "message": ""})
    );
    assert_eq!(
        failed["attributes"],
        with(
            common("3", "tools/call"),
            json!({
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_entities",
                "error.type": "tool_error",
            }),
        )
    );
    let run = run_of(failed);
    assert_eq!(run["name"], "execute_tool get_entities");
    // The tool's message quotes its input (`no entity with id 999`): the
    // status says the kind only, as the server logs no tool's arguments.
    assert_eq!(
        run["status"],
        json!({"code": "STATUS_CODE_ERROR", "message": "failed"})
    );
    assert_eq!(
        run["attributes"],
        with(
            run_attributes.clone(),
            json!({"gen_ai.tool.call.id": "3", "toolkit.outcome": "failed", "error.type": "failed"}),
        )
    );

    // A name that is no tool's stays out of the span names.
    let unknown = server("4");
    assert_eq!(unknown["name"], "tools/call");
    assert_eq!(
        unknown["status"],
        json!({"code": "STATUS_CODE_ERROR", "message": ""})
    );
    assert_eq!(
        unknown["attributes"],
        with(
            common("4", "tools/call"),
            json!({"gen_ai.operation.name": "execute_tool", "error.type": "tool_error"}),
        )
    );
    let run = run_of(unknown);
    assert_eq!(run["name"], "execute_tool");
    assert_eq!(
        run["status"],
        json!({"code": "STATUS_CODE_ERROR", "message": "unknown_tool"})
    );
    assert_eq!(
        run["attributes"],
        json!({
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "no_such_tool",
            "gen_ai.tool.call.id": "4",
            "toolkit.view": "internal",
            "toolkit.principal": "local|internal",
            "toolkit.outcome": "unknown_tool",
            "error.type": "unknown_tool",
        })
    );

    // A JSON-RPC error: its code is the error type, its message the status's.
    let lacking = server("5");
    assert_eq!(lacking["name"], "prompts/list");
    assert_eq!(
        lacking["status"],
        json!({"code": "STATUS_CODE_ERROR", "message": "prompts/list"})
    );
    assert_eq!(
        lacking["attributes"],
        with(
            common("5", "prompts/list"),
            json!({"error.type": "-32601", "rpc.response.status_code": "-32601"}),
        )
    );

    // No trace context: a trace of its own.
    let own = server("six");
    assert_eq!(own["parent_span_id"], "");
    assert_ne!(own["trace_id"], CLIENT_TRACE);
    assert_eq!(run_of(own)["trace_id"], own["trace_id"]);

    // Metrics: calls by tool and outcome, errors by kind, durations; a name that
    // is no tool's is `_OTHER`.
    let metrics = document["metrics"].as_array().expect("metrics");
    let points = |name: &str| -> Vec<(Value, Value)> {
        metrics
            .iter()
            .filter(|point| point["name"] == name)
            .map(|point| {
                let value = point.get("value").unwrap_or(&point["count"]).clone();
                (point["attributes"].clone(), value)
            })
            .collect()
    };
    assert_eq!(
        points("toolkit.tool.calls"),
        vec![
            (
                json!({"gen_ai.tool.name": "_OTHER", "toolkit.outcome": "unknown_tool"}),
                json!(1)
            ),
            (
                json!({"gen_ai.tool.name": "get_entities", "toolkit.outcome": "failed"}),
                json!(1)
            ),
            (
                json!({"gen_ai.tool.name": "get_entities", "toolkit.outcome": "ok"}),
                json!(2)
            ),
        ]
    );
    assert_eq!(
        points("toolkit.tool.errors"),
        vec![
            (
                json!({"error.type": "failed", "gen_ai.tool.name": "get_entities"}),
                json!(1)
            ),
            (
                json!({"error.type": "unknown_tool", "gen_ai.tool.name": "_OTHER"}),
                json!(1)
            ),
        ]
    );
    assert_eq!(
        points("toolkit.tool.duration"),
        vec![
            (
                json!({"error.type": "failed", "gen_ai.tool.name": "get_entities"}),
                json!(1)
            ),
            (
                json!({"error.type": "unknown_tool", "gen_ai.tool.name": "_OTHER"}),
                json!(1)
            ),
            (json!({"gen_ai.tool.name": "get_entities"}), json!(2)),
        ]
    );
    let request = |more: Value| {
        with(
            json!({"mcp.protocol.version": "2026-07-28", "network.transport": "tcp"}),
            more,
        )
    };
    assert_eq!(
        points("mcp.server.operation.duration"),
        vec![
            (
                request(
                    json!({"mcp.method.name": "prompts/list", "error.type": "-32601", "rpc.response.status_code": "-32601"})
                ),
                json!(1)
            ),
            (
                request(
                    json!({"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_entities", "error.type": "tool_error"})
                ),
                json!(1)
            ),
            (
                request(
                    json!({"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "error.type": "tool_error"})
                ),
                json!(1)
            ),
            (
                request(
                    json!({"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_entities"})
                ),
                json!(2)
            ),
            (request(json!({"mcp.method.name": "tools/list"})), json!(1)),
        ]
    );
    for point in metrics.iter().filter(|point| point["kind"] == "histogram") {
        assert_eq!(point["unit"], "s");
        assert_eq!(
            point["bounds"],
            json!([
                0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0
            ])
        );
    }
}

/// `SIGTERM` and `SIGINT` right after a call, with export intervals of ten
/// minutes: the call's spans and metrics reach the collector only because the
/// server flushes them as it stops (the signals' default action would end it
/// with them unsent).
#[test]
fn a_signal_right_after_a_call_still_exports_its_spans_and_metrics() {
    let server = std::env::var("MCP_SERVER_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_mcp_server").to_owned());
    for signal in ["TERM", "INT"] {
        let Some(stdout) = common::run_script(
            "otel_test.sh",
            &["python3"],
            &[("MCP_SERVER_BIN", &server), ("OTEL_TEST_SIGNAL", signal)],
            "the OpenTelemetry export on a signal",
        ) else {
            return;
        };
        let document: Value = serde_json::from_str(&stdout).expect("the script prints JSON");
        assert_eq!(document["statuses"], json!([200]), "SIG{signal}");
        assert_eq!(document["exit_code"], 0, "SIG{signal}");
        let seconds = document["seconds_to_exit"].as_f64().expect("seconds");
        assert!(seconds < 6.0, "SIG{signal}: {seconds} s to exit");
        let mut names: Vec<&str> = document["spans"]
            .as_array()
            .expect("spans")
            .iter()
            .map(|span| span["name"].as_str().expect("a name"))
            .collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["execute_tool get_entities", "tools/call get_entities"],
            "SIG{signal}"
        );
        let calls: Vec<&Value> = document["metrics"]
            .as_array()
            .expect("metrics")
            .iter()
            .filter(|point| point["name"] == "toolkit.tool.calls")
            .collect();
        assert_eq!(calls.len(), 1, "SIG{signal}: {calls:?}");
        assert_eq!(
            calls[0]["attributes"],
            json!({"gen_ai.tool.name": "get_entities", "toolkit.outcome": "ok"})
        );
        assert_eq!(calls[0]["value"], 1);
    }
}
