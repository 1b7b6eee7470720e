//! `search_corpus`: hits across datasets with their keys, filters, errors, curated records found by
//! words, and its budget at fifty hits.

use serde_json::{Value, json};

use crate::support::{call_tool, payload, structured_size};

fn search(arguments: Value) -> Vec<Value> {
    let answer = call_tool("search_corpus", arguments.clone());
    assert_eq!(answer["isError"], json!(false), "{arguments}: {answer}");
    payload(&answer)["result"]["hits"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn finds_indicators_datasets_countries_and_pillars_with_keys() {
    let hits = search(json!({"query": "femicidio"}));
    assert_eq!(
        hits[0]["keys"],
        json!({"dataset_id": "metrics", "id": "cepalstat_2780"})
    );
    let hits = search(json!({"query": "concordance contradictions", "datasets": ["catalog"]}));
    assert_eq!(hits[0]["keys"], json!({"dataset_id": "concordance"}));
    let hits = search(json!({"query": "República Dominicana", "datasets": ["countries"]}));
    assert_eq!(
        hits[0]["keys"],
        json!({"dataset_id": "countries", "id": "DOM"})
    );
    let hits = search(json!({"query": "segurança", "datasets": ["pillars"], "lang": "pt"}));
    assert_eq!(
        (hits[0]["keys"]["id"].clone(), hits[0]["title"].clone()),
        (json!("seguridad"), json!("Segurança"))
    );
}

#[test]
fn filters_by_pillar_and_by_country_with_data() {
    let hits = search(json!({"query": "mortality", "parameter": "salud", "datasets": ["metrics"]}));
    assert!(hits.iter().all(|hit| hit["dataset_id"] == json!("metrics")));
    // CEPAL's femicide extract has no Mexico: a country filter drops it, and the answer says nothing matches.
    assert_eq!(
        search(json!({"query": "femicide", "datasets": ["metrics"]}))[0]["keys"]["id"],
        json!("cepalstat_2780")
    );
    let answer = call_tool(
        "search_corpus",
        json!({"query": "femicide", "country": "MEX", "datasets": ["metrics"]}),
    );
    assert_eq!(answer["isError"], json!(false));
    let body = payload(&answer);
    assert_eq!(body["result"]["hits"], json!([]));
    assert!(
        body["result"]["note"]
            .as_str()
            .unwrap()
            .contains("say the corpus holds none")
    );
    let hits = search(json!({"query": "homicides", "country": "MEX", "datasets": ["metrics"]}));
    assert_eq!(hits[0]["keys"]["id"], json!("vc_ihr_psrc_p5"));
}

#[test]
fn errors_name_the_valid_datasets() {
    let answer = call_tool("search_corpus", json!({"query": "x", "datasets": ["news"]}));
    assert_eq!(answer["isError"], json!(true));
    assert!(
        payload(&answer)["result"]["error"]
            .as_str()
            .unwrap()
            .contains("valid: metrics, catalog, countries, pillars")
    );
}

#[test]
fn search_corpus_finds_laws_institutions_and_flows_by_words() {
    let body = payload(&call_tool(
        "search_corpus",
        json!({"query": "renewable energy law", "datasets": ["regulation"], "country": "ARG"}),
    ));
    let hits = body["result"]["hits"].as_array().unwrap();
    assert!(hits.iter().all(|hit| hit["dataset_id"] == "regulation"));
    assert!(
        hits.iter()
            .any(|hit| hit["title"] == "Law 27191 on Renewable Energy"),
        "{hits:?}"
    );
    let body = payload(&call_tool(
        "search_corpus",
        json!({"query": "instituto nacional de estadística", "datasets": ["institutions"], "country": "Argentina"}),
    ));
    // INDEC is both the statistics office and a World Bank implementing agency: both are found.
    let ids: Vec<&str> = body["result"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["keys"]["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"nso-ar-nso-indec"), "{ids:?}");
    let body = payload(&call_tool(
        "search_corpus",
        json!({"query": "Germany energy", "datasets": ["financing"], "country": "BOL"}),
    ));
    assert!(
        body["result"]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|hit| hit["keys"]["id"] == "crsflow-bol-germany-oda-grants-energy")
    );
}

#[test]
fn a_pillar_filter_matches_any_pillar_of_a_record() {
    // The Bolivian decree's sectors map to energia, medio_ambiente and salud; salud is not its first.
    let body = payload(&call_tool(
        "search_corpus",
        json!({"query": "Harvesting Life Sowing Light", "parameter": "salud", "datasets": ["regulation"]}),
    ));
    assert_eq!(
        body["result"]["hits"][0]["keys"]["id"],
        "cclw-bol-supreme-decrees-no-2-472-and-no-2"
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

#[test]
fn search_corpus_stays_under_its_budget_at_fifty_hits() {
    let answer = call_tool(
        "search_corpus",
        json!({"query": "climate change", "limit": 50}),
    );
    let size = structured_size(&answer);
    assert!(size < 24 * 1024, "{size} B");
    assert_eq!(payload(&answer)["result"]["truncated"], true);
}
