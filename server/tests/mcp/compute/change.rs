//! `compute` op `change`: case D4, projections used only when asked for.

use serde_json::json;

use super::{cited, compute, precomputed, value_of};

#[test]
fn d4_change_of_life_expectancy_in_mexico_cites_both_cells() {
    let (result, citations) = compute(
        json!({"op": "change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": 2010, "to_year": 2024}),
    );
    assert!((result["absolute_change"].as_f64().unwrap() - 1.546).abs() < 1e-9);
    assert_eq!(
        result["calculation"]["inputs"],
        json!(["wb-sp-dyn-le00-in-mex-2010", "wb-sp-dyn-le00-in-mex-2024"])
    );
    assert!(
        result["calculation"]["citation_id"]
            .as_str()
            .unwrap()
            .starts_with("calc-")
    );
    assert_eq!(
        value_of(&result, "wb-sp-dyn-le00-in-mex-2010"),
        json!(73.718)
    );
    assert_eq!(
        value_of(&result, "wb-sp-dyn-le00-in-mex-2024"),
        json!(75.264)
    );
    cited(&citations, "wb-sp-dyn-le00-in-mex-2010");
}

#[test]
fn projections_are_used_only_when_asked_for_and_then_labelled() {
    // WEO real GDP growth of Argentina runs to 2030, projected after the last estimate.
    let (result, _) = compute(json!({"op": "change", "indicator": "ngdp_rpch", "country": "ARG"}));
    assert!(
        result["between"]["to"].get("projection").is_none(),
        "{result}"
    );
    assert!(
        !result["notes"].to_string().contains("projection"),
        "{result}"
    );
    let (result, _) = compute(
        json!({"op": "change", "indicator": "ngdp_rpch", "country": "ARG", "from_year": 2015, "to_year": 2030}),
    );
    assert_eq!(result["between"]["to"]["projection"], json!(true));
    assert!(
        result["notes"].as_array().unwrap().iter().any(|note| note
            .as_str()
            .unwrap()
            .starts_with("projection-based: ARG 2030")),
        "{result}"
    );
    // The change from the previous observation equals the bake's change_from_previous, which stops at the
    // last observation even where the series runs on into projections.
    let stats = precomputed("ngdp_rpch", "ARG");
    assert!(stats.latest_year > stats.last_observed_year.unwrap());
    let (result, _) = compute(
        json!({"op": "change", "indicator": "ngdp_rpch", "country": "ARG", "from_year": stats.previous_year, "to_year": stats.last_observed_year}),
    );
    assert_eq!(
        result["absolute_change"].as_f64(),
        stats.change_from_previous
    );
}
