//! The dataset catalog of a bake (`datasets.json`): what each table holds, its keys and columns.

use corpus::{Dataset, DatasetColumn, Metric, SourceRecord, layout};

/// Counts the catalog needs from the bake.
#[derive(Debug, Clone, Copy)]
pub struct DatasetCounts {
    /// Country observations.
    pub observations: u64,
    /// Comparison-aggregate observations.
    pub aggregates: u64,
    /// Countries and aggregates in `countries.json`.
    pub entities: u64,
    /// Pillars.
    pub pillars: u64,
    /// Concordance rows.
    pub concordance: u64,
    /// Series (indicator, country) with statistics.
    pub series: u64,
    /// Anomalies plus contradictions.
    pub discoveries: u64,
    /// Pillar × country entries of the data health view.
    pub health: u64,
    /// Curated projects.
    pub projects: u64,
    /// Curated laws and policies.
    pub regulation: u64,
    /// Curated public bodies.
    pub institutions: u64,
    /// Curated financing records.
    pub financing: u64,
    /// Curated dated events.
    pub events: u64,
}

/// The catalog of every dataset the bake writes.
pub fn dataset_catalog(
    metrics: &[Metric],
    sources: &[SourceRecord],
    counts: DatasetCounts,
) -> Vec<Dataset> {
    let source_ids: Vec<String> = sources.iter().map(|source| source.id.clone()).collect();
    let license = combined_license(metrics);
    let observation_columns = || {
        columns(&[
            ("indicator", "string", "metric id, e.g. sp_dyn_le00_in"),
            (
                "country",
                "string",
                "ISO 3166-1 alpha-3 code (aggregate code in `aggregates`)",
            ),
            ("year", "int32", "calendar year"),
            (
                "value",
                "float64",
                "value in the metric's unit; missing values are absent rows",
            ),
            ("source", "string", "source id"),
            ("vintage", "string", "release the value comes from"),
            (
                "citation_id",
                "string",
                "citation id, resolvable with resolve_citations",
            ),
            (
                "flags",
                "string",
                "|-separated flags (e.g. projection); empty when none",
            ),
            (
                "standard_error",
                "float64",
                "publisher's standard error, where given (WGI)",
            ),
            (
                "source_count",
                "int32",
                "number of underlying data sources, where given (WGI)",
            ),
        ])
    };
    let observation_keys = || vec!["indicator".to_string(), "country".into(), "year".into()];
    vec![
        Dataset {
            dataset_id: "observations".into(),
            title: "Governed observations, LAC countries".into(),
            description: "One row per indicator, country and year with a value, every value with its citation_id.".into(),
            artifacts: vec![layout::OBSERVATIONS_ARROW.into(), layout::OBSERVATIONS_PARQUET.into()],
            keys: observation_keys(),
            columns: observation_columns(),
            sources: source_ids.clone(),
            license: license.clone(),
            rows: counts.observations,
        },
        Dataset {
            dataset_id: "aggregates".into(),
            title: "Comparison aggregates (LCN, WLD, ...)".into(),
            description: "The publishers' regional and world aggregates, kept for comparison and never counted as countries.".into(),
            artifacts: vec![layout::AGGREGATES_ARROW.into(), layout::AGGREGATES_PARQUET.into()],
            keys: observation_keys(),
            columns: observation_columns(),
            sources: source_ids.clone(),
            license: license.clone(),
            rows: counts.aggregates,
        },
        Dataset {
            dataset_id: "metrics".into(),
            title: "Governed metric registry".into(),
            description: "Every indicator: id, source code, pillar, names in es/en/pt, unit, good_direction, licence, vintage, coverage.".into(),
            artifacts: vec![layout::METRICS.into(), layout::INDEX_DIR.into()],
            keys: vec!["id".into()],
            columns: columns(&[
                ("id", "string", "metric id"),
                ("source_code", "string", "publisher's indicator code"),
                ("pillar", "string", "pillar id"),
                ("names", "object", "names in en/es/pt"),
                ("unit", "string", "unit of the values"),
                ("good_direction", "string", "up, down or neutral"),
                ("coverage", "object", "observations, countries, first and last year"),
            ]),
            sources: source_ids.clone(),
            license: license.clone(),
            rows: metrics.len() as u64,
        },
        Dataset {
            dataset_id: "citations".into(),
            title: "Citation registry".into(),
            description: "Every observation's citation_id resolves to publisher, dataset, title, deep link, year, vintage, retrieval date and licence, derived from the metric and source registries.".into(),
            artifacts: vec![layout::SOURCES.into(), layout::METRICS.into()],
            keys: vec!["citation_id".into()],
            columns: columns(&[
                ("citation_id", "string", "{prefix}-{code}-{iso3}-{year}"),
                ("url", "string", "deep link to the indicator for the country"),
                ("retrieved_at", "string", "retrieval date of the raw file"),
            ]),
            sources: source_ids.clone(),
            license: license.clone(),
            rows: counts.observations + counts.aggregates,
        },
        Dataset {
            dataset_id: "series_stats".into(),
            title: "Derived views: per-series statistics".into(),
            description: "Precomputed per indicator and country: latest value and citation, change between the last two observations, CAGR over 5 and 10 years (only where the scale is ratio: never of a growth rate or an index crossing zero), 10-year least-squares trend with the years it covers (R² null for a flat window); projections excluded from change, growth and trend, which end at the last observation.".into(),
            artifacts: vec![layout::SERIES_STATS.into()],
            keys: vec!["indicator".into(), "country".into()],
            columns: columns(&[
                ("latest_value", "float64", "latest value"),
                ("latest_citation_id", "string", "citation of the latest value"),
                ("change_from_previous", "float64", "last observed minus the previous observed value"),
                ("cagr_5y", "float64", "compound annual growth rate over 5 years, fraction"),
                ("cagr_10y", "float64", "compound annual growth rate over 10 years, fraction"),
                ("trend_slope", "float64", "least-squares slope per year, last 10 years"),
            ]),
            sources: source_ids.clone(),
            license: license.clone(),
            rows: counts.series,
        },
        Dataset {
            dataset_id: "projects".into(),
            title: "Curated: World Bank projects in Latin America and the Caribbean".into(),
            description: "Development projects from the World Bank's Projects & Operations list (two exports: the newer decides status, dates and amounts it reports, and the older fills what the newer leaves blank, named in `from_older_export`; the older gives sectors and themes and the projects only it lists; status as of the export in `retrieved_at`): P-code, title, country (ISO3; multi-country operations keep their region label and no country), status and last stage reached, approval and closing dates, cost, the World Bank's total commitment (IBRD, IDA and grant, as the export sums them) and the grant in current US$ (empty when not reported), financing type, lending instrument and family (IPF, DPF, PforR), implementing agency, borrower, environmental category and risk, sectors and themes with the pillars they map to (reviewed mapping; for a project the exports list without sector, the pillars of reviewed title words, `pillar_basis` title), development objective, link and citation id.".into(),
            artifacts: vec![layout::PROJECTS.into()],
            keys: vec!["id".into()],
            columns: columns(&[
                ("id", "string", "the World Bank's P-code, e.g. P127837"),
                ("country", "string", "ISO 3166-1 alpha-3; empty for a multi-country operation"),
                ("status", "string", "Active, Pipeline, Closed or Dropped"),
                ("approval_date", "date", "board approval, YYYY-MM-DD"),
                ("commitment_usd", "float64", "World Bank total commitment (IBRD + IDA + grant), current US$"),
                ("cost_usd", "float64", "total project cost, current US$"),
                ("pillars", "array", "pillar ids its sectors and themes map to"),
                ("citation_id", "string", "the record's citation id, e.g. wbproj-p127837"),
                ("url", "string", "the project's page at projects.worldbank.org"),
            ]),
            sources: vec!["wb_projects".into()],
            license: "CC-BY-4.0".into(),
            rows: counts.projects,
        },
        Dataset {
            dataset_id: "regulation".into(),
            title: "Curated: climate laws and policies of Latin America and the Caribbean".into(),
            description: "Laws (legislative) and policies (executive) from Climate Change Laws of the World (LSE Grantham Research Institute, export of 2021-01-30): title, country (ISO3), type, document types, first and last event dates and every dated event, sectors with the pillars they map to (reviewed mapping), responses (mitigation, adaptation, disaster risk management), summary, the first document link as published (links of the 2021 export may have moved) and citation id.".into(),
            artifacts: vec![layout::REGULATION.into()],
            keys: vec!["citation_id".into()],
            columns: columns(&[
                ("citation_id", "string", "the record's citation id, e.g. cclw-arg-law-25-019-declaring-a-national-interest-to"),
                ("country", "string", "ISO 3166-1 alpha-3"),
                ("kind", "string", "legislative or executive"),
                ("date", "date", "first event (passed, approved), YYYY-MM-DD"),
                ("pillars", "array", "pillar ids its sectors map to"),
                ("url", "string", "the first document link as published"),
            ]),
            sources: vec!["cclw_laws".into()],
            license: "CC-BY-4.0".into(),
            rows: counts.regulation,
        },
        Dataset {
            dataset_id: "institutions".into(),
            title: "Curated: public bodies of Latin America and the Caribbean and their roles".into(),
            description: "Institutions only, no person named: national statistics offices and open-data portals (agency registry, from Wikidata, CC0), public bodies of Chile, Cuba, Peru and Uruguay (Govdirectory, from Wikidata, CC0; pillars from reviewed name keywords) and the bodies implementing World Bank projects (derived from the World Bank project list, CC BY 4.0; pillars, active projects and commitments from those projects).".into(),
            artifacts: vec![layout::INSTITUTIONS.into()],
            keys: vec!["citation_id".into()],
            columns: columns(&[
                ("citation_id", "string", "e.g. nso-ar-nso-indec, govdir-q9149472, wbagency-arg-national-ministry-of-health"),
                ("country", "string", "ISO 3166-1 alpha-3"),
                ("role", "string", "national_statistical_office, open_data_portal, public_body or implementing_agency"),
                ("pillars", "array", "pillar ids it acts on"),
                ("projects", "array", "P-codes of the World Bank projects it implements"),
                ("url", "string", "the record's page"),
            ]),
            sources: vec!["gov_nso_registry".into(), "govdirectory".into(), "wb_implementing_agencies".into()],
            license: "CC0-1.0, CC-BY-4.0 (per record)".into(),
            rows: counts.institutions,
        },
        Dataset {
            dataset_id: "financing".into(),
            title: "Curated: financing instruments and flows per recipient".into(),
            description: "OECD CRS climate-related disbursements (Rio markers significant or principal, the full disbursement counted: an upper bound) per recipient × donor × flow type × sector group, with first and last year, the latest year at current prices and the total at constant prices; and, per country and pillar, the World Bank instrument families (IPF, DPF, PforR) its projects used (dropped ones aside), with those projects and their commitments summed (current US$, nominal). The CRS figures cannot tell adaptation from mitigation (either marker counts), and donors outside the CRS (China among them) are absent. GEF trust funds (kind trust_fund) appear only in a private bake that admits the GEF's terms.".into(),
            artifacts: vec![layout::FINANCING.into()],
            keys: vec!["citation_id".into()],
            columns: columns(&[
                ("citation_id", "string", "e.g. crsflow-bol-germany-oda-grants-energy, wbinstrument-bol-ipf-energia"),
                ("kind", "string", "crs_flow, lending_instrument or trust_fund"),
                ("financier", "string", "CRS donor, World Bank or GEF"),
                ("instrument", "string", "CRS flow type, World Bank family or GEF fund"),
                ("country", "string", "recipient, ISO 3166-1 alpha-3"),
                ("total_constant_usd_mn", "float64", "CRS: disbursements summed over the years, US$ million, constant prices"),
                ("committed_usd", "float64", "projects: commitments summed, current US$"),
            ]),
            sources: vec!["oecd_crs_flows".into(), "wb_projects".into()],
            license: "CC-BY-4.0".into(),
            rows: counts.financing,
        },
        Dataset {
            dataset_id: "events".into(),
            title: "Curated: dated events from the corpus' records (what get_news serves)".into(),
            description: "Dated items made from the records themselves, never press news: World Bank project approvals and closings, laws passed and policies adopted or amended (Climate Change Laws of the World, to its export of 2021-01-30), significant earthquakes (NOAA NCEI/WDS, to June 2023, with magnitude, deaths, damage and houses destroyed) and the source releases in the corpus. Each event is its own citation and names the record it comes from and why it matters to its pillars.".into(),
            artifacts: vec![layout::EVENTS.into()],
            keys: vec!["citation_id".into()],
            columns: columns(&[
                ("citation_id", "string", "e.g. event-wbproj-p127837-approved, ncei_eq-2016-04-16-ecu"),
                ("date", "string", "YYYY-MM-DD (YYYY-MM or YYYY when the source has no day)"),
                ("countries", "array", "ISO 3166-1 alpha-3; empty for a multi-country project; for a release, the countries its source has observations of"),
                ("kind", "string", "project_approved, project_closed, law_passed, policy_adopted, law_amended, earthquake, data_release"),
                ("pillars", "array", "pillar ids it bears on"),
                ("record_id", "string", "citation id of the record it was made from"),
            ]),
            sources: vec!["wb_projects".into(), "cclw_laws".into(), "ncei_earthquakes".into()],
            license: "CC-BY-4.0, US-Gov-PD (per record)".into(),
            rows: counts.events,
        },
        Dataset {
            dataset_id: "discoveries".into(),
            title: "Discoveries: anomalies and source contradictions".into(),
            description: "Year-over-year changes far outside a series' usual changes (robust z-score of at least 5, and at least 1% of the series level; the 2,000 largest) and concordance rows beyond their tolerance, each with the citations of its cells.".into(),
            artifacts: vec![layout::DISCOVERIES.into()],
            keys: vec!["indicator".into(), "country".into(), "year".into()],
            columns: columns(&[
                ("z_score", "float64", "robust z-score of the change within its series"),
                ("tolerance_ratio", "float64", "how many declared tolerances two publishers' values are apart"),
                ("citation_ids", "array", "citations of the cells compared"),
            ]),
            sources: source_ids.clone(),
            license: license.clone(),
            rows: counts.discoveries,
        },
        Dataset {
            dataset_id: "data_health".into(),
            title: "Data health: coverage, freshness, provenance, confidence".into(),
            description: "Per pillar and country: a 0-100 confidence score (30 coverage + 30 freshness + 20 observed + 20 provenance shares), coverage gaps, stale indicators and vintages; per pillar over the region: fresh indicators, mean coverage and confidence, the weakest countries; and the refresh work-list of sources. Freshness is measured against the newest year in the corpus.".into(),
            artifacts: vec![layout::DATA_HEALTH.into()],
            keys: vec!["parameter".into(), "country".into()],
            columns: columns(&[
                ("confidence_score", "float64", "0-100, see the description"),
                ("observed_percent", "float64", "latest values that are observations, not projections, in percent"),
                ("provenance_percent", "float64", "latest values cited to the publisher's page for the country, in percent"),
                ("missing", "array", "indicator ids without a value for the country"),
                ("stale", "array", "(indicator id, latest year) older than 3 years before the reference year"),
            ]),
            sources: source_ids.clone(),
            license: license.clone(),
            rows: counts.health,
        },
        Dataset {
            dataset_id: "concordance".into(),
            title: "Source concordance".into(),
            description: "Indicators of different publishers that measure the same quantity (data/concordance.toml): both values per country and year, aligned to one unit, with the difference and whether it is within the declared tolerance. Rows beyond tolerance are source contradictions, each side cited.".into(),
            artifacts: vec![layout::CONCORDANCE_ARROW.into(), layout::CONCORDANCE_PARQUET.into()],
            keys: vec!["pair".into(), "country".into(), "year".into()],
            columns: columns(&[
                ("pair", "string", "pair id"),
                ("country", "string", "ISO3"),
                ("year", "int32", "year"),
                ("left_value", "float64", "reference value, left unit"),
                ("left_citation_id", "string", "citation of the left value"),
                ("right_value_aligned", "float64", "compared value in the left unit"),
                ("right_citation_id", "string", "citation of the right value"),
                ("within_tolerance", "bool", "whether the two agree within the declared tolerance"),
            ]),
            sources: source_ids.clone(),
            license: license.clone(),
            rows: counts.concordance,
        },
        Dataset {
            dataset_id: "sources".into(),
            title: "Source registry".into(),
            description: "Publisher, dataset, licence, vintage, retrieval date and deep-link pattern of each source.".into(),
            artifacts: vec![layout::SOURCES.into()],
            keys: vec!["id".into()],
            columns: columns(&[("id", "string", "source id"), ("publisher", "string", "publisher"), ("license", "string", "licence id")]),
            sources: vec!["catalog".into()],
            license: "CC-BY-4.0".into(),
            rows: sources.len() as u64,
        },
        Dataset {
            dataset_id: "countries".into(),
            title: "Countries and comparison aggregates".into(),
            description: "The 52 LAC countries and territories (UN M49 419) with es/en/pt names and aliases, and the comparison aggregates.".into(),
            artifacts: vec![layout::COUNTRIES.into()],
            keys: vec!["iso3".into()],
            columns: columns(&[("iso3", "string", "ISO 3166-1 alpha-3"), ("kind", "string", "country or aggregate"), ("names", "object", "en/es/pt")]),
            sources: vec!["country_names".into()],
            license: "PDDL-1.0".into(),
            rows: counts.entities,
        },
        Dataset {
            dataset_id: "pillars".into(),
            title: "Pillars".into(),
            description: "The thematic areas every indicator maps to, with names in es/en/pt.".into(),
            artifacts: vec![layout::PILLARS.into()],
            keys: vec!["id".into()],
            columns: columns(&[("id", "string", "pillar id"), ("names", "object", "en/es/pt")]),
            sources: vec!["catalog".into()],
            license: "CC-BY-4.0".into(),
            rows: counts.pillars,
        },
    ]
}

fn columns(specs: &[(&str, &str, &str)]) -> Vec<DatasetColumn> {
    specs
        .iter()
        .map(|(name, data_type, description)| DatasetColumn {
            name: name.to_string(),
            data_type: data_type.to_string(),
            description: description.to_string(),
        })
        .collect()
}

/// The licence of content mixing these metrics: the single licence when all share one, else a list.
pub(crate) fn combined_license(metrics: &[Metric]) -> String {
    let mut licenses: Vec<&str> = metrics
        .iter()
        .map(|metric| metric.license.as_str())
        .collect();
    licenses.sort();
    licenses.dedup();
    licenses.join(", ")
}
