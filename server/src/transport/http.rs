//! Streamable HTTP: `POST /api/mcp` (JSON-RPC, one message or a batch), `OPTIONS` (CORS preflight),
//! `GET /api/mcp?health=1` (probe); plain `GET` is 405.
//!
//! Order of checks on a POST, each before the next: the `MCP_ENABLED` gate (403), the 256 KB body cap
//! counted on the streamed bytes (413), parsing (400 `-32700`), the batch cap (400 `-32600`, nothing
//! charged), the `MCP-Protocol-Version` header (400), the rate limit (429, one unit per message), then
//! the messages run in order. Nothing here ever answers 500: a tool failure is a JSON-RPC `-32603`.

use std::{
    net::SocketAddr,
    sync::Arc,
    time::{Duration, Instant},
};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::{ConnectInfo, Query, Request, State},
    http::{HeaderMap, HeaderValue, StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::post,
};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde_json::{Value, json};

use super::{
    jsonrpc::{self, BodyShape, MAX_BATCH, McpServer, Reply, SUPPORTED_VERSIONS, codes},
    rate_limit::{Charge, RateLimiter},
};

/// The largest body accepted, in bytes (256 KB).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// `MCP_ENABLED == "true"`; otherwise every POST is refused (fail closed).
    pub enabled: bool,
    /// Messages per client per minute.
    pub rate_limit_per_minute: u32,
}

/// Shared state of the HTTP handlers.
#[derive(Debug)]
pub struct HttpState {
    /// The MCP core.
    pub server: McpServer,
    /// Settings.
    pub config: HttpConfig,
    /// The per-client limiter.
    pub limiter: RateLimiter,
}

impl HttpState {
    /// State with the seed's limiter: `rate_limit_per_minute` per client, at most 50,000 clients tracked.
    pub fn new(server: McpServer, config: HttpConfig) -> HttpState {
        let limiter = RateLimiter::new(config.rate_limit_per_minute, Duration::from_secs(60), 50_000);
        HttpState { server, config, limiter }
    }
}

/// The router: `/api/mcp` with CORS headers on every response.
pub fn router(state: Arc<HttpState>) -> Router {
    Router::new()
        .route("/api/mcp", post(post_mcp).get(get_mcp).options(preflight))
        // Outermost: every response, errors included, carries the open CORS origin.
        .layer(middleware::from_fn(allow_any_origin))
        .with_state(state)
}

async fn post_mcp(State(state): State<Arc<HttpState>>, request: Request) -> Response {
    if !state.config.enabled {
        return (StatusCode::FORBIDDEN, axum::Json(json!({"error": "mcp_disabled"}))).into_response();
    }
    let client = client_key(request.headers(), request.extensions().get::<ConnectInfo<SocketAddr>>());
    let version_header = request.headers().get("mcp-protocol-version").and_then(|value| value.to_str().ok()).map(str::to_string);
    let bytes = match Limited::new(request.into_body(), MAX_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => {
            let message = format!("request body above {MAX_BODY_BYTES} bytes");
            return json_response(StatusCode::PAYLOAD_TOO_LARGE, &jsonrpc::error_response(Value::Null, codes::PARSE_ERROR, &message, None));
        }
        Err(_) => {
            return json_response(StatusCode::BAD_REQUEST, &jsonrpc::error_response(Value::Null, codes::PARSE_ERROR, "could not read the request body", None));
        }
    };
    let body = match parse(&bytes) {
        Ok(body) => body,
        Err(response) => return response,
    };
    let shape = BodyShape::of(&body);
    if let Some(version) = version_header.filter(|version| !SUPPORTED_VERSIONS.contains(&version.as_str()))
        && !jsonrpc::is_initialize(&body)
        && matches!(shape, BodyShape::Single | BodyShape::Batch(_))
    {
        let message = format!("unsupported MCP-Protocol-Version `{version}`; supported: {}", SUPPORTED_VERSIONS.join(", "));
        return json_response(StatusCode::BAD_REQUEST, &jsonrpc::error_response(Value::Null, codes::INVALID_REQUEST, &message, None));
    }
    if shape.messages() > 0
        && let Charge::Limited { retry_after } = state.limiter.charge(&client, shape.messages() as u32, Instant::now())
    {
        let message = format!("rate limit: {} messages per minute per client", state.config.rate_limit_per_minute);
        let mut response = json_response(StatusCode::TOO_MANY_REQUESTS, &jsonrpc::error_response(Value::Null, codes::RATE_LIMITED, &message, None));
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after.as_secs().max(1)));
        return response;
    }
    // Tools are CPU-bound and short; run them off the async workers so a slow one never stalls I/O.
    let reply = tokio::task::spawn_blocking(move || state.server.handle_body(&body)).await;
    match reply {
        Ok(Reply::Nothing) => StatusCode::ACCEPTED.into_response(),
        Ok(Reply::One { response, unreadable }) => json_response(if unreadable { StatusCode::BAD_REQUEST } else { StatusCode::OK }, &response),
        Ok(Reply::Many(responses)) => json_response(StatusCode::OK, &Value::Array(responses)),
        Err(_) => json_response(StatusCode::OK, &jsonrpc::error_response(Value::Null, codes::INTERNAL_ERROR, "internal error", None)),
    }
}

async fn get_mcp(State(state): State<Arc<HttpState>>, Query(query): Query<std::collections::HashMap<String, String>>) -> Response {
    if !query.contains_key("health") {
        let mut response = (StatusCode::METHOD_NOT_ALLOWED, "use POST for JSON-RPC, or GET ?health=1\n").into_response();
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, OPTIONS"));
        return response;
    }
    let baked = &state.server.plugin().corpus().baked;
    json_response(
        StatusCode::OK,
        &json!({
            "ok": state.config.enabled,
            "service": "mcp",
            "enabled": state.config.enabled,
            "transport": "streamable-http",
            "max_batch": MAX_BATCH,
            "corpus_version": baked.manifest().corpus_version,
            "tools": state.server.plugin().tools().len(),
        }),
    )
}

async fn preflight() -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("POST, OPTIONS"));
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("Content-Type, Mcp-Session-Id, Mcp-Protocol-Version"));
    headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("86400"));
    response
}

async fn allow_any_origin(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    response.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    response
}

/// The rate-limit key: `x-real-ip`, else the rightmost `x-forwarded-for` entry (the one our proxy added;
/// the leftmost is whatever the client claims), else the socket peer.
fn client_key(headers: &HeaderMap, peer: Option<&ConnectInfo<SocketAddr>>) -> String {
    let header_text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).map(str::trim).filter(|text| !text.is_empty());
    if let Some(real_ip) = header_text("x-real-ip") {
        return real_ip.to_string();
    }
    if let Some(rightmost) = header_text("x-forwarded-for").and_then(|list| list.rsplit(',').map(str::trim).find(|entry| !entry.is_empty())) {
        return rightmost.to_string();
    }
    peer.map_or_else(|| "unknown".to_string(), |ConnectInfo(address)| address.ip().to_string())
}

fn parse(bytes: &Bytes) -> Result<Value, Response> {
    serde_json::from_slice(bytes).map_err(|error| {
        json_response(StatusCode::BAD_REQUEST, &jsonrpc::error_response(Value::Null, codes::PARSE_ERROR, &format!("parse error: {error}"), None))
    })
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
