"""The analysts' exit, end to end as analysts use it: pandas, openpyxl, pyarrow and sdmx1 read the files
from their URLs; the official MCP client lists and reads resources and follows a resource_link; headless
Chromium renders the catalog page, whose links resolve.

Run by `just e2e`, like the other end-to-end tests: CORPUS_OUT_DIR is the baked default corpus and
SERVER_BIN the debug server. Values are checked against the raw WDI file in ../shared/data/sources.
"""

import asyncio
import base64
import csv
import html.parser
import io
import json
import os
import pathlib
import urllib.error
import urllib.parse
import urllib.request

import pandas
import pyarrow.parquet
import pytest
import sdmx
from mcp import Client

import browser
from browser import chromium
from counting_proxy import CountingProxy

REPO = pathlib.Path(__file__).resolve().parents[2]
SOURCES = pathlib.Path(os.environ.get("CORPUS_SOURCES_DIR", REPO.parent / "shared" / "data" / "sources"))
SCREENSHOT = REPO / "target" / "e2e-screenshots" / "catalog.png"


def raw_wdi(code, iso3, year):
    """The value of the raw WDI extract for (indicator code, country, year)."""
    path = SOURCES / "wdi" / "indicators" / code.lower() / "data.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["Country Code"] == iso3 and row["Year"] == str(year):
                return float(row["Value"])
    raise AssertionError(f"{code} {iso3} {year} is not in {path}")


def fetch(url, headers=None, method="GET"):
    """(status, headers, body) of a request, errors included."""
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_pandas_reads_the_gini_csv_from_its_url_with_the_raw_wdi_values(base_url):
    frame = pandas.read_csv(f"{base_url}/api/v1/indicators/si_pov_gini.csv")
    assert list(frame.columns) == [
        "indicator", "country", "country_name", "year", "value", "unit", "flags", "citation_id", "url",
    ]
    uruguay = frame[(frame.country == "URY") & (frame.year == 2024)].iloc[0]
    assert uruguay.value == raw_wdi("SI.POV.GINI", "URY", 2024) == 40.0
    assert uruguay.citation_id == "wb-si-pov-gini-ury-2024"
    assert uruguay.url == "https://data.worldbank.org/indicator/SI.POV.GINI?locations=UY"
    # Every row of the raw file for a LAC country is there with the same value.
    mexico = frame[frame.country == "MEX"].set_index("year").value
    for year, value in mexico.items():
        assert value == raw_wdi("SI.POV.GINI", "MEX", year)

    wide = pandas.read_csv(f"{base_url}/api/v1/indicators/si_pov_gini.wide.csv", index_col="country")
    assert wide.loc["URY", "2024"] == 40.0


def test_excel_opens_the_workbook_with_its_metadata_and_citations(base_url):
    sheets = pandas.read_excel(f"{base_url}/api/v1/indicators/si_pov_gini.xlsx", sheet_name=None, engine="openpyxl")
    assert list(sheets) == ["data", "metadata", "citations"]
    data = sheets["data"]
    assert data[(data.country == "URY") & (data.year == 2024)].value.iloc[0] == 40.0
    metadata = dict(zip(sheets["metadata"].field, sheets["metadata"].value))
    assert metadata["source_code"] == "SI.POV.GINI"
    assert metadata["licence"] == "CC-BY-4.0"
    assert metadata["publisher"] == "The World Bank"
    citations = sheets["citations"].set_index("citation_id")
    assert citations.loc["wb-si-pov-gini-ury-2024", "url"] == "https://data.worldbank.org/indicator/SI.POV.GINI?locations=UY"

    registry = pandas.read_excel(f"{base_url}/api/v1/registry.xlsx", sheet_name=None, engine="openpyxl")
    assert list(registry) == ["metrics", "sources", "countries", "pillars"]
    assert "si_pov_gini" in set(registry["metrics"].id)
    assert list(registry["metrics"].columns[:1]) == ["id"] and list(registry["countries"].columns[:1]) == ["iso3"]
    # The countries sheet counts each country's observations, as countries.json does.
    countries_json = json.loads((pathlib.Path(os.environ["CORPUS_OUT_DIR"]) / "current" / "countries.json").read_text())
    expected = next(country["observations"] for country in countries_json if country["iso3"] == "URY")
    uruguay = registry["countries"].set_index("iso3").loc["URY", "observations"]
    assert uruguay == expected > 10_000


def test_parquet_reads_from_the_url_with_pyarrow_and_pandas(base_url):
    status, _, body = fetch(f"{base_url}/api/v1/indicators/sp_dyn_le00_in.parquet")
    assert status == 200
    table = pyarrow.parquet.read_table(io.BytesIO(body))
    assert str(table.schema.field("year").type) == "int32"
    frame = table.to_pandas()
    mexico_2010 = frame[(frame.country == "MEX") & (frame.year == 2010)].value.iloc[0]
    assert mexico_2010 == raw_wdi("SP.DYN.LE00.IN", "MEX", 2010)

    observations = pandas.read_parquet(f"{base_url}/api/v1/datasets/observations.parquet")
    gini = observations[(observations.indicator == "si_pov_gini") & (observations.country == "URY") & (observations.year == 2024)]
    assert gini.value.iloc[0] == 40.0
    stats = pandas.read_csv(f"{base_url}/api/v1/datasets/series_stats.csv.gz", compression="gzip")
    assert {"indicator", "country", "latest_value", "latest_citation_id"} <= set(stats.columns)
    assert list(stats.columns[:2]) == ["indicator", "country"]


class HttpRangeFile(io.RawIOBase):
    """A read-only file over HTTP `Range` requests, as a remote Parquet reader sees one."""

    def __init__(self, url):
        status, headers, _ = fetch(url, method="HEAD")
        assert status == 200 and headers["Accept-Ranges"] == "bytes"
        self.url, self.size, self.position = url, int(headers["Content-Length"]), 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def tell(self):
        return self.position

    def seek(self, offset, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = base + offset
        return self.position

    def readinto(self, buffer):
        end = min(self.position + len(buffer), self.size)
        if end <= self.position:
            return 0
        status, _, body = fetch(self.url, {"Range": f"bytes={self.position}-{end - 1}"})
        assert status == 206, status
        buffer[: len(body)] = body
        self.position += len(body)
        return len(body)


def test_a_one_indicator_query_over_http_reads_under_a_tenth_of_the_observations_file(base_url):
    """polars' scan_parquet and pyarrow over HTTP ranges read the footer and the row groups whose statistics
    admit the indicator: the proxy counts what the server sent."""
    import polars

    path = "/api/v1/datasets/observations.parquet"
    _, headers, _ = fetch(f"{base_url}{path}", method="HEAD")
    size = int(headers["Content-Length"])
    expected = raw_wdi("SP.DYN.LE00.IN", "MEX", 2024)
    with CountingProxy(base_url) as proxy:
        frame = (
            polars.scan_parquet(f"{proxy.url}{path}")
            .filter(polars.col("indicator") == "sp_dyn_le00_in")
            .collect()
        )
        assert frame.height > 1000 and set(frame["indicator"]) == {"sp_dyn_le00_in"}
        mexico = frame.filter((polars.col("country") == "MEX") & (polars.col("year") == 2024))
        assert mexico["value"][0] == expected
        assert mexico["citation_id"][0] == "wb-sp-dyn-le00-in-mex-2024"
        assert 0 < proxy.body_bytes < size / 10, (proxy.body_bytes, size, proxy.requests)

    with CountingProxy(base_url) as proxy:
        remote = HttpRangeFile(f"{proxy.url}{path}")
        table = pyarrow.parquet.read_table(
            pyarrow.PythonFile(remote, mode="r"),
            filters=[("indicator", "=", "sp_dyn_le00_in")],
            pre_buffer=False,
        )
        assert table.num_rows == frame.height
        assert 0 < proxy.body_bytes < size / 10, (proxy.body_bytes, size, proxy.requests)


def test_parquet_files_carry_unit_source_licence_and_citation_rule(base_url):
    status, _, body = fetch(f"{base_url}/api/v1/indicators/vc_ihr_psrc_p5.parquet")
    assert status == 200
    metadata = {key.decode(): value.decode() for key, value in pyarrow.parquet.ParquetFile(io.BytesIO(body)).metadata.metadata.items()}
    assert metadata["source_code"] == "VC.IHR.PSRC.P5"
    assert metadata["unit"] == "per 100,000 people"
    assert metadata["licence"] == "CC-BY-4.0"
    assert metadata["publisher"] == "The World Bank"
    assert metadata["primary_source"] == "UN Office on Drugs and Crime's International Homicide Statistics database."
    assert "/api/v1/citations/{citation_id}" in metadata["citation"]

    status, _, body = fetch(f"{base_url}/api/v1/datasets/observations.parquet")
    parquet = pyarrow.parquet.ParquetFile(io.BytesIO(body))
    metadata = parquet.metadata.metadata
    assert json.loads(metadata[b"units"])["sp_dyn_le00_in"] == "years"
    assert json.loads(metadata[b"source_records"])["wdi"]["publisher"] == "The World Bank"
    assert metadata[b"keys"] == b"indicator,country,year"
    # Bounded row groups along the sort key, with statistics and the page index.
    assert parquet.metadata.num_row_groups > 10
    assert max(parquet.metadata.row_group(i).num_rows for i in range(parquet.metadata.num_row_groups)) <= 8192
    first = parquet.metadata.row_group(0).column(0)
    assert first.path_in_schema == "indicator" and first.statistics.has_min_max
    assert first.has_column_index and first.has_offset_index
    assert "RLE_DICTIONARY" in first.encodings
    assert str(parquet.schema_arrow.field("indicator").type) == "large_string"


def test_the_json_catalog_lists_every_file_with_its_hash(base_url):
    status, headers, body = fetch(f"{base_url}/api/v1/catalog")
    assert status == 200 and headers["Content-Type"] == "application/json"
    catalog = json.loads(body)
    gini = next(indicator for indicator in catalog["indicators"] if indicator["id"] == "si_pov_gini")
    csv_file = next(file for file in gini["files"] if file["format"] == "csv")
    status, headers, body = fetch(csv_file["url"])
    assert status == 200 and len(body) == csv_file["bytes"]
    assert headers["ETag"] == f'"{csv_file["sha256"]}"'
    import hashlib

    assert hashlib.sha256(body).hexdigest() == csv_file["sha256"]


def test_bad_requests_get_the_right_4xx_with_a_body_that_says_what_is_valid(base_url):
    for path in [
        "/api/v1/indicators/not_an_indicator.csv",
        "/api/v1/indicators/si_pov_gini.docx",
        "/api/v1/indicators/..%2F..%2Fmanifest.json",
        "/api/v1/%2e%2e/%2e%2e/etc/passwd",
    ]:
        status, headers, body = fetch(base_url + path)
        assert status == 404, path
        problem = json.loads(body)
        assert problem["error"] == "not_found"
        assert problem["catalog"] == f"{base_url}/api/v1/catalog"
    status, _, body = fetch(base_url + "/api/v1/indicators/si_pov_gini.docx")
    assert f"{base_url}/api/v1/indicators/si_pov_gini.xlsx" in json.loads(body)["available"]

    status, headers, body = fetch(f"{base_url}/api/v1/indicators/si_pov_gini.csv", method="HEAD")
    size = int(headers["Content-Length"])
    status, headers, body = fetch(f"{base_url}/api/v1/indicators/si_pov_gini.csv", {"Range": f"bytes={size}-"})
    assert status == 416 and headers["Content-Range"] == f"bytes */{size}"
    assert json.loads(body)["bytes"] == size
    status, headers, body = fetch(f"{base_url}/api/v1/indicators/si_pov_gini.csv", {"Range": "bytes=-6"})
    assert status == 206 and len(body) == 6
    etag = fetch(f"{base_url}/api/v1/indicators/si_pov_gini.csv", method="HEAD")[1]["ETag"]
    status, _, body = fetch(f"{base_url}/api/v1/indicators/si_pov_gini.csv", {"If-None-Match": etag})
    assert status == 304 and body == b""
    status, _, _ = fetch(f"{base_url}/api/v1/indicators/si_pov_gini.csv", method="DELETE")
    assert status == 405


async def resources_session(base_url):
    async with Client(f"{base_url}/api/mcp") as client:
        listed = await client.list_resources()
        assert listed.resources and listed.next_cursor
        first = listed.resources[0]
        assert first.uri.startswith("corpus://") and first.mime_type and first.size > 0
        templates = await client.list_resource_templates()
        assert "corpus://indicator/{id}.csv" in {template.uri_template for template in templates.resource_templates}

        # A template URI filled in: the life expectancy CSV, as text.
        read = await client.read_resource("corpus://indicator/sp_dyn_le00_in.csv")
        text = read.contents[0].text
        mexico = [row for row in csv.DictReader(io.StringIO(text)) if row["country"] == "MEX" and row["year"] == "2010"]
        assert float(mexico[0]["value"]) == raw_wdi("SP.DYN.LE00.IN", "MEX", 2010)
        # A workbook comes back as a base64 blob.
        read = await client.read_resource("corpus://indicator/si_pov_gini.xlsx")
        workbook = pandas.read_excel(io.BytesIO(base64.b64decode(read.contents[0].blob)), sheet_name="citations")
        assert "wb-si-pov-gini-ury-2024" in set(workbook.citation_id)

        # get_series answers with a resource_link to its chart page first, then one to the indicator's file;
        # following that gives the series.
        series = await client.call_tool("get_series", {"indicator": "si_pov_gini", "countries": ["URY"]})
        links = [item for item in series.content if item.type == "resource_link"]
        assert links[0].mime_type == "text/html" and str(links[0].uri).startswith(f"{base_url}/chart/answer/")
        links = links[1:]
        assert links and str(links[0].uri) == "corpus://indicator/si_pov_gini.csv"
        assert links[0].meta["url"] == f"{base_url}/api/v1/indicators/si_pov_gini.csv"
        followed = await client.read_resource(links[0].uri)
        assert ",URY,Uruguay,2024,40," in followed.contents[0].text


def test_the_mcp_client_lists_reads_and_follows_resource_links(base_url):
    asyncio.run(resources_session(base_url))


class LinkCollector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.links.extend(value for name, value in attrs if name == "href")


def test_chromium_renders_the_catalog_page_and_its_links_resolve(base_url):
    # Through Playwright, not Chromium's --screenshot/--dump-dom switches: those exit without writing a file
    # now and then on a loaded machine, and say nothing about why.
    from playwright.sync_api import sync_playwright

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    if SCREENSHOT.exists():
        SCREENSHOT.unlink()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium(), args=browser.FLAGS[1:])
        try:
            page = launched.new_page(viewport={"width": 1280, "height": 2000})
            assert page.goto(f"{base_url}/?lang=en").status == 200
            page.screenshot(path=str(SCREENSHOT))
            # The DOM Chromium built (no JavaScript on the page): titles, names in the chosen language, links.
            assert page.goto(f"{base_url}/?lang=es").status == 200
            dom = page.content()
            # The search box works without JavaScript: a GET with ?q=.
            assert page.goto(f"{base_url}/?lang=en&q=gini").status == 200
            searched = page.content()
        finally:
            launched.close()
    assert SCREENSHOT.exists() and SCREENSHOT.stat().st_size > 10_000

    assert "<h1>Corpus de datos gobernados de América Latina y el Caribe</h1>" in dom
    assert "Esperanza de vida al nacer" in dom
    # No script runs on the page: its one script element is the schema.org description, a data block.
    assert dom.count("<script") == 1 and '<script type="application/ld+json">' in dom
    collector = LinkCollector()
    collector.feed(dom)
    downloads = sorted({link for link in collector.links if "/api/v1/" in link})
    assert f"{base_url}/api/v1/indicators/si_pov_gini.csv" in downloads
    assert f"{base_url}/api/v1/registry.xlsx" in downloads
    for link in downloads:
        status, _, _ = fetch(link, method="HEAD")
        assert status == 200, link

    collector = LinkCollector()
    collector.feed(searched)
    assert f"{base_url}/api/v1/indicators/si_pov_gini.csv" in collector.links
    assert f"{base_url}/api/v1/indicators/sp_dyn_le00_in.csv" not in collector.links


def test_the_catalog_page_fits_a_phone_and_describes_the_corpus_in_schema_org(base_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium(), args=browser.FLAGS[1:])
        try:
            page = launched.new_page(viewport={"width": 390, "height": 844})
            page.goto(f"{base_url}/?lang=pt")
            # Nothing wider than the phone: no sideways scrolling, every table inside the viewport.
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            widest = page.evaluate("Math.max(...[...document.querySelectorAll('table')].map(t => t.getBoundingClientRect().right))")
            assert widest <= 390
            # Each cell says what it is once the header row is hidden.
            label = page.evaluate("getComputedStyle(document.querySelector('td[data-label]'), '::before').content")
            assert label.startswith('"Código')
            described = json.loads(page.evaluate("document.querySelector('script[type=\"application/ld+json\"]').textContent"))
        finally:
            launched.close()
    assert described["@type"] == "Dataset" and described["name"] == "Corpus de dados governados da América Latina e do Caribe"
    assert described["spatialCoverage"]["name"] == "América Latina e Caribe"
    life = next(variable for variable in described["variableMeasured"] if variable["propertyID"] == "SP.DYN.LE00.IN")
    assert life == {"@type": "PropertyValue", "name": "Expectativa de vida ao nascer", "propertyID": "SP.DYN.LE00.IN", "unitText": "years"}
    assert "https://creativecommons.org/licenses/by/4.0/" in described["license"]
    assert any(creator["name"] == "The World Bank" for creator in described["creator"])
    formats = {download["name"]: download["encodingFormat"] for download in described["distribution"]}
    assert formats["observations.parquet"] == "application/vnd.apache.parquet"
    assert formats["datapackage.json"] == formats["croissant.json"] == "application/json"
    for download in described["distribution"][:3]:
        assert fetch(download["contentUrl"], method="HEAD")[0] == 200


def test_sdmx1_reads_the_sdmx_ml_and_sdmx_csv_with_the_structure(base_url, tmp_path):
    files = {}
    for name, path in [
        ("structure", "sdmx/structure.sdmx.xml"),
        ("ml", "indicators/si_pov_gini.sdmx.xml"),
        ("csv", "indicators/si_pov_gini.sdmx.csv"),
    ]:
        status, headers, body = fetch(f"{base_url}/api/v1/{path}")
        assert status == 200, path
        files[name] = tmp_path / path.replace("/", "_")
        files[name].write_bytes(body)
    assert b'dimensionAtObservation="TIME_PERIOD"' in files["ml"].read_bytes()
    assert files["csv"].read_text(encoding="utf-8").startswith("STRUCTURE,STRUCTURE_ID,ACTION,")

    structure = sdmx.read_sdmx(files["structure"])
    dsd = structure.structure["DSD_LAC"]
    flow = structure.dataflow["DF_LAC"]
    assert "URY" in structure.codelist["CL_AREA"]
    assert "si_pov_gini" in structure.codelist["CL_INDICATOR"]

    ml = sdmx.to_pandas(sdmx.read_sdmx(files["ml"], structure=dsd))
    from_csv = sdmx.to_pandas(sdmx.read_sdmx(files["csv"], structure=flow))
    assert list(ml.index.names) == ["INDICATOR", "REF_AREA", "TIME_PERIOD"] == list(from_csv.index.names)
    assert ml.loc[("si_pov_gini", "URY", "2024")] == raw_wdi("SI.POV.GINI", "URY", 2024) == 40.0
    assert ml.sort_index().equals(from_csv.sort_index())
    with_attributes = sdmx.to_pandas(sdmx.read_sdmx(files["ml"], structure=dsd), attributes="o")
    assert with_attributes.loc[("si_pov_gini", "URY", "2024")]["CITATION_ID"] == "wb-si-pov-gini-ury-2024"


def test_sdmx_keeps_every_flag_and_the_wgi_standard_errors_in_ml_csv_2_and_csv_1(base_url, tmp_path):
    files = {}
    for path in [
        "sdmx/structure.sdmx.xml",
        "indicators/sl_emp_totl_sp_zs.sdmx.xml",
        "indicators/si_pov_nagp.sdmx.xml",
        "indicators/ge_est.sdmx.xml",
        "indicators/ge_est.sdmx.csv",
        "indicators/ge_est.sdmx1.csv",
    ]:
        status, _, body = fetch(f"{base_url}/api/v1/{path}")
        assert status == 200, path
        files[path] = tmp_path / path.replace("/", "_")
        files[path].write_bytes(body)
    structure = sdmx.read_sdmx(files["sdmx/structure.sdmx.xml"])
    dsd, flow = structure.structure["DSD_LAC"], structure.dataflow["DF_LAC"]
    # The SDMX cross-domain codes: modelled values are I (imputed), suspect scales U (low reliability).
    assert sorted(code.id for code in structure.codelist["CL_OBS_STATUS"]) == ["A", "E", "F", "I", "U"]
    assert "STANDARD_ERROR" in [attribute.id for attribute in dsd.attributes]

    def observations(path, **kwargs):
        return sdmx.to_pandas(sdmx.read_sdmx(files[path], structure=dsd, **kwargs), attributes="o")

    employment = observations("indicators/sl_emp_totl_sp_zs.sdmx.xml").loc[("sl_emp_totl_sp_zs", "BRA", "2023")]
    assert employment["value"] == raw_wdi("SL.EMP.TOTL.SP.ZS", "BRA", 2023) == 57.915
    assert employment["OBS_STATUS"] == "I"
    poverty_gap = observations("indicators/si_pov_nagp.sdmx.xml").loc[("si_pov_nagp", "MEX", "2010")]
    assert poverty_gap["OBS_STATUS"] == "U"
    effectiveness = observations("indicators/ge_est.sdmx.xml")
    chile = effectiveness.loc[("ge_est", "CHL", "2023")]
    assert (chile["value"], chile["STANDARD_ERROR"], chile["OBS_STATUS"]) == (0.72, "0.24", "A")

    # SDMX-CSV 2.0 read by sdmx1 holds the same observations and attributes as the SDMX-ML.
    from_csv = sdmx.to_pandas(sdmx.read_sdmx(files["indicators/ge_est.sdmx.csv"], structure=flow), attributes="o")
    assert from_csv.loc[("ge_est", "CHL", "2023")]["STANDARD_ERROR"] == "0.24"
    assert len(from_csv) == len(effectiveness)
    # SDMX-CSV 1.0 (sdmx1 writes it but does not read it): the file is what sdmx1 writes from the SDMX-ML.
    from sdmx.format.csv import v1

    message = sdmx.read_sdmx(files["indicators/ge_est.sdmx.xml"], structure=dsd)
    message.data[0].described_by = flow
    written = sdmx.to_csv(message.data[0], format_options=v1.FormatOptions(), attributes="o", rtype=pandas.DataFrame)
    ours = pandas.read_csv(files["indicators/ge_est.sdmx1.csv"], dtype=str, keep_default_na=False)
    assert list(ours.columns) == list(written.columns)
    assert ours.iloc[0]["DATAFLOW"] == "LAC_CORPUS:DF_LAC(1.0)"
    written = written.astype(str).reset_index(drop=True)
    key = ["REF_AREA", "TIME_PERIOD"]
    merged = ours.merge(written, on=key, suffixes=("", "_sdmx1"))
    assert len(merged) == len(ours) == len(written)
    for column in ["OBS_STATUS", "CITATION_ID", "STANDARD_ERROR"]:
        assert (merged[column] == merged[f"{column}_sdmx1"]).all(), column
    assert (merged["OBS_VALUE"].astype(float) == merged["OBS_VALUE_sdmx1"].astype(float)).all()


def test_frictionless_validates_the_data_packages(base_url, tmp_path):
    import frictionless

    status, headers, body = fetch(f"{base_url}/api/v1/datapackage.json")
    assert status == 200 and headers["Content-Type"] == "application/json"
    package = json.loads(body)
    resources = {resource["name"]: resource for resource in package["resources"]}
    life = resources["sp_dyn_le00_in"]
    assert life["path"] == "indicators/sp_dyn_le00_in.csv"
    assert life["sources"][0]["title"] == "The World Bank — World Development Indicators"
    assert {"name": "CC-BY-4.0", "path": "https://creativecommons.org/licenses/by/4.0/"} in life["licenses"]
    value = next(field for field in life["schema"]["fields"] if field["name"] == "value")
    assert value == {"name": "value", "type": "number", "description": "the value, in years", "constraints": {"required": True}}
    assert resources["observations-parquet"]["path"] == "datasets/observations.parquet"
    # The descriptor is valid, and resources read from the server validate row by row (types, keys, bytes
    # and sha256 against the file the server sends).
    corpus_package = frictionless.Package(f"{base_url}/api/v1/datapackage.json")
    assert len(corpus_package.resources) == len(package["resources"])
    for name in ["sp_dyn_le00_in", "ge_est"]:
        report = corpus_package.get_resource(name).validate()
        assert report.valid, (name, report.flatten(["type", "message"])[:5])

    # A dataset's package downloaded with its files, as an analyst keeps them: every resource validates.
    # (frictionless counts no bytes of a Parquet file, nor of a gzip stream over HTTP: it reports
    # byte-count errors against any size, so that one check is skipped for Parquet.)
    for name in ["regulation.datapackage.json", "regulation.csv.gz", "regulation.parquet"]:
        status, _, body = fetch(f"{base_url}/api/v1/datasets/{name}")
        assert status == 200, name
        (tmp_path / name).write_bytes(body)
    regulation = frictionless.Package(tmp_path / "regulation.datapackage.json")
    report = regulation.get_resource("regulation").validate()
    assert report.valid and report.task.stats["rows"] > 100, report.flatten(["type", "message"])[:5]
    assert report.task.stats["sha256"] == regulation.get_resource("regulation").hash.removeprefix("sha256:")
    parquet = regulation.get_resource("regulation-parquet").validate(
        checklist=frictionless.Checklist(skip_errors=["byte-count"])
    )
    assert parquet.valid and parquet.task.stats["rows"] == report.task.stats["rows"], parquet.flatten(["type", "message"])[:5]


def test_the_indicator_zip_holds_its_csv_metadata_package_and_readme(base_url, tmp_path):
    import zipfile

    import frictionless

    status, headers, body = fetch(f"{base_url}/api/v1/indicators/vc_ihr_psrc_p5.zip")
    assert status == 200 and headers["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(body))
    assert sorted(archive.namelist()) == ["README.md", "datapackage.json", "vc_ihr_psrc_p5.csv", "vc_ihr_psrc_p5.metadata.json"]
    _, _, csv_bytes = fetch(f"{base_url}/api/v1/indicators/vc_ihr_psrc_p5.csv")
    assert archive.read("vc_ihr_psrc_p5.csv") == csv_bytes
    metadata = json.loads(archive.read("vc_ihr_psrc_p5.metadata.json"))
    assert metadata["primary_source"] == "UN Office on Drugs and Crime's International Homicide Statistics database."
    assert metadata["unit"] == "per 100,000 people" and metadata["names"]["es"]
    readme = archive.read("README.md").decode()
    assert readme.startswith("# Intentional homicides (VC.IHR.PSRC.P5)")
    assert "per 100,000 people" in readme and "citation_id" in readme
    archive.extractall(tmp_path)
    report = frictionless.validate(tmp_path / "datapackage.json")
    assert report.valid, report.flatten(["type", "message"])[:5]
    frame = pandas.read_csv(tmp_path / "vc_ihr_psrc_p5.csv")
    colombia = frame[(frame.country == "COL") & (frame.year == 2022)].value.iloc[0]
    assert colombia == raw_wdi("VC.IHR.PSRC.P5", "COL", 2022)


def test_mlcroissant_loads_the_croissant_description_and_reads_its_records(base_url, tmp_path):
    import mlcroissant

    status, _, body = fetch(f"{base_url}/api/v1/croissant.json")
    assert status == 200
    description = json.loads(body)
    assert description["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    observations = next(item for item in description["distribution"] if item["@id"] == "observations.parquet")
    _, _, parquet = fetch(f"{base_url}/api/v1/datasets/observations.parquet")
    import hashlib

    assert observations["sha256"] == hashlib.sha256(parquet).hexdigest()
    # Its file URLs are relative to it, as the downloads API mirrors exports/: a folder holding the
    # description and the files it names is read as published.
    (tmp_path / "croissant.json").write_bytes(body)
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "observations.parquet").write_bytes(parquet)
    dataset = mlcroissant.Dataset(jsonld=str(tmp_path / "croissant.json"))
    assert {record_set.name for record_set in dataset.metadata.record_sets} >= {"observations", "institutions"}
    first = next(iter(dataset.records(record_set="observations")))
    assert first["observations/citation_id"].decode().startswith("wb-")


def test_csv_for_excel_with_a_byte_order_mark(base_url):
    url = f"{base_url}/api/v1/indicators/sp_dyn_le00_in.csv"
    status, headers, plain = fetch(url)
    status_bom, headers_bom, with_bom = fetch(f"{url}?bom=1")
    assert status == status_bom == 200
    assert with_bom == b"\xef\xbb\xbf" + plain
    assert headers_bom["ETag"] != headers["ETag"] and headers_bom["ETag"].endswith('-bom"')
    assert "Curaçao" in with_bom.decode("utf-8-sig")
    assert int(headers_bom["Content-Length"]) == len(plain) + 3
    status, _, body = fetch(f"{base_url}/api/v1/indicators/sp_dyn_le00_in.parquet?bom=1")
    assert status == 400 and b"CSV files only" in body
    status, _, body = fetch(f"{url}?bom=yes")
    assert status == 400 and b"bom=yes" in body


def test_the_catalog_json_gives_definitions_vintages_and_primary_sources(base_url):
    catalog = json.loads(fetch(f"{base_url}/api/v1/catalog")[2])
    homicides = next(indicator for indicator in catalog["indicators"] if indicator["id"] == "vc_ihr_psrc_p5")
    assert homicides["primary_source"] == "UN Office on Drugs and Crime's International Homicide Statistics database."
    assert homicides["definition"].startswith("An intentional homicide is defined as")
    assert homicides["vintage"] == "2026-07" and homicides["publisher"] == "The World Bank"
    assert {file["format"] for file in homicides["files"]} >= {"zip", "sdmx_csv_1"}
    assert [file["url"].rsplit("/", 1)[-1] for file in catalog["metadata"]] == ["datapackage.json", "croissant.json"]


async def pilots_session(http_url):
    async with Client(http_url) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "find_pilots" in names
        answer = await client.call_tool("find_pilots", {"country": "Bolivia", "parameter": "energia", "query": "electricity"})
        assert not answer.is_error
        result = answer.structured_content["result"]
        pilot = next(pilot for pilot in result["pilots"] if pilot["slug"] == "p102479")
        assert pilot["title"] == "Bolivia Decentralized Electricity for Universal Access"
        # The pilot's record resolves through resolve_citations, and its page is the World Bank's.
        resolved = await client.call_tool("resolve_citations", {"ids": [pilot["citation_id"]]})
        record = resolved.structured_content["citations"]["records"][pilot["citation_id"]]
        assert record["url"] == "https://projects.worldbank.org/en/projects-operations/project-detail/P102479"
        # Its impact base is cited: each latest value resolves to the stored observation.
        impact = result["impact_base"][pilot["impact"]][0]
        again = await client.call_tool("resolve_citations", {"ids": [impact["citation_id"]]})
        assert again.structured_content["result"]["resolved"][0]["value"] == impact["value"]
        # The pilot's full sheet, by its slug.
        sheet = await client.call_tool("get_pilot", {"slug": pilot["slug"]})
        assert not sheet.is_error
        body = sheet.structured_content["result"]
        assert body["project"]["citation_id"] == pilot["citation_id"]
        assert body["economics"]["commitment_usd"] == pilot.get("commitment_usd")
        assert body["economics"]["grant_usd"] == pilot.get("grant_usd")
        assert all(other["slug"] != pilot["slug"] for other in body["bankability"]["similar"])


def test_find_pilots_over_the_mcp_client(http_url):
    asyncio.run(pilots_session(http_url))
