//! `get_data_health`: how complete, fresh, observed and traceable the data are.
//!
//! With `parameter` and `country`: the bake's health of that pillar in that country (confidence score,
//! coverage gaps, stale indicators, observed and provenance shares, vintages) plus the anomalies of that
//! pillar and country, cited. Without arguments: a summary per pillar over the region (mean confidence,
//! weakest countries) and the refresh work-list (sources by how far their newest data lag behind the
//! corpus' reference year).
//!
//! Reads the precomputed data health view (`data_health`, see [`corpus::health`] for every definition
//! and the confidence formula), the bake's discoveries (`discoveries`) and the corpus' changes
//! (`exports/changes.json`, [`corpus::changes`]). The reference year is the
//! newest year in the corpus, never the wall clock, so answers depend only on the corpus.

use corpus::{
    Lang,
    changes::{ChangeTotals, CorpusVersion, Revision},
    health::{PillarCountryHealth, PillarCoverage, PillarSummary, RefreshItem},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec, answer, arguments,
    display::{self, Display, DisplayTable, SourceLink},
};
use crate::load::Corpus;

/// Anomalies listed with a pillar in a country, largest first.
pub const MAX_ANOMALIES: usize = 5;

/// Largest revisions of the vintage listed without arguments (the whole list is in
/// `/api/v1/changes.json`).
pub const MAX_REVISIONS: usize = 10;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_data_health",
        "How complete, fresh and traceable the data are",
        "With `parameter` and `country`: a 0-100 confidence score (30 coverage + 30 freshness + 20 \
         observed + 20 provenance) with the missing and stale indicators, vintages and cited \
         anomalies, and a 0-100 reliability_score (modelled and estimated shares, release age). \
         Without arguments: per pillar the region's confidence and weakest countries, the sources to \
         refresh, superseded vintages and what changed in this vintage (largest revisions cited).",
        &["data_health", "discoveries"],
        handle,
    )
}

/// Arguments of `get_data_health` (both or neither).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDataHealthInput {
    /// Pillar: id or name.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub parameter: Option<String>,
    /// Country: ISO3 or name.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
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
    /// Without arguments: per pillar, how many indicators are observed in 20+ of the 33 sovereign
    /// countries since 2019 (not projected or modelled); the ids stay out of the default answer's 10 KB
    /// (get_parameter_data shows each indicator's coverage).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Vec<CoverageCount>>,
    /// Without arguments: sources, most out of date first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_work_list: Option<Vec<RefreshItem>>,
    /// Without arguments: older vintages kept citable beside the source that answers by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_vintages: Option<Vec<SupersededVintage>>,
    /// Without arguments: what changed in this vintage against the corpus it replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<VintageChanges>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// An older vintage kept beside the newer one that answers by default.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SupersededVintage {
    /// Source id of the older vintage (`imf_weo_2019`).
    pub source: String,
    /// Its vintage (`2019-04`).
    pub vintage: String,
    /// Source id of the newer vintage (`imf_weo`).
    pub superseded_by: String,
    /// The newer vintage (`2025-04`).
    pub superseded_by_vintage: String,
}

/// What changed in this vintage against the corpus it replaced (from `exports/changes.json`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VintageChanges {
    /// The corpus compared against; absent for a first publication (see `note`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<CorpusVersion>,
    /// This corpus.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<CorpusVersion>,
    /// Why nothing is compared, when nothing is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Totals over every source and curated dataset.
    pub totals: ChangeTotals,
    /// One line per source that changed.
    pub sources: Vec<SourceChangeLine>,
    /// The largest relative revisions (up to 10), each with the old and new value and vintage; the new
    /// value's citation is in `citations`.
    pub top_revisions: Vec<Revision>,
    /// Curated records changed, per dataset: (dataset, added, removed, changed).
    pub records: Vec<(String, usize, usize, usize)>,
    /// The whole comparison (every indicator, every record id).
    pub url: String,
}

/// One source's changes, counted.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SourceChangeLine {
    /// Source id.
    pub source: String,
    /// Vintage before (absent: a new source).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_vintage: Option<String>,
    /// Vintage now (absent: a dropped source).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_vintage: Option<String>,
    /// Values revised.
    pub values_revised: u64,
    /// Country-years added.
    pub observations_added: u64,
    /// Country-years removed.
    pub observations_removed: u64,
    /// Indicators added.
    pub indicators_added: usize,
    /// Indicators dropped.
    pub indicators_dropped: usize,
    /// Indicators of both corpora that changed.
    pub indicators_changed: usize,
}

/// A pillar's broad recent coverage, counted ([`PillarCoverage`] without its ids).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CoverageCount {
    /// Pillar id.
    pub parameter: String,
    /// Indicators in the pillar.
    pub indicators: usize,
    /// Of those, observed in 20+ of the 33 sovereign countries since 2019.
    pub broad_recent: usize,
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
    /// Anomalies of this pillar in this country, the [`MAX_ANOMALIES`] largest first (within the default
    /// answer's 10 KB); get_discoveries with the pillar and country pages them all.
    pub anomalies: Vec<AnomalyRef>,
    /// How many anomalies this pillar has in this country.
    pub anomalies_total: usize,
}

/// The record of a pillar's health in a country.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HealthCalculation {
    /// `calc-health-{pillar}-{iso3}`; exists only in this response.
    pub citation_id: String,
    /// How the score and the shares are formed.
    pub formula: String,
    /// Citation ids of the latest value of each indicator with data, when they are at most
    /// [`LISTED_INPUTS`]; else empty and `inputs_rule` says which cells they are.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// How many cells the score reads (one per indicator with data).
    pub inputs_total: usize,
    /// Which cells the score reads when they are too many to list within the default answer's 10 KB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs_rule: Option<String>,
}

/// Input ids a health record lists at most (a large pillar's inputs are named by their rule).
pub const LISTED_INPUTS: usize = 40;

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
            let of_pillar: Vec<&corpus::Anomaly> = discoveries
                .anomalies
                .iter()
                .filter(|anomaly| {
                    anomaly.country == country.iso3
                        && corpus
                            .baked
                            .metric(&anomaly.indicator)
                            .is_some_and(|metric| metric.pillar == pillar.id)
                })
                .collect();
            let anomalies_total = of_pillar.len();
            let anomalies: Vec<AnomalyRef> = of_pillar
                .into_iter()
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
            let mut inputs: Vec<String> = corpus
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
                    formula: "confidence_score = 30 x with_data/(indicators - absent_by_design) + 30 x \
                              fresh/with_data + 20 x observed share + 20 x provenance share; fresh: an observation \
                              within 3 years of reference_year; observed: latest value not a projection; \
                              provenance: cited to the publisher's page for the country. reliability_score = 40 x \
                              (1 - modelled share) + 30 x (1 - estimate share) + 30 x mean(max(0, 1 - release \
                              age / 5 years)), over the latest values of the indicators with data"
                        .into(),
                    inputs_total: inputs.len(),
                    inputs_rule: (inputs.len() > LISTED_INPUTS).then(|| {
                        inputs.clear();
                        format!(
                            "the latest observation of each of the pillar's indicators with data for {}: the \
                             citation_id get_parameter_data gives each ({{series_id}}-{{year}})",
                            country.iso3
                        )
                    }),
                    inputs,
                },
                anomalies,
                anomalies_total,
            };
            let result = DataHealthAnswer {
                reference_year: view.reference_year,
                detail: Some(detail),
                pillars: None,
                coverage: None,
                refresh_work_list: None,
                superseded_vintages: None,
                changes: None,
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
            let changes = vintage_changes(corpus)?;
            let citations = answer::citation_records(
                corpus,
                changes
                    .top_revisions
                    .iter()
                    .map(|revision| revision.new.citation_id.as_str()),
            )?;
            let result = DataHealthAnswer {
                reference_year: view.reference_year,
                detail: None,
                pillars: Some(view.pillars.clone()),
                coverage: Some(
                    view.coverage
                        .iter()
                        .map(|pillar: &PillarCoverage| CoverageCount {
                            parameter: pillar.parameter.clone(),
                            indicators: pillar.indicators,
                            broad_recent: pillar.broad_recent,
                        })
                        .collect(),
                ),
                refresh_work_list: Some(view.refresh_work_list.clone()),
                superseded_vintages: Some(superseded_vintages(corpus)),
                changes: Some(changes),
                sources,
            };
            let display = summary_display(corpus, &view.pillars, &view.refresh_work_list, lang);
            Ok(ToolAnswer {
                result,
                citations,
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

/// Every source that declares a newer vintage (`superseded_by`), with both vintages, by source id.
fn superseded_vintages(corpus: &Corpus) -> Vec<SupersededVintage> {
    corpus
        .baked
        .sources()
        .iter()
        .filter_map(|source| {
            let newer = corpus.baked.source(source.superseded_by.as_deref()?)?;
            Some(SupersededVintage {
                source: source.id.clone(),
                vintage: source.vintage.clone(),
                superseded_by: newer.id.clone(),
                superseded_by_vintage: newer.vintage.clone(),
            })
        })
        .collect()
}

/// The corpus' changes, summed up per source, with the largest revisions.
///
/// # Errors
/// [`ToolError::Internal`] if `changes.json` exists but cannot be read.
fn vintage_changes(corpus: &Corpus) -> Result<VintageChanges, ToolError> {
    let url = crate::links::api_url("changes.json");
    let Some(changes) = corpus.changes().map_err(ToolError::Internal)? else {
        return Ok(VintageChanges {
            from: None,
            to: None,
            note: Some("this corpus was published without changes.json (baked before the bake compared vintages)".into()),
            totals: ChangeTotals::default(),
            sources: Vec::new(),
            top_revisions: Vec::new(),
            records: Vec::new(),
            url,
        });
    };
    Ok(VintageChanges {
        from: changes.from.clone(),
        to: changes.to.clone(),
        note: changes.note.clone(),
        totals: changes.totals,
        sources: changes
            .sources
            .iter()
            .map(|source| SourceChangeLine {
                source: source.source.clone(),
                old_vintage: source.old_vintage.clone(),
                new_vintage: source.new_vintage.clone(),
                values_revised: source.values_revised,
                observations_added: source.observations_added,
                observations_removed: source.observations_removed,
                indicators_added: source.indicators_added.len(),
                indicators_dropped: source.indicators_dropped.len(),
                indicators_changed: source.indicators.len(),
            })
            .collect(),
        top_revisions: changes
            .top_revisions
            .iter()
            // A revision's new value is in this corpus; its citation must resolve here.
            .filter(|revision| {
                corpus
                    .baked
                    .resolve_citation(&revision.new.citation_id)
                    .is_ok()
            })
            .take(MAX_REVISIONS)
            .cloned()
            .collect(),
        records: changes
            .records
            .iter()
            .map(|records| {
                (
                    records.dataset.clone(),
                    records.added.len(),
                    records.removed.len(),
                    records.changed.len(),
                )
            })
            .collect(),
        url,
    })
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
            marks: Vec::new(),
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
                marks: Vec::new(),
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
                marks: Vec::new(),
            },
        ],
        links: Vec::new(),
        charts: Vec::new(),
    }
}
