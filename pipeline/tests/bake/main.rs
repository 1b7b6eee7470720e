//! Integration tests of the bake, one binary (ripgrep's layout), one module per area.

/// Paths, baking helpers and the shared real-corpus bake.
mod support;

/// A local HTTP server on loopback with canned answers, for the fetch tests.
mod loopback;

/// Every default source refreshed from a local server that plays its publisher, then baked.
mod publishers;

/// Cases D1, D2, D7 and D12 of `../shared/cases/data.md`, checked on the real baked artifacts.
mod data_cases;

/// Governance on the hand-written fixture: every drop reason reported, the licence gate.
mod governance;

/// Failed bakes: non-zero exit, a message naming file and field, the previous corpus untouched.
mod failures;

/// Same inputs, same corpus version and bytes.
mod determinism;

/// Every indicator source: one known value each, projections, the licence gate, concordance (issue 4).
mod sources_breadth;

/// The GCB, OWID CO2/GHG and IMF WEO April 2025 sources, and the April 2019 vintage beside it (issue 10).
mod new_sources;

/// The derived-figure rules of issue 10: declared aggregations, observed values only, statistics where
/// they apply, gaps that are not changes, and the report's counts.
mod derived_rules;

/// Honest statistics (issue 25, part D): bounded scores, clipped forecasts, every anomaly, size-checked
/// correlations, modelled concordance, coverage by design, the report's derived-number rules.
mod honest_statistics;

/// The governance rules of issue 10: placeholder zeros, fractions as percents, the values' text, names,
/// link kinds, directions, modelled estimates, pillar coverage.
mod governance_rules;

/// The OWID-staged sources of the 5th pass (V-Dem, UCDP 2026, Ember, UNODC, PIP) and the vintages they
/// supersede (issue 24).
mod owid_sources;

/// Estimates, projections and vintage projections as their own flags, WGI standard errors in the
/// indicator files (issue 25).
mod estimates;
/// A frontier is a plausible target (issue 25, part C): implausible zero runs, sovereign leaders with
/// no suspect value, ambiguous directions with their notes.
mod frontiers;

/// The flat files for analysts.
mod curated;
mod exports;

// `pipeline fetch` against a loopback server, and the refresh columns of `pipeline sources`.
mod fetch;

/// The World Bank's sources: the WDI extract series and their releases.
mod worldbank;

/// What a new vintage changed: two real bakes of the fixture, one raw value and one year changed;
/// `exports/changes.json`, the `previous` pointer and `pipeline diff` (issue 24).
mod changes;
