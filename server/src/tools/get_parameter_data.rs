//! `get_parameter_data`: a pillar in one country — every indicator of the pillar with its latest value,
//! year, citation, trend and the last six points (`series_tail`), a governance summary, an evidence grade
//! and a short narrative in es/en/pt whose every number is cited in the same result.
//!
//! Reads the observation table (`observations`), the metric registry (`metrics`), the pillars and the
//! bake's correlations (`correlations`). Trends are least-squares slopes (`corpus::analytics`) over the
//! observed points of `series_tail` — for a series whose last six values are mostly projections (every
//! WEO-2025 series), over its last six observations, the tail reaching back to them — so every point a
//! trend rests on is cited in the same answer. Modelled values (ILO's modelled estimates) are fitted
//! with `basis: "modelled"` said. Trends are read as improving or worsening through each indicator's
//! `good_direction`.

use corpus::{
    GoodDirection, Lang, Metric, Observation,
    analytics::{self, Point},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec, answer,
    answer::{YearValue, series_id},
    arguments,
    display::{self, Display, DisplayTable, SourceLink},
    paging,
};
use crate::load::Corpus;

/// Points in `series_tail`, which are also the points of the trend.
pub const TAIL: usize = 6;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_parameter_data",
        "A pillar in one country: every indicator, cited",
        "A pillar (`parameter`) in one country: each governed indicator's latest value, year, \
         citation_id, series_tail (last 6 [year, value] points of its series_id; projections \
         flagged) and trend by good_direction, with coverage, sources, freshness, an evidence \
         grade and a short cited narrative; indicators without data under `missing`. 20 a page, \
         headline first; `next_cursor` (pass as `cursor`) gives the rest.",
        &["observations", "metrics", "pillars"],
        handle,
    )
    .paged(DEFAULT_LIMIT)
}

/// Indicators per page by default.
pub const DEFAULT_LIMIT: usize = 20;
/// The most indicators one page holds.
pub const MAX_LIMIT: usize = 40;

/// Arguments of `get_parameter_data`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetParameterDataInput {
    /// Pillar: id (`salud`) or name.
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub parameter: String,
    /// Country: ISO3 or name.
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub country: String,
    /// Only these indicator ids of the pillar.
    #[serde(default)]
    #[schemars(length(min = 1, max = 40))]
    #[schemars(transform = super::limits::cap_name)]
    pub indicators: Option<Vec<String>>,
    /// Indicators per page, 1-40 (default 20).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 40))]
    #[schemars(description = "")]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub cursor: Option<String>,
}

/// The pillar in the country.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ParameterData {
    /// Pillar id.
    pub parameter: String,
    /// Pillar name in the requested language.
    pub parameter_name: String,
    /// ISO3.
    pub country: String,
    /// Country name in the requested language.
    pub country_name: String,
    /// A short summary of this page; every number in it appears, cited, in `indicators`.
    pub narrative: String,
    /// This page of the indicators with data for the country: headline first, then by latest year.
    pub indicators: Vec<IndicatorData>,
    /// Indicators with data for the country (or matching `indicators`), on every page.
    pub indicators_total: usize,
    /// Cursor of the next page (pass it as `cursor`); absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Indicator ids of the pillar with no value for the country.
    pub missing: Vec<String>,
    /// The pillar's strongest significant correlations across countries (p < 0.05, up to 5, largest |r|
    /// first), precomputed by the bake; `compute` op `correlation` with the same year reproduces each.
    pub correlations: Vec<CorrelationItem>,
    /// Coverage, sources and freshness of the pillar in the country (every page).
    pub governance: Governance,
    /// `A` to `D`, from freshness and coverage (see `governance`): A = at least 75 % of the pillar's
    /// indicators with data and a median latest year within 3 years of the corpus' newest; B ≥ 50 % and
    /// within 5 years; C ≥ 25 %; D otherwise.
    pub evidence_grade: String,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// One indicator in the country.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct IndicatorData {
    /// Indicator id.
    pub id: String,
    /// Name in the requested language.
    pub name: String,
    /// Unit.
    pub unit: String,
    /// Which way is an improvement.
    pub good_direction: GoodDirection,
    /// Latest value.
    pub value: f64,
    /// Year of the latest value.
    pub year: i32,
    /// Citation of the latest value.
    pub citation_id: String,
    /// The citation id of a `series_tail` point is `{series_id}-{year}`.
    pub series_id: String,
    /// Flags of the latest value (`projection`), absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
    /// Trend over the last 6 observations of `series_tail` (projections left out), if at least 3: every
    /// point it is fitted on is cited there.
    pub trend: Option<Trend>,
    /// The last 6 points, oldest first, as `[year, value]`; reaching back to the last 6 observations
    /// when the series ends in projections, so every point of the trend is here.
    pub series_tail: Vec<YearValue>,
    /// Years of `series_tail` whose value is a publisher's projection or estimate, not an observation;
    /// absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projection_years: Vec<i32>,
}

/// A least-squares trend.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Trend {
    /// Change per year, in the unit.
    pub slope_per_year: f64,
    /// `improving`, `worsening` or `stable` (|slope| under 0.5 % of the mean level per year), by good_direction;
    /// `rising`/`falling`/`stable` for neutral indicators.
    pub direction: String,
    /// First year of the fitted window (least squares over the last 6 observations of `series_tail`).
    pub from_year: i32,
    /// Last year of the fitted window.
    pub to_year: i32,
    /// Points fitted.
    pub n: usize,
    /// `observed`, or `modelled` when some fitted points are the publisher's modelled estimates (flag
    /// `modelled`): a trend of the model, not of measurements.
    pub basis: String,
    /// Present when the series ends in projections: the trend is fitted on its last observations, not
    /// on the projected years.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A correlation between two indicators of the pillar across countries.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CorrelationItem {
    /// `calc-corr-{indicator_a}-{indicator_b}-{year}`, a per-response id whose record is this item.
    pub citation_id: String,
    /// How r, n and p were computed, and the `compute` call that lists every input cell.
    pub method: String,
    /// First indicator.
    pub indicator_a: String,
    /// Second indicator.
    pub indicator_b: String,
    /// Year of the values.
    pub year: i32,
    /// Pearson's r.
    pub r: f64,
    /// Countries used.
    pub n: usize,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Whether country size can drive r (a side scales with population and r does not survive holding
    /// it fixed or ranking the countries; `corpus::derived::SizeCheck`).
    pub size_confounded: bool,
    /// Why a size-confounded r is not read as a relation; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// Coverage and freshness of the answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Governance {
    /// Indicators in the pillar.
    pub indicators_in_pillar: usize,
    /// Of those, with at least one value for the country.
    pub indicators_with_data: usize,
    /// Newest latest year among the indicators shown.
    pub newest_year: Option<i32>,
    /// Median latest year among the indicators shown.
    pub median_latest_year: Option<i32>,
    /// Source ids of the indicators shown.
    pub source_ids: Vec<String>,
    /// Indicators whose latest value is a projection.
    pub projections: usize,
}

fn handle(
    corpus: &Corpus,
    input: GetParameterDataInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, ParameterData>, ToolError> {
    let pillar = arguments::pillar(corpus, &input.parameter)?;
    let country = arguments::countries(corpus, std::slice::from_ref(&input.country), 1, 1)?[0];
    let table = corpus.baked.observations();
    let metrics: Vec<&Metric> = corpus
        .baked
        .metrics()
        .iter()
        .filter(|metric| metric.pillar == pillar.id)
        .collect();
    // Every indicator of the pillar is ranked by its latest row alone (headline first, newest, id);
    // only the page's indicators read their tails and fit their trends.
    let mut indicators: Vec<(&Metric, std::ops::Range<usize>, Observation<'_>)> = Vec::new();
    let mut missing = Vec::new();
    for metric in &metrics {
        let series = table.series(&metric.id, &country.iso3);
        if series.is_empty() {
            missing.push(metric.id.clone());
            continue;
        }
        let latest = table.row(series.end - 1);
        indicators.push((metric, series, latest));
    }
    indicators.sort_by(|(left, _, left_latest), (right, _, right_latest)| {
        right
            .headline
            .cmp(&left.headline)
            .then(right_latest.year.cmp(&left_latest.year))
            .then(left.id.cmp(&right.id))
    });
    let governance = governance(&metrics, &indicators);
    if let Some(wanted) = &input.indicators {
        if wanted.is_empty() || wanted.len() > MAX_LIMIT {
            return Err(ToolError::Invalid(format!(
                "indicators: give 1 to {MAX_LIMIT} indicator ids of pillar `{}`, got {}",
                pillar.id,
                wanted.len()
            )));
        }
        let unknown: Vec<String> = wanted
            .iter()
            .filter(|id| !metrics.iter().any(|metric| &metric.id == *id))
            .map(|id| format!("`{}`", arguments::snippet(id)))
            .collect();
        if !unknown.is_empty() {
            return Err(ToolError::Invalid(format!(
                "indicators: not indicators of pillar `{}`: {}; resolve_metric with pillar `{}` lists its ids",
                pillar.id,
                unknown.join(", "),
                pillar.id
            )));
        }
        indicators.retain(|(metric, _, _)| wanted.contains(&metric.id));
    }
    let total = indicators.len();
    let limit = input.limit.map_or(DEFAULT_LIMIT, |limit| limit as usize);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ToolError::Invalid(format!(
            "limit {limit}: give 1 to {MAX_LIMIT} indicators per page"
        )));
    }
    let (offset, next_cursor) = paging::page(input.cursor.as_deref(), limit, total)?;
    let page: Vec<(bool, IndicatorData, Vec<Observation<'_>>)> = indicators
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(|(metric, series, latest)| {
            let tail_start = series.end.saturating_sub(TAIL).max(series.start);
            // A tail ending in projections reaches back to the last observations the trend is on.
            let start = (series.start..series.end)
                .rev()
                .filter(|&row_idx| fitted(table.row(row_idx).flags))
                .take(TAIL)
                .last()
                .map_or(tail_start, |first| first.min(tail_start));
            let rows: Vec<Observation<'_>> = (start..series.end)
                .map(|row_idx| table.row(row_idx))
                .collect();
            let indicator = indicator_data(metric, &rows, &latest, lang);
            (metric.headline, indicator, rows)
        })
        .collect();
    // Every number of an indicator (latest value, tail) is of one series: its latest row carries the
    // series' records.
    let citations =
        answer::citation_records_for(corpus, page.iter().filter_map(|(_, _, tail)| tail.last()))?;
    let indicators: Vec<IndicatorData> = page
        .into_iter()
        .map(|(_, indicator, _)| indicator)
        .collect();
    let mut correlations: Vec<CorrelationItem> = corpus
        .correlations()
        .map_err(ToolError::Internal)?
        .iter()
        .filter(|item| item.pillar == pillar.id && item.p_value < 0.05)
        .map(|item| CorrelationItem {
            citation_id: format!(
                "calc-corr-{}-{}-{}",
                item.indicator_a, item.indicator_b, item.year
            ),
            method: format!(
                "Pearson r across the n countries with both values in {year}; p two-sided (Student's t, n-2 df). \
                 Inputs: compute op=correlation indicator={a} indicator_b={b} year={year}",
                year = item.year,
                a = item.indicator_a,
                b = item.indicator_b
            ),
            indicator_a: item.indicator_a.clone(),
            indicator_b: item.indicator_b.clone(),
            year: item.year,
            r: item.r,
            n: item.n,
            p_value: item.p_value,
            size_confounded: item.size_confounded,
            warning: item
                .size_check
                .filter(|check| check.confounded)
                .as_ref()
                .map(corpus::derived::size_warning),
        })
        .collect();
    correlations.sort_by(|left, right| {
        right.r.abs().total_cmp(&left.r.abs()).then_with(|| {
            (&left.indicator_a, &left.indicator_b).cmp(&(&right.indicator_a, &right.indicator_b))
        })
    });
    correlations.truncate(5);
    let evidence_grade = evidence_grade(corpus, &governance);
    let narrative = narrative(
        lang,
        pillar.names.get(lang),
        country.names.get(lang),
        &indicators,
        &governance,
    );
    let display = Display {
        tables: vec![DisplayTable {
            title: format!("{} — {}", pillar.names.get(lang), country.names.get(lang)),
            columns: vec![
                "indicator".into(),
                "value".into(),
                "unit".into(),
                "year".into(),
                "trend".into(),
            ],
            rows: indicators
                .iter()
                .map(|indicator| {
                    vec![
                        indicator.name.clone().into(),
                        indicator.value.into(),
                        indicator.unit.clone().into(),
                        indicator.year.into(),
                        indicator
                            .trend
                            .as_ref()
                            .map_or(serde_json::Value::Null, |trend| {
                                trend.direction.clone().into()
                            }),
                    ]
                })
                .collect(),
            marks: Vec::new(),
        }],
        links: Vec::new(),
        // One small line chart per leading indicator: units differ, so they are not drawn on one axis.
        // The line is named by the country's name.
        charts: indicators
            .iter()
            .take(3)
            .map(|indicator| {
                let points: Vec<(String, i32, f64)> = indicator
                    .series_tail
                    .iter()
                    .map(|point| (country.iso3.clone(), point.0, point.1))
                    .collect();
                let names = [(country.iso3.clone(), display::country_name(country, lang))];
                display::line_chart(&indicator.name, &indicator.unit, &points, &names, lang)
            })
            .collect(),
    };
    let result = ParameterData {
        parameter: pillar.id.clone(),
        parameter_name: pillar.names.get(lang).to_string(),
        country: country.iso3.clone(),
        country_name: display::country_name(country, lang),
        narrative,
        indicators,
        indicators_total: total,
        next_cursor,
        missing,
        correlations,
        governance,
        evidence_grade,
        sources: vec![
            display::source_link(corpus, "observations", None),
            display::source_link(corpus, "metrics", None),
        ],
    };
    Ok(ToolAnswer {
        result,
        citations,
        display: Some(display),
        records: Vec::new(),
    })
}

/// Whether a value with these flags is fitted by a trend: not a projection nor a suspect scale
/// (modelled values and estimates are, with the basis said).
fn fitted(flags: &str) -> bool {
    !flags
        .split('|')
        .any(|flag| flag == corpus::PROJECTION_FLAG || flag == "suspect_scale")
}

fn indicator_data(
    metric: &Metric,
    rows: &[Observation<'_>],
    latest: &Observation<'_>,
    lang: Lang,
) -> IndicatorData {
    let tail = rows;
    // The last 6 observations (projections left out): the last 6 points of a series without projections.
    let mut window: Vec<&Observation<'_>> = rows
        .iter()
        .rev()
        .filter(|row| fitted(row.flags))
        .take(TAIL)
        .collect();
    window.reverse();
    let on_observed_part = rows.last().is_some_and(|row| !fitted(row.flags));
    let modelled = window.iter().any(|row| {
        row.flags
            .split('|')
            .any(|flag| flag == corpus::health::MODELLED_FLAG)
    });
    let observed: Vec<Point> = window
        .iter()
        .map(|row| Point {
            year: row.year,
            value: row.value,
        })
        .collect();
    let trend = analytics::linear_trend(&observed).map(|fit| {
        let mean = observed.iter().map(|point| point.value).sum::<f64>() / observed.len() as f64;
        let stable = fit.slope.abs() < 0.005 * mean.abs().max(f64::EPSILON);
        let direction = match (stable, metric.good_direction, fit.slope > 0.0) {
            (true, _, _) => "stable",
            (false, GoodDirection::Up, true) | (false, GoodDirection::Down, false) => "improving",
            (false, GoodDirection::Up, false) | (false, GoodDirection::Down, true) => "worsening",
            // Neither way is an improvement: neutral, or ambiguous for policy (a share whose
            // denominator moved reads as rising or falling, not as improving).
            (false, GoodDirection::Neutral | GoodDirection::Ambiguous, true) => "rising",
            (false, GoodDirection::Neutral | GoodDirection::Ambiguous, false) => "falling",
        };
        Trend {
            slope_per_year: fit.slope,
            direction: direction.to_string(),
            from_year: observed.first().map(|point| point.year).unwrap_or_default(),
            to_year: observed.last().map(|point| point.year).unwrap_or_default(),
            n: fit.n,
            basis: if modelled { "modelled" } else { "observed" }.to_string(),
            note: on_observed_part.then(|| {
                format!(
                    "the series ends in projections: fitted on its last {} observations ({}-{}), not on the \
                     projected years",
                    fit.n,
                    observed.first().map(|point| point.year).unwrap_or_default(),
                    observed.last().map(|point| point.year).unwrap_or_default(),
                )
            }),
        }
    });
    IndicatorData {
        id: metric.id.clone(),
        name: metric.names.get(lang).to_string(),
        unit: metric.unit.clone(),
        good_direction: metric.good_direction,
        value: latest.value,
        year: latest.year,
        citation_id: latest.citation_id.to_string(),
        flags: (!latest.flags.is_empty()).then(|| latest.flags.to_string()),
        trend,
        series_id: series_id(latest.citation_id).to_string(),
        series_tail: tail.iter().map(|row| (row.year, row.value)).collect(),
        projection_years: tail
            .iter()
            .filter(|row| corpus::is_projection(row.flags))
            .map(|row| row.year)
            .collect(),
    }
}

/// The pillar's coverage for the country, from each indicator's latest row.
fn governance(
    metrics: &[&Metric],
    indicators: &[(&Metric, std::ops::Range<usize>, Observation<'_>)],
) -> Governance {
    let mut years: Vec<i32> = indicators
        .iter()
        .map(|(_, _, latest)| latest.year)
        .collect();
    years.sort_unstable();
    let mut source_ids: Vec<String> = indicators
        .iter()
        .map(|(metric, _, _)| metric.source_id.clone())
        .collect();
    source_ids.sort();
    source_ids.dedup();
    Governance {
        indicators_in_pillar: metrics.len(),
        indicators_with_data: indicators.len(),
        newest_year: years.last().copied(),
        median_latest_year: years.get(years.len() / 2).copied(),
        source_ids,
        projections: indicators
            .iter()
            .filter(|(_, _, latest)| !latest.flags.is_empty())
            .count(),
    }
}

fn evidence_grade(corpus: &Corpus, governance: &Governance) -> String {
    let corpus_newest = corpus
        .baked
        .metrics()
        .iter()
        .filter_map(|metric| metric.coverage.last_year)
        .max()
        .unwrap_or_default();
    let share =
        governance.indicators_with_data as f64 / governance.indicators_in_pillar.max(1) as f64;
    let lag = governance
        .median_latest_year
        .map_or(i32::MAX, |year| corpus_newest - year);
    let grade = if share >= 0.75 && lag <= 3 {
        "A"
    } else if share >= 0.5 && lag <= 5 {
        "B"
    } else if share >= 0.25 {
        "C"
    } else {
        "D"
    };
    grade.to_string()
}

/// A deterministic summary; each number comes from `indicators` or `governance` and is printed as there.
fn narrative(
    lang: Lang,
    pillar: &str,
    country: &str,
    indicators: &[IndicatorData],
    governance: &Governance,
) -> String {
    let with = governance.indicators_with_data;
    let total = governance.indicators_in_pillar;
    let mut text = match lang {
        Lang::Es => format!("{pillar} en {country}: {with} de {total} indicadores tienen datos."),
        Lang::En => format!("{pillar} in {country}: {with} of {total} indicators have data."),
        Lang::Pt => format!("{pillar} em {country}: {with} de {total} indicadores têm dados."),
    };
    for indicator in indicators.iter().take(3) {
        let trend = indicator
            .trend
            .as_ref()
            .map(|trend| trend_word(lang, &trend.direction))
            .unwrap_or_default();
        // Printed exactly as the JSON result prints it, so the narrative's numbers match the cited values.
        let value = serde_json::Value::from(indicator.value).to_string();
        let (name, unit, year, citation) = (
            &indicator.name,
            &indicator.unit,
            indicator.year,
            &indicator.citation_id,
        );
        text.push(' ');
        text.push_str(&match lang {
            Lang::Es => format!("{name}: {value} ({unit}) en {year} [{citation}]{trend}."),
            Lang::En => format!("{name}: {value} ({unit}) in {year} [{citation}]{trend}."),
            Lang::Pt => format!("{name}: {value} ({unit}) em {year} [{citation}]{trend}."),
        });
    }
    text
}

fn trend_word(lang: Lang, direction: &str) -> String {
    let word = match (lang, direction) {
        (Lang::Es, "improving") => "mejorando",
        (Lang::Es, "worsening") => "empeorando",
        (Lang::Es, "stable") => "estable",
        (Lang::Es, "rising") => "en alza",
        (Lang::Es, _) => "en baja",
        (Lang::Pt, "improving") => "melhorando",
        (Lang::Pt, "worsening") => "piorando",
        (Lang::Pt, "stable") => "estável",
        (Lang::Pt, "rising") => "em alta",
        (Lang::Pt, _) => "em queda",
        (Lang::En, "falling") => "falling",
        (Lang::En, other) => other,
    };
    format!(", {word}")
}
