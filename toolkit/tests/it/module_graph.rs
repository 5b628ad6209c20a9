//! The crates' files stand above what they use: no module of `toolkit/src` or
//! `toolkit-macros/src` uses, directly or through others, a module that uses it.
//! The graph is read from the sources: every `use` and every inline path through
//! `crate::`, `super::`, `self::` or a child module, outside comments, strings and
//! `#[cfg(test)]` modules, with re-exports (`pub use` in `lib.rs` or a `mod.rs`)
//! followed to the module that defines the item.
//!
//! A circle that comes back fails the test with its path (`a -> b -> a`), so the
//! shared piece can be moved into a leaf module both use.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module: its path from the crate root (`["dispatch", "layout"]`).
type Module = Vec<String>;

/// Circles that were broken, named so a returning one reads as a regression (the
/// whole graph is also checked for any circle at all).
const GONE: &[(&str, &str)] = &[
    ("dispatch::layout", "dispatch::messages"),
    ("dispatch::messages", "error"),
    ("dispatch::layout", "error"),
    ("dispatch", "tool"),
    ("dispatch::shape", "dispatch::validate"),
    ("mcp::auth::resource", "mcp::http"),
    ("mcp::http", "mcp::server"),
    ("binding", "tool"),
    ("error", "tool"),
    ("approval", "error"),
    ("error", "preview"),
    ("approval", "approval::store"),
    ("approval", "approval::sqlite"),
    ("approval", "approval::postgres"),
    ("registry", "runtime"),
    ("registry", "render"),
    ("render", "render::anthropic"),
    ("render", "render::gemini"),
    ("render", "render::openai"),
    ("observe", "registry"),
    ("mcp::auth", "mcp::auth::introspection"),
    ("mcp::auth", "mcp::auth::jwt"),
    ("mcp::auth", "mcp::auth::resource"),
    ("mcp::auth", "mcp::auth::scopes"),
    ("route", "route::deliver"),
    ("route", "route::lexical"),
    ("route", "route::model"),
    ("route", "route::search"),
    ("inbox", "inbox::handlers"),
    ("approval", "view"),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            out.push(path);
        }
    }
}

fn module_of(root: &Path, file: &Path) -> Module {
    let relative = file.strip_prefix(root).expect("under src");
    let mut parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts == ["lib"] || parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a file without comments, string contents and the trailing
/// `#[cfg(test)] mod ...` (tests may use anything).
fn code(text: &str) -> String {
    let inline_tests = text.match_indices("#[cfg(test)]\nmod ").find(|&(at, _)| {
        text[at..]
            .lines()
            .nth(1)
            .is_some_and(|line| line.trim_end().ends_with('{'))
    });
    let text = match inline_tests {
        Some((at, _)) => &text[..at],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                out.push('"');
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
                out.push('"');
            }
            // A char literal holding a quote would otherwise open a string.
            '\'' if chars.peek() == Some(&'"') => {
                chars.next();
                out.push_str("' '");
            }
            other => out.push(other),
        }
    }
    out
}

/// `a::{b, c::{d}}` as `a::b`, `a::c::d`.
fn flatten(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.to_owned()];
    };
    let prefix = &tree[..open];
    let body = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
        .iter()
        .filter(|part| !part.trim().is_empty())
        .flat_map(|part| flatten(part))
        .map(|path| format!("{prefix}{path}"))
        .collect()
}

fn segments(path: &str) -> Vec<String> {
    let path = path.split(" as ").next().unwrap_or(path);
    path.split("::")
        .map(|segment| segment.trim().to_owned())
        .filter(|segment| !segment.is_empty() && segment != "*")
        .collect()
}

/// Every `use` tree of a file's code (`pub use` included), flattened.
fn uses(code: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = &rest[..at];
        let word_start = before
            .chars()
            .last()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let Some(end) = rest[at..].find(';') else {
            break;
        };
        if word_start {
            let before = before.trim_end();
            let public = ["pub", "pub(crate)", "pub(super)"]
                .iter()
                .any(|visibility| before.ends_with(visibility));
            for path in flatten(&rest[at + 4..at + end].replace('\n', " ")) {
                out.push((public, path));
            }
        }
        rest = &rest[at + end..];
    }
    out
}

struct Crate {
    modules: BTreeSet<Module>,
    /// Per module, the names it re-exports and where from (absolute).
    reexports: BTreeMap<Module, BTreeMap<String, Vec<String>>>,
}

impl Crate {
    /// `path` as written in `module`, from the crate root; `None` for other crates.
    fn absolute(&self, module: &Module, path: &[String]) -> Option<Vec<String>> {
        let first = path.first()?;
        match first.as_str() {
            "crate" => Some(path[1..].to_vec()),
            "self" => Some([module.clone(), path[1..].to_vec()].concat()),
            "super" => {
                let mut base = module.clone();
                let mut rest = path;
                while rest.first().is_some_and(|segment| segment == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                Some([base, rest.to_vec()].concat())
            }
            child => {
                let mut candidate = module.clone();
                candidate.push(child.to_owned());
                self.modules
                    .contains(&candidate)
                    .then(|| [module.clone(), path.to_vec()].concat())
            }
        }
    }

    /// The module that defines what an absolute path names.
    fn owner(&self, path: &[String], hops: usize) -> Module {
        let split = (0..=path.len())
            .rev()
            .find(|&k| self.modules.contains(&path[..k]))
            .unwrap_or(0);
        let (module, rest) = (path[..split].to_vec(), &path[split..]);
        if hops < 8
            && let Some(first) = rest.first()
            && let Some(source) = self
                .reexports
                .get(&module)
                .and_then(|names| names.get(first))
        {
            return self.owner(&[source.clone(), rest[1..].to_vec()].concat(), hops + 1);
        }
        module
    }
}

fn name(module: &[String]) -> String {
    if module.is_empty() {
        "crate".to_owned()
    } else {
        module.join("::")
    }
}

/// What the reader finds in a crate's sources.
struct Reading {
    /// Which modules each module uses.
    edges: BTreeMap<String, BTreeSet<String>>,
    /// Paths outside the crate root that name an item through the root's
    /// re-exports (`crate::Tool` for `crate::tool::Tool`), as `module: path`: such
    /// a use hides the module it really depends on.
    through_the_root: Vec<String>,
}

/// The code of each module of the crate whose sources are under `root`.
fn codes(root: &Path) -> Vec<(Module, String)> {
    let root = root.to_path_buf();
    let mut files = Vec::new();
    sources(&root, &mut files);
    files
        .iter()
        // A `#[cfg(test)] mod tests;` file is a test, not part of the house.
        .filter(|file| file.file_name().is_some_and(|name| name != "tests.rs"))
        .map(|file| {
            let text = std::fs::read_to_string(file).expect("a source file");
            (module_of(&root, file), code(&text))
        })
        .collect()
}

/// Which modules each module of the crate whose sources are under `root` uses.
fn graph(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    read(&codes(root)).edges
}

/// Reads the uses of modules given as their code.
fn read(codes: &[(Module, String)]) -> Reading {
    let mut through_the_root = Vec::new();
    let mut krate = Crate {
        modules: codes.iter().map(|(module, _)| module.clone()).collect(),
        reexports: BTreeMap::new(),
    };
    for (module, code) in codes {
        for (public, path) in uses(code) {
            let segments = segments(&path);
            if !public || segments.last().is_some_and(|last| last == "self") {
                continue;
            }
            if let (Some(last), Some(absolute)) =
                (segments.last(), krate.absolute(module, &segments))
            {
                let local = match path.split_once(" as ") {
                    Some((_, alias)) => alias.trim(),
                    None => last.as_str(),
                };
                krate
                    .reexports
                    .entry(module.clone())
                    .or_default()
                    .insert(local.to_owned(), absolute);
            }
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let root_names = krate
        .reexports
        .get(&Vec::new())
        .cloned()
        .unwrap_or_default();
    for (module, code) in codes {
        let mut paths: Vec<Vec<String>> = uses(code)
            .into_iter()
            .map(|(_, path)| segments(&path))
            .collect();
        // Inline paths: a word followed by `::`, not itself after `::`.
        let mut at = 0;
        while let Some(found) = code[at..].find("::") {
            let colon = at + found;
            let start = code[..colon]
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            let after_path = start >= 2 && &code[start - 2..start] == "::";
            if start < colon && !after_path {
                let end = code[colon..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .map_or(code.len(), |i| colon + i);
                // `super::{a, b}` is a `use` group, read by `uses`.
                if !code[..end].ends_with("::") {
                    paths.push(segments(&code[start..end]));
                }
                at = end.max(colon + 2);
            } else {
                at = colon + 2;
            }
        }
        for path in paths {
            let trimmed: Vec<String> = match path.last() {
                Some(last) if last == "self" && path.len() > 1 => path[..path.len() - 1].to_vec(),
                _ => path,
            };
            let Some(absolute) = krate.absolute(module, &trimmed) else {
                continue;
            };
            if !module.is_empty()
                && let Some(first) = absolute.first()
                && root_names.contains_key(first)
                && !krate.modules.contains(&absolute[..1])
            {
                through_the_root.push(format!("{}: crate::{}", name(module), absolute.join("::")));
            }
            let owner = krate.owner(&absolute, 0);
            if &owner != module && !owner.is_empty() {
                edges.entry(name(module)).or_default().insert(name(&owner));
            }
        }
    }
    through_the_root.sort();
    through_the_root.dedup();
    Reading {
        edges,
        through_the_root,
    }
}

/// A circle of the graph, as the path that closes it (`a -> b -> a`), if any.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|seen| seen == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

fn toolkit_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn toolkit() -> BTreeMap<String, BTreeSet<String>> {
    graph(&toolkit_src())
}

fn toolkit_macros() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolkit-macros/src");
    assert!(
        root.is_dir(),
        "the macro crate's sources are not at {}: this test reads the workspace",
        root.display()
    );
    graph(&root)
}

#[test]
fn no_module_of_toolkit_uses_itself_through_others() {
    let edges = toolkit();
    if std::env::var_os("MODULE_GRAPH_DEBUG").is_some() {
        eprintln!("{edges:#?}");
    }
    // The reader works: known uses are found, through re-exports too.
    assert!(edges["dispatch::validate"].contains("dispatch::messages"));
    assert!(
        edges["dispatch::messages"].contains("error"),
        "{:?}",
        edges["dispatch::messages"]
    );
    assert!(edges["error"].contains("echo"));
    assert!(edges["view"].contains("approval"), "{:?}", edges["view"]);
    for (a, b) in GONE {
        let (a_uses_b, b_uses_a) = (
            edges.get(*a).is_some_and(|uses| uses.contains(*b)),
            edges.get(*b).is_some_and(|uses| uses.contains(*a)),
        );
        assert!(
            !(a_uses_b && b_uses_a),
            "`{a}` and `{b}` use each other again"
        );
    }
    if let Some(found) = circle(&between_siblings(&edges)) {
        panic!("a circle of modules: {}", found.join(" -> "));
    }
}

/// The graph without the uses between a folder's `mod.rs` and its own children:
/// the parent re-exports and gathers what its children make, and they use what it
/// holds in common (as axum's `routing/` does). Circles among siblings, or through
/// any other module, stay.
fn between_siblings(
    edges: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<String, BTreeSet<String>> {
    let parent = |module: &str| {
        module
            .rsplit_once("::")
            .map(|(parent, _)| parent.to_owned())
    };
    edges
        .iter()
        .map(|(from, to)| {
            let kept = to
                .iter()
                .filter(|to| {
                    parent(from).as_deref() != Some(to.as_str())
                        && parent(to).as_deref() != Some(from.as_str())
                })
                .cloned()
                .collect();
            (from.clone(), kept)
        })
        .collect()
}

#[test]
fn a_folder_and_its_children_may_use_each_other_but_siblings_may_not() {
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("approval", vec!["approval::run", "view"]),
        ("approval::run", vec!["approval", "approval::key"]),
        ("approval::key", vec!["approval"]),
        ("view", vec![]),
    ]
    .into_iter()
    .map(|(from, to)| (from.to_owned(), to.into_iter().map(str::to_owned).collect()))
    .collect();
    assert!(circle(&edges).is_some());
    assert_eq!(circle(&between_siblings(&edges)), None);
    let mut siblings = edges.clone();
    siblings
        .get_mut("approval::key")
        .unwrap()
        .insert("approval::run".to_owned());
    assert_eq!(
        circle(&between_siblings(&siblings)).unwrap(),
        ["approval::key", "approval::run", "approval::key"]
    );
    let mut through_another = edges;
    through_another
        .get_mut("view")
        .unwrap()
        .insert("approval::run".to_owned());
    through_another
        .get_mut("approval::run")
        .unwrap()
        .insert("view".to_owned());
    assert!(circle(&between_siblings(&through_another)).is_some());
}

#[test]
fn no_module_of_the_macro_crate_uses_itself_through_others() {
    let edges = toolkit_macros();
    if std::env::var_os("MODULE_GRAPH_DEBUG").is_some() {
        eprintln!("{edges:#?}");
    }
    // The reader works there too: the expansion reads the parsed attributes.
    assert!(
        edges["expand::registry"].contains("attr"),
        "{:?}",
        edges["expand::registry"]
    );
    if let Some(found) = circle(&between_siblings(&edges)) {
        panic!("a circle of modules: {}", found.join(" -> "));
    }
}

#[test]
fn the_reader_finds_a_circle_of_any_length() {
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c", "d"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(from, to)| (from.to_owned(), to.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(circle(&edges).unwrap(), ["a", "b", "c", "a"]);
    let mut acyclic = edges.clone();
    acyclic.get_mut("c").unwrap().clear();
    assert_eq!(circle(&acyclic), None);
}

#[test]
fn the_reader_flattens_use_trees_and_skips_comments_and_strings() {
    assert_eq!(
        flatten("crate::{a, b::{c, d as e}, f}"),
        ["crate::a", "crate::b::c", "crate::b::d as e", "crate::f"]
    );
    let code = code(
        "use crate::a; // crate::b\nlet s = \"crate::c\";\n#[cfg(test)]\nmod tests {\n    use crate::d;\n}\n",
    );
    assert!(code.contains("crate::a"));
    assert!(!code.contains("crate::b") && !code.contains("crate::c") && !code.contains("crate::d"));
}

#[test]
fn toolkit_names_what_it_uses_by_module_not_through_the_crate_root() {
    let through_the_root = read(&codes(&toolkit_src())).through_the_root;
    assert!(
        through_the_root.is_empty(),
        "name these by the module that defines them (`crate::tool::Tool`, not `crate::Tool`), so the graph shows what each module uses:\n{}",
        through_the_root.join("\n")
    );
}

#[test]
fn the_reader_finds_a_use_through_the_crate_root() {
    let module = |path: &[&str]| path.iter().map(|part| (*part).to_owned()).collect();
    let codes: Vec<(Module, String)> = vec![
        (module(&[]), "mod tool;\nmod view;\npub use tool::Tool;\n".to_owned()),
        (module(&["tool"]), "pub struct Tool;\n".to_owned()),
        (
            module(&["view"]),
            "use crate::Tool;\nuse crate::tool::Tool as Same;\nfn f() -> crate::Tool { crate::tool::Tool }\n".to_owned(),
        ),
    ];
    let reading = read(&codes);
    assert_eq!(reading.through_the_root, ["view: crate::Tool"]);
    // The re-export is still followed to the module that defines the item.
    assert!(reading.edges["view"].contains("tool"));
}
