//! `recommend_action`: the chain of cited gaps, projects, financing and institutions; the regional
//! fallback, projects without sectors, territories without data, asks in the asked language.

use serde_json::json;

use crate::support::{call_tool, payload, record_ids, structured_size};

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
