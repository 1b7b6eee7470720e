//! The `gcb_flat_csv` connector: the Global Carbon Project's national fossil CO2 emissions as its flat
//! CSV, `GCB<release>_MtCO2_flat.csv` (Andrew & Peters, Zenodo concept record of the GCP fossil CO2
//! dataset; release 2025v15: `https://zenodo.org/records/17417124/files/GCB2025v15_MtCO2_flat.csv`).
//!
//! Layout (`shared/data/publisher-formats/gcb_national/README.txt`): long by country and year, one column
//! per emission type: `"Country","ISO 3166-1 alpha-3",["UN M49",]"Year","Total","Coal","Oil","Gas",
//! "Cement","Flaring","Other","Per Capita"`.
//!
//! Traps handled:
//! - the UNIT: the flat CSV is in million tonnes of CO2 (`MtCO2`, the file name says so), while the
//!   national workbook (`National_Fossil_Carbon_Emissions_<release>.xlsx`, the staged extract's origin) is
//!   in million tonnes of CARBON (× 3.664 = MtCO2). Values are passed on as published, in MtCO2, and a
//!   file whose name does not say `MtCO2` is refused rather than read in an unknown unit;
//! - release 2025v15 inserts `UN M49` after the ISO column: every column is found by name;
//! - CRLF line ends (LF is read too), quoted headers and text cells, names with commas in one cell;
//! - `Global` (ISO `WLD`, which includes international bunkers, so it is not the sum of countries) and
//!   `International Transport` (`XIT`), and entities without an ISO code (`Kuwaiti Oil Fires`, historical
//!   entities) are not countries: their country cell is the GCP name, which governance drops and
//!   reports as an unknown country;
//! - the flat file carries territorial emissions only; consumption-based emissions and transfers are
//!   published in the xlsx (not read: no xlsx reader), so the mapping rows named in `not_in_file` get no
//!   rows from it.

use std::path::Path;

use super::{
    raw::{Descriptor, RawFile, RawRow, relative_display},
    table::Table,
};
use crate::{
    BakeError,
    sources::{Connector, MetricMapping, SourceEntry},
};

/// Header of the country-code column.
const ISO_COLUMN: &str = "ISO 3166-1 alpha-3";
/// Header of the country-name column.
const COUNTRY_COLUMN: &str = "Country";
/// Header of the year column.
const YEAR_COLUMN: &str = "Year";
/// The unit the flat file is in, as its name states it.
pub const FLAT_UNIT: &str = "MtCO2";
/// GCP codes that are not countries: `WLD` (Global, with bunkers) and `XIT` (International Transport).
const NOT_COUNTRIES: [&str; 2] = ["WLD", "XIT"];

/// Reads a `gcb_flat_csv` source: the rows of each mapped emission type, values in MtCO2 as published
/// (no descriptors: the mapping names and defines the indicators). `progress` advances by one per
/// mapped indicator.
///
/// # Errors
/// [`BakeError::RawFile`] if the file is missing or unreadable, its name does not say `MtCO2`, it lacks
/// a named column, or a mapped indicator is neither in `columns` nor in `not_in_file`.
pub fn read_source(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let Connector::GcbFlatCsv {
        file,
        columns,
        not_in_file,
    } = &entry.connector
    else {
        unreachable!(
            "gcb_flat::read_source called for `{}`",
            entry.connector.kind()
        );
    };
    let path = entry.raw_dir(sources_dir).join(file);
    check_unit_in_name(&path)?;
    let table = Table::read(&path)?;
    let rows = read_table(&table, mapping, columns, not_in_file, &path)?;
    progress.inc(mapping.rows.len() as u64);
    Ok((
        vec![RawFile {
            file: relative_display(sources_dir, &path),
            rows,
        }],
        vec![Descriptor::default(); mapping.rows.len()],
    ))
}

/// Refuses a file whose name does not state the flat file's unit (`MtCO2`).
fn check_unit_in_name(path: &Path) -> Result<(), BakeError> {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    if name.contains(FLAT_UNIT) {
        Ok(())
    } else {
        Err(BakeError::raw_file(
            path,
            format!(
                "the file name does not say `{FLAT_UNIT}`: the GCP flat CSV is `GCB<release>_{FLAT_UNIT}_flat.csv` (million tonnes of CO2); the national xlsx is in million tonnes of carbon and is not read"
            ),
        ))
    }
}

/// The raw rows of `table` for every mapped indicator.
fn read_table(
    table: &Table,
    mapping: &MetricMapping,
    columns: &std::collections::BTreeMap<String, String>,
    not_in_file: &[String],
    path: &Path,
) -> Result<Vec<RawRow>, BakeError> {
    let (iso, country, year) = (
        table.column(ISO_COLUMN)?,
        table.column(COUNTRY_COLUMN)?,
        table.column(YEAR_COLUMN)?,
    );
    let mut rows = Vec::new();
    for (mapping_idx, row) in mapping.rows.iter().enumerate() {
        let raw_key = row.raw_key();
        let Some(column_name) = columns.get(raw_key) else {
            if not_in_file.iter().any(|absent| absent == raw_key) {
                continue;
            }
            return Err(BakeError::raw_file(
                path,
                format!(
                    "indicator `{}` (raw_key `{raw_key}`): name its column in the connector's `columns` (e.g. `{raw_key} = \"Total\"`) or list it in `not_in_file`; columns: {}",
                    row.source_code,
                    table.headers.join(", ")
                ),
            ));
        };
        let value = table.column(column_name)?;
        rows.reserve(table.records.len());
        for (line, cells) in &table.records {
            let code = cells[iso].as_str();
            let country_cell = if code.is_empty() || NOT_COUNTRIES.contains(&code) {
                cells[country].clone()
            } else {
                code.to_string()
            };
            rows.push(RawRow::new(
                mapping_idx,
                *line,
                country_cell,
                cells[year].clone(),
                cells[value].clone(),
            ));
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use std::{collections::BTreeMap, path::PathBuf};

    use super::{check_unit_in_name, read_table};
    use crate::{
        ingest::table::Table,
        sources::{MetricMapping, metric_map::MetricMappingRow},
    };

    /// The real flat CSV sample, release 2022v27 (`shared/data/publisher-formats/gcb_national/`).
    fn sample_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/publisher-formats/gcb_national/GCB2022v27_MtCO2_flat.csv")
    }

    fn mapping() -> MetricMapping {
        let text = "source_code,raw_key,pillar,unit,good_direction,license,headline\n\
            CO2_TERRITORIAL,territorial,medio_ambiente,million tonnes of CO2,down,CC-BY-4.0,true\n\
            CO2_CONSUMPTION,consumption,medio_ambiente,million tonnes of CO2,down,CC-BY-4.0,false\n";
        MetricMapping {
            file: PathBuf::from("gcb.csv"),
            rows: csv::Reader::from_reader(text.as_bytes())
                .deserialize::<MetricMappingRow>()
                .collect::<Result<_, _>>()
                .unwrap(),
        }
    }

    fn rows_of(bytes: &[u8]) -> Vec<(String, String, String)> {
        let path = sample_path();
        let table = Table::from_bytes(&path, bytes).unwrap();
        let columns = BTreeMap::from([("territorial".to_string(), "Total".to_string())]);
        read_table(
            &table,
            &mapping(),
            &columns,
            &["consumption".to_string()],
            &path,
        )
        .unwrap()
        .into_iter()
        .map(|row| (row.country, row.year, row.value))
        .collect()
    }

    fn value<'a>(rows: &'a [(String, String, String)], country: &str, year: &str) -> &'a str {
        rows.iter()
            .find(|(c, y, _)| c == country && y == year)
            .map(|(_, _, value)| value.as_str())
            .unwrap_or_else(|| panic!("{country} {year}"))
    }

    #[test]
    fn totals_are_read_by_name_in_mtco2_as_published() {
        let bytes = std::fs::read(sample_path()).unwrap();
        assert!(
            bytes.ends_with(b"\r\n"),
            "the sample is CRLF to the last line"
        );
        let rows = rows_of(&bytes);
        // "Argentina","ARG",2021,186.448284,… (MtCO2: no 3.664 factor on the flat file).
        assert_eq!(value(&rows, "ARG", "2021"), "186.448284");
        // Not countries: Global (WLD, with bunkers), International Transport (XIT), no ISO code.
        assert_eq!(value(&rows, "Global", "2019"), "37082.558969");
        assert_eq!(
            value(&rows, "International Transport", "2019"),
            "1249.558280"
        );
        assert_eq!(value(&rows, "Kuwaiti Oil Fires", "1991"), "477.924832");
        assert!(
            rows.iter()
                .all(|(country, _, _)| country != "WLD" && country != "XIT")
        );
        // Only territorial rows: consumption is not in the flat file.
        assert_eq!(rows.len(), 410);
    }

    #[test]
    fn the_2025_layout_with_un_m49_inserted_reads_the_same_rows() {
        let bytes = std::fs::read(sample_path()).unwrap();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_writer(Vec::new());
        let headers = reader.headers().unwrap().clone();
        let mut header: Vec<&str> = headers.iter().collect();
        header.insert(2, "UN M49");
        writer.write_record(&header).unwrap();
        for record in reader.records() {
            let record = record.unwrap();
            let mut cells: Vec<&str> = record.iter().collect();
            cells.insert(2, "");
            writer.write_record(&cells).unwrap();
        }
        let with_m49 = writer.into_inner().unwrap();
        assert_eq!(rows_of(&with_m49), rows_of(&bytes));
    }

    #[test]
    fn a_file_not_named_in_mtco2_and_an_unnamed_indicator_are_refused() {
        let error = check_unit_in_name(&PathBuf::from(
            "National_Fossil_Carbon_Emissions_2025v1.0_MtC.csv",
        ))
        .unwrap_err()
        .to_string();
        assert!(error.contains("does not say `MtCO2`"), "{error}");
        assert!(check_unit_in_name(&sample_path()).is_ok());
        let path = sample_path();
        let table = Table::read(&path).unwrap();
        let columns = BTreeMap::from([("territorial".to_string(), "Total".to_string())]);
        let error = read_table(&table, &mapping(), &columns, &[], &path)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("indicator `CO2_CONSUMPTION`") && error.contains("not_in_file"),
            "{error}"
        );
    }
}
