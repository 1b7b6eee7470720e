use std::path::Path;

use corpus::BakedCorpus;

use crate::support::{bake_into, project_catalog, real, real_sources};

/// One value read by hand from each source's raw file: (indicator, country, year, value, citation id).
const KNOWN_VALUES: &[(&str, &str, i32, f64, &str)] = &[
    // undp_hdr2025/HDR25_Composite_indices_complete_time_series.latam.csv, row BRA, column hdi_2023
    // (HDR 2025 answers as `hdi`), and hdi_2021 (0.768: re-estimated since the older edition).
    ("hdi", "BRA", 2023, 0.786, "undp-hdi-bra-2023"),
    ("hdi", "BRA", 2021, 0.768, "undp-hdi-bra-2021"),
    // Row MEX, columns gii_2023 and ihdi_2023.
    ("gii", "MEX", 2023, 0.358, "undp-gii-mex-2023"),
    ("ihdi", "MEX", 2023, 0.646, "undp-ihdi-mex-2023"),
    // undp_hdi/HDR21-22_complete_time_series.latam.csv, row BRA, column 2021 (the older edition).
    (
        "hdi_hdr2022",
        "BRA",
        2021,
        0.754,
        "undp2022-hdi-hdr2022-bra-2021",
    ),
    // imf_weo_2019apr/datapoints/ddf--datapoints--ngdp_rpch--by--country--year.csv, mex 2017 (the older
    // vintage; April 2025 answers as `ngdp_rpch`, see new_sources).
    (
        "ngdp_rpch_weo2019",
        "MEX",
        2017,
        2.07,
        "imf2019-ngdp-rpch-weo2019-mex-2017",
    ),
    // nd_gain/nd_gain_lac_1995-2020_release2022.csv, MEX 2020, column gain.
    (
        "ndgain_index",
        "MEX",
        2020,
        47.4597,
        "ndgain-ndgain-index-mex-2020",
    ),
    // wb_women_business_law/wbl_index_lac_1971-2021.csv, PER report year 2021 (README: PER 95.0).
    ("wbl_index", "PER", 2021, 95.0, "wbl-wbl-index-per-2021"),
    // cepal_femicide/cepal_femicide_counts_lac_partial_2005-2017.csv, URY 2017.
    (
        "cepalstat_2780",
        "URY",
        2017,
        23.0,
        "cepal-cepalstat-2780-ury-2017",
    ),
    // owid_datasets/ucdp_conflict_deaths, Colombia 2018 (GED 19.1, kept beside UCDP 2026: owid_sources).
    (
        "ucdp_conflict_deaths_ged19",
        "COL",
        2018,
        149.0,
        "ucdp-ucdp-conflict-deaths-ged19-col-2018",
    ),
    // owid_datasets/sedlac_gini, Brazil 2016 (.51419517).
    (
        "sedlac_gini",
        "BRA",
        2016,
        0.51419517,
        "sedlac-sedlac-gini-bra-2016",
    ),
    // owid_datasets/fariss_human_rights_protection, Chile 2019.
    (
        "fariss_hrp",
        "CHL",
        2019,
        0.530467579158257,
        "fariss-fariss-hrp-chl-2019",
    ),
    // oecd_crs_climate_finance/oecd_crs_climate_related_disbursements_lac.csv: the 126 COL 2020 rows summed.
    (
        "crs_climate_total",
        "COL",
        2020,
        671.020337,
        "crsclimate-crs-climate-total-col-2020",
    ),
    // The same rows with flow_name "ODA Grants".
    (
        "crs_climate_oda_grants",
        "COL",
        2020,
        174.803355,
        "crsclimate-crs-climate-oda-grants-col-2020",
    ),
    // wgi/wgidataset.latam.csv, MEX rl 2023 is checked in data_cases; wdi in D1 and D2.
];

#[test]
fn one_known_value_per_source_with_its_citation() {
    let corpus = &real().corpus;
    for &(indicator, country, year, expected, citation_id) in KNOWN_VALUES {
        let observation = corpus
            .observations()
            .find(indicator, country, year)
            .unwrap_or_else(|| panic!("{indicator} {country} {year}"));
        assert!(
            (observation.value - expected).abs() < 1e-6,
            "{indicator} {country} {year}: {} != {expected}",
            observation.value
        );
        assert_eq!(observation.citation_id, citation_id);
        let citation = corpus
            .resolve_citation(citation_id)
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(citation.value, observation.value);
        assert!(citation.url.starts_with("https://"), "{}", citation.url);
    }
    let hdi = corpus.resolve_citation("undp-hdi-bra-2021").unwrap();
    assert_eq!(
        hdi.url,
        "https://hdr.undp.org/data-center/specific-country-data#/countries/BRA"
    );
    assert_eq!(hdi.license, "CC-BY-3.0-IGO");
    let weo = corpus.resolve_citation("imf-ngdp-rpch-mex-2017").unwrap();
    assert_eq!(
        weo.url,
        "https://www.imf.org/external/datamapper/NGDP_RPCH@WEO/MEX"
    );
    assert_eq!(weo.publisher, "International Monetary Fund");
}

#[test]
fn imf_values_after_estimates_start_after_are_flagged_estimate_then_projection() {
    let corpus = &real().corpus;
    // ddf--notes.csv: mex ngdp_rpch estimates_start_after 2017; the vintage was released in April 2019,
    // so 2018 is an estimate of a past year and 2019 on are projections (issue 25).
    assert_eq!(
        corpus
            .observations()
            .find("ngdp_rpch_weo2019", "MEX", 2017)
            .unwrap()
            .flags,
        ""
    );
    let projected = corpus
        .observations()
        .find("ngdp_rpch_weo2019", "MEX", 2018)
        .unwrap();
    assert_eq!((projected.value, projected.flags), (1.994, "estimate"));
    assert_eq!(
        corpus
            .observations()
            .find("ngdp_rpch_weo2019", "MEX", 2024)
            .unwrap()
            .flags,
        "projection"
    );
}

#[test]
fn licence_gate_keeps_ihme_and_world_prison_brief_out_unless_switched_on() {
    let bake = real();
    for id in [
        "ihme_violence_death_rate_age_std",
        "ihme_violence_deaths",
        "ihme_violence_death_rate",
        "wpb_prison_rate",
    ] {
        assert!(
            bake.corpus.metric(id).is_none(),
            "{id} is not in the default corpus"
        );
        assert!(
            bake.summary
                .report
                .excluded_series
                .iter()
                .any(|series| corpus::Metric::id_for_code(&series.code) == id),
            "{id} is reported"
        );
    }

    let catalog = tempfile::tempdir().unwrap();
    copy_dir(&project_catalog(), catalog.path());
    let settings = catalog.path().join("corpus.toml");
    let text = std::fs::read_to_string(&settings).unwrap().replace(
        "include_restricted_licenses = false",
        "include_restricted_licenses = true",
    );
    std::fs::write(&settings, text).unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    bake_into(catalog.path(), &real_sources(), out_dir.path());
    let private = BakedCorpus::open_current(out_dir.path()).unwrap();
    // owid_datasets/ihme_violence_mortality, Honduras 2016; world_prison_brief_owid, SLV 2018.
    assert_eq!(
        private
            .observations()
            .find("ihme_violence_death_rate_age_std", "HND", 2016)
            .unwrap()
            .value,
        34.82
    );
    assert_eq!(
        private
            .observations()
            .find("wpb_prison_rate", "SLV", 2018)
            .unwrap()
            .value,
        605.0
    );
}

#[test]
fn every_pillar_has_governed_indicators_and_named_headlines() {
    let corpus = &real().corpus;
    for pillar in corpus.pillars().pillars() {
        let count = corpus
            .metrics()
            .iter()
            .filter(|metric| metric.pillar == pillar.id)
            .count();
        assert!(count >= 5, "pillar {} has {count} indicators", pillar.id);
    }
    let mut by_coverage: Vec<&corpus::Metric> = corpus.metrics().iter().collect();
    by_coverage.sort_by(|left, right| {
        (right.coverage.countries, right.coverage.observations)
            .cmp(&(left.coverage.countries, left.coverage.observations))
    });
    let unnamed: Vec<&str> = by_coverage
        .iter()
        .take(100)
        .filter(|metric| metric.names.es.is_none() || metric.names.pt.is_none())
        .map(|metric| metric.id.as_str())
        .collect();
    assert!(
        unnamed.is_empty(),
        "the 100 most-covered indicators are named in es/en/pt; missing: {unnamed:?}"
    );
}

#[test]
fn concordance_pairs_both_publishers_values_with_citations() {
    let bake = real();
    let report = &bake.summary.report;
    let gini = report
        .concordance
        .iter()
        .find(|pair| pair.pair == "gini_wdi_sedlac")
        .expect("the Gini pair");
    assert!(gini.shared > 100 && gini.beyond_tolerance > 0, "{gini:?}");
    let growth = report
        .concordance
        .iter()
        .find(|pair| pair.pair == "gdp_growth_wdi_weo")
        .expect("the growth pair");
    assert!(growth.shared > 1000, "{growth:?}");
    let manifest = &bake.summary.manifest;
    assert!(
        manifest
            .artifact(corpus::layout::CONCORDANCE_PARQUET)
            .is_some()
            && manifest.artifact("concordance.arrow").is_some()
    );
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if name == "baked" {
            continue;
        }
        if path.is_dir() {
            std::fs::create_dir_all(to.join(name)).unwrap();
            copy_dir(&path, &to.join(name));
        } else {
            std::fs::copy(&path, to.join(name)).unwrap();
        }
    }
}

#[test]
fn caveats_travel_in_the_methodology_notes() {
    let corpus = &real().corpus;
    let climate = corpus.metric("crs_climate_total").unwrap();
    assert!(
        climate
            .methodology
            .as_deref()
            .unwrap()
            .contains("UPPER BOUND"),
        "the Rio-marker upper bound is stated"
    );
    let femicide = corpus.metric("cepalstat_2780").unwrap();
    assert!(
        femicide.methodology.as_deref().unwrap().contains("PARTIAL"),
        "the coverage gap is stated"
    );
    assert_eq!(femicide.pillar, "seguridad");
}
