#!/usr/bin/env bash
# Downloads benchmark (release build, loopback): one indicator's tidy CSV (GET /api/v1/indicators/
# sp_dyn_le00_in.csv, memory-mapped, sent without a copy) beside the ceiling handler that returns the same
# bytes from memory, under the same load (wrk -t2 -c16 -d10s); then a conditional GET (If-None-Match → 304);
# then the catalog's chart page of that indicator (/chart/sp_dyn_le00_in: get_series of 8 countries, its
# chart data embedded in the 0.9 MB view), fresh and revalidated.
# Usage: bash bench/downloads.sh   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
source bench/setup.sh
path=/api/v1/indicators/sp_dyn_le00_in.csv
target/release/server --addr 127.0.0.1:18090 --corpus-dir "$work/corpus" > "$work/server.log" &
pids+=($!)
wait_for "http://127.0.0.1:18090$path"
curl -sf "http://127.0.0.1:18090$path" -o "$work/file.csv"
etag=$(curl -sI "http://127.0.0.1:18090$path" | tr -d '\r' | sed -n 's/^etag: //p')
echo "file: $path, $(wc -c < "$work/file.csv") bytes, ETag $etag"
target/release/ceiling 127.0.0.1:18091 "$work/file.csv" &
pids+=($!)
wait_for "http://127.0.0.1:18091$path"
for target in "server 18090" "ceiling 18091"; do
  set -- $target
  echo "== $1: wrk -t2 -c16 -d10s GET $path"
  wrk -t2 -c16 -d10s --latency "http://127.0.0.1:$2$path" | grep -E "Requests/sec|Transfer/sec|^ +(50|99)%"
done
echo "== server: conditional GET (If-None-Match, 304)"
wrk -t2 -c16 -d10s --latency -H "If-None-Match: $etag" "http://127.0.0.1:18090$path" | grep -E "Requests/sec|^ +(50|99)%"
chart=/chart/sp_dyn_le00_in?lang=en
chart_etag=$(curl -sI "http://127.0.0.1:18090$chart" | tr -d '\r' | sed -n 's/^etag: //p')
echo "== server: wrk -t2 -c16 -d10s GET $chart ($(curl -s "http://127.0.0.1:18090$chart" | wc -c) bytes)"
wrk -t2 -c16 -d10s --latency "http://127.0.0.1:18090$chart" | grep -E "Requests/sec|Transfer/sec|^ +(50|99)%"
echo "== server: the chart page revalidated (If-None-Match, 304)"
wrk -t2 -c16 -d10s --latency -H "If-None-Match: $chart_etag" "http://127.0.0.1:18090$chart" | grep -E "Requests/sec|^ +(50|99)%"
