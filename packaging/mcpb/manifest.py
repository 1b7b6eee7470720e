"""Writes the MCP Bundle manifest (manifest_version 0.3, the schema of @anthropic-ai/mcpb) for a staged
bundle: the server binary at server/lac-corpus-server, the published corpus under corpus/.

The tools and the instructions are read from that very binary over stdio (initialize, tools/list), so the
manifest lists exactly what the bundled server serves; the version is the binary's (serverInfo.version),
the platform the one it was built for.

    python3 manifest.py STAGE_DIR > STAGE_DIR/manifest.json
"""

import json
import pathlib
import subprocess
import sys

stage = pathlib.Path(sys.argv[1])
binary = stage / "server" / "lac-corpus-server"
requests = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcpb-manifest", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]
done = subprocess.run(
    [str(binary), "--stdio", "--corpus-dir", str(stage / "corpus")],
    input="".join(json.dumps(request) + "\n" for request in requests),
    capture_output=True, text=True, timeout=120, check=True,
)
answers = {message["id"]: message for message in map(json.loads, done.stdout.splitlines()) if "id" in message}
server_info = answers[1]["result"]["serverInfo"]
tools = answers[2]["result"]["tools"]
platform = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)

manifest = {
    "manifest_version": "0.3",
    "name": server_info["name"],
    "display_name": server_info.get("title", server_info["name"]),
    "version": server_info["version"],
    "description": "Governed public data on Latin America and the Caribbean, every number cited to its publisher.",
    "long_description": answers[1]["result"]["instructions"],
    "author": {"name": "LAC governed-data corpus"},
    "server": {
        "type": "binary",
        "entry_point": "server/lac-corpus-server",
        "mcp_config": {
            "command": "${__dirname}/server/lac-corpus-server",
            "args": ["--stdio", "--corpus-dir", "${__dirname}/corpus"],
            "env": {},
        },
    },
    "tools": [{"name": tool["name"], "description": tool["description"]} for tool in tools],
    "tools_generated": False,
    # The prompts (country_brief, compare_countries) come from the server's prompts/list.
    "prompts_generated": True,
    "keywords": ["latin-america", "caribbean", "statistics", "open-data", "citations", "world-bank"],
    "license": "MIT OR Apache-2.0",
    "compatibility": {"platforms": [platform]},
}
json.dump(manifest, sys.stdout, ensure_ascii=False, indent=2)
sys.stdout.write("\n")
