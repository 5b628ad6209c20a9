//! Quotas as a caller meets them: declared on the tool, overridden per view and
//! principal class, counted by every door that runs a tool (a call, a nested
//! call, an approved run), refused with the wait, and answered over MCP as a
//! tool result.
//!
//! A binary of its own: its `#[tool]` functions are its registry's tools.

// The tools are `async`, as most real tools are, though these never await.
#![allow(clippy::unused_async)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use toolkit::approval::{ApprovalKey, Approvals, Decision, MemoryApprovalStore};
use toolkit::call::CallId;
use toolkit::quota::{MemoryQuotaStore, QuotaProblem, Quotas};
use toolkit::{Context, Response, Scope, State, ToolError, View, tool};

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

/// How many transfers ran, by amount: each test moves its own amount, so tests
/// running at once do not see each other's runs.
static TRANSFERS_RUN: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());

fn transfers_of(amount: u64) -> usize {
    TRANSFERS_RUN
        .lock()
        .unwrap()
        .iter()
        .filter(|&&ran| ran == amount)
        .count()
}
static PAYMENTS_RUN: AtomicUsize = AtomicUsize::new(0);
static PAYMENTS_TO_FAIL: AtomicUsize = AtomicUsize::new(0);

/// Create a transfer between two accounts.
#[tool(scope = shared, tier = auto, quota = "3/min")]
async fn create_transfers(
    /// Cents to move.
    amount: u64,
) -> u64 {
    TRANSFERS_RUN.lock().unwrap().push(amount);
    amount
}

/// Get the balance of the account.
#[tool(scope = shared, tier = auto, quota = "3/min")]
async fn get_balance() -> u64 {
    7
}

/// Get the exchange rates; no limit.
#[tool(scope = shared, tier = auto)]
async fn get_rates() -> u64 {
    1
}

/// Send a payment to someone outside the bank.
#[tool(scope = shared, tier = approve, quota = "1/min")]
async fn create_payments(
    /// Cents to send.
    amount: u64,
) -> Result<u64, ToolError> {
    if PAYMENTS_TO_FAIL
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
            left.checked_sub(1)
        })
        .is_ok()
    {
        return Err(ToolError::failed("the bank did not answer"));
    }
    PAYMENTS_RUN.fetch_add(1, Ordering::SeqCst);
    Ok(amount)
}

/// The view a tool calls other tools through.
#[derive(Clone)]
struct Nested(Arc<View<'static>>);

/// Plan a trip: moves money for the tickets through the caller's own view.
#[tool(scope = shared, tier = auto)]
async fn create_trips(#[ctx] nested: State<Nested>) -> Result<String, ToolError> {
    let Nested(view) = &*nested;
    let response = view
        .call("create_transfers", r#"{"amount": 12}"#, &Context::new())
        .await;
    match response {
        Response::Result(value) => Ok(format!("moved {value}")),
        Response::Error(error) => Err(error),
        other => Err(ToolError::failed(format!("unexpected {other:?}"))),
    }
}

/// A store on a clock the test moves by hand (milliseconds).
fn pinned_store() -> (MemoryQuotaStore, Arc<AtomicU64>) {
    let millis = Arc::new(AtomicU64::new(5_000_000));
    let clock = Arc::clone(&millis);
    let store =
        MemoryQuotaStore::new().clock(move || Duration::from_millis(clock.load(Ordering::SeqCst)));
    (store, millis)
}

fn view<'q>(quotas: &'q Quotas, principal: &str) -> View<'q> {
    toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .principal(p(principal))
        .quotas(quotas)
        .build()
        .unwrap()
}

fn call(view: &View<'_>, name: &str, arguments: &str) -> Response {
    futures_executor::block_on(view.call(name, arguments, &Context::new()))
}

fn refusal(tool: &str, words: &str, retry_after_ms: u64) -> ToolError {
    ToolError::RateLimited {
        tool: tool.to_owned(),
        limit: words.parse().unwrap(),
        retry_after_ms,
    }
}

#[test]
fn a_principal_gets_exactly_its_quota_and_the_next_call_is_refused_with_the_wait() {
    let (store, millis) = pinned_store();
    let quotas = Quotas::builder(toolkit::registry(), store).build().unwrap();
    let ann = view(&quotas, "user:ann");
    for _ in 0..3 {
        assert_eq!(
            call(&ann, "create_transfers", r#"{"amount": 5}"#).result(),
            Some(&json!(5))
        );
    }
    let refused = call(&ann, "create_transfers", r#"{"amount": 5}"#);
    let error = refused.error().unwrap();
    assert_eq!(error, &refusal("create_transfers", "3/min", 20_000));
    assert_eq!(
        error.to_string(),
        "`create_transfers` may be called 3 times a minute by each caller; try again in 20 s"
    );
    assert_eq!(error.kind(), "rate_limited");
    assert_eq!(
        refused.to_json(),
        json!({"error": {
            "kind": "rate_limited",
            "tool": "create_transfers",
            "limit": "3/min",
            "retry_after_ms": 20000,
            "message": "`create_transfers` may be called 3 times a minute by each caller; try again in 20 s",
        }})
    );
    // A refused call ran nothing.
    assert_eq!(transfers_of(5), 3);
    // 12.5 s later the wait left is 7.5 s, said in whole seconds rounded up.
    millis.fetch_add(12_500, Ordering::SeqCst);
    let error = call(&ann, "create_transfers", r#"{"amount": 5}"#);
    assert_eq!(
        error.error(),
        Some(&refusal("create_transfers", "3/min", 7_500))
    );
    assert_eq!(
        error.error().unwrap().to_string(),
        "`create_transfers` may be called 3 times a minute by each caller; try again in 8 s"
    );
    millis.fetch_add(7_500, Ordering::SeqCst);
    assert_eq!(
        call(&ann, "create_transfers", r#"{"amount": 5}"#).result(),
        Some(&json!(5))
    );
    assert_eq!(transfers_of(5), 4);
}

#[test]
fn another_principal_and_another_tool_are_counted_apart() {
    let (store, _) = pinned_store();
    let quotas = Quotas::builder(toolkit::registry(), store).build().unwrap();
    let ann = view(&quotas, "user:ann");
    let bob = view(&quotas, "user:bob");
    for _ in 0..3 {
        assert!(
            call(&ann, "create_transfers", r#"{"amount": 1}"#)
                .result()
                .is_some()
        );
    }
    assert!(
        call(&ann, "create_transfers", r#"{"amount": 1}"#)
            .error()
            .is_some()
    );
    for _ in 0..3 {
        assert!(
            call(&bob, "create_transfers", r#"{"amount": 1}"#)
                .result()
                .is_some()
        );
        assert!(call(&ann, "get_balance", "{}").result().is_some());
    }
    // A tool without a limit is never counted.
    for _ in 0..50 {
        assert!(call(&ann, "get_rates", "{}").result().is_some());
    }
}

#[test]
fn a_view_s_and_a_class_s_limits_win_over_the_declared_default() {
    let (store, _) = pinned_store();
    let quotas = Quotas::builder(toolkit::registry(), store)
        .tool(get_rates::NAME, "2/h".parse().unwrap())
        .view("voice", create_transfers::NAME, "1/min".parse().unwrap())
        .class("staff", create_transfers::NAME, "5/s".parse().unwrap())
        .build()
        .unwrap();
    let build = |principal: &str, label: Option<&'static str>, class: Option<&'static str>| {
        let mut builder = toolkit::registry()
            .view()
            .scopes([Scope::Shared])
            .principal(p(principal))
            .quotas(&quotas);
        if let Some(label) = label {
            builder = builder.label(label);
        }
        if let Some(class) = class {
            builder = builder.quota_class(class);
        }
        builder.build().unwrap()
    };
    let voice = build("user:ann", Some("voice"), None);
    assert!(
        call(&voice, "create_transfers", r#"{"amount": 1}"#)
            .result()
            .is_some()
    );
    assert_eq!(
        call(&voice, "create_transfers", r#"{"amount": 1}"#).error(),
        Some(&refusal("create_transfers", "1/min", 60_000))
    );
    // The class wins over the view.
    let staff = build("user:root", Some("voice"), Some("staff"));
    for _ in 0..5 {
        assert!(
            call(&staff, "create_transfers", r#"{"amount": 1}"#)
                .result()
                .is_some()
        );
    }
    assert_eq!(
        call(&staff, "create_transfers", r#"{"amount": 1}"#).error(),
        Some(&refusal("create_transfers", "5/s", 200))
    );
    // A run-time limit on a tool that declared none.
    let plain = build("user:cy", None, None);
    for _ in 0..2 {
        assert!(call(&plain, "get_rates", "{}").result().is_some());
    }
    assert_eq!(
        call(&plain, "get_rates", "{}").error(),
        Some(&refusal("get_rates", "2/h", 1_800_000))
    );
}

#[test]
fn an_unknown_tool_in_an_override_is_an_error_when_built() {
    let error = Quotas::builder(toolkit::registry(), MemoryQuotaStore::new())
        .view("voice", "create_transfer", "1/min".parse().unwrap())
        .class("trial", "delete_everything", "1/min".parse().unwrap())
        .fail_open(create_payments::NAME)
        .build()
        .unwrap_err();
    assert_eq!(
        error.problems,
        [
            QuotaProblem::UnknownTool {
                name: "create_transfer".to_owned(),
                suggestion: Some("create_transfers".to_owned()),
            },
            QuotaProblem::UnknownTool {
                name: "delete_everything".to_owned(),
                suggestion: None,
            },
            QuotaProblem::FailOpenGuarded {
                tool: "create_payments",
                tier: toolkit::Tier::Approve,
            },
        ]
    );
    assert_eq!(
        error.to_string(),
        "the quotas could not be built: unknown tool `create_transfer`; did you mean `create_transfers`?; unknown tool `delete_everything`; `create_payments` is a `approve` tool and cannot fail open: when the quota store fails, calls a human guards are refused; remove `fail_open` for it"
    );
}

#[test]
fn a_view_with_quotas_and_no_principal_is_not_built() {
    let quotas = Quotas::builder(toolkit::registry(), MemoryQuotaStore::new())
        .build()
        .unwrap();
    let error = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .quotas(&quotas)
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the view could not be built: the view counts calls against quotas and acts for no principal; add `.principal(..)` (or `.approvals(..)`) naming whom it acts for"
    );
}

#[test]
fn a_nested_call_counts_once() {
    let (store, _) = pinned_store();
    let quotas: &'static Quotas = Box::leak(Box::new(
        Quotas::builder(toolkit::registry(), store).build().unwrap(),
    ));
    let ann = Arc::new(view(quotas, "user:ann"));
    let ctx = Context::new().with(Nested(Arc::clone(&ann)));
    let run =
        |name: &str, arguments: &str| futures_executor::block_on(ann.call(name, arguments, &ctx));
    // Two nested calls and one direct one spend the three calls of the minute.
    assert_eq!(run("create_trips", "{}").result(), Some(&json!("moved 12")));
    assert_eq!(run("create_trips", "{}").result(), Some(&json!("moved 12")));
    assert!(
        run("create_transfers", r#"{"amount": 1}"#)
            .result()
            .is_some()
    );
    assert_eq!(
        run("create_trips", "{}").error(),
        Some(&refusal("create_transfers", "3/min", 20_000))
    );
}

/// A store that cannot answer.
struct Down;

impl toolkit::quota::QuotaStore for Down {
    fn check<'a>(
        &'a self,
        _: toolkit::quota::QuotaKey<'a>,
        _: toolkit::quota::Quota,
    ) -> toolkit::quota::QuotaFuture<'a, toolkit::quota::Admission> {
        Box::pin(std::future::ready(Err(
            toolkit::quota::QuotaStoreError::new("the database is down"),
        )))
    }
}

#[test]
fn when_the_store_fails_only_tools_declared_to_fail_open_run() {
    let quotas = Quotas::builder(toolkit::registry(), Down)
        .fail_open(get_balance::NAME)
        .build()
        .unwrap();
    let ann = view(&quotas, "user:ann");
    assert_eq!(call(&ann, "get_balance", "{}").result(), Some(&json!(7)));
    assert_eq!(
        call(&ann, "create_transfers", r#"{"amount": 404}"#)
            .error()
            .map(ToString::to_string)
            .as_deref(),
        Some(
            "`create_transfers` could not be counted against its quota, so it did not run; try again later"
        )
    );
    assert_eq!(transfers_of(404), 0);
}

fn approvals() -> Approvals {
    Approvals::new(
        ApprovalKey::new(*b"an application secret of 32 bytes").unwrap(),
        MemoryApprovalStore::new(),
    )
}

#[test]
fn the_pending_approvals_limit_refuses_the_next_open_approval() {
    let approvals = approvals();
    let quotas = Quotas::builder(toolkit::registry(), MemoryQuotaStore::new())
        .pending_approvals(2)
        .build()
        .unwrap();
    let ann = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(&approvals, p("user:ann"))
        .quotas(&quotas)
        .build()
        .unwrap();
    let ask = |id: &str| {
        let ctx = Context::new().with(CallId::new(id));
        futures_executor::block_on(ann.call("create_payments", r#"{"amount": 3}"#, &ctx))
    };
    assert!(matches!(ask("call-1"), Response::Pending(_)));
    assert!(matches!(ask("call-2"), Response::Pending(_)));
    // The same call asked again opens nothing new and is not refused.
    assert!(matches!(ask("call-2"), Response::Pending(_)));
    let refused = ask("call-3");
    assert_eq!(
        refused.error(),
        Some(&ToolError::TooManyPending {
            tool: "create_payments".to_owned(),
            limit: 2,
            of_tool: false,
        })
    );
    assert_eq!(
        refused.error().unwrap().to_string(),
        "`create_payments` was not asked for: 2 of your calls already wait for a person's approval, the most that may; try again once one is decided"
    );
    // Another principal has its own inbox allowance.
    let bob = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(&approvals, p("user:bob"))
        .quotas(&quotas)
        .build()
        .unwrap();
    let ctx = Context::new().with(CallId::new("call-1"));
    assert!(matches!(
        futures_executor::block_on(bob.call("create_payments", r#"{"amount": 3}"#, &ctx)),
        Response::Pending(_)
    ));
}

#[test]
fn an_approved_run_counts_once_when_it_runs_and_never_on_a_retry() {
    let approvals = approvals();
    let (store, millis) = pinned_store();
    let quotas = Quotas::builder(toolkit::registry(), store).build().unwrap();
    let ann = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(&approvals, p("user:ann"))
        .quotas(&quotas)
        .build()
        .unwrap();
    let decide = |id: &str| {
        let ctx = Context::new().with(CallId::new(id));
        let Response::Pending(pending) =
            futures_executor::block_on(ann.call("create_payments", r#"{"amount": 3}"#, &ctx))
        else {
            panic!("pending");
        };
        futures_executor::block_on(approvals.decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin"),
        ))
        .unwrap()
    };
    let resume = |approval| futures_executor::block_on(ann.resume(approval, &Context::new()));
    // Asking is not running: two calls wait, nothing was counted yet.
    let first = decide("pay-1");
    let second = decide("pay-2");
    let ran = PAYMENTS_RUN.load(Ordering::SeqCst);
    // The first run fails once; its retry is the same run and is not counted again.
    PAYMENTS_TO_FAIL.store(1, Ordering::SeqCst);
    assert!(resume(&first).error().is_some());
    assert_eq!(resume(&first).result(), Some(&json!(3)));
    assert_eq!(PAYMENTS_RUN.load(Ordering::SeqCst), ran + 1);
    // The second run is over the minute's one call: refused, nothing ran.
    assert_eq!(
        resume(&second).error(),
        Some(&refusal("create_payments", "1/min", 60_000))
    );
    assert_eq!(PAYMENTS_RUN.load(Ordering::SeqCst), ran + 1);
    // Tried again once the minute passed, the refused run is counted and runs.
    millis.fetch_add(60_000, Ordering::SeqCst);
    assert_eq!(resume(&second).result(), Some(&json!(3)));
    assert_eq!(PAYMENTS_RUN.load(Ordering::SeqCst), ran + 2);
}

/// The exact JSON-RPC answer of a `tools/call` its quota refuses: a tool result
/// with `isError`, the text the model reads, the error's detail and the wait in
/// `_meta`; no JSON-RPC error. `tools/list` lists the same tools before and after.
#[cfg(feature = "mcp")]
#[tokio::test]
async fn a_refused_tools_call_is_an_error_result_with_the_wait() {
    use tower::ServiceExt as _;
    let (store, _) = pinned_store();
    let quotas: &'static Quotas = Box::leak(Box::new(
        Quotas::builder(toolkit::registry(), store).build().unwrap(),
    ));
    let access = move |_: &toolkit::mcp::Caller<'_>| {
        Ok(toolkit::mcp::Grant::new(
            view(quotas, "user:ann"),
            Context::new(),
        ))
    };
    let router = toolkit::mcp::McpHttp::new(access)
        .endpoint("internal", "/mcp", "secret")
        .into_router();
    let send = |id: u32, method: &'static str| {
        let mut params = json!({
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        });
        let mut request = http::Request::post("/mcp")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("authorization", "Bearer secret")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        if method == "tools/call" {
            params["name"] = json!("get_balance");
            params["arguments"] = json!({});
            request = request.header("mcp-name", "get_balance");
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let request = request
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let router = router.clone();
        async move {
            let response = router.oneshot(request).await.unwrap();
            assert_eq!(response.status(), 200);
            let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap();
            serde_json::from_slice::<serde_json::Value>(&bytes).unwrap()
        }
    };
    let listed = |answer: serde_json::Value| -> Vec<String> {
        answer["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let before = listed(send(100, "tools/list").await);
    assert!(
        before.iter().any(|name| name == "get_balance"),
        "{before:?}"
    );
    for id in 1..=3 {
        assert_eq!(
            send(id, "tools/call").await["result"]["structuredContent"],
            json!(7)
        );
    }
    let message = "`get_balance` may be called 3 times a minute by each caller; try again in 20 s";
    assert_eq!(
        send(4, "tools/call").await,
        json!({
            "jsonrpc": "2.0",
            "id": 4,
            "result": {
                "resultType": "complete",
                "content": [{"type": "text", "text": message}],
                "isError": true,
                "_meta": {
                    "retryAfterMs": 20000,
                    "toolkit/error": {
                        "kind": "rate_limited",
                        "tool": "get_balance",
                        "limit": "3/min",
                        "retry_after_ms": 20000,
                        "message": message,
                    },
                },
            },
        })
    );
    // What was spent never changes what the caller sees.
    assert_eq!(listed(send(101, "tools/list").await), before);
}

/// Every event, as `span: field=value ...`.
#[derive(Clone, Default)]
struct Events(Arc<std::sync::Mutex<Vec<String>>>);

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write as _;
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
}

impl<S> tracing_subscriber::Layer<S> for Events
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_event(&self, event: &tracing::Event<'_>, ctx: tracing_subscriber::layer::Context<'_, S>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        let span = ctx
            .event_span(event)
            .map_or_else(String::new, |span| span.name().to_owned());
        self.0.lock().unwrap().push(format!("{span}:{}", fields.0));
    }
}

#[test]
fn a_refusal_is_an_event_on_the_call_s_span_with_the_quota() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let events = Events::default();
    let subscriber = tracing_subscriber::registry().with(events.clone());
    let (store, _) = pinned_store();
    let quotas = Quotas::builder(toolkit::registry(), store).build().unwrap();
    let ann = view(&quotas, "user:ann");
    tracing::subscriber::with_default(subscriber, || {
        for _ in 0..4 {
            let _ = call(&ann, "get_balance", "{}");
        }
    });
    let refusals: Vec<String> = events
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|event| event.contains("refused by its quota"))
        .cloned()
        .collect();
    // The tool run's span: OpenTelemetry's, inside `toolkit.call`, when `otel` is on.
    let span = if cfg!(feature = "otel") {
        "gen_ai.execute_tool"
    } else {
        "toolkit.call"
    };
    assert_eq!(
        refusals,
        [format!(
            "{span}: message=the call was refused by its quota toolkit.quota.limit=3 toolkit.quota.period=\"minute\" toolkit.quota.retry_after_ms=20000"
        )]
    );
}

/// A request sent to the MCP endpoint with `token`: `tools/list`.
#[cfg(feature = "mcp")]
fn list_request(token: &str) -> http::Request<axum::body::Body> {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    });
    http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {token}"))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap()
}

/// The status, `Retry-After` and body of an answer.
#[cfg(feature = "mcp")]
async fn answered(response: axum::response::Response) -> (u16, Option<String>, String) {
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().to_owned());
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        retry_after,
        String::from_utf8(bytes.to_vec()).unwrap(),
    )
}

/// The exact wire of a request over the caller's request limit: `429`, a
/// `Retry-After` in whole seconds, one line of text, and no JSON-RPC error; a
/// refused request spends nothing, and the limit comes back with time.
#[cfg(feature = "mcp")]
#[tokio::test]
async fn a_request_over_the_callers_limit_is_answered_429_with_retry_after() {
    use tower::ServiceExt as _;
    let (store, millis) = pinned_store();
    let access = every_call_as("user:ann");
    let router = toolkit::mcp::McpHttp::new(access)
        .endpoint("internal", "/mcp", "secret")
        .request_limit("2/min".parse().unwrap(), store)
        .into_router();
    for _ in 0..2 {
        let (status, retry_after, _) = answered(
            router
                .clone()
                .oneshot(list_request("secret"))
                .await
                .unwrap(),
        )
        .await;
        assert_eq!((status, retry_after), (200, None));
    }
    let refused = (
        429,
        Some("30".to_owned()),
        "too many requests: each caller may send requests twice a minute; try again in 30 s"
            .to_owned(),
    );
    for _ in 0..2 {
        assert_eq!(
            answered(
                router
                    .clone()
                    .oneshot(list_request("secret"))
                    .await
                    .unwrap()
            )
            .await,
            refused
        );
    }
    // A request without the token is refused for that, and counts nothing.
    assert_eq!(
        answered(router.clone().oneshot(list_request("wrong")).await.unwrap())
            .await
            .0,
        401
    );
    millis.fetch_add(29_500, Ordering::SeqCst);
    assert_eq!(
        answered(
            router
                .clone()
                .oneshot(list_request("secret"))
                .await
                .unwrap()
        )
        .await,
        (
            429,
            Some("1".to_owned()),
            "too many requests: each caller may send requests twice a minute; try again in 1 s"
                .to_owned()
        )
    );
    millis.fetch_add(500, Ordering::SeqCst);
    assert_eq!(
        answered(
            router
                .clone()
                .oneshot(list_request("secret"))
                .await
                .unwrap()
        )
        .await
        .0,
        200
    );
}

/// Tokens that speak for `ann` (two of them: she signed in again) or `bob`.
#[cfg(feature = "oauth")]
struct TwoSignIns;

#[cfg(feature = "oauth")]
impl toolkit::mcp::auth::TokenVerifier for TwoSignIns {
    fn verify<'a>(&'a self, token: &'a str) -> toolkit::mcp::auth::VerifyFuture<'a> {
        let subject = match token {
            "ann-first" | "ann-again" => Some("ann"),
            "bob" => Some("bob"),
            _ => None,
        };
        Box::pin(std::future::ready(subject.map_or_else(
            || {
                Err(toolkit::mcp::auth::AuthError::InvalidToken(
                    "unknown token".to_owned(),
                ))
            },
            |subject| {
                let principal =
                    toolkit::Principal::new("https://issuer.test", subject).map_err(|error| {
                        toolkit::mcp::auth::AuthError::InvalidToken(error.to_string())
                    })?;
                Ok(toolkit::mcp::auth::VerifiedToken::new(principal, ["mcp"]))
            },
        )))
    }
}

/// The request limit counts the token's principal: a new token of the same user
/// (signing in again) gains nothing; another user has a limit of their own.
#[cfg(feature = "oauth")]
#[tokio::test]
async fn signing_in_again_does_not_refill_the_request_limit() {
    use tower::ServiceExt as _;
    let (store, _) = pinned_store();
    let quotas: &'static Quotas = Box::leak(Box::new(
        Quotas::builder(toolkit::registry(), MemoryQuotaStore::new())
            .build()
            .unwrap(),
    ));
    let access = move |caller: &toolkit::mcp::Caller<'_>| {
        let token = caller
            .token()
            .ok_or(toolkit::mcp::AccessError::NoVerifiedToken)?;
        Ok(toolkit::mcp::Grant::new(
            view(quotas, token.principal.subject()),
            Context::new(),
        ))
    };
    let auth = toolkit::mcp::auth::ResourceServer::new("http://localhost/mcp", TwoSignIns)
        .unwrap()
        .required_scopes(["mcp"]);
    let router = toolkit::mcp::McpHttp::new(access)
        .oauth_endpoint("oauth", "/mcp", auth)
        .request_limit("2/min".parse().unwrap(), store)
        .into_router();
    let status = |token: &'static str| {
        let router = router.clone();
        async move {
            answered(router.oneshot(list_request(token)).await.unwrap())
                .await
                .0
        }
    };
    assert_eq!(status("ann-first").await, 200);
    assert_eq!(status("ann-first").await, 200);
    assert_eq!(status("ann-first").await, 429);
    assert_eq!(status("ann-again").await, 429);
    assert_eq!(status("bob").await, 200);
}

/// What the OpenTelemetry SDK exported: each sum's name, tool and value.
#[cfg(feature = "otel")]
#[derive(Clone, Debug, Default)]
struct Exported(Arc<std::sync::Mutex<Vec<(String, String, u64)>>>);

#[cfg(feature = "otel")]
impl opentelemetry_sdk::metrics::exporter::PushMetricExporter for Exported {
    fn export(
        &self,
        metrics: &opentelemetry_sdk::metrics::data::ResourceMetrics,
    ) -> impl Future<Output = opentelemetry_sdk::error::OTelSdkResult> + Send {
        use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
        let mut exported = self.0.lock().unwrap();
        for scope in metrics.scope_metrics() {
            for metric in scope.metrics() {
                if let AggregatedMetrics::U64(MetricData::Sum(sum)) = metric.data() {
                    for point in sum.data_points() {
                        let tool = point
                            .attributes()
                            .find(|pair| pair.key.as_str() == "gen_ai.tool.name")
                            .map(|pair| pair.value.to_string())
                            .unwrap_or_default();
                        exported.push((metric.name().to_owned(), tool, point.value()));
                    }
                }
            }
        }
        std::future::ready(Ok(()))
    }

    fn force_flush(&self) -> opentelemetry_sdk::error::OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _: Duration) -> opentelemetry_sdk::error::OTelSdkResult {
        Ok(())
    }

    fn temporality(&self) -> opentelemetry_sdk::metrics::Temporality {
        opentelemetry_sdk::metrics::Temporality::Cumulative
    }
}

/// Every refusal is counted in `toolkit.quota.refusals`, by tool, and the SDK
/// exports it: two refused calls of `get_rates` (a tool no other test here
/// refuses) export a sum of 2.
#[cfg(feature = "otel")]
#[test]
fn refusals_are_exported_in_the_quota_refusals_counter() {
    use opentelemetry::metrics::MeterProvider as _;
    let exported = Exported::default();
    let provider = opentelemetry_sdk::metrics::SdkMeterProvider::builder()
        .with_reader(opentelemetry_sdk::metrics::PeriodicReader::builder(exported.clone()).build())
        .build();
    toolkit::otel::install_metrics(&provider.meter("quota-test")).unwrap();
    let (store, _) = pinned_store();
    let quotas = Quotas::builder(toolkit::registry(), store)
        .tool(get_rates::NAME, "1/min".parse().unwrap())
        .build()
        .unwrap();
    let ann = view(&quotas, "user:ann");
    assert_eq!(call(&ann, "get_rates", "{}").result(), Some(&json!(1)));
    for _ in 0..2 {
        assert_eq!(
            call(&ann, "get_rates", "{}").error(),
            Some(&refusal("get_rates", "1/min", 60_000))
        );
    }
    provider.force_flush().unwrap();
    let refusals: Vec<u64> = exported
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|(name, tool, _)| name == "toolkit.quota.refusals" && tool == "get_rates")
        .map(|&(_, _, value)| value)
        .collect();
    assert_eq!(refusals.last(), Some(&2), "{refusals:?}");
}

/// The MCP access of a server whose every caller's view is `principal`'s, with
/// no quota but the tools' declared ones, counted in memory.
#[cfg(feature = "mcp")]
fn every_call_as(principal: &'static str) -> impl toolkit::mcp::Access {
    let quotas: &'static Quotas = Box::leak(Box::new(
        Quotas::builder(toolkit::registry(), MemoryQuotaStore::new())
            .build()
            .unwrap(),
    ));
    move |_: &toolkit::mcp::Caller<'_>| {
        Ok(toolkit::mcp::Grant::new(
            view(quotas, principal),
            Context::new(),
        ))
    }
}

/// A request as it arrives from `peer` (the server's `ConnectInfo`), with
/// `forwarded` as its `X-Forwarded-For`, if any.
#[cfg(feature = "mcp")]
fn from_peer(
    mut request: http::Request<axum::body::Body>,
    peer: &str,
    forwarded: Option<&str>,
) -> http::Request<axum::body::Body> {
    let address = std::net::SocketAddr::new(peer.parse().unwrap(), 40000);
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo(address));
    if let Some(forwarded) = forwarded {
        request
            .headers_mut()
            .insert("x-forwarded-for", forwarded.parse().unwrap());
    }
    request
}

/// A request without a bearer token at all.
#[cfg(feature = "mcp")]
fn without_token() -> http::Request<axum::body::Body> {
    let mut request = list_request("unused");
    request.headers_mut().remove("authorization");
    request
}

/// A pinned clock for a peer limit: seconds moved by hand.
#[cfg(feature = "mcp")]
fn peer_clock() -> (toolkit::serving::PeerLimit, Arc<AtomicU64>) {
    let seconds = Arc::new(AtomicU64::new(0));
    let clock = Arc::clone(&seconds);
    let limit = toolkit::serving::PeerLimit::new("2/min".parse().unwrap())
        .clock(move || Duration::from_secs(clock.load(Ordering::SeqCst)));
    (limit, seconds)
}

/// The exact wire of a peer over its limit of failed authentications: `401`
/// while it has some left, then `429`, a `Retry-After` in whole seconds and one
/// line of text (no JSON-RPC error), before the token is even compared; another
/// peer counts apart; with time the peer may try again.
#[cfg(feature = "mcp")]
#[tokio::test]
async fn a_peer_that_keeps_failing_authentication_is_answered_429_before_its_token_is_read() {
    use tower::ServiceExt as _;
    let access = every_call_as("user:ann");
    let (limit, seconds) = peer_clock();
    let router = toolkit::mcp::McpHttp::new(access)
        .endpoint("internal", "/mcp", "secret")
        .peer_limit(limit)
        .into_router();
    let send = |request| {
        let router = router.clone();
        async move { answered(router.oneshot(request).await.unwrap()).await }
    };
    let unauthorized = (401, None, "a valid bearer token is required".to_owned());
    assert_eq!(
        send(from_peer(list_request("wrong"), "192.0.2.1", None)).await,
        unauthorized
    );
    assert_eq!(
        send(from_peer(without_token(), "192.0.2.1", None)).await,
        unauthorized
    );
    let refused = (
        429,
        Some("30".to_owned()),
        "too many requests without valid credentials from this address: each address may fail \
         twice a minute; try again in 30 s"
            .to_owned(),
    );
    assert_eq!(
        send(from_peer(list_request("wrong"), "192.0.2.1", None)).await,
        refused
    );
    // Refused before the token is looked at: the right one too, from that peer.
    assert_eq!(
        send(from_peer(list_request("secret"), "192.0.2.1", None)).await,
        refused
    );
    // Another peer has a count of its own; an address of the same IPv6 /64 not.
    assert_eq!(
        send(from_peer(list_request("secret"), "192.0.2.2", None))
            .await
            .0,
        200
    );
    for _ in 0..2 {
        assert_eq!(
            send(from_peer(without_token(), "2001:db8::1", None))
                .await
                .0,
            401
        );
    }
    assert_eq!(
        send(from_peer(without_token(), "2001:db8::ffff", None))
            .await
            .0,
        429
    );
    // Half a minute later the first peer may fail once more, and is refused again.
    seconds.store(30, Ordering::SeqCst);
    assert_eq!(
        send(from_peer(list_request("secret"), "192.0.2.1", None))
            .await
            .0,
        200
    );
    assert_eq!(
        send(from_peer(list_request("wrong"), "192.0.2.1", None)).await,
        unauthorized
    );
    assert_eq!(
        send(from_peer(list_request("wrong"), "192.0.2.1", None)).await,
        refused
    );
}

/// Tokens the test verifies, counting each verification: `bob` is valid,
/// anything else is not.
#[cfg(feature = "oauth")]
#[derive(Clone, Default)]
struct CountedVerifier(Arc<AtomicUsize>);

#[cfg(feature = "oauth")]
impl toolkit::mcp::auth::TokenVerifier for CountedVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> toolkit::mcp::auth::VerifyFuture<'a> {
        self.0.fetch_add(1, Ordering::SeqCst);
        let verified = (token == "bob")
            .then(|| toolkit::Principal::new("https://issuer.test", "bob").ok())
            .flatten()
            .map(|principal| toolkit::mcp::auth::VerifiedToken::new(principal, ["mcp"]))
            .ok_or_else(|| toolkit::mcp::auth::AuthError::InvalidToken("unknown token".to_owned()));
        Box::pin(std::future::ready(verified))
    }
}

/// On an OAuth endpoint the peer limit stands in front of the verifier: a peer
/// over it costs no verification. A valid token's requests are never counted
/// against its peer (only answers of 401 are), however many; an
/// `X-Forwarded-For` from a peer that is no trusted proxy is ignored, so a
/// client cannot spread its failures over addresses it makes up; from the
/// trusted proxy, each client it names counts apart.
#[cfg(feature = "oauth")]
#[tokio::test]
async fn the_peer_limit_counts_failures_only_and_believes_forwarded_addresses_from_trusted_proxies_only()
 {
    use tower::ServiceExt as _;
    let access = every_call_as("user:bob");
    let verifier = CountedVerifier::default();
    let verifications = Arc::clone(&verifier.0);
    let auth = toolkit::mcp::auth::ResourceServer::new("http://localhost/mcp", verifier)
        .unwrap()
        .required_scopes(["mcp"]);
    let (limit, _) = peer_clock();
    let router = toolkit::mcp::McpHttp::new(access)
        .oauth_endpoint("oauth", "/mcp", auth)
        .peer_limit(limit.trust_forwarded_for(["10.0.0.1".parse().unwrap()]))
        .into_router();
    let status = |request| {
        let router = router.clone();
        async move { answered(router.oneshot(request).await.unwrap()).await.0 }
    };

    // Valid tokens, many more than the limit: none of them counts.
    for _ in 0..5 {
        assert_eq!(
            status(from_peer(list_request("bob"), "192.0.2.7", None)).await,
            200
        );
    }
    assert_eq!(
        status(from_peer(list_request("forged"), "192.0.2.7", None)).await,
        401
    );
    assert_eq!(
        status(from_peer(list_request("forged"), "192.0.2.7", None)).await,
        401
    );
    assert_eq!(verifications.load(Ordering::SeqCst), 7);
    assert_eq!(
        status(from_peer(list_request("forged"), "192.0.2.7", None)).await,
        429
    );
    assert_eq!(
        verifications.load(Ordering::SeqCst),
        7,
        "refused unverified"
    );

    // A client that is no proxy makes up a new forwarded address each time: it
    // is counted as itself.
    for (made_up, expected) in [
        ("198.51.100.1", 401),
        ("198.51.100.2", 401),
        ("198.51.100.3", 429),
    ] {
        assert_eq!(
            status(from_peer(
                list_request("forged"),
                "203.0.113.5",
                Some(made_up)
            ))
            .await,
            expected,
            "{made_up}"
        );
    }
    // Through the trusted proxy, the client it names is the peer (the leftmost
    // entry, written by the client, is not believed); two clients count apart,
    // and the proxy itself is not blocked for either.
    for client in ["198.51.100.20", "198.51.100.21"] {
        for expected in [401, 401, 429] {
            assert_eq!(
                status(from_peer(
                    list_request("forged"),
                    "10.0.0.1",
                    Some(&format!("192.0.2.99, {client}"))
                ))
                .await,
                expected,
                "{client}"
            );
        }
    }
    assert_eq!(
        status(from_peer(
            list_request("bob"),
            "10.0.0.1",
            Some("198.51.100.22")
        ))
        .await,
        200
    );
}
