use futures_executor::block_on;

use super::*;

fn entry(name: &str, description: &str, group: &str) -> CatalogEntry {
    let mut entry = CatalogEntry::new(name, description);
    entry.group = Some(group.to_owned());
    entry
}

/// A small assistant-like catalog.
fn catalog() -> Catalog {
    Catalog::new([
        entry(
            "get_tasks",
            "Get tasks: one by `id`, or the open tasks, newest first.",
            "tasks",
        ),
        entry(
            "create_tasks",
            "Create tasks; returns them with their new ids.",
            "tasks",
        ),
        entry(
            "update_tasks",
            "Update tasks: only the fields given change.",
            "tasks",
        ),
        entry("delete_tasks", "Delete tasks by id.", "tasks"),
        entry(
            "get_reminders",
            "Get reminders, soonest first.",
            "reminders",
        ),
        entry("create_reminders", "Create reminders.", "reminders"),
        entry(
            "search_memories",
            "Search memories by words in their content.",
            "memories",
        ),
        entry(
            "getNavItem",
            "Get navigation items of the site menu.",
            "navigation",
        ),
    ])
}

fn names(router: &LexicalRouter, message: &str) -> Vec<String> {
    router
        .rank(&RouteRequest::new(message).limit(3))
        .into_iter()
        .map(|scored| scored.entry.name.clone())
        .collect()
}

#[test]
fn stray_verbs_and_plurals_reach_the_vocabulary() {
    let router = LexicalRouter::new(catalog());
    assert_eq!(
        names(&router, "get rid of the groceries to-do"),
        ["delete_tasks", "get_tasks", "update_tasks"]
    );
    assert_eq!(names(&router, "remove that task")[0], "delete_tasks");
    assert_eq!(names(&router, "add a task for Monday")[0], "create_tasks");
    assert_eq!(names(&router, "mark the task as done")[0], "update_tasks");
    assert_eq!(names(&router, "list my reminders")[0], "get_reminders");
    assert_eq!(names(&router, "remind me at noon")[0], "create_reminders");
    assert_eq!(
        names(&router, "find what I said about the memory")[0],
        "search_memories"
    );
    assert_eq!(names(&router, "show the nav item")[0], "getNavItem");
}

#[test]
fn nothing_in_common_is_an_abstention() {
    let router = LexicalRouter::new(catalog());
    let request = RouteRequest::new("tell me a joke about penguins");
    assert!(router.rank(&request).is_empty());
    assert_eq!(block_on(router.route(&request)), Ok(Routing::Abstained));
    let selection = block_on(select(&router, &request));
    assert_eq!(selection.outcome, Outcome::Abstained);
    assert!(selection.tools.is_empty());
}

#[test]
fn earlier_turns_count_when_the_message_is_short() {
    let router = LexicalRouter::new(catalog());
    let request = RouteRequest::new("delete it").turns(["what reminders do I have?"]);
    let picked: Vec<&str> = router
        .rank(&request)
        .iter()
        .map(|s| s.entry.name.as_str())
        .collect();
    assert_eq!(picked[0], "delete_tasks");
    let request = RouteRequest::new("the second one, please").turns(["show my reminders"]);
    let picked: Vec<&str> = router
        .rank(&request)
        .iter()
        .map(|s| s.entry.name.as_str())
        .collect();
    assert_eq!(picked[0], "get_reminders");
}

#[test]
fn a_request_only_reaches_allowed_tools() {
    let router = LexicalRouter::new(catalog());
    let allowed = |name: &str| name != "delete_tasks";
    let request = RouteRequest::new("delete the task").within(&allowed);
    let selection = block_on(select(&router, &request));
    assert!(!selection.names().contains(&"delete_tasks"));
    assert_eq!(selection.outcome, Outcome::Picked);
}

#[test]
fn ranking_is_deterministic_and_ties_keep_catalog_order() {
    let catalog = Catalog::new([
        CatalogEntry::new("get_b", "Get things."),
        CatalogEntry::new("get_a", "Get things."),
    ]);
    let router = LexicalRouter::new(catalog);
    let ranked = router.rank(&RouteRequest::new("things"));
    assert_eq!(ranked.len(), 2);
    assert_eq!(ranked[0].entry.name, "get_b");
    assert!((ranked[0].score - ranked[1].score).abs() < f32::EPSILON);
}

#[test]
fn plain_bm25_reads_only_name_and_description_words() {
    let plain = PlainBm25::new(catalog());
    let ranked = |message: &str| -> Vec<String> {
        plain
            .rank(&RouteRequest::new(message))
            .into_iter()
            .map(|scored| scored.entry.name.clone())
            .collect()
    };
    // No verb mapping, no stemming: "remove" and "task" match nothing.
    assert!(ranked("remove task").is_empty());
    assert_eq!(ranked("delete tasks")[0], "delete_tasks");
    // `getNavItem` is one word to it.
    assert_eq!(ranked("getnavitem"), ["getNavItem"]);
}

#[test]
fn entries_come_from_tools_and_from_json() {
    let json = r#"[
        {"name": "getPage", "description": "Get pages.\n\nBy id or slug.", "group": "pages",
         "params": [{"name": "slug", "description": "The URL path."}]},
        {"name": "game_scores.get", "description": "Retrieve scores."},
        {"name": "getPage", "description": "A duplicate: left out."}
    ]"#;
    let catalog = Catalog::from_json(json).expect("valid");
    assert_eq!(catalog.len(), 2);
    let page = catalog.get("getPage").expect("present");
    assert_eq!(page.summary, "Get pages.");
    assert_eq!(page.verb.as_deref(), Some("get"));
    assert_eq!(
        page.params[0],
        ParamEntry {
            name: "slug".into(),
            description: "The URL path.".into()
        }
    );
    assert_eq!(
        catalog
            .get("game_scores.get")
            .and_then(|e| e.verb.as_deref()),
        Some("get")
    );
    assert_eq!(
        catalog.to_lines(),
        "- `getPage` (pages): Get pages.\n- `game_scores.get`: Retrieve scores."
    );
    assert!(Catalog::from_json("{").is_err());
}

/// A scripted model: checks each prompt it is sent and answers in turn.
fn scripted(
    script: Vec<(&'static str, Result<&'static str, &'static str>)>,
) -> impl Fn(String) -> std::future::Ready<Result<String, String>> + Send + Sync {
    let script = std::sync::Mutex::new(script.into_iter());
    move |prompt: String| {
        let (expected, answer) = script
            .lock()
            .expect("not poisoned")
            .next()
            .expect("the script has a step for every prompt");
        assert_eq!(prompt, expected);
        std::future::ready(answer.map(str::to_owned).map_err(str::to_owned))
    }
}

const PROMPT: &str = "Pick the tools needed to act on the user's last message. Answer with only a JSON array of tool names from the list, most useful first, at most 5. Answer [] if no tool fits.

Tools:
- `get_tasks` (tasks): Get tasks: one by `id`, or the open tasks, newest first.
- `create_tasks` (tasks): Create tasks; returns them with their new ids.
- `update_tasks` (tasks): Update tasks: only the fields given change.
- `delete_tasks` (tasks): Delete tasks by id.
- `get_reminders` (reminders): Get reminders, soonest first.
- `create_reminders` (reminders): Create reminders.
- `search_memories` (memories): Search memories by words in their content.
- `getNavItem` (navigation): Get navigation items of the site menu.

Message:
> drop the milk task and remind me at 5
";

#[test]
fn the_model_router_sends_the_catalog_and_keeps_known_names() {
    let router = ModelRouter::new(
        catalog(),
        scripted(vec![(
            PROMPT,
            Ok(
                "Sure:\n```json\n[\"delete_tasks\", \"send_rocket\", \"create_reminders\", \"delete_tasks\"]\n```",
            ),
        )]),
    );
    let request = RouteRequest::new("drop the milk task\nand remind me at 5");
    let selection = block_on(select(&router, &request));
    assert_eq!(selection.names(), ["delete_tasks", "create_reminders"]);
    assert_eq!(selection.outcome, Outcome::Picked);
}

#[test]
fn the_model_router_prompt_shows_turns_and_only_allowed_tools() {
    let allowed = |name: &str| name.ends_with("reminders");
    let request = RouteRequest::new("and the other one")
        .turns(["one", "two", "show reminders", "delete the 5pm one"])
        .limit(2)
        .within(&allowed);
    let router = ModelRouter::new(catalog(), scripted(vec![]));
    assert_eq!(
        router.prompt(&request),
        "Pick the tools needed to act on the user's last message. Answer with only a JSON array of tool names from the list, most useful first, at most 2. Answer [] if no tool fits.

Tools:
- `get_reminders` (reminders): Get reminders, soonest first.
- `create_reminders` (reminders): Create reminders.

Earlier turns:
> two
> show reminders
> delete the 5pm one

Message:
> and the other one
"
    );
}

#[test]
fn an_empty_array_is_an_abstention() {
    let router = ModelRouter::new(catalog(), scripted(vec![(PROMPT, Ok("[]"))]));
    let request = RouteRequest::new("drop the milk task and remind me at 5");
    let selection = block_on(select(&router, &request));
    assert_eq!(selection.outcome, Outcome::Abstained);
    assert!(selection.tools.is_empty());
}

#[test]
fn model_failures_fall_back_to_every_allowed_tool_and_say_why() {
    let request = RouteRequest::new("drop the milk task and remind me at 5");
    let every: Vec<&str> = catalog()
        .iter()
        .map(|entry| entry.name.as_str())
        .map(|n| Box::leak(n.to_owned().into_boxed_str()) as &str)
        .collect();
    for (answer, error) in [
        (
            Ok("delete_tasks, create_reminders"),
            RouteError::Malformed {
                output: "delete_tasks, create_reminders".into(),
            },
        ),
        (
            Ok("[1, 2]"),
            RouteError::Malformed {
                output: "[1, 2]".into(),
            },
        ),
        (
            Ok(r#"["send_rocket"]"#),
            RouteError::UnknownTools {
                names: vec!["send_rocket".into()],
            },
        ),
        (
            Err("429 Too Many Requests"),
            RouteError::model("429 Too Many Requests"),
        ),
    ] {
        let router = ModelRouter::new(catalog(), scripted(vec![(PROMPT, answer)]));
        let selection = block_on(select(&router, &request));
        assert_eq!(selection.names(), every);
        assert_eq!(selection.error(), Some(&error));
        assert_eq!(selection.outcome, Outcome::FellBack(error));
    }
    assert_eq!(
        RouteError::Malformed {
            output: "no".into()
        }
        .to_string(),
        "the routing model did not answer with a JSON array of tool names: \"no\""
    );
    assert_eq!(
        RouteError::UnknownTools {
            names: vec!["a".into(), "b".into()]
        }
        .to_string(),
        "the routing model named only tools that are not in the catalog: a, b"
    );
    assert_eq!(
        RouteError::model("timeout").to_string(),
        "the routing model failed: timeout"
    );
}

/// The model client's own error is the fallback's cause, to downcast; its words
/// are the message, as before.
#[test]
fn a_failed_model_call_keeps_the_clients_error() {
    #[derive(Debug)]
    struct RateLimited {
        retry_after: u32,
    }
    impl std::fmt::Display for RateLimited {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(
                f,
                "429 Too Many Requests (retry after {}s)",
                self.retry_after
            )
        }
    }
    impl std::error::Error for RateLimited {}

    let router = ModelRouter::new(catalog(), |_prompt: String| {
        std::future::ready(Err::<String, _>(RateLimited { retry_after: 7 }))
    });
    let request = RouteRequest::new("anything");
    let selection = block_on(select(&router, &request));
    let error = selection.error().expect("fell back");
    assert_eq!(
        error.to_string(),
        "the routing model failed: 429 Too Many Requests (retry after 7s)"
    );
    let cause = std::error::Error::source(error)
        .and_then(|cause| cause.downcast_ref::<RateLimited>())
        .expect("the client's error as the cause");
    assert_eq!(cause.retry_after, 7);
    // Errors that are not the model's have no cause.
    let malformed = RouteError::Malformed {
        output: "no".into(),
    };
    assert!(std::error::Error::source(&malformed).is_none());
}

#[test]
fn a_fallback_respects_the_allowance() {
    let allowed = |name: &str| name.starts_with("get");
    let request = RouteRequest::new("anything").within(&allowed);
    let router = ModelRouter::new(catalog(), |_prompt: String| {
        std::future::ready(Err::<String, _>("down"))
    });
    let selection = block_on(select(&router, &request));
    assert_eq!(
        selection.names(),
        ["get_tasks", "get_reminders", "getNavItem"]
    );
}

/// A `confirm` tool as `#[tool]` writes it: toolkit's `confirmed` argument last.
fn confirm_tool(name: &'static str, description: &'static str) -> crate::tool::Tool {
    crate::tool::Tool {
        name,
        description,
        tier: crate::declaration::Tier::Confirm,
        task: crate::declaration::TaskSupport::Forbidden,
        always: false,
        asks_first: false,
        group: None,
        tags: &[],
        examples: &[],
        asked_as: &[],
        params: &[
            crate::declaration::Param {
                name: "ids",
                description: "The ids to delete.",
                required: true,
            },
            crate::declaration::Param {
                name: "confirmed",
                description: "Set to true only after the user has seen this tool's preview and agreed to it. Without it (or with false) the tool does not act: it returns that preview.",
                required: false,
            },
        ],
        ..search_tool("unused")
    }
}

#[test]
fn toolkit_s_confirmed_argument_is_not_a_word_of_the_tool() {
    let tool = confirm_tool("delete_tasks", "Delete tasks by id.");
    let entry = CatalogEntry::from_tool(&tool);
    let params: Vec<&str> = entry.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["ids"]);
    // An `auto` tool's own parameter called `confirmed` is its author's word.
    let auto = crate::tool::Tool {
        tier: crate::declaration::Tier::Auto,
        ..tool
    };
    let params: Vec<String> = CatalogEntry::from_tool(&auto)
        .params
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(params, ["ids", "confirmed"]);
    // "set", "user", "seen" no longer reach the confirm tool.
    let catalog = Catalog::new([
        CatalogEntry::from_tool(&tool),
        CatalogEntry::new("set_project", "Set the active project."),
        CatalogEntry::new("get_users", "Get the users of the workspace."),
    ]);
    let router = LexicalRouter::new(catalog);
    assert_eq!(
        names(&router, "which user has seen the preview?"),
        ["get_users"]
    );
    assert_eq!(names(&router, "set the project to Garden"), ["set_project"]);
}

/// One entity's four tools, with descriptions that use one another's verbs, as
/// real descriptions do ("returns it", "all of them").
fn pages() -> Catalog {
    Catalog::new([
        entry(
            "getPage",
            "Get pages: one by `id` or `slug`, or all of them with `all: true`.",
            "pages",
        ),
        entry(
            "createPage",
            "Create a page of the site; returns it with its id. Show it in the menu with a nav item.",
            "pages",
        ),
        entry(
            "updatePage",
            "Update a page: only the fields given change.",
            "pages",
        ),
        entry("deletePage", "Delete pages by id.", "pages"),
        entry(
            "getNavItem",
            "Get navigation items: links in the site menu.",
            "navigation",
        ),
        entry(
            "createNavItem",
            "Create a navigation item in the site menu.",
            "navigation",
        ),
        entry(
            "deleteNavItem",
            "Delete navigation items by id.",
            "navigation",
        ),
    ])
}

#[test]
fn the_message_s_verb_chooses_among_one_entity_s_tools() {
    let router = LexicalRouter::new(pages());
    let ranked = |message: &str| names(&router, message);
    // `createPage`'s description says "show"; the message's verb still wins.
    assert_eq!(
        ranked("show me all the pages"),
        ["getPage", "createPage", "deletePage"]
    );
    assert_eq!(ranked("remove the careers page")[0], "deletePage");
    assert_eq!(ranked("please change the pricing page")[0], "updatePage");
    // A verb split from its particle is one verb.
    assert_eq!(
        ranked("take the Shop item out of the menu")[0],
        "deleteNavItem"
    );
}

#[test]
fn a_noun_spelled_like_a_verb_does_not_override_the_imperative() {
    let router = LexicalRouter::new(catalog());
    let ranked = |message: &str| names(&router, message);
    // `list` is where the chore goes, not a second verb.
    assert_eq!(
        ranked("add a chore to my list"),
        ["create_tasks", "get_tasks", "delete_tasks"]
    );
    assert_eq!(
        ranked("rename the dentist task to Dentist at 3")[0],
        "update_tasks"
    );
    // In a question, a verb-like word not after a determiner is still a verb.
    assert_eq!(ranked("which reminders can you list")[0], "get_reminders");
}

#[test]
fn the_verb_s_object_outweighs_an_entity_in_a_prepositional_phrase() {
    // Two entities described alike: without the phrase rule they tie, and the
    // catalog order would put pages first.
    let router = LexicalRouter::new(Catalog::new([
        CatalogEntry::new("delete_pages", "Delete pages by id."),
        CatalogEntry::new("get_pages", "Get pages by id."),
        CatalogEntry::new("delete_sections", "Delete sections by id."),
        CatalogEntry::new("get_sections", "Get sections by id."),
    ]));
    let ranked = |message: &str| names(&router, message);
    assert_eq!(
        ranked("delete the section on the page")[..2],
        ["delete_sections", "delete_pages"]
    );
    assert_eq!(
        ranked("delete the page with the section")[..2],
        ["delete_pages", "delete_sections"]
    );
}

#[test]
fn a_tool_the_verb_picks_stays_a_candidate_when_only_verbs_matched_it() {
    // "fields" is a word of `update_tasks` only; `delete_tasks` matches the message
    // through its verb alone, and the verb is what chooses among the tasks tools.
    let router = LexicalRouter::new(catalog());
    let ranked = names(&router, "the fields are wrong, remove them");
    assert_eq!(ranked, ["delete_tasks", "update_tasks"]);
}

#[test]
fn every_with_a_time_unit_is_a_recurrence() {
    let router = LexicalRouter::new(Catalog::new([
        entry(
            "get_schedules",
            "Get schedules: recurring prompts the assistant runs.",
            "schedules",
        ),
        entry(
            "create_schedules",
            "Create schedules: prompts the assistant runs by itself at set times.",
            "schedules",
        ),
        entry(
            "get_reminders",
            "Get reminders, soonest first.",
            "reminders",
        ),
    ]));
    let ranked = |message: &str| names(&router, message);
    // "every Monday" names a recurrence, which only the schedules describe.
    assert_eq!(ranked("every Monday send me my week")[0], "get_schedules");
    assert_eq!(ranked("set up a schedule")[0], "create_schedules");
}

/// A site's tools as a CMS names them: each entity's get/create/update/delete,
/// a narrower entity's tool (`getSectionTemplate`), tools whose verb is not one
/// of the vocabulary's (`importImage`), and a fetcher of web pages.
fn site() -> Catalog {
    Catalog::new([
        CatalogEntry::new(
            "getNavItem",
            "Get navigation items: links in the site menu.",
        ),
        CatalogEntry::new(
            "createNavItem",
            "Create a navigation item in the site menu.",
        ),
        CatalogEntry::new("deleteNavItem", "Delete navigation items by id."),
        CatalogEntry::new("createPost", "Create a blog post as a draft."),
        CatalogEntry::new("getPost", "Get blog posts."),
        CatalogEntry::new("deletePost", "Delete posts by id."),
        CatalogEntry::new("getSection", "Get sections: blocks on a page."),
        CatalogEntry::new("deleteSection", "Delete sections by id."),
        CatalogEntry::new(
            "getSectionTemplate",
            "Get section templates: the layouts a section can be built from (hero, gallery, text, pricing table).",
        ),
        CatalogEntry::new("getImage", "Get images in the media library."),
        CatalogEntry::new("deleteImage", "Delete images by id."),
        CatalogEntry::new(
            "importImage",
            "Import an image from a URL into the media library.",
        ),
        CatalogEntry::new(
            "fetchContent",
            "Fetch a web page by its url and return its readable text.",
        ),
    ])
}

#[test]
fn a_question_no_verb_opens_asks_to_see() {
    let router = LexicalRouter::new(site());
    let ranked = |message: &str| names(&router, message);
    // `createNavItem` says "in the site menu" as the message does; the question
    // asks to see.
    assert_eq!(
        ranked("what's in the site menu right now?")[0],
        "getNavItem"
    );
    assert_eq!(ranked("which links does the menu have")[0], "getNavItem");
    // One thing asked about is searched for; all of them are got.
    let people = LexicalRouter::new(Catalog::new([
        CatalogEntry::new(
            "get_entities",
            "Get entities: people and companies, all of them.",
        ),
        CatalogEntry::new(
            "search_entities",
            "Search entities: people and companies, by name.",
        ),
    ]));
    let ranked = |message: &str| names(&people, message);
    assert_eq!(ranked("who is Marta?")[0], "search_entities");
    assert_eq!(
        ranked("do you know a company called Create Labs?")[0],
        "search_entities"
    );
    assert_eq!(
        ranked("who are all the people you know?")[0],
        "get_entities"
    );
    // "Can you ..." is a request whose verb decides, not a question.
    assert_eq!(ranked("can you search for people")[0], "search_entities");
}

#[test]
fn a_quotation_a_name_and_a_web_address_are_data() {
    let router = LexicalRouter::new(site());
    let ranked = |message: &str| names(&router, message);
    // "Blog" names the link; read as words about the task, it ranks the blog
    // post tools first.
    assert_eq!(ranked("delete the 'Blog' link")[0], "deleteNavItem");
    assert_eq!(
        ranked("delete the \u{201c}Blog\u{201d} link")[0],
        "deleteNavItem"
    );
    // A verb in a name does not pick the tools named for it, nor its noun.
    assert_eq!(ranked("delete the link called Post")[0], "deleteNavItem");
    // A web address is a url, and its words are where to go.
    assert_eq!(
        ranked("read me blog.example.net/why-butter-matters")[0],
        "fetchContent"
    );
    // An apostrophe is not a quotation, and one never closed is prose.
    assert_eq!(ranked("what's in the blog's latest posts")[0], "getPost");
}

#[test]
fn a_narrower_entity_s_tool_and_an_unknown_verb_s_tool_are_of_the_family() {
    let router = LexicalRouter::new(site());
    let ranked = |message: &str| names(&router, message);
    // `getSectionTemplate` lists "pricing table"; the verb chooses `deleteSection`.
    assert_eq!(
        ranked("drop the pricing table block section")[0],
        "deleteSection"
    );
    // `importImage` says "media library"; the verb chooses `deleteImage`.
    assert_eq!(
        ranked("nuke the blurry image from the media library")[0],
        "deleteImage"
    );
    assert_eq!(
        ranked("delete the image we imported into the media library")[0],
        "deleteImage"
    );
}

#[test]
fn a_statement_is_told_by_its_first_verb_and_a_spared_clause_is_not_acted_on() {
    let router = LexicalRouter::new(site());
    let ranked = |message: &str| names(&router, message);
    assert_eq!(
        ranked("the Press link in the menu can go")[0],
        "deleteNavItem"
    );
    let router = LexicalRouter::new(Catalog::new([
        CatalogEntry::new("delete_tasks", "Delete tasks by id."),
        CatalogEntry::new("delete_reminders", "Delete reminders by id."),
        CatalogEntry::new("get_tasks", "Get tasks."),
        CatalogEntry::new("get_reminders", "Get reminders."),
    ]));
    let ranked = |message: &str| names(&router, message);
    assert_eq!(
        ranked("delete the piano lesson reminder but keep the piano lesson task")[0],
        "delete_reminders"
    );
    assert_eq!(
        ranked("delete the piano lesson reminder; don't touch my tasks")[0],
        "delete_reminders"
    );
}

#[test]
fn a_hostile_message_is_read_in_time_proportional_to_its_length() {
    // Each pattern once took time in the square of its length: phrases spliced
    // out of the middle of the word list, joiners rescanned at every clause, a
    // web address's word searched for at every dot, particles looked up in a
    // growing list. A quarter of a MiB of each would take minutes that way.
    let router = LexicalRouter::new(site());
    for pattern in [
        "to do ",
        "and ",
        "take it out and ",
        "a.b",
        "x.com/",
        "'quoted' ",
        "but keep ",
        "what ",
    ] {
        let message = pattern.repeat((256 * 1024) / pattern.len());
        let ranked = router.rank(&RouteRequest::new(&message).limit(3));
        assert!(ranked.len() <= 3, "{pattern:?}");
    }
    // And it still reads: a long paste before the request does not hide it.
    let message = format!(
        "{} remove the Press link from the menu",
        "lorem ipsum ".repeat(20_000)
    );
    assert_eq!(names(&router, &message)[0], "deleteNavItem");
}

/// Tools of three servers joined under labels, as `ExternalServer` offers them
/// (`{label}_{escaped remote name}`), with a spreadsheet server and a file
/// system beside a search engine.
fn servers() -> Catalog {
    let external = |label: &str, remote: &str, description: &str| {
        entry(
            &format!("{label}_{}", crate::runtime::escape_name(remote)),
            description,
            label,
        )
    };
    Catalog::new([
        external("bilibili", "get-bilibili-rank", "排行榜"),
        external("bilibili", "search-video", "搜索视频"),
        external(
            "excel",
            "write_data_to_excel",
            "Write data to an Excel worksheet.",
        ),
        external(
            "excel",
            "read_data_from_excel",
            "Read data from a worksheet.",
        ),
        external("fs", "write_file", "Write text to a file at a path."),
        external("fs", "list_directory", "List the entries of a directory."),
        external(
            "web",
            "search_products",
            "Search products in an online shop by keyword, with prices.",
        ),
        external(
            "music",
            "recommend_songs",
            "Recommend the latest popular songs.",
        ),
        external("hotels", "search_hotels", "Search hotels in a city."),
    ])
}

#[test]
fn an_external_tool_is_read_by_its_original_name() {
    let router = LexicalRouter::new(servers());
    // Every word of the remote name, none of the escape's (`2`, `dbilibili`).
    assert_eq!(
        names(&router, "show the bilibili rank"),
        ["bilibili_get-2dbilibili-2drank", "bilibili_search-2dvideo"]
    );
    assert_eq!(names(&router, "drank"), Vec::<String>::new());
    let entry = router.catalog().get("bilibili_get-2dbilibili-2drank");
    assert_eq!(
        entry.map(|entry| entry.readable_name().into_owned()),
        Some("bilibili_get-bilibili-rank".to_owned())
    );
    // A name the escape never wrote is read as it is.
    assert_eq!(
        CatalogEntry::new("get-weather", "").readable_name(),
        "get-weather"
    );
}

#[test]
fn a_runtime_tool_s_verb_is_its_own_name_s_not_its_label_s() {
    let tool = crate::runtime::RuntimeTool::builder(
        format!(
            "bilibili_{}",
            crate::runtime::escape_name("get-bilibili-rank")
        ),
        "排行榜",
        serde_json::json!({"type": "object"}),
    )
    .group("bilibili")
    .build(
        |_: serde_json::Map<String, serde_json::Value>, _: &crate::Context| async {
            crate::Response::Result(serde_json::Value::Null)
        },
    )
    .expect("a runtime tool");
    // What `Tool::verb` reads is the label; the catalog reads the tool's own.
    assert_eq!(tool.tool().verb(), "bilibili");
    assert_eq!(
        CatalogEntry::from_tool(tool.tool()).verb.as_deref(),
        Some("get")
    );
}

#[test]
fn a_file_name_or_path_brings_in_the_tools_that_act_on_it() {
    let router = LexicalRouter::new(servers());
    // Nothing but the path says "spreadsheet".
    let picked = names(&router, "put the numbers into /root/excel/goods.xlsx");
    assert_eq!(picked[0], "excel_write_data_to_excel");
    assert_eq!(
        lexicon::file_words("read report.PDF, then /tmp/out/"),
        ["pdf", "document", "file", "directory", "folder"]
    );
    assert_eq!(
        lexicon::file_words("e.g. version 1.2 at example.com, no files"),
        Vec::<&str>::new()
    );
}

#[test]
fn every_step_of_a_multi_step_message_keeps_its_tools() {
    let router = LexicalRouter::new(servers());
    let message = "search iphone prices in the online shop products and save them to goods.xlsx";
    let picked = names(&router, message);
    assert!(
        picked.contains(&"web_search_products".to_owned())
            && picked.contains(&"excel_write_data_to_excel".to_owned()),
        "{picked:?}"
    );
}

/// Five servers, four of which say "latest" in a tool's name.
fn latest_servers() -> Catalog {
    Catalog::new([
        entry("get_latest_releases", "New albums and singles.", "music"),
        entry("search_artists", "Search artists by name.", "music"),
        entry("get_latest_headlines", "Headlines of the day.", "news"),
        entry("search_articles", "Search articles by words.", "news"),
        entry("get_latest_scores", "Scores of today's matches.", "sports"),
        entry("get_standings", "The league table.", "sports"),
        entry(
            "get_latest_quotes",
            "Share prices, delayed 15 minutes.",
            "stocks",
        ),
        entry("get_portfolio", "The user's holdings.", "stocks"),
        {
            // "rain" only in a parameter's description, which counts least.
            let mut forecast = entry("get_forecast", "The coming days for a city.", "weather");
            forecast.params = vec![ParamEntry {
                name: "kind".to_owned(),
                description: "rain, wind or temperature".to_owned(),
            }];
            forecast
        },
        entry("get_alerts", "Storm and flood warnings.", "weather"),
    ])
}

#[test]
fn a_word_many_servers_use_pulls_in_none_of_them() {
    let message = "will the latest rain stop soon";
    let undamped = LexicalRouter::with_weights(
        latest_servers(),
        FieldWeights {
            servers: 0.0,
            ..FieldWeights::default()
        },
    );
    // Without the damping, "latest" in four servers' names outweighs "rain".
    assert_eq!(
        names(&undamped, message),
        [
            "get_latest_releases",
            "get_latest_headlines",
            "get_latest_scores"
        ]
    );
    let router = LexicalRouter::with_weights(
        latest_servers(),
        FieldWeights {
            servers: 0.5,
            ..FieldWeights::default()
        },
    );
    assert_eq!(
        names(&router, message),
        ["get_forecast", "get_alerts", "get_latest_releases"]
    );
    // The default is off; a catalog of fewer than MIN_SERVERS groups (here
    // none) is not damped at any strength.
    assert_eq!(
        names(&LexicalRouter::new(latest_servers()), message),
        names(&undamped, message)
    );
    // Three servers (music, news, sports) are fewer than MIN_SERVERS: the
    // scores are the same at any strength.
    let three = Catalog::new(latest_servers().iter().take(6).cloned());
    let scores = |servers: f32| {
        let weights = FieldWeights {
            servers,
            ..FieldWeights::default()
        };
        LexicalRouter::with_weights(three.clone(), weights)
            .rank(&RouteRequest::new(message).limit(3))
            .iter()
            .map(|scored| (scored.entry.name.clone(), scored.score))
            .collect::<Vec<_>>()
    };
    assert_eq!(scores(1.0), scores(0.0));
    assert_eq!(scores(0.0).len(), 3);
}
