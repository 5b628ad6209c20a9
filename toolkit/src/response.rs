//! [`Response`]: what every call answers. Above the error, the preview and the
//! pending approval it carries, so none of those needs to know about the others.

use serde::Serialize;
use serde_json::Value;

use crate::approval::PendingApproval;
use crate::error::ToolError;
use crate::preview::Preview;

/// The one response type of every call: the tool's serialized result, or an error
/// the model can act on.
///
/// Serializes as `{"result": ...}`, `{"error": {"kind": ..., "message": ...}}`;
/// for a `confirm` tool called without `confirmed: true`,
/// `{"requires_confirmation": true, "message": ..., "items": [...]}`; for an
/// `approve` tool waiting for a human, `{"pending_approval": {...}}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// The tool ran; this is its serialized return value.
    Result(Value),
    /// The call failed.
    Error(ToolError),
    /// A `confirm` tool was called without `confirmed: true`: it did not run, and
    /// this is what it would do.
    Preview(Preview),
    /// An `approve` tool's call waits for a human; the tool has not run. Store it,
    /// show it, and resume it once decided (see [`crate::approval`]). Boxed: every
    /// call's response moves through a few layers, and this rare variant would
    /// otherwise make all of them twice as wide.
    Pending(Box<PendingApproval>),
}

impl Response {
    /// The outcome spans and metrics record: `ok`, `preview`, `pending_approval`,
    /// or the error's kind.
    pub(crate) fn outcome(&self) -> &'static str {
        match self {
            Response::Result(_) => "ok",
            Response::Error(error) => error.kind(),
            Response::Pending(_) => "pending_approval",
            Response::Preview(_) => "preview",
        }
    }

    /// Whether the tool ran and returned a result.
    #[must_use]
    pub fn is_success(&self) -> bool {
        matches!(self, Response::Result(_))
    }

    /// The result, or the error.
    pub fn into_result(self) -> Result<Value, ToolError> {
        self.into()
    }

    /// The result, if the call succeeded.
    #[must_use]
    pub fn result(&self) -> Option<&Value> {
        match self {
            Response::Result(value) => Some(value),
            _ => None,
        }
    }

    /// The error, if the call failed.
    #[must_use]
    pub fn error(&self) -> Option<&ToolError> {
        match self {
            Response::Error(error) => Some(error),
            _ => None,
        }
    }

    /// The pending approval, if the call waits for a human.
    #[must_use]
    pub fn pending(&self) -> Option<&PendingApproval> {
        match self {
            Response::Pending(pending) => Some(pending),
            _ => None,
        }
    }

    /// The preview, if a `confirm` tool was called without `confirmed: true`.
    #[must_use]
    pub fn preview(&self) -> Option<&Preview> {
        match self {
            Response::Preview(preview) => Some(preview),
            _ => None,
        }
    }

    /// The JSON the model reads: `{"result": ...}`,
    /// `{"error": {"kind": ..., "message": ..., ...}}`,
    /// `{"requires_confirmation": true, "message": ..., "items": [...]}` or
    /// `{"pending_approval": {...}}`. Copies the
    /// result; prefer [`Response::into_json`], or serialize the response itself (no
    /// copy).
    #[must_use]
    pub fn to_json(&self) -> Value {
        match self {
            Response::Result(value) => wrap("result", value.clone()),
            Response::Error(error) => wrap("error", error_body(error)),
            Response::Preview(preview) => preview.to_json(),
            Response::Pending(pending) => wrap("pending_approval", pending_body(pending)),
        }
    }

    /// [`Response::to_json`] without copying the result.
    #[must_use]
    pub fn into_json(self) -> Value {
        match self {
            Response::Result(value) => wrap("result", value),
            Response::Error(error) => wrap("error", error_body(&error)),
            Response::Preview(preview) => preview.to_json(),
            Response::Pending(pending) => wrap("pending_approval", pending_body(&pending)),
        }
    }
}

fn wrap(key: &str, value: Value) -> Value {
    let mut object = serde_json::Map::with_capacity(1);
    object.insert(key.to_owned(), value);
    Value::Object(object)
}

/// An error as the model reads it: its fields, plus its `Display` text as
/// `message` for variants without a message of their own.
fn pending_body(pending: &PendingApproval) -> Value {
    serde_json::to_value(pending).unwrap_or(Value::Null)
}

fn error_body(error: &ToolError) -> Value {
    let mut body = serde_json::to_value(error).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut body {
        fields
            .entry("message")
            .or_insert_with(|| Value::String(error.to_string()));
    }
    body
}

impl Serialize for Response {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        if let Response::Preview(preview) = self {
            return preview.to_json().serialize(serializer);
        }
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            // The result is written where it is, never copied.
            Response::Result(value) => map.serialize_entry("result", value)?,
            Response::Error(error) => map.serialize_entry("error", &error_body(error))?,
            Response::Pending(pending) => map.serialize_entry("pending_approval", pending)?,
            Response::Preview(_) => {}
        }
        map.end()
    }
}

impl From<Result<Value, ToolError>> for Response {
    fn from(result: Result<Value, ToolError>) -> Self {
        match result {
            Ok(value) => Response::Result(value),
            Err(error) => Response::Error(error),
        }
    }
}

/// A preview is not an error: it becomes `Ok` with the JSON the model reads. A
/// pending approval becomes [`ToolError::ApprovalRequired`]: the tool did not run.
impl From<Response> for Result<Value, ToolError> {
    fn from(response: Response) -> Self {
        match response {
            Response::Result(value) => Ok(value),
            Response::Preview(preview) => Ok(preview.to_json()),
            Response::Error(error) => Err(error),
            Response::Pending(pending) => Err(ToolError::ApprovalRequired { tool: pending.tool }),
        }
    }
}
