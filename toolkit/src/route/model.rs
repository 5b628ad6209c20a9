//! A router that asks a model: the adapter around a closure you supply.

use std::fmt::Write as _;
use std::future::Future;

use super::{Catalog, CatalogEntry, RouteError, RouteFuture, RouteRequest, Router, Routing};

/// Routes by asking a (cheap) model which tools fit.
///
/// You supply `ask`: a closure that sends a prompt to the model and returns its
/// text, as a `'static` future (clone an `Arc` of your client into it). The router builds the prompt from the catalog entries the request allows
/// (one line each: name, group, summary) and the message (with the last three turns
/// before it), expects a JSON array of tool names back (a code fence or words
/// around it are tolerated), keeps the names that are in the catalog and allowed,
/// in the model's order, and drops the rest. `[]` is an abstention. A failed call,
/// an answer that is no array of strings, or one naming only unknown tools is a
/// [`RouteError`]: [`select`](super::select) then falls back to every routed tool.
///
/// `ask` fails with the model client's own error (anything that converts into a
/// `Box<dyn Error + Send + Sync>`: an error type, or a plain `&str` or `String`);
/// the [`RouteError::Model`] keeps it as its [`source`](std::error::Error::source).
///
/// ```
/// use toolkit::route::{Catalog, CatalogEntry, ModelRouter, RouteRequest, select};
///
/// let catalog = Catalog::new([
///     CatalogEntry::new("get_weather", "Get the weather for a city."),
///     CatalogEntry::new("create_events", "Create calendar events."),
/// ]);
/// // In production `ask` calls your model client; here it answers at once.
/// let router = ModelRouter::new(catalog, |_prompt: String| async {
///     Ok::<_, std::convert::Infallible>(r#"["create_events", "send_rocket"]"#.to_owned())
/// });
/// # futures_executor::block_on(async {
/// let request = RouteRequest::new("put lunch with Ada on Friday");
/// assert_eq!(select(&router, &request).await.names(), ["create_events"]);
/// # });
/// ```
pub struct ModelRouter<F> {
    catalog: Catalog,
    ask: F,
}

impl<F> std::fmt::Debug for ModelRouter<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRouter")
            .field("catalog", &self.catalog.len())
            .finish_non_exhaustive()
    }
}

impl<F> ModelRouter<F> {
    /// A router over `catalog` that asks the model through `ask`.
    pub fn new(catalog: Catalog, ask: F) -> Self {
        ModelRouter { catalog, ask }
    }

    /// The prompt sent to the model for `request`.
    #[must_use]
    pub fn prompt(&self, request: &RouteRequest<'_>) -> String {
        let mut prompt = format!(
            "Pick the tools needed to act on the user's last message. Answer with only a \
             JSON array of tool names from the list, most useful first, at most {}. Answer [] \
             if no tool fits.\n\nTools:\n",
            request.limit
        );
        for entry in self
            .catalog
            .iter()
            .filter(|entry| request.allows(&entry.name))
        {
            prompt.push_str(&super::entry::line(entry));
            prompt.push('\n');
        }
        let turns = request.recent_turns();
        if !turns.is_empty() {
            prompt.push_str("\nEarlier turns:\n");
            for turn in turns {
                let _ = writeln!(prompt, "> {}", one_line(turn));
            }
        }
        let _ = write!(prompt, "\nMessage:\n> {}\n", one_line(request.message));
        prompt
    }

    /// Reads the model's answer: the names it gave that are in the catalog and
    /// allowed, in its order, without repeats.
    pub fn parse<'a>(
        &'a self,
        output: &str,
        request: &RouteRequest<'_>,
    ) -> Result<Routing<'a>, RouteError> {
        let names = json_array(output).ok_or_else(|| RouteError::Malformed {
            output: output.to_owned(),
        })?;
        let mut picked: Vec<&'a CatalogEntry> = Vec::new();
        for name in &names {
            if let Some(entry) = self.catalog.get(name.trim())
                && request.allows(&entry.name)
                && !picked.iter().any(|known| known.name == entry.name)
            {
                picked.push(entry);
            }
        }
        picked.truncate(request.limit);
        if picked.is_empty() {
            if names.is_empty() {
                Ok(Routing::Abstained)
            } else {
                Err(RouteError::UnknownTools { names })
            }
        } else {
            Ok(Routing::Picked(picked))
        }
    }
}

/// A prompt line: newlines folded into spaces, so a message can't fake a list.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first JSON array of strings in `output`.
fn json_array(output: &str) -> Option<Vec<String>> {
    let mut rest = output;
    while let Some(start) = rest.find('[') {
        let candidate = &rest[start..];
        let mut stream = serde_json::Deserializer::from_str(candidate).into_iter::<Vec<String>>();
        if let Some(Ok(names)) = stream.next() {
            return Some(names);
        }
        rest = &candidate[1..];
    }
    None
}

impl<F, Fut, E> Router for ModelRouter<F>
where
    F: Fn(String) -> Fut + Send + Sync,
    Fut: Future<Output = Result<String, E>> + Send + 'static,
    E: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
{
    fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn route<'a>(&'a self, request: &'a RouteRequest<'a>) -> RouteFuture<'a> {
        let prompt = self.prompt(request);
        let answer = (self.ask)(prompt);
        Box::pin(async move {
            let output = answer.await.map_err(RouteError::model)?;
            self.parse(&output, request)
        })
    }
}
