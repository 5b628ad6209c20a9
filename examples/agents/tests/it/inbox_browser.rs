//! The approval inbox in a real browser: Debian's Chromium, headless, driven over
//! `WebDriver` (chromium-driver) with fantoccini. `scripts/browser.sh` installs both
//! when missing; under `CI=true` these tests never skip. Screenshots go to
//! `target/inbox-screenshots/`.
//!
//! The story is USE-CASES B's trust rule: the sales agent, answering a text from a
//! contact, asks to schedule a call-back; an owner decides in the inbox; the agent's
//! worker resumes the call in the background, once.

use std::net::TcpListener as StdListener;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use example_agents::consumers::{Request, agent_view, approvals};
use example_agents::inbox::{Outcomes, agent_principal, app};
use example_agents::{CallerThread, ChannelKind, LiveMessage, Org, SALES_AGENT, Trigger};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use toolkit::approval::{ApprovalKey, Approvals, Decision, PendingApproval};
use toolkit::{
    Context, Response,
    call::{CallId, Limits},
    registry,
};

/// One browser at a time: the machine is small, and Chromium is not.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where Chromium and its `WebDriver` are, from `scripts/browser.sh` (which installs
/// them when it can); `None`, with one message, on a machine that has neither and
/// can't install them, unless `CI=true`.
fn browser_paths() -> Option<(String, String)> {
    let output = Command::new("bash")
        .arg(root().join("scripts/browser.sh"))
        .output()
        .expect("bash runs scripts/browser.sh");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() == Some(3) {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true: the browser tests must run, but {}",
            stderr.trim()
        );
        println!("skipped: {}", stderr.trim());
        return None;
    }
    assert!(
        output.status.success(),
        "scripts/browser.sh failed: {stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let value = |key: &str| {
        stdout
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{key}=")))
            .map_or_else(
                || panic!("scripts/browser.sh printed no {key}: {stdout}"),
                str::to_owned,
            )
    };
    Some((value("chromium"), value("chromedriver")))
}

fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free loopback port")
}

/// A headless Chromium session, ended when dropped, on success and on panic alike.
struct Browser {
    client: Client,
    driver: Driver,
    profile: PathBuf,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Chromium is chromedriver's child, not a part of it: killing the driver alone
        // orphans the whole browser (about thirty processes, re-parented to init). The
        // session is ended over WebDriver first (`DELETE /session/{id}`, which quits
        // the browser), while the driver still answers; then whatever is left in the
        // driver's process group is stopped.
        let client = self.client.clone();
        let ended = tokio::runtime::Handle::try_current().map(|runtime| {
            // The session's task runs on the test's runtime; block_in_place lets this
            // thread wait for it, even while a panic unwinds.
            tokio::task::block_in_place(|| {
                runtime.block_on(tokio::time::timeout(
                    Duration::from_secs(20),
                    client.close(),
                ))
            })
        });
        if !matches!(ended, Ok(Ok(Ok(())))) {
            eprintln!(
                "the WebDriver session did not end ({ended:?}): stopping the browser's process group"
            );
        }
        self.driver.stop();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// chromedriver, in a process group of its own that Chromium's processes join
/// (Chromium's crash handlers leave it, and end with the browser they watch).
/// Stopping it kills the whole group, so a session that could not be ended leaves
/// nothing running either; so does dropping it (a session that never started).
struct Driver {
    process: Child,
    stopped: bool,
}

impl Driver {
    fn start(chromedriver: &str, port: u16) -> Driver {
        let process = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("chromedriver starts");
        Driver {
            process,
            stopped: false,
        }
    }

    fn stop(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let group = libc::pid_t::try_from(self.process.id()).expect("a pid fits pid_t");
        // SAFETY: kill(2) takes no pointers. A negative pid names the process group
        // chromedriver leads (`process_group(0)`); chromedriver is not reaped yet, so
        // the group id cannot have been given to anyone else.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
        let _ = self.process.wait();
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn browser() -> Option<Browser> {
    let (chromium, chromedriver) = browser_paths()?;
    let port = free_port();
    let driver = Driver::start(&chromedriver, port);
    let profile = std::env::temp_dir().join(format!("inbox-browser-{}-{port}", std::process::id()));
    let capabilities = json!({
        "goog:chromeOptions": {
            "binary": chromium,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1100,900", "--lang=en-US",
                format!("--user-data-dir={}", profile.display()),
            ]
        }
    });
    let Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    let started = Instant::now();
    let client = loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(capabilities.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
        {
            Ok(client) => break client,
            Err(error) if started.elapsed() < Duration::from_secs(20) => {
                let _ = error;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(error) => panic!("chromedriver did not start a session: {error}"),
        }
    };
    Some(Browser {
        client,
        driver,
        profile,
    })
}

async fn screenshot(client: &Client, name: &str) {
    let png = client.screenshot().await.expect("a screenshot");
    let directory = root().join("target/inbox-screenshots");
    std::fs::create_dir_all(&directory).expect("the screenshot directory");
    std::fs::write(directory.join(format!("{name}.png")), png).expect("the screenshot is saved");
}

/// The app on a loopback port: its base URL.
async fn serve(org: &Org, approvals: &Arc<Approvals>, outcomes: &Outcomes) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("its address");
    let router = app(org.clone(), approvals.clone(), outcomes.clone());
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}")
}

fn org_approvals() -> Arc<Approvals> {
    Arc::new(approvals(
        ApprovalKey::new(*b"the example org's approval key!!").expect("32 bytes"),
    ))
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
    let principal = agent_principal();
    let sales = org.agent(SALES_AGENT).expect("the sales agent");
    let request = Request {
        principal: &principal,
        flags: &[],
        page: None,
    };
    let view =
        agent_view(registry(), approvals, &sales, &request, true).expect("the agent's live view");
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
    match view.call_value("create_schedules", arguments, &ctx).await {
        Response::Pending(pending) => *pending,
        other => panic!("a contact-triggered schedule waits for an owner: {other:?}"),
    }
}

/// Waits until the worker resumed `call_id` (the hook spawns it).
async fn outcome(outcomes: &Outcomes, call_id: &str) -> Vec<Value> {
    let started = Instant::now();
    while outcomes.of(call_id).is_empty() && started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    outcomes.of(call_id)
}

async fn text(client: &Client, css: &str) -> String {
    client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|error| panic!("no `{css}` on the page: {error}"))
        .text()
        .await
        .expect("its text")
}

async fn click(client: &Client, css: &str) {
    client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|error| panic!("no `{css}` on the page: {error}"))
        .click()
        .await
        .unwrap_or_else(|error| panic!("`{css}` can't be clicked: {error}"));
}

async fn type_into(client: &Client, css: &str, text: &str) {
    let element = client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|error| panic!("no `{css}` on the page: {error}"));
    element.clear().await.expect("cleared");
    element.send_keys(text).await.expect("typed");
}

/// Waits until the page (the next one, after a click) has `css`.
async fn present(client: &Client, css: &str) {
    client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|error| panic!("no `{css}` on the page: {error}"));
}

async fn script(client: &Client, source: &str) -> Value {
    client
        .execute(source, Vec::new())
        .await
        .expect("the script runs")
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
    let outcomes = Outcomes::default();
    let base = serve(&org, &approvals, &outcomes).await;
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
    screenshot(client, "1-waiting").await;

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
    screenshot(client, "2-invalid-edit").await;
    assert_eq!(org.schedules(SALES_AGENT), []);
    assert!(outcomes.of("call_follow_up").is_empty());

    // Fixed: approved, and the agent's worker creates the schedule, once.
    type_into(client, "#field-schedules", &edited("2026-11-24T11:30Z")).await;
    click(client, "form.edit button.approve").await;
    // The notice names the call and says what the store records of it (the
    // worker resumes it in the background: waiting, or already run).
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
    let resumed = outcome(&outcomes, "call_follow_up").await;
    let created = json!([{
        "id": 101,
        "prompt": "Call Ada back about the quote.",
        "recurrence": {"kind": "once", "at": "2026-11-24T11:30Z"},
        "contact_id": 1,
        "next_run": "2026-11-24T11:30Z",
        "fired": 0
    }]);
    // The agent reads who edited its arguments and what ran, then the result.
    let [resumed] = resumed.as_slice() else {
        panic!("one outcome: {resumed:?}");
    };
    let content = &resumed["result"]["toolkit/content"];
    assert_eq!(
        content[0],
        json!({"type": "text", "text": "olivia approved it with edited arguments, and it ran with \
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
    assert_eq!(resumed["result"]["toolkit/structured"], created);
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
    screenshot(client, "3-decided").await;
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
    // Nothing ran a second time.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(outcomes.of("call_follow_up").len(), 1);
    assert_eq!(org.schedules(SALES_AGENT).len(), 1);
    // The agent's next wake reads what came of the call it asked for, from the
    // approval store: it ran once, and created the schedule the owner edited.
    let run = approvals
        .outcome(&agent_principal().id, "call_follow_up")
        .await
        .expect("the store answers")
        .expect("the call ran");
    assert_eq!((run.attempt, run.done), (1, true));
    let Some(toolkit::approval::RunOutcome::Ran {
        result: Some(result),
        ..
    }) = &run.outcome
    else {
        panic!("it ran: {run:?}");
    };
    // The run's own result, without the note the model reads before it.
    assert_eq!(result[0]["next_run"], "2026-11-24T11:30Z", "{result}");
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
    let outcomes = Outcomes::default();
    let base = serve(&org, &approvals, &outcomes).await;
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
        serde_json::to_string(&[&denied.principal, &denied.call_id]).unwrap()
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
    screenshot(client, "4-refused").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(outcomes.of("call_denied").is_empty());

    // Olivia's page shows both; meanwhile another owner decides one elsewhere.
    client
        .goto(&format!("{base}/login?as=olivia"))
        .await
        .expect("signed in");
    text(client, r#"section.pending[data-call-id="call_raced"] h2"#).await;
    approvals
        .decide_as(registry(), &raced, Decision::Approve, "ada")
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
    screenshot(client, "5-already-decided").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        outcomes.of("call_raced").is_empty(),
        "the loser's click resumed nothing"
    );

    // Deny with a reason: the agent's worker reads it.
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
    assert!(outcomes.of("call_denied").is_empty());
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
    assert_eq!(
        outcome(&outcomes, "call_denied").await,
        [json!({"error": {"kind": "denied", "message": "Ada asked us never to call on Sundays."}})]
    );
    assert_eq!(org.schedules(SALES_AGENT), []);
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
    screenshot(client, "6-audit").await;

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
    let outcomes = Outcomes::default();
    let base = serve(&org, &approvals, &outcomes).await;
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
    // The 1 MiB string is cut on the list, with how much there is.
    let cut = text(client, r#"section.pending[data-call-id="call_huge"] .cut"#).await;
    // `white-space: pre-wrap` keeps the space before the note.
    assert_eq!(
        cut,
        " … and 1047976 more characters (1048576 in all); edit the call to see every one"
    );
    script(
        client,
        "document.querySelector('section.pending[data-call-id=call_hostile]').scrollIntoView()",
    )
    .await;
    screenshot(client, "7-hostile").await;

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
    let ran = outcome(&outcomes, "call_awkward").await;
    assert_eq!(ran[0]["result"][0]["prompt"], json!(awkward), "{ran:?}");
    registry().set_limits(Limits::DEFAULT);
}
