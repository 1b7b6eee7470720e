//! Derived views precomputed by the bake (`series_stats.json`): per indicator and country, the latest
//! value, the year-over-year change, CAGR over 5 and 10 years and the 10-year trend, computed with
//! [`crate::analytics`] — the same code the server's `compute` runs, so both give the same numbers.

use serde::{Deserialize, Serialize};

/// Summary statistics of one country's series of one indicator (countries only, projections excluded
/// from trend and growth; `latest` may be a projection, see `latest_flags`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesStats {
    /// Metric id.
    pub indicator: String,
    /// ISO3.
    pub country: String,
    /// Observations in the series.
    pub n: u32,
    /// First year with a value.
    pub first_year: i32,
    /// Latest year with a value.
    pub latest_year: i32,
    /// Latest value.
    pub latest_value: f64,
    /// Citation of the latest value.
    pub latest_citation_id: String,
    /// Flags of the latest value (`projection`), empty when none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub latest_flags: String,
    /// The previous observed year, if any.
    pub previous_year: Option<i32>,
    /// Latest minus previous value, in the unit.
    pub change_from_previous: Option<f64>,
    /// Compound annual growth rate from `latest_year - 5` to the latest observed year, when both exist and are positive.
    pub cagr_5y: Option<f64>,
    /// The same over 10 years.
    pub cagr_10y: Option<f64>,
    /// Least-squares slope per year over the last 10 years of observed values (at least 3 points).
    pub trend_slope: Option<f64>,
    /// R² of that trend.
    pub trend_r_squared: Option<f64>,
    /// That trend extended 5 years past the last observed year, with its 95 % prediction interval:
    /// (year, value, lower, upper) — see [`crate::analytics::forecast`].
    pub forecast_5y: Option<(i32, f64, f64, f64)>,
}

/// Years of the trend window of [`SeriesStats`] (the last observed year and the nine before it), also the
/// default fit window of `compute` op `forecast`, so both give the same forecast.
pub const TREND_YEARS: i32 = 10;

/// Years past the last observed year a linear-trend forecast may reach (no further than its fit window).
pub const MAX_FORECAST_HORIZON: i32 = 10;

/// An unusual year-over-year change in one series: its robust z-score among that series' changes is at
/// least [`ANOMALY_Z`] in absolute value, and the change is at least [`ANOMALY_MIN_SHARE`] of the series'
/// mean level (so floating-point noise in smooth, interpolated series is not reported).
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
    /// Robust z-score of the change among the series' changes (median and MAD).
    pub z_score: f64,
    /// Citations of the previous and the changed value.
    pub citation_ids: [String; 2],
}

/// The |robust z| from which a change is reported as an anomaly.
pub const ANOMALY_Z: f64 = 5.0;
/// The smallest change, as a share of the series' mean absolute level, reported as an anomaly.
pub const ANOMALY_MIN_SHARE: f64 = 0.01;
/// The most anomalies kept (largest |z| first).
pub const MAX_ANOMALIES: usize = 2_000;

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
    /// Citations of the left and right values.
    pub citation_ids: [String; 2],
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
}

/// Pairs below this many countries are not correlated.
pub const MIN_CORRELATION_PAIRS: usize = 10;

/// One indicator in one year across the region (`year_stats.json`), for the years with values for at
/// least [`MIN_YEAR_COUNTRIES`] countries: the regional value and how it was formed, the frontier, leaders
/// and laggards by the indicator's good direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct YearStats {
    /// Metric id.
    pub indicator: String,
    /// Year.
    pub year: i32,
    /// Countries with a value.
    pub countries: usize,
    /// Population-weighted mean for intensive units when every country has a population, else median.
    pub regional_value: f64,
    /// `population_weighted_mean` or `median`.
    pub method: String,
    /// Best three (citation ids), best first; the first is the frontier.
    pub leaders: Vec<String>,
    /// Worst three (citation ids), worst first.
    pub laggards: Vec<String>,
    /// Share of the region's population (WDI `SP.POP.TOTL`, same year, all LAC countries with a
    /// population) living in the countries with a value, 0 to 1; `None` when no population is known
    /// for that year.
    pub population_share: Option<f64>,
}

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
            leaders: Vec::new(),
            laggards: Vec::new(),
            population_share,
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
