//! The conformance server (`mcp_conformance`) as a test starts it, and
//! 2026-07-28 requests to it as raw JSON-RPC over HTTP (exact wire values,
//! below rmcp's client).

use std::io::BufRead as _;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

/// A conformance server process and the URL of its MCP endpoint, stopped when
/// dropped.
pub struct Server(Child, pub String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A conformance server on a free port of 127.0.0.1, with `env` (its
/// `MCP_CONFORMANCE_*` settings).
pub fn serve(env: &[(&str, &str)]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp_conformance"))
        .args(["http", "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .envs(env.iter().copied())
        .spawn()
        .expect("the conformance server starts");
    let stdout = child.stdout.take().expect("piped");
    let mut line = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .expect("it says where it listens");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("not an address: {line}"))
        .to_owned();
    Server(child, url)
}

/// One 2026-07-28 `tools/call` of `tool` with `extra` params (arguments,
/// answers, state) over `{"name": tool, "arguments": {}}`, from a client
/// declaring `capabilities`: the HTTP status and the JSON-RPC response.
pub async fn call(url: &str, tool: &str, extra: Value, capabilities: Value) -> (u16, Value) {
    let mut params = json!({"name": tool, "arguments": {}});
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        params.extend(extra);
    }
    rpc(url, "tools/call", tool, params, capabilities).await
}

/// One 2026-07-28 request `method` with `params` and the `Mcp-Name` header
/// `name`, from a client declaring `capabilities`: the HTTP status and the
/// JSON-RPC response.
pub async fn rpc(
    url: &str,
    method: &str,
    name: &str,
    mut params: Value,
    capabilities: Value,
) -> (u16, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "wire-test", "version": "0.0.0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let response = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .header("Mcp-Name", name)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let text = response.text().await.expect("a body");
    // JSON, or an event stream whose `data:` line holds the response.
    let body = serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("id") == Some(&json!(1)))
            .unwrap_or_else(|| panic!("no response in {text}"))
    });
    (status, body)
}

/// The result of a response, with its `requestState` taken out (opaque).
pub fn result_and_state(response: &Value) -> (Value, Option<String>) {
    let mut result = response
        .get("result")
        .unwrap_or_else(|| panic!("a result: {response}"))
        .clone();
    let state = result
        .as_object_mut()
        .and_then(|result| result.remove("requestState"))
        .map(|state| state.as_str().expect("a string state").to_owned());
    (result, state)
}

/// A task as the wire gives it, without what changes from run to run: its
/// timestamps and time to live.
pub fn untimed(mut task: Value) -> Value {
    if let Some(task) = task.as_object_mut() {
        for key in ["createdAt", "lastUpdatedAt", "ttlMs"] {
            task.remove(key);
        }
    }
    task
}
