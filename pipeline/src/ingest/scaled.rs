//! The `scaled_csv` connector: one CSV whose values are in another unit than the mapping's, with the
//! factor declared in the catalog (`scale`): the Global Carbon Budget publishes million tonnes of carbon
//! (× 3.664 gives million tonnes of CO2), OWID's greenhouse-gas files tonnes (× 1e-6 gives million tonnes).
//!
//! Long layout (`indicator_column` and `value_column`: one row per indicator, country and year) or one
//! value column per indicator named by its `raw_key`. A numeric cell is multiplied by `scale` and written
//! back with 15 significant digits (so `0.0256893 × 3.664` is `0.0941255952`, not float noise); a missing
//! marker, a blank or any other cell is passed on as written, for governance to report.

use std::{collections::HashMap, path::Path};

use super::{
    raw::{Descriptor, RawFile, RawRow, relative_display},
    table::Table,
};
use crate::{
    BakeError,
    sources::{Connector, MetricMapping, SourceEntry},
};

/// `cell` multiplied by `scale` when it is a finite number (and not a declared missing marker), else
/// `cell` as written.
pub fn scaled_cell(cell: &str, scale: f64, missing_markers: &[String]) -> String {
    if missing_markers.iter().any(|marker| marker == cell) {
        return cell.to_string();
    }
    match cell.parse::<f64>() {
        Ok(value) if value.is_finite() => {
            let product = value * scale;
            let rounded: f64 = format!("{product:.14e}").parse().unwrap_or(product);
            if rounded == 0.0 {
                "0".to_string()
            } else {
                rounded.to_string()
            }
        }
        _ => cell.to_string(),
    }
}

/// Reads a `scaled_csv` source into raw rows with scaled values (no descriptors: the mapping names and
/// defines the indicators).
///
/// # Errors
/// [`BakeError::RawFile`] if the file is missing or unreadable or lacks a declared column.
pub fn read_source(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let Connector::ScaledCsv {
        file,
        country_column,
        year_column,
        indicator_column,
        value_column,
        scale,
        missing_markers,
    } = &entry.connector
    else {
        unreachable!(
            "scaled::read_source called for `{}`",
            entry.connector.kind()
        );
    };
    let path = entry.raw_dir(sources_dir).join(file);
    let table = Table::read(&path)?;
    let (country, year) = (table.column(country_column)?, table.column(year_column)?);
    let row = |mapping_idx: usize, line: u64, cells: &[String], value: usize| {
        RawRow::new(
            mapping_idx,
            line,
            cells[country].clone(),
            cells[year].clone(),
            scaled_cell(&cells[value], *scale, missing_markers),
        )
    };
    let mut rows = Vec::new();
    match (indicator_column, value_column) {
        (Some(indicator_column), Some(value_column)) => {
            let (indicator, value) = (table.column(indicator_column)?, table.column(value_column)?);
            let by_key: HashMap<&str, usize> = mapping
                .rows
                .iter()
                .enumerate()
                .map(|(mapping_idx, row)| (row.raw_key(), mapping_idx))
                .collect();
            for (line, cells) in &table.records {
                if let Some(&mapping_idx) = by_key.get(cells[indicator].as_str()) {
                    rows.push(row(mapping_idx, *line, cells, value));
                }
            }
        }
        _ => {
            let value_columns: Vec<usize> = mapping
                .rows
                .iter()
                .map(|mapping_row| table.column(mapping_row.raw_key()))
                .collect::<Result<_, _>>()?;
            rows.reserve(value_columns.len() * table.records.len());
            for (mapping_idx, &value) in value_columns.iter().enumerate() {
                for (line, cells) in &table.records {
                    rows.push(row(mapping_idx, *line, cells, value));
                }
            }
        }
    }
    progress.inc(mapping.rows.len() as u64);
    Ok((
        vec![RawFile {
            file: relative_display(sources_dir, &path),
            rows,
        }],
        vec![Descriptor::default(); mapping.rows.len()],
    ))
}

#[cfg(test)]
mod tests {
    use super::scaled_cell;

    #[test]
    fn numbers_are_scaled_without_float_noise_and_other_cells_pass_as_written() {
        assert_eq!(scaled_cell("0.0256893", 3.664, &[]), "0.0941255952");
        assert_eq!(
            scaled_cell("131.826299595679", 3.664, &[]),
            "483.011561718568"
        );
        assert_eq!(scaled_cell("0", 3.664, &[]), "0");
        assert_eq!(scaled_cell("-12769424.0", 1e-6, &[]), "-12.769424");
        assert_eq!(scaled_cell("", 3.664, &[]), "");
        assert_eq!(scaled_cell("n/a", 3.664, &["n/a".into()]), "n/a");
        assert_eq!(scaled_cell("abc", 3.664, &[]), "abc");
    }
}
