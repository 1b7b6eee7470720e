//! The catalog's chart page of one indicator (`GET /chart/{indicator}`): the MCP App's chart view
//! ([`crate::transport::apps`]) opened in a plain browser, with the chart data of the indicator's
//! `get_series` answer embedded, so the catalog and the MCP hosts show one and the same chart.
//!
//! The indicator is an id or a publisher's code in any case (`sp_dyn_le00_in`, `SP.DYN.LE00.IN`).
//! Countries: `countries` (comma-separated ISO3 codes or names, at most
//! [`crate::tools::get_series::MAX_COUNTRIES`]), else the [`DEFAULT_COUNTRIES`] most populous countries
//! with values of the indicator (WDI `SP.POP.TOTL`, latest year; ties by ISO3 code).
//!
//! Every chart page links to the catalog page (`/`) and, when it draws one indicator, to that
//! indicator's files (the downloads API); an indicator's page also describes the indicator as a
//! schema.org `Dataset` in JSON-LD ([`dataset_json_ld`]), which search engines such as Google Dataset
//! Search read.

use bytes::Bytes;
use corpus::Lang;
use serde_json::{Map, Value, json};

use crate::{
    load::Corpus,
    tools::{Plugin, ToolError},
    transport::apps,
};
use corpus::{Metric, exports::Subject};

/// How many countries a chart page draws when the request names none.
pub const DEFAULT_COUNTRIES: usize = 8;

/// The longest `countries` parameter read, in characters (8 names of at most 128 characters and their
/// commas); longer ones are cut before any work.
pub const MAX_COUNTRIES_CHARS: usize = 8 * 129;

/// The population indicator that orders the default countries.
pub const POPULATION: &str = "sp_pop_totl";

/// The [`DEFAULT_COUNTRIES`] most populous LAC countries (aggregates left out) with at least one value of
/// `indicator`, by their latest [`POPULATION`], ties by ISO3 code; empty for an indicator the corpus
/// lacks.
pub fn default_countries(corpus: &Corpus, indicator: &str) -> Vec<String> {
    let baked = &corpus.baked;
    let observations = baked.observations();
    let mut ranked: Vec<(f64, &str)> = baked
        .countries()
        .countries()
        .map(|entity| entity.iso3.as_str())
        .filter(|iso3| !observations.series(indicator, iso3).is_empty())
        .map(|iso3| {
            let population = observations
                .series(POPULATION, iso3)
                .last()
                .map_or(0.0, |row| observations.row(row).value);
            (population, iso3)
        })
        .collect();
    ranked.sort_by(|(a, iso3_a), (b, iso3_b)| b.total_cmp(a).then_with(|| iso3_a.cmp(iso3_b)));
    ranked
        .into_iter()
        .take(DEFAULT_COUNTRIES)
        .map(|(_, iso3)| iso3.to_string())
        .collect()
}

/// Why a chart page was not made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChartPageError {
    /// The indicator is not in the corpus (the message names the closest ids): a 404.
    UnknownIndicator(String),
    /// A country or another parameter is not valid (the message says what would be): a 400.
    Invalid(String),
    /// A fault of ours.
    Internal(String),
}

/// The chart page of `indicator` (an id or a publisher's code, any case) in `lang` for `countries`
/// (see the module doc): the page's body, in chunks ([`apps::standalone_page`]).
///
/// # Errors
/// [`ChartPageError`], with `get_series`'s words for what would be valid.
pub fn page(
    plugin: &Plugin,
    indicator: &str,
    countries: Option<&str>,
    lang: Lang,
) -> Result<[Bytes; 3], ChartPageError> {
    let corpus = plugin.corpus();
    if indicator.chars().count() > crate::tools::limits::ArgumentKind::Identifier.max_chars() {
        return Err(ChartPageError::UnknownIndicator(format!(
            "unknown indicator: an id of {} characters; ids are at most 128",
            indicator.chars().count()
        )));
    }
    let metric =
        crate::tools::arguments::metric(corpus, indicator).map_err(|error| match error {
            ToolError::Invalid(message) => ChartPageError::UnknownIndicator(message),
            ToolError::Internal(message) => ChartPageError::Internal(message),
            ToolError::Cancelled => ChartPageError::Internal(ToolError::Cancelled.to_string()),
        })?;
    let mut named: Vec<String> = countries
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect();
    if named.is_empty() {
        named = default_countries(corpus, &metric.id);
    }
    if named.is_empty() {
        return Err(ChartPageError::UnknownIndicator(format!(
            "indicator `{}` has no values in any country",
            metric.id
        )));
    }
    let json_ld = dataset_json_ld(corpus, metric, lang);
    draw(
        plugin,
        "get_series",
        json!({"indicator": metric.id, "countries": named}),
        lang,
        Some(&json_ld),
    )
}

/// The path of the chart page of indicator `id` in `lang` with its default countries
/// (`/chart/sp_dyn_le00_in?lang=en`), as the catalog page links it.
pub fn indicator_chart_path(id: &str, lang: Lang) -> String {
    format!("/chart/{id}?lang={}", lang.as_str())
}

/// The catalog page in `lang` (`/?lang=en`).
pub fn catalog_page_path(lang: Lang) -> String {
    format!("/?lang={}", lang.as_str())
}

/// The licence URL of a licence id: the source's licence text when the series shares the source's
/// licence, else the Creative Commons deed of an SPDX Creative Commons id, else the id itself.
pub(crate) fn license_url(corpus: &Corpus, metric: &Metric) -> String {
    if let Some(source) = corpus.baked.source(&metric.source_id)
        && source.license == metric.license
        && !source.license_url.is_empty()
    {
        return source.license_url.clone();
    }
    let deed = corpus::licences::deed_url(&metric.license);
    deed.unwrap_or_else(|| metric.license.clone())
}

/// The region the corpus covers, as a place name in `lang`.
pub(crate) fn region_name(lang: Lang) -> &'static str {
    match lang {
        Lang::Es => "América Latina y el Caribe",
        Lang::En => "Latin America and the Caribbean",
        Lang::Pt => "América Latina e Caribe",
    }
}

/// A URL of this server for `path`: absolute when links point at an HTTP server
/// ([`crate::links::page_url`]), else the path.
pub(crate) fn server_url(path: &str) -> String {
    crate::links::page_url(path).unwrap_or_else(|| path.to_string())
}

/// The schema.org `Dataset` description (JSON-LD) of `metric`'s chart page in `lang`: its name in
/// `lang`, the publisher's definition, licence (a URL), creator (the publisher, an `Organization`),
/// temporal coverage (`first/last` year with values), spatial coverage (Latin America and the
/// Caribbean, a `Place`), the variable measured (a `PropertyValue` with its unit), one `DataDownload`
/// per file of the indicator (media type and URL), the page's URL and `isAccessibleForFree`. URLs are
/// absolute when the server knows its public base, else paths.
pub fn dataset_json_ld(corpus: &Corpus, metric: &Metric, lang: Lang) -> Value {
    let name = metric.names.get(lang);
    let source = corpus.baked.source(&metric.source_id);
    let description = if metric.description.trim().is_empty() {
        format!("{} ({})", metric.source_title, metric.unit)
    } else {
        metric.description.clone()
    };
    let distribution: Vec<Value> = corpus
        .downloads()
        .of(Subject::Indicator, &metric.id)
        .map(|file| {
            json!({
                "@type": "DataDownload",
                "name": file.download.file_name(),
                "encodingFormat": file.download.format.media_type(),
                "contentUrl": crate::links::download_url(&file.download),
            })
        })
        .collect();
    let mut dataset = json!({
        "@context": "https://schema.org",
        "@type": "Dataset",
        "name": name,
        "description": description,
        "url": server_url(&indicator_chart_path(&metric.id, lang)),
        "identifier": metric.source_code,
        "inLanguage": lang.as_str(),
        "license": license_url(corpus, metric),
        "isAccessibleForFree": true,
        "version": metric.vintage,
        "spatialCoverage": {"@type": "Place", "name": region_name(lang)},
        "variableMeasured": {
            "@type": "PropertyValue",
            "name": name,
            "propertyID": metric.source_code,
            "description": metric.source_title,
            "unitText": metric.unit,
        },
        "distribution": distribution,
        "includedInDataCatalog": {
            "@type": "DataCatalog",
            "name": "LAC governed-data corpus",
            "url": server_url(&catalog_page_path(lang)),
        },
    });
    if let Some(source) = source {
        dataset["creator"] = json!({
            "@type": "Organization",
            "name": source.publisher,
            "url": source.homepage,
        });
        dataset["isBasedOn"] =
            json!({"@type": "Dataset", "name": source.name, "url": source.homepage});
    }
    if let (Some(first), Some(last)) = (metric.coverage.first_year, metric.coverage.last_year) {
        dataset["temporalCoverage"] = json!(format!("{first}/{last}"));
    }
    dataset
}

/// The links of a chart page to the catalog page and, when it draws one indicator, that indicator's
/// files: `{"catalog": path, "downloads": [{"format", "url", "bytes"}]}` (the view draws them).
fn page_links(corpus: &Corpus, indicator: Option<&str>, lang: Lang) -> Value {
    let downloads: Vec<Value> = indicator
        .map(|id| crate::tools::display::file_links(corpus, Subject::Indicator, id))
        .unwrap_or_default()
        .into_iter()
        .map(|file| json!({"format": file.format, "url": file.url, "bytes": file.bytes}))
        .collect();
    json!({"catalog": catalog_page_path(lang), "downloads": downloads})
}

/// The longest `arguments` parameter of an answer's chart page read, in characters; longer ones are
/// refused before any work.
pub const MAX_ARGUMENTS_CHARS: usize = 4096;

/// The chart page of one answer (`GET /chart/answer/{corpus_version}/{tool}?lang=…&arguments=…`, the
/// link [`crate::tools::ToolOutput::link_chart`] puts in every charting answer): `tool` called with
/// `arguments` (a JSON object, as the answer ran) through `get_chart_data`, as the MCP App calls it, so the
/// page draws the answer's own chart. The corpus version is the caller's to check.
///
/// # Errors
/// [`ChartPageError::UnknownIndicator`] (a 404) for a tool that does not chart;
/// [`ChartPageError::Invalid`] for arguments that are not a JSON object or that the tool refuses (its
/// own words).
pub fn answer_page(
    plugin: &Plugin,
    tool: &str,
    arguments: &str,
    lang: Lang,
) -> Result<[Bytes; 3], ChartPageError> {
    use crate::tools::get_chart_data::CHARTING_TOOLS;
    let Some(tool) = CHARTING_TOOLS.iter().find(|name| **name == tool) else {
        return Err(ChartPageError::UnknownIndicator(format!(
            "no chart page for tool `{}`: the charting tools are {}",
            crate::tools::arguments::snippet(tool),
            CHARTING_TOOLS.join(", ")
        )));
    };
    if arguments.chars().count() > MAX_ARGUMENTS_CHARS {
        return Err(ChartPageError::Invalid(format!(
            "arguments: {} characters; at most {MAX_ARGUMENTS_CHARS}",
            arguments.chars().count()
        )));
    }
    let arguments: Value = match serde_json::from_str(arguments) {
        Ok(Value::Object(object)) => Value::Object(object),
        _ => {
            return Err(ChartPageError::Invalid(format!(
                "arguments: `{}` is not a JSON object of the tool's arguments (the link an answer gives \
                 carries them)",
                crate::tools::arguments::snippet(arguments)
            )));
        }
    };
    draw(plugin, tool, arguments, lang, None)
}

/// The page that draws `tool`'s answer to `arguments`: its chart data from `get_chart_data`, links to
/// the catalog and to the files of the indicator the arguments name (if any), and `json_ld` when given.
fn draw(
    plugin: &Plugin,
    tool: &str,
    arguments: Value,
    lang: Lang,
    json_ld: Option<&Value>,
) -> Result<[Bytes; 3], ChartPageError> {
    let corpus = plugin.corpus();
    let indicator = arguments
        .get("indicator")
        .and_then(Value::as_str)
        .and_then(|indicator| crate::tools::arguments::metric(corpus, indicator).ok())
        .map(|metric| metric.id.clone());
    let links = page_links(corpus, indicator.as_deref(), lang);
    let invalid = |error: ToolError| match error {
        ToolError::Invalid(message) => ChartPageError::Invalid(message),
        ToolError::Internal(message) => ChartPageError::Internal(message),
        ToolError::Cancelled => ChartPageError::Internal(ToolError::Cancelled.to_string()),
    };
    let chart_data = plugin
        .tool("get_chart_data")
        .ok_or_else(|| ChartPageError::Internal("get_chart_data is not served".into()))?;
    let mut request = Map::new();
    request.insert("tool".into(), json!(tool));
    request.insert("arguments".into(), arguments);
    chart_data.check_arguments(&request).map_err(invalid)?;
    let answer = chart_data
        .call(corpus, Value::Object(request), lang)
        .map_err(invalid)?;
    let chart: Value = serde_json::from_str(&answer.payload)
        .map_err(|error| ChartPageError::Internal(format!("reading the chart data: {error}")))?;
    Ok(apps::standalone_page(
        &json!({
            "lang": lang.as_str(),
            "chart": chart,
            "citation_base": format!("{}citations/", crate::links::API_PREFIX),
            "page": links,
        }),
        json_ld,
        lang,
    ))
}
