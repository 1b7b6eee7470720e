//! The bake's error type: everything that stops a bake before it publishes.

use std::path::PathBuf;

/// A fatal bake error. Any of these leaves the previously published corpus in place and untouched.
#[derive(Debug, thiserror::Error)]
pub enum BakeError {
    /// A catalog file is invalid: the message names the file, the field and what would be valid.
    #[error("{file}: {message}")]
    Catalog {
        /// The catalog file.
        file: PathBuf,
        /// What is wrong, naming the field and the valid values.
        message: String,
    },
    /// A raw source file is missing or unreadable.
    #[error("{file}: {message}")]
    RawFile {
        /// The raw file.
        file: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A source names countries the shared normaliser cannot map to the catalog's ISO3 codes.
    #[error("source `{source_id}`: country names that map to no LAC country or aggregate: {}; add them as aliases in the country list, or to the connector's `ignore_entities` if they are not countries", names.join(", "))]
    UnmappedEntities {
        /// Source id.
        source_id: String,
        /// The names, sorted.
        names: Vec<String>,
    },
    /// Reading or writing a file of the output directory failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Building or writing a table failed in polars.
    #[error("writing {artifact}: {message}")]
    Table {
        /// The artifact being written.
        artifact: String,
        /// What polars reported.
        message: String,
    },
    /// `pipeline diff` was given something that is not a corpus.
    #[error("{0}")]
    Diff(String),
    /// An artifact-contract error.
    #[error(transparent)]
    Corpus(#[from] corpus::CorpusError),
}

impl BakeError {
    /// A catalog error for `file`.
    pub fn catalog(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        BakeError::Catalog {
            file: file.into(),
            message: message.into(),
        }
    }

    /// A raw-file error for `file`.
    pub fn raw_file(file: impl Into<PathBuf>, message: impl std::fmt::Display) -> Self {
        BakeError::RawFile {
            file: file.into(),
            message: message.to_string(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        BakeError::Io {
            path: path.into(),
            source,
        }
    }
}
