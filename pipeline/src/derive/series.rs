//! The governed observations grouped by series (indicator, country): what every per-series view reads.

use std::collections::BTreeMap;

use crate::govern::table::ObservationColumns;

/// The row indices of each (indicator, country) series among the rows `keep` admits, in table order;
/// series sorted by indicator then country.
pub fn group_series(
    observations: &ObservationColumns,
    keep: impl Fn(usize) -> bool,
) -> BTreeMap<(&str, &str), Vec<usize>> {
    let mut series: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
    for row_idx in (0..observations.len()).filter(|&row_idx| keep(row_idx)) {
        series
            .entry((
                &observations.indicator[row_idx],
                &observations.country[row_idx],
            ))
            .or_default()
            .push(row_idx);
    }
    series
}
