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
    fs::File,
    path::{Path, PathBuf},
    sync::{Arc, OnceLock},
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
    /// The corpus' `exports/` directory, shared by every file: the file is at `download.path` in it.
    exports: Arc<Path>,
    /// The file's `resource_link` item, kept once the public URL is settled ([`DownloadFile::resource_link`]).
    link: OnceLock<String>,
}

impl DownloadFile {
    /// This file's `resource_link` content item of a tool result, serialized
    /// ([`crate::links::resource_link`]); built once and kept when the process' public URL is settled
    /// (it never changes after), built each time before that.
    pub fn resource_link(&self) -> String {
        self.resource_link_kept_when(crate::links::public_url_settled())
    }

    /// [`DownloadFile::resource_link`], kept only when `settled`.
    fn resource_link_kept_when(&self, settled: bool) -> String {
        if !settled {
            return crate::links::resource_link(self);
        }
        self.link
            .get_or_init(|| crate::links::resource_link(self))
            .clone()
    }

    /// The file's content, read whole.
    ///
    /// # Errors
    /// A message naming the file if it cannot be read, or if its length is no longer the manifest's
    /// (changed in place under the server).
    pub fn content(&self) -> Result<Bytes, String> {
        if self.bytes == 0 {
            return Ok(Bytes::new());
        }
        let path = self.path();
        let content = std::fs::read(&path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
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
                self.path().display(),
                self.bytes
            ));
        }
        let path = self.path();
        let file = File::open(&path)
            .map_err(|error| format!("cannot open {}: {error}", path.display()))?;
        let length = file
            .metadata()
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?
            .len();
        if length != self.bytes {
            return Err(self.changed(length));
        }
        let mut part = vec![0; (end - start + 1) as usize];
        read_exact_at(&file, &mut part, start)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        Ok(Bytes::from(part))
    }

    /// The file's absolute path.
    fn path(&self) -> PathBuf {
        self.exports.join(&self.download.path)
    }

    fn changed(&self, length: u64) -> String {
        format!(
            "{} has {length} bytes, its manifest {}: the published corpus was changed in place (publish a new one with `just bake` instead)",
            self.path().display(),
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

/// Every listed file of the corpus served, with its lookups (sorted lists of file numbers searched by
/// halves: building them allocates nothing per file, so the first call that needs the list, a cold
/// start's first `get_series` among them, waits for little more than its parse).
#[derive(Debug, Default)]
pub struct Downloads {
    files: Vec<DownloadFile>,
    /// File numbers by path.
    by_path: Vec<u32>,
    /// File numbers by (subject, id), each subject's files in list (format) order.
    by_subject: Vec<u32>,
    /// When the corpus was published (the manifest's modification time): the HTTP `Last-Modified`.
    pub published: Option<SystemTime>,
}

impl Downloads {
    /// The entries of `exports/downloads.json` of the corpus in `dir`, in list order (not yet joined
    /// with the manifest: a server parses them while it reads the manifest).
    ///
    /// # Errors
    /// Read errors of the list.
    pub fn parse(dir: &Path) -> Result<Vec<Download>, CorpusError> {
        read_json(&dir.join(DOWNLOADS), "downloads list")
    }

    /// `listed` (the corpus in `dir`'s list, [`Downloads::parse`]) joined with `manifest`.
    ///
    /// # Errors
    /// [`CorpusError::MissingArtifact`] if a listed file is not in the manifest.
    pub fn join(
        dir: &Path,
        manifest: &Manifest,
        listed: Vec<Download>,
    ) -> Result<Downloads, CorpusError> {
        let exports: Arc<Path> = Arc::from(dir.join(corpus::exports::EXPORTS_DIR));
        let mut files = Vec::with_capacity(listed.len());
        for download in listed {
            let entry = manifest
                .artifact(&download.artifact_name())
                .ok_or_else(|| CorpusError::MissingArtifact {
                    path: exports.join(&download.path),
                })?;
            files.push(DownloadFile {
                bytes: entry.bytes,
                sha256: entry.sha256.clone(),
                exports: exports.clone(),
                download,
                link: OnceLock::new(),
            });
        }
        let published = std::fs::metadata(dir.join(layout::MANIFEST))
            .and_then(|metadata| metadata.modified())
            .ok();
        Ok(Downloads::indexed(files, published))
    }

    /// `files` with their lookups.
    fn indexed(files: Vec<DownloadFile>, published: Option<SystemTime>) -> Downloads {
        let numbers = || (0..files.len() as u32).collect::<Vec<u32>>();
        let mut by_path = numbers();
        by_path.sort_unstable_by(|&left, &right| {
            files[left as usize]
                .download
                .path
                .cmp(&files[right as usize].download.path)
        });
        let mut by_subject = numbers();
        // Stable: a subject's files keep their list order.
        by_subject.sort_by(|&left, &right| {
            let key = |number: u32| {
                let download = &files[number as usize].download;
                (download.subject, download.id.as_str())
            };
            key(left).cmp(&key(right))
        });
        Downloads {
            files,
            by_path,
            by_subject,
            published,
        }
    }

    /// Every file, in list order (indicators, datasets, registry, structure).
    pub fn files(&self) -> &[DownloadFile] {
        &self.files
    }

    /// The file at `path` inside `exports/` (`indicators/si_pov_gini.csv`), if listed.
    pub fn by_path(&self, path: &str) -> Option<&DownloadFile> {
        let found = self
            .by_path
            .binary_search_by(|&number| {
                self.files[number as usize].download.path.as_str().cmp(path)
            })
            .ok()?;
        Some(&self.files[self.by_path[found] as usize])
    }

    /// The file with MCP resource URI `uri`, if listed: a file's URI is its subject's URI prefix, its id
    /// and its format's suffix, as its path is its subject's directory, id and suffix.
    pub fn by_uri(&self, uri: &str) -> Option<&DownloadFile> {
        Subject::ALL.into_iter().find_map(|subject| {
            let name = uri.strip_prefix(subject.uri_prefix())?;
            let file = self.by_path(&format!("{}{name}", subject.dir()))?;
            let download = &file.download;
            (download.subject == subject
                && name.strip_prefix(download.id.as_str()) == Some(download.format.suffix()))
            .then_some(file)
        })
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
            .ids(subject)
            .map(|id| (strsim::jaro_winkler(&wanted, id), id))
            .filter(|(score, _)| *score >= 0.85)
            .collect();
        scored.sort_by(|left, right| right.0.total_cmp(&left.0).then(left.1.cmp(right.1)));
        scored.into_iter().take(count).map(|(_, id)| id).collect()
    }

    /// The files of one indicator or dataset, in format order (empty if none).
    pub fn of(&self, subject: Subject, id: &str) -> impl Iterator<Item = &DownloadFile> {
        let key = |number: &u32| {
            let download = &self.files[*number as usize].download;
            (download.subject, download.id.as_str())
        };
        let start = self
            .by_subject
            .partition_point(|number| key(number) < (subject, id));
        let end =
            start + self.by_subject[start..].partition_point(|number| key(number) <= (subject, id));
        self.by_subject[start..end]
            .iter()
            .map(|&number| &self.files[number as usize])
    }

    /// The ids of `subject` that have files, each once, in id order.
    fn ids(&self, subject: Subject) -> impl Iterator<Item = &str> {
        let of_subject = |number: &u32| self.files[*number as usize].download.subject;
        let start = self
            .by_subject
            .partition_point(|number| of_subject(number) < subject);
        let end = self
            .by_subject
            .partition_point(|number| of_subject(number) <= subject);
        let mut previous = None;
        self.by_subject[start..end]
            .iter()
            .filter_map(move |&number| {
                let id = self.files[number as usize].download.id.as_str();
                (previous.replace(id) != Some(id)).then_some(id)
            })
    }
}

#[cfg(test)]
mod tests {
    use corpus::exports::Format;

    use super::*;

    fn listed(
        exports: &Path,
        subject: Subject,
        id: &str,
        format: Format,
        bytes: u64,
    ) -> DownloadFile {
        DownloadFile {
            download: Download::new(subject, id, format, "a title", "CC-BY-4.0"),
            bytes,
            sha256: String::new(),
            exports: Arc::from(exports),
            link: OnceLock::new(),
        }
    }

    #[test]
    fn a_file_s_resource_link_is_the_one_built_for_it_each_time() {
        let file = listed(
            Path::new("/corpus/exports"),
            Subject::Indicator,
            "si_pov_gini",
            Format::Csv,
            2048,
        );
        let built = crate::links::resource_link(&file);
        assert!(
            built.contains(r#""uri":"corpus://indicator/si_pov_gini.csv""#),
            "{built}"
        );
        assert!(built.contains(r#""size":2048"#), "{built}");
        assert_eq!(file.resource_link_kept_when(false), built);
        assert!(
            file.link.get().is_none(),
            "nothing is kept before the URL is settled"
        );
        assert_eq!(file.resource_link_kept_when(true), built);
        assert_eq!(file.link.get(), Some(&built), "kept once settled");
        assert_eq!(
            file.resource_link_kept_when(true),
            built,
            "the kept link is the same"
        );
        assert_eq!(file.resource_link(), built);
    }

    #[test]
    fn files_are_found_by_path_by_resource_uri_and_by_subject_in_list_order() {
        let exports = Path::new("/corpus/exports");
        let files = vec![
            listed(exports, Subject::Indicator, "si_pov_gini", Format::Csv, 1),
            listed(
                exports,
                Subject::Indicator,
                "si_pov_gini",
                Format::WideCsv,
                2,
            ),
            listed(exports, Subject::Indicator, "si_pov_gini", Format::Xlsx, 3),
            listed(
                exports,
                Subject::Indicator,
                "sp_dyn_le00_in",
                Format::Csv,
                4,
            ),
            listed(
                exports,
                Subject::Indicator,
                "sp_dyn_le00_in",
                Format::Parquet,
                5,
            ),
            listed(
                exports,
                Subject::Dataset,
                "observations",
                Format::Parquet,
                6,
            ),
            listed(exports, Subject::Metadata, "datapackage", Format::Json, 7),
        ];
        let downloads = Downloads::indexed(files, None);
        let sizes =
            |found: Vec<&DownloadFile>| found.iter().map(|file| file.bytes).collect::<Vec<_>>();
        assert_eq!(
            sizes(downloads.of(Subject::Indicator, "si_pov_gini").collect()),
            [1, 2, 3]
        );
        assert_eq!(
            sizes(downloads.of(Subject::Indicator, "sp_dyn_le00_in").collect()),
            [4, 5]
        );
        assert_eq!(
            sizes(downloads.of(Subject::Dataset, "observations").collect()),
            [6]
        );
        assert!(
            downloads
                .of(Subject::Dataset, "si_pov_gini")
                .next()
                .is_none()
        );
        assert!(downloads.of(Subject::Indicator, "si_pov").next().is_none());
        for file in downloads.files() {
            let by_path = downloads.by_path(&file.download.path).expect("listed path");
            assert_eq!(by_path.bytes, file.bytes);
            let uri = file.download.resource_uri();
            assert_eq!(
                downloads.by_uri(&uri).expect("listed URI").bytes,
                file.bytes,
                "{uri}"
            );
        }
        assert_eq!(
            downloads
                .by_uri("corpus://indicator/si_pov_gini.wide.csv")
                .map(|file| file.bytes),
            Some(2)
        );
        assert_eq!(
            downloads
                .by_uri("corpus://datapackage.json")
                .map(|file| file.bytes),
            Some(7)
        );
        // A URI of one subject does not name another subject's file, nor an unlisted format.
        assert!(
            downloads
                .by_uri("corpus://indicator/observations.parquet")
                .is_none()
        );
        assert!(
            downloads
                .by_uri("corpus://indicators/si_pov_gini.csv")
                .is_none()
        );
        assert!(
            downloads
                .by_uri("corpus://indicator/si_pov_gini.parquet")
                .is_none()
        );
        assert!(
            downloads
                .by_path("indicators/si_pov_gini.sdmx.xml")
                .is_none()
        );
        assert_eq!(
            downloads.closest_ids(Subject::Indicator, "SI.POV.GINI", 3),
            ["si_pov_gini"]
        );
        assert_eq!(
            downloads.ids(Subject::Indicator).collect::<Vec<_>>(),
            ["si_pov_gini", "sp_dyn_le00_in"]
        );
    }

    #[test]
    fn a_file_is_read_whole_or_by_range_and_a_file_changed_in_place_is_refused_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("indicators/sp_dyn_le00_in.csv");
        std::fs::create_dir(dir.path().join("indicators")).unwrap();
        let text = "country,year,value\nMEX,2024,75.264\n";
        std::fs::write(&path, text).unwrap();
        let file = listed(
            dir.path(),
            Subject::Indicator,
            "sp_dyn_le00_in",
            Format::Csv,
            text.len() as u64,
        );
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
