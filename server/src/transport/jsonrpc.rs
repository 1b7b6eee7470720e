//! JSON-RPC 2.0 envelope handling and the MCP methods, shared by the HTTP and stdio transports.
//!
//! Classification of each message (SPEC §4.2, normative):
//!
//! | received | answer |
//! |---|---|
//! | not a JSON object | `-32600`, `id: null` |
//! | `id` present but not a string or number | `-32600`, `id: null` |
//! | `id` present, `jsonrpc != "2.0"` or `method` not a string | `-32600` bound to that id |
//! | no `id` (notification) | processed, never answered |
//! | `method` starting with `notifications/`, even with an id | no answer |
//! | unknown method with id | `-32601` |
//! | `tools/call` naming a tool not exposed, or `arguments` not an object | `-32602` |
//! | arguments past a cap of the tool's input schema (length, characters, items) | `isError` result naming the argument |
//! | tool fails internally, or runs past the call deadline | `-32603` bound to that id; siblings unaffected |
//! | unparseable body | `-32700`, `id: null` |

use std::{
    panic::AssertUnwindSafe,
    sync::{Arc, Mutex, PoisonError, mpsc},
    time::{Duration, Instant},
};

use bytes::Bytes;
use corpus::Lang;
use serde::Deserialize;
use serde_json::{Map, Value, json, value::RawValue};

use super::{apps::ClientFeatures, modern, workers::Workers};
use crate::tools::{Plugin, ToolError, ToolOutput, limits};

/// Protocol versions this server speaks, newest first. An `initialize` offering another version gets the
/// newest as a counter-offer.
pub const SUPPORTED_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];
/// The most messages one batch may hold.
pub const MAX_BATCH: usize = 20;

/// JSON-RPC error codes used by the server.
pub mod codes {
    /// Unparseable body.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid request object, empty or oversized batch.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Unknown tool or invalid params.
    pub const INVALID_PARAMS: i64 = -32602;
    /// A tool failed internally.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Rate limit exceeded.
    pub const RATE_LIMITED: i64 = -32000;
}

/// A JSON-RPC error: code, message and optional `data`.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// One of [`codes`] or a method-specific code (`-32002`, resource not found).
    pub code: i64,
    /// What went wrong and what would be valid.
    pub message: String,
    /// Structured detail (`{"uri": …}`), when there is some.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error without `data`.
    pub fn new(code: i64, message: String) -> RpcError {
        RpcError {
            code,
            message,
            data: None,
        }
    }
}

impl From<(i64, String)> for RpcError {
    fn from((code, message): (i64, String)) -> RpcError {
        RpcError::new(code, message)
    }
}

/// The server's identity in `initialize`.
pub const SERVER_NAME: &str = "lac-corpus";
/// Human title in `initialize`.
pub const SERVER_TITLE: &str = "LAC governed-data corpus";

/// What to send back for one body.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Nothing (only notifications): HTTP 202 with an empty body, nothing on stdio.
    Nothing,
    /// One response object. `unreadable` is true when the message could not be read as a request
    /// (parse error, not an object, bad envelope, empty or oversized batch): HTTP 400.
    One {
        /// The response, serialized.
        response: String,
        /// Whether the message was unreadable as a request.
        unreadable: bool,
    },
    /// A batch's responses, serialized, in message order.
    Many(Vec<String>),
    /// One result response, in parts (HTTP sends them without joining them).
    Result(ResultParts),
}

impl Reply {
    /// The HTTP body or stdio line: the response, or the batch's responses as one array; `None` for nothing.
    pub fn into_body(self) -> Option<String> {
        match self {
            Reply::Nothing => None,
            Reply::One { response, .. } => Some(response),
            Reply::Many(responses) => Some(format!("[{}]", responses.join(","))),
            Reply::Result(parts) => Some(parts.into_string()),
        }
    }
}

/// The shape of a parsed body, before any message runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyShape {
    /// One message.
    Single,
    /// A batch of this many messages (1 to [`MAX_BATCH`]).
    Batch(usize),
    /// `[]`.
    EmptyBatch,
    /// A batch above [`MAX_BATCH`].
    OversizedBatch(usize),
}

impl BodyShape {
    /// Classifies a parsed body.
    pub fn of(body: &Value) -> BodyShape {
        match body {
            Value::Array(messages) if messages.is_empty() => BodyShape::EmptyBatch,
            Value::Array(messages) if messages.len() > MAX_BATCH => {
                BodyShape::OversizedBatch(messages.len())
            }
            Value::Array(messages) => BodyShape::Batch(messages.len()),
            _ => BodyShape::Single,
        }
    }

    /// Messages a rate limiter charges for this body (none for a rejected batch).
    pub fn messages(self) -> usize {
        match self {
            BodyShape::Single => 1,
            BodyShape::Batch(count) => count,
            BodyShape::EmptyBatch | BodyShape::OversizedBatch(_) => 0,
        }
    }
}

/// Default byte budget of the response cache (see [`McpServer::with_cache_budget`]).
pub const DEFAULT_CACHE_BYTES: usize = 32 * 1024 * 1024;
/// Default time a `tools/call` may run (see [`McpServer::with_call_deadline`]): the seed's `maxDuration`.
pub const DEFAULT_CALL_DEADLINE: Duration = Duration::from_secs(30);

/// The MCP server core: the plugin, the precomputed `tools/list` answer and a bounded cache of
/// serialized `tools/call` results.
///
/// Answers depend only on the baked corpus and the request, so a result is cached under its tool, `lang`
/// and normalised arguments, and an identical call is answered with the same bytes without running the
/// tool again. The cache holds at most its byte budget; the least recently used results go first.
///
/// Arguments are held to the caps of the tool's input schema before anything else
/// ([`crate::tools::limits`]). An uncached call runs on a worker thread ([`Workers`]) and is waited for
/// until the call deadline; past it the message gets `-32603` and the server goes on serving (the tool's
/// thread finishes on its own and its answer is dropped).
#[derive(Debug, Clone)]
pub struct McpServer {
    plugin: Arc<Plugin>,
    /// `tools/list` of a client without the MCP Apps extension: the model's tools.
    tools_list: Bytes,
    /// `tools/list` of a client that negotiated it ([`super::apps`]): the same tools with their Apps
    /// metadata, and the app-only tools.
    tools_list_apps: Bytes,
    /// What the client this server answers negotiated ([`McpServer::for_client`]).
    client: ClientFeatures,
    instructions: String,
    cache: Arc<Mutex<ResultCache>>,
    /// Whether results are cached at all (a budget above 0).
    caching: bool,
    call_deadline: Duration,
    workers: Arc<Workers>,
}

/// What running a tool gave: its outcome, or the panic it raised.
type Outcome = std::thread::Result<Result<ToolOutput, ToolError>>;

/// A body prepared by [`McpServer::prepare`].
#[derive(Debug)]
pub enum Step {
    /// Answered without running a tool.
    Done(Reply),
    /// One uncached `tools/call` left to run.
    Call(PendingCall),
    /// A batch of messages: run it with [`McpServer::handle_body`], which may block.
    Batch,
}

/// An uncached `tools/call` of a single-message body, ready to run: the job (the tool and its
/// normalised arguments, for the thread that runs it) and the ticket (what the answer needs).
#[derive(Debug)]
pub struct PendingCall {
    /// What runs.
    pub job: CallJob,
    /// What answers.
    pub ticket: CallTicket,
}

/// The tool of a pending call and its normalised arguments.
#[derive(Debug)]
pub struct CallJob {
    tool: &'static str,
    arguments: Value,
    lang: Lang,
}

/// What the answer to a pending call needs: its id, tool and cache key.
#[derive(Debug)]
pub struct CallTicket {
    /// The request id, serialized.
    id: String,
    tool: &'static str,
    key: String,
    raw_key: Option<String>,
    /// Whether the request speaks 2026-07-28 (its result gains `resultType`, [`super::modern`]).
    modern: bool,
}

/// A tool call past its argument checks and the cache.
#[derive(Debug)]
struct ToolCall {
    tool: &'static str,
    arguments: Value,
    lang: Lang,
    key: String,
    /// The cache key of the params' exact text, when known.
    raw_key: Option<String>,
}

/// What `tools/call` yields before it becomes an answer.
enum Prepared {
    /// A result or refusal due without running the tool.
    Answered(Bytes),
    /// The tool must run.
    Run(ToolCall),
}

/// A prepared call's outcome and how long its tool ran.
pub struct CallOutcome {
    outcome: Outcome,
    elapsed_us: u64,
}

/// Serialized tool results by call key, bounded by bytes.
///
/// Two kinds of key lead to a result: the tool, `lang` and normalised arguments (`{tool}\0{lang}\0{json}`),
/// and the exact text of the `params` that asked for it (`raw\0{text}`, [`McpServer::repeat`]); each
/// entry counts its key and its result against the budget, even when two share one result.
#[derive(Debug)]
struct ResultCache {
    entries: lru::LruCache<String, (&'static str, Bytes)>,
    bytes: usize,
    budget: usize,
}

impl ResultCache {
    fn get(&mut self, key: &str) -> Option<(&'static str, Bytes)> {
        self.entries.get(key).cloned()
    }

    fn put(&mut self, key: String, tool: &'static str, result: Bytes) {
        let size = key.len() + result.len();
        if size > self.budget / 4 {
            return;
        }
        if let Some((_, previous)) = self.entries.put(key.clone(), (tool, result)) {
            self.bytes -= key.len() + previous.len();
        }
        self.bytes += size;
        while self.bytes > self.budget {
            let Some((old_key, (_, old_result))) = self.entries.pop_lru() else {
                break;
            };
            self.bytes -= old_key.len() + old_result.len();
        }
    }
}

impl McpServer {
    /// A server over `plugin`.
    pub fn new(plugin: Plugin) -> McpServer {
        let listed: Vec<(&crate::tools::ToolSpec, Value)> = plugin
            .tools()
            .iter()
            .map(|tool| {
                let listed = json!({
                    "name": tool.name,
                    "title": tool.title,
                    "description": tool.description,
                    "inputSchema": with_lang(tool.input_schema.clone()),
                    "outputSchema": tool.output_schema,
                    "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
                });
                (tool, listed)
            })
            .collect();
        let model_tools: Vec<&Value> = listed
            .iter()
            .filter(|(tool, _)| !tool.app_only)
            .map(|(_, listed)| listed)
            .collect();
        let apps_tools: Vec<Value> = listed
            .iter()
            .map(|(tool, listed)| {
                let mut listed = listed.clone();
                super::apps::decorate_tool(&mut listed, tool.name, tool.app_only);
                listed
            })
            .collect();
        let instructions = instructions(&plugin);
        McpServer {
            tools_list: Bytes::from(json!({ "tools": model_tools }).to_string()),
            tools_list_apps: Bytes::from(json!({ "tools": apps_tools }).to_string()),
            client: ClientFeatures::default(),
            plugin: Arc::new(plugin),
            instructions,
            cache: Arc::new(Mutex::new(ResultCache {
                entries: lru::LruCache::unbounded(),
                bytes: 0,
                budget: DEFAULT_CACHE_BYTES,
            })),
            caching: true,
            call_deadline: DEFAULT_CALL_DEADLINE,
            workers: Arc::new(Workers::default()),
        }
    }

    /// The same server with a `tools/call` deadline of `deadline` (default [`DEFAULT_CALL_DEADLINE`]).
    pub fn with_call_deadline(mut self, deadline: Duration) -> McpServer {
        self.call_deadline = deadline;
        self
    }

    /// The same server with a response cache of `bytes` (0 turns caching off).
    pub fn with_cache_budget(mut self, bytes: usize) -> McpServer {
        self.cache = Arc::new(Mutex::new(ResultCache {
            entries: lru::LruCache::unbounded(),
            bytes: 0,
            budget: bytes,
        }));
        self.caching = bytes > 0;
        self
    }

    /// This server as it answers a client that negotiated `features` (a cheap copy: the plugin, cache
    /// and workers are shared). Only `tools/list` and `resources/list` differ ([`super::apps`]).
    pub fn for_client(&self, features: ClientFeatures) -> McpServer {
        McpServer {
            client: features,
            ..self.clone()
        }
    }

    /// The plugin.
    pub fn plugin(&self) -> &Plugin {
        &self.plugin
    }

    /// Parses `text` and handles it; an unparseable text is a `-32700` with `id: null`.
    pub fn handle_text(&self, text: &str) -> Reply {
        if let Some(repeat) = self.repeat(text.as_bytes()) {
            return Reply::One {
                response: repeat.into_string(),
                unreadable: false,
            };
        }
        match serde_json::from_str::<Value>(text) {
            Ok(body) => self.handle_raw_body(&body, text.as_bytes()),
            Err(error) => Reply::One {
                response: error_response(
                    Value::Null,
                    codes::PARSE_ERROR,
                    &format!("parse error: {error}"),
                    None,
                )
                .to_string(),
                unreadable: true,
            },
        }
    }

    /// Handles a parsed body: one message or a batch, run in order. Ids are echoed as `serde_json`
    /// reads them ([`McpServer::handle_raw_body`] echoes their exact text).
    pub fn handle_body(&self, body: &Value) -> Reply {
        self.handle_parsed(body, None)
    }

    /// Handles `body`, parsed from `raw`: as [`McpServer::handle_body`], but each answer's `id` is the
    /// exact text of the request's (an integer past 64 bits keeps every digit, `1.0` stays `1.0`).
    pub fn handle_raw_body(&self, body: &Value, raw: &[u8]) -> Reply {
        self.handle_parsed(body, Some(raw))
    }

    fn handle_parsed(&self, body: &Value, raw: Option<&[u8]>) -> Reply {
        match BodyShape::of(body) {
            BodyShape::EmptyBatch => Reply::One {
                response: error_response(
                    Value::Null,
                    codes::INVALID_REQUEST,
                    "invalid request: empty batch",
                    None,
                )
                .to_string(),
                unreadable: true,
            },
            BodyShape::OversizedBatch(count) => Reply::One {
                response: error_response(
                    Value::Null,
                    codes::INVALID_REQUEST,
                    &format!("invalid request: batch of {count} messages; at most {MAX_BATCH}"),
                    None,
                )
                .to_string(),
                unreadable: true,
            },
            BodyShape::Batch(count) => {
                let messages = body.as_array().expect("a batch is an array");
                let raw_messages = raw
                    .and_then(|raw| serde_json::from_slice::<Vec<&RawValue>>(raw).ok())
                    .filter(|raw_messages| raw_messages.len() == count);
                let responses: Vec<String> = messages
                    .iter()
                    .enumerate()
                    .filter_map(|(at, message)| {
                        let raw = raw_messages
                            .as_ref()
                            .map(|raw_messages| raw_messages[at].get().as_bytes());
                        if let Some(refusal) = refused_in_batch(message, raw) {
                            return Some(refusal);
                        }
                        self.handle_message(message, raw)
                            .map(|(response, _)| response)
                    })
                    .collect();
                if responses.is_empty() {
                    Reply::Nothing
                } else {
                    Reply::Many(responses)
                }
            }
            BodyShape::Single => match self.handle_message(body, raw) {
                Some((response, unreadable)) => Reply::One {
                    response,
                    unreadable,
                },
                None => Reply::Nothing,
            },
        }
    }

    /// Handles one message (`raw`: its text, when known); `None` when it gets no answer. The flag is
    /// true for envelope errors.
    fn handle_message(&self, message: &Value, raw: Option<&[u8]>) -> Option<(String, bool)> {
        self.classify_and_run(
            message,
            raw.map(|raw| RawMessage::read(raw, self.caching)),
            None,
        )
        .map(|(response, unreadable)| (response.into_string(), unreadable))
    }

    /// Classifies `message` and answers it. With `run` given, an uncached `tools/call` is not run: it
    /// is left in `run` for the caller, and the answer is `None`.
    fn classify_and_run(
        &self,
        message: &Value,
        raw: Option<RawMessage<'_>>,
        run: Option<&mut Option<PendingCall>>,
    ) -> Option<(Response, bool)> {
        let RawMessage {
            id: raw_id,
            call_key,
        } = raw.unwrap_or_default();
        let Some(object) = message.as_object() else {
            return Some((
                Response::Value(error_response(
                    Value::Null,
                    codes::INVALID_REQUEST,
                    "invalid request: a message must be a JSON object",
                    None,
                )),
                true,
            ));
        };
        let method = object.get("method").and_then(Value::as_str);
        let is_response =
            method.is_none() && (object.contains_key("result") || object.contains_key("error"));
        if is_response {
            // A JSON-RPC response sent to us: this server never sends requests, so there is nothing to match.
            return None;
        }
        let Some(id) = object.get("id") else {
            let (Some("2.0"), Some(method)) =
                (object.get("jsonrpc").and_then(Value::as_str), method)
            else {
                let message =
                    "invalid request: a notification needs jsonrpc \"2.0\" and a string method";
                return Some((
                    Response::Value(error_response(
                        Value::Null,
                        codes::INVALID_REQUEST,
                        message,
                        None,
                    )),
                    true,
                ));
            };
            // A notification: processed, never answered (a 2026-07-28 one is not run at all: that revision
            // defines no client notification that does work).
            if !method.starts_with("notifications/") && !modern::is_modern(object.get("params")) {
                let _ = self.dispatch(method, object.get("params"), None);
            }
            return None;
        };
        if !(id.is_string() || id.is_number()) {
            return Some((
                Response::Value(error_response(
                    Value::Null,
                    codes::INVALID_REQUEST,
                    "invalid request: id must be a string or a number",
                    None,
                )),
                true,
            ));
        }
        // The id as the request wrote it, when its text is known; else as serde_json reads it.
        let id = raw_id.map_or_else(|| id.to_string(), str::to_string);
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Some((
                Response::Error {
                    id,
                    code: codes::INVALID_REQUEST,
                    message: "invalid request: jsonrpc must be \"2.0\"".into(),
                    data: None,
                },
                true,
            ));
        }
        let Some(method) = method else {
            return Some((
                Response::Error {
                    id,
                    code: codes::INVALID_REQUEST,
                    message: "invalid request: method must be a string".into(),
                    data: None,
                },
                true,
            ));
        };
        if method.starts_with("notifications/") {
            return None;
        }
        let params = object.get("params");
        // A 2026-07-28 message stands alone: its own version and client capabilities, no raw-text
        // cache key (its result is shaped for its revision).
        if modern::is_modern(params) {
            let negotiated = match modern::of_params(params) {
                Ok(negotiated) => negotiated,
                Err(error) => return Some((Response::error(id, error), false)),
            };
            let owned =
                (negotiated.features != self.client).then(|| self.for_client(negotiated.features));
            return owned
                .as_ref()
                .unwrap_or(self)
                .answer_modern(id, method, params, run);
        }
        if let Some(run) = run
            && method == "tools/call"
        {
            return self.prepared_call(id, params, call_key, run, false);
        }
        let span = tracing::info_span!("message", method, id = %id);
        let _entered = span.enter();
        let started = Instant::now();
        let dispatched = self.dispatch(method, params, call_key);
        tracing::info!(
            duration_us = started.elapsed().as_micros() as u64,
            outcome = if dispatched.is_ok() { "ok" } else { "error" },
            bytes = dispatched.as_ref().map_or(0, |result| result.len()),
            "json-rpc message"
        );
        let response = match dispatched {
            Ok(result) => Response::Result { id, result },
            Err(error) => Response::error(id, error),
        };
        Some((response, false))
    }

    /// A `tools/call` left for the caller to run (`run`), or its answer when one is due without
    /// running (a refusal, a cached result); `modern` shapes the result for 2026-07-28.
    fn prepared_call(
        &self,
        id: String,
        params: Option<&Value>,
        call_key: Option<String>,
        run: &mut Option<PendingCall>,
        modern: bool,
    ) -> Option<(Response, bool)> {
        let response = match self.prepare_call(params, call_key) {
            Ok(Prepared::Answered(result)) => Response::Result {
                id,
                result: if modern {
                    Bytes::from(modern::with_fields(
                        &result,
                        &modern::result_fields("tools/call"),
                    ))
                } else {
                    result
                },
            },
            Ok(Prepared::Run(call)) => {
                *run = Some(PendingCall {
                    job: CallJob {
                        tool: call.tool,
                        arguments: call.arguments,
                        lang: call.lang,
                    },
                    ticket: CallTicket {
                        id,
                        tool: call.tool,
                        key: call.key,
                        raw_key: call.raw_key,
                        modern,
                    },
                });
                return None;
            }
            Err((code, message)) => Response::Error {
                id,
                code,
                message,
                data: None,
            },
        };
        Some((response, false))
    }

    /// Answers a 2026-07-28 message ([`super::modern`]): `server/discover`; no `ping` or `initialize`;
    /// every other method as the legacy revisions answer it, its result with `resultType` (and, when
    /// cacheable, `ttlMs` and `cacheScope`), a resource not found as `-32602`.
    fn answer_modern(
        &self,
        id: String,
        method: &str,
        params: Option<&Value>,
        run: Option<&mut Option<PendingCall>>,
    ) -> Option<(Response, bool)> {
        if let Some(run) = run
            && method == "tools/call"
        {
            return self.prepared_call(id, params, None, run, true);
        }
        let dispatched = match method {
            "server/discover" => Ok(Bytes::from(self.discover().to_string())),
            "ping" | "initialize" => Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!(
                    "method not found: `{method}` is not part of 2026-07-28 (a request carries its version and capabilities in `_meta`; server/discover tells what this server speaks)"
                ),
            )),
            _ => self.dispatch(method, params, None).map_err(|error| {
                if error.code == codes::METHOD_NOT_FOUND {
                    RpcError::new(
                        codes::METHOD_NOT_FOUND,
                        format!(
                            "method not found: `{}`; methods of 2026-07-28 here: server/discover, tools/list, tools/call, resources/list, resources/templates/list, resources/read",
                            crate::tools::common::snippet(method)
                        ),
                    )
                } else {
                    error
                }
            }),
        };
        let response = match dispatched {
            Ok(result) => Response::Result {
                id,
                result: Bytes::from(modern::with_fields(&result, &modern::result_fields(method))),
            },
            Err(mut error) => {
                // 2026-07-28 names a resource not found an invalid parameter.
                if error.code == super::resources::RESOURCE_NOT_FOUND {
                    error.code = codes::INVALID_PARAMS;
                }
                Response::error(id, error)
            }
        };
        Some((response, false))
    }

    /// The `server/discover` result (without the fields [`modern::with_fields`] adds): the revisions a
    /// request may name per request, its capabilities (MCP Apps declared when this request's client advertised
    /// it), its identity and instructions.
    fn discover(&self) -> Value {
        let mut capabilities =
            json!({"tools": {"listChanged": false}, "resources": {"listChanged": false}});
        if let Some(extensions) = super::apps::server_extensions(self.client) {
            capabilities["extensions"] = extensions;
        }
        json!({
            // The versions a request may name in its `_meta` (the legacy ones need `initialize`).
            "supportedVersions": modern::MODERN_VERSIONS,
            "capabilities": capabilities,
            "_meta": {modern::SERVER_INFO_KEY: {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION"), "title": SERVER_TITLE}},
            "instructions": self.instructions,
        })
    }

    /// Runs one method: its serialized `result`, or `Err((code, message))` for a protocol error.
    fn dispatch(
        &self,
        method: &str,
        params: Option<&Value>,
        call_key: Option<String>,
    ) -> Result<Bytes, RpcError> {
        let corpus = || self.plugin.corpus();
        let serialized = |value: Value| Bytes::from(value.to_string());
        match method {
            "initialize" => Ok(serialized(self.initialize(params))),
            "ping" => Ok(Bytes::from_static(b"{}")),
            "tools/list" => Ok(if self.client.apps {
                self.tools_list_apps.clone()
            } else {
                self.tools_list.clone()
            }),
            "tools/call" => self.call_tool(params, call_key).map_err(RpcError::from),
            "resources/list" => {
                super::resources::list(corpus(), params, self.client).map(serialized)
            }
            "resources/templates/list" => Ok(serialized(super::resources::templates())),
            "resources/read" => super::resources::read(corpus(), params).map(serialized),
            other => Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!(
                    "method not found: `{}`; methods: initialize, ping, tools/list, tools/call, resources/list, resources/templates/list, resources/read (and, in 2026-07-28, server/discover)",
                    crate::tools::common::snippet(other)
                ),
            )),
        }
    }

    fn initialize(&self, params: Option<&Value>) -> Value {
        let offered = params
            .and_then(|params| params.get("protocolVersion"))
            .and_then(Value::as_str);
        let version = offered
            .filter(|offered| SUPPORTED_VERSIONS.contains(offered))
            .unwrap_or(SUPPORTED_VERSIONS[0]);
        let mut capabilities = json!({"tools": {"listChanged": false}, "resources": {"listChanged": false, "subscribe": false}});
        // What the transport negotiated from this body's `initialize` ([`McpServer::for_client`]).
        if let Some(extensions) = super::apps::server_extensions(self.client) {
            capabilities["extensions"] = extensions;
        }
        json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION"), "title": SERVER_TITLE},
            "instructions": self.instructions,
        })
    }

    fn call_tool(
        &self,
        params: Option<&Value>,
        call_key: Option<String>,
    ) -> Result<Bytes, (i64, String)> {
        match self.prepare_call(params, call_key)? {
            Prepared::Answered(result) => Ok(result),
            Prepared::Run(call) => {
                let started = Instant::now();
                let outcome = self.run(call.tool, call.arguments.clone(), call.lang)?;
                let elapsed_us = started.elapsed().as_micros() as u64;
                self.answer(
                    call.tool,
                    outcome,
                    elapsed_us,
                    Some((call.key, call.raw_key)),
                )
            }
        }
    }

    /// Everything of a `tools/call` but running the tool: the argument caps, normalisation and the
    /// cache. An answer when one is due without running (a refusal, a cached result), else the call.
    /// `call_key`, the cache key of the params' exact text ([`RawMessage`]), is filed beside the
    /// normalised key for a result, so the same text is answered next time by [`McpServer::repeat`].
    fn prepare_call(
        &self,
        params: Option<&Value>,
        call_key: Option<String>,
    ) -> Result<Prepared, (i64, String)> {
        let invalid = |message: String| (codes::INVALID_PARAMS, message);
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
                crate::tools::common::snippet(name),
                names.join(", ")
            ))
        })?;
        let mut arguments = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(arguments)) => {
                // The caps first: before normalisation, the cache key and any of the tool's work.
                if let Err(refusal) = tool.check_arguments(arguments) {
                    return self
                        .answer(tool.name, Ok(Err(refusal)), 0, None)
                        .map(Prepared::Answered);
                }
                arguments.clone()
            }
            Some(_) => {
                return Err(invalid(format!(
                    "tools/call arguments for `{name}` must be an object"
                )));
            }
        };
        let lang = match arguments.remove("lang") {
            Some(Value::String(lang)) => Lang::parse_or_default(&lang),
            _ => Lang::default(),
        };
        self.plugin.normalize_arguments(&mut arguments);
        let arguments = Value::Object(arguments);
        // serde_json maps are ordered by key, so equal arguments give equal keys.
        let key = format!("{name}\0{lang:?}\0{arguments}");
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, result)) = cache.get(&key) {
            if let Some(call_key) = call_key {
                cache.put(call_key, tool.name, result.clone());
            }
            drop(cache);
            tracing::info!(tool = name, outcome = "cached", "tools/call");
            super::metrics::record_call(tool.name, "cached", None);
            return Ok(Prepared::Answered(result));
        }
        drop(cache);
        Ok(Prepared::Run(ToolCall {
            tool: tool.name,
            arguments,
            lang,
            key,
            raw_key: call_key,
        }))
    }

    /// Prepares a body without running any tool (argument caps, normalisation, the cache and every
    /// other method are done here, quickly): [`Step::Done`] with the reply, or, for one message that
    /// is an uncached `tools/call`, [`Step::Call`] for the caller to run ([`McpServer::run_call`],
    /// blocking, wherever it likes, e.g. tokio's blocking pool under its own timeout) and finish
    /// ([`McpServer::finish_call`]). A well-formed batch is [`Step::Batch`], left to the caller.
    ///
    /// `raw` is the text `body` was parsed from: ids are echoed exactly and a result is filed under the
    /// params' text as well ([`McpServer::repeat`]).
    pub fn prepare(&self, body: &Value, raw: &[u8]) -> Step {
        match BodyShape::of(body) {
            BodyShape::Single => {}
            BodyShape::Batch(_) => return Step::Batch,
            BodyShape::EmptyBatch | BodyShape::OversizedBatch(_) => {
                return Step::Done(self.handle_body(body));
            }
        }
        let mut pending = None;
        match self.classify_and_run(
            body,
            Some(RawMessage::read(raw, self.caching)),
            Some(&mut pending),
        ) {
            Some((Response::Result { id, result }, _)) => {
                Step::Done(Reply::Result(ResultParts::new(&id, result)))
            }
            Some((response, unreadable)) => Step::Done(Reply::One {
                response: response.into_string(),
                unreadable,
            }),
            None => match pending {
                Some(call) => Step::Call(call),
                None => Step::Done(Reply::Nothing),
            },
        }
    }

    /// Runs a prepared call's tool on the calling thread, inside `catch_unwind` (blocking).
    pub fn run_call(plugin: &Plugin, job: CallJob) -> CallOutcome {
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let tool = plugin
                .tool(job.tool)
                .expect("the tool was found by its name");
            tool.call(plugin.corpus(), job.arguments, job.lang)
        }));
        CallOutcome {
            outcome,
            elapsed_us: started.elapsed().as_micros() as u64,
        }
    }

    /// The reply to a prepared call: its outcome (cached when a result), or `-32603` naming the
    /// deadline when `outcome` is `None` (the caller stopped waiting at [`McpServer::call_deadline`]).
    pub fn finish_call(&self, ticket: CallTicket, outcome: Option<CallOutcome>) -> Reply {
        let answered = match outcome {
            Some(CallOutcome {
                outcome,
                elapsed_us,
            }) => self.answer(
                ticket.tool,
                outcome,
                elapsed_us,
                Some((ticket.key, ticket.raw_key)),
            ),
            None => {
                tracing::error!(tool = ticket.tool, "tools/call exceeded its deadline");
                super::metrics::record_call(ticket.tool, "deadline", None);
                Err(self.deadline_error(ticket.tool))
            }
        };
        match answered {
            Ok(result) if ticket.modern => Reply::Result(ResultParts::new(
                &ticket.id,
                Bytes::from(modern::with_fields(
                    &result,
                    &modern::result_fields("tools/call"),
                )),
            )),
            Ok(result) => Reply::Result(ResultParts::new(&ticket.id, result)),
            Err((code, message)) => Reply::One {
                response: Response::Error {
                    id: ticket.id,
                    code,
                    message,
                    data: None,
                }
                .into_string(),
                unreadable: false,
            },
        }
    }

    /// How long a tool call may run.
    pub fn call_deadline(&self) -> Duration {
        self.call_deadline
    }

    fn deadline_error(&self, tool: &str) -> (i64, String) {
        (
            codes::INTERNAL_ERROR,
            format!(
                "tool `{tool}` exceeded its {} s deadline",
                self.call_deadline.as_secs_f64()
            ),
        )
    }

    /// Runs the tool `tool` on a worker inside `catch_unwind`, waiting at most the call deadline.
    ///
    /// # Errors
    /// `-32603` naming the tool and the deadline, when it passes first.
    fn run(
        &self,
        tool: &'static str,
        arguments: Value,
        lang: Lang,
    ) -> Result<Outcome, (i64, String)> {
        let started = Instant::now();
        let (sender, receiver) = mpsc::sync_channel::<Outcome>(1);
        let plugin = self.plugin.clone();
        self.workers.execute(move || {
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let tool = plugin.tool(tool).expect("the tool was found by its name");
                tool.call(plugin.corpus(), arguments, lang)
            }));
            // Past the deadline nobody waits for the outcome any more: it is dropped.
            let _ = sender.send(outcome);
        });
        receiver.recv_timeout(self.call_deadline).map_err(|_| {
            let elapsed_us = started.elapsed().as_micros() as u64;
            tracing::error!(tool, elapsed_us, "tools/call exceeded its deadline");
            super::metrics::record_call(tool, "deadline", None);
            self.deadline_error(tool)
        })
    }

    /// The `tools/call` answer to a tool's outcome, cached under `keys` (the normalised key and, when
    /// known, the params' text key) when it is a result.
    fn answer(
        &self,
        name: &'static str,
        outcome: Outcome,
        elapsed_us: u64,
        keys: Option<(String, Option<String>)>,
    ) -> Result<Bytes, (i64, String)> {
        let result: Bytes = match outcome {
            Ok(Ok(output)) => {
                tracing::info!(tool = name, elapsed_us, outcome = "ok", "tools/call");
                super::metrics::record_call(name, "ok", Some(elapsed_us));
                call_result(
                    &output.payload,
                    output.display.as_deref(),
                    output.user_message.as_deref(),
                    &output.resource_links,
                    false,
                )
            }
            Ok(Err(ToolError::Invalid(message))) => {
                tracing::info!(
                    tool = name,
                    elapsed_us,
                    outcome = "tool_error",
                    "tools/call"
                );
                super::metrics::record_call(name, "tool_error", Some(elapsed_us));
                let payload = json!({"result": {"error": message}, "citations": {"sources": {}, "indicators": {}, "series": {}}})
                    .to_string();
                call_result(&payload, None, None, &[], true)
            }
            Ok(Err(ToolError::Internal(detail))) => {
                tracing::error!(tool = name, elapsed_us, detail, "tools/call failed");
                super::metrics::record_call(name, "internal", Some(elapsed_us));
                return Err((
                    codes::INTERNAL_ERROR,
                    format!("internal error in tool `{name}`"),
                ));
            }
            Err(_) => {
                tracing::error!(tool = name, elapsed_us, "tools/call panicked");
                super::metrics::record_call(name, "internal", Some(elapsed_us));
                return Err((
                    codes::INTERNAL_ERROR,
                    format!("internal error in tool `{name}`"),
                ));
            }
        };
        if let Some((key, raw_key)) = keys.filter(|_| self.caching) {
            let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            cache.put(key, name, result.clone());
            if let Some(raw_key) = raw_key {
                cache.put(raw_key, name, result.clone());
            }
        }
        Ok(result)
    }
}

/// A serialized JSON-RPC response: a protocol value, a method's serialized result with its id, or an
/// error bound to an id (ids are serialized JSON: numbers and strings exactly as the request wrote them).
enum Response {
    Value(Value),
    Result {
        id: String,
        result: Bytes,
    },
    Error {
        id: String,
        code: i64,
        message: String,
        data: Option<Value>,
    },
}

impl Response {
    /// The error response of `id` for `error`.
    fn error(id: String, error: RpcError) -> Response {
        Response::Error {
            id,
            code: error.code,
            message: error.message,
            data: error.data,
        }
    }

    fn into_string(self) -> String {
        match self {
            Response::Value(value) => value.to_string(),
            Response::Error {
                id,
                code,
                message,
                data: None,
            } => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{}}}}}"#,
                Value::String(message)
            ),
            Response::Error {
                id,
                code,
                message,
                data: Some(data),
            } => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{},"data":{data}}}}}"#,
                Value::String(message)
            ),
            Response::Result { id, result } => {
                let mut response = String::with_capacity(result.len() + id.len() + 40);
                response.push_str(r#"{"jsonrpc":"2.0","id":"#);
                response.push_str(&id);
                response.push_str(r#","result":"#);
                response.push_str(utf8(&result));
                response.push('}');
                response
            }
        }
    }
}

/// The answer to a `resources/read` inside a batch: refused (`-32600`), because one read inlines up to
/// 2 MiB and a batch would multiply that by twenty for one message of the rate limit; `None` for any
/// other message.
fn refused_in_batch(message: &Value, raw: Option<&[u8]>) -> Option<String> {
    if message.get("method").and_then(Value::as_str) != Some("resources/read") {
        return None;
    }
    let id = message
        .get("id")
        .filter(|id| id.is_string() || id.is_number())?;
    let id = raw
        .and_then(|raw| RawMessage::read(raw, false).id.map(str::to_string))
        .unwrap_or_else(|| id.to_string());
    Some(
        Response::Error {
            id,
            code: codes::INVALID_REQUEST,
            message:
                "resources/read must be sent alone, not in a batch (each read inlines up to 2 MiB)"
                    .into(),
            data: None,
        }
        .into_string(),
    )
}

/// A serialized result as text (every one is built from text).
fn utf8(serialized: &Bytes) -> &str {
    std::str::from_utf8(serialized).expect("a serialized result is UTF-8")
}

/// The serialized `tools/call` result: the payload `{"result", "citations"}` as the text block and as
/// `structuredContent` (what hosts hand the model); the short message for the person, when there is one,
/// as a second text block annotated `audience: ["user"]`; a `resource_link` item per indicator file the
/// answer rests on ([`crate::tools::ToolOutput::resource_links`]); and the display object, when there is one,
/// under `_meta` ([`crate::tools::answer::DISPLAY_META_KEY`]), which hosts keep out of the model's context.
fn call_result(
    payload: &str,
    display: Option<&str>,
    user_message: Option<&str>,
    resource_links: &[String],
    is_error: bool,
) -> Bytes {
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
    serde_json::to_writer(&mut result, payload).expect("strings serialize");
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
        serde_json::to_writer(&mut result, crate::tools::answer::DISPLAY_META_KEY)
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

/// What the text of one message tells beyond its parsed value: the exact text of its `id`, and the
/// cache key of its `params` text when it reads as a `tools/call` ([`CallEnvelope`]).
#[derive(Debug, Default)]
struct RawMessage<'a> {
    id: Option<&'a str>,
    call_key: Option<String>,
}

impl<'a> RawMessage<'a> {
    /// Reads `raw` (one message's JSON text); what does not read (not one object, a duplicated field,
    /// an escaped method name) is simply unknown, and the parsed value decides.
    fn read(raw: &'a [u8], caching: bool) -> RawMessage<'a> {
        #[derive(Deserialize)]
        struct IdText<'a> {
            #[serde(borrow, default)]
            id: Option<&'a RawValue>,
        }
        match CallEnvelope::read(raw).filter(|_| caching) {
            Some(envelope) => RawMessage {
                id: Some(envelope.id.get()),
                call_key: Some(envelope.key()),
            },
            None => RawMessage {
                id: serde_json::from_slice::<IdText>(raw)
                    .ok()
                    .and_then(|text| text.id)
                    .map(RawValue::get),
                call_key: None,
            },
        }
    }
}

/// A `tools/call` message read without building its value: every field borrowed from the text, and no
/// other field (anything else, which the full path would have to read, sends the body there).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallEnvelope<'a> {
    jsonrpc: &'a str,
    #[serde(borrow)]
    id: &'a RawValue,
    method: &'a str,
    #[serde(borrow)]
    params: &'a RawValue,
}

impl<'a> CallEnvelope<'a> {
    /// `raw` as a `tools/call` request object with `jsonrpc: "2.0"` and a string or number id, if it is
    /// one that the full path reads the same way.
    fn read(raw: &'a [u8]) -> Option<CallEnvelope<'a>> {
        // An object, not the positional array serde would also accept for a struct.
        if raw.iter().find(|byte| !byte.is_ascii_whitespace()) != Some(&b'{') {
            return None;
        }
        let envelope: CallEnvelope = serde_json::from_slice(raw).ok()?;
        // A string or a number the full path reads too (`1e400` is JSON but out of range for it, a
        // lone surrogate `"\ud800"` is no string for it: the body is a parse error there, so here).
        let id = envelope.id.get();
        let id_is_valid = match id.as_bytes()[0] {
            b'"' => serde_json::from_str::<String>(id).is_ok(),
            b'-' | b'0'..=b'9' => serde_json::from_str::<serde_json::Number>(id).is_ok(),
            _ => false,
        };
        (envelope.jsonrpc == "2.0" && envelope.method == "tools/call" && id_is_valid)
            .then_some(envelope)
    }

    /// The cache key of these params' exact text.
    fn key(&self) -> String {
        format!("raw\0{}", self.params.get())
    }
}

/// A result response in parts, so that the result (shared with the cache) is never copied on its
/// way out: `head`, `result`, then [`ResultParts::TAIL`].
#[derive(Debug, Clone, PartialEq)]
pub struct ResultParts {
    /// `{"jsonrpc":"2.0","id":<the request's id text>,"result":`.
    pub head: String,
    /// The serialized result.
    pub result: Bytes,
}

impl ResultParts {
    /// The last bytes of the response.
    pub const TAIL: &'static str = "}";

    fn new(id: &str, result: Bytes) -> ResultParts {
        let mut head = String::with_capacity(id.len() + 32);
        head.push_str(r#"{"jsonrpc":"2.0","id":"#);
        head.push_str(id);
        head.push_str(r#","result":"#);
        ResultParts { head, result }
    }

    /// The whole response as one string (copies the result).
    pub fn into_string(self) -> String {
        let mut response = self.head;
        response.reserve(self.result.len() + 1);
        response.push_str(utf8(&self.result));
        response.push_str(ResultParts::TAIL);
        response
    }
}

impl McpServer {
    /// The answer to a body that is one `tools/call` whose params have the exact text of one answered
    /// before (the result is filed under that text by [`McpServer::prepare`] and
    /// [`McpServer::handle_text`]), read without parsing the body into a value, normalising its
    /// arguments or copying the result; `None` for anything else, which then takes the full path. The
    /// answer is the one the full path would give: results depend only on the corpus and the params.
    pub fn repeat(&self, raw: &[u8]) -> Option<ResultParts> {
        if !self.caching {
            return None;
        }
        let envelope = CallEnvelope::read(raw)?;
        let key = envelope.key();
        let (tool, result) = self
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)?;
        tracing::info!(tool, outcome = "cached", "tools/call");
        super::metrics::record_call(tool, "cached", None);
        Some(ResultParts::new(envelope.id.get(), result))
    }
}

/// Whether `body` is, or is a batch holding, an `initialize` request (which ignores the
/// `MCP-Protocol-Version` header: the version is not negotiated yet).
pub fn is_initialize(body: &Value) -> bool {
    let is_initialize =
        |message: &Value| message.get("method").and_then(Value::as_str) == Some("initialize");
    match body {
        Value::Array(messages) => messages.iter().any(is_initialize),
        message => is_initialize(message),
    }
}

/// A JSON-RPC error response.
pub fn error_response(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// Adds the optional `lang` argument (`es`, `en`, `pt`; default `es`) to an input schema.
fn with_lang(mut schema: Value) -> Value {
    if let Some(object) = schema.as_object_mut() {
        object.insert("type".into(), json!("object"));
        let properties = object.entry("properties").or_insert_with(|| json!({}));
        if let Some(properties) = properties.as_object_mut() {
            let mut lang = json!({"type": "string", "enum": ["es", "en", "pt"], "default": "es",
                       "description": "Language of names and of prose for the person (event texts, asks); notes stay in English; numbers and ids do not change."});
            limits::cap_string(&mut lang, limits::ArgumentKind::of("lang"));
            properties.insert("lang".into(), lang);
        }
    }
    schema
}

fn instructions(plugin: &Plugin) -> String {
    let baked = &plugin.corpus().baked;
    let tools: Vec<&str> = plugin
        .tools()
        .iter()
        .filter(|tool| !tool.app_only)
        .map(|tool| tool.name)
        .collect();
    format!(
        "Read-only access to a governed corpus of public data on Latin America and the Caribbean (corpus {version}: \
         {indicators} indicators from {sources} sources; {with_data} of the {countries} LAC countries and territories have data). Flow: (1) call resolve_metric with the metric \
         in words (Spanish, English or Portuguese) to get an indicator id; (2) call get_series for a country-year panel or \
         compare_countries for a pillar across countries; (3) call resolve_citations to turn any stored citation_id into \
         its source and value. Records: find_pilots and get_pilot read World Bank projects, recommend_action chains a \
         country's gaps to projects, financing and institutions, get_news lists dated events (approvals, laws, \
         earthquakes, releases; not press news), and search_corpus then get_dataset find laws (`regulation`), \
         donors' flows (`financing`), public bodies (`institutions`) and events; a record is its own citation \
         (`citations.records`). Citations: every stored number in `result` carries its `citation_id` (wb-sp-dyn-le00-in-mex-2024) or \
         is a [year, value] point of an object with a `series_id` (wb-sp-dyn-le00-in-mex), whose citation_id is `{{series_id}}-{{year}}`. \
         `citations.series[series_id]` gives country and deep link, `citations.indicators[its indicator]` code, title and unit, \
         `citations.sources[its source]` publisher, dataset, licence, vintage, attribution and link_kind (`dataset`: the url is the \
         dataset's page, not a deep link): each appears once per answer. Cite \
         the source and link when you use a number. Derived numbers (changes, regional values, correlations) carry an inline \
         calc-… or pulse-… record naming their input ids. Answers are paged to stay under 40 KB: `next_cursor` or `next_offset` \
         gives the next page, `indicators_total` or `total` what exists. Tables and charts for the person travel outside your \
         context. If the corpus lacks a value, the tools say so (countries under `missing`, `matched: false` from resolve_metric, \
         or an error naming what is valid); never fill in or invent a number. Countries are ISO3 codes or names (\"Brasil\", \
         \"México\"); pillars (parameter) are {pillars}. Add lang: es|en|pt for names in that language. Tools: {tool_list}.",
        version = baked.manifest().corpus_version,
        indicators = baked.metrics().len(),
        sources = baked.sources().len(),
        countries = baked.countries().countries().count(),
        with_data = countries_with_data(baked),
        pillars = baked
            .pillars()
            .pillars()
            .iter()
            .map(|pillar| pillar.id.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        tool_list = tools.join(", "),
    )
}

/// Countries with at least one observation.
fn countries_with_data(baked: &corpus::BakedCorpus) -> usize {
    baked
        .countries()
        .countries()
        .filter(|country| country.observations > 0)
        .count()
}
