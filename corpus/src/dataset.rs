//! The dataset catalog (`datasets.json`): every table of the corpus with its id, keys, columns, source
//! and licence. Tools declare the dataset ids they read; the server checks them against this catalog.

use serde::{Deserialize, Serialize};

/// One column of a dataset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetColumn {
    /// Column name.
    pub name: String,
    /// Type (`string`, `int32`, `float64`, `object`, …).
    #[serde(rename = "type")]
    pub data_type: String,
    /// What it holds.
    pub description: String,
}

impl DatasetColumn {
    /// The columns written as `(name, type, description)` rows.
    pub fn from_specs(specs: &[(&str, &str, &str)]) -> Vec<DatasetColumn> {
        specs
            .iter()
            .map(|(name, data_type, description)| DatasetColumn {
                name: name.to_string(),
                data_type: data_type.to_string(),
                description: description.to_string(),
            })
            .collect()
    }
}

/// One dataset of the corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dataset {
    /// Stable id (`observations`).
    pub dataset_id: String,
    /// Title.
    pub title: String,
    /// What it holds.
    pub description: String,
    /// Artifact files of the corpus directory that hold it (empty for a derived dataset such as `citations`).
    pub artifacts: Vec<String>,
    /// Columns that identify a row.
    pub keys: Vec<String>,
    /// Its columns.
    pub columns: Vec<DatasetColumn>,
    /// Where its content comes from (source ids, or `catalog` for steward content).
    pub sources: Vec<String>,
    /// Licence of the content (the most restrictive licence of its sources).
    pub license: String,
    /// Number of rows or records.
    pub rows: u64,
}
