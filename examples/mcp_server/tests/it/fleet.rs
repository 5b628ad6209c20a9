//! The fleet as it is deployed: `scripts/fleet_test.sh` starts a throwaway
//! `PostgreSQL`, three replicas of this crate's server binary sharing it
//! (`--approvals-db postgres://...`, one approval key) and `HAProxy` round robin in
//! front (`fleet/haproxy.cfg`; installed from Debian's packages where missing),
//! and drives them with the official Python MCP SDK: a replica frozen with
//! `SIGSTOP` leaves the rotation within seconds (`HAProxy` checks `/livez`), no
//! request through the balancer waits 5 s, and thawed it is back; an approval asked on one
//! replica, decided on a second and resumed on a third runs once; 200 approvals
//! presented 3 times each by 8 clients at once run once each (counted in a
//! `PostgreSQL` table); a replica killed with `SIGKILL` mid-run and a `PostgreSQL`
//! restart mid-run lose nothing and run nothing twice, their callers get a
//! retryable error and a retry completes; the requester's own "yes" cannot
//! approve its transfer (an operator approves each in the inbox); a transfer
//! approved for a client that cannot elicit runs once on some replica's runner,
//! its outcome read back from the inbox; a replica frozen
//! with `SIGSTOP` past its lease is fenced (one "ran" per approval, its callers
//! cut when it leaves the rotation and their retries finding the run taken over); a replica restarted with a rotated key resumes
//! what the previous key signed; replicas two hours ahead and behind
//! (libfaketime) agree on every approval; a `PostgreSQL` frozen for 40 s and 75 s
//! gives bounded, retryable answers and loses or doubles nothing; an MCP task is
//! polled from `input_required` to `completed` across the replicas by rmcp's client
//! and by the official TypeScript SDK's v2 client with its Tasks extension
//! (`scripts/ts_task_client`, installed with npm from its lock file); 32
//! callers as two principals (client kinds) hammering the `auto` tool `create_notes` (a quota
//! of 20 an hour on every replica, `MCP_QUOTAS`), one principal opening a new
//! session for every call and a replica killed with `SIGKILL` mid-run, leave at
//! most 20 rows per principal and none for a refused call; the operator's
//! "yes" in one replica's inbox and the requester's "no" on another, in either
//! order and at once, run nothing, and the requester's retry and every replica's
//! inbox JSON report the "no" (with MCP Tasks: the requester's `tasks/cancel`
//! and the operator's "yes" at once run nothing, and `tasks/get` on every
//! replica reports the withdrawal, and its `tasks/update` "decline" against the
//! operator's "yes", in either order and at once, runs nothing, every replica's
//! `tasks/get` and inbox JSON reporting the "no"); a call a runner ran is reported
//! as ran, with its result, to its requester coming back late on any replica; 50
//! tasks of the 10 s `create_reports` (only ever a task) with a replica killed
//! with `SIGKILL` mid-run each complete once, with one ledger row (the killed
//! replica's runs taken over after their lease), and `tasks/cancel` through the
//! balancer stops a run on whichever replica holds it within a stated bound.
//!
//! Then a second fleet: four replicas in OAuth mode (tokens from npm
//! `oauth2-mock-server`, `scripts/oauth_mock_server.mjs`) behind their own
//! `HAProxy` (a copy of `fleet/haproxy.cfg` with four `server` lines): 32 callers
//! as four users hammering `create_notes` under a quota of 5 a second, one user
//! signing in again (a new token) for every session and a replica killed
//! mid-run, each user's rows within the quota's allowance over the run and none
//! for a refused call; a token of the same user with scope `mcp` alone reads,
//! answers and withdraws none of the user's tasks or approvals on any replica.

use crate::common;

#[test]
fn three_replicas_behind_haproxy_run_every_approved_call_once() {
    let Some(stdout) = common::run_script(
        "fleet_test.sh",
        &["python3", "npm"],
        &[
            ("MCP_SERVER_BIN", env!("CARGO_BIN_EXE_mcp_server")),
            ("MCP_TASK_CLIENT_BIN", env!("CARGO_BIN_EXE_mcp_task_client")),
        ],
        "the fleet test",
    ) else {
        return;
    };
    let checks = [
        "a_task_is_polled_from_input_required_to_completed_across_replicas",
        "the_official_typescript_client_polls_a_task_to_completed_across_replicas",
        "a_frozen_replica_leaves_the_rotation_within_seconds_and_returns_thawed",
        "asked_on_one_decided_on_another_resumed_on_a_third",
        "two_hundred_approvals_three_times_each_by_eight_clients_run_once",
        "a_replica_killed_mid_run_loses_nothing_and_runs_nothing_twice",
        "a_postgresql_restart_mid_run_loses_nothing_and_runs_nothing_twice",
        "the_requester_cannot_approve_its_own_transfer",
        "a_call_approved_for_a_client_that_cannot_elicit_runs_on_the_fleet",
        "a_replica_frozen_past_its_lease_is_fenced_and_reports_no_second_run",
        "replicas_two_hours_apart_agree_on_every_approval",
        "a_stalled_postgresql_answers_within_seconds_and_loses_nothing",
        "a_principals_quota_holds_across_the_fleet_through_reconnects_and_a_kill",
        "the_operators_yes_and_the_requesters_no_at_once_on_two_replicas_run_nothing",
        "a_tasks_withdrawal_and_the_operators_yes_at_once_run_nothing",
        "the_requesters_tasks_decline_and_the_operators_yes_at_once_run_nothing",
        "a_call_a_runner_ran_is_reported_as_ran_to_a_late_requester",
        "fifty_ten_second_tasks_complete_once_each_through_a_kill",
        "a_tasks_cancel_through_the_balancer_stops_its_run_on_any_replica",
        "a_replica_with_a_rotated_key_resumes_what_the_previous_key_signed",
        "four_principals_quotas_hold_on_four_oauth_replicas_through_reauthentication_and_a_kill",
        "a_narrower_token_of_the_same_user_reaches_none_of_its_calls_on_the_fleet",
    ];
    for check in checks {
        assert!(
            stdout
                .lines()
                .any(|line| line.starts_with(&format!("ok {check} ("))),
            "missing: ok {check}"
        );
    }
    assert!(
        stdout
            .lines()
            .any(|line| line == format!("fleet: {} passed, 0 failed", checks.len())),
        "the script printed no summary"
    );
}
