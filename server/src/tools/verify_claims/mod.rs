//! `verify_claims`: is this number right? Checks 1 to [`MAX_CLAIMS`] claims against the governed corpus (an
//! MCP-only tool beside the seed's fifteen). Deterministic and offline: no model reads the claim.
//!
//! A claim is a sentence (`text`: "Mexico's life expectancy was 75.3 years in 2024", es/en/pt) or
//! structured (`indicator` or `query`, `country`, `year`, `value`, `unit`); structured fields win over what
//! the text says. For each claim the tool reads the place ([`place`]: refused when ambiguous or outside the
//! corpus), the indicator (an id, or the words left by [`parse`] searched in the index, taken only when the
//! hit is named by them), the year (default: the latest observed) and the value, then judges it against the
//! governed value (`judge`):
//!
//! - `match`: the claim is the corpus value as rounded to the claim's own digits (75.3 for 75.264);
//! - `close`: within the indicator's band: one publisher's standard error where it gives one (WGI),
//!   otherwise 2 % of the value (or twice the claim's rounding, if larger);
//! - `mismatch`: beyond it;
//! - `cannot_verify`: no place, an ambiguous place or one outside the corpus, no governed indicator named,
//!   no value that year, or no number in the claim (the corpus value is then given).
//!
//! The verdict is the best against the indicator and the other publishers of the same quantity in the
//! current vintage (the concordance pairs: WDI and WEO growth, WDI and UNODC homicides), each listed under
//! `also` with its own citation; older vintages (WEO April 2019) are listed but never make a match. When the
//! claim does not match, `diagnosis` names the simple transformation that explains it: another year (the
//! nearest that matches), ×100 or ÷100, thousands/millions/billions, the sign, another publisher, an older
//! vintage, the regional aggregate instead of the country. Reads `observations`, `aggregates`, `metrics`,
//! `countries` and `concordance`.

mod judge;
pub mod parse;
pub mod place;

use std::collections::BTreeMap;

use corpus::Lang;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    DEFAULT_ANSWER_BYTES, ToolAnswer, ToolError, ToolOutput, ToolSpec, arguments,
    display::{self, SourceLink},
};
use crate::load::Corpus;

pub use judge::{Diagnosis, DiagnosisKind, OtherValue, Tolerance};

/// The most claims one call checks.
pub const MAX_CLAIMS: usize = 20;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::serialized::<VerifyClaimsInput, VerifyClaimsResult>(
        "verify_claims",
        "Check claims against the corpus",
        "MCP-only fact check of 1-20 claims (`text` in es/en/pt, or indicator/query, country, \
         year, value): match, close, mismatch or cannot_verify against the cited corpus value, \
         what was read, a diagnosis (another year, ×100, millions, sign, another publisher, older \
         vintage, regional aggregate). Rules, no model.",
        &[
            "observations",
            "aggregates",
            "metrics",
            "countries",
            "concordance",
        ],
        handle,
    )
}

/// Arguments of `verify_claims`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyClaimsInput {
    /// 1-20 claims.
    #[schemars(length(min = 1, max = 20))]
    pub claims: Vec<Claim>,
    /// Default: what fits in 10 KB.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 20))]
    pub limit: Option<u32>,
    /// A next_offset.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 0, max = 19))]
    pub offset: Option<u32>,
}

/// One claim: words, fields, or both (fields win).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// A sentence.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_text)]
    pub text: Option<String>,
    /// Indicator id or code.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    pub indicator: Option<String>,
    /// Indicator words.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub query: Option<String>,
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub country: Option<String>,
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub year: Option<i32>,
    #[serde(default)]
    pub value: Option<f64>,
    /// `%`, `million`…
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub unit: Option<String>,
}

/// The verdicts, in claim order.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VerifyClaimsResult {
    /// In claim order.
    pub verdicts: Vec<Verdict>,
    /// Judged claims per verdict.
    pub counts: BTreeMap<String, usize>,
    /// Claims given.
    pub claims_total: usize,
    /// Claims left (past 10 KB): call again with this `offset`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// How the bands are drawn.
    pub method: String,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// A claim's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// The corpus value, as rounded to the claim's digits.
    Match,
    /// Within the indicator's band (`tolerance.close`).
    Close,
    /// Beyond it.
    Mismatch,
    /// Nothing to judge against: see `reason`.
    CannotVerify,
}

impl VerdictKind {
    /// The verdict's name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            VerdictKind::Match => "match",
            VerdictKind::Close => "close",
            VerdictKind::Mismatch => "mismatch",
            VerdictKind::CannotVerify => "cannot_verify",
        }
    }
}

/// The verdict on one claim.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Verdict {
    /// The claim's position, from 1.
    pub claim: usize,
    /// match, close, mismatch or cannot_verify.
    pub verdict: VerdictKind,
    /// What was read in the claim.
    pub read: Read,
    /// The governed value judged against.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corpus: Option<CorpusValue>,
    /// Claimed minus corpus value, in the indicator's unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference: Option<f64>,
    /// The bands of `match` and `close`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Tolerance>,
    /// What explains a difference: another year, a scale, the sign, another publisher or vintage, the
    /// regional aggregate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnosis: Vec<Diagnosis>,
    /// The same quantity at the other publishers and vintages the corpus holds, each cited and judged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<OtherValue>,
    /// Why a claim cannot be verified, and what would make it checkable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What the rules read in a claim (the text's words → the corpus' ids).
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Read {
    /// The place as written → its ISO3 (`{"Mexico": "MEX"}`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub place: BTreeMap<String, String>,
    /// The indicator as written → its id (`{"life expectancy": "sp_dyn_le00_in"}`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub indicator: BTreeMap<String, String>,
    /// When the indicator read is not the one its words name best (that one holds no value for the
    /// place), which was passed over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indicator_note: Option<String>,
    /// The year; when the claim names none, the latest observed (`year_assumed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    /// True when the claim named no year and the latest observed was taken.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub year_assumed: bool,
    /// The claimed value, its scale word applied (`1.2 billion` → 1200000000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// The unit or scale words read (`%`, `per 100,000`, `billion`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// A governed value: the indicator's, the place's and the year's.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CorpusValue {
    /// The value, in the indicator's unit (`citations.indicators`).
    pub value: f64,
    /// Year of the value.
    pub year: i32,
    /// Its citation.
    pub citation_id: String,
    /// `projection`, `estimate`, `modelled`…, absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
}

/// How the bands are drawn (the answer's `method`).
pub const METHOD: &str = "match: the corpus value at the claim's own rounding; close: within the \
     publisher's standard error (WGI) or 2 % of the value; the best against the indicator and its other \
     current publishers (`also`); older vintages and diagnoses never make a match.";

/// Judges the claims from `offset`: `limit` of them, or, without `limit`, as many as fit in
/// [`DEFAULT_ANSWER_BYTES`] (each claim judged once; the answer is written again with one claim fewer
/// until it fits, at least one), `next_offset` naming the first claim left.
fn handle(corpus: &Corpus, input: VerifyClaimsInput, lang: Lang) -> Result<ToolOutput, ToolError> {
    if input.claims.is_empty() || input.claims.len() > MAX_CLAIMS {
        return Err(ToolError::Invalid(format!(
            "claims: give 1 to {MAX_CLAIMS} claims, got {}",
            input.claims.len()
        )));
    }
    let offset = input.offset.unwrap_or(0) as usize;
    if offset >= input.claims.len() {
        return Err(ToolError::Invalid(format!(
            "offset {offset}: give 0 to {} for {} claims",
            input.claims.len() - 1,
            input.claims.len()
        )));
    }
    let limit = input.limit.map_or(MAX_CLAIMS, |limit| {
        limit.clamp(1, MAX_CLAIMS as u32) as usize
    });
    let end = (offset + limit).min(input.claims.len());
    let pairs = judge::Pairs::of(corpus)?;
    let mut judged = Vec::with_capacity(end - offset);
    for (claim_idx, claim) in input.claims.iter().enumerate().take(end).skip(offset) {
        crate::tools::cancel::checkpoint()?;
        judged.push(judge::judge(corpus, &pairs, claim, claim_idx + 1, lang)?);
    }
    let mut count = judged.len();
    loop {
        let output = answer(corpus, &judged[..count], offset, input.claims.len())?
            .into_output(corpus, lang)?;
        if input.limit.is_some() || count == 1 || output.payload.len() <= DEFAULT_ANSWER_BYTES {
            return Ok(output);
        }
        count -= 1;
    }
}

/// The answer of the first verdicts of a page starting at claim `offset` (of `total`).
fn answer<'c>(
    corpus: &'c Corpus,
    judged: &[(Verdict, Vec<String>)],
    offset: usize,
    total: usize,
) -> Result<ToolAnswer<'c, VerifyClaimsResult>, ToolError> {
    let verdicts: Vec<Verdict> = judged.iter().map(|(verdict, _)| verdict.clone()).collect();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for verdict in &verdicts {
        *counts
            .entry(verdict.verdict.name().to_string())
            .or_default() += 1;
    }
    let end = offset + verdicts.len();
    let cited = judged
        .iter()
        .flat_map(|(_, ids)| ids.iter().map(String::as_str));
    let citations = super::answer::citation_records(corpus, cited)?;
    Ok(ToolAnswer {
        result: VerifyClaimsResult {
            verdicts,
            counts,
            claims_total: total,
            next_offset: (end < total).then_some(end),
            method: METHOD.to_string(),
            sources: vec![
                display::source_link(corpus, "observations", None),
                display::source_link(corpus, "concordance", None),
            ],
        },
        citations,
        display: None,
        records: Vec::new(),
    })
}
