//! The publisher's own regional aggregate beside ours: the World Bank's Latin America & Caribbean
//! aggregate (`LCN`), a comparison-aggregate observation of the WDI sources (governed and cited like any
//! value), attached to each year statistic it exists for ([`attach`]), and the bake-time concordance of
//! our representative-year value against it ([`concordance`]: within 5 % for what share, and every
//! exception with its computed reason) for the bake report.
//!
//! UNDP's `ZZH.LAC` (HDR) is not read: governance reports it as an entity that is not a corpus aggregate
//! (UNDP's region differs from the World Bank's); the IMF WEO extract holds no region aggregates.

use std::collections::HashMap;

use corpus::{
    Metric, SourceRecord, YearStats,
    analytics::Aggregation,
    derived::{
        CONCORDANCE_TOLERANCE, ConcordanceException, FULL_COVERAGE, MetricRule, PublisherAggregate,
        PublisherConcordance, WORLD_BANK_LCN, representative_year, rule_for,
    },
    is_projection,
};

use crate::govern::table::ObservationColumns;

/// The publisher's code of the region (World Bank `LCN`, Latin America & Caribbean).
pub const REGION_CODE: &str = "LCN";
/// The publisher whose `LCN` rows are its own aggregate (a source's `publisher`).
pub const WORLD_BANK: &str = "The World Bank";

/// Sets `publisher` on every year statistic whose indicator and year the World Bank publishes an
/// observed (not projected) `LCN` value for, in a source published by the World Bank.
pub fn attach(
    year_stats: &mut [YearStats],
    aggregates: &ObservationColumns,
    sources: &[SourceRecord],
    rules: &[MetricRule],
) {
    let world_bank: Vec<&str> = sources
        .iter()
        .filter(|source| source.publisher == WORLD_BANK)
        .map(|source| source.id.as_str())
        .collect();
    let mut published: HashMap<(&str, i32), usize> = HashMap::new();
    for row_idx in 0..aggregates.len() {
        if aggregates.country[row_idx] == REGION_CODE
            && world_bank.contains(&aggregates.source[row_idx].as_str())
            && !is_projection(&aggregates.flags[row_idx])
        {
            published.insert(
                (
                    aggregates.indicator[row_idx].as_str(),
                    aggregates.year[row_idx],
                ),
                row_idx,
            );
        }
    }
    for stats in year_stats {
        let Some(&row_idx) = published.get(&(stats.indicator.as_str(), stats.year)) else {
            continue;
        };
        stats.publisher = Some(PublisherAggregate {
            by: WORLD_BANK_LCN.into(),
            code: REGION_CODE.into(),
            value: aggregates.value[row_idx],
            citation_id: aggregates.citation_id[row_idx].to_string(),
            method: rule_for(rules, &stats.indicator)
                .and_then(|rule| rule.publisher_method.clone()),
        });
    }
}

/// Our value against the publisher's, per aggregated indicator at its representative year (the year
/// `get_regional_pulse` serves): how many are within 5 %, overall and where our countries hold 95 % of
/// the region's weight, and every exception with the reason computed from the rule and the coverage.
/// `year_stats` is sorted by indicator and year.
pub fn concordance(
    year_stats: &[YearStats],
    rules: &[MetricRule],
    metrics: &[Metric],
) -> PublisherConcordance {
    let units: HashMap<&str, &str> = metrics
        .iter()
        .map(|metric| (metric.id.as_str(), metric.unit.as_str()))
        .collect();
    let mut result = PublisherConcordance::default();
    for group in year_stats.chunk_by(|left, right| left.indicator == right.indicator) {
        let Some(stats) = representative_year(group) else {
            continue;
        };
        let Some(publisher) = &stats.publisher else {
            result.not_published += 1;
            continue;
        };
        let Some(rule) = rule_for(rules, &stats.indicator) else {
            continue;
        };
        let (ours, theirs) = (stats.regional_value, publisher.value);
        let relative = relative_difference(ours, theirs);
        let within = relative.abs() <= CONCORDANCE_TOLERANCE;
        let coverage = coverage(stats);
        let full = coverage.is_some_and(|share| share >= FULL_COVERAGE);
        result.compared += 1;
        result.within_5pct += u64::from(within);
        result.compared_full_coverage += u64::from(full);
        result.within_5pct_full_coverage += u64::from(full && within);
        if !within {
            result.exceptions.push(ConcordanceException {
                indicator: stats.indicator.clone(),
                year: stats.year,
                ours,
                theirs,
                relative_difference: relative,
                reason: reason(
                    stats,
                    rule,
                    publisher,
                    units.get(stats.indicator.as_str()).copied().unwrap_or(""),
                ),
            });
        }
    }
    result
}

/// `(ours - theirs) / |theirs|`; 0 when both are 0, infinite when only theirs is.
pub fn relative_difference(ours: f64, theirs: f64) -> f64 {
    if theirs == 0.0 {
        if ours == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        (ours - theirs) / theirs.abs()
    }
}

/// The share of the region our value stands for: of the weight for a weighted mean, else of the
/// population.
pub fn coverage(stats: &YearStats) -> Option<f64> {
    stats.weight_share.or(stats.population_share)
}

/// Whether our aggregation is the one the publisher documents.
fn same_method(aggregation: Aggregation, documented: &str) -> bool {
    match documented.trim().to_lowercase().as_str() {
        "weighted average" => aggregation.is_weighted(),
        "sum" | "gap-filled total" => aggregation == Aggregation::Sum,
        "median" => aggregation == Aggregation::Median,
        "unweighted average" => aggregation == Aggregation::UnweightedMean,
        _ => false,
    }
}

/// Why our value and the publisher's differ by more than 5 %, in the order the causes are checked: a
/// different method, a weight the corpus does not hold, our coverage of the weight, or none of these.
fn reason(
    stats: &YearStats,
    rule: &MetricRule,
    publisher: &PublisherAggregate,
    unit: &str,
) -> String {
    let ours = rule.aggregation.as_str();
    let share = coverage(stats).map_or("an unknown share".to_string(), |share| {
        format!("{:.0} %", share * 100.0)
    });
    let Some(documented) = &publisher.method else {
        return format!(
            "the publisher documents no aggregation method for this series; ours is {ours} ({})",
            rule.declared_by
        );
    };
    if !same_method(rule.aggregation, documented) {
        return format!(
            "different method: the publisher's is `{documented}`, ours is {ours} ({}: {})",
            rule.declared_by, rule.reason
        );
    }
    let unit_lower = unit.to_lowercase();
    let per_person = [
        "population",
        "people",
        "capita",
        "person",
        "years",
        "births per woman",
    ]
    .iter()
    .any(|word| unit_lower.contains(word));
    if rule
        .weight
        .as_ref()
        .is_some_and(|weight| weight.name == "population")
        && !per_person
    {
        return format!(
            "weight unavailable: the publisher weighs by the series' own denominator (unit `{unit}`), which \
             the corpus does not hold; ours weighs by population ({share} of the region's held)"
        );
    }
    if coverage(stats).is_none_or(|held| held < FULL_COVERAGE) {
        let what = stats
            .weight
            .as_deref()
            .map_or("population".to_string(), |weight| weight.replace('_', " "));
        let gap_filled = (rule.aggregation == Aggregation::Sum)
            .then(|| coverage(stats).filter(|held| *held > 0.0))
            .flatten()
            .map(|held| stats.regional_value / held)
            .map_or(String::new(), |estimate| {
                format!(
                    "; our sum scaled up to the whole region's population (a crude gap-fill) is {estimate:.4e}, \
                     {:+.1} % from theirs",
                    relative_difference(estimate, publisher.value) * 100.0
                )
            });
        return format!(
            "coverage: our {} countries hold {share} of the region's {what} (under 95 %); the World Bank \
             gap-fills the missing countries (WDI computes a regional aggregate once data cover two thirds \
             of the group, imputing the rest){gap_filled}",
            stats.countries
        );
    }
    format!(
        "same method ({ours}, `{documented}`) over {share} of the region's {}: the publisher's LCN uses its \
         own estimates for countries or years the extract lacks, or another vintage",
        stats
            .weight
            .as_deref()
            .unwrap_or("population")
            .replace('_', " ")
    )
}
