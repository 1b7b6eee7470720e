//! `compute`: a reproducible calculation on governed data, cited to its exact input cells. This file
//! holds the tool's contract, its input and result types, the dispatch by op and the pieces the ops
//! share (the cells of a country, the candidate countries, the default year, the `calc-…` record); each
//! op is its own file beside it, with its section of the result and its display.
//!
//! Reads the observation table (`observations`) and the metric registry (`metrics`). Ops: `change` and
//! `cagr` between two years of one country, `rank` of the countries in a year, `rank_change` of the
//! countries by their change between two years (each change cited to both cells), `gap_to_frontier` of a
//! country against the best (or max/min) country in a year, `forecast` (ordinary least-squares trend with
//! a 95 % prediction interval), `correlation` (Pearson r, n and two-sided p-value between two indicators
//! across countries in a year, or across years in one country), `explain_change` (a country's change
//! between two years beside the concurrent changes of the indicators that correlate with it across
//! countries: associations, not causes), `revision` (one cell in two vintages of its publisher, WEO April
//! 2019 and April 2025, both cited, with whether the earlier value was a projection when published). The arithmetic is `corpus::analytics`,
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
    analytics::Point,
    derived::{MetricRule, representative_year},
    is_projection,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec, answer, arguments,
    display::{self, Display, SourceLink},
};
use crate::load::Corpus;

mod cagr;
mod change;
mod correlation;
mod explain_change;
mod forecast;
mod gap_to_frontier;
mod rank;
mod rank_change;
mod revision;

pub use correlation::CorrelationResult;
pub use explain_change::AssociatedChange;
pub use forecast::{ForecastResult, POOR_FIT_R_SQUARED};
pub use gap_to_frontier::Gap;
pub use rank::{RankedCell, Ranking};
pub use rank_change::{
    ChangeRanking, ChangeSignificance, RANK_CHANGE_YEARS, RankedChange, YearCell, Z_90,
};
pub use revision::{Revision, VintageCell};

/// Years the year arguments accept (the input schema's range).
pub const YEARS: std::ops::RangeInclusive<i32> = 1900..=2100;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "compute",
        "Reproducible calculation cited to its input cells",
        "Computes on governed data, citing every input (its calc-… record). `op`: change, cagr, \
         rank (countries in a year, best first), gap_to_frontier (to the best country, or \
         max/min), forecast (OLS, 95% prediction interval), correlation (Pearson r, n, p with \
         indicator_b: across countries in a year, or years of one country), explain_change \
         (correlated indicators' concurrent changes: associations, not causes), rank_change, \
         revision (a cell in two vintages, e.g. WEO 2019 vs 2025). \
         Projections are labelled. A statistic that means nothing (CAGR of a growth rate or \
         bounded score, cross-country national-currency values) is refused with what to use.",
        &["observations", "metrics"],
        handle,
    )
    .paged(33)
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
    /// One cell in two vintages of its publisher (WEO April 2019 and April 2025), both cited.
    Revision,
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
            Op::Revision => "revision",
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
    #[schemars(transform = super::limits::cap_identifier)]
    #[schemars(description = "")]
    pub op: Op,
    /// Optional pillar check.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub parameter: Option<String>,
    /// Indicator id from resolve_metric.
    #[schemars(transform = super::limits::cap_identifier)]
    pub indicator: String,
    /// change, cagr, gap_to_frontier, forecast, correlation over years.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub country: Option<String>,
    /// rank, rank_change, correlation: only these.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub countries: Option<Vec<String>>,
    /// Default: earliest (forecast: last 10 years; rank_change: to_year - 10).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub from_year: Option<i32>,
    /// Default: latest; forecast: the target year (default +5, at most +10).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub to_year: Option<i32>,
    /// rank, gap_to_frontier, revision, correlation across countries; default: latest with data.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub year: Option<i32>,
    /// Default: best first.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    pub order: Option<Order>,
    /// `best` (default), `max` or `min`.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    pub frontier: Option<String>,
    /// `pearson` or `ols`.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    pub method: Option<String>,
    /// Second indicator of correlation.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    pub indicator_b: Option<String>,
    /// Rank territories too (default: the 33 sovereign countries).
    #[serde(default)]
    pub include_territories: Option<bool>,
    /// rank, rank_change: the top N (default: what fits in 10 KB).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 64))]
    pub limit: Option<u32>,
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
    /// `revision`: the cell in two vintages and the revision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<Revision>,
    /// `explain_change`: the associated indicators' concurrent changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub associated: Option<Vec<AssociatedChange>>,
    /// rank, rank_change, gap_to_frontier: the territories compared or left out (sovereign by default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub territories: Option<arguments::Territories>,
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

/// Runs one call: checks the years, resolves the indicator, runs the op, cites its inputs and builds
/// its display.
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
    let metric = arguments::metric_in_pillar(corpus, input.parameter.as_deref(), &input.indicator)?;
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
        revision: None,
        territories: None,
        notes: Vec::new(),
        sources: vec![display::source_link(corpus, "observations", Some(metric))],
    };
    let rule = metric_rule(corpus, metric)?;
    match input.op {
        Op::Change => change::change(corpus, metric, rule, &input, &mut result)?,
        Op::Cagr => cagr::cagr(corpus, metric, rule, &input, &mut result)?,
        Op::Rank => rank::rank(corpus, metric, rule, &input, &mut result)?,
        Op::RankChange => rank_change::rank_change(corpus, metric, rule, &input, &mut result)?,
        Op::GapToFrontier => {
            gap_to_frontier::gap_to_frontier(corpus, metric, rule, &input, &mut result)?
        }
        Op::Forecast => forecast::forecast(corpus, metric, &input, &mut result)?,
        Op::Correlation => correlation::correlation(corpus, metric, rule, &input, &mut result)?,
        Op::ExplainChange => {
            explain_change::explain_change(corpus, metric, rule, &input, &mut result)?
        }
        Op::Revision => revision::revision(corpus, metric, rule, &input, &mut result)?,
    }
    if ranks_countries(input.op) {
        let compared = candidate_countries(corpus, metric, &input)?;
        let with_values = countries_with_values(corpus, metric);
        result.territories = Some(arguments::Territories::of(
            corpus,
            compared.iter().map(String::as_str),
            with_values.iter().map(String::as_str),
        ));
    }
    // A correlation's inputs are two cross-sections (2 × n series): listed by id in its calc record,
    // resolve_citations gives their values and records; every other op's inputs are numbers of the
    // result or the points of one series, cited here.
    let cited_inputs = if input.op == Op::Correlation {
        &[][..]
    } else {
        &result.calculation.inputs[..]
    };
    let citations = answer::citation_records(corpus, cited_inputs.iter().map(String::as_str))?;
    let display = display(corpus, metric, &result, lang);
    Ok(ToolAnswer {
        result,
        citations,
        display,
        records: Vec::new(),
    })
}

/// The display of a rank or a change ranking (a table and bars) or a forecast (a table, and the observed
/// line with the forecast point and interval); none for other ops.
fn display(
    corpus: &Corpus,
    metric: &Metric,
    result: &ComputeResult,
    lang: Lang,
) -> Option<Display> {
    let (table, chart) = if let Some(ranking) = &result.change_ranking {
        (
            rank_change::table(result, ranking),
            rank_change::chart(corpus, result, ranking, lang),
        )
    } else if let Some(ranking) = &result.ranking {
        (
            rank::table(result, ranking),
            rank::chart(corpus, result, ranking, lang),
        )
    } else {
        let forecast = result.forecast.as_ref()?;
        (
            forecast::table(result, forecast),
            forecast::chart(corpus, metric, result, forecast, lang),
        )
    };
    Some(Display {
        tables: vec![table],
        links: Vec::new(),
        charts: vec![chart],
    })
}

/// The slug of a calculation over one country's two cells: `{indicator}-{iso3}-{from}-{to}`.
fn two_cells_slug(
    metric: &Metric,
    country: &str,
    from: &Observation<'_>,
    to: &Observation<'_>,
) -> String {
    format!(
        "{}-{}-{}-{}",
        metric.id,
        country.to_ascii_lowercase(),
        from.year,
        to.year
    )
}

/// The two cells of a change, as the result shows them.
fn between(from: &Observation<'_>, to: &Observation<'_>) -> Between {
    Between {
        from: cell(from),
        to: cell(to),
    }
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

/// The note of a metric whose good direction is ambiguous: why, and that no end is best.
fn ambiguous_note(metric: &Metric, rule: &MetricRule) -> Option<String> {
    (metric.good_direction == corpus::GoodDirection::Ambiguous).then(|| {
        format!(
            "the good direction of {} is ambiguous, so no country is best or the frontier: {}",
            metric.id,
            rule.direction_note
                .as_deref()
                .unwrap_or("a move either way can be good or bad for policy")
        )
    })
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

/// The ISO3 code of `input.country`, which the op needs.
///
/// # Errors
/// [`ToolError::Invalid`] without `country`, or as [`arguments::countries`].
fn one_country(corpus: &Corpus, input: &ComputeInput) -> Result<String, ToolError> {
    let code = input
        .country
        .as_deref()
        .ok_or_else(|| ToolError::Invalid(format!("op {} needs `country`", input.op.name())))?;
    Ok(arguments::countries(corpus, &[code.to_string()], 1, 1)?[0]
        .iso3
        .clone())
}

/// Whether `op` ranks countries or picks a frontier, and so compares the sovereign countries unless
/// territories are asked for (`corpus::frontier`).
fn ranks_countries(op: Op) -> bool {
    matches!(op, Op::Rank | Op::RankChange | Op::GapToFrontier)
}

/// Every country with a value of `metric`, in registry order.
fn countries_with_values(corpus: &Corpus, metric: &Metric) -> Vec<String> {
    corpus
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
        .collect()
}

/// The countries an op across countries compares: `input.countries` (2 to 52, checked), or every
/// country with a value of `metric` — for the ops that rank or pick a frontier, only the sovereign ones
/// unless `include_territories`.
///
/// # Errors
/// As [`arguments::countries`].
fn candidate_countries(
    corpus: &Corpus,
    metric: &Metric,
    input: &ComputeInput,
) -> Result<Vec<String>, ToolError> {
    match &input.countries {
        Some(codes) => Ok(arguments::countries(corpus, codes, 2, 52)?
            .into_iter()
            .map(|country| country.iso3.clone())
            .collect()),
        None => {
            let mut codes = countries_with_values(corpus, metric);
            if ranks_countries(input.op) {
                let include_territories = input.include_territories.unwrap_or(false);
                let registry = corpus.baked.countries();
                codes.retain(|code| {
                    corpus::frontier::in_scope(registry.get(code), include_territories)
                });
            }
            Ok(codes)
        }
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

/// Every row of `metric` for `country`, oldest first.
///
/// # Errors
/// [`ToolError::Invalid`] when the corpus holds none.
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

/// The row of `year` among `rows`, or `default` without a year (argument `name`, for messages).
///
/// # Errors
/// [`ToolError::Invalid`] naming the years with values when there is no such row.
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

/// The years `country` has values of `metric` in, in words, for messages.
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

/// The `calc-{kind}-{slug}` record of a calculation over `cells`.
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

/// A row as a point of `corpus::analytics`.
fn point(row: &Observation<'_>) -> Point {
    Point {
        year: row.year,
        value: row.value,
    }
}

/// A row as a cited cell of the result.
fn cell(row: &Observation<'_>) -> Cell {
    Cell {
        country: row.country.to_string(),
        year: row.year,
        value: row.value,
        citation_id: row.citation_id.to_string(),
        projection: is_projection(row.flags),
    }
}
