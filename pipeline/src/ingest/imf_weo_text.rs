//! The `imf_weo_text` connector: the IMF World Economic Outlook database as the IMF serves it.
//!
//! Reads `WEO<Mon><YYYY>all.xls`, the "By Countries" file of the WEO database
//! (<https://www.imf.org/en/Publications/WEO/weo-database/2025/April>, e.g.
//! `https://www.imf.org/-/media/files/publications/weo/weo-database/2025/april/weoapr2025all.xls`), and the
//! query tool's `WEO_Data.xls`. Despite the name neither is a spreadsheet: both are tab-separated text.
//! Columns are read by name, as [`super::wide_years`] reads them (`WEO Subject Code`, `ISO`, `1980` …
//! `2030`, `Estimates Start After`), and projections are flagged by its code.
//!
//! Traps handled:
//! - encoding: UTF-16LE without a BOM from October 2020 on (the file starts `43 00` = `C`), a BOM
//!   accepted; ISO-8859-1 before (`WEOApr2019all.xls`); told apart by [`super::text::decode_detected`];
//! - CRLF line ends (LF accepted), no terminator after the last line, a trailing tab on every line (an
//!   empty last column);
//! - the footer: the data end at the first blank line, after which the IMF writes
//!   `International Monetary Fund, World Economic Outlook Database, April 2025`; a line without a tab
//!   (the footer without its blank line) also ends the data;
//! - quotes are plain characters (the notes hold unpaired `"`), so cells are never unquoted;
//! - `n/a` and `--` mark missing values (the connector's default markers);
//! - thousands separators in numbers (`1,234.567`, as public readers of the file strip them): removed
//!   from year cells that are numbers grouped by threes, so governance reads `1234.567`; any other cell
//!   is passed on as written;
//! - indicator codes matched ignoring ASCII case (`NGDP_RPCH` here, `ngdp_rpch` in the DDF extract's
//!   mapping, which the April 2019 source shares).
//!
//! Not read: the IMF Data Portal's "Entire Dataset in Excel" (`WEOOct2025all.xlsx`, October 2025 on), a
//! real xlsx with other columns (`COUNTRY.ID`, `INDICATOR.ID`, `LATEST_ACTUAL_ANNUAL_DATA`): the corpus
//! has no xlsx reader.

use std::path::Path;

use super::{
    raw::{Descriptor, RawFile, relative_display},
    table::{Delimited, Table},
    text::decode_detected,
    wide_years::{WideYearsColumns, read_table},
};
use crate::{
    BakeError,
    sources::{Connector, MetricMapping, SourceEntry},
};

/// Reads an `imf_weo_text` source: its raw rows (one per year cell of each mapped indicator's row,
/// flagged `projection` after the row's "Estimates Start After"), and per mapped indicator the IMF's
/// title (`Subject Descriptor (Units)`) and definition (`Subject Notes`) from the first row carrying them.
///
/// # Errors
/// [`BakeError::RawFile`] naming the file if it is missing or unreadable, does not decode, lacks a
/// declared column or has no year columns.
pub fn read_source(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let Connector::ImfWeoText {
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
            "imf_weo_text::read_source called for `{}`",
            entry.connector.kind()
        );
    };
    let path = entry.raw_dir(sources_dir).join(file);
    let table = read_weo_table(&path)?;
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

/// The WEO text file at `path` as a table: decoded, cut at the footer, tab-separated, year cells without
/// thousands separators.
///
/// # Errors
/// [`BakeError::RawFile`] if the file is unreadable or does not decode.
pub(crate) fn read_weo_table(path: &Path) -> Result<Table, BakeError> {
    let bytes = std::fs::read(path)
        .map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
    let (text, _) = decode_detected(&bytes).map_err(|error| BakeError::raw_file(path, error))?;
    let mut table = Table::parse(path, data_lines(&text), Delimited::TabUnquoted)?;
    let year_columns: Vec<usize> = table
        .headers
        .iter()
        .enumerate()
        .filter(|(_, header)| header.len() == 4 && header.bytes().all(|byte| byte.is_ascii_digit()))
        .map(|(column, _)| column)
        .collect();
    for (_, cells) in &mut table.records {
        for &column in &year_columns {
            if let Some(plain) = without_thousands_separators(&cells[column]) {
                cells[column] = plain;
            }
        }
    }
    Ok(table)
}

/// The header and data lines of a WEO text file: everything before the first blank line, or before the
/// first line after the header without a tab (the footer `International Monetary Fund, World Economic
/// Outlook Database, …`).
fn data_lines(text: &str) -> &str {
    let mut end = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let content = line.trim_end_matches(['\r', '\n']);
        if content.trim().is_empty() || (index > 0 && !content.contains('\t')) {
            break;
        }
        end += line.len();
    }
    &text[..end]
}

/// `cell` without its thousands separators when it is a number grouped by threes (`-1,234.5` →
/// `-1234.5`); `None` for any other cell (plain numbers, `n/a`, text), which stays as written.
fn without_thousands_separators(cell: &str) -> Option<String> {
    if !cell.contains(',') {
        return None;
    }
    let unsigned = cell.strip_prefix('-').unwrap_or(cell);
    let (integer, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let mut groups = integer.split(',');
    let first = groups.next()?;
    let grouped = (1..=3).contains(&first.len())
        && first.bytes().all(|byte| byte.is_ascii_digit())
        && groups.all(|group| group.len() == 3 && group.bytes().all(|byte| byte.is_ascii_digit()))
        && fraction.bytes().all(|byte| byte.is_ascii_digit());
    grouped.then(|| cell.replace(',', ""))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::ingest::{missing_markers, projection::PROJECTION_FLAG};

    /// The real query-tool export (`WEO_Data.xls`, April 2025, 11,022 bytes, unmodified).
    fn sample() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/publisher-formats/imf_weo/WEO_Data.xls")
    }

    #[test]
    fn the_real_export_decodes_from_utf16le_without_bom_and_drops_its_footer() {
        let bytes = std::fs::read(sample()).unwrap();
        assert_eq!(
            &bytes[..4],
            &[0x43, 0x00, 0x6F, 0x00],
            "no BOM: starts with `Co`"
        );
        let table = read_weo_table(&sample()).unwrap();
        assert_eq!(table.headers[0], "Country");
        assert_eq!(table.headers[13], "Estimates Start After");
        // The trailing tab of every line: an empty 15th column.
        assert_eq!(table.headers.len(), 15);
        assert_eq!(table.headers[14], "");
        // 7 G7 economies; the blank line and the footer are not records.
        let countries: Vec<&str> = table
            .records
            .iter()
            .map(|(_, cells)| cells[0].as_str())
            .collect();
        assert_eq!(
            countries,
            [
                "Canada",
                "France",
                "Germany",
                "Italy",
                "Japan",
                "United Kingdom",
                "United States"
            ]
        );
        assert!(table.records.iter().all(|(_, cells)| {
            !cells
                .iter()
                .any(|cell| cell.contains("International Monetary Fund"))
        }));
        // CRLF: no cell keeps a carriage return.
        assert!(
            table
                .records
                .iter()
                .all(|(_, cells)| cells.iter().all(|cell| !cell.contains('\r')))
        );
    }

    #[test]
    fn the_real_export_reads_by_name_with_projections_after_estimates_start_after() {
        let dir = sample().parent().unwrap().parent().unwrap().to_path_buf();
        let entry: SourceEntry = toml::from_str(
            r#"
id = "weo_query"
name = "WEO query export"
publisher = "International Monetary Fund"
license = "IMF-terms"
license_url = "https://www.imf.org/en/About/copyright-and-terms"
homepage = "https://www.imf.org/en/Publications/WEO/weo-database/2025/April"
raw_path = "imf_weo"
vintage = "2025-04"
retrieved_at = "2025-06-14"
[connector]
kind = "imf_weo_text"
file = "WEO_Data.xls"
indicator_column = "Subject Descriptor"
country_column = "Country"
after_column = "Estimates Start After"
units_column = "Units"
title_column = "Subject Descriptor"
"#,
        )
        .unwrap();
        assert_eq!(missing_markers(&entry.connector), ["n/a", "--"]);
        // The query export has no subject code column: its descriptor names the series.
        let mapping = MetricMapping::of_raw_keys(&["volume of imports of goods and services"]);
        let (files, descriptors) =
            read_source(&entry, &mapping, &dir, &indicatif::ProgressBar::hidden()).unwrap();
        assert_eq!(files[0].file, "imf_weo/WEO_Data.xls");
        assert_eq!(
            descriptors[0].title.as_deref(),
            Some("Volume of imports of goods and services (Percent change)")
        );
        let rows = &files[0].rows;
        assert_eq!(rows.len(), 7 * 8, "7 economies × 2023–2030");
        let canada = |year: &str| {
            rows.iter()
                .find(|row| row.country == "Canada" && row.year == year)
                .unwrap()
        };
        // Line 2 of the file, Estimates Start After 2024.
        assert_eq!(canada("2024").line, 2);
        assert_eq!(canada("2024").flags, "");
        assert_eq!(canada("2025").flags, PROJECTION_FLAG);
        assert_eq!(canada("2023").value, "0.361");
    }

    #[test]
    fn thousands_separators_are_removed_from_grouped_numbers_only() {
        assert_eq!(
            without_thousands_separators("1,234.567").as_deref(),
            Some("1234.567")
        );
        assert_eq!(
            without_thousands_separators("-12,345,678").as_deref(),
            Some("-12345678")
        );
        for cell in [
            "1234.5", "n/a", "--", "", "1,23", "12,3456", "a,bcd", ",123",
        ] {
            assert_eq!(without_thousands_separators(cell), None, "{cell:?}");
        }
    }

    #[test]
    fn data_end_at_the_blank_line_or_at_a_footer_without_one() {
        let with_blank = "ISO\t2024\t\r\nARG\t1\t\r\n\r\nInternational Monetary Fund, World Economic Outlook Database, April 2025";
        assert_eq!(data_lines(with_blank), "ISO\t2024\t\r\nARG\t1\t\r\n");
        let without_blank = "ISO\t2024\nARG\t1\nInternational Monetary Fund, World Economic Outlook Database, April 2019\n";
        assert_eq!(data_lines(without_blank), "ISO\t2024\nARG\t1\n");
    }

    #[test]
    fn a_latin1_file_with_a_bom_less_header_reads_too() {
        // The April 2019 file is ISO-8859-1: `Côte d'Ivoire` is the byte 0xF4.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("WEOApr2019all.xls");
        std::fs::write(
            &path,
            b"ISO\tCountry\t2017\t\r\nCIV\tC\xF4te d'Ivoire\t\"1,234.5\t\r\n\r\nInternational Monetary Fund, World Economic Outlook Database, April 2019\r\n",
        )
        .unwrap();
        let table = read_weo_table(&path).unwrap();
        assert_eq!(table.records.len(), 1);
        assert_eq!(table.records[0].1[1], "Côte d'Ivoire");
        // A quote is a plain character: this cell is not a number and stays as written.
        assert_eq!(table.records[0].1[2], "\"1,234.5");
    }
}
