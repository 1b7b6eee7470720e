//! Derived views precomputed by the bake (`series_stats.json`): per indicator and country, the latest
//! value, the year-over-year change, CAGR over 5 and 10 years and the 10-year trend, computed with
//! [`crate::analytics`] — the same code the server's `compute` runs, so both give the same numbers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analytics::{Aggregation, Scale};

/// Summary statistics of one country's series of one indicator (countries only). `latest` may be a
/// projection (see `latest_flags`); every derived figure — change, CAGR, trend, forecast — uses observed
/// values only (flags without `projection`) and ends at `last_observed_year`, and CAGR is given only
/// where the metric's scale is `ratio` (see [`MetricRule`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesStats {
    /// Metric id.
    pub indicator: String,
    /// ISO3.
    pub country: String,
    /// Values in the series (observations and projections).
    pub n: u32,
    /// First year with a value.
    pub first_year: i32,
    /// Latest year with a value (observed or projected).
    pub latest_year: i32,
    /// Latest value.
    pub latest_value: f64,
    /// Citation of the latest value.
    pub latest_citation_id: String,
    /// Flags of the latest value (`projection`), empty when none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub latest_flags: String,
    /// The latest observed year (no `projection` flag), where change, CAGR and trend end; `None` for a
    /// series of projections only.
    #[serde(default)]
    pub last_observed_year: Option<i32>,
    /// The value of that year.
    #[serde(default)]
    pub last_observed_value: Option<f64>,
    /// The observed year before `last_observed_year`, if any.
    pub previous_year: Option<i32>,
    /// Last observed minus previous observed value, in the unit (never a projection minus an observation).
    pub change_from_previous: Option<f64>,
    /// Compound annual growth rate from `last_observed_year - 5` to `last_observed_year`, when both are
    /// observed and positive and the metric's scale is `ratio` (never of a growth rate or an index
    /// crossing zero).
    pub cagr_5y: Option<f64>,
    /// The same over 10 years.
    pub cagr_10y: Option<f64>,
    /// Least-squares slope per year over the observed values of the last 10 years up to
    /// `last_observed_year` (at least 3 points).
    pub trend_slope: Option<f64>,
    /// R² of that trend; `None` for a flat window, where it is undefined.
    pub trend_r_squared: Option<f64>,
    /// The first and last year that trend fits (the window it covers).
    #[serde(default)]
    pub trend_years: Option<(i32, i32)>,
    /// That trend extended 5 years past the last observed year, with its 95 % prediction interval:
    /// (year, value, lower, upper) — see [`crate::analytics::forecast`].
    pub forecast_5y: Option<(i32, f64, f64, f64)>,
    /// Whether `forecast_5y`'s value or interval left the metric's valid range and was clipped to it
    /// ([`clip_forecast`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forecast_clipped: bool,
}

/// A forecast held to the metric's valid range: the value and both bounds clipped into `range`, and why,
/// when any of them was outside it (a share above 100 %, a negative rate). A linear trend does not know
/// its scale's limits; the clipped figure is the nearest possible value, not a fitted one.
pub fn clip_forecast(
    forecast: crate::analytics::Forecast,
    range: &crate::ValidRange,
) -> (crate::analytics::Forecast, Option<String>) {
    let clip = |value: f64| {
        let value = range.min.map_or(value, |min| value.max(min));
        range.max.map_or(value, |max| value.min(max))
    };
    let clipped = crate::analytics::Forecast {
        value: clip(forecast.value),
        lower: clip(forecast.lower),
        upper: clip(forecast.upper),
        ..forecast
    };
    let reason = (clipped != forecast).then(|| {
        format!(
            "the linear trend's value {} and 95% interval [{}, {}] leave the valid range [{}, {}]: clipped to \
             it (the trend cannot continue past the scale's limits)",
            forecast.value,
            forecast.lower,
            forecast.upper,
            range.min.map_or("-inf".to_string(), |min| min.to_string()),
            range.max.map_or("inf".to_string(), |max| max.to_string()),
        )
    });
    (clipped, reason)
}

/// Years of the trend window of [`SeriesStats`] (the last observed year and the nine before it), also the
/// default fit window of `compute` op `forecast`, so both give the same forecast.
pub const TREND_YEARS: i32 = 10;

/// Years past the last observed year a linear-trend forecast may reach (no further than its fit window).
pub const MAX_FORECAST_HORIZON: i32 = 10;

/// An unusual year-over-year change in one series: between consecutive observations at most
/// [`MAX_CHANGE_GAP`] years apart (a longer gap is not a year-over-year change), its robust z-score among
/// that series' changes per year is at least [`ANOMALY_Z`] in absolute value, and the change is at least
/// [`ANOMALY_MIN_SHARE`] of the series' mean level (so floating-point noise in smooth, interpolated series
/// is not reported).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Anomaly {
    /// Metric id.
    pub indicator: String,
    /// ISO3.
    pub country: String,
    /// Year of the changed value.
    pub year: i32,
    /// The previous observed year.
    pub previous_year: i32,
    /// Value minus the previous value, in the unit.
    pub change: f64,
    /// `change / (year - previous_year)`: the change annualised (equal to `change` for consecutive years).
    #[serde(default)]
    pub change_per_year: f64,
    /// Robust z-score of the change per year among the series' changes per year (median and MAD).
    pub z_score: f64,
    /// Citations of the previous and the changed value.
    pub citation_ids: [String; 2],
}

/// The largest gap, in years, between two observations whose difference is read as a year-over-year
/// change (annualised); observations further apart are a gap in the series, not a change.
pub const MAX_CHANGE_GAP: i32 = 2;

/// The |robust z| from which a change is reported as an anomaly.
pub const ANOMALY_Z: f64 = 5.0;
/// The smallest change, as a share of the series' mean absolute level, reported as an anomaly.
pub const ANOMALY_MIN_SHARE: f64 = 0.01;

/// A country-year where two publishers' values of the same quantity differ beyond the declared tolerance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Contradiction {
    /// Concordance pair id.
    pub pair: String,
    /// ISO3.
    pub country: String,
    /// Year.
    pub year: i32,
    /// Reference indicator and its value.
    pub left_indicator: String,
    /// Its value.
    pub left_value: f64,
    /// Compared indicator.
    pub right_indicator: String,
    /// Its value in the reference unit.
    pub right_value_aligned: f64,
    /// `right - left`, in the reference unit.
    pub difference: f64,
    /// |difference| divided by the largest difference the pair's tolerance allows (> 1 by definition).
    pub tolerance_ratio: f64,
    /// Citations of the left and right values, and of the value the right one was multiplied by
    /// (population, for a per-capita pair), when there is one.
    pub citation_ids: Vec<String>,
    /// Why the two may differ (the pair's note).
    pub note: String,
}

/// The bake's discoveries (`discoveries.json`): anomalies and source contradictions, largest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Discoveries {
    /// Anomalies, by |z| descending.
    pub anomalies: Vec<Anomaly>,
    /// Contradictions, by tolerance ratio descending.
    pub contradictions: Vec<Contradiction>,
}

/// A Pearson correlation between two indicators of one pillar across countries in one year, precomputed by
/// the bake (`correlations.json`) with [`crate::analytics::pearson`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PillarCorrelation {
    /// Pillar id.
    pub pillar: String,
    /// First indicator (ids in lexical order).
    pub indicator_a: String,
    /// Second indicator.
    pub indicator_b: String,
    /// The year: the one of the last 10 with the most countries having both values (latest on a tie).
    pub year: i32,
    /// Pearson's r.
    pub r: f64,
    /// Countries (pairs) used.
    pub n: usize,
    /// Two-sided p-value of r = 0.
    pub p_value: f64,
    /// Whether country size can drive r ([`SizeCheck::confounded`]); false when no population is known.
    #[serde(default)]
    pub size_confounded: bool,
    /// The size check behind `size_confounded`: each side's correlation with population and r once
    /// population is held fixed; `None` when fewer than [`MIN_CORRELATION_PAIRS`] countries have a
    /// population that year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_check: Option<SizeCheck>,
}

/// The metric whose values stand for country size in [`SizeCheck`] (WDI `SP.POP.TOTL`, same year).
pub const SIZE_INDICATOR: &str = "sp_pop_totl";

/// |r| with population from which a side of a correlation counts as scaling with country size.
pub const SIZE_R: f64 = 0.5;

/// Whether a correlation across countries can be driven by country size: computed over the countries with
/// both values and a population ([`SIZE_INDICATOR`], same year) by [`size_check`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SizeCheck {
    /// Countries with both values and a population.
    pub n: usize,
    /// Pearson r of the first indicator with population.
    pub r_a_population: f64,
    /// Pearson r of the second indicator with population.
    pub r_b_population: f64,
    /// Partial correlation of the two with population held fixed:
    /// `(r_ab - r_ap·r_bp) / sqrt((1 - r_ap²)(1 - r_bp²))`; `None` when a side is a linear function of
    /// population.
    pub partial_r: Option<f64>,
    /// Spearman's rank correlation of the two (ranks, so a few very large countries weigh as one each).
    pub rank_r: Option<f64>,
    /// True when a side correlates with population (|r| ≥ [`SIZE_R`]) and r does not survive holding
    /// population fixed or ranking the countries (the partial or the rank correlation is under half of
    /// |r|, or of the other sign): a few large countries, or size itself, make the correlation.
    pub confounded: bool,
}

/// The size check of `triples` (first value, second value, population) whose own correlation is `r`;
/// `None` with fewer than [`MIN_CORRELATION_PAIRS`] triples or a constant column.
pub fn size_check(triples: &[(f64, f64, f64)], r: f64) -> Option<SizeCheck> {
    if triples.len() < MIN_CORRELATION_PAIRS {
        return None;
    }
    let column = |pick: fn(&(f64, f64, f64)) -> (f64, f64)| -> Vec<(f64, f64)> {
        triples.iter().map(pick).collect()
    };
    let r_ab = crate::analytics::pearson(&column(|t| (t.0, t.1)))?.r;
    let r_ap = crate::analytics::pearson(&column(|t| (t.0, t.2)))?.r;
    let r_bp = crate::analytics::pearson(&column(|t| (t.1, t.2)))?.r;
    let denominator = ((1.0 - r_ap * r_ap) * (1.0 - r_bp * r_bp)).sqrt();
    let partial_r =
        (denominator > 1e-12).then(|| ((r_ab - r_ap * r_bp) / denominator).clamp(-1.0, 1.0));
    let ranks = |values: Vec<f64>| -> Vec<f64> {
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&left, &right| values[left].total_cmp(&values[right]));
        let mut ranks = vec![0.0; values.len()];
        let mut start = 0;
        while start < order.len() {
            let mut end = start;
            while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
                end += 1;
            }
            // Ties share their mean rank.
            let mean = (start + end) as f64 / 2.0 + 1.0;
            for &position in &order[start..=end] {
                ranks[position] = mean;
            }
            start = end + 1;
        }
        ranks
    };
    let rank_a = ranks(triples.iter().map(|t| t.0).collect());
    let rank_b = ranks(triples.iter().map(|t| t.1).collect());
    let rank_pairs: Vec<(f64, f64)> = rank_a.into_iter().zip(rank_b).collect();
    let rank_r = crate::analytics::pearson(&rank_pairs).map(|correlation| correlation.r);
    let scales = r_ap.abs() >= SIZE_R || r_bp.abs() >= SIZE_R;
    let survives =
        |other: Option<f64>| other.is_some_and(|other| other * r.signum() >= 0.5 * r.abs());
    Some(SizeCheck {
        n: triples.len(),
        r_a_population: r_ap,
        r_b_population: r_bp,
        partial_r,
        rank_r,
        confounded: scales && !(survives(partial_r) && survives(rank_r)),
    })
}

/// Why a size-confounded correlation is not read as a relation between the two indicators.
pub fn size_warning(check: &SizeCheck) -> String {
    format!(
        "country size can drive this correlation: the indicators' r with population is {:.2} and {:.2} \
         (over {} countries), and with population held fixed r is {}, over ranks (Spearman) {}; compare \
         per-capita values or ranks before reading a relation",
        check.r_a_population,
        check.r_b_population,
        check.n,
        check
            .partial_r
            .map_or("undefined".to_string(), |partial| format!("{partial:.2}")),
        check
            .rank_r
            .map_or("undefined".to_string(), |rank| format!("{rank:.2}")),
    )
}

/// Pairs below this many countries are not correlated.
pub const MIN_CORRELATION_PAIRS: usize = 10;

/// One indicator in one year across the region (`year_stats.json`), for the years with observed values
/// (projections excluded) for at least [`MIN_YEAR_COUNTRIES`] countries, of the indicators whose declared
/// aggregation is not `none` (see [`MetricRule`]): the regional value and how it was formed, the
/// publisher's own regional aggregate of that year where it publishes one, the frontier, leaders and
/// laggards by the indicator's good direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct YearStats {
    /// Metric id.
    pub indicator: String,
    /// Year.
    pub year: i32,
    /// Countries with an observed value (all ranked).
    pub countries: usize,
    /// Our regional value, by the metric's declared aggregation, over the countries with a value.
    pub regional_value: f64,
    /// The declared aggregation: `population_weighted_mean`, `weighted_mean`, `unweighted_mean`, `sum`
    /// or `median`.
    pub method: String,
    /// The weight of a weighted mean ([`Weight::name`]: `population`, `land_area`, `gdp`, …); `None`
    /// for the other methods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<String>,
    /// Share of the region's total of that weight (all LAC countries with a weight that year) held by
    /// the countries combined, 0 to 1: how much of the region our weighted mean stands for. `None` for
    /// the unweighted methods or when no weight is known that year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_share: Option<f64>,
    /// Countries with a value but no weight that year, left out of a weighted mean (their weight is
    /// unknown); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unweighted: Vec<String>,
    /// Best three (citation ids), best first; the first is the frontier. Chosen by
    /// [`crate::frontier::ranked`]: sovereign countries only, no suspect value, a gross ratio ordered as
    /// capped at 100; empty for an ambiguous good direction.
    pub leaders: Vec<String>,
    /// Worst three (citation ids), worst first, among the same countries as `leaders`.
    pub laggards: Vec<String>,
    /// Share of the region's population (WDI `SP.POP.TOTL`, same year, all LAC countries with a
    /// population) living in the countries with a value, 0 to 1; `None` when no population is known
    /// for that year.
    pub population_share: Option<f64>,
    /// The publisher's own Latin America & Caribbean aggregate of this indicator and year (the World
    /// Bank's LCN, read from the same raw file as the countries' values), when it publishes one: the
    /// headline regional value, ours beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher: Option<PublisherAggregate>,
}

/// A publisher's own regional aggregate of one indicator and year (`YearStats::publisher`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PublisherAggregate {
    /// Who computed it, in words: `World Bank (LCN)`.
    pub by: String,
    /// The publisher's code of the region (`LCN`).
    pub code: String,
    /// The published value, in the indicator's unit.
    pub value: f64,
    /// Its citation (a comparison-aggregate observation).
    pub citation_id: String,
    /// The publisher's documented aggregation method (WDI series metadata: `Weighted average`, `Sum`,
    /// `Gap-filled total`, `Median`, `Unweighted average`), when documented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

/// Who a World Bank LCN aggregate is by, as `PublisherAggregate::by` and the pulse's
/// `regional_value_by` say.
pub const WORLD_BANK_LCN: &str = "World Bank (LCN)";

/// The relative difference within which our latest-year regional value agrees with the publisher's
/// (5 %), and the share of compared values that must agree (95 %).
pub const CONCORDANCE_TOLERANCE: f64 = 0.05;
/// See [`CONCORDANCE_TOLERANCE`].
pub const CONCORDANCE_TARGET: f64 = 0.95;
/// The share of the region's weight our countries must hold for our value to stand for the whole
/// region (95 %); below it, the publisher's gap-filling of the missing countries explains a difference.
pub const FULL_COVERAGE: f64 = 0.95;

/// Years with fewer countries are not summarised.
pub const MIN_YEAR_COUNTRIES: usize = 10;

/// Share of the region's population a year's countries must hold to stand for the region.
pub const MIN_POPULATION_SHARE: f64 = 0.5;

/// The year a regional view of one indicator uses, among its year statistics (oldest first): the latest
/// year whose countries hold at least [`MIN_POPULATION_SHARE`] of the region's population; failing that,
/// the year whose countries hold the largest share (the latest on ties, and the latest year when no
/// population is known). So a recent year reported only by a few small economies does not stand for
/// Latin America and the Caribbean.
pub fn representative_year(stats: &[YearStats]) -> Option<&YearStats> {
    stats
        .iter()
        .rev()
        .find(|item| {
            item.population_share
                .is_some_and(|share| share >= MIN_POPULATION_SHARE)
        })
        .or_else(|| {
            // `max_by` keeps the last of equal maxima: the latest year.
            stats.iter().max_by(|left, right| {
                left.population_share
                    .unwrap_or(0.0)
                    .total_cmp(&right.population_share.unwrap_or(0.0))
            })
        })
}

/// The derived-figure rules of one metric (`derived_rules.json`), resolved by the bake from
/// `data/aggregation.toml` (a per-metric override, else the first rule whose unit pattern matches) and the
/// observations (a `ratio` metric with a negative value observed is read as `interval`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricRule {
    /// Metric id.
    pub indicator: String,
    /// How its regional value is formed; `none`: no regional value.
    pub aggregation: Aggregation,
    /// Which statistics apply to its values.
    pub scale: Scale,
    /// Whether values compare across countries (false for currency-specific levels and indices with
    /// national bases: no ranking, frontier or cross-country correlation).
    pub comparable: bool,
    /// Why, in words (from the declaration; a demoted scale says so).
    pub reason: String,
    /// Which declaration decided it: `overrides[i]`, `rules[i]` with its pattern, or `WDI series
    /// metadata: Weighted average (weight: …)` where the publisher documents its method.
    pub declared_by: String,
    /// The weight of a weighted mean (`population` for `population_weighted_mean`); `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<Weight>,
    /// The publisher's documented aggregation method (WDI series metadata's `Aggregation method`), when
    /// it documents one, whether or not it decided the rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher_method: Option<String>,
    /// Why the metric's good direction is `ambiguous` (its `[[directions]]` entry in
    /// `data/aggregation.toml`): it has no frontier, leaders or laggards. `None` for any other direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction_note: Option<String>,
}

/// A named weight of a weighted mean (`data/aggregation.toml` `[weights.<name>]`): per country and
/// year, the value of `indicator`, times the value of `times` when given, times `factor`. So `births`
/// is `sp_dyn_cbrt_in` (per 1,000 people) × `sp_pop_totl` × 0.001.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Weight {
    /// The weight's name (`population`, `land_area`, `gdp`, `gni`, `births`, `labour_force`, …).
    pub name: String,
    /// Metric id of the weight's values (`ag_lnd_totl_k2`).
    pub indicator: String,
    /// Metric id of a second factor (`sp_pop_totl` for births), when the weight is a product.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<String>,
    /// Constant factor (0.001 for a rate per 1,000 people times people); 1 when not declared.
    #[serde(default = "one")]
    pub factor: f64,
    /// What it is, in words (`land area, sq. km (WDI AG.LND.TOTL.K2)`).
    pub description: String,
}

fn one() -> f64 {
    1.0
}

impl Weight {
    /// The weight of one country-year from the values of `indicator` and `times` (`None` when a needed
    /// value is missing or the weight is not positive).
    pub fn of(&self, value: Option<f64>, times: Option<f64>) -> Option<f64> {
        let times = match &self.times {
            Some(_) => times?,
            None => 1.0,
        };
        Some(value? * times * self.factor).filter(|weight| *weight > 0.0)
    }
}

/// The population weight, which `population_weighted_mean` means.
pub fn population_weight() -> Weight {
    Weight {
        name: "population".into(),
        indicator: POPULATION.into(),
        times: None,
        factor: 1.0,
        description: "population (WDI SP.POP.TOTL)".into(),
    }
}

/// The population indicator (WDI `SP.POP.TOTL`), the weight of `population_weighted_mean`.
pub const POPULATION: &str = "sp_pop_totl";

/// Whether a metric declared `ratio` is a bounded score, index or share ([`Scale::Bounded`]): its valid
/// range has a maximum and its unit names a score, an index, a rating, a category, a yes/no or a share
/// (`%`, `percent`), as CPIA's `index (1-6)`, `score (0-1)` or `% of population` with a maximum of 100.
/// Years (life expectancy capped at 100) and units without a maximum are not bounded scales.
pub fn is_bounded(unit: &str, valid_range: &crate::ValidRange) -> bool {
    let unit = unit.to_lowercase();
    valid_range.max.is_some_and(f64::is_finite)
        && [
            "score", "index", "rating", "category", "binary", "%", "percent",
        ]
        .iter()
        .any(|word| unit.contains(word))
}

/// The derived-figure rules of the corpus's metrics, sorted by indicator.
pub const DERIVED_RULES: &str = "derived_rules.json";

/// The rule of `indicator` among `rules` (sorted by indicator).
pub fn rule_for<'a>(rules: &'a [MetricRule], indicator: &str) -> Option<&'a MetricRule> {
    rules
        .binary_search_by(|rule| rule.indicator.as_str().cmp(indicator))
        .ok()
        .map(|rule_idx| &rules[rule_idx])
}

/// What the derived-figure rules did in one bake (the bake report's `derived_rules`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DerivedRuleCounts {
    /// Metrics per declared aggregation (`population_weighted_mean`, `sum`, `median`, `none`).
    pub metrics_by_aggregation: BTreeMap<String, u64>,
    /// Metrics per scale (`ratio`, `interval`, `growth`).
    pub metrics_by_scale: BTreeMap<String, u64>,
    /// Metrics not comparable across countries (no ranking, frontier or cross-country correlation).
    pub metrics_not_comparable: u64,
    /// Metrics declared `ratio` but read as `interval` because a negative value is observed.
    pub scales_demoted: Vec<String>,
    /// Indicator-years with observed values for enough countries whose regional value was refused
    /// (aggregation `none`).
    pub aggregates_refused: u64,
    /// Indicators with a refused regional value (aggregation `none` and enough countries in some year).
    pub indicators_not_aggregable: u64,
    /// Indicator-years with enough countries that hold projections: their projections were left out.
    pub year_stats_projections_excluded: u64,
    /// Of those, the indicator-years with too few observed countries once projections are left out
    /// (built only or mostly from projections before): no row.
    pub year_stats_projection_only: u64,
    /// Series whose latest value is a projection: change, CAGR and trend end at the last observation
    /// instead of mixing the projection in.
    pub series_ending_in_projections: u64,
    /// Series of projections only: no change, CAGR or trend.
    pub series_projection_only: u64,
    /// CAGR values (5 and 10 years) refused because the metric's scale is not `ratio`.
    pub cagr_refused: u64,
    /// Trend windows that are flat: R² undefined (null).
    pub flat_trends: u64,
    /// Consecutive observations more than [`MAX_CHANGE_GAP`] years apart, not read as year-over-year changes.
    pub gap_changes_excluded: u64,
    /// Anomalies the old rule (any two consecutive observations) reports across such a gap, now dropped.
    pub gap_anomalies_dropped: u64,
    // --- Weights and the publisher's aggregates (issue 25 A) ---------------------------------------
    /// Weighted means per weight name (`population`, `land_area`, `gdp`, …).
    #[serde(default)]
    pub metrics_by_weight: BTreeMap<String, u64>,
    /// Metrics whose method and weight the publisher's own series metadata decided (WDI's
    /// `Aggregation method`).
    #[serde(default)]
    pub metrics_by_publisher_method: u64,
    /// Our latest-year regional values against the publisher's own aggregate of the same year.
    #[serde(default)]
    pub publisher_concordance: PublisherConcordance,
    // Estimates, projections and vintage projections (issue 25): kept together.
    /// Observations flagged `estimate` (a publisher's estimate of a past year, kept as observed), by
    /// source id (`imf_weo`).
    #[serde(default)]
    pub estimates: BTreeMap<String, u64>,
    /// Observations flagged `projection` (left out of every statistic of observed values), by source id.
    #[serde(default)]
    pub projections: BTreeMap<String, u64>,
    /// Of those, the projections made at an older vintage that its publisher did not mark
    /// (`vintage_projection`: WEO April 2019's Haiti 2019–2024), by source id.
    #[serde(default)]
    pub vintage_projections: BTreeMap<String, u64>,
    // --- Honest statistics (issue 25, part D): one block, kept together.
    /// Metrics declared `ratio` but read as `bounded` ([`is_bounded`]: a score, index or share with a
    /// maximum): no CAGR or relative change.
    #[serde(default)]
    pub scales_bounded: Vec<String>,
    /// Of [`DerivedRuleCounts::cagr_refused`], the CAGR values refused because the scale is `bounded`.
    #[serde(default)]
    pub cagr_refused_bounded: u64,
    /// Metrics with a CAGR value in `series_stats.json` (ratio scales with two positive observations).
    #[serde(default)]
    pub metrics_with_cagr: u64,
    /// Precomputed 5-year forecasts (`series_stats.json`) whose value or interval left the metric's
    /// valid range and were clipped to it.
    #[serde(default)]
    pub forecasts_clipped: u64,
    /// Anomalies found (all kept in `discoveries.json`; `get_discoveries` pages through them).
    #[serde(default)]
    pub anomalies_found: u64,
    /// Series ending in projections with 3 or more observations: `get_parameter_data` fits their trend on
    /// the last [`TREND_TAIL`] observations instead of the projected years.
    #[serde(default)]
    pub trends_on_observed_part: u64,
    /// Series whose trend window holds modelled values (flag `modelled`): fitted, with `basis: "modelled"`.
    #[serde(default)]
    pub trends_on_modelled: u64,
    /// Stored correlations (`correlations.json`).
    #[serde(default)]
    pub correlations: u64,
    /// Of those, flagged `size_confounded` ([`SizeCheck::confounded`]).
    #[serde(default)]
    pub correlations_size_confounded: u64,
    /// Of those, without a size check (fewer than [`MIN_CORRELATION_PAIRS`] countries with a population).
    #[serde(default)]
    pub correlations_without_size_check: u64,
    /// Concordance rows compared although a side is modelled (pairs with `compares_modelled`).
    #[serde(default)]
    pub concordance_modelled_compared: u64,
    /// Pillar-country cells of `data_health.json` with indicators absent by design (declared `coverage`,
    /// e.g. CPIA for IDA-eligible countries only): not counted as missing.
    #[serde(default)]
    pub health_absent_by_design: u64,
}

/// The bake-time concordance of our regional values against the publisher's own regional aggregate
/// (WDI's LCN): per aggregated indicator, its representative year (the one `get_regional_pulse` serves)
/// where the publisher publishes a value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PublisherConcordance {
    /// Indicator-years compared (ours and the publisher's both present).
    pub compared: u64,
    /// Of those, within [`CONCORDANCE_TOLERANCE`] (5 %) of the publisher's value.
    pub within_5pct: u64,
    /// Compared where our countries hold at least [`FULL_COVERAGE`] of the region's weight (population
    /// for unweighted methods and sums).
    pub compared_full_coverage: u64,
    /// Of those, within 5 %.
    pub within_5pct_full_coverage: u64,
    /// Aggregated indicators whose representative year has no publisher value.
    pub not_published: u64,
    /// Every compared value beyond 5 %, with the computed reason; by indicator.
    pub exceptions: Vec<ConcordanceException>,
}

impl PublisherConcordance {
    /// `within_5pct / compared` (0 when nothing was compared).
    pub fn share_within(&self) -> f64 {
        if self.compared == 0 {
            0.0
        } else {
            self.within_5pct as f64 / self.compared as f64
        }
    }
}

/// One regional value beyond 5 % of the publisher's, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConcordanceException {
    /// Metric id.
    pub indicator: String,
    /// Year.
    pub year: i32,
    /// Our regional value.
    pub ours: f64,
    /// The publisher's.
    pub theirs: f64,
    /// `(ours - theirs) / |theirs|`.
    pub relative_difference: f64,
    /// Why they differ, computed: our coverage of the weight below 95 %, a different method, a weight
    /// the corpus does not hold, or same method and coverage (the publisher's own imputation or
    /// revisions).
    pub reason: String,
}

/// Points of `get_parameter_data`'s `series_tail`, and the most recent observed values its trend is
/// fitted on when the tail ends in projections.
pub const TREND_TAIL: usize = 6;

impl DerivedRuleCounts {
    /// The bake report's "derived-number rules" section: every rule the derived figures obey, one line
    /// each, with what it did in this bake.
    pub fn summary(&self) -> String {
        let joined = |counts: &BTreeMap<String, u64>| {
            counts
                .iter()
                .map(|(key, metrics)| format!("{key} {metrics}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut text =
            String::from("derived-number rules (what each rule did to the derived figures):\n");
        let mut line = |rule: &str, counts: String| {
            text.push_str(&format!("  {rule}: {counts}\n"));
        };
        line(
            "derived rules (data/aggregation.toml)",
            format!(
                "aggregation {}; scale {}; {} not comparable across countries",
                joined(&self.metrics_by_aggregation),
                joined(&self.metrics_by_scale),
                self.metrics_not_comparable,
            ),
        );
        line(
            "ratio read as interval (negative values observed)",
            format!("{} metrics", self.scales_demoted.len()),
        );
        line(
            "ratio read as bounded (score, index or share with a maximum: no CAGR or relative change)",
            format!("{} metrics", self.scales_bounded.len()),
        );
        line(
            "aggregates refused",
            format!(
                "{} indicator-years of {} indicators (aggregation none)",
                self.aggregates_refused, self.indicators_not_aggregable
            ),
        );
        line(
            "projection-derived figures excluded",
            format!(
                "{} year statistics had projections left out ({} of them too few observed countries: no row); \
                 {} series end in projections (change, CAGR and trend stop at the last observation); {} series \
                 of projections only",
                self.year_stats_projections_excluded,
                self.year_stats_projection_only,
                self.series_ending_in_projections,
                self.series_projection_only,
            ),
        );
        line(
            "statistics refused",
            format!(
                "{} CAGR values (growth rates, indices crossing zero, bounded scores: {} of them bounded); {} \
                 metrics keep a CAGR; {} flat trend windows with R² undefined",
                self.cagr_refused,
                self.cagr_refused_bounded,
                self.metrics_with_cagr,
                self.flat_trends
            ),
        );
        line(
            "forecasts clipped to the valid range",
            format!("{} precomputed 5-year forecasts", self.forecasts_clipped),
        );
        line(
            "trends on the observed part",
            format!(
                "{} series ending in projections: trend on their last {TREND_TAIL} observations; {} series \
                 trended on modelled values (basis modelled)",
                self.trends_on_observed_part, self.trends_on_modelled
            ),
        );
        line(
            "anomalies",
            format!(
                "{} found, all kept (get_discoveries pages through them)",
                self.anomalies_found
            ),
        );
        line(
            "gaps",
            format!(
                "{} consecutive observations more than {MAX_CHANGE_GAP} years apart not read as changes; {} \
                 gap anomalies dropped",
                self.gap_changes_excluded, self.gap_anomalies_dropped
            ),
        );
        line(
            "correlations",
            format!(
                "{} stored; {} size_confounded (a side scales with population and r does not survive \
                 holding it fixed or ranking); {} without a size check",
                self.correlations,
                self.correlations_size_confounded,
                self.correlations_without_size_check
            ),
        );
        line(
            "concordance of modelled values",
            format!(
                "{} rows compared with a modelled side (compares_modelled)",
                self.concordance_modelled_compared
            ),
        );
        line(
            "data health absent by design",
            format!(
                "{} pillar-country cells with declared-coverage indicators not counted as missing",
                self.health_absent_by_design
            ),
        );
        line(
            "weights",
            format!(
                "{}; {} metrics aggregated as their publisher documents",
                joined(&self.metrics_by_weight),
                self.metrics_by_publisher_method
            ),
        );
        line(
            "publisher concordance (ours vs WDI LCN, latest year)",
            format!(
                "{} of {} within 5 % ({:.0} %, target 95 %); {} of {} where our countries hold 95 % of the \
                 weight; {} not published; {} exceptions listed in derived_rules.publisher_concordance",
                self.publisher_concordance.within_5pct,
                self.publisher_concordance.compared,
                self.publisher_concordance.share_within() * 100.0,
                self.publisher_concordance.within_5pct_full_coverage,
                self.publisher_concordance.compared_full_coverage,
                self.publisher_concordance.not_published,
                self.publisher_concordance.exceptions.len()
            ),
        );
        let or_none = |text: String| {
            if text.is_empty() {
                "none".to_string()
            } else {
                text
            }
        };
        line(
            "estimates and projections",
            format!(
                "estimates (kept as observed) {}; projections {}; of them made at an older vintage {}",
                or_none(joined(&self.estimates)),
                or_none(joined(&self.projections)),
                or_none(joined(&self.vintage_projections))
            ),
        );
        text
    }
}

#[cfg(test)]
mod tests {
    use super::{YearStats, representative_year};

    fn year(year: i32, population_share: Option<f64>) -> YearStats {
        YearStats {
            indicator: "eg_fec_rnew_zs".into(),
            year,
            countries: 12,
            regional_value: 0.0,
            method: "median".into(),
            weight: None,
            weight_share: None,
            unweighted: Vec::new(),
            leaders: Vec::new(),
            laggards: Vec::new(),
            population_share,
            publisher: None,
        }
    }

    #[test]
    fn the_representative_year_holds_half_the_region() {
        let stats = [
            year(2020, Some(0.95)),
            year(2021, Some(0.9)),
            year(2022, Some(0.04)),
        ];
        assert_eq!(
            representative_year(&stats).map(|item| item.year),
            Some(2021)
        );
        let small = [
            year(1989, Some(0.2)),
            year(1990, Some(0.3)),
            year(1991, Some(0.3)),
        ];
        assert_eq!(
            representative_year(&small).map(|item| item.year),
            Some(1991)
        );
        let unknown = [year(2024, None), year(2025, None)];
        assert_eq!(
            representative_year(&unknown).map(|item| item.year),
            Some(2025)
        );
        assert!(representative_year(&[]).is_none());
    }
}
