//! The runner: approved calls that nobody resumed run once, on whichever replica
//! calls it, with nobody coming back for them.

use std::time::Duration;

use super::run::{resume, used_key};
use super::{
    ApprovalError, ApprovalView, Approvals, CLOCK_SKEW_SECONDS, CallingView, Claim,
    PendingApproval, RunOutcome,
};
use crate::context::Context;
use crate::error::ToolError;
use crate::response::Response;

/// What one pass of [`Approvals::run_decided`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunPass {
    /// Calls that ran to completion in this pass.
    pub ran: usize,
    /// Calls whose tool failed: released, tried again by a later pass while the
    /// approval is valid, once its back-off has passed.
    pub failed: usize,
    /// Calls whose tool failed before and whose next attempt is not due yet
    /// ([`Approvals::retry_backoff`]), or whose tool asked its requester's
    /// client a question ([`ToolError::AwaitingInput`]): left for a later
    /// pass, or for the requester.
    pub waiting: usize,
    /// Calls that may not run any more (the principal lost the tool, or the
    /// application's hook refused): kept as a failed outcome, never run.
    pub refused: usize,
    /// Calls another run holds now, ran already (settled here) or won at the
    /// claim while this pass tried it: that run counts it, so a call that ran
    /// once is counted as ran once over every replica's passes.
    pub skipped: usize,
}

impl Approvals {
    /// Runs the calls decided (approved, or approved with edits) at least `grace`
    /// ago whose run has not ended for good, once each, across every replica that
    /// calls this: the calls of requesters that are not waiting (an MCP client that
    /// could not elicit, an agent asleep), and runs a dead replica left behind
    /// (after their lease). Call it from a background task now and then; replicas
    /// calling it at once share the work through the claims, and a call runs once.
    ///
    /// `run_as` rebuilds, at run time, the view and context the stored call's
    /// principal has *now* (from [`PendingApproval::principal`] and
    /// [`PendingApproval::view`]): a principal who has since lost the tool, or
    /// whom `run_as` refuses (`Err(reason)`), is refused, and the refusal is kept
    /// as the call's outcome. The outcome of every run is kept
    /// ([`Approvals::outcome`]). `grace` leaves a requester that is coming back
    /// (an MCP client holding the call's request state) the time to run it
    /// itself; a call is never run after its approval expires
    /// ([`Approvals::approval_ttl`], counted from the decision). A call whose
    /// tool failed is tried again once its [back-off](Approvals::retry_backoff)
    /// has passed, not on every pass. A call whose tool stopped for its
    /// requester's answer ([`ToolError::AwaitingInput`], an MCP input-required
    /// round) is not run here: its requester's next round runs it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::approval::{ApprovalKey, Approvals, MemoryApprovalStore};
    /// use toolkit::{Context, Scope};
    ///
    /// # futures_executor::block_on(async {
    /// let approvals = Approvals::new(ApprovalKey::new(*b"an application secret of 32 bytes")?, MemoryApprovalStore::new());
    /// // In a background task, every few seconds:
    /// let pass = approvals
    ///     .run_decided(Duration::from_secs(30), |pending| {
    ///         let view = toolkit::registry()
    ///             .view()
    ///             .scopes([Scope::Shared])
    ///             .approvals(&approvals, pending.principal.clone())
    ///             .build()
    ///             .map_err(|error| error.to_string())?;
    ///         Ok((view, Context::new()))
    ///     })
    ///     .await?;
    /// assert_eq!(pass.ran, 0, "nothing was decided yet");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// [`ApprovalError::Store`] when the store cannot list the decided calls; a
    /// call whose run fails is counted in the pass, not an error.
    pub async fn run_decided<'r, V, F>(
        &self,
        grace: Duration,
        mut run_as: F,
    ) -> Result<RunPass, ApprovalError>
    where
        V: ApprovalView<'r>,
        F: FnMut(&PendingApproval) -> Result<(V, Context), String>,
    {
        /// Calls looked at in one pass: the rest wait for the next.
        const BATCH: usize = 100;
        let now = self.store_now().await?;
        let decided = self
            .store
            .approved_unsettled(
                now.saturating_sub(self.approval_ttl.as_secs()),
                now.saturating_sub(grace.as_secs()).saturating_add(1),
                BATCH,
            )
            .await
            .map_err(ApprovalError::Store)?;
        let mut pass = RunPass::default();
        for (pending, record) in decided {
            let key = used_key(&pending.principal, &pending.call_id);
            match self.store.run(&key).await.map_err(ApprovalError::Store)? {
                Some(run) if run.done => {
                    self.settle(&pending).await;
                    pass.skipped += 1;
                    continue;
                }
                Some(run) if run.lease_until >= now => {
                    pass.skipped += 1;
                    continue;
                }
                // Its tool asked the requester's client a question (an MCP
                // input-required round): the requester's next round runs it
                // with the answer; a run here would only ask again, unheard.
                Some(run) if awaits_input(&run) => {
                    pass.waiting += 1;
                    continue;
                }
                // Its tool failed a moment ago: a tool whose service is down is not
                // run again on every pass, but after a back-off that grows.
                Some(run) if self.next_attempt_at(&run).is_some_and(|at| at > now) => {
                    pass.waiting += 1;
                    continue;
                }
                _ => {}
            }
            let refusal = match run_as(&pending) {
                Ok((view, ctx)) => match view.get(&pending.tool) {
                    Some(_) => {
                        let outcome = self.run_one(&view, &ctx, &pending, &record).await;
                        match outcome {
                            Ran::Done => pass.ran += 1,
                            Ran::Failed => pass.failed += 1,
                            Ran::Skipped => pass.skipped += 1,
                        }
                        if matches!(outcome, Ran::Done) {
                            self.settle(&pending).await;
                        }
                        continue;
                    }
                    None => view.unknown_tool(&pending.tool).to_string(),
                },
                Err(reason) => reason,
            };
            if self.refuse(&key, &pending, &refusal, now).await {
                self.settle(&pending).await;
                pass.refused += 1;
            } else {
                pass.skipped += 1;
            }
        }
        Ok(pass)
    }

    /// Runs one decided call through `view`, as its approval says.
    async fn run_one<'r>(
        &self,
        view: &impl CallingView<'r>,
        ctx: &Context,
        pending: &PendingApproval,
        record: &super::DecisionRecord,
    ) -> Ran {
        let (approval, now) = match self.follow(view.registry(), pending, record).await {
            Ok(followed) => followed,
            Err(error) => {
                tracing::warn!(%error, call_id = %pending.call_id, "a decided call could not be run");
                return Ran::Failed;
            }
        };
        let response = resume(view, &approval, ctx, Some(now)).await;
        // Refused at the claim: another run holds it, ran it, or took it over from
        // this one. That run counts it, not this pass, even when it is done by now.
        if matches!(
            &response,
            Response::Error(ToolError::ApprovalRejected { .. } | ToolError::AlreadyRan { .. })
        ) {
            return Ran::Skipped;
        }
        let key = used_key(&pending.principal, &pending.call_id);
        match self.store.run(&key).await {
            Ok(Some(run)) if run.done => Ran::Done,
            _ => Ran::Failed,
        }
    }

    /// Keeps `reason` as the outcome of a call that may not run: claimed, then
    /// completed with the refusal, so it never runs. `false` when another run holds
    /// or ended it first.
    async fn refuse(&self, key: &str, pending: &PendingApproval, reason: &str, now: u64) -> bool {
        let keep_until = now
            .saturating_add(self.approval_ttl.as_secs())
            .saturating_add(self.pending_ttl.as_secs())
            .saturating_add(CLOCK_SKEW_SECONDS);
        let lease_until = now.saturating_add(self.run_lease.as_secs().max(1));
        let Ok(Claim::Won { attempt }) = self.store.claim(key, lease_until, keep_until).await
        else {
            return false;
        };
        let outcome = RunOutcome::of(&Response::Error(ToolError::ApprovalRejected {
            reason: format!("it may no longer run for {}: {reason}", pending.principal),
        }));
        self.store
            .complete(key, attempt, &outcome)
            .await
            .unwrap_or(false)
    }

    async fn settle(&self, pending: &PendingApproval) {
        if let Err(error) = self
            .store
            .settle(&pending.principal, &pending.call_id)
            .await
        {
            tracing::warn!(%error, "a finished run could not be marked settled; it is looked at again");
        }
    }
}

/// Whether the last attempt of `run` stopped for its client's answer
/// ([`ToolError::AwaitingInput`]).
fn awaits_input(run: &super::RunRecord) -> bool {
    matches!(
        &run.outcome,
        Some(RunOutcome::Failed { kind, .. }) if kind == "awaiting_input"
    )
}

/// What came of one call in a pass.
enum Ran {
    Done,
    Failed,
    Skipped,
}
