//! MCP 2026-07-28 served beside 2025-11-25 and 2025-06-18: per-request `_meta`, `server/discover`, result
//! types and caching hints, its error codes, its HTTP headers and statuses, and MCP Apps negotiated per
//! request; the legacy answers stay as they were.

use axum::body::Body;
use serde_json::{Value, json};
use server::transport::apps::{EXTENSION_ID, RESOURCE_MIME_TYPE};

use crate::support::{http_state, post, send};

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "modern-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities
    })
}

fn request(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta(json!({}));
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn post_modern(
    message: &Value,
    headers: &[(&str, &str)],
) -> (axum::http::Response<Body>, Value) {
    let state = http_state(true, 6000);
    let (response, bytes) = send(&state, post(message.to_string(), headers)).await;
    (
        response,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

const VERSION: (&str, &str) = ("mcp-protocol-version", "2026-07-28");

#[tokio::test]
async fn discover_and_a_tool_call_answer_with_the_revisions_fields() {
    let discover = request(1, "server/discover", json!({}));
    let (response, answer) =
        post_modern(&discover, &[VERSION, ("mcp-method", "server/discover")]).await;
    assert_eq!(response.status(), 200);
    let result = &answer["result"];
    assert_eq!(result["resultType"], json!("complete"));
    assert_eq!(result["cacheScope"], json!("public"));
    assert!(result["ttlMs"].as_u64().unwrap() > 0);
    // The versions a request may name in `_meta` (2025-11-25 and 2025-06-18 go through initialize).
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("lac-corpus")
    );
    assert!(response.headers().get("mcp-session-id").is_none());

    let call = request(
        2,
        "tools/call",
        json!({"name": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["MEX"]}}),
    );
    let headers = [
        VERSION,
        ("mcp-method", "tools/call"),
        ("mcp-name", "get_series"),
    ];
    let (response, answer) = post_modern(&call, &headers).await;
    assert_eq!(response.status(), 200);
    assert_eq!(answer["result"]["resultType"], json!("complete"));
    // WDI: life expectancy at birth in Mexico, 2024.
    assert_eq!(
        answer["result"]["structuredContent"]["result"]["series"][0]["latest"],
        json!([2024, 75.264])
    );
    // The same call again is answered from the cache, still in the revision's shape.
    let (_, again) = post_modern(&call, &headers).await;
    assert_eq!(again, answer);
}

#[tokio::test]
async fn mirrored_headers_versions_methods_and_batches_are_refused_by_status_and_code() {
    let call = request(
        3,
        "tools/call",
        json!({"name": "get_series", "arguments": {}}),
    );
    for (headers, what) in [
        (vec![VERSION, ("mcp-method", "tools/call")], "no Mcp-Name"),
        (
            vec![
                VERSION,
                ("mcp-method", "tools/list"),
                ("mcp-name", "get_series"),
            ],
            "another method",
        ),
        (
            vec![
                ("mcp-protocol-version", "2025-11-25"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "get_series"),
            ],
            "another version",
        ),
    ] {
        let (response, answer) = post_modern(&call, &headers).await;
        assert_eq!(response.status(), 400, "{what}");
        assert_eq!(answer["error"]["code"], json!(-32020), "{what}: {answer}");
        assert_eq!(answer["id"], json!(3));
    }
    // A Base64 sentinel stands for the name it encodes.
    let read = request(
        4,
        "resources/read",
        json!({"uri": "corpus://indicator/no_such.csv"}),
    );
    let encoded = "=?base64?Y29ycHVzOi8vaW5kaWNhdG9yL25vX3N1Y2guY3N2?=";
    let (response, answer) = post_modern(
        &read,
        &[
            VERSION,
            ("mcp-method", "resources/read"),
            ("mcp-name", encoded),
        ],
    )
    .await;
    assert_eq!(response.status(), 200);
    // 2026-07-28 names a resource not found an invalid parameter.
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");

    let mut old = request(5, "tools/list", json!({}));
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let (response, answer) = post_modern(
        &old,
        &[
            ("mcp-protocol-version", "1900-01-01"),
            ("mcp-method", "tools/list"),
        ],
    )
    .await;
    assert_eq!(response.status(), 400);
    assert_eq!(answer["error"]["code"], json!(-32022));
    assert_eq!(answer["error"]["data"]["requested"], json!("1900-01-01"));

    // A legacy version named per request is refused, saying how it is served.
    let mut legacy_version = request(12, "tools/list", json!({}));
    legacy_version["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] =
        json!("2025-11-25");
    let (response, answer) = post_modern(
        &legacy_version,
        &[
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-method", "tools/list"),
        ],
    )
    .await;
    assert_eq!(response.status(), 400);
    assert_eq!(answer["error"]["data"]["supported"], json!(["2026-07-28"]));
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("through initialize")
    );

    let ping = request(6, "ping", json!({}));
    let (response, answer) = post_modern(&ping, &[VERSION, ("mcp-method", "ping")]).await;
    assert_eq!(
        (response.status().as_u16(), &answer["error"]["code"]),
        (404, &json!(-32601))
    );

    let (response, answer) = post_modern(&json!([ping, ping]), &[VERSION]).await;
    assert_eq!(response.status(), 400);
    assert_eq!(answer["error"]["code"], json!(-32600));
    // A batch has no id of its own: the refusal's is null, never the first message.
    assert_eq!(answer["id"], Value::Null, "{answer}");

    // A modern version header on a body without the revision's `_meta`, and `_meta` without client
    // capabilities: required fields missing.
    let legacy_body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"});
    let (response, answer) =
        post_modern(&legacy_body, &[VERSION, ("mcp-method", "tools/list")]).await;
    assert_eq!(
        (response.status().as_u16(), &answer["error"]["code"]),
        (400, &json!(-32602))
    );
    let mut bare = request(8, "tools/list", json!({}));
    bare["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let (response, answer) = post_modern(&bare, &[VERSION, ("mcp-method", "tools/list")]).await;
    assert_eq!(
        (response.status().as_u16(), &answer["error"]["code"]),
        (400, &json!(-32602))
    );
}

#[tokio::test]
async fn refusals_echo_the_id_as_written_and_trust_no_doubled_header_or_cached_answer() {
    let state = http_state(true, 6000);
    // A doubled header may be read differently by an intermediary: it matches nothing.
    let call = request(13, "tools/list", json!({}));
    let doubled = axum::http::Request::post("/api/mcp")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .header("mcp-method", "tools/call")
        .body(Body::from(call.to_string()))
        .unwrap();
    let (response, bytes) = send(&state, doubled).await;
    assert_eq!(response.status(), 400);
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(answer["error"]["code"], json!(-32020));
    // An id past 64 bits comes back digit for digit.
    let text = call
        .to_string()
        .replace(r#""id":13"#, r#""id":123456789012345678901234567890"#);
    let (response, bytes) = send(&state, post(text, &[VERSION, ("mcp-method", "ping")])).await;
    assert_eq!(response.status(), 400);
    assert!(
        std::str::from_utf8(&bytes)
            .unwrap()
            .contains(r#""id":123456789012345678901234567890"#)
    );
    // A legacy body answered (and cached) before is still refused under a 2026-07-28 header.
    let legacy = json!({"jsonrpc": "2.0", "id": 14, "method": "tools/call",
        "params": {"name": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["URY"]}}})
    .to_string();
    let (first, _) = send(&state, post(legacy.clone(), &[])).await;
    assert_eq!(first.status(), 200);
    let headers = [
        VERSION,
        ("mcp-method", "tools/call"),
        ("mcp-name", "get_series"),
    ];
    let (second, bytes) = send(&state, post(legacy, &headers)).await;
    assert_eq!(second.status(), 400);
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(answer["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn mcp_apps_is_negotiated_per_request_and_the_legacy_answers_are_unchanged() {
    let mut listing = request(9, "tools/list", json!({}));
    let headers = [VERSION, ("mcp-method", "tools/list")];
    let (_, plain) = post_modern(&listing, &headers).await;
    let names = |answer: &Value| -> Vec<String> {
        answer["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(!names(&plain).contains(&"get_chart_data".to_string()));
    listing["params"]["_meta"] =
        meta(json!({"extensions": {EXTENSION_ID: {"mimeTypes": [RESOURCE_MIME_TYPE]}}}));
    let (response, apps) = post_modern(&listing, &headers).await;
    assert_eq!(names(&apps).len(), names(&plain).len() + 1);
    assert!(names(&apps).contains(&"get_chart_data".to_string()));
    assert!(
        response.headers().get("mcp-session-id").is_none(),
        "no session in 2026-07-28"
    );

    // The legacy revisions: no resultType, ping answers, a resource not found is -32002.
    let (_, legacy) = post_modern(
        &json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}),
        &[("mcp-protocol-version", "2025-11-25")],
    )
    .await;
    assert!(legacy["result"].get("resultType").is_none());
    assert_eq!(
        legacy["result"]["tools"], plain["result"]["tools"],
        "the same tools in both eras"
    );
    let (_, missing) = post_modern(
        &json!({"jsonrpc": "2.0", "id": 11, "method": "resources/read", "params": {"uri": "corpus://nope"}}),
        &[],
    )
    .await;
    assert_eq!(missing["error"]["code"], json!(-32002));
}

#[test]
fn over_stdio_a_dual_era_client_probes_with_discover_then_either_era_is_served() {
    // A 2026-07-28 `initialize` advertising MCP Apps is refused and negotiates nothing.
    let mut modern_initialize = request(
        20,
        "initialize",
        json!({"capabilities": {"extensions": {EXTENSION_ID: {}}}}),
    );
    modern_initialize["params"]["_meta"] = meta(json!({}));
    let lines = crate::support::stdio_exchange(&[
        request(1, "server/discover", json!({})).to_string(),
        modern_initialize.to_string(),
        r#"{"jsonrpc":"2.0","id":21,"method":"tools/list"}"#.to_string(),
        request(2, "resources/read", json!({"uri": "corpus://indicator/si_pov_gini.csv"})).to_string(),
        r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#.to_string(),
    ]);
    assert_eq!(
        lines[0]["result"]["supportedVersions"][0],
        json!("2026-07-28")
    );
    assert_eq!(lines[1]["error"]["code"], json!(-32601));
    let tools = lines[2]["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().all(|tool| tool["name"] != "get_chart_data"));
    let lines = &lines[2..];
    let read = &lines[1]["result"];
    assert_eq!(read["resultType"], json!("complete"));
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("indicator,")
    );
    assert_eq!(lines[2]["result"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(lines[3]["result"], json!({}));
}

#[tokio::test]
async fn a_repeated_modern_call_is_answered_from_its_text_as_the_full_path_would_and_only_when_mirrored()
 {
    let state = http_state(true, 6000);
    let call = request(
        21,
        "tools/call",
        json!({"name": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["PRY"]}}),
    )
    .to_string();
    let headers = [
        VERSION,
        ("mcp-method", "tools/call"),
        ("mcp-name", "get_series"),
    ];
    // The first answer runs the tool (and files the modern-shaped result under the params' text); the
    // second is read from it: the same bytes, the revision's fields included.
    let (first, first_bytes) = send(&state, post(call.clone(), &headers)).await;
    assert_eq!(first.status(), 200);
    let (second, second_bytes) = send(&state, post(call.clone(), &headers)).await;
    assert_eq!(second.status(), 200);
    assert_eq!(first_bytes, second_bytes);
    let answer: Value = serde_json::from_slice(&second_bytes).unwrap();
    assert_eq!(answer["result"]["resultType"], json!("complete"));
    assert_eq!(answer["result"]["isError"], json!(false));
    // A header that does not mirror the body is still refused, cached answer or not.
    let wrong = [
        VERSION,
        ("mcp-method", "tools/call"),
        ("mcp-name", "compare_countries"),
    ];
    let (refused, _) = send(&state, post(call.clone(), &wrong)).await;
    assert_eq!(refused.status(), 400);
    // Without the revision's headers, the modern body is refused too (never the legacy cache's answer).
    let (legacy_headers, _) = send(&state, post(call, &[])).await;
    assert_eq!(legacy_headers.status(), 400);
    // A call first answered through the legacy cache (same arguments) is filed for the modern text too.
    let legacy = json!({"jsonrpc": "2.0", "id": 22, "method": "tools/call",
        "params": {"name": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["BOL"]}}})
    .to_string();
    send(&state, post(legacy, &[])).await;
    let modern = request(
        23,
        "tools/call",
        json!({"name": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["BOL"]}}),
    )
    .to_string();
    let (_, once) = send(&state, post(modern.clone(), &headers)).await;
    let (_, twice) = send(&state, post(modern, &headers)).await;
    assert_eq!(once, twice);
}
