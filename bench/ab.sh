#!/usr/bin/env bash
# Two server binaries and the ceiling, cached get_series (bench/get_series.lua: MEX BRA ARG, all years),
# measured in turn on loopback so that the machine's drift falls on all three alike: each round gives each
# one 5 s of wrk -t2 -c16 and prints its calls a second, its CPU per call (user and system, from
# /proc/<pid>/stat) and its context switches per call (from /proc/<pid>/task/*/status), then the ratio of
# each server to the ceiling. For a change that moves the cached path by a few per cent, which one
# compare.sh run cannot tell from noise. With UNCACHED=1 both servers run without their result cache
# (MCP_CACHE_MB=0: every call runs the tool and serializes its answer), for a change to that path.
# Usage: [UNCACHED=1] bash bench/ab.sh OLD_SERVER NEW_SERVER [ROUNDS]   (from the repository root; ROUNDS defaults to 4;
# build the old one from its commit into a file first, e.g. `git worktree` + `cargo build --release -p server`)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bash bench/ab.sh OLD_SERVER NEW_SERVER [ROUNDS]" >&2; exit 1; }
old=$(realpath "$1"); new=$(realpath "$2"); rounds=${3:-4}
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
for binary in "$old" "$new"; do [ -x "$binary" ] || { echo "not an executable: $binary" >&2; exit 1; }; done
source bench/setup.sh
cache_mb=(); [ "${UNCACHED:-}" = 1 ] && cache_mb=(MCP_CACHE_MB=0)
start() {
  env "${cache_mb[@]}" MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_MAX_CALLS_IN_FLIGHT=64 MCP_MAX_CALLS_PER_CLIENT=64 \
    "$1" --addr "127.0.0.1:$2" --corpus-dir "$work/corpus" > /dev/null 2>&1 &
  pids+=($!)
  wait_for "http://127.0.0.1:$2/api/mcp?health=1"
}
start "$old" 18184; old_pid=${pids[-1]}
start "$new" 18185; new_pid=${pids[-1]}
request=$(sed -n "s/^wrk.body = '\(.*\)'$/\1/p" bench/get_series.lua)
curl -s http://127.0.0.1:18185/api/mcp -H 'content-type: application/json' -d "$request" > "$work/answer.json"
target/release/ceiling 127.0.0.1:18186 "$work/answer.json" &
pids+=($!); ceiling_pid=$!
wait_for http://127.0.0.1:18186/api/mcp -X POST
ticks=$(getconf CLK_TCK)
# "req/s user_us sys_us switches" per call, for one server over 5 s.
measure() {
  local pid=$1 port=$2 cpu0 cpu1 cs0 cs1 out
  cpu0=$(awk '{print $14, $15}' "/proc/$pid/stat")
  cs0=$(cat /proc/"$pid"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}')
  out=$(wrk -t2 -c16 -d5s -s bench/get_series.lua "http://127.0.0.1:$port/api/mcp")
  cpu1=$(awk '{print $14, $15}' "/proc/$pid/stat")
  cs1=$(cat /proc/"$pid"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}')
  echo "$out" | awk -v c0="$cpu0" -v c1="$cpu1" -v s0="$cs0" -v s1="$cs1" -v hz="$ticks" '
    /requests in/ { calls = $1 } /Requests\/sec/ { rate = $2 }
    END { split(c0, a, " "); split(c1, b, " ")
          printf "%.0f %.1f %.1f %.3f\n", rate, (b[1] - a[1]) * 1e6 / hz / calls, (b[2] - a[2]) * 1e6 / hz / calls, (s1 - s0) / calls }'
}
printf '%-6s %-8s %10s %10s %10s %12s %10s\n' round server "req/s" "user µs" "sys µs" "switches" "/ceiling"
for round in $(seq "$rounds"); do
  read -r old_rate old_user old_sys old_cs < <(measure "$old_pid" 18184)
  read -r new_rate new_user new_sys new_cs < <(measure "$new_pid" 18185)
  read -r top_rate top_user top_sys top_cs < <(measure "$ceiling_pid" 18186)
  for row in "old $old_rate $old_user $old_sys $old_cs" "new $new_rate $new_user $new_sys $new_cs" "ceiling $top_rate $top_user $top_sys $top_cs"; do
    set -- $row
    awk -v round="$round" -v name="$1" -v rate="$2" -v user="$3" -v sys="$4" -v cs="$5" -v top="$top_rate" \
      'BEGIN { printf "%-6s %-8s %10.0f %10.1f %10.1f %12.3f %10.2f\n", round, name, rate, user, sys, cs, rate / top }'
  done
done
