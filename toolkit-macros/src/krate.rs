//! The path generated code names toolkit by when `#[tool(crate = path)]` is not
//! given: the name the calling crate's Cargo.toml gives the `toolkit-llm` package.
//!
//! The package is `toolkit-llm` (crates.io's `toolkit` is another project) and its
//! library is `toolkit`, so the extern name a crate sees is:
//!
//! | the calling crate's Cargo.toml | extern name |
//! | --- | --- |
//! | `toolkit-llm = "0.1"` | `toolkit` (the library's name) |
//! | `tk = { package = "toolkit-llm", .. }` | `tk` |
//! | `toolkit = { workspace = true }` with a renaming workspace entry | `toolkit` |
//! | none (toolkit's own doctests, tests and examples) | `toolkit` |
//!
//! `proc_macro_crate` reads the dependency tables (and `[workspace.dependencies]`)
//! but names an unrenamed dependency by its key, `toolkit_llm`, which is not the
//! extern name: that answer means `toolkit`. A dependency renamed to exactly
//! `toolkit_llm` reads the same and needs `crate = ::toolkit_llm`.

use proc_macro_crate::FoundCrate;
use syn::{Ident, Path, parse_quote};

/// The package whose library generated code names.
const PACKAGE: &str = "toolkit-llm";

/// The path of the toolkit library as the crate being compiled sees it.
pub(crate) fn default_path() -> Path {
    path_of(proc_macro_crate::crate_name(PACKAGE).ok())
}

/// `found` as a path. Anything unknown (no Cargo.toml, no such dependency because
/// a re-exporting crate brings toolkit in, a name that is no identifier) is
/// `::toolkit`, the library's own name, so the error is rustc's plain "unresolved
/// `toolkit`" that `crate = path` answers.
fn path_of(found: Option<FoundCrate>) -> Path {
    let unrenamed = PACKAGE.replace('-', "_");
    match found {
        Some(FoundCrate::Name(name)) if name != unrenamed => {
            // Spanned at the call site, as `::toolkit` is.
            match syn::parse_str::<Ident>(&name) {
                Ok(ident) => parse_quote!(::#ident),
                Err(_) => parse_quote!(::toolkit),
            }
        }
        // Not `crate`: toolkit's own doctests, integration tests and examples are
        // separate crates that link the library as `toolkit`.
        Some(FoundCrate::Itself | FoundCrate::Name(_)) | None => parse_quote!(::toolkit),
    }
}

#[cfg(test)]
mod tests {
    use proc_macro_crate::FoundCrate;
    use quote::ToTokens;

    use super::path_of;

    fn path(found: Option<FoundCrate>) -> String {
        path_of(found).to_token_stream().to_string()
    }

    #[test]
    fn an_unrenamed_dependency_is_named_by_its_library() {
        assert_eq!(
            path(Some(FoundCrate::Name("toolkit_llm".to_owned()))),
            ":: toolkit"
        );
    }

    #[test]
    fn a_renamed_dependency_is_named_by_its_key() {
        assert_eq!(path(Some(FoundCrate::Name("tk".to_owned()))), ":: tk");
        assert_eq!(
            path(Some(FoundCrate::Name("toolkit".to_owned()))),
            ":: toolkit"
        );
    }

    #[test]
    fn toolkit_itself_is_named_by_its_library() {
        assert_eq!(path(Some(FoundCrate::Itself)), ":: toolkit");
    }

    #[test]
    fn a_crate_without_the_dependency_names_toolkit() {
        assert_eq!(path(None), ":: toolkit");
    }

    #[test]
    fn a_name_that_is_no_identifier_names_toolkit() {
        assert_eq!(
            path(Some(FoundCrate::Name("self".to_owned()))),
            ":: toolkit"
        );
        assert_eq!(path(Some(FoundCrate::Name("a b".to_owned()))), ":: toolkit");
    }
}
