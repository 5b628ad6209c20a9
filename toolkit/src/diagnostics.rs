//! Traits that exist so a mistake in a `#[tool]` function is reported once, on the
//! type you wrote, in your words. You never name them; they show up in compiler
//! errors only.
//!
//! Each is implemented for every type that has what `#[tool]` needs (the model's
//! parameters are `Deserialize + JsonSchema`, the result `Serialize`, the error
//! `Display`, a preview function takes the tool's parameters, a `#[ctx]` type's
//! binding is one the tool's scope provides), and carries the message the compiler
//! shows when a type lacks it. The compiler adds a line below that message naming
//! the trait, which nothing can remove, so their names read as the advice itself
//! ("the trait `DeriveDeserializeOn<Filter>` is not implemented for
//! `ModelArgument`", "the trait `ImplementDisplay` is not implemented for
//! `Oops`"), and the impls the compiler would otherwise list are marked
//! `#[diagnostic::do_not_recommend]`.

use std::borrow::Cow;
use std::fmt::Display;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserializer, Serialize};

use crate::context::FromContext;
use crate::error::ToolError;
use crate::preview::Preview;
use crate::response::Response;

/// Who fills a parameter the macro reads from the model's JSON: the model, for a
/// type that is not [`FromContext`]. `ModelArgument.fill(..)` needs the type to be
/// `Deserialize`, and its error says so in those words.
#[derive(Clone, Copy, Debug)]
pub struct ModelArgument;

/// Who fills a parameter whose type is [`FromContext`]: the tool context, so
/// the parameter needs `#[ctx]`; `ContextValue.fill(..)` never compiles, and its
/// error asks for `#[ctx]`.
#[derive(Clone, Copy, Debug)]
pub struct ContextValue;

/// The model fills `T`: it must be `Deserialize`.
#[diagnostic::on_unimplemented(
    message = "the model cannot fill a parameter of type `{T}`: it does not implement `Deserialize`",
    label = "not `Deserialize`",
    note = "derive it: `#[derive(serde::Deserialize, schemars::JsonSchema)]` on `{T}`; for a type from another crate, check whether it has a `serde` feature"
)]
pub trait DeriveDeserializeOn<T> {
    /// Reads the value from the model's JSON.
    fn fill<'de, D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error>;
}

// `DeserializeOwned`: the argument struct is parsed from a borrowed string the
// tool outlives, so nothing else could be filled anyway.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> DeriveDeserializeOn<T> for ModelArgument {
    fn fill<'de, D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize(deserializer)
    }
}

/// A [`FromContext`] type written without `#[ctx]`: never implemented, so the
/// error is the one that asks for `#[ctx]`.
#[diagnostic::on_unimplemented(
    message = "`{T}` is taken from the tool context, not filled by the model: mark the parameter `#[ctx]`",
    label = "a context type, without `#[ctx]`",
    note = "write `#[ctx] name: {T}`; `#[ctx]` parameters are not in the schema and need no doc comment"
)]
pub trait MarkTheParameterCtx<T> {
    /// Never called: the crate does not compile.
    fn fill<'de, D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error>;
}

mod sealed {
    /// Implemented by no type.
    pub trait Never {}
}

#[diagnostic::do_not_recommend]
impl<T: sealed::Never> MarkTheParameterCtx<T> for ContextValue {
    fn fill<'de, D: Deserializer<'de>>(self, _: D) -> Result<T, D::Error> {
        Err(serde::de::Error::custom(
            "a context type is not an argument",
        ))
    }
}

/// Which of [`ModelArgument`] and [`ContextValue`] fills `T`, decided where `T` is
/// concrete: `(&Probe::<T>::new()).filler()` is [`ContextValue`] when
/// `T: FromContext` and [`ModelArgument`] otherwise (auto-ref specialization).
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

/// Picks [`ContextValue`] for a `FromContext` type.
pub trait ViaContext {
    /// The tag.
    fn filler(&self) -> ContextValue {
        ContextValue
    }
}

impl<T: FromContext> ViaContext for Probe<T> {}

/// Picks [`ModelArgument`] for every other type.
pub trait ViaModel {
    /// The tag.
    fn filler(&self) -> ModelArgument {
        ModelArgument
    }
}

impl<T: ?Sized> ViaModel for &Probe<T> {}

/// A parameter type's schema functions, as values.
#[derive(Clone, Copy, Debug)]
pub struct SchemaFns {
    /// [`JsonSchema::inline_schema`].
    pub inline_schema: fn() -> bool,
    /// [`JsonSchema::schema_name`].
    pub schema_name: fn() -> Cow<'static, str>,
    /// [`JsonSchema::schema_id`].
    pub schema_id: fn() -> Cow<'static, str>,
    /// [`JsonSchema::json_schema`].
    pub json_schema: fn(&mut SchemaGenerator) -> Schema,
    /// schemars' schema of the type when it is a required field.
    pub non_optional_json_schema: fn(&mut SchemaGenerator) -> Schema,
    /// Whether schemars treats the type as an `Option` (a field it may leave out).
    pub is_option: fn() -> bool,
}

/// The model is shown `T`: it must be `JsonSchema`.
#[diagnostic::on_unimplemented(
    message = "the model cannot be shown a parameter of type `{T}`: it does not implement `JsonSchema`",
    label = "not `JsonSchema`",
    note = "derive it: `#[derive(schemars::JsonSchema)]` on `{T}` (schemars 1.x); for a type from another crate, check whether it has a `schemars` feature"
)]
pub trait DeriveJsonSchemaOn<T: ?Sized> {
    /// `T`'s schema functions, checked once: one error when `T` is not
    /// `JsonSchema`, however many of them the schema derive calls.
    fn schema(self, ty: PhantomData<T>) -> SchemaFns;
}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema + ?Sized> DeriveJsonSchemaOn<T> for ModelArgument {
    fn schema(self, _: PhantomData<T>) -> SchemaFns {
        SchemaFns {
            inline_schema: T::inline_schema,
            schema_name: T::schema_name,
            schema_id: T::schema_id,
            json_schema: T::json_schema,
            non_optional_json_schema: T::_schemars_private_non_optional_json_schema,
            is_option: T::_schemars_private_is_option,
        }
    }
}

/// The parameter's type already has its error (not `Deserialize`, or a context
/// type without `#[ctx]`): the schema side stays silent, so a type that is
/// neither `Deserialize` nor `JsonSchema` gets one error (about `Deserialize`,
/// whose note names both derives), not two.
#[derive(Clone, Copy, Debug)]
pub struct AlreadyReported;

impl AlreadyReported {
    /// Functions that are never called: the crate does not compile.
    #[must_use]
    pub fn schema<T: ?Sized>(self, _: PhantomData<T>) -> SchemaFns {
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

/// Picks [`ModelArgument`] (the schema is checked) for a type the model can fill.
pub trait ViaDeserialize {
    /// The tag.
    fn schema_kind(&self) -> ModelArgument {
        ModelArgument
    }
}

impl<T: DeserializeOwned> ViaDeserialize for Probe<T> {}

/// Picks [`AlreadyReported`] for every other type.
pub trait ViaNoDeserialize {
    /// The tag.
    fn schema_kind(&self) -> AlreadyReported {
        AlreadyReported
    }
}

impl<T: ?Sized> ViaNoDeserialize for &Probe<T> {}

/// A tool result the model can read: `Serialize`.
#[diagnostic::on_unimplemented(
    message = "a tool cannot return `{Self}` to the model: it does not implement `Serialize`",
    label = "not `Serialize`",
    note = "derive it: `#[derive(serde::Serialize)]` on `{Self}`"
)]
pub trait DeriveSerialize {
    /// The serialized value.
    fn to_response(&self) -> Response;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize + ?Sized> DeriveSerialize for T {
    fn to_response(&self) -> Response {
        crate::__private::output(self)
    }
}

/// A result written as standard containers of other types (`Vec<Thing>`,
/// `Option<(Thing, u32)>`): `#[tool]` checks each of those types on its own token,
/// so the error names `Thing`, the type to derive `Serialize` on. The whole type
/// is then serialized when it can be ([`Serialized`]), and otherwise left to those
/// errors ([`ByItsParts`]), provided it really is the standard containers the
/// macro read it as.
#[derive(Clone, Copy, Debug)]
pub struct Serialized;

impl Serialized {
    /// The serialized value.
    pub fn to_response<T: Serialize + ?Sized, C: ?Sized>(
        self,
        value: &T,
        _: PhantomData<C>,
    ) -> Response {
        crate::__private::output(value)
    }
}

/// See [`Serialized`]: the result is not `Serialize`, which the errors on its
/// parts already say.
#[derive(Clone, Copy, Debug)]
pub struct ByItsParts;

/// `T` is the standard container type `C` the macro read it as, so the error on
/// the part that is not `Serialize` is the whole story; when it is not (a type of
/// the user's own that shares a standard name), this is the error.
#[diagnostic::on_unimplemented(
    message = "a tool cannot return `{T}` to the model: it does not implement `Serialize`",
    label = "not `Serialize`",
    note = "derive it: `#[derive(serde::Serialize)]` on `{T}`"
)]
pub trait ExplainedByItsParts<T: ?Sized, C: ?Sized> {
    /// Never called: the crate does not compile.
    fn to_response(self, value: &T, standard: PhantomData<C>) -> Response;
}

/// `Self` and `T` are one type.
pub trait SameType<T: ?Sized> {}

impl<T: ?Sized> SameType<T> for T {}

#[diagnostic::do_not_recommend]
impl<T: ?Sized + SameType<C>, C: ?Sized> ExplainedByItsParts<T, C> for ByItsParts {
    fn to_response(self, _: &T, _: PhantomData<C>) -> Response {
        Response::Error(ToolError::InvalidOutput {
            message: "not serializable".to_owned(),
        })
    }
}

/// Picks [`Serialized`] for a result that is `Serialize`.
pub trait ViaSerializeOutput {
    /// The tag.
    fn output_kind(&self) -> Serialized {
        Serialized
    }
}

impl<T: Serialize + ?Sized> ViaSerializeOutput for Probe<T> {}

/// Picks [`ByItsParts`] for every other result.
pub trait ViaItsParts {
    /// The tag.
    fn output_kind(&self) -> ByItsParts {
        ByItsParts
    }
}

impl<T: ?Sized> ViaItsParts for &Probe<T> {}

/// A tool error the model can read: `Display`.
#[diagnostic::on_unimplemented(
    message = "a tool's error type must say what went wrong to the model, but `{Self}` does not implement `Display`",
    label = "not `Display`",
    note = "implement `std::fmt::Display` for `{Self}` (`thiserror` does), or return `toolkit::ToolError`"
)]
pub trait ImplementDisplay {
    /// The error as the model reads it.
    fn into_tool_error(self) -> ToolError;
}

#[diagnostic::do_not_recommend]
impl<E: Display + 'static> ImplementDisplay for E {
    fn into_tool_error(self) -> ToolError {
        crate::__private::into_tool_error(self)
    }
}

/// A preview function called with the tool's parameters: `Args` is the tuple of
/// their types, in the tool's order.
#[diagnostic::on_unimplemented(
    message = "this preview function does not take the tool's parameters: it must take `{Args}`",
    label = "must take `{Args}`",
    note = "a preview function takes the tool's parameters, in the tool's order and by value (`#[ctx]` ones included), and nothing else; it returns `toolkit::Preview` or `Result<toolkit::Preview, E>` and may be `async`"
)]
pub trait TakeTheToolsParameters<Args> {
    /// What the preview function returns (a future, for an `async fn`).
    type Output;
    /// Calls the preview function.
    fn call_preview(self, args: Args) -> Self::Output;
}

macro_rules! take_the_tools_parameters {
    ($($arg:ident),*) => {
        #[diagnostic::do_not_recommend]
        impl<F, R, $($arg),*> TakeTheToolsParameters<($($arg,)*)> for F
        where
            F: FnOnce($($arg),*) -> R,
        {
            type Output = R;

            #[allow(non_snake_case)]
            fn call_preview(self, ($($arg,)*): ($($arg,)*)) -> R {
                self($($arg),*)
            }
        }
    };
}

take_the_tools_parameters!();
take_the_tools_parameters!(A1);
take_the_tools_parameters!(A1, A2);
take_the_tools_parameters!(A1, A2, A3);
take_the_tools_parameters!(A1, A2, A3, A4);
take_the_tools_parameters!(A1, A2, A3, A4, A5);
take_the_tools_parameters!(A1, A2, A3, A4, A5, A6);
take_the_tools_parameters!(A1, A2, A3, A4, A5, A6, A7);
take_the_tools_parameters!(A1, A2, A3, A4, A5, A6, A7, A8);
take_the_tools_parameters!(A1, A2, A3, A4, A5, A6, A7, A8, A9);
take_the_tools_parameters!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10);
take_the_tools_parameters!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11);
take_the_tools_parameters!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12);
take_the_tools_parameters!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13);
take_the_tools_parameters!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14);
take_the_tools_parameters!(
    A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15
);
take_the_tools_parameters!(
    A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16
);

/// A probe for the type of `value`, which generated code cannot name.
#[must_use]
pub fn probe_of<T>(_: &T) -> Probe<T> {
    Probe::new()
}

/// What a preview function returned: a [`Preview`].
#[derive(Clone, Copy, Debug)]
pub struct APreview;

impl APreview {
    /// The preview.
    #[allow(clippy::unnecessary_wraps, clippy::unused_self)]
    pub fn into_preview(self, preview: Preview) -> Result<Preview, ToolError> {
        Ok(preview)
    }
}

/// What a preview function returned: a `Result<Preview, E>`.
#[derive(Clone, Copy, Debug)]
pub struct APreviewResult;

/// A preview function's error `E` the model can read: `Display`.
#[diagnostic::on_unimplemented(
    message = "a preview function's error type must say what went wrong to the model, but `{E}` does not implement `Display`",
    label = "not `Display`",
    note = "implement `std::fmt::Display` for `{E}` (`thiserror` does), or return `Result<toolkit::Preview, toolkit::ToolError>`"
)]
pub trait ImplementDisplayOn<E> {
    /// The preview, or the error to return instead.
    fn into_preview(self, result: Result<Preview, E>) -> Result<Preview, ToolError>;
}

#[diagnostic::do_not_recommend]
impl<E: Display + 'static> ImplementDisplayOn<E> for APreviewResult {
    fn into_preview(self, result: Result<Preview, E>) -> Result<Preview, ToolError> {
        result.map_err(crate::__private::into_tool_error)
    }
}

/// What a preview function returned: something else.
#[derive(Clone, Copy, Debug)]
pub struct PreviewFunction;

/// Never implemented: the error says what a preview function must return.
#[diagnostic::on_unimplemented(
    message = "a preview function must return `toolkit::Preview` or `Result<toolkit::Preview, E>`, not `{T}`",
    label = "this preview function returns `{T}`",
    note = "change the preview function's return type to `toolkit::Preview` (build one with `Preview::new(\"..\").items(..)`), or to `Result<toolkit::Preview, E>` when it can fail"
)]
pub trait ReturnAPreviewNot<T> {
    /// Never called: the crate does not compile.
    fn into_preview(self, value: T) -> Result<Preview, ToolError>;
}

#[diagnostic::do_not_recommend]
impl<T: sealed::Never> ReturnAPreviewNot<T> for PreviewFunction {
    fn into_preview(self, _: T) -> Result<Preview, ToolError> {
        Err(ToolError::failed("not a preview"))
    }
}

/// Picks [`APreview`] for a [`Preview`] and [`APreviewResult`] for a
/// `Result<Preview, E>`: one trait, so a preview function that already has an
/// error (and so a result of unknown type) adds no "multiple methods" error.
pub trait ViaPreviewShape {
    /// [`APreview`] or [`APreviewResult`].
    type Kind;
    /// The tag.
    fn returned(&self) -> Self::Kind;
}

impl ViaPreviewShape for Probe<Preview> {
    type Kind = APreview;
    fn returned(&self) -> APreview {
        APreview
    }
}

impl<E> ViaPreviewShape for Probe<Result<Preview, E>> {
    type Kind = APreviewResult;
    fn returned(&self) -> APreviewResult {
        APreviewResult
    }
}

/// Picks [`PreviewFunction`] for every other type.
pub trait ViaNotAPreview {
    /// The tag.
    fn returned(&self) -> PreviewFunction {
        PreviewFunction
    }
}

impl<T: ?Sized> ViaNotAPreview for &Probe<T> {}

/// The binding rule of `scope = shared` tools, checked on each `#[ctx]` type `T`
/// as `<T::Binding as SharedToolCanTake<T>>::OK`; `T` is only there to name the
/// user's type in the message.
#[diagnostic::on_unimplemented(
    message = "a `shared` tool cannot take `{T}`: it is `{Self}`, and a `shared` tool is also called where there is no session, caller thread or live channel",
    label = "`{Self}`",
    note = "declare the scope that provides it (`scope = assistant` for `BoundToHumanSession`, `scope = agent` for `BoundToCallerThread`, `scope = channel` for `BoundToLiveChannel`), or take a context value that is `BoundToNothing`"
)]
pub trait SharedToolCanTake<T: ?Sized> {
    /// Naming it proves the rule holds.
    const OK: () = ();
}

/// The binding rule of `scope = agent` tools; see [`SharedToolCanTake`].
#[diagnostic::on_unimplemented(
    message = "an `agent` tool cannot take `{T}`: it is `{Self}`, which an agent does not have",
    label = "`{Self}`",
    note = "declare the scope that provides it (`scope = assistant` for `BoundToHumanSession`, `scope = channel` for `BoundToLiveChannel`), or take a context value that is `BoundToNothing` or `BoundToCallerThread`"
)]
pub trait AgentToolCanTake<T: ?Sized> {
    /// Naming it proves the rule holds.
    const OK: () = ();
}

/// The binding rule of `scope = assistant` tools; see [`SharedToolCanTake`].
#[diagnostic::on_unimplemented(
    message = "an `assistant` tool cannot take `{T}`: it is `{Self}`, which the assistant does not have",
    label = "`{Self}`",
    note = "declare the scope that provides it (`scope = agent` for `BoundToCallerThread`, `scope = channel` for `BoundToLiveChannel`), or take a context value that is `BoundToNothing` or `BoundToHumanSession`"
)]
pub trait AssistantToolCanTake<T: ?Sized> {
    /// Naming it proves the rule holds.
    const OK: () = ();
}

/// The binding rule of `scope = channel` tools; see [`SharedToolCanTake`].
#[diagnostic::on_unimplemented(
    message = "a `channel` tool cannot take `{T}`: it is `{Self}`, which a channel does not have",
    label = "`{Self}`",
    note = "declare the scope that provides it (`scope = assistant` for `BoundToHumanSession`, `scope = agent` for `BoundToCallerThread`), or take a context value that is `BoundToNothing` or `BoundToLiveChannel`"
)]
pub trait ChannelToolCanTake<T: ?Sized> {
    /// Naming it proves the rule holds.
    const OK: () = ();
}

macro_rules! can_take {
    ($rule:ident: $($binding:ident),*) => {$(
        #[diagnostic::do_not_recommend]
        impl<T: ?Sized> $rule<T> for crate::binding::$binding {}
    )*};
}

can_take!(SharedToolCanTake: BoundToNothing);
can_take!(AgentToolCanTake: BoundToNothing, BoundToCallerThread);
can_take!(AssistantToolCanTake: BoundToNothing, BoundToHumanSession);
can_take!(ChannelToolCanTake: BoundToNothing, BoundToLiveChannel);

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
