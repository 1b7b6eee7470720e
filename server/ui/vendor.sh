#!/usr/bin/env bash
# Fetches the pinned npm packages the chart view inlines (vendor.lock) and checks or refreshes the
# vendored copies in server/ui/vendor/: each file byte for byte as published, with the package's LICENSE.
#
#   bash server/ui/vendor.sh          # check: the vendored files equal the published ones and the lock
#   bash server/ui/vendor.sh --update # re-fetch the versions named in PACKAGES and rewrite the lock
set -euo pipefail
cd "$(dirname "$0")"
PACKAGES=(
  "vega 6.4.0 build/vega.min.js"
  "vega-lite 6.4.3 build/vega-lite.min.js"
  "vega-embed 7.3.0 build/vega-embed.min.js"
  "vega-interpreter 2.3.2 build/vega-interpreter.js"
)
mode="${1:---check}"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
lock_lines=()
status=0
for entry in "${PACKAGES[@]}"; do
  read -r name version file <<<"$entry"
  tarball=$(cd "$scratch" && npm pack --silent "$name@$version")
  mkdir -p "$scratch/$name"
  tar -xzf "$scratch/$tarball" -C "$scratch/$name"
  published="$scratch/$name/package/$file"
  vendored="vendor/$(basename "$file")"
  if [ "$mode" = "--update" ]; then
    cp "$published" "$vendored"
    cp "$scratch/$name/package/LICENSE" "vendor/$name.LICENSE"
  elif ! cmp -s "$published" "$vendored" || ! cmp -s "$scratch/$name/package/LICENSE" "vendor/$name.LICENSE"; then
    echo "$vendored or vendor/$name.LICENSE differs from $name@$version on npm" >&2
    status=1
  fi
  lock_lines+=("$name	$version	$file	$(sha256sum "$published" | cut -d' ' -f1)")
done
if [ "$mode" = "--update" ]; then
  { grep '^#' vendor.lock; printf '%s\n' "${lock_lines[@]}"; } > vendor.lock.new
  mv vendor.lock.new vendor.lock
  echo "vendored: ${PACKAGES[*]}"
elif ! diff <(grep -v '^#' vendor.lock) <(printf '%s\n' "${lock_lines[@]}") >&2; then
  echo "vendor.lock does not match the published files" >&2
  status=1
fi
exit $status
