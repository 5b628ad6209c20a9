//! The system prompt template: safe `$placeholder` substitution, `$tool_guidance`
//! gathered from the registry, and sections that only interactive channels get.

use example_assistant::AssistantState;
use example_assistant::prompt::{
    Channel, PromptTemplate, substitute, system_prompt, tool_guidance,
};
use example_assistant::tools::{delete_tasks, get_context, get_tasks, search_gmail};
use futures_executor::block_on;
use toolkit::{Context, Registry};

fn values(name: &str) -> Option<&'static str> {
    match name {
        "soul" => Some("You are Pip."),
        "who" => Some("Ada"),
        "empty" => Some(""),
        _ => None,
    }
}

#[test]
fn known_placeholders_are_replaced_in_both_spellings() {
    assert_eq!(substitute("$soul Hi $who.", values), "You are Pip. Hi Ada.");
    assert_eq!(substitute("${who}'s ${soul}", values), "Ada's You are Pip.");
    assert_eq!(substitute("[$empty]", values), "[]");
    // A name runs as far as letters, digits and `_` go.
    assert_eq!(
        substitute("$who_ $who-x ${who}_x", values),
        "$who_ Ada-x Ada_x"
    );
}

#[test]
fn unknown_placeholders_stay_as_written() {
    assert_eq!(
        substitute("$operating_model and ${tool_guidance}", values),
        "$operating_model and ${tool_guidance}"
    );
}

#[test]
fn double_dollar_is_a_literal_dollar() {
    assert_eq!(
        substitute("costs $$5, $$who, $$$who", values),
        "costs $5, $who, $Ada"
    );
}

#[test]
fn stray_dollars_never_panic_and_stay() {
    for text in [
        "$", "$$$", "a $ b", "$1", "${", "${who", "${ who }", "${}", "$é", "é$", "${wh o}",
    ] {
        let expected = text.replace("$$", "$");
        assert_eq!(substitute(text, values), expected, "{text:?}");
    }
    assert_eq!(substitute("ünï $who ✓ $", values), "ünï Ada ✓ $");
}

#[test]
fn substituted_values_are_not_scanned_again() {
    let text = substitute("$a|$b", |name| match name {
        "a" => Some("$b and $$"),
        "b" => Some("B"),
        _ => None,
    });
    assert_eq!(text, "$b and $$|B");
}

/// Three tools with guidance and one without, in the registry's order.
fn few_tools() -> Registry {
    Registry::new([
        search_gmail::definition(),
        get_tasks::definition(),
        get_context::definition(),
        delete_tasks::definition(),
    ])
    .expect("distinct names")
}

#[test]
fn tool_guidance_lists_each_tool_that_has_a_gotcha() {
    assert_eq!(
        tool_guidance(&few_tools()),
        "<tool-guidance>\n\
         <delete_tasks>Only when the user asks to remove a task; finished tasks are updated with done: true.</delete_tasks>\n\
         <get_tasks>Filter by id when the user names one task; done tasks are hidden unless include_done is true.</get_tasks>\n\
         <search_gmail>Results carry no body; call get_gmail with a message id to read one.</search_gmail>\n\
         </tool-guidance>"
    );
    assert_eq!(
        tool_guidance(&Registry::new([get_context::definition()]).expect("one tool")),
        ""
    );
}

#[test]
fn tool_guidance_comes_from_the_registry_alone() {
    let block = tool_guidance(toolkit::registry());
    let lines: Vec<&str> = block.lines().collect();
    let mut expected: Vec<String> = vec!["<tool-guidance>".to_owned()];
    expected.extend(
        toolkit::registry()
            .iter()
            .filter_map(|tool| Some(format!("<{0}>{1}</{0}>", tool.name, tool.guidance?))),
    );
    expected.push("</tool-guidance>".to_owned());
    assert_eq!(lines, expected);
    assert_eq!(lines.len(), 14);
}

fn template() -> PromptTemplate {
    PromptTemplate::new(
        "$soul\n\n$live\n\n$alone\n\nTools ($channel):\n$tool_guidance\n\n$missing costs $$1",
    )
    .section("soul", "You are Pip.")
    .interactive_section("live", "Someone is reading.")
    .unattended_section("alone", "Nobody is reading.")
}

#[test]
fn interactive_sections_render_only_on_web_and_telegram() {
    let tools = few_tools();
    let guidance = "<tool-guidance>\n\
                    <delete_tasks>Only when the user asks to remove a task; finished tasks are updated with done: true.</delete_tasks>\n\
                    <get_tasks>Filter by id when the user names one task; done tasks are hidden unless include_done is true.</get_tasks>\n\
                    <search_gmail>Results carry no body; call get_gmail with a message id to read one.</search_gmail>\n\
                    </tool-guidance>";
    for channel in Channel::ALL {
        let expected = if channel.is_interactive() {
            format!(
                "You are Pip.\n\nSomeone is reading.\n\nTools ({}):\n{guidance}\n\n$missing costs $1",
                channel.as_str()
            )
        } else {
            format!(
                "You are Pip.\n\nNobody is reading.\n\nTools ({}):\n{guidance}\n\n$missing costs $1",
                channel.as_str()
            )
        };
        assert_eq!(template().render(channel, &tools), expected, "{channel:?}");
    }
    assert!(Channel::Web.is_interactive());
    assert!(Channel::Telegram.is_interactive());
    assert!(!Channel::Scheduled.is_interactive());
    assert!(!Channel::Heartbeat.is_interactive());
}

#[test]
fn empty_sections_leave_no_gap() {
    let template = PromptTemplate::new("  $a  \n\n\n$b\n\n$c\n\n$d\n")
        .section("a", "A")
        .section("b", "")
        .interactive_section("c", "C")
        .section("d", "D\n\n\n\nE");
    let no_tools = Registry::new([]).expect("no tools");
    assert_eq!(
        template.render(Channel::Web, &no_tools),
        "  A\n\nC\n\nD\n\nE"
    );
    assert_eq!(
        template.render(Channel::Scheduled, &no_tools),
        "  A\n\nD\n\nE"
    );
}

const SOUL_AND_MODEL: &str = "\
You are Pip, a calm and precise personal assistant. You keep the user's tasks, reminders, schedules and memories in order.

## How you work
- Read before you write: get or search first, then create or update.
- Lists go in one call: create, update and delete take many items at once.
- When a tool returns an error, fix the arguments it names and try again.";

const SHARED_NOTES: &str = "\
<tool-guidance>
<create_memories>Search first; if a memory on the subject exists, update it instead of creating a duplicate.</create_memories>
<create_reminders>Give `at` as a full ISO 8601 date-time with the user's offset; get_context tells the current time.</create_reminders>
<create_schedules>Use a schedule for recurring work the assistant does itself; for a one-off nudge to the user, create a reminder.</create_schedules>
<delete_memories>For a memory that is out of date, update it; delete only what the user asks to forget.</delete_memories>
<delete_tasks>Only when the user asks to remove a task; finished tasks are updated with done: true.</delete_tasks>
<get_tasks>Filter by id when the user names one task; done tasks are hidden unless include_done is true.</get_tasks>
<search_entities>Entities come from the memories that mention them; to add one, create a memory naming it.</search_entities>
<search_gmail>Results carry no body; call get_gmail with a message id to read one.</search_gmail>
<search_memories>While a project is set, only its memories and unfiled ones are searched; pass all_projects: true for everything.</search_memories>";

#[test]
fn an_unattended_run_gets_no_conversation_section_and_no_settings_tools() {
    let state = AssistantState::new();
    assert_eq!(
        system_prompt(&state, Channel::Heartbeat),
        format!(
            "{SOUL_AND_MODEL}\n\n\
             ## Unattended run\n\
             This is a heartbeat run and nobody is watching. Don't ask questions; do the work, or create a task explaining what is blocked.\n\n\
             ## Tool notes\n\
             {SHARED_NOTES}\n\
             <update_tasks>To complete a task, update it with done: true; don't delete it.</update_tasks>\n\
             </tool-guidance>"
        )
    );
}

#[test]
fn an_interactive_run_gets_the_conversation_the_settings_and_the_users_text() {
    let state = AssistantState::new();
    let ctx = Context::new().with(state.clone());
    // The user's own `$` text is shown as written, never expanded.
    block_on(toolkit::registry().call(
        "update_instructions",
        r#"{"instructions": "Prices in $USD; never $soul or $$.", "confirmed": true}"#,
        &ctx,
    ));
    block_on(toolkit::registry().call(
        "set_project",
        r#"{"name": "Kitchen", "confirmed": true}"#,
        &ctx,
    ));
    assert_eq!(
        system_prompt(&state, Channel::Telegram),
        format!(
            "{SOUL_AND_MODEL}\n\n\
             ## Talking with the user\n\
             You are chatting on telegram. Keep replies short, and ask one question when a request is ambiguous.\n\n\
             ## Tool notes\n\
             {SHARED_NOTES}\n\
             <set_project>Set a project only when the user starts focused work on one; clear it when they are done.</set_project>\n\
             <update_instructions>Use append for one new rule; replace rewrites all instructions, so pass the full text.</update_instructions>\n\
             <update_tasks>To complete a task, update it with done: true; don't delete it.</update_tasks>\n\
             </tool-guidance>\n\n\
             ## The user's instructions\n\
             Prices in $USD; never $soul or $$.\n\n\
             ## Active project\n\
             Kitchen"
        )
    );
}
