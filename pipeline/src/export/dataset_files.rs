//! Whole-dataset files for analysts (`exports/datasets/{dataset_id}.csv.gz` and `.parquet`), and the
//! registry workbook (`exports/registry.xlsx`).
//!
//! The tables (observations, aggregates, concordance) are written from their polars frames; the derived
//! datasets stored as JSON (series statistics, discoveries, data health) are flattened from their records:
//! one column per field, typed by its values (integers → int64, numbers → float64, booleans, strings;
//! lists and maps as JSON text), in the records' field order.

use std::{collections::BTreeMap, fs::File, io::BufWriter, path::Path};

use corpus::{
    CitedRecord, Dataset, RecordDataset, RecordSource,
    exports::{Format, Subject},
    write_json,
};
use flate2::{Compression, write::GzEncoder};
use polars::prelude::{Column, CsvWriter, DataFrame, NamedFrom, SerWriter, Series};
use rust_xlsxwriter::{Format as CellFormat, XlsxError};
use serde::Serialize;
use serde_json::Value;

use super::{
    indicators::{new_workbook, write_header},
    parquet::{ParquetMetadata, write_parquet},
};
use crate::{BakeError, govern::records::Curated};

/// The directory of the dataset files, inside a corpus directory.
pub const DATASET_DIR: &str = "exports/datasets";

/// The path of dataset `id` in `format` inside `dir`.
pub fn dataset_path(dir: &Path, id: &str, format: Format) -> std::path::PathBuf {
    dir.join(corpus::exports::EXPORTS_DIR).join(format!(
        "{}{id}{}",
        Subject::Dataset.dir(),
        format.suffix()
    ))
}

/// Writes `frame` as `exports/datasets/{id}.csv.gz` (RFC 4180, header row, gzip level 6, no timestamp in
/// the gzip header, so the bytes are deterministic) and `.parquet` in `dir` ([`write_parquet`]: row
/// groups along the frame's `indicator` or `pair` column, the first it has; `metadata` as its key-value
/// metadata, see [`dataset_metadata`]).
///
/// # Errors
/// [`BakeError::Io`] naming the file; [`BakeError::Table`] if polars cannot encode the frame.
pub fn write_dataset_files(
    dir: &Path,
    id: &str,
    frame: &mut DataFrame,
    metadata: &ParquetMetadata,
) -> Result<(), BakeError> {
    let csv_path = dataset_path(dir, id, Format::CsvGz);
    let file = File::create(&csv_path).map_err(|error| BakeError::io(&csv_path, error))?;
    let mut gzip = GzEncoder::new(BufWriter::with_capacity(1 << 16, file), Compression::new(6));
    CsvWriter::new(&mut gzip)
        .include_header(true)
        .with_line_terminator("\r\n".into())
        .finish(frame)
        .map_err(|error| BakeError::Table {
            artifact: csv_path.display().to_string(),
            message: error.to_string(),
        })?;
    gzip.finish()
        .and_then(|mut inner| std::io::Write::flush(&mut inner))
        .map_err(|error| BakeError::io(&csv_path, error))?;
    let group_by = GROUP_COLUMNS
        .into_iter()
        .find(|name| frame.column(name).is_ok());
    write_parquet(
        &dataset_path(dir, id, Format::Parquet),
        frame,
        group_by,
        metadata,
    )
}

/// The columns a dataset's Parquet row groups follow, the first the frame has.
const GROUP_COLUMNS: [&str; 2] = ["indicator", "pair"];

/// The key-value metadata of dataset `id`'s Parquet file from its catalog entry in `datasets`: title,
/// description, licence, sources (comma-separated source ids), keys (comma-separated), rows, and the
/// citation rule. An id the catalog lacks gets the citation rule only.
pub fn dataset_metadata(datasets: &[Dataset], id: &str) -> ParquetMetadata {
    let Some(dataset) = datasets.iter().find(|dataset| dataset.dataset_id == id) else {
        return ParquetMetadata::new();
    };
    ParquetMetadata::new()
        .with("dataset", &dataset.dataset_id)
        .with("title", &dataset.title)
        .with("description", &dataset.description)
        .with("licence", &dataset.license)
        .with("sources", &dataset.sources.join(","))
        .with("keys", &dataset.keys.join(","))
        .with("rows", &dataset.rows.to_string())
}

/// Writes every curated record dataset's artifact (`projects.json`, …, [`RecordDataset::artifact`]) in
/// `dir`, each record with its source id but without its source's publisher, licence and attribution,
/// which `record_sources.json` declares once per source ([`corpus::RecordSource`]).
///
/// # Errors
/// [`BakeError::Table`] if two records of one source disagree on its provenance; [`BakeError`] naming a
/// file that could not be written.
pub fn write_record_artifacts(dir: &Path, curated: &Curated) -> Result<(), BakeError> {
    let mut sources: BTreeMap<String, RecordSource> = BTreeMap::new();
    for dataset in RecordDataset::ALL {
        let path = dir.join(dataset.artifact());
        match dataset {
            RecordDataset::Projects => write_stripped(&path, &curated.projects, &mut sources)?,
            RecordDataset::Regulation => write_stripped(&path, &curated.laws, &mut sources)?,
            RecordDataset::Institutions => {
                write_stripped(&path, &curated.institutions, &mut sources)?;
            }
            RecordDataset::Financing => write_stripped(&path, &curated.financing, &mut sources)?,
            RecordDataset::Events => write_stripped(&path, &curated.events, &mut sources)?,
        }
    }
    let sources: Vec<RecordSource> = sources.into_values().collect();
    write_json(&dir.join(corpus::layout::RECORD_SOURCES), &sources)?;
    Ok(())
}

/// Writes `records` to `path` without their sources' provenance, which joins `sources` (one entry per
/// source id).
///
/// # Errors
/// [`BakeError::Table`] if a record's provenance differs from that of an earlier record of its source.
fn write_stripped<T: CitedRecord + Clone + Serialize>(
    path: &Path,
    records: &[T],
    sources: &mut BTreeMap<String, RecordSource>,
) -> Result<(), BakeError> {
    let mut stripped = Vec::with_capacity(records.len());
    for record in records {
        let provenance = record.provenance();
        match sources.get(&provenance.id) {
            Some(known) if *known != provenance => {
                return Err(BakeError::Table {
                    artifact: corpus::layout::RECORD_SOURCES.to_string(),
                    message: format!(
                        "record {} of source `{}` is credited as {:?}, another record of it as {:?}: one source, one provenance",
                        record.citation_id(),
                        provenance.id,
                        provenance,
                        known
                    ),
                });
            }
            Some(_) => {}
            None => {
                sources.insert(provenance.id.clone(), provenance);
            }
        }
        let mut record = record.clone();
        record.strip_provenance();
        stripped.push(record);
    }
    write_json(path, &stripped)?;
    Ok(())
}

/// Writes every curated record dataset as `exports/datasets/{dataset_id}.csv.gz` and `.parquet` in `dir`
/// ([`write_dataset_files`], the records flattened by [`records_frame`]).
///
/// # Errors
/// As [`write_dataset_files`] and [`records_frame`].
pub fn write_record_dataset_files(
    dir: &Path,
    curated: &Curated,
    datasets: &[Dataset],
) -> Result<(), BakeError> {
    for dataset in RecordDataset::ALL {
        let id = dataset.id();
        let mut frame = match dataset {
            RecordDataset::Projects => records_frame(id, &curated.projects)?,
            RecordDataset::Regulation => records_frame(id, &curated.laws)?,
            RecordDataset::Institutions => records_frame(id, &curated.institutions)?,
            RecordDataset::Financing => records_frame(id, &curated.financing)?,
            RecordDataset::Events => records_frame(id, &curated.events)?,
        };
        write_dataset_files(dir, id, &mut frame, &dataset_metadata(datasets, id))?;
    }
    Ok(())
}

/// Flattens serializable records into a frame: one column per top-level field of any record (every record
/// must serialize to a JSON object; key columns such as `indicator`, `country`, `year` first), typed by
/// the values; nested values become JSON text.
///
/// # Errors
/// [`BakeError::Table`] naming `artifact` if a record is not an object or polars rejects a column.
pub fn records_frame<T: Serialize>(artifact: &str, records: &[T]) -> Result<DataFrame, BakeError> {
    rows_frame(
        artifact,
        records.iter().map(|record| json_object(artifact, record)),
    )
}

/// [`records_frame`] of rows already turned into JSON objects, taken one at a time: each row's cells are
/// moved into their columns as it comes, so the rows are never all held as objects (a field name per
/// cell), only as columns of values.
///
/// # Errors
/// The first error of `rows`; [`BakeError::Table`] naming `artifact` if polars refuses the columns.
pub fn rows_frame(
    artifact: &str,
    rows: impl IntoIterator<Item = Result<serde_json::Map<String, Value>, BakeError>>,
) -> Result<DataFrame, BakeError> {
    let mut columns: BTreeMap<String, Vec<Option<Value>>> = BTreeMap::new();
    let mut height = 0;
    for row in rows {
        for (name, value) in row? {
            let cells = columns.entry(name).or_default();
            cells.resize(height, None);
            cells.push((!value.is_null()).then_some(value));
        }
        height += 1;
    }
    let mut names: Vec<&String> = columns.keys().collect();
    names.sort_by_key(|name| key_column_rank(name));
    let series = names
        .into_iter()
        .map(|name| {
            let column = &columns[name];
            let cells: Vec<Option<&Value>> = (0..height)
                .map(|row| column.get(row).and_then(Option::as_ref))
                .collect();
            Column::from(typed_series(name, &cells))
        })
        .collect();
    DataFrame::new(height, series).map_err(|error| BakeError::Table {
        artifact: artifact.to_string(),
        message: error.to_string(),
    })
}

/// Where a field goes among the columns: its place in [`KEY_COLUMNS`], the others after them.
fn key_column_rank(name: &str) -> usize {
    KEY_COLUMNS
        .iter()
        .position(|key| *key == name)
        .unwrap_or(KEY_COLUMNS.len())
}

/// Columns a reader looks for first, in this order, when a table has them; the other fields follow in
/// name order.
const KEY_COLUMNS: [&str; 9] = [
    "id",
    "iso3",
    "dataset_id",
    "kind",
    "parameter",
    "pillar",
    "indicator",
    "country",
    "year",
];

/// Every field name of `rows`: the [`KEY_COLUMNS`] they have first, then the others in name order.
fn column_names(rows: &[serde_json::Map<String, Value>]) -> Vec<&str> {
    let mut names: Vec<&str> = rows
        .iter()
        .flat_map(|row| row.keys().map(String::as_str))
        .collect::<std::collections::BTreeSet<&str>>()
        .into_iter()
        .collect();
    names.sort_by_key(|name| key_column_rank(name));
    names
}

/// One column of JSON cells, typed by what they hold; a column with no value at all is text (no type can
/// be read from nothing, and text is what every reader keeps as it is).
fn typed_series(name: &str, cells: &[Option<&Value>]) -> Series {
    let present = || cells.iter().flatten();
    if present().next().is_none() {
        return Series::new(name.into(), vec![None::<String>; cells.len()]);
    }
    if present().all(|value| value.is_i64()) {
        let values: Vec<Option<i64>> = cells
            .iter()
            .map(|cell| cell.and_then(Value::as_i64))
            .collect();
        Series::new(name.into(), values)
    } else if present().all(|value| value.is_number()) {
        let values: Vec<Option<f64>> = cells
            .iter()
            .map(|cell| cell.and_then(Value::as_f64))
            .collect();
        Series::new(name.into(), values)
    } else if present().all(|value| value.is_boolean()) {
        let values: Vec<Option<bool>> = cells
            .iter()
            .map(|cell| cell.and_then(Value::as_bool))
            .collect();
        Series::new(name.into(), values)
    } else {
        let values: Vec<Option<String>> = cells
            .iter()
            .map(|cell| {
                cell.map(|value| match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
            })
            .collect();
        Series::new(name.into(), values)
    }
}

/// Writes `exports/registry.xlsx` in `dir`: one sheet per registry (`metrics`, `sources`, `countries`,
/// `pillars`), one row per record, the fields flattened as in [`records_frame`] (lists and maps as JSON
/// text), the header row bold and frozen.
///
/// # Errors
/// [`BakeError::Table`] if a record cannot be flattened or the workbook cannot be written.
pub fn write_registry_xlsx(
    dir: &Path,
    sheets: &[(&str, Vec<serde_json::Map<String, Value>>)],
) -> Result<(), BakeError> {
    let path = dir
        .join(corpus::exports::EXPORTS_DIR)
        .join(format!("registry{}", Format::Xlsx.suffix()));
    let xlsx_error = |error: XlsxError| BakeError::Table {
        artifact: path.display().to_string(),
        message: error.to_string(),
    };
    let mut workbook = new_workbook();
    let bold = CellFormat::new().set_bold();
    for (name, rows) in sheets {
        let sheet = workbook
            .add_worksheet()
            .set_name(*name)
            .map_err(xlsx_error)?;
        let columns = column_names(rows);
        write_header(sheet, &columns, &bold).map_err(xlsx_error)?;
        for (line, row) in rows.iter().enumerate() {
            for (column, key) in columns.iter().enumerate() {
                let (r, c) = (line as u32 + 1, column as u16);
                match row.get(*key) {
                    None | Some(Value::Null) => continue,
                    Some(Value::Number(number)) => match number.as_f64() {
                        Some(value) => sheet.write_number(r, c, value),
                        None => sheet.write_string(r, c, number.to_string()),
                    },
                    Some(Value::Bool(flag)) => sheet.write_boolean(r, c, *flag),
                    Some(Value::String(text)) => sheet.write_string(r, c, text),
                    Some(other) => sheet.write_string(r, c, other.to_string()),
                }
                .map_err(xlsx_error)?;
            }
        }
        sheet.set_freeze_panes(1, 0).map_err(xlsx_error)?;
    }
    workbook.save(&path).map_err(xlsx_error)
}

/// The records of `items` as JSON objects, for [`records_frame`] and [`write_registry_xlsx`].
///
/// # Errors
/// [`BakeError::Table`] naming `artifact` if a record does not serialize to an object.
pub fn json_records<T: Serialize>(
    artifact: &str,
    items: &[T],
) -> Result<Vec<serde_json::Map<String, Value>>, BakeError> {
    items
        .iter()
        .map(|item| json_object(artifact, item))
        .collect()
}

/// One record as a JSON object.
///
/// # Errors
/// [`BakeError::Table`] naming `artifact` if the record does not serialize to an object.
pub fn json_object<T: Serialize>(
    artifact: &str,
    item: &T,
) -> Result<serde_json::Map<String, Value>, BakeError> {
    match serde_json::to_value(item) {
        Ok(Value::Object(fields)) => Ok(fields),
        _ => Err(BakeError::Table {
            artifact: artifact.to_string(),
            message: "a record is not a JSON object".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_become_typed_columns_key_columns_first_and_missing_cells_null() {
        // Uruguay's Gini index (WDI SI.POV.GINI: 40.0 in 2024, 40.6 in 2023); the second row lacks a value
        // and the first a note.
        let rows = [
            serde_json::json!({"value": 40.0, "year": 2024, "country": "URY", "indicator": "si_pov_gini"}),
            serde_json::json!({"year": 2023, "note": "no value", "country": "URY", "indicator": "si_pov_gini"}),
            serde_json::json!({"value": 40.6, "year": 2023, "country": "URY", "indicator": "si_pov_gini", "note": null}),
        ];
        let frame = rows_frame(
            "test",
            rows.iter()
                .map(|row| Ok(row.as_object().expect("an object").clone())),
        )
        .unwrap();
        assert_eq!(
            frame
                .get_column_names()
                .iter()
                .map(|name| name.as_str())
                .collect::<Vec<_>>(),
            ["indicator", "country", "year", "note", "value"]
        );
        assert_eq!(
            frame.column("year").unwrap().dtype(),
            &polars::prelude::DataType::Int64
        );
        let values: Vec<Option<f64>> = frame
            .column("value")
            .unwrap()
            .f64()
            .unwrap()
            .iter()
            .collect();
        assert_eq!(values, [Some(40.0), None, Some(40.6)]);
        let notes: Vec<Option<&str>> = frame
            .column("note")
            .unwrap()
            .str()
            .unwrap()
            .iter()
            .collect();
        assert_eq!(notes, [None, Some("no value"), None]);
        // The same frame as records_frame of the records.
        let records = records_frame("test", &rows).unwrap();
        assert!(records.equals_missing(&frame));
    }
}
