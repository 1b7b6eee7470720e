//! Atomic publishing: the bake writes into a fresh staging directory, which becomes a corpus directory
//! named by its content hash, and the `current` pointer is swapped with one `rename`.
//!
//! # Invariants
//! A published corpus directory is never written again. If anything fails before the swap, the staging
//! directory is removed and `current` still names the previous corpus, intact.

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
    /// Creates `out_dir/.staging-<pid>` (removing a stale one of the same name).
    ///
    /// # Errors
    /// [`BakeError::Io`] if the directory cannot be created.
    pub fn create(out_dir: &Path) -> Result<Staging, BakeError> {
        std::fs::create_dir_all(out_dir).map_err(|error| BakeError::io(out_dir, error))?;
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
    /// at it. If that version is already published (same inputs), the existing directory is kept and the
    /// staging copy discarded: its bytes are identical.
    ///
    /// # Errors
    /// [`BakeError::Io`] or [`BakeError::Corpus`] if hashing, renaming or the pointer swap fails; the
    /// previous `current` is then unchanged.
    pub fn publish(mut self) -> Result<(Manifest, PathBuf), BakeError> {
        let manifest = Manifest::compute(&self.dir)?;
        manifest.write(&self.dir)?;
        let target = self.out_dir.join(&manifest.corpus_version);
        if target.exists() {
            Manifest::read(&target)?.verify(&target)?;
            std::fs::remove_dir_all(&self.dir).map_err(|error| BakeError::io(&self.dir, error))?;
        } else {
            std::fs::rename(&self.dir, &target).map_err(|error| BakeError::io(&target, error))?;
        }
        self.published = true;
        swap_current(&self.out_dir, &manifest.corpus_version)?;
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

/// Points `out_dir/current` at `version` atomically: a new symlink is made beside it and renamed over it.
fn swap_current(out_dir: &Path, version: &str) -> Result<(), BakeError> {
    let pointer = out_dir.join(layout::CURRENT);
    let next = out_dir.join(format!(".{}-next-{}", layout::CURRENT, std::process::id()));
    let _ = std::fs::remove_file(&next);
    std::os::unix::fs::symlink(version, &next).map_err(|error| BakeError::io(&next, error))?;
    std::fs::rename(&next, &pointer).map_err(|error| BakeError::io(&pointer, error))
}
