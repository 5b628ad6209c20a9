use serde_json::json;

use super::cards::{approval_card, content_security_policy, preview_card, scripts, style};
use super::*;

/// The field names and values SEP-1865 gives (`_meta.ui.resourceUri`,
/// `visibility: ["model" | "app"]`), both ways.
#[test]
fn tool_ui_is_written_as_the_extension_names_it() {
    assert_eq!(
        serde_json::to_value(ToolUi::card("ui://a/b")).unwrap(),
        json!({"resourceUri": "ui://a/b"})
    );
    assert_eq!(
        serde_json::to_value(ToolUi::app_only("ui://a/b")).unwrap(),
        json!({"resourceUri": "ui://a/b", "visibility": ["app"]})
    );
    let read: ToolUi = serde_json::from_value(
        json!({"resourceUri": "ui://weather-server/dashboard-template", "visibility": ["model", "app"]}),
    )
    .unwrap();
    assert!(read.is_for_model());
    assert!(!ToolUi::app_only("ui://a/b").is_for_model());
    assert!(ToolUi::card("ui://a/b").is_for_model());
    assert_eq!(
        serde_json::to_value(ResourceUi {
            csp: Some(ResourceCsp::default()),
            prefers_border: Some(true),
        })
        .unwrap(),
        json!({"csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}, "prefersBorder": true})
    );
}

#[test]
fn only_a_client_declaring_the_html_profile_has_apps() {
    let capabilities = |value: serde_json::Value| -> rmcp::model::ClientCapabilities {
        serde_json::from_value(value).unwrap()
    };
    assert!(client_supports(&capabilities(
        json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}})
    )));
    assert!(!client_supports(&capabilities(json!({}))));
    assert!(!client_supports(&capabilities(
        json!({"extensions": {EXTENSION: {}}})
    )));
    assert!(!client_supports(&capabilities(
        json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html"]}}})
    )));
    assert!(!client_supports(&capabilities(
        json!({"extensions": {"io.modelcontextprotocol/apps": {"mimeTypes": [MIME_TYPE]}}})
    )));
}

#[test]
fn the_inbox_link_names_the_call_encoded() {
    let apps = Apps::new().inbox("https://inbox.example/inbox/");
    assert_eq!(
        apps.inbox_link("user:<ann>&", "call 1#x").as_deref(),
        Some("https://inbox.example/inbox/?principal=user%3A%3Cann%3E%26&call_id=call+1%23x")
    );
    let with_query = Apps::new().inbox("https://inbox.example/?tenant=7");
    assert_eq!(
        with_query.inbox_link("a", "b").as_deref(),
        Some("https://inbox.example/?tenant=7&principal=a&call_id=b")
    );
    assert_eq!(Apps::new().inbox_link("a", "b"), None);
}

/// Each card: one inline style and one inline script, which its own policy
/// allows by hash and nothing else; no outside address anywhere; no way for a
/// call's text to become HTML (only `textContent` and text nodes write it).
#[test]
fn the_cards_allow_only_their_own_script_and_style() {
    let [preview_script, approval_script] = scripts();
    for (card, script) in [
        (preview_card(), preview_script),
        (approval_card(), approval_script),
    ] {
        let html = &*card.html;
        let policy = content_security_policy(&script);
        assert!(
            policy.starts_with("default-src 'none'; script-src 'sha256-"),
            "{policy}"
        );
        assert!(!policy.contains("unsafe"), "{policy}");
        assert!(
            html.contains(&format!(
                "<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">"
            )),
            "{html}"
        );
        assert!(html.contains(&format!("<script>{script}</script>")));
        assert!(html.contains(&format!("<style>{}</style>", style())));
        assert_eq!(html.matches("<script").count(), 1);
        assert_eq!(html.matches("<style").count(), 1);
        for sink in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "Function(",
            "http://",
            "https://",
            " src=",
            "href=",
            "@import",
            "url(",
        ] {
            assert!(!html.contains(sink), "{} contains {sink}", card.uri);
        }
        assert!(html.starts_with("<!DOCTYPE html><html lang=\"en\">"));
        assert!(
            html.contains(
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            )
        );
    }
    assert!(preview_card().html.contains("\"toolkit_confirm_preview\""));
    assert!(approval_card().html.contains("\"toolkit_approval_status\""));
    assert!(approval_card().html.contains("\"ui/open-link\""));
}

/// The policy's hash is the one a browser computes for the script's text (the
/// SHA-256 of its UTF-8 bytes, in standard base64): checked against a digest
/// computed apart from the card code.
#[test]
fn the_policy_hash_is_the_scripts_sha256() {
    use base64::Engine as _;
    use sha2::Digest as _;
    let [script, _] = scripts();
    let expected =
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(script.as_bytes()));
    assert!(content_security_policy(&script).contains(&format!("'sha256-{expected}'")));
    // A script changed by one character is not allowed by the policy.
    let changed = script.replacen("let", "var", 1);
    assert!(!content_security_policy(&script).contains(&{
        let digest = base64::engine::general_purpose::STANDARD
            .encode(sha2::Sha256::digest(changed.as_bytes()));
        format!("'sha256-{digest}'")
    }));
}
