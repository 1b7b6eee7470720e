//! Atomic publishing: the bake writes into a fresh staging directory, which becomes a corpus directory
//! named by its content hash, and the `current` pointer is swapped with one `rename`.
//!
//! # Invariants
//! A published corpus directory is never written again. If anything fails before the swap, the staging
//! directory is removed and `current` still names the previous corpus, intact. After a swap, the new
//! corpus and the one `current` named before it are kept (a server that has not reloaded yet still reads
//! the latter, and `pipeline diff` compares the two), the latter named by the `previous` pointer; older
//! corpus directories are removed, so repeated bakes do not fill the disk (two corpora at most).

use std::path::{Path, PathBuf};

use corpus::{Manifest, layout};

use crate::BakeError;

/// A staging directory that removes itself unless published.
#[derive(Debug)]
pub struct Staging {
    out_dir: PathBuf,
    dir: PathBuf,
    published: bool,
}

impl Staging {
    /// Creates `out_dir/.staging-<pid>`, first removing what killed bakes left behind (a stale directory
    /// of the same name, and on Linux every `.staging-<pid>` and pointer stub whose process is gone).
    ///
    /// # Errors
    /// [`BakeError::Io`] if the directory cannot be created.
    pub fn create(out_dir: &Path) -> Result<Staging, BakeError> {
        std::fs::create_dir_all(out_dir).map_err(|error| BakeError::io(out_dir, error))?;
        remove_abandoned(out_dir);
        let dir = out_dir.join(format!(".staging-{}", std::process::id()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|error| BakeError::io(&dir, error))?;
        }
        std::fs::create_dir(&dir).map_err(|error| BakeError::io(&dir, error))?;
        Ok(Staging {
            out_dir: out_dir.to_path_buf(),
            dir,
            published: false,
        })
    }

    /// The directory to write artifacts into.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the manifest, moves the staging directory to `out_dir/<corpus_version>` and points `current`
    /// at it: [`Staging::publish_with`] without an unversioned artifact.
    ///
    /// # Errors
    /// As [`Staging::publish_with`].
    pub fn publish(self) -> Result<(Manifest, PathBuf), BakeError> {
        self.publish_with(|_, _| Ok(()))
    }

    /// Computes the manifest, lets `unversioned` write the artifacts the version leaves out
    /// ([`corpus::manifest::UNVERSIONED`]: `changes.json`) into the staging directory, knowing the
    /// version, lists them, writes the manifest, moves the staging directory to
    /// `out_dir/<corpus_version>` and points `current` at it. If that version is already published (same
    /// inputs), the existing directory is kept and the staging copy discarded: its versioned bytes are
    /// identical, and its unversioned ones keep what they said when it was first published; if that
    /// directory fails its manifest check (damaged by hand), the staging copy replaces it. When the
    /// version differs from the one `current` named, `previous` is pointed at that one. Then removes every
    /// corpus directory but the new one and the one `previous` names ([`remove_superseded`]).
    ///
    /// # Errors
    /// [`BakeError::Io`] or [`BakeError::Corpus`] if hashing, `unversioned`, renaming or the pointer swap
    /// fails; the previous `current` is then unchanged.
    pub fn publish_with(
        mut self,
        unversioned: impl FnOnce(&Path, &str) -> Result<(), BakeError>,
    ) -> Result<(Manifest, PathBuf), BakeError> {
        let mut manifest = Manifest::compute(&self.dir)?;
        unversioned(&self.dir, &manifest.corpus_version)?;
        for name in corpus::manifest::UNVERSIONED {
            if self.dir.join(name).is_file() {
                manifest.add_unversioned(&self.dir, name)?;
            }
        }
        manifest.write(&self.dir)?;
        read_only(&self.dir)?;
        let target = self.out_dir.join(&manifest.corpus_version);
        let intact = target.exists()
            && Manifest::read(&target)
                .and_then(|published| published.verify(&target))
                .is_ok();
        if intact {
            std::fs::remove_dir_all(&self.dir).map_err(|error| BakeError::io(&self.dir, error))?;
        } else {
            if target.exists() {
                // Same version but damaged (files removed or changed by hand): nothing can be serving
                // it whole, so the fresh copy takes its place.
                let damaged = self
                    .out_dir
                    .join(format!(".damaged-{}", std::process::id()));
                std::fs::rename(&target, &damaged)
                    .map_err(|error| BakeError::io(&target, error))?;
                let _ = std::fs::remove_dir_all(&damaged);
            }
            std::fs::rename(&self.dir, &target).map_err(|error| BakeError::io(&target, error))?;
        }
        self.published = true;
        let pointer_target = |pointer: &str| {
            std::fs::read_link(self.out_dir.join(pointer))
                .ok()
                .and_then(|target| target.to_str().map(String::from))
        };
        let replaced = pointer_target(layout::CURRENT);
        swap_pointer(&self.out_dir, layout::CURRENT, &manifest.corpus_version)?;
        let previous = match replaced {
            Some(replaced) if replaced != manifest.corpus_version => {
                swap_pointer(&self.out_dir, layout::PREVIOUS, &replaced)?;
                Some(replaced)
            }
            // The same version again: the corpus before it stays the previous one.
            _ => pointer_target(layout::PREVIOUS),
        };
        remove_superseded(
            &self.out_dir,
            &[
                manifest.corpus_version.as_str(),
                previous.as_deref().unwrap_or_default(),
            ],
        );
        Ok((manifest, target))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.published {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Removes the staging directories and pointer stubs of bakes that were killed (`SIGKILL`, power loss):
/// those named by a process id that no longer runs. Best effort: what cannot be removed stays.
fn remove_abandoned(out_dir: &Path) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let Ok(entries) = std::fs::read_dir(out_dir) else {
        return;
    };
    let stub_prefixes = [layout::CURRENT, layout::PREVIOUS].map(|name| format!(".{name}-next-"));
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let Some(pid) = name
            .strip_prefix(".staging-")
            .or_else(|| {
                stub_prefixes
                    .iter()
                    .find_map(|prefix| name.strip_prefix(prefix.as_str()))
            })
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        let path = entry.path();
        let _ = if path.is_dir() && !path.is_symlink() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
    }
}

/// Removes the corpus directories of `out_dir` (named by a 16-hex-digit version, holding a manifest)
/// other than those named in `keep`. Best effort: what cannot be removed stays, and nothing else in
/// `out_dir` is touched.
fn remove_superseded(out_dir: &Path, keep: &[&str]) {
    let Ok(entries) = std::fs::read_dir(out_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let is_version = name.len() == 16 && name.bytes().all(|byte| byte.is_ascii_hexdigit());
        let path = entry.path();
        if is_version
            && !keep.contains(&name)
            && !path.is_symlink()
            && path.join(layout::MANIFEST).is_file()
        {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// Points `out_dir/<name>` (`current`, `previous`) at `version` atomically: a new symlink is made beside
/// it and renamed over it.
fn swap_pointer(out_dir: &Path, name: &str, version: &str) -> Result<(), BakeError> {
    let pointer = out_dir.join(name);
    let next = out_dir.join(format!(".{name}-next-{}", std::process::id()));
    let _ = std::fs::remove_file(&next);
    std::os::unix::fs::symlink(version, &next).map_err(|error| BakeError::io(&next, error))?;
    std::fs::rename(&next, &pointer).map_err(|error| BakeError::io(&pointer, error))
}

/// Makes every file under `dir` read-only (mode 0444 on Unix): a published corpus is never changed in
/// place (the server maps some of its files), and an operator's tool that would write into one
/// (`rsync --inplace`, an editor) is refused by the file system instead of corrupting what a server
/// serves. Directories stay writable, so a superseded corpus can still be removed.
///
/// # Errors
/// [`BakeError::Io`] naming the file whose permissions cannot be read or set.
fn read_only(dir: &Path) -> Result<(), BakeError> {
    for entry in std::fs::read_dir(dir).map_err(|error| BakeError::io(dir, error))? {
        let path = entry.map_err(|error| BakeError::io(dir, error))?.path();
        let metadata =
            std::fs::symlink_metadata(&path).map_err(|error| BakeError::io(&path, error))?;
        if metadata.is_dir() {
            read_only(&path)?;
        } else if metadata.is_file() {
            let mut permissions = metadata.permissions();
            permissions.set_readonly(true);
            std::fs::set_permissions(&path, permissions)
                .map_err(|error| BakeError::io(&path, error))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn a_bake_removes_what_killed_bakes_left_behind() {
        let out = tempfile::tempdir().unwrap();
        // Process ids above Linux's maximum (2^22) never run.
        let abandoned = out.path().join(".staging-999999999");
        std::fs::create_dir_all(abandoned.join("tables")).unwrap();
        let stub = out.path().join(".current-next-999999998");
        std::os::unix::fs::symlink("nowhere", &stub).unwrap();
        // A bake still running (this process' parent, say) keeps its staging directory.
        let running = out
            .path()
            .join(format!(".staging-{}", std::os::unix::process::parent_id()));
        std::fs::create_dir(&running).unwrap();
        let staging = Staging::create(out.path()).unwrap();
        assert!(staging.dir().is_dir());
        assert!(!abandoned.exists());
        assert!(stub.symlink_metadata().is_err());
        assert!(running.is_dir());
    }

    /// Publishes a staging directory holding one file of `text`; returns its version.
    fn publish_text(out_dir: &Path, text: &str) -> String {
        let staging = Staging::create(out_dir).unwrap();
        std::fs::write(staging.dir().join("observations.txt"), text).unwrap();
        staging.publish().unwrap().0.corpus_version
    }

    #[test]
    fn a_bake_keeps_the_new_corpus_and_the_one_before_it_only() {
        let out = tempfile::tempdir().unwrap();
        let first = publish_text(out.path(), "first");
        let second = publish_text(out.path(), "second");
        assert!(out.path().join(&first).is_dir(), "one bake back is kept");
        let unrelated = out.path().join("notes");
        std::fs::create_dir(&unrelated).unwrap();
        let third = publish_text(out.path(), "third");
        assert!(
            !out.path().join(&first).exists(),
            "two bakes back is removed"
        );
        assert!(out.path().join(&second).is_dir());
        assert_eq!(
            std::fs::read_link(out.path().join(layout::CURRENT)).unwrap(),
            Path::new(&third)
        );
        assert!(unrelated.is_dir(), "only corpus directories are removed");
        assert_eq!(
            std::fs::read_link(out.path().join(layout::PREVIOUS)).unwrap(),
            Path::new(&second),
            "`previous` names the corpus `current` named before"
        );
        // Re-publishing the current corpus keeps it, and the one before it stays `previous`, on disk.
        assert_eq!(publish_text(out.path(), "third"), third);
        assert!(out.path().join(&third).is_dir());
        assert!(out.path().join(&second).is_dir());
        assert_eq!(
            std::fs::read_link(out.path().join(layout::PREVIOUS)).unwrap(),
            Path::new(&second)
        );
    }

    #[test]
    fn published_files_are_read_only_and_their_directories_stay_removable() {
        let out = tempfile::tempdir().unwrap();
        let staging = Staging::create(out.path()).unwrap();
        std::fs::write(staging.dir().join("observations.txt"), "rows").unwrap();
        std::fs::create_dir(staging.dir().join("exports")).unwrap();
        std::fs::write(staging.dir().join("exports/data.csv"), "a,b").unwrap();
        let (_, dir) = staging.publish().unwrap();
        for name in ["observations.txt", "exports/data.csv", layout::MANIFEST] {
            let permissions = std::fs::metadata(dir.join(name)).unwrap().permissions();
            assert!(permissions.readonly(), "{name} is published read-only");
        }
        assert!(
            !std::fs::metadata(dir.join("exports"))
                .unwrap()
                .permissions()
                .readonly()
        );
        // Two bakes later it is superseded and removed all the same.
        publish_text(out.path(), "second");
        publish_text(out.path(), "third");
        assert!(!dir.exists());
    }

    #[test]
    fn an_unversioned_artifact_is_listed_but_leaves_the_version_alone() {
        let out = tempfile::tempdir().unwrap();
        let publish = |text: &str, changes: &'static str| {
            let staging = Staging::create(out.path()).unwrap();
            std::fs::write(staging.dir().join("observations.txt"), text).unwrap();
            std::fs::create_dir(staging.dir().join("exports")).unwrap();
            staging
                .publish_with(|dir, _version| {
                    std::fs::write(dir.join(layout::CHANGES), changes)
                        .map_err(|error| BakeError::io(dir, error))
                })
                .unwrap()
        };
        let (first, dir) = publish("same", "against nothing");
        assert!(first.artifact(layout::CHANGES).is_some());
        first.verify(&dir).unwrap();
        let (second, _) = publish("same", "against itself");
        assert_eq!(second.corpus_version, first.corpus_version);
        assert_eq!(
            std::fs::read_to_string(dir.join(layout::CHANGES)).unwrap(),
            "against nothing",
            "the published corpus keeps the changes of its first publication"
        );
        assert_eq!(
            Manifest::compute(&dir).unwrap().corpus_version,
            first.corpus_version,
            "recomputing the version over the published files gives the same version"
        );
    }

    #[test]
    fn a_damaged_corpus_of_the_same_version_is_replaced_by_the_fresh_bake() {
        let out = tempfile::tempdir().unwrap();
        let version = publish_text(out.path(), "same");
        let published = out.path().join(&version);
        std::fs::remove_file(published.join(layout::MANIFEST)).unwrap();
        std::fs::remove_file(published.join("observations.txt")).unwrap();
        assert_eq!(publish_text(out.path(), "same"), version);
        assert_eq!(
            std::fs::read_to_string(published.join("observations.txt")).unwrap(),
            "same"
        );
        Manifest::read(&published)
            .unwrap()
            .verify(&published)
            .unwrap();
    }
}
