use serde_json::{Value, json};

use crate::support::{call_tool, payload};

fn read(arguments: Value) -> Value {
    let answer = call_tool("get_dataset", arguments.clone());
    assert_eq!(answer["isError"], json!(false), "{arguments}: {answer}");
    payload(&answer)
}

#[test]
fn the_catalog_lists_every_dataset() {
    let content = read(json!({"dataset_id": "catalog"}));
    let ids: Vec<&str> = content["result"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["dataset_id"].as_str().unwrap())
        .collect();
    for expected in [
        "observations",
        "aggregates",
        "metrics",
        "citations",
        "concordance",
        "sources",
        "countries",
        "pillars",
    ] {
        assert!(ids.contains(&expected), "{expected} in {ids:?}");
    }
}

#[test]
fn observations_by_keys_carry_their_citations() {
    let content = read(
        json!({"dataset_id": "observations", "indicator": "sp_dyn_le00_in", "country": "México", "year": 2024}),
    );
    let result = &content["result"];
    assert_eq!(result["total"], json!(1));
    assert_eq!(result["rows"][0]["value"], json!(75.264));
    assert_eq!(
        result["rows"][0]["citation_id"],
        json!("wb-sp-dyn-le00-in-mex-2024")
    );
    assert_eq!(
        content["citations"][0]["citation_id"],
        json!("wb-sp-dyn-le00-in-mex-2024")
    );
}

#[test]
fn pages_say_how_many_rows_match() {
    let content = read(
        json!({"dataset_id": "observations", "indicator": "sp_dyn_le00_in", "country": "MEX", "limit": 10, "offset": 5}),
    );
    let result = &content["result"];
    assert_eq!(
        (
            result["offset"].clone(),
            result["rows"].as_array().unwrap().len(),
            result["truncated"].clone()
        ),
        (json!(5), 10, json!(true))
    );
    assert_eq!(result["rows"][0]["year"], json!(1965));
    assert_eq!(result["total"], json!(65));
    let metrics = read(json!({"dataset_id": "metrics", "pillar": "seguridad"}));
    assert!(
        metrics["result"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|metric| metric["pillar"] == json!("seguridad"))
    );
    let world = read(
        json!({"dataset_id": "aggregates", "indicator": "sp_dyn_le00_in", "country": "WLD", "year": 2024}),
    );
    assert_eq!(world["result"]["total"], json!(1));
}

#[test]
fn unknown_datasets_and_unreadable_ones_say_so() {
    for (arguments, expected) in [
        (
            json!({"dataset_id": "pilots"}),
            "valid: catalog, observations",
        ),
        (json!({"dataset_id": "concordance"}), "not available yet"),
        (json!({"dataset_id": "citations"}), "read by `id`"),
        (
            json!({"dataset_id": "observations", "indicator": "nope"}),
            "unknown indicator",
        ),
    ] {
        let answer = call_tool("get_dataset", arguments.clone());
        assert_eq!(answer["isError"], json!(true), "{arguments}");
        let message = payload(&answer)["result"]["error"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains(expected), "{arguments}: {message}");
    }
}

#[test]
fn the_derived_series_statistics_are_readable_by_keys() {
    let content = read(
        json!({"dataset_id": "series_stats", "indicator": "ny_gdp_pcap_cd", "country": "Brasil"}),
    );
    let row = &content["result"]["rows"][0];
    assert_eq!(
        (
            row["latest_year"].clone(),
            row["latest_citation_id"].clone()
        ),
        (json!(2025), json!("wb-ny-gdp-pcap-cd-bra-2025"))
    );
    assert!(row["cagr_10y"].is_number());
}
