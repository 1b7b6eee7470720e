# Sourced by the benchmarks. wait_for URL [CURL_ARGS...]: polls URL with curl until it answers 2xx, for at
# most 60 s; past that it names the URL and exits 1, so a server that failed to start stops the benchmark
# instead of hanging it.
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
