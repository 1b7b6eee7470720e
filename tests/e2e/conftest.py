"""Fixtures shared by the end-to-end tests: the real server binary on a free loopback port."""

import contextlib
import os
import re
import subprocess

import pytest


@contextlib.contextmanager
def running_server(**env):
    """Runs SERVER_BIN over CORPUS_OUT_DIR on a free loopback port (MCP enabled, `env` besides) and yields
    its base URL (http://127.0.0.1:PORT); stops it after."""
    process = subprocess.Popen(
        [os.environ["SERVER_BIN"], "--addr", "127.0.0.1:0", "--corpus-dir", os.environ["CORPUS_OUT_DIR"]],
        env={**os.environ, "MCP_ENABLED": "true", **env},
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    match = re.search(r"(http://[^/\s]+)/api/mcp", line)
    assert match, f"the server prints its address, got {line!r}"
    try:
        yield match.group(1)
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def base_url():
    """The base URL of a server with the default limits, for the module."""
    with running_server() as url:
        yield url


@pytest.fixture(scope="module")
def unlimited_http_url():
    """The MCP endpoint of a server without a practical rate limit, for modules that call every tool many
    times."""
    with running_server(MCP_RATE_LIMIT="1000000") as url:
        yield f"{url}/api/mcp"


@pytest.fixture(scope="module")
def http_url(base_url):
    """The MCP endpoint of the server of `base_url`."""
    return f"{base_url}/api/mcp"
