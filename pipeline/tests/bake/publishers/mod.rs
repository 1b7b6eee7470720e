//! The loopback publisher: a local HTTP server plays each publisher, serving at the paths the catalog's
//! `[refresh]` declares the bytes that publisher would serve (its real samples, or the staged data laid out
//! in its own format), so `pipeline fetch` can refresh every default source and `pipeline bake` publish it
//! without the network. The catalog is a copy of the project's with each refresh URL `https://HOST/PATH`
//! rewritten to `http://127.0.0.1:PORT/HOST/PATH` (admitted by the test-only setting
//! `CORPUS_FETCH_LOOPBACK_FOR_TESTS=1`); the sources directory is a writable tree of links to the real
//! staged files, so a fetch adds and replaces files there and never touches `../shared`.
//!
//! One module per publisher renders its routes (`routes(sources_dir)`: `HOST/PATH?QUERY` → bytes).

/// Our World in Data (grapher, owid-co2-data) and the Global Carbon Project (Zenodo flat CSV).
pub mod owid;

use std::{collections::HashMap, io::Write, path::Path, process::Output};

/// UNDP HDR, IMF WEO and ND-GAIN.
mod undp_imf;

use crate::{
    loopback::{Canned, LoopbackServer},
    support::{fixture, project_catalog, real_sources},
};

/// The World Bank: WDI bulk zip, WGI bulk zip, API v2 JSON pages (WBL, the WDI extracts).
mod worldbank;

/// The `Last-Modified` the loopback publisher sends, and the vintage a refreshed source is then cited with.
pub const LAST_MODIFIED: &str = "Tue, 23 Sep 2025 08:00:00 GMT";
/// [`LAST_MODIFIED`] as the citation writes it.
pub const LAST_MODIFIED_ISO: &str = "2025-09-23";

/// A catalog copy whose refresh URLs point at a loopback publisher, a writable sources tree, the server.
pub struct PublisherSetup {
    /// The catalog copy.
    pub catalog: tempfile::TempDir,
    /// The sources tree (links to the staged files; fetched files land here).
    pub sources: tempfile::TempDir,
    /// The publisher.
    pub server: LoopbackServer,
}

impl PublisherSetup {
    /// The project's catalog and real sources, the publisher serving `routes` (`HOST/PATH?QUERY` → bytes).
    pub fn project(routes: Vec<(String, Vec<u8>)>) -> PublisherSetup {
        PublisherSetup::new(&project_catalog(), &real_sources(), routes)
    }

    /// `catalog_dir` and `sources_dir` (copied and linked), the publisher serving `routes`.
    pub fn new(
        catalog_dir: &Path,
        sources_dir: &Path,
        routes: Vec<(String, Vec<u8>)>,
    ) -> PublisherSetup {
        let served: HashMap<String, Canned> = routes
            .into_iter()
            .map(|(target, body)| {
                let mut canned = Canned::ok(&body);
                canned.headers.push(("Last-Modified", LAST_MODIFIED.into()));
                (format!("/{target}"), canned)
            })
            .collect();
        let server = LoopbackServer::start(served);
        let catalog = tempfile::tempdir().unwrap();
        let sources = tempfile::tempdir().unwrap();
        copy_rewriting(catalog_dir, catalog.path(), server.port);
        link_tree(sources_dir, sources.path());
        PublisherSetup {
            catalog,
            sources,
            server,
        }
    }

    /// Runs `pipeline fetch SOURCES…` on the copy.
    pub fn fetch(&self, sources: &[&str]) -> Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_pipeline"))
            .arg("fetch")
            .args(sources)
            .arg("--catalog-dir")
            .arg(self.catalog.path())
            .arg("--sources-dir")
            .arg(self.sources.path())
            .env("CORPUS_FETCH_LOOPBACK_FOR_TESTS", "1")
            .env_remove("CORPUS_FETCH_MAX_BYTES")
            .output()
            .expect("pipeline runs")
    }

    /// Runs `pipeline fetch SOURCES…` and panics with its output unless it succeeded.
    pub fn fetch_ok(&self, sources: &[&str]) -> String {
        let output = self.fetch(sources);
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        assert!(
            output.status.success(),
            "fetch {sources:?} failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    }

    /// Bakes the copy into `out_dir` with the `pipeline` binary (its catalog names loopback URLs, which
    /// only the test-only setting admits) and opens the published corpus.
    pub fn bake(&self, out_dir: &Path) -> corpus::BakedCorpus {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_pipeline"))
            .args(["bake", "--quiet", "--out-dir"])
            .arg(out_dir)
            .arg("--catalog-dir")
            .arg(self.catalog.path())
            .arg("--sources-dir")
            .arg(self.sources.path())
            .env("CORPUS_FETCH_LOOPBACK_FOR_TESTS", "1")
            .output()
            .expect("pipeline runs");
        assert!(
            output.status.success(),
            "bake failed:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        corpus::BakedCorpus::open_current(out_dir).expect("the published corpus opens")
    }

    /// Overwrites `file` of the catalog copy (a path under `data/`).
    pub fn write_catalog_file(&self, file: &str, text: &str) {
        std::fs::write(self.catalog.path().join(file), text).unwrap();
    }
}

/// Copies the catalog tree `from` into `to`, each refresh URL (`url = "https://HOST/…"` in a `[refresh]`
/// table of a source or curated file; `corpus.toml`'s licence `url`s come before any and stay) rewritten
/// to `http://127.0.0.1:PORT/HOST/…`.
fn copy_rewriting(from: &Path, to: &Path, port: u16) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        // A local bake's output (`data/baked`) and lock are not the catalog.
        if entry.file_name() == "baked" || entry.file_name() == "sources.lock.json" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_rewriting(&entry.path(), &target, port);
        } else if entry
            .path()
            .extension()
            .is_some_and(|extension| extension == "toml")
            && from.file_name().is_some_and(|name| name == "sources")
        {
            // Only the source catalog files declare refresh URLs; corpus.toml's licence `url`s stay https.
            let text = std::fs::read_to_string(entry.path()).unwrap();
            std::fs::write(&target, rewrite_refresh_urls(&text, port)).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `text` with every `url = "https://` of its `[refresh]` table (from the first line opening a
/// `[refresh` table on) pointed at the loopback publisher; nothing before it changes.
fn rewrite_refresh_urls(text: &str, port: u16) -> String {
    const KEY: &str = "url = \"https://";
    let start = text
        .match_indices("[refresh")
        .find(|(at, _)| *at == 0 || text.as_bytes()[at - 1] == b'\n')
        .map_or(text.len(), |(at, _)| at);
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    let mut rest = &text[start..];
    while let Some(at) = rest.find(KEY) {
        let before = rest[..at].chars().next_back();
        let is_key = before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        out.push_str(&rest[..at]);
        if is_key {
            out.push_str(&format!("url = \"http://127.0.0.1:{port}/"));
        } else {
            out.push_str(KEY);
        }
        rest = &rest[at + KEY.len()..];
    }
    out.push_str(rest);
    out
}

/// Mirrors the tree `from` into `to`: real folders, each file a symbolic link to the original.
fn link_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            link_tree(&entry.path(), &target);
        } else {
            std::os::unix::fs::symlink(entry.path(), &target).unwrap();
        }
    }
}

/// The bytes of a zip holding `members` (name, bytes), deflated — a publisher's bulk download.
pub fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in members {
        writer
            .start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// The refresh mechanism on the fixture catalog: a zip from the publisher, unpacked, read with the
/// refresh's own connector (another layout than the staged extract's), cited with the fetch's dates;
/// before the fetch the staged extract answers with the catalog's.
#[test]
fn a_zip_refresh_is_read_with_its_own_connector_and_cited_with_the_fetch_dates() {
    let (catalog_dir, sources_dir) = fixture();
    // The publisher's layout: other column names and order than the staged wgi.csv, CRLF, a BOM; the
    // value of BRA rule of law 2023 is the newer vintage's full precision (staged: -0.31).
    let bulk = "\u{feff}Country Code,Indicator,Year,Estimate,StdErr,Sources\r\nBRA,rl,2023,-0.3123456789,0.13,12\r\nMEX,rl,2023,-0.82,0.13,13\r\nBRA,rl,2024,-0.29,0.14,12\r\n";
    let setup = PublisherSetup::new(
        &catalog_dir,
        &sources_dir,
        vec![(
            "databank.worldbank.org/data/download/WGI_CSV.zip".into(),
            zip_of(&[
                ("WGI_CSV/WGIData.csv", bulk.as_bytes()),
                ("WGISeries.csv", b"x"),
            ]),
        )],
    );
    let wgi = std::fs::read_to_string(setup.catalog.path().join("sources/wgi.toml")).unwrap();
    setup.write_catalog_file(
        "sources/wgi.toml",
        &format!(
            "{wgi}\n[refresh]\nformat = \"zip\"\nfiles = [{{ url = \"http://127.0.0.1:{}/databank.worldbank.org/data/download/WGI_CSV.zip\", file = \"publisher/WGI_CSV.zip\", extract = [\"WGIData.csv\"] }}]\n\n[refresh.connector]\nkind = \"long_csv\"\nfile = \"publisher/WGIData.csv\"\nindicator_column = \"Indicator\"\ncountry_column = \"Country Code\"\nyear_column = \"Year\"\nvalue_column = \"Estimate\"\n\n[refresh.connector.attributes]\nstandard_error = \"StdErr\"\nsource_count = \"Sources\"\n",
            setup.server.port
        ),
    );
    let corpus_file = setup.catalog.path().join("corpus.toml");
    let mut settings = std::fs::read_to_string(&corpus_file).unwrap();
    settings.push_str("\n[fetch]\nallowed_hosts = [\"*.worldbank.org\"]\n");
    std::fs::write(&corpus_file, settings).unwrap();

    let cite = |corpus: &corpus::BakedCorpus, year: i32| {
        let id = format!("wgi-rl-est-bra-{year}");
        corpus.resolve_citation(&id).ok().map(|citation| {
            (
                citation.value,
                citation.vintage.to_string(),
                citation.retrieved_at.to_string(),
            )
        })
    };
    let before_dir = tempfile::tempdir().unwrap();
    let before = setup.bake(before_dir.path());
    assert_eq!(
        cite(&before, 2023),
        Some((-0.31, "2024".to_string(), "2024-12-11".to_string()))
    );
    assert_eq!(cite(&before, 2024), None);

    let printed = setup.fetch_ok(&["wgi"]);
    assert!(printed.contains("publisher/WGIData.csv"), "{printed}");
    assert!(
        !setup
            .sources
            .path()
            .join("wgi/publisher/WGI_CSV.zip")
            .exists(),
        "the archive is not kept"
    );
    let lock: serde_json::Value = serde_json::from_slice(
        &std::fs::read(setup.catalog.path().join("sources.lock.json")).unwrap(),
    )
    .unwrap();
    let locked = &lock["sources"]["wgi"];
    assert_eq!(locked["vintage"], LAST_MODIFIED_ISO);
    assert_eq!(locked["files"][0]["file"], "publisher/WGIData.csv");
    assert_eq!(locked["files"][0]["archive"], "publisher/WGI_CSV.zip");
    assert_eq!(locked["files"][0]["member_bytes"], bulk.len());

    let after_dir = tempfile::tempdir().unwrap();
    let after = setup.bake(after_dir.path());
    let today = locked["retrieved_at"].as_str().unwrap().to_string();
    assert_eq!(
        cite(&after, 2023),
        Some((-0.3123456789, LAST_MODIFIED_ISO.to_string(), today.clone()))
    );
    assert_eq!(
        cite(&after, 2024),
        Some((-0.29, LAST_MODIFIED_ISO.to_string(), today))
    );

    // Edited by hand after the fetch: still read with the refresh connector, cited with the catalog's dates.
    let fetched = setup.sources.path().join("wgi/publisher/WGIData.csv");
    let edited = std::fs::read_to_string(&fetched)
        .unwrap()
        .replace("-0.29", "-0.28");
    std::fs::write(&fetched, edited).unwrap();
    let edited_dir = tempfile::tempdir().unwrap();
    let edited = setup.bake(edited_dir.path());
    assert_eq!(
        cite(&edited, 2024),
        Some((-0.28, "2024".to_string(), "2024-12-11".to_string()))
    );
}

/// Every observation source of the default catalog says how it is renewed: a `[refresh]` from its
/// publisher, or `refresh_by_hand` naming what the publisher does not serve.
#[test]
fn every_default_source_is_refreshable_from_its_publisher_or_says_why_not() {
    let catalog = pipeline::sources::Catalog::load(&project_catalog()).unwrap();
    let silent: Vec<&str> = catalog
        .sources
        .iter()
        .filter(|source| source.connector.yields_observations())
        .filter(|source| source.refresh.is_none() && source.refresh_by_hand.is_none())
        .map(|source| source.id.as_str())
        .collect();
    assert!(
        silent.is_empty(),
        "sources with neither [refresh] nor refresh_by_hand: {silent:?}"
    );
    let by_hand: Vec<&str> = catalog
        .sources
        .iter()
        .filter(|source| source.refresh_by_hand.is_some())
        .map(|source| source.id.as_str())
        .collect();
    // The sources whose publishers serve no documented download of what the corpus reads (see each
    // catalog file); any other must declare its publisher's refresh.
    assert!(
        by_hand.iter().all(|id| [
            "cepal_femicide",
            "oecd_crs_all",
            "oecd_crs_climate",
            "oecd_crs_climate_sector",
            "owid_ucdp",
            "owid_sedlac",
            "owid_ihme"
        ]
        .contains(id)),
        "{by_hand:?}"
    );
}
