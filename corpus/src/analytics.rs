//! The calculations behind the derived views and the `compute` tool, shared by the bake (which
//! precomputes them) and the server (which computes them at query time), so both give the same numbers.
//!
//! Every function takes plain (year, value) points of one series and returns `None` where the
//! calculation is undefined (too few points, a zero or negative base), never a made-up number.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// One value of a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Year.
    pub year: i32,
    /// Value.
    pub value: f64,
}

/// The change between two points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// `to - from`, in the series' unit.
    pub absolute: f64,
    /// `(to - from) / |from|` as a fraction; `None` when `from` is 0.
    pub relative: Option<f64>,
}

/// The change from `from` to `to`.
pub fn change(from: Point, to: Point) -> Change {
    let absolute = to.value - from.value;
    let relative = (from.value != 0.0).then(|| absolute / from.value.abs());
    Change { absolute, relative }
}

/// Compound annual growth rate from `from` to `to`, as a fraction per year:
/// `(to / from)^(1 / (to.year - from.year)) - 1`. `None` when the years are not increasing or a value is
/// not positive (CAGR is undefined across a sign change or from zero).
pub fn cagr(from: Point, to: Point) -> Option<f64> {
    let years = to.year - from.year;
    if years <= 0 || from.value <= 0.0 || to.value <= 0.0 {
        return None;
    }
    Some((to.value / from.value).powf(1.0 / f64::from(years)) - 1.0)
}

/// An ordinary least-squares line `value = intercept + slope * year` through a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearTrend {
    /// Change per year, in the series' unit.
    pub slope: f64,
    /// Value at year 0 (use [`LinearTrend::at`]).
    pub intercept: f64,
    /// Coefficient of determination, 0 to 1 (1 when every point is on the line); `None` for a flat window
    /// (every value the same), where there is no variation to explain and R² is undefined.
    pub r_squared: Option<f64>,
    /// Points fitted.
    pub n: usize,
    /// Residual standard error, `sqrt(SSE / (n - 2))`.
    pub residual_standard_error: f64,
    /// Mean of the fitted years.
    mean_year: f64,
    /// Sum of squared deviations of the years.
    sum_squares_year: f64,
}

impl LinearTrend {
    /// The fitted value at `year`.
    pub fn at(&self, year: i32) -> f64 {
        self.intercept + self.slope * f64::from(year)
    }
}

/// Fits [`LinearTrend`] through `points` by ordinary least squares. `None` with fewer than 3 points or
/// when every point has the same year. A flat window (values equal to 1e-9 of their magnitude, see
/// [`is_flat`]) has slope 0 and no R².
pub fn linear_trend(points: &[Point]) -> Option<LinearTrend> {
    let n = points.len();
    if n < 3 {
        return None;
    }
    let count = n as f64;
    let mean_year = points
        .iter()
        .map(|point| f64::from(point.year))
        .sum::<f64>()
        / count;
    let mean_value = points.iter().map(|point| point.value).sum::<f64>() / count;
    let sum_squares_year: f64 = points
        .iter()
        .map(|point| (f64::from(point.year) - mean_year).powi(2))
        .sum();
    if sum_squares_year == 0.0 {
        return None;
    }
    let covariance: f64 = points
        .iter()
        .map(|point| (f64::from(point.year) - mean_year) * (point.value - mean_value))
        .sum();
    let flat = is_flat(points.iter().map(|point| point.value));
    let slope = if flat {
        0.0
    } else {
        covariance / sum_squares_year
    };
    let intercept = mean_value - slope * mean_year;
    let total: f64 = points
        .iter()
        .map(|point| (point.value - mean_value).powi(2))
        .sum();
    let residual: f64 = points
        .iter()
        .map(|point| (point.value - (intercept + slope * f64::from(point.year))).powi(2))
        .sum();
    let r_squared = (!flat && total > 0.0).then(|| (1.0 - residual / total).clamp(0.0, 1.0));
    let residual_standard_error = (residual / (count - 2.0)).sqrt();
    Some(LinearTrend {
        slope,
        intercept,
        r_squared,
        n,
        residual_standard_error,
        mean_year,
        sum_squares_year,
    })
}

/// Whether `values` are all equal, up to 1e-9 of their largest magnitude (floating-point noise in a mean of
/// repeated values is not variation).
pub fn is_flat(values: impl Iterator<Item = f64>) -> bool {
    let (mut low, mut high, mut largest) = (f64::INFINITY, f64::NEG_INFINITY, 0.0_f64);
    for value in values {
        low = low.min(value);
        high = high.max(value);
        largest = largest.max(value.abs());
    }
    high - low <= 1e-9 * largest
}

/// A forecast from a linear trend: the fitted value and a prediction interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Forecast {
    /// Year forecast.
    pub year: i32,
    /// Fitted value.
    pub value: f64,
    /// Lower bound of the prediction interval.
    pub lower: f64,
    /// Upper bound of the prediction interval.
    pub upper: f64,
    /// Confidence of the interval (0.95).
    pub level: f64,
}

/// Forecasts `year` from `trend` with a `level` (e.g. 0.95) prediction interval for a new observation:
/// `fit ± t(1 - (1 - level) / 2, n - 2) · s · sqrt(1 + 1/n + (year - mean)² / Sxx)`.
pub fn forecast(trend: &LinearTrend, year: i32, level: f64) -> Option<Forecast> {
    let degrees = trend.n as f64 - 2.0;
    let distribution = StudentsT::new(0.0, 1.0, degrees).ok()?;
    let quantile = distribution.inverse_cdf(1.0 - (1.0 - level) / 2.0);
    let count = trend.n as f64;
    let leverage =
        1.0 + 1.0 / count + (f64::from(year) - trend.mean_year).powi(2) / trend.sum_squares_year;
    let half_width = quantile * trend.residual_standard_error * leverage.sqrt();
    let value = trend.at(year);
    Some(Forecast {
        year,
        value,
        lower: value - half_width,
        upper: value + half_width,
        level,
    })
}

/// A Pearson correlation with its significance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Correlation {
    /// Pearson's r, -1 to 1.
    pub r: f64,
    /// Pairs used.
    pub n: usize,
    /// Two-sided p-value of r = 0, from Student's t with n - 2 degrees of freedom.
    pub p_value: f64,
}

/// Pearson's correlation of paired values. `None` with fewer than 3 pairs or a constant side.
pub fn pearson(pairs: &[(f64, f64)]) -> Option<Correlation> {
    let n = pairs.len();
    if n < 3 {
        return None;
    }
    let count = n as f64;
    let mean_x = pairs.iter().map(|pair| pair.0).sum::<f64>() / count;
    let mean_y = pairs.iter().map(|pair| pair.1).sum::<f64>() / count;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in pairs {
        sxy += (x - mean_x) * (y - mean_y);
        sxx += (x - mean_x).powi(2);
        syy += (y - mean_y).powi(2);
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    let r = (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0);
    let degrees = count - 2.0;
    let p_value = if r.abs() >= 1.0 {
        0.0
    } else {
        let t = r * (degrees / (1.0 - r * r)).sqrt();
        let distribution = StudentsT::new(0.0, 1.0, degrees).ok()?;
        2.0 * distribution.sf(t.abs())
    };
    Some(Correlation { r, n, p_value })
}

/// Robust z-scores of `values`: `(x - median) / (1.4826 · MAD)`. `None` when the MAD is 0 or within
/// negligible (below 1e-4 of the largest |value|: more than half the values (nearly) equal, as in a
/// flat or interpolated series), where no spread can be estimated.
pub fn robust_z_scores(values: &[f64]) -> Option<Vec<f64>> {
    if values.len() < 3 {
        return None;
    }
    let median = median(values)?;
    let deviations: Vec<f64> = values.iter().map(|value| (value - median).abs()).collect();
    let mad = median_of(deviations)?;
    let largest = values
        .iter()
        .fold(0.0_f64, |largest, value| largest.max(value.abs()));
    if mad <= 1e-4 * largest || mad == 0.0 {
        return None;
    }
    Some(
        values
            .iter()
            .map(|value| (value - median) / (1.4826 * mad))
            .collect(),
    )
}

/// The median of `values` (mean of the two middle values for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    median_of(values.to_vec())
}

fn median_of(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    Some(if values.len().is_multiple_of(2) {
        (values[middle - 1] + values[middle]) / 2.0
    } else {
        values[middle]
    })
}

/// How a metric's values form a regional value across countries, as declared per metric in
/// `data/aggregation.toml` (resolved at bake time into `derived_rules.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Aggregation {
    /// Mean of the countries' values weighted by their population: rates, shares, per-person values.
    PopulationWeightedMean,
    /// Mean of the countries' values weighted by another quantity each holds, the value's denominator
    /// (land area for a share of land, GDP for a ratio to GDP, births for a rate per live birth): the
    /// weight is named in the metric's rule ([`crate::derived::MetricRule::weight`]).
    WeightedMean,
    /// Plain mean of the countries' values, each country counting once (the publisher's method for
    /// survey scores and indices of rules, e.g. WDI's Doing Business and CPIA series).
    UnweightedMean,
    /// Sum of the countries' values: additive counts and amounts in one common unit.
    Sum,
    /// Median of the countries' values: the typical country, where a mean or a sum is not defensible.
    Median,
    /// No regional value: currency-specific levels, exchange rates, PPP factors, indices with national bases.
    None,
}

impl Aggregation {
    /// Every aggregation, in report order.
    pub const ALL: [Aggregation; 6] = [
        Aggregation::PopulationWeightedMean,
        Aggregation::WeightedMean,
        Aggregation::UnweightedMean,
        Aggregation::Sum,
        Aggregation::Median,
        Aggregation::None,
    ];

    /// `population_weighted_mean`, `weighted_mean`, `unweighted_mean`, `sum`, `median` or `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            Aggregation::PopulationWeightedMean => "population_weighted_mean",
            Aggregation::WeightedMean => "weighted_mean",
            Aggregation::UnweightedMean => "unweighted_mean",
            Aggregation::Sum => "sum",
            Aggregation::Median => "median",
            Aggregation::None => "none",
        }
    }

    /// Whether the regional value is a mean weighted by a quantity per country (population or another
    /// declared weight), so each value needs its weight.
    pub fn is_weighted(self) -> bool {
        matches!(
            self,
            Aggregation::PopulationWeightedMean | Aggregation::WeightedMean
        )
    }
}

/// The regional value of `values` (countries in country order) by `aggregation`: their mean weighted by
/// `weights` (one weight per value, required for the weighted means: populations, or the declared
/// weight's values), their plain mean, their sum or their median. `None` for no values, missing or zero
/// weights, or [`Aggregation::None`].
pub fn regional_value(
    aggregation: Aggregation,
    values: &[f64],
    weights: Option<&[f64]>,
) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    match aggregation {
        Aggregation::PopulationWeightedMean | Aggregation::WeightedMean => {
            let weights = weights.filter(|weights| weights.len() == values.len())?;
            let total: f64 = weights.iter().sum();
            (total > 0.0).then(|| {
                values
                    .iter()
                    .zip(weights)
                    .map(|(value, weight)| value * weight)
                    .sum::<f64>()
                    / total
            })
        }
        Aggregation::UnweightedMean => Some(values.iter().sum::<f64>() / values.len() as f64),
        Aggregation::Sum => Some(values.iter().sum()),
        Aggregation::Median => median(values),
        Aggregation::None => None,
    }
}

/// What the zero of a metric's values means, which decides the statistics that apply to it; declared per
/// metric in `data/aggregation.toml`, and `interval` for any metric with a negative value observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// A level with a true zero, never negative (a population, a share, GDP per capita): change,
    /// relative change, CAGR and trend apply.
    Ratio,
    /// Zero is arbitrary or crossed (WGI −2.5…2.5, a latent score, a balance): change and trend apply;
    /// relative change and CAGR do not.
    Interval,
    /// A rate of change itself (`annual %`, `Percent change`): change (in percentage points) and trend
    /// apply; relative change and CAGR do not.
    Growth,
    /// A score, index or share bounded above (CPIA 1–6, a 0–1 index, a share of at most 100 %): its
    /// values cannot compound, so change and trend apply; relative change and CAGR do not. Resolved by
    /// the bake from the metric's unit and valid range (a maximum) for a metric declared `ratio`.
    Bounded,
}

impl Scale {
    /// Every scale, in report order.
    pub const ALL: [Scale; 4] = [Scale::Ratio, Scale::Interval, Scale::Growth, Scale::Bounded];

    /// `ratio`, `interval`, `growth` or `bounded`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scale::Ratio => "ratio",
            Scale::Interval => "interval",
            Scale::Growth => "growth",
            Scale::Bounded => "bounded",
        }
    }

    /// Why a compound annual growth rate does not apply, with what to use instead; `None` when it does.
    pub fn cagr_refusal(self) -> Option<&'static str> {
        match self {
            Scale::Ratio => None,
            Scale::Growth => Some(
                "cagr of a growth rate is not defined: the values are already rates of change; use op change \
                 (the difference in percentage points) or op forecast (its trend)",
            ),
            Scale::Interval => Some(
                "cagr of an index or balance whose zero is arbitrary or crossed is not defined; use op change \
                 (the difference in the unit) or op forecast (its trend)",
            ),
            Scale::Bounded => Some(
                "cagr of a bounded score, index or share is not defined: its values cannot compound past the \
                 scale's maximum; use op change (the difference in the unit) or op forecast (its trend)",
            ),
        }
    }

    /// Why a relative change (or a relative gap) does not apply, with what to use instead; `None` when it does.
    pub fn relative_change_refusal(self) -> Option<&'static str> {
        match self {
            Scale::Ratio => None,
            Scale::Growth => Some(
                "a relative change of a growth rate is not defined; read the absolute change, in percentage points",
            ),
            Scale::Interval => Some(
                "a relative change of an index or balance whose zero is arbitrary or crossed is not defined; read \
                 the absolute change, in the unit",
            ),
            Scale::Bounded => Some(
                "a relative change of a bounded score, index or share is not defined; read the absolute change, \
                 in the unit (points of the score, percentage points of the share)",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strong_correlations_keep_a_positive_p_value() {
        // r near 1 with n = 50: the p-value is tiny but not rounded to 0 (survival function, not 1 - cdf).
        let points: Vec<(f64, f64)> = (0..50)
            .map(|step| {
                let x = f64::from(step);
                (x, 2.0 * x + if step % 2 == 0 { 0.5 } else { -0.5 })
            })
            .collect();
        let correlation = super::pearson(&points).expect("a correlation");
        assert!(correlation.r > 0.999, "{correlation:?}");
        assert!(
            correlation.p_value > 0.0 && correlation.p_value < 1e-30,
            "{correlation:?}"
        );
    }

    fn point(year: i32, value: f64) -> Point {
        Point { year, value }
    }

    #[test]
    fn change_and_cagr() {
        let change = change(point(2010, 73.718), point(2024, 75.264));
        assert!((change.absolute - 1.546).abs() < 1e-9);
        assert!(
            (cagr(point(2015, 100.0), point(2025, 200.0)).unwrap() - (2f64.powf(0.1) - 1.0)).abs()
                < 1e-12
        );
        assert_eq!(cagr(point(2015, 0.0), point(2025, 200.0)), None);
        assert_eq!(cagr(point(2015, 10.0), point(2015, 20.0)), None);
    }

    #[test]
    fn trend_on_a_line_is_exact() {
        let points: Vec<Point> = (2000..2010)
            .map(|year| point(year, 2.0 * f64::from(year) - 3000.0))
            .collect();
        let trend = linear_trend(&points).unwrap();
        assert!((trend.slope - 2.0).abs() < 1e-9 && (trend.r_squared.unwrap() - 1.0).abs() < 1e-12);
        let forecast = forecast(&trend, 2012, 0.95).unwrap();
        assert!(
            (forecast.value - 1024.0).abs() < 1e-6
                && (forecast.upper - forecast.lower).abs() < 1e-6
        );
    }

    #[test]
    fn pearson_of_a_perfect_relation() {
        let pairs: Vec<(f64, f64)> = (0..10)
            .map(|x| (f64::from(x), 3.0 * f64::from(x) + 1.0))
            .collect();
        let correlation = pearson(&pairs).unwrap();
        assert!((correlation.r - 1.0).abs() < 1e-12 && correlation.p_value == 0.0);
        assert_eq!(pearson(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]), None);
    }

    #[test]
    fn robust_z_flags_an_outlier() {
        let z = robust_z_scores(&[1.0, 1.1, 0.9, 1.05, 0.95, 8.0]).unwrap();
        assert!(z[5] > 10.0 && z[0].abs() < 1.5);
        assert_eq!(robust_z_scores(&[1.0, 1.0, 1.0, 2.0]), None);
    }

    #[test]
    fn a_flat_window_has_no_r_squared() {
        // Ten equal values: their mean carries floating-point noise, which is not variation.
        let points: Vec<Point> = (2010..2020).map(|year| point(year, 0.1)).collect();
        let trend = linear_trend(&points).unwrap();
        assert_eq!((trend.slope, trend.r_squared), (0.0, None));
        let points: Vec<Point> = (2010..2020)
            .map(|year| point(year, if year % 2 == 0 { 1.0 } else { 2.0 }))
            .collect();
        assert!(linear_trend(&points).unwrap().r_squared.is_some());
    }

    #[test]
    fn regional_values_follow_their_declared_aggregation() {
        let values = [1.0, 2.0, 6.0];
        assert_eq!(
            regional_value(
                Aggregation::PopulationWeightedMean,
                &values,
                Some(&[1.0, 1.0, 2.0])
            ),
            Some(3.75)
        );
        assert_eq!(
            regional_value(Aggregation::PopulationWeightedMean, &values, None),
            None
        );
        assert_eq!(regional_value(Aggregation::Sum, &values, None), Some(9.0));
        assert_eq!(
            regional_value(Aggregation::Median, &values, None),
            Some(2.0)
        );
        assert_eq!(regional_value(Aggregation::None, &values, None), None);
    }

    #[test]
    fn growth_rates_and_indices_refuse_cagr_and_relative_change() {
        assert!(Scale::Ratio.cagr_refusal().is_none());
        assert!(
            Scale::Growth
                .cagr_refusal()
                .unwrap()
                .starts_with("cagr of a growth rate is not defined")
        );
        assert!(Scale::Interval.relative_change_refusal().is_some());
        assert!(Scale::Bounded.cagr_refusal().unwrap().contains("bounded"));
        assert!(Scale::Bounded.relative_change_refusal().is_some());
    }
}
