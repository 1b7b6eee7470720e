//! Op `gap_to_frontier`: a country's distance to the frontier country (the best by the indicator's good
//! direction, or the max or min) among the compared countries in one year, cited to both cells.
//!
//! The frontier is a plausible target (`corpus::frontier`): it is one of the 33 sovereign countries
//! unless territories are asked for, never a value flagged suspect, and for a gross ratio (gross
//! enrolment) the target is capped at 100 (`target`, with a note). An indicator whose good direction is
//! ambiguous has no `best` frontier: the op is refused with the reason (max and min still answer).

use corpus::{GoodDirection, Metric, derived::MetricRule, frontier, is_projection};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    Cell, ComputeInput, ComputeResult, ambiguous_note, available_years, calculation,
    candidate_countries, cell, comparable, note_projections, one_country, relative, series,
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
    /// The target the gap is measured to, when it is not the frontier's value: a gross ratio's frontier
    /// capped at 100 (over-age and repeating pupils make values above 100 % no goal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<f64>,
    /// `target - country` (the target is the frontier's value unless capped), in the unit; 0 when a
    /// capped target is already reached.
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
    let direction = match frontier_rule.as_str() {
        "max" => GoodDirection::Up,
        "min" => GoodDirection::Down,
        "best" => match metric.good_direction {
            GoodDirection::Down => GoodDirection::Down,
            GoodDirection::Ambiguous => {
                return Err(ToolError::Invalid(format!(
                    "{} has no frontier: {}; frontier max or min gives the extremes",
                    metric.id,
                    ambiguous_note(metric, rule).unwrap_or_default()
                )));
            }
            GoodDirection::Up | GoodDirection::Neutral => GoodDirection::Up,
        },
        other => {
            return Err(ToolError::Invalid(format!(
                "frontier `{}`: give best, max or min",
                arguments::snippet(other)
            )));
        }
    };
    result.notes.extend(ambiguous_note(metric, rule));
    // The candidates are already in scope (sovereign unless territories are asked for): the rule leaves
    // out suspect values and orders a gross ratio as capped.
    let section: Vec<_> = corpus
        .baked
        .observations()
        .cross_section(&metric.id, year)
        .into_iter()
        .filter(|row| candidates.iter().any(|candidate| candidate == row.country))
        .collect();
    let entries: Vec<frontier::Candidate<'_>> =
        section.iter().map(frontier::Candidate::from).collect();
    let cap = frontier::target_cap(metric).filter(|_| direction == GoodDirection::Up);
    let frontier = frontier::ranked(
        corpus.baked.countries(),
        direction,
        cap,
        &entries,
        true,
    )
    .first()
    .map(|&idx| section[idx])
    .ok_or_else(|| {
        ToolError::Invalid(format!(
            "no compared country has a {} value in {year} that can be a frontier (territories and \
             suspect values are left out)",
            metric.id
        ))
    })?;
    let target = cap.filter(|cap| frontier.value > *cap);
    if let Some(cap) = target {
        result.notes.push(frontier::cap_note(cap));
    }
    let goal = target.unwrap_or(frontier.value);
    let absolute_gap = if target.is_some() {
        (goal - own.value).max(0.0)
    } else {
        goal - own.value
    };
    let relative_gap = relative(
        rule,
        (goal != 0.0).then(|| absolute_gap / goal.abs()),
        &mut result.notes,
    );
    note_projections(&[&own, &frontier], &mut result.notes);
    result.calculation = calculation(
        "gap",
        &format!("{}-{}-{year}", metric.id, country.to_ascii_lowercase()),
        &format!("distance to the frontier ({frontier_rule}) among the compared countries"),
        "target - country.value, target = frontier.value (a gross ratio's capped at 100); relative = gap / |target|",
        &[&own, &frontier],
    );
    result.gap = Some(Gap {
        country: cell(&own),
        frontier: cell(&frontier),
        frontier_rule,
        target,
        absolute_gap,
        relative_gap,
    });
    Ok(())
}
