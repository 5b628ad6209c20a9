//! An approval store that is down, for the tests of what an application does
//! when its database is.

use std::borrow::Cow;

use crate::approval::{
    ApprovalStore, Claim, DecisionOutcome, DecisionQuery, DecisionRecord, PendingApproval,
    PendingQuery, RefusalRecord, RunOutcome, RunRecord, StoreError, StoreFuture,
};
use crate::principal::Principal;

/// An [`ApprovalStore`] whose database is down: every call fails with a
/// [`StoreError`] carrying [`message`](Self::message) (by default
/// [`DownApprovalStore::MESSAGE`], a driver's words with a host in them, so a
/// test can show they never reach the model), or, [`hanging`](Self::hanging),
/// never answers, as a database that stopped responding.
///
/// ```
/// use toolkit::approval::{ApprovalKey, Approvals};
/// use toolkit::testing::DownApprovalStore;
///
/// # futures_executor::block_on(async {
/// let approvals = Approvals::new(ApprovalKey::new(*b"an application secret, 32 bytes!")?, DownApprovalStore::new());
/// let error = approvals.store().now().await.unwrap_err();
/// assert_eq!(error.to_string(), DownApprovalStore::MESSAGE);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct DownApprovalStore {
    message: Cow<'static, str>,
    hang: bool,
}

impl DownApprovalStore {
    /// What every call fails with unless [`message`](Self::message) says otherwise.
    pub const MESSAGE: &'static str =
        "PostgreSQL: error connecting to server: db.internal:5432: Connection refused";

    /// A store every call of which fails with [`MESSAGE`](Self::MESSAGE).
    #[must_use]
    pub fn new() -> Self {
        DownApprovalStore {
            message: Cow::Borrowed(Self::MESSAGE),
            hang: false,
        }
    }

    /// A store none of whose calls ever ends (wrap them in a timeout).
    #[must_use]
    pub fn hanging() -> Self {
        DownApprovalStore {
            hang: true,
            ..Self::new()
        }
    }

    /// The message every call fails with.
    #[must_use]
    pub fn message(mut self, message: impl Into<Cow<'static, str>>) -> Self {
        self.message = message.into();
        self
    }

    fn down<'a, T: Send + 'a>(&self) -> StoreFuture<'a, T> {
        if self.hang {
            return Box::pin(std::future::pending());
        }
        Box::pin(std::future::ready(Err(StoreError::new(
            self.message.clone().into_owned(),
        ))))
    }
}

impl Default for DownApprovalStore {
    fn default() -> Self {
        Self::new()
    }
}

impl ApprovalStore for DownApprovalStore {
    fn now(&self) -> StoreFuture<'_, u64> {
        self.down()
    }
    fn save_pending<'a>(&'a self, _: &'a PendingApproval) -> StoreFuture<'a, bool> {
        self.down()
    }
    fn list_pending<'a>(&'a self, _: &'a PendingQuery) -> StoreFuture<'a, Vec<PendingApproval>> {
        self.down()
    }
    fn pending<'a>(
        &'a self,
        _: &'a Principal,
        _: &'a str,
    ) -> StoreFuture<'a, Option<PendingApproval>> {
        self.down()
    }
    fn record_decision<'a>(
        &'a self,
        _: &'a DecisionRecord,
        _: u64,
    ) -> StoreFuture<'a, DecisionOutcome> {
        self.down()
    }
    fn decision<'a>(
        &'a self,
        _: &'a Principal,
        _: &'a str,
    ) -> StoreFuture<'a, Option<DecisionRecord>> {
        self.down()
    }
    fn decisions<'a>(&'a self, _: &'a DecisionQuery) -> StoreFuture<'a, Vec<DecisionRecord>> {
        self.down()
    }
    fn claim<'a>(&'a self, _: &'a str, _: u64, _: u64) -> StoreFuture<'a, Claim> {
        self.down()
    }
    fn complete<'a>(&'a self, _: &'a str, _: u32, _: &'a RunOutcome) -> StoreFuture<'a, bool> {
        self.down()
    }
    fn release<'a>(&'a self, _: &'a str, _: u32, _: &'a RunOutcome) -> StoreFuture<'a, bool> {
        self.down()
    }
    fn renew<'a>(&'a self, _: &'a str, _: u32, _: u64) -> StoreFuture<'a, bool> {
        self.down()
    }
    fn run<'a>(&'a self, _: &'a str) -> StoreFuture<'a, Option<RunRecord>> {
        self.down()
    }
    fn lapsed_claims<'a>(&'a self, _: &'a str, _: usize) -> StoreFuture<'a, Vec<String>> {
        self.down()
    }
    fn approved_unsettled(
        &self,
        _: u64,
        _: u64,
        _: usize,
    ) -> StoreFuture<'_, Vec<(PendingApproval, DecisionRecord)>> {
        self.down()
    }
    fn settle<'a>(&'a self, _: &'a Principal, _: &'a str) -> StoreFuture<'a, bool> {
        self.down()
    }
    fn record_refusal<'a>(&'a self, _: &'a RefusalRecord, _: u64) -> StoreFuture<'a, ()> {
        self.down()
    }
    fn refusals<'a>(&'a self, _: &'a DecisionQuery) -> StoreFuture<'a, Vec<RefusalRecord>> {
        self.down()
    }
    fn purge(&self) -> StoreFuture<'_, u64> {
        self.down()
    }
}
