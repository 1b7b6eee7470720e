//! Concordance rows: for each declared pair, both publishers' values for every country-year they share,
//! aligned to one unit, with the difference and whether it is within the pair's tolerance.

use std::collections::HashMap;

use crate::{
    govern::{table::ObservationColumns, text::MODELLED_FLAG},
    sources::concordance::ConcordancePair,
};

/// The concordance table, column by column, in (pair, country, year) order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConcordanceColumns {
    /// Pair id.
    pub pair: Vec<String>,
    /// ISO3.
    pub country: Vec<String>,
    /// Year.
    pub year: Vec<i32>,
    /// Left metric id.
    pub left_indicator: Vec<String>,
    /// Left value, in the left unit.
    pub left_value: Vec<f64>,
    /// Citation of the left value.
    pub left_citation_id: Vec<String>,
    /// Right metric id.
    pub right_indicator: Vec<String>,
    /// Right value as published.
    pub right_value: Vec<f64>,
    /// Metric id of the indicator the right value is multiplied by, for a pair with `right_times`.
    pub right_times_indicator: Vec<Option<String>>,
    /// Its value, same country and year.
    pub right_times_value: Vec<Option<f64>>,
    /// Its citation.
    pub right_times_citation_id: Vec<Option<String>>,
    /// Right value in the left unit (`right_value [* right_times_value] * right_factor`).
    pub right_value_aligned: Vec<f64>,
    /// Citation of the right value.
    pub right_citation_id: Vec<String>,
    /// `right_value_aligned - left_value`.
    pub difference: Vec<f64>,
    /// Whether the difference is within the pair's tolerance.
    pub within_tolerance: Vec<bool>,
}

impl ConcordanceColumns {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.pair.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.pair.is_empty()
    }
}

/// Pairs the country observations of every declared pair (flagged values left out, except `modelled`
/// ones of a pair declared `compares_modelled`). Returns the table, per pair id the number of shared
/// country-years and of those beyond tolerance, and the rows compared with a modelled side.
pub fn concordance(
    pairs: &[ConcordancePair],
    observations: &ObservationColumns,
) -> (ConcordanceColumns, Vec<(String, u64, u64)>, u64) {
    let mut modelled_compared = 0u64;
    let mut by_key: HashMap<(&str, &str, i32), usize> = HashMap::with_capacity(observations.len());
    for row_idx in 0..observations.len() {
        by_key.insert(
            (
                &observations.indicator[row_idx],
                &observations.country[row_idx],
                observations.year[row_idx],
            ),
            row_idx,
        );
    }
    let mut table = ConcordanceColumns::default();
    let mut counts = Vec::with_capacity(pairs.len());
    for pair in pairs {
        let mut left_rows: Vec<usize> = (0..observations.len())
            .filter(|&row_idx| observations.indicator[row_idx] == pair.left)
            .collect();
        left_rows.sort_by(|&left, &right| {
            (&observations.country[left], observations.year[left])
                .cmp(&(&observations.country[right], observations.year[right]))
        });
        let (mut shared, mut beyond) = (0u64, 0u64);
        for left_idx in left_rows {
            let key = (
                pair.right.as_str(),
                observations.country[left_idx].as_str(),
                observations.year[left_idx],
            );
            let Some(&right_idx) = by_key.get(&key) else {
                continue;
            };
            // The third cell of a `right_times` pair (population for a per-capita value), if any.
            let times_idx = match &pair.right_times {
                None => None,
                Some(times) => {
                    let key = (times.as_str(), key.1, key.2);
                    match by_key.get(&key) {
                        Some(&times_idx) => Some(times_idx),
                        None => continue,
                    }
                }
            };
            // Projections (and any other flagged value) are not compared with observed values; a pair
            // declared `compares_modelled` compares modelled values too.
            let compared =
                |flag: &str| flag.is_empty() || (pair.compares_modelled && flag == MODELLED_FLAG);
            let flagged = |row_idx: usize| !observations.flags[row_idx].split('|').all(compared);
            if flagged(left_idx) || flagged(right_idx) || times_idx.is_some_and(flagged) {
                continue;
            }
            let modelled = |row_idx: usize| {
                observations.flags[row_idx]
                    .split('|')
                    .any(|flag| flag == MODELLED_FLAG)
            };
            modelled_compared += u64::from(
                modelled(left_idx) || modelled(right_idx) || times_idx.is_some_and(modelled),
            );
            let left_value = observations.value[left_idx];
            let right_value = observations.value[right_idx];
            let times_value = times_idx.map(|times_idx| observations.value[times_idx]);
            let aligned = right_value * times_value.unwrap_or(1.0) * pair.right_factor;
            let agrees = pair.agrees(left_value, aligned);
            shared += 1;
            beyond += u64::from(!agrees);
            table.pair.push(pair.id.clone());
            table
                .country
                .push(observations.country[left_idx].to_string());
            table.year.push(observations.year[left_idx]);
            table.left_indicator.push(pair.left.clone());
            table.left_value.push(left_value);
            table
                .left_citation_id
                .push(observations.citation_id[left_idx].to_string());
            table.right_indicator.push(pair.right.clone());
            table.right_value.push(right_value);
            table.right_times_indicator.push(pair.right_times.clone());
            table.right_times_value.push(times_value);
            table
                .right_times_citation_id
                .push(times_idx.map(|times_idx| observations.citation_id[times_idx].to_string()));
            table.right_value_aligned.push(aligned);
            table
                .right_citation_id
                .push(observations.citation_id[right_idx].to_string());
            table.difference.push(aligned - left_value);
            table.within_tolerance.push(agrees);
        }
        counts.push((pair.id.clone(), shared, beyond));
    }
    (table, counts, modelled_compared)
}
