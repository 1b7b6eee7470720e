//! Honest statistics (issue 25, part D) through the tools on the real corpus: CPIA's CAGR refused,
//! forecasts clipped to the valid range with the reason and the basis, Bolivia's anomalies all there and
//! paged, a WEO series' trend on its observed part, modelled trends said, correlations with their years,
//! size check and common-trend warning, and Chile's CPIA absent by design in data health.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::support::{call_tool, payload};

fn result(name: &str, arguments: Value) -> Value {
    let answer = call_tool(name, arguments.clone());
    assert_eq!(answer["isError"], json!(false), "{arguments}: {answer}");
    payload(&answer)["result"].clone()
}

#[test]
fn cagr_of_a_cpia_score_is_refused_with_the_reason() {
    let answer = call_tool(
        "compute",
        json!({"op": "cagr", "parameter": "gobernanza", "indicator": "iq_cpa_irai_xq", "country": "BOL"}),
    );
    assert_eq!(answer["isError"], json!(true), "{answer}");
    let text = answer.to_string();
    assert!(
        text.contains("cagr of a bounded score, index or share is not defined"),
        "{text}"
    );
    assert!(text.contains("index (1-6)"), "{text}");
}

#[test]
fn a_forecast_leaving_the_valid_range_is_clipped_with_the_reason_and_basis() {
    // Chile's extreme poverty, five surveys 2015-2024: the 2034 interval goes below 0 %.
    let forecast = result(
        "compute",
        json!({"op": "forecast", "parameter": "pobreza", "indicator": "si_pov_dday", "country": "CHL", "to_year": 2034}),
    )["forecast"]
        .clone();
    assert_eq!(forecast["clipped"], json!(true), "{forecast}");
    assert_eq!(forecast["lower"], json!(0.0), "{forecast}");
    assert!(
        forecast["unclipped"][1].as_f64().unwrap() < 0.0,
        "{forecast}"
    );
    assert!(
        forecast["clip_reason"]
            .as_str()
            .unwrap()
            .contains("leave the valid range [0, 100]"),
        "{forecast}"
    );
    assert_eq!(forecast["basis"], json!("observed"));
    // Bolivia's unemployment is ILO-modelled throughout: fitted, with the basis said.
    let modelled = result(
        "compute",
        json!({"op": "forecast", "parameter": "empleo", "indicator": "sl_uem_totl_zs", "country": "BOL"}),
    )["forecast"]
        .clone();
    assert_eq!(modelled["basis"], json!("modelled"), "{modelled}");
    assert!(
        modelled["warning"]
            .as_str()
            .unwrap()
            .contains("modelled estimates"),
        "{modelled}"
    );
    assert!(modelled["lower"].as_f64().unwrap() >= 0.0, "{modelled}");
}

#[test]
fn bolivias_anomalies_are_all_there_and_page_through() {
    let first = result(
        "get_discoveries",
        json!({"country": "BOL", "kind": "anomalies", "limit": 40}),
    );
    // The audit saw 88 behind the bake's cut at 2,000; every one the rule finds is kept.
    assert_eq!(
        first["total_anomalies"],
        json!(688),
        "{}",
        first["total_anomalies"]
    );
    let mut seen = HashSet::new();
    let mut page = first;
    let mut pages = 0;
    loop {
        pages += 1;
        for anomaly in page["anomalies"].as_array().unwrap() {
            assert_eq!(anomaly["country"], json!("BOL"));
            assert!(
                seen.insert(anomaly["citation_ids"].to_string()),
                "{anomaly}"
            );
        }
        assert_eq!(page["total_anomalies"], json!(688));
        let Some(cursor) = page["next_cursor"].as_str().map(str::to_string) else {
            break;
        };
        page = result(
            "get_discoveries",
            json!({"country": "BOL", "kind": "anomalies", "limit": 40, "cursor": cursor}),
        );
    }
    assert_eq!((seen.len(), pages), (688, 18));
    let answer = call_tool(
        "get_discoveries",
        json!({"country": "BOL", "kind": "anomalies", "cursor": "688"}),
    );
    assert_eq!(answer["isError"], json!(true), "{answer}");
}

#[test]
fn a_weo_series_ending_in_projections_is_trended_on_its_observed_part() {
    let data = result(
        "get_parameter_data",
        json!({"parameter": "economia", "country": "BOL", "indicators": ["ngdp_rpch"]}),
    );
    let growth = &data["indicators"][0];
    let projected: Vec<i64> = growth["projection_years"]
        .as_array()
        .unwrap()
        .iter()
        .map(|year| year.as_i64().unwrap())
        .collect();
    assert!(!projected.is_empty(), "{growth}");
    let trend = &growth["trend"];
    let (from, to) = (
        trend["from_year"].as_i64().unwrap(),
        trend["to_year"].as_i64().unwrap(),
    );
    // Fitted on the last six observations, before the projections, each one in series_tail.
    assert_eq!(trend["n"], json!(6), "{growth}");
    assert!(to < projected[0], "{growth}");
    assert!(
        trend["note"]
            .as_str()
            .unwrap()
            .contains("ends in projections")
    );
    let tail_years: Vec<i64> = growth["series_tail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|point| point[0].as_i64().unwrap())
        .collect();
    let fitted: Vec<i64> = tail_years
        .iter()
        .copied()
        .filter(|year| (from..=to).contains(year) && !projected.contains(year))
        .collect();
    assert_eq!(fitted.len(), 6, "{growth}");
    assert_eq!(trend["basis"], json!("observed"));
    // ILO-modelled unemployment: a trend, with the basis said.
    let jobs = result(
        "get_parameter_data",
        json!({"parameter": "empleo", "country": "BOL", "indicators": ["sl_uem_totl_zs"]}),
    );
    assert_eq!(
        jobs["indicators"][0]["trend"]["basis"],
        json!("modelled"),
        "{jobs}"
    );
}

#[test]
fn correlations_say_their_years_and_what_can_drive_them() {
    // Brazil's life expectancy and GDP per capita over 65 years: both trend, r 0.88 with p 4e-22.
    let over_years = result(
        "compute",
        json!({"op": "correlation", "parameter": "salud", "indicator": "sp_dyn_le00_in", "indicator_b": "ny_gdp_pcap_cd", "country": "BRA"}),
    )["correlation"]
        .clone();
    assert_eq!(over_years["years"], json!([1960, 2024]), "{over_years}");
    assert_eq!(over_years["n"], json!(65));
    assert!(over_years["r"].as_f64().unwrap() > 0.85);
    assert_eq!(over_years["common_trend"]["both_trend"], json!(true));
    let changes = over_years["common_trend"]["r_of_changes"].as_f64().unwrap();
    assert!(changes < 0.5, "{over_years}");
    assert!(
        over_years["warning"]
            .as_str()
            .unwrap()
            .contains("common trend"),
        "{over_years}"
    );
    // Rural and urban population across countries: both are country size.
    let size = result(
        "compute",
        json!({"op": "correlation", "parameter": "demografia", "indicator": "sp_rur_totl", "indicator_b": "sp_urb_totl"}),
    )["correlation"]
        .clone();
    assert_eq!(size["size_confounded"], json!(true), "{size}");
    assert!(size["warning"].as_str().unwrap().contains("country size"));
    // Under-5 and infant mortality: a relation that survives holding population fixed.
    let mortality = result(
        "compute",
        json!({"op": "correlation", "parameter": "salud", "indicator": "sh_dyn_mort", "indicator_b": "sp_dyn_imrt_in"}),
    )["correlation"]
        .clone();
    assert_eq!(mortality["size_confounded"], json!(false), "{mortality}");
    assert!(mortality["size_check"]["partial_r"].as_f64().unwrap() > 0.9);
    assert!(mortality.get("warning").is_none(), "{mortality}");
}

#[test]
fn chiles_cpia_is_absent_by_design_not_missing() {
    let detail = result(
        "get_data_health",
        json!({"parameter": "gobernanza", "country": "CHL"}),
    )["detail"]
        .clone();
    let absent: Vec<&str> = detail["absent_by_design"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[0].as_str().unwrap())
        .collect();
    assert_eq!(
        absent,
        [
            "iq_cpa_econ_xq",
            "iq_cpa_irai_xq",
            "iq_cpa_pubs_xq",
            "iq_cpa_soci_xq",
            "iq_cpa_strc_xq"
        ]
    );
    assert_eq!(
        detail["absent_by_design"][0][1],
        json!("IDA-eligible countries only")
    );
    assert_eq!(detail["missing"], json!([]), "{detail}");
    // 73.5 while CPIA counted as missing for Chile.
    assert_eq!(detail["confidence_score"], json!(81.4), "{detail}");
    let reliability = detail["reliability_score"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&reliability), "{detail}");
    assert!(
        detail["reliability"]["newest_vintage_year"]
            .as_i64()
            .unwrap()
            >= 2025
    );
}
