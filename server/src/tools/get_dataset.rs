//! `get_dataset`: read any catalogued dataset by its id and keys.
//!
//! Reads the dataset catalog (`datasets.json`, id `catalog`) and, by `dataset_id`: `observations` and
//! `aggregates` (filtered by indicator, country, year), `metrics` (by id or pillar), `sources`,
//! `countries`, `pillars`, `citations` (by citation id), `series_stats` (the bake's per-series
//! statistics, by indicator and country), `discoveries` (anomalies and source contradictions, by
//! indicator, country, year), `concordance` (both publishers' values per pair, country and year; pair id
//! as `id`) and `data_health` (per pillar and country). Rows are paged (`limit` 1 to 500, default 100,
//! and `offset`; a page stops at about 32 KB of rows and the citation records they bring, and
//! `next_offset` says where the next begins);
//! `total` says how many rows match. Every citation id a page holds is resolved in
//! `citations`.

use corpus::{CitedRecord, RecordDataset};
use corpus::{Lang, Observation, ObservationTable, exports::Subject};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    ToolAnswer, ToolError, ToolSpec,
    answer::{self, significant},
    arguments::{self, YearWindow},
    display::{self, SourceLink},
};
use crate::load::Corpus;

/// The most rows one page holds.
pub const MAX_LIMIT: usize = 500;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_dataset",
        "Read a catalogued dataset by id and keys",
        "Reads a dataset's rows: `catalog` (every dataset: keys, columns, sources, licences), \
         observations, aggregates, metrics, sources, countries, pillars, citations, \
         series_stats, discoveries, concordance (one quantity from two publishers), data_health, \
         and curated records with citation_id and link: projects, regulation (climate laws), \
         institutions, financing (OECD CRS flows, totals per financier; World Bank instruments), \
         events, by `id`, indicator, country, pillar, year, from_year, to_year (`full`: every \
         field). `total` and `next_offset` say what is left.",
        &DATASETS,
        handle,
    )
}

/// The datasets `year` filters.
const YEAR_FILTERED: [&str; 4] = ["observations", "aggregates", "discoveries", "concordance"];

/// The datasets it reads: every table of the catalog, the curated records last.
const DATASETS: [&str; 16] = [
    "observations",
    "aggregates",
    "metrics",
    "sources",
    "countries",
    "pillars",
    "citations",
    "series_stats",
    "discoveries",
    "concordance",
    "data_health",
    RecordDataset::Projects.id(),
    RecordDataset::Regulation.id(),
    RecordDataset::Institutions.id(),
    RecordDataset::Financing.id(),
    RecordDataset::Events.id(),
];

/// The filters of a curated record dataset: its citation id, a country among its countries, a pillar
/// among its pillars.
struct RecordFilter {
    id: Option<String>,
    country: Option<String>,
    pillar: Option<String>,
}

impl RecordFilter {
    fn keeps(&self, citation_id: &str, countries: &[String], pillars: &[String]) -> bool {
        self.id.as_deref().is_none_or(|id| id == citation_id)
            && self
                .country
                .as_ref()
                .is_none_or(|country| countries.contains(country))
            && self
                .pillar
                .as_ref()
                .is_none_or(|pillar| pillars.contains(pillar))
    }
}

/// The provenance fields of a curated record that its citation record (in `citations.records`) carries:
/// left out of its row, so they are said once.
const PROVENANCE_FIELDS: [&str; 4] = ["publisher", "license", "attribution", "retrieved_at"];

/// A curated record as a row without its provenance (said once, in its citation record, which the
/// page's `citations` carries), weighed with that record.
fn weighted_record<T: Serialize + CitedRecord>(record: &T) -> (Value, Vec<String>, usize) {
    let citation = serde_json::to_string(&record.citation()).map_or(0, |text| text.len());
    let mut row = json!(record);
    if let Some(fields) = row.as_object_mut() {
        for field in PROVENANCE_FIELDS {
            fields.remove(field);
        }
    }
    (row, Vec::new(), citation)
}

/// Arguments of `get_dataset`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDatasetInput {
    /// A dataset id of the description.
    #[schemars(transform = super::limits::cap_identifier)]
    #[schemars(description = "")]
    pub dataset_id: String,
    /// Indicator or metric id.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    #[schemars(description = "")]
    pub indicator: Option<String>,
    /// ISO3, name or aggregate code.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub country: Option<String>,
    /// Year (observations, aggregates, discoveries, concordance).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub year: Option<i32>,
    /// A record key: metric, source or pillar id, ISO3, citation id, pair id.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub id: Option<String>,
    /// Pillar (metrics, data_health, curated records).
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub pillar: Option<String>,
    /// Curated records: first year.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub from_year: Option<i32>,
    /// Curated records: last year.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub to_year: Option<i32>,
    /// Curated records: every field.
    #[serde(default)]
    pub full: Option<bool>,
    /// Rows, 1-500 (default 100).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 500), extend("default" = 100))]
    #[schemars(description = "")]
    pub limit: Option<u32>,
    /// Rows to skip.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(description = "")]
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
    /// A curated dataset's description, on its first page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub about: Option<String>,
    /// Rows matching the filters.
    pub total: usize,
    /// Rows skipped.
    pub offset: usize,
    /// This page's rows, as objects.
    pub rows: Vec<Value>,
    /// Whether more rows follow this page.
    pub truncated: bool,
    /// The `offset` of the next page, when more rows follow. A page holds at most `limit` rows and about
    /// 32 KB of them with their citation records, whichever comes first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// `financing` of one `country`: the CRS disbursements of every matching flow (not only this page's)
    /// summed per financier over the years asked (`from_year`/`to_year`, else every year), largest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub financing_totals: Option<FinancingTotals>,
    /// What the rows mean and cannot say (the CRS caveats on every `financing` page).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
    /// The whole dataset's files, and the indicator's when the page is filtered by one (`indicator`, or
    /// `id` of `metrics`): CSV, XLSX, Parquet, SDMX, to carry on in a notebook or a spreadsheet.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<display::FileLink>,
}

/// CRS climate-related disbursements per financier over a window of years.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FinancingTotals {
    /// First year summed (the earliest reported when `from_year` is not given).
    pub from_year: i32,
    /// Last year summed.
    pub to_year: i32,
    /// Financiers with a flow in the window.
    pub financiers_total: usize,
    /// The largest financiers, largest current-price sum first: [`TOP_FINANCIERS`] with a `limit`,
    /// [`DEFAULT_TOP_FINANCIERS`] in a default page (`financiers_total` counts them all).
    pub financiers: Vec<FinancierTotal>,
}

/// Financiers listed in [`FinancingTotals`] at most.
pub const TOP_FINANCIERS: usize = 10;
/// Financiers listed in the totals of a page asked without `limit` (the default answer's 10 KB).
pub const DEFAULT_TOP_FINANCIERS: usize = 5;

/// One financier's CRS disbursements over the window.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FinancierTotal {
    /// The CRS donor (`Japan`, `EU Institutions`).
    pub financier: String,
    /// Disbursed, US$ million at current prices summed over the years (as the OECD's own tables add
    /// them), at six significant digits.
    pub current_usd_mn: f64,
    /// Disbursed, US$ million at constant prices (CRS base year), at six significant digits.
    pub constant_usd_mn: f64,
    /// The flows (flow type × sector group) summed.
    pub flows: usize,
    /// The sum's record: `calc-financing-{iso3 or lac}-{financier}-{from}-{to}` (exists only in this
    /// response), its method and the citation ids of the flows summed, largest first (each resolves with
    /// `resolve_citations` or `get_dataset` `financing` by `id`).
    pub calc: FinancierCalc,
}

/// The record of a financier's sum.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FinancierCalc {
    /// `calc-financing-…`.
    pub citation_id: String,
    /// How the sum was formed.
    pub method: String,
    /// The flows' citation ids.
    pub inputs: Vec<String>,
}

/// The caveats of the OECD CRS climate-related extract, said on every financing answer.
pub const CRS_NOTES: [&str; 4] = [
    "OECD CRS climate-related disbursements are an upper bound: an activity whose Rio marker for adaptation or mitigation is significant or principal counts in full",
    "adaptation cannot be separated from mitigation in these flows: an activity marked for both counts once, in full",
    "multilateral development banks that report no Rio markers (IDB, CAF, CABEI) are absent, and so is China, which does not report to the CRS",
    "amounts are disbursements in US$ million; totals over years add current prices as the OECD's tables do, and constant prices (CRS base year) beside them",
];

/// Bytes one page holds at most (compact JSON of its rows, and of the citation records they bring:
/// see [`SERIES_RECORD_BYTES`]), so that a page stays within an answer's 40 KB budget.
pub const PAGE_BYTES: usize = 32 * 1024;
/// Bytes a page holds when the call gives no `limit`: the default answer stays within 10 KB (GitHub
/// Copilot CLI and Codex cut a result there); `total` and `next_offset` say what is left.
pub const DEFAULT_PAGE_BYTES: usize = 7 * 1024;

/// Which rows a page takes: from `offset`, at most `limit`, within `bytes` of rows and their records.
#[derive(Debug, Clone, Copy)]
struct Span {
    offset: usize,
    limit: usize,
    bytes: usize,
}
/// Bytes counted for the record of each new series a page cites (country and deep link; measured
/// 110 to 160).
pub const SERIES_RECORD_BYTES: usize = 180;
/// Bytes counted for the record of each new indicator a page cites (source, code, title, unit;
/// measured 150 to 330).
pub const INDICATOR_RECORD_BYTES: usize = 400;

/// One page of matching rows, before the envelope: the rows, how many matched, the citation ids they hold.
struct Page {
    total: usize,
    rows: Vec<Value>,
    cited: Vec<String>,
    bytes: usize,
}

impl Page {
    /// Pages `matching` (counting every match, building only the page's rows) with `to_row`, which
    /// returns a row and the citation ids it holds.
    fn of<T>(
        matching: impl Iterator<Item = T>,
        span: Span,
        to_row: impl Fn(T) -> (Value, Vec<String>),
    ) -> Page {
        Page::weighted(matching, span, |item| {
            let (row, cited) = to_row(item);
            (row, cited, 0)
        })
    }

    /// As [`Page::of`], with `to_row` also giving the bytes its row adds to `citations` beyond its
    /// series and indicator records (a curated record's citation).
    fn weighted<T>(
        matching: impl Iterator<Item = T>,
        span: Span,
        to_row: impl Fn(T) -> (Value, Vec<String>, usize),
    ) -> Page {
        Page::within(matching, span.offset, span.limit, span.bytes, to_row)
    }

    /// As [`Page::weighted`], the rows and their records held to `budget` bytes (what the answer's other
    /// parts leave of [`PAGE_BYTES`]).
    fn within<T>(
        matching: impl Iterator<Item = T>,
        offset: usize,
        limit: usize,
        budget: usize,
        to_row: impl Fn(T) -> (Value, Vec<String>, usize),
    ) -> Page {
        let mut page = Page {
            total: 0,
            rows: Vec::new(),
            cited: Vec::new(),
            bytes: 0,
        };
        let mut full = false;
        let mut series = std::collections::HashSet::new();
        let mut indicators = std::collections::HashSet::new();
        for item in matching {
            if page.total >= offset && page.rows.len() < limit && !full {
                let (row, cited, extra) = to_row(item);
                let mut size = row.to_string().len() + extra;
                for id in &cited {
                    let series_id = crate::tools::answer::series_id(id);
                    if !series.contains(series_id) {
                        size += SERIES_RECORD_BYTES;
                        // The series id less its country: one key per indicator.
                        let indicator = crate::tools::answer::series_id(series_id);
                        if !indicators.contains(indicator) {
                            size += INDICATOR_RECORD_BYTES;
                        }
                    }
                }
                // The first row always fits, so every page moves forward.
                if page.rows.is_empty() || page.bytes + size <= budget {
                    page.bytes += size;
                    for id in &cited {
                        let series_id = crate::tools::answer::series_id(id);
                        indicators.insert(crate::tools::answer::series_id(series_id).to_string());
                        series.insert(series_id.to_string());
                    }
                    page.rows.push(row);
                    page.cited.extend(cited);
                } else {
                    full = true;
                }
            }
            page.total += 1;
        }
        page
    }
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
    // A page without `limit` stays within the default answer's 10 KB; with one, within 40 KB.
    let span = Span {
        offset,
        limit,
        bytes: if input.limit.is_some() {
            PAGE_BYTES
        } else {
            DEFAULT_PAGE_BYTES
        },
    };
    if let Some(year) = input.year {
        arguments::year_range(Some(year), Some(year))?;
    }
    let record_dataset = RecordDataset::from_id(&input.dataset_id);
    let window = YearWindow::of(input.from_year, input.to_year)?;
    let asks_window = window.is_some() || input.full == Some(true);
    let known = input.dataset_id == "catalog" || corpus.dataset(&input.dataset_id).is_some();
    if asks_window && record_dataset.is_none() && known {
        let year = if YEAR_FILTERED.contains(&input.dataset_id.as_str()) {
            "filtered by `year`"
        } else {
            "not filtered by year"
        };
        return Err(ToolError::Invalid(format!(
            "from_year, to_year and full read the curated records (projects, regulation, financing, events); `{}` is {year}",
            arguments::snippet(&input.dataset_id)
        )));
    }
    if window.is_some() && record_dataset == Some(RecordDataset::Institutions) {
        return Err(ToolError::Invalid(
            "from_year, to_year: institutions carry no dates; filter them by country, pillar or id"
                .into(),
        ));
    }
    let (page, financing_totals) = if let Some(dataset) = record_dataset {
        record_page(corpus, dataset, &input, window, span)?
    } else {
        (other_page(corpus, &input, span)?, None)
    };
    let mut notes = if record_dataset == Some(RecordDataset::Financing) {
        CRS_NOTES.map(String::from).to_vec()
    } else {
        Vec::new()
    };
    if record_dataset == Some(RecordDataset::Financing)
        && let Some(window) = window
        && let Some(note) = crs_coverage_note(corpus, window)?
    {
        notes.push(note);
    }
    // A curated dataset's first page also says what the dataset holds.
    let first_curated_page = offset == 0 && record_dataset.is_some();
    let (title, keys, about) = match corpus.dataset(&input.dataset_id) {
        Some(dataset) => (
            dataset.title.clone(),
            dataset.keys.clone(),
            first_curated_page.then(|| dataset.description.clone()),
        ),
        None => (
            "Dataset catalog".to_string(),
            vec!["dataset_id".to_string()],
            None,
        ),
    };
    let mut cited = page.cited;
    cited.sort_unstable();
    cited.dedup();
    let citations = answer::citation_records(corpus, cited.iter().map(String::as_str))?;
    // A page of curated records cites each record it shows.
    let records = if record_dataset.is_some() {
        // Each row's record, and for an event the record it was made from, once.
        let mut ids: Vec<&str> = Vec::new();
        for row in &page.rows {
            for key in ["citation_id", "record_id"] {
                if let Some(id) = row[key].as_str().filter(|id| !ids.contains(id)) {
                    ids.push(id);
                }
            }
        }
        ids.into_iter()
            .filter_map(|id| corpus.record_citation(id))
            .collect()
    } else {
        Vec::new()
    };
    let mut files = display::file_links(corpus, Subject::Dataset, &input.dataset_id);
    let indicator_id = match input.dataset_id.as_str() {
        "metrics" => input.id.as_deref().or(input.indicator.as_deref()),
        _ => input.indicator.as_deref(),
    };
    if let Some(Ok(metric)) = indicator_id.map(|id| arguments::metric(corpus, id)) {
        files.extend(display::file_links(corpus, Subject::Indicator, &metric.id));
    }
    let result = GetDatasetResult {
        files,
        sources: vec![display::source_link(
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
        about,
        total: page.total,
        offset,
        truncated: offset + page.rows.len() < page.total,
        next_offset: (offset + page.rows.len() < page.total).then_some(offset + page.rows.len()),
        rows: page.rows,
        financing_totals,
        notes,
    };
    Ok(ToolAnswer {
        result,
        citations,
        display: None,
        records,
    })
}

/// A page of a dataset other than the curated records: the catalog, the observation tables, the
/// registries, citations and the derived views.
///
/// # Errors
/// [`ToolError::Invalid`] for an unknown dataset or a filter that names nothing the corpus holds;
/// [`ToolError::Internal`] if an artifact cannot be read.
fn other_page(corpus: &Corpus, input: &GetDatasetInput, span: Span) -> Result<Page, ToolError> {
    let baked = &corpus.baked;
    let plain = |value: Value| (value, Vec::new());
    Ok(match input.dataset_id.as_str() {
        "catalog" => Page::of(corpus.datasets.iter(), span, |dataset| {
            plain(json!(dataset))
        }),
        "observations" | "aggregates" => {
            let table = if input.dataset_id == "observations" {
                baked.observations()
            } else {
                baked.aggregates()
            };
            let matching = observation_rows(corpus, table, input)?;
            Page::of(matching, span, |row| {
                (observation_json(&row), vec![row.citation_id.to_string()])
            })
        }
        "metrics" => {
            let pillar = arguments::optional_pillar(corpus, input.pillar.as_deref())?
                .map(|pillar| pillar.id.as_str());
            let id = input.id.as_deref().or(input.indicator.as_deref());
            if let Some(id) = id {
                arguments::metric(corpus, id)?;
            }
            let matching = baked.metrics().iter().filter(|metric| {
                id.is_none_or(|id| metric.id == id)
                    && pillar.is_none_or(|pillar| metric.pillar == pillar)
            });
            Page::of(matching, span, |metric| plain(json!(metric)))
        }
        "sources" => {
            let matching = baked
                .sources()
                .iter()
                .filter(|source| input.id.as_deref().is_none_or(|id| source.id == id));
            Page::of(matching, span, |source| plain(json!(source)))
        }
        "countries" => {
            let wanted = input.id.as_deref().or(input.country.as_deref());
            let entity = wanted.map(|text| entity(corpus, text)).transpose()?;
            let matching = baked
                .countries()
                .entities()
                .iter()
                .filter(|candidate| entity.is_none_or(|entity| entity == candidate.iso3));
            Page::of(matching, span, |entity| plain(json!(entity)))
        }
        "series_stats" => {
            let stats = corpus.series_stats().map_err(ToolError::Internal)?;
            let indicator = arguments::optional_metric(corpus, input.indicator.as_deref())?
                .map(|metric| metric.id.as_str());
            let country = arguments::optional_country(corpus, input.country.as_deref())?
                .map(|country| country.iso3.as_str());
            let matching = stats.iter().filter(|row| {
                indicator.is_none_or(|indicator| row.indicator == indicator)
                    && country.is_none_or(|country| row.country == country)
            });
            Page::of(matching, span, |row| {
                (json!(row), vec![row.latest_citation_id.clone()])
            })
        }
        "discoveries" => {
            let discoveries = corpus.discoveries().map_err(ToolError::Internal)?;
            let indicator = arguments::optional_metric(corpus, input.indicator.as_deref())?
                .map(|metric| metric.id.as_str());
            let country = arguments::optional_country(corpus, input.country.as_deref())?
                .map(|country| country.iso3.as_str());
            let keep = |indicators: [&str; 2], row_country: &str, year: i32| {
                indicator.is_none_or(|indicator| indicators.contains(&indicator))
                    && country.is_none_or(|country| row_country == country)
                    && input.year.is_none_or(|wanted| year == wanted)
            };
            let anomalies = discoveries
                .anomalies
                .iter()
                .filter(|row| keep([&row.indicator, &row.indicator], &row.country, row.year))
                .map(|row| {
                    let mut value = json!(row);
                    value["kind"] = json!("anomaly");
                    (value, row.citation_ids.to_vec())
                });
            let contradictions = discoveries
                .contradictions
                .iter()
                .filter(|row| {
                    keep(
                        [&row.left_indicator, &row.right_indicator],
                        &row.country,
                        row.year,
                    )
                })
                .map(|row| {
                    let mut value = json!(row);
                    value["kind"] = json!("contradiction");
                    (value, row.citation_ids.to_vec())
                });
            Page::of(anomalies.chain(contradictions), span, |row| row)
        }
        "concordance" => {
            let rows = corpus.concordance().map_err(ToolError::Internal)?;
            let pair = match input.id.as_deref() {
                Some(pair) if rows.iter().any(|row| row.pair == pair) => Some(pair),
                Some(pair) => {
                    let mut pairs: Vec<&str> = rows.iter().map(|row| row.pair.as_str()).collect();
                    pairs.dedup();
                    return Err(ToolError::Invalid(format!(
                        "no concordance pair `{}`; valid pairs: {}",
                        arguments::snippet(pair),
                        pairs.join(", ")
                    )));
                }
                None => None,
            };
            let indicator = arguments::optional_metric(corpus, input.indicator.as_deref())?
                .map(|metric| metric.id.as_str());
            let country = arguments::optional_country(corpus, input.country.as_deref())?
                .map(|country| country.iso3.as_str());
            let matching = rows.iter().filter(|row| {
                pair.is_none_or(|pair| row.pair == pair)
                    && indicator.is_none_or(|indicator| {
                        row.left_indicator == indicator
                            || row.right_indicator == indicator
                            || row.right_times_indicator.as_deref() == Some(indicator)
                    })
                    && country.is_none_or(|country| row.country == country)
                    && input.year.is_none_or(|year| row.year == year)
            });
            Page::of(matching, span, |row| {
                let mut cited = vec![row.left_citation_id.clone(), row.right_citation_id.clone()];
                cited.extend(row.right_times_citation_id.clone());
                let mut value = json!(row);
                // Derived: without the noise of binary arithmetic (stored values keep every bit).
                value["right_value_aligned"] = json!(significant(row.right_value_aligned, 12));
                value["difference"] = json!(significant(row.difference, 12));
                (value, cited)
            })
        }
        "data_health" => {
            let view = corpus.data_health().map_err(ToolError::Internal)?;
            let pillar = arguments::optional_pillar(corpus, input.pillar.as_deref())?
                .map(|pillar| pillar.id.as_str());
            let country = arguments::optional_country(corpus, input.country.as_deref())?
                .map(|country| country.iso3.as_str());
            let matching = view.pillar_countries.iter().filter(|row| {
                pillar.is_none_or(|pillar| row.parameter == pillar)
                    && country.is_none_or(|country| row.country == country)
            });
            Page::of(matching, span, |row| plain(json!(row)))
        }
        "pillars" => {
            let matching = baked
                .pillars()
                .pillars()
                .iter()
                .filter(|pillar| input.id.as_deref().is_none_or(|id| pillar.id == id));
            Page::of(matching, span, |pillar| plain(json!(pillar)))
        }
        "citations" => {
            let id = input.id.as_deref().ok_or_else(|| ToolError::Invalid("dataset `citations` is read by `id`, a citation id such as wb-sp-dyn-le00-in-mex-2024 (resolve_citations takes up to 50)".into()))?;
            let citation = baked
                .resolve_citation(id)
                .map_err(|unresolved| ToolError::Invalid(unresolved.to_string()))?;
            Page::of(std::iter::once(citation), span, |citation| {
                let id = citation.citation_id.to_string();
                (json!(citation), vec![id])
            })
        }
        other => {
            let mut valid: Vec<&str> = corpus
                .datasets
                .iter()
                .map(|dataset| dataset.dataset_id.as_str())
                .collect();
            valid.insert(0, "catalog");
            return Err(ToolError::Invalid(format!(
                "unknown dataset_id `{}`; valid: {}",
                arguments::snippet(other),
                valid.join(", ")
            )));
        }
    })
}

/// A page of the curated record dataset `dataset` (each row a record cited by its `citation_id`), filtered
/// by `id` (P-code or citation id), `country` and `pillar`.
///
/// # Errors
/// [`ToolError::Invalid`] for a filter the dataset does not take or a country or pillar the corpus lacks;
/// [`ToolError::Internal`] if its table cannot be read.
fn record_page(
    corpus: &Corpus,
    dataset: RecordDataset,
    input: &GetDatasetInput,
    window: Option<YearWindow>,
    span: Span,
) -> Result<(Page, Option<FinancingTotals>), ToolError> {
    let full = input.full.unwrap_or(false) || input.id.is_some();
    let in_window = |date: Option<&str>| window.is_none_or(|window| window.holds_date(date));
    if let Some(id) = input.id.as_deref() {
        known_record(corpus, dataset, id)?;
    }
    if dataset == RecordDataset::Financing {
        return financing_page(corpus, input, window, full, span);
    }
    Ok((
        match dataset {
            RecordDataset::Projects => {
                for (name, given) in [
                    ("indicator", input.indicator.is_some()),
                    ("year", input.year.is_some()),
                ] {
                    if given {
                        return Err(ToolError::Invalid(format!(
                            "{name}: projects rows are filtered by id (P-code or citation id), country and pillar only"
                        )));
                    }
                }
                let projects = corpus.projects().map_err(ToolError::Internal)?;
                let country = arguments::optional_country(corpus, input.country.as_deref())?
                    .map(|country| country.iso3.as_str());
                let pillar = arguments::optional_pillar(corpus, input.pillar.as_deref())?
                    .map(|pillar| pillar.id.as_str());
                // A P-code in any case or its digits alone, or the record's citation id (`wbproj-p127837`);
                // an id the corpus does not hold matches nothing.
                let id = input
                    .id
                    .as_deref()
                    .map(|id| corpus.project_named(id).map(|project| project.id.as_str()));
                let matching = projects.iter().filter(|project| {
                    id.is_none_or(|id| id == Some(project.id.as_str()))
                        && country.is_none_or(|country| project.country.as_deref() == Some(country))
                        && pillar.is_none_or(|pillar| project.pillars.iter().any(|of| of == pillar))
                        && in_window(project.approval_date.as_deref())
                });
                Page::weighted(matching, span, weighted_record)
            }
            RecordDataset::Regulation
            | RecordDataset::Institutions
            | RecordDataset::Financing
            | RecordDataset::Events => {
                let filter = record_filter(corpus, input)?;
                match dataset {
                    RecordDataset::Regulation => {
                        let table = corpus.laws().map_err(ToolError::Internal)?;
                        let mut matching: Vec<&corpus::Law> = table
                            .records
                            .iter()
                            .filter(|law| {
                                filter.keeps(
                                    &law.citation_id,
                                    std::slice::from_ref(&law.country),
                                    &law.pillars,
                                ) && in_window(law.date.as_deref())
                            })
                            .collect();
                        // Newest first; an undated record last.
                        matching.sort_by(|left, right| {
                            right
                                .date
                                .cmp(&left.date)
                                .then(left.citation_id.cmp(&right.citation_id))
                        });
                        Page::weighted(matching.into_iter(), span, |law| {
                            if full {
                                weighted_record(law)
                            } else {
                                let (_, cited, bytes) = weighted_record(law);
                                (compact_law(law), cited, bytes)
                            }
                        })
                    }
                    RecordDataset::Institutions => {
                        let table = corpus.institutions().map_err(ToolError::Internal)?;
                        let matching = table.records.iter().filter(|body| {
                            filter.keeps(
                                &body.citation_id,
                                std::slice::from_ref(&body.country),
                                &body.pillars,
                            )
                        });
                        Page::weighted(matching, span, weighted_record)
                    }
                    RecordDataset::Projects | RecordDataset::Financing | RecordDataset::Events => {
                        let table = corpus.events().map_err(ToolError::Internal)?;
                        let matching = table.records.iter().filter(|event| {
                            filter.keeps(&event.citation_id, &event.countries, &event.pillars)
                                && in_window(Some(&event.date))
                        });
                        // An event also cites the record it was made from.
                        Page::weighted(matching, span, |event| {
                            let (row, cited, bytes) = weighted_record(event);
                            let source = event
                                .record_id
                                .as_deref()
                                .and_then(|id| corpus.record_citation(id))
                                .and_then(|record| serde_json::to_string(&record).ok())
                                .map_or(0, |text| text.len());
                            (row, cited, bytes + source)
                        })
                    }
                }
            }
        },
        None,
    ))
}

/// The filters of a curated dataset other than `projects` (which is filtered by P-code too), after
/// refusing the observation filters it does not take.
fn record_filter(corpus: &Corpus, input: &GetDatasetInput) -> Result<RecordFilter, ToolError> {
    for (name, given) in [
        ("indicator", input.indicator.is_some()),
        ("year", input.year.is_some()),
    ] {
        if given {
            return Err(ToolError::Invalid(format!(
                "{name}: {} rows are filtered by id (their citation id), country, pillar, from_year and to_year",
                input.dataset_id
            )));
        }
    }
    Ok(RecordFilter {
        // Citation ids are lower case, without spaces.
        id: input.id.as_deref().map(|id| id.trim().to_ascii_lowercase()),
        country: arguments::optional_country(corpus, input.country.as_deref())?
            .map(|country| country.iso3.clone()),
        pillar: arguments::optional_pillar(corpus, input.pillar.as_deref())?
            .map(|pillar| pillar.id.clone()),
    })
}

/// What a window asks of the CRS that the extract does not cover: the years before its first or after its
/// last reported year (a year outside them is unrecorded here, not a year without money); `None` when
/// the window lies within them.
fn crs_coverage_note(corpus: &Corpus, window: YearWindow) -> Result<Option<String>, ToolError> {
    let table = corpus.financing().map_err(ToolError::Internal)?;
    let years = table
        .records
        .iter()
        .flat_map(|record| record.years.iter().map(|flow| flow.year));
    let Some((first, last)) = years.fold(None, |span: Option<(i32, i32)>, year| {
        Some(span.map_or((year, year), |(first, last)| {
            (first.min(year), last.max(year))
        }))
    }) else {
        return Ok(None);
    };
    let before = window.from.is_some_and(|from| from < first);
    let after = window.to.is_some_and(|to| to > last);
    Ok(match (before, after) {
        (false, false) => None,
        _ => Some(format!(
            "the OECD CRS extract covers {first}–{last}: the window's years outside it have no CRS record \
             here (not a zero)"
        )),
    })
}

/// Refuses an `id` that names no record of `dataset`: an id of another curated dataset names that
/// dataset, any other what this one's ids look like. (A project is also found by its P-code or digits.)
fn known_record(corpus: &Corpus, dataset: RecordDataset, id: &str) -> Result<(), ToolError> {
    let citation_id = id.trim().to_ascii_lowercase();
    if dataset == RecordDataset::Projects && corpus.project_named(id).is_some() {
        return Ok(());
    }
    let found = RecordDataset::of_citation_id(&citation_id)
        .filter(|_| corpus.record_citation(&citation_id).is_some())
        .map(|(of, _)| of);
    match found {
        Some(of) if of == dataset => Ok(()),
        Some(of) => Err(ToolError::Invalid(format!(
            "id `{}` is a record of `{of}`, not of `{dataset}`: ask get_dataset `{of}` with it",
            arguments::snippet(id)
        ))),
        None => {
            let examples: Vec<&str> = dataset
                .citation_prefixes()
                .iter()
                .map(|prefix| prefix.example)
                .collect();
            Err(ToolError::Invalid(format!(
                "id `{}`: no record of `{dataset}` has that citation id (its ids look like {}); search_corpus \
                 finds records by their words, or leave id out to page the dataset",
                arguments::snippet(id),
                examples.join(", ")
            )))
        }
    }
}

/// A page of `financing`: the matching records by country, kind, then the largest amount first (the
/// window's current-price disbursements when years are asked, else CRS totals at constant prices and the
/// instruments' commitments), and the CRS totals per financier over every matching flow. With a window, a
/// CRS flow is kept when it reports a year in it, an instrument when one of its projects was approved in
/// it, and each row carries the window's amounts.
fn financing_page(
    corpus: &Corpus,
    input: &GetDatasetInput,
    window: Option<YearWindow>,
    full: bool,
    span: Span,
) -> Result<(Page, Option<FinancingTotals>), ToolError> {
    let filter = record_filter(corpus, input)?;
    let table = corpus.financing().map_err(ToolError::Internal)?;
    let (from, to) = window.map_or((None, None), |window| (window.from, window.to));
    // An instrument's approved projects approved in the window, their commitments and grants summed
    // (current US$; the record's `projects` are the approved ones, Pipeline projects apart).
    let approved_in = |record: &corpus::FinancingRecord| -> Approved {
        record
            .projects
            .iter()
            .filter_map(|id| corpus.project(id))
            .filter(|project| {
                window.is_none_or(|window| window.holds_date(project.approval_date.as_deref()))
            })
            .fold(Approved::default(), |sum, project| Approved {
                projects: sum.projects + 1,
                committed_usd: sum.committed_usd + project.commitment_usd.unwrap_or(0.0),
                grant_usd: sum.grant_usd + project.grant_usd.unwrap_or(0.0),
            })
    };
    // Each record's amounts worked out once: for the filter, the order and its row.
    let mut matching: Vec<FinancingRow<'_>> = table
        .records
        .iter()
        .filter(|record| {
            filter.keeps(
                &record.citation_id,
                std::slice::from_ref(&record.country),
                &record.pillars,
            )
        })
        .filter_map(|record| {
            let (disbursed, approved) = if record.years.is_empty() {
                let approved = window.map(|_| approved_in(record));
                if approved.is_some_and(|approved| approved.projects == 0) {
                    return None;
                }
                (None, approved)
            } else {
                (Some(record.disbursed_in(from, to)?), None)
            };
            let amount = match (window, disbursed, approved) {
                (Some(_), Some((current, _)), _) => current * 1e6,
                (Some(_), None, Some(approved)) => approved.committed_usd + approved.grant_usd,
                _ => record
                    .total_constant_usd_mn
                    .map(|millions| millions * 1e6)
                    .unwrap_or(
                        record.committed_usd.unwrap_or(0.0) + record.grant_usd.unwrap_or(0.0),
                    ),
            };
            Some(FinancingRow {
                record,
                disbursed,
                approved,
                amount,
            })
        })
        .collect();
    matching.sort_by(|left, right| {
        (&left.record.country, &left.record.kind)
            .cmp(&(&right.record.country, &right.record.kind))
            .then(right.amount.total_cmp(&left.amount))
            .then(left.record.citation_id.cmp(&right.record.citation_id))
    });
    // Per financier for one recipient (region-wide, the flows summed would fill the answer).
    let totals = filter
        .country
        .is_some()
        .then(|| {
            let top = if span.bytes == DEFAULT_PAGE_BYTES {
                DEFAULT_TOP_FINANCIERS
            } else {
                TOP_FINANCIERS
            };
            financier_totals(&matching, (from, to), top)
        })
        .flatten();
    // The totals and the notes travel with every page: the rows get what they leave.
    let beside = serde_json::to_string(&totals).map_or(0, |text| text.len())
        + CRS_NOTES.iter().map(|note| note.len() + 3).sum::<usize>();
    let budget = span.bytes.saturating_sub(beside);
    let page = Page::within(
        matching.iter(),
        span.offset,
        span.limit,
        budget,
        |matched| {
            let (mut row, cited, bytes) = weighted_record(matched.record);
            if !full {
                row.as_object_mut().map(|row| row.remove("years"));
            }
            if let (Some(window), Some((current, constant))) = (window, matched.disbursed) {
                row["window"] = json!({
                    "from_year": window.from,
                    "to_year": window.to,
                    "current_usd_mn": significant(current, 6),
                    "constant_usd_mn": significant(constant, 6),
                });
            } else if let Some(approved) = matched.approved {
                row["window"] = json!({
                    "from_year": window.and_then(|window| window.from),
                    "to_year": window.and_then(|window| window.to),
                    "projects_approved": approved.projects,
                    "committed_usd": approved.committed_usd,
                    "grant_usd": approved.grant_usd,
                });
            }
            (row, cited, bytes)
        },
    );
    Ok((page, totals))
}

/// A matching `financing` record with its amounts, worked out once.
struct FinancingRow<'a> {
    record: &'a corpus::FinancingRecord,
    /// A CRS flow's disbursements in the window (every year without one), US$ million `(current,
    /// constant)`.
    disbursed: Option<(f64, f64)>,
    /// With a window, an instrument's projects approved in it and their amounts summed.
    approved: Option<Approved>,
    /// What the page is ordered by (US$): the window's current disbursements or commitments, else the
    /// CRS total at constant prices or the instrument's commitments.
    amount: f64,
}

/// An instrument's projects approved in a window: how many, their IBRD + IDA commitments and their grants
/// summed apart (current US$).
#[derive(Debug, Clone, Copy, Default)]
struct Approved {
    projects: usize,
    committed_usd: f64,
    grant_usd: f64,
}

/// Flows summed for a financier: their citation ids and current-price amounts.
type FlowAmounts<'a> = Vec<(&'a str, f64)>;

/// A financier's sums: current and constant US$ million, and the flows summed.
type FinancierSum<'a> = (f64, f64, FlowAmounts<'a>);

/// The CRS disbursements of `matching` per financier over `from..=to`, largest current-price sum first;
/// the `top` largest listed; `None` when no CRS flow matches.
fn financier_totals(
    matching: &[FinancingRow<'_>],
    (from, to): (Option<i32>, Option<i32>),
    top: usize,
) -> Option<FinancingTotals> {
    let flows: Vec<(&corpus::FinancingRecord, (f64, f64))> = matching
        .iter()
        .filter_map(|matched| Some((matched.record, matched.disbursed?)))
        .collect();
    let years = flows
        .iter()
        .flat_map(|(record, _)| record.disbursing_years(from, to).map(|flow| flow.year));
    let (first, last) = years.fold(None, |span: Option<(i32, i32)>, year| {
        Some(span.map_or((year, year), |(first, last)| {
            (first.min(year), last.max(year))
        }))
    })?;
    let mut by_financier: std::collections::BTreeMap<&str, FinancierSum<'_>> =
        std::collections::BTreeMap::new();
    for (record, (current, constant)) in &flows {
        let entry = by_financier.entry(record.financier.as_str()).or_default();
        entry.0 += current;
        entry.1 += constant;
        entry.2.push((record.citation_id.as_str(), *current));
    }
    let (from_year, to_year) = (
        from.unwrap_or(first).max(first),
        to.unwrap_or(last).min(last),
    );
    let recipients: std::collections::BTreeSet<&str> = flows
        .iter()
        .map(|(record, _)| record.country.as_str())
        .collect();
    let place = match recipients.iter().next() {
        Some(only) if recipients.len() == 1 => only.to_ascii_lowercase(),
        _ => "lac".to_string(),
    };
    let mut financiers: Vec<(&str, f64, f64, FlowAmounts<'_>)> = by_financier
        .into_iter()
        .map(|(financier, (current, constant, ids))| (financier, current, constant, ids))
        .collect();
    financiers.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(right.0)));
    let financiers_total = financiers.len();
    let financiers = financiers
        .into_iter()
        .take(top)
        .map(|(financier, current, constant, mut ids)| {
            ids.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(right.0)));
            FinancierTotal {
                financier: financier.to_string(),
                current_usd_mn: significant(current, 6),
                constant_usd_mn: significant(constant, 6),
                flows: ids.len(),
                calc: FinancierCalc {
                    citation_id: format!(
                        "calc-financing-{place}-{}-{from_year}-{to_year}",
                        financier
                            .to_ascii_lowercase()
                            .split(|c: char| !c.is_ascii_alphanumeric())
                            .filter(|word| !word.is_empty())
                            .collect::<Vec<_>>()
                            .join("-")
                    ),
                    method: format!(
                        "sum of the yearly disbursements {from_year}-{to_year} of the financier's {} CRS climate-related flows (current and constant US$ million)",
                        ids.len()
                    ),
                    inputs: ids.into_iter().map(|(id, _)| id.to_string()).collect(),
                },
            }
        })
        .collect();
    Some(FinancingTotals {
        from_year,
        to_year,
        financiers_total,
        financiers,
    })
}

/// The compact row of a law or policy: what it is, when, and one line of its summary (the full record
/// with `full: true` or by `id`).
fn compact_law(law: &corpus::Law) -> Value {
    json!({
        "citation_id": law.citation_id,
        "title": law.title,
        "country": law.country,
        "kind": law.kind,
        "document_types": law.document_types,
        "date": law.date,
        "responses": law.responses,
        "pillars": law.pillars,
        "summary": one_line(&law.description, SUMMARY_CHARS),
        "url": law.url,
    })
}

/// Characters of a compact row's summary at most.
const SUMMARY_CHARS: usize = 200;

/// The first sentence of `text`, cut at a word boundary within `max` characters (with `…` when cut).
fn one_line(text: &str, max: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = text.find(". ").map_or(text.as_str(), |end| &text[..=end]);
    if sentence.chars().count() <= max {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(max).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}…", cut.trim_end_matches([',', ';', ':']))
}

/// The code of a country or comparison aggregate named by `text`.
fn entity<'c>(corpus: &'c Corpus, text: &str) -> Result<&'c str, ToolError> {
    corpus
        .baked
        .countries()
        .resolve_entity(text)
        .map(|entity| entity.iso3.as_str())
        .ok_or_else(|| {
            let place = corpus.baked.countries().lookup(text);
            let why = arguments::place_refusal(text, &place);
            ToolError::Invalid(if why.is_empty() {
                format!(
                    "`{}` is not a country or aggregate of the corpus",
                    arguments::snippet(text)
                )
            } else {
                why
            })
        })
}

/// The rows of an observation table matching the indicator, country and year filters, lazily.
fn observation_rows<'a>(
    corpus: &'a Corpus,
    table: &'a ObservationTable,
    input: &GetDatasetInput,
) -> Result<impl Iterator<Item = Observation<'a>> + 'a, ToolError> {
    let indicator = arguments::optional_metric(corpus, input.indicator.as_deref())?
        .map(|metric| metric.id.as_str());
    let country = input
        .country
        .as_deref()
        .map(|text| entity(corpus, text))
        .transpose()?;
    let range = match (indicator, country) {
        (Some(metric), Some(country)) => table.series(metric, country),
        (Some(metric), None) => table.indicator_rows(metric),
        (None, _) => 0..table.len(),
    };
    let year = input.year;
    Ok(range.map(|row_idx| table.row(row_idx)).filter(move |row| {
        country.is_none_or(|country| row.country == country)
            && year.is_none_or(|year| row.year == year)
    }))
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
