#!/usr/bin/env bash
# The same get_series call in the two protocol eras (release build, loopback, result cache on): legacy
# 2025-11-25 (the repeat cache answers it from the params' text) and 2026-07-28 (per-request `_meta`,
# mirrored headers checked, `resultType` spliced into the cached result), under the same load
# (wrk -t2 -c16), in ERAS_ROUNDS rounds (odd, 5 by default) of 5 s each taken in turn; prints each era's
# median round and the median ratio of the two; then `server/discover` for 10 s.
# Usage: bash bench/eras.sh   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
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
rounds=${ERAS_ROUNDS:-5}
[[ "$rounds" =~ ^[0-9]+$ ]] && [ $((rounds % 2)) -eq 1 ] || { echo "ERAS_ROUNDS must be an odd number, not '$rounds'" >&2; exit 1; }
# One wrk run of a body (then wrk's headers): "req/s p50 p99".
measure() {
  local body=$1 seconds=$2; shift 2
  BODY="$body" wrk -t2 -c16 -d"$seconds" --latency -s bench/tool.lua "$@" http://127.0.0.1:18084/api/mcp > "$work/wrk.txt"
  echo "$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/wrk.txt") $(awk '$1 == "50%" {print $2}' "$work/wrk.txt") $(awk '$1 == "99%" {print $2}' "$work/wrk.txt")"
}
legacy_headers=(-H "MCP-Protocol-Version: 2025-11-25")
modern_headers=(-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/call" -H "Mcp-Name: get_series")
# The two eras in turns, 5 s each, which goes first alternating, so that the machine's drift falls on
# both; each era's row is its median round, the ratio the median of the rounds' ratios.
legacy_rounds=(); modern_rounds=(); ratios=()
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    old_era=$(measure "$legacy" 5s "${legacy_headers[@]}"); new_era=$(measure "$modern" 5s "${modern_headers[@]}")
  else
    new_era=$(measure "$modern" 5s "${modern_headers[@]}"); old_era=$(measure "$legacy" 5s "${legacy_headers[@]}")
  fi
  legacy_rounds+=("$old_era"); modern_rounds+=("$new_era")
  ratios+=("$(awk -v new="${new_era%% *}" -v old="${old_era%% *}" 'BEGIN { printf "%.3f", new / old }')")
done
row() { read -r rate p50 p99 <<< "$2"; printf '%-34s %8s req/s  p50 %8s  p99 %8s\n' "$1" "$rate" "$p50" "$p99"; }
echo "median of $rounds rounds of 5 s each, the two eras in turns (wrk -t2 -c16):"
row "get_series, 2025-11-25 (cached)" "$(median_of "${legacy_rounds[@]}")"
row "get_series, 2026-07-28 (cached)" "$(median_of "${modern_rounds[@]}")"
echo "2026-07-28 / 2025-11-25: $(median_of "${ratios[@]}")   (target >= 0.9, issue 30; by round: ${ratios[*]})"
row "server/discover, 2026-07-28" "$(measure "$discover" 10s -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: server/discover")"
