//! Op `change`: the absolute and relative change of one country's value between two years, cited to
//! both cells (the relative change left out, with a note, where the indicator's scale rules it out).

use corpus::{Metric, analytics, derived::MetricRule};

use super::{
    ComputeInput, ComputeResult, between, calculation, note_projections, point, relative,
    two_cells_of, two_cells_slug,
};
use crate::{load::Corpus, tools::ToolError};

/// Fills `result` with the change of `input.country` from `from_year` to `to_year` (default: its first
/// and last observations).
///
/// # Errors
/// As [`two_cells_of`]: no country, no value in a year asked for, or years out of order.
pub(super) fn change(
    corpus: &Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    let (country, from, to) = two_cells_of(corpus, metric, input)?;
    let change = analytics::change(point(&from), point(&to));
    result.absolute_change = Some(change.absolute);
    result.relative_change = relative(rule, change.relative, &mut result.notes);
    result.calculation = calculation(
        "change",
        &two_cells_slug(metric, &country, &from, &to),
        "difference of two cited values",
        "to.value - from.value; relative = (to - from) / |from|",
        &[&from, &to],
    );
    note_projections(&[&from, &to], &mut result.notes);
    result.between = Some(between(&from, &to));
    Ok(())
}
