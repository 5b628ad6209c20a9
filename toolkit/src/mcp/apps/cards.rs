//! The two cards' HTML: static documents (a host may fetch and cache them before
//! any call), written with maud, whose one inline script and one inline style are
//! allowed by their SHA-256 hashes in the document's own Content Security Policy
//! and nothing else is: no outside scripts, styles, images, frames or
//! connections, on top of the host's policy from the resource's `_meta.ui.csp`.
//!
//! Everything a call brings (a message, arguments, a principal, a result) is put
//! in the page as text (`textContent`), never as HTML, with hidden characters
//! (bidirectional overrides, zero-width spaces, other format and control
//! characters) shown as their code point, as the inbox shows them.

use std::sync::{Arc, LazyLock};

use base64::Engine as _;
use maud::{DOCTYPE, Markup, PreEscaped, html};
use sha2::{Digest as _, Sha256};

use super::{
    APPROVAL_CARD, CONFIRM_TOOL, META_CONFIRMATION, PREVIEW_CARD, ResourceCsp, ResourceUi,
    STATUS_TOOL, UiResource,
};

/// Light, one column, readable from 320 px up.
const STYLE: &str = "\
:root{color-scheme:light;font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2330;background:#fff}\
body{margin:0;padding:.9rem 1rem;max-width:100%;box-sizing:border-box;overflow-wrap:anywhere}\
[hidden]{display:none!important}\
h1{font-size:1rem;margin:0 0 .5rem}\
p{margin:.35rem 0}\
.muted{color:#5b6478;font-size:.9rem}\
pre,li{font:13px/1.4 ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere}\
pre{background:#f5f7fa;border:1px solid #e1e5ec;border-radius:6px;padding:.5rem;margin:.4rem 0;max-height:14rem;overflow:auto}\
ol{padding-left:1.4rem;margin:.4rem 0}\
pre,li,code,#message,#principal,.state{unicode-bidi:isolate}\
.state{white-space:pre-wrap}\
.mark{background:#fde2e2;color:#8a1c1c;border-radius:3px;padding:0 .15em}\
.actions{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:.7rem}\
button{font:inherit;padding:.45rem 1rem;border-radius:6px;border:1px solid #b7bfcc;background:#fff;color:#1d2330;cursor:pointer}\
button.primary{background:#2457d6;border-color:#2457d6;color:#fff}\
button:disabled{opacity:.55;cursor:default}\
.state{margin-top:.6rem;padding:.45rem .6rem;border-radius:6px;background:#f1f3f7}\
[data-state=ran] .state,[data-state=done] .state{background:#e3f4e8}\
[data-state=denied] .state,[data-state=failed] .state,[data-state=expired] .state,[data-state=refused] .state{background:#fbe7e7}\
[data-state=waiting] .state,[data-state=approved] .state,[data-state=running] .state{background:#fff4d6}";

/// Talks to the host (JSON-RPC over `postMessage`, SEP-1865) and writes text
/// safely: shared by both cards.
const BRIDGE: &str = r#""use strict";
const waiting = new Map();
let nextId = 1;
const handlers = {};
function request(method, params) {
  const id = nextId++;
  window.parent.postMessage({jsonrpc: "2.0", id, method, params}, "*");
  return new Promise((resolve, reject) => waiting.set(id, {resolve, reject}));
}
function notify(method, params) {
  window.parent.postMessage({jsonrpc: "2.0", method, params}, "*");
}
window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return;
  const message = event.data;
  if (!message || message.jsonrpc !== "2.0") return;
  if (message.method === undefined) {
    const waiter = waiting.get(message.id);
    if (!waiter) return;
    waiting.delete(message.id);
    if (message.error) waiter.reject(new Error(String(message.error.message)));
    else waiter.resolve(message.result || {});
    return;
  }
  const handler = handlers[message.method];
  if (handler) handler(message.params || {});
  if (message.id !== undefined) {
    window.parent.postMessage({jsonrpc: "2.0", id: message.id, result: {}}, "*");
  }
});
const HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u206F\u2800\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB]|\uD834[\uDD73-\uDD7A]|[\uDB40-\uDB43][\uDC00-\uDFFF]/g;
function put(id, value) {
  const element = document.getElementById(id);
  element.replaceChildren();
  const text = String(typeof value === "string" ? value : JSON.stringify(value, null, 1));
  let last = 0;
  for (const found of text.matchAll(HIDDEN)) {
    element.append(document.createTextNode(text.slice(last, found.index)));
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.title = "a hidden character";
    mark.textContent = "U+" + found[0].codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    element.append(mark);
    last = found.index + found[0].length;
  }
  element.append(document.createTextNode(text.slice(last)));
}
function shown(id, on) { document.getElementById(id).hidden = !on; }
function state(name, words) { document.body.dataset.state = name; put("state", words); shown("state", true); resized(); }
function utc(seconds) { return new Date(seconds * 1000).toUTCString(); }
function said(result) {
  return (result.content || []).filter((block) => block.type === "text").map((block) => block.text).join("\n");
}
function resized() {
  const root = document.documentElement;
  notify("ui/notifications/size-changed", {width: root.scrollWidth, height: root.scrollHeight});
}
async function start() {
  await request("ui/initialize", {
    appInfo: {name: "toolkit card", version: "1"},
    appCapabilities: {},
    protocolVersion: "2026-01-26",
  });
  notify("ui/notifications/initialized", {});
  resized();
}
"#;

/// The preview card: the preview, Confirm and Cancel.
fn preview_script() -> String {
    format!(
        r#"{BRIDGE}let confirmation = null;
handlers["ui/notifications/tool-result"] = (result) => {{
  const meta = result._meta || {{}};
  const preview = meta["toolkit/preview"];
  confirmation = meta[{meta_confirmation}] || null;
  if (!preview) {{
    shown("actions", false);
    state(result.isError ? "refused" : "done", said(result));
    return;
  }}
  put("message", String(preview.message));
  const items = document.getElementById("items");
  items.replaceChildren();
  for (const item of preview.items || []) {{
    const entry = document.createElement("li");
    items.append(entry);
    entry.id = "item-" + items.children.length;
    put(entry.id, item);
  }}
  if (confirmation) {{
    put("until", "Confirm before " + utc(confirmation.expires_at) + ". Nothing has run yet.");
    shown("actions", true);
  }} else {{
    put("until", "Nothing has run. Answer in the conversation to go ahead.");
  }}
  resized();
}};
document.getElementById("confirm").addEventListener("click", async () => {{
  document.getElementById("confirm").disabled = true;
  document.getElementById("cancel").disabled = true;
  state("running", "Running…");
  try {{
    const result = await request("tools/call", {{name: {confirm_tool}, arguments: {{confirmation}}}});
    state(result.isError ? "refused" : "done", (result.isError ? "Not run: " : "Done: ") + said(result));
  }} catch (error) {{
    state("refused", "Not run: " + error.message);
  }}
}});
document.getElementById("cancel").addEventListener("click", () => {{
  document.getElementById("confirm").disabled = true;
  document.getElementById("cancel").disabled = true;
  state("cancelled", "Cancelled: nothing ran.");
}});
start();
"#,
        meta_confirmation = json_string(META_CONFIRMATION),
        confirm_tool = json_string(CONFIRM_TOOL),
    )
}

/// The approval card: what waits, for whom, until when, and its state, read
/// again until it is final; a button that opens the inbox at the call.
fn approval_script() -> String {
    format!(
        r#"{BRIDGE}let callId = null;
let inbox = null;
const TITLES = {{
  waiting: "Waiting for approval",
  approved: "Approved",
  running: "Approved, running",
  ran: "Approved and ran",
  failed: "Approved, but failed",
  denied: "Denied",
  expired: "Expired",
  withdrawn: "Withdrawn",
  not_run: "Not run",
}};
const WORDS = {{
  waiting: "Waiting for an approver's decision. Nothing has run.",
  approved: "Approved; it runs shortly.",
  running: "Approved; running now.",
  ran: "Approved, and it ran.",
  failed: "Approved, but it failed.",
  denied: "Denied: it will not run.",
  expired: "Expired: nobody decided in time, and it will not run.",
  withdrawn: "Withdrawn: it will not run.",
  not_run: "It will not run.",
}};
handlers["ui/notifications/tool-result"] = (result) => {{
  const pending = (result._meta || {{}})["toolkit/pending_approval"];
  // A client with tasks gets a task for the call: its id is the call id.
  const task = result.resultType === "task" && typeof result.taskId === "string" ? result.taskId : null;
  if (callId !== null) return;
  if (!pending && task === null) {{
    state(result.isError ? "refused" : "ran", said(result));
    return;
  }}
  callId = pending ? pending.call_id : task;
  if (pending) shownCall(pending);
  state("waiting", WORDS.waiting);
  read();
}};
function shownCall(call) {{
  put("tool", call.tool);
  put("until", utc(call.expires_at));
  put("arguments", call.arguments);
  // The requester as toolkit words a principal for a person (`Principal::display_name`).
  if (call.requester) put("principal", String(call.requester.name));
  shown("details", true);
}}
async function read() {{
  let again = 3000;
  try {{
    const result = await request("tools/call", {{name: {status_tool}, arguments: {{call_id: callId}}}});
    const status = result.structuredContent;
    if (result.isError || !status) {{
      state("refused", said(result));
      return;
    }}
    shownCall(status);
    let words = WORDS[status.state] || status.state;
    if (status.state === "ran" && status.result !== undefined && status.result !== null) {{
      words += "\nResult: " + (typeof status.result === "string" ? status.result : JSON.stringify(status.result, null, 1));
    }}
    if (status.message) words += "\n" + status.message;
    state(status.state, words);
    put("title", TITLES[status.state] || status.state);
    inbox = status.inbox_url || null;
    shown("actions", inbox !== null && !status.final);
    resized();
    if (status.final) return;
  }} catch (error) {{
    put("note", "The state could not be read (" + error.message + "); trying again.");
    again = 10000;
  }}
  setTimeout(read, again);
}}
document.getElementById("open").addEventListener("click", () => {{
  if (inbox) request("ui/open-link", {{url: inbox}}).catch((error) => put("note", "The inbox could not be opened: " + error.message));
}});
start();
"#,
        status_tool = json_string(STATUS_TOOL),
    )
}

/// `text` as a JavaScript string literal (JSON's, which JavaScript reads).
fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// `'sha256-…'`: a CSP source that allows exactly this inline text.
fn hash_source(text: &str) -> String {
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
    )
}

/// The document's own policy: nothing but its one script and one style.
pub(super) fn content_security_policy(script: &str) -> String {
    format!(
        "default-src 'none'; script-src {}; style-src {}; img-src 'none'; \
         connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; \
         form-action 'none'",
        hash_source(script),
        hash_source(STYLE)
    )
}

fn page(title: &str, body: &Markup, script: &str) -> String {
    let document = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(content_security_policy(script));
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body data-state="loading" {
                (body)
                script { (PreEscaped(script)) }
            }
        }
    };
    document.into_string()
}

fn preview_html() -> String {
    let body = html! {
        h1 { "Confirm this action" }
        p #message { "Waiting for the preview…" }
        ol #items {}
        p #until .muted {}
        div #actions .actions hidden {
            button #confirm .primary type="button" { "Confirm" }
            button #cancel type="button" { "Cancel" }
        }
        p #state .state hidden role="status" {}
    };
    page("Confirm this action", &body, &preview_script())
}

fn approval_html() -> String {
    let body = html! {
        h1 #title { "Waiting for approval" }
        div #details hidden {
            p { "Tool: " code #tool {} }
            p { "For: " span #principal {} }
            p { "Decide before: " span #until {} }
            pre #arguments {}
        }
        p #state .state role="status" { "Waiting for the call…" }
        p #note .muted {}
        div #actions .actions hidden {
            button #open .primary type="button" { "Open in the inbox" }
        }
    };
    page("Waiting for approval", &body, &approval_script())
}

/// The resource-level policy: every list empty, the extension's restrictive
/// default.
fn resource_ui() -> ResourceUi {
    ResourceUi {
        csp: Some(ResourceCsp::default()),
        prefers_border: Some(true),
    }
}

/// The preview card, built once.
pub(super) fn preview_card() -> &'static UiResource {
    static CARD: LazyLock<UiResource> = LazyLock::new(|| UiResource {
        uri: PREVIEW_CARD,
        name: "toolkit_preview_card",
        description: "The preview of a `confirm` tool's call, with Confirm and Cancel.",
        html: Arc::from(preview_html()),
        ui: resource_ui(),
    });
    &CARD
}

/// The approval card, built once.
pub(super) fn approval_card() -> &'static UiResource {
    static CARD: LazyLock<UiResource> = LazyLock::new(|| UiResource {
        uri: APPROVAL_CARD,
        name: "toolkit_approval_card",
        description: "An `approve` tool's call waiting for a person: what, for whom, until \
                      when, and its state.",
        html: Arc::from(approval_html()),
        ui: resource_ui(),
    });
    &CARD
}

/// The scripts, for tests of the policy.
#[cfg(test)]
pub(super) fn scripts() -> [String; 2] {
    [preview_script(), approval_script()]
}

/// The style, for tests of the policy.
#[cfg(test)]
pub(super) const fn style() -> &'static str {
    STYLE
}
