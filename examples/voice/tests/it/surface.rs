//! What each channel advertises with and without feature flags, and that a tool
//! whose flag is off can't run, whichever way it is called.

use std::collections::BTreeSet;

use example_voice::{Channel, Home, VoiceSurface};
use futures_executor::block_on;
use serde_json::json;
use toolkit::{Context, Response, ToolError};

const FLAGS: [&str; 3] = ["music", "outbound_calls", "smart_home"];

fn advertised(surface: &VoiceSurface) -> Vec<&'static str> {
    surface.advertised().map(|tool| tool.name).collect()
}

fn all_flags_on(channel: Channel) -> VoiceSurface {
    FLAGS
        .into_iter()
        .fold(VoiceSurface::new(channel), VoiceSurface::with_flag)
}

fn ctx() -> Context {
    Context::new().with(Home::sample())
}

#[test]
fn the_registry_declares_exactly_these_flags() {
    let gates: BTreeSet<&str> = toolkit::registry()
        .iter()
        .filter_map(|tool| tool.gate)
        .collect();
    assert_eq!(gates, BTreeSet::from(FLAGS));
}

#[test]
fn every_tag_names_a_channel_and_every_tool_has_one() {
    for tool in toolkit::registry() {
        assert!(!tool.tags.is_empty(), "`{}` is on no channel", tool.name);
        for tag in tool.tags {
            assert!(
                tag.parse::<Channel>().is_ok(),
                "`{}` has tag `{tag}`, which is not a channel",
                tool.name
            );
        }
    }
}

#[test]
fn text_advertises_reading_and_writing_but_nothing_gated() {
    let expected = [
        "create_messages",
        "create_reminders",
        "get_calendar",
        "get_messages",
        "get_reminders",
        "get_weather",
        "search_contacts",
    ];
    assert_eq!(advertised(&VoiceSurface::new(Channel::Text)), expected);
    // No gated tool is tagged `text`, so flags change nothing there.
    assert_eq!(advertised(&all_flags_on(Channel::Text)), expected);
}

#[test]
fn telegram_adds_music_and_lights_when_flagged() {
    let plain = [
        "create_messages",
        "create_reminders",
        "get_calendar",
        "get_messages",
        "get_reminders",
        "get_weather",
        "search_contacts",
        "set_timer",
    ];
    assert_eq!(advertised(&VoiceSurface::new(Channel::Telegram)), plain);
    assert_eq!(
        advertised(&all_flags_on(Channel::Telegram)),
        [
            "create_messages",
            "create_reminders",
            "get_calendar",
            "get_messages",
            "get_reminders",
            "get_weather",
            "search_contacts",
            "search_music",
            "set_lights",
            "set_timer",
        ]
    );
}

#[test]
fn phone_adds_outbound_calls_only_with_its_flag() {
    let phone = VoiceSurface::new(Channel::Phone);
    assert_eq!(
        advertised(&phone),
        [
            "get_calendar",
            "get_weather",
            "search_contacts",
            "set_timer"
        ]
    );
    // Flags of tools the phone doesn't carry add nothing.
    assert_eq!(
        advertised(&phone.clone().with_flag("music").with_flag("smart_home")),
        [
            "get_calendar",
            "get_weather",
            "search_contacts",
            "set_timer"
        ]
    );
    assert_eq!(
        advertised(&phone.with_flag("outbound_calls")),
        [
            "create_calls",
            "get_calendar",
            "get_weather",
            "search_contacts",
            "set_timer"
        ]
    );
}

#[test]
fn voice_advertises_each_gated_tool_with_its_own_flag() {
    let voice = VoiceSurface::new(Channel::Voice);
    let plain = [
        "create_messages",
        "create_reminders",
        "get_calendar",
        "get_reminders",
        "get_weather",
        "search_contacts",
        "set_timer",
        "set_volume",
    ];
    assert_eq!(advertised(&voice), plain);
    assert_eq!(
        advertised(&voice.clone().with_flag("music")),
        [
            "create_messages",
            "create_reminders",
            "get_calendar",
            "get_reminders",
            "get_weather",
            "search_contacts",
            "search_music",
            "set_timer",
            "set_volume",
        ]
    );
    assert_eq!(
        advertised(&all_flags_on(Channel::Voice)),
        [
            "create_calls",
            "create_messages",
            "create_reminders",
            "get_calendar",
            "get_reminders",
            "get_weather",
            "search_contacts",
            "search_music",
            "set_lights",
            "set_timer",
            "set_volume",
        ]
    );
    // An unknown flag is simply off: it turns on nothing.
    assert_eq!(advertised(&voice.with_flag("musik")), plain);
}

#[test]
fn every_tool_is_advertised_somewhere_when_all_flags_are_on() {
    let mut seen = BTreeSet::new();
    for channel in Channel::ALL {
        seen.extend(advertised(&all_flags_on(channel)));
    }
    let all: BTreeSet<&str> = toolkit::registry().iter().map(|tool| tool.name).collect();
    assert_eq!(seen, all);
    assert_eq!(all.len(), 12);
}

#[test]
fn a_gated_tool_whose_flag_is_off_answers_as_unknown() {
    let voice = VoiceSurface::new(Channel::Voice);
    let response = block_on(voice.call("create_calls", r#"{"contact_id": 2}"#, &ctx()));
    assert_eq!(
        response,
        Response::Error(ToolError::UnknownTool {
            name: "create_calls".to_owned(),
            suggestion: None,
        })
    );
    assert_eq!(
        response.to_json(),
        json!({"error": {
            "kind": "unknown_tool",
            "name": "create_calls",
            "message": "unknown tool `create_calls`",
        }})
    );
}

#[test]
fn a_misspelled_name_is_never_pointed_at_a_disabled_tool() {
    let voice = VoiceSurface::new(Channel::Voice);
    let off = block_on(voice.call("search_musik", "{}", &ctx()));
    assert_eq!(
        off,
        Response::Error(ToolError::UnknownTool {
            name: "search_musik".to_owned(),
            suggestion: None,
        })
    );
    let on = block_on(voice.with_flag("music").call("search_musik", "{}", &ctx()));
    assert_eq!(
        on,
        Response::Error(ToolError::UnknownTool {
            name: "search_musik".to_owned(),
            suggestion: Some("search_music".to_owned()),
        })
    );
}

#[test]
fn a_gated_tool_runs_once_its_flag_is_on() {
    let phone = VoiceSurface::new(Channel::Phone).with_flag("outbound_calls");
    let response = block_on(phone.call(
        "create_calls",
        r#"{"contact_id": 2, "confirmed": true}"#,
        &ctx(),
    ));
    assert_eq!(
        response.to_json(),
        json!({"result": "calling Alan Turing at +44 20 7946 0002"})
    );
}

#[test]
fn a_handler_may_call_an_enabled_tool_its_channel_does_not_advertise() {
    // `search_music` is not a phone tool, but with `music` on, code handling a phone
    // call may still run it.
    let phone = VoiceSurface::new(Channel::Phone).with_flag("music");
    assert!(!advertised(&phone).contains(&"search_music"));
    let response = block_on(phone.call(
        "search_music",
        r#"{"query": "blue", "kind": "album"}"#,
        &ctx(),
    ));
    assert_eq!(
        response.to_json(),
        json!({"result": [
            {"kind": "album", "title": "Kind of Blue", "artist": "Miles Davis"}
        ]})
    );
}

#[test]
fn ungated_tools_run_with_their_arguments_checked() {
    let voice = VoiceSurface::new(Channel::Voice);
    let ctx = ctx();
    let weather = block_on(voice.call(
        "get_weather",
        r#"{"city": "Oslo", "unit": "fahrenheit"}"#,
        &ctx,
    ));
    assert_eq!(
        weather.to_json(),
        json!({"result": {"city": "Oslo", "temperature": 29, "unit": "fahrenheit", "conditions": "snow showers"}})
    );
    let reminders = block_on(voice.call(
        "create_reminders",
        r#"{"reminders": [{"text": "Water the plants", "at": "2025-06-02T18:00"}, {"text": "Call mum", "when": "tonight"}]}"#,
        &ctx,
    ));
    assert_eq!(
        reminders,
        // Every problem at once: the unknown field, and the one it stood for.
        Response::Error(ToolError::InvalidArguments {
            problems: vec![
                toolkit::call::Problem {
                    path: "reminders[1].at".to_owned(),
                    message: "missing required field".to_owned(),
                },
                toolkit::call::Problem {
                    path: "reminders[1].when".to_owned(),
                    message: "unknown field; expected one of `at`, `text`".to_owned(),
                },
            ]
        })
    );
    let volume = block_on(voice.call("set_volume", r#"{"level": 140}"#, &ctx));
    // The schema's bound is enforced before the tool runs.
    assert_eq!(
        volume,
        Response::Error(ToolError::invalid_arguments(
            "level",
            "must be between 0 and 100, got 140"
        ))
    );
}
