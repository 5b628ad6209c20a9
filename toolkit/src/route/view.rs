//! Routing conveniences on a [`View`]: its routed catalog, its always/routed split,
//! its guidance, and the tools to send for a selection.

use crate::registry::RegisteredTool;
use crate::view::View;

use super::{Catalog, Selection};

impl<'r> View<'r> {
    /// The view's routed tools (not `always`) as a light catalog: what a router
    /// picks from, in name order.
    ///
    /// ```
    /// use toolkit::route::{LexicalRouter, RouteRequest, select};
    /// use toolkit::{Scope, tool};
    ///
    /// /// Get the current time.
    /// #[tool(scope = shared, tier = auto, always, guidance = "Times are UTC.")]
    /// async fn get_clock() -> &'static str { "12:00" }
    ///
    /// /// Delete notes by id.
    /// #[tool(scope = shared, tier = auto, guidance = "Only notes the user names.")]
    /// async fn delete_notes(
    ///     /// The notes' ids.
    ///     ids: Vec<u32>,
    /// ) -> usize { ids.len() }
    ///
    /// /// Get the weather for a city.
    /// #[tool(scope = shared, tier = auto)]
    /// async fn get_city_weather(
    ///     /// The city.
    ///     city: String,
    /// ) -> String { city }
    ///
    /// # futures_executor::block_on(async {
    /// let registry = toolkit::Registry::new([
    ///     get_clock::definition(),
    ///     delete_notes::definition(),
    ///     get_city_weather::definition(),
    /// ])?;
    /// let view = registry.view().scopes([Scope::Shared]).build()?;
    ///
    /// let (always, routed) = view.split();
    /// assert_eq!(always.iter().map(|tool| tool.name).collect::<Vec<_>>(), ["get_clock"]);
    /// assert_eq!(routed.iter().map(|tool| tool.name).collect::<Vec<_>>(), ["delete_notes", "get_city_weather"]);
    ///
    /// // Built once per view shape in a real server; the router keeps its index.
    /// let router = LexicalRouter::new(view.catalog());
    /// let allowed = |name: &str| view.contains(name);
    /// let request = RouteRequest::new("drop note 4").within(&allowed);
    /// let selection = select(&router, &request).await;
    /// let active = view.active(&selection);
    /// assert_eq!(active.iter().map(|tool| tool.name).collect::<Vec<_>>(), ["delete_notes", "get_clock"]);
    /// assert_eq!(
    ///     toolkit::prompt::guidance(active),
    ///     "<tool-guidance>\n<delete_notes>Only notes the user names.</delete_notes>\n<get_clock>Times are UTC.</get_clock>\n</tool-guidance>"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    #[must_use]
    pub fn catalog(&self) -> Catalog {
        Catalog::routed(self.iter())
    }

    /// The view's tools split into the `always` ones and the routed ones, each in
    /// name order.
    #[must_use]
    pub fn split(&self) -> (Vec<&'r RegisteredTool>, Vec<&'r RegisteredTool>) {
        self.iter().partition(|tool| tool.always)
    }

    /// The guidance block of every tool in the view (see
    /// [`prompt::guidance`](crate::prompt::guidance)); for the tools actually sent,
    /// pass [`View::active`] to that function instead.
    #[must_use]
    pub fn guidance(&self) -> String {
        crate::prompt::guidance(self.iter())
    }

    /// The tools to send with a request: the view's `always` tools plus the routed
    /// tools `selection` holds that are in the view, in name order (a stable order
    /// keeps the provider's prompt cache warm).
    #[must_use]
    pub fn active(&self, selection: &Selection<'_>) -> Vec<&'r RegisteredTool> {
        self.iter()
            .filter(|tool| {
                tool.always
                    || selection
                        .tools
                        .iter()
                        .any(|picked| picked.name == tool.name)
            })
            .collect()
    }
}
