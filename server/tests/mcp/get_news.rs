//! `get_news` over the curated events: newest first with their tolls, cited records, what is near
//! when nothing is, the asked language.

use serde_json::json;

use crate::support::{call_tool, payload, record_ids, structured_size};

#[test]
fn get_news_lists_an_ecuadorian_earthquake_with_its_toll_newest_first() {
    let answer = call_tool(
        "get_news",
        json!({"parameter": "salud", "country": "Ecuador", "kind": "earthquake", "limit": 20, "lang": "en"}),
    );
    assert_eq!(answer["isError"], false, "{answer}");
    let body = payload(&answer);
    let items = body["result"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 20);
    let dates: Vec<&str> = items
        .iter()
        .map(|item| item["date"].as_str().unwrap())
        .collect();
    assert!(dates.windows(2).all(|pair| pair[0] >= pair[1]), "{dates:?}");
    // ncei_significant_earthquakes_lac_to2023-06.csv: 2016-04-16, M7.8, 663 deaths (NCEI totals).
    let manabi = items
        .iter()
        .find(|item| item["id"] == "ncei_eq-2016-04-16-ecu")
        .expect("the 2016 earthquake");
    assert_eq!(manabi["magnitude"], 7.8);
    assert_eq!(manabi["deaths"], 663.0);
    assert!(manabi["title"].as_str().unwrap().contains("MANABI"));
    // Each item's id is its citation, whose record travels with the answer.
    let records = record_ids(&body);
    assert!(
        items
            .iter()
            .all(|item| records.contains(&item["id"].as_str().unwrap().to_string()))
    );
    assert!(
        body["result"]["note"]
            .as_str()
            .unwrap()
            .contains("not press news")
    );
    assert!(
        structured_size(&answer) < 24 * 1024,
        "{} B",
        structured_size(&answer)
    );
}

#[test]
fn get_news_ids_resolve_and_bolivian_energy_news_names_its_records() {
    let body = payload(&call_tool(
        "get_news",
        json!({"parameter": "energia", "country": "BOL", "kind": "project_closed", "limit": 20}),
    ));
    let items = body["result"]["items"].as_array().unwrap();
    let closed = items
        .iter()
        .find(|item| item["id"] == "event-wbproj-p102479-closed")
        .expect("P102479's closing");
    assert_eq!(closed["record_id"], "wbproj-p102479");
    let resolved = payload(&call_tool(
        "resolve_citations",
        json!({"ids": ["event-wbproj-p102479-closed", "wbproj-p102479"]}),
    ));
    assert_eq!(
        resolved["result"]["records"],
        json!(["event-wbproj-p102479-closed", "wbproj-p102479"])
    );
    let record = &resolved["citations"]["records"]["event-wbproj-p102479-closed"];
    assert_eq!(record["dataset"], "events");
    assert_eq!(
        record["url"],
        "https://projects.worldbank.org/en/projects-operations/project-detail/P102479"
    );
}

#[test]
fn get_news_with_nothing_says_so_and_names_what_is_near() {
    let body = payload(&call_tool(
        "get_news",
        json!({"parameter": "genero", "country": "AIA", "lang": "en"}),
    ));
    assert_eq!(body["result"]["total"], 0);
    assert!(
        body["result"]["note"]
            .as_str()
            .unwrap()
            .contains("holds no event of the pillar genero in AIA")
    );
    let nearby = body["result"]["nearby"].as_array().unwrap();
    assert!(!nearby.is_empty());
    assert!(
        nearby
            .iter()
            .all(|near| near["events"].as_u64().unwrap() > 0)
    );

    let answer = call_tool(
        "get_news",
        json!({"parameter": "energia", "country": "BOL", "kind": "press"}),
    );
    assert_eq!(answer["isError"], true);
    assert!(answer.to_string().contains("project_approved"), "{answer}");
    let answer = call_tool(
        "get_news",
        json!({"parameter": "energia", "country": "BOL", "limit": 21}),
    );
    assert_eq!(answer["isError"], true);
}

#[test]
fn get_news_speaks_the_asked_language_with_the_same_facts() {
    let ask = |lang: &str| {
        payload(&call_tool(
            "get_news",
            json!({"parameter": "salud", "country": "ECU", "kind": "EARTHQUAKE", "limit": 20, "lang": lang}),
        ))
    };
    let manabi = |body: &serde_json::Value| {
        body["result"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|item| item["id"] == "ncei_eq-2016-04-16-ecu")
            .cloned()
            .expect("the 2016 earthquake")
    };
    let (es, pt, en) = (ask("es"), ask("pt"), ask("en"));
    // NCEI: 663 deaths, 6,274 injured (totals) for 2016-04-16; the kind is read case-insensitively.
    assert_eq!(
        manabi(&es)["title"],
        "Sismo de M7.8: ECUADOR: NEAR WEST COAST: MANABI, ESMERALDAS"
    );
    assert_eq!(
        manabi(&en)["title"],
        "M7.8 earthquake: ECUADOR: NEAR WEST COAST: MANABI, ESMERALDAS"
    );
    assert!(
        manabi(&es)["why"]
            .as_str()
            .unwrap()
            .starts_with("663 muertes, 6,274 heridos")
    );
    assert!(
        manabi(&pt)["why"]
            .as_str()
            .unwrap()
            .starts_with("663 mortes, 6,274 feridos")
    );
    assert!(
        manabi(&en)["why"]
            .as_str()
            .unwrap()
            .starts_with("663 deaths, 6,274 injured")
    );
    assert_eq!(manabi(&es)["deaths"], manabi(&en)["deaths"]);
    // The note addresses the agent: English in every language, like every note.
    assert_eq!(es["result"]["note"], en["result"]["note"]);
    assert!(
        pt["result"]["note"]
            .as_str()
            .unwrap()
            .contains("not press news")
    );
}
