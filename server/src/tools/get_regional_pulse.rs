//! `get_regional_pulse`: a pillar over Latin America and the Caribbean — for each of its main indicators,
//! the regional value, its change, leaders and laggards, the biggest movers, and the pillar's documented
//! source contradictions.
//!
//! Reads the observation table (`observations`), the comparison aggregates (`aggregates`), the metric
//! registry (`metrics`) and the discoveries (`discoveries`). For each indicator the year is the latest one
//! with values for at least 10 countries. The regional value is the population-weighted mean (weights:
//! WDI `SP.POP.TOTL` of the same year) when the unit is a rate, share, index or per-person quantity and
//! every country in the sample has a population; otherwise the median — the result says which. The World
//! Bank's own LCN aggregate is shown beside it when published, cited. Each regional value carries a
//! `pulse-…` id whose record (method, year, the citation ids of its inputs) is inline; the values shown
//! (leaders, laggards, movers, LCN, contradictions) have their citation records in `citations`, the
//! inputs resolve through `resolve_citations`.

use std::collections::HashMap;

use corpus::{GoodDirection, Lang, Metric, Observation, analytics, derived::representative_year};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec,
    answer::InputCells,
    common::{self, Display, DisplayTable, SourceLink},
};
use crate::load::Corpus;

/// Countries a year needs before it is used as the indicator's regional year.
pub const MIN_COUNTRIES: usize = corpus::derived::MIN_YEAR_COUNTRIES;
/// Indicators per page by default: headline first, then by coverage.
pub const DEFAULT_LIMIT: usize = 6;
/// The most indicators one page holds.
pub const MAX_LIMIT: usize = 10;
/// The population indicator whose values weigh the regional mean (WDI `SP.POP.TOTL`).
const POPULATION: &str = "sp_pop_totl";
/// Source contradictions shown (get_discoveries lists them all).
pub const MAX_CONTRADICTIONS: usize = 3;
/// Years over which change and movers are measured.
pub const CHANGE_YEARS: i32 = 5;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_regional_pulse",
        "A pillar across Latin America and the Caribbean",
        "For a pillar (parameter), its main indicators across the region: the regional value (population-weighted \
         mean for rates and per-person quantities, else median, and which), its change over 5 years, the World Bank \
         LCN aggregate beside it when published, leaders and laggards by good_direction, the biggest movers, and the \
         pillar's source contradictions. Every number is cited; each regional value has a pulse-… record inline giving its inputs as a citation id pattern and \
         countries (resolve_citations gives their values). Answer: 6 indicators a page (`limit` up to 10), headline first, under \
         24 KB; `indicators_total` and `next_cursor` (pass as `cursor`) give the rest.",
        &["observations", "aggregates", "metrics", "discoveries"],
        handle,
    )
}

/// Arguments of `get_regional_pulse`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetRegionalPulseInput {
    /// Pillar: id or name in es/en/pt.
    pub parameter: String,
    /// Indicators per page, 1 to 10 (default 6).
    #[serde(default, deserialize_with = "common::whole_number")]
    #[schemars(range(min = 1, max = 10))]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// The pulse of a pillar.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RegionalPulse {
    /// Pillar id.
    pub parameter: String,
    /// Pillar name in the requested language.
    pub parameter_name: String,
    /// This page of the pillar's indicators with a regional value: headline first, then by coverage.
    pub indicators: Vec<IndicatorPulse>,
    /// Indicators of the pillar with a regional value, on every page.
    pub indicators_total: usize,
    /// Cursor of the next page (pass it as `cursor`); absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// The pillar's 3 largest source contradictions (get_discoveries with the pillar lists every one).
    pub contradictions: Vec<ContradictionRef>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// One indicator across the region.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct IndicatorPulse {
    /// Indicator id.
    pub id: String,
    /// Name in the requested language.
    pub name: String,
    /// Unit.
    pub unit: String,
    /// Which way is an improvement.
    pub good_direction: GoodDirection,
    /// The year of the regional value: the latest year with values for 10 countries or more that hold at
    /// least half the region's population (else the year whose countries hold the largest share).
    pub year: i32,
    /// Countries in the sample.
    pub countries: usize,
    /// Share of the region's population in those countries, 0 to 1 (WDI `SP.POP.TOTL`, same year).
    pub population_share: Option<f64>,
    /// The regional value.
    pub regional_value: f64,
    /// `population_weighted_mean` or `median`.
    pub method: String,
    /// The same over the same countries 5 years earlier, when they all have values then.
    pub regional_value_5y_earlier: Option<f64>,
    /// The World Bank's own Latin America & Caribbean aggregate (LCN) of that year, when published.
    pub lcn_aggregate: Option<LcnAggregate>,
    /// How leaders and laggards are ordered: `best_first` by good_direction, or `highest_first` for a
    /// neutral indicator (neither end is better).
    pub ranking: String,
    /// First three: best (or highest, when neutral).
    pub leaders: Vec<CountryValue>,
    /// Last three: worst (or lowest, when neutral), last first.
    pub laggards: Vec<CountryValue>,
    /// Countries with the largest change over 5 years in the good direction (for neutral, the largest absolute).
    pub movers: Vec<Mover>,
    /// The synthetic record of the regional value.
    pub pulse: PulseRecord,
    /// The synthetic record of the value 5 years earlier, when there is one: the same method over the
    /// same countries as `pulse`, with the inputs of that year.
    pub pulse_5y_earlier: Option<EarlierPulseRecord>,
}

/// The World Bank's LCN aggregate of an indicator in one year.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LcnAggregate {
    /// The published value, in the indicator's unit.
    pub value: f64,
    /// Its citation.
    pub citation_id: String,
    /// Whether it measures what `regional_value` measures: true beside a population-weighted mean (the
    /// World Bank weights rates by population too); false beside a median of totals, where the World
    /// Bank publishes the regional sum.
    pub comparable: bool,
}

/// A country's value.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CountryValue {
    /// ISO3.
    pub country: String,
    /// Value.
    pub value: f64,
    /// Citation.
    pub citation_id: String,
}

/// A country's change over 5 years.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Mover {
    /// ISO3.
    pub country: String,
    /// Change, in the unit.
    pub change: f64,
    /// Citations of the earlier and the later value.
    pub citation_ids: [String; 2],
}

/// The record of a `pulse-…` id.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PulseRecord {
    /// `pulse-{indicator}-{year}`; exists only in this response.
    pub citation_id: String,
    /// How the regional value was computed.
    pub method: String,
    /// The input values and population weights, by citation id pattern and countries; resolve_citations
    /// (or get_dataset `observations`) gives their values.
    pub inputs: InputCells,
}

/// The record of the `pulse-…` id of the value 5 years earlier: method and countries as in `pulse`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EarlierPulseRecord {
    /// `pulse-{indicator}-{year}`; exists only in this response.
    pub citation_id: String,
    /// Citation id pattern of the input values, `{iso3}` for each of `pulse.inputs.countries`.
    pub pattern: String,
    /// Citation id pattern of the population weights, when weighted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
}

/// A contradiction, by reference.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ContradictionRef {
    /// Pair id.
    pub pair: String,
    /// ISO3.
    pub country: String,
    /// Year.
    pub year: i32,
    /// How many tolerances apart.
    pub tolerance_ratio: f64,
    /// Citations of both values.
    pub citation_ids: [String; 2],
}

fn handle(
    corpus: &Corpus,
    input: GetRegionalPulseInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, RegionalPulse>, ToolError> {
    let pillar = common::pillar(corpus, &input.parameter)?;
    let baked = &corpus.baked;
    let mut metrics: Vec<&Metric> = baked
        .metrics()
        .iter()
        .filter(|metric| metric.pillar == pillar.id)
        .collect();
    metrics.sort_by(|left, right| {
        right
            .headline
            .cmp(&left.headline)
            .then(right.coverage.countries.cmp(&left.coverage.countries))
            .then(left.id.cmp(&right.id))
    });
    // Read once here so an unreadable artifact is a fault, not an empty pulse.
    corpus.year_stats().map_err(ToolError::Internal)?;
    // The indicators with a regional year; only the page's are computed.
    metrics.retain(|metric| {
        corpus
            .year_stats_for(&metric.id)
            .ok()
            .and_then(representative_year)
            .is_some()
    });
    let limit = input.limit.map_or(DEFAULT_LIMIT, |limit| limit as usize);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ToolError::Invalid(format!(
            "limit {limit}: give 1 to {MAX_LIMIT} indicators per page"
        )));
    }
    let total = metrics.len();
    let (offset, next_cursor) = common::page(input.cursor.as_deref(), limit, total)?;
    let mut indicators = Vec::new();
    let mut cited_rows: Vec<Observation<'_>> = Vec::new();
    for metric in metrics.into_iter().skip(offset).take(limit) {
        if let Some((pulse, rows)) = indicator_pulse(corpus, metric, lang) {
            indicators.push(pulse);
            cited_rows.extend(rows);
        }
    }
    if indicators.is_empty() {
        return Err(ToolError::Invalid(format!(
            "no `{}` indicator has values for {MIN_COUNTRIES} countries in one year",
            pillar.id
        )));
    }
    let discoveries = corpus.discoveries().map_err(ToolError::Internal)?;
    let contradictions: Vec<ContradictionRef> = discoveries
        .contradictions
        .iter()
        .filter(|item| {
            baked
                .metric(&item.left_indicator)
                .is_some_and(|metric| metric.pillar == pillar.id)
        })
        .take(MAX_CONTRADICTIONS)
        .map(|item| ContradictionRef {
            pair: item.pair.clone(),
            country: item.country.clone(),
            year: item.year,
            tolerance_ratio: item.tolerance_ratio,
            citation_ids: item.citation_ids.clone(),
        })
        .collect();
    cited_rows.sort_unstable_by(|left, right| left.citation_id.cmp(right.citation_id));
    cited_rows.dedup_by(|left, right| left.citation_id == right.citation_id);
    let mut citations = common::citation_records_for(corpus, &cited_rows)?;
    let mut contradiction_ids: Vec<&str> = contradictions
        .iter()
        .flat_map(|item| item.citation_ids.iter().map(String::as_str))
        .filter(|id| {
            cited_rows
                .binary_search_by(|row| row.citation_id.cmp(id))
                .is_err()
        })
        .collect();
    contradiction_ids.sort_unstable();
    contradiction_ids.dedup();
    citations.extend(common::citation_records(corpus, contradiction_ids)?);
    let result = RegionalPulse {
        parameter: pillar.id.clone(),
        parameter_name: pillar.names.get(lang).to_string(),
        indicators,
        indicators_total: total,
        next_cursor,
        contradictions,
        sources: vec![
            common::source_link(corpus, "observations", None),
            common::source_link(corpus, "aggregates", None),
        ],
    };
    let charts = result
        .indicators
        .iter()
        .take(3)
        .map(|indicator| {
            let mut items: Vec<(String, f64)> = indicator
                .leaders
                .iter()
                .map(|leader| (leader.country.clone(), leader.value))
                .collect();
            items.push((
                format!("LAC ({})", indicator.method.replace('_', " ")),
                indicator.regional_value,
            ));
            items.extend(
                indicator
                    .laggards
                    .iter()
                    .rev()
                    .map(|laggard| (laggard.country.clone(), laggard.value)),
            );
            common::bar_chart(
                &format!("{} ({})", indicator.name, indicator.year),
                &indicator.unit,
                &items,
            )
        })
        .collect();
    let rows = result
        .indicators
        .iter()
        .map(|indicator| {
            vec![
                indicator.name.clone().into(),
                indicator.year.into(),
                indicator.regional_value.into(),
                indicator.method.clone().into(),
                // Shown beside the regional value only when both measure the same thing.
                indicator
                    .lcn_aggregate
                    .as_ref()
                    .filter(|lcn| lcn.comparable)
                    .map_or(serde_json::Value::Null, |lcn| lcn.value.into()),
                indicator.unit.clone().into(),
            ]
        })
        .collect();
    let columns = [
        "indicator",
        "year",
        "regional value",
        "method",
        "World Bank LCN (same method)",
        "unit",
    ]
    .map(String::from)
    .to_vec();
    let table = DisplayTable {
        title: result.parameter_name.clone(),
        columns,
        rows,
    };
    let display = Display {
        tables: vec![table],
        links: Vec::new(),
        charts,
    };
    Ok(ToolAnswer {
        result,
        citations,
        display: Some(display),
    })
}

/// The pulse of one indicator, with every row it cites (values, weights, earlier values, LCN); `None`
/// when no year has values for [`MIN_COUNTRIES`] countries.
fn indicator_pulse<'c>(
    corpus: &'c Corpus,
    metric: &Metric,
    lang: Lang,
) -> Option<(IndicatorPulse, Vec<Observation<'c>>)> {
    let table = corpus.baked.observations();
    // Among the years with values for MIN_COUNTRIES countries or more (the bake's year statistics), the
    // latest whose countries hold half the region's population.
    let stats = representative_year(corpus.year_stats_for(&metric.id).ok()?)?;
    let (year, population_share) = (stats.year, stats.population_share);
    let earlier_year = year - CHANGE_YEARS;
    // Cross-sections come by country code, the order in which the bake's year statistics add them up.
    let cells = table.cross_section(&metric.id, year);
    let earlier_by_country: HashMap<&str, Observation<'_>> = table
        .cross_section(&metric.id, earlier_year)
        .into_iter()
        .map(|row| (row.country, row))
        .collect();
    let population = |year: i32| -> HashMap<&str, Observation<'_>> {
        table
            .cross_section(POPULATION, year)
            .into_iter()
            .map(|row| (row.country, row))
            .collect()
    };
    let intensive = analytics::is_intensive_unit(&metric.unit);
    let population_now = if intensive {
        population(year)
    } else {
        HashMap::new()
    };
    let weights: Option<Vec<Observation<'_>>> = if intensive {
        cells
            .iter()
            .map(|cell| population_now.get(cell.country).copied())
            .collect()
    } else {
        None
    };
    let aggregate = |cells: &[Observation<'_>], weights: Option<&[Observation<'_>]>| {
        let values: Vec<f64> = cells.iter().map(|cell| cell.value).collect();
        let weights: Option<Vec<f64>> =
            weights.map(|weights| weights.iter().map(|weight| weight.value).collect());
        analytics::regional_value(&values, weights.as_deref())
    };
    let (regional_value, method) = aggregate(&cells, weights.as_deref())?;
    let earlier_cells: Option<Vec<Observation<'_>>> = cells
        .iter()
        .map(|cell| earlier_by_country.get(cell.country).copied())
        .collect();
    let earlier_weights: Option<Vec<Observation<'_>>> = match (&earlier_cells, intensive) {
        (Some(earlier), true) => {
            let population_then = population(earlier_year);
            earlier
                .iter()
                .map(|cell| population_then.get(cell.country).copied())
                .collect()
        }
        _ => None,
    };
    // The same method over the same countries: weighted only when the current value is.
    let earlier = match (&earlier_cells, &weights, &earlier_weights) {
        (Some(earlier), None, _) => Some((earlier, None)),
        (Some(earlier), Some(_), Some(earlier_weights)) => Some((earlier, Some(earlier_weights))),
        _ => None,
    };
    let earlier = earlier.and_then(|(cells, weights)| {
        let (value, _) = aggregate(cells, weights.map(Vec::as_slice))?;
        let record = pulse_record(&metric.id, earlier_year, cells, weights.map(Vec::as_slice));
        Some((
            value,
            EarlierPulseRecord {
                citation_id: record.citation_id,
                pattern: record.inputs.pattern,
                weights: record.inputs.weights,
            },
        ))
    });
    let mut ranked: Vec<&Observation<'_>> = cells.iter().collect();
    ranked.sort_by(|left, right| {
        let by_value = right.value.total_cmp(&left.value);
        (if metric.good_direction == GoodDirection::Down {
            by_value.reverse()
        } else {
            by_value
        })
        .then(left.country.cmp(right.country))
    });
    let value = |cell: &&Observation<'_>| CountryValue {
        country: cell.country.to_string(),
        value: cell.value,
        citation_id: cell.citation_id.to_string(),
    };
    let leaders: Vec<CountryValue> = ranked.iter().take(3).map(value).collect();
    let laggards: Vec<CountryValue> = ranked.iter().rev().take(3).map(value).collect();
    let mut movers: Vec<(Mover, [Observation<'_>; 2])> = cells
        .iter()
        .filter_map(|cell| {
            let before = *earlier_by_country.get(cell.country)?;
            let mover = Mover {
                country: cell.country.to_string(),
                change: cell.value - before.value,
                citation_ids: [before.citation_id.to_string(), cell.citation_id.to_string()],
            };
            Some((mover, [before, *cell]))
        })
        .collect();
    let goodness = |change: f64| match metric.good_direction {
        GoodDirection::Up => change,
        GoodDirection::Down => -change,
        GoodDirection::Neutral => change.abs(),
    };
    movers.sort_by(|(left, _), (right, _)| {
        goodness(right.change)
            .total_cmp(&goodness(left.change))
            .then(left.country.cmp(&right.country))
    });
    movers.truncate(3);
    let (movers, movers_cells): (Vec<Mover>, Vec<[Observation<'_>; 2]>) =
        movers.into_iter().unzip();
    let lcn_row = corpus.baked.aggregates().find(&metric.id, "LCN", year);
    let lcn_aggregate = lcn_row.map(|row| LcnAggregate {
        value: row.value,
        citation_id: row.citation_id.to_string(),
        comparable: weights.is_some(),
    });
    // Records for the values shown; the inputs of the regional values are listed by id in their records.
    let cited: Vec<Observation<'_>> = ranked
        .iter()
        .take(3)
        .chain(ranked.iter().rev().take(3))
        .map(|row| **row)
        .chain(movers_cells.into_iter().flatten())
        .chain(lcn_row)
        .collect();
    let (regional_value_5y_earlier, pulse_5y_earlier) = earlier.unzip();
    let pulse = IndicatorPulse {
        id: metric.id.clone(),
        name: metric.names.get(lang).to_string(),
        unit: metric.unit.clone(),
        good_direction: metric.good_direction,
        year,
        countries: cells.len(),
        population_share,
        regional_value,
        method: method.as_str().to_string(),
        regional_value_5y_earlier,
        lcn_aggregate,
        ranking: if metric.good_direction == GoodDirection::Neutral {
            "highest_first".into()
        } else {
            "best_first".into()
        },
        leaders,
        laggards,
        movers,
        pulse: pulse_record(&metric.id, year, &cells, weights.as_deref()),
        pulse_5y_earlier,
    };
    Some((pulse, cited))
}

/// The record of a regional value: how it was formed and the citation ids of its inputs (values, then
/// population weights).
fn pulse_record(
    indicator: &str,
    year: i32,
    cells: &[Observation<'_>],
    weights: Option<&[Observation<'_>]>,
) -> PulseRecord {
    PulseRecord {
        citation_id: format!("pulse-{indicator}-{year}"),
        method: if weights.is_some() {
            "population-weighted mean (weights: WDI SP.POP.TOTL, same year)".into()
        } else {
            "median (totals, counts or missing weights are not weighted)".into()
        },
        inputs: InputCells::of(cells, weights),
    }
}
