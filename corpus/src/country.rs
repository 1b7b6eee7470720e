//! Countries (ISO 3166-1 alpha-3) and comparison aggregates, and the one normaliser that maps free text
//! to them.
//!
//! Source: `country_names/latam_country_names.csv` (UN M49 sub-region 419, 52 countries and territories)
//! for countries; the corpus catalog (`data/corpus.toml`) for the comparison aggregates (World Bank LCN,
//! WLD, …). Aggregates are kept for comparison only and are never counted, ranked or returned as countries.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::{
    Names,
    folding::fold,
    places::{OutsidePlace, Places},
};

/// Whether an entity is a country of the corpus or a comparison aggregate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntityKind {
    /// A country or territory of Latin America and the Caribbean (UN M49 sub-region 419).
    Country,
    /// A regional or world aggregate computed by a publisher (e.g. World Bank `LCN`), for comparison only.
    Aggregate,
}

/// One entity of `countries.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Country {
    /// ISO 3166-1 alpha-3 code (`BRA`), or the publisher's code for an aggregate (`LCN`).
    pub iso3: String,
    /// ISO 3166-1 alpha-2 code (`BR`), or the World Bank 2-character code for an aggregate (`ZJ`); used in
    /// deep links.
    pub iso2: String,
    /// Country or aggregate.
    pub kind: EntityKind,
    /// Names in en/es/pt (i18n-iso-countries preferred names for countries).
    pub names: Names,
    /// Other names that resolve to this entity: UNTERM short and formal names, World Bank and WGI names,
    /// CLDR and i18n alternates.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// UN M49 intermediate region (`Caribbean`, `Central America`, `South America`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intermediate_region: Option<String>,
    /// World Bank income group (2022 classification), if classified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub income_group: Option<String>,
    /// Whether it is a sovereign state (`is_independent = Yes` in the country list: the 33 UN member
    /// states of the region), rather than a territory or an aggregate.
    #[serde(default)]
    pub sovereign: bool,
    /// Observations the corpus holds for this entity (0: listed, but no source publishes data for it).
    #[serde(default)]
    pub observations: u64,
}

/// The countries and aggregates of a corpus with a case-, accent- and punctuation-insensitive lookup.
///
/// Matching order: the catalog's ambiguous names first ([`Places::ambiguous`]: they resolve to none of
/// their candidates), then codes (ISO3, ISO2), preferred names, aliases; then the places outside the
/// corpus ([`Places::outside`]). A key that two entities share at the same level (e.g. the Portuguese
/// `São Martinho` of both parts of Saint Martin) resolves to neither: [`CountryRegistry::lookup`] names both.
#[derive(Debug, Clone)]
pub struct CountryRegistry {
    entities: Vec<Country>,
    by_key: HashMap<String, KeyTarget>,
    places: Places,
    /// Folded ambiguous name → its index in `places.ambiguous`.
    ambiguous_by_key: HashMap<String, usize>,
    /// Folded code or name of a place outside → its index in `places.outside`.
    outside_by_key: HashMap<String, usize>,
}

#[derive(Debug, Clone)]
struct KeyTarget {
    level: u8,
    /// Every entity with this key at `level`; more than one when the key is ambiguous.
    entities: Vec<usize>,
}

/// What a text names, as [`CountryRegistry::lookup`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum PlaceMatch<'a> {
    /// One country of the corpus.
    Country(&'a Country),
    /// One comparison aggregate (`LCN`).
    Aggregate(&'a Country),
    /// More than one country of the corpus (`Virgin Islands`: VIR, VGB), with the catalog's note when the
    /// name is one of its ambiguous names.
    Ambiguous {
        /// The countries it may mean.
        candidates: Vec<&'a Country>,
        /// Why, when the catalog says.
        note: Option<&'a str>,
    },
    /// A country or territory outside the corpus (`Spain`: ESP).
    Outside(&'a OutsidePlace),
    /// No place the registry knows.
    Unknown,
}

impl CountryRegistry {
    /// Builds the registry and its lookup from `entities` (countries and aggregates, any order), with no
    /// ambiguous names and no places outside.
    pub fn new(entities: Vec<Country>) -> Self {
        CountryRegistry::with_places(entities, Places::default())
    }

    /// Builds the registry from `entities` and `places` (`places.json`).
    pub fn with_places(mut entities: Vec<Country>, places: Places) -> Self {
        entities.sort_by(|left, right| left.iso3.cmp(&right.iso3));
        let mut by_key: HashMap<String, KeyTarget> = HashMap::new();
        for (entity_idx, entity) in entities.iter().enumerate() {
            let codes = [entity.iso3.as_str(), entity.iso2.as_str()];
            let levels: [(u8, Vec<&str>); 3] = [
                (0, codes.to_vec()),
                (1, entity.names.all().collect()),
                (2, entity.aliases.iter().map(String::as_str).collect()),
            ];
            for (level, texts) in levels {
                for text in texts {
                    insert_key(&mut by_key, fold(text), level, entity_idx);
                }
            }
        }
        let ambiguous_by_key = places
            .ambiguous
            .iter()
            .enumerate()
            .map(|(place_idx, place)| (fold(&place.name), place_idx))
            .collect();
        let mut outside_by_key = HashMap::new();
        for (place_idx, place) in places.outside.iter().enumerate() {
            let texts = std::iter::once(place.iso3.as_str())
                .chain(place.names.all())
                .chain(place.aliases.iter().map(String::as_str));
            for text in texts {
                outside_by_key.entry(fold(text)).or_insert(place_idx);
            }
        }
        CountryRegistry {
            entities,
            by_key,
            places,
            ambiguous_by_key,
            outside_by_key,
        }
    }

    /// What `text` names: one country, one aggregate, several countries (with the candidates), a place
    /// outside the corpus, or nothing known. Never the nearest name: `Spain` is [`PlaceMatch::Outside`],
    /// `Atlantis` [`PlaceMatch::Unknown`].
    pub fn lookup(&self, text: &str) -> PlaceMatch<'_> {
        let key = fold(text);
        if let Some(&place_idx) = self.ambiguous_by_key.get(&key) {
            let place = &self.places.ambiguous[place_idx];
            return PlaceMatch::Ambiguous {
                candidates: place
                    .candidates
                    .iter()
                    .filter_map(|iso3| self.get(iso3))
                    .collect(),
                note: Some(place.note.as_str()),
            };
        }
        if let Some(target) = self.by_key.get(&key) {
            return match target.entities.as_slice() {
                [entity_idx] => {
                    let entity = &self.entities[*entity_idx];
                    match entity.kind {
                        EntityKind::Country => PlaceMatch::Country(entity),
                        EntityKind::Aggregate => PlaceMatch::Aggregate(entity),
                    }
                }
                shared => PlaceMatch::Ambiguous {
                    candidates: shared
                        .iter()
                        .map(|entity_idx| &self.entities[*entity_idx])
                        .collect(),
                    note: None,
                },
            };
        }
        match self.outside_by_key.get(&key) {
            Some(&place_idx) => PlaceMatch::Outside(&self.places.outside[place_idx]),
            None => PlaceMatch::Unknown,
        }
    }

    /// The ambiguous names and places outside the registry knows.
    pub fn places(&self) -> &Places {
        &self.places
    }

    /// Resolves free text (`"Brasil"`, `"br"`, `"México"`, `"República Dominicana"`) to a **country**;
    /// aggregates and unknown or ambiguous text give `None`.
    pub fn resolve(&self, text: &str) -> Option<&Country> {
        self.resolve_entity(text)
            .filter(|entity| entity.kind == EntityKind::Country)
    }

    /// Resolves free text to a country or a comparison aggregate.
    pub fn resolve_entity(&self, text: &str) -> Option<&Country> {
        match self.lookup(text) {
            PlaceMatch::Country(entity) | PlaceMatch::Aggregate(entity) => Some(entity),
            _ => None,
        }
    }

    /// The entity with exactly this code (ISO3 or aggregate code, upper case).
    pub fn get(&self, iso3: &str) -> Option<&Country> {
        self.entities
            .binary_search_by(|entity| entity.iso3.as_str().cmp(iso3))
            .ok()
            .map(|entity_idx| &self.entities[entity_idx])
    }

    /// The countries, sorted by ISO3 (aggregates excluded).
    pub fn countries(&self) -> impl Iterator<Item = &Country> {
        self.entities
            .iter()
            .filter(|entity| entity.kind == EntityKind::Country)
    }

    /// The comparison aggregates, sorted by code.
    pub fn aggregates(&self) -> impl Iterator<Item = &Country> {
        self.entities
            .iter()
            .filter(|entity| entity.kind == EntityKind::Aggregate)
    }

    /// Every entity, countries and aggregates, sorted by code: the contents of `countries.json`.
    pub fn entities(&self) -> &[Country] {
        &self.entities
    }
}

fn insert_key(by_key: &mut HashMap<String, KeyTarget>, key: String, level: u8, entity_idx: usize) {
    if key.is_empty() {
        return;
    }
    let target = by_key.entry(key).or_insert(KeyTarget {
        level,
        entities: vec![entity_idx],
    });
    if level < target.level {
        *target = KeyTarget {
            level,
            entities: vec![entity_idx],
        };
    } else if level == target.level && !target.entities.contains(&entity_idx) {
        target.entities.push(entity_idx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(
        iso3: &str,
        iso2: &str,
        kind: EntityKind,
        en: &str,
        es: &str,
        aliases: &[&str],
    ) -> Country {
        Country {
            iso3: iso3.into(),
            iso2: iso2.into(),
            kind,
            names: Names {
                en: en.into(),
                es: Some(es.into()),
                pt: None,
            },
            aliases: aliases.iter().map(|alias| alias.to_string()).collect(),
            intermediate_region: None,
            income_group: None,
            sovereign: kind == EntityKind::Country,
            observations: 0,
        }
    }

    fn registry() -> CountryRegistry {
        CountryRegistry::new(vec![
            entity(
                "VIR",
                "VI",
                EntityKind::Country,
                "U.S. Virgin Islands",
                "Islas Vírgenes de EE.UU.",
                &["Virgin Islands"],
            ),
            entity(
                "VGB",
                "VG",
                EntityKind::Country,
                "British Virgin Islands",
                "Islas Vírgenes Británicas",
                &["Virgin Islands"],
            ),
            entity("BRA", "BR", EntityKind::Country, "Brazil", "Brasil", &[]),
            entity(
                "LCN",
                "ZJ",
                EntityKind::Aggregate,
                "Latin America & Caribbean",
                "América Latina y el Caribe",
                &[],
            ),
        ])
    }

    fn check(input: &str, expected: Option<&str>) {
        let registry = registry();
        assert_eq!(
            registry.resolve(input).map(|country| country.iso3.as_str()),
            expected,
            "resolve({input:?})"
        );
    }

    #[test]
    fn resolves_codes_names_and_aliases() {
        check("Brasil", Some("BRA"));
        check("br", Some("BRA"));
        check("bra", Some("BRA"));
        check("BRAZIL", Some("BRA"));
        check("islas virgenes britanicas", Some("VGB"));
    }

    #[test]
    fn ambiguous_aliases_and_aggregates_are_not_countries() {
        check("Virgin Islands", None);
        check("LCN", None);
        check("Narnia", None);
        assert_eq!(
            registry()
                .resolve_entity("lcn")
                .map(|entity| entity.iso3.as_str()),
            Some("LCN")
        );
        assert_eq!(registry().countries().count(), 3);
    }
}
