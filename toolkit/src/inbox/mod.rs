//! The approval inbox: where a person decides the calls of `approve` tools.
//!
//! [`Inbox`] is an axum [`Router`](axum::Router) the application mounts in its own app, next to
//! its other routes. It shows the pending approvals of the application's
//! [`ApprovalStore`](crate::approval::ApprovalStore) that the approver may decide,
//! newest first: the tool's title and description, who asked (in the
//! application's words, see [`Inbox::requester`]; otherwise the principal the
//! call acts for, and the [label](crate::view::ViewBuilder::label) of the view it came
//! through, if any), when it was asked and when it expires, the arguments laid out by the tool's parameters
//! (names and descriptions, nested values by their schema; money and dates read
//! as such where the schema says so), the model's stated reason and a preview
//! where the application gives them ([`Inbox::reason`], [`Inbox::preview`]). The approver approves, approves with edited arguments (a
//! form generated from the tool's schema; the edits are checked exactly as the
//! call will be, every problem shown beside its field), or denies with a reason the
//! model reads. What was decided, by whom and when, is listed from the same store.
//!
//! People (the signed-in approver, who asked, who decided) are shown as the MCP
//! Apps approval card shows them, by [`Principal::display_name`](crate::Principal::display_name):
//! the subject, then the issuer that signed them in, smaller
//! (`ada (signed in with https://id.example)`; none for the application's own
//! [`Principal::local`](crate::Principal::local) principals), and the tenant if
//! any. The principal's key (what machines compare) is each name's
//! `data-principal` attribute, and stays in the JSON API beside a readable name.
//!
//! The application supplies two things, once:
//!
//! - who is asking: an [`Authenticate`] hook given the request's parts (its session
//!   cookie, an OAuth bearer token, a header set by its proxy). Signing in is the
//!   application's (its `OpenID` Connect sign-in, its proxy); the inbox links to its
//!   pages ([`Inbox::sign_in`], [`Inbox::sign_out`]) and never sets a cookie;
//! - who may decide what: a [`Policy`] given the approver's [`Identity`] and the
//!   call ([`PendingCall`]: the tool, with its group and tier, and the principal).
//!   What the policy refuses is never shown, and deciding it by any URL answers
//!   as if it did not exist. A call the approver may see but that the approvals'
//!   own [policy](crate::approval::Approvals::policy) leaves to someone else
//!   (their own call of a tool others decide) shows why, in place of its buttons.
//!
//! Safe by construction: only loopback `Host` names are answered unless
//! [`Inbox::allowed_hosts`] names others (no DNS rebinding); every string is HTML-escaped by the templates (maud);
//! pages carry a Content-Security-Policy that allows no script at all; characters
//! that hide or reorder text (bidirectional overrides, zero-width characters) are
//! shown as their code points, and in the edit form as JSON escapes (as is any
//! value a typed field would not send back exactly, such as a lone carriage
//! return), so approving an unchanged form approves the call as asked; a card
//! shows a bounded part of long arguments, and its forms name the call (principal
//! and call id) rather than carry it: the inbox decides the signed pending
//! approval its store keeps; Enter in an edit field approves nothing; after a
//! decision, the list says what the store records of that call (who decided,
//! and whether it ran, with what, or waits, or expired); decisions are POSTs carrying a CSRF token bound to
//! the approver (signed under a key derived from the approval key; tokens signed
//! before a key rotation verify while the old key is among
//! [`previous_keys`](crate::approval::Approvals::previous_keys)); a decision on an expired, already-decided, forged or altered
//! pending approval says why and runs nothing; of two approvers deciding at once,
//! one wins (the store records THE decision atomically) and the other is told who
//! did.
//!
//! Pages: `GET /` (waiting, 50 to a page, newest first; `?before=` names where the
//! page before ended, as its link to older calls does), `POST /edit` (the edit
//! form), `POST /decide`, `GET /decisions` (the audit list).
//!
//! # The JSON API
//!
//! The same inbox for a client of the application's own (a mobile app, a chat
//! bot): the same [`Authenticate`] hook says who is asking, the same [`Policy`]
//! says what they may see, and a decision goes through the same checks as the
//! page's. Paths are relative to where the router is mounted. Every answer is
//! `application/json`; times are Unix seconds.
//!
//! ## `GET /api/pending`
//!
//! The calls waiting that the approver may decide, newest first, 50 to a page:
//!
//! ```json
//! {
//!   "approver": "https://id.example|ada",
//!   "approver_name": {"name": "ada (signed in with https://id.example)",
//!                     "subject": "ada", "signed_in_with": "https://id.example"},
//!   "csrf_token": "…",
//!   "pending": [
//!     {
//!       "pending": {"call_id": "c1", "principal": "local|bob", "view": "assistant",
//!                   "tool": "delete_pages", "arguments": {"id": 3},
//!                   "digest": "sha256:…", "requested_at": 1764400000,
//!                   "expires_at": 1764403600, "signature": "…"},
//!       "requester_name": {"name": "bob", "subject": "bob"},
//!       "arguments_cut": null,
//!       "tool": {"name": "delete_pages", "title": "Delete pages",
//!                "description": "…", "group": "pages", "tier": "approve"},
//!       "parameters": [{"name": "id", "description": "The page.", "required": true}],
//!       "preview": {"message": "…", "items": ["…"]},
//!       "may_decide": true,
//!       "refused": null
//!     }
//!   ],
//!   "more": false,
//!   "before": null
//! }
//! ```
//!
//! - `approver` and `pending.principal`: [`Principal`](crate::Principal) keys
//!   (`issuer|subject`; `local|..` for the application's own), what a program
//!   compares and sends back.
//! - `approver_name` and `requester_name`: the same people as a person reads them
//!   ([`DisplayName`](crate::DisplayName), as the pages and the MCP Apps approval
//!   card show them): `name` is the whole text, `subject` who it is,
//!   `signed_in_with` the issuer (absent for the application's own principals and
//!   for calls stored before principals were typed), `tenant` if there is one.
//! - `csrf_token`: the token `POST /api/decide` must carry, bound to this
//!   approver.
//! - `pending`: each item's `pending` is the signed
//!   [`PendingApproval`], sent back as it is to
//!   decide it. `view` is absent when the call came through a view without a label.
//! - `arguments_cut`: `null`, or `{"bytes", "start"}` when the arguments' JSON is
//!   over 16 KiB. Then `pending.arguments` is `null`, and `bytes` and `start` give
//!   their length and first characters. `?principal=..&call_id=..` gives that one
//!   call whole (a list of one, or of none when it is not waiting or not yours).
//! - `tool.group` and `tool.title`: `null` when the tool has none.
//! - `preview`: `null` unless [`Inbox::preview`] gives one, and never for a cut
//!   item.
//! - `may_decide` and `refused`: what the page's card says in place of its
//!   buttons. `may_decide` is `false` when the call cannot be decided, and
//!   `refused` then says why in words for the approver:
//!   - the pending approval fails its signature or digest check;
//!   - or the approvals' own [policy](crate::approval::Approvals::policy) leaves
//!     the call to someone else, as it does for the approver's own call of a tool
//!     others decide.
//!
//!   A call the [`Policy`] refuses is not listed at all.
//! - `more` and `before`: when `more` is `true`, ask for
//!   `?before=<before>` (URL-encoded) to get the next page.
//!
//! ## `POST /api/decide`
//!
//! Headers: `x-csrf-token: <csrf_token>` and `content-type: application/json`.
//! The body is the `pending` object as listed, and one decision:
//!
//! ```json
//! {"pending": {"call_id": "c1", "…": "…"}, "decision": "approve"}
//! {"pending": {"…": "…"}, "decision": {"approve_with": {"id": 4}}}
//! {"pending": {"…": "…"}, "decision": {"deny": "not this page, the draft"}}
//! ```
//!
//! Unknown fields are refused. `approve_with` arguments are checked as the call
//! will be. A denial needs a reason, which the model reads. The answer is
//! `{"approval": {..}}`, the signed [`Approval`] (`call_id`, `principal`, `tool`,
//! `arguments`, `digest`, `verdict`: `approved`, `approved_with_edits` or
//! `denied`, `message`, `decided_at`, `expires_at`, `decided_by`, `signature`).
//! [`Inbox::on_decision`] is called with the same approval.
//!
//! ## `GET /api/decisions`
//!
//! The decisions the approver may see, newest first (at most 100), as
//! `{"decisions": [{"call_id", "principal", "requester_name", "tool", "verdict",
//! "digest", "message", "decided_by", "decided_by_name", "decided_at", "run"}]}`.
//! `decided_by` is what the store keeps ([`DecidedBy`](crate::approval::DecidedBy)):
//! the deciding person's principal key, `the requester` or `the application`;
//! `decided_by_name` words it for a person (a [`DisplayName`](crate::DisplayName),
//! or `{"name": "the requester"}`). `run` is `null` until a run
//! of the call ended (and for a denial); otherwise it is
//! `{"attempt", "done", "ended_at", "outcome"}`. With
//! `?principal=..&call_id=..`, it holds the one decision on that call, or none.
//!
//! ## Errors
//!
//! A refusal is `{"error": {"kind": "...", "message": "..."}}`, with
//! `"problems": [{"path", "message"}]` for invalid arguments. The message says
//! what happened and whether anything ran.
//!
//! | status | `kind` | when |
//! |---|---|---|
//! | 401 | `unauthenticated` | the [`Authenticate`] hook knows nobody |
//! | 400 | `malformed` | a body that is not a decision, a `before` or a query that does not parse |
//! | 403 | `bad_csrf_token` | no `x-csrf-token`, someone else's or a stale one, or a request from another site (`Sec-Fetch-Site`) |
//! | 404 | `not_found` | no such call, or one the [`Policy`] does not show this approver: the same answer, so the API reveals nothing |
//! | 422 | `reason_required` | a denial with an empty reason |
//! | 422 | `invalid_arguments` | `approve_with` arguments the call would refuse; `problems` lists each |
//! | 400 | `tampered` | a pending approval whose signature or digest fails: not the call that was asked |
//! | 410 | `expired` | too late to decide |
//! | 409 | `already_decided` | another approver was first (the message names them), or the call already ended |
//! | 403 | `not_allowed` | the approvals' [policy](crate::approval::Approvals::policy) leaves this call to someone else |
//! | 503 | `store_failed` | the approval store did not answer; the message says what is known of the call |
//! | 400 | `refused` | any other refusal of the approvals |
//!
//! Outside these, the router's edges answer on their own: a body over the limit
//! (eight times the registry's argument limit, plus 64 KiB) gets axum's 413, and
//! a `Host` that [`Inbox::allowed_hosts`] does not name is refused before any
//! handler runs.
//!
//! ```
//! use std::sync::Arc;
//!
//! use axum::Router;
//! use toolkit::approval::{ApprovalKey, Approvals, MemoryApprovalStore};
//! use toolkit::Principal;
//! use toolkit::inbox::{Identity, Inbox, PendingCall};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let key = ApprovalKey::new(*b"an application secret of 32 bytes")?;
//! let approvals = Arc::new(Approvals::new(key, MemoryApprovalStore::new()));
//!
//! let inbox = Inbox::new(
//!     approvals.clone(),
//!     // Who is asking: here a header the application's proxy sets after login,
//!     // made a principal as the application makes its callers' (an OAuth
//!     // sign-in maps its claims with the MCP door's `ClaimsMapping` instead).
//!     |parts: &http::request::Parts| {
//!         let user = parts.headers.get("x-user")?.to_str().ok()?;
//!         let role = if user == "ada" { "admin" } else { "member" };
//!         Some(Identity::new(Principal::local(user).ok()?).with_role(role))
//!     },
//!     // Who may see a call: the user it acts for (one principal, compared as
//!     // one), or an admin. The approvals' policy still refuses a requester's
//!     // decision on a call others decide.
//!     |who: &Identity, call: &PendingCall<'_>| {
//!         who.has_role("admin") || *call.principal == who.principal
//!     },
//! )
//! .on_decision(|approval| {
//!     // News for a requester still in the conversation, which may resume it
//!     // (`view.resume(&approval, &ctx)`). A requester that is not waiting needs
//!     // nothing here: `Approvals::run_decided` runs the call, once.
//!     let _ = approval;
//! });
//!
//! // One line in the application's router.
//! let app: Router = Router::new().nest("/approvals", inbox.router());
//! # let _ = app;
//! # Ok(())
//! # }
//! ```

mod csrf;
mod form;
mod handlers;
mod identity;
mod page;
mod policy;

use std::borrow::Borrow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::approval::{Approval, Approvals, PendingApproval};
use crate::preview::Preview;
use crate::registry::Registry;

pub use identity::{Authenticate, AuthenticateFuture, Identity};
pub use policy::{PendingCall, Policy};

type PreviewHook = Arc<dyn Fn(&PendingApproval) -> Option<Preview> + Send + Sync>;
type DecisionHook = Arc<dyn Fn(&Approval) + Send + Sync>;
type RequesterHook = Arc<dyn Fn(&PendingApproval) -> Option<String> + Send + Sync>;

/// The approval inbox, configured by its builder methods; [`Inbox::router`] makes
/// the [`Router`](axum::Router) to mount. See the [module docs](self).
#[derive(Clone)]
pub struct Inbox {
    approvals: Arc<dyn Borrow<Approvals> + Send + Sync>,
    registry: &'static Registry,
    authenticate: Arc<dyn Authenticate>,
    policy: Arc<dyn Policy>,
    previews: HashMap<String, PreviewHook>,
    on_decision: Option<DecisionHook>,
    requester: Option<RequesterHook>,
    reason: Option<RequesterHook>,
    title: String,
    limits: crate::serving::HttpLimits,
    hosts: crate::serving::AllowedHosts,
    sign_in: Option<String>,
    sign_out: Option<String>,
}

impl Inbox {
    /// The inbox of the approvals in `approvals`' store (an `Arc<Approvals>`, or a
    /// `&'static Approvals`), for the approvers `authenticate` finds, deciding what
    /// `policy` lets them. The tools are those of [`crate::registry()`] (see
    /// [`Inbox::registry`]).
    pub fn new(
        approvals: impl Borrow<Approvals> + Send + Sync + 'static,
        authenticate: impl Authenticate,
        policy: impl Policy,
    ) -> Self {
        Inbox {
            approvals: Arc::new(approvals),
            registry: crate::registry::registry(),
            authenticate: Arc::new(authenticate),
            policy: Arc::new(policy),
            previews: HashMap::new(),
            on_decision: None,
            requester: None,
            reason: None,
            title: "Approvals".to_owned(),
            limits: crate::serving::HttpLimits::default(),
            hosts: crate::serving::AllowedHosts::default(),
            sign_in: None,
            sign_out: None,
        }
    }

    /// The registry whose tools the pending approvals name (the linked one by
    /// default).
    #[must_use]
    pub fn registry(mut self, registry: &'static Registry) -> Self {
        self.registry = registry;
        self
    }

    /// Shows `preview(pending)` above the decision buttons of `tool`'s calls: what
    /// the call would do, in the application's words (the rows it would delete,
    /// the message it would send). `None` shows none.
    #[must_use]
    pub fn preview(
        mut self,
        tool: impl Into<String>,
        preview: impl Fn(&PendingApproval) -> Option<Preview> + Send + Sync + 'static,
    ) -> Self {
        self.previews.insert(tool.into(), Arc::new(preview));
        self
    }

    /// Called with each approval (approved, edited or denied) once the store
    /// recorded it as THE decision: news for a requester still in the
    /// conversation, which may resume it ([`View::resume`](crate::view::View::resume)
    /// runs it, once). A requester that is not waiting (an MCP client that could
    /// not elicit, an agent asleep) needs no hook: the runner
    /// ([`Approvals::run_decided`]) runs the call, once, on whichever replica
    /// calls it, and the requester reads the outcome later
    /// ([`Approvals::status`]). Called on the request's task; spawn anything slow.
    #[must_use]
    pub fn on_decision(mut self, hook: impl Fn(&Approval) + Send + Sync + 'static) -> Self {
        self.on_decision = Some(Arc::new(hook));
        self
    }

    /// Names who asked for a call in the application's words ("Ada Lovelace,
    /// through the sales agent"), shown as "Asked by ..." on its card instead of
    /// the principal and the view's label; `None` keeps those for that call.
    ///
    /// ```
    /// # fn with(inbox: toolkit::inbox::Inbox) -> toolkit::inbox::Inbox {
    /// inbox.requester(|pending| {
    ///     let user = pending.principal.subject();
    ///     Some(format!("{user}'s assistant"))
    /// })
    /// # }
    /// ```
    #[must_use]
    pub fn requester(
        mut self,
        words: impl Fn(&PendingApproval) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.requester = Some(Arc::new(words));
        self
    }

    /// Shows the model's stated reason for a call on its card, "The model's
    /// reason: ...", where `reason(pending)` gives one.
    ///
    /// A tool call carries no reason of its own: what the model said about it is
    /// the text of the assistant message the call came in (or a `reason` the
    /// application's prompt asks the model to write there). The application keeps
    /// that conversation, so it gives the words, found by the pending approval's
    /// principal and call id; the inbox shows them as the model's, escaped and with
    /// hidden characters marked like any model-written text, and never as the
    /// application's word. They are not part of the signed pending approval: what
    /// runs is decided by the arguments alone.
    ///
    /// ```
    /// # use std::collections::HashMap;
    /// # fn with(inbox: toolkit::inbox::Inbox, said: HashMap<String, String>) -> toolkit::inbox::Inbox {
    /// // `said`: the assistant message's text, by call id, kept by the application.
    /// inbox.reason(move |pending| said.get(&pending.call_id).cloned())
    /// # }
    /// ```
    #[must_use]
    pub fn reason(
        mut self,
        reason: impl Fn(&PendingApproval) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.reason = Some(Arc::new(reason));
        self
    }

    /// Replaces the bounds on a request's body and answer time
    /// ([`HttpLimits::default`](crate::serving::HttpLimits::default) otherwise);
    /// the server's own bounds are the application's, see
    /// [`serving`](crate::serving).
    #[must_use]
    pub fn limits(mut self, limits: crate::serving::HttpLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The `Host` names (or `host:port`) requests may carry, instead of the
    /// loopback names (`localhost`, `127.0.0.1`, `::1`) accepted by default: the
    /// same rule, and usually the same names, as
    /// `mcp::McpHttp::allowed_hosts` (feature `mcp`). Any other
    /// `Host` is answered 403 before anything is read, which keeps a page on a
    /// rebound name from reading the inbox or deciding in it. An empty list keeps
    /// the names already set. See [`AllowedHosts`](crate::serving::AllowedHosts).
    #[must_use]
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let hosts: Vec<String> = hosts.into_iter().map(Into::into).collect();
        if !hosts.is_empty() {
            self.hosts = crate::serving::AllowedHosts::new(hosts);
        }
        self
    }

    /// The application's sign-in page (`/signin`): the "Sign in first" page and
    /// the header of a visitor nobody signed in link to it. Signing in stays the
    /// application's: its [`Authenticate`] hook says who a request comes from
    /// (the session its sign-in set), the inbox only links to it.
    #[must_use]
    pub fn sign_in(mut self, url: impl Into<String>) -> Self {
        self.sign_in = Some(url.into());
        self
    }

    /// The application's sign-out route (`/signout`): every page's header has a
    /// "Sign out" button that POSTs an empty form to it (a same-origin request,
    /// which the application's route can insist on through `Sec-Fetch-Site`).
    #[must_use]
    pub fn sign_out(mut self, url: impl Into<String>) -> Self {
        self.sign_out = Some(url.into());
        self
    }

    /// The title of the pages ("Approvals").
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }
}

impl fmt::Debug for Inbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inbox")
            .field("title", &self.title)
            .field("previews", &self.previews.keys().collect::<Vec<_>>())
            .field("on_decision", &self.on_decision.is_some())
            .finish_non_exhaustive()
    }
}

impl Inbox {
    fn approvals(&self) -> &Approvals {
        (*self.approvals).borrow()
    }
}
