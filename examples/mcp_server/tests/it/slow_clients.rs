//! Clients that take their time, on loopback, against the example's server loop
//! and routers with short bounds: a request whose headers or body trickle in is
//! cut off once its bound has passed, with or without a token, while a client
//! that sends at once keeps being served; a refusal sent before the body was read
//! closes the connection and says so.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use example_assistant::AssistantState;
use example_mcp_server::Settings;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use toolkit::serving::HttpLimits;

const TOKENS: [&str; 3] = ["internal-secret", "copilot-secret", "external-secret"];
const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

/// One second for headers and for a body.
fn limits() -> HttpLimits {
    HttpLimits::default()
        .header_read(Duration::from_secs(1))
        .body_read(Duration::from_secs(1))
        .connections(256)
}

/// The example's routers (MCP endpoints and the inbox) on its server loop.
async fn serve() -> SocketAddr {
    serve_within(limits()).await
}

/// [`serve`] within `limits`, with the health endpoints.
async fn serve_within(limits: HttpLimits) -> SocketAddr {
    let settings = Settings::ephemeral().unwrap().limits(limits);
    let router = example_mcp_server::http_router(AssistantState::new(), settings, TOKENS)
        .nest(
            "/approvals",
            example_mcp_server::inbox(settings, "inbox-secret").router(),
        )
        .merge(example_mcp_server::health(settings));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(example_mcp_server::serve(listener, router, settings.limits));
    addr
}

fn post_head(path: &str, authorization: Option<&str>, length: usize) -> String {
    let authorization = authorization.map_or(String::new(), |token| {
        format!("Authorization: Bearer {token}\r\n")
    });
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{authorization}Content-Length: {length}\r\n\r\n"
    )
}

/// Writes the first `at_once` of `bytes` at once, then the others one at a time,
/// `pause` apart, until they are all sent or the server stops taking them, all
/// the while reading what the server answers until it closes (at most 30 s).
/// Gives the answer and when the connection ended.
async fn trickle(
    addr: SocketAddr,
    bytes: Vec<u8>,
    at_once: usize,
    pause: Duration,
) -> (String, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    // A server that refuses the connection may have closed it already.
    let _ = stream.write_all(&bytes[..at_once]).await;
    let (mut reader, mut writer) = stream.split();
    let mut answer = Vec::new();
    let write = async {
        for &byte in &bytes[at_once..] {
            if writer.write_all(&[byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(pause).await;
        }
        // Nothing more to send: wait for the server to end the connection.
        std::future::pending::<()>().await;
    };
    let read = reader.read_to_end(&mut answer);
    let _ = tokio::time::timeout(Duration::from_secs(30), async {
        tokio::select! {
            () = write => {}
            _ = read => {}
        }
    })
    .await;
    (
        String::from_utf8_lossy(&answer).into_owned(),
        started.elapsed(),
    )
}

/// A request sent at once on a new connection: its status line, and how long it
/// took.
async fn prompt_list(addr: SocketAddr) -> (String, Duration) {
    let request = post_head("/mcp/internal", Some(TOKENS[0]), LIST.len())
        .replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
        + LIST;
    prompt_from(TcpStream::connect(addr).await.unwrap(), &request).await
}

/// `request` sent at once on `stream`: the answer's status line, and how long it
/// took.
async fn prompt_from(mut stream: TcpStream, request: &str) -> (String, Duration) {
    let started = Instant::now();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let status = answer.lines().next().unwrap_or_default().to_owned();
    (status, started.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickling_clients_are_cut_off_while_prompt_ones_are_served() {
    let addr = serve().await;
    let pause = Duration::from_millis(300);
    let body = LIST.as_bytes().to_vec();
    let mut slow = tokio::task::JoinSet::new();
    for round in 0..16 {
        // Headers that never end, on the MCP endpoint and on the inbox.
        let path = if round % 2 == 0 {
            "/mcp/internal"
        } else {
            "/approvals/"
        };
        let head =
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ") + &"a".repeat(200);
        slow.spawn(trickle(addr, head.into_bytes(), 0, pause));
        // A body that trickles in, with a token (read until its deadline)...
        let head = post_head("/mcp/internal", Some(TOKENS[0]), body.len());
        let at_once = head.len();
        let request = [head.as_bytes(), &body].concat();
        slow.spawn(trickle(addr, request, at_once, pause));
        // ... and without one: refused at once, before any of the body is read.
        let mut anonymous = post_head("/mcp/internal", None, 1000).into_bytes();
        anonymous.extend(b"{\"jsonrpc\"");
        slow.spawn(trickle(addr, anonymous, 0, pause));
    }

    // Meanwhile a prompt client is served, every time, quickly.
    for _ in 0..20 {
        let (status, took) = prompt_list(addr).await;
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(
            took < Duration::from_secs(1),
            "a prompt request took {took:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let mut cut = 0;
    while let Some(outcome) = slow.join_next().await {
        let (answer, took) = outcome.unwrap();
        // One second of bound, and some slack for a loaded machine; far below
        // the 30 s the client would wait.
        assert!(
            took < Duration::from_secs(5),
            "held for {took:?}: {answer:?}"
        );
        let status = answer.lines().next().unwrap_or_default();
        assert!(
            matches!(
                status,
                "" | "HTTP/1.1 408 Request Timeout" | "HTTP/1.1 401 Unauthorized"
            ),
            "{answer:?}"
        );
        if !status.is_empty() {
            assert!(answer.contains("\r\nconnection: close\r\n"), "{answer:?}");
        }
        cut += 1;
    }
    assert_eq!(cut, 48);
}

#[tokio::test]
async fn a_trickled_body_is_answered_408_and_headers_that_trickle_get_no_answer() {
    let addr = serve().await;
    let pause = Duration::from_millis(300);
    let head = post_head("/mcp/internal", Some(TOKENS[0]), LIST.len());
    let request = [head.as_bytes(), LIST.as_bytes()].concat();
    let (answer, took) = trickle(addr, request, head.len(), pause).await;
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer:?}"
    );
    assert!(answer.contains("\r\nconnection: close\r\n"), "{answer:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");

    let unfinished = head.as_bytes()[..head.len() - 4].to_vec();
    let (answer, took) = trickle(addr, unfinished, 0, pause).await;
    assert_eq!(answer, "");
    assert!(took < Duration::from_secs(3), "{took:?}");
}

/// Reads one HTTP/1.1 answer with a `Content-Length` from `stream`: its head
/// (lowercase) and body.
async fn read_answer(stream: &mut TcpStream) -> (String, String) {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let read = stream.read(&mut buffer).await.unwrap();
        assert_ne!(
            read,
            0,
            "closed after {:?}",
            String::from_utf8_lossy(&bytes)
        );
        bytes.extend(&buffer[..read]);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let head = head.to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .map_or(0, |length| length.parse().unwrap());
            if body.len() >= length {
                return (head, body.to_owned());
            }
        }
    }
}

#[tokio::test]
async fn an_early_refusal_closes_the_connection_and_says_so() {
    let addr = serve().await;
    // 401 before the body is read, 415 for a body that is not JSON, 413 for one
    // over the limit: each says `Connection: close`.
    let cases = [
        (post_head("/mcp/internal", None, LIST.len()) + LIST, "401"),
        (
            post_head("/mcp/internal", Some(TOKENS[0]), 5)
                .replace("Type: application/json", "Type: text/plain")
                + "hello",
            "415",
        ),
        (
            {
                // One byte over rmcp's 4 MiB default, all of it sent.
                let length = 4 * 1024 * 1024 + 1;
                post_head("/mcp/internal", Some(TOKENS[0]), length) + &"x".repeat(length)
            },
            "413",
        ),
    ];
    for (request, status) in cases {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let (mut reader, mut writer) = stream.split();
        // The server may answer, and stop reading, before all is sent.
        let write = async {
            let _ = writer.write_all(request.as_bytes()).await;
            std::future::pending::<()>().await;
        };
        let mut answer = Vec::new();
        tokio::select! {
            () = write => {}
            _ = reader.read_to_end(&mut answer) => {}
        }
        let answer = String::from_utf8_lossy(&answer).to_ascii_lowercase();
        let (head, _) = answer.split_once("\r\n\r\n").unwrap_or_default();
        assert!(head.starts_with(&format!("http/1.1 {status} ")), "{head}");
        assert!(head.contains("\r\nconnection: close"), "{head}");
    }
    // A refusal whose request had no body keeps the connection: the next request
    // on it is served.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let get = "GET /mcp/internal HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    stream.write_all(get.as_bytes()).await.unwrap();
    let (head, _) = read_answer(&mut stream).await;
    assert!(head.starts_with("http/1.1 401 "), "{head}");
    assert!(!head.contains("connection: close"), "{head}");
    let list = post_head("/mcp/internal", Some(TOKENS[0]), LIST.len()) + LIST;
    stream.write_all(list.as_bytes()).await.unwrap();
    let (head, body) = read_answer(&mut stream).await;
    assert!(head.starts_with("http/1.1 200 "), "{head}");
    assert!(body.contains("\"tools\""), "{body}");
}

/// A connection to `addr` from the loopback address `from` (Linux answers the
/// whole 127.0.0.0/8 on loopback).
async fn connect_from(from: [u8; 4], addr: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::from((from, 0)))
        .expect("a loopback address to bind");
    socket.connect(addr).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_peer_trickling_on_many_connections_leaves_room_for_every_other_peer() {
    // Few slots in all, and headers allowed 8 s: without a share per peer the
    // trickler's connections would fill every slot for 8 s at a time.
    let addr = serve_within(
        limits()
            .header_read(Duration::from_secs(8))
            .connections(64)
            .connections_per_peer(16),
    )
    .await;
    let mut slow = tokio::task::JoinSet::new();
    for _ in 0..200 {
        let head =
            "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ".to_owned() + &"a".repeat(100);
        slow.spawn(trickle(
            addr,
            head.into_bytes(),
            1,
            Duration::from_millis(300),
        ));
    }
    // The tricklers' connections are all open (the server holds 16 of them and
    // has closed the others).
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Another peer is served at once, its MCP request and the balancer's check alike.
    let list = post_head("/mcp/internal", Some(TOKENS[0]), LIST.len())
        .replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
        + LIST;
    let livez = "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    for _ in 0..10 {
        for request in [list.as_str(), livez] {
            let stream = connect_from([127, 0, 0, 2], addr).await;
            let (status, took) = prompt_from(stream, request).await;
            assert_eq!(status, "HTTP/1.1 200 OK", "{request}");
            // Without a share per peer it would wait for a trickler's 8 s; the
            // bound is far from that, so a busy machine does not fail it.
            assert!(took < Duration::from_secs(4), "{request} took {took:?}");
        }
    }

    // The trickler's connections over its share were closed unanswered, at
    // once; its 16 others are still held (their headers have 8 s).
    let mut closed_at_once = 0;
    while closed_at_once < 200 - 16 {
        let Ok(Some(outcome)) =
            tokio::time::timeout(Duration::from_secs(3), slow.join_next()).await
        else {
            break;
        };
        let (answer, took) = outcome.unwrap();
        assert_eq!(answer, "");
        assert!(took < Duration::from_secs(3), "{took:?}");
        closed_at_once += 1;
    }
    assert_eq!((closed_at_once, slow.len()), (200 - 16, 16));
    slow.abort_all();
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_after_the_first_byte_deadline() {
    // Headers are allowed 10 s, so only the first-byte deadline closes it soon.
    let addr = serve_within(
        limits()
            .header_read(Duration::from_secs(10))
            .first_byte(Duration::from_millis(500)),
    )
    .await;
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(9), stream.read_to_end(&mut answer))
        .await
        .expect("closed by the server")
        .unwrap();
    let took = started.elapsed();
    assert_eq!(answer, b"");
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(5),
        "{took:?}"
    );
}
