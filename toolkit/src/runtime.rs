//! Tools defined at run time: a definition read from somewhere (another MCP
//! server, a configuration file) and the code that answers its calls, kept in a
//! [`Registry`](crate::Registry) beside the `#[tool]`s so views list, render, route and call them
//! exactly like local ones.
//!
//! ```
//! use serde_json::{Map, Value, json};
//! use toolkit::runtime::RuntimeTool;
//! use toolkit::{Context, Dialect, Response, Scope};
//!
//! let echo = RuntimeTool::builder(
//!     "docs_echo",
//!     "Echo a text.",
//!     json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
//! )
//! .group("docs")
//! .build(|arguments: Map<String, Value>, _: &Context| async move {
//!     Response::Result(arguments["text"].clone())
//! })?;
//!
//! let registry = toolkit::Registry::with_runtime([], [echo])?;
//! let view = registry.view().scopes([Scope::Shared]).build()?;
//! let routed: Vec<_> = view.catalog().iter().map(|entry| entry.name.clone()).collect();
//! assert_eq!(routed, ["docs_echo"]);
//! # futures_executor::block_on(async {
//! let response = view.call("docs_echo", r#"{"text": "hi"}"#, &Context::new()).await;
//! assert_eq!(response.result(), Some(&json!("hi")));
//! # });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A runtime tool's definition is a [`Tool`] like any other (so catalogs, prompts
//! and renderers need nothing new); its strings must live as long as the process,
//! so each *distinct* definition is kept once, process-wide, and reused when the
//! same definition is built again (a server listed again, a registry rebuilt). The
//! memory this keeps is bounded: at most [`MAX_DEFINITION_BYTES`] in all, after
//! which [`RuntimeToolBuilder::build`] refuses with
//! [`RuntimeToolError::TooManyDefinitions`]. The code that answers calls
//! (a [`Forward`]) is not kept: it lives in the registry and goes with it.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::{Map, Value};

use crate::context::Context;
use crate::declaration::{Location, Param, Scope, Tier};
use crate::error::ToolError;
use crate::response::Response;
use crate::tool::{CallFuture, Tool};

/// How many bytes of runtime definitions (names, descriptions, parameters and the
/// schema text they are told apart by) one process keeps at most: 16 MiB, some
/// tens of thousands of typical tools.
pub const MAX_DEFINITION_BYTES: usize = 16 << 20;

/// How deeply a runtime tool's arguments schema may nest objects and arrays:
/// `serde_json`'s own limit when it parses text, so any schema read from JSON
/// fits, and a value built in code can't overflow the stack of the walks over it.
pub const MAX_SCHEMA_DEPTH: usize = 128;

/// The longest name a runtime tool may have: the strictest provider limit
/// (OpenAI's 64).
pub const MAX_NAME_LEN: usize = 64;

/// The code that answers a runtime tool's calls.
///
/// A call reaches [`Forward::forward`] only after the view's rules (scope,
/// allowlist, tier and approvals) and the same argument checks as a local tool's:
/// the [`Limits`](crate::call::Limits) and the schema the model saw, every problem reported. A panic
/// inside it is caught like a local tool's.
///
/// Implemented for closures `Fn(Map<String, Value>, &Context) -> impl Future<Output =
/// Response>` (annotate the context parameter, `ctx: &Context`, so the closure takes
/// any lifetime).
pub trait Forward: Send + Sync + 'static {
    /// Answers one call with its checked arguments (`{}` for empty arguments).
    fn forward<'a>(&'a self, arguments: Map<String, Value>, ctx: &'a Context) -> CallFuture<'a>;

    /// Whether the tool may be offered now. A tool that says `false` leaves every
    /// view built from then on, and its calls are answered like an unknown tool's
    /// (an external server's tool whose definition no longer matches its pin).
    fn available(&self) -> bool {
        true
    }
}

impl<F, Fut> Forward for F
where
    F: Fn(Map<String, Value>, &Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Response> + Send + 'static,
{
    fn forward<'a>(&'a self, arguments: Map<String, Value>, ctx: &'a Context) -> CallFuture<'a> {
        Box::pin(self(arguments, ctx))
    }
}

/// Writes `name` with `[A-Za-z0-9_]` kept and every other byte as `-` and two
/// lowercase hex digits (`files.read` -> `files-2eread`): how a tool named by
/// another server (an external MCP server's `get-bilibili-rank`) fits every
/// provider's name rule. [`unescape_name`] reverses it; the router reads a
/// runtime tool's name through it, so `get-2dbilibili-2drank` is indexed as
/// get, bilibili, rank.
#[must_use]
pub fn escape_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'_' {
            out.push(char::from(byte));
        } else {
            // Writing to a `String` can't fail.
            let _ = write!(out, "-{byte:02x}");
        }
    }
    out
}

/// The inverse of [`escape_name`]; `None` for text `escape_name` never writes.
#[must_use]
pub fn unescape_name(escaped: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(escaped.len());
    let mut rest = escaped.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'-' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            let byte = u8::from_str_radix(hex, 16).ok()?;
            if byte.is_ascii_alphanumeric() || byte == b'_' || hex != format!("{byte:02x}") {
                return None;
            }
            bytes.push(byte);
            rest = &tail[2..];
        } else if first.is_ascii_alphanumeric() || first == b'_' {
            bytes.push(first);
            rest = tail;
        } else {
            return None;
        }
    }
    String::from_utf8(bytes).ok()
}

/// A tool defined at run time, ready to join a registry
/// ([`Registry::with_runtime`](crate::Registry::with_runtime)).
#[derive(Clone)]
pub struct RuntimeTool {
    pub(crate) tool: &'static Tool,
    pub(crate) schema: Value,
    /// The schema as its author wrote it, when it is served so to MCP
    /// ([`RuntimeToolBuilder::mcp_schema_as_written`]).
    pub(crate) as_written: Option<Value>,
    pub(crate) source: Source,
}

impl RuntimeTool {
    /// Starts a runtime tool named `name` (1 to [`MAX_NAME_LEN`] characters of
    /// `[A-Za-z0-9_-]`), described by `description`, whose arguments follow
    /// `input_schema` (a JSON Schema object with `"type": "object"`; cleaned like a
    /// local tool's). Defaults: scope `shared`, tier `auto`, routed (a runtime tool
    /// is never `always`), no group.
    pub fn builder(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> RuntimeToolBuilder {
        RuntimeToolBuilder {
            name: name.into(),
            description: description.into(),
            input_schema,
            scope: Scope::Shared,
            tier: Tier::Auto,
            group: None,
            title: None,
            as_written: false,
        }
    }

    /// The definition: name, description, scope, tier, group, parameters.
    #[must_use]
    pub fn tool(&self) -> &'static Tool {
        self.tool
    }

    /// The cleaned schema of the arguments: what every provider dialect starts
    /// from ([`crate::schema`]).
    #[must_use]
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The arguments schema as its author wrote it, if the tool serves it so to
    /// MCP clients ([`RuntimeToolBuilder::mcp_schema_as_written`]).
    #[must_use]
    pub fn schema_as_written(&self) -> Option<&Value> {
        self.as_written.as_ref()
    }
}

impl fmt::Debug for RuntimeTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeTool")
            .field("tool", self.tool)
            .finish_non_exhaustive()
    }
}

/// Builds a [`RuntimeTool`]; made by [`RuntimeTool::builder`].
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct RuntimeToolBuilder {
    name: String,
    description: String,
    input_schema: Value,
    scope: Scope,
    tier: Tier,
    group: Option<String>,
    title: Option<String>,
    as_written: bool,
}

impl RuntimeToolBuilder {
    /// Who may use it (`shared`, `agent` or `assistant`; a `channel` tool is bound
    /// to a live channel a runtime tool can't have).
    pub fn scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    /// Whether a human must approve a call: `auto` or `approve` (`confirm` needs a
    /// preview only the tool's own code can write).
    pub fn tier(mut self, tier: Tier) -> Self {
        self.tier = tier;
        self
    }

    /// The family it belongs to: for an external server's tools, the server's label.
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = Some(group.into());
        self
    }

    /// A human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Serves the arguments schema to MCP clients exactly as written (`$schema`,
    /// `$defs` with `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`, `title`, ...),
    /// and checks calls against it; every other dialect still gets the cleaned
    /// schema ([`crate::schema`]).
    ///
    /// MCP (2025-11-25 and 2026-07-28) makes JSON Schema 2020-12 the dialect of
    /// `inputSchema`, and its conformance suite checks that a server keeps those
    /// keywords. Without this, MCP gets the cleaned schema like every provider,
    /// because MCP hosts commonly hand `inputSchema` to a model API as it is, and
    /// model providers refuse some of those keywords (OpenAI's strict mode, for
    /// one, takes no `allOf` or `if`) or models misread them. Opt in for a
    /// schema written for MCP clients that read JSON Schema, such as one read
    /// from another MCP server's `tools/list` and passed on, or one a
    /// specification requires.
    ///
    /// Checked when the tool is built, so a bad schema never reaches a call
    /// ([`RuntimeToolError::InvalidSchema`]):
    /// - it refers only to itself: every `$ref` is a fragment (`#/$defs/x`,
    ///   `#anchor`), no `$id`, and `$schema`, if any, is
    ///   [`DRAFT_2020_12`](crate::schema::DRAFT_2020_12) at the root. Nothing a
    ///   schema names is ever fetched, by toolkit or by `jsonschema`;
    /// - it compiles as JSON Schema 2020-12, with every `pattern` on the
    ///   linear-time `regex` engine (no lookaround or backreferences, at most
    ///   1 MiB compiled), so no argument can make a match backtrack.
    ///
    /// Calls are checked against this schema (with formats), not the cleaned one,
    /// after the registry's [`Limits`](crate::call::Limits) on size and depth.
    ///
    /// ```
    /// use serde_json::{Map, Value, json};
    /// use toolkit::runtime::RuntimeTool;
    /// use toolkit::{Context, Dialect, Response};
    ///
    /// let schema = json!({
    ///     "$schema": "https://json-schema.org/draft/2020-12/schema",
    ///     "type": "object",
    ///     "properties": {"phone": {"type": "string"}, "email": {"type": "string"}},
    ///     "anyOf": [{"required": ["phone"]}, {"required": ["email"]}],
    /// });
    /// let contact = RuntimeTool::builder("docs_contact", "Contact someone.", schema.clone())
    ///     .mcp_schema_as_written()
    ///     .build(|_: Map<String, Value>, _: &Context| async { Response::Result(json!("ok")) })?;
    /// let registry = toolkit::Registry::with_runtime([], [contact])?;
    /// let tool = registry.get("docs_contact").unwrap();
    /// assert_eq!(tool.render(Dialect::Mcp)?["inputSchema"], schema);
    /// // A provider dialect gets the cleaned schema, and this one cannot say a
    /// // root `anyOf`.
    /// assert!(tool.render(Dialect::OpenAiChat).is_err());
    /// # futures_executor::block_on(async {
    /// let refused = registry.call("docs_contact", "{}", &Context::new()).await;
    /// assert_eq!(refused.error().map(toolkit::ToolError::kind), Some("invalid_arguments"));
    /// # });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mcp_schema_as_written(mut self) -> Self {
        self.as_written = true;
        self
    }

    /// The tool, answering its calls with `forward`.
    pub fn build(self, forward: impl Forward) -> Result<RuntimeTool, RuntimeToolError> {
        self.build_shared(Arc::new(forward))
    }

    /// [`build`](Self::build) with a forwarder shared by several tools.
    pub fn build_shared(self, forward: Arc<dyn Forward>) -> Result<RuntimeTool, RuntimeToolError> {
        let name_ok = !self.name.is_empty()
            && self.name.len() <= MAX_NAME_LEN
            && self
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !name_ok {
            return Err(RuntimeToolError::InvalidName {
                name: crate::echo::echo(&self.name),
            });
        }
        let refuse = |reason: &str| RuntimeToolError::Unsupported {
            tool: self.name.clone(),
            reason: reason.to_owned(),
        };
        if self.tier == Tier::Confirm {
            return Err(refuse(
                "the `confirm` tier needs a preview only a tool's own code can write; use `auto` or `approve`",
            ));
        }
        if self.scope == Scope::Channel {
            return Err(refuse(
                "`channel` tools are bound to the turn's live channel, which a runtime tool can't take",
            ));
        }
        // Everything below (cleaning, interning, compiling the validator) walks the
        // schema recursively: a value built in code deeper than any schema text
        // could be is refused first, and dropped without recursion.
        if crate::dispatch::limits::nests_deeper_than(&self.input_schema, MAX_SCHEMA_DEPTH) {
            crate::dispatch::limits::dismantle(self.input_schema);
            return Err(RuntimeToolError::InvalidSchema {
                tool: self.name,
                reason: format!(
                    "the arguments schema nests deeper than {MAX_SCHEMA_DEPTH} levels of objects and arrays"
                ),
            });
        }
        if self.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(RuntimeToolError::InvalidSchema {
                tool: self.name.clone(),
                reason: "the arguments schema must be an object with `\"type\": \"object\"`"
                    .to_owned(),
            });
        }
        let as_written = if self.as_written {
            let invalid = |reason: String| RuntimeToolError::InvalidSchema {
                tool: self.name.clone(),
                reason,
            };
            crate::schema::check_as_written(&self.input_schema).map_err(invalid)?;
            // Compiled here, once, so a schema that does not compile (a broken
            // `$ref`, a pattern the linear engine refuses) is refused now rather
            // than leaving its calls unchecked; the call path compiles it again.
            let compile =
                |patterns| crate::dispatch::validate::compile(&self.input_schema, patterns);
            if let Err(error) = compile(crate::dispatch::validate::Patterns::Linear) {
                let engine = if compile(crate::dispatch::validate::Patterns::Backtracking).is_ok() {
                    // Only the engine refused it: say which and why.
                    "; a schema kept as written runs its patterns on the linear-time `regex` engine: no lookaround, no backreferences, at most 1 MiB compiled"
                } else {
                    ""
                };
                return Err(invalid(format!(
                    "the schema kept as written does not compile: {error}{engine}"
                )));
            }
            crate::schema::check_evaluation_bound(&self.input_schema).map_err(invalid)?;
            Some(self.input_schema.clone())
        } else {
            None
        };
        let schema = schemars::Schema::try_from(self.input_schema)
            .map(crate::schema::clean)
            .map_err(|error| RuntimeToolError::InvalidSchema {
                tool: self.name.clone(),
                reason: error.to_string(),
            })?;
        let tool = intern(Definition {
            name: self.name,
            description: self.description,
            scope: self.scope,
            tier: self.tier,
            group: self.group,
            title: self.title,
            schema: &schema,
        })?;
        Ok(RuntimeTool {
            tool,
            schema,
            as_written,
            source: Source(forward),
        })
    }
}

/// Why a [`RuntimeTool`] could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuntimeToolError {
    /// The name is empty, too long, or has characters outside `[A-Za-z0-9_-]`.
    InvalidName {
        /// The name, cut and cleaned of control characters.
        name: String,
    },
    /// The arguments schema is not an object schema.
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A tier or scope a runtime tool can't have.
    Unsupported {
        /// The tool.
        tool: String,
        /// Why.
        reason: String,
    },
    /// The process already keeps [`MAX_DEFINITION_BYTES`] of runtime definitions.
    TooManyDefinitions {
        /// The tool that did not fit.
        tool: String,
    },
}

impl fmt::Display for RuntimeToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeToolError::InvalidName { name } => write!(
                f,
                "runtime tool name `{name}` must be 1 to {MAX_NAME_LEN} characters of [A-Za-z0-9_-]"
            ),
            RuntimeToolError::InvalidSchema { tool, reason }
            | RuntimeToolError::Unsupported { tool, reason } => {
                write!(f, "runtime tool `{tool}`: {reason}")
            }
            RuntimeToolError::TooManyDefinitions { tool } => write!(
                f,
                "runtime tool `{tool}` not built: this process already keeps {MAX_DEFINITION_BYTES} bytes of runtime tool definitions"
            ),
        }
    }
}

impl std::error::Error for RuntimeToolError {}

/// The forwarder of a registered runtime tool: the one field a runtime tool adds to
/// a [`RegisteredTool`](crate::registry::RegisteredTool).
#[derive(Clone)]
pub(crate) struct Source(pub(crate) Arc<dyn Forward>);

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Forward")
    }
}

/// What tells one runtime definition from another.
struct Definition<'a> {
    name: String,
    description: String,
    scope: Scope,
    tier: Tier,
    group: Option<String>,
    title: Option<String>,
    schema: &'a Value,
}

/// Every distinct runtime definition this process built, by its canonical text.
struct Interned {
    tools: HashMap<String, &'static Tool>,
    bytes: usize,
}

static INTERNED: OnceLock<Mutex<Interned>> = OnceLock::new();

/// Where runtime tools say they come from (a collision between two of them names it).
pub(crate) const RUNTIME_LOCATION: Location = Location {
    file: "<runtime>",
    line: 0,
    module_path: "<runtime>",
};

/// The process's one `&'static Tool` for this definition, made on first sight.
fn intern(definition: Definition<'_>) -> Result<&'static Tool, RuntimeToolError> {
    let key = serde_json::json!([
        definition.name,
        definition.description,
        definition.scope,
        definition.tier,
        definition.group,
        definition.title,
        definition.schema,
    ])
    .to_string();
    let interned = INTERNED.get_or_init(|| {
        Mutex::new(Interned {
            tools: HashMap::new(),
            bytes: 0,
        })
    });
    let mut interned = interned.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&tool) = interned.tools.get(&key) {
        return Ok(tool);
    }
    let params = params(definition.schema);
    // The key is kept, and the strings leaked below are each part of it: twice
    // its length bounds both.
    let cost = key.len() * 2 + size_of::<Tool>();
    if interned.bytes + cost > MAX_DEFINITION_BYTES {
        return Err(RuntimeToolError::TooManyDefinitions {
            tool: definition.name,
        });
    }
    let leak = |text: String| -> &'static str { Box::leak(text.into_boxed_str()) };
    let params: Vec<Param> = params
        .into_iter()
        .map(|(name, description, required)| Param {
            name: leak(name),
            description: leak(description),
            required,
        })
        .collect();
    let tool: &'static Tool = Box::leak(Box::new(Tool {
        name: leak(definition.name),
        description: leak(definition.description),
        scope: definition.scope,
        tier: definition.tier,
        task: crate::declaration::TaskSupport::default_for(definition.tier),
        always: false,
        asks_first: false,
        group: definition.group.map(leak),
        aliases: &[],
        guidance: None,
        title: definition.title.map(leak),
        gate: None,
        tags: &[],
        examples: &[],
        asked_as: &[],
        params: Box::leak(params.into_boxed_slice()),
        location: RUNTIME_LOCATION,
        schema: object_schema,
        output_schema: no_output_schema,
        dispatch: crate::tool::Dispatch::Sync(not_dispatched_here),
        bindings: &[],
        quota: None,
        validate: checked_by_schema,
    }));
    interned.bytes += cost;
    interned.tools.insert(key, tool);
    Ok(tool)
}

/// The parameters a schema's root `properties` declare: name, description,
/// whether `required` lists it.
fn params(schema: &Value) -> Vec<(String, String, bool)> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| {
                    let description = property
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    (
                        name.clone(),
                        description.to_owned(),
                        required.contains(&name.as_str()),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

// A runtime definition's `fn` fields. The registry holds the cleaned schema and the
// forwarder itself, so these only answer code that reads a bare `Tool`.

/// The raw schema of a runtime tool is kept by its registry entry.
fn object_schema() -> schemars::Schema {
    schemars::json_schema!({"type": "object"})
}

fn no_output_schema() -> Option<schemars::Schema> {
    None
}

fn not_dispatched_here(_: &str, _: &Context) -> Response {
    Response::Error(ToolError::failed(
        "this tool is defined at run time: call it through its registry or view",
    ))
}

/// Every call of a runtime tool is checked against its schema; there is no typed
/// parse to add. (The signature is `Tool::validate`'s.)
#[allow(clippy::unnecessary_wraps)]
fn checked_by_schema(_: &str) -> Result<(), ToolError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use futures_executor::block_on;
    use serde_json::json;

    use super::*;
    use crate::error::{NameKind, RegistryError};
    use crate::registry::Registry;
    use crate::render::Dialect;

    fn schema() -> Value {
        json!({
            "type": "object",
            "title": "Args",
            "properties": {"q": {"type": "string", "description": "What to look for.", "minLength": 1}},
            "required": ["q"],
        })
    }

    fn echo(name: &str) -> RuntimeToolBuilder {
        RuntimeTool::builder(name, "Search the docs.", schema()).group("docs")
    }

    fn echoing(arguments: Map<String, Value>, _: &Context) -> std::future::Ready<Response> {
        std::future::ready(Response::Result(Value::Object(arguments)))
    }

    #[test]
    fn a_runtime_tool_is_a_routed_tool_with_its_cleaned_schema() {
        let tool = echo("docs_search").build(echoing).unwrap();
        let definition = tool.tool();
        assert_eq!(
            (definition.name, definition.description, definition.group),
            ("docs_search", "Search the docs.", Some("docs"))
        );
        assert_eq!(
            (definition.scope, definition.tier, definition.always),
            (Scope::Shared, Tier::Auto, false)
        );
        assert_eq!(
            definition.params,
            [Param {
                name: "q",
                description: "What to look for.",
                required: true
            }]
        );
        assert_eq!(
            tool.schema(),
            &json!({
                "type": "object",
                "properties": {"q": {"type": "string", "description": "What to look for.", "minLength": 1}},
                "required": ["q"],
                "additionalProperties": false,
            })
        );
        // The same definition built again is the same `&'static Tool`: nothing more
        // is kept.
        let again = echo("docs_search").build(echoing).unwrap();
        assert!(std::ptr::eq(tool.tool(), again.tool()));
        let other = echo("docs_search")
            .tier(Tier::Approve)
            .build(echoing)
            .unwrap();
        assert!(!std::ptr::eq(tool.tool(), other.tool()));
    }

    #[test]
    fn what_a_runtime_tool_cannot_be_is_refused() {
        for name in ["", "docs search", "docs.search", &"a".repeat(65)] {
            assert!(
                matches!(
                    echo(name).build(echoing),
                    Err(RuntimeToolError::InvalidName { .. })
                ),
                "{name:?}"
            );
        }
        assert_eq!(
            echo("docs_search\u{7}")
                .build(echoing)
                .unwrap_err()
                .to_string(),
            r"runtime tool name `docs_search\u{7}` must be 1 to 64 characters of [A-Za-z0-9_-]"
        );
        assert_eq!(
            echo("docs_search").tier(Tier::Confirm).build(echoing).unwrap_err(),
            RuntimeToolError::Unsupported {
                tool: "docs_search".to_owned(),
                reason: "the `confirm` tier needs a preview only a tool's own code can write; use `auto` or `approve`".to_owned(),
            }
        );
        assert!(matches!(
            echo("docs_search").scope(Scope::Channel).build(echoing),
            Err(RuntimeToolError::Unsupported { .. })
        ));
        assert_eq!(
            RuntimeTool::builder("docs_list", "List.", json!({"type": "array"}))
                .build(echoing)
                .unwrap_err()
                .to_string(),
            "runtime tool `docs_list`: the arguments schema must be an object with `\"type\": \"object\"`"
        );
    }

    #[test]
    fn calls_are_checked_against_the_schema_then_forwarded() {
        let registry =
            Registry::with_runtime([], [echo("docs_search").build(echoing).unwrap()]).unwrap();
        let view = registry.view().build().unwrap();
        let ctx = Context::new();
        block_on(async {
            assert_eq!(
                view.call("docs_search", r#"{"q": "tea"}"#, &ctx).await,
                Response::Result(json!({"q": "tea"}))
            );
            // Every problem, before anything is forwarded: the closed object, the
            // bound serde would not check.
            let bad = view.call("docs_search", r#"{"q": "", "x": 1}"#, &ctx).await;
            assert_eq!(bad.error().map(ToolError::kind), Some("invalid_arguments"));
            let not_json = view.call("docs_search", "{", &ctx).await;
            assert_eq!(
                not_json.error().map(ToolError::kind),
                Some("malformed_json")
            );
            let not_object = view.call("docs_search", "[1]", &ctx).await;
            assert!(not_object.error().is_some());
        });
        // Rendered in every dialect.
        let tool = registry.get("docs_search").unwrap();
        assert!(tool.is_runtime());
        for dialect in Dialect::ALL {
            assert!(tool.render_json(dialect).is_ok(), "{dialect}");
        }
    }

    #[test]
    fn a_panicking_forwarder_is_caught() {
        let panicking = echo("docs_panic")
            .build(|_: Map<String, Value>, _: &Context| async {
                panic!("the forwarder broke");
            })
            .unwrap();
        let registry = Registry::with_runtime([], [panicking]).unwrap();
        let response = block_on(registry.call("docs_panic", r#"{"q": "x"}"#, &Context::new()));
        assert_eq!(response.error().map(ToolError::kind), Some("panicked"));
    }

    struct Switch(Arc<AtomicBool>);

    impl Forward for Switch {
        fn forward<'a>(&'a self, arguments: Map<String, Value>, _: &'a Context) -> CallFuture<'a> {
            Box::pin(std::future::ready(Response::Result(Value::Object(
                arguments,
            ))))
        }

        fn available(&self) -> bool {
            self.0.load(Ordering::Relaxed)
        }
    }

    #[test]
    fn an_unavailable_tool_leaves_new_views_and_is_refused() {
        let on = Arc::new(AtomicBool::new(true));
        let tool = echo("docs_switch").build(Switch(Arc::clone(&on))).unwrap();
        let registry = Registry::with_runtime([], [tool]).unwrap();
        let before = registry.view().build().unwrap();
        assert!(before.contains("docs_switch"));
        on.store(false, Ordering::Relaxed);
        assert!(!registry.view().build().unwrap().contains("docs_switch"));
        let refused = block_on(before.call("docs_switch", r#"{"q": "x"}"#, &Context::new()));
        assert_eq!(
            refused,
            Response::Error(ToolError::UnknownTool {
                name: "docs_switch".to_owned(),
                suggestion: None
            })
        );
    }

    /// The conformance suite's `json_schema_2020_12_tool` schema (SEP-1613,
    /// SEP-2106).
    fn contact_schema() -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                },
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"},
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false,
        })
    }

    fn as_written(name: &str, schema: Value) -> Result<RuntimeTool, RuntimeToolError> {
        RuntimeTool::builder(name, "Contact someone.", schema)
            .group("docs")
            .mcp_schema_as_written()
            .build(echoing)
    }

    fn invalid(name: &str, reason: &str) -> RuntimeToolError {
        RuntimeToolError::InvalidSchema {
            tool: name.to_owned(),
            reason: reason.to_owned(),
        }
    }

    #[test]
    fn a_schema_kept_as_written_is_served_so_to_mcp_only() {
        let tool = as_written("docs_contact", contact_schema()).unwrap();
        assert_eq!(tool.schema_as_written(), Some(&contact_schema()));
        let registry = Registry::with_runtime([], [tool]).unwrap();
        let entry = registry.get("docs_contact").unwrap();
        // MCP: the schema, every keyword of it, as written.
        let mcp = entry.render(Dialect::Mcp).unwrap();
        assert_eq!(mcp["inputSchema"], contact_schema());
        // The text is the same value (no key of it reordered into another
        // meaning, `required` lists as written).
        let text: Value = serde_json::from_str(entry.render_json(Dialect::Mcp).unwrap()).unwrap();
        assert_eq!(text["inputSchema"], contact_schema());
        // Every provider dialect gets the cleaned schema, which has a union at
        // its root that no provider takes.
        for dialect in Dialect::ALL
            .into_iter()
            .filter(|dialect| *dialect != Dialect::Mcp)
        {
            let refused = entry.render(dialect).unwrap_err();
            assert_eq!(
                (refused.path.as_str(), refused.reason.as_str()),
                (
                    ".",
                    "the arguments are a union (`allOf` at the root) that cannot be merged into one object; providers take one object schema there, so take one struct (an enum can be one of its fields)"
                ),
                "{dialect}"
            );
        }
    }

    #[test]
    fn providers_get_the_cleaned_form_of_a_schema_kept_as_written() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Contact",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
            "properties": {
                "name": {"type": "string", "description": "Who."},
                "address": {"$ref": "#/$defs/address"},
            },
            "required": ["name"],
            "additionalProperties": false,
        });
        let kept = as_written("docs_contact_kept", schema.clone()).unwrap();
        let plain = RuntimeTool::builder("docs_contact_plain", "Contact someone.", schema.clone())
            .group("docs")
            .build(echoing)
            .unwrap();
        let registry = Registry::with_runtime([], [kept, plain]).unwrap();
        let kept = registry.get("docs_contact_kept").unwrap();
        let plain = registry.get("docs_contact_plain").unwrap();
        assert_eq!(kept.render(Dialect::Mcp).unwrap()["inputSchema"], schema);
        let cleaned = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Who."},
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
            "required": ["name"],
        });
        assert_eq!(
            kept.render(Dialect::OpenAiChat).unwrap()["function"]["parameters"],
            cleaned
        );
        assert_eq!(
            kept.render(Dialect::Anthropic).unwrap()["input_schema"],
            cleaned
        );
        // Every provider dialect renders the tool exactly as it renders the same
        // schema without the opt-in; only the name differs.
        for dialect in Dialect::ALL
            .into_iter()
            .filter(|dialect| *dialect != Dialect::Mcp)
        {
            let same = |entry: &crate::registry::RegisteredTool| {
                entry
                    .render_json(dialect)
                    .map(|text| text.replace(entry.name, "NAME"))
                    .map_err(|error| error.reason.clone())
            };
            assert_eq!(same(kept), same(plain), "{dialect}");
        }
        // Without the opt-in, MCP gets the cleaned schema too.
        assert_eq!(plain.render(Dialect::Mcp).unwrap()["inputSchema"], cleaned);
    }

    #[test]
    fn calls_are_checked_against_the_schema_kept_as_written() {
        let registry = Registry::with_runtime(
            [],
            [as_written("docs_contact_calls", contact_schema()).unwrap()],
        )
        .unwrap();
        let call = |arguments: &str| {
            block_on(registry.call("docs_contact_calls", arguments, &Context::new()))
        };
        assert_eq!(
            call(r#"{"name": "Ada", "email": "ada@example.com"}"#),
            Response::Result(json!({"name": "Ada", "email": "ada@example.com"}))
        );
        assert_eq!(
            call(r#"{"contactMethod": "phone", "phone": "555", "address": {"city": "Oslo"}}"#)
                .result(),
            Some(&json!({"contactMethod": "phone", "phone": "555", "address": {"city": "Oslo"}}))
        );
        // `if`/`then`: by phone, a phone is required.
        assert_eq!(
            call(r#"{"contactMethod": "phone", "email": "ada@example.com"}"#)
                .error()
                .map(ToString::to_string),
            Some("invalid arguments at `phone`: missing required field".to_owned())
        );
        // `allOf`/`anyOf`: a phone or an email.
        assert_eq!(
            call(r#"{"name": "Ada"}"#).error().map(ToString::to_string),
            Some("2 problems in the arguments; at `.`: expected one of these shapes: an object with `phone`; an object with `email`; got an object with `name`; at `email`: missing required field".to_owned())
        );
        // `$ref` into `$defs`, and the closed root.
        assert_eq!(
            call(r#"{"email": "a@b.c", "address": {"city": 7}}"#)
                .error()
                .map(ToString::to_string),
            Some("invalid arguments at `address.city`: expected a string, got 7".to_owned())
        );
        assert_eq!(
            call(r#"{"email": "a@b.c", "fax": "1"}"#)
                .error()
                .map(ToolError::kind),
            Some("unknown_field")
        );
        // A `null` for an optional field (what strict dialects make a model send)
        // passes as absent, as for every runtime tool; the forwarder gets the
        // arguments as sent.
        assert_eq!(
            call(r#"{"email": "a@b.c", "phone": null}"#),
            Response::Result(json!({"email": "a@b.c", "phone": null}))
        );
    }

    #[test]
    fn calls_are_checked_against_what_the_cleaned_schema_loses() {
        // A `$ref` by `$anchor`, and no `additionalProperties`: the cleaned schema
        // closes the root and, finding no `#/$defs/...` use of the definition,
        // drops it, so it would check nothing here. The schema as written is
        // the contract.
        let schema = json!({
            "type": "object",
            "$defs": {"place": {"$anchor": "place", "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
            "properties": {"address": {"$ref": "#place"}},
        });
        let registry =
            Registry::with_runtime([], [as_written("docs_anchor_calls", schema).unwrap()]).unwrap();
        let call = |arguments: &str| {
            block_on(registry.call("docs_anchor_calls", arguments, &Context::new()))
        };
        assert_eq!(
            call(r#"{"address": {"city": 7}}"#)
                .error()
                .map(ToString::to_string),
            Some("invalid arguments at `address.city`: expected a string, got 7".to_owned())
        );
        assert_eq!(
            call(r#"{"address": {}}"#).error().map(ToString::to_string),
            Some("invalid arguments at `address.city`: missing required field".to_owned())
        );
        assert_eq!(
            call(r#"{"address": {"city": "Oslo"}, "note": "hi"}"#),
            Response::Result(json!({"address": {"city": "Oslo"}, "note": "hi"}))
        );
    }

    #[test]
    fn a_schema_kept_as_written_may_refer_only_to_itself() {
        let with = |key: &str, value: &str| {
            let mut schema = json!({
                "type": "object",
                "properties": {"address": {"type": "object"}},
            });
            schema["properties"]["address"][key] = json!(value);
            as_written("docs_refers", schema).unwrap_err()
        };
        for reference in [
            "https://example.com/address.json",
            "file:///etc/passwd",
            "address.json#/city",
            "//example.com/a",
        ] {
            assert_eq!(
                with("$ref", reference),
                invalid(
                    "docs_refers",
                    &format!(
                        "`$ref` `{reference}` at `/properties/address` points outside this schema; a schema kept as written may refer only to itself (`#/$defs/...` or `#anchor`), and nothing is fetched"
                    )
                ),
            );
        }
        assert_eq!(
            with("$dynamicRef", "https://example.com/meta#node"),
            invalid(
                "docs_refers",
                "`$dynamicRef` `https://example.com/meta#node` at `/properties/address` points outside this schema; a schema kept as written may refer only to itself (`#/$defs/...` or `#anchor`), and nothing is fetched"
            ),
        );
        // `$id` would make `#` another document's.
        assert_eq!(
            with("$id", "https://example.com/address"),
            invalid(
                "docs_refers",
                "`$id` at `/properties/address` would make `#` name another document; a schema kept as written is one document (name a place in it with `$anchor`)"
            ),
        );
        assert_eq!(
            with("$schema", "https://json-schema.org/draft/2020-12/schema"),
            invalid(
                "docs_refers",
                "`$schema` at `/properties/address`: only the root of a schema kept as written may declare its dialect"
            ),
        );
        // Another dialect's meta-schema would be fetched to be read.
        assert_eq!(
            as_written(
                "docs_refers",
                json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"})
            )
            .unwrap_err(),
            invalid(
                "docs_refers",
                "`$schema` `http://json-schema.org/draft-07/schema#`: a schema kept as written is JSON Schema 2020-12 (`https://json-schema.org/draft/2020-12/schema`), the dialect MCP gives `inputSchema`"
            ),
        );
        // Under a keyword nobody knows, a reference is refused all the same.
        assert_eq!(
            as_written(
                "docs_refers",
                json!({"type": "object", "x-extra": [{"$ref": "https://example.com/x"}]})
            )
            .unwrap_err(),
            invalid(
                "docs_refers",
                "`$ref` `https://example.com/x` at `/x-extra/0` points outside this schema; a schema kept as written may refer only to itself (`#/$defs/...` or `#anchor`), and nothing is fetched"
            ),
        );
        // A reference to a place that is not there does not compile.
        let missing = as_written(
            "docs_refers",
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/nowhere"}}}),
        )
        .unwrap_err();
        assert_eq!(
            missing,
            invalid(
                "docs_refers",
                "the schema kept as written does not compile: Pointer '/$defs/nowhere' does not exist"
            )
        );
        // Data is data: a `const` may hold any object.
        as_written(
            "docs_refers_data",
            json!({
                "type": "object",
                "properties": {"link": {"const": {"$ref": "https://example.com/x", "$id": "x"}}},
                "$defs": {"node": {"$anchor": "node", "type": "string"}},
                "patternProperties": {"^x-": {"$ref": "#node"}},
            }),
        )
        .unwrap();
    }

    #[test]
    fn patterns_of_a_schema_kept_as_written_never_backtrack() {
        let pattern = |pattern: &str| {
            as_written(
                "docs_pattern",
                json!({"type": "object", "properties": {"code": {"type": "string", "pattern": pattern}}}),
            )
        };
        // Lookaround and backreferences need a backtracking engine: refused when
        // the tool is built, not met by a call.
        assert_eq!(
            pattern("^(?=(a+)+b)").unwrap_err(),
            invalid(
                "docs_pattern",
                "the schema kept as written does not compile: \"^(?=(a+)+b)\" is not a \"regex\"; a schema kept as written runs its patterns on the linear-time `regex` engine: no lookaround, no backreferences, at most 1 MiB compiled"
            )
        );
        assert_eq!(
            pattern(r"^(a*)\1$").unwrap_err(),
            invalid(
                "docs_pattern",
                r#"the schema kept as written does not compile: "^(a*)\\1$" is not a "regex"; a schema kept as written runs its patterns on the linear-time `regex` engine: no lookaround, no backreferences, at most 1 MiB compiled"#
            )
        );
        // An escaped backslash is no backreference.
        pattern(r"^[a-z]:\\[a-z]+$").unwrap();
        // A pattern over 1 MiB compiled (the backtracking engine would take it).
        assert_eq!(
            pattern("^a{50000}$").unwrap_err(),
            invalid(
                "docs_pattern",
                r#"the schema kept as written does not compile: "^a{50000}$" is not a "regex"; a schema kept as written runs its patterns on the linear-time `regex` engine: no lookaround, no backreferences, at most 1 MiB compiled"#
            )
        );
        // A nested quantifier, the classic catastrophe for a backtracking
        // engine, against a long text that fails at its end: linear here.
        let registry = Registry::with_runtime([], [pattern("^(a|aa)+$").unwrap()]).unwrap();
        let text = format!(r#"{{"code": "{}!"}}"#, "a".repeat(200_000));
        let refused = block_on(registry.call("docs_pattern", &text, &Context::new()));
        assert_eq!(
            refused.error().map(ToolError::kind),
            Some("invalid_arguments")
        );
    }

    #[test]
    fn a_schema_kept_as_written_costs_a_bounded_number_of_checks_per_value() {
        // Twenty definitions, each using the next twice: a million subschemas for
        // every value of `x` (about five seconds a call to list its problems).
        let mut defs = Map::new();
        for level in 0..20 {
            let next = format!("#/$defs/d{}", level + 1);
            defs.insert(
                format!("d{level}"),
                json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert("d20".to_owned(), json!({"type": "string"}));
        assert_eq!(
            as_written(
                "docs_fanout",
                json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d0"}}}),
            )
            .unwrap_err(),
            invalid(
                "docs_fanout",
                "checking one value at depth 1 of the arguments could apply more than 1024 subschemas (4194302, counting each `$ref` followed); `$ref`s that fan out make every call cost that much per value"
            )
        );
        // The same doubling through recursion: each level of `x.x.x` twice the last.
        assert_eq!(
            as_written(
                "docs_fanout",
                json!({
                    "type": "object",
                    "allOf": [
                        {"properties": {"x": {"$ref": "#"}}},
                        {"properties": {"x": {"$ref": "#"}}},
                    ],
                }),
            )
            .unwrap_err(),
            invalid(
                "docs_fanout",
                "checking one value at depth 9 of the arguments could apply more than 1024 subschemas (2048, counting each `$ref` followed); `$ref`s that fan out make every call cost that much per value"
            )
        );
        // A `$ref` loop that stays on one value.
        assert_eq!(
            as_written(
                "docs_fanout",
                json!({
                    "type": "object",
                    "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                    "properties": {"x": {"$ref": "#/$defs/a"}},
                }),
            )
            .unwrap_err(),
            invalid(
                "docs_fanout",
                "a `$ref` loop stays on one value without moving into a member or item; it constrains nothing and is refused"
            )
        );
        // A binary tree is recursive twice, into two different members: fine.
        as_written(
            "docs_tree_ok",
            json!({
                "type": "object",
                "properties": {"left": {"$ref": "#"}, "right": {"$ref": "#"}, "label": {"type": "string"}},
            }),
        )
        .unwrap();
    }

    #[test]
    fn hostile_arguments_meet_bounded_work() {
        let registry = Registry::with_runtime(
            [],
            [as_written(
                "docs_tree",
                json!({
                    "type": "object",
                    "properties": {
                        "child": {"$ref": "#"},
                        "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string", "pattern": "^[a-z]+$"}},
                        "regex": {"type": "string", "format": "regex"},
                    },
                }),
            )
            .unwrap()],
        )
        .unwrap();
        let call =
            |arguments: &str| block_on(registry.call("docs_tree", arguments, &Context::new()));
        // A recursive schema and arguments nested past the limit: refused before
        // any validation walks them.
        let deep = format!("{}{{}}{}", r#"{"child": "#.repeat(40), "}".repeat(40));
        assert_eq!(
            call(&deep).error().map(ToString::to_string),
            Some("invalid arguments at `child.child.child.child.…(26 more levels)….child.child`: the arguments nest deeper than 32 levels of objects and arrays here; flatten them".to_owned())
        );
        // A huge array: refused by size first; under it, uniqueness is hashed.
        let huge = format!(r#"{{"tags": [{}]}}"#, vec![r#""abc""#; 300_000].join(","));
        assert_eq!(
            call(&huge).error().map(ToString::to_string),
            Some("invalid arguments at `.`: the arguments are 1800011 bytes long; at most 1048576 bytes are accepted".to_owned())
        );
        let many: Vec<String> = (0..50_000)
            .map(|i| format!(r#""t{}""#, "x".repeat(i % 7)))
            .collect();
        let many = format!(r#"{{"tags": [{}]}}"#, many.join(","));
        assert_eq!(
            call(&many).error().map(ToolError::kind),
            Some("invalid_arguments")
        );
        // `format: regex` parses the text given; deeply nested groups are a
        // refusal, not a stack overflow.
        let groups = format!(r#"{{"regex": "{}"}}"#, "(".repeat(500_000));
        assert_eq!(
            call(&groups).error().map(ToString::to_string),
            Some(format!(
                "invalid arguments at `regex`: expected a string in the `regex` format, got the string \"{}…(500000 characters in all)\"",
                "(".repeat(64)
            ))
        );
    }

    #[test]
    fn two_runtime_tools_of_one_name_are_a_duplicate() {
        let first = echo("docs_twice").build(echoing).unwrap();
        let second = echo("docs_twice").build(echoing).unwrap();
        assert_eq!(
            Registry::with_runtime([], [first, second]).unwrap_err(),
            RegistryError::Duplicate {
                name: "docs_twice".to_owned(),
                first: (NameKind::Name, RUNTIME_LOCATION),
                second: (NameKind::Name, RUNTIME_LOCATION),
            }
        );
    }
}
