//! Sixty generated tools for the view benchmarks: ten resources, six verbs each
//! (one of them is `create_notes`, written by hand in the benchmark so the direct
//! call can be compared), in ten groups; the `link_` tools are gated by the flag `linking`.

// The tools are `async` like real I/O-bound tools, though these never await.
#![allow(clippy::unused_async)]
// Only the registry calls these; their handles go unused.
#![allow(dead_code)]

use toolkit::tool;

macro_rules! tools {
    ($($name:ident: $group:tt $(, gate = $gate:tt)?;)*) => {$(
        /// Work with one kind of record of the catalog: filter by `id` for one,
        /// otherwise the newest records that match `query`, at most `limit`.
        #[tool(scope = shared, tier = auto, group = $group $(, gate = $gate)?)]
        pub(crate) async fn $name(
            /// Only this record.
            id: Option<u32>,
            /// Words the records must contain.
            query: Option<String>,
            /// At most this many records.
            #[tool(default = 20)]
            limit: u32,
        ) -> Vec<u32> {
            let _ = query;
            id.map_or_else(|| (0..limit.min(3)).collect(), |id| vec![id])
        }
    )*};
}

tools! {
    get_accounts: "accounts"; create_accounts: "accounts"; update_accounts: "accounts";
    delete_accounts: "accounts"; search_accounts: "accounts"; link_accounts: "accounts", gate = "linking";
    get_contacts: "contacts"; create_contacts: "contacts"; update_contacts: "contacts";
    delete_contacts: "contacts"; search_contacts: "contacts"; link_contacts: "contacts", gate = "linking";
    get_deals: "deals"; create_deals: "deals"; update_deals: "deals";
    delete_deals: "deals"; search_deals: "deals"; link_deals: "deals", gate = "linking";
    get_events: "events"; create_events: "events"; update_events: "events";
    delete_events: "events"; search_events: "events"; link_events: "events", gate = "linking";
    get_files: "files"; create_files: "files"; update_files: "files";
    delete_files: "files"; search_files: "files"; link_files: "files", gate = "linking";
    get_messages: "messages"; create_messages: "messages"; update_messages: "messages";
    delete_messages: "messages"; search_messages: "messages"; link_messages: "messages", gate = "linking";
    get_notes: "notes"; update_notes: "notes";
    delete_notes: "notes"; search_notes: "notes"; link_notes: "notes", gate = "linking";
    get_projects: "projects"; create_projects: "projects"; update_projects: "projects";
    delete_projects: "projects"; search_projects: "projects"; link_projects: "projects", gate = "linking";
    get_tasks: "tasks"; create_tasks: "tasks"; update_tasks: "tasks";
    delete_tasks: "tasks"; search_tasks: "tasks"; link_tasks: "tasks", gate = "linking";
    get_users: "users"; create_users: "users"; update_users: "users";
    delete_users: "users"; search_users: "users"; link_users: "users", gate = "linking";
}

/// A stored allowlist of 20 entries: 18 tool names and two groups.
pub(crate) const ALLOWLIST_20: [&str; 20] = [
    "@contacts",
    "@messages",
    "get_accounts",
    "search_accounts",
    "get_deals",
    "create_deals",
    "update_deals",
    "search_deals",
    "get_events",
    "create_events",
    "get_files",
    "search_files",
    "create_notes",
    "get_notes",
    "search_notes",
    "get_projects",
    "get_tasks",
    "create_tasks",
    "search_tasks",
    "get_users",
];

/// 23 tools, the size of the assistant's catalog.
pub(crate) const ALLOWLIST_23: [&str; 23] = [
    "get_accounts",
    "search_accounts",
    "get_contacts",
    "create_contacts",
    "update_contacts",
    "search_contacts",
    "get_deals",
    "create_deals",
    "get_events",
    "create_events",
    "update_events",
    "get_files",
    "search_files",
    "get_messages",
    "create_messages",
    "create_notes",
    "get_notes",
    "search_notes",
    "get_projects",
    "get_tasks",
    "create_tasks",
    "update_tasks",
    "get_users",
];
