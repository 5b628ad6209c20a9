//! Views shared between the requests of one caller: the access hook's cache.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use crate::view::View;

/// A bounded cache of views for an [`Access`](super::Access) hook, so that
/// requests of the same caller share one view instead of building it anew each
/// time.
///
/// The **key is everything the view is built from**, chosen by the application:
/// the client kind, the token's subject the approvals are bound to, its scopes,
/// the flags... Two requests with equal keys get the same view, so a key that
/// leaves out something the view depends on hands one caller another's view
/// (a view built with [`approvals`](crate::view::ViewBuilder::approvals) for a user
/// needs that user in its key).
///
/// Bounded: at most `capacity` views are kept; when full, the least recently
/// used is dropped. A view that lists a runtime tool is rebuilt when any runtime
/// tool of its registry has come or gone since
/// ([`RegisteredTool::is_available`](crate::registry::RegisteredTool::is_available)),
/// as a view built then would.
///
/// ```
/// use toolkit::mcp::{AccessError, Caller, Grant, ViewCache};
/// use toolkit::Scope;
///
/// let views = ViewCache::new(256);
/// let access = move |caller: &Caller<'_>| -> Result<Grant, AccessError> {
///     // This view depends on the client kind alone: that is its key.
///     let client = caller.client.to_owned();
///     let view = views
///         .get_or_build(client.clone(), || {
///             toolkit::registry()
///                 .view()
///                 .scopes([Scope::Shared])
///                 .label(client)
///                 .build()
///         })?;
///     Ok(Grant::new(view, toolkit::Context::new()))
/// };
/// # let _ = access;
/// ```
pub struct ViewCache<K> {
    capacity: usize,
    state: Mutex<State<K>>,
}

struct State<K> {
    entries: HashMap<K, Entry>,
    /// Incremented on every use: an entry's last use, to drop the oldest.
    clock: u64,
}

struct Entry {
    view: Arc<View<'static>>,
    /// The availability of each runtime tool of the registry when the view was
    /// built (empty for a registry of `#[tool]`s only).
    runtime: Vec<bool>,
    used: u64,
}

impl<K: Hash + Eq + Clone> ViewCache<K> {
    /// A cache keeping at most `capacity` views (`0`: none, every call builds).
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        ViewCache {
            capacity,
            state: Mutex::new(State {
                entries: HashMap::new(),
                clock: 0,
            }),
        }
    }

    /// The view kept for `key`, or the one `build` makes, kept for the next
    /// request with an equal key. `build` runs without the cache locked (two
    /// requests missing at once may both build; one view is kept). An `Err` is
    /// returned and nothing kept.
    pub fn get_or_build<E>(
        &self,
        key: K,
        build: impl FnOnce() -> Result<View<'static>, E>,
    ) -> Result<Arc<View<'static>>, E> {
        if let Some(view) = self.get(&key) {
            return Ok(view);
        }
        let view = Arc::new(build()?);
        if self.capacity > 0 {
            let runtime = runtime_availability(&view);
            let mut state = self.lock();
            state.clock += 1;
            let used = state.clock;
            if state.entries.len() >= self.capacity && !state.entries.contains_key(&key) {
                let oldest = state
                    .entries
                    .iter()
                    .min_by_key(|(_, entry)| entry.used)
                    .map(|(key, _)| key.clone());
                if let Some(oldest) = oldest {
                    state.entries.remove(&oldest);
                }
            }
            state.entries.insert(
                key,
                Entry {
                    view: Arc::clone(&view),
                    runtime,
                    used,
                },
            );
        }
        Ok(view)
    }

    /// The view kept for `key`, while it is still what a build would give.
    fn get(&self, key: &K) -> Option<Arc<View<'static>>> {
        let mut state = self.lock();
        state.clock += 1;
        let clock = state.clock;
        let entry = state.entries.get_mut(key)?;
        if !entry.runtime.is_empty() && runtime_availability(&entry.view) != entry.runtime {
            state.entries.remove(key);
            return None;
        }
        entry.used = clock;
        Some(Arc::clone(&entry.view))
    }

    /// How many views are kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether no view is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every kept view: what to call when something a view is built from
    /// changed outside its key (a user's permissions, the flags).
    pub fn clear(&self) {
        self.lock().entries.clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<K>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The availability of every runtime tool of the view's registry, in order.
fn runtime_availability(view: &View<'static>) -> Vec<bool> {
    view.registry()
        .iter()
        .filter(|tool| tool.is_runtime())
        .map(crate::registry::RegisteredTool::is_available)
        .collect()
}

impl<K> fmt::Debug for ViewCache<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let len = self
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entries
            .len();
        f.debug_struct("ViewCache")
            .field("capacity", &self.capacity)
            .field("len", &len)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use serde_json::{Map, Value, json};

    use super::*;
    use crate::approval::{ApprovalKey, Approvals, MemoryApprovalStore};
    use crate::context::Context;
    use crate::registry::Registry;
    use crate::response::Response;
    use crate::runtime::{Forward, RuntimeTool};
    use crate::tool::CallFuture;

    /// A runtime tool that answers with its arguments, offered while `on` says so.
    struct Echo(Arc<AtomicBool>);

    impl Forward for Echo {
        fn forward<'a>(&'a self, arguments: Map<String, Value>, _: &'a Context) -> CallFuture<'a> {
            Box::pin(std::future::ready(Response::Result(Value::Object(
                arguments,
            ))))
        }

        fn available(&self) -> bool {
            self.0.load(Ordering::Relaxed)
        }
    }

    fn tool(name: &str, group: &str, on: &Arc<AtomicBool>) -> RuntimeTool {
        let schema = json!({"type": "object", "properties": {}});
        RuntimeTool::builder(name, "Get something.", schema)
            .group(group)
            .build(Echo(Arc::clone(on)))
            .unwrap()
    }

    struct World {
        registry: &'static Registry,
        approvals: &'static Approvals,
        on: Arc<AtomicBool>,
    }

    fn world() -> World {
        let on = Arc::new(AtomicBool::new(true));
        let registry = Registry::with_runtime(
            [],
            [
                tool("get_notes", "read", &on),
                tool("set_notes", "write", &on),
            ],
        )
        .unwrap();
        let key = ApprovalKey::new(*b"the view cache tests' approvals!").unwrap();
        World {
            registry: Box::leak(Box::new(registry)),
            approvals: Box::leak(Box::new(Approvals::new(key, MemoryApprovalStore::new()))),
            on,
        }
    }

    /// What an OAuth hook keys by: the token's scope and its subject.
    type Key = (&'static str, &'static str);

    /// The view of a token with `scope` (`read`: the `read` group; `write`:
    /// everything) whose approvals bind to `subject`, from the cache.
    fn view(world: &World, views: &ViewCache<Key>, key: Key) -> Arc<View<'static>> {
        let (scope, subject) = key;
        views
            .get_or_build(key, || {
                let view = world.registry.view();
                let view = if scope == "read" {
                    view.allow(["@read"])
                } else {
                    view
                };
                view.approvals(world.approvals, local(subject)).build()
            })
            .unwrap()
    }

    fn local(subject: &str) -> crate::principal::Principal {
        crate::principal::Principal::local(subject).unwrap()
    }

    fn names(view: &View<'static>) -> Vec<&'static str> {
        view.iter().map(|tool| tool.name).collect()
    }

    #[test]
    fn a_caller_never_gets_a_view_built_for_another_key() {
        let world = world();
        let views = ViewCache::new(16);
        let alice_reads = view(&world, &views, ("read", "alice"));
        // The same key: the same view, not built again.
        assert!(Arc::ptr_eq(
            &alice_reads,
            &view(&world, &views, ("read", "alice"))
        ));
        // Only the scope differs: another view, with the other scope's tools.
        let alice_writes = view(&world, &views, ("write", "alice"));
        assert!(!Arc::ptr_eq(&alice_reads, &alice_writes));
        assert_eq!(names(&alice_reads), ["get_notes"]);
        assert_eq!(names(&alice_writes), ["get_notes", "set_notes"]);
        // Only the principal differs: another view, bound to the other user.
        let bob_reads = view(&world, &views, ("read", "bob"));
        assert!(!Arc::ptr_eq(&alice_reads, &bob_reads));
        assert_eq!(bob_reads.principal(), Some(&local("bob")));
        assert_eq!(alice_reads.principal(), Some(&local("alice")));
        assert_eq!(names(&bob_reads), ["get_notes"]);
        // And asked again, each key still has its own.
        assert_eq!(
            view(&world, &views, ("read", "alice")).principal(),
            Some(&local("alice"))
        );
        assert_eq!(views.len(), 3);
    }

    #[test]
    fn the_cache_keeps_at_most_its_capacity_dropping_the_least_recently_used() {
        let world = world();
        let views = ViewCache::new(2);
        let first = view(&world, &views, ("read", "a"));
        let second = view(&world, &views, ("read", "b"));
        // `a` used again: `b` is now the oldest.
        assert!(Arc::ptr_eq(&first, &view(&world, &views, ("read", "a"))));
        let _third = view(&world, &views, ("read", "c"));
        assert_eq!(views.len(), 2);
        assert!(Arc::ptr_eq(&first, &view(&world, &views, ("read", "a"))));
        let rebuilt = view(&world, &views, ("read", "b"));
        assert!(!Arc::ptr_eq(&second, &rebuilt));
        assert_eq!(views.len(), 2);
        // Capacity 0 keeps nothing.
        let none = ViewCache::new(0);
        let once = view(&world, &none, ("read", "a"));
        assert!(!Arc::ptr_eq(&once, &view(&world, &none, ("read", "a"))));
        assert!(none.is_empty());
    }

    #[test]
    fn a_view_is_rebuilt_when_a_runtime_tool_comes_or_goes() {
        let world = world();
        let views = ViewCache::new(4);
        assert_eq!(
            names(&view(&world, &views, ("write", "a"))),
            ["get_notes", "set_notes"]
        );
        world.on.store(false, Ordering::Relaxed);
        assert!(names(&view(&world, &views, ("write", "a"))).is_empty());
        world.on.store(true, Ordering::Relaxed);
        assert_eq!(
            names(&view(&world, &views, ("write", "a"))),
            ["get_notes", "set_notes"]
        );
    }
}
