//! Per indicator and country statistics (`series_stats.json`), computed with `corpus::analytics` so the
//! server's `compute` gives the same numbers at query time.

use corpus::{
    SeriesStats,
    analytics::{self, Point},
    derived::TREND_YEARS,
};

use crate::export::tables::ObservationColumns;

/// One [`SeriesStats`] per (indicator, country) of the country observations, sorted by both.
pub fn series_stats(observations: &ObservationColumns) -> Vec<SeriesStats> {
    super::group_series(observations, |_| true)
        .into_iter()
        .map(|((indicator, country), mut rows)| {
            rows.sort_by_key(|&row_idx| observations.year[row_idx]);
            let latest = *rows.last().expect("a series has rows");
            let observed: Vec<Point> = rows
                .iter()
                .filter(|&&row_idx| observations.flags[row_idx].is_empty())
                .map(|&row_idx| Point {
                    year: observations.year[row_idx],
                    value: observations.value[row_idx],
                })
                .collect();
            let last_observed = observed.last().copied();
            let at = |year: i32| observed.iter().find(|point| point.year == year).copied();
            let cagr_over = |years: i32| {
                last_observed.and_then(|last| {
                    at(last.year - years).and_then(|first| analytics::cagr(first, last))
                })
            };
            let previous = observed
                .iter()
                .rev()
                .find(|point| point.year < observations.year[latest])
                .copied();
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
            SeriesStats {
                indicator: indicator.to_string(),
                country: country.to_string(),
                n: rows.len() as u32,
                first_year: observations.year[rows[0]],
                latest_year: observations.year[latest],
                latest_value: observations.value[latest],
                latest_citation_id: observations.citation_id[latest].clone(),
                latest_flags: observations.flags[latest].clone(),
                previous_year: previous.map(|point| point.year),
                change_from_previous: previous.map(|point| {
                    analytics::change(
                        point,
                        Point {
                            year: observations.year[latest],
                            value: observations.value[latest],
                        },
                    )
                    .absolute
                }),
                cagr_5y: cagr_over(5),
                cagr_10y: cagr_over(10),
                trend_slope: trend.map(|fit| fit.slope),
                trend_r_squared: trend.map(|fit| fit.r_squared),
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
