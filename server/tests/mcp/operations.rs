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
