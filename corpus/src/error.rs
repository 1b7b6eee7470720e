//! The one error type of the artifact contract.

use std::path::PathBuf;

/// Why a baked artifact could not be read, written or trusted.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// A JSON artifact did not parse into its contract type.
    #[error("{path}: not a valid {what}: {source}")]
    Json {
        /// The artifact.
        path: PathBuf,
        /// The contract type expected, e.g. `metric registry`.
        what: &'static str,
        /// The parse error, with line and column.
        source: serde_json::Error,
    },
    /// An Arrow IPC table could not be decoded.
    #[error("{path}: not a readable Arrow IPC file: {message}")]
    Arrow {
        /// The artifact.
        path: PathBuf,
        /// What the Arrow reader reported.
        message: String,
    },
    /// An Arrow IPC table has columns other than the contract's.
    #[error("{path}: column `{column}` should be {expected}, found {found}")]
    Schema {
        /// The artifact.
        path: PathBuf,
        /// The column that differs.
        column: &'static str,
        /// The contract's data type.
        expected: String,
        /// What the file holds (or `missing`).
        found: String,
    },
    /// The corpus was written by another format version of this contract.
    #[error(
        "{path}: format version {found}, this build reads version {expected}; re-run `just bake`"
    )]
    FormatVersion {
        /// The manifest.
        path: PathBuf,
        /// [`crate::FORMAT_VERSION`].
        expected: u32,
        /// The manifest's version.
        found: u32,
    },
    /// An artifact's bytes do not match the sha256 recorded in the manifest.
    #[error(
        "{path}: sha256 {found} does not match the manifest's {expected}; the corpus was modified after publishing"
    )]
    Checksum {
        /// The artifact.
        path: PathBuf,
        /// The manifest's sha256.
        expected: String,
        /// The file's sha256.
        found: String,
    },
    /// The full-text index could not be built or read.
    #[error("{path}: search index: {message}")]
    Index {
        /// The index directory or file.
        path: PathBuf,
        /// What tantivy reported.
        message: String,
    },
    /// An artifact of the contract is absent from the corpus directory.
    #[error(
        "{path}: missing from the corpus (baked by an older build, or edited by hand); re-run `just bake`"
    )]
    MissingArtifact {
        /// The artifact looked for.
        path: PathBuf,
    },
    /// No corpus has been published in the output directory.
    #[error(
        "no baked corpus at {path}: run `just bake`, or point --corpus-dir (CORPUS_OUT_DIR) at the output directory of a bake"
    )]
    NotBaked {
        /// The `current` pointer that was looked for.
        path: PathBuf,
    },
}

impl CorpusError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CorpusError::Io {
            path: path.into(),
            source,
        }
    }
}
