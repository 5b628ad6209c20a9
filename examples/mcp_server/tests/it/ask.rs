//! A tool that asks its client for input mid-call (`toolkit::mcp::Ask`), against
//! the conformance server's fixtures, on the wire:
//! - a 2026-07-28 request gets an `InputRequiredResult`; the retry with the
//!   answers and the sealed `requestState` gets the result, on any replica
//!   holding the same key; a state changed by the client, or sealed for another
//!   tool, is refused; an answer that does not fit is refused; a retry without
//!   the answer is asked again; a capability the client did not declare is
//!   `-32021`;
//! - a 2025-11-25 session gets the same question as a real
//!   `elicitation/create` request in the call.

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ClientServiceExt as _, ErrorData, RoleClient};
use serde_json::{Value, json};

use crate::common::conformance::{
    Server, call, result_and_state, rpc, serve as serve_with, untimed,
};

/// A conformance server sealing request states with `key` (a random one if
/// `None`).
fn serve(key: Option<&str>) -> Server {
    let env: Vec<(&str, &str)> = key
        .map(|key| ("MCP_CONFORMANCE_STATE_KEY", key))
        .into_iter()
        .collect();
    serve_with(&env)
}

/// The capabilities the suite's client declares.
fn everything() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {"listChanged": true}})
}

fn name_form(message: &str, key: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "description": "A name the user gives.",
                "properties": {key: {"type": "string", "description": format!("The {key}.")}},
                "required": [key],
            },
        },
    })
}

fn accept(content: Value) -> Value {
    let mut answer = json!({"action": "accept"});
    answer["content"] = content;
    answer
}

fn text(text: &str) -> Value {
    json!({"resultType": "complete", "content": [{"type": "text", "text": text}], "isError": false})
}

/// Round 1 asks (exact wire form), round 2 answers with the state and gets the
/// result; the answer without the state is taken too (the client's own word),
/// and extra answers are ignored.
#[tokio::test]
async fn a_tool_asks_mid_call_and_its_retry_gets_the_result() {
    let server = serve(None);
    let (status, asked) = call(
        &server.1,
        "test_input_required_result_elicitation",
        json!({}),
        everything(),
    )
    .await;
    assert_eq!(status, 200);
    let (result, state) = result_and_state(&asked);
    assert_eq!(
        result,
        json!({
            "resultType": "input_required",
            "inputRequests": {"user_name": name_form("What is your name?", "name")},
        })
    );
    let state = state.expect("a sealed requestState");
    let (_, answered) = call(
        &server.1,
        "test_input_required_result_elicitation",
        json!({"inputResponses": {"user_name": accept(json!({"name": "Alice"}))}, "requestState": state}),
        everything(),
    )
    .await;
    assert_eq!(answered["result"], text("Hello, Alice!"));
    let (_, unsealed) = call(
        &server.1,
        "test_input_required_result_elicitation",
        json!({"inputResponses": {
            "user_name": accept(json!({"name": "Bob"})),
            "unknown_extra_key": accept(json!({"foo": "bar"})),
        }}),
        everything(),
    )
    .await;
    assert_eq!(unsealed["result"], text("Hello, Bob!"));
}

/// Two rounds: the second asks only its own question, with a new state that
/// keeps the first answer, which the client does not send again.
#[tokio::test]
async fn a_tool_asks_in_several_rounds_and_keeps_earlier_answers_sealed() {
    let server = serve(None);
    let tool = "test_input_required_result_multi_round";
    let (_, first) = call(&server.1, tool, json!({}), everything()).await;
    let (result, state1) = result_and_state(&first);
    assert_eq!(
        result["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["step1"]
    );
    let (_, second) = call(
        &server.1,
        tool,
        json!({"inputResponses": {"step1": accept(json!({"name": "Alice"}))}, "requestState": state1}),
        everything(),
    )
    .await;
    let (result, state2) = result_and_state(&second);
    assert_eq!(
        result["inputRequests"]["step2"]["params"]["message"],
        "Step 2: What is your favorite color?"
    );
    assert_eq!(result["inputRequests"].as_object().unwrap().len(), 1);
    assert_ne!(state1, state2);
    let (_, done) = call(
        &server.1,
        tool,
        json!({"inputResponses": {"step2": accept(json!({"color": "blue"}))}, "requestState": state2}),
        everything(),
    )
    .await;
    assert_eq!(done["result"], text("Alice likes blue"));
}

/// Several requests of different kinds in one round, answered together.
#[tokio::test]
async fn a_round_asks_the_user_the_model_and_the_roots_at_once() {
    let server = serve(None);
    let tool = "test_input_required_result_multiple_inputs";
    let (_, asked) = call(&server.1, tool, json!({}), everything()).await;
    let (result, state) = result_and_state(&asked);
    let methods: Vec<(&String, &Value)> = result["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(key, request)| (key, &request["method"]))
        .collect();
    assert_eq!(
        methods,
        [
            (&"client_roots".to_owned(), &json!("roots/list")),
            (&"greeting".to_owned(), &json!("sampling/createMessage")),
            (&"user_name".to_owned(), &json!("elicitation/create")),
        ]
    );
    assert_eq!(
        result["inputRequests"]["greeting"]["params"],
        json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}],
            "maxTokens": 50,
        })
    );
    let (_, done) = call(
        &server.1,
        tool,
        json!({
            "inputResponses": {
                "user_name": accept(json!({"name": "Alice"})),
                "greeting": {"role": "assistant", "content": {"type": "text", "text": "Hello there!"},
                             "model": "test-model", "stopReason": "endTurn"},
                "client_roots": {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]},
            },
            "requestState": state,
        }),
        everything(),
    )
    .await;
    assert_eq!(
        done["result"],
        text("name=Alice, greeting=Hello there!, roots=1")
    );
}

/// A state the client changed, or one sealed for another tool, is refused
/// (`-32602`); the tool does not run.
#[tokio::test]
async fn a_tampered_or_foreign_request_state_is_refused() {
    let server = serve(None);
    let tool = "test_input_required_result_tampered_state";
    let (_, asked) = call(&server.1, tool, json!({}), everything()).await;
    let (_, state) = result_and_state(&asked);
    let state = state.unwrap();
    let answer = json!({"confirm": accept(json!({"ok": true}))});
    let (status, tampered) = call(
        &server.1,
        tool,
        json!({"inputResponses": answer, "requestState": format!("{state}-TAMPERED")}),
        everything(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(tampered["error"]["code"], -32602);
    assert!(
        tampered["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("the requestState is not valid here: "),
        "{tampered}"
    );
    // The same state, sent with the same answers to another tool that asks the
    // same question.
    let (_, foreign) = call(
        &server.1,
        "test_input_required_result_request_state",
        json!({"inputResponses": answer, "requestState": state}),
        everything(),
    )
    .await;
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");
}

/// An answer that does not fit the form is refused with `-32602` saying why;
/// a retry that lacks the answer is asked again.
#[tokio::test]
async fn an_invalid_answer_is_refused_and_a_missing_one_asked_again() {
    let server = serve(None);
    let tool = "test_input_required_result_elicitation";
    let (_, invalid) = call(
        &server.1,
        tool,
        json!({"inputResponses": {"user_name": accept(json!({"name": 7}))}}),
        everything(),
    )
    .await;
    assert_eq!(
        invalid["error"],
        json!({
            "code": -32602,
            "message": "the answer to the input request `user_name` does not fit the requested \
                        form: invalid type: integer `7`, expected a string",
        })
    );
    let (_, not_a_result) = call(
        &server.1,
        tool,
        json!({"inputResponses": {"user_name": 12345}}),
        everything(),
    )
    .await;
    assert_eq!(not_a_result["error"]["code"], -32602);
    let (_, again) = call(
        &server.1,
        tool,
        json!({"inputResponses": {"wrong_key": accept(json!({"data": "wrong"}))}}),
        everything(),
    )
    .await;
    let (result, state) = result_and_state(&again);
    assert_eq!(
        result,
        json!({
            "resultType": "input_required",
            "inputRequests": {"user_name": name_form("What is your name?", "name")},
        })
    );
    assert!(state.is_some());
}

/// A tool that needs the client's model, called by a client that did not
/// declare sampling: `-32021` naming it, HTTP 400; a client that declared only
/// sampling is asked nothing else.
#[tokio::test]
async fn a_capability_the_client_did_not_declare_is_minus_32021() {
    let server = serve(None);
    let (status, refused) = call(&server.1, "test_missing_capability", json!({}), json!({})).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );
    assert_eq!(status, 400);
    let (_, asked) = call(
        &server.1,
        "test_input_required_result_capabilities",
        json!({}),
        json!({"sampling": {}}),
    )
    .await;
    let (result, _) = result_and_state(&asked);
    let keys: Vec<&String> = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["question"]);
}

/// The state is the only memory between rounds: a second replica with the
/// same key answers the retry; a replica with another key refuses it.
#[tokio::test]
async fn a_retry_is_answered_by_another_replica_with_the_same_key() {
    let key = "an-ask-test-request-state-key-of-32-bytes-or-more";
    let first = serve(Some(key));
    let second = serve(Some(key));
    let stranger = serve(None);
    let tool = "test_input_required_result_multi_round";
    let (_, asked) = call(&first.1, tool, json!({}), everything()).await;
    let (_, state1) = result_and_state(&asked);
    let retry = json!({"inputResponses": {"step1": accept(json!({"name": "Alice"}))}, "requestState": state1});
    let (_, second_round) = call(&second.1, tool, retry.clone(), everything()).await;
    let (_, state2) = result_and_state(&second_round);
    let (_, done) = call(
        &first.1,
        tool,
        json!({"inputResponses": {"step2": accept(json!({"color": "red"}))}, "requestState": state2}),
        everything(),
    )
    .await;
    assert_eq!(done["result"], text("Alice likes red"));
    let (_, refused) = call(&stranger.1, tool, retry, everything()).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

/// A 2025-11-25 client's user, who gives their name when asked.
#[derive(Clone)]
struct Alice;

impl ClientHandler for Alice {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("ask-test", "0.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = &request
        else {
            panic!("a form: {request:?}");
        };
        assert_eq!(message, "What is your name?");
        assert_eq!(
            serde_json::to_value(requested_schema).unwrap()["required"],
            json!(["name"])
        );
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Alice"})))
    }
}

/// Over a 2025-11-25 session the same tool sends `elicitation/create` in the
/// call and answers with what the user said.
#[tokio::test]
async fn a_session_client_is_asked_with_a_real_elicitation_request() {
    let server = serve(None);
    let client = Alice
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.1.clone()),
            rmcp::ClientLifecycleMode::Initialize,
        )
        .await
        .expect("connects");
    let result = client
        .call_tool(CallToolRequestParams::new(
            "test_input_required_result_elicitation",
        ))
        .await
        .unwrap();
    let mut result = serde_json::to_value(result).unwrap();
    result.as_object_mut().unwrap().remove("resultType");
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "Hello, Alice!"}], "isError": false})
    );
}

/// What a client declares to get tasks and answer forms.
fn tasks_and_forms() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// `tasks/get` of `id`: the task, its timestamps left out.
async fn get(url: &str, id: &str) -> Value {
    let (_, response) = rpc(
        url,
        "tasks/get",
        id,
        json!({"taskId": id}),
        tasks_and_forms(),
    )
    .await;
    untimed(
        response
            .get("result")
            .unwrap_or_else(|| panic!("a task: {response}"))
            .clone(),
    )
}

/// Polls task `id` on `url` until `done` says so (twenty seconds at most).
async fn until(url: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..200 {
        let task = get(url, id).await;
        if done(&task) {
            return task;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("task {id} never got there: {}", get(url, id).await);
}

/// `tasks/update` of `id` with `responses`: the acknowledgement.
async fn update(url: &str, id: &str, responses: Value) -> Value {
    let (_, response) = rpc(
        url,
        "tasks/update",
        id,
        json!({"taskId": id, "inputResponses": responses}),
        tasks_and_forms(),
    )
    .await;
    response
}

/// A path for a new SQLite file in the temporary directory, named `prefix`,
/// this process and the time.
fn fresh_database(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let path = std::env::temp_dir().join(format!("{prefix}-{}-{nanos}.sqlite", std::process::id()));
    path.to_str().unwrap().to_owned()
}

/// A replica of a two-replica fleet of the conformance server: tasks in the
/// SQLite file `database`, shared keys, a 2 s run lease and, with
/// `pass_every` seconds, the runner pass.
fn replica(database: &str, pass_every: Option<&str>) -> Server {
    let mut env = vec![
        ("MCP_CONFORMANCE_SQLITE", database),
        (
            "MCP_CONFORMANCE_APPROVAL_KEY",
            "an-ask-test-approval-key-of-32-bytes-or-more",
        ),
        (
            "MCP_CONFORMANCE_STATE_KEY",
            "an-ask-test-request-state-key-of-32-bytes-or-more",
        ),
        ("MCP_CONFORMANCE_RUN_LEASE_SECS", "2"),
    ];
    env.extend(pass_every.map(|seconds| ("MCP_CONFORMANCE_TASK_PASS_SECS", seconds)));
    serve_with(&env)
}

/// A task's tool asks mid-run: the task is `input_required` with the question
/// on any replica; its first replica dies; the answer given to the second is
/// kept in the store; the second takes the run over once its lease ends, and
/// its tool, asking again from the top, finds the answer and completes.
#[tokio::test]
async fn a_task_asks_its_client_and_another_replica_resumes_it_with_the_answer() {
    let database = fresh_database("toolkit-ask");
    let (first, second) = (replica(&database, None), replica(&database, None));
    let (_, created) = call(
        &first.1,
        "confirm_delete",
        json!({"arguments": {"filename": "a.txt"}}),
        tasks_and_forms(),
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let asking = until(&second.1, &id, |task| task["status"] == "input_required").await;
    assert_eq!(
        asking,
        json!({
            "resultType": "complete",
            "taskId": id,
            "status": "input_required",
            "statusMessage": "`confirm_delete` waits for the client's answer to `confirm`",
            "pollIntervalMs": 1000,
            "inputRequests": {"confirm": {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": "Delete a.txt?",
                    "requestedSchema": {
                        "type": "object",
                        "description": "Whether to go ahead.",
                        "properties": {"confirm": {"type": "boolean", "description": "Yes to go ahead."}},
                        "required": ["confirm"],
                    },
                },
            }},
        })
    );
    drop(first);
    let acknowledged = update(
        &second.1,
        &id,
        json!({"confirm": accept(json!({"confirm": true})), "not_asked": accept(json!({}))}),
    )
    .await;
    assert_eq!(acknowledged["result"], json!({"resultType": "complete"}));
    let done = until(&second.1, &id, |task| task["status"] == "completed").await;
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "Deleted a.txt"}])
    );
    let _ = std::fs::remove_file(&database);
}

/// The same, with nobody polling: the second replica's runner pass
/// (`toolkit::mcp::run_tasks`, every second) takes the run over after its lease,
/// and its tool, asking again, finds the answer kept in the store. The first
/// `tasks/get` after the pass had time to run (lease 2 s + pass 1 s + the relay's
/// 250 ms, waited 8 s) finds the task completed: a `tasks/get` resumes a run
/// only when nobody holds it, so this one did not. Without an `Ask` in the
/// pass's runs, the tool ends in an error; without the pass, it is not over.
#[tokio::test]
async fn the_runner_pass_resumes_a_task_that_asked_and_its_tool_asks_again() {
    let database = fresh_database("toolkit-ask-pass");
    let (first, second) = (replica(&database, Some("1")), replica(&database, Some("1")));
    let (_, created) = call(
        &first.1,
        "confirm_delete",
        json!({"arguments": {"filename": "b.txt"}}),
        tasks_and_forms(),
    )
    .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    until(&second.1, &id, |task| task["status"] == "input_required").await;
    drop(first);
    update(
        &second.1,
        &id,
        json!({"confirm": accept(json!({"confirm": true}))}),
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_secs(8)).await;
    let done = get(&second.1, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "Deleted b.txt"}]),
        "{done}"
    );
    let _ = std::fs::remove_file(&database);
}

/// Two questions at once: answered one at a time, the task lists only the one
/// still open, and completes once both are answered.
#[tokio::test]
async fn a_task_waits_until_every_question_is_answered() {
    let server = serve(None);
    let (_, created) = call(&server.1, "multi_input", json!({}), tasks_and_forms()).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let asking = until(&server.1, &id, |task| {
        task["inputRequests"]
            .as_object()
            .is_some_and(|requests| requests.len() == 2)
    })
    .await;
    assert_eq!(asking["status"], "input_required");
    update(
        &server.1,
        &id,
        json!({"name": accept(json!({"name": "partial-1", "confirm": true}))}),
    )
    .await;
    let half = until(&server.1, &id, |task| {
        task["inputRequests"]
            .as_object()
            .is_some_and(|requests| requests.len() == 1)
    })
    .await;
    assert_eq!(half["status"], "input_required");
    assert_eq!(
        half["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["confirm"]
    );
    update(
        &server.1,
        &id,
        json!({"confirm": accept(json!({"name": "partial-2", "confirm": true}))}),
    )
    .await;
    let done = until(&server.1, &id, |task| task["status"] == "completed").await;
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "name=partial-1, confirmed=true"}])
    );
}

/// An `asks_first` tool (`test_tool_with_task`, `task = required`): round 1
/// asks in the request (no task yet); the retry with the answer becomes a task
/// (no `requestState`, no `inputRequests` on its handle), which runs the tool
/// again with the gathered answer, asks nothing more, and completes with it.
#[tokio::test]
async fn an_asks_first_tool_asks_in_rounds_then_becomes_a_task() {
    let server = serve(None);
    let (status, asked) = call(
        &server.1,
        "test_tool_with_task",
        json!({}),
        tasks_and_forms(),
    )
    .await;
    assert_eq!(status, 200);
    let (result, state) = result_and_state(&asked);
    assert_eq!(
        result,
        json!({
            "resultType": "input_required",
            "inputRequests": {"user_name": name_form("What is your name?", "name")},
        })
    );
    let state = state.expect("a sealed requestState");
    let (_, created) = call(
        &server.1,
        "test_tool_with_task",
        json!({"inputResponses": {"user_name": accept(json!({"name": "Alice"}))}, "requestState": state}),
        tasks_and_forms(),
    )
    .await;
    let handle = untimed(created["result"].clone());
    let id = handle["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task handle: {created}"))
        .to_owned();
    assert_eq!(
        handle,
        json!({
            "resultType": "task",
            "taskId": id,
            "status": "working",
            "statusMessage": "`test_tool_with_task` starts now",
            "pollIntervalMs": 1000,
        })
    );
    let done = until(&server.1, &id, |task| task["status"] == "completed").await;
    assert_eq!(
        done,
        json!({
            "resultType": "complete",
            "taskId": id,
            "status": "completed",
            "statusMessage": "`test_tool_with_task` ran",
            "pollIntervalMs": 1000,
            "result": text("Hello, Alice! (from a task)"),
        })
    );
}

/// An `asks_first` tool that requires a task, called by a client that takes
/// none: `-32021` before anything is asked, as for any `task = required` tool.
#[tokio::test]
async fn an_asks_first_tool_is_refused_to_a_client_without_tasks() {
    let server = serve(None);
    let (_, refused) = call(
        &server.1,
        "test_tool_with_task",
        json!({}),
        json!({"elicitation": {}}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"],
        json!({"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}})
    );
}

/// The form `delete_archives` asks once approved.
fn go_form(message: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "description": "Whether to go ahead.",
                "properties": {"confirm": {"type": "boolean", "description": "Yes to go ahead."}},
                "required": ["confirm"],
            },
        },
    })
}

/// An `approve` tool that asks its client once approved (`delete_archives`),
/// for a 2026-07-28 client: round 1 asks the approval; the retry that
/// approves runs the tool, whose question is round 2 (a new `requestState`
/// that carries the approval); the retry with the answer runs it again, as
/// approved, to its result; a replay of that round runs nothing.
#[tokio::test]
async fn an_approved_call_whose_tool_asks_is_asked_in_the_next_round() {
    let server = serve(None);
    let tool = "delete_archives";
    let arguments = json!({"name": "q3"});
    let (_, first) = call(
        &server.1,
        tool,
        json!({"arguments": arguments}),
        everything(),
    )
    .await;
    let (result, approval_state) = result_and_state(&first);
    assert_eq!(
        result["inputRequests"]["approval"]["params"]["message"],
        r#"Allow `delete_archives` to run with {"name":"q3"}? It has not run yet."#,
        "{first}"
    );
    let (_, second) = call(
        &server.1,
        tool,
        json!({
            "arguments": arguments,
            "inputResponses": {"approval": {"action": "accept"}},
            "requestState": approval_state.expect("a sealed approval"),
        }),
        everything(),
    )
    .await;
    let (result, state) = result_and_state(&second);
    assert_eq!(
        result,
        json!({
            "resultType": "input_required",
            "inputRequests": {"confirm": go_form("Delete the archive q3 for good?")},
        }),
        "{second}"
    );
    let answered = json!({
        "arguments": arguments,
        "inputResponses": {"confirm": accept(json!({"confirm": true}))},
        "requestState": state.expect("a sealed round"),
    });
    let (_, done) = call(&server.1, tool, answered.clone(), everything()).await;
    assert_eq!(done["result"], text("Deleted the archive q3"), "{done}");
    let (_, replay) = call(&server.1, tool, answered, everything()).await;
    assert_eq!(replay["result"]["isError"], true, "{replay}");
    assert_eq!(
        replay["result"]["content"][0]["text"],
        toolkit::ToolError::AlreadyRan {
            outcome: r#"with the result "Deleted the archive q3""#.to_owned(),
        }
        .to_string()
    );
}

/// A 2025-11-25 client's user, who approves `delete_archives` and then says
/// to go ahead: the questions it was asked, in order.
#[derive(Clone, Default)]
struct Approver(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl ClientHandler for Approver {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("ask-test", "0.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = &request else {
            panic!("a form: {request:?}");
        };
        self.0.lock().unwrap().push(message.clone());
        let answer = ElicitResult::new(ElicitationAction::Accept);
        Ok(if message.starts_with("Allow") {
            answer
        } else {
            answer.with_content(json!({"confirm": true}))
        })
    }
}

/// Over a 2025-11-25 session the approval and the tool's own question are
/// both real `elicitation/create` requests in the call, and the call ends with
/// the result.
#[tokio::test]
async fn a_session_client_approves_and_is_then_asked_by_the_tool() {
    let server = serve(None);
    let user = Approver::default();
    let client = user
        .clone()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.1.clone()),
            rmcp::ClientLifecycleMode::Initialize,
        )
        .await
        .expect("connects");
    let mut params = CallToolRequestParams::new("delete_archives");
    params.arguments = json!({"name": "q5"}).as_object().cloned();
    let result = client.call_tool(params).await.unwrap();
    let mut result = serde_json::to_value(result).unwrap();
    result.as_object_mut().unwrap().remove("resultType");
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "Deleted the archive q5"}], "isError": false})
    );
    assert_eq!(
        *user.0.lock().unwrap(),
        [
            r#"Allow `delete_archives` to run with {"name":"q5"}? It has not run yet."#,
            "Delete the archive q5 for good?",
        ]
    );
}

/// An `approve` call kept as a task, approved by someone else in the approval
/// store (as in the inbox): the next `tasks/get` runs it; its tool's question
/// makes the task `input_required` asking it; `tasks/update` answers it, and
/// the task completes with the result.
#[tokio::test]
async fn an_approved_task_whose_tool_asks_waits_for_its_answer() {
    use toolkit::approval::{ApprovalKey, Approvals, Decision, SqliteApprovalStore};
    let database = fresh_database("toolkit-approve-ask");
    let server = replica(&database, None);
    let (_, created) = call(
        &server.1,
        "delete_archives",
        json!({"arguments": {"name": "q4"}}),
        tasks_and_forms(),
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let approvals = Approvals::new(
        ApprovalKey::new(b"an-ask-test-approval-key-of-32-bytes-or-more".to_vec()).unwrap(),
        SqliteApprovalStore::open(&database).unwrap(),
    );
    let requester = toolkit::Principal::local("conformance").unwrap();
    let pending = approvals
        .store()
        .pending(&requester, &id)
        .await
        .unwrap()
        .expect("the call waits");
    approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &toolkit::Principal::local("approver").unwrap(),
        )
        .await
        .unwrap();
    let asking = until(&server.1, &id, |task| {
        task["inputRequests"].get("confirm").is_some()
    })
    .await;
    assert_eq!(
        asking,
        json!({
            "resultType": "complete",
            "taskId": id,
            "status": "input_required",
            "statusMessage": "`delete_archives` waits for the client's answer to `confirm`",
            "pollIntervalMs": 1000,
            "inputRequests": {"confirm": go_form("Delete the archive q4 for good?")},
        })
    );
    let acknowledged = update(
        &server.1,
        &id,
        json!({"confirm": accept(json!({"confirm": true}))}),
    )
    .await;
    assert_eq!(acknowledged["result"], json!({"resultType": "complete"}));
    let done = until(&server.1, &id, |task| task["status"] == "completed").await;
    assert_eq!(done["result"], text("Deleted the archive q4"), "{done}");
    let _ = std::fs::remove_file(&database);
}
