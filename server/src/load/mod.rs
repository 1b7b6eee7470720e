//! Loading the published corpus: resolve `current`, check the format version and checksums, memory-map.

use std::path::Path;

use corpus::{BakedCorpus, CorpusError};

/// Opens the corpus that `out_dir/current` names and verifies every artifact's sha256 against the
/// manifest.
///
/// # Errors
/// [`CorpusError::NotBaked`] if nothing is published; any other [`CorpusError`] naming the artifact that
/// failed its format or checksum check.
pub fn load_corpus(out_dir: &Path) -> Result<BakedCorpus, CorpusError> {
    let corpus = BakedCorpus::open_current(out_dir)?;
    corpus.manifest().verify(corpus.dir())?;
    Ok(corpus)
}
