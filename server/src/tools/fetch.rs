//! `fetch`: one document of the corpus by the id `search` gave, in ChatGPT's deep-research shape (an
//! MCP-only tool beside the seed's fifteen).
//!
//! Answers `{"id", "title", "text", "url", "metadata"}` (OpenAI's MCP guide): `text` is the document in
//! plain lines, **every number followed by its citation id in brackets** (`2024: 75.264
//! [wb-sp-dyn-le00-in-mex-2024]`, resolvable by `resolve_citations`), projections and estimates marked;
//! `url` the publisher's page; `metadata` the publisher, dataset, licence, vintage and retrieval date.
//! The documents ([`DocumentId`]):
//!
//! - `indicator:{metric_id}`: the indicator's definition, unit and source, and the latest value of each
//!   country with one (ISO3 order, territories marked; never a ranking), the others named;
//! - `series:{metric_id}:{ISO3}`: every year of the indicator in that country;
//! - `dataset:{dataset_id}`: a dataset of the catalog (description, keys, columns, licence, downloads);
//! - a curated record's citation id (`wbproj-p127837`, `cclw-…`, `crsflow-…`, `event-…`): the record's
//!   fields, every amount cited by the record's id;
//! - a value's citation id (`wb-sp-dyn-le00-in-mex-2024`): the series it belongs to.
//!
//! A document's text stops at [`TEXT_BYTES`] (so the answer stays within hosts' 10 KB cut), saying where
//! the rest is. An id of none of these forms, or of nothing the corpus holds, is an `isError` result
//! naming the forms.

use corpus::{Lang, Metric, exports::Subject};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ToolError, ToolSpec, arguments, display};
use crate::load::Corpus;

/// The most bytes of a document's `text`.
pub const TEXT_BYTES: usize = 8_000;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::document(
        "fetch",
        "Fetch one corpus document (ChatGPT deep research)",
        "MCP-only, ChatGPT's fetch: the document of a search id (indicator:…, series:…:ISO3, \
         dataset:…, a record's citation id) as {id, title, text, url, metadata}; each number in \
         `text` is followed by its [citation_id].",
        &super::search_corpus::DATASETS,
        handle,
    )
}

/// Arguments of `fetch`: one id, as ChatGPT sends it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchInput {
    /// An id from search.
    #[schemars(transform = super::limits::cap_name)]
    pub id: String,
}

/// `structuredContent` of `fetch` (and its one text block).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Document {
    /// The id as `search` gives it.
    pub id: String,
    /// Its name in the request's language.
    pub title: String,
    /// The document in plain lines, each number followed by its `[citation_id]`.
    pub text: String,
    /// The publisher's page of it.
    pub url: String,
    /// Where it comes from and how to credit it.
    pub metadata: DocumentMetadata,
}

/// Provenance of a document: publisher, dataset, licence, vintage, retrieval date.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocumentMetadata {
    /// The corpus dataset it is read from (`observations`, `projects`).
    pub dataset_id: String,
    /// Publisher (`The World Bank`).
    pub publisher: String,
    /// Licence id (`CC-BY-4.0`).
    pub license: String,
    /// Release the values come from (`2025-07`); empty for a record.
    pub vintage: String,
    /// When the raw files were retrieved (ISO 8601 date).
    pub retrieved_at: String,
    /// How a number of the text is cited.
    pub citation_rule: String,
}

/// The id of a document: what `search` lists and `fetch` takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocumentId {
    /// `indicator:{metric_id}`.
    Indicator(String),
    /// `series:{metric_id}:{ISO3}`.
    Series(String, String),
    /// `dataset:{dataset_id}`.
    Dataset(String),
    /// A curated record's citation id.
    Record(String),
}

impl std::fmt::Display for DocumentId {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DocumentId::Indicator(metric) => write!(formatter, "indicator:{metric}"),
            DocumentId::Series(metric, iso3) => write!(formatter, "series:{metric}:{iso3}"),
            DocumentId::Dataset(dataset) => write!(formatter, "dataset:{dataset}"),
            DocumentId::Record(citation_id) => formatter.write_str(citation_id),
        }
    }
}

impl DocumentId {
    /// The id `text` writes, a value's citation id read as its series.
    ///
    /// # Errors
    /// [`ToolError::Invalid`] naming the id and the forms an id takes.
    pub fn parse(corpus: &Corpus, text: &str) -> Result<DocumentId, ToolError> {
        let text = text.trim();
        let parsed = if let Some(metric) = text.strip_prefix("indicator:") {
            Some(DocumentId::Indicator(metric.to_string()))
        } else if let Some(rest) = text.strip_prefix("series:") {
            rest.rsplit_once(':')
                .map(|(metric, iso3)| DocumentId::Series(metric.to_string(), iso3.to_string()))
        } else if let Some(dataset) = text.strip_prefix("dataset:") {
            Some(DocumentId::Dataset(dataset.to_string()))
        } else if corpus::RecordDataset::of_citation_id(text).is_some() {
            Some(DocumentId::Record(text.to_string()))
        } else {
            corpus.baked.resolve_citation(text).ok().map(|citation| {
                DocumentId::Series(citation.indicator.to_string(), citation.country.to_string())
            })
        };
        parsed.ok_or_else(|| {
            ToolError::Invalid(format!(
                "id `{}` is not a document id: give one from search: indicator:{{indicator}} \
                 (indicator:sp_dyn_le00_in), series:{{indicator}}:{{ISO3}} (series:sp_dyn_le00_in:MEX), \
                 dataset:{{dataset_id}}, a record's citation id (wbproj-p127837) or a value's \
                 (wb-sp-dyn-le00-in-mex-2024)",
                arguments::snippet(text)
            ))
        })
    }
}

/// A document's id, title and url (what `search` lists), if the corpus holds it.
#[derive(Debug, Clone)]
pub struct Heading {
    /// The id, written.
    pub id: String,
    /// Its name in the request's language.
    pub title: String,
    /// The publisher's page.
    pub url: String,
}

/// The id, title and url of the document `id`, if the corpus holds it (a series only with values).
pub fn heading(corpus: &Corpus, id: &DocumentId, lang: Lang) -> Option<Heading> {
    let baked = &corpus.baked;
    let (title, url) = match id {
        DocumentId::Indicator(metric) => {
            let metric = baked.metric(metric)?;
            (
                metric.names.get(lang).to_string(),
                indicator_url(corpus, metric),
            )
        }
        DocumentId::Series(metric, iso3) => {
            let metric = baked.metric(metric)?;
            let country = baked.countries().get(iso3)?;
            if baked.observations().series(&metric.id, iso3).is_empty() {
                return None;
            }
            let source = baked.source(&metric.source_id)?;
            (
                format!(
                    "{} — {}",
                    metric.names.get(lang),
                    display::country_name(country, lang)
                ),
                source.deep_link_for(&metric.source_code, &country.iso3, &country.iso2),
            )
        }
        DocumentId::Dataset(dataset) => {
            let dataset = corpus.dataset(dataset)?;
            // One publisher's dataset opens at its page; a dataset of many at its own file.
            let url = match dataset.sources.as_slice() {
                [only] => baked.source(only).map(|source| source.homepage.clone()),
                _ => None,
            }
            .or_else(|| {
                display::file_links(corpus, Subject::Dataset, &dataset.dataset_id)
                    .into_iter()
                    .next()
                    .map(|file| file.url)
            })?;
            (dataset.title.clone(), url)
        }
        DocumentId::Record(citation_id) => {
            let citation = corpus.record_citation(citation_id)?;
            (citation.title, citation.url)
        }
    };
    Some(Heading {
        id: id.to_string(),
        title,
        url,
    })
}

/// The page of an indicator alone: the publisher's page of the indicator where its links need no
/// country, else the source's homepage.
fn indicator_url(corpus: &Corpus, metric: &Metric) -> String {
    corpus
        .baked
        .source(&metric.source_id)
        .map_or_else(String::new, |source| {
            let needs_country =
                source.deep_link.contains("{iso3}") || source.deep_link.contains("{iso2}");
            if needs_country {
                source.homepage.clone()
            } else {
                source.deep_link_for(&metric.source_code, "", "")
            }
        })
}

fn handle(corpus: &Corpus, input: FetchInput, lang: Lang) -> Result<Document, ToolError> {
    let id = DocumentId::parse(corpus, &input.id)?;
    let heading = heading(corpus, &id, lang).ok_or_else(|| absent(corpus, &id))?;
    let (mut text, metadata) = match &id {
        DocumentId::Indicator(metric) | DocumentId::Series(metric, _) => {
            let metric = arguments::metric(corpus, metric)?;
            let country = match &id {
                DocumentId::Series(_, iso3) => Some(iso3.as_str()),
                _ => None,
            };
            indicator_text(corpus, metric, country, lang)?
        }
        DocumentId::Dataset(dataset) => dataset_text(corpus, dataset),
        DocumentId::Record(citation_id) => record_text(corpus, citation_id)?,
    };
    if text.len() > TEXT_BYTES {
        let mut cut = TEXT_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(text[..cut].rfind('\n').unwrap_or(cut));
        text.push_str(&format!(
            "\n… (cut at {TEXT_BYTES} bytes: get_dataset, get_series or the downloads give the rest)"
        ));
    }
    Ok(Document {
        id: heading.id,
        title: heading.title,
        text,
        url: heading.url,
        metadata,
    })
}

/// Why a well-formed id names no document.
fn absent(corpus: &Corpus, id: &DocumentId) -> ToolError {
    let baked = &corpus.baked;
    ToolError::Invalid(match id {
        DocumentId::Indicator(metric) | DocumentId::Series(metric, _)
            if baked.metric(metric).is_none() =>
        {
            format!(
                "no indicator `{}` in the corpus: search, or resolve_metric, gives indicator ids (sp_dyn_le00_in)",
                arguments::snippet(metric)
            )
        }
        DocumentId::Series(metric, iso3) if baked.countries().get(iso3).is_none() => format!(
            "`{}` is not a country of the corpus: a series id ends in an ISO3 code (series:{metric}:MEX)",
            arguments::snippet(iso3)
        ),
        DocumentId::Series(metric, iso3) => format!(
            "the corpus holds no values of {metric} for {iso3} (never filled in): indicator:{metric} names the countries that have them"
        ),
        DocumentId::Dataset(dataset) => format!(
            "no dataset `{}` in the catalog; datasets: {}",
            arguments::snippet(dataset),
            corpus
                .datasets
                .iter()
                .map(|dataset| dataset.dataset_id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        DocumentId::Record(citation_id) => format!(
            "no curated record `{}` in the corpus (ids exactly as search gives them)",
            arguments::snippet(citation_id)
        ),
        DocumentId::Indicator(_) => "no such indicator".to_string(),
    })
}

/// The citation rule of a document whose numbers carry their own ids.
const VALUE_RULE: &str =
    "each number is followed by its citation_id in brackets; resolve_citations resolves it";

/// An indicator's document: its definition, unit and source, then every year in `country` or each
/// country's latest value.
fn indicator_text(
    corpus: &Corpus,
    metric: &Metric,
    country: Option<&str>,
    lang: Lang,
) -> Result<(String, DocumentMetadata), ToolError> {
    let baked = &corpus.baked;
    let source = baked
        .source(&metric.source_id)
        .ok_or_else(|| ToolError::Internal(format!("no source {}", metric.source_id)))?;
    let mut text = format!(
        "{name}{place}\nIndicator: {title} ({code}); unit: {unit}\nSource: {publisher}, {dataset}; vintage {vintage}; retrieved {retrieved}; licence {license}. {attribution}\n",
        name = metric.names.get(lang),
        place = country
            .and_then(|iso3| baked.countries().get(iso3))
            .map_or_else(String::new, |country| format!(
                " — {}",
                display::country_name(country, lang)
            )),
        title = metric.source_title,
        code = metric.source_code,
        unit = metric.unit,
        publisher = source.publisher,
        dataset = source.name,
        vintage = metric.vintage,
        retrieved = metric
            .retrieved_at
            .as_deref()
            .unwrap_or(&source.retrieved_at),
        license = metric.license,
        attribution = source.attribution,
    );
    if let Some(primary) = &metric.primary_source {
        text.push_str(&format!("Primary source: {primary}\n"));
    }
    if !metric.description.is_empty() {
        text.push_str(&format!("Definition: {}\n", metric.description));
    }
    let observations = baked.observations();
    match country {
        Some(iso3) => {
            text.push_str(&format!("Values in {iso3} (year: value [citation_id]):\n"));
            for row_idx in observations.series(&metric.id, iso3) {
                push_value(&mut text, &observations.row(row_idx), None);
            }
        }
        None => {
            text.push_str(
                "Latest value per country, ISO3 order (country, year: value [citation_id]):\n",
            );
            let mut without = Vec::new();
            for country in baked.countries().countries() {
                let series = observations.series(&metric.id, &country.iso3);
                match series.last() {
                    Some(row_idx) => {
                        let label = format!(
                            "{} {}{}",
                            country.iso3,
                            display::country_name(country, lang),
                            if country.sovereign {
                                ""
                            } else {
                                " (territory)"
                            }
                        );
                        push_value(&mut text, &observations.row(row_idx), Some(&label));
                    }
                    None => without.push(country.iso3.as_str()),
                }
            }
            if !without.is_empty() {
                text.push_str(&format!(
                    "No values in the corpus (never filled in): {}\n",
                    without.join(", ")
                ));
            }
        }
    }
    let metadata = DocumentMetadata {
        dataset_id: "observations".into(),
        publisher: source.publisher.clone(),
        license: metric.license.clone(),
        vintage: metric.vintage.clone(),
        retrieved_at: metric
            .retrieved_at
            .clone()
            .unwrap_or_else(|| source.retrieved_at.clone()),
        citation_rule: VALUE_RULE.into(),
    };
    Ok((text, metadata))
}

/// `{label, }{year}: {value} [{citation_id}]{ (flags)}` as one line of `text`.
fn push_value(text: &mut String, observation: &corpus::Observation<'_>, label: Option<&str>) {
    use std::fmt::Write as _;
    if let Some(label) = label {
        let _ = write!(text, "{label}, ");
    }
    let _ = write!(
        text,
        "{}: {} [{}]",
        observation.year, observation.value, observation.citation_id
    );
    if let Some(error) = observation.standard_error {
        let _ = write!(text, " (standard error {error})");
    }
    if !observation.flags.is_empty() {
        let _ = write!(text, " ({})", observation.flags.replace('|', ", "));
    }
    text.push('\n');
}

/// A catalog dataset's document: description, keys, columns, rows, licence, sources and downloads.
fn dataset_text(corpus: &Corpus, dataset_id: &str) -> (String, DocumentMetadata) {
    let dataset = corpus
        .dataset(dataset_id)
        .expect("the heading found the dataset");
    let mut text = format!(
        "{}\n{}\nRows: {}; keys: {}; licence {}\nColumns:\n",
        dataset.title,
        dataset.description,
        dataset.rows,
        dataset.keys.join(", "),
        dataset.license
    );
    for column in &dataset.columns {
        text.push_str(&format!(
            "- {} ({}): {}\n",
            column.name, column.data_type, column.description
        ));
    }
    let sources: Vec<&corpus::SourceRecord> = dataset
        .sources
        .iter()
        .filter_map(|source| corpus.baked.source(source))
        .collect();
    if !sources.is_empty() {
        text.push_str("Sources:\n");
        for source in &sources {
            text.push_str(&format!(
                "- {}, {} ({}; {})\n",
                source.publisher, source.name, source.license, source.homepage
            ));
        }
    }
    for file in display::file_links(corpus, Subject::Dataset, dataset_id) {
        text.push_str(&format!("Download: {}\n", file.url));
    }
    let first = sources.first();
    let metadata = DocumentMetadata {
        dataset_id: dataset.dataset_id.clone(),
        publisher: first.map_or_else(String::new, |source| source.publisher.clone()),
        license: dataset.license.clone(),
        vintage: first.map_or_else(String::new, |source| source.vintage.clone()),
        retrieved_at: first.map_or_else(String::new, |source| source.retrieved_at.clone()),
        citation_rule: "a number of a dataset's rows carries its citation_id in its row".into(),
    };
    (text, metadata)
}

/// Fields of a record that its heading and metadata carry.
const PROVENANCE_FIELDS: [&str; 7] = [
    "citation_id",
    "source",
    "publisher",
    "license",
    "attribution",
    "retrieved_at",
    "url",
];

/// A curated record's document: its fields, one a line, cited by the record's own id.
fn record_text(
    corpus: &Corpus,
    citation_id: &str,
) -> Result<(String, DocumentMetadata), ToolError> {
    let (citation, fields) = corpus
        .record(citation_id)
        .ok_or_else(|| ToolError::Internal(format!("record {citation_id} vanished")))?;
    let mut text = format!(
        "{} [{}]\nSource: {}, {}; retrieved {}; licence {}. {}\nEvery number below is cited as [{}].\n",
        citation.title,
        citation.citation_id,
        citation.publisher,
        citation.dataset,
        citation.retrieved_at,
        citation.license,
        citation.attribution,
        citation.citation_id
    );
    if let Value::Object(fields) = &fields {
        for (name, value) in fields {
            if PROVENANCE_FIELDS.contains(&name.as_str()) {
                continue;
            }
            let written = match value {
                Value::Null => continue,
                Value::String(text) if text.is_empty() => continue,
                Value::Array(items) if items.is_empty() => continue,
                Value::String(text) => text.clone(),
                Value::Array(items)
                    if items
                        .iter()
                        .all(|item| !item.is_object() && !item.is_array()) =>
                {
                    items
                        .iter()
                        .map(|item| {
                            item.as_str()
                                .map_or_else(|| item.to_string(), str::to_string)
                        })
                        .collect::<Vec<_>>()
                        .join("; ")
                }
                other => other.to_string(),
            };
            text.push_str(&format!("{name}: {written}\n"));
        }
    }
    let metadata = DocumentMetadata {
        dataset_id: citation.dataset.clone(),
        publisher: citation.publisher.clone(),
        license: citation.license.clone(),
        vintage: String::new(),
        retrieved_at: citation.retrieved_at.clone(),
        citation_rule: format!(
            "the record is its own citation: cite [{}]",
            citation.citation_id
        ),
    };
    Ok((text, metadata))
}
