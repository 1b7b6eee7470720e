//! Where the bake reads and writes: the sources directory (raw data), the catalog directory (`data/`)
//! and the output directory (`data/baked/`), with defaults found from the working directory.

use std::path::{Path, PathBuf};

/// Environment variable naming the raw sources directory (flag `--sources-dir`).
pub const SOURCES_DIR_ENV: &str = "CORPUS_SOURCES_DIR";
/// Environment variable naming the catalog directory (flag `--catalog-dir`).
pub const CATALOG_DIR_ENV: &str = "CORPUS_CATALOG_DIR";
/// Environment variable naming the output directory (flag `--out-dir`).
pub const OUT_DIR_ENV: &str = "CORPUS_OUT_DIR";

/// The default sources directory: the first `shared/data/sources` found beside the working directory or
/// one of its ancestors (a checkout at `work/main` finds `work/shared/data/sources`).
pub fn default_sources_dir() -> PathBuf {
    find_upwards(Path::new("shared/data/sources"))
        .unwrap_or_else(|| PathBuf::from("../shared/data/sources"))
}

/// The default catalog directory: the first `data/` holding a `corpus.toml` in the working directory or
/// one of its ancestors.
pub fn default_catalog_dir() -> PathBuf {
    find_upwards(Path::new("data/corpus.toml"))
        .and_then(|file| file.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("data"))
}

/// The default output directory: `baked/` inside the catalog directory.
pub fn default_out_dir(catalog_dir: &Path) -> PathBuf {
    catalog_dir.join("baked")
}

fn find_upwards(relative: &Path) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .map(|ancestor| ancestor.join(relative))
        .find(|candidate| candidate.exists())
}
