# Sourced by the server benchmarks (from the repository root, after `set -euo pipefail`): builds the
# release binaries, bakes the default corpus into "$work/corpus" (a temporary folder), and on exit kills
# every process whose id the script added to "pids" and removes "$work". Defines wait_for and median_of (bench/common.sh).
source bench/common.sh
cargo build --release --quiet -p pipeline -p server -p ceiling
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
target/release/pipeline bake --quiet --out-dir "$work/corpus" > /dev/null
