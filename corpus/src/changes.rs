//! What a corpus changed against the one it replaced (`exports/changes.json`, [`crate::layout::CHANGES`]):
//! per source and indicator the values revised (with the largest relative revisions, each with the
//! citation of both vintages), the years and series added or dropped, the indicators and countries a
//! source gained or lost; per curated dataset the records added, removed or changed, by record id.
//!
//! `pipeline bake` computes it against the corpus `current` named before the swap and writes it into the
//! new corpus; `pipeline diff [OLD] [NEW]` computes it between any two published corpora. The server
//! serves the file at `/api/v1/changes.json` and `get_data_health` answers "what changed in this
//! vintage" from it.
//!
//! The file depends on the corpus it was compared against, not only on the inputs of the bake, so it
//! is the one artifact left out of the corpus version (see [`crate::Manifest::compute`]): re-baking the
//! same inputs publishes the same version, which keeps the changes of its first publication.
//!
//! Everything is sorted (sources and indicators by id, years ascending, countries and record ids by
//! code, revisions by size then indicator, country and year), so the same two corpora always give the
//! same bytes.

use serde::{Deserialize, Serialize};

/// Largest revisions listed per indicator.
pub const REVISIONS_PER_INDICATOR: usize = 5;

/// Largest revisions listed over the whole corpus ([`Changes::top_revisions`]).
pub const TOP_REVISIONS: usize = 20;

/// One corpus of a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct CorpusVersion {
    /// Its corpus version (the content hash that names its directory).
    pub version: String,
    /// The format version of its artifacts.
    pub format_version: u32,
}

/// What changed from one corpus to the next.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Changes {
    /// The corpus compared against; `None` when there was none to compare (a first publication) or it
    /// could not be read (`note` says why).
    pub from: Option<CorpusVersion>,
    /// The corpus described; in the `changes.json` of a corpus, that corpus itself.
    pub to: Option<CorpusVersion>,
    /// Why there is no comparison, when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Totals over every source and curated dataset.
    pub totals: ChangeTotals,
    /// One entry per source with any change, by source id.
    pub sources: Vec<SourceChanges>,
    /// The largest relative revisions over every indicator (up to [`TOP_REVISIONS`]).
    pub top_revisions: Vec<Revision>,
    /// One entry per curated dataset with any change, in the order of [`crate::RecordDataset::ALL`].
    pub records: Vec<RecordChanges>,
}

/// Totals of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ChangeTotals {
    /// Sources with any change (added and dropped sources included).
    pub sources_changed: u64,
    /// Country-years present in both corpora whose value differs.
    pub values_revised: u64,
    /// Country-years present in both whose flags (`projection`, `modelled`, …) differ.
    pub flags_changed: u64,
    /// Country-years only the new corpus has.
    pub observations_added: u64,
    /// Country-years only the old corpus has.
    pub observations_removed: u64,
    /// Indicators only the new corpus has.
    pub indicators_added: u64,
    /// Indicators only the old corpus has.
    pub indicators_dropped: u64,
    /// Series (one indicator in one country) only the new corpus has, in indicators both have.
    pub series_added: u64,
    /// Series only the old corpus has, in indicators both have.
    pub series_dropped: u64,
    /// Curated records only the new corpus has.
    pub records_added: u64,
    /// Curated records only the old corpus has.
    pub records_removed: u64,
    /// Curated records of both whose fields differ.
    pub records_changed: u64,
}

/// What changed in one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SourceChanges {
    /// Source id (`wdi`).
    pub source: String,
    /// Its vintage in the old corpus; `None` if the old corpus does not have the source.
    pub old_vintage: Option<String>,
    /// Its vintage in the new corpus; `None` if the new corpus does not have the source.
    pub new_vintage: Option<String>,
    /// Retrieval date of its raw files in the old corpus (ISO 8601).
    pub old_retrieved_at: Option<String>,
    /// Retrieval date of its raw files in the new corpus.
    pub new_retrieved_at: Option<String>,
    /// Values revised over its indicators.
    pub values_revised: u64,
    /// Country-years added over its indicators (those of added indicators included).
    pub observations_added: u64,
    /// Country-years removed over its indicators (those of dropped indicators included).
    pub observations_removed: u64,
    /// Indicator ids only the new corpus has.
    pub indicators_added: Vec<String>,
    /// Indicator ids only the old corpus has.
    pub indicators_dropped: Vec<String>,
    /// Countries (ISO3) with a value of the source only in the new corpus.
    pub countries_added: Vec<String>,
    /// Countries (ISO3) with a value of the source only in the old corpus.
    pub countries_dropped: Vec<String>,
    /// The indicators both corpora have that changed, by id.
    pub indicators: Vec<IndicatorChanges>,
}

/// What changed in one indicator both corpora have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct IndicatorChanges {
    /// Metric id.
    pub indicator: String,
    /// Country-years of both whose value differs.
    pub values_revised: u64,
    /// Country-years of both whose flags differ.
    pub flags_changed: u64,
    /// Country-years only the new corpus has.
    pub observations_added: u64,
    /// Country-years only the old corpus has.
    pub observations_removed: u64,
    /// Years with a value (any country) only in the new corpus, ascending.
    pub years_added: Vec<i32>,
    /// Years with a value only in the old corpus, ascending.
    pub years_dropped: Vec<i32>,
    /// Countries (ISO3) whose series of this indicator only the new corpus has.
    pub series_added: Vec<String>,
    /// Countries (ISO3) whose series of this indicator only the old corpus has.
    pub series_dropped: Vec<String>,
    /// The largest relative revisions (up to [`REVISIONS_PER_INDICATOR`]).
    pub largest_revisions: Vec<Revision>,
}

/// One revised value: the same indicator, country and year in both corpora, with another value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Revision {
    /// Metric id.
    pub indicator: String,
    /// ISO3.
    pub country: String,
    /// Year.
    pub year: i32,
    /// `(new - old) / |old|`; `None` when the old value is 0.
    pub relative_change: Option<f64>,
    /// The value as the old corpus cites it.
    pub old: CitedValue,
    /// The value as the new corpus cites it.
    pub new: CitedValue,
}

/// A value with its citation, as one corpus holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct CitedValue {
    /// The value in the metric's unit.
    pub value: f64,
    /// Its citation id in that corpus (`wb-sp-dyn-le00-in-mex-2024`).
    pub citation_id: String,
    /// The release the value comes from (`2026-07`).
    pub vintage: String,
    /// When its raw file was retrieved (ISO 8601).
    pub retrieved_at: String,
    /// Its `|`-separated flags, empty when none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub flags: String,
}

/// What changed in one curated dataset, by record id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RecordChanges {
    /// Curated dataset id (`projects`).
    pub dataset: String,
    /// Records in the old corpus.
    pub old_records: u64,
    /// Records in the new corpus.
    pub new_records: u64,
    /// Record ids only the new corpus has, sorted.
    pub added: Vec<String>,
    /// Record ids only the old corpus has, sorted.
    pub removed: Vec<String>,
    /// Record ids of both whose fields differ, sorted.
    pub changed: Vec<String>,
}

impl Revision {
    /// How large the revision is, for ordering: `|relative_change|`, infinite when the old value is 0.
    pub fn size(&self) -> f64 {
        self.relative_change.map_or(f64::INFINITY, f64::abs)
    }

    /// Orders revisions largest first, then by indicator, country and year.
    pub fn largest_first(left: &Revision, right: &Revision) -> std::cmp::Ordering {
        right.size().total_cmp(&left.size()).then_with(|| {
            (&left.indicator, &left.country, left.year).cmp(&(
                &right.indicator,
                &right.country,
                right.year,
            ))
        })
    }

    fn line(&self) -> String {
        let change = self
            .relative_change
            .map_or("from 0".to_string(), |relative| {
                format!("{:+.2}%", 100.0 * relative)
            });
        format!(
            "{} {} {}: {} ({}, vintage {}) -> {} ({}, vintage {}), {change}",
            self.indicator,
            self.country,
            self.year,
            self.old.value,
            self.old.citation_id,
            self.old.vintage,
            self.new.value,
            self.new.citation_id,
            self.new.vintage,
        )
    }
}

/// At most this many ids or codes of one list are written in [`Changes::summary`].
const LISTED: usize = 12;

fn listed<T: std::fmt::Display>(items: &[T]) -> String {
    let mut text = items
        .iter()
        .take(LISTED)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > LISTED {
        text.push_str(&format!(" … and {} more", items.len() - LISTED));
    }
    text
}

impl Changes {
    /// Whether nothing changed (or nothing could be compared).
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty() && self.records.is_empty()
    }

    /// The comparison for a steward, one line per fact: the two versions, the totals, then per source
    /// its vintages and counts, per changed indicator its counts, years, series and largest revisions,
    /// and per curated dataset the record ids (lists cut at 12 with the number left out).
    pub fn summary(&self) -> String {
        let mut text = String::new();
        let version = |corpus: &Option<CorpusVersion>| {
            corpus
                .as_ref()
                .map_or("none".to_string(), |corpus| corpus.version.clone())
        };
        text.push_str(&format!(
            "changes from corpus {} to {}\n",
            version(&self.from),
            version(&self.to)
        ));
        if let Some(note) = &self.note {
            text.push_str(&format!("  {note}\n"));
        }
        let totals = &self.totals;
        text.push_str(&format!(
            "  {} values revised, {} flags changed, {} observations added, {} removed; {} indicators added, {} dropped; {} series added, {} dropped; curated records {} added, {} removed, {} changed\n",
            totals.values_revised,
            totals.flags_changed,
            totals.observations_added,
            totals.observations_removed,
            totals.indicators_added,
            totals.indicators_dropped,
            totals.series_added,
            totals.series_dropped,
            totals.records_added,
            totals.records_removed,
            totals.records_changed
        ));
        if self.from.is_some() && self.is_empty() {
            text.push_str("  nothing changed\n");
        }
        let or_none = |value: &Option<String>| value.clone().unwrap_or_else(|| "none".into());
        for source in &self.sources {
            text.push_str(&format!(
                "source {}: vintage {} -> {}, retrieved {} -> {}; {} values revised, {} observations added, {} removed\n",
                source.source,
                or_none(&source.old_vintage),
                or_none(&source.new_vintage),
                or_none(&source.old_retrieved_at),
                or_none(&source.new_retrieved_at),
                source.values_revised,
                source.observations_added,
                source.observations_removed
            ));
            for (what, list) in [
                ("indicators added", &source.indicators_added),
                ("indicators dropped", &source.indicators_dropped),
                ("countries added", &source.countries_added),
                ("countries dropped", &source.countries_dropped),
            ] {
                if !list.is_empty() {
                    text.push_str(&format!("  {what}: {}\n", listed(list)));
                }
            }
            for indicator in &source.indicators {
                text.push_str(&format!(
                    "  {}: {} values revised, {} flags changed, {} observations added, {} removed\n",
                    indicator.indicator,
                    indicator.values_revised,
                    indicator.flags_changed,
                    indicator.observations_added,
                    indicator.observations_removed
                ));
                if !indicator.years_added.is_empty() {
                    text.push_str(&format!(
                        "    years added: {}\n",
                        listed(&indicator.years_added)
                    ));
                }
                if !indicator.years_dropped.is_empty() {
                    text.push_str(&format!(
                        "    years dropped: {}\n",
                        listed(&indicator.years_dropped)
                    ));
                }
                if !indicator.series_added.is_empty() {
                    text.push_str(&format!(
                        "    series added (countries): {}\n",
                        listed(&indicator.series_added)
                    ));
                }
                if !indicator.series_dropped.is_empty() {
                    text.push_str(&format!(
                        "    series dropped (countries): {}\n",
                        listed(&indicator.series_dropped)
                    ));
                }
                for revision in &indicator.largest_revisions {
                    text.push_str(&format!("    revised {}\n", revision.line()));
                }
            }
        }
        for records in &self.records {
            text.push_str(&format!(
                "curated {}: {} -> {} records; {} added, {} removed, {} changed\n",
                records.dataset,
                records.old_records,
                records.new_records,
                records.added.len(),
                records.removed.len(),
                records.changed.len()
            ));
            for (what, list) in [
                ("added", &records.added),
                ("removed", &records.removed),
                ("changed", &records.changed),
            ] {
                if !list.is_empty() {
                    text.push_str(&format!("  {what}: {}\n", listed(list)));
                }
            }
        }
        if !self.top_revisions.is_empty() {
            text.push_str("largest revisions:\n");
            for revision in &self.top_revisions {
                text.push_str(&format!("  {}\n", revision.line()));
            }
        }
        text
    }
}
