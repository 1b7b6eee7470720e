use std::collections::{BTreeSet, HashMap};

use corpus::{BakedCorpus, GoodDirection};

use crate::support::{real, real_sources};

/// Reads a raw CSV of the real sources (BOM stripped) as header → cell maps.
fn raw_csv(path: &str) -> Vec<HashMap<String, String>> {
    let bytes =
        std::fs::read(real_sources().join(path)).unwrap_or_else(|error| panic!("{path}: {error}"));
    let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    let mut reader = csv::Reader::from_reader(text);
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            headers
                .iter()
                .cloned()
                .zip(record.iter().map(String::from))
                .collect()
        })
        .collect()
}

/// The observation, with its value checked to a relative `1e-12` and its citation id and deep link.
fn check(
    corpus: &BakedCorpus,
    (indicator, iso3, year): (&str, &str, i32),
    expected: f64,
    citation_id: &str,
    url: &str,
) -> String {
    let observation = corpus
        .observations()
        .find(indicator, iso3, year)
        .unwrap_or_else(|| panic!("{indicator} {iso3} {year} is in the corpus"));
    assert!(
        (observation.value - expected).abs() <= 1e-12 * expected.abs().max(1.0),
        "{indicator} {iso3} {year}: {} != {expected}",
        observation.value
    );
    assert_eq!(observation.citation_id, citation_id);
    let citation = corpus
        .resolve_citation(citation_id)
        .unwrap_or_else(|error| panic!("{error:?}"));
    assert_eq!((citation.value, citation.year), (observation.value, year));
    assert_eq!(citation.url, url);
    observation.flags.to_string()
}

#[test]
fn gcb_territorial_co2_is_converted_from_carbon_with_the_declared_factor() {
    let corpus = &real().corpus;
    // gcb_national_fossil_co2_lac_2025v0.3.csv: territorial,BRA,Brazil,2020,122.270573306436 (MtC).
    check(
        corpus,
        ("co2_territorial", "BRA", 2020),
        122.270573306436 * 3.664,
        "gcb-co2-territorial-bra-2020",
        "https://doi.org/10.5281/zenodo.17417124",
    );
    // README: "BRA 2024 territorial 131.83 MtC = 483 Mt CO2".
    let bra_2024 = corpus
        .observations()
        .find("co2_territorial", "BRA", 2024)
        .unwrap();
    assert!((bra_2024.value - 483.0).abs() < 0.5, "{}", bra_2024.value);
    let metric = corpus.metric("co2_territorial").unwrap();
    assert_eq!(metric.unit, "million tonnes of CO2");
    assert_eq!(metric.license, "CC-BY-4.0");
    let source = corpus.source("gcb_fossil_co2").unwrap();
    assert_eq!(source.citation_prefix, "gcb");
    assert!(
        source.attribution.contains("dataset-level"),
        "{}",
        source.attribution
    );
}

#[test]
fn owid_co2_per_capita_and_ghg_with_country_charts() {
    let corpus = &real().corpus;
    // owid_co2_per_capita_gcb2024_lac.csv: Chile,CHL,2022,4.221193.
    check(
        corpus,
        ("co2_per_capita", "CHL", 2022),
        4.221193,
        "owidco2-co2-per-capita-chl-2022",
        "https://ourworldindata.org/grapher/co-emissions-per-capita?tab=chart&country=~CHL",
    );
    // owid_total_ghg_incl_lulucf_jones2024_lac.csv: Brazil,BRA,2023,2381904100 (tonnes) = 2381.9041 Mt.
    check(
        corpus,
        ("ghg_total_incl_luc", "BRA", 2023),
        2381.9041,
        "owidghg-ghg-total-incl-luc-bra-2023",
        "https://ourworldindata.org/grapher/total-ghg-emissions?tab=chart&country=~BRA",
    );
    let methane = corpus.observations().find("ghg_ch4", "BRA", 2023).unwrap();
    assert!(methane.citation_id == "owidgas-ghg-ch4-bra-2023" && methane.value > 100.0);
    // World is kept as the comparison aggregate, never as a country.
    assert!(
        corpus
            .aggregates()
            .find("co2_per_capita", "WLD", 2022)
            .is_some()
    );
    assert!(
        corpus
            .observations()
            .find("co2_per_capita", "WLD", 2022)
            .is_none()
    );
}

#[test]
fn every_lac_country_of_the_raw_per_capita_file_has_a_co2_per_capita_series() {
    let corpus = &real().corpus;
    let raw_countries: BTreeSet<String> =
        raw_csv("owid_co2_ghg/owid_co2_per_capita_gcb2024_lac.csv")
            .into_iter()
            .map(|row| row["Code"].clone())
            .filter(|code| corpus.countries().resolve(code).is_some())
            .collect();
    assert!(raw_countries.len() >= 40, "{raw_countries:?}");
    let missing: Vec<&String> = raw_countries
        .iter()
        .filter(|iso3| {
            corpus
                .observations()
                .series("co2_per_capita", iso3)
                .is_empty()
        })
        .collect();
    assert!(
        missing.is_empty(),
        "no CO2 per capita series for {missing:?}"
    );
    assert_eq!(
        corpus.metric("co2_per_capita").unwrap().coverage.countries as usize,
        raw_countries.len()
    );
}

#[test]
fn new_emission_indicators_are_governed_with_names_units_and_direction() {
    let corpus = &real().corpus;
    let new_sources = [
        "gcb_fossil_co2",
        "owid_co2",
        "owid_ghg_gas",
        "owid_ghg_total",
    ];
    let metrics: Vec<_> = corpus
        .metrics()
        .iter()
        .filter(|metric| new_sources.contains(&metric.source_id.as_str()))
        .collect();
    assert_eq!(metrics.len(), 8, "3 GCB, 1 per capita, 3 gases, 1 total");
    for metric in metrics {
        assert_eq!(metric.pillar, "medio_ambiente", "{}", metric.id);
        assert!(
            metric.names.es.is_some() && metric.names.pt.is_some(),
            "{}",
            metric.id
        );
        assert_ne!(
            metric.names.es.as_deref(),
            Some(metric.names.en.as_str()),
            "{}",
            metric.id
        );
        assert!(
            metric.unit.contains("tonnes"),
            "{}: {}",
            metric.id,
            metric.unit
        );
        let expected = if metric.id == "co2_transfers" {
            GoodDirection::Neutral
        } else {
            GoodDirection::Down
        };
        assert_eq!(metric.good_direction, expected, "{}", metric.id);
        assert!(metric.coverage.observations > 500, "{}", metric.id);
    }
    // Negative consumption-based values (a method artefact for Panama) are dropped as impossible and reported.
    let report = &real().summary.report;
    assert!(
        report
            .dropped
            .iter()
            .any(|row| row.indicator == "co2_consumption"
                && row.country == "PAN"
                && row.reason == corpus::DropReason::ImpossibleValue)
    );
}

#[test]
fn weo_2025_answers_by_default_with_its_projections_flagged() {
    let corpus = &real().corpus;
    let url = "https://www.imf.org/external/datamapper/NGDP_RPCH@WEO/BRA";
    // WEOApr2025all_lac.csv, BRA NGDP_RPCH: 2023 3.242, 2024 3.396, 2025 2.01; Estimates Start After 2024.
    assert_eq!(
        check(
            corpus,
            ("ngdp_rpch", "BRA", 2023),
            3.242,
            "imf-ngdp-rpch-bra-2023",
            url
        ),
        ""
    );
    assert_eq!(
        check(
            corpus,
            ("ngdp_rpch", "BRA", 2024),
            3.396,
            "imf-ngdp-rpch-bra-2024",
            url
        ),
        ""
    );
    assert_eq!(
        check(
            corpus,
            ("ngdp_rpch", "BRA", 2025),
            2.01,
            "imf-ngdp-rpch-bra-2025",
            url
        ),
        "projection"
    );
    let brazil = corpus.observations().series("ngdp_rpch", "BRA");
    assert!(
        brazil
            .map(|row_idx| corpus.observations().row(row_idx))
            .filter(|row| row.year >= 2025)
            .all(|row| row.flags == "projection" && row.vintage == "2025-04")
    );
    let source = corpus.source("imf_weo").unwrap();
    assert_eq!(
        (source.citation_prefix.as_str(), source.vintage.as_str()),
        ("imf", "2025-04")
    );
    let metric = corpus.metric("ngdp_rpch").unwrap();
    assert_eq!(metric.source_id, "imf_weo");
    assert!(
        metric
            .source_title
            .starts_with("Gross domestic product, constant prices")
    );
    assert!(
        metric.description.contains("year-on-year changes"),
        "{}",
        metric.description
    );
}

#[test]
fn weo_2025_projection_flags_follow_each_rows_estimates_start_after() {
    let corpus = &real().corpus;
    let mut after: HashMap<(String, String), Option<i32>> = HashMap::new();
    for row in raw_csv("imf_weo_2025apr/WEOApr2025all_lac.csv") {
        let year = row["Estimates Start After"]
            .parse::<i32>()
            .ok()
            .filter(|year| *year > 0);
        after.insert(
            (
                corpus::Metric::id_for_code(&row["WEO Subject Code"]),
                row["ISO"].clone(),
            ),
            year,
        );
    }
    let (mut projections, mut checked) = (0, 0);
    for observation in corpus
        .observations()
        .rows()
        .filter(|row| row.source == "imf_weo")
    {
        let start = after[&(
            observation.indicator.to_string(),
            observation.country.to_string(),
        )];
        // After "Estimates Start After": an estimate before the release year (2025), a projection from it.
        let expected = match start {
            Some(start) if observation.year > start && observation.year < 2025 => "estimate",
            Some(start) if observation.year > start => "projection",
            _ => "",
        };
        assert_eq!(observation.flags, expected, "{}", observation.citation_id);
        projections += usize::from(expected == "projection");
        checked += 1;
    }
    assert!(
        checked > 50_000 && projections > 5_000,
        "{checked} {projections}"
    );
}

#[test]
fn weo_2019_stays_citable_as_an_older_vintage_and_haiti_is_not_all_projection() {
    let corpus = &real().corpus;
    let url = "https://www.imf.org/en/Publications/WEO/weo-database/2019/April";
    // imf_weo_2019apr: ddf--notes.csv has estimates_start_after 0 for hti lp (and 5 per-capita series);
    // ddf--datapoints--lp--by--country--year.csv: 2015,hti,10.710999999999999.
    let flags = check(
        corpus,
        ("lp_weo2019", "HTI", 2015),
        10.711,
        "imf2019-lp-weo2019-hti-2015",
        url,
    );
    assert_eq!(flags, "", "0 means unknown, not a projection");
    // Unknown is not "every year a projection": the years before the vintage's release (2019) are
    // unflagged; those from 2019 on, which the IMF could not observe in April 2019, are projections made
    // at the vintage (issue 25).
    for indicator in ["ngdprpc", "ngdprppppc", "ngdppc", "ngdpdpc", "ppppc", "lp"] {
        let id = format!("{indicator}_weo2019");
        let rows = corpus.observations().series(&id, "HTI");
        assert_eq!(rows.len(), 45, "{id}");
        for row in rows.map(|row_idx| corpus.observations().row(row_idx)) {
            let expected = if row.year >= 2019 {
                "projection|vintage_projection"
            } else {
                ""
            };
            assert_eq!(row.flags, expected, "{id} {}", row.year);
        }
    }
    // Haiti's other series do say where estimates start (2018): later years stay flagged.
    assert_eq!(
        corpus
            .observations()
            .find("ngdp_rpch_weo2019", "HTI", 2019)
            .unwrap()
            .flags,
        "projection"
    );
    // The revision between vintages can be cited on both sides: MEX 2017 growth 2.07 (2019) vs 1.872 (2025).
    check(
        corpus,
        ("ngdp_rpch_weo2019", "MEX", 2017),
        2.07,
        "imf2019-ngdp-rpch-weo2019-mex-2017",
        url,
    );
    check(
        corpus,
        ("ngdp_rpch", "MEX", 2017),
        1.872,
        "imf-ngdp-rpch-mex-2017",
        "https://www.imf.org/external/datamapper/NGDP_RPCH@WEO/MEX",
    );
    let older = corpus.metric("ngdp_rpch_weo2019").unwrap();
    assert!(!older.headline && older.vintage == "2019-04");
    assert!(older.names.es.as_deref().unwrap().contains("2019"));
    let source = corpus.source("imf_weo_2019").unwrap();
    assert_eq!(source.citation_prefix, "imf2019");
}

#[test]
fn every_imf_indicator_is_named_in_three_languages() {
    let corpus = &real().corpus;
    let unnamed: Vec<&str> = corpus
        .metrics()
        .iter()
        .filter(|metric| metric.source_id.starts_with("imf_weo"))
        .filter(|metric| metric.names.es.is_none() || metric.names.pt.is_none())
        .map(|metric| metric.id.as_str())
        .collect();
    assert!(unnamed.is_empty(), "{unnamed:?}");
}

#[test]
fn co2_concordance_pairs_are_declared_and_empty_without_the_restricted_wdi_series() {
    let report = &real().summary.report;
    for pair in ["co2_total_wdi_gcb", "co2_per_capita_wdi_owid"] {
        let count = report
            .concordance
            .iter()
            .find(|count| count.pair == pair)
            .unwrap_or_else(|| panic!("{pair} declared"));
        // The WDI CO2 series are CC BY-NC: out of the default corpus, so nothing to pair.
        assert_eq!(count.shared, 0, "{pair}");
    }
    let growth = report
        .concordance
        .iter()
        .find(|count| count.pair == "gdp_growth_wdi_weo")
        .unwrap();
    assert!(growth.shared > 1000, "{growth:?}");
    // GCB territorial CO2 against OWID per capita × WDI population: all three open, so it pairs.
    let three_cells = report
        .concordance
        .iter()
        .find(|count| count.pair == "co2_total_gcb_owid_times_pop")
        .unwrap();
    assert!(three_cells.shared > 1000, "{three_cells:?}");
}
