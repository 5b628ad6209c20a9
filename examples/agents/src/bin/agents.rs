//! One registry, three consumers: the human assistant on the Contacts page, an
//! agent from its stored allowlist, and the same agent answering a text from a
//! contact, whose request for a call-back waits for an owner's approval.
//!
//! Run it with `cargo run -p example-agents --bin agents`.

use example_agents::consumers::{
    ASSISTANT_ALLOWLIST, Page, Request, agent_view, approvals, assistant_view,
};
use example_agents::{
    CallerThread, ChannelKind, FRONT_DESK_AGENT, LiveMessage, Org, Principal, SALES_AGENT, Trigger,
};
use futures_executor::block_on;
use toolkit::approval::{ApprovalKey, Decision, PendingApproval};
use toolkit::{Context, Response, Scope, View, call::CallId, registry};

fn show(title: &str, view: &View<'_>) {
    println!("{title} ({} tools):", view.len());
    println!("  {}\n", view.names().collect::<Vec<_>>().join(", "));
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = registry();
    println!("The catalog: {} tools", registry.len());
    for scope in Scope::ALL {
        let names: Vec<&str> = registry
            .iter()
            .filter(|tool| tool.scope == scope)
            .map(|tool| tool.name)
            .collect();
        println!("  {:<9} {}", scope.as_str(), names.join(", "));
    }
    println!();

    // Start-up: the key that signs approvals (from a secret store in a real server).
    let approvals =
        approvals(ApprovalKey::new(*b"the example org's approval key!!").expect("32 bytes"));
    let org = Org::sample();
    let flags = ["knowledge_base_enabled"];

    // Per request: each view is built from stored strings and dropped after.
    let owner = Principal::owner(1);
    let request = Request {
        principal: &owner,
        flags: &flags,
        page: Some(Page::Contacts),
    };
    show(
        "The assistant, an owner on the Contacts page",
        &assistant_view(registry, &approvals, ASSISTANT_ALLOWLIST, &request)?,
    );

    let sales = org.agent(SALES_AGENT).ok_or("no sales agent")?;
    let sales_principal = Principal::agent(
        SALES_AGENT,
        &[
            "contacts.read",
            "messages.write",
            "sales.read",
            "sales.write",
        ],
    );
    let request = Request {
        principal: &sales_principal,
        flags: &flags,
        page: None,
    };
    println!("The sales agent's stored allowlist: {:?}", sales.allowlist);
    show(
        "The sales agent",
        &agent_view(registry, &approvals, &sales, &request, false)?,
    );

    let front_desk = org.agent(FRONT_DESK_AGENT).ok_or("no front desk agent")?;
    let front_desk_principal = Principal::owner(1);
    println!(
        "The front desk agent's stored allowlist: {:?}, attach_domain_tools = {}",
        front_desk.allowlist, front_desk.attach_domain_tools
    );
    show(
        "The front desk agent (the legacy switch is the recommended preset)",
        &agent_view(
            registry,
            &approvals,
            &front_desk,
            &Request {
                principal: &front_desk_principal,
                flags: &flags,
                page: None,
            },
            false,
        )?,
    );

    // Ada texts the sales agent: a live turn, triggered by a contact.
    let live = agent_view(registry, &approvals, &sales, &request, true)?;
    let ctx = Context::new()
        .with(org.clone())
        .with(CallerThread(SALES_AGENT))
        .with(Trigger::Contact { contact_id: 1 })
        .with(LiveMessage {
            channel: ChannelKind::Sms,
            conversation_id: 1,
            message_id: 4,
            contact_id: Some(1),
            text: "Can you call me tomorrow at ten?".to_owned(),
        })
        .with(CallId::new("call_7"));
    let script = [
        ("create_replies", r#"{"text": "Of course, talk tomorrow!"}"#),
        (
            "create_schedules",
            r#"{"schedules": [{"prompt": "Call Ada back about the quote.", "recurrence": {"kind": "once", "at": "2026-11-24T10:00Z"}, "contact_id": 1}]}"#,
        ),
        // Not in this agent's view, by its alias: the same answer as a tool that
        // does not exist.
        ("buy_phone_number", r#"{"area_code": 20}"#),
    ];
    for (name, arguments) in script {
        println!("> {name} {arguments}");
        let response = block_on(live.call(name, arguments, &ctx));
        println!("< {}\n", response.to_json());
        if let Response::Pending(pending) = response {
            org.store_pending_approval(pending.call_id.clone(), serde_json::to_string(&pending)?);
        }
    }

    // Later, an owner opens the approvals screen.
    for key in org.pending_approvals().into_keys() {
        let stored = org.take_pending_approval(&key).ok_or("taken meanwhile")?;
        let pending: PendingApproval = serde_json::from_str(&stored)?;
        println!("Owner approves `{}` ({key})", pending.tool);
        let approval = approvals.decide(registry, &pending, Decision::Approve)?;
        // The agent's worker resumes it, with the agent's own context.
        let worker = agent_view(registry, &approvals, &sales, &request, false)?;
        let ctx = Context::new()
            .with(org.clone())
            .with(CallerThread(SALES_AGENT));
        println!("< {}", block_on(worker.resume(&approval, &ctx)).to_json());
        println!(
            "< again: {}\n",
            block_on(worker.resume(&approval, &ctx)).to_json()
        );
    }

    // The clock moves on: the one-shot fires once, carrying the contact into the
    // agent's run.
    for now in ["2026-11-24T10:00Z", "2026-11-25T10:00Z"] {
        let wakes = org.advance_to(now.parse()?);
        println!("At {now}: {}", serde_json::to_string(&wakes)?);
        for wake in wakes {
            let run = agent_view(registry, &approvals, &sales, &request, false)?;
            let ctx = Context::new()
                .with(org.clone())
                .with(CallerThread(wake.thread))
                .with(wake.trigger());
            if let Some(contact_id) = wake.contact_id {
                let arguments = format!(r#"{{"id": {contact_id}}}"#);
                println!("> get_contacts {arguments}");
                let response = block_on(run.call("get_contacts", &arguments, &ctx));
                println!("< {}", response.to_json());
            }
        }
    }
    Ok(())
}
