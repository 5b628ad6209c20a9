//! Every key of `#[tool(...)]` and of the parameter attributes, parsed in one place.

use std::fmt::Write as _;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprArray, ExprLit, Ident, Lit, LitStr, Meta, MetaNameValue, Path, Token};

use crate::ctxt::Ctxt;
use crate::suggest::closest;

/// A `scope = ...` or `tier = ...` value: the word the user writes and the
/// variant of `toolkit::Scope` / `toolkit::Tier` it stands for. The tables below
/// are the one place that lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Keyword {
    pub(crate) word: &'static str,
    pub(crate) variant: &'static str,
}

const fn keyword_of(word: &'static str, variant: &'static str) -> Keyword {
    Keyword { word, variant }
}

const SCOPES: &[Keyword] = &[
    keyword_of("shared", "Shared"),
    keyword_of("agent", "Agent"),
    keyword_of("assistant", "Assistant"),
    keyword_of("channel", "Channel"),
];
const TIERS: &[Keyword] = &[
    keyword_of("auto", "Auto"),
    keyword_of("confirm", "Confirm"),
    keyword_of("approve", "Approve"),
];
/// `task = ...`: the variants of `toolkit::TaskSupport`, in MCP's words.
const TASKS: &[Keyword] = &[
    keyword_of("optional", "Optional"),
    keyword_of("required", "Required"),
    keyword_of("forbidden", "Forbidden"),
];

/// The keys `#[tool(...)]` accepts on a function.
const TOOL_KEYS: &[&str] = &[
    "name",
    "scope",
    "tier",
    "always",
    "description",
    "group",
    "aliases",
    "guidance",
    "title",
    "gate",
    "tags",
    "preview",
    "examples",
    "asked_as",
    "quota",
    "task",
    "crate",
];

/// The units of `quota = "30/min"` and the `toolkit::quota::Period` each stands
/// for: the same table as the runtime's grammar (`toolkit/src/quota/limit.rs`),
/// which parses what the application sets at run time.
const QUOTA_UNITS: &[(&str, &str)] = &[
    ("s", "Second"),
    ("sec", "Second"),
    ("second", "Second"),
    ("min", "Minute"),
    ("minute", "Minute"),
    ("h", "Hour"),
    ("hour", "Hour"),
    ("d", "Day"),
    ("day", "Day"),
];

/// A `quota = "30/min"` read: the count and the `Period` variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct QuotaValue {
    pub(crate) count: u32,
    pub(crate) period: &'static str,
}

/// The parsed `#[tool(...)]` attribute of a function.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) scope: Option<Keyword>,
    pub(crate) tier: Option<Keyword>,
    pub(crate) always: bool,
    pub(crate) description: Option<LitStr>,
    pub(crate) group: Option<LitStr>,
    pub(crate) aliases: Vec<LitStr>,
    pub(crate) guidance: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) gate: Option<LitStr>,
    pub(crate) tags: Vec<LitStr>,
    /// `examples = [r#"{...}"#, ...]`: example arguments, each a JSON object; or
    /// `examples = "path.json"`, a file holding a JSON array of them, each then
    /// carried as a literal spanned on the path.
    pub(crate) examples: Vec<LitStr>,
    /// The file of `examples = "path.json"`, resolved against the crate's
    /// directory, for `include_bytes!` (so editing it recompiles the crate).
    pub(crate) examples_file: Option<String>,
    /// `asked_as = ["...", ...]`: what a user says when this tool is the right one.
    pub(crate) asked_as: Vec<LitStr>,
    pub(crate) krate: Option<Path>,
    /// `preview = path::to_fn`: what a `confirm` tool shows before it acts.
    pub(crate) preview: Option<Path>,
    /// `quota = "30/min"`: the default limit per principal.
    pub(crate) quota: Option<QuotaValue>,
    /// `task = optional | required | forbidden`, and the value's span.
    pub(crate) task: Option<(Keyword, Span)>,
    /// The keys the user wrote, whether or not their values could be read.
    written: Vec<String>,
    /// The keys that misspelled keys most likely meant. A key that is there but
    /// wrong already has its own error and must not also be reported missing.
    meant: Vec<String>,
    /// The arguments could not be parsed at all, so nothing can be reported missing.
    unreadable: bool,
}

impl ToolAttr {
    /// Parses the attribute's arguments, recording every mistake in `errors` and
    /// keeping what could be read.
    pub(crate) fn parse(args: TokenStream, errors: &mut Ctxt) -> ToolAttr {
        let mut attr = ToolAttr::default();
        let Some(metas) = parse_metas(args, errors) else {
            attr.unreadable = true;
            return attr;
        };
        // Values written without their keys (`#[tool(shared, auto)]`), reported
        // together: it is one slip.
        let mut keyless: Vec<(Meta, &'static str)> = Vec::new();
        for meta in metas {
            if let Meta::Path(path) = &meta
                && let Some(key) = key_of_value(path)
            {
                attr.meant.push(key.to_owned());
                keyless.push((meta, key));
                continue;
            }
            let Some(key) = meta.path().get_ident().map(ToString::to_string) else {
                errors.error(
                    meta.path(),
                    format!(
                        "unknown key `{}` in `#[tool]`; expected one of {}",
                        path_text(meta.path()),
                        TOOL_KEYS.join(", ")
                    ),
                );
                continue;
            };
            if attr.written.contains(&key) {
                errors.error(
                    meta.path(),
                    format!("duplicate key `{key}` in `#[tool]`; remove one of them"),
                );
                continue;
            }
            attr.written.push(key.clone());
            match key.as_str() {
                "name" => attr.name = string(&meta, errors),
                "description" => attr.description = string(&meta, errors),
                "group" => attr.group = string(&meta, errors),
                "guidance" => attr.guidance = string(&meta, errors),
                "title" => attr.title = string(&meta, errors),
                "gate" => attr.gate = string(&meta, errors),
                "aliases" => attr.aliases = strings(&meta, errors),
                "tags" => attr.tags = strings(&meta, errors),
                "examples" => match examples_path(&meta) {
                    Some(path) => {
                        if let Some((examples, file)) = examples_file(path, errors) {
                            attr.examples = examples;
                            attr.examples_file = Some(file);
                        }
                    }
                    None => attr.examples = strings(&meta, errors),
                },
                "asked_as" => attr.asked_as = strings(&meta, errors),
                "quota" => attr.quota = quota(&meta, errors),
                "scope" => attr.scope = keyword(&meta, "scope", SCOPES, errors),
                "tier" => attr.tier = keyword(&meta, "tier", TIERS, errors),
                "task" => {
                    attr.task = keyword(&meta, "task", TASKS, errors).map(|task| {
                        let span = match &meta {
                            Meta::NameValue(pair) => pair.value.span(),
                            other => other.span(),
                        };
                        (task, span)
                    });
                }
                "always" => match &meta {
                    Meta::Path(_) => attr.always = true,
                    Meta::NameValue(pair) => errors.error(&pair.value, ALWAYS_IS_A_FLAG),
                    Meta::List(list) => errors.error(&list.tokens, ALWAYS_IS_A_FLAG),
                },
                "preview" => match &meta {
                    Meta::NameValue(pair) => match &pair.value {
                        Expr::Path(path) if path.qself.is_none() => attr.preview = Some(path.path.clone()),
                        other => errors.error(other, "expected a path to the preview function, like `preview = preview_delete_pages`"),
                    },
                    _ => errors.error(&meta, "expected `preview = path::to_fn`"),
                },
                "crate" => match &meta {
                    Meta::NameValue(pair) => match &pair.value {
                        Expr::Path(path) if path.qself.is_none() => attr.krate = Some(path.path.clone()),
                        other => errors.error(other, "expected a path to the toolkit crate, like `crate = my_framework::toolkit`"),
                    },
                    _ => errors.error(&meta, "expected `crate = path::to::toolkit`"),
                },
                _ => {
                    if let Some(guess) = closest(&key, TOOL_KEYS) {
                        attr.meant.push(guess.to_owned());
                    }
                    errors.error(meta.path(), unknown_key(&key, TOOL_KEYS, "`#[tool]`"));
                }
            }
        }
        if let (Some((first, _)), Some((last, _))) = (keyless.first(), keyless.last()) {
            let words: Vec<String> = keyless
                .iter()
                .map(|(meta, _)| format!("`{}`", path_text(meta.path())))
                .collect();
            let fixed: Vec<String> = keyless
                .iter()
                .map(|(meta, key)| format!("{key} = {}", path_text(meta.path())))
                .collect();
            let message = if let [word] = words.as_slice() {
                format!("{word} is a value without its key; write `{}`", fixed[0])
            } else {
                format!(
                    "{} are values without their keys; write `{}`",
                    words.join(" and "),
                    fixed.join(", ")
                )
            };
            errors.error(quote::quote!(#first #last), message);
        }
        attr
    }

    /// Whether `key` is missing: not written, not even misspelled, and the
    /// arguments could be read.
    pub(crate) fn is_missing(&self, key: &str) -> bool {
        !self.unreadable
            && !self
                .written
                .iter()
                .chain(&self.meant)
                .any(|seen| seen == key)
    }
}

/// The key a bare word is a value of (`shared` of `scope`), if it is one.
fn key_of_value(path: &Path) -> Option<&'static str> {
    let ident = path.get_ident()?;
    if TOOL_KEYS.iter().any(|key| ident == key) {
        return None;
    }
    if SCOPES.iter().any(|keyword| ident == keyword.word) {
        Some("scope")
    } else if TIERS.iter().any(|keyword| ident == keyword.word) {
        Some("tier")
    } else if TASKS.iter().any(|keyword| ident == keyword.word) {
        Some("task")
    } else {
        None
    }
}

/// The comma-separated `key = value` list of `#[tool(...)]`. A key followed by
/// its value with `:` or nothing in place of `=` (`scope: shared`) is read as
/// meant, with one error on the slip; any other syntax error leaves the list
/// unreadable (`None`, the error recorded).
fn parse_metas(args: TokenStream, errors: &mut Ctxt) -> Option<Vec<Meta>> {
    let mut slips = Vec::new();
    let parser = |input: ParseStream<'_>| -> syn::Result<Vec<Meta>> {
        let mut metas = Vec::new();
        while !input.is_empty() {
            let mut meta: Meta = input.parse()?;
            if let Meta::Path(path) = &meta
                && let Some(key) = path.get_ident().map(ToString::to_string)
                && TOOL_KEYS.contains(&key.as_str())
                && !input.is_empty()
                && !input.peek(Token![,])
            {
                let colon = if input.peek(Token![:]) && !input.peek(Token![::]) {
                    Some(input.parse::<Token![:]>()?)
                } else {
                    None
                };
                let value: Expr = input.parse()?;
                let written = value.to_token_stream().to_string();
                let (span, slip) = match &colon {
                    Some(colon) => (
                        colon.span,
                        format!("expected `=` after `{key}`, found `:`; write `{key} = {written}`"),
                    ),
                    None => (
                        value.span(),
                        format!(
                            "expected `=` between `{key}` and `{written}`; write `{key} = {written}`"
                        ),
                    ),
                };
                slips.push(syn::Error::new(span, slip));
                meta = Meta::NameValue(MetaNameValue {
                    path: path.clone(),
                    eq_token: Token![=](span),
                    value,
                });
            }
            metas.push(meta);
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(metas)
    };
    match parser.parse2(args) {
        Ok(metas) => {
            for slip in slips {
                errors.push(slip);
            }
            Some(metas)
        }
        Err(error) => {
            errors.push(error);
            None
        }
    }
}

const ALWAYS_IS_A_FLAG: &str = "`always` is a flag and takes no value; write `always` alone, or leave it out for a routed tool";

/// `#[tool(default = EXPR)]` and `#[ctx]` on one parameter.
#[derive(Default)]
pub(crate) struct ParamAttr {
    pub(crate) ctx: Option<Span>,
    pub(crate) default: Option<Expr>,
}

/// The keys `#[tool(...)]` accepts on a parameter.
const PARAM_KEYS: &[&str] = &["default"];

impl ParamAttr {
    /// Reads `#[ctx]` / `#[tool(...)]` from one parameter attribute, if it is one.
    /// Returns whether the attribute was ours (and so must not be re-emitted).
    pub(crate) fn read(&mut self, attr: &syn::Attribute, errors: &mut Ctxt) -> bool {
        if attr.path().is_ident("ctx") {
            if self.ctx.is_some() {
                errors.error(attr, "duplicate `#[ctx]`; remove one of them");
            }
            match &attr.meta {
                Meta::Path(_) => {}
                Meta::List(list) => errors.error(
                    &list.tokens,
                    "`#[ctx]` takes no arguments; write `#[ctx]` alone",
                ),
                Meta::NameValue(pair) => {
                    errors.error(&pair.value, "`#[ctx]` takes no value; write `#[ctx]` alone");
                }
            }
            // Still a context parameter: asking for a doc comment would be noise.
            self.ctx = Some(attr.path().span());
            return true;
        }
        if !attr.path().is_ident("tool") {
            return false;
        }
        let parsed = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated);
        let metas = match parsed {
            Ok(metas) => metas,
            Err(error) => {
                errors.push(error);
                return true;
            }
        };
        for meta in metas {
            let key = meta
                .path()
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            match (key.as_str(), &meta) {
                ("default", Meta::NameValue(pair)) => {
                    if self.default.is_some() {
                        errors.error(
                            meta.path(),
                            "duplicate key `default` in `#[tool]`; remove one of them",
                        );
                    }
                    self.default = Some(pair.value.clone());
                }
                ("default", _) => errors.error(
                    &meta,
                    "expected `default = <expression>`, like `#[tool(default = 20)]`",
                ),
                _ => errors.error(
                    meta.path(),
                    unknown_key(&key, PARAM_KEYS, "a parameter's `#[tool]`"),
                ),
            }
        }
        true
    }
}

fn unknown_key(key: &str, expected: &[&str], place: &str) -> String {
    if let [only] = expected {
        return format!("unknown key `{key}` in {place}; expected `{only}`");
    }
    let mut message = format!(
        "unknown key `{key}` in {place}; expected one of {}",
        expected.join(", ")
    );
    if let Some(guess) = closest(key, expected) {
        let _ = write!(message, " (did you mean `{guess}`?)");
    }
    message
}

fn path_text(path: &Path) -> String {
    path.segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

fn name_value<'m>(meta: &'m Meta, errors: &mut Ctxt, example: &str) -> Option<&'m Expr> {
    if let Meta::NameValue(pair) = meta {
        Some(&pair.value)
    } else {
        errors.error(meta, format!("expected `{example}`"));
        None
    }
}

fn string(meta: &Meta, errors: &mut Ctxt) -> Option<LitStr> {
    let key = path_text(meta.path());
    let value = name_value(meta, errors, &format!("{key} = \"...\""))?;
    if let Expr::Lit(ExprLit {
        lit: Lit::Str(text),
        ..
    }) = value
    {
        Some(text.clone())
    } else {
        errors.error(
            value,
            format!("expected a string literal, like `{key} = \"...\"`"),
        );
        None
    }
}

fn strings(meta: &Meta, errors: &mut Ctxt) -> Vec<LitStr> {
    let key = path_text(meta.path());
    let example = format!("{key} = [\"...\", \"...\"]");
    let Some(value) = name_value(meta, errors, &example) else {
        return Vec::new();
    };
    let Expr::Array(ExprArray { elems, .. }) = value else {
        let message = match value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) => format!(
                "`{key}` takes a list of string literals, even for one; write `{key} = [{}]`",
                text.to_token_stream()
            ),
            _ => format!("expected a list of string literals, like `{example}`"),
        };
        errors.error(value, message);
        return Vec::new();
    };
    let mut out = Vec::new();
    for element in elems {
        if let Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) = element
        {
            out.push(text.clone());
        } else {
            errors.error(element, format!("expected a string literal in `{key}`"));
        }
    }
    out
}

/// The path of `examples = "path.json"`: one string literal that does not read
/// as JSON written without its list (`examples = r#"{..}"#` is that slip, and
/// [`strings`] says so).
fn examples_path(meta: &Meta) -> Option<&LitStr> {
    let Meta::NameValue(MetaNameValue {
        value: Expr::Lit(ExprLit {
            lit: Lit::Str(path),
            ..
        }),
        ..
    }) = meta
    else {
        return None;
    };
    let text = path.value();
    let text = text.trim_start();
    (!text.starts_with('{') && !text.starts_with('[')).then_some(path)
}

/// Reads `examples = "path.json"` from the crate's directory: a JSON array whose
/// items become the examples, each spanned on the path so the checks that follow
/// point at it. Returns the examples and the file's full path.
fn examples_file(path: &LitStr, errors: &mut Ctxt) -> Option<(Vec<LitStr>, String)> {
    const LIKE: &str = "write a JSON array of the tool's arguments, like `[{\"id\": 3}]`";
    let written = path.value();
    // Absent only outside Cargo; then the path is taken as it is.
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let full = std::path::Path::new(&dir).join(&written);
    let text = match std::fs::read_to_string(&full) {
        Ok(text) => text,
        Err(error) => {
            let reason = match error.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_owned(),
                _ => error.to_string(),
            };
            errors.error(
                path,
                format!(
                    "cannot read the examples file `{written}`: {reason}; the path is relative to the crate's directory (where its Cargo.toml is), or list the examples inline, like `examples = [r#\"{{\"id\": 3}}\"#]`"
                ),
            );
            return None;
        }
    };
    let items = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Array(items)) => items,
        Ok(_) => {
            errors.error(
                path,
                format!("the examples file `{written}` is not a JSON array; {LIKE}"),
            );
            return None;
        }
        Err(error) => {
            errors.error(
                path,
                format!("the examples file `{written}` is not JSON ({error}); {LIKE}"),
            );
            return None;
        }
    };
    let examples = items
        .iter()
        .map(|item| LitStr::new(&item.to_string(), path.span()))
        .collect();
    Some((examples, full.display().to_string()))
}

/// `quota = "<count>/<unit>"`, every mistake one error on the literal.
fn quota(meta: &Meta, errors: &mut Ctxt) -> Option<QuotaValue> {
    const UNITS: &str = "s, sec, second, min, minute, h, hour, d, day";
    let value = name_value(meta, errors, "quota = \"30/min\"")?;
    let Expr::Lit(ExprLit {
        lit: Lit::Str(literal),
        ..
    }) = value
    else {
        let written = value.to_token_stream().to_string();
        errors.error(
            value,
            format!("`quota` takes a string of calls per unit, like `quota = \"30/min\"`; found `{written}`"),
        );
        return None;
    };
    let text = literal.value();
    let malformed = || {
        format!(
            "malformed quota `{text}`; write a whole number of calls, `/` and a unit, like `quota = \"30/min\"` (units: {UNITS})"
        )
    };
    let Some((count, unit)) = text.split_once('/') else {
        errors.error(literal, malformed());
        return None;
    };
    if count.is_empty() || unit.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        errors.error(literal, malformed());
        return None;
    }
    let Some(&(_, period)) = QUOTA_UNITS.iter().find(|(word, _)| *word == unit) else {
        let words: Vec<&str> = QUOTA_UNITS.iter().map(|(word, _)| *word).collect();
        let mut message =
            format!("unknown unit `{unit}` in quota `{text}`; expected one of {UNITS}");
        if let Some(guess) = closest(unit, &words) {
            let _ = write!(message, " (did you mean `{count}/{guess}`?)");
        }
        errors.error(literal, message);
        return None;
    };
    let Ok(count) = count.parse::<u32>() else {
        errors.error(
            literal,
            format!("the quota's count {count} is more than 4294967295; use a longer unit (like `/d`) for a smaller count"),
        );
        return None;
    };
    if count == 0 {
        errors.error(
            literal,
            "a quota of 0 calls refuses every call; allow at least 1, like `quota = \"1/min\"`, or remove the tool",
        );
        return None;
    }
    Some(QuotaValue { count, period })
}

fn keyword(meta: &Meta, key: &str, allowed: &[Keyword], errors: &mut Ctxt) -> Option<Keyword> {
    let names: Vec<&str> = allowed.iter().map(|keyword| keyword.word).collect();
    let value = name_value(meta, errors, &format!("{key} = {}", names[0]))?;
    let ident: Option<&Ident> = match value {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        _ => None,
    };
    if let Expr::Lit(ExprLit {
        lit: Lit::Str(text),
        ..
    }) = value
    {
        let word = text.value();
        let written = if names.contains(&word.as_str()) {
            word
        } else {
            names[0].to_owned()
        };
        errors.error(
            value,
            format!(
                "`{key}` takes a bare word, not a string; write `{key} = {written}` without quotes (one of {})",
                names.join(", ")
            ),
        );
        return None;
    }
    let Some(ident) = ident else {
        errors.error(
            value,
            format!(
                "expected one of {} for `{key}`, like `{key} = {}`",
                names.join(", "),
                names[0]
            ),
        );
        return None;
    };
    let word = ident.to_string();
    if let Some(&found) = allowed.iter().find(|keyword| keyword.word == word) {
        return Some(found);
    }
    let mut message = format!(
        "unknown {key} `{word}`; expected one of {}",
        names.join(", ")
    );
    if let Some(guess) = closest(&word, &names) {
        let _ = write!(message, " (did you mean `{guess}`?)");
    }
    errors.error(ident, message);
    None
}

#[cfg(test)]
mod tests {
    use super::{Ctxt, LitStr, ToolAttr};

    /// `examples = "<file>"` with the file holding `contents`: the examples read
    /// and every error's message. An absolute path stays itself when joined to
    /// the crate's directory.
    fn examples_from(name: &str, contents: &str) -> (String, Vec<String>, Vec<String>) {
        let path =
            std::env::temp_dir().join(format!("toolkit-macros-{}-{name}.json", std::process::id()));
        std::fs::write(&path, contents).expect("a temporary file");
        let written = path.display().to_string();
        let mut errors = Ctxt::new();
        let attr = ToolAttr::parse(
            quote::quote!(scope = shared, tier = auto, examples = #written),
            &mut errors,
        );
        std::fs::remove_file(&path).expect("removed");
        let messages = errors
            .check()
            .err()
            .into_iter()
            .flatten()
            .map(|error| error.to_string())
            .collect();
        (
            written,
            attr.examples.iter().map(LitStr::value).collect(),
            messages,
        )
    }

    #[test]
    fn a_file_of_examples_gives_one_literal_per_item() {
        let (written, examples, errors) =
            examples_from("items", r#"[{"id": 3}, {"id": 4, "list": "work"}, 5]"#);
        assert_eq!(errors, Vec::<String>::new());
        // Items that are not objects are the validation's to report, as inline.
        assert_eq!(examples, [r#"{"id":3}"#, r#"{"id":4,"list":"work"}"#, "5"]);
        assert!(!written.is_empty());
    }

    #[test]
    fn a_file_that_is_not_a_json_array_is_one_error_on_the_path() {
        let (written, examples, errors) = examples_from("object", r#"{"id": 3}"#);
        assert!(examples.is_empty());
        assert_eq!(
            errors,
            [format!(
                "the examples file `{written}` is not a JSON array; write a JSON array of the tool's arguments, like `[{{\"id\": 3}}]`"
            )]
        );
    }
}
