//! The analysts' files of a bake, written into `exports/` of the staging directory, and their list
//! (`exports/downloads.json`, [`corpus::exports::Download`]) that the server serves, links and renders.
//!
//! Per indicator the tidy and wide CSV, Parquet, XLSX, SDMX-ML and SDMX-CSV ([`super::indicators`],
//! [`super::sdmx`]), written in parallel (one indicator per task, so the output is the same whatever the
//! thread count); per dataset CSV (gzip) and Parquet ([`super::dataset_files`]); the registry workbook and
//! the SDMX structure message.

use std::path::Path;

use corpus::{
    Country, Dataset, Metric, SourceRecord,
    exports::{
        DATASET_FORMATS, DOWNLOADS, Download, EXPORTS_DIR, Format, INDICATOR_FORMATS, Subject,
    },
    write_json,
};
use rayon::prelude::*;

use super::{
    indicators::{
        INDICATOR_DIR, IndicatorExport, group_by_indicator, indicator_path, write_indicator_files,
    },
    sdmx,
};
use crate::{BakeError, govern::table::ObservationColumns};

/// The ids of the structure message and the registry workbook in the downloads list.
pub const STRUCTURE_ID: &str = "structure";
/// See [`STRUCTURE_ID`].
pub const REGISTRY_ID: &str = "registry";
/// See [`STRUCTURE_ID`]: `changes.json`, what the corpus changed against the one it replaced.
pub const CHANGES_ID: &str = "changes";

/// Creates `exports/` and its subdirectories in `dir`.
///
/// # Errors
/// [`BakeError::Io`] naming the directory.
pub fn create_dirs(dir: &Path) -> Result<(), BakeError> {
    for sub in [
        EXPORTS_DIR.to_string(),
        INDICATOR_DIR.to_string(),
        super::dataset_files::DATASET_DIR.to_string(),
        format!("{EXPORTS_DIR}/{}", Subject::Structure.dir()),
    ] {
        let path = dir.join(sub);
        std::fs::create_dir_all(&path).map_err(|error| BakeError::io(&path, error))?;
    }
    Ok(())
}

/// The SDMX `Prepared` time of a corpus: the newest retrieval date of its sources at midnight, so it is
/// deterministic and says how recent the data is (`2026-07-01T00:00:00`).
pub fn prepared_time(sources: &[SourceRecord]) -> String {
    let newest = sources
        .iter()
        .map(|source| source.retrieved_at.as_str())
        .filter(|date| date.len() == 10)
        .max()
        .unwrap_or("1970-01-01");
    format!("{newest}T00:00:00")
}

/// Writes every per-indicator file and the SDMX structure message into `dir`; returns the ids of the
/// metrics that have files (those with observations), in id order, each with the Data Resource of its
/// tidy CSV ([`super::datapackage::indicator_resource`], path `indicators/{id}.csv`).
///
/// # Errors
/// The first [`BakeError`] of any file, naming it.
pub fn write_indicator_exports(
    dir: &Path,
    observations: &ObservationColumns,
    metrics: &[Metric],
    sources: &[SourceRecord],
    countries: &[Country],
) -> Result<Vec<(String, serde_json::Value)>, BakeError> {
    let prepared = prepared_time(sources);
    let exports = group_by_indicator(observations, metrics, sources, countries);
    // Parquet and workbook encoders nest deeply; unoptimised (test) builds need more than the default
    // 2 MiB of stack per worker.
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(16 << 20)
        .build()
        .map_err(|error| BakeError::Table {
            artifact: INDICATOR_DIR.into(),
            message: format!("cannot start the export threads: {error}"),
        })?;
    // Each task turns its group into export rows and drops them once the indicator's files are written.
    let resources: Vec<serde_json::Value> = pool.install(|| {
        exports
            .groups
            .par_iter()
            .map(|group| write_one(dir, &exports.export(group), &prepared))
            .collect::<Result<_, _>>()
    })?;
    let exported: Vec<&Metric> = exports.groups.iter().map(|group| group.metric).collect();
    sdmx::write_structure(&structure_path(dir), &exported, countries, &prepared)?;
    Ok(exports
        .groups
        .iter()
        .map(|group| group.metric.id.clone())
        .zip(resources)
        .collect())
}

/// Writes every file of one indicator; returns the Data Resource of its tidy CSV.
fn write_one(
    dir: &Path,
    export: &IndicatorExport<'_>,
    prepared: &str,
) -> Result<serde_json::Value, BakeError> {
    let id = export.metric.id.as_str();
    write_indicator_files(dir, export)?;
    let csv_path = indicator_path(dir, id, Format::Csv);
    let csv = std::fs::read(&csv_path).map_err(|error| BakeError::io(&csv_path, error))?;
    super::indicator_zip::write_indicator_zip(&indicator_path(dir, id, Format::Zip), export, &csv)?;
    sdmx::write_structure_specific(&indicator_path(dir, id, Format::SdmxMl), export, prepared)?;
    sdmx::write_sdmx_csv(
        &indicator_path(dir, id, Format::SdmxCsv),
        export,
        sdmx::SdmxCsvVersion::V2,
    )?;
    sdmx::write_sdmx_csv(
        &indicator_path(dir, id, Format::SdmxCsv1),
        export,
        sdmx::SdmxCsvVersion::V1,
    )?;
    Ok(super::datapackage::indicator_resource(
        export,
        &format!("{INDICATOR_DIR_IN_EXPORTS}{id}.csv"),
        &csv,
    ))
}

/// The indicator directory inside `exports/`, as the corpus package's paths write it.
const INDICATOR_DIR_IN_EXPORTS: &str = "indicators/";

/// The path of the SDMX structure message in `dir`.
pub fn structure_path(dir: &Path) -> std::path::PathBuf {
    dir.join(EXPORTS_DIR)
        .join(Download::new(Subject::Structure, STRUCTURE_ID, Format::SdmxMl, "", "").path)
}

/// Writes `exports/downloads.json` in `dir`: every file written by this module, indicators (metric id
/// order, [`INDICATOR_FORMATS`]) then datasets with exports (`datasets.json` order, [`DATASET_FORMATS`]),
/// the registry workbook and the structure message. Returns the list.
///
/// # Errors
/// [`BakeError::Io`]/[`BakeError::Corpus`] if a listed file is missing or the list cannot be written.
pub fn write_downloads(
    dir: &Path,
    metrics: &[Metric],
    exported_metrics: &[String],
    datasets: &[Dataset],
    exported_datasets: &[&str],
) -> Result<Vec<Download>, BakeError> {
    let mut downloads = Vec::new();
    for id in exported_metrics {
        let Some(metric) = metrics.iter().find(|metric| &metric.id == id) else {
            continue;
        };
        for format in INDICATOR_FORMATS {
            downloads.push(Download::new(
                Subject::Indicator,
                id,
                format,
                &metric.names.en,
                &metric.license,
            ));
        }
    }
    for dataset in datasets {
        if !exported_datasets.contains(&dataset.dataset_id.as_str()) {
            continue;
        }
        for format in DATASET_FORMATS {
            downloads.push(Download::new(
                Subject::Dataset,
                &dataset.dataset_id,
                format,
                &dataset.title,
                &dataset.license,
            ));
        }
    }
    let all_licences = super::datasets::combined_license(metrics);
    downloads.push(Download::new(
        Subject::Registry,
        REGISTRY_ID,
        Format::Xlsx,
        "Registries: metrics, sources, countries, pillars",
        &all_licences,
    ));
    downloads.push(Download::new(
        Subject::Structure,
        STRUCTURE_ID,
        Format::SdmxMl,
        "SDMX-ML 2.1 structure: codelists, concepts, data structure and dataflow of the SDMX files",
        &all_licences,
    ));
    downloads.push(Download::new(
        Subject::Metadata,
        "datapackage",
        Format::Json,
        "Frictionless Data Package: every indicator CSV and dataset file with its schema, licence, source and sha256",
        &all_licences,
    ));
    downloads.push(Download::new(
        Subject::Metadata,
        "croissant",
        Format::Json,
        "Croissant 1.1 description: the datasets' Parquet files and their record sets",
        &all_licences,
    ));
    downloads.push(Download::new(
        Subject::Changes,
        CHANGES_ID,
        Format::Json,
        "What this corpus changed against the one it replaced: values revised, years, series and records added or dropped",
        &all_licences,
    ));
    for download in &downloads {
        let path = dir.join(download.artifact_name());
        // changes.json is written at publish, once the corpus version it names is known.
        if !path.is_file() && download.artifact_name() != corpus::layout::CHANGES {
            return Err(BakeError::io(
                &path,
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "a listed download was not written",
                ),
            ));
        }
    }
    write_json(&dir.join(DOWNLOADS), &downloads)?;
    Ok(downloads)
}
