//! `find_pilots`: the portfolio of projects that could serve as pilots, from the curated `projects` dataset
//! (World Bank Projects & Operations records, and the GEF's in a bake that admits its terms), ranked for
//! relevance, each with the pillar indicators it bears on in its country (latest values, cited).
//!
//! Ranking: with `query`, the search index's relevance over titles, objectives, sectors, agencies and places,
//! among the projects naming every word of it (or its glossary word), and only when none does among those
//! naming some (`query_match` says which), the projects whose title names the words first (the others
//! marked `matched_by: sectors_or_objective`, with their sectors and themes shown); without,
//! maturity (active, then pipeline, then closed), then cost, then the newest approval. Dropped projects are
//! never pilots. A project that is no country's (a multi-country operation) matches no `country`.

use std::collections::BTreeMap;

use corpus::CitedRecord;
use corpus::{Lang, Project, RecordDataset};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec, answer, arguments,
    display::{self, SourceLink},
    projects::{IndicatorValue, latest_value, maturity, unclassified_note},
};
use crate::load::Corpus;

/// The most pilots one answer lists.
pub const MAX_LIMIT: u32 = 25;

/// Theme labels a pilot shows at most.
pub const SHOWN_THEMES: usize = 3;

/// Characters of a pilot's pitch (its development objective, cut at a word).
pub const PITCH_CHARS: usize = 220;

/// Headline indicators of a pillar shown in an impact base.
pub const IMPACT_INDICATORS: usize = 3;

/// Bytes of `structuredContent` an answer stays under: pilots stop being added before it (the first
/// always fits), and `truncated` says so.
pub const ANSWER_BYTES: usize = 22 * 1024;

/// Bytes one cited value adds to `citations` (its series and indicator records), as estimated.
const CITED_VALUE_BYTES: usize = 600;

/// The largest `offset`.
pub const MAX_OFFSET: u32 = 10_000;

/// Search hits read for a query before the filters (the best ones; a broader query is not read further).
pub const MAX_QUERY_HITS: usize = 500;

/// The datasets it reads.
const DATASETS: [&str; 3] = [RecordDataset::Projects.id(), "series_stats", "metrics"];

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "find_pilots",
        "Find projects that could serve as pilots",
        "World Bank projects that could serve as pilots, ranked by `query` (what they do, \
         es/en/pt: title matches first, then those found only by sectors or objective, \
         `matched_by`), else active, pipeline, closed; filter by country and parameter. Each: \
         slug (for get_pilot), title, maturity, amounts (US$), approval date, sectors, themes, \
         link, citation_id; `impact_base` cites the headline values there. `offset` pages.",
        &DATASETS,
        handle,
    )
    .paged(10)
}

/// Arguments of `find_pilots`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindPilotsInput {
    /// Country (ISO3 or name); multi-country operations match none.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub country: Option<String>,
    /// Pillar the projects act on.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub parameter: Option<String>,
    /// What the project does, es/en/pt (`energía renovable`).
    #[serde(default)]
    #[schemars(transform = super::limits::cap_text)]
    pub query: Option<String>,
    /// Pilots, 1-25 (default 10).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 25), extend("default" = 10))]
    #[schemars(description = "")]
    pub limit: Option<u32>,
    /// Pilots to skip (`next_offset`).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 0, max = 10000), extend("default" = 0))]
    #[schemars(description = "")]
    pub offset: Option<u32>,
}

/// The portfolio.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FindPilotsResult {
    /// Projects matching the filters (not dropped).
    pub total: usize,
    /// Whether fewer than `limit` pilots are shown to keep the answer under 24 KB.
    pub truncated: bool,
    /// With a `query`: `every_word`, or `some_words` when no project names every word.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_match: Option<&'static str>,
    /// The best `limit` of them after `offset`, best first.
    pub pilots: Vec<Pilot>,
    /// The `offset` of the next page, when more projects match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// Per `{ISO3}:{pillar}` of the pilots: the pillar's headline indicators in that country, latest values.
    pub impact_base: BTreeMap<String, Vec<IndicatorValue>>,
    /// When nothing matches: what the corpus does hold nearby.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// One pilot candidate.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Pilot {
    /// Stable id for get_pilot: the P-code in lower case (`p127837`).
    pub slug: String,
    /// Project name.
    pub title: String,
    /// Its development objective, cut at a word.
    pub pitch: String,
    /// ISO3; absent for a multi-country operation (its `title` names the region).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// `pipeline`, `active` or `closed`.
    pub maturity: &'static str,
    /// Total project cost, current US$, when reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capex_usd: Option<f64>,
    /// The World Bank's lending commitment (IBRD + IDA; grants apart), current US$, when reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment_usd: Option<f64>,
    /// Its grant (World Bank or GEF), current US$, when reported; never part of the commitment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant_usd: Option<f64>,
    /// Board approval date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_date: Option<String>,
    /// The export's sector labels (`Renewable Energy Hydro`), as published: what a query may have
    /// matched.
    pub sectors: Vec<String>,
    /// The export's theme labels, as published (at most [`SHOWN_THEMES`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub themes: Vec<String>,
    /// With a `query`: `sectors_or_objective` when its title names none of the query's words (nor their
    /// glossary translations) and only its sector or theme labels, objective or agency do: ranked after
    /// every title match, a label may contradict the title (a mining project tagged renewable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_by: Option<&'static str>,
    /// Pillars its sectors and themes map to.
    pub pillars: Vec<String>,
    /// `title` when the pillars come from reviewed title words (no sector).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pillars_from: Option<&'static str>,
    /// Key of its `impact_base` entry, when it has a country and a pillar.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impact: Option<String>,
    /// The project's page.
    pub url: String,
    /// The record's citation id (its record is in `citations.records`).
    pub citation_id: String,
}

fn maturity_rank(status: &str) -> u8 {
    match status {
        "Active" => 0,
        "Pipeline" => 1,
        _ => 2,
    }
}

/// The pitch: the objective cut at a word near [`PITCH_CHARS`].
fn pitch(objective: &str) -> String {
    // The export's line breaks and tabs become single spaces.
    let objective = objective.split_whitespace().collect::<Vec<_>>().join(" ");
    if objective.chars().count() <= PITCH_CHARS {
        return objective;
    }
    let head: String = objective.chars().take(PITCH_CHARS).collect();
    let cut = head.rfind(' ').unwrap_or(head.len());
    format!("{}…", head[..cut].trim_end_matches([',', ';', ' ']))
}

fn handle(
    corpus: &Corpus,
    input: FindPilotsInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, FindPilotsResult>, ToolError> {
    let limit = input.limit.unwrap_or(10);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ToolError::Invalid(format!(
            "limit {limit}: give 1 to {MAX_LIMIT}"
        )));
    }
    let offset = input.offset.unwrap_or(0);
    if offset > MAX_OFFSET {
        return Err(ToolError::Invalid(format!(
            "offset {offset}: give 0 to {MAX_OFFSET}"
        )));
    }
    let offset = offset as usize;
    let country = arguments::optional_country(corpus, input.country.as_deref())?;
    let pillar = arguments::optional_pillar(corpus, input.parameter.as_deref())?;
    let (iso3, pillar_id) = (
        country.map(|country| country.iso3.as_str()),
        pillar.map(|pillar| pillar.id.as_str()),
    );
    let projects = corpus.projects().map_err(ToolError::Internal)?;
    let keep = |project: &&Project| {
        maturity(&project.status).is_some()
            && iso3.is_none_or(|iso3| project.country.as_deref() == Some(iso3))
            && pillar_id.is_none_or(|pillar| project.pillars.iter().any(|of| of == pillar))
    };
    let query = input
        .query
        .as_deref()
        .map(str::trim)
        .filter(|query| !query.is_empty());
    // Title matches first: a project named by the query's words in its title (or the title's glossary
    // words) before one found only by its sectors, themes, objective or agency (the export tags a 1989
    // mining project "Renewable Energy Biomass"), each group in relevance order.
    let search = |every_word: bool| -> Result<Vec<(&Project, bool)>, ToolError> {
        let mut found: Vec<(&Project, bool)> = corpus
            .index
            .search_ranked_judged(
                query.unwrap_or_default(),
                &[RecordDataset::Projects.id()],
                MAX_QUERY_HITS,
                every_word,
            )
            .map_err(|error| ToolError::Internal(error.to_string()))?
            .into_iter()
            .filter_map(|hit| Some((corpus.project(&hit.id)?, hit.match_share > 0.0)))
            .filter(|(project, _)| keep(project))
            .collect();
        found.sort_by_key(|(_, in_title)| !in_title);
        Ok(found)
    };
    // Projects naming every word of the query first; only when none does, those naming some.
    let mut query_match = None;
    let ranked: Vec<(&Project, bool)> = match query {
        Some(_) => {
            let every = search(true)?;
            if every.is_empty() {
                let some = search(false)?;
                query_match = (!some.is_empty()).then_some("some_words");
                some
            } else {
                query_match = Some("every_word");
                every
            }
        }
        None => {
            let mut matching: Vec<&Project> = projects.iter().filter(keep).collect();
            matching.sort_by(|left, right| {
                maturity_rank(&left.status)
                    .cmp(&maturity_rank(&right.status))
                    .then(
                        right
                            .cost_usd
                            .unwrap_or(-1.0)
                            .total_cmp(&left.cost_usd.unwrap_or(-1.0)),
                    )
                    .then(right.approval_date.cmp(&left.approval_date))
                    .then(left.id.cmp(&right.id))
            });
            matching
                .into_iter()
                .map(|project| (project, true))
                .collect()
        }
    };
    let total = ranked.len();
    let mut impact_base: BTreeMap<String, Vec<IndicatorValue>> = BTreeMap::new();
    let mut cited: Vec<String> = Vec::new();
    let (mut pilots, mut shown, mut bytes) = (Vec::new(), Vec::new(), 0);
    for (project, in_title) in ranked.iter().skip(offset).take(limit as usize) {
        super::cancel::checkpoint()?;
        let before = (impact_base.len(), cited.len());
        let mut pilot = pilot(
            corpus,
            project,
            pillar_id,
            lang,
            &mut impact_base,
            &mut cited,
        )?;
        if query.is_some() && !in_title {
            pilot.matched_by = Some("sectors_or_objective");
        }
        let mut size = serde_json::to_string(&pilot).map_or(0, |text| text.len())
            + serde_json::to_string(&project.citation()).map_or(0, |text| text.len())
            + (cited.len() - before.1) * CITED_VALUE_BYTES;
        if impact_base.len() > before.0 {
            size += pilot
                .impact
                .as_ref()
                .and_then(|key| impact_base.get(key))
                .map_or(0, |entry| {
                    serde_json::to_string(entry).map_or(0, |text| text.len())
                });
        }
        if !pilots.is_empty() && bytes + size > ANSWER_BYTES {
            // Undo what this pilot added and stop: the answer is full.
            cited.truncate(before.1);
            if let Some(key) = pilot
                .impact
                .as_ref()
                .filter(|_| impact_base.len() > before.0)
            {
                impact_base.remove(key);
            }
            break;
        }
        bytes += size;
        pilots.push(pilot);
        shown.push(*project);
    }
    let truncated = pilots.len() < (limit as usize).min(total.saturating_sub(offset));
    let next_offset = (offset + pilots.len() < total).then_some(offset + pilots.len());
    let some_words = (query_match == Some("some_words")).then(|| {
        format!(
            "No project matches every word of `{}`: these match some of them, best first.",
            arguments::snippet(query.unwrap_or_default())
        )
    });
    let note = match (pilots.is_empty(), pillar_id) {
        (true, _) if total > 0 => Some(format!(
            "offset {offset} is past the last of the {total} matching projects; give 0 to {}",
            total - 1
        )),
        (true, _) => Some(nearby(projects, iso3, pillar_id, query)),
        // A pillar filter cannot see the projects whose records map to no pillar: say how many there are.
        (false, Some(pillar)) => unclassified_note(projects, iso3, pillar),
        (false, None) => None,
    };
    let note = match (some_words, note) {
        (Some(words), Some(note)) => Some(format!("{words} {note}")),
        (words, note) => words.or(note),
    };
    let citations = answer::citation_records(corpus, cited.iter().map(String::as_str))?;
    let records = shown.iter().map(|project| project.citation()).collect();
    Ok(ToolAnswer {
        result: FindPilotsResult {
            total,
            truncated,
            query_match,
            pilots,
            next_offset,
            impact_base,
            note,
            sources: vec![
                display::source_link(corpus, RecordDataset::Projects.id(), None),
                display::source_link(corpus, "series_stats", None),
            ],
        },
        citations,
        display: None,
        records,
    })
}

/// One pilot, adding its impact base (and the citation ids of its values) when new.
fn pilot(
    corpus: &Corpus,
    project: &Project,
    pillar_id: Option<&str>,
    lang: Lang,
    impact_base: &mut BTreeMap<String, Vec<IndicatorValue>>,
    cited: &mut Vec<String>,
) -> Result<Pilot, ToolError> {
    let impact_pillar = pillar_id
        .filter(|pillar| project.pillars.iter().any(|of| of == pillar))
        .or(project.main_pillar.as_deref());
    let impact = match (project.country.as_deref(), impact_pillar) {
        (Some(iso3), Some(pillar)) => {
            let key = format!("{iso3}:{pillar}");
            if !impact_base.contains_key(&key) {
                let indicators = impact_indicators(corpus, iso3, pillar, lang)?;
                if !indicators.is_empty() {
                    cited.extend(
                        indicators
                            .iter()
                            .map(|indicator| indicator.citation_id.clone()),
                    );
                    impact_base.insert(key.clone(), indicators);
                }
            }
            impact_base.contains_key(&key).then_some(key)
        }
        _ => None,
    };
    Ok(Pilot {
        slug: project.id.to_ascii_lowercase(),
        title: project.title.clone(),
        pitch: pitch(&project.objective),
        country: project.country.clone(),
        maturity: maturity(&project.status).unwrap_or("closed"),
        capex_usd: project.cost_usd,
        commitment_usd: project.commitment_usd,
        grant_usd: project.grant_usd,
        approval_date: project.approval_date.clone(),
        sectors: project.sectors.clone(),
        themes: project.themes.iter().take(SHOWN_THEMES).cloned().collect(),
        matched_by: None,
        pillars: project.pillars.clone(),
        pillars_from: (project.pillar_basis.as_deref() == Some("title")).then_some("title"),
        impact,
        url: project.url.clone(),
        citation_id: project.citation_id.clone(),
    })
}

/// The pillar's headline indicators with data in `iso3`, latest values (at most [`IMPACT_INDICATORS`]).
fn impact_indicators(
    corpus: &Corpus,
    iso3: &str,
    pillar: &str,
    lang: Lang,
) -> Result<Vec<IndicatorValue>, ToolError> {
    let mut values = Vec::new();
    for metric in corpus
        .baked
        .metrics()
        .iter()
        .filter(|metric| metric.pillar == pillar && metric.headline)
    {
        if values.len() == IMPACT_INDICATORS {
            break;
        }
        if let Some(value) = latest_value(corpus, metric, iso3, lang)? {
            values.push(value);
        }
    }
    Ok(values)
}

/// What the corpus holds near an empty query: the country's projects in any pillar, the pillar's projects
/// elsewhere in the region.
fn nearby(
    projects: &[Project],
    iso3: Option<&str>,
    pillar: Option<&str>,
    query: Option<&str>,
) -> String {
    let live = |project: &&Project| maturity(&project.status).is_some();
    let in_country = iso3.map(|iso3| {
        projects
            .iter()
            .filter(live)
            .filter(|project| project.country.as_deref() == Some(iso3))
            .count()
    });
    let in_pillar = pillar.map(|pillar| {
        projects
            .iter()
            .filter(live)
            .filter(|project| project.pillars.iter().any(|of| of == pillar))
            .count()
    });
    let mut parts = vec![format!(
        "no World Bank project in the corpus matches{}",
        query.map_or_else(String::new, |query| format!(
            " `{}`",
            arguments::snippet(query)
        ))
    )];
    if let (Some(iso3), Some(count)) = (iso3, in_country) {
        parts.push(format!("{count} projects are in {iso3} in all pillars"));
    }
    if let (Some(pillar), Some(count)) = (pillar, in_pillar) {
        parts.push(format!("{count} act on {pillar} across the region"));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::pitch;

    #[test]
    fn a_pitch_is_cut_at_a_word() {
        let long = "word ".repeat(100);
        let cut = pitch(&long);
        assert!(cut.ends_with("word…"), "{cut}");
        assert!(cut.chars().count() <= super::PITCH_CHARS + 1);
        assert_eq!(pitch("short objective"), "short objective");
    }
}
