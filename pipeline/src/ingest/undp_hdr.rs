//! The `undp_hdr_csv` connector: UNDP's "Composite indices complete time series" CSV, exactly as the
//! Human Development Report Office serves it on <https://hdr.undp.org/data-center/documentation-and-downloads>
//! (`https://hdr.undp.org/sites/default/files/2025_HDR/HDR25_Composite_indices_complete_time_series.csv`,
//! and the HDR23-24 and HDR21-22 editions under `2023-24_HDR/`, `2021-22_HDR/`).
//!
//! Layout: one row per country or UNDP aggregate, columns `iso3, country, hdicode, region,
//! hdi_rank_<YYYY>`, then one column per indicator and year named `<indicator>_<YYYY>` (`hdi_1990`,
//! `gni_pc_f_2023`, `diff_hdi_phdi_1994`). The mapping's `raw_key` is the indicator prefix; each of its
//! year columns becomes one raw row per country (empty cells included, so governance reports them).
//!
//! Traps handled:
//! - Latin-1 / Windows-1252, no BOM (`Côte d'Ivoire` is the byte `0xF4`, `Türkiye` `0xFC`): decoded by
//!   hand ([`super::text::decode_latin1`]); a UTF-8 BOM (spreadsheet re-saves) is dropped;
//! - CRLF on every line, the last included (LF accepted);
//! - minimal quoting (`"Hong Kong, China (SAR)"`);
//! - headers split on the LAST underscore (prefixes hold underscores: `gni_pc_f`, `diff_hdi_phdi`), and the
//!   year range and rank year taken from the header (1990–2022 in HDR23-24, 1990–2023 in HDR25), never
//!   assumed;
//! - the single-year rank and group columns (`hdi_rank_2023`, `gii_rank_2023`, `gdi_group_2023`,
//!   `rankdiff_hdi_phdi_2023`) are attributes, not series: a mapping naming one fails with the valid
//!   prefixes;
//! - aggregates (`ZZH.LAC` Latin America and the Caribbean, `ZZK.WORLD`, the HDI groups `ZZA.VHHD` …) are
//!   passed on as written: governance reports them as entities that are not countries of the corpus
//!   (UNDP's LAC region is not the World Bank's `LCN`);
//! - missing values: empty cells, and one literal `NaN` (the connector's default marker).

use std::path::Path;

use super::{
    raw::{Descriptor, RawFile, RawRow, relative_display},
    table::{Delimited, Table},
    text::decode_latin1,
};
use crate::{
    BakeError,
    sources::{Connector, MetricMapping, SourceEntry},
};

/// The single-year attribute columns of the HDR file by prefix (each holds a rank or group for the
/// edition's last year), never series.
pub const ATTRIBUTE_PREFIXES: [&str; 4] =
    ["hdi_rank", "gdi_group", "gii_rank", "rankdiff_hdi_phdi"];

/// Reads an `undp_hdr_csv` source: per mapped indicator prefix, one raw row per country row and year
/// column. The file carries no titles or definitions (the mapping's names and descriptions stand), so the
/// descriptors are empty.
///
/// # Errors
/// [`BakeError::RawFile`] naming the file if it is missing or unreadable, is not CSV, lacks the country
/// column, or has no `<prefix>_<year>` column for a mapped prefix (or the prefix is a rank or group
/// attribute); the message lists the prefixes the file has.
pub fn read_source(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let Connector::UndpHdrCsv {
        file,
        country_column,
        ..
    } = &entry.connector
    else {
        unreachable!(
            "undp_hdr::read_source called for `{}`",
            entry.connector.kind()
        );
    };
    let path = entry.raw_dir(sources_dir).join(file);
    let bytes = std::fs::read(&path)
        .map_err(|error| BakeError::raw_file(&path, format!("cannot read: {error}")))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let table = Table::parse(&path, &decode_latin1(bytes), Delimited::Csv)?;
    let country = table.column(country_column)?;
    let series = series_columns(&table.headers);
    let mut rows = Vec::new();
    for (mapping_idx, row) in mapping.rows.iter().enumerate() {
        let prefix = row.raw_key();
        let columns: Vec<&(usize, &str, i32)> = series
            .iter()
            .filter(|(_, series_prefix, _)| *series_prefix == prefix)
            .collect();
        if columns.is_empty() || ATTRIBUTE_PREFIXES.contains(&prefix) {
            return Err(BakeError::raw_file(
                &path,
                format!(
                    "raw_key `{prefix}`: no `{prefix}_<year>` series columns; the file's indicator prefixes: {}",
                    series_prefixes(&series).join(", ")
                ),
            ));
        }
        for (line, cells) in &table.records {
            for &&(column, _, year) in &columns {
                rows.push(RawRow::new(
                    mapping_idx,
                    *line,
                    cells[country].clone(),
                    year.to_string(),
                    cells[column].clone(),
                ));
            }
        }
        progress.inc(1);
    }
    Ok((
        vec![RawFile {
            file: relative_display(sources_dir, &path),
            rows,
        }],
        vec![Descriptor::default(); mapping.rows.len()],
    ))
}

/// Every `<prefix>_<YYYY>` header as (column, prefix, year), split on the last underscore; the rank and
/// group attributes excluded.
fn series_columns(headers: &[String]) -> Vec<(usize, &str, i32)> {
    headers
        .iter()
        .enumerate()
        .filter_map(|(column, header)| {
            let (prefix, year) = header.rsplit_once('_')?;
            let year = (year.len() == 4 && year.bytes().all(|byte| byte.is_ascii_digit()))
                .then(|| year.parse::<i32>().ok())
                .flatten()?;
            (!ATTRIBUTE_PREFIXES.contains(&prefix)).then_some((column, prefix, year))
        })
        .collect()
}

/// The distinct series prefixes, in file order.
fn series_prefixes<'a>(series: &[(usize, &'a str, i32)]) -> Vec<&'a str> {
    let mut prefixes: Vec<&str> = Vec::new();
    for &(_, prefix, _) in series {
        if !prefixes.contains(&prefix) {
            prefixes.push(prefix);
        }
    }
    prefixes
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::ingest::missing_markers;

    /// The publisher-formats folder: `undp_hdr/HDR23-24_…csv`, 8 byte-exact rows of the real file.
    fn formats_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/publisher-formats")
    }

    /// The staged HDR 2025 file (the publisher's bytes, rows filtered to LAC).
    fn sources_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/sources")
    }

    fn entry(raw_path: &str, file: &str) -> SourceEntry {
        toml::from_str(&format!(
            r#"
id = "hdr"
name = "HDR composite indices"
publisher = "UNDP"
license = "CC-BY-3.0-IGO"
license_url = "https://creativecommons.org/licenses/by/3.0/igo/"
homepage = "https://hdr.undp.org/data-center/documentation-and-downloads"
raw_path = "{raw_path}"
vintage = "HDR 2023/2024"
retrieved_at = "2025-02-02"
[connector]
kind = "undp_hdr_csv"
file = "{file}"
country_column = "iso3"
"#
        ))
        .unwrap()
    }

    fn read(entry: &SourceEntry, dir: &Path, keys: &[&str]) -> Result<Vec<RawRow>, BakeError> {
        let mapping = MetricMapping::of_raw_keys(keys);
        read_source(entry, &mapping, dir, &indicatif::ProgressBar::hidden())
            .map(|(mut files, _)| files.remove(0).rows)
    }

    fn value<'a>(rows: &'a [RawRow], country: &str, year: &str) -> &'a RawRow {
        rows.iter()
            .find(|row| row.country == country && row.year == year)
            .unwrap_or_else(|| panic!("{country} {year}"))
    }

    fn hdr23_24() -> SourceEntry {
        entry(
            "undp_hdr",
            "HDR23-24_Composite_indices_complete_time_series.csv",
        )
    }

    #[test]
    fn the_real_latin1_crlf_file_reads_with_its_accented_row() {
        let path =
            formats_dir().join("undp_hdr/HDR23-24_Composite_indices_complete_time_series.csv");
        let bytes = std::fs::read(&path).unwrap();
        assert!(std::str::from_utf8(&bytes).is_err(), "Latin-1, not UTF-8");
        assert!(bytes.ends_with(b"\r\n"));
        let rows = read(&hdr23_24(), &formats_dir(), &["hdi"]).unwrap();
        // ARG hdi_2022 = 0.849 (README: ARG row of the HDR23-24 file); no cell keeps the CR of CRLF.
        assert_eq!(value(&rows, "ARG", "2022").value, "0.849");
        assert_eq!(value(&rows, "CIV", "2022").value, "0.534");
        // CRLF lines counted as the file has them: ARG is line 2, CIV (after COL) line 6.
        assert_eq!(value(&rows, "ARG", "2022").line, 2);
        assert_eq!(value(&rows, "CIV", "2022").line, 6);
        assert!(rows.iter().all(|row| !row.value.contains('\r')));
        // 33 years (1990–2022) × 8 rows.
        assert_eq!(rows.len(), 33 * 8);
        let table = Table::parse(&path, &decode_latin1(&bytes), Delimited::Csv).unwrap();
        let civ = table
            .records
            .iter()
            .find(|(_, cells)| cells[0] == "CIV")
            .unwrap();
        assert_eq!(civ.1[1], "Côte d'Ivoire");
    }

    #[test]
    fn prefixes_split_on_the_last_underscore_and_aggregates_pass_through() {
        let rows = read(
            &hdr23_24(),
            &formats_dir(),
            &["gni_pc_f", "diff_hdi_phdi", "pop_total"],
        )
        .unwrap();
        let by_key = |idx: usize| rows.iter().filter(move |row| row.mapping_idx == idx);
        assert_eq!(by_key(0).count(), 33 * 8);
        assert_eq!(by_key(1).count(), 33 * 8);
        let population = by_key(2)
            .find(|row| row.country == "ARG" && row.year == "2022")
            .unwrap();
        assert_eq!(population.value, "45.510318");
        // The UNDP aggregates are rows like the others; governance decides what they are.
        assert_eq!(value(&rows, "ZZH.LAC", "2022").country, "ZZH.LAC");
        assert!(rows.iter().any(|row| row.country == "ZZK.WORLD"));
    }

    #[test]
    fn a_rank_column_is_not_a_series_and_an_unknown_prefix_names_the_valid_ones() {
        for key in [
            "hdi_rank",
            "gii_rank",
            "gdi_group",
            "rankdiff_hdi_phdi",
            "hdi_index",
        ] {
            let error = read(&hdr23_24(), &formats_dir(), &[key])
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(&format!("raw_key `{key}`"))
                    && error.contains("hdi, le, eys, mys, gnipc"),
                "{error}"
            );
            assert!(!error.contains("prefixes: hdi_rank"), "{error}");
        }
    }

    #[test]
    fn the_literal_nan_is_a_missing_marker_by_default() {
        assert_eq!(missing_markers(&hdr23_24().connector), ["NaN"]);
    }

    #[test]
    fn hdr_2025_takes_its_years_from_the_header_and_gives_brazil_2023() {
        let entry = entry(
            "undp_hdr2025",
            "HDR25_Composite_indices_complete_time_series.latam.csv",
        );
        let rows = read(&entry, &sources_dir(), &["hdi", "ihdi"]).unwrap();
        // HDR25 row BRA, column hdi_2023 = 0.786 (MEX 0.789); series 1990–2023, IHDI 2010–2023.
        assert_eq!(value(&rows, "BRA", "2023").value, "0.786");
        assert_eq!(value(&rows, "MEX", "2023").value, "0.789");
        let hdi_years = rows
            .iter()
            .filter(|row| row.mapping_idx == 0 && row.country == "BRA")
            .count();
        let ihdi_years = rows
            .iter()
            .filter(|row| row.mapping_idx == 1 && row.country == "BRA")
            .count();
        assert_eq!((hdi_years, ihdi_years), (34, 14));
    }

    #[test]
    fn a_utf8_bom_and_lf_line_ends_are_accepted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("hdr")).unwrap();
        std::fs::write(
            dir.path().join("hdr/hdr.csv"),
            b"\xEF\xBB\xBFiso3,country,hdi_rank_2022,hdi_2021,hdi_2022\nCIV,C\xF4te d'Ivoire,166,0.524,0.534\n",
        )
        .unwrap();
        let rows = read(&entry("hdr", "hdr.csv"), dir.path(), &["hdi"]).unwrap();
        assert_eq!(value(&rows, "CIV", "2022").value, "0.534");
        assert_eq!(rows.len(), 2);
    }
}
