//! A corpus baked by an older build is refused with the re-bake message, never half-read. Each fixture
//! `server/tests/data/corpus-format-N/` is a real corpus of format version N: the pipeline of that format
//! (commit db8e3df for 9, a2540fd for 10, 15dbd91 for 11, 909dbd2 for 12) baked `pipeline/tests/fixtures/catalog` over
//! `pipeline/tests/fixtures/sources` into it (`pipeline bake --catalog-dir … --sources-dir … --out-dir …`),
//! as tantivy keeps an `index_vN` per format it has left. Add the next one the same way when
//! `corpus::FORMAT_VERSION` moves on.

use std::{path::PathBuf, process::Command};

use corpus::{CorpusError, FORMAT_VERSION};

/// The format versions of the fixtures, each older than this build's.
const OLD_FORMATS: [u32; 4] = [9, 10, 11, 12];

/// The directory the old bake of format `version` wrote (`current` and the corpus it names).
fn fixture(version: u32) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/corpus-format-{version}"))
}

#[test]
fn a_corpus_of_the_previous_format_version_is_refused_with_the_rebake_message() {
    const { assert!(FORMAT_VERSION == 13) };
    for version in OLD_FORMATS {
        let manifest: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(fixture(version).join("current/manifest.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(manifest["format_version"], version);
        let error = server::load::load_corpus(&fixture(version)).unwrap_err();
        assert!(
            matches!(
                error,
                CorpusError::FormatVersion { expected, found, .. }
                    if expected == FORMAT_VERSION && found == version
            ),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(
            message.ends_with(&format!(
                "format version {version}, this build reads version {FORMAT_VERSION}; re-run `just bake`"
            )),
            "{message}"
        );
    }
}

#[test]
fn the_server_binary_refuses_it_at_check_and_at_start_naming_the_rebake() {
    for version in OLD_FORMATS {
        for arguments in [&["check"][..], &["--stdio"][..]] {
            let output = Command::new(env!("CARGO_BIN_EXE_server"))
                .args(arguments)
                .arg("--corpus-dir")
                .arg(fixture(version))
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(!output.status.success(), "{arguments:?}: {stderr}");
            assert!(output.stdout.is_empty(), "{arguments:?}");
            assert!(
                stderr.contains(&format!(
                    "format version {version}, this build reads version {FORMAT_VERSION}; re-run `just bake`"
                )),
                "{arguments:?}: {stderr}"
            );
        }
    }
}
