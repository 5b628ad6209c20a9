//! A task: any tool's call kept in the approval store, run by whichever process
//! claims it, and read back by its principal on any process (what MCP Tasks,
//! `io.modelcontextprotocol/tasks`, polls). An approved call's life without the
//! decision: created, claimed under a lease renewed while it runs, fenced by its
//! attempt, its outcome kept; a cancellation recorded in the store reaches the
//! process that runs it.
//!
//! Three records per task, each under a key bound to the principal and the task
//! id (so another principal's key for the same id names nothing), all kept with
//! the store's claims ([`ApprovalStore::claim`](super::ApprovalStore::claim)), so
//! every store keeps tasks without a table of their own:
//! - the request (`…:request`), claimed and completed when the task is created,
//!   its outcome the signed [`TaskRecord`];
//! - the run (`…:run`), the claim the runner holds while the tool runs, its
//!   outcome the tool's result or error;
//! - the cancellation (`…:cancel`), a claim that exists once someone cancelled.

use std::future::Future;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::key::{canonical_json, to_hex};
use super::run::{WithRun, used_key};
use super::{ApprovalError, Approvals, ApprovedRun, CLOCK_SKEW_SECONDS, Claim, RunOutcome};
use crate::error::ToolError;
use crate::principal::Principal;
use crate::response::Response;

/// The [`RunOutcome::Failed::kind`] of a task's run that was cancelled.
pub const CANCELLED: &str = "cancelled";

/// The most bytes of a task's arguments (as JSON text): the request is kept in
/// the store as one outcome, which stores keep up to
/// [`MAX_OUTCOME_BYTES`](super::MAX_OUTCOME_BYTES).
pub const MAX_TASK_ARGUMENTS: usize = 32 * 1024;

/// The longest task id looked up; ids made here are 37 characters.
const MAX_TASK_ID: usize = 64;

/// How often a running task renews its lease and reads whether it was
/// cancelled, at most: a cancellation reaches the run within this, plus one
/// store round trip.
const CANCEL_POLL: Duration = Duration::from_secs(1);

/// A task-augmented call as the store keeps it: who asked, through which view,
/// which tool with which arguments, and for how long it is kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task id: `task_` and 32 hex digits of the operating system's
    /// randomness, so nobody can guess another's.
    pub id: String,
    /// Who the call acts for: only this principal reads, cancels or runs it.
    pub principal: Principal,
    /// The label of the view it was made through, if it had one.
    pub view: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// The arguments, as the model sent them.
    pub arguments: Value,
    /// When it was created (Unix seconds, store time).
    pub created_at: u64,
    /// Until when it is kept (Unix seconds, store time): past it, nobody reads or
    /// runs it, and the store drops it.
    pub expires_at: u64,
    /// HMAC-SHA256 of the rest with the approval key: a record altered in the
    /// store is refused.
    pub signature: String,
}

/// Where a task is ([`Approvals::task`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TaskState {
    /// A run holds it now (attempt 1, 2, ...). `cancelling`: a cancellation is
    /// recorded, and the run stops at its next look at the store.
    Running {
        /// The attempt that runs.
        attempt: u32,
        /// Whether a cancellation waits for the run to see it.
        cancelling: bool,
    },
    /// No live run holds it: nobody claimed it yet, or the process of its last
    /// attempt (`attempts` so far) stopped renewing its lease (it died). Whoever
    /// reads it next runs it ([`Approvals::run_task`]), as the next attempt.
    Unclaimed {
        /// How many attempts started before (0: none).
        attempts: u32,
    },
    /// Its tool answered: the result, or the tool's error.
    Done(RunOutcome),
    /// It was cancelled before its tool answered.
    Cancelled,
}

impl TaskState {
    /// Whether the task's life is over: its tool answered, or it was cancelled.
    #[must_use]
    pub fn is_final(&self) -> bool {
        matches!(self, TaskState::Done(_) | TaskState::Cancelled)
    }
}

/// One task as the store knows it ([`Approvals::task`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TaskStatus {
    /// The stored request.
    pub record: TaskRecord,
    /// Where it is.
    pub state: TaskState,
    /// When it last changed (created, or its last attempt ended), Unix seconds,
    /// store time.
    pub updated_at: u64,
}

/// Why a task was not created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    /// The arguments are not JSON.
    #[error(transparent)]
    Arguments(ToolError),
    /// The arguments are longer than [`MAX_TASK_ARGUMENTS`].
    #[error("the arguments of a task are at most {MAX_TASK_ARGUMENTS} bytes; these are {0}")]
    TooLarge(usize),
    /// The store failed.
    #[error(transparent)]
    Approval(#[from] ApprovalError),
}

/// The store key of `part` of task `id` of `principal`.
pub(super) fn task_key(principal: &Principal, id: &str, part: &str) -> String {
    format!("task:{}:{part}", used_key(principal, id))
}

/// A new task id from the operating system's randomness.
fn new_id() -> Result<String, ApprovalError> {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| {
        ApprovalError::Store(
            super::StoreError::new("no randomness for a task id").caused_by(RandomError(error)),
        )
    })?;
    Ok(format!("task_{}", to_hex(&bytes)))
}

/// getrandom's error as a [`std::error::Error`] (it is one only with its `std`
/// feature, which this crate does not need otherwise).
#[derive(Debug)]
struct RandomError(getrandom::Error);

impl std::fmt::Display for RandomError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for RandomError {}

/// What a record's signature covers: every other field, canonically.
fn record_payload(record: &TaskRecord) -> String {
    canonical_json(&serde_json::json!([
        "toolkit.task.v1",
        record.id,
        record.principal,
        record.view,
        record.tool,
        record.arguments,
        record.created_at,
        record.expires_at,
    ]))
}

/// Whether `id` could be a task id of ours: a NUL (which `PostgreSQL`'s text
/// refuses) or an id longer than any we make is unknown, and the store is not
/// asked.
fn plausible(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_TASK_ID && !id.contains('\0')
}

impl Approvals {
    /// Keeps tasks (and their outcomes) this long after they are created (one
    /// hour unless set), on the store's clock: a client polls the outcome within
    /// it; past it the task is unknown.
    #[must_use]
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = ttl;
        self
    }

    /// Creates a task: `principal` calls `tool` with `arguments` (JSON text; empty
    /// means `{}`) through the view labelled `view`. Stored, signed, before this
    /// returns, so any process finds it; nothing runs yet ([`Approvals::run_task`]
    /// runs it). Check the arguments first (the tool's `validate`): a task is for
    /// a call that can run.
    pub async fn create_task(
        &self,
        principal: &Principal,
        view: Option<&str>,
        tool: &str,
        arguments: &str,
    ) -> Result<TaskRecord, TaskError> {
        if arguments.len() > MAX_TASK_ARGUMENTS {
            return Err(TaskError::TooLarge(arguments.len()));
        }
        let arguments = super::request::arguments_value(arguments).map_err(TaskError::Arguments)?;
        let now = self.store_now().await?;
        let mut record = TaskRecord {
            id: new_id()?,
            principal: principal.clone(),
            view: view.map(str::to_owned),
            tool: tool.to_owned(),
            arguments,
            created_at: now,
            expires_at: now.saturating_add(self.task_ttl.as_secs()),
            signature: String::new(),
        };
        record.signature = self.sign(&record_payload(&record));
        let key = task_key(principal, &record.id, "request");
        let keep = record.expires_at.saturating_add(CLOCK_SKEW_SECONDS);
        let store = |error| TaskError::Approval(ApprovalError::Store(error));
        let Claim::Won { attempt } = self.store.claim(&key, now, keep).await.map_err(store)? else {
            // 128 random bits never repeat; a store that says they did is broken.
            return Err(ApprovalError::Store(super::StoreError::new(
                "the store already holds a task with a new random id",
            ))
            .into());
        };
        let json = serde_json::to_value(&record).unwrap_or(Value::Null);
        let bytes = json.to_string().len();
        let outcome = RunOutcome::Ran {
            result: Some(json),
            bytes,
        };
        if !self
            .store
            .complete(&key, attempt, &outcome)
            .await
            .map_err(store)?
        {
            return Err(ApprovalError::Store(super::StoreError::new(
                "the store lost a task's request as it was created",
            ))
            .into());
        }
        Ok(record)
    }

    /// The task `id` of `principal`, from the store alone (any process answers
    /// the same): running, waiting for a run, done (with the tool's result or
    /// error), or cancelled. `None` when the store has no such task: never made,
    /// made for another principal, expired (store time), or an id that is none
    /// of ours (too long, a NUL: the store is not asked).
    pub async fn task(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<Option<TaskStatus>, ApprovalError> {
        if !plausible(id) {
            return Ok(None);
        }
        let Some(record) = self.task_record(principal, id).await? else {
            return Ok(None);
        };
        let now = self.store_now().await?;
        if now > record.expires_at {
            return Ok(None);
        }
        let run = self
            .store
            .run(&task_key(principal, id, "run"))
            .await
            .map_err(ApprovalError::Store)?;
        let cancelled = self.cancel_requested(principal, id).await?;
        let updated_at = run
            .as_ref()
            .and_then(|run| run.ended_at)
            .unwrap_or(record.created_at);
        let state = match run {
            Some(run) if run.done => match run.outcome {
                Some(RunOutcome::Failed { kind, .. }) if kind == CANCELLED => TaskState::Cancelled,
                Some(outcome) => TaskState::Done(outcome),
                None => TaskState::Done(RunOutcome::Ran {
                    result: None,
                    bytes: 0,
                }),
            },
            Some(run) if run.lease_until >= now => TaskState::Running {
                attempt: run.attempt,
                cancelling: cancelled,
            },
            // Nobody runs it, and a run that claims it now finds the
            // cancellation and runs nothing: cancelled, whoever reads it.
            _ if cancelled => TaskState::Cancelled,
            Some(run) => TaskState::Unclaimed {
                attempts: run.attempt,
            },
            None => TaskState::Unclaimed { attempts: 0 },
        };
        Ok(Some(TaskStatus {
            record,
            state,
            updated_at,
        }))
    }

    /// Cancels the task `id` of `principal`: recorded in the store, where the run
    /// holding it (on any process) reads it within a second and stops its tool
    /// (the tool's future is dropped), and where a run that has not started finds
    /// it and runs nothing. `Ok(false)` when there is no such task, or it is over
    /// (its tool answered first: it stays done).
    pub async fn cancel_task(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<bool, ApprovalError> {
        let Some(status) = self.task(principal, id).await? else {
            return Ok(false);
        };
        if status.state.is_final() {
            return Ok(false);
        }
        let now = self.store_now().await?;
        let keep = status.record.expires_at.saturating_add(CLOCK_SKEW_SECONDS);
        // The claim itself is the flag: whoever claims first records it, and a
        // second cancellation finds it held.
        self.store
            .claim(&task_key(principal, id, "cancel"), now, keep)
            .await
            .map_err(ApprovalError::Store)?;
        Ok(true)
    }

    /// Runs the task `record` here if no live run holds it: claims its run (the
    /// next attempt), and, unless it was cancelled, awaits `call` (the tool's
    /// call, made as the record says) with [`ApprovedRun::current`] set to the
    /// task's run key and attempt, renewing the lease and reading the
    /// cancellation every second; a cancellation drops the call's future. The
    /// outcome is kept, unless a later attempt took the run over (this one is
    /// fenced off and records nothing). Returns the outcome this attempt kept;
    /// `None` when it did not run it (another holds it, it is done or expired,
    /// or the store failed).
    ///
    /// An attempt after the first runs because an earlier one stopped renewing
    /// its lease (its process died mid-run): the tool may have had its effect
    /// already. Making that effect idempotent is the tool's business, keyed on
    /// [`ApprovedRun::key`] and fenced on [`ApprovedRun::attempt`].
    pub async fn run_task<F, Fut>(&self, record: &TaskRecord, call: F) -> Option<RunOutcome>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Response>,
    {
        if self
            .verify(&record_payload(record), &record.signature)
            .is_err()
        {
            tracing::warn!(task = %record.id, "a task record's signature does not verify; not run");
            return None;
        }
        let key = task_key(&record.principal, &record.id, "run");
        let now = self
            .store_now()
            .await
            .map_err(|error| tracing::warn!(%error, "a task could not be claimed"))
            .ok()?;
        if now > record.expires_at {
            return None;
        }
        let keep = record.expires_at.saturating_add(CLOCK_SKEW_SECONDS);
        let claimed = self
            .store
            .claim(&key, now.saturating_add(self.lease_seconds()), keep)
            .await
            .map_err(|error| tracing::warn!(%error, "a task could not be claimed"))
            .ok()?;
        let Claim::Won { attempt } = claimed else {
            return None;
        };
        let cancelled = RunOutcome::Failed {
            kind: CANCELLED.to_owned(),
            message: "the task was cancelled".to_owned(),
        };
        let outcome = if self
            .cancel_requested(&record.principal, &record.id)
            .await
            .unwrap_or(false)
        {
            cancelled
        } else {
            let run = ApprovedRun {
                key: used_key(&record.principal, &record.id),
                attempt,
            };
            let work = std::pin::pin!(WithRun::new(Some(run), call()));
            let watch = std::pin::pin!(self.watch(record, &key, attempt));
            match futures_util::future::select(work, watch).await {
                futures_util::future::Either::Left((response, _)) => RunOutcome::of(&response),
                // Cancelled: the tool's future is dropped here, at the await it
                // was suspended on, so its destructors run and nothing after
                // that point happens.
                futures_util::future::Either::Right(((), _)) => cancelled,
            }
        };
        match self.store.complete(&key, attempt, &outcome).await {
            Ok(true) => Some(outcome),
            Ok(false) => {
                tracing::warn!(task = %record.id, attempt, "a task's run was taken over; its outcome is not kept");
                None
            }
            Err(error) => {
                tracing::warn!(task = %record.id, %error, "a task's outcome could not be kept");
                None
            }
        }
    }

    /// Renews the lease of `attempt` on the run `key` and reads the task's
    /// cancellation, every [`CANCEL_POLL`] (or third of the lease, if shorter);
    /// ends when a cancellation is recorded. A renewal refused (taken over) or a
    /// store that fails is logged; the lease then ends on its own.
    async fn watch(&self, record: &TaskRecord, key: &str, attempt: u32) {
        let every = CANCEL_POLL.min((self.run_lease / 3).max(Duration::from_millis(200)));
        loop {
            futures_timer::Delay::new(every).await;
            if self
                .cancel_requested(&record.principal, &record.id)
                .await
                .unwrap_or(false)
            {
                return;
            }
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
                    tracing::warn!(task = %record.id, attempt, "a task's run lost its claim while running");
                }
                Err(error) => {
                    tracing::warn!(task = %record.id, %error, "a task's lease could not be renewed");
                }
            }
        }
    }

    /// Whether a cancellation of task `id` is recorded.
    async fn cancel_requested(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<bool, ApprovalError> {
        Ok(self
            .store
            .run(&task_key(principal, id, "cancel"))
            .await
            .map_err(ApprovalError::Store)?
            .is_some())
    }

    /// The signed request of task `id` of `principal`; `None` when the store has
    /// none. A record that does not verify is the store's corruption, not a task.
    async fn task_record(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<Option<TaskRecord>, ApprovalError> {
        let Some(run) = self
            .store
            .run(&task_key(principal, id, "request"))
            .await
            .map_err(ApprovalError::Store)?
        else {
            return Ok(None);
        };
        let corrupt = || {
            ApprovalError::Store(
                super::StoreError::new("a task's stored request is not one")
                    .with_kind(super::StoreErrorKind::Corrupt),
            )
        };
        let Some(RunOutcome::Ran {
            result: Some(json), ..
        }) = run.outcome
        else {
            // Claimed and not completed yet: created a moment ago, or its
            // creation failed half-way. Not a task until it is whole.
            return Ok(None);
        };
        let record: TaskRecord = serde_json::from_value(json).map_err(|_| corrupt())?;
        if record.id != id
            || record.principal != *principal
            || self
                .verify(&record_payload(&record), &record.signature)
                .is_err()
        {
            return Err(corrupt());
        }
        Ok(Some(record))
    }
}
