use serde_json::{Value, json};

use crate::support::{call_tool, citation_of, cited_ids, no_citations, payload};

/// The series of `country` in a get_series result.
fn series<'a>(result: &'a Value, country: &str) -> &'a Value {
    result["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|series| series["country"] == json!(country))
        .unwrap_or_else(|| panic!("{country} has a series"))
}

/// The value of `year` in a series' `[year, value]` points.
fn point(series: &Value, year: i64) -> f64 {
    crate::support::points(series)
        .into_iter()
        .find(|(point_year, _)| *point_year == year)
        .unwrap_or_else(|| panic!("a {year} point"))
        .1
}

#[test]
fn d1_life_expectancy_series_for_mex_and_arg() {
    let answer = call_tool(
        "get_series",
        json!({"parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["MEX", "ARG"]}),
    );
    assert_eq!(answer["isError"], json!(false));
    let content = payload(&answer);
    let result = &content["result"];
    let mexico = series(result, "MEX");
    assert_eq!(point(mexico, 2010), 73.718);
    assert_eq!(point(mexico, 2024), 75.264);
    assert_eq!(mexico["latest"], json!([2024, 75.264]));
    assert_eq!(mexico["series_id"], json!("wb-sp-dyn-le00-in-mex"));
    // The latest point's citation, quoted from this answer alone: series, indicator and source records.
    let cited = citation_of(&content, "wb-sp-dyn-le00-in-mex-2024").expect("cited");
    assert_eq!(
        cited["url"],
        json!("https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX")
    );
    assert_eq!(
        cited["title"],
        json!("Life expectancy at birth, total (years)")
    );
    assert_eq!(cited["publisher"], json!("The World Bank"));
    assert_eq!(cited["license"], json!("CC-BY-4.0"));
    assert_eq!(cited["link_kind"], json!("indicator_country"));
    let argentina = series(result, "ARG");
    assert_eq!(argentina["latest"], json!([2024, 77.543]));
    assert_eq!(
        citation_of(&content, "wb-sp-dyn-le00-in-arg-2024").expect("cited")["url"],
        json!("https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=AR")
    );
    // Every point maps to a citation id with its records, and each record appears once.
    let ids = cited_ids(&content);
    assert_eq!(
        ids.len(),
        crate::support::points(mexico).len() + crate::support::points(argentina).len()
    );
    assert_eq!(content["citations"]["series"].as_object().unwrap().len(), 2);
    assert_eq!(
        content["citations"]["sources"].as_object().unwrap().len(),
        1
    );
    // The display table has one column per country, in `_meta`, outside structuredContent.
    assert!(answer["structuredContent"].get("display").is_none());
    let display = &answer["_meta"]["lac-corpus/display"];
    assert_eq!(
        display["tables"][0]["columns"],
        json!(["year", "MEX", "ARG"])
    );
}

#[test]
fn d2_homicides_from_2015() {
    let answer = call_tool(
        "get_series",
        json!({"parameter": "seguridad", "indicator": "vc_ihr_psrc_p5", "countries": ["Brasil", "uruguay"], "from_year": 2015}),
    );
    let result = &payload(&answer)["result"];
    let brazil = series(result, "BRA");
    assert_eq!(brazil["points"][0][0], json!(2015));
    assert!((point(brazil, 2015) - 28.85).abs() < 0.01);
    assert_eq!(brazil["latest"][0], json!(2023));
    assert!((brazil["latest"][1].as_f64().unwrap() - 19.275).abs() < 0.001);
    assert!((series(result, "URY")["latest"][1].as_f64().unwrap() - 11.245).abs() < 0.001);
}

#[test]
fn d3_resolve_citations_resolves_stored_ids_and_explains_the_rest() {
    let answer = call_tool(
        "resolve_citations",
        json!({"ids": ["wb-sp-dyn-le00-in-mex-2024", "wb-sp-dyn-le00-in-mex-1066", "pulse-abc"]}),
    );
    let content = payload(&answer);
    assert_eq!(
        content["result"]["resolved"],
        json!([{"citation_id": "wb-sp-dyn-le00-in-mex-2024", "year": 2024, "value": 75.264}])
    );
    let citation = citation_of(&content, "wb-sp-dyn-le00-in-mex-2024").expect("its records");
    assert_eq!(citation["publisher"], json!("The World Bank"));
    assert_eq!(citation["dataset"], json!("World Development Indicators"));
    assert_eq!(
        citation["title"],
        json!("Life expectancy at birth, total (years)")
    );
    assert_eq!(
        citation["url"],
        json!("https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX")
    );
    assert_eq!(citation["retrieved_at"], json!("2026-07-01"));
    let unresolved = content["result"]["unresolved"].as_array().unwrap();
    assert_eq!(unresolved.len(), 2);
    assert_eq!(
        unresolved[0]["citation_id"],
        json!("wb-sp-dyn-le00-in-mex-1066")
    );
    assert!(
        unresolved[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no sp_dyn_le00_in value for MEX in 1066")
    );
    assert_eq!(unresolved[1]["citation_id"], json!("pulse-abc"));
    assert!(
        unresolved[1]["reason"]
            .as_str()
            .unwrap()
            .contains("per-response")
    );
}

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
fn d10_a_country_without_values_is_missing_never_filled() {
    let answer = call_tool(
        "get_series",
        json!({"parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["MEX", "AIA"]}),
    );
    let result = &payload(&answer)["result"];
    assert_eq!(result["series"].as_array().unwrap().len(), 1);
    assert_eq!(result["missing"][0]["country"], json!("AIA"));
    assert!(
        result["missing"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("no value")
    );
}

#[test]
fn d11_an_unknown_indicator_names_the_closest_ids() {
    let answer = call_tool(
        "get_series",
        json!({"parameter": "salud", "indicator": "sp_dyn_le00_inx", "countries": ["MEX"]}),
    );
    assert_eq!(answer["isError"], json!(true));
    let content = payload(&answer);
    let message = content["result"]["error"].as_str().unwrap();
    assert!(
        message.contains("`sp_dyn_le00_inx`") && message.contains("sp_dyn_le00_in,"),
        "{message}"
    );
    assert_eq!(content["citations"], no_citations());
}

#[test]
fn d7_unknown_countries_list_the_valid_ones() {
    let answer = call_tool(
        "compare_countries",
        json!({"parameter": "salud", "countries": ["MEX", "Narnia"]}),
    );
    assert_eq!(answer["isError"], json!(true));
    let message = payload(&answer)["result"]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("`Narnia`") && message.contains("BRA") && message.contains("MEX"),
        "{message}"
    );
}

#[test]
fn compare_countries_cites_every_latest_value() {
    let answer = call_tool(
        "compare_countries",
        json!({"parameter": "security", "countries": ["México", "Brasil", "COL"], "lang": "pt"}),
    );
    assert_eq!(answer["isError"], json!(false));
    let content = payload(&answer);
    let result = &content["result"];
    assert_eq!(result["parameter"], json!("seguridad"));
    assert_eq!(result["parameter_name"], json!("Segurança"));
    let homicides = result["indicators"]
        .as_array()
        .unwrap()
        .iter()
        .find(|indicator| indicator["id"] == json!("vc_ihr_psrc_p5"))
        .unwrap();
    assert_eq!(homicides["name"], json!("Homicídios intencionais"));
    let brazil = homicides["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|value| value["country"] == json!("BRA"))
        .unwrap();
    assert_eq!(brazil["year"], json!(2023));
    assert_eq!(brazil["citation_id"], json!("wb-vc-ihr-psrc-p5-bra-2023"));
    let cited = crate::support::cited_ids(&content);
    for indicator in result["indicators"].as_array().unwrap() {
        for value in indicator["values"].as_array().unwrap() {
            assert!(
                cited.contains(&value["citation_id"]),
                "{} is cited",
                value["citation_id"]
            );
        }
    }
}

#[test]
fn non_canonical_citation_ids_do_not_resolve() {
    let answer = call_tool(
        "resolve_citations",
        json!({"ids": ["wb-sp-dyn-le00-in-mex-+2024", "wb-sp-dyn-le00-in-MEX-2024", "wb-sp-dyn-le00-in-mex-02024"]}),
    );
    let content = payload(&answer);
    assert_eq!(content["result"]["resolved"], json!([]));
    for unresolved in content["result"]["unresolved"].as_array().unwrap() {
        assert!(
            unresolved["reason"]
                .as_str()
                .unwrap()
                .contains("wb-sp-dyn-le00-in-mex-2024"),
            "{unresolved}"
        );
    }
}

#[test]
fn an_indicator_of_another_pillar_is_named_with_its_pillar() {
    let answer = call_tool(
        "get_series",
        json!({"parameter": "seguridad", "indicator": "sp_dyn_le00_in", "countries": ["MEX"]}),
    );
    assert_eq!(answer["isError"], json!(true));
    assert!(
        payload(&answer)["result"]["error"]
            .as_str()
            .unwrap()
            .contains("belongs to pillar `salud`")
    );
}

#[test]
fn get_series_reports_the_years_it_returns() {
    let answer = call_tool(
        "get_series",
        json!({"parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["MEX"]}),
    );
    let result = &payload(&answer)["result"];
    assert_eq!(
        (result["from_year"].clone(), result["to_year"].clone()),
        (json!(1960), json!(2024))
    );
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
fn a_dataset_level_link_says_so_in_its_source_record() {
    // ND-GAIN documents no per-country page: the link is the dataset's, and the record says so.
    let answer = call_tool(
        "get_series",
        json!({"indicator": "ndgain_index", "countries": ["CHL"], "from_year": 2018}),
    );
    let content = payload(&answer);
    let id = format!(
        "{}-2018",
        content["result"]["series"][0]["series_id"]
            .as_str()
            .unwrap()
    );
    let cited = citation_of(&content, &id).expect("cited");
    assert_eq!(cited["link_kind"], json!("dataset"));
    let wdi = payload(&call_tool(
        "get_series",
        json!({"indicator": "sp_dyn_le00_in", "countries": ["CHL"], "from_year": 2020}),
    ));
    assert_eq!(
        citation_of(&wdi, "wb-sp-dyn-le00-in-chl-2020").unwrap()["link_kind"],
        json!("indicator_country")
    );
}
