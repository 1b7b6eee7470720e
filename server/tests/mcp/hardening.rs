//! Argument caps (length, characters, items) before any work, in the server and in the listed
//! schemas, the per-call deadline over JSON-RPC and HTTP, and the caps on what a log line quotes.

use std::time::Duration;

use corpus::Lang;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use server::{
    load::Corpus,
    tools::{ToolAnswer, ToolError, ToolSpec},
    transport::jsonrpc::{McpServer, Reply},
};

use crate::support::{call_tool, corpus_dir, payload, server};

/// The `error` message of an `isError` result, asserting it is one.
fn refusal(tool: &str, arguments: Value) -> String {
    let answer = call_tool(tool, arguments);
    assert_eq!(answer["isError"], json!(true), "{tool}: {answer}");
    payload(&answer)["result"]["error"]
        .as_str()
        .expect("an error message")
        .to_string()
}

fn listed_tools(server: &McpServer) -> Vec<Value> {
    match server.handle_body(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})) {
        Reply::One { response, .. } => serde_json::from_str::<Value>(&response).unwrap()["result"]
            ["tools"]
            .as_array()
            .unwrap()
            .clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_250_kb_indicator_id_is_refused_by_its_cap_before_any_matching() {
    let huge = "x".repeat(250_000);
    let calls = [
        (
            "get_series",
            json!({"parameter": "salud", "indicator": huge, "countries": ["MEX"]}),
        ),
        (
            "compute",
            json!({"op": "change", "parameter": "salud", "indicator": huge, "country": "MEX"}),
        ),
        ("get_discoveries", json!({"indicator": huge})),
        (
            "compute",
            json!({"op": "correlation", "parameter": "salud", "indicator": "sp_dyn_le00_in", "indicator_b": huge}),
        ),
    ];
    for (tool, arguments) in calls {
        let message = refusal(tool, arguments);
        let argument = if message.contains("indicator_b") {
            "indicator_b"
        } else {
            "indicator"
        };
        assert!(
            message.contains(&format!("argument `{argument}` is 250000 characters long")),
            "{tool}: {message}"
        );
        assert!(message.contains("at most 128"), "{tool}: {message}");
        assert!(
            message.contains("^[A-Za-z0-9_.+-]*$"),
            "names the charset: {message}"
        );
        // The value is not echoed: a 60-character snippet at most.
        assert!(message.len() < 400, "{tool}: {} bytes", message.len());
        assert!(!message.contains("closest valid ids"), "{tool}: {message}");
    }
}

#[test]
fn free_text_names_and_argument_names_have_caps_too() {
    let message = refusal("resolve_metric", json!({"query": "vida ".repeat(101)}));
    assert!(
        message.contains("argument `query` is 505 characters long")
            && message.contains("at most 500"),
        "{message}"
    );
    let message = refusal(
        "get_parameter_data",
        json!({"parameter": "salud", "country": "M".repeat(129)}),
    );
    assert!(
        message.contains("argument `country` is 129 characters long")
            && message.contains("at most 128"),
        "{message}"
    );
    let message = refusal(
        "get_series",
        json!({"parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["MEX", "B".repeat(300)]}),
    );
    assert!(
        message.contains("argument `countries[1]` is 300 characters long"),
        "{message}"
    );
    let message = refusal(
        "search_corpus",
        json!({"query": "vida", "datasets": vec!["metrics"; 65]}),
    );
    assert!(
        message.contains("argument `datasets` holds 65 items; at most 64"),
        "{message}"
    );
    let message = refusal(
        "resolve_metric",
        json!({"query": "vida", "lang": "e".repeat(200)}),
    );
    assert!(
        message.contains("argument `lang` is 200 characters long"),
        "{message}"
    );
    let long_name = "n".repeat(1000);
    let message = refusal("resolve_metric", json!({"query": "vida", (long_name): 1}));
    assert!(
        message.contains("an argument name of 1000 characters") && message.contains("at most 64"),
        "{message}"
    );
}

#[test]
fn control_characters_are_refused_in_any_string() {
    let message = refusal("resolve_metric", json!({"query": "homicidios\u{7}"}));
    assert!(
        message.contains(
            "argument `query` (11 characters) holds the control character U+0007 at character 11"
        ),
        "{message}"
    );
    let message = refusal(
        "get_parameter_data",
        json!({"parameter": "salud", "country": "Méx\nico"}),
    );
    assert!(
        message.contains("argument `country`") && message.contains("U+000A"),
        "{message}"
    );
}

#[test]
fn a_non_ascii_indicator_id_is_refused_by_its_charset() {
    let message = refusal(
        "get_series",
        json!({"parameter": "salud", "indicator": "sp_dyn_lé00_in", "countries": ["MEX"]}),
    );
    assert!(
        message.contains(
            "argument `indicator` (`sp_dyn_lé00_in`, 14 characters) holds `é` at character 9"
        ),
        "{message}"
    );
    assert!(message.contains("ASCII letters, digits"), "{message}");
    let message = refusal(
        "resolve_citations",
        json!({"ids": ["wb-sp-dyn-le00-in-mex-2024", "wb sp"]}),
    );
    assert!(
        message.contains("argument `ids[1]`") && message.contains("holds ` `"),
        "{message}"
    );
}

#[test]
fn country_names_with_accents_still_resolve() {
    let answer = call_tool(
        "get_series",
        json!({"parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["México", "Perú"]}),
    );
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let answer = call_tool(
        "get_parameter_data",
        json!({"parameter": "educación", "country": "México"}),
    );
    assert_eq!(answer["isError"], json!(false), "{answer}");
}

/// Whether a property schema admits strings: `type` names `string`, or it has no `type` (a `$ref` or
/// `anyOf` to string enums).
fn admits_strings(property: &Value) -> bool {
    match &property["type"] {
        Value::String(kind) => kind == "string",
        Value::Array(kinds) => kinds.contains(&json!("string")),
        _ => true,
    }
}

#[test]
fn every_listed_string_argument_has_a_max_length_and_every_array_max_items() {
    for tool in listed_tools(server()) {
        let name = tool["name"].as_str().unwrap();
        let properties = tool["inputSchema"]["properties"].as_object().unwrap();
        for (argument, property) in properties {
            let is_array = match &property["type"] {
                Value::String(kind) => kind == "array",
                Value::Array(kinds) => kinds.contains(&json!("array")),
                _ => false,
            };
            if is_array {
                assert!(
                    property["maxItems"].is_u64(),
                    "{name}.{argument}: {property}"
                );
                if admits_strings(&property["items"]) {
                    assert!(
                        property["items"]["maxLength"].is_u64(),
                        "{name}.{argument} items: {property}"
                    );
                }
            }
            // A string enum is bounded by its values (the server still holds it to its kind's cap).
            if admits_strings(property) && property.get("enum").is_none() {
                assert!(
                    property["maxLength"].is_u64(),
                    "{name}.{argument}: {property}"
                );
            }
        }
        for identifier in [
            "indicator",
            "indicator_b",
            "dataset_id",
            "op",
            "method",
            "kind",
        ] {
            if let Some(property) = properties
                .get(identifier)
                .filter(|property| property.get("enum").is_none())
            {
                assert_eq!(
                    property["pattern"],
                    json!("^[A-Za-z0-9_.+-]*$"),
                    "{name}.{identifier}"
                );
            }
        }
    }
}

#[test]
fn the_listed_schemas_refuse_what_the_server_refuses() {
    let tools = listed_tools(server());
    let series = tools
        .iter()
        .find(|tool| tool["name"] == json!("get_series"))
        .unwrap();
    let validator = jsonschema::validator_for(&series["inputSchema"]).unwrap();
    let good =
        json!({"parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["México"]});
    assert!(validator.is_valid(&good));
    for bad in [
        json!({"parameter": "salud", "indicator": "x".repeat(129), "countries": ["MEX"]}),
        json!({"parameter": "salud", "indicator": "sp_dyn_lé00_in", "countries": ["MEX"]}),
        json!({"parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["M".repeat(129)]}),
    ] {
        assert!(!validator.is_valid(&bad), "{bad}");
    }
}

/// Input of the test-only tool that sleeps past the deadline.
#[derive(Debug, Deserialize, JsonSchema)]
struct SleepyInput {}

fn sleepy_handler(
    _corpus: &Corpus,
    _input: SleepyInput,
    _lang: Lang,
) -> Result<ToolAnswer<'_, Value>, ToolError> {
    std::thread::sleep(Duration::from_secs(5));
    Err(ToolError::Internal(
        "the sleepy tool woke up too late".into(),
    ))
}

/// The real tools plus `sleeps`, under a 1 s deadline.
fn sleepy_server() -> McpServer {
    let mut tools = server::tools::all();
    tools.push(ToolSpec::new(
        "sleeps",
        "Sleeps",
        "Test tool: sleeps past any small deadline.",
        &["observations"],
        sleepy_handler,
    ));
    server::build_with_tools(corpus_dir(), tools)
        .expect("the server builds")
        .with_call_deadline(Duration::from_secs(1))
}

#[test]
fn a_call_past_its_deadline_gets_32603_and_its_siblings_are_answered() {
    let slow = sleepy_server();
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "sleeps", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "resolve_metric", "arguments": {"query": "homicidios"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"}
    ]);
    let Reply::Many(responses) = slow.handle_body(&batch) else {
        panic!("a batch gets a batch")
    };
    let responses: Vec<Value> = responses
        .iter()
        .map(|response| serde_json::from_str(response).unwrap())
        .collect();
    assert_eq!(responses.len(), 3);
    assert_eq!(responses[0]["id"], json!(1));
    assert_eq!(
        responses[0]["error"]["code"],
        json!(-32603),
        "{}",
        responses[0]
    );
    assert_eq!(
        responses[0]["error"]["message"],
        json!("tool `sleeps` exceeded its 1 s deadline")
    );
    assert_eq!(responses[1]["id"], json!(2));
    assert_eq!(
        responses[1]["result"]["isError"],
        json!(false),
        "{}",
        responses[1]
    );
    assert_eq!(
        responses[2],
        json!({"jsonrpc": "2.0", "id": 3, "result": {}})
    );
    // The server keeps serving while the sleeper's thread is still asleep.
    let again = slow.handle_body(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "resolve_metric", "arguments": {"query": "desempleo"}}}));
    let Reply::One { response, .. } = again else {
        panic!("one answer")
    };
    let response: Value = serde_json::from_str(&response).unwrap();
    assert_eq!(response["result"]["isError"], json!(false), "{response}");
}

#[tokio::test]
async fn over_http_a_single_call_past_its_deadline_gets_32603_and_the_server_answers_the_next() {
    let slow = sleepy_server();
    let state = std::sync::Arc::new(server::transport::http::HttpState::new(
        slow,
        server::transport::http::HttpConfig::local(true, 1000),
    ));
    let call = |id: u32, name: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{{}}}}}}"#
        )
    };
    let (response, bytes) =
        crate::support::send(&state, crate::support::post(call(7, "sleeps"), &[])).await;
    assert_eq!(response.status(), 200);
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(answer["id"], json!(7));
    assert_eq!(answer["error"]["code"], json!(-32603), "{answer}");
    assert_eq!(
        answer["error"]["message"],
        json!("tool `sleeps` exceeded its 1 s deadline")
    );
    let (_, bytes) = crate::support::send(
        &state,
        crate::support::post(
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"resolve_metric","arguments":{"query":"homicidios"}}}"#,
            &[],
        ),
    )
    .await;
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
}

/// A writer into a shared buffer, for reading what the log says.
#[derive(Clone, Default)]
struct LogBuffer(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for LogBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_long_http_method_path_jsonrpc_method_or_id_is_cut_in_the_log() {
    use axum::{
        body::Body,
        http::{Method, Request},
    };

    let log = LogBuffer::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _default = tracing::subscriber::set_default(subscriber);
    let state = crate::support::http_state(true, 1000);
    let method = Method::from_bytes("X".repeat(5_000).as_bytes()).expect("a token");
    let request = Request::builder()
        .method(method)
        .uri(format!("/{}", "p".repeat(5_000)))
        .header("x-real-ip", "198.51.100.7")
        .body(Body::empty())
        .unwrap();
    let (response, _) = crate::support::send(&state, request).await;
    assert!(
        response.status().is_client_error(),
        "{:?}",
        response.status()
    );
    let message = json!({"jsonrpc": "2.0", "id": "i".repeat(5_000), "method": "m".repeat(5_000)});
    let (response, body) = crate::support::send(
        &state,
        crate::support::post(message.to_string(), &[("x-real-ip", "198.51.100.7")]),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert!(
        String::from_utf8_lossy(&body).contains("-32601"),
        "an unknown method: {}",
        String::from_utf8_lossy(&body)
    );

    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    // The line that names each client-given text, and what it carries of it: the first characters up to
    // the cap, then `…` (the id is quoted: its quote is its first character).
    for (needle, cut) in [
        ("XXX", format!("method={}…", "X".repeat(32))),
        ("ppp", format!("/{}…", "p".repeat(255))),
        ("mmm", format!("method={}…", "m".repeat(64))),
        ("iii", format!("\"{}…", "i".repeat(63))),
    ] {
        let line = text
            .lines()
            .find(|line| line.contains(needle))
            .unwrap_or_else(|| panic!("no line logs {needle}: {text}"));
        assert!(line.contains(&cut), "{line}");
    }
    for line in text.lines() {
        assert!(
            line.len() < 1_500,
            "a log line of {} bytes: {line}",
            line.len()
        );
    }
}

#[test]
fn the_curated_tools_stop_at_a_raised_cancel_flag_inside_their_loops() {
    use server::tools::cancel::{CancelFlag, run_with};

    let plugin = server().plugin();
    let raised = CancelFlag::default();
    raised.cancel();
    for (tool, arguments) in [
        (
            "compare_countries",
            json!({"parameter": "seguridad", "countries": ["MEX", "BRA", "COL"]}),
        ),
        (
            "get_regional_pulse",
            json!({"parameter": "salud", "limit": 10}),
        ),
        (
            "recommend_action",
            json!({"country": "MEX", "pillar": "salud"}),
        ),
        (
            "find_pilots",
            json!({"query": "energía renovable", "country": "BOL"}),
        ),
    ] {
        let spec = plugin.tool(tool).expect("a listed tool");
        // The tool itself, past the server's check before it starts: it answers with the flag down, and
        // with it raised stops at its first loop's checkpoint.
        let answered = spec.call(plugin.corpus(), arguments.clone(), Lang::En);
        assert!(answered.is_ok(), "{tool}: {:?}", answered.err());
        let stopped = run_with(&raised, || spec.call(plugin.corpus(), arguments, Lang::En));
        assert!(
            matches!(stopped, Err(ToolError::Cancelled)),
            "{tool}: {:?}",
            stopped.map(|output| output.payload.len())
        );
    }
}
