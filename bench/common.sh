# Sourced by the benchmarks.

# wait_for URL [CURL_ARGS...]: polls URL with curl until it answers 2xx, for at most 60 s; past that it
# names the URL and exits 1, so a server that failed to start stops the benchmark instead of hanging it.
wait_for() {
  local url=$1
  shift
  for _ in $(seq 1 600); do
    curl -sf -o /dev/null "$@" "$url" && return 0
    sleep 0.1
  done
  echo "$url did not answer within 60 s" >&2
  exit 1
}

# median_of ROW...: the middle row (the upper one of an even count) when the rows are sorted by their
# first field as a number; a row is a number or a number followed by more fields ("req/s p50 p99").
median_of() { printf '%s\n' "$@" | sort -g -k1,1 | awk '{ row[NR] = $0 } END { print row[int((NR + 1) / 2)] }'; }
