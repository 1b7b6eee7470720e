//! `get_data_health`: how fresh, complete and well-sourced the data are.
//!
//! With `parameter` and `country`: a confidence score, the observed share (values that are observations
//! rather than projections), vintages, coverage gaps (indicators without data, or stale), and the
//! anomalies of that pillar and country. Without arguments: a summary per pillar over the region and the
//! refresh work-list (sources by how far their newest data lag behind the corpus' reference year).
//!
//! Reads the metric registry (`metrics`), the observation table (`observations`) and the bake's
//! discoveries (`discoveries`). The reference year is the newest year in the corpus (never the wall
//! clock, so answers depend only on the corpus). Confidence score, 0 to 100:
//! `40 · coverage share + 40 · fresh share + 20 · observed share`, where coverage share is the pillar's
//! indicators with data for the country, fresh share those whose latest year is within 3 years of the
//! reference year, and observed share the latest values that are not projections.

use std::collections::BTreeMap;

use corpus::Lang;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec,
    common::{self, SourceLink},
};
use crate::load::Corpus;

/// Years behind the reference year after which a value counts as stale.
pub const FRESH_YEARS: i32 = 3;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_data_health",
        "How fresh, complete and well-sourced the data are",
        "With parameter (pillar) and country: a 0-100 confidence score, the share of observed (not projected) values, \
         vintages, coverage gaps (indicators without data or stale) and anomalies. Without arguments: a per-pillar \
         summary for the region and the refresh work-list of sources, most out of date first. The reference year is \
         the newest year in the corpus.",
        &["metrics", "observations", "discoveries", "sources"],
        handle,
    )
}

/// Arguments of `get_data_health` (both or neither).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDataHealthInput {
    /// Pillar: id or name in es/en/pt.
    #[serde(default)]
    pub parameter: Option<String>,
    /// Country: ISO3 or name.
    #[serde(default)]
    pub country: Option<String>,
}

/// Data health, for one pillar in one country or for the whole region.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DataHealth {
    /// The newest year in the corpus, against which freshness is measured.
    pub reference_year: i32,
    /// With parameter and country: the detail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<PillarHealth>,
    /// Without arguments: one line per pillar.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pillars: Option<Vec<PillarSummary>>,
    /// Without arguments: sources, most out of date first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_work_list: Option<Vec<RefreshItem>>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// One pillar in one country.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PillarHealth {
    /// Pillar id.
    pub parameter: String,
    /// ISO3.
    pub country: String,
    /// 0 to 100 (formula in the tool description).
    pub confidence_score: f64,
    /// Indicators in the pillar.
    pub indicators: usize,
    /// Of those, with data for the country.
    pub with_data: usize,
    /// Of those, latest year within 3 years of the reference year.
    pub fresh: usize,
    /// Share of latest values that are observations, not projections, in percent.
    pub observed_percent: f64,
    /// Vintages of the sources shown, by source id.
    pub vintages: BTreeMap<String, String>,
    /// Indicator ids without data for the country.
    pub missing: Vec<String>,
    /// Indicators whose latest value is older than 3 years before the reference year: (id, latest year).
    pub stale: Vec<(String, i32)>,
    /// Anomalies in this pillar and country: (indicator, year, z-score, citation ids).
    pub anomalies: Vec<AnomalyRef>,
}

/// An anomaly, by reference.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AnomalyRef {
    /// Indicator id.
    pub indicator: String,
    /// Year of the changed value.
    pub year: i32,
    /// Robust z-score.
    pub z_score: f64,
    /// Citations of the two cells.
    pub citation_ids: [String; 2],
}

/// One pillar over the region.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PillarSummary {
    /// Pillar id.
    pub parameter: String,
    /// Indicators.
    pub indicators: usize,
    /// Indicators whose latest year (any country) is within 3 years of the reference year.
    pub fresh_indicators: usize,
    /// Mean number of countries with data per indicator.
    pub mean_countries: f64,
}

/// One source of the refresh work-list.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RefreshItem {
    /// Source id.
    pub source: String,
    /// Release baked.
    pub vintage: String,
    /// Retrieval date of its raw files.
    pub retrieved_at: String,
    /// Newest year with a value among its indicators (projections included).
    pub newest_year: i32,
    /// Reference year minus newest year.
    pub lag_years: i32,
}

fn handle(
    corpus: &Corpus,
    input: GetDataHealthInput,
    _lang: Lang,
) -> Result<ToolAnswer<'_, DataHealth>, ToolError> {
    let baked = &corpus.baked;
    let reference_year = baked
        .metrics()
        .iter()
        .filter_map(|metric| metric.coverage.last_year)
        .max()
        .unwrap_or_default();
    let sources = vec![
        common::source_link(corpus, "metrics", None),
        common::source_link(corpus, "discoveries", None),
    ];
    match (&input.parameter, &input.country) {
        (Some(parameter), Some(country)) => {
            let pillar = common::pillar(corpus, parameter)?;
            let country = common::countries(corpus, std::slice::from_ref(country), 1, 1)?[0];
            let table = baked.observations();
            let metrics: Vec<&corpus::Metric> = baked.metrics().iter().filter(|metric| metric.pillar == pillar.id).collect();
            let (mut missing, mut stale, mut vintages) = (Vec::new(), Vec::new(), BTreeMap::new());
            let (mut with_data, mut fresh, mut observed) = (0usize, 0usize, 0usize);
            for metric in &metrics {
                let rows = table.series(&metric.id, &country.iso3);
                if rows.is_empty() {
                    missing.push(metric.id.clone());
                    continue;
                }
                let latest = table.row(rows.end - 1);
                with_data += 1;
                observed += usize::from(latest.flags.is_empty());
                if latest.year >= reference_year - FRESH_YEARS {
                    fresh += 1;
                } else {
                    stale.push((metric.id.clone(), latest.year));
                }
                vintages.insert(metric.source_id.clone(), metric.vintage.clone());
            }
            let share = |count: usize, of: usize| if of == 0 { 0.0 } else { count as f64 / of as f64 };
            let confidence = 40.0 * share(with_data, metrics.len()) + 40.0 * share(fresh, with_data) + 20.0 * share(observed, with_data);
            let discoveries = corpus.discoveries().map_err(ToolError::Internal)?;
            let anomalies = discoveries
                .anomalies
                .iter()
                .filter(|anomaly| anomaly.country == country.iso3 && metrics.iter().any(|metric| metric.id == anomaly.indicator))
                .take(20)
                .map(|anomaly| AnomalyRef { indicator: anomaly.indicator.clone(), year: anomaly.year, z_score: anomaly.z_score, citation_ids: anomaly.citation_ids.clone() })
                .collect::<Vec<_>>();
            let cited: Vec<String> = anomalies.iter().flat_map(|anomaly| anomaly.citation_ids.iter().cloned()).collect();
            let citations = common::citation_records(corpus, cited.iter().map(String::as_str))?;
            let detail = PillarHealth {
                parameter: pillar.id.clone(),
                country: country.iso3.clone(),
                confidence_score: (confidence * 10.0).round() / 10.0,
                indicators: metrics.len(),
                with_data,
                fresh,
                observed_percent: (share(observed, with_data) * 1000.0).round() / 10.0,
                vintages,
                missing,
                stale,
                anomalies,
            };
            Ok(ToolAnswer { result: DataHealth { reference_year, detail: Some(detail), pillars: None, refresh_work_list: None, sources }, citations, display: None })
        }
        (None, None) => {
            let pillars = baked
                .pillars()
                .pillars()
                .iter()
                .map(|pillar| {
                    let metrics: Vec<&corpus::Metric> = baked.metrics().iter().filter(|metric| metric.pillar == pillar.id).collect();
                    let fresh = metrics.iter().filter(|metric| metric.coverage.last_year.is_some_and(|year| year >= reference_year - FRESH_YEARS)).count();
                    let countries: u32 = metrics.iter().map(|metric| metric.coverage.countries).sum();
                    PillarSummary {
                        parameter: pillar.id.clone(),
                        indicators: metrics.len(),
                        fresh_indicators: fresh,
                        mean_countries: if metrics.is_empty() { 0.0 } else { (f64::from(countries) / metrics.len() as f64 * 10.0).round() / 10.0 },
                    }
                })
                .collect();
            let mut work_list: Vec<RefreshItem> = baked
                .sources()
                .iter()
                .map(|source| {
                    let newest_year = baked.metrics().iter().filter(|metric| metric.source_id == source.id).filter_map(|metric| metric.coverage.last_year).max().unwrap_or_default();
                    RefreshItem { source: source.id.clone(), vintage: source.vintage.clone(), retrieved_at: source.retrieved_at.clone(), newest_year, lag_years: reference_year - newest_year }
                })
                .collect();
            work_list.sort_by(|left, right| right.lag_years.cmp(&left.lag_years).then(left.source.cmp(&right.source)));
            let result = DataHealth { reference_year, detail: None, pillars: Some(pillars), refresh_work_list: Some(work_list), sources };
            Ok(ToolAnswer { result, citations: Vec::new(), display: None })
        }
        _ => Err(ToolError::Invalid("give both parameter and country for a pillar in a country, or neither for the regional summary and the refresh work-list".into())),
    }
}
