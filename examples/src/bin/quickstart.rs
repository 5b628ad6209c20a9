//! Quickstart: three note-taking tools, the JSON a model receives for them, and
//! what comes back when the model calls them, right or wrong.
//!
//! Run it with `cargo run -p examples --bin quickstart`.

use std::sync::{Arc, Mutex, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{Context, Dialect, State, ToolError, render::RenderError, tool};

// Parameter types derive `Deserialize` and `JsonSchema`; doc comments, the variants'
// included, become descriptions in the schema the model reads.

/// How urgent a note is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Priority {
    /// Whenever there is time.
    Low,
    /// Today.
    Normal,
    /// Before anything else.
    Urgent,
}

/// One note, as the tools return it.
#[derive(Clone, Debug, Serialize)]
struct Note {
    id: u32,
    text: String,
    priority: Priority,
}

/// The application's state: the tools take it from the call's `Context`, the model
/// never sees it. Cheap to clone, because each call gets its own handle.
#[derive(Clone, Default)]
struct Notes(Arc<Mutex<Vec<Note>>>);

impl Notes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Note>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

// Each tool is a plain function. Its doc comment is the description the model
// reads, each parameter's doc comment describes that parameter, and the attribute
// says who may use it (`scope`) and whether a human must approve it (`tier`).

/// Create a note, to be read back later with `get_notes`.
#[tool(scope = shared, tier = auto, always, group = "notes")]
fn create_note(
    #[ctx] notes: State<Notes>,
    /// What to remember, in one sentence.
    text: String,
    /// How urgent it is.
    #[tool(default = Priority::Normal)] // a default makes the parameter optional
    priority: Priority,
) -> Note {
    let mut notes = notes.lock();
    let id = notes.last().map_or(1, |note| note.id + 1);
    let note = Note { id, text, priority };
    notes.push(note.clone());
    note
}

/// Get notes, oldest first.
#[tool(scope = shared, tier = auto, always, group = "notes")]
fn get_notes(
    #[ctx] notes: State<Notes>,
    /// Only notes of this priority.
    priority: Option<Priority>, // `Option` makes it optional too
    /// At most this many notes.
    #[tool(default = 10)]
    limit: u32,
) -> Vec<Note> {
    let notes = notes.lock();
    let matching = notes
        .iter()
        .filter(|note| priority.is_none_or(|p| note.priority == p));
    matching.take(limit as usize).cloned().collect()
}

/// Delete one note by its id.
#[tool(scope = shared, tier = confirm, group = "notes")]
fn delete_note(
    #[ctx] notes: State<Notes>,
    /// The note's id, from `get_notes`.
    id: u32,
) -> Result<String, ToolError> {
    let mut notes = notes.lock();
    let position = notes.iter().position(|note| note.id == id);
    let position = position.ok_or_else(|| ToolError::failed(format!("no note with id {id}")))?;
    notes.remove(position);
    Ok(format!("deleted note {id}"))
}

fn main() -> Result<(), RenderError> {
    // Every `#[tool]` in the binary is in the registry, sorted by name.
    let registry = toolkit::registry();

    println!("# The tools, as an OpenAI chat request carries them\n");
    // `render` gives the tools that render and an error per tool that doesn't;
    // `all_or_error` insists on every tool.
    let tools = registry.render(Dialect::OpenAiChat);
    let pretty = tools.to_value();
    tools.all_or_error()?;
    println!("{pretty:#}");

    // What the caller provides for `#[ctx]` parameters.
    let ctx = Context::new().with(Notes::default());

    // Calls as a model makes them: a tool name and JSON text. Whatever the model
    // sends, the answer is JSON it can read and act on; nothing panics.
    let call = |name: &str, arguments: &str| {
        println!("\n# {name} {arguments}\n");
        let response = futures_executor::block_on(registry.call(name, arguments, &ctx));
        println!("{:#}", response.to_json());
    };
    call("create_note", r#"{"text": "Buy tea"}"#); // priority: its default
    call("get_notes", r#"{"priority": "normal"}"#);
    call("get_notes", r#"{"limit": "ten"}"#); // wrong type: the error names the field
    call("get_note", "{}"); // no such tool: the error suggests the closest name
    call("delete_note", r#"{"id": 1}"#); // a `confirm` tool: first a preview, nothing deleted
    call("delete_note", r#"{"id": 1, "confirmed": true}"#); // the user agreed: it runs
    Ok(())
}
