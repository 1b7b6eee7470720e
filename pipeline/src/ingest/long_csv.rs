//! Long-format CSV connectors: one file per indicator (WDI `indicators/<code>/data.csv`) or one file for
//! all indicators with an indicator column (WGI `wgidataset.latam.csv`).

use std::{collections::HashMap, path::Path};

use rayon::prelude::*;

use super::{Descriptor, RawFile, RawRow, relative_display};
use crate::{
    BakeError,
    sources::{Connector, MetricMapping, SourceEntry, catalog::ATTRIBUTE_COLUMNS},
};

/// Reads every raw file of an observation source, and the descriptor of each mapped indicator (empty
/// descriptors for connectors without one). `progress` advances by one per mapped indicator.
///
/// # Errors
/// [`BakeError::RawFile`] if a file is missing, unreadable or lacks a declared column.
pub fn read_source(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let raw_dir = entry.raw_dir(sources_dir);
    match &entry.connector {
        Connector::LongCsvPerIndicator { file, descriptor, country_column, year_column, value_column, .. } => {
            let columns = Columns { indicator: None, country: country_column, year: year_column, value: value_column, attributes: [None, None] };
            let per_indicator: Vec<(RawFile, Descriptor)> = mapping
                .rows
                .par_iter()
                .enumerate()
                .map(|(mapping_idx, row)| {
                    let code_lower = row.raw_key().to_ascii_lowercase();
                    let path = raw_dir.join(file.replace("{code_lower}", &code_lower));
                    let raw_file = read_file(sources_dir, &path, &columns, |_| Some(mapping_idx))?;
                    let descriptor = match descriptor {
                        Some(pattern) => read_descriptor(&raw_dir.join(pattern.replace("{code_lower}", &code_lower)))?,
                        None => Descriptor::default(),
                    };
                    progress.inc(1);
                    Ok((raw_file, descriptor))
                })
                .collect::<Result<_, BakeError>>()?;
            Ok(per_indicator.into_iter().unzip())
        }
        Connector::LongCsv { file, indicator_column, country_column, year_column, value_column, attributes, .. } => {
            let attribute_columns = ATTRIBUTE_COLUMNS.map(|name| attributes.get(name).map(String::as_str));
            let columns = Columns {
                indicator: Some(indicator_column),
                country: country_column,
                year: year_column,
                value: value_column,
                attributes: attribute_columns,
            };
            let by_key: HashMap<&str, usize> =
                mapping.rows.iter().enumerate().map(|(mapping_idx, row)| (row.raw_key(), mapping_idx)).collect();
            let raw_file = read_file(sources_dir, &raw_dir.join(file), &columns, |key| by_key.get(key).copied())?;
            progress.inc(mapping.rows.len() as u64);
            Ok((vec![raw_file], vec![Descriptor::default(); mapping.rows.len()]))
        }
        other => unreachable!("read_source called for connector `{}`", other.kind()),
    }
}

/// The missing-value markers a connector declares.
pub fn missing_markers(connector: &Connector) -> &[String] {
    match connector {
        Connector::LongCsvPerIndicator { missing_markers, .. } | Connector::LongCsv { missing_markers, .. } => missing_markers,
        _ => &[],
    }
}

struct Columns<'a> {
    indicator: Option<&'a str>,
    country: &'a str,
    year: &'a str,
    value: &'a str,
    attributes: [Option<&'a str>; 2],
}

/// Reads one long CSV. Rows whose indicator key is not mapped are skipped: the mapping declares which
/// indicators of a multi-indicator file the corpus takes.
fn read_file(
    sources_dir: &Path,
    path: &Path,
    columns: &Columns<'_>,
    mapping_idx_for: impl Fn(&str) -> Option<usize>,
) -> Result<RawFile, BakeError> {
    let mut reader = csv::Reader::from_path(path).map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
    let headers = reader.headers().map_err(|error| BakeError::raw_file(path, error))?.clone();
    let column_index = |name: &str| {
        headers.iter().position(|header| header.trim_start_matches('\u{feff}') == name).ok_or_else(|| {
            BakeError::raw_file(path, format!("no column `{name}`; columns: {}", headers.iter().collect::<Vec<_>>().join(", ")))
        })
    };
    let indicator = columns.indicator.map(column_index).transpose()?;
    let (country, year, value) = (column_index(columns.country)?, column_index(columns.year)?, column_index(columns.value)?);
    let attributes = [columns.attributes[0].map(column_index).transpose()?, columns.attributes[1].map(column_index).transpose()?];
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| BakeError::raw_file(path, error))?;
        let line = record.position().map_or(0, |position| position.line());
        let cell = |index: usize| record.get(index).unwrap_or_default().trim().to_string();
        let Some(mapping_idx) = mapping_idx_for(indicator.map_or("", |index| record.get(index).unwrap_or_default())) else {
            continue;
        };
        rows.push(RawRow {
            mapping_idx,
            line,
            country: cell(country),
            year: cell(year),
            value: cell(value),
            attributes: attributes.map(|attribute| attribute.map(cell)),
        });
    }
    Ok(RawFile { file: relative_display(sources_dir, path), rows })
}

/// Reads a Frictionless `datapackage.json`: `title` and `readme`/`description`.
fn read_descriptor(path: &Path) -> Result<Descriptor, BakeError> {
    let bytes = std::fs::read(path).map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
    let json: serde_json::Value = serde_json::from_slice(&bytes).map_err(|error| BakeError::raw_file(path, error))?;
    let text = |key: &str| json.get(key).and_then(|value| value.as_str()).map(|value| value.trim().to_string()).filter(|value| !value.is_empty());
    Ok(Descriptor { title: text("title"), description: text("readme").or_else(|| text("description")) })
}
