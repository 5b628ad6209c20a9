//! Checking arguments against the schema the model saw (its constraints, which
//! serde's derive does not know), and reading a permitted `null` as "absent" only
//! where that schema says a property is optional.
//!
//! `jsonschema` does the checking and names each problem's place; this module
//! decides when a schema needs checking at all (a tool without constraint
//! keywords pays nothing), says each problem in JSON terms, picks the branch a
//! union's value meant, and drops `null`s the model sends for optional
//! properties (strict dialects make it send them). The validator is built on a
//! tool's first checked call and kept.
//!
//! Whatever the schema says, building and running a validator never reads a file
//! or the network ([`NothingFetched`], whatever `jsonschema` features the build
//! turns on); a schema kept as its author wrote it (a runtime tool's
//! [`mcp_schema_as_written`](crate::runtime::RuntimeToolBuilder::mcp_schema_as_written))
//! also runs its `pattern`s on the linear-time `regex` engine ([`compile`]).

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::{ValidationError, Validator};
use serde_json::{Map, Value};

use super::messages::{Problem, describe, expected_one_of, join_index, join_key};
use crate::schema::walk;

/// What dispatch knows about one tool's argument schema, built once.
pub(crate) struct Plan {
    /// The cleaned schema the model saw.
    schema: Value,
    /// It carries keywords serde does not enforce (bounds, lengths, patterns,
    /// formats, ...): every call is validated before the tool runs.
    pub(crate) constrained: bool,
    /// It has objects below the root: serde's derive would take a struct given as
    /// an array there, so a call with an array in it is validated.
    pub(crate) nested_objects: bool,
    /// The names after which an array is in its place ([`super::shape::array_keys`]):
    /// with them a byte scan clears most calls of the streaming shape pass.
    array_keys: Option<Box<[Box<str>]>>,
    /// Which regular-expression engine runs the schema's `pattern`s.
    patterns: Patterns,
    validator: OnceLock<Option<Validator>>,
}

/// The regular-expression engine a schema's `pattern` and `patternProperties`
/// run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Patterns {
    /// `jsonschema`'s default, `fancy-regex`: lookaround and backreferences, at
    /// the price of backtracking (bounded by its limit of a million steps per
    /// match). For schemas the program itself wrote (`#[tool]`'s, and the
    /// cleaned schemas of runtime tools, as before).
    Backtracking,
    /// The `regex` crate: time linear in the text, no lookaround or
    /// backreferences (a schema that uses them does not compile), and at most
    /// [`MAX_PATTERN_BYTES`] per compiled pattern. For schemas kept as written.
    Linear,
}

/// The most memory one compiled `pattern` of a schema kept as written may take
/// (the `regex` crate's `size_limit`, and the same for its lazy DFA's cache):
/// 1 MiB, where a hostile `(a{1000}){1000}` would ask for gigabytes.
pub(crate) const MAX_PATTERN_BYTES: usize = 1 << 20;

/// Refuses every retrieval: a tool's schema is one document, and checking a call
/// against it never reads a file or the network. `jsonschema` retrieves what a
/// `$ref`, or a `$schema` it does not know, names outside the document; its own
/// default retriever reads `file:` and `http(s):` URIs when a build turns on its
/// `resolve-file` or `resolve-http` feature (any crate in the build can).
pub(crate) struct NothingFetched;

impl jsonschema::Retrieve for NothingFetched {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("`{uri}` is outside this schema, and nothing is fetched").into())
    }
}

/// Compiles `schema` into a validator for JSON Schema 2020-12 with formats
/// checked, nothing fetched ([`NothingFetched`]) and `patterns`' engine.
pub(crate) fn compile(
    schema: &Value,
    patterns: Patterns,
) -> Result<Validator, ValidationError<'static>> {
    let options = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .with_retriever(NothingFetched);
    match patterns {
        Patterns::Backtracking => options.build(schema),
        Patterns::Linear => options
            .with_pattern_options(
                jsonschema::PatternOptions::regex()
                    .size_limit(MAX_PATTERN_BYTES)
                    .dfa_size_limit(MAX_PATTERN_BYTES),
            )
            .build(schema),
    }
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("constrained", &self.constrained)
            .field("nested_objects", &self.nested_objects)
            .finish_non_exhaustive()
    }
}

impl Plan {
    /// The plan for a tool: `raw` is schemars' schema (it still has the integer
    /// `format`s that tell an `i8`'s implied bounds from a `range` the user set),
    /// `cleaned` the schema the model saw.
    pub(crate) fn new(raw: &Value, cleaned: Value) -> Self {
        let mut constrained = false;
        walk(raw, &mut |node| constrained |= has_constraints(node));
        let mut nested_objects = false;
        let mut nodes = 0;
        walk(&cleaned, &mut |node| {
            nodes += 1;
            nested_objects |= nodes > 1
                && (node.get("type").and_then(Value::as_str) == Some("object")
                    || node.contains_key("properties"));
        });
        let array_keys = if nested_objects {
            super::shape::array_keys(&cleaned)
        } else {
            None
        };
        Plan {
            schema: cleaned,
            constrained,
            nested_objects,
            array_keys,
            patterns: Patterns::Backtracking,
            validator: OnceLock::new(),
        }
    }

    /// The plan for a runtime tool whose arguments are checked against the schema
    /// its author wrote (and MCP clients see), not the cleaned one: its `pattern`s
    /// run on the linear-time engine. The schema was checked, and compiled once,
    /// when the tool was built ([`crate::schema::check_as_written`]).
    pub(crate) fn as_written(schema: &Value) -> Self {
        let mut plan = Plan::new(schema, schema.clone());
        plan.constrained = true;
        plan.patterns = Patterns::Linear;
        plan
    }

    /// The compiled validator, built on first use; `None` if the schema does not
    /// compile (then only serde checks the arguments).
    fn validator(&self) -> Option<&Validator> {
        self.validator
            .get_or_init(|| compile(&self.schema, self.patterns).ok())
            .as_ref()
    }

    /// Whether every array in `arguments` is, by a byte scan, where the schema
    /// allows one (`false` means "look closer", not "wrong"); `true` for a text
    /// without arrays.
    pub(crate) fn arrays_in_place(&self, arguments: &str) -> bool {
        match self.array_keys.as_deref() {
            Some(keys) => super::shape::arrays_in_place(keys, arguments),
            None => memchr::memchr(b'[', arguments.as_bytes()).is_none(),
        }
    }

    /// The cleaned schema the model saw.
    pub(crate) fn schema(&self) -> &Value {
        &self.schema
    }

    /// Whether `value` is valid; cheaper than collecting the problems.
    pub(crate) fn is_valid(&self, value: &Value) -> bool {
        self.validator()
            .is_none_or(|validator| validator.is_valid(value))
    }

    /// Every problem the schema finds in `value`, each with its path.
    pub(crate) fn problems(&self, value: &Value) -> Vec<Problem> {
        let Some(validator) = self.validator() else {
            return Vec::new();
        };
        let mut problems = Vec::new();
        for error in validator
            .iter_errors(value)
            .take(super::messages::MAX_PROBLEMS * 2)
        {
            self.explain(&error, value, &mut problems);
        }
        // A value outside an `enum` also fails its `type`; the list of accepted
        // values says more than the kind.
        let listed: Vec<String> = problems
            .iter()
            .filter(|problem| problem.message.starts_with("expected one of `"))
            .map(|problem| problem.path.clone())
            .collect();
        problems.retain(|problem| {
            !(listed.contains(&problem.path)
                && problem.message.starts_with("expected ")
                && !problem.message.starts_with("expected one of `"))
        });
        // The validator meets properties in the map's order, which is name order
        // unless some crate in the build turns on serde_json's `preserve_order`
        // (toolkit doesn't; rig-core does): list the problems in path order, so
        // the message is the same either way.
        problems.sort_by_cached_key(|problem| path_order(&problem.path));
        problems
    }

    /// Removes every `null` member that the schema declares optional (absent from
    /// `required`) and that does not itself accept `null`; returns whether any was
    /// removed. Free-form data (`Value` parameters, map values, array items) is
    /// never touched: only declared properties are.
    pub(crate) fn strip_optional_nulls(&self, value: &mut Value) -> bool {
        // Only a `null` is ever removed: a value without one (most calls) is left
        // as it is without walking the schema beside it.
        has_null(value) && strip(value, &self.schema, &self.schema, 0)
    }

    /// The schema node at a JSON pointer (a validation error's schema location).
    fn node_at(&self, pointer: &str) -> Option<&Map<String, Value>> {
        self.schema.pointer(pointer).and_then(Value::as_object)
    }

    fn explain(&self, error: &ValidationError<'_>, root: &Value, out: &mut Vec<Problem>) {
        let path = instance_path(error);
        let schema_path = error.schema_path().as_str();
        // The node holding the failed keyword.
        let parent = schema_path
            .rsplit_once('/')
            .map_or("", |(parent, _)| parent);
        let node = self.node_at(parent);
        let got = describe(error.instance());
        let message = match error.kind() {
            ValidationErrorKind::Type { kind } => {
                let non_negative = matches!(kind, TypeKind::Single(single) if single.as_str() == "integer")
                    && node
                        .and_then(|node| node.get("minimum"))
                        .and_then(Value::as_i64)
                        == Some(0);
                if non_negative {
                    format!("expected a non-negative integer, got {got}")
                } else {
                    format!("expected {}, got {got}", type_words(kind))
                }
            }
            ValidationErrorKind::Required { property } => {
                let field = property.as_str().unwrap_or_default();
                out.push(Problem::new(
                    join_key(&path, field),
                    "missing required field",
                ));
                return;
            }
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                let expected = node.map(property_names).unwrap_or_default();
                for field in unexpected {
                    out.push(Problem::unknown_field(&path, field, expected.clone()));
                }
                return;
            }
            ValidationErrorKind::Enum { options } => {
                let names = options
                    .as_array()
                    .map(|options| options.iter().map(enum_word).collect::<Vec<_>>())
                    .unwrap_or_default();
                expected_one_of(&names, &got)
            }
            ValidationErrorKind::Constant { expected_value } => {
                expected_one_of(&[enum_word(expected_value)], &got)
            }
            ValidationErrorKind::Minimum { limit } | ValidationErrorKind::Maximum { limit } => {
                match node.and_then(|node| Some((node.get("minimum")?, node.get("maximum")?))) {
                    Some((min, max)) => format!("must be between {min} and {max}, got {got}"),
                    None if matches!(error.kind(), ValidationErrorKind::Minimum { .. }) => {
                        format!("must be at least {limit}, got {got}")
                    }
                    None => format!("must be at most {limit}, got {got}"),
                }
            }
            ValidationErrorKind::ExclusiveMinimum { limit } => {
                format!("must be greater than {limit}, got {got}")
            }
            ValidationErrorKind::ExclusiveMaximum { limit } => {
                format!("must be less than {limit}, got {got}")
            }
            ValidationErrorKind::MultipleOf { multiple_of } => {
                format!("must be a multiple of {multiple_of}, got {got}")
            }
            ValidationErrorKind::MinLength { limit } | ValidationErrorKind::MaxLength { limit } => {
                let length = error
                    .instance()
                    .as_str()
                    .map_or(0, |text| text.chars().count());
                let bound = match (node_u64(node, "minLength"), node_u64(node, "maxLength")) {
                    (Some(min), Some(max)) if min == max => format!("exactly {min}"),
                    (Some(min), Some(max)) => format!("between {min} and {max}"),
                    _ if matches!(error.kind(), ValidationErrorKind::MinLength { .. }) => {
                        format!("at least {limit}")
                    }
                    _ => format!("at most {limit}"),
                };
                format!("must be {bound} characters long, got {length}")
            }
            ValidationErrorKind::MinItems { limit } | ValidationErrorKind::MaxItems { limit } => {
                let count = error.instance().as_array().map_or(0, Vec::len);
                let bound = match (node_u64(node, "minItems"), node_u64(node, "maxItems")) {
                    (Some(min), Some(max)) if min == max => format!("exactly {min}"),
                    (Some(min), Some(max)) => format!("between {min} and {max}"),
                    _ if matches!(error.kind(), ValidationErrorKind::MinItems { .. }) => {
                        format!("at least {limit}")
                    }
                    _ => format!("at most {limit}"),
                };
                format!("must have {bound} items, got {count}")
            }
            ValidationErrorKind::MinProperties { limit } => {
                format!("must have at least {limit} fields")
            }
            ValidationErrorKind::MaxProperties { limit } => {
                format!("must have at most {limit} fields")
            }
            ValidationErrorKind::UniqueItems => "the items must all be different".to_owned(),
            ValidationErrorKind::Pattern { pattern } => {
                format!(
                    "must match the pattern `{}`, got {got}",
                    crate::echo::clean(pattern, 2 * crate::echo::ECHO_CHARS)
                )
            }
            ValidationErrorKind::Format { format } => {
                format!("expected {}, got {got}", format_words(format))
            }
            ValidationErrorKind::FalseSchema => "no value is allowed here".to_owned(),
            ValidationErrorKind::AdditionalItems { limit } => {
                format!("must have at most {limit} items")
            }
            ValidationErrorKind::OneOfNotValid { context }
            | ValidationErrorKind::AnyOf { context } => {
                self.explain_union(error, context, root, &path, schema_path, out);
                return;
            }
            ValidationErrorKind::OneOfMultipleValid { .. } => {
                "matches more than one of the accepted shapes; add the fields that tell them apart"
                    .to_owned()
            }
            ValidationErrorKind::Not { .. } => "this value is not allowed here".to_owned(),
            _ => format!("is not accepted here (got {got})"),
        };
        out.push(Problem::new(path, message));
    }

    /// A value matching none of a union's branches: for a tagged union (every
    /// branch an object with a `const` tag), the branch its tag names explains the
    /// problem field by field; a wrong tag lists the tags; an untagged union lists
    /// the shapes it accepts.
    fn explain_union(
        &self,
        error: &ValidationError<'_>,
        context: &[Vec<ValidationError<'static>>],
        root: &Value,
        path: &str,
        schema_path: &str,
        out: &mut Vec<Problem>,
    ) {
        let branches: Vec<&Value> = self
            .schema
            .pointer(schema_path)
            .and_then(Value::as_array)
            .map(|branches| branches.iter().collect())
            .unwrap_or_default();
        let instance = error.instance();
        // `Option<T>` where schemars keeps it a union (a list's `null`-able items):
        // a value that is not `null` meant `T`, so `T`'s own problems, at their own
        // paths, say what is wrong; the shapes would say only "any value; null".
        if !instance.is_null() {
            let mut meant = branches
                .iter()
                .enumerate()
                .filter(|(_, branch)| !self.is_null_only(branch));
            if let (Some((index, _)), None) = (meant.next(), meant.next())
                && let Some(errors) = context.get(index).filter(|errors| !errors.is_empty())
            {
                for inner in errors {
                    self.explain(inner, root, out);
                }
                return;
            }
        }
        let tags: Vec<Option<(String, Value)>> =
            branches.iter().map(|branch| self.tag_of(branch)).collect();
        let common_tag = tags
            .first()
            .and_then(Option::as_ref)
            .map(|(name, _)| name.clone())
            .filter(|name| {
                tags.iter()
                    .all(|tag| tag.as_ref().is_some_and(|(n, _)| n == name))
            });
        if let (Some(tag), Some(object)) = (common_tag, instance.as_object()) {
            let given = object.get(&tag);
            if let Some(index) = tags
                .iter()
                .position(|branch_tag| branch_tag.as_ref().map(|(_, value)| value) == given)
                && let Some(errors) = context.get(index)
            {
                for inner in errors {
                    self.explain(inner, root, out);
                }
                return;
            }
            let names: Vec<String> = tags
                .iter()
                .flatten()
                .map(|(_, value)| enum_word(value))
                .collect();
            let message = match given {
                Some(given) => expected_one_of(&names, &describe(given)),
                None => "missing required field".to_owned(),
            };
            out.push(Problem::new(join_key(path, &tag), message));
            return;
        }
        // An untagged union: the branch the value meant (the one branch of its
        // JSON kind, or the object branch sharing the most fields with it) says
        // what is wrong inside it, at its own paths. "Expected an object with
        // `parts`, got an object" would tell an object that has `parts` nothing.
        if let Some(index) = self.meant_branch(&branches, instance)
            && let Some(errors) = context.get(index).filter(|errors| !errors.is_empty())
        {
            for inner in errors {
                self.explain(inner, root, out);
            }
            return;
        }
        let shapes: Vec<String> = branches.iter().map(|branch| self.shape(branch)).collect();
        out.push(Problem::new(
            path,
            format!(
                "expected one of these shapes: {}; got {}",
                shapes.join("; "),
                describe_members(instance)
            ),
        ));
    }

    /// The branch of an untagged union that `instance` most likely meant: the
    /// only one that takes its JSON kind; among several object branches, the one
    /// whose properties hold the most of its fields (at least one), if no other
    /// holds as many.
    fn meant_branch(&self, branches: &[&Value], instance: &Value) -> Option<usize> {
        let kind: Vec<usize> = (0..branches.len())
            .filter(|&index| self.takes_kind(branches[index], instance))
            .collect();
        match kind.as_slice() {
            [] => None,
            [only] => Some(*only),
            _ => {
                let members = instance.as_object()?;
                let shared = |index: usize| {
                    self.resolve(branches[index])
                        .get("properties")
                        .and_then(Value::as_object)
                        .map_or(0, |properties| {
                            members
                                .keys()
                                .filter(|key| properties.contains_key(*key))
                                .count()
                        })
                };
                let best = kind.iter().copied().max_by_key(|&index| shared(index))?;
                let most = shared(best);
                let ties = kind.iter().filter(|&&index| shared(index) == most).count();
                (most > 0 && ties == 1).then_some(best)
            }
        }
    }

    /// Whether a union's branch takes values of `instance`'s JSON kind (an
    /// object, a string, ...), whatever else it asks of them.
    fn takes_kind(&self, branch: &Value, instance: &Value) -> bool {
        let branch = self.resolve(branch);
        let kind = |value: &Value| match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let names =
            |name: &str| name == kind(instance) || (name == "integer" && instance.is_number());
        match branch.get("type") {
            Some(Value::String(name)) => names(name),
            Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).any(names),
            _ => {
                if let Some(values) = branch.get("enum").and_then(Value::as_array) {
                    values.iter().any(|value| kind(value) == kind(instance))
                } else if let Some(value) = branch.get("const") {
                    kind(value) == kind(instance)
                } else if branch.get("properties").is_some() || branch.get("required").is_some() {
                    instance.is_object()
                } else {
                    // A branch that is itself a union, or takes anything: no
                    // single kind to tell it by.
                    false
                }
            }
        }
    }

    /// `$ref`s followed (a few steps at most).
    fn resolve<'s>(&'s self, mut node: &'s Value) -> &'s Value {
        for _ in 0..8 {
            match node.get("$ref").and_then(Value::as_str) {
                Some(reference) => match reference
                    .strip_prefix('#')
                    .and_then(|pointer| self.schema.pointer(pointer))
                {
                    Some(target) => node = target,
                    None => break,
                },
                None => break,
            }
        }
        node
    }

    /// Whether a union's branch accepts nothing but `null` (`{"type": "null"}`).
    fn is_null_only(&self, branch: &Value) -> bool {
        self.resolve(branch).get("type").and_then(Value::as_str) == Some("null")
    }

    /// The property whose `const` (or one-value `enum`) tags an object branch.
    fn tag_of(&self, branch: &Value) -> Option<(String, Value)> {
        let branch = self.resolve(branch);
        branch
            .get("properties")?
            .as_object()?
            .iter()
            .find_map(|(name, property)| {
                let property = self.resolve(property);
                let value = property.get("const").cloned().or_else(|| {
                    property
                        .get("enum")
                        .and_then(Value::as_array)
                        .filter(|values| values.len() == 1)
                        .map(|values| values[0].clone())
                })?;
                Some((name.clone(), value))
            })
    }

    /// A branch in a few words: "a string", "an object with `a`, `b`".
    fn shape(&self, branch: &Value) -> String {
        let branch = self.resolve(branch);
        if let Some(values) = branch.get("enum").and_then(Value::as_array) {
            let names: Vec<String> = values.iter().map(enum_word).collect();
            return format!("one of `{}`", names.join("`, `"));
        }
        if let Some(value) = branch.get("const") {
            return format!("`{}`", enum_word(value));
        }
        if let Some(properties) = branch.get("properties").and_then(Value::as_object) {
            let required: Vec<&str> = branch
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            // Name order, with or without `preserve_order` (see `property_names`).
            let mut keys: Vec<&String> = properties.keys().collect();
            keys.sort_unstable();
            let names: Vec<String> = keys
                .into_iter()
                .map(|name| {
                    if required.contains(&name.as_str()) {
                        format!("`{name}`")
                    } else {
                        format!("optional `{name}`")
                    }
                })
                .collect();
            return if names.is_empty() {
                "an empty object".to_owned()
            } else {
                format!("an object with {}", names.join(", "))
            };
        }
        // A branch that only names fields (`{"required": ["phone"]}`, a
        // hand-written "one of these fields" rule).
        if let Some(required) = branch
            .get("required")
            .and_then(Value::as_array)
            .filter(|names| !names.is_empty())
        {
            let names: Vec<String> = required
                .iter()
                .filter_map(Value::as_str)
                .map(|name| format!("`{}`", crate::echo::echo(name)))
                .collect();
            return format!("an object with {}", names.join(", "));
        }
        match branch.get("type") {
            Some(Value::String(kind))
                if kind == "integer"
                    && branch.get("minimum").and_then(Value::as_i64) == Some(0) =>
            {
                "a non-negative integer".to_owned()
            }
            Some(Value::String(kind)) => type_word(kind).to_owned(),
            Some(Value::Array(kinds)) => kinds
                .iter()
                .filter_map(Value::as_str)
                .map(type_word)
                .collect::<Vec<_>>()
                .join(" or "),
            _ => "any value".to_owned(),
        }
    }
}

/// What a value is, for a union none of whose shapes fits it: an object with
/// its fields named (a few, cleaned and cut), anything else as [`describe`] says.
fn describe_members(value: &Value) -> String {
    const SHOWN: usize = 5;
    match value {
        Value::Object(members) if !members.is_empty() => {
            // Name order, with or without `preserve_order` (see `property_names`).
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort_unstable();
            let mut names: Vec<String> = keys
                .into_iter()
                .take(SHOWN)
                .map(|key| format!("`{}`", crate::echo::echo(key)))
                .collect();
            if members.len() > SHOWN {
                names.push(format!("{} more", members.len() - SHOWN));
            }
            format!("an object with {}", names.join(", "))
        }
        other => describe(other),
    }
}

fn node_u64(node: Option<&Map<String, Value>>, key: &str) -> Option<u64> {
    node?.get(key)?.as_u64()
}

/// A path's sort key: indices compare as numbers (`a[2]` before `a[10]`).
fn path_order(path: &str) -> Vec<(usize, String)> {
    path.split('[')
        .map(|part| {
            let digits = part.bytes().take_while(u8::is_ascii_digit).count();
            let index = part[..digits].parse().unwrap_or(0);
            (index, part[digits..].to_owned())
        })
        .collect()
}

fn property_names(node: &Map<String, Value>) -> Vec<String> {
    let mut names: Vec<String> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default();
    // Name order whether or not some crate in the build turns on serde_json's
    // `preserve_order` (toolkit doesn't; rig-core does).
    names.sort_unstable();
    names
}

/// An enum value as listed in a message: strings bare, anything else as JSON.
fn enum_word(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn type_word(kind: &str) -> &'static str {
    match kind {
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "boolean" => "true or false",
        "array" => "an array",
        "object" => "an object",
        "null" => "null",
        _ => "a value",
    }
}

fn type_words(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(single) => type_word(single.as_str()).to_owned(),
        TypeKind::Multiple(many) => many
            .iter()
            .map(|kind| type_word(kind.as_str()))
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

/// What a `format` asks for, with an example a model can copy.
fn format_words(format: &str) -> String {
    match format {
        "date-time" => "a date-time in RFC 3339 form, like \"2026-11-23T07:05:00Z\"".to_owned(),
        "date" => "a date like \"2026-11-23\"".to_owned(),
        "time" => "a time with offset like \"07:05:00Z\"".to_owned(),
        "partial-date-time" => {
            "a date-time without offset, like \"2026-11-23T07:05:00\"".to_owned()
        }
        "duration" => "an ISO 8601 duration like \"PT15M\"".to_owned(),
        "email" => "an email address".to_owned(),
        "uri" => "an absolute URI like \"https://example.com/a\"".to_owned(),
        "uuid" => "a UUID like \"67e55044-10b1-426f-9247-bb680e5fe0c8\"".to_owned(),
        "ipv4" => "an IPv4 address like \"192.0.2.1\"".to_owned(),
        "ipv6" => "an IPv6 address like \"2001:db8::1\"".to_owned(),
        other => format!("a string in the `{}` format", crate::echo::echo(other)),
    }
}

/// The instance location of an error as a toolkit path.
fn instance_path(error: &ValidationError<'_>) -> String {
    let mut path = ".".to_owned();
    for segment in error.instance_path().segments() {
        path = match segment {
            LocationSegment::Property(key) => join_key(&path, &key),
            LocationSegment::Index(index) => join_index(&path, index),
        };
    }
    path
}

/// Keywords serde's derive does not enforce.
const CONSTRAINTS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "format",
    "contains",
    "propertyNames",
    "not",
];

/// Whether one raw schemars node has a keyword serde would not enforce. The
/// bounds schemars writes for an integer width (`minimum: 0` on a `u32`, the full
/// range of an `i8`) are enforced by serde already, and so are the numeric
/// `format`s themselves; a fixed-length tuple's `minItems`/`maxItems` too.
fn has_constraints(node: &Map<String, Value>) -> bool {
    let format = node.get("format").and_then(Value::as_str);
    let width = format.and_then(|format| {
        let rust = format.replace("uint", "u").replace("int", "i");
        super::messages::integer_range(&rust)
    });
    let numeric_format = matches!(format, Some("float" | "double")) || width.is_some();
    let tuple = node.contains_key("prefixItems");
    node.keys().any(|key| {
        if !CONSTRAINTS.contains(&key.as_str()) {
            return false;
        }
        match key.as_str() {
            "format" => !numeric_format,
            "minimum" | "maximum" => match width {
                Some((min, max)) => {
                    let bound = node.get(key).and_then(Value::as_i64).map(i128::from);
                    let implied = if key == "minimum" { min } else { max };
                    bound != Some(implied)
                        && !(key == "maximum" && bound.is_none() && max > i128::from(i64::MAX))
                }
                None => true,
            },
            "minItems" | "maxItems" => !tuple,
            _ => true,
        }
    })
}

/// Whether a property's schema itself accepts `null` (then a `null` is a value,
/// not an absence): `type` null or listing it, a null branch, or no type at all
/// (`serde_json::Value`).
fn accepts_null(schema: &Value, root: &Value) -> bool {
    let schema = resolve_in(schema, root);
    match schema {
        Value::Bool(accepts) => *accepts,
        Value::Object(node) => {
            if let Some(kind) = node.get("type") {
                return match kind {
                    Value::String(kind) => kind == "null",
                    Value::Array(kinds) => kinds.iter().any(|kind| kind == "null"),
                    _ => false,
                };
            }
            for union in ["anyOf", "oneOf"] {
                if let Some(branches) = node.get(union).and_then(Value::as_array) {
                    return branches.iter().any(|branch| accepts_null(branch, root));
                }
            }
            if let Some(values) = node.get("enum").and_then(Value::as_array) {
                return values.iter().any(Value::is_null);
            }
            if let Some(value) = node.get("const") {
                return value.is_null();
            }
            if node.contains_key("allOf") {
                return false;
            }
            // No `type`, no union: anything goes (a `serde_json::Value`).
            !node.contains_key("properties") && !node.contains_key("items")
        }
        _ => false,
    }
}

fn resolve_in<'s>(mut node: &'s Value, root: &'s Value) -> &'s Value {
    for _ in 0..8 {
        match node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            Some(target) => node = target,
            None => break,
        }
    }
    node
}

/// Whether `value` holds a `null` anywhere (its depth is the parser's, bounded).
fn has_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(has_null),
        Value::Object(members) => members.values().any(has_null),
        _ => false,
    }
}

fn strip(value: &mut Value, schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    let schema = resolve_in(schema, root);
    let Some(node) = schema.as_object() else {
        return false;
    };
    let mut changed = false;
    match value {
        Value::Object(members) => {
            if let Some(properties) = node.get("properties").and_then(Value::as_object) {
                let required: Vec<&str> = node
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let before = members.len();
                members.retain(|name, member| {
                    !(member.is_null()
                        && !required.contains(&name.as_str())
                        && properties
                            .get(name)
                            .is_some_and(|property| !accepts_null(property, root)))
                });
                changed |= members.len() != before;
                for (name, member) in members.iter_mut() {
                    if let Some(property) = properties.get(name) {
                        changed |= strip(member, property, root, depth + 1);
                    }
                }
            }
            if let Some(branches) = node.get("allOf").and_then(Value::as_array) {
                for branch in branches {
                    changed |= strip(value, branch, root, depth + 1);
                }
            }
            for union in ["oneOf", "anyOf"] {
                if let Some(branches) = node.get(union).and_then(Value::as_array)
                    && let Some(branch) = matching_branch(value, branches, root)
                {
                    changed |= strip(value, branch, root, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(positions) = node.get("prefixItems").and_then(Value::as_array) {
                for (item, position) in items.iter_mut().zip(positions) {
                    changed |= strip(item, position, root, depth + 1);
                }
            } else if let Some(each) = node.get("items") {
                for item in items.iter_mut() {
                    changed |= strip(item, each, root, depth + 1);
                }
            }
        }
        _ => {}
    }
    changed
}

/// The object branch of a union that `value` claims: the one whose `const`
/// properties all match, or the only object branch.
fn matching_branch<'s>(value: &Value, branches: &'s [Value], root: &'s Value) -> Option<&'s Value> {
    let object = value.as_object()?;
    let mut objects = branches.iter().filter(|branch| {
        resolve_in(branch, root)
            .get("properties")
            .is_some_and(Value::is_object)
    });
    let tagged = objects.clone().find(|branch| {
        let properties = resolve_in(branch, root)
            .get("properties")
            .and_then(Value::as_object);
        let mut tags = properties
            .into_iter()
            .flatten()
            .filter_map(|(name, property)| Some((name, resolve_in(property, root).get("const")?)))
            .peekable();
        tags.peek().is_some() && tags.all(|(name, tag)| object.get(name) == Some(tag))
    });
    tagged.or_else(|| {
        let first = objects.next()?;
        objects.next().is_none().then_some(first)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(schema: Value) -> Plan {
        let raw = schema.clone();
        Plan::new(&raw, schema)
    }

    /// Whatever `jsonschema` features a build turns on, no schema makes the
    /// validator read a file or the network: every tool's validator refuses to
    /// retrieve (a `file:` reference to a file that exists included).
    #[test]
    fn nothing_a_schema_names_is_fetched() {
        let path = std::env::temp_dir().join(format!("toolkit-schema-{}.json", std::process::id()));
        std::fs::write(&path, r#"{"type": "string"}"#).unwrap();
        let file = format!("file://{}", path.display());
        for reference in [file.as_str(), "https://example.com/schema.json"] {
            let schema = json!({"type": "object", "properties": {"a": {"$ref": reference}}});
            for patterns in [Patterns::Backtracking, Patterns::Linear] {
                let error = compile(&schema, patterns)
                    .err()
                    .map(|error| error.to_string());
                assert_eq!(
                    error,
                    Some(format!(
                        "Resource '{reference}' is not present in a registry and retrieving it failed: `{reference}` is outside this schema, and nothing is fetched"
                    )),
                    "{reference}"
                );
            }
            // A tool with such a schema (a runtime tool's cleaned one) has no
            // validator rather than one that fetched.
            assert!(plan(schema).validator().is_none());
        }
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn implied_integer_bounds_are_no_constraints() {
        let u32_field = json!({"type": "object", "properties": {
            "a": {"type": "integer", "format": "uint32", "minimum": 0}}});
        assert!(!plan(u32_field).constrained);
        let i8_field = json!({"type": "object", "properties": {
            "a": {"type": "integer", "format": "int8", "minimum": -128, "maximum": 127}}});
        assert!(!plan(i8_field).constrained);
        let ranged = json!({"type": "object", "properties": {
            "a": {"type": "integer", "format": "uint32", "minimum": 1, "maximum": 100}}});
        assert!(plan(ranged).constrained);
        let email =
            json!({"type": "object", "properties": {"a": {"type": "string", "format": "email"}}});
        assert!(plan(email).constrained);
    }

    #[test]
    fn nulls_are_absent_only_for_declared_optional_properties() {
        let plan = plan(json!({
            "type": "object",
            "properties": {
                "level": {"type": "integer"},
                "config": {},
                "notes": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
                "items": {"type": "array", "items": {"type": ["integer", "null"]}},
                "inner": {"$ref": "#/$defs/Inner"},
                "title": {"type": "string"}
            },
            "required": ["title"],
            "$defs": {"Inner": {"type": "object", "properties": {"due": {"type": "string"}}}}
        }));
        let mut value = json!({
            "level": null, "config": {"keep": null, "a": 1}, "notes": {"x": null},
            "items": [1, null], "inner": {"due": null}, "title": null
        });
        assert!(plan.strip_optional_nulls(&mut value));
        assert_eq!(
            value,
            json!({"config": {"keep": null, "a": 1}, "notes": {"x": null},
                   "items": [1, null], "inner": {}, "title": null})
        );
    }

    /// Problems come in path order (indices as numbers), however the build
    /// orders a `serde_json::Map`.
    #[test]
    fn problems_are_listed_in_path_order() {
        let plan = plan(json!({
            "type": "object",
            "properties": {
                "zeta": {"type": "string"},
                "alpha": {"type": "string"},
                "items": {"type": "array", "items": {"type": "string"}}
            }
        }));
        let value =
            json!({"zeta": 1, "alpha": 2, "items": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "x"]});
        let paths: Vec<String> = plan
            .problems(&value)
            .into_iter()
            .map(|problem| problem.path)
            .collect();
        let mut expected = vec!["alpha".to_owned()];
        expected.extend((0..=10).map(|index| format!("items[{index}]")));
        expected.push("zeta".to_owned());
        assert_eq!(paths, expected);
    }
}
