//! The routes: pages and the JSON API, every one behind the approver hook and the
//! policy.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use http::request::Parts;
use maud::Markup;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::approval::{
    Approval, ApprovalError, CutArguments, Decider, Decision, DecisionQuery, DecisionRecord,
    ListedPending, MAX_QUERY_LIMIT, PendingApproval, PendingCursor, PendingQuery, RunRecord,
    Verdict,
};
use crate::error::Problem;
use crate::principal::Principal;
use crate::registry::RegisteredTool;

use super::csrf::Csrf;
use super::form;
use super::page::{self, AuditRow, Card, Frame};
use super::{Identity, Inbox, PendingCall};

/// At most this many decisions on one page or in one API answer.
const SHOWN: usize = 100;

/// Waiting calls on one page of the list or in one API answer; `?before=` names
/// where the page before ended.
const PAGE: usize = 50;

/// Arguments whose JSON text is longer than this (in bytes) are left out of the
/// list by the store's query: their length and first characters are shown, and
/// they are read whole only for the one call opened or decided.
const LISTED_ARGUMENT_BYTES: usize = 16 * 1024;

/// Pages of the store looked through for one page of calls the approver may
/// decide (the policy picks them out of everyone's).
const PAGES_LOOKED_AT: usize = 10;

/// The header the JSON API's POSTs carry the CSRF token in.
const CSRF_HEADER: &str = "x-csrf-token";

/// Headers on every answer: no script may run even if something slipped through
/// the templates, no framing (clickjacking), no caching of decisions, no
/// referrer leaking the inbox's URLs.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

struct Shared {
    inbox: Inbox,
    csrf: Csrf,
}

// The method that makes the router is here, beside the routes, so the module that
// configures the inbox does not use the one that serves it.
impl Inbox {
    /// The router: mount it with [`Router::nest`] (its links follow the nesting
    /// path) or [`Router::merge`]. It answers the paths under it that it does not
    /// serve with a page saying so, so it has a fallback: axum refuses to merge two
    /// routers that both have one, so merge it only into an application without
    /// its own, or nest it.
    ///
    /// Nested at `/approvals`, its first page is `/approvals`: axum routes
    /// `/approvals/` to no router at all (a nested router's fallback covers the
    /// paths below the nesting path, never the one with a trailing slash), so add
    /// that route in the application if links may carry it:
    ///
    /// ```
    /// # fn app(inbox: toolkit::inbox::Inbox) -> axum::Router {
    /// use axum::response::Redirect;
    /// use axum::routing::get;
    ///
    /// axum::Router::new()
    ///     .nest("/approvals", inbox.router())
    ///     .route("/approvals/", get(|| async { Redirect::permanent("/approvals") }))
    /// # }
    /// ```
    pub fn router(self) -> Router {
        router(self)
    }
}

fn router(inbox: Inbox) -> Router {
    // Room for a pending approval and its edited arguments at the registry's
    // argument limit, form-encoded (up to three bytes per byte).
    let body_limit = inbox
        .registry
        .limits()
        .max_argument_bytes
        .saturating_mul(8)
        .saturating_add(64 * 1024);
    let csrf = Csrf::new(inbox.approvals().derive_keys("toolkit.inbox.csrf-key.v1"));
    let limits = inbox.limits;
    let hosts = inbox.hosts.clone();
    let shared = Arc::new(Shared { inbox, csrf });
    let router = Router::new()
        .route("/", get(list))
        .route("/inbox.css", get(style))
        .route("/edit", post(edit))
        .route("/decide", post(decide))
        .route("/decisions", get(audit))
        .route("/api/pending", get(api_pending))
        .route("/api/decide", post(api_decide))
        .route("/api/decisions", get(api_decisions))
        .fallback(elsewhere)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(axum::middleware::map_response(secure_headers))
        .with_state(shared);
    limits.apply_with_hosts(&hosts, router)
}

async fn secure_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// A path the inbox does not serve: a page saying so, with a way back, rather
/// than an empty answer.
async fn elsewhere(State(shared): State<Arc<Shared>>, parts: Parts) -> Response {
    let approver = match authenticate(&shared, &parts).await {
        Ok(approver) => approver,
        Err(failure) => return failure.page(&shared, None),
    };
    Failure::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "No such page",
        "the inbox has no page here",
    )
    .page(&shared, Some(&approver))
}

async fn style() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        page::STYLE,
    )
        .into_response()
}

/// The approver of a request, where the inbox is mounted, and their form token.
struct Approver {
    identity: Identity,
    base: String,
    csrf: String,
    /// The store's clock when the request came: the CSRF token's age is read on
    /// it, like every other time decision of approvals, so replicas whose clocks
    /// differ accept each other's tokens.
    now: u64,
}

impl Approver {
    fn frame<'a>(&'a self, shared: &'a Shared) -> Frame<'a> {
        Frame {
            base: &self.base,
            title: &shared.inbox.title,
            approver: Some(&self.identity.principal),
            csrf: &self.csrf,
            sign_in: shared.inbox.sign_in.as_deref(),
            sign_out: shared.inbox.sign_out.as_deref(),
        }
    }
}

/// Why a request was refused, for a page or the API.
struct Failure {
    status: StatusCode,
    kind: &'static str,
    heading: &'static str,
    message: String,
    problems: Vec<Problem>,
    /// Where the inbox is mounted, for a page shown to nobody signed in (its
    /// style sheet and links).
    base: String,
}

impl Failure {
    fn new(
        status: StatusCode,
        kind: &'static str,
        heading: &'static str,
        message: impl Into<String>,
    ) -> Self {
        Failure {
            status,
            kind,
            heading,
            message: message.into(),
            problems: Vec::new(),
            base: String::new(),
        }
    }

    fn unauthenticated() -> Self {
        Failure::new(
            StatusCode::UNAUTHORIZED,
            "unauthenticated",
            "Sign in first",
            "the application does not know who you are; sign in and open the inbox again",
        )
    }

    /// The same answer for a call that does not exist and one the approver may not
    /// see, so the inbox reveals nothing about calls outside the policy.
    fn not_yours() -> Self {
        Failure::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "No such call is waiting for you",
            "there is no pending approval like this one that you may decide; nothing ran",
        )
    }

    fn bad_token() -> Self {
        Failure::new(
            StatusCode::FORBIDDEN,
            "bad_csrf_token",
            "Refused",
            "the form's security token is missing, stale or not yours (or the request came from another site); reload the inbox and try again. Nothing ran",
        )
    }

    fn from_approval(error: &ApprovalError) -> Self {
        let (status, kind, heading) = match error {
            ApprovalError::BadSignature | ApprovalError::ArgumentsAltered => (
                StatusCode::BAD_REQUEST,
                "tampered",
                "Refused: not the call that was asked",
            ),
            ApprovalError::Expired { .. } => (StatusCode::GONE, "expired", "Too late"),
            ApprovalError::AlreadyDecided { .. }
            | ApprovalError::AlreadyUsed
            | ApprovalError::Ended(_) => {
                (StatusCode::CONFLICT, "already_decided", "Already decided")
            }
            ApprovalError::InvalidArguments(_) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_arguments",
                "The arguments are not valid",
            ),
            ApprovalError::UnknownTool(_) => return Failure::not_yours(),
            ApprovalError::NotAllowed { .. } => {
                (StatusCode::FORBIDDEN, "not_allowed", "Not yours to decide")
            }
            ApprovalError::Store(_) => {
                (StatusCode::SERVICE_UNAVAILABLE, "store_failed", "Try again")
            }
            _ => (StatusCode::BAD_REQUEST, "refused", "Refused"),
        };
        let message = match error {
            ApprovalError::AlreadyDecided(record) => format!(
                "another approver was first: {} decided it ({}) at {}; your decision was not recorded and nothing more ran",
                record.decided_by.display_name(),
                record.verdict.as_str(),
                page::utc(record.decided_at)
            ),
            ApprovalError::Expired { expired_at } => format!(
                "it expired at {}; nothing ran, and the model was not told it was approved",
                page::utc(*expired_at)
            ),
            // The store's own words stay in the log; whether anything ran of the
            // call is not known when its records could not be read.
            ApprovalError::Store(store) => {
                tracing::warn!(error = %store, kind = ?store.kind(), "the inbox could not use the approval store");
                error.state_unknown().unwrap_or_default()
            }
            // The approver reading this is the one refused: told so, not by key.
            ApprovalError::NotAllowed { reason, .. } => {
                format!("you may not decide it: {reason}; nothing ran")
            }
            other => format!("{other}; nothing ran"),
        };
        let problems = match error {
            ApprovalError::InvalidArguments(error) => form::problems_of(error.clone()),
            _ => Vec::new(),
        };
        Failure {
            status,
            kind,
            heading,
            message,
            problems,
            base: String::new(),
        }
    }

    fn page(&self, shared: &Shared, approver: Option<&Approver>) -> Response {
        let markup = match approver {
            Some(approver) => {
                page::message_page(&approver.frame(shared), self.heading, &self.message)
            }
            None => page::message_page(
                &Frame {
                    base: &self.base,
                    title: &shared.inbox.title,
                    approver: None,
                    csrf: "",
                    sign_in: shared.inbox.sign_in.as_deref(),
                    sign_out: None,
                },
                self.heading,
                &self.message,
            ),
        };
        html(self.status, markup)
    }

    fn json(&self) -> Response {
        let mut error = json!({"kind": self.kind, "message": self.message});
        if !self.problems.is_empty() {
            error["problems"] = json!(self.problems);
        }
        (self.status, Json(json!({ "error": error }))).into_response()
    }
}

fn html(status: StatusCode, markup: Markup) -> Response {
    (status, markup).into_response()
}

async fn authenticate(shared: &Shared, parts: &Parts) -> Result<Approver, Failure> {
    let base = parts
        .extensions
        .get::<axum::extract::NestedPath>()
        .map(|nested| nested.as_str().trim_end_matches('/').to_owned())
        .unwrap_or_default();
    let with_base = |mut failure: Failure| {
        failure.base.clone_from(&base);
        failure
    };
    let identity = shared
        .inbox
        .authenticate
        .authenticate(parts)
        .await
        .ok_or_else(|| with_base(Failure::unauthenticated()))?;
    let now = store_now(shared).await.map_err(with_base)?;
    let csrf = shared.csrf.issue(identity.principal.key(), now);
    Ok(Approver {
        identity,
        base,
        csrf,
        now,
    })
}

/// A POST must carry the approver's token, and must not come from another site.
fn check_post(
    shared: &Shared,
    approver: &Approver,
    headers: &HeaderMap,
    token: Option<&str>,
) -> Result<(), Failure> {
    if let Some(site) = headers.get("sec-fetch-site")
        && !matches!(site.as_bytes(), b"same-origin" | b"none")
    {
        return Err(Failure::bad_token());
    }
    match token {
        Some(token)
            if shared
                .csrf
                .verify(approver.identity.principal.key(), token, approver.now) =>
        {
            Ok(())
        }
        _ => Err(Failure::bad_token()),
    }
}

/// The tool of a call, if the approver may see it: otherwise the call does not
/// exist for them.
fn allowed<'r>(
    shared: &'r Shared,
    approver: &Identity,
    tool: &str,
    principal: &Principal,
    call_id: &str,
) -> Option<&'r RegisteredTool> {
    let registered = shared
        .inbox
        .registry
        .get(tool)
        .filter(|registered| registered.name == tool)?;
    let call = PendingCall {
        tool: registered.tool(),
        principal,
        call_id,
    };
    shared
        .inbox
        .policy
        .may_decide(approver, &call)
        .then_some(registered)
}

/// A page of the pending approvals the approver may decide, newest first (at most
/// [`PAGE`]) after `before`, their long arguments cut by the store, and where the
/// next page starts, when more may be waiting.
async fn waiting(
    shared: &Shared,
    approver: &Identity,
    before: Option<PendingCursor>,
) -> Result<(Vec<ListedPending>, Option<PendingCursor>), Failure> {
    let mut shown = Vec::new();
    let mut cursor = before;
    for _ in 0..PAGES_LOOKED_AT {
        // One more than a page: whether anything follows a full page.
        let mut query = PendingQuery::new().limit(PAGE + 1);
        if let Some(cursor) = &cursor {
            query = query.before(cursor.clone());
        }
        let listed = shared
            .inbox
            .approvals()
            .store()
            .list_pending_cut(&query, LISTED_ARGUMENT_BYTES)
            .await
            .map_err(|error| Failure::from_approval(&ApprovalError::Store(error)))?;
        let last_batch = listed.len() <= PAGE;
        for listed in listed {
            if shown.len() == PAGE {
                // Something follows the page: it starts after the last one shown.
                return Ok((shown, cursor));
            }
            cursor = Some(PendingCursor::of(&listed.pending));
            let pending = &listed.pending;
            if allowed(
                shared,
                approver,
                &pending.tool,
                &pending.principal,
                &pending.call_id,
            )
            .is_some()
            {
                shown.push(listed);
            }
        }
        if last_batch {
            return Ok((shown, None));
        }
    }
    Ok((shown, cursor))
}

/// `?before=` of a list page or `/api/pending`: where the page before ended, as
/// [`cursor_text`] wrote it.
#[derive(Deserialize)]
struct PageQuery {
    before: Option<String>,
}

/// A cursor as a link carries it: `[requested_at, principal, call_id]` in JSON.
fn cursor_text(cursor: &PendingCursor) -> String {
    json!([cursor.requested_at, cursor.principal, cursor.call_id]).to_string()
}

/// The `before` a request names, if any; a value that is not a place in the list
/// is refused.
fn before_of(parts: &Parts) -> Result<Option<PendingCursor>, Failure> {
    let Ok(axum::extract::Query(page)) =
        axum::extract::Query::<PageQuery>::try_from_uri(&parts.uri)
    else {
        return Ok(None);
    };
    let Some(text) = page.before else {
        return Ok(None);
    };
    let (requested_at, principal, call_id): (u64, Principal, String) = serde_json::from_str(&text)
        .map_err(|_| {
            Failure::new(
                StatusCode::BAD_REQUEST,
                "malformed",
                "Refused",
                "`before` is not a place in the list: expected [requested_at, principal, call_id] \
                 in JSON, as the link to older calls gives it",
            )
        })?;
    Ok(Some(PendingCursor {
        requested_at,
        principal,
        call_id,
    }))
}

/// The card of `pending`; `cut`: what the list left out of its arguments, when it
/// did (the hooks that read the arguments are not asked then, and its signature is
/// checked when it is opened or decided, with its arguments read whole).
fn card<'a>(
    shared: &'a Shared,
    approver: &Identity,
    pending: &'a PendingApproval,
    tool: &'a RegisteredTool,
    cut: Option<&'a CutArguments>,
) -> Card<'a> {
    let whole = cut.is_none();
    Card {
        cut,
        someone_else: shared
            .inbox
            .approvals()
            .refusal(&Decider::Person(&approver.principal), pending),
        pending,
        tool,
        view: pending.view.as_deref(),
        reason: shared
            .inbox
            .reason
            .as_ref()
            .filter(|_| whole)
            .and_then(|words| words(pending))
            .filter(|words| !words.trim().is_empty()),
        requester: shared
            .inbox
            .requester
            .as_ref()
            .and_then(|words| words(pending)),
        preview: shared
            .inbox
            .previews
            .get(&pending.tool)
            .filter(|_| whole)
            .and_then(|preview| preview(pending)),
        refused: shared
            .inbox
            .approvals()
            .verify_pending(pending)
            .err()
            .filter(|_| whole)
            .filter(|error| !matches!(error, ApprovalError::Expired { .. }))
            .map(|error| error.to_string()),
    }
}

async fn store_now(shared: &Shared) -> Result<u64, Failure> {
    shared
        .inbox
        .approvals()
        .store()
        .now()
        .await
        .map_err(|error| Failure::from_approval(&ApprovalError::Store(error)))
}

/// `?principal=..&call_id=..` after a decision: what the store records of that
/// call (the decision, and what came of it), if the approver may see it. The
/// query only names the call; every word shown comes from the store.
async fn told(
    shared: &Shared,
    approver: &Identity,
    parts: &Parts,
    now: u64,
) -> Result<Option<page::Told>, Failure> {
    let Ok(axum::extract::Query(one)) = axum::extract::Query::<OneCall>::try_from_uri(&parts.uri)
    else {
        return Ok(None);
    };
    let Some((record, run)) = decided_call(shared, approver, &one).await?.pop() else {
        return Ok(None);
    };
    let title = shared
        .inbox
        .registry
        .get(&record.tool)
        .and_then(|tool| tool.tool().title)
        .map(str::to_owned);
    let resumable_until = shared.inbox.approvals().resumable_until(record.decided_at);
    let next_attempt_at = run
        .as_ref()
        .and_then(|run| shared.inbox.approvals().next_attempt_at(run));
    Ok(Some(page::Told {
        title,
        resumable_until,
        now,
        record,
        run,
        next_attempt_at,
    }))
}

async fn list(State(shared): State<Arc<Shared>>, parts: Parts) -> Response {
    let approver = match authenticate(&shared, &parts).await {
        Ok(approver) => approver,
        Err(failure) => return failure.page(&shared, None),
    };
    let result = async {
        let before = before_of(&parts)?;
        let (pending, next) = waiting(&shared, &approver.identity, before).await?;
        let now = store_now(&shared).await?;
        let told = told(&shared, &approver.identity, &parts, now).await?;
        Ok::<_, Failure>((pending, next, now, told))
    }
    .await;
    let (pending, next, now, told) = match result {
        Ok(found) => found,
        Err(failure) => return failure.page(&shared, Some(&approver)),
    };
    let cards: Vec<Card<'_>> = pending
        .iter()
        .filter_map(|listed| {
            let tool = shared.inbox.registry.get(&listed.pending.tool)?;
            Some(card(
                &shared,
                &approver.identity,
                &listed.pending,
                tool,
                listed.cut.as_ref(),
            ))
        })
        .collect();
    let frame = approver.frame(&shared);
    let next = next.map(|cursor| {
        serde_urlencoded::to_string([("before", cursor_text(&cursor))]).unwrap_or_default()
    });
    html(
        StatusCode::OK,
        page::list_page(&frame, &cards, told.as_ref(), next.as_deref(), now),
    )
}

fn field<'f>(form: &'f [(String, String)], name: &str) -> Option<&'f str> {
    form.iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

/// The pending approval a form names (`call`: its principal and call id), as the
/// store keeps it (signed: checked again when deciding), if the approver may see it.
async fn posted_pending<'s>(
    shared: &'s Shared,
    approver: &Approver,
    form: &[(String, String)],
) -> Result<(PendingApproval, &'s RegisteredTool), Failure> {
    let (principal, call_id): (Principal, String) = field(form, "call")
        .and_then(|text| serde_json::from_str(text).ok())
        .ok_or_else(|| {
            Failure::new(
                StatusCode::BAD_REQUEST,
                "malformed",
                "Refused",
                "the form does not name a call; reload the inbox. Nothing ran",
            )
        })?;
    let pending = shared
        .inbox
        .approvals()
        .store()
        .pending(&principal, &call_id)
        .await
        .map_err(|error| Failure::from_approval(&ApprovalError::Store(error)))?
        .ok_or_else(Failure::not_yours)?;
    let tool = allowed(
        shared,
        &approver.identity,
        &pending.tool,
        &pending.principal,
        &pending.call_id,
    )
    .ok_or_else(Failure::not_yours)?;
    Ok((pending, tool))
}

/// Refuses to open the edit form of a call that can no longer be decided: decided
/// already (by whom, when), or expired.
async fn still_open(shared: &Shared, pending: &PendingApproval, now: u64) -> Result<(), Failure> {
    let decided = shared
        .inbox
        .approvals()
        .store()
        .decision(&pending.principal, &pending.call_id)
        .await
        .map_err(|error| Failure::from_approval(&ApprovalError::Store(error)))?;
    if let Some(record) = decided {
        return Err(Failure::new(
            StatusCode::CONFLICT,
            "already_decided",
            "Already decided",
            format!(
                "{} decided it ({}) at {}; there is nothing left to edit",
                record.decided_by.display_name(),
                record.verdict.as_str(),
                page::utc(record.decided_at)
            ),
        ));
    }
    if now > pending.expires_at {
        return Err(Failure::from_approval(&ApprovalError::Expired {
            expired_at: pending.expires_at,
        }));
    }
    Ok(())
}

async fn edit(
    State(shared): State<Arc<Shared>>,
    parts: Parts,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    let approver = match authenticate(&shared, &parts).await {
        Ok(approver) => approver,
        Err(failure) => return failure.page(&shared, None),
    };
    let result = async {
        check_post(&shared, &approver, &parts.headers, field(&form, "csrf"))?;
        let (pending, tool) = posted_pending(&shared, &approver, &form).await?;
        let now = store_now(&shared).await?;
        still_open(&shared, &pending, now).await?;
        Ok::<_, Failure>((pending, tool, now))
    }
    .await;
    match result {
        Ok((pending, tool, now)) => {
            let card = card(&shared, &approver.identity, &pending, tool, None);
            html(
                StatusCode::OK,
                page::edit_page(&approver.frame(&shared), &card, &[], &[], now),
            )
        }
        Err(failure) => failure.page(&shared, Some(&approver)),
    }
}

async fn decide(
    State(shared): State<Arc<Shared>>,
    parts: Parts,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    let approver = match authenticate(&shared, &parts).await {
        Ok(approver) => approver,
        Err(failure) => return failure.page(&shared, None),
    };
    if let Err(failure) = check_post(&shared, &approver, &parts.headers, field(&form, "csrf")) {
        return failure.page(&shared, Some(&approver));
    }
    let (pending, tool) = match posted_pending(&shared, &approver, &form).await {
        Ok(found) => found,
        Err(failure) => return failure.page(&shared, Some(&approver)),
    };
    let edit_again = |problems: Vec<Problem>, now: u64| {
        let entered: Vec<(String, String)> = form
            .iter()
            .filter(|(key, _)| key.starts_with("arg."))
            .cloned()
            .collect();
        let card = card(&shared, &approver.identity, &pending, tool, None);
        html(
            StatusCode::UNPROCESSABLE_ENTITY,
            page::edit_page(&approver.frame(&shared), &card, &entered, &problems, now),
        )
    };
    let decision = match field(&form, "action") {
        Some("approve") => Decision::Approve,
        Some("deny") => match field(&form, "reason").map(str::trim) {
            Some(reason) if !reason.is_empty() => Decision::Deny(reason.to_owned()),
            _ => {
                return Failure::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "reason_required",
                    "A denial needs a reason",
                    "write why the call should not run: the model reads it. Nothing was decided",
                )
                .page(&shared, Some(&approver));
            }
        },
        Some("approve_with") => {
            let fields = form::fields_for(tool, &pending.arguments);
            let checked = form::arguments_from_form(&fields, &form).and_then(|arguments| {
                form::check(shared.inbox.registry, tool, &arguments).map(|()| arguments)
            });
            match checked {
                // Nothing edited: approved as asked, and recorded so.
                Ok(arguments) if arguments == pending.arguments => Decision::Approve,
                Ok(arguments) => Decision::ApproveWith(arguments),
                Err(problems) => {
                    let now = store_now(&shared).await.unwrap_or(0);
                    return edit_again(problems, now);
                }
            }
        }
        _ => {
            return Failure::new(
                StatusCode::BAD_REQUEST,
                "malformed",
                "Refused",
                "the form names no decision; nothing ran",
            )
            .page(&shared, Some(&approver));
        }
    };
    match record(&shared, &approver, &pending, decision).await {
        Ok(approval) => {
            // The list then says what the store records of this call: the link only
            // names it, and shows nothing to whoever may not see it.
            let frame = approver.frame(&shared);
            let query = serde_urlencoded::to_string([
                ("principal", approval.principal.key()),
                ("call_id", &approval.call_id),
            ])
            .unwrap_or_default();
            let location = format!("{}?{query}", frame.home());
            (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response()
        }
        Err(failure)
            if !failure.problems.is_empty() && field(&form, "action") == Some("approve_with") =>
        {
            let now = store_now(&shared).await.unwrap_or(0);
            edit_again(failure.problems, now)
        }
        Err(failure) => failure.page(&shared, Some(&approver)),
    }
}

/// Records the decision (THE decision, or why not) and hands the approval on.
async fn record(
    shared: &Shared,
    approver: &Approver,
    pending: &PendingApproval,
    decision: Decision,
) -> Result<Approval, Failure> {
    let approval = shared
        .inbox
        .approvals()
        .decide_as(
            shared.inbox.registry,
            pending,
            decision,
            &approver.identity.principal,
        )
        .await
        .map_err(|error| Failure::from_approval(&error))?;
    if let Some(hook) = &shared.inbox.on_decision {
        hook(&approval);
    }
    Ok(approval)
}

/// The decisions the approver may see, newest first.
async fn decided(
    shared: &Shared,
    approver: &Identity,
) -> Result<Vec<(DecisionRecord, Option<RunRecord>)>, Failure> {
    let mut records = shared
        .inbox
        .approvals()
        .decisions(&DecisionQuery::new().limit(MAX_QUERY_LIMIT))
        .await
        .map_err(|error| Failure::from_approval(&error))?;
    records.retain(|record| sees(shared, approver, record));
    records.truncate(SHOWN);
    let mut decided = Vec::with_capacity(records.len());
    for record in records {
        decided.push(with_run(shared, record).await?);
    }
    Ok(decided)
}

/// Whether the approver may see `record` (what they may not does not exist for
/// them).
fn sees(shared: &Shared, approver: &Identity, record: &DecisionRecord) -> bool {
    allowed(
        shared,
        approver,
        &record.tool,
        &record.principal,
        &record.call_id,
    )
    .is_some()
}

/// `record` with what came of its call: ran (when, with what), failed, or not yet;
/// nothing for a denial.
async fn with_run(
    shared: &Shared,
    record: DecisionRecord,
) -> Result<(DecisionRecord, Option<RunRecord>), Failure> {
    let run = if record.verdict == Verdict::Denied {
        None
    } else {
        shared
            .inbox
            .approvals()
            .outcome(&record.principal, &record.call_id)
            .await
            .map_err(|error| Failure::from_approval(&error))?
    };
    Ok((record, run))
}

/// One call, named in the query of `/api/decisions`.
#[derive(Deserialize)]
struct OneCall {
    principal: Principal,
    call_id: String,
}

/// The decision on one call and what came of it, if the approver may see it (a
/// call they may not see does not exist for them).
async fn decided_call(
    shared: &Shared,
    approver: &Identity,
    one: &OneCall,
) -> Result<Vec<(DecisionRecord, Option<RunRecord>)>, Failure> {
    let record = shared
        .inbox
        .approvals()
        .store()
        .decision(&one.principal, &one.call_id)
        .await
        .map_err(|error| Failure::from_approval(&ApprovalError::Store(error)))?
        .filter(|record| sees(shared, approver, record));
    match record {
        Some(record) => Ok(vec![with_run(shared, record).await?]),
        None => Ok(Vec::new()),
    }
}

async fn audit(State(shared): State<Arc<Shared>>, parts: Parts) -> Response {
    let approver = match authenticate(&shared, &parts).await {
        Ok(approver) => approver,
        Err(failure) => return failure.page(&shared, None),
    };
    let records = match decided(&shared, &approver.identity).await {
        Ok(records) => records,
        Err(failure) => return failure.page(&shared, Some(&approver)),
    };
    let rows: Vec<AuditRow<'_>> = records
        .iter()
        .map(|(record, run)| AuditRow {
            decided_at: record.decided_at,
            decided_by: &record.decided_by,
            verdict: record.verdict.as_str(),
            tool: &record.tool,
            title: shared
                .inbox
                .registry
                .get(&record.tool)
                .and_then(|tool| tool.tool().title),
            principal: &record.principal,
            call_id: &record.call_id,
            message: record.message.as_deref(),
            outcome: page::outcome(
                record.verdict == Verdict::Denied,
                run.as_ref(),
                run.as_ref()
                    .and_then(|run| shared.inbox.approvals().next_attempt_at(run)),
            ),
        })
        .collect();
    html(
        StatusCode::OK,
        page::audit_page(&approver.frame(&shared), &rows),
    )
}

async fn api_pending(State(shared): State<Arc<Shared>>, parts: Parts) -> Response {
    let approver = match authenticate(&shared, &parts).await {
        Ok(approver) => approver,
        Err(failure) => return failure.json(),
    };
    let found = async {
        match axum::extract::Query::<OneCall>::try_from_uri(&parts.uri) {
            Ok(axum::extract::Query(one)) => {
                Ok((one_waiting(&shared, &approver, &one).await?, None))
            }
            Err(_) => waiting(&shared, &approver.identity, before_of(&parts)?).await,
        }
    }
    .await;
    let (pending, next) = match found {
        Ok(found) => found,
        Err(failure) => return failure.json(),
    };
    let items: Vec<Value> = pending
        .iter()
        .filter_map(|listed| {
            let pending = &listed.pending;
            let tool = shared.inbox.registry.get(&pending.tool)?;
            let card = card(&shared, &approver.identity, pending, tool, listed.cut.as_ref());
            let definition = tool.tool();
            Some(json!({
                "pending": pending,
                // Who asked, as a person reads it (the key is `pending.principal`).
                "requester_name": pending.principal.display_name(),
                "arguments_cut": listed.cut.as_ref().map(|cut| json!({
                    "bytes": cut.bytes,
                    "start": cut.start,
                })),
                "tool": {
                    "name": definition.name,
                    "title": definition.title,
                    "description": definition.description,
                    "group": definition.group,
                    "tier": definition.tier,
                },
                "parameters": form::fields(tool).iter().map(|field| json!({
                    "name": field.name,
                    "description": field.description,
                    "required": field.required,
                })).collect::<Vec<_>>(),
                "preview": card.preview.map(|preview| json!({"message": preview.message, "items": preview.items})),
                // The same answers as the page's card: a call that cannot be
                // decided (its signature or digest fails), or one the approvals'
                // policy leaves to someone else (this approver asked for it).
                "may_decide": card.refused.is_none() && card.someone_else.is_none(),
                "refused": card.refused.or(card.someone_else),
            }))
        })
        .collect();
    Json(json!({
        "approver": approver.identity.principal,
        "approver_name": approver.identity.principal.display_name(),
        "csrf_token": approver.csrf,
        "pending": items,
        "more": next.is_some(),
        "before": next.as_ref().map(cursor_text),
    }))
    .into_response()
}

/// The one call `?principal=..&call_id=..` of `/api/pending` names, whole, if it
/// is waiting and the approver may decide it: how an API client reads the
/// arguments the list cut, and gets the signed approval it decides.
async fn one_waiting(
    shared: &Shared,
    approver: &Approver,
    one: &OneCall,
) -> Result<Vec<ListedPending>, Failure> {
    let store = shared.inbox.approvals().store();
    let Some(pending) = store
        .pending(&one.principal, &one.call_id)
        .await
        .map_err(|error| Failure::from_approval(&ApprovalError::Store(error)))?
    else {
        return Ok(Vec::new());
    };
    if allowed(
        shared,
        &approver.identity,
        &pending.tool,
        &pending.principal,
        &pending.call_id,
    )
    .is_none()
    {
        return Ok(Vec::new());
    }
    let now = store_now(shared).await?;
    let decided = store
        .decision(&pending.principal, &pending.call_id)
        .await
        .map_err(|error| Failure::from_approval(&ApprovalError::Store(error)))?;
    if decided.is_some() || pending.expires_at < now {
        return Ok(Vec::new());
    }
    Ok(vec![ListedPending::cut(pending, usize::MAX)])
}

/// A decision sent to the JSON API.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApiDecide {
    pending: PendingApproval,
    decision: ApiDecision,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum ApiDecision {
    Approve,
    ApproveWith(Value),
    Deny(String),
}

async fn api_decide(
    State(shared): State<Arc<Shared>>,
    parts: Parts,
    body: axum::body::Bytes,
) -> Response {
    let approver = match authenticate(&shared, &parts).await {
        Ok(approver) => approver,
        Err(failure) => return failure.json(),
    };
    let token = parts
        .headers
        .get(CSRF_HEADER)
        .and_then(|token| token.to_str().ok());
    if let Err(failure) = check_post(&shared, &approver, &parts.headers, token) {
        return failure.json();
    }
    let request: ApiDecide = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(error) => {
            return Failure::new(
                StatusCode::BAD_REQUEST,
                "malformed",
                "Refused",
                format!("the body is not a decision: {error}; nothing ran"),
            )
            .json();
        }
    };
    let pending = request.pending;
    let Some(tool) = allowed(
        &shared,
        &approver.identity,
        &pending.tool,
        &pending.principal,
        &pending.call_id,
    ) else {
        return Failure::not_yours().json();
    };
    let decision = match request.decision {
        ApiDecision::Approve => Decision::Approve,
        ApiDecision::Deny(reason) if !reason.trim().is_empty() => {
            Decision::Deny(reason.trim().to_owned())
        }
        ApiDecision::Deny(_) => {
            return Failure::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "reason_required",
                "A denial needs a reason",
                "a denial needs a reason: the model reads it. Nothing was decided",
            )
            .json();
        }
        ApiDecision::ApproveWith(arguments) => {
            if let Err(problems) = form::check(shared.inbox.registry, tool, &arguments) {
                let mut failure = Failure::from_approval(&ApprovalError::InvalidArguments(
                    crate::error::ToolError::InvalidArguments { problems },
                ));
                "the edited arguments are not valid; nothing was decided"
                    .clone_into(&mut failure.message);
                return failure.json();
            }
            Decision::ApproveWith(arguments)
        }
    };
    match record(&shared, &approver, &pending, decision).await {
        Ok(approval) => Json(json!({ "approval": approval })).into_response(),
        Err(failure) => failure.json(),
    }
}

async fn api_decisions(State(shared): State<Arc<Shared>>, parts: Parts) -> Response {
    let approver = match authenticate(&shared, &parts).await {
        Ok(approver) => approver,
        Err(failure) => return failure.json(),
    };
    // `?principal=..&call_id=..`: the one decision on that call (how a caller that
    // went away learns what came of it), if the approver may see it.
    let one = match axum::extract::Query::<OneCall>::try_from_uri(&parts.uri) {
        Ok(axum::extract::Query(one)) => Some(one),
        Err(_) if parts.uri.query().is_none_or(str::is_empty) => None,
        Err(error) => {
            return Failure::new(
                StatusCode::BAD_REQUEST,
                "malformed",
                "Refused",
                format!("the query is not `principal` and `call_id`: {error}"),
            )
            .json();
        }
    };
    let found = match one {
        Some(one) => decided_call(&shared, &approver.identity, &one).await,
        None => decided(&shared, &approver.identity).await,
    };
    match found {
        Ok(records) => Json(json!({
            "decisions": records.iter().map(|(record, run)| json!({
                "call_id": record.call_id,
                "principal": record.principal,
                "requester_name": record.principal.display_name(),
                "tool": record.tool,
                "verdict": record.verdict,
                "digest": record.digest,
                "message": record.message,
                "decided_by": record.decided_by,
                "decided_by_name": decider_name(&record.decided_by),
                "decided_at": record.decided_at,
                // What came of it: null until a run of it ended (or for a denial).
                "run": run.as_ref().map(|run| json!({
                    "attempt": run.attempt,
                    "done": run.done,
                    "ended_at": run.ended_at,
                    "outcome": run.outcome,
                })),
            })).collect::<Vec<_>>()
        }))
        .into_response(),
        Err(failure) => failure.json(),
    }
}

/// A decider as the JSON API words it for a person: a person's
/// [`DisplayName`](crate::DisplayName), else `{"name": "the requester"}` (or
/// `the application`).
fn decider_name(decided_by: &crate::approval::DecidedBy) -> Value {
    match decided_by.principal() {
        Some(principal) => json!(principal.display_name()),
        None => json!({ "name": decided_by.name() }),
    }
}
