//! `compute` op `gap_to_frontier`: the country and the frontier, cited.

use serde_json::json;

use super::{cited, compute};

#[test]
fn gap_to_frontier_cites_the_country_and_the_frontier() {
    let (result, citations) = compute(
        json!({"op": "gap_to_frontier", "parameter": "seguridad", "indicator": "vc_ihr_psrc_p5", "country": "BRA", "year": 2023}),
    );
    let gap = &result["gap"];
    // Homicides: lower is better, so the frontier is the lowest 2023 value.
    assert!(gap["frontier"]["value"].as_f64().unwrap() < gap["country"]["value"].as_f64().unwrap());
    let expected =
        gap["frontier"]["value"].as_f64().unwrap() - gap["country"]["value"].as_f64().unwrap();
    assert!((gap["absolute_gap"].as_f64().unwrap() - expected).abs() < 1e-12);
    cited(&citations, gap["frontier"]["citation_id"].as_str().unwrap());
    cited(&citations, "wb-vc-ihr-psrc-p5-bra-2023");
}
