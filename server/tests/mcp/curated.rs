//! The curated records across tools, on the real corpus: every record an answer of get_news,
//! search_corpus or get_dataset names is cited, and resolve_citations forgives ids only where safe.
//! Each tool's own tests over the curated datasets are in the file named after it.

use serde_json::json;

use crate::support::{call_tool, payload, record_ids};

#[test]
fn every_record_an_answer_names_is_cited_and_ids_are_forgiving_where_safe() {
    // get_news cites each event and the record it was made from.
    let body = payload(&call_tool(
        "get_news",
        json!({"parameter": "energia", "country": "BOL", "limit": 20}),
    ));
    let records = record_ids(&body);
    for item in body["result"]["items"].as_array().unwrap() {
        if let Some(record) = item["record_id"].as_str() {
            assert!(records.contains(&record.to_string()), "{record}");
        }
    }
    // search_corpus cites the curated records its hits name.
    let body = payload(&call_tool(
        "search_corpus",
        json!({"query": "renewable energy", "datasets": ["regulation", "projects"], "limit": 5}),
    ));
    let records = record_ids(&body);
    for hit in body["result"]["hits"].as_array().unwrap() {
        let id = hit["keys"]["id"].as_str().unwrap();
        let cited = if hit["dataset_id"] == "projects" {
            format!("wbproj-{}", id.to_lowercase())
        } else {
            id.to_string()
        };
        assert!(records.contains(&cited), "{cited}");
    }
    // A project row by its citation id; a filter that does not apply is refused, naming it.
    let body = payload(&call_tool(
        "get_dataset",
        json!({"dataset_id": "projects", "id": "wbproj-p073367"}),
    ));
    assert_eq!(body["result"]["rows"][0]["id"], "P073367");
    let answer = call_tool(
        "get_dataset",
        json!({"dataset_id": "events", "country": "ECU", "year": 2016}),
    );
    assert_eq!(answer["isError"], true);
    assert!(answer.to_string().contains("year"), "{answer}");
    // A record id in the wrong case is named with its canonical form.
    let body = payload(&call_tool(
        "resolve_citations",
        json!({"ids": ["Wbproj-P073367"]}),
    ));
    assert!(
        body["result"]["unresolved"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("canonical form is wbproj-p073367")
    );
}
