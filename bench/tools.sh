#!/usr/bin/env bash
# Per-tool latency without the result cache (MCP_CACHE_MB=0: every call runs the tool and serializes its
# answer), release build, loopback, moderate load: wrk -t1 -c4 -d5s per request of bench/tools.jsonl.
# Prints p50 and p99 latency, requests/s and the response size of each.
# Usage: bash bench/tools.sh   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
cargo build --release --quiet -p pipeline -p server
work=$(mktemp -d)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
target/release/pipeline bake --quiet --out-dir "$work/corpus" > /dev/null
MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_CACHE_MB=0 \
  target/release/server --addr 127.0.0.1:18083 --corpus-dir "$work/corpus" > "$work/server.log" &
server_pid=$!
until curl -sf 'http://127.0.0.1:18083/api/mcp?health=1' > /dev/null; do sleep 0.05; done
printf '%-62s %9s %9s %9s %9s\n' "tools/call (uncached)" "p50" "p99" "req/s" "bytes"
while IFS= read -r params; do
  body="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":$params}"
  bytes=$(curl -s http://127.0.0.1:18083/api/mcp -H 'content-type: application/json' -d "$body" | tee "$work/answer.json" | wc -c)
  if grep -q '"isError":true' "$work/answer.json"; then echo "error answer for $params" >&2; exit 1; fi
  BODY="$body" wrk -t1 -c4 -d5s --latency -s bench/tool.lua http://127.0.0.1:18083/api/mcp > "$work/wrk.txt"
  p50=$(awk '$1 == "50%" {print $2}' "$work/wrk.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")
  rate=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
  label=$(printf '%s' "$params" | sed -E 's/"arguments"://; s/[{}"]//g' | cut -c1-62)
  printf '%-62s %9s %9s %9s %9s\n' "$label" "$p50" "$p99" "$rate" "$bytes"
done < bench/tools.jsonl
