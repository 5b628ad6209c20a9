//! A run: whoever holds the claim runs the approved call, renews its lease while
//! it lives, and ends it with its outcome; an attempt that lost its claim ends
//! nothing.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::key::{approval_payload, canonical_json, digest, to_hex};
use super::{
    Approval, ApprovalError, Approvals, CLOCK_SKEW_SECONDS, CallingView, Claim, MAX_OUTCOME_BYTES,
    RunOutcome, RunRecord, Verdict, check_arguments,
};
use crate::content::{Content, Contents};
use crate::context::Context;
use crate::error::ToolError;
use crate::principal::Principal;
use crate::registry::RegisteredTool;
use crate::response::Response;

impl RunOutcome {
    /// The outcome of a run that answered `response`.
    #[must_use]
    pub fn of(response: &Response) -> Self {
        match response {
            Response::Error(error) => {
                let mut message = error.to_string();
                if message.len() > MAX_OUTCOME_BYTES {
                    let mut end = MAX_OUTCOME_BYTES;
                    while !message.is_char_boundary(end) {
                        end -= 1;
                    }
                    message.truncate(end);
                }
                RunOutcome::Failed {
                    kind: error.kind().to_owned(),
                    message,
                }
            }
            Response::Result(value) => {
                let bytes = value.to_string().len();
                RunOutcome::Ran {
                    result: (bytes <= MAX_OUTCOME_BYTES).then(|| value.clone()),
                    bytes,
                }
            }
            // Not answers of a run; kept as what they are, without their content.
            other => RunOutcome::Ran {
                result: None,
                bytes: other.to_json().to_string().len(),
            },
        }
    }
}

/// The store key of an approval: the principal and the call id together.
pub(super) fn used_key(principal: &Principal, call_id: &str) -> String {
    to_hex(&Sha256::digest(
        canonical_json(&serde_json::json!([principal.bound_form(), call_id])).as_bytes(),
    ))
}

impl Approvals {
    /// The run of the approved call `call_id` of `principal`, as the store keeps it:
    /// whether it ran, and its outcome. How a caller that was not waiting (an MCP
    /// client that could not elicit, an agent that went to sleep) learns what
    /// happened to its call; `None` while it never ran.
    pub async fn outcome(
        &self,
        principal: &Principal,
        call_id: &str,
    ) -> Result<Option<RunRecord>, ApprovalError> {
        self.store
            .run(&used_key(principal, call_id))
            .await
            .map_err(ApprovalError::Store)
    }

    /// Until when an approval decided at `decided_at` may be resumed (Unix
    /// seconds, store time): after it, an approved call that never ran never will.
    #[must_use]
    pub fn resumable_until(&self, decided_at: u64) -> u64 {
        decided_at.saturating_add(self.approval_ttl.as_secs())
    }

    /// How long a claim is kept: past the last moment any approval of the call could
    /// be valid. The pending is unknown here, but it was decided at or after it was
    /// requested, so it expired at most the pending TTL after this approval's
    /// decision, and any other approval of it at most an approval TTL later.
    fn claim_keep_until(&self, approval: &Approval) -> u64 {
        approval
            .expires_at
            .max(
                approval
                    .decided_at
                    .saturating_add(self.approval_ttl.as_secs()),
            )
            .saturating_add(self.pending_ttl.as_secs())
            .saturating_add(CLOCK_SKEW_SECONDS)
    }

    /// The lease a claim or a renewal takes, in whole seconds (at least one).
    pub(super) fn lease_seconds(&self) -> u64 {
        self.run_lease.as_secs().max(1)
    }

    /// Runs `run` while renewing the lease of `attempt` on `key` every third of the
    /// lease, so a healthy long run is never taken over; a renewal refused (the run
    /// was taken over) or failing (the store unreachable) is logged, and the lease
    /// then ends on its own.
    async fn keep_alive<F: Future>(&self, key: &str, attempt: u32, run: F) -> F::Output {
        let every = (self.run_lease / 3).max(Duration::from_millis(200));
        let renewals = async {
            loop {
                futures_timer::Delay::new(every).await;
                let renewed = match self.store.now().await {
                    Ok(now) => {
                        self.store
                            .renew(key, attempt, now.saturating_add(self.lease_seconds()))
                            .await
                    }
                    Err(error) => Err(error),
                };
                match renewed {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(
                            attempt,
                            "an approved run lost its claim while running; its end will not be recorded"
                        );
                        std::future::pending::<()>().await;
                    }
                    Err(error) => {
                        tracing::warn!(%error, "the lease of an approved run could not be renewed");
                    }
                }
            }
        };
        let run = std::pin::pin!(run);
        let renewals = std::pin::pin!(renewals);
        match futures_util::future::select(run, renewals).await {
            futures_util::future::Either::Left((output, _)) => output,
            futures_util::future::Either::Right(((), _)) => {
                unreachable!("renewing a lease never ends on its own")
            }
        }
    }
}

/// `View::resume`. `now`: the store's time, when this request read it already
/// (deciding or following the decision, a moment ago); read here otherwise. One
/// resume reads the store's clock once.
pub(crate) async fn resume<'r>(
    view: &impl CallingView<'r>,
    approval: &Approval,
    ctx: &Context,
    now: Option<u64>,
) -> Response {
    let (approvals, tool, arguments, run) = match check(view, approval, now).await {
        Ok(checked) => checked,
        Err(error) => return Response::Error(error),
    };
    let (key, attempt) = (run.key.clone(), run.attempt);
    let call = WithRun {
        run: Some(run),
        future: Box::pin(tool.call_with_limits(&arguments, ctx, view.registry().limits())),
    };
    let response = approvals.keep_alive(&key, attempt, call).await;
    // The tool returned a result: this run is complete. It failed: the next
    // presentation runs it again (the approval stays good until it expires). Either
    // is recorded only by the attempt that still holds the claim. Should the store
    // fail here (past its own retries), the claim ends with its lease instead. The
    // caller's answer waits for this, so that a second presentation hears "already
    // used" rather than running the call again.
    let outcome = RunOutcome::of(&response);
    let ended = if outcome.ran() {
        let completed = approvals.store.complete(&key, attempt, &outcome).await;
        if matches!(completed, Ok(true)) {
            settle(approvals, approval).await;
        }
        completed
    } else {
        approvals.store.release(&key, attempt, &outcome).await
    };
    match ended {
        Ok(true) => with_edit_note(response, approval),
        Ok(false) => match superseded(approvals, &key, attempt).await {
            Some(error) => Response::Error(error.into()),
            None => with_edit_note(response, approval),
        },
        Err(error) => {
            tracing::warn!(%error, "the end of an approved run could not be recorded; it may run again after its lease");
            with_edit_note(response, approval)
        }
    }
}

/// Marks the call of `approval` settled once its run completed here, so that no
/// replica's runner ([`Approvals::run_decided`]) reads it again: otherwise every
/// call a requester resumed is read, and settled, by the runner of each replica
/// once its grace has passed, a few statements per approval for nothing. A
/// failure leaves it to the runner, as before.
async fn settle(approvals: &Approvals, approval: &Approval) {
    if let Err(error) = approvals
        .store
        .settle(&approval.principal, &approval.call_id)
        .await
    {
        tracing::warn!(%error, "a completed run could not be marked settled; a runner settles it");
    }
}

/// Why `attempt`'s end was not recorded, when a later attempt holds the run: its
/// caller is told the run was taken over, and what came of it so far.
async fn superseded(approvals: &Approvals, key: &str, attempt: u32) -> Option<ApprovalError> {
    let record = match approvals.store.run(key).await {
        Ok(record) => record?,
        Err(error) => {
            tracing::warn!(%error, "the run of an approved call could not be read back");
            return None;
        }
    };
    if record.attempt == attempt {
        return None;
    }
    // Until the later attempt ends, the outcome kept is an earlier attempt's.
    let ended = record.done || record.lease_until == 0;
    Some(ApprovalError::Superseded {
        attempt: record.attempt,
        outcome: record.outcome.filter(|_| ended),
    })
}

/// A result that ran with arguments someone else edited starts with a text block
/// saying who edited them and what ran: the model asked for something else.
fn with_edit_note(response: Response, approval: &Approval) -> Response {
    match (response, &approval.decided_by) {
        (Response::Result(value), Some(decided_by))
            if approval.verdict == Verdict::ApprovedWithEdits =>
        {
            let note = format!(
                "{decided_by} approved it with edited arguments, and it ran with them: {}",
                canonical_json(&approval.arguments)
            );
            Response::Result(with_note(value, note))
        }
        (response, _) => response,
    }
}

/// A result with `note` as its first text block: a plain value becomes its JSON
/// text after the note (and stays the structured value), a rich result keeps its
/// blocks and structured value.
pub(super) fn with_note(value: Value, note: String) -> Value {
    let (items, structured) = match Contents::from_result(&value) {
        Some(rich) => rich,
        None => (
            vec![Content::Text {
                text: value.to_string(),
            }],
            Some(value.clone()),
        ),
    };
    let mut contents = items
        .into_iter()
        .fold(Contents::new().text(note), Contents::push);
    if let Some(structured) = structured {
        contents = contents.structured(structured);
    }
    serde_json::to_value(&contents).unwrap_or(value)
}

/// The run of an approved call that the tool is in: while an approved call's tool
/// runs (inside [`View::resume`](crate::View::resume)), [`ApprovedRun::current`] returns it. Its
/// [`key`](Self::key) is the same for every attempt of one approved call (the
/// principal and call id), so a tool with an external effect uses it as the
/// idempotency key of that effect; [`attempt`](Self::attempt) is more than 1 when
/// an earlier run of it did not complete (see [`Approvals`]), and is the run's
/// fencing token: a later attempt has a larger one, and an attempt that lost its
/// claim records nothing in the approval store, so a tool fences its own effects
/// with it (an `UPDATE ... WHERE attempt <= $1`, say).
///
/// ```
/// # fn transfer() {
/// if let Some(run) = toolkit::approval::ApprovedRun::current() {
///     // INSERT INTO transfers (run_key, ...) VALUES ($1, ...) ON CONFLICT (run_key) DO NOTHING
///     let _ = (run.key, run.attempt);
/// }
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApprovedRun {
    /// The idempotency key of this approved call: 64 hex digits, the same for every
    /// attempt and every process.
    pub key: String,
    /// Which attempt this is: 1, or more when an earlier run did not complete.
    pub attempt: u32,
}

impl ApprovedRun {
    /// The run key of the approved call `call_id` of `principal`: what
    /// [`ApprovedRun::key`] is inside its runs, for an application that keeps a
    /// tool's effects or results under it.
    #[must_use]
    pub fn key_of(principal: &Principal, call_id: &str) -> String {
        used_key(principal, call_id)
    }

    /// The approved run the current tool call is, if it is one. Read it in the
    /// tool's own task (a task the tool spawns does not see it).
    #[must_use]
    pub fn current() -> Option<ApprovedRun> {
        CURRENT_RUN.with(|current| current.borrow().clone())
    }
}

thread_local! {
    static CURRENT_RUN: std::cell::RefCell<Option<ApprovedRun>> =
        const { std::cell::RefCell::new(None) };
}

/// A tool's future with [`ApprovedRun::current`] set while it is polled.
pub(super) struct WithRun<F> {
    run: Option<ApprovedRun>,
    future: Pin<Box<F>>,
}

impl<F> WithRun<F> {
    /// `future`, with `run` current while it is polled.
    pub(super) fn new(run: Option<ApprovedRun>, future: F) -> Self {
        WithRun {
            run,
            future: Box::pin(future),
        }
    }
}

impl<F: Future> Future for WithRun<F> {
    type Output = F::Output;

    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        /// Puts back what was current, even if the tool panics.
        struct Restore(Option<ApprovedRun>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT_RUN.with(|current| *current.borrow_mut() = previous);
            }
        }
        let this = &mut *self;
        let previous = CURRENT_RUN.with(|current| current.replace(this.run.clone()));
        let _restore = Restore(previous);
        this.future.as_mut().poll(cx)
    }
}

/// Counts a run against its tool's quota, once per approved call: at its first
/// attempt, or at the attempt after one the quota refused. A later attempt is
/// the same run tried again (the earlier one failed or its replica died) and
/// was counted when it was first claimed.
async fn count_run<'r>(
    view: &impl CallingView<'r>,
    approvals: &Approvals,
    tool: &RegisteredTool,
    key: &str,
    attempt: u32,
) -> Result<(), ToolError> {
    let Some((quotas, principal, quota)) = view.quota_of(tool) else {
        return Ok(());
    };
    if attempt > 1 {
        // Until this attempt ends, the outcome kept is the previous attempt's.
        let refused_before = match approvals.store.run(key).await {
            Ok(Some(record)) => matches!(
                record.outcome,
                Some(RunOutcome::Failed { ref kind, .. }) if kind == "rate_limited"
            ),
            // Unknown: counted, rather than let a refused run through uncounted.
            Ok(None) | Err(_) => true,
        };
        if !refused_before {
            return Ok(());
        }
    }
    quotas.admit(principal.key(), tool, quota).await
}

/// Everything but running: the tool, the arguments to run it with, and the run
/// claimed for it.
async fn check<'r>(
    view: &impl CallingView<'r>,
    approval: &Approval,
    now: Option<u64>,
) -> Result<(&'r Approvals, &'r RegisteredTool, String, ApprovedRun), ToolError> {
    let Some((approvals, principal)) = view.approvals() else {
        return Err(ApprovalError::NotConfigured.into());
    };
    approvals.verify(&approval_payload(approval), &approval.signature)?;
    if approval.principal != *principal {
        return Err(ApprovalError::WrongPrincipal.into());
    }
    // A tool outside the view is unknown, as everywhere else.
    let tool = view
        .get(&approval.tool)
        .filter(|tool| tool.name == approval.tool)
        .ok_or_else(|| view.unknown_tool(&approval.tool))?;
    let now = match now {
        Some(now) => now,
        None => approvals.store_now().await?,
    };
    if now > approval.expires_at {
        return Err(ApprovalError::Expired {
            expired_at: approval.expires_at,
        }
        .into());
    }
    if digest(&approval.arguments) != approval.digest {
        return Err(ApprovalError::ArgumentsAltered.into());
    }
    if approval.verdict == Verdict::Denied {
        return Err(ToolError::Denied {
            message: approval.message.clone().unwrap_or_default(),
        });
    }
    let arguments = canonical_json(&approval.arguments);
    check_arguments(view.registry(), tool, &arguments)?;
    let key = used_key(&approval.principal, &approval.call_id);
    let lease_until = now.saturating_add(approvals.lease_seconds());
    match approvals
        .store
        .claim(&key, lease_until, approvals.claim_keep_until(approval))
        .await
    {
        Ok(Claim::Won { attempt }) => {
            if let Err(refused) = count_run(view, approvals, tool, &key, attempt).await {
                // The claim goes back with the refusal as the attempt's outcome,
                // so a later presentation or runner pass tries (and counts) again.
                let outcome = RunOutcome::of(&Response::Error(refused.clone()));
                if let Err(error) = approvals.store.release(&key, attempt, &outcome).await {
                    tracing::warn!(%error, "a run refused by its quota could not be released; it is tried again after its lease");
                }
                return Err(refused);
            }
            Ok((approvals, tool, arguments, ApprovedRun { key, attempt }))
        }
        Ok(Claim::Held { lease_until }) => Err(ApprovalError::Running {
            lease_until,
            retry_after: lease_until.saturating_sub(now).saturating_add(1),
        }
        .into()),
        Ok(Claim::Done) => Err(ended(approvals, &key).await.into()),
        Err(error) => Err(ApprovalError::Store(error).into()),
    }
}

/// Why a call whose run is done does not run again, as the store keeps its end:
/// it ran (with its result), or it never will (withdrawn, declined, refused). A
/// caller that retries after the run ended elsewhere (a runner on another
/// replica, while its own request waited out a stalled store) learns what
/// happened rather than that nothing ran.
pub(super) async fn ended(approvals: &Approvals, key: &str) -> ApprovalError {
    match approvals.store.run(key).await {
        Ok(Some(record)) => match record.outcome {
            Some(outcome) if record.done => ApprovalError::Ended(outcome),
            _ => ApprovalError::AlreadyUsed,
        },
        Ok(None) => ApprovalError::AlreadyUsed,
        Err(error) => {
            tracing::warn!(%error, "the end of a completed run could not be read back");
            ApprovalError::AlreadyUsed
        }
    }
}
