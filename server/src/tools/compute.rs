//! `compute`: a reproducible calculation on governed data, cited to its exact input cells.
//!
//! Reads the observation table (`observations`) and the metric registry (`metrics`). Ops: `change` and
//! `cagr` between two years of one country, `rank` of the countries in a year, `rank_change` of the
//! countries by their change between two years (each change cited to both cells), `gap_to_frontier` of a
//! country against the best (or max/min) country in a year, `forecast` (ordinary least-squares trend with
//! a 95 % prediction interval), `correlation` (Pearson r, n and two-sided p-value between two indicators
//! across countries in a year, or across years in one country). The arithmetic is `corpus::analytics`,
//! the same code the bake uses. Each result carries a `calc-…` id whose record (method, formula, input
//! citation ids) is inline in `result.calculation`; the input cells are in `citations`.
//!
//! The derived-figure rules of the bake (`derived_rules.json`, from `data/aggregation.toml`) apply here
//! too: default years are observed ones and a cell that is a projection is labelled (`projection`, and a
//! note); `cagr` of a growth rate or of an index crossing zero is refused with what to use instead, and so
//! is a relative change (left out, with a note); values in each country's own currency or base are not
//! ranked, compared with a frontier or correlated across countries.

use corpus::{
    Lang, Metric, Observation,
    analytics::{self, Point},
    derived::{MAX_FORECAST_HORIZON, MetricRule, TREND_YEARS, representative_year},
    is_projection,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec,
    common::{self, Display, DisplayTable, SourceLink},
};
use crate::load::Corpus;

/// R² under which a forecast carries a warning that the linear trend explains little.
pub const POOR_FIT_R_SQUARED: f64 = 0.5;

/// Years the year arguments accept (the input schema's range).
pub const YEARS: std::ops::RangeInclusive<i32> = 1900..=2100;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "compute",
        "Reproducible calculation cited to its input cells",
        "Computes on governed data and cites every input cell: `change` (absolute and relative, country, from_year \
         to to_year), `cagr` (compound annual growth rate, fraction and percent), `rank` (countries in a year; order \
         asc|desc, default best first by good_direction), `gap_to_frontier` (a country's distance to the best country \
         in a year, or frontier max|min), `forecast` (least-squares trend of a country's series with a 95% prediction \
         interval for to_year), `correlation` (Pearson r, n and p-value with indicator_b across countries in a year, or \
         across years for one country), `explain_change` (a country's change beside the concurrent changes of the \
         indicators correlated with it across countries: associations, not causes), `rank_change` (countries ranked by \
         their change from from_year to to_year, default the 10 years to the regional year, best first; each change \
         cited to both cells). Years default to the earliest and latest observed; a projection is labelled. cagr of a \
         growth rate or of an index crossing zero, and cross-country ops on values in national currency or bases, are \
         refused with what to use instead. `parameter` is optional. Answer: the result with a calc-… \
         record listing its input ids, under 8 KB (rank and rank_change: every country, under 40 KB).",
        &["observations", "metrics"],
        handle,
    )
}

/// Which calculation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Change of a country's value between two years.
    Change,
    /// Compound annual growth rate of a country's value between two years.
    Cagr,
    /// Rank of the countries in one year.
    Rank,
    /// A country's gap to the frontier country in one year.
    GapToFrontier,
    /// Linear-trend forecast of a country's series with a prediction interval.
    Forecast,
    /// Pearson correlation between two indicators.
    Correlation,
    /// A country's change between two years beside the concurrent changes of the pillar's indicators that
    /// correlate with it across countries (associations, not causes).
    ExplainChange,
    /// The countries ranked by their change between two years, each change cited to both cells.
    RankChange,
}

impl Op {
    /// The op's name on the wire (`gap_to_frontier`).
    pub fn name(self) -> &'static str {
        match self {
            Op::Change => "change",
            Op::Cagr => "cagr",
            Op::Rank => "rank",
            Op::GapToFrontier => "gap_to_frontier",
            Op::Forecast => "forecast",
            Op::Correlation => "correlation",
            Op::ExplainChange => "explain_change",
            Op::RankChange => "rank_change",
        }
    }
}

/// Sort order of `rank`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Smallest value first.
    Asc,
    /// Largest value first.
    Desc,
}

/// Arguments of `compute`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComputeInput {
    /// The calculation.
    pub op: Op,
    /// Pillar of the indicator (optional: the indicator fixes it); a wrong one is refused by name.
    #[serde(default)]
    pub parameter: Option<String>,
    /// Indicator id from resolve_metric.
    pub indicator: String,
    /// Country (ISO3 or name) for change, cagr, gap_to_frontier, forecast, and correlation across years.
    #[serde(default)]
    pub country: Option<String>,
    /// Countries to rank (rank, rank_change) or correlate across (default: every country with data).
    #[serde(default)]
    pub countries: Option<Vec<String>>,
    /// First year (change, cagr, rank_change, forecast fit, correlation across years); default the earliest
    /// observed (forecast: the last 10 observed years, as the precomputed forecasts; rank_change: to_year - 10).
    #[serde(default, deserialize_with = "common::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub from_year: Option<i32>,
    /// Last year (change, cagr, rank_change, correlation across years), or the year to forecast (at most 10
    /// years after the last observed year); default the latest observed (forecast: latest + 5; rank_change:
    /// the regional year, as rank).
    #[serde(default, deserialize_with = "common::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub to_year: Option<i32>,
    /// Year of rank, gap_to_frontier and correlation across countries; default the latest year with data.
    #[serde(default, deserialize_with = "common::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub year: Option<i32>,
    /// Order of rank and rank_change: asc or desc; default best first by the indicator's good_direction
    /// (rank_change: the largest improvement first; desc when neutral).
    #[serde(default)]
    pub order: Option<Order>,
    /// Frontier of gap_to_frontier: `best` (by good_direction, default), `max` or `min`.
    #[serde(default)]
    pub frontier: Option<String>,
    /// Method: `pearson` for correlation, `ols` for forecast (the only ones offered).
    #[serde(default)]
    pub method: Option<String>,
    /// Second indicator id of correlation.
    #[serde(default)]
    pub indicator_b: Option<String>,
}

/// The calculation's answer; the section named by `op` is filled.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ComputeResult {
    /// The op computed.
    pub op: Op,
    /// Indicator id.
    pub indicator: String,
    /// Indicator name in the requested language.
    pub indicator_name: String,
    /// Unit of the indicator's values.
    pub unit: String,
    /// The synthetic citation of this calculation, with its record inline.
    pub calculation: Calculation,
    /// `change` and `cagr`: the two cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub between: Option<Between>,
    /// `change`: absolute change in the unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absolute_change: Option<f64>,
    /// `change`: relative change as a fraction (absent when the first value is 0, or when the indicator
    /// is a growth rate or an index crossing zero: see `notes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative_change: Option<f64>,
    /// `cagr`: compound annual growth rate as a fraction per year.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cagr: Option<f64>,
    /// `cagr`: the same as a percentage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cagr_percent: Option<f64>,
    /// `rank`: the ranking, and countries without a value that year.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranking: Option<Ranking>,
    /// `rank_change`: the countries ranked by their change, and countries without both values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_ranking: Option<ChangeRanking>,
    /// `gap_to_frontier`: the country, the frontier and the gap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<Gap>,
    /// `forecast`: the fitted trend and the forecast.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forecast: Option<ForecastResult>,
    /// `correlation`: r, n, p-value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correlation: Option<CorrelationResult>,
    /// `explain_change`: the associated indicators' concurrent changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub associated: Option<Vec<AssociatedChange>>,
    /// What the reader must know: a cell that is a projection, a statistic the indicator's scale rules out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// A synthetic, per-response citation: what was computed from which cells.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Calculation {
    /// `calc-{op}-{indicator}-…`; exists only in this response (resolve_citations reports it unresolved).
    pub citation_id: String,
    /// The method, in words.
    pub method: String,
    /// The formula applied.
    pub formula: String,
    /// Citation ids of every input cell; their records are in `citations`, except for a correlation,
    /// whose many inputs resolve through resolve_citations.
    pub inputs: Vec<String>,
}

/// One cited cell.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Cell {
    /// ISO3.
    pub country: String,
    /// Year.
    pub year: i32,
    /// Value.
    pub value: f64,
    /// Citation of the value.
    pub citation_id: String,
    /// True when the value is a projection (an estimate of the publisher), not an observation.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub projection: bool,
}

/// The two cells of a change.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Between {
    /// First cell.
    pub from: Cell,
    /// Second cell.
    pub to: Cell,
}

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

/// A gap to the frontier.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Gap {
    /// The country's cell.
    pub country: Cell,
    /// The frontier's cell.
    pub frontier: Cell,
    /// How the frontier was chosen: best, max or min.
    pub frontier_rule: String,
    /// `frontier - country`, in the unit.
    pub absolute_gap: f64,
    /// The gap as a fraction of |frontier| (null when the frontier is 0, or when the indicator is a growth
    /// rate or an index crossing zero).
    pub relative_gap: Option<f64>,
}

/// A linear-trend forecast.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ForecastResult {
    /// Country.
    pub country: String,
    /// Year forecast.
    pub year: i32,
    /// Fitted value for that year.
    pub value: f64,
    /// Lower bound of the 95 % prediction interval.
    pub lower: f64,
    /// Upper bound of the 95 % prediction interval.
    pub upper: f64,
    /// Change per year of the fitted line.
    pub slope: f64,
    /// Intercept of the fitted line (value at year 0).
    pub intercept: f64,
    /// R² of the fit; null for a flat window (every value the same), where it is undefined.
    pub r_squared: Option<f64>,
    /// Points fitted.
    pub n: usize,
    /// First and last year fitted.
    pub fitted_years: (i32, i32),
    /// Present when the fit is poor (R² under 0.5), the window is flat (R² undefined) or the prediction
    /// interval leaves the indicator's valid range (e.g. a negative rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// An indicator whose change over the same years sits beside the explained one.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AssociatedChange {
    /// Indicator id.
    pub indicator: String,
    /// Its change over the same years for the same country, in its unit.
    pub change: f64,
    /// Its unit.
    pub unit: String,
    /// Cross-country correlation with the explained indicator (precomputed, see get_parameter_data).
    pub r: f64,
    /// p-value of that correlation.
    pub p_value: f64,
    /// Year of that correlation.
    pub correlation_year: i32,
    /// Citations of its two cells.
    pub citation_ids: [String; 2],
}

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

fn handle(
    corpus: &Corpus,
    input: ComputeInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, ComputeResult>, ToolError> {
    for (name, year) in [
        ("from_year", input.from_year),
        ("to_year", input.to_year),
        ("year", input.year),
    ] {
        if let Some(year) = year.filter(|year| !(YEARS.contains(year))) {
            return Err(ToolError::Invalid(format!(
                "{name} {year}: give a year from {} to {}",
                YEARS.start(),
                YEARS.end()
            )));
        }
    }
    let metric = common::metric_in_pillar(corpus, input.parameter.as_deref(), &input.indicator)?;
    let mut result = ComputeResult {
        op: input.op,
        indicator: metric.id.clone(),
        indicator_name: metric.names.get(lang).to_string(),
        unit: metric.unit.clone(),
        calculation: Calculation {
            citation_id: String::new(),
            method: String::new(),
            formula: String::new(),
            inputs: Vec::new(),
        },
        between: None,
        absolute_change: None,
        relative_change: None,
        cagr: None,
        cagr_percent: None,
        ranking: None,
        gap: None,
        forecast: None,
        correlation: None,
        associated: None,
        change_ranking: None,
        notes: Vec::new(),
        sources: vec![common::source_link(corpus, "observations", Some(metric))],
    };
    let rule = metric_rule(corpus, metric)?;
    match input.op {
        Op::Change | Op::Cagr => two_cells(corpus, metric, rule, &input, &mut result)?,
        Op::Rank => rank(corpus, metric, rule, &input, &mut result)?,
        Op::RankChange => rank_change(corpus, metric, rule, &input, &mut result)?,
        Op::GapToFrontier => gap_to_frontier(corpus, metric, rule, &input, &mut result)?,
        Op::Forecast => forecast(corpus, metric, &input, &mut result)?,
        Op::Correlation => correlation(corpus, metric, rule, &input, &mut result)?,
        Op::ExplainChange => explain_change(corpus, metric, rule, &input, &mut result)?,
    }
    // A correlation's inputs are two cross-sections (2 × n series): listed by id in its calc record,
    // resolve_citations gives their values and records; every other op's inputs are numbers of the
    // result or the points of one series, cited here.
    let cited_inputs = if input.op == Op::Correlation {
        &[][..]
    } else {
        &result.calculation.inputs[..]
    };
    let citations = common::citation_records(corpus, cited_inputs.iter().map(String::as_str))?;
    let display = chart(corpus, metric, &result, lang).map(|chart| Display {
        tables: table(&result),
        links: Vec::new(),
        charts: vec![chart],
    });
    Ok(ToolAnswer {
        result,
        citations,
        display,
        records: Vec::new(),
    })
}

fn two_cells(
    corpus: &Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    if input.op == Op::Cagr
        && let Some(refusal) = rule.scale.cagr_refusal()
    {
        return Err(ToolError::Invalid(format!(
            "{refusal} ({} is in {}: {})",
            metric.id, metric.unit, rule.reason
        )));
    }
    let (country, from, to) = two_cells_of(corpus, metric, input)?;
    let (from_point, to_point) = (point(&from), point(&to));
    let slug = format!(
        "{}-{}-{}-{}",
        metric.id,
        country.to_ascii_lowercase(),
        from.year,
        to.year
    );
    if input.op == Op::Change {
        let change = analytics::change(from_point, to_point);
        result.absolute_change = Some(change.absolute);
        result.relative_change = relative(rule, change.relative, &mut result.notes);
        result.calculation = calculation(
            "change",
            &slug,
            "difference of two cited values",
            "to.value - from.value; relative = (to - from) / |from|",
            &[&from, &to],
        );
    } else {
        let cagr = analytics::cagr(from_point, to_point).ok_or_else(|| {
            ToolError::Invalid(format!(
                "CAGR is undefined for {} {}: {} in {} and {} in {} (both values must be positive)",
                metric.id, country, from.value, from.year, to.value, to.year
            ))
        })?;
        result.cagr = Some(cagr);
        result.cagr_percent = Some(cagr * 100.0);
        result.calculation = calculation(
            "cagr",
            &slug,
            "compound annual growth rate",
            "(to.value / from.value)^(1 / (to.year - from.year)) - 1",
            &[&from, &to],
        );
    }
    note_projections(&[&from, &to], &mut result.notes);
    result.between = Some(Between {
        from: cell(&from),
        to: cell(&to),
    });
    Ok(())
}

/// The rule of `metric`; a corpus without one for it is a fault.
fn metric_rule<'c>(corpus: &'c Corpus, metric: &Metric) -> Result<&'c MetricRule, ToolError> {
    corpus
        .metric_rule(&metric.id)
        .map_err(ToolError::Internal)?
        .ok_or_else(|| ToolError::Internal(format!("no derived-figure rule for {}", metric.id)))
}

/// Refuses an op across countries for values in each country's own currency or base.
fn comparable(metric: &Metric, rule: &MetricRule, op: Op) -> Result<(), ToolError> {
    if rule.comparable {
        return Ok(());
    }
    Err(ToolError::Invalid(format!(
        "{} of {} across countries is not defined: {} ({}); compare a country with itself over time (op change \
         or forecast), or use an indicator in a common unit (US$, PPP, % of GDP)",
        op.name(),
        metric.id,
        rule.reason,
        metric.unit
    )))
}

/// A relative change or gap where the scale allows it; otherwise `None`, with the reason in `notes`.
fn relative(rule: &MetricRule, relative: Option<f64>, notes: &mut Vec<String>) -> Option<f64> {
    match rule.scale.relative_change_refusal() {
        None => relative,
        Some(refusal) => {
            let note = refusal.to_string();
            if !notes.contains(&note) {
                notes.push(note);
            }
            None
        }
    }
}

/// Says which of `cells` are projections, so a figure built on one is read as projection-based.
fn note_projections(cells: &[&Observation<'_>], notes: &mut Vec<String>) {
    let projected: Vec<String> = cells
        .iter()
        .filter(|row| is_projection(row.flags))
        .map(|row| format!("{} {}", row.country, row.year))
        .collect();
    if !projected.is_empty() {
        notes.push(format!(
            "projection-based: {} {} the publisher's projection, not an observation",
            projected.join(", "),
            if projected.len() == 1 { "is" } else { "are" }
        ));
    }
}

fn rank(
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

/// Years `rank_change` measures over by default.
pub const RANK_CHANGE_YEARS: i32 = 10;

fn rank_change<'c>(
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

fn gap_to_frontier(
    corpus: &Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    comparable(metric, rule, input.op)?;
    let country = one_country(corpus, input)?;
    let candidates = candidate_countries(corpus, metric, input)?;
    let year = match input.year {
        Some(year) => year,
        // The country's latest observation; a projection year is used only when asked for.
        None => {
            let rows = series(corpus, metric, &country)?;
            rows.iter()
                .rev()
                .find(|row| !is_projection(row.flags))
                .or(rows.last())
                .map(|row| row.year)
                .unwrap_or_default()
        }
    };
    let own = corpus
        .baked
        .observations()
        .find(&metric.id, &country, year)
        .ok_or_else(|| {
            ToolError::Invalid(format!(
                "{country} has no {} value in {year}; {}",
                metric.id,
                available_years(corpus, metric, &country)
            ))
        })?;
    let frontier_rule = input.frontier.clone().unwrap_or_else(|| "best".into());
    let take_max = match frontier_rule.as_str() {
        "max" => true,
        "min" => false,
        "best" => metric.good_direction != corpus::GoodDirection::Down,
        other => {
            return Err(ToolError::Invalid(format!(
                "frontier `{}`: give best, max or min",
                common::snippet(other)
            )));
        }
    };
    let frontier = corpus
        .baked
        .observations()
        .cross_section(&metric.id, year)
        .into_iter()
        .filter(|row| candidates.iter().any(|candidate| candidate == row.country))
        .max_by(|left, right| {
            let by_value = left.value.total_cmp(&right.value);
            (if take_max {
                by_value
            } else {
                by_value.reverse()
            })
            .then(right.country.cmp(left.country))
        })
        .ok_or_else(|| {
            ToolError::Invalid(format!("no country has a {} value in {year}", metric.id))
        })?;
    let absolute_gap = frontier.value - own.value;
    let relative_gap = relative(
        rule,
        (frontier.value != 0.0).then(|| absolute_gap / frontier.value.abs()),
        &mut result.notes,
    );
    note_projections(&[&own, &frontier], &mut result.notes);
    result.calculation = calculation(
        "gap",
        &format!("{}-{}-{year}", metric.id, country.to_ascii_lowercase()),
        &format!("distance to the frontier ({frontier_rule}) among the compared countries"),
        "frontier.value - country.value; relative = gap / |frontier.value|",
        &[&own, &frontier],
    );
    result.gap = Some(Gap {
        country: cell(&own),
        frontier: cell(&frontier),
        frontier_rule,
        absolute_gap,
        relative_gap,
    });
    Ok(())
}

fn forecast(
    corpus: &Corpus,
    metric: &Metric,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    if let Some(method) = input.method.as_deref().filter(|method| *method != "ols") {
        return Err(ToolError::Invalid(format!(
            "method `{}` for forecast: the only method is ols",
            common::snippet(method)
        )));
    }
    let country = one_country(corpus, input)?;
    let observed: Vec<Observation<'_>> = series(corpus, metric, &country)?
        .into_iter()
        .filter(|row| row.flags.is_empty())
        .collect();
    let last_observed = observed.last().map_or(0, |row| row.year);
    // By default the window of the bake's precomputed trend and forecast, so both agree.
    let from_year = input.from_year.unwrap_or(last_observed - TREND_YEARS + 1);
    let rows: Vec<Observation<'_>> = observed
        .into_iter()
        .filter(|row| row.year >= from_year)
        .collect();
    let points: Vec<Point> = rows.iter().map(point).collect();
    let trend = analytics::linear_trend(&points).ok_or_else(|| {
        ToolError::Invalid(format!(
            "a forecast needs at least 3 observed values of {} for {country}; found {}",
            metric.id,
            points.len()
        ))
    })?;
    let last = rows.last().map(|row| row.year).unwrap_or_default();
    let year = input.to_year.unwrap_or(last + 5);
    if year <= last {
        return Err(ToolError::Invalid(format!(
            "to_year {year} is not after the last observed year {last}; give a later year"
        )));
    }
    if year > last + MAX_FORECAST_HORIZON {
        return Err(ToolError::Invalid(format!(
            "to_year {year} is more than {MAX_FORECAST_HORIZON} years after the last observed year {last}; a \
             linear trend is not extrapolated that far: give {} to {}",
            last + 1,
            last + MAX_FORECAST_HORIZON
        )));
    }
    let forecast = analytics::forecast(&trend, year, 0.95)
        .ok_or_else(|| ToolError::Internal("forecast interval".into()))?;
    let range = &metric.valid_range;
    let first = rows.first().map(|row| row.year).unwrap_or_default();
    let poor_fit = match trend.r_squared {
        Some(r_squared) => (r_squared < POOR_FIT_R_SQUARED).then(|| {
            format!(
                "the linear trend explains little of the series' variation (R² {r_squared:.2} over {first}-{last}): \
                 read the forecast as the recent level within its interval, not as a direction"
            )
        }),
        None => Some(format!(
            "the values are flat over {first}-{last}: R² is undefined and the forecast repeats the level"
        )),
    };
    let out_of_range = (!range.contains(forecast.lower) || !range.contains(forecast.upper)).then(|| {
        format!(
            "the 95% interval [{}, {}] leaves the indicator's valid range [{}, {}]: the linear trend cannot \
             continue that far",
            forecast.lower,
            forecast.upper,
            range.min.map_or("-inf".to_string(), |min| min.to_string()),
            range.max.map_or("inf".to_string(), |max| max.to_string()),
        )
    });
    let warnings: Vec<String> = poor_fit.into_iter().chain(out_of_range).collect();
    let warning = (!warnings.is_empty()).then(|| warnings.join("; "));
    let inputs: Vec<&Observation<'_>> = rows.iter().collect();
    result.calculation = calculation(
        "forecast",
        &format!("{}-{}-{year}", metric.id, country.to_ascii_lowercase()),
        "ordinary least-squares linear trend with a 95% prediction interval (Student's t, n - 2 degrees of freedom); projections excluded from the fit",
        "value = intercept + slope * year; interval = fit ± t(0.975, n-2) · s · sqrt(1 + 1/n + (year - mean year)² / Sxx)",
        &inputs,
    );
    result.forecast = Some(ForecastResult {
        country,
        year,
        value: forecast.value,
        lower: forecast.lower,
        upper: forecast.upper,
        slope: trend.slope,
        intercept: trend.intercept,
        r_squared: trend.r_squared,
        n: trend.n,
        fitted_years: (rows.first().map(|row| row.year).unwrap_or_default(), last),
        warning,
    });
    Ok(())
}

fn correlation<'c>(
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
            common::snippet(method)
        )));
    }
    let other_id = input.indicator_b.as_deref().ok_or_else(|| {
        ToolError::Invalid("correlation needs indicator_b, a second indicator id".into())
    })?;
    let other = common::metric(corpus, other_id)?;
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

fn explain_change(
    corpus: &Corpus,
    metric: &Metric,
    rule: &MetricRule,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    let (country, from, to) = two_cells_of(corpus, metric, input)?;
    let change = analytics::change(point(&from), point(&to));
    let table = corpus.baked.observations();
    let mut associated: Vec<AssociatedChange> = Vec::new();
    let mut inputs = vec![from, to];
    for correlation in corpus
        .correlations()
        .map_err(ToolError::Internal)?
        .iter()
        .filter(|item| item.p_value < 0.05)
    {
        let other_id = if correlation.indicator_a == metric.id {
            &correlation.indicator_b
        } else if correlation.indicator_b == metric.id {
            &correlation.indicator_a
        } else {
            continue;
        };
        // Observed values only: a projection's change is not set beside an observed one.
        let (Some(before), Some(after)) = (
            table
                .find(other_id, &country, from.year)
                .filter(|row| !is_projection(row.flags)),
            table
                .find(other_id, &country, to.year)
                .filter(|row| !is_projection(row.flags)),
        ) else {
            continue;
        };
        let unit = corpus
            .baked
            .metric(other_id)
            .map(|other| other.unit.clone())
            .unwrap_or_default();
        associated.push(AssociatedChange {
            indicator: other_id.clone(),
            change: after.value - before.value,
            unit,
            r: correlation.r,
            p_value: correlation.p_value,
            correlation_year: correlation.year,
            citation_ids: [
                before.citation_id.to_string(),
                after.citation_id.to_string(),
            ],
        });
        inputs.extend([before, after]);
    }
    associated.sort_by(|left, right| {
        right
            .r
            .abs()
            .total_cmp(&left.r.abs())
            .then(left.indicator.cmp(&right.indicator))
    });
    let input_refs: Vec<&Observation<'_>> = inputs.iter().collect();
    result.calculation = calculation(
        "explain",
        &format!(
            "{}-{}-{}-{}",
            metric.id,
            country.to_ascii_lowercase(),
            from.year,
            to.year
        ),
        "the change beside the concurrent changes of the indicators that correlate with it across countries (p < 0.05); associations, not causes",
        "change = to.value - from.value for each indicator; r and p from the pillar's precomputed correlations",
        &input_refs,
    );
    result.absolute_change = Some(change.absolute);
    result.relative_change = relative(rule, change.relative, &mut result.notes);
    note_projections(&input_refs, &mut result.notes);
    result.between = Some(Between {
        from: cell(&from),
        to: cell(&to),
    });
    result.associated = Some(associated);
    Ok(())
}

/// The table of a rank (rank, country, value), a change ranking (rank, country, change, both values) or
/// a forecast (year, value, interval).
fn table(result: &ComputeResult) -> Vec<DisplayTable> {
    if let Some(ranking) = &result.change_ranking {
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
        return vec![DisplayTable {
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
        }];
    }
    if let Some(ranking) = &result.ranking {
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
        return vec![DisplayTable {
            title: format!("{} ({})", result.indicator_name, ranking.year),
            columns: vec!["rank".into(), "country".into(), result.unit.clone()],
            rows,
        }];
    }
    result
        .forecast
        .iter()
        .map(|forecast| DisplayTable {
            title: format!("{} — {}", result.indicator_name, forecast.country),
            columns: vec![
                "year".into(),
                "forecast".into(),
                "lower (95%)".into(),
                "upper (95%)".into(),
            ],
            rows: vec![vec![
                forecast.year.into(),
                forecast.value.into(),
                forecast.lower.into(),
                forecast.upper.into(),
            ]],
        })
        .collect()
}

/// The chart of a rank or a change ranking (bars) or a forecast (observed line, forecast point and
/// interval); none for other ops.
fn chart(
    corpus: &Corpus,
    metric: &Metric,
    result: &ComputeResult,
    lang: Lang,
) -> Option<common::Chart> {
    if let Some(ranking) = &result.change_ranking {
        let items: Vec<(String, f64)> = ranking
            .ranked
            .iter()
            .map(|ranked| (ranked.country.clone(), ranked.change))
            .collect();
        return Some(common::bar_chart(
            &format!(
                "{}: change {}-{}",
                result.indicator_name, ranking.from_year, ranking.to_year
            ),
            &format!("change ({})", result.unit),
            &items,
        ));
    }
    if let Some(ranking) = &result.ranking {
        let items: Vec<(String, f64)> = ranking
            .ranked
            .iter()
            .map(|ranked| (ranked.cell.country.clone(), ranked.cell.value))
            .collect();
        return Some(common::bar_chart(
            &format!("{} ({})", result.indicator_name, ranking.year),
            &result.unit,
            &items,
        ));
    }
    let forecast = result.forecast.as_ref()?;
    let table = corpus.baked.observations();
    let observed: Vec<serde_json::Value> = table
        .series(&metric.id, &forecast.country)
        .map(|row_idx| table.row(row_idx))
        .filter(|row| row.flags.is_empty() && row.year >= forecast.fitted_years.0)
        .map(|row| serde_json::json!({"year": row.year, "value": row.value}))
        .collect();
    let [observed_word, trend_word, forecast_word] = match lang {
        Lang::Es => [
            "observado",
            "tendencia ajustada",
            "pronóstico (intervalo 95 %)",
        ],
        Lang::En => ["observed", "fitted trend", "forecast (95% interval)"],
        Lang::Pt => [
            "observado",
            "tendência ajustada",
            "previsão (intervalo de 95%)",
        ],
    };
    let observed: Vec<serde_json::Value> = observed
        .into_iter()
        .map(|mut point| {
            point["kind"] = observed_word.into();
            point
        })
        .collect();
    let (first_fitted, _) = forecast.fitted_years;
    let trend = [first_fitted, forecast.year].map(|year| {
        serde_json::json!({"year": year, "value": forecast.intercept + forecast.slope * f64::from(year), "kind": trend_word})
    });
    let range = common::value_range(
        observed
            .iter()
            .filter_map(|point| point["value"].as_f64())
            .chain([forecast.lower, forecast.upper]),
    );
    // One x and one y for every layer (the same titles, so they merge), the y baseline by the values'
    // spread, and room at the right for the forecast's interval.
    let x = serde_json::json!({"field": "year", "type": "quantitative", "axis": {"format": "d", "labelOverlap": true, "tickMinStep": 1}, "title": common::year_title(lang), "scale": {"padding": 16}});
    let y = |field: &str| serde_json::json!({"field": field, "type": "quantitative", "title": result.unit, "scale": common::y_scale(range)});
    let color = serde_json::json!({"field": "kind", "type": "nominal", "title": null,
        "scale": {"domain": [observed_word, trend_word, forecast_word], "range": ["#4c78a8", "#9d9d9d", "#e45756"]}});
    let forecast_label = match lang {
        Lang::Es => "pronóstico",
        Lang::En => "forecast",
        Lang::Pt => "previsão",
    };
    Some(common::Chart::from_spec(serde_json::json!({
        "$schema": common::VEGA_LITE_SCHEMA,
        "title": format!("{} — {} ({forecast_label} {})", result.indicator_name, forecast.country, forecast.year),
        "layer": [
            {"data": {"values": trend}, "mark": {"type": "line", "strokeDash": [4, 3]},
             "encoding": {"x": x, "y": y("value"), "color": color}},
            {"data": {"values": observed}, "mark": {"type": "line", "point": true},
             "encoding": {"x": x, "y": y("value"), "color": color}},
            {"data": {"values": [{"year": forecast.year, "lower": forecast.lower, "upper": forecast.upper, "kind": forecast_word}]}, "mark": {"type": "errorbar", "ticks": true},
             "encoding": {"x": x, "y": y("lower"), "y2": {"field": "upper"}, "color": color}},
            {"data": {"values": [{"year": forecast.year, "value": forecast.value, "kind": forecast_word}]}, "mark": {"type": "point", "filled": true, "size": 60},
             "encoding": {"x": x, "y": y("value"), "color": color}}
        ]
    })))
}

/// The country and its cells at `from_year` and `to_year` (default: first and last), checked in order.
fn two_cells_of<'a>(
    corpus: &'a Corpus,
    metric: &Metric,
    input: &ComputeInput,
) -> Result<(String, Observation<'a>, Observation<'a>), ToolError> {
    let country = one_country(corpus, input)?;
    let rows = series(corpus, metric, &country)?;
    // By default the first and last observations: a projection is used only when its year is asked for.
    let observed: Vec<&Observation<'_>> = rows
        .iter()
        .filter(|row| !is_projection(row.flags))
        .collect();
    let from = pick_year(
        &rows,
        input.from_year,
        observed.first().copied(),
        "from_year",
        metric,
        &country,
    )?;
    let to = pick_year(
        &rows,
        input.to_year,
        observed.last().copied(),
        "to_year",
        metric,
        &country,
    )?;
    if from.year >= to.year {
        return Err(ToolError::Invalid(format!(
            "from_year {} must be before to_year {}",
            from.year, to.year
        )));
    }
    Ok((country, from, to))
}

fn one_country(corpus: &Corpus, input: &ComputeInput) -> Result<String, ToolError> {
    let code = input
        .country
        .as_deref()
        .ok_or_else(|| ToolError::Invalid(format!("op {} needs `country`", input.op.name())))?;
    Ok(common::countries(corpus, &[code.to_string()], 1, 1)?[0]
        .iso3
        .clone())
}

fn candidate_countries(
    corpus: &Corpus,
    metric: &Metric,
    input: &ComputeInput,
) -> Result<Vec<String>, ToolError> {
    match &input.countries {
        Some(codes) => Ok(common::countries(corpus, codes, 2, 52)?
            .into_iter()
            .map(|country| country.iso3.clone())
            .collect()),
        None => Ok(corpus
            .baked
            .countries()
            .countries()
            .filter(|country| {
                !corpus
                    .baked
                    .observations()
                    .series(&metric.id, &country.iso3)
                    .is_empty()
            })
            .map(|country| country.iso3.clone())
            .collect()),
    }
}

/// The default year of a comparison across countries: for the whole region, the year
/// `get_regional_pulse` uses (the latest with values for 10+ countries holding half the region's
/// population); for a given list, the latest year with a value for any of them.
fn default_year(
    corpus: &Corpus,
    metric: &Metric,
    input: &ComputeInput,
    countries: &[String],
) -> Result<i32, ToolError> {
    if input.countries.is_none() {
        let stats = corpus
            .year_stats_for(&metric.id)
            .map_err(ToolError::Internal)?;
        if let Some(stats) = representative_year(stats) {
            return Ok(stats.year);
        }
    }
    // The latest observed year: a projection year is used only when asked for.
    let table = corpus.baked.observations();
    countries
        .iter()
        .filter_map(|country| {
            table
                .series(&metric.id, country)
                .rev()
                .map(|row_idx| table.row(row_idx))
                .find(|row| !is_projection(row.flags))
                .map(|row| row.year)
        })
        .max()
        .ok_or_else(|| {
            ToolError::Invalid(format!(
                "none of {} has a {} value",
                countries.join(", "),
                metric.id
            ))
        })
}

fn series<'a>(
    corpus: &'a Corpus,
    metric: &Metric,
    country: &str,
) -> Result<Vec<Observation<'a>>, ToolError> {
    let table = corpus.baked.observations();
    let rows: Vec<Observation<'a>> = table
        .series(&metric.id, country)
        .map(|row_idx| table.row(row_idx))
        .collect();
    if rows.is_empty() {
        return Err(ToolError::Invalid(format!(
            "the corpus holds no {} value for {country}",
            metric.id
        )));
    }
    Ok(rows)
}

fn pick_year<'a>(
    rows: &[Observation<'a>],
    year: Option<i32>,
    default: Option<&Observation<'a>>,
    name: &str,
    metric: &Metric,
    country: &str,
) -> Result<Observation<'a>, ToolError> {
    match year {
        None => default.copied().ok_or_else(|| ToolError::Invalid(format!("{country} has no observed {} value (only projections); give the year to use one", metric.id))),
        Some(year) => rows.iter().find(|row| row.year == year).copied().ok_or_else(|| {
            let first = rows.first().map(|row| row.year).unwrap_or_default();
            let last = rows.last().map(|row| row.year).unwrap_or_default();
            ToolError::Invalid(format!("{name} {year}: {country} has no {} value that year; values exist for {first}-{last} ({} years)", metric.id, rows.len()))
        }),
    }
}

fn available_years(corpus: &Corpus, metric: &Metric, country: &str) -> String {
    let table = corpus.baked.observations();
    let rows = table.series(&metric.id, country);
    if rows.is_empty() {
        return "it has no value of this indicator".into();
    }
    format!(
        "its values cover {}-{}",
        table.row(rows.start).year,
        table.row(rows.end - 1).year
    )
}

fn calculation(
    kind: &str,
    slug: &str,
    method: &str,
    formula: &str,
    cells: &[&Observation<'_>],
) -> Calculation {
    Calculation {
        citation_id: format!("calc-{kind}-{slug}"),
        method: method.to_string(),
        formula: formula.to_string(),
        inputs: cells
            .iter()
            .map(|row| row.citation_id.to_string())
            .collect(),
    }
}

fn point(row: &Observation<'_>) -> Point {
    Point {
        year: row.year,
        value: row.value,
    }
}

fn cell(row: &Observation<'_>) -> Cell {
    Cell {
        country: row.country.to_string(),
        year: row.year,
        value: row.value,
        citation_id: row.citation_id.to_string(),
        projection: is_projection(row.flags),
    }
}

fn year_cell(row: &Observation<'_>) -> YearCell {
    YearCell {
        value: row.value,
        citation_id: row.citation_id.to_string(),
        projection: is_projection(row.flags),
    }
}
