//! `tools/call`: one path for every transport. [`McpServer::prepare_call`] does everything but running
//! the tool (the argument caps, once and first; `lang` and normalisation through the plugin; the result
//! cache) and hands back the [`PendingCall`]; [`McpServer::run_call`] runs it (the one place a tool runs,
//! inside `catch_unwind`); [`McpServer::settle`] turns its outcome, or its absence at the call deadline,
//! into the answer and files a result in the cache. Only the waiting differs: HTTP runs the job and
//! its answer's serialization ([`McpServer::finish_call`]) on the server's call threads under
//! `tokio::time::timeout` ([`McpServer::finish_overdue`] past it), stdio and batches on a
//! [`Workers`](crate::transport::workers::Workers) thread waited for until the deadline
//! ([`McpServer::call_tool`]).

use std::{
    sync::PoisonError,
    time::{Duration, Instant},
};

use bytes::Bytes;
use serde_json::{Map, Value};

use super::{
    McpServer,
    reply::{Reply, ResultParts, TailedResult},
};
use crate::{
    tools::{
        Plugin, PreparedArguments, ToolError, ToolOutput,
        cancel::{self, CancelFlag},
    },
    transport::{
        metrics, modern,
        rpc_error::{RpcError, codes},
    },
};

/// What running a tool gave: its outcome, or the panic it raised.
type Outcome = std::thread::Result<Result<ToolOutput, ToolError>>;

/// An uncached `tools/call`, ready to run: the job (the tool and its prepared arguments, for the thread
/// that runs it) and the ticket (what the answer needs).
#[derive(Debug)]
pub struct PendingCall {
    /// What runs.
    pub job: CallJob,
    /// What answers.
    pub ticket: CallTicket,
}

/// The tool of a pending call and its prepared arguments.
#[derive(Debug)]
pub struct CallJob {
    tool: &'static str,
    arguments: PreparedArguments,
    /// Raised by whoever stops waiting for the call at its deadline ([`CallJob::cancel_flag`]).
    cancel: CancelFlag,
}

impl CallJob {
    /// The tool this call runs.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// The flag that stops this call at its tool's next checkpoint ([`crate::tools::cancel`]): raise it
    /// when no longer waiting for the answer.
    pub fn cancel_flag(&self) -> CancelFlag {
        self.cancel.clone()
    }
}

/// What the answer to a pending call needs: its id, its revision and where its result is filed.
#[derive(Debug)]
pub struct CallTicket {
    /// The request id, serialized.
    pub(super) id: String,
    /// Whether the request speaks 2026-07-28 (its result gains `resultType`, [`modern`]).
    pub(super) modern: bool,
    /// The tool and the cache keys of its result.
    pub(super) keys: CallKeys,
}

impl CallTicket {
    /// What answering this call past its deadline needs, for the waiter to keep while the ticket goes
    /// with the job to the thread that runs it (where the answer is then serialized,
    /// [`McpServer::finish_call`]).
    pub fn overdue(&self) -> OverdueTicket {
        OverdueTicket {
            id: self.id.clone(),
            tool: self.keys.tool,
        }
    }
}

/// The id and tool of a call whose ticket went with its job ([`CallTicket::overdue`]): enough to answer
/// it when its deadline passes ([`McpServer::finish_overdue`]).
#[derive(Debug)]
pub struct OverdueTicket {
    id: String,
    tool: &'static str,
}

/// The tool of a call and the cache keys its result is filed under.
#[derive(Debug)]
pub(super) struct CallKeys {
    tool: &'static str,
    /// The key of the tool, `lang` and normalised arguments ([`PreparedArguments::cache_key`]).
    key: String,
    /// The key of the params' exact text, when known (for a 2026-07-28 call, its [`super::raw_message::modern_key`]).
    pub(super) raw_key: Option<String>,
}

/// What a `tools/call` yields before it becomes an answer.
pub(super) enum Prepared {
    /// A result or refusal due without running the tool; with the tool's name when it is a cached
    /// result (which may be filed under another key).
    Answered(Bytes, Option<&'static str>),
    /// The tool must run: the job, and where its result goes.
    Run(CallJob, CallKeys),
}

/// A prepared call's outcome and how long its tool ran.
pub struct CallOutcome {
    outcome: Outcome,
    elapsed_us: u64,
    cpu_us: u64,
}

impl CallOutcome {
    /// How long the tool ran, in microseconds.
    pub fn elapsed_us(&self) -> u64 {
        self.elapsed_us
    }

    /// What the tool cost its thread, in microseconds: the CPU time it took ([`thread_cpu_time`]),
    /// however long the thread waited for a core meanwhile; its whole time ([`CallOutcome::elapsed_us`])
    /// where the system will not say.
    pub fn cpu_us(&self) -> u64 {
        self.cpu_us
    }

    /// Whether the tool answered (a result, not a refusal of its arguments, a cancellation or a fault).
    pub fn answered(&self) -> bool {
        matches!(self.outcome, Ok(Ok(_)))
    }
}

impl McpServer {
    /// Everything of a `tools/call` but running the tool: the argument caps (the one check, before
    /// any work), `lang` and normalisation ([`Plugin::prepare_arguments`]) and the cache. An answer
    /// when one is due without running (a refusal, a cached result), else the job and its keys.
    /// `call_key`, the cache key of the params' exact text ([`super::raw_message::RawMessage`]), is
    /// filed beside the normalised key for a result, so the same text is answered next time by
    /// [`McpServer::repeat`].
    ///
    /// # Errors
    /// `-32602` for params that are not an object, a name that is not a string or not an exposed tool,
    /// arguments that are not an object.
    pub(super) fn prepare_call(
        &self,
        params: Option<&Value>,
        call_key: Option<String>,
    ) -> Result<Prepared, RpcError> {
        let invalid = |message: String| RpcError::new(codes::INVALID_PARAMS, message);
        let params = params.and_then(Value::as_object).ok_or_else(|| {
            invalid("tools/call params must be an object with `name` and `arguments`".into())
        })?;
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("tools/call params.name must be a string".into()))?;
        let tool = self.plugin.tool(name).ok_or_else(|| {
            let names: Vec<&str> = self
                .plugin
                .tools()
                .iter()
                .filter(|tool| !tool.app_only)
                .map(|tool| tool.name)
                .collect();
            invalid(format!(
                "unknown tool `{}`; tools: {}",
                crate::text::snippet(name),
                names.join(", ")
            ))
        })?;
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(arguments)) => {
                // The caps first: before normalisation, the cache key and any of the tool's work.
                if let Err(refusal) = tool.check_arguments(arguments) {
                    return self
                        .answer(tool.name, Ok(Err(refusal)), 0, None)
                        .map(|refusal| Prepared::Answered(refusal, None));
                }
                arguments.clone()
            }
            Some(_) => {
                return Err(invalid(format!(
                    "tools/call arguments for `{name}` must be an object"
                )));
            }
        };
        let arguments = self.plugin.prepare_arguments(arguments);
        let key = arguments.cache_key(name);
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, tailed)) = cache.get(&key) {
            let result = tailed.result();
            if let Some(call_key) = call_key {
                cache.put(call_key, tool.name, tailed);
            }
            drop(cache);
            tracing::info!(tool = name, outcome = "cached", "tools/call");
            return Ok(Prepared::Answered(result, Some(tool.name)));
        }
        drop(cache);
        Ok(Prepared::Run(
            CallJob {
                tool: tool.name,
                arguments,
                cancel: CancelFlag::default(),
            },
            CallKeys {
                tool: tool.name,
                key,
                raw_key: call_key,
            },
        ))
    }

    /// A `tools/call` run to its answer on this thread's terms: prepared, its tool run on a worker
    /// thread waited for at most the call deadline (blocking), settled. What stdio, batches and
    /// notifications take.
    ///
    /// # Errors
    /// As [`McpServer::prepare_call`] and [`McpServer::settle`].
    pub(super) fn call_tool(
        &self,
        params: Option<&Value>,
        call_key: Option<String>,
    ) -> Result<Bytes, RpcError> {
        match self.prepare_call(params, call_key)? {
            Prepared::Answered(result, _) => Ok(result),
            Prepared::Run(job, keys) => {
                let plugin = self.plugin.clone();
                let cancel = job.cancel_flag();
                let outcome = self.workers.run_within(self.call_deadline, move || {
                    McpServer::run_call(&plugin, job)
                });
                if outcome.is_none() {
                    cancel.cancel();
                }
                self.settle(keys, outcome)
            }
        }
    }

    /// Runs a prepared call's tool on the calling thread, inside `catch_unwind` (blocking), its
    /// checkpoints reading the job's cancel flag: the one place a tool runs.
    pub fn run_call(plugin: &Plugin, job: CallJob) -> CallOutcome {
        let started = Instant::now();
        let cpu_started = thread_cpu_time();
        let CallJob {
            tool,
            arguments,
            cancel: flag,
        } = job;
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            cancel::run_with(&flag, || plugin.call(tool, arguments))
        }));
        let elapsed_us = started.elapsed().as_micros() as u64;
        let cpu_us = thread_cpu_time()
            .zip(cpu_started)
            .map_or(elapsed_us, |(now, started)| {
                now.saturating_sub(started).as_micros() as u64
            });
        if matches!(outcome, Ok(Err(ToolError::Cancelled))) {
            // Counted here: nobody waits for this outcome, so it never reaches an answer.
            tracing::info!(tool, elapsed_us, outcome = "cancelled", "tools/call");
            metrics::record_call(tool, "cancelled", Some(elapsed_us));
        }
        CallOutcome {
            outcome,
            elapsed_us,
            cpu_us,
        }
    }

    /// The reply to a prepared call: its outcome (cached when a result), or `-32603` naming the
    /// deadline when `outcome` is `None` (the caller stopped waiting at [`McpServer::call_deadline`]).
    pub fn finish_call(&self, ticket: CallTicket, outcome: Option<CallOutcome>) -> Reply {
        let CallTicket {
            id,
            modern,
            mut keys,
        } = ticket;
        // A 2026-07-28 result is filed under its params' text already shaped for its revision.
        let modern_key = if modern { keys.raw_key.take() } else { None };
        let tool = keys.tool;
        match self.settle(keys, outcome) {
            Ok(result) if modern => {
                let shaped = Bytes::from(modern::with_fields(
                    &result,
                    &modern::result_fields("tools/call"),
                ));
                if let Some(modern_key) = modern_key.filter(|_| self.caching) {
                    self.file(modern_key, tool, shaped.clone());
                }
                Reply::Result(ResultParts::new(&id, shaped))
            }
            Ok(result) => Reply::Result(ResultParts::new(&id, result)),
            Err(error) => Reply::One {
                response: error.response_text(&id),
                unreadable: false,
            },
        }
    }

    /// A prepared call's serialized result from its outcome (filed in the cache under `keys`), or its
    /// error.
    ///
    /// # Errors
    /// `-32603` naming the tool for a fault or a panic, and naming the deadline when `outcome` is `None`.
    pub(super) fn settle(
        &self,
        keys: CallKeys,
        outcome: Option<CallOutcome>,
    ) -> Result<Bytes, RpcError> {
        let CallKeys { tool, key, raw_key } = keys;
        match outcome {
            Some(CallOutcome {
                outcome,
                elapsed_us,
                cpu_us: _,
            }) => self.answer(tool, outcome, elapsed_us, Some((key, raw_key))),
            None => Err(self.deadline_error(tool)),
        }
    }

    /// The `-32603` of a call of `tool` given up at its deadline, logged and counted.
    fn deadline_error(&self, tool: &'static str) -> RpcError {
        tracing::error!(tool, "tools/call exceeded its deadline");
        metrics::record_call(tool, "deadline", None);
        RpcError::new(
            codes::INTERNAL_ERROR,
            format!(
                "tool `{tool}` exceeded its {} s deadline",
                self.call_deadline.as_secs_f64()
            ),
        )
    }

    /// The reply to a call given up at its deadline whose ticket went with its job: as
    /// [`McpServer::finish_call`] without an outcome.
    pub fn finish_overdue(&self, ticket: OverdueTicket) -> Reply {
        Reply::One {
            response: self.deadline_error(ticket.tool).response_text(&ticket.id),
            unreadable: false,
        }
    }

    /// Files `result` of `tool` in the cache under `key`.
    pub(super) fn file(&self, key: String, tool: &'static str, result: Bytes) {
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .put(key, tool, TailedResult::new(&result));
    }

    /// How long a tool call may run.
    pub fn call_deadline(&self) -> Duration {
        self.call_deadline
    }

    /// The `tools/call` answer to a tool's outcome, cached under `keys` (the normalised key and, when
    /// known, the params' text key) when it is a result.
    fn answer(
        &self,
        name: &'static str,
        outcome: Outcome,
        elapsed_us: u64,
        keys: Option<(String, Option<String>)>,
    ) -> Result<Bytes, RpcError> {
        let result: Bytes = match outcome {
            Ok(Ok(output)) => {
                tracing::info!(tool = name, elapsed_us, outcome = "ok", "tools/call");
                metrics::record_call(name, "ok", Some(elapsed_us));
                call_result(&output, false)
            }
            Ok(Err(ToolError::Invalid(message))) => {
                tracing::info!(
                    tool = name,
                    elapsed_us,
                    outcome = "tool_error",
                    "tools/call"
                );
                metrics::record_call(name, "tool_error", Some(elapsed_us));
                call_result(&ToolOutput::refusal(&message), true)
            }
            Ok(Err(ToolError::Internal(detail))) => {
                tracing::error!(tool = name, elapsed_us, detail, "tools/call failed");
                metrics::record_call(name, "internal", Some(elapsed_us));
                return Err(RpcError::new(
                    codes::INTERNAL_ERROR,
                    format!("internal error in tool `{name}`"),
                ));
            }
            Ok(Err(ToolError::Cancelled)) => {
                // Only a call nobody waits for any more is cancelled (counted by `run_call`): this
                // answer is never read.
                return Err(RpcError::new(
                    codes::INTERNAL_ERROR,
                    format!(
                        "tool `{name}` exceeded its {} s deadline",
                        self.call_deadline.as_secs_f64()
                    ),
                ));
            }
            Err(_) => {
                tracing::error!(tool = name, elapsed_us, "tools/call panicked");
                metrics::record_call(name, "internal", Some(elapsed_us));
                return Err(RpcError::new(
                    codes::INTERNAL_ERROR,
                    format!("internal error in tool `{name}`"),
                ));
            }
        };
        if let Some((key, raw_key)) = keys.filter(|_| self.caching) {
            let tailed = TailedResult::new(&result);
            let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            cache.put(key, name, tailed.clone());
            if let Some(raw_key) = raw_key {
                cache.put(raw_key, name, tailed);
            }
        }
        Ok(result)
    }
}

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`); `None` where the system will
/// not say.
pub fn thread_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut time = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `clock_gettime` writes only the timespec it is given.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) } != 0 {
            return None;
        }
        Some(Duration::new(time.tv_sec as u64, time.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    None
}

/// The serialized `tools/call` result: the payload `{"result", "citations"}` as the text block and as
/// `structuredContent` (what hosts hand the model); the short message for the person, when there is one,
/// as a second text block annotated `audience: ["user"]`; a `resource_link` item per indicator file the
/// answer rests on ([`ToolOutput::resource_links`]); and the display object, when there is one,
/// under `_meta` ([`ToolOutput::DISPLAY_META_KEY`]), which hosts keep out of the model's context.
fn call_result(output: &ToolOutput, is_error: bool) -> Bytes {
    let ToolOutput {
        payload,
        display,
        user_message,
        resource_links,
        charted: _,
        chart_sentence_at: _,
    } = output;
    let (display, user_message) = (display.as_deref(), user_message.as_deref());
    // The text block is the payload as a JSON string: escaped straight into the buffer, sized for the
    // payload twice (escaping adds a backslash per quote, under a fifth of a payload's bytes).
    let mut result = Vec::with_capacity(
        payload.len() * 23 / 10
            + display.map_or(0, str::len)
            + user_message.map_or(0, str::len)
            + resource_links
                .iter()
                .map(|link| link.len() + 1)
                .sum::<usize>()
            + 192,
    );
    result.extend_from_slice(br#"{"content":[{"type":"text","text":"#);
    push_json_text_as_string(&mut result, payload);
    if let Some(message) = user_message {
        result.extend_from_slice(br#"},{"type":"text","text":"#);
        serde_json::to_writer(&mut result, message).expect("strings serialize");
        result.extend_from_slice(br#","annotations":{"audience":["user"]}"#);
    }
    result.push(b'}');
    for link in resource_links {
        result.push(b',');
        result.extend_from_slice(link.as_bytes());
    }
    result.extend_from_slice(br#"],"structuredContent":"#);
    result.extend_from_slice(payload.as_bytes());
    if let Some(display) = display {
        result.extend_from_slice(br#","_meta":{"#);
        serde_json::to_writer(&mut result, ToolOutput::DISPLAY_META_KEY)
            .expect("strings serialize");
        result.push(b':');
        result.extend_from_slice(display.as_bytes());
        result.push(b'}');
    }
    result.extend_from_slice(if is_error {
        br#","isError":true}"#
    } else {
        br#","isError":false}"#
    });
    // Built from `str`s and ASCII only: UTF-8 throughout.
    Bytes::from(result)
}

/// Writes `json`, compact JSON text, as a JSON string into `out`: the same bytes as serde_json writes
/// for it. Compact JSON as serde_json writes it holds no control character (it escapes them inside
/// strings and writes no whitespace), so only quotes and backslashes are escaped, found a vector at a
/// time; text with a control character is escaped by serde_json.
fn push_json_text_as_string(out: &mut Vec<u8>, json: &str) {
    let bytes = json.as_bytes();
    if bytes
        .iter()
        .fold(false, |control, &byte| control | (byte < 0x20))
    {
        serde_json::to_writer(out, json).expect("strings serialize");
        return;
    }
    out.push(b'"');
    let mut from = 0;
    for at in memchr::memchr2_iter(b'"', b'\\', bytes) {
        out.extend_from_slice(&bytes[from..at]);
        out.push(b'\\');
        from = at;
    }
    out.extend_from_slice(&bytes[from..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::push_json_text_as_string;

    #[test]
    fn a_payload_is_written_as_the_json_string_serde_json_writes() {
        let payloads = [
            r#"{"result":{"name":"Esperanza de vida al nacer","country_name":"México","note":"a \"quoted\" word, a \\ and a \n"},"citations":{}}"#,
            "",
            "plain",
            r#""\"#,
            "a line\nbreak and a tab\t, raw",
        ];
        for payload in payloads {
            let mut written = Vec::new();
            push_json_text_as_string(&mut written, payload);
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(payload).unwrap(),
                "{payload}"
            );
        }
    }
}
