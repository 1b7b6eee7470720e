#!/usr/bin/env bash
# Bake benchmark: release build, full default corpus, wall time and peak RSS from /usr/bin/time -v.
# Usage: bash bench/bake.sh   (from the repository root; builds target/release/pipeline first)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p pipeline
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT
for run in 1 2 3; do
  /usr/bin/time -v target/release/pipeline bake --quiet --out-dir "$out_dir" >"$out_dir/summary.txt" 2>"$out_dir/time.txt"
  wall=$(grep 'Elapsed (wall clock)' "$out_dir/time.txt" | awk '{print $NF}')
  rss=$(grep 'Maximum resident set size' "$out_dir/time.txt" | awk '{print $NF}')
  echo "bake run $run: wall ${wall}, peak RSS $((rss / 1024)) MiB"
done
tail -n 1 "$out_dir/summary.txt"
echo "exports by format:"
find -L "$out_dir/current/exports" -type f -printf '%s %f\n' | awk '
  { f = $2; if (f ~ /\.(wide|sdmx|sdmx1|datapackage)\.(csv|xml|json)$/ || f ~ /\.csv\.gz$/) { sub(/^[^.]*\./, "", f) } else { sub(/^.*\./, "", f) }
    bytes[f] += $1; files[f]++ }
  END { for (f in bytes) printf "  %-9s %12d B in %4d files\n", f, bytes[f], files[f] }' | sort
du -b "$out_dir"/current/* | sort -n | awk '{printf "  %10d  %s\n", $1, $2}' | sed "s#$out_dir/current/##"
