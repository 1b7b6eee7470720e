#!/usr/bin/env bash
# Server benchmarks (release build, loopback): cold start to the first answered tools/call, RSS after
# start, and get_series (MEX, BRA, ARG, all years) latency and throughput beside a ceiling handler that
# returns the same response bytes from memory, under the same load tool (wrk, from Debian's packages).
# Usage: bash bench/server.sh   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install -y hyperfine" >&2; exit 1; }
source bench/setup.sh
request=$(sed -n "s/^wrk.body = '\(.*\)'$/\1/p" bench/get_series.lua)
printf '%s\n' "$request" > "$work/request.jsonl"

echo "== cold start: process start to the first answered tools/call (get_series over stdio, then exit)"
hyperfine --warmup 3 --runs 30 --style basic \
  "target/release/server --stdio --corpus-dir $work/corpus < $work/request.jsonl > /dev/null" 2>&1 | grep -E "Time|Range"

echo "== RSS after start (HTTP server, idle) and after the load below"
MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_MAX_CALLS_IN_FLIGHT=64 MCP_MAX_CALLS_PER_CLIENT=64 target/release/server --addr 127.0.0.1:18080 --corpus-dir "$work/corpus" > "$work/server.log" &
server_pid=$!; pids+=($server_pid)
# The same server without its result cache: every call runs the tool and serializes the answer.
MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_MAX_CALLS_IN_FLIGHT=64 MCP_MAX_CALLS_PER_CLIENT=64 MCP_CACHE_MB=0 target/release/server --addr 127.0.0.1:18082 --corpus-dir "$work/corpus" > "$work/uncached.log" &
uncached_pid=$!; pids+=($uncached_pid)
wait_for 'http://127.0.0.1:18080/api/mcp?health=1'
echo "server RSS after start: $(awk '/VmRSS/ {print $2 / 1024 " MiB"}' /proc/$server_pid/status)"
curl -s http://127.0.0.1:18080/api/mcp -H 'content-type: application/json' -d "$request" > "$work/response.json"
echo "get_series response: $(wc -c < "$work/response.json") bytes"
target/release/ceiling 127.0.0.1:18081 "$work/response.json" &
pids+=($!)
wait_for http://127.0.0.1:18081/api/mcp -X POST

wait_for 'http://127.0.0.1:18082/api/mcp?health=1'
for target in "server 18080" "server-uncached 18082" "ceiling 18081"; do
  set -- $target
  echo "== $1: wrk -t2 -c16 -d15s (get_series MEX, BRA, ARG, all years)"
  wrk -t2 -c16 -d15s --latency -s bench/get_series.lua "http://127.0.0.1:$2/api/mcp" | grep -E "Requests/sec|Transfer/sec|Non-2xx|^ +(50|75|90|99)%"
done
echo "server RSS after load: $(awk '/VmRSS/ {print $2 / 1024 " MiB"}' /proc/$server_pid/status)"
echo "server-uncached RSS after load: $(awk '/VmRSS/ {print $2 / 1024 " MiB"}' /proc/$uncached_pid/status)"
