//! Writing and reading the JSON artifacts, deterministically.

use std::path::Path;

use serde::{Serialize, de::DeserializeOwned};

use crate::CorpusError;

/// Writes `value` to `path` as pretty-printed JSON with a final newline.
///
/// Output is deterministic for deterministic input: struct fields keep their declaration order and
/// every map in the contract types is a `BTreeMap`.
///
/// # Errors
/// [`CorpusError::Io`] if the file cannot be written.
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), CorpusError> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("contract types always serialize");
    bytes.push(b'\n');
    std::fs::write(path, bytes).map_err(|error| CorpusError::io(path, error))
}

/// Reads the JSON artifact at `path` into `T`; `what` names the contract type in errors.
///
/// # Errors
/// [`CorpusError::Io`] if the file cannot be read, [`CorpusError::Json`] if it does not parse as `T`.
pub fn read_json<T: DeserializeOwned>(path: &Path, what: &'static str) -> Result<T, CorpusError> {
    let bytes = std::fs::read(path).map_err(|error| CorpusError::io(path, error))?;
    serde_json::from_slice(&bytes).map_err(|source| CorpusError::Json {
        path: path.to_path_buf(),
        what,
        source,
    })
}
