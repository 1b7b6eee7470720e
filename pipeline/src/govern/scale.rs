//! Probable fractions stored as percents: WDI's national poverty gap for MEX 2010–2014 is 0.45 where
//! every other country reports 1.6–55 %. The values are kept (the publisher's number, which a steward
//! may confirm) and flagged [`FLAG`], counted in the bake report; derived views can leave them out.
//!
//! The rule, for percent units (see [`super::placeholder::is_percent`]) whose catalog row does not say
//! `small_values = plausible`, on country observations only:
//! - **cross-section**: a country's whole series is flagged when every value `v` of it is a fraction
//!   (0 < v ≤ 1), below half the smallest value any of at least [`MIN_OTHER_COUNTRIES`] other countries
//!   reports in any year, and `100 × v` falls inside the other countries' range;
//! - **own series**: a value 0 < v ≤ 1 is flagged when every neighbouring observation of its series
//!   (the year before and after it that have values, at least one) is at least 5 and 50–200 times `v`:
//!   a jump by a factor of about 100 and back.

use std::collections::BTreeMap;

use super::{observation::GovernedObservation, placeholder};
use crate::sources::{MetricMapping, metric_map::SmallValues};

/// The flag set on a suspect value.
pub const FLAG: &str = "suspect_scale";

/// Other countries an indicator needs for the cross-section test.
pub const MIN_OTHER_COUNTRIES: usize = 5;

/// The kept country observations (indices into `kept`) whose value is probably a fraction stored as a
/// percent.
pub fn suspects(kept: &[GovernedObservation], mapping: &MetricMapping) -> Vec<usize> {
    let checked = |mapping_idx: usize| {
        let row = &mapping.rows[mapping_idx];
        placeholder::is_percent(&row.unit) && row.small_values != Some(SmallValues::Plausible)
    };
    let series: Vec<((usize, &str), Vec<usize>)> = placeholder::series_of(kept)
        .into_iter()
        .filter(|((mapping_idx, _), indices)| {
            checked(*mapping_idx) && !kept[indices[0]].is_aggregate
        })
        .collect();
    let mut by_indicator: BTreeMap<usize, Vec<(&str, &[usize])>> = BTreeMap::new();
    for ((mapping_idx, country), indices) in &series {
        by_indicator
            .entry(*mapping_idx)
            .or_default()
            .push((country, indices));
    }
    let mut found = Vec::new();
    for countries in by_indicator.values() {
        found.extend(cross_section(kept, countries));
    }
    for (_, indices) in &series {
        found.extend(scale_breaks(kept, indices));
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// The whole-series suspects of one indicator (`countries`: each country's observation indices).
fn cross_section(kept: &[GovernedObservation], countries: &[(&str, &[usize])]) -> Vec<usize> {
    if countries.len() < MIN_OTHER_COUNTRIES + 1 {
        return Vec::new();
    }
    let extremes: Vec<(f64, f64)> = countries
        .iter()
        .map(|(_, indices)| {
            indices
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &idx| {
                    (low.min(kept[idx].value), high.max(kept[idx].value))
                })
        })
        .collect();
    let mut found = Vec::new();
    for (position, (_, indices)) in countries.iter().enumerate() {
        let others = extremes
            .iter()
            .enumerate()
            .filter(|(other, _)| *other != position)
            .map(|(_, extremes)| *extremes);
        let (low, high) = others.fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), (l, h)| {
            (low.min(l), high.max(h))
        });
        if low <= 0.0 {
            continue;
        }
        let fraction = |value: f64| {
            value > 0.0
                && value <= 1.0
                && value < low / 2.0
                && (low..=high).contains(&(value * 100.0))
        };
        if indices.iter().all(|&idx| fraction(kept[idx].value)) {
            found.extend_from_slice(indices);
        }
    }
    found
}

/// Values of one series (`indices` in year order) about 100 times below both neighbours.
fn scale_breaks(kept: &[GovernedObservation], indices: &[usize]) -> Vec<usize> {
    let mut found = Vec::new();
    for (position, &idx) in indices.iter().enumerate() {
        let value = kept[idx].value;
        if !(value > 0.0 && value <= 1.0) {
            continue;
        }
        let neighbours: Vec<f64> = position
            .checked_sub(1)
            .map(|before| kept[indices[before]].value)
            .into_iter()
            .chain(indices.get(position + 1).map(|&after| kept[after].value))
            .collect();
        if !neighbours.is_empty()
            && neighbours
                .iter()
                .all(|&neighbour| neighbour >= 5.0 && (50.0..=200.0).contains(&(neighbour / value)))
        {
            found.push(idx);
        }
    }
    found
}
