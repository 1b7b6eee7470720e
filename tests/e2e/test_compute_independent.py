"""`compute` checked against calculations done independently from the raw source files with scipy.

The raw WDI files are read in place (../shared/data/sources or CORPUS_SOURCES_DIR); the server answers over
stdio through the official Python MCP client.
"""

import asyncio
import csv
import json
import math
import os
from pathlib import Path

from mcp import Client, StdioServerParameters
from scipy import stats

SERVER_BIN = os.environ["SERVER_BIN"]
CORPUS_OUT_DIR = os.environ["CORPUS_OUT_DIR"]
SOURCES = Path(os.environ.get("CORPUS_SOURCES_DIR", Path(__file__).resolve().parents[3] / "shared" / "data" / "sources"))
AGGREGATES = {"LCN", "LAC", "TLA", "CSS", "WLD"}


def raw_wdi(code):
    """{(iso3, year): value} of one WDI indicator, countries only, read from its raw CSV."""
    path = SOURCES / "wdi" / "indicators" / code.lower() / "data.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        return {
            (row["Country Code"], int(row["Year"])): float(row["Value"])
            for row in csv.DictReader(handle)
            if row["Country Code"] not in AGGREGATES
        }


def compute(arguments):
    async def run():
        async with Client(StdioServerParameters(command=SERVER_BIN, args=["--stdio", "--corpus-dir", CORPUS_OUT_DIR])) as client:
            result = await client.call_tool("compute", arguments)
            assert not result.is_error, result.content[0].text
            return json.loads(result.content[0].text)

    return asyncio.run(run())


def test_correlation_and_p_value_match_scipy():
    life, mortality = raw_wdi("SP.DYN.LE00.IN"), raw_wdi("SH.DYN.MORT")
    pairs = sorted((life[key], mortality[key]) for key in life if key[1] == 2020 and key in mortality)
    expected = stats.pearsonr([pair[0] for pair in pairs], [pair[1] for pair in pairs])
    answer = compute({"op": "correlation", "parameter": "salud", "indicator": "sp_dyn_le00_in", "indicator_b": "sh_dyn_mort", "year": 2020})
    correlation = answer["result"]["correlation"]
    assert correlation["n"] == len(pairs)
    assert math.isclose(correlation["r"], expected.statistic, rel_tol=1e-9)
    assert math.isclose(correlation["p_value"], expected.pvalue, rel_tol=1e-6, abs_tol=1e-15)


def test_forecast_matches_an_ordinary_least_squares_fit():
    life = raw_wdi("SP.DYN.LE00.IN")
    points = sorted((year, value) for (country, year), value in life.items() if country == "CHL" and year >= 2000)
    years = [year for year, _ in points]
    values = [value for _, value in points]
    fit = stats.linregress(years, values)
    n = len(points)
    mean_year = sum(years) / n
    sxx = sum((year - mean_year) ** 2 for year in years)
    residual = math.sqrt(sum((value - (fit.intercept + fit.slope * year)) ** 2 for year, value in points) / (n - 2))
    half_width = stats.t.ppf(0.975, n - 2) * residual * math.sqrt(1 + 1 / n + (2030 - mean_year) ** 2 / sxx)
    expected = fit.intercept + fit.slope * 2030
    forecast = compute({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "CHL", "from_year": 2000, "to_year": 2030})["result"]["forecast"]
    assert forecast["n"] == n
    assert math.isclose(forecast["slope"], fit.slope, rel_tol=1e-9)
    assert math.isclose(forecast["value"], expected, rel_tol=1e-9)
    assert math.isclose(forecast["upper"] - forecast["value"], half_width, rel_tol=1e-6)


def test_change_cagr_rank_and_gap_from_the_raw_cells():
    gdp = raw_wdi("NY.GDP.PCAP.CD")
    cagr = compute({"op": "cagr", "parameter": "economia", "indicator": "ny_gdp_pcap_cd", "country": "BRA", "from_year": 2015, "to_year": 2025})["result"]["cagr"]
    assert math.isclose(cagr, (gdp[("BRA", 2025)] / gdp[("BRA", 2015)]) ** 0.1 - 1, rel_tol=1e-12)
    life = raw_wdi("SP.DYN.LE00.IN")
    change = compute({"op": "change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": 2010, "to_year": 2024})["result"]
    assert math.isclose(change["absolute_change"], life[("MEX", 2024)] - life[("MEX", 2010)], rel_tol=1e-12)
    gini = raw_wdi("SI.POV.GINI")
    ranked = compute({"op": "rank", "parameter": "pobreza", "indicator": "si_pov_gini", "year": 2024, "order": "asc"})["result"]["ranking"]["ranked"]
    expected_order = sorted((value, country) for (country, year), value in gini.items() if year == 2024)
    assert [cell["country"] for cell in ranked] == [country for _, country in expected_order]
    gap = compute({"op": "gap_to_frontier", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "BOL", "year": 2024})["result"]["gap"]
    # The frontier is the best of the sovereign countries (territories are not ranked unless asked for).
    with open(SOURCES / "country_names" / "latam_country_names.csv", newline="", encoding="utf-8") as names:
        sovereign = {row["iso3"] for row in csv.DictReader(names) if row["is_independent"] == "Yes"}
    best = max(value for (country, year), value in life.items() if year == 2024 and country in sovereign)
    assert math.isclose(gap["absolute_gap"], best - life[("BOL", 2024)], rel_tol=1e-12)


def test_explain_change_sets_raw_changes_beside_correlations_recomputed_with_scipy():
    answer = compute({"op": "explain_change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": 2010, "to_year": 2020})
    result, citations = answer["result"], answer["citations"]
    life = raw_wdi("SP.DYN.LE00.IN")
    assert math.isclose(result["absolute_change"], life[("MEX", 2020)] - life[("MEX", 2010)], rel_tol=1e-12)
    assert result["associated"], "life expectancy has correlated indicators in salud"
    for associated in result["associated"]:
        earlier, later = (citations["series"][citation_id.rsplit("-", 1)[0]] for citation_id in associated["citation_ids"])
        indicator = citations["indicators"][earlier["indicator"]]
        assert indicator["source"] == "wdi", indicator
        other = raw_wdi(indicator["code"])
        assert math.isclose(associated["change"], other[("MEX", 2020)] - other[("MEX", 2010)], rel_tol=1e-12, abs_tol=1e-12)
        year = associated["correlation_year"]
        shared = sorted(country for (country, at) in life if at == year and (country, year) in other)
        r, _ = stats.pearsonr([life[(country, year)] for country in shared], [other[(country, year)] for country in shared])
        assert math.isclose(associated["r"], r, rel_tol=1e-9), (associated["indicator"], associated["r"], r)
