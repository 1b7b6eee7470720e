//! Op `forecast`: the ordinary least-squares trend of one country's observed values and its forecast for
//! a later year with a 95 % prediction interval, warned when the fit is poor or the window flat, and
//! clipped to the indicator's valid range (`clipped`, with the reason) when the trend leaves it; `basis`
//! says whether modelled values were fitted.

use corpus::{
    Lang, Metric, Observation,
    analytics::{self, Point},
    derived::{MAX_FORECAST_HORIZON, TREND_YEARS, clip_forecast},
    is_projection,
};
use schemars::JsonSchema;
use serde::Serialize;

use super::{ComputeInput, ComputeResult, calculation, one_country, point, series};
use crate::{
    load::Corpus,
    tools::{
        ToolError, arguments,
        display::{self, DisplayTable},
    },
};

/// R² under which a forecast carries a warning that the linear trend explains little.
pub const POOR_FIT_R_SQUARED: f64 = 0.5;

/// A linear-trend forecast.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ForecastResult {
    /// Country.
    pub country: String,
    /// Year forecast.
    pub year: i32,
    /// Fitted value for that year, clipped to the indicator's valid range (see `clipped`).
    pub value: f64,
    /// Lower bound of the 95 % prediction interval, clipped to the valid range.
    pub lower: f64,
    /// Upper bound of the 95 % prediction interval, clipped to the valid range.
    pub upper: f64,
    /// Whether the trend's value or interval left the indicator's valid range (a share above 100 %, a
    /// negative rate) and was clipped to it; `unclipped` then holds the trend's own figures.
    pub clipped: bool,
    /// Why it was clipped, with the trend's own value and interval; absent when not clipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip_reason: Option<String>,
    /// The trend's own `[value, lower, upper]` before clipping; absent when not clipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unclipped: Option<[f64; 3]>,
    /// What the fit rests on: `observed` values, or `modelled` when some fitted values are a publisher's
    /// modelled estimates (flag `modelled`, e.g. ILO's modelled unemployment). Projections are never fitted.
    pub basis: String,
    /// Change per year of the fitted line.
    pub slope: f64,
    /// Intercept of the fitted line (value at year 0).
    pub intercept: f64,
    /// R² of the fit; null for a flat window (every value the same), where it is undefined.
    pub r_squared: Option<f64>,
    /// Points fitted.
    pub n: usize,
    /// First and last year fitted.
    pub fitted_years: (i32, i32),
    /// Present when the fit is poor (R² under 0.5), the window is flat (R² undefined), the forecast was
    /// clipped to the indicator's valid range (e.g. a negative rate) or the fit rests on modelled values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// Fills `result` with the least-squares trend of `input.country`'s observed values from `from_year`
/// (default: the last [`TREND_YEARS`] observed, as the bake's precomputed forecast) and its forecast for
/// `to_year` (default: 5 years after the last observed) with a 95 % prediction interval.
///
/// # Errors
/// [`ToolError::Invalid`] for a method other than `ols`, no country, fewer than 3 observed values, or a
/// year not after the last observed one or beyond [`MAX_FORECAST_HORIZON`].
pub(super) fn forecast(
    corpus: &Corpus,
    metric: &Metric,
    input: &ComputeInput,
    result: &mut ComputeResult,
) -> Result<(), ToolError> {
    if let Some(method) = input.method.as_deref().filter(|method| *method != "ols") {
        return Err(ToolError::Invalid(format!(
            "method `{}` for forecast: the only method is ols",
            arguments::snippet(method)
        )));
    }
    let country = one_country(corpus, input)?;
    // Projections are not observations; modelled values are fitted with the basis said.
    let observed: Vec<Observation<'_>> = series(corpus, metric, &country)?
        .into_iter()
        .filter(|row| !is_projection(row.flags))
        .collect();
    let last_observed = observed.last().map_or(0, |row| row.year);
    // By default the window of the bake's precomputed trend and forecast, so both agree.
    let from_year = input.from_year.unwrap_or(last_observed - TREND_YEARS + 1);
    let rows: Vec<Observation<'_>> = observed
        .into_iter()
        .filter(|row| row.year >= from_year)
        .collect();
    let points: Vec<Point> = rows.iter().map(point).collect();
    let trend = analytics::linear_trend(&points).ok_or_else(|| {
        ToolError::Invalid(format!(
            "a forecast needs at least 3 observed values of {} for {country}; found {}",
            metric.id,
            points.len()
        ))
    })?;
    let last = rows.last().map(|row| row.year).unwrap_or_default();
    let year = input.to_year.unwrap_or(last + 5);
    if year <= last {
        return Err(ToolError::Invalid(format!(
            "to_year {year} is not after the last observed year {last}; give a later year"
        )));
    }
    if year > last + MAX_FORECAST_HORIZON {
        return Err(ToolError::Invalid(format!(
            "to_year {year} is more than {MAX_FORECAST_HORIZON} years after the last observed year {last}; a \
             linear trend is not extrapolated that far: give {} to {}",
            last + 1,
            last + MAX_FORECAST_HORIZON
        )));
    }
    let fitted = analytics::forecast(&trend, year, 0.95)
        .ok_or_else(|| ToolError::Internal("forecast interval".into()))?;
    let range = &metric.valid_range;
    let (forecast, clip_reason) = clip_forecast(fitted, range);
    let modelled = rows.iter().any(|row| {
        row.flags
            .split('|')
            .any(|flag| flag == corpus::health::MODELLED_FLAG)
    });
    let first = rows.first().map(|row| row.year).unwrap_or_default();
    let poor_fit = match trend.r_squared {
        Some(r_squared) => (r_squared < POOR_FIT_R_SQUARED).then(|| {
            format!(
                "the linear trend explains little of the series' variation (R² {r_squared:.2} over {first}-{last}): \
                 read the forecast as the recent level within its interval, not as a direction"
            )
        }),
        None => Some(format!(
            "the values are flat over {first}-{last}: R² is undefined and the forecast repeats the level"
        )),
    };
    let out_of_range = clip_reason.as_ref().map(|_| {
        format!(
            "the 95% interval [{}, {}] leaves the indicator's valid range [{}, {}]: the linear trend cannot \
             continue that far, so the forecast is clipped to the range",
            fitted.lower,
            fitted.upper,
            range.min.map_or("-inf".to_string(), |min| min.to_string()),
            range.max.map_or("inf".to_string(), |max| max.to_string()),
        )
    });
    let modelled_warning = modelled.then(|| {
        "the fit rests on the publisher's modelled estimates (flag modelled), not on measurements".to_string()
    });
    let warnings: Vec<String> = poor_fit
        .into_iter()
        .chain(out_of_range)
        .chain(modelled_warning)
        .collect();
    let warning = (!warnings.is_empty()).then(|| warnings.join("; "));
    let inputs: Vec<&Observation<'_>> = rows.iter().collect();
    result.calculation = calculation(
        "forecast",
        &format!("{}-{}-{year}", metric.id, country.to_ascii_lowercase()),
        "ordinary least-squares linear trend with a 95% prediction interval (Student's t, n - 2 degrees of freedom); projections excluded from the fit; value and interval clipped to the indicator's valid range",
        "value = intercept + slope * year; interval = fit ± t(0.975, n-2) · s · sqrt(1 + 1/n + (year - mean year)² / Sxx)",
        &inputs,
    );
    result.forecast = Some(ForecastResult {
        country,
        year,
        value: forecast.value,
        lower: forecast.lower,
        upper: forecast.upper,
        clipped: clip_reason.is_some(),
        unclipped: clip_reason
            .is_some()
            .then_some([fitted.value, fitted.lower, fitted.upper]),
        clip_reason,
        basis: if modelled { "modelled" } else { "observed" }.to_string(),
        slope: trend.slope,
        intercept: trend.intercept,
        r_squared: trend.r_squared,
        n: trend.n,
        fitted_years: (rows.first().map(|row| row.year).unwrap_or_default(), last),
        warning,
    });
    Ok(())
}

/// The display table of a forecast: year, value and interval.
pub(super) fn table(result: &ComputeResult, forecast: &ForecastResult) -> DisplayTable {
    DisplayTable {
        title: format!("{} — {}", result.indicator_name, forecast.country),
        columns: vec![
            "year".into(),
            "forecast".into(),
            "lower (95%)".into(),
            "upper (95%)".into(),
        ],
        rows: vec![vec![
            forecast.year.into(),
            forecast.value.into(),
            forecast.lower.into(),
            forecast.upper.into(),
        ]],
        marks: Vec::new(),
    }
}

/// The chart of a forecast: the observed line over the fitted years, the fitted trend, and the forecast
/// point with its interval.
pub(super) fn chart(
    corpus: &Corpus,
    metric: &Metric,
    result: &ComputeResult,
    forecast: &ForecastResult,
    lang: Lang,
) -> display::Chart {
    let table = corpus.baked.observations();
    let observed: Vec<serde_json::Value> = table
        .series(&metric.id, &forecast.country)
        .map(|row_idx| table.row(row_idx))
        .filter(|row| !is_projection(row.flags) && row.year >= forecast.fitted_years.0)
        .map(|row| serde_json::json!({"year": row.year, "value": row.value}))
        .collect();
    let [observed_word, trend_word, forecast_word] = match lang {
        Lang::Es => [
            "observado",
            "tendencia ajustada",
            "pronóstico (intervalo 95 %)",
        ],
        Lang::En => ["observed", "fitted trend", "forecast (95% interval)"],
        Lang::Pt => [
            "observado",
            "tendência ajustada",
            "previsão (intervalo de 95%)",
        ],
    };
    let observed: Vec<serde_json::Value> = observed
        .into_iter()
        .map(|mut point| {
            point["kind"] = observed_word.into();
            point
        })
        .collect();
    let (first_fitted, _) = forecast.fitted_years;
    let trend = [first_fitted, forecast.year].map(|year| {
        serde_json::json!({"year": year, "value": forecast.intercept + forecast.slope * f64::from(year), "kind": trend_word})
    });
    let range = display::value_range(
        observed
            .iter()
            .filter_map(|point| point["value"].as_f64())
            .chain([forecast.lower, forecast.upper]),
    );
    // One x and one y for every layer (the same titles, so they merge), the y baseline by the values'
    // spread, and room at the right for the forecast's interval.
    let x = serde_json::json!({"field": "year", "type": "quantitative", "axis": {"format": "d", "labelOverlap": true, "tickMinStep": 1}, "title": display::year_title(lang), "scale": {"padding": 16}});
    let y = |field: &str| serde_json::json!({"field": field, "type": "quantitative", "title": result.unit, "scale": display::y_scale(range)});
    let color = serde_json::json!({"field": "kind", "type": "nominal", "title": null,
        "scale": {"domain": [observed_word, trend_word, forecast_word], "range": ["#4c78a8", "#9d9d9d", "#e45756"]}});
    let forecast_label = match lang {
        Lang::Es => "pronóstico",
        Lang::En => "forecast",
        Lang::Pt => "previsão",
    };
    display::Chart::from_spec(serde_json::json!({
        "$schema": display::VEGA_LITE_SCHEMA,
        "title": format!("{} — {} ({forecast_label} {})", result.indicator_name, forecast.country, forecast.year),
        "layer": [
            {"data": {"values": trend}, "mark": {"type": "line", "strokeDash": [4, 3]},
             "encoding": {"x": x, "y": y("value"), "color": color}},
            {"data": {"values": observed}, "mark": {"type": "line", "point": true},
             "encoding": {"x": x, "y": y("value"), "color": color}},
            {"data": {"values": [{"year": forecast.year, "lower": forecast.lower, "upper": forecast.upper, "kind": forecast_word}]}, "mark": {"type": "errorbar", "ticks": true},
             "encoding": {"x": x, "y": y("lower"), "y2": {"field": "upper"}, "color": color}},
            {"data": {"values": [{"year": forecast.year, "value": forecast.value, "kind": forecast_word}]}, "mark": {"type": "point", "filled": true, "size": 60},
             "encoding": {"x": x, "y": y("value"), "color": color}}
        ]
    }))
}
