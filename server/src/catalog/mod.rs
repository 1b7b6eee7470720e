//! What a person or a notebook sees of the corpus' files: the downloads catalog (JSON, `/api/v1/catalog`)
//! and the catalog page ([`page`], HTML), whose indicators link to their chart pages ([`chart`], the MCP
//! App's chart view). They read the corpus' indicators, datasets and listed downloads;
//! the HTTP side (headers, ranges, 404s) is `transport::downloads`.

pub mod chart;
pub mod page;

use std::{
    collections::HashMap,
    sync::{Mutex, PoisonError},
};

use bytes::Bytes;
use corpus::exports::{Format, Subject};
use serde_json::{Value, json};

use crate::{
    links,
    load::{Corpus, downloads::DownloadFile},
};

/// What was rendered for the corpus in force, by key; emptied when another corpus version asks.
static RENDERED: Mutex<Option<(String, HashMap<String, Bytes>)>> = Mutex::new(None);

/// The bytes `render` makes for `key` over `corpus`, rendered once per corpus version and shared after
/// (the catalog JSON and the unfiltered pages are the same for every request until the corpus changes).
///
/// # Errors
/// `render`'s error (nothing is kept then).
pub fn rendered<E>(
    corpus: &Corpus,
    key: &str,
    render: impl FnOnce() -> Result<Bytes, E>,
) -> Result<Bytes, E> {
    let version = &corpus.baked.manifest().corpus_version;
    let mut cache = RENDERED.lock().unwrap_or_else(PoisonError::into_inner);
    if cache.as_ref().is_none_or(|(cached, _)| cached != version) {
        *cache = Some((version.clone(), HashMap::new()));
    }
    let (_, entries) = cache.as_mut().expect("set above");
    if let Some(bytes) = entries.get(key) {
        return Ok(bytes.clone());
    }
    let bytes = render()?;
    entries.insert(key.to_string(), bytes.clone());
    Ok(bytes)
}

/// The downloads catalog of `corpus` (what `/api/v1/catalog` answers): corpus and format versions, the
/// base URL, the formats, every indicator (id, source code, title, definition, pillar, unit, licence,
/// source, publisher, primary source, vintage, retrieval date, coverage) and dataset (id, title,
/// description, rows, licence) with its files ([`file_json`]), the registry, the SDMX structure, the
/// Data Package and Croissant descriptions (`metadata`),
/// and where a citation id resolves (`citations.url_template`, `/api/v1/citations/{citation_id}`, and its
/// `formats`).
pub fn catalog_json(corpus: &Corpus) -> Value {
    let baked = &corpus.baked;
    let files_of = |subject: Subject, id: &str| -> Vec<Value> {
        corpus.downloads().of(subject, id).map(file_json).collect()
    };
    let mut indicators = Vec::new();
    for metric in baked.metrics() {
        let files = files_of(Subject::Indicator, &metric.id);
        if files.is_empty() {
            continue;
        }
        let source = baked.source(&metric.source_id);
        indicators.push(json!({
            "id": metric.id,
            "source_code": metric.source_code,
            "title": metric.names.en,
            "definition": metric.description,
            "pillar": metric.pillar,
            "unit": metric.unit,
            "license": metric.license,
            "source": metric.source_id,
            "publisher": source.map(|source| source.publisher.as_str()),
            "primary_source": metric.primary_source,
            "vintage": metric.vintage,
            "retrieved_at": metric.retrieved_at.as_deref().or(source.map(|source| source.retrieved_at.as_str())),
            "countries": metric.coverage.countries,
            "first_year": metric.coverage.first_year,
            "last_year": metric.coverage.last_year,
            "files": files,
        }));
    }
    let datasets: Vec<Value> = corpus
        .datasets
        .iter()
        .filter_map(|dataset| {
            let files = files_of(Subject::Dataset, &dataset.dataset_id);
            (!files.is_empty()).then(|| {
                json!({
                    "id": dataset.dataset_id,
                    "title": dataset.title,
                    "description": dataset.description,
                    "rows": dataset.rows,
                    "license": dataset.license,
                    "files": files,
                })
            })
        })
        .collect();
    let single = |subject: Subject| -> Vec<Value> {
        corpus
            .downloads()
            .files()
            .iter()
            .filter(|file| file.download.subject == subject)
            .map(file_json)
            .collect()
    };
    json!({
        "corpus_version": baked.manifest().corpus_version,
        "format_version": baked.manifest().format_version,
        "base_url": links::public_url(),
        "formats": Format::ALL.iter().map(|format| json!({
            "format": format.as_str(), "suffix": format.suffix(), "media_type": format.media_type(),
        })).collect::<Vec<_>>(),
        "indicators": indicators,
        "datasets": datasets,
        "registry": single(Subject::Registry),
        "sdmx_structure": single(Subject::Structure),
        "changes": single(Subject::Changes),
        // The corpus described in the metadata standards: Frictionless Data Package and Croissant 1.1.
        "metadata": single(Subject::Metadata),
        // Where any value's or record's citation id resolves, in each paste-ready format.
        "citations": {
            "url_template": links::api_url("citations/{citation_id}"),
            "formats": corpus::citation_style::CitationFormat::ALL.map(|format| format.name()),
        },
    })
}

/// One file as the catalog lists it.
pub fn file_json(file: &DownloadFile) -> Value {
    json!({
        "format": file.download.format.as_str(),
        "url": links::download_url(&file.download),
        "uri": file.download.resource_uri(),
        "media_type": file.download.format.media_type(),
        "bytes": file.bytes,
        "sha256": file.sha256,
    })
}
