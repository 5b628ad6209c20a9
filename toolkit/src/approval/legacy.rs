//! Migrations of rows kept before principals and deciders were typed: the same
//! SQL on `SQLite` and `PostgreSQL`, one entry of each store's migrations.

/// Principals are typed (`toolkit::Principal`): a free string kept before
/// (`user:7`) becomes the key of a principal of the reserved issuer
/// `toolkit:legacy` (`toolkit:legacy|user:7`, `%` and `|` escaped as the key
/// escapes them), which no token, sign-in or application principal has. Run
/// keys and signatures bind such a principal as its old string, so runs
/// recorded and approvals signed before still count and verify.
pub(super) const PRINCIPALS_TYPED: &str = "UPDATE toolkit_pending_approvals
         SET principal = 'toolkit:legacy|' || replace(replace(principal, '%', '%25'), '|', '%7C');
     UPDATE toolkit_approval_decisions
         SET principal = 'toolkit:legacy|' || replace(replace(principal, '%', '%25'), '|', '%7C');
     UPDATE toolkit_approval_refusals
         SET principal = 'toolkit:legacy|' || replace(replace(principal, '%', '%25'), '|', '%7C');";

/// Deciders are typed (`toolkit::approval::DecidedBy`): `the requester`, `the
/// application`, or a person's principal key. A decision or refusal on a call
/// asked before principals were typed (its principal is of the reserved issuer
/// `toolkit:legacy`, migrated above) named its decider as a free string then
/// (`admin:1`); it becomes a principal of that issuer too
/// (`toolkit:legacy|admin:1`), escaped as the key escapes. One made on such a
/// call after principals were typed and before this migration held a key
/// already: it reads as a legacy principal whose subject is that key, the same
/// text, never as a principal a token could be.
pub(super) const DECIDERS_TYPED: &str = "UPDATE toolkit_approval_decisions
         SET decided_by = 'toolkit:legacy|' || replace(replace(decided_by, '%', '%25'), '|', '%7C')
         WHERE substr(principal, 1, 15) = 'toolkit:legacy|'
             AND decided_by NOT IN ('the requester', 'the application');
     UPDATE toolkit_approval_refusals
         SET decided_by = 'toolkit:legacy|' || replace(replace(decided_by, '%', '%25'), '|', '%7C')
         WHERE substr(principal, 1, 15) = 'toolkit:legacy|'
             AND decided_by NOT IN ('the requester', 'the application');";
