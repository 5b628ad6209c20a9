//! The records an approval store keeps: a call waiting for a human
//! ([`PendingApproval`]), what the human decided ([`Verdict`]) and what its run
//! came to ([`RunOutcome`]). Plain data, so
//! the stores, the response that carries a pending call and the approval flow all
//! use them without using each other.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::principal::Principal;

/// A call waiting for a human. Serializable, so it can be stored, shown and resumed
/// in another process; signed, so a client can't fabricate one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingApproval {
    /// The model's call id ([`CallId`](super::CallId)), or a made-up one.
    pub call_id: String,
    /// Who the call acts for (the view's principal): its requester.
    pub principal: Principal,
    /// The label of the view the call was made through
    /// ([`ViewBuilder::label`](crate::view::ViewBuilder::label)), if it had one: which of
    /// the application's surfaces asked (an MCP endpoint, an agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// The validated arguments.
    pub arguments: Value,
    /// `sha256:` and the hex SHA-256 of the arguments' canonical JSON.
    pub digest: String,
    /// When the call was made, in Unix seconds.
    pub requested_at: u64,
    /// Until when a human may decide, in Unix seconds.
    pub expires_at: u64,
    /// Hex HMAC-SHA256 of the fields above (see [`crate::approval`]).
    pub signature: String,
}

/// A human's decision on a [`PendingApproval`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Run the call as requested.
    Approve,
    /// Run the call with these arguments instead (validated again).
    ApproveWith(Value),
    /// Don't run it; the model reads the message.
    Deny(String),
}

/// A signed decision, to hand to [`View::resume`](crate::View::resume). Serializable: an approval made in
/// one process (an admin UI) is resumed in another (the agent's worker).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// The call id of the pending approval.
    pub call_id: String,
    /// Who the call acts for.
    pub principal: Principal,
    /// The tool's name.
    pub tool: String,
    /// The arguments to run with (edited, if the human edited them).
    pub arguments: Value,
    /// `sha256:` and the hex SHA-256 of `arguments`' canonical JSON.
    pub digest: String,
    /// What the human decided.
    pub verdict: Verdict,
    /// The human's message (required for a denial).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When the human decided, in Unix seconds.
    pub decided_at: u64,
    /// Until when the call may be resumed, in Unix seconds.
    pub expires_at: u64,
    /// Who decided, as the audit names them ([`Decider::name`](super::Decider::name)); `None` in
    /// approvals signed before approvals named their decider. A call run with
    /// edited arguments tells the model, before its result, that they edited them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// Hex HMAC-SHA256 of the fields above except `arguments`, which the digest binds.
    pub signature: String,
}

/// What the human decided, as recorded in an [`Approval`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Approved as requested.
    Approved,
    /// Approved with edited arguments.
    ApprovedWithEdits,
    /// Denied.
    Denied,
}

impl Verdict {
    /// The verdict's name as serialized: `approved`, `approved_with_edits`, `denied`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approved => "approved",
            Verdict::ApprovedWithEdits => "approved_with_edits",
            Verdict::Denied => "denied",
        }
    }

    /// The verdict named `name` (see [`Verdict::as_str`]).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Verdict::Approved,
            Verdict::ApprovedWithEdits,
            Verdict::Denied,
        ]
        .into_iter()
        .find(|verdict| verdict.as_str() == name)
    }
}

/// The most bytes of a run's result (or error message) the store keeps with its
/// outcome; a larger result is kept as its size only.
pub const MAX_OUTCOME_BYTES: usize = 64 * 1024;

/// What the run of an approved call came to, as the approval store keeps it
/// ([`RunRecord::outcome`](super::RunRecord::outcome)): bounded by [`MAX_OUTCOME_BYTES`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunOutcome {
    /// The tool returned a result.
    Ran {
        /// The result, as the model read it; `None` when it was larger than
        /// [`MAX_OUTCOME_BYTES`], or the run was recorded before stores kept
        /// outcomes.
        result: Option<Value>,
        /// The size of the result's JSON, in bytes; 0 when it is unknown (a run
        /// recorded before stores kept outcomes: no result's JSON is empty).
        bytes: usize,
    },
    /// The tool (or the run) failed; the next presentation may run it again.
    Failed {
        /// The error's kind (`failed`, `panicked`, ...), as in [`ToolError::kind`](crate::ToolError::kind).
        kind: String,
        /// What the model read, cut to [`MAX_OUTCOME_BYTES`].
        message: String,
    },
}

impl RunOutcome {
    /// Whether the tool returned a result.
    #[must_use]
    pub fn ran(&self) -> bool {
        matches!(self, RunOutcome::Ran { .. })
    }

    /// The outcome as the stores keep it: JSON text.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }

    /// An outcome a store kept as [`RunOutcome::to_json`]; an error for text that
    /// is not one (altered in the store), which the stores report as a
    /// [`Corrupt`](super::StoreErrorKind::Corrupt) record rather than as a run
    /// with no outcome.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

impl fmt::Display for RunOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunOutcome::Ran {
                result: Some(result),
                ..
            } => write!(f, "ran it, with the result {result}"),
            RunOutcome::Ran {
                result: None,
                bytes: 0,
            } => f.write_str("ran it, before its result was kept"),
            RunOutcome::Ran {
                result: None,
                bytes,
            } => write!(
                f,
                "ran it, with a result of {bytes} bytes (too large to keep)"
            ),
            RunOutcome::Failed { message, .. } => write!(f, "failed: {message}"),
        }
    }
}
