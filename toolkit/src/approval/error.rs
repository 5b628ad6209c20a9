//! Why an approval runs nothing: every refusal, in words the model can act on.

use std::fmt;

use crate::error::ToolError;

use super::{DecisionRecord, RunOutcome, StoreError};

/// Why a pending approval or an approval was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApprovalError {
    /// The signature does not match: forged, altered, or signed with another key.
    BadSignature,
    /// Past its expiry.
    Expired {
        /// When it expired, in Unix seconds.
        expired_at: u64,
    },
    /// Already used: an approved call runs once.
    AlreadyUsed,
    /// Another request is running this approved call right now (or was, and died:
    /// its lease ends at `lease_until`). Nothing ran here; try again after then.
    Running {
        /// When the other run's lease ends, in Unix seconds (store time).
        lease_until: u64,
        /// Seconds from now until then.
        retry_after: u64,
    },
    /// Another decision on this pending approval was recorded first: here it is,
    /// as the store keeps it (its message, its edited arguments).
    AlreadyDecided(Box<DecisionRecord>),
    /// The approval policy does not let this decider decide this call (the
    /// requester approving its own call, say): nothing was recorded as the
    /// decision, the refusal was recorded in the audit, and nothing ran.
    NotAllowed {
        /// Who tried to decide, as recorded.
        decided_by: String,
        /// Why not, in words.
        reason: String,
    },
    /// The recorded decision approved the call with edited arguments that cannot
    /// be run (the store kept none with it, or they no longer match its digest);
    /// nothing ran.
    EditsUnusable {
        /// Who approved it.
        decided_by: String,
        /// What is wrong with the recorded arguments.
        why: &'static str,
    },
    /// This run of the approved call lost its claim: its lease ended and a later
    /// attempt took the run over. Nothing this attempt did was recorded; the
    /// call's outcome is the later attempt's.
    Superseded {
        /// The attempt that holds the run now.
        attempt: u32,
        /// What that attempt's run came to, if it ended yet.
        outcome: Option<RunOutcome>,
    },
    /// Issued for another principal than the view's.
    WrongPrincipal,
    /// The arguments don't match the signed digest.
    ArgumentsAltered,
    /// Edited (or stored) arguments the tool does not accept.
    InvalidArguments(ToolError),
    /// No such tool in the registry (when deciding).
    UnknownTool(String),
    /// The view was built without approvals, so it can't check one.
    NotConfigured,
    /// The approval store failed; nothing ran. Its message is the store's own (for
    /// the application and its log); turned into a [`ToolError`] for the model, it
    /// says only that the store failed and to try again.
    Store(StoreError),
}

/// What a caller is told when the approval store failed.
const STORE_FAILED: &str = "the approval store failed, nothing ran; try again";

impl fmt::Display for ApprovalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApprovalError::BadSignature => {
                f.write_str("its signature does not match (forged or altered)")
            }
            ApprovalError::Expired { expired_at } => {
                write!(f, "it expired at {expired_at} (Unix seconds)")
            }
            ApprovalError::AlreadyUsed => {
                f.write_str("it was already used, and an approved call runs once")
            }
            ApprovalError::Running { retry_after, .. } => write!(
                f,
                "another request is running it now; if that run does not finish, try \
                 again in {retry_after} s"
            ),
            ApprovalError::AlreadyDecided(record) => write!(
                f,
                "it was already decided ({}) by {} at {} (Unix seconds)",
                record.verdict.as_str(),
                record.decided_by,
                record.decided_at
            ),
            ApprovalError::NotAllowed { decided_by, reason } => {
                write!(f, "{decided_by} may not decide it: {reason}")
            }
            ApprovalError::EditsUnusable { decided_by, why } => {
                write!(
                    f,
                    "{decided_by} approved it with edited arguments, but {why}"
                )
            }
            ApprovalError::Superseded { attempt, outcome } => {
                write!(
                    f,
                    "this run was taken over by attempt {attempt} after its lease ended, \
                     and nothing it did was recorded; "
                )?;
                match outcome {
                    Some(outcome) => write!(f, "that attempt {outcome}"),
                    None => f.write_str("that attempt is still running"),
                }
            }
            ApprovalError::WrongPrincipal => f.write_str("it was issued for another principal"),
            ApprovalError::ArgumentsAltered => {
                f.write_str("the arguments do not match the approved digest")
            }
            ApprovalError::InvalidArguments(error) => {
                write!(f, "the arguments are not valid: {error}")
            }
            ApprovalError::UnknownTool(tool) => write!(f, "no tool is named `{tool}`"),
            ApprovalError::NotConfigured => {
                f.write_str("this view was built without approvals, so it cannot check one")
            }
            ApprovalError::Store(error) => write!(f, "{STORE_FAILED}: {error}"),
        }
    }
}

impl std::error::Error for ApprovalError {}

impl From<ApprovalError> for ToolError {
    fn from(error: ApprovalError) -> Self {
        match error {
            ApprovalError::InvalidArguments(error) => error,
            // The store's own words (a database's message, its host and port) are
            // for the operator's log; the model and an MCP client hear only that
            // nothing ran and to try again.
            ApprovalError::Store(error) => {
                tracing::warn!(%error, "the approval store failed; the caller was told to try again");
                ToolError::ApprovalRejected {
                    reason: STORE_FAILED.to_owned(),
                }
            }
            other => ToolError::ApprovalRejected {
                reason: other.to_string(),
            },
        }
    }
}
