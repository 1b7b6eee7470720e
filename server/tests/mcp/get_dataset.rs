//! `get_dataset`: the catalog, keyed reads, paging, errors, derived and concordance rows, and the
//! curated laws, institutions, financing, events and projects by country, cited.

use serde_json::{Value, json};

use crate::support::{call_tool, cited_ids, payload, record_ids};

fn read(arguments: Value) -> Value {
    let answer = call_tool("get_dataset", arguments.clone());
    assert_eq!(answer["isError"], json!(false), "{arguments}: {answer}");
    payload(&answer)
}

#[test]
fn the_catalog_lists_every_dataset() {
    let content = read(json!({"dataset_id": "catalog", "limit": 100}));
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

#[test]
fn get_dataset_reads_laws_institutions_financing_and_events_by_country() {
    let body = payload(&call_tool(
        "get_dataset",
        json!({"dataset_id": "regulation", "country": "ARG", "pillar": "energia", "limit": 50}),
    ));
    let rows = body["result"]["rows"].as_array().unwrap();
    // cclw_laws_policies_lac_2021-01-30.csv, line 13.
    let law = rows
        .iter()
        .find(|row| row["title"] == "Law 27191 on Renewable Energy")
        .expect("Law 27191");
    assert_eq!(law["date"], "2015-10-15");
    assert_eq!(law["kind"], "legislative");
    assert!(record_ids(&body).contains(&law["citation_id"].as_str().unwrap().to_string()));
    for dataset in ["institutions", "financing", "events"] {
        let answer = call_tool(
            "get_dataset",
            json!({"dataset_id": dataset, "country": "BOL", "limit": 5}),
        );
        assert_eq!(answer["isError"], false, "{dataset}: {answer}");
        let body = payload(&answer);
        assert!(
            !body["result"]["rows"].as_array().unwrap().is_empty(),
            "{dataset}"
        );
        assert_eq!(
            record_ids(&body).len(),
            body["result"]["rows"].as_array().unwrap().len()
        );
    }
    let unknown = payload(&call_tool(
        "resolve_citations",
        json!({"ids": ["cclw-arg-no-such-law", "nso-ar-nso-indec"]}),
    ));
    assert_eq!(unknown["result"]["records"], json!(["nso-ar-nso-indec"]));
    assert!(
        unknown["result"]["unresolved"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("no regulation record")
    );
}

#[test]
fn get_dataset_reads_a_countrys_energy_projects_with_their_citation() {
    let answer = call_tool(
        "get_dataset",
        json!({"dataset_id": "projects", "country": "Bolivia", "pillar": "energia", "limit": 500}),
    );
    assert_eq!(answer["isError"], false, "{answer}");
    let body = payload(&answer);
    let rows = body["result"]["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|row| {
        row["country"] == "BOL"
            && row["pillars"]
                .as_array()
                .unwrap()
                .contains(&json!("energia"))
    }));
    let decentralized = rows
        .iter()
        .find(|row| row["id"] == "P102479")
        .expect("P102479");
    // A pure grant: the grant, no lending commitment.
    assert!(
        decentralized
            .get("commitment_usd")
            .is_none_or(Value::is_null)
    );
    assert_eq!(decentralized["grant_usd"], 5_175_000.0);
    assert_eq!(decentralized["citation_id"], "wbproj-p102479");
    // The whole dataset's files are listed for a notebook.
    let formats: Vec<&str> = body["result"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["csv_gz", "parquet", "datapackage"]);
    // Every record shown is cited: its record (title, page, publisher, licence) is in citations.records.
    let cited = cited_ids(&body);
    assert!(cited.contains(&json!("wbproj-p102479")));
    let record = &body["citations"]["records"]["wbproj-p102479"];
    assert_eq!(record["publisher"], "The World Bank");
    assert_eq!(record["license"], "CC-BY-4.0");
    assert_eq!(
        record["url"],
        "https://projects.worldbank.org/en/projects-operations/project-detail/P102479"
    );

    let one = payload(&call_tool(
        "get_dataset",
        json!({"dataset_id": "projects", "id": "p127837"}),
    ));
    assert_eq!(
        one["result"]["rows"][0]["title"],
        "Access and Renewable Energy Project"
    );
}
