//! The `events` dataset ([`corpus::Event`], what `get_news` serves): dated items made from the corpus' own
//! records, newest first. Never press news: each says which record it comes from.
//!
//! - A project's board approval (`project_approved`, only for an Active or Closed project: a Pipeline
//!   project's date is a planned approval, a Dropped one was never approved) and its closing
//!   (`project_closed`, only when its status is Closed).
//! - A law's or policy's first event (`law_passed` for a legislative act, `policy_adopted` for an executive
//!   one), titled by the record's kind and first document type in es/en/pt (Ley aprobada, Decreto
//!   expedido, Estrategia adoptada…; the export labels most executive acts "Law passed"), and each later
//!   event (`law_amended`, with the label as published, an amendment named so in es/pt).
//! - A significant earthquake of the NCEI database (`data/curated/ncei_earthquakes.toml`). Its pillars:
//!   `medio_ambiente` (a natural hazard), `salud` when it killed or injured, `infraestructura` when it
//!   destroyed or damaged houses or caused damage. Tolls are NCEI's totals (with the tsunamis and landslides
//!   it caused), else the quake's own figure where no total was compiled. Rows refused: no country, a year
//!   that is not a number; a month or day out of range is left out of the date.
//! - A source's vintage entering the corpus (`data_release`), dated by its retrieval, with its indicators'
//!   pillars and the countries it has observations of.

use std::{collections::BTreeSet, path::Path};

use corpus::{
    CountryRegistry, CuratedReport, Event, Lang, Law, Metric, Pillar, Project, SourceRecord,
};
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
    let mut report = report(corpus::RecordDataset::Events, &source.id);
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
        let said = |lang: Lang| {
            let mut facts = Vec::new();
            for (value, what) in [
                (deaths, ["deaths", "muertes", "mortes"]),
                (injuries, ["injured", "heridos", "feridos"]),
                (
                    houses_destroyed,
                    [
                        "houses destroyed",
                        "viviendas destruidas",
                        "casas destruídas",
                    ],
                ),
                (
                    houses_damaged,
                    ["houses damaged", "viviendas dañadas", "casas danificadas"],
                ),
            ] {
                if let Some(value) = value {
                    facts.push(format!("{} {}", thousands(value), pick(lang, what)));
                }
            }
            if let Some(damage) = damage_usd_mn {
                let damage = millions(damage);
                facts.push(pick(
                    lang,
                    [
                        format!("US${damage} million of damage"),
                        format!("US${damage} millones en daños"),
                        format!("US${damage} milhões em danos"),
                    ],
                ));
            }

            let title = match magnitude {
                Some(magnitude) => pick(
                    lang,
                    [
                        format!("M{magnitude} earthquake: {location}"),
                        format!("Sismo de M{magnitude}: {location}"),
                        format!("Sismo de M{magnitude}: {location}"),
                    ],
                ),
                None => pick(
                    lang,
                    [
                        format!("Earthquake: {location}"),
                        format!("Sismo: {location}"),
                        format!("Sismo: {location}"),
                    ],
                ),
            };
            let why = if facts.is_empty() {
                pick(lang, [
                    "A significant earthquake (NCEI criteria: deaths, damage of about US$1 million or more, M7.5 or more, MMI X or more, or a tsunami); no toll recorded.",
                    "Un sismo significativo (criterios de NCEI: muertes, daños de unos US$1 millón o más, M7.5 o más, MMI X o más, o un tsunami); sin balance registrado.",
                    "Um sismo significativo (critérios da NCEI: mortes, danos de cerca de US$1 milhão ou mais, M7.5 ou mais, MMI X ou mais, ou um tsunami); sem balanço registrado.",
                ])
                .to_string()
            } else {
                format!(
                    "{} {}",
                    facts.join(", "),
                    pick(
                        lang,
                        [
                            "(NCEI: totals including the tsunamis and landslides it caused, else the quake's own).",
                            "(NCEI: totales con los tsunamis y deslizamientos que causó; si no, los del propio sismo).",
                            "(NCEI: totais com os tsunamis e deslizamentos que causou; senão, os do próprio sismo).",
                        ]
                    )
                )
            };
            (title, why)
        };
        let (title, why) = said(Lang::En);
        let (title_es, why_es) = said(Lang::Es);
        let (title_pt, why_pt) = said(Lang::Pt);
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
            title_es: Some(title_es),
            title_pt: Some(title_pt),
            why_es: Some(why_es),
            why_pt: Some(why_pt),
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

/// The English, Spanish or Portuguese of three.
fn pick<T>(lang: Lang, [en, es, pt]: [T; 3]) -> T {
    match lang {
        Lang::En => en,
        Lang::Es => es,
        Lang::Pt => pt,
    }
}

/// A sentence in English, Spanish and Portuguese.
struct Said {
    en: String,
    es: String,
    pt: String,
}

impl Said {
    fn new(say: impl Fn(Lang) -> String) -> Said {
        Said {
            en: say(Lang::En),
            es: say(Lang::Es),
            pt: say(Lang::Pt),
        }
    }
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
        title: Said,
        why: Said,
    ) -> Event {
        Event {
            citation_id,
            date,
            countries: Vec::new(),
            kind: kind.into(),
            title: title.en,
            title_es: Some(title.es),
            title_pt: Some(title.pt),
            why: why.en,
            why_es: Some(why.es),
            why_pt: Some(why.pt),
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
pub fn project_events(
    projects: &[Project],
    pillars: &[Pillar],
    countries: &CountryRegistry,
) -> Vec<Event> {
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
        let sectors = |lang| {
            if project.sectors.is_empty() {
                String::new()
            } else {
                format!(
                    " {}: {}.",
                    pick(lang, ["Sectors", "Sectores", "Setores"]),
                    project.sectors.join(", ")
                )
            }
        };
        // The country's name in the sentence's language; a region keeps the publisher's label.
        let place = |lang| {
            project
                .country
                .as_deref()
                .and_then(|iso3| countries.get(iso3))
                .map_or(project.location.as_str(), |country| country.names.get(lang))
        };
        let amount = project.financed_usd();
        let money = |lang| {
            amount.map_or_else(String::new, |amount| {
                format!(
                    ", US${} {}",
                    millions(amount / 1e6),
                    pick(lang, ["million", "millones", "milhões"])
                )
            })
        };
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
                Said::new(|lang| match lang {
                    Lang::En => format!(
                        "{} {verb} {}: {}{}",
                        project.publisher,
                        project.id,
                        project.title,
                        money(lang)
                    ),
                    _ => format!(
                        "{} {} {} ({}): {}{}",
                        pick(lang, ["", "Proyecto", "Projeto"]),
                        project.id,
                        match (verb, lang) {
                            ("approved", Lang::Es) => "aprobado",
                            ("approved", _) => "aprovado",
                            (_, Lang::Es) => "cerrado",
                            _ => "encerrado",
                        },
                        project.publisher,
                        project.title,
                        money(lang)
                    ),
                }),
                Said::new(|lang| {
                    format!(
                        "{} {} {}.{}",
                        if project.pillars.len() == 1 {
                            pick(
                                lang,
                                [
                                    "A project of the pillar",
                                    "Un proyecto del pilar",
                                    "Um projeto do pilar",
                                ],
                            )
                        } else {
                            pick(
                                lang,
                                [
                                    "A project of the pillars",
                                    "Un proyecto de los pilares",
                                    "Um projeto dos pilares",
                                ],
                            )
                        },
                        pillar_list(&project.pillars, pillars, lang),
                        pick(
                            lang,
                            [
                                format!("in {}", place(lang)),
                                format!("en {}", place(lang)),
                                format!("em {}", place(lang)),
                            ]
                        ),
                        sectors(lang)
                    )
                }),
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

/// The pillars' names in `lang` as a list for a sentence, or "(none mapped)".
fn pillar_list(ids: &[String], pillars: &[Pillar], lang: Lang) -> String {
    if ids.is_empty() {
        return pick(
            lang,
            ["(none mapped)", "(ninguno asignado)", "(nenhum atribuído)"],
        )
        .into();
    }
    ids.iter()
        .map(|id| {
            pillars
                .iter()
                .find(|pillar| &pillar.id == id)
                .map_or(id.as_str(), |pillar| pillar.names.get(lang))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The events of the laws and policies.
pub fn law_events(laws: &[Law], pillars: &[Pillar]) -> Vec<Event> {
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
        let why = |lang| {
            let listed = |names: &[String]| {
                if names.is_empty() {
                    pick(lang, ["none listed", "ninguno indicado", "nenhum indicado"]).to_string()
                } else {
                    names.join(", ")
                }
            };
            let document = law
                .document_types
                .first()
                .map_or("text", String::as_str)
                .to_lowercase();
            let executive = law.kind == "executive";
            format!(
                "{} {}; {}: {}; {}: {}.",
                match (lang, executive) {
                    (Lang::En, true) => format!("An executive {document} of the pillars"),
                    (Lang::En, false) => format!("A legislative {document} of the pillars"),
                    (Lang::Es, true) => format!("Un texto ejecutivo ({document}) de los pilares"),
                    (Lang::Es, false) =>
                        format!("Un texto legislativo ({document}) de los pilares"),
                    (Lang::Pt, true) => format!("Um texto executivo ({document}) dos pilares"),
                    (Lang::Pt, false) => format!("Um texto legislativo ({document}) dos pilares"),
                },
                pillar_list(&law.pillars, pillars, lang),
                pick(lang, ["sectors", "sectores", "setores"]),
                listed(&law.sectors),
                pick(lang, ["responses", "respuestas", "respostas"]),
                listed(&law.responses),
            )
        };
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
                Said::new(|lang| {
                    format!(
                        "{}: {} ({})",
                        law_event_label(law, index, &event.label, lang),
                        law.title,
                        law.country
                    )
                }),
                Said::new(why),
            );
            item.countries = vec![law.country.clone()];
            item.pillars = law.pillars.clone();
            item.record_id = Some(law.citation_id.clone());
            events.push(item);
        }
    }
    events
}

/// What a law's event is called in `lang`: its first event by the record's own kind and first document
/// type (CCLW labels most executive acts' first events "Law passed"), a later one as published (an
/// amendment named as such in every language).
fn law_event_label(law: &Law, index: usize, published: &str, lang: Lang) -> String {
    if index > 0 {
        let amended = published.to_ascii_lowercase().contains("amend");
        return match (lang, amended) {
            (Lang::En, _) => published.to_string(),
            (Lang::Es, true) => "Modificación".into(),
            (Lang::Pt, true) => "Alteração".into(),
            (Lang::Es, false) => format!("Evento ({published})"),
            (Lang::Pt, false) => format!("Evento ({published})"),
        };
    }
    if law.kind == "legislative" {
        return pick(lang, ["Law passed", "Ley aprobada", "Lei aprovada"]).into();
    }
    let document = law
        .document_types
        .first()
        .map(|document| document.to_ascii_lowercase())
        .unwrap_or_default();
    let names = [
        (
            "decree",
            ["Decree issued", "Decreto expedido", "Decreto publicado"],
        ),
        (
            "polic",
            ["Policy adopted", "Política adoptada", "Política adotada"],
        ),
        (
            "strateg",
            [
                "Strategy adopted",
                "Estrategia adoptada",
                "Estratégia adotada",
            ],
        ),
        ("plan", ["Plan adopted", "Plan adoptado", "Plano adotado"]),
        (
            "resolution",
            [
                "Resolution issued",
                "Resolución expedida",
                "Resolução expedida",
            ],
        ),
        (
            "programme",
            ["Programme adopted", "Programa adoptado", "Programa adotado"],
        ),
    ];
    let said = names
        .iter()
        .find(|(stem, _)| document.contains(stem))
        .map_or(
            [
                "Executive act adopted",
                "Acto ejecutivo adoptado",
                "Ato executivo adotado",
            ],
            |(_, said)| *said,
        );
    pick(lang, said).into()
}

/// One release event per source: its vintage, dated by its retrieval, with its indicators' pillars and the
/// countries it has observations of (`source_countries`, by source id).
pub fn release_events(
    sources: &[SourceRecord],
    metrics: &[Metric],
    source_countries: &std::collections::BTreeMap<String, BTreeSet<String>>,
    pillar_names: &[Pillar],
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
                Said::new(|lang| {
                    pick(
                        lang,
                        [
                            format!(
                                "{}: {} (release {}) in the corpus",
                                source.publisher, source.name, source.vintage
                            ),
                            format!(
                                "{}: {} (publicación {}) en el corpus",
                                source.publisher, source.name, source.vintage
                            ),
                            format!(
                                "{}: {} (publicação {}) no corpus",
                                source.publisher, source.name, source.vintage
                            ),
                        ],
                    )
                }),
                Said::new(|lang| {
                    format!(
                        "{} {} {}",
                        indicators.len(),
                        match (indicators.len(), pillars.len()) {
                            (1, 1) => pick(
                                lang,
                                [
                                    "indicator of the pillar",
                                    "indicador del pilar",
                                    "indicador do pilar"
                                ]
                            ),
                            (1, _) => pick(
                                lang,
                                [
                                    "indicator of the pillars",
                                    "indicador de los pilares",
                                    "indicador dos pilares"
                                ]
                            ),
                            (_, 1) => pick(
                                lang,
                                [
                                    "indicators of the pillar",
                                    "indicadores del pilar",
                                    "indicadores do pilar"
                                ]
                            ),
                            _ => pick(
                                lang,
                                [
                                    "indicators of the pillars",
                                    "indicadores de los pilares",
                                    "indicadores dos pilares"
                                ]
                            ),
                        },
                        pillar_list(&pillars, pillar_names, lang)
                    ) + match (indicators.len(), lang) {
                        (_, Lang::En) => " read from this release.",
                        (1, Lang::Es) => " leído de esta publicación.",
                        (_, Lang::Es) => " leídos de esta publicación.",
                        (1, Lang::Pt) => " lido desta publicação.",
                        (_, Lang::Pt) => " lidos desta publicação.",
                    }
                }),
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

    /// The staged extract's rows rendered as a hazel API response (the publisher's JSON layout: items
    /// in camelCase, numbers as JSON numbers, empty cells as absent keys), read through the refresh
    /// connector, give the same earthquake events as the staged extract read directly.
    #[test]
    fn the_hazel_json_refresh_and_the_staged_extract_give_the_same_events() {
        use std::path::PathBuf;

        use crate::{
            ingest::ncei_earthquakes::JSON_FIELDS,
            sources::{curated::RecordSource, settings::CorpusSettings},
        };
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let catalog_dir = root.join("../data");
        let staged_sources = root.join("../../shared/data/sources");
        let settings = CorpusSettings::load(&catalog_dir.join("corpus.toml")).unwrap();
        let source = RecordSource::load(&catalog_dir, "curated/ncei_earthquakes.toml", &settings)
            .unwrap()
            .expect("the NCEI declaration");
        let catalog = crate::sources::Catalog::load(&catalog_dir).unwrap();
        let entry = catalog
            .sources
            .iter()
            .find(|entry| {
                matches!(
                    entry.connector,
                    crate::sources::Connector::CountryNames { .. }
                )
            })
            .unwrap();
        let countries = corpus::CountryRegistry::new(
            crate::ingest::countries::read(entry, &catalog.settings, &staged_sources).unwrap(),
        );
        // The publisher's response, from the staged rows.
        let mut reader = csv::Reader::from_path(source.path(&staged_sources)).unwrap();
        let headers = reader.headers().unwrap().clone();
        let items: Vec<serde_json::Value> = reader
            .records()
            .map(|record| {
                let record = record.unwrap();
                let mut item = serde_json::Map::new();
                for (column, key) in JSON_FIELDS {
                    let at = headers.iter().position(|header| header == column).unwrap();
                    let cell = record.get(at).unwrap_or("").trim();
                    let value = if cell.is_empty() {
                        continue;
                    } else if let Ok(integer) = cell.parse::<i64>() {
                        serde_json::json!(integer)
                    } else if let Ok(number) = cell.parse::<f64>() {
                        serde_json::json!(number)
                    } else {
                        serde_json::json!(cell)
                    };
                    item.insert(key.to_string(), value);
                }
                serde_json::Value::Object(item)
            })
            .collect();
        let response = serde_json::json!({"items": items, "page": 1, "totalPages": 1});
        let refreshed = tempfile::tempdir().unwrap();
        let raw = refreshed.path().join(&source.raw_path);
        std::fs::create_dir_all(raw.join("publisher")).unwrap();
        std::fs::write(
            raw.join("publisher/ncei_earthquakes.json"),
            serde_json::to_vec(&response).unwrap(),
        )
        .unwrap();
        let (staged, staged_report) =
            super::earthquakes(&source, &catalog_dir, &staged_sources, &countries).unwrap();
        let (fetched, fetched_report) =
            super::earthquakes(&source, &catalog_dir, refreshed.path(), &countries).unwrap();
        assert!(staged.len() > 700, "{} staged events", staged.len());
        assert_eq!(fetched.len(), staged.len());
        assert_eq!(fetched_report.kept, staged_report.kept);
        let json = |events: &[corpus::Event]| serde_json::to_value(events).unwrap();
        assert_eq!(
            json(&fetched),
            json(&staged),
            "the same events, ids, dates and figures"
        );
        let valdivia = fetched
            .iter()
            .find(|event| event.date == "1960-05-22")
            .expect("the 1960 Valdivia earthquake");
        assert!(
            valdivia.countries.contains(&"CHL".to_string()),
            "{valdivia:?}"
        );
    }
}
