//! `databank_csv`: the World Bank's wide CSV layout, as the World Bank serves it, read into raw rows.
//!
//! One reader for three downloads that share the row layout `"Country Name","Country Code","Indicator
//! Name","Indicator Code","1960",…` (one row per economy × indicator, one column per year):
//!
//! - the DataBank bulk CSV: `WDICSV.csv` (`WDIData.csv` before 2023) of
//!   <https://databank.worldbank.org/data/download/WDI_CSV.zip>, and `WGIData.csv` of the Worldwide
//!   Governance Indicators' bulk download (`../shared/data/publisher-formats/wb_wdi_bulk/`, `wb_wgi/`);
//! - the indicator or topic download `API_<code>_DS2_en_csv_v2_<n>.csv` of
//!   `https://api.worldbank.org/v2/country/all/indicator/<code>?downloadformat=csv` (`wb_wdi_indicator_download/`),
//!   the same layout after a preamble: it fits here naturally, so it has no connector of its own;
//! - a DataBank export whose year headers read `1960 [YR1960]`.
//!
//! Traps handled (each with a unit test on the real samples): a UTF-8 byte-order mark; every cell quoted,
//! numbers included; a trailing comma on every line (one nameless empty last column, ignored); CRLF or LF;
//! the download's 4-line preamble (`"Data Source",…`, blank, `"Last Updated Date","2024-10-24",`, blank),
//! skipped up to the header line, whose `Last Updated Date` becomes each series' vintage
//! ([`Descriptor::vintage`]); numbers in scientific notation (`4.70589620817918E-05`, passed on as written:
//! governance parses them); missing = `""`. Columns are found by name, never by position; a year column is a
//! header of four digits, optionally followed by ` [YR…]`.
//!
//! An empty cell is no observation: the wide layout has a cell for every year of every row, and the
//! publisher's long forms (the API, the staged extracts) have no row there, so no raw row is made for it.
//! A declared missing marker (`..`, DataBank exports) is passed on as a row, for governance to count.
//!
//! Rows are matched by the indicator column against the mapping's `source_code` (`CC.EST`, `SP.DYN.LE00.IN`),
//! case-insensitively. Attributes (WGI's standard error and number of sources) are the cells of other rows
//! of the same economy and year, named by a pattern over the mapped code's stem (`{stem}.STD.ERR`: `CC.EST`
//! → `CC.STD.ERR`).

use std::{collections::HashMap, path::Path};

use super::raw::{Descriptor, RawFile, RawRow, relative_display};
use crate::{
    BakeError,
    sources::{Connector, MetricMapping, SourceEntry, catalog::ATTRIBUTE_COLUMNS},
};

/// A World Bank wide CSV read whole: header cells, data records with their 1-based lines, and the
/// preamble's release date.
#[derive(Debug)]
pub(crate) struct DatabankTable {
    /// Header cells, trimmed (the trailing comma's nameless column included).
    pub(crate) headers: Vec<String>,
    /// Records after the header: 1-based line and trimmed cells (padded to the header's width).
    pub(crate) records: Vec<(u64, Vec<String>)>,
    /// The preamble's `"Last Updated Date"` (`2024-10-24`), when the file has one.
    pub(crate) last_updated: Option<String>,
}

impl DatabankTable {
    /// Parses `bytes` (the file at `path`, for errors): strips a UTF-8 BOM, skips any preamble up to the
    /// first line that holds a cell `header_marker` (the country column's name).
    ///
    /// # Errors
    /// [`BakeError::RawFile`] if the bytes are not CSV or not UTF-8 (with the line), or no line holds
    /// `header_marker`.
    pub(crate) fn parse(
        bytes: &[u8],
        path: &Path,
        header_marker: &str,
    ) -> Result<DatabankTable, BakeError> {
        let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text);
        let mut headers: Option<Vec<String>> = None;
        let mut last_updated = None;
        let mut records = Vec::new();
        // Lines are counted from each record's first byte: the csv reader's own count misses the blank
        // CRLF lines of the download's preamble.
        let (mut counted_to, mut line) = (0usize, 1u64);
        for record in reader.records() {
            let record = record.map_err(|error| BakeError::raw_file(path, error))?;
            // The reader's byte offset of a record can sit on the `\n` of the CRLF before it (and
            // before blank lines): the record starts at the first byte that ends no line.
            let mut start = record
                .position()
                .map_or(counted_to, |position| position.byte() as usize);
            while matches!(text.get(start), Some(b'\r' | b'\n')) {
                start += 1;
            }
            line += text[counted_to..start.max(counted_to)]
                .iter()
                .filter(|&&byte| byte == b'\n')
                .count() as u64;
            counted_to = start.max(counted_to);
            let cells: Vec<String> = record.iter().map(|cell| cell.trim().to_string()).collect();
            match &headers {
                Some(header) => {
                    let mut cells = cells;
                    cells.resize(header.len().max(cells.len()), String::new());
                    records.push((line, cells));
                }
                None if cells.iter().any(|cell| cell == header_marker) => headers = Some(cells),
                None => {
                    if cells.first().map(String::as_str) == Some("Last Updated Date") {
                        last_updated = cells.get(1).filter(|date| !date.is_empty()).cloned();
                    }
                }
            }
        }
        let headers = headers.ok_or_else(|| {
            BakeError::raw_file(
                path,
                format!(
                    "no header line with a column `{header_marker}`: not a World Bank wide CSV (expected `\"Country Name\",\"Country Code\",\"Indicator Name\",\"Indicator Code\",\"1960\",…`)"
                ),
            )
        })?;
        Ok(DatabankTable {
            headers,
            records,
            last_updated,
        })
    }

    /// The index of the column headed `name`.
    ///
    /// # Errors
    /// [`BakeError::RawFile`] naming the missing column and the file's columns.
    fn column(&self, path: &Path, name: &str) -> Result<usize, BakeError> {
        self.headers
            .iter()
            .position(|header| header == name)
            .ok_or_else(|| {
                BakeError::raw_file(
                    path,
                    format!("no column `{name}`; columns: {}", self.headers.join(", ")),
                )
            })
    }

    /// The year columns: index and year, for headers `1960` or `1960 [YR1960]`.
    pub(crate) fn year_columns(&self) -> Vec<(usize, String)> {
        self.headers
            .iter()
            .enumerate()
            .filter_map(|(column, header)| year_of_header(header).map(|year| (column, year)))
            .collect()
    }
}

/// The year a header names: four digits, alone or before ` [YR…]` (DataBank exports).
fn year_of_header(header: &str) -> Option<String> {
    let digits = header.get(..4)?;
    let rest = &header[4..];
    (digits.bytes().all(|byte| byte.is_ascii_digit())
        && (rest.is_empty() || rest.starts_with(" [YR")))
    .then(|| digits.to_string())
}

/// The code an attribute pattern names for the mapped `code`: `{stem}` is the code without its last
/// dot-separated part (`CC.EST` → `CC`).
fn attribute_code(pattern: &str, code: &str) -> String {
    let stem = code.rsplit_once('.').map_or(code, |(stem, _)| stem);
    pattern.replace("{stem}", stem).to_ascii_uppercase()
}

/// Reads a `databank_csv` source: its file (or one file per indicator when the pattern holds `{code}` or
/// `{code_lower}`), and a descriptor per mapped indicator (title from the title column, vintage from the
/// preamble). `progress` advances by one per mapped indicator.
///
/// # Errors
/// [`BakeError::RawFile`] if a file is missing or unreadable, is not the layout, or lacks a declared column.
pub fn read_source(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let Connector::DatabankCsv { file, .. } = &entry.connector else {
        unreachable!(
            "databank::read_source called for connector `{}`",
            entry.connector.kind()
        );
    };
    let raw_dir = entry.raw_dir(sources_dir);
    let mut descriptors = vec![Descriptor::default(); mapping.rows.len()];
    let mut files = Vec::new();
    if file.contains("{code}") || file.contains("{code_lower}") {
        for (mapping_idx, row) in mapping.rows.iter().enumerate() {
            let path = raw_dir.join(expand(file, &row.source_code));
            let codes = [(mapping_idx, row.source_code.clone())];
            let (raw_file, descriptor) = read_file(&entry.connector, &codes, &path, sources_dir)?;
            descriptors[mapping_idx] = descriptor.into_iter().next().unwrap_or_default();
            files.push(raw_file);
            progress.inc(1);
        }
    } else {
        let path = raw_dir.join(file);
        let codes: Vec<(usize, String)> = mapping
            .rows
            .iter()
            .enumerate()
            .map(|(mapping_idx, row)| (mapping_idx, row.source_code.clone()))
            .collect();
        let (raw_file, read) = read_file(&entry.connector, &codes, &path, sources_dir)?;
        descriptors = read;
        files.push(raw_file);
        progress.inc(mapping.rows.len() as u64);
    }
    Ok((files, descriptors))
}

/// `pattern` with `{code}` (upper case) and `{code_lower}` filled from `code`.
pub(crate) fn expand(pattern: &str, code: &str) -> String {
    pattern
        .replace("{code}", &code.to_ascii_uppercase())
        .replace("{code_lower}", &code.to_ascii_lowercase())
}

/// Reads one file: the rows of the indicators `codes` names (mapping index, publisher code) and their
/// descriptors, in `codes` order.
fn read_file(
    connector: &Connector,
    codes: &[(usize, String)],
    path: &Path,
    sources_dir: &Path,
) -> Result<(RawFile, Vec<Descriptor>), BakeError> {
    let Connector::DatabankCsv {
        country_column,
        indicator_column,
        title_column,
        attributes,
        ..
    } = connector
    else {
        unreachable!("checked by the caller");
    };
    let bytes = std::fs::read(path)
        .map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
    let table = DatabankTable::parse(&bytes, path, country_column)?;
    let country = table.column(path, country_column)?;
    let indicator = table.column(path, indicator_column)?;
    let title = title_column
        .as_deref()
        .map(|name| table.column(path, name))
        .transpose()?;
    let years = table.year_columns();
    if years.is_empty() {
        return Err(BakeError::raw_file(
            path,
            format!(
                "no year columns (headers `1960` or `1960 [YR1960]`); columns: {}",
                table.headers.join(", ")
            ),
        ));
    }
    // Each record by (upper-case indicator code, country), for the attribute look-ups.
    let by_code_country: HashMap<(String, &str), usize> = table
        .records
        .iter()
        .enumerate()
        .map(|(idx, (_, cells))| {
            (
                (
                    cells[indicator].to_ascii_uppercase(),
                    cells[country].as_str(),
                ),
                idx,
            )
        })
        .collect();
    let by_code: HashMap<String, usize> = codes
        .iter()
        .map(|(mapping_idx, code)| (code.to_ascii_uppercase(), *mapping_idx))
        .collect();
    let attribute_patterns: Vec<Option<&String>> = ATTRIBUTE_COLUMNS
        .iter()
        .map(|name| attributes.get(*name))
        .collect();
    let mut descriptors: HashMap<usize, Descriptor> = HashMap::new();
    let mut rows = Vec::new();
    for (line, cells) in &table.records {
        let code = cells[indicator].to_ascii_uppercase();
        let Some(&mapping_idx) = by_code.get(&code) else {
            continue;
        };
        descriptors
            .entry(mapping_idx)
            .or_insert_with(|| Descriptor {
                title: title
                    .map(|column| cells[column].clone())
                    .filter(|title| !title.is_empty()),
                vintage: table.last_updated.clone(),
                ..Descriptor::default()
            });
        let attribute_records: Vec<Option<&Vec<String>>> = attribute_patterns
            .iter()
            .map(|pattern| {
                let pattern = (*pattern)?;
                let key = (attribute_code(pattern, &code), cells[country].as_str());
                by_code_country.get(&key).map(|&idx| &table.records[idx].1)
            })
            .collect();
        for (column, year) in &years {
            let value = &cells[*column];
            if value.is_empty() {
                continue;
            }
            let mut raw = RawRow::new(
                mapping_idx,
                *line,
                cells[country].clone(),
                year.clone(),
                value.clone(),
            );
            raw.attributes = [0, 1].map(|slot| {
                attribute_records[slot]
                    .map(|record| record[*column].clone())
                    .filter(|cell| !cell.is_empty())
            });
            rows.push(raw);
        }
    }
    let descriptors = codes
        .iter()
        .map(|(mapping_idx, _)| {
            descriptors.remove(mapping_idx).unwrap_or(Descriptor {
                vintage: table.last_updated.clone(),
                ..Descriptor::default()
            })
        })
        .collect();
    Ok((
        RawFile {
            file: relative_display(sources_dir, path),
            rows,
        },
        descriptors,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(folder: &str, file: &str) -> (std::path::PathBuf, Vec<u8>) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/publisher-formats")
            .join(folder)
            .join(file);
        let bytes = std::fs::read(&path).expect("publisher sample");
        (path, bytes)
    }

    fn wgi_sample() -> (std::path::PathBuf, Vec<u8>) {
        sample("wb_wgi", "WGIData.csv")
    }

    fn download_sample() -> (std::path::PathBuf, Vec<u8>) {
        sample(
            "wb_wdi_indicator_download",
            "API_11_DS2_en_csv_v2_10982.csv",
        )
    }

    fn cell<'a>(table: &'a DatabankTable, country: &str, code: &str, year: &str) -> &'a str {
        let column = |name: &str| table.headers.iter().position(|h| h == name).unwrap();
        let (c, i, y) = (
            column("Country Code"),
            column("Indicator Code"),
            column(year),
        );
        table
            .records
            .iter()
            .find(|(_, cells)| cells[c] == country && cells[i] == code)
            .map(|(_, cells)| cells[y].as_str())
            .unwrap()
    }

    #[test]
    fn bom_is_stripped_so_the_first_column_is_found_by_name() {
        let (path, bytes) = wgi_sample();
        assert!(bytes.starts_with(b"\xEF\xBB\xBF\"Country Name\""));
        let table = DatabankTable::parse(&bytes, &path, "Country Code").unwrap();
        assert_eq!(table.headers[0], "Country Name");
    }

    #[test]
    fn quoted_cells_crlf_and_full_precision_of_wgi_estimates() {
        let (path, bytes) = wgi_sample();
        assert!(bytes.windows(3).any(|window| window == b",\r\n"));
        let table = DatabankTable::parse(&bytes, &path, "Country Code").unwrap();
        // Argentina, control of corruption 2022, as the World Bank's WGIData.csv writes it (the staged
        // re-save rounds it to -0.45).
        assert_eq!(cell(&table, "ARG", "CC.EST", "2022"), "-0.447030484676361");
        assert!(table.records.iter().all(|(_, cells)| {
            cells
                .iter()
                .all(|cell| !cell.ends_with('\r') && !cell.starts_with('"'))
        }));
    }

    #[test]
    fn trailing_comma_column_is_no_year_and_wgi_years_skip_the_biennial_gaps() {
        let (path, bytes) = wgi_sample();
        let table = DatabankTable::parse(&bytes, &path, "Country Code").unwrap();
        assert_eq!(table.headers.len(), 29);
        assert_eq!(table.headers.last().unwrap(), "");
        let years: Vec<String> = table.year_columns().into_iter().map(|(_, y)| y).collect();
        assert_eq!(years.first().unwrap(), "1996");
        assert_eq!(years.last().unwrap(), "2022");
        assert!(!years.contains(&"1997".to_string()));
        assert_eq!(years.len(), 24);
    }

    #[test]
    fn scientific_notation_is_passed_on_as_written() {
        let (path, bytes) = wgi_sample();
        let table = DatabankTable::parse(&bytes, &path, "Country Code").unwrap();
        let value = cell(&table, "ROU", "GE.EST", "2022");
        assert_eq!(value, "4.70589620817918E-05");
        assert_eq!(value.parse::<f64>().unwrap(), 4.70589620817918e-5);
    }

    #[test]
    fn preamble_is_skipped_and_its_release_date_kept() {
        let (path, bytes) = download_sample();
        assert!(bytes.starts_with(b"\xEF\xBB\xBF\"Data Source\""));
        let table = DatabankTable::parse(&bytes, &path, "Country Code").unwrap();
        assert_eq!(table.last_updated.as_deref(), Some("2024-10-24"));
        assert_eq!(
            &table.headers[..4],
            [
                "Country Name",
                "Country Code",
                "Indicator Name",
                "Indicator Code"
            ]
        );
        // Line numbers count the preamble: the header is line 5, Argentina's Gini row line 6.
        assert_eq!(table.records[0].0, 6);
        assert_eq!(cell(&table, "ARG", "SI.POV.GINI", "1980"), "40.8");
    }

    #[test]
    fn empty_quoted_cells_are_missing() {
        let (path, bytes) = download_sample();
        let table = DatabankTable::parse(&bytes, &path, "Country Code").unwrap();
        assert_eq!(cell(&table, "ARG", "SI.POV.GINI", "1960"), "");
    }

    #[test]
    fn lf_endings_read_the_same_as_crlf() {
        let (path, bytes) = download_sample();
        let lf: Vec<u8> = String::from_utf8(bytes.clone())
            .unwrap()
            .replace("\r\n", "\n")
            .into_bytes();
        let crlf = DatabankTable::parse(&bytes, &path, "Country Code").unwrap();
        let lf = DatabankTable::parse(&lf, &path, "Country Code").unwrap();
        assert_eq!(crlf.headers, lf.headers);
        assert_eq!(crlf.records, lf.records);
        assert_eq!(lf.records[0].0, 6);
        assert_eq!(lf.last_updated.as_deref(), Some("2024-10-24"));
    }

    #[test]
    fn databank_export_year_headers_and_attribute_codes() {
        assert_eq!(year_of_header("1960 [YR1960]").as_deref(), Some("1960"));
        assert_eq!(year_of_header("2022").as_deref(), Some("2022"));
        assert_eq!(year_of_header("Country Code"), None);
        assert_eq!(year_of_header(""), None);
        assert_eq!(attribute_code("{stem}.STD.ERR", "CC.EST"), "CC.STD.ERR");
        assert_eq!(attribute_code("{stem}.NO.SRC", "pv.est"), "PV.NO.SRC");
    }

    fn wgi_connector() -> Connector {
        toml::from_str(
            r#"
kind = "databank_csv"
file = "WGIData.csv"
country_column = "Country Code"
indicator_column = "Indicator Code"
title_column = "Indicator Name"
[attributes]
standard_error = "{stem}.STD.ERR"
source_count = "{stem}.NO.SRC"
"#,
        )
        .unwrap()
    }

    #[test]
    fn wgi_estimate_rows_carry_standard_error_and_source_count() {
        let (path, _) = wgi_sample();
        let codes = [(0, "CC.EST".to_string()), (1, "GE.EST".to_string())];
        let (file, descriptors) =
            read_file(&wgi_connector(), &codes, &path, path.parent().unwrap()).unwrap();
        assert_eq!(file.file, "WGIData.csv");
        let row = file
            .rows
            .iter()
            .find(|row| row.mapping_idx == 0 && row.country == "ARG" && row.year == "2022")
            .unwrap();
        assert_eq!(row.value, "-0.447030484676361");
        assert_eq!(
            row.attributes,
            [Some("0.15816031396389".to_string()), Some("11".to_string())]
        );
        // Only the estimate rows are rows: no percentile rank or standard error leaks in as a value.
        assert!(file.rows.iter().all(|row| row.mapping_idx <= 1));
        assert_eq!(
            file.rows
                .iter()
                .filter(|row| row.country == "ARG" && row.mapping_idx == 0)
                .count(),
            24
        );
        assert_eq!(
            descriptors[0].title.as_deref(),
            Some("Control of Corruption: Estimate")
        );
        assert_eq!(descriptors[0].vintage, None);
        assert!(
            file.rows
                .iter()
                .any(|row| row.country == "ROU" && row.value == "4.70589620817918E-05")
        );
    }

    #[test]
    fn download_rows_skip_empty_cells_and_take_the_release_as_vintage() {
        let (path, _) = download_sample();
        let connector: Connector = toml::from_str(
            r#"
kind = "databank_csv"
file = "API_11_DS2_en_csv_v2_10982.csv"
country_column = "Country Code"
indicator_column = "Indicator Code"
title_column = "Indicator Name"
"#,
        )
        .unwrap();
        let codes = [(0, "si.pov.gini".to_string())];
        let (file, descriptors) =
            read_file(&connector, &codes, &path, path.parent().unwrap()).unwrap();
        let argentina: Vec<(&str, &str)> = file
            .rows
            .iter()
            .filter(|row| row.country == "ARG")
            .map(|row| (row.year.as_str(), row.value.as_str()))
            .collect();
        assert_eq!(argentina.first(), Some(&("1980", "40.8")));
        assert!(file.rows.iter().all(|row| !row.value.is_empty()));
        assert_eq!(descriptors[0].vintage.as_deref(), Some("2024-10-24"));
        assert_eq!(descriptors[0].title.as_deref(), Some("Gini index"));
    }

    #[test]
    fn a_file_without_the_header_names_what_was_expected() {
        let error = DatabankTable::parse(b"a,b\n1,2\n", Path::new("x.csv"), "Country Code")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("x.csv") && error.contains("Country Code"),
            "{error}"
        );
    }
}
