//! Who is deciding: the application says, from the request.

use std::future::{Future, ready};
use std::pin::Pin;

use http::request::Parts;

/// The approver a request comes from, as the application's [`Authenticate`] hook
/// found them: a subject (a user id, a token's `sub`) and the roles the
/// application's [`Policy`](super::Policy) reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// Who decides; recorded as the decision's `decided_by`.
    pub subject: String,
    /// What the application says they are (`admin`, `owner`, a token's scopes).
    pub roles: Vec<String>,
}

impl Identity {
    /// The approver `subject`, with no role.
    pub fn new(subject: impl Into<String>) -> Self {
        Identity {
            subject: subject.into(),
            roles: Vec::new(),
        }
    }

    /// The same approver with the role `role` too.
    #[must_use]
    pub fn with_role(mut self, role: impl Into<String>) -> Self {
        self.roles.push(role.into());
        self
    }

    /// Whether the approver has the role `role`.
    #[must_use]
    pub fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|held| held == role)
    }
}

/// The future an [`Authenticate`] hook returns.
pub type AuthenticateFuture<'a> = Pin<Box<dyn Future<Output = Option<Identity>> + Send + 'a>>;

/// Finds the approver of a request from its parts (a session cookie, a header, an
/// OAuth bearer token), or `None` when there is none: the inbox then answers
/// `401 Unauthorized` and shows nothing.
///
/// A plain closure `Fn(&Parts) -> Option<Identity>` is one; implement the trait for
/// a hook that must wait (verifying a token against a JWKS, reading a session
/// table).
///
/// ```
/// use toolkit::inbox::{Authenticate, Identity};
///
/// // The application's session cookie, checked by the application's own code.
/// let hook = |parts: &http::request::Parts| {
///     let cookie = parts.headers.get(http::header::COOKIE)?.to_str().ok()?;
///     let user = cookie.strip_prefix("session=")?; // a real app looks the session up
///     Some(Identity::new(user).with_role("owner"))
/// };
/// # fn check(_: impl Authenticate) {}
/// # check(hook);
/// ```
pub trait Authenticate: Send + Sync + 'static {
    /// The approver of the request with these parts, if any.
    fn authenticate<'a>(&'a self, parts: &'a Parts) -> AuthenticateFuture<'a>;
}

impl<F> Authenticate for F
where
    F: Fn(&Parts) -> Option<Identity> + Send + Sync + 'static,
{
    fn authenticate<'a>(&'a self, parts: &'a Parts) -> AuthenticateFuture<'a> {
        Box::pin(ready(self(parts)))
    }
}
