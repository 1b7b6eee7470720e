#!/usr/bin/env bash
# Scale (issue 12): SYNTHETIC corpora made from the real one, to show that bake time grows at most
# linearly with the data and that tool latency stays flat. Never published or served by default: they
# live in a temporary directory and are deleted at exit.
#
# A corpus of factor N holds the real sources plus N-1 synthetic copies of every WDI indicator (codes
# `SYN<k>.<code>`, names marked "[synthetic k]", the same values: links to the real files), mapped by
# a copy of the catalog. For each factor: release bake time and peak RSS and the observations; then,
# per request of bench/tools.jsonl, the p99 latency of one client in a closed loop after a 1 s warm-up
# (result cache off, wrk -t1 -c1 -d3s), one column per factor.
# Usage: bash bench/scale.sh [factors...]   (default: 1 5 20; from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
factors=("$@"); [ ${#factors[@]} -gt 0 ] || factors=(1 5 20)
sources=$(cd ../shared/data/sources && pwd)
cargo build --release --quiet -p pipeline -p server
work=$(mktemp -d)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# The synthetic sources and catalog of factor $1 in $work/f$1.
synthesize() {
  local factor=$1 dir=$work/f$1
  mkdir -p "$dir/sources/wdi/indicators"
  for publisher in "$sources"/*; do
    [ "$(basename "$publisher")" = wdi ] || ln -s "$publisher" "$dir/sources/$(basename "$publisher")"
  done
  for file in "$sources"/wdi/*; do
    [ "$(basename "$file")" = indicators ] || ln -s "$file" "$dir/sources/wdi/$(basename "$file")"
  done
  for indicator in "$sources"/wdi/indicators/*; do
    ln -s "$indicator" "$dir/sources/wdi/indicators/$(basename "$indicator")"
    for copy in $(seq 1 $((factor - 1))); do
      ln -s "$indicator" "$dir/sources/wdi/indicators/syn$copy.$(basename "$indicator")"
    done
  done
  cp -r data "$dir/catalog"
  rm -rf "$dir/catalog/baked"
  # One synthetic row per copy of every WDI mapping row: the code prefixed, the names marked, never a
  # headline, no synonyms (so search still finds the real indicator first).
  python3 - "$dir/catalog/metrics/wdi.csv" "$factor" <<'PY'
import csv, sys
path, factor = sys.argv[1], int(sys.argv[2])
with open(path, newline="", encoding="utf-8") as handle:
    reader = csv.DictReader(handle)
    fields, rows = reader.fieldnames, list(reader)
with open(path, "a", newline="", encoding="utf-8") as handle:
    writer = csv.DictWriter(handle, fieldnames=fields)
    for copy in range(1, factor):
        for row in rows:
            synthetic = dict(row)
            synthetic["source_code"] = f"SYN{copy}.{row['source_code']}"
            for name in ("name_en", "name_es", "name_pt"):
                if synthetic.get(name):
                    synthetic[name] = f"{row[name]} [synthetic {copy}]"
            synthetic["headline"] = "false"
            synthetic["synonyms"] = ""
            writer.writerow(synthetic)
# Per-metric aggregation overrides name metric ids: the synthetic copies get the same.
import re
wdi_ids = {row["source_code"].lower().replace(".", "_") for row in rows}
aggregation = path.replace("metrics/wdi.csv", "aggregation.toml")
text = open(aggregation, encoding="utf-8").read()
def copies(block):
    def widen(match):
        metric = match.group(1)
        if metric not in wdi_ids:
            return match.group(0)
        return ", ".join([f'"{metric}"'] + [f'"syn{copy}_{metric}"' for copy in range(1, factor)])
    return re.sub(r'"([a-z0-9_]+)"', widen, block.group(0))
text = re.sub(r"metrics = \[[^\]]*\]", copies, text)
open(aggregation, "w", encoding="utf-8").write(text)
PY
}

printf '%-8s %12s %10s %12s\n' factor observations "bake s" "bake MiB"
for factor in "${factors[@]}"; do
  synthesize "$factor"
  dir=$work/f$factor
  /usr/bin/time -f "%e %M" -o "$dir/time.txt" target/release/pipeline bake --quiet \
    --sources-dir "$dir/sources" --catalog-dir "$dir/catalog" --out-dir "$dir/baked" > /dev/null
  read -r seconds kib < "$dir/time.txt"
  # The bake's files reach the disk before latency is measured (a 20x bake writes gigabytes).
  sync
  MCP_ENABLED=true MCP_RATE_LIMIT=1000000000 MCP_MAX_CALLS_IN_FLIGHT=64 MCP_MAX_CALLS_PER_CLIENT=64 MCP_CACHE_MB=0 \
    target/release/server --addr 127.0.0.1:18095 --corpus-dir "$dir/baked" > /dev/null 2>&1 &
  server_pid=$!
  wait_for 'http://127.0.0.1:18095/api/mcp?health=1'
  observations=$(curl -s 'http://127.0.0.1:18095/api/mcp?health=1' | python3 -c 'import json, sys; print(json.load(sys.stdin)["observations"])')
  while IFS= read -r params; do
    body="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":$params}"
    # Warm for 1 s: the first call of a tool reads the artifacts it needs (once per process) and the
    # series it touches come into the page cache.
    BODY="$body" wrk -t1 -c1 -d1s -s bench/tool.lua http://127.0.0.1:18095/api/mcp > /dev/null 2>&1
    BODY="$body" wrk -t1 -c1 -d3s --latency -s bench/tool.lua http://127.0.0.1:18095/api/mcp 2>&1 | awk '
        function ms(text) { if (text ~ /us$/) return text / 1000; if (text ~ /ms$/) return text + 0; if (text ~ /s$/) return text * 1000; return text }
        $1 == "99%" { printf "%.2f\n", ms($2) }'
  done < bench/tools.jsonl > "$work/p99-$factor.txt"
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
  printf '%-8s %12s %10s %12.0f\n' "${factor}x" "$observations" "$seconds" "$((kib / 1024))"
  rm -rf "$dir"
done
echo
printf '%-60s' "p99 ms, one client (tools/call, uncached)"
for factor in "${factors[@]}"; do printf ' %8s' "${factor}x"; done
echo
line=0
while IFS= read -r params; do
  line=$((line + 1))
  printf '%-60s' "$(printf '%s' "$params" | sed -E 's/"arguments"://; s/"name"://; s/[{}"]//g' | cut -c1-60)"
  for factor in "${factors[@]}"; do printf ' %8s' "$(sed -n "${line}p" "$work/p99-$factor.txt")"; done
  echo
done < bench/tools.jsonl
