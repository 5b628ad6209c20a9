//! Quotas: how many calls of a tool one principal may make, and how many of its
//! calls may wait for approval at once.
//!
//! A tool declares its default, per principal: `#[tool(..., quota = "30/min")]`
//! ([`Quota`]). The application sets or overrides limits at run time with
//! [`Quotas`]: per tool, per view (by its [label](crate::view::ViewBuilder::label))
//! and per principal class (a name the application gives a view with
//! [`ViewBuilder::quota_class`](crate::view::ViewBuilder::quota_class)), and caps
//! the approvals a principal may have waiting. A view built with
//! [`ViewBuilder::quotas`](crate::view::ViewBuilder::quotas) counts every call it
//! runs in a [`QuotaStore`]:
//!
//! - [`View::call`](crate::View::call) (and through it MCP's `tools/call`, and a
//!   tool's nested calls through a view), before the tool runs;
//! - an approved call, once, when its run is first claimed (a retry of a run
//!   that failed, or a resume after a crash, is the same run and is not counted
//!   again; a run the quota refused is counted when it is tried again);
//! - never `tools/list`: a limit changes what a call answers, not what a caller
//!   sees.
//!
//! Tools served from other MCP servers (`ExternalServer`, feature `mcp-client`)
//! are runtime tools of the registry, called through [`View::call`](crate::View::call)
//! like local ones, so they are counted too; they declare no limit, so give them
//! one with [`QuotasBuilder::tool`].
//!
//! A refused call runs nothing and counts nothing; the caller reads
//! [`ToolError::RateLimited`] with the wait (over MCP, an `isError` result with
//! `_meta.retryAfterMs`). When the store fails, the call is refused, unless the
//! tool is an `auto` tool declared to fail open
//! ([`QuotasBuilder::fail_open`]).
//!
//! Where the counts live: [`MemoryQuotaStore`] in one process; for a fleet of
//! replicas, the approval store's database, so that every replica counts
//! against one quota on the database's clock: `PostgresQuotaStore` (feature
//! `postgres`, from `PostgresApprovalStore::quota_store`) and `SqliteQuotaStore`
//! (feature `sqlite`, from `SqliteApprovalStore::quota_store`). Each check is one
//! SQL statement computing GCRA under the key's row lock, bounded by the store's
//! wait.
//!
//! ```
//! use toolkit::quota::{MemoryQuotaStore, Quotas};
//! use toolkit::{Context, Scope, tool};
//!
//! /// Create a transfer between two accounts.
//! #[tool(scope = shared, tier = auto, quota = "2/min")]
//! async fn create_transfers(
//!     /// Cents to move.
//!     amount: u64,
//! ) -> u64 {
//!     amount
//! }
//!
//! # futures_executor::block_on(async {
//! let registry = toolkit::registry();
//! let quotas = Quotas::builder(registry, MemoryQuotaStore::new())
//!     // Agents of the trial plan get less than the declared default.
//!     .class("trial", create_transfers::NAME, "1/min".parse()?)
//!     .build()?;
//! let view = registry
//!     .view()
//!     .scopes([Scope::Shared])
//!     .principal(toolkit::Principal::local("user:ann")?)
//!     .quotas(&quotas)
//!     .build()?;
//! let ctx = Context::new();
//! for _ in 0..2 {
//!     assert!(view.call("create_transfers", r#"{"amount": 5}"#, &ctx).await.result().is_some());
//! }
//! let refused = view.call("create_transfers", r#"{"amount": 5}"#, &ctx).await;
//! assert_eq!(
//!     refused.error().map(ToString::to_string).as_deref(),
//!     Some("`create_transfers` may be called twice a minute by each caller; try again in 30 s")
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

pub(crate) mod limit;
mod memory;
mod store;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "postgres")]
pub use crate::approval::PostgresQuotaStore;
#[cfg(feature = "sqlite")]
pub use crate::approval::SqliteQuotaStore;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) use limit::CLOCK_JUMP_SLACK;
pub use limit::{Period, Quota, QuotaParseError};
pub use memory::MemoryQuotaStore;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) use store::admission_of;
pub use store::{Admission, QuotaFuture, QuotaKey, QuotaStore, QuotaStoreError};

use crate::declaration::Tier;
use crate::error::ToolError;
use crate::registry::Registry;
use crate::tool::Tool;

/// The largest cap on waiting approvals: one less than a store lists at once.
#[allow(clippy::cast_possible_truncation)]
const MAX_PENDING_CAP: u32 = crate::approval::MAX_QUERY_LIMIT as u32 - 1;

/// What the application set for one tool.
#[derive(Clone, Debug, Default)]
struct ToolRules {
    /// Replaces the declared default everywhere.
    limit: Option<Quota>,
    /// Per view label; wins over `limit`.
    views: Vec<(Box<str>, Quota)>,
    /// Per principal class; wins over a view's.
    classes: Vec<(Box<str>, Quota)>,
    /// When the store fails, admit (an `auto` tool only).
    fail_open: bool,
    /// The most calls of this tool one principal may have waiting for approval.
    pending: Option<u32>,
}

/// The run-time side of quotas: overrides of the declared limits, the caps on
/// waiting approvals, and the [`QuotaStore`] that counts. Built once with
/// [`Quotas::builder`], shared by every view ([`ViewBuilder::quotas`](crate::view::ViewBuilder::quotas)).
///
/// Which limit a call meets, most specific first: the principal class's, the
/// view's, the tool's run-time limit, the tool's declared `quota`. A tool with
/// none of them is not counted (and costs nothing).
pub struct Quotas {
    store: Arc<dyn QuotaStore>,
    rules: HashMap<&'static str, ToolRules>,
    pending_per_principal: Option<u32>,
}

impl Quotas {
    /// Starts the quotas of `registry`'s tools, counted in `store`. Tools are named
    /// by their name constant (`create_transfers::NAME`) and checked against the
    /// registry when built.
    pub fn builder(registry: &Registry, store: impl QuotaStore + 'static) -> QuotasBuilder<'_> {
        QuotasBuilder {
            registry,
            quotas: Quotas {
                store: Arc::new(store),
                rules: HashMap::new(),
                pending_per_principal: None,
            },
            problems: Vec::new(),
        }
    }

    /// The limit a call of `tool` meets through a view labelled `view`, for a
    /// principal of `class`: the class's, the view's, the tool's run-time limit or
    /// its declared one, in that order; `None` when the tool is not limited.
    #[must_use]
    pub fn limit(&self, tool: &Tool, view: Option<&str>, class: Option<&str>) -> Option<Quota> {
        let Some(rules) = self.rules.get(tool.name) else {
            return tool.quota;
        };
        let find = |entries: &[(Box<str>, Quota)], name: Option<&str>| {
            let name = name?;
            entries
                .iter()
                .find(|(entry, _)| &**entry == name)
                .map(|&(_, quota)| quota)
        };
        find(&rules.classes, class)
            .or_else(|| find(&rules.views, view))
            .or(rules.limit)
            .or(tool.quota)
    }

    /// The store that counts.
    #[must_use]
    pub fn store(&self) -> &dyn QuotaStore {
        self.store.as_ref()
    }

    /// The most approvals one principal may have waiting at once, over every
    /// tool, and the most of `tool`'s: `(per principal, per tool)`.
    #[must_use]
    pub fn pending_limits(&self, tool: &Tool) -> (Option<u32>, Option<u32>) {
        (
            self.pending_per_principal,
            self.rules.get(tool.name).and_then(|rules| rules.pending),
        )
    }

    /// Counts one call of `tool` by `principal` against `quota`: `Ok` when it may
    /// run; the refusal the caller reads otherwise.
    pub(crate) async fn admit(
        &self,
        principal: &str,
        tool: &Tool,
        quota: Quota,
    ) -> Result<(), ToolError> {
        let key = QuotaKey {
            principal,
            tool: tool.name,
        };
        match self.store.check(key, quota).await {
            Ok(Admission::Admitted) => Ok(()),
            Ok(Admission::Refused { retry_after }) => {
                let retry_after_ms = millis_up(retry_after);
                // An event on the call's span (the caller polls this inside it).
                tracing::info!(
                    toolkit.quota.limit = quota.count(),
                    toolkit.quota.period = quota.period().noun(),
                    toolkit.quota.retry_after_ms = retry_after_ms,
                    "the call was refused by its quota"
                );
                #[cfg(feature = "otel")]
                crate::otel::count_quota_refusal(tool.name);
                Err(ToolError::RateLimited {
                    tool: tool.name.to_owned(),
                    limit: quota,
                    retry_after_ms,
                })
            }
            Err(error) => {
                let fail_open = tool.tier == Tier::Auto
                    && self
                        .rules
                        .get(tool.name)
                        .is_some_and(|rules| rules.fail_open);
                tracing::warn!(
                    error = %error,
                    fail_open,
                    "the quota store could not count a call"
                );
                if fail_open {
                    Ok(())
                } else {
                    Err(ToolError::failed(format!(
                        "`{}` could not be counted against its quota, so it did not run; try again later",
                        tool.name
                    )))
                }
            }
        }
    }
}

/// `duration` in whole milliseconds, rounded up: a caller that waits this long
/// is admitted.
fn millis_up(duration: Duration) -> u64 {
    let nanos = duration.as_nanos().div_ceil(1_000_000);
    u64::try_from(nanos).unwrap_or(u64::MAX)
}

impl fmt::Debug for Quotas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Quotas")
            .field("tools", &self.rules.len())
            .field("pending_per_principal", &self.pending_per_principal)
            .finish_non_exhaustive()
    }
}

/// Builds [`Quotas`]; every tool named is checked against the registry at
/// [`build`](Self::build), which reports every problem at once.
#[must_use = "a quotas builder does nothing until `build` is called"]
pub struct QuotasBuilder<'r> {
    registry: &'r Registry,
    quotas: Quotas,
    problems: Vec<QuotaProblem>,
}

impl QuotasBuilder<'_> {
    /// The rules of the tool `name` names (a name or an alias), or a problem.
    fn rules(&mut self, name: &str) -> Option<&mut ToolRules> {
        match self.registry.get(name) {
            Some(tool) => Some(self.quotas.rules.entry(tool.name).or_default()),
            None => {
                let suggestion = match self.registry.unknown_tool(name) {
                    ToolError::UnknownTool { suggestion, .. } => suggestion,
                    _ => None,
                };
                self.problems.push(QuotaProblem::UnknownTool {
                    name: crate::echo::echo(name),
                    suggestion,
                });
                None
            }
        }
    }

    /// Sets `tool`'s limit everywhere, in place of its declared `quota` (or where
    /// it declared none).
    pub fn tool(mut self, tool: impl AsRef<str>, quota: Quota) -> Self {
        if let Some(rules) = self.rules(tool.as_ref()) {
            rules.limit = Some(quota);
        }
        self
    }

    /// Sets `tool`'s limit in views labelled `view`
    /// ([`ViewBuilder::label`](crate::view::ViewBuilder::label)).
    pub fn view(mut self, view: impl Into<String>, tool: impl AsRef<str>, quota: Quota) -> Self {
        let view: Box<str> = view.into().into_boxed_str();
        if let Some(rules) = self.rules(tool.as_ref()) {
            rules.views.retain(|(label, _)| *label != view);
            rules.views.push((view, quota));
        }
        self
    }

    /// Sets `tool`'s limit for principals of `class`: views built with
    /// [`ViewBuilder::quota_class`](crate::view::ViewBuilder::quota_class)`(class)`.
    /// Wins over a view's limit.
    pub fn class(mut self, class: impl Into<String>, tool: impl AsRef<str>, quota: Quota) -> Self {
        let class: Box<str> = class.into().into_boxed_str();
        if let Some(rules) = self.rules(tool.as_ref()) {
            rules.classes.retain(|(name, _)| *name != class);
            rules.classes.push((class, quota));
        }
        self
    }

    /// Lets calls of `tool` run when the store cannot count them (it is down):
    /// for `auto` tools only, which read and change nothing a human guards; a
    /// `confirm` or `approve` tool named here is a problem at build. Every other
    /// call fails closed.
    pub fn fail_open(mut self, tool: impl AsRef<str>) -> Self {
        let name = tool.as_ref();
        if let Some(found) = self.registry.get(name)
            && found.tier != Tier::Auto
        {
            self.problems.push(QuotaProblem::FailOpenGuarded {
                tool: found.name,
                tier: found.tier,
            });
            return self;
        }
        if let Some(rules) = self.rules(name) {
            rules.fail_open = true;
        }
        self
    }

    /// The most approvals one principal may have waiting at once, over every
    /// tool: a call that would open one more is refused
    /// ([`ToolError::TooManyPending`]), so nobody floods the inbox. The approval
    /// store counts and inserts in one step
    /// ([`ApprovalStore::save_pending_capped`](crate::approval::ApprovalStore::save_pending_capped)),
    /// so requests at once on every replica never leave more waiting.
    ///
    /// Caps above 499 count as 499: the store lists at most 500 waiting
    /// approvals in one query.
    pub fn pending_approvals(mut self, max: u32) -> Self {
        self.quotas.pending_per_principal = Some(max.min(MAX_PENDING_CAP));
        self
    }

    /// The most calls of `tool` one principal may have waiting for approval at
    /// once (at most 499, as [`pending_approvals`](Self::pending_approvals)).
    pub fn pending_approvals_of(mut self, tool: impl AsRef<str>, max: u32) -> Self {
        if let Some(rules) = self.rules(tool.as_ref()) {
            rules.pending = Some(max.min(MAX_PENDING_CAP));
        }
        self
    }

    /// The quotas, or every problem found.
    pub fn build(self) -> Result<Quotas, QuotaConfigError> {
        if self.problems.is_empty() {
            Ok(self.quotas)
        } else {
            Err(QuotaConfigError {
                problems: self.problems,
            })
        }
    }
}

impl fmt::Debug for QuotasBuilder<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QuotasBuilder")
            .field("quotas", &self.quotas)
            .field("problems", &self.problems)
            .finish_non_exhaustive()
    }
}

/// One reason [`Quotas`] could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuotaProblem {
    /// A tool name that names no tool of the registry.
    UnknownTool {
        /// The name, cut and cleaned.
        name: String,
        /// The closest tool, if one is close.
        suggestion: Option<String>,
    },
    /// [`QuotasBuilder::fail_open`] on a tool a human guards.
    FailOpenGuarded {
        /// The tool.
        tool: &'static str,
        /// Its tier.
        tier: Tier,
    },
}

impl fmt::Display for QuotaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuotaProblem::UnknownTool {
                name,
                suggestion: Some(suggestion),
            } => write!(f, "unknown tool `{name}`; did you mean `{suggestion}`?"),
            QuotaProblem::UnknownTool {
                name,
                suggestion: None,
            } => write!(f, "unknown tool `{name}`"),
            QuotaProblem::FailOpenGuarded { tool, tier } => write!(
                f,
                "`{tool}` is a `{tier}` tool and cannot fail open: when the quota store fails, calls a human guards are refused; remove `fail_open` for it"
            ),
        }
    }
}

/// Why [`QuotasBuilder::build`] refused: every problem at once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the quotas could not be built: {}", join(.problems))]
pub struct QuotaConfigError {
    /// The problems, in the order the builder met them.
    pub problems: Vec<QuotaProblem>,
}

fn join(problems: &[QuotaProblem]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}
