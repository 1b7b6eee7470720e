//! `get_series`: the full country-year panel of one indicator in 1 to 8 countries.
//!
//! Reads the observation table (`observations`), the metric and source registries. Every yearly point
//! carries its value and citation id; each country its source and deep link. Countries without values
//! in the range are listed under `missing`, never filled. Years are bounded to 1900–2100. Projected years
//! and estimated years (a publisher's estimate of a past year, kept as observed) are listed apart; where
//! the publisher gives standard errors (WGI), each point's travels with it and the chart draws a 90 %
//! band (±1.64 standard errors).

use corpus::{Lang, Observation};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    ToolAnswer, ToolError, ToolSpec, answer,
    answer::{YearValue, series_id},
    arguments,
    display::{self, Display, DisplayLink, DisplayTable, SourceLink},
};
use crate::load::Corpus;

/// The most countries one call takes.
pub const MAX_COUNTRIES: usize = 8;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_series",
        "Full country-year series of one indicator",
        "One governed indicator in 1-8 countries, every year: per country a series_id and [year, \
         value] points (citation_id = series_id-year), projections flagged. Countries without \
         data are under `missing`, never filled. About 1 KB per country for 65 years.",
        &["observations", "metrics", "sources"],
        handle,
    )
}

/// Arguments of `get_series`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetSeriesInput {
    /// Optional pillar check.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub parameter: Option<String>,
    /// From resolve_metric (`sp_dyn_le00_in`).
    #[schemars(transform = super::limits::cap_identifier)]
    pub indicator: String,
    /// 1-8: ISO3, ISO2 or names.
    #[schemars(length(min = 1, max = 8))]
    #[schemars(transform = super::limits::cap_name)]
    pub countries: Vec<String>,
    /// Default: the earliest.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub from_year: Option<i32>,
    /// Default: the latest.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub to_year: Option<i32>,
}

/// The panel.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GetSeriesResult {
    /// The indicator.
    pub indicator: IndicatorSummary,
    /// First year requested, else the earliest year returned (null when no country has data).
    pub from_year: Option<i32>,
    /// Last year requested, else the latest year returned (null when no country has data).
    pub to_year: Option<i32>,
    /// One series per country with values in the range, in request order.
    pub series: Vec<CountrySeries>,
    /// Countries with no value in the range, never filled.
    pub missing: Vec<MissingCountry>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// What the numbers measure.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct IndicatorSummary {
    /// Indicator id.
    pub id: String,
    /// Publisher's code.
    pub source_code: String,
    /// Name in the requested language.
    pub name: String,
    /// Unit of every value.
    pub unit: String,
    /// Which way is an improvement.
    pub good_direction: corpus::GoodDirection,
    /// Pillar id the indicator belongs to.
    pub pillar: String,
    /// Source id.
    pub source: String,
    /// Release of the values.
    pub vintage: String,
}

/// One country's series.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CountrySeries {
    /// ISO3.
    pub country: String,
    /// Name in the requested language.
    pub country_name: String,
    /// The citation id of a point is `{series_id}-{year}`; the series' record (title, code, unit, deep
    /// link, source) is `citations.series[series_id]`.
    pub series_id: String,
    /// The latest point in the range, `[year, value]`.
    pub latest: YearValue,
    /// Every yearly value in the range, oldest first, as `[year, value]` in the indicator's unit.
    pub points: Vec<YearValue>,
    /// Years whose value is a publisher's projection, not an observation; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projection_years: Vec<i32>,
    /// Years whose value is the publisher's estimate of a past year (IMF WEO after "Estimates Start
    /// After"): an observation it will revise, not a projection; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub estimate_years: Vec<i32>,
    /// The publisher's standard error of each point that has one, as `[year, standard error]` in the
    /// indicator's unit (WGI: a value within ±1.64 of them is within its 90 % interval); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub standard_errors: Vec<YearValue>,
}

/// A country with no value in the range.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MissingCountry {
    /// ISO3.
    pub country: String,
    /// Name in the requested language.
    pub country_name: String,
    /// What the corpus holds instead.
    pub reason: String,
}

fn handle(
    corpus: &Corpus,
    input: GetSeriesInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, GetSeriesResult>, ToolError> {
    let metric = arguments::metric_in_pillar(corpus, input.parameter.as_deref(), &input.indicator)?;
    let countries = arguments::countries(corpus, &input.countries, 1, MAX_COUNTRIES)?;
    let (from_year, to_year) = arguments::year_range(input.from_year, input.to_year)?;
    let table = corpus.baked.observations();
    let mut series = Vec::new();
    let mut missing = Vec::new();
    let mut cited_rows = Vec::new();
    let mut urls = Vec::new();
    let source = corpus
        .baked
        .source(&metric.source_id)
        .ok_or_else(|| ToolError::Internal(format!("no source `{}`", metric.source_id)))?;
    for country in countries {
        let all_rows = table.series(&metric.id, &country.iso3);
        // Sized for the whole series: the filter hides the length from `collect`.
        let mut rows: Vec<Observation<'_>> = Vec::with_capacity(all_rows.len());
        rows.extend(
            table
                .rows_of(all_rows.clone())
                .filter(|row| (from_year..=to_year).contains(&row.year)),
        );
        let points: Vec<YearValue> = rows.iter().map(|row| (row.year, row.value)).collect();
        let projection_years = rows
            .iter()
            .filter(|row| corpus::is_projection(row.flags))
            .map(|row| row.year)
            .collect();
        let estimate_years = rows
            .iter()
            .filter(|row| corpus::is_estimate(row.flags))
            .map(|row| row.year)
            .collect();
        let standard_errors = rows
            .iter()
            .filter_map(|row| Some((row.year, row.standard_error?)))
            .collect();
        let Some(latest) = points.last().cloned() else {
            let reason = match (all_rows.start < all_rows.end).then(|| {
                (
                    table.row(all_rows.start).year,
                    table.row(all_rows.end - 1).year,
                )
            }) {
                Some((first, last)) => {
                    format!("no value in the requested years; the corpus has {first}-{last}")
                }
                None => "the corpus holds no value of this indicator for this country".to_string(),
            };
            missing.push(MissingCountry {
                country: country.iso3.clone(),
                country_name: display::country_name(country, lang),
                reason,
            });
            continue;
        };
        let series_id = series_id(rows[0].citation_id).to_string();
        urls.push(source.deep_link_for(&metric.source_code, &country.iso3, &country.iso2));
        // One row per series carries its records: every point of it shares them.
        cited_rows.extend(rows.last().copied());
        series.push(CountrySeries {
            country: country.iso3.clone(),
            country_name: display::country_name(country, lang),
            series_id,
            latest,
            points,
            projection_years,
            estimate_years,
            standard_errors,
        });
    }
    let citations = answer::citation_records_for(corpus, &cited_rows)?;
    let display = display(metric.names.get(lang), &metric.unit, &series, &urls, lang);
    let result = GetSeriesResult {
        indicator: IndicatorSummary {
            id: metric.id.clone(),
            source_code: metric.source_code.clone(),
            name: metric.names.get(lang).to_string(),
            unit: metric.unit.clone(),
            good_direction: metric.good_direction,
            pillar: metric.pillar.clone(),
            source: metric.source_id.clone(),
            vintage: metric.vintage.clone(),
        },
        from_year: input.from_year.or_else(|| {
            series
                .iter()
                .filter_map(|country| country.points.first())
                .map(|point| point.0)
                .min()
        }),
        to_year: input
            .to_year
            .or_else(|| series.iter().map(|country| country.latest.0).max()),
        series,
        missing,
        sources: vec![display::source_link(corpus, "observations", Some(metric))],
    };
    Ok(ToolAnswer {
        result,
        citations,
        display: Some(display),
        records: Vec::new(),
    })
}

/// A year × country table (projected and estimated cells marked), its line chart (countries by name,
/// projected years dashed, estimated years labelled, 90 % bands where points carry standard errors) and
/// one link per country.
fn display(
    name: &str,
    unit: &str,
    series: &[CountrySeries],
    urls: &[String],
    lang: Lang,
) -> Display {
    // Each country's points are in year order: the years of all are merged, not sorted again.
    let mut years: Vec<i32> = Vec::new();
    for country in series {
        let mut merged = Vec::with_capacity(years.len().max(country.points.len()));
        let mut theirs = country.points.iter().map(|point| point.0).peekable();
        for &year in &years {
            while let Some(earlier) = theirs.next_if(|&other| other < year) {
                merged.push(earlier);
            }
            theirs.next_if_eq(&year);
            merged.push(year);
        }
        merged.extend(theirs);
        years = merged;
    }
    let mut columns = vec!["year".to_string()];
    columns.extend(series.iter().map(|country| country.country.clone()));
    // Each country's points are in year order: one cursor per country walks them beside the years.
    let mut cursors = vec![0; series.len()];
    let rows = years
        .iter()
        .map(|&year| {
            let mut row = Vec::with_capacity(series.len() + 1);
            row.push(Value::from(year));
            for (country, cursor) in series.iter().zip(&mut cursors) {
                row.push(match country.points.get(*cursor) {
                    Some(&(point_year, value)) if point_year == year => {
                        *cursor += 1;
                        Value::from(value)
                    }
                    _ => Value::Null,
                });
            }
            row
        })
        .collect();
    let links = series
        .iter()
        .zip(urls)
        .map(|(country, url)| DisplayLink {
            title: format!("{name}: {}", country.country_name),
            url: url.clone(),
        })
        .collect();
    let first_years = |years: fn(&CountrySeries) -> &Vec<i32>| {
        series
            .iter()
            .filter_map(|country| {
                let first = years(country).iter().min()?;
                Some((country.country.clone(), *first))
            })
            .collect()
    };
    let bands: Vec<display::Band> = series
        .iter()
        .flat_map(|country| {
            country.standard_errors.iter().filter_map(|&(year, se)| {
                let at = country
                    .points
                    .binary_search_by_key(&year, |point| point.0)
                    .ok()?;
                Some(display::Band::of(
                    &country.country,
                    year,
                    country.points[at].1,
                    se,
                ))
            })
        })
        .collect();
    // Each country's projected and estimated cells, marked in the table as the chart draws them.
    let years = &years;
    let marks = series
        .iter()
        .enumerate()
        .flat_map(|(at, country)| {
            [
                (display::ValueKind::Projection, &country.projection_years),
                (display::ValueKind::Estimate, &country.estimate_years),
            ]
            .into_iter()
            .filter(|(_, marked)| !marked.is_empty())
            .map(move |(kind, marked)| display::CellMarks {
                kind,
                column: at + 1,
                rows: marked
                    .iter()
                    .filter_map(|year| years.binary_search(year).ok())
                    .collect(),
            })
        })
        .collect();
    let scale = display::LineScale {
        names: series
            .iter()
            .map(|country| (country.country.clone(), country.country_name.clone()))
            .collect(),
        projected_from: first_years(|country| &country.projection_years),
        estimated_from: first_years(|country| &country.estimate_years),
        range: display::value_range(
            series
                .iter()
                .flat_map(|country| country.points.iter().map(|point| point.1))
                .chain(bands.iter().flat_map(|band| [band.low, band.high])),
        ),
        bands,
        lang,
    };
    let chart = display::table_line_chart(name, unit, 0, &columns[1..], scale);
    Display {
        tables: vec![DisplayTable {
            title: format!("{name} ({unit})"),
            columns,
            rows,
            marks,
        }],
        links,
        // The chart draws the table: its rows are sent once.
        charts: vec![chart],
    }
}
