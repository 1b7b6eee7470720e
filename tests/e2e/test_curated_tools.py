"""The curated tools end to end: `find_pilots`, `get_pilot`, `recommend_action` and `get_news`, driven through
the official Python MCP client (PyPI `mcp`) over Streamable HTTP, and `resolve_citations` resolving the ids they
return.

Run by `just e2e`, like the other end-to-end tests: CORPUS_OUT_DIR is the baked default corpus and SERVER_BIN
the debug server. Every value is checked against the raw files in ../shared/data/sources (or
CORPUS_SOURCES_DIR), read here with pandas: the World Bank project exports, Climate Change Laws of the World,
the NOAA NCEI significant earthquakes, WDI and the OECD CRS extracts. Every answer is also validated against
its tool's outputSchema from tools/list (with `jsonschema`, a dependency of `mcp`).
"""

import asyncio
import functools
import html
import json
import math
import os
import pathlib
import re

import numpy
import pandas
import pytest
from mcp import Client

try:
    import jsonschema
except ImportError:  # pragma: no cover - `mcp` depends on it
    jsonschema = None

REPO = pathlib.Path(__file__).resolve().parents[2]
SOURCES = pathlib.Path(os.environ.get("CORPUS_SOURCES_DIR", REPO.parent / "shared" / "data" / "sources"))
CURATED = ("find_pilots", "get_pilot", "recommend_action", "get_news")
NEWER_EXPORT, OLDER_EXPORT = "2025-03-31", "2024-08-29"


@pytest.fixture(scope="module", autouse=True)
def rate_limit_for_this_module():
    """The server of this module (conftest's `base_url`, started after this autouse fixture) allows 1,000 MCP
    messages a minute per client instead of the default 60: the module opens a session per test and sends
    well over 60 messages within a few seconds from the one loopback client."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_RATE_LIMIT", "1000")
        yield


# --- The raw files -----------------------------------------------------------------------------------------


@functools.cache
def wb_projects(export):
    """One World Bank Projects & Operations export (LAC), by P-code, every cell as text ('' when empty)."""
    path = SOURCES / "wb_projects" / f"wb_projects_lac_{export}.csv"
    return pandas.read_csv(path, dtype=str, keep_default_na=False).set_index("project_id")


# The fields the bake reads from the older export when the newer leaves them blank (an amount of 0 is blank).
FILLED_FROM_OLDER = (
    "project_cost_usd",
    "ibrd_commitment_usd",
    "ida_commitment_usd",
    "total_ibrd_ida_commitment_usd",
    "grant_amount_usd",
    "board_approval_date",
    "closing_date",
    "borrower",
    "implementing_agency",
    "env_assessment_category",
    "env_social_risk_rating",
    "lending_instrument",
    "lending_instrument_family",
    "financing_type",
    "project_development_objective",
)


def raw_project(code, export=NEWER_EXPORT):
    """The row of a project (P-code, any case) in an export; for the newer export, with each field of
    FILLED_FROM_OLDER it leaves blank taken from the older export (the amounts only when it reports none), as
    the README says the bake merges them."""
    row = wb_projects(export).loc[code.upper()].copy()
    older = wb_projects(OLDER_EXPORT)
    if export == NEWER_EXPORT and code.upper() in older.index:

        def blank(column, cell):
            return not cell or (column.endswith("_usd") and float(cell) == 0)

        # The amounts go together: taken only when the newer export reports none of them.
        amounts = [column for column in FILLED_FROM_OLDER if column.endswith("_usd")]
        no_amount = all(blank(column, row[column]) for column in amounts)
        for column in FILLED_FROM_OLDER:
            if column in amounts and not no_amount:
                continue
            if blank(column, row[column]) and not blank(column, older.loc[code.upper()][column]):
                row[column] = older.loc[code.upper()][column]
    return row


def amount(cell):
    """A US$ cell of the exports: 0 or empty means not reported (the README), so None."""
    return float(cell) if cell and float(cell) > 0 else None


def raw_commitment(row):
    """The World Bank's lending commitment of a project row: the IBRD loan plus the IDA credit (the newer
    export's total adds the grant, which the README keeps apart); None when neither is reported."""
    ibrd, ida = amount(row["ibrd_commitment_usd"]), amount(row["ida_commitment_usd"])
    return None if ibrd is None and ida is None else (ibrd or 0) + (ida or 0)


def raw_financed(row):
    """The World Bank's money in a project row: its lending commitment plus its grant, None when neither."""
    commitment, grant = raw_commitment(row), amount(row["grant_amount_usd"])
    return None if commitment is None and grant is None else (commitment or 0) + (grant or 0)


def collapse(text):
    """Text with its HTML entities decoded (`&rsquo;`, as the bake decodes them) and its runs of whitespace
    (the exports' line breaks and tabs) as single spaces."""
    return " ".join(html.unescape(text).split())


@functools.cache
def lac_codes():
    """The 52 ISO3 codes of Latin America and the Caribbean."""
    return frozenset(pandas.read_csv(SOURCES / "country_names" / "latam_country_names.csv").iso3)


@functools.cache
def sovereign_codes():
    """The 33 sovereign countries of Latin America and the Caribbean (`is_independent` Yes): the ones
    frontiers and ranks are drawn from unless territories are asked for."""
    names = pandas.read_csv(SOURCES / "country_names" / "latam_country_names.csv")
    return frozenset(names[names.is_independent == "Yes"].iso3)


@functools.cache
def wdi(code):
    """{(iso3, year): value} of one WDI indicator (code as published, e.g. EG.ELC.ACCS.ZS), LAC countries only."""
    frame = pandas.read_csv(SOURCES / "wdi" / "indicators" / code.lower() / "data.csv")
    frame = frame[frame["Country Code"].isin(lac_codes())]
    return {(row["Country Code"], int(row["Year"])): float(row["Value"]) for _, row in frame.iterrows()}


def raw_trend(code, iso3, year):
    """The least-squares slope per year of a WDI series over the 10 years to `year`."""
    points = [(y, value) for (country, y), value in wdi(code).items() if country == iso3 and year - 9 <= y <= year]
    years, values = zip(*sorted(points))
    return numpy.polyfit(years, values, 1)[0]


@functools.cache
def crs_all():
    """The OECD CRS disbursements by recipient x flow type x year (all flows)."""
    return pandas.read_csv(SOURCES / "oecd_crs_climate_finance" / "oecd_crs_all_disbursements_by_flowtype_lac.csv")


@functools.cache
def crs_climate():
    """The OECD CRS climate-related disbursements by recipient x donor x flow x sector group x year."""
    return pandas.read_csv(SOURCES / "oecd_crs_climate_finance" / "oecd_crs_climate_related_disbursements_lac.csv")


CRS_FLOWS = {
    "ODA_GRANTS": "ODA Grants",
    "ODA_LOANS": "ODA Loans",
    "OOF": "Other Official Flows (non Export Credit)",
    "PRIVATE_DEV": "Private Development Finance",
    "PSI": "Private Sector Instruments (PSI)",
    "EQUITY": "Equity Investment",
}
CRS_SECTORS = {"ENERGY": "Energy", "HEALTH": "Health"}


def raw_cell(citations, citation_id):
    """The raw value of a cited observation (`<series id>-<year>`), found through the answer's own series and
    indicator records; None for a source this test does not read."""
    series_id, year = citation_id.rsplit("-", 1)
    series = citations["series"][series_id]
    indicator = citations["indicators"][series["indicator"]]
    source, code, iso3, year = indicator["source"], indicator["code"], series["country"], int(year)
    if source == "wdi":
        return wdi(code)[(iso3, year)]
    if source == "oecd_crs_all":
        rows = crs_all()[(crs_all().iso3 == iso3) & (crs_all().year == year)]
        flow = code.removeprefix("CRS.ALL.")
        if flow != "TOTAL":
            rows = rows[rows.flow_name == CRS_FLOWS[flow]]
        return rows.usd_disbursement_mn_current.sum()
    if source == "oecd_crs_climate_sector" and code.removeprefix("CRS.CLIMATE.SECTOR.") in CRS_SECTORS:
        rows = crs_climate()
        rows = rows[
            (rows.iso3 == iso3)
            & (rows.year == year)
            & (rows.sector_group == CRS_SECTORS[code.removeprefix("CRS.CLIMATE.SECTOR.")])
        ]
        return rows.usd_disbursement_mn_current.sum()
    return None


@functools.cache
def laws():
    """Climate Change Laws of the World, LAC records (export of 2021-01-30)."""
    path = SOURCES / "cclw_climate_laws" / "cclw_laws_policies_lac_2021-01-30.csv"
    return pandas.read_csv(path, dtype=str, keep_default_na=False)


@functools.cache
def earthquakes():
    """The NOAA NCEI significant earthquakes of LAC, with `codes` (the iso3 list) and `date` (YYYY-MM-DD when
    month and day are known) added."""
    path = SOURCES / "noaa_significant_earthquakes" / "ncei_significant_earthquakes_lac_to2023-06.csv"
    frame = pandas.read_csv(path)
    frame["codes"] = frame.iso3.fillna("").str.split("|")

    def date(row):
        if pandas.isna(row.Mo) or pandas.isna(row.Dy):
            return f"{int(row.Year):04}"
        return f"{int(row.Year):04}-{int(row.Mo):02}-{int(row.Dy):02}"

    frame["date"] = frame.apply(date, axis=1)
    return frame


def quake_id(row):
    """The citation id the corpus gives an earthquake row: date and sorted country codes."""
    return f"ncei_eq-{row.date}-{'-'.join(sorted(row.codes)).lower()}"


def number(value):
    """A raw numeric cell as float, None when empty."""
    return None if pandas.isna(value) else float(value)


def close(left, right, digits=4):
    """Whether two numbers agree to `digits` significant digits (the tools round slopes and sums so)."""
    return math.isclose(left, right, rel_tol=10 ** (1 - digits) / 2, abs_tol=1e-12)


# --- The MCP session ---------------------------------------------------------------------------------------


def validate(schema, body):
    """Validates an answer against a tool's outputSchema (the JSON Schema dialect it declares, else 2020-12,
    which its `prefixItems` need)."""
    if jsonschema is None:
        return
    validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator.check_schema(schema)
    validator(schema).validate(body)


class Session:
    """One session of the official client, with the tools as listed by tools/list."""

    def __init__(self, client, tools):
        self.client = client
        self.tools = tools

    async def call(self, name, arguments, error=False):
        """structuredContent of a tool call, checked: the error flag as expected, the text block the same
        JSON, and the outputSchema of tools/list satisfied."""
        result = await self.client.call_tool(name, arguments)
        body = result.structured_content
        assert result.is_error == error, f"{name}({arguments}): {body}"
        assert json.loads(result.content[0].text) == body
        validate(self.tools[name].output_schema, body)
        return body

    async def resolve(self, ids):
        """resolve_citations over `ids` (in batches of its 50 at most), all of which must resolve: the merged
        result (`resolved` cells, `records` ids) and citations."""
        ids = sorted(set(ids))
        merged = {"resolved": [], "records": [], "citations": {"series": {}, "indicators": {}, "records": {}}}
        for start in range(0, len(ids), 50):
            body = await self.call("resolve_citations", {"ids": ids[start : start + 50]})
            assert body["result"]["unresolved"] == []
            merged["resolved"] += body["result"]["resolved"]
            merged["records"] += body["result"]["records"]
            for part in merged["citations"]:
                merged["citations"][part].update(body["citations"].get(part, {}))
        assert sorted([cell["citation_id"] for cell in merged["resolved"]] + merged["records"]) == ids
        return merged


def run(http_url, scenario):
    """Runs `scenario(session)` in one session of the official client over Streamable HTTP. A failed check is
    raised once the session is closed, so that pytest shows it rather than the client's task-group wrapper."""

    async def main():
        async with Client(http_url) as client:
            listed = await client.list_tools()
            try:
                await scenario(Session(client, {tool.name: tool for tool in listed.tools}))
            except Exception as failure:  # noqa: BLE001 - re-raised below, outside the client's task group
                return failure
        return None

    failure = asyncio.run(main())
    if failure is not None:
        raise failure


# --- tools/list --------------------------------------------------------------------------------------------


def test_tools_list_has_fifteen_tools_with_the_curated_four_and_their_contracts(http_url):
    """tools/list lists exactly the seed's 15 tools and the MCP-only verify_claims, search and fetch, among them the four
    curated ones and resolve_citations, each with a valid JSON Schema as outputSchema and the required
    arguments its description promises."""

    async def scenario(session):
        listed = await session.client.list_tools()
        assert listed.next_cursor is None
        names = [tool.name for tool in listed.tools]
        assert len(names) == len(set(names)) == 18
        assert names[15:] == ["verify_claims", "search", "fetch"]
        assert set(CURATED) | {"resolve_citations"} <= set(names)
        required = {"find_pilots": [], "get_pilot": ["slug"], "recommend_action": ["country", "pillar"]}
        required["get_news"] = ["parameter", "country"]
        for name, fields in required.items():
            tool = session.tools[name]
            assert sorted(tool.input_schema.get("required", [])) == sorted(fields), name
            assert tool.output_schema["required"] == ["result", "citations"]
            if jsonschema is not None:
                jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        assert session.tools["get_news"].input_schema["properties"]["limit"]["maximum"] == 20
        assert session.tools["find_pilots"].input_schema["properties"]["limit"]["maximum"] == 25

    run(http_url, scenario)


def test_output_schemas_reject_a_malformed_answer(http_url):
    """The schema checks of this file can fail: a real find_pilots answer validates, and the same answer with a
    count as text, or a citation record field as a number, does not."""
    pytest.importorskip("jsonschema")

    async def scenario(session):
        body = await session.call("find_pilots", {"country": "BOL", "parameter": "energia", "query": "electricity"})
        schema = session.tools["find_pilots"].output_schema
        broken = json.loads(json.dumps(body))
        broken["result"]["total"] = "two"
        with pytest.raises(jsonschema.ValidationError):
            validate(schema, broken)
        broken = json.loads(json.dumps(body))
        broken["citations"]["records"]["wbproj-p102479"]["title"] = 5175000
        with pytest.raises(jsonschema.ValidationError):
            validate(schema, broken)

    run(http_url, scenario)


# --- get_pilot ---------------------------------------------------------------------------------------------


def test_get_pilot_p102479_is_the_newer_export_row(http_url):
    """get_pilot(slug="p102479") is the Bolivian decentralized electricity project as the 2025-03-31 export
    has it: title, country, dates, status, cost and commitment (5,175,000 US$, a grant), instrument and
    environmental category; sectors from the 2024-08-29 export; the objective is the export's PDO; the
    project and its similar projects are cited records that resolve, and the similar ones are Bolivian
    projects as exported; every cited indicator value is the raw WDI/CRS value."""

    async def scenario(session):
        body = await session.call("get_pilot", {"slug": "p102479"})
        sheet, citations = body["result"], body["citations"]
        row, older = raw_project("P102479"), raw_project("P102479", OLDER_EXPORT)
        project = sheet["project"]
        assert project["title"] == row["project_name"] == "Bolivia Decentralized Electricity for Universal Access"
        assert (project["slug"], project["country"], project["citation_id"]) == ("p102479", "BOL", "wbproj-p102479")
        assert project["url"] == row["url"]
        assert project["objective"] == collapse(row["project_development_objective"])
        assert project["sectors"] == [older["sector1"], older["sector2"]] == ["Power", "Renewable energy"]
        assert "energia" in project["pillars"]

        economics = sheet["economics"]
        assert economics["cost_usd"] == amount(row["project_cost_usd"]) == 5_175_000
        # A pure grant: no lending commitment (the export's total of 5,175,000 is the grant).
        assert economics["commitment_usd"] is None and raw_commitment(row) is None
        assert economics["grant_usd"] == amount(row["grant_amount_usd"]) == 5_175_000
        bankability = sheet["bankability"]
        assert (bankability["status"], bankability["maturity"]) == (row["status"], "closed")
        assert bankability["approval_date"] == row["board_approval_date"] == "2007-07-02"
        assert bankability["closing_date"] == row["closing_date"] == "2013-06-30"
        financing = sheet["financing"]
        assert financing["financing_type"] == row["financing_type"] == "Grants"
        assert financing["lending_instrument"] == row["lending_instrument"]
        assert financing["instrument_family"] == row["lending_instrument_family"] == "IPF"
        assert sheet["risks"]["environmental_category"] == row["env_assessment_category"] == "B"

        record = citations["records"]["wbproj-p102479"]
        assert (record["title"], record["url"]) == (row["project_name"], row["url"])
        assert (record["publisher"], record["license"], record["retrieved_at"]) == (
            "The World Bank", "CC-BY-4.0", NEWER_EXPORT,
        )

        similar = bankability["similar"]
        assert similar and "p102479" not in [entry["slug"] for entry in similar]
        for entry in similar:
            other = raw_project(entry["slug"])
            assert other["iso3"] == "BOL"
            assert (entry["title"], entry["status"]) == (other["project_name"], other["status"])
            assert entry["approval_date"] == other["board_approval_date"]
            assert entry["citation_id"] == f"wbproj-{entry['slug']}" and entry["citation_id"] in citations["records"]
        # Similar projects share a pillar with the project (the most shared sectors and pillars first).
        assert all(entry["slug"] != "p102479" for entry in similar)

        values = sheet["risks"]["worsening"] + financing["crs_flows"]
        checked = 0
        for value in values:
            assert value["citation_id"].rsplit("-", 1)[1] == str(value["year"])
            raw = raw_cell(citations, value["citation_id"])
            if raw is not None:
                assert close(value["value"], raw, 9), value
                checked += 1
        assert checked >= 2
        # Bolivia's renewable share falls over the decade, but a share that counts traditional biomass has
        # no good direction (ambiguous): it is no worsening risk.
        assert raw_trend("EG.FEC.RNEW.ZS", "BOL", 2021) < 0
        assert all(value["indicator"] != "eg_fec_rnew_zs" for value in sheet["risks"]["worsening"])

        ids = [project["citation_id"]] + [entry["citation_id"] for entry in similar] + [v["citation_id"] for v in values]
        resolved = await session.resolve(ids)
        assert resolved["citations"]["records"]["wbproj-p102479"] == record
        for cell in resolved["resolved"]:
            expected = next(value for value in values if value["citation_id"] == cell["citation_id"])
            assert (cell["year"], cell["value"]) == (expected["year"], expected["value"])

        # The P-code in upper case is the same sheet.
        assert await session.call("get_pilot", {"slug": "P102479"}) == body

    run(http_url, scenario)


def test_get_pilot_other_financing_is_cost_less_the_world_banks_share(http_url):
    """For P073367 (cost 22.4 M, IDA 20 M, no grant in the newer export), get_pilot's economics are the
    export's cost and commitment, no grant, and other financing = cost - commitment = 2.4 M US$."""

    async def scenario(session):
        economics = (await session.call("get_pilot", {"slug": "p073367"}))["result"]["economics"]
        row = raw_project("P073367")
        cost, commitment = amount(row["project_cost_usd"]), raw_commitment(row)
        assert (economics["cost_usd"], economics["commitment_usd"]) == (cost, commitment) == (22_400_000, 20_000_000)
        assert economics["grant_usd"] is None and amount(row["grant_amount_usd"]) is None
        assert economics["other_financing_usd"] == cost - commitment == 2_400_000

    run(http_url, scenario)


def test_get_pilot_unknown_slug_is_a_tool_error_naming_it(http_url):
    """A P-code the exports do not hold is a tool error (isError) that names the slug and points to find_pilots."""

    async def scenario(session):
        assert "P999999" not in wb_projects(NEWER_EXPORT).index
        body = await session.call("get_pilot", {"slug": "p999999"}, error=True)
        assert "p999999" in body["result"]["error"] and "find_pilots" in body["result"]["error"]

    run(http_url, scenario)


# --- find_pilots -------------------------------------------------------------------------------------------


def test_find_pilots_bolivian_electricity_projects_match_the_export_and_cite_their_impact_base(http_url):
    """find_pilots(country="BOL", parameter="energia", query="electricity") returns Bolivian energy projects
    whose title or objective speaks of electricity, p102479 first; each pilot's title, capex, commitment,
    approval date, status and link are the newer export's, its pitch the start of the export's objective;
    the impact base holds the pillar's cited indicator values for Bolivia, equal to the raw WDI/CRS values
    (and the 10-year trend of access to electricity to the raw slope); every id resolves."""

    async def scenario(session):
        body = await session.call("find_pilots", {"country": "BOL", "parameter": "energia", "query": "electricity"})
        result, citations = body["result"], body["citations"]
        pilots = result["pilots"]
        slugs = [pilot["slug"] for pilot in pilots]
        assert slugs[0] == "p102479" and "p073367" in slugs
        assert result["truncated"] is False and result["total"] == len(pilots)
        for pilot in pilots:
            row = raw_project(pilot["slug"])
            assert row["iso3"] == pilot["country"] == "BOL"
            assert "energia" in pilot["pillars"]
            assert "electric" in (row["project_name"] + row["project_development_objective"]).lower()
            assert pilot["title"] == row["project_name"]
            assert pilot.get("capex_usd") == amount(row["project_cost_usd"])
            assert pilot.get("commitment_usd") == raw_commitment(row)
            assert pilot["approval_date"] == row["board_approval_date"]
            assert pilot["maturity"] == row["status"].lower() and row["status"] != "Dropped"
            assert pilot["url"] == row["url"]
            objective = collapse(row["project_development_objective"])
            assert objective.startswith(pilot["pitch"].removesuffix("…")) and len(pilot["pitch"]) <= 221
            assert citations["records"][pilot["citation_id"]]["title"] == row["project_name"]
            assert pilot["impact"] == "BOL:energia"
        first = pilots[0]
        assert (first["capex_usd"], first.get("commitment_usd"), first["grant_usd"]) == (5_175_000, None, 5_175_000)

        impact = result["impact_base"]["BOL:energia"]
        assert impact
        for value in impact:
            series = citations["series"][value["citation_id"].rsplit("-", 1)[0]]
            assert (series["country"], series["indicator"]) == ("BOL", value["indicator"])
            raw = raw_cell(citations, value["citation_id"])
            assert raw is not None and close(value["value"], raw, 9), value
        access = next(value for value in impact if value["indicator"] == "eg_elc_accs_zs")
        assert (access["year"], access["value"]) == (2023, wdi("EG.ELC.ACCS.ZS")[("BOL", 2023)]) == (2023, 99.8)
        assert close(access["trend_slope"], raw_trend("EG.ELC.ACCS.ZS", "BOL", 2023), 6)

        resolved = await session.resolve([pilot["citation_id"] for pilot in pilots] + [v["citation_id"] for v in impact])
        assert set(resolved["records"]) == {pilot["citation_id"] for pilot in pilots}
        for cell in resolved["resolved"]:
            expected = next(value for value in impact if value["citation_id"] == cell["citation_id"])
            assert (cell["year"], cell["value"]) == (expected["year"], expected["value"])

    run(http_url, scenario)


def test_find_pilots_without_query_ranks_active_then_pipeline_then_closed_then_by_cost(http_url):
    """Without a query, find_pilots(country="BOL", parameter="energia") ranks by maturity, then cost (largest
    first); every pilot is a Bolivian project of the export that is not dropped, with its export values."""

    async def scenario(session):
        result = (await session.call("find_pilots", {"country": "BOL", "parameter": "energia", "limit": 25}))["result"]
        pilots = result["pilots"]
        assert pilots and result["total"] >= len(pilots)
        order = {"active": 0, "pipeline": 1, "closed": 2}
        # An amount the export does not report is left out of the pilot (None here).
        keys = [(order[pilot["maturity"]], -(pilot.get("capex_usd") or -1)) for pilot in pilots]
        assert keys == sorted(keys)
        for pilot in pilots:
            row = raw_project(pilot["slug"])
            assert row["iso3"] == "BOL" and row["status"] != "Dropped"
            assert (pilot["title"], pilot.get("capex_usd")) == (row["project_name"], amount(row["project_cost_usd"]))

    run(http_url, scenario)


# --- get_news ----------------------------------------------------------------------------------------------


def test_get_news_ecuador_earthquakes_are_the_ncei_rows_that_killed_or_injured(http_url):
    """get_news(parameter="salud", country="ECU", kind="earthquake", limit=20) counts every NCEI row naming
    Ecuador with deaths or injuries (NCEI totals, else the quake's own figures), shows the newest 20 newest first with the file's date,
    magnitude and deaths, among them ncei_eq-2016-04-16-ecu (M7.8, 663 deaths); every item is cited in
    citations.records and its id resolves with resolve_citations to the same record."""

    async def scenario(session):
        body = await session.call(
            "get_news", {"parameter": "salud", "country": "ECU", "kind": "earthquake", "limit": 20, "lang": "en"}
        )
        result, records = body["result"], body["citations"]["records"]
        quakes = earthquakes()
        deaths = quakes["Total Deaths"].fillna(quakes["Deaths"]).fillna(0)
        injuries = quakes["Total Injuries"].fillna(quakes["Injuries"]).fillna(0)
        hurt = quakes[
            quakes.codes.apply(lambda codes: "ECU" in codes) & ((deaths > 0) | (injuries > 0))
        ].sort_values("date", ascending=False)
        assert (result["country"], result["pillar"]) == ("ECU", "salud")
        assert result["total"] == len(hurt) == 30
        assert result["next_offset"] == 20
        items = result["items"]
        assert len(items) == 20
        assert [item["id"] for item in items] == [quake_id(row) for row in hurt.head(20).itertuples()]
        for item, (_, row) in zip(items, hurt.head(20).iterrows()):
            assert (item["kind"], item["date"]) == ("earthquake", row["date"])
            assert item.get("magnitude") == number(row["Mag"])
            toll = number(row["Total Deaths"])
            assert item.get("deaths") == (toll if toll is not None else number(row["Deaths"]))
            assert item["title"].startswith(f"M{row['Mag']:g} earthquake: ")
            if item.get("deaths") is not None:
                death = "death" if item["deaths"] == 1 else "deaths"
                assert f"{item['deaths']:,.0f} {death}" in item["why"]
            record = records[item["id"]]
            assert (record["title"], record["url"]) == (item["title"], item["url"])
            assert record["publisher"] == "NOAA National Centers for Environmental Information (NCEI)"
        assert set(records) == {item["id"] for item in items}

        manabi = next(item for item in items if item["id"] == "ncei_eq-2016-04-16-ecu")
        assert (manabi["date"], manabi["magnitude"], manabi["deaths"]) == ("2016-04-16", 7.8, 663)
        assert "6,274 injured" in manabi["why"] and "MANABI" in manabi["title"]

        resolved = await session.resolve([item["id"] for item in items])
        assert sorted(resolved["records"]) == sorted(item["id"] for item in items)
        for item in items:
            assert resolved["citations"]["records"][item["id"]] == records[item["id"]]

    run(http_url, scenario)


def test_get_news_counts_deaths_the_ncei_file_records_only_in_its_deaths_column(http_url):
    """The 1944-01-15 San Juan earthquake killed 8,000 people by the NCEI file's 'Deaths' column ('Total Deaths'
    is empty): get_news for Argentina's health news should list it with those deaths."""

    async def scenario(session):
        row = earthquakes()[(earthquakes().date == "1944-01-15") & (earthquakes().iso3 == "ARG")].iloc[0]
        assert (row["Deaths"], pandas.isna(row["Total Deaths"])) == (8000, True)
        result = (
            await session.call("get_news", {"parameter": "salud", "country": "ARG", "kind": "earthquake", "limit": 20})
        )["result"]
        san_juan = [item for item in result["items"] if item["id"] == "ncei_eq-1944-01-15-arg"]
        assert san_juan and san_juan[0]["deaths"] == 8000

    run(http_url, scenario)


def test_get_news_says_when_the_corpus_holds_nothing_and_lists_what_is_nearby(http_url):
    """get_news(parameter="genero", country="AIA") is total 0 and no item, with a note saying the corpus holds no
    event of the pillar there, and a non-empty `nearby` of the pillar elsewhere; the first nearby count and
    date agree with get_news for that country."""

    async def scenario(session):
        result = (await session.call("get_news", {"parameter": "genero", "country": "AIA", "lang": "en"}))["result"]
        assert (result["total"], result["items"]) == (0, [])
        assert "no event of the pillar genero in AIA" in result["note"]
        nearby = result["nearby"]
        assert nearby
        for entry in nearby:
            assert entry["events"] > 0
            assert entry["country"] == "AIA" or entry["pillar"] == "genero"
        first = next(entry for entry in nearby if entry["country"] != "AIA")
        there = (await session.call("get_news", {"parameter": first["pillar"], "country": first["country"], "limit": 20}))
        there = there["result"]
        assert there["total"] <= 20, "the comparison below needs every event on one page"
        assert there["total"] == first["events"]
        assert max(item["date"] for item in there["items"]) == first["newest"]

    run(http_url, scenario)


def test_get_news_law_events_carry_the_cclw_dates(http_url):
    """get_news(parameter="medio_ambiente", country="MEX", kind="law_passed") lists Mexican climate laws with the
    first event date of Climate Change Laws of the World, titled by the record's kind in the answer's language
    ("Ley aprobada"), each citing its law record (which, like the event, resolves); the amendments of a
    Brazilian energy law carry a later event of the export, with its published label in English."""

    async def scenario(session):
        # Every law of the country: a page of 20 (a default page stops within 10 KB).
        body = await session.call("get_news", {"parameter": "medio_ambiente", "country": "MEX", "kind": "law_passed", "limit": 20})
        items = body["result"]["items"]
        assert items and "General Law on Climate Change" in [re.sub(r"^[^:]+: | \(MEX\)$", "", i["title"]) for i in items]
        for item in items:
            label, title = re.fullmatch(r"([^:]+): (.*) \(MEX\)", item["title"]).groups()
            law = laws()[(laws().iso3 == "MEX") & (laws().title.map(collapse) == title)].iloc[0]
            assert law["type"] == "legislative" and item["kind"] == "law_passed" and label == "Ley aprobada"
            assert item["date"] == law["first_event_date"]
            assert law["events_parsed"].split("; ")[0].startswith(f"{item['date']} ")
            assert item["record_id"].startswith("cclw-mex-")
        climate = next(item for item in items if "General Law on Climate Change" in item["title"])
        assert climate["date"] == "2012-06-06"
        resolved = await session.resolve([item["id"] for item in items] + [item["record_id"] for item in items])
        assert resolved["citations"]["records"][climate["record_id"]]["title"] == "General Law on Climate Change"

        amended = await session.call(
            "get_news", {"parameter": "energia", "country": "BRA", "kind": "law_amended", "lang": "en"}
        )
        for item in amended["result"]["items"]:
            label, title = re.fullmatch(r"([^:]+): (.*) \(BRA\)", item["title"]).groups()
            # Titles as the bake reads them: runs of whitespace as one space.
            law = laws()[(laws().iso3 == "BRA") & (laws().title.map(collapse) == title)].iloc[0]
            later = law["events_parsed"].split("; ")[1:]
            assert f"{item['date']} {label}" in later

    run(http_url, scenario)


def test_get_news_project_approvals_carry_the_export_dates_and_amounts(http_url):
    """get_news(parameter="energia", country="BOL", kind="project_approved") lists approvals newest first, each
    with the export's board approval date, commitment and project name, citing the project record."""

    async def scenario(session):
        body = await session.call("get_news", {"parameter": "energia", "country": "BOL", "kind": "project_approved", "lang": "en"})
        items = body["result"]["items"]
        assert items and [item["date"] for item in items] == sorted((item["date"] for item in items), reverse=True)
        for item in items:
            code = item["record_id"].removeprefix("wbproj-")
            row = raw_project(code)
            assert item["id"] == f"event-wbproj-{code}-approved"
            assert item["date"] == row["board_approval_date"]
            assert item.get("amount_usd") == raw_financed(row)
            assert f"approved {code.upper()}: {row['project_name']}" in item["title"]
        p102479 = next(item for item in items if item["record_id"] == "wbproj-p102479")
        assert (p102479["date"], p102479["amount_usd"]) == ("2007-07-02", 5_175_000)
        await session.resolve([item["id"] for item in items] + [item["record_id"] for item in items])

    run(http_url, scenario)


def test_get_news_refuses_an_unknown_kind_listing_the_valid_ones(http_url):
    """An unknown `kind` is a tool error that lists the seven kinds get_news serves."""

    async def scenario(session):
        body = await session.call("get_news", {"parameter": "salud", "country": "ECU", "kind": "tsunami"}, error=True)
        error = body["result"]["error"]
        assert "tsunami" in error
        for kind in ["project_approved", "project_closed", "law_passed", "policy_adopted", "law_amended", "earthquake", "data_release"]:
            assert kind in error

    run(http_url, scenario)


# --- recommend_action --------------------------------------------------------------------------------------


def test_recommend_action_mexico_health_chain_is_cited_and_matches_the_raw_files(http_url):
    """recommend_action(country="MEX", pillar="salud"): each gap's two citation ids are real observations (Mexico's
    latest and the frontier's, the raw WDI values), its rank and count are Mexico's place among the sovereign
    LAC countries reporting that year, its worsening flag the sign of the raw 10-year slope; the projects are the
    export's; the CRS flows are the raw sums per donor; the instruments' projects are Mexican projects of that
    instrument; each institution's ask quotes the first gap; every project, financing and institution citation
    id is in citations.records, and all ids resolve."""

    async def scenario(session):
        body = await session.call("recommend_action", {"country": "MEX", "pillar": "salud"})
        result, citations = body["result"], body["citations"]
        assert (result["country"], result["pillar"]) == ("MEX", "salud")

        gaps = result["gaps"]
        assert 1 <= len(gaps) <= 3
        for gap in gaps:
            own, frontier = gap["citation_ids"]
            assert own.rsplit("-", 1)[1] == frontier.rsplit("-", 1)[1] == str(gap["year"])
            own_series = citations["series"][own.rsplit("-", 1)[0]]
            assert (own_series["country"], own_series["indicator"]) == ("MEX", gap["indicator"])
            assert citations["series"][frontier.rsplit("-", 1)[0]]["country"] == gap["frontier_country"]
            assert raw_cell(citations, own) == gap["value"]
            assert raw_cell(citations, frontier) == gap["frontier_value"]
            code = citations["indicators"][gap["indicator"]]["code"]
            # Frontier and rank among the sovereign countries reporting that year (territories are not ranked).
            section = {
                iso3: value
                for (iso3, year), value in wdi(code).items()
                if year == gap["year"] and iso3 in sovereign_codes()
            }
            up = gap["good_direction"] == "up"
            best = max(section.values()) if up else min(section.values())
            better = [value for value in section.values() if (value > gap["value"] if up else value < gap["value"])]
            assert gap["frontier_value"] == best and section[gap["frontier_country"]] == best
            assert (gap["rank"], gap["of"]) == (len(better) + 1, len(section))
            slope = raw_trend(code, "MEX", gap["year"])
            assert close(gap["trend_slope"], slope)
            # Worsening: against the good direction by at least 1 % of the value over the decade.
            material = abs(slope * 10) >= 0.01 * abs(gap["value"])
            assert gap["worsening"] == (material and (slope < 0 if up else slope > 0))
        beds = next(gap for gap in gaps if gap["indicator"] == "sh_med_beds_zs")
        assert (beds["year"], beds["value"], beds["frontier_country"], beds["frontier_value"]) == (2022, 1.01, "BRB", 6.27)

        records = citations["records"]
        for project in result["projects"]:
            row = raw_project(project["slug"])
            assert project["citation_id"] in records
            assert (project["title"], project["status"]) == (row["project_name"], row["status"])
            assert (project["country"], project["approval_date"]) == (row["iso3"], row["board_approval_date"])
            assert project.get("commitment_usd") == raw_commitment(row)
            assert project["elsewhere"] == (project["country"] != "MEX")
        if any(project["elsewhere"] for project in result["projects"]):
            assert any("elsewhere" in note for note in result["notes"])

        newer = wb_projects(NEWER_EXPORT)
        flows = crs_climate()
        for item in result["financing"]:
            assert item["citation_id"] in records
            if item["kind"] == "lending_instrument":
                # The item is the financing record of Mexico's health projects using the instrument: its sum
                # is over every project the record lists, which equal the raw export's commitments.
                record = (
                    await session.call("get_dataset", {"dataset_id": "financing", "id": item["citation_id"]})
                )["result"]["rows"][0]
                assert record["pillars"] == ["salud"] and record["country"] == "MEX"
                assert item["projects"] == record["projects"][: len(item["projects"])]
                assert item["projects_total"] == len(record["projects"])
                rows = pandas.DataFrame([raw_project(code) for code in record["projects"] if code in newer.index])
                assert set(rows.iso3) == {"MEX"} and "Dropped" not in set(rows.status)
                assert set(rows.lending_instrument_family) == {item["instrument"]}
                if len(rows) == len(record["projects"]):
                    assert close(item["committed_usd"], sum(raw_commitment(row) or 0 for _, row in rows.iterrows()), 9)
            if item["kind"] == "crs_flow":
                rows = flows[
                    (flows.iso3 == "MEX")
                    & (flows.donor_name == item["financier"])
                    & (flows.flow_name == item["instrument"])
                    & (flows.sector_group == item["sector"])
                ]
                assert close(item["total_constant_usd_mn"], rows.usd_disbursement_mn_constant.sum())
                assert item["years"] == [rows.year.min(), rows.year.max()]
        japan = next(item for item in result["financing"] if item.get("financier") == "Japan")
        assert (japan["sector"], japan["total_constant_usd_mn"], japan["years"]) == ("Health", 5.365, [2020, 2023])

        institutions = result["institutions"]
        assert institutions
        for institution in institutions:
            assert institution["citation_id"] in records
            assert records[institution["citation_id"]]["title"] == institution["name"]
            # Each ask quotes one of the gaps (the one the body's words name; the finance body and the statistics
            # office the weakest), or, for an implementer whose words name none, says so and asks about its project.
            quotes_a_gap = any(
                f"{gap['value']:.4g}" in institution["ask"] and gap["frontier_country"] in institution["ask"] for gap in gaps
            )
            names_none = "ningún indicador de las brechas nombra" in institution["ask"]
            assert quotes_a_gap or (names_none and institution.get("projects")), institution["ask"]
            # One record per body: the export's other spellings of it are its aliases.
            body = (await session.call("get_dataset", {"dataset_id": "institutions", "id": institution["citation_id"]}))["result"]["rows"][0]
            spellings = {institution["name"], *body.get("aliases", [])}
            for code in institution.get("projects", []):
                agencies = {raw_project(code, export)["implementing_agency"] for export in (NEWER_EXPORT, OLDER_EXPORT)}
                assert raw_project(code)["iso3"] == "MEX" and spellings & agencies
        roles = [institution["role"] for institution in institutions]
        assert roles.count("national_statistical_office") == 1 and roles[-1] == "national_statistical_office"

        cells = [cell for gap in gaps for cell in gap["citation_ids"]]
        resolved = await session.resolve(cells + list(records))
        assert set(resolved["records"]) == set(records)
        for cell in resolved["resolved"]:
            assert cell["value"] == raw_cell(citations, cell["citation_id"])

    run(http_url, scenario)


def test_recommend_action_refuses_a_country_outside_the_region(http_url):
    """A country the corpus does not know is a tool error that lists the valid ISO3 codes (MEX among them)."""

    async def scenario(session):
        body = await session.call("recommend_action", {"country": "Narnia", "pillar": "salud"}, error=True)
        assert "Narnia" in body["result"]["error"] and "MEX" in body["result"]["error"]

    run(http_url, scenario)
