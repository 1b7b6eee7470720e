//! The World Bank as the loopback publisher plays it: every refresh URL of the World Bank's sources (WDI,
//! its series metadata, WGI, WBL and the two WDI extracts), answered with the STAGED data laid out as the
//! World Bank serves it, so a fetch and bake through the publisher-native connectors can be held equal to
//! the staged bake.
//!
//! - `databank.worldbank.org/data/download/WDI_CSV.zip`: a zip of `WDICSV.csv` (the staged long CSVs of
//!   `wdi/indicators/<code>/data.csv` rendered in the bulk layout: UTF-8 BOM, every cell quoted, one column
//!   per year 1960…, a trailing comma, CRLF, `""` where the long file has no row; indicator names from each
//!   `datapackage.json`), `WDISeries.csv` (the staged member, verbatim: it is the World Bank's file) and
//!   `WDIcountry-series.csv` (the staged LAC rows of that member, with its 2023+ lower-case name).
//! - `databank.worldbank.org/data/download/WGI_CSV.zip`: a zip of `WGIData.csv`, the staged long WGI file
//!   rendered in the DataBank layout (`CC.EST`, `CC.NO.SRC`, `CC.PER.RNK`, `CC.PER.RNK.LOWER`,
//!   `CC.PER.RNK.UPPER`, `CC.STD.ERR` per dimension; years 1996, 1998, 2000, 2002…; `..` → `""`).
//! - `api.worldbank.org/v2/country/all/indicator/<code>?…`: one API v2 JSON page per indicator of WBL and
//!   the WDI extracts, `[page_info, records]` with `lastupdated` = the staged file's release, newest year
//!   first per economy, and a `null` value for a year the staged file lacks.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

use super::{LAST_MODIFIED_ISO, PublisherSetup, zip_of};
use crate::support::real;

/// Every World Bank refresh URL (as `HOST/PATH?QUERY`, as declared) with the bytes the World Bank would
/// serve, built from the staged data under `sources_dir`.
pub fn routes(sources_dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut routes = vec![
        (
            "databank.worldbank.org/data/download/WDI_CSV.zip".to_string(),
            wdi_bulk_zip(sources_dir),
        ),
        (
            "databank.worldbank.org/data/download/WGI_CSV.zip".to_string(),
            zip_of(&[("WGIData.csv", &wgi_data_csv(sources_dir))]),
        ),
    ];
    let iso2 = iso2_codes(sources_dir);
    for (code, title, release, rows) in wbl_series(sources_dir)
        .into_iter()
        .chain(extract_series(sources_dir))
    {
        routes.push((
            api_url(&code),
            api_page(&code, &title, &release, &rows, &iso2),
        ));
    }
    routes
}

/// The API URL the catalog declares for one indicator (`{code}` filled).
pub fn api_url(code: &str) -> String {
    format!("api.worldbank.org/v2/country/all/indicator/{code}?format=json&per_page=20000&source=2")
}

/// One economy-year of a series: code, name, year, value as written.
type Cell = (String, String, i32, String);

/// A cell quoted as the World Bank's CSVs quote every cell.
fn quoted(cell: &str) -> String {
    format!("\"{}\"", cell.replace('"', "\"\""))
}

/// A CSV line in the DataBank style: every cell quoted, a trailing comma, CRLF.
fn databank_line(cells: &[String]) -> String {
    let quoted: Vec<String> = cells.iter().map(|cell| quoted(cell)).collect();
    format!("{},\r\n", quoted.join(","))
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let bytes = std::fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text);
    let headers = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|record| record.unwrap().iter().map(str::to_string).collect())
        .collect();
    (headers, rows)
}

fn column(headers: &[String], name: &str) -> usize {
    headers
        .iter()
        .position(|header| header == name)
        .unwrap_or_else(|| panic!("no column {name} in {headers:?}"))
}

/// One WDI series of the bulk file: country name, indicator name, year → value as printed.
type BulkSeries = (String, String, BTreeMap<i32, String>);

/// The WDI bulk zip: `WDICSV.csv` rendered from the staged long CSVs, and the two metadata members.
fn wdi_bulk_zip(sources_dir: &Path) -> Vec<u8> {
    let indicators = sources_dir.join("wdi/indicators");
    let mut codes: Vec<String> = std::fs::read_dir(&indicators)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    codes.sort();
    // (country code, indicator code) → name, indicator name, year → value.
    let mut series: BTreeMap<(String, String), BulkSeries> = BTreeMap::new();
    let mut last_year = 1960;
    for dir in &codes {
        let code = dir.to_ascii_uppercase();
        let title = std::fs::read(indicators.join(dir).join("datapackage.json"))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .and_then(|json| {
                json.get("title")
                    .and_then(|title| title.as_str())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| code.clone());
        let (headers, rows) = read_csv(&indicators.join(dir).join("data.csv"));
        let (name, country, year, value) = (
            column(&headers, "Country Name"),
            column(&headers, "Country Code"),
            column(&headers, "Year"),
            column(&headers, "Value"),
        );
        for row in rows {
            let year: i32 = row[year].parse().unwrap();
            last_year = last_year.max(year);
            series
                .entry((row[country].clone(), code.clone()))
                .or_insert_with(|| (row[name].clone(), title.clone(), BTreeMap::new()))
                .2
                .insert(year, row[value].clone());
        }
    }
    let years: Vec<i32> = (1960..=last_year).collect();
    let mut csv = String::from("\u{feff}");
    let mut header: Vec<String> = [
        "Country Name",
        "Country Code",
        "Indicator Name",
        "Indicator Code",
    ]
    .map(str::to_string)
    .to_vec();
    header.extend(years.iter().map(i32::to_string));
    csv.push_str(&databank_line(&header));
    for ((country, code), (name, title, values)) in &series {
        let mut cells = vec![name.clone(), country.clone(), title.clone(), code.clone()];
        cells.extend(
            years
                .iter()
                .map(|year| values.get(year).cloned().unwrap_or_default()),
        );
        csv.push_str(&databank_line(&cells));
    }
    let metadata = sources_dir.join("wdi_metadata");
    zip_of(&[
        ("WDICSV.csv", csv.as_bytes()),
        (
            "WDISeries.csv",
            &std::fs::read(metadata.join("WDISeries.csv")).unwrap(),
        ),
        (
            "WDIcountry-series.csv",
            &std::fs::read(metadata.join("WDICountry-Series.latam.csv")).unwrap(),
        ),
    ])
}

/// `WGIData.csv` in the DataBank layout, from the staged long `wgi/wgidataset.latam.csv`.
fn wgi_data_csv(sources_dir: &Path) -> Vec<u8> {
    let (headers, rows) = read_csv(&sources_dir.join("wgi/wgidataset.latam.csv"));
    let at = |name: &str| column(&headers, name);
    let (code, name, year, indicator) =
        (at("code"), at("countryname"), at("year"), at("indicator"));
    // The DataBank measure codes and the long file's columns holding them, in the DataBank's order.
    let measures = [
        ("EST", "Estimate", at("estimate")),
        ("NO.SRC", "Number of Sources", at("nsource")),
        ("PER.RNK", "Percentile Rank", at("pctrank")),
        (
            "PER.RNK.LOWER",
            "Percentile Rank, Lower Bound of 90% Confidence Interval",
            at("pctranklower"),
        ),
        (
            "PER.RNK.UPPER",
            "Percentile Rank, Upper Bound of 90% Confidence Interval",
            at("pctrankupper"),
        ),
        ("STD.ERR", "Standard Error", at("stddev")),
    ];
    let dimensions = [
        ("cc", "CC", "Control of Corruption"),
        ("ge", "GE", "Government Effectiveness"),
        (
            "pv",
            "PV",
            "Political Stability and Absence of Violence/Terrorism",
        ),
        ("rq", "RQ", "Regulatory Quality"),
        ("rl", "RL", "Rule of Law"),
        ("va", "VA", "Voice and Accountability"),
    ];
    let years: BTreeSet<i32> = rows.iter().map(|row| row[year].parse().unwrap()).collect();
    // (country name, country code, dimension key) → year → row.
    let mut by_series: BTreeMap<(String, String, String), BTreeMap<i32, &Vec<String>>> =
        BTreeMap::new();
    for row in &rows {
        by_series
            .entry((row[name].clone(), row[code].clone(), row[indicator].clone()))
            .or_default()
            .insert(row[year].parse().unwrap(), row);
    }
    let mut csv = String::from("\u{feff}");
    let mut header: Vec<String> = [
        "Country Name",
        "Country Code",
        "Indicator Name",
        "Indicator Code",
    ]
    .map(str::to_string)
    .to_vec();
    header.extend(years.iter().map(i32::to_string));
    csv.push_str(&databank_line(&header));
    let countries: BTreeSet<(String, String)> = by_series
        .keys()
        .map(|(name, code, _)| (name.clone(), code.clone()))
        .collect();
    for (country_name, country_code) in &countries {
        for (key, dimension, dimension_name) in dimensions {
            let Some(by_year) =
                by_series.get(&(country_name.clone(), country_code.clone(), key.to_string()))
            else {
                continue;
            };
            for (measure, measure_name, measure_column) in measures {
                let mut cells = vec![
                    country_name.clone(),
                    country_code.clone(),
                    format!("{dimension_name}: {measure_name}"),
                    format!("{dimension}.{measure}"),
                ];
                cells.extend(years.iter().map(|year| {
                    by_year
                        .get(year)
                        .map(|row| row[measure_column].clone())
                        .filter(|cell| cell != "..")
                        .unwrap_or_default()
                }));
                csv.push_str(&databank_line(&cells));
            }
        }
    }
    csv.into_bytes()
}

/// ISO2 by ISO3, from the staged country list (the API's `country.id`; aggregates keep their ISO3 there,
/// which the connector never reads when `countryiso3code` is set).
fn iso2_codes(sources_dir: &Path) -> BTreeMap<String, String> {
    let (headers, rows) = read_csv(&sources_dir.join("country_names/latam_country_names.csv"));
    let (iso3, iso2) = (column(&headers, "iso3"), column(&headers, "iso2"));
    rows.into_iter()
        .map(|row| (row[iso3].clone(), row[iso2].clone()))
        .collect()
}

/// The WBL series as WDI publishes them: API code, title, release, cells (report year as the date). The
/// API's `indicator.value` was not sampled: the catalog's English name (`data/metrics/wbl.csv`) stands
/// in for it.
fn wbl_series(sources_dir: &Path) -> Vec<(String, String, String, Vec<Cell>)> {
    let (headers, rows) =
        read_csv(&sources_dir.join("wb_women_business_law/wbl_index_lac_1971-2021.csv"));
    let (names_headers, names_rows) =
        read_csv(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/metrics/wbl.csv"));
    let (raw_key, name_en) = (
        column(&names_headers, "raw_key"),
        column(&names_headers, "name_en"),
    );
    let wbl_names: BTreeMap<String, String> = names_rows
        .into_iter()
        .map(|row| (row[raw_key].clone(), row[name_en].clone()))
        .collect();
    let (economy, iso3, year) = (
        column(&headers, "economy"),
        column(&headers, "iso3"),
        column(&headers, "report_year"),
    );
    WBL_API_CODES
        .iter()
        .map(|(raw_column, api_code)| {
            let value = column(&headers, raw_column);
            let cells = rows
                .iter()
                .map(|row| {
                    (
                        row[iso3].clone(),
                        row[economy].clone(),
                        row[year].parse().unwrap(),
                        row[value].clone(),
                    )
                })
                .collect();
            let title = wbl_names
                .get(*raw_column)
                .cloned()
                .unwrap_or_else(|| api_code.to_string());
            (api_code.to_string(), title, "2022-01-10".to_string(), cells)
        })
        .collect()
}

/// The staged WBL column of each WDI code (`data/sources/wbl.toml` `[refresh.connector] api_codes`).
pub const WBL_API_CODES: [(&str, &str); 9] = [
    ("wbl_index", "SG.LAW.INDX"),
    ("mobility", "SG.LAW.INDX.MO"),
    ("workplace", "SG.LAW.INDX.WP"),
    ("pay", "SG.LAW.INDX.PY"),
    ("marriage", "SG.LAW.INDX.MR"),
    ("parenthood", "SG.LAW.INDX.PR"),
    ("entrepreneurship", "SG.LAW.INDX.EN"),
    ("assets", "SG.LAW.INDX.AS"),
    ("pension", "SG.LAW.INDX.PN"),
];

/// The seven WDI extract series: code, title (the file's `indicator_name`), release of its file, cells.
fn extract_series(sources_dir: &Path) -> Vec<(String, String, String, Vec<Cell>)> {
    let folder = sources_dir.join("wdi_extracts_2024-10_2025-01");
    let mut series: BTreeMap<String, (String, String, Vec<Cell>)> = BTreeMap::new();
    for (file, release) in [
        ("wdi_poverty_topic_2024-10-24.latam.csv", "2024-10-24"),
        (
            "wdi_electricity_access_databank_2025-01-28.latam.csv",
            "2025-01-28",
        ),
    ] {
        let (headers, rows) = read_csv(&folder.join(file));
        let at = |name: &str| column(&headers, name);
        let (name, code, title, indicator, year, value) = (
            at("country_name"),
            at("country_code"),
            at("indicator_name"),
            at("indicator_code"),
            at("year"),
            at("value"),
        );
        for row in rows {
            series
                .entry(row[indicator].clone())
                .or_insert_with(|| (row[title].clone(), release.to_string(), Vec::new()))
                .2
                .push((
                    row[code].clone(),
                    row[name].clone(),
                    row[year].parse().unwrap(),
                    row[value].clone(),
                ));
        }
    }
    series
        .into_iter()
        .map(|(code, (title, release, cells))| (code, title, release, cells))
        .collect()
}

/// One API v2 page holding a whole series: per economy, newest year first, from its last year down to
/// its first, `null` where the staged file has no value.
fn api_page(
    code: &str,
    title: &str,
    release: &str,
    cells: &[Cell],
    iso2: &BTreeMap<String, String>,
) -> Vec<u8> {
    let mut by_country: BTreeMap<&str, (&str, BTreeMap<i32, &str>)> = BTreeMap::new();
    for (iso3, name, year, value) in cells {
        by_country
            .entry(iso3)
            .or_insert((name, BTreeMap::new()))
            .1
            .insert(*year, value);
    }
    let mut records = Vec::new();
    for (iso3, (name, values)) in &by_country {
        let (first, last) = (
            *values.keys().next().unwrap(),
            *values.keys().next_back().unwrap(),
        );
        for year in (first..=last).rev() {
            let value = match values.get(&year) {
                Some(value) => serde_json::Value::Number(
                    serde_json::Number::from_f64(value.parse().unwrap()).unwrap(),
                ),
                None => serde_json::Value::Null,
            };
            records.push(serde_json::json!({
                "indicator": {"id": code, "value": title},
                "country": {"id": iso2.get(*iso3).map_or(*iso3, String::as_str), "value": name},
                "countryiso3code": iso3,
                "date": year.to_string(),
                "value": value,
                "unit": "",
                "obs_status": "",
                "decimal": 1,
            }));
        }
    }
    let page_info = serde_json::json!({
        "page": 1, "pages": 1, "per_page": 20000, "total": records.len(),
        "sourceid": "2", "lastupdated": release,
    });
    serde_json::to_vec(&serde_json::json!([page_info, records])).unwrap()
}

/// The World Bank's sources fetched from the loopback World Bank and baked: each value read through the
/// publisher-native connectors (bulk `WDICSV.csv`, `WGIData.csv` with its attribute rows, API JSON pages)
/// equals the staged bake's, same country and year; the fetched sources cite the fetch's dates, and the
/// API series their own `lastupdated`.
#[test]
fn world_bank_sources_refreshed_from_the_publisher_agree_with_the_staged_bake() {
    let staged = &real().corpus;
    let setup = PublisherSetup::project(routes(&crate::support::real_sources()));
    let sources = [
        "wdi",
        "wdi_metadata",
        "wgi",
        "wbl",
        "wdi_extracts_poverty",
        "wdi_extracts_electricity",
    ];
    let printed = setup.fetch_ok(&sources);
    assert!(printed.contains("publisher/WDICSV.csv"), "{printed}");
    let out = tempfile::tempdir().unwrap();
    let refreshed = setup.bake(out.path());
    // (citation id, vintage the refreshed bake cites), read from the staged files by hand:
    // wdi/indicators/sp.dyn.le00.in/data.csv MEX 2020; wgi ARG cc 2022 (-0.45 staged, rendered as served);
    // WBL PER 2021 = 95; the two extract releases.
    let checks = [
        ("wb-sp-dyn-le00-in-mex-2020", LAST_MODIFIED_ISO),
        ("wb-ny-gdp-mktp-cd-bra-2022", LAST_MODIFIED_ISO),
        ("wgi-cc-est-arg-2022", LAST_MODIFIED_ISO),
        ("wbl-wbl-index-per-2021", "2022-01-10"),
        ("wb-si-pov-lmic-arg-2022", "2024-10-24"),
        ("wb-eg-elc-accs-ru-zs-bol-2022", "2025-01-28"),
    ];
    for (citation_id, vintage) in checks {
        let before = staged
            .resolve_citation(citation_id)
            .unwrap_or_else(|error| panic!("staged: {error}"));
        let after = refreshed
            .resolve_citation(citation_id)
            .unwrap_or_else(|error| panic!("refreshed: {error}"));
        assert_eq!(
            (after.country.as_ref(), after.year, after.value),
            (before.country.as_ref(), before.year, before.value),
            "{citation_id}"
        );
        assert_eq!(after.vintage, vintage, "{citation_id}");
    }
    assert_eq!(
        refreshed
            .resolve_citation("wbl-wbl-index-per-2021")
            .unwrap()
            .value,
        95.0
    );
    // WGI's attributes come from their own rows of WGIData.csv.
    let attributes = |corpus: &corpus::BakedCorpus| {
        let observation = corpus.observations().find("cc_est", "ARG", 2022).unwrap();
        (
            observation.value,
            observation.standard_error,
            observation.source_count,
        )
    };
    assert_eq!(attributes(&refreshed), attributes(staged));
    assert_eq!(attributes(staged), (-0.45, Some(0.16), Some(11)));
    // The same indicators and observations per source, read either way.
    for indicator in [
        "sp_dyn_le00_in",
        "cc_est",
        "wbl_index",
        "si_pov_umic",
        "eg_elc_accs_ur_zs",
    ] {
        let count =
            |corpus: &corpus::BakedCorpus| corpus.observations().indicator_rows(indicator).len();
        assert_eq!(count(&refreshed), count(staged), "{indicator}");
    }
}
