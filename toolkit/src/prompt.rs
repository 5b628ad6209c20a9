//! System prompts: the guidance block of the active tools and a `$placeholder`
//! template with safe substitution.
//!
//! ```
//! use toolkit::prompt::Template;
//!
//! let template = Template::new("$soul\n\n$chat\n\n$tool_guidance\n\nBudget: $$5, $unknown")
//!     .set("soul", "You are Pip.")
//!     .set_on("chat", ["web", "telegram"], "Keep replies short.")
//!     .set("tool_guidance", "");
//! assert_eq!(template.render("web"), "You are Pip.\n\nKeep replies short.\n\nBudget: $5, $unknown");
//! assert_eq!(template.render("heartbeat"), "You are Pip.\n\nBudget: $5, $unknown");
//! ```

use std::collections::BTreeMap;

use crate::route::{AsTool, CatalogEntry};

/// The guidance of `tools`, in the order given, as one block for the system
/// prompt; empty when none of them has guidance.
///
/// ```text
/// <tool-guidance>
/// <getPage>Get a page by slug when the user names its URL.</getPage>
/// <deletePost>Deleting is final; confirm the title first.</deletePost>
/// </tool-guidance>
/// ```
///
/// `<`, `>` and `&` in guidance are written as `&lt;`, `&gt;`, `&amp;`, so a
/// guidance text can't close the block.
pub fn guidance<T: AsTool>(tools: impl IntoIterator<Item = T>) -> String {
    block(tools.into_iter().map(|tool| {
        let tool = tool.as_tool();
        (tool.name.to_owned(), tool.guidance.map(str::to_owned))
    }))
}

/// [`guidance`] for catalog entries (tools from elsewhere, such as an MCP server).
pub fn guidance_of_entries<'a>(entries: impl IntoIterator<Item = &'a CatalogEntry>) -> String {
    block(
        entries
            .into_iter()
            .map(|entry| (entry.name.clone(), entry.guidance.clone())),
    )
}

fn block(items: impl Iterator<Item = (String, Option<String>)>) -> String {
    let mut out = String::new();
    for (name, guidance) in items {
        let Some(guidance) = guidance else { continue };
        if out.is_empty() {
            out.push_str("<tool-guidance>\n");
        }
        out.push('<');
        out.push_str(&name);
        out.push('>');
        for c in guidance.chars() {
            match c {
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '&' => out.push_str("&amp;"),
                c => out.push(c),
            }
        }
        out.push_str("</");
        out.push_str(&name);
        out.push_str(">\n");
    }
    if !out.is_empty() {
        out.push_str("</tool-guidance>");
    }
    out
}

/// Replaces `$name` and `${name}` with `lookup(name)`, leaving unknown
/// placeholders exactly as written; `$$` becomes `$`; any other `$` stays.
///
/// A name is an ASCII letter or `_` followed by letters, digits and `_`; `$name`
/// takes the longest such run, `${name}` says where it ends. Substituted values are
/// never scanned again, so a `$` in a value (a user's text) can't pull in another
/// value. Never panics, whatever the template.
///
/// ```
/// use toolkit::prompt::substitute;
///
/// let text = substitute("Hi $who, ${who}s cost $$3; $nobody ${x", |name| {
///     (name == "who").then_some("Ada")
/// });
/// assert_eq!(text, "Hi Ada, Adas cost $3; $nobody ${x");
/// ```
pub fn substitute<'v>(template: &str, lookup: impl Fn(&str) -> Option<&'v str>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
            continue;
        }
        let found = if let Some(braced) = after.strip_prefix('{') {
            braced.find('}').and_then(|end| {
                let name = &braced[..end];
                let value = (identifier_len(name) == name.len())
                    .then(|| lookup(name))
                    .flatten()?;
                Some((value, &braced[end + 1..]))
            })
        } else {
            let length = identifier_len(after);
            (length > 0)
                .then(|| lookup(&after[..length]))
                .flatten()
                .map(|value| (value, &after[length..]))
        };
        match found {
            Some((value, tail)) => {
                out.push_str(value);
                rest = tail;
            }
            None => {
                // Not a known placeholder: keep the `$` and scan on after it.
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The length of the placeholder name at the start of `text` (0 if none).
fn identifier_len(text: &str) -> usize {
    let mut bytes = text.bytes();
    match bytes.next() {
        Some(first) if first.is_ascii_alphabetic() || first == b'_' => {
            1 + bytes
                .take_while(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
                .count()
        }
        _ => 0,
    }
}

/// One value of a [`Template`]: its text, and the channels it renders on (every
/// channel when `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Value {
    text: String,
    channels: Option<Vec<String>>,
}

/// A prompt template with `$placeholder`s and the values to fill them, some only
/// on some channels (a web chat gets a "talking with the user" section, a
/// scheduled run does not).
///
/// [`render`](Self::render) substitutes safely (see [`substitute`]): unknown
/// placeholders stay as written, `$$` is a `$`, values are not scanned again. A
/// value that doesn't apply to the channel renders as nothing, and the blank lines
/// it leaves are folded away: trailing spaces are trimmed, runs of blank lines
/// become one, blank lines at both ends go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Template {
    text: String,
    values: BTreeMap<String, Value>,
}

impl Template {
    /// A template; values are added with [`set`](Self::set) and
    /// [`set_on`](Self::set_on).
    #[must_use]
    pub fn new(text: impl Into<String>) -> Self {
        Template {
            text: text.into(),
            values: BTreeMap::new(),
        }
    }

    /// `$name` renders as `text` on every channel (the guidance block, a persona,
    /// the user's instructions).
    #[must_use]
    pub fn set(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.values.insert(
            name.into(),
            Value {
                text: text.into(),
                channels: None,
            },
        );
        self
    }

    /// `$name` renders as `text` on these channels and as nothing on any other.
    #[must_use]
    pub fn set_on<C: Into<String>>(
        mut self,
        name: impl Into<String>,
        channels: impl IntoIterator<Item = C>,
        text: impl Into<String>,
    ) -> Self {
        self.values.insert(
            name.into(),
            Value {
                text: text.into(),
                channels: Some(channels.into_iter().map(Into::into).collect()),
            },
        );
        self
    }

    /// The prompt for a run on `channel`.
    #[must_use]
    pub fn render(&self, channel: &str) -> String {
        let text = substitute(&self.text, |name| {
            let value = self.values.get(name)?;
            let shown = value
                .channels
                .as_ref()
                .is_none_or(|channels| channels.iter().any(|known| known == channel));
            Some(if shown { value.text.as_str() } else { "" })
        });
        fold_blank_lines(&text)
    }
}

/// Trims trailing spaces from lines, folds runs of blank lines into one, and trims
/// blank lines at both ends.
fn fold_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = false;
    for line in text.lines().map(str::trim_end) {
        if line.is_empty() {
            blank_run = !out.is_empty();
            continue;
        }
        if blank_run {
            out.push('\n');
            blank_run = false;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(name: &str) -> Option<&'static str> {
        match name {
            "soul" => Some("You are Pip."),
            "who" => Some("Ada"),
            "empty" => Some(""),
            _ => None,
        }
    }

    #[test]
    fn placeholders_in_both_spellings_and_escapes() {
        assert_eq!(substitute("$soul Hi $who.", values), "You are Pip. Hi Ada.");
        assert_eq!(substitute("${who}'s ${soul}", values), "Ada's You are Pip.");
        assert_eq!(substitute("[$empty]", values), "[]");
        assert_eq!(
            substitute("$who_ $who-x ${who}_x", values),
            "$who_ Ada-x Ada_x"
        );
        assert_eq!(
            substitute("costs $$5, $$who, $$$who", values),
            "costs $5, $who, $Ada"
        );
        assert_eq!(
            substitute("$operating_model and ${tool_guidance}", values),
            "$operating_model and ${tool_guidance}"
        );
    }

    #[test]
    fn stray_dollars_stay_and_values_are_not_rescanned() {
        for text in [
            "$", "a $ b", "$1", "${", "${who", "${ who }", "${}", "$é", "é$", "${wh o}",
        ] {
            assert_eq!(substitute(text, values), text, "{text:?}");
        }
        assert_eq!(substitute("$$$", values), "$$");
        let text = substitute("$a|$b", |name| match name {
            "a" => Some("$b and $$"),
            "b" => Some("B"),
            _ => None,
        });
        assert_eq!(text, "$b and $$|B");
    }

    #[test]
    fn channel_values_render_only_on_their_channels() {
        let template = Template::new("  $a  \n\n\n$b\n\n$c\n\n$d\n$missing")
            .set("a", "A")
            .set("b", "")
            .set_on("c", ["web", "telegram"], "C")
            .set("d", "D\n\n\n\nE");
        assert_eq!(template.render("web"), "  A\n\nC\n\nD\n\nE\n$missing");
        assert_eq!(template.render("scheduled"), "  A\n\nD\n\nE\n$missing");
    }

    fn entry(name: &str, guidance: Option<&str>) -> CatalogEntry {
        let mut entry = CatalogEntry::new(name, "A tool.");
        entry.guidance = guidance.map(str::to_owned);
        entry
    }

    #[test]
    fn the_guidance_block_keeps_order_skips_tools_without_and_escapes() {
        let entries = [
            entry("getPage", Some("Get by slug when the user names a URL.")),
            entry("finalAnswer", None),
            entry("deletePost", Some("Preview first; <b> & co are escaped.")),
        ];
        assert_eq!(
            guidance_of_entries(&entries),
            "<tool-guidance>\n\
             <getPage>Get by slug when the user names a URL.</getPage>\n\
             <deletePost>Preview first; &lt;b&gt; &amp; co are escaped.</deletePost>\n\
             </tool-guidance>"
        );
        assert_eq!(guidance_of_entries(&entries[1..2]), "");
        assert_eq!(guidance::<&crate::tool::Tool>([]), "");
    }
}
