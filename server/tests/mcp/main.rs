//! Integration tests of the MCP server, one binary, one module per area.

/// The real corpus baked once into a temporary directory; request helpers.
mod support;

/// Every row of `../shared/cases/protocol.md` in this scope, over HTTP (router `oneshot`).
mod protocol;

/// P27 and P28 over stdio, through the real binary.
mod stdio;

/// Cases D1, D3, D9, D10, D11 of `../shared/cases/data.md` through the tools.
mod data_cases;

/// Every tool's successful result validates against its own `outputSchema`.
mod schemas;

/// `compute`: cases D4, D5, D6 and each op's statistics.
mod compute;

/// `get_dataset`: the catalog, keyed reads, paging, errors.
mod get_dataset;

/// `search_corpus`: hits across datasets with their keys, filters.
mod search_corpus;

/// `get_parameter_data`: the pillar in a country, cited narrative in es/en/pt.
mod get_parameter_data;

/// `get_discoveries`: anomalies and source contradictions, cited.
mod get_discoveries;

/// `get_data_health`: confidence score, gaps, the refresh work-list.
mod get_data_health;

/// `get_regional_pulse`: regional values (population-weighted or median), leaders, movers.
mod get_regional_pulse;

/// Argument caps (length, characters, items) before any work, and the per-call deadline.
mod hardening;

/// A corpus of the previous format version (a real one, under `tests/data/`) refused with the re-bake
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

// The downloads API and MCP resources.
mod downloads;

// The curated projects.
mod projects;

// recommend_action and get_news over the curated laws, institutions, financing and events.
mod curated;

// The MCP Apps extension: the chart view, get_chart_data and the catalog's chart pages.
mod apps;

// MCP 2026-07-28 beside the initialize-based revisions.
mod modern;
