//! `get_discoveries`: the largest anomalies and source contradictions in the corpus, ranked by
//! magnitude, each cited.
//!
//! Reads the bake's `discoveries.json` (`discoveries` dataset): anomalies are year-over-year changes with a
//! robust z-score of at least 5 within their own series (and at least 1 % of the series' level);
//! contradictions are country-years where two publishers' values of the same quantity (data/concordance.toml)
//! differ beyond the declared tolerance, ranked by how many tolerances apart they are. Optional filters:
//! pillar (`parameter`), country, indicator (either side of a contradiction) and kind; `limit` 1 to 40
//! of each (default 10). The bake keeps every anomaly it finds, so the totals are right (Bolivia's
//! anomalies are all there), and `cursor`/`next_cursor` page through all of them; a per-country count of
//! the matching contradictions says where they lie.

use corpus::Lang;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec, answer,
    answer::significant,
    arguments,
    display::{self, SourceLink},
    paging,
};
use crate::load::Corpus;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_discoveries",
        "Largest anomalies and source contradictions, cited",
        "What stands out: anomalies (year-over-year changes, robust z-score 5 or more) and source \
         contradictions (two publishers' values of one quantity beyond tolerance), largest first, \
         each cell cited; filter by parameter, country, indicator (either side of a pair), kind. \
         Totals are complete; `next_cursor` (pass as `cursor`) pages both kinds.",
        &["discoveries", "metrics"],
        handle,
    )
    .paged(10)
}

/// Arguments of `get_discoveries`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDiscoveriesInput {
    /// Only this pillar.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub parameter: Option<String>,
    /// Only this country.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub country: Option<String>,
    /// Id or publisher code.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    pub indicator: Option<String>,
    /// Default: both.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    pub kind: Option<DiscoveryKind>,
    /// Per kind.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 40), extend("default" = 10))]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub cursor: Option<String>,
}

/// Which discoveries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiscoveryKind {
    /// Unusual year-over-year changes only.
    Anomalies,
    /// Source contradictions only.
    Contradictions,
}

/// The discoveries.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiscoveriesResult {
    /// Anomalies, largest |z| first.
    pub anomalies: Vec<AnomalyItem>,
    /// Contradictions, most tolerances apart first.
    pub contradictions: Vec<ContradictionItem>,
    /// Anomalies matching the filters, beyond the page too.
    pub total_anomalies: usize,
    /// Contradictions matching the filters, beyond the page too.
    pub total_contradictions: usize,
    /// Position of this page's first anomaly and first contradiction among the matching ones (0 on the
    /// first page).
    pub offset: usize,
    /// Cursor of the next page (pass it as `cursor`): the next `limit` of each kind; absent on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// The matching contradictions counted per country, most first: (ISO3, count).
    pub contradictions_by_country: Vec<(String, usize)>,
    /// Why the two publishers of each pair listed may differ (definitions, vintages), by pair id.
    pub pair_notes: std::collections::BTreeMap<String, String>,
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
    /// The previous observed year (of the first of `citation_ids`).
    pub from_year: i32,
    /// The year of the changed value (of the second of `citation_ids`).
    pub to_year: i32,
    /// Change, in the unit, to 12 significant digits (every digit of the published values).
    pub change: f64,
    /// Robust z-score of the change within its series, to 3 significant digits.
    pub z_score: f64,
    /// Citations of the previous and the changed value.
    pub citation_ids: [String; 2],
}

/// One contradiction, from the corpus' record (`discoveries.json`) without its note.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ContradictionItem {
    /// Concordance pair id; its note (why the two may differ) is in `pair_notes`, once.
    pub pair: String,
    /// ISO3.
    pub country: String,
    /// Year.
    pub year: i32,
    /// Reference indicator.
    pub left_indicator: String,
    /// Its value.
    pub left_value: f64,
    /// Compared indicator.
    pub right_indicator: String,
    /// Its value in the reference unit (times the third cell's value, for a per-capita pair), to 12
    /// significant digits.
    pub right_value_aligned: f64,
    /// `right - left`, in the reference unit, to 12 significant digits.
    pub difference: f64,
    /// |difference| over the largest difference the pair's tolerance allows (> 1 by definition), to 3
    /// significant digits.
    pub tolerance_ratio: f64,
    /// Citations of the left and right values, and of the value the right one is multiplied by
    /// (population, for a per-capita pair), when there is one.
    pub citation_ids: Vec<String>,
}

fn handle(
    corpus: &Corpus,
    input: GetDiscoveriesInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, DiscoveriesResult>, ToolError> {
    let limit = input.limit.unwrap_or(10) as usize;
    if !(1..=40).contains(&limit) {
        return Err(ToolError::Invalid(format!("limit {limit}: give 1 to 40")));
    }
    let pillar = arguments::optional_pillar(corpus, input.parameter.as_deref())?;
    let country = arguments::optional_country(corpus, input.country.as_deref())?
        .map(|country| country.iso3.as_str());
    let indicator = arguments::optional_metric(corpus, input.indicator.as_deref())?
        .map(|metric| metric.id.as_str());
    let discoveries = corpus.discoveries().map_err(ToolError::Internal)?;
    let baked = &corpus.baked;
    let in_scope = |indicators: [&str; 2], iso3: &str| {
        country.is_none_or(|country| country == iso3)
            && indicator.is_none_or(|wanted| indicators.contains(&wanted))
            && pillar.is_none_or(|pillar| {
                baked
                    .metric(indicators[0])
                    .is_some_and(|metric| metric.pillar == pillar.id)
            })
    };
    let wants = |kind: DiscoveryKind| input.kind.is_none_or(|wanted| wanted == kind);
    let matching_anomalies: Vec<&corpus::Anomaly> = discoveries
        .anomalies
        .iter()
        .filter(|_| wants(DiscoveryKind::Anomalies))
        .filter(|anomaly| in_scope([&anomaly.indicator, &anomaly.indicator], &anomaly.country))
        .collect();
    let matching_contradictions: Vec<&corpus::Contradiction> = discoveries
        .contradictions
        .iter()
        .filter(|_| wants(DiscoveryKind::Contradictions))
        .filter(|item| in_scope([&item.left_indicator, &item.right_indicator], &item.country))
        .collect();
    let mut by_country: std::collections::BTreeMap<&str, usize> = Default::default();
    for item in &matching_contradictions {
        *by_country.entry(&item.country).or_default() += 1;
    }
    let mut contradictions_by_country: Vec<(String, usize)> = by_country
        .into_iter()
        .map(|(country, count)| (country.to_string(), count))
        .collect();
    contradictions_by_country
        .sort_by(|left, right| right.1.cmp(&left.1).then(left.0.cmp(&right.0)));
    let longest = matching_anomalies.len().max(matching_contradictions.len());
    let (offset, next_cursor) = paging::page(input.cursor.as_deref(), limit, longest)?;
    let anomalies: Vec<AnomalyItem> = matching_anomalies
        .iter()
        .skip(offset)
        .take(limit)
        .filter_map(|anomaly| {
            let metric = baked.metric(&anomaly.indicator)?;
            Some(AnomalyItem {
                indicator: metric.id.clone(),
                name: metric.names.get(lang).to_string(),
                unit: metric.unit.clone(),
                country: anomaly.country.clone(),
                from_year: anomaly.previous_year,
                to_year: anomaly.year,
                // Derived: the change without the noise of binary subtraction, the z-score to 3 digits.
                change: significant(anomaly.change, 12),
                z_score: significant(anomaly.z_score, 3),
                citation_ids: anomaly.citation_ids.clone(),
            })
        })
        .collect();
    let mut pair_notes = std::collections::BTreeMap::new();
    let contradictions: Vec<ContradictionItem> = matching_contradictions
        .iter()
        .skip(offset)
        .take(limit)
        .map(|item| {
            pair_notes
                .entry(item.pair.clone())
                .or_insert_with(|| item.note.clone());
            ContradictionItem {
                pair: item.pair.clone(),
                country: item.country.clone(),
                year: item.year,
                left_indicator: item.left_indicator.clone(),
                left_value: item.left_value,
                right_indicator: item.right_indicator.clone(),
                // Derived: without the noise of binary arithmetic, the ratio to 3 digits.
                right_value_aligned: significant(item.right_value_aligned, 12),
                difference: significant(item.difference, 12),
                tolerance_ratio: significant(item.tolerance_ratio, 3),
                citation_ids: item.citation_ids.clone(),
            }
        })
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
    let citations = answer::citation_records(corpus, ids)?;
    let result = DiscoveriesResult {
        anomalies,
        contradictions,
        total_anomalies: matching_anomalies.len(),
        total_contradictions: matching_contradictions.len(),
        offset,
        next_cursor,
        contradictions_by_country,
        pair_notes,
        sources: vec![display::source_link(corpus, "discoveries", None)],
    };
    Ok(ToolAnswer {
        result,
        citations,
        display: None,
        records: Vec::new(),
    })
}
