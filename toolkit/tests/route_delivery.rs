//! The built-in search tool through a view, and a view's tools rendered for each
//! way of delivering routed tools (`route::Delivery`: sent with the request, found
//! by the built-in search tool, or deferred to a provider's tool search).

use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::route::provider::{AnthropicSearch, ProviderError};
use toolkit::route::{
    Delivery, FoundTools, LexicalRouter, RouteRequest, SEARCH_TOOLS, ToolSearch, search_tool,
    select,
};
use toolkit::{Context, Dialect, Registry, Response, Scope, Tool, ToolError, tool};

/// Get the current time.
#[tool(scope = shared, tier = auto, always, guidance = "Times are UTC.")]
fn get_clock() -> &'static str {
    "12:00"
}

/// Delete notes by id.
#[tool(scope = shared, tier = auto, group = "notes")]
fn delete_notes(
    /// The notes' ids.
    ids: Vec<u32>,
) -> usize {
    ids.len()
}

/// Create a note.
#[tool(scope = shared, tier = auto, group = "notes")]
fn create_notes(
    /// The note's text.
    text: String,
) -> String {
    text
}

/// Get the weather for a city.
#[tool(scope = shared, tier = auto, group = "weather")]
fn get_city_weather(
    /// The city.
    city: String,
) -> String {
    city
}

fn registry(with_search: bool) -> Registry {
    let mut tools: Vec<&'static Tool> = vec![
        get_clock::definition(),
        delete_notes::definition(),
        create_notes::definition(),
        get_city_weather::definition(),
    ];
    if with_search {
        tools.push(&SEARCH_TOOLS);
    }
    Registry::new(tools).expect("unique names")
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools
        .iter()
        .map(|tool| {
            tool.get("name")
                .or_else(|| tool.pointer("/function/name"))
                .or_else(|| tool.get("type"))
                .and_then(Value::as_str)
                .unwrap_or("?")
        })
        .collect()
}

#[test]
fn the_search_tool_finds_routed_tools_and_remembers_them_per_conversation() {
    let registry = registry(true);
    let view = registry.view().scopes([Scope::Shared]).build().unwrap();
    let found = FoundTools::new();
    let ctx = Context::new().with(ToolSearch::for_view(&view, found.clone()));

    // Before any search: the always tools only (the search tool among them).
    let before = view
        .render_routed(Dialect::Anthropic, Delivery::SearchTool(&found))
        .unwrap();
    assert_eq!(names(&before), ["get_clock", "search_tools"]);

    let response = block_on(view.call("search_tools", r#"{"query": "remove a note"}"#, &ctx));
    assert_eq!(
        response,
        Response::Result(json!({
            "tools": [
                {"name": "delete_notes", "summary": "Delete notes by id.", "group": "notes"},
                {"name": "create_notes", "summary": "Create a note.", "group": "notes"}
            ],
            "message": "Found 2 tools; they can be called from your next turn on."
        }))
    );
    assert_eq!(found.names(), ["create_notes", "delete_notes"]);
    let after = view
        .render_routed(Dialect::OpenAiChat, Delivery::SearchTool(&found))
        .unwrap();
    assert_eq!(
        names(&after),
        ["create_notes", "delete_notes", "get_clock", "search_tools"]
    );

    // Another conversation has its own set.
    let other = FoundTools::new();
    let other_ctx = Context::new().with(ToolSearch::for_view(&view, other.clone()));
    let response = block_on(view.call(
        "search_tools",
        r#"{"query": "weather in a city", "limit": 1}"#,
        &other_ctx,
    ));
    assert_eq!(
        response,
        Response::Result(json!({
            "tools": [{"name": "get_city_weather", "summary": "Get the weather for a city.", "group": "weather"}],
            "message": "Found 1 tool; it can be called from your next turn on."
        }))
    );
    assert_eq!(other.names(), ["get_city_weather"]);
    assert_eq!(found.names(), ["create_notes", "delete_notes"]);

    let response = block_on(view.call("search_tools", r#"{"query": "juggle"}"#, &ctx));
    assert_eq!(
        response,
        Response::Result(json!({
            "tools": [],
            "message": "No tool matches \"juggle\"; try other words, or do without."
        }))
    );
    assert_eq!(found.names(), ["create_notes", "delete_notes"]);
}

#[test]
fn the_search_tool_refuses_hostile_input_with_bounded_errors() {
    let registry = registry(true);
    let view = registry.view().build().unwrap();
    let ctx = Context::new().with(ToolSearch::for_view(&view, FoundTools::new()));
    let long = format!(r#"{{"query": "{}"}}"#, "note ".repeat(100));
    let response = block_on(SEARCH_TOOLS.call(&long, &ctx));
    assert_eq!(
        response,
        Response::Error(ToolError::invalid_arguments(
            "query",
            "at most 200 characters: give a few keywords"
        ))
    );
    // Through the view, the schema's bounds apply first.
    assert_eq!(
        block_on(view.call("search_tools", &long, &ctx))
            .error()
            .map(ToolError::kind),
        Some("invalid_arguments")
    );
    assert_eq!(
        block_on(view.call("search_tools", r#"{"query": "note", "limit": 900}"#, &ctx))
            .error()
            .map(ToolError::kind),
        Some("invalid_arguments")
    );
    // A raw call past the schema is clamped, not obeyed.
    let ctx_all = Context::new().with(ToolSearch::for_view(&view, FoundTools::new()));
    let Response::Result(answer) =
        block_on(SEARCH_TOOLS.call(r#"{"query": "notes", "limit": 0}"#, &ctx_all))
    else {
        panic!("a result");
    };
    assert_eq!(answer["tools"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        block_on(view.call("search_tools", r#"{"query": "note", "extra": 1}"#, &ctx))
            .error()
            .map(ToolError::kind),
        Some("unknown_field")
    );
    // Without a `ToolSearch` in the context: an error naming it, not a panic.
    let response = block_on(view.call("search_tools", r#"{"query": "note"}"#, &Context::new()));
    assert_eq!(
        response.error().map(ToolError::kind),
        Some("missing_context")
    );
}

#[test]
fn the_search_tool_renders_in_every_dialect_under_any_name() {
    static SEARCH_CAMEL: Tool = search_tool("searchTools");
    let registry = Registry::new([&SEARCH_TOOLS, &SEARCH_CAMEL]).unwrap();
    for dialect in Dialect::ALL {
        let rendered = registry.render(dialect).all_or_error();
        assert!(rendered.is_ok(), "{dialect}: {rendered:?}");
    }
    assert_eq!(
        registry
            .get("searchTools")
            .unwrap()
            .render(Dialect::Anthropic)
            .unwrap(),
        json!({
            "name": "searchTools",
            "description": "Search the tools you don't have yet by keywords. The tools found can be called from your next turn on; if none matches, do without.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Keywords for what you need to do, like `delete page` or `publish post`.", "maxLength": 200},
                    "limit": {"type": "integer", "description": "How many tools to return at most.", "minimum": 1, "maximum": 10, "default": 5}
                },
                "required": ["query"]
            }
        })
    );
}

#[test]
fn a_router_selection_renders_the_always_tools_and_the_picks() {
    let registry = registry(false);
    let view = registry.view().build().unwrap();
    let router = LexicalRouter::new(view.catalog());
    let request = RouteRequest::new("what's the weather in Oslo?");
    let selection = block_on(select(&router, &request));
    let tools = view
        .render_routed(Dialect::GeminiParameters, Delivery::Router(&selection))
        .unwrap();
    assert_eq!(names(&tools), ["get_city_weather", "get_clock"]);
    // No search tool in the view: the search delivery is refused, with a reason.
    let error = view
        .render_routed(Dialect::Mcp, Delivery::SearchTool(&FoundTools::new()))
        .unwrap_err();
    assert_eq!(error, ProviderError::NoSearchTool);
    assert_eq!(
        error.to_string(),
        "the view has routed tools but no always search tool to find them; add `toolkit::route::SEARCH_TOOLS` (or a `search_tool`) to the registry and the view"
    );
}

#[test]
fn provider_search_defers_routed_tools_and_guards_each_provider() {
    let registry = registry(false);
    let view = registry.view().build().unwrap();
    let anthropic = view
        .render_routed(
            Dialect::Anthropic,
            Delivery::ProviderSearch(AnthropicSearch::Regex),
        )
        .unwrap();
    assert_eq!(
        names(&anthropic),
        [
            "get_clock",
            "create_notes",
            "delete_notes",
            "get_city_weather",
            "tool_search_tool_regex"
        ]
    );
    assert_eq!(anthropic[0].get("defer_loading"), None);
    assert!(
        anthropic[1..4]
            .iter()
            .all(|tool| tool["defer_loading"] == json!(true))
    );
    assert_eq!(
        anthropic[4],
        json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
    );

    let openai = view
        .render_routed(
            Dialect::OpenAiResponsesStrict,
            Delivery::ProviderSearch(AnthropicSearch::Bm25),
        )
        .unwrap();
    assert_eq!(
        names(&openai),
        [
            "get_clock",
            "create_notes",
            "delete_notes",
            "get_city_weather",
            "tool_search"
        ]
    );
    assert_eq!(openai[4], json!({"type": "tool_search"}));
    assert_eq!(openai[2]["defer_loading"], json!(true));

    // Only always tools: no deferred tool, so no search tool either.
    let always_only = registry.view().allow(["get_clock"]).build().unwrap();
    let tools = always_only
        .render_routed(
            Dialect::OpenAiResponses,
            Delivery::ProviderSearch(AnthropicSearch::Bm25),
        )
        .unwrap();
    assert_eq!(names(&tools), ["get_clock"]);

    for dialect in [
        Dialect::OpenAiChat,
        Dialect::OpenAiChatStrict,
        Dialect::GeminiParameters,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ] {
        assert_eq!(
            view.render_routed(dialect, Delivery::ProviderSearch(AnthropicSearch::Bm25)),
            Err(ProviderError::Unsupported { dialect })
        );
    }
}

#[test]
fn more_tools_than_openai_takes_is_refused() {
    let tools: Vec<&'static Tool> = (0..129)
        .map(|i| -> &'static Tool {
            let name: &'static str = Box::leak(format!("search_{i:03}").into_boxed_str());
            Box::leak(Box::new(search_tool(name)))
        })
        .collect();
    let registry = Registry::new(tools).unwrap();
    let view = registry.view().build().unwrap();
    let found = FoundTools::new();
    assert_eq!(
        view.render_routed(Dialect::OpenAiResponses, Delivery::SearchTool(&found)),
        Err(ProviderError::TooManyTools {
            count: 129,
            limit: 128
        })
    );
    assert_eq!(
        view.render_routed(Dialect::Anthropic, Delivery::SearchTool(&found))
            .map(|tools| tools.len()),
        Ok(129)
    );
}

/// Tag a note with free-form labels.
#[tool(scope = shared, tier = auto, group = "notes")]
fn update_note_labels(
    /// Label names to values.
    labels: std::collections::BTreeMap<String, String>,
) -> usize {
    labels.len()
}

#[test]
fn a_tool_the_dialect_cannot_express_is_an_error_not_a_silent_gap() {
    let registry = Registry::new([get_clock::definition(), update_note_labels::definition()])
        .expect("unique names");
    let view = registry.view().build().unwrap();
    let router = LexicalRouter::new(view.catalog());
    let request = RouteRequest::new("change the labels of a note");
    let selection = block_on(select(&router, &request));
    assert_eq!(selection.names(), ["update_note_labels"]);
    let error = view
        .render_routed(Dialect::OpenAiChatStrict, Delivery::Router(&selection))
        .unwrap_err();
    let ProviderError::Render(render) = &error else {
        panic!("a render error: {error:?}");
    };
    assert_eq!(
        (render.tool.as_str(), render.dialect, render.path.as_str()),
        ("update_note_labels", Dialect::OpenAiChatStrict, "labels")
    );
    assert_eq!(error.to_string(), render.to_string());
    // The lenient dialect takes it.
    assert_eq!(
        view.render_routed(Dialect::OpenAiChat, Delivery::Router(&selection))
            .map(|tools| tools.len()),
        Ok(2)
    );
}
