//! Contacts, messages, calls and deals: the families the Contacts page surfaces.
//! Shared: they need the org's data and a permission, nothing else.

use schemars::JsonSchema;
use serde::Deserialize;
use toolkit::{State, ToolError, tool};

use super::{empty_list, not_found, require_text, take};
use crate::store::{Call, Contact, Deal, Message, Org, Stage};

/// Get contacts: one by `id`, or all of them in id order.
#[tool(scope = shared, tier = auto, always, group = "contacts", aliases = ["get_contact"])]
pub fn get_contacts(
    #[ctx] org: State<Org>,
    /// Return only this contact.
    id: Option<u32>,
    /// At most this many contacts.
    #[tool(default = 20)]
    limit: u32,
) -> Result<Vec<Contact>, ToolError> {
    let data = org.lock();
    if let Some(id) = id {
        return data
            .contact(id)
            .map(|contact| vec![contact.clone()])
            .ok_or_else(|| not_found("contact", id));
    }
    Ok(data.contacts.iter().take(take(limit)).cloned().collect())
}

/// Search contacts by part of a name, company or phone number.
#[tool(scope = shared, tier = auto, always, group = "contacts")]
pub fn search_contacts(
    #[ctx] org: State<Org>,
    /// Part of a name, company or number; case does not matter.
    query: String,
) -> Vec<Contact> {
    let query = query.to_lowercase();
    org.lock()
        .contacts
        .iter()
        .filter(|contact| {
            contact.name.to_lowercase().contains(&query)
                || contact.phone.contains(&query)
                || contact
                    .company
                    .as_ref()
                    .is_some_and(|company| company.to_lowercase().contains(&query))
        })
        .cloned()
        .collect()
}

/// A contact to create.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewContact {
    /// Full name.
    pub name: String,
    /// Phone number, international format.
    pub phone: String,
    /// The company they work for.
    pub company: Option<String>,
}

/// Create contacts.
#[tool(scope = shared, tier = auto, group = "contacts")]
pub fn create_contacts(
    #[ctx] org: State<Org>,
    /// The contacts to create.
    contacts: Vec<NewContact>,
) -> Result<Vec<Contact>, ToolError> {
    if contacts.is_empty() {
        return Err(empty_list("contacts"));
    }
    for (index, contact) in contacts.iter().enumerate() {
        require_text(&contact.name, &format!("contacts[{index}].name"))?;
    }
    let mut data = org.lock();
    Ok(contacts
        .into_iter()
        .map(|new| {
            let contact = Contact {
                id: data.next_id(),
                name: new.name,
                phone: new.phone,
                company: new.company,
            };
            data.contacts.push(contact.clone());
            contact
        })
        .collect())
}

/// Get messages with contacts, newest first.
#[tool(scope = shared, tier = auto, always, group = "messages")]
pub fn get_messages(
    #[ctx] org: State<Org>,
    /// Only the conversation with this contact.
    contact_id: Option<u32>,
    /// At most this many messages.
    #[tool(default = 20)]
    limit: u32,
) -> Vec<Message> {
    org.lock()
        .messages
        .iter()
        .rev()
        .filter(|message| contact_id.is_none_or(|id| message.contact_id == id))
        .take(take(limit))
        .cloned()
        .collect()
}

/// Send a text message to a contact, as the org.
#[tool(scope = shared, tier = auto, group = "messages", aliases = ["send_message"])]
pub fn create_messages(
    #[ctx] org: State<Org>,
    /// The recipient.
    contact_id: u32,
    /// The message.
    text: String,
) -> Result<Message, ToolError> {
    require_text(&text, "text")?;
    let mut data = org.lock();
    if data.contact(contact_id).is_none() {
        return Err(not_found("contact", contact_id));
    }
    let message = Message {
        id: data.next_id(),
        contact_id,
        outgoing: true,
        text,
    };
    data.messages.push(message.clone());
    Ok(message)
}

/// Get phone calls with contacts, newest first.
#[tool(scope = shared, tier = auto, group = "calls")]
pub fn get_calls(
    #[ctx] org: State<Org>,
    /// Only calls with this contact.
    contact_id: Option<u32>,
) -> Vec<Call> {
    org.lock()
        .calls
        .iter()
        .rev()
        .filter(|call| contact_id.is_none_or(|id| call.contact_id == id))
        .cloned()
        .collect()
}

/// Get deals, optionally only those in one stage or with one contact.
#[tool(scope = shared, tier = auto, group = "sales")]
pub fn get_deals(
    #[ctx] org: State<Org>,
    /// Only deals in this stage.
    stage: Option<Stage>,
    /// Only deals with this contact.
    contact_id: Option<u32>,
) -> Vec<Deal> {
    org.lock()
        .deals
        .iter()
        .filter(|deal| stage.is_none_or(|stage| deal.stage == stage))
        .filter(|deal| contact_id.is_none_or(|id| deal.contact_id == id))
        .cloned()
        .collect()
}

/// Move a deal to another stage.
#[tool(scope = shared, tier = auto, group = "sales", aliases = ["update_deal"])]
pub fn update_deals(
    #[ctx] org: State<Org>,
    /// The deal.
    id: u32,
    /// Its new stage.
    stage: Stage,
) -> Result<Deal, ToolError> {
    let mut data = org.lock();
    let deal = data
        .deals
        .iter_mut()
        .find(|deal| deal.id == id)
        .ok_or_else(|| not_found("deal", id))?;
    deal.stage = stage;
    Ok(deal.clone())
}
