//! What a new vintage changed (issue 24). On the real corpus (baked once, into an empty directory):
//! `/api/v1/changes.json` says it is a first publication, `get_data_health` marks WEO April 2019 as
//! superseded by April 2025 and counts broad recent coverage per pillar as the observation table does.
//! On the pipeline's fixture baked twice (the second time with MEX 2024 life expectancy revised from
//! 75.264 to 75.5 and BRA's 2023 value moved to 2022): the file and the tool report that revision with
//! both vintages, cited.

use std::{collections::HashSet, path::Path, sync::Arc};

use axum::{body::Body, http::Request};
use serde_json::{Value, json};
use server::transport::{
    http::{HttpConfig, HttpState},
    jsonrpc::{McpServer, Reply},
};

use crate::support::{call_tool, http_state, payload, send, server, structured_size};

fn get(path: &str) -> Request<Body> {
    Request::get(path).body(Body::empty()).unwrap()
}

fn health_of(server: &McpServer) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "get_data_health", "arguments": {}}});
    match server.handle_body(&request) {
        Reply::One { response, .. } => {
            serde_json::from_str::<Value>(&response).unwrap()["result"].clone()
        }
        other => panic!("expected one response, got {other:?}"),
    }
}

#[tokio::test]
async fn the_real_corpus_serves_its_changes_as_a_first_publication() {
    let state = http_state(false, 60);
    let (response, body) = send(&state, get("/api/v1/changes.json")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let manifest = server().plugin().corpus().baked.manifest();
    let entry = manifest.artifact(corpus::layout::CHANGES).unwrap();
    assert_eq!(
        response.headers()["etag"],
        format!("\"{}\"", entry.sha256).as_str()
    );
    let changes: corpus::changes::Changes = serde_json::from_slice(&body).unwrap();
    assert!(changes.from.is_none());
    assert_eq!(changes.to.unwrap().version, manifest.corpus_version);
    assert!(changes.note.unwrap().contains("first publication"));
    // The catalog lists it beside the registry.
    let (_, catalog) = send(&state, get("/api/v1/catalog")).await;
    let catalog: Value = serde_json::from_slice(&catalog).unwrap();
    assert!(
        catalog["changes"][0]["url"]
            .as_str()
            .unwrap()
            .ends_with("/api/v1/changes.json"),
        "{}",
        catalog["changes"]
    );
}

#[test]
fn data_health_marks_weo_2019_as_superseded_by_weo_2025() {
    let answer = call_tool("get_data_health", json!({}));
    let result = &payload(&answer)["result"];
    assert_eq!(
        result["superseded_vintages"],
        json!([{"source": "imf_weo_2019", "vintage": "2019-04",
                "superseded_by": "imf_weo", "superseded_by_vintage": "2025-04"}])
    );
    let weo_2019 = result["refresh_work_list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["source"] == json!("imf_weo_2019"))
        .unwrap();
    assert_eq!(weo_2019["superseded_by"], json!("imf_weo"));
    assert!(
        result["changes"]["note"]
            .as_str()
            .unwrap()
            .contains("first publication")
    );
    assert!(
        structured_size(&answer) < 40_000,
        "{}",
        structured_size(&answer)
    );
}

#[test]
fn coverage_per_pillar_counts_what_the_observation_table_holds() {
    let result = payload(&call_tool("get_data_health", json!({})))["result"].clone();
    let coverage = result["coverage"].as_array().unwrap();
    assert_eq!(coverage.len(), 12);
    let baked = &server().plugin().corpus().baked;
    let sovereign: HashSet<&str> = baked
        .countries()
        .countries()
        .filter(|country| country.sovereign)
        .map(|country| country.iso3.as_str())
        .collect();
    assert_eq!(sovereign.len(), 33, "UN member states of the region");
    assert!(sovereign.contains("BRA") && !sovereign.contains("PRI") && !sovereign.contains("ABW"));
    let table = baked.observations();
    for pillar in coverage {
        let id = pillar["parameter"].as_str().unwrap();
        let metrics: Vec<&corpus::Metric> = baked
            .metrics()
            .iter()
            .filter(|metric| metric.pillar == id)
            .collect();
        let mut broad: Vec<String> = metrics
            .iter()
            .filter(|metric| {
                let countries: HashSet<&str> = table
                    .indicator_rows(&metric.id)
                    .map(|row_idx| table.row(row_idx))
                    .filter(|row| {
                        row.year >= 2019
                            && sovereign.contains(row.country)
                            && !row
                                .flags
                                .split('|')
                                .any(|flag| flag == "projection" || flag == "modelled")
                    })
                    .map(|row| row.country)
                    .collect();
                countries.len() >= 20
            })
            .map(|metric| metric.id.clone())
            .collect();
        broad.sort();
        assert_eq!(pillar["indicators"], json!(metrics.len()), "{id}");
        // The ids are in the precomputed view (the default answer counts them).
        let view = crate::support::server()
            .plugin()
            .corpus()
            .data_health()
            .unwrap();
        let precomputed = view
            .coverage
            .iter()
            .find(|coverage| coverage.parameter == *id)
            .unwrap();
        assert_eq!(precomputed.broad_recent_indicators, broad, "{id}");
        assert_eq!(pillar["broad_recent"], json!(broad.len()), "{id}");
    }
}

/// The pipeline's fixture baked into `out`, then from a copy with one value revised and one year moved.
fn two_fixture_bakes(out: &Path) -> (String, String) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../pipeline/tests/fixtures");
    let bake = |sources: &Path| {
        pipeline::bake::bake(&pipeline::bake::BakeOptions {
            sources_dir: sources.to_path_buf(),
            catalog_dir: fixtures.join("catalog"),
            out_dir: out.to_path_buf(),
            progress: false,
        })
        .expect("the fixture bakes")
        .manifest
        .corpus_version
    };
    let first = bake(&fixtures.join("sources"));
    let revised = tempfile::tempdir().unwrap();
    copy_tree(&fixtures.join("sources"), revised.path());
    let file = revised
        .path()
        .join("wdi/indicators/sp.dyn.le00.in/data.csv");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace("Mexico,MEX,2024,75.264", "Mexico,MEX,2024,75.5")
            .replace("Brazil,BRA,2023,75.848", "Brazil,BRA,2022,75.848"),
    )
    .unwrap();
    (first, bake(revised.path()))
}

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

#[tokio::test]
async fn a_revised_vintage_is_served_with_both_citations() {
    let out = tempfile::tempdir().unwrap();
    let (first, second) = two_fixture_bakes(out.path());
    let core = server::build(out.path()).expect("the fixture corpus serves");
    let state = Arc::new(HttpState::new(core.clone(), HttpConfig::local(false, 60)));
    let (response, body) = send(&state, get("/api/v1/changes.json")).await;
    assert_eq!(response.status(), 200);
    let changes: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(changes["from"]["version"], json!(first));
    assert_eq!(changes["to"]["version"], json!(second));
    assert_eq!(changes["totals"]["values_revised"], json!(1));
    let indicator = &changes["sources"][0]["indicators"][0];
    assert_eq!(indicator["years_added"], json!([2022]));
    assert_eq!(indicator["years_dropped"], json!([2023]));

    let answer = health_of(&core);
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let payload = payload(&answer);
    let vintage = &payload["result"]["changes"];
    assert_eq!(vintage["from"]["version"], json!(first));
    assert_eq!(
        vintage["sources"],
        json!([{"source": "wdi", "old_vintage": "2026-07", "new_vintage": "2026-07",
                "values_revised": 1, "observations_added": 1, "observations_removed": 1,
                "indicators_added": 0, "indicators_dropped": 0, "indicators_changed": 1}])
    );
    let revision = &vintage["top_revisions"][0];
    assert_eq!(
        (
            &revision["indicator"],
            &revision["country"],
            &revision["year"]
        ),
        (&json!("sp_dyn_le00_in"), &json!("MEX"), &json!(2024))
    );
    assert_eq!(revision["old"]["value"], json!(75.264));
    assert_eq!(revision["new"]["value"], json!(75.5));
    assert_eq!(
        revision["new"]["citation_id"],
        json!("wb-sp-dyn-le00-in-mex-2024")
    );
    assert_eq!(revision["old"]["vintage"], json!("2026-07"));
    // The new value's citation travels with the answer.
    let citations = &payload["citations"];
    assert!(
        citations["series"]["wb-sp-dyn-le00-in-mex"].is_object(),
        "{citations}"
    );
    assert!(
        vintage["url"]
            .as_str()
            .unwrap()
            .ends_with("/api/v1/changes.json")
    );
}
