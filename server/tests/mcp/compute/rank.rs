//! `compute` op `rank`: case D6.

use serde_json::json;

use super::compute;

#[test]
fn d6_rank_of_gini_in_2024_ascending() {
    let (result, _) = compute(
        json!({"op": "rank", "parameter": "pobreza", "indicator": "si_pov_gini", "year": 2024, "order": "asc"}),
    );
    let ranked = result["ranking"]["ranked"].as_array().unwrap();
    let rank_of = |country: &str| {
        ranked
            .iter()
            .find(|cell| cell["country"] == json!(country))
            .map(|cell| {
                (
                    cell["rank"].as_u64().unwrap(),
                    cell["value"].as_f64().unwrap(),
                )
            })
    };
    let (uruguay, argentina, mexico, brazil) = (
        rank_of("URY").unwrap(),
        rank_of("ARG").unwrap(),
        rank_of("MEX").unwrap(),
        rank_of("BRA").unwrap(),
    );
    assert_eq!(
        (uruguay.1, argentina.1, mexico.1, brazil.1),
        (40.0, 42.4, 42.6, 50.3)
    );
    assert!(uruguay.0 < argentina.0 && argentina.0 < mexico.0 && mexico.0 < brazil.0);
    let missing = result["ranking"]["missing"].as_array().unwrap();
    assert!(
        !missing.is_empty(),
        "countries without 2024 data are listed, not ranked"
    );
    assert!(
        missing
            .iter()
            .all(|country| rank_of(country.as_str().unwrap()).is_none())
    );
}
