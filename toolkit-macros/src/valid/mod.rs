//! Every rule a `#[tool]` must pass, on what `ast` and `attr` read. Each file
//! holds the rules about one thing: the function's signature and place
//! (`signature`), its parameters (`params`), the tool's name (`name`), and the
//! values of `#[tool(...)]` (`attr`). Mistakes go to the `Ctxt`, all reported
//! together.

mod attr;
mod name;
mod params;
mod signature;

use crate::ast::{ToolFn, unraw};
use crate::attr::{Keyword, ToolAttr};
use crate::config::Config;
use crate::ctxt::Ctxt;

/// A tool that passed every rule, ready to expand.
pub(crate) struct Checked<'a> {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) scope: Keyword,
    pub(crate) tier: Keyword,
    pub(crate) attr: &'a ToolAttr,
    pub(crate) func: &'a ToolFn,
    pub(crate) manifest: Option<String>,
}

/// Runs every rule; `None` when a value expansion needs is missing (its error is
/// in `errors`).
pub(crate) fn check<'a>(
    attr: &'a ToolAttr,
    func: &'a ToolFn,
    config: Option<&Config>,
    errors: &mut Ctxt,
) -> Option<Checked<'a>> {
    signature::check_place(func, errors);
    signature::check_signature(func, errors);
    params::check_each(func, errors);
    signature::check_output(func, errors);

    let ident = &func.item.sig.ident;
    let (name, name_span) = match &attr.name {
        Some(name) => (name.value(), name.span()),
        None => (unraw(ident), ident.span()),
    };
    // A `name` that is written but unreadable has its own error; the function's
    // identifier is not the name the user meant.
    let name_meant = attr.name.is_some() || attr.is_missing("name");
    if let (Some(config), true) = (config, name_meant) {
        name::check_name(&name, name_span, config, errors);
    }
    attr::check_values(attr, &name, errors);
    let description = attr::check_description(attr, func, &name, errors);
    attr::check_confirm(attr, func, errors);
    attr::check_examples(attr, func, errors);
    params::check_json_names(func, errors);
    params::check_currency(func, errors);
    attr::check_required(attr, errors);
    Some(Checked {
        name,
        description: description?,
        scope: attr.scope?,
        tier: attr.tier?,
        attr,
        func,
        manifest: config
            .and_then(|config| config.manifest.as_ref())
            .map(|path| path.display().to_string()),
    })
}
