//! PLACEHOLDER (branch `views`): the runtime side of the `Binding` seam of SPEC.md, so
//! views can refuse tools whose required binding a consumer can't provide. The
//! `macros` branch owns this seam (`toolkit::Binding`, the `binding::Kind` markers,
//! `FromContext::Binding`); at merge, keep the `macros` branch's file and drop this one.

use serde::Serialize;

/// What a context value is bound to, and so which scopes may take it.
///
/// `Unbound` is allowed in every scope; `HumanSession` only in `assistant`;
/// `CallerThread` only in `agent`; `LiveChannel` only in `channel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Binding {
    /// Bound to nothing: application state, stores, clients.
    Unbound,
    /// The live human session.
    HumanSession,
    /// An agent's caller thread.
    CallerThread,
    /// The live channel of this turn.
    LiveChannel,
}

impl Binding {
    /// The binding's name, snake case.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Binding::Unbound => "unbound",
            Binding::HumanSession => "human_session",
            Binding::CallerThread => "caller_thread",
            Binding::LiveChannel => "live_channel",
        }
    }
}

impl std::fmt::Display for Binding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
