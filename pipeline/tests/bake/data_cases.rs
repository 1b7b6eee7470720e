use corpus::{BakedCorpus, EntityKind};

use crate::support::real;

/// Checks one observation of the real corpus: value (to `tolerance`), citation id and its deep link.
fn check_value(
    corpus: &BakedCorpus,
    indicator: &str,
    iso3: &str,
    year: i32,
    expected: f64,
    tolerance: f64,
) {
    let observation = corpus
        .observations()
        .find(indicator, iso3, year)
        .unwrap_or_else(|| panic!("{indicator} {iso3} {year} is in the corpus"));
    assert!(
        (observation.value - expected).abs() <= tolerance,
        "{indicator} {iso3} {year}: {} != {expected}",
        observation.value
    );
    let citation = corpus
        .resolve_citation(observation.citation_id)
        .expect("the observation's citation resolves");
    assert_eq!(citation.value, observation.value);
    assert_eq!(citation.year, year);
    assert_eq!(citation.country, iso3);
}

/// The latest year of a series in the corpus.
fn latest_year(corpus: &BakedCorpus, indicator: &str, iso3: &str) -> i32 {
    let rows = corpus.observations().series(indicator, iso3);
    corpus.observations().row(rows.end - 1).year
}

#[test]
fn d1_life_expectancy_mex_arg_with_citations_and_deep_links() {
    let corpus = &real().corpus;
    check_value(corpus, "sp_dyn_le00_in", "MEX", 2010, 73.718, 1e-9);
    check_value(corpus, "sp_dyn_le00_in", "MEX", 2024, 75.264, 1e-9);
    check_value(corpus, "sp_dyn_le00_in", "ARG", 2024, 77.543, 1e-9);
    assert_eq!(latest_year(corpus, "sp_dyn_le00_in", "MEX"), 2024);

    let observation = corpus
        .observations()
        .find("sp_dyn_le00_in", "MEX", 2024)
        .unwrap();
    assert_eq!(observation.citation_id, "wb-sp-dyn-le00-in-mex-2024");
    let citation = corpus
        .resolve_citation("wb-sp-dyn-le00-in-mex-2024")
        .unwrap();
    assert_eq!(
        citation.url,
        "https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX"
    );
    assert_eq!(citation.publisher, "The World Bank");
    assert_eq!(citation.dataset, "World Development Indicators");
    assert_eq!(citation.title, "Life expectancy at birth, total (years)");
    assert_eq!(citation.vintage, "2026-07");
    assert_eq!(citation.retrieved_at, "2026-07-01");
    assert_eq!(citation.license, "CC-BY-4.0");
    let argentina = corpus
        .resolve_citation("wb-sp-dyn-le00-in-arg-2024")
        .unwrap();
    assert_eq!(
        argentina.url,
        "https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=AR"
    );
}

#[test]
fn d2_homicides_bra_ury_from_2015() {
    let corpus = &real().corpus;
    check_value(corpus, "vc_ihr_psrc_p5", "BRA", 2015, 28.85, 0.01);
    check_value(corpus, "vc_ihr_psrc_p5", "BRA", 2023, 19.275, 0.001);
    check_value(corpus, "vc_ihr_psrc_p5", "URY", 2023, 11.245, 0.001);
    assert_eq!(latest_year(corpus, "vc_ihr_psrc_p5", "BRA"), 2023);
    let metric = corpus.metric("vc_ihr_psrc_p5").unwrap();
    assert_eq!(metric.pillar, "seguridad");
    assert_eq!(metric.unit, "per 100,000 people");
    assert_eq!(metric.good_direction, corpus::GoodDirection::Down);
    assert_eq!(
        metric.names.get(corpus::Lang::Es),
        "Homicidios intencionales"
    );
}

#[test]
fn d7_country_normalisation() {
    let countries = real().corpus.countries();
    let cases = [
        ("Brasil", Some("BRA")),
        ("brasil", Some("BRA")),
        ("BRA", Some("BRA")),
        ("br", Some("BRA")),
        ("México", Some("MEX")),
        ("mexico", Some("MEX")),
        ("mex", Some("MEX")),
        ("Perú", Some("PER")),
        ("República Dominicana", Some("DOM")),
        ("Belice", Some("BLZ")),
        ("Narnia", None),
    ];
    for (input, expected) in cases {
        assert_eq!(
            countries
                .resolve(input)
                .map(|country| country.iso3.as_str()),
            expected,
            "resolve({input:?})"
        );
    }
    assert_eq!(
        countries.countries().count(),
        52,
        "UN M49 419 has 52 countries and territories"
    );
}

#[test]
fn d12_world_is_a_comparison_aggregate_not_a_country() {
    let bake = real();
    let corpus = &bake.corpus;
    assert!(
        corpus.countries().resolve("WLD").is_none(),
        "WLD never resolves as a country"
    );
    assert_eq!(
        corpus.countries().get("WLD").map(|entity| entity.kind),
        Some(EntityKind::Aggregate)
    );
    assert!(corpus.observations().rows().all(|row| {
        corpus
            .countries()
            .get(row.country)
            .is_some_and(|entity| entity.kind == EntityKind::Country)
    }));
    let world = corpus
        .aggregates()
        .find("sp_dyn_le00_in", "WLD", 2024)
        .expect("WLD kept as a comparison aggregate");
    assert!(world.value > 60.0 && world.value < 90.0);
    assert_eq!(
        corpus.resolve_citation(world.citation_id).unwrap().url,
        "https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=1W"
    );
    let report = &bake.summary.report;
    assert!(
        report
            .aggregates_kept
            .get("WLD")
            .is_some_and(|rows| *rows > 0),
        "the report says WLD was kept"
    );
    assert!(!report.aggregates_kept.contains_key("MEX"));
    // WGI still lists the former Netherlands Antilles, which is no country of the catalog.
    assert!(
        report
            .dropped
            .iter()
            .any(|row| row.country == "ANT" && row.reason == corpus::DropReason::UnknownCountry)
    );
}

#[test]
fn every_observation_and_metric_is_governed() {
    let bake = real();
    let corpus = &bake.corpus;
    assert_eq!(
        corpus.observations().len() as u64,
        bake.summary.report.observations
    );
    let catalog = pipeline::sources::Catalog::load(&crate::support::project_catalog()).unwrap();
    for metric in corpus.metrics() {
        assert!(
            corpus.pillars().get(&metric.pillar).is_some(),
            "{} has a known pillar",
            metric.id
        );
        assert!(
            catalog.settings.admits_license(&metric.license),
            "{}: only redistributable licences in the default corpus",
            metric.id
        );
    }
    assert!(
        corpus.metric("en_atm_co2e_pc").is_none(),
        "CC BY-NC series stay out of the default corpus"
    );
    let wdi_excluded = bake
        .summary
        .report
        .excluded_series
        .iter()
        .filter(|series| series.source == "wdi")
        .count();
    assert_eq!(
        wdi_excluded, 15,
        "the 15 WDI series under IEA, CC BY-NC, SIPRI and Protected Planet terms"
    );
    let headline = corpus
        .metrics()
        .iter()
        .filter(|metric| metric.names.es.is_some() && metric.names.pt.is_some())
        .count();
    assert!(
        headline >= 60,
        "{headline} indicators are named in es/en/pt"
    );
    let wgi = corpus
        .observations()
        .find("rl_est", "MEX", 2023)
        .expect("WGI rule of law for MEX 2023");
    assert!(
        wgi.standard_error.is_some() && wgi.source_count.is_some(),
        "WGI keeps standard error and source count"
    );
    assert_eq!(wgi.citation_id, "wgi-rl-est-mex-2023");
}
