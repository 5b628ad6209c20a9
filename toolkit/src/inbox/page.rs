//! The inbox's HTML, written with maud: every value interpolated into a template
//! is HTML-escaped (`&`, `<`, `>`, `"`; attributes are always double-quoted), so a
//! model-written string can only ever become text. Nothing here builds a URL or a
//! script from model-written text.

use std::fmt::Write as _;

use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde_json::Value;

use crate::approval::{DecidedBy, DecisionRecord, PendingApproval, RunOutcome, RunRecord, Verdict};
use crate::error::Problem;
use crate::preview::Preview;
use crate::principal::Principal;
use crate::registry::RegisteredTool;

use super::form::{self, Field, Kind};

/// How many characters of one string the list shows; the edit form holds all.
pub(crate) const SHOWN_CHARS: usize = 600;

/// The page's style sheet, served beside the pages so the Content-Security-Policy
/// can forbid inline styles and every script.
pub(crate) const STYLE: &str = "\
:root{color-scheme:light;font-family:system-ui,sans-serif;font-size:15px;line-height:1.45}\
body{margin:0;background:#f4f5f7;color:#1d2330}\
header{background:#1d2330;color:#fff;padding:.7rem 1.5rem;display:flex;flex-wrap:wrap;gap:.4rem 1.5rem;align-items:baseline}\
header a{color:#cfd8ff}header .who{margin-left:auto;font-size:.9rem;display:flex;gap:.6rem;align-items:baseline;flex-wrap:wrap}header .who .text{background:none;font-weight:600;color:#fff}\
header form.sign-out{display:inline;margin:0}header button.sign-out{white-space:nowrap;padding:.1rem .6rem;font-size:.85rem;background:none;color:#cfd8ff;border-color:#cfd8ff}\
main{max-width:60rem;margin:0 auto;padding:1rem 1.5rem}\
.card{background:#fff;border:1px solid #d6d9e0;border-radius:8px;padding:1rem 1.2rem;margin:0 0 1rem}\
.card h2{margin:0;font-size:1.15rem}.card h2 code{font-size:.85rem;color:#555;margin-left:.4rem}\
.meta{color:#555;font-size:.88rem;margin:.3rem 0 .6rem}.meta span{margin-right:1rem}\
.description{margin:.3rem 0 .7rem;white-space:pre-line}\
.reason{margin:.3rem 0 .7rem;font-style:italic}.reason .text{font-style:normal}\
dl.arguments{display:grid;grid-template-columns:minmax(8rem,auto) 1fr;gap:.35rem 1rem;margin:.4rem 0}\
dl.arguments dt{font-weight:600;font-family:ui-monospace,monospace}\
dl.arguments dd{margin:0;min-width:0}\
.param-doc{color:#666;font-size:.85rem}\
.text{unicode-bidi:isolate;white-space:pre-wrap;overflow-wrap:anywhere;background:#f0f2f5;border-radius:3px;padding:0 .25rem}\
.invisible{font-size:.75rem;border:1px solid #c77;color:#a33;border-radius:3px;padding:0 .15rem;margin:0 .1rem}\
.cut{color:#a33;font-size:.85rem}.when,.amount{color:#555;font-size:.88rem}\
ol.items{margin:.2rem 0;padding-left:1.4rem}\
.preview{border-left:3px solid #6b8afd;padding:.2rem .8rem;margin:.6rem 0;background:#f5f7ff}\
.actions{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-start;margin-top:.8rem}\
.actions form{display:flex;gap:.4rem;align-items:flex-start}\
button,.button{font:inherit;padding:.35rem .9rem;border-radius:5px;border:1px solid #888;background:#fff;cursor:pointer;text-decoration:none;color:#1d2330}\
button.approve{background:#1f7a3a;border-color:#1f7a3a;color:#fff}button.deny{background:#fff;border-color:#a33;color:#a33}\
textarea,input,select{font:inherit;font-family:ui-monospace,monospace;font-size:.9rem;box-sizing:border-box;max-width:100%}\
textarea{width:100%;min-height:6rem}input[type=text]{width:100%}\
.field{margin:.8rem 0}.field label{font-weight:600;font-family:ui-monospace,monospace}\
.field.has-problem textarea,.field.has-problem input,.field.has-problem select{border:2px solid #c33}\
.problem{color:#b21f1f;font-size:.9rem;margin:.2rem 0}\
.as-json{color:#7a4b00;background:#fff6e0;border-radius:4px;padding:.2rem .5rem;font-size:.85rem;margin:.2rem 0}\
.notice{background:#e8f5ec;border:1px solid #8cc49e;padding:.6rem 1rem;border-radius:6px;margin-bottom:1rem}\
.refusal{background:#fdecec;border:1px solid #e3a0a0;padding:.6rem 1rem;border-radius:6px;margin-bottom:1rem}\
table{border-collapse:collapse;width:100%;background:#fff}th,td{border:1px solid #d6d9e0;padding:.35rem .5rem;text-align:left;vertical-align:top;font-size:.9rem}\
.table-scroll{overflow-x:auto;max-width:100%}\
main:has(table.decisions){max-width:90rem}\
th{white-space:nowrap}td .text,td code{overflow-wrap:break-word;word-break:normal}td:first-child,td.verdict{white-space:nowrap}\
.empty{color:#666}\
.person .issuer,.person .tenant{background:none;padding:0;color:#5b6270;font-size:.85em}header .who .person .issuer,header .who .person .tenant{color:#cfd8ff;font-weight:400}\
.someone-else{background:#f0f2f5;border-left:3px solid #888;padding:.4rem .8rem;margin:.8rem 0 0}";

/// What every page knows: where the inbox is mounted, who is looking, the form token.
pub(crate) struct Frame<'a> {
    /// The path the inbox is nested under (`/approvals`), or empty.
    pub(crate) base: &'a str,
    /// The inbox's title.
    pub(crate) title: &'a str,
    /// The approver's principal, or `None` before anyone signed in.
    pub(crate) approver: Option<&'a Principal>,
    /// The CSRF token for this approver's forms.
    pub(crate) csrf: &'a str,
    /// The application's sign-in page, if it named one.
    pub(crate) sign_in: Option<&'a str>,
    /// The application's sign-out route (a POST), if it named one.
    pub(crate) sign_out: Option<&'a str>,
}

impl Frame<'_> {
    /// The inbox's first page: the nesting path itself (axum's `nest` does not
    /// route it with a trailing slash), or `/`.
    pub(crate) fn home(&self) -> &str {
        if self.base.is_empty() { "/" } else { self.base }
    }
}

/// One pending approval, with what the page shows of its tool.
pub(crate) struct Card<'a> {
    /// The pending approval.
    pub(crate) pending: &'a PendingApproval,
    /// What the list left out of its arguments, if it did: shown instead of them.
    pub(crate) cut: Option<&'a crate::approval::CutArguments>,
    /// Its tool.
    pub(crate) tool: &'a RegisteredTool,
    /// The view that asked, when known.
    pub(crate) view: Option<&'a str>,
    /// Who asked, in the application's words, if its hook names them.
    pub(crate) requester: Option<String>,
    /// The model's stated reason for the call, if the application gives one.
    pub(crate) reason: Option<String>,
    /// The application's preview of the call, if it has one for the tool.
    pub(crate) preview: Option<Preview>,
    /// Why it can't be decided (a failed signature or digest check), if so.
    pub(crate) refused: Option<String>,
    /// Why the approvals' policy leaves this call to someone other than this
    /// approver (they asked for it, and the tool is decided by others), if so.
    pub(crate) someone_else: Option<String>,
}

pub(crate) fn layout(frame: &Frame<'_>, heading: &str, body: &Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (heading) " · " (frame.title) }
                link rel="stylesheet" href={ (frame.base) "/inbox.css" };
            }
            body {
                header {
                    strong { (frame.title) }
                    a href=(frame.home()) { "Waiting" }
                    a href={ (frame.base) "/decisions" } { "Decided" }
                    @if let Some(approver) = frame.approver {
                        span.who {
                            "Signed in as " (person(approver))
                            @if let Some(sign_out) = frame.sign_out {
                                form.sign-out method="post" action=(sign_out) {
                                    button.sign-out type="submit" { "Sign out" }
                                }
                            }
                        }
                    } @else if let Some(sign_in) = frame.sign_in {
                        span.who { a.sign-in href=(sign_in) { "Sign in" } }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// A page of its own for a refusal or a failure (no pending approval, no rights,
/// a bad token), with a way back.
pub(crate) fn message_page(frame: &Frame<'_>, heading: &str, message: &str) -> Markup {
    layout(
        frame,
        heading,
        &html! {
            div.refusal role="alert" { strong { (heading) } ": " (message) }
            @if frame.approver.is_some() {
                p { a href=(frame.home()) { "Back to the waiting calls" } }
            } @else if let Some(sign_in) = frame.sign_in {
                p { a.button.sign-in href=(sign_in) { "Sign in" } }
            }
        },
    )
}

/// What the store records of one decided call, shown above the list after a
/// decision on it.
pub(crate) struct Told {
    /// The tool's title, if it has one.
    pub(crate) title: Option<String>,
    /// Until when the approval may be resumed.
    pub(crate) resumable_until: u64,
    /// The store's now.
    pub(crate) now: u64,
    /// THE decision.
    pub(crate) record: DecisionRecord,
    /// What came of it, once a run of it started.
    pub(crate) run: Option<RunRecord>,
    /// When a runner tries it next, when its tool failed.
    pub(crate) next_attempt_at: Option<u64>,
}

impl Told {
    /// What happened to the call, in a sentence.
    fn what_happened(&self) -> String {
        if self.record.verdict == Verdict::Denied {
            return "Nothing ran; the model reads the reason.".to_owned();
        }
        match &self.run {
            None if self.now <= self.resumable_until => format!(
                "Waiting for the requester: it runs once, as approved, when it is resumed (until {}).",
                utc(self.resumable_until)
            ),
            None => format!(
                "Expired at {} without being resumed: nothing ran.",
                utc(self.resumable_until)
            ),
            Some(run) => {
                let words = outcome(false, Some(run), self.next_attempt_at);
                let mut chars = words.chars();
                chars.next().map_or_else(String::new, |first| {
                    format!("{}{}.", first.to_uppercase(), chars.as_str())
                })
            }
        }
    }
}

fn told(told: &Told) -> Markup {
    let record = &told.record;
    let verdict = match record.verdict {
        Verdict::Approved => "Approved",
        Verdict::ApprovedWithEdits => "Approved with edits",
        Verdict::Denied => "Denied",
    };
    html! {
        div.notice role="status" data-call-id=(record.call_id) data-verdict=(record.verdict.as_str()) {
            strong { (verdict) } " by " (decider(&record.decided_by))
            " at " (utc(record.decided_at)) ": "
            @if let Some(title) = &told.title { (title) } @else { code { (record.tool) } }
            " (call " code { (visible(&record.call_id, 200)) } ", for "
            (person(&record.principal)) "). "
            span.outcome { (visible(&told.what_happened(), SHOWN_CHARS)) }
        }
    }
}

/// The list of calls waiting for this approver.
pub(crate) fn list_page(
    frame: &Frame<'_>,
    cards: &[Card<'_>],
    notice: Option<&Told>,
    next: Option<&str>,
    now: u64,
) -> Markup {
    layout(
        frame,
        "Waiting for a decision",
        &html! {
            @if let Some(notice) = notice {
                (told(notice))
            }
            h1 { "Waiting for a decision" }
            @if cards.is_empty() {
                p.empty { "Nothing is waiting for you." }
            }
            @for card in cards {
                (pending_card(frame, card, now))
            }
            @if let Some(next) = next {
                p.empty { "More calls may be waiting: " a.older href={ (frame.base) "/?" (next) } { "older calls" } "." }
            }
        },
    )
}

fn pending_card(frame: &Frame<'_>, card: &Card<'_>, now: u64) -> Markup {
    let pending = card.pending;
    let tool = card.tool.tool();
    let schema = card.tool.schema();
    html! {
        section.card.pending data-call-id=(pending.call_id) data-tool=(pending.tool) {
            (tool_heading(tool))
            (meta(card, now))
            p.description { (tool.description) }
            @if let Some(reason) = &card.reason {
                p.reason { "The model's reason: " span.text { (visible(reason, SHOWN_CHARS)) } }
            }
            @if let Some(cut) = card.cut {
                p.cut {
                    "The arguments are " (cut.bytes) " bytes long, too long for the list; they begin "
                    code { (visible(&cut.start, SHOWN_CHARS)) }
                    ". Edit the call to see them all."
                }
            } @else {
                (arguments(schema, &form::fields(card.tool), &pending.arguments, &mut Budget::card()))
            }
            @if let Some(preview) = &card.preview {
                div.preview {
                    strong { "Preview: " } span.text { (visible(&preview.message, SHOWN_CHARS)) }
                    @if !preview.items.is_empty() {
                        @let budget = &mut Budget::card();
                        ol.items { @for item in &preview.items { li { (value(schema, &Value::Null, item, budget)) } } }
                    }
                }
            }
            @if let Some(reason) = &card.refused {
                div.refusal role="alert" { "This call cannot be decided: " (reason) ". Nothing will run." }
            } @else if let Some(reason) = &card.someone_else {
                p.someone-else role="note" { "Not yours to decide: " (reason) "." }
            } @else {
                div.actions {
                    form.approve method="post" action={ (frame.base) "/decide" } {
                        (hidden(frame, pending))
                        button.approve type="submit" name="action" value="approve" { "Approve" }
                        button.edit type="submit" name="action" value="edit" formaction={ (frame.base) "/edit" } { "Edit and approve…" }
                    }
                    form.deny method="post" action={ (frame.base) "/decide" } {
                        (hidden(frame, pending))
                        input type="hidden" name="action" value="deny";
                        input type="text" name="reason" required pattern=".*\\S.*" title="Write why the call should not run: the model reads it" placeholder="Why not (the model reads this)" aria-label="Reason for denying";
                        button.deny type="submit" { "Deny" }
                    }
                }
            }
        }
    }
}

/// The tool's title and name, or its name alone.
fn tool_heading(tool: &crate::tool::Tool) -> Markup {
    html! {
        h2 {
            @if let Some(title) = tool.title { (title) " " code { (tool.name) } } @else { code { (tool.name) } }
        }
    }
}

fn meta(card: &Card<'_>, now: u64) -> Markup {
    let pending = card.pending;
    html! {
        p.meta {
            @if let Some(requester) = &card.requester {
                span { "Asked by " span.text.requester { (visible(requester, SHOWN_CHARS)) } }
            } @else {
                span { "For " (person(&pending.principal)) }
                @if let Some(view) = card.view { span { "view " span.text { (visible(view, SHOWN_CHARS)) } } }
            }
            span { "asked " time datetime=(iso(pending.requested_at)) { (utc(pending.requested_at)) } }
            span { "expires " time datetime=(iso(pending.expires_at)) { (utc(pending.expires_at)) } " (" (remaining(pending.expires_at, now)) ")" }
            span { "call " code { (visible(&pending.call_id, 200)) } }
        }
    }
}

/// What every decision form sends back: the token, and which call it decides
/// (its principal and call id, as a JSON array: JSON escapes every character an
/// HTML attribute would not carry exactly). The signed pending approval itself
/// stays in the store, so a card weighs what it shows.
fn hidden(frame: &Frame<'_>, pending: &PendingApproval) -> Markup {
    html! {
        input type="hidden" name="csrf" value=(frame.csrf);
        input type="hidden" name="call" value=(call_field(pending));
    }
}

/// The `call` field naming `pending`: `["principal","call id"]`.
pub(crate) fn call_field(pending: &PendingApproval) -> String {
    serde_json::to_string(&(&pending.principal, &pending.call_id)).unwrap_or_default()
}

/// How much of one call's arguments the list shows, in characters: a card's weight
/// is bounded by what it shows, whatever the size of the arguments (the edit form
/// holds every value).
const CARD_BUDGET: usize = 2_000;

/// What a hidden character's mark costs against the budget: its markup is about
/// ten times a plain character's.
const MARK_COST: usize = 10;

/// What one array item or object member costs against the budget (its list markup).
const NODE_COST: usize = 5;

/// What is left to show of one card's values.
pub(crate) struct Budget {
    left: usize,
    cut: bool,
}

impl Budget {
    pub(crate) fn card() -> Self {
        Budget {
            left: CARD_BUDGET,
            cut: false,
        }
    }

    fn take(&mut self, cost: usize) {
        self.left = self.left.saturating_sub(cost);
    }

    /// The note where the budget ran out, once.
    fn note(&mut self) -> Markup {
        if std::mem::replace(&mut self.cut, true) {
            html! {}
        } else {
            html! { span.cut { "… the rest is not shown here; edit the call to see every argument" } }
        }
    }
}

/// The arguments laid out by the tool's parameters: name, description, value.
fn arguments(schema: &Value, fields: &[Field], arguments: &Value, budget: &mut Budget) -> Markup {
    let properties = schema.get("properties");
    html! {
        dl.arguments {
            @for field in fields {
                dt { (field.name) }
                dd data-param=(field.name) {
                    @match arguments.get(field.name) {
                        Some(argument) => {
                            (value(schema, properties.and_then(|p| p.get(field.name)).unwrap_or(&Value::Null), argument, budget))
                        }
                        None => { span.empty { "(not given)" } }
                    }
                    @if !field.description.is_empty() {
                        div.param-doc { (field.description) }
                    }
                }
            }
        }
    }
}

/// One value, laid out by its schema: objects as name/value lists with the
/// schema's descriptions, arrays as numbered lists, strings as visible text; as
/// much as `budget` leaves room for.
fn value(root: &Value, schema: &Value, value_: &Value, budget: &mut Budget) -> Markup {
    if budget.left == 0 {
        return budget.note();
    }
    let schema = form::resolve(root, schema);
    match value_ {
        Value::String(text) => {
            let (shown, cost) = visible_costed(text, SHOWN_CHARS, budget.left);
            budget.take(cost);
            html! {
                span.text { (shown) }
                @if let Some(when) = when(schema, text) { span.when { " (" (when) ")" } }
            }
        }
        Value::Array(items) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            let mut shown = Vec::new();
            for item in items {
                if budget.left == 0 {
                    break;
                }
                budget.take(NODE_COST);
                shown.push(value(root, item_schema, item, budget));
            }
            let unshown = items.len() - shown.len();
            html! {
                ol.items {
                    @for item in &shown { li { (item) } }
                    @if unshown > 0 {
                        li.cut { "… and " (unshown) " more items (" (items.len()) " in all); edit the call to see every one" }
                    }
                }
            }
        }
        Value::Object(members) => {
            let properties = object_properties(root, schema, members);
            let mut shown = Vec::new();
            for (name, member) in members {
                if budget.left == 0 {
                    break;
                }
                budget.take(NODE_COST);
                let member_schema = properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
                let (key, cost) = visible_costed(name, 200, budget.left);
                budget.take(cost);
                let doc = form::resolve(root, member_schema)
                    .get("description")
                    .and_then(Value::as_str);
                shown.push((name, key, value(root, member_schema, member, budget), doc));
            }
            let unshown = members.len() - shown.len();
            html! {
                dl.arguments {
                    @for (name, key, member, doc) in &shown {
                        dt { span.text { (key) } }
                        dd data-key=(name) {
                            (member)
                            @if let Some(doc) = doc {
                                div.param-doc { (doc) }
                            }
                        }
                    }
                }
                @if unshown > 0 {
                    span.cut { "… and " (unshown) " more members (" (members.len()) " in all); edit the call to see every one" }
                }
            }
        }
        scalar => {
            let text = scalar.to_string();
            budget.take(text.len());
            html! {
                code { (text) }
                @if let Some(amount) = amount(schema, scalar) { span.amount { " (" (amount) ")" } }
            }
        }
    }
}

/// The date or time a string stands for, in words, when its schema says it is one
/// (JSON Schema's `format`: `date-time` is RFC 3339, read in UTC so that an
/// offset can't make a time look like another; `date` is a full date, given its
/// weekday). Nothing for any other string: a date is only read where the tool
/// declared one.
fn when(schema: &Value, text: &str) -> Option<String> {
    match schema.get("format")?.as_str()? {
        "date-time" => chrono::DateTime::parse_from_rfc3339(text).ok().map(|time| {
            time.with_timezone(&chrono::Utc)
                .format("%A %-d %B %Y, %H:%M:%S UTC")
                .to_string()
        }),
        "date" => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .ok()
            .map(|date| date.format("%A %-d %B %Y").to_string()),
        _ => None,
    }
}

/// The sum an integer stands for, in words, when its schema says it is money: the
/// extension keyword `x-currency` (an ISO 4217 code, `"EUR"`) on an integer makes
/// it an amount in the currency's minor unit, with `x-minor-units` digits after
/// the point (2 unless said: cents). A tool declares it with schemars, on the
/// parameter: `#[schemars(extend("x-currency" = "EUR"))]`. JSON Schema has no
/// keyword for money, and `format` values it does not define are dropped from
/// the schema the model sees; unknown keywords are annotations every validator
/// ignores. Nothing for any other number: an amount is only read where the tool
/// declared one.
fn amount(schema: &Value, number: &Value) -> Option<String> {
    let currency = schema.get("x-currency")?.as_str()?;
    if currency.is_empty()
        || currency.len() > 8
        || !currency.chars().all(|c| c.is_ascii_alphabetic())
    {
        return None;
    }
    let digits = match schema.get("x-minor-units") {
        None => 2,
        Some(digits) => u32::try_from(digits.as_u64()?).ok().filter(|&d| d <= 6)?,
    };
    let minor = number.as_i64()?;
    let scale = 10_u64.pow(digits);
    let magnitude = minor.unsigned_abs();
    let (whole, fraction) = (magnitude / scale, magnitude % scale);
    // Thousands grouped with commas, as an English-speaking approver reads them.
    let whole = whole.to_string();
    let mut grouped = String::with_capacity(whole.len() + whole.len() / 3);
    for (index, digit) in whole.chars().enumerate() {
        if index > 0 && (whole.len() - index) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    let sign = if minor < 0 { "-" } else { "" };
    Some(if digits == 0 {
        format!("{sign}{grouped} {currency}")
    } else {
        format!(
            "{sign}{grouped}.{fraction:0width$} {currency}",
            width = digits as usize
        )
    })
}

/// The `properties` describing an object: its own, or those of the `oneOf`/`anyOf`
/// branch whose properties cover the object's members (tagged enums).
fn object_properties<'s>(
    root: &'s Value,
    schema: &'s Value,
    members: &serde_json::Map<String, Value>,
) -> Option<&'s serde_json::Map<String, Value>> {
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        return Some(properties);
    }
    ["oneOf", "anyOf"]
        .iter()
        .filter_map(|key| schema.get(*key).and_then(Value::as_array))
        .flatten()
        .map(|branch| form::resolve(root, branch))
        .filter_map(|branch| branch.get("properties").and_then(Value::as_object))
        .find(|properties| {
            members.iter().all(|(name, member)| {
                properties.get(name).is_some_and(|property| {
                    property
                        .get("const")
                        .is_none_or(|constant| constant == member)
                })
            })
        })
}

/// The edit form: one field per parameter, typed by the schema, each problem
/// beside its field.
pub(crate) fn edit_page(
    frame: &Frame<'_>,
    card: &Card<'_>,
    entered: &[(String, String)],
    problems: &[Problem],
    now: u64,
) -> Markup {
    let pending = card.pending;
    let tool = card.tool.tool();
    let fields = form::fields_for(card.tool, &pending.arguments);
    let loose: Vec<&Problem> = problems
        .iter()
        .filter(|problem| form::field_of(&fields, problem).is_none())
        .collect();
    html! {
        (layout(frame, "Edit and approve", &html! {
            h1 { "Edit and approve" }
            section.card {
                (tool_heading(tool))
                (meta(card, now))
                p.description { (tool.description) }
                @if !problems.is_empty() {
                    div.refusal role="alert" { "Nothing was approved: fix the arguments marked below." }
                }
                @for problem in &loose {
                    p.problem { code { (problem.path) } ": " (problem.message) }
                }
                form.edit method="post" action={ (frame.base) "/decide" } novalidate {
                    (hidden(frame, pending))
                    // Enter in a field submits with the form's default button, its first
                    // (HTML, "Implicit submission"); a disabled one submits nothing, so
                    // approving takes a click on the button that says so.
                    button.enter-does-nothing type="submit" disabled hidden aria-hidden="true" tabindex="-1" {}
                    @for field in &fields {
                        (edit_field(field, pending, entered, problems))
                    }
                    div.actions {
                        button.approve type="submit" name="action" value="approve_with" { "Approve with these arguments" }
                        a.button href=(frame.home()) { "Cancel" }
                    }
                }
            }
        }))
    }
}

fn edit_field(
    field: &Field,
    pending: &PendingApproval,
    entered: &[(String, String)],
    problems: &[Problem],
) -> Markup {
    let name = form::input_name(field.name);
    let id = format!("field-{}", field.name);
    let text = entered.iter().find(|(key, _)| *key == name).map_or_else(
        || form::initial_text(&field.kind, pending.arguments.get(field.name)),
        |(_, text)| text.clone(),
    );
    let own: Vec<&Problem> = problems
        .iter()
        .filter(|problem| form::field_of(std::slice::from_ref(field), problem).is_some())
        .collect();
    let problem_id = format!("problem-{}", field.name);
    html! {
        div.field.has-problem[!own.is_empty()] data-field=(field.name) {
            label for=(id) { (field.name) }
            @if field.required { " (required)" }
            @if !field.description.is_empty() { div.param-doc { (field.description) } }
            @if field.as_json {
                div.as-json {
                    "Shown as JSON: the value holds characters a text box would change or hide \
                     (a carriage return, NUL, a hidden or look-alike character, or a value a \
                     field can't hold, such as an empty optional text); each is written as a \
                     \\u escape. Left as it is, it runs exactly as asked."
                }
            }
            @match &field.kind {
                Kind::Choice(choices) => {
                    select id=(id) name=(name) aria-describedby=(problem_id) {
                        @if !field.required { option value="" selected[text.is_empty()] { "(not given)" } }
                        @for choice in choices { option value=(choice) selected[*choice == text] { (choice) } }
                    }
                }
                Kind::Boolean => {
                    select id=(id) name=(name) aria-describedby=(problem_id) {
                        @if !field.required { option value="" selected[text.is_empty()] { "(not given)" } }
                        option value="true" selected[text == "true"] { "true" }
                        option value="false" selected[text == "false"] { "false" }
                    }
                }
                Kind::Text if form::single_line(&field.kind, &text) => {
                    input type="text" id=(id) name=(name) value=(text) aria-describedby=(problem_id);
                }
                Kind::Integer | Kind::Number => {
                    input type="text" inputmode="decimal" id=(id) name=(name) value=(text) aria-describedby=(problem_id);
                }
                _ => {
                    // The parser drops one newline right after `<textarea>`: give it one,
                    // so a value that starts with a newline keeps it.
                    textarea id=(id) name=(name) rows=(text.lines().count().clamp(4, 24)) aria-describedby=(problem_id) { "\n" (text) }
                }
            }
            div.problems id=(problem_id) {
                @for problem in &own {
                    p.problem { code { (problem.path) } ": " (problem.message) }
                }
            }
        }
    }
}

/// One decision of the audit list, as the page shows it.
pub(crate) struct AuditRow<'a> {
    pub(crate) decided_at: u64,
    pub(crate) decided_by: &'a DecidedBy,
    pub(crate) verdict: &'a str,
    pub(crate) tool: &'a str,
    /// The tool's title, if it has one.
    pub(crate) title: Option<&'static str>,
    pub(crate) principal: &'a Principal,
    pub(crate) call_id: &'a str,
    pub(crate) message: Option<&'a str>,
    /// What came of the call, in words ([`outcome`]).
    pub(crate) outcome: String,
}

/// What came of a decided call, in words: nothing for a denial; for an approval,
/// when it ran and with what, why it failed and when it is tried next
/// (`next_attempt_at`), or that it has not run.
pub(crate) fn outcome(
    denied: bool,
    run: Option<&RunRecord>,
    next_attempt_at: Option<u64>,
) -> String {
    if denied {
        return "nothing ran".to_owned();
    }
    let Some(run) = run else {
        return "not run yet".to_owned();
    };
    let when = run.ended_at.map(utc).unwrap_or_default();
    match (&run.outcome, run.done) {
        (
            Some(RunOutcome::Ran {
                result: Some(result),
                ..
            }),
            true,
        ) => {
            format!("ran at {when}, with the result {result}")
        }
        // Recorded before stores kept outcomes: when and with what is not known.
        (Some(RunOutcome::Ran { bytes: 0, .. }), true) => {
            "ran, before its result was kept".to_owned()
        }
        (Some(RunOutcome::Ran { bytes, .. }), true) => {
            format!("ran at {when}, with a result of {bytes} bytes")
        }
        (Some(RunOutcome::Failed { message, .. }), true) => format!("refused at {when}: {message}"),
        (Some(RunOutcome::Failed { message, .. }), false) if run.lease_until == 0 => {
            match next_attempt_at {
                Some(next) => format!(
                    "attempt {} failed at {when}, tried again from {}: {message}",
                    run.attempt,
                    utc(next)
                ),
                None => format!("failed at {when}, may run again: {message}"),
            }
        }
        _ => format!("running (attempt {})", run.attempt),
    }
}

pub(crate) fn audit_page(frame: &Frame<'_>, rows: &[AuditRow<'_>]) -> Markup {
    layout(
        frame,
        "Decided",
        &html! {
            h1 { "Decided" }
            @if rows.is_empty() {
                p.empty { "Nothing you may see was decided yet." }
            } @else {
                // Wider than a phone: the table scrolls inside its box, the page does not.
                div.table-scroll { table.decisions {
                    thead { tr { th { "When" } th { "Who" } th { "Decision" } th { "Tool" } th { "For" } th { "Call" } th { "Message" } th { "Outcome" } } }
                    tbody {
                        @for row in rows {
                            tr data-call-id=(row.call_id) {
                                td { time datetime=(iso(row.decided_at)) { (utc(row.decided_at)) } }
                                td { (decider(row.decided_by)) }
                                td.verdict { (row.verdict) }
                                td { @if let Some(title) = row.title { (title) " " } code { (row.tool) } }
                                td { (person(row.principal)) }
                                td { code { (visible(row.call_id, 200)) } }
                                td { @if let Some(message) = row.message { span.text { (visible(message, SHOWN_CHARS)) } } }
                                td.outcome { span.text { (visible(&row.outcome, SHOWN_CHARS)) } }
                            }
                        }
                    }
                } }
            }
        },
    )
}

/// A principal as a person reads it, worded by
/// [`Principal::display_name`](crate::Principal::display_name): the subject, the
/// issuer that signed it in set apart (`.issuer`, secondary), the tenant. Its key
/// (what machines compare) is the `data-principal` attribute.
fn person(principal: &Principal) -> Markup {
    let name = principal.display_name();
    html! {
        span.person data-principal=(principal.key()) {
            span.text.subject { (visible(name.subject(), SHOWN_CHARS)) }
            @if let Some(words) = name.issuer_words() {
                " " span.text.issuer { (visible(&words, SHOWN_CHARS)) }
            }
            @if let Some(words) = name.tenant_words() {
                span.text.tenant { (visible(&words, SHOWN_CHARS)) }
            }
        }
    }
}

/// Who decided: a [person], or `the requester` / `the application` in words.
fn decider(decided_by: &DecidedBy) -> Markup {
    match decided_by.principal() {
        Some(principal) => person(principal),
        None => html! { span.text.decider { (decided_by.name()) } },
    }
}

/// Model-written text for display: escaped (by maud), hidden characters shown as
/// `U+XXXX` marks, cut after `limit` characters with a note saying how much more
/// there is.
pub(crate) fn visible(text: &str, limit: usize) -> Markup {
    visible_costed(text, limit, usize::MAX).0
}

/// [`visible`], also cut where the characters shown would cost more than `budget`
/// (a plain character costs 1, a hidden one's mark [`MARK_COST`]); and what they
/// cost.
fn visible_costed(text: &str, limit: usize, budget: usize) -> (Markup, usize) {
    let mut html = String::new();
    let mut plain = String::new();
    let mut shown = 0usize;
    let mut cost = 0usize;
    for c in text.chars() {
        let hidden = form::is_hidden(c);
        let price = if hidden { MARK_COST } else { 1 };
        if shown == limit || cost + price > budget {
            break;
        }
        shown += 1;
        cost += price;
        if hidden {
            maud::Escaper::new(&mut html).write_str(&plain).ok();
            plain.clear();
            let _ = write!(
                html,
                "<span class=\"invisible\" title=\"a hidden character\">U+{:04X}</span>",
                u32::from(c)
            );
        } else {
            plain.push(c);
        }
    }
    maud::Escaper::new(&mut html).write_str(&plain).ok();
    let total = text.chars().count();
    if total > shown {
        let _ = write!(
            html,
            "<span class=\"cut\"> … and {} more characters ({} in all); edit the call to see every one</span>",
            total - shown,
            total
        );
    }
    (PreEscaped(html), cost)
}

/// `2026-11-23 09:00:00 UTC`.
pub(crate) fn utc(seconds: u64) -> String {
    let (year, month, day, hour, minute, second) = civil(seconds);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02} UTC")
}

/// `2026-11-23T09:00:00Z`.
fn iso(seconds: u64) -> String {
    let (year, month, day, hour, minute, second) = civil(seconds);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z")
}

/// `in 3 h 5 min`, or `expired`.
fn remaining(expires_at: u64, now: u64) -> String {
    if now > expires_at {
        return "expired".to_owned();
    }
    let minutes = (expires_at - now) / 60;
    match (minutes / 60, minutes % 60) {
        (0, minutes) => format!("in {minutes} min"),
        (hours, 0) => format!("in {hours} h"),
        (hours, minutes) => format!("in {hours} h {minutes} min"),
    }
}

/// Unix seconds as a proleptic Gregorian UTC date and time (Howard Hinnant's
/// `civil_from_days`, exact for every `u64` the inbox meets).
fn civil(seconds: u64) -> (i64, u32, u32, u64, u64, u64) {
    let days = i64::try_from(seconds / 86_400).unwrap_or(i64::MAX / 2);
    let rest = seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = u32::try_from(day_of_year - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day, rest / 3600, rest % 3600 / 60, rest % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_is_escaped_and_hidden_characters_are_shown() {
        let html = visible(
            "<script>alert(\"x\")</script> & '\u{202E}gpj.exe\u{200B}",
            100,
        )
        .into_string();
        assert_eq!(
            html,
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; '\
             <span class=\"invisible\" title=\"a hidden character\">U+202E</span>gpj.exe\
             <span class=\"invisible\" title=\"a hidden character\">U+200B</span>"
        );
    }

    #[test]
    fn long_text_is_cut_with_a_note() {
        let html = visible(&"é".repeat(10), 4).into_string();
        assert_eq!(
            html,
            "éééé<span class=\"cut\"> … and 6 more characters (10 in all); edit the call to see every one</span>"
        );
    }

    #[test]
    fn strings_the_schema_calls_dates_are_read_in_utc() {
        let shown = |schema: Value, text: &str| {
            value(
                &Value::Null,
                &schema,
                &Value::from(text),
                &mut Budget::card(),
            )
            .into_string()
        };
        assert_eq!(
            shown(
                serde_json::json!({"type": "string", "format": "date-time"}),
                "2026-11-24T11:30:00+05:00"
            ),
            "<span class=\"text\">2026-11-24T11:30:00+05:00</span>\
             <span class=\"when\"> (Tuesday 24 November 2026, 06:30:00 UTC)</span>"
        );
        assert_eq!(
            shown(
                serde_json::json!({"type": "string", "format": "date"}),
                "2026-11-24"
            ),
            "<span class=\"text\">2026-11-24</span><span class=\"when\"> (Tuesday 24 November 2026)</span>"
        );
        // Not what the format says, or no format: the text alone.
        assert_eq!(
            shown(
                serde_json::json!({"type": "string", "format": "date-time"}),
                "tomorrow at ten"
            ),
            "<span class=\"text\">tomorrow at ten</span>"
        );
        assert_eq!(
            shown(serde_json::json!({"type": "string"}), "2026-11-24"),
            "<span class=\"text\">2026-11-24</span>"
        );
    }

    #[test]
    fn integers_the_schema_calls_money_are_shown_as_amounts() {
        let shown = |schema: Value, number: Value| {
            value(&Value::Null, &schema, &number, &mut Budget::card()).into_string()
        };
        let cents = serde_json::json!({"type": "integer", "x-currency": "EUR"});
        assert_eq!(
            shown(cents.clone(), Value::from(200_150)),
            "<code>200150</code><span class=\"amount\"> (2,001.50 EUR)</span>"
        );
        assert_eq!(
            shown(cents.clone(), Value::from(-5)),
            "<code>-5</code><span class=\"amount\"> (-0.05 EUR)</span>"
        );
        assert_eq!(
            shown(
                serde_json::json!({"type": "integer", "x-currency": "JPY", "x-minor-units": 0}),
                Value::from(1_234_567)
            ),
            "<code>1234567</code><span class=\"amount\"> (1,234,567 JPY)</span>"
        );
        // Not an integer, a currency that is no code, or no currency: the number alone.
        assert_eq!(shown(cents, Value::from(2.5)), "<code>2.5</code>");
        assert_eq!(
            shown(
                serde_json::json!({"type": "integer", "x-currency": "<b>"}),
                Value::from(1)
            ),
            "<code>1</code>"
        );
        assert_eq!(
            shown(serde_json::json!({"type": "integer"}), Value::from(200_150)),
            "<code>200150</code>"
        );
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(1_795_424_400), "2026-11-23 09:00:00 UTC");
        assert_eq!(iso(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(remaining(1000, 1001), "expired");
        assert_eq!(remaining(1000 + 3 * 3600 + 300, 1000), "in 3 h 5 min");
        assert_eq!(remaining(1000 + 59, 1000), "in 0 min");
    }
}
