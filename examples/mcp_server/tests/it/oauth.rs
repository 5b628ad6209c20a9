//! The OAuth mode against an authorization server of the test's own (discovery,
//! a JWKS whose fetches are counted, tokens signed with RSA keys): valid tokens
//! get the view their scopes choose, and every hostile token is refused with the
//! right status before anything is listed or run.

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use base64::Engine as _;
use common::{EXTERNAL_TOOLS, call, text};
use example_assistant::AssistantState;
use example_mcp_server::{OAUTH_SCOPES, Settings, oauth_router};
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rmcp::model::{
    CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, GetTaskParams, Implementation, ProtocolVersion,
    UpdateTaskParams,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _, ErrorData, RoleClient};
use serde_json::{Value, json};
use toolkit::mcp::auth::{AuthError, JwtVerifier, ResourceServer, TokenVerifier as _};
use toolkit_test_support::oauth::{
    self, ISSUER_KEY, Issuer, claims, issuer, jwk, metadata_url, now, sign,
};

const ATTACKER_KEY: &[u8] =
    include_bytes!("../../../../toolkit/src/mcp/auth/testdata/attacker.der");
const ISSUER_PUBLIC_PEM: &[u8] =
    include_bytes!("../../../../toolkit/src/mcp/auth/testdata/issuer.pub.pem");
/// A 1024-bit RSA key: too short to verify anything.
const WEAK_KEY: &[u8] = include_bytes!("../../../../toolkit/src/mcp/auth/testdata/weak1024.der");

/// A token signed with the issuer's key under `header` (any JSON, including
/// parameters jsonwebtoken's `Header` does not model).
fn sign_with_header(header: &Value, claims: &Value) -> String {
    let message = format!(
        "{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    let signature = jsonwebtoken::crypto::sign(
        message.as_bytes(),
        &EncodingKey::from_rsa_der(ISSUER_KEY),
        Algorithm::RS256,
    )
    .unwrap();
    format!("{message}.{signature}")
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The example server in OAuth mode on a free loopback port: its `/mcp` URL and
/// its stores.
async fn serve(issuer: &Issuer) -> (String, AssistantState) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let auth = example_mcp_server::oauth_resource_server(&issuer.url, &resource)
        .await
        .unwrap();
    let state = AssistantState::new();
    let router = oauth_router(state.clone(), Settings::ephemeral().unwrap(), auth);
    tokio::spawn(async move { axum::serve(listener, router).await });
    (resource, state)
}

/// A client whose user would accept approvals (the test answers them itself).
#[derive(Clone)]
struct User;

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("oauth-test", "0.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept))
    }
}

async fn connect(resource: &str, token: &str) -> RunningService<RoleClient, User> {
    let config =
        StreamableHttpClientTransportConfig::with_uri(resource.to_owned()).auth_header(token);
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    User.serve_with_lifecycle(
        StreamableHttpClientTransport::from_config(config),
        lifecycle,
    )
    .await
    .unwrap()
}

/// A raw `tools/call` of `create_tasks` (a tool with an effect) with `token`:
/// the status, the `WWW-Authenticate` header and the body.
async fn raw_call(url: &str, token: Option<&str>) -> (u16, String, String) {
    oauth::raw_call(
        url,
        token,
        "create_tasks",
        json!({"tasks": [{"title": "pwned"}]}),
    )
    .await
}

fn invalid(resource: &str, reason: &str) -> (u16, String, String) {
    (
        401,
        format!(
            "Bearer error=\"invalid_token\", error_description=\"{reason}\", resource_metadata=\"{}\"",
            metadata_url(resource)
        ),
        format!("invalid token: {reason}"),
    )
}

#[tokio::test]
async fn the_metadata_names_the_resource_its_issuer_and_scopes() {
    let issuer = issuer().await;
    let (resource, _) = serve(&issuer).await;
    let expected = json!({
        "resource": resource,
        "authorization_servers": [issuer.url],
        "scopes_supported": OAUTH_SCOPES,
        "bearer_methods_supported": ["header"],
        "resource_name": "toolkit example MCP server",
    });
    for url in [
        metadata_url(&resource),
        resource.replace("/mcp", "/.well-known/oauth-protected-resource"),
    ] {
        let response = reqwest::get(&url).await.unwrap();
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(response.headers()["content-type"], "application/json");
        let document: Value = response.json().await.unwrap();
        assert_eq!(document, expected, "{url}");
    }
}

#[tokio::test]
async fn scopes_choose_the_view_and_the_subject_is_the_principal() {
    let issuer = issuer().await;
    let (resource, _) = serve(&issuer).await;
    let external = sign(
        ISSUER_KEY,
        "issuer-1",
        &claims(&issuer, &resource, "ext-app", "mcp external"),
    );
    let client = connect(&resource, &external).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| &*tool.name).collect();
    assert_eq!(names, EXTERNAL_TOOLS);
    // Outside the view is the same as nonexistent, under any name.
    for name in ["delete_memories", "get_memories", "DELETE_MEMORIES"] {
        let refused = client
            .call_tool(call(name, json!({"ids": [1]})))
            .await
            .unwrap();
        assert_eq!(refused.is_error, Some(true), "{name}");
        assert!(
            text(&refused).starts_with(&format!("unknown tool `{name}`")),
            "{}",
            text(&refused)
        );
    }
    let created = client
        .call_tool(call(
            "create_tasks",
            json!({"tasks": [{"title": "file the report"}]}),
        ))
        .await
        .unwrap();
    assert_eq!(created.is_error, Some(false), "{created:?}");

    let internal = sign(
        ISSUER_KEY,
        "issuer-1",
        &claims(&issuer, &resource, "alice", "mcp internal"),
    );
    let client = connect(&resource, &internal).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 23);

    // The door's scope alone opens an empty view.
    let bare = sign(
        ISSUER_KEY,
        "issuer-1",
        &claims(&issuer, &resource, "carol", "mcp"),
    );
    let client = connect(&resource, &bare).await;
    assert!(client.list_all_tools().await.unwrap().is_empty());
    let refused = client
        .call_tool(call("get_tasks", json!({})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn every_hostile_token_is_refused_before_anything_is_listed_or_run() {
    let issuer = issuer().await;
    let (resource, state) = serve(&issuer).await;
    let before = state.snapshot();
    let good = claims(&issuer, &resource, "alice", "mcp internal");
    let with = |changes: Value| {
        let mut claims = good.clone();
        for (name, value) in changes.as_object().unwrap() {
            if value.is_null() {
                claims.as_object_mut().unwrap().remove(name);
            } else {
                claims[name] = value.clone();
            }
        }
        claims
    };
    let valid = sign(ISSUER_KEY, "issuer-1", &good);
    let [header, payload, signature]: [&str; 3] =
        valid.split('.').collect::<Vec<_>>().try_into().unwrap();
    let none = format!(
        "{}.{}.",
        b64(br#"{"alg":"none","typ":"JWT","kid":"issuer-1"}"#),
        b64(good.to_string().as_bytes())
    );
    let hs256 = {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("issuer-1".to_owned());
        jsonwebtoken::encode(&header, &good, &EncodingKey::from_secret(ISSUER_PUBLIC_PEM)).unwrap()
    };
    let tampered_payload = format!(
        "{header}.{}.{signature}",
        b64(with(json!({"sub": "root"})).to_string().as_bytes())
    );
    let tampered_header = format!(
        "{}.{payload}.{signature}",
        b64(br#"{"alg":"RS512","typ":"JWT","kid":"issuer-1"}"#)
    );

    let cases: Vec<(&str, String, String)> = vec![
        (
            "expired",
            sign(ISSUER_KEY, "issuer-1", &with(json!({"exp": now() - 120}))),
            "the token has expired".into(),
        ),
        (
            "not yet valid",
            sign(ISSUER_KEY, "issuer-1", &with(json!({"nbf": now() + 120}))),
            "the token is not valid yet (`nbf`)".into(),
        ),
        (
            "wrong issuer",
            sign(
                ISSUER_KEY,
                "issuer-1",
                &with(json!({"iss": "https://evil.example"})),
            ),
            "the token is from another issuer".into(),
        ),
        (
            "wrong audience",
            sign(
                ISSUER_KEY,
                "issuer-1",
                &with(json!({"aud": "https://other.example/mcp"})),
            ),
            "the token is not for this resource (`aud`)".into(),
        ),
        (
            "no audience",
            sign(ISSUER_KEY, "issuer-1", &with(json!({"aud": null}))),
            "the token has no `aud` claim".into(),
        ),
        (
            "no subject",
            sign(ISSUER_KEY, "issuer-1", &with(json!({"sub": null}))),
            "the token has no `sub` claim".into(),
        ),
        (
            "alg none",
            none,
            "the token header is malformed or names an unknown algorithm".into(),
        ),
        (
            "HS256 with the public key",
            hs256,
            "the signing algorithm HS256 is not accepted".into(),
        ),
        (
            "unknown kid",
            sign(ATTACKER_KEY, "attacker-1", &good),
            "the token's key id (`kid`) is not one of the issuer's keys".into(),
        ),
        (
            "another key under the issuer's kid",
            sign(ATTACKER_KEY, "issuer-1", &good),
            "the signature does not verify".into(),
        ),
        (
            "tampered payload",
            tampered_payload,
            "the signature does not verify".into(),
        ),
        (
            "tampered header",
            tampered_header,
            "the signing algorithm RS512 does not match the key".into(),
        ),
        (
            "truncated",
            valid[..valid.len() - 21].to_owned(),
            "the token is malformed".into(),
        ),
        (
            "two parts",
            format!("{header}.{payload}"),
            "the token header is malformed or names an unknown algorithm".into(),
        ),
        (
            "a critical header parameter",
            sign_with_header(
                &json!({"alg": "RS256", "typ": "JWT", "kid": "issuer-1",
                    "crit": ["exp-policy"], "exp-policy": "lenient"}),
                &good,
            ),
            "the token header names critical parameters (`crit`) this server does not understand"
                .into(),
        ),
        (
            "an unencoded payload",
            sign_with_header(
                &json!({"alg": "RS256", "typ": "JWT", "kid": "issuer-1", "b64": false}),
                &good,
            ),
            "the token header asks for an unencoded payload (`b64`), which is not accepted".into(),
        ),
        (
            "an array of issuers",
            sign(
                ISSUER_KEY,
                "issuer-1",
                &with(json!({"iss": [issuer.url, "https://evil.example"]})),
            ),
            "the token is from another issuer".into(),
        ),
    ];
    let count = cases.len();
    for (name, token, reason) in cases {
        let answer = raw_call(&resource, Some(&token)).await;
        assert_eq!(answer, invalid(&resource, &reason), "{name}");
    }

    // No token: the challenge points at the metadata.
    let answer = raw_call(&resource, None).await;
    assert_eq!(
        answer,
        (
            401,
            format!("Bearer resource_metadata=\"{}\"", metadata_url(&resource)),
            "a bearer access token is required".to_owned()
        )
    );
    // A token in the query string is refused, even a valid one.
    let answer = raw_call(&format!("{resource}?access_token={valid}"), None).await;
    assert_eq!(
        answer,
        (
            400,
            format!(
                "Bearer error=\"invalid_request\", error_description=\"access tokens are accepted in the Authorization header only\", resource_metadata=\"{}\"",
                metadata_url(&resource)
            ),
            "access tokens are accepted in the Authorization header only".to_owned()
        )
    );
    // A valid token without the door's scope.
    let unscoped = sign(ISSUER_KEY, "issuer-1", &with(json!({"scope": "internal"})));
    let answer = raw_call(&resource, Some(&unscoped)).await;
    assert_eq!(
        answer,
        (
            403,
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"mcp\", error_description=\"the token lacks the scope mcp\", resource_metadata=\"{}\"",
                metadata_url(&resource)
            ),
            "the token lacks the scope mcp".to_owned()
        )
    );
    // Scopes are split on the ASCII space alone (RFC 6749 §3.3), and an array's
    // element is one scope: none of these carries `mcp`, nor opens `internal`.
    for scopes in [
        json!({"scope": "mcp\u{a0}internal"}),
        json!({"scope": "mcp\tinternal"}),
        json!({"scope": null, "scp": ["mcp internal"]}),
    ] {
        let token = sign(ISSUER_KEY, "issuer-1", &with(scopes.clone()));
        let (status, _, body) = raw_call(&resource, Some(&token)).await;
        assert_eq!(
            (status, body.as_str()),
            (403, "the token lacks the scope mcp"),
            "{scopes}"
        );
    }
    // Two Authorization headers are no token, even when the first is valid.
    let response = reqwest::Client::new()
        .post(&resource)
        .header("authorization", format!("Bearer {valid}"))
        .header("authorization", "Bearer forged")
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(
        response.text().await.unwrap(),
        "a bearer access token is required"
    );
    println!("hostile tokens refused: {}", count + 7);
    // Nothing ran: the stores are as they were. The one valid token (the
    // control) then does run, so the raw request would have had an effect.
    assert_eq!(state.snapshot(), before);
    let (status, _, body) = raw_call(&resource, Some(&valid)).await;
    assert_eq!(status, 200, "{body}");
    assert_ne!(state.snapshot(), before);
    // One fetch for the first token; the unknown kid came within the refetch
    // interval, so it made none.
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn one_principals_pending_approval_is_refused_to_another() {
    let issuer = issuer().await;
    let (resource, state) = serve(&issuer).await;
    let token = |subject: &str| {
        sign(
            ISSUER_KEY,
            "issuer-1",
            &claims(&issuer, &resource, subject, "mcp internal"),
        )
    };
    let alice = connect(&resource, &token("alice")).await;
    let created = alice
        .call_tool(call(
            "create_memories",
            json!({"memories": [{"content": "Ada takes her tea black"}]}),
        ))
        .await
        .unwrap();
    assert_eq!(created.is_error, Some(false), "{created:?}");
    let forget = call("delete_memories", json!({"ids": [1]}));
    let CallToolResponse::InputRequired(input) =
        alice.call_tool_once(forget.clone()).await.unwrap()
    else {
        panic!("an approve tool asks first");
    };
    let mut retry = forget;
    retry.request_state.clone_from(&input.request_state);
    retry.input_responses = Some(BTreeMap::from([(
        "approval".to_owned(),
        json!({"action": "accept"}),
    )]));

    let mallory = connect(&resource, &token("mallory")).await;
    let refused = mallory.call_tool_once(retry.clone()).await.unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("the requestState is not valid here"),
        "{refused}"
    );
    let kept = alice
        .call_tool(call("get_memories", json!({"id": 1})))
        .await
        .unwrap();
    assert_eq!(kept.is_error, Some(false), "{kept:?}");
    assert!(state.snapshot().contains("Ada takes her tea black"));
    // Alice's own answer runs it.
    let CallToolResponse::Complete(done) = alice.call_tool_once(retry).await.unwrap() else {
        panic!("the retry completes");
    };
    assert_eq!(done.is_error, Some(false), "{done:?}");
    let gone = alice
        .call_tool(call("get_memories", json!({"id": 1})))
        .await
        .unwrap();
    assert_eq!(text(&gone), "no memory with id 1");
}

#[tokio::test]
async fn a_flood_of_unknown_kids_is_one_jwks_fetch() {
    let issuer = issuer().await;
    let resource = "https://tools.example/mcp";
    let interval = Duration::from_secs(1);
    let verifier = JwtVerifier::builder(&issuer.url, resource)
        .min_refresh_interval(interval)
        .discover()
        .await
        .unwrap();
    let verifier = Arc::new(verifier);
    let good = claims(&issuer, resource, "alice", "mcp");
    // The key is looked up before the signature is checked, so the flood's
    // signatures need not be real (and RSA signing is slow in a debug build).
    let payload = b64(good.to_string().as_bytes());
    let floods: Vec<Vec<String>> = (0..3)
        .map(|round| {
            (0..200)
                .map(|n| {
                    let header = json!({"alg": "RS256", "typ": "JWT", "kid": format!("made-up-{round}-{n}")});
                    format!("{}.{payload}.{}", b64(header.to_string().as_bytes()), b64(&[7; 256]))
                })
                .collect()
        })
        .collect();
    let alice = verifier
        .verify(&sign(ISSUER_KEY, "issuer-1", &good))
        .await
        .unwrap();
    assert_eq!(alice.principal.subject(), "alice");
    assert_eq!(alice.scopes, ["mcp"]);
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1);

    let flood = |round: usize| {
        let mut flood = tokio::task::JoinSet::new();
        for token in floods[round].clone() {
            let verifier = Arc::clone(&verifier);
            flood.spawn(async move { verifier.verify(&token).await });
        }
        flood
    };
    // Within the interval after the first fetch: no fetch at all.
    let mut within = flood(0);
    while let Some(outcome) = within.join_next().await {
        assert_eq!(
            outcome.unwrap(),
            Err(AuthError::InvalidToken(
                "the token's key id (`kid`) is not one of the issuer's keys".to_owned()
            ))
        );
    }
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1);
    // After it: 200 concurrent unknown kids are one fetch, and so are the next 200.
    tokio::time::sleep(interval + Duration::from_millis(50)).await;
    for round in 1..=2 {
        let mut after = flood(round);
        while let Some(outcome) = after.join_next().await {
            assert!(outcome.unwrap().is_err());
        }
        assert_eq!(issuer.fetches.load(Ordering::SeqCst), 2, "round {round}");
    }
    assert_eq!(verifier.jwks_fetches(), 2);
    // The known key still works, from the cache.
    verifier
        .verify(&sign(ISSUER_KEY, "issuer-1", &good))
        .await
        .unwrap();
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 2);
}

/// A JWKS the issuer cannot serve is the issuer's outage, not the token's
/// fault: `503`, never `invalid_token`, on every request until the issuer is
/// back, and its keys are used at the first fetch after the back-off (1 s after
/// one failure).
#[tokio::test]
async fn a_failed_jwks_fetch_is_unavailable_and_recovery_is_used_after_the_back_off() {
    let issuer = issuer().await;
    let (resource, _) = serve(&issuer).await;
    let good = claims(&issuer, &resource, "alice", "mcp internal");
    let valid = sign(ISSUER_KEY, "issuer-1", &good);
    let unavailable = |body: &str| {
        assert_eq!(body, "the access token could not be checked; try again");
    };
    // Down from the first request: no keys cached.
    issuer.failing.store(true, Ordering::SeqCst);
    for _ in 0..3 {
        let (status, challenge, body) = raw_call(&resource, Some(&valid)).await;
        assert_eq!(status, 503, "{body}");
        assert!(!challenge.contains("invalid_token"), "{challenge}");
        unavailable(&body);
    }
    // One fetch failed; the other requests were told without one.
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1);
    // Back: within the back-off still `503`; after it (1 s, not the 30 s of
    // the refetch interval) served.
    issuer.failing.store(false, Ordering::SeqCst);
    let (status, _, body) = raw_call(&resource, Some(&valid)).await;
    assert_eq!(status, 503, "{body}");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, _, body) = raw_call(&resource, Some(&valid)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 2);
    // Once keys are cached, an outage leaves their tokens served.
    issuer.failing.store(true, Ordering::SeqCst);
    let (status, _, body) = raw_call(&resource, Some(&valid)).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_rotated_key_is_fetched_once_its_kid_appears() {
    let issuer = issuer().await;
    let resource = "https://tools.example/mcp";
    let verifier = JwtVerifier::builder(&issuer.url, resource)
        .jwks_uri(format!("{}/jwks", issuer.url))
        .min_refresh_interval(Duration::from_millis(50))
        .build()
        .unwrap();
    let good = claims(&issuer, resource, "alice", "mcp");
    verifier
        .verify(&sign(ISSUER_KEY, "issuer-1", &good))
        .await
        .unwrap();
    // The issuer rotates to a new key.
    issuer
        .jwks
        .write()
        .unwrap()
        .keys
        .push(jwk(ATTACKER_KEY, "issuer-2"));
    tokio::time::sleep(Duration::from_millis(60)).await;
    let rotated = verifier
        .verify(&sign(ATTACKER_KEY, "issuer-2", &good))
        .await
        .unwrap();
    assert_eq!(rotated.principal.subject(), "alice");
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn discovery_refuses_metadata_naming_another_issuer() {
    let issuer = issuer().await;
    let claimed = issuer.url.replace("127.0.0.1", "localhost");
    let refused = JwtVerifier::discover(&claimed, "https://tools.example/mcp")
        .await
        .unwrap_err();
    let AuthError::Unavailable { message, .. } = &refused else {
        panic!("{refused:?}");
    };
    assert!(message.contains("is for issuer"), "{message}");
}

/// An issuer that cannot be reached is unavailable, and the refusal keeps the HTTP
/// client's error as its cause, to downcast, with its words still in the message.
#[tokio::test]
async fn an_unreachable_issuer_keeps_the_http_clients_error() {
    // Nothing listens on the port a closed socket had.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .unwrap()
        .port();
    let refused = JwtVerifier::discover(
        &format!("http://127.0.0.1:{port}"),
        "https://tools.example/mcp",
    )
    .await
    .unwrap_err();
    let AuthError::Unavailable { message, .. } = &refused else {
        panic!("{refused:?}");
    };
    let cause = std::error::Error::source(&refused)
        .and_then(|cause| cause.downcast_ref::<reqwest::Error>())
        .unwrap_or_else(|| panic!("no reqwest::Error as the cause of {refused:?}"));
    assert!(cause.is_connect(), "{cause:?}");
    assert_eq!(
        message,
        &format!(
            "http://127.0.0.1:{port}/.well-known/openid-configuration could not be reached: \
             {cause}"
        )
    );
}

#[tokio::test]
async fn a_verifier_never_allows_hmac() {
    let refused = JwtVerifier::builder("https://auth.example", "https://tools.example/mcp")
        .jwks_uri("https://auth.example/jwks")
        .algorithms([Algorithm::RS256, Algorithm::HS256])
        .build()
        .unwrap_err();
    assert_eq!(
        refused,
        AuthError::Config(
            "HS256 is an HMAC algorithm: a resource server verifies with public keys only"
                .to_owned()
        )
    );
    let refused = JwtVerifier::builder("https://auth.example", "https://tools.example/mcp")
        .jwks_uri("http://auth.example/jwks")
        .build()
        .unwrap_err();
    assert_eq!(
        refused,
        AuthError::Config(
            "`http://auth.example/jwks` must be an https URL (plain http is accepted for loopback hosts only)".to_owned()
        )
    );
    let _ = ResourceServer::new(
        "not a url",
        JwtVerifier::builder("a", "b")
            .jwks(JwkSet { keys: vec![] })
            .build()
            .unwrap(),
    )
    .unwrap_err();
}

#[tokio::test]
async fn the_resource_url_s_host_is_accepted_beside_loopback_and_no_other() {
    use tower::ServiceExt as _;
    let issuer = issuer().await;
    // Deployed under a name: clients send `Host: tools.example.test`, which the
    // example's command line never listed.
    let resource = "https://tools.example.test/mcp";
    let auth = example_mcp_server::oauth_resource_server(&issuer.url, resource)
        .await
        .unwrap();
    let router = oauth_router(AssistantState::new(), Settings::ephemeral().unwrap(), auth);
    let token = sign(
        ISSUER_KEY,
        "issuer-1",
        &claims(&issuer, resource, "ext-app", "mcp external"),
    );
    let mut seen = Vec::new();
    for host in [
        "tools.example.test",
        "localhost:8080",
        "evil.example",
        "tools.example.test.evil.example",
    ] {
        let request = common::list_request("/mcp", host, &token);
        let response = router.clone().oneshot(request).await.unwrap();
        seen.push((host, response.status().as_u16()));
    }
    assert_eq!(
        seen,
        [
            ("tools.example.test", 200),
            ("localhost:8080", 200),
            ("evil.example", 403),
            ("tools.example.test.evil.example", 403),
        ]
    );
}

/// A client of the same user that declares the MCP Tasks extension.
#[derive(Clone)]
struct TaskUser;

impl ClientHandler for TaskUser {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder()
                .enable_elicitation()
                .enable_tasks()
                .build(),
            Implementation::new("oauth-task-test", "0.0.0"),
        )
    }
}

/// Task `id`'s status as `client` is told, or the error it gets.
async fn task_status(
    client: &RunningService<RoleClient, TaskUser>,
    id: &str,
) -> Result<rmcp::model::TaskStatus, String> {
    client
        .get_task(GetTaskParams::new(id))
        .await
        .map(|task| task.task.status())
        .map_err(|error| error.to_string())
}

async fn connect_tasks(resource: &str, token: &str) -> RunningService<RoleClient, TaskUser> {
    let config =
        StreamableHttpClientTransportConfig::with_uri(resource.to_owned()).auth_header(token);
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    TaskUser
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            lifecycle,
        )
        .await
        .unwrap()
}

/// Authority is the view a token earns, never its subject alone: a token of the
/// same user whose scopes open no tool (`mcp` alone) reads none of that user's
/// tasks, withdraws none, and records no answer for a tool its view cannot
/// call, whether by `tasks/update` or by presenting the call's `requestState`.
#[tokio::test]
async fn a_narrower_token_of_the_same_user_reaches_none_of_its_calls() {
    let issuer = issuer().await;
    let (resource, state) = serve(&issuer).await;
    let token = |scope: &str| {
        sign(
            ISSUER_KEY,
            "issuer-1",
            &claims(&issuer, &resource, "ada", scope),
        )
    };
    let full = connect_tasks(&resource, &token("mcp internal")).await;
    let created = full
        .call_tool(call(
            "create_memories",
            json!({"memories": [{"content": "Ada takes her tea black"}]}),
        ))
        .await
        .unwrap();
    assert_eq!(created.is_error, Some(false), "{created:?}");
    let CallToolResponse::Task(task) = full
        .call_tool_once(call("delete_memories", json!({"ids": [1]})))
        .await
        .unwrap()
    else {
        panic!("a client with tasks gets a task");
    };
    let id = task.task.task_id.clone();
    let waiting = task_status(&full, &id)
        .await
        .expect("the owner's view reaches it");

    let narrow = connect_tasks(&resource, &token("mcp")).await;
    assert_eq!(
        task_status(&narrow, &id).await,
        Err(format!("Mcp error: -32602: no task `{id}` here")),
        "a view without the tool learns nothing of the call"
    );
    assert_eq!(
        narrow
            .cancel_task(CancelTaskParams::new(&id))
            .await
            .map_err(|error| error.to_string()),
        Err(format!("Mcp error: -32602: no task `{id}` here")),
        "refused like a task that does not exist"
    );
    let answered = narrow
        .update_task(UpdateTaskParams::new(
            &id,
            BTreeMap::from([("approval".to_owned(), json!({"action": "accept"}))]),
        ))
        .await
        .map_err(|error| error.to_string());
    assert_eq!(
        answered,
        Err(format!("Mcp error: -32602: no task `{id}` here")),
        "answered like a task that does not exist"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        task_status(&full, &id).await,
        Ok(waiting),
        "neither withdrawn nor answered"
    );
    assert!(state.snapshot().contains("Ada takes her tea black"));
}

/// The issuer's JWKS and verifier for `resource`, with fixed keys (`keys`).
fn fixed_verifier(issuer: &Issuer, resource: &str, keys: JwkSet) -> JwtVerifier {
    JwtVerifier::builder(&issuer.url, resource)
        .jwks(keys)
        .build()
        .unwrap()
}

/// RFC 9068 §4: a JWT of another type is refused, though the issuer signed it
/// for this resource with its access tokens' key: logout tokens, security event
/// tokens and `DPoP` proofs carry `iss`, `aud` and `sub` too. An access token's
/// types, in any case, and no `typ` at all, are accepted.
#[tokio::test]
async fn a_token_of_another_type_than_an_access_token_is_refused() {
    let issuer = issuer().await;
    let resource = "https://tools.example/mcp";
    let verifier = fixed_verifier(
        &issuer,
        resource,
        JwkSet {
            keys: vec![jwk(ISSUER_KEY, "issuer-1")],
        },
    );
    let good = claims(&issuer, resource, "alice", "mcp");
    let typed = |typ: Option<&str>| {
        let mut header = json!({"alg": "RS256", "kid": "issuer-1"});
        if let Some(typ) = typ {
            header["typ"] = json!(typ);
        }
        sign_with_header(&header, &good)
    };
    for typ in [
        "logout+jwt",
        "secevent+jwt",
        "dpop+jwt",
        "application/logout+jwt",
        "at+jwt-but-not",
        "",
    ] {
        assert_eq!(
            verifier.verify(&typed(Some(typ))).await,
            Err(AuthError::InvalidToken(
                "the token's type (`typ`) is not an access token's (`at+jwt`)".to_owned()
            )),
            "{typ}"
        );
    }
    for typ in [
        Some("at+jwt"),
        Some("AT+JWT"),
        Some("application/at+jwt"),
        Some("Application/AT+JWT"),
        Some("JWT"),
        Some("jwt"),
        None,
    ] {
        let accepted = verifier.verify(&typed(typ)).await;
        assert_eq!(
            accepted.map(|token| token.principal.subject().to_owned()),
            Ok("alice".to_owned()),
            "{typ:?}"
        );
    }
    // Over HTTP: a logout token is `401 invalid_token`, and nothing runs.
    let (resource, state) = serve(&issuer).await;
    let before = state.snapshot();
    let logout = sign_with_header(
        &json!({"alg": "RS256", "typ": "logout+jwt", "kid": "issuer-1"}),
        &claims(&issuer, &resource, "alice", "mcp internal"),
    );
    assert_eq!(
        raw_call(&resource, Some(&logout)).await,
        invalid(
            &resource,
            "the token's type (`typ`) is not an access token's (`at+jwt`)"
        )
    );
    assert_eq!(state.snapshot(), before);
}

/// The warnings logged while `work` runs on this thread: each as its message and
/// fields, `key=value` separated by spaces.
async fn warnings_of<T>(work: impl Future<Output = T>) -> (T, Vec<String>) {
    use tracing_subscriber::layer::SubscriberExt as _;

    #[derive(Clone, Default)]
    struct Warnings(Arc<std::sync::Mutex<Vec<String>>>);

    struct Fields(String);

    impl tracing::field::Visit for Fields {
        fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
            use std::fmt::Write as _;
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Warnings {
        fn on_event(
            &self,
            event: &tracing::Event<'_>,
            _: tracing_subscriber::layer::Context<'_, S>,
        ) {
            if *event.metadata().level() == tracing::Level::WARN {
                let mut fields = Fields(String::new());
                event.record(&mut fields);
                self.0.lock().unwrap().push(fields.0.trim().to_owned());
            }
        }
    }

    let warnings = Warnings::default();
    let subscriber = tracing_subscriber::registry().with(warnings.clone());
    let guard = tracing::subscriber::set_default(subscriber);
    let outcome = work.await;
    drop(guard);
    let seen = warnings.0.lock().unwrap().clone();
    (outcome, seen)
}

/// An RSA key under 2048 bits in the JWKS verifies nothing (its modulus can be
/// factored, and every token it verifies forged): a token it signed is refused
/// as if its key were unknown, and a warning names the key.
#[tokio::test]
async fn an_rsa_key_under_2048_bits_in_the_jwks_verifies_nothing() {
    let issuer = issuer().await;
    let resource = "https://tools.example/mcp";
    let good = claims(&issuer, resource, "alice", "mcp");
    // Fixed keys.
    let (verifier, warnings) = warnings_of(async {
        fixed_verifier(
            &issuer,
            resource,
            JwkSet {
                keys: vec![jwk(ISSUER_KEY, "issuer-1"), jwk(WEAK_KEY, "weak-1")],
            },
        )
    })
    .await;
    assert_eq!(
        warnings,
        [
            "message=a JWKS key is an RSA key under 2048 bits; it verifies nothing \
             kid=\"weak-1\" bits=1024"
        ]
    );
    let unknown = Err(AuthError::InvalidToken(
        "the token's key id (`kid`) is not one of the issuer's keys".to_owned(),
    ));
    assert_eq!(
        verifier.verify(&sign(WEAK_KEY, "weak-1", &good)).await,
        unknown
    );
    // The other key of the same JWKS still verifies.
    verifier
        .verify(&sign(ISSUER_KEY, "issuer-1", &good))
        .await
        .unwrap();
    // Fetched keys: the same.
    issuer
        .jwks
        .write()
        .unwrap()
        .keys
        .push(jwk(WEAK_KEY, "weak-1"));
    let verifier = JwtVerifier::builder(&issuer.url, resource)
        .jwks_uri(format!("{}/jwks", issuer.url))
        .build()
        .unwrap();
    let (refused, warnings) = warnings_of(verifier.verify(&sign(WEAK_KEY, "weak-1", &good))).await;
    assert_eq!(refused, unknown);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("kid=\"weak-1\" bits=1024"),
        "{warnings:?}"
    );
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1);
}

/// A token whose `kid` was made up and whose signature is garbage: refused
/// unverified, so a flood of them costs nothing to make.
fn made_up_kid(payload: &str, kid: &str) -> String {
    let header = json!({"alg": "RS256", "typ": "JWT", "kid": kid});
    format!(
        "{}.{payload}.{}",
        b64(header.to_string().as_bytes()),
        b64(&[7; 256])
    )
}

/// With an issuer whose JWKS hangs, the requests that need it wait for one
/// fetch and all get its failure together (`503`), after one client timeout:
/// not one timeout after another. Requests with made-up `kid`s join the same
/// fetch; they pin no connection for longer.
#[tokio::test]
async fn requests_waiting_for_a_hanging_jwks_share_one_fetch() {
    let issuer = issuer().await;
    let resource = "https://tools.example/mcp";
    let timeout = Duration::from_secs(2);
    let verifier = Arc::new(
        JwtVerifier::builder(&issuer.url, resource)
            .jwks_uri(format!("{}/jwks", issuer.url))
            .http_client(reqwest::Client::builder().timeout(timeout).build().unwrap())
            .build()
            .unwrap(),
    );
    issuer.hanging.store(true, Ordering::SeqCst);
    let good = claims(&issuer, resource, "alice", "mcp");
    let payload = b64(good.to_string().as_bytes());
    let mut tokens: Vec<String> = (0..4)
        .map(|_| sign(ISSUER_KEY, "issuer-1", &good))
        .collect();
    tokens.extend((0..4).map(|n| made_up_kid(&payload, &format!("made-up-{n}"))));
    let started = std::time::Instant::now();
    let mut requests = tokio::task::JoinSet::new();
    for token in tokens {
        let verifier = Arc::clone(&verifier);
        requests.spawn(async move { (verifier.verify(&token).await, started.elapsed()) });
    }
    let mut waits = Vec::new();
    while let Some(answered) = requests.join_next().await {
        let (outcome, waited) = answered.unwrap();
        let Err(AuthError::Unavailable { message, .. }) = &outcome else {
            panic!("{outcome:?}");
        };
        assert!(message.contains("could not be reached"), "{message}");
        waits.push(waited);
    }
    println!(
        "8 requests during a hanging JWKS fetch (client timeout {timeout:?}): answered after {waits:?}"
    );
    // One at a time, the last would have waited 8 timeouts.
    for waited in &waits {
        // One fetch's timeout, not two (one behind another took 2x, 3x, ...).
        assert!(*waited >= timeout && *waited < timeout * 2, "{waits:?}");
    }
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1);
    assert_eq!(verifier.jwks_fetches(), 1);
}

/// 100 requests with made-up `kid`s, one after another, each told the keys are
/// unavailable (the JWKS answers `500`).
async fn unavailable_to_made_up_kids(verifier: &JwtVerifier, payload: &str, round: usize) {
    for n in 0..100 {
        let outcome = verifier
            .verify(&made_up_kid(payload, &format!("made-up-{round}-{n}")))
            .await;
        let Err(AuthError::Unavailable { message, .. }) = &outcome else {
            panic!("{outcome:?}");
        };
        assert!(
            message.ends_with("/jwks answered 500 Internal Server Error"),
            "{message}"
        );
    }
}

/// While the JWKS answers errors, requests are told `503` without a fetch each:
/// after a failed fetch the next waits 1 s, then 2 s, 4 s, ... (at most 30 s), so
/// a flood of made-up `kid`s, which needs no credentials, is no retry storm
/// against a sick issuer. The first fetch after the back-off that succeeds ends it.
#[tokio::test]
async fn made_up_kids_during_a_jwks_outage_back_off_the_fetches() {
    let issuer = issuer().await;
    let resource = "https://tools.example/mcp";
    let verifier = JwtVerifier::builder(&issuer.url, resource)
        .jwks_uri(format!("{}/jwks", issuer.url))
        .min_refresh_interval(Duration::from_millis(10))
        .build()
        .unwrap();
    issuer.failing.store(true, Ordering::SeqCst);
    let good = claims(&issuer, resource, "alice", "mcp");
    let payload = b64(good.to_string().as_bytes());
    unavailable_to_made_up_kids(&verifier, &payload, 0).await;
    let fetched = issuer.fetches.load(Ordering::SeqCst);
    println!("100 made-up kids while the JWKS fails: {fetched} fetch(es)");
    assert_eq!(fetched, 1);
    // After the first back-off (1 s), one fetch; the next waits 2 s.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    unavailable_to_made_up_kids(&verifier, &payload, 1).await;
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 2);
    // The issuer recovers: the first request after the back-off is served, and
    // its keys are used.
    issuer.failing.store(false, Ordering::SeqCst);
    let valid = sign(ISSUER_KEY, "issuer-1", &good);
    assert!(matches!(
        verifier.verify(&valid).await,
        Err(AuthError::Unavailable { .. })
    ));
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(
        verifier
            .verify(&valid)
            .await
            .map(|token| token.principal.subject().to_owned()),
        Ok("alice".to_owned())
    );
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 3);
    assert_eq!(verifier.jwks_fetches(), 3);
}
