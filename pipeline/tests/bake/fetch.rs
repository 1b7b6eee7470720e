//! `pipeline fetch` and the refresh columns of `pipeline sources`, against a local HTTP server on loopback
//! (admitted only through the test-only setting `CORPUS_FETCH_LOOPBACK_FOR_TESTS`): a good refresh, a
//! redirect followed and one off the allow-list, an oversized, a truncated and a compressed body, a
//! changed checksum, a missing credential; and the catalog checks of refresh URLs. Every failed fetch
//! leaves the raw file and the lock file as they were.

use std::{collections::HashMap, io::Write, path::Path, process::Output};

use crate::{
    loopback::{Canned, LoopbackServer},
    support::fixture,
};

/// A copy of the fixture catalog and sources, the wgi source refreshed from `url`.
struct Setup {
    catalog: tempfile::TempDir,
    sources: tempfile::TempDir,
}

impl Setup {
    fn new(url: &str, credential_env: Option<&str>) -> Setup {
        Setup::with_files(
            &format!("{{ url = \"{url}\", file = \"wgi.csv\" }}"),
            credential_env,
        )
    }

    /// As [`Setup::new`], with `files` the TOML items of `refresh.files`.
    fn with_files(files: &str, credential_env: Option<&str>) -> Setup {
        let (catalog_dir, sources_dir) = fixture();
        let catalog = tempfile::tempdir().unwrap();
        let sources = tempfile::tempdir().unwrap();
        copy_tree(&catalog_dir, catalog.path());
        copy_tree(&sources_dir, sources.path());
        append(
            &catalog.path().join("corpus.toml"),
            "\n[fetch]\nallowed_hosts = [\"*.worldbank.org\"]\n",
        );
        let credential = credential_env
            .map(|name| format!("credential_env = \"{name}\"\n"))
            .unwrap_or_default();
        append(
            &catalog.path().join("sources/wgi.toml"),
            &format!("\n[refresh]\nformat = \"csv\"\n{credential}files = [{files}]\n"),
        );
        Setup { catalog, sources }
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pipeline"));
        command
            .args(args)
            .arg("--catalog-dir")
            .arg(self.catalog.path())
            .arg("--sources-dir")
            .arg(self.sources.path())
            .env("CORPUS_FETCH_LOOPBACK_FOR_TESTS", "1")
            .env_remove("CORPUS_FETCH_MAX_BYTES")
            .env_remove("LAC_TEST_WGI_TOKEN");
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().expect("pipeline runs")
    }

    fn raw(&self) -> Vec<u8> {
        std::fs::read(self.sources.path().join("wgi/wgi.csv")).unwrap()
    }

    fn lock(&self) -> Option<serde_json::Value> {
        std::fs::read(self.catalog.path().join("sources.lock.json"))
            .ok()
            .map(|bytes| serde_json::from_slice(&bytes).unwrap())
    }

    /// Asserts that a fetch failed with `expected` in its message and changed nothing.
    fn assert_refused(&self, output: &Output, original: &[u8], expected: &[&str]) {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{stderr}");
        for fragment in expected {
            assert!(stderr.contains(fragment), "{fragment:?} in {stderr}");
        }
        assert_eq!(self.raw(), original, "the raw file is unchanged");
        assert_eq!(self.lock(), None, "no lock written");
        let leftovers: Vec<_> = std::fs::read_dir(self.sources.path())
            .unwrap()
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().starts_with(".fetch-"))
            .collect();
        assert!(leftovers.is_empty(), "no staging folder left");
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// The fixture's WGI rows and one more year.
fn newer_wgi() -> Vec<u8> {
    let (_, sources) = fixture();
    let mut text = std::fs::read_to_string(sources.join("wgi/wgi.csv")).unwrap();
    text.push_str("BRArl2024,BRA,Brazil,2024,rl,-0.28,0.12,12,43.0,37.1,49.0\n");
    text.into_bytes()
}

#[test]
fn a_refresh_swaps_the_file_in_records_it_in_the_lock_and_says_what_changed() {
    let server = LoopbackServer::start(HashMap::from([
        ("/wgi.csv", Canned::redirect("/v2/wgi.csv")),
        ("/v2/wgi.csv", Canned::ok(&newer_wgi())),
    ]));
    let setup = Setup::new(&server.url("/wgi.csv"), None);
    let output = setup.run(&["fetch", "wgi"], &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // One redirect on the same (admitted) origin, followed by hand.
    assert_eq!(server.requests(), 2);
    assert_eq!(setup.raw(), newer_wgi());
    assert!(stdout.contains("newest year 2023 -> 2024"), "{stdout}");
    assert!(
        stdout.contains("wgi.csv") && stdout.contains("changed"),
        "{stdout}"
    );
    assert!(stdout.contains("just bake"), "{stdout}");
    let lock = setup.lock().expect("a lock file");
    let locked = &lock["sources"]["wgi"]["files"][0];
    assert_eq!(locked["url"], serde_json::json!(server.url("/wgi.csv")));
    assert_eq!(locked["bytes"], serde_json::json!(newer_wgi().len()));
    use sha2::Digest;
    let digest: String = sha2::Sha256::digest(newer_wgi())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    assert_eq!(locked["sha256"], serde_json::json!(digest));

    // `pipeline sources` shows where it comes from and that it matches the lock; a hand edit shows.
    let sources = setup.run(&["sources"], &[]);
    let text = String::from_utf8_lossy(&sources.stdout);
    assert!(
        sources.status.success(),
        "{}",
        String::from_utf8_lossy(&sources.stderr)
    );
    let line = text
        .lines()
        .find(|line| line.starts_with("wgi ") && line.contains("127.0.0.1"))
        .unwrap();
    assert!(
        line.contains("matches the lock") && line.contains("none"),
        "{line}"
    );
    append(
        &setup.sources.path().join("wgi/wgi.csv"),
        "edited by hand\n",
    );
    let text = String::from_utf8_lossy(&setup.run(&["sources"], &[]).stdout).to_string();
    assert!(text.contains("differs from the lock: wgi.csv"), "{text}");
}

#[test]
fn a_redirect_off_the_allow_list_changes_nothing() {
    let server = LoopbackServer::start(HashMap::from([(
        "/wgi.csv",
        Canned::redirect("https://evil.example.com/wgi.csv"),
    )]));
    let setup = Setup::new(&server.url("/wgi.csv"), None);
    let original = setup.raw();
    let output = setup.run(&["fetch", "wgi"], &[]);
    setup.assert_refused(
        &output,
        &original,
        &[
            "evil.example.com",
            "not on the allow-list",
            "nothing was changed",
        ],
    );
}

#[test]
fn an_oversized_a_truncated_or_a_compressed_body_changes_nothing() {
    let big = vec![b'x'; 4096];
    let mut cut = Canned::ok(&newer_wgi());
    cut.headers.push(("Content-Length", "5000".into()));
    cut.cut_after = Some(100);
    let mut gzip = Canned::ok(&newer_wgi());
    gzip.headers.push(("Content-Encoding", "gzip".into()));
    let server = LoopbackServer::start(HashMap::from([
        ("/big.csv", Canned::ok(&big)),
        ("/cut.csv", cut),
        ("/gzip.csv", gzip),
    ]));
    for (path, env, expected) in [
        (
            "/big.csv",
            vec![("CORPUS_FETCH_MAX_BYTES", "1000")],
            "above the 1000",
        ),
        ("/cut.csv", vec![], "broke off"),
        ("/gzip.csv", vec![], "compressed"),
    ] {
        let setup = Setup::new(&server.url(path), None);
        let original = setup.raw();
        let output = setup.run(&["fetch", "wgi"], &env);
        setup.assert_refused(&output, &original, &[expected]);
    }
}

#[test]
fn a_missing_credential_requests_nothing_and_a_set_one_is_sent_but_never_shown() {
    let server = LoopbackServer::start(HashMap::from([("/wgi.csv", Canned::ok(&newer_wgi()))]));
    let setup = Setup::new(&server.url("/wgi.csv"), Some("LAC_TEST_WGI_TOKEN"));
    let original = setup.raw();
    let output = setup.run(&["fetch", "wgi"], &[]);
    setup.assert_refused(
        &output,
        &original,
        &["LAC_TEST_WGI_TOKEN", "not set", "nothing was requested"],
    );
    assert_eq!(server.requests(), 0);
    let sources = String::from_utf8_lossy(&setup.run(&["sources"], &[]).stdout).to_string();
    assert!(sources.contains("LAC_TEST_WGI_TOKEN not set"), "{sources}");

    let token = [("LAC_TEST_WGI_TOKEN", "s3cret-value")];
    let output = setup.run(&["fetch", "wgi"], &token);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen = server.seen.lock().unwrap().clone();
    assert_eq!(seen[0].1.as_deref(), Some("Bearer s3cret-value"));
    let sources = setup.run(&["sources"], &token);
    let text = String::from_utf8_lossy(&sources.stdout).to_string()
        + &String::from_utf8_lossy(&sources.stderr);
    assert!(text.contains("LAC_TEST_WGI_TOKEN set"), "{text}");
    assert!(!text.contains("s3cret-value"), "the value is never printed");
}

#[test]
fn the_catalog_refuses_a_refresh_url_that_is_not_https_on_an_allowed_host() {
    for (url, loopback, expected) in [
        ("http://127.0.0.1:9/wgi.csv", false, "not https"),
        (
            "https://evil.example.com/wgi.csv",
            true,
            "host `evil.example.com` is not on the allow-list",
        ),
        ("https://Data.WorldBank.org/wgi.csv", true, "lower-case"),
    ] {
        let setup = Setup::new(url, None);
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pipeline"));
        command
            .args(["sources", "--catalog-dir"])
            .arg(setup.catalog.path())
            .arg("--sources-dir")
            .arg(setup.sources.path())
            .env_remove("CORPUS_FETCH_EXTRA_HOSTS");
        if loopback {
            command.env("CORPUS_FETCH_LOOPBACK_FOR_TESTS", "1");
        } else {
            command.env_remove("CORPUS_FETCH_LOOPBACK_FOR_TESTS");
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{url}");
        for fragment in ["wgi.toml", "refresh.files[0].url", expected] {
            assert!(stderr.contains(fragment), "{url}: {fragment:?} in {stderr}");
        }
    }
    // An extra host is admitted only by the explicit setting.
    let setup = Setup::new("https://mirror.example.org/wgi.csv", None);
    let output = setup.run(
        &["sources"],
        &[("CORPUS_FETCH_EXTRA_HOSTS", "mirror.example.org")],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_place_taken_by_a_directory_stops_the_swap_before_it_starts() {
    let server = LoopbackServer::start(HashMap::from([
        ("/wgi.csv", Canned::ok(&newer_wgi())),
        ("/other.csv", Canned::ok(b"code,other\nBRA,1\n")),
    ]));
    let files = format!(
        "{{ url = \"{}\", file = \"wgi.csv\" }}, {{ url = \"{}\", file = \"other.csv\" }}",
        server.url("/wgi.csv"),
        server.url("/other.csv")
    );
    let setup = Setup::with_files(&files, None);
    // The second file's place is taken by a directory with a file in it: nothing is swapped in, not even
    // the first file.
    std::fs::create_dir_all(setup.sources.path().join("wgi/other.csv/inside")).unwrap();
    let original = setup.raw();
    let output = setup.run(&["fetch", "wgi"], &[]);
    setup.assert_refused(&output, &original, &["other.csv", "not a file"]);
    assert!(setup.sources.path().join("wgi/other.csv/inside").is_dir());
}

#[test]
fn a_page_instead_of_data_a_second_compression_header_or_a_bad_lock_changes_nothing() {
    let mut html = Canned::ok(b"<!doctype html><title>Sign in</title>");
    html.headers = vec![("Content-Type", "text/html".into())];
    let mut doubled = Canned::ok(&newer_wgi());
    doubled
        .headers
        .push(("Content-Encoding", "identity".into()));
    doubled.headers.push(("Content-Encoding", "gzip".into()));
    let server = LoopbackServer::start(HashMap::from([
        ("/page.csv", html),
        ("/empty.csv", Canned::ok(b"")),
        ("/unreadable.csv", Canned::ok(b"a,b\n1,2\n")),
        ("/doubled.csv", doubled),
        ("/wgi.csv", Canned::ok(&newer_wgi())),
    ]));
    for (path, expected) in [
        ("/unreadable.csv", "the connector cannot read the new files"),
        ("/page.csv", "HTML"),
        ("/empty.csv", "empty"),
        ("/doubled.csv", "compressed"),
    ] {
        let setup = Setup::new(&server.url(path), None);
        let original = setup.raw();
        let output = setup.run(&["fetch", "wgi"], &[]);
        setup.assert_refused(&output, &original, &[expected]);
    }
    let setup = Setup::new(&server.url("/wgi.csv"), None);
    std::fs::write(setup.catalog.path().join("sources.lock.json"), "{not json").unwrap();
    let before = server.requests();
    let original = setup.raw();
    let output = setup.run(&["fetch", "wgi"], &[]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("sources.lock.json"));
    assert_eq!(
        server.requests(),
        before,
        "nothing requested with a lock that does not read"
    );
    assert_eq!(setup.raw(), original);
}

#[test]
fn the_credential_goes_only_to_the_declared_origin() {
    let other = LoopbackServer::start(HashMap::from([("/wgi.csv", Canned::ok(&newer_wgi()))]));
    let first = LoopbackServer::start(HashMap::from([(
        "/wgi.csv",
        Canned::redirect(&other.url("/wgi.csv")),
    )]));
    let setup = Setup::new(&first.url("/wgi.csv"), Some("LAC_TEST_WGI_TOKEN"));
    let output = setup.run(&["fetch", "wgi"], &[("LAC_TEST_WGI_TOKEN", "s3cret-value")]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        first.seen.lock().unwrap()[0].1.as_deref(),
        Some("Bearer s3cret-value")
    );
    assert_eq!(
        other.seen.lock().unwrap()[0].1,
        None,
        "not sent to another origin"
    );
}
