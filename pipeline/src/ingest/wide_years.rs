//! The `wide_years_csv` connector: one CSV with a row per country and indicator and a column per year,
//! as the IMF publishes the WEO database by country (`WEOApr2025all`): `ISO`, `WEO Subject Code`, …,
//! `1980` … `2030`, `Estimates Start After`. [`read_table`] is the layout's reader, shared with
//! [`super::imf_weo_text`], which reads the same columns from the IMF's own tab-separated file.
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

/// The columns of a wide-years table, by header name.
pub(crate) struct WideYearsColumns<'a> {
    /// Column naming the indicator; matched against the mapping's `raw_key` ignoring ASCII case
    /// (`NGDP_RPCH` in the IMF's file, `ngdp_rpch` as the DDF extract keys it).
    pub(crate) indicator: &'a str,
    /// Column holding the country code.
    pub(crate) country: &'a str,
    /// Column holding the row's last year of actual data.
    pub(crate) after: Option<&'a str>,
    /// Column holding the publisher's title.
    pub(crate) title: Option<&'a str>,
    /// Column holding the unit.
    pub(crate) units: Option<&'a str>,
    /// Column holding the publisher's definition.
    pub(crate) description: Option<&'a str>,
}

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
    let columns = WideYearsColumns {
        indicator: indicator_column,
        country: country_column,
        after: after_column.as_deref(),
        title: title_column.as_deref(),
        units: units_column.as_deref(),
        description: description_column.as_deref(),
    };
    let (rows, descriptors) = read_table(&table, &path, &columns, mapping)?;
    progress.inc(mapping.rows.len() as u64);
    Ok((
        vec![RawFile {
            file: relative_display(sources_dir, &path),
            rows,
        }],
        descriptors,
    ))
}

/// The raw rows of a wide-years `table` read from `path` (named in errors): one per year cell of each
/// row whose indicator is mapped, flagged `projection` after the row's "Estimates Start After" year; and
/// per mapped indicator its title (`title (units)`) and definition from the first row carrying them.
///
/// # Errors
/// [`BakeError::RawFile`] if a declared column is missing or the header has no year columns.
pub(crate) fn read_table(
    table: &Table,
    path: &Path,
    columns: &WideYearsColumns<'_>,
    mapping: &MetricMapping,
) -> Result<(Vec<RawRow>, Vec<Descriptor>), BakeError> {
    let (indicator, country) = (
        table.column(columns.indicator)?,
        table.column(columns.country)?,
    );
    let optional = |name: Option<&str>| name.map(|name| table.column(name)).transpose();
    let (after, title, units, description) = (
        optional(columns.after)?,
        optional(columns.title)?,
        optional(columns.units)?,
        optional(columns.description)?,
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
            path,
            "no year columns (`1980`, `1981`, …): not a wide-years layout",
        ));
    }
    let by_key: HashMap<String, usize> = mapping
        .rows
        .iter()
        .enumerate()
        .map(|(mapping_idx, row)| (row.raw_key().to_ascii_uppercase(), mapping_idx))
        .collect();
    let mut descriptors = vec![Descriptor::default(); mapping.rows.len()];
    let mut rows = Vec::with_capacity(table.records.len() * year_columns.len());
    for (line, cells) in &table.records {
        let Some(&mapping_idx) = by_key.get(&cells[indicator].to_ascii_uppercase()) else {
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
    Ok((rows, descriptors))
}
