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

#[test]
fn wgi_points_carry_their_standard_errors_and_the_chart_draws_a_90_percent_band() {
    let answer = call_tool(
        "get_series",
        json!({"indicator": "cc_est", "countries": ["MEX"], "from_year": 2013, "lang": "en"}),
    );
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let content = payload(&answer);
    let mexico = series(&content["result"], "MEX");
    // WGI control of corruption, Mexico: 2013 -0.59 (SE 0.14), 2023 -1.02 (SE 0.16).
    assert_eq!(point(mexico, 2013), -0.59);
    assert_eq!(point(mexico, 2023), -1.02);
    let errors = mexico["standard_errors"].as_array().unwrap();
    assert_eq!(errors.len(), mexico["points"].as_array().unwrap().len());
    assert!(errors.contains(&json!([2013, 0.14])), "{errors:?}");
    assert!(errors.contains(&json!([2023, 0.16])), "{errors:?}");
    // The chart: a band of ±1.64 standard errors under the line.
    let chart = &answer["_meta"]["lac-corpus/display"]["charts"][0];
    let band = &chart["layer"][0];
    assert_eq!(band["mark"]["type"], json!("area"));
    // The band has its own legend entry, a pale swatch as the band is drawn.
    let legend = &band["encoding"]["opacity"];
    assert_eq!(
        legend["scale"]["domain"],
        json!(["90 % interval (±1.64 standard errors)"])
    );
    assert_eq!(legend["scale"]["range"], json!([0.2]));
    assert!(legend["legend"].is_object());
    let rows = band["data"]["values"].as_array().unwrap();
    let row_2023 = rows.iter().find(|row| row["year"] == json!(2023)).unwrap();
    assert_eq!(row_2023["series"], json!("MEX"));
    let (low, high) = (
        row_2023["low"].as_f64().unwrap(),
        row_2023["high"].as_f64().unwrap(),
    );
    assert!((low - (-1.02 - 1.64 * 0.16)).abs() < 1e-9, "{low}");
    assert!((high - (-1.02 + 1.64 * 0.16)).abs() < 1e-9, "{high}");
    assert_eq!(chart["data"]["name"], json!("table:0"));
    assert_eq!(chart["layer"][1]["mark"]["type"], json!("line"));
    // A series without standard errors has neither the field nor a band.
    let answer = call_tool(
        "get_series",
        json!({"indicator": "sp_dyn_le00_in", "countries": ["MEX"]}),
    );
    assert!(
        series(&payload(&answer)["result"], "MEX")
            .get("standard_errors")
            .is_none()
    );
    assert!(
        answer["_meta"]["lac-corpus/display"]["charts"][0]
            .get("layer")
            .is_none()
    );
}

#[test]
fn weo_estimates_are_listed_apart_from_projections_and_labelled_estimacion() {
    // WEOApr2025all_lac.csv, VEN NGDP_RPCH: Estimates Start After 2018, release 2025.
    let answer = call_tool(
        "get_series",
        json!({"indicator": "ngdp_rpch", "countries": ["VEN"], "from_year": 2015, "lang": "es"}),
    );
    let content = payload(&answer);
    let venezuela = series(&content["result"], "VEN");
    assert_eq!(
        venezuela["estimate_years"],
        json!([2019, 2020, 2021, 2022, 2023, 2024])
    );
    assert_eq!(venezuela["projection_years"][0], json!(2025));
    let chart = &answer["_meta"]["lac-corpus/display"]["charts"][0];
    let dash = &chart["layer"][0]["encoding"]["strokeDash"]["scale"];
    assert_eq!(
        dash["domain"],
        json!(["observado", "estimación", "proyección"])
    );
    // Estimates solid like observations, projections dashed.
    assert_eq!(dash["range"], json!([[1, 0], [1, 0], [4, 3]]));
    let calculate = chart["transform"][2]["calculate"].as_str().unwrap();
    assert!(
        calculate.contains(r#"{"VEN":2019}"#) && calculate.contains(r#"{"VEN":2025}"#),
        "{calculate}"
    );
}

#[test]
fn each_series_range_and_its_rows_are_those_a_scan_of_the_whole_table_finds() {
    let corpus = crate::support::server().plugin().corpus();
    let table = corpus.baked.observations();
    // Each (indicator, country) key's first and last row, by a scan of every row.
    let mut spans: Vec<((&str, &str), usize, usize)> = Vec::new();
    for (row_idx, row) in table.rows().enumerate() {
        match spans.last_mut() {
            Some((key, _, last)) if *key == (row.indicator, row.country) => *last = row_idx,
            _ => spans.push(((row.indicator, row.country), row_idx, row_idx)),
        }
    }
    assert!(spans.len() > 1000, "{} series", spans.len());
    // Every 97th series, the first and the last, and Mexico's life expectancy (65 rows).
    let le_mex = spans
        .iter()
        .position(|(key, _, _)| *key == ("sp_dyn_le00_in", "MEX"))
        .expect("Mexico's life expectancy");
    let checked = (0..spans.len())
        .step_by(97)
        .chain([0, spans.len() - 1, le_mex]);
    for at in checked {
        let ((indicator, country), first, last) = spans[at];
        let range = table.series(indicator, country);
        assert_eq!(range, first..last + 1, "{indicator} {country}");
        let stepped: Vec<_> = table.rows_of(range.clone()).collect();
        let searched: Vec<_> = range.map(|row_idx| table.row(row_idx)).collect();
        assert_eq!(stepped, searched, "{indicator} {country}");
    }
    assert_eq!(table.series("sp_dyn_le00_in", "MEX").len(), 65);
    assert!(table.series("sp_dyn_le00_in", "XYZ").is_empty());
    assert!(table.series("no_such_indicator", "MEX").is_empty());
}
