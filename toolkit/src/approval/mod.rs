//! The `approve` tier: a human decides before a tool runs.
//!
//! 1. A [`View`](crate::View) built with [`ViewBuilder::approvals`](crate::view::ViewBuilder::approvals)
//!    validates an `approve` tool's arguments, then returns
//!    [`Response::Pending`](crate::Response::Pending) with a [`PendingApproval`] (unless an [`InlineDecider`]
//!    decides inline). The tool does not run. The pending approval is plain,
//!    signed JSON: store it, show it in a UI, resume it in another process.
//! 2. A human decides: [`Approvals::decide`] turns the pending approval and a
//!    [`Decision`] (approve, approve with edited arguments, deny with a message) into a
//!    signed [`Approval`].
//! 3. [`View::resume`](crate::View::resume) checks the approval and runs the call, once.
//! 4. The run's outcome is kept in the store ([`Approvals::outcome`]), for whoever
//!    was not waiting for it; [`Approvals::status`] tells a requester that polls
//!    (an MCP task, an agent on its next wake) where its call is, on any replica.
//!    A call nobody comes back for is run by [`Approvals::run_decided`], the
//!    runner, once across the fleet.
//!
//! Who may decide is one [`DecisionPolicy`], asked on every path: by default
//! ([`Deciders::others`]) nobody approves or denies their own call, so an agent
//! that answers its own questions cannot approve its own transfers; a personal
//! assistant lets its user decide with [`Deciders::requester_decides`].
//!
//! An approval is bound to the principal, the tool, a digest of the arguments
//! (SHA-256 of their canonical JSON: sorted keys, no whitespace) and the call id; it
//! expires; it is signed with HMAC-SHA256 under a key only the application holds. A
//! forged, altered, expired, misdirected or already-used approval runs nothing and
//! says why ([`ToolError::ApprovalRejected`]).
//!
//! The life of every approval (pending, decided, used) is kept in an
//! [`ApprovalStore`], whose clock decides expiry: [`MemoryApprovalStore`] for one
//! process, `SqliteApprovalStore` (feature `sqlite`) for several processes sharing
//! a file, `PostgresApprovalStore` (feature `postgres`) for a fleet of replicas.
//! [`Approvals`] says what exactly-once means and for how long, and how keys
//! rotate.
//!
//! ```
//! use toolkit::approval::{ApprovalKey, Approvals, Decision, MemoryApprovalStore};
//! use toolkit::{Context, Response, Scope, tool, call::CallId};
//!
//! /// Delete a phone number the organization owns.
//! #[tool(scope = shared, tier = approve)]
//! async fn delete_phone_numbers(
//!     /// The number, in E.164 form.
//!     number: String,
//! ) -> String {
//!     format!("released {number}")
//! }
//!
//! # futures_executor::block_on(async {
//! // Once, at start-up: the key and the store every process shares.
//! let approvals = Approvals::new(ApprovalKey::new(*b"an application secret of 32 bytes")?, MemoryApprovalStore::new());
//!
//! // Per request: the view of the user the request acts for, as whatever verified
//! // them made their principal (an OAuth token's `iss` and `sub`; here, the
//! // application's own name for an in-process user).
//! let user = toolkit::Principal::local("user:7")?;
//! let view = toolkit::registry().view().scopes([Scope::Shared]).approvals(&approvals, user).build()?;
//! let ctx = Context::new().with(CallId::new("call_1"));
//! let Response::Pending(pending) = view.call("delete_phone_numbers", r#"{"number": "+15550100"}"#, &ctx).await else {
//!     panic!("an approve tool waits for a human");
//! };
//! let stored = serde_json::to_string(&pending)?; // into the database, onto a screen
//!
//! // Later, maybe elsewhere: a human approves, and the call runs once.
//! let pending = serde_json::from_str(&stored)?;
//! let approval = approvals.decide(toolkit::registry(), &pending, Decision::Approve)?;
//! let response = view.resume(&approval, &ctx).await;
//! assert_eq!(response.result(), Some(&serde_json::json!("released +15550100")));
//! // Presented again, it does not run again; the caller is told it ran, and with what.
//! let again = view.resume(&approval, &ctx).await;
//! assert_eq!(again.error().map(|e| e.kind()), Some("already_ran"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

mod confirm;
mod decide;
mod error;
mod key;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod legacy;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod pace;
mod policy;
mod request;
mod run;
mod runner;
mod status;
mod store;
mod store_error;
mod task;
mod task_input;
mod types;

#[cfg(feature = "sqlite")]
mod sqlite;

#[cfg(feature = "postgres")]
mod postgres;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::Mac;

use crate::error::ToolError;
use crate::registry::{RegisteredTool, Registry};

#[cfg(feature = "postgres")]
pub use postgres::{PostgresApprovalStore, PostgresQuotaStore};
#[cfg(feature = "sqlite")]
#[cfg_attr(docsrs, doc(cfg(feature = "sqlite")))]
pub use sqlite::{SqliteApprovalStore, SqliteQuotaStore};

pub use crate::context::CallId;
pub use confirm::Confirmation;
#[allow(deprecated)]
pub use decide::Approver;
pub use decide::InlineDecider;
pub use error::ApprovalError;
pub use key::{ApprovalKey, ApprovalKeyError, canonical_json, digest};
pub(crate) use key::{from_hex, to_hex};
pub use policy::{DecidedBy, Decider, Deciders, DecisionPolicy, PolicyError, PolicyProblem};
pub(crate) use request::request;
pub use run::ApprovedRun;
pub(crate) use run::resume;
pub use runner::RunPass;
pub use status::{CallState, CallStatus, WITHDRAWN};
pub use store::{
    ApprovalStore, CLOCK_SKEW_SECONDS, CUT_ARGUMENTS_START_CHARS, Claim, CutArguments,
    DecisionOutcome, DecisionQuery, DecisionRecord, ListedPending, MAX_QUERY_LIMIT,
    MAX_QUERY_VALUES, MemoryApprovalStore, PendingCaps, PendingCursor, PendingQuery, RefusalRecord,
    RunRecord, SavedPending, StoreFuture,
};
pub use store_error::{StoreError, StoreErrorKind};
pub use task::{
    CANCELLED, LOST, MAX_PROGRESS_MESSAGE, MAX_TASK_ARGUMENTS, TaskError, TaskPass, TaskRecord,
    TaskRequest, TaskState, TaskStatus,
};
#[cfg(feature = "mcp")]
pub(crate) use task_input::Asker;
pub use task_input::{MAX_TASK_ANSWER_BYTES, MAX_TASK_REQUESTS, TaskAnswerError};
pub use types::{Approval, Decision, MAX_OUTCOME_BYTES, PendingApproval, RunOutcome, Verdict};

type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

/// The application's approval set-up, made once at start-up and shared by every
/// view: the signing keys, the [`ApprovalStore`] that keeps the life of every
/// approval, the expiries, optionally an [`InlineDecider`]. See the
/// [module docs](crate::approval).
///
/// # Exactly once, and for how long
///
/// An approved call runs to completion at most once per principal and call id:
/// resuming claims the pair in the store (one atomic statement) before the tool runs,
/// with a lease ([`Approvals::run_lease`]), and marks it complete once the tool
/// returns a result. While the lease holds, another presentation is refused with
/// [`ApprovalError::Running`] (retryable); once complete, with
/// [`ApprovalError::Ended`], forever, which tells the caller what the run came to
/// (it ran, with its result). A run whose tool returned an error is
/// released: the next presentation (within the approval's expiry) runs it again.
/// A run that never completes (its process was killed, its request dropped
/// mid-run, the store unreachable at the end for longer than the store retries
/// it) is not lost: after the lease, the next presentation runs it again. Each run
/// after the first is attempt 2, 3, ...
///
/// A live run renews its lease every third of it, so a long tool is not taken over
/// while healthy. The attempt is a fencing token: only the attempt that holds the
/// claim completes, releases or renews it. An attempt whose lease ended while it
/// was stalled (its process frozen) and that was taken over records nothing when it
/// wakes, and its caller hears [`ApprovalError::Superseded`] with what the later
/// attempt came to, never that it ran. The outcome of every ended run is kept
/// ([`Approvals::outcome`]).
///
/// So a tool with an effect outside the process must make that effect idempotent
/// on [`ApprovedRun::key`] (a unique key in the same transaction as the effect, an
/// idempotency key of the payment API) and fence it on [`ApprovedRun::attempt`]:
/// the key is the same for every attempt of one approved call, and the library
/// cannot reach into the tool's database or API to make the effect itself
/// exactly-once. A tool that is not idempotent may have its effect repeated only
/// when a run dies (or stalls past its lease) between its effect and its
/// completion. The claim, and
/// the decision, are kept until the last moment any approval of that call could be
/// valid (the pending's expiry, then the approval TTL) plus
/// [`CLOCK_SKEW_SECONDS`]; after that everything signed for the call has expired.
/// A second decision, an edit, a purge or a store restart never runs it again, as
/// long as every process shares the store and uses TTLs no longer than this one's.
///
/// # Who decides
///
/// One [`DecisionPolicy`] ([`Approvals::policy`]; [`Deciders::others`] unless set)
/// is asked on every path before a decision is recorded; see [`Decider`].
///
/// # Time
///
/// Expiry, leases, the inbox's CSRF tokens and the lifetime of an approval resumed
/// over MCP are checked against the store's clock ([`ApprovalStore::now`]):
/// processes whose clocks differ agree. Only the synchronous [`Approvals::decide`]
/// and [`Approvals::verify_pending`] read this process's clock
/// ([`Approvals::clock`]).
///
/// # Key rotation
///
/// Sign with the current key, verify with it and the [previous
/// ones](Approvals::previous_keys): deploy the new key as current with the old one
/// listed as previous, everywhere; once every replica runs it and the longest TTL
/// (pending plus approval) has passed, drop the old key.
pub struct Approvals {
    key: ApprovalKey,
    previous_keys: Vec<ApprovalKey>,
    store: Arc<dyn ApprovalStore>,
    inline_decider: Option<Arc<dyn InlineDecider>>,
    policy: Arc<dyn DecisionPolicy>,
    pending_ttl: Duration,
    approval_ttl: Duration,
    confirmation_ttl: Duration,
    run_lease: Duration,
    retry_backoff: (Duration, Duration),
    task_ttl: Duration,
    clock: Clock,
}

impl Approvals {
    /// Approvals signed with `key`, their life kept in `store`. A human has 24 hours
    /// to decide, and an approval must be resumed within 15 minutes.
    pub fn new(key: ApprovalKey, store: impl ApprovalStore + 'static) -> Self {
        Self::with_store(key, Arc::new(store))
    }

    /// Like [`Approvals::new`], with a store shared with other parts of the
    /// application.
    pub fn with_store(key: ApprovalKey, store: Arc<dyn ApprovalStore>) -> Self {
        Approvals {
            key,
            previous_keys: Vec::new(),
            store,
            inline_decider: None,
            policy: Arc::new(Deciders::others()),
            pending_ttl: Duration::from_hours(24),
            approval_ttl: Duration::from_mins(15),
            confirmation_ttl: Duration::from_mins(10),
            run_lease: Duration::from_secs(30),
            retry_backoff: (Duration::from_secs(5), Duration::from_mins(5)),
            task_ttl: Duration::from_hours(1),
            clock: Arc::new(SystemTime::now),
        }
    }

    /// Keys that still verify pending approvals and approvals (signed before a
    /// rotation) but no longer sign.
    #[must_use]
    pub fn previous_keys(mut self, keys: impl IntoIterator<Item = ApprovalKey>) -> Self {
        self.previous_keys = keys.into_iter().collect();
        self
    }

    /// Decides approvals inline with `decider`, in code, before any person is asked.
    #[must_use]
    pub fn inline_decider(mut self, decider: impl InlineDecider + 'static) -> Self {
        self.inline_decider = Some(Arc::new(decider));
        self
    }

    /// Renamed [`Approvals::inline_decider`].
    #[doc(hidden)]
    #[deprecated(
        note = "renamed `Approvals::inline_decider` (the trait is now `toolkit::approval::InlineDecider`)"
    )]
    #[must_use]
    pub fn approver(self, decider: impl InlineDecider + 'static) -> Self {
        self.inline_decider(decider)
    }

    /// Who may decide a call: asked on every path (the inbox, an MCP client's own
    /// answer, [`Approvals::decide`], [`Approvals::decide_as`], an inline
    /// [`InlineDecider`]). Unless set, [`Deciders::others`]: nobody decides their own
    /// call.
    #[must_use]
    pub fn policy(mut self, policy: impl DecisionPolicy + 'static) -> Self {
        self.policy = Arc::new(policy);
        self
    }

    /// How long a human has to decide.
    #[must_use]
    pub fn pending_ttl(mut self, ttl: Duration) -> Self {
        self.pending_ttl = ttl;
        self
    }

    /// How long an approval may wait before it is resumed.
    #[must_use]
    pub fn approval_ttl(mut self, ttl: Duration) -> Self {
        self.approval_ttl = ttl;
        self
    }

    /// How long a person has to confirm a previewed call of a `confirm` tool
    /// outside the model's turn (a [`Confirmation`], 10 minutes unless set).
    #[must_use]
    pub fn confirmation_ttl(mut self, ttl: Duration) -> Self {
        self.confirmation_ttl = ttl;
        self
    }

    /// How long a run of an approved call holds its claim without renewing it (30
    /// seconds unless set): a live run renews it every third of the lease, so a
    /// long tool is never taken over while healthy, and a run whose process died
    /// is run again by the next presentation once the lease ends. Long enough to
    /// ride out a store that stalls for a moment; short enough that a caller's retry
    /// after a crash is worth waiting for.
    #[must_use]
    pub fn run_lease(mut self, lease: Duration) -> Self {
        self.run_lease = lease;
        self
    }

    /// How long a runner ([`Approvals::run_decided`]) waits before it tries a
    /// call whose tool failed again: `first` after the first failed attempt, twice
    /// as long after each further one, never more than `most` (5 s doubling up to
    /// 5 minutes unless set; at least a second each). A tool that keeps failing
    /// (its service down) is tried a handful of times over an approval's life, not
    /// on every pass. The time of the next attempt is the failed attempt's end, as
    /// the store recorded it on its clock, plus this wait: every replica reads the
    /// same ([`Approvals::next_attempt_at`], [`CallState::Retrying`]).
    #[must_use]
    pub fn retry_backoff(mut self, first: Duration, most: Duration) -> Self {
        self.retry_backoff = (first, most.max(first));
        self
    }

    /// When a runner may next try the call whose run is `run` (Unix seconds, store
    /// time): its last attempt's end plus the [back-off](Approvals::retry_backoff)
    /// for that attempt, when its tool failed and no run holds it; `None`
    /// otherwise (it ran, runs now, or never ended).
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::approval::{ApprovalKey, Approvals, MemoryApprovalStore, RunOutcome, RunRecord};
    ///
    /// let approvals = Approvals::new(ApprovalKey::new(*b"an application secret of 32 bytes")?, MemoryApprovalStore::new())
    ///     .retry_backoff(Duration::from_secs(5), Duration::from_secs(60));
    /// let failed = RunOutcome::Failed { kind: "failed".into(), message: "the ledger is down".into() };
    /// let third = RunRecord::new(3, false, 0, Some(failed.clone())).ended_at(1_000);
    /// assert_eq!(approvals.next_attempt_at(&third), Some(1_020), "5 s, then 10, then 20");
    /// let seventh = RunRecord::new(7, false, 0, Some(failed)).ended_at(1_000);
    /// assert_eq!(approvals.next_attempt_at(&seventh), Some(1_060), "never more than 60 s");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn next_attempt_at(&self, run: &RunRecord) -> Option<u64> {
        if run.done
            || run.lease_until != 0
            || !matches!(run.outcome, Some(RunOutcome::Failed { .. }))
        {
            return None;
        }
        let ended_at = run.ended_at?;
        let (first, most) = (
            self.retry_backoff.0.as_secs().max(1),
            self.retry_backoff.1.as_secs().max(1),
        );
        let doublings = run.attempt.saturating_sub(1).min(63);
        let wait = first
            .checked_mul(1_u64 << doublings)
            .map_or(most, |wait| wait.min(most));
        Some(ended_at.saturating_add(wait))
    }

    /// The process clock of the synchronous [`Approvals::decide`] and
    /// [`Approvals::verify_pending`] (tests pin it); everything else reads the
    /// store's clock.
    #[must_use]
    pub fn clock(mut self, clock: impl Fn() -> SystemTime + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// The store.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn ApprovalStore> {
        &self.store
    }

    /// Checks `signature` with the current key, then each previous one.
    fn verify(&self, payload: &str, signature: &str) -> Result<(), ApprovalError> {
        let Some(signature) = from_hex(signature) else {
            return Err(ApprovalError::BadSignature);
        };
        let verifies = |key: &ApprovalKey| {
            let mut mac = key.mac();
            mac.update(payload.as_bytes());
            mac.verify_slice(&signature).is_ok()
        };
        if verifies(&self.key) || self.previous_keys.iter().any(verifies) {
            Ok(())
        } else {
            Err(ApprovalError::BadSignature)
        }
    }

    fn sign(&self, payload: &str) -> String {
        let mut mac = self.key.mac();
        mac.update(payload.as_bytes());
        to_hex(&mac.finalize().into_bytes())
    }

    /// Keys for another purpose (`purpose` names it), derived with HMAC-SHA256 from
    /// the approval key (first) and each previous key: every process holding the
    /// approval keys derives the same ones, and no approval key can be found from
    /// them. The first signs; the others still verify what was signed before the
    /// approval key rotated.
    #[cfg(feature = "inbox")]
    pub(crate) fn derive_keys(&self, purpose: &str) -> Vec<Vec<u8>> {
        std::iter::once(&self.key)
            .chain(&self.previous_keys)
            .map(|key| {
                let mut mac = key.mac();
                mac.update(purpose.as_bytes());
                to_hex(&mac.finalize().into_bytes()).into_bytes()
            })
            .collect()
    }

    fn local_now(&self) -> u64 {
        (self.clock)()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs())
    }

    async fn store_now(&self) -> Result<u64, ApprovalError> {
        self.store.now().await.map_err(ApprovalError::Store)
    }
}

impl fmt::Debug for Approvals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Approvals")
            .field("pending_ttl", &self.pending_ttl)
            .field("approval_ttl", &self.approval_ttl)
            .field("confirmation_ttl", &self.confirmation_ttl)
            .field("previous_keys", &self.previous_keys.len())
            .field("inline_decider", &self.inline_decider.is_some())
            .field("run_lease", &self.run_lease)
            .field("retry_backoff", &self.retry_backoff)
            .finish_non_exhaustive()
    }
}

/// A view that approved calls run through: [`View`](crate::View), and nothing
/// else (the trait is sealed). [`Approvals::run_decided`] takes the view the
/// application builds for a stored call's principal.
pub trait ApprovalView<'r>: CallingView<'r> {}

impl<'r, T: CallingView<'r>> ApprovalView<'r> for T {}

mod sealed {
    use super::Approvals;
    use crate::error::ToolError;
    use crate::quota::{Quota, Quotas};
    use crate::registry::{RegisteredTool, Registry};
    use crate::tool::Tool;

    /// What the approval flow needs of the view a call came through: its approvals
    /// and principal, its registry, its tools and its unknown-tool error.
    /// [`View`](crate::View) implements it; the flow names this trait rather than the
    /// view, so the view stands above approval and not beside it.
    // Public in a private module: only this crate implements it.
    #[allow(unreachable_pub)]
    pub trait CallingView<'r>: Sync {
        /// The view's approvals and principal, if it has them.
        fn approvals(&self) -> Option<(&'r Approvals, &crate::principal::Principal)>;
        /// The registry behind the view.
        fn registry(&self) -> &'r Registry;
        /// The tool `name` names in the view.
        fn get(&self, name: &str) -> Option<&'r RegisteredTool>;
        /// The error for a name that is not in the view.
        fn unknown_tool(&self, name: &str) -> ToolError;
        /// The view's label, if it has one: which surface asked.
        fn label(&self) -> Option<&str>;
        /// The limit a run of `tool` meets, the principal it counts under and
        /// the quotas that count it, when the view has quotas and the tool a limit.
        fn quota_of(
            &self,
            tool: &Tool,
        ) -> Option<(&'r Quotas, &crate::principal::Principal, Quota)>;
        /// The view's quotas, for the cap on waiting approvals.
        fn quotas(&self) -> Option<&'r Quotas>;
        /// Calls `name` with `arguments` (JSON text) as the view's dispatch
        /// does: what a task's run makes ([`Approvals::run_tasks`]).
        fn call<'a>(
            &'a self,
            name: &'a str,
            arguments: &'a str,
            ctx: &'a crate::context::Context,
        ) -> crate::tool::CallFuture<'a>;
    }
}

pub(crate) use sealed::CallingView;

/// The one argument check of dispatch (limits, schema constraints, typed parse),
/// nothing run: a human never approves a call that would fail.
fn check_arguments(
    registry: &Registry,
    tool: &RegisteredTool,
    arguments: &str,
) -> Result<(), ToolError> {
    tool.check_arguments_with_limits(arguments, &registry.limits())
}
