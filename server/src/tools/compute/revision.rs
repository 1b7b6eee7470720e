//! Op `revision`: one cell (indicator, country, year) in two vintages of its publisher (WEO April 2019
//! and April 2025 today: `corpus::BakedCorpus::vintages_of`), both cited, the revision in units and
//! percent, and whether each value was a projection when its vintage was published.

use corpus::{Metric, Observation, derived::MetricRule, is_projection};
use schemars::JsonSchema;
use serde::Serialize;

use super::{ComputeInput, ComputeResult, calculation, cell, one_country, series};
use crate::{
    load::Corpus,
    tools::{ToolError, answer::significant},
};

/// The cell in two vintages.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Revision {
    /// The earlier vintage's value.
    pub earlier: VintageCell,
    /// The later vintage's value.
    pub later: VintageCell,
    /// `later - earlier`, in the unit.
    pub revision: f64,
    /// The revision as a percentage of |earlier| (absent when the earlier value is 0, or when the
    /// indicator is a growth rate or an index crossing zero: see `notes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision_percent: Option<f64>,
}

/// One vintage's value of the cell.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VintageCell {
    /// The vintage's indicator id (`ngdp_rpch_weo2019`).
    pub indicator: String,
    /// The release (`2019-04`).
    pub vintage: String,
    /// The cited value; `projection` true when it was a projection (or an estimate past the publisher's
    /// last observation) when the vintage was published.
    #[serde(flatten)]
    pub cell: super::Cell,
}

/// Fills `result` with the revision of `input.country`'s `year` (default: the latest both vintages
/// hold) between the oldest and the newest vintage of `metric` the corpus holds.
///
/// # Errors
/// [`ToolError::Invalid`] for an indicator held in one vintage (naming those held in two), no country,
/// or a year one vintage lacks (naming the years both hold).
pub(super) fn revision<'a>(
    corpus: &'a Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    if input.from_year.is_some() || input.to_year.is_some() {
        return Err(ToolError::Invalid(
            "op revision compares one year in two vintages: give `year` (default: the latest both hold), not from_year or to_year".into(),
        ));
    }
    let mut vintages: Vec<&Metric> = corpus.baked.vintages_of(metric);
    if vintages.is_empty() {
        let held: Vec<String> = corpus
            .baked
            .metrics()
            .iter()
            .filter(|other| {
                corpus
                    .baked
                    .source(&other.source_id)
                    .is_some_and(|source| source.superseded_by.is_none())
            })
            .filter(|other| !corpus.baked.vintages_of(other).is_empty())
            .take(8)
            .map(|other| other.id.clone())
            .collect();
        return Err(ToolError::Invalid(format!(
            "{} is held in one vintage only ({}): a revision needs the same indicator in two; indicators with two vintages include {}",
            metric.id,
            metric.vintage,
            held.join(", ")
        )));
    }
    vintages.push(metric);
    vintages.sort_by(|left, right| left.vintage.cmp(&right.vintage));
    let (earlier_metric, later_metric) = (vintages[0], vintages[vintages.len() - 1]);
    let country = one_country(corpus, input)?;
    let earlier_rows = series(corpus, earlier_metric, &country)?;
    let later_rows = series(corpus, later_metric, &country)?;
    let shared: Vec<i32> = earlier_rows
        .iter()
        .filter(|row| later_rows.iter().any(|later| later.year == row.year))
        .map(|row| row.year)
        .collect();
    let year = match input.year {
        Some(year) => year,
        None => *shared.last().ok_or_else(|| {
            ToolError::Invalid(format!(
                "{country} has no year held by both {} and {}",
                earlier_metric.id, later_metric.id
            ))
        })?,
    };
    let find = |rows: &[Observation<'a>], which: &Metric| -> Result<Observation<'a>, ToolError> {
        rows.iter()
            .find(|row| row.year == year)
            .copied()
            .ok_or_else(|| {
                ToolError::Invalid(format!(
                    "year {year}: {} ({}) holds no value for {country}; both vintages hold {}",
                    which.id,
                    which.vintage,
                    span(&shared)
                ))
            })
    };
    let earlier = find(&earlier_rows, earlier_metric)?;
    let later = find(&later_rows, later_metric)?;
    let change = later.value - earlier.value;
    result.revision = Some(Revision {
        earlier: vintage_cell(earlier_metric, &earlier),
        later: vintage_cell(later_metric, &later),
        revision: significant(change, 12),
        revision_percent: super::relative(
            rule,
            (earlier.value != 0.0).then(|| significant(100.0 * change / earlier.value.abs(), 6)),
            &mut result.notes,
        ),
    });
    result.calculation = calculation(
        "revision",
        &format!(
            "{}-{}-{year}",
            later_metric.id,
            country.to_ascii_lowercase()
        ),
        &format!(
            "the same cell in two vintages: {} ({}) against {} ({})",
            earlier_metric.id, earlier_metric.vintage, later_metric.id, later_metric.vintage
        ),
        "later.value - earlier.value; percent = 100 × (later - earlier) / |earlier|",
        &[&earlier, &later],
    );
    if is_projection(earlier.flags) {
        result.notes.push(format!(
            "the {} value for {year} was a projection when that vintage was published: the revision includes the forecast error",
            earlier_metric.vintage
        ));
    }
    if corpus::is_estimate(earlier.flags) {
        result.notes.push(format!(
            "the {} value for {year} was the publisher's estimate when that vintage was published (not yet observed)",
            earlier_metric.vintage
        ));
    }
    if is_projection(later.flags) {
        result.notes.push(format!(
            "the {} value for {year} is itself still a projection or estimate",
            later_metric.vintage
        ));
    }
    Ok(())
}

fn vintage_cell(metric: &Metric, row: &Observation<'_>) -> VintageCell {
    VintageCell {
        indicator: metric.id.clone(),
        vintage: metric.vintage.clone(),
        cell: cell(row),
    }
}

/// `1980-2024` for the years held, or `no year`.
fn span(years: &[i32]) -> String {
    match (years.first(), years.last()) {
        (Some(first), Some(last)) => format!("{first}-{last}"),
        _ => "no year".into(),
    }
}
