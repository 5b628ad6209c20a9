//! An agent's schedules, escalations and memory, called as the tools' raw runners
//! (`Tool::call`, which skips the tier: approvals are shown in `approvals.rs`).
//! The one-shot fires once, the caps hold, and one agent never sees another's.

use example_agents::tools::agent::{
    create_escalations, create_memories, create_schedules, delete_schedules, get_schedules,
    search_memories,
};
use example_agents::{CallerThread, FRONT_DESK_AGENT, Org, SALES_AGENT, ThreadId};
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::{Context, Tool};

fn agent(org: &Org, thread: ThreadId) -> Context {
    Context::new().with(org.clone()).with(CallerThread(thread))
}

#[allow(clippy::needless_pass_by_value)] // `json!(..)` at every call site
fn call(tool: &Tool, ctx: &Context, arguments: Value) -> Value {
    block_on(tool.call(&arguments.to_string(), ctx)).to_json()
}

fn at(text: &str) -> example_agents::time::Timestamp {
    text.parse().unwrap()
}

#[test]
fn a_one_shot_fires_once_then_disables_itself_carrying_its_contact() {
    let org = Org::sample();
    let sales = agent(&org, SALES_AGENT);
    assert_eq!(
        call(
            create_schedules::definition(),
            &sales,
            json!({"schedules": [{
                "prompt": "Ask Ada whether the quote arrived.",
                "recurrence": {"kind": "once", "at": "2026-11-24T10:00Z"},
                "contact_id": 1
            }]})
        ),
        json!({"result": [{
            "id": 101,
            "prompt": "Ask Ada whether the quote arrived.",
            "recurrence": {"kind": "once", "at": "2026-11-24T10:00Z"},
            "contact_id": 1,
            "next_run": "2026-11-24T10:00Z",
            "fired": 0
        }]})
    );
    // Not yet due.
    assert_eq!(org.advance_to(at("2026-11-24T09:59Z")), []);
    let wakes = org.advance_to(at("2026-11-24T10:00Z"));
    assert_eq!(
        serde_json::to_value(&wakes).unwrap(),
        json!([{
            "thread": "5a1e5000-0000-0000-0000-000000000001",
            "schedule_id": 101,
            "due": "2026-11-24T10:00Z",
            "prompt": "Ask Ada whether the quote arrived.",
            "contact_id": 1
        }])
    );
    // Never again, however far the clock moves.
    assert_eq!(org.advance_to(at("2026-11-24T10:01Z")), []);
    assert_eq!(org.advance_to(at("2027-11-24T10:00Z")), []);
    assert_eq!(
        call(get_schedules::definition(), &sales, json!({})),
        json!({"result": [{
            "id": 101,
            "prompt": "Ask Ada whether the quote arrived.",
            "recurrence": {"kind": "once", "at": "2026-11-24T10:00Z"},
            "contact_id": 1,
            "fired": 1
        }]})
    );
}

#[test]
fn recurring_schedules_fire_once_per_due_time_and_collapse_missed_runs() {
    let org = Org::sample(); // Monday 2026-11-23T09:00Z
    let sales = agent(&org, SALES_AGENT);
    let created = call(
        create_schedules::definition(),
        &sales,
        json!({"schedules": [
            {"prompt": "Check the inbox.", "recurrence": {"kind": "hourly"}},
            {"prompt": "Plan the day.", "recurrence": {"kind": "weekdays", "time": "08:30"}},
            {"prompt": "Weekly report.", "recurrence": {"kind": "weekly", "day": "friday", "time": "16:00"}}
        ]}),
    );
    let next_runs: Vec<&Value> = created["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|schedule| &schedule["next_run"])
        .collect();
    assert_eq!(
        next_runs,
        [
            "2026-11-23T10:00Z",
            "2026-11-24T08:30Z",
            "2026-11-27T16:00Z"
        ]
    );
    let fired = |wakes: Vec<example_agents::Wake>| -> Vec<String> {
        wakes
            .into_iter()
            .map(|wake| format!("{} {}", wake.due, wake.prompt))
            .collect()
    };
    assert_eq!(
        fired(org.advance_to(at("2026-11-23T10:00Z"))),
        ["2026-11-23T10:00Z Check the inbox."]
    );
    // Saturday: the hourly one missed many runs and fires once; the weekday one
    // missed Tuesday to Friday and fires once; Friday's report fired.
    assert_eq!(
        fired(org.advance_to(at("2026-11-28T12:00Z"))),
        [
            "2026-11-23T11:00Z Check the inbox.",
            "2026-11-24T08:30Z Plan the day.",
            "2026-11-27T16:00Z Weekly report."
        ]
    );
    let schedules = call(get_schedules::definition(), &sales, json!({}));
    let next_runs: Vec<&Value> = schedules["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|schedule| &schedule["next_run"])
        .collect();
    assert_eq!(
        next_runs,
        [
            "2026-11-28T13:00Z",
            "2026-11-30T08:30Z",
            "2026-12-04T16:00Z"
        ]
    );
}

#[test]
fn at_most_three_schedules_may_be_pending_per_agent() {
    let org = Org::sample();
    let sales = agent(&org, SALES_AGENT);
    let hourly = |prompt: &str| json!({"prompt": prompt, "recurrence": {"kind": "hourly"}});
    let once =
        json!({"prompt": "Once.", "recurrence": {"kind": "once", "at": "2026-11-23T09:30Z"}});
    assert!(
        call(
            create_schedules::definition(),
            &sales,
            json!({"schedules": [hourly("One."), once]})
        )["result"]
            .is_array()
    );
    // Two more would make four: refused whole, nothing created.
    assert_eq!(
        call(
            create_schedules::definition(),
            &sales,
            json!({"schedules": [hourly("Two."), hourly("Three.")]})
        ),
        json!({"error": {"kind": "failed", "message": "2 schedules are pending and 2 more would pass the limit of 3; delete one first"}})
    );
    assert!(
        call(
            create_schedules::definition(),
            &sales,
            json!({"schedules": [hourly("Two.")]})
        )["result"]
            .is_array()
    );
    assert_eq!(
        call(
            create_schedules::definition(),
            &sales,
            json!({"schedules": [hourly("Four.")]})
        ),
        json!({"error": {"kind": "failed", "message": "3 schedules are pending and 1 more would pass the limit of 3; delete one first"}})
    );
    // The cap is per agent: another agent still has room.
    let front_desk = agent(&org, FRONT_DESK_AGENT);
    assert!(
        call(
            create_schedules::definition(),
            &front_desk,
            json!({"schedules": [hourly("Mine.")]})
        )["result"]
            .is_array()
    );
    // A fired one-shot no longer counts, and neither does a cancelled schedule.
    assert_eq!(org.advance_to(at("2026-11-23T09:30Z")).len(), 1);
    assert!(
        call(
            create_schedules::definition(),
            &sales,
            json!({"schedules": [hourly("Four.")]})
        )["result"]
            .is_array()
    );
    assert_eq!(
        call(
            delete_schedules::definition(),
            &sales,
            json!({"ids": [101]})
        ),
        json!({"result": [101]})
    );
    assert!(
        call(
            create_schedules::definition(),
            &sales,
            json!({"schedules": [hourly("Five.")]})
        )["result"]
            .is_array()
    );
    assert_eq!(org.schedules(SALES_AGENT).len(), 4);
}

#[test]
fn schedules_are_checked_before_anything_is_created() {
    let org = Org::sample();
    let sales = agent(&org, SALES_AGENT);
    assert_eq!(
        call(
            create_schedules::definition(),
            &sales,
            json!({"schedules": [{"prompt": "Late.", "recurrence": {"kind": "once", "at": "2026-11-23T08:00Z"}}]})
        ),
        json!({"error": {"kind": "failed", "message": "`schedules[0].recurrence.at` is not after now (2026-11-23T09:00Z)"}})
    );
    assert_eq!(
        call(
            create_schedules::definition(),
            &sales,
            json!({"schedules": [{"prompt": "Who?", "recurrence": {"kind": "hourly"}, "contact_id": 99}]})
        ),
        json!({"error": {"kind": "failed", "message": "no contact with id 99"}})
    );
    let bad_time = call(
        create_schedules::definition(),
        &sales,
        json!({"schedules": [{"prompt": "Up.", "recurrence": {"kind": "daily", "time": "7:30"}}]}),
    );
    // The schema's pattern refuses it before the typed parse, so the path reaches
    // the field itself rather than stopping at the internally tagged enum.
    assert_eq!(
        bad_time,
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{
                "path": "schedules[0].recurrence.time",
                "message": "must match the pattern `^([01][0-9]|2[0-3]):[0-5][0-9]$`, got the string \"7:30\""
            }],
            "message": "invalid arguments at `schedules[0].recurrence.time`: must match the pattern `^([01][0-9]|2[0-3]):[0-5][0-9]$`, got the string \"7:30\""
        }})
    );
    // A timestamp's schema describes what it accepts (to the minute, not RFC 3339
    // `date-time`), so a malformed one is refused by the same check.
    let bad_at = call(
        create_schedules::definition(),
        &sales,
        json!({"schedules": [{"prompt": "Up.", "recurrence": {"kind": "once", "at": "tomorrow 10:00"}}]}),
    );
    let pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?Z?$";
    let problem = format!("must match the pattern `{pattern}`, got the string \"tomorrow 10:00\"");
    assert_eq!(
        bad_at,
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{"path": "schedules[0].recurrence.at", "message": problem}],
            "message": format!("invalid arguments at `schedules[0].recurrence.at`: {problem}")
        }})
    );
    assert_eq!(org.schedules(SALES_AGENT), []);
}

#[test]
fn one_agent_cannot_see_or_cancel_another_agents_schedules() {
    let org = Org::sample();
    let sales = agent(&org, SALES_AGENT);
    let front_desk = agent(&org, FRONT_DESK_AGENT);
    call(
        create_schedules::definition(),
        &sales,
        json!({"schedules": [{"prompt": "Mine.", "recurrence": {"kind": "hourly"}}]}),
    );
    assert_eq!(
        call(get_schedules::definition(), &front_desk, json!({})),
        json!({"result": []})
    );
    assert_eq!(
        call(get_schedules::definition(), &front_desk, json!({"id": 101})),
        json!({"error": {"kind": "failed", "message": "no schedule with id 101"}})
    );
    assert_eq!(
        call(
            delete_schedules::definition(),
            &front_desk,
            json!({"ids": [101]})
        ),
        json!({"error": {"kind": "failed", "message": "no schedule with id 101"}})
    );
    assert_eq!(org.schedules(SALES_AGENT).len(), 1);
}

#[test]
fn at_most_five_escalations_may_be_open() {
    let org = Org::sample();
    let sales = agent(&org, SALES_AGENT);
    for n in 1..=5 {
        let response = call(
            create_escalations::definition(),
            &sales,
            json!({"reason": format!("Question {n}."), "contact_id": 1}),
        );
        assert_eq!(response["result"]["open"], true, "{response}");
    }
    assert_eq!(
        call(
            create_escalations::definition(),
            &sales,
            json!({"reason": "Question 6."})
        ),
        json!({"error": {"kind": "failed", "message": "5 escalations are already open, the most an agent may have; wait until an owner resolves one"}})
    );
    assert!(org.resolve_escalation(SALES_AGENT, 101));
    assert!(!org.resolve_escalation(SALES_AGENT, 101));
    assert_eq!(
        call(
            create_escalations::definition(),
            &sales,
            json!({"reason": "Question 6."})
        ),
        json!({"result": {"id": 106, "reason": "Question 6.", "open": true}})
    );
    assert_eq!(org.escalations(SALES_AGENT).len(), 6);
    assert_eq!(org.escalations(FRONT_DESK_AGENT), []);
}

#[test]
fn memories_belong_to_the_agent_that_made_them() {
    let org = Org::sample();
    let sales = agent(&org, SALES_AGENT);
    assert_eq!(
        call(
            create_memories::definition(),
            &sales,
            json!({"memories": ["Ada prefers email.", "Grace wants a demo on Tuesday."]})
        ),
        json!({"result": [
            {"id": 101, "text": "Ada prefers email."},
            {"id": 102, "text": "Grace wants a demo on Tuesday."}
        ]})
    );
    assert_eq!(
        call(
            search_memories::definition(),
            &sales,
            json!({"query": "ADA email"})
        ),
        json!({"result": [{"id": 101, "text": "Ada prefers email."}]})
    );
    let front_desk = agent(&org, FRONT_DESK_AGENT);
    assert_eq!(
        call(
            search_memories::definition(),
            &front_desk,
            json!({"query": ""})
        ),
        json!({"result": []})
    );
}

#[test]
fn an_agent_tool_without_a_caller_thread_is_refused_before_it_runs() {
    let org = Org::sample();
    let no_thread = Context::new().with(org.clone());
    let response = call(
        create_memories::definition(),
        &no_thread,
        json!({"memories": ["x"]}),
    );
    assert_eq!(response["error"]["kind"], "missing_context", "{response}");
    assert_eq!(org.memories(SALES_AGENT), []);
}
