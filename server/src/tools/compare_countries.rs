//! `compare_countries`: a pillar's indicators side by side in 2 to 8 countries, every number cited.
//!
//! Reads the observation table (`observations`), the metric registry and the pillars. For each
//! indicator of the pillar with data for at least one of the countries, the latest value per country
//! with its year and citation id. Indicators are ordered headline first, then by how many of the
//! countries have data, and paged: `limit` per page (default 10, at most 40) and at most 100 country
//! values a page; `indicators_total` and `next_cursor` say what is left.

use corpus::Lang;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    ToolAnswer, ToolError, ToolSpec, answer, arguments,
    display::{self, Display, DisplayTable, SourceLink},
    paging,
};
use crate::load::Corpus;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "compare_countries",
        "Compare a pillar's indicators across countries",
        "A pillar's governed indicators in 2-8 countries: each country's latest value with its year \
         and citation_id (different years labelled, not aligned); countries without data listed, \
         never filled. 10 indicators a page, headline first; `next_cursor` (pass as `cursor`) gives \
         the rest.",
        &["observations", "metrics", "pillars"],
        handle,
    )
    .paged(DEFAULT_LIMIT as usize)
}

/// Arguments of `compare_countries`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompareCountriesInput {
    /// Pillar: id or name.
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub parameter: String,
    /// 2-8 countries: ISO3 or names.
    #[schemars(length(min = 2, max = 8))]
    #[schemars(transform = super::limits::cap_name)]
    pub countries: Vec<String>,
    /// Indicators per page, 1-40 (default 10).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 40), extend("default" = 10))]
    #[schemars(description = "")]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub cursor: Option<String>,
}

/// Indicators per page by default.
pub const DEFAULT_LIMIT: u32 = 10;
/// The most indicators one page holds.
pub const MAX_LIMIT: u32 = 40;
/// The most country values one page holds (10 indicators of 8 countries fit; a page of 40 indicators
/// of 8 countries would be 90 KB).
pub const MAX_VALUES_PER_PAGE: usize = 100;

/// The comparison.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CompareCountriesResult {
    /// Pillar id.
    pub parameter: String,
    /// Pillar name in the requested language.
    pub parameter_name: String,
    /// The countries compared (ISO3), in request order.
    pub countries: Vec<String>,
    /// This page of the indicators with data for at least one of the countries.
    pub indicators: Vec<IndicatorComparison>,
    /// Indicators with data for at least one of the countries, on every page.
    pub indicators_total: usize,
    /// Cursor of the next page (pass it as `cursor`); absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// One indicator across the countries.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct IndicatorComparison {
    /// Indicator id.
    pub id: String,
    /// Name in the requested language.
    pub name: String,
    /// Unit of the values.
    pub unit: String,
    /// Which way is an improvement.
    pub good_direction: corpus::GoodDirection,
    /// Latest value per country that has one, in request order.
    pub values: Vec<LatestValue>,
    /// Countries without any value of this indicator.
    pub missing: Vec<String>,
}

/// A country's latest value.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LatestValue {
    /// ISO3.
    pub country: String,
    /// Year of the value.
    pub year: i32,
    /// Value in the indicator's unit.
    pub value: f64,
    /// Citation of the value.
    pub citation_id: String,
    /// Flags such as `projection` (an IMF WEO estimate or projection, not an observation); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
}

fn handle(
    corpus: &Corpus,
    input: CompareCountriesInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, CompareCountriesResult>, ToolError> {
    let pillar = arguments::pillar(corpus, &input.parameter)?;
    let countries = arguments::countries(corpus, &input.countries, 2, 8)?;
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ToolError::Invalid(format!(
            "limit {limit}: give 1 to {MAX_LIMIT} indicators per page"
        )));
    }
    let table = corpus.baked.observations();
    let mut comparisons: Vec<(bool, IndicatorComparison)> = Vec::new();
    for metric in corpus
        .baked
        .metrics()
        .iter()
        .filter(|metric| metric.pillar == pillar.id)
    {
        super::cancel::checkpoint()?;
        let mut values = Vec::new();
        let mut missing = Vec::new();
        for country in &countries {
            let rows = table.series(&metric.id, &country.iso3);
            if rows.is_empty() {
                missing.push(country.iso3.clone());
                continue;
            }
            let row = table.row(rows.end - 1);
            values.push(LatestValue {
                country: country.iso3.clone(),
                year: row.year,
                value: row.value,
                citation_id: row.citation_id.to_string(),
                flags: (!row.flags.is_empty()).then(|| row.flags.to_string()),
            });
        }
        if values.is_empty() {
            continue;
        }
        comparisons.push((
            metric.headline,
            IndicatorComparison {
                id: metric.id.clone(),
                name: metric.names.get(lang).to_string(),
                unit: metric.unit.clone(),
                good_direction: metric.good_direction,
                values,
                missing,
            },
        ));
    }
    if comparisons.is_empty() {
        return Err(ToolError::Invalid(format!(
            "the corpus holds no `{}` indicator with data for {}",
            pillar.id,
            countries
                .iter()
                .map(|country| country.iso3.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    comparisons.sort_by(|(left_headline, left), (right_headline, right)| {
        right_headline
            .cmp(left_headline)
            .then(right.values.len().cmp(&left.values.len()))
            .then(left.id.cmp(&right.id))
    });
    let total = comparisons.len();
    let offset = paging::cursor_offset(input.cursor.as_deref(), total)?;
    // A page holds `limit` indicators and at most MAX_VALUES_PER_PAGE country values, whichever is
    // reached first (always one indicator at least), so 8 countries stay within the answer budget.
    let mut indicators: Vec<IndicatorComparison> = Vec::new();
    let mut values = 0;
    for (_, comparison) in comparisons.into_iter().skip(offset).take(limit as usize) {
        if !indicators.is_empty() && values + comparison.values.len() > MAX_VALUES_PER_PAGE {
            break;
        }
        values += comparison.values.len();
        indicators.push(comparison);
    }
    let next_cursor = paging::next_cursor(offset + indicators.len(), total);
    let citations = answer::citation_records(
        corpus,
        indicators.iter().flat_map(|indicator| {
            indicator
                .values
                .iter()
                .map(|value| value.citation_id.as_str())
        }),
    )?;
    let country_codes: Vec<String> = countries
        .iter()
        .map(|country| country.iso3.clone())
        .collect();
    let display = display(
        corpus,
        pillar.names.get(lang),
        &country_codes,
        &indicators,
        lang,
    );
    let result = CompareCountriesResult {
        parameter: pillar.id.clone(),
        parameter_name: pillar.names.get(lang).to_string(),
        countries: country_codes,
        indicators,
        indicators_total: total,
        next_cursor,
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

/// An indicator × country table of `value (year)` cells, and a bar chart of each indicator's values (small
/// multiples, in the table's order), each bar labelled with its country's name in `lang` and the year.
fn display(
    corpus: &Corpus,
    pillar_name: &str,
    countries: &[String],
    indicators: &[IndicatorComparison],
    lang: Lang,
) -> Display {
    let mut columns = vec!["indicator".to_string(), "unit".to_string()];
    columns.extend(countries.iter().cloned());
    let rows = indicators
        .iter()
        .map(|indicator| {
            let mut row = vec![
                Value::from(indicator.name.clone()),
                Value::from(indicator.unit.clone()),
            ];
            row.extend(countries.iter().map(|country| {
                indicator
                    .values
                    .iter()
                    .find(|value| &value.country == country)
                    .map_or(Value::Null, |value| {
                        Value::from(match &value.flags {
                            Some(flags) => format!("{} ({}, {flags})", value.value, value.year),
                            None => format!("{} ({})", value.value, value.year),
                        })
                    })
            }));
            row
        })
        .collect();
    // Small multiples: one bar chart per indicator of the page, each bar its country and the year of
    // its value (latest years differ by country and are never aligned).
    let charts = indicators
        .iter()
        .filter(|indicator| !indicator.values.is_empty())
        .map(|indicator| {
            let items: Vec<(String, f64)> = indicator
                .values
                .iter()
                .map(|value| {
                    (
                        format!(
                            "{} ({})",
                            display::place_name(corpus, &value.country, lang),
                            value.year
                        ),
                        value.value,
                    )
                })
                .collect();
            display::bar_chart(&indicator.name, &indicator.unit, &items)
        })
        .collect();
    Display {
        tables: vec![DisplayTable {
            title: pillar_name.to_string(),
            columns,
            rows,
            marks: Vec::new(),
        }],
        links: Vec::new(),
        charts,
    }
}
