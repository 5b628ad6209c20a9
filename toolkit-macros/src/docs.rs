//! Doc comments as descriptions.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the `#[doc = "..."]` attributes in `attrs`, cleaned for a model:
/// the one leading space rustdoc keeps is stripped, the lines of a paragraph are
/// joined with spaces (list items and code blocks keep their lines), paragraphs
/// are kept, and blank edges are trimmed.
///
/// Returns `Err` with the offending attribute when a doc attribute is not a string
/// literal (`#[doc = include_str!(..)]`), which the macro cannot read.
pub(crate) fn collect(attrs: &[Attribute]) -> Result<Option<String>, &Attribute> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("doc")) {
        match &attr.meta {
            Meta::NameValue(pair) => match &pair.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => {
                    let text = text.value();
                    // An empty `///` line is an empty string, which has no lines at
                    // all; it still separates paragraphs.
                    if text.is_empty() {
                        lines.push(String::new());
                    }
                    lines.extend(
                        text.lines()
                            .map(|line| line.strip_prefix(' ').unwrap_or(line).to_owned()),
                    );
                }
                _ => return Err(attr),
            },
            _ => return Err(attr),
        }
    }
    let text = join(&lines);
    Ok(if text.is_empty() { None } else { Some(text) })
}

fn join(lines: &[String]) -> String {
    let mut out = String::new();
    let mut in_code = false;
    let mut previous_blank = true;
    for line in lines {
        let trimmed = line.trim_end();
        if trimmed.trim_start().starts_with("```") {
            in_code = !in_code;
            push_line(&mut out, trimmed);
            previous_blank = false;
            continue;
        }
        if in_code {
            push_line(&mut out, trimmed);
            continue;
        }
        if trimmed.trim().is_empty() {
            if !previous_blank {
                out.push_str("\n\n");
            }
            previous_blank = true;
            continue;
        }
        let content = trimmed.trim_start();
        if previous_blank || starts_block(content) {
            if !previous_blank {
                out.push('\n');
            }
            out.push_str(content);
        } else {
            out.push(' ');
            out.push_str(content);
        }
        previous_blank = false;
    }
    out.trim().to_owned()
}

fn push_line(out: &mut String, line: &str) {
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(line);
    out.push('\n');
}

/// Lines that start a new line of their own inside a paragraph: list items.
fn starts_block(line: &str) -> bool {
    line.starts_with("- ")
        || line.starts_with("* ")
        || line.split_once(". ").is_some_and(|(number, _)| {
            !number.is_empty() && number.chars().all(|c| c.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use super::join;

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|line| (*line).to_owned()).collect()
    }

    #[test]
    fn joins_paragraph_lines_and_keeps_paragraphs() {
        assert_eq!(
            join(&lines(&[
                "",
                "Get tasks.",
                "Newest first.",
                "",
                "",
                "Second.",
                ""
            ])),
            "Get tasks. Newest first.\n\nSecond."
        );
    }

    #[test]
    fn keeps_list_items_on_their_own_lines() {
        assert_eq!(
            join(&lines(&[
                "Modes:",
                "- fast",
                "  and loose",
                "- slow",
                "1. one"
            ])),
            "Modes:\n- fast and loose\n- slow\n1. one"
        );
    }
}
