//! What every test module shares: the real corpus baked once into a temporary directory, the
//! JSON-RPC server and HTTP state over it, request helpers, and readers of a tool answer's payload and
//! citations.

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

/// The real default corpus, baked once per test run into `CARGO_TARGET_TMPDIR/mcp-corpus`.
///
/// A fixed folder under `target/`, emptied before each bake, rather than a `TempDir` in a static:
/// statics are never dropped, so a temporary directory would outlive every run (369 MB each).
pub fn corpus_dir() -> &'static Path {
    static BAKED: OnceLock<PathBuf> = OnceLock::new();
    BAKED.get_or_init(|| {
        let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-corpus");
        if out_dir.exists() {
            std::fs::remove_dir_all(&out_dir).expect("the previous run's corpus is removed");
        }
        let catalog_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
        let sources_dir = std::env::var_os(pipeline::paths::SOURCES_DIR_ENV)
            .map(PathBuf::from)
            .unwrap_or_else(pipeline::paths::default_sources_dir);
        let options = pipeline::bake::BakeOptions {
            sources_dir,
            catalog_dir,
            out_dir: out_dir.clone(),
            progress: false,
        };
        pipeline::bake::bake(&options).expect("the default corpus bakes");
        out_dir
    })
}

/// Runs the server binary over stdio on the real corpus, writes `lines` (one message or batch each) and
/// closes its input; every line it wrote, parsed.
pub fn stdio_exchange(lines: &[String]) -> Vec<Value> {
    stdio_output(lines, &[])
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON message per line"))
        .collect()
}

/// What a stdio server over the real corpus writes to stdout for `lines`, with `env` set (a `None`
/// value removes the variable).
pub fn stdio_output(lines: &[String], env: &[(&str, Option<&str>)]) -> String {
    use std::io::Write;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_server"));
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let output = command
        .args(["--stdio", "--corpus-dir", corpus_dir().to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .and_then(|mut child| {
            let mut stdin = child.stdin.take().expect("piped");
            for line in lines {
                writeln!(stdin, "{line}")?;
            }
            drop(stdin);
            child.wait_with_output()
        })
        .expect("the server runs over stdio");
    String::from_utf8(output.stdout).expect("UTF-8 on stdout")
}

/// The `tools/list` result of a server with the real tools only (the shared test server adds test tools).
pub fn real_tools_list() -> Value {
    let real =
        server::build_with_tools(corpus_dir(), server::tools::all()).expect("the server builds");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let Reply::One { response, .. } = real.handle_body(&request) else {
        panic!("one response");
    };
    serde_json::from_str::<Value>(&response).unwrap()["result"].clone()
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

/// HTTP state over [`server`] with the given gate and limit, the loopback defaults otherwise, and a
/// trusted proxy so that in-process requests (which have no peer address) name their client with
/// `x-real-ip` / `x-forwarded-for`.
pub fn http_state(enabled: bool, rate_limit_per_minute: u32) -> Arc<HttpState> {
    http_state_with(HttpConfig {
        trusted_proxies: server::transport::guard::TrustedProxies::parse("127.0.0.1")
            .expect("an address"),
        ..HttpConfig::local(enabled, rate_limit_per_minute)
    })
}

/// HTTP state over [`server`] with `config`.
pub fn http_state_with(config: HttpConfig) -> Arc<HttpState> {
    Arc::new(HttpState::new(server().clone(), config))
}

/// Sends one request through a fresh HTTP service over `state` (what the listener serves: the direct
/// lane for an MCP POST that accepts no compression, the router for everything else).
pub async fn send(state: &Arc<HttpState>, request: Request<Body>) -> (Response<Body>, Vec<u8>) {
    let response = server::transport::http::service(state.clone())
        .oneshot(request)
        .await
        .expect("the service answers");
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

/// Bytes of a tool result's `structuredContent` as compact JSON (what a host hands the model).
pub fn structured_size(result: &Value) -> usize {
    serde_json::to_string(&result["structuredContent"])
        .unwrap()
        .len()
}

/// The `{"result", "citations"}` payload of a tool result's text block.
pub fn payload(result: &Value) -> Value {
    let text = result["content"][0]["text"].as_str().expect("a text block");
    serde_json::from_str(text).expect("the text block is JSON")
}

/// Every stored citation id a payload's `result` refers to, under the answer contract: `citation_id`
/// and `citation_ids` fields and `[year, value]` points of an object with a `series_id` (the inputs of
/// derived numbers, listed in their `calc-…`/`pulse-…` records, resolve through resolve_citations and
/// are not counted). Panics if one of them lacks its series, indicator or source record in
/// `citations`, so every caller also checks the contract.
pub fn cited_ids(payload: &Value) -> Vec<Value> {
    fn walk(value: &Value, ids: &mut Vec<String>) {
        match value {
            Value::Object(fields) => {
                if let Some(Value::String(id)) = fields.get("citation_id") {
                    ids.push(id.clone());
                }
                if let Some(Value::Array(listed)) = fields.get("citation_ids") {
                    ids.extend(listed.iter().filter_map(Value::as_str).map(String::from));
                }
                if let Some(Value::String(series)) = fields.get("series_id") {
                    for key in ["points", "series_tail"] {
                        for point in fields
                            .get(key)
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                        {
                            ids.push(format!("{series}-{}", point[0]));
                        }
                    }
                    if let Some(latest) = fields.get("latest").filter(|latest| latest.is_array()) {
                        ids.push(format!("{series}-{}", latest[0]));
                    }
                }
                fields.values().for_each(|field| walk(field, ids));
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, ids)),
            _ => {}
        }
    }
    let mut ids = Vec::new();
    walk(&payload["result"], &mut ids);
    ids.retain(|id| !corpus::BakedCorpus::is_synthetic_citation(id));
    ids.sort();
    ids.dedup();
    for id in &ids {
        assert!(
            citation_of(payload, id).is_some() || payload["citations"]["records"].get(id).is_some(),
            "{id} has no record in citations"
        );
    }
    ids.into_iter().map(Value::String).collect()
}

/// The citation of stored id `id` as the answer carries it: its series, indicator and source records
/// merged into one object with `citation_id`, or `None` when a record is missing.
pub fn citation_of(payload: &Value, id: &str) -> Option<Value> {
    let citations = &payload["citations"];
    let (series_id, _) = id.rsplit_once('-')?;
    let series = citations["series"].get(series_id)?;
    let indicator = citations["indicators"].get(series["indicator"].as_str()?)?;
    let source = citations["sources"].get(indicator["source"].as_str()?)?;
    let mut merged = source.as_object()?.clone();
    for record in [indicator, series] {
        merged.extend(record.as_object()?.clone());
    }
    merged.insert("citation_id".into(), json!(id));
    Some(Value::Object(merged))
}

/// The `[year, value]` points of a series object as `(year, value)`.
pub fn points(series: &Value) -> Vec<(i64, f64)> {
    series["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|point| (point[0].as_i64().unwrap(), point[1].as_f64().unwrap()))
        .collect()
}

/// An empty citations block (of an error result).
pub fn no_citations() -> Value {
    json!({"sources": {}, "indicators": {}, "series": {}})
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

/// The input citation ids of a derived number's `inputs` (`pattern`, `weights`, `countries`): values
/// first, then weights.
pub fn input_ids(inputs: &Value) -> Vec<String> {
    let countries: Vec<String> = inputs["countries"]
        .as_array()
        .expect("input countries")
        .iter()
        .map(|country| country.as_str().unwrap().to_ascii_lowercase())
        .collect();
    let patterns = std::iter::once(inputs["pattern"].as_str().expect("an input pattern"))
        .chain(inputs["weights"].as_str());
    patterns
        .flat_map(|pattern| {
            countries
                .iter()
                .map(move |country| pattern.replace("{iso3}", country))
        })
        .collect()
}

/// The stored value of citation id `id`, as resolve_citations gives it.
pub fn stored_value(id: &Value) -> f64 {
    server()
        .plugin()
        .corpus()
        .baked
        .resolve_citation(id.as_str().expect("a citation id"))
        .unwrap_or_else(|unresolved| panic!("{unresolved}"))
        .value
}

/// The record ids of `citations.records` (curated records an answer cites).
pub fn record_ids(body: &Value) -> Vec<String> {
    body["citations"]["records"]
        .as_object()
        .map(|records| records.keys().cloned().collect())
        .unwrap_or_default()
}
