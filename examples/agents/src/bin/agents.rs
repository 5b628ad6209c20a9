//! One registry, three consumers: the human assistant on the Contacts page, an
//! agent from its stored allowlist, and the same agent answering texts from
//! contacts, whose requests for a call-back wait for an owner's approval. The
//! agent's own "yes" is refused; the owner approves one and denies the other;
//! the core's runner creates the approved schedule once while the agent is away;
//! and the agent's next wake reads what came of both from the approval store.
//!
//! Run it with `cargo run -p example-agents --bin agents`.

use example_agents::consumers::{
    ASSISTANT_ALLOWLIST, Page, Request, agent_view, approvals, assistant_view, quotas,
};
use example_agents::wake::{run_approved, wake_agents};
use example_agents::{
    CallerThread, ChannelKind, FRONT_DESK_AGENT, LiveMessage, Org, Principal, SALES_AGENT, Trigger,
};
use futures_executor::block_on;
use toolkit::approval::{ApprovalKey, Decision, PendingQuery};
use toolkit::quota::MemoryQuotaStore;
use toolkit::{Context, Scope, View, call::CallId, registry};

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
    // Each agent's calls are counted on their own, here in memory (a fleet counts
    // in its approval store's database): `create_schedules` runs 6 times an hour.
    let quotas = quotas(MemoryQuotaStore::new())?;
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
        &agent_view(registry, &approvals, &quotas, &sales, &request, false)?,
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
            &quotas,
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
    let live = agent_view(registry, &approvals, &quotas, &sales, &request, true)?;
    let turn = |contact_id: u32, text: &str, call_id: &str| {
        Context::new()
            .with(org.clone())
            .with(CallerThread(SALES_AGENT))
            .with(Trigger::Contact { contact_id })
            .with(LiveMessage {
                channel: ChannelKind::Sms,
                conversation_id: contact_id,
                message_id: 4,
                contact_id: Some(contact_id),
                text: text.to_owned(),
            })
            .with(CallId::new(call_id))
    };
    let ada = turn(1, "Can you call me tomorrow at ten?", "call_7");
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
        let arguments = serde_json::from_str(arguments)?;
        // The agent's turn remembers a call that waits for a person, and ends.
        let response = block_on(example_agents::wake::call(&live, name, &arguments, &ada));
        println!("< {}\n", response.to_json());
    }
    // Grace texts too, and asks for a call on a Sunday.
    let grace = turn(3, "Call me on Sunday?", "call_8");
    let arguments = serde_json::json!({"schedules": [{"prompt": "Call Grace about the demo.", "recurrence": {"kind": "once", "at": "2026-11-29T10:00Z"}, "contact_id": 3}]});
    println!("> create_schedules {arguments}");
    let response = block_on(example_agents::wake::call(
        &live,
        "create_schedules",
        &arguments,
        &grace,
    ));
    println!("< {}\n", response.to_json());

    // The agent's framework accepts every question it is asked: its own "yes" is
    // refused by the approvals' policy, and kept in the audit.
    let waiting = block_on(approvals.pending(&PendingQuery::new()))?;
    for pending in &waiting {
        let own = block_on(approvals.answer_as_requester(registry, pending, Decision::Approve));
        println!(
            "The agent approves its own `{}` ({}): {}",
            pending.tool,
            pending.call_id,
            own.map_or_else(|error| error.to_string(), |_| "approved".to_owned())
        );
    }

    // Later, the owner opens the inbox (`example_agents::inbox`; its browser test
    // clicks the same decisions) and decides each call it lists.
    let olivia = toolkit::Principal::local("olivia")?;
    println!();
    for pending in &waiting {
        let decision = if pending.call_id == "call_7" {
            Decision::Approve
        } else {
            Decision::Deny("Grace asked us never to call at weekends.".to_owned())
        };
        println!(
            "Owner olivia decides `{}` ({}): {decision:?}",
            pending.tool, pending.call_id
        );
        block_on(approvals.decide_as(registry, pending, decision, &olivia))?;
    }

    // Nobody is waiting for the answers: the agent's turns ended long ago. The
    // core's runner (a background task on every server) runs what was approved,
    // once, however often and wherever it runs.
    for pass in 1..=2 {
        println!(
            "Runner pass {pass}: {:?}",
            block_on(run_approved(&org, &approvals, &quotas))?
        );
    }
    println!(
        "The sales agent's schedules: {}\n",
        serde_json::to_string(&org.schedules(SALES_AGENT))?
    );

    // The clock moves on: the one-shot fires once, carrying the contact into the
    // agent's run, and the agent reads first what came of the calls it waited on.
    for now in ["2026-11-24T10:00Z", "2026-11-25T10:00Z"] {
        let wakings = block_on(wake_agents(&org, &approvals, now.parse()?));
        println!("At {now}: {} wake(s)", wakings.len());
        for waking in wakings {
            println!("{}", serde_json::to_string(&waking)?);
            for message in waking.messages() {
                println!("  reads: {message}");
            }
            let run = agent_view(registry, &approvals, &quotas, &sales, &request, false)?;
            let ctx = waking.context(&org);
            if let Some(contact_id) = waking.wake.contact_id {
                let arguments = format!(r#"{{"id": {contact_id}}}"#);
                println!("> get_contacts {arguments}");
                let response = block_on(run.call("get_contacts", &arguments, &ctx));
                println!("< {}", response.to_json());
            }
        }
    }
    Ok(())
}
