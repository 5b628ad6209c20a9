//! What can go wrong in a call, and in building the registry.

use std::fmt;

use serde::Serialize;

use crate::declaration::Location;

/// Why a call produced no result. Every variant is written for the model to read
/// and act on: it serializes as `{"kind": "...", "message": "...", ...fields}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolError {
    /// No tool of this name (or alias) is available.
    UnknownTool {
        /// The name the caller used.
        name: String,
        /// The closest available name or alias, if one is close.
        #[serde(skip_serializing_if = "Option::is_none")]
        suggestion: Option<String>,
    },
    /// The arguments are not valid JSON.
    MalformedJson {
        /// What the JSON parser reported.
        message: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
    },
    /// The arguments are JSON but don't fit the tool's parameters: every problem
    /// found, each with its path (at most 20; a last entry at `.` counts the rest).
    ///
    /// Serializes as `{"kind": "invalid_arguments", "problems": [{"path":
    /// "tasks[2].due", "message": "expected an integer, got the string \"soon\""},
    /// ...], "message": "<all of them in one line>"}`. Build one with
    /// [`ToolError::invalid_arguments`].
    InvalidArguments {
        /// What is wrong, and where; never empty.
        problems: Vec<Problem>,
    },
    /// The arguments name a field the tool doesn't have, and nothing else is
    /// wrong with them (an unknown field beside other problems is one of the
    /// [`ToolError::InvalidArguments`] problems).
    UnknownField {
        /// Where the field is, like `tasks[0].dew`.
        path: String,
        /// The unknown field.
        field: String,
        /// The fields allowed there.
        expected: Vec<String>,
    },
    /// A `#[ctx]` value the tool needs was not put in the context by the caller.
    MissingContext {
        /// The Rust type that was missing.
        type_name: String,
    },
    /// The tool ran and reported an error of its own.
    Failed {
        /// The tool's error message.
        message: String,
    },
    /// The tool panicked; the panic was caught and the process keeps serving.
    ///
    /// The model sees [`PANIC_MESSAGE`](crate::panics::PANIC_MESSAGE) and the id; the panic
    /// text goes to the application ([`on_panic`](crate::panics::on_panic) and a `tracing`
    /// event), unless [`expose_panic_messages`](crate::panics::expose_panic_messages) is on.
    Panicked {
        /// What the model is told.
        message: String,
        /// Matches the application's [`PanicReport`](crate::panics::PanicReport).
        id: String,
    },
    /// The tool's result could not be serialized to JSON.
    InvalidOutput {
        /// What the serializer reported.
        message: String,
    },
    /// An `approve` tool was called where no approval can be asked for (the
    /// registry, or a view built without approvals); it did not run.
    ApprovalRequired {
        /// The tool's name.
        tool: String,
    },
    /// An approval was presented and refused (forged, altered, expired, already
    /// used, for another principal or tool); nothing ran.
    ApprovalRejected {
        /// Why, in words.
        reason: String,
    },
    /// A human denied the call; nothing ran.
    Denied {
        /// The human's message for the model.
        message: String,
    },
    /// An approved call presented again after its run ended with a result (run
    /// by another request, or by a runner on any replica): it did not run again,
    /// and this is what it ran to.
    AlreadyRan {
        /// What the run came to, in words (`with the result {"id":7}`).
        outcome: String,
    },
    /// The caller made as many calls of the tool as its quota allows for now;
    /// nothing ran and nothing was counted. Serializes with the limit as written
    /// (`"limit": "30/min"`) and the wait in milliseconds.
    RateLimited {
        /// The tool's name.
        tool: String,
        /// The limit the call met.
        limit: crate::quota::Quota,
        /// How long until a call would be admitted, in milliseconds (rounded up).
        retry_after_ms: u64,
    },
    /// The tool asked its client a question (`toolkit::mcp::Ask`, feature
    /// `mcp`) whose answer this run does not have: the server asks it (an
    /// input-required round) and runs the call again with the answer. An
    /// approved call that stops here is not tried again by a runner: it waits
    /// for its requester's next round.
    AwaitingInput {
        /// The tool's key for the question.
        key: String,
    },
    /// The caller already has as many calls waiting for approval as it may; this
    /// one was not asked for.
    TooManyPending {
        /// The tool called.
        tool: String,
        /// How many may wait.
        limit: u32,
        /// Whether the limit is on this tool's calls (`true`) or on all of the
        /// caller's (`false`).
        of_tool: bool,
    },
}

impl ToolError {
    /// The tool's own error: use it in tools that return `Result<T, ToolError>`.
    ///
    /// ```
    /// let error = toolkit::ToolError::failed("no task with id 7");
    /// assert_eq!(error.to_string(), "no task with id 7");
    /// ```
    pub fn failed(message: impl fmt::Display) -> Self {
        ToolError::Failed {
            message: message.to_string(),
        }
    }

    /// Invalid arguments with one problem at `path` (`tasks[2].due`; `.` for the
    /// root).
    ///
    /// ```
    /// let error = toolkit::ToolError::invalid_arguments("limit", "at most 100 pages");
    /// assert_eq!(error.to_string(), "invalid arguments at `limit`: at most 100 pages");
    /// ```
    pub fn invalid_arguments(path: impl Into<String>, message: impl Into<String>) -> Self {
        ToolError::InvalidArguments {
            problems: vec![Problem {
                path: path.into(),
                message: message.into(),
            }],
        }
    }

    /// A [`ToolError::Failed`] whose message is empty gets [`EMPTY_FAILURE`]: the
    /// model always reads something.
    #[must_use]
    pub(crate) fn with_nonempty_message(self) -> Self {
        match self {
            ToolError::Failed { message } if message.trim().is_empty() => ToolError::Failed {
                message: EMPTY_FAILURE.to_owned(),
            },
            other => other,
        }
    }

    /// An unknown tool `name`, suggesting the closest of `available` (names and
    /// aliases a caller may use). Use it when only part of the registry is offered,
    /// so the suggestion never points at a tool the caller can't call.
    pub fn unknown_tool<'a>(name: &str, available: impl IntoIterator<Item = &'a str>) -> Self {
        ToolError::no_tool_named(
            name,
            crate::suggest::closest(name, available.into_iter()).map(str::to_owned),
        )
    }

    /// The one way every path (registry, view, runtime tools, MCP) builds an
    /// unknown-tool error: the name the caller sent comes back cut to a few dozen
    /// characters, with control and invisible characters (NUL, zero-width, bidi
    /// overrides, the BOM) written as `\u{..}` escapes, so a hostile name can
    /// neither blow up the error nor hide text in what the model or a log reads.
    pub(crate) fn no_tool_named(name: &str, suggestion: Option<String>) -> Self {
        ToolError::UnknownTool {
            name: crate::echo::echo(name),
            suggestion,
        }
    }

    /// A missing `#[ctx]` value of type `T`.
    #[must_use]
    pub fn missing_context<T: ?Sized>() -> Self {
        ToolError::MissingContext {
            type_name: std::any::type_name::<T>().to_owned(),
        }
    }

    /// The error's kind as it appears in JSON (`unknown_tool`, `invalid_arguments`, ...).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            ToolError::UnknownTool { .. } => "unknown_tool",
            ToolError::MalformedJson { .. } => "malformed_json",
            ToolError::InvalidArguments { .. } => "invalid_arguments",
            ToolError::UnknownField { .. } => "unknown_field",
            ToolError::MissingContext { .. } => "missing_context",
            ToolError::Failed { .. } => "failed",
            ToolError::Panicked { .. } => "panicked",
            ToolError::InvalidOutput { .. } => "invalid_output",
            ToolError::ApprovalRequired { .. } => "approval_required",
            ToolError::ApprovalRejected { .. } => "approval_rejected",
            ToolError::Denied { .. } => "denied",
            ToolError::AlreadyRan { .. } => "already_ran",
            ToolError::RateLimited { .. } => "rate_limited",
            ToolError::TooManyPending { .. } => "too_many_pending",
            ToolError::AwaitingInput { .. } => "awaiting_input",
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::UnknownTool {
                name,
                suggestion: Some(suggestion),
            } => write!(f, "unknown tool `{name}`; did you mean `{suggestion}`?"),
            ToolError::UnknownTool {
                name,
                suggestion: None,
            } => write!(f, "unknown tool `{name}`"),
            ToolError::MalformedJson {
                message,
                line,
                column,
            } => write!(
                f,
                "arguments are not valid JSON: {message} at line {line} column {column}"
            ),
            ToolError::InvalidArguments { problems } => match problems.as_slice() {
                [] => f.write_str("invalid arguments"),
                [one] => write!(f, "invalid arguments at `{}`: {}", one.path, one.message),
                many => {
                    write!(f, "{} problems in the arguments", many.len())?;
                    for problem in many {
                        write!(f, "; at `{}`: {}", problem.path, problem.message)?;
                    }
                    Ok(())
                }
            },
            ToolError::UnknownField { path, expected, .. } => {
                write!(f, "unknown field `{path}`")?;
                if expected.is_empty() && !path.contains(['.', '[']) {
                    f.write_str("; this tool takes no arguments")
                } else if expected.is_empty() {
                    f.write_str("; no fields are allowed here")
                } else {
                    write!(f, "; expected one of `{}`", expected.join("`, `"))
                }
            }
            ToolError::MissingContext { type_name } => write!(
                f,
                "the tool needs a `{type_name}` in its context, and the caller provided none"
            ),
            ToolError::Failed { message } => f.write_str(message),
            ToolError::Panicked { message, id } => {
                write!(f, "the tool panicked: {message} (id {id})")
            }
            ToolError::InvalidOutput { message } => {
                write!(f, "the tool's result could not be serialized: {message}")
            }
            ToolError::ApprovalRequired { tool } => write!(
                f,
                "`{tool}` needs a human's approval, and this caller cannot ask for one; it did not run"
            ),
            ToolError::ApprovalRejected { reason } => {
                write!(f, "the approval was refused: {reason}; nothing ran")
            }
            ToolError::Denied { message } => {
                write!(f, "a human denied this call: {message}")
            }
            ToolError::AlreadyRan { outcome } => write!(
                f,
                "this approved call already ran, {outcome}; an approved call runs once, so it \
                 did not run again"
            ),
            ToolError::RateLimited {
                tool,
                limit,
                retry_after_ms,
            } => write!(
                f,
                "`{tool}` may be called {} by each caller; try again in {} s",
                limit.in_words(),
                retry_after_ms.div_ceil(1000).max(1)
            ),
            ToolError::TooManyPending {
                tool,
                limit,
                of_tool: true,
            } => write!(
                f,
                "`{tool}` was not asked for: {limit} of your calls of it already wait for a person's approval, the most that may; try again once one is decided"
            ),
            ToolError::TooManyPending {
                tool,
                limit,
                of_tool: false,
            } => write!(
                f,
                "`{tool}` was not asked for: {limit} of your calls already wait for a person's approval, the most that may; try again once one is decided"
            ),
            ToolError::AwaitingInput { key } => {
                write!(f, "the request `{key}` waits for the client's answer")
            }
        }
    }
}

impl std::error::Error for ToolError {}

/// The message a tool's own error gets when it has none: the model always reads
/// something it can act on.
pub const EMPTY_FAILURE: &str = "the tool failed without saying why";

/// One thing wrong with a call's arguments: where, and what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Where in the arguments: `tasks[2].due`, `config["a b"]`; `.` for the root.
    /// Never empty.
    pub path: String,
    /// What is wrong there, in JSON terms.
    pub message: String,
}

/// Why the registry could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two definitions claim one name: two tools, or an alias that collides with a
    /// tool's name or another alias.
    Duplicate {
        /// The contested name.
        name: String,
        /// How the first definition uses it (`name` or `alias`), and where it is.
        first: (NameKind, Location),
        /// How the second definition uses it, and where it is.
        second: (NameKind, Location),
    },
    /// One of a tool's `examples` does not fit its arguments: the example would
    /// teach the model a call the tool refuses.
    InvalidExample {
        /// The tool's name.
        tool: &'static str,
        /// Where the tool is defined.
        location: Location,
        /// The example's position in `examples`, from 1.
        number: usize,
        /// The example as written.
        example: &'static str,
        /// What the tool answers to a call with those arguments, exactly as the
        /// model would read it.
        error: ToolError,
    },
}

/// How a definition uses a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    /// The tool's own name.
    Name,
    /// One of its aliases, naming the tool it belongs to.
    Alias(&'static str),
}

impl fmt::Display for NameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameKind::Name => f.write_str("a tool"),
            NameKind::Alias(tool) => write!(f, "an alias of `{tool}`"),
        }
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Duplicate {
                name,
                first,
                second,
            } => {
                write!(
                    f,
                    "tool name `{name}` is defined twice: as {} at {} and as {} at {}; rename one of them",
                    first.0, first.1, second.0, second.1
                )?;
                // Only an alias can be removed without renaming a tool.
                if matches!(first.0, NameKind::Alias(_)) || matches!(second.0, NameKind::Alias(_)) {
                    f.write_str(" or remove the alias")?;
                }
                Ok(())
            }
            RegistryError::InvalidExample {
                tool,
                location,
                number,
                example,
                error,
            } => write!(
                f,
                "example {number} of tool `{tool}` at {location} does not fit its arguments: {error}; fix the example `{example}` or remove it"
            ),
        }
    }
}

impl std::error::Error for RegistryError {
    /// The call error an [`InvalidExample`](RegistryError::InvalidExample) met.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RegistryError::InvalidExample { error, .. } => Some(error),
            RegistryError::Duplicate { .. } => None,
        }
    }
}

/// `error`'s message and then each of its causes' ([`source`](std::error::Error::source),
/// and theirs) that the text does not already say, on one line: what a log line
/// shows of an error whose message leaves its cause out (tokio-postgres says only
/// "db error" and keeps the database's words in its source).
#[cfg(any(feature = "postgres", feature = "mcp"))]
pub(crate) fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string().replace('\n', " ");
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}
