//! Op `rank`: the countries ranked by their value in one year (competition ranking: ties share a rank),
//! with the countries that have no value that year listed apart.

use corpus::{Metric, Observation, derived::MetricRule};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    Cell, ComputeInput, ComputeResult, Order, calculation, candidate_countries, cell, comparable,
    default_year, note_projections,
};
use crate::{
    load::Corpus,
    tools::{
        ToolError,
        display::{self, DisplayTable},
    },
};

/// A ranking.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Ranking {
    /// Year ranked.
    pub year: i32,
    /// `asc` or `desc`.
    pub order: Order,
    /// Ranked cells, first is rank 1; ties share a rank.
    pub ranked: Vec<RankedCell>,
    /// Requested or corpus countries with values of this indicator but none in this year (not ranked).
    pub missing: Vec<String>,
}

/// One ranked cell.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RankedCell {
    /// Rank (1 = first in the order).
    pub rank: u32,
    /// The cell.
    #[serde(flatten)]
    pub cell: Cell,
}

/// Fills `result` with the ranking of the candidate countries in `input.year` (default: the regional
/// year, or the latest of the countries given), best first by the indicator's good direction unless
/// `order` says otherwise.
///
/// # Errors
/// [`ToolError::Invalid`] for values not comparable across countries, or a year no country has.
pub(super) fn rank(
    corpus: &Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    comparable(metric, rule, input.op)?;
    let candidates = candidate_countries(corpus, metric, input)?;
    let year = match input.year {
        Some(year) => year,
        None => default_year(corpus, metric, input, &candidates)?,
    };
    let order = input.order.unwrap_or(match metric.good_direction {
        corpus::GoodDirection::Down => Order::Asc,
        _ => Order::Desc,
    });
    let section = corpus.baked.observations().cross_section(&metric.id, year);
    let mut cells: Vec<Observation<'_>> = Vec::new();
    let mut missing = Vec::new();
    for country in &candidates {
        match section.binary_search_by(|row| row.country.cmp(country)) {
            Ok(row_idx) => cells.push(section[row_idx]),
            Err(_) => missing.push(country.clone()),
        }
    }
    if cells.is_empty() {
        return Err(ToolError::Invalid(format!(
            "no country has a {} value in {year}",
            metric.id
        )));
    }
    cells.sort_by(|left, right| {
        let by_value = left.value.total_cmp(&right.value);
        (if order == Order::Asc {
            by_value
        } else {
            by_value.reverse()
        })
        .then(left.country.cmp(right.country))
    });
    let mut ranked = Vec::with_capacity(cells.len());
    for (position, row) in cells.iter().enumerate() {
        let rank = match ranked.last() {
            Some(RankedCell { rank, cell }) if cell.value == row.value => *rank,
            _ => position as u32 + 1,
        };
        ranked.push(RankedCell {
            rank,
            cell: cell(row),
        });
    }
    let inputs: Vec<&Observation<'_>> = cells.iter().collect();
    note_projections(&inputs, &mut result.notes);
    result.calculation = calculation(
        "rank",
        &format!(
            "{}-{year}-{}",
            metric.id,
            if order == Order::Asc { "asc" } else { "desc" }
        ),
        "competition ranking (ties share a rank)",
        "sort by value; rank = 1 + number of countries strictly before",
        &inputs,
    );
    result.ranking = Some(Ranking {
        year,
        order,
        ranked,
        missing,
    });
    Ok(())
}

/// The display table of a ranking: rank, country, value.
pub(super) fn table(result: &ComputeResult, ranking: &Ranking) -> DisplayTable {
    let rows = ranking
        .ranked
        .iter()
        .map(|ranked| {
            vec![
                ranked.rank.into(),
                ranked.cell.country.clone().into(),
                ranked.cell.value.into(),
            ]
        })
        .collect();
    DisplayTable {
        title: format!("{} ({})", result.indicator_name, ranking.year),
        columns: vec!["rank".into(), "country".into(), result.unit.clone()],
        rows,
    }
}

/// The bar chart of a ranking, in rank order.
pub(super) fn chart(result: &ComputeResult, ranking: &Ranking) -> display::Chart {
    let items: Vec<(String, f64)> = ranking
        .ranked
        .iter()
        .map(|ranked| (ranked.cell.country.clone(), ranked.cell.value))
        .collect();
    display::bar_chart(
        &format!("{} ({})", result.indicator_name, ranking.year),
        &result.unit,
        &items,
    )
}
