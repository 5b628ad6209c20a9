//! From a token's scopes (or another claim) to the entries of a view's allowlist.

use super::VerifiedToken;

/// Maps what a token grants to allowlist entries of a view
/// ([`ViewBuilder::allow`](crate::view::ViewBuilder::allow)): tool names, `@group`s and
/// `preset:<name>`s. A token with none of the mapped values gets no entries, and
/// `allow` with no entries is an empty view: nothing is listed or callable.
///
/// By default the token's scopes are read; [`claim`](Self::claim) reads a claim of
/// the application's choice instead (roles, groups), as a string of
/// space-separated values or an array of strings.
///
/// ```
/// use toolkit::mcp::auth::{ScopeMap, VerifiedToken};
///
/// let map = ScopeMap::new()
///     .scope("tasks:read", ["get_tasks"])
///     .scope("tasks:write", ["@tasks", "preset:writer"]);
/// let alice = toolkit::Principal::new("https://auth.example.com", "alice")?;
/// let reader = VerifiedToken::new(alice, ["tasks:read", "profile"]);
/// assert_eq!(map.entries(&reader), ["get_tasks"]);
/// let bob = toolkit::Principal::new("https://auth.example.com", "bob")?;
/// let nobody = VerifiedToken::new(bob, ["profile"]);
/// assert!(map.entries(&nobody).is_empty());
/// # Ok::<(), toolkit::PrincipalError>(())
/// ```
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct ScopeMap {
    claim: Option<String>,
    rules: Vec<(String, Vec<String>)>,
}

impl ScopeMap {
    /// An empty map (every token gets no entries).
    pub fn new() -> Self {
        ScopeMap::default()
    }

    /// A token granting `value` gets `entries`.
    pub fn scope<S: Into<String>>(
        mut self,
        value: impl Into<String>,
        entries: impl IntoIterator<Item = S>,
    ) -> Self {
        self.rules
            .push((value.into(), entries.into_iter().map(Into::into).collect()));
        self
    }

    /// Reads the values from the claim `name` instead of the scopes.
    pub fn claim(mut self, name: impl Into<String>) -> Self {
        self.claim = Some(name.into());
        self
    }

    /// The values the map reads from `token`.
    fn values<'t>(&self, token: &'t VerifiedToken) -> Vec<&'t str> {
        let Some(name) = &self.claim else {
            return token.scopes.iter().map(String::as_str).collect();
        };
        match token.claims.get(name) {
            // RFC 6749 §3.3: the ASCII space alone separates values.
            Some(serde_json::Value::String(text)) => {
                text.split(' ').filter(|value| !value.is_empty()).collect()
            }
            Some(serde_json::Value::Array(items)) => {
                items.iter().filter_map(serde_json::Value::as_str).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The allowlist entries `token` grants, without repeats, in rule order.
    #[must_use]
    pub fn entries(&self, token: &VerifiedToken) -> Vec<&str> {
        let values = self.values(token);
        let mut entries: Vec<&str> = Vec::new();
        for (value, granted) in &self.rules {
            if values.contains(&value.as_str()) {
                for entry in granted {
                    if !entries.contains(&entry.as_str()) {
                        entries.push(entry);
                    }
                }
            }
        }
        entries
    }

    /// The mapped values, for [`ResourceServer::scopes_supported`](super::ResourceServer::scopes_supported).
    #[must_use = "the values are returned, not used"]
    pub fn values_mapped(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(|(value, _)| value.as_str())
    }
}
