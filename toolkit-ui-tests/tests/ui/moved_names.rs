//! Names that moved still resolve, with a deprecation that names the new path
//! (denied here so the case fails to compile and the notes are pinned).
//! `toolkit::FromContext`, a trait that moved unchanged, resolves without one.

#![deny(deprecated)]

use toolkit::approval::Approver;
use toolkit::{Context, FromContext, ToolError};

struct Session;

impl FromContext for Session {
    type Binding = toolkit::binding::BoundToNothing;
    fn from_context(_: &Context) -> Result<Self, ToolError> {
        Ok(Session)
    }
}

struct Policy;

impl Approver for Policy {
    fn decide<'a>(
        &'a self,
        _: &'a toolkit::approval::PendingApproval,
        _: &'a Context,
    ) -> std::pin::Pin<
        Box<dyn Future<Output = Option<toolkit::approval::Decision>> + Send + 'a>,
    > {
        Box::pin(async { None })
    }
}

fn main() {
    let _ = toolkit::Limits::DEFAULT;
    let _ = toolkit::try_registry();
    let _ = (Session, Policy);
}
