//! A decision: who may make it, how it is recorded, and the signed approval it
//! becomes.

use std::future::Future;
use std::pin::Pin;

use super::key::{approval_payload, canonical_json, digest, pending_payload};
use super::{
    Approval, ApprovalError, Approvals, CLOCK_SKEW_SECONDS, DecidedBy, Decider, Decision,
    DecisionOutcome, DecisionQuery, DecisionRecord, PendingApproval, PendingQuery, RefusalRecord,
    Verdict, check_arguments,
};
use crate::context::Context;
use crate::principal::Principal;
use crate::registry::Registry;

/// The application's own code deciding approvals inline, when it can (a policy, a
/// human it asks on a live channel), before the call is left pending. Returning
/// `None` leaves the call pending for a person: an approver in the inbox, or
/// [`Approvals::decide_as`].
pub trait InlineDecider: Send + Sync {
    /// The decision on `pending`, or `None` to return it as [`Response::Pending`](crate::Response::Pending).
    fn decide<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ctx: &'a Context,
    ) -> Pin<Box<dyn Future<Output = Option<Decision>> + Send + 'a>>;

    /// The person whose decision [`decide`](InlineDecider::decide) gives, when it
    /// is a person's (a human it asked on a live channel), for `pending`: the
    /// [policy](Approvals::policy) then checks them ([`Decider::Person`]), so a
    /// requester asked in their own conversation cannot approve their own call
    /// where the policy leaves it to someone else. `None` (the default): the
    /// application's own rule decides ([`Decider::Application`]).
    fn decided_by(&self, pending: &PendingApproval, ctx: &Context) -> Option<Principal> {
        let _ = (pending, ctx);
        None
    }
}

/// Renamed [`InlineDecider`] ("approver" names the people who decide in the
/// inbox); a type that implements this one implements that one.
#[doc(hidden)]
#[deprecated(
    note = "renamed `toolkit::approval::InlineDecider` (set with `Approvals::inline_decider`)"
)]
pub trait Approver: Send + Sync {
    /// As [`InlineDecider::decide`].
    fn decide<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ctx: &'a Context,
    ) -> Pin<Box<dyn Future<Output = Option<Decision>> + Send + 'a>>;
}

#[allow(deprecated)]
#[diagnostic::do_not_recommend]
impl<T: Approver> InlineDecider for T {
    fn decide<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ctx: &'a Context,
    ) -> Pin<Box<dyn Future<Output = Option<Decision>> + Send + 'a>> {
        Approver::decide(self, pending, ctx)
    }
}

impl Approvals {
    /// Checks a pending approval's signature and expiry against this process's
    /// clock (before showing it to a human, say).
    pub fn verify_pending(&self, pending: &PendingApproval) -> Result<(), ApprovalError> {
        self.verify_pending_at(pending, self.local_now())
    }

    pub(super) fn verify_pending_at(
        &self,
        pending: &PendingApproval,
        now: u64,
    ) -> Result<(), ApprovalError> {
        self.verify(&pending_payload(pending), &pending.signature)?;
        if now > pending.expires_at {
            return Err(ApprovalError::Expired {
                expired_at: pending.expires_at,
            });
        }
        if digest(&pending.arguments) != pending.digest {
            return Err(ApprovalError::ArgumentsAltered);
        }
        Ok(())
    }

    /// Whether the [policy](Approvals::policy) lets `decider` decide `pending`: an
    /// adapter asks before it puts the question to the requester.
    #[must_use]
    pub fn may_decide(&self, decider: &Decider<'_>, pending: &PendingApproval) -> bool {
        self.policy.check(decider, pending).is_ok()
    }

    /// The [policy](Approvals::policy)'s answer for `decider` on `pending`, once its
    /// tool names resolve in `registry`: a policy that names no tool of the
    /// registry decides nothing (it fails closed), so a misspelt name never leaves
    /// a call to a rule it was meant to escape.
    fn check_policy(
        &self,
        registry: &Registry,
        decider: &Decider<'_>,
        pending: &PendingApproval,
    ) -> Result<(), String> {
        if let Err(error) = self.policy.resolve(registry) {
            return Err(format!("{error}; nobody decides until it is fixed"));
        }
        self.policy.check(decider, pending)
    }

    /// Checks that every tool the [policy](Approvals::policy) names is an `approve`
    /// tool of `registry` ([`DecisionPolicy::resolve`](super::DecisionPolicy::resolve)).
    /// [`ViewBuilder::build`](crate::view::ViewBuilder::build) asks it of a view with
    /// these approvals; an application that decides without a view can ask at
    /// start-up.
    pub fn resolve_policy(&self, registry: &Registry) -> Result<(), super::PolicyError> {
        self.policy.resolve(registry)
    }

    /// Why the [policy](Approvals::policy) refuses `decider` for `pending`, in
    /// the words the decider reads, or `None` when they may decide it: what the
    /// inbox shows on a card in place of its buttons.
    #[cfg(feature = "inbox")]
    pub(crate) fn refusal(
        &self,
        decider: &Decider<'_>,
        pending: &PendingApproval,
    ) -> Option<String> {
        self.policy.check(decider, pending).err()
    }

    /// The application's decision on `pending` ([`Decider::Application`]), signed,
    /// checked against this process's clock and the [policy](Approvals::policy),
    /// and not recorded in the store: prefer [`Approvals::decide_as`], which records
    /// THE decision. Edited arguments are validated against the tool in `registry`.
    /// Deciding twice gives two approvals, but the call runs once: resuming claims
    /// it in the store.
    pub fn decide(
        &self,
        registry: &Registry,
        pending: &PendingApproval,
        decision: Decision,
    ) -> Result<Approval, ApprovalError> {
        let now = self.local_now();
        self.verify_pending_at(pending, now)?;
        let decider = Decider::Application;
        if let Err(reason) = self.check_policy(registry, &decider, pending) {
            return Err(ApprovalError::NotAllowed {
                decided_by: decider.name().to_owned(),
                reason,
            });
        }
        self.approval(registry, pending, decision, now, decider.name())
    }

    /// A person's decision on `pending` ([`Decider::Person`] named `decided_by`,
    /// for the audit trail), recorded in the store as THE decision and signed: see
    /// [`Approvals::decide_by`].
    pub async fn decide_as(
        &self,
        registry: &Registry,
        pending: &PendingApproval,
        decision: Decision,
        decided_by: &Principal,
    ) -> Result<Approval, ApprovalError> {
        self.decide_by(registry, pending, decision, Decider::Person(decided_by))
            .await
    }

    /// `decider`'s decision on `pending`, recorded in the store as THE decision and
    /// signed: the one function every door decides through. Checks the pending
    /// approval against the store's clock; asks the [policy](Approvals::policy)
    /// (a refused decider gets [`ApprovalError::NotAllowed`], and the refusal is
    /// kept: [`Approvals::refusals`]); validates edited arguments against the tool
    /// in `registry` (the error is [`ApprovalError::InvalidArguments`] with the
    /// problem's path); fails with [`ApprovalError::AlreadyDecided`], carrying the
    /// winner, when another decision was recorded first.
    pub async fn decide_by(
        &self,
        registry: &Registry,
        pending: &PendingApproval,
        decision: Decision,
        decider: Decider<'_>,
    ) -> Result<Approval, ApprovalError> {
        self.decide_by_at(registry, pending, decision, decider)
            .await
            .map(|(approval, _)| approval)
    }

    /// [`Approvals::decide_by`], and the store time it decided at: a run that
    /// follows at once checks against it instead of reading the clock again.
    pub(super) async fn decide_by_at(
        &self,
        registry: &Registry,
        pending: &PendingApproval,
        decision: Decision,
        decider: Decider<'_>,
    ) -> Result<(Approval, u64), ApprovalError> {
        let now = self.store_now().await?;
        self.verify_pending_at(pending, now)?;
        let keep_until = pending
            .expires_at
            .saturating_add(self.approval_ttl.as_secs())
            .saturating_add(CLOCK_SKEW_SECONDS);
        if let Err(reason) = self.check_policy(registry, &decider, pending) {
            let refusal = RefusalRecord {
                call_id: pending.call_id.clone(),
                principal: pending.principal.clone(),
                tool: pending.tool.clone(),
                decided_by: DecidedBy::from(decider),
                reason: reason.clone(),
                refused_at: now,
            };
            if let Err(error) = self.store.record_refusal(&refusal, keep_until).await {
                tracing::warn!(%error, "a refused decision could not be kept in the audit");
            }
            return Err(ApprovalError::NotAllowed {
                decided_by: refusal.decided_by.name().to_owned(),
                reason,
            });
        }
        let approval = self.approval(registry, pending, decision, now, decider.name())?;
        let record = DecisionRecord {
            call_id: approval.call_id.clone(),
            principal: approval.principal.clone(),
            tool: approval.tool.clone(),
            verdict: approval.verdict,
            digest: approval.digest.clone(),
            message: approval.message.clone(),
            decided_by: DecidedBy::from(decider),
            decided_at: now,
            arguments: (approval.verdict == Verdict::ApprovedWithEdits)
                .then(|| approval.arguments.clone()),
        };
        match self
            .store
            .record_decision(&record, keep_until)
            .await
            .map_err(ApprovalError::Store)?
        {
            DecisionOutcome::Recorded => Ok((approval, now)),
            DecisionOutcome::AlreadyDecided(winner) => Err(ApprovalError::AlreadyDecided(winner)),
        }
    }

    /// The requester's own answer on `pending`, given in the conversation (an MCP
    /// client's elicitation): decided as [`Decider::Requester`], unless someone
    /// decided first (an approver in the inbox), whose decision stands. Then the
    /// call runs only if the requester accepted too (a "no" in the conversation
    /// never runs a call, and is recorded so that no door or runner runs it later); a denial carries the approver's reason; an approval with
    /// edits runs with the edited arguments the store recorded, once they match the
    /// recorded digest and pass the tool's schema again. The approval followed
    /// expires with the approval TTL from when it was decided, by the store's clock.
    pub async fn answer_as_requester(
        &self,
        registry: &Registry,
        pending: &PendingApproval,
        answer: Decision,
    ) -> Result<Approval, ApprovalError> {
        self.answer_as_requester_at(registry, pending, answer)
            .await
            .map(|(approval, _)| approval)
    }

    /// [`Approvals::answer_as_requester`], and the store time its approval was
    /// checked at: the run that follows (an MCP resume) checks against it, so one
    /// resume reads the store's clock once.
    pub(crate) async fn answer_as_requester_at(
        &self,
        registry: &Registry,
        pending: &PendingApproval,
        answer: Decision,
    ) -> Result<(Approval, u64), ApprovalError> {
        // The requester's "no" is recorded whoever decided, and stops the call on
        // every door and in the runner: not only this answer.
        if let Decision::Deny(message) = &answer {
            return self.decline(registry, pending, message).await;
        }
        // A requester the policy does not let decide still follows a decision
        // someone else made: their answer is then only "go ahead".
        let recorded = if self.may_decide(&Decider::Requester, pending) {
            None
        } else {
            self.store
                .decision(&pending.principal, &pending.call_id)
                .await
                .map_err(ApprovalError::Store)?
        };
        let record = match recorded {
            Some(record) => record,
            None => match self
                .decide_by_at(registry, pending, answer, Decider::Requester)
                .await
            {
                Err(ApprovalError::AlreadyDecided(record)) => *record,
                decided => return decided,
            },
        };
        self.follow(registry, pending, &record).await
    }

    /// The approval that carries out THE decision `record` on `pending`, signed as
    /// of when it was decided (its lifetime starts then, by the store's clock), not
    /// recorded again: it is already in the store, and the claim still lets the call
    /// run once. An
    /// approval with edits runs with the arguments the store recorded, once they
    /// match the recorded digest and pass the tool's schema again. Also the store
    /// time it was checked at, for the run that follows.
    pub(super) async fn follow(
        &self,
        registry: &Registry,
        pending: &PendingApproval,
        record: &DecisionRecord,
    ) -> Result<(Approval, u64), ApprovalError> {
        let refused = |why: &'static str| ApprovalError::EditsUnusable {
            decided_by: record.decided_by.name().to_owned(),
            why,
        };
        let decision = match record.verdict {
            Verdict::Denied => Decision::Deny(
                record
                    .message
                    .clone()
                    .unwrap_or_else(|| format!("{} denied the call", record.decided_by)),
            ),
            Verdict::Approved => Decision::Approve,
            Verdict::ApprovedWithEdits => {
                let arguments = record
                    .arguments
                    .clone()
                    .ok_or_else(|| refused("the store kept no edited arguments with it"))?;
                // The digest was computed from the arguments the approver's edits
                // were validated as; arguments that no longer match it were changed
                // since, and never run.
                if digest(&arguments) != record.digest {
                    return Err(refused(
                        "the edited arguments in the store do not match its digest",
                    ));
                }
                Decision::ApproveWith(arguments)
            }
        };
        let now = self.store_now().await?;
        self.verify_pending_at(pending, now)?;
        let approval = self.approval(
            registry,
            pending,
            decision,
            record.decided_at,
            record.decided_by.name(),
        )?;
        if now > approval.expires_at {
            return Err(ApprovalError::Expired {
                expired_at: approval.expires_at,
            });
        }
        Ok((approval, now))
    }

    /// Undecided pending approvals that have not expired, newest first.
    pub async fn pending(
        &self,
        query: &PendingQuery,
    ) -> Result<Vec<PendingApproval>, ApprovalError> {
        self.store
            .list_pending(query)
            .await
            .map_err(ApprovalError::Store)
    }

    /// Recorded decisions (the audit trail), newest first.
    pub async fn decisions(
        &self,
        query: &DecisionQuery,
    ) -> Result<Vec<DecisionRecord>, ApprovalError> {
        self.store
            .decisions(query)
            .await
            .map_err(ApprovalError::Store)
    }

    /// Decisions the policy refused (the audit's second list), newest first.
    pub async fn refusals(
        &self,
        query: &DecisionQuery,
    ) -> Result<Vec<RefusalRecord>, ApprovalError> {
        self.store
            .refusals(query)
            .await
            .map_err(ApprovalError::Store)
    }

    pub(super) fn approval(
        &self,
        registry: &Registry,
        pending: &PendingApproval,
        decision: Decision,
        now: u64,
        decided_by: &str,
    ) -> Result<Approval, ApprovalError> {
        let (arguments, verdict, message) = match decision {
            Decision::Approve => (pending.arguments.clone(), Verdict::Approved, None),
            Decision::ApproveWith(arguments) => {
                // Edited arguments are built in code: their depth is checked without
                // recursion before anything serializes them (or drops them).
                if let Err(error) =
                    crate::dispatch::limits::check_value(&arguments, &registry.limits())
                {
                    crate::dispatch::limits::dismantle(arguments);
                    return Err(ApprovalError::InvalidArguments(error));
                }
                let tool = registry
                    .get(&pending.tool)
                    .ok_or_else(|| ApprovalError::UnknownTool(pending.tool.clone()))?;
                check_arguments(registry, tool, &canonical_json(&arguments))
                    .map_err(ApprovalError::InvalidArguments)?;
                (arguments, Verdict::ApprovedWithEdits, None)
            }
            Decision::Deny(message) => (pending.arguments.clone(), Verdict::Denied, Some(message)),
        };
        let mut approval = Approval {
            call_id: pending.call_id.clone(),
            principal: pending.principal.clone(),
            tool: pending.tool.clone(),
            digest: digest(&arguments),
            arguments,
            verdict,
            message,
            decided_at: now,
            expires_at: now.saturating_add(self.approval_ttl.as_secs()),
            decided_by: Some(decided_by.to_owned()),
            signature: String::new(),
        };
        approval.signature = self.sign(&approval_payload(&approval));
        Ok(approval)
    }
}
