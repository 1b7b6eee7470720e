//! The bake report (`bake_report.json`): every row the bake did not keep, and why; every series left out
//! for licence reasons; the comparison aggregates kept.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Why a raw row was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// The country code is neither a LAC country of the catalog nor a declared comparison aggregate.
    UnknownCountry,
    /// The value cell is not a finite number.
    NonNumericValue,
    /// The source marks the value as missing (WGI `..`); kept out, as missing values are absent rows.
    MissingMarker,
    /// The year cell is not an integer year.
    InvalidYear,
    /// The value is outside the range its unit allows (e.g. a share above 100%).
    ImpossibleValue,
    /// A second row for the same (indicator, country, year); the first row is kept.
    Duplicate,
    /// An exact zero that stands for "no data": in an indicator whose catalog row declares zeros
    /// placeholders (`zeros = placeholder`), or a run of zeros in a percent series whose neighbouring
    /// observations are far from zero (see `pipeline::govern::placeholder`).
    PlaceholderZero,
}

impl DropReason {
    /// Every reason, in report order.
    pub const ALL: [DropReason; 7] = [
        DropReason::UnknownCountry,
        DropReason::NonNumericValue,
        DropReason::MissingMarker,
        DropReason::InvalidYear,
        DropReason::ImpossibleValue,
        DropReason::Duplicate,
        DropReason::PlaceholderZero,
    ];

    /// The snake_case name used in the report.
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::UnknownCountry => "unknown_country",
            DropReason::NonNumericValue => "non_numeric_value",
            DropReason::MissingMarker => "missing_marker",
            DropReason::InvalidYear => "invalid_year",
            DropReason::ImpossibleValue => "impossible_value",
            DropReason::Duplicate => "duplicate",
            DropReason::PlaceholderZero => "placeholder_zero",
        }
    }
}

/// One raw row the bake did not keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DroppedRow {
    /// Source id.
    pub source: String,
    /// Raw file, relative to the sources directory.
    pub file: String,
    /// 1-based line in that file (the header is line 1).
    pub line: u64,
    /// Metric id, where known.
    pub indicator: String,
    /// Country code as written in the raw row.
    pub country: String,
    /// Year cell as written.
    pub year: String,
    /// Value cell as written.
    pub value: String,
    /// Why it was dropped.
    pub reason: DropReason,
    /// Detail: the valid range, the unknown code, the row it duplicates.
    pub detail: String,
}

/// A whole series left out of the corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExcludedSeries {
    /// Source id.
    pub source: String,
    /// Publisher's indicator code.
    pub code: String,
    /// The series' licence.
    pub license: String,
    /// Raw rows not baked.
    pub rows: u64,
    /// Why (e.g. `licence CC-BY-NC-4.0 is not redistributable in the default corpus`).
    pub reason: String,
}

/// Rows read and kept per source.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SourceCounts {
    /// Raw data rows read.
    pub rows_read: u64,
    /// Rows kept as country observations.
    pub observations: u64,
    /// Rows kept as comparison-aggregate observations.
    pub aggregate_observations: u64,
    /// Rows dropped (listed in [`BakeReport::dropped`]).
    pub dropped: u64,
    /// Rows of series excluded for licence reasons.
    pub excluded: u64,
    /// Indicators baked.
    pub indicators: u32,
    /// Kept observations per flag (`projection`, `modelled`, `suspect_scale`), countries and aggregates.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub flagged: BTreeMap<String, u64>,
    /// What the source's citation links open (`indicator_country`, `country`, `indicator`, `dataset`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub link_kind: String,
}

/// What the bake kept of one curated dataset (`projects`), and every record or field it refused.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CuratedReport {
    /// Dataset id (`projects`).
    pub dataset: String,
    /// Source id (`wb_projects`).
    pub source: String,
    /// Records kept.
    pub kept: u64,
    /// Records kept that only the older export lists.
    pub from_older_export: u64,
    /// Records the steward's override file (`data/curated/overrides/`) replaced or added.
    #[serde(default)]
    pub overrides: u64,
    /// Records with at least one field the newer export leaves blank, read from the older export.
    #[serde(default)]
    pub filled_from_older_export: u64,
    /// Records without sector or theme whose pillars come from reviewed title words.
    #[serde(default)]
    pub pillars_from_title: u64,
    /// Why the source was not read at all (its licence is not admitted by this bake), when it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
    /// Records or fields refused: file, line, field, reason.
    pub refused: Vec<CuratedRefusal>,
    /// Sectors and themes of kept records that the reviewed mapping does not list (no pillar taken from them).
    pub unmapped: Vec<String>,
    /// Records the publisher's own fields contradict, kept and flagged, per inconsistency id
    /// ([`crate::PROJECT_INCONSISTENCIES`]).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub inconsistencies: std::collections::BTreeMap<String, u64>,
    /// Rows merged into the record of the same body under another spelling (institutions).
    #[serde(default)]
    pub merged_spellings: u64,
}

/// One refused record or field of a curated source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CuratedRefusal {
    /// Raw file, relative to the sources directory.
    pub file: String,
    /// 1-based line (the header is line 1).
    pub line: u64,
    /// The column at fault.
    pub field: String,
    /// What is wrong and what the field must be; `record dropped` or `field left empty` says which.
    pub reason: String,
}

/// One indicator whose only series metadata is of an older release than its values, and differs from
/// them (title, PPP base, poverty line, base year): its definition comes from the values' release and
/// the older methodology note is not shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleText {
    /// Metric id.
    pub indicator: String,
    /// Release of the metadata (`2022`).
    pub metadata_vintage: String,
    /// The title in that metadata.
    pub metadata_title: String,
    /// The title that ships with the values.
    pub title: String,
    /// What differs (`$1.90 → $3.00`, `2011 PPP → 2021 PPP`, `title`).
    pub differences: Vec<String>,
}

/// What the bake found for one concordance pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConcordanceCount {
    /// Pair id (`gini_wdi_sedlac`).
    pub pair: String,
    /// Country-years both indicators have.
    pub shared: u64,
    /// Of those, how many differ beyond the pair's tolerance.
    pub beyond_tolerance: u64,
}

/// The bake report.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BakeReport {
    /// Country observations baked.
    pub observations: u64,
    /// Comparison-aggregate observations baked.
    pub aggregate_observations: u64,
    /// Indicators with at least one observation.
    pub indicators: u32,
    /// Countries with at least one observation.
    pub countries: u32,
    /// Earliest and latest year observed, if any.
    pub years: Option<(i32, i32)>,
    /// Counts per source id.
    pub sources: BTreeMap<String, SourceCounts>,
    /// Dropped rows per reason.
    pub dropped_by_reason: BTreeMap<DropReason, u64>,
    /// Observations kept per comparison aggregate code (`LCN`, `WLD`): these are never counted as countries.
    pub aggregates_kept: BTreeMap<String, u64>,
    /// Series left out for licence reasons.
    pub excluded_series: Vec<ExcludedSeries>,
    /// Concordance pairs with their shared country-years and contradictions.
    #[serde(default)]
    pub concordance: Vec<ConcordanceCount>,
    /// Every dropped row, in source, file and line order.
    pub dropped: Vec<DroppedRow>,
    /// Country observations by what their citation link opens (`indicator_country`, `dataset`, …).
    #[serde(default)]
    pub links_by_kind: BTreeMap<String, u64>,
    /// Kept observations per flag over all sources (`projection`, `modelled`, `suspect_scale`).
    #[serde(default)]
    pub flagged: BTreeMap<String, u64>,
    /// Indicators whose older series metadata was withheld because it describes another definition.
    #[serde(default)]
    pub stale_texts: Vec<StaleText>,
    /// What the derived-figure rules (`data/aggregation.toml`) did to the derived views.
    #[serde(default)]
    pub derived_rules: crate::derived::DerivedRuleCounts,
    /// What each curated dataset kept and dropped, and why.
    #[serde(default)]
    pub curated: Vec<CuratedReport>,
    /// Broad recent coverage per pillar (as in `data_health.json`, [`crate::health::PillarCoverage`]).
    #[serde(default)]
    pub coverage: Vec<crate::health::PillarCoverage>,
}

impl BakeReport {
    /// Records one source's counts, adding its flags and links to the corpus totals. A source recorded
    /// again (governed in batches of indicators) adds the new counts to those it has.
    pub fn record_source(&mut self, source: &str, counts: SourceCounts) {
        for (flag, rows) in &counts.flagged {
            *self.flagged.entry(flag.clone()).or_default() += rows;
        }
        if !counts.link_kind.is_empty() {
            *self
                .links_by_kind
                .entry(counts.link_kind.clone())
                .or_default() += counts.observations;
        }
        match self.sources.get_mut(source) {
            Some(recorded) => {
                recorded.rows_read += counts.rows_read;
                recorded.observations += counts.observations;
                recorded.aggregate_observations += counts.aggregate_observations;
                recorded.dropped += counts.dropped;
                recorded.excluded += counts.excluded;
                recorded.indicators += counts.indicators;
                for (flag, rows) in counts.flagged {
                    *recorded.flagged.entry(flag).or_default() += rows;
                }
            }
            None => {
                self.sources.insert(source.to_string(), counts);
            }
        }
    }

    /// The human summary written next to the JSON report.
    pub fn summary(&self) -> String {
        let mut text = String::new();
        let years = self
            .years
            .map(|(first, last)| format!("{first}-{last}"))
            .unwrap_or_else(|| "none".into());
        text.push_str(&format!(
            "baked {} observations of {} indicators for {} countries, years {years}\n",
            self.observations, self.indicators, self.countries
        ));
        let aggregates: Vec<String> = self
            .aggregates_kept
            .iter()
            .map(|(code, rows)| format!("{code} {rows}"))
            .collect();
        text.push_str(&format!(
            "comparison aggregates kept ({} observations, never counted as countries): {}\n",
            self.aggregate_observations,
            if aggregates.is_empty() {
                "none".into()
            } else {
                aggregates.join(", ")
            }
        ));
        for (source, counts) in &self.sources {
            text.push_str(&format!(
                "source {source}: {} rows read, {} observations, {} aggregate observations, {} dropped, {} excluded, {} indicators{}\n",
                counts.rows_read, counts.observations, counts.aggregate_observations, counts.dropped, counts.excluded, counts.indicators,
                if counts.link_kind.is_empty() { String::new() } else { format!(", links: {}", counts.link_kind) }
            ));
        }
        let total_dropped: u64 = self.dropped_by_reason.values().sum();
        text.push_str(&format!("dropped rows: {total_dropped}\n"));
        for (reason, rows) in &self.dropped_by_reason {
            text.push_str(&format!("  {}: {rows}\n", reason.as_str()));
        }
        let joined = |counts: &BTreeMap<String, u64>| {
            if counts.is_empty() {
                return "none".to_string();
            }
            counts
                .iter()
                .map(|(key, rows)| format!("{key} {rows}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        text.push_str(&format!(
            "observations flagged: {}\n",
            joined(&self.flagged)
        ));
        text.push_str(&format!(
            "citation links by kind (country observations): {}\n",
            joined(&self.links_by_kind)
        ));
        text.push_str(&format!(
            "older series metadata withheld (definition differs from the values' release): {}\n",
            self.stale_texts.len()
        ));
        for stale in &self.stale_texts {
            text.push_str(&format!(
                "  {} ({} metadata): {}\n",
                stale.indicator,
                stale.metadata_vintage,
                stale.differences.join("; ")
            ));
        }
        for pair in &self.concordance {
            text.push_str(&format!(
                "concordance {}: {} shared country-years, {} beyond tolerance\n",
                pair.pair, pair.shared, pair.beyond_tolerance
            ));
        }
        text.push_str(&self.derived_rules.summary());
        for curated in &self.curated {
            if let Some(reason) = &curated.excluded {
                text.push_str(&format!(
                    "curated {} ({}): not read: {reason}\n",
                    curated.dataset, curated.source
                ));
                continue;
            }
            let mut parts = Vec::new();
            for (count, what) in [
                (curated.from_older_export, "only in the older export"),
                (
                    curated.filled_from_older_export,
                    "with fields filled from the older export",
                ),
                (curated.pillars_from_title, "with pillars from title words"),
                (curated.overrides, "from the steward's overrides"),
                (
                    curated.merged_spellings,
                    "spellings merged into the record of the same body",
                ),
            ] {
                if count > 0 {
                    parts.push(format!("{count} {what}"));
                }
            }
            if !curated.inconsistencies.is_empty() {
                let flagged: Vec<String> = curated
                    .inconsistencies
                    .iter()
                    .map(|(id, count)| format!("{count} {id}"))
                    .collect();
                parts.push(format!(
                    "publisher inconsistencies flagged: {}",
                    flagged.join(", ")
                ));
            }
            text.push_str(&format!(
                "curated {} ({}): {} records kept{}, {} refusals, {} names unmapped\n",
                curated.dataset,
                curated.source,
                curated.kept,
                if parts.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", parts.join(", "))
                },
                curated.refused.len(),
                curated.unmapped.len()
            ));
        }
        if !self.coverage.is_empty() {
            let pillars: Vec<String> = self
                .coverage
                .iter()
                .map(|pillar| {
                    format!(
                        "{} {} of {}",
                        pillar.parameter, pillar.broad_recent, pillar.indicators
                    )
                })
                .collect();
            text.push_str(&format!(
                "indicators with broad recent coverage (>= {} sovereign countries observed since {}, not projected or modelled): {}\n",
                crate::health::BROAD_COVERAGE_COUNTRIES,
                crate::health::RECENT_FROM_YEAR,
                pillars.join(", ")
            ));
        }
        text.push_str(&format!(
            "series excluded for licence reasons: {}\n",
            self.excluded_series.len()
        ));
        for series in &self.excluded_series {
            text.push_str(&format!(
                "  {} {} ({}, {} rows): {}\n",
                series.source, series.code, series.license, series.rows, series.reason
            ));
        }
        text
    }
}
