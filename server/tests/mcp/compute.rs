use serde_json::{Value, json};

use crate::support::{call_tool, citation_of, cited_ids, payload};

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
fn d4_change_of_life_expectancy_in_mexico_cites_both_cells() {
    let (result, citations) = compute(
        json!({"op": "change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": 2010, "to_year": 2024}),
    );
    assert!((result["absolute_change"].as_f64().unwrap() - 1.546).abs() < 1e-9);
    assert_eq!(
        result["calculation"]["inputs"],
        json!(["wb-sp-dyn-le00-in-mex-2010", "wb-sp-dyn-le00-in-mex-2024"])
    );
    assert!(
        result["calculation"]["citation_id"]
            .as_str()
            .unwrap()
            .starts_with("calc-")
    );
    assert_eq!(
        value_of(&result, "wb-sp-dyn-le00-in-mex-2010"),
        json!(73.718)
    );
    assert_eq!(
        value_of(&result, "wb-sp-dyn-le00-in-mex-2024"),
        json!(75.264)
    );
    cited(&citations, "wb-sp-dyn-le00-in-mex-2010");
}

#[test]
fn d5_cagr_of_gdp_per_capita_in_brazil_from_its_two_cells() {
    let (result, citations) = compute(
        json!({"op": "cagr", "parameter": "economia", "indicator": "ny_gdp_pcap_cd", "country": "BRA", "from_year": 2015, "to_year": 2025}),
    );
    cited(&citations, "wb-ny-gdp-pcap-cd-bra-2015");
    let from = value_of(&result, "wb-ny-gdp-pcap-cd-bra-2015")
        .as_f64()
        .unwrap();
    let to = value_of(&result, "wb-ny-gdp-pcap-cd-bra-2025")
        .as_f64()
        .unwrap();
    let expected = (to / from).powf(0.1) - 1.0;
    assert!((result["cagr"].as_f64().unwrap() - expected).abs() < 1e-12);
    assert!((result["cagr_percent"].as_f64().unwrap() - expected * 100.0).abs() < 1e-10);
}

#[test]
fn d6_rank_of_gini_in_2024_ascending() {
    let (result, _) = compute(
        json!({"op": "rank", "parameter": "pobreza", "indicator": "si_pov_gini", "year": 2024, "order": "asc"}),
    );
    let ranked = result["ranking"]["ranked"].as_array().unwrap();
    let rank_of = |country: &str| {
        ranked
            .iter()
            .find(|cell| cell["country"] == json!(country))
            .map(|cell| {
                (
                    cell["rank"].as_u64().unwrap(),
                    cell["value"].as_f64().unwrap(),
                )
            })
    };
    let (uruguay, argentina, mexico, brazil) = (
        rank_of("URY").unwrap(),
        rank_of("ARG").unwrap(),
        rank_of("MEX").unwrap(),
        rank_of("BRA").unwrap(),
    );
    assert_eq!(
        (uruguay.1, argentina.1, mexico.1, brazil.1),
        (40.0, 42.4, 42.6, 50.3)
    );
    assert!(uruguay.0 < argentina.0 && argentina.0 < mexico.0 && mexico.0 < brazil.0);
    let missing = result["ranking"]["missing"].as_array().unwrap();
    assert!(
        !missing.is_empty(),
        "countries without 2024 data are listed, not ranked"
    );
    assert!(
        missing
            .iter()
            .all(|country| rank_of(country.as_str().unwrap()).is_none())
    );
}

#[test]
fn gap_to_frontier_cites_the_country_and_the_frontier() {
    let (result, citations) = compute(
        json!({"op": "gap_to_frontier", "parameter": "seguridad", "indicator": "vc_ihr_psrc_p5", "country": "BRA", "year": 2023}),
    );
    let gap = &result["gap"];
    // Homicides: lower is better, so the frontier is the lowest 2023 value.
    assert!(gap["frontier"]["value"].as_f64().unwrap() < gap["country"]["value"].as_f64().unwrap());
    let expected =
        gap["frontier"]["value"].as_f64().unwrap() - gap["country"]["value"].as_f64().unwrap();
    assert!((gap["absolute_gap"].as_f64().unwrap() - expected).abs() < 1e-12);
    cited(&citations, gap["frontier"]["citation_id"].as_str().unwrap());
    cited(&citations, "wb-vc-ihr-psrc-p5-bra-2023");
}

#[test]
fn forecast_and_correlation_return_their_statistics() {
    let (result, citations) = compute(
        json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "CHL", "from_year": 2000, "to_year": 2030}),
    );
    let forecast = &result["forecast"];
    assert!(
        forecast["lower"].as_f64().unwrap() < forecast["value"].as_f64().unwrap()
            && forecast["value"].as_f64().unwrap() < forecast["upper"].as_f64().unwrap()
    );
    assert_eq!(
        result["calculation"]["inputs"].as_array().unwrap().len(),
        forecast["n"].as_u64().unwrap() as usize
    );
    for id in result["calculation"]["inputs"].as_array().unwrap() {
        cited(&citations, id.as_str().unwrap());
    }
    let (result, _) = compute(
        json!({"op": "correlation", "parameter": "salud", "indicator": "sp_dyn_le00_in", "indicator_b": "sh_dyn_mort", "year": 2020}),
    );
    let correlation = &result["correlation"];
    assert!(
        correlation["r"].as_f64().unwrap() < -0.5,
        "life expectancy and under-5 mortality move apart: {correlation}"
    );
    assert!(
        correlation["p_value"].as_f64().unwrap() < 0.01 && correlation["n"].as_u64().unwrap() > 20
    );
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
        json!({"parameter": "salud", "country": "MEX"}),
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
fn explain_change_sets_associated_changes_beside_the_change() {
    let (result, citations) = compute(
        json!({"op": "explain_change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": 2010, "to_year": 2024}),
    );
    assert!((result["absolute_change"].as_f64().unwrap() - 1.546).abs() < 1e-9);
    let associated = result["associated"].as_array().unwrap();
    assert!(
        !associated.is_empty(),
        "life expectancy correlates with other health indicators"
    );
    for item in associated {
        assert!(item["p_value"].as_f64().unwrap() < 0.05);
        for id in item["citation_ids"].as_array().unwrap() {
            assert!(cited_ids(&citations).contains(id), "{id} cited");
        }
    }
    assert!(
        result["calculation"]["method"]
            .as_str()
            .unwrap()
            .contains("not causes")
    );
}

#[test]
fn query_time_forecast_equals_the_precomputed_one() {
    let stats = precomputed("sp_dyn_le00_in", "PER");
    let (year, value, lower, upper) = stats.forecast_5y.expect("a precomputed 5-year forecast");
    let (result, _) = compute(
        json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "PER", "from_year": stats.latest_year - 9, "to_year": year}),
    );
    let forecast = &result["forecast"];
    assert_eq!(
        (
            forecast["value"].as_f64(),
            forecast["lower"].as_f64(),
            forecast["upper"].as_f64()
        ),
        (Some(value), Some(lower), Some(upper))
    );
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
            json!({"op": "rank", "parameter": pillar, "indicator": indicator, "year": stats.year}),
        );
        let ranked: Vec<&str> = result["ranking"]["ranked"]
            .as_array()
            .unwrap()
            .iter()
            .map(|cell| cell["citation_id"].as_str().unwrap())
            .collect();
        assert_eq!(ranked.len(), stats.countries, "{indicator}");
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
fn a_forecast_warns_of_a_poor_fit_or_an_interval_beyond_the_valid_range() {
    // Mexico's under-5 mortality falls steadily: a good fit within the valid range, no warning.
    let (result, _) = compute(
        json!({"op": "forecast", "parameter": "salud", "indicator": "sh_dyn_mort", "country": "MEX"}),
    );
    assert!(result["forecast"].get("warning").is_none(), "{result}");
    // Chile's life expectancy over 2015-2024 dips with COVID-19 and recovers: a flat, poor fit.
    let (result, _) = compute(
        json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "CHL"}),
    );
    assert!(
        result["forecast"]["warning"]
            .as_str()
            .unwrap()
            .contains("explains little"),
        "{result}"
    );
    // Chile's extreme poverty headcount, five scattered surveys 2015-2024: the 2034 interval goes below 0 %.
    let (result, _) = compute(
        json!({"op": "forecast", "parameter": "pobreza", "indicator": "si_pov_dday", "country": "CHL", "to_year": 2034}),
    );
    let forecast = &result["forecast"];
    assert!(forecast["lower"].as_f64().unwrap() < 0.0, "{forecast}");
    assert!(
        forecast["warning"]
            .as_str()
            .unwrap()
            .contains("leaves the indicator's valid range [0, 100]"),
        "{forecast}"
    );
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

#[test]
fn projections_are_used_only_when_asked_for_and_then_labelled() {
    // WEO real GDP growth of Argentina runs to 2030, projected after the last estimate.
    let (result, _) = compute(json!({"op": "change", "indicator": "ngdp_rpch", "country": "ARG"}));
    assert!(
        result["between"]["to"].get("projection").is_none(),
        "{result}"
    );
    assert!(
        !result["notes"].to_string().contains("projection"),
        "{result}"
    );
    let (result, _) = compute(
        json!({"op": "change", "indicator": "ngdp_rpch", "country": "ARG", "from_year": 2015, "to_year": 2030}),
    );
    assert_eq!(result["between"]["to"]["projection"], json!(true));
    assert!(
        result["notes"].as_array().unwrap().iter().any(|note| note
            .as_str()
            .unwrap()
            .starts_with("projection-based: ARG 2030")),
        "{result}"
    );
    // The change from the previous observation equals the bake's change_from_previous, which stops at the
    // last observation even where the series runs on into projections.
    let stats = precomputed("ngdp_rpch", "ARG");
    assert!(stats.latest_year > stats.last_observed_year.unwrap());
    let (result, _) = compute(
        json!({"op": "change", "indicator": "ngdp_rpch", "country": "ARG", "from_year": stats.previous_year, "to_year": stats.last_observed_year}),
    );
    assert_eq!(
        result["absolute_change"].as_f64(),
        stats.change_from_previous
    );
}

#[test]
fn rank_change_ranks_every_country_by_its_change_cited_to_both_cells() {
    // "Which country improved its control of corruption the most in 10 years" in one call.
    let answer = call_tool(
        "compute",
        json!({"op": "rank_change", "indicator": "cc_est", "from_year": 2013, "to_year": 2023}),
    );
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let bytes = serde_json::to_string(&answer["structuredContent"])
        .unwrap()
        .len();
    assert!(bytes <= 40 * 1024, "{bytes} B");
    let content = payload(&answer);
    let cited = cited_ids(&content);
    let ranking = &content["result"]["change_ranking"];
    assert_eq!(
        (ranking["from_year"].clone(), ranking["to_year"].clone()),
        (json!(2013), json!(2023))
    );
    let ranked = ranking["ranked"].as_array().unwrap();
    assert!(ranked.len() >= 25, "{} countries", ranked.len());
    let corpus = crate::support::server().plugin().corpus();
    let mut previous = f64::INFINITY;
    for entry in ranked {
        let change = entry["change"].as_f64().unwrap();
        assert!(change <= previous, "best (largest rise) first");
        previous = change;
        let (from, to) = (&entry["from"], &entry["to"]);
        assert_eq!(
            change,
            to["value"].as_f64().unwrap() - from["value"].as_f64().unwrap()
        );
        assert!(
            entry.get("relative_change").is_none(),
            "an index crossing zero"
        );
        for cell in [from, to] {
            assert!(cited.contains(&cell["citation_id"]), "{cell} cited");
            let stored = corpus
                .baked
                .resolve_citation(cell["citation_id"].as_str().unwrap())
                .unwrap();
            assert_eq!(stored.value, cell["value"].as_f64().unwrap());
        }
    }
    // The first country's change equals op change for it.
    let first = &ranked[0];
    let (result, _) = compute(
        json!({"op": "change", "indicator": "cc_est", "country": first["country"], "from_year": 2013, "to_year": 2023}),
    );
    assert_eq!(result["absolute_change"], first["change"]);
    assert_eq!(
        content["result"]["calculation"]["inputs"]
            .as_array()
            .unwrap()
            .len(),
        2 * ranked.len()
    );
    // Lower is better for homicides: the largest fall comes first; defaults are the 10 years to the
    // regional year.
    let (result, _) = compute(json!({"op": "rank_change", "indicator": "vc_ihr_psrc_p5"}));
    let ranking = &result["change_ranking"];
    assert_eq!(
        ranking["to_year"].as_i64().unwrap() - ranking["from_year"].as_i64().unwrap(),
        10
    );
    let changes: Vec<f64> = ranking["ranked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["change"].as_f64().unwrap())
        .collect();
    assert!(
        changes.windows(2).all(|pair| pair[0] <= pair[1]),
        "{changes:?}"
    );
}
