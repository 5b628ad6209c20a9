//! A JSON text laid out so that the line of a serde error names its place.
//!
//! The slow path needs the path of serde's own errors (a type's rule the schema
//! does not say, a duplicate key). Tracking it with a wrapping deserializer
//! compiles every argument type's `Deserialize` a second time in every crate of
//! tools, which would double their build time. Instead, the text is written again
//! with every object member and array element on a line of its own, and parsed
//! with the very `serde_json::from_str::<T>` of the fast path: `serde_json` gives
//! the line of the error, and the line gives the place.
//!
//! Where `serde_json` puts an error, and so which line holds it:
//! - a scalar's error (wrong type, out of range, a type's own rule) comes right
//!   after the scalar, on its member's line;
//! - an error about an object or array as a whole (wrong type) comes at its opening
//!   bracket, on its member's line;
//! - a key's error (unknown, duplicate) comes right after the key, on its member's
//!   line;
//! - an error raised by a `Deserialize` impl after `serde_json` returned (a missing
//!   field, too few elements, a buffered enum's rule, a `try_from` type's rule) is
//!   placed by the container around it, where that container stopped reading: after
//!   the member, on its line, if a comma follows it; after the container's closing
//!   bracket if it was the last one. That bracket has a line of its own, which
//!   names both the container (for the errors a container raises itself: "missing
//!   field", "invalid length") and its last member (for every other). A comma
//!   after a closing bracket is written after a space: an error of the container
//!   itself, placed by its parent, then comes after the space, not right after the
//!   bracket.
//!
//! The text is valid JSON already (it parsed into a `Value`, or was written from
//! one), and the nesting depth was checked: the scan has no recursion, and its
//! work and output are linear in the input.

/// One step of a place, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
    /// An array element.
    Index(usize),
    /// An object member.
    Key(String),
}

/// A place in the document: its parent and the step from it.
struct Node {
    parent: u32,
    step: Option<Segment>,
}

/// The laid-out text and the place of each of its lines.
pub(crate) struct Layout {
    /// The same JSON value, one member or element per line.
    pub(crate) text: String,
    /// Each line's node, first line first.
    lines: Vec<Line>,
    nodes: Vec<Node>,
}

/// What a line holds.
#[derive(Clone, Copy)]
struct Line {
    node: u32,
    /// For a closing bracket's line, its container's last member.
    last: Option<u32>,
    /// For an object member's line, the column where its key ends.
    key_end: usize,
    /// For a member's line, the member before it in the same container.
    previous: Option<u32>,
}

/// An open container while scanning.
struct Frame {
    node: u32,
    array: bool,
    next_index: usize,
    last: u32,
}

impl Layout {
    /// Lays out `json`, or `None` if it is not the valid JSON it must be.
    pub(crate) fn new(json: &str) -> Option<Layout> {
        let mut layout = Layout {
            text: String::with_capacity(json.len() + json.len() / 2 + 16),
            lines: Vec::new(),
            nodes: vec![Node {
                parent: 0,
                step: None,
            }],
        };
        let bytes = json.as_bytes();
        let mut at = skip_space(bytes, 0);
        let mut stack: Vec<Frame> = Vec::new();
        layout.new_line(0, None);
        // Each turn writes one value at `at`, for the node `node`.
        let mut node = 0;
        loop {
            match *bytes.get(at)? {
                open @ (b'{' | b'[') => {
                    layout.text.push(char::from(open));
                    let array = open == b'[';
                    at = skip_space(bytes, at + 1);
                    let close = if array { b']' } else { b'}' };
                    if *bytes.get(at)? == close {
                        layout.text.push(char::from(close));
                        at += 1;
                    } else {
                        stack.push(Frame {
                            node,
                            array,
                            next_index: 0,
                            last: node,
                        });
                        (node, at) = layout.member(json, at, stack.last_mut()?)?;
                        continue;
                    }
                }
                b'"' => {
                    let end = string_end(bytes, at)?;
                    layout.text.push_str(json.get(at..end)?);
                    at = end;
                }
                _ => {
                    let end = scalar_end(bytes, at);
                    if end == at {
                        return None;
                    }
                    layout.text.push_str(json.get(at..end)?);
                    at = end;
                }
            }
            // The value is written: a comma and the next member, or closings.
            loop {
                at = skip_space(bytes, at);
                let Some(frame) = stack.last_mut() else {
                    return (at == bytes.len()).then_some(layout);
                };
                match *bytes.get(at)? {
                    b',' => {
                        if layout.text.ends_with(['}', ']']) {
                            layout.text.push(' ');
                        }
                        layout.text.push(',');
                        at = skip_space(bytes, at + 1);
                        (node, at) = layout.member(json, at, frame)?;
                        break;
                    }
                    close @ (b'}' | b']') if (close == b']') == frame.array => {
                        let (node, last) = (frame.node, frame.last);
                        layout.new_line(node, Some(last));
                        layout.text.push(char::from(close));
                        stack.pop();
                        at += 1;
                    }
                    _ => return None,
                }
            }
        }
    }

    /// Starts the next member or element of `frame` at `at` on a line of its own:
    /// its node, and where its value starts.
    fn member(&mut self, json: &str, at: usize, frame: &mut Frame) -> Option<(u32, usize)> {
        let bytes = json.as_bytes();
        // `last` is the container itself until its first member.
        let previous = (frame.last != frame.node).then_some(frame.last);
        if frame.array {
            let node = self.child(frame.node, Segment::Index(frame.next_index));
            frame.next_index += 1;
            frame.last = node;
            self.new_line(node, None);
            if let Some(line) = self.lines.last_mut() {
                line.previous = previous;
            }
            return Some((node, at));
        }
        let end = string_end(bytes, at)?;
        let token = json.get(at..end)?;
        let key: String = serde_json::from_str(token).ok()?;
        let node = self.child(frame.node, Segment::Key(key));
        frame.last = node;
        self.new_line(node, None);
        self.text.push_str(token);
        if let Some(line) = self.lines.last_mut() {
            line.key_end = token.len();
            line.previous = previous;
        }
        let colon = skip_space(bytes, end);
        if *bytes.get(colon)? != b':' {
            return None;
        }
        self.text.push(':');
        Some((node, skip_space(bytes, colon + 1)))
    }

    fn child(&mut self, parent: u32, step: Segment) -> u32 {
        // At most one node per byte of a text limited in size.
        let id = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push(Node {
            parent,
            step: Some(step),
        });
        id
    }

    fn new_line(&mut self, node: u32, last: Option<u32>) {
        if !self.lines.is_empty() {
            self.text.push('\n');
        }
        self.lines.push(Line {
            node,
            last,
            key_end: 0,
            previous: None,
        });
    }

    /// The place of serde's error `message` at `line` and `column` (as `serde_json`
    /// counts, from 1), as steps from the root; the root for a line it does not
    /// have. `grammar` is for `serde_json`'s own complaints about the text's shape
    /// as a type reads it (more elements than a tuple takes, a second key beside
    /// an enum's variant). `value` is the value the text was written from, when
    /// there is one: it tells a container's own error from its last member's.
    pub(crate) fn place(
        &self,
        line: usize,
        column: usize,
        message: &str,
        grammar: bool,
        value: Option<&serde_json::Value>,
    ) -> Vec<Segment> {
        let Some(Line {
            node,
            last,
            key_end,
            previous,
        }) = line
            .checked_sub(1)
            .and_then(|index| self.lines.get(index).copied())
        else {
            return Vec::new();
        };
        let parent = |node: u32| {
            self.nodes
                .get(node as usize)
                .map_or(0, |found| found.parent)
        };
        let node = match last {
            // Before anything on a member's line: a sequence whose element
            // raised an error after `serde_json` returned it (a buffered enum's
            // content, a `try_from` type's rule) reads on to its own end before
            // placing it, taking the comma and the line break after the element,
            // so the error lands at the start of the next element's line. It is
            // the element before's, unless it is this element's own wrong kind
            // of bracket, which `serde_json` places there too.
            None if column == 0 => match previous {
                Some(previous) if !self.own_bracket(node, previous, message, value) => previous,
                _ => node,
            },
            // A closing bracket's line, right after the bracket: the container
            // placed the error as it ended, for itself (the errors only a
            // container raises) or for its last member.
            Some(last) if column <= 1 => {
                // A last member whose content serde buffered (an internally
                // tagged or untagged enum) raises the same words only after
                // `serde_json` read it, so after the container ended too: the
                // container is named only where its own value bears them out.
                let own = (message.starts_with("missing field ")
                    || message.starts_with("invalid length "))
                    && value.is_none_or(|value| {
                        value_at(value, &self.steps(node))
                            .is_none_or(|container| bears_out(container, message))
                    });
                if own { node } else { last }
            }
            // Past the bracket, before a comma: its parent placed it, for the
            // container; or `serde_json` found a second key beside an enum's
            // variant, whose value the container is.
            Some(_) if grammar => parent(node),
            // Right after a key: an unknown field is named with its key (as
            // serde's path tracking does), any other key's error (a key given
            // twice, an unknown variant, a map key of the wrong type) with the
            // object.
            None if key_end > 0 && column <= key_end && !message.starts_with("unknown field ") => {
                parent(node)
            }
            // An element past what a tuple takes: the array.
            None if grammar && message.starts_with("trailing characters") => parent(node),
            Some(_) | None => node,
        };
        self.steps(node)
    }

    /// Whether an error at the first byte of `element` is its own opening bracket
    /// refused ("invalid type: map" for an object, "invalid type: sequence" for
    /// an array) rather than an error of `previous` placed late: `previous`'s
    /// would come from buffered content, which holds that kind of value inside
    /// it.
    fn own_bracket(
        &self,
        element: u32,
        previous: u32,
        message: &str,
        value: Option<&serde_json::Value>,
    ) -> bool {
        let kind = |value: &serde_json::Value| match value {
            serde_json::Value::Object(_) => "map",
            serde_json::Value::Array(_) => "sequence",
            _ => "",
        };
        let Some(bracket) = message
            .strip_prefix("invalid type: ")
            .and_then(|rest| rest.split(',').next())
            .filter(|bracket| matches!(*bracket, "map" | "sequence"))
        else {
            return false;
        };
        let Some(value) = value else {
            return true;
        };
        let is_bracket =
            value_at(value, &self.steps(element)).is_some_and(|at| kind(at) == bracket);
        let inside_previous = value_at(value, &self.steps(previous)).is_some_and(|at| {
            let mut children: Vec<&serde_json::Value> = match at {
                serde_json::Value::Object(members) => members.values().collect(),
                serde_json::Value::Array(elements) => elements.iter().collect(),
                _ => Vec::new(),
            };
            // Depth was checked before the text was laid out.
            while let Some(child) = children.pop() {
                if kind(child) == bracket {
                    return true;
                }
                match child {
                    serde_json::Value::Object(members) => children.extend(members.values()),
                    serde_json::Value::Array(elements) => children.extend(elements),
                    _ => {}
                }
            }
            false
        });
        is_bracket && !inside_previous
    }

    /// A node's place, as steps from the root.
    fn steps(&self, mut node: u32) -> Vec<Segment> {
        let mut steps = Vec::new();
        while let Some(Node { parent, step }) = self.nodes.get(node as usize) {
            let Some(step) = step else { break };
            steps.push(step.clone());
            node = *parent;
        }
        steps.reverse();
        steps
    }
}

/// Whether a container's own value could have raised a container's error: an
/// object without the missing field, an array of the length said.
fn bears_out(container: &serde_json::Value, message: &str) -> bool {
    if let Some(rest) = message.strip_prefix("missing field `") {
        let field = rest.split('`').next().unwrap_or_default();
        return container
            .as_object()
            .is_some_and(|members| !members.contains_key(field));
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        // Too many elements is `serde_json`'s own "trailing characters" on a
        // text; these words come from buffered content only.
        if rest.contains(" elements in sequence") || rest.contains(" elements in map") {
            return false;
        }
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let length = match container {
            serde_json::Value::Array(elements) => elements.len(),
            serde_json::Value::Object(members) => members.len(),
            _ => return false,
        };
        return digits.parse() == Ok(length);
    }
    true
}

/// The value a place points at, if it can be followed.
pub(crate) fn value_at<'v>(
    mut value: &'v serde_json::Value,
    place: &[Segment],
) -> Option<&'v serde_json::Value> {
    for step in place {
        value = match step {
            Segment::Index(index) => value.get(*index)?,
            Segment::Key(key) => value.get(key)?,
        };
    }
    Some(value)
}

/// A place as the messages write it: `tasks[2].due`, `.` for the root.
pub(crate) fn display(steps: &[Segment]) -> String {
    let mut out = ".".to_owned();
    for step in steps {
        out = match step {
            Segment::Index(index) => super::messages::join_index(&out, *index),
            Segment::Key(key) => super::messages::join_key(&out, key),
        };
    }
    out
}

/// A path from `serde_path_to_error`, written the toolkit way: `tasks[2].due`,
/// `config[""]`, `.` for the root; segments serde could not name are left out.
pub(crate) fn serde_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment as Step;
    let steps: Vec<Segment> = path
        .iter()
        .filter_map(|segment| match segment {
            Step::Seq { index } => Some(Segment::Index(*index)),
            Step::Map { key } | Step::Enum { variant: key } => Some(Segment::Key(key.clone())),
            Step::Unknown => None,
        })
        .collect();
    display(&steps)
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

/// The end (one past the closing quote) of the string starting at `at`.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut index = at + 1;
    loop {
        match *bytes.get(index)? {
            b'"' => return Some(index + 1),
            b'\\' => index += 2,
            _ => index += 1,
        }
    }
}

/// The end of a number or literal starting at `at`.
fn scalar_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'+' | b'.'))
    {
        at += 1;
    }
    at
}

/// The layout as the tests read it: each line with its place.
#[cfg(test)]
fn annotated(layout: &Layout) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for (index, line) in layout.text.lines().enumerate() {
        let _ = writeln!(
            out,
            "{:<24}{line}",
            display(&layout.place(index + 1, usize::MAX, "missing field `x`", false, None))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_member_and_element_has_a_line_with_its_place() {
        let layout = Layout::new(
            r#" {"tasks": [ {"title": "a", "due": 1}, [], {} ], "a b": {"x": [1, "]", null]},
                "q": "\"}"} "#,
        )
        .unwrap();
        assert_eq!(
            annotated(&layout),
            [
                ".                       {",
                "tasks                   \"tasks\":[",
                "tasks[0]                {",
                "tasks[0].title          \"title\":\"a\",",
                "tasks[0].due            \"due\":1",
                "tasks[0]                } ,",
                "tasks[1]                [] ,",
                "tasks[2]                {}",
                "tasks                   ] ,",
                "[\"a b\"]                 \"a b\":{",
                "[\"a b\"].x               \"x\":[",
                "[\"a b\"].x[0]            1,",
                "[\"a b\"].x[1]            \"]\",",
                "[\"a b\"].x[2]            null",
                "[\"a b\"].x               ]",
                "[\"a b\"]                 } ,",
                "q                       \"q\":\"\\\"}\"",
                ".                       }",
                "",
            ]
            .join("\n")
        );
        // The same value, whatever the spacing.
        let value: serde_json::Value = serde_json::from_str(&layout.text).unwrap();
        assert_eq!(value["q"], "\"}");
        assert_eq!(value["tasks"][0]["due"], 1);
    }

    #[test]
    fn keys_are_unescaped_and_lines_past_the_end_are_the_root() {
        let layout = Layout::new(r#"{"\u0061": {"b": true}}"#).unwrap();
        let b = [Segment::Key("a".to_owned()), Segment::Key("b".to_owned())];
        assert_eq!(layout.place(3, 10, "invalid type", false, None), b);
        // Right after the key: the key's errors.
        assert_eq!(layout.text.lines().nth(2), Some("\"b\":true"));
        assert_eq!(layout.place(3, 3, "unknown field `b`", false, None), b);
        assert_eq!(
            display(&layout.place(3, 3, "duplicate field `b`", false, None)),
            "a"
        );
        assert_eq!(layout.place(0, 1, "invalid type", false, None), []);
        assert_eq!(layout.place(99, 1, "invalid type", false, None), []);
        assert_eq!(
            display(&layout.place(3, 10, "invalid type", false, None)),
            "a.b"
        );
        // A closing bracket's line: the container's own errors, and its last
        // member's errors raised after `serde_json` returned.
        assert_eq!(layout.text.lines().nth(3), Some("}"));
        assert_eq!(
            display(&layout.place(4, 1, "missing field `c`", false, None)),
            "a"
        );
        assert_eq!(
            display(&layout.place(4, 1, "invalid length 0", false, None)),
            "a"
        );
        assert_eq!(layout.place(4, 1, "unknown variant `x`", false, None), b);
        // Past it (after the space before a comma): the container itself.
        assert_eq!(
            display(&layout.place(4, 2, "unknown variant `x`", false, None)),
            "a"
        );
    }

    #[test]
    fn what_is_not_json_is_refused_without_a_panic() {
        for text in [
            "",
            "{",
            "{\"a\"}",
            "{\"a\":}",
            "[1,]",
            "{\"a\":1]",
            "[1}",
            "\"abc",
            "{} x",
            "[\\",
            "{\"a\":1,}",
            "{1:2}",
        ] {
            assert!(Layout::new(text).is_none(), "{text:?}");
        }
        assert_eq!(Layout::new("7").unwrap().text, "7");
    }

    fn json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |number| number.is_finite())
                .prop_map(Value::from),
            ".{0,8}".prop_map(Value::String),
            r#"[\[\]{}",:\\ ]{0,6}"#.prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec((r#"[a-z"\\\[{ ]{0,5}"#, inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// Any JSON value, laid out, is the same value, and every line names a
        /// place the value has.
        #[test]
        fn any_value_keeps_its_meaning_and_its_places(value in json(), pretty: bool) {
            let text = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                value.to_string()
            };
            let layout = Layout::new(&text).unwrap();
            let again: serde_json::Value = serde_json::from_str(&layout.text).unwrap();
            proptest::prop_assert_eq!(&again, &value);
            for line in 1..=layout.text.lines().count() {
                for column in [1, 2, usize::MAX] {
                    let place = layout.place(line, column, "invalid type", false, None);
                    proptest::prop_assert!(value_at(&value, &place).is_some(), "{place:?}");
                }
            }
        }

        /// Any text at all: an answer, never a panic.
        #[test]
        fn any_text_is_laid_out_or_refused(text in r#"[\[\]{}",:\\ a0-9.e\-]{0,40}"#) {
            if let Some(layout) = Layout::new(&text) {
                let _ = layout.place(1, 1, "missing field `a`", false, None);
            }
        }
    }
}
