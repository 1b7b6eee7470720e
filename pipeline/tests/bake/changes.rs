//! What a new vintage changed (issue 24): the fixture baked, then baked again from a copy whose WDI life
//! expectancy file has one value revised (MEX 2024: 75.264 → 75.5) and one year moved (BRA 2023 → 2022,
//! same value). The bake's changes, the corpus' `exports/changes.json` and `pipeline diff` must say
//! exactly that, with both citations.

use std::path::Path;

use corpus::{changes::Changes, layout, read_json};
use serde_json::Value;

use crate::support::{bake_into, fixture, run_pipeline};

/// The fixture file both changes are made in (`Country Name,Country Code,Year,Value`).
const LIFE_EXPECTANCY: &str = "wdi/indicators/sp.dyn.le00.in/data.csv";

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A copy of the fixture sources with the revised value and the moved year.
fn revised_sources(into: &Path) {
    let (_, sources) = fixture();
    copy_tree(&sources, into);
    let path = into.join(LIFE_EXPECTANCY);
    let text = std::fs::read_to_string(&path).unwrap();
    for row in ["Mexico,MEX,2024,75.264", "Brazil,BRA,2023,75.848"] {
        assert!(text.contains(row), "the fixture holds {row}");
    }
    let text = text
        .replace("Mexico,MEX,2024,75.264", "Mexico,MEX,2024,75.5")
        .replace("Brazil,BRA,2023,75.848", "Brazil,BRA,2022,75.848");
    std::fs::write(&path, text).unwrap();
}

#[test]
fn a_second_bake_reports_the_revised_value_with_both_citations_and_the_moved_year() {
    let (catalog, sources) = fixture();
    let out = tempfile::tempdir().unwrap();
    let first = bake_into(&catalog, &sources, out.path());
    assert!(first.changes.from.is_none());
    assert!(
        first
            .changes
            .note
            .as_deref()
            .unwrap()
            .contains("first publication"),
        "{:?}",
        first.changes.note
    );
    let revised = tempfile::tempdir().unwrap();
    revised_sources(revised.path());
    let second = bake_into(&catalog, revised.path(), out.path());
    let changes = &second.changes;
    assert_eq!(
        changes.from.as_ref().unwrap().version,
        first.manifest.corpus_version
    );
    assert_eq!(
        changes.to.as_ref().unwrap().version,
        second.manifest.corpus_version
    );
    assert_eq!(
        (
            changes.totals.values_revised,
            changes.totals.observations_added,
            changes.totals.observations_removed,
            changes.totals.sources_changed
        ),
        (1, 1, 1, 1),
        "{}",
        changes.summary()
    );
    let wdi = &changes.sources[0];
    assert_eq!(wdi.source, "wdi");
    assert_eq!(wdi.indicators.len(), 1, "{wdi:?}");
    let life = &wdi.indicators[0];
    assert_eq!(life.indicator, "sp_dyn_le00_in");
    assert_eq!(life.years_added, vec![2022]);
    assert_eq!(life.years_dropped, vec![2023]);
    assert!(life.series_added.is_empty() && life.series_dropped.is_empty());
    let revision = &life.largest_revisions[0];
    assert_eq!(
        (revision.country.as_str(), revision.year),
        ("MEX", 2024),
        "{revision:?}"
    );
    assert_eq!((revision.old.value, revision.new.value), (75.264, 75.5));
    assert_eq!(revision.old.citation_id, "wb-sp-dyn-le00-in-mex-2024");
    assert_eq!(revision.new.citation_id, "wb-sp-dyn-le00-in-mex-2024");
    assert_eq!(
        (revision.old.vintage.as_str(), revision.new.vintage.as_str()),
        ("2026-07", "2026-07")
    );
    assert_eq!(revision.new.retrieved_at, "2026-07-01");
    let relative = revision.relative_change.unwrap();
    assert!(
        (relative - (75.5 - 75.264) / 75.264).abs() < 1e-12,
        "{relative}"
    );
    assert_eq!(&changes.top_revisions[0], revision);
    // The artifact says the same, and the manifest lists it without it moving the version.
    let published: Changes = read_json(&second.dir.join(layout::CHANGES), "changes").unwrap();
    assert_eq!(&published, changes);
    assert!(second.manifest.artifact(layout::CHANGES).is_some());
    second.manifest.verify(&second.dir).unwrap();
    // `previous` names the first corpus, which is kept.
    assert_eq!(
        std::fs::read_link(out.path().join(layout::PREVIOUS)).unwrap(),
        Path::new(&first.manifest.corpus_version)
    );
    assert!(first.dir.join(layout::MANIFEST).is_file());
}

#[test]
fn pipeline_diff_compares_previous_with_current_by_default_in_text_and_json() {
    let (catalog, sources) = fixture();
    let out = tempfile::tempdir().unwrap();
    let first = bake_into(&catalog, &sources, out.path());
    let revised = tempfile::tempdir().unwrap();
    revised_sources(revised.path());
    let second = bake_into(&catalog, revised.path(), out.path());
    let out_dir = out.path().to_str().unwrap();
    let output = run_pipeline(&["diff", "--json", "--out-dir", out_dir]);
    assert!(output.status.success(), "{output:?}");
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let published: Value =
        serde_json::from_slice(&std::fs::read(second.dir.join(layout::CHANGES)).unwrap()).unwrap();
    assert_eq!(
        printed, published,
        "pipeline diff computes what the bake wrote"
    );
    let output = run_pipeline(&["diff", "--out-dir", out_dir]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains(
            "sp_dyn_le00_in MEX 2024: 75.264 (wb-sp-dyn-le00-in-mex-2024, vintage 2026-07) -> 75.5 (wb-sp-dyn-le00-in-mex-2024, vintage 2026-07), +0.31%"
        ),
        "{text}"
    );
    assert!(text.contains("years added: 2022"), "{text}");
    assert!(text.contains("years dropped: 2023"), "{text}");
    // Named the other way round, by version: the revision is reversed.
    let output = run_pipeline(&[
        "diff",
        "--json",
        "--out-dir",
        out_dir,
        &second.manifest.corpus_version,
        &first.manifest.corpus_version,
    ]);
    let reversed: Changes = serde_json::from_slice(&output.stdout).unwrap();
    let revision = &reversed.top_revisions[0];
    assert_eq!((revision.old.value, revision.new.value), (75.5, 75.264));
    // A name that is no corpus is refused, naming what the directory holds.
    let output = run_pipeline(&["diff", "--out-dir", out_dir, "nonesuch"]);
    assert!(!output.status.success());
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(
        error.contains("`nonesuch` is neither a corpus directory"),
        "{error}"
    );
    assert!(error.contains(&first.manifest.corpus_version), "{error}");
}

#[test]
fn rebaking_the_same_inputs_keeps_the_version_and_the_changes_of_its_first_publication() {
    let (catalog, sources) = fixture();
    let out = tempfile::tempdir().unwrap();
    let first = bake_into(&catalog, &sources, out.path());
    let revised = tempfile::tempdir().unwrap();
    revised_sources(revised.path());
    let second = bake_into(&catalog, revised.path(), out.path());
    let again = bake_into(&catalog, revised.path(), out.path());
    assert_eq!(
        again.manifest.corpus_version,
        second.manifest.corpus_version
    );
    assert!(again.changes.is_empty(), "{}", again.changes.summary());
    let published: Changes = read_json(&again.dir.join(layout::CHANGES), "changes").unwrap();
    assert_eq!(
        published.from.unwrap().version,
        first.manifest.corpus_version,
        "the published corpus keeps what it changed when first published"
    );
    assert_eq!(
        std::fs::read_link(out.path().join(layout::PREVIOUS)).unwrap(),
        Path::new(&first.manifest.corpus_version)
    );
}
