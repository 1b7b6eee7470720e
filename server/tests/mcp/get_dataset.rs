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
    let citation =
        crate::support::citation_of(&content, "wb-sp-dyn-le00-in-mex-2024").expect("cited");
    assert_eq!(
        citation["url"],
        json!("https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX")
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
        (
            json!({"dataset_id": "concordance", "id": "gini"}),
            "valid pairs: gini_wdi_sedlac",
        ),
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

#[test]
fn every_catalogued_dataset_is_readable() {
    let catalog = read(json!({"dataset_id": "catalog"}));
    for dataset in catalog["result"]["rows"].as_array().unwrap() {
        let id = dataset["dataset_id"].as_str().unwrap();
        let arguments = if id == "citations" {
            json!({"dataset_id": id, "id": "wb-sp-dyn-le00-in-mex-2024", "limit": 2})
        } else {
            json!({"dataset_id": id, "limit": 2})
        };
        let result = read(arguments)["result"].clone();
        assert!(result["total"].as_u64().unwrap() > 0, "{id}: {result}");
    }
}

#[test]
fn concordance_rows_carry_both_publishers_values_cited() {
    let content = read(
        json!({"dataset_id": "concordance", "id": "gini_wdi_sedlac", "country": "BRA", "year": 2015}),
    );
    let result = &content["result"];
    assert_eq!(result["total"], json!(1), "{result}");
    let row = &result["rows"][0];
    assert_eq!(row["left_citation_id"], json!("wb-si-pov-gini-bra-2015"));
    for (id, value) in [
        (&row["left_citation_id"], &row["left_value"]),
        (&row["right_citation_id"], &row["right_value"]),
    ] {
        assert!(
            crate::support::citation_of(&content, id.as_str().unwrap()).is_some(),
            "{id} cited"
        );
        assert_eq!(crate::support::stored_value(id), value.as_f64().unwrap());
    }
    let wdi = read(
        json!({"dataset_id": "observations", "indicator": "si_pov_gini", "country": "BRA", "year": 2015}),
    );
    assert_eq!(wdi["result"]["rows"][0]["value"], row["left_value"]);
}

#[test]
fn gcb_territorial_co2_meets_owid_per_capita_times_wdi_population_citing_three_cells() {
    let content = read(json!({
        "dataset_id": "concordance",
        "id": "co2_total_gcb_owid_times_pop",
        "country": "MEX",
        "year": 2020
    }));
    let result = &content["result"];
    assert_eq!(result["total"], json!(1), "{result}");
    let row = &result["rows"][0];
    assert_eq!(row["right_times_indicator"], json!("sp_pop_totl"));
    assert_eq!(
        row["right_times_citation_id"],
        json!("wb-sp-pop-totl-mex-2020")
    );
    for (id, value) in [
        (&row["left_citation_id"], &row["left_value"]),
        (&row["right_citation_id"], &row["right_value"]),
        (&row["right_times_citation_id"], &row["right_times_value"]),
    ] {
        assert!(
            crate::support::citation_of(&content, id.as_str().unwrap()).is_some(),
            "{id} cited"
        );
        assert_eq!(crate::support::stored_value(id), value.as_f64().unwrap());
    }
    // t per person × persons × 1e-6 = Mt, beside GCB's Mt: Mexico's fossil CO2 is some 400 Mt a year.
    let per_capita = row["right_value"].as_f64().unwrap();
    let population = row["right_times_value"].as_f64().unwrap();
    let aligned = row["right_value_aligned"].as_f64().unwrap();
    assert!((aligned - per_capita * population * 1e-6).abs() < 1e-6 * aligned);
    let left = row["left_value"].as_f64().unwrap();
    assert!((300.0..600.0).contains(&left), "{left}");
    assert!((aligned - left).abs() < 0.1 * left, "{aligned} vs {left}");
    // The two-cell pairs carry no third cell.
    let gini = read(json!({"dataset_id": "concordance", "id": "gini_wdi_sedlac", "limit": 1}));
    assert!(
        gini["result"]["rows"][0]
            .get("right_times_indicator")
            .is_none()
    );
}

#[test]
fn discoveries_and_data_health_are_readable_by_keys() {
    let content = read(json!({"dataset_id": "discoveries", "country": "GUY", "limit": 500}));
    let rows = content["result"]["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|row| row["country"] == json!("GUY")));
    let kinds: Vec<&str> = rows
        .iter()
        .map(|row| row["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"anomaly"), "{kinds:?}");
    let cited = crate::support::cited_ids(&content);
    for row in rows {
        for id in row["citation_ids"].as_array().unwrap() {
            assert!(cited.contains(id), "{id} cited");
        }
    }
    let health = read(json!({"dataset_id": "data_health", "pillar": "salud", "country": "MEX"}));
    assert_eq!(health["result"]["total"], json!(1));
    let tool = call_tool(
        "get_data_health",
        json!({"parameter": "salud", "country": "MEX"}),
    );
    assert_eq!(
        health["result"]["rows"][0]["confidence_score"],
        payload(&tool)["result"]["detail"]["confidence_score"]
    );
}
