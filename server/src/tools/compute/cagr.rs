//! Op `cagr`: the compound annual growth rate of one country's value between two years, as a fraction
//! and a percentage, cited to both cells; refused for a growth rate or an index crossing zero, with what
//! to use instead.

use corpus::{Metric, analytics, derived::MetricRule};

use super::{
    ComputeInput, ComputeResult, between, calculation, note_projections, point, two_cells_of,
    two_cells_slug,
};
use crate::{load::Corpus, tools::ToolError};

/// Fills `result` with the CAGR of `input.country` from `from_year` to `to_year` (default: its first
/// and last observations).
///
/// # Errors
/// [`ToolError::Invalid`] for a scale that rules CAGR out, for a non-positive value, or as
/// [`two_cells_of`].
pub(super) fn cagr(
    corpus: &Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    if let Some(refusal) = rule.scale.cagr_refusal() {
        return Err(ToolError::Invalid(format!(
            "{refusal} ({} is in {}: {})",
            metric.id, metric.unit, rule.reason
        )));
    }
    let (country, from, to) = two_cells_of(corpus, metric, input)?;
    let cagr = analytics::cagr(point(&from), point(&to)).ok_or_else(|| {
        ToolError::Invalid(format!(
            "CAGR is undefined for {} {}: {} in {} and {} in {} (both values must be positive)",
            metric.id, country, from.value, from.year, to.value, to.year
        ))
    })?;
    result.cagr = Some(cagr);
    result.cagr_percent = Some(cagr * 100.0);
    result.calculation = calculation(
        "cagr",
        &two_cells_slug(metric, &country, &from, &to),
        "compound annual growth rate",
        "(to.value / from.value)^(1 / (to.year - from.year)) - 1",
        &[&from, &to],
    );
    note_projections(&[&from, &to], &mut result.notes);
    result.between = Some(between(&from, &to));
    Ok(())
}
