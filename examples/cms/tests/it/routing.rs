//! Sending only the tools that matter: the three default tools always, the routed
//! ones picked by the lexical router or found by the model with `searchTools`, and
//! the guidance of exactly the tools sent.

use example_cms::{Agent, Cms, registry};
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::Dialect;
use toolkit::route::Delivery;
use toolkit::route::provider::{AnthropicSearch, ProviderError};

fn agent() -> Agent {
    Agent::new(registry(), Cms::sample())
}

#[test]
fn the_router_sends_the_default_tools_and_the_few_that_fit() {
    let agent = agent();
    for (message, tools) in [
        (
            "publish the rye post",
            vec![
                "acknowledgeRequest",
                "createPost",
                "deletePost",
                "finalAnswer",
                "searchTools",
                "updatePost",
            ],
        ),
        (
            "get rid of the contact page",
            vec![
                "acknowledgeRequest",
                "deleteEntry",
                "deletePage",
                "deleteSection",
                "finalAnswer",
                "searchTools",
            ],
        ),
        (
            "add a link to the shop in the site menu",
            vec![
                "acknowledgeRequest",
                "createNavItem",
                "createPage",
                "finalAnswer",
                "getNavItem",
                "searchTools",
            ],
        ),
        (
            "find a stock photo of croissants",
            vec![
                "acknowledgeRequest",
                "browseImages",
                "deleteImage",
                "finalAnswer",
                "getImage",
                "searchTools",
            ],
        ),
        // Nothing fits: the router abstains, the default tools still go.
        (
            "hello there",
            vec!["acknowledgeRequest", "finalAnswer", "searchTools"],
        ),
    ] {
        let turn = block_on(agent.route(message));
        assert_eq!(turn.tools, tools, "{message}");
        assert!(!turn.fell_back);
    }
}

#[test]
fn the_prompt_holds_the_guidance_of_exactly_the_tools_sent() {
    let turn = block_on(agent().route("publish the rye post"));
    assert_eq!(
        turn.prompt,
        "You edit the website of a bakery with the tools you have. Call `acknowledgeRequest` before long work and `finalAnswer` at the end. If a tool you need is missing, find it with `searchTools`.\n\n\
<tool-guidance>\n\
<acknowledgeRequest>One short sentence, once per request, only before work that takes several calls.</acknowledgeRequest>\n\
<createPost>Start as a draft unless the user says to publish; scheduled needs publishAt.</createPost>\n\
<deletePost>To take a post offline without losing it, set it back to draft instead.</deletePost>\n\
<finalAnswer>Call it last, once: say what changed, with links to the pages touched.</finalAnswer>\n\
<updatePost>Publishing is an update: set status to published.</updatePost>\n\
</tool-guidance>"
    );
}

#[test]
fn the_model_finds_routed_tools_with_search_tools_for_the_rest_of_the_conversation() {
    let agent = agent();
    assert_eq!(
        agent.search_only().tools,
        ["acknowledgeRequest", "finalAnswer", "searchTools"]
    );
    let response = block_on(agent.call("searchTools", r#"{"query": "menu link", "limit": 2}"#));
    assert_eq!(
        response.to_json(),
        json!({"result": {
            "tools": [
                {"name": "createNavItem", "summary": "Create a navigation item in the site menu.", "group": "navigation"},
                {"name": "getNavItem", "summary": "Get navigation items: one by `id` or `slug`, or all of them with `all: true`. Returns {success, count, items}.", "group": "navigation"}
            ],
            "message": "Found 2 tools; they can be called from your next turn on."
        }})
    );
    assert_eq!(
        agent.search_only().tools,
        [
            "acknowledgeRequest",
            "createNavItem",
            "finalAnswer",
            "getNavItem",
            "searchTools"
        ]
    );
    // Found tools stay for the conversation, beside what the router picks.
    assert_eq!(
        block_on(agent.route("publish the rye post")).tools,
        [
            "acknowledgeRequest",
            "createNavItem",
            "createPost",
            "deletePost",
            "finalAnswer",
            "getNavItem",
            "searchTools",
            "updatePost"
        ]
    );
    // A fresh conversation starts again from the default tools.
    assert_eq!(
        Agent::new(registry(), Cms::sample()).search_only().tools,
        ["acknowledgeRequest", "finalAnswer", "searchTools"]
    );
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools
        .iter()
        .map(|tool| {
            tool.get("name")
                .or_else(|| tool.get("type"))
                .and_then(Value::as_str)
                .unwrap_or("?")
        })
        .collect()
}

#[test]
fn provider_search_sends_every_routed_tool_deferred() {
    let agent = agent();
    let view = agent.view();
    let anthropic = view
        .render_routed(
            Dialect::Anthropic,
            Delivery::ProviderSearch(AnthropicSearch::Bm25),
        )
        .unwrap();
    assert_eq!(anthropic.len(), 35);
    assert_eq!(
        names(&anthropic[..3]),
        ["acknowledgeRequest", "finalAnswer", "searchTools"]
    );
    assert_eq!(
        anthropic
            .iter()
            .filter(|tool| tool["defer_loading"] == json!(true))
            .count(),
        31
    );
    assert_eq!(names(&anthropic[34..]), ["tool_search_tool_bm25"]);
    let openai = view
        .render_routed(
            Dialect::OpenAiResponses,
            Delivery::ProviderSearch(AnthropicSearch::Bm25),
        )
        .unwrap();
    assert_eq!(openai.last(), Some(&json!({"type": "tool_search"})));
    assert_eq!(
        view.render_routed(
            Dialect::GeminiJsonSchema,
            Delivery::ProviderSearch(AnthropicSearch::Bm25)
        ),
        Err(ProviderError::Unsupported {
            dialect: Dialect::GeminiJsonSchema
        })
    );
    // Every CMS tool renders in every dialect, strict ones and Gemini's OpenAPI
    // subset included: free-form data is a list of `{name, value}`, never a map.
    for dialect in Dialect::ALL {
        assert_eq!(view.render(dialect).skipped, [], "{dialect}");
    }
}
