//! The analysts' files of the corpus served (`exports/downloads.json`, see [`corpus::exports`]): each
//! download joined with its manifest entry (size, sha256), looked up by path, resource URI or subject, and
//! its bytes memory-mapped once on first use and shared (`Bytes`) by every response after.
//!
//! Only listed files can be read: a path or URI that is not in the list is not found, and nothing is
//! read from disk for it (no path is ever joined from request input).

use std::{
    collections::HashMap,
    fs::File,
    path::{Path, PathBuf},
    sync::OnceLock,
    time::SystemTime,
};

use bytes::Bytes;
use corpus::{
    CorpusError, Manifest,
    exports::{DOWNLOADS, Download, Subject},
    layout, read_json,
};

/// One listed file.
#[derive(Debug)]
pub struct DownloadFile {
    /// What the bake listed.
    pub download: Download,
    /// Size in bytes (manifest).
    pub bytes: u64,
    /// Lower-case hex sha256 of the content (manifest); the HTTP `ETag`.
    pub sha256: String,
    /// Absolute path of the file.
    path: PathBuf,
    /// The mapped content, on first read.
    content: OnceLock<Result<Bytes, String>>,
}

impl DownloadFile {
    /// The file's content, memory-mapped on the first call and shared after (no copy per response).
    ///
    /// # Errors
    /// A message naming the file if it cannot be opened or mapped.
    pub fn content(&self) -> Result<Bytes, String> {
        self.content
            .get_or_init(|| {
                let file = File::open(&self.path)
                    .map_err(|error| format!("cannot open {}: {error}", self.path.display()))?;
                if self.bytes == 0 {
                    return Ok(Bytes::new());
                }
                // SAFETY: a published corpus directory is never modified (the bake writes a new one
                // and swaps a symlink), so the mapped bytes do not change under the map.
                let map = unsafe { memmap2::Mmap::map(&file) }
                    .map_err(|error| format!("cannot map {}: {error}", self.path.display()))?;
                Ok(Bytes::from_owner(map))
            })
            .clone()
    }
}

/// Every listed file of the corpus served, with its lookups.
#[derive(Debug, Default)]
pub struct Downloads {
    files: Vec<DownloadFile>,
    by_path: HashMap<String, usize>,
    by_uri: HashMap<String, usize>,
    by_subject: HashMap<(Subject, String), Vec<usize>>,
    /// When the corpus was published (the manifest's modification time): the HTTP `Last-Modified`.
    pub published: Option<SystemTime>,
}

impl Downloads {
    /// Reads `exports/downloads.json` of the corpus in `dir` and joins each entry with `manifest`.
    ///
    /// # Errors
    /// [`CorpusError::MissingArtifact`] if the list or a listed file is not in the manifest; read errors
    /// of the list.
    pub fn read(dir: &Path, manifest: &Manifest) -> Result<Downloads, CorpusError> {
        let listed: Vec<Download> = read_json(&dir.join(DOWNLOADS), "downloads list")?;
        let mut downloads = Downloads {
            published: std::fs::metadata(dir.join(layout::MANIFEST))
                .and_then(|metadata| metadata.modified())
                .ok(),
            ..Downloads::default()
        };
        for download in listed {
            let name = download.artifact_name();
            let entry = manifest
                .artifact(&name)
                .ok_or_else(|| CorpusError::MissingArtifact {
                    path: dir.join(&name),
                })?;
            let index = downloads.files.len();
            downloads.by_path.insert(download.path.clone(), index);
            downloads.by_uri.insert(download.resource_uri(), index);
            downloads
                .by_subject
                .entry((download.subject, download.id.clone()))
                .or_default()
                .push(index);
            downloads.files.push(DownloadFile {
                bytes: entry.bytes,
                sha256: entry.sha256.clone(),
                path: dir.join(&name),
                download,
                content: OnceLock::new(),
            });
        }
        Ok(downloads)
    }

    /// Every file, in list order (indicators, datasets, registry, structure).
    pub fn files(&self) -> &[DownloadFile] {
        &self.files
    }

    /// The file at `path` inside `exports/` (`indicators/si_pov_gini.csv`), if listed.
    pub fn by_path(&self, path: &str) -> Option<&DownloadFile> {
        self.by_path.get(path).map(|&index| &self.files[index])
    }

    /// The file with MCP resource URI `uri`, if listed.
    pub fn by_uri(&self, uri: &str) -> Option<&DownloadFile> {
        self.by_uri.get(uri).map(|&index| &self.files[index])
    }

    /// Up to `count` ids of `subject` closest to `text`, best first: the id `text` names when read
    /// case-insensitively with `.` and `-` as `_` (`SI.POV.GINI` → `si_pov_gini`), then ids within a
    /// Jaro-Winkler similarity of 0.85 (`si_pov_gin`).
    pub fn closest_ids(&self, subject: Subject, text: &str, count: usize) -> Vec<&str> {
        let wanted: String = text
            .chars()
            .take(128)
            .map(|character| match character {
                '.' | '-' => '_',
                other => other.to_ascii_lowercase(),
            })
            .collect();
        let mut scored: Vec<(f64, &str)> = self
            .by_subject
            .keys()
            .filter(|(of, _)| *of == subject)
            .map(|(_, id)| (strsim::jaro_winkler(&wanted, id), id.as_str()))
            .filter(|(score, _)| *score >= 0.85)
            .collect();
        scored.sort_by(|left, right| right.0.total_cmp(&left.0).then(left.1.cmp(right.1)));
        scored.into_iter().take(count).map(|(_, id)| id).collect()
    }

    /// The files of one indicator or dataset, in format order (empty if none).
    pub fn of(&self, subject: Subject, id: &str) -> impl Iterator<Item = &DownloadFile> {
        self.by_subject
            .get(&(subject, id.to_string()))
            .into_iter()
            .flatten()
            .map(|&index| &self.files[index])
    }
}
