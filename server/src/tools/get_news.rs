//! `get_news`: the recent events of a pillar in a country, newest first, from the curated `events`
//! dataset: World Bank project approvals and closings, laws passed and policies adopted or amended (Climate
//! Change Laws of the World), significant earthquakes (NOAA NCEI) and source releases. Dated items made from
//! the corpus' own records, never press news; each item's `id` is its citation id, which
//! `resolve_citations` resolves.
//!
//! An event matches when it bears on the pillar and happened in the country; a data release matches the
//! countries its source has observations of; asked for laws (`kind` law_passed, policy_adopted,
//! law_amended), a country's laws match whatever pillars they map to. The country's own events come
//! first, newest first, then the data releases, one item per publisher and day. A multi-country project matches no country. When nothing matches, the answer says so and names
//! what the corpus holds nearby: the country's events in other pillars, and the pillar's in other countries.

use std::collections::BTreeMap;

use corpus::{CitedRecord, Event, Lang, RecordDataset};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec, arguments,
    display::{self, SourceLink},
};
use crate::load::Corpus;

/// The most items one answer lists.
pub const MAX_LIMIT: u32 = 20;

/// Bytes of `structuredContent` an answer stays under: items stop being added before it (the first
/// always fits), and `next_offset` points past the last one shown.
pub const ANSWER_BYTES: usize = 22 * 1024;

/// Nearby alternatives named when nothing matches, per kind.
const NEARBY: usize = 4;

/// The event kinds, for the `kind` filter.
pub const KINDS: [&str; 7] = [
    "project_approved",
    "project_closed",
    "law_passed",
    "policy_adopted",
    "law_amended",
    "earthquake",
    "data_release",
];

/// The datasets it reads.
const DATASETS: [&str; 1] = [RecordDataset::Events.id()];

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_news",
        "Recent events of a pillar in a country",
        "Dated events of a pillar (`parameter`) in a `country`, newest first, from the corpus' \
         records (not press): World Bank approvals and closings, climate laws and policies \
         (CCLW, to 2020), significant earthquakes (NOAA, to 2023), then data releases; each with \
         its citation id, date, kind, title, why it matters and link. A law `kind` lists every \
         law of the country. `offset` pages; nothing found names nearby events.",
        &DATASETS,
        handle,
    )
    .paged(10)
}

/// Arguments of `get_news`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetNewsInput {
    /// Pillar (id or name).
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub parameter: String,
    /// Country (ISO3 or name).
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub country: String,
    /// Only this kind: project_approved, project_closed, law_passed, policy_adopted, law_amended,
    /// earthquake, data_release.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    pub kind: Option<String>,
    /// Items, 1-20 (default 10).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 20), extend("default" = 10))]
    #[schemars(description = "")]
    pub limit: Option<u32>,
    /// Items to skip (`next_offset`).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 0), extend("default" = 0))]
    #[schemars(description = "")]
    pub offset: Option<u32>,
}

/// The events.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GetNewsResult {
    /// ISO3 of the country.
    pub country: String,
    /// Pillar id.
    pub pillar: String,
    /// Events matching, beyond the page too.
    pub total: usize,
    /// The newest `limit` of them after `offset`.
    pub items: Vec<NewsItem>,
    /// The `offset` of the next page, when more items match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// What the items are (and are not), and when nothing matched, why.
    pub note: String,
    /// When nothing matched: the country's events in other pillars and the pillar's in other countries,
    /// with counts and the newest date.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nearby: Vec<Nearby>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// One event.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NewsItem {
    /// The event's citation id (`event-wbproj-p127837-approved`), resolvable by `resolve_citations`.
    pub id: String,
    /// `YYYY-MM-DD` (`YYYY-MM` or `YYYY` when the source has no day).
    pub date: String,
    /// What happened.
    pub kind: String,
    /// One sentence from the record.
    pub title: String,
    /// Why it matters to its pillars, from the record's fields.
    pub why: String,
    /// The record it was made from (a project's or law's citation id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_id: Option<String>,
    /// Magnitude of an earthquake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub magnitude: Option<f64>,
    /// Deaths of an earthquake (NCEI totals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deaths: Option<f64>,
    /// A project's commitment or grant, current US$.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_usd: Option<f64>,
    /// The record's page.
    pub url: String,
    /// A data release of several datasets by one publisher on one day: the other releases' event ids
    /// (each cited), listed once as this item.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

/// Events the corpus holds near an empty query.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Nearby {
    /// ISO3.
    pub country: String,
    /// Pillar id.
    pub pillar: String,
    /// Events of that country and pillar.
    pub events: usize,
    /// The newest one's date.
    pub newest: String,
}

/// Whether `event` happened in `iso3` (a data release: whether the source has observations of it).
fn in_country(event: &Event, iso3: &str) -> bool {
    event.countries.iter().any(|code| code == iso3)
}

fn handle(
    corpus: &Corpus,
    input: GetNewsInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, GetNewsResult>, ToolError> {
    let limit = input.limit.unwrap_or(10);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ToolError::Invalid(format!(
            "limit {limit}: give 1 to {MAX_LIMIT}"
        )));
    }
    let pillar = arguments::pillar(corpus, &input.parameter)?;
    let country = arguments::optional_country(corpus, Some(&input.country))?
        .expect("a given country resolves or errs");
    let asked_kind = input
        .kind
        .as_deref()
        .map(|kind| kind.trim().to_ascii_lowercase());
    // Any case: `EARTHQUAKE` is `earthquake`.
    let kind = match asked_kind.as_deref() {
        None | Some("") => None,
        Some(asked) => Some(
            KINDS
                .iter()
                .copied()
                .find(|known| *known == asked)
                .ok_or_else(|| {
                    ToolError::Invalid(format!(
                        "kind `{}`: give one of {}",
                        arguments::snippet(asked),
                        KINDS.join(", ")
                    ))
                })?,
        ),
    };
    let events = &corpus.events().map_err(ToolError::Internal)?.records;
    let (iso3, pillar_id) = (country.iso3.as_str(), pillar.id.as_str());
    // Asked for laws, a country's laws whatever pillars their sectors map to.
    let any_pillar = kind.is_some_and(|kind| LAW_KINDS.contains(&kind));
    let matching: Vec<&Event> = events
        .iter()
        .filter(|event| {
            in_country(event, iso3)
                && (any_pillar || event.pillars.iter().any(|of| of == pillar_id))
                && kind.is_none_or(|kind| event.kind == kind)
        })
        .collect();
    let matching = news_first(matching);
    let offset = input.offset.unwrap_or(0) as usize;
    let mut shown: Vec<&[&Event]> = Vec::new();
    let mut records: Vec<corpus::RecordCitation> = Vec::new();
    let mut bytes = 1024;
    for group in matching.iter().skip(offset).take(limit as usize) {
        // The item, its citation records and the records they were made from all travel.
        let mut cited: Vec<corpus::RecordCitation> = Vec::new();
        for event in group {
            cited.push(event.citation());
            if let Some(record) = event
                .record_id
                .as_deref()
                .and_then(|id| corpus.record_citation(id))
                .filter(|record| {
                    !records
                        .iter()
                        .chain(&cited)
                        .any(|known| known.citation_id == record.citation_id)
                })
            {
                cited.push(record);
            }
        }
        let size = serde_json::to_string(&group_item(group, lang)).map_or(0, |text| text.len())
            + cited
                .iter()
                .map(|record| serde_json::to_string(record).map_or(0, |text| text.len()))
                .sum::<usize>();
        if !shown.is_empty() && bytes + size > ANSWER_BYTES {
            break;
        }
        bytes += size;
        shown.push(group);
        records.extend(cited);
    }
    let next_offset = (offset + shown.len() < matching.len()).then_some(offset + shown.len());
    let nearby = if matching.is_empty() {
        nearby(events, iso3, pillar_id, kind)
    } else {
        Vec::new()
    };
    let note = note(
        matching
            .iter()
            .flatten()
            .map(|event| event.date.as_str())
            .max(),
        kind,
        pillar_id,
        iso3,
        !nearby.is_empty(),
    );
    let note = if matching.is_empty() || !shown.is_empty() {
        note
    } else {
        format!(
            "{note} offset {offset} is past the last of the {} items; give 0 to {}.",
            matching.len(),
            matching.len() - 1
        )
    };
    let items = shown.iter().map(|group| group_item(group, lang)).collect();
    Ok(ToolAnswer {
        result: GetNewsResult {
            country: iso3.to_string(),
            pillar: pillar_id.to_string(),
            total: matching.len(),
            items,
            next_offset,
            note,
            nearby,
            sources: vec![display::source_link(
                corpus,
                RecordDataset::Events.id(),
                None,
            )],
        },
        citations: Vec::new(),
        display: None,
        records,
    })
}

/// The answer's note (addressed to the agent, so in English like every note): what the items are (and
/// are not), how far the sources run, and when nothing matched, what was asked and where `nearby` is.
fn note(
    newest: Option<&str>,
    kind: Option<&str>,
    pillar: &str,
    iso3: &str,
    nearby: bool,
) -> String {
    let what = "Dated items made from the corpus' records (project approvals and closings, laws and policies, \
                significant earthquakes, data releases), not press news";
    let asked = kind.map_or_else(String::new, |kind| format!(" {kind}"));
    let near = if nearby {
        "; `nearby` lists what it holds"
    } else {
        "; it holds none of that kind nearby either"
    };
    match newest {
        Some(newest) => format!(
            "{what}. The newest is of {newest}; laws run to 2020 and earthquakes to June 2023 (the sources' last exports)."
        ),
        None => format!(
            "The corpus holds no{asked} event of the pillar {pillar} in {iso3}. {what}{near}."
        ),
    }
}

/// The kinds of a law or policy record (Climate Change Laws of the World).
pub const LAW_KINDS: [&str; 3] = ["law_passed", "policy_adopted", "law_amended"];

/// The kind of the corpus' own data releases.
const DATA_RELEASE: &str = "data_release";

/// `matching` (newest first) as the answer lists it: the country's own events first, newest first, then
/// the corpus' data releases, one item per publisher and day (a publisher releasing three datasets at
/// once is one release).
fn news_first(matching: Vec<&Event>) -> Vec<Vec<&Event>> {
    let (releases, own): (Vec<&Event>, Vec<&Event>) = matching
        .into_iter()
        .partition(|event| event.kind == DATA_RELEASE);
    let mut groups: Vec<Vec<&Event>> = own.into_iter().map(|event| vec![event]).collect();
    let mut release_groups: Vec<Vec<&Event>> = Vec::new();
    for event in releases {
        let publisher = publisher_of(event);
        match release_groups
            .iter_mut()
            .find(|group| group[0].date == event.date && publisher_of(group[0]) == publisher)
        {
            Some(group) => group.push(event),
            None => release_groups.push(vec![event]),
        }
    }
    groups.extend(release_groups);
    groups
}

/// The publisher a data release's title names (the words before its first `:`).
fn publisher_of(event: &Event) -> &str {
    event.title.split(':').next().unwrap_or(&event.title)
}

/// A group of events as one item: the first's, with the others' ids in `also` and their count said.
fn group_item(group: &[&Event], lang: Lang) -> NewsItem {
    let mut first = item(group[0], lang);
    if group.len() > 1 {
        first.title = format!(
            "{} (+{} more of the same release)",
            first.title,
            group.len() - 1
        );
        first.also = group[1..]
            .iter()
            .map(|event| event.citation_id.clone())
            .collect();
    }
    first
}

/// An event as the answer lists it, its prose in `lang`.
fn item(event: &Event, lang: Lang) -> NewsItem {
    NewsItem {
        id: event.citation_id.clone(),
        date: event.date.clone(),
        kind: event.kind.clone(),
        title: event.title_in(lang).to_string(),
        why: event.why_in(lang).to_string(),
        record_id: event.record_id.clone(),
        magnitude: event.magnitude,
        deaths: event.deaths,
        amount_usd: event.amount_usd,
        url: event.url.clone(),
        also: Vec::new(),
    }
}

/// The country's events in other pillars and the pillar's events in other countries (of `kind` only, when
/// asked), the most first.
fn nearby(events: &[Event], iso3: &str, pillar: &str, kind: Option<&str>) -> Vec<Nearby> {
    let mut counts: BTreeMap<(String, String), (usize, String)> = BTreeMap::new();
    for event in events
        .iter()
        .filter(|event| kind.is_none_or(|kind| event.kind == kind))
    {
        let here = event.countries.iter().any(|code| code == iso3);
        for of in &event.pillars {
            let keys: Vec<(String, String)> = if here && of != pillar {
                vec![(iso3.to_string(), of.clone())]
            } else if !here && of == pillar {
                event
                    .countries
                    .iter()
                    .map(|code| (code.clone(), of.clone()))
                    .collect()
            } else {
                Vec::new()
            };
            for key in keys {
                let entry = counts.entry(key).or_insert((0, String::new()));
                entry.0 += 1;
                if event.date > entry.1 {
                    entry.1 = event.date.clone();
                }
            }
        }
    }
    let mut in_country: Vec<Nearby> = Vec::new();
    let mut in_pillar: Vec<Nearby> = Vec::new();
    for ((country, of), (events, newest)) in counts {
        let item = Nearby {
            country: country.clone(),
            pillar: of,
            events,
            newest,
        };
        if country == iso3 {
            in_country.push(item);
        } else {
            in_pillar.push(item);
        }
    }
    for list in [&mut in_country, &mut in_pillar] {
        list.sort_by(|left, right| {
            right
                .events
                .cmp(&left.events)
                .then(left.country.cmp(&right.country))
        });
        list.truncate(NEARBY);
    }
    in_country.extend(in_pillar);
    in_country
}
