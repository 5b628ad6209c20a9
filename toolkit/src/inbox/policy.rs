//! Who may decide what: the application's rule, written once.

use crate::principal::Principal;
use crate::tool::Tool;

use super::Identity;

/// A call waiting for a decision (or one decided, in the audit list), as the
/// [`Policy`] sees it: the tool (its name, group, tier, tags) and who the call acts
/// for.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct PendingCall<'a> {
    /// The tool the call would run.
    pub tool: &'a Tool,
    /// Who the call acts for (the view's principal): its requester.
    pub principal: &'a Principal,
    /// The model's call id.
    pub call_id: &'a str,
}

/// Whether an approver may see and decide a call. Applied to every listing, page,
/// API answer and decision: what it refuses is neither shown nor decidable, by any
/// URL (the inbox answers as if the call did not exist).
///
/// A closure `Fn(&Identity, &PendingCall<'_>) -> bool` is one:
///
/// ```
/// use toolkit::inbox::{Identity, PendingCall, Policy};
///
/// // The user the call acts for, or an admin; billing tools for admins only.
/// // "The same user" is equality of principals: the inbox's sign-in and the MCP
/// // token make them through one `ClaimsMapping`.
/// let policy = |who: &Identity, call: &PendingCall<'_>| {
///     who.has_role("admin")
///         || (call.tool.group != Some("billing") && *call.principal == who.principal)
/// };
/// # fn check(_: impl Policy) {}
/// # check(policy);
/// ```
pub trait Policy: Send + Sync + 'static {
    /// Whether `approver` may see and decide `call`.
    fn may_decide(&self, approver: &Identity, call: &PendingCall<'_>) -> bool;
}

impl<F> Policy for F
where
    F: Fn(&Identity, &PendingCall<'_>) -> bool + Send + Sync + 'static,
{
    fn may_decide(&self, approver: &Identity, call: &PendingCall<'_>) -> bool {
        self(approver, call)
    }
}
