use crate::support::{bake_into, project_catalog, real, real_sources};

#[test]
fn two_bakes_of_the_same_inputs_are_byte_identical() {
    let first = &real().summary;
    let out_dir = tempfile::tempdir().unwrap();
    let second = bake_into(&project_catalog(), &real_sources(), out_dir.path());
    assert_eq!(
        first.manifest.corpus_version,
        second.manifest.corpus_version
    );
    assert_eq!(
        first.manifest, second.manifest,
        "every artifact has the same sha256"
    );
    for artifact in &first.manifest.artifacts {
        let left = std::fs::read(first.dir.join(&artifact.name)).unwrap();
        let right = std::fs::read(second.dir.join(&artifact.name)).unwrap();
        assert!(left == right, "{} differs between bakes", artifact.name);
    }
}

#[test]
fn rebaking_into_the_same_directory_keeps_one_corpus() {
    let (catalog, sources) = crate::support::fixture();
    let out_dir = tempfile::tempdir().unwrap();
    let first = bake_into(&catalog, &sources, out_dir.path());
    let second = bake_into(&catalog, &sources, out_dir.path());
    assert_eq!(first.dir, second.dir);
    let directories = std::fs::read_dir(out_dir.path())
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().file_type().unwrap().is_dir())
        .count();
    assert_eq!(directories, 1);
}
