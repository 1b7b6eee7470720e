use std::{
    path::{Path, PathBuf},
    sync::{Arc, OnceLock},
};

use axum::{
    body::Body,
    http::{Request, Response},
};
use corpus::Lang;
use http_body_util::BodyExt;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use server::{
    load::Corpus,
    tools::{ToolAnswer, ToolError, ToolSpec},
    transport::{
        http::{HttpConfig, HttpState},
        jsonrpc::{McpServer, Reply},
    },
};
use tower::ServiceExt;

/// The real default corpus, baked once per test run.
pub fn corpus_dir() -> &'static Path {
    static BAKED: OnceLock<tempfile::TempDir> = OnceLock::new();
    BAKED
        .get_or_init(|| {
            let out_dir = tempfile::tempdir().expect("temporary directory");
            let catalog_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
            let sources_dir = std::env::var_os(pipeline::paths::SOURCES_DIR_ENV)
                .map(PathBuf::from)
                .unwrap_or_else(pipeline::paths::default_sources_dir);
            let options = pipeline::bake::BakeOptions {
                sources_dir,
                catalog_dir,
                out_dir: out_dir.path().to_path_buf(),
                progress: false,
            };
            pipeline::bake::bake(&options).expect("the default corpus bakes");
            out_dir
        })
        .path()
}

/// Input of the test-only tool that always fails internally.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FailingInput {}

fn failing_handler(
    _corpus: &Corpus,
    _input: FailingInput,
    _lang: Lang,
) -> Result<ToolAnswer<'_, Value>, ToolError> {
    Err(ToolError::Internal("the test tool always fails".into()))
}

/// The server with every real tool plus `always_fails`, built once.
pub fn server() -> &'static McpServer {
    static SERVER: OnceLock<McpServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        let mut tools = server::tools::all();
        tools.push(ToolSpec::new(
            "always_fails",
            "Always fails",
            "Test tool: fails internally.",
            &["observations"],
            failing_handler,
        ));
        server::build_with_tools(corpus_dir(), tools).expect("the server builds")
    })
}

/// HTTP state over [`server`] with the given gate and limit.
pub fn http_state(enabled: bool, rate_limit_per_minute: u32) -> Arc<HttpState> {
    Arc::new(HttpState::new(
        server().clone(),
        HttpConfig {
            enabled,
            rate_limit_per_minute,
        },
    ))
}

/// Sends one request through a fresh router over `state`.
pub async fn send(state: &Arc<HttpState>, request: Request<Body>) -> (Response<Body>, Vec<u8>) {
    let response = server::transport::http::router(state.clone())
        .oneshot(request)
        .await
        .expect("the router answers");
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.expect("body").to_bytes().to_vec();
    (Response::from_parts(parts, Body::empty()), bytes)
}

/// A POST of `body` to `/api/mcp` with extra headers.
pub fn post(body: impl Into<Body>, headers: &[(&str, &str)]) -> Request<Body> {
    let mut builder = Request::post("/api/mcp").header("content-type", "application/json");
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(body.into()).unwrap()
}

/// Calls a tool through the JSON-RPC core and returns the `result` object of the response.
pub fn call_tool(name: &str, arguments: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
    match server().handle_body(&request) {
        Reply::One { response, .. } => {
            serde_json::from_str::<Value>(&response).expect("a JSON response")["result"].clone()
        }
        other => panic!("expected one response, got {other:?}"),
    }
}

/// The `{"result", "citations"}` payload of a tool result's text block.
pub fn payload(result: &Value) -> Value {
    let text = result["content"][0]["text"].as_str().expect("a text block");
    serde_json::from_str(text).expect("the text block is JSON")
}

/// The citation ids that have a record in a payload's `citations`.
pub fn cited_ids(payload: &Value) -> Vec<&Value> {
    payload["citations"]
        .as_array()
        .expect("a citations list")
        .iter()
        .map(|citation| &citation["citation_id"])
        .collect()
}

/// The entry of `indicators` (a result's list of indicator objects) whose `id` is `id`, if any.
pub fn indicator(indicators: &Value, id: &str) -> Option<Value> {
    indicators
        .as_array()
        .expect("an indicators list")
        .iter()
        .find(|indicator| indicator["id"] == json!(id))
        .cloned()
}
