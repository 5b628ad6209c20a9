//! OpenTelemetry (feature `otel`): spans and metrics that follow the
//! [GenAI](https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/gen-ai-spans.md#execute-tool-span)
//! and [MCP](https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md)
//! semantic conventions.
//!
//! toolkit uses only the OpenTelemetry *API*: the application installs the SDK, an
//! exporter and a propagator, as for any instrumented library. Spans are `tracing`
//! spans (target `toolkit::otel`, level `INFO`) carrying OpenTelemetry's names and
//! attributes, which [`tracing_opentelemetry`]'s layer turns into OpenTelemetry
//! spans; so a tool's own `tracing` spans nest under the run that called them.
//!
//! # What is recorded
//!
//! **A span per MCP request or notification** the server receives, whatever the
//! method (served by `mcp::McpHttp` and `mcp::McpServer::serve_stdio`, with
//! feature `mcp`, or any rmcp service wrapped in `otel::McpSpans`): kind `SERVER`, named `{mcp.method.name}
//! {target}` (`tools/call get_tasks`, `tools/list`, `ping`), with `mcp.method.name`,
//! `jsonrpc.request.id`, `mcp.protocol.version`, `network.transport` (`tcp` over
//! HTTP, `pipe` over stdio), `network.protocol.name` (`http`), and for `tools/call`
//! `gen_ai.operation.name` (`execute_tool`) and `gen_ai.tool.name` (only for a tool
//! the caller has: a made-up name stays out of the span's name). Its parent is the
//! client's span named by `traceparent` and `tracestate` in the request's
//! `params._meta` (read with the global propagator); the span that was current when
//! the request arrived (an HTTP server span, say) is linked. A JSON-RPC error sets
//! `error.type` and `rpc.response.status_code` to its code and the span's status to
//! `ERROR` with the error's message (for invalid params, which may quote them,
//! the words `invalid params`); a tool result with `isError: true` sets
//! `error.type` to `tool_error` and the status to `ERROR`, so dashboards do not
//! look healthy while tools fail. The toolkit attribute `toolkit.client` names the
//! endpoint's client kind.
//!
//! **A `gen_ai.execute_tool` span per tool run** through
//! [`View::call`](crate::View::call), [`View::resume`](crate::View::resume) and
//! [`Registry::call`](crate::Registry::call), over MCP or not: kind `INTERNAL`,
//! named `execute_tool {gen_ai.tool.name}`, with `gen_ai.operation.name`,
//! `gen_ai.tool.name`, `gen_ai.tool.description`, `gen_ai.tool.call.id` (the
//! [`CallId`] in the context, an approval's call id when it is
//! resumed, else the MCP request's id), and toolkit's own `toolkit.tool.scope`,
//! `toolkit.tool.tier`, `toolkit.view`, `toolkit.principal` (the
//! [key](crate::Principal::key) of the principal the view acts for, when it acts
//! for one), `toolkit.outcome` (`ok`, `preview`,
//! `pending_approval` or the error's kind), `toolkit.approval.call_id` (the pending
//! approval a call asked for, or the approval it ran by) and
//! `toolkit.approval.verdict` (`approved`, `approved_with_edits`, `denied`, on a
//! resume). An error response sets `error.type` to the error's kind and the status
//! to `ERROR`, described by the kind (`invalid_arguments`, `failed`, ...); the
//! error's message, which may quote the arguments, is the description only for
//! the tools a view logs the arguments of
//! ([`ViewBuilder::log_arguments`](crate::view::ViewBuilder::log_arguments)).
//!
//! **Metrics**, once the application hands toolkit a meter with
//! [`install_metrics`]:
//!
//! | instrument | kind, unit | attributes |
//! |---|---|---|
//! | `toolkit.tool.calls` | counter, `{call}` | `gen_ai.tool.name`, `toolkit.outcome` |
//! | `toolkit.tool.duration` | histogram, `s` | `gen_ai.tool.name`, `error.type` on failure |
//! | `toolkit.tool.errors` | counter, `{error}` | `gen_ai.tool.name`, `error.type` (the error's kind) |
//! | `mcp.server.operation.duration` | histogram, `s` | `mcp.method.name`, `gen_ai.tool.name`, `gen_ai.operation.name`, `error.type`, `rpc.response.status_code`, `mcp.protocol.version`, `network.transport` |
//!
//! The histograms use the buckets the MCP conventions give (10 ms to 300 s). A
//! name that is no tool's is counted as `_OTHER`, so callers cannot grow the
//! number of series.
//!
//! # What the operator wires up
//!
//! ```no_run
//! # fn wire(
//! #     tracer_provider: opentelemetry_sdk::trace::SdkTracerProvider,
//! #     meter_provider: opentelemetry_sdk::metrics::SdkMeterProvider,
//! # ) {
//! use opentelemetry::trace::TracerProvider as _;
//! use tracing_subscriber::layer::SubscriberExt as _;
//! use tracing_subscriber::util::SubscriberInitExt as _;
//! use tracing_subscriber::Layer as _;
//!
//! // 1. The client's trace context comes in `params._meta` as W3C Trace Context.
//! opentelemetry::global::set_text_map_propagator(
//!     opentelemetry_sdk::propagation::TraceContextPropagator::new(),
//! );
//! // 2. Spans: tracing-opentelemetry's layer over the SDK's tracer provider (with
//! //    an OTLP exporter, say). Filtering it to `toolkit::otel` and the
//! //    application's own targets leaves out toolkit's log-style spans
//! //    (`toolkit.call`, `mcp.request`) and rmcp's.
//! let otel = toolkit::otel::tracing_opentelemetry::layer()
//!     .with_tracer(tracer_provider.tracer("my-server"))
//!     .with_filter(
//!         tracing_subscriber::filter::Targets::new()
//!             .with_target("toolkit::otel", tracing::Level::INFO)
//!             .with_target("my_server", tracing::Level::INFO),
//!     );
//! tracing_subscriber::registry().with(otel).init();
//! // 3. Metrics: a meter from the SDK's meter provider, before serving.
//! toolkit::otel::install_metrics(&opentelemetry::metrics::MeterProvider::meter(
//!     &meter_provider,
//!     "toolkit",
//! ))
//! .expect("the first meter");
//! # }
//! ```
//!
//! The versions must match toolkit's: [`opentelemetry`] and
//! [`tracing_opentelemetry`] are re-exported here; the SDK and exporter are the
//! same minor version as `opentelemetry`. Without the propagator a client's trace
//! is not joined; without the layer there are no spans; without
//! [`install_metrics`] there are no metrics and a call costs nothing more. Tool
//! arguments and results are never recorded (they may carry personal data; the
//! conventions make them opt-in), nor the messages of errors, which may quote
//! them, unless the view opts the tool in with
//! [`ViewBuilder::log_arguments`](crate::view::ViewBuilder::log_arguments).
//!
//! The example server (`examples/mcp_server`) wires all three up with OTLP over
//! HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.

use std::sync::OnceLock;
use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter};
use tracing::Instrument as _;
use tracing::field::Empty;

use crate::context::{CallId, Context};
use crate::dispatch::Call;
use crate::response::Response;
use crate::tool::Tool;

#[cfg(feature = "mcp")]
mod mcp;
#[cfg(feature = "mcp")]
pub(crate) use mcp::equip;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "otel", feature = "mcp"))))]
pub use mcp::{McpSpans, Transport};

/// The OpenTelemetry API crate toolkit records with: use this one (or the same
/// version) for the meter and the propagator.
pub use opentelemetry;
/// The `tracing` layer toolkit's spans need to become OpenTelemetry spans: use
/// this one (or the same version), or a client's trace is not continued.
pub use tracing_opentelemetry;

/// The duration buckets, in seconds, the MCP semantic conventions give
/// (`mcp.server.operation.duration`); tool runs use them too.
const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// What an attribute says of a name that is no tool's (the conventions'
/// fallback value).
const OTHER: &str = "_OTHER";

/// The most text a span's status description carries.
const MAX_DESCRIPTION_BYTES: usize = 1024;

/// The instruments, made once from the application's meter.
struct Instruments {
    tool_calls: Counter<u64>,
    tool_duration: Histogram<f64>,
    tool_errors: Counter<u64>,
    quota_refusals: Counter<u64>,
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    mcp_duration: Histogram<f64>,
}

static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

/// The instruments, once [`install_metrics`] was called.
fn instruments() -> Option<&'static Instruments> {
    INSTRUMENTS.get()
}

/// [`install_metrics`] was already called: the first meter keeps recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricsAlreadyInstalled;

impl std::fmt::Display for MetricsAlreadyInstalled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("toolkit's metrics already record with another meter")
    }
}

impl std::error::Error for MetricsAlreadyInstalled {}

/// Records toolkit's metrics (see the [module](self) docs) with `meter` from now
/// on, for the life of the process. Call it once, before serving; a second call
/// changes nothing and says so.
///
/// Metrics are off until then: without a meter a call records nothing and costs
/// nothing more.
pub fn install_metrics(meter: &Meter) -> Result<(), MetricsAlreadyInstalled> {
    let mut made = false;
    INSTRUMENTS.get_or_init(|| {
        made = true;
        Instruments {
            tool_calls: meter
                .u64_counter("toolkit.tool.calls")
                .with_description("Tool calls dispatched, by tool and outcome.")
                .with_unit("{call}")
                .build(),
            tool_duration: meter
                .f64_histogram("toolkit.tool.duration")
                .with_description("Time from a tool call's dispatch to its response.")
                .with_unit("s")
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build(),
            tool_errors: meter
                .u64_counter("toolkit.tool.errors")
                .with_description("Tool calls answered with an error, by tool and kind.")
                .with_unit("{error}")
                .build(),
            quota_refusals: meter
                .u64_counter("toolkit.quota.refusals")
                .with_description("Tool calls refused by their quota, by tool.")
                .with_unit("{call}")
                .build(),
            mcp_duration: meter
                .f64_histogram("mcp.server.operation.duration")
                .with_description(
                    "MCP request or notification duration as observed on the receiver \
                     from the time it was received until the result or ack is sent.",
                )
                .with_unit("s")
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build(),
        }
    });
    if made {
        Ok(())
    } else {
        Err(MetricsAlreadyInstalled)
    }
}

/// Counts one call `tool`'s quota refused, when metrics are installed.
pub(crate) fn count_quota_refusal(tool: &'static str) {
    if let Some(instruments) = instruments() {
        instruments
            .quota_refusals
            .add(1, &[KeyValue::new("gen_ai.tool.name", tool)]);
    }
}

/// The id of the MCP request a call came in, put in the call's context by the MCP
/// server: the run's `gen_ai.tool.call.id` when there is no [`CallId`](crate::call::CallId).
#[derive(Clone, Debug)]
pub(crate) struct RequestId(pub(crate) String);

/// What a tool run's span says before the tool runs (the dispatch's own
/// description, as `crate::observe` has it).
pub(crate) struct Run<'a> {
    /// The tool answering, if any.
    pub(crate) tool: Option<&'a Tool>,
    /// The name as called.
    pub(crate) name: &'a str,
    /// The view's label.
    pub(crate) view: Option<&'a str>,
    /// The principal the view acts for.
    pub(crate) principal: Option<&'a crate::principal::Principal>,
    /// The call's context (its [`CallId`], the MCP request's id).
    pub(crate) ctx: &'a Context,
    /// The call id and verdict of the approval a resumed call runs by.
    pub(crate) approval: Option<(&'a str, &'static str)>,
    /// The view logs this tool's arguments
    /// ([`ViewBuilder::log_arguments`](crate::view::ViewBuilder::log_arguments)):
    /// an error's message, which may quote them, is the status description.
    pub(crate) log_arguments: bool,
}

/// `call` as a tool run: inside a `gen_ai.execute_tool` span when a subscriber
/// wants one, counted when metrics are installed; `call` itself otherwise.
pub(crate) fn tool_run<'a>(dispatch: &Run<'_>, call: Call<'a>) -> Call<'a> {
    let instruments = instruments();
    let span = tracing::info_span!(
        target: "toolkit::otel",
        "gen_ai.execute_tool",
        otel.name = Empty,
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = Empty,
        gen_ai.tool.description = Empty,
        gen_ai.tool.call.id = Empty,
        error.type = Empty,
        toolkit.tool.scope = Empty,
        toolkit.tool.tier = Empty,
        toolkit.view = Empty,
        toolkit.principal = Empty,
        toolkit.outcome = Empty,
        toolkit.approval.call_id = Empty,
        toolkit.approval.verdict = Empty,
    );
    if instruments.is_none() && span.is_disabled() {
        return call;
    }
    let tool: &'static str = dispatch.tool.map_or(OTHER, |tool| tool.name);
    let log_arguments = dispatch.log_arguments;
    if !span.is_disabled() {
        describe(&span, dispatch);
    }
    let started = Instant::now();
    let recorder = span.clone();
    let observed = async move {
        let response = call.instrument(span).await;
        finish(
            &recorder,
            instruments,
            tool,
            &response,
            started,
            log_arguments,
        );
        response
    };
    Call::running(
        dispatch.tool.map_or("", |tool| tool.name),
        Box::pin(observed),
    )
}

/// What a run's span says before the tool runs.
fn describe(span: &tracing::Span, dispatch: &Run<'_>) {
    match dispatch.tool {
        Some(tool) => {
            span.record("otel.name", format!("execute_tool {}", tool.name));
            span.record("gen_ai.tool.name", tool.name);
            span.record("gen_ai.tool.description", tool.description);
            span.record("toolkit.tool.scope", tool.scope.as_str());
            span.record("toolkit.tool.tier", tool.tier.as_str());
        }
        None => {
            // A name that is no tool's stays out of the span's name.
            span.record("otel.name", "execute_tool");
            span.record(
                "gen_ai.tool.name",
                crate::echo::echo(dispatch.name).as_str(),
            );
        }
    }
    if let Some(view) = dispatch.view {
        span.record("toolkit.view", view);
    }
    if let Some(principal) = dispatch.principal {
        span.record("toolkit.principal", principal.key());
    }
    let call_id = dispatch
        .approval
        .map(|(call_id, _)| call_id)
        .or_else(|| dispatch.ctx.get::<CallId>().map(|id| id.0.as_str()))
        .or_else(|| dispatch.ctx.get::<RequestId>().map(|id| id.0.as_str()));
    if let Some(call_id) = call_id {
        span.record("gen_ai.tool.call.id", crate::echo::echo(call_id).as_str());
    }
    if let Some((call_id, verdict)) = dispatch.approval {
        span.record(
            "toolkit.approval.call_id",
            crate::echo::echo(call_id).as_str(),
        );
        span.record("toolkit.approval.verdict", verdict);
    }
}

/// What a run's span and metrics say once the tool answered. An error's message
/// is the status description only where the view logs the tool's arguments: it
/// may quote them (an argument error describes the value refused, a tool's own
/// error says what it was given); elsewhere the description is the error's kind.
fn finish(
    span: &tracing::Span,
    instruments: Option<&Instruments>,
    tool: &'static str,
    response: &Response,
    started: Instant,
    log_arguments: bool,
) {
    let outcome = response.outcome();
    let error = response.error().map(crate::error::ToolError::kind);
    span.record("toolkit.outcome", outcome);
    match response {
        Response::Error(failure) => {
            span.record("error.type", failure.kind());
            span.record("otel.status_code", "error");
            if log_arguments {
                span.record(
                    "otel.status_description",
                    cut(&failure.to_string(), MAX_DESCRIPTION_BYTES),
                );
            } else {
                span.record("otel.status_description", failure.kind());
            }
        }
        Response::Pending(pending) => {
            span.record(
                "toolkit.approval.call_id",
                crate::echo::echo(&pending.call_id).as_str(),
            );
        }
        Response::Result(_) | Response::Preview(_) => {}
    }
    let Some(instruments) = instruments else {
        return;
    };
    let seconds = started.elapsed().as_secs_f64();
    instruments.tool_calls.add(
        1,
        &[
            KeyValue::new("gen_ai.tool.name", tool),
            KeyValue::new("toolkit.outcome", outcome),
        ],
    );
    match error {
        Some(kind) => {
            let attributes = [
                KeyValue::new("gen_ai.tool.name", tool),
                KeyValue::new("error.type", kind),
            ];
            instruments.tool_duration.record(seconds, &attributes);
            instruments.tool_errors.add(1, &attributes);
        }
        None => {
            instruments
                .tool_duration
                .record(seconds, &[KeyValue::new("gen_ai.tool.name", tool)]);
        }
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
