//! The `tracing` span of every dispatch through a view or the registry, read by a
//! capturing subscriber: exact fields, arguments only for tools the view opts in,
//! and nothing at all when no subscriber is interested.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use example_assistant::AssistantState;
use serde_json::{Map, Value, json};
use toolkit::runtime::RuntimeTool;
use toolkit::{Context, Registry, Response, Scope};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

/// One span as the subscriber saw it: its name and every field recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Captured {
    name: &'static str,
    fields: BTreeMap<&'static str, String>,
}

/// Records the spans whose target starts with `prefix`; `interested: false` is a
/// subscriber that wants none.
#[derive(Clone)]
struct Capture {
    prefix: &'static str,
    interested: bool,
    spans: Arc<Mutex<Vec<Captured>>>,
}

impl Capture {
    fn new(interested: bool) -> Self {
        Capture {
            prefix: "toolkit::call",
            interested,
            spans: Arc::default(),
        }
    }

    /// The spans so far, each with `duration_us` checked to be a number and then
    /// left out (it varies).
    fn take(&self) -> Vec<Captured> {
        let mut spans = self.spans.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::take(&mut *spans)
            .into_iter()
            .map(|mut span| {
                let duration = span.fields.remove("duration_us").expect("a duration");
                duration.parse::<u64>().expect("microseconds");
                span
            })
            .collect()
    }
}

struct Fields<'a>(&'a mut BTreeMap<&'static str, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), value.to_owned());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name(), value.to_string());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name(), value.to_string());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name(), format!("{value:?}"));
    }
}

impl Subscriber for Capture {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        // Asked again per span: tests on other threads have other subscribers.
        Interest::sometimes()
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.interested && metadata.target().starts_with(self.prefix)
    }

    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        let mut fields = BTreeMap::new();
        attributes.record(&mut Fields(&mut fields));
        let mut spans = self.spans.lock().unwrap_or_else(PoisonError::into_inner);
        spans.push(Captured {
            name: attributes.metadata().name(),
            fields,
        });
        Id::from_u64(spans.len() as u64)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().unwrap_or_else(PoisonError::into_inner);
        let index = usize::try_from(span.into_u64() - 1).unwrap();
        values.record(&mut Fields(&mut spans[index].fields));
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

fn span(fields: &[(&'static str, &str)]) -> Captured {
    Captured {
        name: "toolkit.call",
        fields: fields
            .iter()
            .map(|&(name, value)| (name, value.to_owned()))
            .collect(),
    }
}

#[tokio::test]
async fn every_dispatch_has_a_span_with_exact_fields() {
    let capture = Capture::new(true);
    let _default = tracing::subscriber::set_default(capture.clone());
    let ctx = Context::new().with(AssistantState::new());
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .label("copilot")
        .log_arguments(["create_task"]) // an alias names the tool
        .build()
        .unwrap();

    let created = view
        .call(
            "create_tasks",
            r#"{"tasks": [{"title": "Water the plants"}]}"#,
            &ctx,
        )
        .await;
    assert!(created.result().is_some(), "{created:?}");
    let listed = view.call("get_tasks", r#"{"limit": 5}"#, &ctx).await;
    assert!(listed.result().is_some(), "{listed:?}");
    let bad = view.call("get_tasks", r#"{"limit": "ten"}"#, &ctx).await;
    assert!(bad.error().is_some());
    let preview = view.call("delete_tasks", r#"{"ids": [1]}"#, &ctx).await;
    assert!(matches!(preview, Response::Preview(_)), "{preview:?}");
    let approve = view.call("delete_memories", r#"{"ids": [1]}"#, &ctx).await;
    assert!(approve.error().is_some());
    let unknown = view.call("get_weather\u{7}", "{}", &ctx).await;
    assert!(unknown.error().is_some());
    let direct = toolkit::registry().call("get_tasks", "{}", &ctx).await;
    assert!(direct.result().is_some());

    let shared = [("scope", "shared"), ("view", "copilot")];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut fields = shared.to_vec();
        fields.extend_from_slice(extra);
        span(&fields)
    };
    assert_eq!(
        capture.take(),
        [
            with(&[
                ("tool", "create_tasks"),
                ("tier", "auto"),
                ("outcome", "ok"),
                ("arguments", r#"{"tasks": [{"title": "Water the plants"}]}"#),
            ]),
            // Arguments only for the tools the view names.
            with(&[("tool", "get_tasks"), ("tier", "auto"), ("outcome", "ok")]),
            with(&[
                ("tool", "get_tasks"),
                ("tier", "auto"),
                ("outcome", "invalid_arguments"),
            ]),
            with(&[
                ("tool", "delete_tasks"),
                ("tier", "confirm"),
                ("outcome", "preview"),
            ]),
            with(&[
                ("tool", "delete_memories"),
                ("tier", "approve"),
                ("outcome", "approval_required"),
            ]),
            // An unknown name: as called, control characters escaped; no scope or
            // tier.
            span(&[
                ("tool", r"get_weather\u{7}"),
                ("view", "copilot"),
                ("outcome", "unknown_tool"),
            ]),
            span(&[
                ("tool", "get_tasks"),
                ("scope", "shared"),
                ("tier", "auto"),
                ("view", "registry"),
                ("outcome", "ok"),
            ]),
        ]
    );
}

#[tokio::test]
async fn a_runtime_tool_span_says_so() {
    let capture = Capture::new(true);
    let _default = tracing::subscriber::set_default(capture.clone());
    let echo = RuntimeTool::builder(
        "docs_echo",
        "Echo a text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    )
    .group("docs")
    .build(|arguments: Map<String, Value>, _: &Context| async move {
        Response::Result(arguments.get("text").cloned().unwrap_or_default())
    })
    .unwrap();
    let registry = Registry::with_runtime([], [echo]).unwrap();
    let view = registry.view().build().unwrap();
    let echoed = view
        .call("docs_echo", r#"{"text": "hi"}"#, &Context::new())
        .await;
    assert_eq!(echoed, Response::Result(json!("hi")));
    assert_eq!(
        capture.take(),
        [span(&[
            ("tool", "docs_echo"),
            ("scope", "shared"),
            ("tier", "auto"),
            ("runtime", "true"),
            ("outcome", "ok"),
        ])]
    );
}

#[tokio::test]
async fn no_span_when_no_subscriber_is_interested() {
    let capture = Capture::new(false);
    let _default = tracing::subscriber::set_default(capture.clone());
    let ctx = Context::new().with(AssistantState::new());
    let view = toolkit::registry().view().label("copilot").build().unwrap();
    let listed = view.call("get_tasks", "{}", &ctx).await;
    assert_eq!(listed, Response::Result(json!([])));
    assert!(
        capture
            .spans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    );
}
