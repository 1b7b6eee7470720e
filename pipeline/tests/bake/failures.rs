use std::path::Path;

use corpus::Manifest;

use crate::support::{bake_into, fixture, run_pipeline};

/// Copies the fixture catalog into a temporary directory that a test may break.
fn catalog_copy() -> tempfile::TempDir {
    let (catalog, _) = fixture();
    let copy = tempfile::tempdir().unwrap();
    for sub in ["", "sources", "metrics"] {
        std::fs::create_dir_all(copy.path().join(sub)).unwrap();
        for entry in std::fs::read_dir(catalog.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, copy.path().join(sub).join(path.file_name().unwrap()))
                    .unwrap();
            }
        }
    }
    copy
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} contains {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Bakes a good corpus, breaks the catalog with `break_it`, re-bakes through the binary, and checks the
/// failure: non-zero exit, stderr containing every `expected` fragment, previous corpus current and intact.
fn check_failed_bake(break_it: impl FnOnce(&Path), expected: &[&str]) {
    let (_, sources) = fixture();
    let catalog = catalog_copy();
    let out_dir = tempfile::tempdir().unwrap();
    let first = bake_into(catalog.path(), &sources, out_dir.path());
    break_it(catalog.path());

    let output = run_pipeline(&[
        "bake",
        "--quiet",
        "--catalog-dir",
        catalog.path().to_str().unwrap(),
        "--sources-dir",
        sources.to_str().unwrap(),
        "--out-dir",
        out_dir.path().to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "the bake must fail; stderr: {stderr}"
    );
    for fragment in expected {
        assert!(
            stderr.contains(fragment),
            "stderr names {fragment:?}: {stderr}"
        );
    }
    let current = corpus::manifest::current_dir(out_dir.path()).unwrap();
    let manifest = Manifest::read(&current).unwrap();
    assert_eq!(
        manifest.corpus_version, first.manifest.corpus_version,
        "the previous corpus stays current"
    );
    manifest
        .verify(&current)
        .expect("the previous corpus is intact");
    let leftovers: Vec<_> = std::fs::read_dir(out_dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no staging directory left behind: {leftovers:?}"
    );
}

#[test]
fn an_http_homepage_names_the_file_and_field() {
    check_failed_bake(
        |catalog| {
            edit(
                &catalog.join("sources/wdi.toml"),
                "homepage = \"https://",
                "homepage = \"http://",
            )
        },
        &["wdi.toml", "homepage", "https"],
    );
}

#[test]
fn an_unknown_field_names_the_file_and_field() {
    check_failed_bake(
        |catalog| {
            edit(
                &catalog.join("sources/wgi.toml"),
                "license = \"CC-BY-4.0\"",
                "licence = \"CC-BY-4.0\"",
            )
        },
        &["wgi.toml", "licence"],
    );
}

#[test]
fn a_missing_licence_names_the_file_and_field() {
    check_failed_bake(
        |catalog| {
            edit(
                &catalog.join("sources/wdi.toml"),
                "license = \"CC-BY-4.0\"\n",
                "",
            )
        },
        &["wdi.toml", "license"],
    );
}

#[test]
fn an_unknown_pillar_names_the_line_and_valid_pillars() {
    check_failed_bake(
        |catalog| {
            edit(
                &catalog.join("metrics/wdi.csv"),
                "SL.UEM.TOTL.ZS,empleo",
                "SL.UEM.TOTL.ZS,jobs",
            )
        },
        &[
            "wdi.csv",
            "line 3",
            "pillar `jobs`",
            "salud, empleo, gobernanza",
        ],
    );
}

#[test]
fn an_unreadable_raw_file_fails_the_bake() {
    check_failed_bake(
        |catalog| {
            edit(
                &catalog.join("metrics/wdi.csv"),
                "SL.UEM.TOTL.ZS",
                "SL.UEM.TOTL.XX",
            )
        },
        &["sl.uem.totl.xx/data.csv", "cannot read"],
    );
}

#[test]
fn an_unmappable_country_name_fails_the_bake_listing_it() {
    check_failed_bake(
        |catalog| {
            let entry = std::fs::read_to_string(catalog.join("sources/wdi.toml"))
                .unwrap()
                .replace("id = \"wdi\"", "id = \"owid_like\"")
                .replace("citation_prefix = \"wb\"", "citation_prefix = \"owidlike\"")
                .replace("raw_path = \"wdi\"", "raw_path = \"owid_like\"")
                .replace(
                    "metrics = \"metrics/wdi.csv\"",
                    "metrics = \"metrics/owid_like.csv\"",
                );
            let connector_start = entry.find("[connector]").unwrap();
            let entry = format!(
                "{}[connector]\nkind = \"columns_csv\"\nfile = \"entities.csv\"\ncountry_column = \"Entity\"\nyear_column = \"Year\"\nentities = \"names\"\n",
                &entry[..connector_start]
            );
            std::fs::write(catalog.join("sources/owid_like.toml"), entry).unwrap();
            std::fs::write(
                catalog.join("metrics/owid_like.csv"),
                "source_code,raw_key,pillar,unit,good_direction,min,max,license,headline\nOWIDLIKE.DEATHS,Deaths,salud,deaths,down,0,,CC-BY-4.0,false\n",
            )
            .unwrap();
        },
        &["owid_like", "Narnia"],
    );
}
