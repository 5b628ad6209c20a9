//! The org's approval inbox: where an owner decides what an agent asked for while
//! talking to a contact (USE-CASES B's trust rule), and the agent's action then
//! runs in the background, once.
//!
//! [`app`] is the whole web application: the inbox from `toolkit::inbox` mounted
//! at `/approvals`, a demo sign-in (`/login?as=olivia`) standing in for the
//! application's real session, and the hook that resumes each decided call on the
//! agent's worker.
//!
//! ```
//! use std::sync::Arc;
//!
//! use example_agents::Org;
//! use example_agents::consumers::approvals;
//! use example_agents::inbox::{Outcomes, app};
//! use toolkit::approval::ApprovalKey;
//!
//! let approvals = Arc::new(approvals(ApprovalKey::new(*b"the example org's approval key!!")?));
//! let outcomes = Outcomes::default();
//! let router: axum::Router = app(Org::sample(), approvals, outcomes.clone());
//! # let _ = router;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::request::Parts;
use serde_json::Value;
use toolkit::approval::{Approval, Approvals};
use toolkit::inbox::{Identity, Inbox, PendingCall};
use toolkit::{Context, Preview, registry};

use crate::consumers::{Request, agent_view};
use crate::tools::agent::create_schedules;
use crate::{CallerThread, Org, Principal, SALES_AGENT};

/// The people of the demo org who can sign in, and their role: `owner` decides
/// what the org's agents ask for; a `member` decides only calls made for them.
pub const PEOPLE: &[(&str, &str, &str)] = &[
    ("olivia", "owner", "member:1"),
    ("max", "member", "member:2"),
];

/// The cookie of the demo sign-in.
const SESSION_COOKIE: &str = "demo_session";

/// What each resumed call returned, by call id, as the model would read it: the
/// schedule created, or the denial with the owner's reason.
#[derive(Clone, Debug, Default)]
pub struct Outcomes(Arc<Mutex<BTreeMap<String, Vec<Value>>>>);

impl Outcomes {
    /// The responses of the call `call_id`, in the order they came.
    #[must_use]
    pub fn of(&self, call_id: &str) -> Vec<Value> {
        self.lock().get(call_id).cloned().unwrap_or_default()
    }

    fn push(&self, call_id: &str, response: Value) {
        self.lock()
            .entry(call_id.to_owned())
            .or_default()
            .push(response);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<Value>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The principal of an agent, as the org's stored permissions make it.
#[must_use]
pub fn agent_principal() -> Principal {
    Principal::agent(
        SALES_AGENT,
        &["contacts.read", "messages.write", "sales.read"],
    )
}

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
    Some(Identity::new(name).with_role(role))
}

/// The org's rule: owners decide what agents ask for; anyone decides the calls
/// made for them.
fn may_decide(who: &Identity, call: &PendingCall<'_>) -> bool {
    let own = PEOPLE
        .iter()
        .any(|&(name, _, principal)| name == who.subject && principal == call.principal);
    own || (who.has_role("owner") && call.principal.starts_with("agent:"))
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
/// `/login?as=NAME`. Each decision is resumed on the agent's worker in the
/// background (a spawned task), and what the call returned goes to `outcomes`.
pub fn app(org: Org, approvals: Arc<Approvals>, outcomes: Outcomes) -> Router {
    let resume_approvals = approvals.clone();
    let inbox = Inbox::new(approvals, who, may_decide)
        .title("Sales org approvals")
        .preview(create_schedules::NAME, schedule_preview)
        .on_decision(move |approval: &Approval| {
            let approval = approval.clone();
            let approvals = resume_approvals.clone();
            let org = org.clone();
            let outcomes = outcomes.clone();
            tokio::spawn(async move {
                let response = resume(&org, &approvals, &approval).await;
                outcomes.push(&approval.call_id, response);
            });
        });
    Router::new()
        .route("/login", get(login))
        .nest("/approvals", inbox.router())
        // axum routes the nesting path with a trailing slash to neither router.
        .route(
            "/approvals/",
            get(|| async { axum::response::Redirect::permanent("/approvals") }),
        )
}

/// The agent's worker picks the decided call up where the conversation waits.
async fn resume(org: &Org, approvals: &Approvals, approval: &Approval) -> Value {
    let principal = agent_principal();
    let Some(agent) = org.agent(SALES_AGENT) else {
        return serde_json::json!({"error": "the agent is gone"});
    };
    if approval.principal != principal.id {
        return serde_json::json!({"error": "not an agent of this worker"});
    }
    let request = Request {
        principal: &principal,
        flags: &[],
        page: None,
    };
    match agent_view(registry(), approvals, &agent, &request, false) {
        Ok(view) => {
            let ctx = Context::new()
                .with(org.clone())
                .with(CallerThread(SALES_AGENT));
            view.resume(approval, &ctx).await.to_json()
        }
        Err(error) => serde_json::json!({"error": error.to_string()}),
    }
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
