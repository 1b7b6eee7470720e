//! Op `rank_change`: the countries ranked by their change between two years, each change cited to both
//! of its cells, with the countries that lack one of the two values listed apart.
//!
//! Where the publisher gives each value's standard error (the six WGI estimates), each change carries
//! the combined standard error of its two cells, √(se₁² + se₂²) (the two years' estimates taken as
//! independent), and whether the change exceeds [`Z_90`] times it (significant at 90 %, two-sided);
//! [`ChangeSignificance`] counts how many changes are beyond that noise.

use corpus::{Lang, Metric, Observation, analytics, derived::MetricRule, is_projection};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    ComputeInput, ComputeResult, Order, calculation, candidate_countries, comparable, default_year,
    note_projections, point, relative,
};
use crate::{
    load::Corpus,
    tools::{
        ToolError,
        display::{self, DisplayTable},
    },
};

/// The two-sided 90 % normal quantile: a change is significant at 90 % when |change| > `Z_90` × its
/// combined standard error. The same factor draws the 90 % bands of WGI series in charts.
pub const Z_90: f64 = 1.64;

/// How many changes of a ranking are beyond their noise, for indicators whose values carry standard
/// errors (WGI).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ChangeSignificance {
    /// Ranked changes whose two cells both carry a standard error.
    pub with_standard_error: usize,
    /// Of them, changes larger than [`Z_90`] times their combined standard error (significant at 90 %).
    pub significant_90: usize,
    /// Of them, changes within that band: not distinguishable from no change.
    pub within_noise: usize,
    /// The rule applied.
    pub method: String,
}

/// A ranking of the change between two years.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangeRanking {
    /// First year.
    pub from_year: i32,
    /// Last year.
    pub to_year: i32,
    /// `asc` or `desc` by the change.
    pub order: Order,
    /// Ranked countries, first is rank 1; ties share a rank.
    pub ranked: Vec<RankedChange>,
    /// How many countries were ranked (`ranked` holds the first `limit` when one was given, or the
    /// default answer's 10 KB set it).
    pub ranked_total: usize,
    /// Requested or corpus countries with values of this indicator but not in both years (not ranked).
    pub missing: Vec<String>,
    /// How many changes exceed their combined standard error; absent when no value carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub significance: Option<ChangeSignificance>,
}

/// One country's change between the two years.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RankedChange {
    /// Rank (1 = first in the order).
    pub rank: u32,
    /// ISO3.
    pub country: String,
    /// `to.value - from.value`, in the unit.
    pub change: f64,
    /// The change as a fraction of |from.value| (absent for a growth rate, an index crossing zero or a
    /// zero start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative_change: Option<f64>,
    /// The cell of `from_year`.
    pub from: YearCell,
    /// The cell of `to_year`.
    pub to: YearCell,
    /// The combined standard error of the change, √(from.standard_error² + to.standard_error²), in the
    /// unit, to 4 significant digits; absent unless both cells carry one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard_error: Option<f64>,
    /// Whether |change| > [`Z_90`] × `standard_error` (significant at 90 %); absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub significant_90: Option<bool>,
}

/// A cited cell whose country and year the enclosing object gives.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct YearCell {
    /// Value.
    pub value: f64,
    /// Citation of the value.
    pub citation_id: String,
    /// True when the value is a projection, not an observation.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub projection: bool,
    /// True when the value is the publisher's estimate of a past year (an observation it will revise).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub estimate: bool,
    /// The publisher's standard error of the value (WGI), in the unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard_error: Option<f64>,
}

/// Years `rank_change` measures over by default.
pub const RANK_CHANGE_YEARS: i32 = 10;

/// Fills `result` with the candidate countries ranked by their change from `from_year` (default
/// `to_year` - [`RANK_CHANGE_YEARS`]) to `to_year` (default: the regional year, as `rank`), best first.
///
/// # Errors
/// [`ToolError::Invalid`] for values not comparable across countries, years out of order, or years no
/// country has both of.
pub(super) fn rank_change<'c>(
    corpus: &'c Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    comparable(metric, rule, input.op)?;
    let candidates = candidate_countries(corpus, metric, input)?;
    let to_year = match input.to_year {
        Some(year) => year,
        None => default_year(corpus, metric, input, &candidates)?,
    };
    let from_year = input.from_year.unwrap_or(to_year - RANK_CHANGE_YEARS);
    if from_year >= to_year {
        return Err(ToolError::Invalid(format!(
            "from_year {from_year} must be before to_year {to_year}"
        )));
    }
    // Best first: the largest rise when up is good (and for neutral), the largest fall when down is good.
    let order = input.order.unwrap_or(match metric.good_direction {
        corpus::GoodDirection::Down => Order::Asc,
        _ => Order::Desc,
    });
    let table = corpus.baked.observations();
    let (before, after) = (
        table.cross_section(&metric.id, from_year),
        table.cross_section(&metric.id, to_year),
    );
    let find = |section: &[Observation<'c>], country: &str| {
        section
            .binary_search_by(|row| row.country.cmp(country))
            .ok()
            .map(|row_idx| section[row_idx])
    };
    let mut pairs: Vec<(Observation<'_>, Observation<'_>)> = Vec::new();
    let mut missing = Vec::new();
    for country in &candidates {
        crate::tools::cancel::checkpoint()?;
        match (find(&before, country), find(&after, country)) {
            (Some(from), Some(to)) => pairs.push((from, to)),
            _ => missing.push(country.clone()),
        }
    }
    if pairs.is_empty() {
        return Err(ToolError::Invalid(format!(
            "no country has {} values in both {from_year} and {to_year}; pick years with data (op rank shows a year's countries)",
            metric.id
        )));
    }
    let change = |(from, to): &(Observation<'_>, Observation<'_>)| to.value - from.value;
    pairs.sort_by(|left, right| {
        let by_change = change(left).total_cmp(&change(right));
        (if order == Order::Asc {
            by_change
        } else {
            by_change.reverse()
        })
        .then(left.0.country.cmp(right.0.country))
    });
    let mut ranked: Vec<RankedChange> = Vec::with_capacity(pairs.len());
    let mut notes = Vec::new();
    for (position, pair) in pairs.iter().enumerate() {
        let difference = change(pair);
        let rank = match ranked.last() {
            Some(previous) if previous.change == difference => previous.rank,
            _ => position as u32 + 1,
        };
        let measured = analytics::change(point(&pair.0), point(&pair.1));
        let standard_error = combined_standard_error(&pair.0, &pair.1);
        ranked.push(RankedChange {
            rank,
            country: pair.0.country.to_string(),
            change: difference,
            relative_change: relative(rule, measured.relative, &mut notes),
            from: year_cell(&pair.0),
            to: year_cell(&pair.1),
            // Judged on the exact value, shown to 4 significant digits (a derived number).
            standard_error: standard_error.map(|se| crate::tools::rounding::significant(se, 4)),
            significant_90: standard_error.map(|se| is_significant_90(difference, se)),
        });
    }
    let significance = significance(&ranked);
    let inputs: Vec<&Observation<'_>> = pairs.iter().flat_map(|(from, to)| [from, to]).collect();
    note_projections(&inputs, &mut notes);
    result.notes.extend(notes);
    result.calculation = calculation(
        "rankchange",
        &format!(
            "{}-{from_year}-{to_year}-{}",
            metric.id,
            if order == Order::Asc { "asc" } else { "desc" }
        ),
        "each country's change between two cited values, then a competition ranking of the changes (ties share a rank)",
        "change = to.value - from.value per country; sort by change; rank = 1 + number of countries strictly before",
        &inputs,
    );
    let ranked_total = ranked.len();
    if let Some(limit) = input.limit {
        ranked.truncate(limit as usize);
    }
    result.change_ranking = Some(ChangeRanking {
        from_year,
        to_year,
        order,
        ranked,
        ranked_total,
        missing,
        significance,
    });
    Ok(())
}

/// √(se₁² + se₂²) of two cells, when both carry a standard error.
pub fn combined_standard_error(from: &Observation<'_>, to: &Observation<'_>) -> Option<f64> {
    Some(from.standard_error?.hypot(to.standard_error?))
}

/// Whether `change` exceeds [`Z_90`] × `standard_error`.
pub fn is_significant_90(change: f64, standard_error: f64) -> bool {
    change.abs() > Z_90 * standard_error
}

/// The significance summary of `ranked`, when any change has a standard error.
fn significance(ranked: &[RankedChange]) -> Option<ChangeSignificance> {
    let judged: Vec<bool> = ranked
        .iter()
        .filter_map(|ranked| ranked.significant_90)
        .collect();
    if judged.is_empty() {
        return None;
    }
    let significant_90 = judged.iter().filter(|&&significant| significant).count();
    Some(ChangeSignificance {
        with_standard_error: judged.len(),
        significant_90,
        within_noise: judged.len() - significant_90,
        method: format!(
            "a change is significant at 90 % when |change| > {Z_90} × √(se_from² + se_to²), the publisher's standard errors of the two values taken as independent"
        ),
    })
}

/// The display table of a change ranking: rank, country, change and both values.
pub(super) fn table(result: &ComputeResult, ranking: &ChangeRanking) -> DisplayTable {
    let with_errors = ranking.significance.is_some();
    let rows = ranking
        .ranked
        .iter()
        .map(|ranked| {
            let mut row: Vec<serde_json::Value> = vec![
                ranked.rank.into(),
                ranked.country.clone().into(),
                ranked.change.into(),
                ranked.from.value.into(),
                ranked.to.value.into(),
            ];
            if with_errors {
                row.push(ranked.standard_error.into());
                row.push(ranked.significant_90.into());
            }
            row
        })
        .collect();
    let mut columns: Vec<String> = vec![
        "rank".into(),
        "country".into(),
        format!("change ({})", result.unit),
        ranking.from_year.to_string(),
        ranking.to_year.to_string(),
    ];
    if with_errors {
        columns.push("standard_error".into());
        columns.push("significant_90".into());
    }
    DisplayTable {
        title: format!(
            "{}: change {}-{}",
            result.indicator_name, ranking.from_year, ranking.to_year
        ),
        columns,
        rows,
        marks: Vec::new(),
    }
}

/// The bar chart of a change ranking, in rank order, each bar labelled with its country's name in
/// `lang`.
pub(super) fn chart(
    corpus: &Corpus,
    result: &ComputeResult,
    ranking: &ChangeRanking,
    lang: Lang,
) -> display::Chart {
    let items: Vec<(String, f64)> = ranking
        .ranked
        .iter()
        .map(|ranked| {
            (
                display::place_name(corpus, &ranked.country, lang),
                ranked.change,
            )
        })
        .collect();
    display::bar_chart(
        &format!(
            "{}: change {}-{}",
            result.indicator_name, ranking.from_year, ranking.to_year
        ),
        &format!("change ({})", result.unit),
        &items,
    )
}

/// A cell as a change ranking shows it (the country and year are the entry's).
fn year_cell(row: &Observation<'_>) -> YearCell {
    YearCell {
        value: row.value,
        citation_id: row.citation_id.to_string(),
        projection: is_projection(row.flags),
        estimate: corpus::is_estimate(row.flags),
        standard_error: row.standard_error,
    }
}
