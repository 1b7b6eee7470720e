//! The analysts' files written by the bake (`exports/`) and their list (`exports/downloads.json`).

use corpus::exports::{DOWNLOADS, Download, Format, Subject};
use pipeline::export::indicators::{INDICATOR_DIR, TIDY_HEADER};

use crate::support::real;

#[test]
fn the_gini_csv_holds_the_raw_wdi_values_cited_and_linked() {
    let path = real()
        .corpus
        .dir()
        .join(INDICATOR_DIR)
        .join("si_pov_gini.csv");
    let mut reader = csv::Reader::from_path(&path).expect("the Gini CSV exists");
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(header, TIDY_HEADER);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let uruguay_2024 = rows
        .iter()
        .find(|row| &row[1] == "URY" && &row[3] == "2024")
        .expect("URY 2024");
    // The raw WDI file (../shared/data/sources/wdi/indicators/si.pov.gini/data.csv) says 40.0.
    assert_eq!(&uruguay_2024[4], "40");
    assert_eq!(&uruguay_2024[2], "Uruguay");
    assert_eq!(&uruguay_2024[7], "wb-si-pov-gini-ury-2024");
    assert_eq!(
        &uruguay_2024[8],
        "https://data.worldbank.org/indicator/SI.POV.GINI?locations=UY"
    );
    // (country, year) order.
    let keys: Vec<(String, i32)> = rows
        .iter()
        .map(|row| (row[1].to_string(), row[3].parse().unwrap()))
        .collect();
    assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
}

#[test]
fn the_wide_csv_has_one_row_per_country_and_a_column_per_year() {
    let path = real()
        .corpus
        .dir()
        .join(INDICATOR_DIR)
        .join("si_pov_gini.wide.csv");
    let mut reader = csv::Reader::from_path(&path).expect("the wide Gini CSV exists");
    let header = reader.headers().unwrap().clone();
    assert_eq!((&header[0], &header[1]), ("country", "country_name"));
    let column_2024 = header.iter().position(|name| name == "2024").expect("2024");
    let uruguay = reader
        .records()
        .map(Result::unwrap)
        .find(|row| &row[0] == "URY")
        .expect("URY row");
    assert_eq!(&uruguay[column_2024], "40");
}

#[test]
fn every_listed_download_is_in_the_manifest_and_only_redistributable_series_are_listed() {
    let corpus = &real().corpus;
    let downloads: Vec<Download> =
        corpus::read_json(&corpus.dir().join(DOWNLOADS), "downloads").unwrap();
    for download in &downloads {
        assert!(
            corpus
                .manifest()
                .artifact(&download.artifact_name())
                .is_some(),
            "{} is hashed in the manifest",
            download.path
        );
    }
    let gini: Vec<Format> = downloads
        .iter()
        .filter(|download| download.subject == Subject::Indicator && download.id == "si_pov_gini")
        .map(|download| download.format)
        .collect();
    assert_eq!(
        gini,
        [
            Format::Csv,
            Format::WideCsv,
            Format::Xlsx,
            Format::Parquet,
            Format::SdmxMl,
            Format::SdmxCsv,
            Format::SdmxCsv1,
            Format::Zip
        ]
    );
    for path in [
        "datapackage.json",
        "croissant.json",
        "datasets/observations.datapackage.json",
    ] {
        assert!(
            downloads.iter().any(|download| download.path == path),
            "{path} is listed"
        );
    }
    assert!(
        downloads
            .iter()
            .any(|download| download.path == "datasets/observations.csv.gz")
    );
    assert!(
        downloads
            .iter()
            .any(|download| download.path == "registry.xlsx")
    );
    assert!(
        downloads
            .iter()
            .any(|download| download.path == "sdmx/structure.sdmx.xml")
    );
    // SIPRI's military expenditure is excluded by the licence gate: no file of it exists.
    assert!(
        !downloads
            .iter()
            .any(|download| download.id == "ms_mil_xpnd_zs")
    );
    assert!(
        !corpus
            .dir()
            .join(INDICATOR_DIR)
            .join("ms_mil_xpnd_zs.csv")
            .exists()
    );
    // Every indicator file carries a licence the gate lets through.
    assert!(
        !downloads
            .iter()
            .any(|download| download.subject == Subject::Indicator
                && download.license.contains("non-commercial"))
    );
}
