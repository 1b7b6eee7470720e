//! `data/metrics/*.csv`: the reviewed mapping of each source indicator to its pillar, unit, direction,
//! valid range, licence and names.
//!
//! Columns: `source_code, raw_key?, pillar, unit, good_direction, min?, max?, license, headline, name_en?,
//! name_es?, name_pt?, synonyms?, description?, methodology?, wdi_topic?, zeros?, small_values?` (`?` =
//! optional column or empty cell). The WDI file was started from each series' WDI topic and reviewed by
//! hand; `name_*` are written for every indicator (the source files are English only) and required for
//! the headline ones.

use std::path::{Path, PathBuf};

use corpus::{GoodDirection, ValidRange};
use serde::Deserialize;

use super::settings::CorpusSettings;
use crate::BakeError;

/// One mapping file, validated.
#[derive(Debug, Clone)]
pub struct MetricMapping {
    /// The file it was read from.
    pub file: PathBuf,
    /// Its rows, in file order.
    pub rows: Vec<MetricMappingRow>,
}

/// One indicator's mapping.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricMappingRow {
    /// Publisher's indicator code (`SP.DYN.LE00.IN`).
    pub source_code: String,
    /// The indicator's key in the raw file when it differs from the code (WGI `cc` for `CC.EST`).
    #[serde(default)]
    pub raw_key: Option<String>,
    /// Pillar id.
    pub pillar: String,
    /// Unit of the values.
    pub unit: String,
    /// `up`, `down` or `neutral`.
    pub good_direction: GoodDirection,
    /// Inclusive lower bound of a possible value, if bounded.
    #[serde(default)]
    pub min: Option<f64>,
    /// Inclusive upper bound of a possible value, if bounded.
    #[serde(default)]
    pub max: Option<f64>,
    /// Licence id of this series.
    pub license: String,
    /// Whether this is a headline indicator (then `name_en`, `name_es`, `name_pt` are required).
    pub headline: bool,
    /// Short English name (defaults to the publisher's title).
    #[serde(default)]
    pub name_en: Option<String>,
    /// Spanish name.
    #[serde(default)]
    pub name_es: Option<String>,
    /// Portuguese name.
    #[serde(default)]
    pub name_pt: Option<String>,
    /// Other names for search, `|`-separated, any language.
    #[serde(default)]
    pub synonyms: Option<String>,
    /// Definition, for sources whose raw files carry none.
    #[serde(default)]
    pub description: Option<String>,
    /// Methodology note and caveats (coverage gaps, upper bounds), for sources whose metadata has none.
    #[serde(default)]
    pub methodology: Option<String>,
    /// The WDI topic the pillar mapping started from.
    #[serde(default)]
    pub wdi_topic: Option<String>,
    /// What an exact zero is in this indicator (`placeholder` or `measured`); empty: the placeholder-run
    /// rule of percent units decides (`crate::govern::placeholder`).
    #[serde(default)]
    pub zeros: Option<ZeroRule>,
    /// `plausible` when values far below every other country's are real for this indicator (a share of
    /// land area on a small island), so the fraction-as-percent check (`crate::govern::scale`) skips it.
    #[serde(default)]
    pub small_values: Option<SmallValues>,
}

/// What an exact zero is in an indicator's values (column `zeros` of the mapping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZeroRule {
    /// Never a measurement (value added or expenditure shares of GDP, education spending): every exact
    /// zero stands for "no data" and is dropped as `placeholder_zero`.
    Placeholder,
    /// A measured value (no woman in a small parliament, no short-term debt): never dropped as a placeholder.
    Measured,
    /// A single zero is plausible (no road death in a small island's year) but a run of consecutive
    /// zeros is not (Antigua and Barbuda's road-traffic deaths of 0 for 2015–2019): every zero in a run
    /// of at least `crate::govern::placeholder::IMPLAUSIBLE_RUN` consecutive years is a placeholder.
    ImplausibleRun,
}

/// Column `small_values` of the mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmallValues {
    /// Values far below the other countries' are real (geography, tiny economies): no scale check.
    Plausible,
}

impl MetricMappingRow {
    /// The valid range of the values.
    pub fn valid_range(&self) -> ValidRange {
        ValidRange {
            min: self.min,
            max: self.max,
        }
    }

    /// The synonyms as a list.
    pub fn synonym_list(&self) -> Vec<String> {
        self.synonyms
            .as_deref()
            .unwrap_or_default()
            .split('|')
            .map(str::trim)
            .filter(|word| !word.is_empty())
            .map(String::from)
            .collect()
    }

    /// The key that names this indicator in its raw file.
    pub fn raw_key(&self) -> &str {
        self.raw_key.as_deref().unwrap_or(&self.source_code)
    }
}

impl MetricMapping {
    /// Reads and validates a mapping file.
    ///
    /// # Errors
    /// [`BakeError::Catalog`] naming the file, line and field: an unknown column or pillar, an invalid
    /// direction, an unknown licence, `min > max`, a duplicate code, a headline row without its three names.
    pub fn load(file: &Path, settings: &CorpusSettings) -> Result<MetricMapping, BakeError> {
        let mut reader = csv::Reader::from_path(file)
            .map_err(|error| BakeError::catalog(file, format!("cannot read: {error}")))?;
        let mut rows: Vec<MetricMappingRow> = Vec::new();
        for record in reader.deserialize::<MetricMappingRow>() {
            let row =
                record.map_err(|error| BakeError::catalog(file, describe_csv_error(&error)))?;
            let line = rows.len() + 2;
            let invalid =
                |message: String| BakeError::catalog(file, format!("line {line}: {message}"));
            if settings
                .pillars
                .iter()
                .all(|pillar| pillar.id != row.pillar)
            {
                return Err(invalid(format!(
                    "pillar `{}`: unknown; valid: {}",
                    row.pillar,
                    settings.pillar_ids()
                )));
            }
            if settings.license(&row.license).is_none() {
                return Err(invalid(format!(
                    "license `{}`: not declared in corpus.toml; valid: {}",
                    row.license,
                    settings.license_ids()
                )));
            }
            if let (Some(min), Some(max)) = (row.min, row.max)
                && min > max
            {
                return Err(invalid(format!("min {min} is above max {max}")));
            }
            let has_names = [&row.name_en, &row.name_es, &row.name_pt]
                .iter()
                .all(|name| name.as_deref().is_some_and(|name| !name.is_empty()));
            if row.headline && !has_names {
                return Err(invalid(format!(
                    "`{}` is a headline indicator: name_en, name_es and name_pt are required",
                    row.source_code
                )));
            }
            if rows.iter().any(|seen| seen.source_code == row.source_code) {
                return Err(invalid(format!(
                    "source_code `{}` is mapped twice",
                    row.source_code
                )));
            }
            rows.push(row);
        }
        Ok(MetricMapping {
            file: file.to_path_buf(),
            rows,
        })
    }
}

/// A CSV deserialisation error as "line N, field `x`: problem".
fn describe_csv_error(error: &csv::Error) -> String {
    let line = error
        .position()
        .map(|position| format!("line {}: ", position.line()))
        .unwrap_or_default();
    match error.kind() {
        csv::ErrorKind::Deserialize { err, .. } => {
            let field = err
                .field()
                .map(|field| format!("column {}: ", field + 1))
                .unwrap_or_default();
            format!(
                "{line}{field}{}; good_direction takes up, down, neutral or ambiguous; headline takes true or false; zeros takes placeholder, measured or implausible_run; small_values takes plausible",
                err.kind()
            )
        }
        _ => format!("{line}{error}"),
    }
}

#[cfg(test)]
impl MetricMapping {
    /// A mapping of one `economia` row per raw key (source code = the key upper-cased), for connector
    /// tests that only need `raw_key`s.
    pub(crate) fn of_raw_keys(keys: &[&str]) -> MetricMapping {
        let mut text =
            String::from("source_code,raw_key,pillar,unit,good_direction,license,headline\n");
        for key in keys {
            text.push_str(&format!(
                "{},{key},economia,index,up,CC-BY-4.0,false\n",
                key.to_ascii_uppercase()
            ));
        }
        let rows = csv::Reader::from_reader(text.as_bytes())
            .deserialize()
            .collect::<Result<_, _>>()
            .expect("a test mapping");
        MetricMapping {
            file: PathBuf::from("test-mapping.csv"),
            rows,
        }
    }
}
