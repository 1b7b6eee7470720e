//! Flat files for analysts, written into the published corpus (`exports/`), so they are versioned,
//! hashed in the manifest and swapped with it: one tidy CSV per indicator (RFC 4180, UTF-8, one header
//! row), byte-identical across bakes of the same inputs.
//!
//! `exports/indicators/{metric_id}.csv` columns: `indicator` (metric id), `country` (ISO3),
//! `country_name` (English), `year`, `value` (as stored), `unit`, `flags` (`|`-separated, empty when
//! none), `citation_id`, `url` (the publisher's page for the series). Rows in (country, year) order.
//! Only the governed observations are written, so only redistributable series (the licence gate
//! already decided) and no comparison aggregates.

use std::{collections::HashMap, path::Path};

use corpus::{Country, Metric, SourceRecord};

use super::tables::ObservationColumns;
use crate::BakeError;

/// The directory of the per-indicator CSVs, inside a corpus directory.
pub const INDICATOR_CSV_DIR: &str = "exports/indicators";

/// The tidy CSV's header.
pub const INDICATOR_CSV_HEADER: [&str; 9] = [
    "indicator",
    "country",
    "country_name",
    "year",
    "value",
    "unit",
    "flags",
    "citation_id",
    "url",
];

/// Writes `exports/indicators/{id}.csv` in `dir` for every metric with observations; returns how many
/// files were written.
///
/// # Errors
/// [`BakeError::Io`] naming the file that could not be written.
pub fn write_indicator_csvs(
    dir: &Path,
    observations: &ObservationColumns,
    metrics: &[Metric],
    sources: &[SourceRecord],
    countries: &[Country],
) -> Result<usize, BakeError> {
    let out = dir.join(INDICATOR_CSV_DIR);
    std::fs::create_dir_all(&out).map_err(|error| BakeError::io(&out, error))?;
    let metric_by_id: HashMap<&str, &Metric> = metrics
        .iter()
        .map(|metric| (metric.id.as_str(), metric))
        .collect();
    let source_by_id: HashMap<&str, &SourceRecord> = sources
        .iter()
        .map(|source| (source.id.as_str(), source))
        .collect();
    let country_by_code: HashMap<&str, &Country> = countries
        .iter()
        .map(|country| (country.iso3.as_str(), country))
        .collect();
    let mut rows_by_metric: HashMap<&str, Vec<usize>> = HashMap::new();
    for row_idx in 0..observations.len() {
        rows_by_metric
            .entry(observations.indicator[row_idx].as_str())
            .or_default()
            .push(row_idx);
    }
    let mut written = 0;
    let mut ids: Vec<&&str> = rows_by_metric.keys().collect();
    ids.sort();
    for id in ids {
        let Some(metric) = metric_by_id.get(*id) else {
            continue;
        };
        let mut rows = rows_by_metric[*id].clone();
        rows.sort_by(|&left, &right| {
            (&observations.country[left], observations.year[left])
                .cmp(&(&observations.country[right], observations.year[right]))
        });
        let path = out.join(format!("{id}.csv"));
        let io_error = |error: std::io::Error| BakeError::io(&path, error);
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_path(&path)
            .map_err(|error| io_error(error.into()))?;
        writer
            .write_record(INDICATOR_CSV_HEADER)
            .map_err(|error| io_error(error.into()))?;
        let source = source_by_id.get(metric.source_id.as_str());
        for row_idx in rows {
            let iso3 = observations.country[row_idx].as_str();
            let country = country_by_code.get(iso3);
            let url = match (source, country) {
                (Some(source), Some(country)) => {
                    source.deep_link_for(&metric.source_code, iso3, &country.iso2)
                }
                _ => String::new(),
            };
            writer
                .write_record([
                    metric.id.as_str(),
                    iso3,
                    country.map_or("", |country| country.names.en.as_str()),
                    &observations.year[row_idx].to_string(),
                    &observations.value[row_idx].to_string(),
                    metric.unit.as_str(),
                    observations.flags[row_idx].as_str(),
                    observations.citation_id[row_idx].as_str(),
                    url.as_str(),
                ])
                .map_err(|error| io_error(error.into()))?;
        }
        writer.flush().map_err(io_error)?;
        written += 1;
    }
    Ok(written)
}
