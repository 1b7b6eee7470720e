//! Places a text may name that are not one entity of the corpus (`places.json`): names that fit several
//! of its countries (`Virgin Islands`: VIR or VGB) and the world's countries and territories outside Latin
//! America and the Caribbean (`Spain`, `American Samoa`). With them the normaliser
//! ([`crate::CountryRegistry::lookup`]) refuses honestly, naming the candidates or saying the place is
//! outside the corpus, instead of mapping a name to the nearest one or calling it unknown.
//!
//! Sources: the ambiguous names are the catalog's (`data/corpus.toml`, `[[ambiguous_places]]`); the places
//! outside are every ISO 3166-1 entry of `country_names/i18n-iso-countries` (en/es/pt names and alternates,
//! MIT) whose alpha-3 code is not a country of the corpus.

use serde::{Deserialize, Serialize};

use crate::Names;

/// A name that fits more than one country of the corpus (`Virgin Islands`, `Guiana`, `Antilles`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmbiguousPlace {
    /// The name, as the catalog writes it; matched case-, accent- and punctuation-insensitively.
    pub name: String,
    /// ISO3 of every country of the corpus it may mean, in the catalog's order.
    pub candidates: Vec<String>,
    /// Why it is ambiguous (`the Virgin Islands are two territories: …`).
    pub note: String,
}

/// A country or territory of ISO 3166-1 that the corpus does not cover.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutsidePlace {
    /// ISO 3166-1 alpha-3 code (`ESP`).
    pub iso3: String,
    /// Its preferred names in en/es/pt.
    pub names: Names,
    /// Alternate names (i18n-iso-countries' alternates: `United States of America`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
}

/// The contents of `places.json` (absent from corpora baked before it: both lists empty).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Places {
    /// Names that fit more than one country of the corpus.
    pub ambiguous: Vec<AmbiguousPlace>,
    /// Countries and territories outside the corpus, by ISO3.
    pub outside: Vec<OutsidePlace>,
}
