//! The `events` dataset ([`corpus::Event`], what `get_news` serves): dated items made from the corpus' own
//! records, newest first. Never press news: each says which record it comes from.
//!
//! - A project's board approval (`project_approved`, only for an Active or Closed project: a Pipeline
//!   project's date is a planned approval, a Dropped one was never approved) and its closing
//!   (`project_closed`, only when its status is Closed).
//! - A law's or policy's first event (`law_passed` for a legislative act, `policy_adopted` for an executive
//!   one) and each later event (`law_amended`, with the label as published).
//! - A significant earthquake of the NCEI database (`data/curated/ncei_earthquakes.toml`). Its pillars:
//!   `medio_ambiente` (a natural hazard), `salud` when it killed or injured, `infraestructura` when it
//!   destroyed or damaged houses or caused damage. Tolls are NCEI's totals (with the tsunamis and landslides
//!   it caused), else the quake's own figure where no total was compiled. Rows refused: no country, a year
//!   that is not a number; a month or day out of range is left out of the date.
//! - A source's vintage entering the corpus (`data_release`), dated by its retrieval, with its indicators'
//!   pillars and the countries it has observations of.

use std::{collections::BTreeSet, path::Path};

use corpus::{CountryRegistry, CuratedReport, Event, Law, Metric, Project, SourceRecord};
use serde::Deserialize;

use super::{UniqueIds, finish, list, read_rows, refuse, report, text};
use crate::{BakeError, sources::curated::RecordSource};

/// One row of the NCEI extract (the columns read).
#[derive(Debug, Clone, Deserialize)]
struct RawEarthquake {
    iso3: Option<String>,
    #[serde(rename = "Year")]
    year: String,
    #[serde(rename = "Mo")]
    month: Option<String>,
    #[serde(rename = "Dy")]
    day: Option<String>,
    #[serde(rename = "Location Name")]
    location: Option<String>,
    #[serde(rename = "Mag")]
    magnitude: Option<String>,
    #[serde(rename = "Deaths")]
    quake_deaths: Option<String>,
    #[serde(rename = "Injuries")]
    quake_injuries: Option<String>,
    #[serde(rename = "Damage ($Mil)")]
    quake_damage_usd_mn: Option<String>,
    #[serde(rename = "Houses Destroyed")]
    quake_houses_destroyed: Option<String>,
    #[serde(rename = "Houses Damaged")]
    quake_houses_damaged: Option<String>,
    #[serde(rename = "Total Deaths")]
    deaths: Option<String>,
    #[serde(rename = "Total Injuries")]
    injuries: Option<String>,
    #[serde(rename = "Total Damage ($Mil)")]
    damage_usd_mn: Option<String>,
    #[serde(rename = "Total Houses Destroyed")]
    houses_destroyed: Option<String>,
    #[serde(rename = "Total Houses Damaged")]
    houses_damaged: Option<String>,
}

/// The significant earthquakes of `source`.
///
/// # Errors
/// [`BakeError::Io`] if the table cannot be read.
pub fn earthquakes(
    source: &RecordSource,
    catalog_dir: &Path,
    sources_dir: &Path,
    countries: &CountryRegistry,
) -> Result<(Vec<Event>, CuratedReport), BakeError> {
    let mut report = report("events", &source.id);
    let mut ids = UniqueIds::default();
    let mut events = Vec::new();
    for (file, line, row) in
        read_rows::<RawEarthquake>(source, catalog_dir, sources_dir, &mut report)?
    {
        let codes = list(&row.iso3, '|');
        let unknown: Vec<&String> = codes
            .iter()
            .filter(|code| countries.get(code).is_none())
            .collect();
        if codes.is_empty() || !unknown.is_empty() {
            refuse(
                &mut report,
                &file,
                line,
                "iso3",
                format!(
                    "record dropped: `{}` is not a list of LAC ISO3 codes",
                    row.iso3.clone().unwrap_or_default()
                ),
            );
            continue;
        }
        let Ok(year) = row.year.trim().parse::<i32>() else {
            refuse(
                &mut report,
                &file,
                line,
                "Year",
                format!("record dropped: `{}` is not a year", row.year),
            );
            continue;
        };
        let part = |cell: &Option<String>,
                    field: &str,
                    max: u32,
                    report: &mut CuratedReport|
         -> Option<u32> {
            let value = text(cell)?;
            match value.parse::<u32>() {
                Ok(number) if (1..=max).contains(&number) => Some(number),
                _ => {
                    refuse(
                        report,
                        &file,
                        line,
                        field,
                        format!("field left empty: `{value}` is not 1-{max}"),
                    );
                    None
                }
            }
        };
        let month = part(&row.month, "Mo", 12, &mut report);
        let day = month.and_then(|_| part(&row.day, "Dy", 31, &mut report));
        let date = match (month, day) {
            (Some(month), Some(day)) => format!("{year:04}-{month:02}-{day:02}"),
            (Some(month), None) => format!("{year:04}-{month:02}"),
            _ => format!("{year:04}"),
        };
        let number = |cell: &Option<String>| {
            text(cell)
                .and_then(|value| value.parse::<f64>().ok())
                .filter(|value| value.is_finite() && *value >= 0.0)
        };
        // The totals include secondary effects; where NCEI compiled none, the quake's own figure stands.
        let total =
            |total: &Option<String>, own: &Option<String>| number(total).or_else(|| number(own));
        let magnitude = number(&row.magnitude);
        let deaths = total(&row.deaths, &row.quake_deaths);
        let injuries = total(&row.injuries, &row.quake_injuries);
        let damage_usd_mn = total(&row.damage_usd_mn, &row.quake_damage_usd_mn);
        let houses_destroyed = total(&row.houses_destroyed, &row.quake_houses_destroyed);
        let houses_damaged = total(&row.houses_damaged, &row.quake_houses_damaged);
        let mut pillars = BTreeSet::from(["medio_ambiente".to_string()]);
        if deaths.is_some_and(|n| n > 0.0) || injuries.is_some_and(|n| n > 0.0) {
            pillars.insert("salud".into());
        }
        if [damage_usd_mn, houses_destroyed, houses_damaged]
            .iter()
            .any(|value| value.is_some_and(|n| n > 0.0))
        {
            pillars.insert("infraestructura".into());
        }
        let location = text(&row.location)
            .map(|location| location.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|| codes.join(", "));
        let mut facts = Vec::new();
        for (value, what) in [
            (deaths, "deaths"),
            (injuries, "injured"),
            (houses_destroyed, "houses destroyed"),
            (houses_damaged, "houses damaged"),
        ] {
            if let Some(value) = value {
                facts.push(format!("{} {what}", thousands(value)));
            }
        }
        if let Some(damage) = damage_usd_mn {
            facts.push(format!("US${} million of damage", millions(damage)));
        }
        let title = match magnitude {
            Some(magnitude) => format!("M{magnitude} earthquake: {location}"),
            None => format!("Earthquake: {location}"),
        };
        let why = if facts.is_empty() {
            "A significant earthquake (NCEI criteria: deaths, damage of about US$1 million or more, M7.5 or more, MMI X or more, or a tsunami); no toll recorded.".to_string()
        } else {
            format!(
                "{} (NCEI: totals including the tsunamis and landslides it caused, else the quake's own).",
                facts.join(", ")
            )
        };
        let mut sorted = codes.clone();
        sorted.sort();
        events.push(Event {
            citation_id: ids.next(format!(
                "{}-{date}-{}",
                source.citation_prefix,
                sorted.join("-").to_lowercase()
            )),
            date,
            countries: sorted,
            kind: "earthquake".into(),
            title,
            why,
            pillars: pillars.into_iter().collect(),
            record_id: None,
            magnitude,
            deaths,
            damage_usd_mn,
            houses_destroyed,
            amount_usd: None,
            source: source.id.clone(),
            publisher: source.publisher.clone(),
            license: source.license.clone(),
            attribution: source.attribution.clone(),
            url: source.homepage.clone(),
            retrieved_at: source.retrieved_at.clone(),
        });
    }
    finish(&mut report, events.len(), BTreeSet::new());
    Ok((events, report))
}

/// `12345` as `12,345`.
fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value);
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// An amount in millions for a sentence: grouped thousands, one decimal below 100 (`5.2`, `3,300`).
fn millions(value: f64) -> String {
    if value < 100.0 {
        let text = format!("{value:.1}");
        text.strip_suffix(".0").map_or(text.clone(), str::to_string)
    } else {
        thousands(value)
    }
}

/// An event made from a record, with the record's provenance.
struct FromRecord<'a> {
    source: &'a str,
    publisher: &'a str,
    license: &'a str,
    attribution: &'a str,
    url: &'a str,
    retrieved_at: &'a str,
}

impl FromRecord<'_> {
    fn event(
        &self,
        citation_id: String,
        date: String,
        kind: &str,
        title: String,
        why: String,
    ) -> Event {
        Event {
            citation_id,
            date,
            countries: Vec::new(),
            kind: kind.into(),
            title,
            why,
            pillars: Vec::new(),
            record_id: None,
            magnitude: None,
            deaths: None,
            damage_usd_mn: None,
            houses_destroyed: None,
            amount_usd: None,
            source: self.source.into(),
            publisher: self.publisher.into(),
            license: self.license.into(),
            attribution: self.attribution.into(),
            url: self.url.into(),
            retrieved_at: self.retrieved_at.into(),
        }
    }
}

/// The approvals and closings of the projects.
pub fn project_events(projects: &[Project]) -> Vec<Event> {
    let mut events = Vec::new();
    for project in projects {
        let from = FromRecord {
            source: &project.source,
            publisher: &project.publisher,
            license: &project.license,
            attribution: &project.attribution,
            url: &project.url,
            retrieved_at: &project.retrieved_at,
        };
        let sectors = if project.sectors.is_empty() {
            String::new()
        } else {
            format!(" Sectors: {}.", project.sectors.join(", "))
        };
        let amount = project.commitment_usd.or(project.grant_usd);
        let money = amount.map_or_else(String::new, |amount| {
            format!(", US${} million", millions(amount / 1e6))
        });
        let milestones = [
            matches!(project.status.as_str(), "Active" | "Closed")
                .then_some(project.approval_date.as_ref())
                .flatten()
                .map(|date| (date, "approved", "project_approved")),
            (project.status == "Closed")
                .then_some(project.closing_date.as_ref())
                .flatten()
                .map(|date| (date, "closed", "project_closed")),
        ];
        for (date, verb, kind) in milestones.into_iter().flatten() {
            let mut event = from.event(
                format!("event-{}-{verb}", project.citation_id),
                date.clone(),
                kind,
                format!(
                    "{} {verb} {}: {}{money}",
                    project.publisher, project.id, project.title
                ),
                format!(
                    "A project of the pillars {} in {}.{sectors}",
                    pillar_list(&project.pillars),
                    project.location
                ),
            );
            event.countries = project.country.iter().cloned().collect();
            event.pillars = project.pillars.clone();
            event.record_id = Some(project.citation_id.clone());
            event.amount_usd = amount;
            events.push(event);
        }
    }
    events
}

/// The pillars as a list for a sentence, or `no pillar`.
fn pillar_list(pillars: &[String]) -> String {
    if pillars.is_empty() {
        "(none mapped)".into()
    } else {
        pillars.join(", ")
    }
}

/// The events of the laws and policies.
pub fn law_events(laws: &[Law]) -> Vec<Event> {
    let mut events = Vec::new();
    for law in laws {
        let from = FromRecord {
            source: &law.source,
            publisher: &law.publisher,
            license: &law.license,
            attribution: &law.attribution,
            url: &law.url,
            retrieved_at: &law.retrieved_at,
        };
        let mut ids = UniqueIds::default();
        let why = format!(
            "{} {} of the pillars {}; sectors: {}; responses: {}.",
            if law.kind == "executive" {
                "An executive"
            } else {
                "A legislative"
            },
            law.document_types
                .first()
                .map_or("text", String::as_str)
                .to_lowercase(),
            pillar_list(&law.pillars),
            if law.sectors.is_empty() {
                "none listed".to_string()
            } else {
                law.sectors.join(", ")
            },
            if law.responses.is_empty() {
                "none listed".to_string()
            } else {
                law.responses.join(", ")
            },
        );
        for (index, event) in law.events.iter().enumerate() {
            let kind = match (index, law.kind.as_str()) {
                (0, "legislative") => "law_passed",
                (0, _) => "policy_adopted",
                _ => "law_amended",
            };
            let mut item = from.event(
                ids.next(format!("event-{}-{}", law.citation_id, event.date)),
                event.date.clone(),
                kind,
                format!("{}: {} ({})", event.label, law.title, law.country),
                why.clone(),
            );
            item.countries = vec![law.country.clone()];
            item.pillars = law.pillars.clone();
            item.record_id = Some(law.citation_id.clone());
            events.push(item);
        }
    }
    events
}

/// One release event per source: its vintage, dated by its retrieval, with its indicators' pillars and the
/// countries it has observations of (`source_countries`, by source id).
pub fn release_events(
    sources: &[SourceRecord],
    metrics: &[Metric],
    source_countries: &std::collections::BTreeMap<String, BTreeSet<String>>,
) -> Vec<Event> {
    sources
        .iter()
        .filter_map(|source| {
            let indicators: Vec<&Metric> = metrics
                .iter()
                .filter(|metric| metric.source_id == source.id && metric.coverage.observations > 0)
                .collect();
            if indicators.is_empty() || !crate::sources::curated::is_iso_date(&source.retrieved_at)
            {
                return None;
            }
            let pillars: BTreeSet<String> = indicators
                .iter()
                .map(|metric| metric.pillar.clone())
                .collect();
            let pillars: Vec<String> = pillars.into_iter().collect();
            let from = FromRecord {
                source: &source.id,
                publisher: &source.publisher,
                license: &source.license,
                attribution: &source.attribution,
                url: &source.homepage,
                retrieved_at: &source.retrieved_at,
            };
            let mut event = from.event(
                format!(
                    "event-release-{}-{}",
                    source.id.replace('_', "-"),
                    super::slug(&source.vintage, 4)
                ),
                source.retrieved_at.clone(),
                "data_release",
                format!(
                    "{}: {} (release {}) in the corpus",
                    source.publisher, source.name, source.vintage
                ),
                format!(
                    "{} indicators of the pillars {} read from this release.",
                    indicators.len(),
                    pillars.join(", ")
                ),
            );
            event.pillars = pillars;
            event.countries = source_countries
                .get(&source.id)
                .map(|countries| countries.iter().cloned().collect())
                .unwrap_or_default();
            Some(event)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_are_grouped() {
        assert_eq!(super::thousands(1234567.0), "1,234,567");
        assert_eq!(super::thousands(687.0), "687");
        assert_eq!(super::millions(5.175), "5.2");
        assert_eq!(super::millions(50.0), "50");
        assert_eq!(super::millions(3300.0), "3,300");
    }
}
