//! Why an approval runs nothing: every refusal, in words the model can act on.

use std::fmt;

use crate::error::ToolError;

use super::store_error::{StoreError, StoreErrorKind};
use super::{DecisionRecord, RunOutcome};

/// Why a pending approval or an approval was refused.
///
/// Its message is for the application (and, through [`ToolError`], for the
/// model, except a store's failure: see [`ApprovalError::Store`]). The variants
/// that wrap another error ([`InvalidArguments`](ApprovalError::InvalidArguments),
/// [`Store`](ApprovalError::Store)) also give it as their
/// [`source`](std::error::Error::source), so code can inspect the cause; their
/// message already carries the cause's words, so a log that prints only the
/// message loses nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ApprovalError {
    /// The signature does not match: forged, altered, or signed with another key.
    #[error("its signature does not match (forged or altered)")]
    BadSignature,
    /// Past its expiry.
    #[error("it expired at {expired_at} (Unix seconds)")]
    Expired {
        /// When it expired, in Unix seconds.
        expired_at: u64,
    },
    /// Already used: an approved call runs once. Said when the store keeps no
    /// outcome of its run; otherwise [`ApprovalError::Ended`] says what it came to.
    #[error("it was already used, and an approved call runs once")]
    AlreadyUsed,
    /// The call's run already ended, on any replica, and it never runs again:
    /// what it came to, as the store keeps it. Its caller hears that it ran, with
    /// its result ([`ToolError::AlreadyRan`]), or why it never will (a withdrawal,
    /// the requester's "no", a refusal at run time).
    #[error("{}; an approved call runs once", EndedAs(.0))]
    Ended(RunOutcome),
    /// Another request is running this approved call right now (or was, and died:
    /// its lease ends at `lease_until`). Nothing ran here; try again after then.
    #[error(
        "another request is running it now; if that run does not finish, try again in \
         {retry_after} s"
    )]
    Running {
        /// When the other run's lease ends, in Unix seconds (store time).
        lease_until: u64,
        /// Seconds from now until then.
        retry_after: u64,
    },
    /// Another decision on this pending approval was recorded first: here it is,
    /// as the store keeps it (its message, its edited arguments).
    #[error(
        "it was already decided ({verdict}) by {by} at {at} (Unix seconds)",
        verdict = .0.verdict.as_str(),
        by = .0.decided_by,
        at = .0.decided_at
    )]
    AlreadyDecided(Box<DecisionRecord>),
    /// The approval policy does not let this decider decide this call (the
    /// requester approving its own call, say): nothing was recorded as the
    /// decision, the refusal was recorded in the audit, and nothing ran.
    #[error("{decided_by} may not decide it: {reason}")]
    NotAllowed {
        /// Who tried to decide, as recorded.
        decided_by: String,
        /// Why not, in words.
        reason: String,
    },
    /// The recorded decision approved the call with edited arguments that cannot
    /// be run (the store kept none with it, or they no longer match its digest);
    /// nothing ran.
    #[error("{decided_by} approved it with edited arguments, but {why}")]
    EditsUnusable {
        /// Who approved it.
        decided_by: String,
        /// What is wrong with the recorded arguments.
        why: &'static str,
    },
    /// This run of the approved call lost its claim: its lease ended and a later
    /// attempt took the run over. Nothing this attempt did was recorded; the
    /// call's outcome is the later attempt's.
    #[error(
        "this run was taken over by attempt {attempt} after its lease ended, and nothing \
         it did was recorded; {that}",
        that = ThatAttempt(.outcome.as_ref())
    )]
    Superseded {
        /// The attempt that holds the run now.
        attempt: u32,
        /// What that attempt's run came to, if it ended yet.
        outcome: Option<RunOutcome>,
    },
    /// Issued for another principal than the view's.
    #[error("it was issued for another principal")]
    WrongPrincipal,
    /// The arguments don't match the signed digest.
    #[error("the arguments do not match the approved digest")]
    ArgumentsAltered,
    /// Edited (or stored) arguments the tool does not accept; the tool's error is
    /// the [`source`](std::error::Error::source).
    #[error("the arguments are not valid: {0}")]
    InvalidArguments(#[source] ToolError),
    /// No such tool in the registry (when deciding).
    #[error("no tool is named `{0}`")]
    UnknownTool(String),
    /// The view was built without approvals, so it can't check one.
    #[error("this view was built without approvals, so it cannot check one")]
    NotConfigured,
    /// The approval store failed. Its message names what failed (of the
    /// [`StoreError::kind`]) and then the store's own words (for the application
    /// and its log); the [`StoreError`] is the
    /// [`source`](std::error::Error::source). It says nothing of the call's run:
    /// what is known of it depends on where the store failed. Turned into a
    /// [`ToolError`] (a call or a resume refused before its tool ran), it says only
    /// what failed and whether to try again ([`ApprovalError::state_unknown`] is
    /// what a reader of a call's state is told).
    #[error("{what}: {0}", what = what_failed(.0))]
    Store(#[source] StoreError),
}

/// What failed, in words for whoever was refused, from the store error's kind
/// alone (its own words, a database's host and message, stay in the log).
fn what_failed(error: &StoreError) -> &'static str {
    match error.kind() {
        StoreErrorKind::Unavailable => "the approval store could not be reached",
        StoreErrorKind::Timeout => "the approval store did not answer in time",
        StoreErrorKind::Conflict => "the approval store's write collided with another",
        StoreErrorKind::Corrupt => "a record in the approval store is corrupt",
        StoreErrorKind::Misconfigured => "the approval store is not set up as this build needs",
        StoreErrorKind::InvalidQuery => "the approval store refused the query",
        _ => "the approval store failed",
    }
}

/// Whether trying again may help after `error`.
fn worth_retrying(error: &StoreError) -> bool {
    !matches!(
        error.kind(),
        StoreErrorKind::Corrupt | StoreErrorKind::Misconfigured | StoreErrorKind::InvalidQuery
    )
}

impl ApprovalError {
    /// What a reader of a call's state (an MCP `tasks/get`, the inbox) is told when
    /// the store failed while reading it: what failed, that what became of the call
    /// is not known (a corrupt record: that it may have run), and whether to try
    /// again; `None` for every other error. The store's own words are not in it.
    ///
    /// ```
    /// use toolkit::approval::{ApprovalError, StoreError, StoreErrorKind};
    ///
    /// let corrupt = StoreError::new("unknown verdict `maybe`").with_kind(StoreErrorKind::Corrupt);
    /// assert_eq!(
    ///     ApprovalError::Store(corrupt).state_unknown().as_deref(),
    ///     Some("a record in the approval store is corrupt, so what became of the call is \
    ///           not known: it may have run; an operator must repair the record")
    /// );
    /// ```
    #[must_use]
    pub fn state_unknown(&self) -> Option<String> {
        let ApprovalError::Store(error) = self else {
            return None;
        };
        let what = what_failed(error);
        Some(if error.kind() == StoreErrorKind::Corrupt {
            format!(
                "{what}, so what became of the call is not known: it may have run; an operator \
                 must repair the record"
            )
        } else if worth_retrying(error) {
            format!("{what}, so what became of the call is not known; try again")
        } else {
            format!("{what}, so what became of the call is not known")
        })
    }
}

/// What [`ApprovalError::Ended`] says of the run.
struct EndedAs<'a>(&'a RunOutcome);

impl fmt::Display for EndedAs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            RunOutcome::Ran { .. } => write!(f, "it already ran, {}", RanWith(self.0)),
            RunOutcome::Failed { message, .. } => write!(f, "it ended without running: {message}"),
        }
    }
}

/// A run's result in words: `with the result {..}`, or its size when the store
/// kept too much to keep it.
struct RanWith<'a>(&'a RunOutcome);

impl fmt::Display for RanWith<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            // Canonical JSON (sorted keys): the same words on every replica and
            // build, whatever key order serde_json keeps.
            RunOutcome::Ran {
                result: Some(result),
                ..
            } => write!(f, "with the result {}", super::canonical_json(result)),
            // Runs recorded before outcomes were kept read as ran with no size.
            RunOutcome::Ran {
                result: None,
                bytes: 0,
            } => f.write_str("before its result was kept"),
            RunOutcome::Ran {
                result: None,
                bytes,
            } => write!(f, "with a result of {bytes} bytes (too large to keep)"),
            RunOutcome::Failed { message, .. } => write!(f, "failing: {message}"),
        }
    }
}

/// The end of [`ApprovalError::Superseded`]'s message: what the attempt that took
/// the run over came to.
struct ThatAttempt<'a>(Option<&'a RunOutcome>);

impl fmt::Display for ThatAttempt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(outcome) => write!(f, "that attempt {outcome}"),
            None => f.write_str("that attempt is still running"),
        }
    }
}

impl From<ApprovalError> for ToolError {
    fn from(error: ApprovalError) -> Self {
        match error {
            ApprovalError::InvalidArguments(error) => error,
            // It ran: saying "refused; nothing ran" would be false.
            ApprovalError::Ended(outcome) if outcome.ran() => ToolError::AlreadyRan {
                outcome: RanWith(&outcome).to_string(),
            },
            // The store's own words (a database's message, its host and port) are
            // for the operator's log; the model and an MCP client hear what failed
            // and whether to try again. A call or a resume meets the store before
            // its tool runs, so this request ran nothing: `ApprovalRejected` says
            // so once.
            ApprovalError::Store(error) => {
                tracing::warn!(
                    %error,
                    kind = ?error.kind(),
                    "the approval store failed; the caller was refused"
                );
                let what = what_failed(&error);
                let reason = if error.kind() == StoreErrorKind::Corrupt {
                    format!("{what}; an operator must repair it before the call can run")
                } else if worth_retrying(&error) {
                    format!("{what}; try again")
                } else {
                    what.to_owned()
                };
                ToolError::ApprovalRejected { reason }
            }
            other => ToolError::ApprovalRejected {
                reason: other.to_string(),
            },
        }
    }
}
