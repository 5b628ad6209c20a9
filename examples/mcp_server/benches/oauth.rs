//! The cost of OAuth on a request: the example's router answering `tools/list`
//! in process (no TCP), behind a static token and behind a JWT checked against a
//! warm JWKS; one token verification alone; and a burst of unknown `kid`s.
//!
//! `cargo bench -p example-mcp-server --bench oauth`

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use example_assistant::AssistantState;
use example_mcp_server::{OAUTH_REQUIRED_SCOPE, Settings, http_router, oauth_router};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use toolkit::mcp::auth::{JwtVerifier, ResourceServer, TokenVerifier as _};
use tower::ServiceExt as _;

#[path = "../tests/common/mod.rs"]
mod common;

const ISSUER_KEY: &[u8] = include_bytes!("../../../toolkit/src/mcp/auth/testdata/issuer.der");
const ISSUER: &str = "https://auth.example";
const RESOURCE: &str = "http://127.0.0.1/mcp";

fn jwks() -> JwkSet {
    let mut jwk =
        Jwk::from_encoding_key(&EncodingKey::from_rsa_der(ISSUER_KEY), Algorithm::RS256).unwrap();
    jwk.common.key_id = Some("issuer-1".to_owned());
    JwkSet { keys: vec![jwk] }
}

fn token(kid: &str) -> String {
    let now = jsonwebtoken::get_current_timestamp();
    let claims = json!({
        "iss": ISSUER, "sub": "alice", "aud": RESOURCE, "iat": now, "exp": now + 3600,
        "scope": format!("{OAUTH_REQUIRED_SCOPE} external"),
    });
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_rsa_der(ISSUER_KEY)).unwrap()
}

fn verifier() -> JwtVerifier {
    JwtVerifier::builder(ISSUER, RESOURCE)
        .jwks(jwks())
        .build()
        .unwrap()
}

fn requests(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let settings = Settings::ephemeral().unwrap();
    let static_router = http_router(
        AssistantState::new(),
        settings,
        ["internal-token", "copilot-token", "external-token"],
    );
    let auth = ResourceServer::new(RESOURCE, verifier())
        .unwrap()
        .authorization_server(ISSUER)
        .required_scopes([OAUTH_REQUIRED_SCOPE]);
    let oauth = oauth_router(AssistantState::new(), settings, auth);
    let jwt = token("issuer-1");
    // Both answer 200 with the same three tools.
    for (router, path, token) in [
        (&static_router, "/mcp/external", "external-token"),
        (&oauth, "/mcp", jwt.as_str()),
    ] {
        let response = runtime
            .block_on(
                router
                    .clone()
                    .oneshot(common::list_request(path, "127.0.0.1", token)),
            )
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
    }

    let mut group = c.benchmark_group("mcp_auth");
    group.bench_function("tools/list, static token", |b| {
        b.iter(|| {
            runtime
                .block_on(static_router.clone().oneshot(common::list_request(
                    "/mcp/external",
                    "127.0.0.1",
                    "external-token",
                )))
                .unwrap()
        });
    });
    group.bench_function("tools/list, JWT (RS256, warm JWKS)", |b| {
        b.iter(|| {
            runtime
                .block_on(
                    oauth
                        .clone()
                        .oneshot(common::list_request("/mcp", "127.0.0.1", &jwt)),
                )
                .unwrap()
        });
    });
    let verifier = verifier();
    group.bench_function("verify alone (RS256, warm JWKS)", |b| {
        b.iter(|| runtime.block_on(verifier.verify(&jwt)).unwrap());
    });
    group.finish();
}

/// A burst of unknown `kid`s after the refetch interval: how many JWKS fetches,
/// how long the burst takes, and what a valid token costs meanwhile. Printed, not
/// a criterion figure: it is one event, not a steady state.
fn burst(_: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let fetches = Arc::new(AtomicUsize::new(0));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let jwks_uri = format!("http://{}/jwks", listener.local_addr().unwrap());
        let body = serde_json::to_string(&jwks()).unwrap();
        let counted = Arc::clone(&fetches);
        let router = axum::Router::new().route(
            "/jwks",
            axum::routing::get(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                let body = body.clone();
                async move { body }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, router).await });
        let verifier = Arc::new(
            JwtVerifier::builder(ISSUER, RESOURCE)
                .jwks_uri(jwks_uri)
                .min_refresh_interval(Duration::from_millis(100))
                .build()
                .unwrap(),
        );
        let good = token("issuer-1");
        verifier.verify(&good).await.unwrap();
        // Unknown kids with junk signatures: the key is looked up first.
        let payload = good.split('.').nth(1).unwrap().to_owned();
        let forged: Vec<String> = (0..10_000)
            .map(|n| {
                use base64::Engine as _;
                let header = json!({"alg": "RS256", "kid": format!("made-up-{n}")}).to_string();
                let encode = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
                format!("{}.{payload}.{}", encode(header.as_bytes()), encode(&[7; 256]))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(150)).await;
        let before = fetches.load(Ordering::SeqCst);
        let started = Instant::now();
        let mut burst = tokio::task::JoinSet::new();
        for token in forged {
            let verifier = Arc::clone(&verifier);
            burst.spawn(async move { verifier.verify(&token).await.is_err() });
        }
        let during = Instant::now();
        verifier.verify(&good).await.unwrap();
        let valid_during = during.elapsed();
        let mut refused = 0;
        while let Some(outcome) = burst.join_next().await {
            refused += usize::from(outcome.unwrap());
        }
        let elapsed = started.elapsed();
        println!(
            "burst of 10000 unknown kids: {refused} refused in {elapsed:?} ({:?} each), {} JWKS fetch(es); a valid token during the burst: {valid_during:?}",
            elapsed / 10_000,
            fetches.load(Ordering::SeqCst) - before,
        );
    });
}

criterion_group!(benches, requests, burst);
criterion_main!(benches);
