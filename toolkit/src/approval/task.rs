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
//!   outcome the tool's result or error; claimed for attempt 1 when the task is
//!   created, so a task whose process died before or while it ran is a run whose
//!   lease lapsed, which [`Approvals::run_tasks`] finds and runs again;
//! - the cancellation (`…:cancel`), a claim (completed at once) that exists once
//!   someone cancelled.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::key::{canonical_json, to_hex};
use super::run::{WithRun, used_key};
use super::{
    ApprovalError, ApprovalView, Approvals, ApprovedRun, CLOCK_SKEW_SECONDS, Claim, RunOutcome,
};
use crate::context::Context;
use crate::error::ToolError;
use crate::principal::Principal;
use crate::progress::{Progress, ProgressUpdate};
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

/// The kind of the outcome kept for a run whose task's request is missing or
/// unreadable in the store (its creation failed half-way, or the store lost it):
/// nothing runs, and no runner lists it again.
pub const LOST: &str = "lost";

/// The prefix of every task's store key.
const TASK_PREFIX: &str = "task:";

/// The prefix of a task's progress record: apart from [`TASK_PREFIX`], so the
/// runner's listing never reads it.
const PROGRESS_PREFIX: &str = "task-progress:";

/// The most characters of a progress report's message kept in the store; the
/// rest is cut.
pub const MAX_PROGRESS_MESSAGE: usize = 512;

/// The least time between two progress reports a task's run writes to the
/// store: a report within it is dropped, unless it reaches its total.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// What one pass of [`Approvals::run_tasks`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskPass {
    /// Tasks this pass ran to an outcome it kept (the tool's result or error).
    pub ran: usize,
    /// Tasks this pass found cancelled: their outcome is kept as cancelled, and
    /// their tool did not run.
    pub cancelled: usize,
    /// Tasks that may not run any more (the principal lost the tool, or the
    /// application's `run_as` refused): kept as the tool's error, never run.
    pub refused: usize,
    /// Tasks another run claimed first, that ended or expired meanwhile, or whose
    /// stored request is missing or unreadable (kept as [`LOST`]).
    pub skipped: usize,
}

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
    /// The latest progress its tool reported while it runs
    /// ([`Progress`](crate::call::Progress)), as the store keeps it (at most one
    /// report a second; the message cut to [`MAX_PROGRESS_MESSAGE`]); `None`
    /// once it is over, or before any report.
    pub progress: Option<ProgressUpdate>,
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

/// One request a task's tool made of its client, and its answer if it came
/// ([`Approvals::task_requests`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRequest {
    /// The tool's key for it: the answer comes back under it.
    pub key: String,
    /// The request as the protocol sends it (`{"method": ..., "params": ...}`).
    pub request: Value,
    /// The client's answer, once given.
    #[serde(skip)]
    pub answer: Option<Value>,
}

impl TaskRequest {
    /// The request `request` the tool made under `key`, and the client's
    /// `answer` to it: what a call gathered before it became a task
    /// ([`Approvals::create_task_answered`]).
    #[must_use]
    pub fn answered(key: impl Into<String>, request: Value, answer: Value) -> Self {
        TaskRequest {
            key: key.into(),
            request,
            answer: Some(answer),
        }
    }
}

/// The store key of the progress of task `id` of `principal`.
fn progress_key(principal: &Principal, id: &str) -> String {
    format!("{PROGRESS_PREFIX}{}", used_key(principal, id))
}

/// A progress report as the store keeps it: `{"progress", "total", "message"}`,
/// the message cut to [`MAX_PROGRESS_MESSAGE`] characters.
fn progress_outcome(update: &ProgressUpdate) -> RunOutcome {
    let message = update.message.as_deref().map(|message| {
        message
            .chars()
            .take(MAX_PROGRESS_MESSAGE)
            .collect::<String>()
    });
    let value = serde_json::json!({
        "progress": update.progress,
        "total": update.total,
        "message": message,
    });
    let bytes = value.to_string().len();
    RunOutcome::Ran {
        result: Some(value),
        bytes,
    }
}

/// The progress report kept as `value`; `None` if it is not one.
fn progress_update(value: &Value) -> Option<ProgressUpdate> {
    Some(ProgressUpdate {
        progress: value.get("progress")?.as_f64()?,
        total: value.get("total").and_then(Value::as_f64),
        message: value
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// The key of the request of the task whose run is keyed `run_key`.
fn request_key_of(run_key: &str) -> Option<String> {
    let stem = run_key.strip_suffix(":run")?;
    stem.starts_with(TASK_PREFIX)
        .then(|| format!("{stem}:request"))
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
    /// returns, so any process finds it, and its first attempt claimed for this
    /// process: run it here with [`Approvals::run_created_task`]. Should this
    /// process never run it (it stopped), the claim's lease lapses and the next
    /// [`Approvals::run_tasks`] pass, or a poll's [`Approvals::run_task`], runs it
    /// as attempt 2. Check the arguments first (the tool's `validate`): a task is
    /// for a call that can run.
    pub async fn create_task(
        &self,
        principal: &Principal,
        view: Option<&str>,
        tool: &str,
        arguments: &str,
    ) -> Result<TaskRecord, TaskError> {
        self.create_task_answered(principal, view, tool, arguments, &[])
            .await
    }

    /// [`Approvals::create_task`] with the requests its tool made of its client
    /// before it became a task, and their answers (a call of a
    /// `#[tool(asks_first)]` tool, asked in rounds first): kept as the task's
    /// answered questions ([`Approvals::task_requests`]), so its run, here or
    /// on the process that takes it over, finds them. A request without an
    /// answer is not kept.
    ///
    /// All or nothing: the answers are written before the task's request,
    /// which is what makes a task exist. Should the store fail half-way, the
    /// call fails, no process ever finds or runs the task (a runner that meets
    /// its claim after the lease keeps it as [`LOST`], and runs nothing), and
    /// what was written is dropped at the task's expiry.
    pub async fn create_task_answered(
        &self,
        principal: &Principal,
        view: Option<&str>,
        tool: &str,
        arguments: &str,
        answered: &[TaskRequest],
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
        let keep = record.expires_at.saturating_add(CLOCK_SKEW_SECONDS);
        let store = |error| TaskError::Approval(ApprovalError::Store(error));
        // The run is claimed first: a task whose request is stored always has a
        // run a runner lists once its lease lapses, whatever happens after.
        let run_key = task_key(principal, &record.id, "run");
        let lease_until = now.saturating_add(self.lease_seconds());
        if self
            .store
            .claim(&run_key, lease_until, keep)
            .await
            .map_err(store)?
            != (Claim::Won { attempt: 1 })
        {
            return Err(ApprovalError::Store(super::StoreError::new(
                "the store already holds a run of a task with a new random id",
            ))
            .into());
        }
        if let Err(error) = self.keep_gathered(&record, answered).await {
            // Its run ends here, unrun, so no runner waits out its lease for
            // it; should the store refuse this too, the lease ends on its own.
            if let Err(ended) = self.store.complete(&run_key, 1, &lost()).await {
                tracing::warn!(error = %ended, "a task that was not made could not be ended");
            }
            return Err(error.into());
        }
        let key = task_key(principal, &record.id, "request");
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
        let progress = if state.is_final() {
            None
        } else {
            self.progress_of(principal, id).await?
        };
        Ok(Some(TaskStatus {
            record,
            state,
            updated_at,
            progress,
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
        // second cancellation finds it. Completed at once, so no runner lists it
        // as a run whose lease lapsed.
        let key = task_key(principal, id, "cancel");
        if let Claim::Won { attempt } = self
            .store
            .claim(&key, now, keep)
            .await
            .map_err(ApprovalError::Store)?
        {
            let flag = RunOutcome::Ran {
                result: None,
                bytes: 0,
            };
            self.store
                .complete(&key, attempt, &flag)
                .await
                .map_err(ApprovalError::Store)?;
        }
        Ok(true)
    }

    /// Runs the tasks whose run nobody holds any more, once each, across every
    /// process that calls this: a task whose process died before or while its
    /// tool ran stops renewing its lease, and after the lease
    /// ([`Approvals::run_lease`]) the next pass, on any process, runs it as the
    /// next attempt, without waiting for anyone to poll it. Call it from a
    /// background task now and then (beside [`Approvals::run_decided`]);
    /// processes calling it at once share the work through the claims, and a
    /// task ends with one outcome. The tasks of one pass run concurrently, and
    /// the pass returns when they have all ended.
    ///
    /// The tool is told it is an attempt after a failure:
    /// [`ApprovedRun::current`] has [`attempt`](ApprovedRun::attempt) 2 or more
    /// (and the task's [`key`](ApprovedRun::key), the same for every attempt).
    /// Its first attempt may have had its effect before its process died: making
    /// that effect idempotent, keyed on the key, is the tool's business.
    ///
    /// `run_as` rebuilds, at run time, the view and context the task's principal
    /// has *now* (from [`TaskRecord::principal`] and [`TaskRecord::view`]): a
    /// view of another principal, one that no longer reaches the tool, or a
    /// refusal of `run_as` (`Err(reason)`) keeps the refusal as the task's outcome
    /// (`completed` with the tool's error), and the tool never runs. A task
    /// cancelled meanwhile ends cancelled, its tool not run.
    ///
    /// ```
    /// use toolkit::approval::{ApprovalKey, Approvals, MemoryApprovalStore};
    /// use toolkit::{Context, Scope};
    ///
    /// # futures_executor::block_on(async {
    /// let approvals = Approvals::new(ApprovalKey::new(*b"an application secret of 32 bytes")?, MemoryApprovalStore::new());
    /// // In a background task, every few seconds:
    /// let pass = approvals
    ///     .run_tasks(|task| {
    ///         let view = toolkit::registry()
    ///             .view()
    ///             .scopes([Scope::Shared])
    ///             .approvals(&approvals, task.principal.clone())
    ///             .build()
    ///             .map_err(|error| error.to_string())?;
    ///         Ok((view, Context::new()))
    ///     })
    ///     .await?;
    /// assert_eq!(pass.ran, 0, "no task was left behind");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// [`ApprovalError::Store`] when the store cannot list the runs whose lease
    /// lapsed (a store of another crate that does not implement
    /// [`ApprovalStore::lapsed_claims`](super::ApprovalStore::lapsed_claims)); a
    /// task whose run fails is counted in the pass, not an error.
    pub async fn run_tasks<'r, V, F>(&self, mut run_as: F) -> Result<TaskPass, ApprovalError>
    where
        V: ApprovalView<'r>,
        F: FnMut(&TaskRecord) -> Result<(V, Context), String>,
    {
        /// Tasks looked at in one pass: the rest wait for the next.
        const BATCH: usize = 100;
        let lapsed = self
            .store
            .lapsed_claims(TASK_PREFIX, BATCH)
            .await
            .map_err(ApprovalError::Store)?;
        let mut pass = TaskPass::default();
        let mut runs = Vec::new();
        for run_key in lapsed {
            // The cancellation and request claims are completed when made; a
            // claim of another shape is nothing this pass runs.
            let Some(request_key) = request_key_of(&run_key) else {
                continue;
            };
            let record = match self.record_at(&request_key).await {
                Ok(Some(record)) if task_key(&record.principal, &record.id, "run") == run_key => {
                    record
                }
                Ok(_) | Err(_) => {
                    tracing::warn!(key = %run_key, "a task's run has no readable request; kept as lost");
                    self.end_unrun(&run_key, lost()).await;
                    pass.skipped += 1;
                    continue;
                }
            };
            let refusal = match run_as(&record) {
                Ok((view, ctx)) => {
                    let reaches = view
                        .approvals()
                        .is_some_and(|(_, principal)| *principal == record.principal)
                        && view
                            .get(&record.tool)
                            .is_some_and(|tool| tool.name == record.tool);
                    if reaches {
                        let mut ctx = ctx;
                        ctx.insert(self.task_progress(&record));
                        runs.push((record, view, ctx));
                        continue;
                    }
                    view.unknown_tool(&record.tool).to_string()
                }
                Err(reason) => reason,
            };
            let refused = Response::Error(ToolError::ApprovalRejected {
                reason: format!("it may no longer run for {}: {refusal}", record.principal),
            });
            if self.end_unrun(&run_key, RunOutcome::of(&refused)).await {
                pass.refused += 1;
            } else {
                pass.skipped += 1;
            }
        }
        let outcomes = futures_util::future::join_all(runs.iter().map(|(record, view, ctx)| {
            let arguments = record.arguments.to_string();
            async move {
                self.run_task(record, || view.call(&record.tool, &arguments, ctx))
                    .await
            }
        }))
        .await;
        for outcome in outcomes {
            match outcome {
                Some(RunOutcome::Failed { kind, .. }) if kind == CANCELLED => pass.cancelled += 1,
                Some(_) => pass.ran += 1,
                None => pass.skipped += 1,
            }
        }
        Ok(pass)
    }

    /// Keeps `outcome` for the run `key` without running anything: claimed (the
    /// next attempt), then completed, so no runner lists it again. `false` when
    /// another run holds or ended it first.
    async fn end_unrun(&self, key: &str, outcome: RunOutcome) -> bool {
        let Ok(now) = self.store_now().await else {
            return false;
        };
        // The claim keeps the record as long as it was kept (the later of the
        // two); a lease of one second is all the completion needs.
        let Ok(Claim::Won { attempt }) = self.store.claim(key, now.saturating_add(1), now).await
        else {
            return false;
        };
        self.store
            .complete(key, attempt, &outcome)
            .await
            .unwrap_or(false)
    }

    /// Where the tool of the task `record` reports its progress while it runs:
    /// put it in the context the task's call runs with. Each report is kept in
    /// the store as the task's latest progress ([`TaskStatus::progress`], read
    /// on any process), at most one a second (a report within a second of the
    /// last one written is dropped, unless it reaches its total), its message
    /// cut to [`MAX_PROGRESS_MESSAGE`] characters. A report the store fails to
    /// keep is logged and dropped: the tool goes on. Of two runs reporting (a
    /// run taken over while its first attempt still reports), the one that
    /// started reporting last is kept.
    ///
    /// [`Approvals::run_tasks`] puts it in the context itself.
    #[must_use]
    pub fn task_progress(&self, record: &TaskRecord) -> Progress {
        /// What the reports of one run share: the attempt its progress record
        /// was claimed with, and when it was last written.
        #[derive(Default)]
        struct Written {
            attempt: Option<u32>,
            at: Option<std::time::Instant>,
        }
        let store = Arc::clone(&self.store);
        let key = progress_key(&record.principal, &record.id);
        let keep = record.expires_at.saturating_add(CLOCK_SKEW_SECONDS);
        let written = Arc::new(std::sync::Mutex::new(Written::default()));
        Progress::from_async(move |update: ProgressUpdate| {
            let (store, key, written) = (Arc::clone(&store), key.clone(), Arc::clone(&written));
            async move {
                let started = std::time::Instant::now();
                let last = written
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .at;
                let complete = update.total.is_some_and(|total| update.progress >= total);
                if !complete && last.is_some_and(|at| started.duration_since(at) < PROGRESS_EVERY) {
                    return;
                }
                let attempt = written
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .attempt;
                let attempt = match attempt {
                    Some(attempt) => attempt,
                    // The first report claims the record (a lease of 0: the
                    // next run's first report takes it over).
                    None => match store.claim(&key, 0, keep).await {
                        Ok(Claim::Won { attempt }) => attempt,
                        Ok(_) => return,
                        Err(error) => {
                            tracing::debug!(%error, "a task's progress was not kept");
                            return;
                        }
                    },
                };
                let outcome = progress_outcome(&update);
                match store.release(&key, attempt, &outcome).await {
                    Ok(kept) => {
                        let mut written = written
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        written.attempt = Some(attempt);
                        written.at = Some(started);
                        if !kept {
                            tracing::debug!("a later run of the task reports its progress");
                        }
                    }
                    Err(error) => tracing::debug!(%error, "a task's progress was not kept"),
                }
            }
        })
    }

    /// The latest progress kept for task `id` of `principal`.
    async fn progress_of(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<Option<ProgressUpdate>, ApprovalError> {
        let run = self
            .store
            .run(&progress_key(principal, id))
            .await
            .map_err(ApprovalError::Store)?;
        Ok(run
            .and_then(|run| run.outcome)
            .and_then(|outcome| match outcome {
                RunOutcome::Ran {
                    result: Some(value),
                    ..
                } => progress_update(&value),
                _ => None,
            }))
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
        let (key, now) = self.runnable(record).await?;
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
        self.run_attempt(record, &key, attempt, call).await
    }

    /// Runs the task `record` this process just created
    /// ([`Approvals::create_task`] claimed its first attempt for it), as attempt
    /// 1, like [`Approvals::run_task`]: `None` when that attempt no longer holds
    /// it (this process came back after the lease and another process took it
    /// over), or it is done, cancelled or expired.
    pub async fn run_created_task<F, Fut>(&self, record: &TaskRecord, call: F) -> Option<RunOutcome>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Response>,
    {
        let (key, now) = self.runnable(record).await?;
        // Fenced: renewing attempt 1 fails once a later attempt took it over.
        let held = self
            .store
            .renew(&key, 1, now.saturating_add(self.lease_seconds()))
            .await
            .map_err(|error| tracing::warn!(%error, "a task's run could not start"))
            .ok()?;
        if !held {
            return None;
        }
        self.run_attempt(record, &key, 1, call).await
    }

    /// The run key of the task `record` and the store's time, when it may run
    /// now: its signature verifies, the store's clock answers and it has not
    /// expired. `None` (with a warning for the first two) otherwise.
    async fn runnable(&self, record: &TaskRecord) -> Option<(String, u64)> {
        if self
            .verify(&record_payload(record), &record.signature)
            .is_err()
        {
            tracing::warn!(task = %record.id, "a task record's signature does not verify; not run");
            return None;
        }
        let now = self
            .store_now()
            .await
            .map_err(|error| tracing::warn!(%error, "a task's run could not start"))
            .ok()?;
        (now <= record.expires_at).then(|| (task_key(&record.principal, &record.id, "run"), now))
    }

    /// Runs `attempt` of the task `record`, whose run `key` it holds: see
    /// [`Approvals::run_task`].
    async fn run_attempt<F, Fut>(
        &self,
        record: &TaskRecord,
        key: &str,
        attempt: u32,
        call: F,
    ) -> Option<RunOutcome>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Response>,
    {
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
            let watch = std::pin::pin!(self.watch(record, key, attempt));
            match futures_util::future::select(work, watch).await {
                futures_util::future::Either::Left((response, _)) => RunOutcome::of(&response),
                // Cancelled: the tool's future is dropped here, at the await it
                // was suspended on, so its destructors run and nothing after
                // that point happens.
                futures_util::future::Either::Right(((), _)) => cancelled,
            }
        };
        match self.store.complete(key, attempt, &outcome).await {
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
        let Some(record) = self.record_at(&task_key(principal, id, "request")).await? else {
            return Ok(None);
        };
        if record.id != id || record.principal != *principal {
            return Err(corrupt());
        }
        Ok(Some(record))
    }

    /// The signed request stored under `key`; `None` when the store has none (or
    /// not a whole one yet). A record that does not verify is the store's
    /// corruption, not a task.
    async fn record_at(&self, key: &str) -> Result<Option<TaskRecord>, ApprovalError> {
        let Some(run) = self.store.run(key).await.map_err(ApprovalError::Store)? else {
            return Ok(None);
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
        if self
            .verify(&record_payload(&record), &record.signature)
            .is_err()
        {
            return Err(corrupt());
        }
        Ok(Some(record))
    }
}

/// The outcome kept for a run whose request is missing or unreadable.
fn lost() -> RunOutcome {
    RunOutcome::Failed {
        kind: LOST.to_owned(),
        message: "the task's stored request is missing or unreadable; it was not run".to_owned(),
    }
}

/// The error of a task's stored request that is not one.
fn corrupt() -> ApprovalError {
    ApprovalError::Store(
        super::StoreError::new("a task's stored request is not one")
            .with_kind(super::StoreErrorKind::Corrupt),
    )
}
