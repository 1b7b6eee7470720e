//! Writing the baked artifacts into the staging directory: the observation tables (polars → Arrow IPC
//! and Parquet) and the JSON registries and report (through `corpus`' writers).

pub mod datasets;
pub mod files;
pub mod tables;
