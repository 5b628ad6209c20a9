//! The workspace's browser tests' harness: Debian's Chromium, headless, driven over
//! `WebDriver` (chromium-driver) with fantoccini, started by the test and stopped
//! with everything it started, on success and on panic alike.
//!
//! `scripts/browser.sh` finds (or installs) Chromium and its driver; on a machine
//! with neither and no way to install them, [`Browser::start`] says so once and
//! the test returns early, unless `CI=true`, where it fails. Screenshots go to
//! `target/inbox-screenshots/`.
//!
//! ```no_run
//! # async fn test() {
//! use toolkit_test_support::{Browser, text};
//!
//! let Some(browser) = Browser::start("inbox", (1280, 900)).await else {
//!     return; // said why, once
//! };
//! browser.client.goto("http://127.0.0.1:8080/approvals").await.expect("the page");
//! assert_eq!(text(&browser.client, "main h1").await, "Waiting for a decision");
//! # }
//! ```
//!
//! The session's `Drop` waits for the browser on the test's tokio runtime, which
//! must be the multi-threaded one (`#[tokio::test(flavor = "multi_thread")]`).
//!
//! With the feature `oauth`, the `oauth` module is the OAuth tests' authorization server
//! (discovery, a JWKS, signed tokens) and their raw MCP requests. The [`postgres`]
//! module is the store tests' throwaway `PostgreSQL` cluster.

#[cfg(feature = "oauth")]
pub mod oauth;
pub mod postgres;

use std::net::TcpListener;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// How long a page has to show what a helper waits for.
const WAIT: Duration = Duration::from_secs(10);

/// The workspace's root directory.
#[must_use]
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Says why a test cannot run on this machine (it then returns early); under
/// `CI=true` it fails instead, so CI never skips it silently.
///
/// # Panics
/// Under `CI=true`.
pub fn missing(what: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true: this test must run, but {what}"
    );
    println!("skipped: {what}");
}

/// Where Chromium and chromedriver are, as `scripts/browser.sh` (which installs
/// them when it can) prints them; `None`, having said why ([`missing`]), on a
/// machine that has neither and can't install them.
///
/// # Panics
/// When the script fails otherwise, or under `CI=true` without a browser.
#[must_use]
pub fn browser_paths() -> Option<(String, String)> {
    let output = Command::new("bash")
        .arg(root().join("scripts/browser.sh"))
        .output()
        .expect("bash runs scripts/browser.sh");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() == Some(3) {
        missing(stderr.trim());
        return None;
    }
    assert!(
        output.status.success(),
        "scripts/browser.sh failed: {stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let path = |key: &str| {
        stdout
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{key}=")))
            .map_or_else(
                || panic!("scripts/browser.sh printed no {key}: {stdout}"),
                str::to_owned,
            )
    };
    Some((path("chromium"), path("chromedriver")))
}

/// A child process leading a process group of its own, which its own children
/// join (chromedriver's Chromium, node's server); the whole group is killed when
/// this is dropped, so nothing it started outlives the test.
#[derive(Debug)]
pub struct Group {
    process: Child,
}

impl Group {
    /// Spawns `command` as the leader of a new process group.
    ///
    /// # Panics
    /// When it does not start.
    #[must_use]
    pub fn start(command: &mut Command) -> Group {
        let process = command
            .process_group(0)
            .spawn()
            .unwrap_or_else(|error| panic!("{command:?} starts: {error}"));
        Group { process }
    }

    /// The child process (to take its piped output, say).
    pub fn process(&mut self) -> &mut Child {
        &mut self.process
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let Ok(group) = libc::pid_t::try_from(self.process.id()) else {
            return;
        };
        // SAFETY: kill(2) takes no pointers. A negative pid names the process group
        // this child leads (`process_group(0)`); it is not reaped yet, so the group
        // id cannot have been given to anyone else.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
        let _ = self.process.wait();
    }
}

/// A headless Chromium session. Dropped (on success and on panic alike), it ends
/// the session over `WebDriver`, then kills its driver's process group.
pub struct Browser {
    /// The `WebDriver` client of the session.
    pub client: Client,
    driver: Option<Group>,
    profile: PathBuf,
}

impl Browser {
    /// Starts chromedriver on a free loopback port and opens a session of a
    /// headless Chromium `window` pixels wide and high, with a fresh profile named
    /// after `name`; `None` when this machine has no browser ([`browser_paths`]).
    ///
    /// # Panics
    /// When chromedriver does not open a session within 20 seconds.
    pub async fn start(name: &str, window: (u32, u32)) -> Option<Browser> {
        let (chromium, chromedriver) = browser_paths()?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free loopback port")
            .port();
        let driver = Group::start(
            Command::new(chromedriver)
                .arg(format!("--port={port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        );
        let profile =
            std::env::temp_dir().join(format!("{name}-browser-{}-{port}", std::process::id()));
        let Value::Object(capabilities) = json!({
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    format!("--window-size={},{}", window.0, window.1), "--lang=en-US",
                    format!("--user-data-dir={}", profile.display()),
                ]
            }
        }) else {
            unreachable!("a JSON object")
        };
        let started = Instant::now();
        let client = loop {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector)
                .capabilities(capabilities.clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await
            {
                Ok(client) => break client,
                Err(_) if started.elapsed() < Duration::from_secs(20) => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(error) => panic!("chromedriver did not start a session: {error}"),
            }
        };
        Some(Browser {
            client,
            driver: Some(driver),
            profile,
        })
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Chromium is chromedriver's child, not a part of it: killing the driver
        // alone orphans the whole browser (about thirty processes, re-parented to
        // init). The session is ended over WebDriver first (`DELETE
        // /session/{id}`, which quits the browser) while the driver still answers;
        // then whatever is left in the driver's process group is killed.
        let client = self.client.clone();
        let ended = tokio::runtime::Handle::try_current().map(|runtime| {
            // The session's task runs on the test's runtime; block_in_place lets
            // this thread wait for it, even while a panic unwinds.
            tokio::task::block_in_place(|| {
                runtime.block_on(tokio::time::timeout(
                    Duration::from_secs(20),
                    client.close(),
                ))
            })
        });
        if !matches!(ended, Ok(Ok(Ok(())))) {
            eprintln!(
                "the WebDriver session did not end ({ended:?}): stopping the browser's process group"
            );
        }
        drop(self.driver.take());
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Saves a screenshot of the page as `target/inbox-screenshots/{file}`, and
/// returns the PNG.
///
/// # Panics
/// When the browser takes none, or it can't be saved.
pub async fn screenshot(client: &Client, file: &str) -> Vec<u8> {
    let png = client.screenshot().await.expect("a screenshot");
    let directory = root().join("target/inbox-screenshots");
    std::fs::create_dir_all(&directory).expect("the screenshot directory");
    std::fs::write(directory.join(file), &png).expect("the screenshot is saved");
    png
}

/// Waits (10 s at most) until the page has `css`, and returns its text.
///
/// # Panics
/// When it never shows.
pub async fn text(client: &Client, css: &str) -> String {
    element(client, css).await.text().await.expect("its text")
}

/// Waits (10 s at most) until the page has `css`, and clicks it.
///
/// # Panics
/// When it never shows, or can't be clicked.
pub async fn click(client: &Client, css: &str) {
    element(client, css)
        .await
        .click()
        .await
        .unwrap_or_else(|error| panic!("`{css}` can't be clicked: {error}"));
}

/// Waits (10 s at most) until the page has the field `css`, clears it and types
/// `text` into it.
///
/// # Panics
/// When it never shows, or takes no text.
pub async fn type_into(client: &Client, css: &str, text: &str) {
    let field = element(client, css).await;
    field.clear().await.expect("cleared");
    field.send_keys(text).await.expect("typed");
}

/// Waits (10 s at most) until the page (the next one, after a click) has `css`.
///
/// # Panics
/// When it never shows.
pub async fn present(client: &Client, css: &str) {
    element(client, css).await;
}

/// Runs `source` in the page, and returns what it returns.
///
/// # Panics
/// When the script fails.
pub async fn script(client: &Client, source: &str) -> Value {
    client
        .execute(source, Vec::new())
        .await
        .expect("the script runs")
}

async fn element(client: &Client, css: &str) -> fantoccini::elements::Element {
    client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|error| panic!("no `{css}` on the page: {error}"))
}
