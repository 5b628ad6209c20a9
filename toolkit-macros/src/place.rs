//! Where the annotated function sits. An associated function without `self` has
//! the very tokens of a free one, and the items `#[tool]` generates beside it are
//! not allowed in an `impl` or a `trait` (rustc then reports them, not the
//! cause). So the source file is read: a `#[tool]` function of that name found
//! only inside an `impl` or a `trait` is one. Each file is parsed once per build.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, ImplItem, Item, Meta, Stmt, Token, TraitItem};

use crate::ast::Place;

/// The names of the `#[tool]` functions of one file, by where they sit.
#[derive(Default)]
struct Names {
    free: HashSet<String>,
    in_impl: HashSet<String>,
    in_trait: HashSet<String>,
}

/// A file's names, and the modification time and length they were read at (a
/// long-lived proc-macro server sees files change).
type Cache = HashMap<PathBuf, (Option<SystemTime>, u64, Arc<Names>)>;

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

/// Where the `#[tool]` function `ident` of `file` sits; `Free` whenever it
/// cannot be told (no file, a file that does not parse, a name used both ways).
pub(crate) fn of(file: Option<&Path>, ident: &str) -> Place {
    let Some(names) = file.and_then(names) else {
        return Place::Free;
    };
    if names.free.contains(ident) {
        Place::Free
    } else if names.in_impl.contains(ident) {
        Place::Impl
    } else if names.in_trait.contains(ident) {
        Place::Trait
    } else {
        Place::Free
    }
}

fn names(file: &Path) -> Option<Arc<Names>> {
    let metadata = std::fs::metadata(file).ok()?;
    let stamp = (metadata.modified().ok(), metadata.len());
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some((modified, len, names)) = cache.get(file)
        && (*modified, *len) == stamp
    {
        return Some(Arc::clone(names));
    }
    let source = std::fs::read_to_string(file).ok()?;
    let parsed = syn::parse_file(&source).ok()?;
    let mut names = Names::default();
    collect(&parsed.items, &mut names);
    let names = Arc::new(names);
    cache.insert(file.to_owned(), (stamp.0, stamp.1, Arc::clone(&names)));
    Some(names)
}

/// Whether the attributes hold `#[tool(..)]`, written directly or through
/// `#[cfg_attr(predicate, tool(..))]` (which reaches the macro as `#[tool]` once
/// the predicate holds, so it must be found here too).
fn is_tool(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        if attr.path().is_ident("cfg_attr") {
            return cfg_attr_has_tool(attr);
        }
        is_tool_path(attr.path())
    })
}

fn is_tool_path(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|segment| segment.ident == "tool")
}

fn cfg_attr_has_tool(attr: &Attribute) -> bool {
    match &attr.meta {
        Meta::List(list) => cfg_attr_tokens_have_tool(&list.tokens),
        _ => false,
    }
}

/// The inside of `cfg_attr(predicate, a, b(..), ..)`: whether one of the
/// attributes after the predicate (nested `cfg_attr`s included) is `tool`.
fn cfg_attr_tokens_have_tool(tokens: &proc_macro2::TokenStream) -> bool {
    let Ok(parts) = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens.clone()) else {
        return false;
    };
    parts.iter().skip(1).any(|meta| match meta {
        Meta::List(list) if meta.path().is_ident("cfg_attr") => {
            cfg_attr_tokens_have_tool(&list.tokens)
        }
        _ => is_tool_path(meta.path()),
    })
}

fn collect(items: &[Item], names: &mut Names) {
    for item in items {
        match item {
            Item::Fn(function) => {
                if is_tool(&function.attrs) {
                    names.free.insert(function.sig.ident.to_string());
                }
                collect_block(&function.block.stmts, names);
            }
            Item::Mod(module) => {
                if let Some((_, items)) = &module.content {
                    collect(items, names);
                }
            }
            Item::Impl(block) => {
                for item in &block.items {
                    if let ImplItem::Fn(function) = item {
                        if is_tool(&function.attrs) {
                            names.in_impl.insert(function.sig.ident.to_string());
                        }
                        collect_block(&function.block.stmts, names);
                    }
                }
            }
            Item::Trait(block) => {
                for item in &block.items {
                    if let TraitItem::Fn(function) = item {
                        if is_tool(&function.attrs) {
                            names.in_trait.insert(function.sig.ident.to_string());
                        }
                        if let Some(body) = &function.default {
                            collect_block(&body.stmts, names);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

fn collect_block(stmts: &[Stmt], names: &mut Names) {
    let items: Vec<Item> = stmts
        .iter()
        .filter_map(|stmt| match stmt {
            Stmt::Item(item) => Some(item.clone()),
            _ => None,
        })
        .collect();
    collect(&items, names);
}

#[cfg(test)]
mod tests {
    use super::{Names, collect};

    #[test]
    fn tools_in_impls_and_traits_are_told_apart_from_free_ones() {
        let file = syn::parse_file(
            r#"
            #[tool(scope = shared, tier = auto)]
            fn get_free() {}
            impl Store {
                #[tool(scope = shared, tier = auto)]
                fn get_tasks() {}
                fn helper() {}
            }
            impl Configured {
                #[cfg_attr(feature = "tools", tool(scope = shared, tier = auto))]
                fn get_configured() {}
                #[cfg_attr(all(), cfg_attr(all(), toolkit::tool(scope = shared, tier = auto)))]
                fn get_nested() {}
                #[cfg_attr(test, allow(dead_code))]
                fn not_a_tool() {}
            }
            trait Notes {
                #[toolkit::tool(scope = shared, tier = auto)]
                fn get_notes() {}
            }
            mod inner {
                fn outer() {
                    impl Inner {
                        #[tool(scope = shared, tier = auto)]
                        fn get_inner() {}
                    }
                }
            }
            "#,
        )
        .expect("a file");
        let mut names = Names::default();
        collect(&file.items, &mut names);
        assert!(names.free.contains("get_free"));
        assert!(names.in_impl.contains("get_tasks"));
        assert!(names.in_impl.contains("get_inner"));
        assert!(!names.in_impl.contains("helper"));
        assert!(names.in_impl.contains("get_configured"));
        assert!(names.in_impl.contains("get_nested"));
        assert!(!names.in_impl.contains("not_a_tool"));
        assert!(names.in_trait.contains("get_notes"));
    }
}
