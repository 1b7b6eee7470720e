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

/// The licence entry of `license` (an SPDX id or a publisher's terms, possibly with how it applies:
/// `CC-BY-4.0 (per record)`) with its URL: `url` when given, else the Creative Commons deed of the id;
/// the full text as `title` when it says more than the id.
fn licence(license: &str, url: &str) -> Value {
    let id = corpus::licences::licence_id(license);
    let mut entry = json!({ "name": id });
    match (url.is_empty(), corpus::licences::deed_url(id)) {
        (false, _) => entry["path"] = url.into(),
        (true, Some(deed)) => entry["path"] = deed.into(),
        (true, None) => {}
    }
    if id != license {
        entry["title"] = license.into();
    }
    entry
}

/// Who a dataset's records come from, for its `sources`: the indicator sources and the curated records'
/// sources (`record_sources.json`) by id.
pub struct SourceBook<'a> {
    /// The indicator sources.
    pub sources: &'a [SourceRecord],
    /// The curated records' sources.
    pub record_sources: Vec<corpus::RecordSource>,
}

impl SourceBook<'_> {
    /// The source entries of `ids`, in the order given, for those the book knows.
    fn entries<'i>(&self, ids: impl IntoIterator<Item = &'i str>) -> Vec<Value> {
        ids.into_iter()
            .filter_map(|id| {
                if let Some(source) = self.sources.iter().find(|source| source.id == id) {
                    return Some(source_entry(source));
                }
                self.record_sources
                    .iter()
                    .find(|source| source.id == id)
                    .map(|source| json!({"title": format!("{} — {}", source.publisher, source.attribution)}))
            })
            .collect()
    }
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
        json!({"name": "flags", "type": "string", "description": corpus::observation::FLAGS_DESCRIPTION}),
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

/// One column of a Parquet file (`None` if the file has no such column): read alone, so describing the
/// observations never holds the whole table.
fn read_parquet_column(
    path: &Path,
    name: &str,
) -> Result<Option<polars::prelude::Column>, BakeError> {
    let file = std::fs::File::open(path).map_err(|error| BakeError::io(path, error))?;
    let mut reader = ParquetReader::new(file);
    let has = reader
        .schema()
        .map_err(|error| BakeError::Table {
            artifact: path.display().to_string(),
            message: error.to_string(),
        })?
        .contains(name);
    if !has {
        return Ok(None);
    }
    reader
        .with_columns(Some(vec![name.to_string()]))
        .finish()
        .map(|mut frame| frame.drop_in_place(name).ok())
        .map_err(|error| BakeError::Table {
            artifact: path.display().to_string(),
            message: error.to_string(),
        })
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
    book: &SourceBook<'_>,
) -> Result<Vec<Value>, BakeError> {
    use corpus::exports::Format;
    let id = dataset.dataset_id.as_str();
    let parquet = dataset_path(dir, id, Format::Parquet);
    let schema = dataset_schema(dataset, &parquet)?;
    // The sources a table's rows name (its `source` column), else those its catalog entry declares.
    let source_column = read_parquet_column(&parquet, "source")?;
    let held: Vec<String> = match source_column.as_ref().and_then(|column| column.str().ok()) {
        Some(strings) => strings
            .iter()
            .flatten()
            .map(str::to_string)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect(),
        None => dataset.sources.clone(),
    };
    let source_entries = book.entries(held.iter().map(String::as_str));
    let licences: Vec<Value> = dataset
        .license
        .split(", ")
        .map(|license| licence(license, ""))
        .collect();
    // frictionless reads a null of a Parquet integer column as NaN and then rejects it as an integer:
    // such columns are declared `number` in the Parquet resource (their values are whole numbers).
    let mut parquet_schema = schema.clone();
    if let Some(fields) = parquet_schema["fields"].as_array_mut() {
        for field in fields {
            let name = field["name"].as_str().unwrap_or("").to_string();
            if field["type"] != "integer" {
                continue;
            }
            let nullable =
                read_parquet_column(&parquet, &name)?.is_some_and(|column| column.null_count() > 0);
            if nullable {
                field["type"] = "number".into();
                let note = "whole numbers; empty where none";
                field["description"] = match field["description"].as_str() {
                    Some(description) => format!("{description} ({note})").into(),
                    None => note.into(),
                };
            }
        }
    }
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
            "schema": if format == Format::Parquet { &parquet_schema } else { &schema },
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
/// RFC 3339), `licences` (id, URL or empty; the distinct ones, in id order), `sources` and `resources`.
pub fn package(
    name: &str,
    title: &str,
    description: &str,
    prepared: &str,
    licences: Vec<(String, String)>,
    sources: Vec<Value>,
    resources: Vec<Value>,
) -> Value {
    let mut licences = licences;
    licences.sort();
    licences.dedup_by(|left, right| {
        corpus::licences::licence_id(&left.0) == corpus::licences::licence_id(&right.0)
    });
    json!({
        "$schema": PROFILE,
        "name": name,
        "title": title,
        "description": description,
        "created": format!("{prepared}Z"),
        "keywords": ["Latin America", "Caribbean", "development indicators", "governance", "open data", "SDMX"],
        "licenses": licences.iter().map(|(name, url)| licence(name, url)).collect::<Vec<_>>(),
        "sources": sources,
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
    let record_sources_path = dir.join(corpus::layout::RECORD_SOURCES);
    let record_sources: Vec<corpus::RecordSource> =
        corpus::read_json(&record_sources_path, "record sources")?;
    let book = SourceBook {
        sources,
        record_sources,
    };
    // The resources' own entries: what each file holds and is licensed under.
    let entries_of = |resources: &[Value], key: &str| -> Vec<Value> {
        let mut entries: Vec<Value> = Vec::new();
        for entry in resources
            .iter()
            .flat_map(|resource| resource[key].as_array().cloned().unwrap_or_default())
        {
            if !entries.contains(&entry) {
                entries.push(entry);
            }
        }
        entries
    };
    let mut resources = indicator_resources;
    for dataset in datasets {
        let own = dataset_resources(dir, dataset, "", &book)?;
        let dataset_licences: Vec<(String, String)> = dataset
            .license
            .split(", ")
            .map(|license| (license.to_string(), String::new()))
            .collect();
        let descriptor = package(
            &dataset.dataset_id.replace('_', "-"),
            &dataset.title,
            &dataset.description,
            prepared,
            dataset_licences,
            entries_of(&own, "sources"),
            own,
        );
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
    // Every licence of the files: the indicators' (with their source's licence URL) and the datasets'.
    let mut licences: Vec<(String, String)> = metrics
        .iter()
        .filter(|metric| metric.coverage.observations > 0)
        .map(|metric| {
            let url = sources
                .iter()
                .find(|source| source.id == metric.source_id && source.license == metric.license)
                .map_or("", |source| source.license_url.as_str());
            (metric.license.clone(), url.to_string())
        })
        .collect();
    licences.extend(datasets.iter().flat_map(|dataset| {
        dataset
            .license
            .split(", ")
            .map(|license| (license.to_string(), String::new()))
    }));
    let package_sources = entries_of(&resources, "sources");
    let corpus_package = package(
        PACKAGE_NAME,
        PACKAGE_TITLE,
        "Governed indicators of Latin America and the Caribbean from public sources (World Bank WDI and WGI, UNDP, IMF WEO, OECD, ND-GAIN, CEPAL, Global Carbon Budget, OWID and others): one tidy CSV per indicator, and the corpus' datasets as CSV and Parquet. Every value carries a citation_id resolvable at /api/v1/citations/{citation_id}.",
        prepared,
        licences,
        package_sources,
        resources,
    );
    write_json(
        &dir.join(corpus::exports::EXPORTS_DIR)
            .join(corpus::exports::DATAPACKAGE),
        &corpus_package,
    )?;
    Ok(corpus_package)
}
