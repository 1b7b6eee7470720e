//! `compute` through the tool: the helpers every op's tests share, and the tests that span ops
//! (argument errors, query-time results against the bake's precomputed views, statistics a scale rules
//! out); each op's own tests are in the file named after it.

mod cagr;
mod change;
mod correlation;
mod explain_change;
mod forecast;
mod gap_to_frontier;
mod rank;
mod rank_change;
mod revision;

use serde_json::{Value, json};

use crate::support::{call_tool, citation_of, payload};

/// The result of a compute call and its whole payload (result and citations).
fn compute(arguments: Value) -> (Value, Value) {
    let answer = call_tool("compute", arguments.clone());
    assert_eq!(answer["isError"], json!(false), "{arguments}: {answer}");
    let content = payload(&answer);
    (content["result"].clone(), content)
}

/// The records of `id` in the payload, which must be there.
fn cited(content: &Value, id: &str) -> Value {
    citation_of(content, id).unwrap_or_else(|| panic!("{id} is cited"))
}

/// The value of the stored cell `id` as the result shows it (a `Cell` anywhere in it).
fn value_of(result: &Value, id: &str) -> Value {
    fn find(value: &Value, id: &str) -> Option<Value> {
        match value {
            Value::Object(fields) if fields.get("citation_id") == Some(&json!(id)) => {
                fields.get("value").cloned()
            }
            Value::Object(fields) => fields.values().find_map(|field| find(field, id)),
            Value::Array(items) => items.iter().find_map(|item| find(item, id)),
            _ => None,
        }
    }
    find(result, id).unwrap_or_else(|| panic!("{id} is a value of the result"))
}

#[test]
fn compute_errors_say_what_would_be_valid() {
    for (arguments, expected) in [
        (
            json!({"op": "change", "parameter": "salud", "indicator": "sp_dyn_le00_in"}),
            "needs `country`",
        ),
        (
            json!({"op": "change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": 1950}),
            "values exist for 1960-",
        ),
        (
            json!({"op": "correlation", "parameter": "salud", "indicator": "sp_dyn_le00_in"}),
            "indicator_b",
        ),
        (
            json!({"op": "explain", "parameter": "salud", "indicator": "sp_dyn_le00_in"}),
            "unknown variant",
        ),
        (
            json!({"op": "gap_to_frontier", "parameter": "salud", "indicator": "sp_dyn_le00_in"}),
            "op gap_to_frontier needs `country`",
        ),
        (
            json!({"op": "correlation", "parameter": "salud", "indicator": "sp_dyn_le00_in", "indicator_b": "sp_dyn_le00_in"}),
            "is the indicator itself",
        ),
        (
            json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "to_year": 2100}),
            "is more than 10 years after the last observed year",
        ),
        (
            json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "to_year": 2147483647}),
            "give a year from 1900 to 2100",
        ),
        (
            json!({"op": "rank", "parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["BES", "BLM"]}),
            "none of BES, BLM has a sp_dyn_le00_in value",
        ),
        (
            json!({"op": "change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": 2010.5}),
            "argument `from_year`: expected a whole number in range, found 2010.5",
        ),
    ] {
        let answer = call_tool("compute", arguments.clone());
        assert_eq!(answer["isError"], json!(true), "{arguments}");
        let message = payload(&answer)["result"]["error"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains(expected), "{arguments}: {message}");
    }
}

/// The bake's precomputed statistics of one series.
fn precomputed(indicator: &str, country: &str) -> corpus::SeriesStats {
    let stats = crate::support::server()
        .plugin()
        .corpus()
        .series_stats()
        .expect("series_stats.json reads");
    stats
        .iter()
        .find(|stats| stats.indicator == indicator && stats.country == country)
        .cloned()
        .unwrap_or_else(|| panic!("{indicator} {country} precomputed"))
}

#[test]
fn query_time_results_equal_the_precomputed_views() {
    // D5: the 10-year CAGR of BRA GDP per capita, 2015-2025, equals the bake's cagr_10y.
    let stats = precomputed("ny_gdp_pcap_cd", "BRA");
    assert_eq!(stats.latest_year, 2025);
    let (result, _) = compute(
        json!({"op": "cagr", "parameter": "economia", "indicator": "ny_gdp_pcap_cd", "country": "BRA", "from_year": 2015, "to_year": 2025}),
    );
    assert_eq!(result["cagr"].as_f64(), stats.cagr_10y);
    // The change from the previous year equals the bake's change_from_previous.
    let stats = precomputed("sp_dyn_le00_in", "MEX");
    let previous = stats.previous_year.unwrap();
    let (result, _) = compute(
        json!({"op": "change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": previous, "to_year": stats.latest_year}),
    );
    assert_eq!(
        result["absolute_change"].as_f64(),
        stats.change_from_previous
    );
    // The default forecast equals the bake's forecast_5y (same 10-year window, same horizon).
    let (result, _) = compute(
        json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX"}),
    );
    let forecast = &result["forecast"];
    let (year, value, lower, upper) = stats.forecast_5y.unwrap();
    assert_eq!(forecast["year"], json!(year));
    assert_eq!(
        (
            forecast["value"].as_f64(),
            forecast["lower"].as_f64(),
            forecast["upper"].as_f64()
        ),
        (Some(value), Some(lower), Some(upper))
    );
    // get_parameter_data's trend is the least-squares slope over its cited series_tail.
    let answer = call_tool(
        "get_parameter_data",
        json!({"parameter": "salud", "country": "MEX", "limit": 40}),
    );
    let indicators = payload(&answer)["result"]["indicators"].clone();
    let life = crate::support::indicator(&indicators, "sp_dyn_le00_in").unwrap();
    let tail: Vec<corpus::analytics::Point> = life["series_tail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|point| corpus::analytics::Point {
            year: point[0].as_i64().unwrap() as i32,
            value: point[1].as_f64().unwrap(),
        })
        .collect();
    let fit = corpus::analytics::linear_trend(&tail).unwrap();
    assert_eq!(life["trend"]["slope_per_year"].as_f64(), Some(fit.slope));
}

#[test]
fn rank_and_frontier_equal_the_precomputed_year_statistics() {
    let corpus = crate::support::server().plugin().corpus();
    // Life expectancy (good up) and under-5 mortality (good down), in their latest regional years.
    for (pillar, indicator) in [("salud", "sp_dyn_le00_in"), ("salud", "sh_dyn_mort")] {
        let stats = corpus
            .year_stats_for(indicator)
            .expect("year_stats.json reads")
            .last()
            .cloned()
            .unwrap_or_else(|| panic!("{indicator} has year statistics"));
        let (result, _) = compute(
            json!({"op": "rank", "parameter": pillar, "indicator": indicator, "year": stats.year, "limit": 64}),
        );
        let ranked: Vec<&str> = result["ranking"]["ranked"]
            .as_array()
            .unwrap()
            .iter()
            .map(|cell| cell["citation_id"].as_str().unwrap())
            .collect();
        // Rank compares the sovereign countries (the year statistics count every country).
        let sovereign = corpus
            .baked
            .observations()
            .cross_section(indicator, stats.year)
            .into_iter()
            .filter(|row| {
                !corpus::is_projection(row.flags)
                    && corpus
                        .baked
                        .countries()
                        .get(row.country)
                        .is_some_and(|c| c.sovereign)
            })
            .count();
        assert_eq!(ranked.len(), sovereign, "{indicator}");
        assert_eq!(ranked[..3], stats.leaders, "{indicator}");
        let mut bottom: Vec<&str> = ranked[ranked.len() - 3..].to_vec();
        bottom.reverse();
        assert_eq!(bottom, stats.laggards, "{indicator}");
        let (result, _) = compute(
            json!({"op": "gap_to_frontier", "parameter": pillar, "indicator": indicator, "country": "BOL", "year": stats.year}),
        );
        assert_eq!(
            result["gap"]["frontier"]["citation_id"],
            json!(stats.leaders[0]),
            "{indicator}"
        );
    }
}

#[test]
fn a_whole_number_written_with_a_decimal_point_is_the_same_year() {
    // JSON Schema's `integer` admits 2010.0, so a client that validates arguments may send it.
    let (result, _) = compute(
        json!({"op": "change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": 2010.0, "to_year": 2024}),
    );
    assert!((result["absolute_change"].as_f64().unwrap() - 1.546).abs() < 1e-9);
    // MCP Inspector sends a typed-in number as a string: "2010" is the year too, "twenty ten" is not.
    let (result, _) = compute(
        json!({"op": "change", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": "2010", "to_year": "2024"}),
    );
    assert!((result["absolute_change"].as_f64().unwrap() - 1.546).abs() < 1e-9);
    let answer = call_tool(
        "compute",
        json!({"op": "change", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": "twenty ten"}),
    );
    assert_eq!(answer["isError"], json!(true));
    assert!(
        payload(&answer)["result"]["error"]
            .as_str()
            .unwrap()
            .contains(
                "argument `from_year`: expected a whole number, found the text \"twenty ten\""
            )
    );
}

/// The error message of a refused compute call.
fn refused(arguments: Value) -> String {
    let answer = call_tool("compute", arguments.clone());
    assert_eq!(answer["isError"], json!(true), "{arguments}: {answer}");
    payload(&answer)["result"]["error"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn statistics_that_do_not_apply_are_refused_with_what_to_use_instead() {
    // CAGR of a growth rate (issue 10: ngdp_rpch ATG cagr_10y = -0.089).
    let message = refused(
        json!({"op": "cagr", "indicator": "ngdp_rpch", "country": "ATG", "from_year": 2010, "to_year": 2020}),
    );
    assert!(
        message.contains("cagr of a growth rate is not defined")
            && message.contains("use op change"),
        "{message}"
    );
    // CAGR of an index crossing zero (WGI -2.5..2.5).
    let message = refused(
        json!({"op": "cagr", "indicator": "cc_est", "country": "URY", "from_year": 2013, "to_year": 2023}),
    );
    assert!(message.contains("use op change"), "{message}");
    // A change of the index is given in index points, without a relative change, and says why.
    let (result, _) = compute(
        json!({"op": "change", "indicator": "cc_est", "country": "URY", "from_year": 2013, "to_year": 2023}),
    );
    assert!(result["absolute_change"].is_number());
    assert!(result.get("relative_change").is_none(), "{result}");
    assert!(
        result["notes"][0]
            .as_str()
            .unwrap()
            .contains("relative change of an index"),
        "{result}"
    );
    // Values in each country's own currency do not rank across countries.
    let message = refused(json!({"op": "rank", "indicator": "pa_nus_fcrf", "year": 2020}));
    assert!(
        message.contains("rank of pa_nus_fcrf across countries is not defined")
            && message.contains("exchange rate"),
        "{message}"
    );
    let message = refused(
        json!({"op": "correlation", "indicator": "ngdp", "indicator_b": "lur", "year": 2019}),
    );
    assert!(
        message.contains("across countries is not defined"),
        "{message}"
    );
}
