#!/usr/bin/env bash
# Packs an MCP Bundle (.mcpb) that Claude Desktop installs in one click: the server binary, the published
# corpus (its `current` pointer written as a one-line file, since a bundle keeps no symbolic links) and a
# manifest written from the binary's own tools (manifest.py). The official CLI, @anthropic-ai/mcpb (pinned
# in package-lock.json, installed into target/mcpb-cli), validates the manifest, packs the bundle and
# prints what it holds.
#
#   bash packaging/mcpb/pack.sh SERVER_BIN CORPUS_OUT_DIR OUTPUT.mcpb
set -euo pipefail
cd "$(dirname "$0")/../.."
server_bin=$1 out_dir=$2 output=$3
cli_dir=target/mcpb-cli
if ! cmp -s packaging/mcpb/package-lock.json "$cli_dir/package-lock.json"; then
  mkdir -p "$cli_dir"
  cp packaging/mcpb/package.json packaging/mcpb/package-lock.json "$cli_dir/"
  npm ci --silent --no-audit --no-fund --prefix "$cli_dir"
fi
mcpb=("node" "$cli_dir/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js")
version=$(basename "$(readlink -f "$out_dir/current")")
[ -f "$out_dir/$version/manifest.json" ] || { echo "no published corpus under $out_dir (run just bake)" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/server" "$stage/corpus"
cp "$server_bin" "$stage/server/lac-corpus-server"
cp -r "$out_dir/$version" "$stage/corpus/$version"
printf '%s\n' "$version" > "$stage/corpus/current"
python3 packaging/mcpb/manifest.py "$stage" > "$stage/manifest.json"
"${mcpb[@]}" validate "$stage/manifest.json"
mkdir -p "$(dirname "$output")"
rm -f "$output"
"${mcpb[@]}" pack "$stage" "$output"
"${mcpb[@]}" info "$output"
# The MCP Registry entry, once the bundle has a release URL (MCPB_RELEASE_URL, a GitHub or GitLab release
# asset): server.json beside the bundle, with its SHA-256.
if [ -n "${MCPB_RELEASE_URL:-}" ]; then
  python3 packaging/mcpb/server_json.py "$output" "$MCPB_RELEASE_URL" > "$(dirname "$output")/server.json"
  echo "MCP Registry entry: $(dirname "$output")/server.json"
fi
