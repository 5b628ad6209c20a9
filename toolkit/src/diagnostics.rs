//! Traits that exist so a mistake in a `#[tool]` function is reported once, on the
//! type you wrote, in your words. You never name them; they show up in compiler
//! errors only.
//!
//! Each is implemented for every type that has what `#[tool]` needs (the model's
//! parameters are `Deserialize + JsonSchema`, the result `Serialize`, the error
//! `Display`), and carries the message the compiler shows when a type lacks it.

use std::borrow::Cow;
use std::fmt::Display;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize};

use crate::{FromContext, Response, ToolError};

/// A type the model can fill: `Deserialize` from the JSON arguments.
#[diagnostic::on_unimplemented(
    message = "the model cannot fill a parameter of type `{Self}`: it does not implement `Deserialize`",
    label = "not `Deserialize`",
    note = "derive it: `#[derive(serde::Deserialize, schemars::JsonSchema)]` on `{Self}`; for a type from another crate, check whether it has a `serde` feature"
)]
pub trait ModelArgument<'de>: Sized {
    /// Reads the value from the model's JSON.
    fn deserialize_argument<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
}

#[diagnostic::do_not_recommend]
impl<'de, T: Deserialize<'de>> ModelArgument<'de> for T {
    fn deserialize_argument<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer)
    }
}

/// A type the model can be told about: `JsonSchema`.
#[diagnostic::on_unimplemented(
    message = "the model cannot be shown a parameter of type `{Self}`: it does not implement `JsonSchema`",
    label = "not `JsonSchema`",
    note = "derive it: `#[derive(schemars::JsonSchema)]` on `{Self}` (schemars 1.x); for a type from another crate, check whether it has a `schemars` feature"
)]
pub trait ModelSchema {
    /// [`JsonSchema::inline_schema`].
    fn inline_schema() -> bool;
    /// [`JsonSchema::schema_name`].
    fn schema_name() -> Cow<'static, str>;
    /// [`JsonSchema::schema_id`].
    fn schema_id() -> Cow<'static, str>;
    /// [`JsonSchema::json_schema`].
    fn json_schema(generator: &mut SchemaGenerator) -> Schema;
    /// schemars' schema of the type when it is a required field.
    fn non_optional_json_schema(generator: &mut SchemaGenerator) -> Schema;
    /// Whether schemars treats the type as an `Option` (a field it may leave out).
    fn is_option() -> bool;
}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema> ModelSchema for T {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
    fn non_optional_json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::_schemars_private_non_optional_json_schema(generator)
    }
    fn is_option() -> bool {
        T::_schemars_private_is_option()
    }
}

/// A type that is taken from the tool context is never filled by the model.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is taken from the tool context, not filled by the model: mark the parameter `#[ctx]`",
    label = "a `FromContext` type",
    note = "write `#[ctx] name: {Self}`; `#[ctx]` parameters are not in the schema and need no doc comment"
)]
pub trait FilledByTheModel {}

/// Which of [`ModelArgument`] and "mark it `#[ctx]`" applies to `T`, decided where
/// `T` is concrete: `(&Probe::<T>::new()).kind()` is [`ContextKind`] when
/// `T: FromContext` and [`ModelKind`] otherwise (auto-ref specialization).
pub struct Probe<T: ?Sized>(PhantomData<T>);

impl<T: ?Sized> Probe<T> {
    /// A probe for `T`.
    #[must_use]
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<T: ?Sized> Default for Probe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Picks [`ContextKind`] for a `FromContext` type.
pub trait ViaContext {
    /// The tag.
    fn kind(&self) -> ContextKind {
        ContextKind
    }
}

impl<T: FromContext> ViaContext for Probe<T> {}

/// Picks [`ModelKind`] for every other type.
pub trait ViaModel {
    /// The tag.
    fn kind(&self) -> ModelKind {
        ModelKind
    }
}

impl<T: ?Sized> ViaModel for &Probe<T> {}

/// A parameter the model fills: its type must be `Deserialize + JsonSchema`.
#[derive(Clone, Copy, Debug)]
pub struct ModelKind;

impl ModelKind {
    /// Reads the argument.
    pub fn deserialize<'de, T: ModelArgument<'de>, D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<T, D::Error> {
        T::deserialize_argument(deserializer)
    }
}

/// A parameter type's [`ModelSchema`] functions, as values.
#[derive(Clone, Copy, Debug)]
pub struct SchemaFns {
    /// [`ModelSchema::inline_schema`].
    pub inline_schema: fn() -> bool,
    /// [`ModelSchema::schema_name`].
    pub schema_name: fn() -> Cow<'static, str>,
    /// [`ModelSchema::schema_id`].
    pub schema_id: fn() -> Cow<'static, str>,
    /// [`ModelSchema::json_schema`].
    pub json_schema: fn(&mut SchemaGenerator) -> Schema,
    /// [`ModelSchema::non_optional_json_schema`].
    pub non_optional_json_schema: fn(&mut SchemaGenerator) -> Schema,
    /// [`ModelSchema::is_option`].
    pub is_option: fn() -> bool,
}

/// A `FromContext` type written without `#[ctx]`: one error, asking for `#[ctx]`;
/// the schema side stays silent.
#[derive(Clone, Copy, Debug)]
pub struct ContextKind;

impl ContextKind {
    /// Never compiles: `T` needs `#[ctx]`.
    pub fn deserialize<'de, T: FilledByTheModel, D: Deserializer<'de>>(
        self,
        _: D,
    ) -> Result<T, D::Error> {
        Err(serde::de::Error::custom(
            "a context type is not an argument",
        ))
    }
}

/// Picks [`CheckedSchema`] for a type the model can fill, so a type that is
/// neither `Deserialize` nor `JsonSchema` gets one error (about `Deserialize`,
/// whose note names both derives), not two.
pub trait ViaDeserialize {
    /// The tag.
    fn schema_kind(&self) -> CheckedSchema {
        CheckedSchema
    }
}

impl<T: serde::de::DeserializeOwned> ViaDeserialize for Probe<T> {}

/// Picks [`SilentSchema`] for every other type.
pub trait ViaNoDeserialize {
    /// The tag.
    fn schema_kind(&self) -> SilentSchema {
        SilentSchema
    }
}

impl<T: ?Sized> ViaNoDeserialize for &Probe<T> {}

/// The parameter's type is `Deserialize`: it must be `JsonSchema` too.
#[derive(Clone, Copy, Debug)]
pub struct CheckedSchema;

impl CheckedSchema {
    /// `T`'s schema functions, checked once: one error when `T` is not
    /// `JsonSchema`, however many of them the schema derive calls.
    #[must_use]
    pub fn schema<T: ModelSchema>(self) -> SchemaFns {
        SchemaFns {
            inline_schema: T::inline_schema,
            schema_name: T::schema_name,
            schema_id: T::schema_id,
            json_schema: T::json_schema,
            non_optional_json_schema: T::non_optional_json_schema,
            is_option: T::is_option,
        }
    }
}

/// The parameter's type already has its error (not `Deserialize`, or a context
/// type without `#[ctx]`): the schema side stays silent.
#[derive(Clone, Copy, Debug)]
pub struct SilentSchema;

impl SilentSchema {
    /// Functions that are never called: the crate does not compile.
    #[must_use]
    pub fn schema<T>(self) -> SchemaFns {
        SchemaFns {
            inline_schema: || true,
            schema_name: || Cow::Borrowed("unused"),
            schema_id: || Cow::Borrowed("unused"),
            json_schema: |_| Schema::default(),
            non_optional_json_schema: |_| Schema::default(),
            is_option: || false,
        }
    }
}

/// A tool result the model can read: `Serialize`.
#[diagnostic::on_unimplemented(
    message = "a tool cannot return `{Self}` to the model: it does not implement `Serialize`",
    label = "not `Serialize`",
    note = "derive it: `#[derive(serde::Serialize)]` on `{Self}`"
)]
pub trait ToolOutput {
    /// The serialized value.
    fn to_response(&self) -> Response;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize> ToolOutput for T {
    fn to_response(&self) -> Response {
        crate::__private::output(self)
    }
}

/// A tool error the model can read: `Display`.
#[diagnostic::on_unimplemented(
    message = "a tool's error type must say what went wrong to the model, but `{Self}` does not implement `Display`",
    label = "not `Display`",
    note = "implement `std::fmt::Display` for `{Self}` (`thiserror` does), or return `toolkit::ToolError`"
)]
pub trait ToolErrorOutput {
    /// The error as the model reads it.
    fn into_tool_error(self) -> ToolError;
}

#[diagnostic::do_not_recommend]
impl<E: Display + 'static> ToolErrorOutput for E {
    fn into_tool_error(self) -> ToolError {
        crate::__private::into_tool_error(self)
    }
}

/// Serializes a parameter's default for the schema when its type is `Serialize`
/// (schemars then shows it), and declines otherwise, as schemars itself does.
pub trait ViaSerialize {
    /// The tag.
    fn serialize_kind(&self) -> Serializable {
        Serializable
    }
}

impl<T: Serialize> ViaSerialize for Probe<T> {}

/// See [`ViaSerialize`].
pub trait ViaNoSerialize {
    /// The tag.
    fn serialize_kind(&self) -> NotSerializable {
        NotSerializable
    }
}

impl<T: ?Sized> ViaNoSerialize for &Probe<T> {}

/// The parameter's type is `Serialize`.
#[derive(Clone, Copy, Debug)]
pub struct Serializable;

impl Serializable {
    /// Serializes `value`.
    pub fn serialize<T: Serialize, S: serde::Serializer>(
        self,
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(serializer)
    }
}

/// The parameter's type is not `Serialize`: its default is not shown.
#[derive(Clone, Copy, Debug)]
pub struct NotSerializable;

impl NotSerializable {
    /// Declines.
    pub fn serialize<T, S: serde::Serializer>(self, _: &T, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("not serializable"))
    }
}

/// Passes its tokens through. `#[tool]` puts everything it generates beside the
/// function inside `<crate path>::__private::items! { .. }`, so a wrong
/// `crate = path` is one error, on the path, and nothing else is expanded.
#[doc(hidden)]
#[macro_export]
macro_rules! __toolkit_items {
    ($($tokens:tt)*) => { $($tokens)* };
}
