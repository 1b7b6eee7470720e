//! Every tool's successful and error results validate against its own `outputSchema`, and every
//! published input schema accepts the calls the tests make.

use serde_json::{Value, json};

use crate::support::{call_tool, server};

/// A successful call of every tool, with arguments that exercise its whole output.
fn successful_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("search", json!({"query": "esperanza de vida México"})),
        ("fetch", json!({"id": "series:sp_dyn_le00_in:MEX"})),
        ("fetch", json!({"id": "wbproj-p127837"})),
        (
            "resolve_metric",
            json!({"query": "life expectancy", "pillar": "salud", "limit": 10}),
        ),
        (
            "get_series",
            json!({"parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["MEX", "AIA"], "from_year": 2000}),
        ),
        (
            "compare_countries",
            json!({"parameter": "gobernanza", "countries": ["MEX", "BRA"]}),
        ),
        (
            "resolve_citations",
            json!({"ids": ["wb-sp-dyn-le00-in-mex-2024", "calc-1"]}),
        ),
        (
            "resolve_citations",
            json!({"ids": ["wb-sp-dyn-le00-in-mex-2024", "wbproj-p127837"], "format": "csl-json"}),
        ),
        (
            "verify_claims",
            json!({"claims": [
                {"text": "Mexico's life expectancy was 75.3 years in 2023"},
                {"text": "Argentina's GDP growth was 3.6% in 2024"},
                {"text": "Spain's GDP growth was 3.2% in 2024"},
                {"indicator": "cc_est", "country": "URY", "year": 2023, "value": 1.3}
            ]}),
        ),
        (
            "compute",
            json!({"op": "revision", "indicator": "ngdp_rpch", "country": "BRA", "year": 2019}),
        ),
        ("search_corpus", json!({"query": "homicidios"})),
        ("get_regional_pulse", json!({"parameter": "seguridad"})),
        (
            "compute",
            json!({"op": "explain_change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "COL", "from_year": 2005}),
        ),
        (
            "get_data_health",
            json!({"parameter": "seguridad", "country": "COL"}),
        ),
        ("get_data_health", json!({})),
        (
            "get_discoveries",
            json!({"parameter": "economia", "limit": 5}),
        ),
        (
            "get_parameter_data",
            json!({"parameter": "economia", "country": "ARG", "lang": "en"}),
        ),
        ("get_dataset", json!({"dataset_id": "catalog"})),
        (
            "get_dataset",
            json!({"dataset_id": "observations", "indicator": "sp_dyn_le00_in", "country": "MEX", "limit": 3}),
        ),
        (
            "get_dataset",
            json!({"dataset_id": "metrics", "id": "vc_ihr_psrc_p5"}),
        ),
        (
            "compute",
            json!({"op": "change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX"}),
        ),
        (
            "compute",
            json!({"op": "cagr", "parameter": "economia", "indicator": "ny_gdp_pcap_cd", "country": "BRA", "from_year": 2015}),
        ),
        (
            "compute",
            json!({"op": "rank", "parameter": "pobreza", "indicator": "si_pov_gini", "year": 2024}),
        ),
        (
            "compute",
            json!({"op": "gap_to_frontier", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "BOL"}),
        ),
        (
            "compute",
            json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "PER"}),
        ),
        ("get_pilot", json!({"slug": "p102479"})),
        (
            "recommend_action",
            json!({"country": "MEX", "pillar": "salud"}),
        ),
        (
            "get_news",
            json!({"parameter": "medio_ambiente", "country": "ECU", "limit": 20}),
        ),
        (
            "find_pilots",
            json!({"country": "BOL", "parameter": "energia", "query": "electricity"}),
        ),
        (
            "compute",
            json!({"op": "correlation", "parameter": "salud", "indicator": "sp_dyn_le00_in", "indicator_b": "sh_dyn_mort"}),
        ),
        (
            "get_chart_data",
            json!({"tool": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["MEX", "AIA"]}}),
        ),
        (
            "get_chart_data",
            json!({"tool": "compute", "arguments": {"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "PER"}}),
        ),
    ]
}

#[test]
fn every_tool_result_validates_against_its_output_schema() {
    let tools = server().plugin().tools();
    let calls = successful_calls();
    for tool in tools.iter().filter(|tool| tool.name != "always_fails") {
        assert!(
            calls.iter().any(|(name, _)| *name == tool.name),
            "a successful call of {}",
            tool.name
        );
    }
    for (name, arguments) in calls {
        let tool = tools.iter().find(|tool| tool.name == name).unwrap();
        let answer = call_tool(tool.name, arguments.clone());
        assert_eq!(answer["isError"], json!(false), "{}: {answer}", tool.name);
        let validator = jsonschema::validator_for(&tool.output_schema)
            .unwrap_or_else(|error| panic!("{} outputSchema compiles: {error}", tool.name));
        let structured = &answer["structuredContent"];
        let errors: Vec<String> = validator
            .iter_errors(structured)
            .map(|error| format!("{error} at {}", error.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{} {arguments} output does not match its schema: {errors:?}",
            tool.name
        );
        // The text block carries the same result and citations.
        let text: Value =
            serde_json::from_str(answer["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text["result"], structured["result"], "{}", tool.name);
        assert_eq!(text["citations"], structured["citations"], "{}", tool.name);
    }
}

#[test]
fn every_published_input_schema_accepts_the_calls() {
    let listed =
        match server().handle_body(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})) {
            server::transport::jsonrpc::Reply::One { response, .. } => {
                serde_json::from_str::<Value>(&response).unwrap()
            }
            other => panic!("{other:?}"),
        };
    for tool in listed["result"]["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let validator = jsonschema::validator_for(&tool["inputSchema"])
            .unwrap_or_else(|error| panic!("{name} inputSchema compiles: {error}"));
        for (_, arguments) in successful_calls()
            .into_iter()
            .filter(|(call, _)| *call == name)
        {
            assert!(validator.is_valid(&arguments), "{name} accepts {arguments}");
        }
    }
}

#[test]
fn error_results_validate_against_the_output_schema_too() {
    // Clients such as the TypeScript SDK validate every structuredContent, isError or not.
    let tools = server().plugin().tools();
    for tool in tools.iter().filter(|tool| tool.name != "always_fails") {
        let answer = call_tool(tool.name, json!({"no_such_argument": 1}));
        assert_eq!(answer["isError"], json!(true), "{}: {answer}", tool.name);
        let validator = jsonschema::validator_for(&tool.output_schema).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&answer["structuredContent"])
            .map(|error| format!("{error} at {}", error.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", tool.name);
    }
}
