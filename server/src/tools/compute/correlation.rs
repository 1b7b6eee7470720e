//! Op `correlation`: Pearson's r, n and two-sided p-value between two indicators, across countries in one
//! year or across the years of one country, on observed values only (as the bake's `correlations`), with
//! the years it spans and what can drive it: across countries the size check
//! (`corpus::derived::size_check`, flag `size_confounded`), across years a common-trend check (both
//! series trend over time: r of their year-over-year changes beside it, and a warning).

use corpus::{
    Metric, Observation, analytics,
    derived::{MetricRule, SIZE_INDICATOR, SizeCheck, size_check, size_warning},
    is_projection,
};
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
    /// First and last year of the pairs (the same year twice across countries).
    pub years: (i32, i32),
    /// Across countries: whether country size can drive r (`size_check.confounded`); false across years.
    pub size_confounded: bool,
    /// Across countries: each indicator's r with population (WDI `SP.POP.TOTL`, same year), r with
    /// population held fixed and over ranks; absent across years or with fewer than 10 populations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_check: Option<SizeCheck>,
    /// Across years: whether both series trend over time, and r of their year-over-year changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub common_trend: Option<CommonTrend>,
    /// Why r may not be a relation between the two: country size, or a common trend over time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// |r| with the year from which a series counts as trending, for [`CommonTrend`].
pub const TREND_R: f64 = 0.5;

/// The common-trend check of a correlation across years: two series that both rise or fall over time
/// correlate whatever links them, so r of their year-over-year changes is the one to read.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct CommonTrend {
    /// Pearson r of the first indicator with the year.
    pub r_a_year: f64,
    /// Pearson r of the second indicator with the year.
    pub r_b_year: f64,
    /// Whether both trend (|r with the year| ≥ 0.5 each): then r is driven by time.
    pub both_trend: bool,
    /// Pearson r of the year-over-year changes (consecutive years with both values); absent with fewer
    /// than 3 such changes or no spread.
    pub r_of_changes: Option<f64>,
    /// Its p-value.
    pub p_of_changes: Option<f64>,
    /// Changes paired.
    pub n_changes: usize,
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
            None => {
                let usual = default_year(corpus, metric, input, &candidates)?;
                let (year, shared) = shared_year(corpus, metric, other, &candidates, usual);
                result.notes.push(format!(
                    "year {year} (no `year` given): {shared} countries hold observed values of both{}",
                    if year == usual {
                        String::new()
                    } else {
                        format!(
                            "; the indicator's usual year, {usual}, has fewer than {SHARED_COUNTRIES}, so the latest year with at least {SHARED_COUNTRIES} (or with the most) is used"
                        )
                    }
                ));
                year
            }
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
            crate::tools::cancel::checkpoint()?;
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
    let years = (
        cells
            .iter()
            .map(|(left, _)| left.year)
            .min()
            .unwrap_or_default(),
        cells
            .iter()
            .map(|(left, _)| left.year)
            .max()
            .unwrap_or_default(),
    );
    let correlation = analytics::pearson(&pairs).ok_or_else(|| {
        ToolError::Invalid(format!("a correlation needs at least 3 pairs with spread; {} and {} share {} observed values across {across} ({at}): give another `year`", metric.id, other.id, pairs.len()))
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
    let (size, common_trend) = if across == "countries" {
        // Country size: each country's population the same year.
        let triples: Vec<(f64, f64, f64)> = cells
            .iter()
            .filter_map(|(left, right)| {
                let population = table.find(SIZE_INDICATOR, left.country, left.year)?;
                Some((left.value, right.value, population.value))
            })
            .collect();
        (size_check(&triples, correlation.r), None)
    } else {
        (None, common_trend(&cells))
    };
    let warning = match (&size, &common_trend) {
        (Some(check), _) if check.confounded => Some(size_warning(check)),
        (_, Some(trend)) if trend.both_trend => Some(format!(
            "both series trend over {}-{} (r with the year {:.2} and {:.2}), so r {:.3} (p {:.1e}) reflects a \
             common trend, not a relation; the year-over-year changes correlate at r {} over {} changes",
            years.0,
            years.1,
            trend.r_a_year,
            trend.r_b_year,
            correlation.r,
            correlation.p_value,
            trend
                .r_of_changes
                .map_or("undefined".to_string(), |r| format!("{r:.3}")),
            trend.n_changes
        )),
        _ => None,
    };
    result.correlation = Some(CorrelationResult {
        indicator_b: other.id.clone(),
        across,
        at,
        r: correlation.r,
        n: correlation.n,
        p_value: correlation.p_value,
        years,
        size_confounded: size.is_some_and(|check| check.confounded),
        size_check: size,
        common_trend,
        warning,
    });
    Ok(())
}

/// The common-trend check of the (left, right) cells of one country, in year order.
fn common_trend(cells: &[(Observation<'_>, Observation<'_>)]) -> Option<CommonTrend> {
    let with_year = |pick: fn(&(Observation<'_>, Observation<'_>)) -> f64| -> Option<f64> {
        let points: Vec<(f64, f64)> = cells
            .iter()
            .map(|cell| (f64::from(cell.0.year), pick(cell)))
            .collect();
        analytics::pearson(&points).map(|correlation| correlation.r)
    };
    let r_a_year = with_year(|cell| cell.0.value)?;
    let r_b_year = with_year(|cell| cell.1.value)?;
    let changes: Vec<(f64, f64)> = cells
        .windows(2)
        .filter(|pair| pair[1].0.year - pair[0].0.year == 1)
        .map(|pair| {
            (
                pair[1].0.value - pair[0].0.value,
                pair[1].1.value - pair[0].1.value,
            )
        })
        .collect();
    let of_changes = analytics::pearson(&changes);
    Some(CommonTrend {
        r_a_year,
        r_b_year,
        both_trend: r_a_year.abs() >= TREND_R && r_b_year.abs() >= TREND_R,
        r_of_changes: of_changes.map(|correlation| correlation.r),
        p_of_changes: of_changes.map(|correlation| correlation.p_value),
        n_changes: changes.len(),
    })
}

/// The countries a default year of a correlation across countries should have values of both indicators
/// for.
pub const SHARED_COUNTRIES: usize = 10;

/// The year of a correlation across `candidates` when none is given, and how many of them hold observed
/// values of both `metric` and `other` that year: `usual` (the indicator's default year) when
/// [`SHARED_COUNTRIES`] share it, else the latest year [`SHARED_COUNTRIES`] share, else the year most
/// share (the latest of ties), else `usual`.
fn shared_year(
    corpus: &Corpus,
    metric: &Metric,
    other: &Metric,
    candidates: &[String],
    usual: i32,
) -> (i32, usize) {
    let table = corpus.baked.observations();
    let mut shared: std::collections::BTreeMap<i32, usize> = std::collections::BTreeMap::new();
    for country in candidates {
        for row_idx in table.series(&metric.id, country) {
            let row = table.row(row_idx);
            if !is_projection(row.flags)
                && table
                    .find(&other.id, country, row.year)
                    .is_some_and(|right| !is_projection(right.flags))
            {
                *shared.entry(row.year).or_default() += 1;
            }
        }
    }
    let at_usual = shared.get(&usual).copied().unwrap_or(0);
    if at_usual >= SHARED_COUNTRIES {
        return (usual, at_usual);
    }
    if let Some((year, count)) = shared
        .iter()
        .rev()
        .find(|(_, count)| **count >= SHARED_COUNTRIES)
    {
        return (*year, *count);
    }
    shared
        .iter()
        .max_by_key(|(year, count)| (**count, **year))
        .map_or((usual, at_usual), |(year, count)| (*year, *count))
}
