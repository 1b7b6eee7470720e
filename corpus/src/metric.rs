//! The governed metric registry (`metrics.json`): one entry per indicator in the corpus.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Names;

/// Which way of moving is an improvement for an indicator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum GoodDirection {
    /// Higher is better (life expectancy).
    Up,
    /// Lower is better (homicides, poverty).
    Down,
    /// Neither (population, exchange rate).
    Neutral,
    /// Ambiguous for policy: a move either way can be good or bad (a renewables share that counts
    /// traditional biomass, threatened-species counts that grow with a country's biodiversity, a share
    /// whose denominator moved). No frontier, leaders or laggards; the metric's rule
    /// (`derived_rules.json`, `direction_note`) says why.
    Ambiguous,
}

impl GoodDirection {
    /// Whether one end of the indicator's range is a goal, so it has a frontier, leaders and laggards
    /// by direction (`up`, `down`); `neutral` and `ambiguous` have none.
    pub fn has_goal(self) -> bool {
        matches!(self, GoodDirection::Up | GoodDirection::Down)
    }
}

/// The range a value can take given its unit; values outside it are impossible and the bake drops them.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ValidRange {
    /// Inclusive lower bound, or `None` for unbounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// Inclusive upper bound, or `None` for unbounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

impl ValidRange {
    /// Whether `value` lies within the range.
    pub fn contains(&self, value: f64) -> bool {
        self.min.is_none_or(|min| value >= min) && self.max.is_none_or(|max| value <= max)
    }
}

/// What the corpus holds for an indicator, counted over countries only (aggregates excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Coverage {
    /// Observations (country-years with a value).
    pub observations: u64,
    /// Countries with at least one value.
    pub countries: u32,
    /// Earliest year with a value, if any.
    pub first_year: Option<i32>,
    /// Latest year with a value, if any.
    pub last_year: Option<i32>,
}

/// One governed indicator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    /// Lower-snake id of the source code (`sp_dyn_le00_in`); unique in the corpus.
    pub id: String,
    /// The publisher's indicator code (`SP.DYN.LE00.IN`).
    pub source_code: String,
    /// Id of the source in `sources.json` (`wdi`).
    pub source_id: String,
    /// Pillar id (`salud`).
    pub pillar: String,
    /// Display names; Spanish and Portuguese are catalog content, present for the headline indicators.
    pub names: Names,
    /// The publisher's own (English) title, unchanged (`Life expectancy at birth, total (years)`).
    pub source_title: String,
    /// The publisher's definition of the indicator.
    pub description: String,
    /// Unit of the values (`years`, `% of GDP`, `per 100,000 people`).
    pub unit: String,
    /// Which way is an improvement.
    pub good_direction: GoodDirection,
    /// Values outside this range are impossible for the unit and were dropped by the bake.
    pub valid_range: ValidRange,
    /// Licence of this series (SPDX id where one exists, e.g. `CC-BY-4.0`).
    pub license: String,
    /// The release the values come from (`2026-07`).
    pub vintage: String,
    /// Retrieval date of the file this series came from, ISO 8601, when it differs from its source's
    /// (a series refreshed from its own download); `None`: the source's `retrieved_at`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retrieved_at: Option<String>,
    /// The original publisher behind the series where it differs from the distributor (WDI's `Source`
    /// column, e.g. UNODC for homicides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_source: Option<String>,
    /// Methodology note: how the publisher computes the series, and caveats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub methodology: Option<String>,
    /// The publisher's topic (`Health: Mortality`) the pillar mapping started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// Other words (any language) that name this indicator, for search (`murder`, `asesinatos`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    /// Whether this is one of the corpus' headline indicators (names in all three languages).
    pub headline: bool,
    /// Names of the optional attribute columns this series fills (`standard_error`, `source_count`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<String>,
    /// Country-specific source notes from the publisher, by ISO3.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub country_notes: BTreeMap<String, String>,
    /// What the corpus holds for this indicator.
    pub coverage: Coverage,
}

impl Metric {
    /// Whether `other` is a breakdown of the same quantity from the same source (by sex, age or
    /// location): their publisher codes share the first three dot-separated segments, as WDI's
    /// `SP.DYN.LE00.IN` and `SP.DYN.LE00.MA.IN` do. Correlating such a pair says nothing new.
    pub fn same_family(&self, other: &Metric) -> bool {
        let stem = |code: &str| code.split('.').take(3).collect::<Vec<_>>().join(".");
        self.source_id == other.source_id
            && self.source_code != other.source_code
            && stem(&self.source_code) == stem(&other.source_code)
    }
    /// The metric id for a source code: lower case, dots and dashes to underscores
    /// (`SP.DYN.LE00.IN` → `sp_dyn_le00_in`).
    pub fn id_for_code(source_code: &str) -> String {
        source_code.to_ascii_lowercase().replace(['.', '-'], "_")
    }
}
