//! The tool context: what the caller provides for `#[ctx]` parameters.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::ops::{Deref, DerefMut};

use crate::error::ToolError;

/// A typed map the caller fills before dispatching: sessions, application state,
/// ids. One value per type, like `http::Extensions`.
///
/// ```
/// use toolkit::Context;
///
/// #[derive(Clone)]
/// struct UserId(u64);
///
/// let ctx = Context::new().with(UserId(7));
/// assert_eq!(ctx.get::<UserId>().map(|id| id.0), Some(7));
/// ```
#[derive(Default)]
pub struct Context {
    values: HashMap<TypeId, (&'static str, Box<dyn Any + Send + Sync>), TypeIdHash>,
}

/// A `TypeId` is already a hash made by the compiler: its bits go to the table as
/// they are, instead of through `SipHash` (every `#[ctx]` parameter is one lookup
/// per call, on every call's path). The keys are types the program names, not input.
#[derive(Clone, Copy, Default)]
struct TypeIdHash;

impl std::hash::BuildHasher for TypeIdHash {
    type Hasher = TypeIdHasher;

    fn build_hasher(&self) -> TypeIdHasher {
        TypeIdHasher(0)
    }
}

struct TypeIdHasher(u64);

impl std::hash::Hasher for TypeIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u64(&mut self, value: u64) {
        self.0 ^= value;
    }

    // `TypeId`'s `Hash` writes one `u64` today; any other shape still hashes.
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 =
                (self.0.rotate_left(5) ^ u64::from(byte)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
}

impl Context {
    /// An empty context.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `value`, replacing any earlier value of the same type, and returns the
    /// context (builder style).
    #[must_use]
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// Adds `value`, returning the earlier value of the same type if there was one.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> Option<T> {
        self.values
            .insert(TypeId::of::<T>(), (type_name::<T>(), Box::new(value)))
            .and_then(|(_, old)| old.downcast().ok().map(|boxed| *boxed))
    }

    /// The value of type `T`, if the caller provided one.
    #[must_use]
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|(_, value)| value.downcast_ref())
    }

    /// Removes and returns the value of type `T`.
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> Option<T> {
        self.values
            .remove(&TypeId::of::<T>())
            .and_then(|(_, value)| value.downcast().ok().map(|boxed| *boxed))
    }

    /// Whether a value of type `T` is present.
    #[must_use]
    pub fn contains<T: Send + Sync + 'static>(&self) -> bool {
        self.values.contains_key(&TypeId::of::<T>())
    }

    /// The value of type `T`, or [`ToolError::MissingContext`] naming the type.
    pub fn require<T: Send + Sync + 'static>(&self) -> Result<&T, ToolError> {
        self.get().ok_or_else(|| ToolError::missing_context::<T>())
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self.values.values().map(|(name, _)| *name).collect();
        names.sort_unstable();
        f.debug_struct("Context").field("types", &names).finish()
    }
}

/// How a `#[ctx]` parameter is taken from the [`Context`], like an axum extractor.
///
/// Implement it for your own types to validate or combine context values; the
/// library implements it for [`State<T>`] (a clone of a `T` in the context) and for
/// `Option<T>` of any extractor (absent instead of an error).
///
/// Every implementation declares what the value is bound to (see
/// [`binding`](crate::binding)): a current user read from the human session is
/// bound to that session, so only `scope = assistant` tools may take it, and
/// `#[tool]` says so at compile time for any other scope.
///
/// ```
/// use toolkit::{Context, ToolError, definition::FromContext};
///
/// struct Session { user: String }
///
/// struct CurrentUser(String);
///
/// impl FromContext for CurrentUser {
///     type Binding = toolkit::binding::BoundToHumanSession;
///
///     fn from_context(ctx: &Context) -> Result<Self, ToolError> {
///         let session = ctx.require::<Session>()?;
///         Ok(CurrentUser(session.user.clone()))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from the tool context",
    label = "this `#[ctx]` parameter's type does not implement `FromContext`",
    note = "a `#[ctx]` type is `toolkit::State<T>`, a clone of a `T: Clone + Send + Sync + 'static` the caller put in the `Context`; an `Option` of a `#[ctx]` type; or a type that implements `toolkit::definition::FromContext`"
)]
pub trait FromContext: Sized {
    /// What the value is bound to: [`binding::BoundToNothing`](crate::binding::BoundToNothing) for
    /// application state, or the session, thread or channel it comes from.
    type Binding: crate::binding::Kind;

    /// Takes the value from the context, or explains what is missing.
    fn from_context(ctx: &Context) -> Result<Self, ToolError>;

    /// Takes the value if it is there: `Ok(None)` when it is missing, an error
    /// only for a value that is there but wrong. What `Option<Self>` calls; the
    /// default reads [`from_context`](Self::from_context)'s
    /// [`ToolError::MissingContext`] as `None`. Override it when a missing value
    /// can be told without building that error (as [`State`] does: an optional
    /// `#[ctx]` that is absent then costs no allocation per call).
    fn from_context_if_present(ctx: &Context) -> Result<Option<Self>, ToolError> {
        match Self::from_context(ctx) {
            Ok(value) => Ok(Some(value)),
            Err(ToolError::MissingContext { .. }) => Ok(None),
            Err(other) => Err(other),
        }
    }
}

/// `None` when the value is missing. It has `T`'s binding, but a tool taking it
/// does not *require* that binding ([`Tool::bindings`](crate::Tool::bindings) leaves
/// it out).
// `do_not_recommend` here and on `State`: a type that is not `FromContext` gets the
// trait's own message, not a listing of these impls.
#[diagnostic::do_not_recommend]
impl<T: FromContext> FromContext for Option<T> {
    type Binding = T::Binding;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        T::from_context_if_present(ctx)
    }
}

/// A clone of the `T` the caller put in the [`Context`]; missing is an error
/// response ([`ToolError::MissingContext`]), not a panic.
///
/// Put shared state behind an `Arc` (or make it cheap to clone) since each call
/// clones it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct State<T>(pub T);

#[diagnostic::do_not_recommend]
impl<T: Clone + Send + Sync + 'static> FromContext for State<T> {
    type Binding = crate::binding::BoundToNothing;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.require::<T>().map(|value| State(value.clone()))
    }

    fn from_context_if_present(ctx: &Context) -> Result<Option<Self>, ToolError> {
        Ok(ctx.get::<T>().map(|value| State(value.clone())))
    }
}

impl<T> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for State<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// The id of the model's tool call (`call_...` in OpenAI, `toolu_...` in Anthropic),
/// put in the [`Context`] so a pending approval carries it (without one, an id is
/// made up) and telemetry names the run by it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallId(pub String);

impl CallId {
    /// The call id `id`.
    pub fn new(id: impl Into<String>) -> Self {
        CallId(id.into())
    }
}
