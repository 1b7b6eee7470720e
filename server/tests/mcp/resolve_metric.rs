//! `resolve_metric`: case D9 of `../shared/cases/data.md` (one indicator in three languages), the
//! plain answer when nothing measures the query, the Spanish fallback, the pointer to the events.

use serde_json::json;

use crate::support::{call_tool, payload};

#[test]
fn d9_homicides_in_three_languages_resolve_to_the_same_indicator() {
    for query in ["homicidios", "homicides", "homicídios"] {
        let answer = call_tool("resolve_metric", json!({"query": query}));
        let first = &answer["structuredContent"]["result"]["candidates"][0];
        assert_eq!(first["id"], json!("vc_ihr_psrc_p5"), "{query}");
        assert_eq!(first["pillar"], json!("seguridad"));
        assert_eq!(first["unit"], json!("per 100,000 people"));
        assert_eq!(first["good_direction"], json!("down"));
    }
}

#[test]
fn resolve_metric_says_when_nothing_in_the_corpus_measures_what_was_asked() {
    // The corpus counts deaths of several kinds, none from earthquakes: "deaths" alone is not a match.
    let answer = call_tool("resolve_metric", json!({"query": "earthquake deaths"}));
    assert_eq!(answer["isError"], json!(false));
    let result = &payload(&answer)["result"];
    assert_eq!(result["matched"], json!(false));
    assert!(
        result["note"]
            .as_str()
            .unwrap()
            .contains("No governed indicator")
    );
    assert!(!result["candidates"].as_array().unwrap().is_empty());
    for candidate in result["candidates"].as_array().unwrap() {
        assert!(
            candidate["match_quality"].as_f64().unwrap() < 0.75,
            "{candidate}"
        );
    }
    // CO2 per capita is governed now (Global Carbon Budget via OWID): it matches, first.
    let result = &payload(&call_tool(
        "resolve_metric",
        json!({"query": "CO2 emissions per capita"}),
    ))["result"];
    assert_eq!(result["matched"], json!(true));
    assert_eq!(result["candidates"][0]["id"], json!("co2_per_capita"));
    // Words the corpus does not hold at all: no candidates, the same plain answer.
    let result = &payload(&call_tool(
        "resolve_metric",
        json!({"query": "xyzzy plover"}),
    ))["result"];
    assert_eq!(
        (result["matched"].clone(), result["candidates"].clone()),
        (json!(false), json!([]))
    );
    // A metric the corpus holds matches fully, in any of the three languages.
    for query in [
        "homicidios",
        "life expectancy",
        "PIB per cápita",
        "mortalidad materna",
    ] {
        let result = &payload(&call_tool("resolve_metric", json!({"query": query})))["result"];
        assert_eq!(result["matched"], json!(true), "{query}");
        assert_eq!(
            result["candidates"][0]["match_quality"],
            json!(1.0),
            "{query}"
        );
        assert!(result.get("note").is_none());
    }
}

#[test]
fn an_unknown_lang_falls_back_to_spanish() {
    let answer = call_tool(
        "resolve_metric",
        json!({"query": "homicidios", "lang": "español"}),
    );
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let first = &payload(&answer)["result"]["candidates"][0];
    assert_eq!(first["name"], json!("Homicidios intencionales"));
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
