//! The bake: turns the declared sources of the catalog (`data/`) and their raw files
//! (`../shared/data/sources`) into a published, governed corpus (`data/baked/current`).
//!
//! Data flow, one module per step: [`sources`] (catalog files, validated) → [`ingest`] (connectors read
//! raw rows, cells as written) → [`govern`] (checks; every dropped row reported) → [`derive`]
//! (every derived table: concordance, rules, discoveries, correlations, statistics, data health) → [`index`] (the search documents) and [`export`] (polars
//! writes the observation tables; `corpus` writes the registries) → [`publish`] (content-hashed
//! directory, atomic pointer swap), with [`diff`] (what the new corpus changed against the one it replaces,
//! `exports/changes.json`). [`bake::bake`] runs them in order. The other two commands sit beside
//! it: [`status`] (`pipeline sources`: what ingest and governance make of each source) and [`fetch`]
//! (`pipeline fetch`).
//!
//! Guarantees: the same catalog and raw files give byte-identical artifacts and the same corpus
//! version; a failed bake publishes nothing and leaves the previous corpus current; the bake never
//! touches the network.
//!
//! ```no_run
//! use pipeline::bake::{BakeOptions, bake};
//! let summary = bake(&BakeOptions {
//!     sources_dir: "../shared/data/sources".into(),
//!     catalog_dir: "data".into(),
//!     out_dir: "data/baked".into(),
//!     progress: false,
//! })?;
//! println!("published {}", summary.manifest.corpus_version);
//! # Ok::<(), pipeline::BakeError>(())
//! ```

pub mod bake;
pub mod derive;
pub mod diff;
pub mod error;
pub mod export;
pub mod fetch;
pub mod govern;
pub mod index;
pub mod ingest;
pub mod paths;
pub mod publish;
pub mod sources;
pub mod status;

pub use error::BakeError;
