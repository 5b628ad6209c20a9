//! Dispatch as a caller sees it: `registry().call(name, json_text, &ctx)` returns
//! one `Response` for everything a model can send, good or bad, and the process
//! keeps serving after the worst of it (a panic inside a tool).

use std::sync::{Mutex, Once};

use futures_executor::block_on;
use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::{Value, json};
use toolkit::{Context, Response, State, ToolError, panics::PanicReport, registry, tool};
use toolkit_derive_tests::{Priority, Task, TaskStore, get_tasks, remove_task};

/// Get page numbers. Refuses more than 100 with its own `InvalidArguments`.
#[tool(scope = shared, tier = auto)]
fn get_pages(
    /// How many pages, at most 100.
    limit: u32,
) -> Result<Vec<u32>, ToolError> {
    if limit > 100 {
        return Err(ToolError::invalid_arguments("limit", "at most 100 pages"));
    }
    Ok((1..=limit).collect())
}

/// A value whose serialization always fails, like a map with non-string keys.
struct Clock;

impl Serialize for Clock {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(S::Error::custom("the clock cannot be written as JSON"))
    }
}

/// Get the clock; its result cannot be serialized.
#[tool(scope = shared, tier = auto)]
fn get_clock() -> Clock {
    Clock
}

/// Set the volume. Panics with a formatted message above 10, and with a number
/// (not a string) at 0.
#[tool(scope = assistant, tier = auto)]
fn set_volume(
    /// The new level, 1 to 10.
    level: u8,
) -> u8 {
    if level == 0 {
        std::panic::panic_any(level);
    }
    assert!(level <= 10, "volume {level} is too loud");
    level
}

fn call(name: &str, arguments: &str, ctx: &Context) -> Response {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        toolkit::panics::on_panic(|report| {
            PANICS.lock().expect("not poisoned").push(report.clone());
        });
    });
    // `Registry::call` never runs an `approve` tool (`delete_tasks`; see
    // tests/approval.rs), so these dispatch tests call it on the registered tool,
    // which parses and validates as every call does but applies no tier.
    match registry().get(name) {
        Some(tool) if tool.tier == toolkit::Tier::Approve => block_on(tool.call(arguments, ctx)),
        _ => block_on(registry().call(name, arguments, ctx)),
    }
}

fn error(response: Response) -> ToolError {
    match response {
        Response::Error(error) => error,
        other => panic!("expected an error, got {other:?}"),
    }
}

/// A context with a store holding two tasks: 1 "Write tests" (high), 2 "Sleep" (low).
fn context_with_tasks() -> (Context, TaskStore) {
    let store = TaskStore::default();
    let ctx = Context::new().with(store.clone());
    let created = call(
        "create_tasks",
        r#"{"tasks": [{"title": "Write tests", "priority": "high"}, {"title": "Sleep"}]}"#,
        &ctx,
    );
    assert_eq!(
        created,
        Response::Result(json!([
            {"id": 1, "title": "Write tests", "priority": "high"},
            {"id": 2, "title": "Sleep", "priority": "low"}
        ]))
    );
    (ctx, store)
}

/// Every panic the application heard of, by id.
static PANICS: Mutex<Vec<PanicReport>> = Mutex::new(Vec::new());

/// Checks that `response` is a panic as the model sees it (the stable message and
/// an id, never the panic text) and returns the text the application got.
fn panic_report(response: Response) -> String {
    let ToolError::Panicked { message, id } = error(response) else {
        panic!("expected a panic");
    };
    assert_eq!(message, toolkit::panics::PANIC_MESSAGE);
    assert_eq!(id.len(), 16);
    assert!(id.bytes().all(|byte| byte.is_ascii_hexdigit()), "{id}");
    let reports = PANICS.lock().expect("not poisoned");
    let report = reports
        .iter()
        .find(|report| report.id == id)
        .expect("the hook heard of it");
    report.message.clone()
}

fn invalid(path: &str, message: &str) -> ToolError {
    ToolError::invalid_arguments(path, message)
}

#[test]
fn a_good_call_returns_the_serialized_result() {
    let (ctx, store) = context_with_tasks();
    assert_eq!(
        call("get_tasks", r#"{"limit": 1}"#, &ctx),
        Response::Result(json!([{"id": 1, "title": "Write tests", "priority": "high"}]))
    );
    assert_eq!(
        call("get_tasks", r#"{"id": 2}"#, &ctx),
        Response::Result(json!([{"id": 2, "title": "Sleep", "priority": "low"}]))
    );
    assert_eq!(
        call(
            "update_tasks",
            r#"{"updates": [{"taskId": 2, "title": "Sleep early", "priority": "high"}]}"#,
            &ctx
        ),
        Response::Result(json!([{"id": 2, "title": "Sleep early", "priority": "high"}]))
    );
    assert_eq!(
        call(
            "create_reminders",
            r#"{"text": "Stretch", "recurrence": {"kind": "daily", "hour": 9}, "type": "email", "notify": {"ada": 15}}"#,
            &ctx
        ),
        Response::Result(json!({
            "text": "Stretch",
            "recurrence": {"kind": "daily", "hour": 9},
            "type": "email",
            "notify": {"ada": 15}
        }))
    );
    // Defaults fill what the model left out.
    assert_eq!(
        call(
            "create_reminders",
            r#"{"text": "Call mum", "recurrence": {"kind": "weekdays"}}"#,
            &ctx
        ),
        Response::Result(json!({
            "text": "Call mum",
            "recurrence": {"kind": "weekdays"},
            "type": "push",
            "notify": {}
        }))
    );
    // `Result<bool, io::Error>` from a sync tool renamed with `name = ".."`.
    assert_eq!(
        call("delete_tasks", r#"{"id": 1}"#, &ctx),
        Response::Result(json!(true))
    );
    assert_eq!(
        store.all(),
        [Task {
            id: 2,
            title: "Sleep early".to_owned(),
            priority: Priority::High,
        }]
    );
}

#[test]
fn an_alias_calls_the_canonical_tool() {
    let (ctx, _store) = context_with_tasks();
    let by_name = call("get_tasks", r#"{"id": 1}"#, &ctx);
    assert_eq!(
        by_name,
        Response::Result(json!([{"id": 1, "title": "Write tests", "priority": "high"}]))
    );
    assert_eq!(call("get_task", r#"{"id": 1}"#, &ctx), by_name);
    assert_eq!(call("fetch_tasks", r#"{"id": 1}"#, &ctx), by_name);
    // The definition can be called without the registry, too.
    assert_eq!(
        block_on(get_tasks::definition().call(r#"{"id": 1}"#, &ctx)),
        by_name
    );
    assert_eq!(
        call("create_task", r#"{"tasks": [{"title": "Third"}]}"#, &ctx),
        Response::Result(json!([{"id": 3, "title": "Third", "priority": "low"}]))
    );
}

#[test]
fn empty_arguments_are_an_empty_object() {
    let (ctx, _store) = context_with_tasks();
    // A tool without parameters returning `()`: the result is `null`.
    for empty in ["", "   ", "\n\t ", "{}"] {
        assert_eq!(
            call("search_void", empty, &ctx),
            Response::Result(Value::Null),
            "{empty:?}"
        );
    }
    // Every parameter optional: empty text means all defaults.
    assert_eq!(call("get_tasks", "", &ctx), call("get_tasks", "{}", &ctx));
    // A required parameter is still required.
    assert_eq!(
        error(call("set_mood", "", &ctx)),
        invalid("mood", "missing required field")
    );
}

#[test]
fn null_counts_as_no_arguments_and_arguments_must_be_an_object() {
    let ctx = Context::new();
    // `null`, like "", is what providers send for a call without arguments.
    assert_eq!(
        call("search_void", "null", &ctx),
        Response::Result(Value::Null)
    );
    assert_eq!(
        error(call("set_mood", "null", &ctx)),
        invalid("mood", "missing required field")
    );
    // Anything but an object is refused, arrays included: serde's derived structs
    // would accept the fields positionally, past the schema.
    let not_an_object = invalid(
        ".",
        "the arguments must be a JSON object naming each parameter, like {\"id\": 7}",
    );
    assert_eq!(error(call("set_mood", "\"calm\"", &ctx)), not_an_object);
    assert_eq!(error(call("set_mood", r#"["calm"]"#, &ctx)), not_an_object);
    assert_eq!(error(call("set_mood", "[]", &ctx)), not_an_object);
    // `null` for an optional member means "left out" (OpenAI strict mode sends
    // one for every optional field), at the root and nested.
    let (ctx, _store) = context_with_tasks();
    assert_eq!(
        call("get_tasks", r#"{"id": null, "limit": 1}"#, &ctx),
        call("get_tasks", r#"{"limit": 1}"#, &ctx)
    );
    assert_eq!(
        call(
            "create_tasks",
            r#"{"tasks": [{"title": "Nap", "priority": null}]}"#,
            &ctx
        ),
        Response::Result(json!([{"id": 3, "title": "Nap", "priority": "low"}]))
    );
    // A `null` for a required member is still an error.
    assert_eq!(
        error(call("set_mood", r#"{"mood": null}"#, &ctx)),
        invalid("mood", "expected a string, got null")
    );
}

#[test]
fn malformed_json_reports_the_parser_position() {
    let ctx = Context::new();
    assert_eq!(
        error(call("create_tasks", r#"{"tasks": [}"#, &ctx)),
        ToolError::MalformedJson {
            message: "expected value".to_owned(),
            line: 1,
            column: 12,
        }
    );
    assert_eq!(
        error(call("get_tasks", "{\n  \"id\": 1,\n}", &ctx)),
        ToolError::MalformedJson {
            message: "trailing comma".to_owned(),
            line: 3,
            column: 1,
        }
    );
    assert_eq!(
        error(call("get_tasks", "{\"limit\": 1} {}", &ctx)),
        ToolError::MalformedJson {
            message: "trailing characters".to_owned(),
            line: 1,
            column: 14,
        }
    );
    assert_eq!(
        error(call("get_tasks", r#"{"limit": 1"#, &ctx)),
        ToolError::MalformedJson {
            message: "EOF while parsing an object".to_owned(),
            line: 1,
            column: 11,
        }
    );
    assert_eq!(
        error(call("get_tasks", "{\n \"id\": tru}", &ctx)).to_string(),
        "arguments are not valid JSON: expected ident at line 2 column 11"
    );
}

#[test]
fn a_wrong_type_names_its_path() {
    let ctx = Context::new();
    assert_eq!(
        error(call(
            "create_tasks",
            r#"{"tasks": [{"title": "a"}, {"title": 7}]}"#,
            &ctx
        )),
        invalid("tasks[1].title", "expected a string, got 7")
    );
    assert_eq!(
        error(call(
            "create_tasks",
            r#"{"tasks": [{"title": "a", "priority": "urgent"}]}"#,
            &ctx
        )),
        invalid(
            "tasks[0].priority",
            "expected one of `low`, `high`, got the string \"urgent\""
        )
    );
    assert_eq!(
        error(call("get_tasks", r#"{"limit": -1}"#, &ctx)),
        invalid("limit", "must be at least 0, got -1")
    );
    assert_eq!(
        error(call("create_tasks", r#"{"tasks": {"title": "a"}}"#, &ctx)),
        invalid("tasks", "expected an array, got an object")
    );
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"text": "a", "recurrence": {"kind": "yearly"}}"#,
            &ctx
        )),
        invalid(
            "recurrence.kind",
            "expected one of `once`, `daily`, `weekdays`, got the string \"yearly\""
        )
    );
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"text": "a", "recurrence": {"kind": "daily", "hour": 300}}"#,
            &ctx
        )),
        // Inside an internally tagged enum the path names the inner field.
        invalid("recurrence.hour", "must be between 0 and 255, got 300")
    );
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"text": "a", "recurrence": {"kind": "once"}, "notify": {"ada": "soon"}}"#,
            &ctx
        )),
        ToolError::InvalidArguments {
            problems: vec![
                toolkit::call::Problem {
                    path: "notify.ada".to_owned(),
                    message: "expected a non-negative integer, got the string \"soon\"".to_owned(),
                },
                toolkit::call::Problem {
                    path: "recurrence.at".to_owned(),
                    message: "missing required field".to_owned(),
                },
            ]
        }
    );
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"text": "a", "recurrence": {"kind": "weekdays"}, "notify": {"ada": "soon"}}"#,
            &ctx
        )),
        invalid(
            "notify.ada",
            "expected a non-negative integer, got the string \"soon\""
        )
    );
}

#[test]
fn a_missing_required_field_names_the_field_itself() {
    let ctx = Context::new();
    assert_eq!(
        error(call("create_tasks", "{}", &ctx)),
        invalid("tasks", "missing required field")
    );
    assert_eq!(
        error(call(
            "create_tasks",
            r#"{"tasks": [{"title": "a"}, {"priority": "low"}]}"#,
            &ctx
        )),
        invalid("tasks[1].title", "missing required field")
    );
    // The JSON name of a renamed field.
    assert_eq!(
        error(call(
            "update_tasks",
            r#"{"updates": [{"title": "x"}]}"#,
            &ctx
        )),
        invalid("updates[0].taskId", "missing required field")
    );
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"recurrence": {"kind": "weekdays"}}"#,
            &ctx
        ))
        .to_string(),
        "invalid arguments at `text`: missing required field"
    );
}

#[test]
fn an_unknown_field_lists_the_expected_ones() {
    let ctx = Context::new();
    let unknown = |path: &str, field: &str, expected: &[&str]| ToolError::UnknownField {
        path: path.to_owned(),
        field: field.to_owned(),
        expected: expected.iter().map(|name| (*name).to_owned()).collect(),
    };
    assert_eq!(
        error(call("get_tasks", r#"{"idd": 1}"#, &ctx)),
        unknown("idd", "idd", &["id", "limit"])
    );
    assert_eq!(
        error(call("get_tasks", r#"{"idd": 1}"#, &ctx)).to_string(),
        "unknown field `idd`; expected one of `id`, `limit`"
    );
    assert_eq!(
        error(call(
            "create_tasks",
            r#"{"tasks": [{"title": "a"}, {"title": "b", "due": "today"}]}"#,
            &ctx
        )),
        unknown("tasks[1].due", "due", &["priority", "title"])
    );
    // The Rust name of a renamed field is unknown to the model; the JSON name is
    // listed, and the field it was meant to be is missing: both are reported.
    assert_eq!(
        error(call("update_tasks", r#"{"updates": [{"id": 1}]}"#, &ctx)),
        ToolError::InvalidArguments {
            problems: vec![
                toolkit::call::Problem {
                    path: "updates[0].id".to_owned(),
                    message: "unknown field; expected one of `priority`, `taskId`, `title`"
                        .to_owned(),
                },
                toolkit::call::Problem {
                    path: "updates[0].taskId".to_owned(),
                    message: "missing required field".to_owned(),
                },
            ]
        }
    );
    // `r#type` is `type`.
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"text": "a", "recurrence": {"kind": "weekdays"}, "r#type": "push"}"#,
            &ctx
        )),
        unknown(
            "[\"r#type\"]",
            "r#type",
            &["notify", "recurrence", "text", "type"]
        )
    );
    let none = error(call("search_void", r#"{"query": "anything"}"#, &ctx));
    assert_eq!(none, unknown("query", "query", &[]));
    assert_eq!(
        none.to_string(),
        "unknown field `query`; this tool takes no arguments"
    );
}

#[test]
fn an_unknown_tool_suggests_the_closest_name() {
    let ctx = Context::new();
    assert_eq!(
        error(call("create_tsks", "{}", &ctx)),
        ToolError::UnknownTool {
            name: "create_tsks".to_owned(),
            suggestion: Some("create_tasks".to_owned()),
        }
    );
    // Aliases are matched too (`get_taks` is closest to the alias `get_task`), but
    // the suggestion is the current name, never a retired one.
    assert_eq!(
        error(call("get_taks", "{}", &ctx)),
        ToolError::UnknownTool {
            name: "get_taks".to_owned(),
            suggestion: Some("get_tasks".to_owned()),
        }
    );
    assert_eq!(
        error(call("relate_memory", "{}", &ctx)),
        ToolError::UnknownTool {
            name: "relate_memory".to_owned(),
            suggestion: None,
        }
    );
    let far = error(call("launch_rockets", "{}", &ctx));
    assert_eq!(
        far,
        ToolError::UnknownTool {
            name: "launch_rockets".to_owned(),
            suggestion: None,
        }
    );
    assert_eq!(far.to_string(), "unknown tool `launch_rockets`");
    assert_eq!(
        error(call("create_tsks", "{}", &ctx)).to_string(),
        "unknown tool `create_tsks`; did you mean `create_tasks`?"
    );
    // The Rust function name of a renamed tool is not callable.
    assert_eq!(
        error(call("remove_task", "{}", &ctx)),
        ToolError::UnknownTool {
            name: "remove_task".to_owned(),
            suggestion: None,
        }
    );
    // The unknown name is reported before anything looks at the arguments.
    assert_eq!(
        error(call("launch_rockets", "{not json", &ctx)),
        ToolError::UnknownTool {
            name: "launch_rockets".to_owned(),
            suggestion: None,
        }
    );
}

#[test]
fn a_missing_context_value_is_an_error_naming_its_type() {
    let empty = Context::new();
    let missing = error(call("get_tasks", "{}", &empty));
    assert_eq!(
        missing,
        ToolError::MissingContext {
            type_name: "toolkit_derive_tests::TaskStore".to_owned(),
        }
    );
    assert_eq!(
        missing.to_string(),
        "the tool needs a `toolkit_derive_tests::TaskStore` in its context, and the caller provided none"
    );
    // The arguments are checked first.
    assert_eq!(
        error(call("get_tasks", r#"{"limit": "x"}"#, &empty)),
        invalid(
            "limit",
            "expected a non-negative integer, got the string \"x\""
        )
    );
    // A value of another type does not stand in.
    let other = Context::new().with(String::from("not a store"));
    assert_eq!(
        error(call("delete_tasks", r#"{"id": 1}"#, &other)),
        ToolError::MissingContext {
            type_name: "toolkit_derive_tests::TaskStore".to_owned(),
        }
    );
}

#[test]
fn the_tools_own_errors_come_back() {
    let (ctx, store) = context_with_tasks();
    // A `ToolError` passes through unchanged, whatever its variant.
    assert_eq!(
        error(call("get_pages", r#"{"limit": 500}"#, &ctx)),
        invalid("limit", "at most 100 pages")
    );
    assert_eq!(
        call("get_pages", r#"{"limit": 3}"#, &ctx),
        Response::Result(json!([1, 2, 3]))
    );
    assert_eq!(
        error(call("get_tasks", r#"{"id": 99}"#, &ctx)),
        ToolError::Failed {
            message: "no task with id 99".to_owned(),
        }
    );
    // Any other error type becomes `Failed` with its Display text.
    assert_eq!(
        error(call("delete_tasks", r#"{"id": 99}"#, &ctx)),
        ToolError::Failed {
            message: "no task with id 99".to_owned(),
        }
    );
    // update_tasks checks every id before writing: nothing changed.
    let before = store.all();
    assert_eq!(
        error(call(
            "update_tasks",
            r#"{"updates": [{"taskId": 1, "title": "changed"}, {"taskId": 99}]}"#,
            &ctx
        )),
        ToolError::Failed {
            message: "no task with id 99".to_owned(),
        }
    );
    assert_eq!(store.all(), before);
}

#[test]
fn an_unserializable_result_is_invalid_output() {
    let ctx = Context::new();
    assert_eq!(
        error(call("get_clock", "", &ctx)),
        ToolError::InvalidOutput {
            message: "the clock cannot be written as JSON".to_owned(),
        }
    );
    // `Clock` has no JSON schema, so the tool has no output schema.
    assert!(
        (registry()
            .get("get_clock")
            .expect("registered")
            .output_schema)()
        .is_none()
    );
}

#[test]
fn a_panicking_tool_is_caught_and_the_registry_keeps_serving() {
    let (ctx, store) = context_with_tasks();
    assert_eq!(
        panic_report(call("set_mood", r#"{"mood": "angry"}"#, &ctx)),
        "moods must stay calm"
    );
    assert_eq!(
        call("set_mood", r#"{"mood": "calm"}"#, &ctx),
        Response::Result(json!("calm"))
    );

    // A panic while the tool holds the store's lock: the mutex is poisoned, the
    // task is not half-renamed, and the next calls still work.
    let before = store.all();
    assert_eq!(
        panic_report(call("set_title", r#"{"id": 1, "title": "boom"}"#, &ctx)),
        "the title exploded"
    );
    assert_eq!(store.all(), before);
    assert_eq!(
        call("get_tasks", r#"{"id": 1}"#, &ctx),
        Response::Result(json!([{"id": 1, "title": "Write tests", "priority": "high"}]))
    );
    assert_eq!(
        call(
            "set_title",
            r#"{"id": 1, "title": "Write more tests"}"#,
            &ctx
        ),
        Response::Result(json!({"id": 1, "title": "Write more tests", "priority": "high"}))
    );
    // A formatted message (a `String` payload), and a payload that is no string.
    assert_eq!(
        panic_report(call("set_volume", r#"{"level": 11}"#, &ctx)),
        "volume 11 is too loud"
    );
    assert_eq!(
        panic_report(call("set_volume", r#"{"level": 0}"#, &ctx)),
        "a panic with a non-string payload"
    );
    assert_eq!(
        call("set_volume", r#"{"level": 3}"#, &ctx),
        Response::Result(json!(3))
    );
}

#[test]
fn call_value_takes_parsed_arguments() {
    let (ctx, _store) = context_with_tasks();
    assert_eq!(
        block_on(registry().call_value("get_task", &json!({"id": 2}), &ctx)),
        Response::Result(json!([{"id": 2, "title": "Sleep", "priority": "low"}]))
    );
    assert_eq!(
        block_on(registry().call_value("search_void", &json!({}), &ctx)),
        Response::Result(Value::Null)
    );
    assert_eq!(
        block_on(registry().call_value("get_tasks", &json!({"limit": "all"}), &ctx)),
        Response::Error(invalid(
            "limit",
            "expected a non-negative integer, got the string \"all\""
        ))
    );
    assert_eq!(
        block_on(registry().call_value("get_tasks", &Value::Null, &ctx)),
        block_on(registry().call_value("get_tasks", &json!({}), &ctx))
    );
}

#[test]
fn responses_serialize_to_the_shapes_the_model_reads() {
    let (ctx, _store) = context_with_tasks();
    let json_of = |name: &str, arguments: &str| call(name, arguments, &ctx).to_json();
    assert_eq!(
        json_of("get_tasks", r#"{"id": 2}"#),
        json!({"result": [{"id": 2, "title": "Sleep", "priority": "low"}]})
    );
    assert_eq!(json_of("search_void", ""), json!({"result": null}));
    assert_eq!(
        json_of("get_taks", "{}"),
        json!({"error": {
            "kind": "unknown_tool",
            "name": "get_taks",
            "suggestion": "get_tasks",
            "message": "unknown tool `get_taks`; did you mean `get_tasks`?"
        }})
    );
    assert_eq!(
        json_of("launch_rockets", "{}"),
        json!({"error": {
            "kind": "unknown_tool",
            "name": "launch_rockets",
            "message": "unknown tool `launch_rockets`"
        }})
    );
    // The parser's own message stays in `message`; the position is in its fields.
    assert_eq!(
        json_of("get_tasks", "{\"id\": }"),
        json!({"error": {
            "kind": "malformed_json",
            "message": "expected value",
            "line": 1,
            "column": 8
        }})
    );
    assert_eq!(
        json_of("get_tasks", r#"{"limit": true}"#),
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{"path": "limit", "message": "expected a non-negative integer, got true"}],
            "message": "invalid arguments at `limit`: expected a non-negative integer, got true"
        }})
    );
    assert_eq!(
        json_of("get_tasks", r#"{"idd": 1}"#),
        json!({"error": {
            "kind": "unknown_field",
            "path": "idd",
            "field": "idd",
            "expected": ["id", "limit"],
            "message": "unknown field `idd`; expected one of `id`, `limit`"
        }})
    );
    assert_eq!(
        call("get_tasks", "{}", &Context::new()).to_json(),
        json!({"error": {
            "kind": "missing_context",
            "type_name": "toolkit_derive_tests::TaskStore",
            "message": "the tool needs a `toolkit_derive_tests::TaskStore` in its context, and the caller provided none"
        }})
    );
    assert_eq!(
        json_of("delete_tasks", r#"{"id": 99}"#),
        json!({"error": {"kind": "failed", "message": "no task with id 99"}})
    );
    let panicked = json_of("set_mood", r#"{"mood": "angry"}"#);
    let id = panicked["error"]["id"].as_str().expect("an id").to_owned();
    assert_eq!(
        panicked,
        json!({"error": {"kind": "panicked", "message": toolkit::panics::PANIC_MESSAGE, "id": id}})
    );
    assert_eq!(
        json_of("get_clock", "{}"),
        json!({"error": {"kind": "invalid_output", "message": "the clock cannot be written as JSON"}})
    );
    // `Serialize` gives the same JSON as `to_json`.
    let response = call("get_taks", "{}", &ctx);
    assert_eq!(
        serde_json::to_value(&response).expect("serializable"),
        response.to_json()
    );
}

#[test]
fn response_accessors() {
    let (ctx, _store) = context_with_tasks();
    let good = call("set_mood", r#"{"mood": "calm"}"#, &ctx);
    assert!(good.is_success());
    assert_eq!(good.result(), Some(&json!("calm")));
    assert_eq!(good.error(), None);
    assert_eq!(good.into_result(), Ok(json!("calm")));
    let bad = call("set_mood", "{}", &ctx);
    assert!(!bad.is_success());
    assert_eq!(bad.result(), None);
    assert_eq!(bad.error().map(ToolError::kind), Some("invalid_arguments"));
    assert_eq!(
        bad.into_result(),
        Err(invalid("mood", "missing required field"))
    );
    assert_eq!(
        Response::from(Err::<Value, _>(ToolError::failed("x"))),
        Response::Error(ToolError::Failed {
            message: "x".to_owned()
        })
    );
}

#[test]
fn the_call_future_is_send() {
    fn assert_send<T: Send>(value: T) -> T {
        value
    }
    let (ctx, _store) = context_with_tasks();
    let future = assert_send(registry().call("get_tasks", r#"{"id": 1}"#, &ctx));
    assert!(block_on(future).is_success());
    let future = assert_send(get_tasks::definition().dispatch.future("{}", &ctx));
    assert!(block_on(future).is_success());
}

#[test]
fn the_tool_is_still_a_plain_rust_function() {
    let (_ctx, store) = context_with_tasks();
    let tasks = block_on(get_tasks(State(store.clone()), None, 5)).expect("two tasks");
    assert_eq!(
        tasks,
        [
            Task {
                id: 1,
                title: "Write tests".to_owned(),
                priority: Priority::High,
            },
            Task {
                id: 2,
                title: "Sleep".to_owned(),
                priority: Priority::Low,
            },
        ]
    );
    let one = block_on(get_tasks(State(store.clone()), Some(2), 5)).expect("task 2");
    assert_eq!(one.len(), 1);
    assert!(remove_task(State(store.clone()), 2).expect("task 2 exists"));
    assert_eq!(
        remove_task(State(store.clone()), 2)
            .expect_err("already gone")
            .to_string(),
        "no task with id 2"
    );
    assert_eq!(get_pages(2).expect("small"), [1, 2]);
    assert_eq!(store.all().len(), 1);
}

// ---------------------------------------------------------------------------
// Tools with tricky argument types: schema constraints serde does not check,
// numbers, tuples, unions, flattened fields and optional items, each refused
// with the path of the mistake.
// ---------------------------------------------------------------------------

#[allow(unreachable_pub)]
mod tricky {
    use std::collections::BTreeMap;

    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use serde_json::Value;
    use toolkit::tool;

    /// Get a page of results; the page size is constrained by `#[schemars(range)]`.
    #[tool(scope = shared, tier = auto)]
    #[allow(unused_variables)]
    pub fn get_results(
        /// Results per page, 1 to 100.
        #[schemars(range(min = 1, max = 100))]
        per_page: u32,
        /// A short label, 2 to 8 characters.
        #[schemars(length(min = 2, max = 8))]
        #[tool(default = "ab".to_owned())]
        label: String,
        /// Sort order.
        #[tool(default = Order::Asc)]
        order: Order,
    ) -> u32 {
        per_page
    }

    /// Sort order.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum Order {
        /// Smallest first.
        Asc,
        /// Largest first.
        Desc,
    }

    /// A shape, tagged by `type`.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    pub enum Shape {
        /// A circle.
        Circle {
            /// Its radius.
            radius: u32,
        },
        /// A square.
        Square {
            /// Its side.
            side: u32,
        },
    }

    /// An id or a name.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    #[serde(untagged)]
    pub enum Who {
        /// By id.
        Id(u32),
        /// By name and team.
        Named {
            /// The name.
            name: String,
            /// The team.
            team: String,
        },
    }

    /// Paging, flattened into the arguments.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    pub struct Paging {
        /// Page number.
        pub page: u32,
        /// Page size.
        pub size: u32,
    }

    /// Set tricky values: every argument type that serde and schemars treat unlike
    /// a plain struct field.
    #[tool(scope = shared, tier = auto)]
    pub fn set_tricky(
        /// A small signed number.
        #[tool(default = 0)]
        level: i8,
        /// A point.
        #[tool(default = (0, 0))]
        point: (i32, i32),
        /// Shapes.
        #[tool(default = Vec::new())]
        shapes: Vec<Shape>,
        /// Who.
        #[tool(default = Who::Id(0))]
        who: Who,
        /// Free-form configuration, kept as sent.
        #[tool(default = Value::Null)]
        config: Value,
        /// Notes by key, nulls allowed.
        #[tool(default = BTreeMap::new())]
        notes: BTreeMap<String, Option<String>>,
        /// Optional scores.
        #[tool(default = Vec::new())]
        scores: Vec<Option<u32>>,
    ) -> Value {
        serde_json::json!({
            "level": level, "point": [point.0, point.1], "shapes": shapes.len(),
            "who": format!("{who:?}"), "config": config, "notes": notes, "scores": scores,
        })
    }

    /// Search with paging flattened in.
    #[tool(scope = shared, tier = auto)]
    pub fn search_pages(
        /// The query.
        query: String,
        /// Paging.
        #[serde(flatten)]
        paging: Paging,
    ) -> String {
        format!("{query} {} {}", paging.page, paging.size)
    }
}

/// The same item types used directly and as the `null`-able items of a list, so a
/// mistake in an item can be compared in both places.
mod optional_items {
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use toolkit::tool;

    /// An outline, tagged by `type`.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    pub(crate) enum Outline {
        /// A circle.
        Circle {
            /// Its radius.
            radius: u32,
        },
        /// A rectangle.
        Rect {
            /// Its width.
            w: u32,
            /// Its height.
            h: u32,
        },
        /// A polygon.
        Poly {
            /// Its corners, as `[x, y]` pairs.
            points: Vec<(i32, i32)>,
        },
    }

    /// A time slot.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct Slot {
        /// The hour it starts.
        pub(crate) hour: u8,
    }

    /// An id or a name and team.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    #[serde(untagged)]
    pub(crate) enum Member {
        /// By id.
        Id(u32),
        /// By name and team.
        Named {
            /// The name.
            name: String,
            /// The team.
            team: String,
        },
    }

    /// Outlines, `null` for an empty place.
    pub(crate) type Layer = Vec<Option<Outline>>;

    /// A note's body: plain text, or parts.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    #[serde(untagged)]
    pub(crate) enum Body {
        /// Plain text.
        Text(String),
        /// Parts, in order.
        Rich {
            /// The parts.
            parts: Vec<Part>,
        },
    }

    /// One part of a body.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct Part {
        /// Its text.
        pub(crate) text: String,
    }

    /// Set the shape, or clear it.
    #[tool(scope = shared, tier = auto)]
    pub(crate) fn set_shape(
        /// The shape; `null` or absent clears it.
        shape: Option<Outline>,
    ) -> Option<Outline> {
        shape
    }

    /// Who a note is for: by id or by name.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    #[serde(untagged)]
    pub(crate) enum Recipient {
        /// By id.
        ById {
            /// The id.
            id: u32,
        },
        /// By name.
        ByName {
            /// The name.
            name: String,
        },
    }

    /// Set the note's body, and who it is for.
    #[tool(scope = shared, tier = auto)]
    pub(crate) fn set_body(
        /// The body.
        body: Body,
        /// Who the note is for; absent, nobody.
        recipient: Option<Recipient>,
    ) -> (Body, Option<Recipient>) {
        (body, recipient)
    }

    /// Update shapes: one, and more that may be left empty.
    #[tool(scope = shared, tier = auto)]
    pub(crate) fn update_shapes(
        /// The main shape.
        shape: Outline,
        /// More shapes; `null` leaves a place empty.
        extra: Option<Vec<Option<Outline>>>,
    ) -> (Outline, Option<Vec<Option<Outline>>>) {
        (shape, extra)
    }

    /// Set lists of each item type, given directly (`*_list`) or with `null`-able
    /// items.
    #[tool(scope = shared, tier = auto)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn set_item_lists(
        /// Outlines.
        #[tool(default = Vec::new())]
        outline_list: Vec<Outline>,
        /// Outlines, `null` for an empty place.
        #[tool(default = Vec::new())]
        outlines: Vec<Option<Outline>>,
        /// Slots.
        #[tool(default = Vec::new())]
        slot_list: Vec<Slot>,
        /// Slots, `null` for an empty one; the list itself optional.
        slots: Option<Vec<Option<Slot>>>,
        /// Members.
        #[tool(default = Vec::new())]
        member_list: Vec<Member>,
        /// Members, `null` for an empty place.
        #[tool(default = Vec::new())]
        members: Vec<Option<Member>>,
        /// Layers of outlines, each layer optional.
        layers: Option<Vec<Option<Layer>>>,
    ) -> usize {
        outline_list.len()
            + outlines.len()
            + slot_list.len()
            + slots.map_or(0, |slots| slots.len())
            + member_list.len()
            + members.len()
            + layers.map_or(0, |layers| layers.len())
    }
}

fn problems(error: &ToolError) -> Vec<(String, String)> {
    match error {
        ToolError::InvalidArguments { problems } => problems
            .iter()
            .map(|problem| (problem.path.clone(), problem.message.clone()))
            .collect(),
        other => panic!("expected invalid arguments, got {other:?}"),
    }
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(path, message)| ((*path).to_owned(), (*message).to_owned()))
        .collect()
}

#[test]
fn schema_constraints_are_enforced_before_the_tool_runs() {
    let ctx = Context::new();
    assert_eq!(
        call("get_results", r#"{"per_page": 20}"#, &ctx),
        Response::Result(json!(20))
    );
    assert_eq!(
        error(call("get_results", r#"{"per_page": 0}"#, &ctx)),
        invalid("per_page", "must be between 1 and 100, got 0")
    );
    // Every problem at once, each with its path.
    assert_eq!(
        problems(&error(call(
            "get_results",
            r#"{"per_page": 101, "label": "x", "order": "sideways"}"#,
            &ctx
        ))),
        pairs(&[
            ("label", "must be between 2 and 8 characters long, got 1"),
            (
                "order",
                "expected one of `asc`, `desc`, got the string \"sideways\""
            ),
            ("per_page", "must be between 1 and 100, got 101"),
        ])
    );
    // A permitted null never takes the blame.
    assert_eq!(
        error(call(
            "get_results",
            r#"{"per_page": 5, "label": null, "order": "sideways"}"#,
            &ctx
        )),
        invalid(
            "order",
            "expected one of `asc`, `desc`, got the string \"sideways\""
        )
    );
    assert_eq!(
        call(
            "get_results",
            r#"{"per_page": 5, "label": null, "order": null}"#,
            &ctx
        ),
        Response::Result(json!(5))
    );
    // The raw runner skips the schema (documented); the registry never does.
    assert_eq!(
        block_on(tricky::get_results::definition().call(r#"{"per_page": 0}"#, &ctx)),
        Response::Result(json!(0))
    );
    let entry = registry().get("get_results").expect("registered");
    assert_eq!(
        entry.check_arguments(r#"{"per_page": 0}"#),
        Err(invalid("per_page", "must be between 1 and 100, got 0"))
    );
    assert_eq!(entry.check_arguments(r#"{"per_page": 1}"#), Ok(()));
}

#[test]
fn numbers_say_what_is_wrong_with_the_number() {
    let ctx = Context::new();
    let level = |value: &str| {
        error(call(
            "set_tricky",
            &format!(r#"{{"level": {value}}}"#),
            &ctx,
        ))
    };
    assert_eq!(
        level("128"),
        invalid("level", "must be between -128 and 127, got 128")
    );
    assert_eq!(
        level("1e2"),
        invalid(
            "level",
            "expected an integer between -128 and 127, got 100.0; write whole numbers without a decimal point or exponent"
        )
    );
    assert_eq!(
        level("1.5"),
        invalid("level", "expected an integer, got 1.5")
    );
    assert_eq!(
        level("1e400"),
        invalid(
            "level",
            "a number here is too large to represent; numbers must fit in a 64-bit float, integers in 64 bits"
        )
    );
    assert_eq!(
        error(call(
            "get_tasks",
            r#"{"limit": 18446744073709551616}"#,
            &ctx
        )),
        invalid(
            "limit",
            "must be between 0 and 4294967295, got 1.8446744073709552e+19"
        )
    );
}

#[test]
fn tuples_unions_and_flatten_speak_json() {
    let ctx = Context::new();
    assert_eq!(
        error(call("set_tricky", r#"{"point": [1, 2, 3]}"#, &ctx)),
        invalid("point", "must have exactly 2 items, got 3")
    );
    assert_eq!(
        error(call("set_tricky", r#"{"who": true}"#, &ctx)),
        invalid(
            "who",
            "expected one of these shapes: a non-negative integer; an object with `name`, `team`; got true"
        )
    );
    assert_eq!(
        error(call(
            "set_tricky",
            r#"{"shapes": [{"type": "square", "side": 1}, {"type": "circle", "radius": "big"}]}"#,
            &ctx
        )),
        invalid(
            "shapes[1].radius",
            "expected a non-negative integer, got the string \"big\""
        )
    );
    assert_eq!(
        error(call(
            "set_tricky",
            r#"{"shapes": [{"type": "hexagon"}]}"#,
            &ctx
        )),
        invalid(
            "shapes[0].type",
            "expected one of `circle`, `square`, got the string \"hexagon\""
        )
    );
    // A flattened parameter's fields are the tool's fields.
    assert_eq!(
        call(
            "search_pages",
            r#"{"query": "q", "page": 2, "size": 10}"#,
            &ctx
        ),
        Response::Result(json!("q 2 10"))
    );
    assert_eq!(
        error(call(
            "search_pages",
            r#"{"query": "q", "page": 2, "size": 10, "sort": 1}"#,
            &ctx
        )),
        ToolError::UnknownField {
            path: "sort".to_owned(),
            field: "sort".to_owned(),
            expected: vec!["page".to_owned(), "query".to_owned(), "size".to_owned()],
        }
    );
}

#[test]
fn duplicate_keys_odd_keys_and_bad_strings_have_paths() {
    let ctx = Context::new();
    assert_eq!(
        error(call("get_tasks", r#"{"limit": 1, "limit": 2}"#, &ctx)),
        invalid("limit", "given more than once; name each field once")
    );
    assert_eq!(
        error(call("get_tasks", r#"{"": 1}"#, &ctx)),
        ToolError::UnknownField {
            path: "[\"\"]".to_owned(),
            field: String::new(),
            expected: vec!["id".to_owned(), "limit".to_owned()],
        }
    );
    assert_eq!(
        error(call("set_mood", r#"{"mood": "\ud800"}"#, &ctx)),
        invalid(
            "mood",
            "a string here contains a lone surrogate escape (like \"\\ud800\"), which is no character; send the character itself or a complete surrogate pair"
        )
    );
    // Syntax is checked before anything else: `{"a"}` is malformed, not unknown.
    assert_eq!(
        error(call("get_tasks", r#"{"a"}"#, &ctx)).kind(),
        "malformed_json"
    );
}

#[test]
fn null_means_absent_only_for_declared_optional_properties() {
    let ctx = Context::new();
    let result = call(
        "set_tricky",
        r#"{"config": {"keep": null, "a": 1}, "level": null, "notes": {"x": null}, "scores": [1, null]}"#,
        &ctx,
    );
    let Response::Result(value) = result else {
        panic!("{result:?}")
    };
    assert_eq!(value["config"], json!({"keep": null, "a": 1}));
    assert_eq!(value["level"], json!(0));
    assert_eq!(value["notes"], json!({"x": null}));
    assert_eq!(value["scores"], json!([1, null]));
}

#[test]
fn a_struct_given_as_an_array_is_refused_at_every_depth() {
    let (ctx, store) = context_with_tasks();
    let before = store.all();
    assert_eq!(
        error(call(
            "update_tasks",
            r#"{"updates": [[1, "Renamed", "high"]]}"#,
            &ctx
        )),
        invalid("updates[0]", "expected an object, got an array of 3 items")
    );
    assert_eq!(store.all(), before);
}

#[test]
fn echoed_input_is_bounded_and_cleaned() {
    let ctx = Context::new();
    let huge = "x".repeat(1_000_000);
    let response = call("set_mood", &format!(r#"{{"mood": 1, "{huge}": 1}}"#), &ctx);
    assert!(
        response.to_json().to_string().len() < 1_000,
        "{}",
        response.to_json()
    );
    let response = call("get_tasks", &format!(r#"{{"limit": "{huge}"}}"#), &ctx);
    assert!(response.to_json().to_string().len() < 1_000);
    let ToolError::UnknownTool { name, suggestion } =
        error(call("get_tasks\u{202e}\u{0}", "{}", &ctx))
    else {
        panic!("expected unknown tool")
    };
    assert_eq!(name, "get_tasks\\u{202e}\\u{0}");
    assert_eq!(suggestion, None);
    // A 10 MB name: no suggestion search, a bounded echo.
    let long_name = "get_tasks".repeat(1_000_000);
    let ToolError::UnknownTool { name, suggestion } = error(call(&long_name, "{}", &ctx)) else {
        panic!("expected unknown tool")
    };
    assert_eq!(suggestion, None);
    assert!(name.len() < 200);
    // Case and whitespace variants get the did-you-mean, and do not run.
    for variant in ["GET_TASKS", "get_tasks ", " Get_Tasks"] {
        assert_eq!(
            error(call(variant, "{}", &ctx)),
            ToolError::UnknownTool {
                name: variant.to_owned(),
                suggestion: Some("get_tasks".to_owned()),
            }
        );
    }
}

#[test]
fn limits_are_refused_before_parsing() {
    let ctx = Context::new();
    let deep = format!("{{\"config\": {}1{}}}", "[".repeat(40), "]".repeat(40));
    assert_eq!(
        error(call("set_tricky", &deep, &ctx)),
        invalid(
            "config[0][0][0].…(26 more levels)…[0][0]",
            "the arguments nest deeper than 32 levels of objects and arrays here; flatten them"
        )
    );
    // The application's limits apply to every call through the registry.
    let small = toolkit::Registry::new([tricky::set_tricky::definition()]).expect("one tool");
    small.set_limits(toolkit::call::Limits {
        max_argument_bytes: 16,
        max_depth: 2,
    });
    assert_eq!(
        error(block_on(small.call(
            "set_tricky",
            r#"{"level": 1, "point": [1, 2]}"#,
            &ctx
        ))),
        invalid(
            ".",
            "the arguments are 29 bytes long; at most 16 bytes are accepted"
        )
    );
    assert_eq!(
        error(block_on(small.call(
            "set_tricky",
            r#"{"config":[[1]]}"#,
            &ctx
        ))),
        invalid(
            "config[0]",
            "the arguments nest deeper than 2 levels of objects and arrays here; flatten them"
        )
    );
    // `call_value` with a value deeper than any stack: refused, not overflowed.
    let mut value = json!(1);
    for _ in 0..200_000 {
        value = Value::Array(vec![value]);
    }
    // Not `json!`, which would serialize the value recursively.
    let mut members = serde_json::Map::new();
    members.insert("config".to_owned(), value);
    let value = Value::Object(members);
    assert_eq!(
        block_on(registry().call_value("set_tricky", &value, &ctx))
            .error()
            .map(ToolError::kind),
        Some("invalid_arguments")
    );
    // The caller owns the value; unwind it without recursion.
    let Value::Object(mut members) = value else {
        unreachable!()
    };
    let mut value = members.remove("config").unwrap_or_default();
    while let Value::Array(mut items) = value {
        value = items.pop().unwrap_or_default();
    }
}

#[test]
fn an_empty_error_message_gets_a_stable_one() {
    let ctx = Context::new();
    assert_eq!(
        error(call("get_silence", "{}", &ctx)),
        ToolError::Failed {
            message: toolkit::panics::EMPTY_FAILURE.to_owned()
        }
    );
}

/// Get silence: fails with an empty message.
#[tool(scope = shared, tier = auto)]
fn get_silence() -> Result<(), String> {
    Err(String::new())
}

/// The problems of `items` given as `{key: items}` to `set_item_lists`, with the
/// key cut from their paths.
fn item_problems(key: &str, items: &str) -> Vec<(String, String)> {
    let ctx = Context::new();
    let response = call("set_item_lists", &format!(r#"{{"{key}": {items}}}"#), &ctx);
    problems(&error(response))
        .into_iter()
        .map(|(path, message)| {
            let rest = path.strip_prefix(key).unwrap_or_else(|| panic!("{path}"));
            (rest.to_owned(), message)
        })
        .collect()
}

#[test]
fn a_bad_optional_item_is_told_its_own_mistake_at_its_own_path() {
    let ctx = Context::new();
    assert_eq!(
        problems(&error(call(
            "update_shapes",
            r#"{"shape":{"type":"rect","w":3,"h":0},"extra":[{"type":"hex"}]}"#,
            &ctx
        ))),
        pairs(&[(
            "extra[0].type",
            "expected one of `circle`, `rect`, `poly`, got the string \"hex\""
        )])
    );
    assert_eq!(
        problems(&error(call(
            "update_shapes",
            r#"{"shape":{"type":"hex"}}"#,
            &ctx
        ))),
        pairs(&[(
            "shape.type",
            "expected one of `circle`, `rect`, `poly`, got the string \"hex\""
        )])
    );
    // The second item is valid: only the first, which holds the 3-item pair, is named.
    assert_eq!(
        problems(&error(call(
            "update_shapes",
            r#"{"shape":{"type":"rect","w":3,"h":0},"extra":[{"type":"poly","points":[[1,2,3]]},{"type":"rect","w":1,"h":1}]}"#,
            &ctx
        ))),
        pairs(&[("extra[0].points[0]", "must have exactly 2 items, got 3")])
    );
    assert_eq!(
        problems(&error(call(
            "set_item_lists",
            r#"{"slots":[{"hour":"noon"}]}"#,
            &ctx
        ))),
        pairs(&[(
            "slots[0].hour",
            "expected a non-negative integer, got the string \"noon\""
        )])
    );
}

/// Each list of items gives exactly the problems, at the same places, whether
/// its items are `T` or `Option<T>`: a bad item alone, after valid ones, before
/// one, and lists nested in an optional list.
#[test]
fn optional_items_get_the_problems_of_direct_ones() {
    // (the optional items' key, the direct items' key, the items, the problems)
    type Case<'a> = (&'a str, &'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case<'_>; 8] = [
        (
            "outlines",
            "outline_list",
            r#"[{"type": "hex"}]"#,
            &[(
                "[0].type",
                "expected one of `circle`, `rect`, `poly`, got the string \"hex\"",
            )],
        ),
        (
            "outlines",
            "outline_list",
            r#"[{"type": "poly", "points": [[1, 2, 3]]}, {"type": "rect", "w": 1, "h": 1}]"#,
            &[("[0].points[0]", "must have exactly 2 items, got 3")],
        ),
        (
            "outlines",
            "outline_list",
            r#"[{"type": "rect", "w": 1, "h": 1}, {"type": "circle", "radius": 2}, {"type": "poly", "points": [[1]]}]"#,
            &[("[2].points[0]", "must have exactly 2 items, got 1")],
        ),
        (
            "outlines",
            "outline_list",
            r#"[{"type": "circle", "radius": {}}, {"type": "rect", "w": 1, "h": 1}]"#,
            &[(
                "[0].radius",
                "expected a non-negative integer, got an empty object",
            )],
        ),
        (
            "slots",
            "slot_list",
            r#"[{"hour": 1}, {"hour": "noon"}, {"hour": 3}]"#,
            &[(
                "[1].hour",
                "expected a non-negative integer, got the string \"noon\"",
            )],
        ),
        (
            "slots",
            "slot_list",
            r#"[{"hour": 1}, {"minute": 3}]"#,
            &[
                ("[1].hour", "missing required field"),
                ("[1].minute", "unknown field; expected one of `hour`"),
            ],
        ),
        (
            "members",
            "member_list",
            r#"[7, {"name": 1}, {"name": "a", "team": "b"}]"#,
            &[
                ("[1].name", "expected a string, got 1"),
                ("[1].team", "missing required field"),
            ],
        ),
        (
            "members",
            "member_list",
            "[true]",
            &[(
                "[0]",
                "expected one of these shapes: a non-negative integer; an object with `name`, `team`; got true",
            )],
        ),
    ];
    for (optional, direct, items, expected) in cases {
        let expected = pairs(expected);
        assert_eq!(item_problems(direct, items), expected, "{direct}: {items}");
        assert_eq!(
            item_problems(optional, items),
            expected,
            "{optional}: {items}"
        );
    }
    // A list of optional lists of optional items.
    assert_eq!(
        item_problems(
            "layers",
            r#"[null, [{"type": "rect", "w": 1, "h": 1}, {"type": "poly", "points": [[1]]}], [{"type": "circle"}, null]]"#
        ),
        pairs(&[
            ("[1][1].points[0]", "must have exactly 2 items, got 1"),
            ("[2][0].radius", "missing required field"),
        ])
    );
}

/// A missing field inside an internally tagged enum is told once, at its own
/// path: never also at the root, where the tool has no such parameter.
#[test]
fn a_missing_field_in_a_tagged_parameter_is_told_once_at_its_own_path() {
    let ctx = Context::new();
    for (tool, arguments) in [
        ("update_shapes", r#"{"shape": {"type": "rect", "w": 0}}"#),
        ("set_shape", r#"{"shape": {"type": "rect", "w": 0}}"#),
    ] {
        assert_eq!(
            error(call(tool, arguments, &ctx)),
            ToolError::invalid_arguments("shape.h", "missing required field"),
            "{tool}"
        );
    }
    assert_eq!(
        problems(&error(call(
            "update_shapes",
            r#"{"shape": {"type": "rect"}, "extra": [{"type": "circle"}]}"#,
            &ctx
        ))),
        pairs(&[
            ("extra[0].radius", "missing required field"),
            ("shape.h", "missing required field"),
            ("shape.w", "missing required field"),
        ])
    );
}

/// An object that has an untagged union's fields but gets something wrong inside
/// them is told what is wrong inside, at its own path, not that it is "an object".
#[test]
fn an_untagged_value_is_told_what_failed_in_the_shape_it_meant() {
    let ctx = Context::new();
    for (arguments, expected) in [
        (
            r#"{"body": {"parts": [{"text": "a"}, {"text": 5}]}}"#,
            vec![("body.parts[1].text", "expected a string, got 5")],
        ),
        (
            r#"{"body": {"parts": [{"txt": "a"}]}}"#,
            vec![
                ("body.parts[0].text", "missing required field"),
                ("body.parts[0].txt", "unknown field; expected one of `text`"),
            ],
        ),
        (
            r#"{"body": {"parts": "a"}}"#,
            vec![("body.parts", "expected an array, got the string \"a\"")],
        ),
        (
            r#"{"body": {"text": "a"}}"#,
            vec![("body.parts", "missing required field")],
        ),
        (
            r#"{"body": 5}"#,
            vec![(
                "body",
                "expected one of these shapes: a string; an object with `parts`; got 5",
            )],
        ),
        // Of two object shapes, the one with the object's field.
        (
            r#"{"body": "hi", "recipient": {"id": "seven"}}"#,
            vec![(
                "recipient.id",
                "expected a non-negative integer, got the string \"seven\"",
            )],
        ),
        // An object sharing no field with any shape is told its own fields.
        (
            r#"{"body": "hi", "recipient": {"who": 1}}"#,
            vec![(
                "recipient",
                "expected one of these shapes: an object with `id`; an object with `name`; \
                 got an object with `who`",
            )],
        ),
    ] {
        assert_eq!(
            problems(&error(call("set_body", arguments, &ctx))),
            pairs(&expected),
            "{arguments}"
        );
    }
}
