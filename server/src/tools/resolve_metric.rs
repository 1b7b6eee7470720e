//! `resolve_metric`: which governed indicator does a metric named in words refer to?
//!
//! Reads the full-text index over indicators (`metrics` dataset): names and descriptions in es/en/pt,
//! codes, synonyms, pillar names; case-, accent- and stop-word-insensitive. Returns up to 20 ranked
//! candidates with id, unit, `good_direction`, pillar, coverage and vintage. Call it first when an id is
//! needed.

use corpus::{GoodDirection, Lang, RecordDataset};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec, arguments,
    display::{self, SourceLink},
};
use crate::load::Corpus;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "resolve_metric",
        "Resolve a metric named in words to governed indicator ids",
        "Maps a metric named in words (es/en/pt: \"homicidios\", \"life expectancy\") or a \
         publisher code to governed indicator ids, ranked, with unit, good_direction, pillar, \
         coverage, vintage and match_quality (0.75+ is a match). `matched: false`: nothing \
         measures it, the candidates are only near: say the corpus lacks it. `partly: true`: \
         they measure more than asked: say so. Call it first for any indicator id.",
        &DATASETS,
        handle,
    )
    .paged(5)
}

/// Arguments of `resolve_metric`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveMetricInput {
    /// The metric in words (es/en/pt) or a publisher code (`SP.DYN.LE00.IN`).
    #[schemars(transform = super::limits::cap_text)]
    pub query: String,
    /// Only this pillar (id or name).
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub pillar: Option<String>,
    /// Candidates, 1-20 (default 5).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 20), extend("default" = 5))]
    #[schemars(description = "")]
    pub limit: Option<u32>,
}

/// Share of the query's words a candidate's names, title, synonyms or code must hold to count as a
/// match for it; below it, the candidate is only near.
pub const MATCH_SHARE: f32 = 0.75;

/// What a source's indicators cannot tell apart, as its publisher's method says: a query that asks for
/// one side alone (any of the words, accents folded) is only partly answered by them. `(source id
/// prefix, words, why)`.
pub const UNSEPARATED: [(&str, &[&str], &str); 1] = [(
    "oecd_crs_climate",
    &[
        "adaptation",
        "adaptacion",
        "adaptacao",
        "mitigation",
        "mitigacion",
        "mitigacao",
    ],
    "OECD CRS climate-related finance counts an activity whose Rio marker for adaptation or mitigation is significant or principal in full, once: adaptation cannot be separated from mitigation, so these indicators answer for both together (an upper bound), not for one alone",
)];

/// Why `metric` only partly answers `query`, when the query asks for what its source cannot separate.
fn partly(metric: &corpus::Metric, query: &str) -> Option<&'static str> {
    let folded = corpus::folding::fold(query);
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    UNSEPARATED.iter().find_map(|(source, terms, why)| {
        (metric.source_id.starts_with(source) && terms.iter().any(|term| words.contains(term)))
            .then_some(*why)
    })
}

/// `query` without the words of [`UNSEPARATED`], when it holds one and other words remain.
fn without_unseparated(query: &str) -> Option<String> {
    let terms: Vec<&str> = UNSEPARATED
        .iter()
        .flat_map(|(_, terms, _)| terms.iter().copied())
        .collect();
    let words: Vec<&str> = query.split_whitespace().collect();
    let kept: Vec<&str> = words
        .iter()
        .copied()
        .filter(|word| {
            let folded = corpus::folding::fold(word);
            !terms
                .iter()
                .any(|term| folded.trim_matches(|c: char| !c.is_alphanumeric()) == *term)
        })
        .collect();
    (kept.len() < words.len() && !kept.is_empty()).then(|| kept.join(" "))
}

/// The ranked candidates.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ResolveMetricResult {
    /// The query as received.
    pub query: String,
    /// The pillar filter applied, if any.
    pub pillar: Option<String>,
    /// Whether any candidate is named by the query (its `match_quality` at least 0.75); when false,
    /// no governed indicator measures what was asked, and the candidates are only the nearest ones.
    pub matched: bool,
    /// Whether the best candidates only partly measure what was asked (their source cannot separate it,
    /// e.g. adaptation from mitigation in OECD CRS climate finance): then `matched` is false and `note`
    /// says what they do measure.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partly: bool,
    /// What to tell the person when nothing matched; absent when a candidate matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Candidates, best first (matches before near ones).
    pub candidates: Vec<Candidate>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// One candidate indicator.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Candidate {
    /// Indicator id to pass to the data tools (`vc_ihr_psrc_p5`).
    pub id: String,
    /// Publisher's code (`VC.IHR.PSRC.P5`).
    pub source_code: String,
    /// Name in the requested language (English when no translation exists).
    pub name: String,
    /// Publisher's own title.
    pub source_title: String,
    /// Unit of the values (`per 100,000 people`).
    pub unit: String,
    /// Which way is an improvement: `up`, `down` or `neutral`.
    pub good_direction: GoodDirection,
    /// Pillar id (`seguridad`).
    pub pillar: String,
    /// Pillar name in the requested language.
    pub pillar_name: String,
    /// Source id (`wdi`).
    pub source: String,
    /// Release the values come from.
    pub vintage: String,
    /// Licence of the series.
    pub license: String,
    /// What the corpus holds for it.
    pub coverage: CoverageSummary,
    /// Relevance (higher is better), comparable within this answer only.
    pub score: f32,
    /// Share of the query's words found in the indicator's names, title, synonyms or code, 0 to 1
    /// (comparable across queries): at least 0.75 is a match, below it only a near indicator.
    pub match_quality: f32,
    /// Why it only partly measures what was asked, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partly: Option<String>,
}

/// Coverage of an indicator over the corpus' countries.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CoverageSummary {
    /// Country-year values.
    pub observations: u64,
    /// Countries with at least one value.
    pub countries: u32,
    /// Earliest year with a value.
    pub first_year: Option<i32>,
    /// Latest year with a value.
    pub last_year: Option<i32>,
}

fn handle(
    corpus: &Corpus,
    input: ResolveMetricInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, ResolveMetricResult>, ToolError> {
    let limit = input.limit.unwrap_or(5);
    if !(1..=20).contains(&limit) {
        return Err(ToolError::Invalid(format!("limit {limit}: give 1 to 20")));
    }
    if input.query.trim().is_empty() {
        return Err(ToolError::Invalid(
            "query is empty: name the metric in words, e.g. \"homicidios\" or \"life expectancy\""
                .into(),
        ));
    }
    let pillar = input
        .pillar
        .as_deref()
        .map(|pillar| arguments::pillar(corpus, pillar))
        .transpose()?;
    let mut hits = corpus
        .index
        .search(
            &input.query,
            pillar.map(|pillar| pillar.id.as_str()),
            limit as usize,
        )
        .map_err(|error| ToolError::Internal(error.to_string()))?;
    // A query asking for one side of what a source cannot separate ("adaptation finance"): the source's
    // indicators named by the rest of its words answer it partly, first (judged on the query without
    // those words, which their names cannot hold).
    if let Some(rest) = without_unseparated(&input.query) {
        let partly_named: Vec<_> = corpus
            .index
            .search(
                &rest,
                pillar.map(|pillar| pillar.id.as_str()),
                limit as usize,
            )
            .map_err(|error| ToolError::Internal(error.to_string()))?
            .into_iter()
            .filter(|hit| hit.match_share >= MATCH_SHARE)
            .filter(|hit| {
                corpus
                    .baked
                    .metric(&hit.id)
                    .is_some_and(|metric| partly(metric, &input.query).is_some())
            })
            .collect();
        hits.retain(|hit| !partly_named.iter().any(|named| named.id == hit.id));
        hits.splice(0..0, partly_named);
        hits.truncate(limit as usize);
    }
    // Of the indicators named alike, the reviewed default of its quantity first.
    corpus::index::defaults_first_among_best_named(&mut hits, |hit| {
        corpus
            .baked
            .metric(&hit.id)
            .is_some_and(|metric| metric.headline)
    });
    let candidates = hits
        .into_iter()
        .filter_map(|hit| {
            let metric = corpus.baked.metric(&hit.id)?;
            let pillar_name = corpus
                .baked
                .pillars()
                .get(&metric.pillar)
                .map_or(metric.pillar.clone(), |pillar| {
                    pillar.names.get(lang).to_string()
                });
            Some(Candidate {
                id: metric.id.clone(),
                source_code: metric.source_code.clone(),
                name: metric.names.get(lang).to_string(),
                source_title: metric.source_title.clone(),
                unit: metric.unit.clone(),
                good_direction: metric.good_direction,
                pillar: metric.pillar.clone(),
                pillar_name,
                source: metric.source_id.clone(),
                vintage: metric.vintage.clone(),
                license: metric.license.clone(),
                coverage: CoverageSummary {
                    observations: metric.coverage.observations,
                    countries: metric.coverage.countries,
                    first_year: metric.coverage.first_year,
                    last_year: metric.coverage.last_year,
                },
                score: hit.score,
                match_quality: (hit.match_share * 100.0).round() / 100.0,
                partly: partly(metric, &input.query)
                    .filter(|_| hit.match_share >= MATCH_SHARE)
                    .map(String::from),
            })
        })
        .collect();
    let mut candidates: Vec<Candidate> = candidates;
    // Matches first, in relevance order; the near ones after them.
    candidates.sort_by_key(|candidate| candidate.match_quality < MATCH_SHARE);
    let named = |candidate: &Candidate| candidate.match_quality >= MATCH_SHARE;
    let matched = candidates
        .iter()
        .any(|candidate| named(candidate) && candidate.partly.is_none());
    // Named by the query, but measuring more than it asks (both sides of what the source cannot split).
    let partly_why = (!matched)
        .then(|| {
            candidates
                .iter()
                .filter(|candidate| named(candidate))
                .find_map(|candidate| candidate.partly.clone())
        })
        .flatten();
    if matched || partly_why.is_some() {
        // Beside a match, a candidate none of whose content words match is noise, not a near indicator.
        candidates.retain(|candidate| candidate.match_quality > 0.0);
    }
    let within = pillar
        .map(|pillar| format!(" in pillar `{}`", pillar.id))
        .unwrap_or_default();
    let retry = if pillar.is_some() {
        ", or search without `pillar`"
    } else {
        ""
    };
    let records_note = if matched || partly_why.is_some() {
        None
    } else {
        records_nearby(corpus, &input.query)?
    };
    let note = (!matched).then(|| {
        let query = arguments::snippet(&input.query);
        if candidates.is_empty() {
            format!(
                "No governed indicator in the corpus{within} measures `{query}`, and none shares a word with it: \
                 say the corpus lacks it, or try other words in Spanish, English or Portuguese{retry}."
            )
        } else {
            format!(
                "No governed indicator in the corpus{within} measures `{query}`: the candidates share only some of \
                 its words (match_quality below {MATCH_SHARE}) and are the nearest, not a match. Say the corpus \
                 lacks it rather than answer with one of them{retry}."
            )
        }
    });
    let note = match (note, records_note) {
        // Not an indicator, but records: the note says where they are instead of "the corpus lacks it".
        (Some(_), Some(records)) => Some(format!(
            "No governed indicator in the corpus{within} measures `{}` (the candidates are only the nearest, not a \
             match). {records}",
            arguments::snippet(&input.query)
        )),
        (note, _) => note,
    };
    let note = match &partly_why {
        Some(why) => Some(format!(
            "Partly: the candidates named by `{}` measure more than it asks. {why}. Say so, and give their values as the combined figure.",
            arguments::snippet(&input.query)
        )),
        None => note,
    };
    let result = ResolveMetricResult {
        query: input.query,
        pillar: pillar.map(|pillar| pillar.id.clone()),
        matched,
        partly: partly_why.is_some(),
        note,
        candidates,
        sources: vec![display::source_link(corpus, "metrics", None)],
    };
    Ok(ToolAnswer {
        result,
        citations: Vec::new(),
        display: None,
        records: Vec::new(),
    })
}

/// The datasets it reads: the indicators, and the curated records searched when no indicator matches.
const DATASETS: [&str; 6] = [
    "metrics",
    RecordDataset::Events.id(),
    RecordDataset::Projects.id(),
    RecordDataset::Financing.id(),
    RecordDataset::Regulation.id(),
    RecordDataset::Institutions.id(),
];

/// Where the corpus' curated records bear on `query` when no indicator does ("earthquake deaths" is in
/// the events' tolls): a sentence naming the datasets with matching records and the tool to read them;
/// `None` when none matches.
///
/// # Errors
/// [`ToolError::Internal`] if the index cannot be read.
fn records_nearby(corpus: &Corpus, query: &str) -> Result<Option<String>, ToolError> {
    let hits = corpus
        .index
        .search_datasets(query, &DATASETS[1..], None, 50)
        .map_err(|error| ToolError::Internal(error.to_string()))?;
    let mut found: Vec<(RecordDataset, usize)> = Vec::new();
    // A record named by half the query's words bears on it ("earthquake deaths": an earthquake, whose
    // toll is a field of the record, not a word of its title).
    for hit in hits.iter().filter(|hit| hit.match_share >= 0.5) {
        if let Some(dataset) = RecordDataset::from_id(&hit.dataset_id) {
            match found.iter_mut().find(|(known, _)| *known == dataset) {
                Some((_, count)) => *count += 1,
                None => found.push((dataset, 1)),
            }
        }
    }
    if found.is_empty() {
        return Ok(None);
    }
    let listed: Vec<String> = found
        .iter()
        .map(|(dataset, count)| {
            let read_by = match dataset {
                RecordDataset::Events => "get_news or get_dataset",
                RecordDataset::Projects => "find_pilots or get_dataset",
                RecordDataset::Regulation
                | RecordDataset::Institutions
                | RecordDataset::Financing => "get_dataset",
            };
            format!(
                "`{dataset}` ({count}{} matching record{}; {read_by})",
                if *count == 50 { "+" } else { "" },
                if *count == 1 { "" } else { "s" }
            )
        })
        .collect();
    Ok(Some(format!(
        "The corpus does hold records that bear on it: {}; search_corpus with those datasets lists them.",
        listed.join(", ")
    )))
}
