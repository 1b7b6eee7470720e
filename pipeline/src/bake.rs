//! The bake's orchestration: catalog → ingest → govern (each source's metrics and table rows added by
//! `govern::metrics`) → curated records → derived tables (`derive::derive`), exports and the search
//! documents (`index`) into staging → what it changed against the corpus it replaces (`diff`, written at
//! publish as `exports/changes.json`) → publish.

use std::{
    borrow::Cow,
    collections::{BTreeSet, HashMap},
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use corpus::{
    BakeReport, CountryRegistry, Manifest,
    changes::{Changes, CorpusVersion},
    health, layout, write_json,
};
use indicatif::{ProgressBar, ProgressStyle};

use crate::{
    BakeError,
    derive::Derived,
    export::{
        dataset_files::{
            dataset_metadata, json_object, json_records, records_frame, rows_frame,
            write_dataset_files, write_record_artifacts, write_record_dataset_files,
            write_registry_xlsx,
        },
        datasets::{DatasetCounts, dataset_catalog},
        downloads,
        tables::{observation_metadata, write_concordance, write_observations},
    },
    govern::{
        govern_source,
        metrics::{self, Governed},
    },
    ingest::{self, wdi_metadata::SeriesMetadata},
    publish::Staging,
    sources::{Catalog, Connector, metric_map::MetricMapping},
};

/// Where a bake reads and writes.
#[derive(Debug, Clone)]
pub struct BakeOptions {
    /// Raw sources directory (`../shared/data/sources`).
    pub sources_dir: PathBuf,
    /// Catalog directory (`data/`).
    pub catalog_dir: PathBuf,
    /// Output directory (`data/baked/`).
    pub out_dir: PathBuf,
    /// Draw progress bars on stderr (they also hide themselves when stderr is not a terminal).
    pub progress: bool,
}

/// What a successful bake published.
#[derive(Debug, Clone)]
pub struct BakeSummary {
    /// The published manifest (corpus version, artifacts).
    pub manifest: Manifest,
    /// The published corpus directory.
    pub dir: PathBuf,
    /// The bake report.
    pub report: BakeReport,
    /// What the corpus changed against the one `current` named before (the `exports/changes.json` it
    /// was published with, unless the same version was already published: then this says nothing
    /// changed, and the published file keeps the changes of its first publication).
    pub changes: Changes,
    /// Wall time of the bake.
    pub elapsed: Duration,
}

/// Bakes the catalog in `options.catalog_dir` from the raw files in `options.sources_dir` and publishes
/// the result under `options.out_dir`.
///
/// # Errors
/// Any [`BakeError`]: an invalid catalog, a missing or unreadable raw file, a failed write. On error
/// nothing is published and the previous corpus stays current.
pub fn bake(options: &BakeOptions) -> Result<BakeSummary, BakeError> {
    let started = Instant::now();
    // A source a fetch refreshed is read from the publisher's files it brought, cited with their dates.
    let lock =
        crate::sources::lock::Lock::read(&options.catalog_dir).map_err(|(path, error)| {
            BakeError::catalog(&path, format!("cannot read the lock file: {error}"))
        })?;
    let catalog = Catalog::load(&options.catalog_dir)?.refreshed(&options.sources_dir, &lock);
    // The publisher's documented aggregation methods (WDI series metadata) decide where it documents one.
    let aggregation = crate::sources::aggregation::load(
        &options.catalog_dir.join(crate::sources::aggregation::FILE),
        &catalog,
    )?
    .with_publisher_methods(ingest::wdi_metadata::aggregation_methods(
        &catalog,
        &options.sources_dir,
    )?);
    let countries = read_countries(&catalog, &options.sources_dir)?;
    let governed = ingest_and_govern(&catalog, &countries, &options.sources_dir, options.progress)?;
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        resident_mib = resident_mib(),
        "sources governed"
    );
    let curated = crate::govern::records::read_all(&crate::govern::records::Inputs {
        catalog_dir: &options.catalog_dir,
        sources_dir: &options.sources_dir,
        settings: &catalog.settings,
        countries: &countries,
        metrics: &governed.metrics,
        sources: &governed.sources,
        source_countries: &governed.observations.countries_by_source(),
    })?;
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        resident_mib = resident_mib(),
        "curated records read"
    );
    let staging = Staging::create(&options.out_dir)?;
    let report = write_artifacts(
        staging.dir(),
        governed,
        curated,
        &catalog,
        &aggregation,
        &countries,
        options.progress,
    )?;
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        resident_mib = resident_mib(),
        "artifacts written"
    );
    let mut changes = None;
    let (manifest, dir) = staging.publish_with(|staged, version| {
        let computed = crate::diff::against_current(
            &options.out_dir,
            staged,
            CorpusVersion {
                version: version.to_string(),
                format_version: corpus::FORMAT_VERSION,
            },
        )?;
        write_json(&staged.join(layout::CHANGES), &computed)?;
        changes = Some(computed);
        Ok(())
    })?;
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        resident_mib = resident_mib(),
        "changes computed, published"
    );
    Ok(BakeSummary {
        manifest,
        dir,
        report,
        changes: changes.expect("publish_with writes the changes"),
        elapsed: started.elapsed(),
    })
}

/// Reads the country list of the catalog's `country_names` source, plus the declared aggregates, the
/// catalog's ambiguous names and the places outside the corpus.
fn read_countries(catalog: &Catalog, sources_dir: &Path) -> Result<CountryRegistry, BakeError> {
    let entry = catalog
        .sources
        .iter()
        .find(|source| matches!(source.connector, Connector::CountryNames { .. }))
        .expect("the catalog is validated to have a country_names source");
    let entities = ingest::countries::read(entry, &catalog.settings, sources_dir)?;
    let places = ingest::countries::read_places(entry, &catalog.settings, sources_dir, &entities)?;
    Ok(CountryRegistry::with_places(entities, places))
}

/// The process's resident memory in MiB (Linux; `None` elsewhere), for the stage timings of `RUST_LOG=debug`.
fn resident_mib() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096 / (1 << 20))
}

/// How many indicators of a source with a file per indicator are read and governed at once.
const INDICATORS_PER_BATCH: usize = 32;

fn ingest_and_govern(
    catalog: &Catalog,
    countries: &CountryRegistry,
    sources_dir: &Path,
    show_progress: bool,
) -> Result<Governed, BakeError> {
    let mut metadata: HashMap<&str, HashMap<String, SeriesMetadata>> = HashMap::new();
    for source in &catalog.sources {
        if let (Connector::WdiSeriesMetadata { .. }, Some(described)) =
            (&source.connector, &source.describes)
        {
            metadata.insert(
                described.as_str(),
                ingest::wdi_metadata::read(source, sources_dir)?,
            );
        }
    }
    let indicator_count: usize = catalog
        .mappings
        .values()
        .map(|mapping| mapping.rows.len())
        .sum();
    let progress = progress_bar(show_progress, indicator_count as u64, "reading");
    let mut governed = Governed::default();
    for (source_id, mapping) in &catalog.mappings {
        let source = catalog
            .source(source_id)
            .expect("mappings belong to catalog sources");
        let no_metadata = HashMap::new();
        let source_metadata = metadata.get(source_id.as_str()).unwrap_or(&no_metadata);
        // A source with a file per indicator is read and governed a batch of indicators at a time (every
        // rule is per indicator), so its raw rows are never all in memory: a bake's memory follows its
        // largest batch and the governed table, not its largest source.
        let batches: Vec<Cow<'_, MetricMapping>> = if source.connector.reads_a_file_per_indicator()
        {
            mapping
                .rows
                .chunks(INDICATORS_PER_BATCH)
                .map(|rows| {
                    Cow::Owned(MetricMapping {
                        file: mapping.file.clone(),
                        rows: rows.to_vec(),
                    })
                })
                .collect()
        } else {
            vec![Cow::Borrowed(mapping)]
        };
        for batch in &batches {
            let (files, descriptors) = ingest::read_source(source, batch, sources_dir, &progress)?;
            let outcome = govern_source(
                source,
                batch,
                &files,
                &descriptors,
                source_metadata,
                countries,
                &catalog.settings,
            )?;
            drop(files);
            metrics::add_source(
                &mut governed,
                source,
                batch,
                &descriptors,
                source_metadata,
                outcome,
                countries,
            );
        }
    }
    progress.finish_and_clear();
    governed
        .metrics
        .sort_by(|left, right| left.id.cmp(&right.id));
    Ok(governed)
}

/// Writes every artifact into the staging directory and returns the final report.
fn write_artifacts(
    dir: &Path,
    governed: Governed,
    curated: Curated,
    catalog: &Catalog,
    aggregation: &crate::sources::aggregation::AggregationRules,
    countries: &CountryRegistry,
    show_progress: bool,
) -> Result<BakeReport, BakeError> {
    let Governed {
        metrics,
        observations,
        aggregates,
        mut sources,
        mut report,
        strings: _,
    } = governed;
    let progress = progress_bar(show_progress, 3, "writing");
    let started = Instant::now();
    let stage = |name: &str| {
        tracing::debug!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            resident_mib = resident_mib(),
            stage = name,
            "writing"
        );
    };
    let mut curated = curated;
    report.curated = std::mem::take(&mut curated.reports);
    write_record_artifacts(dir, &curated)?;
    report.observations = observations.len() as u64;
    report.aggregate_observations = aggregates.len() as u64;
    report.indicators = metrics
        .iter()
        .filter(|metric| metric.coverage.observations > 0)
        .count() as u32;
    report.countries = observations.country.iter().collect::<BTreeSet<_>>().len() as u32;
    report.years = observations
        .year
        .iter()
        .min()
        .zip(observations.year.iter().max())
        .map(|(first, last)| (*first, *last));
    let counts = DatasetCounts {
        observations: observations.len() as u64,
        aggregates: aggregates.len() as u64,
        entities: countries.entities().len() as u64,
        pillars: catalog.settings.pillars.len() as u64,
        concordance: 0,
        series: 0,
        discoveries: 0,
        health: 0,
        records: corpus::RecordDataset::ALL.map(|dataset| curated.count(dataset)),
    };
    report.dropped.sort_by(|left, right| {
        (&left.source, &left.file, left.line).cmp(&(&right.source, &right.file, right.line))
    });
    let Derived {
        concordance_table,
        concordance_counts,
        rules,
        discoveries,
        correlations,
        year_stats,
        series_stats: stats,
        data_health,
        rule_counts,
    } = crate::derive::derive(&crate::derive::Inputs {
        observations: &observations,
        aggregates: &aggregates,
        metrics: &metrics,
        sources: &sources,
        aggregation,
        pairs: &catalog.concordance,
        pillar_ids: &catalog.settings.pillar_id_list(),
        countries,
    });
    stage("derived");
    report.concordance = concordance_counts
        .into_iter()
        .map(
            |(pair, shared, beyond_tolerance)| corpus::ConcordanceCount {
                pair,
                shared,
                beyond_tolerance,
            },
        )
        .collect();
    report.derived_rules = rule_counts;
    report.coverage = data_health.coverage.clone();
    let concordance_rows = concordance_table.len() as u64;
    let discovery_rows = (discoveries.anomalies.len() + discoveries.contradictions.len()) as u64;
    let series_rows = stats.len() as u64;
    let health_rows = data_health.pillar_countries.len() as u64;
    write_json(&dir.join(corpus::derived::DERIVED_RULES), &rules)?;
    write_json(&dir.join(layout::DISCOVERIES), &discoveries)?;
    write_json(&dir.join(layout::CORRELATIONS), &correlations)?;
    write_json(&dir.join(layout::YEAR_STATS), &year_stats)?;
    write_json(&dir.join(layout::SERIES_STATS), &stats)?;
    write_json(&dir.join(layout::DATA_HEALTH), &data_health)?;
    let mut country_counts: HashMap<String, u64> = HashMap::new();
    for country in observations.country.iter().chain(&aggregates.country) {
        *country_counts.entry(country.to_string()).or_default() += 1;
    }
    let counts = DatasetCounts {
        concordance: concordance_rows,
        series: series_rows,
        discoveries: discovery_rows,
        health: health_rows,
        ..counts
    };
    let datasets = dataset_catalog(&metrics, &sources, counts);
    downloads::create_dirs(dir)?;
    // The per-indicator files (two threads) and the tables with the derived datasets (polars' own threads)
    // are independent: written side by side.
    let (exported_metrics, tables) = rayon::join(
        || {
            let written = downloads::write_indicator_exports(
                dir,
                &observations,
                &metrics,
                &sources,
                countries.entities(),
            );
            stage("indicator files");
            written
        },
        || -> Result<(), BakeError> {
            write_concordance(
                concordance_table,
                dir,
                &dataset_metadata(&datasets, "concordance"),
            )?;
            stage("concordance");
            write_derived_exports(dir, &datasets, &stats, &discoveries, &data_health)?;
            write_record_dataset_files(dir, &curated, &datasets)?;
            stage("derived and record files");
            for (stem, table) in [("observations", &observations), ("aggregates", &aggregates)] {
                let metadata = observation_metadata(&datasets, stem, table, &metrics, &sources);
                write_observations(table, dir, stem, &metadata)?;
                stage(stem);
                progress.inc(1);
            }
            progress.inc(1);
            Ok(())
        },
    );
    stage("indicator files and tables");
    let (exported_metrics, indicator_resources): (Vec<String>, Vec<serde_json::Value>) =
        exported_metrics?.into_iter().unzip();
    tables?;
    sources.sort_by(|left, right| left.id.cmp(&right.id));
    write_json(&dir.join(layout::METRICS), &metrics)?;
    write_json(&dir.join(layout::SOURCES), &sources)?;
    let counted_countries = countries_with_counts(countries, &country_counts);
    write_json(&dir.join(layout::COUNTRIES), &counted_countries)?;
    write_json(&dir.join(layout::PLACES), countries.places())?;
    write_json(&dir.join(layout::PILLARS), &catalog.settings.pillars)?;
    write_registry_xlsx(
        dir,
        &[
            ("metrics", json_records("metrics", &metrics)?),
            ("sources", json_records("sources", &sources)?),
            ("countries", json_records("countries", &counted_countries)?),
            (
                "pillars",
                json_records("pillars", &catalog.settings.pillars)?,
            ),
        ],
    )?;
    write_json(&dir.join(layout::DATASETS), &datasets)?;
    let exported_datasets: Vec<&corpus::Dataset> = datasets
        .iter()
        .filter(|dataset| {
            EXPORTED_TABLES
                .into_iter()
                .chain(corpus::RecordDataset::IDS)
                .any(|id| id == dataset.dataset_id)
        })
        .collect();
    stage("registries");
    let package = crate::export::datapackage::write_packages(
        dir,
        &metrics,
        &sources,
        &exported_datasets,
        indicator_resources,
        &downloads::prepared_time(&sources),
    )?;
    stage("data packages");
    crate::export::croissant::write_croissant(dir, &package, &metrics, &sources, report.years)?;
    stage("croissant");
    downloads::write_downloads(
        dir,
        &metrics,
        &exported_metrics,
        &datasets,
        &EXPORTED_TABLES
            .into_iter()
            .chain(corpus::RecordDataset::IDS)
            .collect::<Vec<_>>(),
    )?;
    let index_dir = dir.join(layout::INDEX_DIR);
    std::fs::create_dir(&index_dir).map_err(|error| BakeError::io(&index_dir, error))?;
    let documents = crate::index::search_documents(
        &metrics,
        &datasets,
        countries,
        &catalog.settings.pillars,
        &curated,
    );
    corpus::index::build_index(&index_dir, &documents)?;
    stage("index");
    progress.inc(1);
    write_json(&dir.join(layout::BAKE_REPORT), &report)?;
    std::fs::write(dir.join(layout::BAKE_REPORT_TEXT), report.summary())
        .map_err(|error| BakeError::io(dir.join(layout::BAKE_REPORT_TEXT), error))?;
    stage("bake report");
    progress.finish_and_clear();
    Ok(report)
}

use crate::govern::records::Curated;

/// The datasets of `datasets.json` with CSV and Parquet files in `exports/datasets/`, besides the curated
/// record datasets (which follow them, in the order of [`corpus::RecordDataset::ALL`]).
const EXPORTED_TABLES: [&str; 6] = [
    "observations",
    "aggregates",
    "concordance",
    "series_stats",
    "discoveries",
    "data_health",
];

/// Writes the derived datasets stored as JSON as CSV and Parquet: series statistics, discoveries (anomalies
/// and contradictions, told apart by `kind`) and the data health view's pillar × country entries.
fn write_derived_exports(
    dir: &Path,
    datasets: &[corpus::Dataset],
    stats: &[corpus::SeriesStats],
    discoveries: &corpus::Discoveries,
    data_health: &health::DataHealth,
) -> Result<(), BakeError> {
    write_dataset_files(
        dir,
        "series_stats",
        &mut records_frame("series_stats", stats)?,
        &dataset_metadata(datasets, "series_stats"),
    )?;
    let tagged =
        |kind: &str, fields: Result<serde_json::Map<String, serde_json::Value>, BakeError>| {
            let mut row = serde_json::Map::new();
            row.insert("kind".into(), kind.into());
            row.extend(fields?);
            Ok(row)
        };
    let mut discovery_rows = rows_frame(
        "discoveries",
        (discoveries.anomalies.iter())
            .map(|record| tagged("anomaly", json_object("discoveries", record)))
            .chain(
                discoveries
                    .contradictions
                    .iter()
                    .map(|record| tagged("contradiction", json_object("discoveries", record))),
            ),
    )?;
    write_dataset_files(
        dir,
        "discoveries",
        &mut discovery_rows,
        &dataset_metadata(datasets, "discoveries"),
    )?;
    write_dataset_files(
        dir,
        "data_health",
        &mut records_frame("data_health", &data_health.pillar_countries)?,
        &dataset_metadata(datasets, "data_health"),
    )
}

/// The registry's entities with the number of observations each has in the corpus.
fn countries_with_counts(
    countries: &CountryRegistry,
    counts: &HashMap<String, u64>,
) -> Vec<corpus::Country> {
    countries
        .entities()
        .iter()
        .map(|entity| corpus::Country {
            observations: counts.get(&entity.iso3).copied().unwrap_or(0),
            ..entity.clone()
        })
        .collect()
}

fn progress_bar(show: bool, length: u64, message: &'static str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(length).with_message(message);
    bar.set_style(
        ProgressStyle::with_template("{msg:>8} [{bar:40}] {pos}/{len} {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}
