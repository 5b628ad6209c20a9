//! The assistant's tools called as a model calls them: through
//! `toolkit::registry().call(...)` with JSON arguments, checked against the exact
//! JSON the model reads back.

use example_assistant::AssistantState;
use example_assistant::prompt::Channel;
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::{Context, Response, ToolError, registry};

/// A fresh assistant in a context, as one conversation sees it.
fn conversation() -> Context {
    Context::new().with(AssistantState::new())
}

/// Calls `name` with `arguments` and returns what the model reads. A `confirm`
/// tool is called as the model calls it after the user agreed (`confirmed: true`):
/// these tests are about what the tools do; the preview step has its own tests.
/// `Registry::call` never runs an `approve` tool (`delete_memories`) without an
/// approval; these behaviour tests run it with the raw `Tool::call`.
fn call(ctx: &Context, name: &str, mut arguments: Value) -> Value {
    let tier = registry().get(name).map(|tool| tool.tier);
    if let (Some(toolkit::Tier::Confirm), Some(members)) = (tier, arguments.as_object_mut()) {
        members.entry("confirmed").or_insert(Value::Bool(true));
    }
    match registry().get(name) {
        Some(tool) if tool.tier == toolkit::Tier::Approve => {
            block_on(tool.call(&arguments.to_string(), ctx)).to_json()
        }
        _ => block_on(registry().call_value(name, &arguments, ctx)).to_json(),
    }
}

/// Calls `name` with raw argument text, as a provider hands it over.
fn call_text(ctx: &Context, name: &str, arguments: &str) -> Value {
    block_on(registry().call(name, arguments, ctx)).to_json()
}

fn failed(message: &str) -> Value {
    json!({"error": {"kind": "failed", "message": message}})
}

#[test]
fn tasks_are_created_read_updated_and_soft_deleted() {
    let ctx = conversation();
    assert_eq!(
        call(
            &ctx,
            "create_tasks",
            json!({"tasks": [
                {"title": "Book the dentist", "due": "2025-01-10"},
                {"title": "Send the invoice", "priority": "high", "notes": "January"},
                {"title": "Water the plants"}
            ]})
        ),
        json!({"result": [
            {"id": 1, "title": "Book the dentist", "due": "2025-01-10", "priority": "normal", "done": false},
            {"id": 2, "title": "Send the invoice", "notes": "January", "priority": "high", "done": false},
            {"id": 3, "title": "Water the plants", "priority": "normal", "done": false}
        ]})
    );

    // Only the fields given change.
    assert_eq!(
        call(
            &ctx,
            "update_tasks",
            json!({"tasks": [{"id": 1, "done": true}, {"id": 2, "priority": "urgent", "due": "2025-01-07"}]})
        ),
        json!({"result": [
            {"id": 1, "title": "Book the dentist", "due": "2025-01-10", "priority": "normal", "done": true},
            {"id": 2, "title": "Send the invoice", "notes": "January", "due": "2025-01-07", "priority": "urgent", "done": false}
        ]})
    );

    // Open tasks, newest first; done ones only when asked.
    assert_eq!(
        call(&ctx, "get_tasks", json!({})),
        json!({"result": [
            {"id": 3, "title": "Water the plants", "priority": "normal", "done": false},
            {"id": 2, "title": "Send the invoice", "notes": "January", "due": "2025-01-07", "priority": "urgent", "done": false}
        ]})
    );
    assert_eq!(
        call(&ctx, "get_tasks", json!({"include_done": true, "limit": 2})),
        json!({"result": [
            {"id": 3, "title": "Water the plants", "priority": "normal", "done": false},
            {"id": 2, "title": "Send the invoice", "notes": "January", "due": "2025-01-07", "priority": "urgent", "done": false}
        ]})
    );
    assert_eq!(
        call(&ctx, "get_tasks", json!({"id": 1})),
        json!({"result": [
            {"id": 1, "title": "Book the dentist", "due": "2025-01-10", "priority": "normal", "done": true}
        ]})
    );

    assert_eq!(
        call(&ctx, "delete_tasks", json!({"ids": [2, 2]})),
        json!({"result": {"deleted": [2]}})
    );
    // Gone for the model: not listed, not found, not updatable, not deletable again.
    assert_eq!(
        call(&ctx, "get_tasks", json!({"include_done": true})),
        json!({"result": [
            {"id": 3, "title": "Water the plants", "priority": "normal", "done": false},
            {"id": 1, "title": "Book the dentist", "due": "2025-01-10", "priority": "normal", "done": true}
        ]})
    );
    assert_eq!(
        call(&ctx, "get_tasks", json!({"id": 2})),
        failed("no task with id 2")
    );
    assert_eq!(
        call(
            &ctx,
            "update_tasks",
            json!({"tasks": [{"id": 2, "done": true}]})
        ),
        failed("no task with id 2; no task was updated")
    );
    assert_eq!(
        call(&ctx, "delete_tasks", json!({"ids": [3, 2]})),
        failed("no task with id 2; no task was deleted")
    );
    // The refused delete changed nothing, and ids are never reused.
    assert_eq!(
        call(
            &ctx,
            "create_tasks",
            json!({"tasks": [{"title": "Call Ada"}]})
        ),
        json!({"result": [{"id": 4, "title": "Call Ada", "priority": "normal", "done": false}]})
    );
    assert_eq!(
        call(&ctx, "get_tasks", json!({"limit": 5})),
        json!({"result": [
            {"id": 4, "title": "Call Ada", "priority": "normal", "done": false},
            {"id": 3, "title": "Water the plants", "priority": "normal", "done": false}
        ]})
    );
}

#[test]
fn list_calls_are_all_or_nothing() {
    let ctx = conversation();
    call(&ctx, "create_tasks", json!({"tasks": [{"title": "One"}]}));
    assert_eq!(
        call(
            &ctx,
            "update_tasks",
            json!({"tasks": [{"id": 1, "title": "Changed"}, {"id": 9, "done": true}]})
        ),
        failed("no task with id 9; no task was updated")
    );
    assert_eq!(
        call(
            &ctx,
            "create_tasks",
            json!({"tasks": [{"title": "Fine"}, {"title": "  "}]})
        ),
        failed("`tasks[1].title` is empty")
    );
    assert_eq!(
        call(&ctx, "create_tasks", json!({"tasks": []})),
        failed("`tasks` is empty; pass at least one item")
    );
    assert_eq!(
        call(&ctx, "delete_tasks", json!({"ids": []})),
        failed("`ids` is empty; pass at least one item")
    );
    assert_eq!(
        call(&ctx, "get_tasks", json!({})),
        json!({"result": [{"id": 1, "title": "One", "priority": "normal", "done": false}]})
    );
}

#[test]
fn retired_names_call_the_new_tools() {
    let ctx = conversation();
    assert_eq!(
        call(
            &ctx,
            "create_task",
            json!({"tasks": [{"title": "Plan the trip"}]})
        ),
        json!({"result": [{"id": 1, "title": "Plan the trip", "priority": "normal", "done": false}]})
    );
    let expected = json!({"result": [{"id": 1, "title": "Plan the trip", "priority": "normal", "done": false}]});
    assert_eq!(call(&ctx, "get_task", json!({"id": 1})), expected);
    assert_eq!(call(&ctx, "fetch_tasks", json!({})), expected);
    assert_eq!(
        call(
            &ctx,
            "store_memory",
            json!({"memories": [{"content": "Likes window seats"}]})
        ),
        json!({"result": [{"id": 1, "content": "Likes window seats", "tags": [], "entities": [], "links": []}]})
    );
    assert_eq!(
        call(&ctx, "recall", json!({"query": "window"})),
        json!({"result": [{"id": 1, "content": "Likes window seats", "tags": [], "entities": [], "links": []}]})
    );
    assert_eq!(
        call(&ctx, "delete_task", json!({"ids": [1]})),
        json!({"result": {"deleted": [1]}})
    );
}

#[test]
fn memories_are_created_searched_updated_and_soft_deleted() {
    let ctx = conversation();
    assert_eq!(
        call(
            &ctx,
            "create_memories",
            json!({"memories": [
                {
                    "content": "Ada prefers meetings after 10am",
                    "tags": ["preferences"],
                    "entities": [{"name": "Ada Lovelace", "kind": "person"}]
                },
                {
                    "content": "Ada and Grace review the compiler together",
                    "entities": [{"name": "ada lovelace"}, {"name": "Grace Hopper", "kind": "person"}]
                }
            ]})
        ),
        json!({"result": [
            {"id": 1, "content": "Ada prefers meetings after 10am", "tags": ["preferences"], "entities": ["Ada Lovelace"], "links": []},
            {"id": 2, "content": "Ada and Grace review the compiler together", "tags": [], "entities": ["Ada Lovelace", "Grace Hopper"], "links": []}
        ]})
    );

    // Every word must match, in content, tags or entity names; newest first.
    assert_eq!(
        call(&ctx, "search_memories", json!({"query": "ADA"})),
        json!({"result": [
            {"id": 2, "content": "Ada and Grace review the compiler together", "tags": [], "entities": ["Ada Lovelace", "Grace Hopper"], "links": []},
            {"id": 1, "content": "Ada prefers meetings after 10am", "tags": ["preferences"], "entities": ["Ada Lovelace"], "links": []}
        ]})
    );
    assert_eq!(
        call(
            &ctx,
            "search_memories",
            json!({"query": "preferences lovelace"})
        ),
        json!({"result": [
            {"id": 1, "content": "Ada prefers meetings after 10am", "tags": ["preferences"], "entities": ["Ada Lovelace"], "links": []}
        ]})
    );

    assert_eq!(
        call(
            &ctx,
            "update_memories",
            json!({"memories": [{"id": 1, "content": "Ada prefers meetings after 11am"}]})
        ),
        json!({"result": [
            {"id": 1, "content": "Ada prefers meetings after 11am", "tags": ["preferences"], "entities": ["Ada Lovelace"], "links": []}
        ]})
    );

    assert_eq!(
        call(&ctx, "delete_memories", json!({"ids": [1]})),
        json!({"result": {"deleted": [1]}})
    );
    assert_eq!(
        call(&ctx, "search_memories", json!({"query": "meetings"})),
        json!({"result": []})
    );
    assert_eq!(
        call(&ctx, "get_memories", json!({"id": 1})),
        failed("no memory with id 1")
    );
    assert_eq!(
        call(&ctx, "get_memories", json!({})),
        json!({"result": [
            {"id": 2, "content": "Ada and Grace review the compiler together", "tags": [], "entities": ["Ada Lovelace", "Grace Hopper"], "links": []}
        ]})
    );
    assert_eq!(
        call(
            &ctx,
            "update_memories",
            json!({"memories": [{"id": 1, "tags": []}]})
        ),
        failed("no memory with id 1; no memory was updated")
    );

    // Entities list only the memories still there.
    assert_eq!(
        call(&ctx, "get_entities", json!({})),
        json!({"result": [
            {"id": 1, "name": "Ada Lovelace", "kind": "person", "memories": [2]},
            {"id": 2, "name": "Grace Hopper", "kind": "person", "memories": [2]}
        ]})
    );
    assert_eq!(
        call(
            &ctx,
            "search_entities",
            json!({"query": "hop", "kind": "person"})
        ),
        json!({"result": [{"id": 2, "name": "Grace Hopper", "kind": "person", "memories": [2]}]})
    );
    assert_eq!(
        call(&ctx, "list_entities", json!({"kind": "place"})),
        json!({"result": []})
    );
}

#[test]
fn link_memories_relates_two_memories() {
    let ctx = conversation();
    call(
        &ctx,
        "create_memories",
        json!({"memories": [
            {"content": "The flight leaves at 9"},
            {"content": "The airline moved the flight to 11"},
            {"content": "Taxi booked for 7"}
        ]}),
    );
    assert_eq!(
        call(
            &ctx,
            "link_memories",
            json!({"from": 2, "to": 1, "relation": "updates"})
        ),
        json!({"result": {"from": 2, "to": 1, "relation": "updates"}})
    );
    assert_eq!(
        call(&ctx, "link_memories", json!({"from": 3, "to": 1})),
        json!({"result": {"from": 3, "to": 1, "relation": "related"}})
    );
    assert_eq!(
        call(&ctx, "get_memories", json!({"id": 2})),
        json!({"result": [
            {"id": 2, "content": "The airline moved the flight to 11", "tags": [], "entities": [], "links": [{"to": 1, "relation": "updates"}]}
        ]})
    );
    // Linking the same pair again changes the relation.
    call(
        &ctx,
        "link_memories",
        json!({"from": 2, "to": 1, "relation": "contradicts"}),
    );
    assert_eq!(
        call(&ctx, "get_memories", json!({"id": 2}))["result"][0]["links"],
        json!([{"to": 1, "relation": "contradicts"}])
    );
    assert_eq!(
        call(&ctx, "link_memories", json!({"from": 2, "to": 2})),
        failed("a memory cannot be linked to itself (from and to are both 2)")
    );
    assert_eq!(
        call(&ctx, "link_memories", json!({"from": 2, "to": 7})),
        failed("no memory with id 7")
    );
    // A link to a deleted memory disappears with it.
    call(&ctx, "delete_memories", json!({"ids": [1]}));
    assert_eq!(
        call(&ctx, "get_memories", json!({"id": 2}))["result"][0]["links"],
        json!([])
    );
    assert_eq!(
        call(&ctx, "link_memories", json!({"from": 3, "to": 1})),
        failed("no memory with id 1")
    );
    assert_eq!(
        call(
            &ctx,
            "link_memories",
            json!({"from": 3, "to": 1, "relation": "causes"})
        ),
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{"path": "relation", "message": "expected one of `related`, `supports`, `contradicts`, `updates`, got the string \"causes\""}],
            "message": "invalid arguments at `relation`: expected one of `related`, `supports`, `contradicts`, `updates`, got the string \"causes\""
        }})
    );
}

#[test]
fn search_gmail_finds_summaries_and_get_gmail_reads_one() {
    let ctx = conversation();
    assert_eq!(
        call(&ctx, "search_gmail", json!({"query": "from:ada"})),
        json!({"result": [
            {
                "id": "msg-4",
                "from": "Ada Lovelace <ada@example.com>",
                "subject": "Lunch on Friday?",
                "date": "2025-01-06T07:55:00Z",
                "snippet": "Are you free for lunch on Friday at noon?"
            },
            {
                "id": "msg-1",
                "from": "Ada Lovelace <ada@example.com>",
                "subject": "Engine notes for Thursday",
                "date": "2025-01-03T16:20:00Z",
                "snippet": "Here are my notes on the analytical engine. Can we go throug…"
            }
        ]})
    );
    assert_eq!(
        call(
            &ctx,
            "search_gmail",
            json!({"query": "subject:invoice 42.00"})
        ),
        json!({"result": [{
            "id": "msg-2",
            "from": "Billing <billing@example.net>",
            "subject": "Your January invoice",
            "date": "2025-01-04T08:00:00Z",
            "snippet": "Invoice 2025-01 is ready: 42.00 EUR, due on 2025-01-31."
        }]})
    );
    assert_eq!(
        call(
            &ctx,
            "gmail_search",
            json!({"query": "from:ada subject:invoice"})
        ),
        json!({"result": []})
    );
    assert_eq!(
        call(&ctx, "get_gmail", json!({"id": "msg-3"})),
        json!({"result": [{
            "id": "msg-3",
            "from": "Grace Hopper <grace@example.com>",
            "subject": "Re: compiler review",
            "date": "2025-01-05T11:45:00Z",
            "body": "The review is done. Two small fixes, then it can ship."
        }]})
    );
    assert_eq!(
        call(&ctx, "gmail_get_message", json!({"id": "msg-9"})),
        failed("no message with id `msg-9`")
    );
    let latest = call(&ctx, "get_gmail", json!({"limit": 2}));
    assert_eq!(latest["result"][0]["id"], "msg-4");
    assert_eq!(latest["result"][1]["id"], "msg-3");
    assert_eq!(latest["result"].as_array().map(Vec::len), Some(2));
}

#[test]
fn set_project_files_new_memories_and_focuses_search() {
    let ctx = conversation();
    call(
        &ctx,
        "create_memories",
        json!({"memories": [{"content": "Garden: tomatoes need sun"}]}),
    );
    assert_eq!(
        call(&ctx, "set_project", json!({"name": " Kitchen "})),
        json!({"result": {"project": "Kitchen", "previous": null}})
    );
    assert_eq!(
        call(
            &ctx,
            "create_memories",
            json!({"memories": [{"content": "Kitchen: tiles in grey"}]})
        ),
        json!({"result": [
            {"id": 2, "content": "Kitchen: tiles in grey", "tags": [], "project": "Kitchen", "entities": [], "links": []}
        ]})
    );
    assert_eq!(
        call(&ctx, "set_project", json!({"name": "Garden"})),
        json!({"result": {"project": "Garden", "previous": "Kitchen"}})
    );
    call(
        &ctx,
        "create_memories",
        json!({"memories": [{"content": "Garden: tiles for the path"}]}),
    );
    // The active project's memories and unfiled ones; others only when asked.
    let ids = |response: Value| -> Vec<u64> {
        response["result"]
            .as_array()
            .expect("a list of memories")
            .iter()
            .map(|memory| memory["id"].as_u64().expect("an id"))
            .collect()
    };
    assert_eq!(
        ids(call(&ctx, "search_memories", json!({"query": ""}))),
        [3, 1]
    );
    assert_eq!(
        ids(call(&ctx, "search_memories", json!({"query": "tiles"}))),
        [3]
    );
    assert_eq!(
        ids(call(
            &ctx,
            "search_memories",
            json!({"query": "tiles", "all_projects": true})
        )),
        [3, 2]
    );
    assert_eq!(
        call(&ctx, "get_context", json!({})),
        json!({"result": {
            "now": "2025-01-06T09:00:00Z",
            "project": "Garden",
            "open_tasks": 0,
            "reminders": 0,
            "schedules": 0,
            "memories": 3
        }})
    );
    assert_eq!(
        call(&ctx, "set_project", json!({})),
        json!({"result": {"project": null, "previous": "Garden"}})
    );
    assert_eq!(
        call(&ctx, "set_project", json!({"name": ""})),
        failed("`name` is empty; leave it out to clear the project")
    );
}

#[test]
fn update_instructions_replaces_or_appends() {
    let state = AssistantState::new();
    let ctx = Context::new().with(state.clone());
    assert_eq!(
        call(
            &ctx,
            "update_instructions",
            json!({"instructions": "Answer in English."})
        ),
        json!({"result": {"instructions": "Answer in English."}})
    );
    assert_eq!(
        call(
            &ctx,
            "update_instructions",
            json!({"instructions": "Never book before 9am. ", "mode": "append"})
        ),
        json!({"result": {"instructions": "Answer in English.\nNever book before 9am."}})
    );
    assert_eq!(
        state.instructions(),
        "Answer in English.\nNever book before 9am."
    );
    assert_eq!(
        call(
            &ctx,
            "update_instructions",
            json!({"instructions": "Be brief.", "mode": "replace"})
        ),
        json!({"result": {"instructions": "Be brief."}})
    );
    assert_eq!(
        call(
            &ctx,
            "update_instructions",
            json!({"instructions": "x", "mode": "merge"})
        ),
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{"path": "mode", "message": "expected one of `replace`, `append`, got the string \"merge\""}],
            "message": "invalid arguments at `mode`: expected one of `replace`, `append`, got the string \"merge\""
        }})
    );
}

#[test]
fn reminders_come_soonest_first_and_check_their_task() {
    let ctx = conversation();
    call(
        &ctx,
        "create_tasks",
        json!({"tasks": [{"title": "Pay the invoice"}]}),
    );
    assert_eq!(
        call(
            &ctx,
            "create_reminders",
            json!({"reminders": [
                {"text": "Pay the invoice", "at": "2025-01-30T09:00:00+01:00", "task_id": 1},
                {"text": "Lunch with Ada", "at": "2025-01-10T11:45:00+01:00"}
            ]})
        ),
        json!({"result": [
            {"id": 1, "text": "Pay the invoice", "at": "2025-01-30T09:00:00+01:00", "task_id": 1},
            {"id": 2, "text": "Lunch with Ada", "at": "2025-01-10T11:45:00+01:00"}
        ]})
    );
    assert_eq!(
        call(&ctx, "list_reminders", json!({})),
        json!({"result": [
            {"id": 2, "text": "Lunch with Ada", "at": "2025-01-10T11:45:00+01:00"},
            {"id": 1, "text": "Pay the invoice", "at": "2025-01-30T09:00:00+01:00", "task_id": 1}
        ]})
    );
    assert_eq!(
        call(
            &ctx,
            "create_reminder",
            json!({"reminders": [{"text": "Ghost", "at": "2025-01-09T09:00:00Z", "task_id": 5}]})
        ),
        failed("`reminders[0].task_id`: no task with id 5; no reminder was created")
    );
    assert_eq!(
        call(&ctx, "delete_reminders", json!({"ids": [2]})),
        json!({"result": {"deleted": [2]}})
    );
    assert_eq!(
        call(&ctx, "get_reminders", json!({})),
        json!({"result": [
            {"id": 1, "text": "Pay the invoice", "at": "2025-01-30T09:00:00+01:00", "task_id": 1}
        ]})
    );
}

#[test]
fn schedules_take_a_tagged_recurrence() {
    let ctx = conversation();
    assert_eq!(
        call(
            &ctx,
            "create_schedules",
            json!({"schedules": [
                {"prompt": "Summarise new email", "recurrence": {"kind": "weekdays", "time": "08:30"}},
                {"prompt": "Review the week", "recurrence": {"kind": "weekly", "day": "friday", "time": "16:00"}},
                {"prompt": "Check the invoice was paid", "recurrence": {"kind": "once", "at": "2025-02-01T09:00:00Z"}}
            ]})
        ),
        json!({"result": [
            {"id": 1, "prompt": "Summarise new email", "recurrence": {"kind": "weekdays", "time": "08:30"}},
            {"id": 2, "prompt": "Review the week", "recurrence": {"kind": "weekly", "day": "friday", "time": "16:00"}},
            {"id": 3, "prompt": "Check the invoice was paid", "recurrence": {"kind": "once", "at": "2025-02-01T09:00:00Z"}}
        ]})
    );
    assert_eq!(
        call(
            &ctx,
            "create_schedules",
            json!({"schedules": [{"prompt": "Stretch", "recurrence": {"kind": "daily", "time": "7:00"}}]})
        ),
        failed("`schedules[0].recurrence.time`: `7:00` is not a time of day; use HH:MM, 24-hour")
    );
    // An hourly recurrence has no time; only its tag is allowed there.
    let extra = call(
        &ctx,
        "create_schedule",
        json!({"schedules": [{"prompt": "Stretch", "recurrence": {"kind": "hourly", "time": "07:00"}}]}),
    );
    assert_eq!(extra["error"]["kind"], "unknown_field");
    assert_eq!(extra["error"]["field"], "time");
    assert_eq!(extra["error"]["path"], "schedules[0].recurrence.time");
    assert_eq!(extra["error"]["expected"], json!(["kind"]));
    assert_eq!(
        call(&ctx, "get_schedules", json!({}))["result"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    assert_eq!(
        call(&ctx, "delete_schedule", json!({"ids": [1, 3]})),
        json!({"result": {"deleted": [1, 3]}})
    );
    assert_eq!(
        call(&ctx, "list_schedules", json!({})),
        json!({"result": [
            {"id": 2, "prompt": "Review the week", "recurrence": {"kind": "weekly", "day": "friday", "time": "16:00"}}
        ]})
    );
}

#[test]
fn invalid_arguments_name_the_exact_path() {
    let ctx = conversation();
    assert_eq!(
        call(
            &ctx,
            "create_tasks",
            json!({"tasks": [{"title": "Fine"}, {"due": "2025-01-10"}]})
        ),
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{"path": "tasks[1].title", "message": "missing required field"}],
            "message": "invalid arguments at `tasks[1].title`: missing required field"
        }})
    );
    assert_eq!(
        call(&ctx, "create_tasks", json!({"tasks": [{"title": 42}]})),
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{"path": "tasks[0].title", "message": "expected a string, got 42"}],
            "message": "invalid arguments at `tasks[0].title`: expected a string, got 42"
        }})
    );
    // A number where an enum's name belongs.
    assert_eq!(
        call(
            &ctx,
            "create_tasks",
            json!({"tasks": [{"title": "a", "priority": 3}]})
        ),
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{"path": "tasks[0].priority", "message": "expected one of `low`, `normal`, `high`, `urgent`, got 3"}],
            "message": "invalid arguments at `tasks[0].priority`: expected one of `low`, `normal`, `high`, `urgent`, got 3"
        }})
    );
    assert_eq!(
        call(&ctx, "get_tasks", json!({"limit": -1})),
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{"path": "limit", "message": "must be at least 0, got -1"}],
            "message": "invalid arguments at `limit`: must be at least 0, got -1"
        }})
    );
    assert_eq!(
        call(&ctx, "create_tasks", json!({})),
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{"path": "tasks", "message": "missing required field"}],
            "message": "invalid arguments at `tasks`: missing required field"
        }})
    );
    // Nothing was created by the refused calls.
    assert_eq!(call(&ctx, "get_tasks", json!({})), json!({"result": []}));
}

#[test]
fn unknown_fields_are_reported_with_the_allowed_ones() {
    let ctx = conversation();
    assert_eq!(
        call(
            &ctx,
            "create_tasks",
            json!({"tasks": [{"title": "a", "dew": "2025-01-10"}]})
        ),
        json!({"error": {
            "kind": "unknown_field",
            "path": "tasks[0].dew",
            "field": "dew",
            "expected": ["due", "notes", "priority", "title"],
            "message": "unknown field `tasks[0].dew`; expected one of `due`, `notes`, `priority`, `title`"
        }})
    );
    // The deletion flag is not an input either.
    assert_eq!(
        call(
            &ctx,
            "update_tasks",
            json!({"tasks": [{"id": 1, "is_deleted": false}]})
        ),
        json!({"error": {
            "kind": "unknown_field",
            "path": "tasks[0].is_deleted",
            "field": "is_deleted",
            "expected": ["done", "due", "id", "notes", "priority", "title"],
            "message": "unknown field `tasks[0].is_deleted`; expected one of `done`, `due`, `id`, `notes`, `priority`, `title`"
        }})
    );
    assert_eq!(
        call(&ctx, "get_context", json!({"verbose": true})),
        json!({"error": {
            "kind": "unknown_field",
            "path": "verbose",
            "field": "verbose",
            "expected": [],
            "message": "unknown field `verbose`; this tool takes no arguments"
        }})
    );
}

#[test]
fn malformed_json_and_unknown_tools_are_answers_not_crashes() {
    let ctx = conversation();
    assert_eq!(
        call_text(&ctx, "get_tasks", r#"{"limit": 5"#),
        json!({"error": {
            "kind": "malformed_json",
            "message": "EOF while parsing an object",
            "line": 1,
            "column": 11
        }})
    );
    // Providers send "" for a call without arguments.
    assert_eq!(call_text(&ctx, "get_tasks", ""), json!({"result": []}));
    assert_eq!(
        call(&ctx, "get_remindrs", json!({})),
        json!({"error": {
            "kind": "unknown_tool",
            "name": "get_remindrs",
            "suggestion": "get_reminders",
            "message": "unknown tool `get_remindrs`; did you mean `get_reminders`?"
        }})
    );
    assert_eq!(
        call(&ctx, "email_digest", json!({})),
        json!({"error": {
            "kind": "unknown_tool",
            "name": "email_digest",
            "message": "unknown tool `email_digest`"
        }})
    );
}

#[test]
fn a_call_without_the_state_in_its_context_is_an_error() {
    let empty = Context::new();
    let missing = ToolError::MissingContext {
        type_name: "example_assistant::state::AssistantState".to_owned(),
    };
    for (name, arguments) in [
        ("get_tasks", "{}"),
        ("delete_tasks", r#"{"ids": [1]}"#),
        ("get_context", ""),
    ] {
        assert_eq!(
            block_on(registry().call(name, arguments, &empty)),
            Response::Error(missing.clone()),
            "{name}"
        );
    }
    // Arguments are checked before the context.
    assert_eq!(
        block_on(registry().call("delete_tasks", "{}", &empty)),
        Response::Error(ToolError::invalid_arguments(
            "ids",
            "missing required field"
        ))
    );
}

#[test]
fn get_context_reports_the_channel_when_the_caller_gives_one() {
    let state = AssistantState::new().with_now("2025-03-01T12:00:00Z");
    let ctx = Context::new().with(state).with(Channel::Telegram);
    call(
        &ctx,
        "create_tasks",
        json!({"tasks": [{"title": "a"}, {"title": "b"}]}),
    );
    call(
        &ctx,
        "update_tasks",
        json!({"tasks": [{"id": 1, "done": true}]}),
    );
    assert_eq!(
        call(&ctx, "get_context_info", json!({})),
        json!({"result": {
            "now": "2025-03-01T12:00:00Z",
            "channel": "telegram",
            "open_tasks": 1,
            "reminders": 0,
            "schedules": 0,
            "memories": 0
        }})
    );
}

#[test]
fn clones_of_the_state_share_one_store() {
    let state = AssistantState::new();
    let first = Context::new().with(state.clone());
    let second = Context::new().with(state);
    call(
        &first,
        "create_tasks",
        json!({"tasks": [{"title": "Shared"}]}),
    );
    assert_eq!(
        call(&second, "get_tasks", json!({})),
        json!({"result": [{"id": 1, "title": "Shared", "priority": "normal", "done": false}]})
    );
    assert_eq!(
        call(&conversation(), "get_tasks", json!({})),
        json!({"result": []})
    );
}

/// The lenient renderings leave out `additionalProperties: false` and a lone
/// `minimum: 0` (guide, `schemas`); dispatch checks the
/// canonical schema, so it refuses exactly what it refused with them.
#[test]
fn what_lenient_renderings_leave_out_dispatch_still_refuses() {
    let tool = registry().get("create_reminders").expect("registered");
    let text = tool
        .render_json(toolkit::Dialect::OpenAiChat)
        .expect("renders");
    assert!(!text.contains("additionalProperties"), "{text}");
    assert!(!text.contains("minimum"), "{text}");
    let canonical = tool.schema().to_string();
    assert!(canonical.contains(r#""minimum":0"#), "{canonical}");
    assert!(
        canonical.contains(r#""additionalProperties":false"#),
        "{canonical}"
    );
    let ctx = conversation();
    assert_eq!(
        call(
            &ctx,
            "create_reminders",
            json!({"reminders": [{"text": "a", "at": "2025-01-06T17:30:00+01:00", "task_id": -1}]})
        ),
        json!({"error": {
            "kind": "invalid_arguments",
            "problems": [{"path": "reminders[0].task_id", "message": "must be at least 0, got -1"}],
            "message": "invalid arguments at `reminders[0].task_id`: must be at least 0, got -1"
        }})
    );
    assert_eq!(
        call(
            &ctx,
            "create_reminders",
            json!({"reminders": [{"text": "a", "at": "2025-01-06T17:30:00+01:00", "repeat": true}]})
        ),
        json!({"error": {
            "kind": "unknown_field",
            "path": "reminders[0].repeat",
            "field": "repeat",
            "expected": ["at", "task_id", "text"],
            "message": "unknown field `reminders[0].repeat`; expected one of `at`, `task_id`, `text`"
        }})
    );
    assert_eq!(
        call(
            &ctx,
            "create_reminders",
            json!({"reminders": [], "later": 1})
        ),
        json!({"error": {
            "kind": "unknown_field",
            "path": "later",
            "field": "later",
            "expected": ["reminders"],
            "message": "unknown field `later`; expected one of `reminders`"
        }})
    );
    // Nothing was created.
    assert_eq!(
        call(&ctx, "get_reminders", json!({})),
        json!({"result": []})
    );
}
