//! Echoing what a caller sent (a tool name, a key, a string value) back in a
//! message: a bounded prefix, with the characters that could hide or reorder text
//! written as escapes. It stands below everything that writes messages (the
//! errors, the argument checks, the registry), and uses nothing of the crate.

use std::fmt::Write as _;

/// The longest piece of the caller's input (a string value, a key, a tool name)
/// echoed back in a message, in characters.
pub(crate) const ECHO_CHARS: usize = 64;

/// A prefix of `text` safe to echo: at most `max` characters, control and invisible
/// characters written as `\u{..}` escapes, an ellipsis and the full length when cut.
pub(crate) fn clean(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == max {
            let _ = write!(out, "…({} characters in all)", text.chars().count());
            return out;
        }
        if c == '"' || c == '\\' {
            out.push('\\');
            out.push(c);
        } else if is_invisible(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// An echo of a name or field: cleaned and cut.
pub(crate) fn echo(text: &str) -> String {
    clean(text, ECHO_CHARS)
}

/// Control characters and the invisible format characters used to hide or reorder
/// text (zero-width spaces and joiners, bidirectional overrides, the BOM, tags).
pub(crate) fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}' | '\u{ffa0}'
            | '\u{fff0}'..='\u{fffb}'
            | '\u{e0000}'..='\u{e0fff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoes_are_cut_and_cleaned() {
        assert_eq!(clean("get\u{200b}_tasks\n", 64), "get\\u{200b}_tasks\\u{a}");
        let long = "x".repeat(1000);
        assert_eq!(clean(&long, 4), "xxxx…(1000 characters in all)");
    }
}
