//! Per indicator and country statistics (`series_stats.json`), computed with `corpus::analytics` so the
//! server's `compute` gives the same numbers at query time. Change, CAGR, trend and forecast use
//! observed values only (flags without `projection`) and end at the last observation; CAGR only where
//! the metric's scale is `ratio` (never `bounded`, `interval` or `growth`); the forecast is clipped to
//! the metric's valid range (`corpus::derived::clip_forecast`).

use std::collections::{HashMap, HashSet};

use corpus::{
    Metric, SeriesStats,
    analytics::{self, Point, Scale},
    derived::{DerivedRuleCounts, MetricRule, TREND_TAIL, TREND_YEARS, clip_forecast, rule_for},
    is_projection,
};

use crate::govern::table::ObservationColumns;

/// One [`SeriesStats`] per (indicator, country) of the country observations, sorted by both.
pub fn series_stats(
    observations: &ObservationColumns,
    metrics: &[Metric],
    rules: &[MetricRule],
    counts: &mut DerivedRuleCounts,
) -> Vec<SeriesStats> {
    let by_id: HashMap<&str, &Metric> = metrics
        .iter()
        .map(|metric| (metric.id.as_str(), metric))
        .collect();
    let mut with_cagr: HashSet<String> = HashSet::new();
    let stats = super::series::group_series(observations, |_| true)
        .into_iter()
        .map(|((indicator, country), mut rows)| {
            rows.sort_by_key(|&row_idx| observations.year[row_idx]);
            let latest = *rows.last().expect("a series has rows");
            let observed: Vec<Point> = rows
                .iter()
                .filter(|&&row_idx| !is_projection(&observations.flags[row_idx]))
                .map(|&row_idx| Point {
                    year: observations.year[row_idx],
                    value: observations.value[row_idx],
                })
                .collect();
            let last_observed = observed.last().copied();
            if is_projection(&observations.flags[latest]) {
                if last_observed.is_some() {
                    counts.series_ending_in_projections += 1;
                } else {
                    counts.series_projection_only += 1;
                }
            }
            // What `get_parameter_data` fits its trend on: the last observations of a series ending in
            // projections, modelled values with the flag said.
            counts.trends_on_observed_part +=
                u64::from(is_projection(&observations.flags[latest]) && observed.len() >= 3);
            let modelled_in_window = rows
                .iter()
                .rev()
                .filter(|&&row_idx| !is_projection(&observations.flags[row_idx]))
                .take(TREND_TAIL)
                .any(|&row_idx| {
                    observations.flags[row_idx]
                        .split('|')
                        .any(|flag| flag == crate::govern::text::MODELLED_FLAG)
                });
            counts.trends_on_modelled += u64::from(modelled_in_window && observed.len() >= 3);
            let scale = rule_for(rules, indicator).map(|rule| rule.scale);
            let cagr_refusal = scale.and_then(Scale::cagr_refusal).is_some();
            let bounded = scale == Some(Scale::Bounded);
            let at = |year: i32| observed.iter().find(|point| point.year == year).copied();
            let mut cagr_over = |years: i32| {
                let cagr = last_observed.and_then(|last| {
                    at(last.year - years).and_then(|first| analytics::cagr(first, last))
                });
                counts.cagr_refused += u64::from(cagr.is_some() && cagr_refusal);
                counts.cagr_refused_bounded += u64::from(cagr.is_some() && bounded);
                cagr.filter(|_| !cagr_refusal)
            };
            let (cagr_5y, cagr_10y) = (cagr_over(5), cagr_over(10));
            if cagr_5y.is_some() || cagr_10y.is_some() {
                with_cagr.insert(indicator.to_string());
            }
            let previous = observed.len().checked_sub(2).map(|index| observed[index]);
            let window: Vec<Point> = last_observed
                .map(|last| {
                    observed
                        .iter()
                        .filter(|point| point.year > last.year - TREND_YEARS)
                        .copied()
                        .collect()
                })
                .unwrap_or_default();
            let trend = analytics::linear_trend(&window);
            counts.flat_trends += u64::from(trend.is_some_and(|fit| fit.r_squared.is_none()));
            let forecast = trend.zip(last_observed).and_then(|(fit, last)| {
                let forecast = analytics::forecast(&fit, last.year + 5, 0.95)?;
                Some(match by_id.get(indicator) {
                    Some(metric) => clip_forecast(forecast, &metric.valid_range),
                    None => (forecast, None),
                })
            });
            let forecast_clipped = forecast
                .as_ref()
                .is_some_and(|(_, reason)| reason.is_some());
            counts.forecasts_clipped += u64::from(forecast_clipped);
            SeriesStats {
                indicator: indicator.to_string(),
                country: country.to_string(),
                n: rows.len() as u32,
                first_year: observations.year[rows[0]],
                latest_year: observations.year[latest],
                latest_value: observations.value[latest],
                latest_citation_id: observations.citation_id[latest].to_string(),
                latest_flags: observations.flags[latest].to_string(),
                last_observed_year: last_observed.map(|point| point.year),
                last_observed_value: last_observed.map(|point| point.value),
                previous_year: previous.map(|point| point.year),
                change_from_previous: previous
                    .zip(last_observed)
                    .map(|(previous, last)| analytics::change(previous, last).absolute),
                cagr_5y,
                cagr_10y,
                trend_slope: trend.map(|fit| fit.slope),
                trend_r_squared: trend.and_then(|fit| fit.r_squared),
                trend_years: trend.and_then(|_| Some((window.first()?.year, window.last()?.year))),
                forecast_5y: forecast.map(|(forecast, _)| {
                    (
                        forecast.year,
                        forecast.value,
                        forecast.lower,
                        forecast.upper,
                    )
                }),
                forecast_clipped,
            }
        })
        .collect();
    counts.metrics_with_cagr = with_cagr.len() as u64;
    stats
}
