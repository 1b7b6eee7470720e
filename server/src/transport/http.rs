//! Streamable HTTP: `POST /api/mcp` (JSON-RPC, one message or a batch), `OPTIONS` (CORS preflight),
//! `GET /api/mcp?health=1` (probe); plain `GET` is 405.
//!
//! Order of checks on a POST, each before the next: the `MCP_ENABLED` gate (403), the 256 KB body cap
//! counted on the streamed bytes (413), parsing (400 `-32700`), the batch cap (400 `-32600`, nothing
//! charged), the `MCP-Protocol-Version` header (400), the rate limit (429, one unit per message), then
//! the messages run in order. Nothing here ever answers 500: a tool failure is a JSON-RPC `-32603`.

use std::{
    future::Future,
    net::IpAddr,
    sync::Arc,
    task::Poll,
    time::{Duration, Instant},
};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::{Query, Request, State},
    http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::post,
};
use serde_json::{Value, json};

pub use super::http_service::{HttpService, service};
pub use super::http_state::{HttpConfig, HttpState};
use super::{
    apps::ClientFeatures,
    chunks::Chunks,
    guard::{self, OriginPolicy},
    in_flight::{self, Busy},
    jsonrpc::{self, BodyShape, MAX_BATCH, McpServer, PendingCall, Reply, ResultParts, Step},
    modern,
    rate_limit::Charge,
    rpc_error::{RpcError, codes, error_response},
};

/// Header names read on every MCP POST, parsed once.
const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
pub(super) const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The largest body accepted, in bytes (256 KB).
pub const MAX_BODY_BYTES: usize = 256 * 1024;
/// How long a client may take to send its body before the request is dropped with 408.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// The most characters of a request's method the request log line carries (then `…`).
const LOGGED_METHOD_CHARS: usize = 32;
/// The most characters of a request's path the request log line carries (then `…`).
const LOGGED_PATH_CHARS: usize = 256;

/// The router: `/api/mcp` (and `/api/mcp/`) with CORS headers on every response.
pub fn router(state: Arc<HttpState>) -> Router {
    Router::new()
        .route("/api/mcp", post(post_mcp).get(get_mcp).options(preflight))
        .route("/api/mcp/", post(post_mcp).get(get_mcp).options(preflight))
        .route(
            "/",
            axum::routing::get(super::downloads::get_page)
                .fallback(super::downloads::method_not_allowed),
        )
        .route(
            "/chart/{indicator}",
            axum::routing::get(super::downloads::get_chart_page)
                .fallback(super::downloads::method_not_allowed),
        )
        .route(
            "/chart/answer/{version}/{tool}",
            axum::routing::get(super::downloads::get_answer_chart_page)
                .fallback(super::downloads::method_not_allowed),
        )
        .route(
            "/assets/{name}",
            axum::routing::get(super::downloads::get_asset)
                .fallback(super::downloads::method_not_allowed),
        )
        .route(
            "/metrics",
            axum::routing::get(get_metrics).fallback(super::downloads::method_not_allowed),
        )
        .route("/api/v1", catalog_route())
        .route("/api/v1/", catalog_route())
        .route("/api/v1/catalog", catalog_route())
        .route(
            "/api/v1/citations/{id}",
            axum::routing::get(super::citations::get_citation)
                .options(super::downloads::preflight)
                .fallback(super::downloads::method_not_allowed),
        )
        .route(
            "/api/v1/{*path}",
            axum::routing::get(super::downloads::get_file)
                .options(super::downloads::preflight)
                .fallback(super::downloads::method_not_allowed),
        )
        .fallback(super::downloads::unknown_path)
        .method_not_allowed_fallback(method_not_allowed)
        // Text answers compressed for a client that accepts gzip ([`compressible`]); the layer outside
        // makes their strong ETags weak (the compressed bytes are another representation).
        .layer(
            tower_http::compression::CompressionLayer::new()
                .gzip(true)
                .compress_when(tower_http::compression::Predicate::and(
                    tower_http::compression::predicate::SizeAbove::new(COMPRESS_ABOVE_BYTES),
                    compressible,
                )),
        )
        // Outermost (one layer, for speed): every response, errors included, carries its request id
        // and says which origin may read it.
        .layer(middleware::from_fn_with_state(
            state.clone(),
            request_id_and_cors,
        ))
        .with_state(state)
}

/// The smallest body compressed, in bytes: below it gzip's header and a thread's work cost more than
/// the bytes saved.
pub const COMPRESS_ABOVE_BYTES: u16 = 1024;

/// Whether a response is compressed for a client that accepts gzip: HTML, JSON (MCP answers, the
/// catalog, JSON-LD, Data Packages), CSV, XML (SDMX) and JavaScript, never a partial (206, or with
/// `Content-Range`: a range reader wants the file's own bytes) nor one already encoded (the
/// precompressed chart script, `.gz` files) nor an SSE stream; Parquet, XLSX and zip are compressed
/// already.
fn compressible(
    status: StatusCode,
    _: axum::http::Version,
    headers: &HeaderMap,
    _: &axum::http::Extensions,
) -> bool {
    if status == StatusCode::PARTIAL_CONTENT
        || headers.contains_key(header::CONTENT_RANGE)
        || headers.contains_key(header::CONTENT_ENCODING)
    {
        return false;
    }
    // A header value that is text is visible ASCII: its bytes are compared without case.
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    let media_type = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .as_bytes();
    let ends_with = |suffix: &str| {
        media_type.len() >= suffix.len()
            && media_type[media_type.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
    };
    let openmetrics = b"application/openmetrics-text";
    [
        "text/html",
        "text/csv",
        "text/plain",
        "text/javascript",
        "application/xml",
        "text/xml",
    ]
    .iter()
    .any(|name| media_type.eq_ignore_ascii_case(name.as_bytes()))
        || ends_with("json")
        || ends_with("+xml")
        || (media_type.len() >= openmetrics.len()
            && media_type[..openmetrics.len()].eq_ignore_ascii_case(openmetrics))
}

/// A response sent encoded (`Content-Encoding`) keeps its validator only as a weak one (`W/"…"`): the
/// bytes differ from the unencoded representation's (RFC 9110 §8.8.1). A revalidation with either form
/// still answers 304.
fn weak_etag_when_encoded(headers: &mut HeaderMap) {
    if headers.contains_key(header::CONTENT_ENCODING)
        && let Some(tag) = headers
            .get(header::ETAG)
            .and_then(|value| value.to_str().ok())
            .filter(|tag| tag.starts_with('"'))
            .and_then(|tag| HeaderValue::from_str(&format!("W/{tag}")).ok())
    {
        headers.insert(header::ETAG, tag);
    }
}

/// The methods of the downloads catalog: GET (and HEAD), the CORS preflight, 405 otherwise.
fn catalog_route() -> axum::routing::MethodRouter<Arc<HttpState>> {
    axum::routing::get(super::downloads::get_catalog)
        .options(super::downloads::preflight)
        .fallback(super::downloads::method_not_allowed)
}

/// `POST /api/mcp` through the router: [`answer_post`] for the socket peer the listener recorded.
async fn post_mcp(State(state): State<Arc<HttpState>>, request: Request) -> Response {
    let peer = request
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|axum::extract::ConnectInfo(peer)| *peer);
    answer_post(&state, request, peer).await.into_response()
}

/// What [`answer_post`] answers: a response, or a repeated call's cached result (charged already) whose
/// 200 response the lane builds ([`parts_response`], then the router's headers; in the direct lane, for a
/// request without `Origin`, the same headers made once, [`super::http_service`]).
pub(super) enum PostAnswer {
    Response(Response),
    Repeat(ResultParts),
}

impl PostAnswer {
    /// The response, a repeat's built by [`parts_response`].
    pub(super) fn into_response(self) -> Response {
        match self {
            PostAnswer::Response(response) => response,
            PostAnswer::Repeat(parts) => parts_response(parts),
        }
    }
}

/// The answer to an MCP POST from the socket peer `peer` (`None` when unknown, as in tests): the gate,
/// body cap, the result cache (a repeat charged one unit), then the rate limit and the call.
pub(super) async fn answer_post<B>(
    state: &Arc<HttpState>,
    request: axum::http::Request<B>,
    peer: Option<std::net::SocketAddr>,
) -> PostAnswer
where
    B: http_body::Body<Data = Bytes> + Unpin,
{
    let admitted = match admit(state, request, peer).await {
        Ok(admitted) => admitted,
        Err(refusal) => return PostAnswer::Response(refusal),
    };
    // A repeated `tools/call` (its params' exact text answered before) is answered from the cache
    // without parsing the body into a value or copying the result.
    // A 2026-07-28 one is answered so only when its headers mirror its body exactly.
    let repeat = if admitted.mirrored.is_modern() {
        state.server_now().repeat_modern(
            &admitted.bytes,
            jsonrpc::ModernHeaders {
                version: admitted.mirrored.version.as_deref(),
                method: admitted.mirrored.method.as_deref(),
                name: admitted.mirrored.name.as_deref(),
            },
        )
    } else {
        admitted
            .unsupported_version
            .is_none()
            .then(|| state.server_now().repeat(&admitted.bytes))
            .flatten()
    };
    if let Some(repeat) = repeat {
        return match charge(state, admitted.client, 1).await {
            Some(refusal) => PostAnswer::Response(refusal),
            None => PostAnswer::Repeat(repeat),
        };
    }
    // Boxed: its future is large (a tool call's state), and a repeat should not carry its room.
    PostAnswer::Response(Box::pin(answer_message(state, admitted)).await)
}

/// A POST past the gate and the body cap, its body read: what the rest of its answer needs.
struct Admitted {
    client: Option<IpAddr>,
    unsupported_version: Option<String>,
    mirrored: MirroredHeaders,
    session_features: ClientFeatures,
    bytes: Bytes,
}

/// The gate (`MCP_ENABLED`, origin and host, JSON content type), the body cap and the reading of the
/// body; the refusal when one of them refuses.
async fn admit<B>(
    state: &Arc<HttpState>,
    request: axum::http::Request<B>,
    peer: Option<std::net::SocketAddr>,
) -> Result<Admitted, Response>
where
    B: http_body::Body<Data = Bytes> + Unpin,
{
    if !state.config.enabled {
        return Err((
            StatusCode::FORBIDDEN,
            axum::Json(json!({"error": "mcp_disabled"})),
        )
            .into_response());
    }
    if let Some(message) = guard::refusal(
        request.headers(),
        &state.config.origins,
        state.config.check_host,
    ) {
        return Err(json_response(
            StatusCode::FORBIDDEN,
            &error_response(Value::Null, codes::INVALID_REQUEST, &message, None),
        ));
    }
    if !guard::is_json(request.headers()) {
        let message = "a POST to /api/mcp must be Content-Type: application/json";
        return Err(json_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            &error_response(Value::Null, codes::INVALID_REQUEST, message, None),
        ));
    }
    let too_large = || {
        let message = format!("request body above {MAX_BODY_BYTES} bytes");
        json_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            &error_response(Value::Null, codes::PARSE_ERROR, &message, None),
        )
    };
    // A declared length above the cap is refused at once; an acceptable one is not trusted either: the
    // cap is counted on the bytes actually streamed.
    let declared_length = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<u64>().ok());
    if declared_length.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        return Err(too_large());
    }
    let client = state.client_of_peer(request.headers(), peer);
    let unsupported_version = unsupported_version(request.headers());
    let mirrored = MirroredHeaders::of(request.headers());
    let session_features = ClientFeatures::of_session_id(
        request
            .headers()
            .get(&MCP_SESSION_ID)
            .and_then(|value| value.to_str().ok()),
    );
    // A body that has already arrived (nearly every one) is read without arming a timer: a timer per
    // request costs the runtime a thread wake-up. One still on its way gets BODY_TIMEOUT.
    let mut reading = std::pin::pin!(read_body(request.into_body(), MAX_BODY_BYTES));
    let first_poll =
        std::future::poll_fn(|context| Poll::Ready(reading.as_mut().poll(context))).await;
    let read = match first_poll {
        Poll::Ready(read) => Ok(read),
        // Boxed, as every rare path here: a timer is large, and a body read at once should not carry it.
        Poll::Pending => Box::pin(tokio::time::timeout(BODY_TIMEOUT, reading)).await,
    };
    let bytes = match read {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(BodyError::TooLarge)) => return Err(too_large()),
        Ok(Err(BodyError::Unreadable)) => {
            return Err(json_response(
                StatusCode::BAD_REQUEST,
                &error_response(
                    Value::Null,
                    codes::PARSE_ERROR,
                    "could not read the request body",
                    None,
                ),
            ));
        }
        Err(_) => {
            let message = format!(
                "request body not received within {} s",
                BODY_TIMEOUT.as_secs()
            );
            return Err(json_response(
                StatusCode::REQUEST_TIMEOUT,
                &error_response(Value::Null, codes::PARSE_ERROR, &message, None),
            ));
        }
    };
    Ok(Admitted {
        client,
        unsupported_version,
        mirrored,
        session_features,
        bytes,
    })
}

/// The answer to an admitted POST that is no repeat: parsed, checked against its headers, charged,
/// then its message (or batch) handled, a tool call on the call threads or in place.
async fn answer_message(state: &Arc<HttpState>, admitted: Admitted) -> Response {
    let Admitted {
        client,
        unsupported_version,
        mirrored,
        session_features,
        bytes,
    } = admitted;
    let body = match parse(&bytes) {
        Ok(body) => body,
        Err(response) => return *response,
    };
    let shape = BodyShape::of(&body);
    // A 2026-07-28 request is one message whose headers mirror its body; it keeps no session.
    let is_modern = match &body {
        Value::Object(message) => modern::is_modern(message.get("params")),
        _ => false,
    };
    if let Some(version) = unsupported_version
        && !is_modern
        && !jsonrpc::is_initialize(&body)
        && matches!(shape, BodyShape::Single | BodyShape::Batch(_))
    {
        let message = format!(
            "unsupported MCP-Protocol-Version `{version}`; supported: {}",
            modern::ALL_VERSIONS.join(", ")
        );
        return json_response(
            StatusCode::BAD_REQUEST,
            &error_response(Value::Null, codes::INVALID_REQUEST, &message, None),
        );
    }
    if let Some(refusal) = modern_refusal(&body, &bytes, is_modern, &mirrored) {
        return refusal;
    }
    let units = shape.messages() as u32;
    if units > 0
        && let Some(refusal) = charge(state, client, units).await
    {
        return refusal;
    }
    // Everything but running a tool is quick and done here; tools are CPU-bound, so they run on the
    // blocking pool (one hop) under the call deadline, and a slow one never stalls I/O. A batch runs
    // there whole.
    // This request runs to its end on the corpus it starts on, even if another is loaded meanwhile.
    // An `initialize` says what the client negotiated; later requests name it by their session id.
    let initialize_features = ClientFeatures::of_body(&body);
    let features = if is_modern {
        // Its own `_meta` says what it negotiates (read by the core, per message).
        ClientFeatures::default()
    } else {
        initialize_features.unwrap_or(session_features)
    };
    let server = if features == ClientFeatures::default() {
        state.server()
    } else {
        Arc::new(state.server().for_client(features))
    };
    let session_id = initialize_features.and_then(ClientFeatures::session_id);
    let step = server.prepare(&body, &bytes);
    // A call or batch that will run takes a slot of the cap on calls in flight, held by its thread until
    // the tool returns (the slot moves into the blocking closure).
    let slot = match &step {
        Step::Done(_) => None,
        Step::Batch | Step::Call(_) => match state
            .in_flight
            .acquire_waiting(client, in_flight::QUEUE_WAIT)
            .await
        {
            Ok(slot) => Some(slot),
            Err(busy) => return busy_response(state, busy),
        },
    };
    let reply = match step {
        Step::Batch => {
            let batch = server.clone();
            on_call_threads(&server, move || {
                let _slot = slot;
                batch.handle_raw_body(&body, &bytes)
            })
            .await
        }
        Step::Done(reply) => Ok(reply),
        Step::Call(PendingCall { job, ticket }) => {
            let tool = job.tool();
            if state.call_costs.runs_inline(tool) {
                // A tool whose calls run in tens of microseconds runs here: handing it to the pool would
                // cost more than the call ([`super::call_costs`]).
                let outcome = McpServer::run_call(server.plugin(), job);
                drop(slot);
                if outcome.answered() && server.plugin().is_warm() {
                    state.call_costs.record(tool, outcome.cpu_us());
                }
                Ok(server.finish_call(ticket, Some(outcome)))
            } else {
                let plugin = server.plugin().clone();
                // Raised however this request ends: past the deadline, or dropped because its client
                // went away (a finished call ignores it).
                let _cancel_on_drop = CancelOnDrop(job.cancel_flag());
                let costs = state.clone();
                let overdue = ticket.overdue();
                let answering = server.clone();
                let given_up = job.cancel_flag();
                // The answer is serialized there too: a dear call's result is large (tens of KB of
                // escaped JSON for a search), and serializing it here would hold up the other
                // connections of this worker.
                let running = on_call_threads(&server, move || {
                    let _slot = slot;
                    let outcome = McpServer::run_call(&plugin, job);
                    // Measured once the corpus is warm: a call waiting meanwhile for the thread that
                    // reads it uses little CPU time, and would pass its tool for a cheap one.
                    if outcome.answered() && plugin.is_warm() {
                        costs.call_costs.record(tool, outcome.cpu_us());
                    }
                    // Nobody waits for a call given up at its deadline or left by its client: its
                    // outcome is dropped, neither answered, counted nor cached.
                    (!given_up.is_cancelled()).then(|| answering.finish_call(ticket, Some(outcome)))
                });
                match tokio::time::timeout(server.call_deadline(), running).await {
                    Ok(Ok(Some(reply))) => Ok(reply),
                    Ok(Err(lost)) => Err(lost),
                    // Past the deadline the tool stops at its next checkpoint (the guard raises its
                    // flag) and its slot comes back. (`None` only comes once the flag is raised, by
                    // this waiter when it stops waiting.)
                    Ok(Ok(None)) | Err(_) => Ok(server.finish_overdue(overdue)),
                }
            }
        }
    };
    let mut response = match reply {
        Ok(Reply::Nothing) => StatusCode::ACCEPTED.into_response(),
        Ok(reply @ Reply::One { unreadable, .. }) => {
            let status = if unreadable {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::OK
            };
            text_json_response(status, reply.into_body().unwrap_or_default())
        }
        Ok(Reply::Result(parts)) => parts_response(parts),
        Ok(reply @ Reply::Many(_)) => {
            text_json_response(StatusCode::OK, reply.into_body().unwrap_or_default())
        }
        Err(_) => json_response(
            StatusCode::OK,
            &error_response(Value::Null, codes::INTERNAL_ERROR, "internal error", None),
        ),
    };
    if let Some(session_id) = session_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        let headers = response.headers_mut();
        headers.insert(MCP_SESSION_ID, session_id);
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("Mcp-Session-Id"),
        );
    }
    response
}

/// Why a request body could not be read.
#[derive(Debug, PartialEq, Eq)]
enum BodyError {
    /// It streamed more than the cap.
    TooLarge,
    /// The connection failed while it was read.
    Unreadable,
}

/// The bytes of `body`, refused past `limit` bytes streamed (whatever its `Content-Length` said). A body
/// that came in one piece (nearly every one) is that piece, not copied.
async fn read_body<B>(mut body: B, limit: usize) -> Result<Bytes, BodyError>
where
    B: http_body::Body<Data = Bytes> + Unpin,
{
    let (mut first, mut rest, mut total) = (Bytes::new(), None::<bytes::BytesMut>, 0_usize);
    std::future::poll_fn(|context| {
        loop {
            if http_body::Body::is_end_stream(&body) {
                break;
            }
            let Some(frame) = std::task::ready!(http_body::Body::poll_frame(
                std::pin::Pin::new(&mut body),
                context
            )) else {
                break;
            };
            let Ok(data) = frame.map_err(|_| BodyError::Unreadable)?.into_data() else {
                // Trailers carry nothing of the message.
                continue;
            };
            total += data.len();
            if total > limit {
                return Poll::Ready(Err(BodyError::TooLarge));
            }
            match &mut rest {
                Some(rest) => rest.extend_from_slice(&data),
                None if first.is_empty() => first = data,
                None => {
                    let mut joined = bytes::BytesMut::from(std::mem::take(&mut first));
                    joined.extend_from_slice(&data);
                    rest = Some(joined);
                }
            }
        }
        Poll::Ready(Ok(match rest.take() {
            Some(rest) => rest.freeze(),
            None => std::mem::take(&mut first),
        }))
    })
    .await
}

/// Charges `units` messages to `client` (the budget shared through Redis first, when there is one;
/// this instance's own window when there is none or it does not answer); the 429 when over the limit.
async fn charge(state: &HttpState, client: Option<IpAddr>, units: u32) -> Option<Response> {
    let shared = match &state.shared_limiter {
        Some(shared) => {
            let key = client.map_or_else(|| "unknown".to_string(), |address| address.to_string());
            // Boxed: a Redis round trip's future is large, and a charge without Redis should not carry it.
            Box::pin(shared.charge(&key, units)).await
        }
        None => None,
    };
    let charge = match shared {
        Some(charge) => charge,
        None => state.limiter.charge(client, units, Instant::now()),
    };
    let Charge::Limited { retry_after } = charge else {
        return None;
    };
    super::metrics::record_rate_limited(u64::from(units));
    let message = format!(
        "rate limit: {} messages per minute per client",
        state.config.rate_limit_per_minute
    );
    let mut response = json_response(
        StatusCode::TOO_MANY_REQUESTS,
        &error_response(Value::Null, codes::RATE_LIMITED, &message, None),
    );
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(retry_after.as_secs().max(1)),
    );
    Some(response)
}

/// Runs `job` on the server's call threads ([`McpServer::call_threads`]: their own pool, each below the
/// async workers' priority and off the cores spared for them, [`super::placement`], so tokio's blocking
/// pool keeps its priority for file reads and reloads), counted as a dear call while it runs
/// ([`super::placement::DearCall`]); its value, or an error if the job was lost (a panic outside a
/// tool's own guard).
async fn on_call_threads<T: Send + 'static>(
    server: &McpServer,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, tokio::sync::oneshot::error::RecvError> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    server.call_threads().execute(move || {
        let value = if super::workers::on_a_call_thread() {
            super::placement::run_below_the_workers();
            let _running = super::placement::DearCall::begin();
            job()
        } else {
            // Not the async worker `execute` falls back to when no thread can be started.
            job()
        };
        let _ = sender.send(value);
    });
    receiver.await
}

/// Raises a call's cancel flag when dropped (see `post_mcp`).
struct CancelOnDrop(crate::tools::cancel::CancelFlag);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// The 503 for a call refused at the cap on calls in flight: `Retry-After: 1` (slots come back as
/// calls end, within a deadline at most).
fn busy_response(state: &HttpState, busy: Busy) -> Response {
    let message = match busy {
        Busy::Global => format!(
            "server busy: {} tool calls are running (the most at once); retry after 1 s",
            state.in_flight.max_total()
        ),
        Busy::Client => format!(
            "server busy for this client: {} of its tool calls are running (the most one client may run at once); retry after 1 s",
            state.in_flight.max_per_client()
        ),
    };
    let mut response = json_response(
        StatusCode::SERVICE_UNAVAILABLE,
        &error_response(Value::Null, codes::SERVER_BUSY, &message, None),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// The 200 answer to a result: its head, the result and the tail as chunks of one body (two when the
/// result comes from the cache with its tail; the result is never copied on its way out).
fn parts_response(parts: ResultParts) -> Response {
    json_chunks_response(Chunks::new(parts.into_chunks()))
}

/// A 200 JSON answer whose body is `chunks`.
pub(super) fn json_chunks_response(chunks: Chunks) -> Response {
    let mut response = Response::new(Body::new(chunks));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// `GET /metrics`: every metric of the process in the OpenMetrics text format, for Prometheus.
async fn get_metrics() -> Response {
    let mut response = Response::new(Body::from(super::metrics::render()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(super::metrics::CONTENT_TYPE),
    );
    response
}

async fn get_mcp(
    State(state): State<Arc<HttpState>>,
    Query(query): Query<std::collections::HashMap<String, String>>,
) -> Response {
    if !query.contains_key("health") {
        return method_not_allowed().await;
    }
    let server = state.server();
    // The count decodes the observation table, and the search index is read, if the start-up warm-up
    // has not done so: off the async workers.
    let counted = server.clone();
    let (observations, search_index) = tokio::task::spawn_blocking(move || {
        let corpus = counted.plugin().corpus();
        let observations = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            corpus.baked.observations().len()
        }))
        .ok();
        (
            observations,
            corpus.index.warm().map_err(|error| error.to_string()),
        )
    })
    .await
    .unwrap_or((None, Err("the check of the search index failed".into())));
    let baked = &server.plugin().corpus().baked;
    // A corpus whose search index cannot be read answers every other tool; its probe says what is
    // wrong (503), so an orchestrator does not route searches to it.
    let (status, index_problem) = match search_index {
        Ok(()) => (StatusCode::OK, None),
        Err(problem) => (StatusCode::SERVICE_UNAVAILABLE, Some(problem)),
    };
    let mut health = json!({
        "ok": state.config.enabled && index_problem.is_none(),
            "service": "mcp",
            "enabled": state.config.enabled,
            "transport": "streamable-http",
            "max_batch": MAX_BATCH,
            "corpus_version": baked.manifest().corpus_version,
            "tools": server.plugin().tools().iter().filter(|tool| !tool.app_only).count(),
            "observations": observations,
            "indicators": baked.metrics().len(),
            "loaded_at_unix": state.loaded_at_unix(),
    });
    if let Some(problem) = index_problem {
        health["search_index_error"] = json!(problem);
    }
    json_response(status, &health)
}

/// 405 for any method but POST and OPTIONS (and GET with `?health`): a stateless server opens no
/// server-initiated stream.
async fn method_not_allowed() -> Response {
    let message = "method not allowed: POST JSON-RPC to /api/mcp, or GET /api/mcp?health=1";
    let mut response = json_response(
        StatusCode::METHOD_NOT_ALLOWED,
        &error_response(Value::Null, codes::METHOD_NOT_FOUND, message, None),
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST, OPTIONS"));
    response
}

/// The request headers a browser may send to `/api/mcp`: what every revision served reads, the 2026-07-28
/// mirrors of the body (`Mcp-Method`, `Mcp-Name`) among them, and `Last-Event-ID` for a resumed stream.
pub const CORS_ALLOWED_HEADERS: &str = "Accept, Content-Type, Last-Event-ID, Mcp-Method, Mcp-Name, Mcp-Protocol-Version, Mcp-Session-Id";

async fn preflight(State(state): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
    if let Some(message) = guard::refusal(&headers, &state.config.origins, state.config.check_host)
    {
        return json_response(
            StatusCode::FORBIDDEN,
            &error_response(Value::Null, codes::INVALID_REQUEST, &message, None),
        );
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("POST, OPTIONS"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(CORS_ALLOWED_HEADERS),
    );
    headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("86400"),
    );
    response
}

/// The most bytes of request head (header names and values) a request may carry, as the README
/// documents; the connection's read buffer admits a little more, this is the cap answered.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// What is wrong with a request's head before any handler reads it, if anything: a repeated `Host` or
/// `Origin` (400), a transfer coding other than `chunked` alone (501: the body would be read as
/// chunked and its other coding ignored), headers over [`MAX_HEAD_BYTES`] (431).
///
/// Two `Origin` or `Host` headers could each pass a check another component reads differently (a proxy,
/// a cache), so a repeated one is refused (`Host` named first when both are). The head is read in one
/// pass.
fn head_refusal(headers: &HeaderMap) -> Option<(StatusCode, String)> {
    let (mut hosts, mut origins, mut transfer_encoding, mut head) = (0_usize, 0_usize, false, 0);
    for (name, value) in headers {
        if name == header::HOST {
            hosts += 1;
        } else if name == header::ORIGIN {
            origins += 1;
        } else if name == header::TRANSFER_ENCODING {
            transfer_encoding = true;
        }
        head += name.as_str().len() + value.len() + 4;
    }
    let repeated = if hosts > 1 {
        Some(header::HOST)
    } else if origins > 1 {
        Some(header::ORIGIN)
    } else {
        None
    };
    if let Some(repeated) = repeated {
        return Some((
            StatusCode::BAD_REQUEST,
            format!("the request repeats the `{repeated}` header: send it once"),
        ));
    }
    if transfer_encoding {
        let codings: Vec<String> = headers
            .get_all(header::TRANSFER_ENCODING)
            .iter()
            .flat_map(|value| value.to_str().unwrap_or("(not text)").split(','))
            .map(|coding| coding.trim().to_ascii_lowercase())
            .filter(|coding| !coding.is_empty())
            .collect();
        if !codings.is_empty() && codings != ["chunked"] {
            return Some((
                StatusCode::NOT_IMPLEMENTED,
                format!(
                    "Transfer-Encoding `{}` is not served: send the body plain (Content-Length) or `chunked` alone",
                    crate::text::snippet(&codings.join(", "))
                ),
            ));
        }
    }
    if head > MAX_HEAD_BYTES {
        return Some((
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("the request's headers hold {head} bytes: at most {MAX_HEAD_BYTES} are read"),
        ));
    }
    None
}

/// The policy of an HTML page that sets none (the catalog page: no script, its own styles, no frames).
const PAGE_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'";

/// What every answer carries: `X-Content-Type-Options: nosniff` (a JSON error echoing input is never read
/// as HTML); an HTML page also a `Content-Security-Policy` ([`PAGE_POLICY`] when it sets none, else its
/// own with `frame-ancestors 'none'` added when it lacks one) and `X-Frame-Options: DENY`.
fn secure_headers(headers: &mut HeaderMap) {
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let html = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/html"));
    if !html {
        return;
    }
    let policy = match headers
        .get(header::CONTENT_SECURITY_POLICY)
        .and_then(|value| value.to_str().ok())
    {
        None => PAGE_POLICY.to_string(),
        Some(policy) if policy.contains("frame-ancestors") => policy.to_string(),
        Some(policy) => format!("{policy}; frame-ancestors 'none'"),
    };
    if let Ok(value) = HeaderValue::from_str(&policy) {
        headers.insert(header::CONTENT_SECURITY_POLICY, value);
    }
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

/// Tags each HTTP request with an id (the client's `x-request-id` when it is a short token, else a new
/// one), echoes it in the response's `x-request-id`, runs the request inside a span that carries it, and
/// logs the outcome (method, path, status, bytes, duration; never the body) at info. Then CORS: `*` when
/// any origin may call, else the request's own origin when it may (with `Vary: Origin`), and nothing
/// for a refused one.
async fn request_id_and_cors(
    State(state): State<Arc<HttpState>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(refusal) = head_refusal_response(request.headers()) {
        return refusal;
    }
    let origin = request.headers().get(header::ORIGIN).cloned();
    let id = request_id(request.headers());
    // The span and the request line are built only when info logging is on: nothing is added to the
    // hot path of a quiet server but the id.
    let mut response = if tracing::enabled!(tracing::Level::INFO) {
        let span = tracing::info_span!("http", request_id = id.to_str().unwrap_or_default());
        // A path is logged up to 256 characters and a method (an extension token may be as long as the
        // head) up to 32: a long one costs the log no more than a normal one.
        let (method, path) = (
            crate::text::snippet_chars(request.method().as_str(), LOGGED_METHOD_CHARS),
            crate::text::snippet_chars(request.uri().path(), LOGGED_PATH_CHARS),
        );
        let started = Instant::now();
        let response = tracing::Instrument::instrument(next.run(request), span.clone()).await;
        let bytes = axum::body::HttpBody::size_hint(response.body()).exact();
        span.in_scope(|| {
            tracing::info!(
                %method,
                path,
                status = response.status().as_u16(),
                bytes,
                duration_us = started.elapsed().as_micros() as u64,
                "http request"
            );
        });
        response
    } else {
        next.run(request).await
    };
    finish_headers(&state, id, origin, &mut response);
    response
}

/// The answer to a request whose head is refused ([`head_refusal`]), with the headers every answer
/// carries; `None` for an acceptable head.
pub(super) fn head_refusal_response(headers: &HeaderMap) -> Option<Response> {
    let (status, message) = head_refusal(headers)?;
    let mut response = json_response(
        status,
        &json!({"error": status.canonical_reason().unwrap_or("refused").to_lowercase().replace(' ', "_"), "message": message}),
    );
    secure_headers(response.headers_mut());
    Some(response)
}

/// A request's id: the client's `x-request-id` when it is a token of 1–64 characters of
/// `[A-Za-z0-9-_.:]`, else `<process id>-<counter>` in hexadecimal (a counter never given twice in the process).
pub(super) fn request_id(headers: &HeaderMap) -> HeaderValue {
    use std::sync::atomic::{AtomicU64, Ordering};
    /// Counters are taken from the process-wide one in blocks of this many, one block per thread at a
    /// time: unique in the process, and a request does not contend for a counter every thread writes.
    const BLOCK: u64 = 4096;
    static NEXT_BLOCK: AtomicU64 = AtomicU64::new(0);
    thread_local! {
        /// This thread's next counter and the end of its block.
        static NEXT: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
    }
    // The process id is read once (each `getpid` is a system call).
    static PROCESS: std::sync::LazyLock<u32> = std::sync::LazyLock::new(std::process::id);
    if let Some(value) = headers.get(&X_REQUEST_ID).filter(|value| {
        (1..=64).contains(&value.len())
            && value
                .as_bytes()
                .iter()
                .all(|byte| byte.is_ascii_alphanumeric() || b"-_.:".contains(byte))
    }) {
        return value.clone();
    }
    let counter = NEXT.with(|next| {
        let (mut counter, mut end) = next.get();
        if counter == end {
            // Counters start at 1.
            counter = NEXT_BLOCK.fetch_add(1, Ordering::Relaxed) * BLOCK + 1;
            end = counter + BLOCK;
        }
        next.set((counter + 1, end));
        counter
    });
    // `<process>-<counter>`: at most 8 + 1 + 16 hexadecimal digits.
    let mut id = [0_u8; 25];
    let mut length = write_hex(&mut id, u64::from(*PROCESS));
    id[length] = b'-';
    length += 1;
    length += write_hex(&mut id[length..], counter);
    HeaderValue::from_bytes(&id[..length]).unwrap_or_else(|_| HeaderValue::from_static("0"))
}

/// Writes `value` in lowercase hexadecimal, without leading zeros, at the start of `out` (room for 16
/// digits); how many digits.
fn write_hex(out: &mut [u8], value: u64) -> usize {
    let digits = (16 - value.leading_zeros() as usize / 4).max(1);
    for (index, byte) in out[..digits].iter_mut().enumerate() {
        let nibble = (value >> (4 * (digits - 1 - index))) & 0xf;
        *byte = b"0123456789abcdef"[nibble as usize];
    }
    digits
}

/// What every answer gets on its way out: its request id, the security headers ([`secure_headers`]), a
/// weak validator when encoded, and CORS: `*` when any origin may call, else the request's own
/// `origin` when it may (with `Vary: Origin`), and nothing for a refused one.
pub(super) fn finish_headers(
    state: &HttpState,
    id: HeaderValue,
    origin: Option<HeaderValue>,
    response: &mut Response,
) {
    let headers = response.headers_mut();
    headers.insert(X_REQUEST_ID, id);
    secure_headers(headers);
    weak_etag_when_encoded(headers);
    // `Vary: Origin` joins what is there (the compression layer's `Vary: accept-encoding`).
    match (&state.config.origins, origin) {
        (OriginPolicy::Any, _) => {
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_ORIGIN,
                HeaderValue::from_static("*"),
            );
        }
        (policy, Some(origin)) if policy.allows(origin.to_str().ok()) => {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            vary_origin(headers);
        }
        _ => vary_origin(headers),
    }
}

/// Adds `Origin` to the answer's `Vary`: one line `accept-encoding, Origin` when the compression
/// layer's `accept-encoding` is its only value (the same field to a cache, RFC 9110 §5.3, in one header
/// line instead of two), else a line of its own.
fn vary_origin(headers: &mut HeaderMap) {
    if let axum::http::header::Entry::Occupied(mut vary) = headers.entry(header::VARY)
        && vary.iter().count() == 1
        && vary.get() == "accept-encoding"
    {
        vary.insert(HeaderValue::from_static("accept-encoding, Origin"));
        return;
    }
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
}

/// Adds `Vary: accept-encoding` to an answer the compression layer would compress for a client that
/// accepts gzip ([`compressible`], at least [`COMPRESS_ABOVE_BYTES`]), as that layer does whether it
/// compresses or not: the direct lane's answers carry the same header as the router's.
pub(super) fn vary_like_compression(response: &mut Response) {
    let size = axum::body::HttpBody::size_hint(response.body())
        .exact()
        .or_else(|| {
            response
                .headers()
                .get(header::CONTENT_LENGTH)?
                .to_str()
                .ok()?
                .parse()
                .ok()
        });
    let big_enough = size.is_none_or(|size| size >= u64::from(COMPRESS_ABOVE_BYTES));
    if big_enough
        && compressible(
            response.status(),
            response.version(),
            response.headers(),
            response.extensions(),
        )
    {
        response
            .headers_mut()
            .append(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
}

/// The first `MCP-Protocol-Version` header value this server does not speak (a value that is not text
/// counts as unsupported), if any.
fn unsupported_version(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(&MCP_PROTOCOL_VERSION)
        .iter()
        .find_map(|value| match value.to_str() {
            Ok(version) if modern::ALL_VERSIONS.contains(&version.trim()) => None,
            Ok(version) => Some(version.chars().take(40).collect()),
            Err(_) => Some("(not text)".to_string()),
        })
}

/// The request headers 2026-07-28 mirrors from the body (`MCP-Protocol-Version`, `Mcp-Method`,
/// `Mcp-Name`), as text; a value that is not text is kept as `(not text)` so that it mismatches.
struct MirroredHeaders {
    version: Option<String>,
    method: Option<String>,
    name: Option<String>,
}

impl MirroredHeaders {
    /// The headers' values; a header sent more than once is `(several values)`, which matches nothing
    /// (an intermediary may read another of them than the server would).
    fn of(headers: &HeaderMap) -> MirroredHeaders {
        let text = |name: &HeaderName| {
            let mut values = headers.get_all(name).iter();
            let first = values.next()?;
            if values.next().is_some() {
                return Some("(several values)".to_string());
            }
            Some(
                first
                    .to_str()
                    .map_or_else(|_| "(not text)".to_string(), |text| text.trim().to_string()),
            )
        };
        MirroredHeaders {
            version: text(&MCP_PROTOCOL_VERSION),
            method: text(&MCP_METHOD),
            name: text(&MCP_NAME),
        }
    }

    /// Whether the version header names a 2026-07-28 revision.
    fn is_modern(&self) -> bool {
        self.version
            .as_deref()
            .is_some_and(|version| modern::MODERN_VERSIONS.contains(&version))
    }
}

/// The exact text of a single message's `id` in `raw` (`null` when there is none or `raw` is not one
/// object), so that a refusal echoes it as the request wrote it.
fn raw_id(raw: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow, default)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    // An object only: serde reads a struct from an array too, which would take a batch's first message
    // for the id.
    if raw.iter().find(|byte| !byte.is_ascii_whitespace()) != Some(&b'{') {
        return "null".to_string();
    }
    serde_json::from_slice::<Envelope<'_>>(raw)
        .ok()
        .and_then(|envelope| envelope.id)
        .map_or_else(|| "null".to_string(), |id| id.get().to_string())
}

/// The methods a 2026-07-28 request may name here.
const MODERN_METHODS: [&str; 8] = [
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// What 2026-07-28 refuses before any work ([`modern`]): a batch holding a modern message (400), a
/// modern version header on a legacy body, a missing or mismatched mirrored header (400, `-32020`),
/// an unsupported version (400, `-32022`), an unknown method (404, `-32601`); `None` to go on.
fn modern_refusal(
    body: &Value,
    raw: &[u8],
    is_modern: bool,
    headers: &MirroredHeaders,
) -> Option<Response> {
    // The id as the request wrote it (an integer past 64 bits keeps every digit).
    let refuse = |status: StatusCode, error: RpcError| {
        Some(text_json_response(
            status,
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"error":{}}}"#,
                raw_id(raw),
                error.fields()
            ),
        ))
    };
    if let Value::Array(messages) = body
        && messages
            .iter()
            .any(|message| modern::is_modern(message.get("params")))
    {
        let message = "invalid request: a 2026-07-28 request is one JSON-RPC message per POST (batches are for 2025-06-18 and 2025-11-25)";
        return refuse(
            StatusCode::BAD_REQUEST,
            RpcError::new(codes::INVALID_REQUEST, message.into()),
        );
    }
    if !is_modern {
        // A modern version header on a body without the modern `_meta`: the request lacks its
        // required protocol fields (`-32602`).
        return match &headers.version {
            Some(version)
                if modern::MODERN_VERSIONS.contains(&version.as_str())
                    && !jsonrpc::is_initialize(body) =>
            {
                refuse(
                    StatusCode::BAD_REQUEST,
                    modern::missing_meta(modern::PROTOCOL_VERSION_KEY, version),
                )
            }
            _ => None,
        };
    }
    let params = body.get("params");
    let method = body
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let declared = match params
        .and_then(|params| params.get("_meta"))
        .and_then(|meta| meta.get(modern::PROTOCOL_VERSION_KEY))
    {
        Some(Value::String(version)) => version.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    if headers.version.as_deref() != Some(declared.as_str()) {
        let error = modern::header_mismatch(
            "MCP-Protocol-Version",
            headers.version.as_deref(),
            &declared,
        );
        return refuse(StatusCode::BAD_REQUEST, error);
    }
    // Notifications (no id) carry no header requirements in this revision.
    if body.get("id").is_some() {
        if headers.method.as_deref() != Some(method) {
            let error = modern::header_mismatch("Mcp-Method", headers.method.as_deref(), method);
            return refuse(StatusCode::BAD_REQUEST, error);
        }
        let named = match method {
            "tools/call" | "prompts/get" => params.and_then(|params| params.get("name")),
            "resources/read" => params.and_then(|params| params.get("uri")),
            _ => None,
        };
        if let Some(named) = named.and_then(Value::as_str) {
            let sent = headers.name.as_deref().map(modern::decoded_header);
            if sent.as_ref().map(|decoded| decoded.as_deref()) != Some(Some(named)) {
                let error = modern::header_mismatch("Mcp-Name", headers.name.as_deref(), named);
                return refuse(StatusCode::BAD_REQUEST, error);
            }
        }
    }
    if let Err(error) = modern::of_params(params) {
        return refuse(StatusCode::BAD_REQUEST, error);
    }
    if body.get("id").is_some() && !MODERN_METHODS.contains(&method) {
        let error = RpcError::new(
            codes::METHOD_NOT_FOUND,
            format!(
                "method not found: `{}`; methods of 2026-07-28 here: {}",
                crate::text::snippet(method),
                MODERN_METHODS.join(", ")
            ),
        );
        return refuse(StatusCode::NOT_FOUND, error);
    }
    None
}

fn parse(bytes: &Bytes) -> Result<Value, Box<Response>> {
    serde_json::from_slice(bytes).map_err(|error| {
        Box::new(json_response(
            StatusCode::BAD_REQUEST,
            &error_response(
                Value::Null,
                codes::PARSE_ERROR,
                &format!("parse error: {error}"),
                None,
            ),
        ))
    })
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    text_json_response(status, body.to_string())
}

/// A response whose body is already-serialized JSON.
fn text_json_response(status: StatusCode, body: String) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hexadecimal_is_written_without_leading_zeros() {
        let mut out = [0_u8; 16];
        for (value, text) in [
            (0_u64, "0"),
            (0xa, "a"),
            (0x10, "10"),
            (0x1f2e, "1f2e"),
            (u64::MAX, "ffffffffffffffff"),
        ] {
            let digits = write_hex(&mut out, value);
            assert_eq!(&out[..digits], text.as_bytes());
            assert_eq!(format!("{value:x}"), text);
        }
    }

    #[test]
    fn minted_request_ids_name_the_process_and_are_never_given_twice() {
        let process = format!("{:x}-", std::process::id());
        let ids: Vec<String> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        (0..5_000)
                            .map(|_| request_id(&HeaderMap::new()).to_str().unwrap().to_string())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            threads
                .into_iter()
                .flat_map(|thread| thread.join().unwrap())
                .collect()
        });
        assert!(
            ids.iter().all(|id| id.starts_with(&process)),
            "{:?}",
            &ids[..3]
        );
        let unique: std::collections::HashSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        // A client's own token is kept.
        let mut headers = HeaderMap::new();
        headers.insert(X_REQUEST_ID, HeaderValue::from_static("trace-42.a"));
        assert_eq!(request_id(&headers), "trace-42.a");
    }
}
