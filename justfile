# Tasks of the LAC governed-data corpus. `just --list` shows them; README.md explains them.
set shell := ["bash", "-euo", "pipefail", "-c"]

# Bake the default corpus from ../shared/data/sources into data/baked (atomic; prints the summary).
bake *args:
    cargo run --quiet -p pipeline -- bake {{args}}

# Show every catalog source: present, rows, indicators, newest year, licence.
sources *args:
    cargo run --quiet -p pipeline -- sources {{args}}

# Run every test (unit, integration, data cases) of the workspace.
test:
    cargo test --workspace --no-fail-fast

# Benchmarks (release build): bake wall time and peak RSS.
bench:
    bash bench/bake.sh

# Format the code.
fmt:
    cargo fmt --all

# Lint: formatting and clippy with warnings denied.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
