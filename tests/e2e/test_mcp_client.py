"""End to end with the official Python MCP client (PyPI `mcp`), over Streamable HTTP and stdio.

Run by `just e2e` (part of `just test`): it bakes the default corpus into CORPUS_OUT_DIR and points
SERVER_BIN at the debug `server` binary. Every check reads real values of the baked corpus.
"""

import asyncio
import json
import os
import re
import subprocess

import pytest
from mcp import Client, StdioServerParameters

SERVER_BIN = os.environ["SERVER_BIN"]
CORPUS_OUT_DIR = os.environ["CORPUS_OUT_DIR"]


@pytest.fixture(scope="module")
def http_url():
    """Starts the server on a free loopback port and yields its MCP endpoint."""
    process = subprocess.Popen(
        [SERVER_BIN, "--addr", "127.0.0.1:0", "--corpus-dir", CORPUS_OUT_DIR],
        env={**os.environ, "MCP_ENABLED": "true"},
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    match = re.search(r"http://\S+/api/mcp", line)
    assert match, f"the server prints its address, got {line!r}"
    yield match.group(0)
    process.terminate()
    process.wait(timeout=10)


def stdio_parameters():
    return StdioServerParameters(command=SERVER_BIN, args=["--stdio", "--corpus-dir", CORPUS_OUT_DIR])


def payload(result):
    """The {"result", "citations"} object of a tool result's text block."""
    return json.loads(result.content[0].text)


async def exercise(client):
    """Lists the tools and calls each one, checking real values of the corpus."""
    listed = await client.list_tools()
    names = {tool.name for tool in listed.tools}
    assert {"resolve_metric", "get_series", "compare_countries", "resolve_citations"} <= names
    for tool in listed.tools:
        assert tool.input_schema["properties"]["lang"]["enum"] == ["es", "en", "pt"]
        assert tool.output_schema is not None

    resolved = await client.call_tool("resolve_metric", {"query": "homicidios"})
    assert not resolved.is_error
    first = resolved.structured_content["result"]["candidates"][0]
    assert (first["id"], first["pillar"], first["good_direction"]) == ("vc_ihr_psrc_p5", "seguridad", "down")

    series = await client.call_tool(
        "get_series", {"parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["México", "ARG"], "from_year": 2010}
    )
    assert not series.is_error
    body = payload(series)
    mexico = next(entry for entry in body["result"]["series"] if entry["country"] == "MEX")
    assert mexico["points"][0] == {"year": 2010, "value": 73.718, "citation_id": "wb-sp-dyn-le00-in-mex-2010"}
    assert mexico["latest"]["value"] == 75.264
    assert mexico["url"] == "https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX"
    cited = {citation["citation_id"] for citation in body["citations"]}
    assert all(point["citation_id"] in cited for entry in body["result"]["series"] for point in entry["points"])

    compared = await client.call_tool("compare_countries", {"parameter": "seguridad", "countries": ["BRA", "URY"], "lang": "en"})
    assert not compared.is_error
    homicides = next(entry for entry in compared.structured_content["result"]["indicators"] if entry["id"] == "vc_ihr_psrc_p5")
    assert homicides["name"] == "Intentional homicides"
    uruguay = next(value for value in homicides["values"] if value["country"] == "URY")
    assert uruguay["year"] == 2023 and abs(uruguay["value"] - 11.245) < 0.001

    citations = await client.call_tool("resolve_citations", {"ids": ["wb-sp-dyn-le00-in-mex-2024", "pulse-abc"]})
    assert not citations.is_error
    record = citations.structured_content["citations"][0]
    assert (record["publisher"], record["year"], record["value"]) == ("The World Bank", 2024, 75.264)
    assert citations.structured_content["result"]["unresolved"][0]["citation_id"] == "pulse-abc"

    unknown = await client.call_tool("get_series", {"parameter": "salud", "indicator": "sp_dyn_le00_inx", "countries": ["MEX"]})
    assert unknown.is_error
    assert "sp_dyn_le00_in" in payload(unknown)["result"]["error"]


def test_streamable_http(http_url):
    async def run():
        async with Client(http_url) as client:
            await exercise(client)

    asyncio.run(run())


def test_stdio():
    async def run():
        async with Client(stdio_parameters()) as client:
            await exercise(client)

    asyncio.run(run())
