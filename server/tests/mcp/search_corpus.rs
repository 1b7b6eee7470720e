use serde_json::{Value, json};

use crate::support::{call_tool, payload};

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
