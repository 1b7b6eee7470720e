//! `pipeline fetch [SOURCE…]`: refreshes sources' raw files from their publishers, as their catalog files
//! declare (`[refresh]`, [`crate::sources::refresh`]), and records what was fetched in the lock file.
//!
//! Per source, all or nothing:
//! 1. The credential, when one is declared, must be set (its value is never printed); else nothing is
//!    requested.
//! 2. Every file is downloaded into a staging folder beside the source's raw folder
//!    (`.fetch-{source}-{pid}`): `Accept-Encoding: identity` (a compressed response is refused), redirects
//!    followed by hand, at most [`MAX_REDIRECTS`], each to a URL the policy admits (https, allow-listed
//!    host), the body capped at the policy's `max_bytes` and checked against its `Content-Length`.
//! 3. Only when every file arrived whole are they renamed into the raw folder (each rename atomic), and
//!    the lock file (`{catalog}/sources.lock.json`) gets each file's URL, sha256, bytes and the retrieval
//!    date. A failed or partial download leaves the raw folder and the lock file as they were.
//!
//! The bake never runs any of this: it reads the files on disk, and `just bake` publishes what a fetch
//! brought.

mod archive;
mod download;
mod status;

use std::{
    io::Read,
    path::{Path, PathBuf},
    time::Duration,
};

use corpus::manifest::hex;
use sha2::{Digest, Sha256};

pub use crate::sources::lock::{LOCK_FILE, Lock, LockedFile, LockedSource};
pub use status::{RefreshStatus, statuses, table};

use crate::sources::{
    Catalog, SourceEntry,
    refresh::{FetchPolicy, Refresh, RefreshFormat},
};

/// The most redirects one download follows.
pub const MAX_REDIRECTS: usize = 5;
/// How long one download may take in all.
pub const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(600);
/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a response may go without sending a byte (a stalled server).
pub const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// What went wrong fetching a source; nothing of it was changed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The source is not in the catalog, or declares no refresh.
    #[error("{0}")]
    Source(String),
    /// A declared credential is not set.
    #[error(
        "source `{source_id}` needs the credential in the environment variable {variable}, which is not set; nothing was requested"
    )]
    MissingCredential {
        /// Source id.
        source_id: String,
        /// The variable's name.
        variable: String,
    },
    /// A download failed (policy, HTTP, size, encoding, truncation).
    #[error("source `{source_id}`: {url}: {problem}; nothing was changed")]
    Download {
        /// Source id.
        source_id: String,
        /// The URL asked for first.
        url: String,
        /// What happened.
        problem: String,
    },
    /// Writing the staged files, the raw folder or the lock file failed.
    #[error("{path}: {error}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

impl FetchError {
    fn io(path: &Path, error: std::io::Error) -> FetchError {
        FetchError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

/// What one file's refresh changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedFile {
    /// Path inside the raw folder.
    pub file: String,
    /// sha256 of what was there before (none: no file).
    pub previous_sha256: Option<String>,
    /// sha256 of what is there now.
    pub sha256: String,
    /// Its size.
    pub bytes: u64,
}

/// Refreshes `source` (see the module doc): downloads its files, swaps them in and updates the lock.
///
/// # Errors
/// [`FetchError`]; on any of them the raw folder and the lock file are as they were.
pub fn fetch_source(
    catalog: &Catalog,
    source: &SourceEntry,
    sources_dir: &Path,
) -> Result<Vec<FetchedFile>, FetchError> {
    let refresh = source.refresh.as_ref().ok_or_else(|| {
        FetchError::Source(format!(
            "source `{}` declares no [refresh] in its catalog file, so it is refreshed by hand",
            source.id
        ))
    })?;
    let target = FetchTarget {
        id: &source.id,
        raw_dir: source.raw_dir(sources_dir),
        refresh,
        codes: catalog.refresh_codes(source),
    };
    // The connector the bake will use must read what arrived.
    let readable = || {
        let as_read = catalog.refreshed(sources_dir, &Lock::default());
        let as_read_source = as_read.source(&source.id).unwrap_or(source);
        crate::status::readable(&as_read, as_read_source, sources_dir)
    };
    fetch_into(catalog, &target, sources_dir, &readable)
}

/// The curated record sources (`data/curated/*.toml`) that declare a `[refresh]`: id, raw folder and
/// refresh, sorted by id.
///
/// # Errors
/// [`FetchError::Source`] naming the declaration that does not load.
pub fn curated_refreshes(catalog: &Catalog) -> Result<Vec<(String, String, Refresh)>, FetchError> {
    use crate::sources::curated::{ProjectsSource, RECORD_SOURCES, RecordSource};
    let failed = |error: crate::BakeError| FetchError::Source(error.to_string());
    let mut found = Vec::new();
    if let Some(projects) = ProjectsSource::load(&catalog.dir, &catalog.settings).map_err(failed)?
        && let Some(refresh) = projects.refresh
    {
        found.push((projects.id, projects.raw_path, refresh));
    }
    for (file, _) in RECORD_SOURCES {
        if let Some(source) =
            RecordSource::load(&catalog.dir, file, &catalog.settings).map_err(failed)?
            && let Some(refresh) = source.refresh
        {
            found.push((source.id, source.raw_path, refresh));
        }
    }
    found.sort_by(|left, right| left.0.cmp(&right.0));
    Ok(found)
}

/// Refreshes the curated record source `id` (see the module doc): as [`fetch_source`], the new files
/// read with its refresh connector before the lock is written.
///
/// # Errors
/// [`FetchError`]; on any of them the raw folder and the lock file are as they were.
pub fn fetch_curated(
    catalog: &Catalog,
    id: &str,
    sources_dir: &Path,
) -> Result<Vec<FetchedFile>, FetchError> {
    let curated = curated_refreshes(catalog)?;
    let Some((id, raw_path, refresh)) = curated.iter().find(|(curated_id, ..)| curated_id == id)
    else {
        return Err(FetchError::Source(format!(
            "curated source `{id}` declares no [refresh] in data/curated/"
        )));
    };
    let target = FetchTarget {
        id,
        raw_dir: sources_dir.join(raw_path),
        refresh,
        codes: Vec::new(),
    };
    let readable = || {
        let Some(connector) = &refresh.connector else {
            return Ok(());
        };
        let countries = crate::status::country_registry(catalog, sources_dir);
        crate::govern::records::publisher_table(
            connector,
            &catalog.dir,
            &target.raw_dir,
            countries.as_ref(),
        )
        .map(|_| ())
        .map_err(|error| error.to_string().chars().take(160).collect())
    };
    fetch_into(catalog, &target, sources_dir, &readable)
}

/// What one fetch refreshes: an indicator source or a curated record source.
struct FetchTarget<'a> {
    /// Source id (the lock's key).
    id: &'a str,
    /// Its raw folder.
    raw_dir: PathBuf,
    /// Its refresh declaration.
    refresh: &'a Refresh,
    /// The codes `{code}` URLs expand (none for curated sources).
    codes: Vec<String>,
}

/// Downloads `target`'s files, swaps them in, checks `readable` (else puts the previous files back) and
/// updates the lock.
fn fetch_into(
    catalog: &Catalog,
    target: &FetchTarget,
    sources_dir: &Path,
    readable: &dyn Fn() -> Result<(), String>,
) -> Result<Vec<FetchedFile>, FetchError> {
    let refresh = target.refresh;
    let policy =
        FetchPolicy::checked(catalog.settings.fetch.as_ref()).map_err(FetchError::Source)?;
    let credential = credential(target.id, refresh)?;
    // One fetch at a time per catalog: the lock file is read, then rewritten, under this guard.
    let guard_path = catalog.dir.join(format!(".{LOCK_FILE}.guard"));
    let guard =
        std::fs::File::create(&guard_path).map_err(|error| FetchError::io(&guard_path, error))?;
    guard
        .lock()
        .map_err(|error| FetchError::io(&guard_path, error))?;
    // A lock file that does not read fails the fetch before anything is downloaded.
    let mut lock =
        Lock::read(&catalog.dir).map_err(|(path, error)| FetchError::io(&path, error))?;
    let raw_dir = &target.raw_dir;
    std::fs::create_dir_all(sources_dir).map_err(|error| FetchError::io(sources_dir, error))?;
    remove_abandoned(sources_dir, target.id);
    let staging =
        Staging::create(sources_dir.join(format!(".fetch-{}-{}", target.id, std::process::id())))?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .timeout_global(Some(DOWNLOAD_TIMEOUT))
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_per_read(Some(READ_TIMEOUT))
        .build()
        .into();
    // Each kept file: where it goes in the raw folder, where it waits in staging, what the lock records.
    let mut downloaded: Vec<(String, PathBuf, LockedFile)> = Vec::new();
    let files = refresh.expanded_files(&target.codes);
    for (index, declared) in files.iter().enumerate() {
        let failed = |problem: String| FetchError::Download {
            source_id: target.id.to_string(),
            url: declared.url.clone(),
            problem,
        };
        let staged = if declared.extract.is_empty() {
            staging.path.join("new").join(&declared.file)
        } else {
            staging.path.join("archives").join(&declared.file)
        };
        let got = download::download(
            &agent,
            &policy,
            &declared.url,
            credential.as_deref(),
            &staged,
        )
        .map_err(failed)?;
        check_format(refresh.format, &staged)
            .map_err(|problem| failed(format!("refresh.files[{index}]: {problem}")))?;
        let locked = LockedFile {
            file: declared.file.clone(),
            url: declared.url.clone(),
            sha256: got.sha256.clone(),
            bytes: got.bytes,
            archive: None,
            member_sha256: None,
            member_bytes: None,
            last_modified: got.last_modified.clone(),
        };
        if declared.extract.is_empty() {
            downloaded.push((declared.file.clone(), staged, locked));
            continue;
        }
        let kept_paths = declared.kept_paths();
        let members: Vec<(&str, PathBuf)> = declared
            .extract
            .iter()
            .zip(&kept_paths)
            .map(|(member, kept)| (member.as_str(), staging.path.join("new").join(kept)))
            .collect();
        let unpacked = archive::unpack(&staged, &members, policy.max_bytes)
            .map_err(|problem| failed(format!("refresh.files[{index}]: {problem}")))?;
        for ((kept, (_, path)), (sha256, bytes)) in kept_paths.iter().zip(members).zip(unpacked) {
            downloaded.push((
                kept.clone(),
                path,
                LockedFile {
                    file: kept.clone(),
                    archive: Some(declared.file.clone()),
                    member_sha256: Some(sha256),
                    member_bytes: Some(bytes),
                    ..locked.clone()
                },
            ));
        }
    }
    // Every file arrived whole: the new lock is written beside the old, then the files are swapped in
    // (what they replace kept aside until every rename succeeded), then the lock.
    let retrieved_at = today();
    let vintage = downloaded
        .iter()
        .filter_map(|(_, _, locked)| locked.last_modified.clone())
        .max()
        .unwrap_or_else(|| retrieved_at.clone());
    lock.sources.insert(
        target.id.to_string(),
        LockedSource {
            retrieved_at,
            vintage: Some(vintage),
            files: downloaded
                .iter()
                .map(|(_, _, locked)| locked.clone())
                .collect(),
        },
    );
    // Each file's place holds a file or nothing: a directory there is never replaced.
    for (kept, _, locked) in &downloaded {
        let place = raw_dir.join(kept);
        if place.symlink_metadata().is_ok_and(|meta| !meta.is_file()) {
            return Err(FetchError::Download {
                source_id: target.id.to_string(),
                url: locked.url.clone(),
                problem: format!(
                    "{} exists and is not a file; nothing was swapped in",
                    place.display()
                ),
            });
        }
    }
    let next_lock = lock
        .write_beside(&catalog.dir)
        .map_err(|(path, error)| FetchError::io(&path, error))?;
    let mut swapped: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let mut changed = Vec::with_capacity(downloaded.len());
    let swap = (|| -> Result<(), FetchError> {
        for (kept_as, staged, locked) in &downloaded {
            let target = raw_dir.join(kept_as);
            let previous_sha256 = std::fs::read(&target)
                .ok()
                .map(|bytes| hex(&Sha256::digest(bytes)));
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|error| FetchError::io(parent, error))?;
            }
            let kept = if target.symlink_metadata().is_ok() {
                let kept = staging.path.join("previous").join(kept_as);
                if let Some(parent) = kept.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|error| FetchError::io(parent, error))?;
                }
                std::fs::rename(&target, &kept).map_err(|error| FetchError::io(&target, error))?;
                Some(kept)
            } else {
                None
            };
            swapped.push((target.clone(), kept));
            std::fs::rename(staged, &target).map_err(|error| FetchError::io(&target, error))?;
            changed.push(FetchedFile {
                file: kept_as.clone(),
                previous_sha256,
                sha256: locked.kept_sha256().to_string(),
                bytes: locked.member_bytes.unwrap_or(locked.bytes),
            });
        }
        // The connector must read what arrived, as the bake will; else everything goes back.
        readable().map_err(|problem| FetchError::Download {
            source_id: target.id.to_string(),
            url: refresh.files[0].url.clone(),
            problem: format!(
                "the connector cannot read the new files ({problem}); the previous files are back"
            ),
        })?;
        let lock_path = catalog.dir.join(LOCK_FILE);
        std::fs::rename(&next_lock, &lock_path).map_err(|error| FetchError::io(&lock_path, error))
    })();
    if let Err(error) = swap {
        // Put back what was there, newest first; the new lock never replaced the old.
        for (target, kept) in swapped.iter().rev() {
            match kept {
                Some(kept) => {
                    let _ = std::fs::rename(kept, target);
                }
                None => {
                    let _ = std::fs::remove_file(target);
                }
            }
        }
        let _ = std::fs::remove_file(&next_lock);
        return Err(error);
    }
    drop(guard);
    Ok(changed)
}

/// The first bytes of a downloaded file fit its declared format: text (CSV, TSV, JSON, other text, UTF-16
/// included) that is not empty and not an HTML page, a JSON that starts an object or array, an XLSX or a
/// zip that is a zip archive.
fn check_format(format: RefreshFormat, path: &Path) -> Result<(), String> {
    let mut head = Vec::with_capacity(512);
    std::fs::File::open(path)
        .and_then(|file| file.take(512).read_to_end(&mut head))
        .map_err(|error| format!("{}: {error}", path.display()))?;
    // UTF-16 text (the IMF's) reads as its ASCII bytes once its zero bytes are dropped.
    let ascii: Vec<u8> = head.iter().copied().filter(|byte| *byte != 0).collect();
    let text = String::from_utf8_lossy(&ascii);
    let start = text
        .trim_start_matches(['\u{feff}', '\u{fffd}'])
        .trim_start();
    let problem = match format {
        _ if head.is_empty() => Some("the download is empty".to_string()),
        RefreshFormat::Csv | RefreshFormat::Tsv | RefreshFormat::Text | RefreshFormat::Json
            if start.starts_with('<') =>
        {
            Some("the download is an HTML or XML page, not the declared format".to_string())
        }
        RefreshFormat::Json if !(start.starts_with('{') || start.starts_with('[')) => {
            Some("the download does not start a JSON object or array".to_string())
        }
        RefreshFormat::Xlsx if !head.starts_with(b"PK\x03\x04") => {
            Some("the download is not an XLSX workbook (a zip archive)".to_string())
        }
        RefreshFormat::Zip if !head.starts_with(b"PK\x03\x04") => {
            Some("the download is not a zip archive".to_string())
        }
        _ => None,
    };
    match problem {
        Some(problem) => Err(format!(
            "{problem} (format {}); nothing was swapped in",
            format.as_str()
        )),
        None => Ok(()),
    }
}

/// Removes the staging folders of fetches of `source_id` that were killed (their process is gone).
fn remove_abandoned(sources_dir: &Path, source_id: &str) {
    let Ok(entries) = std::fs::read_dir(sources_dir) else {
        return;
    };
    let prefix = format!(".fetch-{source_id}-");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix(prefix.as_str()))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The source's credential, when it declares one.
fn credential(source_id: &str, refresh: &Refresh) -> Result<Option<String>, FetchError> {
    let Some(variable) = &refresh.credential_env else {
        return Ok(None);
    };
    match std::env::var(variable) {
        Ok(value) if !value.trim().is_empty() => Ok(Some(value)),
        _ => Err(FetchError::MissingCredential {
            source_id: source_id.to_string(),
            variable: variable.clone(),
        }),
    }
}
/// Today's date in UTC, `YYYY-MM-DD`.
fn today() -> String {
    let (year, month, day) = corpus::dates::civil_from_time(std::time::SystemTime::now());
    format!("{year:04}-{month:02}-{day:02}")
}

/// A staging folder that removes itself (and whatever a failed fetch left in it).
struct Staging {
    path: PathBuf,
}

impl Staging {
    fn create(path: PathBuf) -> Result<Staging, FetchError> {
        if path.exists() {
            std::fs::remove_dir_all(&path).map_err(|error| FetchError::io(&path, error))?;
        }
        std::fs::create_dir_all(&path).map_err(|error| FetchError::io(&path, error))?;
        Ok(Staging { path })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_written_in_iso_form() {
        let date = today();
        assert_eq!(date.len(), 10);
        assert!(date.starts_with("20") && &date[4..5] == "-" && &date[7..8] == "-");
    }
}
