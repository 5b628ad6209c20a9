//! `notifications/cancelled` over stateless streamable HTTP.
//!
//! Without sessions, a client's cancellation arrives as a POST of its own, which
//! rmcp's stateless transport accepts (`202`) and drops: it knows no call of that
//! request id. The call went on to its end and its answer (the JSON response or
//! the event stream) stayed open as long. [`McpHttp`](super::McpHttp) therefore
//! keeps the calls running in this process by caller and request id, and a
//! cancellation from the same caller (the same bearer token; the same
//! `Authorization` header where no guard read one) ends its call: the tool's
//! future is dropped and the call answered "cancelled", which closes its stream.
//! A cancellation that reaches another process of a fleet finds nothing there.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;

/// `(caller, request id as JSON text)`.
type Key = (Arc<str>, String);

/// The calls running in this process that a cancellation can reach.
#[derive(Default)]
pub(crate) struct InFlight {
    calls: Mutex<HashMap<Key, Arc<Notify>>>,
}

impl InFlight {
    /// Cancels `caller`'s call `id` (a JSON-RPC id as JSON text), if it runs here.
    pub(crate) fn cancel(&self, caller: &str, id: &str) {
        let calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(call) = calls.get(&(Arc::from(caller), id.to_owned())) {
            // A stored permit: the call sees it even if not waiting yet.
            call.notify_one();
        }
    }
}

/// What a request carries (in its `http::request::Parts` extensions) for its
/// call to be cancellable: the process's [`InFlight`] and who is calling.
#[derive(Clone)]
pub(crate) struct Cancellable {
    pub(crate) in_flight: Arc<InFlight>,
    pub(crate) caller: Arc<str>,
}

impl Cancellable {
    /// Registers the call `id` until the returned registration is dropped.
    pub(crate) fn register(&self, id: &impl serde::Serialize) -> Registration {
        let key = (
            Arc::clone(&self.caller),
            serde_json::to_string(id).unwrap_or_default(),
        );
        let notify = Arc::new(Notify::new());
        self.in_flight
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.clone(), Arc::clone(&notify));
        Registration {
            in_flight: Arc::clone(&self.in_flight),
            key,
            notify,
        }
    }
}

/// A call that a cancellation can reach, while it lives.
pub(crate) struct Registration {
    in_flight: Arc<InFlight>,
    key: Key,
    notify: Arc<Notify>,
}

impl Registration {
    /// Completes when the caller cancels the call.
    pub(crate) async fn cancelled(&self) {
        self.notify.notified().await;
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut calls = self
            .in_flight
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // A later call that reused the id keeps its own entry.
        if calls
            .get(&self.key)
            .is_some_and(|call| Arc::ptr_eq(call, &self.notify))
        {
            calls.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_the_same_caller_cancels_a_call_and_only_while_it_runs() {
        let in_flight = Arc::new(InFlight::default());
        let caller = |who: &str| Cancellable {
            in_flight: Arc::clone(&in_flight),
            caller: who.into(),
        };
        let call = caller("Bearer ada").register(&7);
        let cancelled = || async {
            tokio::time::timeout(std::time::Duration::from_millis(50), call.cancelled())
                .await
                .is_ok()
        };
        in_flight.cancel("Bearer eve", "7");
        in_flight.cancel("Bearer ada", "\"7\"");
        in_flight.cancel("Bearer ada", "8");
        assert!(!cancelled().await);
        in_flight.cancel("Bearer ada", "7");
        assert!(cancelled().await);
        drop(call);
        assert!(in_flight.calls.lock().unwrap().is_empty());
    }
}
