//! Per indicator and country statistics (`series_stats.json`), computed with `corpus::analytics` so the
//! server's `compute` gives the same numbers at query time. Change, CAGR, trend and forecast use
//! observed values only (flags without `projection`) and end at the last observation; CAGR only where
//! the metric's scale is `ratio`.

use corpus::{
    SeriesStats,
    analytics::{self, Point},
    derived::{DerivedRuleCounts, MetricRule, TREND_YEARS, rule_for},
    is_projection,
};

use crate::govern::table::ObservationColumns;

/// One [`SeriesStats`] per (indicator, country) of the country observations, sorted by both.
pub fn series_stats(
    observations: &ObservationColumns,
    rules: &[MetricRule],
    counts: &mut DerivedRuleCounts,
) -> Vec<SeriesStats> {
    super::series::group_series(observations, |_| true)
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
            let cagr_refusal = rule_for(rules, indicator)
                .and_then(|rule| rule.scale.cagr_refusal())
                .is_some();
            let at = |year: i32| observed.iter().find(|point| point.year == year).copied();
            let mut cagr_over = |years: i32| {
                let cagr = last_observed.and_then(|last| {
                    at(last.year - years).and_then(|first| analytics::cagr(first, last))
                });
                counts.cagr_refused += u64::from(cagr.is_some() && cagr_refusal);
                cagr.filter(|_| !cagr_refusal)
            };
            let (cagr_5y, cagr_10y) = (cagr_over(5), cagr_over(10));
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
            SeriesStats {
                indicator: indicator.to_string(),
                country: country.to_string(),
                n: rows.len() as u32,
                first_year: observations.year[rows[0]],
                latest_year: observations.year[latest],
                latest_value: observations.value[latest],
                latest_citation_id: observations.citation_id[latest].clone(),
                latest_flags: observations.flags[latest].clone(),
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
                forecast_5y: trend.zip(last_observed).and_then(|(fit, last)| {
                    analytics::forecast(&fit, last.year + 5, 0.95).map(|forecast| {
                        (
                            forecast.year,
                            forecast.value,
                            forecast.lower,
                            forecast.upper,
                        )
                    })
                }),
            }
        })
        .collect()
}
