//! The curated `regulation` dataset (`regulation.json`): climate laws and policies of the LAC countries, read
//! from Climate Change Laws of the World (LSE Grantham Research Institute, export 2021-01-30). A record is its
//! own citation: `citation_id` (`cclw-arg-law-25-019-declaring-a-national-interest`) and `url`.

use serde::{Deserialize, Serialize};

/// One law or policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Law {
    /// Citation id of the record: the source prefix, the country and the title's first words, lower case
    /// (`cclw-arg-law-25-019-declaring-a-national-interest`); `-2`, `-3` when two titles share those words.
    pub citation_id: String,
    /// Source id of the catalog (`cclw_laws`).
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
    /// Title as published.
    pub title: String,
    /// ISO 3166-1 alpha-3 of the country.
    pub country: String,
    /// `legislative` (passed by a legislature) or `executive` (a policy, decree or plan of the government).
    pub kind: String,
    /// Document types as published (`Law`, `Decree`, `Policy`, `Strategy`, `Plan`).
    pub document_types: Vec<String>,
    /// Date of the first event (passed, approved), `YYYY-MM-DD`, when published.
    pub date: Option<String>,
    /// Date of the last event (amended, repealed), `YYYY-MM-DD`, when published.
    pub last_event_date: Option<String>,
    /// Every dated event of the record, oldest first.
    pub events: Vec<LawEvent>,
    /// Sectors as published (`Energy`, `LULUCF`).
    pub sectors: Vec<String>,
    /// Responses as published (`Mitigation`, `Adaptation`, `Disaster Risk Management`).
    pub responses: Vec<String>,
    /// Pillar ids the sectors map to (reviewed mapping), sorted, unique.
    pub pillars: Vec<String>,
    /// Summary as published (HTML tags stripped by the extract).
    pub description: String,
    /// The first document link of the record as published (the export's links may have moved since 2021),
    /// else the database's home page.
    pub url: String,
    /// When the export was made (`2021-01-30`).
    pub retrieved_at: String,
}

/// One dated event of a law or policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct LawEvent {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// As published (`Law passed`, `Amended`).
    pub label: String,
}

crate::cited_record!(Law, Regulation, title);
