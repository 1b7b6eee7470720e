//! `get_series`: cases D1, D2, D10, D11 of `../shared/cases/data.md` (values, citations, missing
//! countries, unknown indicators), the years returned, another pillar's indicator, dataset-level links.

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
