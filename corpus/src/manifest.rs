//! The manifest (`manifest.json`): format version, corpus version and a checksum per artifact.

use std::{
    io::Read,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{CorpusError, layout, read_json, write_json};

/// Version of this artifact contract. Bump it when a file's layout changes; readers refuse other versions.
/// 6: concordance rows may cite a third cell (`right_times_*`: per capita × population).
/// 7: the analysts' files under `exports/` (per indicator and dataset, `exports/downloads.json`); the Parquet
/// tables moved into `exports/datasets/`.
/// 8: the curated `projects` dataset (`projects.json`).
/// 9: the curated `regulation`, `institutions`, `financing` and `events` datasets; projects carry a stage and
/// co-financing (GEF).
/// 10: projects' older-export fields and title pillars; events' texts in es/pt; `geffund-` ids.
/// 11: the curated records' publisher, licence and attribution declared once per source
/// (`record_sources.json`), no longer in every record.
/// 12: year statistics carry their weight, weight share and the publisher's own aggregate (LCN); derived
/// rules name weighted means and bounded scales; data health adds the reliability score; observations
/// may be flagged `estimate` or `vintage_projection`; CRS financing records keep their yearly amounts
/// (`years`); the index holds a project title's glossary words as its synonyms.
/// 13: a project's `commitment_usd` is IBRD + IDA only (grants apart) and records carry their publisher
/// inconsistencies; instruments and agencies sum their approved projects (grants apart, Pipeline listed
/// apart); implementing agencies are one record per body (`aliases`).
pub const FORMAT_VERSION: u32 = 13;

/// Artifacts listed with their checksum but left out of the corpus version: what depends on the corpus
/// a bake replaced rather than on its inputs ([`layout::CHANGES`]). The same inputs then give the same
/// version whichever corpus was current before.
pub const UNVERSIONED: [&str; 1] = [layout::CHANGES];

/// One artifact file and its checksum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactEntry {
    /// File name inside the corpus directory.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Lower-case hex sha256 of the file.
    pub sha256: String,
}

/// The manifest of a baked corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// Content hash of every artifact but the [`UNVERSIONED`] ones: the first 16 hex digits of the sha256
    /// over each artifact's name and sha256, in name order. The same inputs give the same version.
    pub corpus_version: String,
    /// Every artifact file except the manifest itself, sorted by name; files of a subdirectory are named
    /// `dir/file` (`index/meta.json`).
    pub artifacts: Vec<ArtifactEntry>,
}

impl Manifest {
    /// Hashes every file in `dir` (except a manifest) and computes the corpus version. The files are
    /// hashed on as many threads as the machine has cores (a corpus has about 4,000).
    ///
    /// # Errors
    /// [`CorpusError::Io`] if the directory or a file cannot be read.
    pub fn compute(dir: &Path) -> Result<Manifest, CorpusError> {
        let mut files = Vec::new();
        collect_artifacts(dir, "", &mut files)?;
        let mut artifacts = hash_files(files)?;
        artifacts.sort_by(|left, right| left.name.cmp(&right.name));
        let mut hasher = Sha256::new();
        for artifact in artifacts
            .iter()
            .filter(|artifact| !UNVERSIONED.contains(&artifact.name.as_str()))
        {
            hasher.update(artifact.name.as_bytes());
            hasher.update(b"\0");
            hasher.update(artifact.sha256.as_bytes());
            hasher.update(b"\n");
        }
        let corpus_version = hex(&hasher.finalize())[..16].to_string();
        Ok(Manifest {
            format_version: FORMAT_VERSION,
            corpus_version,
            artifacts,
        })
    }

    /// Hashes the file `name` of `dir` and lists it (in name order, replacing an entry of that name). For
    /// an [`UNVERSIONED`] artifact written after the version is known; the version is not recomputed, so
    /// any other name is refused.
    ///
    /// # Errors
    /// [`CorpusError::Io`] if the file cannot be read; [`CorpusError::Io`] of kind `InvalidInput` for a
    /// name outside [`UNVERSIONED`].
    pub fn add_unversioned(&mut self, dir: &Path, name: &str) -> Result<(), CorpusError> {
        let path = dir.join(name);
        if !UNVERSIONED.contains(&name) {
            return Err(CorpusError::io(
                &path,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("only {UNVERSIONED:?} may be added after the version is computed"),
                ),
            ));
        }
        let (bytes, sha256) = hash_file(&path)?;
        self.artifacts.retain(|artifact| artifact.name != name);
        let entry = ArtifactEntry {
            name: name.to_string(),
            bytes,
            sha256,
        };
        let at = self
            .artifacts
            .partition_point(|artifact| artifact.name.as_str() < name);
        self.artifacts.insert(at, entry);
        Ok(())
    }

    /// Writes the manifest into `dir`.
    ///
    /// # Errors
    /// [`CorpusError::Io`] if it cannot be written.
    pub fn write(&self, dir: &Path) -> Result<(), CorpusError> {
        write_json(&dir.join(layout::MANIFEST), self)
    }

    /// Reads the manifest of the corpus in `dir` and checks its format version.
    ///
    /// # Errors
    /// [`CorpusError::Io`]/[`CorpusError::Json`] if unreadable, [`CorpusError::FormatVersion`] if written by
    /// another version of this contract.
    pub fn read(dir: &Path) -> Result<Manifest, CorpusError> {
        let path = dir.join(layout::MANIFEST);
        let mut manifest: Manifest = read_json(&path, "corpus manifest")?;
        // Written sorted by name; a list edited by hand is sorted again, so lookups stay right.
        if !manifest
            .artifacts
            .is_sorted_by(|left, right| left.name <= right.name)
        {
            manifest
                .artifacts
                .sort_by(|left, right| left.name.cmp(&right.name));
        }
        if manifest.format_version != FORMAT_VERSION {
            return Err(CorpusError::FormatVersion {
                path,
                expected: FORMAT_VERSION,
                found: manifest.format_version,
            });
        }
        Ok(manifest)
    }

    /// Re-hashes every artifact in `dir` and checks it against this manifest.
    ///
    /// # Errors
    /// [`CorpusError::Checksum`] naming the first artifact whose bytes changed; [`CorpusError::Io`] if one
    /// is missing.
    pub fn verify(&self, dir: &Path) -> Result<(), CorpusError> {
        for artifact in &self.artifacts {
            let path = dir.join(&artifact.name);
            let (_, sha256) = hash_file(&path)?;
            if sha256 != artifact.sha256 {
                return Err(CorpusError::Checksum {
                    path,
                    expected: artifact.sha256.clone(),
                    found: sha256,
                });
            }
        }
        Ok(())
    }

    /// The entry for the artifact `name`, if listed: a binary search of the name-sorted list (the server
    /// looks up each of ~4,000 downloads at start-up).
    pub fn artifact(&self, name: &str) -> Option<&ArtifactEntry> {
        self.artifacts
            .binary_search_by(|artifact| artifact.name.as_str().cmp(name))
            .ok()
            .map(|found| &self.artifacts[found])
    }
}

/// The directory the `current` pointer in `out_dir` names: a symbolic link (as the bake publishes it) or
/// a one-line file holding the directory's name (a copy that lost links).
///
/// # Errors
/// [`CorpusError::NotBaked`] if there is no pointer.
pub fn current_dir(out_dir: &Path) -> Result<PathBuf, CorpusError> {
    let pointer = out_dir.join(layout::CURRENT);
    // A symbolic link, as the bake publishes it; or, where a copy lost links (an MCP Bundle unpacked on
    // Windows or macOS), a one-line file naming the corpus directory.
    let target = std::fs::read_link(&pointer)
        .ok()
        .or_else(|| {
            let named = std::fs::read_to_string(&pointer).ok()?;
            let named = named.trim();
            (!named.is_empty() && !named.contains(['/', '\\']) && named != "..")
                .then(|| PathBuf::from(named))
        })
        .ok_or_else(|| CorpusError::NotBaked {
            path: pointer.clone(),
        })?;
    Ok(if target.is_absolute() {
        target
    } else {
        out_dir.join(target)
    })
}

/// Adds every file under `dir` (one level of subdirectories and deeper) to `files`, named relative to the
/// corpus directory with `/` separators; the top-level manifest is skipped.
fn collect_artifacts(
    dir: &Path,
    prefix: &str,
    files: &mut Vec<(String, std::path::PathBuf)>,
) -> Result<(), CorpusError> {
    let entries = std::fs::read_dir(dir).map_err(|error| CorpusError::io(dir, error))?;
    for entry in entries {
        let path = entry.map_err(|error| CorpusError::io(dir, error))?.path();
        let file_name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default();
        let name = format!("{prefix}{file_name}");
        if path.is_dir() {
            collect_artifacts(&path, &format!("{name}/"), files)?;
        } else if name != layout::MANIFEST {
            files.push((name, path));
        }
    }
    Ok(())
}

/// The entries of `files` (name, path), hashed on one scoped thread per core, each taking every n-th
/// file; in no particular order.
fn hash_files(files: Vec<(String, std::path::PathBuf)>) -> Result<Vec<ArtifactEntry>, CorpusError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, files.len().max(1));
    let hash_share = |first: usize| -> Result<Vec<ArtifactEntry>, CorpusError> {
        files
            .iter()
            .skip(first)
            .step_by(threads)
            .map(|(name, path)| {
                let (bytes, sha256) = hash_file(path)?;
                Ok(ArtifactEntry {
                    name: name.clone(),
                    bytes,
                    sha256,
                })
            })
            .collect()
    };
    std::thread::scope(|scope| {
        let shares: Vec<_> = (1..threads)
            .map(|first| scope.spawn(move || hash_share(first)))
            .collect();
        let mut artifacts = hash_share(0)?;
        for share in shares {
            artifacts.extend(share.join().expect("a hashing thread does not panic")?);
        }
        Ok(artifacts)
    })
}

fn hash_file(path: &Path) -> Result<(u64, String), CorpusError> {
    let mut file = std::fs::File::open(path).map_err(|error| CorpusError::io(path, error))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|error| CorpusError::io(path, error))?;
        if read == 0 {
            break;
        }
        total += read as u64;
        hasher.update(&buffer[..read]);
    }
    Ok((total, hex(&hasher.finalize())))
}

/// `bytes` in lower-case hexadecimal (two digits a byte), as checksums are written.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
