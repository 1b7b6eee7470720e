#!/usr/bin/env bash
# get_series (life expectancy, MEX BRA ARG, all years) side by side in one run, on loopback, under the
# same load tool (wrk, 2 threads, 16 connections): the peer (the same tool on the official Python MCP SDK,
# ../shared/peers/python-sdk, run from there), this server without its result cache (every call runs the
# tool and serializes the answer), this server cached, and the ceiling (an axum handler returning our
# answer's bytes from memory), the last two in turns of 5 s (COMPARE_ROUNDS rounds, odd, 5 by default) so
# that their ratio is not the machine's drift between two runs. Then the latency of ours at half of its
# saturation rate (wrk paced by bench/paced.lua: each connection waits 1 ms between calls), and the
# server's RSS after the load. Prints one table. Usage: bash bench/compare.sh   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
rounds=${COMPARE_ROUNDS:-5}
[[ $rounds =~ ^[0-9]+$ ]] && (( rounds % 2 == 1 )) \
  || { echo "COMPARE_ROUNDS must be an odd number of rounds (1, 3, 5, ...), not \`$rounds\`" >&2; exit 1; }
peer_dir=../shared/peers/python-sdk
[ -f "$peer_dir/server.py" ] || { echo "the peer is not at $peer_dir" >&2; exit 1; }
if [ ! -x target/peer-venv/bin/python ] || ! cmp -s "$peer_dir/requirements.txt" target/peer-venv/requirements.txt; then
  python3 -m venv target/peer-venv
  target/peer-venv/bin/pip install --quiet --disable-pip-version-check -r "$peer_dir/requirements.txt"
  cp "$peer_dir/requirements.txt" target/peer-venv/requirements.txt
fi
source bench/setup.sh
request=$(sed -n "s/^wrk.body = '\(.*\)'$/\1/p" bench/get_series.lua)

(cd "$peer_dir" && exec "$OLDPWD/target/peer-venv/bin/python" server.py --port 18781 > "$work/peer.log" 2>&1) &
pids+=($!)
MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_MAX_CALLS_IN_FLIGHT=64 MCP_MAX_CALLS_PER_CLIENT=64 target/release/server --addr 127.0.0.1:18080 --corpus-dir "$work/corpus" > "$work/cached.log" &
pids+=($!); cached_pid=$!
MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_MAX_CALLS_IN_FLIGHT=64 MCP_MAX_CALLS_PER_CLIENT=64 MCP_CACHE_MB=0 target/release/server --addr 127.0.0.1:18082 --corpus-dir "$work/corpus" > "$work/uncached.log" &
pids+=($!); uncached_pid=$!
wait_for 'http://127.0.0.1:18080/api/mcp?health=1'
wait_for 'http://127.0.0.1:18082/api/mcp?health=1'
wait_for 'http://127.0.0.1:18781/health'
post() { curl -s "http://127.0.0.1:$1/api/mcp" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d "$request"; }
post 18080 > "$work/ours.json"
post 18781 > "$work/peer.json"
grep -q '"isError":false' "$work/ours.json" || { echo "our get_series failed: $(head -c 300 "$work/ours.json")" >&2; exit 1; }
grep -q '75.264' "$work/peer.json" || { echo "the peer's get_series failed: $(head -c 300 "$work/peer.json")" >&2; exit 1; }
target/release/ceiling 127.0.0.1:18081 "$work/ours.json" &
pids+=($!)
wait_for http://127.0.0.1:18081/api/mcp -X POST

# wrk's figures as "req/s p50 p99" (latencies in ms).
measure() {
  wrk "$@" --latency -s bench/get_series.lua 2>/dev/null | awk '
    function ms(text) { if (text ~ /us$/) return text / 1000; if (text ~ /ms$/) return text + 0; if (text ~ /s$/) return text * 1000; return text }
    /Requests\/sec/ { rate = $2 } $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) } /Non-2xx/ { bad = $NF }
    END { if (bad > 0) printf "wrk saw %d answers that were not 200: the figures are not of get_series\n", bad > "/dev/stderr"
          printf "%.0f %.3f %.3f\n", rate, p50, p99 }'
}
declare -A rate p50 p99 bytes
bytes[peer]=$(wc -c < "$work/peer.json"); bytes[ours]=$(wc -c < "$work/ours.json")
for target in "peer 18781" "uncached 18082" "cached 18080" "ceiling 18081"; do
  set -- $target
  measure -t2 -c16 -d3s "http://127.0.0.1:$2/api/mcp" > /dev/null # warm-up
done
for target in "peer 18781" "uncached 18082"; do
  set -- $target
  read -r rate[$1] p50[$1] p99[$1] < <(measure -t2 -c16 -d10s "http://127.0.0.1:$2/api/mcp")
done
# Cached and ceiling take turns, 5 s each for $rounds rounds (an odd number), the one that goes first
# alternating, so that the machine's drift (a neighbour, a slower minute) falls on both alike: their ratio
# is the median of the rounds' ratios, and each one's row is its median round.
round_ratios=()
declare -a cached_rounds ceiling_rounds
# One 5 s run of a server as "req/s p50 p99", or a message and the end of the script when it answered nothing.
turn() {
  local figures
  figures=$(measure -t2 -c16 -d5s "http://127.0.0.1:$2/api/mcp" || true)
  awk -v f="$figures" 'BEGIN { split(f, x, " "); exit !(x[1] > 0) }' \
    || { echo "the $1 server answered nothing in round $round (is it still running?)" >&2; exit 1; }
  echo "$figures"
}
for round in $(seq "$rounds"); do
  if (( round % 2 == 1 )); then
    cached_rounds+=("$(turn cached 18080)"); ceiling_rounds+=("$(turn ceiling 18081)")
  else
    ceiling_rounds+=("$(turn ceiling 18081)"); cached_rounds+=("$(turn cached 18080)")
  fi
  round_ratios+=("$(awk -v a="${cached_rounds[-1]%% *}" -v b="${ceiling_rounds[-1]%% *}" 'BEGIN { print a / b }')")
done
read -r rate[cached] p50[cached] p99[cached] < <(median_of "${cached_rounds[@]}")
read -r rate[ceiling] p50[ceiling] p99[ceiling] < <(median_of "${ceiling_rounds[@]}")
cached_ratio=$(median_of "${round_ratios[@]}")
# Half of our saturation: connections that each wait 1 ms between calls, as many as give half the rate.
# Each connection offers about 1000 / (1 + p50 ms) calls a second.
paced() {
  local connections
  connections=$(awk -v rate="$2" -v p50="$3" 'BEGIN { c = int(rate / 2 * (1 + p50) / 1000 + 0.5); print (c < 1 ? 1 : c) }')
  BENCH_DELAY_MS=1 wrk -t2 -c"$connections" -d10s --latency -s bench/paced.lua "http://127.0.0.1:$1/api/mcp" 2>/dev/null | awk '
    function ms(text) { if (text ~ /us$/) return text / 1000; if (text ~ /ms$/) return text + 0; if (text ~ /s$/) return text * 1000; return text }
    /Requests\/sec/ { rate = $2 } $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) } /Non-2xx/ { bad = $NF }
    END { if (bad > 0) printf "wrk saw %d answers that were not 200: the figures are not of get_series\n", bad > "/dev/stderr"
          printf "%.0f %.3f %.3f\n", rate, p50, p99 }'
}
read -r paced_uncached_rate paced_uncached_p50 paced_uncached_p99 < <(paced 18082 "${rate[uncached]}" "${p50[uncached]}")
read -r paced_cached_rate paced_cached_p50 paced_cached_p99 < <(paced 18080 "${rate[cached]}" "${p50[cached]}")
rss() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }

printf '\nget_series sp_dyn_le00_in MEX BRA ARG, all years; wrk -t2 -c16 on loopback (2 cores shared with wrk): peer and\n'
printf 'uncached one run of 10 s each; cached and ceiling the median of %d runs of 5 s taken in turn\n' "$rounds"
printf '%-26s %10s %9s %9s %9s %12s\n' "server" "req/s" "p50 ms" "p99 ms" "bytes" "vs peer"
for name in peer uncached cached ceiling; do
  size=${bytes[ours]}; [ "$name" = peer ] && size=${bytes[peer]}
  label=$name; [ "$name" = peer ] && label="peer (Python mcp SDK)"; [ "$name" != peer ] && [ "$name" != ceiling ] && label="ours, $name"
  printf '%-26s %10s %9s %9s %9s %11.1fx\n' "$label" "${rate[$name]}" "${p50[$name]}" "${p99[$name]}" "$size" \
    "$(awk -v a="${rate[$name]}" -v b="${rate[peer]}" 'BEGIN { print a / b }')"
done
printf '\ncached / ceiling: %.2f   (target >= 0.85, issue 30; median of %d rounds taken in turn: %s)\n' "$cached_ratio" "$rounds" \
  "$(printf '%.2f ' "${round_ratios[@]}")"
printf 'uncached / peer:  %.1fx  (target >= 30x, issue 30)\n' "$(awk -v a="${rate[uncached]}" -v b="${rate[peer]}" 'BEGIN { print a / b }')"
printf 'at half of each saturation rate (paced: connections that wait 1 ms between calls):\n'
printf '  ours, uncached: %s req/s, p50 %s ms, p99 %s ms   (target p99 < 2 ms)\n' "$paced_uncached_rate" "$paced_uncached_p50" "$paced_uncached_p99"
printf '  ours, cached:   %s req/s, p50 %s ms, p99 %s ms   (target p99 < 2 ms)\n' "$paced_cached_rate" "$paced_cached_p50" "$paced_cached_p99"
printf 'server RSS after the load: cached %s MiB, uncached %s MiB   (target <= 64 MiB)\n' "$(rss "$cached_pid")" "$(rss "$uncached_pid")"
