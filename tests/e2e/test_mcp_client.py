"""End to end with the official Python MCP client (PyPI `mcp`), over Streamable HTTP and stdio.

Run by `just e2e` (part of `just test`): it bakes the default corpus into CORPUS_OUT_DIR and points
SERVER_BIN at the debug `server` binary. Every check reads real values of the baked corpus.
"""

import asyncio
import json
import os

from mcp import Client, StdioServerParameters

SERVER_BIN = os.environ["SERVER_BIN"]
CORPUS_OUT_DIR = os.environ["CORPUS_OUT_DIR"]


def stdio_parameters():
    return StdioServerParameters(command=SERVER_BIN, args=["--stdio", "--corpus-dir", CORPUS_OUT_DIR])


def payload(result):
    """The {"result", "citations"} object of a tool result's text block."""
    return json.loads(result.content[0].text)


def citation_of(body, citation_id):
    """The citation of a stored id as the answer carries it: its series, indicator and source records
    (series id = the citation id without its year), merged."""
    citations = body["citations"]
    series = citations["series"][citation_id.rsplit("-", 1)[0]]
    indicator = citations["indicators"][series["indicator"]]
    return {**citations["sources"][indicator["source"]], **indicator, **series, "citation_id": citation_id}


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
    assert mexico["points"][0] == [2010, 73.718]
    assert mexico["latest"] == [2024, 75.264]
    assert mexico["series_id"] == "wb-sp-dyn-le00-in-mex"
    # Any point is quotable with its citation from this answer alone: id = series_id-year.
    record = citation_of(body, "wb-sp-dyn-le00-in-mex-2010")
    assert record["url"] == "https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX"
    assert (record["publisher"], record["code"], record["license"]) == ("The World Bank", "SP.DYN.LE00.IN", "CC-BY-4.0")
    for entry in body["result"]["series"]:
        for year, _ in entry["points"]:
            citation_of(body, f"{entry['series_id']}-{year}")
    # The chart and table travel in _meta, outside the model's context; the text block is structuredContent.
    assert body == series.structured_content
    assert series.meta["lac-corpus/display"]["tables"][0]["columns"] == ["year", "MEX", "ARG"]
    assert len(json.dumps(series.structured_content, separators=(",", ":"))) < 12 * 1024

    compared = await client.call_tool("compare_countries", {"parameter": "seguridad", "countries": ["BRA", "URY"], "lang": "en"})
    assert not compared.is_error
    homicides = next(entry for entry in compared.structured_content["result"]["indicators"] if entry["id"] == "vc_ihr_psrc_p5")
    assert homicides["name"] == "Intentional homicides"
    uruguay = next(value for value in homicides["values"] if value["country"] == "URY")
    assert uruguay["year"] == 2023 and abs(uruguay["value"] - 11.245) < 0.001

    citations = await client.call_tool("resolve_citations", {"ids": ["wb-sp-dyn-le00-in-mex-2024", "pulse-abc"]})
    assert not citations.is_error
    resolved = citations.structured_content["result"]["resolved"][0]
    assert (resolved["citation_id"], resolved["year"], resolved["value"]) == ("wb-sp-dyn-le00-in-mex-2024", 2024, 75.264)
    record = citation_of(citations.structured_content, "wb-sp-dyn-le00-in-mex-2024")
    assert (record["publisher"], record["retrieved_at"]) == ("The World Bank", "2026-07-01")
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
