//! Views: the part of the registry one consumer may list and call, built per request.
//!
//! A [`View`] is the security boundary. Listing, rendering and dispatch all go
//! through it; a tool outside it can't be listed or called, and calling it by any
//! name (its own, an alias, a case or whitespace variant, a look-alike) gives the same
//! [`ToolError::UnknownTool`] as a name that exists nowhere, with suggestions drawn
//! only from the view.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;

use serde_json::Value;

use crate::approval::{Approval, Approvals};
use crate::binding::Binding;
use crate::context::Context;
use crate::declaration::{Scope, Tier};
use crate::error::ToolError;
use crate::principal::Principal;
use crate::quota::{Quota, Quotas};
use crate::registry::{RegisteredTool, Registry};
use crate::render::Dialect;
use crate::response::Response;
use crate::tool::Tool;

/// The prefix of a preset in allowlist strings: `"preset:recommended"`.
pub const PRESET_PREFIX: &str = "preset:";
/// The prefix of a group in allowlist strings: `"@contacts"`.
pub const GROUP_PREFIX: &str = "@";

/// A named set of allowlist entries declared in code, which stored allowlists name
/// as `"preset:<name>"`: for example the *recommended* subset a legacy "all domain
/// tools" switch expands to.
///
/// Entries are tool names, aliases and `@group`s (not other presets); `except`
/// removes tools from what the entries give. Unknown entries are reported when a
/// view uses the preset, like any other allowlist entry.
///
/// ```
/// use toolkit::view::Preset;
///
/// /// The shared tools an agent gets when its owner ticked "all domain tools".
/// pub const RECOMMENDED: Preset =
///     Preset::new("recommended", &["@contacts", "@messages", "@phone"]).except(&["buy_phone_number"]);
/// assert_eq!(RECOMMENDED.name, "recommended");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// The name stored allowlists use after `preset:`.
    pub name: &'static str,
    /// Tool names, aliases and `@group`s.
    pub entries: &'static [&'static str],
    /// Tools (names or aliases) removed from what `entries` give.
    pub except: &'static [&'static str],
}

impl Preset {
    /// A preset of `entries` (names, aliases, `@group`s).
    #[must_use]
    pub const fn new(name: &'static str, entries: &'static [&'static str]) -> Self {
        Preset {
            name,
            entries,
            except: &[],
        }
    }

    /// The same preset without these tools (names or aliases).
    #[must_use]
    pub const fn except(mut self, tools: &'static [&'static str]) -> Self {
        self.except = tools;
        self
    }
}

/// One set bit per registry position.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn empty(len: usize) -> Self {
        Bits(vec![0; len.div_ceil(64)])
    }

    fn full(len: usize) -> Self {
        let mut bits = Bits(vec![u64::MAX; len.div_ceil(64)]);
        if let (false, Some(last)) = (len.is_multiple_of(64), bits.0.last_mut()) {
            *last = (1u64 << (len % 64)) - 1;
        }
        bits
    }

    fn get(&self, position: usize) -> bool {
        self.0
            .get(position / 64)
            .is_some_and(|word| word & (1 << (position % 64)) != 0)
    }

    fn set(&mut self, position: usize) {
        self.0[position / 64] |= 1 << (position % 64);
    }

    fn clear(&mut self, position: usize) {
        self.0[position / 64] &= !(1 << (position % 64));
    }

    fn count(&self) -> usize {
        self.0.iter().map(|word| word.count_ones() as usize).sum()
    }

    /// The set positions, ascending.
    fn positions(&self) -> Positions<'_> {
        Positions {
            words: &self.0,
            word: 0,
            current: self.0.first().copied().unwrap_or(0),
        }
    }
}

#[derive(Clone, Debug)]
struct Positions<'a> {
    words: &'a [u64],
    word: usize,
    current: u64,
}

impl Iterator for Positions<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.current == 0 {
            self.word += 1;
            self.current = *self.words.get(self.word)?;
        }
        let bit = self.current.trailing_zeros() as usize;
        self.current &= self.current - 1;
        Some(self.word * 64 + bit)
    }
}

fn scope_bit(scope: Scope) -> u8 {
    1 << (scope as u8)
}

fn binding_bit(binding: Binding) -> u8 {
    1 << (binding as u8)
}

/// Narrows a registry to what one consumer may use; every step only removes tools.
/// Made by [`Registry::view`]; finished by [`ViewBuilder::build`].
///
/// The steps, in any order (the result is the tools every step keeps):
/// - [`scopes`](Self::scopes): the consumer's scopes (default: every scope);
/// - [`allow`](Self::allow) / [`allow_tools`](Self::allow_tools): the allowlist
///   (default: no allowlist). `channel` tools are never allowlist entries: they are
///   in a view exactly when its scopes include `channel` and the turn
///   [`provides`](Self::provides) `Binding::LiveChannel`;
/// - [`flags`](Self::flags): the feature flags that are on; a `gate`d tool stays only
///   when its flag is one of them;
/// - [`permit`](Self::permit): the application's permission predicate;
/// - [`surface`](Self::surface): the groups the current page or context narrows to.
///
/// [`provides`](Self::provides) says which bindings the consumer can supply: a tool
/// the scopes and allowlist select whose required binding is missing refuses the
/// build, naming the tool and the binding.
///
/// ```
/// use toolkit::{Context, Scope, tool, binding::Binding};
///
/// /// Get the contacts whose name contains a text.
/// #[tool(scope = shared, tier = auto, group = "contacts", aliases = ["find_contacts"])]
/// async fn get_contacts(
///     /// Part of the name.
///     name: String,
/// ) -> Vec<String> {
///     vec![format!("{name} Lovelace")]
/// }
///
/// /// Get the phone numbers the organization owns.
/// #[tool(scope = shared, tier = auto, group = "phone")]
/// async fn get_phone_numbers() -> Vec<String> {
///     vec!["+1 555 0100".to_owned()]
/// }
///
/// // The strings as stored for this agent; the aliases resolve to today's names.
/// let stored = ["find_contacts"];
/// let view = toolkit::registry()
///     .view()
///     .scopes([Scope::Shared, Scope::Agent])
///     .provides([Binding::CallerThread])
///     .allow(stored)
///     .build()?;
/// assert_eq!(view.names().collect::<Vec<_>>(), ["get_contacts"]);
/// # futures_executor::block_on(async {
/// let hidden = view.call("get_phone_numbers", "{}", &Context::new()).await;
/// assert_eq!(hidden.error().map(|e| e.kind()), Some("unknown_tool"));
/// # });
/// # Ok::<(), toolkit::view::ViewError>(())
/// ```
#[must_use = "a view builder does nothing until `build` is called"]
pub struct ViewBuilder<'r> {
    registry: &'r Registry,
    scopes: u8,
    provides: u8,
    /// The union of allowlist entries, if any allowlist step was called.
    allowed: Option<Bits>,
    /// Preset names met in `allow`, resolved at `build` (presets may come later).
    preset_entries: Vec<String>,
    presets: &'r [Preset],
    /// What flags, permission and surfacing keep.
    keep: Bits,
    /// Gated tools whose flag is on.
    gates_on: Bits,
    unknown: Vec<UnknownEntry>,
    tolerate_unknown: bool,
    approvals: Option<(&'r Approvals, Principal)>,
    /// What the dispatch spans call this view.
    label: Option<Cow<'static, str>>,
    /// Tools whose arguments the dispatch spans may record.
    log_arguments: Option<Bits>,
    quotas: Option<&'r Quotas>,
    quota_class: Option<Cow<'static, str>>,
    principal: Option<Principal>,
}

impl Registry {
    /// Starts a [`View`] of this registry: every tool, until the builder's steps
    /// remove some.
    pub fn view(&self) -> ViewBuilder<'_> {
        let len = self.len();
        ViewBuilder {
            registry: self,
            scopes: u8::MAX,
            provides: binding_bit(Binding::Unbound),
            allowed: None,
            preset_entries: Vec::new(),
            presets: &[],
            keep: Bits::full(len),
            gates_on: Bits::empty(len),
            unknown: Vec::new(),
            tolerate_unknown: false,
            approvals: None,
            label: None,
            log_arguments: None,
            quotas: None,
            quota_class: None,
            principal: None,
        }
    }
}

impl<'r> ViewBuilder<'r> {
    /// Keeps only tools of these scopes (the consumer's: an assistant is `shared` +
    /// `assistant`, an agent `shared` + `agent`; `channel` tools also need the turn
    /// to provide `Binding::LiveChannel`). Called twice, keeps the scopes both name.
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = Scope>) -> Self {
        let mask = scopes
            .into_iter()
            .fold(0, |mask, scope| mask | scope_bit(scope));
        self.scopes &= mask;
        // Also now, so that `permit` is not asked about tools out of scope.
        for (position, tool) in self.registry.iter().enumerate() {
            if self.scopes & scope_bit(tool.scope) == 0 {
                self.keep.clear(position);
            }
        }
        self
    }

    /// The bindings this consumer can supply in its [`Context`]. `Unbound` always
    /// counts as provided.
    pub fn provides(mut self, bindings: impl IntoIterator<Item = Binding>) -> Self {
        for binding in bindings {
            self.provides |= binding_bit(binding);
        }
        self
    }

    /// The presets that `"preset:<name>"` allowlist entries may name.
    pub fn presets(mut self, presets: &'r [Preset]) -> Self {
        self.presets = presets;
        self
    }

    /// Allowlist entries as stored: tool names, aliases (resolved to their tool),
    /// `@group`s and `preset:<name>`s. Matching is exact: no trimming, no case
    /// folding. Several `allow` and `allow_tools` calls add to one allowlist; once
    /// any is called, only allowlisted tools stay (`channel` tools follow their own
    /// rule, above).
    ///
    /// An entry that names nothing is an error of [`build`](Self::build), unless
    /// [`tolerate_unknown`](Self::tolerate_unknown) is set.
    pub fn allow<S: AsRef<str>>(mut self, entries: impl IntoIterator<Item = S>) -> Self {
        let mut allowed = self
            .allowed
            .take()
            .unwrap_or_else(|| Bits::empty(self.registry.len()));
        for entry in entries {
            let entry = entry.as_ref();
            if entry.starts_with(PRESET_PREFIX) {
                self.preset_entries.push(entry.to_owned());
            } else if let Err(problem) = self.resolve(entry, &mut allowed) {
                self.unknown.push(UnknownEntry {
                    entry: entry.to_owned(),
                    preset: None,
                    problem,
                });
            }
        }
        self.allowed = Some(allowed);
        self
    }

    /// A typed allowlist, checked by the compiler: tool definitions from their
    /// handles (`get_tasks::definition()`). Adds to the same allowlist as
    /// [`allow`](Self::allow).
    pub fn allow_tools(mut self, tools: impl IntoIterator<Item = &'static Tool>) -> Self {
        let mut allowed = self
            .allowed
            .take()
            .unwrap_or_else(|| Bits::empty(self.registry.len()));
        for tool in tools {
            match self.registry.position(tool.name) {
                Some(position) if std::ptr::eq(self.registry.at(position).tool(), tool) => {
                    allowed.set(position);
                }
                _ => self.unknown.push(UnknownEntry {
                    entry: tool.name.to_owned(),
                    preset: None,
                    problem: EntryProblem::NotInRegistry,
                }),
            }
        }
        self.allowed = Some(allowed);
        self
    }

    /// Feature flags that are on. A tool with `gate = "flag"` stays only when its
    /// flag is among them (across every `flags` call).
    pub fn flags<S: AsRef<str>>(mut self, flags: impl IntoIterator<Item = S>) -> Self {
        for flag in flags {
            let flag = flag.as_ref();
            for (position, tool) in self.registry.iter().enumerate() {
                if tool.gate == Some(flag) {
                    self.gates_on.set(position);
                }
            }
        }
        self
    }

    /// Keeps only tools the predicate permits (the application's permission check:
    /// ABAC, owners bypass, ...). Called once per tool still in the view, now; the
    /// view keeps no closure.
    pub fn permit(mut self, mut permitted: impl FnMut(&Tool) -> bool) -> Self {
        for (position, tool) in self.registry.iter().enumerate() {
            if self.keep.get(position) && !permitted(tool.tool()) {
                self.keep.clear(position);
            }
        }
        self
    }

    /// Narrows to tools in these groups (the page the human is on, say); tools in no
    /// group leave too. Never widens: called twice, keeps the groups both name. A
    /// group no tool has is reported like an unknown allowlist entry.
    pub fn surface<S: AsRef<str>>(mut self, groups: impl IntoIterator<Item = S>) -> Self {
        let groups: Vec<S> = groups.into_iter().collect();
        for group in &groups {
            let group = group.as_ref();
            if !self.registry.iter().any(|tool| tool.group == Some(group)) {
                self.unknown.push(UnknownEntry {
                    entry: group.to_owned(),
                    preset: None,
                    problem: EntryProblem::UnknownGroup {
                        suggestion: self.closest_group(group),
                    },
                });
            }
        }
        for (position, tool) in self.registry.iter().enumerate() {
            let surfaced = tool
                .group
                .is_some_and(|group| groups.iter().any(|wanted| wanted.as_ref() == group));
            if !surfaced {
                self.keep.clear(position);
            }
        }
        self
    }

    /// Builds the view even when allowlist entries or surface groups name nothing;
    /// [`View::unknown_entries`] then reports them. For allowlists stored in a
    /// database, so that removing a tool from the code does not take every consumer
    /// that names it down; log or surface the report.
    pub fn tolerate_unknown(mut self) -> Self {
        self.tolerate_unknown = true;
        self
    }

    /// Lets `approve` tools in this view ask for approval on behalf of `principal`
    /// (the user or agent the request acts for, as whatever verified it made it:
    /// see [`Principal`]): without it, calling one returns
    /// [`ToolError::ApprovalRequired`]. See [`Approvals`].
    pub fn approvals(mut self, approvals: &'r Approvals, principal: Principal) -> Self {
        self.approvals = Some((approvals, principal));
        self
    }

    /// The principal the view acts for, when it takes no approvals: the key its
    /// [quotas](Self::quotas) count under. [`approvals`](Self::approvals) sets it
    /// too; a view given both must name one principal.
    pub fn principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    /// Counts the calls of this view's principal against `quotas` (see
    /// [`crate::quota`]): a call over its tool's limit is refused with
    /// [`ToolError::RateLimited`] and runs nothing. Needs a principal
    /// ([`principal`](Self::principal) or [`approvals`](Self::approvals)).
    pub fn quotas(mut self, quotas: &'r Quotas) -> Self {
        self.quotas = Some(quotas);
        self
    }

    /// The principal's class (`trial`, `staff`, ...: the application's names),
    /// whose limits set with [`QuotasBuilder::class`](crate::quota::QuotasBuilder::class)
    /// win over the view's and the tools' own.
    pub fn quota_class(mut self, class: impl Into<Cow<'static, str>>) -> Self {
        self.quota_class = Some(class.into());
        self
    }

    /// Names the view in the `tracing` span of every call through it (field
    /// `view`): the client kind, the agent, the page. The guide's
    /// [observability](crate::guide::observability) chapter lists the span's fields.
    pub fn label(mut self, label: impl Into<Cow<'static, str>>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Lets the dispatch spans of these tools (names or aliases) record their
    /// arguments' text (field `arguments`, cut at 1 KiB). Arguments are left out
    /// of spans unless a tool is named here: they can hold what the user said.
    /// Names that are not in the registry are ignored.
    pub fn log_arguments<S: AsRef<str>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        let mut logged = self
            .log_arguments
            .take()
            .unwrap_or_else(|| Bits::empty(self.registry.len()));
        for tool in tools {
            if let Some(position) = self.registry.position(tool.as_ref()) {
                logged.set(position);
            }
        }
        self.log_arguments = Some(logged);
        self
    }

    /// Finishes the view: resolves presets, applies the steps, checks bindings.
    ///
    /// Fails with every problem at once: allowlist entries that name nothing (unless
    /// [`tolerate_unknown`](Self::tolerate_unknown)), and tools the scopes and
    /// allowlist select whose required binding the consumer doesn't
    /// [`provide`](Self::provides) (always).
    pub fn build(mut self) -> Result<View<'r>, ViewError> {
        if !self.preset_entries.is_empty() {
            let mut allowed = self
                .allowed
                .take()
                .unwrap_or_else(|| Bits::empty(self.registry.len()));
            for entry in std::mem::take(&mut self.preset_entries) {
                self.expand_preset(&entry, &mut allowed);
            }
            self.allowed = Some(allowed);
        }
        let registry = self.registry;
        let mut members = self.keep;
        let mut missing = Vec::new();
        for (position, tool) in registry.iter().enumerate() {
            let in_scope = self.scopes & scope_bit(tool.scope) != 0;
            let selected = if tool.scope == Scope::Channel {
                // Injected per turn: present exactly when the turn provides its
                // live channel, never through the allowlist.
                self.provides & binding_bit(Binding::LiveChannel) != 0
            } else {
                self.allowed
                    .as_ref()
                    .is_none_or(|allowed| allowed.get(position))
            };
            // A runtime tool that is not available now (an external tool whose
            // definition no longer matches its pin) is in no view.
            if !(in_scope && selected && tool.is_available()) {
                members.clear(position);
                continue;
            }
            for &binding in tool.bindings {
                if self.provides & binding_bit(binding) == 0 {
                    missing.push(ViewProblem::MissingBinding {
                        tool: tool.name,
                        scope: tool.scope,
                        binding,
                    });
                }
            }
            if tool.gate.is_some() && !self.gates_on.get(position) {
                members.clear(position);
            }
        }
        let mut problems = missing;
        if let Some((approvals, _)) = &self.approvals
            && let Err(error) = approvals.resolve_policy(registry)
        {
            problems.push(ViewProblem::Policy(error));
        }
        if !self.tolerate_unknown {
            problems.extend(self.unknown.drain(..).map(ViewProblem::Unknown));
        }
        let principal = match (self.principal.take(), &self.approvals) {
            (Some(given), Some((_, approving))) if given != *approving => {
                problems.push(ViewProblem::TwoPrincipals {
                    principal: given,
                    approvals: approving.clone(),
                });
                None
            }
            (Some(given), _) => Some(given),
            (None, Some((_, approving))) => Some(approving.clone()),
            (None, None) => None,
        };
        if self.quotas.is_some() && principal.is_none() {
            problems.push(ViewProblem::QuotasWithoutPrincipal);
        }
        if !problems.is_empty() {
            return Err(ViewError { problems });
        }
        let len = members.count();
        Ok(View {
            registry,
            members,
            len,
            unknown: self.unknown,
            approvals: self.approvals,
            label: self.label,
            log_arguments: self.log_arguments,
            quotas: self.quotas,
            quota_class: self.quota_class,
            principal,
        })
    }

    /// Adds the tool(s) `entry` names (no presets) to `allowed`.
    fn resolve(&self, entry: &str, allowed: &mut Bits) -> Result<(), EntryProblem> {
        if let Some(group) = entry.strip_prefix(GROUP_PREFIX) {
            let mut found = false;
            for (position, tool) in self.registry.iter().enumerate() {
                if tool.group == Some(group) {
                    found = true;
                    if tool.scope != Scope::Channel {
                        allowed.set(position);
                    }
                }
            }
            return if found {
                Ok(())
            } else {
                Err(EntryProblem::UnknownGroup {
                    suggestion: self.closest_group(group).map(|g| format!("@{g}")),
                })
            };
        }
        match self.registry.position(entry) {
            Some(position) if self.registry.at(position).scope == Scope::Channel => {
                Err(EntryProblem::ChannelTool {
                    tool: self.registry.at(position).name,
                })
            }
            Some(position) => {
                allowed.set(position);
                Ok(())
            }
            None => Err(EntryProblem::UnknownTool {
                suggestion: self.tool_suggestion(entry),
            }),
        }
    }

    fn expand_preset(&mut self, entry: &str, allowed: &mut Bits) {
        let name = &entry[PRESET_PREFIX.len()..];
        let Some(preset) = self.presets.iter().find(|preset| preset.name == name) else {
            let suggestion =
                crate::suggest::closest(name, self.presets.iter().map(|preset| preset.name))
                    .map(|name| format!("{PRESET_PREFIX}{name}"));
            self.unknown.push(UnknownEntry {
                entry: entry.to_owned(),
                preset: None,
                problem: EntryProblem::UnknownPreset { suggestion },
            });
            return;
        };
        let mut selected = Bits::empty(self.registry.len());
        for &item in preset.entries {
            if let Err(problem) = self.resolve(item, &mut selected) {
                self.unknown.push(UnknownEntry {
                    entry: item.to_owned(),
                    preset: Some(preset.name),
                    problem,
                });
            }
        }
        for &item in preset.except {
            match self.registry.position(item) {
                Some(position) => selected.clear(position),
                None => self.unknown.push(UnknownEntry {
                    entry: item.to_owned(),
                    preset: Some(preset.name),
                    problem: EntryProblem::UnknownTool {
                        suggestion: self.tool_suggestion(item),
                    },
                }),
            }
        }
        for position in selected.positions() {
            allowed.set(position);
        }
    }

    /// The registry's closest tool, by its current name (this is configuration,
    /// not a model: the whole registry may be named).
    fn tool_suggestion(&self, entry: &str) -> Option<String> {
        match self.registry.unknown_tool(entry) {
            ToolError::UnknownTool { suggestion, .. } => suggestion,
            _ => None,
        }
    }

    fn closest_group(&self, group: &str) -> Option<String> {
        let groups: std::collections::BTreeSet<&str> =
            self.registry.iter().filter_map(|tool| tool.group).collect();
        crate::suggest::closest(group, groups.into_iter()).map(str::to_owned)
    }
}

impl fmt::Debug for ViewBuilder<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ViewBuilder")
            .field("scopes", &self.scopes)
            .field("provides", &self.provides)
            .field("unknown", &self.unknown)
            .finish_non_exhaustive()
    }
}

/// The tools one consumer may list and call: the security boundary.
///
/// Built per request with [`Registry::view`]: a bit per registry tool, no schema
/// work, no closures kept. Every question goes through it: [`get`](Self::get),
/// [`contains`](Self::contains), [`iter`](Self::iter) (name order),
/// [`render`](Self::render), [`call`](Self::call), [`resume`](Self::resume),
/// [`unknown_tool`](Self::unknown_tool).
///
/// ```
/// use toolkit::{Context, Dialect, Scope, tool};
///
/// /// Get the time of day, as the server sees it.
/// #[tool(scope = shared, tier = auto, always)]
/// async fn get_time() -> &'static str {
///     "12:00"
/// }
///
/// # futures_executor::block_on(async {
/// let view = toolkit::registry().view().scopes([Scope::Shared]).allow(["get_time"]).build()?;
/// assert!(view.contains("get_time"));
/// // What the request carries: the tools' cached JSON text, written into one array.
/// let tools = view.render(Dialect::OpenAiChat).all_or_error()?;
/// assert!(tools.starts_with(r#"[{"type":"function","function":{"name":"get_time""#));
/// let response = view.call("get_time", "{}", &Context::new()).await;
/// assert_eq!(response.result(), Some(&serde_json::json!("12:00")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct View<'r> {
    registry: &'r Registry,
    members: Bits,
    len: usize,
    unknown: Vec<UnknownEntry>,
    approvals: Option<(&'r Approvals, Principal)>,
    label: Option<Cow<'static, str>>,
    log_arguments: Option<Bits>,
    quotas: Option<&'r Quotas>,
    quota_class: Option<Cow<'static, str>>,
    principal: Option<Principal>,
}

impl<'r> View<'r> {
    /// The tool with this name or alias, if it is in the view. Exact match only.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&'r RegisteredTool> {
        let position = self.registry.position(name)?;
        self.members
            .get(position)
            .then(|| self.registry.at(position))
    }

    /// Whether a tool of this name or alias is in the view.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The view's tools, in name order.
    #[must_use]
    pub fn iter(&self) -> ViewIter<'_, 'r> {
        ViewIter {
            registry: self.registry,
            positions: self.members.positions(),
            remaining: self.len,
        }
    }

    /// The view's `always` tools (sent on every request), in name order.
    pub fn always(&self) -> impl Iterator<Item = &'r RegisteredTool> + '_ {
        self.iter().filter(|tool| tool.always)
    }

    /// The view's routed tools (sent only when selected), in name order.
    pub fn routed(&self) -> impl Iterator<Item = &'r RegisteredTool> + '_ {
        self.iter().filter(|tool| !tool.always)
    }

    /// The view's tool names, in name order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.iter().map(|tool| tool.name)
    }

    /// How many tools the view has.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no tools.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The registry the view narrows.
    #[must_use]
    pub fn registry(&self) -> &'r Registry {
        self.registry
    }

    /// Allowlist entries and surface groups that named nothing, when the builder
    /// was told to [`tolerate_unknown`](ViewBuilder::tolerate_unknown) them.
    #[must_use]
    pub fn unknown_entries(&self) -> &[UnknownEntry] {
        &self.unknown
    }

    /// The principal the view acts for, if it was built with one
    /// ([`ViewBuilder::principal`] or [`ViewBuilder::approvals`]): approvals are
    /// bound to it and quotas count under it.
    #[must_use]
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }

    /// The limit a call of `tool` through this view meets and the principal it
    /// counts under, when the view has quotas and the tool a limit.
    pub(crate) fn quota_of(&self, tool: &Tool) -> Option<(&'r Quotas, &Principal, Quota)> {
        let quotas = self.quotas?;
        let quota = quotas.limit(tool, self.label.as_deref(), self.quota_class.as_deref())?;
        Some((quotas, self.principal.as_ref()?, quota))
    }

    /// Whether this view may see, answer for and run the `approve` call `pending`:
    /// a call of the view's principal, of a tool the view can call now by its
    /// current name. A call is reached through the view the caller holds now,
    /// never by its subject alone: a narrower token of the same user (a view
    /// without the tool) learns nothing of it and decides nothing on it.
    #[must_use]
    pub fn reaches(&self, pending: &crate::approval::PendingApproval) -> bool {
        self.principal() == Some(&pending.principal)
            && self
                .get(&pending.tool)
                .is_some_and(|tool| tool.name == pending.tool)
    }

    /// The view's tools rendered in `dialect`, in name order: the JSON array a
    /// request carries, written from each tool's cached text.
    ///
    /// Partial, like [`Registry::render`]: a tool the dialect cannot express is
    /// left out and reported in [`Rendered::skipped`](crate::render::Rendered::skipped);
    /// call [`Rendered::all_or_error`](crate::render::Rendered::all_or_error) to insist on
    /// every tool.
    pub fn render(&self, dialect: Dialect) -> crate::render::Rendered {
        crate::render::render_set(self.iter(), dialect)
    }

    /// Calls a tool of the view with the JSON text the model produced, applying its
    /// tier. Never panics.
    ///
    /// - Not in the view (by any spelling): [`ToolError::UnknownTool`], suggesting
    ///   only names in the view.
    /// - `auto` and `confirm` tools: dispatched; a `confirm` tool called without
    ///   `confirmed: true` answers with its preview and does not act.
    /// - `approve` tools: the arguments are validated first; then, with an
    ///   [`InlineDecider`](crate::approval::InlineDecider), it decides inline; without one the
    ///   call returns [`Response::Pending`] and the tool does not run. A view built
    ///   without [`ViewBuilder::approvals`] returns [`ToolError::ApprovalRequired`].
    #[inline]
    pub fn call<'a>(
        &'a self,
        name: &str,
        arguments: &'a str,
        ctx: &'a Context,
    ) -> impl Future<Output = Response> + Send + 'a {
        use crate::dispatch::Call;
        let found = self.get(name);
        let call = match found {
            Some(tool) if tool.tier != Tier::Approve => match self.quota_of(tool) {
                None => tool.start(arguments, ctx, &self.registry.limits()),
                // Counted before anything runs: a refused call runs nothing.
                // (An `approve` tool's call is counted when it runs.)
                Some((quotas, principal, quota)) => {
                    let limits = self.registry.limits();
                    Call::running(
                        tool.name,
                        Box::pin(async move {
                            if let Err(refused) = quotas.admit(principal.key(), tool, quota).await {
                                return Response::Error(refused);
                            }
                            tool.start(arguments, ctx, &limits).await
                        }),
                    )
                }
            },
            Some(tool) => Call::running(
                tool.name,
                Box::pin(crate::approval::request(self, tool, arguments, ctx)),
            ),
            None => Call::ready(Response::Error(self.unknown_tool(name))),
        };
        let logged = self.log_arguments.as_ref().is_some_and(|logged| {
            self.registry
                .position(name)
                .is_some_and(|position| logged.get(position))
        });
        let dispatch = crate::observe::Dispatch {
            tool: found.map(RegisteredTool::tool),
            runtime: found.is_some_and(RegisteredTool::is_runtime),
            name,
            view: self.label.as_deref(),
            principal: self.principal(),
            arguments: (logged && found.is_some()).then_some(arguments),
            resumed: false,
            ctx,
            approval: None,
        };
        crate::observe::observe_call(&dispatch, call)
    }

    /// The label the view's dispatch spans carry, if the builder set one
    /// ([`ViewBuilder::label`]).
    #[must_use]
    pub fn label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    /// [`View::call`] with arguments already parsed into a [`Value`]. A value
    /// nested past the limit is refused without recursing into it (a `Value` built
    /// in code can be deeper than any stack), as [`Registry::call_value`] does.
    pub async fn call_value(&self, name: &str, arguments: &Value, ctx: &Context) -> Response {
        if let Err(error) = crate::dispatch::limits::check_value(arguments, &self.registry.limits())
        {
            if self.get(name).is_none() {
                return Response::Error(self.unknown_tool(name));
            }
            return Response::Error(error);
        }
        self.call(name, &crate::dispatch::limits::value_text(arguments), ctx)
            .await
    }

    /// Runs an approved call once, or says why not: the approval's signature,
    /// principal (this view's), tool (in this view), expiry, argument digest and
    /// arguments are checked, then the approval is marked used in the
    /// [`ApprovalStore`](crate::approval::ApprovalStore); a second resume of the same
    /// approval, in this process or another, is refused. A denial returns
    /// [`ToolError::Denied`] with the human's message.
    ///
    /// Like [`View::call`], it runs inside a `toolkit.call` span (see the guide's
    /// [observability](crate::guide::observability) chapter), whose `resumed` field is `true`.
    pub async fn resume(&self, approval: &Approval, ctx: &Context) -> Response {
        self.resume_at(approval, ctx, None).await
    }

    /// [`View::resume`] where the request read the store's time already (`now`,
    /// deciding or following the decision): the run checks against it, so one
    /// resume reads the store's clock once.
    pub(crate) async fn resume_at(
        &self,
        approval: &Approval,
        ctx: &Context,
        now: Option<u64>,
    ) -> Response {
        let found = self.get(&approval.tool);
        let dispatch = crate::observe::Dispatch {
            tool: found.map(RegisteredTool::tool),
            runtime: found.is_some_and(RegisteredTool::is_runtime),
            name: &approval.tool,
            view: self.label.as_deref(),
            principal: self.principal(),
            arguments: None,
            resumed: true,
            ctx,
            approval: Some((&approval.call_id, approval.verdict.as_str())),
        };
        let call = crate::dispatch::Call::running(
            found.map_or("", |tool| tool.name),
            Box::pin(crate::approval::resume(self, approval, ctx, now)),
        );
        crate::observe::observe_call(&dispatch, call).await
    }

    /// The error for a name that isn't in the view: the same as for a name that
    /// exists nowhere, suggesting the closest tool *in the view* (by its current
    /// name). The name is echoed cut and cleaned of control and invisible
    /// characters, exactly as [`Registry::unknown_tool`] does.
    #[must_use]
    pub fn unknown_tool(&self, name: &str) -> ToolError {
        let names = self
            .iter()
            .flat_map(|tool| std::iter::once(tool.name).chain(tool.aliases.iter().copied()));
        let suggestion = crate::suggest::closest(name, names)
            .and_then(|closest| self.get(closest))
            .map(|tool| tool.name.to_owned());
        ToolError::no_tool_named(name, suggestion)
    }

    pub(crate) fn approvals(&self) -> Option<(&'r Approvals, &Principal)> {
        self.approvals
            .as_ref()
            .map(|(approvals, principal)| (*approvals, principal))
    }
}

impl<'r> crate::approval::CallingView<'r> for View<'r> {
    fn approvals(&self) -> Option<(&'r Approvals, &Principal)> {
        View::approvals(self)
    }

    fn registry(&self) -> &'r Registry {
        View::registry(self)
    }

    fn get(&self, name: &str) -> Option<&'r RegisteredTool> {
        View::get(self, name)
    }

    fn unknown_tool(&self, name: &str) -> ToolError {
        View::unknown_tool(self, name)
    }

    fn label(&self) -> Option<&str> {
        View::label(self)
    }

    fn quota_of(&self, tool: &Tool) -> Option<(&'r Quotas, &Principal, Quota)> {
        View::quota_of(self, tool)
    }

    fn quotas(&self) -> Option<&'r Quotas> {
        self.quotas
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: &'a str,
        ctx: &'a Context,
    ) -> crate::tool::CallFuture<'a> {
        Box::pin(View::call(self, name, arguments, ctx))
    }
}

impl fmt::Debug for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("View")
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("unknown", &self.unknown)
            .field("principal", &self.principal())
            .finish_non_exhaustive()
    }
}

impl<'v, 'r> IntoIterator for &'v View<'r> {
    type Item = &'r RegisteredTool;
    type IntoIter = ViewIter<'v, 'r>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The tools of a [`View`], in name order.
#[derive(Clone, Debug)]
pub struct ViewIter<'v, 'r> {
    registry: &'r Registry,
    positions: Positions<'v>,
    remaining: usize,
}

impl<'r> Iterator for ViewIter<'_, 'r> {
    type Item = &'r RegisteredTool;

    fn next(&mut self) -> Option<&'r RegisteredTool> {
        let position = self.positions.next()?;
        self.remaining -= 1;
        Some(self.registry.at(position))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for ViewIter<'_, '_> {}

/// An allowlist entry (or surface group) that names nothing usable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownEntry {
    /// The entry as given.
    pub entry: String,
    /// The preset whose entry it is, if it came from one.
    pub preset: Option<&'static str>,
    /// What is wrong with it.
    pub problem: EntryProblem,
}

/// What is wrong with an [`UnknownEntry`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryProblem {
    /// No tool has this name or alias.
    UnknownTool {
        /// The closest tool, by its current name.
        suggestion: Option<String>,
    },
    /// No tool is in this group.
    UnknownGroup {
        /// The closest group.
        suggestion: Option<String>,
    },
    /// No preset of this name was given to the builder.
    UnknownPreset {
        /// The closest preset, as an entry (`preset:<name>`).
        suggestion: Option<String>,
    },
    /// A tool definition (from a handle) that is not in this registry.
    NotInRegistry,
    /// A `channel` tool: channel tools join a view through their scope, never
    /// through an allowlist.
    ChannelTool {
        /// The tool's name.
        tool: &'static str,
    },
}

impl fmt::Display for UnknownEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entry = &self.entry;
        match &self.problem {
            EntryProblem::UnknownTool { .. } => write!(f, "no tool is named `{entry}`")?,
            EntryProblem::UnknownGroup { .. } => {
                write!(f, "no tool is in group `{}`", entry.trim_start_matches('@'))?;
            }
            EntryProblem::UnknownPreset { .. } => write!(f, "no preset is named `{entry}`")?,
            EntryProblem::NotInRegistry => write!(f, "tool `{entry}` is not in this registry")?,
            EntryProblem::ChannelTool { tool } => write!(
                f,
                "`{tool}` is a channel tool: it joins a view through `Scope::Channel` when the turn \
                 provides its live channel, not through an allowlist entry"
            )?,
        }
        if let Some(preset) = self.preset {
            write!(f, " (in preset `{preset}`)")?;
        }
        match &self.problem {
            EntryProblem::UnknownTool {
                suggestion: Some(suggestion),
            }
            | EntryProblem::UnknownGroup {
                suggestion: Some(suggestion),
            }
            | EntryProblem::UnknownPreset {
                suggestion: Some(suggestion),
            } => write!(f, "; did you mean `{suggestion}`?"),
            _ => Ok(()),
        }
    }
}

/// One reason a view could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ViewProblem {
    /// An allowlist entry or surface group that names nothing.
    Unknown(UnknownEntry),
    /// A selected tool needs a binding this consumer can't provide: a programming
    /// error (an agent tool in a view with no caller thread).
    MissingBinding {
        /// The tool.
        tool: &'static str,
        /// Its scope.
        scope: Scope,
        /// The binding it requires.
        binding: Binding,
    },
    /// The approvals' policy names tools that are not `approve` tools of the
    /// registry ([`DecisionPolicy::resolve`](crate::approval::DecisionPolicy::resolve)):
    /// nobody could decide through it.
    Policy(crate::approval::PolicyError),
    /// The view has [quotas](ViewBuilder::quotas) and no principal to count them
    /// under.
    QuotasWithoutPrincipal,
    /// [`ViewBuilder::principal`] and [`ViewBuilder::approvals`] name two
    /// principals.
    TwoPrincipals {
        /// The one given to `principal`.
        principal: Principal,
        /// The one given to `approvals`.
        approvals: Principal,
    },
}

impl fmt::Display for ViewProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewProblem::Unknown(entry) => write!(f, "allowlist: {entry}"),
            ViewProblem::Policy(error) => write!(f, "{error}"),
            ViewProblem::MissingBinding {
                tool,
                scope,
                binding,
            } => write!(
                f,
                "the {scope} tool `{tool}` requires the `{binding}` binding, and this view's \
                 consumer does not provide it; add `.provides([Binding::{binding:?}])` if it does, \
                 or remove the tool from the view"
            ),
            ViewProblem::QuotasWithoutPrincipal => f.write_str(
                "the view counts calls against quotas and acts for no principal; add \
                 `.principal(..)` (or `.approvals(..)`) naming whom it acts for",
            ),
            ViewProblem::TwoPrincipals {
                principal,
                approvals,
            } => write!(
                f,
                "the view names two principals, `{principal}` and `{approvals}` (its approvals'); \
                 give one of them"
            ),
        }
    }
}

/// Why [`ViewBuilder::build`] refused: every problem at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewError {
    /// The problems: bindings first, then the approvals' policy, then allowlist
    /// entries in the order given.
    pub problems: Vec<ViewProblem>,
}

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the view could not be built: ")?;
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ViewError {}

#[cfg(test)]
mod tests {
    use super::Bits;

    #[test]
    fn bits_across_word_boundaries() {
        for len in [0, 1, 63, 64, 65, 128, 130] {
            let full = Bits::full(len);
            assert_eq!(full.count(), len, "{len}");
            assert_eq!(
                full.positions().collect::<Vec<_>>(),
                (0..len).collect::<Vec<_>>()
            );
            assert!(!full.get(len), "{len}");
            assert_eq!(Bits::empty(len).positions().count(), 0);
        }
        let mut bits = Bits::empty(130);
        for position in [0, 63, 64, 127, 129] {
            bits.set(position);
        }
        assert_eq!(bits.positions().collect::<Vec<_>>(), [0, 63, 64, 127, 129]);
        bits.clear(64);
        bits.clear(0);
        assert_eq!(bits.positions().collect::<Vec<_>>(), [63, 127, 129]);
        assert_eq!(bits.count(), 3);
        assert!(bits.get(129) && !bits.get(128) && !bits.get(1000));
    }
}
