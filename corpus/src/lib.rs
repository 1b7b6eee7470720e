//! The artifact contract of the baked corpus: the types, format version, writers and readers of every
//! file that `pipeline bake` publishes and `server` loads.
//!
//! A baked corpus is one directory, written once and never changed afterwards (see [`layout`]):
//!
//! | file | contents | writer | reader |
//! |---|---|---|---|
//! | `manifest.json` | format version, corpus version (content hash), sha256 of every artifact | [`Manifest::write`] | [`Manifest::read`] |
//! | `observations.arrow` / `.parquet` | governed country observations, sorted by (indicator, country, year) | pipeline (polars) | [`ObservationTable::open`] |
//! | `aggregates.arrow` / `.parquet` | the same for comparison aggregates (LCN, WLD, …) | pipeline (polars) | [`ObservationTable::open`] |
//! | `metrics.json` | the governed metric registry ([`Metric`]) | [`write_json`] | [`read_json`] |
//! | `sources.json` | one [`SourceRecord`] per source: publisher, licence, vintage, deep-link pattern | [`write_json`] | [`read_json`] |
//! | `countries.json` | the LAC countries and the declared comparison aggregates ([`Country`]) | [`write_json`] | [`read_json`] |
//! | `pillars.json` | the thematic pillars ([`Pillar`]) | [`write_json`] | [`read_json`] |
//! | `places.json` | names that fit several countries and the world's places outside the corpus ([`Places`]) | [`write_json`] | [`read_json`] |
//! | `datasets.json` | the dataset catalog ([`Dataset`]): id, keys, columns, sources, licence | [`write_json`] | [`read_json`] |
//! | `index/` | the full-text index over indicators ([`MetricIndex`], tantivy) | [`index::build_index`] | [`MetricIndex::open`] |
//! | `series_stats.json` | per indicator and country: latest, change, CAGR 5/10 y, trend ([`SeriesStats`]) | [`write_json`] | [`read_json`] |
//! | `year_stats.json` | per indicator and year: regional value and method, leaders, laggards ([`YearStats`]) | [`write_json`] | [`read_json`] |
//! | `correlations.json` | pairwise correlations of each pillar's headline indicators ([`PillarCorrelation`]) | [`write_json`] | [`read_json`] |
//! | `discoveries.json` | the largest anomalies and source contradictions ([`Discoveries`]) | [`write_json`] | [`read_json`] |
//! | `data_health.json` | per pillar and country: confidence score, coverage gaps, freshness; regional summary; refresh work-list ([`health::DataHealth`]) | [`write_json`] | [`read_json`] |
//! | `concordance.arrow` / `.parquet` | both publishers' values per declared concordance pair, country and year | pipeline (polars) | [`concordance::read_concordance`]; analysts (Parquet) |
//! | `projects.json`, `regulation.json`, `institutions.json`, `financing.json`, `events.json` | the curated record datasets ([`RecordDataset`]: projects, laws, public bodies, financing records, events), validated, mapped to pillars | [`write_json`] | [`read_json`] |
//! | `record_sources.json` | publisher, licence and attribution of each source the curated records name, declared once ([`RecordSource`]) | [`write_json`] | [`read_json`] |
//! | `exports/changes.json` | what this corpus changed against the one it replaced ([`changes::Changes`]); left out of the corpus version | [`write_json`] | [`read_json`] |
//! | `bake_report.json` / `.txt` | what the bake kept, dropped and excluded, and why ([`BakeReport`]) | [`write_json`] | [`read_json`] |
//!
//! [`BakedCorpus::open`] loads a published directory: it checks the format version, memory-maps the Arrow
//! IPC tables (zero-copy) and builds the lookups used by the tools: the [`CountryRegistry`] and
//! [`PillarRegistry`] normalisers and the citation resolver ([`BakedCorpus::resolve_citation`]).
//!
//! This crate never depends on polars and never touches the network; it reads and writes only the paths
//! it is given.
//!
//! ```no_run
//! let corpus = corpus::BakedCorpus::open_current(std::path::Path::new("data/baked"))?;
//! let mex = corpus.countries().resolve("México").expect("MEX is a LAC country");
//! let citation = corpus.resolve_citation("wb-sp-dyn-le00-in-mex-2024")?;
//! assert_eq!(mex.iso3, "MEX");
//! println!("{} {}", citation.url, citation.value);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub mod analytics;
pub mod baked;
pub mod changes;
pub mod citation;
pub mod citation_style;
pub mod concordance;
pub mod country;
pub mod curated;
pub mod dataset;
pub mod dates;
pub mod derived;
pub mod error;
pub mod event;
pub mod exports;
pub mod financing;
pub mod folding;
pub mod frontier;
pub mod health;
pub mod index;
pub mod institution;
pub mod json;
pub mod layout;
pub mod licences;
pub mod manifest;
pub mod metric;
pub mod names;
pub mod observation;
pub mod pillar;
pub mod places;
pub mod project;
pub mod regulation;
pub mod report;
pub mod source;
pub mod threads;

pub use baked::BakedCorpus;
pub use citation::{Citation, CitationId, CitedRecord, RecordCitation, UnresolvedCitation};
pub use country::{Country, CountryRegistry, EntityKind, PlaceMatch};
pub use curated::{CitationPrefix, RecordDataset, RecordSource};
pub use dataset::{Dataset, DatasetColumn};
pub use derived::{Anomaly, Contradiction, Discoveries, PillarCorrelation, SeriesStats, YearStats};
pub use error::CorpusError;
pub use event::Event;
pub use financing::{FinancingRecord, FlowYear};
pub use index::{IndexDocument, MetricHit, MetricIndex};
pub use institution::{BodyKey, Institution};
pub use json::{read_json, write_json};
pub use manifest::{ArtifactEntry, FORMAT_VERSION, Manifest};
pub use metric::{Coverage, GoodDirection, Metric, ValidRange};
pub use names::{Lang, Names};
pub use observation::{
    ESTIMATE_FLAG, Observation, ObservationTable, PROJECTION_FLAG, VINTAGE_PROJECTION_FLAG,
    has_flag, is_estimate, is_projection,
};
pub use pillar::{Pillar, PillarRegistry};
pub use places::{AmbiguousPlace, OutsidePlace, Places};
pub use project::{PROJECT_INCONSISTENCIES, Project};
pub use regulation::{Law, LawEvent};
pub use report::{
    BakeReport, ConcordanceCount, CuratedRefusal, CuratedReport, DropReason, DroppedRow,
    ExcludedSeries,
};
pub use source::{LinkKind, SourceRecord};
