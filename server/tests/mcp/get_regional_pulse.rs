//! `get_regional_pulse`: regional values (population-weighted, summed, or median), leaders, movers.

use serde_json::{Value, json};

use crate::support::{call_tool, cited_ids, input_ids, payload};

fn pulse(parameter: &str) -> Value {
    let answer = call_tool("get_regional_pulse", json!({"parameter": parameter}));
    assert_eq!(answer["isError"], json!(false), "{parameter}: {answer}");
    payload(&answer)
}

/// The pulse of indicator `id` of `parameter`, paging until it comes.
fn pulse_of(parameter: &str, id: &str) -> Value {
    let mut arguments = json!({"parameter": parameter, "limit": 10});
    loop {
        let content = payload(&call_tool("get_regional_pulse", arguments.clone()));
        if let Some(found) = crate::support::indicator(&content["result"]["indicators"], id) {
            return found;
        }
        let next = content["result"]["next_cursor"]
            .as_str()
            .unwrap_or_else(|| panic!("{id} has a pulse in {parameter}"));
        arguments["cursor"] = json!(next);
    }
}

#[test]
fn the_regional_value_is_the_population_weighted_mean_of_its_cited_inputs() {
    let content = payload(&call_tool(
        "get_regional_pulse",
        json!({"parameter": "salud", "limit": 10}),
    ));
    let life =
        crate::support::indicator(&content["result"]["indicators"], "sp_dyn_le00_in").unwrap();
    assert_eq!(life["method"], json!("population_weighted_mean"));
    // The inputs are listed by id; every stored id resolves to its value.
    let corpus = crate::support::server().plugin().corpus();
    let value_of = |id: &Value| {
        corpus
            .baked
            .resolve_citation(id.as_str().unwrap())
            .unwrap_or_else(|unresolved| panic!("{unresolved}"))
            .value
    };
    // Values shown are in the result beside their citation ids, whose records the answer carries.
    let cited = cited_ids(&content);
    let cited_value = |id: &Value| {
        assert!(cited.contains(id), "{id} cited");
        value_of(id)
    };
    let inputs: Vec<Value> = input_ids(&life["pulse"]["inputs"])
        .into_iter()
        .map(Value::String)
        .collect();
    let countries = life["countries"].as_u64().unwrap() as usize;
    assert_eq!(
        inputs.len(),
        2 * countries,
        "values then population weights"
    );
    let (values, weights) = inputs.split_at(countries);
    let weighted: f64 = values
        .iter()
        .zip(weights)
        .map(|(value, weight)| value_of(value) * value_of(weight))
        .sum::<f64>()
        / weights.iter().map(value_of).sum::<f64>();
    // Ours is beside the headline; the headline is the World Bank's own LCN aggregate, cited.
    assert!((life["our_value"]["value"].as_f64().unwrap() - weighted).abs() < 1e-9);
    assert_eq!(life["regional_value_by"], json!("World Bank (LCN)"));
    let (lcn_value, lcn_id) = (
        life["regional_value"].as_f64().unwrap(),
        &life["regional_value_citation_id"],
    );
    assert_eq!(value_of(lcn_id), lcn_value);
    for shown in life["leaders"]
        .as_array()
        .unwrap()
        .iter()
        .chain(life["laggards"].as_array().unwrap())
    {
        assert_eq!(
            cited_value(&shown["citation_id"]),
            shown["value"].as_f64().unwrap()
        );
    }
    assert!(
        (lcn_value - weighted).abs() < 2.0,
        "our weighted mean is close to the World Bank's LCN: {weighted} vs {lcn_value}"
    );
    let leaders = life["leaders"].as_array().unwrap();
    assert!(leaders[0]["value"].as_f64().unwrap() >= leaders[1]["value"].as_f64().unwrap());
    assert!(
        life["pulse"]["citation_id"]
            .as_str()
            .unwrap()
            .starts_with("pulse-")
    );
}

#[test]
fn totals_are_summed_and_say_so() {
    // Population is an additive count in one unit (data/aggregation.toml): the region's total.
    let population = pulse_of("demografia", "sp_pop_totl");
    assert_eq!(population["method"], json!("sum"));
    let corpus = crate::support::server().plugin().corpus();
    let total: f64 = input_ids(&population["pulse"]["inputs"])
        .iter()
        .map(|id| corpus.baked.resolve_citation(id).unwrap().value)
        .sum();
    assert!((population["regional_value"].as_f64().unwrap() - total).abs() <= 1e-6 * total);
    assert!(
        population["pulse"]["method"]
            .as_str()
            .unwrap()
            .starts_with("sum of the observed values")
    );
}

#[test]
fn query_time_regional_values_equal_the_precomputed_year_statistics() {
    let content = pulse("salud");
    let year_stats = crate::support::server()
        .plugin()
        .corpus()
        .year_stats()
        .expect("year_stats.json reads");
    for indicator in content["result"]["indicators"].as_array().unwrap() {
        let (id, year) = (
            indicator["id"].as_str().unwrap(),
            indicator["year"].as_i64().unwrap() as i32,
        );
        let precomputed = year_stats
            .iter()
            .find(|stats| stats.indicator == id && stats.year == year)
            .unwrap_or_else(|| panic!("{id} {year} precomputed"));
        // Our value (beside the publisher's headline when it publishes one) is the bake's.
        assert_eq!(
            indicator["our_value"]["value"]
                .as_f64()
                .or(indicator["regional_value"].as_f64()),
            Some(precomputed.regional_value),
            "{id}"
        );
        assert_eq!(
            indicator["method"].as_str(),
            Some(precomputed.method.as_str()),
            "{id}"
        );
        let leaders: Vec<&str> = indicator["leaders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|leader| leader["citation_id"].as_str().unwrap())
            .collect();
        assert_eq!(
            leaders,
            precomputed
                .leaders
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            "{id}"
        );
    }
}

#[test]
fn a_recent_year_reported_by_a_few_small_economies_does_not_stand_for_the_region() {
    // WDI renewable energy consumption: 2022 has values for ~17 Caribbean economies only; the pulse
    // uses the latest year whose countries hold at least half the region's population.
    let renewables = pulse_of("energia", "eg_fec_rnew_zs");
    assert!(
        renewables["population_share"].as_f64().unwrap() >= 0.5,
        "{renewables}"
    );
    let countries_in_raw_2021 = 41;
    assert!(
        renewables["countries"].as_u64().unwrap() >= countries_in_raw_2021 - 5,
        "{renewables}"
    );
    // Neutral indicators say their leaders are the highest, not the best.
    let fertility =
        crate::support::indicator(&pulse("salud")["result"]["indicators"], "sp_dyn_tfrt_in");
    if let Some(fertility) = fertility {
        assert_eq!(fertility["good_direction"], json!("neutral"));
        assert_eq!(fertility["ranking"], json!("highest_first"));
    }
}

/// Every indicator of the pillar's pulse, paging to the end, and the first page's `not_aggregable`.
fn every_pulse(parameter: &str) -> (Vec<Value>, Value) {
    let mut arguments = json!({"parameter": parameter, "limit": 10});
    let mut indicators = Vec::new();
    let mut not_aggregable = Value::Null;
    loop {
        let content = payload(&call_tool("get_regional_pulse", arguments.clone()));
        if not_aggregable.is_null() {
            not_aggregable = content["result"]["not_aggregable"].clone();
        } else {
            assert!(
                content["result"].get("not_aggregable").is_none(),
                "first page only"
            );
        }
        indicators.extend(content["result"]["indicators"].as_array().unwrap().clone());
        match content["result"]["next_cursor"].as_str() {
            Some(next) => arguments["cursor"] = json!(next),
            None => return (indicators, not_aggregable),
        }
    }
}

#[test]
fn exchange_rates_and_national_currency_levels_are_not_aggregated_but_listed_with_the_reason() {
    // Issue 10: `get_regional_pulse economia` headlined "Official exchange rate 570.05" and
    // "PPP conversion factor 225.50".
    let (indicators, not_aggregable) = every_pulse("economia");
    let ids: Vec<&str> = indicators
        .iter()
        .map(|indicator| indicator["id"].as_str().unwrap())
        .collect();
    let listed: Vec<(&str, &str)> = not_aggregable
        .as_array()
        .expect("economia lists indicators that are not aggregable")
        .iter()
        .flat_map(|group| {
            let reason = group["reason"].as_str().unwrap();
            group["indicators"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |indicator| (indicator.as_str().unwrap(), reason))
        })
        .collect();
    for (id, reason) in [
        ("pa_nus_fcrf", "exchange rate"),
        ("pa_nus_ppp", "PPP conversion factor"),
        ("ngdp", "own currency"),
        ("pcpi", "national base"),
    ] {
        assert!(!ids.contains(&id), "{id} has no regional value");
        let (_, said) = listed
            .iter()
            .find(|(listed, _)| *listed == id)
            .unwrap_or_else(|| panic!("{id} is listed as not aggregable"));
        assert!(said.contains(reason), "{id}: {said}");
    }
    // What is aggregated says how, by its declared aggregation; growth rates take the median.
    for indicator in &indicators {
        let method = indicator["method"].as_str().unwrap();
        assert!(
            [
                "population_weighted_mean",
                "weighted_mean",
                "unweighted_mean",
                "sum",
                "median"
            ]
            .contains(&method),
            "{indicator}"
        );
        if indicator["unit"].as_str().unwrap().contains("annual %")
            || indicator["unit"] == json!("Percent change")
        {
            // The typical country's rate, unless the publisher documents a weighted average (WDI's
            // GDP growth is weighted by GDP).
            assert!(
                method == "median"
                    || (method == "weighted_mean"
                        && indicator["publisher_method"] == json!("Weighted average")),
                "{}",
                indicator["id"]
            );
        }
    }
}

#[test]
fn regional_values_leave_projections_out() {
    // WEO series carry projections to 2030: the regional year is an observed one, and every value
    // shown is an observation.
    let corpus = crate::support::server().plugin().corpus();
    let (indicators, _) = every_pulse("economia");
    let mut weo = 0;
    for indicator in &indicators {
        let year = indicator["year"].as_i64().unwrap() as i32;
        for id in input_ids(&indicator["pulse"]["inputs"]) {
            let citation = corpus.baked.resolve_citation(&id).unwrap();
            let row = corpus
                .baked
                .observations()
                .find(&citation.indicator, &citation.country, citation.year)
                .unwrap();
            assert!(!corpus::is_projection(row.flags), "{id} is observed");
        }
        if indicator["id"] == json!("ngdp_rpch") {
            weo += 1;
            assert!(year <= 2025, "{indicator}");
        }
    }
    assert_eq!(weo, 1, "WEO real GDP growth has a pulse");
}
