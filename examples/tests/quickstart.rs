//! The quickstart prints exactly what its comments promise: the tools as OpenAI
//! receives them, then one answer per call.

use std::process::Command;

use serde_json::{Value, json};

/// Runs the quickstart and splits its output into `(heading, JSON)` sections.
fn sections() -> Vec<(String, Value)> {
    let output = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .output()
        .expect("the quickstart binary runs");
    assert!(output.status.success(), "quickstart failed: {output:?}");
    let stdout = String::from_utf8(output.stdout).expect("the output is UTF-8");
    let stdout = stdout
        .strip_prefix("# ")
        .expect("the output starts with a heading");
    stdout
        .split("\n# ")
        .map(|section| {
            let (heading, body) = section.split_once("\n\n").expect("a heading, then JSON");
            let body = serde_json::from_str(body).expect("each section's body is one JSON value");
            (heading.to_owned(), body)
        })
        .collect()
}

#[test]
fn prints_the_tools_then_each_call_and_its_answer() {
    let sections = sections();
    let headings: Vec<&str> = sections
        .iter()
        .map(|(heading, _)| heading.as_str())
        .collect();
    assert_eq!(
        headings,
        [
            "The tools, as an OpenAI chat request carries them",
            r#"create_note {"text": "Buy tea"}"#,
            r#"get_notes {"priority": "normal"}"#,
            r#"get_notes {"limit": "ten"}"#,
            "get_note {}",
            r#"delete_note {"id": 1}"#,
            r#"delete_note {"id": 1, "confirmed": true}"#,
        ]
    );
    // Keys in name order, with or without serde_json's `preserve_order` in the build.
    insta::with_settings!({sort_maps => true}, {
        insta::assert_json_snapshot!("quickstart_tools", sections[0].1);
    });

    let answers: Vec<&Value> = sections[1..].iter().map(|(_, answer)| answer).collect();
    assert_eq!(
        answers,
        [
            &json!({"result": {"id": 1, "text": "Buy tea", "priority": "normal"}}),
            &json!({"result": [{"id": 1, "text": "Buy tea", "priority": "normal"}]}),
            &json!({"error": {
                "kind": "invalid_arguments",
                "problems": [{"path": "limit", "message": "expected a non-negative integer, got the string \"ten\""}],
                "message": "invalid arguments at `limit`: expected a non-negative integer, got the string \"ten\"",
            }}),
            &json!({"error": {
                "kind": "unknown_tool",
                "name": "get_note",
                "suggestion": "get_notes",
                "message": "unknown tool `get_note`; did you mean `get_notes`?",
            }}),
            // A `confirm` tool without `confirmed`: a preview, and nothing deleted.
            &json!({
                "requires_confirmation": true,
                "message": "`delete_note` has not run; call it again with `confirmed: true` to proceed",
                "items": [{"id": 1}],
            }),
            &json!({"result": "deleted note 1"}),
        ]
    );
}
