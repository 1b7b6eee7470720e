#!/usr/bin/env bash
# Proofs under faults (issue 12), release build, loopback; prints each figure.
#   reload: 10 corpus swaps (the `current` pointer moved, alternately by the watch and by SIGHUP) while
#           wrk drives the mix of bench/tools.jsonl; every response must be a 200.
#   kill:   the bake killed with SIGKILL at 20 random points; after each, `server check` passes on the
#           previous corpus, the server keeps answering, and no staging directory is left behind by the
#           next bake.
#   soak:   60 s of saturation with the same mix, on the server with its result cache and on one
#           without (every call runs its tool); 0 errors, and RSS sampled every 5 s stays flat.
#   flood:  (issue 30) one client floods a server without result cache and with a 1 s call deadline with
#           64 connections of country-filtered search_corpus calls for 15 s, while another client calls
#           get_series on one connection; prints the other client's p50/p90/p99 idle and under the flood, its
#           failures, the flood's 503s, and the server's threads and RSS at the end of the flood. Then the
#           machine's own share: the other client's p50/p90/p99 while the same 64 connections flood another
#           process (the `ceiling`, answering bytes from memory) on the same cores, the tail any server
#           would show here.
# Usage: bash bench/faults.sh [reload|kill|soak|flood]...   (from the repository root; all four by default)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(reload kill soak flood)
source bench/setup.sh
version=$(readlink "$work/corpus/current")
# A second published name for the same content, so that the pointer can move back and forth.
cp -r "$work/corpus/$version" "$work/corpus/copy"
MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_MAX_CALLS_IN_FLIGHT=64 MCP_MAX_CALLS_PER_CLIENT=64 MCP_RELOAD_POLL_SECS=1 RUST_LOG=warn \
  target/release/server --addr 127.0.0.1:18090 --corpus-dir "$work/corpus" > "$work/server.log" 2> "$work/server.err" &
server_pid=$!; pids+=($server_pid)
MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_MAX_CALLS_IN_FLIGHT=64 MCP_MAX_CALLS_PER_CLIENT=64 MCP_CACHE_MB=0 \
  target/release/server --addr 127.0.0.1:18091 --corpus-dir "$work/corpus" > /dev/null 2>&1 &
uncached_pid=$!; pids+=($uncached_pid)
until curl -sf 'http://127.0.0.1:18090/api/mcp?health=1' > /dev/null; do sleep 0.1; done
until curl -sf 'http://127.0.0.1:18091/api/mcp?health=1' > /dev/null; do sleep 0.1; done
publish() { ln -sfn "$1" "$work/corpus/.current-next" && mv -T "$work/corpus/.current-next" "$work/corpus/current"; }
rss() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
# wrk's totals as "requests non2xx socket_errors", for a duration (and a port, 18090 by default).
load() {
  wrk -t2 -c16 -d"$1" -s bench/mix.lua "http://127.0.0.1:${2:-18090}/api/mcp" 2>&1 | awk '
    /requests in/ { requests = $1 } /Non-2xx/ { bad = $NF }
    /Socket errors/ { gsub(",", ""); errors = $4 + $6 + $8 + $10 }
    END { printf "%d %d %d\n", requests, bad + 0, errors + 0 }'
}

for part in "${parts[@]}"; do
  case $part in
  reload)
    load 25s > "$work/reload.txt" &
    loader=$!
    for swap in $(seq 1 10); do
      sleep 2
      if [ $((swap % 2)) -eq 1 ]; then publish copy; else publish "$version"; kill -HUP "$server_pid"; fi
    done
    wait "$loader"
    read -r requests bad errors < "$work/reload.txt"
    reloads=$(grep -c '"corpus reloaded"' "$work/server.err" || true)
    echo "reload: $reloads corpus swaps under load; $requests requests, $bad non-200, $errors socket errors"
    [ "$reloads" -ge 10 ] && [ "$bad" -eq 0 ] && [ "$errors" -eq 0 ]
    ;;
  kill)
    survived=0
    for attempt in $(seq 1 20); do
      before=$(readlink "$work/corpus/current")
      target/release/pipeline bake --quiet --out-dir "$work/corpus" > /dev/null 2>&1 &
      bake=$!
      sleep "$(awk -v seed="$RANDOM" 'BEGIN { srand(seed); printf "%.2f", rand() * 3.5 }')"
      kill -9 "$bake" 2>/dev/null || true
      wait "$bake" 2>/dev/null || true
      after=$(readlink "$work/corpus/current")
      target/release/server check --corpus-dir "$work/corpus" > /dev/null
      curl -sf 'http://127.0.0.1:18090/api/mcp?health=1' > /dev/null
      [ "$before" = "$after" ] || [ -f "$work/corpus/$after/manifest.json" ]
      survived=$((survived + 1))
    done
    target/release/pipeline bake --quiet --out-dir "$work/corpus" > /dev/null
    stale=$(find "$work/corpus" -maxdepth 1 -name '.staging-*' | wc -l)
    echo "kill: bake SIGKILLed at 20 random points; server check passed $survived/20 times; $stale staging directories left after the next bake"
    [ "$stale" -eq 0 ]
    ;;
  soak)
    for run in "cached 18090 $server_pid" "uncached 18091 $uncached_pid"; do
      set -- $run
      samples=()
      load 60s "$2" > "$work/soak.txt" &
      loader=$!
      for _ in $(seq 1 12); do sleep 5; samples+=("$(rss "$3")"); done
      wait "$loader"
      read -r requests bad errors < "$work/soak.txt"
      echo "soak ($1): 60 s saturated, $requests requests, $bad non-200, $errors socket errors; RSS every 5 s (MiB): ${samples[*]}"
      # Flat: from the second sample (warm) to the last, at most 10 % + 2 MiB.
      first=${samples[1]}; last=${samples[-1]}
      awk -v first="$first" -v last="$last" 'BEGIN { exit !(last <= first * 1.10 + 2) }' || { echo "RSS grew from $first to $last MiB" >&2; exit 1; }
      [ "$bad" -eq 0 ] && [ "$errors" -eq 0 ]
    done
    ;;
  flood)
    MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_CACHE_MB=0 MCP_CALL_DEADLINE_SECS=1 MCP_TRUSTED_PROXIES=127.0.0.1 \
      target/release/server --addr 127.0.0.1:18092 --corpus-dir "$work/corpus" > /dev/null 2>&1 &
    flood_pid=$!; pids+=($flood_pid)
    until curl -sf 'http://127.0.0.1:18092/api/mcp?health=1' > /dev/null; do sleep 0.1; done
    victim_body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_series","arguments":{"indicator":"sp_dyn_le00_in","countries":["MEX","BRA","ARG"]}}}'
    flood_body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_corpus","arguments":{"query":"agua saneamiento energia salud educacion","country":"BRA","limit":50}}}'
    # The other client's latency, one connection: "p50 p90 p99 requests non2xx".
    victim() {
      BODY="$victim_body" wrk -t1 -c1 -d"$1" --latency -s bench/tool.lua -H 'X-Real-IP: 198.51.100.9' \
        http://127.0.0.1:18092/api/mcp 2>&1 | awk '
        /^ +50%/ { p50 = $2 } /^ +90%/ { p90 = $2 } /^ +99%/ { p99 = $2 } /requests in/ { requests = $1 }
        /Non-2xx/ { bad = $NF } END { printf "%s %s %s %d %d\n", p50, p90, p99, requests, bad + 0 }'
    }
    read -r idle50 idle90 idle99 idle_requests idle_bad <<< "$(victim 10s)"
    BODY="$flood_body" wrk -t2 -c64 -d15s -s bench/tool.lua -H 'X-Real-IP: 203.0.113.9' \
      http://127.0.0.1:18092/api/mcp > "$work/flood.txt" 2>&1 &
    flooder=$!
    sleep 2
    read -r load50 load90 load99 load_requests load_bad <<< "$(victim 10s)"
    threads=$(awk '/Threads/ {print $2}' "/proc/$flood_pid/status")
    flood_rss=$(rss "$flood_pid")
    wait "$flooder"
    flood_requests=$(awk '/requests in/ { print $1 }' "$work/flood.txt")
    flood_refused=$(awk '/Non-2xx/ { print $NF }' "$work/flood.txt")
    echo "flood: other client's get_series idle p50 $idle50 p90 $idle90 p99 $idle99 ($idle_requests calls, $idle_bad failed); under 64 connections of search_corpus from one client p50 $load50 p90 $load90 p99 $load99 ($load_requests calls, $load_bad failed)"
    echo "flood: the flooding client sent $flood_requests calls, ${flood_refused:-0} refused 503 at its share; server threads $threads, RSS $flood_rss MiB"
    # The same flood on another process of this machine: what the cores alone cost the other client.
    curl -s http://127.0.0.1:18092/api/mcp -H 'content-type: application/json' -d "$victim_body" > "$work/answer.json"
    target/release/ceiling 127.0.0.1:18093 "$work/answer.json" &
    pids+=($!)
    until curl -sf -X POST http://127.0.0.1:18093/api/mcp > /dev/null; do sleep 0.05; done
    BODY="$flood_body" wrk -t2 -c64 -d15s -s bench/tool.lua http://127.0.0.1:18093/api/mcp > /dev/null 2>&1 &
    flooder=$!
    sleep 2
    read -r other50 other90 other99 other_requests other_bad <<< "$(victim 10s)"
    wait "$flooder"
    echo "flood: the machine's share: other client's get_series while the same flood hits another process on these cores p50 $other50 p90 $other90 p99 $other99 ($other_requests calls, $other_bad failed)"
    [ "$load_bad" -eq 0 ]
    ;;
  *) echo "unknown part $part: reload, kill, soak or flood" >&2; exit 1 ;;
  esac
done
