//! `find_pilots` over the curated projects: ranking with the cited impact base, active projects
//! first, paging, stop words, every-word matches, the Spanish glossary.

use serde_json::json;

use crate::support::{call_tool, cited_ids, payload, record_ids};

#[test]
fn the_seeds_question_in_spanish_finds_bolivias_renewable_energy_project() {
    // "¿Qué proyectos del Banco Mundial financian energía renovable en Bolivia?": the records are in
    // English; the reviewed glossary (data/curated/project_terms.csv) lets the Spanish words find them.
    let body = payload(&call_tool(
        "find_pilots",
        json!({"query": "energía renovable", "country": "Bolivia"}),
    ));
    let pilots = body["result"]["pilots"].as_array().unwrap();
    let access = pilots
        .iter()
        .find(|pilot| pilot["slug"] == "p127837")
        .expect("P127837 Access and Renewable Energy Project");
    assert_eq!(access["title"], "Access and Renewable Energy Project");
    assert_eq!(access["commitment_usd"], 50_000_000.0);
    assert!(record_ids(&body).contains(&"wbproj-p127837".to_string()));
}

#[test]
fn find_pilots_ranks_a_countrys_projects_with_their_cited_impact_base() {
    let answer = call_tool(
        "find_pilots",
        json!({"country": "Bolivia", "parameter": "energia", "query": "electricity access"}),
    );
    assert_eq!(answer["isError"], false, "{answer}");
    let size = serde_json::to_string(&answer["structuredContent"])
        .unwrap()
        .len();
    assert!(size <= 24 * 1024, "{size} B");
    let body = payload(&answer);
    let pilots = body["result"]["pilots"].as_array().unwrap();
    let decentralized = pilots
        .iter()
        .find(|pilot| pilot["slug"] == "p102479")
        .expect("P102479 is a Bolivian energy pilot");
    assert_eq!(
        decentralized["title"],
        "Bolivia Decentralized Electricity for Universal Access"
    );
    assert_eq!(decentralized["maturity"], "closed");
    // A pure grant (the newer export's total repeats it): no lending commitment.
    assert!(decentralized.get("commitment_usd").is_none());
    assert_eq!(decentralized["grant_usd"], 5_175_000.0);
    assert_eq!(decentralized["impact"], "BOL:energia");
    assert!(pilots.iter().all(|pilot| pilot["country"] == "BOL"));
    // The impact base cites each latest value; every pilot's record is cited too.
    let impact = body["result"]["impact_base"]["BOL:energia"]
        .as_array()
        .unwrap();
    assert!(!impact.is_empty());
    let cited = cited_ids(&body);
    assert!(cited.contains(&json!("wbproj-p102479")));
    assert!(cited.contains(&impact[0]["citation_id"]));
}

#[test]
fn find_pilots_without_a_query_puts_active_projects_first_and_says_when_nothing_matches() {
    let body = payload(&call_tool("find_pilots", json!({"country": "PER"})));
    let pilots = body["result"]["pilots"].as_array().unwrap();
    // Ten, unless the default answer's 10 KB stopped the list first: then `next_offset` gives the rest.
    assert!(
        pilots.len() == 10 || (!pilots.is_empty() && body["result"]["next_offset"].is_u64()),
        "{} pilots",
        pilots.len()
    );
    assert!(
        pilots.iter().all(|pilot| pilot["maturity"] == "active"),
        "{pilots:?}"
    );
    assert!(body["result"]["total"].as_u64().unwrap() > 10);

    let none = payload(&call_tool(
        "find_pilots",
        json!({"country": "URY", "query": "zzzqqq"}),
    ));
    assert_eq!(none["result"]["total"], 0);
    let note = none["result"]["note"].as_str().unwrap();
    assert!(note.contains("projects are in URY"), "{note}");
}

#[test]
fn find_pilots_pages_and_a_query_of_stop_words_matches_nothing() {
    let first = payload(&call_tool(
        "find_pilots",
        json!({"country": "BOL", "limit": 5}),
    ));
    assert_eq!(first["result"]["next_offset"], 5);
    let second = payload(&call_tool(
        "find_pilots",
        json!({"country": "BOL", "limit": 5, "offset": 5}),
    ));
    assert_ne!(
        first["result"]["pilots"][0]["slug"],
        second["result"]["pilots"][0]["slug"]
    );
    assert_eq!(first["result"]["total"], second["result"]["total"]);
    let past = payload(&call_tool(
        "find_pilots",
        json!({"country": "BOL", "offset": 9999}),
    ));
    assert!(
        past["result"]["note"]
            .as_str()
            .unwrap()
            .contains("past the last")
    );
    for query in ["de la", "of the", "do da"] {
        let body = payload(&call_tool("find_pilots", json!({"query": query})));
        assert_eq!(body["result"]["total"], 0, "{query}");
    }
}

#[test]
fn find_pilots_lists_projects_naming_every_word_first_and_says_when_only_some_do() {
    let every = payload(&call_tool(
        "find_pilots",
        json!({"query": "water supply sanitation", "country": "PER"}),
    ));
    assert_eq!(every["result"]["query_match"], "every_word");
    let some = payload(&call_tool(
        "find_pilots",
        json!({"query": "China Chinese financing", "country": "ARG"}),
    ));
    assert_eq!(some["result"]["query_match"], "some_words");
    assert!(
        some["result"]["note"]
            .as_str()
            .unwrap()
            .contains("No project matches every word")
    );
}
