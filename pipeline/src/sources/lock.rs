//! The lock file (`{catalog}/sources.lock.json`): per source, what its last `pipeline fetch` brought —
//! each file's path in the raw folder, URL, sha256, size and the publisher's `Last-Modified` date, the
//! retrieval date and the vintage it implies. `pipeline fetch` writes it ([`crate::fetch`]); the bake reads
//! it to cite a refreshed source with the dates of the files it actually reads ([`Catalog::refreshed`]).

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use corpus::manifest::hex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Catalog, SourceEntry};

/// The lock file's name, in the catalog directory.
pub const LOCK_FILE: &str = "sources.lock.json";

/// The lock file: per source, when it was fetched and what each file was.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    /// By source id.
    pub sources: BTreeMap<String, LockedSource>,
}

/// One source's last fetch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedSource {
    /// Retrieval date, `YYYY-MM-DD` (UTC).
    pub retrieved_at: String,
    /// The release the fetched files are, as cited: the newest `Last-Modified` date the publisher sent
    /// (`YYYY-MM-DD`), else the retrieval date. A connector that reads a release from the files
    /// themselves (per series) overrides it in the citation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vintage: Option<String>,
    /// The files fetched.
    pub files: Vec<LockedFile>,
}

/// One fetched file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedFile {
    /// Path inside the raw folder.
    pub file: String,
    /// The URL it was asked for at.
    pub url: String,
    /// sha256 of its bytes, hex.
    pub sha256: String,
    /// Its size.
    pub bytes: u64,
    /// For a member unpacked from a downloaded zip: the archive's path as declared (its URL, sha256 and
    /// size are then the archive's; the member's own are `member_sha256` and `member_bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
    /// The member's sha256, for a file unpacked from an archive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member_sha256: Option<String>,
    /// The member's size, for a file unpacked from an archive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member_bytes: Option<u64>,
    /// The publisher's `Last-Modified` date of the download, `YYYY-MM-DD`, when it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl LockedFile {
    /// The sha256 of the file as it lies in the raw folder (the member's for an unpacked member).
    pub fn kept_sha256(&self) -> &str {
        self.member_sha256.as_deref().unwrap_or(&self.sha256)
    }
}

impl Lock {
    /// The lock file of `catalog_dir` (empty when there is none).
    ///
    /// # Errors
    /// The lock file's path and the error, if it exists but cannot be read or parsed.
    pub fn read(catalog_dir: &Path) -> Result<Lock, (PathBuf, std::io::Error)> {
        let path = catalog_dir.join(LOCK_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|error| {
                (
                    path.clone(),
                    std::io::Error::new(std::io::ErrorKind::InvalidData, error),
                )
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Lock::default()),
            Err(error) => Err((path, error)),
        }
    }

    /// Writes the lock beside the lock file (`.sources.lock.json.{pid}`), for the caller to rename over
    /// it; the temporary file's path.
    ///
    /// # Errors
    /// The temporary file's path and the error, if it cannot be written.
    pub(crate) fn write_beside(
        &self,
        catalog_dir: &Path,
    ) -> Result<PathBuf, (PathBuf, std::io::Error)> {
        let next = catalog_dir.join(format!(".{LOCK_FILE}.{}", std::process::id()));
        let mut text = serde_json::to_string_pretty(self).expect("the lock serializes");
        text.push('\n');
        std::fs::write(&next, text).map_err(|error| (next.clone(), error))?;
        Ok(next)
    }

    /// The source's last fetch when every file it left is in `raw_dir` with the sha256 recorded:
    /// the files the bake reads are the ones fetched (none: never fetched, or changed since by hand).
    pub fn intact(&self, source_id: &str, raw_dir: &Path) -> Option<&LockedSource> {
        let locked = self.sources.get(source_id)?;
        locked
            .files
            .iter()
            .all(|file| {
                std::fs::read(raw_dir.join(&file.file))
                    .is_ok_and(|bytes| hex(&Sha256::digest(bytes)) == file.kept_sha256())
            })
            .then_some(locked)
    }
}

/// Where a source's values are read from, for the bake report and `pipeline sources`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ReadFrom {
    /// The staged extract, with the catalog's `[connector]`, vintage and retrieval date.
    #[default]
    Staged,
    /// The publisher's files a fetch brought, intact, cited with the lock's vintage and retrieval date.
    Refreshed {
        /// Retrieval date of the fetch.
        retrieved_at: String,
    },
    /// The publisher's files are there, but not as the lock records them (edited or copied by hand): read
    /// with the refresh connector, cited with the catalog's dates.
    RefreshedByHand,
}

impl Catalog {
    /// The catalog as the bake reads it after any fetch: each source whose refreshed files are all in its
    /// raw folder ([`super::refresh::Refresh::is_present`]) is read with its `[refresh.connector]` (when it
    /// declares one), and, when those files are intact as the lock records them ([`Lock::intact`]), cited
    /// with the lock's vintage and retrieval date instead of the catalog's. Other sources are unchanged.
    pub fn refreshed(&self, sources_dir: &Path, lock: &Lock) -> Catalog {
        let mut catalog = self.clone();
        for source in &mut catalog.sources {
            let Some(refresh) = source.refresh.clone() else {
                continue;
            };
            let codes = self.refresh_codes(source);
            let raw_dir = source.raw_dir(sources_dir);
            // A refresh with its own connector needs its own files; one read by `[connector]` counts
            // as refreshed only through the lock.
            let present = refresh.is_present(&codes, &raw_dir);
            let intact = lock.intact(&source.id, &raw_dir);
            if let Some(connector) = &refresh.connector
                && present
            {
                source.connector = connector.clone();
                source.read_from = ReadFrom::RefreshedByHand;
            }
            if let Some(locked) = intact
                && (present || refresh.connector.is_none())
            {
                source.retrieved_at = locked.retrieved_at.clone();
                source.vintage = locked
                    .vintage
                    .clone()
                    .unwrap_or_else(|| locked.retrieved_at.clone());
                source.read_from = ReadFrom::Refreshed {
                    retrieved_at: locked.retrieved_at.clone(),
                };
            }
        }
        catalog
    }

    /// The publisher codes a source's per-indicator refresh URLs expand (`{code}`): its mapped
    /// indicators' `source_code`s, or the publisher's code the refresh connector names for one
    /// ([`crate::sources::Connector::publisher_code`]: WBL's `WBL.INDEX` is the API's `SG.LAW.INDX`), in
    /// mapping order (empty for a source without a mapping).
    pub fn refresh_codes(&self, source: &SourceEntry) -> Vec<String> {
        let connector = source
            .refresh
            .as_ref()
            .and_then(|refresh| refresh.connector.as_ref())
            .unwrap_or(&source.connector);
        self.mappings
            .get(&source.id)
            .map(|mapping| {
                mapping
                    .rows
                    .iter()
                    .map(|row| connector.publisher_code(&row.source_code).to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}
