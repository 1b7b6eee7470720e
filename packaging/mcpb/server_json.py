"""Writes the MCP Registry entry (server.json, schema 2025-12-11) of a packed bundle: an `mcpb` package at
its release URL with the bundle's SHA-256, over stdio. The registry requires the URL to be a GitHub or
GitLab release asset; the name follows from it (`io.github.{owner}/{repository}`).

    python3 server_json.py BUNDLE.mcpb RELEASE_URL > server.json
"""

import hashlib
import json
import re
import sys
import zipfile

bundle, url = sys.argv[1], sys.argv[2]
match = re.match(r"^https://(github|gitlab)\.com/([^/]+)/([^/]+)/", url)
if not match:
    sys.exit(f"MCPB_RELEASE_URL {url!r}: the MCP Registry takes a GitHub or GitLab release asset URL "
             "(https://github.com/OWNER/REPO/releases/download/vX.Y.Z/lac-corpus.mcpb)")
host, owner, repository = match.groups()
with zipfile.ZipFile(bundle) as archive:
    manifest = json.loads(archive.read("manifest.json"))
if len(manifest["description"]) > 100:
    sys.exit("the registry caps a description at 100 characters; shorten the manifest's")
digest = hashlib.sha256()
with open(bundle, "rb") as handle:
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)
entry = {
    "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    "name": f"io.{host}.{owner}/{repository}",
    "title": manifest["display_name"],
    "description": manifest["description"],
    "version": manifest["version"],
    "packages": [{
        "registryType": "mcpb",
        "identifier": url,
        "version": manifest["version"],
        "fileSha256": digest.hexdigest(),
        "transport": {"type": "stdio"},
    }],
}
json.dump(entry, sys.stdout, indent=2)
sys.stdout.write("\n")
