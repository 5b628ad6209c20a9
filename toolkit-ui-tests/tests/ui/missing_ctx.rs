//! A context type written without `#[ctx]`: one error on the type, asking for
//! `#[ctx]`, and nothing about `Deserialize` or `JsonSchema`.

use toolkit::{Context, State, ToolError, tool, definition::FromContext};

#[derive(Clone)]
struct Db;

struct CurrentUser;

impl FromContext for CurrentUser {
    type Binding = toolkit::binding::BoundToNothing;
    fn from_context(_: &Context) -> Result<Self, ToolError> {
        Ok(CurrentUser)
    }
}

/// Get tasks.
#[tool(scope = shared, tier = auto)]
fn get_tasks(
    /// The database.
    db: State<Db>,
    /// Who asks.
    user: CurrentUser,
) -> bool {
    matches!((db.0, user), (Db, CurrentUser))
}

fn main() {}
