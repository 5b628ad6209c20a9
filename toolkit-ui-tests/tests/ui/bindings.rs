//! A `#[ctx]` parameter whose binding the tool's scope cannot provide: one error per
//! scope and binding that must not meet, in the user's words, on the parameter's type.

use toolkit::{Context, ToolError, tool, definition::FromContext};

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

/// shared + human session.
#[tool(scope = shared, tier = auto)]
fn get_a(#[ctx] _session: Session) {}

/// shared + caller thread.
#[tool(scope = shared, tier = auto)]
fn get_b(#[ctx] _thread: CallerThread) {}

/// shared + live channel.
#[tool(scope = shared, tier = auto)]
fn get_c(#[ctx] _message: LiveMessage) {}

/// agent + human session.
#[tool(scope = agent, tier = auto)]
fn get_d(#[ctx] _session: Session) {}

/// agent + live channel.
#[tool(scope = agent, tier = auto)]
fn get_e(#[ctx] _message: LiveMessage) {}

/// assistant + caller thread.
#[tool(scope = assistant, tier = auto)]
fn get_f(#[ctx] _thread: CallerThread) {}

/// assistant + live channel.
#[tool(scope = assistant, tier = auto)]
fn get_g(#[ctx] _message: LiveMessage) {}

/// channel + human session.
#[tool(scope = channel, tier = auto)]
fn get_h(#[ctx] _session: Session) {}

/// channel + caller thread, behind an `Option`: optional, but still bound.
#[tool(scope = channel, tier = auto)]
fn get_i(#[ctx] _thread: Option<CallerThread>) {}

fn main() {}
