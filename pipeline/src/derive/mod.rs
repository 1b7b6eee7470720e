//! Derived tables computed from the governed observations at bake time: [`derive()`] runs every one of
//! them in order (concordance, then the rules, which every other view obeys) and hands them to the bake,
//! which writes them.

pub mod concordance;
pub mod correlations;
pub mod discoveries;
pub mod publisher;
pub mod rules;
pub mod series;
pub mod series_stats;
pub mod year_stats;

use std::collections::HashMap;

use corpus::{
    CountryRegistry, Discoveries, Metric, PillarCorrelation, SeriesStats, SourceRecord, YearStats,
    derived::{DerivedRuleCounts, MetricRule},
    health::{self, DataHealth, Latest},
};

use crate::{
    govern::table::ObservationColumns,
    sources::{aggregation::AggregationRules, concordance::ConcordancePair},
};

/// What the derive stage reads.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The governed country observations.
    pub observations: &'a ObservationColumns,
    /// The governed comparison-aggregate observations (the publishers' own regional aggregates: LCN).
    pub aggregates: &'a ObservationColumns,
    /// The metric registry.
    pub metrics: &'a [Metric],
    /// The source registry.
    pub sources: &'a [SourceRecord],
    /// `data/aggregation.toml`'s rules.
    pub aggregation: &'a AggregationRules,
    /// `data/concordance.toml`'s pairs.
    pub pairs: &'a [ConcordancePair],
    /// The pillar ids, in the catalog's order.
    pub pillar_ids: &'a [&'a str],
    /// The LAC registry.
    pub countries: &'a CountryRegistry,
}

/// Every derived table of a bake.
#[derive(Debug)]
pub struct Derived {
    /// Both publishers' values per declared pair, country and year.
    pub concordance_table: concordance::ConcordanceColumns,
    /// Per pair id: shared country-years and those beyond tolerance.
    pub concordance_counts: Vec<(String, u64, u64)>,
    /// The derived-figure rule of every metric (`derived_rules.json`).
    pub rules: Vec<MetricRule>,
    /// Anomalies and source contradictions (`discoveries.json`).
    pub discoveries: Discoveries,
    /// Pairwise correlations of each pillar's headline indicators (`correlations.json`).
    pub correlations: Vec<PillarCorrelation>,
    /// Per indicator and year regional summaries (`year_stats.json`).
    pub year_stats: Vec<YearStats>,
    /// Per indicator and country statistics (`series_stats.json`).
    pub series_stats: Vec<SeriesStats>,
    /// Data health per pillar and country (`data_health.json`).
    pub data_health: DataHealth,
    /// What each rule refused, for the bake report.
    pub rule_counts: DerivedRuleCounts,
}

/// Computes every derived table from `inputs`, in the order their rule counts accumulate: concordance,
/// rules, discoveries, correlations, year statistics, series statistics, then data health.
pub fn derive(inputs: &Inputs<'_>) -> Derived {
    let Inputs {
        observations,
        aggregates,
        metrics,
        sources,
        aggregation,
        pairs,
        pillar_ids,
        countries,
    } = *inputs;
    let (concordance_table, concordance_counts, modelled_compared) =
        concordance::concordance(pairs, observations);
    let mut rule_counts = DerivedRuleCounts {
        concordance_modelled_compared: modelled_compared,
        ..DerivedRuleCounts::default()
    };
    count_estimates_and_projections(observations, &mut rule_counts);
    let rules = rules::metric_rules(aggregation, metrics, observations, &mut rule_counts);
    let discoveries =
        discoveries::discoveries(observations, &concordance_table, pairs, &mut rule_counts);
    let correlations = correlations::correlations(metrics, observations, &rules, &mut rule_counts);
    let mut year_stats =
        year_stats::year_stats(metrics, observations, &rules, countries, &mut rule_counts);
    publisher::attach(&mut year_stats, aggregates, sources, &rules);
    rule_counts.publisher_concordance = publisher::concordance(&year_stats, &rules, metrics);
    let series_stats = series_stats::series_stats(observations, metrics, &rules, &mut rule_counts);
    let latest: HashMap<(&str, &str), Latest> = series::group_series(observations, |_| true)
        .into_iter()
        .filter_map(|(key, rows)| {
            let years_and_flags = rows.iter().map(|&row_idx| {
                (
                    observations.year[row_idx],
                    observations.flags[row_idx].as_str(),
                )
            });
            Some((key, Latest::of_series(years_and_flags)?))
        })
        .collect();
    let country_codes: Vec<&str> = countries
        .countries()
        .map(|country| country.iso3.as_str())
        .collect();
    let coverage = aggregation.declared_coverage();
    let mut data_health = health::data_health(
        metrics,
        sources,
        pillar_ids,
        &country_codes,
        &coverage,
        |metric, country| latest.get(&(metric.id.as_str(), country)).copied(),
    );
    rule_counts.health_absent_by_design = data_health
        .pillar_countries
        .iter()
        .filter(|health| !health.absent_by_design.is_empty())
        .count() as u64;
    data_health.coverage = pillar_coverage(observations, metrics, pillar_ids, countries);
    Derived {
        concordance_table,
        concordance_counts,
        rules,
        discoveries,
        correlations,
        year_stats,
        series_stats,
        data_health,
        rule_counts,
    }
}

/// Counts the observations flagged `estimate`, `projection` and `vintage_projection` per source into
/// `counts` (the bake report's estimates and projections line).
fn count_estimates_and_projections(
    observations: &ObservationColumns,
    counts: &mut DerivedRuleCounts,
) {
    for (flags, source) in observations.flags.iter().zip(&observations.source) {
        for (flagged, tally) in [
            (corpus::is_estimate(flags), &mut counts.estimates),
            (corpus::is_projection(flags), &mut counts.projections),
            (
                corpus::has_flag(flags, corpus::VINTAGE_PROJECTION_FLAG),
                &mut counts.vintage_projections,
            ),
        ] {
            if flagged {
                *tally.entry(source.to_string()).or_default() += 1;
            }
        }
    }
}

/// Broad recent coverage per pillar ([`health::pillar_coverage`]): per indicator, the sovereign countries
/// of `countries` with an observation (neither projected nor modelled) in
/// [`health::RECENT_FROM_YEAR`] or later.
fn pillar_coverage(
    observations: &ObservationColumns,
    metrics: &[Metric],
    pillar_ids: &[&str],
    countries: &CountryRegistry,
) -> Vec<health::PillarCoverage> {
    let sovereign: std::collections::HashSet<&str> = countries
        .countries()
        .filter(|country| country.sovereign)
        .map(|country| country.iso3.as_str())
        .collect();
    let mut recent: HashMap<&str, std::collections::HashSet<&str>> = HashMap::new();
    for row_idx in 0..observations.len() {
        let country = observations.country[row_idx].as_str();
        if observations.year[row_idx] >= health::RECENT_FROM_YEAR
            && sovereign.contains(country)
            && health::is_observed(&observations.flags[row_idx])
        {
            recent
                .entry(observations.indicator[row_idx].as_str())
                .or_default()
                .insert(country);
        }
    }
    health::pillar_coverage(metrics, pillar_ids, |id| {
        recent.get(id).map_or(0, std::collections::HashSet::len)
    })
}

#[cfg(test)]
mod coverage_tests {
    #[test]
    fn the_modelled_flag_the_bake_sets_is_one_that_coverage_leaves_out() {
        assert!(corpus::health::NOT_OBSERVED_FLAGS.contains(&crate::govern::text::MODELLED_FLAG));
        assert!(!corpus::health::is_observed("modelled|suspect_scale"));
        assert!(!corpus::health::is_observed("projection"));
        assert!(corpus::health::is_observed("suspect_scale"));
        assert!(corpus::health::is_observed(""));
    }
}
