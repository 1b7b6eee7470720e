//! The five OWID-staged sources of the 5th pass (V-Dem, UCDP 2026, Ember, UNODC, PIP), read with the
//! `owid_grapher_csv` connector and governed as defaults; the older vintages they supersede kept citable.

use corpus::{BakedCorpus, DropReason};

use crate::support::real;

/// One known value: the observation's value (to a relative 1e-12), citation id and deep link.
fn check(
    corpus: &BakedCorpus,
    (indicator, iso3, year): (&str, &str, i32),
    expected: f64,
    citation_id: &str,
    url: &str,
) {
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
}

#[test]
fn each_new_source_gives_a_known_value_from_its_staged_file() {
    let corpus = &real().corpus;
    let vdem = "https://v-dem.net/data/the-v-dem-dataset/";
    // owid_vdem_2026/electoral-democracy-index.latam.csv: Brazil,BRA,2024,0.799,South America
    check(
        corpus,
        ("v2x_polyarchy", "BRA", 2024),
        0.799,
        "vdem-v2x-polyarchy-bra-2024",
        vdem,
    );
    // liberal-democracy-index: 0.712; human-rights-index-vdem: 0.853; political-regime: 2.
    check(
        corpus,
        ("v2x_libdem", "BRA", 2024),
        0.712,
        "vdem-v2x-libdem-bra-2024",
        vdem,
    );
    check(
        corpus,
        ("v2x_civlib", "BRA", 2024),
        0.853,
        "vdem-v2x-civlib-bra-2024",
        vdem,
    );
    check(
        corpus,
        ("v2x_regime", "BRA", 2024),
        2.0,
        "vdem-v2x-regime-bra-2024",
        vdem,
    );
    // owid_ucdp_conflict_deaths_2026/deaths-in-armed-conflicts.latam.csv: Colombia,COL,2024,825,699,591
    let ucdp =
        "https://ourworldindata.org/grapher/deaths-in-armed-conflicts?tab=chart&country=~COL";
    check(
        corpus,
        ("ucdp_conflict_deaths", "COL", 2024),
        699.0,
        "ucdp2026-ucdp-conflict-deaths-col-2024",
        ucdp,
    );
    check(
        corpus,
        ("ucdp_conflict_deaths_high", "COL", 2024),
        825.0,
        "ucdp2026-ucdp-conflict-deaths-high-col-2024",
        ucdp,
    );
    check(
        corpus,
        ("ucdp_conflict_deaths_low", "COL", 2024),
        591.0,
        "ucdp2026-ucdp-conflict-deaths-low-col-2024",
        ucdp,
    );
    // owid_ember_electricity_2026/share-electricity-renewables.latam.csv: Brazil,BRA,2024,87.33305
    let ember = "https://ember-energy.org/data/yearly-electricity-data/";
    check(
        corpus,
        ("renewables_share_elec", "BRA", 2024),
        87.33305,
        "ember-renewables-share-elec-bra-2024",
        ember,
    );
    // carbon-intensity-electricity: Brazil,BRA,2025,109.95; electricity-generation: 750.53 TWh.
    check(
        corpus,
        ("carbon_intensity_elec", "BRA", 2025),
        109.95,
        "ember-carbon-intensity-elec-bra-2025",
        ember,
    );
    check(
        corpus,
        ("electricity_generation", "BRA", 2025),
        750.53,
        "ember-electricity-generation-bra-2025",
        ember,
    );
    // owid_unodc_homicide_2026/homicide-rate-unodc.latam.csv: Brazil,BRA,2023,20.575377,South America
    check(
        corpus,
        ("unodc_homicide_rate", "BRA", 2023),
        20.575377,
        "unodc-unodc-homicide-rate-bra-2023",
        "https://ourworldindata.org/grapher/homicide-rate-unodc?tab=chart&country=~BRA",
    );
    // owid_pip_poverty_inequality_2025: Brazil,BRA,2023,0.5163943767547607 (Gini) and 3.8155887 ($3/day).
    let pip = "https://pip.worldbank.org/country-profiles/BRA";
    check(
        corpus,
        ("pip_gini", "BRA", 2023),
        0.5163943767547607,
        "pip-pip-gini-bra-2023",
        pip,
    );
    check(
        corpus,
        ("pip_headcount_ratio_300_ppp2021", "BRA", 2023),
        3.8155887,
        "pip-pip-headcount-ratio-300-ppp2021-bra-2023",
        pip,
    );
}

#[test]
fn the_superseded_vintages_stay_citable_and_the_new_ones_answer_by_default() {
    let corpus = &real().corpus;
    // owid_datasets/ucdp_conflict_deaths: Colombia,2018,149 (GED 19.1), beside 400 in the 2026 release.
    check(
        corpus,
        ("ucdp_conflict_deaths_ged19", "COL", 2018),
        149.0,
        "ucdp-ucdp-conflict-deaths-ged19-col-2018",
        "https://ucdp.uu.se/downloads/",
    );
    check(
        corpus,
        ("ucdp_conflict_deaths", "COL", 2018),
        400.0,
        "ucdp2026-ucdp-conflict-deaths-col-2018",
        "https://ourworldindata.org/grapher/deaths-in-armed-conflicts?tab=chart&country=~COL",
    );
    let headline = |id: &str| {
        corpus
            .metric(id)
            .unwrap_or_else(|| panic!("metric {id}"))
            .headline
    };
    assert!(headline("ucdp_conflict_deaths") && !headline("ucdp_conflict_deaths_ged19"));
    assert!(headline("pip_gini") && !headline("sedlac_gini"));
    // Fariss et al. and V-Dem's civil liberties are different measures: both kept, both headline.
    assert!(headline("fariss_hrp") && headline("v2x_civlib"));
    let regime = corpus.metric("v2x_regime").unwrap();
    assert!(regime.unit.contains("ordinal"), "{}", regime.unit);
    let civlib = corpus.metric("v2x_civlib").unwrap();
    assert_eq!(
        (civlib.valid_range.min, civlib.valid_range.max),
        (Some(0.0), Some(1.0))
    );
    assert_eq!(civlib.license, "CC-BY-SA-4.0");
    for id in [
        "v2x_polyarchy",
        "ucdp_conflict_deaths",
        "renewables_share_elec",
        "unodc_homicide_rate",
        "pip_gini",
    ] {
        let metric = corpus.metric(id).unwrap();
        assert!(
            metric.names.es.is_some() && metric.names.pt.is_some(),
            "{id} is named in es and pt"
        );
    }
}

#[test]
fn entities_without_a_code_are_dropped_and_reported_by_name() {
    let report = &real().summary.report;
    let dropped_entities = |source: &str| -> std::collections::BTreeSet<String> {
        report
            .dropped
            .iter()
            .filter(|row| row.source == source && row.reason == DropReason::UnknownCountry)
            .map(|row| row.country.clone())
            .collect()
    };
    let pip = dropped_entities("owid_pip");
    assert!(
        pip.contains("Argentina (urban)") && pip.contains("Latin America and the Caribbean (PIP)"),
        "{pip:?}"
    );
    assert!(dropped_entities("owid_ucdp_2026").contains("Americas"));
    assert!(dropped_entities("owid_unodc").contains("Americas (UN)"));
    let vdem = dropped_entities("owid_vdem");
    assert!(
        vdem.contains("South America (population-weighted)"),
        "{vdem:?}"
    );
    // OWID's World is kept as the WLD comparison aggregate, never as a country.
    let corpus = &real().corpus;
    assert!(
        corpus
            .observations()
            .find("v2x_polyarchy", "WLD", 2024)
            .is_none()
    );
    assert!(
        corpus
            .aggregates()
            .find("v2x_polyarchy", "WLD", 2024)
            .is_some()
    );
}

#[test]
fn the_new_concordance_pairs_compare_wdi_with_pip_and_unodc() {
    let report = &real().summary.report;
    for pair in ["gini_wdi_pip", "poverty_wdi_pip", "homicide_wdi_unodc"] {
        let count = report
            .concordance
            .iter()
            .find(|count| count.pair == pair)
            .unwrap_or_else(|| panic!("pair {pair}"));
        assert!(count.shared > 100, "{count:?}");
        // Same publisher underneath: most country-years agree within tolerance.
        assert!(count.beyond_tolerance * 4 < count.shared, "{count:?}");
    }
}
