//! Dispatch as a caller sees it: `registry().call(name, json_text, &ctx)` returns
//! one `Response` for everything a model can send, good or bad, and the process
//! keeps serving after the worst of it (a panic inside a tool).

use futures_executor::block_on;
use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::{Value, json};
use toolkit::{Context, Response, State, ToolError, registry, tool};
use toolkit_derive_tests::{Priority, Task, TaskStore, get_tasks, remove_task};

/// Get page numbers. Refuses more than 100 with its own `InvalidArguments`.
#[tool(scope = shared, tier = auto)]
fn get_pages(
    /// How many pages, at most 100.
    limit: u32,
) -> Result<Vec<u32>, ToolError> {
    if limit > 100 {
        return Err(ToolError::InvalidArguments {
            path: "limit".to_owned(),
            message: "at most 100 pages".to_owned(),
        });
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
    // `Registry::call` never runs an `approve` tool (`delete_tasks`; see
    // tests/approval.rs), so these dispatch tests run it with the raw `Tool::call`.
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

fn invalid(path: &str, message: &str) -> ToolError {
    ToolError::InvalidArguments {
        path: path.to_owned(),
        message: message.to_owned(),
    }
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
        invalid("mood", "invalid type: null, expected a string")
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
        invalid(
            "tasks[1].title",
            "invalid type: integer `7`, expected a string"
        )
    );
    assert_eq!(
        error(call(
            "create_tasks",
            r#"{"tasks": [{"title": "a", "priority": "urgent"}]}"#,
            &ctx
        )),
        invalid(
            "tasks[0].priority",
            "unknown variant `urgent`, expected `low` or `high`"
        )
    );
    assert_eq!(
        error(call("get_tasks", r#"{"limit": -1}"#, &ctx)),
        invalid(
            "limit",
            "invalid value: integer `-1`, expected a non-negative integer"
        )
    );
    assert_eq!(
        error(call("create_tasks", r#"{"tasks": {"title": "a"}}"#, &ctx)),
        invalid("tasks", "invalid type: map, expected an array")
    );
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"text": "a", "recurrence": {"kind": "yearly"}}"#,
            &ctx
        )),
        invalid(
            "recurrence.kind",
            "unknown variant `yearly`, expected one of `once`, `daily`, `weekdays`"
        )
    );
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"text": "a", "recurrence": {"kind": "daily", "hour": 300}}"#,
            &ctx
        )),
        // An internally tagged enum is buffered before its variant is read, so
        // the path stops at the enum, not at `recurrence.hour`.
        invalid(
            "recurrence",
            "invalid value: integer `300`, expected a non-negative integer"
        )
    );
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"text": "a", "recurrence": {"kind": "once"}, "notify": {"ada": "soon"}}"#,
            &ctx
        )),
        invalid("recurrence.at", "missing required field")
    );
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"text": "a", "recurrence": {"kind": "weekdays"}, "notify": {"ada": "soon"}}"#,
            &ctx
        )),
        invalid(
            "notify.ada",
            "invalid type: string \"soon\", expected a non-negative integer"
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
        unknown("tasks[1].due", "due", &["title", "priority"])
    );
    // The Rust name of a renamed field is unknown to the model; the JSON name is listed.
    assert_eq!(
        error(call("update_tasks", r#"{"updates": [{"id": 1}]}"#, &ctx)),
        unknown("updates[0].id", "id", &["taskId", "title", "priority"])
    );
    // `r#type` is `type`.
    assert_eq!(
        error(call(
            "create_reminders",
            r#"{"text": "a", "recurrence": {"kind": "weekdays"}, "r#type": "push"}"#,
            &ctx
        )),
        unknown(
            "r#type",
            "r#type",
            &["text", "recurrence", "type", "notify"]
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
            "invalid type: string \"x\", expected a non-negative integer"
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
        error(call("set_mood", r#"{"mood": "angry"}"#, &ctx)),
        ToolError::Panicked {
            message: "moods must stay calm".to_owned(),
        }
    );
    assert_eq!(
        call("set_mood", r#"{"mood": "calm"}"#, &ctx),
        Response::Result(json!("calm"))
    );

    // A panic while the tool holds the store's lock: the mutex is poisoned, the
    // task is not half-renamed, and the next calls still work.
    let before = store.all();
    assert_eq!(
        error(call("set_title", r#"{"id": 1, "title": "boom"}"#, &ctx)),
        ToolError::Panicked {
            message: "the title exploded".to_owned(),
        }
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
        error(call("set_volume", r#"{"level": 11}"#, &ctx)),
        ToolError::Panicked {
            message: "volume 11 is too loud".to_owned(),
        }
    );
    assert_eq!(
        error(call("set_volume", r#"{"level": 0}"#, &ctx)),
        ToolError::Panicked {
            message: "a panic with a non-string payload".to_owned(),
        }
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
            "invalid type: string \"all\", expected a non-negative integer"
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
            "path": "limit",
            "message": "invalid type: boolean `true`, expected a non-negative integer"
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
    assert_eq!(
        json_of("set_mood", r#"{"mood": "angry"}"#),
        json!({"error": {"kind": "panicked", "message": "moods must stay calm"}})
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
    let future = assert_send((get_tasks::definition().dispatch)("{}", &ctx));
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
