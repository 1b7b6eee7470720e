"""The MCP Bundle (`just bundle`): packed by packaging/mcpb/pack.sh with the official @anthropic-ai/mcpb CLI
(which validates its manifest), unpacked by the same CLI as Claude Desktop installs it, and the unpacked
server started exactly as the manifest's mcp_config says: it answers over stdio from the bundled corpus,
every tool the manifest lists, with the real values and citations."""

import hashlib
import json
import os
import pathlib
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
SERVER_BIN = os.environ["SERVER_BIN"]
CORPUS_OUT_DIR = os.environ["CORPUS_OUT_DIR"]


def test_the_bundle_installs_and_answers_from_its_own_corpus(tmp_path):
    bundle = tmp_path / "lac-corpus.mcpb"
    # A release URL of the registry's form (GitHub release assets) for the server.json it writes beside.
    release_url = "https://github.com/lac-corpus/lac-corpus/releases/download/v0.1.0/lac-corpus.mcpb"
    packed = subprocess.run(
        ["bash", str(REPO / "packaging/mcpb/pack.sh"), SERVER_BIN, CORPUS_OUT_DIR, str(bundle)],
        capture_output=True, text=True, timeout=600, env={**os.environ, "MCPB_RELEASE_URL": release_url},
    )
    assert packed.returncode == 0, packed.stdout[-2000:] + packed.stderr[-2000:]
    assert "Manifest schema validation passes!" in packed.stdout
    # The MCP Registry entry: one mcpb package at that URL, over stdio, with the bundle's SHA-256.
    entry = json.loads((tmp_path / "server.json").read_text())
    assert entry["$schema"] == "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    assert entry["name"] == "io.github.lac-corpus/lac-corpus" and len(entry["description"]) <= 100
    package = entry["packages"][0]
    assert package["registryType"] == "mcpb" and package["identifier"] == release_url
    assert package["fileSha256"] == hashlib.sha256(bundle.read_bytes()).hexdigest()
    assert package["transport"] == {"type": "stdio"}
    unpacked = tmp_path / "installed"
    cli = REPO / "target/mcpb-cli/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js"
    done = subprocess.run(["node", str(cli), "unpack", str(bundle), str(unpacked)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((unpacked / "manifest.json").read_text())
    assert manifest["manifest_version"] == "0.3" and manifest["server"]["type"] == "binary"
    # The bundled corpus' pointer is a file (a bundle keeps no links); the server reads it.
    assert (unpacked / "corpus" / "current").is_file()
    config = manifest["server"]["mcp_config"]
    command = config["command"].replace("${__dirname}", str(unpacked))
    args = [arg.replace("${__dirname}", str(unpacked)) for arg in config["args"]]
    os.chmod(command, 0o755)  # what Claude Desktop does for a binary entry point
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "claude-desktop-like", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["MEX"], "from_year": 2024, "to_year": 2024}}},
        {"jsonrpc": "2.0", "id": 4, "method": "prompts/list"},
    ]
    served = subprocess.run(
        [command, *args], input="".join(json.dumps(request) + "\n" for request in requests),
        capture_output=True, text=True, timeout=120, env={"PATH": os.environ["PATH"]},
    )
    answers = {message["id"]: message for message in map(json.loads, served.stdout.splitlines()) if "id" in message}
    assert answers[1]["result"]["serverInfo"]["version"] == manifest["version"]
    listed = [tool["name"] for tool in answers[2]["result"]["tools"]]
    assert listed == [tool["name"] for tool in manifest["tools"]] and len(listed) == 18
    series = answers[3]["result"]["structuredContent"]["result"]["series"][0]
    assert series["series_id"] == "wb-sp-dyn-le00-in-mex" and series["points"] == [[2024, 75.264]]
    assert [prompt["name"] for prompt in answers[4]["result"]["prompts"]] == ["country_brief", "compare_countries", "check_claims"]
