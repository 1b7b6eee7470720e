#!/usr/bin/env bash
# The same get_series call in the two protocol eras (release build, loopback, result cache on): legacy
# 2025-11-25 (the repeat cache answers it from the params' text) and 2026-07-28 (per-request `_meta`,
# mirrored headers checked, `resultType` spliced into the cached result), under the same load
# (wrk -t2 -c16 -d10s); then `server/discover`.
# Usage: bash bench/eras.sh   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/wait.sh
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
cargo build --release --quiet -p pipeline -p server
work=$(mktemp -d)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
target/release/pipeline bake --quiet --out-dir "$work/corpus" > /dev/null
MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_MAX_CALLS_IN_FLIGHT=64 MCP_MAX_CALLS_PER_CLIENT=64 target/release/server --addr 127.0.0.1:18084 --corpus-dir "$work/corpus" > "$work/server.log" &
server_pid=$!
wait_for 'http://127.0.0.1:18084/api/mcp?health=1'
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
arguments='"arguments":{"indicator":"sp_dyn_le00_in","countries":["MEX","BRA","ARG"]}'
legacy="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_series\",$arguments}}"
modern="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_series\",$arguments,$meta}}"
discover="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{$meta}}"
run() {
  local label=$1 body=$2; shift 2
  BODY="$body" wrk -t2 -c16 -d10s --latency -s bench/tool.lua "$@" http://127.0.0.1:18084/api/mcp > "$work/wrk.txt"
  printf '%-34s %8s req/s  p50 %8s  p99 %8s\n' "$label" \
    "$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/wrk.txt")" \
    "$(awk '$1 == "50%" {print $2}' "$work/wrk.txt")" "$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")"
}
run "get_series, 2025-11-25 (cached)" "$legacy" -H "MCP-Protocol-Version: 2025-11-25"
run "get_series, 2026-07-28 (cached)" "$modern" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/call" -H "Mcp-Name: get_series"
run "server/discover, 2026-07-28" "$discover" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: server/discover"
