//! WDI series metadata (`wdi_metadata/WDISeries.csv`, `WDICountry-Series.latam.csv`): definitions,
//! methodology, primary source and country-specific notes per series, and the World Bank's documented
//! aggregation method of each series ([`aggregation_methods`], the `Aggregation method` column).

use std::{
    collections::{BTreeMap, HashMap},
    path::Path,
};

use serde::Deserialize;

use crate::{
    BakeError,
    sources::{Catalog, Connector, SourceEntry},
};

/// What the metadata says about one series.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeriesMetadata {
    /// Long definition (or the short one when the long is empty).
    pub definition: Option<String>,
    /// Statistical concept and methodology, then limitations and exceptions.
    pub methodology: Option<String>,
    /// The original publisher (`Source` column).
    pub primary_source: Option<String>,
    /// Country-specific source notes, by ISO3.
    pub country_notes: BTreeMap<String, String>,
    /// The series' title in this metadata (`Indicator Name`), to compare with the title that ships with
    /// the values: the metadata may be of an older release.
    pub title: Option<String>,
    /// `Base Period` (`2015`), where given.
    pub base_period: Option<String>,
    /// Release of this metadata (the metadata source's `vintage`, `2022`).
    pub vintage: String,
}

#[derive(Debug, Deserialize)]
struct SeriesRow {
    #[serde(rename = "Series Code")]
    code: String,
    #[serde(rename = "Indicator Name")]
    name: String,
    #[serde(rename = "Base Period", default)]
    base_period: String,
    #[serde(rename = "Short definition")]
    short_definition: String,
    #[serde(rename = "Long definition")]
    long_definition: String,
    #[serde(rename = "Statistical concept and methodology")]
    methodology: String,
    #[serde(rename = "Limitations and exceptions")]
    limitations: String,
    #[serde(rename = "Source")]
    source: String,
    #[serde(rename = "Aggregation method", default)]
    aggregation_method: String,
}

/// The World Bank's documented aggregation method of every series of the sources a WDI series-metadata
/// source describes (`describes = "wdi"`), by metric id: the `Aggregation method` column of its series
/// file as written (`Weighted average`, `Sum`, `Gap-filled total`, `Median`, `Unweighted average`, …);
/// series with an empty cell are left out. `data/aggregation.toml`'s rules apply these
/// ([`crate::sources::aggregation::AggregationRules::with_publisher_methods`]).
///
/// # Errors
/// [`BakeError::RawFile`] if a series file is missing, unreadable or lacks a column.
pub fn aggregation_methods(
    catalog: &Catalog,
    sources_dir: &Path,
) -> Result<BTreeMap<String, String>, BakeError> {
    let mut methods = BTreeMap::new();
    for entry in &catalog.sources {
        let (Connector::WdiSeriesMetadata { series_file, .. }, Some(described)) =
            (&entry.connector, &entry.describes)
        else {
            continue;
        };
        let Some(mapping) = catalog.mappings.get(described) else {
            continue;
        };
        let codes: std::collections::HashSet<&str> = mapping
            .rows
            .iter()
            .map(|row| row.source_code.as_str())
            .collect();
        for row in read_rows::<SeriesRow>(&entry.raw_dir(sources_dir).join(series_file))? {
            let (code, method) = (row.code.trim(), row.aggregation_method.trim());
            if codes.contains(code) && !method.is_empty() {
                methods.insert(corpus::Metric::id_for_code(code), method.to_string());
            }
        }
    }
    Ok(methods)
}

#[derive(Debug, Deserialize)]
struct CountrySeriesRow {
    #[serde(rename = "CountryCode")]
    country: String,
    #[serde(rename = "SeriesCode")]
    series: String,
    #[serde(rename = "DESCRIPTION")]
    description: String,
}

/// Reads the metadata of every series, keyed by upper-case series code.
///
/// # Errors
/// [`BakeError::RawFile`] if a file is missing, unreadable or lacks a column.
pub fn read(
    entry: &SourceEntry,
    sources_dir: &Path,
) -> Result<HashMap<String, SeriesMetadata>, BakeError> {
    let Connector::WdiSeriesMetadata {
        series_file,
        country_series_file,
    } = &entry.connector
    else {
        unreachable!(
            "wdi_metadata::read called for connector `{}`",
            entry.connector.kind()
        );
    };
    let raw_dir = entry.raw_dir(sources_dir);
    let mut by_code: HashMap<String, SeriesMetadata> = HashMap::new();
    let series_path = raw_dir.join(series_file);
    for row in read_rows::<SeriesRow>(&series_path)? {
        let non_empty = |text: &str| (!text.trim().is_empty()).then(|| text.trim().to_string());
        let methodology = match (non_empty(&row.methodology), non_empty(&row.limitations)) {
            (Some(method), Some(limits)) => {
                Some(format!("{method}\n\nLimitations and exceptions: {limits}"))
            }
            (method, limits) => {
                method.or(limits.map(|limits| format!("Limitations and exceptions: {limits}")))
            }
        };
        by_code.insert(
            row.code.trim().to_string(),
            SeriesMetadata {
                definition: non_empty(&row.long_definition)
                    .or_else(|| non_empty(&row.short_definition)),
                methodology,
                primary_source: non_empty(&row.source),
                country_notes: BTreeMap::new(),
                title: non_empty(&row.name),
                base_period: non_empty(&row.base_period),
                vintage: entry.vintage.clone(),
            },
        );
    }
    for row in read_rows::<CountrySeriesRow>(&raw_dir.join(country_series_file))? {
        let note = row.description.trim();
        if note.is_empty() {
            continue;
        }
        let metadata = by_code
            .entry(row.series.trim().to_string())
            .or_insert_with(|| SeriesMetadata {
                vintage: entry.vintage.clone(),
                ..SeriesMetadata::default()
            });
        metadata
            .country_notes
            .insert(row.country.trim().to_string(), note.to_string());
    }
    Ok(by_code)
}

fn read_rows<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, BakeError> {
    let bytes = std::fs::read(path)
        .map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
    let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text)
        .deserialize()
        .collect::<Result<Vec<T>, _>>()
        .map_err(|error| BakeError::raw_file(path, error))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk_sample(file: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/publisher-formats/wb_wdi_bulk")
            .join(file)
    }

    #[test]
    fn the_bulk_zips_series_member_reads_with_bom_quotes_and_trailing_comma() {
        let path = bulk_sample("WDISeries.csv");
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.starts_with(b"\xEF\xBB\xBF\"Series Code\""));
        let rows = read_rows::<SeriesRow>(&path).unwrap();
        let codes: Vec<&str> = rows.iter().map(|row| row.code.as_str()).collect();
        assert_eq!(
            codes,
            [
                "EG.ELC.RNEW.ZS",
                "EN.ATM.CO2E.KT",
                "NY.GDP.MKTP.CD",
                "SI.POV.GINI",
                "SP.POP.TOTL",
                "VC.IHR.PSRC.P5"
            ]
        );
        let renewables = &rows[0];
        assert_eq!(
            renewables.name,
            "Renewable electricity output (% of total electricity output)"
        );
        assert!(
            renewables
                .source
                .starts_with("IEA Statistics © OECD/IEA 2018")
        );
    }

    #[test]
    fn the_bulk_zips_country_series_member_reads() {
        let rows = read_rows::<CountrySeriesRow>(&bulk_sample("WDICountry-Series.csv")).unwrap();
        assert_eq!(rows[0].country, "ARG");
        assert_eq!(rows[0].series, "ST.INT.XPND.CD");
        assert!(
            rows[0]
                .description
                .starts_with("Compiled from data reported in the International Monetary Fund")
        );
    }
}
