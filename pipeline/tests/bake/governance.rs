use corpus::{BakedCorpus, DropReason};

use crate::support::{bake_into, fixture};

fn fixture_bake() -> (tempfile::TempDir, pipeline::bake::BakeSummary, BakedCorpus) {
    let (catalog, sources) = fixture();
    let out_dir = tempfile::tempdir().unwrap();
    let summary = bake_into(&catalog, &sources, out_dir.path());
    let corpus = BakedCorpus::open_current(out_dir.path()).unwrap();
    (out_dir, summary, corpus)
}

#[test]
fn each_bad_row_is_reported_with_its_reason_and_kept_out_of_the_table() {
    let (_out_dir, summary, corpus) = fixture_bake();
    let report = &summary.report;
    let reason_of = |country: &str, year: &str, value: &str| {
        report
            .dropped
            .iter()
            .find(|row| row.country == country && row.year == year && row.value == value)
            .map(|row| row.reason)
    };
    assert_eq!(
        reason_of("MEX", "2024", "n/a"),
        Some(DropReason::NonNumericValue)
    );
    assert_eq!(
        reason_of("URY", "2024", "107.5"),
        Some(DropReason::ImpossibleValue)
    );
    assert_eq!(reason_of("BRA", "2024", "7.1"), Some(DropReason::Duplicate));
    assert_eq!(
        reason_of("XKX", "2024", "79.024"),
        Some(DropReason::UnknownCountry)
    );
    assert_eq!(
        reason_of("URY", "20x3", "8.1"),
        Some(DropReason::InvalidYear)
    );
    assert_eq!(
        reason_of("URY", "2023", ".."),
        Some(DropReason::MissingMarker)
    );
    assert_eq!(report.dropped.len(), 6);
    let non_numeric = report
        .dropped
        .iter()
        .find(|row| row.reason == DropReason::NonNumericValue)
        .unwrap();
    assert_eq!(non_numeric.file, "wdi/indicators/sl.uem.totl.zs/data.csv");
    assert_eq!(non_numeric.line, 4);
    assert_eq!(non_numeric.indicator, "sl_uem_totl_zs");

    let table = corpus.observations();
    assert!(
        table.find("sl_uem_totl_zs", "MEX", 2024).is_none(),
        "a non-numeric value is an absent row, never a zero"
    );
    assert_eq!(
        table.find("sl_uem_totl_zs", "BRA", 2024).unwrap().value,
        6.9,
        "the first of two duplicates is kept"
    );
    assert!(table.find("sl_uem_totl_zs", "URY", 2024).is_none());
    assert_eq!(
        table.find("sl_uem_totl_zs", "URY", 2023).unwrap().value,
        8.3
    );
    assert_eq!(
        table.len(),
        8,
        "4 life expectancy, 2 unemployment, 2 rule of law"
    );
    assert_eq!(corpus.aggregates().len(), 1);
    assert!(summary.report.summary().contains("non_numeric_value: 1"));
}

#[test]
fn licence_gate_excludes_non_redistributable_series() {
    let (_out_dir, summary, corpus) = fixture_bake();
    assert!(corpus.metric("va_est").is_none());
    let excluded = &summary.report.excluded_series;
    assert_eq!(excluded.len(), 1);
    assert_eq!(
        (
            excluded[0].code.as_str(),
            excluded[0].license.as_str(),
            excluded[0].rows
        ),
        ("VA.EST", "CC-BY-NC-4.0", 1)
    );
    let rule_of_law = corpus.observations().find("rl_est", "BRA", 2023).unwrap();
    assert_eq!(
        (
            rule_of_law.value,
            rule_of_law.standard_error,
            rule_of_law.source_count
        ),
        (-0.31, Some(0.13), Some(12))
    );
}
