//! recommend_action, get_news, get_dataset and resolve_citations over the curated laws, institutions,
//! financing and events, on the real corpus.

use serde_json::{Value, json};

use crate::support::{call_tool, payload, structured_size};

/// The record ids of `citations.records`.
fn record_ids(body: &Value) -> Vec<String> {
    body["citations"]["records"]
        .as_object()
        .map(|records| records.keys().cloned().collect())
        .unwrap_or_default()
}

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
fn recommend_action_chains_cited_gaps_projects_financing_and_institutions() {
    let answer = call_tool(
        "recommend_action",
        json!({"country": "MEX", "pillar": "salud", "lang": "en"}),
    );
    assert_eq!(answer["isError"], false, "{answer}");
    let body = payload(&answer);
    let result = &body["result"];
    let gaps = result["gaps"].as_array().unwrap();
    assert!(!gaps.is_empty());
    // WDI SH.MED.BEDS.ZS: Mexico 1.01 hospital beds per 1,000 people in 2022, falling.
    let beds = gaps
        .iter()
        .find(|gap| gap["indicator"] == "sh_med_beds_zs")
        .expect("hospital beds");
    assert_eq!(beds["year"], 2022);
    assert_eq!(beds["value"], 1.01);
    assert_eq!(beds["worsening"], true);
    assert_eq!(beds["citation_ids"][0], "wb-sh-med-beds-zs-mex-2022");
    // Every gap's two cells are cited; every project, flow and institution is a cited record.
    let series = body["citations"]["series"].as_object().unwrap();
    for gap in gaps {
        for id in gap["citation_ids"].as_array().unwrap() {
            let series_id = id.as_str().unwrap().rsplit_once('-').unwrap().0;
            assert!(series.contains_key(series_id), "{series_id}");
        }
        assert!(gap["rank"].as_u64().unwrap() <= gap["of"].as_u64().unwrap());
        assert!(gap["of"].as_u64().unwrap() >= 10);
    }
    let records = record_ids(&body);
    for list in ["projects", "institutions"] {
        for item in result[list].as_array().unwrap() {
            let id = item["citation_id"].as_str().unwrap().to_string();
            assert!(records.contains(&id), "{list}: {id}");
        }
    }
    for item in result["financing"].as_array().unwrap() {
        if let Some(id) = item["citation_id"].as_str() {
            assert!(records.contains(&id.to_string()), "{id}");
        }
    }
    // The asks are written from the numbers above.
    let asks: Vec<&str> = result["institutions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|institution| institution["ask"].as_str().unwrap())
        .collect();
    assert!(!asks.is_empty());
    assert!(
        asks.iter().any(|ask| ask.contains("regional frontier")),
        "{asks:?}"
    );
    assert!(
        structured_size(&answer) < 24 * 1024,
        "{} B",
        structured_size(&answer)
    );
}

#[test]
fn recommend_action_falls_back_to_the_region_and_names_crs_flows() {
    let body = payload(&call_tool(
        "recommend_action",
        json!({"country": "Bolivia", "pillar": "energía"}),
    ));
    let result = &body["result"];
    let financing = result["financing"].as_array().unwrap();
    // The World Bank instrument of the pillar's projects in Bolivia, newest first: P102479 (IPF, closed 2013).
    assert!(financing.iter().any(|item| {
        item["kind"] == "lending_instrument"
            && item["instrument"] == "IPF"
            && item["projects"]
                .as_array()
                .unwrap()
                .contains(&json!("P102479"))
    }));
    assert!(
        financing
            .iter()
            .all(|item| item["kind"] != "crs_flow" || item["sector"] == "Energy")
    );
    let projects = result["projects"].as_array().unwrap();
    if projects.iter().any(|project| project["elsewhere"] == true) {
        assert!(projects.iter().all(|project| project["country"] != "BOL"));
        assert!(
            result["notes"]
                .to_string()
                .contains("elsewhere in the region")
        );
    }
    let answer = call_tool(
        "recommend_action",
        json!({"country": "Atlantis", "pillar": "energia"}),
    );
    assert_eq!(answer["isError"], true);
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

#[test]
fn recommend_action_says_when_projects_without_sectors_escape_the_pillar() {
    let body = payload(&call_tool(
        "recommend_action",
        json!({"country": "BOL", "pillar": "energia"}),
    ));
    let notes = body["result"]["notes"].to_string();
    // P180027 (Bolivia Improving Sustainable Access to Electricity, Active) has no sector in the exports.
    if body["result"]["projects"]
        .as_array()
        .unwrap()
        .iter()
        .any(|project| project["elsewhere"] == true)
    {
        assert!(notes.contains("have no sector"), "{notes}");
        assert!(notes.contains("p180027"), "{notes}");
    }
    // Additive counts and amounts have no frontier: no gap compares a country's size.
    for country in ["ATG", "ARG", "MEX"] {
        for pillar in ["medio_ambiente", "seguridad"] {
            let body = payload(&call_tool(
                "recommend_action",
                json!({"country": country, "pillar": pillar}),
            ));
            for gap in body["result"]["gaps"].as_array().unwrap() {
                let unit = gap["unit"].as_str().unwrap();
                assert!(
                    !unit.contains("sq. km") && unit != "number",
                    "{country} {pillar}: {gap}"
                );
            }
        }
    }
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
fn recommend_action_for_a_territory_without_data_says_so() {
    // Bouvet Island is in the registry but no source reports on it.
    let body = payload(&call_tool(
        "recommend_action",
        json!({"country": "BVT", "pillar": "energia"}),
    ));
    assert_eq!(body["result"]["gaps"], json!([]));
    assert!(
        body["result"]["notes"]
            .to_string()
            .contains("holds no value of any energia indicator for BVT"),
        "{}",
        body["result"]["notes"]
    );
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

#[test]
fn earthquake_deaths_are_no_indicator_but_resolve_metric_points_to_the_events() {
    let body = payload(&call_tool(
        "resolve_metric",
        json!({"query": "earthquake deaths"}),
    ));
    assert_eq!(body["result"]["matched"], false);
    let note = body["result"]["note"].as_str().unwrap();
    assert!(
        note.contains("`events`") && note.contains("get_news"),
        "{note}"
    );
    // And search_corpus finds the quake itself among the events.
    let hits = payload(&call_tool(
        "search_corpus",
        json!({"query": "earthquake Manabi", "datasets": ["events"], "country": "ECU"}),
    ));
    let ids: Vec<&str> = hits["result"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["keys"]["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"ncei_eq-2016-04-16-ecu"), "{ids:?}");
    assert!(ids.iter().all(|id| id.contains("-ecu")), "{ids:?}");
}

#[test]
fn recommend_action_writes_its_asks_in_the_asked_language() {
    for (lang, word) in [("es", " puesto "), ("pt", " posição "), ("en", " rank ")] {
        let body = payload(&call_tool(
            "recommend_action",
            json!({"country": "HTI", "pillar": "energia", "lang": lang}),
        ));
        let asks = body["result"]["institutions"].as_array().unwrap();
        assert!(!asks.is_empty());
        for ask in asks {
            let ask = ask["ask"].as_str().unwrap();
            assert!(ask.contains(word), "{lang}: {ask}");
        }
    }
}
