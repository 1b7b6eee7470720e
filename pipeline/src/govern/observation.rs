//! What governance makes of one source: the raw rows that passed every check ([`GovernedObservation`])
//! and the source's whole outcome, with what was dropped and excluded ([`SourceOutcome`]). Built by
//! [`super::govern_source`], read by the series rules and by the metric registry ([`super::metrics`]).

use corpus::{DroppedRow, ExcludedSeries, report::SourceCounts};

/// A raw row that passed every check.
#[derive(Debug, Clone, PartialEq)]
pub struct GovernedObservation {
    /// Index of the indicator in the source's metric mapping.
    pub mapping_idx: usize,
    /// ISO3, or aggregate code.
    pub country: String,
    /// Whether `country` is a comparison aggregate.
    pub is_aggregate: bool,
    /// Year.
    pub year: i32,
    /// Value in the metric's unit.
    pub value: f64,
    /// Standard error, where the source gives one.
    pub standard_error: Option<f64>,
    /// Number of underlying sources, where given.
    pub source_count: Option<i32>,
    /// `|`-separated flags (`projection`, `modelled`, `suspect_scale`), empty when none.
    pub flags: String,
}

impl GovernedObservation {
    /// Adds `flag` to the observation's flags (once).
    pub(super) fn add_flag(&mut self, flag: &str) {
        if self.flags.split('|').any(|present| present == flag) {
            return;
        }
        if !self.flags.is_empty() {
            self.flags.push('|');
        }
        self.flags.push_str(flag);
    }
}

/// What governance made of one source.
#[derive(Debug, Clone, Default)]
pub struct SourceOutcome {
    /// Rows kept, in file order.
    pub kept: Vec<GovernedObservation>,
    /// Rows dropped, in file and line order.
    pub dropped: Vec<DroppedRow>,
    /// Series left out for licence reasons.
    pub excluded: Vec<ExcludedSeries>,
    /// Counts for the report.
    pub counts: SourceCounts,
}
