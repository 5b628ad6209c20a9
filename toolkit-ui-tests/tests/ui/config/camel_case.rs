//! A crate with `naming = "camelCase"`, its own verbs and one extra verb (see
//! camel_case.toml): names follow the crate's rules, not the defaults.

use toolkit::tool;

/// Accepted: a verb from `verbs`, in camelCase.
#[tool(scope = shared, tier = auto, name = "getPage")]
pub fn get_page() {}

/// Accepted: a verb from `extra-verbs`.
#[tool(scope = shared, tier = auto, name = "browseImages")]
pub fn browse_images() {}

/// Rejected: snake_case in a camelCase crate.
#[tool(scope = shared, tier = auto)]
pub fn update_page() {}

/// Rejected: a stray verb, with the vocabulary's closest.
#[tool(scope = shared, tier = auto, name = "fetchContent")]
pub fn fetch_content() {}

/// Rejected: `search` is a default verb, but `verbs` replaced the defaults.
#[tool(scope = shared, tier = auto, name = "searchWeb")]
pub fn search_web() {}

/// Rejected: a capital first letter.
#[tool(scope = shared, tier = auto, name = "DeletePage")]
pub fn delete_page() {}

/// Rejected: a verb and nothing it acts on.
#[tool(scope = shared, tier = auto, name = "get")]
pub fn get() {}
