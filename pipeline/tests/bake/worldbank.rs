//! The World Bank's sources as baked from the staged files: the seven WDI extract series (two releases,
//! each its own source citing as WDI), and WGI's attributes.

use crate::support::real;

/// (indicator, country, year, value, citation id, vintage), read by hand from
/// `wdi_extracts_2024-10_2025-01/*.latam.csv`.
const EXTRACT_VALUES: &[(&str, &str, i32, f64, &str, &str)] = &[
    // wdi_poverty_topic_2024-10-24.latam.csv: Argentina,ARG,…,SI.POV.LMIC,2022,2.5
    (
        "si_pov_lmic",
        "ARG",
        2022,
        2.5,
        "wb-si-pov-lmic-arg-2022",
        "2024-10-24",
    ),
    // …: Mexico,MEX,…,SI.POV.UMIC,2022,21.8
    (
        "si_pov_umic",
        "MEX",
        2022,
        21.8,
        "wb-si-pov-umic-mex-2022",
        "2024-10-24",
    ),
    // wdi_electricity_access_databank_2025-01-28.latam.csv: Bolivia,BOL,…,EG.ELC.ACCS.RU.ZS,2022,95.6
    (
        "eg_elc_accs_ru_zs",
        "BOL",
        2022,
        95.6,
        "wb-eg-elc-accs-ru-zs-bol-2022",
        "2025-01-28",
    ),
    // …: Haiti,HTI,…,EG.ELC.ACCS.UR.ZS,2022,83
    (
        "eg_elc_accs_ur_zs",
        "HTI",
        2022,
        83.0,
        "wb-eg-elc-accs-ur-zs-hti-2022",
        "2025-01-28",
    ),
];

#[test]
fn the_seven_wdi_extract_series_bake_with_their_release_as_vintage() {
    let corpus = &real().corpus;
    for &(indicator, country, year, expected, citation_id, vintage) in EXTRACT_VALUES {
        let observation = corpus
            .observations()
            .find(indicator, country, year)
            .unwrap_or_else(|| panic!("{indicator} {country} {year}"));
        assert_eq!(observation.value, expected, "{indicator} {country} {year}");
        assert_eq!(observation.citation_id, citation_id);
        let citation = corpus
            .resolve_citation(citation_id)
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(citation.vintage, vintage, "{citation_id}");
        assert_eq!(citation.publisher, "The World Bank");
        assert!(
            citation
                .url
                .starts_with("https://data.worldbank.org/indicator/"),
            "{}",
            citation.url
        );
    }
    let poverty = corpus.resolve_citation("wb-si-pov-lmic-arg-2022").unwrap();
    assert_eq!(
        poverty.url,
        "https://data.worldbank.org/indicator/SI.POV.LMIC?locations=AR"
    );
    // WDI's own series still cite as `wb` beside them, from their own source and release.
    let life = corpus
        .resolve_citation("wb-sp-dyn-le00-in-mex-2020")
        .unwrap();
    assert_eq!(life.vintage, "2026-07");
    let extracts = [
        "si_pov_lmic",
        "si_pov_lmic_gp",
        "si_pov_umic",
        "si_pov_umic_gp",
        "si_dst_50md",
        "eg_elc_accs_ru_zs",
        "eg_elc_accs_ur_zs",
    ];
    for indicator in extracts {
        assert!(
            corpus.metric(indicator).is_some(),
            "{indicator} is a governed indicator"
        );
    }
}
