//! Estimates, projections and uncertainty as their own flags (issue 25): IMF WEO values after "Estimates
//! Start After" are estimates up to the year before the vintage's release and projections from it on;
//! an older vintage's unmarked values from its release year on are projections made at the vintage;
//! WGI standard errors travel into the indicator files.

use corpus::{ESTIMATE_FLAG, PROJECTION_FLAG, VINTAGE_PROJECTION_FLAG, has_flag};
use pipeline::export::indicators::{INDICATOR_DIR, STANDARD_ERROR_COLUMN, TIDY_HEADER};

use crate::support::real;

#[test]
fn venezuela_from_2019_is_an_estimate_not_a_projection() {
    let corpus = &real().corpus;
    // WEOApr2025all_lac.csv, VEN NGDP_RPCH: Estimates Start After 2018; 2019 -27.658, 2024 5.3, 2025 -4.
    let flags = |year| {
        corpus
            .observations()
            .find("ngdp_rpch", "VEN", year)
            .unwrap_or_else(|| panic!("VEN {year}"))
    };
    assert_eq!(flags(2018).flags, "");
    assert_eq!(
        (flags(2019).value, flags(2019).flags),
        (-27.658, "estimate")
    );
    for year in 2019..=2024 {
        let row = flags(year);
        assert_eq!(row.flags, ESTIMATE_FLAG, "{year}");
        assert!(
            !corpus::is_projection(row.flags),
            "{year} is not a projection"
        );
    }
    assert_eq!(
        (flags(2025).value, flags(2025).flags),
        (-4.0, PROJECTION_FLAG)
    );
}

#[test]
fn haiti_in_the_april_2019_weo_is_projected_at_the_vintage_from_2019() {
    let corpus = &real().corpus;
    let table = corpus.observations();
    let vintage: Vec<(String, i32)> = table
        .rows()
        .filter(|row| has_flag(row.flags, VINTAGE_PROJECTION_FLAG))
        .map(|row| {
            assert!(corpus::is_projection(row.flags), "{}", row.citation_id);
            assert_eq!(row.source, "imf_weo_2019", "{}", row.citation_id);
            (row.country.to_string(), row.year)
        })
        .collect();
    // ngdprpc, ngdprppppc, ngdppc, ngdpdpc, ppppc and lp of Haiti have estimates_start_after 0 in
    // ddf--notes.csv: their 2019-2024 values (6 × 6) were projections when the IMF published them.
    assert_eq!(vintage.len(), 36, "{vintage:?}");
    assert!(
        vintage
            .iter()
            .all(|(country, year)| country == "HTI" && (2019..=2024).contains(year))
    );
    // Haiti's population 2018 (before the release) stays as published; 2019 is projected at the vintage.
    assert_eq!(table.find("lp_weo2019", "HTI", 2018).unwrap().flags, "");
    assert_eq!(
        table.find("lp_weo2019", "HTI", 2019).unwrap().flags,
        "projection|vintage_projection"
    );
    // Barbados' fiscal series say their latest actual year is 2019 (fiscal 2018/19): not projected.
    assert_eq!(table.find("ggr_weo2019", "BRB", 2019).unwrap().flags, "");
    assert_eq!(
        table.find("ggr_weo2019", "BRB", 2020).unwrap().flags,
        PROJECTION_FLAG
    );
}

#[test]
fn the_bake_report_counts_estimates_projections_and_vintage_projections() {
    let bake = real();
    let counts = &bake.summary.report.derived_rules;
    let mut recount = [0u64; 3];
    for row in bake
        .corpus
        .observations()
        .rows()
        .filter(|row| row.source == "imf_weo")
    {
        recount[0] += u64::from(corpus::is_estimate(row.flags));
        recount[1] += u64::from(corpus::is_projection(row.flags));
        recount[2] += u64::from(has_flag(row.flags, VINTAGE_PROJECTION_FLAG));
    }
    // WEO April 2025: 1,621 estimates of past years, 7,598 projections, none made at an older vintage.
    assert_eq!(recount, [1_621, 7_598, 0]);
    assert_eq!(counts.estimates.get("imf_weo"), Some(&1_621));
    assert_eq!(counts.projections.get("imf_weo"), Some(&7_598));
    assert_eq!(counts.vintage_projections.get("imf_weo"), None);
    assert_eq!(counts.vintage_projections.get("imf_weo_2019"), Some(&36));
    assert!(
        bake.summary
            .report
            .summary()
            .contains("estimates and projections: estimates (kept as observed) imf_weo 1621"),
        "{}",
        bake.summary.report.summary()
    );
}

#[test]
fn sdmx_writes_estimates_as_e_and_projections_as_f() {
    let dir = real().corpus.dir().join(INDICATOR_DIR);
    let text = std::fs::read_to_string(dir.join("ngdp_rpch.sdmx.csv")).unwrap();
    let status = |year: &str| {
        let line = text
            .lines()
            .find(|line| line.contains(",VEN,") && line.contains(&format!(",{year},")))
            .unwrap_or_else(|| panic!("VEN {year}"));
        line.split(',').nth(8).unwrap().to_string()
    };
    assert_eq!(status("2018"), "A");
    assert_eq!(status("2019"), "E");
    assert_eq!(status("2025"), "F");
    let structure =
        std::fs::read_to_string(real().corpus.dir().join("exports/sdmx/structure.sdmx.xml"))
            .unwrap();
    assert!(structure.contains(r#"<str:Code id="E">"#));
}

#[test]
fn the_wgi_csv_carries_each_values_standard_error_and_others_do_not() {
    let dir = real().corpus.dir().join(INDICATOR_DIR);
    let mut reader = csv::Reader::from_path(dir.join("cc_est.csv")).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let mut expected: Vec<&str> = TIDY_HEADER.to_vec();
    expected.push(STANDARD_ERROR_COLUMN);
    assert_eq!(header, expected);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let cell = |year: &str| {
        let row = rows
            .iter()
            .find(|row| &row[1] == "MEX" && &row[3] == year)
            .unwrap_or_else(|| panic!("MEX {year}"));
        (row[4].to_string(), row[9].to_string())
    };
    // WGI control of corruption, Mexico: 2013 -0.59 (SE 0.14), 2023 -1.02 (SE 0.16).
    assert_eq!(cell("2013"), ("-0.59".into(), "0.14".into()));
    assert_eq!(cell("2023"), ("-1.02".into(), "0.16".into()));
    let gini = csv::Reader::from_path(dir.join("si_pov_gini.csv"))
        .unwrap()
        .headers()
        .unwrap()
        .clone();
    assert_eq!(gini.iter().collect::<Vec<_>>(), TIDY_HEADER);
}
