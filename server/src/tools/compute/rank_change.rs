//! Op `rank_change`: the countries ranked by their change between two years, each change cited to both
//! of its cells, with the countries that lack one of the two values listed apart.

use corpus::{Metric, Observation, analytics, derived::MetricRule, is_projection};
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
    /// Requested or corpus countries with values of this indicator but not in both years (not ranked).
    pub missing: Vec<String>,
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
        ranked.push(RankedChange {
            rank,
            country: pair.0.country.to_string(),
            change: difference,
            relative_change: relative(rule, measured.relative, &mut notes),
            from: year_cell(&pair.0),
            to: year_cell(&pair.1),
        });
    }
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
    result.change_ranking = Some(ChangeRanking {
        from_year,
        to_year,
        order,
        ranked,
        missing,
    });
    Ok(())
}

/// The display table of a change ranking: rank, country, change and both values.
pub(super) fn table(result: &ComputeResult, ranking: &ChangeRanking) -> DisplayTable {
    let rows = ranking
        .ranked
        .iter()
        .map(|ranked| {
            vec![
                ranked.rank.into(),
                ranked.country.clone().into(),
                ranked.change.into(),
                ranked.from.value.into(),
                ranked.to.value.into(),
            ]
        })
        .collect();
    DisplayTable {
        title: format!(
            "{}: change {}-{}",
            result.indicator_name, ranking.from_year, ranking.to_year
        ),
        columns: vec![
            "rank".into(),
            "country".into(),
            format!("change ({})", result.unit),
            ranking.from_year.to_string(),
            ranking.to_year.to_string(),
        ],
        rows,
    }
}

/// The bar chart of a change ranking, in rank order.
pub(super) fn chart(result: &ComputeResult, ranking: &ChangeRanking) -> display::Chart {
    let items: Vec<(String, f64)> = ranking
        .ranked
        .iter()
        .map(|ranked| (ranked.country.clone(), ranked.change))
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
    }
}
