//! `get_chart_data`, the MCP Apps' app-only tool, on real values: a cited series chart, single cited
//! numbers, refusals of other tools and the tools' own refusals passed on.

use serde_json::json;

use crate::support::{call_tool, payload};

#[test]
fn get_chart_data_draws_a_real_series_with_every_number_cited() {
    let answer = call_tool(
        "get_chart_data",
        json!({"tool": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["México", "BRA"], "lang": "en"}}),
    );
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let result = &answer["structuredContent"]["result"];
    assert_eq!(result["tool"], json!("get_series"));
    assert!(
        result["message"]
            .as_str()
            .unwrap()
            .starts_with("Life expectancy at birth (years)")
    );
    // The chart is self-contained: the table's rows ride in `datasets`; WDI gives Mexico 75.264 years
    // in 2024.
    let chart = &result["charts"][0];
    assert_eq!(
        chart["$schema"],
        json!("https://vega.github.io/schema/vega-lite/v6.json")
    );
    let rows = chart["datasets"]["table:0"].as_array().unwrap();
    let row_2024 = rows.iter().find(|row| row["year"] == json!(2024)).unwrap();
    assert_eq!(row_2024["MEX"], json!(75.264));
    // Each series is cited once with its span; each point's id is `{series_id}-{year}`.
    let cited = result["cited"].as_array().unwrap();
    let mexico = cited
        .iter()
        .find(|entry| entry["id"] == json!("wb-sp-dyn-le00-in-mex"))
        .unwrap();
    assert_eq!(mexico["years"], json!([1960, 2024]));
    assert_eq!(mexico["points"], json!(65));
    let citations = &answer["structuredContent"]["citations"];
    assert_eq!(
        citations["series"]["wb-sp-dyn-le00-in-mex"]["url"],
        json!("https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX")
    );
    assert_eq!(citations["sources"]["wdi"]["license"], json!("CC-BY-4.0"));
    // The model-facing answer of the same call, for comparison: the chart data stays out of it.
    let direct = call_tool(
        "get_series",
        json!({"indicator": "sp_dyn_le00_in", "countries": ["MEX", "BRA"]}),
    );
    assert!(payload(&direct)["result"].get("charts").is_none());
}

#[test]
fn get_chart_data_cites_single_numbers_with_their_values() {
    let answer = call_tool(
        "get_chart_data",
        json!({"tool": "compute", "arguments": {"op": "rank", "parameter": "pobreza", "indicator": "si_pov_gini", "year": 2022}}),
    );
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let result = &answer["structuredContent"]["result"];
    let dominican = result["cited"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["id"] == json!("wb-si-pov-gini-dom-2022"))
        .unwrap()
        .clone();
    assert_eq!(
        dominican,
        json!({"id": "wb-si-pov-gini-dom-2022", "series_id": "wb-si-pov-gini-dom", "value": 37.0})
    );
    assert_eq!(result["charts"][0]["mark"], json!("bar"));
}

#[test]
fn get_chart_data_refuses_other_tools_and_passes_on_the_tools_own_refusals() {
    let other = call_tool(
        "get_chart_data",
        json!({"tool": "search_corpus", "arguments": {"query": "gini"}}),
    );
    assert_eq!(other["isError"], json!(true));
    let message = payload(&other)["result"]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("tool") && message.contains("get_series"),
        "{message}"
    );

    let unknown = call_tool(
        "get_chart_data",
        json!({"tool": "get_series", "arguments": {"indicator": "no_such_indicator", "countries": ["MEX"]}}),
    );
    assert_eq!(unknown["isError"], json!(true));
    let message = payload(&unknown)["result"]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("no_such_indicator"), "{message}");

    let nine: Vec<&str> = vec!["MEX"; 9];
    let capped = call_tool(
        "get_chart_data",
        json!({"tool": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": nine}}),
    );
    assert_eq!(capped["isError"], json!(true));
    let message = payload(&capped)["result"]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("countries") && message.contains('8'),
        "{message}"
    );
}

#[test]
fn get_chart_data_serves_the_wgi_band_with_the_series() {
    let answer = call_tool(
        "get_chart_data",
        json!({"tool": "get_series", "arguments": {"indicator": "cc_est", "countries": ["MEX", "BRA"], "lang": "en"}}),
    );
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let chart = &answer["structuredContent"]["result"]["charts"][0];
    // The lines' rows ride in `datasets`, the band (±1.64 standard errors) in its own layer.
    assert!(chart["datasets"]["table:0"].as_array().unwrap().len() > 10);
    let band = chart["layer"][0]["data"]["values"].as_array().unwrap();
    let mexico_2013 = band
        .iter()
        .find(|row| row["series"] == json!("MEX") && row["year"] == json!(2013))
        .expect("MEX 2013 band");
    // WGI: Mexico 2013 -0.59, standard error 0.14.
    let low = mexico_2013["low"].as_f64().unwrap();
    assert!((low - (-0.59 - 1.64 * 0.14)).abs() < 1e-9, "{low}");
    assert!(band.iter().any(|row| row["series"] == json!("BRA")));
}
