//! The `approve` tier: a human decides before a tool runs.
//!
//! 1. A [`View`](crate::View) built with [`ViewBuilder::approvals`](crate::ViewBuilder::approvals)
//!    validates an `approve` tool's arguments, then returns
//!    [`Response::Pending`] with a [`PendingApproval`] (unless an [`Approver`]
//!    decides inline). The tool does not run. The pending approval is plain,
//!    signed JSON: store it, show it in a UI, resume it in another process.
//! 2. A human decides: [`Approvals::decide`] turns the pending approval and a
//!    [`Decision`] (approve, approve with edited arguments, deny with a message) into a
//!    signed [`Approval`].
//! 3. [`View::resume`](crate::View::resume) checks the approval and runs the call, once.
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
//! use toolkit::{CallId, Context, Response, Scope, tool};
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
//! // Per request: the view of the user the request acts for.
//! let view = toolkit::registry().view().scopes([Scope::Shared]).approvals(&approvals, "user:7").build()?;
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
//! let again = view.resume(&approval, &ctx).await;
//! assert_eq!(again.error().map(|e| e.kind()), Some("approval_rejected"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

mod store;
mod types;

#[cfg(feature = "sqlite")]
mod sqlite;

#[cfg(feature = "postgres")]
mod postgres;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::{Context, RegisteredTool, Registry, Response, ToolError};

#[cfg(feature = "postgres")]
pub use postgres::PostgresApprovalStore;
#[cfg(feature = "sqlite")]
#[cfg_attr(docsrs, doc(cfg(feature = "sqlite")))]
pub use sqlite::SqliteApprovalStore;
pub use store::{
    ApprovalStore, CLOCK_SKEW_SECONDS, Claim, DecisionOutcome, DecisionQuery, DecisionRecord,
    MAX_QUERY_LIMIT, MAX_QUERY_VALUES, MemoryApprovalStore, PendingQuery, StoreError, StoreFuture,
};
pub use types::{PendingApproval, Verdict};

/// The id of the model's tool call (`call_...` in OpenAI, `toolu_...` in Anthropic),
/// put in the [`Context`] so a pending approval carries it. Without one, an id is
/// made up.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallId(pub String);

impl CallId {
    /// The call id `id`.
    pub fn new(id: impl Into<String>) -> Self {
        CallId(id.into())
    }
}

/// The secret that signs pending approvals and approvals: at least
/// [`ApprovalKey::MIN_LEN`] random bytes, held by the application (never sent to a
/// model or a client), the same in every process that resumes approvals.
///
/// Keys rotate: [`Approvals::previous_keys`] lists keys that still verify (but no
/// longer sign), so a fleet rolls a new key without refusing approvals in flight.
#[derive(Clone)]
pub struct ApprovalKey(Vec<u8>);

impl ApprovalKey {
    /// The fewest bytes a key may have: HMAC-SHA256's output size, so guessing the
    /// key is never easier than forging a signature.
    pub const MIN_LEN: usize = 32;

    /// A key of these bytes (`openssl rand -hex 32` makes a good one).
    ///
    /// # Errors
    /// [`ApprovalKeyError`] when there are fewer than [`Self::MIN_LEN`] bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Result<Self, ApprovalKeyError> {
        let bytes = bytes.into();
        if bytes.len() < Self::MIN_LEN {
            return Err(ApprovalKeyError { len: bytes.len() });
        }
        Ok(ApprovalKey(bytes))
    }

    fn mac(&self) -> Hmac<Sha256> {
        // HMAC takes keys of any length; `new_from_slice` cannot fail for it.
        <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"))
    }
}

/// An [`ApprovalKey`] was too short.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApprovalKeyError {
    /// How many bytes it had.
    pub len: usize,
}

impl fmt::Display for ApprovalKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an approval key needs at least {} random bytes, this one has {} \
             (make one with `openssl rand -hex 32`)",
            ApprovalKey::MIN_LEN,
            self.len
        )
    }
}

impl std::error::Error for ApprovalKeyError {}

impl fmt::Debug for ApprovalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApprovalKey(..)")
    }
}

/// A human's decision on a [`PendingApproval`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Run the call as requested.
    Approve,
    /// Run the call with these arguments instead (validated again).
    ApproveWith(Value),
    /// Don't run it; the model reads the message.
    Deny(String),
}

/// A signed decision, to hand to [`View::resume`](crate::View::resume). Serializable: an approval made in
/// one process (an admin UI) is resumed in another (the agent's worker).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// The call id of the pending approval.
    pub call_id: String,
    /// Who the call acts for.
    pub principal: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments to run with (edited, if the human edited them).
    pub arguments: Value,
    /// `sha256:` and the hex SHA-256 of `arguments`' canonical JSON.
    pub digest: String,
    /// What the human decided.
    pub verdict: Verdict,
    /// The human's message (required for a denial).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When the human decided, in Unix seconds.
    pub decided_at: u64,
    /// Until when the call may be resumed, in Unix seconds.
    pub expires_at: u64,
    /// Hex HMAC-SHA256 of the fields above except `arguments`, which the digest binds.
    pub signature: String,
}

/// Why a pending approval or an approval was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApprovalError {
    /// The signature does not match: forged, altered, or signed with another key.
    BadSignature,
    /// Past its expiry.
    Expired {
        /// When it expired, in Unix seconds.
        expired_at: u64,
    },
    /// Already used: an approved call runs once.
    AlreadyUsed,
    /// Another request is running this approved call right now (or was, and died:
    /// its lease ends at `lease_until`). Nothing ran here; try again after then.
    Running {
        /// When the other run's lease ends, in Unix seconds (store time).
        lease_until: u64,
        /// Seconds from now until then.
        retry_after: u64,
    },
    /// Another decision on this pending approval was recorded first.
    AlreadyDecided {
        /// Who made it.
        decided_by: String,
        /// When, in Unix seconds.
        decided_at: u64,
        /// What it was.
        verdict: Verdict,
    },
    /// Issued for another principal than the view's.
    WrongPrincipal,
    /// The arguments don't match the signed digest.
    ArgumentsAltered,
    /// Edited (or stored) arguments the tool does not accept.
    InvalidArguments(ToolError),
    /// No such tool in the registry (when deciding).
    UnknownTool(String),
    /// The view was built without approvals, so it can't check one.
    NotConfigured,
    /// The approval store failed; nothing ran. Its message is the store's own (for
    /// the application and its log); turned into a [`ToolError`] for the model, it
    /// says only that the store failed and to try again.
    Store(StoreError),
}

/// What a caller is told when the approval store failed.
const STORE_FAILED: &str = "the approval store failed, nothing ran; try again";

impl fmt::Display for ApprovalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApprovalError::BadSignature => {
                f.write_str("its signature does not match (forged or altered)")
            }
            ApprovalError::Expired { expired_at } => {
                write!(f, "it expired at {expired_at} (Unix seconds)")
            }
            ApprovalError::AlreadyUsed => {
                f.write_str("it was already used, and an approved call runs once")
            }
            ApprovalError::Running { retry_after, .. } => write!(
                f,
                "another request is running it now; if that run does not finish, try \
                 again in {retry_after} s"
            ),
            ApprovalError::AlreadyDecided {
                decided_by,
                decided_at,
                verdict,
            } => write!(
                f,
                "it was already decided ({}) by {decided_by} at {decided_at} (Unix seconds)",
                verdict.as_str()
            ),
            ApprovalError::WrongPrincipal => f.write_str("it was issued for another principal"),
            ApprovalError::ArgumentsAltered => {
                f.write_str("the arguments do not match the approved digest")
            }
            ApprovalError::InvalidArguments(error) => {
                write!(f, "the arguments are not valid: {error}")
            }
            ApprovalError::UnknownTool(tool) => write!(f, "no tool is named `{tool}`"),
            ApprovalError::NotConfigured => {
                f.write_str("this view was built without approvals, so it cannot check one")
            }
            ApprovalError::Store(error) => write!(f, "{STORE_FAILED}: {error}"),
        }
    }
}

impl std::error::Error for ApprovalError {}

impl From<ApprovalError> for ToolError {
    fn from(error: ApprovalError) -> Self {
        match error {
            ApprovalError::InvalidArguments(error) => error,
            // The store's own words (a database's message, its host and port) are
            // for the operator's log; the model and an MCP client hear only that
            // nothing ran and to try again.
            ApprovalError::Store(error) => {
                tracing::warn!(%error, "the approval store failed; the caller was told to try again");
                ToolError::ApprovalRejected {
                    reason: STORE_FAILED.to_owned(),
                }
            }
            other => ToolError::ApprovalRejected {
                reason: other.to_string(),
            },
        }
    }
}

/// Decides approvals inline, when the application can (a policy, a human on a live
/// channel). Returning `None` leaves the call pending.
pub trait Approver: Send + Sync {
    /// The decision on `pending`, or `None` to return it as [`Response::Pending`].
    fn decide<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ctx: &'a Context,
    ) -> Pin<Box<dyn Future<Output = Option<Decision>> + Send + 'a>>;
}

type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

/// The application's approval set-up, made once at start-up and shared by every
/// view: the signing keys, the [`ApprovalStore`] that keeps the life of every
/// approval, the expiries, optionally an [`Approver`]. See the
/// [module docs](crate::approval).
///
/// # Exactly once, and for how long
///
/// An approved call runs to completion at most once per principal and call id:
/// resuming claims the pair in the store (one atomic statement) before the tool runs,
/// with a lease ([`Approvals::run_lease`]), and marks it complete once the tool
/// returns a result. While the lease holds, another presentation is refused with
/// [`ApprovalError::Running`] (retryable); once complete, with
/// [`ApprovalError::AlreadyUsed`], forever. A run whose tool returned an error is
/// released: the next presentation (within the approval's expiry) runs it again.
/// A run that never completes (its process was killed, its request dropped
/// mid-run, the store unreachable at the end for longer than the store retries
/// it) is not lost: after the lease, the next presentation runs it again. Each run
/// after the first is attempt 2, 3, ...
///
/// So a tool with an effect outside the process must make that effect idempotent
/// on [`ApprovedRun::key`] (a unique key in the same transaction as the effect, an
/// idempotency key of the payment API): that key is the same for every attempt of
/// one approved call, and the library cannot reach into the tool's database or
/// API to make the effect itself exactly-once. A tool that is not idempotent may
/// have its effect repeated only when a run dies between its effect and its
/// completion. Set the lease longer than the tool's longest run (the call's time
/// limit), or a slow run can be taken over while it is still running. The claim, and
/// the decision, are kept until the last moment any approval of that call could be
/// valid (the pending's expiry, then the approval TTL) plus
/// [`CLOCK_SKEW_SECONDS`]; after that everything signed for the call has expired.
/// A second decision, an edit, a purge or a store restart never runs it again, as
/// long as every process shares the store and uses TTLs no longer than this one's.
///
/// # Time
///
/// Expiry is checked against the store's clock ([`ApprovalStore::now`]): processes
/// whose clocks differ agree. Only the synchronous [`Approvals::decide`] and
/// [`Approvals::verify_pending`] read this process's clock ([`Approvals::clock`]).
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
    approver: Option<Arc<dyn Approver>>,
    pending_ttl: Duration,
    approval_ttl: Duration,
    run_lease: Duration,
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
            approver: None,
            pending_ttl: Duration::from_hours(24),
            approval_ttl: Duration::from_mins(15),
            run_lease: Duration::from_mins(5),
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

    /// Decides approvals inline with `approver`.
    #[must_use]
    pub fn approver(mut self, approver: impl Approver + 'static) -> Self {
        self.approver = Some(Arc::new(approver));
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

    /// How long a run of an approved call holds its claim (5 minutes unless set):
    /// past it, a run that did not complete is run again by the next presentation.
    /// Longer than the tool's longest run; short enough that a caller's retry after
    /// a crash is worth waiting for.
    #[must_use]
    pub fn run_lease(mut self, lease: Duration) -> Self {
        self.run_lease = lease;
        self
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

    /// Checks a pending approval's signature and expiry against this process's
    /// clock (before showing it to a human, say).
    pub fn verify_pending(&self, pending: &PendingApproval) -> Result<(), ApprovalError> {
        self.verify_pending_at(pending, self.local_now())
    }

    fn verify_pending_at(&self, pending: &PendingApproval, now: u64) -> Result<(), ApprovalError> {
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

    /// A human's decision on `pending`, signed, checked against this process's clock
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
        self.approval(registry, pending, decision, now)
    }

    /// A human's decision on `pending`, recorded in the store as THE decision and
    /// signed. Checks the pending approval against the store's clock; validates
    /// edited arguments against the tool in `registry` (the error is
    /// [`ApprovalError::InvalidArguments`] with the problem's path); fails with
    /// [`ApprovalError::AlreadyDecided`] when another decision was recorded first.
    /// `decided_by` names the approver, for the audit trail.
    pub async fn decide_as(
        &self,
        registry: &Registry,
        pending: &PendingApproval,
        decision: Decision,
        decided_by: &str,
    ) -> Result<Approval, ApprovalError> {
        let now = self.store_now().await?;
        self.verify_pending_at(pending, now)?;
        let approval = self.approval(registry, pending, decision, now)?;
        let record = DecisionRecord {
            call_id: approval.call_id.clone(),
            principal: approval.principal.clone(),
            tool: approval.tool.clone(),
            verdict: approval.verdict,
            digest: approval.digest.clone(),
            message: approval.message.clone(),
            decided_by: decided_by.to_owned(),
            decided_at: now,
            arguments: (approval.verdict == Verdict::ApprovedWithEdits)
                .then(|| approval.arguments.clone()),
        };
        let keep_until = pending
            .expires_at
            .saturating_add(self.approval_ttl.as_secs())
            .saturating_add(CLOCK_SKEW_SECONDS);
        match self
            .store
            .record_decision(&record, keep_until)
            .await
            .map_err(ApprovalError::Store)?
        {
            DecisionOutcome::Recorded => Ok(approval),
            DecisionOutcome::AlreadyDecided(winner) => Err(ApprovalError::AlreadyDecided {
                decided_by: winner.decided_by,
                decided_at: winner.decided_at,
                verdict: winner.verdict,
            }),
        }
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

    fn approval(
        &self,
        registry: &Registry,
        pending: &PendingApproval,
        decision: Decision,
        now: u64,
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
            signature: String::new(),
        };
        approval.signature = self.sign(&approval_payload(&approval));
        Ok(approval)
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

    fn make_pending(
        &self,
        principal: &str,
        view: Option<&str>,
        tool: &str,
        call_id: String,
        arguments: Value,
        now: u64,
    ) -> PendingApproval {
        let mut pending = PendingApproval {
            call_id,
            principal: principal.to_owned(),
            view: view.map(str::to_owned),
            tool: tool.to_owned(),
            digest: digest(&arguments),
            arguments,
            requested_at: now,
            expires_at: now.saturating_add(self.pending_ttl.as_secs()),
            signature: String::new(),
        };
        pending.signature = self.sign(&pending_payload(&pending));
        pending
    }
}

impl fmt::Debug for Approvals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Approvals")
            .field("pending_ttl", &self.pending_ttl)
            .field("approval_ttl", &self.approval_ttl)
            .field("previous_keys", &self.previous_keys.len())
            .field("approver", &self.approver.is_some())
            .finish_non_exhaustive()
    }
}

/// What a pending approval's signature covers: its fields but the signature and the
/// arguments (bound by the digest), as canonical JSON, under its own domain.
fn pending_payload(pending: &PendingApproval) -> String {
    let mut payload = json!({
        "type": "toolkit.pending_approval.v1",
        "call_id": pending.call_id,
        "principal": pending.principal,
        "tool": pending.tool,
        "digest": pending.digest,
        "requested_at": pending.requested_at,
        "expires_at": pending.expires_at,
    });
    // The view label is signed when there is one, so an approver is never shown a
    // forged "who asked"; without one the payload is the one signed before views
    // had labels, so pending approvals made then still verify.
    if let (Some(view), Some(fields)) = (&pending.view, payload.as_object_mut()) {
        fields.insert("view".to_owned(), json!(view));
    }
    canonical_json(&payload)
}

fn approval_payload(approval: &Approval) -> String {
    canonical_json(&json!({
        "type": "toolkit.approval.v1",
        "call_id": approval.call_id,
        "principal": approval.principal,
        "tool": approval.tool,
        "digest": approval.digest,
        "verdict": approval.verdict,
        "message": approval.message,
        "decided_at": approval.decided_at,
        "expires_at": approval.expires_at,
    }))
}

/// JSON with object keys sorted (by UTF-8 bytes) and no whitespace: the same text
/// for the same value, whatever order the keys came in.
#[must_use]
pub fn canonical_json(value: &Value) -> String {
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Object(members) => {
                let mut keys: Vec<&String> = members.keys().collect();
                keys.sort_unstable();
                out.push('{');
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    write(&members[key], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// `sha256:` and the hex SHA-256 of the value's canonical JSON.
#[must_use]
pub fn digest(arguments: &Value) -> String {
    format!(
        "sha256:{}",
        to_hex(&Sha256::digest(canonical_json(arguments).as_bytes()))
    )
}

pub(crate) fn to_hex(bytes: &[u8]) -> String {
    use fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, byte| {
        let _ = write!(out, "{byte:02x}");
        out
    })
}

pub(crate) fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// The one argument check of dispatch (limits, schema constraints, typed parse),
/// nothing run: a human never approves a call that would fail.
fn check_arguments(
    registry: &Registry,
    tool: &RegisteredTool,
    arguments: &str,
) -> Result<(), ToolError> {
    tool.check_arguments_with_limits(arguments, &registry.limits())
}

/// The arguments as a JSON value; empty text or `null` mean `{}`, as in dispatch.
fn arguments_value(arguments: &str) -> Result<Value, ToolError> {
    let trimmed = arguments.trim();
    if trimmed.is_empty() || trimmed == "null" {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(trimmed).map_err(|error| ToolError::MalformedJson {
        message: error.to_string(),
        line: error.line(),
        column: error.column(),
    })
}

fn made_up_call_id(principal: &str, tool: &str, digest: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let seed = format!(
        "{principal}\u{0}{tool}\u{0}{digest}\u{0}{nanos}\u{0}{}\u{0}{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    format!(
        "approval_{}",
        &to_hex(&Sha256::digest(seed.as_bytes()))[..24]
    )
}

/// The store key of an approval: the principal and the call id together.
fn used_key(principal: &str, call_id: &str) -> String {
    to_hex(&Sha256::digest(
        canonical_json(&json!([principal, call_id])).as_bytes(),
    ))
}

/// Who an inline [`Approver`]'s decisions are recorded as made by.
const INLINE_APPROVER: &str = "approver";

/// What the approval flow needs of the view a call came through: its approvals
/// and principal, its registry, its tools and its unknown-tool error.
/// [`View`](crate::View) implements it; the flow names this trait rather than the
/// view, so the view stands above approval and not beside it.
pub(crate) trait CallingView<'r>: Sync {
    /// The view's approvals and principal, if it has them.
    fn approvals(&self) -> Option<(&'r Approvals, &str)>;
    /// The registry behind the view.
    fn registry(&self) -> &'r Registry;
    /// The tool `name` names in the view.
    fn get(&self, name: &str) -> Option<&'r RegisteredTool>;
    /// The error for a name that is not in the view.
    fn unknown_tool(&self, name: &str) -> ToolError;
    /// The view's label, if it has one: which surface asked.
    fn label(&self) -> Option<&str>;
}

/// `View::call` for an `approve` tool.
pub(crate) async fn request<'r>(
    view: &impl CallingView<'r>,
    tool: &RegisteredTool,
    arguments: &str,
    ctx: &Context,
) -> Response {
    let Some((approvals, principal)) = view.approvals() else {
        return Response::Error(ToolError::ApprovalRequired {
            tool: tool.name.to_owned(),
        });
    };
    if let Err(error) = check_arguments(view.registry(), tool, arguments) {
        return Response::Error(error);
    }
    let arguments = match arguments_value(arguments) {
        Ok(arguments) => arguments,
        Err(error) => return Response::Error(error),
    };
    let call_id = match ctx.get::<CallId>() {
        Some(CallId(id)) => id.clone(),
        None => made_up_call_id(principal, tool.name, &digest(&arguments)),
    };
    let now = match approvals.store_now().await {
        Ok(now) => now,
        Err(error) => return Response::Error(error.into()),
    };
    let pending =
        approvals.make_pending(principal, view.label(), tool.name, call_id, arguments, now);
    // Stored before anyone sees it, so an inbox lists what waits; a second call with
    // the same call id keeps the first pending approval.
    if let Err(error) = approvals.store.save_pending(&pending).await {
        return Response::Error(ApprovalError::Store(error).into());
    }
    let Some(approver) = &approvals.approver else {
        return Response::Pending(Box::new(pending));
    };
    let Some(decision) = approver.decide(&pending, ctx).await else {
        return Response::Pending(Box::new(pending));
    };
    match approvals
        .decide_as(view.registry(), &pending, decision, INLINE_APPROVER)
        .await
    {
        Ok(approval) => resume(view, &approval, ctx).await,
        Err(error) => Response::Error(error.into()),
    }
}

/// `View::resume`.
pub(crate) async fn resume<'r>(
    view: &impl CallingView<'r>,
    approval: &Approval,
    ctx: &Context,
) -> Response {
    let (tool, arguments, run) = match check(view, approval).await {
        Ok(checked) => checked,
        Err(error) => return Response::Error(error),
    };
    let (key, attempt) = (run.key.clone(), run.attempt);
    let response = WithRun {
        run: Some(run),
        future: Box::pin(tool.call_with_limits(&arguments, ctx, view.registry().limits())),
    }
    .await;
    // The tool returned a result: this run is complete. It failed: the next
    // presentation runs it again (the approval stays good until it expires). Should
    // the store fail here (past its own retries), the claim ends with its lease
    // instead. The caller's answer waits for this, so that a second presentation
    // hears "already used" rather than running the call again.
    if let Some((approvals, _)) = view.approvals() {
        let finished = if matches!(response, Response::Error(_)) {
            approvals.store.release(&key, attempt).await
        } else {
            approvals.store.complete(&key).await
        };
        if let Err(error) = finished {
            tracing::warn!(%error, "the end of an approved run could not be recorded; it may run again after its lease");
        }
    }
    response
}

/// The run of an approved call that the tool is in: while an approved call's tool
/// runs (inside [`View::resume`](crate::View::resume)), [`ApprovedRun::current`] returns it. Its
/// [`key`](Self::key) is the same for every attempt of one approved call (the
/// principal and call id), so a tool with an external effect uses it as the
/// idempotency key of that effect; [`attempt`](Self::attempt) is more than 1 when
/// an earlier run of it did not complete (see [`Approvals`]).
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
struct WithRun<F> {
    run: Option<ApprovedRun>,
    future: Pin<Box<F>>,
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

/// Everything but running: the tool, the arguments to run it with, and the run
/// claimed for it.
async fn check<'r>(
    view: &impl CallingView<'r>,
    approval: &Approval,
) -> Result<(&'r RegisteredTool, String, ApprovedRun), ToolError> {
    let Some((approvals, principal)) = view.approvals() else {
        return Err(ApprovalError::NotConfigured.into());
    };
    approvals.verify(&approval_payload(approval), &approval.signature)?;
    if approval.principal != principal {
        return Err(ApprovalError::WrongPrincipal.into());
    }
    // A tool outside the view is unknown, as everywhere else.
    let tool = view
        .get(&approval.tool)
        .filter(|tool| tool.name == approval.tool)
        .ok_or_else(|| view.unknown_tool(&approval.tool))?;
    let now = approvals.store_now().await?;
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
    let lease_until = now.saturating_add(approvals.run_lease.as_secs().max(1));
    match approvals
        .store
        .claim(&key, lease_until, approvals.claim_keep_until(approval))
        .await
    {
        Ok(Claim::Won { attempt }) => Ok((tool, arguments, ApprovedRun { key, attempt })),
        Ok(Claim::Held { lease_until }) => Err(ApprovalError::Running {
            lease_until,
            retry_after: lease_until.saturating_sub(now).saturating_add(1),
        }
        .into()),
        Ok(Claim::Done) => Err(ApprovalError::AlreadyUsed.into()),
        Err(error) => Err(ApprovalError::Store(error).into()),
    }
}
