//! The curated projects through get_dataset and search_corpus, on the real corpus.

use serde_json::json;

use crate::support::{call_tool, payload};

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
    assert_eq!(decentralized["commitment_usd"], 5_175_000.0);
    assert_eq!(decentralized["citation_id"], "wbproj-p102479");
    // The whole dataset's files are listed for a notebook.
    let formats: Vec<&str> = body["result"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["csv_gz", "parquet"]);

    let one = payload(&call_tool(
        "get_dataset",
        json!({"dataset_id": "projects", "id": "p127837"}),
    ));
    assert_eq!(
        one["result"]["rows"][0]["title"],
        "Access and Renewable Energy Project"
    );
}

#[test]
fn search_corpus_finds_a_project_by_what_it_does_and_where() {
    let answer = call_tool(
        "search_corpus",
        json!({"query": "renewable energy electricity access", "datasets": ["projects"], "country": "BOL"}),
    );
    assert_eq!(answer["isError"], false, "{answer}");
    let hits = payload(&answer)["result"]["hits"].clone();
    let ids: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["keys"]["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"P127837"), "{ids:?}");
    assert!(
        hits.as_array()
            .unwrap()
            .iter()
            .all(|hit| hit["dataset_id"] == "projects")
    );
}
