//! Integration tests of the MCP server, one binary: one module per tool (named after it) and one per
//! concern that spans tools.

/// The real corpus baked once into a temporary directory; request helpers.
mod support;

/// Every row of `../shared/cases/protocol.md` in this scope, over HTTP (router `oneshot`).
mod protocol;

/// P27 and P28 over stdio, through the real binary.
mod stdio;

/// Case D7 of `../shared/cases/data.md` (country normalisation), which is no one tool's; each tool's
/// own cases are in its file.
mod data_cases;

/// Every tool's successful result validates against its own `outputSchema`.
mod schemas;

/// `compute`: cases D4, D5, D6 and each op's statistics.
mod compute;

/// `get_dataset`: the catalog, keyed reads, paging, errors, the curated laws, institutions, financing,
/// events and projects by country.
mod get_dataset;

/// `resolve_metric`: case D9, one indicator in three languages; the answer when nothing matches.
mod resolve_metric;

/// `prompts/list` and `prompts/get`.
mod prompts;

/// `search` and `fetch`, ChatGPT's deep-research shapes.
mod deep_research;

/// `search_corpus`: hits across datasets with their keys, filters, curated records by words, its budget.
mod search_corpus;

/// `get_series`: cases D1, D2, D10, D11; the years returned, another pillar's indicator, link kinds.
mod get_series;

/// `compare_countries`: every latest value of a pillar, cited.
mod compare_countries;

/// `get_parameter_data`: the pillar in a country, cited narrative in es/en/pt.
mod get_parameter_data;

/// `get_discoveries`: anomalies and source contradictions, cited.
mod get_discoveries;

/// `get_data_health`: confidence score, gaps, the refresh work-list.
mod get_data_health;

/// Frontiers and rankings: sovereign by default, plausible targets (issue 25, part C).
mod frontiers;
/// Honest statistics (issue 25, part D): CAGR refused for bounded scores, clipped forecasts, paged
/// discoveries, trends on the observed part, correlation flags, coverage by design.
mod honest_statistics;

/// `get_regional_pulse`: regional values (population-weighted or median), leaders, movers.
mod get_regional_pulse;

/// `find_pilots`: the curated projects ranked with their cited impact base, paging, query matching.
mod find_pilots;

/// `get_pilot`: the full sheet of a project, every number cited.
mod get_pilot;

/// `recommend_action`: cited gaps, projects, financing and institutions, in the asked language.
mod recommend_action;

/// `get_news`: the curated events newest first, cited, in the asked language.
mod get_news;

/// `resolve_citations`: case D3, stored ids resolved, the rest explained, curated records.
mod resolve_citations;

/// `verify_claims`: claims checked against the corpus, the claim evaluation's confusion table.
mod verify_claims;

/// `get_chart_data`, the MCP Apps' app-only tool: cited charts of real values, its refusals.
mod get_chart_data;

/// Argument caps (length, characters, items) before any work, and the per-call deadline.
mod hardening;

/// Corpora of the previous format versions (real ones, under `tests/data/`) refused with the re-bake
/// message.
mod old_format;

/// Answer size budgets on the real corpus, paging, the display in `_meta`, a lean `tools/list`.
mod budgets;

/// Who may call over HTTP: Origin, loopback Host, JSON content type, trusted proxies, the trailing slash.
mod security;

/// The accept loop over real sockets: header-read (idle) timeout, connection cap and 503 shedding.
mod listener;

/// The cross-instance limiter on a real Redis, and its fallback when Redis stops.
mod shared_limit;

/// What an operator reads: `/metrics` and the health probe's counts.
mod operations;

/// Hot reload of a newly published corpus.
mod reload;

/// A source refreshed from its publisher (a local server playing the World Bank), baked, and answered by
/// get_series with the new value, vintage and retrieval date.
mod refresh;

/// The downloads API and MCP resources.
mod downloads;

/// The curated layer as an analyst asks it (issue 26): financing by year and donor, laws by date, what a
/// source cannot separate.
mod analyst_questions;
/// The curated projects across tools: a full portfolio's budgets, the older export filling the newer's
/// blanks.
mod projects;

/// The curated records across tools: every record an answer names is cited, forgiving ids only where
/// safe.
mod curated;

/// The MCP Apps extension: negotiation, the chart view, the charting tools' `_meta.ui`, the catalog's
/// chart pages.
mod apps;

/// MCP 2026-07-28 beside the initialize-based revisions.
mod modern;

/// What a new vintage changed (issue 24): `/api/v1/changes.json` and `get_data_health`'s changes,
/// superseded vintages and coverage per pillar, on the real corpus and on two bakes of the fixture.
mod changes;

/// Each documented host behaviour played against the real answers (issue 27): structuredContent only,
/// errors as text only, a result cut at 10 KB, a tool list within 16,000 tokens, descriptions cut at
/// 2,048 characters.
mod host_profiles;

/// Bounded work and cheap pages (issue 30): the cap on calls in flight, cancellation past the deadline,
/// the chart pages' vendored scripts as one immutable asset, gzip for text answers.
mod fairness;
