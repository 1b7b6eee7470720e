//! Per indicator and year across the region (`year_stats.json`): regional value (population-weighted
//! mean for intensive units, else median), leaders, laggards and frontier, computed with
//! `corpus::analytics` as `get_regional_pulse` does at query time.

use std::collections::{BTreeMap, HashMap};

use corpus::{
    GoodDirection, Metric, YearStats,
    analytics::{is_intensive_unit, regional_value},
    derived::MIN_YEAR_COUNTRIES,
};

use crate::export::tables::ObservationColumns;

/// The population indicator used as weight.
const POPULATION: &str = "sp_pop_totl";

/// One [`YearStats`] per indicator and year with enough countries, sorted by both.
pub fn year_stats(metrics: &[Metric], observations: &ObservationColumns) -> Vec<YearStats> {
    let mut cells: BTreeMap<(&str, i32), Vec<usize>> = BTreeMap::new();
    let mut population: HashMap<(&str, i32), f64> = HashMap::new();
    for row_idx in 0..observations.len() {
        let key = (
            observations.indicator[row_idx].as_str(),
            observations.year[row_idx],
        );
        cells.entry(key).or_default().push(row_idx);
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
        if observations.indicator[row_idx] == POPULATION {
            *region_population
                .entry(observations.year[row_idx])
                .or_default() += observations.value[row_idx];
        }
    }
    let by_id: HashMap<&str, &Metric> = metrics
        .iter()
        .map(|metric| (metric.id.as_str(), metric))
        .collect();
    let mut stats = Vec::new();
    for ((indicator, year), mut rows) in cells {
        if rows.len() < MIN_YEAR_COUNTRIES {
            continue;
        }
        let Some(metric) = by_id.get(indicator) else {
            continue;
        };
        // Country order, as the server's registry iterates countries.
        rows.sort_by(|&left, &right| observations.country[left].cmp(&observations.country[right]));
        let values: Vec<f64> = rows
            .iter()
            .map(|&row_idx| observations.value[row_idx])
            .collect();
        let weights: Option<Vec<f64>> = if is_intensive_unit(&metric.unit) {
            rows.iter()
                .map(|&row_idx| {
                    population
                        .get(&(observations.country[row_idx].as_str(), year))
                        .copied()
                })
                .collect()
        } else {
            None
        };
        let Some((value, method)) = regional_value(&values, weights.as_deref()) else {
            continue;
        };
        let mut ranked = rows.clone();
        ranked.sort_by(|&left, &right| {
            let by_value = observations.value[right].total_cmp(&observations.value[left]);
            (if metric.good_direction == GoodDirection::Down {
                by_value.reverse()
            } else {
                by_value
            })
            .then(observations.country[left].cmp(&observations.country[right]))
        });
        stats.push(YearStats {
            indicator: indicator.to_string(),
            year,
            countries: rows.len(),
            regional_value: value,
            method: method.as_str().to_string(),
            leaders: ranked
                .iter()
                .take(3)
                .map(|&row_idx| observations.citation_id[row_idx].clone())
                .collect(),
            laggards: ranked
                .iter()
                .rev()
                .take(3)
                .map(|&row_idx| observations.citation_id[row_idx].clone())
                .collect(),
            population_share: region_population.get(&year).map(|total| {
                let covered: f64 = rows
                    .iter()
                    .filter_map(|&row_idx| {
                        population.get(&(observations.country[row_idx].as_str(), year))
                    })
                    .sum();
                covered / total
            }),
        });
    }
    stats
}
