//! The registry as a downstream crate sees it: lookup by name and by alias, the
//! order and exact set of linked tools (across crates), every piece of metadata
//! read at run time, the typed handles, and duplicate names rejected with both
//! definitions' locations.

toolkit::link_tools!(other_tools);

use serde_json::{Value, json};
use toolkit::{
    Registry, Scope, Tier, Tool,
    definition::{Location, NameKind, Param, ToolHandle},
    registry,
    registry::{RegisteredTool, RegistryError, try_registry},
};
use toolkit_derive_tests::{
    create_reminders, create_tasks, get_tasks, remove_task, search_void, set_mood, set_title,
    update_tasks,
};

const LIB: &str = include_str!("../src/lib.rs");
const OTHER_LIB: &str = include_str!("../other-tools/src/lib.rs");

// Doc comments keep their paragraphs; the summary is the first one.
const GET_TASKS_DESCRIPTION: &str = "Get tasks. Filter by `id` for one task; otherwise the tasks in id order.\n\nReturns at most `limit` tasks.";
const GET_TASKS_SUMMARY: &str =
    "Get tasks. Filter by `id` for one task; otherwise the tasks in id order.";
const SET_TITLE_DESCRIPTION: &str = "Set one task's title.\n\nPanics while holding the store's lock when the title is \"boom\", to prove that a panic in the middle of a write neither wedges the store nor half-writes it.";
const SET_TITLE_SUMMARY: &str = "Set one task's title.";

/// The line of the `#[tool(` attribute above `fn {function}(` in `source`: where
/// the macro says the tool is defined.
fn tool_line(source: &str, function: &str) -> u32 {
    let signature = format!("fn {function}(");
    let mut attribute = None;
    for (index, line) in source.lines().enumerate() {
        if line.starts_with("#[tool(") {
            attribute = Some(index + 1);
        }
        if line.contains(&signature) {
            let line = attribute.expect("a #[tool] attribute above the function");
            return u32::try_from(line).expect("a short file");
        }
    }
    panic!("no `{signature}` in the source");
}

fn lib_location(function: &str) -> Location {
    Location {
        file: "toolkit-derive-tests/src/lib.rs",
        line: tool_line(LIB, function),
        module_path: "toolkit_derive_tests",
    }
}

/// Everything a tool declares, as one JSON value, so a whole tool compares at once.
fn metadata(tool: &Tool) -> Value {
    json!({
        "name": tool.name,
        "description": tool.description,
        "summary": tool.summary(),
        "verb": tool.verb(),
        "scope": tool.scope,
        "tier": tool.tier,
        "always": tool.always,
        "group": tool.group,
        "aliases": tool.aliases,
        "guidance": tool.guidance,
        "title": tool.title,
        "gate": tool.gate,
        "tags": tool.tags,
        "params": tool.params.iter().map(|param| json!({
            "name": param.name,
            "description": param.description,
            "required": param.required,
        })).collect::<Vec<_>>(),
        "location": format!("{}:{} ({})", tool.location.file, tool.location.line, tool.location.module_path),
    })
}

#[test]
fn holds_exactly_the_linked_tools_sorted_by_name_including_the_other_crates() {
    let names: Vec<&str> = registry().iter().map(|tool| tool.name).collect();
    assert_eq!(
        names,
        [
            "create_reminders",
            "create_tasks",
            "delete_tasks",
            "get_tasks",
            // Defined in `other-tools`, which this binary only names in `link_tools!`.
            "link_memories",
            "search_void",
            "set_mood",
            "set_title",
            "update_tasks",
        ]
    );
    assert_eq!(registry().len(), 9);
    assert!(!registry().is_empty());
    let mut by_ref = Vec::new();
    for tool in registry() {
        by_ref.push(tool.name);
    }
    assert_eq!(by_ref, names);
    assert!(std::ptr::eq(
        try_registry().expect("no duplicate names"),
        registry()
    ));
    toolkit::testing::assert_tools_match(
        registry(),
        "create_reminders\ncreate_tasks\ndelete_tasks\nget_tasks\nlink_memories\n\
         search_void\nset_mood\nset_title\nupdate_tasks\n",
    );
}

#[test]
fn finds_tools_by_name_and_aliases_by_their_canonical_tool() {
    let canonical = registry()
        .get("get_tasks")
        .expect("get_tasks is registered");
    assert_eq!(canonical.name, "get_tasks");
    for alias in ["get_task", "fetch_tasks"] {
        let found = registry().get(alias).expect("the alias resolves");
        assert!(std::ptr::eq(found, canonical), "{alias} is get_tasks");
        assert_eq!(found.name, "get_tasks");
    }
    assert_eq!(
        registry().get("relate_memories").map(|tool| tool.name),
        Some("link_memories")
    );
    assert_eq!(
        registry().get("create_task").map(|tool| tool.name),
        Some("create_tasks")
    );
    assert_eq!(
        registry().get("update_task").map(|tool| tool.name),
        Some("update_tasks")
    );
    // The Rust function's name is not a tool name when `name = ".."` renames it.
    assert!(registry().get("remove_task").is_none());
    assert_eq!(
        registry().get("delete_tasks").map(|tool| tool.name),
        Some("delete_tasks")
    );
    // Names are matched exactly.
    assert!(registry().get("Get_Tasks").is_none());
    assert!(registry().get(" get_tasks").is_none());
    assert!(registry().get("").is_none());
}

#[test]
fn reads_every_declared_fact_at_run_time() {
    let actual: Vec<Value> = registry().iter().map(|tool| metadata(tool)).collect();
    let location = |function: &str| {
        let at = lib_location(function);
        format!("{}:{} ({})", at.file, at.line, at.module_path)
    };
    let expected = vec![
        json!({
            "name": "create_reminders",
            "description": "Create a reminder.",
            "summary": "Create a reminder.",
            "verb": "create",
            "scope": "agent",
            "tier": "auto",
            "always": false,
            "group": "reminders",
            "aliases": [],
            "guidance": null,
            "title": null,
            "gate": null,
            "tags": ["voice"],
            "params": [
                {"name": "text", "description": "What to remind the user of.", "required": true},
                {"name": "recurrence", "description": "When it fires.", "required": true},
                // `r#type` is `type` to the model.
                {"name": "type", "description": "How it is delivered.", "required": false},
                {"name": "notify", "description": "Who else to tell, with how many minutes of notice each.", "required": false},
            ],
            "location": location("create_reminders"),
        }),
        json!({
            "name": "create_tasks",
            "description": "Create tasks; returns them with their new ids.",
            "summary": "Create tasks; returns them with their new ids.",
            "verb": "create",
            "scope": "shared",
            "tier": "auto",
            "always": false,
            "group": "tasks",
            "aliases": ["create_task"],
            "guidance": null,
            "title": null,
            "gate": null,
            "tags": ["web", "voice"],
            "params": [
                {"name": "tasks", "description": "The tasks to create.", "required": true},
            ],
            "location": location("create_tasks"),
        }),
        json!({
            "name": "delete_tasks",
            "description": "Delete one task for good.",
            "summary": "Delete one task for good.",
            "verb": "delete",
            "scope": "agent",
            "tier": "approve",
            "always": false,
            "group": null,
            "aliases": [],
            "guidance": null,
            "title": "Delete tasks",
            "gate": "deletes_enabled",
            "tags": [],
            "params": [
                {"name": "id", "description": "The task to delete.", "required": true},
            ],
            "location": location("remove_task"),
        }),
        json!({
            "name": "get_tasks",
            // Lines of a paragraph are joined.
            "description": GET_TASKS_DESCRIPTION,
            "summary": GET_TASKS_SUMMARY,
            "verb": "get",
            "scope": "shared",
            "tier": "auto",
            "always": true,
            "group": "tasks",
            "aliases": ["get_task", "fetch_tasks"],
            "guidance": "Filter by id when the user names one task.",
            "title": null,
            "gate": null,
            "tags": [],
            "params": [
                {"name": "id", "description": "Return only this task.", "required": false},
                {"name": "limit", "description": "At most this many tasks.", "required": false},
            ],
            "location": location("get_tasks"),
        }),
        json!({
            "name": "link_memories",
            "description": "Link two memories so recalling one brings up the other.",
            "summary": "Link two memories so recalling one brings up the other.",
            "verb": "link",
            "scope": "shared",
            "tier": "auto",
            "always": false,
            "group": "memories",
            "aliases": ["relate_memories"],
            "guidance": null,
            "title": null,
            "gate": null,
            "tags": [],
            "params": [
                {"name": "from", "description": "The first memory.", "required": true},
                {"name": "to", "description": "The second memory.", "required": true},
            ],
            "location": format!(
                "toolkit-derive-tests/other-tools/src/lib.rs:{} (other_tools)",
                tool_line(OTHER_LIB, "link_memories")
            ),
        }),
        json!({
            "name": "search_void",
            // `description = ".."` wins over the doc comment.
            "description": "Search the void; always finds nothing.",
            "summary": "Search the void; always finds nothing.",
            "verb": "search",
            "scope": "channel",
            "tier": "auto",
            "always": false,
            "group": null,
            "aliases": [],
            "guidance": null,
            "title": null,
            "gate": null,
            "tags": [],
            "params": [],
            "location": location("search_void"),
        }),
        json!({
            "name": "set_mood",
            "description": "Set the assistant's mood. Panics on \"angry\", to prove panics are caught.",
            "summary": "Set the assistant's mood. Panics on \"angry\", to prove panics are caught.",
            "verb": "set",
            "scope": "assistant",
            "tier": "auto",
            "always": false,
            "group": null,
            "aliases": [],
            "guidance": null,
            "title": null,
            "gate": null,
            "tags": [],
            "params": [
                {"name": "mood", "description": "The new mood.", "required": true},
            ],
            "location": location("set_mood"),
        }),
        json!({
            "name": "set_title",
            "description": SET_TITLE_DESCRIPTION,
            "summary": SET_TITLE_SUMMARY,
            "verb": "set",
            "scope": "shared",
            "tier": "auto",
            "always": false,
            "group": "tasks",
            "aliases": [],
            "guidance": null,
            "title": null,
            "gate": null,
            "tags": [],
            "params": [
                {"name": "id", "description": "The task to rename.", "required": true},
                {"name": "title", "description": "Its new title.", "required": true},
            ],
            "location": location("set_title"),
        }),
        json!({
            "name": "update_tasks",
            "description": "Update tasks. Every id is checked before anything is written, so a bad id changes nothing.",
            "summary": "Update tasks. Every id is checked before anything is written, so a bad id changes nothing.",
            "verb": "update",
            "scope": "shared",
            "tier": "auto",
            "always": false,
            "group": "tasks",
            "aliases": ["update_task"],
            "guidance": null,
            "title": null,
            "gate": null,
            "tags": [],
            "params": [
                {"name": "updates", "description": "The changes, one per task.", "required": true},
            ],
            "location": location("update_tasks"),
        }),
    ];
    assert_eq!(actual.len(), expected.len());
    for (actual, expected) in actual.iter().zip(&expected) {
        assert_eq!(actual, expected);
    }
}

#[test]
fn locations_are_structured_and_display_as_file_line_module() {
    let tool = registry().get("get_tasks").expect("registered");
    assert_eq!(tool.location, lib_location("get_tasks"));
    assert_eq!(
        tool.location.to_string(),
        format!(
            "toolkit-derive-tests/src/lib.rs:{} (toolkit_derive_tests)",
            tool_line(LIB, "get_tasks")
        )
    );
    assert_eq!(
        tool.params,
        [
            Param {
                name: "id",
                description: "Return only this task.",
                required: false,
            },
            Param {
                name: "limit",
                description: "At most this many tasks.",
                required: false,
            },
        ]
    );
}

#[test]
fn handles_name_the_tool_without_a_string() {
    const NAME: &str = get_tasks::NAME;
    assert_eq!(NAME, "get_tasks");
    assert_eq!(get_tasks::SCOPE, Scope::Shared);
    assert_eq!(get_tasks::TIER, Tier::Auto);
    // The handle is named after the function; NAME is the tool's name.
    assert_eq!(remove_task::NAME, "delete_tasks");
    assert_eq!(remove_task::SCOPE, Scope::Agent);
    assert_eq!(remove_task::TIER, Tier::Approve);
    assert_eq!(create_tasks::TIER, Tier::Auto);
    assert_eq!(search_void::SCOPE, Scope::Channel);
    assert_eq!(set_mood::SCOPE, Scope::Assistant);
    assert_eq!(other_tools::link_memories::NAME, "link_memories");

    let registered = registry().get("get_tasks").expect("registered");
    assert!(std::ptr::eq(get_tasks::definition(), registered.tool()));
    assert!(std::ptr::eq(
        remove_task::definition(),
        registry().get("delete_tasks").expect("registered").tool()
    ));
    assert!(std::ptr::eq(
        other_tools::link_memories::definition(),
        registry().get("link_memories").expect("registered").tool()
    ));
}

/// What generic code can learn from a handle type alone.
fn describe<H: ToolHandle>() -> (&'static str, Scope, Tier, &'static str) {
    (H::NAME, H::SCOPE, H::TIER, H::definition().description)
}

/// The registry entry of a handle.
fn entry<H: ToolHandle>(registry: &Registry) -> Option<&RegisteredTool> {
    registry.get(H::NAME)
}

/// Checks that a handle's trait items match its definition and registry entry.
fn agrees<H: ToolHandle>() {
    let definition = H::definition();
    assert_eq!(definition.name, H::NAME);
    assert_eq!(definition.scope, H::SCOPE);
    assert_eq!(definition.tier, H::TIER);
    let found = entry::<H>(registry()).expect("registered");
    assert!(std::ptr::eq(found.tool(), definition));
}

#[test]
fn tool_handle_works_generically() {
    assert_eq!(
        describe::<get_tasks>(),
        (
            "get_tasks",
            Scope::Shared,
            Tier::Auto,
            GET_TASKS_DESCRIPTION
        )
    );
    assert_eq!(
        describe::<remove_task>(),
        (
            "delete_tasks",
            Scope::Agent,
            Tier::Approve,
            "Delete one task for good."
        )
    );
    // The trait and the inherent items agree for every handle.
    agrees::<get_tasks>();
    agrees::<create_tasks>();
    agrees::<remove_task>();
    agrees::<set_mood>();
    agrees::<search_void>();
    agrees::<update_tasks>();
    agrees::<set_title>();
    agrees::<create_reminders>();
    agrees::<other_tools::link_memories>();
}

#[test]
fn a_registry_of_a_subset_holds_only_that_subset() {
    let subset = Registry::new([create_tasks::definition(), get_tasks::definition()])
        .expect("distinct names");
    let names: Vec<&str> = subset.iter().map(|tool| tool.name).collect();
    assert_eq!(names, ["create_tasks", "get_tasks"]);
    assert_eq!(
        subset.get("fetch_tasks").map(|tool| tool.name),
        Some("get_tasks")
    );
    assert!(subset.get("link_memories").is_none());
    // The cleaned schema is the same as in the global registry.
    assert_eq!(
        subset.get("get_tasks").expect("present").schema(),
        registry().get("get_tasks").expect("present").schema()
    );
    let empty = Registry::new([]).expect("nothing to collide");
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
}

/// A second definition of a tool, as another crate could write it, at this line.
fn copy_of(tool: &'static Tool, line: u32, edit: impl FnOnce(&mut Tool)) -> &'static Tool {
    let mut copy = *tool;
    copy.location = Location {
        file: file!(),
        line,
        module_path: module_path!(),
    };
    edit(&mut copy);
    Box::leak(Box::new(copy))
}

#[test]
fn rejects_two_tools_with_one_name_naming_both_locations() {
    let copy = copy_of(get_tasks::definition(), 42, |_| {});
    let error = Registry::new([get_tasks::definition(), copy]).expect_err("get_tasks twice");
    let original = lib_location("get_tasks");
    let here = Location {
        file: "toolkit-derive-tests/tests/registry.rs",
        line: 42,
        module_path: "registry",
    };
    assert_eq!(
        error,
        RegistryError::Duplicate {
            name: "get_tasks".to_owned(),
            first: (NameKind::Name, original),
            second: (NameKind::Name, here),
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "tool name `get_tasks` is defined twice: as a tool at \
             toolkit-derive-tests/src/lib.rs:{} (toolkit_derive_tests) and as a tool at \
             toolkit-derive-tests/tests/registry.rs:42 (registry); \
             rename one of them",
            original.line
        )
    );
    // Order of the input does not change which definition is reported first.
    let reversed = Registry::new([copy, get_tasks::definition()]).expect_err("get_tasks twice");
    assert_eq!(reversed, error);
}

#[test]
fn rejects_a_tool_named_like_another_tools_alias() {
    // A new tool called `get_task` collides with the alias `get_task` of get_tasks.
    let copy = copy_of(create_tasks::definition(), 7, |tool| {
        tool.name = "get_task";
        tool.aliases = &[];
    });
    let error = Registry::new([get_tasks::definition(), copy]).expect_err("get_task twice");
    let original = lib_location("get_tasks");
    assert_eq!(
        error,
        RegistryError::Duplicate {
            name: "get_task".to_owned(),
            first: (
                NameKind::Name,
                Location {
                    file: "toolkit-derive-tests/tests/registry.rs",
                    line: 7,
                    module_path: "registry",
                }
            ),
            second: (NameKind::Alias("get_tasks"), original),
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "tool name `get_task` is defined twice: as a tool at \
             toolkit-derive-tests/tests/registry.rs:7 (registry) and as an alias of \
             `get_tasks` at toolkit-derive-tests/src/lib.rs:{} (toolkit_derive_tests); \
             rename one of them or remove the alias",
            original.line
        )
    );
}

#[test]
fn rejects_two_tools_sharing_an_alias() {
    let copy = copy_of(other_tools::link_memories::definition(), 9, |tool| {
        tool.aliases = &["relate_memories", "fetch_tasks"];
    });
    let error = Registry::new([copy, get_tasks::definition()]).expect_err("fetch_tasks twice");
    assert_eq!(
        error,
        RegistryError::Duplicate {
            name: "fetch_tasks".to_owned(),
            first: (NameKind::Alias("get_tasks"), lib_location("get_tasks")),
            second: (
                NameKind::Alias("link_memories"),
                Location {
                    file: "toolkit-derive-tests/tests/registry.rs",
                    line: 9,
                    module_path: "registry",
                }
            ),
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "tool name `fetch_tasks` is defined twice: as an alias of `get_tasks` at \
             toolkit-derive-tests/src/lib.rs:{} (toolkit_derive_tests) and as an alias of \
             `link_memories` at toolkit-derive-tests/tests/registry.rs:9 (registry); \
             rename one of them or remove the alias",
            tool_line(LIB, "get_tasks")
        )
    );
}

#[test]
fn rejects_the_same_definition_passed_twice() {
    let error = Registry::new([set_mood::definition(), set_mood::definition()])
        .expect_err("set_mood twice");
    assert_eq!(
        error,
        RegistryError::Duplicate {
            name: "set_mood".to_owned(),
            first: (NameKind::Name, lib_location("set_mood")),
            second: (NameKind::Name, lib_location("set_mood")),
        }
    );
}

#[test]
fn doc_comment_paragraphs_are_kept() {
    let tool = get_tasks::definition();
    assert_eq!(
        tool.description,
        "Get tasks. Filter by `id` for one task; otherwise the tasks in id order.\n\n\
         Returns at most `limit` tasks."
    );
    assert_eq!(
        tool.summary(),
        "Get tasks. Filter by `id` for one task; otherwise the tasks in id order."
    );
    assert_eq!(set_title::definition().summary(), "Set one task's title.");
}
