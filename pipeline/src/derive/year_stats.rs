//! Per indicator and year across the region (`year_stats.json`): the regional value by the metric's
//! declared aggregation (`data/aggregation.toml`, or the publisher's documented method: a mean weighted
//! by population or by the rule's weight — land area, GDP, births, … —, an unweighted mean, a sum or a
//! median; none refuses it) with the share of the region's weight its countries hold, leaders, laggards
//! and frontier, from observed values only (projections left out), computed with
//! `corpus::analytics` as `get_regional_pulse` does at query time. Leaders and laggards follow
//! `corpus::frontier`: sovereign countries only, no suspect value, gross ratios ordered as capped at 100,
//! none for an ambiguous direction.

use std::collections::{BTreeMap, HashMap, HashSet};

use corpus::{
    CountryRegistry, Metric, YearStats,
    analytics::{Aggregation, regional_value},
    derived::{DerivedRuleCounts, MIN_YEAR_COUNTRIES, MetricRule, Weight, rule_for},
    frontier, is_projection,
};

use crate::govern::table::ObservationColumns;

/// The population indicator used as weight.
pub const POPULATION: &str = corpus::derived::POPULATION;

/// The observed values of the weights' indicators, per (indicator, country, year), and each weight's
/// regional total per year (over every country with a weight that year, summed in table order).
struct WeightValues<'a> {
    values: HashMap<(&'a str, &'a str, i32), f64>,
    countries: BTreeMap<&'a str, Vec<&'a str>>,
}

impl<'a> WeightValues<'a> {
    fn new(observations: &'a ObservationColumns, rules: &[MetricRule]) -> WeightValues<'a> {
        let mut needed: HashSet<&str> = HashSet::from([POPULATION]);
        for weight in rules.iter().filter_map(|rule| rule.weight.as_ref()) {
            needed.insert(weight.indicator.as_str());
            if let Some(times) = &weight.times {
                needed.insert(times.as_str());
            }
        }
        let mut values = HashMap::new();
        let mut countries: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for row_idx in 0..observations.len() {
            let indicator = observations.indicator[row_idx].as_str();
            if needed.contains(indicator) && !is_projection(&observations.flags[row_idx]) {
                let country = observations.country[row_idx].as_str();
                values.insert(
                    (indicator, country, observations.year[row_idx]),
                    observations.value[row_idx],
                );
                let list = countries.entry(indicator).or_default();
                if list.last() != Some(&country) {
                    list.push(country);
                }
            }
        }
        WeightValues { values, countries }
    }

    /// `weight` of `country` in `year`.
    fn of(&self, weight: &Weight, country: &str, year: i32) -> Option<f64> {
        weight.of(
            self.values
                .get(&(weight.indicator.as_str(), country, year))
                .copied(),
            weight
                .times
                .as_ref()
                .and_then(|times| self.values.get(&(times.as_str(), country, year)).copied()),
        )
    }

    /// The region's total of `weight` in `year`: over every country with a weight, in country order.
    fn total(&self, weight: &Weight, year: i32) -> Option<f64> {
        let total: f64 = self
            .countries
            .get(weight.indicator.as_str())
            .into_iter()
            .flatten()
            .filter_map(|country| self.of(weight, country, year))
            .sum();
        (total > 0.0).then_some(total)
    }
}

/// One [`YearStats`] per aggregable indicator and year with observed values for enough countries,
/// sorted by both.
pub fn year_stats(
    metrics: &[Metric],
    observations: &ObservationColumns,
    rules: &[MetricRule],
    countries: &CountryRegistry,
    counts: &mut DerivedRuleCounts,
) -> Vec<YearStats> {
    // (indicator, year) -> (observed rows, projections left out).
    let mut cells: BTreeMap<(&str, i32), (Vec<usize>, usize)> = BTreeMap::new();
    let mut population: HashMap<(&str, i32), f64> = HashMap::new();
    for row_idx in 0..observations.len() {
        let key = (
            observations.indicator[row_idx].as_str(),
            observations.year[row_idx],
        );
        let cell = cells.entry(key).or_default();
        if is_projection(&observations.flags[row_idx]) {
            cell.1 += 1;
            continue;
        }
        cell.0.push(row_idx);
        if key.0 == POPULATION {
            population.insert(
                (observations.country[row_idx].as_str(), key.1),
                observations.value[row_idx],
            );
        }
    }
    // Summed in table order (indicator, country, year), so the totals are the same in every bake.
    let mut region_population: HashMap<i32, f64> = HashMap::new();
    for row_idx in 0..observations.len() {
        if observations.indicator[row_idx] == POPULATION
            && !is_projection(&observations.flags[row_idx])
        {
            *region_population
                .entry(observations.year[row_idx])
                .or_default() += observations.value[row_idx];
        }
    }
    let weights = WeightValues::new(observations, rules);
    let by_id: HashMap<&str, &Metric> = metrics
        .iter()
        .map(|metric| (metric.id.as_str(), metric))
        .collect();
    let mut stats = Vec::new();
    let mut refused_indicators: Vec<&str> = Vec::new();
    for ((indicator, year), (mut rows, projections)) in cells {
        if rows.len() + projections >= MIN_YEAR_COUNTRIES && projections > 0 {
            counts.year_stats_projections_excluded += 1;
            counts.year_stats_projection_only += u64::from(rows.len() < MIN_YEAR_COUNTRIES);
        }
        if rows.len() < MIN_YEAR_COUNTRIES {
            continue;
        }
        let (Some(metric), Some(rule)) = (by_id.get(indicator), rule_for(rules, indicator)) else {
            continue;
        };
        if rule.aggregation == Aggregation::None {
            counts.aggregates_refused += 1;
            if refused_indicators.last() != Some(&indicator) {
                refused_indicators.push(indicator);
            }
            continue;
        }
        // Country order, as the server's registry iterates countries.
        rows.sort_by(|&left, &right| observations.country[left].cmp(&observations.country[right]));
        let population = |row_idx: usize| {
            population
                .get(&(observations.country[row_idx].as_str(), year))
                .copied()
        };
        // A weighted mean is over the countries whose weight is known; the rest are named.
        let weight = rule
            .weight
            .as_ref()
            .filter(|_| rule.aggregation.is_weighted());
        let weight_of = |row_idx: usize| {
            weight
                .and_then(|weight| weights.of(weight, observations.country[row_idx].as_str(), year))
        };
        let (aggregated, unweighted): (Vec<usize>, Vec<usize>) = if weight.is_some() {
            rows.iter()
                .partition(|&&row_idx| weight_of(row_idx).is_some())
        } else {
            (rows.clone(), Vec::new())
        };
        let values: Vec<f64> = aggregated
            .iter()
            .map(|&row_idx| observations.value[row_idx])
            .collect();
        let weight_values: Option<Vec<f64>> = weight.map(|_| {
            aggregated
                .iter()
                .filter_map(|&row_idx| weight_of(row_idx))
                .collect()
        });
        let Some(value) = regional_value(rule.aggregation, &values, weight_values.as_deref())
        else {
            continue;
        };
        let weight_share = weight
            .zip(weight_values.as_ref())
            .and_then(|(weight, held)| {
                weights
                    .total(weight, year)
                    .map(|total| held.iter().sum::<f64>() / total)
            });
        let candidates: Vec<frontier::Candidate<'_>> = rows
            .iter()
            .map(|&row_idx| frontier::Candidate {
                country: &observations.country[row_idx],
                value: observations.value[row_idx],
                flags: &observations.flags[row_idx],
            })
            .collect();
        let ranked: Vec<usize> = frontier::ranked(
            countries,
            metric.good_direction,
            frontier::target_cap(metric),
            &candidates,
            false,
        )
        .into_iter()
        .map(|candidate_idx| rows[candidate_idx])
        .collect();
        stats.push(YearStats {
            indicator: indicator.to_string(),
            year,
            countries: rows.len(),
            regional_value: value,
            method: rule.aggregation.as_str().to_string(),
            weight: weight.map(|weight| weight.name.clone()),
            weight_share,
            unweighted: unweighted
                .iter()
                .map(|&row_idx| observations.country[row_idx].to_string())
                .collect(),
            leaders: ranked
                .iter()
                .take(3)
                .map(|&row_idx| observations.citation_id[row_idx].to_string())
                .collect(),
            laggards: ranked
                .iter()
                .rev()
                .take(3)
                .map(|&row_idx| observations.citation_id[row_idx].to_string())
                .collect(),
            population_share: region_population.get(&year).map(|total| {
                let covered: f64 = rows.iter().filter_map(|&row_idx| population(row_idx)).sum();
                covered / total
            }),
            publisher: None,
        });
    }
    counts.indicators_not_aggregable = refused_indicators.len() as u64;
    stats
}
