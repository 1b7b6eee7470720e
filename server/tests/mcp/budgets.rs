//! Answer sizes are behaviour: the budgets of SPEC §4.3 on the real corpus (compact JSON of
//! `structuredContent`, what hosts hand the model), paging that says what is left, and a lean
//! `tools/list`.

use serde_json::{Value, json};

use crate::support::{call_tool, cited_ids, payload, server};

/// Any default answer.
const ANSWER_BUDGET: usize = 40 * 1024;
/// `tools/list` in all, compact JSON: within 8.75k tokens (ChatGPT refuses a connector whose tools pass
/// 16,000 tokens); output schemas keep each answer's top-level fields and the citation maps, not every
/// nested record (46.8 KB before issue 27; 32,000 B until issue 28 added verify_claims, compute's
/// revision and citation formats).
pub const TOOLS_LIST_BUDGET: usize = 35_000;
/// What of `tools/list` reaches the model: hosts hand it each tool's name, description and input schema
/// (an output schema stays with the client, which validates `structuredContent` against it); 28.6 KB
/// before issue 27, 16,000 B until issue 28 added verify_claims (its claim schema), compute's revision
/// and citation formats.
const MODEL_FACING_BUDGET: usize = 18_500;
/// The longest tool description: self-sufficient within 1,000 characters (Claude Code cuts at 2,048).
const DESCRIPTION_CHARS: usize = 1000;

/// Bytes of a result's `structuredContent` as compact JSON, after checking the call succeeded.
fn size(name: &str, arguments: Value) -> usize {
    let answer = call_tool(name, arguments.clone());
    assert_eq!(
        answer["isError"],
        json!(false),
        "{name} {arguments}: {answer}"
    );
    // Every answer keeps the citation contract: each stored number maps to records it carries.
    cited_ids(&answer["structuredContent"]);
    serde_json::to_string(&answer["structuredContent"])
        .unwrap()
        .len()
}

fn pillars() -> Vec<String> {
    server()
        .plugin()
        .corpus()
        .baked
        .pillars()
        .pillars()
        .iter()
        .map(|pillar| pillar.id.clone())
        .collect()
}

#[test]
fn a_three_country_series_of_every_year_fits_in_12_kb() {
    let bytes = size(
        "get_series",
        json!({"indicator": "sp_dyn_le00_in", "countries": ["MEX", "BRA", "ARG"]}),
    );
    assert!(bytes <= 12 * 1024, "{bytes} B");
    let bytes = size(
        "get_series",
        json!({"indicator": "sp_dyn_le00_in", "countries": ["ARG", "BRA", "CHL", "COL", "MEX", "PER", "URY", "BOL"]}),
    );
    assert!(bytes <= ANSWER_BUDGET, "8 countries: {bytes} B");
}

/// A default answer (no `limit`): within 10 KB, what GitHub Copilot CLI and Codex hand the model whole.
const DEFAULT_ANSWER: usize = server::tools::DEFAULT_ANSWER_BYTES;

#[test]
fn every_tool_at_its_defaults_answers_within_10_kb_in_three_languages() {
    let mut calls: Vec<(&str, Value)> = Vec::new();
    for lang in ["es", "en", "pt"] {
        for pillar in pillars() {
            for country in ["BRA", "MEX", "HTI", "PER"] {
                for tool in [
                    "get_parameter_data",
                    "get_data_health",
                    "get_news",
                    "find_pilots",
                ] {
                    calls.push((
                        tool,
                        json!({"parameter": pillar, "country": country, "lang": lang}),
                    ));
                }
                calls.push((
                    "recommend_action",
                    json!({"pillar": pillar, "country": country, "lang": lang}),
                ));
            }
            calls.push((
                "get_regional_pulse",
                json!({"parameter": pillar, "lang": lang}),
            ));
            calls.push((
                "get_discoveries",
                json!({"parameter": pillar, "lang": lang}),
            ));
            calls.push((
                "compare_countries",
                json!({"parameter": pillar, "countries": ["ARG", "BRA", "CHL", "COL", "MEX", "PER", "URY", "BOL"], "lang": lang}),
            ));
        }
        for (tool, arguments) in [
            (
                "resolve_metric",
                json!({"query": "climate adaptation finance"}),
            ),
            (
                "get_series",
                json!({"indicator": "sp_dyn_le00_in", "countries": ["MEX", "BRA", "ARG"]}),
            ),
            (
                "compute",
                json!({"op": "rank", "indicator": "sp_dyn_le00_in"}),
            ),
            (
                "compute",
                json!({"op": "rank_change", "indicator": "sp_dyn_le00_in"}),
            ),
            (
                "compute",
                json!({"op": "forecast", "indicator": "sp_dyn_le00_in", "country": "MEX"}),
            ),
            ("get_data_health", json!({})),
            ("get_discoveries", json!({})),
            ("search_corpus", json!({"query": "energía renovable"})),
            ("search", json!({"query": "energía renovable"})),
            ("fetch", json!({"id": "series:ny_gdp_mktp_kd_zg:BRA"})),
            ("fetch", json!({"id": "indicator:sp_dyn_le00_in"})),
            ("fetch", json!({"id": "wbproj-p127837"})),
            ("get_pilot", json!({"slug": "p127837"})),
            (
                "resolve_citations",
                json!({"ids": ["wb-sp-dyn-le00-in-mex-2024"]}),
            ),
        ] {
            let mut arguments = arguments;
            arguments["lang"] = json!(lang);
            calls.push((tool, arguments));
        }
        for (dataset, country) in [
            ("catalog", None),
            ("observations", None),
            ("metrics", None),
            ("concordance", None),
            ("series_stats", None),
            ("discoveries", None),
            ("projects", Some("BRA")),
            ("regulation", Some("COL")),
            ("institutions", Some("PER")),
            ("financing", Some("HND")),
            ("events", Some("ECU")),
        ] {
            let mut arguments = json!({"dataset_id": dataset, "lang": lang});
            if let Some(country) = country {
                arguments["country"] = json!(country);
            }
            calls.push(("get_dataset", arguments));
        }
    }
    let mut over = Vec::new();
    for (tool, arguments) in &calls {
        let bytes = size(tool, arguments.clone());
        if bytes > DEFAULT_ANSWER {
            over.push(format!("{tool} {arguments}: {bytes} B"));
        }
    }
    assert!(
        over.is_empty(),
        "{} of {} calls over 10 KB: {over:#?}",
        over.len(),
        calls.len()
    );
}

#[test]
fn a_default_page_cut_to_10_kb_says_what_is_left() {
    // Mexico's economy has more indicators than fit in 10 KB: the page says how many there are and
    // where the next page starts, and the pages together reach every indicator.
    let first = payload(&call_tool(
        "get_parameter_data",
        json!({"parameter": "economia", "country": "MEX"}),
    ));
    let total = first["result"]["indicators_total"].as_u64().unwrap() as usize;
    let shown = first["result"]["indicators"].as_array().unwrap().len();
    assert!(shown < total, "{shown} of {total}");
    assert!(first["result"]["next_cursor"].is_string());
    // With a limit the caller gets that many, up to the 40 KB cap.
    let asked = payload(&call_tool(
        "get_parameter_data",
        json!({"parameter": "economia", "country": "MEX", "limit": 40}),
    ));
    assert_eq!(asked["result"]["indicators"].as_array().unwrap().len(), 40);
}

#[test]
fn the_largest_limits_stay_within_40_kb_too() {
    let eight = ["MEX", "BRA", "ARG", "COL", "CHL", "PER", "URY", "ECU"];
    for pillar in pillars() {
        for (name, arguments) in [
            (
                "compare_countries",
                json!({"parameter": pillar, "countries": eight, "limit": 40}),
            ),
            (
                "get_regional_pulse",
                json!({"parameter": pillar, "limit": 10}),
            ),
            ("get_discoveries", json!({"parameter": pillar, "limit": 40})),
            (
                "get_parameter_data",
                json!({"parameter": pillar, "country": "BRA", "limit": 40}),
            ),
        ] {
            let bytes = size(name, arguments.clone());
            assert!(bytes <= ANSWER_BUDGET, "{name} {arguments}: {bytes} B");
        }
    }
    for (name, arguments) in [
        ("get_discoveries", json!({"limit": 40})),
        ("get_discoveries", json!({"limit": 40, "country": "MEX"})),
        ("search_corpus", json!({"query": "tasa", "limit": 50})),
        (
            "compute",
            json!({"op": "rank", "indicator": "sp_pop_totl", "year": 2020}),
        ),
        // Pages whose rows cite many series: the records they bring count toward the cut.
        (
            "get_dataset",
            json!({"dataset_id": "discoveries", "offset": 1636}),
        ),
        (
            "get_dataset",
            json!({"dataset_id": "discoveries", "offset": 1700, "limit": 500}),
        ),
        (
            "get_dataset",
            json!({"dataset_id": "observations", "year": 2020, "limit": 500}),
        ),
        (
            "get_dataset",
            json!({"dataset_id": "aggregates", "year": 2020, "limit": 500}),
        ),
        (
            "get_dataset",
            json!({"dataset_id": "series_stats", "offset": 2105, "limit": 500}),
        ),
    ] {
        let bytes = size(name, arguments.clone());
        assert!(bytes <= ANSWER_BUDGET, "{name} {arguments}: {bytes} B");
    }
}

#[test]
fn a_correlation_fits_in_8_kb_and_the_other_tools_in_40() {
    let bytes = size(
        "compute",
        json!({"op": "correlation", "indicator": "sp_dyn_le00_in", "indicator_b": "sh_dyn_mort"}),
    );
    assert!(bytes <= 8 * 1024, "correlation: {bytes} B");
    for (name, arguments) in [
        (
            "compute",
            json!({"op": "rank", "indicator": "ny_gdp_pcap_cd"}),
        ),
        (
            "compute",
            json!({"op": "forecast", "indicator": "sp_dyn_le00_in", "country": "MEX"}),
        ),
        ("resolve_metric", json!({"query": "pobreza"})),
        ("search_corpus", json!({"query": "pobreza"})),
        ("get_discoveries", json!({})),
        ("get_data_health", json!({})),
        (
            "get_data_health",
            json!({"parameter": "salud", "country": "BRA"}),
        ),
        (
            "resolve_citations",
            json!({"ids": (1975..2025).map(|year| format!("wb-sp-dyn-le00-in-mex-{year}")).collect::<Vec<_>>()}),
        ),
    ] {
        let bytes = size(name, arguments.clone());
        assert!(bytes <= ANSWER_BUDGET, "{name} {arguments}: {bytes} B");
    }
}

#[test]
fn every_dataset_page_fits_even_at_the_largest_limit() {
    for dataset in [
        "catalog",
        "observations",
        "aggregates",
        "metrics",
        "sources",
        "countries",
        "pillars",
        "series_stats",
        "discoveries",
        "concordance",
        "data_health",
    ] {
        for limit in [None, Some(500)] {
            let mut arguments = json!({"dataset_id": dataset});
            if let Some(limit) = limit {
                arguments["limit"] = json!(limit);
            }
            let bytes = size("get_dataset", arguments);
            assert!(
                bytes <= ANSWER_BUDGET,
                "get_dataset {dataset} limit {limit:?}: {bytes} B"
            );
        }
    }
    // A page cut by size says where the next one starts, and that page follows on.
    let first = payload(&call_tool(
        "get_dataset",
        json!({"dataset_id": "metrics", "limit": 500}),
    ));
    let next = first["result"]["next_offset"]
        .as_u64()
        .expect("metrics span pages");
    assert_eq!(
        first["result"]["rows"].as_array().unwrap().len() as u64,
        next
    );
    let second = payload(&call_tool(
        "get_dataset",
        json!({"dataset_id": "metrics", "limit": 500, "offset": next}),
    ));
    assert_eq!(second["result"]["offset"], json!(next));
    assert_ne!(first["result"]["rows"][0], second["result"]["rows"][0]);
}

#[test]
fn paging_through_a_large_pillar_reaches_every_indicator_once() {
    let mut seen: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    let mut total = None;
    loop {
        let mut arguments = json!({"parameter": "economia", "country": "BRA"});
        if let Some(cursor) = &cursor {
            arguments["cursor"] = json!(cursor);
        }
        let result = payload(&call_tool("get_parameter_data", arguments))["result"].clone();
        total = total.or(result["indicators_total"].as_u64());
        assert_eq!(result["indicators_total"].as_u64(), total);
        seen.extend(
            result["indicators"]
                .as_array()
                .unwrap()
                .iter()
                .map(|indicator| indicator["id"].as_str().unwrap().to_string()),
        );
        match result["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    let total = total.unwrap() as usize;
    assert!(
        total > 100,
        "economía holds more than 100 indicators with BRA data"
    );
    assert_eq!(seen.len(), total);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), total, "no indicator on two pages");
    // A cursor the tool did not give is refused with what to do instead.
    let answer = call_tool(
        "get_parameter_data",
        json!({"parameter": "economia", "country": "BRA", "cursor": "zz"}),
    );
    assert_eq!(answer["isError"], json!(true));
    assert!(
        answer["structuredContent"]["result"]["error"]
            .as_str()
            .unwrap()
            .contains("next_cursor")
    );
}

#[test]
fn the_display_stays_out_of_the_models_context() {
    let answer = call_tool(
        "get_series",
        json!({"indicator": "sp_dyn_le00_in", "countries": ["MEX"]}),
    );
    let structured = &answer["structuredContent"];
    assert!(structured.get("display").is_none());
    assert_eq!(
        payload(&answer),
        *structured,
        "text block and structuredContent agree"
    );
    let display = &answer["_meta"]["lac-corpus/display"];
    assert_eq!(display["charts"][0]["mark"]["type"], json!("line"));
    assert_eq!(display["tables"][0]["columns"], json!(["year", "MEX"]));
    // The person's short message: a second text block meant for the user, naming what and whose.
    let message = &answer["content"][1];
    assert_eq!(message["annotations"]["audience"], json!(["user"]));
    let text = message["text"].as_str().unwrap();
    // What it shows, whose it is, and where the person opens it.
    let (line, link) = text.split_once(" Ábralos en ").unwrap();
    assert_eq!(
        line,
        "Esperanza de vida al nacer (years): tabla y gráfico. Fuente: The World Bank, World Development Indicators (CC-BY-4.0)."
    );
    assert!(
        link.contains("/chart/answer/") && link.ends_with('.'),
        "{link}"
    );
}

/// Schemas every client reads without warnings: JSON Schema formats only, no bare `true`, no type arrays.
fn check_schema(tool: &str, path: &str, schema: &Value) {
    const STANDARD: &[&str] = server::tools::schema::STANDARD_FORMATS;
    match schema {
        Value::Object(object) => {
            if let Some(format) = object.get("format") {
                assert!(
                    STANDARD.contains(&format.as_str().unwrap_or_default()),
                    "{tool} {path}: format {format}"
                );
            }
            if let Some(kind) = object.get("type") {
                assert!(kind.is_string(), "{tool} {path}: type {kind}");
            }
            for (key, child) in object {
                if ["properties", "$defs"].contains(&key.as_str()) {
                    for (name, subschema) in child.as_object().unwrap() {
                        assert!(
                            subschema.is_object(),
                            "{tool} {path}/{key}/{name} is not an object schema"
                        );
                        check_schema(tool, &format!("{path}/{key}/{name}"), subschema);
                    }
                } else if ["items", "additionalProperties"].contains(&key.as_str())
                    && child.is_object()
                {
                    check_schema(tool, &format!("{path}/{key}"), child);
                } else if key == "items" {
                    panic!("{tool} {path}/items is not an object schema");
                } else if let Value::Array(subschemas) = child
                    && ["anyOf", "oneOf", "allOf", "prefixItems"].contains(&key.as_str())
                {
                    for (index, subschema) in subschemas.iter().enumerate() {
                        assert!(subschema.is_object(), "{tool} {path}/{key}/{index}");
                        check_schema(tool, &format!("{path}/{key}/{index}"), subschema);
                    }
                }
            }
        }
        other => panic!("{tool} {path}: {other} is not an object schema"),
    }
}

#[test]
fn tools_list_is_lean_and_every_schema_is_plain_json_schema() {
    let listed = crate::support::real_tools_list();
    let result = &listed;
    let bytes = serde_json::to_string(result).unwrap().len();
    assert!(bytes <= TOOLS_LIST_BUDGET, "tools/list: {bytes} B");
    let model_facing: usize = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            tool["name"].as_str().unwrap().len()
                + tool["description"].as_str().unwrap().len()
                + serde_json::to_string(&tool["inputSchema"]).unwrap().len()
        })
        .sum();
    assert!(
        model_facing <= MODEL_FACING_BUDGET,
        "names, descriptions and input schemas: {model_facing} B"
    );
    for tool in result["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let description = tool["description"].as_str().unwrap();
        assert!(
            description.chars().count() <= DESCRIPTION_CHARS,
            "{name}: {} characters",
            description.chars().count()
        );
        check_schema(name, "inputSchema", &tool["inputSchema"]);
        check_schema(name, "outputSchema", &tool["outputSchema"]);
    }
}
