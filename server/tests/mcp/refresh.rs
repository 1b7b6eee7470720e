//! The renewal end to end: the fixture catalog's WGI declares the World Bank's own refresh (the project's
//! `data/sources/wgi.toml` `[refresh]`: the DataBank `WGI_CSV.zip`, read with `databank_csv`); a local
//! server plays the World Bank and serves that zip built from the real WGIData.csv rows of Brazil, with one
//! value changed and one year added; `pipeline fetch` then `pipeline bake` (the binaries, with the
//! test-only loopback setting), and `get_series` answers the new value and the new year, cited with the
//! vintage the publisher's `Last-Modified` gives and the retrieval date of the fetch.

use std::{
    io::{BufRead, BufReader, Write},
    net::TcpListener,
    path::{Path, PathBuf},
};

use serde_json::json;
use server::transport::jsonrpc::Reply;

/// The `Last-Modified` the local World Bank sends.
const LAST_MODIFIED: &str = "Tue, 23 Sep 2025 08:00:00 GMT";

/// The `pipeline` binary, built beside the server's (`cargo test --workspace` builds both).
fn pipeline_binary() -> PathBuf {
    let binary = Path::new(env!("CARGO_BIN_EXE_server")).with_file_name("pipeline");
    assert!(
        binary.exists(),
        "{} is not built: run the workspace's tests (`cargo test --workspace`) or `cargo build -p pipeline`",
        binary.display()
    );
    binary
}

/// Serves `body` at `path` (any other path: 404) on 127.0.0.1, one request per connection; its port.
fn serve_once_per_connection(path: &'static str, body: Vec<u8>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
                    break;
                }
            }
            let target = line.split_whitespace().nth(1).unwrap_or_default();
            let head = if target == path {
                format!(
                    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/zip\r\nLast-Modified: {LAST_MODIFIED}\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                )
            } else {
                "HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
                    .to_string()
            };
            let _ = stream.write_all(head.as_bytes());
            if target == path {
                let _ = stream.write_all(&body);
            }
        }
    });
    port
}

/// Copies the tree `from` into `to` (regular files).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The DataBank WGIData.csv the local World Bank serves: the real sample's header and Brazil's rule of
/// law estimate row (BOM, every cell quoted, CRLF, a trailing comma), its 2022 value changed and a 2023
/// column added.
fn served_wgi_data() -> String {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/publisher-formats/wb_wgi/WGIData.csv");
    let text = std::fs::read_to_string(&sample).unwrap();
    let mut lines = text.split("\r\n");
    let header = lines.next().unwrap();
    let brazil = lines
        .find(|line| line.starts_with("\"Brazil\",\"BRA\",") && line.contains("\"RL.EST\""))
        .expect("the sample holds Brazil's rule of law estimate");
    assert!(header.ends_with("\"2022\","), "{header}");
    let mut cells: Vec<&str> = brazil.split(',').collect();
    // The 2022 cell is the last before the trailing empty field.
    let last = cells.len() - 2;
    assert!(
        cells[last].starts_with('"') && cells[last] != "\"\"",
        "{brazil}"
    );
    cells[last] = "\"-0.123456789012345\"";
    cells.insert(last + 1, "\"-0.2345678901\"");
    format!("{}\"2023\",\r\n{}\r\n", header, cells.join(","))
}

#[test]
fn a_refreshed_source_answers_the_new_value_and_year_with_the_new_vintage_and_retrieval_date() {
    let data = served_wgi_data();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("WGIData.csv", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(data.as_bytes()).unwrap();
    let body = zip.finish().unwrap().into_inner();
    let port = serve_once_per_connection("/databank.worldbank.org/data/download/WGI_CSV.zip", body);

    // The fixture catalog, its WGI refreshed as the project's WGI is, from the local World Bank.
    let pipeline_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../pipeline/tests/fixtures");
    let work = tempfile::tempdir().unwrap();
    let catalog = work.path().join("catalog");
    let sources = work.path().join("sources");
    copy_tree(&pipeline_dir.join("catalog"), &catalog);
    copy_tree(&pipeline_dir.join("sources"), &sources);
    let project_wgi = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/sources/wgi.toml"),
    )
    .unwrap();
    let refresh = &project_wgi[project_wgi
        .find("\n[refresh]")
        .expect("wgi declares a refresh")..];
    let refresh = refresh.replace("https://", &format!("http://127.0.0.1:{port}/"));
    let fixture_wgi = catalog.join("sources/wgi.toml");
    let mut toml = std::fs::read_to_string(&fixture_wgi).unwrap();
    toml.push_str(&refresh);
    std::fs::write(&fixture_wgi, toml).unwrap();

    let run = |args: &[&str]| {
        let output = std::process::Command::new(pipeline_binary())
            .args(args)
            .arg("--catalog-dir")
            .arg(&catalog)
            .arg("--sources-dir")
            .arg(&sources)
            .env("CORPUS_FETCH_LOOPBACK_FOR_TESTS", "1")
            .output()
            .expect("pipeline runs");
        assert!(
            output.status.success(),
            "pipeline {args:?}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let out = work.path().join("corpus");
    run(&["fetch", "wgi"]);
    run(&["bake", "--quiet", "--out-dir", out.to_str().unwrap()]);
    let lock: serde_json::Value =
        serde_json::from_slice(&std::fs::read(catalog.join("sources.lock.json")).unwrap()).unwrap();
    let retrieved_at = lock["sources"]["wgi"]["retrieved_at"]
        .as_str()
        .unwrap()
        .to_string();

    let mcp = server::build(&out).expect("the refreshed corpus serves");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "get_series",
        "arguments": {"indicator": "rl_est", "countries": ["BRA"], "from_year": 2020}
    }});
    let Reply::One { response, .. } = mcp.handle_body(&request) else {
        panic!("one response");
    };
    let answer: serde_json::Value = serde_json::from_str(&response).unwrap();
    let result = &answer["result"];
    assert_eq!(result["isError"], json!(false), "{result}");
    let content = crate::support::payload(result);
    let brazil = content["result"]["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|series| series["country"] == "BRA")
        .expect("Brazil's series")
        .clone();
    let points = crate::support::points(&brazil);
    assert!(points.contains(&(2022, -0.123456789012345)), "{points:?}");
    assert!(points.contains(&(2023, -0.2345678901)), "{points:?}");
    let cited =
        crate::support::citation_of(&content, "wgi-rl-est-bra-2023").expect("2023 is cited");
    assert_eq!(cited["vintage"], json!("2025-09-23"));
    assert_eq!(cited["retrieved_at"], json!(retrieved_at));
}
