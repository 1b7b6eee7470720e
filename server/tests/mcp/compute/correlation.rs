//! `compute` op `correlation`: r, n and p-value.

use serde_json::json;

use super::compute;

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
