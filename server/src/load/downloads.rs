//! The analysts' files of the corpus served (`exports/downloads.json`, see [`corpus::exports`]): each
//! download joined with its manifest entry (size, sha256), looked up by path, resource URI or subject, and
//! its bytes read from disk for each response (a whole file, or only the bytes of a range).
//!
//! The files are read, never memory-mapped: a file truncated or rewritten in place under a running
//! server (an operator's `rsync --inplace` over a published directory) makes that one response fail
//! (its length no longer the manifest's: 503, logged), where a mapped file would kill the process with
//! SIGBUS. The page cache keeps a file read often as cheap as a map would.
//!
//! Only listed files can be read: a path or URI that is not in the list is not found, and nothing is
//! read from disk for it (no path is ever joined from request input).

use std::{
    collections::HashMap,
    fs::File,
    path::{Path, PathBuf},
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
}

impl DownloadFile {
    /// The file's content, read whole.
    ///
    /// # Errors
    /// A message naming the file if it cannot be read, or if its length is no longer the manifest's
    /// (changed in place under the server).
    pub fn content(&self) -> Result<Bytes, String> {
        if self.bytes == 0 {
            return Ok(Bytes::new());
        }
        let content = std::fs::read(&self.path)
            .map_err(|error| format!("cannot read {}: {error}", self.path.display()))?;
        if content.len() as u64 != self.bytes {
            return Err(self.changed(content.len() as u64));
        }
        Ok(Bytes::from(content))
    }

    /// Bytes `start..=end` of the file (a range inside [`DownloadFile::bytes`]).
    ///
    /// # Errors
    /// As [`DownloadFile::content`]; also a range past the end.
    pub fn content_range(&self, start: u64, end: u64) -> Result<Bytes, String> {
        if end < start || end >= self.bytes {
            return Err(format!(
                "bytes {start}-{end} are outside {} ({} bytes)",
                self.path.display(),
                self.bytes
            ));
        }
        let file = File::open(&self.path)
            .map_err(|error| format!("cannot open {}: {error}", self.path.display()))?;
        let length = file
            .metadata()
            .map_err(|error| format!("cannot read {}: {error}", self.path.display()))?
            .len();
        if length != self.bytes {
            return Err(self.changed(length));
        }
        let mut part = vec![0; (end - start + 1) as usize];
        read_exact_at(&file, &mut part, start)
            .map_err(|error| format!("cannot read {}: {error}", self.path.display()))?;
        Ok(Bytes::from(part))
    }

    fn changed(&self, length: u64) -> String {
        format!(
            "{} has {length} bytes, its manifest {}: the published corpus was changed in place (publish a new one with `just bake` instead)",
            self.path.display(),
            self.bytes
        )
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

#[cfg(not(unix))]
fn read_exact_at(mut file: &File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buffer)
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

#[cfg(test)]
mod tests {
    use corpus::exports::Format;

    use super::*;

    fn listed(path: PathBuf, bytes: u64) -> DownloadFile {
        DownloadFile {
            download: Download::new(
                Subject::Indicator,
                "sp_dyn_le00_in",
                Format::Csv,
                "Life expectancy at birth, total (years)",
                "CC-BY-4.0",
            ),
            bytes,
            sha256: String::new(),
            path,
        }
    }

    #[test]
    fn a_file_is_read_whole_or_by_range_and_a_file_changed_in_place_is_refused_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sp_dyn_le00_in.csv");
        let text = "country,year,value\nMEX,2024,75.264\n";
        std::fs::write(&path, text).unwrap();
        let file = listed(path.clone(), text.len() as u64);
        assert_eq!(file.content().unwrap(), text.as_bytes());
        assert_eq!(file.content_range(19, 21).unwrap(), &b"MEX"[..]);
        assert!(
            file.content_range(0, text.len() as u64).is_err(),
            "past the end"
        );
        // Truncated in place (`rsync --inplace`, `: > file`): that read fails, naming the file; the
        // process lives on (a memory map would have raised SIGBUS here).
        std::fs::write(&path, "country,year").unwrap();
        let error = file.content().unwrap_err();
        assert!(
            error.contains("changed in place") && error.contains("sp_dyn_le00_in.csv"),
            "{error}"
        );
        let error = file.content_range(19, 21).unwrap_err();
        assert!(error.contains("changed in place"), "{error}");
    }
}
