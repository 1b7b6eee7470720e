//! `get_discoveries`: the largest anomalies and source contradictions in the corpus, ranked by
//! magnitude, each cited.
//!
//! Reads the bake's `discoveries.json` (`discoveries` dataset): anomalies are year-over-year changes with a
//! robust z-score of at least 5 within their own series (and at least 1 % of the series' level);
//! contradictions are country-years where two publishers' values of the same quantity (data/concordance.toml)
//! differ beyond the declared tolerance, ranked by how many tolerances apart they are. Optional filters:
//! pillar (`parameter`) and country; `limit` 1 to 50 of each (default 10).

use corpus::Lang;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec,
    common::{self, SourceLink},
};
use crate::load::Corpus;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_discoveries",
        "Largest anomalies and source contradictions, cited",
        "Surfaces what stands out in the corpus: anomalies (year-over-year changes far outside a series' usual \
         changes, robust z-score ≥ 5) and source contradictions (two publishers' values of the same quantity \
         differing beyond the declared tolerance), ranked by magnitude, each with the citations of its cells. \
         Filter by parameter (pillar) and country.",
        &["discoveries", "metrics"],
        handle,
    )
}

/// Arguments of `get_discoveries`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDiscoveriesInput {
    /// Only indicators of this pillar (id or name in es/en/pt).
    #[serde(default)]
    pub parameter: Option<String>,
    /// Only this country (ISO3 or name).
    #[serde(default)]
    pub country: Option<String>,
    /// How many anomalies and how many contradictions, 1 to 50 each. Default 10.
    #[serde(default)]
    #[schemars(range(min = 1, max = 50), extend("default" = 10))]
    pub limit: Option<u32>,
}

/// The discoveries.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiscoveriesResult {
    /// Anomalies, largest |z| first.
    pub anomalies: Vec<AnomalyItem>,
    /// Contradictions, most tolerances apart first.
    pub contradictions: Vec<ContradictionItem>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// One anomaly.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AnomalyItem {
    /// Indicator id.
    pub indicator: String,
    /// Indicator name in the requested language.
    pub name: String,
    /// Unit.
    pub unit: String,
    /// ISO3.
    pub country: String,
    /// Year of the changed value, and the previous observed year.
    pub years: (i32, i32),
    /// Change, in the unit.
    pub change: f64,
    /// Robust z-score of the change within its series.
    pub z_score: f64,
    /// Citations of the previous and the changed value.
    pub citation_ids: [String; 2],
}

/// One contradiction: the corpus' own record, so the wire cannot drift from the bake.
pub type ContradictionItem = corpus::Contradiction;

fn handle(
    corpus: &Corpus,
    input: GetDiscoveriesInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, DiscoveriesResult>, ToolError> {
    let limit = input.limit.unwrap_or(10) as usize;
    if !(1..=50).contains(&limit) {
        return Err(ToolError::Invalid(format!("limit {limit}: give 1 to 50")));
    }
    let pillar = input
        .parameter
        .as_deref()
        .map(|pillar| common::pillar(corpus, pillar))
        .transpose()?;
    let country = input
        .country
        .as_deref()
        .map(|country| common::countries(corpus, &[country.to_string()], 1, 1))
        .transpose()?
        .map(|found| found[0].iso3.clone());
    let discoveries = corpus.discoveries().map_err(ToolError::Internal)?;
    let baked = &corpus.baked;
    let in_scope = |indicator: &str, iso3: &str| {
        country.as_deref().is_none_or(|country| country == iso3)
            && pillar.is_none_or(|pillar| {
                baked
                    .metric(indicator)
                    .is_some_and(|metric| metric.pillar == pillar.id)
            })
    };
    let anomalies: Vec<AnomalyItem> = discoveries
        .anomalies
        .iter()
        .filter(|anomaly| in_scope(&anomaly.indicator, &anomaly.country))
        .take(limit)
        .filter_map(|anomaly| {
            let metric = baked.metric(&anomaly.indicator)?;
            Some(AnomalyItem {
                indicator: metric.id.clone(),
                name: metric.names.get(lang).to_string(),
                unit: metric.unit.clone(),
                country: anomaly.country.clone(),
                years: (anomaly.year, anomaly.previous_year),
                change: anomaly.change,
                z_score: anomaly.z_score,
                citation_ids: anomaly.citation_ids.clone(),
            })
        })
        .collect();
    let contradictions: Vec<ContradictionItem> = discoveries
        .contradictions
        .iter()
        .filter(|contradiction| in_scope(&contradiction.left_indicator, &contradiction.country))
        .take(limit)
        .cloned()
        .collect();
    let cited = anomalies
        .iter()
        .flat_map(|item| item.citation_ids.iter())
        .chain(
            contradictions
                .iter()
                .flat_map(|item| item.citation_ids.iter()),
        );
    let mut ids: Vec<&str> = cited.map(String::as_str).collect();
    ids.sort_unstable();
    ids.dedup();
    let citations = common::citation_records(corpus, ids)?;
    let result = DiscoveriesResult {
        anomalies,
        contradictions,
        sources: vec![common::source_link(corpus, "discoveries", None)],
    };
    Ok(ToolAnswer {
        result,
        citations,
        display: None,
    })
}
