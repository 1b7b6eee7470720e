#!/usr/bin/env python3
"""Behaviour probe: every answer of a fixed set of MCP requests, for a before/after comparison of a change
that must not change behaviour (issue 23's redesign, say).

Runs SERVER_BIN over stdio against a baked corpus and writes one JSON line per request (its id, the request
and the server's full answer), in request order, to OUT. Two runs of the same binary on the same corpus give
identical files; compare two builds with `cmp before.jsonl after.jsonl` (or `diff`).

The requests: initialize and the list methods, every call of bench/tools.jsonl, the calls of
../shared/tools/answer_sizes.py and of the end-to-end tests (one per tool), and the curated datasets through
every tool that reads them (pages, filters, citation ids of each prefix, searches), plus refusals (unknown
dataset, malformed ids, capped arguments).

usage: probe.py SERVER_BIN CORPUS_DIR OUT
"""
import json, pathlib, subprocess, sys

HERE = pathlib.Path(__file__).resolve().parent

ANSWER_SIZES = [
    ("get_series", {"parameter": "salud", "indicator": "sp_dyn_le00_in", "countries": ["MEX", "BRA", "ARG"]}),
    ("get_series", {"parameter": "educacion", "indicator": "se_prm_cmpt_zs", "countries": ["COL", "PER", "CHL", "BOL", "ECU"]}),
    ("compare_countries", {"parameter": "salud", "countries": ["ARG", "CHL", "URY", "PRY"]}),
    ("get_parameter_data", {"parameter": "educacion", "country": "MEX"}),
    ("get_regional_pulse", {"parameter": "empleo"}),
    ("compute", {"op": "rank", "parameter": "salud", "indicator": "sp_dyn_le00_in"}),
    ("get_discoveries", {"limit": 10}),
    ("get_data_health", {"parameter": "salud", "country": "BRA"}),
]
E2E = [
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
]
CURATED = ["projects", "regulation", "institutions", "financing", "events"]
RECORD_IDS = [
    "wbproj-p127837", "gef-10450", "cclw-arg-law-25-019-declaring-a-national-interest-to", "nso-ar-nso-indec",
    "govdir-q9149472", "wbagency-arg-national-ministry-of-health", "crsflow-bol-germany-oda-grants-energy",
    "wbinstrument-bol-ipf-energia", "geffund-bol-gef-trust-fund-medio-ambiente", "event-wbproj-p127837-approved",
    "ncei_eq-2016-04-16-ecu", "wbproj-p000000", "cclw-nope", "event-nope", "nso-nope", "crsflow-nope",
]
EXTRA = (
    [("get_dataset", {"dataset_id": name}) for name in CURATED]
    + [("get_dataset", {"dataset_id": name, "country": "BOL", "limit": 5}) for name in CURATED]
    + [("get_dataset", {"dataset_id": name, "offset": 3, "limit": 2}) for name in CURATED]
    + [("get_dataset", {"dataset_id": "projects", "id": "P127837"}), ("get_dataset", {"dataset_id": "projects", "id": "127837"}),
       ("get_dataset", {"dataset_id": "institutions", "id": "nso-ar-nso-indec"}),
       ("get_dataset", {"dataset_id": "nope"}), ("get_dataset", {"dataset_id": "citations"}),
       ("get_dataset", {"dataset_id": "metrics", "limit": 3}), ("get_dataset", {"dataset_id": "sources"}),
       ("get_dataset", {"dataset_id": "PROJECTS", "limit": 2})]
    + [("search_corpus", {"query": "agua", "datasets": [name]}) for name in CURATED]
    + [("search_corpus", {"query": "climate", "datasets": ["metrics"], "country": "COL"}),
       ("search_corpus", {"query": "ley", "datasets": ["nope"]}), ("search_corpus", {"query": "earthquake"})]
    + [("resolve_citations", {"ids": RECORD_IDS}), ("resolve_citations", {"ids": ["foo-bar", "pulse-1", "wb-x-mex-+2024"]})]
    + [("resolve_metric", {"query": q}) for q in ["earthquake deaths", "climate adaptation finance received", "leyes de cambio climático", "instituciones públicas", "donantes"]]
    + [("get_news", {"parameter": "economia", "country": "COL", "kind": "law_passed"}), ("get_news", {"country": "MEX"}),
       ("get_news", {"parameter": "salud", "country": "ECU", "lang": "en"})]
    + [("find_pilots", {"query": "agua potable", "country": "PER", "lang": "en"}), ("find_pilots", {"query": "the of and"}),
       ("get_pilot", {"slug": "wbproj-p102479", "lang": "pt"}), ("get_pilot", {"slug": "gef-10450"}), ("get_pilot", {"slug": "nope"}),
       ("recommend_action", {"country": "GTM", "pillar": "educacion", "lang": "en"}), ("recommend_action", {"country": "BOL", "pillar": "energia"})]
    + [("compute", {"op": op, "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "PER", "from_year": 2005, "to_year": 2019})
       for op in ["change", "cagr", "rank_change", "explain_change", "gap_to_frontier", "forecast", "nope"]]
    + [("get_series", {"indicator": "x" * 200, "countries": ["MEX"]}), ("get_series", {"indicator": "sp dyn", "countries": ["MEX"]}),
       ("search_corpus", {"query": "a" * 600}), ("get_series", {"indicator": "sp_dyn_le00_in", "countries": ["MEX"], "lang": "pt"}),
       ("no_such_tool", {}), ("get_chart_data", {"tool": "compare_countries", "arguments": {"parameter": "salud", "countries": ["CHL", "PER"]}})]
)

def main():
    server, corpus_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
    requests = [
        {"method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}},
        {"method": "tools/list"}, {"method": "resources/list"}, {"method": "resources/templates/list"}, {"method": "prompts/list"},
        {"method": "ping"}, {"method": "nope/method"},
    ]
    bench_calls = [json.loads(line) for line in (HERE / "tools.jsonl").read_text().splitlines() if line.strip()]
    calls = [(c["name"], c["arguments"]) for c in bench_calls] + ANSWER_SIZES + E2E + EXTRA
    requests += [{"method": "tools/call", "params": {"name": name, "arguments": arguments}} for name, arguments in calls]
    lines = []
    for number, request in enumerate(requests, 1):
        lines.append(json.dumps({"jsonrpc": "2.0", "id": number, **request}))
    completed = subprocess.run([server, "--stdio", "--corpus-dir", corpus_dir], input="\n".join(lines) + "\n",
                               capture_output=True, text=True, timeout=600)
    answers = {}
    for line in completed.stdout.splitlines():
        if line.strip():
            message = json.loads(line)
            answers[message.get("id")] = line
    with open(out, "w") as handle:
        for number, request in enumerate(requests, 1):
            handle.write(json.dumps({"id": number, "request": request}, ensure_ascii=False) + "\n")
            handle.write(answers.get(number, "null") + "\n")
    missing = [n for n in range(1, len(requests) + 1) if n not in answers]
    print(f"{len(requests)} requests, {len(requests) - len(missing)} answered" + (f"; unanswered ids: {missing}" if missing else ""))
    sys.exit(1 if missing else 0)

main()
