"""Every chart the tools return is a valid Vega-Lite specification: checked against the official JSON schema
shipped in the npm package `vega-lite` (VEGA_LITE_SCHEMA, installed by `just e2e`)."""

import asyncio
import json
import os

from jsonschema import Draft7Validator
from mcp import Client, StdioServerParameters

SERVER_BIN = os.environ["SERVER_BIN"]
CORPUS_OUT_DIR = os.environ["CORPUS_OUT_DIR"]
SCHEMA_PATH = os.environ["VEGA_LITE_SCHEMA"]

CALLS = [
    ("get_parameter_data", {"parameter": "salud", "country": "MEX"}),
    ("get_regional_pulse", {"parameter": "educacion"}),
    ("compute", {"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "CHL", "from_year": 2000}),
    ("compute", {"op": "rank", "parameter": "pobreza", "indicator": "si_pov_gini", "year": 2024}),
    ("get_series", {"parameter": "seguridad", "indicator": "vc_ihr_psrc_p5", "countries": ["BRA", "URY"], "from_year": 2015}),
    ("compare_countries", {"parameter": "salud", "countries": ["CHL", "PER", "MEX"]}),
    # Observed, estimated and projected runs joined (IMF WEO), and a band of standard errors (WGI).
    ("get_series", {"indicator": "ngdp_rpch", "countries": ["ARG", "VEN"], "from_year": 2010}),
    ("get_series", {"indicator": "ge_est", "countries": ["MEX", "BRA"]}),
]


def test_every_chart_validates_against_the_official_vega_lite_schema():
    with open(SCHEMA_PATH, encoding="utf-8") as handle:
        validator = Draft7Validator(json.load(handle))

    async def charts():
        found = []
        async with Client(StdioServerParameters(command=SERVER_BIN, args=["--stdio", "--corpus-dir", CORPUS_OUT_DIR])) as client:
            for name, arguments in CALLS:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content[0].text
                assert "display" not in result.structured_content, "charts stay out of the model's context"
                display = result.meta["lac-corpus/display"]
                specs = display["charts"]
                assert specs, f"{name} returns a chart"
                for spec in specs:
                    # Named data draws a table of the same display: it exists and holds every folded column.
                    data_name = spec.get("data", {}).get("name")
                    if data_name is not None:
                        table = display["tables"][int(data_name.removeprefix("table:"))]
                        folded = next(step["fold"] for step in spec["transform"] if "fold" in step)
                        assert set(folded) <= set(table["columns"]), (name, folded, table["columns"])
                        assert table["rows"], (name, "the charted table has rows")
                found.extend((name, spec) for spec in specs)
        return found

    for name, spec in asyncio.run(charts()):
        errors = sorted(validator.iter_errors(spec), key=lambda error: list(error.path))
        assert not errors, f"{name}: {errors[0].message} at {list(errors[0].path)}"
