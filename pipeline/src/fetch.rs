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

use std::{
    collections::BTreeMap,
    io::{Read, Write},
    path::{Path, PathBuf},
    time::Duration,
};

use corpus::manifest::hex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::sources::{
    Catalog, SourceEntry,
    refresh::{FetchPolicy, Refresh, RefreshFormat},
};

/// The most redirects one download follows.
pub const MAX_REDIRECTS: usize = 5;
/// The lock file's name, in the catalog directory.
pub const LOCK_FILE: &str = "sources.lock.json";
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
}

impl Lock {
    /// The lock file of `catalog_dir` (empty when there is none).
    ///
    /// # Errors
    /// [`FetchError::Io`] if it exists but cannot be read or parsed.
    pub fn read(catalog_dir: &Path) -> Result<Lock, FetchError> {
        let path = catalog_dir.join(LOCK_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|error| {
                FetchError::io(
                    &path,
                    std::io::Error::new(std::io::ErrorKind::InvalidData, error),
                )
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Lock::default()),
            Err(error) => Err(FetchError::io(&path, error)),
        }
    }

    /// Writes the lock beside the lock file (`.sources.lock.json.{pid}`), for the caller to rename over
    /// it; the temporary file's path.
    fn write_beside(&self, catalog_dir: &Path) -> Result<PathBuf, FetchError> {
        let next = catalog_dir.join(format!(".{LOCK_FILE}.{}", std::process::id()));
        let mut text = serde_json::to_string_pretty(self).expect("the lock serializes");
        text.push('\n');
        std::fs::write(&next, text).map_err(|error| FetchError::io(&next, error))?;
        Ok(next)
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
    let policy =
        FetchPolicy::checked(catalog.settings.fetch.as_ref()).map_err(FetchError::Source)?;
    let credential = credential(source, refresh)?;
    // One fetch at a time per catalog: the lock file is read, then rewritten, under this guard.
    let guard_path = catalog.dir.join(format!(".{LOCK_FILE}.guard"));
    let guard =
        std::fs::File::create(&guard_path).map_err(|error| FetchError::io(&guard_path, error))?;
    guard
        .lock()
        .map_err(|error| FetchError::io(&guard_path, error))?;
    // A lock file that does not read fails the fetch before anything is downloaded.
    let mut lock = Lock::read(&catalog.dir)?;
    let raw_dir = source.raw_dir(sources_dir);
    std::fs::create_dir_all(sources_dir).map_err(|error| FetchError::io(sources_dir, error))?;
    remove_abandoned(sources_dir, &source.id);
    let staging =
        Staging::create(sources_dir.join(format!(".fetch-{}-{}", source.id, std::process::id())))?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .timeout_global(Some(DOWNLOAD_TIMEOUT))
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_per_read(Some(READ_TIMEOUT))
        .build()
        .into();
    let mut downloaded = Vec::with_capacity(refresh.files.len());
    for (index, declared) in refresh.files.iter().enumerate() {
        let staged = staging.path.join("new").join(&declared.file);
        let failed = |problem: String| FetchError::Download {
            source_id: source.id.clone(),
            url: declared.url.clone(),
            problem,
        };
        let (sha256, bytes) = download(
            &agent,
            &policy,
            &declared.url,
            credential.as_deref(),
            &staged,
        )
        .map_err(failed)?;
        check_format(refresh.format, &staged)
            .map_err(|problem| failed(format!("refresh.files[{index}]: {problem}")))?;
        downloaded.push((declared, staged, sha256, bytes));
    }
    // Every file arrived whole: the new lock is written beside the old, then the files are swapped in
    // (what they replace kept aside until every rename succeeded), then the lock.
    lock.sources.insert(
        source.id.clone(),
        LockedSource {
            retrieved_at: today(),
            files: downloaded
                .iter()
                .map(|(declared, _, sha256, bytes)| LockedFile {
                    file: declared.file.clone(),
                    url: declared.url.clone(),
                    sha256: sha256.clone(),
                    bytes: *bytes,
                })
                .collect(),
        },
    );
    // Each file's place holds a file or nothing: a directory there is never replaced.
    for (declared, _, _, _) in &downloaded {
        let target = raw_dir.join(&declared.file);
        if target.symlink_metadata().is_ok_and(|meta| !meta.is_file()) {
            return Err(FetchError::Download {
                source_id: source.id.clone(),
                url: declared.url.clone(),
                problem: format!(
                    "{} exists and is not a file; nothing was swapped in",
                    target.display()
                ),
            });
        }
    }
    let next_lock = lock.write_beside(&catalog.dir)?;
    let mut swapped: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let mut changed = Vec::with_capacity(downloaded.len());
    let swap = (|| -> Result<(), FetchError> {
        for (declared, staged, sha256, bytes) in &downloaded {
            let target = raw_dir.join(&declared.file);
            let previous_sha256 = std::fs::read(&target)
                .ok()
                .map(|bytes| hex(&Sha256::digest(bytes)));
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|error| FetchError::io(parent, error))?;
            }
            let kept = if target.symlink_metadata().is_ok() {
                let kept = staging.path.join("previous").join(&declared.file);
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
                file: declared.file.clone(),
                previous_sha256,
                sha256: sha256.clone(),
                bytes: *bytes,
            });
        }
        // The connector must read what arrived, as the bake will; else everything goes back.
        crate::status::readable(catalog, source, sources_dir).map_err(|problem| {
            FetchError::Download {
                source_id: source.id.clone(),
                url: refresh.files[0].url.clone(),
                problem: format!(
                    "the connector cannot read the new files ({problem}); the previous files are back"
                ),
            }
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

/// The first bytes of a downloaded file fit its declared format: a CSV or JSON that is not empty and
/// not an HTML page, a JSON that starts an object or array, an XLSX that is a zip archive.
fn check_format(format: RefreshFormat, path: &Path) -> Result<(), String> {
    let mut head = Vec::with_capacity(512);
    std::fs::File::open(path)
        .and_then(|file| file.take(512).read_to_end(&mut head))
        .map_err(|error| format!("{}: {error}", path.display()))?;
    let text = String::from_utf8_lossy(&head);
    let start = text.trim_start_matches('\u{feff}').trim_start();
    let problem = match format {
        _ if head.is_empty() => Some("the download is empty".to_string()),
        RefreshFormat::Csv | RefreshFormat::Json if start.starts_with('<') => {
            Some("the download is an HTML or XML page, not the declared format".to_string())
        }
        RefreshFormat::Json if !(start.starts_with('{') || start.starts_with('[')) => {
            Some("the download does not start a JSON object or array".to_string())
        }
        RefreshFormat::Xlsx if !head.starts_with(b"PK\x03\x04") => {
            Some("the download is not an XLSX workbook (a zip archive)".to_string())
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
fn credential(source: &SourceEntry, refresh: &Refresh) -> Result<Option<String>, FetchError> {
    let Some(variable) = &refresh.credential_env else {
        return Ok(None);
    };
    match std::env::var(variable) {
        Ok(value) if !value.trim().is_empty() => Ok(Some(value)),
        _ => Err(FetchError::MissingCredential {
            source_id: source.id.clone(),
            variable: variable.clone(),
        }),
    }
}

/// Downloads `url` into `target`, following redirects by hand; its sha256 and size.
fn download(
    agent: &ureq::Agent,
    policy: &FetchPolicy,
    url: &str,
    credential: Option<&str>,
    target: &Path,
) -> Result<(String, u64), String> {
    // The credential goes to the declared URL's origin only, never to another a redirect names.
    let origin = origin_of(url);
    let mut url = url.to_string();
    for hop in 0..=MAX_REDIRECTS {
        policy.check(&url)?;
        let mut request = agent.get(&url).header("Accept-Encoding", "identity");
        if let Some(credential) = credential
            && origin_of(&url) == origin
        {
            request = request.header("Authorization", &format!("Bearer {credential}"));
        }
        let mut response = request
            .call()
            .map_err(|error| format!("request failed: {error}"))?;
        let status = response.status();
        if status.is_redirection() {
            let location = match response.headers().get("location") {
                None => return Err(format!("HTTP {status} without a Location")),
                Some(value) => value
                    .to_str()
                    .map_err(|_| format!("HTTP {status} with a Location that is not text"))?,
            };
            if hop == MAX_REDIRECTS {
                return Err(format!("more than {MAX_REDIRECTS} redirects"));
            }
            url = resolve(&url, location);
            continue;
        }
        if !status.is_success() {
            return Err(format!("HTTP {status}"));
        }
        // Every Content-Encoding header, and every coding of each, must be `identity`.
        if let Some(encoding) = response
            .headers()
            .get_all("content-encoding")
            .iter()
            .map(|value| value.to_str().unwrap_or("(not text)"))
            .find(|value| {
                value
                    .split(',')
                    .any(|coding| !coding.trim().eq_ignore_ascii_case("identity"))
            })
        {
            return Err(format!(
                "the response is compressed (Content-Encoding: {encoding}), which was not asked for"
            ));
        }
        let declared: Option<u64> = response
            .headers()
            .get("content-length")
            .and_then(|value| value.to_str().ok()?.parse().ok());
        if declared.is_some_and(|declared| declared > policy.max_bytes) {
            return Err(format!(
                "the body is {} bytes, above the {} allowed",
                declared.unwrap_or_default(),
                policy.max_bytes
            ));
        }
        return save(
            response
                .body_mut()
                .with_config()
                .limit(policy.max_bytes)
                .reader(),
            declared,
            policy.max_bytes,
            target,
        );
    }
    Err(format!("more than {MAX_REDIRECTS} redirects"))
}

/// Writes `body` into `target`, hashing it; refuses a body past `max_bytes` or shorter than `declared`.
fn save(
    mut body: impl Read,
    declared: Option<u64>,
    max_bytes: u64,
    target: &Path,
) -> Result<(String, u64), String> {
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|error| format!("{}: {error}", parent.display()))?;
    }
    let mut file =
        std::fs::File::create(target).map_err(|error| format!("{}: {error}", target.display()))?;
    let mut hasher = Sha256::new();
    let mut bytes = 0u64;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = body.read(&mut buffer).map_err(|error| {
            if error.to_string().contains("limit") {
                format!("the body is above the {max_bytes} bytes allowed")
            } else {
                format!("the body broke off after {bytes} bytes: {error}")
            }
        })?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        file.write_all(&buffer[..read])
            .map_err(|error| format!("{}: {error}", target.display()))?;
        bytes += read as u64;
    }
    if declared.is_some_and(|declared| declared != bytes) {
        return Err(format!(
            "the body broke off: {bytes} of the {} bytes announced",
            declared.unwrap_or_default()
        ));
    }
    file.sync_all()
        .map_err(|error| format!("{}: {error}", target.display()))?;
    Ok((hex(&hasher.finalize()), bytes))
}

/// `scheme://authority` of `url`.
fn origin_of(url: &str) -> &str {
    let scheme_end = url.find("://").map_or(0, |at| at + 3);
    let end = url[scheme_end..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |at| scheme_end + at);
    &url[..end]
}

/// `location` against `base`: absolute (`https://…`), protocol-relative (`//host/…`), an absolute path
/// (`/…`) or a relative one on the same origin.
fn resolve(base: &str, location: &str) -> String {
    let lower = location.get(..8).unwrap_or(location).to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        return location.to_string();
    }
    let origin = origin_of(base);
    if let Some(rest) = location.strip_prefix("//") {
        let scheme = base.split("://").next().unwrap_or("https");
        return format!("{scheme}://{rest}");
    }
    if location.starts_with('/') {
        return format!("{origin}{location}");
    }
    let path = &base[origin.len()..];
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let directory = path.rfind('/').map_or("/", |at| &path[..=at]);
    format!("{origin}{directory}{location}")
}

/// Today's date in UTC, `YYYY-MM-DD`.
fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() / 86_400) as i64;
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
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

/// What `pipeline sources` says of a source's refresh: the hosts of its URLs, its last retrieval, whether
/// its files match the lock, and its credential (set or not, never its value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshStatus {
    /// Source id.
    pub id: String,
    /// The hosts of its refresh URLs (empty: refreshed by hand).
    pub hosts: Vec<String>,
    /// The last fetch's date (the lock), else the catalog's `retrieved_at`.
    pub last_retrieval: String,
    /// `matches the lock`, `differs from the lock: FILE`, `not fetched yet`, `missing: FILE`.
    pub checksum: String,
    /// `none`, `VAR set`, `VAR not set`.
    pub credential: String,
}

/// The refresh status of every source (see [`RefreshStatus`]).
pub fn statuses(catalog: &Catalog, sources_dir: &Path, lock: &Lock) -> Vec<RefreshStatus> {
    catalog
        .sources
        .iter()
        .map(|source| {
            let hosts = source
                .refresh
                .iter()
                .flat_map(|refresh| &refresh.files)
                .filter_map(|file| {
                    let rest = file.url.split_once("://")?.1;
                    Some(rest.split(['/', '?']).next()?.to_string())
                })
                .fold(Vec::new(), |mut hosts, host| {
                    if !hosts.contains(&host) {
                        hosts.push(host);
                    }
                    hosts
                });
            let locked = lock.sources.get(&source.id);
            let checksum = match locked {
                None => "not fetched yet".to_string(),
                Some(locked) => locked
                    .files
                    .iter()
                    .find_map(|file| {
                        match std::fs::read(source.raw_dir(sources_dir).join(&file.file)) {
                            Err(_) => Some(format!("missing: {}", file.file)),
                            Ok(bytes) if hex(&Sha256::digest(&bytes)) != file.sha256 => {
                                Some(format!("differs from the lock: {}", file.file))
                            }
                            Ok(_) => None,
                        }
                    })
                    .unwrap_or_else(|| "matches the lock".to_string()),
            };
            let credential = match source
                .refresh
                .as_ref()
                .and_then(|refresh| refresh.credential_env.as_ref())
            {
                None => "none".to_string(),
                Some(variable)
                    if std::env::var(variable).is_ok_and(|value| !value.trim().is_empty()) =>
                {
                    format!("{variable} set")
                }
                Some(variable) => format!("{variable} not set"),
            };
            RefreshStatus {
                id: source.id.clone(),
                hosts,
                last_retrieval: locked.map_or_else(
                    || source.retrieved_at.clone(),
                    |locked| locked.retrieved_at.clone(),
                ),
                checksum,
                credential,
            }
        })
        .collect()
}

/// The refresh statuses as an aligned text table.
pub fn table(statuses: &[RefreshStatus]) -> String {
    let mut text = format!(
        "{:<28} {:<28} {:<14} {:<34} {}\n",
        "source", "refresh from", "retrieved", "checksum", "credential"
    );
    for status in statuses {
        let hosts = if status.hosts.is_empty() {
            "(by hand)".to_string()
        } else {
            status.hosts.join(", ")
        };
        text.push_str(&format!(
            "{:<28} {:<28} {:<14} {:<34} {}\n",
            status.id, hosts, status.last_retrieval, status.checksum, status.credential
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_resolve_against_the_url_they_came_from() {
        assert_eq!(
            resolve("https://a.org/x/y.csv", "https://b.org/z"),
            "https://b.org/z"
        );
        assert_eq!(
            resolve("https://a.org/x/y.csv", "/v2/z.csv"),
            "https://a.org/v2/z.csv"
        );
        assert_eq!(
            resolve("https://a.org/x/y.csv", "z.csv"),
            "https://a.org/x/z.csv"
        );
        assert_eq!(resolve("https://a.org", "/z"), "https://a.org/z");
        assert_eq!(
            resolve("https://a.org/x", "/final?next=https://b.org"),
            "https://a.org/final?next=https://b.org"
        );
        assert_eq!(resolve("https://a.org/x", "//b.org/y"), "https://b.org/y");
        assert_eq!(origin_of("https://a.org:8443/x?y"), "https://a.org:8443");
    }

    #[test]
    fn a_date_is_written_in_iso_form() {
        let date = today();
        assert_eq!(date.len(), 10);
        assert!(date.starts_with("20") && &date[4..5] == "-" && &date[7..8] == "-");
    }
}
