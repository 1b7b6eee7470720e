//! The dataset catalog of a bake (`datasets.json`): what each table holds, its keys and columns (the
//! curated record datasets' entries are [`RecordDataset::catalog_entry`]).

use corpus::{Dataset, DatasetColumn, Metric, RecordDataset, SourceRecord, layout};

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
    /// Records of each curated dataset, in the order of [`RecordDataset::ALL`].
    pub records: [u64; RecordDataset::ALL.len()],
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
        DatasetColumn::from_specs(&[
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
            ("flags", "string", corpus::observation::FLAGS_DESCRIPTION),
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
    let mut catalog = Vec::new();
    catalog.extend([
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
            columns: DatasetColumn::from_specs(&[
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
            columns: DatasetColumn::from_specs(&[
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
            columns: DatasetColumn::from_specs(&[
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
    ]);
    catalog.extend(
        RecordDataset::ALL
            .into_iter()
            .zip(counts.records)
            .map(|(dataset, rows)| dataset.catalog_entry(rows)),
    );
    catalog.extend([
        Dataset {
            dataset_id: "discoveries".into(),
            title: "Discoveries: anomalies and source contradictions".into(),
            description: "Year-over-year changes far outside a series' usual changes (robust z-score of at least 5, and at least 1% of the series level; the 2,000 largest) and concordance rows beyond their tolerance, each with the citations of its cells.".into(),
            artifacts: vec![layout::DISCOVERIES.into()],
            keys: vec!["indicator".into(), "country".into(), "year".into()],
            columns: DatasetColumn::from_specs(&[
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
            columns: DatasetColumn::from_specs(&[
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
            columns: DatasetColumn::from_specs(&[
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
            columns: DatasetColumn::from_specs(&[("id", "string", "source id"), ("publisher", "string", "publisher"), ("license", "string", "licence id")]),
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
            columns: DatasetColumn::from_specs(&[("iso3", "string", "ISO 3166-1 alpha-3"), ("kind", "string", "country or aggregate"), ("names", "object", "en/es/pt")]),
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
            columns: DatasetColumn::from_specs(&[("id", "string", "pillar id"), ("names", "object", "en/es/pt")]),
            sources: vec!["catalog".into()],
            license: "CC-BY-4.0".into(),
            rows: counts.pillars,
        },
    ]);
    catalog
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
