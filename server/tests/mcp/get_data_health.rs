//! `get_data_health`: the confidence score, gaps, and the refresh work-list.

use corpus::health::{self, Latest};
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
        fresh
            + detail["stale"].as_array().unwrap().len() as u64
            + detail["projections_only"].as_array().unwrap().len() as u64,
        with_data
    );
    let observed = detail["observed_percent"].as_f64().unwrap() / 100.0;
    let provenance = detail["provenance_percent"].as_f64().unwrap() / 100.0;
    // Nearly every salud indicator is a WDI series, whose citations link to the country's page.
    assert!((0.9..=1.0).contains(&provenance), "{detail}");
    let expected = 30.0 * with_data as f64 / indicators as f64
        + 30.0 * fresh as f64 / with_data as f64
        + 20.0 * observed
        + 20.0 * provenance;
    assert!((detail["confidence_score"].as_f64().unwrap() - expected).abs() < 0.1);
    assert_eq!(detail["vintages"]["wdi"], json!("2026-07"));
    assert_eq!(result["reference_year"], json!(2025));
}

#[test]
fn the_precomputed_health_equals_a_recomputation_from_the_observation_table() {
    let corpus = crate::support::server().plugin().corpus();
    let baked = &corpus.baked;
    let table = baked.observations();
    for (pillar, country) in [("salud", "MEX"), ("economia", "HTI"), ("seguridad", "BRA")] {
        let metrics: Vec<&corpus::Metric> = baked
            .metrics()
            .iter()
            .filter(|metric| metric.pillar == pillar)
            .collect();
        let reference_year = health(json!({}))["reference_year"].as_i64().unwrap() as i32;
        let recomputed = health::pillar_country_health(
            reference_year,
            pillar,
            country,
            &metrics,
            baked.sources(),
            |metric| {
                Latest::of_series(table.series(&metric.id, country).map(|row_idx| {
                    let row = table.row(row_idx);
                    (row.year, row.flags)
                }))
            },
        );
        let served = health(json!({"parameter": pillar, "country": country}))["detail"].clone();
        let mut served_health = served.clone();
        for derived in ["anomalies", "anomalies_total", "calculation"] {
            served_health.as_object_mut().unwrap().remove(derived);
        }
        assert_eq!(
            served_health,
            serde_json::to_value(&recomputed).unwrap(),
            "{pillar} {country}"
        );
    }
}

#[test]
fn economic_projections_and_landing_page_citations_lower_the_score() {
    // Haiti's economia includes IMF WEO series whose latest values are projections.
    let detail = health(json!({"parameter": "economia", "country": "HTI"}))["detail"].clone();
    assert!(
        detail["observed_percent"].as_f64().unwrap() < 100.0,
        "{detail}"
    );
    // medio_ambiente includes ND-GAIN and OECD CRS, cited to landing pages rather than country pages.
    let detail = health(json!({"parameter": "medio_ambiente", "country": "BRA"}))["detail"].clone();
    assert!(
        detail["provenance_percent"].as_f64().unwrap() < 100.0,
        "{detail}"
    );
}

#[test]
fn without_arguments_the_region_and_the_refresh_work_list() {
    let result = health(json!({}));
    let pillars = result["pillars"].as_array().unwrap();
    assert_eq!(pillars.len(), 12);
    let salud = pillars
        .iter()
        .find(|pillar| pillar["parameter"] == json!("salud"))
        .unwrap();
    let weakest = salud["weakest"].as_array().unwrap();
    assert_eq!(weakest.len(), 3);
    let scores: Vec<f64> = weakest
        .iter()
        .map(|item| item[1].as_f64().unwrap())
        .collect();
    assert!(
        scores.windows(2).all(|pair| pair[0] <= pair[1]),
        "lowest first: {scores:?}"
    );
    assert!(scores[0] <= salud["mean_confidence_score"].as_f64().unwrap());
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
        (
            ucdp["newest_year"].clone(),
            ucdp["lag_years"].clone(),
            ucdp["stale_indicators"].clone()
        ),
        (json!(2018), json!(7), json!(1))
    );
    let answer = call_tool("get_data_health", json!({"parameter": "salud"}));
    assert_eq!(answer["isError"], json!(true));
}
