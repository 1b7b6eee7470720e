//! The derived-figure rules of each baked metric (`derived_rules.json`): its declaration in
//! `data/aggregation.toml` — or, where the publisher documents how it aggregates the series (WDI series
//! metadata's `Aggregation method`), that method with the weight of the series' denominator
//! (`declared_by: "WDI series metadata: Weighted average (weight: land_area; …)"`) — with the scale of a `ratio` metric read as `interval` when a negative value
//! is observed (its zero is crossed, so relative change and CAGR do not apply), and as `bounded` when
//! its unit is a score, index or share with a declared maximum (`corpus::derived::is_bounded`: CPIA 1–6,
//! a 0–1 index, a share of at most 100 %), whose values cannot compound.

use std::collections::HashSet;

use corpus::{
    Metric,
    analytics::Scale,
    derived::{DerivedRuleCounts, MetricRule, is_bounded},
};

use crate::{govern::table::ObservationColumns, sources::aggregation::AggregationRules};

/// One rule per metric, sorted by indicator, and the counts of what was declared.
///
/// # Panics
/// When a metric resolves to no declaration, which a validated catalog rules out.
pub fn metric_rules(
    declared: &AggregationRules,
    metrics: &[Metric],
    observations: &ObservationColumns,
    counts: &mut DerivedRuleCounts,
) -> Vec<MetricRule> {
    let negative: HashSet<&str> = (0..observations.len())
        .filter(|&row_idx| observations.value[row_idx] < 0.0)
        .map(|row_idx| observations.indicator[row_idx].as_str())
        .collect();
    let mut rules: Vec<MetricRule> = metrics
        .iter()
        .map(|metric| {
            let resolved = declared
                .resolve(&metric.id, &metric.unit)
                .unwrap_or_else(|| panic!("{} resolves: the catalog is validated", metric.id));
            let demoted =
                resolved.scale == Scale::Ratio && negative.contains(metric.id.as_str());
            if demoted {
                counts.scales_demoted.push(metric.id.clone());
            }
            let bounded = !demoted
                && resolved.scale == Scale::Ratio
                && is_bounded(&metric.unit, &metric.valid_range);
            if bounded {
                counts.scales_bounded.push(metric.id.clone());
            }
            MetricRule {
                indicator: metric.id.clone(),
                aggregation: resolved.aggregation,
                scale: if demoted {
                    Scale::Interval
                } else if bounded {
                    Scale::Bounded
                } else {
                    resolved.scale
                },
                comparable: resolved.comparable,
                reason: if demoted {
                    format!(
                        "{}; negative values are observed, so its zero is crossed: no relative change or CAGR",
                        resolved.reason
                    )
                } else if bounded {
                    format!(
                        "{}; a score, index or share bounded at {} ({}): its values cannot compound, so no \
                         relative change or CAGR",
                        resolved.reason,
                        metric.valid_range.max.unwrap_or_default(),
                        metric.unit
                    )
                } else {
                    resolved.reason
                },
                weight: resolved.weight.as_deref().map(|name| {
                    declared
                        .weight(name)
                        .unwrap_or_else(|| panic!("weight {name} is declared: the file is validated"))
                }),
                publisher_method: resolved.publisher_method,
                declared_by: resolved.declared_by,
                direction_note: declared.direction_note(&metric.id).map(str::to_string),
            }
        })
        .collect();
    rules.sort_by(|left, right| left.indicator.cmp(&right.indicator));
    for rule in &rules {
        *counts
            .metrics_by_aggregation
            .entry(rule.aggregation.as_str().to_string())
            .or_default() += 1;
        *counts
            .metrics_by_scale
            .entry(rule.scale.as_str().to_string())
            .or_default() += 1;
        counts.metrics_not_comparable += u64::from(!rule.comparable);
        if let Some(weight) = &rule.weight {
            *counts
                .metrics_by_weight
                .entry(weight.name.clone())
                .or_default() += 1;
        }
        counts.metrics_by_publisher_method +=
            u64::from(rule.declared_by.starts_with("WDI series metadata"));
    }
    rules
}
