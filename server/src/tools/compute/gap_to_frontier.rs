//! Op `gap_to_frontier`: a country's distance to the frontier country (the best by the indicator's good
//! direction, or the max or min) among the compared countries in one year, cited to both cells.

use corpus::{Metric, derived::MetricRule, is_projection};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    Cell, ComputeInput, ComputeResult, available_years, calculation, candidate_countries, cell,
    comparable, note_projections, one_country, relative, series,
};
use crate::{
    load::Corpus,
    tools::{ToolError, arguments},
};

/// A gap to the frontier.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Gap {
    /// The country's cell.
    pub country: Cell,
    /// The frontier's cell.
    pub frontier: Cell,
    /// How the frontier was chosen: best, max or min.
    pub frontier_rule: String,
    /// `frontier - country`, in the unit.
    pub absolute_gap: f64,
    /// The gap as a fraction of |frontier| (null when the frontier is 0, or when the indicator is a growth
    /// rate or an index crossing zero).
    pub relative_gap: Option<f64>,
}

/// Fills `result` with the gap of `input.country` to the frontier country among the candidates in
/// `input.year` (default: the country's latest observation): `best` by good direction, `max` or `min`.
///
/// # Errors
/// [`ToolError::Invalid`] for values not comparable across countries, no country, no value that year, or
/// an unknown frontier rule.
pub(super) fn gap_to_frontier(
    corpus: &Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    comparable(metric, rule, input.op)?;
    let country = one_country(corpus, input)?;
    let candidates = candidate_countries(corpus, metric, input)?;
    let year = match input.year {
        Some(year) => year,
        // The country's latest observation; a projection year is used only when asked for.
        None => {
            let rows = series(corpus, metric, &country)?;
            rows.iter()
                .rev()
                .find(|row| !is_projection(row.flags))
                .or(rows.last())
                .map(|row| row.year)
                .unwrap_or_default()
        }
    };
    let own = corpus
        .baked
        .observations()
        .find(&metric.id, &country, year)
        .ok_or_else(|| {
            ToolError::Invalid(format!(
                "{country} has no {} value in {year}; {}",
                metric.id,
                available_years(corpus, metric, &country)
            ))
        })?;
    let frontier_rule = input.frontier.clone().unwrap_or_else(|| "best".into());
    let take_max = match frontier_rule.as_str() {
        "max" => true,
        "min" => false,
        "best" => metric.good_direction != corpus::GoodDirection::Down,
        other => {
            return Err(ToolError::Invalid(format!(
                "frontier `{}`: give best, max or min",
                arguments::snippet(other)
            )));
        }
    };
    let frontier = corpus
        .baked
        .observations()
        .cross_section(&metric.id, year)
        .into_iter()
        .filter(|row| candidates.iter().any(|candidate| candidate == row.country))
        .max_by(|left, right| {
            let by_value = left.value.total_cmp(&right.value);
            (if take_max {
                by_value
            } else {
                by_value.reverse()
            })
            .then(right.country.cmp(left.country))
        })
        .ok_or_else(|| {
            ToolError::Invalid(format!("no country has a {} value in {year}", metric.id))
        })?;
    let absolute_gap = frontier.value - own.value;
    let relative_gap = relative(
        rule,
        (frontier.value != 0.0).then(|| absolute_gap / frontier.value.abs()),
        &mut result.notes,
    );
    note_projections(&[&own, &frontier], &mut result.notes);
    result.calculation = calculation(
        "gap",
        &format!("{}-{}-{year}", metric.id, country.to_ascii_lowercase()),
        &format!("distance to the frontier ({frontier_rule}) among the compared countries"),
        "frontier.value - country.value; relative = gap / |frontier.value|",
        &[&own, &frontier],
    );
    result.gap = Some(Gap {
        country: cell(&own),
        frontier: cell(&frontier),
        frontier_rule,
        absolute_gap,
        relative_gap,
    });
    Ok(())
}
