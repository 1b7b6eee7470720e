//! The curated `events` dataset (`events.json`, what `get_news` serves): dated items made from the corpus'
//! own records, never press news.
//!
//! - `project_approved`, `project_closed`: a project's board approval or closing date (`projects`).
//! - `law_passed`, `policy_adopted`: the first event of a law or policy, and `law_amended` for its later
//!   events (`regulation`).
//! - `earthquake`: a significant earthquake of the NOAA NCEI/WDS database (deaths, damage ≥ ~US$1 million,
//!   M ≥ 7.5, MMI ≥ X or a tsunami).
//! - `data_release`: a source's vintage entering the corpus.
//!
//! Each event is its own citation (`citation_id`); `record_id` names the record it was made from.

use serde::{Deserialize, Serialize};

/// One dated event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Event {
    /// Citation id: `event-` with the record id and what happened (`event-wbproj-p127837-approved`), or for
    /// an earthquake `ncei-eq-` with date and country (`ncei-eq-2016-04-16-ecu`).
    pub citation_id: String,
    /// `YYYY-MM-DD`, or `YYYY-MM` / `YYYY` when the source gives no day.
    pub date: String,
    /// ISO 3166-1 alpha-3 of the countries it happened in, sorted: one for a project or a law, one or more
    /// for an earthquake, the countries a released source has observations of, none for a multi-country
    /// project.
    pub countries: Vec<String>,
    /// What happened (see the module list).
    pub kind: String,
    /// One sentence from the record (`The World Bank approved P127837, …`).
    pub title: String,
    /// Why it matters to its pillars, from the record's own fields (sectors, deaths, damage).
    pub why: String,
    /// Pillar ids it bears on, sorted.
    pub pillars: Vec<String>,
    /// Citation id of the record it was made from (`wbproj-p127837`, a law's id), when there is one.
    pub record_id: Option<String>,
    /// Magnitude of an earthquake.
    pub magnitude: Option<f64>,
    /// Deaths, including secondary effects (tsunami, landslides), as NCEI compiled them.
    pub deaths: Option<f64>,
    /// Damage including secondary effects, US$ million of the event's time, when estimated.
    pub damage_usd_mn: Option<f64>,
    /// Houses destroyed, including secondary effects.
    pub houses_destroyed: Option<f64>,
    /// A project's commitment (or grant), current US$.
    pub amount_usd: Option<f64>,
    /// Source id of the catalog.
    pub source: String,
    /// Publisher.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub publisher: String,
    /// Licence id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub license: String,
    /// How the publisher asks to be credited.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub attribution: String,
    /// The record's page.
    pub url: String,
    /// When the source was retrieved.
    pub retrieved_at: String,
    /// `title` in Spanish (the same facts; the record's own names stay as published).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_es: Option<String>,
    /// `title` in Portuguese.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_pt: Option<String>,
    /// `why` in Spanish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_es: Option<String>,
    /// `why` in Portuguese.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_pt: Option<String>,
}

impl Event {
    /// `title` in `lang` (English when the bake wrote no translation).
    pub fn title_in(&self, lang: crate::Lang) -> &str {
        in_lang(&self.title, [&self.title_es, &self.title_pt], lang)
    }

    /// `why` in `lang` (English when the bake wrote no translation).
    pub fn why_in(&self, lang: crate::Lang) -> &str {
        in_lang(&self.why, [&self.why_es, &self.why_pt], lang)
    }
}

/// The text in `lang` of an English text and its Spanish and Portuguese translations.
fn in_lang<'a>(en: &'a str, [es, pt]: [&'a Option<String>; 2], lang: crate::Lang) -> &'a str {
    match lang {
        crate::Lang::Es => es.as_deref(),
        crate::Lang::Pt => pt.as_deref(),
        crate::Lang::En => None,
    }
    .unwrap_or(en)
}

crate::cited_record!(Event, Events, title);
