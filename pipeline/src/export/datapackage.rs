//! The exports described as Frictionless Data Packages (v2, `https://datapackage.org/profiles/2.0/`):
//!
//! - `exports/datapackage.json`: every indicator's tidy CSV and every dataset's CSV (gzip) and Parquet
//!   file as one resource each, paths relative to the descriptor (`indicators/si_pov_gini.csv`), so the
//!   same file describes a downloaded `exports/` folder and the server's `/api/v1/` (the downloads API
//!   mirrors the folder).
//! - `exports/datasets/{id}.datapackage.json`: one dataset's CSV and Parquet files.
//! - inside each indicator's zip, `datapackage.json` for its CSV ([`indicator_resource`]).
//!
//! Each resource gives its title, description (the indicator's definition), `bytes`, `hash`
//! (`sha256:…`), licence (SPDX id or the publisher's terms, with the licence URL), sources (publisher,
//! homepage) and a table schema: every column with its Frictionless type and description (units in the
//! value's description), the primary key where the bake guarantees one.

use std::path::Path;

use corpus::{Dataset, Metric, SourceRecord, write_json};
use polars::prelude::{ArrowDataType, ParquetReader, SerReader};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{
    dataset_files::dataset_path,
    indicators::{IndicatorExport, STANDARD_ERROR_COLUMN, metadata_fields},
};
use crate::BakeError;

/// The Data Package profile the descriptors declare.
pub const PROFILE: &str = "https://datapackage.org/profiles/2.0/datapackage.json";
/// The data resource profile of each resource.
pub const RESOURCE_PROFILE: &str = "https://datapackage.org/profiles/2.0/dataresource.json";
/// The name of the corpus' package.
pub const PACKAGE_NAME: &str = "lac-governed-corpus";
/// The corpus package's title.
pub const PACKAGE_TITLE: &str = "Governed-data corpus for Latin America and the Caribbean";

/// Datasets whose key columns are unique by construction (governed tables), declared as primary keys.
const UNIQUE_KEYS: [&str; 3] = ["observations", "aggregates", "concordance"];

/// `sha256:{hex}` of `bytes`, as Frictionless writes a hash.
pub fn sha256_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(7 + 64);
    hex.push_str("sha256:");
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

/// The licence entry of `license` (an SPDX id or a publisher's terms) with its URL when known.
fn licence(license: &str, url: &str) -> Value {
    let mut entry = json!({ "name": license });
    if !url.is_empty() {
        entry["path"] = url.into();
    }
    entry
}

/// The source entry of a source record: `publisher — dataset` and its homepage.
fn source_entry(source: &SourceRecord) -> Value {
    let mut entry = json!({ "title": format!("{} — {}", source.publisher, source.name) });
    if !source.homepage.is_empty() {
        entry["path"] = source.homepage.clone().into();
    }
    entry
}

/// The table schema of an indicator's tidy CSV ([`super::indicators::TIDY_HEADER`], and
/// `standard_error` where the indicator has one), primary key (country, year).
pub fn indicator_schema(export: &IndicatorExport<'_>) -> Value {
    let unit = &export.metric.unit;
    let mut fields = vec![
        json!({"name": "indicator", "type": "string", "description": "metric id of the corpus", "constraints": {"required": true}}),
        json!({"name": "country", "type": "string", "description": "ISO 3166-1 alpha-3 code", "constraints": {"required": true}}),
        json!({"name": "country_name", "type": "string", "description": "English name of the country or territory"}),
        json!({"name": "year", "type": "integer", "description": "calendar year", "constraints": {"required": true}}),
        json!({"name": "value", "type": "number", "description": format!("the value, in {unit}"), "constraints": {"required": true}}),
        json!({"name": "unit", "type": "string", "description": "unit of the value"}),
        json!({"name": "flags", "type": "string", "description": "|-separated flags: projection (a publisher's projection), estimate (an estimate of a past year, open to revision), modelled (modelled by the publisher where national data are missing), suspect_scale; empty when the value is observed"}),
        json!({"name": "citation_id", "type": "string", "description": "the value's citation id, resolvable at /api/v1/citations/{citation_id}", "constraints": {"required": true}}),
        json!({"name": "url", "type": "string", "description": "the publisher's page for the series of the country"}),
    ];
    if export.has_standard_errors() {
        fields.push(json!({"name": STANDARD_ERROR_COLUMN, "type": "number", "description": format!("the publisher's standard error of the value, in {unit}; empty where none is given")}));
    }
    json!({ "fields": fields, "primaryKey": ["country", "year"], "missingValues": [""] })
}

/// The Data Resource of an indicator's tidy CSV at `path` (relative to the descriptor), whose bytes are
/// `csv`: name (metric id), title, description (definition), format, media type, encoding, bytes, hash,
/// licence, source and [`indicator_schema`].
pub fn indicator_resource(export: &IndicatorExport<'_>, path: &str, csv: &[u8]) -> Value {
    let metric = export.metric;
    let field = |name: &str| -> String {
        metadata_fields(export)
            .into_iter()
            .find(|(field, _)| *field == name)
            .map(|(_, value)| value)
            .unwrap_or_default()
    };
    let mut resource = json!({
        "$schema": RESOURCE_PROFILE,
        "name": metric.id,
        "type": "table",
        "path": path,
        "title": format!("{} ({})", metric.names.en, metric.source_code),
        "description": metric.description,
        "format": "csv",
        "mediatype": "text/csv",
        "encoding": "utf-8",
        "bytes": csv.len(),
        "hash": sha256_hash(csv),
        "licenses": [licence(&metric.license, &field("licence_url"))],
        "schema": indicator_schema(export),
    });
    if let Some(source) = export.source {
        resource["sources"] = json!([source_entry(source)]);
    }
    resource
}

/// The Frictionless type of an Arrow column type.
fn field_type(data_type: &ArrowDataType) -> &'static str {
    match data_type {
        ArrowDataType::Boolean => "boolean",
        ArrowDataType::Int8
        | ArrowDataType::Int16
        | ArrowDataType::Int32
        | ArrowDataType::Int64
        | ArrowDataType::UInt8
        | ArrowDataType::UInt16
        | ArrowDataType::UInt32
        | ArrowDataType::UInt64 => "integer",
        ArrowDataType::Float32 | ArrowDataType::Float64 => "number",
        _ => "string",
    }
}

/// The table schema of dataset `dataset`'s files, read from its Parquet file at `parquet` (the CSV has
/// the same columns in the same order): each column's type, and its description from the catalog where
/// the catalog describes it.
///
/// # Errors
/// [`BakeError::Io`] or [`BakeError::Table`] naming the Parquet file if it cannot be read.
pub fn dataset_schema(dataset: &Dataset, parquet: &Path) -> Result<Value, BakeError> {
    let file = std::fs::File::open(parquet).map_err(|error| BakeError::io(parquet, error))?;
    let schema = ParquetReader::new(file)
        .schema()
        .map_err(|error| BakeError::Table {
            artifact: parquet.display().to_string(),
            message: error.to_string(),
        })?;
    let fields: Vec<Value> = schema
        .iter_values()
        .map(|field| {
            let name = field.name.as_str();
            let mut entry = json!({ "name": name, "type": field_type(&field.dtype) });
            if let Some(column) = dataset.columns.iter().find(|column| column.name == name) {
                entry["description"] = column.description.clone().into();
            }
            entry
        })
        .collect();
    let mut schema = json!({ "fields": fields, "missingValues": [""] });
    if UNIQUE_KEYS.contains(&dataset.dataset_id.as_str()) {
        schema["primaryKey"] = dataset.keys.clone().into();
    }
    Ok(schema)
}

/// The two Data Resources of a dataset's files, paths `{prefix}{id}.csv.gz` and `{prefix}{id}.parquet`:
/// names `{id}` and `{id}-parquet`, with licence and [`dataset_schema`], the CSV with its bytes and hash.
///
/// # Errors
/// [`BakeError::Io`] naming a file that cannot be read; as [`dataset_schema`].
pub fn dataset_resources(
    dir: &Path,
    dataset: &Dataset,
    prefix: &str,
    sources: &[SourceRecord],
) -> Result<Vec<Value>, BakeError> {
    use corpus::exports::Format;
    let id = dataset.dataset_id.as_str();
    let parquet = dataset_path(dir, id, Format::Parquet);
    let schema = dataset_schema(dataset, &parquet)?;
    let source_entries: Vec<Value> = sources
        .iter()
        .filter(|source| dataset.sources.contains(&source.id))
        .map(source_entry)
        .collect();
    let licences: Vec<Value> = dataset
        .license
        .split(", ")
        .map(|license| licence(license, ""))
        .collect();
    [
        (Format::CsvGz, id.to_string(), "csv", "text/csv"),
        (
            Format::Parquet,
            format!("{id}-parquet"),
            "parquet",
            Format::Parquet.media_type(),
        ),
    ]
    .into_iter()
    .map(|(format, name, format_name, media_type)| {
        let path = dataset_path(dir, id, format);
        let bytes = std::fs::read(&path).map_err(|error| BakeError::io(&path, error))?;
        let mut resource = json!({
            "$schema": RESOURCE_PROFILE,
            "name": name,
            "type": "table",
            "path": format!("{prefix}{id}{}", format.suffix()),
            "title": dataset.title,
            "description": dataset.description,
            "format": format_name,
            "mediatype": media_type,
            "bytes": bytes.len(),
            "hash": sha256_hash(&bytes),
            "licenses": licences,
            "schema": schema,
        });
        if format == Format::CsvGz {
            resource["encoding"] = "utf-8".into();
            resource["compression"] = "gz".into();
        } else if let Some(fields) = resource.as_object_mut() {
            // Frictionless reads Parquet through a table reader that does not count bytes, so a declared
            // size or hash fails its validation; the catalog JSON and croissant.json carry both.
            fields.remove("bytes");
            fields.remove("hash");
        }
        if !source_entries.is_empty() {
            resource["sources"] = source_entries.clone().into();
        }
        Ok(resource)
    })
    .collect()
}

/// A Data Package descriptor: [`PROFILE`], `name`, `title`, `description`, `created` (`prepared`,
/// RFC 3339), the distinct licences and sources of `metrics`' and `sources`' records, and `resources`.
pub fn package(
    name: &str,
    title: &str,
    description: &str,
    prepared: &str,
    metrics: &[Metric],
    sources: &[SourceRecord],
    resources: Vec<Value>,
) -> Value {
    let mut licences: Vec<(String, String)> = metrics
        .iter()
        .map(|metric| {
            let url = sources
                .iter()
                .find(|source| source.id == metric.source_id)
                .map_or("", |source| source.license_url.as_str());
            (metric.license.clone(), url.to_string())
        })
        .collect();
    licences.sort();
    licences.dedup_by(|left, right| left.0 == right.0);
    json!({
        "$schema": PROFILE,
        "name": name,
        "title": title,
        "description": description,
        "created": format!("{prepared}Z"),
        "keywords": ["Latin America", "Caribbean", "development indicators", "governance", "open data", "SDMX"],
        "licenses": licences.iter().map(|(name, url)| licence(name, url)).collect::<Vec<_>>(),
        "sources": sources.iter().map(source_entry).collect::<Vec<_>>(),
        "resources": resources,
    })
}

/// Writes each exported dataset's `datasets/{id}.datapackage.json` and the corpus' `datapackage.json`
/// (the `indicator_resources`, then each dataset's two resources) under `exports/` of `dir`. Returns
/// the corpus package.
///
/// # Errors
/// [`BakeError`] naming a file that cannot be read or written.
pub fn write_packages(
    dir: &Path,
    metrics: &[Metric],
    sources: &[SourceRecord],
    datasets: &[&Dataset],
    indicator_resources: Vec<Value>,
    prepared: &str,
) -> Result<Value, BakeError> {
    use corpus::exports::Format;
    let mut resources = indicator_resources;
    for dataset in datasets {
        let own = dataset_resources(dir, dataset, "", sources)?;
        let dataset_sources: Vec<SourceRecord> = sources
            .iter()
            .filter(|source| dataset.sources.contains(&source.id))
            .cloned()
            .collect();
        let mut descriptor = package(
            &dataset.dataset_id.replace('_', "-"),
            &dataset.title,
            &dataset.description,
            prepared,
            &[],
            &dataset_sources,
            own,
        );
        descriptor["licenses"] = dataset
            .license
            .split(", ")
            .map(|license| licence(license, ""))
            .collect::<Vec<_>>()
            .into();
        write_json(
            &dataset_path(dir, &dataset.dataset_id, Format::DataPackage),
            &descriptor,
        )?;
        resources.extend(
            descriptor["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .cloned()
                .map(|mut resource| {
                    let path = format!("datasets/{}", resource["path"].as_str().unwrap_or(""));
                    resource["path"] = path.into();
                    resource
                }),
        );
    }
    let corpus_package = package(
        PACKAGE_NAME,
        PACKAGE_TITLE,
        "Governed indicators of Latin America and the Caribbean from public sources (World Bank WDI and WGI, UNDP, IMF WEO, OECD, ND-GAIN, CEPAL, Global Carbon Budget, OWID and others): one tidy CSV per indicator, and the corpus' datasets as CSV and Parquet. Every value carries a citation_id resolvable at /api/v1/citations/{citation_id}.",
        prepared,
        metrics,
        sources,
        resources,
    );
    write_json(
        &dir.join(corpus::exports::EXPORTS_DIR)
            .join(corpus::exports::DATAPACKAGE),
        &corpus_package,
    )?;
    Ok(corpus_package)
}
