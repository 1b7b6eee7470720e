//! A corpus baked by an older build is refused with the re-bake message, never half-read. The fixture
//! `server/tests/data/corpus-format-9/` is a real corpus of format version 9 (the format before the current
//! one): the pipeline at commit db8e3df baked `pipeline/tests/fixtures/catalog` over
//! `pipeline/tests/fixtures/sources` into it (`pipeline bake --catalog-dir … --sources-dir … --out-dir …`),
//! as tantivy keeps an `index_vN` per format it has left. Add the next one the same way when
//! `corpus::FORMAT_VERSION` moves on.

use std::{path::PathBuf, process::Command};

use corpus::{CorpusError, FORMAT_VERSION};

/// The directory the old bake wrote (`current` and the corpus it names).
fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus-format-9")
}

#[test]
fn a_corpus_of_the_previous_format_version_is_refused_with_the_rebake_message() {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture().join("current/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["format_version"], 9);
    const { assert!(FORMAT_VERSION > 9) };
    let error = server::load::load_corpus(&fixture()).unwrap_err();
    assert!(
        matches!(
            error,
            CorpusError::FormatVersion { expected, found: 9, .. } if expected == FORMAT_VERSION
        ),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.ends_with(&format!(
            "format version 9, this build reads version {FORMAT_VERSION}; re-run `just bake`"
        )),
        "{message}"
    );
}

#[test]
fn the_server_binary_refuses_it_at_check_and_at_start_naming_the_rebake() {
    for arguments in [&["check"][..], &["--stdio"][..]] {
        let output = Command::new(env!("CARGO_BIN_EXE_server"))
            .args(arguments)
            .arg("--corpus-dir")
            .arg(fixture())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{arguments:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{arguments:?}");
        assert!(
            stderr.contains(&format!(
                "format version 9, this build reads version {FORMAT_VERSION}; re-run `just bake`"
            )),
            "{arguments:?}: {stderr}"
        );
    }
}
