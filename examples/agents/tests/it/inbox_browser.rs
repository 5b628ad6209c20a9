//! The approval inbox in a real browser: Debian's Chromium, headless, driven over
//! `WebDriver` (chromium-driver) with fantoccini, through the workspace's harness
//! (`toolkit-test-support`). `scripts/browser.sh` installs both when missing;
//! under `CI=true` these tests never skip. Screenshots go to
//! `target/inbox-screenshots/`.
//!
//! The story is USE-CASES B's trust rule: the sales agent, answering a text from a
//! contact, asks to schedule a call-back, and its turn ends; an owner decides in
//! the inbox; the core's runner, in the background beside the app, creates the
//! schedule once; the agent's next wake reads what came of it from the approval
//! store.

use std::sync::Arc;
use std::time::{Duration, Instant};

use example_agents::consumers::{Request, agent_view, approvals, approvals_on};
use example_agents::inbox::app;
use example_agents::wake::{run_approved, run_approved_every, wake_agents};
use example_agents::{
    CallerThread, ChannelKind, LiveMessage, Org, Principal, SALES_AGENT, Trigger,
};
use serde_json::{Value, json};
use toolkit::approval::{ApprovalKey, Approvals, CallState, Decision, PendingApproval, RunPass};
use toolkit::{
    Context, Response,
    call::{CallId, Limits},
    registry,
};
use toolkit_test_support::{Browser, click, present, screenshot, script, text, type_into};

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

/// One browser at a time: the machine is small, and Chromium is not.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A headless Chromium session for these tests.
async fn browser() -> Option<Browser> {
    Browser::start("inbox", (1100, 900)).await
}

/// The app on a loopback port, with the core's approval runner beside it, as the
/// application's `main` starts them: its base URL.
async fn serve(org: &Org, approvals: &Arc<Approvals>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("its address");
    let router = app(approvals.clone());
    tokio::spawn(async move { axum::serve(listener, router).await });
    tokio::spawn(run_approved_every(
        org.clone(),
        approvals.clone(),
        Arc::new(
            example_agents::consumers::quotas(toolkit::quota::MemoryQuotaStore::new())
                .expect("the org's quotas"),
        ),
        Duration::from_millis(100),
    ));
    format!("http://{addr}")
}

fn key() -> ApprovalKey {
    ApprovalKey::new(*b"the example org's approval key!!").expect("32 bytes")
}

fn org_approvals() -> Arc<Approvals> {
    Arc::new(approvals(key()))
}

/// The agent's principal, as the org stores it.
fn agent_principal(org: &Org) -> Principal {
    org.agent(SALES_AGENT).expect("the sales agent").principal()
}

fn follow_up(prompt: &str, at: &str) -> Value {
    json!({"schedules": [{"prompt": prompt, "recurrence": {"kind": "once", "at": at}, "contact_id": 1}]})
}

/// The sales agent, answering Ada's text, asks for a call-back: a pending approval
/// (stored by the view, for the inbox to find).
async fn agent_asks(
    org: &Org,
    approvals: &Approvals,
    call_id: &str,
    arguments: &Value,
) -> PendingApproval {
    let principal = agent_principal(org);
    let sales = org.agent(SALES_AGENT).expect("the sales agent");
    let request = Request {
        principal: &principal,
        flags: &[],
        page: None,
    };
    let view = agent_view(
        registry(),
        approvals,
        crate::quotas(),
        &sales,
        &request,
        true,
    )
    .expect("the agent's live view");
    let ctx = Context::new()
        .with(org.clone())
        .with(CallerThread(SALES_AGENT))
        .with(Trigger::Contact { contact_id: 1 })
        .with(LiveMessage {
            channel: ChannelKind::Sms,
            conversation_id: 1,
            message_id: 4,
            contact_id: Some(1),
            text: "Can you call me tomorrow at ten?".to_owned(),
        })
        .with(CallId::new(call_id));
    // The agent's turn remembers the waiting call, and ends: nobody waits for it.
    match example_agents::wake::call(&view, "create_schedules", arguments, &ctx).await {
        Response::Pending(pending) => *pending,
        other => panic!("a contact-triggered schedule waits for an owner: {other:?}"),
    }
}

/// Where the agent's call `call_id` is, from the approval store.
async fn state(org: &Org, approvals: &Approvals, call_id: &str) -> CallState {
    approvals
        .status(&agent_principal(org).typed(), call_id)
        .await
        .expect("the store answers")
        .expect("the store keeps the call")
        .state
}

/// Waits until the runner in the background ran `call_id` (or it never will).
async fn ended(org: &Org, approvals: &Approvals, call_id: &str) -> CallState {
    let started = Instant::now();
    loop {
        let state = state(org, approvals, call_id).await;
        if state.is_final() || started.elapsed() > Duration::from_secs(10) {
            return state;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_fixes_an_invalid_edit_approves_and_the_schedule_is_created_once() {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = browser().await else {
        return;
    };
    let client = &browser.client;
    let org = Org::sample();
    let approvals = org_approvals();
    let base = serve(&org, &approvals).await;
    agent_asks(
        &org,
        &approvals,
        "call_follow_up",
        &follow_up("Call Ada back about the quote.", "2026-11-24T10:00Z"),
    )
    .await;

    client
        .goto(&format!("{base}/login?as=olivia"))
        .await
        .expect("signed in");
    let card = r#"section.pending[data-call-id="call_follow_up"]"#;
    assert_eq!(
        text(client, &format!("{card} h2")).await,
        "create_schedules"
    );
    let meta = text(client, &format!("{card} .meta")).await;
    assert!(
        meta.contains("For agent:5a1e5000-0000-0000-0000-000000000001"),
        "{meta}"
    );
    assert!(meta.contains("expires "), "{meta}");
    let description = text(client, &format!("{card} .description")).await;
    assert!(
        description.starts_with("Schedule wake-ups for yourself"),
        "{description}"
    );
    // The arguments by the schema: the parameter, its doc, the nested fields' docs.
    let arguments = text(client, &format!(r#"{card} dd[data-param="schedules"]"#)).await;
    for expected in [
        "Call Ada back about the quote.",
        "The schedules to create.",
        "What to do when woken, as an instruction to yourself.",
        "2026-11-24T10:00Z",
    ] {
        assert!(
            arguments.contains(expected),
            "missing {expected:?} in {arguments}"
        );
    }
    let preview = text(client, &format!("{card} .preview")).await;
    assert!(
        preview.starts_with("Preview: The sales agent will wake 1 time(s)"),
        "{preview}"
    );
    screenshot(client, "1-waiting.png").await;

    // Edit the time to something that is not a time: refused, beside the field.
    click(client, &format!("{card} button.edit")).await;
    let edited = |at: &str| {
        serde_json::to_string_pretty(&follow_up("Call Ada back about the quote.", at)["schedules"])
            .unwrap()
    };
    type_into(client, "#field-schedules", &edited("tomorrow at ten")).await;
    click(client, "form.edit button.approve").await;
    let problem = text(client, r#".field[data-field="schedules"] .problem"#).await;
    assert!(
        problem.starts_with("schedules[0].recurrence.at: "),
        "{problem}"
    );
    assert_eq!(
        text(client, "div.refusal").await,
        "Nothing was approved: fix the arguments marked below."
    );
    screenshot(client, "2-invalid-edit.png").await;
    assert_eq!(org.schedules(SALES_AGENT), []);
    assert_eq!(
        state(&org, &approvals, "call_follow_up").await,
        CallState::Waiting {
            requester_decides: false
        }
    );

    // Fixed: approved, and the runner beside the app creates the schedule, once.
    type_into(client, "#field-schedules", &edited("2026-11-24T11:30Z")).await;
    click(client, "form.edit button.approve").await;
    // The notice names the call and says what the store records of it (the
    // runner runs it in the background: waiting, or already run).
    let notice = text(client, ".notice").await;
    assert!(
        notice.starts_with("Approved with edits by olivia at "),
        "{notice}"
    );
    assert!(
        notice.contains(
            " UTC: create_schedules (call call_follow_up, for agent:5a1e5000-0000-0000-0000-000000000001). "
        ),
        "{notice}"
    );
    let ran = ended(&org, &approvals, "call_follow_up").await;
    let created = json!([{
        "id": 101,
        "prompt": "Call Ada back about the quote.",
        "recurrence": {"kind": "once", "at": "2026-11-24T11:30Z"},
        "contact_id": 1,
        "next_run": "2026-11-24T11:30Z",
        "fired": 0
    }]);
    // The agent reads who edited its arguments and what ran, then the result.
    let CallState::Ran(Some(resumed)) = ran else {
        panic!("it ran: {ran:?}");
    };
    let content = &resumed["toolkit/content"];
    assert_eq!(
        content[0],
        json!({"type": "text", "text": "local|olivia approved it with edited arguments, and it ran with \
            them: {\"schedules\":[{\"contact_id\":1,\"prompt\":\"Call Ada back about the \
            quote.\",\"recurrence\":{\"at\":\"2026-11-24T11:30Z\",\"kind\":\"once\"}}]}"})
    );
    assert_eq!(
        content[1]["text"]
            .as_str()
            .map(serde_json::from_str::<Value>)
            .and_then(Result::ok),
        Some(created.clone())
    );
    assert_eq!(resumed["toolkit/structured"], created);
    assert_eq!(org.schedules(SALES_AGENT).len(), 1);
    // Decided calls leave the list, and the audit list says who decided.
    assert_eq!(
        text(client, "main p.empty").await,
        "Nothing is waiting for you."
    );
    client
        .goto(&format!("{base}/approvals/decisions"))
        .await
        .expect("the audit list");
    let row = text(client, r#"tr[data-call-id="call_follow_up"]"#).await;
    assert!(
        row.contains("olivia approved_with_edits create_schedules"),
        "{row}"
    );
    // The audit row says what came of it, from the store's record of the run.
    assert!(row.contains("ran at "), "{row}");
    screenshot(client, "3-decided.png").await;
    // On a phone, the table scrolls in its box, not the page; on a laptop, no
    // word in it (no space, no hyphen) is broken across lines.
    client
        .set_window_size(400, 800)
        .await
        .expect("a narrow window");
    assert_eq!(
        script(
            client,
            "return document.documentElement.scrollWidth <= window.innerWidth"
        )
        .await,
        json!(true)
    );
    client
        .set_window_size(1280, 900)
        .await
        .expect("a laptop window");
    assert_eq!(
        script(
            client,
            "return [...document.querySelectorAll('td .text, td code, td.verdict')].filter(e => !/[\\s-]/.test(e.textContent.trim()) && e.getClientRects().length > 1).map(e => e.textContent)"
        )
        .await,
        json!([])
    );
    // The first page with a trailing slash is the first page.
    client
        .goto(&format!("{base}/approvals/"))
        .await
        .expect("the inbox");
    assert_eq!(text(client, "main h1").await, "Waiting for a decision");
    // Nothing ran a second time, however often the runner passed, and a second
    // runner (another server's, over the same store) finds nothing to run.
    let other_server = approvals_on(key(), approvals.store().clone());
    assert_eq!(
        run_approved(&org, &other_server, crate::quotas())
            .await
            .expect("the store answers"),
        RunPass::default()
    );
    assert_eq!(org.schedules(SALES_AGENT).len(), 1);
    let run = approvals
        .outcome(&agent_principal(&org).typed(), "call_follow_up")
        .await
        .expect("the store answers")
        .expect("the call ran");
    assert_eq!((run.attempt, run.done), (1, true));
    // The agent's next wake (the schedule it asked for, firing at the time the
    // owner set) reads first what came of its call, from the approval store.
    let wakings = wake_agents(&org, &approvals, "2026-11-24T11:30Z".parse().unwrap()).await;
    let [waking] = wakings.as_slice() else {
        panic!("one wake: {wakings:?}");
    };
    assert_eq!(
        serde_json::to_value(&waking.news).unwrap(),
        json!([{"call_id": "call_follow_up", "tool": "create_schedules", "status": "ran", "result": resumed}])
    );
    assert_eq!(
        waking.messages()[0],
        format!(
            "Your call `create_schedules` (call_follow_up) was approved and ran; it returned: {resumed}"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approver_without_rights_is_refused_the_loser_of_a_race_is_told_and_a_denial_reaches_the_agent()
 {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = browser().await else {
        return;
    };
    let client = &browser.client;
    let org = Org::sample();
    let approvals = org_approvals();
    let base = serve(&org, &approvals).await;
    let raced = agent_asks(
        &org,
        &approvals,
        "call_raced",
        &follow_up("Send Ada the quote.", "2026-11-24T12:00Z"),
    )
    .await;
    let denied = agent_asks(
        &org,
        &approvals,
        "call_denied",
        &follow_up("Call Ada on Sunday.", "2026-11-29T10:00Z"),
    )
    .await;

    // Max is a member: the agent's calls are not his to see or decide, by any URL.
    client
        .goto(&format!("{base}/login?as=max"))
        .await
        .expect("signed in");
    assert_eq!(
        text(client, "main p.empty").await,
        "Nothing is waiting for you."
    );
    client
        .goto(&format!("{base}/approvals/api/pending"))
        .await
        .expect("the API");
    let api: Value = serde_json::from_str(&text(client, "body").await).expect("JSON");
    assert_eq!(api["pending"], json!([]));
    let token = api["csrf_token"].as_str().expect("a token").to_owned();
    // A well-formed decision, with Max's own valid token, from an inbox page.
    client
        .goto(&format!("{base}/approvals/decisions"))
        .await
        .expect("a page of the inbox");
    let forged = json!([
        token,
        serde_json::to_string(&(&denied.principal, &denied.call_id)).unwrap()
    ]);
    client
        .execute(
            "const [token, pending] = arguments;
             const form = document.createElement('form');
             form.method = 'post'; form.action = '/approvals/decide';
             for (const [name, value] of [['csrf', token], ['call', pending], ['action', 'approve']]) {
               const input = document.createElement('input');
               input.type = 'hidden'; input.name = name; input.value = value; form.append(input);
             }
             document.body.append(form); form.submit();",
            forged.as_array().unwrap().clone(),
        )
        .await
        .expect("the form is sent");
    assert_eq!(
        text(client, "div.refusal").await,
        "No such call is waiting for you: there is no pending approval like this one that you may decide; nothing ran"
    );
    screenshot(client, "4-refused.png").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        state(&org, &approvals, "call_denied").await,
        CallState::Waiting {
            requester_decides: false
        }
    );

    // Olivia's page shows both; meanwhile another owner decides one elsewhere.
    client
        .goto(&format!("{base}/login?as=olivia"))
        .await
        .expect("signed in");
    text(client, r#"section.pending[data-call-id="call_raced"] h2"#).await;
    approvals
        .decide_as(registry(), &raced, Decision::Approve, &p("ada"))
        .await
        .expect("ada decides first");
    click(
        client,
        r#"section.pending[data-call-id="call_raced"] button.approve"#,
    )
    .await;
    let told = text(client, "div.refusal").await;
    assert!(
        told.starts_with(
            "Already decided: another approver was first: ada decided it (approved) at "
        ),
        "{told}"
    );
    assert!(
        told.ends_with("; your decision was not recorded and nothing more ran"),
        "{told}"
    );
    screenshot(client, "5-already-decided.png").await;
    // Ada's approval stands: the runner creates that schedule, once; the loser's
    // click ran nothing more.
    assert!(
        matches!(
            ended(&org, &approvals, "call_raced").await,
            CallState::Ran(Some(_))
        ),
        "the first decision runs"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let prompts = |org: &Org| {
        org.schedules(SALES_AGENT)
            .into_iter()
            .map(|schedule| schedule.prompt)
            .collect::<Vec<_>>()
    };
    assert_eq!(prompts(&org), ["Send Ada the quote."]);

    // Deny with a reason: the agent reads it on its next wake.
    client
        .goto(&format!("{base}/approvals"))
        .await
        .expect("the inbox");
    let deny_form = r#"section.pending[data-call-id="call_denied"] form.deny"#;
    // Without a reason, the browser asks for one and sends nothing.
    click(client, &format!("{deny_form} button.deny")).await;
    assert_eq!(
        script(
            client,
            "return document.querySelector('section.pending[data-call-id=call_denied] input[name=reason]').validity.valueMissing"
        )
        .await,
        json!(true)
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        state(&org, &approvals, "call_denied").await,
        CallState::Waiting {
            requester_decides: false
        }
    );
    type_into(
        client,
        &format!("{deny_form} input[name=reason]"),
        "Ada asked us never to call on Sundays.",
    )
    .await;
    click(client, &format!("{deny_form} button.deny")).await;
    let notice = text(client, ".notice").await;
    assert!(notice.starts_with("Denied by olivia at "), "{notice}");
    assert!(
        notice.ends_with(
            " UTC: create_schedules (call call_denied, for agent:5a1e5000-0000-0000-0000-000000000001). Nothing ran; the model reads the reason."
        ),
        "{notice}"
    );
    let denial = "a human denied this call: Ada asked us never to call on Sundays.";
    assert_eq!(
        ended(&org, &approvals, "call_denied").await,
        CallState::NotRun {
            kind: "denied".to_owned(),
            message: denial.to_owned()
        }
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(prompts(&org), ["Send Ada the quote."], "nothing denied ran");
    // The agent's next wake (Ada's quote, due at noon) reads what came of both
    // calls it asked for.
    let wakings = wake_agents(&org, &approvals, "2026-11-24T12:00Z".parse().unwrap()).await;
    let [waking] = wakings.as_slice() else {
        panic!("one wake: {wakings:?}");
    };
    let news: Vec<String> = waking.messages();
    assert!(
        news[0].starts_with(
            "Your call `create_schedules` (call_raced) was approved and ran; it returned: "
        ),
        "{news:?}"
    );
    assert_eq!(
        news[1..],
        [
            format!("Your call `create_schedules` (call_denied) never ran (denied): {denial}"),
            "Send Ada the quote.".to_owned()
        ]
    );
    client
        .goto(&format!("{base}/approvals/decisions"))
        .await
        .expect("the audit list");
    let row = text(client, r#"tr[data-call-id="call_denied"]"#).await;
    assert!(row.contains("olivia denied create_schedules"), "{row}");
    assert!(
        row.ends_with("Ada asked us never to call on Sundays. nothing ran"),
        "{row}"
    );
    assert!(
        text(client, r#"tr[data-call-id="call_raced"]"#)
            .await
            .contains("ada approved")
    );
    screenshot(client, "6-audit.png").await;

    // And Max sees none of these decisions either.
    client
        .goto(&format!("{base}/login?as=max"))
        .await
        .expect("signed in");
    client
        .goto(&format!("{base}/approvals/decisions"))
        .await
        .expect("the audit list");
    assert_eq!(
        text(client, "main p.empty").await,
        "Nothing you may see was decided yet."
    );
}

/// What a model might write to break out of the page or deceive the approver.
const HOSTILE: &str = "<script>window.__pwned = 1</script>\" onmouseover=\"window.__pwned = 2\" x='<img src=x onerror=\"window.__pwned=3\">' javascript:window.__pwned=4 \u{202E}gpj.exe\u{202C} zero\u{200B}width\u{FEFF}";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_arguments_render_as_text() {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = browser().await else {
        return;
    };
    let client = &browser.client;
    // Room for a 1 MiB string and the JSON around it.
    registry().set_limits(Limits {
        max_argument_bytes: 4 * 1024 * 1024,
        ..Limits::DEFAULT
    });
    let org = Org::sample();
    let approvals = org_approvals();
    let base = serve(&org, &approvals).await;
    agent_asks(
        &org,
        &approvals,
        "call_hostile",
        &follow_up(HOSTILE, "2026-11-24T10:00Z"),
    )
    .await;
    let huge = "A".repeat(1024 * 1024);
    agent_asks(
        &org,
        &approvals,
        "call_huge",
        &follow_up(&huge, "2026-11-24T10:00Z"),
    )
    .await;

    client
        .goto(&format!("{base}/login?as=olivia"))
        .await
        .expect("signed in");
    let card = r#"section.pending[data-call-id="call_hostile"]"#;
    let shown = text(client, &format!(r#"{card} dd[data-key="prompt"] > .text"#)).await;
    // Every character is there as text; the hidden ones as their code points.
    assert_eq!(
        shown,
        HOSTILE
            .replace('\u{202E}', "U+202E")
            .replace('\u{202C}', "U+202C")
            .replace('\u{200B}', "U+200B")
            .replace('\u{FEFF}', "U+FEFF")
    );
    let marks = script(
        client,
        "return [...document.querySelectorAll('.invisible')].map(e => e.textContent)",
    )
    .await;
    assert_eq!(marks, json!(["U+202E", "U+202C", "U+200B", "U+FEFF"]));
    // Nothing became markup, nothing ran.
    assert_eq!(
        script(client, "return [document.querySelectorAll('script, img, iframe, [onmouseover], [onerror]').length, typeof window.__pwned, [...document.querySelectorAll('a')].filter(a => a.href.startsWith('javascript')).length]").await,
        json!([0, "undefined", 0])
    );
    // The 1 MiB string is cut on the list by the store's query, with how much
    // there is and how it begins.
    let cut = text(client, r#"section.pending[data-call-id="call_huge"] .cut"#).await;
    assert!(
        cut.starts_with(
            r#"The arguments are 1048674 bytes long, too long for the list; they begin {"schedules":[{"#
        ),
        "{cut}"
    );
    // The keys' order depends on serde_json's `preserve_order` (on in workspace
    // builds), so the text pins the object's start and its prompt, not the order.
    assert!(cut.contains(r#""prompt":"AAAA"#), "{cut}");
    assert!(cut.ends_with("A. Edit the call to see them all."), "{cut}");
    assert!(
        cut.chars().count() < 800,
        "{} characters",
        cut.chars().count()
    );
    script(
        client,
        "document.querySelector('section.pending[data-call-id=call_hostile]').scrollIntoView()",
    )
    .await;
    screenshot(client, "7-hostile.png").await;

    // The edit form holds the exact text, every character, to approve or change.
    click(client, &format!("{card} button.edit")).await;
    present(client, "#field-schedules").await;
    let value = script(
        client,
        "return document.querySelector('#field-schedules').value",
    )
    .await;
    let edited: Value =
        serde_json::from_str(value.as_str().expect("text")).expect("the field holds JSON");
    assert_eq!(edited[0]["prompt"], json!(HOSTILE));
    assert_eq!(
        script(client, "return [document.querySelectorAll('script, img, [onmouseover], [onerror]').length, typeof window.__pwned]").await,
        json!([0, "undefined"])
    );
    client
        .goto(&format!("{base}/approvals"))
        .await
        .expect("the inbox");
    click(
        client,
        r#"section.pending[data-call-id="call_huge"] button.edit"#,
    )
    .await;
    present(client, "#field-schedules").await;
    let length = script(
        client,
        "return JSON.parse(document.querySelector('#field-schedules').value)[0].prompt.length",
    )
    .await;
    assert_eq!(length, json!(1024 * 1024));

    // Approved unchanged, a value of every awkward kind runs exactly as asked.
    let awkward = "cr\rkept nul\0kept crlf\r\nkept \u{2028}\u{2800}\u{202E}";
    agent_asks(
        &org,
        &approvals,
        "call_awkward",
        &follow_up(awkward, "2026-11-24T10:00Z"),
    )
    .await;
    client
        .goto(&format!("{base}/approvals"))
        .await
        .expect("the inbox");
    click(
        client,
        r#"section.pending[data-call-id="call_awkward"] button.edit"#,
    )
    .await;
    click(client, "form.edit button.approve").await;
    let ran = ended(&org, &approvals, "call_awkward").await;
    let CallState::Ran(Some(result)) = &ran else {
        panic!("it ran: {ran:?}");
    };
    assert_eq!(result[0]["prompt"], json!(awkward), "{ran:?}");
    registry().set_limits(Limits::DEFAULT);
}
