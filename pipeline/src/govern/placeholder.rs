//! Placeholder zeros: exact zeros that stand for "no data" (WDI fills VEN's value added shares of GDP
//! with 0 for 1991–2011, between 57.7 and 47.6 % of GDP). They are dropped as
//! [`corpus::DropReason::PlaceholderZero`], each with its reason, so a missing value stays an absent row.
//!
//! The rule, per indicator and country series (years in order):
//! - the catalog row says `zeros = placeholder` (the definition makes a zero impossible: value added and
//!   expenditure shares of GDP, education spending): every exact zero is a placeholder;
//! - the catalog row says `zeros = measured` (no woman in a small parliament): zeros are kept;
//! - the catalog row says `zeros = implausible_run` (road-traffic deaths per 100,000: a small country can
//!   have no death in a year, not for years on end): every zero in a run of at least
//!   [`IMPLAUSIBLE_RUN`] consecutive years is a placeholder (ATG 2015–2019); a lone zero is kept;
//! - otherwise, for a percent unit (the unit starts with `%`), a run of consecutive zeros is a placeholder
//!   when it has at least one neighbouring observation and every neighbour (the observation just before
//!   and just after the run) is at least [`NEIGHBOUR_FLOOR`] away from zero: a series does not fall from
//!   12 % to exactly 0 and back. Runs at the start of a series that grows from near zero (mobile
//!   subscriptions), or zeros next to small values, are kept.

use std::collections::HashMap;

use super::observation::GovernedObservation;
use crate::sources::{MetricMapping, metric_map::ZeroRule};

/// Smallest absolute value (in percentage points) of every neighbour of a zero run for the run to be a
/// placeholder.
pub const NEIGHBOUR_FLOOR: f64 = 5.0;

/// Shortest run of consecutive-year zeros that a `zeros = implausible_run` row reads as a placeholder.
pub const IMPLAUSIBLE_RUN: usize = 2;

/// Whether `unit` is a percent (`%`, `% of GDP`, `% gross`); `annual %` growth rates are not shares.
pub fn is_percent(unit: &str) -> bool {
    unit.trim_start().starts_with('%')
}

/// The kept observations (by index into `kept`) that are placeholder zeros, each with the reason.
pub fn placeholders(kept: &[GovernedObservation], mapping: &MetricMapping) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (series, indices) in series_of(kept) {
        let row = &mapping.rows[series.0];
        match row.zeros {
            Some(ZeroRule::Measured) => continue,
            Some(ZeroRule::Placeholder) => {
                found.extend(
                    indices
                        .iter()
                        .filter(|&&idx| kept[idx].value == 0.0)
                        .map(|&idx| {
                            (
                                idx,
                                format!(
                                    "an exact zero in `{}`, whose catalog row declares zeros placeholders (zeros = placeholder: the definition makes 0 impossible)",
                                    row.source_code
                                ),
                            )
                        }),
                );
            }
            Some(ZeroRule::ImplausibleRun) => {
                found.extend(implausible_runs(kept, &indices, &row.source_code))
            }
            None if is_percent(&row.unit) => found.extend(zero_runs(kept, &indices)),
            None => {}
        }
    }
    found.sort_unstable_by_key(|(idx, _)| *idx);
    found
}

/// The runs of exact zeros of one series (`indices` in year order), as `(start, end)` positions into
/// `indices`, both included. With `consecutive_years`, a run also breaks at a gap between years.
fn runs_of_zeros(
    kept: &[GovernedObservation],
    indices: &[usize],
    consecutive_years: bool,
) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start = 0;
    while start < indices.len() {
        if kept[indices[start]].value != 0.0 {
            start += 1;
            continue;
        }
        let mut end = start;
        while end + 1 < indices.len()
            && kept[indices[end + 1]].value == 0.0
            && (!consecutive_years || kept[indices[end + 1]].year == kept[indices[end]].year + 1)
        {
            end += 1;
        }
        runs.push((start, end));
        start = end + 1;
    }
    runs
}

/// Each index of `indices[start..=end]` with the run's reason.
fn each_of_run(
    indices: &[usize],
    (start, end): (usize, usize),
    detail: String,
) -> Vec<(usize, String)> {
    indices[start..=end]
        .iter()
        .map(|&idx| (idx, detail.clone()))
        .collect()
}

/// The zeros of one series (`indices` in year order) in runs of at least [`IMPLAUSIBLE_RUN`]
/// consecutive years, each with its reason.
fn implausible_runs(
    kept: &[GovernedObservation],
    indices: &[usize],
    source_code: &str,
) -> Vec<(usize, String)> {
    runs_of_zeros(kept, indices, true)
        .into_iter()
        .filter(|(start, end)| end - start + 1 >= IMPLAUSIBLE_RUN)
        .flat_map(|(start, end)| {
            let length = end - start + 1;
            let detail = format!(
                "one of {length} consecutive zeros ({}-{}) in `{source_code}`: a placeholder for missing data, as its catalog row declares a run of zeros implausible (zeros = implausible_run: a country does not go {length} years without one)",
                kept[indices[start]].year,
                kept[indices[end]].year,
            );
            each_of_run(indices, (start, end), detail)
        })
        .collect()
}

/// The placeholder runs of one series whose `indices` are in year order.
fn zero_runs(kept: &[GovernedObservation], indices: &[usize]) -> Vec<(usize, String)> {
    runs_of_zeros(kept, indices, false)
        .into_iter()
        .filter_map(|(start, end)| {
            let before = start.checked_sub(1).map(|at| &kept[indices[at]]);
            let after = indices.get(end + 1).map(|&idx| &kept[idx]);
            let neighbours: Vec<&GovernedObservation> = before.into_iter().chain(after).collect();
            let placeholder = !neighbours.is_empty()
                && neighbours
                    .iter()
                    .all(|neighbour| neighbour.value.abs() >= NEIGHBOUR_FLOOR);
            placeholder.then(|| {
                let around = neighbours
                    .iter()
                    .map(|neighbour| format!("{} in {}", neighbour.value, neighbour.year))
                    .collect::<Vec<_>>()
                    .join(" and ");
                let detail = format!(
                    "one of {} zeros ({}-{}) next to {around} in a percent series: a placeholder for missing data (every neighbour of the run is {NEIGHBOUR_FLOOR} or more away from zero)",
                    end - start + 1,
                    kept[indices[start]].year,
                    kept[indices[end]].year,
                );
                each_of_run(indices, (start, end), detail)
            })
        })
        .flatten()
        .collect()
}

/// The indices of `kept` per (mapping index, country), each in year order, in a stable order.
pub(super) fn series_of(kept: &[GovernedObservation]) -> Vec<((usize, &str), Vec<usize>)> {
    let mut series: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
    for (idx, observation) in kept.iter().enumerate() {
        series
            .entry((observation.mapping_idx, observation.country.as_str()))
            .or_default()
            .push(idx);
    }
    let mut series: Vec<_> = series.into_iter().collect();
    series.sort_unstable_by(|left, right| left.0.cmp(&right.0));
    for (_, indices) in &mut series {
        indices.sort_by_key(|&idx| kept[idx].year);
    }
    series
}
