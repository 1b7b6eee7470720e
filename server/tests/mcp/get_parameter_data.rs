//! `get_parameter_data`: the pillar in a country, its cited narrative in es/en/pt, and its
//! precomputed correlations.

use serde_json::{Value, json};

use crate::support::{call_tool, payload};

fn parameter_data(arguments: Value) -> Value {
    let answer = call_tool("get_parameter_data", arguments.clone());
    assert_eq!(answer["isError"], json!(false), "{arguments}: {answer}");
    payload(&answer)
}

/// Number tokens of `text` outside `[citation ids]` and `(units)`.
fn numbers(text: &str) -> Vec<String> {
    let mut depth = 0;
    let mut plain = String::new();
    for character in text.chars() {
        match character {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ if depth == 0 => plain.push(character),
            _ => {}
        }
    }
    plain
        .split(|character: char| {
            !(character.is_ascii_digit() || character == '.' || character == '-')
        })
        .map(|token| token.trim_matches(|character| character == '.' || character == '-'))
        .filter(|token| token.chars().any(|character| character.is_ascii_digit()))
        .map(String::from)
        .collect()
}

#[test]
fn every_narrative_number_is_in_the_result_and_cited() {
    for lang in ["es", "en", "pt"] {
        let content =
            parameter_data(json!({"parameter": "salud", "country": "Chile", "lang": lang}));
        let result = &content["result"];
        let narrative = result["narrative"].as_str().unwrap();
        let mut allowed: Vec<String> = vec![
            result["governance"]["indicators_with_data"].to_string(),
            result["governance"]["indicators_in_pillar"].to_string(),
        ];
        for indicator in result["indicators"].as_array().unwrap() {
            allowed.push(indicator["value"].to_string());
            allowed.push(indicator["year"].to_string());
        }
        // Names are text of the result (e.g. "under 5"), not data: take them out before reading numbers.
        let mut data_text = narrative.to_string();
        for indicator in result["indicators"].as_array().unwrap() {
            data_text = data_text.replace(indicator["name"].as_str().unwrap(), "");
        }
        for number in numbers(&data_text) {
            assert!(
                allowed.contains(&number),
                "{lang}: `{number}` in {narrative:?} is not in the result"
            );
        }
        let cited = crate::support::cited_ids(&content);
        for indicator in result["indicators"].as_array().unwrap() {
            assert!(cited.contains(&indicator["citation_id"]));
            assert!(indicator["series_tail"].as_array().unwrap().len() <= 6);
            if narrative.contains(indicator["citation_id"].as_str().unwrap()) {
                assert!(narrative.contains(&indicator["value"].to_string()));
            }
        }
    }
}

#[test]
fn life_expectancy_in_mexico_is_the_d1_value_with_its_tail() {
    let content = parameter_data(json!({"parameter": "salud", "country": "MEX", "limit": 40}));
    let indicators = content["result"]["indicators"].as_array().unwrap();
    let life = indicators
        .iter()
        .find(|indicator| indicator["id"] == json!("sp_dyn_le00_in"))
        .unwrap();
    assert_eq!(
        (
            life["value"].clone(),
            life["year"].clone(),
            life["citation_id"].clone()
        ),
        (
            json!(75.264),
            json!(2024),
            json!("wb-sp-dyn-le00-in-mex-2024")
        )
    );
    let tail = life["series_tail"].as_array().unwrap();
    assert_eq!(tail.len(), 6);
    assert_eq!(tail.last().unwrap(), &json!([2024, 75.264]));
    assert_eq!(life["series_id"], json!("wb-sp-dyn-le00-in-mex"));
    assert!(["A", "B", "C", "D"].contains(&content["result"]["evidence_grade"].as_str().unwrap()));
    assert!(
        !content["result"]["missing"].as_array().unwrap().is_empty(),
        "indicators without MEX data are listed"
    );
}

#[test]
fn precomputed_correlations_equal_compute_at_query_time() {
    let content = parameter_data(json!({"parameter": "salud", "country": "BRA"}));
    let correlations = content["result"]["correlations"].as_array().unwrap();
    assert!(
        !correlations.is_empty(),
        "health indicators correlate across countries"
    );
    let first = &correlations[0];
    assert!(first["p_value"].as_f64().unwrap() < 0.05);
    let answer = call_tool(
        "compute",
        json!({"op": "correlation", "parameter": "salud", "indicator": first["indicator_a"], "indicator_b": first["indicator_b"], "year": first["year"]}),
    );
    let computed = payload(&answer)["result"]["correlation"].clone();
    assert_eq!(
        (
            computed["r"].clone(),
            computed["n"].clone(),
            computed["p_value"].clone()
        ),
        (
            first["r"].clone(),
            first["n"].clone(),
            first["p_value"].clone()
        )
    );
}

#[test]
fn correlations_leave_out_a_total_beside_its_own_breakdown() {
    let corpus = crate::support::server().plugin().corpus();
    let correlations = corpus.correlations().expect("correlations.json reads");
    assert!(!correlations.is_empty());
    for item in correlations {
        let (left, right) = (
            corpus.baked.metric(&item.indicator_a).unwrap(),
            corpus.baked.metric(&item.indicator_b).unwrap(),
        );
        assert!(!left.same_family(right), "{item:?}");
    }
    let life = corpus.baked.metric("sp_dyn_le00_in").unwrap();
    assert!(life.same_family(corpus.baked.metric("sp_dyn_le00_ma_in").unwrap()));
    assert!(!life.same_family(corpus.baked.metric("sh_dyn_mort").unwrap()));
}
