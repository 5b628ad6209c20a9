//! MCP Tasks (SEP-2663, the `io.modelcontextprotocol/tasks` extension): a
//! client that declares the extension on a call gets a task handle instead of a
//! pending approval (an `approve` call) or of the result (a tool declared `task =
//! optional` or `required`), and polls it on any replica. The task's state is the
//! approval store's ([`Approvals::status`] for an `approve` call,
//! [`Approvals::task`] for any other tool's task): this module only translates
//! it, and the requester's answers and cancellations, to and from the protocol.
//! The tables below are the `approve` call's; [`detailed_run`] has the other's.
//!
//! | the call ([`CallState`]) | the task |
//! |---|---|
//! | waiting, the requester's answer decides | `input_required`, asking `approval` (accept or decline) |
//! | waiting for an approver | `input_required` with no input requests: nothing the client sends moves it; its `statusMessage` says who it waits for |
//! | approved, or running | `working` |
//! | its tool failed, tried again while its approval is valid | `working`, its `statusMessage` naming the attempt, the tool's error and until when |
//! | ran | `completed`, with the tool's result as `tools/call` gives it |
//! | its tool failed, and its approval expired before another attempt | `completed`, with the tool's error as `tools/call` gives it (`isError: true`) |
//! | denied, expired, refused at run time | `failed`, with the reason |
//!
//! A tool's own error completes the task: the Tasks specification keeps `failed`
//! for JSON-RPC errors and puts a tool result with `isError: true` in a
//! `completed` task ("Task Execution Errors",
//! <https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html>).
//! | withdrawn (`tasks/cancel`) | `cancelled` |
//!
//! The task id is the call id: looked up for the caller's own principal only, so
//! another caller's `tasks/get` of the same id finds nothing.

use rmcp::model::{
    CreateTaskResult, DetailedTask, ElicitRequest, ElicitRequestParams, ErrorCode, InputRequest,
    InputRequests, JsonObject, Task, TaskPayload, TaskStatus,
};

use super::result::{APPROVAL_INPUT, META_ERROR, approval_question, call_result};
use super::{Grant, ToolSet};
use crate::approval::{
    Approvals, CallState, CallStatus, Decision, PendingApproval, RunOutcome, TaskRecord, TaskState,
    TaskStatus as TaskRunStatus,
};
use crate::error::ToolError;
use crate::progress::ProgressUpdate;
use crate::response::Response;

/// How often a client is asked to poll a task that waits for a person, in ms.
const POLL_WAITING_MS: u64 = 5_000;
/// How often a client is asked to poll a task that runs, in ms.
const POLL_RUNNING_MS: u64 = 1_000;
/// The longest task id looked up: longer ones are no call id of ours.
const MAX_TASK_ID: usize = 256;

/// The approvals a grant's calls are kept in, and its principal.
pub(super) fn approvals_of(
    tools: &dyn ToolSet,
) -> Option<(&Approvals, &crate::principal::Principal)> {
    tools.approvals()
}

/// The task handle for a call left pending.
pub(super) fn created(
    pending: &PendingApproval,
    requester_decides: bool,
    approvals: &Approvals,
) -> CreateTaskResult {
    let state = CallState::Waiting { requester_decides };
    // Kept at least until a decision made at the last moment could still run.
    let kept_until = approvals.resumable_until(pending.expires_at);
    CreateTaskResult::new(task(pending, &state, pending.requested_at, kept_until))
}

/// The task `status` is, with its payload.
pub(super) fn detailed(status: &CallStatus) -> DetailedTask {
    let pending = &status.pending;
    let task = task(pending, &status.state, status.updated_at, status.kept_until);
    let payload = match &status.state {
        CallState::Waiting {
            requester_decides: true,
        } => TaskPayload::InputRequired {
            input_requests: InputRequests::from([(
                APPROVAL_INPUT.to_owned(),
                InputRequest::Elicitation(ElicitRequest::new(
                    ElicitRequestParams::FormElicitationParams {
                        meta: None,
                        message: approval_question(pending),
                        requested_schema: empty_form(),
                    },
                )),
            )]),
        },
        CallState::Waiting {
            requester_decides: false,
        } => TaskPayload::InputRequired {
            input_requests: InputRequests::new(),
        },
        CallState::Approved | CallState::Running { .. } | CallState::Retrying { .. } => {
            TaskPayload::Working
        }
        CallState::Ran(result) => TaskPayload::Completed {
            result: completed(result.clone()),
        },
        CallState::Failed { kind, message, .. } => TaskPayload::Completed {
            result: tool_error(kind, message),
        },
        CallState::NotRun { kind, message } => TaskPayload::Failed {
            error: failed(kind, message),
        },
        CallState::Withdrawn => TaskPayload::Cancelled,
    };
    DetailedTask::new(task, payload)
}

/// The base task of `pending` in `state`.
fn task(pending: &PendingApproval, state: &CallState, updated_at: u64, kept_until: u64) -> Task {
    let status = match state {
        CallState::Waiting { .. } => TaskStatus::InputRequired,
        CallState::Approved | CallState::Running { .. } | CallState::Retrying { .. } => {
            TaskStatus::Working
        }
        CallState::Ran(_) | CallState::Failed { .. } => TaskStatus::Completed,
        CallState::NotRun { .. } => TaskStatus::Failed,
        CallState::Withdrawn => TaskStatus::Cancelled,
    };
    let message = match state {
        CallState::Waiting {
            requester_decides: true,
        } => format!("`{}` waits for your approval; it has not run", pending.tool),
        CallState::Waiting {
            requester_decides: false,
        } => format!(
            "`{}` waits for an approver's decision; it has not run, and runs once they approve it",
            pending.tool
        ),
        CallState::Approved => format!("`{}` was approved and runs now", pending.tool),
        CallState::Running {
            attempt,
            last_error: None,
        } => format!("`{}` runs now (attempt {attempt})", pending.tool),
        CallState::Running {
            attempt,
            last_error: Some(error),
        } => format!(
            "`{}` runs again now (attempt {attempt}); an earlier attempt failed ({error})",
            pending.tool
        ),
        CallState::Retrying {
            attempt,
            error,
            next_attempt_in,
            until,
            ..
        } => format!(
            "attempt {attempt} of `{}` failed ({error}); next attempt {}; it is tried again \
             until {}, while its approval is valid",
            pending.tool,
            match next_attempt_in {
                0 => "on the runner's next pass".to_owned(),
                seconds => format!("in {seconds} s"),
            },
            timestamp(*until)
        ),
        CallState::Ran(_) => format!("`{}` ran", pending.tool),
        CallState::Failed {
            attempt, message, ..
        } => format!(
            "attempt {attempt} of `{}` failed ({message}), and its approval expired before \
             another attempt: it is not tried again",
            pending.tool
        ),
        CallState::NotRun { message, .. } => message.clone(),
        CallState::Withdrawn => format!("`{}` was withdrawn before it ran", pending.tool),
    };
    let poll = match state {
        // Nothing changes before a person decides, or the runner's next pass.
        CallState::Waiting { .. } | CallState::Retrying { .. } => POLL_WAITING_MS,
        _ => POLL_RUNNING_MS,
    };
    Task::new(
        pending.call_id.clone(),
        status,
        timestamp(pending.requested_at),
        timestamp(updated_at.max(pending.requested_at)),
    )
    .with_status_message(message)
    .with_ttl_ms(
        kept_until
            .saturating_sub(pending.requested_at)
            .saturating_mul(1000),
    )
    .with_poll_interval_ms(poll)
}

/// Unix seconds as ISO 8601 (UTC, whole seconds).
fn timestamp(seconds: u64) -> String {
    i64::try_from(seconds)
        .ok()
        .and_then(|seconds| chrono::DateTime::from_timestamp(seconds, 0))
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A completed task's result: what `tools/call` would have answered.
fn completed(result: Option<serde_json::Value>) -> JsonObject {
    let response = match result {
        Some(value) => Response::Result(value),
        None => Response::Result(serde_json::Value::String(
            "the call ran; its result was too large to keep".to_owned(),
        )),
    };
    wire(call_result(response))
}

/// A completed task's result when its tool failed: what `tools/call` answers for
/// the tool's error (its kind and message, as the store kept them).
fn tool_error(kind: &str, message: &str) -> JsonObject {
    let mut result = rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
        message.to_owned(),
    )]);
    let mut detail = JsonObject::new();
    detail.insert("kind".to_owned(), kind.into());
    detail.insert("message".to_owned(), message.into());
    let mut meta = JsonObject::new();
    meta.insert(META_ERROR.to_owned(), serde_json::Value::Object(detail));
    result.meta = Some(rmcp::model::MetaObject(meta));
    wire(result)
}

/// A call result as a task carries it: all of it, `resultType: "complete"`
/// included. The specification's `result` is what the request would have
/// returned, and the official TypeScript Tasks client
/// (`@modelcontextprotocol/ext-tasks` 0.2.2, `CompleteCallToolResultV2Schema`)
/// refuses a completed task whose result lacks it.
fn wire(result: rmcp::model::CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(serde_json::Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}

/// A failed task's JSON-RPC error: the reason, and its kind under `data`.
fn failed(kind: &str, message: &str) -> JsonObject {
    let mut data = JsonObject::new();
    data.insert("kind".to_owned(), kind.into());
    data.insert("message".to_owned(), message.into());
    let mut error = JsonObject::new();
    error.insert("code".to_owned(), ErrorCode::INTERNAL_ERROR.0.into());
    error.insert("message".to_owned(), message.into());
    error.insert("data".to_owned(), serde_json::Value::Object(data));
    error
}

/// The approval question's form: no fields, only accept or decline.
fn empty_form() -> rmcp::model::ElicitationSchema {
    rmcp::model::ElicitationSchema::new(std::collections::BTreeMap::new())
}

/// The stored call `task_id` of the grant's principal, and its approvals.
pub(super) async fn find<'g>(
    grant: &'g Grant,
    task_id: &str,
) -> Result<Option<(&'g Approvals, CallStatus)>, rmcp::ErrorData> {
    let Some((approvals, principal)) = approvals_of(grant.tools()) else {
        return Ok(None);
    };
    // No call id holds a NUL (PostgreSQL's text can't), and a store may fail
    // on one rather than find nothing: such an id is unknown, unread.
    if task_id.is_empty() || task_id.len() > MAX_TASK_ID || task_id.contains('\0') {
        return Ok(None);
    }
    match approvals.status(principal, task_id).await {
        // A task is found through the view the caller holds now: a call of a tool
        // outside it (a narrower token of the same user) is no task of theirs.
        Ok(status) => Ok(status
            .filter(|status| grant.tools().reaches(&status.pending))
            .map(|status| (approvals, status))),
        Err(error) => {
            tracing::warn!(%error, "a task could not be read from the approval store");
            // Reading a task runs nothing, but the call may have run before: the
            // client is told what is known, not that nothing ran.
            let message = error
                .state_unknown()
                .unwrap_or_else(|| ToolError::from(error).to_string());
            Err(rmcp::ErrorData::internal_error(message, None))
        }
    }
}

/// The requester's answer in a `tasks/update`, if it answers the approval.
pub(super) fn answer(responses: &rmcp::model::InputResponses) -> Option<Decision> {
    let action = responses.get(APPROVAL_INPUT)?.get("action")?.as_str()?;
    match action {
        "accept" => Some(Decision::Approve),
        "decline" => Some(Decision::Deny("the user declined the call".to_owned())),
        "cancel" => Some(Decision::Deny(
            "the user dismissed the approval request".to_owned(),
        )),
        _ => None,
    }
}

/// Runs, in the background, what a poll or an answer started: the task is
/// polled for its outcome, which the store keeps, so nothing waits for this.
///
/// The approved tool may [`Ask`](super::Ask) its client (one that `declared`
/// what it asks), as a task's tool does: each question is kept in the store
/// beside the call, where `tasks/get` on any replica shows it
/// (`input_required`) and `tasks/update` keeps the answer, which this run
/// brings to the tool.
pub(super) fn in_background(
    mut grant: Grant,
    pending: PendingApproval,
    decision: Option<Decision>,
    declared: super::ask::Declared,
) {
    let questions = std::sync::Arc::new(super::ask::TaskQuestions::default());
    grant.context_mut().insert(super::Ask::task(
        std::sync::Arc::clone(&questions),
        declared,
    ));
    tokio::spawn(async move {
        let run = async {
            match decision {
                Some(decision) => {
                    grant
                        .tools()
                        .resume(&pending, decision, grant.context())
                        .await
                }
                None => grant.tools().run_approved(&pending, grant.context()).await,
            }
        };
        let response = match approvals_of(grant.tools()) {
            Some((approvals, _)) => {
                let asker = approvals.call_asker(&pending);
                let run = std::pin::pin!(run);
                let relay = std::pin::pin!(relay(approvals, asker, &questions));
                match futures_util::future::select(run, relay).await {
                    futures_util::future::Either::Left((response, _)) => response,
                    futures_util::future::Either::Right((never, _)) => match never {},
                }
            }
            None => run.await,
        };
        if let Response::Error(error) = &response {
            // Another replica running it, or a decision that stops it: the task's
            // next poll reads what the store kept.
            tracing::debug!(task = %pending.call_id, kind = error.kind(), %error, "a task's run did not run here");
        }
    });
}

/// Whether `task_id` names a task of any tool ([`Approvals::create_task`]), not
/// an `approve` call (whose task id is its call id).
pub(super) fn is_run(task_id: &str) -> bool {
    task_id.starts_with("task_")
}

/// The task handle of a task just created: nobody runs it yet.
pub(super) fn created_run(record: &TaskRecord) -> CreateTaskResult {
    CreateTaskResult::new(run_task(
        record,
        &TaskState::Unclaimed { attempts: 0 },
        record.created_at,
        None,
    ))
}

/// The task `status` of any tool's task is, with its payload.
///
/// | the run ([`TaskState`]) | the task |
/// |---|---|
/// | running, waiting for a runner, taken over after its replica died | `working` |
/// | the tool answered (a result, or its own error: `isError: true`) | `completed` |
/// | the tool panicked (an internal error) | `failed`, with the JSON-RPC error |
/// | cancelled before the tool answered | `cancelled` |
pub(super) fn detailed_run(status: &TaskRunStatus) -> DetailedTask {
    let task = run_task(
        &status.record,
        &status.state,
        status.updated_at,
        status.progress.as_ref(),
    );
    let payload = match &status.state {
        TaskState::Running { .. } | TaskState::Unclaimed { .. } => TaskPayload::Working,
        TaskState::Done(RunOutcome::Ran { result, .. }) => TaskPayload::Completed {
            result: completed(result.clone()),
        },
        TaskState::Done(RunOutcome::Failed { kind, message }) if is_protocol_error(kind) => {
            TaskPayload::Failed {
                error: failed(kind, message),
            }
        }
        TaskState::Done(RunOutcome::Failed { kind, message }) => TaskPayload::Completed {
            result: tool_error(kind, message),
        },
        TaskState::Cancelled => TaskPayload::Cancelled,
    };
    DetailedTask::new(task, payload)
}

/// The `_meta` key of a running task's latest progress on `tasks/get`.
///
/// The Tasks extension (2026-07-28) has no field for progress, and says
/// `notifications/progress` "are not supported on tasks in general": a task's
/// progress is the server's own to show. Its `statusMessage` (which the
/// specification names for "progress descriptions for `working`") says it in
/// words; this key carries it as numbers, in the `notifications/progress`
/// fields, for a client that draws a bar.
pub(super) const META_PROGRESS: &str = "toolkit/progress";

/// The `_meta` of `tasks/get` for `status`: its latest progress, while it runs.
pub(super) fn run_meta(status: &TaskRunStatus) -> Option<rmcp::model::MetaObject> {
    let progress = status.progress.as_ref()?;
    let mut fields = JsonObject::new();
    fields.insert("progress".to_owned(), progress.progress.into());
    if let Some(total) = progress.total {
        fields.insert("total".to_owned(), total.into());
    }
    if let Some(message) = &progress.message {
        fields.insert("message".to_owned(), message.clone().into());
    }
    let mut meta = JsonObject::new();
    meta.insert(META_PROGRESS.to_owned(), serde_json::Value::Object(fields));
    Some(rmcp::model::MetaObject(meta))
}

/// A progress report in words: `3 of 10`, or `3`, then its message.
fn progress_text(progress: &ProgressUpdate) -> String {
    let amount = match progress.total {
        Some(total) => format!("{} of {}", progress.progress, total),
        None => progress.progress.to_string(),
    };
    match &progress.message {
        Some(message) => format!("{amount} ({message})"),
        None => amount,
    }
}

/// Whether a run that failed this way is a JSON-RPC error (the task is
/// `failed`), not the tool's own error (`completed` with `isError: true`): a
/// panic is the server's fault, which `tools/call` would have answered with
/// `-32603` had the tool run in the request.
fn is_protocol_error(kind: &str) -> bool {
    kind == "panicked"
}

/// The base task of the task `record` in `state`, with its latest `progress`.
fn run_task(
    record: &TaskRecord,
    state: &TaskState,
    updated_at: u64,
    progress: Option<&ProgressUpdate>,
) -> Task {
    let status = match state {
        TaskState::Running { .. } | TaskState::Unclaimed { .. } => TaskStatus::Working,
        TaskState::Done(RunOutcome::Failed { kind, .. }) if is_protocol_error(kind) => {
            TaskStatus::Failed
        }
        TaskState::Cancelled => TaskStatus::Cancelled,
        _ => TaskStatus::Completed,
    };
    let tool = &record.tool;
    let message = match state {
        TaskState::Running {
            attempt,
            cancelling: false,
        } => match progress {
            Some(progress) => format!(
                "`{tool}` runs now (attempt {attempt}): {}",
                progress_text(progress)
            ),
            None => format!("`{tool}` runs now (attempt {attempt})"),
        },
        TaskState::Running {
            attempt,
            cancelling: true,
        } => format!(
            "`{tool}` runs now (attempt {attempt}); it stops at its next look at the cancellation"
        ),
        TaskState::Unclaimed { attempts: 0 } => format!("`{tool}` starts now"),
        TaskState::Unclaimed { attempts } => format!(
            "attempt {attempts} of `{tool}` stopped before it answered (its server stopped); it runs again now"
        ),
        TaskState::Done(RunOutcome::Ran { .. }) => format!("`{tool}` ran"),
        TaskState::Done(RunOutcome::Failed { message, .. }) => {
            format!("`{tool}` failed: {message}")
        }
        TaskState::Cancelled => format!("`{tool}` was cancelled"),
    };
    Task::new(
        record.id.clone(),
        status,
        timestamp(record.created_at),
        timestamp(updated_at.max(record.created_at)),
    )
    .with_status_message(message)
    .with_ttl_ms(
        record
            .expires_at
            .saturating_sub(record.created_at)
            .saturating_mul(1000),
    )
    .with_poll_interval_ms(POLL_RUNNING_MS)
}

/// The task `task_id` of the grant's principal, when its view reaches it, and
/// its approvals.
pub(super) async fn find_run<'g>(
    grant: &'g Grant,
    task_id: &str,
) -> Result<Option<(&'g Approvals, TaskRunStatus)>, rmcp::ErrorData> {
    let Some((approvals, principal)) = approvals_of(grant.tools()) else {
        return Ok(None);
    };
    match approvals.task(principal, task_id).await {
        Ok(status) => Ok(status
            .filter(|status| grant.tools().reaches_task(&status.record))
            .map(|status| (approvals, status))),
        Err(error) => {
            tracing::warn!(%error, "a task could not be read from the approval store");
            Err(rmcp::ErrorData::internal_error(
                ToolError::from(error).to_string(),
                None,
            ))
        }
    }
}

/// Runs the task `record` in the background, through the grant's tools and
/// context: the client polls its outcome, which the store keeps, so nothing
/// waits for this. Another run holding it, or its end, make this run nothing.
/// `created`: this process just created it, and holds its first attempt
/// ([`Approvals::run_created_task`]); otherwise it is taken over
/// ([`Approvals::run_task`]).
///
/// Its tool's [`Ask`](super::Ask) (for a client that `declared` what it asks)
/// waits for each answer: its question is kept in the store, where `tasks/get`
/// on any replica shows it (`input_required`) and `tasks/update` keeps the
/// answer, which this run brings to the tool. A run taken over after its
/// replica died asks again from the top and finds the answers given.
pub(super) fn run_in_background(
    mut grant: Grant,
    record: TaskRecord,
    declared: super::ask::Declared,
    created: bool,
) {
    let questions = std::sync::Arc::new(super::ask::TaskQuestions::default());
    grant.context_mut().insert(super::Ask::task(
        std::sync::Arc::clone(&questions),
        declared,
    ));
    tokio::spawn(async move {
        // The tool's progress is kept with the task (`tasks/get` shows it), not
        // sent to the request that made it, which has ended.
        let Some(progress) =
            approvals_of(grant.tools()).map(|(approvals, _)| approvals.task_progress(&record))
        else {
            return;
        };
        grant.context_mut().insert(progress);
        let Some((approvals, _)) = approvals_of(grant.tools()) else {
            return;
        };
        let arguments = record.arguments.to_string();
        let call = || async {
            let call = std::pin::pin!(grant.tools().call(
                &record.tool,
                &arguments,
                grant.context()
            ));
            let relay = std::pin::pin!(relay(
                approvals,
                crate::approval::Asker::task(&record),
                &questions
            ));
            match futures_util::future::select(call, relay).await {
                futures_util::future::Either::Left((response, _)) => response,
                futures_util::future::Either::Right((never, _)) => match never {},
            }
        };
        let outcome = if created {
            approvals.run_created_task(&record, call).await
        } else {
            approvals.run_task(&record, call).await
        };
        tracing::debug!(task = %record.id, ran = outcome.is_some(), "a task's run ended here");
    });
}

/// How often a task's run keeps its tool's new questions and looks for their
/// answers in the store.
const RELAY_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// Keeps the questions of the task's tool (or of an approved call's, kept as
/// a task: `asker`) in the store and brings their answers back, until the run
/// ends (never returns).
async fn relay(
    approvals: &Approvals,
    asker: crate::approval::Asker<'_>,
    questions: &super::ask::TaskQuestions,
) -> std::convert::Infallible {
    loop {
        for (key, request) in questions.take_new() {
            if let Err(error) = approvals.ask_of(asker, &key, &request).await {
                tracing::warn!(%error, "a task's question could not be kept");
            }
        }
        for key in questions.waiting() {
            match approvals.answer_to(asker, &key).await {
                Ok(Some(answer)) => questions.deliver(&key, answer),
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(%error, "a task's answer could not be read");
                }
            }
        }
        tokio::time::sleep(RELAY_POLL).await;
    }
}

/// The questions the task's tool waits on now: the requests without an
/// answer, for a run that holds the task; `None` when it waits on none.
pub(super) async fn waiting_on(
    approvals: &Approvals,
    status: &TaskRunStatus,
) -> Result<Option<InputRequests>, rmcp::ErrorData> {
    if !matches!(status.state, TaskState::Running { .. }) {
        return Ok(None);
    }
    unanswered(approvals, &status.record.principal, &status.record.id).await
}

/// The questions the approved run of a call kept as a task waits on now
/// ([`in_background`]); `None` when it waits on none, or does not run.
pub(super) async fn call_waiting_on(
    approvals: &Approvals,
    status: &CallStatus,
) -> Result<Option<InputRequests>, rmcp::ErrorData> {
    if !matches!(status.state, CallState::Running { .. }) {
        return Ok(None);
    }
    unanswered(
        approvals,
        &status.pending.principal,
        &status.pending.call_id,
    )
    .await
}

/// The requests of the task (or call) `id` of `principal` without an answer.
async fn unanswered(
    approvals: &Approvals,
    principal: &crate::principal::Principal,
    id: &str,
) -> Result<Option<InputRequests>, rmcp::ErrorData> {
    let requests = approvals
        .task_requests(principal, id)
        .await
        .map_err(|error| {
            tracing::warn!(%error, "a task's questions could not be read");
            rmcp::ErrorData::internal_error(ToolError::from(error).to_string(), None)
        })?;
    let waiting: InputRequests = requests
        .into_iter()
        .filter(|request| request.answer.is_none())
        .filter_map(|request| {
            serde_json::from_value::<InputRequest>(request.request)
                .ok()
                .map(|input| (request.key, input))
        })
        .collect();
    Ok((!waiting.is_empty()).then_some(waiting))
}

/// The task `task` of `tool` while its tool waits on the questions `waiting`:
/// `input_required`, listing them.
pub(super) fn asking(task: DetailedTask, tool: &str, waiting: InputRequests) -> DetailedTask {
    let keys: Vec<String> = waiting.keys().map(|key| format!("`{key}`")).collect();
    let message = format!(
        "`{tool}` waits for the client's answer to {}",
        keys.join(", ")
    );
    DetailedTask::new(
        task.task.with_status_message(message),
        TaskPayload::InputRequired {
            input_requests: waiting,
        },
    )
}

/// One pass of the task runner for an MCP server's tasks:
/// [`Approvals::run_tasks`], with each run's tool able to [`Ask`](super::Ask)
/// its client as it could in the replica that died.
///
/// A task whose replica died mid-run is run again from the top by whichever
/// replica's pass (or client's `tasks/get`) claims it first. Its tool's
/// questions are kept in the store, where `tasks/get` on any replica shows them
/// and `tasks/update` answers them; answers given to the first attempt are found
/// again. The pass cannot know what the task's client declared (that travels
/// with each request), so its tool is told the client takes every kind of
/// request ([`Ask::can_elicit`](super::Ask::can_elicit) and the rest are
/// `true`): a question the client cannot answer leaves the task
/// `input_required` until it is cancelled or expires.
///
/// Call it where a replica calls [`Approvals::run_decided`], every few seconds,
/// with the view and context the task's principal has now.
///
/// # Errors
/// As [`Approvals::run_tasks`].
pub async fn run_tasks<'r, V, F>(
    approvals: &Approvals,
    mut run_as: F,
) -> Result<crate::approval::TaskPass, crate::approval::ApprovalError>
where
    V: crate::approval::ApprovalView<'r>,
    F: FnMut(&TaskRecord) -> Result<(V, crate::context::Context), String>,
{
    use futures_util::StreamExt as _;
    type Relay<'a> = std::pin::Pin<Box<dyn Future<Output = std::convert::Infallible> + Send + 'a>>;
    let relays: std::sync::Mutex<futures_util::stream::FuturesUnordered<Relay<'_>>> =
        std::sync::Mutex::default();
    let pass = approvals.run_tasks(|record| {
        let (view, mut ctx) = run_as(record)?;
        let questions = std::sync::Arc::new(super::ask::TaskQuestions::default());
        ctx.insert(super::Ask::task(
            std::sync::Arc::clone(&questions),
            super::ask::Declared::ALL,
        ));
        let record = record.clone();
        let relay: Relay<'_> = Box::pin(async move {
            relay(approvals, crate::approval::Asker::task(&record), &questions).await
        });
        relays
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(relay);
        Ok((view, ctx))
    });
    let mut pass = std::pin::pin!(pass);
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(outcome) = pass.as_mut().poll(cx) {
            return std::task::Poll::Ready(outcome);
        }
        let mut relays = relays
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match relays.poll_next_unpin(cx) {
            std::task::Poll::Ready(Some(never)) => match never {},
            std::task::Poll::Ready(None) | std::task::Poll::Pending => std::task::Poll::Pending,
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::detailed;
    use crate::approval::{CallState, CallStatus, PendingApproval};

    fn status(state: CallState) -> serde_json::Value {
        let pending = PendingApproval {
            call_id: "approval_1".to_owned(),
            principal: crate::principal::Principal::local("internal").unwrap(),
            view: None,
            tool: "create_transfers".to_owned(),
            arguments: json!({"reference": "r1"}),
            digest: String::new(),
            requested_at: 1_800_000_000,
            expires_at: 1_800_086_400,
            signature: String::new(),
        };
        let task = detailed(&CallStatus {
            pending,
            state,
            updated_at: 1_800_000_100,
            kept_until: 1_800_087_300,
        });
        let mut task = serde_json::to_value(task).unwrap();
        let task = task.as_object_mut().unwrap();
        for key in ["taskId", "createdAt", "lastUpdatedAt", "ttlMs"] {
            task.remove(key);
        }
        serde_json::Value::Object(task.clone())
    }

    /// A tool that failed is tried again: the task works on, and says which attempt
    /// failed, how, when it is tried next and until when; a retry that runs says how the
    /// earlier attempt failed.
    #[test]
    fn a_failed_attempt_tried_again_is_working_and_says_so() {
        assert_eq!(
            status(CallState::Retrying {
                attempt: 2,
                error: "the ledger is down".to_owned(),
                next_attempt_at: 1_800_000_140,
                next_attempt_in: 40,
                until: 1_800_001_000,
            }),
            json!({
                "status": "working",
                "statusMessage": "attempt 2 of `create_transfers` failed (the ledger is down); next \
                                  attempt in 40 s; it is tried again until 2027-01-15T08:16:40Z, \
                                  while its approval is valid",
                "pollIntervalMs": 5000,
            })
        );
        assert_eq!(
            status(CallState::Running {
                attempt: 3,
                last_error: Some("the ledger is down".to_owned()),
            }),
            json!({
                "status": "working",
                "statusMessage": "`create_transfers` runs again now (attempt 3); an earlier attempt \
                                  failed (the ledger is down)",
                "pollIntervalMs": 1000,
            })
        );
    }

    /// Not tried again once its approval expired: the task completes with the
    /// tool's error as `tools/call` answers it (`isError: true`), not `failed`,
    /// which the specification keeps for JSON-RPC errors.
    #[test]
    fn a_tool_that_failed_for_good_completes_with_its_error() {
        assert_eq!(
            status(CallState::Failed {
                attempt: 3,
                kind: "failed".to_owned(),
                message: "the ledger is down".to_owned(),
            }),
            json!({
                "status": "completed",
                "statusMessage": "attempt 3 of `create_transfers` failed (the ledger is down), and \
                                  its approval expired before another attempt: it is not tried again",
                "pollIntervalMs": 1000,
                "result": {
                    "resultType": "complete",
                    "content": [{"type": "text", "text": "the ledger is down"}],
                    "isError": true,
                    "_meta": {"toolkit/error": {"kind": "failed", "message": "the ledger is down"}},
                },
            })
        );
    }
}
