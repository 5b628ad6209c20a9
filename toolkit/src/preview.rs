//! What a `confirm` tool shows before it acts.
//!
//! A `#[tool(tier = confirm)]` gets a `confirmed` argument it never sees. Called
//! without `confirmed: true`, the tool does not run: the call returns a
//! [`Response::Preview`](crate::Response::Preview) the model can show the user,
//! built by the tool's `preview = path::to_fn` from the same validated arguments.
//! Called again with `confirmed: true`, the tool runs.

use std::fmt::Display;
use std::future::{Future, Ready, ready};

use serde::Serialize;
use serde_json::Value;

use crate::error::ToolError;

/// What a `confirm` tool would do: a message and the items it would affect.
///
/// Serialized for the model as
/// `{"requires_confirmation": true, "message": ..., "items": [...]}`.
///
/// ```
/// use toolkit::Preview;
///
/// let preview = Preview::new("Delete 2 pages?").item("/about").item("/team");
/// assert_eq!(preview.items, [serde_json::json!("/about"), serde_json::json!("/team")]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Preview {
    /// What would happen, for the model to show the user.
    pub message: String,
    /// The items the call would affect, as JSON.
    pub items: Vec<Value>,
}

impl Preview {
    /// A preview with `message` and no items.
    pub fn new(message: impl Into<String>) -> Self {
        Preview {
            message: message.into(),
            items: Vec::new(),
        }
    }

    /// Adds one affected item. A value that cannot be serialized is added as its
    /// serializer's error message, so a preview never fails for that alone.
    #[must_use]
    pub fn item(mut self, item: impl Serialize) -> Self {
        self.items.push(to_value(&item));
        self
    }

    /// Adds every item of `items`.
    #[must_use]
    pub fn items<I>(mut self, items: I) -> Self
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        self.items
            .extend(items.into_iter().map(|item| to_value(&item)));
        self
    }

    /// The JSON the model reads: `{"requires_confirmation": true, "message": ..., "items": [...]}`.
    #[must_use]
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "requires_confirmation": true,
            "message": self.message,
            "items": self.items,
        })
    }
}

fn to_value(item: &impl Serialize) -> Value {
    serde_json::to_value(item).unwrap_or_else(|error| Value::String(error.to_string()))
}

/// The preview of a `confirm` tool without `preview = ..`: the message SPEC.md
/// fixes, with the arguments the model sent (without `confirmed`, without `null`
/// members, which mean absent) as the single item.
#[doc(hidden)]
#[must_use]
pub fn default_preview(name: &str, arguments: &str) -> Preview {
    let mut value = serde_json::from_str::<Value>(arguments)
        .ok()
        .filter(Value::is_object)
        .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    if let Value::Object(members) = &mut value {
        members.remove("confirmed");
        members.retain(|_, member| !member.is_null());
    }
    Preview::new(format!(
        "`{name}` has not run; call it again with `confirmed: true` to proceed"
    ))
    .item(value)
}

/// What a `confirm` tool's preview function may return: a [`Preview`], or
/// `Result<Preview, E>` with `E: Display` (a [`ToolError`] reaches the model as it
/// is; any other error becomes [`ToolError::Failed`]).
#[diagnostic::on_unimplemented(
    message = "a preview function must return `toolkit::Preview` or `Result<toolkit::Preview, E>`, not `{Self}`",
    label = "this preview function returns `{Self}`",
    note = "a preview function takes the tool's parameters (by value, `#[ctx]` ones included) and may be `async`"
)]
pub trait IntoPreview {
    /// The preview, or the error to return instead.
    fn into_preview(self) -> Result<Preview, ToolError>;
}

#[diagnostic::do_not_recommend]
impl IntoPreview for Preview {
    fn into_preview(self) -> Result<Preview, ToolError> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<E: Display + 'static> IntoPreview for Result<Preview, E> {
    fn into_preview(self) -> Result<Preview, ToolError> {
        self.map_err(crate::__private::into_tool_error)
    }
}

/// Awaits a preview function's result when it is a future and takes it as it is
/// otherwise, without the macro knowing which: `(&value).preview_kind()` picks
/// [`PreviewIsFuture`] for a future and falls back to [`PreviewIsValue`] through
/// auto-ref.
#[doc(hidden)]
pub trait PreviewIsFuture {
    /// The tag for a future.
    fn preview_kind(&self) -> FutureTag {
        FutureTag
    }
}

impl<F: Future> PreviewIsFuture for F {}

/// See [`PreviewIsFuture`].
#[doc(hidden)]
pub trait PreviewIsValue {
    /// The tag for a plain value.
    fn preview_kind(&self) -> ValueTag {
        ValueTag
    }
}

impl<T> PreviewIsValue for &T {}

/// A preview function returned a future.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct FutureTag;

impl FutureTag {
    /// The future itself, to await.
    pub fn resolve<F: Future>(self, future: F) -> F {
        future
    }
}

/// A preview function returned its result directly.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ValueTag;

impl ValueTag {
    /// The value, ready at once.
    pub fn resolve<T>(self, value: T) -> Ready<T> {
        ready(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serializes_for_the_model() {
        let preview = Preview::new("Delete 2 pages?").items(["/about", "/team"]);
        assert_eq!(
            preview.to_json(),
            json!({"requires_confirmation": true, "message": "Delete 2 pages?", "items": ["/about", "/team"]})
        );
    }

    #[test]
    fn the_default_preview_shows_the_arguments_without_confirmed() {
        assert_eq!(
            default_preview(
                "delete_pages",
                r#"{"ids": [1, 2], "confirmed": false, "note": null}"#
            ),
            Preview {
                message:
                    "`delete_pages` has not run; call it again with `confirmed: true` to proceed"
                        .to_owned(),
                items: vec![json!({"ids": [1, 2]})],
            }
        );
        assert_eq!(default_preview("delete_pages", "").items, [json!({})]);
    }
}
