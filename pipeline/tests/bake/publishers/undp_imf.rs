//! UNDP's Human Development Report Office, the IMF's WEO database and ND-GAIN, played on loopback: each
//! refresh URL of `undp_hdr2025`, `undp_hdi`, `imf_weo`, `imf_weo_2019` and `nd_gain` serves what the
//! publisher serves, built from the staged data:
//!
//! - HDR 2025: the staged file as it is (the publisher's bytes: Latin-1, CRLF; rows filtered to LAC);
//! - HDR 2021/22: the staged HDI extract laid out as the composite file (`iso3, country, hdicode, region,
//!   hdi_rank_2021, hdi_1990 … hdi_2021`; Latin-1, CRLF; the extract has no ranks, so they are empty);
//! - WEO April 2025: the staged CSV as the IMF's `WEOApr2025all.xls` (tab-separated UTF-16LE without BOM,
//!   CRLF, a trailing tab, numbers of four digits and more with thousands separators, a blank line and the
//!   footer without terminator);
//! - WEO April 2019: the staged DDF tables as `WEOApr2019all.xls` (the same layout, ISO-8859-1, `n/a`
//!   where the DDF has no value);
//! - ND-GAIN: the staged long file as the download zip's `resources/<folder>/<file>.csv` (quoted header and
//!   keys, unquoted numbers, empty = missing, LF).
//!
//! The test fetches and bakes the five through it and checks that the publisher-native path gives the
//! staged path's values, flags and citation ids.

use std::{collections::BTreeMap, path::Path};

use super::{PublisherSetup, zip_of};
use crate::support::real;

const HDR25: &str =
    "hdr.undp.org/sites/default/files/2025_HDR/HDR25_Composite_indices_complete_time_series.csv";
const HDR22: &str = "hdr.undp.org/sites/default/files/2021-22_HDR/HDR21-22_Composite_indices_complete_time_series.csv";
const WEO2025: &str =
    "www.imf.org/-/media/files/publications/weo/weo-database/2025/april/weoapr2025all.xls";
const WEO2019: &str = "www.imf.org/external/pubs/ft/weo/2019/01/weodata/WEOApr2019all.xls";
const NDGAIN: &str = "gain.nd.edu/assets/581929/nd_gain_countryindex_2024.zip";

/// The ND-GAIN zip members, by the staged file's column: (column, member path in the download).
const NDGAIN_MEMBERS: [(&str, &str); 16] = [
    ("gain", "resources/gain/gain.csv"),
    ("gain_delta", "resources/gain/gain_delta.csv"),
    ("vulnerability", "resources/vulnerability/vulnerability.csv"),
    ("readiness", "resources/readiness/readiness.csv"),
    ("readiness_economic", "resources/readiness/economic.csv"),
    ("readiness_governance", "resources/readiness/governance.csv"),
    ("readiness_social", "resources/readiness/social.csv"),
    ("vuln_exposure", "resources/vulnerability/exposure.csv"),
    (
        "vuln_sensitivity",
        "resources/vulnerability/sensitivity.csv",
    ),
    ("vuln_capacity", "resources/vulnerability/capacity.csv"),
    ("vuln_food", "resources/vulnerability/food.csv"),
    ("vuln_water", "resources/vulnerability/water.csv"),
    ("vuln_health", "resources/vulnerability/health.csv"),
    ("vuln_ecosystems", "resources/vulnerability/ecosystems.csv"),
    ("vuln_habitat", "resources/vulnerability/habitat.csv"),
    (
        "vuln_infrastructure",
        "resources/vulnerability/infrastructure.csv",
    ),
];

/// Every refresh URL of the five sources (`HOST/PATH`, as declared) and the bytes its publisher serves.
pub fn routes(sources_dir: &Path) -> Vec<(String, Vec<u8>)> {
    vec![
        (
            HDR25.into(),
            std::fs::read(
                sources_dir
                    .join("undp_hdr2025/HDR25_Composite_indices_complete_time_series.latam.csv"),
            )
            .unwrap(),
        ),
        (HDR22.into(), hdr_composite_of_extract(sources_dir)),
        (WEO2025.into(), weo2025_text(sources_dir)),
        (WEO2019.into(), weo2019_text(sources_dir)),
        (NDGAIN.into(), nd_gain_zip(sources_dir)),
    ]
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|record| record.unwrap().iter().map(String::from).collect())
        .collect();
    (headers, rows)
}

/// ISO-8859-1 bytes of `text`; a char outside it becomes `?` (as a Latin-1 export writes it).
fn latin1(text: &str) -> Vec<u8> {
    text.chars()
        .map(|character| u8::try_from(u32::from(character)).unwrap_or(b'?'))
        .collect()
}

/// A CSV line of `cells`, quoted only where a cell holds a comma or quote (the HDR file's minimal quoting).
fn minimal_csv_line(cells: &[String]) -> String {
    let quoted: Vec<String> = cells
        .iter()
        .map(|cell| {
            if cell.contains([',', '"']) {
                format!("\"{}\"", cell.replace('"', "\"\""))
            } else {
                cell.clone()
            }
        })
        .collect();
    quoted.join(",")
}

fn hdr_composite_of_extract(sources_dir: &Path) -> Vec<u8> {
    let (headers, rows) =
        read_csv(&sources_dir.join("undp_hdi/HDR21-22_complete_time_series.latam.csv"));
    let years: Vec<&String> = headers.iter().skip(4).collect();
    let mut header: Vec<String> = headers[..4].to_vec();
    header.push(format!("hdi_rank_{}", years.last().unwrap()));
    header.extend(years.iter().map(|year| format!("hdi_{year}")));
    let mut text = minimal_csv_line(&header) + "\r\n";
    for row in rows {
        let mut cells = row[..4].to_vec();
        cells.push(String::new());
        cells.extend(row[4..].iter().cloned());
        text.push_str(&(minimal_csv_line(&cells) + "\r\n"));
    }
    latin1(&text)
}

/// `cell` with thousands separators when it is a plain number of four or more integer digits.
fn with_thousands_separators(cell: &str) -> String {
    let (sign, unsigned) = cell
        .strip_prefix('-')
        .map_or(("", cell), |rest| ("-", rest));
    let (integer, fraction) = unsigned
        .split_once('.')
        .map_or((unsigned, None), |(integer, fraction)| {
            (integer, Some(fraction))
        });
    let plain = !integer.is_empty()
        && integer.bytes().all(|byte| byte.is_ascii_digit())
        && fraction.is_none_or(|fraction| fraction.bytes().all(|byte| byte.is_ascii_digit()));
    if !plain || integer.len() < 4 {
        return cell.to_string();
    }
    let digits: Vec<char> = integer.chars().collect();
    let mut grouped = String::new();
    for (index, digit) in digits.iter().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(*digit);
    }
    match fraction {
        Some(fraction) => format!("{sign}{grouped}.{fraction}"),
        None => format!("{sign}{grouped}"),
    }
}

/// The WEO text layout of `lines` (header first): tab-separated with a trailing tab, CRLF, a blank line,
/// the footer line without terminator.
fn weo_text(lines: &[Vec<String>], footer: &str) -> String {
    let mut text = String::new();
    for cells in lines {
        text.push_str(&cells.join("\t"));
        text.push_str("\t\r\n");
    }
    text.push_str("\r\n");
    text.push_str(footer);
    text
}

fn weo2025_text(sources_dir: &Path) -> Vec<u8> {
    let (headers, rows) = read_csv(&sources_dir.join("imf_weo_2025apr/WEOApr2025all_lac.csv"));
    let mut lines = vec![headers.clone()];
    for row in rows {
        lines.push(
            row.iter()
                .zip(&headers)
                .map(|(cell, header)| {
                    if header.len() == 4 && header.bytes().all(|byte| byte.is_ascii_digit()) {
                        with_thousands_separators(cell)
                    } else {
                        cell.clone()
                    }
                })
                .collect(),
        );
    }
    let text = weo_text(
        &lines,
        "International Monetary Fund, World Economic Outlook Database, April 2025",
    );
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

fn weo2019_text(sources_dir: &Path) -> Vec<u8> {
    let dir = sources_dir.join("imf_weo_2019apr");
    let (_, countries) = read_csv(&dir.join("ddf--entities--country.csv"));
    let (concept_headers, concepts) = read_csv(&dir.join("ddf--concepts--continuous.csv"));
    let column = |name: &str| {
        concept_headers
            .iter()
            .position(|header| header == name)
            .unwrap()
    };
    let (notes_headers, notes) = read_csv(&dir.join("ddf--notes.csv"));
    let note_column = |name: &str| {
        notes_headers
            .iter()
            .position(|header| header == name)
            .unwrap()
    };
    let notes: BTreeMap<(String, String), (String, String)> = notes
        .iter()
        .map(|row| {
            (
                (
                    row[note_column("country")].clone(),
                    row[note_column("concept")].clone(),
                ),
                (
                    row[note_column("country_series_specific_notes")].clone(),
                    row[note_column("estimates_start_after")].clone(),
                ),
            )
        })
        .collect();
    let years: Vec<String> = (1980..=2024).map(|year| year.to_string()).collect();
    let mut header: Vec<String> = [
        "WEO Country Code",
        "ISO",
        "WEO Subject Code",
        "Country",
        "Subject Descriptor",
        "Subject Notes",
        "Units",
        "Scale",
        "Country/Series-specific Notes",
    ]
    .map(String::from)
    .to_vec();
    header.extend(years.iter().cloned());
    header.push("Estimates Start After".into());
    let mut lines = vec![header];
    for concept in &concepts {
        let key = &concept[column("concept")];
        let datapoints = dir.join(format!(
            "datapoints/ddf--datapoints--{key}--by--country--year.csv"
        ));
        if !datapoints.exists() {
            continue;
        }
        let (_, points) = read_csv(&datapoints);
        let values: BTreeMap<(&str, &str), &str> = points
            .iter()
            .map(|point| ((point[1].as_str(), point[0].as_str()), point[2].as_str()))
            .collect();
        for country in &countries {
            let (notes, after) = notes
                .get(&(country[0].clone(), key.clone()))
                .cloned()
                .unwrap_or_default();
            let mut cells = vec![
                country[1].clone(),
                country[0].to_ascii_uppercase(),
                concept[column("weo_subject_code")].clone(),
                country[2].clone(),
                concept[column("subject_descriptor")].clone(),
                concept[column("subject_notes")].clone(),
                concept[column("unit")].clone(),
                concept[column("scale")].clone(),
                notes,
            ];
            cells.extend(years.iter().map(|year| {
                values
                    .get(&(country[0].as_str(), year.as_str()))
                    .map_or("n/a".to_string(), |value| with_thousands_separators(value))
            }));
            cells.push(after);
            lines.push(cells);
        }
    }
    latin1(&weo_text(
        &lines,
        "International Monetary Fund, World Economic Outlook Database, April 2019",
    ))
}

fn nd_gain_zip(sources_dir: &Path) -> Vec<u8> {
    let (headers, rows) =
        read_csv(&sources_dir.join("nd_gain/nd_gain_lac_1995-2020_release2022.csv"));
    let column = |name: &str| headers.iter().position(|header| header == name).unwrap();
    let years: Vec<String> = (1995..=2020).map(|year| year.to_string()).collect();
    let mut by_country: BTreeMap<(String, String), BTreeMap<String, &Vec<String>>> =
        BTreeMap::new();
    for row in &rows {
        by_country
            .entry((row[column("iso3")].clone(), row[column("country")].clone()))
            .or_default()
            .insert(row[column("year")].clone(), row);
    }
    let members: Vec<(String, Vec<u8>)> = NDGAIN_MEMBERS
        .iter()
        .map(|(value_column, member)| {
            let value = column(value_column);
            let mut text = String::from("\"ISO3\",\"Name\"");
            for year in &years {
                text.push_str(&format!(",\"{year}\""));
            }
            text.push('\n');
            for ((iso3, name), by_year) in &by_country {
                text.push_str(&format!("\"{iso3}\",\"{name}\""));
                for year in &years {
                    text.push(',');
                    if let Some(row) = by_year.get(year) {
                        text.push_str(&row[value]);
                    }
                }
                text.push('\n');
            }
            (member.to_string(), text.into_bytes())
        })
        .collect();
    let borrowed: Vec<(&str, &[u8])> = members
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    zip_of(&borrowed)
}

#[test]
fn thousands_separators_group_the_integer_digits_by_threes() {
    assert_eq!(with_thousands_separators("2171.337"), "2,171.337");
    assert_eq!(with_thousands_separators("-1234567"), "-1,234,567");
    assert_eq!(with_thousands_separators("999.5"), "999.5");
    assert_eq!(with_thousands_separators("n/a"), "n/a");
    assert_eq!(with_thousands_separators("1e-05"), "1e-05");
}

/// The five sources fetched from their publishers and baked answer as the staged bake does: same values,
/// flags and citation ids; the HDR 2025 and WEO values with their vintage, refreshed from the fetch.
#[test]
fn undp_imf_and_nd_gain_refreshed_from_their_publishers_agree_with_the_staged_bake() {
    let sources = [
        "undp_hdr2025",
        "undp_hdi",
        "imf_weo",
        "imf_weo_2019",
        "nd_gain",
    ];
    let setup = PublisherSetup::project(routes(&crate::support::real_sources()));
    let printed = setup.fetch_ok(&sources);
    for file in [
        "publisher/HDR25_Composite_indices_complete_time_series.csv",
        "publisher/WEOApr2025all.xls",
        "publisher/WEOApr2019all.xls",
        "publisher/gain/gain.csv",
    ] {
        assert!(printed.contains(file), "{file}:\n{printed}");
    }
    let out = tempfile::tempdir().unwrap();
    let refreshed = setup.bake(out.path());
    let staged = &real().corpus;
    // (indicator, country, year): one known value per source, read by hand from the staged files.
    let known: [(&str, &str, i32, f64, &str); 8] = [
        // undp_hdr2025: row BRA, column hdi_2023.
        ("hdi", "BRA", 2023, 0.786, ""),
        // undp_hdi: row BRA, column 2021.
        ("hdi_hdr2022", "BRA", 2021, 0.754, ""),
        // imf_weo_2025apr: BRA NGDPD 2024 = 2171.337 (served as "2,171.337"); MEX NGDP_RPCH 2025 = -0.26,
        // after its Estimates Start After 2024.
        ("ngdpd", "BRA", 2024, 2171.337, ""),
        ("ngdp_rpch", "MEX", 2025, -0.26, "projection"),
        // imf_weo_2019apr: mex ngdp_rpch 2017 = 2.07 (estimates start after 2017); 2018 = 1.994 is the
        // staff's estimate of a year before the April 2019 release, not a projection.
        ("ngdp_rpch_weo2019", "MEX", 2017, 2.07, ""),
        ("ngdp_rpch_weo2019", "MEX", 2018, 1.994, "estimate"),
        // nd_gain: MEX 2020 gain 47.4597; ARG 1995 vulnerability 0.411565.
        ("ndgain_index", "MEX", 2020, 47.4597, ""),
        ("ndgain_vulnerability", "ARG", 1995, 0.411565, ""),
    ];
    for (indicator, country, year, value, flags) in known {
        for (path, corpus) in [("staged", staged), ("refreshed", &refreshed)] {
            let observation = corpus
                .observations()
                .find(indicator, country, year)
                .unwrap_or_else(|| panic!("{path}: {indicator} {country} {year}"));
            assert!(
                (observation.value - value).abs() < 1e-9,
                "{path}: {indicator} {country} {year} = {}",
                observation.value
            );
            assert_eq!(
                observation.flags, flags,
                "{path}: {indicator} {country} {year}"
            );
        }
        let staged_row = staged
            .observations()
            .find(indicator, country, year)
            .unwrap();
        let refreshed_row = refreshed
            .observations()
            .find(indicator, country, year)
            .unwrap();
        assert_eq!(staged_row.citation_id, refreshed_row.citation_id);
    }
    // Every staged observation of the five sources is in the refreshed bake with the same value.
    for indicator in [
        "hdi",
        "gii",
        "hdi_hdr2022",
        "ngdp_rpch",
        "ggxwdg_ngdp",
        "lp_weo2019",
        "ndgain_readiness",
    ] {
        let table = staged.observations();
        let mut compared = 0;
        for row_idx in 0..table.len() {
            let row = table.row(row_idx);
            if row.indicator != indicator {
                continue;
            }
            let other = refreshed
                .observations()
                .find(indicator, row.country, row.year)
                .unwrap_or_else(|| {
                    panic!("refreshed lacks {indicator} {} {}", row.country, row.year)
                });
            assert_eq!(
                (other.value, other.flags),
                (row.value, row.flags),
                "{indicator} {} {}",
                row.country,
                row.year
            );
            compared += 1;
        }
        assert!(
            compared > 100,
            "{indicator}: {compared} observations compared"
        );
    }
}
