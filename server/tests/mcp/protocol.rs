//! Every row of `../shared/cases/protocol.md` in this issue's scope, over HTTP (router `oneshot`),
//! and the regressions found by trying to break the server.

use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::support::{http_state, post, send};

/// Posts `body` (with `headers`) to an enabled server and returns status and parsed body (Null if empty).
async fn check_post(body: &str, headers: &[(&str, &str)]) -> (StatusCode, Value) {
    let state = http_state(true, 1000);
    let (response, bytes) = send(&state, post(body.to_string(), headers)).await;
    let value = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).expect("a JSON body")
    };
    (response.status(), value)
}

fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error response: {response}"))
}

#[tokio::test]
async fn p1_p2_p4_notifications_get_202_and_an_empty_body() {
    for body in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
        r#"{"jsonrpc":"2.0","id":9,"method":"notifications/initialized"}"#,
    ] {
        assert_eq!(
            check_post(body, &[]).await,
            (StatusCode::ACCEPTED, Value::Null),
            "{body}"
        );
    }
}

#[tokio::test]
async fn p3_a_tool_call_without_id_is_processed_never_answered() {
    let body = r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"resolve_metric","arguments":{"query":"pib"}}}"#;
    assert_eq!(
        check_post(body, &[]).await,
        (StatusCode::ACCEPTED, Value::Null)
    );
}

#[tokio::test]
async fn p5_null_id_is_an_invalid_request_never_202() {
    let (status, response) =
        check_post(r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#, &[]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (error_code(&response), &response["id"]),
        (-32600, &Value::Null)
    );
}

#[tokio::test]
async fn p6_p7_bad_envelopes_are_bound_to_their_id() {
    let (status, response) = check_post(r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#, &[]).await;
    assert_eq!(
        (status, error_code(&response), response["id"].clone()),
        (StatusCode::BAD_REQUEST, -32600, json!("a"))
    );
    let (status, response) = check_post(r#"{"jsonrpc":"2.0","id":3,"method":42}"#, &[]).await;
    assert_eq!(
        (status, error_code(&response), response["id"].clone()),
        (StatusCode::BAD_REQUEST, -32600, json!(3))
    );
}

#[tokio::test]
async fn p8_a_truncated_body_is_a_parse_error() {
    let (status, response) = check_post(r#"{"jsonrpc":"2.0","#, &[]).await;
    assert_eq!(
        (status, error_code(&response), response["id"].clone()),
        (StatusCode::BAD_REQUEST, -32700, Value::Null)
    );
}

#[tokio::test]
async fn p9_p10_non_objects_and_empty_batches_are_invalid_requests() {
    for body in ["42", r#""x""#, "null", "[]"] {
        let (status, response) = check_post(body, &[]).await;
        assert_eq!(
            (status, error_code(&response), response["id"].clone()),
            (StatusCode::BAD_REQUEST, -32600, Value::Null),
            "{body}"
        );
    }
}

#[tokio::test]
async fn p11_a_batch_answers_in_order_with_ids_echoed() {
    let (status, response) = check_post(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"two","method":"ping"}]"#, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        response,
        json!([{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"two","result":{}}])
    );
}

#[tokio::test]
async fn p12_an_oversized_batch_is_one_error_and_charges_nothing() {
    let state = http_state(true, 60);
    let batch: Vec<Value> = (0..21)
        .map(|id| json!({"jsonrpc":"2.0","id":id,"method":"ping"}))
        .collect();
    let (response, bytes) = send(&state, post(Value::Array(batch).to_string(), &[])).await;
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        (error_code(&body), body["id"].clone()),
        (-32600, Value::Null)
    );
    assert!(state.limiter.is_empty(), "no rate budget charged");
}

#[tokio::test]
async fn p13_batch_siblings_are_isolated_and_notifications_add_nothing() {
    let body = json!([
        {"jsonrpc":"2.0","id":1,"method":"ping"},
        {"jsonrpc":"2.0","id":2,"method":"no/such/method"},
        {"jsonrpc":"2.0","method":"notifications/initialized"},
        {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"always_fails","arguments":{}}}
    ]);
    let (status, response) = check_post(&body.to_string(), &[]).await;
    assert_eq!(status, StatusCode::OK);
    let responses = response.as_array().expect("an array");
    assert_eq!(responses.len(), 3);
    assert_eq!(responses[0], json!({"jsonrpc":"2.0","id":1,"result":{}}));
    assert_eq!(
        (error_code(&responses[1]), responses[1]["id"].clone()),
        (-32601, json!(2))
    );
    assert_eq!(
        (error_code(&responses[2]), responses[2]["id"].clone()),
        (-32603, json!(3))
    );
}

#[tokio::test]
async fn p14_a_batch_of_notifications_gets_202() {
    let body = r#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/cancelled"}]"#;
    assert_eq!(
        check_post(body, &[]).await,
        (StatusCode::ACCEPTED, Value::Null)
    );
}

#[tokio::test]
async fn p15_p17_unknown_tools_and_non_object_arguments_are_invalid_params() {
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resolve_metric","arguments":[1,2]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resolve_metric","arguments":"x"}}"#,
    ] {
        let (status, response) = check_post(body, &[]).await;
        assert_eq!(
            (status, error_code(&response)),
            (StatusCode::OK, -32602),
            "{body}"
        );
    }
}

#[tokio::test]
async fn p16_missing_or_null_arguments_are_validated_as_empty() {
    for arguments in ["", r#","arguments":null"#] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"resolve_metric"{arguments}}}}}"#
        );
        let (status, response) = check_post(&body, &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(response["result"]["isError"], json!(true), "{body}");
        let text = response["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("missing field `query`"),
            "names the missing argument: {text}"
        );
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap()["citations"],
            crate::support::no_citations()
        );
    }
}

#[tokio::test]
async fn p18_initialize_negotiates_and_ignores_the_version_header() {
    for (offered, expected) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let body = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":offered,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}});
        let (status, response) =
            check_post(&body.to_string(), &[("mcp-protocol-version", "1999-01-01")]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(response["result"]["protocolVersion"], json!(expected));
        assert_eq!(
            response["result"]["serverInfo"]["name"],
            json!("lac-corpus")
        );
        assert!(response["result"]["serverInfo"]["title"].is_string());
        let instructions = response["result"]["instructions"].as_str().unwrap();
        assert!(
            instructions.contains("resolve_metric")
                && instructions.contains("citation_id")
                && instructions.contains("never fill in or invent")
        );
    }
}

#[tokio::test]
async fn p19_an_unsupported_version_header_is_400_outside_the_2020s_range() {
    let (status, response) = check_post(
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        &[("mcp-protocol-version", "1999-01-01")],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let code = error_code(&response);
    assert!(!(-32022..=-32020).contains(&code), "code {code}");
    let (status, _) = check_post(
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        &[("mcp-protocol-version", "2025-06-18")],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn p20_plain_get_is_405_naming_post() {
    let (response, _) = send(
        &http_state(true, 60),
        Request::get("/api/mcp")
            .body(axum::body::Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(
        response.headers()["allow"]
            .to_str()
            .unwrap()
            .contains("POST")
    );
}

#[tokio::test]
async fn p21_the_gate_fails_closed_and_health_still_answers() {
    let state = http_state(false, 60);
    let (response, bytes) = send(
        &state,
        Request::get("/api/mcp?health=1")
            .body(axum::body::Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let health: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(health["enabled"], json!(false));
    assert_eq!(
        (
            health["service"].clone(),
            health["transport"].clone(),
            health["max_batch"].clone()
        ),
        (json!("mcp"), json!("streamable-http"), json!(20))
    );
    assert!(health["corpus_version"].is_string());
    let (response, bytes) = send(
        &state,
        post(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &[]),
    )
    .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        serde_json::from_slice::<Value>(&bytes).unwrap(),
        json!({"error": "mcp_disabled"})
    );

    let (_, bytes) = send(
        &http_state(true, 60),
        Request::get("/api/mcp?health=1")
            .body(axum::body::Body::empty())
            .unwrap(),
    )
    .await;
    let health: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        (health["ok"].clone(), health["enabled"].clone()),
        (json!(true), json!(true))
    );
}

#[tokio::test]
async fn p22_a_300_kb_body_is_413_before_parsing_and_charging() {
    let state = http_state(true, 60);
    let padding = "x".repeat(300 * 1024);
    let body =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{padding}"}}}}"#);
    let (response, bytes) = send(&state, post(body, &[])).await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let error: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(error_code(&error), -32700);
    assert!(state.limiter.is_empty(), "no rate budget charged");
}

#[tokio::test]
async fn p23_the_61st_message_in_a_minute_is_429_with_retry_after() {
    let state = http_state(true, 60);
    for attempt in 1..=61 {
        let (response, bytes) = send(
            &state,
            post(
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                &[("x-real-ip", "203.0.113.9")],
            ),
        )
        .await;
        if attempt <= 60 {
            assert_eq!(response.status(), StatusCode::OK, "message {attempt}");
        } else {
            assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
            assert!(
                response.headers()["retry-after"]
                    .to_str()
                    .unwrap()
                    .parse::<u64>()
                    .unwrap()
                    >= 1
            );
            assert_eq!(error_code(&serde_json::from_slice(&bytes).unwrap()), -32000);
        }
    }
}

#[tokio::test]
async fn p24_forwarded_clients_are_charged_to_the_rightmost_address() {
    let state = http_state(true, 60);
    for attempt in 1..=61 {
        let forwarded = format!("198.51.100.{attempt}, 10.0.0.7");
        let (response, _) = send(
            &state,
            post(
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                &[("x-forwarded-for", &forwarded)],
            ),
        )
        .await;
        let expected = if attempt <= 60 {
            StatusCode::OK
        } else {
            StatusCode::TOO_MANY_REQUESTS
        };
        assert_eq!(response.status(), expected, "message {attempt}");
    }
    assert_eq!(state.limiter.len(), 1, "one key: 10.0.0.7");
}

#[tokio::test]
async fn p25_options_is_a_cors_preflight_for_allowed_origins() {
    let (response, _) = send(
        &http_state(true, 60),
        Request::options("/api/mcp")
            .header("origin", "http://localhost:6274")
            .body(axum::body::Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let header = |name: &str| response.headers()[name].to_str().unwrap().to_string();
    assert_eq!(
        header("access-control-allow-origin"),
        "http://localhost:6274"
    );
    assert_eq!(header("access-control-allow-methods"), "POST, OPTIONS");
    assert_eq!(
        header("access-control-allow-headers"),
        "Accept, Content-Type, Last-Event-ID, Mcp-Method, Mcp-Name, Mcp-Protocol-Version, Mcp-Session-Id"
    );
}

#[tokio::test]
async fn p26_an_unknown_lang_falls_back_to_spanish() {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resolve_metric","arguments":{"query":"esperanza de vida","lang":"fr"}}}"#;
    let (status, response) = check_post(body, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(response["result"]["isError"], json!(false));
    let first = &response["result"]["structuredContent"]["result"]["candidates"][0];
    assert_eq!(first["id"], json!("sp_dyn_le00_in"));
    assert_eq!(first["name"], json!("Esperanza de vida al nacer"));
}

#[tokio::test]
async fn p29_tools_list_names_and_schemas() {
    let (_, response) = check_post(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, &[]).await;
    let tools = response["result"]["tools"].as_array().unwrap();
    // The fifteen tools of the SPEC, the MCP-only search and fetch and the test-only `always_fails`; the
    // app-only `get_chart_data` is listed only to a client that negotiated MCP Apps (tests/mcp/apps.rs).
    assert_eq!(
        tools.len(),
        server::tools::model_tools().len() + server::tools::mcp_only_tools().len() + 1
    );
    assert_eq!(server::tools::model_tools().len(), 15);
    let name_pattern = |name: &str| {
        !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
    };
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        assert!(name_pattern(name), "{name}");
        assert_eq!(tool["inputSchema"]["type"], json!("object"), "{name}");
        assert_eq!(
            tool["inputSchema"]["properties"]["lang"]["enum"],
            json!(["es", "en", "pt"]),
            "{name}"
        );
        assert!(tool["outputSchema"].is_object(), "{name}");
        assert!(
            tool["title"].is_string() && tool["description"].is_string(),
            "{name}"
        );
    }
}

#[tokio::test]
async fn unknown_routes_and_every_response_carry_cors() {
    let (response, _) = send(
        &http_state(true, 60),
        post(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            &[("origin", "http://127.0.0.1:3000")],
        ),
    )
    .await;
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        "http://127.0.0.1:3000"
    );
    let public = crate::support::http_state_with(server::transport::http::HttpConfig {
        origins: server::transport::guard::OriginPolicy::Any,
        ..server::transport::http::HttpConfig::local(true, 60)
    });
    let (response, _) = send(
        &public,
        Request::get("/nowhere")
            .body(axum::body::Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
}

// Regressions found by trying to break the server (issue 3 review).

#[tokio::test]
async fn envelopes_without_a_method_are_invalid_and_client_responses_are_accepted() {
    for body in [
        "{}",
        r#"{"jsonrpc":"2.0"}"#,
        r#"{"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":5}"#,
    ] {
        let (status, response) = check_post(body, &[]).await;
        assert_eq!(
            (status, error_code(&response), response["id"].clone()),
            (StatusCode::BAD_REQUEST, -32600, Value::Null),
            "{body}"
        );
    }
    assert_eq!(
        check_post(r#"{"jsonrpc":"2.0","id":8,"result":{}}"#, &[]).await,
        (StatusCode::ACCEPTED, Value::Null)
    );
}

#[tokio::test]
async fn a_declared_oversized_length_is_refused_at_once() {
    let state = http_state(true, 60);
    let request = Request::post("/api/mcp")
        .header("content-type", "application/json")
        .header("content-length", "300000")
        .body(axum::body::Body::from("{}"))
        .unwrap();
    let (response, bytes) = send(&state, request).await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(error_code(&serde_json::from_slice(&bytes).unwrap()), -32700);
}

#[tokio::test]
async fn every_forwarded_for_line_counts_and_the_last_entry_is_charged() {
    let state = http_state(true, 60);
    for attempt in 1..=61 {
        let first_line = format!("198.51.100.{attempt}");
        let request = Request::post("/api/mcp")
            .header("content-type", "application/json")
            .header("x-forwarded-for", first_line.as_str())
            .header("x-forwarded-for", "10.1.0.99")
            .body(axum::body::Body::from(
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            ))
            .unwrap();
        let (response, _) = send(&state, request).await;
        let expected = if attempt <= 60 {
            StatusCode::OK
        } else {
            StatusCode::TOO_MANY_REQUESTS
        };
        assert_eq!(response.status(), expected, "message {attempt}");
    }
}

#[tokio::test]
async fn version_headers_are_all_checked_and_a_batched_initialize_ignores_them() {
    let request = Request::post("/api/mcp")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18")
        .header("mcp-protocol-version", "1999-01-01")
        .body(axum::body::Body::from(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        ))
        .unwrap();
    let (response, _) = send(&http_state(true, 60), request).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}]"#;
    let (status, response) = check_post(batch, &[("mcp-protocol-version", "1999-01-01")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        response[0]["result"]["protocolVersion"],
        json!("2025-06-18")
    );
}

#[tokio::test]
async fn other_methods_get_a_json_rpc_405() {
    for method in ["GET", "PUT", "DELETE"] {
        let request = Request::builder()
            .method(method)
            .uri("/api/mcp")
            .body(axum::body::Body::empty())
            .unwrap();
        let (response, bytes) = send(&http_state(true, 60), request).await;
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method}"
        );
        assert_eq!(response.headers()["allow"], "POST, OPTIONS", "{method}");
        assert_eq!(
            error_code(&serde_json::from_slice(&bytes).unwrap()),
            -32601,
            "{method}"
        );
    }
}

#[tokio::test]
async fn tool_errors_carry_structured_content_and_name_the_argument() {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_series","arguments":{"parameter":"salud","indicator":"sp_dyn_le00_in","countries":["MEX"],"from_year":"twenty twenty"}}}"#;
    let (_, response) = check_post(body, &[]).await;
    assert_eq!(response["result"]["isError"], json!(true));
    let message = response["result"]["structuredContent"]["result"]["error"]
        .as_str()
        .unwrap();
    assert!(
        message.contains("argument `from_year`") && message.contains("lang (es|en|pt)"),
        "{message}"
    );
}

#[tokio::test]
async fn a_repeated_call_is_answered_from_the_cache_with_the_same_result() {
    let call = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_series","arguments":{{"parameter":"salud","indicator":"sp_dyn_le00_in","countries":["URY","CHL"],"lang":"pt"}}}}}}"#
        )
    };
    let (_, first) = check_post(&call(1), &[]).await;
    let (_, second) = check_post(&call(2), &[]).await;
    assert_eq!(second["id"], json!(2));
    assert_eq!(first["result"], second["result"]);
    // The same arguments in another spelling normalise to the same call.
    let spelled = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_series","arguments":{"lang":"pt","countries":["Uruguay","chile"],"indicator":"sp_dyn_le00_in","parameter":"health"}}}"#;
    let (_, third) = check_post(spelled, &[]).await;
    // The same answer, saying how the names were read.
    let mut third = third["result"].clone();
    let content =
        serde_json::from_str::<Value>(third["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(content["read"], json!({"Uruguay": "URY", "chile": "CHL"}));
    assert_eq!(
        third["structuredContent"]["read"],
        json!({"Uruguay": "URY", "chile": "CHL"})
    );
    let first_text =
        serde_json::from_str::<Value>(first["result"]["content"][0]["text"].as_str().unwrap())
            .unwrap();
    let mut without = content.clone();
    without.as_object_mut().unwrap().remove("read");
    assert_eq!(first_text, without);
    third["structuredContent"]
        .as_object_mut()
        .unwrap()
        .remove("read");
    assert_eq!(
        first["result"]["structuredContent"],
        third["structuredContent"]
    );
}

#[tokio::test]
async fn ids_are_echoed_exactly_as_written() {
    let state = http_state(true, 1000);
    let raw = |body: String| {
        let state = state.clone();
        async move {
            let (_, bytes) = send(&state, post(body, &[])).await;
            String::from_utf8(bytes).expect("UTF-8")
        }
    };
    let call = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"resolve_metric","arguments":{{"query":"esperanza de vida"}}}}}}"#
        )
    };
    // Past 64 bits, a float spelled with a zero fraction, a string with an escape: the first call runs
    // the tool, the second is answered by the exact text of its params; both echo the id as written.
    for id in ["123456789012345678901234567890", "7.0", r#""a\u0041""#] {
        for _ in 0..2 {
            let answer = raw(call(id)).await;
            assert!(
                answer.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"#)),
                "{}",
                &answer[..answer.len().min(120)]
            );
        }
    }
    let unknown =
        raw(r#"{"jsonrpc":"2.0","id":98765432109876543210,"method":"nope"}"#.into()).await;
    assert!(
        unknown.starts_with(r#"{"jsonrpc":"2.0","id":98765432109876543210,"error":{"code":-32601"#),
        "{unknown}"
    );
    let batch = raw(
        r#"[{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"},{"jsonrpc":"2.0","id":-0.50,"method":"ping"}]"#.into(),
    )
    .await;
    assert_eq!(
        batch,
        r#"[{"jsonrpc":"2.0","id":18446744073709551616,"result":{}},{"jsonrpc":"2.0","id":-0.50,"result":{}}]"#
    );
    // An id out of range for the parser is a parse error, also for params answered before.
    let params = r#""method":"tools/call","params":{"name":"resolve_metric","arguments":{"query":"esperanza de vida"}}}"#;
    let out_of_range = raw(format!(
        r#"{{"jsonrpc":"2.0","id":12e3456789012345678,{params}"#
    ))
    .await;
    assert!(out_of_range.contains("-32700"), "{out_of_range}");
    // Whatever the full path cannot read is not read past on the fast path either: an extra field out
    // of range or with a lone surrogate, a lone-surrogate id, the positional array form.
    let surrogate = format!(r#"{{"jsonrpc":"2.0","id":"\ud800",{params}"#);
    assert!(
        raw(surrogate.clone()).await.contains("-32700"),
        "{surrogate}"
    );
    let extra = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resolve_metric","arguments":{"query":"esperanza de vida"}},"x":1e999}"#;
    assert!(raw(extra.into()).await.contains("-32700"));
    let positional = r#"["2.0",1,"tools/call",{"name":"resolve_metric","arguments":{"query":"esperanza de vida"}}]"#;
    let answer = raw(positional.into()).await;
    assert!(
        answer.starts_with('[') && answer.contains("-32600"),
        "{answer}"
    );
    // A duplicated `id` reads as JSON parsers read it: the last one.
    let duplicated = raw(r#"{"jsonrpc":"2.0","id":1,"method":"ping","id":2}"#.into()).await;
    assert_eq!(duplicated, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    // On stdio too.
    let line = crate::support::server()
        .handle_text(r#"{"jsonrpc":"2.0","id":36893488147419103232,"method":"ping"}"#)
        .into_body()
        .unwrap();
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":36893488147419103232,"result":{}}"#
    );
}

#[tokio::test]
async fn a_call_repeated_word_for_word_gets_the_same_bytes_and_is_still_charged() {
    // A limit of 2 a minute: the first call runs the tool, the second is a repeat, the third is refused.
    let state = http_state(true, 2);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_series","arguments":{"indicator":"sp_dyn_le00_in","countries":["PRY"],"from_year":2019,"to_year":2021}}}"#;
    let client = [("x-real-ip", "203.0.113.9")];
    let (first_response, first) = send(&state, post(body, &client)).await;
    let (second_response, second) = send(&state, post(body, &client)).await;
    assert_eq!(first_response.status(), StatusCode::OK);
    assert_eq!(second_response.status(), StatusCode::OK);
    assert_eq!(first, second);
    let answer: Value = serde_json::from_slice(&second).unwrap();
    let points = &answer["result"]["structuredContent"]["result"]["series"][0]["points"];
    assert_eq!(points.as_array().map(Vec::len), Some(3), "{answer}");
    let (third_response, _) = send(&state, post(body, &client)).await;
    assert_eq!(third_response.status(), StatusCode::TOO_MANY_REQUESTS);
    // An unsupported protocol version is refused, even for a call answered before.
    let (refused, _) = send(
        &http_state(true, 1000),
        post(body, &[("mcp-protocol-version", "1999-01-01")]),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn addresses_of_one_ipv6_64_share_one_budget_and_another_64_has_its_own() {
    let state = http_state(true, 5);
    let ping = || r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut statuses = Vec::new();
    for host in 1..=8 {
        let address = format!("2001:db8:7:9::{host:x}");
        let (response, _) = send(&state, post(ping(), &[("x-real-ip", &address)])).await;
        statuses.push(response.status().as_u16());
    }
    // Eight hosts of 2001:db8:7:9::/64 are one client: five messages pass, then 429.
    assert_eq!(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
    let (response, _) = send(&state, post(ping(), &[("x-real-ip", "2001:db8:7:a::1")])).await;
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "the next /64 is another client"
    );
    let (response, _) = send(&state, post(ping(), &[("x-real-ip", "203.0.113.77")])).await;
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "IPv4 clients are their address"
    );
}
