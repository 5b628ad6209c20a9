//! Who is deciding: the application says, from the request.

use std::future::{Future, ready};
use std::pin::Pin;

use http::request::Parts;

use crate::principal::Principal;

/// The approver a request comes from, as the application's [`Authenticate`] hook
/// found them: a [`Principal`] and the roles the application's
/// [`Policy`](super::Policy) reads.
///
/// Make the principal exactly as the MCP door makes a caller's: from the
/// verified sign-in's claims through the same [`ClaimsMapping`](crate::ClaimsMapping)
/// ([`Identity::from_claims`]), or [`Principal::local`] for the application's own
/// approvers. Then the person who asked and the person deciding are compared as
/// one type: Ada signed in to the inbox is the requester of the calls Ada's
/// token made, and cannot approve them where the policy leaves them to others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// Who decides: compared with a call's requester, and recorded as the
    /// decision's `decided_by`
    /// ([`DecidedBy::Person`](crate::approval::DecidedBy::Person)).
    pub principal: Principal,
    /// What the application says they are (`admin`, `owner`, a token's scopes).
    pub roles: Vec<String>,
}

impl Identity {
    /// The approver `principal`, with no role.
    #[must_use]
    pub fn new(principal: Principal) -> Self {
        Identity {
            principal,
            roles: Vec::new(),
        }
    }

    /// The approver a verified sign-in's `claims` name (an `OpenID` Connect ID
    /// token's), through `mapping`: the one the MCP door's token verifier uses.
    ///
    /// # Errors
    /// What [`ClaimsMapping::principal`](crate::ClaimsMapping::principal) refuses.
    pub fn from_claims(
        mapping: &crate::principal::ClaimsMapping,
        claims: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Self, crate::principal::PrincipalError> {
        mapping.principal(claims).map(Identity::new)
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
/// use toolkit::Principal;
/// use toolkit::inbox::{Authenticate, Identity};
///
/// // The application's session cookie, checked by the application's own code.
/// let hook = |parts: &http::request::Parts| {
///     let cookie = parts.headers.get(http::header::COOKIE)?.to_str().ok()?;
///     let user = cookie.strip_prefix("session=")?; // a real app looks the session up
///     Some(Identity::new(Principal::local(user).ok()?).with_role("owner"))
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
