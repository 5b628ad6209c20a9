//! Where one `approve` call is in its life, read from the store alone: what a
//! requester that polls (an MCP task, an agent on its next wake) is told, on any
//! replica; and the requester withdrawing its call.

use serde_json::Value;

use super::key::{canonical_json, pending_payload};
use super::run::{resume, used_key, with_note};
use super::{
    ApprovalError, ApprovalView, Approvals, CLOCK_SKEW_SECONDS, Claim, DecidedBy, Decider,
    DecisionOutcome, DecisionRecord, PendingApproval, RunOutcome, Verdict,
};
use crate::context::Context;
use crate::error::ToolError;
use crate::principal::Principal;
use crate::response::Response;

/// The [`RunOutcome::Failed::kind`] of a call its requester withdrew
/// ([`Approvals::withdraw`]).
pub const WITHDRAWN: &str = "withdrawn";

/// Where an `approve` call is ([`Approvals::status`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum CallState {
    /// Nobody decided yet. `requester_decides`: the [policy](Approvals::policy)
    /// lets the requester's own answer decide; otherwise a person (an approver in
    /// the inbox) must.
    Waiting {
        /// Whether the requester's own answer may decide it.
        requester_decides: bool,
    },
    /// Approved, and no run holds it: whoever polls may run it now
    /// ([`Approvals::run_approved`]); otherwise a runner does
    /// ([`Approvals::run_decided`]).
    Approved,
    /// A run holds it now (attempt 1, 2, ...).
    Running {
        /// The attempt that runs.
        attempt: u32,
        /// How an earlier attempt failed, when one did and this one tries again.
        last_error: Option<String>,
    },
    /// Its tool failed on the latest attempt, and no run holds it: a runner
    /// ([`Approvals::run_decided`]) tries it again once its back-off has passed
    /// ([`Approvals::retry_backoff`]), until its approval expires; past that, it
    /// is [`CallState::Failed`].
    Retrying {
        /// The attempt that failed.
        attempt: u32,
        /// How it failed: the tool's error, as the model reads it.
        error: String,
        /// When a runner may try it next (Unix seconds, store time): the failed
        /// attempt's end plus its back-off.
        next_attempt_at: u64,
        /// Seconds from the store's now until then (0: due on the next pass).
        next_attempt_in: u64,
        /// Until when it may be tried again (Unix seconds, store time): when its
        /// approval expires.
        until: u64,
    },
    /// It ran: the result as the model reads it (with the note of who edited the
    /// arguments, when someone did). `None` when the result was too large to keep
    /// ([`MAX_OUTCOME_BYTES`](super::MAX_OUTCOME_BYTES)), or it ran before stores
    /// kept outcomes.
    Ran(Option<Value>),
    /// Its tool failed on the last attempt, and its approval expired before
    /// another: it is not tried again. What the model reads is the tool's error,
    /// as the call would have answered it.
    Failed {
        /// The attempt that failed last.
        attempt: u32,
        /// The tool's error, as a [`ToolError::kind`].
        kind: String,
        /// The tool's error message.
        message: String,
    },
    /// It never runs: denied (`kind` `denied`), expired undecided or approved and
    /// never run in time (`expired`), or refused at run time (`approval_rejected`).
    NotRun {
        /// Why, as a [`ToolError::kind`].
        kind: String,
        /// What the model reads.
        message: String,
    },
    /// Its requester withdrew it before it ran ([`Approvals::withdraw`]).
    Withdrawn,
}

impl CallState {
    /// Whether the call's life is over: it ran, or never will.
    #[must_use]
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            CallState::Ran(_)
                | CallState::Failed { .. }
                | CallState::NotRun { .. }
                | CallState::Withdrawn
        )
    }
}

/// One `approve` call as the store knows it ([`Approvals::status`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct CallStatus {
    /// The stored, signed pending approval.
    pub pending: PendingApproval,
    /// Where it is.
    pub state: CallState,
    /// When it last changed (requested, decided, a run ended), Unix seconds, store
    /// time.
    pub updated_at: u64,
    /// Until when the store keeps it at least (Unix seconds, store time): past its
    /// pending expiry and the approval's lifetime.
    pub kept_until: u64,
}

impl Approvals {
    /// Where the `approve` call `call_id` of `principal` is, from the store alone
    /// (any replica answers the same): waiting for a decision, approved, running,
    /// ran (with its result), never running (and why), or withdrawn. `None` when
    /// the store has no such call (never made, made for another principal, or
    /// purged). Time is the store's clock.
    ///
    /// ```
    /// use toolkit::approval::{ApprovalKey, Approvals, CallState, Decision, MemoryApprovalStore};
    /// use toolkit::{Context, Principal, Response, Scope, tool, call::CallId};
    ///
    /// /// Release a phone number.
    /// #[tool(scope = shared, tier = approve)]
    /// async fn delete_numbers(
    ///     /// In E.164 form.
    ///     number: String,
    /// ) -> String {
    ///     format!("released {number}")
    /// }
    ///
    /// # futures_executor::block_on(async {
    /// let approvals = Approvals::new(ApprovalKey::new(*b"an application secret of 32 bytes")?, MemoryApprovalStore::new());
    /// let agent = Principal::local("agent:7")?;
    /// let view = toolkit::registry().view().scopes([Scope::Shared]).approvals(&approvals, agent.clone()).build()?;
    /// let ctx = Context::new().with(CallId::new("call_1"));
    /// let Response::Pending(pending) = view.call("delete_numbers", r#"{"number": "+15550100"}"#, &ctx).await else {
    ///     panic!("an approve tool waits for a person");
    /// };
    /// let status = approvals.status(&agent, "call_1").await?.expect("stored");
    /// assert_eq!(status.state, CallState::Waiting { requester_decides: false });
    ///
    /// // A person approves it in the inbox; whoever polls next runs it, once.
    /// let owner = Principal::new("https://auth.example.com", "owner")?;
    /// approvals.decide_as(toolkit::registry(), &pending, Decision::Approve, &owner).await?;
    /// assert_eq!(approvals.status(&agent, "call_1").await?.unwrap().state, CallState::Approved);
    /// approvals.run_approved(&view, &ctx, &pending).await;
    /// let ran = approvals.status(&agent, "call_1").await?.unwrap();
    /// assert_eq!(ran.state, CallState::Ran(Some(serde_json::json!("released +15550100"))));
    /// // Another principal asking for the same call id finds nothing.
    /// assert_eq!(approvals.status(&Principal::local("agent:8")?, "call_1").await?, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// [`ApprovalError::Store`] when the store fails; [`ApprovalError::BadSignature`]
    /// when the stored pending approval was altered.
    pub async fn status(
        &self,
        principal: &Principal,
        call_id: &str,
    ) -> Result<Option<CallStatus>, ApprovalError> {
        let store = |error| ApprovalError::Store(error);
        let Some(pending) = self
            .store
            .pending(principal, call_id)
            .await
            .map_err(store)?
        else {
            return Ok(None);
        };
        // The store returns what it was given, but a row is only as good as its
        // signature.
        self.verify(&pending_payload(&pending), &pending.signature)?;
        let now = self.store_now().await?;
        let decision = self
            .store
            .decision(principal, call_id)
            .await
            .map_err(store)?;
        let run = self
            .store
            .run(&used_key(principal, call_id))
            .await
            .map_err(store)?;
        let resumable_until = decision
            .as_ref()
            .map(|record| self.resumable_until(record.decided_at));
        let mut updated_at = decision
            .as_ref()
            .map_or(pending.requested_at, |record| record.decided_at);
        let state = match (&decision, run) {
            (_, Some(run)) => {
                if let Some(ended_at) = run.ended_at {
                    updated_at = updated_at.max(ended_at);
                }
                let next_attempt_at = self.next_attempt_at(&run).unwrap_or(now);
                match run.outcome {
                    Some(RunOutcome::Ran { result, .. }) if run.done => {
                        CallState::Ran(result.map(|value| edited(value, decision.as_ref())))
                    }
                    Some(RunOutcome::Failed { kind, .. }) if run.done && kind == WITHDRAWN => {
                        CallState::Withdrawn
                    }
                    Some(RunOutcome::Failed { kind, message }) if run.done => {
                        CallState::NotRun { kind, message }
                    }
                    // Completed with no outcome: a store that keeps none (the
                    // stores' own migrations give such old runs one). It ran.
                    None if run.done => CallState::Ran(None),
                    // The outcome kept is the last ended attempt's: a failure
                    // before this one.
                    outcome if run.lease_until >= now => CallState::Running {
                        attempt: run.attempt,
                        last_error: match outcome {
                            Some(RunOutcome::Failed { message, .. }) => Some(message),
                            _ => None,
                        },
                    },
                    // Its lease ended: released after the tool failed (a runner
                    // tries it again), or its holder died (anyone may take it over).
                    outcome => match (resumable_until, outcome) {
                        (Some(until), Some(RunOutcome::Failed { kind, message }))
                            if now > until =>
                        {
                            CallState::Failed {
                                attempt: run.attempt,
                                kind,
                                message,
                            }
                        }
                        (Some(until), _) if now > until => expired(until),
                        (Some(until), Some(RunOutcome::Failed { message, .. }))
                            if run.lease_until == 0 =>
                        {
                            CallState::Retrying {
                                attempt: run.attempt,
                                error: message,
                                next_attempt_at,
                                next_attempt_in: next_attempt_at.saturating_sub(now),
                                until,
                            }
                        }
                        _ => CallState::Approved,
                    },
                }
            }
            (None, None) if now > pending.expires_at => CallState::NotRun {
                kind: "expired".to_owned(),
                message: ToolError::from(ApprovalError::Expired {
                    expired_at: pending.expires_at,
                })
                .to_string(),
            },
            (None, None) => CallState::Waiting {
                requester_decides: self.may_decide(&Decider::Requester, &pending),
            },
            (Some(record), None) if record.verdict == Verdict::Denied => CallState::NotRun {
                kind: "denied".to_owned(),
                message: ToolError::Denied {
                    message: record
                        .message
                        .clone()
                        .unwrap_or_else(|| format!("{} denied the call", record.decided_by)),
                }
                .to_string(),
            },
            (Some(_), None) => match resumable_until {
                Some(until) if now > until => expired(until),
                _ => CallState::Approved,
            },
        };
        let kept_until = pending
            .expires_at
            .saturating_add(self.approval_ttl.as_secs());
        Ok(Some(CallStatus {
            pending,
            state,
            updated_at,
            kept_until,
        }))
    }

    /// Runs the decided call `pending` through `view` (the requester's own view,
    /// polling for its outcome), as THE recorded decision says, once across every
    /// replica: the claim decides, so two pollers (or a poller and a runner) never
    /// both run it. A call not decided yet, denied, expired or already run is not
    /// run, and the answer says why.
    pub async fn run_approved<'r>(
        &self,
        view: &impl ApprovalView<'r>,
        ctx: &Context,
        pending: &PendingApproval,
    ) -> Response {
        let record = match self
            .store
            .decision(&pending.principal, &pending.call_id)
            .await
        {
            Ok(Some(record)) => record,
            Ok(None) => {
                return Response::Error(ToolError::ApprovalRejected {
                    reason: "nobody has decided it yet".to_owned(),
                });
            }
            Err(error) => return Response::Error(ApprovalError::Store(error).into()),
        };
        match self.follow(view.registry(), pending, &record).await {
            Ok((approval, now)) => resume(view, &approval, ctx, Some(now)).await,
            Err(error) => Response::Error(error.into()),
        }
    }

    /// The requester withdraws its call `pending` (an MCP `tasks/cancel`): unless
    /// it ran or runs now, it never will. Withdrawing is not deciding, so the
    /// [policy](Approvals::policy) is not asked (the requester may always take
    /// back what it asked for): an undecided call is recorded as denied by
    /// [`Decider::Requester`] (it leaves the inbox), and its run is ended with the
    /// [`WITHDRAWN`] outcome, so no approval of it runs. `Ok(false)` when it was too
    /// late: it ran, a run holds it now, or it never runs anyway.
    ///
    /// # Errors
    /// [`ApprovalError::Store`] when the store fails.
    pub async fn withdraw(&self, pending: &PendingApproval) -> Result<bool, ApprovalError> {
        let now = self.store_now().await?;
        let outcome = RunOutcome::Failed {
            kind: WITHDRAWN.to_owned(),
            message: "the requester withdrew the call before it ran".to_owned(),
        };
        let stopped = self
            .stop_for_requester(pending, now, "the requester withdrew the call", &outcome)
            .await?;
        Ok(matches!(stopped, Stopped::Now))
    }

    /// The requester's "no" (an MCP client's declined elicitation), recorded
    /// where every door and the runner read it: whoever approved the call, and
    /// whatever the [policy](Approvals::policy) lets the requester decide, a call
    /// its requester declined never runs. Like [`Approvals::withdraw`], it ends the
    /// call's run with its outcome (a denial), so no approval of it runs later,
    /// on any replica. The answer is the signed denial the caller resumes with;
    /// a call an approver denied first keeps the approver's reason. Too late (a
    /// run holds it, or it ran) is an error that says so, with what it ran to.
    pub(super) async fn decline(
        &self,
        registry: &crate::registry::Registry,
        pending: &PendingApproval,
        message: &str,
    ) -> Result<(super::Approval, u64), ApprovalError> {
        let now = self.store_now().await?;
        // Nothing is recorded for a pending approval that is not this store's to
        // keep (forged, altered, expired).
        self.verify_pending_at(pending, now)?;
        let outcome = RunOutcome::Failed {
            kind: "denied".to_owned(),
            message: ToolError::Denied {
                message: message.to_owned(),
            }
            .to_string(),
        };
        match self
            .stop_for_requester(pending, now, message, &outcome)
            .await?
        {
            Stopped::Now => {}
            Stopped::DeniedBefore(record) => return self.follow(registry, pending, &record).await,
            Stopped::TooLate(Claim::Held { lease_until }) => {
                return Err(ApprovalError::Running {
                    lease_until,
                    retry_after: lease_until.saturating_sub(now).saturating_add(1),
                });
            }
            Stopped::TooLate(_) => {
                let key = used_key(&pending.principal, &pending.call_id);
                return Err(super::run::ended(self, &key).await);
            }
        }
        let approval = self.approval(
            registry,
            pending,
            super::Decision::Deny(message.to_owned()),
            now,
            Decider::Requester.name(),
        )?;
        Ok((approval, now))
    }

    /// What [`Approvals::withdraw`] and [`Approvals::decline`] share: the
    /// requester's "no" recorded as the decision when nobody decided first (so the
    /// call leaves the inbox), and the call's run ended with `outcome` before any
    /// approval of it runs.
    async fn stop_for_requester(
        &self,
        pending: &PendingApproval,
        now: u64,
        message: &str,
        outcome: &RunOutcome,
    ) -> Result<Stopped, ApprovalError> {
        let keep_until = pending
            .expires_at
            .saturating_add(self.approval_ttl.as_secs())
            .saturating_add(self.pending_ttl.as_secs())
            .saturating_add(CLOCK_SKEW_SECONDS);
        let record = DecisionRecord {
            call_id: pending.call_id.clone(),
            principal: pending.principal.clone(),
            tool: pending.tool.clone(),
            verdict: Verdict::Denied,
            digest: pending.digest.clone(),
            message: Some(message.to_owned()),
            decided_by: DecidedBy::Requester,
            decided_at: now,
            arguments: None,
        };
        // Denied before: it never runs anyway. Approved: it is ended below, unless
        // a run holds it.
        if let DecisionOutcome::AlreadyDecided(winner) = self
            .store
            .record_decision(&record, keep_until)
            .await
            .map_err(ApprovalError::Store)?
            && winner.verdict == Verdict::Denied
        {
            return Ok(Stopped::DeniedBefore(winner));
        }
        let key = used_key(&pending.principal, &pending.call_id);
        let lease_until = now.saturating_add(self.lease_seconds());
        let claim = self
            .store
            .claim(&key, lease_until, keep_until)
            .await
            .map_err(ApprovalError::Store)?;
        let Claim::Won { attempt } = claim else {
            return Ok(Stopped::TooLate(claim));
        };
        if self
            .store
            .complete(&key, attempt, outcome)
            .await
            .map_err(ApprovalError::Store)?
        {
            Ok(Stopped::Now)
        } else {
            // Taken over between the claim and its end: another run holds it.
            Ok(Stopped::TooLate(Claim::Held { lease_until }))
        }
    }
}

/// How the requester's "no" ended: it stopped the call, an approver had denied
/// it already, or it came too late (the claim that said so).
enum Stopped {
    Now,
    DeniedBefore(Box<DecisionRecord>),
    TooLate(Claim),
}

/// A result, with the note of who edited the arguments when the decision edited
/// them (as [`View::resume`](crate::View::resume) told the requester that waited).
fn edited(value: Value, decision: Option<&DecisionRecord>) -> Value {
    match decision {
        Some(record) if record.verdict == Verdict::ApprovedWithEdits => {
            let arguments = record
                .arguments
                .as_ref()
                .map_or_else(String::new, canonical_json);
            let note = format!(
                "{} approved it with edited arguments, and it ran with them: {arguments}",
                record.decided_by
            );
            with_note(value, note)
        }
        _ => value,
    }
}

/// An approved call whose approval expired at `until` without a run.
fn expired(until: u64) -> CallState {
    CallState::NotRun {
        kind: "expired".to_owned(),
        message: ToolError::from(ApprovalError::Expired { expired_at: until }).to_string(),
    }
}
