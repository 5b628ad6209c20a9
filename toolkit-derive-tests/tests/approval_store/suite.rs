//! The approval-store contract, as async tests over a [`Backend`] (a way to open
//! the store under test); `contract_tests!(run)` makes one `#[test]` of each.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::join_all;
use serde_json::{Value, json};
use toolkit::approval::{
    Approval, ApprovalError, ApprovalKey, ApprovalStore, Approvals, CallState, Claim, DecidedBy,
    Decider, Deciders, Decision, DecisionOutcome, DecisionQuery, DecisionRecord, PendingApproval,
    PendingQuery, RefusalRecord, RunOutcome, RunPass, RunRecord, StoreFuture, Verdict,
};
use toolkit::approval::{CANCELLED, MAX_TASK_ARGUMENTS, TaskError, TaskState};
use toolkit::quota::{MemoryQuotaStore, Quotas};
use toolkit::{Context, Principal, Response, Scope, State, ToolError, View, call::CallId, tool};

/// Opens the store under test.
pub(crate) trait Backend: Send + Sync {
    /// A store (a new connection, where the store has connections) whose clock is
    /// moved by `clock`.
    fn open<'a>(&'a self, clock: &'a Clock) -> Opening<'a>;
    /// Whether a store opened again sees what an earlier one recorded.
    fn survives_restart(&self) -> bool;
    /// Puts the store's tables back as a build from before run outcomes were kept
    /// left them (every claim's outcome gone, principals and deciders the free
    /// strings they were, the schema back to before outcomes), so the next open
    /// migrates them;
    /// `false` for a store with no schema (memory).
    fn forget_outcomes(&self) -> bool {
        false
    }
}

/// A store being opened.
pub(crate) type Opening<'a> = Pin<Box<dyn Future<Output = Arc<dyn ApprovalStore>> + 'a>>;

/// One contract test.
pub(crate) type Test = fn(Arc<dyn Backend>) -> Pin<Box<dyn Future<Output = ()>>>;

/// The test's time: seconds added to the real clock (the store's and, unless a
/// test says otherwise, the process's).
#[derive(Clone, Default)]
pub(crate) struct Clock(Arc<AtomicI64>);

impl Clock {
    pub(crate) fn advance(&self, seconds: i64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }

    /// How far the test moved time, in seconds.
    pub(crate) fn shift(&self) -> impl Fn() -> i64 + Send + Sync + 'static {
        let shift = self.0.clone();
        move || shift.load(Ordering::SeqCst)
    }

    /// The moved time, in Unix seconds.
    pub(crate) fn reader(&self) -> impl Fn() -> u64 + Send + Sync + 'static {
        let shift = self.shift();
        move || real_now().saturating_add_signed(shift())
    }
}

fn real_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// How many numbers were released: each run of the tool adds one.
#[derive(Clone, Default)]
pub(crate) struct Released(Arc<AtomicUsize>);

impl Released {
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// Release phone numbers the organization owns.
#[tool(scope = shared, tier = approve)]
async fn delete_phone_numbers(
    #[ctx] released: State<Released>,
    /// The numbers, in E.164 form.
    numbers: Vec<String>,
) -> Value {
    released.0.0.fetch_add(1, Ordering::SeqCst);
    json!({ "released": numbers })
}

/// Archive a project.
#[tool(scope = shared, tier = approve)]
async fn delete_projects(
    #[ctx] released: State<Released>,
    /// The project's id.
    id: u32,
) -> Value {
    released.0.0.fetch_add(1, Ordering::SeqCst);
    json!({ "archived": id })
}

const KEY: &[u8; 32] = b"0123456789abcdef0123456789abcdef";
const NEW_KEY: &[u8; 40] = b"a rotated key, forty bytes long, random!";
const HOUR: i64 = 60 * 60;

fn key(bytes: &[u8]) -> ApprovalKey {
    ApprovalKey::new(bytes.to_vec()).expect("32 bytes or more")
}

/// Approvals on `store`, whose process clock is the test's clock shifted by
/// `skew` seconds (a host whose clock is off).
fn approvals(store: Arc<dyn ApprovalStore>, clock: &Clock, skew: i64) -> Approvals {
    let shift = clock.shift();
    Approvals::with_store(key(KEY), store)
        .pending_ttl(Duration::from_hours(24))
        .approval_ttl(Duration::from_mins(15))
        .clock(move || {
            UNIX_EPOCH + Duration::from_secs(real_now().saturating_add_signed(shift() + skew))
        })
}

/// A principal the test application names.
fn p(name: &str) -> Principal {
    Principal::local(name).expect("a principal")
}

fn view<'a>(approvals: &'a Approvals, principal: &str) -> View<'a> {
    view_as(approvals, p(principal))
}

fn view_as(approvals: &Approvals, principal: Principal) -> View<'_> {
    toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(approvals, principal)
        .build()
        .expect("view")
}

fn context(released: &Released, call_id: &str) -> Context {
    Context::new()
        .with(released.clone())
        .with(CallId::new(call_id))
}

async fn pending(view: &View<'_>, ctx: &Context, tool: &str, arguments: &str) -> PendingApproval {
    match view.call(tool, arguments, ctx).await {
        Response::Pending(pending) => *pending,
        other => panic!("expected a pending approval, got {other:?}"),
    }
}

async fn release(view: &View<'_>, ctx: &Context) -> PendingApproval {
    pending(
        view,
        ctx,
        "delete_phone_numbers",
        r#"{"numbers": ["+15550100"]}"#,
    )
    .await
}

/// What a presentation of a call whose run completed is told: it ran, with what.
fn already_ran() -> Response {
    Response::Error(ToolError::AlreadyRan {
        outcome: r#"with the result {"released":["+15550100"]}"#.to_owned(),
    })
}

async fn resume(view: &View<'_>, approval: &Approval, released: &Released) -> Response {
    view.resume(approval, &Context::new().with(released.clone()))
        .await
}

/// A decided pending approval runs once for its whole life: decided again two hours
/// later (past the approval's TTL plus an hour), edited, after a purge, and from a
/// restarted store, it runs nothing.
pub(crate) async fn decided_twice_runs_once_for_its_whole_life(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let approvals = approvals(backend.open(&clock).await, &clock, 0);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let pending = release(&view, &context(&released, "call_1")).await;
    let first = approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    assert!(resume(&view, &first, &released).await.is_success());
    assert_eq!(resume(&view, &first, &released).await, already_ran());

    clock.advance(2 * HOUR);
    assert_eq!(
        approvals.store().purge().await.expect("purges"),
        0,
        "nothing of a live call is purged"
    );
    // The synchronous decision records nothing, so only the claim stands between a
    // second approval and a second run.
    let second = approvals
        .decide(toolkit::registry(), &pending, Decision::Approve)
        .expect("a pending approval can be decided while it is valid");
    assert_eq!(resume(&view, &second, &released).await, already_ran());
    let edited = approvals
        .decide(
            toolkit::registry(),
            &pending,
            Decision::ApproveWith(json!({"numbers": ["+15550199"]})),
        )
        .expect("edited");
    assert_eq!(edited.verdict, Verdict::ApprovedWithEdits);
    assert_eq!(resume(&view, &edited, &released).await, already_ran());
    // A second recorded decision is refused, saying who decided first.
    let refused = approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:2"),
        )
        .await
        .expect_err("decided already");
    assert!(
        matches!(&refused, ApprovalError::AlreadyDecided(winner) if winner.decided_by == DecidedBy::Person(p("admin:1")) && winner.verdict == Verdict::Approved),
        "{refused:?}"
    );

    if backend.survives_restart() {
        let restarted = self::approvals(backend.open(&clock).await, &clock, 0);
        let view = self::view(&restarted, "user:7");
        clock.advance(20 * HOUR);
        let late = restarted
            .decide(toolkit::registry(), &pending, Decision::Approve)
            .expect("still within the pending's 24 hours");
        assert_eq!(resume(&view, &late, &released).await, already_ran());
    }
    assert_eq!(released.count(), 1);
}

/// Records are kept until everything signed for the call has expired (plus the
/// stated skew), and purged after.
pub(crate) async fn records_are_kept_until_nothing_signed_can_reach_them(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let approvals = approvals(backend.open(&clock).await, &clock, 0);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let pending = release(&view, &context(&released, "call_kept")).await;
    let approval = approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    assert!(resume(&view, &approval, &released).await.is_success());
    // The last approval of the call could be made at the pending's expiry (24 h) and
    // resumed 15 minutes later; one more hour of skew.
    clock.advance(24 * HOUR + 15 * 60 + HOUR - 60);
    assert_eq!(
        approvals.store().purge().await.expect("purges"),
        1,
        "the pending approval, kept an hour past its expiry"
    );
    let decisions = approvals
        .decisions(&DecisionQuery::new().principal(p("user:7")))
        .await
        .expect("lists");
    assert_eq!(decisions.len(), 1, "the decision is still kept");
    clock.advance(24 * HOUR);
    let purged = approvals.store().purge().await.expect("purges");
    assert_eq!(purged, 2, "the decision and the claim");
    // Whatever was signed for the call has expired by now.
    let late = resume(&view, &approval, &released).await;
    assert_eq!(late.error().map(ToolError::kind), Some("approval_rejected"));
    assert!(
        late.to_json().to_string().contains("it expired at"),
        "{}",
        late.to_json()
    );
    assert_eq!(released.count(), 1);
}

/// Of any number of concurrent claims of one key, one wins; of concurrent
/// decisions on one pending approval, one is recorded.
pub(crate) async fn concurrent_claims_and_decisions_have_one_winner(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let stores: Vec<_> = join_all((0..4).map(|_| backend.open(&clock))).await;
    let keep_until = clock.reader()() + 3600;
    let lease_until = clock.reader()() + 60;
    let claims = join_all(
        (0..16).map(|i| stores[i % stores.len()].claim("the key", lease_until, keep_until)),
    )
    .await;
    let won = claims
        .iter()
        .filter(|claim| matches!(claim, Ok(Claim::Won { attempt: 1 })))
        .count();
    assert_eq!(won, 1, "{claims:?}");
    assert_eq!(
        claims
            .iter()
            .filter(|claim| **claim == Ok(Claim::Held { lease_until }))
            .count(),
        15,
        "{claims:?}"
    );
    assert_eq!(
        stores[0]
            .claim("another key", lease_until, keep_until)
            .await,
        Ok(Claim::Won { attempt: 1 })
    );
    // Taking over an ended lease is as contested: one wins, the others see its lease.
    clock.advance(61);
    let lease_until = clock.reader()() + 60;
    let takeovers = join_all(
        (0..16).map(|i| stores[i % stores.len()].claim("the key", lease_until, keep_until)),
    )
    .await;
    let won = takeovers
        .iter()
        .filter(|claim| matches!(claim, Ok(Claim::Won { attempt: 2 })))
        .count();
    assert_eq!(won, 1, "{takeovers:?}");
    assert_eq!(
        takeovers
            .iter()
            .filter(|claim| **claim == Ok(Claim::Held { lease_until }))
            .count(),
        15,
        "{takeovers:?}"
    );

    let all: Vec<Approvals> = stores
        .iter()
        .map(|store| approvals(store.clone(), &clock, 0))
        .collect();
    let released = Released::default();
    let pending = release(&view(&all[0], "user:7"), &context(&released, "call_race")).await;
    let decisions = join_all(all.iter().enumerate().map(|(i, approvals)| {
        let decision = if i % 2 == 0 {
            Decision::Approve
        } else {
            Decision::Deny("no".to_owned())
        };
        let pending = &pending;
        async move {
            approvals
                .decide_as(
                    toolkit::registry(),
                    pending,
                    decision,
                    &p(&format!("admin:{i}")),
                )
                .await
        }
    }))
    .await;
    assert_eq!(
        decisions.iter().filter(|decision| decision.is_ok()).count(),
        1,
        "{decisions:?}"
    );
    let recorded = all[1]
        .decisions(&DecisionQuery::new())
        .await
        .expect("lists");
    assert_eq!(recorded.len(), 1);
    let winner = decisions
        .iter()
        .find_map(|decision| decision.as_ref().ok())
        .expect("a winner");
    assert_eq!(recorded[0].verdict, winner.verdict);
    assert_eq!(recorded[0].digest, winner.digest);
    assert_eq!(recorded[0].call_id, "call_race");
    for lost in decisions
        .iter()
        .filter_map(|decision| decision.as_ref().err())
    {
        assert!(
            matches!(lost, ApprovalError::AlreadyDecided(winner) if **winner == recorded[0]),
            "{lost:?}"
        );
    }
}

/// The caps on waiting approvals hold when requests come at once on every
/// replica: counting what waits and storing the new one are one step, so no
/// more than the cap ever wait (per principal over every tool, and per tool);
/// a decision frees a place; the same call asked again is not refused.
pub(crate) async fn a_cap_on_waiting_approvals_holds_under_concurrent_requests(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let stores: Vec<_> = join_all((0..4).map(|_| backend.open(&clock))).await;
    let all: Vec<Approvals> = stores
        .iter()
        .map(|store| approvals(store.clone(), &clock, 0))
        .collect();
    let quotas = Quotas::builder(toolkit::registry(), MemoryQuotaStore::new())
        .pending_approvals(3)
        .pending_approvals_of(delete_projects::NAME, 2)
        .build()
        .expect("quotas");
    let views: Vec<View<'_>> = all
        .iter()
        .map(|approvals| {
            toolkit::registry()
                .view()
                .scopes([Scope::Shared])
                .approvals(approvals, p("user:cap"))
                .quotas(&quotas)
                .build()
                .expect("view")
        })
        .collect();
    let released = Released::default();
    let ask = |i: usize, tool: &'static str, call_id: String| {
        let view = &views[i % views.len()];
        let ctx = context(&released, &call_id);
        let arguments = if tool == "delete_projects" {
            r#"{"id": 1}"#
        } else {
            r#"{"numbers": ["+15550100"]}"#
        };
        async move { view.call(tool, arguments, &ctx).await }
    };
    let full = |limit, of_tool, tool: &str| {
        Response::Error(ToolError::TooManyPending {
            tool: tool.to_owned(),
            limit,
            of_tool,
        })
    };
    let waiting = |tool: Option<&str>| {
        let mut query = PendingQuery::new().principal(p("user:cap"));
        if let Some(tool) = tool {
            query = query.tool(tool);
        }
        let store = stores[0].clone();
        async move { store.list_pending(&query).await.expect("lists").len() }
    };

    // Twelve projects at once on four replicas: the tool's cap of 2 holds.
    let answers =
        join_all((0..12).map(|i| ask(i, "delete_projects", format!("project-{i}")))).await;
    let pending = answers
        .iter()
        .filter(|answer| matches!(answer, Response::Pending(_)))
        .count();
    assert_eq!(pending, 2, "{answers:?}");
    assert_eq!(
        answers
            .iter()
            .filter(|answer| **answer == full(2, true, "delete_projects"))
            .count(),
        10,
        "{answers:?}"
    );
    assert_eq!(waiting(Some("delete_projects")).await, 2);

    // Twelve releases at once: one place is left under the principal's cap of 3.
    let answers =
        join_all((0..12).map(|i| ask(i, "delete_phone_numbers", format!("release-{i}")))).await;
    assert_eq!(
        answers
            .iter()
            .filter(|answer| matches!(answer, Response::Pending(_)))
            .count(),
        1,
        "{answers:?}"
    );
    assert_eq!(
        answers
            .iter()
            .filter(|answer| **answer == full(3, false, "delete_phone_numbers"))
            .count(),
        11,
        "{answers:?}"
    );
    assert_eq!(waiting(None).await, 3);

    // The same call asked again opens nothing and is not refused.
    let Some(Response::Pending(first)) = answers
        .iter()
        .find(|answer| matches!(answer, Response::Pending(_)))
    else {
        panic!("one was stored: {answers:?}");
    };
    let again = ask(0, "delete_phone_numbers", first.call_id.clone()).await;
    assert!(matches!(again, Response::Pending(_)), "{again:?}");
    assert_eq!(waiting(None).await, 3);

    // A decision frees one place, and only one.
    all[1]
        .decide_as(
            toolkit::registry(),
            first,
            Decision::Deny("no".to_owned()),
            &p("admin:1"),
        )
        .await
        .expect("decided");
    let answers =
        join_all((0..8).map(|i| ask(i, "delete_phone_numbers", format!("again-{i}")))).await;
    assert_eq!(
        answers
            .iter()
            .filter(|answer| matches!(answer, Response::Pending(_)))
            .count(),
        1,
        "{answers:?}"
    );
    assert_eq!(waiting(None).await, 3);
}

/// Pending approvals are stored, listed newest first by principal, tool and age,
/// bounded; decided and expired ones are not listed.
pub(crate) async fn pending_approvals_are_listed_by_principal_tool_and_age(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let approvals = approvals(backend.open(&clock).await, &clock, 0);
    let released = Released::default();
    let start = clock.reader()();
    let mut made = Vec::new();
    for (i, (principal, tool, arguments)) in [
        ("user:1", "delete_phone_numbers", r#"{"numbers": ["+1"]}"#),
        ("user:2", "delete_phone_numbers", r#"{"numbers": ["+2"]}"#),
        ("user:1", "delete_projects", r#"{"id": 3}"#),
        ("user:2", "delete_projects", r#"{"id": 4}"#),
    ]
    .into_iter()
    .enumerate()
    {
        // Every other call comes through a labelled view: the store keeps the label.
        let view = if i % 2 == 1 {
            toolkit::registry()
                .view()
                .scopes([Scope::Shared])
                .label(format!("agent {i}"))
                .approvals(&approvals, p(principal))
                .build()
                .expect("view")
        } else {
            view(&approvals, principal)
        };
        made.push(
            pending(
                &view,
                &context(&released, &format!("call_{i}")),
                tool,
                arguments,
            )
            .await,
        );
        clock.advance(600);
    }
    // The same call id again keeps the first pending approval.
    let again = pending(
        &view(&approvals, "user:1"),
        &context(&released, "call_0"),
        "delete_phone_numbers",
        r#"{"numbers": ["+1"]}"#,
    )
    .await;
    assert!(!approvals.store().save_pending(&again).await.expect("saves"));
    // Looked up by its key, a pending approval comes back exactly as stored (the
    // first one); an unknown key finds none.
    assert_eq!(
        approvals
            .store()
            .pending(&p("user:1"), "call_0")
            .await
            .expect("reads"),
        Some(made[0].clone())
    );
    assert_eq!(
        approvals
            .store()
            .pending(&p("user:2"), "call_0")
            .await
            .expect("reads"),
        None
    );

    let shared = &approvals;
    let list = move |query: PendingQuery| async move {
        let listed = shared.pending(&query).await.expect("lists");
        listed
            .into_iter()
            .map(|pending| pending.call_id)
            .collect::<Vec<String>>()
    };
    assert_eq!(
        list(PendingQuery::new()).await,
        ["call_3", "call_2", "call_1", "call_0"]
    );
    assert_eq!(
        list(PendingQuery::new().principal(p("user:1"))).await,
        ["call_2", "call_0"]
    );
    assert_eq!(
        list(PendingQuery::new().tool("delete_projects")).await,
        ["call_3", "call_2"]
    );
    assert_eq!(
        list(
            PendingQuery::new()
                .principal(p("user:2"))
                .tool("delete_phone_numbers")
        )
        .await,
        ["call_1"]
    );
    assert_eq!(
        list(PendingQuery::new().requested_before(start + 1200)).await,
        ["call_1", "call_0"]
    );
    assert_eq!(
        list(PendingQuery::new().requested_after(start + 600)).await,
        ["call_3", "call_2", "call_1"]
    );
    assert_eq!(
        list(PendingQuery::new().limit(2)).await,
        ["call_3", "call_2"]
    );
    let listed = approvals
        .pending(&PendingQuery::new().limit(1))
        .await
        .expect("lists");
    assert_eq!(
        listed,
        [made[3].clone()],
        "stored as made, signature and all"
    );
    assert_eq!(made[3].view.as_deref(), Some("agent 3"));
    assert_eq!(made[2].view, None);
    let all = approvals
        .pending(&PendingQuery::new())
        .await
        .expect("lists");
    assert_eq!(
        all,
        [
            made[3].clone(),
            made[2].clone(),
            made[1].clone(),
            made[0].clone()
        ],
        "every pending approval, its view label (or none) included, as made"
    );
    for listed in &all {
        approvals
            .verify_pending(listed)
            .expect("verifies as listed");
    }

    // Decided: no longer waiting.
    approvals
        .decide_as(
            toolkit::registry(),
            &made[2],
            Decision::Deny("keep it".to_owned()),
            &p("admin:1"),
        )
        .await
        .expect("denied");
    assert_eq!(
        list(PendingQuery::new()).await,
        ["call_3", "call_1", "call_0"]
    );
    let denied = approvals
        .decisions(&DecisionQuery::new())
        .await
        .expect("lists");
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0].verdict, Verdict::Denied);
    assert_eq!(denied[0].message.as_deref(), Some("keep it"));
    assert_eq!(denied[0].decided_by, DecidedBy::Person(p("admin:1")));
    assert_eq!(denied[0].tool, "delete_projects");

    // Expired: no longer waiting (store time).
    clock.advance(24 * HOUR - 900);
    assert_eq!(list(PendingQuery::new()).await, ["call_3"]);

    // A hostile query is refused, not run.
    let huge = (0..=toolkit::approval::MAX_QUERY_VALUES).fold(PendingQuery::new(), |query, i| {
        query.principal(p(&format!("user:{i}")))
    });
    let refused = approvals
        .pending(&huge)
        .await
        .expect_err("too many principals");
    assert_eq!(
        refused.to_string(),
        "the approval store refused the query: a query may name at most 100 principals, not 101"
    );
    assert!(
        matches!(
            &refused,
            ApprovalError::Store(error)
                if error.kind() == toolkit::approval::StoreErrorKind::InvalidQuery
        ),
        "{refused:?}"
    );
    assert_eq!(released.count(), 0);
}

/// An approval with edits keeps its edited arguments with the decision, exactly as
/// they were edited (hostile strings included), read back by the audit list and by
/// a decision that lost the race; the other verdicts keep none.
pub(crate) async fn edited_arguments_are_kept_with_the_decision(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let approvals = approvals(backend.open(&clock).await, &clock, 0);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let edited = json!({
        "numbers": ["+15550199", "<script>\"'\u{202e}\u{200b}\u{0}é\\n", "x".repeat(64 * 1024)]
    });
    let to_edit = release(&view, &context(&released, "call_edit")).await;
    let approval = approvals
        .decide_as(
            toolkit::registry(),
            &to_edit,
            Decision::ApproveWith(edited.clone()),
            &p("admin:1"),
        )
        .await
        .expect("edited");
    clock.advance(60);
    let to_approve = release(&view, &context(&released, "call_plain")).await;
    approvals
        .decide_as(
            toolkit::registry(),
            &to_approve,
            Decision::Approve,
            &p("admin:2"),
        )
        .await
        .expect("approved");
    clock.advance(60);
    let to_deny = release(&view, &context(&released, "call_deny")).await;
    approvals
        .decide_as(
            toolkit::registry(),
            &to_deny,
            Decision::Deny("not this one".to_owned()),
            &p("admin:3"),
        )
        .await
        .expect("denied");

    let recorded = approvals
        .decisions(&DecisionQuery::new().principal(p("user:7")))
        .await
        .expect("lists");
    let with_edits = DecisionRecord {
        call_id: "call_edit".to_owned(),
        principal: p("user:7"),
        tool: "delete_phone_numbers".to_owned(),
        verdict: Verdict::ApprovedWithEdits,
        digest: toolkit::approval::digest(&edited),
        message: None,
        decided_by: DecidedBy::Person(p("admin:1")),
        decided_at: approval.decided_at,
        arguments: Some(edited.clone()),
    };
    assert_eq!(recorded.len(), 3);
    assert_eq!(recorded[2], with_edits, "kept as edited, digest and all");
    assert_eq!(
        (recorded[1].verdict, &recorded[1].arguments),
        (Verdict::Approved, &None)
    );
    assert_eq!(
        (recorded[0].verdict, &recorded[0].arguments),
        (Verdict::Denied, &None)
    );

    // A later decision on the same call is told the winner, edited arguments and all.
    let late = DecisionRecord {
        verdict: Verdict::Approved,
        digest: to_edit.digest.clone(),
        decided_by: DecidedBy::Person(p("admin:4")),
        arguments: None,
        ..with_edits.clone()
    };
    let keep_until = clock.reader()() + 48 * HOUR as u64;
    assert_eq!(
        approvals
            .store()
            .record_decision(&late, keep_until)
            .await
            .expect("answers"),
        DecisionOutcome::AlreadyDecided(Box::new(with_edits))
    );
    assert_eq!(released.count(), 0, "deciding runs nothing");
}

/// Expiry follows the store's clock: a process whose clock is two hours behind (or
/// ahead) makes, decides and resumes approvals exactly as one whose clock is right.
pub(crate) async fn the_store_clock_decides_expiry(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let behind = approvals(store.clone(), &clock, -2 * HOUR);
    let ahead = approvals(store, &clock, 2 * HOUR);
    let released = Released::default();
    let store_now = clock.reader()();
    let pending = release(&view(&behind, "user:7"), &context(&released, "call_skew")).await;
    assert!(
        pending.requested_at.abs_diff(store_now) <= 2,
        "store time, not the process's"
    );
    let approval = ahead
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    assert!(approval.decided_at.abs_diff(store_now) <= 2);
    assert_eq!(approval.expires_at, approval.decided_at + 15 * 60);
    // Twenty minutes on: expired for the store, though the process behind thinks it
    // is still an hour and forty minutes early.
    clock.advance(20 * 60);
    let late = resume(&view(&behind, "user:7"), &approval, &released).await;
    assert_eq!(
        late,
        Response::Error(ToolError::ApprovalRejected {
            reason: format!("it expired at {} (Unix seconds)", approval.expires_at)
        })
    );
    // A fresh approval resumes from the process ahead, which thinks it expired.
    let released_too = Released::default();
    let pending = release(
        &view(&ahead, "user:7"),
        &context(&released_too, "call_skew_2"),
    )
    .await;
    let approval = behind
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    assert!(
        resume(&view(&ahead, "user:7"), &approval, &released_too)
            .await
            .is_success()
    );
    assert_eq!(released.count() + released_too.count(), 1);
}

/// Keys rotate: approvals signed with the previous key still verify where it is
/// listed as previous, and nowhere else.
pub(crate) async fn rotated_keys_still_verify_what_the_previous_key_signed(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let old = approvals(store.clone(), &clock, 0);
    let released = Released::default();
    let pending = release(&view(&old, "user:7"), &context(&released, "call_rotate")).await;
    let approval = old
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    let new_only = Approvals::with_store(key(NEW_KEY), store.clone());
    assert_eq!(
        resume(&view(&new_only, "user:7"), &approval, &released).await,
        Response::Error(ToolError::ApprovalRejected {
            reason: "its signature does not match (forged or altered)".to_owned()
        })
    );
    let rotated = Approvals::with_store(key(NEW_KEY), store).previous_keys([key(KEY)]);
    assert!(
        resume(&view(&rotated, "user:7"), &approval, &released)
            .await
            .is_success()
    );
    // A pending signed with the old key is decided under the new one...
    let pending = release(&view(&old, "user:7"), &context(&released, "call_rotate_2")).await;
    let approval = rotated
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    // ... and signed with the new key only: the old set-up refuses it.
    assert_eq!(
        resume(&view(&old, "user:7"), &approval, &released).await,
        Response::Error(ToolError::ApprovalRejected {
            reason: "its signature does not match (forged or altered)".to_owned()
        })
    );
    assert!(
        resume(&view(&new_only, "user:7"), &approval, &released)
            .await
            .is_success()
    );
    assert_eq!(released.count(), 2);
}

/// Keys under 32 bytes are refused with a clear error, the empty key too.
pub(crate) async fn short_keys_are_refused(_backend: Arc<dyn Backend>) {
    for len in [0, 1, 31] {
        let error = ApprovalKey::new(vec![7; len]).expect_err("too short");
        assert_eq!(
            error.to_string(),
            format!(
                "an approval key needs at least 32 random bytes, this one has {len} \
                 (make one with `openssl rand -hex 32`)"
            )
        );
    }
    assert!(ApprovalKey::new(vec![7; 32]).is_ok());
}

/// The runs of `create_transfers`: the approved run each saw.
#[derive(Clone, Default)]
struct Runs(Arc<std::sync::Mutex<Vec<Option<toolkit::approval::ApprovedRun>>>>);

impl Runs {
    fn seen(&self) -> Vec<Option<toolkit::approval::ApprovedRun>> {
        self.0.lock().expect("not poisoned").clone()
    }
}

/// Whether `create_transfers` hangs (a process about to be killed mid-run).
#[derive(Clone, Default)]
struct Hang(Arc<std::sync::atomic::AtomicBool>);

/// Move money between accounts.
#[tool(scope = shared, tier = approve)]
async fn create_transfers(
    #[ctx] runs: State<Runs>,
    #[ctx] hang: State<Hang>,
    /// The amount, in cents.
    cents: u32,
) -> Value {
    runs.0
        .0
        .lock()
        .expect("not poisoned")
        .push(toolkit::approval::ApprovedRun::current());
    if hang.0.0.load(Ordering::SeqCst) {
        std::future::pending::<()>().await;
    }
    json!({ "moved": cents })
}

/// A claim with a lease and an outcome: a run that never completed (its process
/// died mid-run) is run again after its lease, by any process, with the same run
/// key and the next attempt; a completed run never runs again; while the lease
/// holds, a presentation is refused as running, with when to retry.
pub(crate) async fn a_run_that_died_runs_again_after_its_lease_and_a_completed_one_never(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let now = clock.reader()();
    // The store alone.
    assert_eq!(
        store.claim("k", now + 30, now + 3600).await,
        Ok(Claim::Won { attempt: 1 })
    );
    assert_eq!(
        store.claim("k", now + 40, now + 3600).await,
        Ok(Claim::Held {
            lease_until: now + 30
        })
    );
    clock.advance(31);
    assert_eq!(
        store.claim("k", now + 91, now + 3600).await,
        Ok(Claim::Won { attempt: 2 })
    );
    assert_eq!(store.complete("k", 2, &ran(1)).await, Ok(true));
    clock.advance(600);
    assert_eq!(
        store.claim("k", now + 1300, now + 3600).await,
        Ok(Claim::Done)
    );
    assert_eq!(store.complete("never claimed", 1, &ran(1)).await, Ok(false));
    // A run that failed is released: the next claim wins at once.
    let now = clock.reader()();
    assert_eq!(
        store.claim("failed", now + 30, now + 3600).await,
        Ok(Claim::Won { attempt: 1 })
    );
    assert_eq!(store.release("failed", 1, &failed()).await, Ok(true));
    assert_eq!(
        store.claim("failed", now + 30, now + 3600).await,
        Ok(Claim::Won { attempt: 2 })
    );
    assert_eq!(store.complete("failed", 2, &ran(2)).await, Ok(true));
    assert_eq!(
        store.release("failed", 2, &failed()).await,
        Ok(false),
        "a completed run stays done"
    );
    assert_eq!(
        store.claim("failed", now + 30, now + 3600).await,
        Ok(Claim::Done)
    );
    assert_eq!(
        ended(store.run("failed").await),
        Ok(Some(RunRecord::new(2, true, now + 30, Some(ran(2))))),
        "the completed attempt's outcome is kept"
    );
}

/// Only the attempt that holds a claim ends it or renews it: an attempt whose
/// lease ended and was taken over records nothing (not complete, not released,
/// not renewed), the attempt that took over ends it with its outcome, and
/// completing again keeps the first outcome.
pub(crate) async fn an_attempt_that_lost_its_claim_ends_nothing(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let now = clock.reader()();
    assert_eq!(store.run("slow").await, Ok(None));
    assert_eq!(
        store.claim("slow", now + 30, now + 3600).await,
        Ok(Claim::Won { attempt: 1 })
    );
    assert_eq!(
        ended(store.run("slow").await),
        Ok(Some(RunRecord::new(1, false, now + 30, None)))
    );
    // A live run renews its lease; a renewal never shortens it.
    assert_eq!(store.renew("slow", 1, now + 50).await, Ok(true));
    assert_eq!(store.renew("slow", 1, now + 40).await, Ok(true));
    assert_eq!(
        store.claim("slow", now + 30, now + 3600).await,
        Ok(Claim::Held {
            lease_until: now + 50
        })
    );
    clock.advance(51);
    let now = clock.reader()();
    assert_eq!(
        store.claim("slow", now + 30, now + 3600).await,
        Ok(Claim::Won { attempt: 2 })
    );
    // Attempt 1 wakes up: fenced off whatever it tries.
    assert_eq!(store.renew("slow", 1, now + 90).await, Ok(false));
    assert_eq!(store.complete("slow", 1, &ran(1)).await, Ok(false));
    assert_eq!(store.release("slow", 1, &failed()).await, Ok(false));
    assert_eq!(
        ended(store.run("slow").await),
        Ok(Some(RunRecord::new(2, false, now + 30, None))),
        "nothing of attempt 1 was recorded"
    );
    assert_eq!(
        store.claim("slow", now + 30, now + 3600).await,
        Ok(Claim::Held {
            lease_until: now + 30
        }),
        "and no third run starts beside the second"
    );
    // Attempt 2 fails and is released; attempt 3 takes over at once and completes.
    assert_eq!(store.release("slow", 2, &failed()).await, Ok(true));
    assert_eq!(
        store.renew("slow", 2, now + 90).await,
        Ok(false),
        "a released claim is not renewed"
    );
    assert_eq!(
        ended(store.run("slow").await),
        Ok(Some(RunRecord::new(2, false, 0, Some(failed()))))
    );
    assert_eq!(
        store.claim("slow", now + 30, now + 3600).await,
        Ok(Claim::Won { attempt: 3 })
    );
    assert_eq!(store.complete("slow", 2, &ran(2)).await, Ok(false));
    assert_eq!(store.complete("slow", 3, &ran(3)).await, Ok(true));
    assert_eq!(
        store.complete("slow", 3, &ran(4)).await,
        Ok(true),
        "completing again is accepted (a retry whose answer was lost)"
    );
    assert_eq!(
        ended(store.run("slow").await),
        Ok(Some(RunRecord::new(3, true, now + 30, Some(ran(3))))),
        "and keeps the first outcome"
    );
    assert_eq!(store.renew("slow", 3, now + 90).await, Ok(false));
    assert_eq!(
        store.claim("slow", now + 30, now + 3600).await,
        Ok(Claim::Done)
    );
}

/// A run record without its end time, once checked that an attempt with an
/// outcome has one (store time, in this test's last hour).
fn ended(
    record: Result<Option<RunRecord>, toolkit::approval::StoreError>,
) -> Result<Option<RunRecord>, toolkit::approval::StoreError> {
    record.map(|found| {
        found.map(|mut record| {
            assert_eq!(
                record.ended_at.is_some(),
                record.outcome.is_some(),
                "an ended attempt says when: {record:?}"
            );
            record.ended_at = None;
            record
        })
    })
}

fn ran(attempt: u32) -> RunOutcome {
    RunOutcome::of(&Response::Result(json!({ "attempt": attempt })))
}

fn failed() -> RunOutcome {
    RunOutcome::of(&Response::Error(ToolError::failed("the ledger is down")))
}

/// A gate a tool waits at until the test opens it.
#[derive(Clone, Default)]
struct Gate(Arc<std::sync::atomic::AtomicBool>);

impl Gate {
    fn open(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    async fn wait(&self) {
        while !self.0.load(Ordering::SeqCst) {
            futures_timer::Delay::new(Duration::from_millis(10)).await;
        }
    }
}

/// Move money into a savings account.
#[tool(scope = shared, tier = approve)]
async fn update_savings(
    #[ctx] runs: State<Runs>,
    #[ctx] gate: State<Gate>,
    /// The amount, in cents.
    cents: u32,
) -> Value {
    let run = toolkit::approval::ApprovedRun::current();
    runs.0.0.lock().expect("not poisoned").push(run.clone());
    // The first attempt waits at the gate: a replica frozen mid-run.
    if run.is_some_and(|run| run.attempt == 1) {
        gate.0.wait().await;
    }
    json!({ "saved": cents })
}

/// Through resume: an attempt frozen past its lease and taken over tells its
/// caller that the run was taken over and what came of it, never that it ran;
/// the store keeps the second attempt's outcome, readable by whoever was not
/// waiting.
pub(crate) async fn a_superseded_attempt_is_told_so_and_never_ran_twice(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let approvals = approvals(store, &clock, 0).run_lease(Duration::from_secs(30));
    let view = view(&approvals, "user:7");
    let (runs, gate) = (Runs::default(), Gate::default());
    let ctx = Context::new()
        .with(runs.clone())
        .with(gate.clone())
        .with(CallId::new("call_savings"));
    let pending = pending(&view, &ctx, "update_savings", r#"{"cents": 700}"#).await;
    let approval = approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    assert_eq!(
        approvals.outcome(&p("user:7"), "call_savings").await,
        Ok(None),
        "nothing ran yet"
    );
    let frozen = view.resume(&approval, &ctx);
    let takeover = async {
        while runs.seen().is_empty() {
            futures_timer::Delay::new(Duration::from_millis(10)).await;
        }
        // The first attempt is frozen past its lease; another caller takes over.
        clock.advance(31);
        let second = view.resume(&approval, &ctx).await;
        gate.open();
        second
    };
    let (first, second) = futures_util::future::join(frozen, takeover).await;
    assert_eq!(second.result(), Some(&json!({"saved": 700})), "{second:?}");
    assert_eq!(
        first.error().map(ToString::to_string),
        Some(
            "the approval was refused: this run was taken over by attempt 2 after its lease \
             ended, and nothing it did was recorded; that attempt ran it, with the result \
             {\"saved\":700}; nothing ran"
                .to_owned()
        ),
        "{first:?}"
    );
    let attempts: Vec<u32> = runs
        .seen()
        .iter()
        .map(|run| run.as_ref().expect("an approved run").attempt)
        .collect();
    assert_eq!(attempts, [1, 2]);
    let record = approvals
        .outcome(&p("user:7"), "call_savings")
        .await
        .expect("reads")
        .expect("it ran");
    assert_eq!((record.attempt, record.done), (2, true));
    assert_eq!(
        record.outcome,
        Some(RunOutcome::of(&Response::Result(json!({"saved": 700}))))
    );
}

/// A live run renews its lease: a healthy run longer than the lease is not taken
/// over (a second presentation hears "running"), in real time.
pub(crate) async fn a_live_run_renews_its_lease(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let approvals = approvals(store, &clock, 0).run_lease(Duration::from_secs(1));
    let view = view(&approvals, "user:7");
    let (runs, gate) = (Runs::default(), Gate::default());
    let ctx = Context::new()
        .with(runs.clone())
        .with(gate.clone())
        .with(CallId::new("call_long"));
    let pending = pending(&view, &ctx, "update_savings", r#"{"cents": 5}"#).await;
    let approval = approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    let long = view.resume(&approval, &ctx);
    let meanwhile = async {
        // Past a lease of one second (whole seconds: at most two) in real time.
        futures_timer::Delay::new(Duration::from_millis(2300)).await;
        let second = view.resume(&approval, &ctx).await;
        gate.open();
        second
    };
    let (first, second) = futures_util::future::join(long, meanwhile).await;
    assert_eq!(first.result(), Some(&json!({"saved": 5})), "{first:?}");
    assert!(
        second.error().is_some_and(|error| error
            .to_string()
            .contains("another request is running it now")),
        "{second:?}"
    );
    assert_eq!(runs.seen().len(), 1, "one run");
}

/// Who may decide is one policy: by default nobody decides their own call (a
/// person named like the principal is its requester), the refusal runs nothing,
/// records no decision and is kept in the audit; a policy that lets the requester
/// decide some tools lets them, and only those.
pub(crate) async fn the_policy_decides_who_may_decide(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let strict = approvals(store.clone(), &clock, 0);
    let view = view(&strict, "user:7");
    let released = Released::default();
    let pending = release(&view, &context(&released, "call_own")).await;
    let refused = strict
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("user:7"),
        )
        .await
        .expect_err("the requester may not approve its own call");
    assert_eq!(
        refused,
        ApprovalError::NotAllowed {
            decided_by: "local|user:7".to_owned(),
            reason: "`delete_phone_numbers` is approved by someone other than the requester; \
                     the call waits for them"
                .to_owned()
        }
    );
    let by_requester = strict
        .decide_by(
            toolkit::registry(),
            &pending,
            Decision::Deny("no".to_owned()),
            Decider::Requester,
        )
        .await
        .expect_err("nor deny it");
    assert!(
        matches!(&by_requester, ApprovalError::NotAllowed { decided_by, .. } if decided_by == "the requester"),
        "{by_requester:?}"
    );
    let audit = strict
        .refusals(&DecisionQuery::new().principal(p("user:7")))
        .await
        .expect("lists refusals");
    let refused_by: Vec<&DecidedBy> = audit.iter().map(|r| &r.decided_by).collect();
    assert_eq!(
        refused_by,
        [&DecidedBy::Requester, &DecidedBy::Person(p("user:7"))],
        "newest first"
    );
    assert!(
        audit
            .iter()
            .all(|r| r.call_id == "call_own" && r.tool == "delete_phone_numbers")
    );
    assert_eq!(
        strict
            .decisions(&DecisionQuery::new().principal(p("user:7")))
            .await
            .expect("lists"),
        [],
        "a refusal is not a decision"
    );
    // Someone else decides, and it runs once.
    let approval = strict
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("an admin may");
    assert!(resume(&view, &approval, &released).await.is_success());
    assert_eq!(released.count(), 1);

    // A personal assistant: the requester decides `delete_projects`, not numbers.
    let personal = approvals(store, &clock, 0)
        .policy(Deciders::others().requester_decides(["delete_projects"]));
    let view = self::view(&personal, "user:8");
    let ctx = context(&released, "call_project");
    let project = self::pending(&view, &ctx, "delete_projects", r#"{"id": 3}"#).await;
    assert!(personal.may_decide(&Decider::Requester, &project));
    let approval = personal
        .decide_by(
            toolkit::registry(),
            &project,
            Decision::Approve,
            Decider::Requester,
        )
        .await
        .expect("the requester may approve this one");
    assert_eq!(approval.decided_by.as_deref(), Some("the requester"));
    let numbers = release(&view, &context(&released, "call_numbers")).await;
    assert!(!personal.may_decide(&Decider::Requester, &numbers));
    assert!(personal.may_decide(&Decider::Person(&p("admin:1")), &numbers));
}

/// The requester's "no" is recorded where every door and the runner read it: an
/// operator approves, the requester's client then declines, and no replica's
/// runner, no poll and no later "yes" runs the call; a "no" the policy would not
/// let decide (nobody decides their own call) still stops it; and a requester
/// whose answer comes after a runner ran the call is told it ran, with its
/// result, never that nothing ran.
pub(crate) async fn a_requesters_no_is_recorded_and_binds_every_door_and_the_runner(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let approvals: &'static Approvals = Box::leak(Box::new(approvals(store.clone(), &clock, 0)));
    let other_replica: &'static Approvals = Box::leak(Box::new(self::approvals(store, &clock, 0)));
    let released = Released::default();
    let view = view(approvals, "user:7");
    let other_view = self::view(other_replica, "user:7");
    let run_as = |approvals: &'static Approvals| {
        let released = released.clone();
        move |pending: &PendingApproval| {
            let view = toolkit::registry()
                .view()
                .scopes([Scope::Shared])
                .approvals(approvals, pending.principal.clone())
                .build()
                .map_err(|error| error.to_string())?;
            Ok((view, Context::new().with(released.clone())))
        }
    };
    let state = |call_id: &'static str| async move {
        other_replica
            .status(&p("user:7"), call_id)
            .await
            .expect("reads")
            .map(|status| status.state)
    };
    let declined = Some(CallState::NotRun {
        kind: "denied".to_owned(),
        message: ToolError::Denied {
            message: "the user declined the call".to_owned(),
        }
        .to_string(),
    });
    let no = || Decision::Deny("the user declined the call".to_owned());

    // An operator approves on one replica; the requester declines on another.
    let approved = release(&view, &context(&released, "call_1")).await;
    approvals
        .decide_as(
            toolkit::registry(),
            &approved,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    let answer = other_replica
        .answer_as_requester(toolkit::registry(), &approved, no())
        .await
        .expect("a denial to resume with");
    assert_eq!(answer.verdict, Verdict::Denied);
    assert_eq!(
        resume(&other_view, &answer, &released).await,
        Response::Error(ToolError::Denied {
            message: "the user declined the call".to_owned()
        })
    );
    assert_eq!(state("call_1").await, declined);
    // Past the grace, every replica's runner passes it by; a poll runs nothing.
    clock.advance(61);
    for replica in [approvals, other_replica] {
        let pass = replica
            .run_decided(Duration::from_mins(1), run_as(replica))
            .await
            .expect("a pass");
        assert_eq!(pass.ran, 0, "{pass:?}");
    }
    assert!(
        !approvals
            .run_approved(&view, &Context::new().with(released.clone()), &approved)
            .await
            .is_success()
    );
    assert_eq!(released.count(), 0);
    assert_eq!(state("call_1").await, declined);

    // Declined first, where the policy leaves the decision to someone else: the
    // "no" is still recorded, and the operator's later "yes" finds it.
    let first = release(&view, &context(&released, "call_2")).await;
    approvals
        .answer_as_requester(toolkit::registry(), &first, no())
        .await
        .expect("a denial");
    assert!(matches!(
        other_replica
            .decide_as(toolkit::registry(), &first, Decision::Approve, &p("admin:1"))
            .await,
        Err(ApprovalError::AlreadyDecided(record)) if record.decided_by == DecidedBy::Requester
    ));
    assert_eq!(state("call_2").await, declined);

    // Too late: a runner ran the approved call while the requester waited (a
    // stalled store, a slow client). Its "yes" and its "no" both hear that it ran,
    // with the result, on any replica.
    let ran = release(&view, &context(&released, "call_3")).await;
    approvals
        .decide_as(toolkit::registry(), &ran, Decision::Approve, &p("admin:1"))
        .await
        .expect("approved");
    clock.advance(61);
    let pass = other_replica
        .run_decided(Duration::from_mins(1), run_as(other_replica))
        .await
        .expect("a pass");
    assert_eq!(pass.ran, 1, "{pass:?}");
    assert_eq!(released.count(), 1);
    let yes = approvals
        .answer_as_requester(toolkit::registry(), &ran, Decision::Approve)
        .await
        .expect("the approval to resume with");
    let told = resume(&view, &yes, &released).await;
    assert_eq!(
        told,
        Response::Error(ToolError::AlreadyRan {
            outcome: r#"with the result {"released":["+15550100"]}"#.to_owned()
        })
    );
    assert_eq!(
        told.to_json(),
        json!({"error": {
            "kind": "already_ran",
            "outcome": r#"with the result {"released":["+15550100"]}"#,
            "message": r#"this approved call already ran, with the result {"released":["+15550100"]}; an approved call runs once, so it did not run again"#,
        }})
    );
    assert_eq!(
        approvals
            .answer_as_requester(toolkit::registry(), &ran, no())
            .await,
        Err(ApprovalError::Ended(RunOutcome::of(&Response::Result(
            json!({"released": ["+15550100"]})
        ))))
    );
    assert_eq!(released.count(), 1);
}

/// The runner: a call approved in the inbox whose requester is not waiting runs
/// once, with nobody coming back, after the grace; two runners at once run it once;
/// its outcome is kept; a call the requester resumed first, a denial, and a call
/// whose principal lost the tool never run (the last kept as a refused outcome); a
/// run a dead replica left behind is taken over after its lease.
pub(crate) async fn the_runner_runs_what_was_approved_once_with_nobody_waiting(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let approvals = approvals(store.clone(), &clock, 0).run_lease(Duration::from_secs(30));
    let other_replica = self::approvals(store, &clock, 0).run_lease(Duration::from_secs(30));
    let released = Released::default();
    let run_as = |approvals: &'static Approvals| {
        let released = released.clone();
        move |pending: &PendingApproval| {
            let view = toolkit::registry()
                .view()
                .scopes([Scope::Shared])
                .approvals(approvals, pending.principal.clone())
                .build()
                .map_err(|error| error.to_string())?;
            Ok((view, Context::new().with(released.clone())))
        }
    };
    let approvals: &'static Approvals = Box::leak(Box::new(approvals));
    let other_replica: &'static Approvals = Box::leak(Box::new(other_replica));
    let view = view(approvals, "user:7");
    let pending_of = |call_id: &'static str| {
        let view = &view;
        let ctx = context(&released, call_id);
        async move { release(view, &ctx).await }
    };
    let grace = Duration::from_mins(1);

    let unattended = pending_of("call_unattended").await;
    approvals
        .decide_as(
            toolkit::registry(),
            &unattended,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    let denied = pending_of("call_denied").await;
    approvals
        .decide_as(
            toolkit::registry(),
            &denied,
            Decision::Deny("keep them".to_owned()),
            &p("admin:1"),
        )
        .await
        .expect("denied");
    let resumed = pending_of("call_resumed").await;
    let approval = approvals
        .decide_as(
            toolkit::registry(),
            &resumed,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    assert!(resume(&view, &approval, &released).await.is_success());
    assert_eq!(released.count(), 1);
    // The requester's resume settled its call: no runner reads it again (only the
    // unattended approval is left for them; the denial never runs).
    let unsettled = approvals
        .store()
        .approved_unsettled(0, u64::MAX / 2, 100)
        .await
        .expect("reads");
    assert_eq!(
        unsettled
            .iter()
            .map(|(pending, _)| pending.call_id.as_str())
            .collect::<Vec<_>>(),
        ["call_unattended"]
    );

    // Within the grace, a requester coming back runs it itself: nothing runs.
    let pass = approvals
        .run_decided(grace, run_as(approvals))
        .await
        .expect("a pass");
    assert_eq!(pass, RunPass::default(), "{pass:?}");
    assert_eq!(released.count(), 1);

    clock.advance(61);
    let (first, second) = futures_util::future::join(
        approvals.run_decided(grace, run_as(approvals)),
        other_replica.run_decided(grace, run_as(other_replica)),
    )
    .await;
    let (first, second) = (first.expect("a pass"), second.expect("a pass"));
    assert_eq!(first.ran + second.ran, 1, "{first:?} {second:?}");
    assert_eq!(released.count(), 2, "the unattended call ran once");
    let record = approvals
        .outcome(&p("user:7"), "call_unattended")
        .await
        .expect("reads")
        .expect("it ran");
    assert!(record.done);
    assert_eq!(
        record.outcome,
        Some(RunOutcome::of(&Response::Result(
            json!({"released": ["+15550100"]})
        )))
    );
    assert!(record.ended_at.is_some());
    assert_eq!(
        approvals.outcome(&p("user:7"), "call_denied").await,
        Ok(None),
        "a denial never runs"
    );
    // Settled: later passes look at nothing.
    let pass = approvals
        .run_decided(grace, run_as(approvals))
        .await
        .expect("a pass");
    assert_eq!(pass, RunPass::default(), "{pass:?}");

    // A principal who lost the tool is refused, and the refusal is the outcome.
    let lost = pending_of("call_lost").await;
    approvals
        .decide_as(toolkit::registry(), &lost, Decision::Approve, &p("admin:1"))
        .await
        .expect("approved");
    clock.advance(61);
    let pass = approvals
        .run_decided(grace, |pending: &PendingApproval| {
            let view = toolkit::registry()
                .view()
                .scopes([Scope::Agent])
                .approvals(approvals, pending.principal.clone())
                .build()
                .map_err(|error| error.to_string())?;
            Ok((view, Context::new().with(released.clone())))
        })
        .await
        .expect("a pass");
    assert_eq!(pass.refused, 1, "{pass:?}");
    assert_eq!(released.count(), 2, "nothing ran");
    let record = approvals
        .outcome(&p("user:7"), "call_lost")
        .await
        .expect("reads")
        .expect("refused");
    assert!(record.done, "a refused call never runs");
    assert!(
        matches!(&record.outcome, Some(RunOutcome::Failed { kind, message })
            if kind == "approval_rejected" && message.contains("it may no longer run for local|user:7")),
        "{record:?}"
    );

    // A run a dead replica left (claimed, never ended) is taken over by the runner
    // after its lease, as attempt 2.
    let orphan = pending_of("call_orphan").await;
    approvals
        .decide_as(
            toolkit::registry(),
            &orphan,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    let now = clock.reader()();
    // The dead replica's claim, as `resume` made it.
    let key = toolkit::approval::ApprovedRun::key_of(&p("user:7"), "call_orphan");
    assert_eq!(
        approvals.store().claim(&key, now + 30, now + 7200).await,
        Ok(Claim::Won { attempt: 1 })
    );
    clock.advance(61);
    let pass = approvals
        .run_decided(grace, run_as(approvals))
        .await
        .expect("a pass");
    assert_eq!(pass.ran, 1, "{pass:?}");
    assert_eq!(released.count(), 3);
    let record = approvals
        .outcome(&p("user:7"), "call_orphan")
        .await
        .expect("reads")
        .expect("it ran");
    assert_eq!((record.attempt, record.done), (2, true));
}

/// What a requester polling its call reads, from the store alone and the same on
/// every replica: waiting (and whether its own answer decides), approved, ran with
/// the result (once, whoever polled), denied, withdrawn (it never runs, and it
/// leaves the inbox), expired; nothing for another principal.
pub(crate) async fn a_call_tells_where_it_is_from_the_store_on_any_replica(
    backend: Arc<dyn Backend>,
) {
    use toolkit::approval::CallState;

    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let approvals = approvals(store.clone(), &clock, 0);
    let other_replica = self::approvals(store, &clock, 0);
    let view = view(&approvals, "user:7");
    let other_view = self::view(&other_replica, "user:7");
    let released = Released::default();
    let ctx = context(&released, "call_1");
    let pending = release(&view, &ctx).await;
    let state = |replica: &'static str, call_id: &'static str| {
        let approvals = if replica == "a" {
            &approvals
        } else {
            &other_replica
        };
        async move {
            approvals
                .status(&p("user:7"), call_id)
                .await
                .expect("reads")
                .map(|status| status.state)
        }
    };
    assert_eq!(
        state("b", "call_1").await,
        Some(CallState::Waiting {
            requester_decides: false
        })
    );
    assert_eq!(
        approvals.status(&p("user:8"), "call_1").await,
        Ok(None),
        "another principal's call is not found"
    );
    let status = approvals
        .status(&p("user:7"), "call_1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.pending, pending);
    assert_eq!(
        status.kept_until,
        pending.expires_at + 15 * 60,
        "kept past the pending's expiry and the approval's lifetime"
    );

    approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    assert_eq!(state("b", "call_1").await, Some(CallState::Approved));
    // Two replicas polling at once run it once.
    let (first, second) = futures_util::future::join(
        approvals.run_approved(&view, &ctx, &pending),
        other_replica.run_approved(&other_view, &ctx, &pending),
    )
    .await;
    assert_eq!(
        usize::from(first.is_success()) + usize::from(second.is_success()),
        1,
        "{first:?} {second:?}"
    );
    assert_eq!(released.count(), 1);
    let ran = Some(CallState::Ran(Some(json!({"released": ["+15550100"]}))));
    assert_eq!(state("a", "call_1").await, ran);
    assert_eq!(state("b", "call_1").await, ran);
    assert!(ran.as_ref().is_some_and(CallState::is_final));
    assert!(
        !approvals.withdraw(&pending).await.expect("reads"),
        "too late: it ran"
    );
    assert_eq!(state("b", "call_1").await, ran);

    // Denied: it never runs.
    let denied = release(&view, &context(&released, "call_2")).await;
    approvals
        .decide_as(
            toolkit::registry(),
            &denied,
            Decision::Deny("keep it".to_owned()),
            &p("admin:1"),
        )
        .await
        .expect("denied");
    assert_eq!(
        state("b", "call_2").await,
        Some(CallState::NotRun {
            kind: "denied".to_owned(),
            message: ToolError::Denied {
                message: "keep it".to_owned()
            }
            .to_string(),
        })
    );

    // Withdrawn while it waits: an approver's later "yes" runs nothing, and it
    // left the inbox.
    let withdrawn = release(&view, &context(&released, "call_3")).await;
    assert!(other_replica.withdraw(&withdrawn).await.expect("withdrawn"));
    assert_eq!(state("a", "call_3").await, Some(CallState::Withdrawn));
    assert!(matches!(
        approvals
            .decide_as(toolkit::registry(), &withdrawn, Decision::Approve, &p("admin:1"))
            .await,
        Err(ApprovalError::AlreadyDecided(record)) if record.decided_by == DecidedBy::Requester
    ));
    let listed = approvals
        .pending(&PendingQuery::new().principal(p("user:7")))
        .await
        .expect("lists");
    assert!(listed.iter().all(|p| p.call_id != "call_3"), "{listed:?}");
    assert!(!approvals.withdraw(&withdrawn).await.expect("reads"));

    // Withdrawn after an approval, before anyone ran it: it never runs.
    let approved = release(&view, &context(&released, "call_4")).await;
    approvals
        .decide_as(
            toolkit::registry(),
            &approved,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    assert!(approvals.withdraw(&approved).await.expect("withdrawn"));
    assert_eq!(state("b", "call_4").await, Some(CallState::Withdrawn));
    assert!(
        !approvals
            .run_approved(&view, &ctx, &approved)
            .await
            .is_success()
    );
    assert_eq!(released.count(), 1);

    // Approved and never run within its approval's lifetime: expired.
    let late = release(&view, &context(&released, "call_5")).await;
    approvals
        .decide_as(toolkit::registry(), &late, Decision::Approve, &p("admin:1"))
        .await
        .expect("approved");
    let waiting = release(&view, &context(&released, "call_6")).await;
    clock.advance(16 * 60);
    assert!(matches!(
        state("b", "call_5").await,
        Some(CallState::NotRun { kind, .. }) if kind == "expired"
    ));
    assert_eq!(
        state("b", "call_6").await,
        Some(CallState::Waiting {
            requester_decides: false
        }),
        "a pending approval waits its own 24 hours"
    );
    // Past its 24 hours (and before the store may purge it, an hour later).
    clock.advance(24 * HOUR);
    assert!(matches!(
        state("a", "call_6").await,
        Some(CallState::NotRun { kind, .. }) if kind == "expired"
    ));
    assert_eq!(waiting.call_id, "call_6");
    assert_eq!(released.count(), 1);
}

pub(crate) async fn a_run_that_hangs_and_is_dropped_runs_again_after_its_lease(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    // Through resume: a run that hangs and is dropped (its request cancelled, its
    // process killed) leaves the claim to its lease.
    let approvals = approvals(store.clone(), &clock, 0).run_lease(Duration::from_secs(30));
    let view = view(&approvals, "user:7");
    let (runs, hang) = (Runs::default(), Hang::default());
    let ctx = Context::new()
        .with(runs.clone())
        .with(hang.clone())
        .with(CallId::new("call_transfer"));
    let pending = pending(&view, &ctx, "create_transfers", r#"{"cents": 500}"#).await;
    let approval = approvals
        .decide(toolkit::registry(), &pending, Decision::Approve)
        .expect("approved");
    hang.0.store(true, Ordering::SeqCst);
    {
        let first = Box::pin(view.resume(&approval, &ctx));
        // Poll until the tool has started, then drop the run.
        let started = async {
            while runs.seen().is_empty() {
                tokio::task::yield_now().await;
            }
        };
        futures_util::pin_mut!(started);
        match futures_util::future::select(first, started).await {
            futures_util::future::Either::Right(((), _)) => {}
            futures_util::future::Either::Left((response, _)) => {
                panic!("a hanging tool returned: {response:?}")
            }
        }
    }
    hang.0.store(false, Ordering::SeqCst);
    let held = view.resume(&approval, &ctx).await;
    // The lease's 30 s, rounded up, on a pinned clock; PostgreSQL's clock is the
    // server's, shifted, so a loaded machine may have spent a second or more since
    // the claim.
    let message = held.error().map(ToString::to_string).unwrap_or_default();
    let seconds: u64 = message
        .split("try again in ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("no wait in {held:?}"));
    assert!((20..=31).contains(&seconds), "{held:?}");
    assert_eq!(
        message,
        format!(
            "the approval was refused: another request is running it now; if that run does \
             not finish, try again in {seconds} s; nothing ran"
        ),
        "{held:?}"
    );
    clock.advance(31);
    let again = view.resume(&approval, &ctx).await;
    assert_eq!(again.result(), Some(&json!({"moved": 500})), "{again:?}");
    let seen = runs.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    let (first, second) = (
        seen[0].clone().expect("the first run is an approved run"),
        seen[1].clone().expect("the second run is an approved run"),
    );
    assert_eq!((first.attempt, second.attempt), (1, 2));
    assert_eq!(
        first.key, second.key,
        "one idempotency key for every attempt"
    );
    assert_eq!(first.key.len(), 64);
    // Completed: never again, whatever the lease (still within the approval's TTL).
    clock.advance(600);
    let used = view.resume(&approval, &ctx).await;
    assert!(
        used.to_json()
            .to_string()
            .contains("this approved call already ran"),
        "{}",
        used.to_json()
    );
    assert_eq!(runs.seen().len(), 2);
    assert_eq!(
        toolkit::approval::ApprovedRun::current(),
        None,
        "only inside a run"
    );
}

/// Whether `set_budgets` fails (its ledger is down).
#[derive(Clone, Default)]
struct LedgerDown(Arc<std::sync::atomic::AtomicBool>);

/// Set a team's monthly budget.
#[tool(scope = shared, tier = approve)]
async fn set_budgets(
    #[ctx] down: State<LedgerDown>,
    #[ctx] released: State<Released>,
    /// The budget, in cents.
    cents: u32,
) -> Result<Value, ToolError> {
    released.0.0.fetch_add(1, Ordering::SeqCst);
    if down.0.0.load(Ordering::SeqCst) {
        return Err(ToolError::failed("the ledger is down"));
    }
    Ok(json!({ "budget": cents }))
}

/// What a requester polling a call whose tool fails reads, from the store alone
/// and the same on every replica: tried again (the failed attempt, the tool's
/// error, until when), running again (and how the earlier attempt failed), and,
/// once its approval expired before another attempt, failed for good with the
/// tool's error; nothing runs it again then.
pub(crate) async fn a_failing_call_is_retried_until_its_approval_ends_then_failed(
    backend: Arc<dyn Backend>,
) {
    use toolkit::approval::{ApprovedRun, CallState};

    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let approvals = approvals(store.clone(), &clock, 0);
    let other_replica = self::approvals(store.clone(), &clock, 0);
    let view = view(&approvals, "user:7");
    let (down, released) = (LedgerDown::default(), Released::default());
    down.0.store(true, Ordering::SeqCst);
    let ctx = Context::new()
        .with(down.clone())
        .with(released.clone())
        .with(CallId::new("call_budget"));
    let pending = pending(&view, &ctx, "set_budgets", r#"{"cents": 9000}"#).await;
    let approval = approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    let until = approval.expires_at;
    assert_eq!(until, approval.decided_at + 15 * 60, "the approval's life");
    let state = || async {
        other_replica
            .status(&p("user:7"), "call_budget")
            .await
            .expect("reads")
            .expect("stored")
            .state
    };

    // The poll that finds it approved runs it; the tool fails.
    assert_eq!(
        approvals.run_approved(&view, &ctx, &pending).await,
        Response::Error(ToolError::failed("the ledger is down"))
    );
    let key = ApprovedRun::key_of(&p("user:7"), "call_budget");
    // Tried again once its back-off (5 s, doubling) from the failed attempt's end
    // has passed, as the store recorded it.
    let retrying = |attempt| {
        let store = store.clone();
        let key = key.clone();
        async move {
            let run = store.run(&key).await.expect("reads").expect("claimed");
            let now = store.now().await.expect("a clock");
            let next_attempt_at = run.ended_at.expect("ended") + (5_u64 << (attempt - 1));
            CallState::Retrying {
                attempt,
                error: "the ledger is down".to_owned(),
                next_attempt_at,
                next_attempt_in: next_attempt_at.saturating_sub(now),
                until,
            }
        }
    };
    assert_eq!(state().await, retrying(1).await);
    assert!(!retrying(1).await.is_final());
    assert_eq!(released.count(), 1);
    // A runner tries it again, once its grace has passed.
    let run_as = |_: &PendingApproval| {
        let ctx = Context::new()
            .with(down.clone())
            .with(released.clone())
            .with(CallId::new("call_budget"));
        Ok::<_, String>((self::view(&approvals, "user:7"), ctx))
    };
    clock.advance(61);
    let pass = approvals
        .run_decided(Duration::from_mins(1), run_as)
        .await
        .expect("a pass");
    assert_eq!(pass.failed, 1, "{pass:?}");
    assert_eq!(released.count(), 2);
    assert_eq!(state().await, retrying(2).await);

    // Attempt 3 runs (a runner on another replica, say): running again, and how
    // the last attempt failed.
    let now = store.now().await.expect("a clock");
    let Ok(Claim::Won { attempt: 3 }) = store.claim(&key, now + 30, now + HOUR as u64).await else {
        panic!("attempt 3 claims it");
    };
    assert_eq!(
        state().await,
        CallState::Running {
            attempt: 3,
            last_error: Some("the ledger is down".to_owned()),
        }
    );
    assert_eq!(store.release(&key, 3, &failed()).await, Ok(true));
    assert_eq!(state().await, retrying(3).await);

    // Its approval expired before another attempt: failed, for good.
    clock.advance(15 * 60);
    let gave_up = CallState::Failed {
        attempt: 3,
        kind: "failed".to_owned(),
        message: "the ledger is down".to_owned(),
    };
    assert_eq!(state().await, gave_up);
    assert!(gave_up.is_final());
    down.0.store(false, Ordering::SeqCst);
    let pass = approvals
        .run_decided(Duration::from_mins(1), run_as)
        .await
        .expect("a pass");
    assert_eq!(
        pass,
        RunPass::default(),
        "past its approval, nothing runs it"
    );
    assert!(
        !approvals
            .run_approved(&view, &ctx, &pending)
            .await
            .is_success()
    );
    assert_eq!(released.count(), 2);
    assert_eq!(state().await, gave_up);
}

/// A tool that always fails is tried again as its back-off allows, not on every
/// runner pass: passes every 10 s (store time) over most of a 15-minute approval
/// run it 4 times (a minute, then doubling up to 8), and every other pass leaves it
/// waiting; the call's status says when its next attempt is, from the store's
/// record of the last attempt's end.
pub(crate) async fn a_failing_tool_is_tried_again_after_a_growing_back_off(
    backend: Arc<dyn Backend>,
) {
    use toolkit::approval::{ApprovedRun, CallState};

    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let approvals = approvals(store.clone(), &clock, 0)
        .retry_backoff(Duration::from_mins(1), Duration::from_mins(8));
    let view = view(&approvals, "user:7");
    let (down, released) = (LedgerDown::default(), Released::default());
    down.0.store(true, Ordering::SeqCst);
    let ctx = || {
        Context::new()
            .with(down.clone())
            .with(released.clone())
            .with(CallId::new("call_backoff"))
    };
    let pending = pending(&view, &ctx(), "set_budgets", r#"{"cents": 500}"#).await;
    approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    let run_as = |_: &PendingApproval| Ok::<_, String>((self::view(&approvals, "user:7"), ctx()));
    let mut ran_at_pass = Vec::new();
    let mut waited = 0;
    for pass_number in 0..=85 {
        let pass = approvals
            .run_decided(Duration::ZERO, run_as)
            .await
            .expect("a pass");
        assert_eq!(pass.failed + pass.waiting, 1, "{pass:?}");
        if pass.failed == 1 {
            ran_at_pass.push(pass_number);
        }
        waited += pass.waiting;
        clock.advance(10);
    }
    assert_eq!(ran_at_pass, [0, 6, 18, 42], "after 60, 120 and 240 s");
    assert_eq!(waited, 82);
    assert_eq!(released.count(), 4);

    // What a requester polling it reads: the attempt that failed, and when the
    // next is (the fourth attempt's end plus the 8-minute cap).
    let run = store
        .run(&ApprovedRun::key_of(&p("user:7"), "call_backoff"))
        .await
        .expect("reads")
        .expect("claimed");
    // The store's clock is read by `status` itself; on PostgreSQL it is the
    // database's and moves on between two reads, so the wait told lies between
    // the waits at the reads just before and just after it.
    let before = store.now().await.expect("a clock");
    let next_attempt_at = run.ended_at.expect("ended") + 8 * 60;
    let status = approvals
        .status(&p("user:7"), "call_backoff")
        .await
        .expect("reads")
        .expect("stored");
    let after = store.now().await.expect("a clock");
    let CallState::Retrying {
        attempt,
        next_attempt_at: told_at,
        next_attempt_in,
        ..
    } = status.state
    else {
        panic!("tried again later, not {:?}", status.state);
    };
    assert_eq!(attempt, 4);
    assert_eq!(told_at, next_attempt_at);
    assert!(
        (next_attempt_at - after..=next_attempt_at - before).contains(&next_attempt_in),
        "told to wait {next_attempt_in} s, at {told_at}, read between {before} and {after}"
    );
}

/// A store that records which of its operations are asked for, in order, and
/// otherwise is the store it wraps: each is one statement on `PostgreSQL`.
struct Recording {
    store: Arc<dyn ApprovalStore>,
    asked: std::sync::Mutex<Vec<&'static str>>,
}

impl Recording {
    fn note(&self, operation: &'static str) {
        self.asked.lock().expect("not poisoned").push(operation);
    }

    /// What was asked since the last time, in order.
    fn take(&self) -> Vec<&'static str> {
        std::mem::take(&mut *self.asked.lock().expect("not poisoned"))
    }
}

impl ApprovalStore for Recording {
    fn now(&self) -> StoreFuture<'_, u64> {
        self.note("now");
        self.store.now()
    }
    fn save_pending<'a>(&'a self, pending: &'a PendingApproval) -> StoreFuture<'a, bool> {
        self.note("save_pending");
        self.store.save_pending(pending)
    }
    fn list_pending<'a>(
        &'a self,
        query: &'a PendingQuery,
    ) -> StoreFuture<'a, Vec<PendingApproval>> {
        self.note("list_pending");
        self.store.list_pending(query)
    }
    fn pending<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<PendingApproval>> {
        self.note("pending");
        self.store.pending(principal, call_id)
    }
    fn record_decision<'a>(
        &'a self,
        record: &'a DecisionRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, DecisionOutcome> {
        self.note("record_decision");
        self.store.record_decision(record, keep_until)
    }
    fn decision<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<DecisionRecord>> {
        self.note("decision");
        self.store.decision(principal, call_id)
    }
    fn decisions<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<DecisionRecord>> {
        self.note("decisions");
        self.store.decisions(query)
    }
    fn claim<'a>(
        &'a self,
        key: &'a str,
        lease_until: u64,
        keep_until: u64,
    ) -> StoreFuture<'a, Claim> {
        self.note("claim");
        self.store.claim(key, lease_until, keep_until)
    }
    fn complete<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        self.note("complete");
        self.store.complete(key, attempt, outcome)
    }
    fn release<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        self.note("release");
        self.store.release(key, attempt, outcome)
    }
    fn renew<'a>(&'a self, key: &'a str, attempt: u32, lease_until: u64) -> StoreFuture<'a, bool> {
        self.note("renew");
        self.store.renew(key, attempt, lease_until)
    }
    fn run<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<RunRecord>> {
        self.note("run");
        self.store.run(key)
    }

    fn lapsed_claims<'a>(&'a self, prefix: &'a str, limit: usize) -> StoreFuture<'a, Vec<String>> {
        self.note("lapsed_claims");
        self.store.lapsed_claims(prefix, limit)
    }
    fn approved_unsettled(
        &self,
        decided_after: u64,
        decided_before: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<(PendingApproval, DecisionRecord)>> {
        self.note("approved_unsettled");
        self.store
            .approved_unsettled(decided_after, decided_before, limit)
    }
    fn settle<'a>(&'a self, principal: &'a Principal, call_id: &'a str) -> StoreFuture<'a, bool> {
        self.note("settle");
        self.store.settle(principal, call_id)
    }
    fn record_refusal<'a>(
        &'a self,
        refusal: &'a RefusalRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, ()> {
        self.note("record_refusal");
        self.store.record_refusal(refusal, keep_until)
    }
    fn refusals<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<RefusalRecord>> {
        self.note("refusals");
        self.store.refusals(query)
    }
    fn purge(&self) -> StoreFuture<'_, u64> {
        self.note("purge");
        self.store.purge()
    }
}

/// One run of a decided call reads the store's clock once, and asks the store
/// nothing else twice: a requester's poll that finds its call approved (the
/// decision, the clock, the claim, the completion, the settle), a call an
/// application decides at once, and an approval resumed in hand.
pub(crate) async fn one_run_reads_the_store_clock_once(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let recording = Arc::new(Recording {
        store: backend.open(&clock).await,
        asked: std::sync::Mutex::default(),
    });
    let approvals = approvals(recording.clone(), &clock, 0);
    let view = view(&approvals, "user:7");
    let released = Released::default();

    let ctx = context(&released, "call_polled");
    let pending = release(&view, &ctx).await;
    approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    recording.take();
    assert!(
        approvals
            .run_approved(&view, &ctx, &pending)
            .await
            .is_success()
    );
    assert_eq!(
        recording.take(),
        ["decision", "now", "claim", "complete", "settle"]
    );

    let ctx = context(&released, "call_in_hand");
    let pending = release(&view, &ctx).await;
    let approval = approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    recording.take();
    assert!(resume(&view, &approval, &released).await.is_success());
    assert_eq!(recording.take(), ["now", "claim", "complete", "settle"]);
    assert_eq!(released.count(), 2);
}

/// A call that ran before stores kept outcomes (its claim completed, and no
/// outcome column yet) reads as ran once the store is migrated: never as approved
/// and waiting for whoever polls, which `run_approved` would then refuse as used.
///
/// Its principal was a free string then (`user:7`): migrated, it reads as a
/// principal of the reserved legacy issuer, whose run key and signatures are
/// those the old build wrote, so the call is found, reads as ran and runs no
/// more; no principal made now (`local|user:7`) finds it.
pub(crate) async fn a_run_recorded_before_outcomes_were_kept_reads_as_ran(
    backend: Arc<dyn Backend>,
) {
    use toolkit::approval::{ApprovedRun, CallState};

    let clock = Clock::default();
    let released = Released::default();
    let ctx = context(&released, "call_old");
    // What the old build's rows read as once migrated; its run key is the one the
    // old build computed from the string `user:7`.
    let old = Principal::from_key("toolkit:legacy|user:7").expect("a legacy principal");
    {
        let approvals = approvals(backend.open(&clock).await, &clock, 0);
        let view = view_as(&approvals, old.clone());
        let pending = release(&view, &ctx).await;
        approvals
            .decide_as(
                toolkit::registry(),
                &pending,
                Decision::Approve,
                &p("admin:1"),
            )
            .await
            .expect("approved");
        assert!(
            approvals
                .run_approved(&view, &ctx, &pending)
                .await
                .is_success()
        );
        // Refusals kept in the audit: the requester's own answer, and a person
        // (the requester again, in an inbox).
        assert!(matches!(
            approvals
                .decide_by(
                    toolkit::registry(),
                    &pending,
                    Decision::Approve,
                    Decider::Requester
                )
                .await,
            Err(ApprovalError::NotAllowed { .. })
        ));
        assert!(matches!(
            approvals
                .decide_as(toolkit::registry(), &pending, Decision::Approve, &old)
                .await,
            Err(ApprovalError::NotAllowed { .. })
        ));
    }
    if !backend.forget_outcomes() {
        return;
    }
    let store = backend.open(&clock).await;
    let key = ApprovedRun::key_of(&old, "call_old");
    let run = store.run(&key).await.expect("reads").expect("claimed");
    assert!(run.done);
    assert_eq!(
        run.outcome,
        Some(RunOutcome::Ran {
            result: None,
            bytes: 0
        }),
        "ran, its result not kept"
    );
    let approvals = approvals(store, &clock, 0);
    assert_eq!(
        approvals
            .status(&p("user:7"), "call_old")
            .await
            .expect("reads"),
        None,
        "a principal made now is not the old row's"
    );
    let status = approvals
        .status(&old, "call_old")
        .await
        .expect("reads")
        .expect("stored");
    assert_eq!(status.state, CallState::Ran(None));
    assert_eq!(status.pending.principal, old);
    // Its deciders were free strings then (`admin:1`, `user:7`): they read as
    // principals of the legacy issuer, never as one a token or the application
    // makes now; the requester's own answer stays the requester's.
    let legacy = |name: &str| {
        DecidedBy::Person(Principal::from_key(&format!("toolkit:legacy|{name}")).expect("a key"))
    };
    let decisions = approvals
        .decisions(&DecisionQuery::new().principal(old.clone()))
        .await
        .expect("reads");
    assert_eq!(
        decisions
            .iter()
            .map(|record| &record.decided_by)
            .collect::<Vec<_>>(),
        [&legacy("admin:1")]
    );
    assert_ne!(decisions[0].decided_by, DecidedBy::Person(p("admin:1")));
    assert_eq!(decisions[0].decided_by.display_name(), "admin:1");
    let refusals = approvals
        .refusals(&DecisionQuery::new().principal(old.clone()))
        .await
        .expect("reads");
    assert_eq!(
        refusals
            .iter()
            .map(|record| &record.decided_by)
            .collect::<Vec<_>>(),
        [&legacy("user:7"), &DecidedBy::Requester],
        "newest first"
    );
    let view = view_as(&approvals, old.clone());
    let pending = status.pending;
    assert_eq!(
        approvals.run_approved(&view, &ctx, &pending).await,
        Response::Error(ToolError::AlreadyRan {
            outcome: "before its result was kept".to_owned()
        })
    );
    assert_eq!(released.count(), 1);
}

/// A list people read is paged and cut by the store's query: 100 waiting calls of
/// 1 MB of arguments each list as pages of 50, each call with the length and
/// first characters of its arguments, not the megabyte; a call with short
/// arguments comes whole; the cursor of a page's last call starts the next page,
/// until the last.
pub(crate) async fn pending_approvals_are_paged_and_long_arguments_cut_by_the_query(
    backend: Arc<dyn Backend>,
) {
    use toolkit::approval::{CUT_ARGUMENTS_START_CHARS, ListedPending, PendingCursor};

    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let now = store.now().await.expect("a clock");
    let megabyte = "é".repeat(500_000);
    let stored = |i: u64, text: &str| PendingApproval {
        call_id: format!("call_{i:03}"),
        principal: p("user:7"),
        view: None,
        tool: "delete_projects".to_owned(),
        arguments: json!({ "note": text, "id": i }),
        digest: "sha256:00".to_owned(),
        requested_at: now - 1000 + i,
        expires_at: now + 3600,
        signature: "00".to_owned(),
    };
    for i in 0..100 {
        assert_eq!(store.save_pending(&stored(i, &megabyte)).await, Ok(true));
    }
    assert_eq!(store.save_pending(&stored(100, "short")).await, Ok(true));

    let query = PendingQuery::new().limit(50);
    let first = store
        .list_pending_cut(&query, 16 * 1024)
        .await
        .expect("a page");
    assert_eq!(first.len(), 50);
    assert_eq!(
        first[0].pending,
        stored(100, "short"),
        "newest first, whole"
    );
    assert_eq!(first[0].cut, None);
    let whole_text = json!({ "note": megabyte, "id": 99 }).to_string();
    let cut = first[1].cut.as_ref().expect("cut");
    assert_eq!(cut.bytes, whole_text.len());
    assert_eq!(
        cut.start,
        whole_text
            .chars()
            .take(CUT_ARGUMENTS_START_CHARS)
            .collect::<String>()
    );
    assert_eq!(first[1].pending.arguments, Value::Null);
    assert_eq!(first[1].pending.call_id, "call_099");
    let weight: usize = first
        .iter()
        .map(|listed| {
            listed.pending.arguments.to_string().len()
                + listed.cut.as_ref().map_or(0, |cut| cut.start.len())
        })
        .sum();
    assert!(weight < 100_000, "the page weighs {weight} bytes");

    let ids = |page: &[ListedPending]| -> Vec<String> {
        page.iter()
            .map(|listed| listed.pending.call_id.clone())
            .collect()
    };
    let second = store
        .list_pending_cut(
            &query.clone().before(PendingCursor::of(&first[49].pending)),
            16 * 1024,
        )
        .await
        .expect("a page");
    assert_eq!(
        ids(&second),
        (1..=50)
            .rev()
            .map(|i| format!("call_{i:03}"))
            .collect::<Vec<_>>()
    );
    let third = store
        .list_pending_cut(
            &query.before(PendingCursor::of(&second[49].pending)),
            16 * 1024,
        )
        .await
        .expect("a page");
    assert_eq!(ids(&third), ["call_000"]);
    // The same cursor pages the whole list too.
    let whole = store
        .list_pending(
            &PendingQuery::new()
                .limit(3)
                .before(PendingCursor::of(&first[0].pending)),
        )
        .await
        .expect("lists");
    assert_eq!(whole.len(), 3);
    assert_eq!(whole[0], stored(99, &megabyte));
}

/// What a task's tool saw: [`ApprovedRun::current`](toolkit::approval::ApprovedRun::current)
/// in each run, and whether a run's future was dropped before it answered.
#[derive(Clone, Default)]
struct TaskRuns {
    seen: Arc<std::sync::Mutex<Vec<Option<toolkit::approval::ApprovedRun>>>>,
    dropped: Arc<AtomicUsize>,
}

impl TaskRuns {
    /// A tool's call that records its run, then answers `answer`, or never
    /// answers when `answer` is `None` (until its future is dropped).
    fn call(&self, answer: Option<Response>) -> impl Future<Output = Response> + use<> {
        let runs = self.clone();
        async move {
            runs.seen
                .lock()
                .expect("not poisoned")
                .push(toolkit::approval::ApprovedRun::current());
            let guard = DropCount(runs.dropped.clone());
            let answer = match answer {
                Some(answer) => answer,
                None => std::future::pending().await,
            };
            std::mem::forget(guard);
            answer
        }
    }

    fn attempts(&self) -> Vec<u32> {
        self.seen
            .lock()
            .expect("not poisoned")
            .iter()
            .map(|run| run.as_ref().map_or(0, |run| run.attempt))
            .collect()
    }
}

/// Counts a future dropped before it answered.
struct DropCount(Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Waits until the tool of `runs` started `count` runs (a few seconds at most,
/// on the real clock).
async fn until_started(runs: &TaskRuns, count: usize) {
    for _ in 0..500 {
        if runs.attempts().len() >= count {
            return;
        }
        futures_timer::Delay::new(Duration::from_millis(20)).await;
    }
    panic!("the tool never started {count} runs");
}

/// A task is stored signed before its id is handed out, read the same by any
/// replica (another open of the store), owned by its principal (another
/// principal, or an id that is none of ours, finds nothing and asks nothing),
/// run once whoever tries to run it again, its outcome kept until its TTL on
/// the store's clock; a cancellation after the outcome changes nothing.
pub(crate) async fn a_task_is_kept_run_once_and_read_on_any_replica(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let on_a = approvals(backend.open(&clock).await, &clock, 0).task_ttl(Duration::from_hours(1));
    let on_b = approvals(backend.open(&clock).await, &clock, 0).task_ttl(Duration::from_hours(1));
    let now = clock.reader()();
    let record = on_a
        .create_task(
            &p("agent:7"),
            Some("internal"),
            "get_reports",
            r#"{"month": "2026-11"}"#,
        )
        .await
        .expect("created");
    assert_eq!(record.id.len(), 37, "{}", record.id);
    assert!(record.id.starts_with("task_"), "{}", record.id);
    assert!((now..=now + 5).contains(&record.created_at), "{record:?}");
    assert_eq!(record.expires_at, record.created_at + 3600);
    assert_eq!(
        (
            record.principal.key(),
            record.view.as_deref(),
            record.tool.as_str()
        ),
        (p("agent:7").key(), Some("internal"), "get_reports")
    );
    assert_eq!(record.arguments, json!({"month": "2026-11"}));
    let other = on_a
        .create_task(&p("agent:7"), None, "get_reports", "")
        .await
        .expect("created");
    assert_ne!(other.id, record.id, "every task has an id of its own");
    assert_eq!(other.arguments, json!({}));

    let seen = on_b
        .task(&p("agent:7"), &record.id)
        .await
        .expect("readable")
        .expect("kept");
    assert_eq!(seen.record, record);
    // Its first attempt is claimed for the replica that made it.
    assert_eq!(
        seen.state,
        TaskState::Running {
            attempt: 1,
            cancelling: false
        }
    );
    for (principal, id) in [
        (&p("agent:8"), record.id.clone()),
        (
            &p("agent:7"),
            "task_00000000000000000000000000000000".to_owned(),
        ),
        (&p("agent:7"), String::new()),
        (&p("agent:7"), "task_\u{0}".to_owned()),
        (&p("agent:7"), "x".repeat(100_000)),
    ] {
        assert_eq!(
            on_b.task(principal, &id).await,
            Ok(None),
            "{principal} {id:.40}"
        );
        assert_eq!(on_b.cancel_task(principal, &id).await, Ok(false));
    }
    // Too large to keep, refused before anything is stored.
    let large = format!(r#"{{"text": "{}"}}"#, "a".repeat(MAX_TASK_ARGUMENTS));
    assert!(matches!(
        on_a.create_task(&p("agent:7"), None, "get_reports", &large).await,
        Err(TaskError::TooLarge(bytes)) if bytes == large.len()
    ));
    assert!(matches!(
        on_a.create_task(&p("agent:7"), None, "get_reports", "{")
            .await,
        Err(TaskError::Arguments(ToolError::MalformedJson { .. }))
    ));

    let runs = TaskRuns::default();
    // Held by its maker: another replica does not run it.
    assert_eq!(
        on_b.run_task(&seen.record, || runs.call(Some(Response::Result(json!(0)))))
            .await,
        None
    );
    let outcome = on_a
        .run_created_task(&seen.record, || {
            runs.call(Some(Response::Result(json!({"total": 42}))))
        })
        .await;
    let ran = RunOutcome::Ran {
        result: Some(json!({"total": 42})),
        bytes: 12,
    };
    assert_eq!(outcome, Some(ran.clone()));
    let done = on_a
        .task(&p("agent:7"), &record.id)
        .await
        .expect("readable")
        .expect("kept");
    assert_eq!(done.state, TaskState::Done(ran.clone()));
    // Nobody runs it again: not A, not B, not after a cancellation.
    assert_eq!(
        on_a.run_task(&record, || runs.call(Some(Response::Result(json!(0)))))
            .await,
        None
    );
    assert_eq!(on_a.cancel_task(&p("agent:7"), &record.id).await, Ok(false));
    assert_eq!(
        on_b.run_task(&record, || runs.call(Some(Response::Result(json!(0)))))
            .await,
        None
    );
    assert_eq!(runs.attempts(), [1]);
    assert_eq!(
        on_b.task(&p("agent:7"), &record.id)
            .await
            .expect("readable")
            .map(|task| task.state),
        Some(TaskState::Done(ran))
    );
    // A tool's error is its outcome too: the task is done, not run again.
    let failing = on_a
        .create_task(&p("agent:7"), None, "get_reports", "{}")
        .await
        .expect("created");
    let error = Response::Error(ToolError::failed("the ledger is down"));
    assert_eq!(
        on_a.run_created_task(&failing, || runs.call(Some(error.clone())))
            .await,
        Some(RunOutcome::of(&error))
    );
    assert_eq!(
        on_a.run_created_task(&failing, || runs.call(Some(error.clone())))
            .await,
        None,
        "its maker does not run it twice either"
    );
    assert_eq!(
        on_b.run_task(&failing, || runs.call(Some(error.clone())))
            .await,
        None
    );
    // Kept until its TTL on the store's clock, then unknown.
    clock.advance(3601);
    assert_eq!(on_a.task(&p("agent:7"), &record.id).await, Ok(None));
    assert_eq!(
        on_a.run_task(&other, || runs.call(None)).await,
        None,
        "expired: never run"
    );
    assert_eq!(runs.attempts(), [1, 1]);
}

/// A run whose replica died (its future dropped mid-run, its lease no longer
/// renewed) is taken over after its lease by whichever replica runs it next, as
/// attempt 2, with the same idempotency key; a cancellation recorded on one
/// replica stops the run on another within a second (the tool's future is
/// dropped) and the task ends cancelled; a task cancelled before any run never
/// runs.
pub(crate) async fn a_task_is_taken_over_after_its_lease_and_cancelled_across_replicas(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let on_a = approvals(backend.open(&clock).await, &clock, 0).run_lease(Duration::from_secs(30));
    let on_b = approvals(backend.open(&clock).await, &clock, 0).run_lease(Duration::from_secs(30));
    let runs = TaskRuns::default();
    let record = on_a
        .create_task(&p("agent:7"), None, "get_reports", "{}")
        .await
        .expect("created");
    {
        let running = Box::pin(on_a.run_created_task(&record, || runs.call(None)));
        let started = Box::pin(until_started(&runs, 1));
        match futures_util::future::select(running, started).await {
            futures_util::future::Either::Right(((), _)) => assert_eq!(
                on_b.task(&p("agent:7"), &record.id)
                    .await
                    .expect("readable")
                    .map(|task| task.state),
                Some(TaskState::Running {
                    attempt: 1,
                    cancelling: false
                })
            ),
            futures_util::future::Either::Left((outcome, _)) => {
                panic!("a hanging tool answered: {outcome:?}")
            }
        }
    }
    assert_eq!(
        runs.dropped.load(Ordering::SeqCst),
        1,
        "the run died mid-call"
    );
    // Within its lease nobody else runs it.
    assert_eq!(
        on_b.run_task(&record, || runs.call(Some(Response::Result(json!(1)))))
            .await,
        None
    );
    clock.advance(31);
    assert_eq!(
        on_b.task(&p("agent:7"), &record.id)
            .await
            .expect("readable")
            .map(|task| task.state),
        Some(TaskState::Unclaimed { attempts: 1 })
    );
    assert_eq!(
        on_b.run_task(&record, || runs.call(Some(Response::Result(json!(2)))))
            .await,
        Some(RunOutcome::of(&Response::Result(json!(2))))
    );
    assert_eq!(runs.attempts(), [1, 2]);
    let seen = runs.seen.lock().expect("not poisoned").clone();
    assert_eq!(
        seen[0].as_ref().map(|run| &run.key),
        seen[1].as_ref().map(|run| &run.key),
        "one idempotency key for every attempt"
    );

    // Cancelled on B while it runs on A.
    let cancelled = RunOutcome::Failed {
        kind: CANCELLED.to_owned(),
        message: "the task was cancelled".to_owned(),
    };
    let long = on_a
        .create_task(&p("agent:7"), None, "get_reports", "{}")
        .await
        .expect("created");
    let running = Box::pin(on_a.run_created_task(&long, || runs.call(None)));
    let cancel = Box::pin(async {
        until_started(&runs, 3).await;
        assert_eq!(on_b.cancel_task(&p("agent:7"), &long.id).await, Ok(true));
        assert!(matches!(
            on_b.task(&p("agent:7"), &long.id)
                .await
                .expect("readable")
                .map(|task| task.state),
            Some(
                TaskState::Running {
                    cancelling: true,
                    ..
                } | TaskState::Cancelled
            )
        ));
    });
    let (outcome, ()) = futures_util::future::join(running, cancel).await;
    assert_eq!(outcome, Some(cancelled.clone()));
    assert_eq!(
        runs.dropped.load(Ordering::SeqCst),
        2,
        "the tool's future was dropped"
    );
    assert_eq!(
        on_a.task(&p("agent:7"), &long.id)
            .await
            .expect("readable")
            .map(|task| task.state),
        Some(TaskState::Cancelled)
    );
    assert_eq!(on_b.run_task(&long, || runs.call(None)).await, None);

    // Cancelled before any run: the next run finds it and runs nothing.
    let early = on_a
        .create_task(&p("agent:7"), None, "get_reports", "{}")
        .await
        .expect("created");
    assert_eq!(on_b.cancel_task(&p("agent:7"), &early.id).await, Ok(true));
    assert_eq!(
        on_a.task(&p("agent:7"), &early.id)
            .await
            .expect("readable")
            .map(|task| task.state),
        Some(TaskState::Running {
            attempt: 1,
            cancelling: true
        }),
        "its maker holds it, and finds the cancellation when it starts"
    );
    assert_eq!(
        on_a.run_created_task(&early, || runs.call(None)).await,
        Some(cancelled)
    );
    assert_eq!(
        on_b.task(&p("agent:7"), &early.id)
            .await
            .expect("readable")
            .map(|task| task.state),
        Some(TaskState::Cancelled)
    );
    assert_eq!(
        runs.attempts(),
        [1, 2, 1],
        "the cancelled task's tool never ran"
    );
}

/// Sum a month's reports: a task's tool, run in the background.
#[tool(scope = shared, tier = auto)]
async fn get_reports(
    #[ctx] runs: State<TaskRuns>,
    /// The month, as `YYYY-MM`.
    month: String,
) -> Value {
    runs.0
        .seen
        .lock()
        .expect("not poisoned")
        .push(toolkit::approval::ApprovedRun::current());
    json!({ "month": month, "total": 42 })
}

/// The runner's `run_as`: the view and context `task`'s principal has now.
fn task_view<'a>(
    approvals: &'a Approvals,
    runs: &TaskRuns,
) -> impl FnMut(&toolkit::approval::TaskRecord) -> Result<(View<'a>, Context), String> {
    let runs = runs.clone();
    move |task| {
        if task.principal == p("agent:gone") {
            return Err("the account was closed".to_owned());
        }
        Ok((
            view_as(approvals, task.principal.clone()),
            Context::new().with(runs.clone()),
        ))
    }
}

/// Tasks whose replica died (before its run started, or mid-run) are run by the
/// runner's pass on other replicas once their lease lapsed, without anyone
/// polling them, once each whichever replicas pass at once, the tool told it is
/// attempt 2 (with the task's key); a task cancelled meanwhile ends cancelled
/// unrun, one the principal may no longer run ends with the refusal unrun, and
/// a run whose request is gone is kept as lost. Nothing is run before the lease
/// lapses, and nothing again after.
pub(crate) async fn the_task_runner_completes_what_a_dead_replica_left_once(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let store_a = backend.open(&clock).await;
    let on = |store| approvals(store, &clock, 0).run_lease(Duration::from_secs(30));
    let on_a = on(store_a.clone());
    let on_b = on(backend.open(&clock).await);
    let on_c = on(backend.open(&clock).await);
    let runs = TaskRuns::default();
    let agent = p("agent:7");
    // Replica A makes a task and dies before its run starts...
    let unstarted = on_a
        .create_task(&agent, None, "get_reports", r#"{"month": "2026-10"}"#)
        .await
        .expect("created");
    // ... and another one mid-run (the tool's future dropped, its lease no
    // longer renewed).
    let midway = on_a
        .create_task(&agent, None, "get_reports", r#"{"month": "2026-11"}"#)
        .await
        .expect("created");
    {
        let hanging = TaskRuns::default();
        let running = Box::pin(on_a.run_created_task(&midway, || hanging.call(None)));
        let started = Box::pin(until_started(&hanging, 1));
        assert!(matches!(
            futures_util::future::select(running, started).await,
            futures_util::future::Either::Right(_)
        ));
        assert_eq!(hanging.attempts(), [1]);
    }
    let cancelled = on_a
        .create_task(&agent, None, "get_reports", r#"{"month": "2026-09"}"#)
        .await
        .expect("created");
    assert_eq!(on_b.cancel_task(&agent, &cancelled.id).await, Ok(true));
    let foreign_tool = on_a
        .create_task(&agent, None, "get_payroll", "{}")
        .await
        .expect("created");
    let closed = on_a
        .create_task(
            &p("agent:gone"),
            None,
            "get_reports",
            r#"{"month": "2026-08"}"#,
        )
        .await
        .expect("created");
    // A run whose request the store lost: nothing to run.
    let lost_key = "task:0000000000000000000000000000000000000000000000000000000000000000:run";
    let now = store_a.now().await.expect("a clock");
    assert!(matches!(
        store_a.claim(lost_key, now + 30, now + 3600).await,
        Ok(Claim::Won { attempt: 1 })
    ));

    // Within the lease: nothing to take over.
    assert_eq!(
        on_b.run_tasks(task_view(&on_b, &runs)).await,
        Ok(toolkit::approval::TaskPass::default())
    );
    assert_eq!(runs.attempts(), Vec::<u32>::new());

    clock.advance(31);
    let (pass_of_b, pass_of_c) = futures_util::future::join(
        on_b.run_tasks(task_view(&on_b, &runs)),
        on_c.run_tasks(task_view(&on_c, &runs)),
    )
    .await;
    let (pass_of_b, pass_of_c) = (pass_of_b.expect("a pass"), pass_of_c.expect("a pass"));
    assert_eq!(
        (
            pass_of_b.ran + pass_of_c.ran,
            pass_of_b.cancelled + pass_of_c.cancelled,
            pass_of_b.refused + pass_of_c.refused,
        ),
        (2, 1, 2),
        "{pass_of_b:?} {pass_of_c:?}"
    );
    assert_eq!(
        runs.attempts(),
        [2, 2],
        "each left task ran once, as attempt 2"
    );
    let seen = runs.seen.lock().expect("not poisoned").clone();
    let mut keys: Vec<String> = seen.into_iter().flatten().map(|run| run.key).collect();
    keys.sort();
    let mut expected = vec![
        toolkit::approval::ApprovedRun::key_of(&agent, &unstarted.id),
        toolkit::approval::ApprovedRun::key_of(&agent, &midway.id),
    ];
    expected.sort();
    assert_eq!(keys, expected, "the task's key, the same for every attempt");

    let state = |id: &str, principal: Principal| {
        let on_a = &on_a;
        let id = id.to_owned();
        async move {
            on_a.task(&principal, &id)
                .await
                .expect("readable")
                .map(|task| task.state)
        }
    };
    for (task, month) in [(&unstarted, "2026-10"), (&midway, "2026-11")] {
        let result = json!({"month": month, "total": 42});
        assert_eq!(
            state(&task.id, agent.clone()).await,
            Some(TaskState::Done(RunOutcome::Ran {
                bytes: result.to_string().len(),
                result: Some(result),
            }))
        );
    }
    assert_eq!(
        state(&cancelled.id, agent.clone()).await,
        Some(TaskState::Cancelled)
    );
    let refused = |principal: &Principal, why: &str| {
        TaskState::Done(RunOutcome::of(&Response::Error(
            ToolError::ApprovalRejected {
                reason: format!("it may no longer run for {principal}: {why}"),
            },
        )))
    };
    assert_eq!(
        state(&foreign_tool.id, agent.clone()).await,
        Some(refused(
            &agent,
            &view_as(&on_a, agent.clone())
                .unknown_tool("get_payroll")
                .to_string()
        ))
    );
    assert_eq!(
        state(&closed.id, p("agent:gone")).await,
        Some(refused(&p("agent:gone"), "the account was closed"))
    );
    let lost = store_a
        .run(lost_key)
        .await
        .expect("readable")
        .expect("kept");
    assert_eq!(
        (lost.done, lost.outcome),
        (
            true,
            Some(RunOutcome::Failed {
                kind: toolkit::approval::LOST.to_owned(),
                message: "the task's stored request is missing or unreadable; it was not run"
                    .to_owned(),
            })
        )
    );

    // Nothing is left: later passes, on any replica, run nothing again.
    clock.advance(31);
    for replica in [&on_a, &on_b, &on_c] {
        assert_eq!(
            replica.run_tasks(task_view(replica, &runs)).await,
            Ok(toolkit::approval::TaskPass::default())
        );
    }
    assert_eq!(runs.attempts(), [2, 2]);
}

/// Delete a backup; asks its client first, and never hears back here.
#[tool(scope = shared, tier = approve)]
async fn delete_backups(
    #[ctx] runs: State<Runs>,
    /// The backup.
    name: String,
) -> Result<Value, ToolError> {
    runs.0
        .0
        .lock()
        .expect("not poisoned")
        .push(toolkit::approval::ApprovedRun::current());
    let _ = name;
    Err(ToolError::AwaitingInput {
        key: "confirm".to_owned(),
    })
}

/// An approved call whose tool stopped for its client's answer (an MCP
/// input-required round) is left to its requester's next round: no runner
/// pass, on any replica, runs it again meanwhile; the requester's next
/// presentation does, as the next attempt.
pub(crate) async fn a_run_that_awaits_its_clients_answer_is_left_to_its_requester(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let approvals: &'static Approvals =
        Box::leak(Box::new(approvals(backend.open(&clock).await, &clock, 0)));
    let other_replica: &'static Approvals = Box::leak(Box::new(self::approvals(
        backend.open(&clock).await,
        &clock,
        0,
    )));
    let view = view(approvals, "user:7");
    let runs = Runs::default();
    let ctx = Context::new()
        .with(runs.clone())
        .with(CallId::new("call_backups"));
    let pending = pending(&view, &ctx, "delete_backups", r#"{"name": "q3"}"#).await;
    let approval = approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    let awaiting = Response::Error(ToolError::AwaitingInput {
        key: "confirm".to_owned(),
    });
    assert_eq!(view.resume(&approval, &ctx).await, awaiting);
    let run_as = |replica: &'static Approvals| {
        let runs = runs.clone();
        move |pending: &PendingApproval| {
            Ok((
                view_as(replica, pending.principal.clone()),
                Context::new().with(runs.clone()),
            ))
        }
    };
    // Past the grace and the run's lease, within the approval's life.
    clock.advance(61);
    for replica in [approvals, other_replica] {
        let pass = replica
            .run_decided(Duration::from_mins(1), run_as(replica))
            .await
            .expect("a pass");
        assert_eq!((pass.waiting, pass.ran, pass.failed), (1, 0, 0), "{pass:?}");
    }
    let attempts = |runs: &Runs| -> Vec<u32> {
        runs.seen()
            .iter()
            .map(|run| run.as_ref().map_or(0, |run| run.attempt))
            .collect()
    };
    assert_eq!(attempts(&runs), [1], "no runner ran it");
    assert_eq!(view.resume(&approval, &ctx).await, awaiting);
    assert_eq!(attempts(&runs), [1, 2], "its requester's next round did");
}

/// A store that fails as a task's gathered answer is written (its claim), and
/// as a run is completed: a database that went away half-way through making a
/// task. The keys of the runs it was asked to claim are kept.
struct FailingAnswers {
    store: Arc<dyn ApprovalStore>,
    runs: std::sync::Mutex<Vec<String>>,
}

impl FailingAnswers {
    fn down<'a, T: Send + 'a>() -> StoreFuture<'a, T> {
        Box::pin(std::future::ready(Err(toolkit::approval::StoreError::new(
            "PostgreSQL: connection reset by peer",
        ))))
    }
}

impl ApprovalStore for FailingAnswers {
    fn now(&self) -> StoreFuture<'_, u64> {
        self.store.now()
    }
    fn save_pending<'a>(&'a self, pending: &'a PendingApproval) -> StoreFuture<'a, bool> {
        self.store.save_pending(pending)
    }
    fn list_pending<'a>(
        &'a self,
        query: &'a PendingQuery,
    ) -> StoreFuture<'a, Vec<PendingApproval>> {
        self.store.list_pending(query)
    }
    fn pending<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<PendingApproval>> {
        self.store.pending(principal, call_id)
    }
    fn record_decision<'a>(
        &'a self,
        record: &'a DecisionRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, DecisionOutcome> {
        self.store.record_decision(record, keep_until)
    }
    fn decision<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<DecisionRecord>> {
        self.store.decision(principal, call_id)
    }
    fn decisions<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<DecisionRecord>> {
        self.store.decisions(query)
    }
    fn claim<'a>(
        &'a self,
        key: &'a str,
        lease_until: u64,
        keep_until: u64,
    ) -> StoreFuture<'a, Claim> {
        if key.contains(":answer:") {
            return Self::down();
        }
        if key.ends_with(":run") {
            self.runs.lock().expect("not poisoned").push(key.to_owned());
        }
        self.store.claim(key, lease_until, keep_until)
    }
    fn complete<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        if key.ends_with(":run") {
            return Self::down();
        }
        self.store.complete(key, attempt, outcome)
    }
    fn release<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        self.store.release(key, attempt, outcome)
    }
    fn renew<'a>(&'a self, key: &'a str, attempt: u32, lease_until: u64) -> StoreFuture<'a, bool> {
        self.store.renew(key, attempt, lease_until)
    }
    fn run<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<RunRecord>> {
        self.store.run(key)
    }
    fn lapsed_claims<'a>(&'a self, prefix: &'a str, limit: usize) -> StoreFuture<'a, Vec<String>> {
        self.store.lapsed_claims(prefix, limit)
    }
    fn approved_unsettled(
        &self,
        decided_after: u64,
        decided_before: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<(PendingApproval, DecisionRecord)>> {
        self.store
            .approved_unsettled(decided_after, decided_before, limit)
    }
    fn settle<'a>(&'a self, principal: &'a Principal, call_id: &'a str) -> StoreFuture<'a, bool> {
        self.store.settle(principal, call_id)
    }
    fn record_refusal<'a>(
        &'a self,
        refusal: &'a RefusalRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, ()> {
        self.store.record_refusal(refusal, keep_until)
    }
    fn refusals<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<RefusalRecord>> {
        self.store.refusals(query)
    }
    fn purge(&self) -> StoreFuture<'_, u64> {
        self.store.purge()
    }
}

/// A task made with the answers its call gathered before it became one
/// (`#[tool(asks_first)]`) keeps them as its answered questions; when the
/// store fails as it keeps them, the task is not made: the caller gets the
/// store's error, no replica finds it, and no runner ever runs it, even when
/// the store refuses to end its run too (its lease lapses, and the pass keeps
/// it as lost).
pub(crate) async fn a_task_is_made_with_its_gathered_answers_or_not_at_all(
    backend: Arc<dyn Backend>,
) {
    use toolkit::approval::TaskRequest;
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    let on = approvals(store.clone(), &clock, 0).run_lease(Duration::from_secs(30));
    let agent = p("agent:7");
    let asked = json!({"method": "elicitation/create", "params": {"message": "Which month?"}});
    let answer = json!({"action": "accept", "content": {"month": "2026-10"}});
    let gathered = [TaskRequest::answered(
        "month",
        asked.clone(),
        answer.clone(),
    )];
    let made = on
        .create_task_answered(
            &agent,
            None,
            "get_reports",
            r#"{"month": "2026-10"}"#,
            &gathered,
        )
        .await
        .expect("created");
    let kept: Vec<(String, Value, Option<Value>)> = on
        .task_requests(&agent, &made.id)
        .await
        .expect("readable")
        .into_iter()
        .map(|request| (request.key, request.request, request.answer))
        .collect();
    assert_eq!(kept, [("month".to_owned(), asked, Some(answer))]);

    let failing = Arc::new(FailingAnswers {
        store: store.clone(),
        runs: std::sync::Mutex::default(),
    });
    let on_failing = approvals(failing.clone(), &clock, 0).run_lease(Duration::from_secs(30));
    let refused = on_failing
        .create_task_answered(
            &agent,
            None,
            "get_reports",
            r#"{"month": "2026-10"}"#,
            &gathered,
        )
        .await;
    let Err(TaskError::Approval(ApprovalError::Store(error))) = refused else {
        panic!("the store's error: {refused:?}");
    };
    assert_eq!(error.to_string(), "PostgreSQL: connection reset by peer");
    let run_key = failing.runs.lock().expect("not poisoned").concat();
    let request_key = format!("{}:request", run_key.strip_suffix(":run").expect("a run"));
    assert_eq!(
        store.run(&request_key).await.expect("readable"),
        None,
        "the task was never made"
    );

    let runs = TaskRuns::default();
    clock.advance(31);
    let pass = on.run_tasks(task_view(&on, &runs)).await.expect("a pass");
    assert_eq!((pass.ran, pass.skipped), (1, 1), "{pass:?}");
    assert_eq!(runs.attempts(), [2], "only the task that was made ran");
    let unmade = store.run(&run_key).await.expect("readable").expect("kept");
    assert_eq!(
        (unmade.done, unmade.outcome),
        (
            true,
            Some(RunOutcome::Failed {
                kind: toolkit::approval::LOST.to_owned(),
                message: "the task's stored request is missing or unreadable; it was not run"
                    .to_owned(),
            })
        )
    );
    clock.advance(31);
    assert_eq!(
        on.run_tasks(task_view(&on, &runs)).await,
        Ok(toolkit::approval::TaskPass::default())
    );
    assert_eq!(runs.attempts(), [2]);
}

/// A task's progress is kept in the store as its latest report, read on any
/// replica while it runs: at most one report a second (one that reaches its
/// total always), its message cut to 512 characters; a later run's reports
/// replace an earlier run's, which no longer write; once the task is over, no
/// progress is shown.
pub(crate) async fn a_tasks_progress_is_kept_latest_and_bounded(backend: Arc<dyn Backend>) {
    use toolkit::call::ProgressUpdate;
    let clock = Clock::default();
    let on_a = approvals(backend.open(&clock).await, &clock, 0);
    let on_b = approvals(backend.open(&clock).await, &clock, 0);
    let agent = p("agent:7");
    let record = on_a
        .create_task(&agent, None, "get_reports", "{}")
        .await
        .expect("created");
    let progress_on_b = || async {
        on_b.task(&agent, &record.id)
            .await
            .expect("readable")
            .expect("kept")
            .progress
    };
    assert_eq!(progress_on_b().await, None, "nothing reported yet");
    let update = |progress: f64, message: &str| ProgressUpdate {
        progress,
        total: Some(10.0),
        message: Some(message.to_owned()),
    };
    let first = on_a.task_progress(&record);
    first.report(1.0, Some(10.0), Some("one")).await;
    assert_eq!(progress_on_b().await, Some(update(1.0, "one")));
    first.report(2.0, Some(10.0), Some("two")).await;
    assert_eq!(
        progress_on_b().await,
        Some(update(1.0, "one")),
        "within a second of the last: dropped"
    );
    let long = "é".repeat(2000);
    first.report(10.0, Some(10.0), Some(&long)).await;
    assert_eq!(
        progress_on_b().await,
        Some(update(
            10.0,
            &"é".repeat(toolkit::approval::MAX_PROGRESS_MESSAGE)
        )),
        "its total reached: kept, its message cut"
    );
    // A later run (a takeover) reports: its reports win, the first's are fenced.
    let second = on_b.task_progress(&record);
    second.report(3.0, Some(10.0), Some("again")).await;
    first.report(10.0, Some(10.0), Some("late")).await;
    assert_eq!(progress_on_b().await, Some(update(3.0, "again")));
    // Over: no progress shown.
    let runs = TaskRuns::default();
    assert!(
        on_a.run_created_task(&record, || runs.call(Some(Response::Result(json!(1)))))
            .await
            .is_some()
    );
    assert_eq!(progress_on_b().await, None);
}

/// One `#[test]` per contract test, each run by `$run` (a `fn(Test)`).
macro_rules! contract_tests {
    ($run:ident) => {
        #[test]
        fn decided_twice_runs_once_for_its_whole_life() {
            $run(|backend| Box::pin(suite::decided_twice_runs_once_for_its_whole_life(backend)));
        }

        #[test]
        fn records_are_kept_until_nothing_signed_can_reach_them() {
            $run(|backend| {
                Box::pin(suite::records_are_kept_until_nothing_signed_can_reach_them(
                    backend,
                ))
            });
        }

        #[test]
        fn concurrent_claims_and_decisions_have_one_winner() {
            $run(|backend| {
                Box::pin(suite::concurrent_claims_and_decisions_have_one_winner(
                    backend,
                ))
            });
        }

        #[test]
        fn pending_approvals_are_listed_by_principal_tool_and_age() {
            $run(|backend| {
                Box::pin(suite::pending_approvals_are_listed_by_principal_tool_and_age(backend))
            });
        }

        #[test]
        fn the_store_clock_decides_expiry() {
            $run(|backend| Box::pin(suite::the_store_clock_decides_expiry(backend)));
        }

        #[test]
        fn rotated_keys_still_verify_what_the_previous_key_signed() {
            $run(|backend| {
                Box::pin(suite::rotated_keys_still_verify_what_the_previous_key_signed(backend))
            });
        }

        #[test]
        fn a_run_that_died_runs_again_after_its_lease_and_a_completed_one_never() {
            $run(|backend| {
                Box::pin(
                    suite::a_run_that_died_runs_again_after_its_lease_and_a_completed_one_never(
                        backend,
                    ),
                )
            });
        }

        #[test]
        fn a_run_that_hangs_and_is_dropped_runs_again_after_its_lease() {
            $run(|backend| {
                Box::pin(suite::a_run_that_hangs_and_is_dropped_runs_again_after_its_lease(backend))
            });
        }

        #[test]
        fn an_attempt_that_lost_its_claim_ends_nothing() {
            $run(|backend| Box::pin(suite::an_attempt_that_lost_its_claim_ends_nothing(backend)));
        }

        #[test]
        fn a_superseded_attempt_is_told_so_and_never_ran_twice() {
            $run(|backend| {
                Box::pin(suite::a_superseded_attempt_is_told_so_and_never_ran_twice(
                    backend,
                ))
            });
        }

        #[test]
        fn a_cap_on_waiting_approvals_holds_under_concurrent_requests() {
            $run(|backend| {
                Box::pin(suite::a_cap_on_waiting_approvals_holds_under_concurrent_requests(backend))
            });
        }

        #[test]
        fn a_live_run_renews_its_lease() {
            $run(|backend| Box::pin(suite::a_live_run_renews_its_lease(backend)));
        }

        #[test]
        fn the_runner_runs_what_was_approved_once_with_nobody_waiting() {
            $run(|backend| {
                Box::pin(suite::the_runner_runs_what_was_approved_once_with_nobody_waiting(backend))
            });
        }

        #[test]
        fn the_policy_decides_who_may_decide() {
            $run(|backend| Box::pin(suite::the_policy_decides_who_may_decide(backend)));
        }

        #[test]
        fn a_requesters_no_is_recorded_and_binds_every_door_and_the_runner() {
            $run(|backend| {
                Box::pin(
                    suite::a_requesters_no_is_recorded_and_binds_every_door_and_the_runner(backend),
                )
            });
        }

        #[test]
        fn edited_arguments_are_kept_with_the_decision() {
            $run(|backend| Box::pin(suite::edited_arguments_are_kept_with_the_decision(backend)));
        }

        #[test]
        fn a_call_tells_where_it_is_from_the_store_on_any_replica() {
            $run(|backend| {
                Box::pin(suite::a_call_tells_where_it_is_from_the_store_on_any_replica(backend))
            });
        }

        #[test]
        fn a_failing_call_is_retried_until_its_approval_ends_then_failed() {
            $run(|backend| {
                Box::pin(
                    suite::a_failing_call_is_retried_until_its_approval_ends_then_failed(backend),
                )
            });
        }

        #[test]
        fn one_run_reads_the_store_clock_once() {
            $run(|backend| Box::pin(suite::one_run_reads_the_store_clock_once(backend)));
        }

        #[test]
        fn a_run_recorded_before_outcomes_were_kept_reads_as_ran() {
            $run(|backend| {
                Box::pin(suite::a_run_recorded_before_outcomes_were_kept_reads_as_ran(backend))
            });
        }

        #[test]
        fn a_failing_tool_is_tried_again_after_a_growing_back_off() {
            $run(|backend| {
                Box::pin(suite::a_failing_tool_is_tried_again_after_a_growing_back_off(backend))
            });
        }

        #[test]
        fn pending_approvals_are_paged_and_long_arguments_cut_by_the_query() {
            $run(|backend| {
                Box::pin(
                    suite::pending_approvals_are_paged_and_long_arguments_cut_by_the_query(backend),
                )
            });
        }

        #[test]
        fn a_task_is_kept_run_once_and_read_on_any_replica() {
            $run(|backend| {
                Box::pin(suite::a_task_is_kept_run_once_and_read_on_any_replica(
                    backend,
                ))
            });
        }

        #[test]
        fn a_task_is_taken_over_after_its_lease_and_cancelled_across_replicas() {
            $run(|backend| {
                Box::pin(
                    suite::a_task_is_taken_over_after_its_lease_and_cancelled_across_replicas(
                        backend,
                    ),
                )
            });
        }

        #[test]
        fn the_task_runner_completes_what_a_dead_replica_left_once() {
            $run(|backend| {
                Box::pin(suite::the_task_runner_completes_what_a_dead_replica_left_once(backend))
            });
        }

        #[test]
        fn a_run_that_awaits_its_clients_answer_is_left_to_its_requester() {
            $run(|backend| {
                Box::pin(
                    suite::a_run_that_awaits_its_clients_answer_is_left_to_its_requester(backend),
                )
            });
        }

        #[test]
        fn a_task_is_made_with_its_gathered_answers_or_not_at_all() {
            $run(|backend| {
                Box::pin(suite::a_task_is_made_with_its_gathered_answers_or_not_at_all(backend))
            });
        }

        #[test]
        fn a_tasks_progress_is_kept_latest_and_bounded() {
            $run(|backend| Box::pin(suite::a_tasks_progress_is_kept_latest_and_bounded(backend)));
        }

        #[test]
        fn short_keys_are_refused() {
            $run(|backend| Box::pin(suite::short_keys_are_refused(backend)));
        }
    };
}

pub(crate) use contract_tests;
