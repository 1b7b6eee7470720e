//! What an operator reads: `GET /metrics` (Prometheus text) and the health probe's counts.

use axum::{body::Body, http::Request};
use serde_json::{Value, json};

use crate::support::{http_state, post, send};

#[tokio::test]
async fn metrics_count_tool_calls_by_outcome_and_name_the_corpus() {
    let state = http_state(true, 1000);
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resolve_metric","arguments":{"query":"inflación"}}}"#;
    send(&state, post(call, &[])).await;
    send(&state, post(call, &[])).await;
    let refused = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_series","arguments":{"indicator":"nope_nope","countries":["MEX"]}}}"#;
    send(&state, post(refused, &[])).await;
    let (response, bytes) = send(
        &state,
        Request::get("/metrics").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text")
    );
    let text = String::from_utf8(bytes).unwrap();
    let version = &state
        .server()
        .plugin()
        .corpus()
        .baked
        .manifest()
        .corpus_version
        .clone();
    assert!(
        text.contains(&format!(
            "lac_corpus_corpus_info{{corpus_version=\"{version}\"}} 1"
        )),
        "{text}"
    );
    // Counters are process-wide (other tests call tools too): these lines exist with a count.
    for line in [
        "lac_corpus_tool_calls_total{tool=\"resolve_metric\",outcome=\"cached\"}",
        "lac_corpus_tool_calls_total{tool=\"get_series\",outcome=\"tool_error\"}",
        "lac_corpus_tool_call_seconds_bucket{",
        "# TYPE lac_corpus_rate_limited_messages counter",
        "# TYPE lac_corpus_shed_connections counter",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    assert!(text.trim_end().ends_with("# EOF"));
}

#[tokio::test]
async fn health_says_what_is_loaded_and_since_when() {
    let (response, bytes) = send(
        &http_state(true, 60),
        Request::get("/api/mcp?health=1")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(response.status(), 200);
    let health: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(health["ok"], json!(true));
    assert!(
        health["observations"].as_u64().unwrap() > 400_000,
        "{health}"
    );
    assert!(health["indicators"].as_u64().unwrap() > 400, "{health}");
    assert!(health["tools"].as_u64().unwrap() >= 11);
    assert!(health["loaded_at_unix"].as_u64().unwrap() > 1_700_000_000);
    assert!(health["corpus_version"].is_string());
}

#[tokio::test]
async fn a_corpus_whose_search_index_cannot_be_read_serves_its_other_tools_and_its_probe_says_why()
{
    // The published corpus with one file of its search index lost after publication (the index is
    // read on first use, not at start-up).
    let out = tempfile::tempdir().unwrap();
    let real =
        std::fs::canonicalize(corpus::manifest::current_dir(crate::support::corpus_dir()).unwrap())
            .unwrap();
    let damaged = out.path().join("damaged");
    std::fs::create_dir(&damaged).unwrap();
    for entry in std::fs::read_dir(&real).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if name != "index" {
            std::os::unix::fs::symlink(&path, damaged.join(name)).unwrap();
        }
    }
    std::fs::create_dir(damaged.join("index")).unwrap();
    for entry in std::fs::read_dir(real.join("index")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "term") {
            std::fs::copy(&path, damaged.join("index").join(path.file_name().unwrap())).unwrap();
        }
    }
    std::os::unix::fs::symlink("damaged", out.path().join("current")).unwrap();
    let state = std::sync::Arc::new(server::transport::http::HttpState::new(
        server::build(out.path()).unwrap(),
        server::transport::http::HttpConfig::local(true, 1000),
    ));

    let (response, bytes) = send(
        &state,
        Request::get("/api/mcp?health=1")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(response.status(), 503);
    let health: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(health["ok"], json!(false), "{health}");
    let problem = health["search_index_error"].as_str().unwrap();
    assert!(problem.contains("index"), "{problem}");
    assert_eq!(problem.matches("search index").count(), 1, "{problem}");

    let call = |name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
            .to_string()
    };
    let (_, bytes) = send(
        &state,
        post(
            call("resolve_metric", json!({"query": "esperanza de vida"})),
            &[],
        ),
    )
    .await;
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(answer["error"]["code"], json!(-32603), "{answer}");
    // Mexico's life expectancy in 2011 (WDI), from the observation table, not the index.
    let (_, bytes) = send(
        &state,
        post(
            call(
                "get_series",
                json!({"indicator": "sp_dyn_le00_in", "countries": ["MEX"], "from_year": 2011, "to_year": 2011}),
            ),
            &[],
        ),
    )
    .await;
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    let series = &answer["result"]["structuredContent"]["result"]["series"][0];
    assert_eq!(series["points"], json!([[2011, 73.921]]), "{answer}");
}
