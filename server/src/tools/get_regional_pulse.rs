//! `get_regional_pulse`: a pillar over Latin America and the Caribbean — for each of its main indicators,
//! the regional value, its change, leaders and laggards, the biggest movers, and the pillar's documented
//! source contradictions.
//!
//! Reads the observation table (`observations`), the comparison aggregates (`aggregates`), the metric
//! registry (`metrics`) and the discoveries (`discoveries`). For each indicator the year is the latest one
//! with observed values (projections left out) for at least 10 countries holding half the region's
//! population. Where the publisher publishes its own regional aggregate of that year (the World Bank's
//! LCN), it is the headline `regional_value` (`regional_value_by: "World Bank (LCN)"`, cited), and ours
//! stands beside it as `our_value`. Ours follows the indicator's declared aggregation
//! (`data/aggregation.toml` and, for WDI series, the World Bank's documented method, resolved in
//! `derived_rules.json`): a mean weighted by population or by the value's denominator (land area, GDP,
//! births, labour force, …: `weight`, with the share of the region's weight our countries hold), an
//! unweighted mean, the sum for additive counts in a common unit, the median where only that is
//! defensible; an indicator declared `none` (currency-specific levels, exchange rates, PPP factors,
//! indices with national bases) has no regional value and is listed as not aggregable, with the reason.
//! `five_years_earlier` compares the same countries in both years (those without a value then are named
//! in `left_out`, with the share of the region the rest hold). Each of our values carries a `pulse-…` id
//! whose record (method, year, the citation ids of its inputs) is inline; the values shown (leaders,
//! laggards, movers, LCN, contradictions) have their citation records in `citations`, the inputs resolve
//! through `resolve_citations`.

use std::collections::HashMap;

use corpus::{
    GoodDirection, Lang, Metric, Observation,
    analytics::{self, Aggregation},
    derived::{MetricRule, Weight, representative_year},
    frontier, is_projection,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec, answer,
    answer::{InputCells, significant},
    arguments,
    display::{self, Display, DisplayTable, SourceLink},
    paging,
};
use crate::load::Corpus;

/// Countries a year needs before it is used as the indicator's regional year.
pub const MIN_COUNTRIES: usize = corpus::derived::MIN_YEAR_COUNTRIES;
/// Indicators per page by default: headline first, then by coverage.
pub const DEFAULT_LIMIT: usize = 5;
/// The most indicators one page holds.
pub const MAX_LIMIT: usize = 10;
/// The population indicator whose values weigh the regional mean (WDI `SP.POP.TOTL`).
const POPULATION: &str = corpus::derived::POPULATION;
/// Below this share of the region, `five_years_earlier` says its countries do not stand for the region.
pub const MIN_EARLIER_COVERAGE: f64 = 0.5;
/// What `regional_value_by` says when the value is ours (no publisher aggregate that year).
pub const OURS: &str = "ours";
/// Source contradictions shown (get_discoveries lists them all).
pub const MAX_CONTRADICTIONS: usize = 3;
/// Years over which change and movers are measured.
pub const CHANGE_YEARS: i32 = 5;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_regional_pulse",
        "A pillar across Latin America and the Caribbean",
        "A pillar's main indicators across the region: the regional value (the World Bank's LCN \
         aggregate when published, else ours: `regional_value_by`), ours beside it with method \
         and weight, the 5-year change over the same countries, leaders and laggards by \
         good_direction, movers and source contradictions; each regional value has an inline \
         pulse-… record of its inputs. 5 indicators a page; `next_cursor` gives the rest.",
        &["observations", "aggregates", "metrics", "discoveries"],
        handle,
    )
    .paged(DEFAULT_LIMIT)
}

/// Arguments of `get_regional_pulse`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetRegionalPulseInput {
    /// Pillar: id or name.
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub parameter: String,
    /// Indicators per page, 1-10 (default 5).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 10))]
    #[schemars(description = "")]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub cursor: Option<String>,
    /// Rank territories too (default: the 33 sovereign countries).
    #[serde(default)]
    pub include_territories: Option<bool>,
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
    /// On the first page: the pillar's indicators with values for 10+ countries that have no regional
    /// value by rule, grouped by the reason (no number is given for them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_aggregable: Vec<NotAggregable>,
    /// The territories with values on this page: left out of leaders and laggards (the 33 sovereign
    /// countries are ranked) unless `include_territories`.
    pub territories: arguments::Territories,
    /// The pillar's 3 largest source contradictions (get_discoveries with the pillar lists every one).
    pub contradictions: Vec<ContradictionRef>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// Indicators that have no regional value, for one reason.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NotAggregable {
    /// Why their values do not form a regional value (data/aggregation.toml).
    pub reason: String,
    /// Their ids (resolve_metric or get_dataset `metrics` give names and units).
    pub indicators: Vec<String>,
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
    /// Share of the region's population in those countries, 0 to 1 at four significant digits (WDI
    /// `SP.POP.TOTL`, same year).
    pub population_share: Option<f64>,
    /// The headline regional value of `year`: the publisher's own aggregate (World Bank LCN) when it
    /// publishes one, else ours (`our_value.value`).
    pub regional_value: f64,
    /// Who formed `regional_value`: `World Bank (LCN)` or `ours`.
    pub regional_value_by: String,
    /// Citation of `regional_value`: the LCN observation, or our `pulse-…` record.
    pub regional_value_citation_id: String,
    /// The publisher's documented aggregation method (WDI series metadata: `Weighted average`, `Sum`,
    /// `Gap-filled total`, `Median`, `Unweighted average`), when the headline is the publisher's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publisher_method: Option<String>,
    /// Our own regional value of the same year, from observed values only, by the declared aggregation.
    pub our_value: OurValue,
    /// Our declared aggregation: `population_weighted_mean`, `weighted_mean` (by `our_value.weight`),
    /// `unweighted_mean`, `sum` (over the countries with a value) or `median`.
    pub method: String,
    /// Countries with a value but no weight that year, ranked but left out of a weighted mean (their
    /// weight is unknown).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unweighted: Vec<String>,
    /// Five years earlier over the SAME countries as our latest-year value: the countries without a
    /// value (or weight) then are left out of both years and named; `None` when none of them has one.
    pub five_years_earlier: Option<FiveYearsEarlier>,
    /// How leaders and laggards are ordered: `best_first` by good_direction, `highest_first` for a
    /// neutral indicator (neither end is better), or `none` when the direction is ambiguous for policy
    /// (no leaders or laggards; `direction_note` says why). Among the sovereign countries unless
    /// `include_territories`, never a value flagged suspect, a gross ratio ordered as capped at 100.
    pub ranking: String,
    /// Why the good direction is ambiguous, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction_note: Option<String>,
    /// First three: best (or highest, when neutral).
    pub leaders: Vec<CountryValue>,
    /// Last three: worst (or lowest, when neutral), last first.
    pub laggards: Vec<CountryValue>,
    /// Countries with the largest change over 5 years in the good direction (for neutral, the largest absolute).
    pub movers: Vec<Mover>,
    /// The synthetic record of our regional value.
    pub pulse: PulseRecord,
}

/// Our regional value of an indicator in one year.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OurValue {
    /// The value, in the indicator's unit (by the indicator's `method`).
    pub value: f64,
    /// The weight of a weighted mean, in words (`land area, sq. km (WDI AG.LND.TOTL.K2)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<String>,
    /// Share of the region's total of that weight held by the countries combined, 0 to 1 at four
    /// significant digits (for the
    /// unweighted methods, see `population_share`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight_share: Option<f64>,
    /// `(value - regional_value) / |regional_value|` when the headline is the publisher's, at four
    /// significant digits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative_difference: Option<f64>,
    /// Citation of our value: `pulse-{indicator}-{year}` (its record is `pulse`).
    pub citation_id: String,
}

/// The change over five years, over one set of countries.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FiveYearsEarlier {
    /// The earlier year (`year - 5`).
    pub year: i32,
    /// Countries compared (those of our latest-year value with a value, and a weight, then).
    pub countries: usize,
    /// Countries of our latest-year value without a value (or weight) five years earlier: left out of
    /// both years.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// Share of the region (of its weight in the latest year for a weighted mean, else of its
    /// population) held by the countries compared, 0 to 1 at four significant digits.
    pub coverage: Option<f64>,
    /// Said when `coverage` is under half the region: these countries do not stand for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage_note: Option<String>,
    /// Our value of the earlier year over those countries.
    pub value: f64,
    /// Our value of the latest year over the same countries, when some are `left_out` (else it is
    /// `our_value.value`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_value: Option<f64>,
    /// Latest minus earlier value over the same countries, in the unit.
    pub change: f64,
    /// The publisher's own aggregate (World Bank LCN) of the earlier year, when published: with the
    /// headline it gives the publisher's change over the whole region.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publisher_value: Option<f64>,
    /// Its citation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publisher_citation_id: Option<String>,
    /// The record of the earlier value: the same method over these countries.
    pub pulse: EarlierPulseRecord,
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
    /// Change, in the unit (at 12 significant digits: the binary noise of the difference dropped).
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

/// The record of the `pulse-…` id of the value 5 years earlier: method as in `pulse`, over the countries
/// compared, which are the latest pulse's `inputs.countries` without `five_years_earlier.left_out` (in
/// that order).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EarlierPulseRecord {
    /// `pulse-{indicator}-{year}`; exists only in this response.
    pub citation_id: String,
    /// Citation id pattern of the input values, `{iso3}` for each country compared.
    pub pattern: String,
    /// Citation id pattern of the weights, when weighted.
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
    /// Citations of both values, and of the value the right one is multiplied by (population, for a
    /// per-capita pair), when there is one.
    pub citation_ids: Vec<String>,
}

fn handle(
    corpus: &Corpus,
    input: GetRegionalPulseInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, RegionalPulse>, ToolError> {
    let pillar = arguments::pillar(corpus, &input.parameter)?;
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
    let mut rules: HashMap<&str, &MetricRule> = HashMap::new();
    for metric in &metrics {
        if let Some(rule) = corpus
            .metric_rule(&metric.id)
            .map_err(ToolError::Internal)?
        {
            rules.insert(&metric.id, rule);
        }
    }
    // Indicators declared `none` that would otherwise have had a regional value: named, with the reason.
    let mut not_aggregable: Vec<NotAggregable> = Vec::new();
    for metric in &metrics {
        let Some(rule) = rules
            .get(metric.id.as_str())
            .filter(|rule| rule.aggregation == Aggregation::None)
        else {
            continue;
        };
        if (metric.coverage.countries as usize) < MIN_COUNTRIES {
            continue;
        }
        let indicator = metric.id.clone();
        match not_aggregable
            .iter_mut()
            .find(|group| group.reason == rule.reason)
        {
            Some(group) => group.indicators.push(indicator),
            None => not_aggregable.push(NotAggregable {
                reason: rule.reason.clone(),
                indicators: vec![indicator],
            }),
        }
    }
    // The indicators with a regional year; only the page's are computed.
    metrics.retain(|metric| {
        rules.contains_key(metric.id.as_str())
            && corpus
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
    let (offset, next_cursor) = paging::page(input.cursor.as_deref(), limit, total)?;
    let mut indicators = Vec::new();
    let mut cited_rows: Vec<Observation<'_>> = Vec::new();
    let include_territories = input.include_territories.unwrap_or(false);
    let mut territories_seen: Vec<String> = Vec::new();
    for metric in metrics.into_iter().skip(offset).take(limit) {
        super::cancel::checkpoint()?;
        if let Some((pulse, rows, territories)) = indicator_pulse(
            corpus,
            metric,
            rules[metric.id.as_str()],
            lang,
            include_territories,
        ) {
            indicators.push(pulse);
            cited_rows.extend(rows);
            territories_seen.extend(territories);
        }
    }
    let territories = if include_territories {
        arguments::Territories::of(
            corpus,
            territories_seen.iter().map(String::as_str),
            std::iter::empty(),
        )
    } else {
        arguments::Territories::of(
            corpus,
            std::iter::empty(),
            territories_seen.iter().map(String::as_str),
        )
    };
    if input.cursor.is_some() {
        not_aggregable.clear();
    }
    if indicators.is_empty() && not_aggregable.is_empty() {
        return Err(ToolError::Invalid(format!(
            "no `{}` indicator has observed values for {MIN_COUNTRIES} countries in one year",
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
    let mut citations = answer::citation_records_for(corpus, &cited_rows)?;
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
    citations.extend(answer::citation_records(corpus, contradiction_ids)?);
    let result = RegionalPulse {
        parameter: pillar.id.clone(),
        parameter_name: pillar.names.get(lang).to_string(),
        indicators,
        indicators_total: total,
        next_cursor,
        not_aggregable,
        territories,
        contradictions,
        sources: vec![
            display::source_link(corpus, "observations", None),
            display::source_link(corpus, "aggregates", None),
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
                .map(|leader| {
                    (
                        display::place_name(corpus, &leader.country, lang),
                        leader.value,
                    )
                })
                .collect();
            items.push((
                if indicator.regional_value_by == OURS {
                    format!("LAC ({})", indicator.method.replace('_', " "))
                } else {
                    format!("LAC ({})", indicator.regional_value_by)
                },
                indicator.regional_value,
            ));
            items.extend(indicator.laggards.iter().rev().map(|laggard| {
                (
                    display::place_name(corpus, &laggard.country, lang),
                    laggard.value,
                )
            }));
            display::bar_chart(
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
                indicator.regional_value_by.clone().into(),
                indicator.our_value.value.into(),
                indicator.method.clone().into(),
                indicator.unit.clone().into(),
            ]
        })
        .collect();
    let columns = [
        "indicator",
        "year",
        "regional value",
        "by",
        "ours",
        "our method",
        "unit",
    ]
    .map(String::from)
    .to_vec();
    let table = DisplayTable {
        title: result.parameter_name.clone(),
        columns,
        rows,
        marks: Vec::new(),
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
        records: Vec::new(),
    })
}

/// The pulse of one indicator, with every row it cites (values, weights, earlier values, LCN); `None`
/// when no year has observed values for [`MIN_COUNTRIES`] countries or the rule gives no regional value.
fn indicator_pulse<'c>(
    corpus: &'c Corpus,
    metric: &Metric,
    rule: &MetricRule,
    lang: Lang,
    include_territories: bool,
) -> Option<(IndicatorPulse, Vec<Observation<'c>>, Vec<String>)> {
    let table = corpus.baked.observations();
    // Among the years with observed values for MIN_COUNTRIES countries or more (the bake's year
    // statistics), the latest whose countries hold half the region's population.
    let stats = representative_year(corpus.year_stats_for(&metric.id).ok()?)?;
    let (year, population_share) = (stats.year, stats.population_share);
    let earlier_year = year - CHANGE_YEARS;
    // Cross-sections come by country code, the order in which the bake's year statistics add them up;
    // projections are not observations and stay out, as in the bake.
    let observed = |indicator: &str, year: i32| -> Vec<Observation<'c>> {
        table
            .cross_section(indicator, year)
            .into_iter()
            .filter(|row| !is_projection(row.flags))
            .collect()
    };
    let cells = observed(&metric.id, year);
    let earlier_by_country: HashMap<&str, Observation<'_>> = observed(&metric.id, earlier_year)
        .into_iter()
        .map(|row| (row.country, row))
        .collect();
    // The weight of each country in a year: the weight indicator's observation (cited) and the weight.
    let weight = rule
        .weight
        .as_ref()
        .filter(|_| rule.aggregation.is_weighted());
    let weights_in = |weight: &Weight, year: i32| -> HashMap<&str, (Observation<'_>, f64)> {
        let times: HashMap<&str, f64> =
            weight.times.as_deref().map_or_else(HashMap::new, |times| {
                observed(times, year)
                    .into_iter()
                    .map(|row| (row.country, row.value))
                    .collect()
            });
        observed(&weight.indicator, year)
            .into_iter()
            .filter_map(|row| {
                let value = weight.of(Some(row.value), times.get(row.country).copied())?;
                Some((row.country, (row, value)))
            })
            .collect()
    };
    let weights_now = weight.map_or_else(HashMap::new, |weight| weights_in(weight, year));
    // The countries combined: every one, or for a weighted mean those whose weight is known.
    let (inputs, unweighted): (Vec<Observation<'_>>, Vec<Observation<'_>>) = cells
        .iter()
        .partition(|cell| weight.is_none() || weights_now.contains_key(cell.country));
    let weight_rows = |cells: &[Observation<'_>],
                       weights: &HashMap<&str, (Observation<'c>, f64)>|
     -> Option<Vec<(Observation<'c>, f64)>> {
        weight.map(|_| cells.iter().map(|cell| weights[cell.country]).collect())
    };
    let weights = weight_rows(&inputs, &weights_now);
    let aggregate = |cells: &[Observation<'_>], weights: Option<&[(Observation<'_>, f64)]>| {
        let values: Vec<f64> = cells.iter().map(|cell| cell.value).collect();
        let weights: Option<Vec<f64>> =
            weights.map(|weights| weights.iter().map(|(_, weight)| *weight).collect());
        analytics::regional_value(rule.aggregation, &values, weights.as_deref())
    };
    let weight_cells =
        |weights: &Option<Vec<(Observation<'c>, f64)>>| -> Option<Vec<Observation<'c>>> {
            weights
                .as_ref()
                .map(|weights| weights.iter().map(|(row, _)| *row).collect())
        };
    let our_value = aggregate(&inputs, weights.as_deref())?;
    // Five years earlier over the same countries: those of our latest value with an observed value (and,
    // weighted, a weight) then; the rest are left out of both years and named.
    let weights_then = weight.map_or_else(HashMap::new, |weight| weights_in(weight, earlier_year));
    let (kept, left_out): (Vec<Observation<'_>>, Vec<Observation<'_>>) =
        inputs.iter().partition(|cell| {
            earlier_by_country.contains_key(cell.country)
                && (weight.is_none() || weights_then.contains_key(cell.country))
        });
    let population_now: HashMap<&str, f64> = observed(POPULATION, year)
        .into_iter()
        .map(|row| (row.country, row.value))
        .collect();
    // The share of the region the kept countries hold: of the weight (latest year) for a weighted mean,
    // else of the population.
    let kept_share = |kept: &[Observation<'_>]| -> Option<f64> {
        let held = |cells: &[Observation<'_>]| -> f64 {
            cells
                .iter()
                .filter_map(|cell| match weight {
                    Some(_) => weights_now.get(cell.country).map(|(_, weight)| *weight),
                    None => population_now.get(cell.country).copied(),
                })
                .sum()
        };
        let (share, all) = match weight {
            Some(_) => (stats.weight_share?, held(&inputs)),
            None => (population_share?, held(&cells)),
        };
        (all > 0.0).then(|| share * held(kept) / all)
    };
    let publisher_row = stats.publisher.as_ref().and_then(|publisher| {
        corpus
            .baked
            .aggregates()
            .find(&metric.id, &publisher.code, year)
    });
    let earlier_publisher_row = stats.publisher.as_ref().and_then(|publisher| {
        corpus
            .baked
            .aggregates()
            .find(&metric.id, &publisher.code, earlier_year)
            .filter(|row| {
                !is_projection(row.flags)
                    && row.source == publisher_row.map_or("", |now| now.source)
            })
    });
    let five_years_earlier = (!kept.is_empty())
        .then(|| {
            let earlier_cells: Vec<Observation<'_>> = kept
                .iter()
                .map(|cell| earlier_by_country[cell.country])
                .collect();
            let earlier_weights = weight_rows(&earlier_cells, &weights_then);
            let value = aggregate(&earlier_cells, earlier_weights.as_deref())?;
            let latest_weights = weight_rows(&kept, &weights_now);
            let latest_value = aggregate(&kept, latest_weights.as_deref())?;
            let coverage = kept_share(&kept);
            let record = pulse_record(
                &metric.id,
                earlier_year,
                rule,
                &earlier_cells,
                weight_cells(&earlier_weights).as_deref(),
            );
            Some(FiveYearsEarlier {
                year: earlier_year,
                countries: kept.len(),
                left_out: left_out.iter().map(|cell| cell.country.to_string()).collect(),
                coverage: coverage.map(|share| significant(share, 4)),
                coverage_note: coverage.filter(|share| *share < MIN_EARLIER_COVERAGE).map(|share| {
                    format!(
                        "the {} countries with a value in both years hold {:.0} % of the region's {}: they do not stand for Latin America and the Caribbean",
                        kept.len(),
                        share * 100.0,
                        weight.map_or("population", |weight| weight.name.as_str()).replace('_', " ")
                    )
                }),
                value: significant(value, 12),
                latest_value: (!left_out.is_empty()).then_some(significant(latest_value, 12)),
                change: significant(latest_value - value, 12),
                publisher_value: earlier_publisher_row.map(|row| row.value),
                publisher_citation_id: earlier_publisher_row.map(|row| row.citation_id.to_string()),
                pulse: EarlierPulseRecord {
                    citation_id: record.citation_id,
                    pattern: record.inputs.pattern,
                    weights: record.inputs.weights,
                },
            })
        })
        .flatten();
    // Leaders and laggards by the frontier rule, as the bake's year statistics: sovereign countries
    // unless territories are asked for, no suspect value, a gross ratio ordered as capped; none for an
    // ambiguous direction.
    let candidates: Vec<frontier::Candidate<'_>> =
        cells.iter().map(frontier::Candidate::from).collect();
    let ranked: Vec<&Observation<'_>> = frontier::ranked(
        corpus.baked.countries(),
        metric.good_direction,
        frontier::target_cap(metric),
        &candidates,
        include_territories,
    )
    .into_iter()
    .map(|idx| &cells[idx])
    .collect();
    let registry = corpus.baked.countries();
    let territory = |code: &str| registry.get(code).is_some_and(|country| !country.sovereign);
    let territories: Vec<String> = cells
        .iter()
        .map(|cell| cell.country)
        .filter(|code| territory(code))
        .map(str::to_string)
        .collect();
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
                change: significant(cell.value - before.value, 12),
                citation_ids: [before.citation_id.to_string(), cell.citation_id.to_string()],
            };
            Some((mover, [before, *cell]))
        })
        .collect();
    let goodness = |change: f64| match metric.good_direction {
        GoodDirection::Up => change,
        GoodDirection::Down => -change,
        GoodDirection::Neutral | GoodDirection::Ambiguous => change.abs(),
    };
    movers.sort_by(|(left, _), (right, _)| {
        goodness(right.change)
            .total_cmp(&goodness(left.change))
            .then(left.country.cmp(&right.country))
    });
    movers.truncate(3);
    let (movers, movers_cells): (Vec<Mover>, Vec<[Observation<'_>; 2]>) =
        movers.into_iter().unzip();
    // Records for the values shown; the inputs of the regional values are listed by id in their records.
    let cited: Vec<Observation<'_>> = ranked
        .iter()
        .take(3)
        .chain(ranked.iter().rev().take(3))
        .map(|row| **row)
        .chain(movers_cells.into_iter().flatten())
        .chain(publisher_row)
        .chain(earlier_publisher_row)
        .collect();
    let pulse_id = format!("pulse-{}-{year}", metric.id);
    let pulse = IndicatorPulse {
        id: metric.id.clone(),
        name: metric.names.get(lang).to_string(),
        unit: metric.unit.clone(),
        good_direction: metric.good_direction,
        year,
        countries: cells.len(),
        population_share: population_share.map(|share| significant(share, 4)),
        regional_value: publisher_row.map_or(our_value, |row| row.value),
        regional_value_by: stats
            .publisher
            .as_ref()
            .filter(|_| publisher_row.is_some())
            .map_or(OURS.to_string(), |publisher| publisher.by.clone()),
        regional_value_citation_id: publisher_row
            .map_or(pulse_id.clone(), |row| row.citation_id.to_string()),
        publisher_method: stats
            .publisher
            .as_ref()
            .filter(|_| publisher_row.is_some())
            .and_then(|publisher| publisher.method.clone()),
        our_value: OurValue {
            value: our_value,
            weight: weight.map(|weight| weight.description.clone()),
            weight_share: weight
                .and(stats.weight_share)
                .map(|share| significant(share, 4)),
            relative_difference: publisher_row.map(|row| {
                if row.value == 0.0 {
                    if our_value == 0.0 { 0.0 } else { f64::INFINITY }
                } else {
                    significant((our_value - row.value) / row.value.abs(), 4)
                }
            }),
            citation_id: pulse_id,
        },
        method: rule.aggregation.as_str().to_string(),
        unweighted: unweighted
            .iter()
            .map(|cell| cell.country.to_string())
            .collect(),
        five_years_earlier,
        ranking: match metric.good_direction {
            GoodDirection::Neutral => "highest_first".into(),
            GoodDirection::Ambiguous => "none".into(),
            GoodDirection::Up | GoodDirection::Down => "best_first".into(),
        },
        direction_note: rule.direction_note.clone(),
        leaders,
        laggards,
        movers,
        pulse: pulse_record(
            &metric.id,
            year,
            rule,
            &inputs,
            weight_cells(&weights).as_deref(),
        ),
    };
    Some((pulse, cited, territories))
}

/// The record of a regional value: how it was formed and the citation ids of its inputs (values, then
/// weights; for a weight that is a product, the first factor's, e.g. the crude birth rate of `births`).
/// The share of the region those countries hold is beside it (`our_value.weight_share`,
/// `population_share`, `five_years_earlier.coverage`), not repeated in the prose.
fn pulse_record(
    indicator: &str,
    year: i32,
    rule: &MetricRule,
    cells: &[Observation<'_>],
    weights: Option<&[Observation<'_>]>,
) -> PulseRecord {
    let weight = rule.weight.as_ref();
    PulseRecord {
        citation_id: format!("pulse-{indicator}-{year}"),
        method: match rule.aggregation {
            Aggregation::PopulationWeightedMean | Aggregation::WeightedMean => format!(
                "mean of the observed values of {} countries weighted by {} (same year): {}",
                cells.len(),
                weight.map_or("population (WDI SP.POP.TOTL)", |weight| weight
                    .description
                    .as_str()),
                rule.declared_by
            ),
            Aggregation::UnweightedMean => format!(
                "unweighted mean of the observed values of {} countries, each counting once: {}",
                cells.len(),
                rule.declared_by
            ),
            Aggregation::Sum => format!(
                "sum of the observed values of the {} countries with one: {}",
                cells.len(),
                rule.reason
            ),
            Aggregation::Median | Aggregation::None => {
                format!("median of the countries' observed values: {}", rule.reason)
            }
        },
        inputs: InputCells::of(cells, weights),
    }
}
