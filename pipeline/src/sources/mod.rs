//! The source catalog: the declarative files under `data/` that say what to bake and how.
//!
//! - `data/corpus.toml` ([`CorpusSettings`]): licences, comparison aggregates, pillars.
//! - `data/sources/*.toml` ([`SourceEntry`]): one file per source, with its connector and, optionally, where
//!   `pipeline fetch` refreshes its raw files from ([`refresh`]).
//! - `data/metrics/*.csv` ([`MetricMapping`]): per indicator, pillar, unit, direction, range, licence, names.
//! - `data/curated/*.toml` ([`curated`]): record-level sources (the World Bank project list) and their
//!   reviewed mappings.
//! - `data/concordance.toml` ([`concordance::ConcordancePair`]): indicators of different publishers that
//!   measure the same quantity.
//!
//! Everything is validated on load; an error names the file, the field and what would be valid, and an
//! invalid catalog bakes nothing.

pub mod aggregation;
pub mod catalog;
pub mod concordance;
pub mod curated;
pub mod lock;
pub mod metric_map;
pub mod refresh;
pub mod settings;

pub use catalog::{Catalog, Connector, SourceEntry};
pub use metric_map::{MetricMapping, MetricMappingRow};
pub use settings::{AggregateEntry, CorpusSettings, LicenseEntry};
