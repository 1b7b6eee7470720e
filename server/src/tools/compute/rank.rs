//! Op `rank`: the countries ranked by their value in one year (competition ranking: ties share a rank),
//! with the countries that have no value that year listed apart. The 33 sovereign countries unless
//! territories are asked for (`corpus::frontier`); a value flagged suspect (`suspect_scale`) is not
//! ranked but listed apart with its flags, so it never ranks first; every ranked cell shows its flags;
//! an indicator whose good direction is ambiguous is ordered highest first, with a note saying why no
//! end is best.

use corpus::{Lang, Metric, Observation, derived::MetricRule};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    Cell, ComputeInput, ComputeResult, Order, ambiguous_note, calculation, candidate_countries,
    cell, comparable, default_year, note_projections,
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
    /// Ranked cells, first is rank 1; ties share a rank; the first `limit` when one was given (or the
    /// default answer's 10 KB set it).
    pub ranked: Vec<RankedCell>,
    /// How many countries were ranked.
    pub ranked_total: usize,
    /// Requested or corpus countries with values of this indicator but none in this year (not ranked).
    pub missing: Vec<String>,
    /// Cells of this year flagged suspect by the governance (`suspect_scale`: a probable fraction stored
    /// as a percent), not ranked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suspect: Vec<RankedCell>,
}

/// One ranked cell.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RankedCell {
    /// Rank (1 = first in the order; 0 for a suspect cell, which is not ranked).
    pub rank: u32,
    /// The cell.
    #[serde(flatten)]
    pub cell: Cell,
    /// The observation's flags (`modelled`, `suspect_scale`), when it has any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

/// A ranked (or set-apart) cell with its flags.
fn ranked_cell(rank: u32, row: &Observation<'_>) -> RankedCell {
    RankedCell {
        rank,
        cell: cell(row),
        flags: row
            .flags
            .split('|')
            .filter(|flag| !flag.is_empty() && *flag != corpus::PROJECTION_FLAG)
            .map(str::to_string)
            .collect(),
    }
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
    let mut suspect_cells: Vec<Observation<'_>> = Vec::new();
    let mut missing = Vec::new();
    for country in &candidates {
        crate::tools::cancel::checkpoint()?;
        match section.binary_search_by(|row| row.country.cmp(country)) {
            Ok(row_idx) if corpus::frontier::is_suspect(section[row_idx].flags) => {
                suspect_cells.push(section[row_idx])
            }
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
            Some(RankedCell { rank, cell, .. }) if cell.value == row.value => *rank,
            _ => position as u32 + 1,
        };
        ranked.push(ranked_cell(rank, row));
    }
    // The suspect cells are shown, so they are cited too.
    let inputs: Vec<&Observation<'_>> = cells.iter().chain(&suspect_cells).collect();
    note_projections(&inputs, &mut result.notes);
    result.notes.extend(ambiguous_note(metric, rule));
    if !suspect_cells.is_empty() {
        result.notes.push(format!(
            "not ranked: {} flagged suspect_scale (a probable fraction stored as a percent); listed in `suspect`",
            suspect_cells
                .iter()
                .map(|row| row.country)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
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
    let ranked_total = ranked.len();
    if let Some(limit) = input.limit {
        ranked.truncate(limit as usize);
    }
    result.ranking = Some(Ranking {
        year,
        order,
        ranked,
        ranked_total,
        missing,
        suspect: suspect_cells
            .iter()
            .map(|row| ranked_cell(0, row))
            .collect(),
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
        marks: Vec::new(),
    }
}

/// The bar chart of a ranking, in rank order, each bar labelled with its country's name in `lang`.
pub(super) fn chart(
    corpus: &Corpus,
    result: &ComputeResult,
    ranking: &Ranking,
    lang: Lang,
) -> display::Chart {
    let items: Vec<(String, f64)> = ranking
        .ranked
        .iter()
        .map(|ranked| {
            (
                display::place_name(corpus, &ranked.cell.country, lang),
                ranked.cell.value,
            )
        })
        .collect();
    display::bar_chart(
        &format!("{} ({})", result.indicator_name, ranking.year),
        &result.unit,
        &items,
    )
}
