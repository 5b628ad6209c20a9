//! Progress a long tool reports while it runs: a `#[ctx] progress: Progress`
//! parameter.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::context::{Context, FromContext};
use crate::error::ToolError;

/// One progress report: how far, out of how much, and what is happening.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgressUpdate {
    /// Work done so far; increases with every report.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// What is happening, for a human.
    pub message: Option<String>,
}

type Report = dyn Fn(ProgressUpdate) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync;

/// Where a tool's progress goes: the application's callback in process, an MCP
/// `notifications/progress` when the client asked for progress, or nowhere.
///
/// A tool takes it as a `#[ctx]` parameter; it is never missing (a context
/// without one gives a `Progress` that drops every report), so a tool that
/// reports progress can be called from anywhere.
///
/// ```
/// use toolkit::{Context, call::{Progress, ProgressUpdate}};
/// use std::sync::{Arc, Mutex};
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = Arc::clone(&seen);
/// let ctx = Context::new().with(Progress::new(move |update: ProgressUpdate| {
///     sink.lock().unwrap().push(update.progress);
/// }));
/// # let _ = ctx;
/// ```
#[derive(Clone, Default)]
pub struct Progress {
    report: Option<Arc<Report>>,
}

impl Progress {
    /// Progress sent to `callback`, called in the order of the reports.
    pub fn new(callback: impl Fn(ProgressUpdate) + Send + Sync + 'static) -> Self {
        Progress {
            report: Some(Arc::new(move |update| {
                callback(update);
                Box::pin(std::future::ready(()))
            })),
        }
    }

    /// Progress sent by an asynchronous `report` (a transport's notification);
    /// each report is awaited before the tool goes on, so reports arrive in order.
    pub fn from_async<F>(report: impl Fn(ProgressUpdate) -> F + Send + Sync + 'static) -> Self
    where
        F: Future<Output = ()> + Send + 'static,
    {
        Progress {
            report: Some(Arc::new(move |update| Box::pin(report(update)))),
        }
    }

    /// Progress that goes nowhere.
    #[must_use]
    pub fn none() -> Self {
        Self::default()
    }

    /// Whether anyone receives the reports (a tool may skip costly counting).
    #[must_use]
    pub fn is_observed(&self) -> bool {
        self.report.is_some()
    }

    /// Reports `progress` (of `total`, when known) with an optional message.
    pub async fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(report) = &self.report {
            report(ProgressUpdate {
                progress,
                total,
                message: message.map(str::to_owned),
            })
            .await;
        }
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("observed", &self.is_observed())
            .finish()
    }
}

/// The context's `Progress`, or one that drops every report.
// Not listed in the error for a type that is not `FromContext`: that error
// speaks of `State<T>` and the user's own types, not of toolkit's.
#[diagnostic::do_not_recommend]
impl FromContext for Progress {
    type Binding = crate::binding::BoundToNothing;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        Ok(ctx.get::<Progress>().cloned().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn reports_reach_the_callback_in_order_and_a_missing_progress_drops_them() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let ctx = Context::new().with(Progress::new(move |update| {
            sink.lock().unwrap().push(update);
        }));
        let progress = Progress::from_context(&ctx).unwrap();
        assert!(progress.is_observed());
        futures_lite_block_on(async {
            progress.report(1.0, Some(2.0), Some("half")).await;
            progress.report(2.0, Some(2.0), None).await;
        });
        assert_eq!(
            *seen.lock().unwrap(),
            [
                ProgressUpdate {
                    progress: 1.0,
                    total: Some(2.0),
                    message: Some("half".to_owned())
                },
                ProgressUpdate {
                    progress: 2.0,
                    total: Some(2.0),
                    message: None
                },
            ]
        );
        let nowhere = Progress::from_context(&Context::new()).unwrap();
        assert!(!nowhere.is_observed());
    }

    /// Runs a future that never waits (the callbacks here are synchronous).
    fn futures_lite_block_on(future: impl Future<Output = ()>) {
        let mut future = std::pin::pin!(future);
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        assert!(future.as_mut().poll(&mut cx).is_ready());
    }
}
