//! The registry against the use case's list of tools: exactly the 23 active tools
//! (checked both ways against `fixtures/tools.txt`), every retired name still
//! resolving to its replacement, no ghost tools, and every tool fully declared
//! (description, group, documented parameters, the tier chosen for it).

use example_assistant::tools::{
    create_memories, create_reminders, create_schedules, create_tasks, delete_memories,
    delete_reminders, delete_schedules, delete_tasks, get_context, get_entities, get_gmail,
    get_memories, get_reminders, get_schedules, get_tasks, link_memories, search_entities,
    search_gmail, search_memories, set_project, update_instructions, update_memories, update_tasks,
};
use toolkit::{Scope, Tier, Tool, definition::ToolHandle, registry};

#[test]
fn registry_holds_exactly_the_fixture_tools() {
    toolkit::testing::assert_tools_match(registry(), include_str!("../fixtures/tools.txt"));
    assert_eq!(registry().len(), 23);
}

/// Retired names that stored data may still mention, and what they became.
const RETIRED: &[(&str, &str)] = &[
    ("get_task", "get_tasks"),
    ("fetch_tasks", "get_tasks"),
    ("create_task", "create_tasks"),
    ("update_task", "update_tasks"),
    ("delete_task", "delete_tasks"),
    ("list_reminders", "get_reminders"),
    ("create_reminder", "create_reminders"),
    ("list_schedules", "get_schedules"),
    ("create_schedule", "create_schedules"),
    ("delete_schedule", "delete_schedules"),
    ("store_memory", "create_memories"),
    ("recall", "search_memories"),
    ("search_memory", "search_memories"),
    ("fetch_memory", "get_memories"),
    ("update_memory", "update_memories"),
    ("delete_memory", "delete_memories"),
    ("list_entities", "get_entities"),
    ("get_context_info", "get_context"),
    ("gmail_search", "search_gmail"),
    ("gmail_get_message", "get_gmail"),
];

#[test]
fn every_retired_name_resolves_to_its_replacement() {
    for &(old, new) in RETIRED {
        let resolved = registry().get(old).map(|tool| tool.name);
        assert_eq!(resolved, Some(new), "retired name `{old}`");
    }
}

#[test]
fn the_aliases_are_exactly_the_retired_names() {
    let mut declared: Vec<(&str, &str)> = registry()
        .iter()
        .flat_map(|tool| tool.aliases.iter().map(|&alias| (alias, tool.name)))
        .collect();
    declared.sort_unstable();
    let mut expected = RETIRED.to_vec();
    expected.sort_unstable();
    assert_eq!(declared, expected);
}

#[test]
fn ghost_tools_do_not_resolve() {
    for ghost in ["email_digest", "gmail_digest", "save_memory", "read_memory"] {
        assert!(
            registry().get(ghost).is_none(),
            "ghost tool `{ghost}` resolves"
        );
    }
}

/// What each tool declares, read through its handle, next to what we chose for it.
struct Declared {
    name: &'static str,
    tier: Tier,
    scope: Scope,
    definition: &'static Tool,
    expected_tier: Tier,
    expected_group: &'static str,
}

fn declared<H: ToolHandle>(expected_tier: Tier, expected_group: &'static str) -> Declared {
    Declared {
        name: H::NAME,
        tier: H::TIER,
        scope: H::SCOPE,
        definition: H::definition(),
        expected_tier,
        expected_group,
    }
}

fn all_declared() -> Vec<Declared> {
    use Tier::{Approve, Auto, Confirm};
    vec![
        declared::<get_tasks>(Auto, "tasks"),
        declared::<create_tasks>(Auto, "tasks"),
        declared::<update_tasks>(Auto, "tasks"),
        declared::<delete_tasks>(Confirm, "tasks"),
        declared::<get_reminders>(Auto, "reminders"),
        declared::<create_reminders>(Auto, "reminders"),
        declared::<delete_reminders>(Confirm, "reminders"),
        declared::<get_schedules>(Auto, "schedules"),
        declared::<create_schedules>(Confirm, "schedules"),
        declared::<delete_schedules>(Confirm, "schedules"),
        declared::<update_instructions>(Confirm, "instructions"),
        declared::<search_gmail>(Auto, "gmail"),
        declared::<get_gmail>(Auto, "gmail"),
        declared::<create_memories>(Auto, "memories"),
        declared::<search_memories>(Auto, "memories"),
        declared::<get_memories>(Auto, "memories"),
        declared::<update_memories>(Confirm, "memories"),
        declared::<delete_memories>(Approve, "memories"),
        declared::<set_project>(Confirm, "project"),
        declared::<link_memories>(Auto, "memories"),
        declared::<get_entities>(Auto, "entities"),
        declared::<search_entities>(Auto, "entities"),
        declared::<get_context>(Auto, "context"),
    ]
}

#[test]
fn every_tool_has_the_tier_and_group_chosen_for_it() {
    let all = all_declared();
    assert_eq!(all.len(), registry().len());
    for tool in &all {
        let registered = registry()
            .get(tool.name)
            .expect("the handle's tool is registered");
        assert_eq!(tool.tier, tool.expected_tier, "tier of `{}`", tool.name);
        assert_eq!(
            registered.tier, tool.tier,
            "registered tier of `{}`",
            tool.name
        );
        assert_eq!(
            registered.scope, tool.scope,
            "registered scope of `{}`",
            tool.name
        );
        assert!(
            std::ptr::eq(registered.tool(), tool.definition),
            "`{}` resolves to its own definition",
            tool.name
        );
        assert_eq!(
            registered.group,
            Some(tool.expected_group),
            "group of `{}`",
            tool.name
        );
    }
}

#[test]
fn tiers_follow_the_verb_policy() {
    assert_eq!(delete_tasks::TIER, Tier::Confirm);
    assert_eq!(delete_memories::TIER, Tier::Approve);
    assert_eq!(set_project::TIER, Tier::Confirm);
    for tool in registry() {
        match tool.verb() {
            "get" | "search" => assert_eq!(tool.tier, Tier::Auto, "`{}` only reads", tool.name),
            "delete" | "set" => {
                assert_ne!(tool.tier, Tier::Auto, "`{}` must be guarded", tool.name);
            }
            "create" | "update" | "link" => {}
            verb => panic!("`{}` uses verb `{verb}`, outside the vocabulary", tool.name),
        }
    }
}

#[test]
fn only_settings_tools_are_assistant_scoped() {
    let assistant: Vec<&str> = registry()
        .iter()
        .filter(|tool| tool.scope == Scope::Assistant)
        .map(|tool| tool.name)
        .collect();
    assert_eq!(assistant, ["set_project", "update_instructions"]);
    assert_eq!(set_project::SCOPE, Scope::Assistant);
    assert_eq!(get_tasks::SCOPE, Scope::Shared);
}

#[test]
fn every_tool_and_parameter_is_described() {
    for tool in registry() {
        assert!(
            !tool.description.trim().is_empty(),
            "`{}` has no description",
            tool.name
        );
        assert!(
            tool.description.len() <= 1024,
            "`{}` description too long",
            tool.name
        );
        for param in tool.params {
            assert!(
                !param.description.trim().is_empty(),
                "`{}.{}` has no description",
                tool.name,
                param.name
            );
            assert!(
                tool.schema()["properties"][param.name]["description"].is_string(),
                "`{}.{}` has no description in the schema",
                tool.name,
                param.name
            );
        }
        if let Some(guidance) = tool.guidance {
            assert!(
                guidance.len() <= 160,
                "`{}` guidance is not short",
                tool.name
            );
        }
    }
}

#[test]
fn tools_with_a_gotcha_carry_guidance() {
    let with_guidance: Vec<&str> = registry()
        .iter()
        .filter(|tool| tool.guidance.is_some())
        .map(|tool| tool.name)
        .collect();
    assert_eq!(
        with_guidance,
        [
            "create_memories",
            "create_reminders",
            "create_schedules",
            "delete_memories",
            "delete_tasks",
            "get_tasks",
            "search_entities",
            "search_gmail",
            "search_memories",
            "set_project",
            "update_instructions",
            "update_tasks",
        ]
    );
}

#[test]
fn the_deletion_flag_is_in_no_schema() {
    for tool in registry() {
        let schema = tool.schema().to_string();
        let output = (tool.output_schema)()
            .map(|schema| schema.to_value().to_string())
            .unwrap_or_default();
        for text in [schema, output] {
            assert!(
                !text.contains("is_deleted"),
                "`{}` mentions is_deleted",
                tool.name
            );
        }
    }
}
