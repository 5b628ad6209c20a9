//! A task's questions to its client and their answers, kept in the store beside
//! the task ([`super::task`]) or beside an `approve` call whose approved run
//! asks its client (the MCP task of that call), so any process lists what a task waits for and
//! takes its answers, and a run taken over on another process finds the answers
//! given to the attempt before it.
//!
//! Two kinds of records per task, each written once (a claim completed with
//! the value as its outcome), under the task's keys:
//! - `…:asked:N` (N = 0, 1, ...): the N-th request the task's tool made, its key
//!   and the request as the protocol sends it;
//! - `…:answer:KEY`: the client's answer to the request `KEY`; the first answer
//!   stays.

use serde_json::Value;

use super::task::{TaskRequest, task_key};
use super::{
    ApprovalError, Approvals, CLOCK_SKEW_SECONDS, Claim, PendingApproval, RunOutcome, TaskRecord,
};
use crate::principal::Principal;

/// The most requests one task makes, over all its rounds.
pub const MAX_TASK_REQUESTS: usize = 64;

/// The most bytes of one answer (as JSON text).
pub const MAX_TASK_ANSWER_BYTES: usize = 64 * 1024;

/// Why an answer was not kept ([`Approvals::answer_task`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskAnswerError {
    /// The answer is longer than [`MAX_TASK_ANSWER_BYTES`].
    #[error(
        "the answer to `{0}` is {1} bytes; a task keeps answers of at most {MAX_TASK_ANSWER_BYTES}"
    )]
    TooLarge(String, usize),
    /// The store failed.
    #[error(transparent)]
    Approval(#[from] ApprovalError),
}

/// Whose questions: a task's, or an `approve` call's (whose run asks its
/// client once approved), named by its principal and id, kept until `keep`
/// (Unix seconds, store time).
#[derive(Clone, Copy)]
pub(crate) struct Asker<'a> {
    principal: &'a Principal,
    id: &'a str,
    keep: u64,
}

impl<'a> Asker<'a> {
    /// The task `record`'s questions, kept as long as the task.
    pub(crate) fn task(record: &'a TaskRecord) -> Self {
        Asker {
            principal: &record.principal,
            id: &record.id,
            keep: record.expires_at.saturating_add(CLOCK_SKEW_SECONDS),
        }
    }
}

impl Approvals {
    /// The questions of the approved run of `pending`, kept as long as any
    /// approval of it could still run.
    pub(crate) fn call_asker<'a>(&self, pending: &'a PendingApproval) -> Asker<'a> {
        Asker {
            principal: &pending.principal,
            id: &pending.call_id,
            keep: self
                .resumable_until(pending.expires_at)
                .saturating_add(CLOCK_SKEW_SECONDS),
        }
    }

    /// Records that the task `record`'s tool asks its client `request` under
    /// `key`, unless it asked it already (an attempt before this one did). Any
    /// process then lists it ([`Approvals::task_requests`]).
    pub async fn ask_task(
        &self,
        record: &TaskRecord,
        key: &str,
        request: &Value,
    ) -> Result<(), ApprovalError> {
        self.ask_of(Asker::task(record), key, request).await
    }

    /// Records that the approved run of `pending` (an `approve` call kept as
    /// an MCP task) asks its client `request` under `key`, as
    /// [`Approvals::ask_task`] does for a task; listed by
    /// [`Approvals::task_requests`] with the call's id.
    pub async fn ask_call(
        &self,
        pending: &PendingApproval,
        key: &str,
        request: &Value,
    ) -> Result<(), ApprovalError> {
        self.ask_of(self.call_asker(pending), key, request).await
    }

    pub(crate) async fn ask_of(
        &self,
        whose: Asker<'_>,
        key: &str,
        request: &Value,
    ) -> Result<(), ApprovalError> {
        let asked = self.asked(whose.principal, whose.id).await?;
        if asked.iter().any(|asked| asked.key == key) {
            return Ok(());
        }
        let value = serde_json::json!({"key": key, "request": request});
        for n in asked.len()..MAX_TASK_REQUESTS {
            let slot = task_key(whose.principal, whose.id, &format!("asked:{n}"));
            if self.write_once(whose.keep, &slot, &value).await? {
                return Ok(());
            }
        }
        Err(ApprovalError::Store(super::StoreError::new(format!(
            "a task asks its client at most {MAX_TASK_REQUESTS} requests"
        ))))
    }

    /// The requests the task `id` of `principal` (or its `approve` call `id`,
    /// once approved) made of its client, in the order made, each with its
    /// answer if it came.
    pub async fn task_requests(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<Vec<TaskRequest>, ApprovalError> {
        let mut asked = self.asked(principal, id).await?;
        for request in &mut asked {
            request.answer = self
                .read_once(principal, id, &answer_part(&request.key))
                .await?;
        }
        Ok(asked)
    }

    /// Keeps the client's `answer` to the request `key` of the task `record`,
    /// unless it has one already. `Ok(false)`: the task made no such request,
    /// or it was answered before (the first answer stays).
    pub async fn answer_task(
        &self,
        record: &TaskRecord,
        key: &str,
        answer: &Value,
    ) -> Result<bool, TaskAnswerError> {
        self.answer_of(Asker::task(record), key, answer).await
    }

    /// Keeps the client's `answer` to the request `key` of the approved run
    /// of `pending`, as [`Approvals::answer_task`] does for a task.
    pub async fn answer_call(
        &self,
        pending: &PendingApproval,
        key: &str,
        answer: &Value,
    ) -> Result<bool, TaskAnswerError> {
        self.answer_of(self.call_asker(pending), key, answer).await
    }

    pub(crate) async fn answer_of(
        &self,
        whose: Asker<'_>,
        key: &str,
        answer: &Value,
    ) -> Result<bool, TaskAnswerError> {
        let bytes = answer.to_string().len();
        if bytes > MAX_TASK_ANSWER_BYTES {
            return Err(TaskAnswerError::TooLarge(key.to_owned(), bytes));
        }
        let asked = self.asked(whose.principal, whose.id).await?;
        if !asked.iter().any(|asked| asked.key == key) {
            return Ok(false);
        }
        let slot = task_key(whose.principal, whose.id, &answer_part(key));
        Ok(self.write_once(whose.keep, &slot, answer).await?)
    }

    /// Keeps the client's `answers` (by request key) to the requests of
    /// `whose`: each one that answers a request made and not answered before;
    /// the rest are ignored. The requests are read once, so a client sending
    /// many keys costs one read of at most [`MAX_TASK_REQUESTS`] records and
    /// at most that many writes. How many were kept.
    ///
    /// # Errors
    /// An answer to a request made that is larger than
    /// [`MAX_TASK_ANSWER_BYTES`] ([`TaskAnswerError::TooLarge`], nothing after it
    /// kept), or the store's.
    #[cfg(any(feature = "mcp", test))]
    pub(crate) async fn answer_all(
        &self,
        whose: Asker<'_>,
        answers: &[(&str, &Value)],
    ) -> Result<usize, TaskAnswerError> {
        let asked = self.asked(whose.principal, whose.id).await?;
        let mut kept = 0;
        for &(key, answer) in answers {
            if !asked.iter().any(|request| request.key == key) {
                continue;
            }
            let bytes = answer.to_string().len();
            if bytes > MAX_TASK_ANSWER_BYTES {
                return Err(TaskAnswerError::TooLarge(key.to_owned(), bytes));
            }
            let slot = task_key(whose.principal, whose.id, &answer_part(key));
            if self.write_once(whose.keep, &slot, answer).await? {
                kept += 1;
            }
        }
        Ok(kept)
    }

    /// The client's answer to the request `key` of the task `record`, if it
    /// came.
    pub async fn task_answer(
        &self,
        record: &TaskRecord,
        key: &str,
    ) -> Result<Option<Value>, ApprovalError> {
        self.answer_to(Asker::task(record), key).await
    }

    /// The client's answer to the request `key` of `whose`, if it came.
    pub(crate) async fn answer_to(
        &self,
        whose: Asker<'_>,
        key: &str,
    ) -> Result<Option<Value>, ApprovalError> {
        self.read_once(whose.principal, whose.id, &answer_part(key))
            .await
    }

    /// Keeps the questions a call asked and their answers, gathered before its
    /// task was made (`#[tool(asks_first)]`), as the task `record`'s: written
    /// before the task's request, which makes the task exist, so a task is
    /// never found, nor run, without them.
    pub(super) async fn keep_gathered(
        &self,
        record: &TaskRecord,
        gathered: &[TaskRequest],
    ) -> Result<(), ApprovalError> {
        let whose = Asker::task(record);
        if gathered.len() > MAX_TASK_REQUESTS {
            return Err(ApprovalError::Store(super::StoreError::new(format!(
                "a task asks its client at most {MAX_TASK_REQUESTS} requests"
            ))));
        }
        for (
            n,
            TaskRequest {
                key,
                request,
                answer,
            },
        ) in gathered.iter().enumerate()
        {
            let Some(answer) = answer else {
                continue;
            };
            let slot = task_key(whose.principal, whose.id, &format!("asked:{n}"));
            let value = serde_json::json!({"key": key, "request": request});
            let answer_slot = task_key(whose.principal, whose.id, &answer_part(key));
            if !self.write_once(whose.keep, &slot, &value).await?
                || !self.write_once(whose.keep, &answer_slot, answer).await?
            {
                return Err(ApprovalError::Store(super::StoreError::new(
                    "the store already holds the questions of a task with a new random id",
                )));
            }
        }
        Ok(())
    }

    /// The requests recorded for the task, in order, without answers.
    async fn asked(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<Vec<TaskRequest>, ApprovalError> {
        let mut asked: Vec<TaskRequest> = Vec::new();
        for n in 0..MAX_TASK_REQUESTS {
            let Some(value) = self.read_once(principal, id, &format!("asked:{n}")).await? else {
                break;
            };
            if let Ok(request) = serde_json::from_value::<TaskRequest>(value)
                && !asked.iter().any(|asked| asked.key == request.key)
            {
                asked.push(request);
            }
        }
        Ok(asked)
    }

    /// Writes `value` under `key`, kept until `keep`, unless something is
    /// there: `Ok(false)` if it was.
    async fn write_once(&self, keep: u64, key: &str, value: &Value) -> Result<bool, ApprovalError> {
        let now = self.store_now().await?;
        let Claim::Won { attempt } = self
            .store
            .claim(key, now, keep)
            .await
            .map_err(ApprovalError::Store)?
        else {
            return Ok(false);
        };
        let outcome = RunOutcome::Ran {
            result: Some(value.clone()),
            bytes: value.to_string().len(),
        };
        self.store
            .complete(key, attempt, &outcome)
            .await
            .map_err(ApprovalError::Store)
    }

    /// The value written once under the task's `part`, if it is whole.
    async fn read_once(
        &self,
        principal: &Principal,
        id: &str,
        part: &str,
    ) -> Result<Option<Value>, ApprovalError> {
        let run = self
            .store
            .run(&task_key(principal, id, part))
            .await
            .map_err(ApprovalError::Store)?;
        Ok(match run.and_then(|run| run.outcome) {
            Some(RunOutcome::Ran {
                result: Some(value),
                ..
            }) => Some(value),
            _ => None,
        })
    }
}

/// The part of a task's keys its answer to `key` is under.
fn answer_part(key: &str) -> String {
    format!("answer:{key}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{MAX_TASK_ANSWER_BYTES, TaskAnswerError, TaskRequest};
    use crate::approval::{ApprovalKey, Approvals, MemoryApprovalStore};
    use crate::principal::Principal;

    /// A question is kept once however often its tool asks it (a takeover asks
    /// again), listed with its answer once given; the first answer stays; an
    /// answer to no question, or too long, is not kept; another principal sees
    /// none of it.
    #[test]
    fn a_tasks_questions_and_answers_are_kept_once() {
        futures_executor::block_on(async {
            let approvals = Approvals::new(
                ApprovalKey::new(*b"an application secret of 32 bytes").unwrap(),
                MemoryApprovalStore::new(),
            );
            let owner = Principal::local("owner").unwrap();
            let record = approvals
                .create_task(&owner, None, "confirm_delete", r#"{"filename": "a"}"#)
                .await
                .unwrap();
            let question = json!({"method": "roots/list"});
            for _ in 0..2 {
                approvals
                    .ask_task(&record, "roots", &question)
                    .await
                    .unwrap();
            }
            approvals
                .ask_task(&record, "other", &question)
                .await
                .unwrap();
            assert!(
                !approvals
                    .answer_task(&record, "never", &json!({}))
                    .await
                    .unwrap()
            );
            assert!(
                approvals
                    .answer_task(&record, "roots", &json!({"roots": []}))
                    .await
                    .unwrap()
            );
            assert!(
                !approvals
                    .answer_task(&record, "roots", &json!({"roots": [1]}))
                    .await
                    .unwrap()
            );
            let long = json!("x".repeat(MAX_TASK_ANSWER_BYTES));
            assert!(matches!(
                approvals.answer_task(&record, "other", &long).await,
                Err(TaskAnswerError::TooLarge(key, _)) if key == "other"
            ));
            let requests = approvals.task_requests(&owner, &record.id).await.unwrap();
            let seen: Vec<(String, Option<serde_json::Value>)> = requests
                .into_iter()
                .map(
                    |TaskRequest {
                         key,
                         answer,
                         request,
                     }| {
                        assert_eq!(request, question);
                        (key, answer)
                    },
                )
                .collect();
            assert_eq!(
                seen,
                [
                    ("roots".to_owned(), Some(json!({"roots": []}))),
                    ("other".to_owned(), None),
                ]
            );
            // Many answers at once: only those to a request made and not
            // answered are kept; a long answer to no request is ignored, one
            // to a request refused.
            let asker = super::Asker::task(&record);
            let noise: Vec<(String, serde_json::Value)> = (0..1000)
                .map(|n| {
                    (
                        format!("noise{n}"),
                        json!("x".repeat(MAX_TASK_ANSWER_BYTES)),
                    )
                })
                .collect();
            let mut answers: Vec<(&str, &serde_json::Value)> = noise
                .iter()
                .map(|(key, answer)| (key.as_str(), answer))
                .collect();
            let roots_again = json!({"roots": [2]});
            answers.push(("roots", &roots_again));
            assert_eq!(approvals.answer_all(asker, &answers).await.unwrap(), 0);
            answers.push(("other", &long));
            assert!(matches!(
                approvals.answer_all(asker, &answers).await,
                Err(TaskAnswerError::TooLarge(key, _)) if key == "other"
            ));
            let stranger = Principal::local("stranger").unwrap();
            assert!(
                approvals
                    .task_requests(&stranger, &record.id)
                    .await
                    .unwrap()
                    .is_empty()
            );
        });
    }
}
