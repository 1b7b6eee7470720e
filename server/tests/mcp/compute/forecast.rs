//! `compute` op `forecast`: the statistics, the precomputed forecast, the warnings.

use serde_json::json;

use super::{cited, compute, precomputed};

#[test]
fn forecast_returns_its_statistics() {
    let (result, citations) = compute(
        json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "CHL", "from_year": 2000, "to_year": 2030}),
    );
    let forecast = &result["forecast"];
    assert!(
        forecast["lower"].as_f64().unwrap() < forecast["value"].as_f64().unwrap()
            && forecast["value"].as_f64().unwrap() < forecast["upper"].as_f64().unwrap()
    );
    assert_eq!(
        result["calculation"]["inputs"].as_array().unwrap().len(),
        forecast["n"].as_u64().unwrap() as usize
    );
    for id in result["calculation"]["inputs"].as_array().unwrap() {
        cited(&citations, id.as_str().unwrap());
    }
}

#[test]
fn query_time_forecast_equals_the_precomputed_one() {
    let stats = precomputed("sp_dyn_le00_in", "PER");
    let (year, value, lower, upper) = stats.forecast_5y.expect("a precomputed 5-year forecast");
    let (result, _) = compute(
        json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "PER", "from_year": stats.latest_year - 9, "to_year": year}),
    );
    let forecast = &result["forecast"];
    assert_eq!(
        (
            forecast["value"].as_f64(),
            forecast["lower"].as_f64(),
            forecast["upper"].as_f64()
        ),
        (Some(value), Some(lower), Some(upper))
    );
}

#[test]
fn a_forecast_warns_of_a_poor_fit_or_an_interval_beyond_the_valid_range() {
    // Mexico's under-5 mortality falls steadily: a good fit within the valid range, no warning.
    let (result, _) = compute(
        json!({"op": "forecast", "parameter": "salud", "indicator": "sh_dyn_mort", "country": "MEX"}),
    );
    assert!(result["forecast"].get("warning").is_none(), "{result}");
    // Chile's life expectancy over 2015-2024 dips with COVID-19 and recovers: a flat, poor fit.
    let (result, _) = compute(
        json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "CHL"}),
    );
    assert!(
        result["forecast"]["warning"]
            .as_str()
            .unwrap()
            .contains("explains little"),
        "{result}"
    );
    // Chile's extreme poverty headcount, five scattered surveys 2015-2024: the 2034 interval goes below 0 %.
    let (result, _) = compute(
        json!({"op": "forecast", "parameter": "pobreza", "indicator": "si_pov_dday", "country": "CHL", "to_year": 2034}),
    );
    let forecast = &result["forecast"];
    // Clipped to the valid range: the trend's own lower bound stays in `unclipped`.
    assert!(
        forecast["unclipped"][1].as_f64().unwrap() < 0.0,
        "{forecast}"
    );
    assert_eq!(forecast["lower"].as_f64(), Some(0.0), "{forecast}");
    assert_eq!(forecast["clipped"], json!(true), "{forecast}");
    assert!(
        forecast["warning"]
            .as_str()
            .unwrap()
            .contains("leaves the indicator's valid range [0, 100]"),
        "{forecast}"
    );
}
