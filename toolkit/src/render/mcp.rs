//! MCP `tools/list` entries.

use serde_json::{Map, Value, json};

use crate::tool::Tool;

/// MCP `tools/list` entry; behaviour hints follow from the verb.
pub(super) fn tool(tool: &Tool, input_schema: Value) -> Value {
    let mut entry = Map::new();
    entry.insert("name".to_owned(), json!(tool.name));
    if let Some(title) = tool.title {
        entry.insert("title".to_owned(), json!(title));
    }
    entry.insert("description".to_owned(), json!(tool.description));
    entry.insert("inputSchema".to_owned(), input_schema);
    if let Some(output) = (tool.output_schema)() {
        let mut output = crate::schema::clean_output(output);
        if let Value::Object(root) = &mut output {
            // Arrays say their `items`, as in the arguments (clients validate
            // results against this schema).
            let _ = super::canonical::walk_all(root, &mut |node, _| {
                super::canonical::give_arrays_items(node);
                Ok(())
            });
        }
        if output.get("type") == Some(&json!("object")) {
            entry.insert("outputSchema".to_owned(), output);
        }
    }
    entry.insert("annotations".to_owned(), mcp_annotations(tool));
    let mut meta = json!({ "toolkit/tier": tool.tier, "toolkit/scope": tool.scope });
    // Whether a call may come back as a task. The Tasks extension
    // (`io.modelcontextprotocol/tasks`, 2026-07-28) has no per-tool field: the
    // server decides per request, and a `required` tool refuses a client without
    // the extension (`-32021`); 2025-11-25's `execution.taskSupport` belongs to
    // that revision's experimental tasks, which this server does not serve. So
    // the hint is toolkit's own, in `_meta`, in the 2025-11-25 words.
    if tool.task.allows_task() {
        meta["toolkit/task"] = json!(tool.task);
    }
    entry.insert("_meta".to_owned(), meta);
    Value::Object(entry)
}

/// MCP behaviour hints from the verb: `get`/`search` read only; `delete` and
/// `update` change what exists; `create`/`link` only add. Other verbs (a crate's
/// own vocabulary) claim nothing beyond "not read-only".
fn mcp_annotations(tool: &Tool) -> Value {
    let (read_only, destructive, idempotent) = match tool.verb() {
        "get" | "search" => (true, false, true),
        "delete" | "update" => (false, true, true),
        // Setting a configuration value replaces it, but nothing is lost that the
        // same call can't put back.
        "set" => (false, false, true),
        "create" | "link" => (false, false, false),
        _ => return json!({ "readOnlyHint": false }),
    };
    if read_only {
        json!({ "readOnlyHint": true, "idempotentHint": idempotent })
    } else {
        json!({ "readOnlyHint": false, "destructiveHint": destructive, "idempotentHint": idempotent })
    }
}
