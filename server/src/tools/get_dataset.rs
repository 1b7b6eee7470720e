//! `get_dataset`: read any catalogued dataset by its id and keys.
//!
//! Reads the dataset catalog (`datasets.json`, id `catalog`) and, by `dataset_id`: `observations` and
//! `aggregates` (filtered by indicator, country, year), `metrics` (by id or pillar), `sources`,
//! `countries`, `pillars`, `citations` (by citation id), `series_stats` (the bake's derived per-series
//! statistics, by indicator and country). Rows are paged (`limit` 1 to 500, default 100,
//! and `offset`); `total` says how many rows match. Observation rows carry their citation ids, resolved
//! in `citations`. `concordance` is catalogued with its files; its rows are read from the Parquet/Arrow
//! download, not through this tool yet, and the tool says so.

use corpus::{Lang, Observation, ObservationTable};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    ToolAnswer, ToolError, ToolSpec,
    common::{self, SourceLink},
};
use crate::load::Corpus;

/// The most rows one page holds.
pub const MAX_LIMIT: usize = 500;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_dataset",
        "Read a catalogued dataset by id and keys",
        "Generic accessor for the corpus' datasets: `catalog` (the list of datasets with keys, columns, sources and \
         licences), `observations` and `aggregates` (filter by indicator, country, year), `metrics` (by id or pillar), \
         `sources`, `countries`, `pillars`, `citations` (by id), `series_stats` (precomputed latest value, change, CAGR 5/10 y and trend per indicator and country). Rows are paged with limit and offset; observation rows \
         carry citation ids resolved in `citations`.",
        &[
            "observations",
            "aggregates",
            "metrics",
            "sources",
            "countries",
            "pillars",
            "citations",
            "series_stats",
        ],
        handle,
    )
}

/// Arguments of `get_dataset`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDatasetInput {
    /// Dataset id: catalog, observations, aggregates, metrics, sources, countries, pillars or citations.
    pub dataset_id: String,
    /// Indicator id (observations, aggregates) or metric id (metrics).
    #[serde(default)]
    pub indicator: Option<String>,
    /// Country ISO3 or name (observations, countries), or aggregate code (aggregates).
    #[serde(default)]
    pub country: Option<String>,
    /// Year (observations, aggregates).
    #[serde(default)]
    #[schemars(range(min = 1900, max = 2100))]
    pub year: Option<i32>,
    /// Key of one record: a metric id, source id, pillar id, ISO3 or citation id.
    #[serde(default)]
    pub id: Option<String>,
    /// Pillar id or name (metrics).
    #[serde(default)]
    pub pillar: Option<String>,
    /// Rows per page, 1 to 500. Default 100.
    #[serde(default)]
    #[schemars(range(min = 1, max = 500), extend("default" = 100))]
    pub limit: Option<u32>,
    /// Rows to skip. Default 0.
    #[serde(default)]
    pub offset: Option<u32>,
}

/// One page of a dataset.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GetDatasetResult {
    /// The dataset read.
    pub dataset_id: String,
    /// Its title.
    pub title: String,
    /// The key columns of a row.
    pub keys: Vec<String>,
    /// Rows matching the filters.
    pub total: usize,
    /// Rows skipped.
    pub offset: usize,
    /// This page's rows, as objects.
    pub rows: Vec<Value>,
    /// Whether more rows follow this page.
    pub truncated: bool,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

fn handle(
    corpus: &Corpus,
    input: GetDatasetInput,
    _lang: Lang,
) -> Result<ToolAnswer<'_, GetDatasetResult>, ToolError> {
    let limit = input.limit.unwrap_or(100) as usize;
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ToolError::Invalid(format!(
            "limit {limit}: give 1 to {MAX_LIMIT}"
        )));
    }
    let offset = input.offset.unwrap_or(0) as usize;
    let baked = &corpus.baked;
    let (rows, cited): (Vec<Value>, Vec<String>) = match input.dataset_id.as_str() {
        "catalog" => (
            corpus
                .datasets
                .iter()
                .map(|dataset| json!(dataset))
                .collect(),
            Vec::new(),
        ),
        "observations" | "aggregates" => {
            let table = if input.dataset_id == "observations" {
                baked.observations()
            } else {
                baked.aggregates()
            };
            let rows = observation_rows(corpus, table, &input)?;
            let page: Vec<&Observation<'_>> = rows.iter().skip(offset).take(limit).collect();
            let cited: Vec<String> = page.iter().map(|row| row.citation_id.to_string()).collect();
            let citations = common::citation_records(corpus, cited.iter().map(String::as_str))?;
            let title = corpus
                .dataset(&input.dataset_id)
                .map(|dataset| dataset.title.clone())
                .unwrap_or_default();
            let keys = corpus
                .dataset(&input.dataset_id)
                .map(|dataset| dataset.keys.clone())
                .unwrap_or_default();
            let result = GetDatasetResult {
                sources: vec![common::source_link(corpus, &input.dataset_id, None)],
                truncated: offset + page.len() < rows.len(),
                total: rows.len(),
                rows: page.into_iter().map(observation_json).collect(),
                dataset_id: input.dataset_id,
                title,
                keys,
                offset,
            };
            return Ok(ToolAnswer {
                result,
                citations,
                display: None,
            });
        }
        "metrics" => {
            let pillar = input
                .pillar
                .as_deref()
                .map(|pillar| common::pillar(corpus, pillar))
                .transpose()?;
            let id = input.id.as_deref().or(input.indicator.as_deref());
            if let Some(id) = id {
                common::metric(corpus, id)?;
            }
            let rows = baked
                .metrics()
                .iter()
                .filter(|metric| {
                    id.is_none_or(|id| metric.id == id)
                        && pillar.is_none_or(|pillar| metric.pillar == pillar.id)
                })
                .map(|metric| json!(metric))
                .collect();
            (rows, Vec::new())
        }
        "sources" => (
            baked
                .sources()
                .iter()
                .filter(|source| input.id.as_deref().is_none_or(|id| source.id == id))
                .map(|source| json!(source))
                .collect(),
            Vec::new(),
        ),
        "countries" => {
            let wanted = input.id.as_deref().or(input.country.as_deref());
            let entity = wanted
                .map(|text| {
                    baked.countries().resolve_entity(text).ok_or_else(|| {
                        ToolError::Invalid(format!(
                            "`{}` is not a country or aggregate of the corpus",
                            common::snippet(text)
                        ))
                    })
                })
                .transpose()?;
            (
                baked
                    .countries()
                    .entities()
                    .iter()
                    .filter(|candidate| entity.is_none_or(|entity| entity.iso3 == candidate.iso3))
                    .map(|entity| json!(entity))
                    .collect(),
                Vec::new(),
            )
        }
        "series_stats" => {
            let stats = corpus.series_stats().map_err(ToolError::Internal)?;
            let indicator = input
                .indicator
                .as_deref()
                .map(|id| common::metric(corpus, id))
                .transpose()?;
            let country = input
                .country
                .as_deref()
                .map(|text| common::countries(corpus, &[text.to_string()], 1, 1))
                .transpose()?
                .map(|found| found[0].iso3.clone());
            let rows = stats
                .iter()
                .filter(|row| {
                    indicator.is_none_or(|metric| row.indicator == metric.id)
                        && country
                            .as_deref()
                            .is_none_or(|country| row.country == country)
                })
                .map(|row| json!(row))
                .collect();
            (rows, Vec::new())
        }
        "pillars" => (
            baked
                .pillars()
                .pillars()
                .iter()
                .filter(|pillar| input.id.as_deref().is_none_or(|id| pillar.id == id))
                .map(|pillar| json!(pillar))
                .collect(),
            Vec::new(),
        ),
        "citations" => {
            let id = input.id.as_deref().ok_or_else(|| ToolError::Invalid("dataset `citations` is read by `id`, a citation id such as wb-sp-dyn-le00-in-mex-2024 (resolve_citations takes up to 50)".into()))?;
            let citation = baked
                .resolve_citation(id)
                .map_err(|unresolved| ToolError::Invalid(unresolved.to_string()))?;
            (vec![json!(citation)], Vec::new())
        }
        "concordance" => {
            return Err(ToolError::Invalid(
                "dataset `concordance` is catalogued (see dataset_id `catalog`) and published as concordance.parquet and concordance.arrow in the corpus directory; reading its rows through get_dataset is not available yet".into(),
            ));
        }
        other => {
            let mut valid: Vec<&str> = corpus
                .datasets
                .iter()
                .map(|dataset| dataset.dataset_id.as_str())
                .filter(|id| *id != "concordance")
                .collect();
            valid.insert(0, "catalog");
            return Err(ToolError::Invalid(format!(
                "unknown dataset_id `{}`; valid: {}",
                common::snippet(other),
                valid.join(", ")
            )));
        }
    };
    let total = rows.len();
    let page: Vec<Value> = rows.into_iter().skip(offset).take(limit).collect();
    let truncated = offset + page.len() < total;
    let (title, keys) = match corpus.dataset(&input.dataset_id) {
        Some(dataset) => (dataset.title.clone(), dataset.keys.clone()),
        None => (
            "Dataset catalog".to_string(),
            vec!["dataset_id".to_string()],
        ),
    };
    let citations = common::citation_records(corpus, cited.iter().map(String::as_str))?;
    let result = GetDatasetResult {
        sources: vec![common::source_link(
            corpus,
            if input.dataset_id == "catalog" {
                "metrics"
            } else {
                &input.dataset_id
            },
            None,
        )],
        dataset_id: input.dataset_id,
        title,
        keys,
        total,
        offset,
        rows: page,
        truncated,
    };
    Ok(ToolAnswer {
        result,
        citations,
        display: None,
    })
}

/// The rows of an observation table matching the indicator, country and year filters.
fn observation_rows<'a>(
    corpus: &'a Corpus,
    table: &'a ObservationTable,
    input: &GetDatasetInput,
) -> Result<Vec<Observation<'a>>, ToolError> {
    let indicator = input
        .indicator
        .as_deref()
        .map(|id| common::metric(corpus, id))
        .transpose()?;
    let country = match input.country.as_deref() {
        Some(text) => Some(
            corpus
                .baked
                .countries()
                .resolve_entity(text)
                .ok_or_else(|| {
                    ToolError::Invalid(format!(
                        "`{}` is not a country or aggregate of the corpus",
                        common::snippet(text)
                    ))
                })?
                .iso3
                .clone(),
        ),
        None => None,
    };
    let range = match (indicator, &country) {
        (Some(metric), Some(country)) => table.series(&metric.id, country),
        (Some(metric), None) => table.indicator_rows(&metric.id),
        (None, _) => 0..table.len(),
    };
    Ok(range
        .map(|row_idx| table.row(row_idx))
        .filter(|row| {
            country
                .as_deref()
                .is_none_or(|country| row.country == country)
                && input.year.is_none_or(|year| row.year == year)
        })
        .collect())
}

fn observation_json(row: &Observation<'_>) -> Value {
    json!({
        "indicator": row.indicator,
        "country": row.country,
        "year": row.year,
        "value": row.value,
        "source": row.source,
        "vintage": row.vintage,
        "citation_id": row.citation_id,
        "flags": row.flags,
        "standard_error": row.standard_error,
        "source_count": row.source_count,
    })
}
