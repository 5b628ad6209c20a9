//! A tool asks the client for input in the middle of its call: its user
//! (elicitation, a form), its model (sampling) or its roots (`roots/list`).
//!
//! Take an [`Ask`] as a `#[ctx]` parameter and await what it asks; each request
//! has a key of the tool's choosing, which names its answer:
//!
//! ```
//! use toolkit::mcp::{Ask, Elicitation};
//! use toolkit::{ToolError, tool};
//!
//! /// What the user wants deleted.
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Confirm {
//!     /// Whether to delete it.
//!     confirm: bool,
//! }
//!
//! /// Deletes a file once its user confirms.
//! #[tool(scope = shared, tier = auto)]
//! async fn delete_file(
//!     /// The file.
//!     filename: String,
//!     #[ctx] ask: Ask,
//! ) -> Result<String, ToolError> {
//!     let message = format!("Delete {filename}?");
//!     match ask.elicit::<Confirm>("confirm", message).await? {
//!         Elicitation::Accept(Confirm { confirm: true }) => Ok(format!("deleted {filename}")),
//!         _ => Ok(format!("kept {filename}")),
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! How the question reaches the client depends on its revision, not on the tool:
//!
//! - **2026-07-28** (stateless, "multi round-trip requests"): the call is
//!   answered with an `InputRequiredResult` (`resultType: "input_required"`),
//!   its `inputRequests` keyed by the tool's keys, and a `requestState` sealed
//!   with the server's request-state key
//!   ([`McpServer::approvals`](super::McpServer::approvals), HMAC-SHA256 by
//!   rmcp's codec). The client retries the call with its `inputResponses` and
//!   that state; the tool runs again **from the top**, and every request it makes
//!   whose answer has come (in this retry, or in an earlier round, kept in the
//!   sealed state) is answered at once. So a tool that asks is re-run once per
//!   round: what it does before its last question must be safe to do again (ask
//!   first, act after). Any replica with the same key answers a retry: nothing
//!   is kept in memory between rounds. A state altered by the client, or made
//!   for another caller, tool or arguments, is refused (`-32602`).
//! - **2025-11-25** (a session over stdio or HTTP): each request is sent to the
//!   client (`elicitation/create`, `sampling/createMessage`, `roots/list`) and
//!   awaited in the call.
//! - **A task** (`#[tool(task = optional)]`, a client that declared the Tasks
//!   extension): the tool waits for its answer while the task is
//!   `input_required`; `tasks/get` on any replica lists the questions without an
//!   answer (`inputRequests`), `tasks/update` keeps the answers in the approval
//!   store ([`Approvals::ask_task`](crate::approval::Approvals::ask_task)), and
//!   the run brings each to the tool within a quarter second. Answered one at a
//!   time, a task stays `input_required` until its tool has every answer it
//!   waits on. A run taken over after its replica died runs the tool again from
//!   the top, and finds the answers given before. An answer that does not fit
//!   completes the task with the tool's error.
//! - **Questions first, then a task** (`#[tool(task = required, asks_first)]`
//!   or `task = optional, asks_first`, a 2026-07-28 client that declared the
//!   Tasks extension): the call is asked in input-required rounds, as above,
//!   until the tool calls [`Ask::ready`] with every question answered; that
//!   round's answer is the task's handle (`resultType: "task"`, no
//!   `requestState`). The task keeps the answers gathered as its answered
//!   questions and runs the tool again from the top, where they are answered at
//!   once and `ready` returns `Ok(())`. The server must know before the first
//!   round that a call asks first (else a task would start at once, or every
//!   task tool would run in its request until it says so): hence the
//!   declaration on the tool, and `ready` to mark where in it the work begins.
//! - **An `approve` tool** asks once its call is approved, in the same call:
//!   on 2026-07-28 the retry that approves is answered with the tool's
//!   question, its `requestState` carrying the approved call, and the next
//!   round runs it again as approved, with the answer; on a 2025-11-25 session
//!   the approval and the question are both elicitations in the call; as a
//!   task, the approved run waits `input_required` as a task's tool does. A
//!   round's unanswered question ends the run with
//!   [`ToolError::AwaitingInput`], which no approval runner runs again: the
//!   requester's next round does.
//! - Stateless HTTP of an earlier revision carries no answer back: a request
//!   fails with the tool's error, and `can_*` say `false`.
//!
//! Several requests in one round: create them before awaiting any, for example
//! with `futures::try_join!(ask.elicit(..), ask.sample(..))`; a request is made
//! when it is created, so all of them are in the round (or sent at once). Awaited
//! one after the other, each is a round of its own.
//!
//! The rules, the same on every revision:
//! - a request of a kind the client did not declare (`elicitation`, `sampling`,
//!   `roots`) fails the call with `-32021` (missing required client capability),
//!   `data.requiredCapabilities` naming it; check [`Ask::can_elicit`] and the
//!   like first to ask only what the client can answer;
//! - an answer that does not fit (a form that is not `T`, a sampling result that
//!   is none) fails the call with `-32602`, saying which request and why;
//! - a request without its answer in a retry is asked again;
//! - at most [`MAX_REQUESTS`] requests a round, [`MAX_ROUNDS`] rounds, and
//!   [`MAX_ANSWER_BYTES`] of answers kept between rounds.
//!
//! Outside MCP (a model's tool call dispatched by the application) there is no
//! `Ask`: take `Option<Ask>` in a tool also called there.

// Sampling and roots are deprecated in rmcp for the 2026-07-28 revision
// (SEP-2577), whose input requests still carry them; clients answer them.
#![allow(deprecated)]

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, InputRequest, InputRequests, ListRootsResult,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::McpRequest;
use crate::context::{Context, FromContext};
use crate::error::ToolError;

/// The most requests one round asks.
pub const MAX_REQUESTS: usize = 16;
/// The most rounds one call takes.
pub const MAX_ROUNDS: u32 = 16;
/// The most bytes of answers (as JSON text) kept in the sealed state between
/// rounds.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// The longest key of a request.
const MAX_KEY: usize = 64;

/// A user's answer to a form ([`Ask::elicit`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user filled the form in and submitted it.
    Accept(T),
    /// The user declined.
    Decline,
    /// The user dismissed the form without choosing.
    Cancel,
}

impl<T> Elicitation<T> {
    /// The form's content if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accept(value) => Some(value),
            Elicitation::Decline | Elicitation::Cancel => None,
        }
    }
}

/// A kind of request a client declares it answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Capability {
    Elicitation,
    Sampling,
    Roots,
}

impl Capability {
    /// The capability's key in `ClientCapabilities`.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Capability::Elicitation => "elicitation",
            Capability::Sampling => "sampling",
            Capability::Roots => "roots",
        }
    }
}

/// Which kinds of request the client declared.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Declared {
    pub(crate) elicitation: bool,
    pub(crate) sampling: bool,
    pub(crate) roots: bool,
}

impl Declared {
    /// Every kind of request: for a run whose client's declaration is not at
    /// hand (a task resumed by the runner pass, [`super::run_tasks`]).
    pub(crate) const ALL: Self = Declared {
        elicitation: true,
        sampling: true,
        roots: true,
    };

    /// What `capabilities` declare.
    pub(crate) fn of(capabilities: Option<&rmcp::model::ClientCapabilities>) -> Self {
        capabilities.map_or_else(Self::default, |capabilities| Declared {
            elicitation: capabilities.elicitation.is_some(),
            sampling: capabilities.sampling.is_some(),
            roots: capabilities.roots.is_some(),
        })
    }

    fn has(self, capability: Capability) -> bool {
        match capability {
            Capability::Elicitation => self.elicitation,
            Capability::Sampling => self.sampling,
            Capability::Roots => self.roots,
        }
    }
}

/// Why a call that asked fails as a protocol error, not with the tool's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The client did not declare the capability a request needs (`-32021`).
    Missing(Capability),
    /// An answer does not fit its request, or the call asked too much (`-32602`).
    Invalid(String),
}

/// How the requests reach the client.
enum Mode {
    /// Sent in the call over the session (2025-11-25).
    Session(McpRequest),
    /// Answered in rounds (2026-07-28): the answers this run has, and whether
    /// the call becomes a task once the tool is [ready](Ask::ready).
    Rounds {
        answers: BTreeMap<String, Value>,
        then_task: bool,
    },
    /// Answered through the store, while a task's run waits
    /// ([`TaskQuestions`]).
    Task(Arc<TaskQuestions>),
    /// Not at all, for this reason.
    Closed(&'static str),
}

/// The questions a task's tool asks and the answers that came, between its
/// [`Ask`] and the task's runner, which keeps both in the store
/// ([`Approvals::ask_task`](crate::approval::Approvals::ask_task)): the tool
/// waits for its answer while its task is `input_required`.
#[derive(Default)]
pub(crate) struct TaskQuestions {
    state: Mutex<Questions>,
}

#[derive(Default)]
struct Questions {
    /// Asked and not yet kept in the store.
    new: Vec<(String, Value)>,
    /// Asked and not answered yet.
    waiting: std::collections::BTreeSet<String>,
    /// The answers that came, by key.
    answers: BTreeMap<String, Value>,
}

impl TaskQuestions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Questions> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The answer to `key`, if it came.
    fn answer(&self, key: &str) -> Option<Value> {
        self.lock().answers.get(key).cloned()
    }

    /// Asks `request` under `key` (once).
    fn ask(&self, key: &str, request: Value) {
        let mut questions = self.lock();
        if questions.waiting.insert(key.to_owned()) {
            questions.new.push((key.to_owned(), request));
        }
    }

    /// The questions asked since the last call, for the store.
    pub(crate) fn take_new(&self) -> Vec<(String, Value)> {
        std::mem::take(&mut self.lock().new)
    }

    /// The keys of the questions waiting for an answer.
    pub(crate) fn waiting(&self) -> Vec<String> {
        self.lock().waiting.iter().cloned().collect()
    }

    /// Hands the answer to `key` to the tool waiting for it.
    pub(crate) fn deliver(&self, key: &str, answer: Value) {
        let mut questions = self.lock();
        questions.waiting.remove(key);
        questions.answers.insert(key.to_owned(), answer);
    }
}

/// How often a task's tool looks for its answer.
const TASK_ANSWER_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// What one run of the tool asked.
#[derive(Default)]
pub(crate) struct Round {
    /// The requests without an answer yet, by key.
    pub(crate) asked: InputRequests,
    /// The answers the run used, by key: kept for the next round.
    pub(crate) used: BTreeMap<String, Value>,
    /// Why the call fails, if it does.
    pub(crate) refused: Option<Refusal>,
    /// The answered requests of a call that becomes a task: the tool said it
    /// is [ready](Ask::ready), every request answered. By key: the request and
    /// its answer, for the task's store.
    pub(crate) ready: Option<BTreeMap<String, (Value, Value)>>,
    /// The requests this run had answers for, by key.
    answered: BTreeMap<String, Value>,
}

/// The client of an MCP call, asked for input mid-call: a `#[ctx] ask: Ask`
/// parameter (or `Option<Ask>` for a tool also called outside MCP). See the
/// [module](self) for how each protocol revision carries the questions.
///
/// Cheap to clone; clones share the call's round.
#[derive(Clone)]
pub struct Ask {
    inner: Arc<Inner>,
}

struct Inner {
    mode: Mode,
    declared: Declared,
    round: Mutex<Round>,
}

impl Ask {
    /// An `Ask` that sends its requests over the session of `request`.
    pub(crate) fn session(request: McpRequest, declared: Declared) -> Self {
        Self::with(Mode::Session(request), declared)
    }

    /// An `Ask` answered in rounds, with the answers the retry brought; with
    /// `then_task`, the call becomes a task once the tool is
    /// [ready](Ask::ready).
    pub(crate) fn rounds(
        answers: BTreeMap<String, Value>,
        then_task: bool,
        declared: Declared,
    ) -> Self {
        Self::with(Mode::Rounds { answers, then_task }, declared)
    }

    /// An `Ask` of a task's run, answered through the store.
    pub(crate) fn task(questions: Arc<TaskQuestions>, declared: Declared) -> Self {
        Self::with(Mode::Task(questions), declared)
    }

    /// An `Ask` that can't reach the client, for `reason`.
    pub(crate) fn closed(reason: &'static str, declared: Declared) -> Self {
        Self::with(Mode::Closed(reason), declared)
    }

    fn with(mode: Mode, declared: Declared) -> Self {
        Ask {
            inner: Arc::new(Inner {
                mode,
                declared,
                round: Mutex::default(),
            }),
        }
    }

    /// Whether the client declared it answers forms (`elicitation`).
    #[must_use]
    pub fn can_elicit(&self) -> bool {
        self.inner.declared.elicitation && self.is_open()
    }

    /// Whether the client declared it answers with its model (`sampling`).
    #[must_use]
    pub fn can_sample(&self) -> bool {
        self.inner.declared.sampling && self.is_open()
    }

    /// Whether the client declared it lists its roots (`roots`).
    #[must_use]
    pub fn can_list_roots(&self) -> bool {
        self.inner.declared.roots && self.is_open()
    }

    fn is_open(&self) -> bool {
        !matches!(self.inner.mode, Mode::Closed(_))
    }

    /// Asks the user to fill in a form of `T`'s fields (its `schemars` schema: a
    /// flat object of strings, numbers, booleans and enums, as elicitation
    /// allows), saying `message`. `key` names the request and its answer (ASCII
    /// letters, digits, `_`, `-`, `.`; at most 64).
    ///
    /// The request is made when this is called, before it is awaited.
    pub fn elicit<T>(
        &self,
        key: &str,
        message: impl Into<String>,
    ) -> impl Future<Output = Result<Elicitation<T>, ToolError>> + Send + 'static
    where
        T: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    {
        let made = ElicitationSchema::from_type::<T>()
            .map_err(|error| {
                ToolError::failed(format!(
                    "the form of `{key}` is not one elicitation can ask (a flat object of \
                     strings, numbers, booleans and enums): {error}"
                ))
            })
            .map(|mut schema| {
                // The dialect is the protocol's; the type's name means nothing to
                // a user.
                schema.schema = None;
                schema.title = None;
                ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message: message.into(),
                    requested_schema: schema,
                }
            });
        let step = made.and_then(|params| {
            let request =
                InputRequest::Elicitation(rmcp::model::ElicitRequest::new(params.clone()));
            self.request(
                key,
                Capability::Elicitation,
                request,
                Outgoing::Elicit(params),
            )
        });
        self.answer(key, step, elicitation::<T>)
    }

    /// Asks the client's model for a message (`sampling/createMessage`).
    ///
    /// The request is made when this is called, before it is awaited.
    pub fn sample(
        &self,
        key: &str,
        params: CreateMessageRequestParams,
    ) -> impl Future<Output = Result<CreateMessageResult, ToolError>> + Send + 'static {
        let request =
            InputRequest::CreateMessage(rmcp::model::CreateMessageRequest::new(params.clone()));
        let step = self.request(key, Capability::Sampling, request, Outgoing::Sample(params));
        self.answer(key, step, |value| {
            serde_json::from_value::<CreateMessageResult>(value)
                .map_err(|error| format!("is not a sampling result: {error}"))
        })
    }

    /// Asks the client for its roots (`roots/list`).
    ///
    /// The request is made when this is called, before it is awaited.
    pub fn list_roots(
        &self,
        key: &str,
    ) -> impl Future<Output = Result<ListRootsResult, ToolError>> + Send + 'static {
        let request = InputRequest::ListRoots(rmcp::model::ListRootsRequest::default());
        let step = self.request(key, Capability::Roots, request, Outgoing::Roots);
        self.answer(key, step, |value| {
            serde_json::from_value::<ListRootsResult>(value)
                .map_err(|error| format!("is not a list of roots: {error}"))
        })
    }

    /// The answer to the request `key`, made (`step`): there already, sent
    /// and answered over the session, or waited for (a task's); then read
    /// with `parse`.
    fn answer<R>(
        &self,
        key: &str,
        step: Result<Step, ToolError>,
        parse: impl FnOnce(Value) -> Result<R, String> + Send + 'static,
    ) -> impl Future<Output = Result<R, ToolError>> + Send + 'static
    where
        R: Send + 'static,
    {
        let ask = self.clone();
        let key = key.to_owned();
        async move {
            let answer = match step? {
                Step::Answered(answer) => answer,
                Step::Send(send) => send.send().await?,
                Step::Wait(questions, key) => waited(questions, key).await,
            };
            ask.read(&key, answer, parse)
        }
    }

    /// Says that the tool's questions end here and its work begins: in a call
    /// of an `asks_first` tool (`#[tool(task = required, asks_first)]`) from a
    /// client that takes tasks, the call is asked in rounds (2026-07-28
    /// input-required results) until every question before this point has its
    /// answer, and then becomes a task: the client gets the task's handle, and
    /// the task runs the tool again from the top, its questions answered at
    /// once with the answers gathered, and this returns `Ok(())` there.
    ///
    /// Everywhere else (a tool not declared `asks_first`, a client that takes
    /// no tasks, a session of an earlier revision, a task's own run) this
    /// returns `Ok(())` at once: the rest of the call runs where it is.
    ///
    /// # Errors
    ///
    /// Where the call becomes a task, an error that ends this run of the tool
    /// (the server answers with the task, or with the next round of questions
    /// if one is still unanswered): pass it on with `?`, and do the work after.
    ///
    /// ```
    /// use toolkit::mcp::{Ask, Elicitation};
    /// use toolkit::{ToolError, tool};
    ///
    /// /// Who to greet.
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Name {
    ///     /// The user's name.
    ///     name: String,
    /// }
    ///
    /// /// Creates a long greeting for the user, as a task.
    /// #[tool(scope = shared, tier = auto, task = required, asks_first)]
    /// async fn create_greeting(#[ctx] ask: Ask) -> Result<String, ToolError> {
    ///     let name = match ask.elicit::<Name>("user_name", "Your name?").await? {
    ///         Elicitation::Accept(Name { name }) => name,
    ///         _ => return Ok("no name, no greeting".to_owned()),
    ///     };
    ///     ask.ready()?; // the questions end here: the rest runs as a task
    ///     Ok(format!("Hello, {name}!"))
    /// }
    /// # fn main() {}
    /// ```
    pub fn ready(&self) -> Result<(), ToolError> {
        let Mode::Rounds {
            then_task: true, ..
        } = &self.inner.mode
        else {
            return Ok(());
        };
        let mut round = self.round();
        if !round.asked.is_empty() || round.refused.is_some() {
            return Err(ToolError::failed(
                "the call waits for the client's answers before it becomes a task",
            ));
        }
        let mut gathered = BTreeMap::new();
        for (key, answer) in &round.used {
            if let Some(request) = round.answered.get(key) {
                gathered.insert(key.clone(), (request.clone(), answer.clone()));
            }
        }
        round.ready = Some(gathered);
        Err(ToolError::failed("the call continues as a task"))
    }

    /// The answered requests, if the tool said it is [ready](Ask::ready) to
    /// become a task (taken).
    pub(crate) fn take_ready(&self) -> Option<BTreeMap<String, (Value, Value)>> {
        self.round().ready.take()
    }

    /// Whether the tool said it is [ready](Ask::ready) to become a task.
    pub(crate) fn is_ready(&self) -> bool {
        self.round().ready.is_some()
    }

    /// Makes the request `key`: checks it, then answers it from this run's
    /// answers, records it for the round, or readies it to be sent.
    fn request(
        &self,
        key: &str,
        capability: Capability,
        request: InputRequest,
        send: Outgoing,
    ) -> Result<Step, ToolError> {
        if key.is_empty()
            || key.len() > MAX_KEY
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            return Err(ToolError::failed(format!(
                "the key of a request to the client is 1 to {MAX_KEY} ASCII letters, digits, \
                 `_`, `-` or `.`; `{}` is not",
                crate::echo::echo(key)
            )));
        }
        match &self.inner.mode {
            Mode::Closed(reason) => return Err(ToolError::failed(*reason)),
            _ if !self.inner.declared.has(capability) => {
                return Err(self.refuse(Refusal::Missing(capability)));
            }
            Mode::Session(request) => {
                return Ok(Step::Send(Box::new(Sending {
                    request: request.clone(),
                    send,
                })));
            }
            Mode::Rounds { answers, .. } => {
                if let Some(answer) = answers.get(key) {
                    if let Ok(request) = serde_json::to_value(&request) {
                        self.round().answered.insert(key.to_owned(), request);
                    }
                    return Ok(Step::Answered(answer.clone()));
                }
            }
            Mode::Task(questions) => {
                if let Some(answer) = questions.answer(key) {
                    return Ok(Step::Answered(answer));
                }
                let request = serde_json::to_value(&request)
                    .map_err(|error| ToolError::failed(error.to_string()))?;
                questions.ask(key, request);
                return Ok(Step::Wait(Arc::clone(questions), key.to_owned()));
            }
        }
        let mut round = self.round();
        if round.asked.len() >= MAX_REQUESTS && !round.asked.contains_key(key) {
            drop(round);
            return Err(self.refuse(Refusal::Invalid(format!(
                "the tool asked the client more than {MAX_REQUESTS} requests in one round"
            ))));
        }
        round.asked.insert(key.to_owned(), request);
        Err(ToolError::AwaitingInput {
            key: key.to_owned(),
        })
    }

    /// Reads the answer to `key` with `parse`; an answer that does not fit
    /// fails the call (`-32602`).
    fn read<R>(
        &self,
        key: &str,
        answer: Value,
        parse: impl FnOnce(Value) -> Result<R, String>,
    ) -> Result<R, ToolError> {
        match parse(answer.clone()) {
            Ok(read) => {
                self.round().used.insert(key.to_owned(), answer);
                Ok(read)
            }
            Err(problem) => Err(self.refuse(Refusal::Invalid(format!(
                "the answer to the input request `{key}` {problem}"
            )))),
        }
    }

    /// Records why the call fails (the first reason stays), as the tool's error
    /// too.
    fn refuse(&self, refusal: Refusal) -> ToolError {
        let message = match &refusal {
            Refusal::Missing(capability) => format!(
                "the client did not declare the `{}` capability this tool needs",
                capability.key()
            ),
            Refusal::Invalid(message) => message.clone(),
        };
        self.round().refused.get_or_insert(refusal);
        ToolError::failed(message)
    }

    fn round(&self) -> std::sync::MutexGuard<'_, Round> {
        self.inner
            .round
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// What the run asked, taken (the server's, once the tool answered).
    pub(crate) fn take_round(&self) -> Round {
        std::mem::take(&mut *self.round())
    }
}

/// A made request's next step.
enum Step {
    /// Its answer is there.
    Answered(Value),
    /// It goes to the client over the session.
    Send(Box<Sending>),
    /// A task's runner brings its answer.
    Wait(Arc<TaskQuestions>, String),
}

/// The answer to a task's question `key`, once it came.
async fn waited(questions: Arc<TaskQuestions>, key: String) -> Value {
    loop {
        if let Some(answer) = questions.answer(&key) {
            return answer;
        }
        tokio::time::sleep(TASK_ANSWER_POLL).await;
    }
}

/// A request to send over the session.
enum Outgoing {
    Elicit(ElicitRequestParams),
    Sample(CreateMessageRequestParams),
    Roots,
}

struct Sending {
    request: McpRequest,
    send: Outgoing,
}

impl Sending {
    /// Sends the request and awaits the client's answer, as JSON.
    #[allow(deprecated)] // sampling: deprecated for 2026-07-28, part of 2025-11-25
    async fn send(self) -> Result<Value, ToolError> {
        let peer = &self.request.peer;
        let no_answer = |error: rmcp::ServiceError| {
            ToolError::failed(format!("the client did not answer: {error}"))
        };
        let answer = match self.send {
            Outgoing::Elicit(params) => {
                serde_json::to_value(peer.create_elicitation(params).await.map_err(no_answer)?)
            }
            Outgoing::Sample(params) => {
                serde_json::to_value(peer.create_message(params).await.map_err(no_answer)?)
            }
            Outgoing::Roots => serde_json::to_value(peer.list_roots().await.map_err(no_answer)?),
        };
        answer.map_err(|error| ToolError::failed(error.to_string()))
    }
}

/// An elicitation answer as `T`.
fn elicitation<T: DeserializeOwned>(value: Value) -> Result<Elicitation<T>, String> {
    let answer: ElicitResult = serde_json::from_value(value)
        .map_err(|error| format!("is not an elicitation result: {error}"))?;
    match answer.action {
        ElicitationAction::Accept => {
            let content = answer.content.unwrap_or(Value::Null);
            serde_json::from_value(content)
                .map(Elicitation::Accept)
                .map_err(|error| format!("does not fit the requested form: {error}"))
        }
        ElicitationAction::Decline => Ok(Elicitation::Decline),
        ElicitationAction::Cancel => Ok(Elicitation::Cancel),
        _ => Err("has an action this server does not know".to_owned()),
    }
}

/// The `Ask` the MCP server put in the context; missing outside MCP.
#[diagnostic::do_not_recommend]
impl FromContext for Ask {
    type Binding = crate::binding::BoundToNothing;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.require::<Ask>().cloned()
    }

    fn from_context_if_present(ctx: &Context) -> Result<Option<Self>, ToolError> {
        Ok(ctx.get::<Ask>().cloned())
    }
}

impl std::fmt::Debug for Ask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match &self.inner.mode {
            Mode::Session(_) => "session",
            Mode::Rounds { .. } => "rounds",
            Mode::Task(_) => "task",
            Mode::Closed(_) => "closed",
        };
        f.debug_struct("Ask")
            .field("mode", &mode)
            .finish_non_exhaustive()
    }
}
