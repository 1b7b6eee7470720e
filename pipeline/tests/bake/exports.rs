//! The analysts' flat files written by the bake (`exports/`).

use crate::support::real;

#[test]
fn the_gini_csv_holds_the_raw_wdi_values_cited_and_linked() {
    let path = real()
        .corpus
        .dir()
        .join(pipeline::export::files::INDICATOR_CSV_DIR)
        .join("si_pov_gini.csv");
    let mut reader = csv::Reader::from_path(&path).expect("the Gini CSV exists");
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(header, pipeline::export::files::INDICATOR_CSV_HEADER);
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
    // (country, year) order, and the export is in the manifest (hashed, swapped with the corpus).
    let keys: Vec<(String, i32)> = rows
        .iter()
        .map(|row| (row[1].to_string(), row[3].parse().unwrap()))
        .collect();
    assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
    assert!(
        real()
            .corpus
            .manifest()
            .artifacts
            .iter()
            .any(|artifact| artifact.name == "exports/indicators/si_pov_gini.csv")
    );
}
