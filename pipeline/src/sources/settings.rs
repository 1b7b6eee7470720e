//! `data/corpus.toml`: the settings that hold for every source.

use std::path::Path;

use corpus::{Names, Pillar};
use serde::Deserialize;

use crate::BakeError;

/// The parsed `data/corpus.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusSettings {
    /// Bake series whose licence is not redistributable (private use only). Default `false`.
    #[serde(default)]
    pub include_restricted_licenses: bool,
    /// Every licence a source or series may declare.
    pub licenses: Vec<LicenseEntry>,
    /// Comparison aggregates kept beside the countries.
    #[serde(default)]
    pub aggregates: Vec<AggregateEntry>,
    /// Names that fit more than one country of the corpus (`Virgin Islands`), refused with their
    /// candidates rather than resolved (`places.json`).
    #[serde(default)]
    pub ambiguous_places: Vec<corpus::AmbiguousPlace>,
    /// The pillars, in display order.
    pub pillars: Vec<Pillar>,
    /// The hosts and size `pipeline fetch` may use (none: no source can be refreshed).
    #[serde(default)]
    pub fetch: Option<super::refresh::FetchSettings>,
}

/// A licence the catalog knows.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LicenseEntry {
    /// Id used by sources and series (`CC-BY-4.0`).
    pub id: String,
    /// Full name.
    pub name: String,
    /// Licence text (https).
    pub url: String,
    /// Whether data under it may be baked into the default corpus and its exports.
    pub redistributable: bool,
}

/// A comparison aggregate.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AggregateEntry {
    /// Publisher code as it appears in raw files (`LCN`).
    pub code: String,
    /// World Bank 2-character code, for deep links (`ZJ`).
    pub iso2: String,
    /// Names in en/es/pt.
    pub names: Names,
    /// Other names publishers use for it (`Latin America and the Caribbean`).
    #[serde(default)]
    pub aliases: Vec<String>,
}

impl CorpusSettings {
    /// Reads and validates `path`.
    ///
    /// # Errors
    /// [`BakeError::Catalog`] naming the field: unknown keys, a licence URL that is not https, a pillar id
    /// that is not lower snake case or lacks a Spanish or Portuguese name, a duplicate id.
    pub fn load(path: &Path) -> Result<CorpusSettings, BakeError> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| BakeError::catalog(path, format!("cannot read: {error}")))?;
        let settings: CorpusSettings =
            toml::from_str(&text).map_err(|error| BakeError::catalog(path, error.to_string()))?;
        settings
            .validate()
            .map_err(|message| BakeError::catalog(path, message))?;
        Ok(settings)
    }

    /// The licence with this id.
    pub fn license(&self, id: &str) -> Option<&LicenseEntry> {
        self.licenses.iter().find(|license| license.id == id)
    }

    /// Whether a series under licence `id` goes into this bake.
    pub fn admits_license(&self, id: &str) -> bool {
        self.include_restricted_licenses
            || self
                .license(id)
                .is_some_and(|license| license.redistributable)
    }

    /// Valid licence ids, for error messages.
    pub fn license_ids(&self) -> String {
        self.licenses
            .iter()
            .map(|license| license.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The pillar ids, in catalog order.
    pub fn pillar_id_list(&self) -> Vec<&str> {
        self.pillars
            .iter()
            .map(|pillar| pillar.id.as_str())
            .collect()
    }

    /// Valid pillar ids, for error messages.
    pub fn pillar_ids(&self) -> String {
        self.pillars
            .iter()
            .map(|pillar| pillar.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn validate(&self) -> Result<(), String> {
        for (index, license) in self.licenses.iter().enumerate() {
            check_https(&format!("licenses[{index}].url"), &license.url)?;
        }
        check_unique(
            "licenses",
            self.licenses.iter().map(|license| license.id.as_str()),
        )?;
        for (index, pillar) in self.pillars.iter().enumerate() {
            if !is_snake_id(&pillar.id) {
                return Err(format!(
                    "pillars[{index}].id `{}`: use lower snake case ASCII, e.g. `medio_ambiente`",
                    pillar.id
                ));
            }
            if pillar.names.es.is_none() || pillar.names.pt.is_none() {
                return Err(format!(
                    "pillars[{index}].names: pillar `{}` needs names in es, en and pt",
                    pillar.id
                ));
            }
        }
        check_unique(
            "pillars",
            self.pillars.iter().map(|pillar| pillar.id.as_str()),
        )?;
        for (index, aggregate) in self.aggregates.iter().enumerate() {
            if aggregate.code.len() != 3
                || !aggregate
                    .code
                    .chars()
                    .all(|character| character.is_ascii_uppercase())
            {
                return Err(format!(
                    "aggregates[{index}].code `{}`: use the publisher's 3-letter upper-case code, e.g. `LCN`",
                    aggregate.code
                ));
            }
        }
        check_unique(
            "aggregates",
            self.aggregates
                .iter()
                .map(|aggregate| aggregate.code.as_str()),
        )
    }
}

/// Whether `text` is a lower snake case ASCII id (`medio_ambiente`, `wdi`).
pub fn is_snake_id(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|character| {
            character.is_ascii_lowercase() || character.is_ascii_digit() || character == '_'
        })
}

/// Checks that `value` is an https URL; `field` names it in the error.
pub fn check_https(field: &str, value: &str) -> Result<(), String> {
    if value.starts_with("https://") && value.len() > "https://".len() {
        Ok(())
    } else {
        Err(format!("{field} `{value}`: must be an https:// URL"))
    }
}

fn check_unique<'a>(field: &str, ids: impl Iterator<Item = &'a str>) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for id in ids {
        if !seen.insert(id) {
            return Err(format!("{field}: id `{id}` is declared twice"));
        }
    }
    Ok(())
}
