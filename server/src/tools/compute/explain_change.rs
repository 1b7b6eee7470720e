//! Op `explain_change`: a country's change between two years beside the concurrent changes of the
//! indicators that correlate with it across countries (the bake's precomputed correlations, p < 0.05):
//! associations, not causes.

use corpus::{Metric, Observation, analytics, derived::MetricRule, is_projection};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    ComputeInput, ComputeResult, between, calculation, note_projections, point, relative,
    two_cells_of, two_cells_slug,
};
use crate::{load::Corpus, tools::ToolError};

/// An indicator whose change over the same years sits beside the explained one.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AssociatedChange {
    /// Indicator id.
    pub indicator: String,
    /// Its change over the same years for the same country, in its unit.
    pub change: f64,
    /// Its unit.
    pub unit: String,
    /// Cross-country correlation with the explained indicator (precomputed, see get_parameter_data).
    pub r: f64,
    /// p-value of that correlation.
    pub p_value: f64,
    /// Year of that correlation.
    pub correlation_year: i32,
    /// Citations of its two cells.
    pub citation_ids: [String; 2],
}

/// Fills `result` with the change of `input.country` between two years (as op `change`) and, beside
/// it, the concurrent changes of the indicators that correlate with it across countries (p < 0.05),
/// strongest first: associations, not causes.
///
/// # Errors
/// As [`two_cells_of`], or [`ToolError::Internal`] if the precomputed correlations do not read.
pub(super) fn explain_change(
    corpus: &Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    let (country, from, to) = two_cells_of(corpus, metric, input)?;
    let change = analytics::change(point(&from), point(&to));
    let table = corpus.baked.observations();
    let mut associated: Vec<AssociatedChange> = Vec::new();
    let mut inputs = vec![from, to];
    for correlation in corpus
        .correlations()
        .map_err(ToolError::Internal)?
        .iter()
        .filter(|item| item.p_value < 0.05)
    {
        let other_id = if correlation.indicator_a == metric.id {
            &correlation.indicator_b
        } else if correlation.indicator_b == metric.id {
            &correlation.indicator_a
        } else {
            continue;
        };
        // Observed values only: a projection's change is not set beside an observed one.
        let (Some(before), Some(after)) = (
            table
                .find(other_id, &country, from.year)
                .filter(|row| !is_projection(row.flags)),
            table
                .find(other_id, &country, to.year)
                .filter(|row| !is_projection(row.flags)),
        ) else {
            continue;
        };
        let unit = corpus
            .baked
            .metric(other_id)
            .map(|other| other.unit.clone())
            .unwrap_or_default();
        associated.push(AssociatedChange {
            indicator: other_id.clone(),
            change: after.value - before.value,
            unit,
            r: correlation.r,
            p_value: correlation.p_value,
            correlation_year: correlation.year,
            citation_ids: [
                before.citation_id.to_string(),
                after.citation_id.to_string(),
            ],
        });
        inputs.extend([before, after]);
    }
    associated.sort_by(|left, right| {
        right
            .r
            .abs()
            .total_cmp(&left.r.abs())
            .then(left.indicator.cmp(&right.indicator))
    });
    let input_refs: Vec<&Observation<'_>> = inputs.iter().collect();
    result.calculation = calculation(
        "explain",
        &two_cells_slug(metric, &country, &from, &to),
        "the change beside the concurrent changes of the indicators that correlate with it across countries (p < 0.05); associations, not causes",
        "change = to.value - from.value for each indicator; r and p from the pillar's precomputed correlations",
        &input_refs,
    );
    result.absolute_change = Some(change.absolute);
    result.relative_change = relative(rule, change.relative, &mut result.notes);
    note_projections(&input_refs, &mut result.notes);
    result.between = Some(between(&from, &to));
    result.associated = Some(associated);
    Ok(())
}
