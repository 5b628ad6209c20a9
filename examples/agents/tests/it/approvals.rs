//! The trust rule for schedules: an agent may schedule its own wake-ups (capped),
//! but one asked for by a contact waits for an owner, never for the agent itself.
//! The pending approval is kept in the approval store and decided later; the
//! core's runner creates the schedule once while the agent is away, and the
//! agent's next wake reads what came of it. A replayed or altered approval runs
//! nothing.

use std::time::{Duration, UNIX_EPOCH};

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use example_agents::consumers::{Request, agent_view, approvals_in, approvals_on, quotas};
use example_agents::wake::{news, run_approved, run_as, wake_agents};
use example_agents::{
    AgentConfig, CallerThread, ChannelKind, FRONT_DESK_AGENT, LiveMessage, Org, Principal,
    SALES_AGENT, ThreadId, Trigger,
};
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::approval::{
    Approval, ApprovalKey, ApprovalStore, Approvals, CallState, Decision, DecisionQuery,
    MemoryApprovalStore, PendingApproval, PendingQuery, RunPass,
};
use toolkit::quota::MemoryQuotaStore;
use toolkit::{Context, Response, ToolError, View, call::CallId, registry};

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

/// 2026-11-23T09:00Z, the sample org's clock, in Unix seconds.
const NOW: u64 = 1_795_424_400;

fn org_approvals() -> Approvals {
    approvals_in(
        ApprovalKey::new(*b"the example org's approval key!!").expect("32 bytes"),
        MemoryApprovalStore::new().clock(|| NOW),
    )
    .clock(|| UNIX_EPOCH + Duration::from_secs(NOW))
}

/// The org's approval set-up twice over one store: two runners, as two servers
/// of the org (or two tasks of one) would have.
fn two_runners() -> (Arc<Approvals>, Arc<Approvals>) {
    let store: Arc<dyn ApprovalStore> = Arc::new(MemoryApprovalStore::new().clock(|| NOW));
    let key = || ApprovalKey::new(*b"the example org's approval key!!").expect("32 bytes");
    let pinned =
        |approvals: Approvals| Arc::new(approvals.clock(|| UNIX_EPOCH + Duration::from_secs(NOW)));
    (
        pinned(approvals_on(key(), store.clone())),
        pinned(approvals_on(key(), store)),
    )
}

fn principal() -> Principal {
    Principal::agent(
        SALES_AGENT,
        &["contacts.read", "messages.write", "sales.read"],
    )
}

fn sales_view<'r>(
    org: &Org,
    approvals: &'r Approvals,
    principal: &Principal,
    live: bool,
) -> View<'r> {
    let sales = org.agent(SALES_AGENT).unwrap();
    let request = Request {
        principal,
        flags: &[],
        page: None,
    };
    agent_view(
        registry(),
        approvals,
        crate::quotas(),
        &sales,
        &request,
        live,
    )
    .unwrap()
}

fn follow_up() -> Value {
    json!({"schedules": [{
        "prompt": "Call Ada back about the quote.",
        "recurrence": {"kind": "once", "at": "2026-11-24T10:00Z"},
        "contact_id": 1
    }]})
}

/// An agent's turn answering an SMS from Ada: triggered by a contact.
fn contact_turn(org: &Org) -> Context {
    Context::new()
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
        .with(CallId::new("call_7"))
}

/// The agent's worker resuming a decided approval later: the agent's own context.
fn worker(org: &Org) -> Context {
    Context::new()
        .with(org.clone())
        .with(CallerThread(SALES_AGENT))
}

/// The contact-triggered call, on the agent's turn: its pending approval, kept
/// in the approval store (and remembered on the agent's thread).
fn request_follow_up(org: &Org, approvals: &Approvals) -> String {
    let principal = principal();
    let view = sales_view(org, approvals, &principal, true);
    let response = block_on(example_agents::wake::call(
        &view,
        "create_schedules",
        &follow_up(),
        &contact_turn(org),
    ));
    let Response::Pending(pending) = response else {
        panic!("a contact-triggered schedule waits for an owner: {response:?}");
    };
    pending.call_id
}

/// An owner reads the pending approval the store keeps and decides.
fn owner_decides(approvals: &Approvals, call_id: &str, decision: Decision) -> Approval {
    let pending = stored(approvals, call_id);
    approvals.decide(registry(), &pending, decision).unwrap()
}

/// The pending approval of `call_id` that the store lists as waiting.
fn stored(approvals: &Approvals, call_id: &str) -> PendingApproval {
    block_on(approvals.pending(&PendingQuery::new().principal(principal().typed())))
        .unwrap()
        .into_iter()
        .find(|pending| pending.call_id == call_id)
        .expect("the store keeps it")
}

#[test]
fn a_contact_triggered_schedule_waits_for_an_owner_and_runs_once() {
    let org = Org::sample();
    let approvals = org_approvals();
    let principal = principal();
    let view = sales_view(&org, &approvals, &principal, true);
    let response = block_on(view.call_value("create_schedules", &follow_up(), &contact_turn(&org)));
    let mut json = response.to_json();
    let signature = json["pending_approval"]["signature"].take();
    assert_eq!(signature.as_str().map(str::len), Some(64));
    assert_eq!(
        json,
        json!({"pending_approval": {
            "call_id": "call_7",
            "principal": "local|agent:5a1e5000-0000-0000-0000-000000000001",
            "tool": "create_schedules",
            "arguments": follow_up(),
            "digest": json["pending_approval"]["digest"].clone(),
            "requested_at": NOW,
            "expires_at": NOW + 24 * 60 * 60,
            "signature": null
        }})
    );
    // Nothing was scheduled yet.
    assert_eq!(org.schedules(SALES_AGENT), []);

    let Response::Pending(pending) = response else {
        unreachable!()
    };
    assert_eq!(stored(&approvals, "call_7"), *pending);
    let approval = owner_decides(&approvals, "call_7", Decision::Approve);

    // The worker resumes it: the schedule is created, once.
    let worker_view = sales_view(&org, &approvals, &principal, false);
    assert_eq!(
        block_on(worker_view.resume(&approval, &worker(&org))).to_json(),
        json!({"result": [{
            "id": 101,
            "prompt": "Call Ada back about the quote.",
            "recurrence": {"kind": "once", "at": "2026-11-24T10:00Z"},
            "contact_id": 1,
            "next_run": "2026-11-24T10:00Z",
            "fired": 0
        }]})
    );
    // Replayed: told it ran, with what it created; nothing more is created.
    // (The result's JSON text follows serde_json's key order, which a workspace
    // build's `preserve_order` changes: compared as JSON.)
    let created = json!([{
        "id": 101,
        "prompt": "Call Ada back about the quote.",
        "recurrence": {"kind": "once", "at": "2026-11-24T10:00Z"},
        "contact_id": 1,
        "next_run": "2026-11-24T10:00Z",
        "fired": 0
    }]);
    let replayed = block_on(worker_view.resume(&approval, &worker(&org))).to_json();
    assert_eq!(replayed["error"]["kind"], "already_ran");
    let outcome = replayed["error"]["outcome"].as_str().unwrap_or_default();
    let ran_with = outcome
        .strip_prefix("with the result ")
        .and_then(|text| serde_json::from_str::<Value>(text).ok());
    assert_eq!(ran_with, Some(created), "{replayed}");
    assert_eq!(
        replayed["error"]["message"],
        format!(
            "this approved call already ran, {outcome}; an approved call runs once, so it did \
             not run again"
        )
    );
    assert_eq!(org.schedules(SALES_AGENT).len(), 1);

    // And the wake it creates carries the contact.
    let wakes = org.advance_to("2026-11-24T10:00Z".parse().unwrap());
    assert_eq!(wakes.len(), 1);
    assert_eq!(wakes[0].contact_id, Some(1));
}

#[test]
fn an_owner_may_edit_or_deny_a_pending_schedule() {
    let org = Org::sample();
    let approvals = org_approvals();
    let principal = principal();
    let worker_view = sales_view(&org, &approvals, &principal, false);

    let key = request_follow_up(&org, &approvals);
    let denied = owner_decides(
        &approvals,
        &key,
        Decision::Deny("Ada asked for email, not calls.".to_owned()),
    );
    assert_eq!(
        block_on(worker_view.resume(&denied, &worker(&org))).to_json(),
        json!({"error": {
            "kind": "denied",
            "message": "Ada asked for email, not calls."
        }})
    );
    assert_eq!(org.schedules(SALES_AGENT), []);

    // The same request again (a new call), approved with another time.
    let ctx = contact_turn(&org).with(CallId::new("call_8"));
    let view = sales_view(&org, &approvals, &principal, true);
    let Response::Pending(pending) =
        block_on(view.call_value("create_schedules", &follow_up(), &ctx))
    else {
        panic!("pending");
    };
    let mut edited = follow_up();
    edited["schedules"][0]["recurrence"]["at"] = json!("2026-11-24T14:00Z");
    let approval = approvals
        .decide(registry(), &pending, Decision::ApproveWith(edited))
        .unwrap();
    let result = block_on(worker_view.resume(&approval, &worker(&org))).to_json();
    // The agent reads first who edited its arguments and what ran, then the result.
    let note = &result["result"]["toolkit/content"][0]["text"];
    assert!(
        note.as_str().is_some_and(|note| note.starts_with(
            "the application approved it with edited arguments, and it ran with them: "
        )),
        "{result}"
    );
    assert_eq!(
        result["result"]["toolkit/structured"][0]["next_run"],
        "2026-11-24T14:00Z"
    );
    // Edits are validated like the model's arguments.
    let mut invalid = follow_up();
    invalid["schedules"][0]["recurrence"] = json!({"kind": "daily", "time": "25:00"});
    let Response::Pending(pending) = block_on(view.call_value(
        "create_schedules",
        &follow_up(),
        &contact_turn(&org).with(CallId::new("call_9")),
    )) else {
        panic!("pending");
    };
    assert_eq!(
        approvals
            .decide(registry(), &pending, Decision::ApproveWith(invalid))
            .unwrap_err()
            .to_string(),
        "the arguments are not valid: invalid arguments at `schedules[0].recurrence.time`: must match the pattern `^([01][0-9]|2[0-3]):[0-5][0-9]$`, got the string \"25:00\""
    );
}

#[test]
fn an_altered_or_misdirected_approval_runs_nothing() {
    let org = Org::sample();
    let approvals = org_approvals();
    let principal = principal();
    let worker_view = sales_view(&org, &approvals, &principal, false);
    let key = request_follow_up(&org, &approvals);
    let approval = owner_decides(&approvals, &key, Decision::Approve);

    let mut altered = approval.clone();
    altered.arguments["schedules"][0]["recurrence"] = json!({"kind": "hourly"});
    assert_eq!(
        block_on(worker_view.resume(&altered, &worker(&org))).to_json()["error"]["reason"],
        "the arguments do not match the approved digest"
    );
    let mut forged = approval.clone();
    forged.tool = "buy_phone_numbers".to_owned();
    assert_eq!(
        block_on(worker_view.resume(&forged, &worker(&org))).to_json()["error"]["reason"],
        "its signature does not match (forged or altered)"
    );
    // Another agent's view cannot spend it.
    let other = Principal::agent(FRONT_DESK_AGENT, &[]);
    let other_view = sales_view(&org, &approvals, &other, false);
    assert_eq!(
        block_on(other_view.resume(&approval, &worker(&org))).to_json()["error"]["reason"],
        "it was issued for another principal"
    );
    assert_eq!(org.schedules(SALES_AGENT), []);
    // The genuine one still works, once.
    assert!(block_on(worker_view.resume(&approval, &worker(&org))).is_success());
    assert_eq!(org.schedules(SALES_AGENT).len(), 1);
}

#[test]
fn an_agents_own_schedules_are_approved_inline_and_capped() {
    let org = Org::sample();
    let approvals = org_approvals();
    let principal = principal();
    let view = sales_view(&org, &approvals, &principal, false);
    let own = |n: u32| {
        let ctx = worker(&org)
            .with(Trigger::Schedule { schedule_id: 0 })
            .with(CallId::new(format!("own_{n}")));
        block_on(view.call_value(
            "create_schedules",
            &json!({"schedules": [{"prompt": format!("Check deals ({n})."), "recurrence": {"kind": "daily", "time": "08:00"}}]}),
            &ctx,
        ))
        .to_json()
    };
    for n in 1..=3 {
        assert_eq!(own(n)["result"][0]["next_run"], "2026-11-24T08:00Z");
    }
    assert_eq!(
        own(4),
        json!({"error": {"kind": "failed", "message": "3 schedules are pending and 1 more would pass the limit of 3; delete one first"}})
    );
    // Invalid arguments never reach a human or the policy.
    let ctx = worker(&org).with(Trigger::Schedule { schedule_id: 0 });
    let response =
        block_on(view.call_value("create_schedules", &json!({"schedules": "soon"}), &ctx));
    assert_eq!(response.to_json()["error"]["kind"], "invalid_arguments");
    assert_eq!(org.schedules(SALES_AGENT).len(), 3);
}

/// `create_schedules` declares six runs an hour per agent: the seventh run of the
/// sales agent's own schedules is refused with the wait and creates nothing (now,
/// or when the runner passes), while another agent over the same quotas is
/// counted apart.
#[test]
fn an_agent_over_its_schedule_quota_is_told_when_to_try_again_and_creates_nothing() {
    let org = Org::sample();
    let approvals = org_approvals();
    // A pinned clock, so that the wait is exact: one run every 10 minutes.
    let quotas = quotas(MemoryQuotaStore::new().clock(|| Duration::ZERO)).unwrap();
    let view_of = |agent: &AgentConfig, principal: &Principal| {
        let request = Request {
            principal,
            flags: &[],
            page: None,
        };
        agent_view(registry(), &approvals, &quotas, agent, &request, false).unwrap()
    };
    let turn = |thread: ThreadId, n: u32| {
        Context::new()
            .with(org.clone())
            .with(CallerThread(thread))
            .with(Trigger::Schedule { schedule_id: 0 })
            .with(CallId::new(format!("own_{n}")))
    };
    let schedule = |view: &View<'_>, thread: ThreadId, n: u32| {
        block_on(view.call_value(
            "create_schedules",
            &json!({"schedules": [{"prompt": format!("Check deals ({n})."), "recurrence": {"kind": "once", "at": "2026-11-24T08:00Z"}}]}),
            &turn(thread, n),
        ))
    };
    let sales = view_of(&org.agent(SALES_AGENT).unwrap(), &principal());
    for n in 1..=6 {
        let created = schedule(&sales, SALES_AGENT, n).to_json();
        let id = &created["result"][0]["id"];
        assert!(id.is_u64(), "run {n} creates its schedule: {created}");
        // Under the cap of three pending schedules, so that only the quota refuses.
        if n <= 4 {
            let deleted = block_on(sales.call_value(
                "delete_schedules",
                &json!({"ids": [id]}),
                &turn(SALES_AGENT, n),
            ));
            assert_eq!(deleted.to_json(), json!({"result": [id]}));
        }
    }
    assert_eq!(org.schedules(SALES_AGENT).len(), 2);

    let refused = schedule(&sales, SALES_AGENT, 7);
    let Response::Error(error) = &refused else {
        panic!("the seventh run is refused: {refused:?}");
    };
    assert!(
        matches!(
            error,
            ToolError::RateLimited { tool, limit, retry_after_ms: 600_000 }
                if tool == "create_schedules" && limit.to_string() == "6/h"
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "`create_schedules` may be called 6 times an hour by each caller; try again in 600 s"
    );
    assert_eq!(org.schedules(SALES_AGENT).len(), 2);
    // The approved call the quota refused is not run behind the agent's back
    // either: the runner counts it again, and it is refused again.
    block_on(run_approved(&org, &approvals, &quotas)).unwrap();
    assert_eq!(org.schedules(SALES_AGENT).len(), 2);

    // The front desk agent, once its owner allows it to schedule, has its own six.
    let mut front_desk = org.agent(FRONT_DESK_AGENT).unwrap();
    front_desk.allowlist.push("create_schedules".to_owned());
    let front_desk = view_of(&front_desk, &front_desk.principal());
    let created = schedule(&front_desk, FRONT_DESK_AGENT, 8).to_json();
    assert!(created["result"][0]["id"].is_u64(), "{created}");
    assert_eq!(org.schedules(FRONT_DESK_AGENT).len(), 1);
}

#[test]
fn powerful_tools_always_wait_for_a_human_even_for_an_owner() {
    let org = Org::sample();
    let approvals = org_approvals();
    let owner = Principal::owner(1);
    let request = Request {
        principal: &owner,
        flags: &[],
        page: None,
    };
    let view = example_agents::consumers::assistant_view(
        registry(),
        &approvals,
        example_agents::consumers::ASSISTANT_ALLOWLIST,
        &request,
    )
    .unwrap();
    let ctx = Context::new()
        .with(org.clone())
        .with(example_agents::Session { member_id: 1 })
        .with(CallId::new("call_1"));
    let response = block_on(view.call("buy_phone_number", r#"{"area_code": 20}"#, &ctx));
    let pending = response.pending().expect("pending");
    assert_eq!(
        (
            pending.tool.as_str(),
            pending.principal.key(),
            &pending.arguments
        ),
        (
            "buy_phone_numbers",
            "local|member:1",
            &json!({"area_code": 20})
        )
    );
    // Arguments the tool can't take are refused before any human sees them.
    let response = block_on(view.call("buy_phone_numbers", r#"{"area_code": "twenty"}"#, &ctx));
    assert_eq!(
        response.to_json()["error"]["kind"],
        "invalid_arguments",
        "{response:?}"
    );
    // The registry itself never runs an `approve` tool.
    let response = block_on(registry().call("buy_phone_numbers", r#"{"area_code": 20}"#, &ctx));
    assert_eq!(response.to_json()["error"]["kind"], "approval_required");
}

#[test]
fn the_agent_may_not_approve_its_own_contact_triggered_schedule() {
    let org = Org::sample();
    let approvals = org_approvals();
    let call_id = request_follow_up(&org, &approvals);
    let pending = stored(&approvals, &call_id);
    // An agent framework that accepts every question it is asked answers "yes".
    assert_eq!(
        block_on(approvals.answer_as_requester(registry(), &pending, Decision::Approve))
            .unwrap_err()
            .to_string(),
        "the requester may not decide it: `create_schedules` is approved by someone other than the requester; the call waits for them"
    );
    // Nor may it decide as a person named like itself.
    let agent = principal().typed();
    assert_eq!(
        block_on(approvals.decide_as(registry(), &pending, Decision::Approve, &agent))
            .unwrap_err()
            .to_string(),
        format!(
            "{agent} may not decide it: `create_schedules` is approved by someone other than the requester; the call waits for them"
        )
    );
    // Nothing was recorded as the decision; both refusals are in the audit.
    assert_eq!(
        block_on(approvals.decisions(&DecisionQuery::new())).unwrap(),
        []
    );
    let refusals = block_on(approvals.refusals(&DecisionQuery::new())).unwrap();
    let mut refused: Vec<(&str, &str)> = refusals
        .iter()
        .map(|refusal| (refusal.decided_by.name(), refusal.call_id.as_str()))
        .collect();
    refused.sort_unstable();
    assert_eq!(
        refused,
        [(agent.key(), "call_7"), ("the requester", "call_7")]
    );
    // The runner has nothing to run; the call waits for someone else.
    assert_eq!(
        block_on(run_approved(&org, &approvals, crate::quotas())).unwrap(),
        RunPass::default()
    );
    assert_eq!(
        block_on(approvals.status(&agent, "call_7"))
            .unwrap()
            .unwrap()
            .state,
        CallState::Waiting {
            requester_decides: false
        }
    );
    assert_eq!(org.schedules(SALES_AGENT), []);
    // A wake now reads nothing of it, and the agent still waits on it.
    assert_eq!(block_on(news(&org, &approvals, SALES_AGENT)), []);
    assert_eq!(org.awaiting(SALES_AGENT), ["call_7"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_approved_schedule_is_created_once_by_the_runner_and_read_on_the_next_wake() {
    let org = Org::sample();
    let (approvals, other_server) = two_runners();
    let call_id = request_follow_up(&org, &approvals);
    let pending = stored(&approvals, &call_id);
    approvals
        .decide_as(registry(), &pending, Decision::Approve, &p("olivia"))
        .await
        .expect("an owner decides");
    // Decided, and nothing ran: the agent's turn is over, and nobody resumes it.
    assert_eq!(org.schedules(SALES_AGENT), []);
    let agent = principal().typed();
    assert_eq!(
        approvals
            .status(&agent, "call_7")
            .await
            .unwrap()
            .unwrap()
            .state,
        CallState::Approved
    );
    // An early wake reads nothing yet: the call is approved, not over.
    assert_eq!(news(&org, &approvals, SALES_AGENT).await, []);

    // Two runners at once (two servers' background tasks): the schedule is created
    // once.
    let runner = |approvals: Arc<Approvals>| {
        let org = org.clone();
        tokio::spawn(async move { run_approved(&org, &approvals, crate::quotas()).await })
    };
    let (first, second) = (runner(approvals.clone()), runner(other_server.clone()));
    let (first, second) = (
        first.await.unwrap().unwrap(),
        second.await.unwrap().unwrap(),
    );
    // The other one found it held, or ran, or (settled already) not at all.
    assert_eq!(
        (
            first.ran + second.ran,
            first.failed + second.failed + first.refused + second.refused
        ),
        (1, 0),
        "{first:?} {second:?}"
    );
    let created = json!([{
        "id": 101,
        "prompt": "Call Ada back about the quote.",
        "recurrence": {"kind": "once", "at": "2026-11-24T10:00Z"},
        "contact_id": 1,
        "next_run": "2026-11-24T10:00Z",
        "fired": 0
    }]);
    assert_eq!(
        serde_json::to_value(org.schedules(SALES_AGENT)).unwrap(),
        created
    );
    // Driven again, on either server: nothing more runs.
    for approvals in [&approvals, &other_server] {
        assert_eq!(
            run_approved(&org, approvals, crate::quotas())
                .await
                .unwrap(),
            RunPass::default()
        );
    }
    assert_eq!(org.schedules(SALES_AGENT).len(), 1);

    // The agent's next wake (the schedule it asked for, firing) reads first what
    // came of its call, from the approval store.
    let wakings = wake_agents(&org, &approvals, "2026-11-24T10:00Z".parse().unwrap()).await;
    assert_eq!(
        serde_json::to_value(&wakings).unwrap(),
        json!([{
            "thread": "5a1e5000-0000-0000-0000-000000000001",
            "schedule_id": 101,
            "due": "2026-11-24T10:00Z",
            "prompt": "Call Ada back about the quote.",
            "contact_id": 1,
            "news": [{
                "call_id": "call_7",
                "tool": "create_schedules",
                "status": "ran",
                "result": created
            }]
        }])
    );
    assert_eq!(
        wakings[0].messages(),
        [
            format!(
                "Your call `create_schedules` (call_7) was approved and ran; it returned: {created}"
            ),
            "Call Ada back about the quote.".to_owned()
        ]
    );
    // Read once: the agent no longer waits on it.
    assert_eq!(org.awaiting(SALES_AGENT), Vec::<String>::new());
    assert_eq!(news(&org, &approvals, SALES_AGENT).await, []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_runners_that_reach_one_approved_call_at_once_create_it_once() {
    let org = Org::sample();
    let (approvals, other_server) = two_runners();
    let call_id = request_follow_up(&org, &approvals);
    approvals
        .decide_as(
            registry(),
            &stored(&approvals, &call_id),
            Decision::Approve,
            &p("olivia"),
        )
        .await
        .expect("an owner decides");
    // Each runner, having listed the call and found it unrun, waits in the
    // example's `run_as` hook for the other (5 s at most): both then try to run it.
    let arrived = Arc::new(AtomicUsize::new(0));
    let runner = |approvals: Arc<Approvals>| {
        let (org, arrived) = (org.clone(), arrived.clone());
        tokio::spawn(async move {
            approvals
                .run_decided(Duration::ZERO, |pending| {
                    arrived.fetch_add(1, Ordering::SeqCst);
                    let started = Instant::now();
                    while arrived.load(Ordering::SeqCst) < 2
                        && started.elapsed() < Duration::from_secs(5)
                    {
                        std::thread::yield_now();
                    }
                    run_as(&org, &approvals, crate::quotas(), pending)
                })
                .await
        })
    };
    let (first, second) = (runner(approvals.clone()), runner(other_server));
    let (first, second) = (
        first.await.unwrap().unwrap(),
        second.await.unwrap().unwrap(),
    );
    assert_eq!(arrived.load(Ordering::SeqCst), 2, "{first:?} {second:?}");
    // One runner counts it as ran; the other, refused at the claim, as skipped.
    assert_eq!(
        (first.ran + second.ran, first.skipped + second.skipped),
        (1, 1),
        "{first:?} {second:?}"
    );
    // One schedule, made by the first attempt.
    assert_eq!(
        org.schedules(SALES_AGENT)
            .iter()
            .map(|schedule| schedule.prompt.as_str())
            .collect::<Vec<_>>(),
        ["Call Ada back about the quote."],
        "{first:?} {second:?}"
    );
    let run = approvals
        .outcome(&principal().typed(), "call_7")
        .await
        .unwrap()
        .expect("it ran");
    assert_eq!((run.attempt, run.done), (1, true), "{first:?} {second:?}");
}

#[test]
fn a_denied_schedule_is_read_as_denied_on_the_next_wake_and_nothing_is_created() {
    let org = Org::sample();
    let approvals = org_approvals();
    let principal = principal();
    // The agent's own daily check, which it decided by itself: approved inline.
    let view = sales_view(&org, &approvals, &principal, false);
    let own = block_on(view.call_value(
        "create_schedules",
        &json!({"schedules": [{"prompt": "Check open deals.", "recurrence": {"kind": "daily", "time": "08:00"}}]}),
        &worker(&org)
            .with(Trigger::Schedule { schedule_id: 0 })
            .with(CallId::new("own_1")),
    ));
    assert_eq!(own.to_json()["result"][0]["id"], 101);

    let call_id = request_follow_up(&org, &approvals);
    let pending = stored(&approvals, &call_id);
    block_on(approvals.decide_as(
        registry(),
        &pending,
        Decision::Deny("Ada asked for email, not calls.".to_owned()),
        &p("olivia"),
    ))
    .expect("an owner decides");
    // The runner runs nothing denied.
    assert_eq!(
        block_on(run_approved(&org, &approvals, crate::quotas())).unwrap(),
        RunPass::default()
    );

    // The agent's next wake (its own daily check) reads the denial first.
    let wakings = block_on(wake_agents(
        &org,
        &approvals,
        "2026-11-24T08:00Z".parse().unwrap(),
    ));
    assert_eq!(
        serde_json::to_value(&wakings).unwrap(),
        json!([{
            "thread": "5a1e5000-0000-0000-0000-000000000001",
            "schedule_id": 101,
            "due": "2026-11-24T08:00Z",
            "prompt": "Check open deals.",
            "contact_id": null,
            "news": [{
                "call_id": "call_7",
                "tool": "create_schedules",
                "status": "not_run",
                "kind": "denied",
                "message": "a human denied this call: Ada asked for email, not calls."
            }]
        }])
    );
    assert_eq!(
        wakings[0].messages(),
        [
            "Your call `create_schedules` (call_7) never ran (denied): a human denied this call: Ada asked for email, not calls.",
            "Check open deals."
        ]
    );
    // Nothing was created but the agent's own schedule, and the denial is read once.
    assert_eq!(
        org.schedules(SALES_AGENT)
            .iter()
            .map(|schedule| schedule.id)
            .collect::<Vec<_>>(),
        [101]
    );
    let next = block_on(wake_agents(
        &org,
        &approvals,
        "2026-11-25T08:00Z".parse().unwrap(),
    ));
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].news, []);
}

#[test]
fn a_call_nobody_decided_in_time_is_read_as_expired_on_the_next_wake() {
    let org = Org::sample();
    // The store's clock, moved by the test.
    let clock = Arc::new(std::sync::atomic::AtomicU64::new(NOW));
    let store_clock = clock.clone();
    let approvals = approvals_in(
        ApprovalKey::new(*b"the example org's approval key!!").expect("32 bytes"),
        MemoryApprovalStore::new().clock(move || store_clock.load(Ordering::SeqCst)),
    );
    let principal = principal();
    // The agent's own daily check, and a contact's call-back nobody decides.
    let view = sales_view(&org, &approvals, &principal, false);
    let own = block_on(view.call_value(
        "create_schedules",
        &json!({"schedules": [{"prompt": "Check open deals.", "recurrence": {"kind": "daily", "time": "08:00"}}]}),
        &worker(&org)
            .with(Trigger::Schedule { schedule_id: 0 })
            .with(CallId::new("own_1")),
    ));
    assert!(own.is_success(), "{own:?}");
    request_follow_up(&org, &approvals);

    // A day and a second later, nobody has decided: the agent's next wake reads
    // that it expired, and the runner never runs it.
    let expired_at = NOW + 24 * 60 * 60;
    clock.store(expired_at + 1, Ordering::SeqCst);
    assert_eq!(
        block_on(run_approved(&org, &approvals, crate::quotas())).unwrap(),
        RunPass::default()
    );
    let wakings = block_on(wake_agents(
        &org,
        &approvals,
        "2026-11-24T08:00Z".parse().unwrap(),
    ));
    assert_eq!(
        serde_json::to_value(&wakings[0].news).unwrap(),
        json!([{
            "call_id": "call_7",
            "tool": "create_schedules",
            "status": "not_run",
            "kind": "expired",
            "message": format!("the approval was refused: it expired at {expired_at} (Unix seconds); nothing ran")
        }])
    );
    assert_eq!(org.schedules(SALES_AGENT).len(), 1);
    assert_eq!(org.awaiting(SALES_AGENT), Vec::<String>::new());
}
