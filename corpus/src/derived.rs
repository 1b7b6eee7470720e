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
}
