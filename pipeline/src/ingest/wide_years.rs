//! The `wide_years_csv` connector: one CSV with a row per country and indicator and a column per year,
//! as the IMF publishes the WEO database by country (`WEOApr2025all`): `ISO`, `WEO Subject Code`, …,
//! `1980` … `2030`, `Estimates Start After`.
//!
//! Every year cell of a mapped indicator's row becomes one raw row (blank and `n/a` cells included, so
//! governance reports them). With `after_column`, the row's own "Estimates Start After" year flags the
//! later years `projection`. `0`, a blank or anything that is not a year means the publisher does not say
//! where estimates start: that is unknown, and nothing is flagged (never "every year is a projection").

use std::{collections::HashMap, path::Path};

use super::{
    projection::{PROJECTION_FLAG, estimates_start_after},
    raw::{Descriptor, RawFile, RawRow, relative_display},
    table::Table,
};
use crate::{
    BakeError,
    sources::{Connector, MetricMapping, SourceEntry},
};

/// Reads a `wide_years_csv` source: its raw rows, and per mapped indicator the publisher's title and
/// definition from the first row that carries them.
///
/// # Errors
/// [`BakeError::RawFile`] if the file is missing or unreadable, lacks a declared column or has no year
/// columns.
pub fn read_source(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let Connector::WideYearsCsv {
        file,
        indicator_column,
        country_column,
        after_column,
        title_column,
        units_column,
        description_column,
        ..
    } = &entry.connector
    else {
        unreachable!(
            "wide_years::read_source called for `{}`",
            entry.connector.kind()
        );
    };
    let path = entry.raw_dir(sources_dir).join(file);
    let table = Table::read(&path)?;
    let (indicator, country) = (
        table.column(indicator_column)?,
        table.column(country_column)?,
    );
    let optional =
        |name: &Option<String>| name.as_deref().map(|name| table.column(name)).transpose();
    let (after, title, units, description) = (
        optional(after_column)?,
        optional(title_column)?,
        optional(units_column)?,
        optional(description_column)?,
    );
    let year_columns: Vec<(usize, i32)> = table
        .headers
        .iter()
        .enumerate()
        .filter(|(_, header)| header.len() == 4)
        .filter_map(|(column, header)| Some((column, header.parse::<i32>().ok()?)))
        .collect();
    if year_columns.is_empty() {
        return Err(BakeError::raw_file(
            &path,
            "no year columns (`1980`, `1981`, …): not a wide-years layout",
        ));
    }
    let by_key: HashMap<&str, usize> = mapping
        .rows
        .iter()
        .enumerate()
        .map(|(mapping_idx, row)| (row.raw_key(), mapping_idx))
        .collect();
    let mut descriptors = vec![Descriptor::default(); mapping.rows.len()];
    let mut rows = Vec::with_capacity(table.records.len() * year_columns.len());
    for (line, cells) in &table.records {
        let Some(&mapping_idx) = by_key.get(cells[indicator].as_str()) else {
            continue;
        };
        let cell = |column: Option<usize>| {
            column
                .map(|column| cells[column].as_str())
                .filter(|text| !text.is_empty())
        };
        let descriptor = &mut descriptors[mapping_idx];
        if descriptor.title.is_none()
            && let Some(title) = cell(title)
        {
            descriptor.title = Some(match cell(units) {
                Some(units) => format!("{title} ({units})"),
                None => title.to_string(),
            });
        }
        if descriptor.description.is_none() {
            descriptor.description = cell(description).map(str::to_string);
        }
        let after_year = after.and_then(|column| estimates_start_after(&cells[column]));
        for &(column, year) in &year_columns {
            let mut raw = RawRow::new(
                mapping_idx,
                *line,
                cells[country].clone(),
                year.to_string(),
                cells[column].clone(),
            );
            if after_year.is_some_and(|after| year > after) {
                raw.flags = PROJECTION_FLAG.to_string();
            }
            rows.push(raw);
        }
    }
    progress.inc(mapping.rows.len() as u64);
    Ok((
        vec![RawFile {
            file: relative_display(sources_dir, &path),
            rows,
        }],
        descriptors,
    ))
}
