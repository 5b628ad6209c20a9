//! Every scope takes unbound context and the one binding it provides.

use toolkit::{Context, State, ToolError, tool, binding::Binding, definition::FromContext};

struct Session;
struct CallerThread;
struct LiveMessage;

impl FromContext for Session {
    type Binding = toolkit::binding::BoundToHumanSession;
    fn from_context(_: &Context) -> Result<Self, ToolError> {
        Ok(Session)
    }
}

impl FromContext for CallerThread {
    type Binding = toolkit::binding::BoundToCallerThread;
    fn from_context(_: &Context) -> Result<Self, ToolError> {
        Ok(CallerThread)
    }
}

impl FromContext for LiveMessage {
    type Binding = toolkit::binding::BoundToLiveChannel;
    fn from_context(_: &Context) -> Result<Self, ToolError> {
        Ok(LiveMessage)
    }
}

/// shared + unbound.
#[tool(scope = shared, tier = auto)]
fn get_a(#[ctx] _store: State<u32>, #[ctx] _maybe: Option<State<String>>) {}

/// agent + caller thread + unbound.
#[tool(scope = agent, tier = auto)]
fn get_b(#[ctx] _thread: CallerThread, #[ctx] _store: State<u32>) {}

/// assistant + human session + unbound.
#[tool(scope = assistant, tier = auto)]
fn get_c(#[ctx] _session: Session, #[ctx] _store: State<u32>) {}

/// channel + live channel + unbound.
#[tool(scope = channel, tier = auto)]
fn get_d(#[ctx] _message: LiveMessage, #[ctx] _store: Option<State<u32>>) {}

fn main() {
    assert_eq!(get_a::definition().bindings, &[] as &[Binding]);
    assert_eq!(get_b::definition().bindings, &[Binding::CallerThread]);
    assert_eq!(get_c::definition().bindings, &[Binding::HumanSession]);
    assert_eq!(get_d::definition().bindings, &[Binding::LiveChannel]);
}
