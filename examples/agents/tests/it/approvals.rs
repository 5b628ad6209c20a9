//! The trust rule for schedules: an agent may schedule its own wake-ups (capped),
//! but one asked for by a contact waits for an owner. The pending approval is
//! stored, decided later, resumed once; a replayed or altered approval runs
//! nothing.

use std::time::{Duration, UNIX_EPOCH};

use example_agents::consumers::{Request, agent_view, approvals_in};
use example_agents::{
    CallerThread, ChannelKind, LiveMessage, Org, Principal, SALES_AGENT, Trigger,
};
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::approval::{
    Approval, ApprovalKey, Approvals, Decision, MemoryApprovalStore, PendingApproval,
};
use toolkit::{Context, Response, View, call::CallId, registry};

/// 2026-11-23T09:00Z, the sample org's clock, in Unix seconds.
const NOW: u64 = 1_795_424_400;

fn org_approvals() -> Approvals {
    approvals_in(
        ApprovalKey::new(*b"the example org's approval key!!").expect("32 bytes"),
        MemoryApprovalStore::new().clock(|| NOW),
    )
    .clock(|| UNIX_EPOCH + Duration::from_secs(NOW))
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
    agent_view(registry(), approvals, &sales, &request, live).unwrap()
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

/// The contact-triggered call, stored as its pending approval; returns the key.
fn request_follow_up(org: &Org, approvals: &Approvals) -> String {
    let principal = principal();
    let view = sales_view(org, approvals, &principal, true);
    let response = block_on(view.call_value("create_schedules", &follow_up(), &contact_turn(org)));
    let Response::Pending(pending) = response else {
        panic!("a contact-triggered schedule waits for an owner: {response:?}");
    };
    org.store_pending_approval(
        pending.call_id.clone(),
        serde_json::to_string(&pending).unwrap(),
    );
    pending.call_id
}

/// An owner reads the stored pending approval and decides.
fn owner_decides(org: &Org, approvals: &Approvals, key: &str, decision: Decision) -> Approval {
    let stored = org.take_pending_approval(key).expect("stored");
    let pending: PendingApproval = serde_json::from_str(&stored).unwrap();
    approvals.decide(registry(), &pending, decision).unwrap()
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
            "principal": "agent:5a1e5000-0000-0000-0000-000000000001",
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
    org.store_pending_approval("call_7", serde_json::to_string(&pending).unwrap());
    let approval = owner_decides(&org, &approvals, "call_7", Decision::Approve);
    assert_eq!(org.pending_approvals().len(), 0);

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
    // Replayed: refused, nothing more created.
    assert_eq!(
        block_on(worker_view.resume(&approval, &worker(&org))).to_json(),
        json!({"error": {
            "kind": "approval_rejected",
            "reason": "it was already used, and an approved call runs once",
            "message": "the approval was refused: it was already used, and an approved call runs once; nothing ran"
        }})
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
        &org,
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
    let approval = owner_decides(&org, &approvals, &key, Decision::Approve);

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
    let other = Principal::agent(example_agents::FRONT_DESK_AGENT, &[]);
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
            pending.principal.as_str(),
            &pending.arguments
        ),
        ("buy_phone_numbers", "member:1", &json!({"area_code": 20}))
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
