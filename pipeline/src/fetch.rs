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

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::sources::{
    Catalog, SourceEntry,
    refresh::{FetchPolicy, Refresh},
};

/// The most redirects one download follows.
pub const MAX_REDIRECTS: usize = 5;
/// The lock file's name, in the catalog directory.
pub const LOCK_FILE: &str = "sources.lock.json";
/// How long one download may take in all.
pub const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(600);

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

    /// Writes the lock file atomically (a temporary file renamed over it).
    fn write(&self, catalog_dir: &Path) -> Result<(), FetchError> {
        let path = catalog_dir.join(LOCK_FILE);
        let next = catalog_dir.join(format!(".{LOCK_FILE}.{}", std::process::id()));
        let mut text = serde_json::to_string_pretty(self).expect("the lock serializes");
        text.push('\n');
        std::fs::write(&next, text).map_err(|error| FetchError::io(&next, error))?;
        std::fs::rename(&next, &path).map_err(|error| FetchError::io(&path, error))
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
    let policy = FetchPolicy::of(catalog.settings.fetch.as_ref());
    let credential = credential(source, refresh)?;
    let raw_dir = source.raw_dir(sources_dir);
    std::fs::create_dir_all(sources_dir).map_err(|error| FetchError::io(sources_dir, error))?;
    let staging =
        Staging::create(sources_dir.join(format!(".fetch-{}-{}", source.id, std::process::id())))?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .timeout_global(Some(DOWNLOAD_TIMEOUT))
        .build()
        .into();
    let mut downloaded = Vec::with_capacity(refresh.files.len());
    for declared in &refresh.files {
        let staged = staging.path.join(&declared.file);
        let (sha256, bytes) = download(
            &agent,
            &policy,
            &declared.url,
            credential.as_deref(),
            &staged,
        )
        .map_err(|problem| FetchError::Download {
            source_id: source.id.clone(),
            url: declared.url.clone(),
            problem,
        })?;
        downloaded.push((declared, staged, sha256, bytes));
    }
    // Every file arrived whole: swap them in, then record them.
    let mut changed = Vec::with_capacity(downloaded.len());
    for (declared, staged, sha256, bytes) in &downloaded {
        let target = raw_dir.join(&declared.file);
        let previous_sha256 = std::fs::read(&target)
            .ok()
            .map(|bytes| hex(&Sha256::digest(bytes)));
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|error| FetchError::io(parent, error))?;
        }
        std::fs::rename(staged, &target).map_err(|error| FetchError::io(&target, error))?;
        changed.push(FetchedFile {
            file: declared.file.clone(),
            previous_sha256,
            sha256: sha256.clone(),
            bytes: *bytes,
        });
    }
    let mut lock = Lock::read(&catalog.dir)?;
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
    lock.write(&catalog.dir)?;
    Ok(changed)
}

/// The source's credential, when it declares one.
fn credential(source: &SourceEntry, refresh: &Refresh) -> Result<Option<String>, FetchError> {
    let Some(variable) = &refresh.credential_env else {
        return Ok(None);
    };
    match std::env::var(variable) {
        Ok(value) if !value.is_empty() => Ok(Some(value)),
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
    let mut url = url.to_string();
    for hop in 0..=MAX_REDIRECTS {
        policy.check(&url)?;
        let mut request = agent.get(&url).header("Accept-Encoding", "identity");
        if let Some(credential) = credential {
            request = request.header("Authorization", &format!("Bearer {credential}"));
        }
        let mut response = request
            .call()
            .map_err(|error| format!("request failed: {error}"))?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get("location")
                .and_then(|value| value.to_str().ok())
                .ok_or_else(|| format!("HTTP {status} without a Location"))?;
            if hop == MAX_REDIRECTS {
                return Err(format!("more than {MAX_REDIRECTS} redirects"));
            }
            url = resolve(&url, location);
            continue;
        }
        if !status.is_success() {
            return Err(format!("HTTP {status}"));
        }
        if let Some(encoding) = response
            .headers()
            .get("content-encoding")
            .and_then(|value| value.to_str().ok())
            .filter(|encoding| !encoding.eq_ignore_ascii_case("identity"))
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

/// `location` (absolute, or an absolute path on the same origin) against `base`.
fn resolve(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let scheme_end = base.find("://").map_or(0, |at| at + 3);
    let origin_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |at| scheme_end + at);
    if location.starts_with('/') {
        format!("{}{location}", &base[..origin_end])
    } else {
        let directory_end = base
            .rfind('/')
            .filter(|at| *at >= origin_end)
            .map_or(base.len(), |at| at + 1);
        format!("{}{location}", &base[..directory_end])
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
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
                Some(variable) if std::env::var(variable).is_ok_and(|value| !value.is_empty()) => {
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
    }

    #[test]
    fn a_date_is_written_in_iso_form() {
        let date = today();
        assert_eq!(date.len(), 10);
        assert!(date.starts_with("20") && &date[4..5] == "-" && &date[7..8] == "-");
    }
}
