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
    /// Sum of their World Bank commitments, current US$ (nominal, summed over approval years), as the
    /// table gives it.
    pub commitment_usd: Option<f64>,
    /// The record's page: Wikidata for a statistics office, Govdirectory for a public body, the latest
    /// project's page for an implementing agency.
    pub url: String,
    /// When the table was made.
    pub retrieved_at: String,
}

crate::cited_record!(Institution, Institutions, name);
