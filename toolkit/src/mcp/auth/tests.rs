//! The parts of the resource server that need no network: claims, challenges,
//! paths, scope maps. The verifiers against an authorization server are tested in
//! `examples/mcp_server/tests/oauth.rs`.

use serde_json::json;

use super::resource::{metadata_path, quoted, token_in_query};
use super::{AuthError, ScopeMap, VerifiedToken, fetch};
use crate::principal::ClaimsMapping;

fn claims(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("claims are an object: {other}"),
    }
}

#[test]
fn scopes_come_from_scope_or_scp() {
    let token = VerifiedToken::from_claims(
        claims(json!({"iss": "https://i", "sub": "a", "scope": "x  y\tz"})),
        &ClaimsMapping::new(),
        None,
    )
    .unwrap();
    // RFC 6749 §3.3: the ASCII space alone separates scopes; a tab is part of one.
    assert_eq!(token.scopes, ["x", "y\tz"]);
    let token = VerifiedToken::from_claims(
        claims(json!({"iss": "https://i", "sub": "a", "scope": "x\u{a0}y"})),
        &ClaimsMapping::new(),
        None,
    )
    .unwrap();
    assert_eq!(token.scopes, ["x\u{a0}y"]);
    // An array's element is one whole scope.
    let token = VerifiedToken::from_claims(
        claims(json!({"iss": "https://i", "sub": "a", "scp": ["x", "y z", ""]})),
        &ClaimsMapping::new(),
        None,
    )
    .unwrap();
    assert_eq!(token.scopes, ["x", "y z"]);
    let token = VerifiedToken::from_claims(
        claims(json!({"iss": "https://i", "sub": "a", "scope": 7})),
        &ClaimsMapping::new(),
        None,
    )
    .unwrap();
    assert!(token.scopes.is_empty());
}

#[test]
fn a_token_without_a_subject_is_refused() {
    for claims_without in [
        json!({"iss": "https://i"}),
        json!({"iss": "https://i", "sub": ""}),
        json!({"iss": "https://i", "sub": 12}),
    ] {
        assert_eq!(
            VerifiedToken::from_claims(claims(claims_without), &ClaimsMapping::new(), None),
            Err(AuthError::InvalidToken(
                "the token has no subject (`sub`)".to_owned()
            ))
        );
    }
}

#[test]
fn the_metadata_path_inserts_the_well_known_prefix() {
    assert_eq!(
        metadata_path("https://tools.example.com/mcp").unwrap(),
        "/.well-known/oauth-protected-resource/mcp"
    );
    assert_eq!(
        metadata_path("https://tools.example.com/a/b/").unwrap(),
        "/.well-known/oauth-protected-resource/a/b"
    );
    assert_eq!(
        metadata_path("https://tools.example.com").unwrap(),
        "/.well-known/oauth-protected-resource"
    );
}

#[test]
fn challenge_text_cannot_break_out_of_its_quotes() {
    assert_eq!(quoted(r#"say "hi" \ bye"#), "say  hi    bye");
    assert_eq!(quoted("line\r\nbreak é"), "line  break  ");
}

#[test]
fn a_token_in_the_query_string_is_seen_in_any_spelling() {
    assert!(token_in_query(Some("access_token=abc")));
    assert!(token_in_query(Some("a=1&ACCESS_TOKEN=abc")));
    assert!(token_in_query(Some("access%5Ftoken=abc")));
    assert!(token_in_query(Some("access_token")));
    assert!(!token_in_query(Some("token=abc&x=access_token")));
    assert!(!token_in_query(None));
}

#[test]
fn client_credentials_are_form_encoded() {
    assert_eq!(fetch::form_encode("a b:c/é"), "a+b%3Ac%2F%C3%A9");
    assert_eq!(fetch::form_encode("Az09-._*"), "Az09-._*");
}

#[test]
fn plain_http_is_for_loopback_only() {
    assert!(fetch::check_url("http://127.0.0.1:9/jwks").is_ok());
    assert!(fetch::check_url("http://[::1]:9/jwks").is_ok());
    assert!(fetch::check_url("http://localhost/jwks").is_ok());
    assert!(fetch::check_url("https://auth.example/jwks").is_ok());
    assert!(fetch::check_url("http://auth.example/jwks").is_err());
    assert!(fetch::check_url("http://127.0.0.1.evil.example/jwks").is_err());
    assert!(fetch::check_url("file:///etc/passwd").is_err());
}

#[test]
fn a_scope_map_can_read_another_claim() {
    let mut token = VerifiedToken::new(crate::principal::Principal::local("a").unwrap(), ["tasks"]);
    token
        .claims
        .insert("roles".to_owned(), json!(["admin", "ops"]));
    let map = ScopeMap::new()
        .claim("roles")
        .scope("ops", ["@ops"])
        .scope("admin", ["@admin", "@ops"])
        .scope("tasks", ["@tasks"]);
    // Rule order, no repeats; the scopes are not read.
    assert_eq!(map.entries(&token), ["@ops", "@admin"]);
    token.claims.insert("roles".to_owned(), json!("ops  guest"));
    assert_eq!(map.entries(&token), ["@ops"]);
    token.claims.remove("roles");
    assert!(map.entries(&token).is_empty());
}
