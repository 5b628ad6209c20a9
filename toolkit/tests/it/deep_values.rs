//! Every entry point that takes a caller-built `serde_json::Value` checks its depth
//! without recursion before anything serializes, clones or drops it: a value
//! 10,000 levels deep gets the bounded error on a thread with a 256 KiB stack
//! (serializing it there would overflow the stack and abort the process).

use futures_executor::block_on;
use serde_json::{Map, Value, json};
use toolkit::approval::{ApprovalError, ApprovalKey, Approvals, Decision, MemoryApprovalStore};
use toolkit::runtime::{RuntimeTool, RuntimeToolError};
use toolkit::{Context, Registry, Response, Scope, Tier, ToolError, call::CallId};

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

const LEVELS: usize = 10_000;
const SMALL_STACK: usize = 256 * 1024;

/// `{"text": [[[...]]]}`, `levels` arrays deep, built without recursion.
fn deep_arguments(levels: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..levels {
        value = Value::Array(vec![value]);
    }
    // Not `json!`: it would serialize `value` into a copy, recursively.
    Value::Object(Map::from_iter([("text".to_owned(), value)]))
}

/// Takes a value apart without recursion (its own drop would recurse per level).
fn dismantle(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(members) => pending.extend(members.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// Runs `work` on a thread with a small stack; a stack overflow there aborts the
/// whole test binary, so reaching the assertion is the test.
fn on_small_stack<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(SMALL_STACK)
            .spawn_scoped(scope, work)
            .unwrap()
            .join()
            .unwrap()
    })
}

fn echo(tier: Tier) -> RuntimeTool {
    RuntimeTool::builder(
        if tier == Tier::Approve {
            "deep_approved"
        } else {
            "deep_echo"
        },
        "Echo a text.",
        json!({"type": "object", "properties": {"text": {}}}),
    )
    .tier(tier)
    .build(|arguments: Map<String, Value>, _: &Context| async move {
        Response::Result(Value::Object(arguments))
    })
    .unwrap()
}

fn too_deep() -> ToolError {
    ToolError::invalid_arguments(
        ".",
        "the arguments nest deeper than 32 levels of objects and arrays here; flatten them",
    )
}

#[test]
fn call_value_refuses_a_deep_value_without_recursing() {
    let registry = Registry::with_runtime([], [echo(Tier::Auto)]).unwrap();
    let view = registry.view().scopes([Scope::Shared]).build().unwrap();
    let arguments = deep_arguments(LEVELS);
    let ctx = Context::new();
    let (from_view, from_registry, unknown) = on_small_stack(|| {
        (
            block_on(view.call_value("deep_echo", &arguments, &ctx)),
            block_on(registry.call_value("deep_echo", &arguments, &ctx)),
            block_on(view.call_value("deep_ech", &arguments, &ctx)),
        )
    });
    assert_eq!(from_view, Response::Error(too_deep()));
    assert_eq!(from_registry, Response::Error(too_deep()));
    // An unknown name is reported first, as for text arguments.
    assert_eq!(
        unknown.error().map(ToString::to_string).as_deref(),
        Some("unknown tool `deep_ech`; did you mean `deep_echo`?")
    );
    // Within the limit, the same path still calls the tool.
    let shallow = json!({"text": [[["ok"]]]});
    assert_eq!(
        block_on(view.call_value("deep_echo", &shallow, &ctx)),
        Response::Result(shallow.clone())
    );
    dismantle(arguments);
}

#[test]
fn a_runtime_tool_refuses_a_deep_schema_without_recursing() {
    let error = on_small_stack(|| {
        let mut schema = Value::Null;
        for _ in 0..LEVELS {
            schema = Value::Object(Map::from_iter([("items".to_owned(), schema)]));
        }
        let root = Map::from_iter([
            ("type".to_owned(), json!("object")),
            ("properties".to_owned(), schema),
        ]);
        RuntimeTool::builder(
            "deep_schema",
            "A schema deeper than any text.",
            Value::Object(root),
        )
        .build(|_: Map<String, Value>, _: &Context| async { Response::Result(Value::Null) })
        .unwrap_err()
    });
    assert_eq!(
        error,
        RuntimeToolError::InvalidSchema {
            tool: "deep_schema".to_owned(),
            reason: "the arguments schema nests deeper than 128 levels of objects and arrays"
                .to_owned(),
        }
    );
}

#[test]
fn edited_arguments_of_an_approval_are_refused_without_recursing() {
    let registry = Registry::with_runtime([], [echo(Tier::Approve)]).unwrap();
    let approvals = Approvals::new(
        ApprovalKey::new(*b"an application secret of 32 bytes").unwrap(),
        MemoryApprovalStore::new(),
    );
    let view = registry
        .view()
        .scopes([Scope::Shared])
        .approvals(&approvals, p("user:7"))
        .build()
        .unwrap();
    let ctx = Context::new().with(CallId::new("call_1"));
    let Response::Pending(pending) = block_on(view.call("deep_approved", r#"{"text": 1}"#, &ctx))
    else {
        panic!("an approve tool waits for a human");
    };
    let refused = on_small_stack(|| {
        approvals
            .decide(
                &registry,
                &pending,
                Decision::ApproveWith(deep_arguments(LEVELS)),
            )
            .unwrap_err()
    });
    assert_eq!(refused, ApprovalError::InvalidArguments(too_deep()));
}
