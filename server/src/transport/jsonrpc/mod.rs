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
//!
//! Here: [`McpServer`], message classification, the method dispatch and the lifecycle (`initialize`,
//! `ping`, `tools/list`, `server/discover` and 2026-07-28's answers). Beside it, one idea a file:
//! `batch` (body shapes, batches in order), `calls` (the one `tools/call` path of every transport),
//! `result_cache` (results by call key, bounded by bytes), `raw_message` (what a message's text tells
//! unparsed, and [`McpServer::repeat`]), `reply` (what goes back); errors and their codes are
//! [`super::rpc_error`]'s. Tools are reached through the plugin interface only ([`crate::tools`]).

mod batch;
mod calls;
mod raw_message;
mod reply;
mod result_cache;

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use bytes::Bytes;
use serde_json::{Value, json};

pub use self::{
    batch::BodyShape,
    calls::{CallJob, CallOutcome, CallTicket, OverdueTicket, PendingCall},
    raw_message::ModernHeaders,
    reply::{Reply, ResultParts},
};
use self::{calls::Prepared, raw_message::RawMessage, reply::Response, result_cache::ResultCache};
use super::{
    apps::ClientFeatures,
    modern,
    rpc_error::{RpcError, codes, error_response},
    workers::Workers,
};
use crate::tools::{Plugin, ToolSpec};

/// The most characters of a client-given method name or id a log line carries.
const LOGGED_CHARS: usize = 64;

/// Protocol versions this server speaks, newest first. An `initialize` offering another version gets the
/// newest as a counter-offer.
pub const SUPPORTED_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];
/// The most messages one batch may hold.
pub const MAX_BATCH: usize = 20;

/// The server's identity in `initialize`.
pub const SERVER_NAME: &str = "lac-corpus";
/// Human title in `initialize`.
pub const SERVER_TITLE: &str = "LAC governed-data corpus";

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
/// ([`ToolSpec::check_arguments`], once per call). An uncached call runs on a worker thread ([`Workers`])
/// and is waited for until the call deadline; past it the message gets `-32603` and the server goes on
/// serving (the tool's thread finishes on its own and its answer is dropped).
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

impl McpServer {
    /// A server over `plugin`.
    pub fn new(plugin: Plugin) -> McpServer {
        let listed: Vec<(&ToolSpec, Value)> = plugin
            .tools()
            .iter()
            .map(|tool| {
                let listed = json!({
                    "name": tool.name,
                    "title": tool.title,
                    "description": tool.description,
                    "inputSchema": tool.input_schema,
                    "outputSchema": tool.output_schema,
                    // `idempotentHint` means something only for a tool that is not read-only (MCP spec).
                    "annotations": {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false},
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
                super::apps::decorate_tool(&mut listed, tool);
                listed
            })
            .collect();
        let instructions = plugin.instructions();
        McpServer {
            tools_list: Bytes::from(json!({ "tools": model_tools }).to_string()),
            tools_list_apps: Bytes::from(json!({ "tools": apps_tools }).to_string()),
            client: ClientFeatures::default(),
            plugin: Arc::new(plugin),
            instructions,
            cache: Arc::new(Mutex::new(ResultCache::with_budget(DEFAULT_CACHE_BYTES))),
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

    /// The threads tool calls run on when the caller stops waiting at a deadline (stdio, batches, and
    /// HTTP's dearer calls): an elastic pool of their own.
    pub fn call_threads(&self) -> &Arc<Workers> {
        &self.workers
    }

    /// The same server with a response cache of `bytes` (0 turns caching off).
    pub fn with_cache_budget(mut self, bytes: usize) -> McpServer {
        self.cache = Arc::new(Mutex::new(ResultCache::with_budget(bytes)));
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
                Response::error(
                    id,
                    RpcError::new(
                        codes::INVALID_REQUEST,
                        "invalid request: jsonrpc must be \"2.0\"".into(),
                    ),
                ),
                true,
            ));
        }
        let Some(method) = method else {
            return Some((
                Response::error(
                    id,
                    RpcError::new(
                        codes::INVALID_REQUEST,
                        "invalid request: method must be a string".into(),
                    ),
                ),
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
                .answer_modern(id, method, params, run, call_key);
        }
        if let Some(run) = run
            && method == "tools/call"
        {
            return self.prepared_call(id, params, call_key, run, false);
        }
        // The method and id are the client's text: each is logged up to 64 characters.
        let span = tracing::info_span!(
            "message",
            method = %crate::text::snippet_chars(method, LOGGED_CHARS),
            id = %crate::text::snippet_chars(&id.to_string(), LOGGED_CHARS)
        );
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
        // A modern call's key is filed here, with the modern shape, not by `prepare_call`.
        let (legacy_key, modern_key) = if modern {
            (None, call_key)
        } else {
            (call_key, None)
        };
        let response = match self.prepare_call(params, legacy_key) {
            Ok(Prepared::Answered(result, cached)) => Response::Result {
                id,
                result: if modern {
                    let shaped = Bytes::from(modern::with_fields(
                        &result,
                        &modern::result_fields("tools/call"),
                    ));
                    if let (Some(key), Some(tool)) = (modern_key, cached) {
                        self.file(key, tool, shaped.clone());
                    }
                    shaped
                } else {
                    result
                },
            },
            Ok(Prepared::Run(job, mut keys)) => {
                if modern {
                    keys.raw_key = modern_key;
                }
                *run = Some(PendingCall {
                    job,
                    ticket: CallTicket { id, modern, keys },
                });
                return None;
            }
            Err(error) => Response::error(id, error),
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
        call_key: Option<String>,
    ) -> Option<(Response, bool)> {
        if let Some(run) = run
            && method == "tools/call"
        {
            // Its result is filed under its params' text, version and tool in the modern shape, for
            // [`McpServer::repeat_modern`].
            let mirrored = params.and_then(|params| {
                Some((
                    params
                        .get("_meta")?
                        .get("io.modelcontextprotocol/protocolVersion")?
                        .as_str()?,
                    params.get("name")?.as_str()?,
                ))
            });
            let modern_key = call_key
                .zip(mirrored)
                .map(|(key, (version, name))| raw_message::modern_key(&key, version, name));
            return self.prepared_call(id, params, modern_key, run, true);
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
                            "method not found: `{}`; methods of 2026-07-28 here: server/discover, tools/list, tools/call, prompts/list, prompts/get, resources/list, resources/templates/list, resources/read",
                            crate::text::snippet(method)
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
                if error.code == codes::RESOURCE_NOT_FOUND {
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
        let mut capabilities = json!({"tools": {"listChanged": false}, "prompts": {"listChanged": false}, "resources": {"listChanged": false}});
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

    /// Runs one method (a `tools/call` to its end, [`McpServer::call_tool`]): its serialized `result`.
    ///
    /// # Errors
    /// The method's protocol error; `-32601` for a method this server does not have.
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
            "tools/call" => self.call_tool(params, call_key),
            "resources/list" => {
                super::resources::list(corpus(), params, self.client).map(serialized)
            }
            "resources/templates/list" => Ok(serialized(super::resources::templates())),
            "resources/read" => super::resources::read(corpus(), params).map(serialized),
            "prompts/list" => Ok(serialized(self.plugin.prompts())),
            "prompts/get" => self.get_prompt(params).map(serialized),
            other => Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!(
                    "method not found: `{}`; methods: initialize, ping, tools/list, tools/call, prompts/list, prompts/get, resources/list, resources/templates/list, resources/read (and, in 2026-07-28, server/discover)",
                    crate::text::snippet(other)
                ),
            )),
        }
    }

    /// `prompts/get`: the prompt `params.name` with `params.arguments` (strings).
    ///
    /// # Errors
    /// `-32602` naming a missing name, an unknown prompt or a bad argument and what is valid.
    fn get_prompt(&self, params: Option<&Value>) -> Result<Value, RpcError> {
        let name = params
            .and_then(|params| params.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RpcError::new(
                    codes::INVALID_PARAMS,
                    "prompts/get needs params.name, a prompt name from prompts/list".into(),
                )
            })?;
        let empty = serde_json::Map::new();
        let arguments = match params.and_then(|params| params.get("arguments")) {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(arguments)) => arguments,
            Some(_) => {
                return Err(RpcError::new(
                    codes::INVALID_PARAMS,
                    "prompts/get: params.arguments must be an object of strings".into(),
                ));
            }
        };
        self.plugin
            .prompt(name, arguments)
            .map_err(|error| RpcError::new(codes::INVALID_PARAMS, error.to_string()))
    }

    fn initialize(&self, params: Option<&Value>) -> Value {
        let offered = params
            .and_then(|params| params.get("protocolVersion"))
            .and_then(Value::as_str);
        let version = offered
            .filter(|offered| SUPPORTED_VERSIONS.contains(offered))
            .unwrap_or(SUPPORTED_VERSIONS[0]);
        let mut capabilities = json!({"tools": {"listChanged": false}, "prompts": {"listChanged": false}, "resources": {"listChanged": false, "subscribe": false}});
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
