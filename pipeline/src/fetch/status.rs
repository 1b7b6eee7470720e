//! What `pipeline sources` says of each source's refresh: hosts, last retrieval, checksum against the lock,
//! credential, and where the bake reads it from.

use std::path::Path;

use corpus::manifest::hex;
use sha2::{Digest, Sha256};

use crate::sources::{
    Catalog,
    lock::{Lock, ReadFrom},
};

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
    /// What the bake reads: `staged extract`, `publisher files` (intact as fetched) or `publisher files,
    /// not as locked` (changed by hand since), per [`Catalog::refreshed`].
    pub read_from: &'static str,
}

/// The refresh status of every source (see [`RefreshStatus`]); `catalog` as [`Catalog::refreshed`] gives
/// it, so `read_from` says what the bake reads.
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
                            Ok(bytes) if hex(&Sha256::digest(&bytes)) != file.kept_sha256() => {
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
                read_from: match source.read_from {
                    ReadFrom::Staged => "staged extract",
                    ReadFrom::Refreshed { .. } => "publisher files",
                    ReadFrom::RefreshedByHand => "publisher files, not as locked",
                },
            }
        })
        .collect()
}

/// The refresh statuses as an aligned text table.
pub fn table(statuses: &[RefreshStatus]) -> String {
    let mut text = format!(
        "{:<28} {:<28} {:<14} {:<34} {:<32} {}\n",
        "source", "refresh from", "retrieved", "checksum", "read from", "credential"
    );
    for status in statuses {
        let hosts = if status.hosts.is_empty() {
            "(by hand: see the catalog file)".to_string()
        } else {
            status.hosts.join(", ")
        };
        text.push_str(&format!(
            "{:<28} {:<28} {:<14} {:<34} {:<32} {}\n",
            status.id,
            hosts,
            status.last_retrieval,
            status.checksum,
            status.read_from,
            status.credential
        ));
    }
    text
}
