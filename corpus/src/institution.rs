//! The curated `institutions` dataset (`institutions.json`): public bodies of the LAC countries and their
//! roles, read from three tables of `gov_institutions/`: national statistics offices and open-data portals
//! (agency registry, Wikidata, CC0), Govdirectory's public bodies (Wikidata, CC0) and the World Bank's
//! implementing agencies (derived from the World Bank project list, CC BY 4.0). Institutions only: no person
//! is named.

use serde::{Deserialize, Serialize};

/// One public body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Institution {
    /// Citation id: `nso-` and the registry id (`nso-ar-nso-indec`), `govdir-` and the Wikidata id
    /// (`govdir-q9149472`), or `wbagency-`, the country and a number in the table's order
    /// (`wbagency-arg-2`).
    pub citation_id: String,
    /// Source id of the catalog (`gov_nso_registry`, `govdirectory`, `wb_implementing_agencies`).
    pub source: String,
    /// Publisher.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub publisher: String,
    /// Licence id of the record.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub license: String,
    /// How the publisher asks to be credited.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub attribution: String,
    /// Name as published (English; a World Bank agency string may name several bodies).
    pub name: String,
    /// Spanish name, when published.
    pub name_es: Option<String>,
    /// Portuguese name, when published.
    pub name_pt: Option<String>,
    /// ISO 3166-1 alpha-3 of the country.
    pub country: String,
    /// `national_statistical_office`, `open_data_portal`, `public_body` or `implementing_agency`.
    pub role: String,
    /// The publisher's class of body (`ministry of Peru`, `province of Peru`), when published.
    pub kind: Option<String>,
    /// Official website, when published.
    pub website: Option<String>,
    /// Pillar ids the body acts on, sorted: every pillar for a statistics office; for an implementing agency
    /// the pillars of its projects; for another body the reviewed name keywords
    /// (`data/curated/institution_pillars.csv`); empty when none applies.
    pub pillars: Vec<String>,
    /// P-codes of the World Bank projects it implements (implementing agencies only), as published.
    pub projects: Vec<String>,
    /// Of those, how many are active.
    pub active_projects: u32,
    /// The IBRD + IDA commitments of those of its projects that were approved (Active, Closed), summed from
    /// the `projects` records, current US$ (nominal, over approval years): the sum of its projects, never
    /// the table's own total (which adds Pipeline projects and, in the newer export, grants).
    pub commitment_usd: Option<f64>,
    /// The grants of those projects summed, current US$.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_usd: Option<f64>,
    /// Other spellings of the same body in the source (`Ministerio de Finanzas Públicas, Guatemala` for
    /// `Ministry of Public Finance`), merged into this record: one record per body.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// The record's page: Wikidata for a statistics office, Govdirectory for a public body, the latest
    /// project's page for an implementing agency.
    pub url: String,
    /// When the table was made.
    pub retrieved_at: String,
}

crate::cited_record!(Institution, Institutions, name);

/// What identifies a body across the spellings of one source: its words (folded, translated to English
/// through a short glossary, without connecting words, the country's own name or word order) and the
/// acronym it gives in parentheses when it gives exactly one (`MINFIN`). Two names of one country are the
/// same body when their words are equal or their acronyms are: `Ministry of Public Finance`,
/// `Ministerio de Finanzas Públicas, Guatemala` and `Ministry of Public Finance Guatemala (MINFIN)` are one,
/// and `Ministry of Finance Guatemala (MINFIN)` joins them by its acronym. A name listing several bodies
/// (several acronyms, or more comma-separated parts than the other's: `Ministry of Environment, ANA,
/// Emergency Social Investment Fund (FISE)` is not `Emergency Social Investment Fund (FISE)`) joins only by
/// its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyKey {
    /// The name's words, folded, translated, sorted and unique, joined by spaces.
    pub words: String,
    /// The one parenthesised acronym, upper case.
    pub acronym: Option<String>,
    /// How many comma-separated parts name something (the country's name alone is not a part).
    pub parts: usize,
}

impl BodyKey {
    /// The key of `name` in a country named `country_names` (its names in any language; their words are
    /// dropped from the key).
    pub fn of(name: &str, country_names: &[&str]) -> BodyKey {
        let mut acronyms = Vec::new();
        let mut outside = String::with_capacity(name.len());
        let mut depth = 0usize;
        let mut inside = String::new();
        for character in name.chars() {
            match character {
                '(' => {
                    depth += 1;
                    inside.clear();
                }
                ')' if depth > 0 => {
                    depth -= 1;
                    let candidate = inside.trim();
                    if (2..=12).contains(&candidate.len())
                        && candidate
                            .chars()
                            .all(|letter| letter.is_ascii_uppercase() || letter == '-')
                    {
                        acronyms.push(candidate.to_string());
                    }
                    outside.push(' ');
                }
                _ if depth > 0 => inside.push(character),
                _ => outside.push(character),
            }
        }
        let country_words: Vec<String> = country_names
            .iter()
            .flat_map(|country| {
                crate::folding::fold(country)
                    .split(' ')
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut words: Vec<&str> = Vec::new();
        let mut parts = 0;
        let folded: Vec<String> = outside.split(',').map(crate::folding::fold).collect();
        for part in &folded {
            let before = words.len();
            for word in part.split(' ').filter(|word| !word.is_empty()) {
                if CONNECTING_WORDS.contains(&word) || country_words.iter().any(|own| own == word) {
                    continue;
                }
                let english = BODY_GLOSSARY
                    .iter()
                    .find(|(other, _)| *other == word)
                    .map_or(word, |(_, english)| *english);
                words.push(english);
            }
            parts += usize::from(words.len() > before);
        }
        words.sort_unstable();
        words.dedup();
        BodyKey {
            words: words.join(" "),
            acronym: (acronyms.len() == 1).then(|| acronyms.remove(0)),
            parts,
        }
    }

    /// Whether `self` and `other` name the same body (equal words, or the same acronym in names of as
    /// many parts).
    pub fn same_body(&self, other: &BodyKey) -> bool {
        (!self.words.is_empty() && self.words == other.words)
            || (self.parts == other.parts
                && self
                    .acronym
                    .as_ref()
                    .is_some_and(|acronym| other.acronym.as_ref() == Some(acronym)))
    }
}

/// Words that connect a body's name and say nothing of which body it is (en/es/pt, folded).
const CONNECTING_WORDS: [&str; 22] = [
    "of", "the", "and", "for", "de", "del", "la", "las", "los", "el", "y", "e", "do", "da", "dos",
    "das", "a", "en", "through", "national", "nacional", "republic",
];

/// Spanish and Portuguese words of body names and their English (folded): only what the World Bank's
/// own spellings of one body differ by.
const BODY_GLOSSARY: [(&str, &str); 33] = [
    ("ministerio", "ministry"),
    ("ministro", "ministry"),
    ("finanzas", "finance"),
    ("financas", "finance"),
    ("hacienda", "finance"),
    ("fazenda", "finance"),
    ("publicas", "public"),
    ("publica", "public"),
    ("publico", "public"),
    ("publicos", "public"),
    ("economia", "economy"),
    ("economic", "economy"),
    ("salud", "health"),
    ("saude", "health"),
    ("educacion", "education"),
    ("educacao", "education"),
    ("agricultura", "agriculture"),
    ("ambiente", "environment"),
    ("energia", "energy"),
    ("minas", "mines"),
    ("transportes", "transport"),
    ("transporte", "transport"),
    ("obras", "works"),
    ("vivienda", "housing"),
    ("desarrollo", "development"),
    ("trabajo", "labour"),
    ("labor", "labour"),
    ("comunicaciones", "communications"),
    ("infraestructura", "infrastructure"),
    ("secretaria", "secretariat"),
    ("instituto", "institute"),
    ("direccion", "directorate"),
    ("fondo", "fund"),
];

#[cfg(test)]
mod tests {
    use super::BodyKey;

    #[test]
    fn the_spellings_of_one_ministry_are_one_body_and_others_stay_apart() {
        let guatemala = ["Guatemala"];
        let key = |name: &str| BodyKey::of(name, &guatemala);
        let public_finance = key("Ministry of Public Finance");
        assert_eq!(public_finance.words, "finance ministry public");
        assert!(public_finance.same_body(&key("Ministerio de Finanzas Públicas, Guatemala")));
        let minfin = key("Ministry of Public Finance Guatemala (MINFIN)");
        assert!(public_finance.same_body(&minfin));
        assert!(minfin.same_body(&key("Ministry of Finance Guatemala (MINFIN)")));
        assert!(!public_finance.same_body(&key("Ministry of Finance Guatemala (MINFIN)")));
        assert!(!public_finance.same_body(&key(
            "Directorate of Public Credit, Ministry of Public Finance"
        )));
        assert!(
            key("Ministry of Economy").same_body(&key("Ministry of Economy Guatemala (MINECO)"))
        );
        // A name listing several bodies joins none by an acronym.
        let several = key("MINISTRY OF THE ECONOMY (MINECO), National Peace Fund (FONAPAZ)");
        assert_eq!(several.acronym, None);
        assert!(!several.same_body(&key("Ministry of Economy Guatemala (MINECO)")));
        assert!(!key("Ministry of Education").same_body(&key("Ministry of Economy")));
        assert!(
            !key("Emergency Social Investment Fund (FISE)").same_body(&key(
                "Ministry of Environment and Natural Resources, ANA, Emergency Social Investment Fund (FISE)"
            ))
        );
    }
}
