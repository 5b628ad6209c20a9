//! What each delete cascades to. Deletes are soft (the row stays, flagged), and a
//! deleted record is never visible through another tool:
//!
//! | delete | what else changes |
//! |---|---|
//! | `delete_tasks` | reminders about the task stay (deleting a reminder is a `confirm` call of its own, and a reminder deleted by mistake fails silently) but no longer show its `task_id`; new reminders can't name it |
//! | `delete_reminders` | nothing: no other record refers to a reminder |
//! | `delete_schedules` | nothing: no other record refers to a schedule |
//! | `delete_memories` | links to and from it vanish from every memory; entities no longer list it; an entity that no live memory mentions vanishes from `get_entities` and `search_entities` (mentioning the name again brings the same entity back); `link_memories` refuses it |
//!
//! Nothing is removed from the stores, so an operator could undo a delete and
//! every relation would come back.

use example_assistant::AssistantState;
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::{Context, Tier, registry};

fn conversation() -> Context {
    Context::new().with(AssistantState::new())
}

/// Calls `name` as the model does once the user agreed: a `confirm` tool gets
/// `confirmed: true` (the preview step has its own tests), and an `approve` tool
/// (`delete_memories`), which `Registry::call` never runs without an approval,
/// is run through the registered tool, which parses and validates but applies
/// no tier. These tests are about what the deletes cascade to.
fn call(ctx: &Context, name: &str, mut arguments: Value) -> Value {
    let tool = registry().get(name);
    if let (Some(Tier::Confirm), Some(members)) =
        (tool.map(|tool| tool.tier), arguments.as_object_mut())
    {
        members.entry("confirmed").or_insert(Value::Bool(true));
    }
    match tool {
        Some(tool) if tool.tier == Tier::Approve => {
            block_on(tool.call(&arguments.to_string(), ctx)).to_json()
        }
        _ => block_on(registry().call_value(name, &arguments, ctx)).to_json(),
    }
}

fn failed(message: &str) -> Value {
    json!({"error": {"kind": "failed", "message": message}})
}

#[test]
fn deleting_a_task_keeps_its_reminders_but_they_stop_naming_it() {
    let ctx = conversation();
    call(
        &ctx,
        "create_tasks",
        json!({"tasks": [{"title": "One"}, {"title": "Two"}, {"title": "Call the plumber"}]}),
    );
    call(
        &ctx,
        "create_reminders",
        json!({"reminders": [
            {"text": "Plumber!", "at": "2025-01-06T10:00:00Z", "task_id": 3},
            {"text": "Two", "at": "2025-01-06T11:00:00Z", "task_id": 2}
        ]}),
    );
    assert_eq!(
        call(&ctx, "delete_tasks", json!({"ids": [3]})),
        json!({"result": {"deleted": [3]}})
    );
    assert_eq!(
        call(&ctx, "get_reminders", json!({})),
        json!({"result": [
            {"id": 1, "text": "Plumber!", "at": "2025-01-06T10:00:00Z"},
            {"id": 2, "text": "Two", "at": "2025-01-06T11:00:00Z", "task_id": 2}
        ]})
    );
    assert_eq!(
        call(&ctx, "get_reminders", json!({"id": 1})),
        json!({"result": [{"id": 1, "text": "Plumber!", "at": "2025-01-06T10:00:00Z"}]})
    );
    assert_eq!(
        call(
            &ctx,
            "create_reminders",
            json!({"reminders": [{"text": "Again", "at": "2025-01-07T10:00:00Z", "task_id": 3}]})
        ),
        failed("`reminders[0].task_id`: no task with id 3; no reminder was created")
    );
    assert_eq!(
        call(&ctx, "get_tasks", json!({"id": 3})),
        failed("no task with id 3")
    );
    let context = call(&ctx, "get_context", json!({}));
    assert_eq!(context["result"]["open_tasks"], json!(2));
    assert_eq!(context["result"]["reminders"], json!(2));
}

#[test]
fn deleting_a_reminder_or_a_schedule_changes_nothing_else() {
    let ctx = conversation();
    call(&ctx, "create_tasks", json!({"tasks": [{"title": "One"}]}));
    call(
        &ctx,
        "create_reminders",
        json!({"reminders": [{"text": "One", "at": "2025-01-06T10:00:00Z", "task_id": 1}]}),
    );
    call(
        &ctx,
        "create_schedules",
        json!({"schedules": [{"prompt": "Summarize the inbox", "recurrence": {"kind": "daily", "time": "08:00"}}]}),
    );
    let before = call(&ctx, "get_tasks", json!({}));
    assert_eq!(
        call(&ctx, "delete_reminders", json!({"ids": [1]})),
        json!({"result": {"deleted": [1]}})
    );
    assert_eq!(
        call(&ctx, "delete_schedules", json!({"ids": [1]})),
        json!({"result": {"deleted": [1]}})
    );
    assert_eq!(call(&ctx, "get_tasks", json!({})), before);
    assert_eq!(
        call(&ctx, "get_reminders", json!({})),
        json!({"result": []})
    );
    assert_eq!(
        call(&ctx, "get_schedules", json!({})),
        json!({"result": []})
    );
}

#[test]
fn deleting_a_memory_hides_its_links_and_the_entities_only_it_mentions() {
    let ctx = conversation();
    call(
        &ctx,
        "create_memories",
        json!({"memories": [
            {"content": "Ada lives in Paris", "entities": [{"name": "Ada", "kind": "person"}, {"name": "Paris", "kind": "place"}]},
            {"content": "Ada likes tea", "entities": [{"name": "ada"}]}
        ]}),
    );
    call(&ctx, "link_memories", json!({"from": 1, "to": 2}));
    call(
        &ctx,
        "link_memories",
        json!({"from": 2, "to": 1, "relation": "supports"}),
    );

    assert_eq!(
        call(&ctx, "delete_memories", json!({"ids": [2]})),
        json!({"result": {"deleted": [2]}})
    );
    // The link to the deleted memory is gone from the one that remains.
    assert_eq!(
        call(&ctx, "get_memories", json!({"id": 1}))["result"][0]["links"],
        json!([])
    );
    assert_eq!(
        call(&ctx, "get_entities", json!({})),
        json!({"result": [
            {"id": 1, "name": "Ada", "kind": "person", "memories": [1]},
            {"id": 2, "name": "Paris", "kind": "place", "memories": [1]}
        ]})
    );
    assert_eq!(
        call(&ctx, "link_memories", json!({"from": 1, "to": 2})),
        failed("no memory with id 2")
    );

    // With no live memory naming them, the entities are gone too.
    call(&ctx, "delete_memories", json!({"ids": [1]}));
    assert_eq!(call(&ctx, "get_entities", json!({})), json!({"result": []}));
    assert_eq!(
        call(&ctx, "get_entities", json!({"id": 1})),
        failed("no entity with id 1")
    );
    assert_eq!(
        call(&ctx, "search_entities", json!({"query": "ada"})),
        json!({"result": []})
    );
    assert_eq!(
        call(&ctx, "search_memories", json!({"query": "ada"})),
        json!({"result": []})
    );
    assert_eq!(
        call(&ctx, "get_context", json!({}))["result"]["memories"],
        json!(0)
    );

    // Naming it again brings the same entity back, with only the new memory.
    call(
        &ctx,
        "create_memories",
        json!({"memories": [{"content": "Ada is back", "entities": [{"name": "ADA"}]}]}),
    );
    assert_eq!(
        call(&ctx, "get_entities", json!({})),
        json!({"result": [{"id": 1, "name": "Ada", "kind": "person", "memories": [3]}]})
    );
    assert_eq!(
        call(&ctx, "get_memories", json!({"id": 3}))["result"][0]["links"],
        json!([])
    );
}
