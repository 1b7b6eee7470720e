//! The steward's own records: a CSV in `data/curated/overrides/`, named after a curated source
//! (`wb_projects.csv`, `cclw_laws.csv`, `gov_nso_registry.csv`…), with the raw table's columns. Its rows
//! are read after the raw table's and validated the same way: a row with the key of a raw record replaces
//! that record (counted as an override in the bake report), a row with a new key adds a record.

use std::path::{Path, PathBuf};

/// The overrides directory inside a catalog directory.
pub const DIR: &str = "curated/overrides";

/// The override file of source `source_id` and its label in the bake report, when the steward made one.
pub fn path(catalog_dir: &Path, source_id: &str) -> Option<(PathBuf, String)> {
    let label = format!("{DIR}/{source_id}.csv");
    let path = catalog_dir.join(&label);
    path.is_file().then_some((path, label))
}
