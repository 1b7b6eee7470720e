use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Output,
    sync::OnceLock,
};

use corpus::{
    BakedCorpus, Metric,
    derived::{DERIVED_RULES, MetricRule},
    read_json,
};
use pipeline::bake::{BakeOptions, BakeSummary, bake};

/// The project's own catalog (`data/`).
pub fn project_catalog() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data")
}

/// The real raw sources (`../shared/data/sources`, or `CORPUS_SOURCES_DIR`).
pub fn real_sources() -> PathBuf {
    std::env::var_os(pipeline::paths::SOURCES_DIR_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(pipeline::paths::default_sources_dir)
}

/// The fixture catalog and raw sources.
pub fn fixture() -> (PathBuf, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    (root.join("catalog"), root.join("sources"))
}

/// Bakes `catalog_dir` from `sources_dir` into `out_dir`, in process.
pub fn bake_into(catalog_dir: &Path, sources_dir: &Path, out_dir: &Path) -> BakeSummary {
    let options = BakeOptions {
        sources_dir: sources_dir.to_path_buf(),
        catalog_dir: catalog_dir.to_path_buf(),
        out_dir: out_dir.to_path_buf(),
        progress: false,
    };
    bake(&options)
        .unwrap_or_else(|error| panic!("bake of {} failed: {error}", catalog_dir.display()))
}

/// Runs the `pipeline` binary with `args`.
pub fn run_pipeline(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pipeline"))
        .args(args)
        .output()
        .expect("pipeline binary runs")
}

/// The real default corpus, baked once per test run into `CARGO_TARGET_TMPDIR/real-bake`.
///
/// A fixed folder under `target/`, emptied before each bake, rather than a `TempDir` in a static:
/// statics are never dropped, so a temporary directory would outlive every run.
pub struct RealBake {
    /// What the bake reported.
    pub summary: BakeSummary,
    /// The published corpus, opened through the artifact contract.
    pub corpus: BakedCorpus,
}

/// Bakes the real default corpus on first use.
pub fn real() -> &'static RealBake {
    static REAL: OnceLock<RealBake> = OnceLock::new();
    REAL.get_or_init(|| {
        let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("real-bake");
        if out_dir.exists() {
            std::fs::remove_dir_all(&out_dir).expect("the previous run's corpus is removed");
        }
        let summary = bake_into(&project_catalog(), &real_sources(), &out_dir);
        let corpus = BakedCorpus::open_current(&out_dir).expect("the published corpus opens");
        RealBake { summary, corpus }
    })
}

/// A baked corpus' derived-number rules (`derived_rules.json`) by indicator id.
pub fn rules(corpus: &BakedCorpus) -> BTreeMap<String, MetricRule> {
    read_json::<Vec<MetricRule>>(&corpus.dir().join(DERIVED_RULES), "derived rules")
        .expect("derived_rules.json reads")
        .into_iter()
        .map(|rule| (rule.indicator.clone(), rule))
        .collect()
}

/// A baked corpus' metrics by id.
pub fn metrics_by_id(corpus: &BakedCorpus) -> BTreeMap<&str, &Metric> {
    corpus
        .metrics()
        .iter()
        .map(|metric| (metric.id.as_str(), metric))
        .collect()
}
