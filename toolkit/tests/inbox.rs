//! The approval inbox's router, request by request (no browser, no server): who
//! may see and decide what, CSRF, tampering, expiry, races, edits checked by the
//! schema, and the JSON API. The browser tests are in `examples/agents`.
#![cfg(feature = "inbox")]

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use http::{Request, StatusCode, header};
use serde_json::{Value, json};
use toolkit::approval::{
    Approval, ApprovalKey, Approvals, DecidedBy, DecisionQuery, MemoryApprovalStore,
    PendingApproval, Verdict,
};
use toolkit::inbox::{Identity, Inbox, PendingCall};
use toolkit::{Context, Principal, Response, Scope, call::CallId, tool};
use tower::ServiceExt as _;

/// Release a phone number the organization owns.
#[tool(scope = shared, tier = approve, group = "phone", title = "Release a phone number")]
fn delete_phone_numbers(
    /// The number, in E.164 form.
    number: String,
    /// Release it after this many days.
    #[tool(default = 0)]
    after_days: u32,
) -> String {
    format!("released {number} in {after_days} days")
}

/// A principal the test application names: its own users and their assistants.
fn local(name: &str) -> Principal {
    Principal::local(name).unwrap()
}

struct Setup {
    approvals: Arc<Approvals>,
    decided: Arc<Mutex<Vec<Approval>>>,
    router: Router,
}

fn setup() -> Setup {
    setup_with(MemoryApprovalStore::new())
}

fn setup_with(store: impl toolkit::approval::ApprovalStore + 'static) -> Setup {
    let key = ApprovalKey::new(*b"the inbox tests' approval key!!!").expect("32 bytes");
    let approvals = Arc::new(Approvals::new(key, store));
    let decided = Arc::new(Mutex::new(Vec::new()));
    let seen = decided.clone();
    let inbox = Inbox::new(
        approvals.clone(),
        |parts: &http::request::Parts| {
            let user = parts.headers.get("x-user")?.to_str().ok()?;
            let identity = Identity::new(local(user));
            Some(if user == "root" {
                identity.with_role("admin")
            } else {
                identity
            })
        },
        // An approver sees the calls their assistant made for them: the assistant
        // is a principal of its own (`local|user:alice` for alice, `local|alice`),
        // so alice may decide them; a call she made herself (as `root` below) is
        // hers, and the approvals' policy leaves it to someone else.
        |who: &Identity, call: &PendingCall<'_>| {
            who.has_role("admin")
                || call.principal.subject() == format!("user:{}", who.principal.subject())
        },
    )
    .on_decision(move |approval| seen.lock().unwrap().push(approval.clone()));
    Setup {
        approvals,
        decided,
        router: inbox.router(),
    }
}

async fn ask(
    approvals: &Approvals,
    principal: &str,
    call_id: &str,
    number: &str,
) -> PendingApproval {
    ask_as(approvals, local(principal), call_id, number).await
}

async fn ask_as(
    approvals: &Approvals,
    principal: Principal,
    call_id: &str,
    number: &str,
) -> PendingApproval {
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(approvals, principal)
        .build()
        .unwrap();
    let ctx = Context::new().with(CallId::new(call_id));
    match view
        .call_value("delete_phone_numbers", &json!({"number": number}), &ctx)
        .await
    {
        Response::Pending(pending) => *pending,
        other => panic!("an approve tool waits: {other:?}"),
    }
}

struct Answer {
    status: StatusCode,
    headers: http::HeaderMap,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.body))
    }
}

async fn send(router: &Router, request: Request<Body>) -> Answer {
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    Answer {
        status,
        headers,
        body: String::from_utf8(bytes.to_vec()).unwrap(),
    }
}

fn get(path: &str, user: Option<&str>) -> Request<Body> {
    let mut request = Request::get(path).header(header::HOST, "localhost");
    if let Some(user) = user {
        request = request.header("x-user", user);
    }
    request.body(Body::empty()).unwrap()
}

/// `application/x-www-form-urlencoded`, every byte but unreserved ones escaped.
fn encode(pairs: &[(&str, &str)]) -> String {
    let escape = |text: &str| {
        text.bytes()
            .map(|byte| {
                if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                    char::from(byte).to_string()
                } else {
                    format!("%{byte:02X}")
                }
            })
            .collect::<String>()
    };
    pairs
        .iter()
        .map(|(key, value)| format!("{}={}", escape(key), escape(value)))
        .collect::<Vec<_>>()
        .join("&")
}

fn post_form(path: &str, user: &str, pairs: &[(&str, &str)]) -> Request<Body> {
    Request::post(path)
        .header(header::HOST, "localhost")
        .header("x-user", user)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(encode(pairs)))
        .unwrap()
}

/// A decision sent to the JSON API by alice.
fn api_decide(token: &str, body: &Value) -> Request<Body> {
    Request::post("/api/decide")
        .header(header::HOST, "localhost")
        .header("x-user", "alice")
        .header("x-csrf-token", token)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

async fn token(router: &Router, user: &str) -> String {
    send(router, get("/api/pending", Some(user))).await.json()["csrf_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The `call` field of a form: the principal and the call id, as JSON.
fn call_of(pending: &PendingApproval) -> String {
    serde_json::to_string(&(&pending.principal, &pending.call_id)).unwrap()
}

fn form<'a>(token: &'a str, call: &'a str, action: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![("csrf", token), ("call", call), ("action", action)]
}

fn call_ids(answer: &Answer) -> Vec<String> {
    answer.json()["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["pending"]["call_id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn nothing_is_shown_to_a_request_without_an_approver() {
    let setup = setup();
    let page = send(&setup.router, get("/", None)).await;
    assert_eq!(page.status, StatusCode::UNAUTHORIZED);
    assert!(page.body.contains("Sign in first"), "{}", page.body);
    let api = send(&setup.router, get("/api/pending", None)).await;
    assert_eq!(api.status, StatusCode::UNAUTHORIZED);
    assert_eq!(api.json()["error"]["kind"], "unauthenticated");
}

#[tokio::test]
async fn an_approver_sees_only_what_the_policy_lets_them_decide_newest_first() {
    let setup = setup();
    ask(&setup.approvals, "user:alice", "call_alice", "+15550100").await;
    ask(&setup.approvals, "user:bob", "call_bob", "+15550101").await;
    let alice = send(&setup.router, get("/api/pending", Some("alice"))).await;
    assert_eq!(call_ids(&alice), ["call_alice"]);
    let item = &alice.json()["pending"][0];
    assert_eq!(item["tool"]["title"], "Release a phone number");
    assert_eq!(item["tool"]["tier"], "approve");
    assert_eq!(
        item["parameters"],
        json!([
            {"name": "number", "description": "The number, in E.164 form.", "required": true},
            {"name": "after_days", "description": "Release it after this many days.", "required": false}
        ])
    );
    let root = send(&setup.router, get("/api/pending", Some("root"))).await;
    let mut both = call_ids(&root);
    both.sort();
    assert_eq!(both, ["call_alice", "call_bob"]);
    let page = send(&setup.router, get("/", Some("alice"))).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains(r#"data-call-id="call_alice""#));
    assert!(!page.body.contains("call_bob") && !page.body.contains("+15550101"));
    assert!(page.body.contains("The number, in E.164 form."));
}

/// Who asked: the principal and the label of the view the call came through are
/// shown on the page and in the API; a label changed on the way back is refused like
/// any other alteration of the signed pending approval.
#[tokio::test]
async fn who_asked_is_shown_with_the_view_label_and_a_forged_label_is_refused() {
    let setup = setup();
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .label("support-desk <mcp>")
        .approvals(&setup.approvals, local("user:alice"))
        .build()
        .unwrap();
    let ctx = Context::new().with(CallId::new("call_labelled"));
    let Response::Pending(pending) = view
        .call_value(
            "delete_phone_numbers",
            &json!({"number": "+15550100"}),
            &ctx,
        )
        .await
    else {
        panic!("an approve tool waits");
    };
    assert_eq!(pending.view.as_deref(), Some("support-desk <mcp>"));
    ask(
        &setup.approvals,
        "user:alice",
        "call_unlabelled",
        "+15550101",
    )
    .await;

    let api = send(&setup.router, get("/api/pending", Some("alice")))
        .await
        .json();
    assert_eq!(api["pending"][0]["pending"]["call_id"], "call_unlabelled");
    assert_eq!(
        api["pending"][0]["pending"]["principal"],
        "local|user:alice"
    );
    assert!(
        api["pending"][0]["pending"].get("view").is_none(),
        "a view without a label has none: {api}"
    );
    assert_eq!(
        api["pending"][1]["pending"]["principal"],
        "local|user:alice"
    );
    assert_eq!(api["pending"][1]["pending"]["view"], "support-desk <mcp>");

    let page = send(&setup.router, get("/", Some("alice"))).await;
    assert!(
        page.body
            .contains(r#"<span>view <span class="text">support-desk &lt;mcp&gt;</span></span>"#),
        "{}",
        page.body
    );
    assert_eq!(page.body.matches("<span>view ").count(), 1, "{}", page.body);

    let alice = token(&setup.router, "alice").await;
    let mut relabelled = (*pending).clone();
    relabelled.view = Some("admin-console".to_owned());
    let mut unlabelled = (*pending).clone();
    unlabelled.view = None;
    // The pages' forms name the call and decide the store's copy; the JSON API
    // takes the pending approval itself, and checks its signature.
    for forged in [relabelled, unlabelled] {
        let answer = send(
            &setup.router,
            api_decide(&alice, &json!({"pending": forged, "decision": "approve"})),
        )
        .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.body);
        assert_eq!(answer.json()["error"]["kind"], "tampered");
        assert_eq!(
            answer.json()["error"]["message"],
            "its signature does not match (forged or altered); nothing ran"
        );
    }
    let text = call_of(&pending);
    let answer = send(
        &setup.router,
        post_form("/decide", "alice", &form(&alice, &text, "approve")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    assert_eq!(setup.decided.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn an_approval_is_recorded_once_handed_on_and_runs_once() {
    let setup = setup();
    let pending = ask(&setup.approvals, "user:alice", "call_1", "+15550100").await;
    let text = call_of(&pending);
    let token = token(&setup.router, "alice").await;
    let answer = send(
        &setup.router,
        post_form("/decide", "alice", &form(&token, &text, "approve")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(
        answer.headers[header::LOCATION],
        "/?principal=local%7Cuser%3Aalice&call_id=call_1"
    );
    let approval = {
        let decided = setup.decided.lock().unwrap();
        assert_eq!(decided.len(), 1);
        decided[0].clone()
    };
    assert_eq!(approval.verdict, Verdict::Approved);
    let records = setup
        .approvals
        .decisions(&DecisionQuery::new())
        .await
        .unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(
        (&records[0].decided_by, records[0].call_id.as_str()),
        (&DecidedBy::Person(local("alice")), "call_1")
    );
    // The call left the list.
    assert!(call_ids(&send(&setup.router, get("/api/pending", Some("alice"))).await).is_empty());
    // The worker resumes it: it runs once.
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(&setup.approvals, local("user:alice"))
        .build()
        .unwrap();
    let ran = view.resume(&approval, &Context::new()).await;
    assert_eq!(ran.result(), Some(&json!("released +15550100 in 0 days")));
    // The same form again (a second tab, a double click): told, nothing more.
    let again = send(
        &setup.router,
        post_form("/decide", "alice", &form(&token, &text, "approve")),
    )
    .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert!(
        again
            .body
            .contains("another approver was first: alice decided it (approved) at "),
        "{}",
        again.body
    );
    assert_eq!(setup.decided.lock().unwrap().len(), 1);
    // The audit list says who decided.
    let audit = send(&setup.router, get("/api/decisions", Some("alice")))
        .await
        .json();
    assert_eq!(audit["decisions"][0]["decided_by"], "local|alice");
    // Beside the keys, the people as a person reads them.
    assert_eq!(
        audit["decisions"][0]["decided_by_name"],
        json!({"name": "alice", "subject": "alice"})
    );
    assert_eq!(
        audit["decisions"][0]["requester_name"],
        json!({"name": "user:alice", "subject": "user:alice"})
    );
    assert_eq!(audit["decisions"][0]["verdict"], "approved");
    assert_eq!(
        send(&setup.router, get("/api/decisions", Some("bob")))
            .await
            .json()["decisions"],
        json!([])
    );
}

#[tokio::test]
async fn of_two_approvers_at_once_one_wins_and_the_other_is_told() {
    let setup = setup();
    let pending = ask(&setup.approvals, "user:alice", "call_race", "+15550100").await;
    let text = call_of(&pending);
    let alice = token(&setup.router, "alice").await;
    let root = token(&setup.router, "root").await;
    let (first, second) = tokio::join!(
        send(
            &setup.router,
            post_form("/decide", "alice", &form(&alice, &text, "approve"))
        ),
        send(
            &setup.router,
            post_form("/decide", "root", &form(&root, &text, "approve"))
        ),
    );
    let mut statuses = [first.status, second.status];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::SEE_OTHER, StatusCode::CONFLICT]);
    let loser = if first.status == StatusCode::CONFLICT {
        &first
    } else {
        &second
    };
    assert!(loser.body.contains("Already decided"), "{}", loser.body);
    assert_eq!(setup.decided.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_decision_without_the_approvers_token_or_from_another_site_is_refused() {
    let setup = setup();
    let pending = ask(&setup.approvals, "user:alice", "call_1", "+15550100").await;
    let text = call_of(&pending);
    let alice = token(&setup.router, "alice").await;
    let bob = token(&setup.router, "bob").await;
    for pairs in [
        vec![("call", text.as_str()), ("action", "approve")],
        form("", &text, "approve"),
        form(&bob, &text, "approve"),
        form("1.00", &text, "approve"),
    ] {
        let answer = send(&setup.router, post_form("/decide", "alice", &pairs)).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{pairs:?}");
    }
    let mut cross_site = post_form("/decide", "alice", &form(&alice, &text, "approve"));
    cross_site
        .headers_mut()
        .insert("sec-fetch-site", "cross-site".parse().unwrap());
    assert_eq!(
        send(&setup.router, cross_site).await.status,
        StatusCode::FORBIDDEN
    );
    let api = Request::post("/api/decide")
        .header(header::HOST, "localhost")
        .header("x-user", "alice")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            json!({"pending": pending, "decision": "approve"}).to_string(),
        ))
        .unwrap();
    let answer = send(&setup.router, api).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(answer.json()["error"]["kind"], "bad_csrf_token");
    assert!(setup.decided.lock().unwrap().is_empty());
    assert!(
        setup
            .approvals
            .decisions(&DecisionQuery::new())
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn a_call_outside_the_policy_cannot_be_seen_or_decided_by_any_url() {
    let setup = setup();
    let bobs = ask(&setup.approvals, "user:bob", "call_bob", "+15550101").await;
    let text = call_of(&bobs);
    let alice = token(&setup.router, "alice").await;
    for path in ["/decide", "/edit"] {
        let answer = send(
            &setup.router,
            post_form(path, "alice", &form(&alice, &text, "approve")),
        )
        .await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
        assert!(
            answer.body.contains("No such call is waiting for you"),
            "{}",
            answer.body
        );
        assert!(!answer.body.contains("+15550101"), "{path} shows the call");
    }
    let api = Request::post("/api/decide")
        .header(header::HOST, "localhost")
        .header("x-user", "alice")
        .header("x-csrf-token", &alice)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            json!({"pending": bobs, "decision": {"deny": "no"}}).to_string(),
        ))
        .unwrap();
    let answer = send(&setup.router, api).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.json()["error"]["kind"], "not_found");
    assert!(setup.decided.lock().unwrap().is_empty());
    assert_eq!(
        call_ids(&send(&setup.router, get("/api/pending", Some("bob"))).await),
        ["call_bob"]
    );
}

#[tokio::test]
async fn a_tampered_pending_approval_says_why_and_runs_nothing() {
    let setup = setup();
    let pending = ask(&setup.approvals, "user:alice", "call_1", "+15550100").await;
    let alice = token(&setup.router, "alice").await;
    let mut altered = pending.clone();
    altered.arguments = json!({"number": "+15559999"});
    let mut forged = pending.clone();
    forged.expires_at += 3600;
    let mut stolen = pending.clone();
    stolen.principal = local("user:mallory");
    for (tampered, expected) in [
        (&altered, "the arguments do not match the approved digest"),
        (&forged, "its signature does not match (forged or altered)"),
    ] {
        let answer = send(
            &setup.router,
            api_decide(&alice, &json!({"pending": tampered, "decision": "approve"})),
        )
        .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST);
        assert_eq!(
            answer.json()["error"]["message"],
            format!("{expected}; nothing ran")
        );
    }
    // A form names a call; moved to another principal, it names none alice may
    // decide.
    let text = call_of(&stolen);
    let answer = send(
        &setup.router,
        post_form("/decide", "alice", &form(&alice, &text, "approve")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    let answer = send(
        &setup.router,
        post_form("/decide", "alice", &form(&alice, "{not json", "approve")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(setup.decided.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_expired_pending_approval_says_so_and_runs_nothing() {
    let setup = setup();
    // Signed by the same key, with no time to decide: expired a second later.
    let hurried = Approvals::with_store(
        ApprovalKey::new(*b"the inbox tests' approval key!!!").unwrap(),
        setup.approvals.store().clone(),
    )
    .pending_ttl(std::time::Duration::ZERO);
    let pending = ask(&hurried, "user:alice", "call_old", "+15550100").await;
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let alice = token(&setup.router, "alice").await;
    let text = call_of(&pending);
    // The edit form does not open for it either.
    let edit = send(
        &setup.router,
        post_form("/edit", "alice", &form(&alice, &text, "edit")),
    )
    .await;
    assert_eq!(edit.status, StatusCode::GONE);
    assert!(
        edit.body.contains("Too late</strong>: it expired at "),
        "{}",
        edit.body
    );
    assert!(!edit.body.contains("arg.number"), "{}", edit.body);
    let answer = send(
        &setup.router,
        post_form("/decide", "alice", &form(&alice, &text, "approve")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::GONE);
    assert!(answer.body.contains("Too late"), "{}", answer.body);
    assert!(answer.body.contains("nothing ran"), "{}", answer.body);
    assert!(setup.decided.lock().unwrap().is_empty());
}

#[tokio::test]
async fn edits_are_checked_like_the_call_and_each_problem_sits_beside_its_field() {
    let setup = setup();
    let pending = ask(&setup.approvals, "user:alice", "call_1", "+15550100").await;
    let text = call_of(&pending);
    let alice = token(&setup.router, "alice").await;
    // The edit form: one field per parameter, filled with the arguments.
    let edit = send(
        &setup.router,
        post_form("/edit", "alice", &form(&alice, &text, "edit")),
    )
    .await;
    assert_eq!(edit.status, StatusCode::OK);
    assert!(
        edit.body.contains(
            r#"<input type="text" id="field-number" name="arg.number" value="+15550100""#
        ),
        "{}",
        edit.body
    );
    assert!(
        edit.body
            .contains(r#"id="field-after_days" name="arg.after_days" value="""#),
        "{}",
        edit.body
    );
    let mut pairs = form(&alice, &text, "approve_with");
    pairs.extend([("arg.number", "+15550199"), ("arg.after_days", "soon")]);
    let answer = send(&setup.router, post_form("/decide", "alice", &pairs)).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let field = answer
        .body
        .split(r#"<div class="field has-problem" data-field="after_days">"#)
        .nth(1)
        .unwrap_or_else(|| panic!("no problem beside after_days: {}", answer.body));
    let field = &field[..field.find(r#"<div class="field"#).unwrap_or(field.len())];
    assert!(
        field.contains(r#"<p class="problem"><code>after_days</code>: "#),
        "{field}"
    );
    // What was typed stays in the form.
    assert!(field.contains(r#"value="soon""#), "{field}");
    assert!(answer.body.contains(r#"value="+15550199""#));
    assert!(setup.decided.lock().unwrap().is_empty());

    let mut pairs = form(&alice, &text, "approve_with");
    pairs.extend([("arg.number", "+15550199"), ("arg.after_days", "3")]);
    let answer = send(&setup.router, post_form("/decide", "alice", &pairs)).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(
        answer.headers[header::LOCATION],
        "/?principal=local%7Cuser%3Aalice&call_id=call_1"
    );
    let decided = setup.decided.lock().unwrap();
    assert_eq!(decided[0].verdict, Verdict::ApprovedWithEdits);
    assert_eq!(
        decided[0].arguments,
        json!({"number": "+15550199", "after_days": 3})
    );
}

#[tokio::test]
async fn a_denial_needs_a_reason_and_carries_it() {
    let setup = setup();
    let pending = ask(&setup.approvals, "user:alice", "call_1", "+15550100").await;
    let text = call_of(&pending);
    let alice = token(&setup.router, "alice").await;
    let mut pairs = form(&alice, &text, "deny");
    pairs.push(("reason", "   "));
    let answer = send(&setup.router, post_form("/decide", "alice", &pairs)).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(setup.decided.lock().unwrap().is_empty());
    let mut pairs = form(&alice, &text, "deny");
    pairs.push(("reason", "We keep that number."));
    let answer = send(&setup.router, post_form("/decide", "alice", &pairs)).await;
    assert_eq!(
        answer.headers[header::LOCATION],
        "/?principal=local%7Cuser%3Aalice&call_id=call_1"
    );
    let decided = setup.decided.lock().unwrap();
    assert_eq!(
        (decided[0].verdict, decided[0].message.as_deref()),
        (Verdict::Denied, Some("We keep that number."))
    );
}

#[tokio::test]
async fn the_json_api_decides_with_the_same_checks() {
    let setup = setup();
    let pending = ask(&setup.approvals, "user:alice", "call_1", "+15550100").await;
    let alice = token(&setup.router, "alice").await;
    let decide = |decision: Value| {
        Request::post("/api/decide")
            .header(header::HOST, "localhost")
            .header("x-user", "alice")
            .header("x-csrf-token", &alice)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(
                json!({"pending": pending, "decision": decision}).to_string(),
            ))
            .unwrap()
    };
    let invalid = send(
        &setup.router,
        decide(json!({"approve_with": {"number": 5}})),
    )
    .await;
    assert_eq!(invalid.status, StatusCode::UNPROCESSABLE_ENTITY);
    let error = &invalid.json()["error"];
    assert_eq!(error["kind"], "invalid_arguments");
    assert_eq!(error["problems"][0]["path"], "number");
    let approved = send(
        &setup.router,
        decide(json!({"approve_with": {"number": "+15550111"}})),
    )
    .await;
    assert_eq!(approved.status, StatusCode::OK, "{}", approved.body);
    assert_eq!(
        approved.json()["approval"]["verdict"],
        "approved_with_edits"
    );
    assert_eq!(
        approved.json()["approval"]["arguments"],
        json!({"number": "+15550111"})
    );
    let again = send(&setup.router, decide(json!("approve"))).await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(again.json()["error"]["kind"], "already_decided");
}

#[tokio::test]
async fn every_answer_forbids_scripts_and_framing() {
    let setup = setup();
    for (path, user) in [
        ("/", Some("alice")),
        ("/", None),
        ("/api/pending", Some("alice")),
        ("/inbox.css", None),
    ] {
        let answer = send(&setup.router, get(path, user)).await;
        assert_eq!(
            answer.headers[header::CONTENT_SECURITY_POLICY],
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            "{path}"
        );
        assert_eq!(answer.headers[header::X_FRAME_OPTIONS], "DENY");
        assert_eq!(answer.headers[header::CACHE_CONTROL], "no-store");
    }
}

#[tokio::test]
async fn links_and_forms_follow_the_path_the_inbox_is_mounted_at() {
    let setup = setup();
    ask(&setup.approvals, "user:alice", "call_1", "+15550100").await;
    let app = Router::new().nest("/approvals", setup.router.clone());
    let page = send(&app, get("/approvals", Some("alice"))).await;
    assert_eq!(page.status, StatusCode::OK);
    for expected in [
        r#"href="/approvals/inbox.css""#,
        r#"href="/approvals/decisions""#,
        r#"action="/approvals/decide""#,
        r#"formaction="/approvals/edit""#,
    ] {
        assert!(page.body.contains(expected), "missing {expected}");
    }
    let token = send(&app, get("/approvals/api/pending", Some("alice")))
        .await
        .json()["csrf_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let pending = send(&app, get("/approvals/api/pending", Some("alice")))
        .await
        .json()["pending"][0]["pending"]
        .clone();
    let call = json!([pending["principal"], pending["call_id"]]).to_string();
    let answer = send(
        &app,
        post_form(
            "/approvals/decide",
            "alice",
            &form(&token, &call, "approve"),
        ),
    )
    .await;
    assert_eq!(
        answer.headers[header::LOCATION],
        "/approvals?principal=local%7Cuser%3Aalice&call_id=call_1"
    );
    // A path the inbox does not serve is a page saying so (`/approvals/` is the
    // application's: the browser test follows the example's redirect).
    let elsewhere = send(&app, get("/approvals/nothing", Some("alice"))).await;
    assert_eq!(elsewhere.status, StatusCode::NOT_FOUND);
    assert!(
        elsewhere
            .body
            .contains("<strong>No such page</strong>: the inbox has no page here"),
        "{}",
        elsewhere.body
    );
    assert!(
        elsewhere.body.contains(r#"href="/approvals""#),
        "{}",
        elsewhere.body
    );
}

/// Rotating the approval key (the new key current, the old one kept among the
/// previous keys) leaves a form opened before the rotation working: its CSRF token
/// and its pending approval were signed under the old key. Once the old key is
/// dropped, the token is refused and nothing is decided.
#[tokio::test]
async fn a_form_opened_before_the_key_rotated_still_decides_while_the_old_key_is_kept() {
    let old = ApprovalKey::new(*b"the inbox tests' approval key!!!").expect("32 bytes");
    let new = || ApprovalKey::new(*b"the rotated inbox approval key!!").expect("32 bytes");
    let store: Arc<dyn toolkit::approval::ApprovalStore> = Arc::new(MemoryApprovalStore::new());
    let inbox = |approvals: Approvals| {
        Inbox::new(
            Arc::new(approvals),
            |parts: &http::request::Parts| {
                Some(Identity::new(local(
                    parts.headers.get("x-user")?.to_str().ok()?,
                )))
            },
            |_: &Identity, _: &PendingCall<'_>| true,
        )
        .router()
    };
    let before = Approvals::with_store(old.clone(), store.clone());
    let pending = ask(&before, "user:alice", "call_1", "+15550100").await;
    let token = token(&inbox(before), "alice").await;
    let text = call_of(&pending);

    let dropped = inbox(Approvals::with_store(new(), store.clone()));
    let refused = send(
        &dropped,
        post_form("/decide", "alice", &form(&token, &text, "approve")),
    )
    .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    assert!(
        store
            .decisions(&DecisionQuery::new())
            .await
            .unwrap()
            .is_empty()
    );

    let rotated = inbox(Approvals::with_store(new(), store.clone()).previous_keys([old]));
    let decided = send(
        &rotated,
        post_form("/decide", "alice", &form(&token, &text, "approve")),
    )
    .await;
    assert_eq!(decided.status, StatusCode::SEE_OTHER, "{}", decided.body);
    let recorded = store.decisions(&DecisionQuery::new()).await.unwrap();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].decided_by, DecidedBy::Person(local("alice")));
    assert_eq!(recorded[0].verdict, Verdict::Approved);
}

/// Who may decide is the approvals' policy, asked by the inbox too: an approver
/// named like the call's principal (deciding their own call) is refused by the
/// default policy, nothing is recorded or handed on, and the refusal is kept; the
/// audit page then says what came of each approved call.
#[tokio::test]
async fn an_approver_deciding_their_own_call_is_refused_and_the_audit_shows_outcomes() {
    let setup = setup();
    let own = ask(&setup.approvals, "root", "call_own", "+15550100").await;
    let text = call_of(&own);
    let token = token(&setup.router, "root").await;
    let answer = send(
        &setup.router,
        post_form("/decide", "root", &form(&token, &text, "approve")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
    assert!(
        answer.body.contains(
            "you may not decide it: `delete_phone_numbers` is approved by someone other than \
             the requester; the call waits for them; nothing ran"
        ),
        "{}",
        answer.body
    );
    assert!(
        setup.decided.lock().unwrap().is_empty(),
        "nothing handed on"
    );
    let refusals = setup
        .approvals
        .refusals(&DecisionQuery::new())
        .await
        .unwrap();
    assert_eq!(
        refusals
            .iter()
            .map(|r| (r.decided_by.clone(), r.call_id.as_str()))
            .collect::<Vec<_>>(),
        [(DecidedBy::Person(local("root")), "call_own")]
    );

    // Alice approves her colleague's call as an admin would; it runs; the audit
    // page says when and with what.
    let theirs = ask(&setup.approvals, "user:alice", "call_theirs", "+15550101").await;
    let text = call_of(&theirs);
    let answer = send(
        &setup.router,
        post_form("/decide", "root", &form(&token, &text, "approve")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    let audit = send(&setup.router, get("/decisions", Some("root"))).await;
    assert!(
        audit
            .body
            .contains("<td class=\"outcome\"><span class=\"text\">not run yet</span></td>"),
        "{}",
        audit.body
    );
    let approval = setup.decided.lock().unwrap()[0].clone();
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(&setup.approvals, local("user:alice"))
        .build()
        .unwrap();
    assert!(view.resume(&approval, &Context::new()).await.is_success());
    let audit = send(&setup.router, get("/decisions", Some("root"))).await;
    assert!(
        audit
            .body
            .contains("with the result &quot;released +15550101 in 0 days&quot;"),
        "{}",
        audit.body
    );
}

/// Write a note to customers.
#[tool(scope = shared, tier = approve, group = "notes", title = "Send a note")]
fn create_notes(
    /// The subject line.
    subject: String,
    /// The text.
    body: String,
    /// A footer, if any.
    footer: Option<String>,
    /// What it charges, in euros.
    amount: f64,
    /// Who gets it.
    recipients: Vec<String>,
) -> String {
    format!("{subject}{body}{footer:?}{amount}{recipients:?}")
}

/// A call of `tool` with `arguments`, waiting.
async fn ask_with(
    approvals: &Approvals,
    principal: &str,
    call_id: &str,
    tool: &str,
    arguments: &Value,
) -> PendingApproval {
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(approvals, local(principal))
        .build()
        .unwrap();
    let ctx = Context::new().with(CallId::new(call_id));
    match view.call_value(tool, arguments, &ctx).await {
        Response::Pending(pending) => *pending,
        other => panic!("an approve tool waits: {other:?}"),
    }
}

/// A page's list is bounded by what it shows, not by the arguments: 100 calls at
/// the registry's argument limit, of the kinds that cost the most markup per byte
/// (quotes, which HTML-escape to six bytes; hidden characters, each shown as a
/// mark; arrays of them, each an item), make a page of a few hundred kilobytes.
/// The forms name each call; the store keeps the signed approval.
#[tokio::test]
async fn a_hundred_calls_at_the_argument_limit_make_a_page_of_bounded_weight() {
    let setup = setup();
    let limit = toolkit::registry().limits().max_argument_bytes;
    for i in 0..100 {
        let (tool, arguments) = match i % 3 {
            0 => (
                "delete_phone_numbers",
                json!({"number": "\"".repeat(limit / 2 - 20)}),
            ),
            1 => (
                "delete_phone_numbers",
                json!({"number": "\u{202E}".repeat(limit / 3 - 20)}),
            ),
            _ => (
                "create_notes",
                json!({"subject": "s", "body": "b", "amount": 1,
                       "recipients": vec!["\u{202E}"; limit / 6 - 20]}),
            ),
        };
        let call_id = format!("call_{i}");
        ask_with(&setup.approvals, "user:alice", &call_id, tool, &arguments).await;
    }
    let page = send(&setup.router, get("/", Some("alice"))).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        page.body
            .matches(r#"<section class="card pending""#)
            .count(),
        50,
        "a page of the list"
    );
    assert!(
        page.body.len() < 1_000_000,
        "the page weighs {} bytes",
        page.body.len()
    );
    // Each cut says so, and where to see the rest: arguments short enough for
    // the list are cut value by value, the longer ones by the store.
    assert_eq!(
        page.body.matches("more characters (").count()
            + page.body.matches("more items (").count()
            + page
                .body
                .matches("bytes long, too long for the list")
                .count(),
        50
    );
    assert!(page.body.contains("Edit the call to see them all."));
    assert!(!page.body.contains(r#"name="pending""#));
    assert!(page.body.contains(
        r#"<input type="hidden" name="call" value="[&quot;local|user:alice&quot;,&quot;call_99&quot;]">"#
    ));
}

/// A database file and its `-wal` and `-shm` companions, removed when this is
/// dropped.
struct RemovedAfter(std::path::PathBuf);

impl RemovedAfter {
    fn remove(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0.display()));
        }
    }
}

impl Drop for RemovedAfter {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Every inbox request reads one page of the waiting calls, their long arguments
/// cut by the store's query, in memory and in `SQLite`: with 100 calls of about a
/// megabyte of arguments waiting, the list shows the newest 50 with the length and
/// first characters of their arguments and a link to the older ones, which shows
/// the other 50; `/api/pending` answers a page of the same weight, and only the
/// call asked for by name comes whole (its signed approval, to decide).
#[tokio::test]
async fn a_hundred_calls_of_a_megabyte_list_a_page_of_fifty_cut_by_the_store() {
    type Open<'p> = Box<dyn FnOnce() -> Setup + 'p>;
    let path = std::env::temp_dir().join(format!(
        "toolkit-inbox-megabytes-{}.sqlite3",
        std::process::id()
    ));
    // About 100 MB: removed before and after the test, passed or failed.
    let removed = RemovedAfter(path.clone());
    removed.remove();
    let stores: [(&str, Open<'_>); 2] = [
        ("memory", Box::new(setup)),
        (
            "sqlite",
            Box::new(|| {
                setup_with(toolkit::approval::SqliteApprovalStore::open(&path).expect("opens"))
            }),
        ),
    ];
    for (name, setup) in stores {
        let setup = setup();
        let number = "7".repeat(toolkit::registry().limits().max_argument_bytes - 100);
        for i in 0..100 {
            let call_id = format!("call_{i:03}");
            ask_with(
                &setup.approvals,
                "user:alice",
                &call_id,
                "delete_phone_numbers",
                &json!({ "number": number }),
            )
            .await;
        }
        let page = send(&setup.router, get("/", Some("alice"))).await;
        assert_eq!(page.status, StatusCode::OK, "{name}");
        let cards = page
            .body
            .matches(r#"<section class="card pending""#)
            .count();
        assert_eq!(cards, 50, "{name}");
        assert_eq!(
            page.body
                .matches("bytes long, too long for the list; they begin")
                .count(),
            50,
            "{name}"
        );
        assert!(
            page.body.len() < 200_000,
            "{name}: the page weighs {} bytes",
            page.body.len()
        );
        // The link to the older calls names where this page ended.
        let link = page
            .body
            .split(r#"<a class="older" href=""#)
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a link to older calls")
            .replace("&amp;", "&");
        let older = send(&setup.router, get(&link, Some("alice"))).await;
        assert_eq!(older.status, StatusCode::OK, "{name}");
        assert!(older.body.contains(r#"data-call-id="call_000""#), "{name}");
        assert!(!older.body.contains(r#"data-call-id="call_099""#), "{name}");
        assert_eq!(
            older
                .body
                .matches(r#"<section class="card pending""#)
                .count(),
            50,
            "{name}"
        );
        assert!(
            !older.body.contains(r#"class="older""#),
            "{name}: the last page"
        );

        let api = send(&setup.router, get("/api/pending", Some("alice"))).await;
        assert_eq!(api.status, StatusCode::OK, "{name}");
        assert!(
            api.body.len() < 200_000,
            "{name}: the answer weighs {} bytes",
            api.body.len()
        );
        let answer = api.json();
        assert_eq!(answer["pending"].as_array().map(Vec::len), Some(50));
        assert_eq!(answer["more"], true);
        let first = &answer["pending"][0];
        assert_eq!(first["pending"]["call_id"], "call_099");
        assert_eq!(first["pending"]["arguments"], Value::Null);
        assert_eq!(
            first["arguments_cut"]["bytes"],
            json!({ "number": number }).to_string().len()
        );
        let before = answer["before"].as_str().expect("where the page ended");
        let query = serde_urlencoded::to_string([("before", before)]).unwrap();
        let next = send(
            &setup.router,
            get(&format!("/api/pending?{query}"), Some("alice")),
        )
        .await;
        assert_eq!(
            call_ids(&next),
            (0..50)
                .rev()
                .map(|i| format!("call_{i:03}"))
                .collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(next.json()["more"], false);
        // One call by name: whole.
        let one = send(
            &setup.router,
            get(
                "/api/pending?principal=local%7Cuser%3Aalice&call_id=call_042",
                Some("alice"),
            ),
        )
        .await
        .json();
        assert_eq!(one["pending"][0]["pending"]["arguments"]["number"], number);
        assert_eq!(one["pending"][0]["arguments_cut"], Value::Null);
        // A place in the list that is not one is refused.
        let refused = send(&setup.router, get("/?before=%5B1%2C2%5D", Some("alice"))).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{name}");
    }
}

/// What a browser does to a field's markup and what it sends back (HTML: the
/// parser's character references and newline normalization, NUL replaced; a text
/// box's value loses its line breaks; a text area drops one newline right after
/// its start tag).
fn as_a_browser_sends(markup: &str, text_box: bool) -> String {
    let text = markup
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('\0', "\u{FFFD}");
    if text_box {
        text.replace('\n', "")
    } else {
        text.strip_prefix('\n').unwrap_or(&text).to_owned()
    }
}

/// The fields of an edit form as a browser submits them untouched.
fn fields_as_sent(page: &str) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    for piece in page.split("<input ").skip(1) {
        let tag = &piece[..piece.find('>').unwrap()];
        if let Some(name) = tag.split(r#"name=""#).nth(1)
            && name.starts_with("arg.")
        {
            let name = &name[..name.find('"').unwrap()];
            let value = tag.split(r#"value=""#).nth(1).unwrap();
            let value = &value[..value.find('"').unwrap()];
            fields.push((name.to_owned(), as_a_browser_sends(value, true)));
        }
    }
    for piece in page.split("<textarea ").skip(1) {
        let name = piece.split(r#"name=""#).nth(1).unwrap();
        let name = &name[..name.find('"').unwrap()];
        let content = &piece[piece.find('>').unwrap() + 1..piece.find("</textarea>").unwrap()];
        fields.push((name.to_owned(), as_a_browser_sends(content, false)));
    }
    fields
}

/// "Approve with these arguments", nothing changed, approves the call as asked,
/// byte for byte, whatever its values hold: a lone carriage return, NUL, CRLF, a
/// leading newline, hidden and look-alike characters, an empty or blank optional
/// text, an explicit null, a long line, a number with a fraction. A value its
/// typed field would change is edited as JSON, every hidden character escaped.
#[tokio::test]
async fn approving_an_unchanged_edit_form_runs_exactly_what_was_asked() {
    let setup = setup();
    let alice = token(&setup.router, "alice").await;
    let cases = [
        json!({"subject": "cr\rkept", "body": "nul\0kept\r\nand CRLF", "footer": "",
               "amount": 1.0, "recipients": ["\u{202E}gpj.exe", "a\u{200B}b"]}),
        json!({"subject": "\u{2800}", "body": "\nleading newline, \u{2028} a separator",
               "amount": 0.1, "recipients": []}),
        json!({"subject": "x".repeat(300), "body": "tab\t, DEL \u{7f}, \u{85} NEL",
               "footer": "   ", "amount": 1e21, "recipients": ["a\"b<c>&"]}),
        json!({"subject": "plain", "body": "two\nlines", "footer": null,
               "amount": -2.5, "recipients": ["\u{FEFF}x"]}),
    ];
    for (i, arguments) in cases.iter().enumerate() {
        let call_id = format!("call_exact_{i}");
        let pending = ask_with(
            &setup.approvals,
            "user:alice",
            &call_id,
            "create_notes",
            arguments,
        )
        .await;
        let call = call_of(&pending);
        let edit = send(
            &setup.router,
            post_form("/edit", "alice", &form(&alice, &call, "edit")),
        )
        .await;
        assert_eq!(edit.status, StatusCode::OK, "{}", edit.body);
        let mut pairs: Vec<(String, String)> = vec![
            ("csrf".to_owned(), alice.clone()),
            ("call".to_owned(), call.clone()),
            ("action".to_owned(), "approve_with".to_owned()),
        ];
        pairs.extend(fields_as_sent(&edit.body));
        let pairs: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(key, value)| (key.as_str(), value.as_str()))
            .collect();
        let answer = send(&setup.router, post_form("/decide", "alice", &pairs)).await;
        assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
        let decided = setup.decided.lock().unwrap().last().unwrap().clone();
        assert_eq!(decided.call_id, call_id);
        assert_eq!(&decided.arguments, arguments, "case {i}");
        assert_eq!(decided.digest, pending.digest, "case {i}");
        assert_eq!(decided.verdict, Verdict::Approved, "nothing was edited");
        if i == 0 {
            // The carriage return and the hidden characters, written as escapes.
            assert!(
                edit.body.contains("name=\"arg.subject\" rows=\"4\" aria-describedby=\"problem-subject\">\n&quot;cr\\rkept&quot;</textarea>"),
                "{}",
                edit.body
            );
            assert!(
                edit.body.contains("&quot;\\u202egpj.exe&quot;"),
                "{}",
                edit.body
            );
            assert!(
                edit.body.contains(
                    "Shown as JSON: the value holds characters a text box would change or hide"
                ),
                "{}",
                edit.body
            );
        }
    }
    // Marked in the list as in the form: U+2800 and U+2028 are hidden characters.
    let waiting = ask_with(
        &setup.approvals,
        "user:alice",
        "call_blank",
        "create_notes",
        &cases[1],
    )
    .await;
    let page = send(&setup.router, get("/", Some("alice"))).await;
    assert!(
        page.body
            .contains(r#"title="a hidden character">U+2800</span>"#)
    );
    assert!(
        page.body
            .contains(r#"title="a hidden character">U+2028</span>"#)
    );
    let _ = waiting;
}

/// The notice part of a list page, tags and all.
fn notice_of(page: &str) -> Option<&str> {
    let start = page.find(r#"<div class="notice""#)?;
    let end = start + page[start..].find("</div>")?;
    Some(&page[start..end])
}

/// After a decision, the list names the call and says what the store records of
/// it: who decided and when, and what came of it (waiting for the requester, ran
/// with its result, expired). A link's query only names a call; a call the
/// approver may not see, or a made-up `?done=approved`, shows nothing.
#[tokio::test]
async fn after_a_decision_the_list_says_what_the_store_records_of_that_call() {
    let setup = setup();
    let quiet = send(&setup.router, get("/?done=approved", Some("alice"))).await;
    assert_eq!(notice_of(&quiet.body), None, "{}", quiet.body);

    let pending = ask(&setup.approvals, "user:alice", "call_1", "+15550100").await;
    let alice = token(&setup.router, "alice").await;
    let text = call_of(&pending);
    let answer = send(
        &setup.router,
        post_form("/decide", "alice", &form(&alice, &text, "approve")),
    )
    .await;
    let location = answer.headers[header::LOCATION]
        .to_str()
        .unwrap()
        .to_owned();
    let page = send(&setup.router, get(&location, Some("alice"))).await;
    let notice = notice_of(&page.body).unwrap_or_else(|| panic!("{}", page.body));
    assert!(
        notice.starts_with(
            r#"<div class="notice" role="status" data-call-id="call_1" data-verdict="approved"><strong>Approved</strong> by <span class="person" data-principal="local|alice"><span class="text subject">alice</span></span> at "#
        ),
        "{notice}"
    );
    assert!(
        notice.contains(
            r#"UTC: Release a phone number (call <code>call_1</code>, for <span class="person" data-principal="local|user:alice"><span class="text subject">user:alice</span></span>). <span class="outcome">Waiting for the requester: it runs once, as approved, when it is resumed (until "#
        ),
        "{notice}"
    );
    // The edit form does not open for a decided call.
    let edit = send(
        &setup.router,
        post_form("/edit", "alice", &form(&alice, &text, "edit")),
    )
    .await;
    assert_eq!(edit.status, StatusCode::CONFLICT);
    assert!(
        edit.body
            .contains("<strong>Already decided</strong>: alice decided it (approved) at "),
        "{}",
        edit.body
    );
    assert!(
        edit.body.contains("UTC; there is nothing left to edit"),
        "{}",
        edit.body
    );

    // It ran: the list says when, and with what.
    let approval = setup.decided.lock().unwrap()[0].clone();
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(&setup.approvals, local("user:alice"))
        .build()
        .unwrap();
    assert!(view.resume(&approval, &Context::new()).await.is_success());
    let page = send(&setup.router, get(&location, Some("alice"))).await;
    let notice = notice_of(&page.body).unwrap();
    assert!(
        notice.contains(r#"<span class="outcome">Ran at "#)
            && notice.ends_with(
                r" UTC, with the result &quot;released +15550100 in 0 days&quot;.</span>"
            ),
        "{notice}"
    );
    // Bob may not see alice's call: the same link tells him nothing.
    let bobs = send(&setup.router, get(&location, Some("bob"))).await;
    assert_eq!(notice_of(&bobs.body), None);

    // A denial: nothing ran.
    let pending = ask(&setup.approvals, "user:alice", "call_2", "+15550101").await;
    let text = call_of(&pending);
    let mut pairs = form(&alice, &text, "deny");
    pairs.push(("reason", "Not this one."));
    let answer = send(&setup.router, post_form("/decide", "alice", &pairs)).await;
    let location = answer.headers[header::LOCATION].to_str().unwrap();
    let page = send(&setup.router, get(location, Some("alice"))).await;
    let notice = notice_of(&page.body).unwrap();
    assert!(notice.contains("<strong>Denied</strong> by "), "{notice}");
    assert!(
        notice
            .ends_with(r#"<span class="outcome">Nothing ran; the model reads the reason.</span>"#),
        "{notice}"
    );
}

/// An approval nobody resumed in time: the list says it expired and nothing ran.
#[tokio::test]
async fn an_approval_never_resumed_is_told_as_expired() {
    let key = || ApprovalKey::new(*b"the inbox tests' approval key!!!").unwrap();
    let approvals = Arc::new(
        Approvals::new(key(), MemoryApprovalStore::new()).approval_ttl(std::time::Duration::ZERO),
    );
    let router = Inbox::new(
        approvals.clone(),
        |parts: &http::request::Parts| {
            Some(Identity::new(local(
                parts.headers.get("x-user")?.to_str().ok()?,
            )))
        },
        |_: &Identity, _: &PendingCall<'_>| true,
    )
    .router();
    let pending = ask(&approvals, "user:alice", "call_1", "+15550100").await;
    let alice = token(&router, "alice").await;
    let text = call_of(&pending);
    let answer = send(
        &router,
        post_form("/decide", "alice", &form(&alice, &text, "approve")),
    )
    .await;
    let location = answer.headers[header::LOCATION]
        .to_str()
        .unwrap()
        .to_owned();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let page = send(&router, get(&location, Some("alice"))).await;
    let notice = notice_of(&page.body).unwrap();
    assert!(
        notice.contains(r#"<span class="outcome">Expired at "#)
            && notice.ends_with(" UTC without being resumed: nothing ran.</span>"),
        "{notice}"
    );
}

/// Enter in an edit field submits nothing: the form's default button (its first)
/// is a disabled one, and a submission that names no decision decides nothing.
/// A denial's reason is required before the form can be sent.
#[tokio::test]
async fn enter_does_not_approve_and_a_denial_asks_for_its_reason() {
    let setup = setup();
    let pending = ask(&setup.approvals, "user:alice", "call_1", "+15550100").await;
    let alice = token(&setup.router, "alice").await;
    let text = call_of(&pending);
    let edit = send(
        &setup.router,
        post_form("/edit", "alice", &form(&alice, &text, "edit")),
    )
    .await;
    let form_html = &edit.body[edit.body.find(r#"<form class="edit""#).unwrap()..];
    let first_button = &form_html[form_html.find("<button").unwrap()..];
    assert!(
        first_button.starts_with(
            r#"<button class="enter-does-nothing" type="submit" disabled hidden aria-hidden="true" tabindex="-1"></button>"#
        ),
        "{form_html}"
    );
    assert!(
        form_html.contains(
            r#"<button class="approve" type="submit" name="action" value="approve_with">Approve with these arguments</button>"#
        ),
        "{form_html}"
    );
    assert!(!form_html.contains(r#"type="hidden" name="action""#));
    // What Enter would send without the button: no decision.
    let pairs = [
        ("csrf", alice.as_str()),
        ("call", text.as_str()),
        ("arg.number", "+15550199"),
    ];
    let answer = send(&setup.router, post_form("/decide", "alice", &pairs)).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(
        answer
            .body
            .contains("the form names no decision; nothing ran")
    );
    assert!(setup.decided.lock().unwrap().is_empty());

    let list = send(&setup.router, get("/", Some("alice"))).await;
    assert!(
        list.body.contains(
            r#"<input type="text" name="reason" required pattern=".*\S.*" title="Write why the call should not run: the model reads it""#
        ),
        "{}",
        list.body
    );
}

/// An unknown field's problem is at the field's own path.
#[tokio::test]
async fn an_unknown_field_is_named_by_its_own_path() {
    let setup = setup();
    let pending = ask(&setup.approvals, "user:alice", "call_1", "+15550100").await;
    let alice = token(&setup.router, "alice").await;
    let answer = send(
        &setup.router,
        api_decide(
            &alice,
            &json!({"pending": pending, "decision": {"approve_with": {"number": "+1", "evil": 1}}}),
        ),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        answer.json()["error"]["problems"],
        json!([{"path": "evil", "message": "the tool has no field `evil`"}])
    );
}

/// The model's stated reason, where the application gives one, is shown as the
/// model's words: escaped, hidden characters marked, blank words left out.
#[tokio::test]
async fn the_models_stated_reason_is_shown_as_its_words() {
    let approvals = Arc::new(Approvals::new(
        ApprovalKey::new(*b"the inbox tests' approval key!!!").unwrap(),
        MemoryApprovalStore::new(),
    ));
    let router = Inbox::new(
        approvals.clone(),
        |parts: &http::request::Parts| {
            Some(Identity::new(local(
                parts.headers.get("x-user")?.to_str().ok()?,
            )))
        },
        |_: &Identity, _: &PendingCall<'_>| true,
    )
    .reason(|pending| match pending.call_id.as_str() {
        "call_1" => Some("Ada asked to <b>release</b> it\u{202E}; she moved".to_owned()),
        "call_2" => Some("  ".to_owned()),
        _ => None,
    })
    .router();
    ask(&approvals, "user:ada", "call_1", "+15550100").await;
    ask(&approvals, "user:ada", "call_2", "+15550101").await;
    let page = send(&router, get("/", Some("bob"))).await;
    assert!(
        page.body.contains(
            r#"<p class="reason">The model's reason: <span class="text">Ada asked to &lt;b&gt;release&lt;/b&gt; it<span class="invisible" title="a hidden character">U+202E</span>; she moved</span></p>"#
        ),
        "{}",
        page.body
    );
    assert_eq!(page.body.matches(r#"<p class="reason">"#).count(), 1);
}

/// Who asked, in the application's words, where its hook names them; the audit
/// list names the tool by its title.
#[tokio::test]
async fn who_asked_is_told_in_the_applications_words() {
    let approvals = Arc::new(Approvals::new(
        ApprovalKey::new(*b"the inbox tests' approval key!!!").unwrap(),
        MemoryApprovalStore::new(),
    ));
    let router = Inbox::new(
        approvals.clone(),
        |parts: &http::request::Parts| {
            Some(Identity::new(local(
                parts.headers.get("x-user")?.to_str().ok()?,
            )))
        },
        |_: &Identity, _: &PendingCall<'_>| true,
    )
    .requester(|pending| {
        let user = pending.principal.subject().strip_prefix("user:")?;
        Some(format!("{user}'s assistant"))
    })
    .router();
    ask(&approvals, "user:ada", "call_1", "+15550100").await;
    ask(&approvals, "service", "call_2", "+15550101").await;
    let page = send(&router, get("/", Some("bob"))).await;
    assert!(
        page.body.contains(
            r#"<span>Asked by <span class="text requester">ada's assistant</span></span>"#
        ),
        "{}",
        page.body
    );
    assert!(
        !page
            .body
            .contains(r#"<span class="person" data-principal="local|user:ada">"#)
    );
    // No words for it: the principal, as a person reads it (the application's
    // own, so its subject alone), its key for programs.
    assert!(
        page.body.contains(
            r#"<span>For <span class="person" data-principal="local|service"><span class="text subject">service</span></span></span>"#
        ),
        "{}",
        page.body
    );

    let bob = token(&router, "bob").await;
    let pending = approvals
        .pending(&toolkit::approval::PendingQuery::new())
        .await
        .unwrap();
    let call = call_of(&pending[0]);
    send(
        &router,
        post_form("/decide", "bob", &form(&bob, &call, "approve")),
    )
    .await;
    let audit = send(&router, get("/decisions", Some("bob"))).await;
    assert!(
        audit
            .body
            .contains("<td>Release a phone number <code>delete_phone_numbers</code></td>"),
        "{}",
        audit.body
    );
}

/// `request` with its `Host` header replaced by `host`.
fn with_host(mut request: Request<Body>, host: &str) -> Request<Body> {
    request
        .headers_mut()
        .insert(header::HOST, host.parse().unwrap());
    request
}

#[tokio::test]
async fn only_allowed_host_names_reach_the_inbox() {
    let setup = setup();
    let pending = ask(&setup.approvals, "user:alice", "call-host", "+15550199").await;
    let call = call_of(&pending);
    let alice = token(&setup.router, "alice").await;
    let decide = || post_form("/decide", "alice", &form(&alice, &call, "approve"));
    let forbidden = |answer: &Answer| {
        assert_eq!(answer.status, StatusCode::FORBIDDEN);
        assert_eq!(answer.body, "Forbidden: Host header is not allowed");
    };
    // A page on a rebound name reads nothing and decides nothing.
    for host in ["evil.example", "evil.example:8080", "tools.example.com"] {
        forbidden(&send(&setup.router, with_host(get("/", Some("alice")), host)).await);
        forbidden(
            &send(
                &setup.router,
                with_host(get("/api/pending", Some("alice")), host),
            )
            .await,
        );
        forbidden(&send(&setup.router, with_host(decide(), host)).await);
    }
    assert!(setup.decided.lock().unwrap().is_empty());
    // The same decision through a loopback name is taken.
    assert_eq!(
        send(&setup.router, decide()).await.status,
        StatusCode::SEE_OTHER
    );
    assert_eq!(setup.decided.lock().unwrap().len(), 1);
    // The loopback names, with or without a port, by default.
    for host in ["localhost", "127.0.0.1:8080", "[::1]:8080", "LocalHost"] {
        let answer = send(
            &setup.router,
            with_host(get("/api/pending", Some("alice")), host),
        )
        .await;
        assert_eq!(answer.status, StatusCode::OK, "{host}");
    }
    // Named hosts instead of the loopback ones; a port, when given, must match.
    let deployed = Inbox::new(
        setup.approvals.clone(),
        |_: &http::request::Parts| Some(Identity::new(local("alice"))),
        |_: &Identity, _: &PendingCall<'_>| true,
    )
    .allowed_hosts(["tools.example.com", "admin.example.com:8443"])
    .router();
    for (host, status) in [
        ("tools.example.com", StatusCode::OK),
        ("tools.example.com:443", StatusCode::OK),
        ("admin.example.com:8443", StatusCode::OK),
        ("admin.example.com", StatusCode::FORBIDDEN),
        ("localhost", StatusCode::FORBIDDEN),
        ("evil.example", StatusCode::FORBIDDEN),
    ] {
        let answer = send(&deployed, with_host(get("/api/pending", None), host)).await;
        assert_eq!(answer.status, status, "{host}");
    }
    // No `Host` at all (and no authority in the URI): not answered either.
    let mut bare = get("/api/pending", Some("alice"));
    bare.headers_mut().remove(header::HOST);
    let answer = send(&setup.router, bare).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
}

/// The JSON list says what the page says: a call the approvals' policy leaves to
/// someone else (its requester is this approver) is listed with `may_decide:
/// false` and the policy's reason, not `refused: null`.
#[tokio::test]
async fn the_json_list_says_when_the_policy_leaves_a_call_to_someone_else() {
    let setup = setup();
    ask(&setup.approvals, "root", "call_own", "+15550100").await;
    ask(&setup.approvals, "user:alice", "call_alices", "+15550101").await;
    let api = send(&setup.router, get("/api/pending", Some("root")))
        .await
        .json();
    let listed = |call_id: &str| {
        api["pending"]
            .as_array()
            .and_then(|items| {
                items
                    .iter()
                    .find(|item| item["pending"]["call_id"] == call_id)
            })
            .map(|item| (item["may_decide"].clone(), item["refused"].clone()))
    };
    let reason = "`delete_phone_numbers` is approved by someone other than the requester; \
                  the call waits for them";
    assert_eq!(listed("call_own"), Some((json!(false), json!(reason))));
    assert_eq!(listed("call_alices"), Some((json!(true), Value::Null)));
    let page = send(&setup.router, get("/", Some("root"))).await;
    assert!(
        page.body
            .contains(&format!("Not yours to decide: {reason}.")),
        "{}",
        page.body
    );
}

/// An inline decider that asks a person live (Ada, below) and relays their "yes".
struct AsksAda(Principal);

impl toolkit::approval::InlineDecider for AsksAda {
    fn decide<'a>(
        &'a self,
        _: &'a PendingApproval,
        _: &'a Context,
    ) -> std::pin::Pin<Box<dyn Future<Output = Option<toolkit::approval::Decision>> + Send + 'a>>
    {
        Box::pin(async { Some(toolkit::approval::Decision::Approve) })
    }

    fn decided_by(&self, _: &PendingApproval, _: &Context) -> Option<Principal> {
        Some(self.0.clone())
    }
}

/// Ada, one person at every door. Her MCP token and her inbox sign-in name her by
/// the same issuer and subject, made a principal by the same `ClaimsMapping`; her
/// in-process agent is a principal of its own, declared to act for her. Under the
/// default policy (nobody decides their own call) neither her own transfer nor
/// her agent's is approved by her: not in the inbox's form, not through its JSON
/// API, not with `decide_as`, not as the requester's own answer (an MCP
/// elicitation), not by an inline decider that asked her. Nothing is recorded or
/// run; Bob then approves it, and it runs once.
///
/// On the code before principals were typed, the same scenario with the README's
/// spellings (`user:ada` asking, `ada` signed in) answered the inbox form with 303
/// and recorded Ada's approval of her own call.
#[tokio::test]
async fn ada_cannot_approve_her_own_transfer_by_any_door() {
    use toolkit::ClaimsMapping;
    use toolkit::approval::{ApprovalError, Deciders, Decision};

    const ISSUER: &str = "https://id.example.com";
    let mapping = ClaimsMapping::new();
    let signed_in = |subject: &str| {
        let claims =
            json!({"iss": ISSUER, "sub": subject, "email": format!("{subject}@example.com")});
        mapping.principal(claims.as_object().unwrap()).unwrap()
    };
    // What the MCP door's verifier makes of Ada's token, through the same mapping.
    let ada = signed_in("ada");
    let agent = local("agent:ada");

    let key = ApprovalKey::new(*b"the inbox tests' approval key!!!").expect("32 bytes");
    let approvals = Arc::new(
        Approvals::new(key, MemoryApprovalStore::new())
            .policy(Deciders::others().acting_for(agent.clone(), ada.clone())),
    );
    // Everyone sees every call: what refuses Ada is the approvals' policy.
    let router = signed_in_inbox(approvals.clone(), ISSUER);
    let own = ask_as(&approvals, ada.clone(), "call_own", "+15550100").await;
    let agents = ask_as(&approvals, agent.clone(), "call_agent", "+15550101").await;
    let ada_token = token(&router, "ada").await;
    let reason = "`delete_phone_numbers` is approved by someone other than the requester; \
                  the call waits for them";
    for pending in [&own, &agents] {
        // The inbox's form.
        let answer = send(
            &router,
            post_form(
                "/decide",
                "ada",
                &form(&ada_token, &call_of(pending), "approve"),
            ),
        )
        .await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
        assert!(
            answer
                .body
                .contains(&format!("you may not decide it: {reason}; nothing ran")),
            "{}",
            answer.body
        );
        // The inbox's JSON API.
        let api = Request::post("/api/decide")
            .header(header::HOST, "localhost")
            .header("x-user", "ada")
            .header("x-csrf-token", &ada_token)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(
                json!({"pending": pending, "decision": "approve"}).to_string(),
            ))
            .unwrap();
        let answer = send(&router, api).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
        assert_eq!(answer.json()["error"]["kind"], "not_allowed");
        // `decide_as`, with the principal her token made.
        let decided = approvals
            .decide_as(toolkit::registry(), pending, Decision::Approve, &ada)
            .await;
        assert_eq!(
            decided,
            Err(ApprovalError::NotAllowed {
                decided_by: format!("{ISSUER}|ada"),
                reason: reason.to_owned(),
            })
        );
        // Her agent deciding in the inbox's place: acting for her, it is her.
        let decided = approvals
            .decide_as(toolkit::registry(), pending, Decision::Approve, &agent)
            .await;
        assert!(
            matches!(decided, Err(ApprovalError::NotAllowed { .. })),
            "{decided:?}"
        );
    }
    // The requester's own answer in the conversation (an MCP elicitation).
    let answered = approvals
        .answer_as_requester(toolkit::registry(), &own, Decision::Approve)
        .await;
    assert!(
        matches!(answered, Err(ApprovalError::NotAllowed { .. })),
        "{answered:?}"
    );
    assert!(
        approvals
            .decisions(&DecisionQuery::new())
            .await
            .unwrap()
            .is_empty(),
        "nothing recorded"
    );

    // An inline decider that asks Ada herself, live, is her decision.
    let key = ApprovalKey::new(*b"the inbox tests' approval key!!!").expect("32 bytes");
    let inline = Approvals::new(key, MemoryApprovalStore::new())
        .policy(Deciders::others().acting_for(agent.clone(), ada.clone()))
        .inline_decider(AsksAda(ada.clone()));
    for requester in [ada.clone(), agent.clone()] {
        let view = toolkit::registry()
            .view()
            .scopes([Scope::Shared])
            .approvals(&inline, requester)
            .build()
            .unwrap();
        let response = view
            .call_value(
                "delete_phone_numbers",
                &json!({"number": "+15550102"}),
                &Context::new().with(CallId::new("call_inline")),
            )
            .await;
        assert_eq!(
            response.error().map(toolkit::ToolError::kind),
            Some("approval_rejected"),
            "{response:?}"
        );
    }

    // Someone else decides: Bob, signed in through the same mapping.
    let bob = token(&router, "bob").await;
    let answer = send(
        &router,
        post_form("/decide", "bob", &form(&bob, &call_of(&own), "approve")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    let recorded = approvals.decisions(&DecisionQuery::new()).await.unwrap();
    assert_eq!(
        recorded
            .iter()
            .map(|record| (record.decided_by.clone(), record.call_id.as_str()))
            .collect::<Vec<_>>(),
        [(
            DecidedBy::Person(Principal::new(ISSUER, "bob").unwrap()),
            "call_own"
        )]
    );
}

/// People read as people: the signed-in approver, who asked and who decided are
/// shown by subject, the issuer that signed them in apart and secondary, and the
/// tenant, as the MCP Apps approval card shows them (one rule,
/// `Principal::display_name`); a hostile subject is escaped and its hidden
/// characters shown. The key stays what a program reads: each name's
/// `data-principal` attribute, and the JSON API's keys beside readable names.
#[tokio::test]
async fn people_are_shown_by_name_with_their_issuer_and_the_key_stays_for_programs() {
    const ISSUER: &str = "https://id.example.com";
    let key = ApprovalKey::new(*b"the inbox tests' approval key!!!").expect("32 bytes");
    let approvals = Arc::new(Approvals::new(key, MemoryApprovalStore::new()));
    let router = signed_in_inbox(approvals.clone(), ISSUER);
    let eve = Principal::with_tenant(ISSUER, "Eve <b>x</b>\u{202E}", "acme").unwrap();
    let asked = ask_as(&approvals, eve.clone(), "call_eve", "+15550100").await;

    let listed = send(&router, get("/api/pending", Some("bob"))).await.json();
    assert_eq!(listed["approver"], format!("{ISSUER}|bob"));
    assert_eq!(
        listed["approver_name"],
        json!({
            "name": format!("bob (signed in with {ISSUER})"),
            "subject": "bob",
            "signed_in_with": ISSUER,
        })
    );
    assert_eq!(listed["pending"][0]["pending"]["principal"], eve.key());
    assert_eq!(
        listed["pending"][0]["requester_name"],
        json!({
            "name": format!("Eve <b>x</b>\u{202E} (signed in with {ISSUER}), tenant acme"),
            "subject": "Eve <b>x</b>\u{202E}",
            "signed_in_with": ISSUER,
            "tenant": "acme",
        })
    );

    let page = send(&router, get("/", Some("bob"))).await;
    assert!(
        page.body.contains(
            r#"Signed in as <span class="person" data-principal="https://id.example.com|bob"><span class="text subject">bob</span> <span class="text issuer">(signed in with https://id.example.com)</span></span>"#
        ),
        "{}",
        page.body
    );
    assert!(
        page.body.contains(
            r#"For <span class="person" data-principal="https://id.example.com|Eve &lt;b&gt;x&lt;/b&gt;"#
        ),
        "{}",
        page.body
    );
    assert!(
        page.body.contains(
            r#"<span class="text subject">Eve &lt;b&gt;x&lt;/b&gt;<span class="invisible" title="a hidden character">U+202E</span></span>"#
        ),
        "{}",
        page.body
    );
    assert!(
        page.body.contains(
            r#"</span> <span class="text issuer">(signed in with https://id.example.com)</span><span class="text tenant">, tenant acme</span></span>"#
        ),
        "{}",
        page.body
    );
    assert!(!page.body.contains("<b>x</b>"), "escaped");

    // Decided by Bob: the notice, the audit page and the JSON name him so too.
    let bob_token = token(&router, "bob").await;
    let approve = || {
        send(
            &router,
            post_form(
                "/decide",
                "bob",
                &form(&bob_token, &call_of(&asked), "approve"),
            ),
        )
    };
    let answer = approve().await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    let bob_html = r#"<span class="person" data-principal="https://id.example.com|bob"><span class="text subject">bob</span> <span class="text issuer">(signed in with https://id.example.com)</span></span>"#;
    let audit = send(&router, get("/decisions", Some("bob"))).await;
    assert!(
        audit.body.contains(&format!("<td>{bob_html}</td>")),
        "{}",
        audit.body
    );
    let decisions = send(&router, get("/api/decisions", Some("bob")))
        .await
        .json();
    assert_eq!(
        decisions["decisions"][0]["decided_by"],
        format!("{ISSUER}|bob")
    );
    assert_eq!(
        decisions["decisions"][0]["decided_by_name"],
        listed["approver_name"]
    );
    assert_eq!(
        decisions["decisions"][0]["requester_name"],
        listed["pending"][0]["requester_name"]
    );
    // The record itself names Bob as a typed principal.
    let recorded = approvals.decisions(&DecisionQuery::new()).await.unwrap();
    assert_eq!(
        recorded[0].decided_by,
        DecidedBy::Person(Principal::new(ISSUER, "bob").unwrap())
    );
    // Deciding again: told who was first, by name.
    let again = approve().await;
    assert!(
        again.body.contains(&format!(
            "another approver was first: bob (signed in with {ISSUER}) decided it (approved) at "
        )),
        "{}",
        again.body
    );
}

/// An inbox whose sign-in is an ID token of `issuer` for the subject in `x-user`,
/// mapped to a principal as the MCP door maps a token's claims, and whose policy
/// shows everyone every call.
fn signed_in_inbox(approvals: Arc<Approvals>, issuer: &'static str) -> Router {
    Inbox::new(
        approvals,
        move |parts: &http::request::Parts| {
            let subject = parts.headers.get("x-user")?.to_str().ok()?;
            let claims = json!({"iss": issuer, "sub": subject});
            Identity::from_claims(&toolkit::ClaimsMapping::new(), claims.as_object()?).ok()
        },
        |_: &Identity, _: &PendingCall<'_>| true,
    )
    .router()
}
