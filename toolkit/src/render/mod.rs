//! Rendering tools for each model provider, so each accepts them the first time.
//!
//! Every dialect starts from the canonical schema ([`crate::schema`]) and applies
//! only the rewrites its provider needs. A shape a dialect cannot express (a map in
//! OpenAI strict mode, recursion in Anthropic strict mode or Gemini `parameters`,
//! an untyped `serde_json::Value` where a type is required) is never sent silently
//! broken: rendering that tool in that dialect returns a [`RenderError`] naming the
//! tool, the field and the reason, and the lenient dialects still work. Arguments
//! that are not one object (another root type, a root union the cleaner could not
//! merge) are refused in every dialect: providers take one object schema there.
//!
//! Layout: `dialect` has the formats; this file has the error, the rendered set
//! and one tool's rendering (built once per dialect and kept as JSON text by the
//! registry); `set` has [`render_set`] and its kin, which copy those texts into
//! one buffer. `canonical` has the steps every dialect shares (walking
//! with readable paths, inlining definitions, array `items`, recursion); `openai`,
//! `anthropic`, `gemini` and `mcp` have each provider family's envelope and rules.
//! `result` renders a tool's result (plain or rich, see [`crate::content`]) as each
//! provider's tool-result message: [`render_result`].

mod anthropic;
mod canonical;
mod dialect;
mod gemini;
mod mcp;
mod openai;
mod result;
mod set;
mod text;

use std::fmt;

use serde_json::{Map, Value};

use crate::tool::Tool;
use canonical::{
    Fail, give_arrays_items, inline_single_use_definitions, replace_bool_schemas, walk_all,
};
pub use dialect::Dialect;
pub use result::{RenderedResult, Replaced, render_result};
pub use set::{render, render_set, render_tool};

/// A tool whose arguments a dialect cannot express.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderError {
    /// The tool's name.
    pub tool: String,
    /// The dialect that cannot express it.
    pub dialect: Dialect,
    /// Where in the arguments, like `filters.tags` or `nodes[]`; `.` for the root,
    /// `$defs.Name.field` inside a shared definition.
    pub path: String,
    /// Why, and what to change.
    pub reason: String,
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}` cannot be rendered for {}: at `{}`: {}",
            self.tool, self.dialect, self.path, self.reason
        )
    }
}

impl std::error::Error for RenderError {}

/// A set of tools rendered for one dialect: the JSON array of every tool that
/// could be rendered, and an error for each that could not.
///
/// Skipped tools are programming errors (a map parameter in a strict dialect, ...),
/// found by a test that renders every view in every dialect the application uses;
/// at run time the rest of the tools still reach the model.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use = "a rendered set may have skipped tools; check `skipped` or call `all_or_error`"]
pub struct Rendered {
    /// The JSON array (compact text), ready for a request body.
    pub json: String,
    /// One error per tool the dialect cannot express, in the order given.
    pub skipped: Vec<RenderError>,
}

impl Rendered {
    /// Whether every tool rendered.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.skipped.is_empty()
    }

    /// The JSON array if every tool rendered, or the first error (in the order
    /// the tools were given).
    pub fn all_or_error(self) -> Result<String, RenderError> {
        match self.skipped.into_iter().next() {
            None => Ok(self.json),
            Some(error) => Err(error),
        }
    }

    /// The JSON array as a [`RawValue`](serde_json::value::RawValue), for callers
    /// who embed it in a serialized request (`tools: Box<RawValue>`) without
    /// parsing it into a tree. Building one checks the text once (`serde_json`
    /// offers no unchecked constructor without `unsafe`).
    #[must_use]
    pub fn into_raw_value(self) -> Box<serde_json::value::RawValue> {
        serde_json::value::RawValue::from_string(self.json)
            .expect("a rendered set is JSON: it joins texts serde_json wrote")
    }

    /// The JSON array parsed into a [`Value`] (a new tree: for tests and callers
    /// that edit the tools; a request path wants [`Rendered::json`]).
    #[must_use]
    pub fn to_value(&self) -> Value {
        parse_own(&self.json)
    }

    /// Joins each tool's rendering (or why it has none), in the order given: the
    /// texts copied into one buffer between `[`, `,` and `]`, the errors kept.
    pub(crate) fn join<'a>(
        renderings: impl Iterator<Item = Result<&'a str, &'a RenderError>>,
    ) -> Rendered {
        let mut texts: Vec<&str> = Vec::with_capacity(renderings.size_hint().0);
        let mut skipped = Vec::new();
        for rendering in renderings {
            match rendering {
                Ok(text) => texts.push(text),
                Err(error) => skipped.push(error.clone()),
            }
        }
        // One allocation of the exact size: the brackets and commas are the only new
        // bytes.
        let length = texts.iter().map(|text| text.len()).sum::<usize>() + texts.len().max(1) + 1;
        let mut json = String::with_capacity(length);
        json.push('[');
        for (position, text) in texts.into_iter().enumerate() {
            if position > 0 {
                json.push(',');
            }
            json.push_str(text);
        }
        json.push(']');
        Rendered { json, skipped }
    }
}

/// Parses JSON text this module wrote.
fn parse_own(json: &str) -> Value {
    serde_json::from_str(json).expect("rendered text is JSON: serde_json wrote it")
}

/// Builds one tool's rendering as compact JSON text (uncached), with its keys in
/// reading order and its parameters in declaration order (see [`text`]); a schema
/// kept as written ([`Dialect::keeps_schema_as_written`]) is written as it is.
pub(crate) fn build_json(
    tool: &Tool,
    canonical: &Value,
    as_written: Option<&Value>,
    dialect: Dialect,
) -> Result<Box<str>, RenderError> {
    let params: Vec<&str> = tool.params.iter().map(|param| param.name).collect();
    let arguments = if as_written.is_some() && dialect.keeps_schema_as_written() {
        text::Arguments::AsWritten
    } else {
        text::Arguments::Ordered(&params)
    };
    build(tool, canonical, as_written, dialect)
        .map(|value| text::write_tool(&value, arguments).into_boxed_str())
}

/// Parses a cached rendering back into a [`Value`].
pub(crate) fn to_value(json: &str) -> Value {
    parse_own(json)
}

/// Builds one tool's rendering (uncached): the arguments schema is `canonical`
/// made fit for `dialect`, or, for a dialect that
/// [keeps a schema as written](Dialect::keeps_schema_as_written), `as_written`
/// untouched when the tool has one (a runtime tool's
/// [`mcp_schema_as_written`](crate::runtime::RuntimeToolBuilder::mcp_schema_as_written)).
pub(crate) fn build(
    tool: &Tool,
    canonical: &Value,
    as_written: Option<&Value>,
    dialect: Dialect,
) -> Result<Value, RenderError> {
    let error = |(path, reason): (String, String)| RenderError {
        tool: tool.name.to_owned(),
        dialect,
        path: if path.is_empty() {
            ".".to_owned()
        } else {
            path
        },
        reason,
    };
    let schema = match as_written {
        Some(written) if dialect.keeps_schema_as_written() => written.clone(),
        _ => dialect_schema(canonical, dialect).map_err(error)?,
    };
    Ok(match dialect {
        Dialect::OpenAiChat
        | Dialect::OpenAiChatStrict
        | Dialect::OpenAiResponses
        | Dialect::OpenAiResponsesStrict => openai::tool(tool, schema, dialect),
        Dialect::Anthropic | Dialect::AnthropicStrict => anthropic::tool(tool, schema, dialect),
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => {
            gemini::declaration(tool, schema, dialect)
        }
        Dialect::Mcp => mcp::tool(tool, schema),
    })
}

fn dialect_schema(canonical: &Value, dialect: Dialect) -> Result<Value, Fail> {
    let mut schema = canonical.clone();
    let Value::Object(root) = &mut schema else {
        return Err((
            String::new(),
            "the arguments schema is not an object".to_owned(),
        ));
    };
    one_object_at_the_root(root)?;
    replace_bool_schemas(root);
    if !matches!(
        dialect,
        Dialect::OpenAiChatStrict | Dialect::OpenAiResponsesStrict | Dialect::AnthropicStrict
    ) {
        drop_implied_minimum(root)?;
    }
    walk_all(root, &mut |node, _| {
        crate::schema::fold_unit_variants(node);
        drop_empty_default(node);
        Ok(())
    })?;
    if dialect == Dialect::GeminiParameters {
        // Inlines every definition itself, after ruling out recursion.
        gemini::parameters(root)?;
        return Ok(schema);
    }
    inline_single_use_definitions(root);
    // Tuples (`prefixItems`) get `items` too: OpenAI requires it everywhere, and
    // with the length bounds it changes nothing elsewhere.
    walk_all(root, &mut |node, _| {
        give_arrays_items(node);
        Ok(())
    })?;
    match dialect {
        Dialect::OpenAiChatStrict | Dialect::OpenAiResponsesStrict => openai::strict(root)?,
        Dialect::AnthropicStrict => anthropic::strict(root)?,
        // A `const` says its type; the lenient dialects need no `type` beside it
        // (a tag of an internally tagged enum is the common case).
        // The root keeps its `type: object`, which every provider requires.
        _ => walk_all(root, &mut |node, path| {
            if !path.is_empty()
                && node.contains_key("const")
                && node.get("type").is_some_and(Value::is_string)
            {
                node.remove("type");
            }
            // Gemini's JSON Schema dialect is left to its own rules for `enum`.
            if dialect != Dialect::GeminiJsonSchema {
                drop_type_beside_string_enum(node);
            }
            drop_closed(node);
            if dialect == Dialect::GeminiJsonSchema {
                gemini::ref_alone(node);
            }
            Ok(())
        })?,
    }
    Ok(schema)
}

/// The lenient dialects get no `additionalProperties: false`: nothing there
/// enforces it while the model writes, a model sends the properties it is shown,
/// and dispatch refuses an unknown member anyway (against the canonical schema,
/// which keeps every one, and serde's `deny_unknown_fields`). About five tokens
/// per object. The strict dialects require it on every object and keep it; an
/// `additionalProperties` schema (a map's values) stays everywhere.
fn drop_closed(node: &mut Map<String, Value>) {
    if node.get("additionalProperties") == Some(&Value::Bool(false)) {
        node.remove("additionalProperties");
    }
}

/// `{"type": "string", "enum": ["a", "b"]}` is `{"enum": ["a", "b"]}`: the values
/// say their type, as a `const` does.
fn drop_type_beside_string_enum(node: &mut Map<String, Value>) {
    let all_strings = node
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| !values.is_empty() && values.iter().all(Value::is_string));
    if all_strings && node.get("type").and_then(Value::as_str) == Some("string") {
        node.remove("type");
    }
}

/// A `default` that is what leaving the property out means anyway (`false`, `[]`,
/// `{}`, `""`) tells the model nothing: about four tokens, and in OpenAI strict
/// mode a "Default: false." in the description. A default with content (`10`,
/// `"other"`) stays. Dispatch applies the default either way.
fn drop_empty_default(node: &mut Map<String, Value>) {
    let empty = match node.get("default") {
        Some(Value::Bool(value)) => !value,
        Some(Value::Array(items)) => items.is_empty(),
        Some(Value::Object(members)) => members.is_empty(),
        Some(Value::String(text)) => text.is_empty(),
        _ => false,
    };
    if empty {
        node.remove("default");
    }
}

/// A lone `minimum: 0` on an integer (what schemars writes for every unsigned
/// type) is left out of the lenient renderings: it binds only at negative values,
/// which a count, a limit or an id never plausibly gets, and it costs about four
/// tokens per field per request. Dispatch still refuses a negative value (the
/// canonical schema keeps the bound, and serde refuses it for an unsigned type).
/// A `minimum: 0` beside a `maximum` (an 8- or 16-bit width, a declared range)
/// states a range the model needs, and stays; so does every bound in the strict
/// dialects, where the provider enforces it while the model writes.
fn drop_implied_minimum(root: &mut Map<String, Value>) -> Result<(), Fail> {
    walk_all(root, &mut |node, _| {
        let lone_zero = node.get("minimum").and_then(Value::as_f64) == Some(0.0)
            && !node.contains_key("maximum")
            && !node.contains_key("exclusiveMaximum");
        if lone_zero && canonical::is_type(node, "integer") {
            node.remove("minimum");
        }
        Ok(())
    })
}

/// Every provider sends a tool's arguments as one JSON object and takes one
/// object schema for them: no other type, no union at the root. The cleaner
/// merges what it can ([`crate::schema::clean`]); what is left cannot be said.
fn one_object_at_the_root(root: &Map<String, Value>) -> Result<(), Fail> {
    if root.get("type") != Some(&Value::String("object".to_owned())) {
        let found = root
            .get("type")
            .map_or("no type".to_owned(), Value::to_string);
        return Err((
            String::new(),
            format!(
                "the arguments are not an object (found {found}); providers send a tool's arguments as one JSON object, so take a struct"
            ),
        ));
    }
    if let Some(union) = ["anyOf", "oneOf", "allOf"]
        .into_iter()
        .find(|union| root.contains_key(*union))
    {
        return Err((
            String::new(),
            format!(
                "the arguments are a union (`{union}` at the root) that cannot be merged into one object; providers take one object schema there, so take one struct (an enum can be one of its fields)"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
