//! Op `correlation`: Pearson's r, n and two-sided p-value between two indicators, across countries in one
//! year or across the years of one country, on observed values only (as the bake's `correlations`).

use corpus::{Metric, Observation, analytics, derived::MetricRule, is_projection};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    ComputeInput, ComputeResult, calculation, candidate_countries, comparable, default_year,
    metric_rule, one_country, series,
};
use crate::{
    load::Corpus,
    tools::{ToolError, arguments},
};

/// A Pearson correlation.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CorrelationResult {
    /// Second indicator.
    pub indicator_b: String,
    /// `countries` (across countries in one year) or `years` (across years in one country).
    pub across: String,
    /// The year (across countries) or the country (across years).
    pub at: String,
    /// Pearson's r.
    pub r: f64,
    /// Pairs used.
    pub n: usize,
    /// Two-sided p-value of r = 0 (Student's t, n - 2 degrees of freedom).
    pub p_value: f64,
}

/// Fills `result` with Pearson's r, n and p-value of the indicator with `indicator_b`: across the
/// candidate countries in `input.year` (default: the regional year), or across the years of
/// `input.country` when one is given; observed values only.
///
/// # Errors
/// [`ToolError::Invalid`] for a method other than `pearson`, no or the same `indicator_b`, values not
/// comparable across countries, or fewer than 3 pairs with spread.
pub(super) fn correlation<'c>(
    corpus: &'c Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    if let Some(method) = input
        .method
        .as_deref()
        .filter(|method| *method != "pearson")
    {
        return Err(ToolError::Invalid(format!(
            "method `{}` for correlation: the only method is pearson",
            arguments::snippet(method)
        )));
    }
    let other_id = input.indicator_b.as_deref().ok_or_else(|| {
        ToolError::Invalid("correlation needs indicator_b, a second indicator id".into())
    })?;
    let other = arguments::metric(corpus, other_id)?;
    let other_rule = metric_rule(corpus, other)?;
    if other.id == metric.id {
        return Err(ToolError::Invalid(format!(
            "indicator_b `{}` is the indicator itself; give a second, different indicator",
            other.id
        )));
    }
    let table = corpus.baked.observations();
    let mut cells: Vec<(Observation<'_>, Observation<'_>)> = Vec::new();
    let (across, at) = if input.country.is_some() {
        let country = one_country(corpus, input)?;
        for row in series(corpus, metric, &country)? {
            if input.from_year.is_some_and(|from| row.year < from)
                || input.to_year.is_some_and(|to| row.year > to)
                || is_projection(row.flags)
            {
                continue;
            }
            // Projections are not observations: correlations use observed values only.
            if let Some(pair) = table
                .find(&other.id, &country, row.year)
                .filter(|pair| !is_projection(pair.flags))
            {
                cells.push((row, pair));
            }
        }
        ("years".to_string(), country)
    } else {
        comparable(metric, rule, input.op)?;
        comparable(other, other_rule, input.op)?;
        let candidates = candidate_countries(corpus, metric, input)?;
        let year = match input.year {
            Some(year) => year,
            None => default_year(corpus, metric, input, &candidates)?,
        };
        let lefts = table.cross_section(&metric.id, year);
        let rights = table.cross_section(&other.id, year);
        let find = |section: &[Observation<'c>], country: &str| {
            section
                .binary_search_by(|row| row.country.cmp(country))
                .ok()
                .map(|row_idx| section[row_idx])
        };
        for country in &candidates {
            if let (Some(left), Some(right)) = (find(&lefts, country), find(&rights, country))
                && !is_projection(left.flags)
                && !is_projection(right.flags)
            {
                // Projections are not observations: correlations use observed values only, as the bake does.
                cells.push((left, right));
            }
        }
        ("countries".to_string(), year.to_string())
    };
    let pairs: Vec<(f64, f64)> = cells
        .iter()
        .map(|(left, right)| (left.value, right.value))
        .collect();
    let correlation = analytics::pearson(&pairs).ok_or_else(|| {
        ToolError::Invalid(format!("a correlation needs at least 3 pairs with spread; {} and {} share {} values across {across}", metric.id, other.id, pairs.len()))
    })?;
    let inputs: Vec<&Observation<'_>> = cells
        .iter()
        .flat_map(|(left, right)| [left, right])
        .collect();
    result.calculation = calculation(
        "correlation",
        &format!("{}-{}-{}", metric.id, other.id, at.to_ascii_lowercase()),
        "Pearson correlation with a two-sided t-test of r = 0",
        "r = Sxy / sqrt(Sxx · Syy); t = r · sqrt((n - 2) / (1 - r²)); p = 2 · S_{n-2}(|t|), S the survival function of Student's t",
        &inputs,
    );
    result.correlation = Some(CorrelationResult {
        indicator_b: other.id.clone(),
        across,
        at,
        r: correlation.r,
        n: correlation.n,
        p_value: correlation.p_value,
    });
    Ok(())
}
