//! Docs of tools for people: what a set of tools (a view, a registry) offers, as
//! Markdown, for handbooks, reviews and changelogs. (A router's list of tools is a
//! [`route::Catalog`](crate::route::Catalog).)

use std::fmt::Write as _;

use crate::declaration::Scope;
use crate::route::AsTool;
use crate::tool::Tool;

/// The tools as a Markdown document, grouped by scope (shared, agent, assistant,
/// channel) and then by group (alphabetically, tools without a group last), each
/// tool in the order given: its name, tier, always or routed, aliases, summary and
/// parameters. `# Tools` heads it, `## Scope`, `### Group` and `####` tool
/// headings follow.
///
/// ```
/// # use toolkit::tool;
/// /// Get the weather for a city.
/// ///
/// /// Temperatures are in Celsius.
/// #[tool(scope = shared, tier = auto, group = "weather", aliases = ["fetch_weather"])]
/// async fn get_weather(
///     /// The city, as its name.
///     city: String,
///     /// Days ahead, 0 for today.
///     days: Option<u8>,
/// ) -> String {
///     String::new()
/// }
///
/// let markdown = toolkit::docs::markdown([get_weather::definition()]);
/// let expected = [
///     "1 tool: 0 always sent, 1 routed.",
///     "#### `get_weather`",
///     "Tier `auto` · routed · aliases: `fetch_weather`",
///     "Get the weather for a city.",
///     "| `city` | yes | The city, as its name. |",
///     "| `days` | no | Days ahead, 0 for today. |",
/// ];
/// for line in expected {
///     assert!(markdown.lines().any(|known| known == line), "{line}");
/// }
/// ```
pub fn markdown<T: AsTool>(tools: impl IntoIterator<Item = T>) -> String {
    let items: Vec<T> = tools.into_iter().collect();
    let tools: Vec<&Tool> = items.iter().map(AsTool::as_tool).collect();
    let always = tools.iter().filter(|tool| tool.always).count();
    let mut out = String::from("# Tools\n\n");
    let _ = writeln!(
        out,
        "{} tool{}: {always} always sent, {} routed.",
        tools.len(),
        if tools.len() == 1 { "" } else { "s" },
        tools.len() - always
    );
    for scope in Scope::ALL {
        let in_scope: Vec<&Tool> = tools
            .iter()
            .copied()
            .filter(|tool| tool.scope == scope)
            .collect();
        if in_scope.is_empty() {
            continue;
        }
        let _ = write!(out, "\n## Scope `{scope}`\n");
        let mut groups: Vec<Option<&str>> = in_scope.iter().map(|tool| tool.group).collect();
        // Named groups alphabetically, then the tools without one.
        groups.sort_by_key(|group| (group.is_none(), *group));
        groups.dedup();
        for group in groups {
            match group {
                Some(group) => {
                    let _ = write!(out, "\n### Group `{group}`\n");
                }
                None => out.push_str("\n### No group\n"),
            }
            for tool in in_scope.iter().filter(|tool| tool.group == group) {
                write_tool(&mut out, tool);
            }
        }
    }
    out
}

fn write_tool(out: &mut String, tool: &Tool) {
    let _ = write!(
        out,
        "\n#### `{}`\n\nTier `{}` · {}",
        tool.name,
        tool.tier,
        if tool.always { "always" } else { "routed" }
    );
    if !tool.aliases.is_empty() {
        let aliases: Vec<String> = tool
            .aliases
            .iter()
            .map(|alias| format!("`{alias}`"))
            .collect();
        let _ = write!(out, " · aliases: {}", aliases.join(", "));
    }
    let _ = write!(out, "\n\n{}\n", tool.summary());
    if tool.params.is_empty() {
        out.push_str("\nNo parameters.\n");
    } else {
        out.push_str("\n| parameter | required | description |\n|---|---|---|\n");
        for param in tool.params {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                param.name,
                if param.required { "yes" } else { "no" },
                cell(param.description)
            );
        }
    }
}

/// Text safe inside a table cell: newlines as `<br>`, pipes escaped.
fn cell(text: &str) -> String {
    text.trim()
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" <br> ")
        .replace('|', "\\|")
}
