//! The demo binary runs to the end and tells its story.

use std::process::Command;

#[test]
fn the_demo_runs_and_shows_each_step() {
    let output = Command::new(env!("CARGO_BIN_EXE_agents"))
        .output()
        .expect("the demo starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // A line with JSON matches whatever its keys' order: a `serde_json::Map` keeps
    // name order unless some crate in the build turns on `preserve_order`.
    let same = |printed: &str, line: &str| {
        let json = |text: &str| {
            let start = text.find('{')?;
            let value: serde_json::Value = serde_json::from_str(&text[start..]).ok()?;
            Some((text[..start].to_owned(), value))
        };
        printed == line || json(printed).is_some_and(|printed| json(line) == Some(printed))
    };
    for line in [
        "The catalog: 27 tools",
        "The assistant, an owner on the Contacts page (8 tools):",
        "The sales agent (11 tools):",
        "The front desk agent (the legacy switch is the recommended preset) (17 tools):",
        r#"< {"error":{"kind":"unknown_tool","name":"buy_phone_number","message":"unknown tool `buy_phone_number`"}}"#,
        "Owner approves `create_schedules` (call_7)",
        r#"< again: {"error":{"kind":"approval_rejected","reason":"it was already used, and an approved call runs once","message":"the approval was refused: it was already used, and an approved call runs once; nothing ran"}}"#,
        r#"< {"result":[{"id":1,"name":"Ada Lovelace","phone":"+44 20 7946 0001","company":"Analytical Engines"}]}"#,
        "At 2026-11-25T10:00Z: []",
    ] {
        assert!(
            stdout.lines().any(|printed| same(printed, line)),
            "missing {line:?} in:\n{stdout}"
        );
    }
    assert_eq!(
        stdout.matches("\"pending_approval\"").count(),
        1,
        "{stdout}"
    );
}
