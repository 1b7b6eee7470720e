//! `compute` op `cagr`: case D5.

use serde_json::json;

use super::{cited, compute, value_of};

#[test]
fn d5_cagr_of_gdp_per_capita_in_brazil_from_its_two_cells() {
    let (result, citations) = compute(
        json!({"op": "cagr", "parameter": "economia", "indicator": "ny_gdp_pcap_cd", "country": "BRA", "from_year": 2015, "to_year": 2025}),
    );
    cited(&citations, "wb-ny-gdp-pcap-cd-bra-2015");
    let from = value_of(&result, "wb-ny-gdp-pcap-cd-bra-2015")
        .as_f64()
        .unwrap();
    let to = value_of(&result, "wb-ny-gdp-pcap-cd-bra-2025")
        .as_f64()
        .unwrap();
    let expected = (to / from).powf(0.1) - 1.0;
    assert!((result["cagr"].as_f64().unwrap() - expected).abs() < 1e-12);
    assert!((result["cagr_percent"].as_f64().unwrap() - expected * 100.0).abs() < 1e-10);
}
