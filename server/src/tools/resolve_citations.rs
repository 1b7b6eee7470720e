//! `resolve_citations`: where does a stored citation id come from?
//!
//! Reads the citation registry (`citations` dataset: the source and metric registries plus the
//! observation tables). Takes 1 to 50 ids; per-response synthetic ids (`pulse-…`, `calc-…`) and unknown
//! ids come back under `unresolved` with the reason. With `format` (`csl-json`, `bibtex`, `apa`,
//! `chicago`, `text`), each resolved value and record is also written ready to paste under `formatted`
//! ([`corpus::citation_style`]); the same is served at `GET /api/v1/citations/{id}?format=…`.

use corpus::{Lang, citation_style::CitationFormat};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    CitationRecord, ToolAnswer, ToolError, ToolSpec, arguments,
    display::{self, SourceLink},
};
use crate::load::Corpus;

/// The most ids one call resolves.
pub const MAX_IDS: usize = 50;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "resolve_citations",
        "Resolve stored citation ids",
        "Resolves 1-50 citation_ids. A value id (`wb-sp-dyn-le00-in-mex-2024`): publisher, \
         dataset, indicator, value, year, deep link, vintage, retrieval date, licence \
         (`result.resolved`). A record id (wbproj-…, cclw-…, crsflow-…, event-…): title, page, \
         licence (`result.records`). calc-… and pulse-… records travel inline in their answer; \
         unknown ids come back under `unresolved` with the reason. `format`: also ready to paste \
         (csl-json, bibtex, apa, chicago, text).",
        &["citations"],
        handle,
    )
}

/// Arguments of `resolve_citations`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveCitationsInput {
    /// 1-50 citation ids (`wb-sp-dyn-le00-in-mex-2024`).
    #[schemars(length(min = 1, max = 50))]
    #[schemars(transform = super::limits::cap_identifier)]
    pub ids: Vec<String>,
    /// Also as: default json only.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    pub format: Option<Format>,
}

/// A paste-ready format ([`corpus::citation_style::CitationFormat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum Format {
    /// Only the JSON records.
    #[serde(rename = "json")]
    Json,
    /// CSL-JSON items.
    #[serde(rename = "csl-json")]
    CslJson,
    /// BibTeX `@misc` entries.
    #[serde(rename = "bibtex")]
    Bibtex,
    /// APA 7 data set references.
    #[serde(rename = "apa")]
    Apa,
    /// Chicago bibliography entries.
    #[serde(rename = "chicago")]
    Chicago,
    /// Plain lines.
    #[serde(rename = "text")]
    Text,
}

impl Format {
    fn style(self) -> CitationFormat {
        match self {
            Format::Json => CitationFormat::Json,
            Format::CslJson => CitationFormat::CslJson,
            Format::Bibtex => CitationFormat::Bibtex,
            Format::Apa => CitationFormat::Apa,
            Format::Chicago => CitationFormat::Chicago,
            Format::Text => CitationFormat::Text,
        }
    }
}

pub use crate::load::citations::Formatted;

/// Resolved and unresolved ids.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ResolveCitationsResult {
    /// Ids that resolved, in request order, with their values; the series, indicator and source records
    /// are in `citations`.
    pub resolved: Vec<Resolved>,
    /// Ids resolved to curated records (projects: `wbproj-p127837`); each record is under
    /// `citations.records`.
    pub records: Vec<String>,
    /// Ids that did not, with the reason.
    pub unresolved: Vec<Unresolved>,
    /// With `format`: each resolved id written in it, in request order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub formatted: Vec<Formatted>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// A stored value.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Resolved {
    /// The id as given.
    pub citation_id: String,
    /// Year of the value.
    pub year: i32,
    /// The value, in its indicator's unit.
    pub value: f64,
    /// Flags of the value (`projection`), absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
}

/// An id that did not resolve.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Unresolved {
    /// The id as given.
    pub citation_id: String,
    /// Why, and what would resolve.
    pub reason: String,
}

fn handle(
    corpus: &Corpus,
    input: ResolveCitationsInput,
    _lang: Lang,
) -> Result<ToolAnswer<'_, ResolveCitationsResult>, ToolError> {
    if input.ids.is_empty() || input.ids.len() > MAX_IDS {
        return Err(ToolError::Invalid(format!(
            "ids: give 1 to {MAX_IDS} citation ids, got {}",
            input.ids.len()
        )));
    }
    let mut resolved = Vec::new();
    let mut unresolved = Vec::new();
    let mut citations: Vec<CitationRecord> = Vec::new();
    let (mut records, mut resolved_records) = (Vec::new(), Vec::new());
    let mut seen = std::collections::HashSet::new();
    // Each id once, in request order.
    for id in input.ids.iter().filter(|id| seen.insert(id.as_str())) {
        if let Some(citation) = corpus.record_citation(id) {
            records.push(citation);
            resolved_records.push(id.clone());
            continue;
        }
        let canonical = id.trim().to_ascii_lowercase();
        if canonical != *id && corpus.record_citation(&canonical).is_some() {
            unresolved.push(Unresolved {
                citation_id: id.clone(),
                reason: format!("not a stored id as written; its canonical form is {canonical}"),
            });
            continue;
        }
        if let Some((dataset, prefix)) = corpus::RecordDataset::of_citation_id(id) {
            unresolved.push(Unresolved {
                citation_id: id.clone(),
                reason: format!(
                    "no {dataset} record `{}` in the corpus: its ids start {}, e.g. {} (exactly as an answer gives them)",
                    arguments::snippet(id),
                    prefix.prefix,
                    prefix.example
                ),
            });
            continue;
        }
        match corpus.baked.resolve_citation(id) {
            Ok(citation) => {
                resolved.push(Resolved {
                    citation_id: id.clone(),
                    year: citation.year,
                    value: citation.value,
                    flags: (!citation.flags.is_empty()).then(|| citation.flags.to_string()),
                });
                citations.push(citation);
            }
            Err(error) => unresolved.push(Unresolved {
                citation_id: error.citation_id,
                reason: error.reason,
            }),
        }
    }
    let formatted = match input.format.map(Format::style) {
        None | Some(CitationFormat::Json) => Vec::new(),
        Some(style) => resolved
            .iter()
            .map(|resolved| resolved.citation_id.as_str())
            .chain(resolved_records.iter().map(String::as_str))
            .filter_map(|id| corpus.formatted_citation(id, style))
            .collect(),
    };
    let result = ResolveCitationsResult {
        resolved,
        records: resolved_records,
        unresolved,
        formatted,
        sources: vec![display::source_link(corpus, "citations", None)],
    };
    Ok(ToolAnswer {
        result,
        citations,
        display: None,
        records,
    })
}
