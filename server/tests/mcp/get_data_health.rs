use serde_json::{Value, json};

use crate::support::{call_tool, payload};

fn health(arguments: Value) -> Value {
    let answer = call_tool("get_data_health", arguments.clone());
    assert_eq!(answer["isError"], json!(false), "{arguments}: {answer}");
    payload(&answer)["result"].clone()
}

#[test]
fn a_pillar_in_a_country_has_a_documented_confidence_score() {
    let result = health(json!({"parameter": "salud", "country": "MEX"}));
    let detail = &result["detail"];
    let (indicators, with_data, fresh) = (
        detail["indicators"].as_u64().unwrap(),
        detail["with_data"].as_u64().unwrap(),
        detail["fresh"].as_u64().unwrap(),
    );
    assert_eq!(
        with_data + detail["missing"].as_array().unwrap().len() as u64,
        indicators
    );
    assert_eq!(
        fresh + detail["stale"].as_array().unwrap().len() as u64,
        with_data
    );
    let observed = detail["observed_percent"].as_f64().unwrap() / 100.0;
    let expected = 40.0 * with_data as f64 / indicators as f64
        + 40.0 * fresh as f64 / with_data as f64
        + 20.0 * observed;
    assert!((detail["confidence_score"].as_f64().unwrap() - expected).abs() < 0.1);
    assert_eq!(detail["vintages"]["wdi"], json!("2026-07"));
    assert_eq!(result["reference_year"], json!(2025));
}

#[test]
fn without_arguments_the_region_and_the_refresh_work_list() {
    let result = health(json!({}));
    assert_eq!(result["pillars"].as_array().unwrap().len(), 12);
    let work_list = result["refresh_work_list"].as_array().unwrap();
    let lags: Vec<i64> = work_list
        .iter()
        .map(|item| item["lag_years"].as_i64().unwrap())
        .collect();
    assert!(
        lags.windows(2).all(|pair| pair[0] >= pair[1]),
        "most out of date first: {lags:?}"
    );
    let ucdp = work_list
        .iter()
        .find(|item| item["source"] == json!("owid_ucdp"))
        .unwrap();
    assert_eq!(
        (ucdp["newest_year"].clone(), ucdp["lag_years"].clone()),
        (json!(2018), json!(7))
    );
    let answer = call_tool("get_data_health", json!({"parameter": "salud"}));
    assert_eq!(answer["isError"], json!(true));
}
