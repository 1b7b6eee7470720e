//! What the project tools share (`find_pilots`, `get_pilot`, `recommend_action`): a project's maturity,
//! the note on projects no pillar filter can see, an indicator's cited latest value with its trend and
//! whether that trend is worsening, and the largest OECD CRS flows to a country in a pillar.

use corpus::{GoodDirection, Lang, Project};
use schemars::JsonSchema;
use serde::Serialize;

use super::ToolError;
use crate::load::Corpus;

/// The maturity of a status: `active`, `pipeline`, `closed`; `None` for a dropped project (never a pilot).
pub fn maturity(status: &str) -> Option<&'static str> {
    match status {
        "Active" => Some("active"),
        "Pipeline" => Some("pipeline"),
        "Closed" => Some("closed"),
        _ => None,
    }
}

/// How many active or pipeline projects (in `iso3`, or anywhere) have no pillar, and so escape a filter
/// on `pillar`, with a few of them; `None` when none.
pub fn unclassified_note(projects: &[Project], iso3: Option<&str>, pillar: &str) -> Option<String> {
    let unclassified: Vec<&Project> = projects
        .iter()
        .filter(|project| {
            project.pillars.is_empty()
                && matches!(project.status.as_str(), "Active" | "Pipeline")
                && iso3.is_none_or(|iso3| project.country.as_deref() == Some(iso3))
        })
        .collect();
    if unclassified.is_empty() {
        return None;
    }
    let examples: Vec<String> = unclassified
        .iter()
        .take(3)
        .map(|project| format!("{} ({})", project.id.to_ascii_lowercase(), project.title))
        .collect();
    Some(format!(
        "{} active or pipeline project{}{} have neither a sector in the World Bank's exports nor a title word of the reviewed list, so no pillar, and a filter on \
         {pillar} cannot see them (e.g. {}); query them by words without `parameter`.",
        unclassified.len(),
        if unclassified.len() == 1 { "" } else { "s" },
        iso3.map_or_else(String::new, |iso3| format!(" in {iso3}")),
        examples.join("; ")
    ))
}

/// A cited latest value of an indicator in a country (`get_pilot`'s risks and flows, `find_pilots`' impact base).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct IndicatorValue {
    /// Metric id.
    pub indicator: String,
    /// Name in the requested language.
    pub name: String,
    /// Unit.
    pub unit: String,
    /// Latest year.
    pub year: i32,
    /// Latest value.
    pub value: f64,
    /// 10-year least-squares slope per year, when the indicator has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trend_slope: Option<f64>,
    /// Citation of the value.
    pub citation_id: String,
}

/// The latest observed (not projected) value of `metric` in `iso3`, with the series' 10-year trend from
/// the series statistics; `None` when the corpus has no observed value for them.
///
/// # Errors
/// [`ToolError::Internal`] if the series statistics cannot be read.
pub fn latest_value(
    corpus: &Corpus,
    metric: &corpus::Metric,
    iso3: &str,
    lang: Lang,
) -> Result<Option<IndicatorValue>, ToolError> {
    let stats = corpus.series_stats().map_err(ToolError::Internal)?;
    let Ok(at) = stats.binary_search_by(|row| {
        (row.indicator.as_str(), row.country.as_str()).cmp(&(metric.id.as_str(), iso3))
    }) else {
        return Ok(None);
    };
    let observations = corpus.baked.observations();
    let Some(observed) = observations
        .series(&metric.id, iso3)
        .rev()
        .map(|row| observations.row(row))
        .find(|row| !corpus::is_projection(row.flags))
    else {
        return Ok(None);
    };
    Ok(Some(IndicatorValue {
        indicator: metric.id.clone(),
        name: metric.names.get(lang).to_string(),
        unit: metric.unit.clone(),
        year: observed.year,
        value: observed.value,
        trend_slope: stats[at].trend_slope,
        citation_id: observed.citation_id.to_string(),
    }))
}

/// Whether a 10-year `slope` runs against `direction` by at least 1 % of `value` over the decade: a
/// flat series (hospital beds 1.00, 1.01, 1.01) is not worsening.
pub fn is_worsening(direction: GoodDirection, slope: Option<f64>, value: f64) -> bool {
    let Some(slope) = slope else {
        return false;
    };
    let material = (slope * 10.0).abs() >= 0.01 * value.abs().max(f64::MIN_POSITIVE);
    material
        && match direction {
            GoodDirection::Up => slope < 0.0,
            GoodDirection::Down => slope > 0.0,
            _ => false,
        }
}

/// The `count` largest OECD CRS climate-related flows (constant prices, summed over years) to `iso3` in
/// the sectors of `pillar`, largest first.
pub fn largest_crs_flows<'a>(
    table: &'a crate::load::records::RecordTable<corpus::FinancingRecord>,
    iso3: &str,
    pillar: &str,
    count: usize,
) -> Vec<&'a corpus::FinancingRecord> {
    let mut flows: Vec<&corpus::FinancingRecord> = table
        .records
        .iter()
        .filter(|record| {
            record.kind == "crs_flow"
                && record.country == iso3
                && record.pillars.iter().any(|of| of == pillar)
        })
        .collect();
    flows.sort_by(|left, right| {
        right
            .total_constant_usd_mn
            .unwrap_or(0.0)
            .total_cmp(&left.total_constant_usd_mn.unwrap_or(0.0))
            .then(left.citation_id.cmp(&right.citation_id))
    });
    flows.truncate(count);
    flows
}
