use serde_json::{Value, json};

use crate::support::{call_tool, server};

/// A successful call of every tool, with arguments that exercise its whole output.
fn successful_calls() -> Vec<(&'static str, Value)> {
    vec![
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
    ]
}

#[test]
fn every_tool_result_validates_against_its_output_schema() {
    let tools = server().plugin().tools();
    let calls = successful_calls();
    for tool in tools.iter().filter(|tool| tool.name != "always_fails") {
        let (_, arguments) = calls
            .iter()
            .find(|(name, _)| *name == tool.name)
            .unwrap_or_else(|| panic!("a successful call of {}", tool.name));
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
            "{} output does not match its schema: {errors:?}",
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
fn every_input_schema_accepts_the_calls_and_compiles() {
    for tool in server().plugin().tools() {
        let validator = jsonschema::validator_for(&tool.input_schema)
            .unwrap_or_else(|error| panic!("{} inputSchema compiles: {error}", tool.name));
        if let Some((_, arguments)) = successful_calls()
            .into_iter()
            .find(|(name, _)| *name == tool.name)
        {
            assert!(
                validator.is_valid(&arguments),
                "{} accepts {arguments}",
                tool.name
            );
        }
    }
}
