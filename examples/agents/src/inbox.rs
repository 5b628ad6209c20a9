//! The org's approval inbox: where an owner decides what an agent asked for while
//! talking to a contact (USE-CASES B's trust rule).
//!
//! [`app`] is the whole web application: the inbox from `toolkit::inbox` mounted
//! at `/approvals`, and a demo sign-in (`/login?as=olivia`) standing in for the
//! application's real session. Nothing here runs a decided call: the agent that
//! asked is long gone, and the core's runner, spawned beside the app
//! ([`run_approved_every`](crate::wake::run_approved_every)), runs each approved
//! call once; the agent reads what came of it on its next wake ([`crate::wake`]).
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! use example_agents::Org;
//! use example_agents::consumers::{approvals, quotas};
//! use example_agents::inbox::app;
//! use example_agents::wake::run_approved_every;
//! use toolkit::approval::ApprovalKey;
//! use toolkit::quota::MemoryQuotaStore;
//!
//! # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
//! let org = Org::sample();
//! let approvals = Arc::new(approvals(ApprovalKey::new(*b"the example org's approval key!!")?));
//! // The runner counts each run against the agent's quotas.
//! let quotas = Arc::new(quotas(MemoryQuotaStore::new())?);
//! tokio::spawn(run_approved_every(org.clone(), approvals.clone(), quotas, Duration::from_secs(2)));
//! let router: axum::Router = app(approvals);
//! # let _ = router;
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::request::Parts;
use toolkit::Preview;
use toolkit::approval::Approvals;
use toolkit::inbox::{Identity, Inbox, PendingCall};

use crate::tools::agent::create_schedules;

/// The people of the demo org who can sign in, and their role: `owner` decides
/// what the org's agents ask for; a `member` decides only calls made for them.
pub const PEOPLE: &[(&str, &str, &str)] = &[
    ("olivia", "owner", "member:1"),
    ("max", "member", "member:2"),
];

/// The cookie of the demo sign-in.
const SESSION_COOKIE: &str = "demo_session";

/// Who the request comes from: the demo session cookie (a real application looks
/// its session up, or verifies an OAuth token from the `Authorization` header).
fn who(parts: &Parts) -> Option<Identity> {
    let cookies = parts.headers.get(header::COOKIE)?.to_str().ok()?;
    let user = cookies
        .split(';')
        .filter_map(|cookie| cookie.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)?
        .1;
    let &(name, role, _) = PEOPLE.iter().find(|(name, _, _)| *name == user)?;
    Some(Identity::new(toolkit::Principal::local(name).ok()?).with_role(role))
}

/// The org's rule: owners decide what agents ask for; anyone decides the calls
/// made for them. A person signed in (`local|olivia`) and the member session
/// that asked (`local|member:1`) are two principals; [`PEOPLE`] says whose
/// session is whose.
fn may_decide(who: &Identity, call: &PendingCall<'_>) -> bool {
    let own = PEOPLE.iter().any(|&(name, _, member)| {
        who.principal.subject() == name
            && toolkit::Principal::local(member).is_ok_and(|member| *call.principal == member)
    });
    let agents = call.principal.issuer() == toolkit::Principal::LOCAL_ISSUER
        && call.principal.subject().starts_with("agent:");
    own || (who.has_role("owner") && agents)
}

/// The schedule an agent asks for, in words, above the decision buttons.
fn schedule_preview(pending: &toolkit::approval::PendingApproval) -> Option<Preview> {
    let schedules = pending.arguments.get("schedules")?.as_array()?;
    Some(
        Preview::new(format!(
            "The sales agent will wake {} time(s) and act on its own instruction.",
            schedules.len()
        ))
        .items(
            schedules
                .iter()
                .filter_map(|schedule| schedule.get("recurrence").cloned()),
        ),
    )
}

/// The web application: the inbox at `/approvals`, the demo sign-in at
/// `/login?as=NAME`. Decided calls are run by the core's runner, not by the inbox:
/// spawn [`run_approved_every`](crate::wake::run_approved_every) beside it.
pub fn app(approvals: Arc<Approvals>) -> Router {
    let inbox = Inbox::new(approvals, who, may_decide)
        .title("Sales org approvals")
        .preview(create_schedules::NAME, schedule_preview);
    Router::new()
        .route("/login", get(login))
        .nest("/approvals", inbox.router())
        // axum routes the nesting path with a trailing slash to neither router.
        .route(
            "/approvals/",
            get(|| async { axum::response::Redirect::permanent("/approvals") }),
        )
}

/// `GET /login?as=olivia`: the demo's sign-in, a cookie naming the person.
async fn login(parts: Parts) -> Response {
    let user = parts
        .uri
        .query()
        .and_then(|query| query.split('&').find_map(|pair| pair.strip_prefix("as=")))
        .and_then(|user| PEOPLE.iter().find(|(name, _, _)| *name == user));
    let Some(&(name, _, _)) = user else {
        return (StatusCode::NOT_FOUND, "no such person in the demo org").into_response();
    };
    let mut headers = HeaderMap::new();
    if let Ok(cookie) = format!("{SESSION_COOKIE}={name}; Path=/; HttpOnly; SameSite=Lax").parse() {
        headers.insert(header::SET_COOKIE, cookie);
    }
    if let Ok(location) = "/approvals".parse() {
        headers.insert(header::LOCATION, location);
    }
    (StatusCode::SEE_OTHER, headers).into_response()
}
