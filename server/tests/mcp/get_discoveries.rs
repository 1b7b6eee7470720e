//! `get_discoveries`: anomalies and source contradictions, cited on both sides.

use serde_json::{Value, json};

use crate::support::{call_tool, payload};

fn discoveries(arguments: Value) -> Value {
    let answer = call_tool("get_discoveries", arguments.clone());
    assert_eq!(answer["isError"], json!(false), "{arguments}: {answer}");
    payload(&answer)
}

#[test]
fn guyanas_oil_shows_as_an_anomaly_with_both_cells_cited() {
    let content = discoveries(json!({"country": "Guyana", "limit": 5}));
    let anomalies = content["result"]["anomalies"].as_array().unwrap();
    let fuel = anomalies
        .iter()
        .find(|anomaly| anomaly["indicator"] == json!("tx_val_fuel_zs_un"))
        .expect("fuel exports jump when oil production starts");
    assert_eq!(
        (fuel["from_year"].clone(), fuel["to_year"].clone()),
        (json!(2019), json!(2020))
    );
    assert!(fuel["z_score"].as_f64().unwrap() > 5.0);
    let cited = crate::support::cited_ids(&content);
    assert!(
        cited.contains(&json!("wb-tx-val-fuel-zs-un-guy-2020"))
            && cited.contains(&json!("wb-tx-val-fuel-zs-un-guy-2019"))
    );
}

#[test]
fn a_source_contradiction_between_two_publishers_is_cited_on_both_sides() {
    let content = discoveries(json!({"parameter": "economia", "limit": 3}));
    let contradiction = &content["result"]["contradictions"][0];
    assert!(contradiction["tolerance_ratio"].as_f64().unwrap() > 1.0);
    let [left, right] = [
        &contradiction["citation_ids"][0],
        &contradiction["citation_ids"][1],
    ];
    assert!(
        left.as_str().unwrap().starts_with("wb-") && right.as_str().unwrap().starts_with("imf-"),
        "WDI against WEO: {contradiction}"
    );
    let cited = crate::support::cited_ids(&content);
    let value_of = |id: &Value| {
        assert!(cited.contains(id), "{id} cited");
        crate::support::stored_value(id)
    };
    assert_eq!(
        value_of(left),
        contradiction["left_value"].as_f64().unwrap()
    );
    assert!(
        (value_of(right) - contradiction["right_value_aligned"].as_f64().unwrap()).abs()
            < 1e-9 * value_of(right).abs().max(1.0)
    );
}

#[test]
fn where_publishers_disagree_about_one_indicator_with_counts_per_country() {
    let content = discoveries(
        json!({"indicator": "NY.GDP.MKTP.KD.ZG", "kind": "contradictions", "limit": 5}),
    );
    let result = &content["result"];
    assert!(result["anomalies"].as_array().unwrap().is_empty());
    let contradictions = result["contradictions"].as_array().unwrap();
    assert_eq!(contradictions.len(), 5);
    assert!(
        contradictions
            .iter()
            .all(|item| item["pair"] == json!("gdp_growth_wdi_weo"))
    );
    let total = result["total_contradictions"].as_u64().unwrap();
    let by_country = result["contradictions_by_country"].as_array().unwrap();
    let counted: u64 = by_country
        .iter()
        .map(|item| item[1].as_u64().unwrap())
        .sum();
    assert_eq!(counted, total);
    assert!(total > 5, "the page is smaller than the total: {total}");
    let counts: Vec<u64> = by_country
        .iter()
        .map(|item| item[1].as_u64().unwrap())
        .collect();
    assert!(
        counts.windows(2).all(|pair| pair[0] >= pair[1]),
        "{counts:?}"
    );
}
