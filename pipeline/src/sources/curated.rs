//! Declarations of the curated, record-level sources (`data/curated/*.toml`): where their raw files are,
//! their publisher and licence, and the reviewed mapping files they need: the World Bank's project list
//! (`data/curated/wb_projects.toml`, the `projects` dataset, [`ProjectsSource`]), and one file per other
//! record table ([`RecordSource`], [`RECORD_SOURCES`]).
//!
//! A catalog without `data/curated/` (the test fixtures) has no curated records; the datasets are then
//! baked empty, so the corpus shape does not depend on which sources are declared.

use std::path::{Path, PathBuf};

use corpus::RecordDataset;
use serde::Deserialize;

use super::{
    Connector,
    refresh::{FetchPolicy, Refresh},
    settings::{CorpusSettings, check_https, is_snake_id},
};
use crate::BakeError;

/// The directory of the curated declarations inside a catalog directory.
pub const CURATED_DIR: &str = "curated";

/// The file declaring the World Bank project list.
pub const PROJECTS_FILE: &str = "curated/wb_projects.toml";

/// The declarations of the other record tables, by file, and the curated dataset each feeds.
pub const RECORD_SOURCES: [(&str, RecordDataset); 7] = [
    ("curated/gef_projects.toml", RecordDataset::Projects),
    ("curated/cclw_laws.toml", RecordDataset::Regulation),
    ("curated/gov_nso_registry.toml", RecordDataset::Institutions),
    ("curated/govdirectory.toml", RecordDataset::Institutions),
    (
        "curated/wb_implementing_agencies.toml",
        RecordDataset::Institutions,
    ),
    ("curated/oecd_crs_flows.toml", RecordDataset::Financing),
    ("curated/ncei_earthquakes.toml", RecordDataset::Events),
];

/// `data/curated/<source>.toml`: one raw table of records (laws, institutions, flows, earthquakes).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordSource {
    /// Source id (`cclw_laws`), snake case.
    pub id: String,
    /// Dataset name as the publisher gives it.
    pub name: String,
    /// Publisher.
    pub publisher: String,
    /// Licence id of `corpus.toml`.
    pub license: String,
    /// Licence page (https).
    pub license_url: String,
    /// Publisher's page of the data (https).
    pub homepage: String,
    /// How the publisher asks to be credited.
    pub attribution: String,
    /// Directory of the raw file, relative to the sources directory.
    pub raw_path: String,
    /// The raw file, relative to `raw_path`.
    pub file: String,
    /// When the file was retrieved or exported, `YYYY-MM-DD`.
    pub retrieved_at: String,
    /// Prefix of the records' citation ids (`cclw`), snake case.
    pub citation_prefix: String,
    /// A reviewed mapping to pillars, relative to the catalog directory, when the table needs one.
    #[serde(default)]
    pub pillar_mapping: Option<String>,
    /// Where `pipeline fetch` refreshes the raw file from (the publisher's own files), and the connector
    /// that reads them (`[refresh.connector]`, a record layout such as `ncei_hazel_json`); absent: the
    /// staged file is refreshed by hand.
    #[serde(default)]
    pub refresh: Option<Refresh>,
}

impl RecordSource {
    /// Reads the declaration `file` (one of [`RECORD_SOURCES`]) in `catalog_dir`, if there is one.
    ///
    /// # Errors
    /// [`BakeError::Catalog`] naming the file and the field, as [`ProjectsSource::load`].
    pub fn load(
        catalog_dir: &Path,
        file: &str,
        settings: &CorpusSettings,
    ) -> Result<Option<RecordSource>, BakeError> {
        let path = catalog_dir.join(file);
        let Some(source) = read_toml::<RecordSource>(&path)? else {
            return Ok(None);
        };
        check_common(
            &path,
            settings,
            [&source.id, &source.citation_prefix],
            &source.license,
            [&source.license_url, &source.homepage],
            [("retrieved_at", &source.retrieved_at)],
        )?;
        check_refresh(&path, settings, source.refresh.as_ref())?;
        Ok(Some(source))
    }

    /// The raw file's path under `sources_dir`.
    pub fn path(&self, sources_dir: &Path) -> PathBuf {
        sources_dir.join(&self.raw_path).join(&self.file)
    }

    /// The raw file as the bake report names it (`cclw_climate_laws/cclw_laws_policies_lac_2021-01-30.csv`).
    pub fn file_label(&self) -> String {
        format!("{}/{}", self.raw_path, self.file)
    }
}

/// The declaration at `path`, if the file exists.
fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, BakeError> {
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|error| BakeError::catalog(path, format!("cannot read: {error}")))?;
    toml::from_str(&text)
        .map(Some)
        .map_err(|error| BakeError::catalog(path, error.to_string()))
}

/// A curated `[refresh]` is checked as an indicator source's (allow-listed https URLs, file paths), and
/// its connector must read records.
fn check_refresh(
    path: &Path,
    settings: &CorpusSettings,
    refresh: Option<&Refresh>,
) -> Result<(), BakeError> {
    let Some(refresh) = refresh else {
        return Ok(());
    };
    let policy = FetchPolicy::checked(settings.fetch.as_ref())
        .map_err(|message| BakeError::catalog(path, message))?;
    refresh
        .validate_records(&policy)
        .map_err(|message| BakeError::catalog(path, message))
}

/// The connector that reads a curated source's refreshed files, when it declares one and a fetch has
/// left every refreshed file in `raw_dir` ([`Refresh::is_present`]); else `None`: the staged file is read.
pub fn refreshed_connector<'a>(
    refresh: Option<&'a Refresh>,
    raw_dir: &Path,
) -> Option<&'a Connector> {
    let refresh = refresh?;
    let connector = refresh.connector.as_ref()?;
    refresh.is_present(&[], raw_dir).then_some(connector)
}

/// The checks every curated declaration passes: snake-case ids, a declared licence, https links, ISO dates.
fn check_common<const DATES: usize>(
    path: &Path,
    settings: &CorpusSettings,
    [id, citation_prefix]: [&String; 2],
    license: &str,
    [license_url, homepage]: [&String; 2],
    dates: [(&str, &String); DATES],
) -> Result<(), BakeError> {
    let invalid = |message: String| BakeError::catalog(path, message);
    if !is_snake_id(id) || !is_snake_id(citation_prefix) {
        return Err(invalid(format!(
            "id `{id}` and citation_prefix `{citation_prefix}` must be snake case ([a-z0-9_])"
        )));
    }
    if settings.license(license).is_none() {
        return Err(invalid(format!(
            "license `{license}` is not declared in corpus.toml; declared: {}",
            settings.license_ids()
        )));
    }
    for (field, value) in [("license_url", license_url), ("homepage", homepage)] {
        check_https(field, value).map_err(invalid)?;
    }
    for (field, value) in dates {
        if !is_iso_date(value) {
            return Err(invalid(format!(
                "{field} `{value}` must be a date YYYY-MM-DD"
            )));
        }
    }
    Ok(())
}

/// `data/curated/wb_projects.toml`: two exports of the World Bank's Projects & Operations list.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectsSource {
    /// Source id (`wb_projects`), snake case.
    pub id: String,
    /// Dataset name (`Projects & Operations`).
    pub name: String,
    /// Publisher (`The World Bank`).
    pub publisher: String,
    /// Licence id of `corpus.toml`.
    pub license: String,
    /// Licence page (https).
    pub license_url: String,
    /// Publisher's page of the list (https).
    pub homepage: String,
    /// How the publisher asks to be credited.
    pub attribution: String,
    /// Directory of the raw files, relative to the sources directory.
    pub raw_path: String,
    /// The newer export (decides status, dates, amounts), relative to `raw_path`.
    pub newer_file: String,
    /// When the newer export was retrieved, `YYYY-MM-DD`.
    pub newer_retrieved_at: String,
    /// The older export (alone has sectors and themes), relative to `raw_path`.
    pub older_file: String,
    /// When the older export was retrieved, `YYYY-MM-DD`.
    pub older_retrieved_at: String,
    /// Prefix of the records' citation ids (`wbproj` → `wbproj-p127837`).
    pub citation_prefix: String,
    /// The reviewed sector/theme → pillar mapping, relative to the catalog directory.
    pub sector_pillars: String,
    /// The reviewed title word → pillar mapping for projects without sector or theme, relative to the
    /// catalog directory; without it such projects keep no pillar.
    #[serde(default)]
    pub title_pillars: Option<String>,
    /// Where `pipeline fetch` refreshes the raw file from (the publisher's own files), and the connector
    /// that reads them (`[refresh.connector]`, a record layout such as `ncei_hazel_json`); absent: the
    /// staged file is refreshed by hand.
    #[serde(default)]
    pub refresh: Option<Refresh>,
}

impl ProjectsSource {
    /// Reads the declaration in `catalog_dir`, if there is one, and checks it against `settings`.
    ///
    /// # Errors
    /// [`BakeError::Catalog`] naming the file and the field: unreadable or unknown keys, a licence
    /// `corpus.toml` does not declare, a non-https link, a date that is not `YYYY-MM-DD`, an id that is
    /// not snake case.
    pub fn load(
        catalog_dir: &Path,
        settings: &CorpusSettings,
    ) -> Result<Option<ProjectsSource>, BakeError> {
        let path = catalog_dir.join(PROJECTS_FILE);
        let Some(source) = read_toml::<ProjectsSource>(&path)? else {
            return Ok(None);
        };
        check_common(
            &path,
            settings,
            [&source.id, &source.citation_prefix],
            &source.license,
            [&source.license_url, &source.homepage],
            [
                ("newer_retrieved_at", &source.newer_retrieved_at),
                ("older_retrieved_at", &source.older_retrieved_at),
            ],
        )?;
        check_refresh(&path, settings, source.refresh.as_ref())?;
        Ok(Some(source))
    }

    /// The newer export's path under `sources_dir`.
    pub fn newer_path(&self, sources_dir: &Path) -> PathBuf {
        sources_dir.join(&self.raw_path).join(&self.newer_file)
    }

    /// The older export's path under `sources_dir`.
    pub fn older_path(&self, sources_dir: &Path) -> PathBuf {
        sources_dir.join(&self.raw_path).join(&self.older_file)
    }
}

/// Whether `text` is a calendar date `YYYY-MM-DD`: month 1-12, and a day that month has (`2021-02-29`
/// and `2021-04-31` are not dates; `2020-02-29` is).
pub fn is_iso_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes[range.clone()]
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| text[range].parse::<u32>().ok())
            .flatten()
    };
    bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && digits(0..4).is_some()
        && match (digits(0..4), digits(5..7), digits(8..10)) {
            (Some(year), Some(month), Some(day)) => {
                let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
                let days = match month {
                    1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
                    4 | 6 | 9 | 11 => 30,
                    2 if leap => 29,
                    2 => 28,
                    _ => 0,
                };
                (1..=days).contains(&day)
            }
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::is_iso_date;

    #[test]
    fn dates_are_calendar_dates() {
        assert!(is_iso_date("2025-03-31"));
        assert!(is_iso_date("2020-02-29"));
        assert!(is_iso_date("2000-02-29"));
        for bad in [
            "2021-02-29",
            "1900-02-29",
            "2021-02-31",
            "2021-04-31",
            "2025-13-01",
            "2025-3-31",
            "31/03/2025",
            "2025-03-00",
            "",
            "2025-03-31T00:00",
        ] {
            assert!(!is_iso_date(bad), "{bad}");
        }
    }
}
