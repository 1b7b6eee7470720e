//! Data health (`data_health.json`): how complete, fresh, observed and traceable a pillar's values are in
//! one country, a summary per pillar over the region, and the refresh work-list of sources. The bake
//! computes it with [`data_health`]; the server's `get_data_health` serves it and adds the anomalies.
//!
//! Everything is measured against the corpus' **reference year**, the newest year with an observation
//! (not a projection) in any indicator and country — never the wall clock, so the same corpus always
//! gives the same answer. Freshness counts observations only: a projection is not new data.
//!
//! **Confidence score** of a pillar in a country, 0 to 100, rounded to one decimal:
//! `30 · coverage + 30 · freshness + 20 · observed + 20 · provenance`, where
//! - coverage is the share of the pillar's indicators with at least one value for the country;
//! - freshness, of those, the share with an observation within [`FRESH_YEARS`] of the reference year;
//! - observed, the share whose latest value is an observation rather than a projection;
//! - provenance, the share whose citation links to the publisher's page for that indicator *and*
//!   country (the source's deep link names the country), rather than to a landing page where the
//!   reader has to find the value.
//!
//! The three last shares are 0 when the country has no value in the pillar.
//!
//! An indicator **absent by design** — declared with a partial `coverage` in `data/aggregation.toml`
//! (CPIA: IDA-eligible countries only) and without any value for the country — is not a coverage gap:
//! it is listed in `absent_by_design`, not in `missing`, and left out of the coverage share's
//! denominator (Chile is not IDA-eligible, so it has no CPIA and is not penalised for it).
//!
//! **Reliability score**, 0 to 100, one decimal, separate from the presence-based confidence score:
//! `40 · (1 − modelled) + 30 · (1 − estimate) + 30 · vintage`, over the indicators with data, where
//! - modelled is the share whose latest value is flagged `modelled` (a publisher's model, e.g. ILO's
//!   modelled unemployment, not a measurement);
//! - estimate, the share whose latest value is flagged `estimate` (a publisher's estimate);
//! - vintage, the mean of `max(0, 1 − age / VINTAGE_HORIZON_YEARS)`, age being the years between the
//!   indicator's release (its vintage's year) and the newest release in the corpus.
//!
//! It is 0 when the country has no value in the pillar.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::{Metric, SourceRecord};

/// Years behind the reference year after which a latest value counts as stale.
pub const FRESH_YEARS: i32 = 3;

/// Countries listed as a pillar's weakest in the regional summary.
pub const WEAKEST_COUNTRIES: usize = 3;

/// Sovereign countries an indicator must observe for broad recent coverage ([`PillarCoverage`]).
pub const BROAD_COVERAGE_COUNTRIES: usize = 20;

/// The first year that counts as recent for [`PillarCoverage`].
pub const RECENT_FROM_YEAR: i32 = 2019;

/// Years of release age after which an indicator's vintage adds nothing to the reliability score.
pub const VINTAGE_HORIZON_YEARS: f64 = 5.0;

/// The flag of a publisher's modelled estimate.
pub const MODELLED_FLAG: &str = "modelled";

/// The flag of a publisher's estimate (set by the bake where the publisher marks one).
pub const ESTIMATE_FLAG_NAME: &str = "estimate";

/// The flags of values that are not observations, for [`PillarCoverage`]: the publisher's projections
/// and the modelled estimates.
pub const NOT_OBSERVED_FLAGS: [&str; 2] = [crate::PROJECTION_FLAG, "modelled"];

/// How many of a pillar's indicators cover the region broadly and recently: observed (neither projected
/// nor modelled) in at least [`BROAD_COVERAGE_COUNTRIES`] of the region's sovereign states (the 33 of
/// the country list's `is_independent`) in [`RECENT_FROM_YEAR`] or later.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PillarCoverage {
    /// Pillar id.
    pub parameter: String,
    /// Indicators in the pillar.
    pub indicators: usize,
    /// Of those, with broad recent coverage.
    pub broad_recent: usize,
    /// Their ids, sorted.
    pub broad_recent_indicators: Vec<String>,
}

/// Broad recent coverage per pillar (ids in registry order): `recent_countries` gives, per metric id,
/// the number of sovereign countries with an observation (no flag of [`NOT_OBSERVED_FLAGS`]) in
/// [`RECENT_FROM_YEAR`] or later.
pub fn pillar_coverage(
    metrics: &[Metric],
    pillars: &[&str],
    recent_countries: impl Fn(&str) -> usize,
) -> Vec<PillarCoverage> {
    pillars
        .iter()
        .map(|&pillar| {
            let in_pillar: Vec<&Metric> = metrics
                .iter()
                .filter(|metric| metric.pillar == pillar)
                .collect();
            let mut broad: Vec<String> = in_pillar
                .iter()
                .filter(|metric| recent_countries(&metric.id) >= BROAD_COVERAGE_COUNTRIES)
                .map(|metric| metric.id.clone())
                .collect();
            broad.sort();
            PillarCoverage {
                parameter: pillar.to_string(),
                indicators: in_pillar.len(),
                broad_recent: broad.len(),
                broad_recent_indicators: broad,
            }
        })
        .collect()
}

/// Whether a value with these `|`-separated flags is an observation for [`PillarCoverage`].
pub fn is_observed(flags: &str) -> bool {
    !flags
        .split('|')
        .any(|flag| NOT_OBSERVED_FLAGS.contains(&flag))
}

/// The whole `data_health.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataHealth {
    /// The newest year with a value in the corpus, against which freshness is measured.
    pub reference_year: i32,
    /// One entry per pillar and country of the registry, sorted by (pillar, country).
    pub pillar_countries: Vec<PillarCountryHealth>,
    /// One line per pillar, in the pillar registry's order.
    pub pillars: Vec<PillarSummary>,
    /// Sources with indicators in the corpus, most out of date first (then by id).
    pub refresh_work_list: Vec<RefreshItem>,
    /// Broad recent coverage per pillar, in the pillar registry's order.
    #[serde(default)]
    pub coverage: Vec<PillarCoverage>,
}

/// One pillar in one country.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PillarCountryHealth {
    /// Pillar id.
    pub parameter: String,
    /// ISO3.
    pub country: String,
    /// 0 to 100; the formula is in the module documentation and the tool description.
    pub confidence_score: f64,
    /// Indicators in the pillar.
    pub indicators: usize,
    /// Of those, with at least one value for the country.
    pub with_data: usize,
    /// Of those, with an observation (not a projection) within [`FRESH_YEARS`] of the reference year.
    pub fresh: usize,
    /// Share of the latest values that are observations, not projections, in percent.
    pub observed_percent: f64,
    /// Share of the latest values whose citation links to the publisher's page for that indicator and
    /// country, in percent.
    pub provenance_percent: f64,
    /// Vintage of each source with values, by source id.
    pub vintages: BTreeMap<String, String>,
    /// Indicator ids without a value for the country (coverage gaps).
    pub missing: Vec<String>,
    /// Indicators whose latest observation is older than [`FRESH_YEARS`] before the reference year:
    /// (id, year of that observation), oldest first.
    pub stale: Vec<(String, i32)>,
    /// Indicators with projections but no observation for the country: (id, latest projected year).
    /// With `fresh` and `stale`, they add up to `with_data`.
    pub projections_only: Vec<(String, i32)>,
    /// Indicators without a value for the country whose publisher covers only some countries by design
    /// (declared `coverage`): (id, coverage). Not coverage gaps: left out of `missing` and of the
    /// coverage share's denominator.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent_by_design: Vec<(String, String)>,
    /// 0 to 100, separate from presence: how far the values present can be relied on (module
    /// documentation: modelled and estimate shares, vintage age).
    #[serde(default)]
    pub reliability_score: f64,
    /// The shares behind `reliability_score`.
    #[serde(default)]
    pub reliability: Reliability,
}

/// What the reliability score of a pillar in a country rests on, over the indicators with data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Reliability {
    /// Share of the latest values flagged `modelled`, in percent.
    pub modelled_percent: f64,
    /// Share of the latest values flagged `estimate`, in percent.
    pub estimate_percent: f64,
    /// Mean years between each indicator's release and the newest release in the corpus, one decimal.
    pub mean_vintage_age_years: f64,
    /// The newest release year in the corpus the ages are measured from.
    pub newest_vintage_year: i32,
}

/// One pillar over the region.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PillarSummary {
    /// Pillar id.
    pub parameter: String,
    /// Indicators in the pillar.
    pub indicators: usize,
    /// Indicators whose newest observation (any country) is within [`FRESH_YEARS`] of the reference year.
    pub fresh_indicators: usize,
    /// Mean number of countries with data per indicator, one decimal.
    pub mean_countries: f64,
    /// Mean confidence score over the countries with at least one value in the pillar, one decimal.
    pub mean_confidence_score: f64,
    /// Mean reliability score over the same countries, one decimal.
    #[serde(default)]
    pub mean_reliability_score: f64,
    /// The countries with data and the lowest confidence scores, lowest first: (ISO3, score).
    pub weakest: Vec<(String, f64)>,
}

/// One source of the refresh work-list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RefreshItem {
    /// Source id.
    pub source: String,
    /// Release baked.
    pub vintage: String,
    /// Retrieval date of its raw files (ISO 8601).
    pub retrieved_at: String,
    /// Newest observed year among its indicators (projections excluded).
    pub newest_year: i32,
    /// Reference year minus newest year.
    pub lag_years: i32,
    /// Its indicators in the corpus.
    pub indicators: usize,
    /// Of those, the ones whose newest observation (any country) is older than [`FRESH_YEARS`] before
    /// the reference year.
    pub stale_indicators: usize,
    /// For an older vintage kept citable: the source of the newer vintage that answers by default (no
    /// refresh due: its publisher will not revise it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

/// The latest values of one indicator in one country, as health needs them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latest {
    /// Year of the latest value, projection or not.
    pub year: i32,
    /// Whether that latest value is a projection rather than an observation.
    pub projection: bool,
    /// Year of the latest observation (projections excluded), if any.
    pub observed_year: Option<i32>,
    /// Whether the latest value is flagged `modelled`.
    pub modelled: bool,
    /// Whether the latest value is flagged `estimate`.
    pub estimate: bool,
}

impl Latest {
    /// Folds the rows of one series, in any order: the `year` and `|`-separated `flags` of each row.
    pub fn of_series<'a>(rows: impl IntoIterator<Item = (i32, &'a str)>) -> Option<Latest> {
        rows.into_iter()
            .fold(None, |latest: Option<Latest>, (year, flags)| {
                let has = |wanted: &str| flags.split('|').any(|flag| flag == wanted);
                let projection = has(crate::PROJECTION_FLAG);
                let mut next = latest.unwrap_or(Latest {
                    year,
                    projection,
                    observed_year: None,
                    modelled: false,
                    estimate: false,
                });
                if year >= next.year {
                    next.year = year;
                    next.projection = projection;
                    next.modelled = has(MODELLED_FLAG);
                    next.estimate = has(ESTIMATE_FLAG_NAME);
                }
                if !projection {
                    next.observed_year = next.observed_year.max(Some(year));
                }
                Some(next)
            })
    }
}

/// Whether the source's citations link to the page of one country (its deep link names the country).
pub fn links_to_country(source: &SourceRecord) -> bool {
    source.deep_link.contains("{iso3}") || source.deep_link.contains("{iso2}")
}

/// The health of the pillar `pillar` (its `metrics`) in `country`; `latest` gives the latest values of a
/// metric in that country, `None` when it has none. Sources are looked up by id in `sources`.
pub fn pillar_country_health(
    reference_year: i32,
    pillar: &str,
    country: &str,
    metrics: &[&Metric],
    sources: &[SourceRecord],
    latest: impl Fn(&Metric) -> Option<Latest>,
) -> PillarCountryHealth {
    pillar_country_health_with(
        reference_year,
        pillar,
        country,
        metrics,
        sources,
        &BTreeMap::new(),
        latest,
    )
}

/// The year of a vintage (`2026-07` → 2026), if it starts with one.
pub fn vintage_year(vintage: &str) -> Option<i32> {
    vintage.get(..4)?.parse().ok()
}

/// [`pillar_country_health`] with the declared partial coverage of some metrics (`coverage`, metric id
/// → who the publisher covers): such a metric without a value for the country is absent by design.
pub fn pillar_country_health_with(
    reference_year: i32,
    pillar: &str,
    country: &str,
    metrics: &[&Metric],
    sources: &[SourceRecord],
    coverage: &BTreeMap<String, String>,
    latest: impl Fn(&Metric) -> Option<Latest>,
) -> PillarCountryHealth {
    let (mut missing, mut stale, mut vintages) = (Vec::new(), Vec::new(), BTreeMap::new());
    let (mut projections_only, mut absent_by_design) = (Vec::new(), Vec::new());
    let (mut with_data, mut fresh, mut observed, mut linked) = (0usize, 0usize, 0usize, 0usize);
    let (mut modelled, mut estimate, mut vintage_ages) = (0usize, 0usize, Vec::new());
    let newest_vintage_year = sources
        .iter()
        .filter_map(|source| vintage_year(&source.vintage))
        .max()
        .unwrap_or_default();
    for metric in metrics {
        let Some(latest) = latest(metric) else {
            match coverage.get(&metric.id) {
                Some(declared) => absent_by_design.push((metric.id.clone(), declared.clone())),
                None => missing.push(metric.id.clone()),
            }
            continue;
        };
        with_data += 1;
        observed += usize::from(!latest.projection);
        modelled += usize::from(latest.modelled);
        estimate += usize::from(latest.estimate);
        vintage_ages.push(
            vintage_year(&metric.vintage).map_or(VINTAGE_HORIZON_YEARS, |year| {
                f64::from(newest_vintage_year - year).max(0.0)
            }),
        );
        match latest.observed_year {
            Some(year) if year >= reference_year - FRESH_YEARS => fresh += 1,
            Some(year) => stale.push((metric.id.clone(), year)),
            None => projections_only.push((metric.id.clone(), latest.year)),
        }
        let source = sources.iter().find(|source| source.id == metric.source_id);
        linked += usize::from(source.is_some_and(links_to_country));
        vintages.insert(metric.source_id.clone(), metric.vintage.clone());
    }
    stale.sort_by(|(left_id, left_year), (right_id, right_year)| {
        left_year.cmp(right_year).then(left_id.cmp(right_id))
    });
    let share = |count: usize, of: usize| {
        if of == 0 {
            0.0
        } else {
            count as f64 / of as f64
        }
    };
    let expected = metrics.len() - absent_by_design.len();
    let confidence = 30.0 * share(with_data, expected)
        + 30.0 * share(fresh, with_data)
        + 20.0 * share(observed, with_data)
        + 20.0 * share(linked, with_data);
    let mean_age = if vintage_ages.is_empty() {
        0.0
    } else {
        vintage_ages.iter().sum::<f64>() / vintage_ages.len() as f64
    };
    let vintage_score = if vintage_ages.is_empty() {
        0.0
    } else {
        vintage_ages
            .iter()
            .map(|age| (1.0 - age / VINTAGE_HORIZON_YEARS).max(0.0))
            .sum::<f64>()
            / vintage_ages.len() as f64
    };
    let reliability_score = if with_data == 0 {
        0.0
    } else {
        40.0 * (1.0 - share(modelled, with_data))
            + 30.0 * (1.0 - share(estimate, with_data))
            + 30.0 * vintage_score
    };
    PillarCountryHealth {
        parameter: pillar.to_string(),
        country: country.to_string(),
        confidence_score: one_decimal(confidence),
        indicators: metrics.len(),
        with_data,
        fresh,
        observed_percent: one_decimal(100.0 * share(observed, with_data)),
        provenance_percent: one_decimal(100.0 * share(linked, with_data)),
        vintages,
        missing,
        stale,
        projections_only,
        absent_by_design,
        reliability_score: one_decimal(reliability_score),
        reliability: Reliability {
            modelled_percent: one_decimal(100.0 * share(modelled, with_data)),
            estimate_percent: one_decimal(100.0 * share(estimate, with_data)),
            mean_vintage_age_years: one_decimal(mean_age),
            newest_vintage_year,
        },
    }
}

/// The whole health view: every pillar (`pillars`, ids in registry order) in every country of
/// `countries`, the per-pillar summaries and the refresh work-list; the caller adds the coverage
/// ([`pillar_coverage`]). `latest` gives the latest values of
/// a metric in a country.
pub fn data_health(
    metrics: &[Metric],
    sources: &[SourceRecord],
    pillars: &[&str],
    countries: &[&str],
    coverage: &BTreeMap<String, String>,
    latest: impl Fn(&Metric, &str) -> Option<Latest>,
) -> DataHealth {
    // The newest observation of each metric, any country.
    let newest_observed: HashMap<&str, i32> = metrics
        .iter()
        .filter_map(|metric| {
            let newest = countries
                .iter()
                .filter_map(|country| latest(metric, country)?.observed_year)
                .max()?;
            Some((metric.id.as_str(), newest))
        })
        .collect();
    let reference_year = newest_observed.values().copied().max().unwrap_or_default();
    let mut by_pillar: HashMap<&str, Vec<&Metric>> = HashMap::new();
    for metric in metrics {
        by_pillar.entry(&metric.pillar).or_default().push(metric);
    }
    let is_fresh = |metric: &Metric| {
        newest_observed
            .get(metric.id.as_str())
            .is_some_and(|&year| year >= reference_year - FRESH_YEARS)
    };
    let mut pillar_countries = Vec::new();
    let mut summaries = Vec::new();
    for &pillar in pillars {
        let pillar_metrics = by_pillar.get(pillar).map(Vec::as_slice).unwrap_or_default();
        let healths: Vec<PillarCountryHealth> = countries
            .iter()
            .map(|&country| {
                pillar_country_health_with(
                    reference_year,
                    pillar,
                    country,
                    pillar_metrics,
                    sources,
                    coverage,
                    |metric| latest(metric, country),
                )
            })
            .collect();
        let fresh_indicators = pillar_metrics
            .iter()
            .filter(|metric| is_fresh(metric))
            .count();
        summaries.push(pillar_summary(
            pillar,
            pillar_metrics,
            fresh_indicators,
            &healths,
        ));
        pillar_countries.extend(healths);
    }
    pillar_countries.sort_by(|left, right| {
        (&left.parameter, &left.country).cmp(&(&right.parameter, &right.country))
    });
    let mut refresh_work_list: Vec<RefreshItem> = sources
        .iter()
        .filter_map(|source| {
            let source_metrics: Vec<&Metric> = metrics
                .iter()
                .filter(|metric| metric.source_id == source.id)
                .collect();
            let newest_year = source_metrics
                .iter()
                .filter_map(|metric| newest_observed.get(metric.id.as_str()).copied())
                .max()?;
            Some(RefreshItem {
                source: source.id.clone(),
                vintage: source.vintage.clone(),
                retrieved_at: source.retrieved_at.clone(),
                newest_year,
                lag_years: reference_year - newest_year,
                indicators: source_metrics.len(),
                stale_indicators: source_metrics
                    .iter()
                    .filter(|metric| !is_fresh(metric))
                    .count(),
                superseded_by: source.superseded_by.clone(),
            })
        })
        .collect();
    refresh_work_list.sort_by(|left, right| {
        right
            .lag_years
            .cmp(&left.lag_years)
            .then(left.source.cmp(&right.source))
    });
    DataHealth {
        reference_year,
        pillar_countries,
        pillars: summaries,
        refresh_work_list,
        coverage: Vec::new(),
    }
}

fn pillar_summary(
    pillar: &str,
    metrics: &[&Metric],
    fresh_indicators: usize,
    healths: &[PillarCountryHealth],
) -> PillarSummary {
    let countries: u32 = metrics.iter().map(|metric| metric.coverage.countries).sum();
    let mut with_data: Vec<&PillarCountryHealth> = healths
        .iter()
        .filter(|health| health.with_data > 0)
        .collect();
    let mean_confidence = if with_data.is_empty() {
        0.0
    } else {
        with_data
            .iter()
            .map(|health| health.confidence_score)
            .sum::<f64>()
            / with_data.len() as f64
    };
    let mean_reliability = if with_data.is_empty() {
        0.0
    } else {
        with_data
            .iter()
            .map(|health| health.reliability_score)
            .sum::<f64>()
            / with_data.len() as f64
    };
    with_data.sort_by(|left, right| {
        left.confidence_score
            .total_cmp(&right.confidence_score)
            .then(left.country.cmp(&right.country))
    });
    PillarSummary {
        parameter: pillar.to_string(),
        indicators: metrics.len(),
        fresh_indicators,
        mean_countries: if metrics.is_empty() {
            0.0
        } else {
            one_decimal(f64::from(countries) / metrics.len() as f64)
        },
        mean_confidence_score: one_decimal(mean_confidence),
        mean_reliability_score: one_decimal(mean_reliability),
        weakest: with_data
            .iter()
            .take(WEAKEST_COUNTRIES)
            .map(|health| (health.country.clone(), health.confidence_score))
            .collect(),
    }
}

fn one_decimal(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::Latest;

    #[test]
    fn the_latest_observation_is_kept_apart_from_a_later_projection() {
        let latest =
            Latest::of_series([(2017, ""), (2019, "projection"), (2018, "")]).expect("three rows");
        assert_eq!(
            latest,
            Latest {
                year: 2019,
                projection: true,
                observed_year: Some(2018),
                modelled: false,
                estimate: false,
            }
        );
        assert_eq!(Latest::of_series([]), None);
    }
}
