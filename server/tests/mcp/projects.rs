//! The curated projects through get_dataset and search_corpus, on the real corpus.

use serde_json::json;

use crate::support::{call_tool, cited_ids, payload, structured_size};

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
fn resolve_citations_resolves_a_project_record() {
    let body = payload(&call_tool(
        "resolve_citations",
        json!({"ids": ["wbproj-p127837", "wb-si-pov-gini-ury-2024", "wbproj-p000000"]}),
    ));
    assert_eq!(body["result"]["records"], json!(["wbproj-p127837"]));
    assert_eq!(
        body["citations"]["records"]["wbproj-p127837"]["title"],
        "Access and Renewable Energy Project"
    );
    assert_eq!(body["result"]["resolved"][0]["value"], 40.0);
    assert_eq!(
        body["result"]["unresolved"][0]["citation_id"],
        "wbproj-p000000"
    );
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
    assert_eq!(decentralized["commitment_usd"], 5_175_000.0);
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
    // Ten, unless the byte budget stopped the list first, which `truncated` says.
    assert!(
        pilots.len() == 10 || (pilots.len() >= 5 && body["result"]["truncated"] == true),
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
fn a_full_portfolio_stays_under_its_budget_and_queries_are_words() {
    for arguments in [
        json!({"limit": 25}),
        json!({"parameter": "medio_ambiente", "limit": 25}),
        json!({"country": "ARG", "limit": 25}),
    ] {
        let answer = call_tool("find_pilots", arguments.clone());
        let size = serde_json::to_string(&answer["structuredContent"])
            .unwrap()
            .len();
        assert!(size <= 24 * 1024, "{arguments}: {size} B");
        let body = payload(&answer);
        assert_eq!(body["result"]["truncated"], true, "{arguments}");
        cited_ids(&body);
    }
    // NOT is a word, not an operator that would match every project without the next word.
    let not = payload(&call_tool("find_pilots", json!({"query": "NOT water"})));
    let water = payload(&call_tool("find_pilots", json!({"query": "water"})));
    assert!(not["result"]["total"].as_u64() <= water["result"]["total"].as_u64());
    // A page of projects counts its records against the page budget.
    let page = call_tool(
        "get_dataset",
        json!({"dataset_id": "projects", "limit": 500}),
    );
    let size = serde_json::to_string(&page["structuredContent"])
        .unwrap()
        .len();
    assert!(size <= 40 * 1024, "{size} B");
    // Only the canonical record id resolves.
    let body = payload(&call_tool(
        "resolve_citations",
        json!({"ids": ["wb-p127837", "wbproj-p000000"]}),
    ));
    assert_eq!(body["result"]["records"], json!([]));
    assert!(
        body["result"]["unresolved"][1]["reason"]
            .as_str()
            .unwrap()
            .contains("no projects record `wbproj-p000000`")
    );
}

#[test]
fn get_pilot_gives_the_full_sheet_of_a_project_every_number_cited() {
    let answer = call_tool("get_pilot", json!({"slug": "p102479"}));
    assert_eq!(answer["isError"], false, "{answer}");
    let size = serde_json::to_string(&answer["structuredContent"])
        .unwrap()
        .len();
    assert!(size <= 16 * 1024, "{size} B");
    let body = payload(&answer);
    let sheet = &body["result"];
    assert_eq!(
        sheet["project"]["title"],
        "Bolivia Decentralized Electricity for Universal Access"
    );
    assert_eq!(sheet["project"]["country"], "BOL");
    assert_eq!(sheet["economics"]["commitment_usd"], 5_175_000.0);
    assert_eq!(sheet["bankability"]["maturity"], "closed");
    assert!(
        sheet["decision_makers"]["implementing_agency"].is_string()
            || sheet["decision_makers"]["implementing_agency"].is_null()
    );
    // Similar projects are Bolivian and share a pillar; each is cited as a record.
    let similar = sheet["bankability"]["similar"].as_array().unwrap();
    assert!(!similar.is_empty());
    let cited = cited_ids(&body);
    for other in similar {
        assert!(cited.contains(&other["citation_id"]), "{other}");
    }
    assert!(cited.contains(&json!("wbproj-p102479")));
    // The export repeats this grant in the commitment column: the cost is all the World Bank's, and no
    // other financing is made up from the sum of both columns.
    assert_eq!(sheet["economics"]["cost_usd"], 5_175_000.0);
    assert_eq!(sheet["economics"]["grant_usd"], 5_175_000.0);
    assert!(sheet["economics"]["other_financing_usd"].is_null());
    // P127837 cost 59.15 M US$ with a 50 M commitment: 9.15 M from others.
    let access = payload(&call_tool("get_pilot", json!({"slug": "P127837"})));
    let other = access["result"]["economics"]["other_financing_usd"]
        .as_f64()
        .unwrap();
    assert!((other - 9_150_000.0).abs() < 1.0, "{other}");

    let unknown = call_tool("get_pilot", json!({"slug": "p000000"}));
    assert_eq!(unknown["isError"], true);
    assert!(
        unknown["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("find_pilots lists them")
    );
}

#[test]
fn blanks_of_the_newer_export_are_read_from_the_older_and_projects_without_sectors_take_title_pillars()
 {
    // wb_projects_lac_2025-03-31.csv leaves P006110 (ENDE POWER I, Bolivia, closed) at cost 0.0 and no
    // commitment; wb_projects_lac_2024-08-29.csv reports 10,000,000 for both, closing 10/31/1970.
    let ende = payload(&call_tool("get_pilot", json!({"slug": "006110"})));
    assert_eq!(ende["result"]["economics"]["commitment_usd"], 10_000_000.0);
    assert_eq!(ende["result"]["economics"]["cost_usd"], 10_000_000.0);
    assert_eq!(ende["result"]["bankability"]["closing_date"], "1970-10-31");
    let notes = ende["result"]["notes"].to_string();
    assert!(
        notes.contains("cost_usd, commitment_usd, closing_date read from the older export"),
        "{notes}"
    );
    // P180027 (IDTR III, active, US$125 million): no sector in either export; "Electricity" in its title
    // places it in energia, and the sheet says so. The newer export's stage is "BANK APPROVED".
    let idtr = payload(&call_tool("get_pilot", json!({"slug": "wbproj-p180027"})));
    assert_eq!(idtr["result"]["project"]["pillars"], json!(["energia"]));
    assert_eq!(idtr["result"]["project"]["pillars_from"], "title");
    assert_eq!(idtr["result"]["bankability"]["stage"], "BANK APPROVED");
    assert_eq!(idtr["result"]["bankability"]["status_as_of"], "2025-03-31");
    assert_eq!(idtr["result"]["risks"]["environmental_risk"], "Substantial");
    assert!(
        idtr["result"]["notes"]
            .to_string()
            .contains("reviewed words of its title")
    );
    // So the Bolivian energy chain finds it at home, and a Spanish query finds it by its agency's name.
    let chain = payload(&call_tool(
        "recommend_action",
        json!({"country": "BOL", "pillar": "energia"}),
    ));
    assert_eq!(chain["result"]["projects"][0]["slug"], "p180027");
    let pilots = payload(&call_tool(
        "find_pilots",
        json!({"query": "energía renovable", "country": "BOL", "limit": 5}),
    ));
    let slugs: Vec<&str> = pilots["result"]["pilots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pilot| pilot["slug"].as_str().unwrap())
        .collect();
    assert!(
        slugs.contains(&"p180027") && slugs.contains(&"p127837"),
        "{slugs:?}"
    );
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
fn search_corpus_stays_under_its_budget_at_fifty_hits() {
    let answer = call_tool(
        "search_corpus",
        json!({"query": "climate change", "limit": 50}),
    );
    let size = structured_size(&answer);
    assert!(size < 24 * 1024, "{size} B");
    assert_eq!(payload(&answer)["result"]["truncated"], true);
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
