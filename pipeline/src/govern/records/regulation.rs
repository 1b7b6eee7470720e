//! The `regulation` dataset: the laws and policies of Climate Change Laws of the World
//! (`data/curated/cclw_laws.toml`), one [`corpus::Law`] per row.
//!
//! - **Key**: country and title. A second raw row of the same key is refused; a row of the steward's
//!   override file with that key replaces the raw record.
//! - **Records refused**: a country that is not a LAC country of the registry, no title, a type other than
//!   `legislative` or `executive`.
//! - **Fields left empty** (and listed): a first or last event date that is not `YYYY-MM-DD`; an event of
//!   `events_parsed` without a valid date is skipped.
//! - **Pillars**: each sector through the reviewed mapping (`data/curated/cclw_sector_pillars.csv`).
//! - **Link**: the first `https` document link of the record, else the database's home page.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

use corpus::{CountryRegistry, CuratedReport, Law, LawEvent};
use serde::Deserialize;

use super::{
    UniqueIds, finish, lac_country, list, read_rows, refuse, report, slug, source_mapping, text,
};
use crate::{
    BakeError,
    sources::curated::{RecordSource, is_iso_date},
};

/// The law types of the export.
pub const KINDS: [&str; 2] = ["legislative", "executive"];

/// Words of the title kept in a citation id.
const ID_WORDS: usize = 8;

/// One row of the export (the columns read).
#[derive(Debug, Clone, Deserialize)]
struct RawLaw {
    iso3: String,
    title: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    document_types: Option<String>,
    first_event_date: Option<String>,
    last_event_date: Option<String>,
    events_parsed: Option<String>,
    responses: Option<String>,
    sectors: Option<String>,
    description: Option<String>,
    documents_raw: Option<String>,
}

/// Reads and validates the laws of `source`, sorted by country, date and title.
///
/// # Errors
/// [`BakeError::Io`] if the table or the mapping cannot be read; [`BakeError::Catalog`] for a bad mapping.
pub fn laws(
    source: &RecordSource,
    catalog_dir: &Path,
    sources_dir: &Path,
    pillar_ids: &[&str],
    countries: &CountryRegistry,
) -> Result<(Vec<Law>, CuratedReport), BakeError> {
    let mapping = source_mapping(source, catalog_dir, &["sector"], pillar_ids)?;
    let mut report = report(corpus::RecordDataset::Regulation, &source.id);
    let raw_label = source.file_label();
    let mut by_key: BTreeMap<(String, String), Law> = BTreeMap::new();
    let mut unmapped = BTreeSet::new();
    for (file, line, row) in read_rows::<RawLaw>(source, catalog_dir, sources_dir, &mut report)? {
        let iso3 = row.iso3.trim().to_string();
        if let Err(reason) = lac_country(countries, &iso3) {
            let reason = format!("record dropped: {reason}");
            refuse(&mut report, &file, line, "iso3", reason);
            continue;
        }
        let Some(title) = text(&row.title) else {
            refuse(
                &mut report,
                &file,
                line,
                "title",
                "record dropped: no title".into(),
            );
            continue;
        };
        let kind = text(&row.kind).unwrap_or_default();
        if !KINDS.contains(&kind.as_str()) {
            refuse(
                &mut report,
                &file,
                line,
                "type",
                format!("record dropped: type `{kind}`; valid: {}", KINDS.join(", ")),
            );
            continue;
        }
        let key = (iso3.clone(), title.clone());
        let replaces = by_key.contains_key(&key);
        if replaces && file == raw_label {
            refuse(
                &mut report,
                &file,
                line,
                "title",
                format!("record dropped: a second row of {iso3} `{title}` (the first is kept)"),
            );
            continue;
        }
        if file != raw_label {
            report.overrides += 1;
        }
        let mut date_field = |field: &str, value: &Option<String>| match text(value) {
            Some(date) if is_iso_date(&date) => Some(date),
            Some(other) => {
                refuse(
                    &mut report,
                    &file,
                    line,
                    field,
                    format!("field left empty: `{other}` is not a date YYYY-MM-DD"),
                );
                None
            }
            None => None,
        };
        let date = date_field("first_event_date", &row.first_event_date);
        let last_event_date = date_field("last_event_date", &row.last_event_date);
        let events = list(&row.events_parsed, ';')
            .into_iter()
            .filter_map(|event| {
                let (date, label) = event.split_once(' ')?;
                is_iso_date(date).then(|| LawEvent {
                    date: date.to_string(),
                    label: label.trim().to_string(),
                })
            })
            .collect();
        let sectors = list(&row.sectors, ',');
        let pillars = super::pillars_of(&mapping, "sector", &sectors, &mut unmapped);
        let url = list(&row.documents_raw, ';')
            .iter()
            .filter_map(|document| document.split('|').nth(1))
            .find(|url| url.starts_with("https://"))
            .map_or_else(|| source.homepage.clone(), str::to_string);
        by_key.insert(
            key,
            Law {
                citation_id: String::new(),
                source: source.id.clone(),
                publisher: source.publisher.clone(),
                license: source.license.clone(),
                attribution: source.attribution.clone(),
                title,
                country: iso3,
                kind,
                document_types: list(&row.document_types, ','),
                date,
                last_event_date,
                events,
                sectors,
                responses: list(&row.responses, ','),
                pillars: pillars.into_iter().collect(),
                description: text(&row.description).unwrap_or_default(),
                url,
                retrieved_at: source.retrieved_at.clone(),
            },
        );
    }
    // Ids in key order, so they do not depend on the rows' order.
    let mut ids = UniqueIds::default();
    let mut laws: Vec<Law> = by_key
        .into_values()
        .map(|mut law| {
            law.citation_id = ids.next(format!(
                "{}-{}-{}",
                source.citation_prefix,
                law.country.to_lowercase(),
                slug(&law.title, ID_WORDS)
            ));
            law
        })
        .collect();
    laws.sort_by(|left, right| {
        (&left.country, &left.date, &left.title).cmp(&(&right.country, &right.date, &right.title))
    });
    finish(&mut report, laws.len(), unmapped);
    Ok((laws, report))
}
