//! `compute` op `correlation`: r, n and p-value.

use serde_json::json;

use super::compute;
use crate::support::{call_tool, payload};

#[test]
fn correlation_returns_its_statistics() {
    let (result, _) = compute(
        json!({"op": "correlation", "parameter": "salud", "indicator": "sp_dyn_le00_in", "indicator_b": "sh_dyn_mort", "year": 2020}),
    );
    let correlation = &result["correlation"];
    assert!(
        correlation["r"].as_f64().unwrap() < -0.5,
        "life expectancy and under-5 mortality move apart: {correlation}"
    );
    assert!(
        correlation["p_value"].as_f64().unwrap() < 0.01 && correlation["n"].as_u64().unwrap() > 20
    );
}

#[test]
fn without_a_year_a_correlation_takes_the_latest_year_enough_countries_share_and_says_which() {
    // SEDLAC's Gini ends in 2017: life expectancy's usual year (2024) shares nothing with it.
    let answer = call_tool(
        "compute",
        json!({"op": "correlation", "indicator": "sp_dyn_le00_in", "indicator_b": "sedlac_gini"}),
    );
    let result = &payload(&answer)["result"];
    assert_eq!(result["correlation"]["at"], json!("2016"));
    assert_eq!(result["correlation"]["n"], json!(14));
    let notes = result["notes"].to_string();
    assert!(
        notes.contains("year 2016 (no `year` given): 14 countries"),
        "{notes}"
    );
    assert!(
        notes.contains("usual year, 2024, has fewer than 10"),
        "{notes}"
    );
    // A year asked for that shares too little is refused, naming it.
    let answer = call_tool(
        "compute",
        json!({"op": "correlation", "indicator": "sp_dyn_le00_in", "indicator_b": "sedlac_gini", "year": 2024}),
    );
    assert_eq!(answer["isError"], json!(true));
    let error = payload(&answer)["result"]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("across countries (2024): give another `year`"),
        "{error}"
    );
}
