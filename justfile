# Tasks of the LAC governed-data corpus. `just --list` shows them; README.md explains them.
set shell := ["bash", "-euo", "pipefail", "-c"]

# Listen address of `just serve`.
addr := env_var_or_default("MCP_ADDR", "127.0.0.1:8080")
# Python used for the end-to-end tests (created by `just venv`).
python := env_var_or_default("E2E_PYTHON", ".venv/bin/python")

# Bake the default corpus unless a valid one is published (current format, checksums), then serve it over
# MCP (Streamable HTTP) on {{addr}}.
serve:
    cargo run --quiet -p server -- check > /dev/null 2>&1 || cargo run --quiet -p pipeline -- bake
    MCP_ENABLED="${MCP_ENABLED:-true}" cargo run --quiet -p server -- --addr {{addr}}

# Bake the default corpus from ../shared/data/sources into data/baked (atomic; prints the summary).
bake *args:
    cargo run --quiet -p pipeline -- bake {{args}}

# Show every catalog source: present, rows, indicators, newest year, licence; refresh host, last retrieval,
# checksum against data/sources.lock.json, credentials (set or not).
sources *args:
    cargo run --quiet -p pipeline -- sources {{args}}

# Refresh sources from their publishers (`just fetch wgi`; none named: every source with a [refresh]), all or
# nothing per source, into ../shared/data/sources; `just bake` publishes what it brought.
fetch *args:
    cargo run --quiet -p pipeline -- fetch {{args}}

# Run every test: the workspace's Rust tests, the end-to-end tests with the official Python MCP client, then the
# official MCP conformance suite for each protocol revision served.
test: venv
    cargo test --workspace --no-fail-fast
    just e2e
    just conformance

# The official MCP conformance suite (pinned in tests/conformance) against the server over HTTP, for 2026-07-28,
# 2025-11-25 and 2025-06-18, each against tests/conformance/expected-failures.yaml (bakes as `e2e` does).
conformance: venv
    cargo build --quiet -p server -p pipeline
    test -f target/e2e-corpus/current/manifest.json || target/debug/pipeline bake --quiet --out-dir target/e2e-corpus > /dev/null
    bash tests/conformance/run.sh target/debug/server target/e2e-corpus {{python}}

# End-to-end tests: bake the default corpus into target/e2e-corpus and drive the server with the Python MCP client,
# and the MCP App in headless Chromium through the test host (apps-host).
e2e: venv apps-host
    cargo build --quiet -p server -p pipeline
    target/debug/pipeline bake --quiet --out-dir target/e2e-corpus > /dev/null
    SERVER_BIN=target/debug/server CORPUS_OUT_DIR=target/e2e-corpus APPS_HOST_DIR=target/apps-host VEGA_LITE_SCHEMA=target/apps-host/node_modules/vega-lite/build/vega-lite-schema.json {{python}} -m pytest -q tests/e2e

# The end-to-end tests' MCP Apps host: the npm packages pinned in tests/e2e/apps_host/package-lock.json (the
# extension's AppBridge, the TypeScript MCP client, esbuild, vega-lite's schema) into target/apps-host, and
# host.js bundled for the browser.
apps-host:
    mkdir -p target/apps-host
    cmp -s tests/e2e/apps_host/package-lock.json target/apps-host/package-lock.json || (cp tests/e2e/apps_host/package.json tests/e2e/apps_host/package-lock.json target/apps-host/ && npm ci --silent --no-audit --no-fund --prefix target/apps-host)
    cp tests/e2e/apps_host/host.html tests/e2e/apps_host/host.js target/apps-host/
    target/apps-host/node_modules/.bin/esbuild target/apps-host/host.js --bundle --format=iife --platform=browser --target=chrome120 --log-level=warning --outfile=target/apps-host/host.bundle.js

# Create or update the Python virtualenv of the end-to-end tests (.venv) when tests/e2e/requirements.txt changed.
venv:
    test -n "${E2E_PYTHON:-}" || cmp -s tests/e2e/requirements.txt .venv/requirements.txt || (python3 -m venv .venv && .venv/bin/pip install --quiet --disable-pip-version-check -r tests/e2e/requirements.txt && cp tests/e2e/requirements.txt .venv/requirements.txt)

# Pack the MCP Bundle target/bundle/lac-corpus.mcpb that Claude Desktop installs in one click: the release
# server, the published corpus (baked first when none is valid) and a manifest of its tools, validated and
# packed by the official @anthropic-ai/mcpb CLI; with MCPB_RELEASE_URL (the bundle's GitHub release asset
# URL), also target/bundle/server.json for the MCP Registry.
bundle:
    cargo build --release --quiet -p server -p pipeline
    target/release/server check > /dev/null 2>&1 || target/release/pipeline bake
    bash packaging/mcpb/pack.sh target/release/server data/baked target/bundle/lac-corpus.mcpb

# Benchmarks (release build): bake wall time, peak RSS and export sizes; server cold start, RSS and get_series throughput;
# get_series beside the Python SDK peer, cached, uncached and the ceiling in one run; one indicator CSV
# download beside the ceiling; per-tool latency
# without the result cache.
bench:
    bash bench/bake.sh
    bash bench/server.sh
    bash bench/compare.sh
    bash bench/downloads.sh
    bash bench/tools.sh
    bash bench/eras.sh
    cargo bench -p server --bench tools

# Proofs under faults: 10 corpus reloads under load, the bake SIGKILLed at 20 random points, a 60 s soak,
# a flood of costly calls from one client beside another client's get_series, a crowd of new clients
# against one client, Redis hung under the shared rate limit, four addresses holding every connection.
faults:
    bash bench/faults.sh

# Random-input harness: 10 million inputs (or `just fuzz N`) over the JSON-RPC core and every tool's arguments.
fuzz inputs="10000000":
    cargo build --release --quiet -p pipeline -p server --bins --example fuzz
    target/release/pipeline bake --quiet --out-dir target/fuzz-corpus > /dev/null
    target/release/examples/fuzz {{inputs}} target/fuzz-corpus

# Scale: synthetic corpora (1x, 5x, 20x the WDI indicators, never published) for bake time and tool p99.
scale:
    bash bench/scale.sh

# Format the code.
fmt:
    cargo fmt --all

# Lint: formatting and clippy with warnings denied.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
