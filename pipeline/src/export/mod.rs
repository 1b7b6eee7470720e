//! Writing the baked artifacts into the staging directory: the observation tables (polars → Arrow IPC
//! and Parquet), the JSON registries and report (through `corpus`' writers), and the analysts' files
//! under `exports/` (per indicator and per dataset; see [`corpus::exports`]).

pub mod croissant;
pub mod datapackage;
pub mod dataset_files;
pub mod datasets;
pub mod downloads;
pub mod indicator_zip;
pub mod indicators;
pub mod parquet;
pub mod sdmx;
pub mod tables;
