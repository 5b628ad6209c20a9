//! The `approve` tier end to end: a call through a view validates its arguments and
//! comes back pending (exact JSON, fixed clock and key); a human approves, edits or
//! denies; the approval runs the call exactly once, also across processes sharing a
//! `SQLite` store; forged, altered, expired, misdirected and replayed approvals run
//! nothing and say why.

// In-memory tools never await.
#![allow(clippy::unused_async)]

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, UNIX_EPOCH};

use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::approval::{
    Approval, ApprovalError, ApprovalKey, ApprovalStore, Approvals, Decider, Deciders, Decision,
    DecisionQuery, InlineDecider, MemoryApprovalStore, PendingApproval, PendingQuery,
    PolicyProblem, SqliteApprovalStore, StoreError, Verdict,
};
use toolkit::testing::DownApprovalStore;
use toolkit::view::ViewProblem;
use toolkit::{Context, Registry, Response, Scope, State, ToolError, View, call::CallId, tool};

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

/// How many numbers were released: each run of the tool adds one.
#[derive(Clone, Default)]
struct Released(Arc<AtomicUsize>);

impl Released {
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// Delete phone numbers the organization owns.
#[tool(scope = shared, tier = approve, group = "phone")]
async fn delete_phone_numbers(
    #[ctx] released: State<Released>,
    /// The numbers, in E.164 form.
    numbers: Vec<String>,
    /// Why, for the audit log.
    reason: Option<String>,
) -> Value {
    released.0.0.fetch_add(1, Ordering::SeqCst);
    json!({ "released": numbers, "reason": reason })
}

/// Port phone numbers to another carrier.
#[tool(scope = shared, tier = approve, group = "phone", aliases = ["port_phone_number"])]
async fn update_phone_numbers(
    /// The numbers, in E.164 form.
    numbers: Vec<String>,
) -> Value {
    json!({ "ported": numbers })
}

/// Get the phone numbers the organization owns.
#[tool(scope = shared, tier = auto, group = "phone")]
async fn get_phone_numbers() -> Vec<String> {
    vec!["+15550100".to_owned()]
}

const KEY: &[u8; 32] = b"0123456789abcdef0123456789abcdef";
const START: u64 = 1_800_000_000;
const ARGUMENTS: &str = r#"{"reason": "unused", "numbers": ["+15550100"]}"#;

fn registry() -> &'static Registry {
    toolkit::registry()
}

/// A clock the test moves.
#[derive(Clone)]
struct Clock(Arc<AtomicU64>);

impl Clock {
    fn new() -> Self {
        Clock(Arc::new(AtomicU64::new(START)))
    }

    fn advance(&self, seconds: u64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }

    fn reader(&self) -> impl Fn() -> u64 + Send + Sync + 'static {
        let clock = self.0.clone();
        move || clock.load(Ordering::SeqCst)
    }
}

/// A store reading the test's clock.
trait TestClock {
    fn test_clock(self, clock: &Clock) -> Self;
}

impl TestClock for MemoryApprovalStore {
    fn test_clock(self, clock: &Clock) -> Self {
        self.clock(clock.reader())
    }
}

impl TestClock for SqliteApprovalStore {
    fn test_clock(self, clock: &Clock) -> Self {
        self.clock(clock.reader())
    }
}

fn approvals_with(store: impl ApprovalStore + TestClock + 'static, clock: &Clock) -> Approvals {
    let store = store.test_clock(clock);
    let clock = clock.0.clone();
    Approvals::new(ApprovalKey::new(*KEY).expect("32 bytes"), store)
        .pending_ttl(Duration::from_hours(1))
        .approval_ttl(Duration::from_mins(10))
        .clock(move || UNIX_EPOCH + Duration::from_secs(clock.load(Ordering::SeqCst)))
}

fn view<'a>(approvals: &'a Approvals, principal: &str) -> View<'a> {
    registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(approvals, p(principal))
        .build()
        .expect("view")
}

fn context(released: &Released) -> Context {
    Context::new()
        .with(released.clone())
        .with(CallId::new("call_abc123"))
}

fn pending(view: &View<'_>, ctx: &Context) -> PendingApproval {
    match block_on(view.call("delete_phone_numbers", ARGUMENTS, ctx)) {
        Response::Pending(pending) => *pending,
        other => panic!("expected a pending approval, got {other:?}"),
    }
}

/// What a presentation after the run completed is told: that it ran, with what.
fn already_ran() -> Response {
    Response::Error(ToolError::AlreadyRan {
        outcome: r#"with the result {"reason":"unused","released":["+15550100"]}"#.to_owned(),
    })
}

fn rejected(reason: &str) -> Response {
    Response::Error(ToolError::ApprovalRejected {
        reason: reason.to_owned(),
    })
}

/// `printf '{"numbers":["+15550100"],"reason":"unused"}' | sha256sum`
const DIGEST: &str = "sha256:6f03bc6ec377166597c31e3709f37492962b582be0800fcd55d401ef18ddfc83";
/// HMAC-SHA256 under `KEY` of the pending approval's canonical payload, computed
/// outside toolkit (Python's `hmac` over
/// `{"call_id":"call_abc123","digest":"sha256:6f03…","expires_at":1800003600,"principal":{"iss":"local","sub":"user:7"},"requested_at":1800000000,"tool":"delete_phone_numbers","type":"toolkit.pending_approval.v1"}`):
/// the principal is signed as its parts.
const PENDING_SIGNATURE: &str = "e302896ccffd73d8250bd5a30d40bde0d4e9d6206958e596ee769cd5acb9ab35";
/// The same, signed before principals were typed, with `"principal":"user:7"`:
/// what a pending approval of a migrated row carries.
const OLD_PENDING_SIGNATURE: &str =
    "d2c35527495a470aba1df387ad71712697d1cd4a5b7aca5750cae0a158f32426";

#[test]
fn a_call_without_an_approval_comes_back_pending_and_does_not_run() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let response = block_on(view.call("delete_phone_numbers", ARGUMENTS, &context(&released)));
    assert_eq!(released.count(), 0);
    let digest = toolkit::approval::digest(&json!({"numbers": ["+15550100"], "reason": "unused"}));
    assert_eq!(
        toolkit::approval::canonical_json(&json!({"reason": "unused", "numbers": ["+15550100"]})),
        r#"{"numbers":["+15550100"],"reason":"unused"}"#
    );
    assert_eq!(
        response.to_json(),
        json!({"pending_approval": {
            "call_id": "call_abc123",
            "principal": "local|user:7",
            "tool": "delete_phone_numbers",
            "arguments": {"reason": "unused", "numbers": ["+15550100"]},
            "digest": digest,
            "requested_at": START,
            "expires_at": START + 3600,
            "signature": PENDING_SIGNATURE,
        }})
    );
    assert_eq!(digest, DIGEST);
    let pending = response.pending().expect("pending").clone();
    // Storable: it survives a round trip through JSON text.
    let stored = serde_json::to_string(&pending).expect("serializes");
    let loaded: PendingApproval = serde_json::from_str(&stored).expect("deserializes");
    assert_eq!(loaded, pending);
    assert_eq!(approvals.verify_pending(&loaded), Ok(()));
    // A row kept before principals were typed reads, migrated, as a principal of
    // the reserved legacy issuer; what was signed for it then still verifies, and
    // the same row claiming a principal made now does not.
    let mut old = pending.clone();
    old.principal = toolkit::Principal::from_key("toolkit:legacy|user:7").expect("a key");
    old.signature = OLD_PENDING_SIGNATURE.to_owned();
    assert_eq!(approvals.verify_pending(&old), Ok(()));
    old.principal = p("user:7");
    assert_eq!(
        approvals.verify_pending(&old),
        Err(ApprovalError::BadSignature)
    );
}

#[test]
fn arguments_are_validated_before_anyone_is_asked() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let response = block_on(view.call(
        "delete_phone_numbers",
        r#"{"numbers": "+15550100"}"#,
        &context(&released),
    ));
    assert_eq!(
        response.error().map(ToolError::kind),
        Some("invalid_arguments")
    );
    let response = block_on(view.call("delete_phone_numbers", "{", &context(&released)));
    assert_eq!(
        response.error().map(ToolError::kind),
        Some("malformed_json")
    );
    let response = block_on(view.call(
        "delete_phone_numbers",
        r#"{"numbers": [], "force": true}"#,
        &context(&released),
    ));
    assert_eq!(response.error().map(ToolError::kind), Some("unknown_field"));
}

#[test]
fn an_approved_call_runs_once_and_a_replay_does_nothing() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let ctx = context(&released);
    let pending = pending(&view, &ctx);
    clock.advance(120);
    let approval = approvals
        .decide(registry(), &pending, Decision::Approve)
        .expect("approved");
    assert_eq!(approval.verdict, Verdict::Approved);
    assert_eq!(approval.decided_at, START + 120);
    assert_eq!(approval.expires_at, START + 120 + 600);
    assert_eq!(approval.digest, DIGEST);
    assert_eq!(
        block_on(view.resume(&approval, &ctx)),
        Response::Result(json!({"released": ["+15550100"], "reason": "unused"}))
    );
    assert_eq!(released.count(), 1);
    // A replay, even of a fresh approval for the same call, runs nothing, and is
    // told that it ran, with what.
    assert_eq!(block_on(view.resume(&approval, &ctx)), already_ran());
    let second = approvals
        .decide(registry(), &pending, Decision::Approve)
        .expect("approved again");
    assert_eq!(block_on(view.resume(&second, &ctx)), already_ran());
    assert_eq!(released.count(), 1);
    assert_eq!(
        block_on(view.resume(&approval, &ctx)).to_json(),
        json!({"error": {
            "kind": "already_ran",
            "outcome": r#"with the result {"reason":"unused","released":["+15550100"]}"#,
            "message": r#"this approved call already ran, with the result {"reason":"unused","released":["+15550100"]}; an approved call runs once, so it did not run again"#,
        }})
    );
}

#[test]
fn approved_with_edited_arguments_runs_those_after_validating_them() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let ctx = context(&released);
    let pending = pending(&view, &ctx);
    let invalid = approvals.decide(
        registry(),
        &pending,
        Decision::ApproveWith(json!({"numbers": 7})),
    );
    assert_eq!(
        invalid.map_err(|error| match error {
            ApprovalError::InvalidArguments(error) => error.kind(),
            _ => "other",
        }),
        Err("invalid_arguments")
    );
    // The tool's error is the refusal's cause, for code that inspects it.
    let refused = approvals
        .decide(
            registry(),
            &pending,
            Decision::ApproveWith(json!({"numbers": 7})),
        )
        .expect_err("invalid edits");
    let cause = std::error::Error::source(&refused)
        .and_then(|cause| cause.downcast_ref::<ToolError>())
        .expect("the tool's error is the source");
    assert_eq!(cause, &ToolError::from(refused.clone()));
    assert_eq!(cause.kind(), "invalid_arguments");
    let approval = approvals
        .decide(
            registry(),
            &pending,
            Decision::ApproveWith(json!({"numbers": ["+15550199"]})),
        )
        .expect("approved");
    assert_eq!(approval.verdict, Verdict::ApprovedWithEdits);
    assert_eq!(approval.decided_by.as_deref(), Some("the application"));
    // The model asked for other arguments than the call ran with: it is told,
    // before the result, who edited them and what ran.
    let Response::Result(result) = block_on(view.resume(&approval, &ctx)) else {
        panic!("it runs");
    };
    assert_eq!(
        result["toolkit/content"][0],
        json!({"type": "text", "text": "the application approved it with edited arguments, \
            and it ran with them: {\"numbers\":[\"+15550199\"]}"})
    );
    let ran = json!({"released": ["+15550199"], "reason": null});
    assert_eq!(
        result["toolkit/content"][1]["text"]
            .as_str()
            .map(serde_json::from_str::<Value>)
            .and_then(Result::ok),
        Some(ran.clone())
    );
    assert_eq!(result["toolkit/structured"], ran);
    assert_eq!(released.count(), 1);
    // Who decided is signed: naming someone else breaks the signature.
    let mut forged = approval.clone();
    forged.decided_by = Some("admin:1".to_owned());
    assert_eq!(
        block_on(view.resume(&forged, &ctx)).error(),
        Some(&ToolError::ApprovalRejected {
            reason: "its signature does not match (forged or altered)".to_owned()
        })
    );
}

#[test]
fn a_denial_reaches_the_model_and_runs_nothing() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let ctx = context(&released);
    let pending = pending(&view, &ctx);
    let denial = approvals
        .decide(
            registry(),
            &pending,
            Decision::Deny("keep the support line".to_owned()),
        )
        .expect("decided");
    let response = block_on(view.resume(&denial, &ctx));
    assert_eq!(
        response.to_json(),
        json!({"error": {
            "kind": "denied",
            "message": "keep the support line",
        }})
    );
    assert_eq!(
        response.error().map(ToString::to_string),
        Some("a human denied this call: keep the support line".to_owned())
    );
    assert_eq!(released.count(), 0);
}

#[test]
fn forged_and_altered_approvals_run_nothing() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let ctx = context(&released);
    let pending = pending(&view, &ctx);
    let approval = approvals
        .decide(registry(), &pending, Decision::Approve)
        .expect("approved");
    let bad_signature = rejected("its signature does not match (forged or altered)");
    let altered = |change: &dyn Fn(&mut Approval)| {
        let mut forged = approval.clone();
        change(&mut forged);
        block_on(view.resume(&forged, &ctx))
    };
    // Other arguments under the approved digest.
    assert_eq!(
        altered(&|a| a.arguments = json!({"numbers": ["+15550123"]})),
        rejected("the arguments do not match the approved digest")
    );
    // Other arguments with their own digest: the signature no longer matches.
    assert_eq!(
        altered(&|a| {
            a.arguments = json!({"numbers": ["+15550123"]});
            a.digest = toolkit::approval::digest(&a.arguments);
        }),
        bad_signature
    );
    assert_eq!(
        altered(&|a| a.call_id = "call_other".to_owned()),
        bad_signature
    );
    assert_eq!(altered(&|a| a.principal = p("user:8")), bad_signature);
    assert_eq!(altered(&|a| a.expires_at += 3600), bad_signature);
    assert_eq!(
        altered(&|a| a.verdict = Verdict::ApprovedWithEdits),
        bad_signature
    );
    assert_eq!(altered(&|a| a.signature = "00".repeat(32)), bad_signature);
    assert_eq!(
        altered(&|a| a.signature = "not hex".to_owned()),
        bad_signature
    );
    assert_eq!(altered(&|a| a.signature.clear()), bad_signature);
    // A denial turned into an approval.
    let denial = approvals
        .decide(registry(), &pending, Decision::Deny("no".to_owned()))
        .expect("decided");
    let mut flipped = denial.clone();
    flipped.verdict = Verdict::Approved;
    flipped.message = None;
    assert_eq!(block_on(view.resume(&flipped, &ctx)), bad_signature);
    // Signed with another key.
    let other_key = Approvals::new(
        ApprovalKey::new(*b"another key, also 32 bytes long!").expect("32 bytes"),
        MemoryApprovalStore::new(),
    );
    let foreign = other_key
        .decide(registry(), &pending, Decision::Approve)
        .expect_err("the pending approval is not this key's");
    assert_eq!(foreign, ApprovalError::BadSignature);
    // A pending approval made up by a client.
    let mut made_up = pending.clone();
    made_up.arguments = json!({"numbers": ["+15550123"]});
    made_up.digest = toolkit::approval::digest(&made_up.arguments);
    assert_eq!(
        approvals.decide(registry(), &made_up, Decision::Approve),
        Err(ApprovalError::BadSignature)
    );
    assert_eq!(released.count(), 0);
    // The genuine one still works.
    assert!(block_on(view.resume(&approval, &ctx)).is_success());
}

#[test]
fn an_approval_is_bound_to_its_principal_and_its_view() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
    let released = Released::default();
    let ctx = context(&released);
    let pending = pending(&view(&approvals, "user:7"), &ctx);
    let approval = approvals
        .decide(registry(), &pending, Decision::Approve)
        .expect("approved");
    assert_eq!(
        block_on(view(&approvals, "user:8").resume(&approval, &ctx)),
        rejected("it was issued for another principal")
    );
    // A view without the tool answers as for any unknown tool.
    let narrow = registry()
        .view()
        .allow(["get_phone_numbers"])
        .approvals(&approvals, p("user:7"))
        .build()
        .expect("view");
    assert_eq!(
        block_on(narrow.resume(&approval, &ctx)),
        Response::Error(ToolError::UnknownTool {
            name: "delete_phone_numbers".to_owned(),
            suggestion: Some("get_phone_numbers".to_owned()),
        })
    );
    // A view without approvals can't check one.
    let plain = registry().view().build().expect("view");
    assert_eq!(
        block_on(plain.resume(&approval, &ctx)),
        rejected("this view was built without approvals, so it cannot check one")
    );
    assert_eq!(released.count(), 0);
}

#[test]
fn expired_pending_approvals_and_approvals_run_nothing() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let ctx = context(&released);
    let pending = pending(&view, &ctx);
    let approval = approvals
        .decide(registry(), &pending, Decision::Approve)
        .expect("approved");
    clock.advance(601);
    assert_eq!(
        block_on(view.resume(&approval, &ctx)),
        rejected(&format!("it expired at {} (Unix seconds)", START + 600))
    );
    clock.advance(3000);
    assert_eq!(
        approvals.decide(registry(), &pending, Decision::Approve),
        Err(ApprovalError::Expired {
            expired_at: START + 3600
        })
    );
    assert_eq!(released.count(), 0);
}

/// Approves phone deletions of at most one number, denies others, leaves `reason:
/// "ask"` pending.
struct Policy;

impl InlineDecider for Policy {
    fn decide<'a>(
        &'a self,
        pending: &'a PendingApproval,
        _ctx: &'a Context,
    ) -> Pin<Box<dyn Future<Output = Option<Decision>> + Send + 'a>> {
        Box::pin(async move {
            if pending.arguments["reason"] == "ask" {
                return None;
            }
            let count = pending.arguments["numbers"].as_array().map_or(0, Vec::len);
            Some(if count <= 1 {
                Decision::Approve
            } else {
                Decision::Deny("one number at a time".to_owned())
            })
        })
    }
}

#[test]
fn an_inline_decider_decides() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock).inline_decider(Policy);
    let view = view(&approvals, "user:7");
    let released = Released::default();
    let ctx = Context::new().with(released.clone());
    assert_eq!(
        block_on(view.call(
            "delete_phone_numbers",
            r#"{"numbers": ["+15550100"]}"#,
            &ctx
        )),
        Response::Result(json!({"released": ["+15550100"], "reason": null}))
    );
    assert_eq!(
        block_on(view.call(
            "delete_phone_numbers",
            r#"{"numbers": ["+15550100", "+15550101"]}"#,
            &ctx
        )),
        Response::Error(ToolError::Denied {
            message: "one number at a time".to_owned()
        })
    );
    let response = block_on(view.call(
        "delete_phone_numbers",
        r#"{"numbers": [], "reason": "ask"}"#,
        &ctx,
    ));
    let pending = response.pending().expect("left pending");
    // Without a `CallId` in the context, one is made up.
    assert!(
        pending.call_id.starts_with("approval_"),
        "{}",
        pending.call_id
    );
    assert_eq!(pending.call_id.len(), "approval_".len() + 24);
    assert_eq!(released.count(), 1);
}

fn sqlite_file(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "toolkit-approvals-{name}-{}.sqlite3",
        std::process::id()
    ));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

#[test]
fn a_sqlite_store_shared_by_two_processes_runs_an_approval_once() {
    let path = sqlite_file("sequential");
    let clock = Clock::new();
    let first = approvals_with(SqliteApprovalStore::open(&path).expect("opens"), &clock);
    let second = approvals_with(SqliteApprovalStore::open(&path).expect("opens"), &clock);
    let released = Released::default();
    let ctx = context(&released);
    let pending = pending(&view(&first, "user:7"), &ctx);
    let approval = first
        .decide(registry(), &pending, Decision::Approve)
        .expect("approved");
    // The approval travels as JSON to the other process.
    let approval: Approval =
        serde_json::from_str(&serde_json::to_string(&approval).expect("serializes"))
            .expect("deserializes");
    assert!(block_on(view(&second, "user:7").resume(&approval, &ctx)).is_success());
    assert_eq!(
        block_on(view(&first, "user:7").resume(&approval, &ctx)),
        already_ran()
    );
    // Reopened later, the file still remembers.
    let reopened = approvals_with(SqliteApprovalStore::open(&path).expect("opens"), &clock);
    assert_eq!(
        block_on(view(&reopened, "user:7").resume(&approval, &ctx)),
        already_ran()
    );
    assert_eq!(released.count(), 1);
}

#[test]
fn two_threads_racing_to_resume_one_approval_over_sqlite_run_it_once() {
    let path = sqlite_file("race");
    let clock = Clock::new();
    let released = Released::default();
    let approval = {
        let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
        let pending = pending(&view(&approvals, "user:7"), &context(&released));
        approvals
            .decide(registry(), &pending, Decision::Approve)
            .expect("approved")
    };
    for round in 0..20 {
        let mut approval = approval.clone();
        if round > 0 {
            // A fresh call id per round, signed again by a "decider".
            let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
            let ctx = Context::new()
                .with(released.clone())
                .with(CallId::new(format!("call_{round}")));
            let pending = pending(&view(&approvals, "user:7"), &ctx);
            approval = approvals
                .decide(registry(), &pending, Decision::Approve)
                .expect("approved");
        }
        let before = released.count();
        let barrier = Arc::new(std::sync::Barrier::new(2));
        let outcomes: Vec<bool> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..2)
                .map(|_| {
                    let (path, clock, released, approval, barrier) =
                        (&path, &clock, released.clone(), &approval, barrier.clone());
                    scope.spawn(move || {
                        // Each "process" has its own connection to the file.
                        let approvals =
                            approvals_with(SqliteApprovalStore::open(path).expect("opens"), clock);
                        let view = view(&approvals, "user:7");
                        let ctx = Context::new().with(released);
                        barrier.wait();
                        block_on(view.resume(approval, &ctx)).is_success()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().expect("no panic"))
                .collect()
        });
        assert_eq!(
            outcomes.iter().filter(|&&ran| ran).count(),
            1,
            "round {round}: {outcomes:?}"
        );
        assert_eq!(released.count(), before + 1, "round {round}");
    }
}

/// Set in the two child processes of the test below: the directory holding the
/// approval, the database and the start signal.
const CHILD: &str = "TOOLKIT_APPROVAL_RACE_CHILD";

#[test]
fn two_processes_racing_to_resume_one_approval_over_sqlite_run_it_once() {
    if let Ok(directory) = std::env::var(CHILD) {
        // The child: wait for the start signal, resume, say what happened.
        let directory = std::path::PathBuf::from(directory);
        let approval: Approval = serde_json::from_str(
            &std::fs::read_to_string(directory.join("approval.json")).expect("approval"),
        )
        .expect("an approval");
        let approvals = approvals_with(
            SqliteApprovalStore::open(directory.join("approvals.sqlite3")).expect("opens"),
            &Clock::new(),
        );
        let view = view(&approvals, "user:7");
        let released = Released::default();
        let ctx = Context::new().with(released.clone());
        while !directory.join("go").exists() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let response = block_on(view.resume(&approval, &ctx));
        println!(
            "child outcome: ran {} time(s): {}",
            released.count(),
            toolkit::approval::canonical_json(&response.to_json())
        );
        return;
    }
    let directory =
        std::env::temp_dir().join(format!("toolkit-approval-race-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("a directory");
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock);
    let released = Released::default();
    let pending = pending(&view(&approvals, "user:7"), &context(&released));
    let approval = approvals
        .decide(registry(), &pending, Decision::Approve)
        .expect("approved");
    std::fs::write(
        directory.join("approval.json"),
        serde_json::to_string(&approval).expect("serializes"),
    )
    .expect("written");
    let children: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(std::env::current_exe().expect("this test binary"))
                .args([
                    "--exact",
                    "two_processes_racing_to_resume_one_approval_over_sqlite_run_it_once",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD, &directory)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("a child process")
        })
        .collect();
    std::fs::write(directory.join("go"), "").expect("start signal");
    let mut outcomes: Vec<String> = children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().expect("the child ends");
            assert!(output.status.success(), "{output:?}");
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .find_map(|line| {
                    // libtest writes `test <name> ... ` before the test's own output.
                    line.split_once("child outcome: ")
                        .map(|(_, outcome)| outcome.to_owned())
                })
                .expect("the child reports")
        })
        .collect();
    outcomes.sort();
    // The loser comes either after the winner's run ended (it already ran, with
    // its result) or while it runs (refused: another request runs it; its lease
    // says when to try again): which one is up to the scheduler. Never a second run.
    let ran_already = "ran 0 time(s): {\"error\":{\"kind\":\"already_ran\",\"message\":\"this approved call already ran, with the result {\\\"reason\\\":\\\"unused\\\",\\\"released\\\":[\\\"+15550100\\\"]}; an approved call runs once, so it did not run again\",\"outcome\":\"with the result {\\\"reason\\\":\\\"unused\\\",\\\"released\\\":[\\\"+15550100\\\"]}\"}}";
    let runs_now = |seconds: u64| {
        let reason = format!(
            "another request is running it now; if that run does not finish, try again in {seconds} s"
        );
        format!(
            "ran 0 time(s): {{\"error\":{{\"kind\":\"approval_rejected\",\"message\":\"the approval was refused: {reason}; nothing ran\",\"reason\":\"{reason}\"}}}}"
        )
    };
    assert!(
        outcomes[0] == ran_already || (29..=31).any(|seconds| outcomes[0] == runs_now(seconds)),
        "{outcomes:?}"
    );
    assert_eq!(
        outcomes[1],
        "ran 1 time(s): {\"result\":{\"reason\":\"unused\",\"released\":[\"+15550100\"]}}"
    );
    let _ = std::fs::remove_dir_all(&directory);
}

/// When the store fails, the model (and an MCP client) hears what failed, to try
/// again, and (once) that nothing ran, never the store's own words (a database's
/// message, its host); the application still gets them from `ApprovalError`, which
/// says nothing of a run it does not know about.
#[test]
fn a_failing_store_is_not_described_to_the_model() {
    let clock = Clock::new();
    let working = approvals_with(MemoryApprovalStore::new(), &clock);
    let released = Released::default();
    let ctx = context(&released);
    let pending = pending(&view(&working, "user:7"), &ctx);
    let approvals = Approvals::new(
        ApprovalKey::new(*KEY).expect("32 bytes"),
        DownApprovalStore::new(),
    )
    .clock(move || UNIX_EPOCH + Duration::from_secs(START));
    let view = view(&approvals, "user:7");
    let told = rejected("the approval store failed; try again");
    assert_eq!(
        ToolError::from(ApprovalError::Store(StoreError::new("down"))).to_string(),
        "the approval was refused: the approval store failed; try again; nothing ran"
    );
    assert_eq!(
        block_on(view.call("delete_phone_numbers", ARGUMENTS, &ctx)),
        told
    );
    let approval = approvals
        .decide(registry(), &pending, Decision::Approve)
        .expect("decided without the store");
    assert_eq!(block_on(view.resume(&approval, &ctx)), told);
    assert_eq!(released.count(), 0);
    let failed = block_on(approvals.pending(&PendingQuery::new())).expect_err("the store is down");
    assert_eq!(
        failed.to_string(),
        "the approval store failed: PostgreSQL: error connecting to server: \
         db.internal:5432: Connection refused"
    );
    assert_eq!(
        failed.state_unknown().as_deref(),
        Some("the approval store failed, so what became of the call is not known; try again")
    );
    // The store's error is the cause, as the store gave it.
    let cause = std::error::Error::source(&failed)
        .and_then(|cause| cause.downcast_ref::<StoreError>())
        .expect("the store's error is the source");
    assert_eq!(
        cause,
        &StoreError::new(
            "PostgreSQL: error connecting to server: db.internal:5432: Connection refused"
        )
    );
}

/// A policy meant to keep `delete_phone_numbers` from its requester, written with
/// one letter short: it names no tool.
fn misspelt_policy() -> Deciders {
    Deciders::requester_too().others_decide(["delete_phone_number"])
}

#[test]
fn a_misspelt_tool_in_a_policy_refuses_to_build_the_view() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock).policy(misspelt_policy());
    let error = registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(&approvals, p("user:7"))
        .build()
        .expect_err("a policy naming no tool");
    assert_eq!(
        error.problems,
        [ViewProblem::Policy(toolkit::approval::PolicyError {
            problems: vec![PolicyProblem::UnknownTool {
                name: "delete_phone_number".to_owned(),
                suggestion: Some("delete_phone_numbers".to_owned()),
            }],
        })]
    );
    assert_eq!(
        error.to_string(),
        "the view could not be built: the approval policy names `delete_phone_number`, which \
         is no tool; did you mean `delete_phone_numbers`? (name tools by their constant, \
         `delete_phone_numbers::NAME`, and the compiler checks them)"
    );
}

#[test]
fn a_policy_naming_an_old_name_or_a_tool_that_never_waits_is_refused_with_every_name() {
    let clock = Clock::new();
    let approvals = approvals_with(MemoryApprovalStore::new(), &clock).policy(
        Deciders::others()
            .requester_decides(["port_phone_number", get_phone_numbers::NAME])
            .others_decide([delete_phone_numbers::NAME, "no_such_tool"]),
    );
    let error = approvals
        .resolve_policy(registry())
        .expect_err("three bad names");
    assert_eq!(
        error.problems,
        [
            PolicyProblem::NotApproveTier {
                name: "get_phone_numbers".to_owned(),
                tier: toolkit::Tier::Auto,
            },
            PolicyProblem::UnknownTool {
                name: "no_such_tool".to_owned(),
                suggestion: None,
            },
            PolicyProblem::OldName {
                name: "port_phone_number".to_owned(),
                tool: "update_phone_numbers",
            },
        ]
    );
    assert_eq!(
        error.to_string(),
        "the approval policy names `get_phone_numbers`, a `tier = auto` tool; only \
         `tier = approve` calls wait for a decision, so the rule would never apply; names \
         `no_such_tool`, which is no tool (name tools by their constant, `my_tool::NAME`, \
         and the compiler checks them); names `port_phone_number`, an old name of \
         `update_phone_numbers`; calls are recorded under the current name, so name it \
         `update_phone_numbers::NAME`"
    );
    // Named by their constants and current names, the same rules resolve.
    let fixed = approvals_with(MemoryApprovalStore::new(), &clock).policy(
        Deciders::others()
            .requester_decides([update_phone_numbers::NAME])
            .others_decide([delete_phone_numbers::NAME]),
    );
    assert_eq!(fixed.resolve_policy(registry()), Ok(()));
}

/// The fail-closed half: an application that decides without building a view
/// with the broken policy (the inbox of another process, `decide_as` in a job) is
/// refused on every door, and the requester, whom the misspelt rule would have let
/// through, approves nothing.
#[test]
fn a_policy_that_does_not_resolve_lets_nobody_decide() {
    let clock = Clock::new();
    let built_with = approvals_with(MemoryApprovalStore::new(), &clock);
    let released = Released::default();
    let ctx = context(&released);
    let pending = pending(&view(&built_with, "user:7"), &ctx);
    let store = built_with.store().clone();
    let approvals = Approvals::with_store(ApprovalKey::new(*KEY).expect("32 bytes"), store)
        .clock({
            let clock = clock.0.clone();
            move || UNIX_EPOCH + Duration::from_secs(clock.load(Ordering::SeqCst))
        })
        .policy(misspelt_policy());
    let reason = "the approval policy names `delete_phone_number`, which is no tool; did you \
                  mean `delete_phone_numbers`? (name tools by their constant, \
                  `delete_phone_numbers::NAME`, and the compiler checks them); nobody decides \
                  until it is fixed";
    let not_allowed = |decided_by: &str| ApprovalError::NotAllowed {
        decided_by: decided_by.to_owned(),
        reason: reason.to_owned(),
    };
    assert_eq!(
        block_on(approvals.answer_as_requester(registry(), &pending, Decision::Approve)),
        Err(not_allowed("the requester"))
    );
    assert_eq!(
        block_on(approvals.decide_as(registry(), &pending, Decision::Approve, &p("admin:3"))),
        Err(not_allowed("local|admin:3"))
    );
    assert_eq!(
        block_on(approvals.decide_by(
            registry(),
            &pending,
            Decision::Deny("no".to_owned()),
            Decider::Application
        )),
        Err(not_allowed("the application"))
    );
    assert_eq!(
        approvals.decide(registry(), &pending, Decision::Approve),
        Err(not_allowed("the application"))
    );
    assert_eq!(
        block_on(approvals.decisions(&DecisionQuery::new())).expect("audit"),
        []
    );
    assert_eq!(released.count(), 0);
}
