//! `#[ctx]` parameters: a custom `FromContext` extractor (`CurrentUser`, taken from
//! the caller's `Session`), `Option<..>` of an extractor giving `None` when the value
//! is absent, and the `Context` map itself.

use futures_executor::block_on;
use serde::Serialize;
use serde_json::json;
use toolkit::{Context, Response, State, ToolError, definition::FromContext, registry, tool};
use toolkit_derive_tests::TaskStore;

/// The caller's session, put in the context by the host application.
struct Session {
    user: Option<String>,
}

/// The signed-in user: needs a session, and a session with a user in it.
struct CurrentUser(String);

impl FromContext for CurrentUser {
    type Binding = toolkit::binding::BoundToHumanSession;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        let session = ctx.require::<Session>()?;
        match &session.user {
            Some(user) => Ok(CurrentUser(user.clone())),
            None => Err(ToolError::failed("sign in first")),
        }
    }
}

/// What `get_profile` returns.
#[derive(Serialize)]
struct Profile {
    user: String,
    tasks: Option<usize>,
}

/// Get the signed-in user's profile, with their task count when a store is there.
#[tool(scope = assistant, tier = auto)]
fn get_profile(#[ctx] user: CurrentUser, #[ctx] store: Option<State<TaskStore>>) -> Profile {
    Profile {
        user: user.0,
        tasks: store.map(|store| store.all().len()),
    }
}

/// Get a greeting for whoever is calling, signed in or not.
#[tool(scope = assistant, tier = auto)]
fn get_greeting(
    #[ctx] user: Option<CurrentUser>,
    /// Say it loudly.
    #[tool(default = false)]
    loud: bool,
) -> String {
    let name = user.map_or_else(|| "guest".to_owned(), |user| user.0);
    let greeting = format!("Hello, {name}");
    if loud {
        greeting.to_uppercase()
    } else {
        greeting
    }
}

fn call(name: &str, arguments: &str, ctx: &Context) -> Response {
    block_on(registry().call(name, arguments, ctx))
}

fn signed_in(user: &str) -> Session {
    Session {
        user: Some(user.to_owned()),
    }
}

#[test]
fn a_custom_extractor_reads_the_session() {
    let ctx = Context::new()
        .with(signed_in("ada"))
        .with(TaskStore::default());
    assert_eq!(
        call("get_profile", "", &ctx),
        Response::Result(json!({"user": "ada", "tasks": 0}))
    );
    // Context parameters are not in the schema.
    assert_eq!(
        *registry().get("get_profile").expect("registered").schema(),
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    assert_eq!(
        *registry().get("get_greeting").expect("registered").schema(),
        json!({
            "type": "object",
            "properties": {
                "loud": {"type": "boolean", "description": "Say it loudly.", "default": false}
            },
            "additionalProperties": false
        })
    );
    assert!(
        registry()
            .get("get_profile")
            .expect("registered")
            .params
            .is_empty()
    );
}

#[test]
fn the_extractors_errors_come_back_as_they_are() {
    // No session at all: the `require` inside the extractor names the type.
    assert_eq!(
        call("get_profile", "", &Context::new()),
        Response::Error(ToolError::MissingContext {
            type_name: "context::Session".to_owned(),
        })
    );
    // A session without a user: the extractor's own error.
    let signed_out = Context::new().with(Session { user: None });
    assert_eq!(
        call("get_profile", "", &signed_out),
        Response::Error(ToolError::Failed {
            message: "sign in first".to_owned(),
        })
    );
}

#[test]
fn an_optional_state_is_none_when_absent() {
    let ctx = Context::new().with(signed_in("grace"));
    assert_eq!(
        call("get_profile", "", &ctx),
        Response::Result(json!({"user": "grace", "tasks": null}))
    );
}

#[test]
fn an_optional_custom_extractor_is_none_only_when_something_is_missing() {
    assert_eq!(
        call("get_greeting", "", &Context::new()),
        Response::Result(json!("Hello, guest"))
    );
    assert_eq!(
        call(
            "get_greeting",
            r#"{"loud": true}"#,
            &Context::new().with(signed_in("ada"))
        ),
        Response::Result(json!("HELLO, ADA"))
    );
    // Any error other than a missing value still stops the call.
    assert_eq!(
        call(
            "get_greeting",
            "",
            &Context::new().with(Session { user: None })
        ),
        Response::Error(ToolError::Failed {
            message: "sign in first".to_owned(),
        })
    );
}

#[test]
fn extractors_work_outside_the_registry() {
    let ctx = Context::new().with(signed_in("ada"));
    assert_eq!(
        CurrentUser::from_context(&ctx).map(|user| user.0),
        Ok("ada".to_owned())
    );
    assert!(matches!(
        Option::<State<TaskStore>>::from_context(&ctx),
        Ok(None)
    ));
    assert!(matches!(
        State::<TaskStore>::from_context(&ctx),
        Err(ToolError::MissingContext { ref type_name }) if type_name == "toolkit_derive_tests::TaskStore"
    ));
}

#[test]
fn the_context_holds_one_value_per_type() {
    let mut ctx = Context::new().with(7_u32).with(String::from("first"));
    assert_eq!(ctx.get::<u32>(), Some(&7));
    assert!(ctx.contains::<String>());
    assert_eq!(
        ctx.insert(String::from("second")),
        Some(String::from("first"))
    );
    assert_eq!(ctx.get::<String>().map(String::as_str), Some("second"));
    assert_eq!(
        format!("{ctx:?}"),
        r#"Context { types: ["alloc::string::String", "u32"] }"#
    );
    assert_eq!(ctx.remove::<u32>(), Some(7));
    assert_eq!(ctx.get::<u32>(), None);
    assert_eq!(
        ctx.require::<u32>().copied(),
        Err(ToolError::MissingContext {
            type_name: "u32".to_owned(),
        })
    );
    // `with` replaces too.
    let replaced = Context::new().with(1_u8).with(2_u8);
    assert_eq!(replaced.get::<u8>(), Some(&2));
}
