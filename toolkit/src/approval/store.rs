//! Where the life of an approval is kept: pending approvals, the decision on each,
//! and the record that an approved call ran, so that it runs once.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use super::store_error::{StoreError, StoreErrorKind};
use super::{PendingApproval, RunOutcome, Verdict};
use crate::principal::Principal;

/// The future an [`ApprovalStore`] returns.
pub type StoreFuture<'a, T = bool> =
    Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// How far apart (in seconds) the clocks of a store and the processes using it may
/// be without a used approval ever looking new: every record is kept this much
/// longer than the last moment anything signed that could reach it is valid.
pub const CLOCK_SKEW_SECONDS: u64 = 60 * 60;

/// The most rows one [`PendingQuery`] or [`DecisionQuery`] returns, whatever its
/// limit says.
pub const MAX_QUERY_LIMIT: usize = 500;

/// The most principals, or tools, one query may name.
pub const MAX_QUERY_VALUES: usize = 100;

/// The whole life of an approval, shared by every process (replica) that creates,
/// decides or resumes approvals:
///
/// - the pending approvals [`View::call`](crate::View::call) creates
///   ([`save_pending`](Self::save_pending)), listed by an inbox
///   ([`list_pending`](Self::list_pending));
/// - THE decision on each ([`record_decision`](Self::record_decision): first writer
///   wins), and the audit list of decisions ([`decisions`](Self::decisions));
/// - the run of an approved call ([`claim`](Self::claim), then
///   [`complete`](Self::complete)): of any number of concurrent claims of one key,
///   exactly one returns [`Claim::Won`]; once completed, no claim ever wins again as
///   long as the record is kept. A claim not completed by the end of its lease
///   (its holder died, or its request was dropped mid-run) may be won again, with
///   the next attempt number: an approved call is never lost to a crash, and its
///   tool learns from [`ApprovedRun`](super::ApprovedRun) that it may be a re-run.
///
/// # Time and retention
///
/// [`now`](Self::now) is the store's clock (a database's `now()`); expiry is
/// checked against it and purging uses it, so processes whose clocks differ agree.
/// Every record carries a `keep_until` (Unix seconds, store time), and
/// [`purge`](Self::purge) drops only records past it:
///
/// - a pending approval is kept until its `expires_at` plus
///   [`CLOCK_SKEW_SECONDS`];
/// - a decision and a claim are kept until the `keep_until` given by
///   [`Approvals`](super::Approvals): the last moment an approval of that call could
///   still be valid (the pending's expiry plus the approval TTL) plus
///   [`CLOCK_SKEW_SECONDS`]. Until then, no second decision, edit or replay runs the
///   call again; after it, anything signed for that call has expired.
///
/// Implementations must make `record_decision` and `claim` one atomic operation each
/// (a primary-key insert or upsert), never a read followed by a write. Run the contract suite
/// of `toolkit-derive-tests` (`tests/approval_store.rs`) against your own store.
pub trait ApprovalStore: Send + Sync {
    /// The store's clock, in Unix seconds.
    fn now(&self) -> StoreFuture<'_, u64>;

    /// Whether the store can take a write now: what a readiness check
    /// (`serving::Health`, features `mcp` and `inbox`) asks. By default it reads the clock
    /// ([`now`](Self::now)), which is a query for a database whose clock it is; a
    /// store whose clock is the process's checks its database itself (the `SQLite`
    /// store takes and gives back the write lock).
    fn check(&self) -> StoreFuture<'_, ()> {
        let now = self.now();
        Box::pin(async move { now.await.map(|_| ()) })
    }

    /// Stores a pending approval; `Ok(false)` if one with this principal and call id
    /// was already stored (it is left as it was).
    fn save_pending<'a>(&'a self, pending: &'a PendingApproval) -> StoreFuture<'a, bool>;

    /// Stores a pending approval unless its principal already has as many waiting
    /// (undecided and unexpired, store time) as `caps` allows, over every tool or
    /// of its tool: the count and the insert are one atomic step, so requests at
    /// once on any number of processes never leave more waiting than the cap.
    /// [`SavedPending::AlreadySaved`] if one with this principal and call id was
    /// already stored (left as it was, and not refused: asking again opens
    /// nothing).
    ///
    /// The default counts ([`list_pending`](Self::list_pending)) and then saves:
    /// two steps, so calls at once may pass the count together. The memory,
    /// `SQLite` and `PostgreSQL` stores make it one; a store shared by processes
    /// should too.
    fn save_pending_capped<'a>(
        &'a self,
        pending: &'a PendingApproval,
        caps: PendingCaps,
    ) -> StoreFuture<'a, SavedPending> {
        Box::pin(async move {
            if self
                .pending(&pending.principal, &pending.call_id)
                .await?
                .is_some()
            {
                return Ok(SavedPending::AlreadySaved);
            }
            for (limit, of_tool) in [(caps.per_principal, false), (caps.per_tool, true)] {
                let Some(limit) = limit else {
                    continue;
                };
                let mut query = PendingQuery::new().principal(pending.principal.clone());
                if of_tool {
                    query = query.tool(pending.tool.clone());
                }
                let wanted = usize::try_from(limit).unwrap_or(usize::MAX);
                let waiting = self
                    .list_pending(&query.limit(wanted.min(MAX_QUERY_LIMIT)))
                    .await?;
                if waiting.len() >= wanted {
                    return Ok(SavedPending::Full { limit, of_tool });
                }
            }
            Ok(if self.save_pending(pending).await? {
                SavedPending::Saved
            } else {
                SavedPending::AlreadySaved
            })
        })
    }

    /// Undecided pending approvals that have not expired (store time), newest first.
    fn list_pending<'a>(&'a self, query: &'a PendingQuery)
    -> StoreFuture<'a, Vec<PendingApproval>>;

    /// Like [`list_pending`](Self::list_pending), for a page of a list people
    /// read (the inbox): a pending approval whose arguments' JSON text is longer
    /// than `arguments_up_to` bytes comes without them
    /// ([`ListedPending::cut`] says how long they are and how they begin). The
    /// default lists them all and cuts afterwards; a database store cuts them in
    /// its query, so a page of calls with megabytes of arguments each reads a page
    /// of previews.
    fn list_pending_cut<'a>(
        &'a self,
        query: &'a PendingQuery,
        arguments_up_to: usize,
    ) -> StoreFuture<'a, Vec<ListedPending>> {
        let listed = self.list_pending(query);
        Box::pin(async move {
            Ok(listed
                .await?
                .into_iter()
                .map(|pending| ListedPending::cut(pending, arguments_up_to))
                .collect())
        })
    }

    /// The stored pending approval `call_id` of `principal`, decided or not,
    /// expired or not, until it is purged: how a form that names a call by its key
    /// finds the signed approval it decides.
    fn pending<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<PendingApproval>>;

    /// Records the decision on a pending approval, atomically: the first decision on
    /// a principal and call id wins and [`DecisionOutcome::Recorded`] is returned;
    /// every later one gets [`DecisionOutcome::AlreadyDecided`] with the winner.
    /// Every field is kept as given, [`DecisionRecord::arguments`] included: a call
    /// waiting elsewhere runs an approval with edits from them.
    fn record_decision<'a>(
        &'a self,
        record: &'a DecisionRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, DecisionOutcome>;

    /// THE decision on the pending approval `call_id` of `principal`, if one was
    /// recorded (and not purged).
    fn decision<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<DecisionRecord>>;

    /// Recorded decisions, newest first.
    fn decisions<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<DecisionRecord>>;

    /// Claims the run of `key`, atomically: [`Claim::Won`] if it was never claimed
    /// (attempt 1), or if its last claim was not completed and its lease ended
    /// before the store's now (the next attempt); the winner holds it until
    /// `lease_until` (Unix seconds, store time). Otherwise [`Claim::Held`] (another
    /// run holds a lease) or [`Claim::Done`] (it ran). The record is kept until
    /// `keep_until` (the later of the two, when claimed again).
    fn claim<'a>(
        &'a self,
        key: &'a str,
        lease_until: u64,
        keep_until: u64,
    ) -> StoreFuture<'a, Claim>;

    /// Marks the run of `key` complete, with its `outcome`, when `attempt` is the
    /// attempt that holds the claim: no claim of it wins again. `Ok(false)`
    /// otherwise: a later attempt took the run over (this one is fenced off and
    /// records nothing), or there is no claim of it (purged, or never made).
    /// Completing again with the same attempt is accepted (`Ok(true)`) and keeps the
    /// first outcome.
    ///
    /// Recording this is what keeps the call from running again after the lease,
    /// and it is idempotent: a store that can fail for a moment (a database
    /// restarting) should retry it for a while before it returns an error.
    fn complete<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool>;

    /// Ends the lease of the claim of `key` that `attempt` won, if it is not
    /// complete (its run failed, with `outcome`): the next claim wins at once.
    /// `Ok(false)` if there is no such claim: completed, purged, never made, or
    /// taken over since by a later attempt, whose lease is left as it is (a late
    /// release never lets a third run start beside a second). Idempotent, like
    /// [`complete`](Self::complete), and worth retrying the same way.
    fn release<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool>;

    /// Extends the lease of the claim of `key` that `attempt` holds to
    /// `lease_until` (never shortens it), while its run is alive. `Ok(false)` when
    /// `attempt` no longer holds it (taken over, completed, released or purged).
    fn renew<'a>(&'a self, key: &'a str, attempt: u32, lease_until: u64) -> StoreFuture<'a, bool>;

    /// The run of `key` as recorded: its latest attempt, whether it completed,
    /// its lease and the outcome of its last ended attempt. `None` if it was never
    /// claimed (or was purged).
    fn run<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<RunRecord>>;

    /// The keys of the claims starting with `prefix` whose run is not complete
    /// and whose lease ended before the store's now (the process of their last
    /// attempt stopped renewing it, or released it), earliest lease first, at most
    /// `limit`: the runs a runner takes over
    /// ([`Approvals::run_tasks`](super::Approvals::run_tasks) lists the tasks
    /// whose replica died with it). A claim that is purged is not listed.
    ///
    /// The default refuses: a store written before this method has no way to
    /// list its claims, and a runner that asks it is told so rather than finding
    /// nothing. The stores of this crate list them.
    fn lapsed_claims<'a>(&'a self, prefix: &'a str, limit: usize) -> StoreFuture<'a, Vec<String>> {
        let _ = (prefix, limit);
        ready(Err(StoreError::new(
            "this approval store does not list lapsed claims",
        )))
    }

    /// Approved calls (approved, or approved with edits) decided at or after
    /// `decided_after` and before `decided_before` (Unix seconds, store time) that
    /// are not [settled](Self::settle) yet, with their pending approvals, oldest
    /// first, at most `limit`: what a runner
    /// ([`Approvals::run_decided`](super::Approvals::run_decided)) runs when
    /// nobody else did.
    fn approved_unsettled(
        &self,
        decided_after: u64,
        decided_before: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<(PendingApproval, DecisionRecord)>>;

    /// Marks the decided call `call_id` of `principal` settled: its run ended for
    /// good (it ran, or it may not run), and no runner looks at it again.
    /// `Ok(false)` if no such decision is recorded.
    fn settle<'a>(&'a self, principal: &'a Principal, call_id: &'a str) -> StoreFuture<'a, bool>;

    /// Records that a decision was refused (the policy did not let its decider
    /// decide): the audit's second list, beside [`decisions`](Self::decisions). Kept
    /// until `keep_until` (store time).
    fn record_refusal<'a>(
        &'a self,
        refusal: &'a RefusalRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, ()>;

    /// Recorded refusals, newest first, filtered like decisions (`decided_*`
    /// bound the refusal's time).
    fn refusals<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<RefusalRecord>>;

    /// Drops every record whose `keep_until` has passed (store time); returns how
    /// many. Stores also purge on their own from time to time.
    fn purge(&self) -> StoreFuture<'_, u64>;
}

/// The caps [`ApprovalStore::save_pending_capped`] keeps: how many approvals of
/// one principal may wait at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PendingCaps {
    /// Over every tool.
    pub per_principal: Option<u32>,
    /// Of the pending approval's tool.
    pub per_tool: Option<u32>,
}

impl PendingCaps {
    /// Whether no cap is set.
    #[must_use]
    pub fn is_none(&self) -> bool {
        self.per_principal.is_none() && self.per_tool.is_none()
    }

    /// The first cap `waiting` (over every tool) and `waiting_of_tool` reach:
    /// per principal first, then per tool.
    #[must_use]
    pub fn full(&self, waiting: u64, waiting_of_tool: u64) -> Option<SavedPending> {
        let reached = |cap: Option<u32>, count: u64| cap.filter(|&cap| count >= u64::from(cap));
        if let Some(limit) = reached(self.per_principal, waiting) {
            return Some(SavedPending::Full {
                limit,
                of_tool: false,
            });
        }
        reached(self.per_tool, waiting_of_tool).map(|limit| SavedPending::Full {
            limit,
            of_tool: true,
        })
    }
}

/// What [`ApprovalStore::save_pending_capped`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SavedPending {
    /// It was stored.
    Saved,
    /// One with this principal and call id was already stored; it was left as
    /// it was.
    AlreadySaved,
    /// It was not stored: the principal already has `limit` approvals waiting,
    /// of this tool when `of_tool`, else over every tool.
    Full {
        /// The cap reached.
        limit: u32,
        /// Whether it is the cap of the tool.
        of_tool: bool,
    },
}

/// What [`ApprovalStore::claim`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The caller runs the call; `attempt` is 1 for the first claim, more when a
    /// run whose lease ended without completing is taken over.
    Won {
        /// Which attempt this is (1, 2, ...).
        attempt: u32,
    },
    /// Another run holds the claim until `lease_until` (Unix seconds, store time):
    /// it may still be running. Worth retrying after then.
    Held {
        /// When the holder's lease ends.
        lease_until: u64,
    },
    /// The call ran to completion: it never runs again.
    Done,
}

/// The decision on a pending approval, as the store keeps it (the audit trail).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecisionRecord {
    /// The call id of the pending approval.
    pub call_id: String,
    /// Who the call acts for.
    pub principal: Principal,
    /// The tool's name.
    pub tool: String,
    /// What was decided.
    pub verdict: Verdict,
    /// The digest of the arguments the call runs with (the edited ones, if edited).
    pub digest: String,
    /// The approver's message (a denial's reason).
    pub message: Option<String>,
    /// Who decided: a person (the approver's [`Principal`]), the requester or
    /// the application.
    pub decided_by: super::DecidedBy,
    /// When, in Unix seconds (store time).
    pub decided_at: u64,
    /// The edited arguments of an approval with edits
    /// ([`Verdict::ApprovedWithEdits`]), so that a call waiting elsewhere (an MCP
    /// client) can run the edited call; `None` for every other verdict, and for
    /// decisions recorded before stores kept them. Whoever uses them checks them
    /// against [`digest`](Self::digest) first.
    pub arguments: Option<serde_json::Value>,
}

/// What [`ApprovalStore::record_decision`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecisionOutcome {
    /// This decision is THE decision.
    Recorded,
    /// Another decision was recorded first; here it is.
    AlreadyDecided(Box<DecisionRecord>),
}

/// The run of an approved call, as the store keeps it
/// ([`ApprovalStore::run`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunRecord {
    /// The latest attempt that claimed it (1, 2, ...).
    pub attempt: u32,
    /// Whether it ran to completion (it never runs again).
    pub done: bool,
    /// Until when the latest attempt's lease holds (Unix seconds, store time); 0
    /// once released.
    pub lease_until: u64,
    /// The outcome of the last attempt that ended: the result of the completed
    /// run, or the error of the last failed one; `None` while the first attempt
    /// runs.
    pub outcome: Option<RunOutcome>,
    /// When that attempt ended (Unix seconds, store time).
    pub ended_at: Option<u64>,
}

impl RunRecord {
    /// A record of `attempt` with this state, not ended yet.
    #[must_use]
    pub fn new(attempt: u32, done: bool, lease_until: u64, outcome: Option<RunOutcome>) -> Self {
        RunRecord {
            attempt,
            done,
            lease_until,
            outcome,
            ended_at: None,
        }
    }

    /// The same record, its last attempt ended at `ended_at`.
    #[must_use]
    pub fn ended_at(mut self, ended_at: u64) -> Self {
        self.ended_at = Some(ended_at);
        self
    }
}

/// A decision the policy refused ([`ApprovalStore::record_refusal`]): who tried,
/// on which call, and why nothing was recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusalRecord {
    /// The call id of the pending approval.
    pub call_id: String,
    /// Who the call acts for.
    pub principal: Principal,
    /// The tool's name.
    pub tool: String,
    /// Who tried to decide.
    pub decided_by: super::DecidedBy,
    /// Why they may not.
    pub reason: String,
    /// When, in Unix seconds (store time).
    pub refused_at: u64,
}

/// How many characters of cut arguments a [`ListedPending`] keeps.
pub const CUT_ARGUMENTS_START_CHARS: usize = 600;

/// A pending approval as a list shows it
/// ([`ApprovalStore::list_pending_cut`]): whole, or without arguments too long for
/// a list.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListedPending {
    /// The pending approval; its `arguments` are `null` when they were cut (its
    /// signature then does not verify: load it whole with
    /// [`ApprovalStore::pending`] to decide it).
    pub pending: PendingApproval,
    /// What was cut, if its arguments were.
    pub cut: Option<CutArguments>,
}

/// The arguments a list left out ([`ListedPending::cut`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CutArguments {
    /// The length of their JSON text, in bytes.
    pub bytes: usize,
    /// The first [`CUT_ARGUMENTS_START_CHARS`] characters of it.
    pub start: String,
}

impl ListedPending {
    /// `pending` as listed: whole when its arguments' JSON text is at most
    /// `arguments_up_to` bytes, else without them.
    #[must_use]
    pub fn cut(mut pending: PendingApproval, arguments_up_to: usize) -> Self {
        let text = pending.arguments.to_string();
        if text.len() <= arguments_up_to {
            return ListedPending { pending, cut: None };
        }
        pending.arguments = serde_json::Value::Null;
        let start = text.chars().take(CUT_ARGUMENTS_START_CHARS).collect();
        ListedPending {
            pending,
            cut: Some(CutArguments {
                bytes: text.len(),
                start,
            }),
        }
    }

    /// A listed pending approval from a store's columns: `arguments` is `None`
    /// when the store cut them, `bytes` and `start` what it read of them.
    #[must_use]
    pub fn from_parts(
        mut pending: PendingApproval,
        arguments: Option<serde_json::Value>,
        bytes: usize,
        start: String,
    ) -> Self {
        match arguments {
            Some(arguments) => {
                pending.arguments = arguments;
                ListedPending { pending, cut: None }
            }
            None => {
                pending.arguments = serde_json::Value::Null;
                ListedPending {
                    pending,
                    cut: Some(CutArguments { bytes, start }),
                }
            }
        }
    }
}

/// Where a page of pending approvals ended ([`PendingQuery::before`]): the next
/// page lists those after it in the list's order (requested earlier, or at the same
/// second and after it by principal and call id).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PendingCursor {
    /// When the last call listed was requested (Unix seconds).
    pub requested_at: u64,
    /// Its principal.
    pub principal: Principal,
    /// Its call id.
    pub call_id: String,
}

impl PendingCursor {
    /// The place of `pending` in the list.
    #[must_use]
    pub fn of(pending: &PendingApproval) -> Self {
        PendingCursor {
            requested_at: pending.requested_at,
            principal: pending.principal.clone(),
            call_id: pending.call_id.clone(),
        }
    }

    /// Whether `pending` comes after this place in the list (newest first).
    #[must_use]
    pub fn precedes(&self, pending: &PendingApproval) -> bool {
        (pending.requested_at, &pending.principal, &pending.call_id)
            < (self.requested_at, &self.principal, &self.call_id)
    }
}

/// Which pending approvals to list: every filter left empty matches everything; the
/// result is bounded by [`limit`](Self::limit) (at most [`MAX_QUERY_LIMIT`]).
///
/// ```
/// use toolkit::approval::PendingQuery;
/// let query = PendingQuery::new()
///     .principal(toolkit::Principal::local("user:7")?)
///     .tool("delete_phone_numbers")
///     .limit(20);
/// # Ok::<(), toolkit::PrincipalError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PendingQuery {
    /// Only these principals (any, if empty).
    pub principals: Vec<Principal>,
    /// Only these tools (any, if empty).
    pub tools: Vec<String>,
    /// Only those requested at or after this time (Unix seconds).
    pub requested_after: Option<u64>,
    /// Only those requested before this time (Unix seconds).
    pub requested_before: Option<u64>,
    /// At most this many (capped at [`MAX_QUERY_LIMIT`]).
    pub limit: usize,
    /// Only those after this place in the list: the next page.
    pub before: Option<PendingCursor>,
}

impl Default for PendingQuery {
    fn default() -> Self {
        PendingQuery {
            principals: Vec::new(),
            tools: Vec::new(),
            requested_after: None,
            requested_before: None,
            limit: 50,
            before: None,
        }
    }
}

impl PendingQuery {
    /// Every pending approval, 50 at most.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Also those of `principal`.
    #[must_use]
    pub fn principal(mut self, principal: Principal) -> Self {
        self.principals.push(principal);
        self
    }

    /// Also those of `tool`.
    #[must_use]
    pub fn tool(mut self, tool: impl Into<String>) -> Self {
        self.tools.push(tool.into());
        self
    }

    /// Only those requested at or after `time` (Unix seconds).
    #[must_use]
    pub fn requested_after(mut self, time: u64) -> Self {
        self.requested_after = Some(time);
        self
    }

    /// Only those requested before `time` (Unix seconds): older than an age.
    #[must_use]
    pub fn requested_before(mut self, time: u64) -> Self {
        self.requested_before = Some(time);
        self
    }

    /// At most `limit` (capped at [`MAX_QUERY_LIMIT`]).
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Only those after `cursor` (where the last page ended): the next page.
    #[must_use]
    pub fn before(mut self, cursor: PendingCursor) -> Self {
        self.before = Some(cursor);
        self
    }

    /// Refuses a query naming too many values; the limit a store applies.
    ///
    /// # Errors
    /// More than [`MAX_QUERY_VALUES`] principals or tools.
    pub fn bounded_limit(&self) -> Result<usize, StoreError> {
        check_values(&self.principals, &self.tools)?;
        Ok(self.limit.min(MAX_QUERY_LIMIT))
    }

    /// Whether `pending` passes the filters (not the limit, nor expiry).
    #[must_use]
    pub fn matches(&self, pending: &PendingApproval) -> bool {
        (self.principals.is_empty() || self.principals.contains(&pending.principal))
            && (self.tools.is_empty() || self.tools.contains(&pending.tool))
            && self
                .requested_after
                .is_none_or(|after| pending.requested_at >= after)
            && self
                .requested_before
                .is_none_or(|before| pending.requested_at < before)
            && self
                .before
                .as_ref()
                .is_none_or(|cursor| cursor.precedes(pending))
    }
}

/// Which decisions to list (the audit trail): every filter left empty matches
/// everything; the result is bounded by [`limit`](Self::limit).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecisionQuery {
    /// Only these principals (any, if empty).
    pub principals: Vec<Principal>,
    /// Only these tools (any, if empty).
    pub tools: Vec<String>,
    /// Only those decided at or after this time (Unix seconds).
    pub decided_after: Option<u64>,
    /// Only those decided before this time (Unix seconds).
    pub decided_before: Option<u64>,
    /// At most this many (capped at [`MAX_QUERY_LIMIT`]).
    pub limit: usize,
}

impl Default for DecisionQuery {
    fn default() -> Self {
        DecisionQuery {
            principals: Vec::new(),
            tools: Vec::new(),
            decided_after: None,
            decided_before: None,
            limit: 50,
        }
    }
}

impl DecisionQuery {
    /// Every decision, 50 at most.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Also those on calls of `principal`.
    #[must_use]
    pub fn principal(mut self, principal: Principal) -> Self {
        self.principals.push(principal);
        self
    }

    /// Also those on calls of `tool`.
    #[must_use]
    pub fn tool(mut self, tool: impl Into<String>) -> Self {
        self.tools.push(tool.into());
        self
    }

    /// Only those decided at or after `time` (Unix seconds).
    #[must_use]
    pub fn decided_after(mut self, time: u64) -> Self {
        self.decided_after = Some(time);
        self
    }

    /// Only those decided before `time` (Unix seconds).
    #[must_use]
    pub fn decided_before(mut self, time: u64) -> Self {
        self.decided_before = Some(time);
        self
    }

    /// At most `limit` (capped at [`MAX_QUERY_LIMIT`]).
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Refuses a query naming too many values; the limit a store applies.
    ///
    /// # Errors
    /// More than [`MAX_QUERY_VALUES`] principals or tools.
    pub fn bounded_limit(&self) -> Result<usize, StoreError> {
        check_values(&self.principals, &self.tools)?;
        Ok(self.limit.min(MAX_QUERY_LIMIT))
    }

    /// Whether `record` passes the filters (not the limit).
    #[must_use]
    pub fn matches(&self, record: &DecisionRecord) -> bool {
        self.matches_fields(&record.principal, &record.tool, record.decided_at)
    }

    /// Whether `refusal` passes the filters (not the limit); its time is
    /// [`RefusalRecord::refused_at`].
    #[must_use]
    pub fn matches_refusal(&self, refusal: &RefusalRecord) -> bool {
        self.matches_fields(&refusal.principal, &refusal.tool, refusal.refused_at)
    }

    fn matches_fields(&self, principal: &Principal, tool: &str, at: u64) -> bool {
        (self.principals.is_empty() || self.principals.iter().any(|p| p == principal))
            && (self.tools.is_empty() || self.tools.iter().any(|t| t == tool))
            && self.decided_after.is_none_or(|after| at >= after)
            && self.decided_before.is_none_or(|before| at < before)
    }
}

fn check_values(principals: &[Principal], tools: &[String]) -> Result<(), StoreError> {
    if principals.len() > MAX_QUERY_VALUES {
        return Err(StoreError::new(format_args!(
            "a query may name at most {MAX_QUERY_VALUES} principals, not {}",
            principals.len()
        ))
        .with_kind(StoreErrorKind::InvalidQuery));
    }
    if tools.len() > MAX_QUERY_VALUES {
        return Err(StoreError::new(format_args!(
            "a query may name at most {MAX_QUERY_VALUES} tools, not {}",
            tools.len()
        ))
        .with_kind(StoreErrorKind::InvalidQuery));
    }
    Ok(())
}

/// A clock a store reads: the process's, or one a test injects.
pub(crate) type StoreClock = Arc<dyn Fn() -> u64 + Send + Sync>;

// The clock of the memory and SQLite stores: one host, so the process's clock is
// the store's clock, and every time decision of those stores reads it here.
pub(crate) fn system_clock() -> StoreClock {
    Arc::new(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs())
    })
}

/// A claim in memory.
struct MemoryClaim {
    keep_until: u64,
    lease_until: u64,
    attempt: u32,
    done: bool,
    outcome: Option<RunOutcome>,
    ended_at: Option<u64>,
}

/// The store key of a pending approval or a decision.
type CallKey = (Principal, String);

#[derive(Default)]
struct MemoryRecords {
    used: HashMap<String, MemoryClaim>,
    pending: HashMap<CallKey, (PendingApproval, u64)>,
    /// The length of each pending approval's arguments' JSON text and its first
    /// characters, measured once when saved: a list cuts them without
    /// serializing megabytes on every request.
    measured: HashMap<CallKey, (usize, String)>,
    decisions: HashMap<CallKey, (DecisionRecord, u64)>,
    refusals: Vec<(RefusalRecord, u64)>,
    settled: std::collections::HashSet<CallKey>,
}

impl MemoryRecords {
    /// Stores `pending` unless one with its principal and call id is stored.
    fn insert_pending(&mut self, pending: &PendingApproval) -> bool {
        let key = (pending.principal.clone(), pending.call_id.clone());
        match self.pending.entry(key.clone()) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(entry) => {
                let keep_until = pending.expires_at.saturating_add(CLOCK_SKEW_SECONDS);
                entry.insert((pending.clone(), keep_until));
                let text = pending.arguments.to_string();
                let start = text.chars().take(CUT_ARGUMENTS_START_CHARS).collect();
                self.measured.insert(key, (text.len(), start));
                true
            }
        }
    }

    fn purge(&mut self, now: u64) -> u64 {
        let before = self.used.len() + self.pending.len() + self.decisions.len();
        self.used.retain(|_, claim| claim.keep_until >= now);
        self.pending.retain(|_, (_, keep_until)| *keep_until >= now);
        let pending = &self.pending;
        self.measured.retain(|key, _| pending.contains_key(key));
        self.decisions
            .retain(|_, (_, keep_until)| *keep_until >= now);
        let decisions = &self.decisions;
        self.settled.retain(|key| decisions.contains_key(key));
        let refusals = self.refusals.len();
        self.refusals.retain(|(_, keep_until)| *keep_until >= now);
        let after = self.used.len() + self.pending.len() + self.decisions.len();
        (before - after + refusals - self.refusals.len()) as u64
    }
}

/// The life of approvals in this process's memory: enough for one process; several
/// processes need a shared store (`SqliteApprovalStore`, feature `sqlite`;
/// `PostgresApprovalStore`, feature `postgres`). Its clock is the process's.
pub struct MemoryApprovalStore {
    records: Mutex<MemoryRecords>,
    clock: StoreClock,
}

impl Default for MemoryApprovalStore {
    fn default() -> Self {
        MemoryApprovalStore {
            records: Mutex::default(),
            clock: system_clock(),
        }
    }
}

impl fmt::Debug for MemoryApprovalStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryApprovalStore")
            .field("used", &self.len())
            .finish_non_exhaustive()
    }
}

impl MemoryApprovalStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the time (Unix seconds) from `clock` instead of the process's clock
    /// (tests move time with it).
    #[must_use]
    pub fn clock(mut self, clock: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// How many used approvals are recorded.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().used.len()
    }

    /// Whether none is.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lock().used.is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoryRecords> {
        self.records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn ready<'a, T: Send + 'a>(value: Result<T, StoreError>) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

impl ApprovalStore for MemoryApprovalStore {
    fn now(&self) -> StoreFuture<'_, u64> {
        ready(Ok((self.clock)()))
    }

    fn save_pending<'a>(&'a self, pending: &'a PendingApproval) -> StoreFuture<'a, bool> {
        let now = (self.clock)();
        let mut records = self.lock();
        records.purge(now);
        ready(Ok(records.insert_pending(pending)))
    }

    fn save_pending_capped<'a>(
        &'a self,
        pending: &'a PendingApproval,
        caps: PendingCaps,
    ) -> StoreFuture<'a, SavedPending> {
        let now = (self.clock)();
        // One lock over the count and the insert.
        let mut records = self.lock();
        let key = (pending.principal.clone(), pending.call_id.clone());
        if records.pending.contains_key(&key) {
            return ready(Ok(SavedPending::AlreadySaved));
        }
        if !caps.is_none() {
            let (mut waiting, mut of_tool) = (0, 0);
            for (key, (waits, _)) in &records.pending {
                if waits.principal == pending.principal
                    && waits.expires_at >= now
                    && !records.decisions.contains_key(key)
                {
                    waiting += 1;
                    of_tool += u64::from(waits.tool == pending.tool);
                }
            }
            if let Some(full) = caps.full(waiting, of_tool) {
                return ready(Ok(full));
            }
        }
        records.purge(now);
        records.insert_pending(pending);
        ready(Ok(SavedPending::Saved))
    }

    fn list_pending<'a>(
        &'a self,
        query: &'a PendingQuery,
    ) -> StoreFuture<'a, Vec<PendingApproval>> {
        let limit = match query.bounded_limit() {
            Ok(limit) => limit,
            Err(error) => return ready(Err(error)),
        };
        let now = (self.clock)();
        let records = self.lock();
        let mut found: Vec<PendingApproval> = records
            .pending
            .iter()
            .filter(|(key, (pending, _))| {
                pending.expires_at >= now
                    && !records.decisions.contains_key(*key)
                    && query.matches(pending)
            })
            .map(|(_, (pending, _))| pending.clone())
            .collect();
        found.sort_by(|a, b| {
            (b.requested_at, &b.principal, &b.call_id).cmp(&(
                a.requested_at,
                &a.principal,
                &a.call_id,
            ))
        });
        found.truncate(limit);
        ready(Ok(found))
    }

    fn list_pending_cut<'a>(
        &'a self,
        query: &'a PendingQuery,
        arguments_up_to: usize,
    ) -> StoreFuture<'a, Vec<ListedPending>> {
        let limit = match query.bounded_limit() {
            Ok(limit) => limit,
            Err(error) => return ready(Err(error)),
        };
        let now = (self.clock)();
        let records = self.lock();
        // Sorted by reference, and only the page's calls copied and measured.
        let mut found: Vec<&PendingApproval> = records
            .pending
            .iter()
            .filter(|(key, (pending, _))| {
                pending.expires_at >= now
                    && !records.decisions.contains_key(*key)
                    && query.matches(pending)
            })
            .map(|(_, (pending, _))| pending)
            .collect();
        found.sort_by(|a, b| {
            (b.requested_at, &b.principal, &b.call_id).cmp(&(
                a.requested_at,
                &a.principal,
                &a.call_id,
            ))
        });
        let listed = found
            .into_iter()
            .take(limit)
            .map(|pending| {
                let key = (pending.principal.clone(), pending.call_id.clone());
                match records.measured.get(&key) {
                    Some((bytes, start)) if *bytes > arguments_up_to => {
                        // Copied without the arguments the list leaves out.
                        let listed = PendingApproval {
                            call_id: pending.call_id.clone(),
                            principal: pending.principal.clone(),
                            view: pending.view.clone(),
                            tool: pending.tool.clone(),
                            arguments: serde_json::Value::Null,
                            digest: pending.digest.clone(),
                            requested_at: pending.requested_at,
                            expires_at: pending.expires_at,
                            signature: pending.signature.clone(),
                        };
                        ListedPending::from_parts(listed, None, *bytes, start.clone())
                    }
                    Some(_) => ListedPending {
                        pending: pending.clone(),
                        cut: None,
                    },
                    None => ListedPending::cut(pending.clone(), arguments_up_to),
                }
            })
            .collect();
        ready(Ok(listed))
    }

    fn pending<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<PendingApproval>> {
        let key = (principal.to_owned(), call_id.to_owned());
        let found = self
            .lock()
            .pending
            .get(&key)
            .map(|(pending, _)| pending.clone());
        ready(Ok(found))
    }

    fn record_decision<'a>(
        &'a self,
        record: &'a DecisionRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, DecisionOutcome> {
        let now = (self.clock)();
        let mut records = self.lock();
        records.purge(now);
        let key = (record.principal.clone(), record.call_id.clone());
        let outcome = match records.decisions.get(&key) {
            Some((winner, _)) => DecisionOutcome::AlreadyDecided(Box::new(winner.clone())),
            None => {
                records.decisions.insert(key, (record.clone(), keep_until));
                DecisionOutcome::Recorded
            }
        };
        ready(Ok(outcome))
    }

    fn decision<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<DecisionRecord>> {
        let key = (principal.to_owned(), call_id.to_owned());
        let found = self
            .lock()
            .decisions
            .get(&key)
            .map(|(record, _)| record.clone());
        ready(Ok(found))
    }

    fn decisions<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<DecisionRecord>> {
        let limit = match query.bounded_limit() {
            Ok(limit) => limit,
            Err(error) => return ready(Err(error)),
        };
        let records = self.lock();
        let mut found: Vec<DecisionRecord> = records
            .decisions
            .values()
            .filter(|(record, _)| query.matches(record))
            .map(|(record, _)| record.clone())
            .collect();
        found.sort_by(|a, b| {
            (b.decided_at, &b.principal, &b.call_id).cmp(&(a.decided_at, &a.principal, &a.call_id))
        });
        found.truncate(limit);
        ready(Ok(found))
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        lease_until: u64,
        keep_until: u64,
    ) -> StoreFuture<'a, Claim> {
        let now = (self.clock)();
        let mut records = self.lock();
        records.purge(now);
        let claim = match records.used.get_mut(key) {
            None => {
                records.used.insert(
                    key.to_owned(),
                    MemoryClaim {
                        keep_until,
                        lease_until,
                        attempt: 1,
                        done: false,
                        outcome: None,
                        ended_at: None,
                    },
                );
                Claim::Won { attempt: 1 }
            }
            Some(claim) if claim.done => Claim::Done,
            Some(claim) if claim.lease_until >= now => Claim::Held {
                lease_until: claim.lease_until,
            },
            Some(claim) => {
                claim.attempt = claim.attempt.saturating_add(1);
                claim.lease_until = lease_until;
                claim.keep_until = claim.keep_until.max(keep_until);
                Claim::Won {
                    attempt: claim.attempt,
                }
            }
        };
        ready(Ok(claim))
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        let now = (self.clock)();
        let released = match self.lock().used.get_mut(key) {
            Some(claim) if !claim.done && claim.attempt == attempt => {
                claim.lease_until = 0;
                claim.outcome = Some(outcome.clone());
                claim.ended_at = Some(now);
                true
            }
            _ => false,
        };
        ready(Ok(released))
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        let now = (self.clock)();
        let completed = match self.lock().used.get_mut(key) {
            Some(claim) if claim.attempt == attempt => {
                if !claim.done {
                    claim.done = true;
                    claim.outcome = Some(outcome.clone());
                    claim.ended_at = Some(now);
                }
                true
            }
            _ => false,
        };
        ready(Ok(completed))
    }

    fn renew<'a>(&'a self, key: &'a str, attempt: u32, lease_until: u64) -> StoreFuture<'a, bool> {
        let renewed = match self.lock().used.get_mut(key) {
            Some(claim) if !claim.done && claim.attempt == attempt && claim.lease_until > 0 => {
                claim.lease_until = claim.lease_until.max(lease_until);
                true
            }
            _ => false,
        };
        ready(Ok(renewed))
    }

    fn run<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<RunRecord>> {
        let record = self.lock().used.get(key).map(|claim| RunRecord {
            attempt: claim.attempt,
            done: claim.done,
            lease_until: claim.lease_until,
            outcome: claim.outcome.clone(),
            ended_at: claim.ended_at,
        });
        ready(Ok(record))
    }

    fn lapsed_claims<'a>(&'a self, prefix: &'a str, limit: usize) -> StoreFuture<'a, Vec<String>> {
        let now = (self.clock)();
        let records = self.lock();
        let mut found: Vec<(u64, &String)> = records
            .used
            .iter()
            .filter(|(key, claim)| {
                key.starts_with(prefix)
                    && !claim.done
                    && claim.lease_until < now
                    && claim.keep_until >= now
            })
            .map(|(key, claim)| (claim.lease_until, key))
            .collect();
        found.sort_unstable();
        let found = found
            .into_iter()
            .take(limit.min(MAX_QUERY_LIMIT))
            .map(|(_, key)| key.clone())
            .collect();
        ready(Ok(found))
    }

    fn approved_unsettled(
        &self,
        decided_after: u64,
        decided_before: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<(PendingApproval, DecisionRecord)>> {
        let records = self.lock();
        let mut found: Vec<(PendingApproval, DecisionRecord)> = records
            .decisions
            .iter()
            .filter(|(key, (record, _))| {
                record.verdict != Verdict::Denied
                    && record.decided_at >= decided_after
                    && record.decided_at < decided_before
                    && !records.settled.contains(*key)
            })
            .filter_map(|(key, (record, _))| {
                let (pending, _) = records.pending.get(key)?;
                Some((pending.clone(), record.clone()))
            })
            .collect();
        found.sort_by(|(_, a), (_, b)| {
            (a.decided_at, &a.principal, &a.call_id).cmp(&(b.decided_at, &b.principal, &b.call_id))
        });
        found.truncate(limit.min(MAX_QUERY_LIMIT));
        ready(Ok(found))
    }

    fn settle<'a>(&'a self, principal: &'a Principal, call_id: &'a str) -> StoreFuture<'a, bool> {
        let key = (principal.to_owned(), call_id.to_owned());
        let mut records = self.lock();
        let settled = records.decisions.contains_key(&key);
        if settled {
            records.settled.insert(key);
        }
        ready(Ok(settled))
    }

    fn record_refusal<'a>(
        &'a self,
        refusal: &'a RefusalRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, ()> {
        let now = (self.clock)();
        let mut records = self.lock();
        records.purge(now);
        records.refusals.push((refusal.clone(), keep_until));
        ready(Ok(()))
    }

    fn refusals<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<RefusalRecord>> {
        let limit = match query.bounded_limit() {
            Ok(limit) => limit,
            Err(error) => return ready(Err(error)),
        };
        let records = self.lock();
        // Pushed in time order: the newest are last.
        let found = records
            .refusals
            .iter()
            .rev()
            .filter(|(refusal, _)| query.matches_refusal(refusal))
            .take(limit)
            .map(|(refusal, _)| refusal.clone())
            .collect();
        ready(Ok(found))
    }

    fn purge(&self) -> StoreFuture<'_, u64> {
        let now = (self.clock)();
        ready(Ok(self.lock().purge(now)))
    }
}
