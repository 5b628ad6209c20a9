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
        // The agent's own "yes" is refused by the policy.
        "The agent approves its own `create_schedules` (call_7): the requester may not decide it: `create_schedules` is approved by someone other than the requester; the call waits for them",
        "Owner olivia decides `create_schedules` (call_7): Approve",
        // The runner creates the approved schedule once, however often it runs.
        "Runner pass 1: RunPass { ran: 1, failed: 0, waiting: 0, refused: 0, skipped: 0 }",
        "Runner pass 2: RunPass { ran: 0, failed: 0, waiting: 0, refused: 0, skipped: 0 }",
        // The agent's next wake reads what came of both calls first.
        "At 2026-11-24T10:00Z: 1 wake(s)",
        "  reads: Your call `create_schedules` (call_8) never ran (denied): a human denied this call: Grace asked us never to call at weekends.",
        "  reads: Call Ada back about the quote.",
        "At 2026-11-25T10:00Z: 0 wake(s)",
    ] {
        assert!(
            stdout.lines().any(|printed| same(printed, line)),
            "missing {line:?} in:\n{stdout}"
        );
    }
    assert_eq!(
        stdout.matches("\"pending_approval\"").count(),
        2,
        "{stdout}"
    );
    let ran = "  reads: Your call `create_schedules` (call_7) was approved and ran; it returned: ";
    assert_eq!(
        stdout.lines().filter(|line| line.starts_with(ran)).count(),
        1,
        "{stdout}"
    );
}
