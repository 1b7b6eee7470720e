//! In-process tool latency (criterion): each request of `bench/tools.jsonl` through the MCP core
//! (`McpServer::handle_text`: JSON-RPC parsing, argument normalisation, the tool, serialization of the
//! answer), with the result cache off, on the default corpus baked into a temporary directory.
//! The loopback figures (HTTP, wrk) are `bench/tools.sh`; this isolates the work the server does.
//!
//! Run: `cargo bench -p server --bench tools` (or `just bench`).

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;

fn tools(criterion: &mut Criterion) {
    let out_dir = tempfile::tempdir().expect("temporary directory");
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let options = pipeline::bake::BakeOptions {
        sources_dir: std::env::var_os(pipeline::paths::SOURCES_DIR_ENV)
            .map(Into::into)
            .unwrap_or_else(pipeline::paths::default_sources_dir),
        catalog_dir: manifest_dir.join("../data"),
        out_dir: out_dir.path().to_path_buf(),
        progress: false,
    };
    pipeline::bake::bake(&options).expect("the default corpus bakes");
    let server = server::build(out_dir.path())
        .expect("the corpus loads")
        .with_cache_budget(0);
    let requests = std::fs::read_to_string(manifest_dir.join("../bench/tools.jsonl"))
        .expect("bench/tools.jsonl reads");
    let mut group = criterion.benchmark_group("tools/call");
    for params in requests.lines().filter(|line| !line.trim().is_empty()) {
        let params: Value = serde_json::from_str(params).expect("a JSON line");
        let label = format!(
            "{} {}",
            params["name"].as_str().unwrap_or_default(),
            params["arguments"]
        );
        let request =
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
                .to_string();
        // Read the lazily loaded derived views before timing.
        let body = server.handle_text(&request).into_body().unwrap_or_default();
        assert!(!body.contains(r#""isError":true"#), "{label}: {body}");
        group.bench_function(label, |bencher| {
            bencher.iter(|| server.handle_text(&request).into_body())
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = tools
}
criterion_main!(benches);
