//! Powerful shared tools: they spend money or change other agents. They are in no
//! preset; an allowlist names them one by one, and a human approves each call.

use schemars::JsonSchema;
use serde::Serialize;
use toolkit::{State, ToolError, tool};

use super::require_text;
use crate::store::{Org, PhoneNumber};

/// Get the phone numbers the org owns.
#[tool(scope = shared, tier = auto, group = "infrastructure")]
pub fn get_phone_numbers(#[ctx] org: State<Org>) -> Vec<PhoneNumber> {
    org.lock().phone_numbers.clone()
}

/// Buy a new phone number for the org, in an area code. It is billed monthly.
#[tool(scope = shared, tier = approve, group = "infrastructure",
       aliases = ["buy_phone_number"])]
pub fn buy_phone_numbers(
    #[ctx] org: State<Org>,
    /// The area code, like `20` for London.
    #[schemars(range(min = 1, max = 9999))]
    area_code: u16,
) -> PhoneNumber {
    let mut data = org.lock();
    let id = data.next_id();
    let number = PhoneNumber {
        number: format!("+44 {area_code} 7946 {id:04}"),
        agent: None,
    };
    data.phone_numbers.push(number.clone());
    number
}

/// An agent after its instructions were rewritten.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AgentSummary {
    /// The agent's name.
    pub name: String,
    /// Its new instructions.
    pub instructions: String,
}

/// Rewrite another agent's instructions.
#[tool(scope = shared, tier = approve, group = "infrastructure")]
pub fn update_agents(
    #[ctx] org: State<Org>,
    /// The agent's name.
    name: String,
    /// Its new instructions, in full.
    instructions: String,
) -> Result<AgentSummary, ToolError> {
    require_text(&instructions, "instructions")?;
    let mut data = org.lock();
    let agent = data
        .agents
        .iter_mut()
        .find(|agent| agent.name == name)
        .ok_or_else(|| ToolError::failed(format!("no agent named `{name}`")))?;
    agent.instructions = instructions;
    Ok(AgentSummary {
        name,
        instructions: agent.instructions.clone(),
    })
}
