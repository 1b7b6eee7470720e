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
    /// What `deep_link` opens: the page of one indicator in one country, of a country, of an indicator,
    /// or only the dataset (`dataset`: not a deep link, the publisher documents no finer page).
    #[serde(default)]
    pub deep_link_kind: LinkKind,
    /// How to attribute the data, as the publisher asks.
    pub attribution: String,
    /// For an older vintage kept citable beside a newer one: the id of the source of the newer vintage,
    /// which answers by default (`imf_weo_2019` → `imf_weo`); `None` for a current source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

/// What a source's citation link opens.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// The indicator's page for the cited country (`{code}` and `{iso2}`/`{iso3}` in the pattern).
    IndicatorCountry,
    /// The cited country's page (all indicators).
    Country,
    /// The indicator's page (all countries).
    Indicator,
    /// The dataset's page only: the reader has to find the indicator and country there.
    #[default]
    Dataset,
}

impl LinkKind {
    /// Every kind, most specific first.
    pub const ALL: [LinkKind; 4] = [
        LinkKind::IndicatorCountry,
        LinkKind::Country,
        LinkKind::Indicator,
        LinkKind::Dataset,
    ];

    /// The snake_case name used in the catalog and the report.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::IndicatorCountry => "indicator_country",
            LinkKind::Country => "country",
            LinkKind::Indicator => "indicator",
            LinkKind::Dataset => "dataset",
        }
    }

    /// The kind a deep-link pattern can be at most, from its template fields.
    pub fn of_pattern(pattern: &str) -> LinkKind {
        let country = pattern.contains("{iso3}") || pattern.contains("{iso2}");
        match (pattern.contains("{code}"), country) {
            (true, true) => LinkKind::IndicatorCountry,
            (false, true) => LinkKind::Country,
            (true, false) => LinkKind::Indicator,
            (false, false) => LinkKind::Dataset,
        }
    }
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
