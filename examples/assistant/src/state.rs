//! The assistant's in-memory stores, shared by every tool through the context.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::tools::entities::EntityRecord;
use crate::tools::gmail::{Message, seed_inbox};
use crate::tools::memories::{MemoryRecord, Relation};
use crate::tools::reminders::ReminderRecord;
use crate::tools::schedules::ScheduleRecord;
use crate::tools::tasks::TaskRecord;

/// The fixed "current time" of a new [`AssistantState`]: the demo has no clock, so
/// every run and every test sees the same results.
pub const DEMO_NOW: &str = "2025-01-06T09:00:00Z";

/// Everything the assistant remembers: tasks, reminders, schedules, memories and
/// their links, entities, a fake Gmail inbox, the active project and the user's
/// standing instructions.
///
/// Cheap to clone (one `Arc`); every clone sees the same data. Tools take it with
/// `#[ctx] state: State<AssistantState>`, so callers put one in the
/// [`toolkit::Context`]:
///
/// ```
/// use example_assistant::AssistantState;
///
/// let state = AssistantState::new();
/// let ctx = toolkit::Context::new().with(state.clone());
/// # let _ = ctx;
/// ```
///
/// All stores sit behind one `std::sync::Mutex`. A tool that panics is caught by
/// toolkit, but poisons the mutex if it held it; the stores recover from that
/// (taking the guard out of the `PoisonError`) because no tool can leave them
/// half-written: every tool checks all of its input before its first write,
/// and its writes cannot fail. Work under the lock is proportional to the data
/// it touches: names are found through indexes, and queries are read before
/// the lock is taken. The guide's `examples` chapter, "Shared state in tools", has the pattern.
#[derive(Clone, Debug, Default)]
pub struct AssistantState {
    inner: Arc<Mutex<Stores>>,
}

impl AssistantState {
    /// Empty stores, an inbox seeded with a few messages, no project, no
    /// instructions, and the clock fixed at [`DEMO_NOW`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The same state with the clock fixed at `now` (an ISO 8601 timestamp).
    #[must_use]
    pub fn with_now(self, now: impl Into<String>) -> Self {
        self.lock().now = now.into();
        self
    }

    /// The active project, if one is set.
    #[must_use]
    pub fn project(&self) -> Option<String> {
        self.lock().project.clone()
    }

    /// The user's standing instructions (empty when none).
    #[must_use]
    pub fn instructions(&self) -> String {
        self.lock().instructions.clone()
    }

    /// Locks the stores, whether or not an earlier call panicked while holding
    /// them.
    ///
    /// This is the pattern for state shared between tool calls (guide, `examples`, "Shared
    /// state in tools"). toolkit catches a tool's panic, so the process keeps
    /// serving; a `std::sync::Mutex` held during that panic is *poisoned*, and
    /// `lock().unwrap()` would then fail every later call. Taking the guard out
    /// of the `PoisonError` is sound here because no tool can leave the stores
    /// half-written:
    ///
    /// - every tool checks all of its input before its first write, and
    ///   returns its errors from that phase, so an error changes nothing;
    /// - the writes themselves cannot fail or panic (pushes, index inserts,
    ///   saturating counters), and are ordered so that an interrupted sequence
    ///   only leaves data no read shows (an entity with no live mention is
    ///   hidden);
    /// - no tool holds the lock across an `.await` or while calling other code.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Stores> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A text dump of every store, deleted rows included: equal snapshots mean
    /// equal state. For tests that check a failed call changed nothing.
    #[doc(hidden)]
    #[must_use]
    pub fn snapshot(&self) -> String {
        format!("{:?}", *self.lock())
    }
}

/// The stores behind the lock.
#[derive(Debug)]
pub(crate) struct Stores {
    pub(crate) now: String,
    pub(crate) tasks: Table<TaskRecord>,
    pub(crate) reminders: Table<ReminderRecord>,
    pub(crate) schedules: Table<ScheduleRecord>,
    pub(crate) memories: Table<MemoryRecord>,
    /// Links between memories by `(from, to)`: one relation per pair, and a
    /// memory's links are one range, not a scan of every link.
    pub(crate) links: BTreeMap<(u32, u32), Relation>,
    pub(crate) entities: Table<EntityRecord>,
    /// Entity ids by name key ([`crate::tools::entities::name_key`]), so naming an
    /// entity is a lookup, not a scan of every entity.
    pub(crate) entity_index: BTreeMap<String, u32>,
    pub(crate) inbox: Vec<Message>,
    pub(crate) project: Option<String>,
    pub(crate) instructions: String,
}

impl Default for Stores {
    fn default() -> Self {
        Stores {
            now: DEMO_NOW.to_owned(),
            tasks: Table::default(),
            reminders: Table::default(),
            schedules: Table::default(),
            memories: Table::default(),
            links: BTreeMap::new(),
            entities: Table::default(),
            entity_index: BTreeMap::new(),
            inbox: seed_inbox(),
            project: None,
            instructions: String::new(),
        }
    }
}

/// Records with counter ids (1, 2, 3, ...) that are never reused, and soft
/// deletion: a deleted row stays stored with its flag set, and every read skips
/// it. The flag lives here, beside the record, never in a type the model sees.
#[derive(Debug)]
pub(crate) struct Table<R> {
    rows: Vec<Row<R>>,
}

#[derive(Debug)]
struct Row<R> {
    id: u32,
    is_deleted: bool,
    record: R,
}

impl<R> Default for Table<R> {
    fn default() -> Self {
        Table { rows: Vec::new() }
    }
}

impl<R> Table<R> {
    /// The id the next inserted record will get.
    pub(crate) fn next_id(&self) -> u32 {
        u32::try_from(self.rows.len()).map_or(u32::MAX, |count| count.saturating_add(1))
    }

    /// Stores `record` and returns its id.
    pub(crate) fn insert(&mut self, record: R) -> u32 {
        let id = self.next_id();
        self.rows.push(Row {
            id,
            is_deleted: false,
            record,
        });
        id
    }

    fn index(id: u32) -> Option<usize> {
        usize::try_from(id.checked_sub(1)?).ok()
    }

    /// The record with this id, unless it doesn't exist or is deleted.
    pub(crate) fn get(&self, id: u32) -> Option<&R> {
        self.rows
            .get(Self::index(id)?)
            .filter(|row| !row.is_deleted)
            .map(|row| &row.record)
    }

    /// The record with this id for changing, unless it doesn't exist or is deleted.
    pub(crate) fn get_mut(&mut self, id: u32) -> Option<&mut R> {
        self.rows
            .get_mut(Self::index(id)?)
            .filter(|row| !row.is_deleted)
            .map(|row| &mut row.record)
    }

    /// The record with this id, deleted or not: for what a delete changes
    /// elsewhere, never for what the model sees.
    pub(crate) fn stored(&self, id: u32) -> Option<&R> {
        self.rows.get(Self::index(id)?).map(|row| &row.record)
    }

    /// Whether a live record has this id.
    pub(crate) fn contains(&self, id: u32) -> bool {
        self.get(id).is_some()
    }

    /// Live records with their ids, oldest first.
    pub(crate) fn live(&self) -> impl DoubleEndedIterator<Item = (u32, &R)> {
        self.rows
            .iter()
            .filter(|row| !row.is_deleted)
            .map(|row| (row.id, &row.record))
    }

    /// Live records with their ids, newest first.
    pub(crate) fn newest_first(&self) -> impl Iterator<Item = (u32, &R)> {
        self.live().rev()
    }

    /// Soft-deletes every id in `ids`, or none of them: the first id that is
    /// unknown (or already deleted) is returned as the error. Returns the deleted
    /// ids in the order given, without repeats.
    pub(crate) fn soft_delete(&mut self, ids: &[u32]) -> Result<Vec<u32>, u32> {
        if let Some(&missing) = ids.iter().find(|&&id| !self.contains(id)) {
            return Err(missing);
        }
        let mut deleted = Vec::with_capacity(ids.len());
        for &id in ids {
            if let Some(row) = Self::index(id).and_then(|index| self.rows.get_mut(index))
                && !row.is_deleted
            {
                row.is_deleted = true;
                deleted.push(id);
            }
        }
        Ok(deleted)
    }
}

#[cfg(test)]
mod tests {
    use super::{AssistantState, Table};
    use futures_executor::block_on;
    use toolkit::Context;

    #[test]
    fn a_panic_while_holding_the_stores_does_not_stop_later_calls() {
        let state = AssistantState::new();
        let ctx = Context::new().with(state.clone());
        let registry = toolkit::registry();
        block_on(registry.call("create_tasks", r#"{"tasks": [{"title": "Kept"}]}"#, &ctx));
        let poisoner = state.clone();
        let outcome = std::thread::spawn(move || {
            let _stores = poisoner.lock();
            panic!("a bug while holding the stores");
        })
        .join();
        assert!(outcome.is_err());
        assert!(state.inner.is_poisoned());
        let response = block_on(registry.call("get_tasks", "{}", &ctx));
        assert_eq!(
            response.to_json(),
            serde_json::json!({"result": [{"id": 1, "title": "Kept", "priority": "normal", "done": false}]})
        );
        let response =
            block_on(registry.call("create_tasks", r#"{"tasks": [{"title": "New"}]}"#, &ctx));
        assert!(response.is_success());
    }

    #[test]
    fn soft_deleted_rows_keep_their_ids_and_vanish_from_reads() {
        let mut table = Table::default();
        assert_eq!(table.insert("a"), 1);
        assert_eq!(table.insert("b"), 2);
        assert_eq!(table.soft_delete(&[1, 1]), Ok(vec![1]));
        assert_eq!(table.get(1), None);
        assert_eq!(table.soft_delete(&[2, 1]), Err(1));
        assert_eq!(table.get(2), Some(&"b"));
        assert_eq!(table.insert("c"), 3);
        assert_eq!(table.live().collect::<Vec<_>>(), [(2, &"b"), (3, &"c")]);
        assert_eq!(table.get(0), None);
    }
}
