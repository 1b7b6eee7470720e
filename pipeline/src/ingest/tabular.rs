//! The tabular connectors: the plain layouts of indicator values in CSV files, declared per source in its
//! catalog entry (`crate::sources::Connector`), read into raw rows with cells as written. One reader
//! among the connectors; [`super::read_source`] picks it.
//!
//! - `long_csv_per_indicator`: one long CSV per indicator (WDI `indicators/<code>/data.csv`, IMF WEO
//!   `datapoints/ddf--datapoints--<key>--by--country--year.csv` with projection notes).
//! - `long_csv`: one long CSV with an indicator column (WGI).
//! - `columns_csv`: one CSV with a value column per indicator (ND-GAIN, WBL, CEPAL, OWID).
//! - `year_columns_csv`: one column per year (UNDP HDI).
//! - `sum_csv`: record-level rows summed per country and year (OECD CRS).

use std::{
    collections::{BTreeMap, HashMap},
    path::Path,
};

use rayon::prelude::*;

use super::{
    projection::{PROJECTION_FLAG, estimates_start_after},
    raw::{Descriptor, RawFile, RawRow, relative_display},
    table::Table,
};
use crate::{
    BakeError,
    sources::{
        Connector, MetricMapping, SourceEntry,
        catalog::{ATTRIBUTE_COLUMNS, ProjectionNotes},
    },
};

/// Reads every raw file of a source with one of the tabular layouts, and the descriptor of each mapped
/// indicator (empty descriptors for layouts without one). `progress` advances by one per mapped indicator.
/// Called by [`super::read_source`] for these connectors only.
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
    let no_descriptors = || vec![Descriptor::default(); mapping.rows.len()];
    let files_and_descriptors = match &entry.connector {
        Connector::LongCsvPerIndicator {
            file,
            descriptor,
            country_column,
            year_column,
            value_column,
            projections,
            ..
        } => {
            let projections = projections
                .as_ref()
                .map(|notes| read_projection_notes(&raw_dir, notes))
                .transpose()?;
            let per_indicator: Vec<(RawFile, Descriptor)> = mapping
                .rows
                .par_iter()
                .enumerate()
                .map(|(mapping_idx, row)| {
                    let expand = |pattern: &str| {
                        pattern
                            .replace("{code_lower}", &row.source_code.to_ascii_lowercase())
                            .replace("{raw_key}", row.raw_key())
                    };
                    let path = raw_dir.join(expand(file));
                    let value_column = expand(value_column);
                    let mut table = Table::read(&path)?;
                    let (country, year, value) = (
                        table.column(country_column)?,
                        table.column(year_column)?,
                        table.column(&value_column)?,
                    );
                    let after = projections
                        .as_ref()
                        .and_then(|notes| notes.get(row.raw_key()));
                    let rows = table
                        .records
                        .drain(..)
                        .map(|(line, cells)| {
                            let mut raw = RawRow::new(
                                mapping_idx,
                                line,
                                cells[country].clone(),
                                cells[year].clone(),
                                cells[value].clone(),
                            );
                            if let (Some(after), Ok(year)) = (
                                after.and_then(|by_country| {
                                    by_country.get(&raw.country.to_ascii_uppercase())
                                }),
                                raw.year.parse::<i32>(),
                            ) && year > *after
                            {
                                raw.flags = PROJECTION_FLAG.to_string();
                            }
                            raw
                        })
                        .collect();
                    let descriptor = match descriptor {
                        Some(pattern) => read_descriptor(&raw_dir.join(expand(pattern)))?,
                        None => Descriptor::default(),
                    };
                    progress.inc(1);
                    Ok((
                        RawFile {
                            file: relative_display(sources_dir, &path),
                            rows,
                        },
                        descriptor,
                    ))
                })
                .collect::<Result<_, BakeError>>()?;
            per_indicator.into_iter().unzip()
        }
        Connector::LongCsv {
            file,
            indicator_column,
            country_column,
            year_column,
            value_column,
            attributes,
            ..
        } => {
            let path = raw_dir.join(file);
            let table = Table::read(&path)?;
            let (indicator, country, year, value) = (
                table.column(indicator_column)?,
                table.column(country_column)?,
                table.column(year_column)?,
                table.column(value_column)?,
            );
            let attribute_columns: Vec<Option<usize>> = ATTRIBUTE_COLUMNS
                .iter()
                .map(|name| {
                    attributes
                        .get(*name)
                        .map(|raw| table.column(raw))
                        .transpose()
                })
                .collect::<Result<_, _>>()?;
            let by_key: HashMap<&str, usize> = mapping
                .rows
                .iter()
                .enumerate()
                .map(|(mapping_idx, row)| (row.raw_key(), mapping_idx))
                .collect();
            let rows = table
                .records
                .iter()
                .filter_map(|(line, cells)| {
                    let mapping_idx = *by_key.get(cells[indicator].as_str())?;
                    let mut raw = RawRow::new(
                        mapping_idx,
                        *line,
                        cells[country].clone(),
                        cells[year].clone(),
                        cells[value].clone(),
                    );
                    raw.attributes = [0, 1]
                        .map(|slot| attribute_columns[slot].map(|column| cells[column].clone()));
                    Some(raw)
                })
                .collect();
            progress.inc(mapping.rows.len() as u64);
            (
                vec![RawFile {
                    file: relative_display(sources_dir, &path),
                    rows,
                }],
                no_descriptors(),
            )
        }
        Connector::ColumnsCsv {
            file,
            country_column,
            year_column,
            ..
        } => {
            let path = raw_dir.join(file);
            let table = Table::read(&path)?;
            let (country, year) = (table.column(country_column)?, table.column(year_column)?);
            let value_columns: Vec<usize> = mapping
                .rows
                .iter()
                .map(|row| table.column(row.raw_key()))
                .collect::<Result<_, _>>()?;
            let mut rows = Vec::new();
            for (mapping_idx, value) in value_columns.iter().enumerate() {
                for (line, cells) in &table.records {
                    rows.push(RawRow::new(
                        mapping_idx,
                        *line,
                        cells[country].clone(),
                        cells[year].clone(),
                        cells[*value].clone(),
                    ));
                }
            }
            progress.inc(mapping.rows.len() as u64);
            (
                vec![RawFile {
                    file: relative_display(sources_dir, &path),
                    rows,
                }],
                no_descriptors(),
            )
        }
        Connector::YearColumnsCsv {
            file,
            country_column,
            ..
        } => {
            let mut files = Vec::new();
            for (mapping_idx, row) in mapping.rows.iter().enumerate() {
                let path = raw_dir.join(
                    file.replace("{code_lower}", &row.source_code.to_ascii_lowercase())
                        .replace("{raw_key}", row.raw_key()),
                );
                let table = Table::read(&path)?;
                let country = table.column(country_column)?;
                let year_columns: Vec<(usize, &str)> = table
                    .headers
                    .iter()
                    .enumerate()
                    .filter(|(_, header)| {
                        header.len() == 4
                            && header.chars().all(|character| character.is_ascii_digit())
                    })
                    .map(|(column, header)| (column, header.as_str()))
                    .collect();
                let mut rows = Vec::new();
                for (line, cells) in &table.records {
                    for (column, year) in &year_columns {
                        rows.push(RawRow::new(
                            mapping_idx,
                            *line,
                            cells[country].clone(),
                            year.to_string(),
                            cells[*column].clone(),
                        ));
                    }
                }
                files.push(RawFile {
                    file: relative_display(sources_dir, &path),
                    rows,
                });
                progress.inc(1);
            }
            (files, no_descriptors())
        }
        Connector::SumCsv {
            file,
            country_column,
            year_column,
            value_column,
            filter_column,
        } => {
            let path = raw_dir.join(file);
            let table = Table::read(&path)?;
            let (country, year, value, filter) = (
                table.column(country_column)?,
                table.column(year_column)?,
                table.column(value_column)?,
                table.column(filter_column)?,
            );
            let mut rows = Vec::new();
            for (mapping_idx, row) in mapping.rows.iter().enumerate() {
                rows.extend(sum_rows(
                    mapping_idx,
                    row.raw_key(),
                    &table,
                    [country, year, value, filter],
                ));
            }
            progress.inc(mapping.rows.len() as u64);
            (
                vec![RawFile {
                    file: relative_display(sources_dir, &path),
                    rows,
                }],
                no_descriptors(),
            )
        }
        other => unreachable!(
            "tabular::read_source called for connector `{}`",
            other.kind()
        ),
    };
    Ok(files_and_descriptors)
}

/// Sums `value` over the rows whose `filter` column equals `key` (`*`: every row), per (country, year).
/// Each sum becomes one raw row at the line of its first contributing record; a cell that is not a number
/// makes the whole sum that cell, so governance reports it rather than summing around it.
fn sum_rows(
    mapping_idx: usize,
    key: &str,
    table: &Table,
    [country, year, value, filter]: [usize; 4],
) -> Vec<RawRow> {
    let mut sums: BTreeMap<(String, String), (u64, Result<f64, String>)> = BTreeMap::new();
    for (line, cells) in &table.records {
        if key != "*" && cells[filter] != key {
            continue;
        }
        let entry = sums
            .entry((cells[country].clone(), cells[year].clone()))
            .or_insert((*line, Ok(0.0)));
        if let Ok(total) = &mut entry.1 {
            match cells[value].parse::<f64>() {
                Ok(amount) => *total += amount,
                Err(_) => entry.1 = Err(cells[value].clone()),
            }
        }
    }
    sums.into_iter()
        .map(|((country, year), (line, total))| {
            let value = match total {
                // Sums are written with the shortest representation that round-trips.
                Ok(total) => format!("{}", (total * 1e9).round() / 1e9),
                Err(cell) => cell,
            };
            RawRow::new(mapping_idx, line, country, year, value)
        })
        .collect()
}

/// The `estimates_start_after` year per indicator key and upper-case country code. `0`, blank or not a
/// year means the publisher does not say (Haiti's per-capita and population rows in the April 2019 WEO):
/// unknown, so nothing is flagged, never "every year is a projection".
fn read_projection_notes(
    raw_dir: &Path,
    notes: &ProjectionNotes,
) -> Result<HashMap<String, HashMap<String, i32>>, BakeError> {
    let path = raw_dir.join(&notes.file);
    let table = Table::read(&path)?;
    let (country, indicator, after) = (
        table.column(&notes.country_column)?,
        table.column(&notes.indicator_column)?,
        table.column(&notes.after_column)?,
    );
    let mut by_indicator: HashMap<String, HashMap<String, i32>> = HashMap::new();
    for (_, cells) in &table.records {
        if let Some(year) = estimates_start_after(&cells[after]) {
            by_indicator
                .entry(cells[indicator].clone())
                .or_default()
                .insert(cells[country].to_ascii_uppercase(), year);
        }
    }
    Ok(by_indicator)
}

/// Reads a Frictionless `datapackage.json`: `title` and `readme`/`description`.
fn read_descriptor(path: &Path) -> Result<Descriptor, BakeError> {
    let bytes = std::fs::read(path)
        .map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
    let json: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|error| BakeError::raw_file(path, error))?;
    let text = |key: &str| {
        json.get(key)
            .and_then(|value| value.as_str())
            .map(|value| value.trim().to_string())
            .filter(|value| !value.is_empty())
    };
    Ok(Descriptor {
        title: text("title"),
        description: text("readme").or_else(|| text("description")),
        ..Descriptor::default()
    })
}
