//! The `tracing` span of every dispatch through [`View::call`](crate::View::call),
//! [`View::resume`](crate::View::resume) and [`Registry::call`](crate::Registry::call).
//!
//! One span per call, named `toolkit.call` (target `toolkit::call`, level `INFO`),
//! entered while the tool runs, with these fields:
//!
//! | field | value |
//! |---|---|
//! | `tool` | the tool's name; for a name nothing answers to, the name as called (cut and cleaned) |
//! | `scope`, `tier` | the tool's (absent for an unknown name) |
//! | `view` | the view's [label](crate::view::ViewBuilder::label); `registry` for [`Registry::call`](crate::Registry::call); absent for an unlabelled view |
//! | `principal` | the [key](crate::Principal::key) of the principal the view acts for, when it acts for one |
//! | `runtime` | `true` for a tool defined at run time (an external MCP server's) |
//! | `resumed` | `true` for an approved call run by [`View::resume`](crate::View::resume) |
//! | `outcome` | `ok`, `preview` (a `confirm` tool answered with its preview), `pending_approval`, or the error's kind (`invalid_arguments`, `unknown_tool`, `approval_required`, `failed`, ...) |
//! | `duration_us` | microseconds from dispatch to the response |
//! | `arguments` | the arguments' text, cut at 1 KiB: only for tools the view [opts in](crate::view::ViewBuilder::log_arguments) |
//!
//! When no subscriber is interested in the span, a call costs one check of the
//! callsite's interest: no clock read, no allocation, no wrapper around the
//! tool's future.

use std::future::Future;
use std::time::Instant;

use futures_util::FutureExt as _;
use futures_util::future::Either;
use tracing::Instrument as _;
use tracing::field::Empty;

use crate::response::Response;
use crate::tool::Tool;

/// The most argument text a span records.
const MAX_ARGUMENT_BYTES: usize = 1024;

/// What a call's span says before the call runs.
pub(crate) struct Dispatch<'a> {
    /// The tool answering, if any.
    pub(crate) tool: Option<&'a Tool>,
    /// Whether that tool was defined at run time.
    pub(crate) runtime: bool,
    /// The name as called.
    pub(crate) name: &'a str,
    /// The view's label.
    pub(crate) view: Option<&'a str>,
    /// The principal the view acts for.
    pub(crate) principal: Option<&'a crate::principal::Principal>,
    /// The arguments, when the view opted this tool in.
    pub(crate) arguments: Option<&'a str>,
    /// An approved call resumed ([`View::resume`](crate::View::resume)).
    pub(crate) resumed: bool,
    /// The call's context (its [`CallId`](crate::call::CallId)), read by telemetry only.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(crate) ctx: &'a crate::context::Context,
    /// The call id and verdict of the approval a resumed call runs by.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(crate) approval: Option<(&'a str, &'static str)>,
}

/// `call` inside a `toolkit.call` span when a subscriber wants one; `call` itself
/// otherwise.
pub(crate) fn observe<'a, F>(
    dispatch: &Dispatch<'_>,
    call: F,
) -> Either<F, impl Future<Output = Response> + Send + use<'a, F>>
where
    F: Future<Output = Response> + Send + 'a,
{
    let span = tracing::info_span!(
        target: "toolkit::call",
        "toolkit.call",
        tool = Empty,
        scope = Empty,
        tier = Empty,
        view = Empty,
        principal = Empty,
        runtime = Empty,
        resumed = Empty,
        outcome = Empty,
        duration_us = Empty,
        arguments = Empty,
    );
    if span.is_disabled() {
        return Either::Left(call);
    }
    match dispatch.tool {
        Some(tool) => {
            span.record("tool", tool.name);
            span.record("scope", tool.scope.as_str());
            span.record("tier", tool.tier.as_str());
            if dispatch.runtime {
                span.record("runtime", true);
            }
        }
        None => {
            span.record("tool", crate::echo::echo(dispatch.name).as_str());
        }
    }
    if let Some(view) = dispatch.view {
        span.record("view", view);
    }
    if let Some(principal) = dispatch.principal {
        span.record("principal", principal.key());
    }
    if dispatch.resumed {
        span.record("resumed", true);
    }
    if let Some(arguments) = dispatch.arguments {
        span.record("arguments", cut(arguments, MAX_ARGUMENT_BYTES));
    }
    let started = Instant::now();
    let recorder = span.clone();
    Either::Right(call.instrument(span).map(move |response| {
        recorder.record("outcome", outcome(&response));
        recorder.record(
            "duration_us",
            u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        );
        response
    }))
}

/// [`observe`] for a dispatch's own future: the call itself when no subscriber
/// wants a span (no wrapper to poll, move or drop on every call's path), the
/// instrumented call, boxed, otherwise.
#[inline]
pub(crate) fn observe_call<'a>(
    dispatch: &Dispatch<'_>,
    call: crate::dispatch::Call<'a>,
) -> crate::dispatch::Call<'a> {
    use tracing::level_filters::{LevelFilter, STATIC_MAX_LEVEL};
    // OpenTelemetry's run span and metrics, when the application wants them.
    #[cfg(feature = "otel")]
    let call = crate::otel::tool_run(
        &crate::otel::Run {
            tool: dispatch.tool,
            name: dispatch.name,
            view: dispatch.view,
            principal: dispatch.principal,
            ctx: dispatch.ctx,
            approval: dispatch.approval,
            log_arguments: dispatch.arguments.is_some(),
        },
        call,
    );
    // The first test `info_span!` makes, made here inline: with no subscriber at
    // `INFO` the call goes back as it came, without a frame or a `Span` to build
    // and drop.
    if tracing::Level::INFO > STATIC_MAX_LEVEL || tracing::Level::INFO > LevelFilter::current() {
        return call;
    }
    observe_boxed(dispatch, call)
}

/// The rest of [`observe_call`]: the span's own test, and the boxed wrapper.
fn observe_boxed<'a>(
    dispatch: &Dispatch<'_>,
    call: crate::dispatch::Call<'a>,
) -> crate::dispatch::Call<'a> {
    match observe(dispatch, call) {
        Either::Left(call) => call,
        Either::Right(observed) => crate::dispatch::Call::running(
            dispatch.tool.map_or("", |tool| tool.name),
            Box::pin(observed),
        ),
    }
}

/// The outcome a span records: `ok`, `preview`, `pending_approval`, or the
/// error's kind.
pub(crate) fn outcome(response: &Response) -> &'static str {
    response.outcome()
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

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn arguments_are_cut_at_a_character_boundary() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "abc");
        assert_eq!(cut("aé", 2), "a");
    }
}
