//! Panics inside a tool: caught, reported to the application in full, and shown to
//! the model as a short stable message with an id the application can find in
//! its own report, whether the panic came from the tool, its preview or its
//! result's serialization.
//!
//! Why not `futures_util`'s `CatchUnwind`: it does not catch a panic raised while
//! the finished or broken future is dropped, nor one in the application's hook,
//! and neither gives the model a stable message with an id. The cost on a call
//! that does not panic is one `catch_unwind` per poll.

use std::any::Any;
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use std::task::{Context as TaskContext, Poll};

use crate::error::ToolError;
use crate::response::Response;
use crate::tool::CallFuture;

/// What the application learns about a panic inside a tool.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PanicReport {
    /// The id the model was given (`ToolError::Panicked { id, .. }`), to match the
    /// model's transcript with this report.
    pub id: String,
    /// The tool that panicked.
    pub tool: &'static str,
    /// The panic message (`"a panic with a non-string payload"` if it was none).
    pub message: String,
}

/// The message the model gets for a panic, unless the application opted in to
/// exposing panic text with [`expose_panic_messages`].
pub const PANIC_MESSAGE: &str =
    "the tool failed unexpectedly; the error was reported to the application under this id";

type Hook = Arc<dyn Fn(&PanicReport) + Send + Sync>;

static HOOK: RwLock<Option<Hook>> = RwLock::new(None);
static EXPOSE: AtomicBool = AtomicBool::new(false);

/// Sets the function every caught tool panic is reported to (replacing any earlier
/// one). Each panic is also sent as a `tracing` error event (target `toolkit`,
/// fields `panic_id`, `tool`, `message`) whether or not a hook is set.
///
/// ```
/// toolkit::panics::on_panic(|report| eprintln!("tool {} panicked ({}): {}", report.tool, report.id, report.message));
/// ```
pub fn on_panic(hook: impl Fn(&PanicReport) + Send + Sync + 'static) {
    *HOOK
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(hook));
}

/// Whether the model sees the panic message itself (`true`) or only
/// [`PANIC_MESSAGE`] and an id (`false`, the default). A panic message can carry
/// paths, queries or secrets: turn this on only where the model may read them
/// (local development, tests).
pub fn expose_panic_messages(expose: bool) {
    EXPOSE.store(expose, Ordering::Relaxed);
}

/// A short id unique within the process and unlikely to repeat across processes.
fn next_id() -> String {
    static SEED: OnceLock<u64> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let seed = *SEED.get_or_init(|| {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_nanos()),
        );
        hasher.finish()
    });
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hasher.write_u64(seed);
    hasher.write_u64(count);
    format!("{:016x}", hasher.finish())
}

/// Reports a caught panic and turns it into the model's error. The payload is
/// dropped here, and a payload whose own `Drop` panics is forgotten instead of
/// unwinding out of the call.
pub(crate) fn caught(tool: &'static str, payload: Box<dyn Any + Send>) -> ToolError {
    let message = panic_message(payload.as_ref());
    drop_quietly(payload);
    let report = PanicReport {
        id: next_id(),
        tool,
        message,
    };
    tracing::error!(
        target: "toolkit",
        panic_id = %report.id,
        tool = report.tool,
        message = %report.message,
        "a tool panicked; the panic was caught"
    );
    let hook = HOOK
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    if let Some(hook) = hook {
        // A panicking hook must not undo the catch.
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| hook(&report))) {
            drop_quietly(payload);
        }
    }
    ToolError::Panicked {
        message: if EXPOSE.load(Ordering::Relaxed) {
            report.message
        } else {
            PANIC_MESSAGE.to_owned()
        },
        id: report.id,
    }
}

/// Drops a panic payload; if its `Drop` panics in turn, that second payload is
/// leaked rather than dropped (dropping it could panic again, without end).
fn drop_quietly(payload: Box<dyn Any + Send>) {
    if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(again);
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic with a non-string payload".to_owned()
    }
}

/// A tool's future with every panic caught: while it is polled, when it finishes
/// (its locals drop inside the last poll) and when it is dropped unfinished
/// (cancelled while holding a guard whose `Drop` panics).
pub(crate) struct CatchPanics<'a> {
    tool: &'static str,
    inner: Option<CallFuture<'a>>,
}

impl<'a> CatchPanics<'a> {
    pub(crate) fn new(tool: &'static str, inner: CallFuture<'a>) -> Self {
        CatchPanics {
            tool,
            inner: Some(inner),
        }
    }
}

impl Future for CatchPanics<'_> {
    type Output = Response;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Response> {
        let tool = self.tool;
        let Some(inner) = self.inner.as_mut() else {
            return Poll::Ready(Response::Error(ToolError::failed(
                "the call was polled again after it finished",
            )));
        };
        match catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(response)) => {
                let finished = self.inner.take();
                if let Err(payload) = catch_unwind(AssertUnwindSafe(move || drop(finished))) {
                    return Poll::Ready(Response::Error(caught(tool, payload)));
                }
                Poll::Ready(response)
            }
            Err(payload) => {
                // The future is unusable after a panic; drop it here, caught too.
                let broken = self.inner.take();
                if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(broken))) {
                    drop_quietly(again);
                }
                Poll::Ready(Response::Error(caught(tool, payload)))
            }
        }
    }
}

impl Drop for CatchPanics<'_> {
    fn drop(&mut self) {
        if let Some(unfinished) = self.inner.take()
            && let Err(payload) = catch_unwind(AssertUnwindSafe(move || drop(unfinished)))
        {
            // Cancelled: nobody is waiting for a response; the application still
            // hears of it.
            let _ = caught(self.tool, payload);
        }
    }
}
