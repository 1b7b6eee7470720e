//! `data/concordance.toml`: pairs of indicators from different publishers that measure the same
//! quantity, with the factor that aligns their units and the tolerance within which they agree.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::BakeError;

/// How a pair's tolerance is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToleranceKind {
    /// In the left indicator's unit.
    Absolute,
    /// As a fraction of the absolute left value.
    Relative,
}

/// One declared pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConcordancePair {
    /// Stable id, lower snake case (`gini_wdi_sedlac`).
    pub id: String,
    /// Metric id of the reference indicator.
    pub left: String,
    /// Metric id of the indicator compared with it.
    pub right: String,
    /// Multiplies the right values into the left unit (`100` for a 0-1 index against 0-100).
    pub right_factor: f64,
    /// A third indicator the right value is multiplied by, same country and year, before
    /// `right_factor` (a per-capita value × population gives a total); each row then cites three cells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_times: Option<String>,
    /// Largest difference still read as agreement.
    pub tolerance: f64,
    /// Whether `tolerance` is absolute or relative.
    pub tolerance_kind: ToleranceKind,
    /// Why the two may differ (definitions, vintages), shown with every contradiction.
    pub note: String,
    /// Whether values flagged `modelled` are compared (projections never are): for a pair whose side is
    /// modelled throughout (WDI's ILO-modelled unemployment), which would otherwise compare nothing. Every
    /// such row's contradiction says so in its note.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compares_modelled: bool,
}

impl ConcordancePair {
    /// Whether `left` and the aligned `right_scaled` agree within the tolerance.
    pub fn agrees(&self, left: f64, right_scaled: f64) -> bool {
        let difference = (right_scaled - left).abs();
        match self.tolerance_kind {
            ToleranceKind::Absolute => difference <= self.tolerance,
            ToleranceKind::Relative => difference <= self.tolerance * left.abs(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConcordanceFile {
    #[serde(default)]
    pairs: Vec<ConcordancePair>,
}

/// Reads `path` (absent: no pairs) and checks every pair names two mapped metric ids.
///
/// # Errors
/// [`BakeError::Catalog`] naming the pair and field: unknown fields, an unknown metric id (with the
/// valid ones it is close to), a non-positive factor or negative tolerance, a duplicate id.
pub fn load(path: &Path, metric_ids: &[String]) -> Result<Vec<ConcordancePair>, BakeError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(path)
        .map_err(|error| BakeError::catalog(path, format!("cannot read: {error}")))?;
    let file: ConcordanceFile =
        toml::from_str(&text).map_err(|error| BakeError::catalog(path, error.to_string()))?;
    for (index, pair) in file.pairs.iter().enumerate() {
        let invalid = |message: String| {
            BakeError::catalog(path, format!("pairs[{index}] (`{}`): {message}", pair.id))
        };
        let times = pair.right_times.iter().map(|id| ("right_times", id));
        for (field, id) in [("left", &pair.left), ("right", &pair.right)]
            .into_iter()
            .chain(times)
        {
            if !metric_ids.contains(id) {
                let mut close: Vec<&String> = metric_ids
                    .iter()
                    .filter(|candidate| {
                        candidate.contains(id.as_str()) || id.contains(candidate.as_str())
                    })
                    .collect();
                close.truncate(5);
                return Err(invalid(format!(
                    "{field} `{id}` is not a mapped metric id{}",
                    if close.is_empty() {
                        String::new()
                    } else {
                        format!("; close: {close:?}")
                    }
                )));
            }
        }
        if !(pair.right_factor.is_finite() && pair.right_factor > 0.0) {
            return Err(invalid(format!(
                "right_factor {} must be a positive number",
                pair.right_factor
            )));
        }
        if !(pair.tolerance.is_finite() && pair.tolerance >= 0.0) {
            return Err(invalid(format!(
                "tolerance {} must be zero or positive",
                pair.tolerance
            )));
        }
        if file.pairs[..index]
            .iter()
            .any(|earlier| earlier.id == pair.id)
        {
            return Err(invalid("id declared twice".into()));
        }
    }
    Ok(file.pairs)
}
