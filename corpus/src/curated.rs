//! The curated record datasets, one typed home each: [`RecordDataset`] names every record-level
//! dataset of the corpus (projects, laws, institutions, financing records, events) with its artifact file,
//! the prefixes and an example of its records' citation ids, and its entry in the dataset catalog (title,
//! description, keys, columns, sources, licence). The bake, the exports, the download catalog, the search
//! index, the server's loader, `resolve_citations` and the tools iterate [`RecordDataset::ALL`] and match
//! on the enum exhaustively, so a new curated dataset is a compile error wherever it must be handled;
//! outside this file no curated dataset's id is written as a string (a test below holds that).
//!
//! Each record type names its dataset through [`crate::CitedRecord::DATASET`].

use serde::{Deserialize, Serialize};

use crate::{Dataset, DatasetColumn, layout};

/// One curated, record-level dataset of the corpus. Its serialized form is its id (`projects`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordDataset {
    /// Development projects (World Bank Projects & Operations; GEF in a private bake): [`crate::Project`],
    /// `projects.json`.
    Projects,
    /// Climate laws and policies (Climate Change Laws of the World): [`crate::Law`], `regulation.json`.
    Regulation,
    /// Public bodies and their roles: [`crate::Institution`], `institutions.json`.
    Institutions,
    /// Financing flows and instruments per recipient: [`crate::FinancingRecord`], `financing.json`.
    Financing,
    /// Dated events made from the records: [`crate::Event`], `events.json`.
    Events,
}

/// How a curated record's source asks to be credited, declared once per source in `record_sources.json`
/// ([`crate::layout::RECORD_SOURCES`]): a record keeps its source id, its page and its own dates, and
/// takes publisher, licence and attribution from here ([`crate::CitedRecord::fill_provenance`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordSource {
    /// Source id (`wb_projects`; an indicator source's id for a data-release event, `wdi`).
    pub id: String,
    /// Publisher (`The World Bank`).
    pub publisher: String,
    /// Licence id (`CC-BY-4.0`).
    pub license: String,
    /// How the publisher asks to be credited.
    pub attribution: String,
}

/// One citation-id prefix of a curated dataset's records, with a real id of the default corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CitationPrefix {
    /// The prefix, dash included (`wbproj-`).
    pub prefix: &'static str,
    /// An id of that prefix the default corpus holds (`wbproj-p127837`).
    pub example: &'static str,
}

impl RecordDataset {
    /// Every curated dataset, in the catalog's order.
    pub const ALL: [RecordDataset; 5] = [
        RecordDataset::Projects,
        RecordDataset::Regulation,
        RecordDataset::Institutions,
        RecordDataset::Financing,
        RecordDataset::Events,
    ];

    /// Every curated dataset's id, in the order of [`RecordDataset::ALL`].
    pub const IDS: [&'static str; 5] = [
        RecordDataset::Projects.id(),
        RecordDataset::Regulation.id(),
        RecordDataset::Institutions.id(),
        RecordDataset::Financing.id(),
        RecordDataset::Events.id(),
    ];

    /// The dataset id of `datasets.json`, `get_dataset` and the index (`projects`).
    pub const fn id(self) -> &'static str {
        match self {
            RecordDataset::Projects => "projects",
            RecordDataset::Regulation => "regulation",
            RecordDataset::Institutions => "institutions",
            RecordDataset::Financing => "financing",
            RecordDataset::Events => "events",
        }
    }

    /// The curated dataset whose id is exactly `id`, if any.
    pub fn from_id(id: &str) -> Option<RecordDataset> {
        RecordDataset::ALL
            .into_iter()
            .find(|dataset| dataset.id() == id)
    }

    /// The artifact file of the corpus directory that holds its records (`projects.json`).
    pub const fn artifact(self) -> &'static str {
        match self {
            RecordDataset::Projects => layout::PROJECTS,
            RecordDataset::Regulation => layout::REGULATION,
            RecordDataset::Institutions => layout::INSTITUTIONS,
            RecordDataset::Financing => layout::FINANCING,
            RecordDataset::Events => layout::EVENTS,
        }
    }

    /// The prefixes of its records' citation ids, each with an example id.
    pub const fn citation_prefixes(self) -> &'static [CitationPrefix] {
        match self {
            RecordDataset::Projects => &[
                CitationPrefix {
                    prefix: "wbproj-",
                    example: "wbproj-p127837",
                },
                CitationPrefix {
                    prefix: "gef-",
                    example: "gef-10450",
                },
            ],
            RecordDataset::Regulation => &[CitationPrefix {
                prefix: "cclw-",
                example: "cclw-arg-law-25-019-declaring-a-national-interest-to",
            }],
            RecordDataset::Institutions => &[
                CitationPrefix {
                    prefix: "nso-",
                    example: "nso-ar-nso-indec",
                },
                CitationPrefix {
                    prefix: "govdir-",
                    example: "govdir-q9149472",
                },
                CitationPrefix {
                    prefix: "wbagency-",
                    example: "wbagency-arg-national-ministry-of-health",
                },
            ],
            RecordDataset::Financing => &[
                CitationPrefix {
                    prefix: "crsflow-",
                    example: "crsflow-bol-germany-oda-grants-energy",
                },
                CitationPrefix {
                    prefix: "wbinstrument-",
                    example: "wbinstrument-bol-ipf-energia",
                },
                CitationPrefix {
                    prefix: "geffund-",
                    example: "geffund-bol-gef-trust-fund-medio-ambiente",
                },
            ],
            RecordDataset::Events => &[
                CitationPrefix {
                    prefix: "event-",
                    example: "event-wbproj-p127837-approved",
                },
                CitationPrefix {
                    prefix: "ncei_eq-",
                    example: "ncei_eq-2016-04-16-ecu",
                },
            ],
        }
    }

    /// The curated dataset and prefix of a record citation id (`wbproj-p127837` → projects), if the id
    /// starts with a record prefix.
    pub fn of_citation_id(citation_id: &str) -> Option<(RecordDataset, CitationPrefix)> {
        RecordDataset::ALL.into_iter().find_map(|dataset| {
            dataset
                .citation_prefixes()
                .iter()
                .find(|prefix| citation_id.starts_with(prefix.prefix))
                .map(|prefix| (dataset, *prefix))
        })
    }

    /// Its catalog title and description (what it holds, from which exports).
    pub const fn title_and_description(self) -> (&'static str, &'static str) {
        match self {
            RecordDataset::Projects => (
                "Curated: World Bank projects in Latin America and the Caribbean",
                "Development projects from the World Bank's Projects & Operations list (two exports: the newer decides status, dates and amounts it reports, and the older fills what the newer leaves blank, named in `from_older_export`; the older gives sectors and themes and the projects only it lists; status as of the export in `retrieved_at`): P-code, title, country (ISO3; multi-country operations keep their region label and no country), status and last stage reached, approval and closing dates, cost, the World Bank's lending commitment (IBRD + IDA) and the grant apart in current US$ (empty when not reported; the newer export's total, which adds the grant, is not used), financing type, lending instrument and family (IPF, DPF, PforR), implementing agency, borrower, environmental category and risk, sectors and themes with the pillars they map to (reviewed mapping; for a project the exports list without sector, the pillars of reviewed title words, `pillar_basis` title), development objective, link and citation id; publisher inconsistencies (active past its closing date, closing before approval, commitment above cost) flagged in `inconsistencies`.",
            ),
            RecordDataset::Regulation => (
                "Curated: climate laws and policies of Latin America and the Caribbean",
                "Laws (legislative) and policies (executive) from Climate Change Laws of the World (LSE Grantham Research Institute, export of 2021-01-30): title, country (ISO3), type, document types, first and last event dates and every dated event, sectors with the pillars they map to (reviewed mapping), responses (mitigation, adaptation, disaster risk management), summary, the first document link as published (links of the 2021 export may have moved) and citation id.",
            ),
            RecordDataset::Institutions => (
                "Curated: public bodies of Latin America and the Caribbean and their roles",
                "Institutions only, no person named: national statistics offices and open-data portals (agency registry, from Wikidata, CC0), public bodies of Chile, Cuba, Peru and Uruguay (Govdirectory, from Wikidata, CC0; pillars from reviewed name keywords) and the bodies implementing World Bank projects (derived from the World Bank project list, CC BY 4.0; one record per body, its other spellings in `aliases`; pillars, active projects, commitments and grants summed from its approved projects).",
            ),
            RecordDataset::Financing => (
                "Curated: financing instruments and flows per recipient",
                "OECD CRS climate-related disbursements (Rio markers significant or principal, the full disbursement counted: an upper bound) per recipient × donor × flow type × sector group, with first and last year, the latest year at current prices and the total at constant prices; and, per country and pillar, the World Bank instrument families (IPF, DPF, PforR) its approved projects used, with those projects, their IBRD + IDA commitments and their grants summed apart (current US$, nominal); Pipeline projects are listed apart and in no sum, dropped ones left out. The CRS figures cannot tell adaptation from mitigation (either marker counts), and donors outside the CRS (China among them) are absent. GEF trust funds (kind trust_fund) appear only in a private bake that admits the GEF's terms.",
            ),
            RecordDataset::Events => (
                "Curated: dated events from the corpus' records (what get_news serves)",
                "Dated items made from the records themselves, never press news: World Bank project approvals and closings, laws passed and policies adopted or amended (Climate Change Laws of the World, to its export of 2021-01-30), significant earthquakes (NOAA NCEI/WDS, to June 2023, with magnitude, deaths, damage and houses destroyed) and the source releases in the corpus. Each event is its own citation and names the record it comes from and why it matters to its pillars.",
            ),
        }
    }

    /// Its catalog keys, the source ids its records come from, and their licence.
    pub const fn keys_sources_license(
        self,
    ) -> (
        &'static [&'static str],
        &'static [&'static str],
        &'static str,
    ) {
        match self {
            RecordDataset::Projects => (&["id"], &["wb_projects"], "CC-BY-4.0"),
            RecordDataset::Regulation => (&["citation_id"], &["cclw_laws"], "CC-BY-4.0"),
            RecordDataset::Institutions => (
                &["citation_id"],
                &[
                    "gov_nso_registry",
                    "govdirectory",
                    "wb_implementing_agencies",
                ],
                "CC0-1.0, CC-BY-4.0 (per record)",
            ),
            RecordDataset::Financing => (
                &["citation_id"],
                &["oecd_crs_flows", "wb_projects"],
                "CC-BY-4.0",
            ),
            RecordDataset::Events => (
                &["citation_id"],
                &["wb_projects", "cclw_laws", "ncei_earthquakes"],
                "CC-BY-4.0, US-Gov-PD (per record)",
            ),
        }
    }

    /// Its catalog columns: name, type and what each holds.
    pub const fn columns(self) -> &'static [(&'static str, &'static str, &'static str)] {
        match self {
            RecordDataset::Projects => PROJECT_COLUMNS,
            RecordDataset::Regulation => LAW_COLUMNS,
            RecordDataset::Institutions => INSTITUTION_COLUMNS,
            RecordDataset::Financing => FINANCING_COLUMNS,
            RecordDataset::Events => EVENT_COLUMNS,
        }
    }

    /// Its entry in the dataset catalog (`datasets.json`), with `rows` records.
    pub fn catalog_entry(self, rows: u64) -> Dataset {
        let (title, description) = self.title_and_description();
        let (keys, sources, license) = self.keys_sources_license();
        let columns = self.columns();
        Dataset {
            dataset_id: self.id().into(),
            title: title.into(),
            description: description.into(),
            artifacts: vec![self.artifact().into()],
            keys: keys.iter().map(|key| key.to_string()).collect(),
            columns: DatasetColumn::from_specs(columns),
            sources: sources.iter().map(|source| source.to_string()).collect(),
            license: license.into(),
            rows,
        }
    }
}

impl std::fmt::Display for RecordDataset {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.id())
    }
}

/// The catalog columns of [`RecordDataset::Projects`]: name, type, what it holds.
const PROJECT_COLUMNS: &[(&str, &str, &str)] = &[
    ("id", "string", "the World Bank's P-code, e.g. P127837"),
    (
        "country",
        "string",
        "ISO 3166-1 alpha-3; empty for a multi-country operation",
    ),
    ("status", "string", "Active, Pipeline, Closed or Dropped"),
    ("approval_date", "date", "board approval, YYYY-MM-DD"),
    (
        "commitment_usd",
        "float64",
        "World Bank lending commitment (IBRD + IDA; grants apart), current US$",
    ),
    (
        "grant_usd",
        "float64",
        "grant (World Bank or GEF), current US$",
    ),
    ("cost_usd", "float64", "total project cost, current US$"),
    (
        "pillars",
        "array",
        "pillar ids its sectors and themes map to",
    ),
    (
        "citation_id",
        "string",
        "the record's citation id, e.g. wbproj-p127837",
    ),
    (
        "url",
        "string",
        "the project's page at projects.worldbank.org",
    ),
];

/// The catalog columns of [`RecordDataset::Regulation`]: name, type, what it holds.
const LAW_COLUMNS: &[(&str, &str, &str)] = &[
    (
        "citation_id",
        "string",
        "the record's citation id, e.g. cclw-arg-law-25-019-declaring-a-national-interest-to",
    ),
    ("country", "string", "ISO 3166-1 alpha-3"),
    ("kind", "string", "legislative or executive"),
    ("date", "date", "first event (passed, approved), YYYY-MM-DD"),
    ("pillars", "array", "pillar ids its sectors map to"),
    ("url", "string", "the first document link as published"),
];

/// The catalog columns of [`RecordDataset::Institutions`]: name, type, what it holds.
const INSTITUTION_COLUMNS: &[(&str, &str, &str)] = &[
    (
        "citation_id",
        "string",
        "e.g. nso-ar-nso-indec, govdir-q9149472, wbagency-arg-national-ministry-of-health",
    ),
    ("country", "string", "ISO 3166-1 alpha-3"),
    (
        "role",
        "string",
        "national_statistical_office, open_data_portal, public_body or implementing_agency",
    ),
    ("pillars", "array", "pillar ids it acts on"),
    (
        "projects",
        "array",
        "P-codes of the World Bank projects it implements",
    ),
    ("url", "string", "the record's page"),
];

/// The catalog columns of [`RecordDataset::Financing`]: name, type, what it holds.
const FINANCING_COLUMNS: &[(&str, &str, &str)] = &[
    (
        "citation_id",
        "string",
        "e.g. crsflow-bol-germany-oda-grants-energy, wbinstrument-bol-ipf-energia",
    ),
    (
        "kind",
        "string",
        "crs_flow, lending_instrument or trust_fund",
    ),
    ("financier", "string", "CRS donor, World Bank or GEF"),
    (
        "instrument",
        "string",
        "CRS flow type, World Bank family or GEF fund",
    ),
    ("country", "string", "recipient, ISO 3166-1 alpha-3"),
    (
        "total_constant_usd_mn",
        "float64",
        "CRS: disbursements summed over the years, US$ million, constant prices",
    ),
    (
        "committed_usd",
        "float64",
        "projects: IBRD + IDA commitments of approved projects summed, current US$",
    ),
    (
        "grant_usd",
        "float64",
        "projects: grants of approved projects summed, current US$",
    ),
];

/// The catalog columns of [`RecordDataset::Events`]: name, type, what it holds.
const EVENT_COLUMNS: &[(&str, &str, &str)] = &[
    (
        "citation_id",
        "string",
        "e.g. event-wbproj-p127837-approved, ncei_eq-2016-04-16-ecu",
    ),
    (
        "date",
        "string",
        "YYYY-MM-DD (YYYY-MM or YYYY when the source has no day)",
    ),
    (
        "countries",
        "array",
        "ISO 3166-1 alpha-3; empty for a multi-country project; for a release, the countries its source has observations of",
    ),
    (
        "kind",
        "string",
        "project_approved, project_closed, law_passed, policy_adopted, law_amended, earthquake, data_release",
    ),
    ("pillars", "array", "pillar ids it bears on"),
    (
        "record_id",
        "string",
        "citation id of the record it was made from",
    ),
];

#[cfg(test)]
mod tests {
    use super::RecordDataset;

    #[test]
    fn ids_round_trip_and_every_example_has_its_own_prefix() {
        for dataset in RecordDataset::ALL {
            assert_eq!(RecordDataset::from_id(dataset.id()), Some(dataset));
            assert_eq!(
                serde_json::to_value(dataset).unwrap(),
                serde_json::json!(dataset.id())
            );
            for prefix in dataset.citation_prefixes() {
                assert!(prefix.example.starts_with(prefix.prefix));
                assert_eq!(
                    RecordDataset::of_citation_id(prefix.example),
                    Some((dataset, *prefix))
                );
            }
            let entry = dataset.catalog_entry(7);
            assert_eq!((entry.dataset_id.as_str(), entry.rows), (dataset.id(), 7));
            assert_eq!(entry.artifacts, [dataset.artifact()]);
        }
        assert_eq!(RecordDataset::from_id("observations"), None);
        assert_eq!(
            RecordDataset::of_citation_id("wb-sp-dyn-le00-in-mex-2024"),
            None
        );
    }

    /// The invariant of this module: outside it, no source file of the workspace's crates writes a curated
    /// dataset's id as a string literal (they name [`RecordDataset`] instead), so adding a dataset is a
    /// compile error wherever it must be handled rather than a string some `match` silently misses.
    #[test]
    fn no_curated_dataset_id_is_a_string_literal_outside_this_module() {
        let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let this_file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/curated.rs");
        let mut files = Vec::new();
        let mut pending: Vec<std::path::PathBuf> = ["corpus", "pipeline", "server"]
            .iter()
            .map(|krate| workspace.join(krate).join("src"))
            .collect();
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|extension| extension == "rs") {
                    files.push(path);
                }
            }
        }
        assert!(
            files.len() > 50,
            "the crates' sources were not found: {files:?}"
        );
        let this_file = this_file.canonicalize().unwrap();
        // The publishers' readers quote the publishers' own vocabulary (the World Bank API's `"projects"`
        // member), not our dataset ids.
        let publisher_readers = workspace
            .join("pipeline/src/ingest")
            .canonicalize()
            .unwrap();
        let mut found = Vec::new();
        for path in files {
            let path_canonical = path.canonicalize().unwrap();
            if path_canonical == this_file || path_canonical.starts_with(&publisher_readers) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (number, line) in text.lines().enumerate() {
                for id in RecordDataset::IDS {
                    if line.contains(&format!("\"{id}\"")) {
                        found.push(format!("{}:{}: \"{id}\"", path.display(), number + 1));
                    }
                }
            }
        }
        assert!(
            found.is_empty(),
            "curated dataset ids written as strings (name corpus::RecordDataset instead):\n{}",
            found.join("\n")
        );
    }
}
