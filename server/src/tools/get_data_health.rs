//! `get_data_health`: how complete, fresh, observed and traceable the data are.
//!
//! With `parameter` and `country`: the bake's health of that pillar in that country (confidence score,
//! coverage gaps, stale indicators, observed and provenance shares, vintages) plus the anomalies of that
//! pillar and country, cited. Without arguments: a summary per pillar over the region (mean confidence,
//! weakest countries) and the refresh work-list (sources by how far their newest data lag behind the
//! corpus' reference year).
//!
//! Reads the precomputed data health view (`data_health`, see [`corpus::health`] for every definition
//! and the confidence formula) and the bake's discoveries (`discoveries`). The reference year is the
//! newest year in the corpus, never the wall clock, so answers depend only on the corpus.

use corpus::{
    Lang,
    health::{PillarCountryHealth, PillarSummary, RefreshItem},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec, answer, arguments,
    display::{self, Display, DisplayTable, SourceLink},
};
use crate::load::Corpus;

/// Anomalies listed with a pillar in a country, largest first.
pub const MAX_ANOMALIES: usize = 20;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_data_health",
        "How complete, fresh and traceable the data are",
        "With parameter (pillar) and country: a 0-100 confidence score = 30 x coverage (share of the pillar's \
         indicators with data) + 30 x freshness (latest year within 3 years of the reference year) + 20 x observed \
         (latest value not a projection) + 20 x provenance (cited to the publisher's page for that country), with the \
         coverage gaps (missing and stale indicators), vintages and cited anomalies. Without arguments: a per-pillar \
         summary for the region (mean confidence, weakest countries) and the refresh work-list of sources, most out of \
         date first. The reference year is the newest year in the corpus. Answer: under 40 KB.",
        &["data_health", "discoveries"],
        handle,
    )
}

/// Arguments of `get_data_health` (both or neither).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDataHealthInput {
    /// Pillar: id or name in es/en/pt.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub parameter: Option<String>,
    /// Country: ISO3 or name.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub country: Option<String>,
}

/// Data health, for one pillar in one country or for the whole region.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DataHealthAnswer {
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

/// One pillar in one country: the precomputed health and the anomalies.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PillarHealth {
    /// Coverage, freshness, provenance and the confidence score.
    #[serde(flatten)]
    pub health: PillarCountryHealth,
    /// The record of the score and shares: `calc-health-{pillar}-{iso3}`, the formula, and the citation
    /// ids of the latest value of each indicator with data (resolve_citations gives year and flags).
    pub calculation: HealthCalculation,
    /// Anomalies of this pillar in this country, largest first (up to 20).
    pub anomalies: Vec<AnomalyRef>,
}

/// The record of a pillar's health in a country.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HealthCalculation {
    /// `calc-health-{pillar}-{iso3}`; exists only in this response.
    pub citation_id: String,
    /// How the score and the shares are formed.
    pub formula: String,
    /// Citation ids of the latest value of each indicator with data.
    pub inputs: Vec<String>,
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

fn handle(
    corpus: &Corpus,
    input: GetDataHealthInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, DataHealthAnswer>, ToolError> {
    let view = corpus.data_health().map_err(ToolError::Internal)?;
    let sources = vec![
        display::source_link(corpus, "data_health", None),
        display::source_link(corpus, "discoveries", None),
    ];
    match (&input.parameter, &input.country) {
        (Some(parameter), Some(country)) => {
            let pillar = arguments::pillar(corpus, parameter)?;
            let country = arguments::countries(corpus, std::slice::from_ref(country), 1, 1)?[0];
            let health = corpus
                .pillar_health(&pillar.id, &country.iso3)
                .map_err(ToolError::Internal)?
                .ok_or_else(|| {
                    ToolError::Internal(format!(
                        "data_health.json has no entry for {} in {}",
                        pillar.id, country.iso3
                    ))
                })?;
            let discoveries = corpus.discoveries().map_err(ToolError::Internal)?;
            let anomalies: Vec<AnomalyRef> = discoveries
                .anomalies
                .iter()
                .filter(|anomaly| {
                    anomaly.country == country.iso3
                        && corpus
                            .baked
                            .metric(&anomaly.indicator)
                            .is_some_and(|metric| metric.pillar == pillar.id)
                })
                .take(MAX_ANOMALIES)
                .map(|anomaly| AnomalyRef {
                    indicator: anomaly.indicator.clone(),
                    year: anomaly.year,
                    z_score: anomaly.z_score,
                    citation_ids: anomaly.citation_ids.clone(),
                })
                .collect();
            let citations = answer::citation_records(
                corpus,
                anomalies
                    .iter()
                    .flat_map(|anomaly| anomaly.citation_ids.iter().map(String::as_str)),
            )?;
            let display = detail_display(corpus, health, lang);
            let table = corpus.baked.observations();
            let inputs = corpus
                .baked
                .metrics()
                .iter()
                .filter(|metric| metric.pillar == pillar.id)
                .filter_map(|metric| {
                    let rows = table.series(&metric.id, &country.iso3);
                    (!rows.is_empty()).then(|| table.row(rows.end - 1).citation_id.to_string())
                })
                .collect();
            let detail = PillarHealth {
                health: health.clone(),
                calculation: HealthCalculation {
                    citation_id: format!(
                        "calc-health-{}-{}",
                        pillar.id,
                        country.iso3.to_ascii_lowercase()
                    ),
                    formula: "confidence_score = 30 x with_data/indicators + 30 x fresh/with_data + 20 x \
                              observed share + 20 x provenance share; fresh: an observation within 3 years of \
                              reference_year; observed: latest value not a projection; provenance: cited to the \
                              publisher's page for the country"
                        .into(),
                    inputs,
                },
                anomalies,
            };
            let result = DataHealthAnswer {
                reference_year: view.reference_year,
                detail: Some(detail),
                pillars: None,
                refresh_work_list: None,
                sources,
            };
            Ok(ToolAnswer {
                result,
                citations,
                display: Some(display),
                records: Vec::new(),
            })
        }
        (None, None) => {
            let result = DataHealthAnswer {
                reference_year: view.reference_year,
                detail: None,
                pillars: Some(view.pillars.clone()),
                refresh_work_list: Some(view.refresh_work_list.clone()),
                sources,
            };
            let display = summary_display(corpus, &view.pillars, &view.refresh_work_list, lang);
            Ok(ToolAnswer {
                result,
                citations: Vec::new(),
                display: Some(display),
                records: Vec::new(),
            })
        }
        _ => Err(ToolError::Invalid(
            "give both parameter and country for a pillar in a country, or neither for the regional summary and \
             the refresh work-list"
                .into(),
        )),
    }
}

/// The coverage gaps of a pillar in a country, for a person: one row per missing, stale or
/// projected-only indicator, with its name in the requested language.
fn detail_display(corpus: &Corpus, health: &PillarCountryHealth, lang: Lang) -> Display {
    let (missing, stale, projected) = match lang {
        Lang::Es => ("sin datos", "desactualizado", "solo proyecciones"),
        Lang::En => ("no data", "stale", "projections only"),
        Lang::Pt => ("sem dados", "desatualizado", "só projeções"),
    };
    let name = |id: &str| {
        corpus
            .baked
            .metric(id)
            .map_or(id.to_string(), |metric| metric.names.get(lang).to_string())
    };
    let row = |id: &str, gap: &str, year: Option<i32>| {
        vec![
            name(id).into(),
            id.into(),
            gap.into(),
            year.map_or(serde_json::Value::Null, Into::into),
        ]
    };
    let rows = health
        .missing
        .iter()
        .map(|id| row(id, missing, None))
        .chain(
            health
                .stale
                .iter()
                .map(|(id, year)| row(id, stale, Some(*year))),
        )
        .chain(
            health
                .projections_only
                .iter()
                .map(|(id, year)| row(id, projected, Some(*year))),
        )
        .collect();
    Display {
        tables: vec![DisplayTable {
            title: format!(
                "{} — {}: {} / 100",
                health.parameter, health.country, health.confidence_score
            ),
            columns: ["indicator", "id", "gap", "year"]
                .map(String::from)
                .to_vec(),
            rows,
        }],
        links: Vec::new(),
        charts: Vec::new(),
    }
}

/// The regional summary and the refresh work-list, for a person.
fn summary_display(
    corpus: &Corpus,
    pillars: &[PillarSummary],
    work_list: &[RefreshItem],
    lang: Lang,
) -> Display {
    let pillar_rows = pillars
        .iter()
        .map(|pillar| {
            let name = corpus
                .baked
                .pillars()
                .get(&pillar.parameter)
                .map_or(pillar.parameter.clone(), |found| {
                    found.names.get(lang).to_string()
                });
            vec![
                name.into(),
                pillar.indicators.into(),
                pillar.fresh_indicators.into(),
                pillar.mean_countries.into(),
                pillar.mean_confidence_score.into(),
            ]
        })
        .collect();
    let work_rows = work_list
        .iter()
        .map(|item| {
            vec![
                item.source.clone().into(),
                item.vintage.clone().into(),
                item.newest_year.into(),
                item.lag_years.into(),
                item.stale_indicators.into(),
            ]
        })
        .collect();
    Display {
        tables: vec![
            DisplayTable {
                title: "pillars".into(),
                columns: [
                    "pillar",
                    "indicators",
                    "fresh indicators",
                    "mean countries",
                    "mean confidence",
                ]
                .map(String::from)
                .to_vec(),
                rows: pillar_rows,
            },
            DisplayTable {
                title: "refresh work-list".into(),
                columns: [
                    "source",
                    "vintage",
                    "newest year",
                    "lag (years)",
                    "stale indicators",
                ]
                .map(String::from)
                .to_vec(),
                rows: work_rows,
            },
        ],
        links: Vec::new(),
        charts: Vec::new(),
    }
}
