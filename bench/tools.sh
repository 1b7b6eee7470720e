#!/usr/bin/env bash
# Per-tool latency without the result cache (MCP_CACHE_MB=0: every call runs the tool and serializes its
# answer), release build, loopback, for each request of bench/tools.jsonl: one client in a closed loop
# (wrk -t1 -c1 -d5s: the latency of a call) and four concurrent clients (wrk -t1 -c4 -d5s, which on two
# cores shared with wrk saturates the machine). Prints p50 and p99 of both, requests/s at c4, bytes.
# Usage: bash bench/tools.sh   (from the repository root)
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
MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_MAX_CALLS_IN_FLIGHT=64 MCP_MAX_CALLS_PER_CLIENT=64 MCP_CACHE_MB=0 \
  target/release/server --addr 127.0.0.1:18083 --corpus-dir "$work/corpus" > "$work/server.log" &
server_pid=$!
wait_for 'http://127.0.0.1:18083/api/mcp?health=1'
printf '%-56s %8s %8s %8s %8s %8s %9s\n' "tools/call (uncached)" "c1 p50" "c1 p99" "c4 p50" "c4 p99" "c4 req/s" "bytes"
while IFS= read -r params; do
  body="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":$params}"
  bytes=$(curl -s http://127.0.0.1:18083/api/mcp -H 'content-type: application/json' -d "$body" | tee "$work/answer.json" | wc -c)
  if grep -q '"isError":true' "$work/answer.json"; then echo "error answer for $params" >&2; exit 1; fi
  for clients in 1 4; do
    BODY="$body" wrk -t1 -c$clients -d5s --latency -s bench/tool.lua http://127.0.0.1:18083/api/mcp > "$work/wrk$clients.txt"
  done
  p50_1=$(awk '$1 == "50%" {print $2}' "$work/wrk1.txt")
  p99_1=$(awk '$1 == "99%" {print $2}' "$work/wrk1.txt")
  p50_4=$(awk '$1 == "50%" {print $2}' "$work/wrk4.txt")
  p99_4=$(awk '$1 == "99%" {print $2}' "$work/wrk4.txt")
  rate=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/wrk4.txt")
  label=$(printf '%s' "$params" | sed -E 's/"arguments"://; s/"name"://; s/[{}"]//g' | cut -c1-56)
  printf '%-56s %8s %8s %8s %8s %8s %9s\n' "$label" "$p50_1" "$p99_1" "$p50_4" "$p99_4" "$rate" "$bytes"
done < bench/tools.jsonl
