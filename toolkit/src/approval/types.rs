//! The records an approval store keeps: a call waiting for a human
//! ([`PendingApproval`]) and what the human decided ([`Verdict`]). Plain data, so
//! the stores, the response that carries a pending call and the approval flow all
//! use them without using each other.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A call waiting for a human. Serializable, so it can be stored, shown and resumed
/// in another process; signed, so a client can't fabricate one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingApproval {
    /// The model's call id ([`CallId`](super::CallId)), or a made-up one.
    pub call_id: String,
    /// Who the call acts for (the view's principal).
    pub principal: String,
    /// The label of the view the call was made through
    /// ([`ViewBuilder::label`](crate::ViewBuilder::label)), if it had one: which of
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

/// What the human decided, as recorded in an [`Approval`](super::Approval).
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
