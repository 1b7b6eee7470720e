//! The observation tables, built and sorted with polars and written as Arrow IPC (uncompressed, for the
//! server's zero-copy memory map) and Parquet (zstd, for analysts). Column contract: `corpus::observation`.

use std::{fs::File, path::Path};

use polars::prelude::*;

use super::parquet::ParquetMetadata;
use crate::{
    BakeError, derive::concordance::ConcordanceColumns, govern::table::ObservationColumns,
};

/// Sorts `columns` by (indicator, country, year) and writes `{stem}.arrow` into `dir`, and the dataset
/// files `exports/datasets/{stem}.csv.gz` and `.parquet` (`metadata` as the Parquet key-value metadata,
/// one row group per run of indicators, [`super::parquet`]). Returns the number of rows written.
///
/// # Errors
/// [`BakeError::Table`] if polars cannot build, sort or write the table; [`BakeError::Io`] if a file
/// cannot be created.
pub fn write_observations(
    columns: &ObservationColumns,
    dir: &Path,
    stem: &str,
    metadata: &ParquetMetadata,
) -> Result<usize, BakeError> {
    let table_error = |error: PolarsError| BakeError::Table {
        artifact: stem.to_string(),
        message: error.to_string(),
    };
    let height = columns.len();
    let frame = DataFrame::new(
        height,
        vec![
            Column::new("indicator".into(), &columns.indicator),
            Column::new("country".into(), &columns.country),
            Column::new("year".into(), &columns.year),
            Column::new("value".into(), &columns.value),
            Column::new("source".into(), &columns.source),
            Column::new("vintage".into(), &columns.vintage),
            Column::new("citation_id".into(), &columns.citation_id),
            Column::new("flags".into(), &columns.flags),
            Column::new("standard_error".into(), &columns.standard_error),
            Column::new("source_count".into(), &columns.source_count),
        ],
    )
    .map_err(table_error)?;
    // (indicator, country, year) is unique after governance, so the sort order is total and the output
    // deterministic whatever the thread count.
    let mut frame = frame
        .sort(
            ["indicator", "country", "year"],
            SortMultipleOptions::default(),
        )
        .map_err(table_error)?;
    frame.rechunk_mut();

    write_frame(&mut frame, dir, stem, metadata)?;
    Ok(height)
}

/// Writes the concordance table as `concordance.arrow` and its dataset files in `dir`, in (pair,
/// country, year) order as built, one Parquet row group per run of pairs.
///
/// # Errors
/// As [`write_observations`].
pub fn write_concordance(
    columns: ConcordanceColumns,
    dir: &Path,
    metadata: &ParquetMetadata,
) -> Result<usize, BakeError> {
    let table_error = |error: PolarsError| BakeError::Table {
        artifact: "concordance".into(),
        message: error.to_string(),
    };
    let height = columns.len();
    let mut frame = DataFrame::new(
        height,
        vec![
            Column::new("pair".into(), columns.pair),
            Column::new("country".into(), columns.country),
            Column::new("year".into(), columns.year),
            Column::new("left_indicator".into(), columns.left_indicator),
            Column::new("left_value".into(), columns.left_value),
            Column::new("left_citation_id".into(), columns.left_citation_id),
            Column::new("right_indicator".into(), columns.right_indicator),
            Column::new("right_value".into(), columns.right_value),
            Column::new(
                "right_times_indicator".into(),
                columns.right_times_indicator,
            ),
            Column::new("right_times_value".into(), columns.right_times_value),
            Column::new(
                "right_times_citation_id".into(),
                columns.right_times_citation_id,
            ),
            Column::new("right_value_aligned".into(), columns.right_value_aligned),
            Column::new("right_citation_id".into(), columns.right_citation_id),
            Column::new("difference".into(), columns.difference),
            Column::new("within_tolerance".into(), columns.within_tolerance),
        ],
    )
    .map_err(table_error)?;
    write_frame(&mut frame, dir, "concordance", metadata).map_err(|error| match error {
        BakeError::Table { message, .. } => BakeError::Table {
            artifact: "concordance".into(),
            message,
        },
        other => other,
    })?;
    Ok(height)
}

/// Writes `frame` as `{stem}.arrow` (uncompressed, LargeUtf8 strings) and, for analysts,
/// `exports/datasets/{stem}.parquet` and `.csv.gz`.
fn write_frame(
    frame: &mut DataFrame,
    dir: &Path,
    stem: &str,
    metadata: &ParquetMetadata,
) -> Result<(), BakeError> {
    let table_error = |error: PolarsError| BakeError::Table {
        artifact: stem.to_string(),
        message: error.to_string(),
    };
    let arrow_path = dir.join(format!("{stem}.arrow"));
    let arrow_file =
        File::create(&arrow_path).map_err(|error| BakeError::io(&arrow_path, error))?;
    // The oldest compat level writes LargeUtf8 strings (no view types), which arrow-rs reads zero-copy.
    IpcWriter::new(arrow_file)
        .with_compat_level(CompatLevel::oldest())
        .with_compression(None)
        .with_parallel(false)
        .finish(frame)
        .map_err(table_error)?;
    super::dataset_files::write_dataset_files(dir, stem, frame, metadata)
}

/// The key-value metadata of an observation table's Parquet file (`observations`, `aggregates`): the
/// dataset's ([`super::dataset_files::dataset_metadata`]), with `units` (JSON object: metric id → unit)
/// and `source_records` (JSON object: source id → publisher, dataset name, licence, vintage) for the
/// metrics and sources the table holds.
pub fn observation_metadata(
    datasets: &[corpus::Dataset],
    id: &str,
    columns: &ObservationColumns,
    metrics: &[corpus::Metric],
    sources: &[corpus::SourceRecord],
) -> ParquetMetadata {
    let held: std::collections::BTreeSet<&str> =
        columns.indicator.iter().map(String::as_str).collect();
    let held_sources: std::collections::BTreeSet<&str> =
        columns.source.iter().map(String::as_str).collect();
    let units: serde_json::Map<String, serde_json::Value> = metrics
        .iter()
        .filter(|metric| held.contains(metric.id.as_str()))
        .map(|metric| (metric.id.clone(), metric.unit.clone().into()))
        .collect();
    let source_records: serde_json::Map<String, serde_json::Value> = sources
        .iter()
        .filter(|source| held_sources.contains(source.id.as_str()))
        .map(|source| {
            (
                source.id.clone(),
                serde_json::json!({
                    "publisher": source.publisher,
                    "dataset": source.name,
                    "licence": source.license,
                    "vintage": source.vintage,
                }),
            )
        })
        .collect();
    super::dataset_files::dataset_metadata(datasets, id)
        .with("units", &serde_json::Value::Object(units).to_string())
        .with(
            "source_records",
            &serde_json::Value::Object(source_records).to_string(),
        )
}
