//! USE-CASES C, started: the CMS agent's atomic CRUD tools, named `verbEntity` in
//! camelCase under the crate's own verb vocabulary (`[package.metadata.toolkit]`
//! in `Cargo.toml`). Destructive calls first answer with a preview and act only
//! when called again with `confirmed: true`.

mod store;
pub mod tools;

pub use store::{Cms, Page, Post, Sent};
