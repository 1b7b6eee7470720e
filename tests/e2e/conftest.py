"""Fixtures shared by the end-to-end tests: the real server binary on a free loopback port."""

import os
import re
import subprocess

import pytest


@pytest.fixture(scope="module")
def base_url():
    """Starts SERVER_BIN over CORPUS_OUT_DIR on a free loopback port (MCP enabled) and yields its base URL
    (http://127.0.0.1:PORT); stops it after the module."""
    process = subprocess.Popen(
        [os.environ["SERVER_BIN"], "--addr", "127.0.0.1:0", "--corpus-dir", os.environ["CORPUS_OUT_DIR"]],
        env={**os.environ, "MCP_ENABLED": "true"},
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    match = re.search(r"(http://[^/\s]+)/api/mcp", line)
    assert match, f"the server prints its address, got {line!r}"
    yield match.group(1)
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def http_url(base_url):
    """The MCP endpoint of the server of `base_url`."""
    return f"{base_url}/api/mcp"
