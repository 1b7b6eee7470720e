//! Discoveries (`discoveries.json`): anomalies — year-over-year changes between consecutive observations
//! at most `MAX_CHANGE_GAP` years apart, annualised, whose robust z-score (median and MAD of the series'
//! own changes per year, `corpus::analytics::robust_z_scores`) reaches `ANOMALY_Z` — and source
//! contradictions — concordance rows beyond their pair's tolerance — each with the citations of its cells.
//! Observations further apart are a gap in the series, not a change: never an anomaly. Every anomaly
//! found is kept (no cut), so totals per country or indicator are right.

use std::collections::BTreeMap;

use corpus::{
    Anomaly, Contradiction, Discoveries,
    analytics::robust_z_scores,
    derived::{ANOMALY_MIN_SHARE, ANOMALY_Z, DerivedRuleCounts, MAX_CHANGE_GAP},
    is_projection,
};

use super::concordance::ConcordanceColumns;
use crate::{
    govern::table::ObservationColumns,
    sources::concordance::{ConcordancePair, ToleranceKind},
};

/// Two consecutive rows of a series (earlier, later).
type Pair = (usize, usize);

/// Series with fewer changes than this are too short to judge.
const MIN_CHANGES: usize = 8;

/// Anomalies of the country observations (projections excluded) and contradictions of the concordance.
pub fn discoveries(
    observations: &ObservationColumns,
    concordance: &ConcordanceColumns,
    pairs: &[ConcordancePair],
    counts: &mut DerivedRuleCounts,
) -> Discoveries {
    let series = super::series::group_series(observations, |row_idx| {
        !is_projection(&observations.flags[row_idx])
    });
    let mut anomalies = Vec::new();
    for ((indicator, country), mut rows) in series {
        rows.sort_by_key(|&row_idx| observations.year[row_idx]);
        let level = rows
            .iter()
            .map(|&row_idx| observations.value[row_idx].abs())
            .sum::<f64>()
            / rows.len() as f64;
        let large_enough = |change: f64| change.abs() >= ANOMALY_MIN_SHARE * level;
        let pairs: Vec<Pair> = rows.windows(2).map(|pair| (pair[0], pair[1])).collect();
        let gap = |&(before, after): &Pair| observations.year[after] - observations.year[before];
        let change =
            |&(before, after): &Pair| observations.value[after] - observations.value[before];
        // What the rule without a gap limit reported across a gap: counted as dropped.
        if pairs.len() >= MIN_CHANGES {
            let all: Vec<f64> = pairs.iter().map(change).collect();
            if let Some(scores) = robust_z_scores(&all) {
                counts.gap_anomalies_dropped += pairs
                    .iter()
                    .zip(scores)
                    .filter(|(pair, z_score)| {
                        gap(pair) > MAX_CHANGE_GAP
                            && z_score.abs() >= ANOMALY_Z
                            && large_enough(change(pair))
                    })
                    .count() as u64;
            }
        }
        let (within, across): (Vec<Pair>, Vec<Pair>) = pairs
            .into_iter()
            .partition(|pair| gap(pair) <= MAX_CHANGE_GAP);
        counts.gap_changes_excluded += across.len() as u64;
        if within.len() < MIN_CHANGES {
            continue;
        }
        let per_year: Vec<f64> = within
            .iter()
            .map(|pair| change(pair) / f64::from(gap(pair)))
            .collect();
        let Some(scores) = robust_z_scores(&per_year) else {
            continue;
        };
        for (index, z_score) in scores.into_iter().enumerate().filter(|&(index, z_score)| {
            z_score.abs() >= ANOMALY_Z && large_enough(change(&within[index]))
        }) {
            let (before, after) = within[index];
            anomalies.push(Anomaly {
                indicator: indicator.to_string(),
                country: country.to_string(),
                year: observations.year[after],
                previous_year: observations.year[before],
                change: change(&within[index]),
                change_per_year: per_year[index],
                z_score,
                citation_ids: [
                    observations.citation_id[before].to_string(),
                    observations.citation_id[after].to_string(),
                ],
            });
        }
    }
    anomalies.sort_by(|left, right| {
        right
            .z_score
            .abs()
            .total_cmp(&left.z_score.abs())
            .then_with(|| {
                (&left.indicator, &left.country, left.year).cmp(&(
                    &right.indicator,
                    &right.country,
                    right.year,
                ))
            })
    });
    // Every anomaly found is kept: `get_discoveries` pages through them with right totals.
    counts.anomalies_found = anomalies.len() as u64;
    let by_id: BTreeMap<&str, &ConcordancePair> =
        pairs.iter().map(|pair| (pair.id.as_str(), pair)).collect();
    let mut contradictions: Vec<Contradiction> = (0..concordance.len())
        .filter(|&row_idx| !concordance.within_tolerance[row_idx])
        .map(|row_idx| {
            let left = concordance.left_value[row_idx];
            let difference = concordance.right_value_aligned[row_idx] - left;
            let pair = by_id.get(concordance.pair[row_idx].as_str());
            let allowed = pair.map_or(f64::NAN, |pair| match pair.tolerance_kind {
                ToleranceKind::Absolute => pair.tolerance,
                ToleranceKind::Relative => pair.tolerance * left.abs(),
            });
            Contradiction {
                pair: concordance.pair[row_idx].clone(),
                country: concordance.country[row_idx].clone(),
                year: concordance.year[row_idx],
                left_indicator: concordance.left_indicator[row_idx].clone(),
                left_value: left,
                right_indicator: concordance.right_indicator[row_idx].clone(),
                right_value_aligned: concordance.right_value_aligned[row_idx],
                difference,
                tolerance_ratio: if allowed > 0.0 {
                    difference.abs() / allowed
                } else {
                    f64::INFINITY
                },
                citation_ids: [
                    Some(concordance.left_citation_id[row_idx].clone()),
                    Some(concordance.right_citation_id[row_idx].clone()),
                    concordance.right_times_citation_id[row_idx].clone(),
                ]
                .into_iter()
                .flatten()
                .collect(),
                note: pair.map(|pair| pair.note.clone()).unwrap_or_default(),
            }
        })
        .collect();
    contradictions.sort_by(|left, right| {
        right
            .tolerance_ratio
            .total_cmp(&left.tolerance_ratio)
            .then_with(|| {
                (&left.pair, &left.country, left.year).cmp(&(
                    &right.pair,
                    &right.country,
                    right.year,
                ))
            })
    });
    Discoveries {
        anomalies,
        contradictions,
    }
}
