//! The derived-figure rules of issue 10 on the real corpus: declared aggregations (none for currency-
//! specific levels, exchange rates, PPP factors and national-base indices), observed values only in every
//! derived view, statistics only where they apply (no CAGR of growth rates or of indices crossing zero,
//! R² undefined for flat windows), gaps never read as year-over-year changes, and the bake report's
//! counts of each rule. Validation of `data/aggregation.toml` on a copy of the fixture catalog.

use std::{
    collections::{BTreeMap, HashSet},
    path::Path,
};

use corpus::{
    BakedCorpus, Discoveries, PillarCorrelation, SeriesStats, YearStats,
    analytics::{self, Aggregation, Point, Scale},
    derived::{DERIVED_RULES, MAX_CHANGE_GAP, MIN_YEAR_COUNTRIES, MetricRule, representative_year},
    is_projection, layout, read_json,
};
use pipeline::sources::{Catalog, aggregation};

use crate::support::{fixture, project_catalog, real, rules};

fn year_stats(corpus: &BakedCorpus) -> Vec<YearStats> {
    read_json(&corpus.dir().join(layout::YEAR_STATS), "year stats").expect("year_stats.json reads")
}

fn series_stats(corpus: &BakedCorpus) -> Vec<SeriesStats> {
    read_json(&corpus.dir().join(layout::SERIES_STATS), "series stats")
        .expect("series_stats.json reads")
}

/// Whether `citation_id` is a stored observation that is not a projection.
fn observed(corpus: &BakedCorpus, citation_id: &str) -> bool {
    let citation = corpus
        .resolve_citation(citation_id)
        .unwrap_or_else(|unresolved| panic!("{unresolved}"));
    let row = corpus
        .observations()
        .find(&citation.indicator, &citation.country, citation.year)
        .expect("a resolved citation is a row");
    !is_projection(row.flags)
}

/// Equal up to the last bits serde_json's float parsing may change (the views are read back from JSON).
fn close(left: f64, right: f64) -> bool {
    (left - right).abs() <= 1e-12 * left.abs().max(right.abs()).max(1.0)
}

/// Units that do not form a regional value, recognised without `data/aggregation.toml`.
fn currency_or_national_base(unit: &str) -> bool {
    let unit = unit.to_lowercase();
    unit.contains("lcu")
        || unit.contains("national currency")
        || unit == "index"
        || unit.contains("= 100")
}

#[test]
fn every_metric_resolves_to_exactly_one_declaration() {
    let catalog = Catalog::load(&project_catalog()).expect("the catalog loads");
    let declared = aggregation::load(&project_catalog().join(aggregation::FILE), &catalog)
        .expect("data/aggregation.toml is valid");
    let mut mapped = 0;
    for mapping in catalog.mappings.values() {
        for row in &mapping.rows {
            let id = corpus::Metric::id_for_code(&row.source_code);
            let resolved = declared
                .resolve(&id, &row.unit)
                .unwrap_or_else(|| panic!("{id} ({}) resolves", row.unit));
            assert!(
                resolved.declared_by.starts_with("overrides[")
                    || resolved.declared_by.starts_with("rules["),
                "{id}: {}",
                resolved.declared_by
            );
            assert!(!resolved.reason.is_empty(), "{id}");
            mapped += 1;
        }
    }
    assert!(mapped > 300, "{mapped} mapped metrics");
    // The baked rules: one per baked metric, no more, no less.
    let corpus = &real().corpus;
    let rules: Vec<MetricRule> =
        read_json(&corpus.dir().join(DERIVED_RULES), "derived rules").unwrap();
    let ids: Vec<&str> = rules.iter().map(|rule| rule.indicator.as_str()).collect();
    let metrics: Vec<&str> = corpus
        .metrics()
        .iter()
        .map(|metric| metric.id.as_str())
        .collect();
    assert_eq!(ids, metrics, "one rule per metric, in id order");
    // Coherent: no regional value for what does not compare across countries; no sum of growth rates.
    for rule in &rules {
        assert!(
            rule.comparable || rule.aggregation == Aggregation::None,
            "{rule:?}"
        );
        assert!(
            !(rule.aggregation == Aggregation::Sum && rule.scale == Scale::Growth),
            "{rule:?}"
        );
    }
    let counts = &real().summary.report.derived_rules;
    assert_eq!(
        counts.metrics_by_aggregation.values().sum::<u64>(),
        rules.len() as u64
    );
}

#[test]
fn no_aggregate_of_a_non_aggregable_unit() {
    let corpus = &real().corpus;
    let rules = rules(corpus);
    let stats = year_stats(corpus);
    for row in &stats {
        let rule = &rules[&row.indicator];
        assert_ne!(
            rule.aggregation,
            Aggregation::None,
            "{} {}",
            row.indicator,
            row.year
        );
        assert_eq!(
            row.method,
            rule.aggregation.as_str(),
            "{} {}",
            row.indicator,
            row.year
        );
    }
    let with_stats: HashSet<&str> = stats.iter().map(|row| row.indicator.as_str()).collect();
    let refused: Vec<&str> = corpus
        .metrics()
        .iter()
        .filter(|metric| currency_or_national_base(&metric.unit))
        .map(|metric| metric.id.as_str())
        .collect();
    assert!(refused.len() >= 20, "{refused:?}");
    for id in &refused {
        assert!(!with_stats.contains(id), "{id} has no regional value");
        assert_eq!(rules[*id].aggregation, Aggregation::None, "{id}");
        assert!(!rules[*id].comparable, "{id}");
    }
    // The headlines of issue 10: "Official exchange rate 570.05" and "PPP conversion factor 225.50".
    for (id, reason) in [
        ("pa_nus_fcrf", "exchange rate"),
        ("pa_nus_ppp", "PPP conversion factor"),
    ] {
        let rows: Vec<YearStats> = stats
            .iter()
            .filter(|row| row.indicator == id)
            .cloned()
            .collect();
        assert!(representative_year(&rows).is_none(), "{id} has no pulse");
        assert!(
            rules[id].reason.contains(reason),
            "{id}: {}",
            rules[id].reason
        );
    }
    // The report counts every indicator-year refused: those with observed values for enough countries.
    let table = corpus.observations();
    let mut expected = 0u64;
    for (id, rule) in &rules {
        if rule.aggregation != Aggregation::None {
            continue;
        }
        let mut per_year: BTreeMap<i32, usize> = BTreeMap::new();
        for row in table.indicator_rows(id).map(|row_idx| table.row(row_idx)) {
            if !is_projection(row.flags) {
                *per_year.entry(row.year).or_default() += 1;
            }
        }
        expected += per_year
            .values()
            .filter(|&&countries| countries >= MIN_YEAR_COUNTRIES)
            .count() as u64;
    }
    let counts = &real().summary.report.derived_rules;
    assert_eq!(counts.aggregates_refused, expected);
    assert!(counts.aggregates_refused > 0 && counts.indicators_not_aggregable > 0);
    // Correlations leave out values that do not compare across countries.
    let correlations: Vec<PillarCorrelation> =
        read_json(&corpus.dir().join(layout::CORRELATIONS), "correlations").unwrap();
    for correlation in &correlations {
        assert!(
            rules[&correlation.indicator_a].comparable,
            "{correlation:?}"
        );
        assert!(
            rules[&correlation.indicator_b].comparable,
            "{correlation:?}"
        );
    }
}

#[test]
fn regional_values_are_their_declared_aggregation_of_observed_values() {
    let corpus = &real().corpus;
    let rules = rules(corpus);
    let table = corpus.observations();
    let stats = year_stats(corpus);
    let mut checked: BTreeMap<&str, usize> = BTreeMap::new();
    for row in &stats {
        let cells: Vec<_> = table
            .cross_section(&row.indicator, row.year)
            .into_iter()
            .filter(|cell| !is_projection(cell.flags))
            .collect();
        assert_eq!(cells.len(), row.countries, "{} {}", row.indicator, row.year);
        for id in row.leaders.iter().chain(&row.laggards) {
            assert!(observed(corpus, id), "{id} is observed");
        }
        let rule = &rules[&row.indicator];
        // The rule's weight (population, land area, GDP, births = birth rate × population / 1,000, …)
        // of one country that year, from observed values only.
        let observed_value = |indicator: &str, country: &str| {
            table
                .find(indicator, country, row.year)
                .filter(|cell| !is_projection(cell.flags))
                .map(|cell| cell.value)
        };
        let weight = rule
            .weight
            .as_ref()
            .filter(|_| rule.aggregation.is_weighted());
        let weight_of = |country: &str| {
            weight.and_then(|weight| {
                weight.of(
                    observed_value(&weight.indicator, country),
                    weight
                        .times
                        .as_deref()
                        .and_then(|times| observed_value(times, country)),
                )
            })
        };
        let inputs: Vec<_> = cells
            .iter()
            .filter(|cell| weight.is_none() || weight_of(cell.country).is_some())
            .collect();
        let values: Vec<f64> = inputs.iter().map(|cell| cell.value).collect();
        let weights: Vec<f64> = inputs
            .iter()
            .filter_map(|cell| weight_of(cell.country))
            .collect();
        assert_eq!(
            row.weight.as_deref(),
            weight.map(|weight| weight.name.as_str())
        );
        let expected = analytics::regional_value(rule.aggregation, &values, Some(&weights))
            .expect("a regional value");
        assert!(
            close(row.regional_value, expected),
            "{} {}: {} != {expected}",
            row.indicator,
            row.year,
            row.regional_value
        );
        assert_eq!(row.unweighted.len(), cells.len() - inputs.len());
        *checked.entry(row.method.as_str()).or_default() += 1;
    }
    for method in ["population_weighted_mean", "weighted_mean", "sum", "median"] {
        assert!(
            checked.get(method).copied().unwrap_or(0) > 100,
            "{checked:?}"
        );
    }
}

#[test]
fn no_projection_derived_figure_is_presented_as_observed() {
    let corpus = &real().corpus;
    let table = corpus.observations();
    let mut ending_in_projections = 0;
    for stats in series_stats(corpus) {
        let rows: Vec<_> = table
            .series(&stats.indicator, &stats.country)
            .map(|row_idx| table.row(row_idx))
            .collect();
        let observed: Vec<_> = rows
            .iter()
            .filter(|row| !is_projection(row.flags))
            .collect();
        let key = format!("{} {}", stats.indicator, stats.country);
        assert_eq!(
            stats.last_observed_year,
            observed.last().map(|row| row.year),
            "{key}"
        );
        if is_projection(&stats.latest_flags) && !observed.is_empty() {
            ending_in_projections += 1;
            assert!(stats.last_observed_year < Some(stats.latest_year), "{key}");
        }
        // The change is between the last two observations, never from an observation to a projection.
        if let Some(change) = stats.change_from_previous {
            let (previous, last) = (observed[observed.len() - 2], observed[observed.len() - 1]);
            assert_eq!(stats.previous_year, Some(previous.year), "{key}");
            assert!(close(change, last.value - previous.value), "{key}");
        }
        if let Some((_, last)) = stats.trend_years {
            assert_eq!(Some(last), stats.last_observed_year, "{key}");
        }
    }
    let counts = &real().summary.report.derived_rules;
    assert_eq!(counts.series_ending_in_projections, ending_in_projections);
    assert!(ending_in_projections > 1_000, "{ending_in_projections}");
    assert!(counts.year_stats_projections_excluded > 0);
    let discoveries: Discoveries =
        read_json(&corpus.dir().join(layout::DISCOVERIES), "discoveries").unwrap();
    for anomaly in &discoveries.anomalies {
        for id in &anomaly.citation_ids {
            assert!(observed(corpus, id), "{id} is observed");
        }
    }
}

#[test]
fn no_cagr_of_a_growth_rate_or_an_index_crossing_zero() {
    let corpus = &real().corpus;
    let rules = rules(corpus);
    let mut ratio_with_cagr = 0;
    for stats in series_stats(corpus) {
        let rule = &rules[&stats.indicator];
        if stats.cagr_5y.is_some() || stats.cagr_10y.is_some() {
            assert_eq!(
                rule.scale,
                Scale::Ratio,
                "{} {}",
                stats.indicator,
                stats.country
            );
            ratio_with_cagr += 1;
        }
    }
    assert!(ratio_with_cagr > 1_000, "{ratio_with_cagr}");
    // Recognised by unit, without the catalog: growth rates and the WGI's −2.5…2.5 indices.
    for metric in corpus.metrics() {
        let unit = metric.unit.to_lowercase();
        if unit.contains("annual %") || unit.contains("percent change") {
            assert_eq!(rules[&metric.id].scale, Scale::Growth, "{}", metric.id);
        }
        if unit.contains("-2.5 to 2.5") {
            assert_eq!(rules[&metric.id].scale, Scale::Interval, "{}", metric.id);
        }
        // A value below zero means the zero is crossed: not a ratio scale.
        let table = corpus.observations();
        if table
            .indicator_rows(&metric.id)
            .any(|row_idx| table.row(row_idx).value < 0.0)
        {
            assert_ne!(rules[&metric.id].scale, Scale::Ratio, "{}", metric.id);
        }
    }
    // The issue's example: ngdp_rpch ATG cagr_10y = −0.089.
    let atg = series_stats(corpus)
        .into_iter()
        .find(|stats| stats.indicator == "ngdp_rpch" && stats.country == "ATG")
        .expect("ngdp_rpch ATG");
    assert_eq!((atg.cagr_5y, atg.cagr_10y), (None, None));
    assert!(real().summary.report.derived_rules.cagr_refused > 300);
    // Every refusal says why and what to use instead.
    assert!(
        Scale::Growth
            .cagr_refusal()
            .unwrap()
            .contains("use op change")
    );
}

#[test]
fn flat_trend_windows_have_no_r_squared() {
    let corpus = &real().corpus;
    let table = corpus.observations();
    let mut flat = 0;
    for stats in series_stats(corpus) {
        let Some((first, last)) = stats.trend_years else {
            assert!(stats.trend_r_squared.is_none() && stats.trend_slope.is_none());
            continue;
        };
        let window: Vec<Point> = table
            .series(&stats.indicator, &stats.country)
            .map(|row_idx| table.row(row_idx))
            .filter(|row| !is_projection(row.flags) && row.year >= first && row.year <= last)
            .map(|row| Point {
                year: row.year,
                value: row.value,
            })
            .collect();
        if analytics::is_flat(window.iter().map(|point| point.value)) {
            flat += 1;
            assert_eq!(
                (stats.trend_slope, stats.trend_r_squared),
                (Some(0.0), None),
                "{} {}",
                stats.indicator,
                stats.country
            );
        } else {
            let r_squared = stats.trend_r_squared.expect("varying values have an R²");
            assert!((0.0..=1.0).contains(&r_squared));
            let fit = analytics::linear_trend(&window).and_then(|fit| fit.r_squared);
            assert!(
                fit.is_some_and(|fit| close(fit, r_squared)),
                "{r_squared} {fit:?}"
            );
        }
    }
    assert!(flat > 100, "{flat} flat windows");
    assert_eq!(real().summary.report.derived_rules.flat_trends, flat);
}

#[test]
fn a_gap_in_a_series_is_not_an_anomaly() {
    let corpus = &real().corpus;
    let discoveries: Discoveries =
        read_json(&corpus.dir().join(layout::DISCOVERIES), "discoveries").unwrap();
    for anomaly in &discoveries.anomalies {
        let gap = anomaly.year - anomaly.previous_year;
        assert!((1..=MAX_CHANGE_GAP).contains(&gap), "{anomaly:?}");
        assert!(close(
            anomaly.change_per_year,
            anomaly.change / f64::from(gap)
        ));
    }
    // CUB primary repeaters: 1972, then nothing until 1999 — read as a change, it was the top education
    // anomaly (z = −287).
    let table = corpus.observations();
    let years: Vec<i32> = table
        .series("se_prm_rept_fe_zs", "CUB")
        .map(|row_idx| table.row(row_idx).year)
        .collect();
    let at = years
        .iter()
        .position(|&year| year == 1972)
        .expect("CUB 1972");
    assert_eq!(years[at + 1], 1999, "the gap is in the data");
    assert!(
        !discoveries
            .anomalies
            .iter()
            .any(|anomaly| anomaly.country == "CUB"
                && anomaly.previous_year == 1972
                && anomaly.year == 1999),
        "CUB 1972→1999 is a gap, not an anomaly"
    );
    let counts = &real().summary.report.derived_rules;
    assert!(counts.gap_changes_excluded > 1_000 && counts.gap_anomalies_dropped > 0);
}

#[test]
fn the_bake_report_counts_each_rule() {
    let report = &real().summary.report;
    let text = report.summary();
    for line in [
        "derived rules (data/aggregation.toml)",
        "aggregates refused:",
        "projection-derived figures excluded:",
        "statistics refused:",
        "gap anomalies dropped",
    ] {
        assert!(text.contains(line), "{line:?} in the summary");
    }
    let corpus = &real().corpus;
    let written: corpus::BakeReport =
        read_json(&corpus.dir().join(layout::BAKE_REPORT), "bake report").unwrap();
    assert_eq!(written.derived_rules, report.derived_rules);
}

/// Copies the fixture catalog into a temporary directory with `aggregation.toml` set to `text`.
fn fixture_with(text: &str) -> tempfile::TempDir {
    let (catalog, _) = fixture();
    let copy = tempfile::tempdir().unwrap();
    for sub in ["", "sources", "metrics"] {
        std::fs::create_dir_all(copy.path().join(sub)).unwrap();
        for entry in std::fs::read_dir(catalog.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, copy.path().join(sub).join(path.file_name().unwrap()))
                    .unwrap();
            }
        }
    }
    std::fs::write(copy.path().join(aggregation::FILE), text).unwrap();
    copy
}

fn load_error(dir: &Path) -> String {
    let catalog = Catalog::load(dir).expect("the fixture catalog loads");
    aggregation::load(&dir.join(aggregation::FILE), &catalog)
        .expect_err("the file is refused")
        .to_string()
}

const FIXTURE_RULES: &str = r#"
[[rules]]
unit_contains = ["%", "years"]
aggregation = "population_weighted_mean"
reason = "a rate or a per-person value"

[[rules]]
unit_contains = ["about -2.5 to 2.5"]
aggregation = "population_weighted_mean"
scale = "interval"
reason = "an index centred on zero"
"#;

#[test]
fn aggregation_toml_is_validated_naming_file_and_field() {
    let good = fixture_with(FIXTURE_RULES);
    let catalog = Catalog::load(good.path()).unwrap();
    let rules = aggregation::load(&good.path().join(aggregation::FILE), &catalog).unwrap();
    assert_eq!(
        rules
            .resolve("rl_est", "index (about -2.5 to 2.5)")
            .unwrap()
            .scale,
        Scale::Interval
    );
    for (text, expected) in [
        (
            format!("{FIXTURE_RULES}weights = \"gdp\"\n"),
            "unknown field `weights`",
        ),
        (
            FIXTURE_RULES.replace(
                "\"population_weighted_mean\"\nreason = \"a rate",
                "\"mean\"\nreason = \"a rate",
            ),
            "unknown variant `mean`",
        ),
        (
            FIXTURE_RULES.replace("\"%\", ", ""),
            "rules: metric `sl_uem_totl_zs` (unit \"% of total labor force\"",
        ),
        (
            format!(
                "{FIXTURE_RULES}[[overrides]]\nmetrics = [\"sp_dyn_le00\"]\naggregation = \"median\"\nreason = \"x\"\n"
            ),
            "overrides[0].metrics: `sp_dyn_le00` is not a mapped metric id; close: [\"sp_dyn_le00_in\"]",
        ),
        (
            format!(
                "{FIXTURE_RULES}[[overrides]]\nmetrics = [\"rl_est\"]\naggregation = \"median\"\ncomparable = false\nreason = \"x\"\n"
            ),
            "overrides[0]: values that do not compare across countries",
        ),
        (
            FIXTURE_RULES.replace("reason = \"an index centred on zero\"", "reason = \"\""),
            "rules[1]: rules[1] needs a `reason`",
        ),
    ] {
        let dir = fixture_with(&text);
        let error = load_error(dir.path());
        assert!(error.contains("aggregation.toml"), "{error}");
        assert!(error.contains(expected), "{expected:?} in {error}");
    }
    // Without the file nothing is declared: no metric is aggregated, no relative change or CAGR.
    let (catalog_dir, _) = fixture();
    let catalog = Catalog::load(&catalog_dir).unwrap();
    let undeclared = aggregation::load(&catalog_dir.join(aggregation::FILE), &catalog).unwrap();
    let resolved = undeclared.resolve("sp_dyn_le00_in", "years").unwrap();
    assert_eq!(
        (resolved.aggregation, resolved.scale),
        (Aggregation::None, Scale::Interval)
    );
}
