//! The tabular connectors: the plain layouts of indicator values in CSV files, declared per source in its
//! catalog entry (`crate::sources::Connector`), read into raw rows with cells as written. One reader
//! among the connectors; [`super::read_source`] picks it.
//!
//! - `long_csv_per_indicator`: one long CSV per indicator (WDI `indicators/<code>/data.csv`, IMF WEO
//!   `datapoints/ddf--datapoints--<key>--by--country--year.csv` with projection notes).
//! - `long_csv`: one long CSV with an indicator column (WGI).
//! - `columns_csv`: one CSV with a value column per indicator (ND-GAIN, WBL, CEPAL, OWID).
//! - `year_columns_csv`: one column per year, one file per indicator (UNDP HDI extract; ND-GAIN's
//!   download, `resources/gain/gain.csv` …: quoted header and keys, unquoted numbers, empty = missing).
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
            files: indicator_files,
            country_column,
            ..
        } => {
            let mut files = Vec::new();
            for (mapping_idx, row) in mapping.rows.iter().enumerate() {
                let pattern = indicator_files
                    .get(row.raw_key())
                    .or(file.as_ref())
                    .ok_or_else(|| {
                        BakeError::raw_file(
                            &raw_dir,
                            format!(
                                "raw_key `{}`: no file; add it to connector.files (declared: {}) or give connector.file",
                                row.raw_key(),
                                indicator_files.keys().cloned().collect::<Vec<_>>().join(", ")
                            ),
                        )
                    })?;
                let path = raw_dir.join(
                    pattern
                        .replace("{code_lower}", &row.source_code.to_ascii_lowercase())
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
                if year_columns.is_empty() {
                    // ND-GAIN's `trends/*.csv` (`"ISO3","Name","Value","sign"`) is such a file.
                    return Err(BakeError::raw_file(
                        &path,
                        format!(
                            "no year columns (`1995`, `1996`, …): not a one-column-per-year layout; columns: {}",
                            table.headers.join(", ")
                        ),
                    ));
                }
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// The ND-GAIN download's `resources/` folder: byte-exact rows (AND ARG BOL BRA CHL COL MEX VEN) of
    /// the real release-2022 files.
    fn formats_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/publisher-formats")
    }

    fn nd_gain_entry(files: &str) -> SourceEntry {
        toml::from_str(&format!(
            r#"
id = "nd_gain"
name = "ND-GAIN"
publisher = "ND-GAIN"
license = "ND-GAIN-terms"
license_url = "https://gain.nd.edu/our-work/country-index/"
homepage = "https://gain.nd.edu/our-work/country-index/"
raw_path = "nd_gain"
vintage = "2022"
retrieved_at = "2022-12-16"
[connector]
kind = "year_columns_csv"
country_column = "ISO3"
files = {{ {files} }}
"#
        ))
        .unwrap()
    }

    fn read(entry: &SourceEntry, keys: &[&str]) -> Result<Vec<RawFile>, BakeError> {
        let mapping = MetricMapping::of_raw_keys(keys);
        read_source(
            entry,
            &mapping,
            &formats_dir(),
            &indicatif::ProgressBar::hidden(),
        )
        .map(|(files, _)| files)
    }

    #[test]
    fn nd_gain_files_by_raw_key_read_quoted_keys_and_unquoted_full_precision_numbers() {
        let entry = nd_gain_entry(
            r#"gain = "resources/gain/gain.csv", vuln_exposure = "resources/vulnerability/exposure.csv", readiness = "resources/readiness/readiness.csv""#,
        );
        let files = read(&entry, &["gain", "vuln_exposure", "readiness"]).unwrap();
        assert_eq!(
            files[1].file,
            "nd_gain/resources/vulnerability/exposure.csv"
        );
        let cell = |file: usize, country: &str, year: &str| {
            files[file]
                .rows
                .iter()
                .find(|row| row.country == country && row.year == year)
                .unwrap()
                .value
                .clone()
        };
        // gain.csv ARG 1995, as the publisher wrote it (the staged extract rounds it to 48.537).
        assert_eq!(cell(0, "ARG", "1995"), "48.5369616203106");
        assert_eq!(cell(1, "ARG", "2020"), "0.470457592651683");
        assert_eq!(cell(2, "ARG", "1995"), "0.382303847012116");
        // Andorra has no index at all: 26 empty cells, passed on for governance to report.
        assert!(
            files[0]
                .rows
                .iter()
                .filter(|row| row.country == "AND")
                .all(|row| row.value.is_empty())
        );
        // 8 rows × 26 years (1995–2020), read from the header.
        assert_eq!(files[0].rows.len(), 8 * 26);
    }

    #[test]
    fn nd_gain_trends_file_is_not_a_year_layout_and_a_missing_file_entry_is_named() {
        let entry = nd_gain_entry(r#"gain = "resources/trends/gain.csv""#);
        let error = read(&entry, &["gain"]).unwrap_err().to_string();
        assert!(
            error.contains("trends/gain.csv") && error.contains("no year columns"),
            "{error}"
        );
        let entry = nd_gain_entry(r#"gain = "resources/gain/gain.csv""#);
        let error = read(&entry, &["gain", "readiness"])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("raw_key `readiness`: no file") && error.contains("declared: gain"),
            "{error}"
        );
    }
}
