//! Opaque tokens checked by RFC 7662 introspection against an authorization
//! server no one here wrote: npm `oauth2-mock-server`'s `POST /introspect`
//! (installed by `scripts/oauth_mock_install.sh`), its answers set by
//! `scripts/oauth_introspection_mock.mjs`: the mock's `beforeIntrospect` hook
//! answers what the test says the authorization server knows about the token.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::json;
use toolkit::mcp::auth::{AuthError, IntrospectionVerifier, TokenVerifier as _};

const RESOURCE: &str = "https://mcp.example.com/mcp";

/// The mock server, stopped when dropped.
struct Mock(Child);

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the mock and returns it with its issuer URL; `None` (said) when npm is
/// missing on a developer machine.
fn start() -> Option<(Mock, String)> {
    if Command::new("npm").arg("--version").output().is_err() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI must have npm for the introspection test"
        );
        println!("skipped: npm is not installed, so the introspection test can't run");
        return None;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let install = Command::new("bash")
        .arg(root.join("scripts/oauth_mock_install.sh"))
        .output()
        .expect("bash runs the install script");
    assert!(
        install.status.success(),
        "installing oauth2-mock-server failed: {}",
        String::from_utf8_lossy(&install.stderr)
    );
    // The script prints Node's path, then the packages' folder.
    let printed = String::from_utf8(install.stdout).unwrap();
    let mut lines = printed.lines();
    let node = lines.next().expect("Node's path").to_owned();
    let tools = std::path::PathBuf::from(lines.next().expect("the packages' folder"));
    // The script must sit beside node_modules to import the package.
    let script = tools.join("oauth_introspection_mock.mjs");
    std::fs::copy(root.join("scripts/oauth_introspection_mock.mjs"), &script).unwrap();
    let mut child = Command::new(&node)
        .arg(&script)
        .stdout(Stdio::piped())
        .spawn()
        .expect("node starts");
    let stdout = child.stdout.take().unwrap();
    let mock = Mock(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let issuer = line
        .strip_prefix("issuer ")
        .unwrap_or_else(|| panic!("the mock did not start: {line:?}"))
        .trim()
        .to_owned();
    Some((mock, issuer))
}

/// Tells the mock what it knows about the next token introspected.
async fn answer(issuer: &str, answer: serde_json::Value) {
    let status = reqwest::Client::new()
        .post(format!("{issuer}/test/next-introspection"))
        .json(&answer)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 204);
}

#[tokio::test]
async fn opaque_tokens_are_introspected_at_a_real_authorization_server() {
    let Some((_mock, issuer)) = start() else {
        return;
    };
    let endpoint = format!("{issuer}/introspect");
    let verifier = IntrospectionVerifier::new(&endpoint, RESOURCE)
        .unwrap()
        .client_credentials("toolkit-rs", "rs-secret")
        .issuer(&issuer);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let active = |changes: serde_json::Value| {
        let mut claims = json!({
            "active": true, "sub": "alice", "scope": "mcp external",
            "aud": RESOURCE, "iss": issuer, "exp": now + 300,
        });
        for (key, value) in changes.as_object().unwrap() {
            claims[key] = value.clone();
        }
        claims
    };

    answer(&issuer, active(json!({}))).await;
    let alice = verifier.verify("opaque-alice").await.unwrap();
    assert_eq!(alice.principal.subject(), "alice");
    assert_eq!(alice.scopes, ["mcp", "external"]);
    assert_eq!(alice.claims["iss"], json!(issuer));

    for (known, refusal) in [
        // The mock's own answer: active, but for no audience.
        (json!({}), "the token is not for this resource (`aud`)"),
        (json!({"active": false}), "the token is not active"),
        (active(json!({"exp": now - 3600})), "the token has expired"),
        (
            active(json!({"nbf": now + 3600})),
            "the token is not valid yet (`nbf`)",
        ),
        (
            active(json!({"aud": "https://other.example/mcp"})),
            "the token is not for this resource (`aud`)",
        ),
        (
            active(json!({"iss": "https://evil.example"})),
            "the token is from another issuer",
        ),
    ] {
        answer(&issuer, known.clone()).await;
        assert_eq!(
            verifier.verify("opaque-token").await,
            Err(AuthError::InvalidToken(refusal.to_owned())),
            "{known}"
        );
    }

    // The authorization server refuses a resource server without its
    // credentials: the token is then neither valid nor invalid, the server is
    // unavailable to ask.
    answer(&issuer, active(json!({}))).await;
    let anonymous = IntrospectionVerifier::new(&endpoint, RESOURCE).unwrap();
    let refused = anonymous.verify("opaque-alice").await;
    assert!(
        matches!(refused, Err(AuthError::Unavailable { .. })),
        "{refused:?}"
    );
}
