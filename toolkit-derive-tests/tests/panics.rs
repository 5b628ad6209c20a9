//! Panics inside tools, the whole story: the model gets a
//! stable message and an id, the application gets the text, and no panic gets out
//! of a call: not one whose payload panics when dropped, not one from a guard
//! dropped when the call is cancelled. A test binary of its own, because the
//! opt-in to expose panic text is process-wide.

use std::future::{Future, pending};
use std::pin::pin;
use std::sync::{Mutex, Once};
use std::task::{Context as TaskContext, Poll, Waker};

use futures_executor::block_on;
use toolkit::{Context, Response, ToolError, panics::PanicReport, registry, tool};

/// A panic payload whose own `Drop` panics.
struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("the payload exploded while being dropped");
    }
}

/// A guard whose `Drop` panics, like a lock guard checking an invariant.
struct Tripwire;

impl Drop for Tripwire {
    fn drop(&mut self) {
        panic!("the tripwire fired while being dropped");
    }
}

/// Get a bomb: panics with a payload whose drop panics too.
#[tool(scope = shared, tier = auto)]
fn get_bomb() -> u8 {
    std::panic::panic_any(Bomb)
}

/// Get a tripwire: holds a guard whose drop panics, and waits forever.
#[tool(scope = shared, tier = auto)]
async fn get_tripwire(
    /// Return at once (the guard drops as the tool finishes) instead of waiting.
    #[tool(default = false)]
    finish: bool,
) -> u8 {
    let _guard = Tripwire;
    if !finish {
        pending::<()>().await;
    }
    1
}

/// Get a secret: panics with text the model must not read.
#[tool(scope = shared, tier = auto)]
fn get_secret() -> u8 {
    panic!("connection to postgres://admin:hunter2@db failed")
}

static REPORTS: Mutex<Vec<PanicReport>> = Mutex::new(Vec::new());

fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        toolkit::panics::on_panic(|report| {
            REPORTS.lock().expect("not poisoned").push(report.clone());
        });
    });
}

fn reports_of(tool: &str) -> Vec<String> {
    REPORTS
        .lock()
        .expect("not poisoned")
        .iter()
        .filter(|report| report.tool == tool)
        .map(|report| report.message.clone())
        .collect()
}

fn call(name: &str, arguments: &str) -> Response {
    install_hook();
    block_on(registry().call(name, arguments, &Context::new()))
}

#[test]
fn panics_are_hidden_from_the_model_unless_the_application_opts_in() {
    // The only test here that reads `message`: the opt-in is process-wide.
    let Response::Error(ToolError::Panicked { message, id }) = call("get_secret", "{}") else {
        panic!("expected a panic");
    };
    assert_eq!(message, toolkit::panics::PANIC_MESSAGE);
    assert!(!message.contains("hunter2"));
    let report = REPORTS
        .lock()
        .expect("not poisoned")
        .iter()
        .find(|report| report.id == id)
        .cloned()
        .expect("reported");
    assert_eq!(report.tool, "get_secret");
    assert_eq!(
        report.message,
        "connection to postgres://admin:hunter2@db failed"
    );
    // Ids differ per panic.
    let Response::Error(ToolError::Panicked { id: second, .. }) = call("get_secret", "{}") else {
        panic!("expected a panic");
    };
    assert_ne!(id, second);

    toolkit::panics::expose_panic_messages(true);
    let exposed = call("get_secret", "{}");
    toolkit::panics::expose_panic_messages(false);
    let Response::Error(ToolError::Panicked { message, .. }) = exposed else {
        panic!("expected a panic");
    };
    assert_eq!(message, "connection to postgres://admin:hunter2@db failed");
}

#[test]
fn a_payload_whose_drop_panics_does_not_escape() {
    let response = call("get_bomb", "{}");
    assert_eq!(response.error().map(ToolError::kind), Some("panicked"));
    assert!(reports_of("get_bomb").contains(&"a panic with a non-string payload".to_owned()));
    // The registry keeps serving.
    assert_eq!(
        response.error().map(ToolError::kind),
        call("get_bomb", "{}").error().map(ToolError::kind)
    );
}

#[test]
fn a_guard_whose_drop_panics_as_the_tool_finishes_is_caught() {
    let response = call("get_tripwire", r#"{"finish": true}"#);
    assert_eq!(response.error().map(ToolError::kind), Some("panicked"));
}

#[test]
fn a_call_cancelled_while_holding_a_guard_whose_drop_panics_does_not_escape() {
    install_hook();
    let ctx = Context::new();
    let before = reports_of("get_tripwire").len();
    {
        let mut call = pin!(registry().call("get_tripwire", "{}", &ctx));
        let mut task = TaskContext::from_waker(Waker::noop());
        assert!(matches!(call.as_mut().poll(&mut task), Poll::Pending));
        // Dropped here, unfinished: the guard's panic stays inside.
    }
    // (The test beside this one may report the same tool at the same time.)
    let after = reports_of("get_tripwire");
    assert!(after.len() > before);
    assert!(
        after
            .iter()
            .all(|message| message == "the tripwire fired while being dropped")
    );
}
