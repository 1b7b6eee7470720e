//! The governed observation table, column by column ([`ObservationColumns`]): filled from each governed
//! source by the metric registry ([`super::metrics`]), read by every derived table (`crate::derive`) and
//! written by `crate::export::tables`. Column contract: `corpus::observation`.

use std::collections::{BTreeMap, BTreeSet};

/// The columns of an observation table, row-aligned, in any order (sorted on write).
#[derive(Debug, Clone, Default)]
pub struct ObservationColumns {
    /// Metric ids.
    pub indicator: Vec<String>,
    /// ISO3 or aggregate codes.
    pub country: Vec<String>,
    /// Years.
    pub year: Vec<i32>,
    /// Values.
    pub value: Vec<f64>,
    /// Source ids.
    pub source: Vec<String>,
    /// Vintages.
    pub vintage: Vec<String>,
    /// Citation ids.
    pub citation_id: Vec<String>,
    /// `|`-separated flags.
    pub flags: Vec<String>,
    /// Standard errors.
    pub standard_error: Vec<Option<f64>>,
    /// Source counts.
    pub source_count: Vec<Option<i32>>,
}

impl ObservationColumns {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.indicator.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.indicator.is_empty()
    }

    /// The countries each source has observations of, by source id.
    pub fn countries_by_source(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut countries: BTreeMap<String, BTreeSet<String>> = Default::default();
        for (source, country) in self.source.iter().zip(&self.country) {
            if !countries
                .get(source)
                .is_some_and(|known| known.contains(country))
            {
                countries
                    .entry(source.clone())
                    .or_default()
                    .insert(country.clone());
            }
        }
        countries
    }
}
