//! Tools of paid features: each is in a view only when its flag is on.

use schemars::JsonSchema;
use serde::Serialize;
use toolkit::{State, ToolError, tool};

use super::require_text;
use crate::store::Org;

/// One article of the knowledge base.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Article {
    /// Its title.
    pub title: String,
    /// Its text.
    pub text: String,
}

/// Search the org's knowledge base for answers to customers' questions.
#[tool(scope = shared, tier = auto, group = "knowledge", gate = "knowledge_base_enabled")]
pub fn search_knowledge(
    #[ctx] org: State<Org>,
    /// Words to look for; case does not matter.
    query: String,
) -> Vec<Article> {
    let query = query.to_lowercase();
    org.lock()
        .knowledge
        .iter()
        .filter(|(title, text)| {
            title.to_lowercase().contains(&query) || text.to_lowercase().contains(&query)
        })
        .map(|&(title, text)| Article {
            title: title.to_owned(),
            text: text.to_owned(),
        })
        .collect()
}

/// Create a custom call analyzer: a question asked of every recorded call.
#[tool(scope = shared, tier = auto, group = "calls", gate = "custom_analyzers_enabled")]
pub fn create_analyzers(
    #[ctx] org: State<Org>,
    /// The question, like "Did the caller ask for a refund?".
    question: String,
) -> Result<String, ToolError> {
    require_text(&question, "question")?;
    org.lock().analyzers.push(question.clone());
    Ok(format!("every call will be asked: {question}"))
}
