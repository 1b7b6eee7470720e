//! Where each artifact lives inside a baked corpus directory, and how the output directory points at
//! the published corpus.
//!
//! ```text
//! data/baked/                      output directory (git-ignored)
//!   current -> 5f2c9a…            symlink to the published corpus, swapped atomically by each bake
//!   5f2c9a…/                       one directory per corpus version (content hash), never modified
//!     manifest.json  observations.arrow  …  exports/  (the analysts' files, see crate::exports)
//! ```

/// The symlink in the output directory that names the published corpus.
pub const CURRENT: &str = "current";
/// The symlink in the output directory that names the corpus `current` named before the last publish of
/// another version (kept on disk beside it; `pipeline diff` compares the two by default).
pub const PREVIOUS: &str = "previous";
/// See [`crate::Manifest`].
pub const MANIFEST: &str = "manifest.json";
/// Country observations, Arrow IPC (memory-mapped by the server).
pub const OBSERVATIONS_ARROW: &str = "observations.arrow";
/// Country observations, Parquet (for analysts; beside `.csv.gz`).
pub const OBSERVATIONS_PARQUET: &str = "exports/datasets/observations.parquet";
/// Comparison-aggregate observations, Arrow IPC.
pub const AGGREGATES_ARROW: &str = "aggregates.arrow";
/// Comparison-aggregate observations, Parquet.
pub const AGGREGATES_PARQUET: &str = "exports/datasets/aggregates.parquet";
/// See [`crate::Metric`].
pub const METRICS: &str = "metrics.json";
/// See [`crate::SourceRecord`].
pub const SOURCES: &str = "sources.json";
/// See [`crate::Country`].
pub const COUNTRIES: &str = "countries.json";
/// See [`crate::Places`]; absent from corpora baked before it.
pub const PLACES: &str = "places.json";
/// See [`crate::Pillar`].
pub const PILLARS: &str = "pillars.json";
/// See [`crate::BakeReport`].
pub const BAKE_REPORT: &str = "bake_report.json";
/// The bake report as a human summary.
pub const BAKE_REPORT_TEXT: &str = "bake_report.txt";
/// See [`crate::Project`].
pub const PROJECTS: &str = "projects.json";
/// See [`crate::Law`].
pub const REGULATION: &str = "regulation.json";
/// See [`crate::Institution`].
pub const INSTITUTIONS: &str = "institutions.json";
/// See [`crate::FinancingRecord`].
pub const FINANCING: &str = "financing.json";
/// See [`crate::Event`].
pub const EVENTS: &str = "events.json";
/// The provenance of the curated records' sources, one entry per source ([`crate::curated::RecordSource`]).
pub const RECORD_SOURCES: &str = "record_sources.json";
/// See [`crate::Dataset`].
pub const DATASETS: &str = "datasets.json";
/// The full-text index directory, see [`crate::MetricIndex`].
pub const INDEX_DIR: &str = "index";
/// Concordance rows: both publishers' values for each declared pair, Arrow IPC.
pub const CONCORDANCE_ARROW: &str = "concordance.arrow";
/// Concordance rows, Parquet.
pub const CONCORDANCE_PARQUET: &str = "exports/datasets/concordance.parquet";
/// Precomputed per-series statistics, see [`crate::SeriesStats`].
pub const SERIES_STATS: &str = "series_stats.json";
/// Anomalies and source contradictions, see [`crate::Discoveries`].
pub const DISCOVERIES: &str = "discoveries.json";
/// Pairwise correlations of each pillar's headline indicators, see [`crate::PillarCorrelation`].
pub const CORRELATIONS: &str = "correlations.json";
/// Per indicator and year regional summaries, see [`crate::YearStats`].
pub const YEAR_STATS: &str = "year_stats.json";
/// Data health per pillar and country, per pillar, and the refresh work-list ([`crate::health::DataHealth`]).
pub const DATA_HEALTH: &str = "data_health.json";
/// What this corpus changed against the one it replaced ([`crate::changes::Changes`]), served at
/// `/api/v1/changes.json`; the one artifact the corpus version leaves out ([`crate::Manifest::compute`]).
pub const CHANGES: &str = "exports/changes.json";
