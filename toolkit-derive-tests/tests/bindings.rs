//! Scopes bound by type: each context type declares its binding, each tool records
//! the bindings it requires (`Tool::bindings`), and `Tool::validate` checks a call's
//! arguments without running anything. The pairs that must not compile are in
//! `toolkit-ui-tests/tests/ui/bindings.rs`.

use futures_executor::block_on;
use serde_json::json;
use toolkit::{
    Context, Response, State, ToolError, binding::Binding, definition::FromContext, registry, tool,
};

/// The live human session.
#[derive(Clone)]
struct Session {
    user: String,
}

impl FromContext for Session {
    type Binding = toolkit::binding::BoundToHumanSession;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.require::<Session>().cloned()
    }
}

/// An agent's own thread.
#[derive(Clone)]
struct CallerThread(u64);

impl FromContext for CallerThread {
    type Binding = toolkit::binding::BoundToCallerThread;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.require::<CallerThread>().cloned()
    }
}

/// The message this turn answers.
#[derive(Clone)]
struct LiveMessage {
    channel: String,
}

impl FromContext for LiveMessage {
    type Binding = toolkit::binding::BoundToLiveChannel;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.require::<LiveMessage>().cloned()
    }
}

/// Application state, bound to nothing.
#[derive(Clone)]
struct Clock(u32);

/// Get the time: unbound state works in every scope.
#[tool(scope = shared, tier = auto)]
fn get_time(#[ctx] clock: State<Clock>) -> u32 {
    clock.0.0
}

/// Get the signed-in user.
#[tool(scope = assistant, tier = auto)]
fn get_user(#[ctx] session: Session, #[ctx] clock: State<Clock>) -> String {
    format!("{} at {}", session.user, clock.0.0)
}

/// Get the agent's thread.
#[tool(scope = agent, tier = auto)]
fn get_thread(#[ctx] thread: CallerThread, #[ctx] again: CallerThread) -> u64 {
    thread.0 + again.0
}

/// Create a reply on this turn's channel.
#[tool(scope = channel, tier = auto)]
fn create_reply(
    #[ctx] message: LiveMessage,
    /// What to say.
    text: String,
) -> String {
    format!("{}: {text}", message.channel)
}

/// Get the agent's thread when there is one: an optional binding is not required.
#[tool(scope = agent, tier = auto)]
fn get_maybe_thread(#[ctx] thread: Option<CallerThread>) -> Option<u64> {
    thread.map(|thread| thread.0)
}

fn bindings(name: &str) -> &'static [Binding] {
    registry()
        .get(name)
        .unwrap_or_else(|| panic!("{name} is registered"))
        .tool()
        .bindings
}

#[test]
fn each_tool_records_the_bindings_it_requires() {
    assert_eq!(bindings("get_time"), &[] as &[Binding]);
    // `State<Clock>` is unbound and left out.
    assert_eq!(bindings("get_user"), &[Binding::HumanSession]);
    // Two parameters of one binding: listed once.
    assert_eq!(bindings("get_thread"), &[Binding::CallerThread]);
    assert_eq!(bindings("create_reply"), &[Binding::LiveChannel]);
    assert_eq!(bindings("get_maybe_thread"), &[] as &[Binding]);
    assert_eq!(get_user::definition().bindings, &[Binding::HumanSession]);
}

#[test]
fn bound_tools_run_with_their_context() {
    let ctx = Context::new()
        .with(Clock(9))
        .with(Session {
            user: "ada".to_owned(),
        })
        .with(CallerThread(20))
        .with(LiveMessage {
            channel: "sms".to_owned(),
        });
    let call = |name: &str, arguments: &str| block_on(registry().call(name, arguments, &ctx));
    assert_eq!(call("get_time", ""), Response::Result(json!(9)));
    assert_eq!(call("get_user", ""), Response::Result(json!("ada at 9")));
    assert_eq!(call("get_thread", ""), Response::Result(json!(40)));
    assert_eq!(
        call("create_reply", r#"{"text": "hi"}"#),
        Response::Result(json!("sms: hi"))
    );
    assert_eq!(call("get_maybe_thread", ""), Response::Result(json!(20)));
    assert_eq!(
        block_on(registry().call("get_maybe_thread", "", &Context::new())),
        Response::Result(json!(null))
    );
}

#[test]
fn validate_parses_exactly_as_dispatch_and_runs_nothing() {
    let validate = create_reply::definition().validate;
    assert_eq!(validate(r#"{"text": "hi"}"#), Ok(()));
    assert_eq!(
        validate(r#"{"text": 7}"#),
        Err(ToolError::invalid_arguments(
            "text".to_owned(),
            "expected a string, got 7".to_owned()
        ))
    );
    assert_eq!(
        validate("{}"),
        Err(ToolError::invalid_arguments(
            "text".to_owned(),
            "missing required field".to_owned()
        ))
    );
    // Without a context at all: validation never extracts one.
    assert_eq!((get_thread::definition().validate)(""), Ok(()));
}
