//! The source registry (`sources.json`): what a citation needs to know about each publisher's dataset.

use serde::{Deserialize, Serialize};

/// One source of the corpus, as declared in its catalog file under `data/sources/`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRecord {
    /// Filename-safe id (`wdi`).
    pub id: String,
    /// Prefix of the citation ids of this source's observations (`wb` → `wb-sp-dyn-le00-in-mex-2024`).
    pub citation_prefix: String,
    /// Dataset name (`World Development Indicators`).
    pub name: String,
    /// Publisher (`The World Bank`).
    pub publisher: String,
    /// Licence id (`CC-BY-4.0`); a series may carry other terms, see [`crate::Metric::license`].
    pub license: String,
    /// Licence text URL.
    pub license_url: String,
    /// Dataset homepage.
    pub homepage: String,
    /// The release the values come from (`2026-07`).
    pub vintage: String,
    /// When the raw files were retrieved, ISO 8601 date.
    pub retrieved_at: String,
    /// Deep link to one indicator for one country, with `{code}` (source code), `{iso2}` and `{iso3}`
    /// template fields: `https://data.worldbank.org/indicator/{code}?locations={iso2}`.
    pub deep_link: String,
    /// How to attribute the data, as the publisher asks.
    pub attribution: String,
}

impl SourceRecord {
    /// The deep link for `source_code` in the entity with codes `iso3`/`iso2`.
    pub fn deep_link_for(&self, source_code: &str, iso3: &str, iso2: &str) -> String {
        self.deep_link
            .replace("{code}", source_code)
            .replace("{iso3}", iso3)
            .replace("{iso2}", iso2)
    }
}
