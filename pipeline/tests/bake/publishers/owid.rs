//! Our World in Data and the Global Carbon Project as the loopback publisher plays them: for every
//! refresh URL of the OWID sources and `gcb_fossil_co2`, the bytes the publisher would serve, built from
//! the STAGED data laid out in the publisher's own format.
//!
//! - Grapher charts (`ourworldindata.org/grapher/<slug>.csv`): the staged files are grapher downloads
//!   already and are served as they are; `ghg-emissions-by-gas` is served with the short column names
//!   its real metadata states (`useColumnShortNames=true`: `entity,code,year,<shortName>…`), and the
//!   legacy sets without a `Code` column (Fariss, World Prison Brief) are laid out as grapher CSVs with
//!   the ISO3 code of each staged name or code.
//! - Metadata (`…/<slug>.metadata.json`): the real file where it is staged (PIP extreme poverty,
//!   ghg-emissions-by-gas, co-emissions-per-capita), else rendered from the CSV's own header only
//!   (title = the column title, the chart's URL; no `lastUpdated`, no `dateDownloaded`, no short name:
//!   nothing the staged files do not state).
//! - owid-co2-data (`owid-public.owid.io/data/co2/owid-co2-data.csv`): the staged per-capita chart laid
//!   out as the dataset's `country,year,iso_code,co2_per_capita`.
//! - GCB (`zenodo.org/…/GCB2025v15_MtCO2_flat.csv`): the staged territorial series (MtC) laid out as the
//!   flat CSV, CRLF, quoted text, in MtCO2: each value × 3.664, written as the bake's own unit
//!   conversion writes it, so the publisher-native path and the staged path must agree to the digit.

use std::path::Path;

use pipeline::ingest::scaled::scaled_cell;

/// A chart slug, the source it belongs to, and its staged CSV (relative to the sources directory).
struct Chart {
    /// Grapher slug.
    slug: &'static str,
    /// Staged file, in grapher layout unless `layout` says otherwise.
    staged: &'static str,
    /// How the staged file becomes the publisher's CSV.
    layout: Layout,
    /// The real `.metadata.json`, where one is staged.
    metadata: Option<&'static str>,
}

/// How a staged file is laid out as the publisher's CSV.
#[derive(Clone, Copy)]
enum Layout {
    /// Already a grapher download: served as staged.
    Grapher,
    /// A grapher download, served with the metadata's short names as headers.
    ShortNames,
    /// `Entity,Year,<value>` (OWID legacy sets): the `Code` column added from the country names.
    LegacyNames,
    /// `iso3,entity,year,<value>` (World Prison Brief extract): laid out as `Entity,Code,Year,<title>`.
    IsoFirst(&'static str),
}

const CHARTS: &[Chart] = &[
    Chart {
        slug: "electoral-democracy-index",
        staged: "owid_vdem_2026/electoral-democracy-index.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "liberal-democracy-index",
        staged: "owid_vdem_2026/liberal-democracy-index.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "freedom-of-expression-index",
        staged: "owid_vdem_2026/freedom-of-expression-index.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "human-rights-index-vdem",
        staged: "owid_vdem_2026/human-rights-index-vdem.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "rule-of-law-index",
        staged: "owid_vdem_2026/rule-of-law-index.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "political-regime",
        staged: "owid_vdem_2026/political-regime.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "deaths-in-armed-conflicts",
        staged: "owid_ucdp_conflict_deaths_2026/deaths-in-armed-conflicts.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "share-electricity-renewables",
        staged: "owid_ember_electricity_2026/share-electricity-renewables.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "share-electricity-solar",
        staged: "owid_ember_electricity_2026/share-electricity-solar.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "share-electricity-wind",
        staged: "owid_ember_electricity_2026/share-electricity-wind.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "carbon-intensity-electricity",
        staged: "owid_ember_electricity_2026/carbon-intensity-electricity.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "electricity-generation",
        staged: "owid_ember_electricity_2026/electricity-generation.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "homicide-rate-unodc",
        staged: "owid_unodc_homicide_2026/homicide-rate-unodc.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "share-of-population-in-extreme-poverty",
        staged: "owid_pip_poverty_inequality_2025/share-of-population-in-extreme-poverty.latam.csv",
        layout: Layout::Grapher,
        metadata: Some(
            "owid_pip_poverty_inequality_2025/share-of-population-in-extreme-poverty.metadata.json",
        ),
    },
    Chart {
        slug: "economic-inequality-gini-index",
        staged: "owid_pip_poverty_inequality_2025/economic-inequality-gini-index.latam.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "ghg-emissions-by-gas",
        staged: "owid_co2_ghg/owid_ghg_by_gas_incl_lulucf_jones2024_lac.csv",
        layout: Layout::ShortNames,
        metadata: Some("owid_co2_ghg/ghg-emissions-by-gas.metadata.json"),
    },
    Chart {
        slug: "total-ghg-emissions",
        staged: "owid_co2_ghg/owid_total_ghg_incl_lulucf_jones2024_lac.csv",
        layout: Layout::Grapher,
        metadata: None,
    },
    Chart {
        slug: "human-rights-protection",
        staged: "owid_datasets/fariss_human_rights_protection/fariss_human_rights_protection.latam.csv",
        layout: Layout::LegacyNames,
        metadata: None,
    },
    Chart {
        slug: "prison-population-rate",
        staged: "world_prison_brief_owid/wpb_prison_population_rate_lac_2018.csv",
        layout: Layout::IsoFirst("Prison population rate"),
        metadata: None,
    },
];

/// The query every grapher download URL of the catalog carries.
const GRAPHER_QUERY: &str = "v=1&csvType=full&useColumnShortNames=true";
/// The owid-co2-data URL (without scheme).
pub const CO2_DATA: &str = "owid-public.owid.io/data/co2/owid-co2-data.csv";
/// The GCB flat CSV URL (without scheme), as declared.
pub const GCB_FLAT: &str = "zenodo.org/records/17417124/files/GCB2025v15_MtCO2_flat.csv?download=1";

/// Every refresh URL of the OWID sources and `gcb_fossil_co2` (as `HOST/PATH?QUERY`, exactly as the
/// catalog declares it) with the bytes the publisher would serve, built from `sources_dir`.
pub fn routes(sources_dir: &Path) -> Vec<(String, Vec<u8>)> {
    let read = |path: &str| {
        std::fs::read(sources_dir.join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
    };
    let names = country_names(sources_dir);
    let mut routes = Vec::new();
    for chart in CHARTS {
        let staged = read(chart.staged);
        let real_metadata = chart.metadata.map(read);
        let csv = match chart.layout {
            Layout::Grapher => staged,
            Layout::ShortNames => with_short_names(&staged, real_metadata.as_deref().unwrap()),
            Layout::LegacyNames => with_codes(&staged, &names),
            Layout::IsoFirst(title) => iso_first_as_grapher(&staged, title),
        };
        let metadata = real_metadata.unwrap_or_else(|| rendered_metadata(chart.slug, &csv));
        routes.push((
            format!(
                "ourworldindata.org/grapher/{}.csv?{GRAPHER_QUERY}",
                chart.slug
            ),
            csv,
        ));
        routes.push((
            format!(
                "ourworldindata.org/grapher/{}.metadata.json?{GRAPHER_QUERY}",
                chart.slug
            ),
            metadata,
        ));
    }
    routes.push((
        CO2_DATA.to_string(),
        co2_data(&read("owid_co2_ghg/owid_co2_per_capita_gcb2024_lac.csv")),
    ));
    routes.push((
        GCB_FLAT.to_string(),
        gcb_flat(&read(
            "gcb_national_fossil_co2/gcb_national_fossil_co2_lac_2025v0.3.csv",
        )),
    ));
    routes
}

/// Header and records of a CSV.
fn parse(bytes: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_reader(bytes);
    let headers = reader.headers().unwrap().iter().map(String::from).collect();
    let records = reader
        .records()
        .map(|record| record.unwrap().iter().map(String::from).collect())
        .collect();
    (headers, records)
}

fn write(headers: &[String], records: &[Vec<String>], terminator: csv::Terminator) -> Vec<u8> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(terminator)
        .from_writer(Vec::new());
    writer.write_record(headers).unwrap();
    for record in records {
        writer.write_record(record).unwrap();
    }
    writer.into_inner().unwrap()
}

/// The grapher CSV with `entity,code,year` and each value column renamed to its metadata `shortName`.
fn with_short_names(staged: &[u8], metadata: &[u8]) -> Vec<u8> {
    let metadata: serde_json::Value = serde_json::from_slice(metadata).unwrap();
    let (headers, records) = parse(staged);
    let renamed: Vec<String> = headers
        .iter()
        .map(|header| match header.as_str() {
            "Entity" | "Code" | "Year" => header.to_ascii_lowercase(),
            _ => metadata["columns"][header]["shortName"]
                .as_str()
                .unwrap_or_else(|| panic!("no shortName for `{header}` in the staged metadata"))
                .to_string(),
        })
        .collect();
    write(&renamed, &records, csv::Terminator::Any(b'\n'))
}

/// English name (and alias) → ISO3 code, from the staged country list.
fn country_names(sources_dir: &Path) -> std::collections::HashMap<String, String> {
    let (headers, records) =
        parse(&std::fs::read(sources_dir.join("country_names/latam_country_names.csv")).unwrap());
    let column = |name: &str| headers.iter().position(|header| header == name).unwrap();
    let (iso3, name_en, aliases) = (column("iso3"), column("name_en"), column("aliases"));
    let mut names = std::collections::HashMap::new();
    for record in records {
        names.insert(record[name_en].clone(), record[iso3].clone());
        for alias in record[aliases].split('|').filter(|alias| !alias.is_empty()) {
            names.insert(alias.trim().to_string(), record[iso3].clone());
        }
    }
    names.insert("World".into(), "OWID_WRL".into());
    names
}

/// `Entity,Year,<value>` laid out as `Entity,Code,Year,<value>`, the code from the country names
/// (empty for a name that is not a LAC country, as OWID leaves regions without a code).
fn with_codes(staged: &[u8], names: &std::collections::HashMap<String, String>) -> Vec<u8> {
    let (headers, records) = parse(staged);
    assert_eq!(&headers[..2], ["Entity", "Year"]);
    let mut out_headers = vec!["Entity".to_string(), "Code".to_string()];
    out_headers.extend(headers[1..].iter().cloned());
    let out: Vec<Vec<String>> = records
        .into_iter()
        .map(|record| {
            let mut cells = vec![
                record[0].clone(),
                names.get(&record[0]).cloned().unwrap_or_default(),
            ];
            cells.extend(record[1..].iter().cloned());
            cells
        })
        .collect();
    write(&out_headers, &out, csv::Terminator::Any(b'\n'))
}

/// `iso3,entity,year,<value>` laid out as `Entity,Code,Year,<title>`.
fn iso_first_as_grapher(staged: &[u8], title: &str) -> Vec<u8> {
    let (_, records) = parse(staged);
    let headers = ["Entity", "Code", "Year", title].map(String::from);
    let out: Vec<Vec<String>> = records
        .into_iter()
        .map(|record| {
            vec![
                record[1].clone(),
                record[0].clone(),
                record[2].clone(),
                record[3].clone(),
            ]
        })
        .collect();
    write(&headers, &out, csv::Terminator::Any(b'\n'))
}

/// A metadata JSON stating only what the CSV states: each value column's title, and the chart's URL.
fn rendered_metadata(slug: &str, csv: &[u8]) -> Vec<u8> {
    let (headers, _) = parse(csv);
    let columns: serde_json::Map<String, serde_json::Value> = headers
        .iter()
        .skip(3)
        .map(|header| {
            let kind = if header.ends_with("-annotations") {
                "SeriesAnnotation"
            } else if header.starts_with("World region") {
                "Continent"
            } else {
                "Numeric"
            };
            (
                header.clone(),
                serde_json::json!({"titleShort": header, "titleLong": header, "type": kind}),
            )
        })
        .collect();
    serde_json::to_vec_pretty(&serde_json::json!({
        "chart": {"originalChartUrl": format!("https://ourworldindata.org/grapher/{slug}")},
        "columns": columns,
    }))
    .unwrap()
}

/// The staged per-capita chart as owid-co2-data: `country,year,iso_code,co2_per_capita`.
fn co2_data(staged: &[u8]) -> Vec<u8> {
    let (headers, records) = parse(staged);
    assert_eq!(
        headers,
        [
            "Entity",
            "Code",
            "Year",
            "Annual CO₂ emissions (per capita)"
        ]
    );
    let out: Vec<Vec<String>> = records
        .into_iter()
        .map(|record| {
            vec![
                record[0].clone(),
                record[2].clone(),
                record[1].clone(),
                record[3].clone(),
            ]
        })
        .collect();
    let headers = ["country", "year", "iso_code", "co2_per_capita"].map(String::from);
    write(&headers, &out, csv::Terminator::Any(b'\n'))
}

/// The staged territorial series (MtC) as the GCP flat CSV (MtCO2 = MtC × 3.664): `"Country","ISO
/// 3166-1 alpha-3","UN M49","Year","Total"`, text quoted, CRLF; the aggregates the staged file keeps
/// without an ISO code keep none (as the flat file leaves historical entities).
fn gcb_flat(staged: &[u8]) -> Vec<u8> {
    let (headers, records) = parse(staged);
    assert_eq!(
        headers,
        ["series", "iso3", "gcb_country", "year", "value_MtC"]
    );
    let mut out = b"\"Country\",\"ISO 3166-1 alpha-3\",\"UN M49\",\"Year\",\"Total\"\r\n".to_vec();
    for record in records.iter().filter(|record| record[0] == "territorial") {
        let total = scaled_cell(&record[4], 3.664, &[]);
        out.extend_from_slice(
            format!(
                "\"{}\",\"{}\",,{},{total}\r\n",
                record[2].replace('"', "\"\""),
                record[1],
                record[3]
            )
            .as_bytes(),
        );
    }
    out
}

/// The sources these routes refresh.
const SOURCES: [&str; 11] = [
    "owid_vdem",
    "owid_ucdp_2026",
    "owid_ember",
    "owid_unodc",
    "owid_pip",
    "owid_co2",
    "owid_ghg_gas",
    "owid_ghg_total",
    "owid_fariss",
    "wpb",
    "gcb_fossil_co2",
];

#[test]
fn every_refresh_url_of_these_sources_has_a_route() {
    let catalog = pipeline::sources::Catalog::load(&crate::support::project_catalog()).unwrap();
    let served: std::collections::BTreeSet<String> = routes(&crate::support::real_sources())
        .into_iter()
        .map(|(target, _)| target)
        .collect();
    for id in SOURCES {
        let refresh = catalog.source(id).unwrap().refresh.as_ref().unwrap();
        for file in &refresh.files {
            let target = file.url.strip_prefix("https://").unwrap();
            assert!(served.contains(target), "{id}: no route for {target}");
        }
    }
}

/// The publisher-native path and the staged path agree: every OWID source and GCB fetched from the
/// loopback publisher (grapher CSVs, short names through the metadata, owid-co2-data, the GCP flat CSV
/// in MtCO2) bakes the same value for the same country and year as the staged extracts.
#[test]
fn refreshed_from_their_publishers_the_owid_and_gcb_sources_bake_the_staged_values() {
    let setup = super::PublisherSetup::project(routes(&crate::support::real_sources()));
    let printed = setup.fetch_ok(&SOURCES);
    assert!(printed.contains("publisher/owid-co2-data.csv"), "{printed}");
    let out = tempfile::tempdir().unwrap();
    let refreshed = setup.bake(out.path());
    let staged = &crate::support::real().corpus;
    let cases: [(&str, &str, i32); 14] = [
        ("v2x_polyarchy", "BRA", 2024),
        ("v2x_regime", "CHL", 1980),
        ("ucdp_conflict_deaths", "COL", 2024),
        ("ucdp_conflict_deaths_low", "HTI", 2025),
        ("renewables_share_elec", "BRA", 2024),
        ("carbon_intensity_elec", "MEX", 2025),
        ("unodc_homicide_rate", "BRA", 2023),
        ("pip_gini", "BRA", 2023),
        ("pip_headcount_ratio_300_ppp2021", "BRA", 2023),
        ("co2_per_capita", "ARG", 2019),
        ("ghg_ch4", "BRA", 2020),
        ("ghg_total_incl_luc", "BRA", 2023),
        ("fariss_hrp", "CHL", 2019),
        // GCB: staged MtC × 3.664 against the flat CSV's MtCO2 read as published.
        ("co2_territorial", "BRA", 2020),
    ];
    for (indicator, iso3, year) in cases {
        let value = |corpus: &corpus::BakedCorpus| {
            corpus
                .observations()
                .find(indicator, iso3, year)
                .unwrap_or_else(|| panic!("{indicator} {iso3} {year}"))
                .value
        };
        assert_eq!(
            value(&refreshed),
            value(staged),
            "{indicator} {iso3} {year}"
        );
    }
    // gcb_national_fossil_co2_lac_2025v0.3.csv: territorial,BRA,Brazil,2020,122.270573306436 (MtC).
    let territorial = refreshed
        .observations()
        .find("co2_territorial", "BRA", 2020)
        .unwrap();
    assert!((territorial.value - 122.270573306436 * 3.664).abs() < 1e-9);
    // A fetched source is cited with the fetch's dates, unless its own file states the series' release.
    let vdem = refreshed
        .resolve_citation("vdem-v2x-polyarchy-bra-2024")
        .unwrap();
    assert_eq!(vdem.vintage.to_string(), super::LAST_MODIFIED_ISO);
    let poverty = refreshed
        .resolve_citation("pip-pip-headcount-ratio-300-ppp2021-bra-2023")
        .unwrap();
    assert_eq!(
        poverty.vintage.to_string(),
        "World Bank Poverty and Inequality Platform (2025), OWID 2025-06-05"
    );
    // The flat file carries territorial emissions only: consumption-based emissions are not refreshed.
    assert!(refreshed.metric("co2_consumption").is_none());
    assert!(staged.metric("co2_consumption").is_some());
}
