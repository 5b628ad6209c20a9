//! What signs approvals and what a signature covers: the application's key, the
//! canonical JSON every digest and payload is made of.

use std::fmt;

use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{Approval, PendingApproval};

/// The secret that signs pending approvals and approvals: at least
/// [`ApprovalKey::MIN_LEN`] random bytes, held by the application (never sent to a
/// model or a client), the same in every process that resumes approvals.
///
/// Keys rotate: [`Approvals::previous_keys`](super::Approvals::previous_keys) lists keys that still verify (but no
/// longer sign), so a fleet rolls a new key without refusing approvals in flight.
#[derive(Clone)]
pub struct ApprovalKey(Vec<u8>);

impl ApprovalKey {
    /// The fewest bytes a key may have: HMAC-SHA256's output size, so guessing the
    /// key is never easier than forging a signature.
    pub const MIN_LEN: usize = 32;

    /// A key of these bytes (`openssl rand -hex 32` makes a good one).
    ///
    /// # Errors
    /// [`ApprovalKeyError`] when there are fewer than [`Self::MIN_LEN`] bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Result<Self, ApprovalKeyError> {
        let bytes = bytes.into();
        if bytes.len() < Self::MIN_LEN {
            return Err(ApprovalKeyError { len: bytes.len() });
        }
        Ok(ApprovalKey(bytes))
    }

    pub(super) fn mac(&self) -> Hmac<Sha256> {
        // HMAC takes keys of any length; `new_from_slice` cannot fail for it.
        <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"))
    }
}

/// An [`ApprovalKey`] was too short.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApprovalKeyError {
    /// How many bytes it had.
    pub len: usize,
}

impl fmt::Display for ApprovalKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an approval key needs at least {} random bytes, this one has {} \
             (make one with `openssl rand -hex 32`)",
            ApprovalKey::MIN_LEN,
            self.len
        )
    }
}

impl std::error::Error for ApprovalKeyError {}

impl fmt::Debug for ApprovalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApprovalKey(..)")
    }
}

/// What a pending approval's signature covers: its fields but the signature and the
/// arguments (bound by the digest), as canonical JSON, under its own domain.
pub(super) fn pending_payload(pending: &PendingApproval) -> String {
    let mut payload = json!({
        "type": "toolkit.pending_approval.v1",
        "call_id": pending.call_id,
        "principal": pending.principal.bound_form(),
        "tool": pending.tool,
        "digest": pending.digest,
        "requested_at": pending.requested_at,
        "expires_at": pending.expires_at,
    });
    // The view label is signed when there is one, so an approver is never shown a
    // forged "who asked"; without one the payload is the one signed before views
    // had labels, so pending approvals made then still verify.
    if let (Some(view), Some(fields)) = (&pending.view, payload.as_object_mut()) {
        fields.insert("view".to_owned(), json!(view));
    }
    canonical_json(&payload)
}

pub(super) fn approval_payload(approval: &Approval) -> String {
    let mut payload = json!({
        "type": "toolkit.approval.v1",
        "call_id": approval.call_id,
        "principal": approval.principal.bound_form(),
        "tool": approval.tool,
        "digest": approval.digest,
        "verdict": approval.verdict,
        "message": approval.message,
        "decided_at": approval.decided_at,
        "expires_at": approval.expires_at,
    });
    // Who decided is signed when it is known, so the note telling the model who
    // edited its arguments is never forged; without it the payload is the one
    // signed before approvals named their decider, which still verifies.
    if let (Some(decided_by), Some(fields)) = (&approval.decided_by, payload.as_object_mut()) {
        fields.insert("decided_by".to_owned(), json!(decided_by));
    }
    canonical_json(&payload)
}

/// JSON with object keys sorted (by UTF-8 bytes) and no whitespace: the same text
/// for the same value, whatever order the keys came in.
#[must_use]
pub fn canonical_json(value: &Value) -> String {
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Object(members) => {
                let mut keys: Vec<&String> = members.keys().collect();
                keys.sort_unstable();
                out.push('{');
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    write(&members[key], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// `sha256:` and the hex SHA-256 of the value's canonical JSON.
#[must_use]
pub fn digest(arguments: &Value) -> String {
    format!(
        "sha256:{}",
        to_hex(&Sha256::digest(canonical_json(arguments).as_bytes()))
    )
}

pub(crate) fn to_hex(bytes: &[u8]) -> String {
    use fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, byte| {
        let _ = write!(out, "{byte:02x}");
        out
    })
}

pub(crate) fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}
