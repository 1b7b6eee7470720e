//! Per pillar, the pairwise Pearson correlations of its headline indicators across countries
//! (`correlations.json`), in the year of the last ten with the most countries having both values, each
//! with a size check (`corpus::derived::size_check`: do both scale with population, and does r survive
//! holding population fixed?) and the `size_confounded` flag it gives.

use std::collections::{BTreeMap, HashMap};

use corpus::{
    Metric, PillarCorrelation,
    analytics::pearson,
    derived::{
        DerivedRuleCounts, MIN_CORRELATION_PAIRS, MetricRule, SIZE_INDICATOR, rule_for, size_check,
    },
    is_projection,
};

use crate::govern::table::ObservationColumns;

/// Years searched back from the newest year both indicators share.
const YEARS_BACK: i32 = 10;

/// Correlations of every pair of headline indicators within each pillar (projections excluded), of the
/// indicators whose values compare across countries.
pub fn correlations(
    metrics: &[Metric],
    observations: &ObservationColumns,
    rules: &[MetricRule],
    counts: &mut DerivedRuleCounts,
) -> Vec<PillarCorrelation> {
    let mut values: HashMap<&str, BTreeMap<i32, HashMap<&str, f64>>> = HashMap::new();
    for row_idx in
        (0..observations.len()).filter(|&row_idx| !is_projection(&observations.flags[row_idx]))
    {
        values
            .entry(&observations.indicator[row_idx])
            .or_default()
            .entry(observations.year[row_idx])
            .or_default()
            .insert(&observations.country[row_idx], observations.value[row_idx]);
    }
    let mut by_pillar: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    // Values in each country's own currency or base do not correlate across countries.
    let comparable =
        |metric: &Metric| rule_for(rules, &metric.id).is_none_or(|rule| rule.comparable);
    for metric in metrics
        .iter()
        .filter(|metric| metric.headline && comparable(metric))
    {
        by_pillar
            .entry(&metric.pillar)
            .or_default()
            .push(&metric.id);
    }
    let by_id: HashMap<&str, &Metric> = metrics
        .iter()
        .map(|metric| (metric.id.as_str(), metric))
        .collect();
    let mut correlations = Vec::new();
    for (pillar, mut ids) in by_pillar {
        ids.sort_unstable();
        for (position, first) in ids.iter().enumerate() {
            for second in &ids[position + 1..] {
                // A total and its own breakdown (life expectancy and male life expectancy) are not news.
                if by_id[first].same_family(by_id[second]) {
                    continue;
                }
                let (Some(left), Some(right)) = (values.get(first), values.get(second)) else {
                    continue;
                };
                let Some(newest) = left
                    .keys()
                    .rev()
                    .find(|year| right.contains_key(year))
                    .copied()
                else {
                    continue;
                };
                let best = (newest - YEARS_BACK + 1..=newest)
                    .rev()
                    .map(|year| (year, paired(left.get(&year), right.get(&year)).1))
                    .max_by(|(year_a, pairs_a), (year_b, pairs_b)| {
                        pairs_a.len().cmp(&pairs_b.len()).then(year_a.cmp(year_b))
                    });
                let Some((year, pairs)) = best else { continue };
                if pairs.len() < MIN_CORRELATION_PAIRS {
                    continue;
                }
                if let Some(correlation) = pearson(&pairs) {
                    let (countries, _) = paired(left.get(&year), right.get(&year));
                    let population = values
                        .get(SIZE_INDICATOR)
                        .and_then(|years| years.get(&year));
                    let triples: Vec<(f64, f64, f64)> = countries
                        .iter()
                        .zip(&pairs)
                        .filter_map(|(country, &(a, b))| Some((a, b, *population?.get(country)?)))
                        .collect();
                    let check = size_check(&triples, correlation.r);
                    counts.correlations += 1;
                    counts.correlations_without_size_check += u64::from(check.is_none());
                    counts.correlations_size_confounded +=
                        u64::from(check.is_some_and(|check| check.confounded));
                    correlations.push(PillarCorrelation {
                        pillar: pillar.to_string(),
                        indicator_a: first.to_string(),
                        indicator_b: second.to_string(),
                        year,
                        r: correlation.r,
                        n: correlation.n,
                        p_value: correlation.p_value,
                        size_confounded: check.is_some_and(|check| check.confounded),
                        size_check: check,
                    });
                }
            }
        }
    }
    correlations
}

/// The countries both maps have, in country order, and their (left, right) values.
fn paired<'a>(
    left: Option<&HashMap<&'a str, f64>>,
    right: Option<&HashMap<&'a str, f64>>,
) -> (Vec<&'a str>, Vec<(f64, f64)>) {
    let (Some(left), Some(right)) = (left, right) else {
        return (Vec::new(), Vec::new());
    };
    let mut countries: Vec<&'a str> = left
        .keys()
        .filter(|country| right.contains_key(*country))
        .copied()
        .collect();
    countries.sort_unstable();
    let values = countries
        .iter()
        .map(|country| (left[country], right[country]))
        .collect();
    (countries, values)
}
