//! Every key of `#[tool(...)]` and of the parameter attributes, parsed in one place.

use std::fmt::Write as _;

use proc_macro2::{Delimiter, Group, Spacing, Span, TokenStream, TokenTree};
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
    "asks_first",
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
    /// `asks_first`: the call asks its client in rounds before it becomes a
    /// task; the flag's span.
    pub(crate) asks_first: Option<Span>,
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
    /// The path of `examples = "path.json"` as written, to name it in errors
    /// (which all point at the path: "example 3 of `path.json`").
    pub(crate) examples_written: Option<String>,
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
                            attr.examples_written = Some(path.value());
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
                "asks_first" => match &meta {
                    Meta::Path(path) => attr.asks_first = Some(path.span()),
                    Meta::NameValue(pair) => errors.error(&pair.value, ASKS_FIRST_IS_A_FLAG),
                    Meta::List(list) => errors.error(&list.tokens, ASKS_FIRST_IS_A_FLAG),
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
    let args = mend(args, errors);
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

/// Mends two slips that Rust's syntax cannot read, each with one error of its
/// own, so the rest of the attribute is still read and checked: a key written
/// in kebab-case (`asked-as`, read as `asked_as`), and a string whose inner
/// quotes were not escaped (`"{"id": 3}"`, which Rust reads as the string `"{"`,
/// the word `id` and the string `": 3}"`; read as the text the user meant).
fn mend(args: TokenStream, errors: &mut Ctxt) -> TokenStream {
    let tokens: Vec<TokenTree> = args.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    let mut index = 0;
    // At the start of an entry (after `(` or `,`), where a key is read.
    let mut at_key = true;
    while index < tokens.len() {
        if at_key && let TokenTree::Ident(first) = &tokens[index] {
            let mut end = index;
            let mut words = vec![first.to_string()];
            while let (Some(TokenTree::Punct(dash)), Some(TokenTree::Ident(next))) =
                (tokens.get(end + 1), tokens.get(end + 2))
            {
                if dash.as_char() != '-' || dash.spacing() != Spacing::Alone {
                    break;
                }
                words.push(next.to_string());
                end += 2;
            }
            if end > index {
                let written = words.join("-");
                let key = words.join("_");
                let message = if TOOL_KEYS.contains(&key.as_str()) {
                    format!("`{written}` is written with `_` in Rust attributes; write `{key}`")
                } else {
                    format!(
                        "keys of `#[tool]` are written with `_`, not `-`, and `{key}` is none of them either; expected one of {}",
                        TOOL_KEYS.join(", ")
                    )
                };
                let last = &tokens[end];
                errors.error(quote::quote!(#first #last), message);
                out.push(TokenTree::Ident(Ident::new(&key, first.span())));
                index = end + 1;
                at_key = false;
                continue;
            }
        }
        at_key = false;
        match &tokens[index] {
            TokenTree::Punct(punct) if punct.as_char() == ',' => {
                at_key = true;
                out.push(tokens[index].clone());
                index += 1;
            }
            TokenTree::Group(group) if group.delimiter() == Delimiter::Bracket => {
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                let mended = mend_quotes(&inner, errors);
                let mut replaced = Group::new(Delimiter::Bracket, mended.into_iter().collect());
                replaced.set_span(group.span());
                out.push(TokenTree::Group(replaced));
                index += 1;
            }
            TokenTree::Literal(_) => {
                // A value outside a list: the run ends at the entry's `,`.
                let end = tokens[index..]
                    .iter()
                    .position(
                        |token| matches!(token, TokenTree::Punct(punct) if punct.as_char() == ','),
                    )
                    .map_or(tokens.len(), |offset| index + offset);
                out.extend(mend_quotes(&tokens[index..end], errors));
                index = end;
            }
            other => {
                out.push(other.clone());
                index += 1;
            }
        }
    }
    out.into_iter().collect()
}

/// Within one comma-separated list, each run of tokens that starts with a string
/// literal and reaches the next `,` without one between: a string whose inner
/// quotes ended it early. The run becomes one string literal holding what the
/// user wrote between the outer quotes, and one error says how to write it.
fn mend_quotes(tokens: &[TokenTree], errors: &mut Ctxt) -> Vec<TokenTree> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut start = 0;
    while start < tokens.len() {
        let end = tokens[start..]
            .iter()
            .position(|token| matches!(token, TokenTree::Punct(punct) if punct.as_char() == ','))
            .map_or(tokens.len(), |offset| start + offset);
        let run = &tokens[start..end];
        match run {
            // A string that ran into a word (`"{"id`) is one literal with a
            // suffix. Strings with only whole strings between them lack a comma,
            // which Rust's own error says.
            [TokenTree::Literal(first), .., TokenTree::Literal(last)]
                if first.to_string().starts_with('"')
                    && last.to_string().ends_with('"')
                    && run[..run.len() - 1]
                        .iter()
                        .any(|token| !matches!(token, TokenTree::Literal(literal) if is_plain_string(literal))) =>
            {
                // Spaces were lost with the tokens: put one back between two
                // words (`milk and eggs`), none next to punctuation or quotes.
                let mut text = String::new();
                for token in run {
                    let token = token.to_string();
                    let joins_words = text.ends_with(|c: char| c.is_alphanumeric() || c == '_')
                        && token.starts_with(|c: char| c.is_alphanumeric() || c == '_');
                    if joins_words {
                        text.push(' ');
                    }
                    text.push_str(&token);
                }
                // The text between the first and the last quote.
                let meant = &text[1..text.len() - 1];
                errors.error(
                    quote::quote!(#first #last),
                    format!(
                        "the quotes inside this string end it early; write it as a raw string, `r#\"{meant}\"#`, whose inner quotes need no escaping"
                    ),
                );
                let mut literal = proc_macro2::Literal::string(meant);
                literal.set_span(first.span());
                out.push(TokenTree::Literal(literal));
            }
            _ => out.extend(run.iter().cloned()),
        }
        if let Some(comma) = tokens.get(end) {
            out.push(comma.clone());
        }
        start = end + 1;
    }
    out
}

/// A whole string literal written `"..."`: not raw, not a byte string, nothing
/// after its closing quote.
fn is_plain_string(literal: &proc_macro2::Literal) -> bool {
    let text = literal.to_string();
    text.len() >= 2 && text.starts_with('"') && text.ends_with('"')
}

const ASKS_FIRST_IS_A_FLAG: &str = "`asks_first` is a flag and takes no value; write `asks_first` alone, or leave it out for a task that starts at once";
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
                ("examples", _) => errors.error(
                    meta.path(),
                    "`examples` goes in the function's `#[tool(...)]`, not on a parameter: an example is a whole call's arguments, one JSON object naming each parameter, like `#[tool(.., examples = [r#\"{\"id\": 3}\"#])]`",
                ),
                (key, _) if TOOL_KEYS.contains(&key) => errors.error(
                    meta.path(),
                    format!("`{key}` goes in the function's `#[tool(...)]`, not on a parameter; a parameter's `#[tool]` takes only `default`"),
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
            }) => match serde_json::from_str::<serde_json::Value>(&text.value()) {
                // One string holding the whole list: each item becomes one string.
                Ok(serde_json::Value::Array(items)) if key == "examples" => {
                    let each: Vec<String> =
                        items.iter().map(|item| format!("r#\"{item}\"#")).collect();
                    format!(
                        "`examples` takes a list with one string per example, not one string holding a JSON array; write `examples = [{}]`, or keep the array in a file and write `examples = \"examples.json\"`",
                        each.join(", ")
                    )
                }
                _ => format!(
                    "`{key}` takes a list of string literals, even for one; write `{key} = [{}]`",
                    text.to_token_stream()
                ),
            },
            Expr::Macro(call) if key == "examples" => file_form(call),
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
        } else if let (Expr::Macro(call), "examples") = (element, key.as_str()) {
            errors.error(element, file_form(call));
        } else {
            errors.error(element, format!("expected a string literal in `{key}`"));
        }
    }
    out
}

/// `include_str!("x.json")` for examples: the file form names the path alone.
fn file_form(call: &syn::ExprMacro) -> String {
    let path = call.mac.parse_body::<LitStr>().map_or_else(
        |_| "examples.json".to_owned(),
        |path| from_crate_dir(&path.value()),
    );
    format!(
        "`examples` reads a file itself; write `examples = \"{path}\"` (the path alone, relative to the crate's directory, without `[..]` or `{}!`)",
        path_text(&call.mac.path)
    )
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
            let message = if let Some(line) = comment_at(&text, &error) {
                format!(
                    "the examples file `{written}` has a comment at line {line}, and JSON has no comments; remove it (a note for the model belongs in the tool's doc comment)"
                )
            } else {
                format!("the examples file `{written}` is not JSON ({error}); {LIKE}")
            };
            errors.error(path, message);
            return None;
        }
    };
    let examples = items
        .iter()
        .map(|item| LitStr::new(&item.to_string(), path.span()))
        .collect();
    Some((examples, full.display().to_string()))
}

std::thread_local! {
    /// The source file the `#[tool]` being expanded is in, when the compiler says.
    static SOURCE_FILE: std::cell::RefCell<Option<std::path::PathBuf>> =
        const { std::cell::RefCell::new(None) };
}

/// Records the file of the `#[tool]` being expanded (`include_str!` paths are
/// relative to it, `examples = ".."` to the crate's directory).
pub(crate) fn set_source_file(file: Option<std::path::PathBuf>) {
    SOURCE_FILE.with(|cell| *cell.borrow_mut() = file);
}

/// An `include_str!` path (relative to the source file) as the crate-relative
/// path `examples = ".."` wants; the path as written when either directory is
/// unknown.
fn from_crate_dir(written: &str) -> String {
    use std::path::{Component, Path, PathBuf};
    let Some(file) = SOURCE_FILE.with(|cell| cell.borrow().clone()) else {
        return written.to_owned();
    };
    let Some(crate_dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return written.to_owned();
    };
    // A relative file name is relative to the compiler's working directory
    // (cargo's workspace root), which a proc macro shares.
    let file = match std::env::current_dir() {
        Ok(cwd) if file.is_relative() => cwd.join(file),
        _ => file,
    };
    let joined = file.parent().unwrap_or(Path::new("")).join(written);
    let mut resolved = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    // The compiler may name the file relative to the crate's directory.
    let crate_dir = Path::new(&crate_dir);
    let relative = resolved
        .strip_prefix(crate_dir)
        .map(Path::to_path_buf)
        .unwrap_or(resolved);
    if relative.is_absolute() {
        return written.to_owned();
    }
    relative.display().to_string()
}

/// The line of the `//` or `/*` comment where `serde_json` stopped, if it stopped
/// at one.
fn comment_at(text: &str, error: &serde_json::Error) -> Option<usize> {
    let line = text.lines().nth(error.line().checked_sub(1)?)?;
    // The column is the character serde_json stopped on, or the one after it.
    let column = error.column().checked_sub(1)?;
    let starts = |at: usize| {
        let rest: String = line.chars().skip(at).take(2).collect();
        rest == "//" || rest == "/*"
    };
    (starts(column) || column.checked_sub(1).is_some_and(starts)).then_some(error.line())
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
    fn a_file_with_a_comment_is_told_that_json_has_none() {
        let (written, examples, errors) = examples_from(
            "comment",
            "[\n  {\"id\": 3},\n  // the next one\n  {\"id\": 4}\n]",
        );
        assert!(examples.is_empty());
        assert_eq!(
            errors,
            [format!(
                "the examples file `{written}` has a comment at line 3, and JSON has no comments; remove it (a note for the model belongs in the tool's doc comment)"
            )]
        );
        let (_, _, errors) = examples_from("block", "[{\"id\": 3} /* why */]");
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains("has a comment at line 1"), "{errors:?}");
    }

    fn parse(args: proc_macro2::TokenStream) -> (ToolAttr, Vec<String>) {
        let mut errors = Ctxt::new();
        let attr = ToolAttr::parse(args, &mut errors);
        let messages = errors
            .check()
            .err()
            .into_iter()
            .flatten()
            .map(|error| error.to_string())
            .collect();
        (attr, messages)
    }

    #[test]
    fn a_kebab_case_key_is_one_error_and_read_as_meant() {
        let (attr, errors) = parse(quote::quote!(
            scope = shared, tier = auto, asked-as = ["will it rain"], examples = []
        ));
        assert_eq!(
            errors,
            ["`asked-as` is written with `_` in Rust attributes; write `asked_as`"]
        );
        assert_eq!(
            attr.asked_as.iter().map(LitStr::value).collect::<Vec<_>>(),
            ["will it rain"]
        );
        assert!(attr.scope.is_some() && attr.tier.is_some());
    }

    #[test]
    fn inner_quotes_are_one_error_that_gives_the_raw_string() {
        // Written as a user would; Rust's lexer (and proc_macro2's) reads the
        // words before a quote as separate tokens.
        let args: proc_macro2::TokenStream = r##"scope = shared, tier = auto, examples = ["{"id": 3, "q": "milk and eggs"}", r#"{"id": 4}"#]"##
            .parse()
            .expect("tokens");
        let (attr, errors) = parse(args);
        assert_eq!(
            errors,
            [
                r##"the quotes inside this string end it early; write it as a raw string, `r#"{"id": 3, "q": "milk and eggs"}"#`, whose inner quotes need no escaping"##
            ]
        );
        // Read as meant, so the example's own checks still run on it.
        assert_eq!(
            attr.examples.iter().map(LitStr::value).collect::<Vec<_>>(),
            [r#"{"id": 3, "q": "milk and eggs"}"#, r#"{"id": 4}"#]
        );
        // Two strings without a comma are left to Rust's own error.
        let (_, errors) = parse(quote::quote!(scope = shared, tier = auto, asked_as = ["a" "b"]));
        assert_eq!(errors.len(), 1);
        assert!(!errors[0].contains("quotes inside"), "{errors:?}");
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
