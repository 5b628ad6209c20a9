//! What the code `#[tool]` generates calls into. Not public API: names and
//! signatures here change without notice.

use std::any::Any;
use std::fmt::Display;

use serde::Serialize;

pub use futures_util;
pub use linkme;
pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::__toolkit_items as items;
pub use crate::binding::{Binding, Kind as BindingKind, required as required_bindings};
pub use crate::context::{Context, FromContext};
pub use crate::declaration::{Location, Param, Scope, TaskSupport, Tier};
pub use crate::diagnostics;
pub use crate::dispatch::parse::parse_arguments;
pub use crate::error::ToolError;
pub use crate::preview::{
    FutureTag, IntoPreview, Preview, PreviewIsFuture, PreviewIsValue, ValueTag, default_preview,
};
pub use crate::quota::{Period, Quota};
pub use crate::response::Response;
pub use crate::schema::raw_schema_for;
pub use crate::tool::{CallFuture, Dispatch, Tool, ToolHandle};

/// Every `#[tool]` in the binary, whichever crate defined it.
#[linkme::distributed_slice]
pub static TOOLS: [Tool];

/// Takes a `#[ctx]` parameter from the context.
pub fn extract<T: FromContext>(ctx: &Context) -> Result<T, ToolError> {
    T::from_context(ctx)
}

/// A tool's plain return value, serialized.
pub fn output<T: Serialize + ?Sized>(value: &T) -> Response {
    match serde_json::to_value(value) {
        Ok(value) => Response::Result(value),
        Err(error) => Response::Error(ToolError::InvalidOutput {
            message: error.to_string(),
        }),
    }
}

/// A tool's `Result` return value: the value serialized, or the error converted.
pub fn output_result<T: Serialize, E: Display + 'static>(result: Result<T, E>) -> Response {
    match result {
        Ok(value) => output(&value),
        Err(error) => Response::Error(into_tool_error(error)),
    }
}

/// A [`ToolError`] stays what it is; any other error becomes
/// [`ToolError::Failed`] with its `Display` text.
pub(crate) fn into_tool_error<E: Display + 'static>(error: E) -> ToolError {
    let mut slot = Some(error);
    if let Some(tool_error) = (&mut slot as &mut dyn Any)
        .downcast_mut::<Option<ToolError>>()
        .and_then(Option::take)
    {
        return tool_error.with_nonempty_message();
    }
    match slot {
        Some(error) => ToolError::failed(error).with_nonempty_message(),
        None => ToolError::failed("unknown error"),
    }
}

/// Probes at compile time whether a tool's output type has a JSON schema, without
/// requiring one: `(&OutputSchema::<T>::new()).output_schema()` picks
/// [`HasOutputSchema`] when `T: JsonSchema` and [`NoOutputSchema`] otherwise
/// (method resolution prefers the by-value receiver before the auto-ref).
pub struct OutputSchema<T: ?Sized>(std::marker::PhantomData<T>);

impl<T: ?Sized> OutputSchema<T> {
    /// A probe for `T`.
    #[must_use]
    pub const fn new() -> Self {
        OutputSchema(std::marker::PhantomData)
    }
}

impl<T: ?Sized> Default for OutputSchema<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The output type has a schema.
pub trait HasOutputSchema {
    /// The schema of the output type.
    fn output_schema(&self) -> Option<schemars::Schema>;
}

impl<T: schemars::JsonSchema + ?Sized> HasOutputSchema for OutputSchema<T> {
    fn output_schema(&self) -> Option<schemars::Schema> {
        Some(crate::schema::raw_output_schema_for::<T>())
    }
}

/// The output type has no schema.
pub trait NoOutputSchema {
    /// Nothing.
    fn output_schema(&self) -> Option<schemars::Schema>;
}

impl<T: ?Sized> NoOutputSchema for &OutputSchema<T> {
    fn output_schema(&self) -> Option<schemars::Schema> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_errors_pass_through_and_others_become_failed() {
        let own: Result<(), ToolError> = Err(ToolError::missing_context::<u8>());
        assert_eq!(
            output_result(own),
            Response::Error(ToolError::MissingContext {
                type_name: "u8".to_owned()
            })
        );
        let io: Result<(), std::io::Error> = Err(std::io::Error::other("disk full"));
        assert_eq!(
            output_result(io),
            Response::Error(ToolError::Failed {
                message: "disk full".to_owned()
            })
        );
    }

    #[test]
    fn an_empty_error_message_gets_a_stable_one() {
        let empty: Result<(), std::io::Error> = Err(std::io::Error::other(""));
        assert_eq!(
            output_result(empty),
            Response::Error(ToolError::Failed {
                message: crate::error::EMPTY_FAILURE.to_owned()
            })
        );
        let own: Result<(), ToolError> = Err(ToolError::failed("  "));
        assert_eq!(
            output_result(own),
            Response::Error(ToolError::Failed {
                message: crate::error::EMPTY_FAILURE.to_owned()
            })
        );
    }
}
