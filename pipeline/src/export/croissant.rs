//! The corpus described in Croissant 1.1 (`exports/croissant.json`, MLCommons' schema.org-based format
//! that ML loaders and dataset search read): the dataset-level facts (name, description, licences,
//! creators: the publishers, temporal and spatial coverage, how to cite), every dataset's Parquet file
//! as a `cr:FileObject` (relative `contentUrl`, `sha256`, size) and one `cr:RecordSet` per dataset with
//! one `cr:Field` per column (data type, description, extracted from the file's column).
//!
//! Built from the corpus' Data Package ([`super::datapackage::write_packages`]), so both describe the
//! same files with the same hashes.

use std::path::Path;

use corpus::{Metric, SourceRecord, write_json};
use serde_json::{Value, json};

use super::datapackage::sha256_hash;
use crate::BakeError;

/// The version the description conforms to.
pub const CONFORMS_TO: &str = "http://mlcommons.org/croissant/1.1";

/// The JSON-LD context of Croissant 1.1 as its reference datasets write it (mlcroissant warns on any
/// other).
fn context() -> Value {
    json!({
        "@language": "en",
        "rai": "http://mlcommons.org/croissant/RAI/",
        "equivalentProperty": "cr:equivalentProperty",
        "examples": {"@id": "cr:examples", "@type": "@json"},
        "samplingRate": "cr:samplingRate",
        "@vocab": "https://schema.org/",
        "arrayShape": "cr:arrayShape",
        "citeAs": "cr:citeAs",
        "column": "cr:column",
        "conformsTo": "dct:conformsTo",
        "containedIn": "cr:containedIn",
        "cr": "http://mlcommons.org/croissant/",
        "data": {"@id": "cr:data", "@type": "@json"},
        "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
        "dct": "http://purl.org/dc/terms/",
        "extract": "cr:extract",
        "field": "cr:field",
        "fileProperty": "cr:fileProperty",
        "fileObject": "cr:fileObject",
        "fileSet": "cr:fileSet",
        "format": "cr:format",
        "includes": "cr:includes",
        "isArray": "cr:isArray",
        "isLiveDataset": "cr:isLiveDataset",
        "jsonPath": "cr:jsonPath",
        "key": "cr:key",
        "md5": "cr:md5",
        "parentField": "cr:parentField",
        "path": "cr:path",
        "prov": "http://www.w3.org/ns/prov#",
        "recordSet": "cr:recordSet",
        "references": "cr:references",
        "regex": "cr:regex",
        "repeated": "cr:repeated",
        "replace": "cr:replace",
        "sc": "https://schema.org/",
        "separator": "cr:separator",
        "source": "cr:source",
        "subField": "cr:subField",
        "transform": "cr:transform",
    })
}

/// The Croissant data type of a Frictionless field type.
fn data_type(frictionless: &str) -> &'static str {
    match frictionless {
        "integer" => "sc:Integer",
        "number" => "sc:Float",
        "boolean" => "sc:Boolean",
        _ => "sc:Text",
    }
}

/// The Croissant description of the corpus in `dir` whose Data Package is `package`: its Parquet
/// resources as file objects (size and sha256 read from the files) and record sets. `years` is the
/// (first, last) year of the observations.
///
/// # Errors
/// [`BakeError::Io`] naming a Parquet file that cannot be read.
pub fn croissant(
    dir: &Path,
    package: &Value,
    metrics: &[Metric],
    sources: &[SourceRecord],
    years: Option<(i32, i32)>,
) -> Result<Value, BakeError> {
    let parquet: Vec<&Value> = package["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|resource| resource["format"] == "parquet")
        .collect();
    let distribution: Vec<Value> = parquet
        .iter()
        .map(|resource| {
            let path = resource["path"].as_str().unwrap_or("");
            let name = path.rsplit('/').next().unwrap_or(path);
            let file = dir.join(corpus::exports::EXPORTS_DIR).join(path);
            let bytes = std::fs::read(&file).map_err(|error| BakeError::io(&file, error))?;
            Ok(json!({
                "@type": "cr:FileObject",
                "@id": name,
                "name": name,
                "description": resource["title"],
                "contentUrl": path,
                "encodingFormat": "application/x-parquet",
                "contentSize": format!("{} B", bytes.len()),
                "sha256": sha256_hash(&bytes).trim_start_matches("sha256:"),
            }))
        })
        .collect::<Result<_, BakeError>>()?;
    let record_sets: Vec<Value> = parquet
        .iter()
        .map(|resource| {
            let path = resource["path"].as_str().unwrap_or("");
            let file = path.rsplit('/').next().unwrap_or(path);
            let id = file.trim_end_matches(".parquet");
            let fields: Vec<Value> = resource["schema"]["fields"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|field| {
                    let name = field["name"].as_str().unwrap_or("");
                    let mut entry = json!({
                        "@type": "cr:Field",
                        "@id": format!("{id}/{name}"),
                        "name": name,
                        "dataType": data_type(field["type"].as_str().unwrap_or("")),
                        "source": {"fileObject": {"@id": file}, "extract": {"column": name}},
                    });
                    if let Some(description) = field["description"].as_str() {
                        entry["description"] = description.into();
                    }
                    entry
                })
                .collect();
            let mut record_set = json!({
                "@type": "cr:RecordSet",
                "@id": id,
                "name": id,
                "description": resource["description"],
                "field": fields,
            });
            if let Some(keys) = resource["schema"]["primaryKey"].as_array() {
                record_set["key"] = keys
                    .iter()
                    .map(|key| json!({"@id": format!("{id}/{}", key.as_str().unwrap_or(""))}))
                    .collect::<Vec<_>>()
                    .into();
            }
            record_set
        })
        .collect();
    let mut licences: Vec<&str> = package["licenses"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|licence| {
            licence["path"]
                .as_str()
                .or(licence["name"].as_str())
                .unwrap_or("")
        })
        .collect();
    licences.dedup();
    // One creator per publisher, with the homepage of its current release (an older vintage's page last).
    let mut publishers: Vec<(&str, bool, &str)> = sources
        .iter()
        .filter(|source| metrics.iter().any(|metric| metric.source_id == source.id))
        .map(|source| {
            (
                source.publisher.as_str(),
                source.superseded_by.is_some(),
                source.homepage.as_str(),
            )
        })
        .collect();
    publishers.sort();
    publishers.dedup_by(|left, right| left.0 == right.0);
    let published = package["created"]
        .as_str()
        .unwrap_or("")
        .get(..10)
        .unwrap_or("");
    let mut description = json!({
        "@context": context(),
        "@type": "sc:Dataset",
        "name": package["name"],
        "conformsTo": CONFORMS_TO,
        "description": package["description"],
        "license": licences,
        "creator": publishers.iter().map(|(name, _, url)| json!({"@type": "sc:Organization", "name": name, "url": url})).collect::<Vec<_>>(),
        "citeAs": "Cite each value by its citation_id: /api/v1/citations/{citation_id} gives its publisher, dataset, deep link, vintage and licence (APA, Chicago, BibTeX, CSL-JSON).",
        "datePublished": published,
        // The data's vintage as a version: the newest retrieval date, `2026-07-01` → `2026.7.1`.
        "version": published.split('-').map(|part| part.trim_start_matches('0')).collect::<Vec<_>>().join("."),
        "keywords": package["keywords"],
        "isLiveDataset": false,
        "isAccessibleForFree": true,
        "spatialCoverage": {"@type": "sc:Place", "name": "Latin America and the Caribbean"},
        "distribution": distribution,
        "recordSet": record_sets,
    });
    if let Some((first, last)) = years {
        description["temporalCoverage"] = format!("{first}/{last}").into();
    }
    Ok(description)
}

/// Writes `exports/croissant.json` in `dir`.
///
/// # Errors
/// [`BakeError`] if it cannot be written.
pub fn write_croissant(
    dir: &Path,
    package: &Value,
    metrics: &[Metric],
    sources: &[SourceRecord],
    years: Option<(i32, i32)>,
) -> Result<(), BakeError> {
    write_json(
        &dir.join(corpus::exports::EXPORTS_DIR)
            .join(corpus::exports::CROISSANT),
        &croissant(dir, package, metrics, sources, years)?,
    )?;
    Ok(())
}
