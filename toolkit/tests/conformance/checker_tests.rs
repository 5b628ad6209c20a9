//! The checker's own tests: hand-written renderings it must pass and ones it must
//! fail, each with the exact violations expected. A checker that passes everything
//! would make the matrix meaningless.

// The builders take the schema by value so each test reads as one expression.
#![allow(clippy::needless_pass_by_value)]

use serde_json::{Value, json};
use toolkit::Dialect;

use super::checker::{Declared, Rule, Violation, check, check_preserves};

/// The violations as sorted `(path, rule)` pairs, for exact comparison.
fn found(violations: &[Violation]) -> Vec<(String, Rule)> {
    let mut pairs: Vec<(String, Rule)> = violations
        .iter()
        .map(|violation| (violation.path.clone(), violation.rule))
        .collect();
    pairs.sort();
    pairs
}

fn expect(pairs: &[(&str, Rule)]) -> Vec<(String, Rule)> {
    let mut pairs: Vec<(String, Rule)> = pairs
        .iter()
        .map(|(path, rule)| ((*path).to_owned(), *rule))
        .collect();
    pairs.sort();
    pairs
}

/// A Chat Completions tool; a lenient one leaves `strict` out (false there).
fn chat(parameters: Value, strict: bool) -> Value {
    let mut tool = json!({"type": "function", "function": {
        "name": "get_notes",
        "description": "Get notes.",
        "parameters": parameters,
    }});
    if strict {
        tool["function"]["strict"] = json!(true);
    }
    tool
}

/// A lenient schema as a careful renderer writes it.
fn lenient_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "tag": {"type": "string", "description": "Only this tag."},
            "limit": {"type": "integer", "minimum": 0, "description": "At most this many."},
            "author": {"$ref": "#/$defs/Author", "description": "By this author."},
            "title": {"type": "string", "description": "A property may be called title."}
        },
        "required": ["tag"],
        "$defs": {"Author": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The name."}},
            "required": ["name"]
        }}
    })
}

/// A strict schema as a careful renderer writes it.
fn strict_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "tag": {"type": "string", "description": "Only this tag."},
            "limit": {"type": ["integer", "null"], "minimum": 0, "description": "At most this many."},
            "author": {
                "anyOf": [{"$ref": "#/$defs/Author"}, {"type": "null"}],
                "description": "By this author."
            },
            "priority": {
                "type": ["string", "null"],
                "enum": ["low", "high", null],
                "description": "How urgent."
            }
        },
        "required": ["tag", "limit", "author", "priority"],
        "additionalProperties": false,
        "$defs": {"Author": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The name."}},
            "required": ["name"],
            "additionalProperties": false
        }}
    })
}

#[test]
fn accepts_good_openai_renderings() {
    assert_eq!(
        check(Dialect::OpenAiChat, &chat(lenient_schema(), false)),
        []
    );
    assert_eq!(
        check(Dialect::OpenAiChatStrict, &chat(strict_schema(), true)),
        []
    );
    let flat = json!({
        "type": "function",
        "name": "get_notes",
        "description": "Get notes.",
        "parameters": strict_schema(),
        "strict": true,
    });
    assert_eq!(check(Dialect::OpenAiResponsesStrict, &flat), []);
}

#[test]
fn rejects_wrong_envelopes() {
    // Chat with the Responses shape, a bad name, an empty description, strict wrong.
    let flat = json!({
        "type": "function",
        "name": "get notes!",
        "description": "",
        "parameters": lenient_schema(),
        "strict": true,
    });
    assert_eq!(
        found(&check(Dialect::OpenAiChat, &flat)),
        expect(&[
            ("/description", Rule::Envelope),
            ("/function", Rule::Envelope),
            ("/function", Rule::Envelope),
            ("/name", Rule::Envelope),
            ("/parameters", Rule::Envelope),
            ("/strict", Rule::Envelope),
        ])
    );
    assert_eq!(
        found(&check(Dialect::OpenAiResponses, &flat)),
        expect(&[
            ("/description", Rule::ToolDescription),
            ("/name", Rule::ToolName),
            ("/strict", Rule::Envelope),
        ])
    );
    // Responses must send `strict` explicitly.
    let mut missing = flat.clone();
    missing.as_object_mut().expect("object").remove("strict");
    missing["name"] = json!("get_notes");
    missing["description"] = json!("Get notes.");
    assert_eq!(
        found(&check(Dialect::OpenAiResponses, &missing)),
        expect(&[("/strict", Rule::Envelope)])
    );
    // Anthropic strict needs `strict: true`; plain Anthropic has no `strict`.
    let anthropic =
        json!({"name": "get_notes", "description": "Get notes.", "input_schema": lenient_schema()});
    assert_eq!(
        found(&check(Dialect::AnthropicStrict, &anthropic)),
        expect(&[
            ("/input_schema", Rule::ClosedObject),
            ("/input_schema/$defs/Author", Rule::ClosedObject),
            (
                "/input_schema/properties/limit/minimum",
                Rule::ForbiddenKeyword
            ),
            ("/strict", Rule::Envelope),
        ])
    );
    assert_eq!(check(Dialect::Anthropic, &anthropic), []);
    let mut with_strict = anthropic.clone();
    with_strict["strict"] = json!(true);
    assert_eq!(
        found(&check(Dialect::Anthropic, &with_strict)),
        expect(&[("/strict", Rule::Envelope)])
    );
    assert_eq!(
        found(&check(Dialect::OpenAiChat, &json!([]))),
        expect(&[("", Rule::Envelope)])
    );
}

#[test]
fn tool_name_pattern() {
    let named = |name: &str| json!({"name": name, "description": "Get notes.", "parametersJsonSchema": lenient_schema()});
    assert_eq!(check(Dialect::GeminiJsonSchema, &named("get-notes_2")), []);
    let long = "a".repeat(65);
    for bad in ["", "get.notes", "get notes", "é", long.as_str()] {
        assert_eq!(
            found(&check(Dialect::GeminiJsonSchema, &named(bad))),
            expect(&[("/name", Rule::ToolName)]),
            "{bad:?}"
        );
    }
}

#[test]
fn rejects_leaked_schemars_noise_in_every_dialect() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Arguments",
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}], "description": "A pair."},
            "inner": {"type": "object", "title": "Inner", "properties": {}},
            "missing": {"$ref": "#/$defs/Nowhere"}
        },
        "required": ["ghost"]
    });
    let tool = json!({"name": "get_notes", "description": "Get notes.", "input_schema": schema});
    assert_eq!(
        found(&check(Dialect::Anthropic, &tool)),
        expect(&[
            ("/input_schema/$schema", Rule::SchemaKeyword),
            ("/input_schema/properties/inner", Rule::PropertyDescription),
            ("/input_schema/properties/inner/title", Rule::Title),
            (
                "/input_schema/properties/missing",
                Rule::PropertyDescription
            ),
            ("/input_schema/properties/missing/$ref", Rule::DanglingRef),
            ("/input_schema/properties/pair", Rule::ArrayItems),
            ("/input_schema/required/0", Rule::RequiredUnknown),
            ("/input_schema/title", Rule::Title),
        ])
    );
}

#[test]
fn rejects_keyword_values_of_the_wrong_type() {
    let schema = json!({
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": {}, "description": "Tags."},
            "n": {"type": "integer", "minimum": "0", "maxItems": -1, "description": "N."},
            "k": {"type": [], "description": 5, "anyOf": []},
            "e": {"type": "string", "enum": "a", "description": "E.", "items": 3}
        }
    });
    let tool = json!({"name": "get_notes", "description": "Get notes.", "input_schema": schema});
    let p = "/input_schema/properties";
    assert_eq!(
        found(&check(Dialect::Anthropic, &tool)),
        expect(&[
            (&format!("{p}/e/enum"), Rule::KeywordValue),
            (&format!("{p}/e/items"), Rule::KeywordValue),
            (&format!("{p}/k"), Rule::PropertyDescription),
            (&format!("{p}/k/anyOf"), Rule::KeywordValue),
            (&format!("{p}/k/description"), Rule::KeywordValue),
            (&format!("{p}/k/type"), Rule::KeywordValue),
            (&format!("{p}/n/maxItems"), Rule::KeywordValue),
            (&format!("{p}/n/minimum"), Rule::KeywordValue),
            (&format!("{p}/tags/uniqueItems"), Rule::KeywordValue),
        ])
    );
}

#[test]
fn rejects_non_object_and_union_roots() {
    let union = json!({"anyOf": [{"type": "object"}, {"type": "string"}]});
    let tool = json!({"name": "get_notes", "description": "Get notes.", "input_schema": union});
    assert_eq!(
        found(&check(Dialect::Anthropic, &tool)),
        expect(&[
            ("/input_schema", Rule::RootObject),
            ("/input_schema/anyOf", Rule::RootUnion),
        ])
    );
    let array = chat(json!({"type": "array", "items": {"type": "string"}}), false);
    assert_eq!(
        found(&check(Dialect::OpenAiChat, &array)),
        expect(&[("/function/parameters", Rule::RootObject)])
    );
}

#[test]
fn openai_strict_rules() {
    let schema = json!({
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "format": "uint32", "default": 20, "description": "Limit."},
            "author": {"$ref": "#/$defs/Author", "description": "Author."},
            "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string"}, "description": "Tags."},
            "meta": {"description": "Anything."},
            "kind": {"oneOf": [{"type": "string", "const": "a"}], "description": "Kind."},
            "name": {"type": "string", "minLength": 1, "format": "date", "description": "Name."},
            "counts": {
                "type": "object",
                "additionalProperties": {"type": "integer"},
                "propertyNames": {"type": "string", "pattern": "^a"},
                "description": "Counts."
            }
        },
        "required": ["limit", "author", "tags", "meta", "kind", "name"],
        "additionalProperties": false,
        "$defs": {"Author": {"type": "object", "properties": {}}}
    });
    assert_eq!(
        found(&check(Dialect::OpenAiChatStrict, &chat(schema, true))),
        expect(&[
            ("/function/parameters/$defs/Author", Rule::ClosedObject),
            (
                "/function/parameters/properties/author/description",
                Rule::RefSiblings
            ),
            ("/function/parameters/properties/counts", Rule::ClosedObject),
            ("/function/parameters/properties/counts", Rule::RequiredAll),
            (
                "/function/parameters/properties/counts/propertyNames",
                Rule::ForbiddenKeyword
            ),
            ("/function/parameters/properties/kind", Rule::Untyped),
            (
                "/function/parameters/properties/kind/oneOf",
                Rule::ForbiddenKeyword
            ),
            (
                "/function/parameters/properties/limit/default",
                Rule::ForbiddenKeyword
            ),
            ("/function/parameters/properties/limit/format", Rule::Format),
            ("/function/parameters/properties/meta", Rule::Untyped),
            (
                "/function/parameters/properties/name/minLength",
                Rule::ForbiddenKeyword
            ),
            (
                "/function/parameters/properties/tags/uniqueItems",
                Rule::ForbiddenKeyword
            ),
        ])
    );
    // `format: date` is fine in strict mode; only the listed formats are.
    let dated = json!({
        "type": "object",
        "properties": {"day": {"type": "string", "format": "date", "description": "Day."}},
        "required": ["day"],
        "additionalProperties": false
    });
    assert_eq!(check(Dialect::OpenAiChatStrict, &chat(dated, true)), []);
    // The same schema passes the lenient dialect except for its top-level rules.
    let loose = json!({
        "type": "object",
        "properties": {"pair": {"type": "array", "items": true, "description": "Pair."}}
    });
    assert_eq!(
        found(&check(Dialect::OpenAiChat, &chat(loose, false))),
        expect(&[(
            "/function/parameters/properties/pair/items",
            Rule::ArrayItems
        )])
    );
}

#[test]
fn openai_strict_limits() {
    let many: serde_json::Map<String, Value> = (0..5001)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "description": "x"}),
            )
        })
        .collect();
    let names: Vec<String> = many.keys().cloned().collect();
    let wide = json!({
        "type": "object",
        "properties": many,
        "required": names,
        "additionalProperties": false
    });
    assert_eq!(
        found(&check(Dialect::OpenAiChatStrict, &chat(wide, true))),
        expect(&[("/function/parameters", Rule::SizeLimit)])
    );

    // Eleven nested objects (the root counts as the first).
    let mut deep =
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false});
    for _ in 0..10 {
        deep = json!({
            "type": "object",
            "properties": {"next": deep, "description": {"type": "string", "description": "x"}},
            "required": ["next", "description"],
            "additionalProperties": false,
            "description": "x"
        });
    }
    let violations = check(Dialect::OpenAiChatStrict, &chat(deep.clone(), true));
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].rule, Rule::SizeLimit);
    assert_eq!(
        violations[0].path,
        format!("/function/parameters{}", "/properties/next".repeat(10))
    );
    // Ten levels are fine.
    let ten = deep["properties"]["next"].clone();
    assert_eq!(check(Dialect::OpenAiChatStrict, &chat(ten, true)), []);

    let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    let enums = json!({
        "type": "object",
        "properties": {"pick": {"type": "string", "enum": values, "description": "x"}},
        "required": ["pick"],
        "additionalProperties": false
    });
    assert_eq!(
        found(&check(Dialect::OpenAiChatStrict, &chat(enums, true))),
        expect(&[("/function/parameters", Rule::SizeLimit)])
    );
}

fn anthropic_strict(schema: Value) -> Value {
    json!({"name": "get_notes", "description": "Get notes.", "input_schema": schema, "strict": true})
}

#[test]
fn anthropic_strict_rules() {
    let schema = json!({
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "minimum": 0, "maximum": 9, "multipleOf": 3, "description": "Limit."},
            "ids": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 5, "description": "Ids."},
            "one": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "description": "One."},
            "name": {"type": "string", "maxLength": 5, "description": "Name."},
            "open": {"type": "object", "properties": {"a": {"type": "string"}}, "description": "Open."},
            "shape": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "dot"}}, "required": ["kind"], "additionalProperties": false},
                {"type": "object", "properties": {"kind": {"const": "box"}}, "required": ["kind"], "additionalProperties": false}
            ], "description": "Shape."},
            "site": {"type": "string", "format": "uri-reference", "description": "Site."},
            "when": {"type": "string", "format": "date-time", "description": "When."},
            "tree": {"$ref": "#/$defs/Node", "description": "Tree."}
        },
        "additionalProperties": false,
        "$defs": {"Node": {
            "type": "object",
            "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            "additionalProperties": false
        }}
    });
    let p = "/input_schema";
    assert_eq!(
        found(&check(Dialect::AnthropicStrict, &anthropic_strict(schema))),
        expect(&[
            (
                &format!("{p}/$defs/Node/properties/children/items/$ref"),
                Rule::Recursion
            ),
            (
                &format!("{p}/properties/ids/maxItems"),
                Rule::ForbiddenKeyword
            ),
            (&format!("{p}/properties/ids/minItems"), Rule::MinItems),
            (
                &format!("{p}/properties/limit/maximum"),
                Rule::ForbiddenKeyword
            ),
            (
                &format!("{p}/properties/limit/minimum"),
                Rule::ForbiddenKeyword
            ),
            (
                &format!("{p}/properties/limit/multipleOf"),
                Rule::ForbiddenKeyword
            ),
            (
                &format!("{p}/properties/name/maxLength"),
                Rule::ForbiddenKeyword
            ),
            (&format!("{p}/properties/open"), Rule::ClosedObject),
            (
                &format!("{p}/properties/shape/oneOf"),
                Rule::ForbiddenKeyword
            ),
            (&format!("{p}/properties/site/format"), Rule::Format),
        ])
    );
    // Recursion through the root is recursion too; plain Anthropic allows it.
    let root_loop = json!({
        "type": "object",
        "properties": {"next": {"$ref": "#", "description": "Next."}},
        "additionalProperties": false
    });
    assert_eq!(
        found(&check(
            Dialect::AnthropicStrict,
            &anthropic_strict(root_loop.clone())
        )),
        expect(&[("/input_schema/properties/next/$ref", Rule::Recursion)])
    );
    let plain =
        json!({"name": "get_notes", "description": "Get notes.", "input_schema": root_loop});
    assert_eq!(check(Dialect::Anthropic, &plain), []);
    // A shared, non-recursive definition used twice is no recursion.
    let shared = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Leaf", "description": "A."},
            "b": {"type": "array", "items": {"$ref": "#/$defs/Leaf"}, "description": "B."}
        },
        "additionalProperties": false,
        "$defs": {"Leaf": {"type": "string"}}
    });
    assert_eq!(
        check(Dialect::AnthropicStrict, &anthropic_strict(shared)),
        []
    );
}

fn gemini(parameters: Value) -> Value {
    json!({"name": "get_notes", "description": "Get notes.", "parameters": parameters})
}

#[test]
fn gemini_parameters_rules() {
    let good = json!({
        "type": "object",
        "properties": {
            "tag": {"type": "string", "description": "Tag.", "nullable": true},
            "when": {"type": "string", "format": "date-time", "description": "When."},
            "level": {"type": "string", "format": "enum", "enum": ["low", "high"], "description": "Level."},
            "author": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
                "description": "Author."
            },
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "Either."}
        },
        "required": ["when"]
    });
    assert_eq!(check(Dialect::GeminiParameters, &gemini(good)), []);
    // No parameters at all: the key is left out.
    assert_eq!(
        check(
            Dialect::GeminiParameters,
            &json!({"name": "get_notes", "description": "Get notes."})
        ),
        []
    );

    let bad = json!({
        "type": "object",
        "properties": {
            "tag": {"type": ["string", "null"], "description": "Tag."},
            "due-date": {"type": "string", "format": "date", "description": "Due."},
            "author": {"$ref": "#/$defs/Author", "description": "Author."},
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "Counts."},
            "kind": {"const": "a", "type": "string", "description": "Kind."},
            "pick": {"type": "integer", "enum": [1, 2], "description": "Pick."},
            "meta": {"description": "Anything."},
            "shape": {"oneOf": [{"type": "string"}], "type": "string", "description": "Shape."},
            "n": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 2, "description": "N."},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "string"}, "uniqueItems": true, "description": "Pair."},
            "nothing": {"type": "null", "description": "Null."}
        },
        "$defs": {"Author": {"type": "object", "properties": {"name": {"type": "string"}}}}
    });
    let p = "/parameters";
    assert_eq!(
        found(&check(Dialect::GeminiParameters, &gemini(bad))),
        expect(&[
            (&format!("{p}/$defs"), Rule::Inlining),
            (&format!("{p}/properties/author/$ref"), Rule::Inlining),
            (&format!("{p}/properties/counts"), Rule::EmptyObject),
            (
                &format!("{p}/properties/counts/additionalProperties"),
                Rule::ForbiddenKeyword
            ),
            (&format!("{p}/properties/due-date"), Rule::PropertyName),
            (&format!("{p}/properties/due-date/format"), Rule::Format),
            (
                &format!("{p}/properties/kind/const"),
                Rule::ForbiddenKeyword
            ),
            (&format!("{p}/properties/meta"), Rule::Untyped),
            (
                &format!("{p}/properties/n/exclusiveMinimum"),
                Rule::ForbiddenKeyword
            ),
            (
                &format!("{p}/properties/n/multipleOf"),
                Rule::ForbiddenKeyword
            ),
            (&format!("{p}/properties/nothing/type"), Rule::TypeValue),
            (
                &format!("{p}/properties/pair/prefixItems"),
                Rule::ForbiddenKeyword
            ),
            (
                &format!("{p}/properties/pair/uniqueItems"),
                Rule::ForbiddenKeyword
            ),
            (&format!("{p}/properties/pick/enum/0"), Rule::EnumValue),
            (&format!("{p}/properties/pick/enum/1"), Rule::EnumValue),
            (
                &format!("{p}/properties/shape/oneOf"),
                Rule::ForbiddenKeyword
            ),
            (&format!("{p}/properties/tag/type"), Rule::TypeValue),
        ])
    );
    // An object without properties is rejected, at the root too.
    assert_eq!(
        found(&check(
            Dialect::GeminiParameters,
            &gemini(json!({"type": "object", "properties": {}}))
        )),
        expect(&[(p, Rule::EmptyObject)])
    );
    // Recursion can't be inlined.
    let tree = json!({
        "type": "object",
        "properties": {"next": {"$ref": "#", "description": "Next."}}
    });
    assert_eq!(
        found(&check(Dialect::GeminiParameters, &gemini(tree))),
        expect(&[
            (&format!("{p}/properties/next/$ref"), Rule::Inlining),
            (&format!("{p}/properties/next/$ref"), Rule::Recursion),
        ])
    );
}

#[test]
fn gemini_json_schema_rules() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Leaf", "description": "A.", "default": "x"},
            "b": {"$ref": "#/$defs/Leaf", "description": "B.", "minLength": 1},
            "c": {"type": ["string", "null"], "description": "C."}
        },
        "$defs": {"Leaf": {"type": "string"}}
    });
    let tool =
        json!({"name": "get_notes", "description": "Get notes.", "parametersJsonSchema": schema});
    assert_eq!(
        found(&check(Dialect::GeminiJsonSchema, &tool)),
        expect(&[(
            "/parametersJsonSchema/properties/b/minLength",
            Rule::RefSiblings
        )])
    );
}

fn mcp(extra: Value) -> Value {
    let mut tool = json!({
        "name": "get_status",
        "title": "Status",
        "description": "Get the status.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": true, "idempotentHint": true},
        "_meta": {"toolkit": {"tier": "auto"}}
    });
    for (key, value) in extra.as_object().expect("an object") {
        tool[key] = value.clone();
    }
    tool
}

#[test]
fn mcp_rules() {
    let output =
        json!({"outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}});
    assert_eq!(check(Dialect::Mcp, &mcp(output)), []);
    let bad = json!({
        "annotations": {"readOnlyHint": "yes", "cheapHint": true, "title": "Status"},
        "outputSchema": {"type": "string", "title": "string"},
        "_meta": "auto",
        "input_schema": {}
    });
    assert_eq!(
        found(&check(Dialect::Mcp, &mcp(bad))),
        expect(&[
            ("/_meta", Rule::Meta),
            ("/annotations/cheapHint", Rule::Annotations),
            ("/annotations/readOnlyHint", Rule::Annotations),
            ("/input_schema", Rule::Envelope),
            ("/outputSchema", Rule::OutputSchema),
            ("/outputSchema/title", Rule::Title),
        ])
    );
    let mut missing = mcp(json!({}));
    missing
        .as_object_mut()
        .expect("object")
        .remove("annotations");
    assert_eq!(
        found(&check(Dialect::Mcp, &missing)),
        expect(&[("/annotations", Rule::Envelope)])
    );
}

fn declared<'a>(schema: &'a Value, verb: &'a str) -> Declared<'a> {
    Declared {
        name: "get_notes",
        description: "Get notes.",
        title: None,
        verb,
        tier: "auto",
        schema,
        object_output: false,
    }
}

#[test]
fn preservation_of_names_descriptions_and_optionality() {
    let canonical = json!({
        "type": "object",
        "properties": {
            "tag": {"type": "string", "description": "Only this tag."},
            "limit": {"type": "integer", "description": "At most this many."},
            "author": {"$ref": "#/$defs/Author", "description": "By this author."},
            "priority": {"type": "string", "enum": ["low", "high"], "description": "How urgent."}
        },
        "required": ["tag"],
        "$defs": {"Author": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The name."}},
            "required": ["name"],
            "description": "Who wrote it."
        }}
    });
    let declared = declared(&canonical, "get");
    // The careful strict rendering keeps everything (its `$defs` lost "Who wrote
    // it.", so add it back first).
    let mut strict = strict_schema();
    strict["$defs"]["Author"]["description"] = json!("Who wrote it.");
    assert_eq!(
        check_preserves(
            Dialect::OpenAiChatStrict,
            &declared,
            &chat(strict.clone(), true)
        ),
        []
    );
    // Lost the definition's description, and `priority` required without null.
    let mut broken = strict;
    broken["$defs"]["Author"]
        .as_object_mut()
        .expect("object")
        .remove("description");
    broken["properties"]["priority"] =
        json!({"type": "string", "enum": ["low", "high"], "description": "How urgent."});
    broken["properties"]["limit"]["type"] = json!("integer");
    assert_eq!(
        found(&check_preserves(
            Dialect::OpenAiChatStrict,
            &declared,
            &chat(broken, true)
        )),
        expect(&[
            ("/function/parameters", Rule::DescriptionLost),
            ("/function/parameters/properties/limit", Rule::Optionality),
            (
                "/function/parameters/properties/priority",
                Rule::Optionality
            ),
        ])
    );
    // A nullable enum whose `enum` lacks null does not accept null.
    let mut half = strict_schema();
    half["$defs"]["Author"]["description"] = json!("Who wrote it.");
    half["properties"]["priority"]["enum"] = json!(["low", "high"]);
    assert_eq!(
        found(&check_preserves(
            Dialect::OpenAiChatStrict,
            &declared,
            &chat(half, true)
        )),
        expect(&[(
            "/function/parameters/properties/priority",
            Rule::Optionality
        )])
    );

    // Lenient: a property dropped, order changed, required made optional, a nested
    // required made optional, the tool renamed and its description replaced.
    let lenient = json!({"type": "function", "function": {
        "name": "get_note",
        "description": "Notes.",
        "parameters": {
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "description": "At most this many."},
                "tag": {"type": "string", "description": "Only this tag."},
                "author": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "description": "The name."}},
                    "description": "By this author. Who wrote it."
                }
            }
        },
        "strict": false
    }});
    assert_eq!(
        found(&check_preserves(Dialect::OpenAiChat, &declared, &lenient)),
        expect(&[
            ("/function/description", Rule::DescriptionLost),
            ("/function/name", Rule::NameChanged),
            ("/function/parameters", Rule::DescriptionLost),
            ("/function/parameters", Rule::PropertyChanged),
            (
                "/function/parameters/properties/author/properties/name",
                Rule::Optionality
            ),
            ("/function/parameters/properties/tag", Rule::Optionality),
        ])
    );
}

#[test]
fn preservation_of_mcp_annotations() {
    let canonical = json!({"type": "object", "properties": {}});
    let tool = |annotations: Value, meta: Value| {
        json!({
            "name": "get_notes",
            "description": "Get notes.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": annotations,
            "_meta": meta
        })
    };
    let good = tool(
        json!({"readOnlyHint": true, "idempotentHint": true}),
        json!({"tier": "auto"}),
    );
    assert_eq!(
        check_preserves(Dialect::Mcp, &declared(&canonical, "get"), &good),
        []
    );
    let unmarked = tool(json!({}), json!({"tier": "approve"}));
    assert_eq!(
        found(&check_preserves(
            Dialect::Mcp,
            &declared(&canonical, "get"),
            &unmarked
        )),
        expect(&[
            ("/_meta", Rule::Meta),
            ("/annotations/idempotentHint", Rule::Annotations),
            ("/annotations/readOnlyHint", Rule::Annotations),
        ])
    );
    assert_eq!(
        found(&check_preserves(
            Dialect::Mcp,
            &declared(&canonical, "delete"),
            &good
        )),
        expect(&[("/annotations/destructiveHint", Rule::Annotations)])
    );
    assert_eq!(
        found(&check_preserves(
            Dialect::Mcp,
            &declared(&canonical, "create"),
            &good
        )),
        expect(&[("/annotations/readOnlyHint", Rule::Annotations)])
    );
    let mut titled = declared(&canonical, "get");
    titled.title = Some("Notes");
    titled.object_output = true;
    assert_eq!(
        found(&check_preserves(Dialect::Mcp, &titled, &good)),
        expect(&[
            ("/outputSchema", Rule::OutputSchema),
            ("/title", Rule::NameChanged)
        ])
    );
}

#[test]
fn anthropic_input_examples_must_be_objects_that_fit_the_schema() {
    let tool = |examples: Value| {
        json!({
            "name": "get_notes",
            "description": "Get notes.",
            "input_schema": {
                "type": "object",
                "properties": {"tag": {"type": "string", "description": "Only this tag."}},
                "required": ["tag"]
            },
            "input_examples": examples,
        })
    };
    assert_eq!(
        found(&check(Dialect::Anthropic, &tool(json!([{"tag": "work"}])))),
        expect(&[])
    );
    assert_eq!(
        found(&check(
            Dialect::Anthropic,
            &tool(json!([{"tag": 3}, "work", {"tag": "home"}]))
        )),
        expect(&[
            ("/input_examples/0", Rule::InputExamples),
            ("/input_examples/1", Rule::InputExamples),
        ])
    );
    assert_eq!(
        found(&check(Dialect::Anthropic, &tool(json!([])))),
        expect(&[("/input_examples", Rule::InputExamples)])
    );
    // Only Anthropic's envelopes take the key.
    let mut chat_tool = chat(lenient_schema(), false);
    chat_tool["function"]["input_examples"] = json!([{"tag": "work"}]);
    assert_eq!(
        found(&check(Dialect::OpenAiChat, &chat_tool)),
        expect(&[("/function/input_examples", Rule::Envelope)])
    );
}
