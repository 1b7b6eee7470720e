"""The MCP App (`io.modelcontextprotocol/ui`), tested as a host runs it.

A host page (tests/e2e/apps_host, bundled by `just e2e` into APPS_HOST_DIR) built on the extension's
official host side (AppBridge, PostMessageTransport of @modelcontextprotocol/ext-apps) and the official
TypeScript client connects to the real server advertising the extension, reads the chart view
`ui://lac-corpus/chart.html`, renders it in a sandboxed iframe under a Content-Security-Policy without
'unsafe-eval' or network, and sends it the tool input and result over the extension's postMessage
protocol (`ui/initialize`, `ui/notifications/tool-input`, `ui/notifications/tool-result`). Headless
Chromium, driven by Playwright, checks what the person sees: marks drawn, axis titles, each number's
citation and source link. The charts the view drew validate against the official Vega-Lite schema
(VEGA_LITE_SCHEMA). Screenshots are kept in target/e2e-screenshots/. The catalog's chart page, which
serves the same view with its data embedded, is checked the same way.
"""

import functools
import http.server
import json
import os
import pathlib
import threading
import urllib.request

import pytest
from jsonschema import Draft7Validator
from playwright.sync_api import sync_playwright

import browser

REPO = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "target" / "e2e-screenshots"
APPS_HOST_DIR = pathlib.Path(os.environ["APPS_HOST_DIR"])
SCHEMA_PATH = os.environ["VEGA_LITE_SCHEMA"]
# What a violated Content-Security-Policy or a failed script prints in the console.
TROUBLE = ("Content Security Policy", "unsafe-eval", "EvalError", "Uncaught")


@pytest.fixture(scope="module")
def host_url():
    """Serves APPS_HOST_DIR (host.html and host.bundle.js) on a free loopback port: another origin than
    the MCP server's, as a host's page is."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(APPS_HOST_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/host.html"
    server.shutdown()


@pytest.fixture(scope="module")
def chromium_page():
    """A Playwright page in Debian's Chromium, and the console messages and errors of every frame."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=browser.chromium(), args=[flag for flag in browser.FLAGS if flag != "--headless"]
        )
        page = launched.new_page(viewport={"width": 1000, "height": 1600})
        messages = []
        page.on("console", lambda message: messages.append(f"{message.type}: {message.text}"))
        page.on("pageerror", lambda error: messages.append(f"pageerror: {error}"))
        yield page, messages
        launched.close()


def run_host(page, host_url, http_url, tool, args, locale):
    """Opens the host page and runs the host flow for one tool call; returns what the host saw."""
    page.goto(host_url)
    seen = page.evaluate(
        "(options) => runHost(options)",
        {"serverUrl": http_url, "tool": tool, "args": args, "locale": locale},
    )
    view = page.frame_locator("iframe")
    view.locator("body[data-rendered]").wait_for(timeout=30_000)
    return seen, view, page.evaluate("window.hostState")


def troubles(messages):
    return [message for message in messages if any(word in message for word in TROUBLE)]


@functools.cache
def validator():
    with open(SCHEMA_PATH, encoding="utf-8") as handle:
        return Draft7Validator(json.load(handle))


def assert_valid_vega_lite(specs):
    checker = validator()
    assert specs
    for spec in specs:
        errors = sorted(checker.iter_errors(spec), key=lambda error: list(error.path))
        assert not errors, f"{errors[0].message} at {list(errors[0].path)}"


def test_a_host_renders_get_series_in_the_persons_language_with_every_number_cited(
    chromium_page, host_url, http_url
):
    page, messages = chromium_page
    messages.clear()
    seen, view, host = run_host(
        page,
        host_url,
        http_url,
        "get_series",
        {"indicator": "sp_dyn_le00_in", "countries": ["MEX", "BRA", "ARG"], "lang": "pt"},
        "en-US",
    )
    # The server declared the extension back; the charting tools point at the view; the app-only tool
    # is marked for the app (hosts keep it from the model).
    assert seen["serverExtensions"] == {"io.modelcontextprotocol/ui": {}}
    tools = {tool["name"]: tool for tool in seen["tools"]}
    for name in ["get_series", "compare_countries", "get_parameter_data", "get_regional_pulse", "compute"]:
        assert tools[name]["resourceUri"] == "ui://lac-corpus/chart.html", name
    assert tools["get_chart_data"]["visibility"] == ["app"]
    model_tools = [name for name, tool in tools.items() if tool["visibility"] != ["app"]]
    assert len(model_tools) == 18 and "get_chart_data" not in model_tools
    assert seen["viewMimeType"] == "text/html;profile=mcp-app"
    assert seen["viewBytes"] < 2 * 1024 * 1024
    # The model's answer is the compact one; the chart data came to the view through the app-only tool.
    assert seen["structuredContentKeys"] == ["result", "citations"]
    assert [call["name"] for call in host["calls"]] == ["get_chart_data"]
    assert host["calls"][0]["arguments"]["tool"] == "get_series"
    assert host["sizes"], "the view reported its size"

    # What the person sees: three lines with their points, both axis titles, Portuguese words.
    assert view.locator("svg .mark-line.role-mark path").count() == 3
    assert view.locator("svg .mark-symbol.role-mark path").count() == 3 * 65
    assert view.locator("svg .role-axis-title text").all_text_contents() == ["ano", "years"]
    assert view.locator("#citations-label").text_content() == "Citação de cada número"
    assert view.locator("html").get_attribute("lang") == "pt"
    # Each series' citation and its deep link; each point's id is series_id-year.
    mexico = view.locator('#citations li[data-citation-id="wb-sp-dyn-le00-in-mex"]')
    assert "1960–2024" in mexico.text_content()
    assert "wb-sp-dyn-le00-in-mex-{year}" in mexico.text_content()
    assert (
        mexico.locator("a").get_attribute("href")
        == "https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX"
    )
    sources = view.locator("#sources").text_content()
    assert "The World Bank, World Development Indicators" in sources and "CC-BY-4.0" in sources
    # The table holds WDI's value for Mexico in 2024 (75.264 years), in Portuguese notation.
    view.locator("#tables-box summary").click()
    last_row = view.locator("#tables tbody tr").last.locator("td").all_text_contents()
    assert last_row[0] == "2024" and "75,264" in last_row

    assert not troubles(messages), troubles(messages)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "mcp-app-get_series.png"), full_page=True)
    # The very chart the view drew is Vega-Lite the official schema validates.
    assert_valid_vega_lite(host["answers"][0]["structuredContent"]["result"]["charts"])


def test_a_host_renders_a_ranking_as_bars_and_cites_each_value(chromium_page, host_url, http_url):
    page, messages = chromium_page
    messages.clear()
    _, view, host = run_host(
        page,
        host_url,
        http_url,
        "compute",
        {"op": "rank", "parameter": "pobreza", "indicator": "si_pov_gini", "year": 2022},
        "es-MX",
    )
    # Fourteen countries report a Gini index for 2022 in WDI: fourteen bars, fourteen cited values.
    assert view.locator("svg .mark-rect.role-mark path").count() == 14
    assert view.locator('#citations li[data-citation-id^="wb-si-pov-gini-"]').count() == 14
    dominican = view.locator('#citations li[data-citation-id="wb-si-pov-gini-dom-2022"]')
    assert "37" in dominican.text_content()
    assert view.locator("#citations-label").text_content() == "Citas de cada número"
    assert [call["name"] for call in host["calls"]] == ["get_chart_data"]
    assert not troubles(messages), troubles(messages)
    page.screenshot(path=str(SCREENSHOTS / "mcp-app-compute-rank.png"), full_page=True)


def test_the_charts_the_view_draws_validate_against_the_official_vega_lite_schema(
    chromium_page, host_url, http_url
):
    page, _ = chromium_page
    calls = [
        ("get_parameter_data", {"parameter": "salud", "country": "MEX"}),
        ("get_regional_pulse", {"parameter": "educacion"}),
        ("compare_countries", {"parameter": "salud", "countries": ["CHL", "PER", "MEX"]}),
        ("compute", {"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "CHL", "from_year": 2000}),
        ("get_series", {"indicator": "vc_ihr_psrc_p5", "countries": ["BRA", "URY"], "from_year": 2015}),
    ]
    for tool, args in calls:
        _, view, host = run_host(page, host_url, http_url, tool, args, "en-GB")
        charts = host["answers"][0]["structuredContent"]["result"]["charts"]
        assert int(view.locator("body").get_attribute("data-rendered")) == len(charts) >= 1, tool
        assert view.locator("svg .role-axis-title text").count() >= 1, tool
        assert_valid_vega_lite(charts)


def test_the_catalog_chart_page_draws_the_same_view_under_a_policy_without_eval(chromium_page, base_url):
    page, messages = chromium_page
    messages.clear()
    response = page.goto(f"{base_url}/chart/si_pov_gini?lang=en")
    policy = response.headers["content-security-policy"]
    assert "'unsafe-eval'" not in policy and "script-src 'self' 'unsafe-inline'" in policy
    page.locator("body[data-rendered]").wait_for(timeout=30_000)
    # The eight most populous countries with a Gini index, Brazil first.
    assert page.locator("svg .mark-line.role-mark path").count() == 8
    assert page.locator("svg .role-axis-title text").all_text_contents() == ["year", "index (0-100)"]
    first = page.locator("#citations li").first
    assert first.get_attribute("data-citation-id") == "wb-si-pov-gini-bra"
    assert first.locator('a[href^="https://"]').get_attribute("href") == "https://data.worldbank.org/indicator/SI.POV.GINI?locations=BR"
    # The series' citation id opens its latest value's citation on this server, ready to paste.
    cited = first.locator('a[href^="/api/v1/citations/"]').get_attribute("href")
    assert cited.startswith("/api/v1/citations/wb-si-pov-gini-bra-"), cited
    resolved = page.request.get(f"{base_url}{cited}?format=apa")
    assert resolved.status == 200 and "Gini index" in resolved.text(), resolved.text()
    assert page.locator("#citations-label").text_content() == "Each number's citation"
    assert not troubles(messages), troubles(messages)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "catalog-chart-si_pov_gini.png"), full_page=True)


def call_over_http(http_url, tool, arguments):
    """One tools/call over Streamable HTTP (2025-11-25, a JSON answer), as a host without MCP Apps makes it."""
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2025-11-25"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    request = urllib.request.Request(http_url, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())["result"]


def drawn(frame):
    """What a chart view drew, in a page or the App's frame: marks per kind, axis titles, cited ids, table."""
    frame.locator("#tables-box summary").click()
    return {
        "lines": frame.locator("svg .mark-line.role-mark path").count(),
        "points": frame.locator("svg .mark-symbol.role-mark path").count(),
        "bars": frame.locator("svg .mark-rect.role-mark path").count(),
        "axes": frame.locator("svg .role-axis-title text").all_text_contents(),
        "cited": [item.get_attribute("data-citation-id") for item in frame.locator("#citations li").all()],
        "table": frame.locator("#tables tbody tr").last.locator("td").all_text_contents(),
    }


@pytest.mark.parametrize(
    "tool, args",
    [
        ("get_series", {"indicator": "sp_dyn_le00_in", "countries": ["MEX", "BRA", "ARG"], "lang": "en"}),
        ("compare_countries", {"parameter": "salud", "countries": ["CHL", "PER", "MEX"], "lang": "en"}),
    ],
)
def test_the_chart_page_an_answer_links_draws_the_same_chart_as_the_mcp_app(
    chromium_page, host_url, unlimited_http_url, tool, args
):
    http_url = unlimited_http_url
    page, messages = chromium_page
    messages.clear()
    # A host without MCP Apps: the person's line names the page, the first resource_link is it.
    answer = call_over_http(http_url, tool, args)
    link = answer["content"][2]
    assert link["type"] == "resource_link" and link["mimeType"] == "text/html"
    assert f"Open them at {link['uri']}." in answer["content"][1]["text"]
    # The MCP App's drawing of the same call, then the page's.
    _, view, _ = run_host(page, host_url, http_url, tool, args, "en-GB")
    in_app = drawn(view)
    response = page.goto(link["uri"])
    assert response.status == 200 and "immutable" in response.headers["cache-control"]
    page.locator("body[data-rendered]").wait_for(timeout=30_000)
    on_page = drawn(page)
    assert on_page == in_app
    assert on_page["lines"] + on_page["bars"] > 0 and on_page["cited"]
    if tool == "compare_countries":
        # Small multiples: one chart per indicator with values.
        assert int(page.locator("body").get_attribute("data-rendered")) > 1
    assert not troubles(messages), troubles(messages)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"answer-chart-{tool}.png"), full_page=True)


# What a drawn chart shows: each legend entry's label and symbol (stroke, dash, fill, opacity), each line's
# dash, points and first and last points, each axis' title and length (its domain line), and the bands.
CHART_READING = """() => {
  const points = (d) => [...(d || '').matchAll(/[ML]([-\\d.]+),([-\\d.]+)/g)].map(m => [Number(m[1]), Number(m[2])]);
  const legends = [...document.querySelectorAll('svg .role-legend')].map(legend => {
    const labels = [...legend.querySelectorAll('.role-legend-label text')].map(t => t.textContent);
    return [...legend.querySelectorAll('.role-legend-symbol path')].map((symbol, at) => ({
      label: labels[at], stroke: symbol.getAttribute('stroke'), dash: symbol.getAttribute('stroke-dasharray'),
      width: symbol.getAttribute('stroke-width'), fill: symbol.getAttribute('fill'),
      opacity: symbol.getAttribute('opacity'), length: symbol.getBBox().width,
    }));
  });
  const lines = [...document.querySelectorAll('svg .mark-line.role-mark path')].map(path => {
    const at = points(path.getAttribute('d'));
    return { dash: path.getAttribute('stroke-dasharray'), first: at[0], last: at[at.length - 1], xs: at.map(p => p[0]) };
  });
  const axes = [...document.querySelectorAll('svg .role-axis')].map(axis => ({
    title: axis.querySelector('.role-axis-title text')?.textContent,
    length: Math.abs(Number(axis.querySelector('.role-axis-domain line')?.getAttribute('x2'))),
  }));
  return { legends, lines, axes, areas: document.querySelectorAll('svg .mark-area.role-mark path').length };
}"""


def visible(colour):
    return bool(colour) and colour not in ("transparent", "none") and not colour.startswith("rgba(0, 0, 0, 0)")


def test_a_weo_chart_page_reads_right_legend_samples_joined_projections_names_axis_and_table(chromium_page, base_url):
    page, messages = chromium_page
    messages.clear()
    # IMF WEO real GDP growth: Argentina and Brazil observed then projected, Venezuela with estimates.
    response = page.goto(f"{base_url}/chart/ngdp_rpch?lang=en&countries=ARG,BRA,VEN")
    assert response.status == 200
    page.locator("body[data-rendered]").wait_for(timeout=30_000)
    seen = page.evaluate(CHART_READING)
    names, kinds = seen["legends"]
    # Countries by their names in the page's language, not ISO3 codes.
    assert [entry["label"] for entry in names] == ["Argentina", "Brazil", "Venezuela"]
    # Every kind's legend entry draws a visible stroked line sample; the projection's is dashed.
    assert [entry["label"] for entry in kinds] == ["observed", "estimate", "projection"]
    for entry in kinds:
        assert visible(entry["stroke"]), entry
        assert float(entry["width"] or 1) >= 1 and entry["length"] >= 10, entry
    by_label = {entry["label"]: entry for entry in kinds}
    assert by_label["projection"]["dash"] and by_label["projection"]["dash"] not in ("1,0", "0"), by_label
    assert by_label["observed"]["dash"] in (None, "1,0"), by_label
    # The dashed projection starts at the last observed point of the same country.
    solid = [line for line in seen["lines"] if line["dash"] in (None, "1,0")]
    dashed = [line for line in seen["lines"] if line not in solid]
    assert len(dashed) == 3, seen["lines"]
    for line in dashed:
        joined = [other for other in solid if other["last"] == line["first"]]
        assert joined, (line, solid)
    # The year axis ends at the last year with data (2030, the projections' end), not past it.
    x_axis = next(axis for axis in seen["axes"] if axis["title"] == "year")
    length = x_axis["length"]
    rightmost = max(max(line["xs"]) for line in seen["lines"])
    leftmost = min(min(line["xs"]) for line in seen["lines"])
    assert length > 0 and abs(rightmost - length) <= 1.5 and abs(leftmost) <= 1.5, (x_axis, rightmost, leftmost)
    # The table marks projected and estimated values and says what the marks mean.
    page.locator("#tables-box summary").click()
    last = page.locator("#tables tbody tr").last.locator("td")
    assert last.nth(0).text_content() == "2030"
    assert last.nth(1).locator("sup").text_content() == "p"
    assert last.nth(1).locator("sup").get_attribute("title") == "projection"
    notes = page.locator("#tables .mark-note").all_text_contents()
    assert notes == ["p: the source's projection, not an observation.",
                     "e: the source's estimate of a past year, which it will revise."]
    # Each value is one point (with its own kind in the tooltip): the point repeated to join the lines
    # is drawn once, and is not a projection in the table.
    cells = page.locator("#tables tbody td:not(:first-child)").all_text_contents()
    values = [cell for cell in cells if cell != "–"]
    assert page.locator("svg .mark-symbol.role-mark path").count() == len(values)
    first_projected = page.locator("#tables tbody tr:has(td:nth-child(2).projection)").first
    last_observed = first_projected.locator("xpath=preceding-sibling::tr[1]/td[2]")
    assert last_observed.locator("sup").count() == 0, last_observed.text_content()
    # Links to the catalog and to the indicator's files, each of which resolves.
    catalog = page.locator("#page-links a", has_text="Indicator catalogue")
    assert catalog.get_attribute("href") == "/?lang=en"
    downloads = page.locator("#page-links .downloads a")
    assert downloads.count() >= 5
    for href in [downloads.nth(at).get_attribute("href") for at in range(downloads.count())]:
        assert "/api/v1/indicators/ngdp_rpch" in href, href
        fetched = page.request.head(href)
        assert fetched.status == 200, href
    assert page.request.get(f"{base_url}/?lang=en").status == 200
    # The page's Dataset description is a data block the policy leaves alone.
    described = json.loads(page.locator('script[type="application/ld+json"]').text_content())
    assert described["@type"] == "Dataset" and described["temporalCoverage"].endswith("/2030")
    assert not troubles(messages), troubles(messages)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "catalog-chart-ngdp_rpch.png"), full_page=True)


def test_a_wgi_chart_page_draws_the_standard_error_band_with_its_legend_entry(chromium_page, base_url):
    page, messages = chromium_page
    messages.clear()
    page.goto(f"{base_url}/chart/ge_est?lang=es&countries=MEX,BRA")
    page.locator("body[data-rendered]").wait_for(timeout=30_000)
    seen = page.evaluate(CHART_READING)
    assert seen["areas"] == 2, seen
    names, band = seen["legends"]
    assert [entry["label"] for entry in names] == ["Brasil", "México"]
    assert [entry["label"] for entry in band] == ["intervalo de 90 % (±1,64 errores estándar)"]
    assert visible(band[0]["fill"]) and 0 < float(band[0]["opacity"]) < 1, band
    assert not troubles(messages), troubles(messages)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "catalog-chart-ge_est.png"), full_page=True)
