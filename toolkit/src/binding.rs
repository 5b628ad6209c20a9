//! What a context type is bound to, and which scopes can provide it.
//!
//! A tool is agent-only because it needs the caller's thread, not because of what it
//! does. Every [`FromContext`](crate::definition::FromContext) type declares its binding in one
//! line (`type Binding = toolkit::binding::BoundToCallerThread;`), and `#[tool]` refuses, at
//! compile time, a `#[ctx]` parameter whose binding the tool's scope cannot provide:
//!
//! | binding type (`type Binding = ..`) | value ([`Binding`]) | provided in scope |
//! |---|---|---|
//! | [`BoundToNothing`] | [`Binding::Unbound`] | every scope |
//! | [`BoundToHumanSession`] | [`Binding::HumanSession`] | `assistant` |
//! | [`BoundToCallerThread`] | [`Binding::CallerThread`] | `agent` |
//! | [`BoundToLiveChannel`] | [`Binding::LiveChannel`] | `channel` |
//!
//! The types are named apart from the values on purpose: `Binding::CallerThread`
//! and a type `binding::BoundToCallerThread` would differ only in one letter's case, and
//! writing one where the other belongs would give a bare resolution error.
//!
//! ```
//! use toolkit::{Context, ToolError, definition::FromContext};
//!
//! /// The agent's own thread, put in the context by the agent runtime.
//! #[derive(Clone)]
//! struct CallerThread(u64);
//!
//! impl FromContext for CallerThread {
//!     type Binding = toolkit::binding::BoundToCallerThread;
//!
//!     fn from_context(ctx: &Context) -> Result<Self, ToolError> {
//!         ctx.require::<CallerThread>().cloned()
//!     }
//! }
//! ```

use std::fmt;

use serde::Serialize;

use crate::declaration::Scope;

/// What a context value is bound to, at run time. [`Tool::bindings`](crate::Tool::bindings)
/// lists the ones a tool requires, so a consumer that cannot provide one never gets
/// the tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Binding {
    /// Bound to nothing: application state, a database pool, a clock. Every scope
    /// can provide it.
    Unbound,
    /// The live human session: only `assistant` tools may take it.
    HumanSession,
    /// An autonomous agent's caller thread: only `agent` tools may take it.
    CallerThread,
    /// The live channel of this turn: only `channel` tools may take it.
    LiveChannel,
}

impl Binding {
    /// Every binding, in declaration order.
    pub const ALL: [Binding; 4] = [
        Binding::Unbound,
        Binding::HumanSession,
        Binding::CallerThread,
        Binding::LiveChannel,
    ];

    /// The binding's name in JSON (`caller_thread`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Binding::Unbound => "unbound",
            Binding::HumanSession => "human_session",
            Binding::CallerThread => "caller_thread",
            Binding::LiveChannel => "live_channel",
        }
    }

    /// Whether a tool of `scope` may take a context value with this binding.
    ///
    /// ```
    /// use toolkit::{Scope, binding::Binding};
    ///
    /// assert!(Binding::Unbound.allowed_in(Scope::Shared));
    /// assert!(Binding::CallerThread.allowed_in(Scope::Agent));
    /// assert!(!Binding::CallerThread.allowed_in(Scope::Shared));
    /// ```
    #[must_use]
    pub const fn allowed_in(self, scope: Scope) -> bool {
        matches!(
            (self, scope),
            (Binding::Unbound, _)
                | (Binding::HumanSession, Scope::Assistant)
                | (Binding::CallerThread, Scope::Agent)
                | (Binding::LiveChannel, Scope::Channel)
        )
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A binding as a type: `FromContext::Binding` names one of [`BoundToNothing`],
/// [`BoundToHumanSession`], [`BoundToCallerThread`], [`BoundToLiveChannel`]. Sealed:
/// the four bindings are the ones the scopes know how to provide.
pub trait Kind: sealed::Sealed + 'static {
    /// The binding at run time.
    const BINDING: Binding;
}

macro_rules! kinds {
    ($($(#[$doc:meta])* $kind:ident => $binding:ident,)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub enum $kind {}

        impl sealed::Sealed for $kind {}

        impl Kind for $kind {
            const BINDING: Binding = Binding::$binding;
        }
    )*};
}

kinds! {
    /// Bound to nothing ([`Binding::Unbound`]): application state, a database pool,
    /// a clock. Allowed in every scope.
    BoundToNothing => Unbound,
    /// Bound to the live human session ([`Binding::HumanSession`]): `scope =
    /// assistant` only.
    BoundToHumanSession => HumanSession,
    /// Bound to an agent's caller thread ([`Binding::CallerThread`]): `scope = agent`
    /// only.
    BoundToCallerThread => CallerThread,
    /// Bound to this turn's live channel ([`Binding::LiveChannel`]): `scope =
    /// channel` only.
    BoundToLiveChannel => LiveChannel,
}

/// The bindings a tool requires, from those of its required `#[ctx]` parameters:
/// without [`Binding::Unbound`], deduplicated, sorted.
#[doc(hidden)]
#[must_use]
pub const fn required(bindings: &[Binding]) -> &'static [Binding] {
    let mut mask = 0_u8;
    let mut i = 0;
    while i < bindings.len() {
        mask |= match bindings[i] {
            Binding::Unbound => 0,
            Binding::HumanSession => 1,
            Binding::CallerThread => 2,
            Binding::LiveChannel => 4,
        };
        i += 1;
    }
    // Only one binding compiles per scope; the other sets exist for completeness.
    match mask {
        0 => &[],
        1 => &[Binding::HumanSession],
        2 => &[Binding::CallerThread],
        3 => &[Binding::HumanSession, Binding::CallerThread],
        4 => &[Binding::LiveChannel],
        5 => &[Binding::HumanSession, Binding::LiveChannel],
        6 => &[Binding::CallerThread, Binding::LiveChannel],
        _ => &[
            Binding::HumanSession,
            Binding::CallerThread,
            Binding::LiveChannel,
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_bindings_are_deduplicated_sorted_and_without_unbound() {
        assert_eq!(required(&[]), &[] as &[Binding]);
        assert_eq!(required(&[Binding::Unbound]), &[] as &[Binding]);
        assert_eq!(
            required(&[
                Binding::LiveChannel,
                Binding::Unbound,
                Binding::CallerThread,
                Binding::LiveChannel
            ]),
            &[Binding::CallerThread, Binding::LiveChannel]
        );
    }

    #[test]
    fn each_scope_provides_unbound_and_its_own_binding() {
        let allowed: Vec<(Scope, Vec<Binding>)> = Scope::ALL
            .into_iter()
            .map(|scope| {
                let bindings = Binding::ALL
                    .into_iter()
                    .filter(|binding| binding.allowed_in(scope))
                    .collect();
                (scope, bindings)
            })
            .collect();
        assert_eq!(
            allowed,
            [
                (Scope::Shared, vec![Binding::Unbound]),
                (Scope::Agent, vec![Binding::Unbound, Binding::CallerThread]),
                (
                    Scope::Assistant,
                    vec![Binding::Unbound, Binding::HumanSession]
                ),
                (Scope::Channel, vec![Binding::Unbound, Binding::LiveChannel]),
            ]
        );
        assert_eq!(
            serde_json::to_value(Binding::CallerThread).ok(),
            Some(serde_json::json!("caller_thread"))
        );
    }
}
