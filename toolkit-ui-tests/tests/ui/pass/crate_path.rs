//! `crate = path` names toolkit through another path, as a framework that
//! re-exports toolkit needs: the generated code uses only that path.

mod framework {
    pub use ::toolkit as tools;
}

use toolkit::tool;

/// Get the answer through the absolute path.
#[tool(scope = shared, tier = auto, crate = ::toolkit)]
fn get_answer() -> u32 {
    42
}

/// Get the question through a re-export.
#[tool(scope = agent, tier = approve, crate = crate::framework::tools)]
fn get_question() -> &'static str {
    "six by nine"
}

fn main() {
    let registry = toolkit::registry();
    let answer = registry
        .get("get_answer")
        .expect("registered through ::toolkit");
    assert_eq!(answer.scope, toolkit::Scope::Shared);
    let question = registry
        .get("get_question")
        .expect("registered through the re-export");
    assert_eq!(question.tier, toolkit::Tier::Approve);
    assert_eq!(get_question::TIER, toolkit::Tier::Approve);
    assert_eq!(get_answer(), 42);
}
