//! `data/aggregation.toml`: how each metric's values form a regional value (`population_weighted_mean`,
//! `sum`, `median` or `none`), which statistics apply to them (`scale`: `ratio`, `interval`, `growth`)
//! and whether they compare across countries — declared by unit pattern (`[[rules]]`, the first whose
//! pattern matches a metric's unit decides) with per-metric `[[overrides]]` on top.
//!
//! Named weights (`[weights.<name>]`: the quantity a weighted mean weighs each country by, and the units
//! whose denominator it is) serve `weighted_mean` declarations and the publisher's own methods: where
//! the publisher documents how it aggregates a series (WDI series metadata, `Aggregation method`, given
//! with [`AggregationRules::with_publisher_methods`]), that method and the weight of the series'
//! denominator decide, unless a steward's `[[overrides]]` entry names the metric.
//!
//! Validated on load: unknown fields are refused; every mapped metric resolves to exactly one
//! declaration (its override, else the first matching rule) or the file is refused naming the metric;
//! an override names mapped metrics only, once each; and a declaration is coherent (a value that does
//! not compare across countries has no regional value; a growth rate is never summed).

use std::{collections::BTreeMap, path::Path};

use corpus::{
    Metric,
    analytics::{Aggregation, Scale},
    derived::Weight,
};
use serde::Deserialize;

use super::catalog::Catalog;
use crate::BakeError;

/// The catalog file, relative to the catalog directory.
pub const FILE: &str = "aggregation.toml";

/// One declaration by unit pattern.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitRule {
    /// Case-insensitive substrings: the rule matches a unit containing any of them.
    #[serde(default)]
    pub unit_contains: Vec<String>,
    /// Case-insensitive whole units: the rule matches a unit equal to any of them.
    #[serde(default)]
    pub unit_is: Vec<String>,
    /// How the regional value is formed.
    pub aggregation: Aggregation,
    /// The weight of a `weighted_mean` (a `[weights]` name).
    #[serde(default)]
    pub weight: Option<String>,
    /// Which statistics apply (default `ratio`).
    #[serde(default = "ratio")]
    pub scale: Scale,
    /// Whether values compare across countries (default true).
    #[serde(default = "yes")]
    pub comparable: bool,
    /// Why, in words: shown wherever the rule refuses a figure.
    pub reason: String,
}

/// A per-metric declaration, over the unit rules; fields left out come from the unit rule.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Override {
    /// Metric ids (`ny_gdp_pcap_cd`).
    pub metrics: Vec<String>,
    /// How the regional value is formed.
    #[serde(default)]
    pub aggregation: Option<Aggregation>,
    /// The weight of a `weighted_mean` (a `[weights]` name).
    #[serde(default)]
    pub weight: Option<String>,
    /// Which statistics apply.
    #[serde(default)]
    pub scale: Option<Scale>,
    /// Whether values compare across countries.
    #[serde(default)]
    pub comparable: Option<bool>,
    /// Who the publisher covers, when only some countries by design (`IDA-eligible countries only` for
    /// CPIA): a country without values is then absent by design in data health, not a coverage gap.
    #[serde(default)]
    pub coverage: Option<String>,
    /// Why, in words.
    pub reason: String,
}

fn ratio() -> Scale {
    Scale::Ratio
}

fn yes() -> bool {
    true
}

/// One named weight (`[weights.<name>]`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightDeclaration {
    /// Metric id of the weight's values (`ag_lnd_totl_k2`).
    pub indicator: String,
    /// Metric id of a second factor (`sp_pop_totl`), for a weight that is a product.
    #[serde(default)]
    pub times: Option<String>,
    /// Constant factor (default 1).
    #[serde(default)]
    pub factor: Option<f64>,
    /// What it is, in words.
    pub description: String,
    /// Case-insensitive whole units whose denominator this weight is (`% of GDP`).
    #[serde(default)]
    pub denominator_is: Vec<String>,
    /// Case-insensitive parts of units whose denominator this weight is (`of land area`).
    #[serde(default)]
    pub denominator_contains: Vec<String>,
    /// Metric ids the publisher weighs by this quantity whatever their unit (GDP growth by GDP).
    #[serde(default)]
    pub metrics: Vec<String>,
}

impl WeightDeclaration {
    /// The pattern by which this weight is the denominator of metric `id` with `unit`, if it is.
    fn denominator_of(&self, id: &str, unit: &str) -> Option<String> {
        let unit_lower = unit.to_lowercase();
        if self.metrics.iter().any(|metric| metric == id) {
            return Some(format!("declared for {id}"));
        }
        self.denominator_is
            .iter()
            .find(|whole| whole.to_lowercase() == unit_lower)
            .map(|whole| format!("the denominator: unit is {whole:?}"))
            .or_else(|| {
                self.denominator_contains
                    .iter()
                    .find(|part| unit_lower.contains(&part.to_lowercase()))
                    .map(|part| format!("the denominator: unit contains {part:?}"))
            })
    }
}

/// The weight name `population_weighted_mean` means.
pub const POPULATION_WEIGHT: &str = "population";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AggregationFile {
    #[serde(default)]
    weights: BTreeMap<String, WeightDeclaration>,
    #[serde(default)]
    rules: Vec<UnitRule>,
    #[serde(default)]
    overrides: Vec<Override>,
    #[serde(default)]
    directions: Vec<Direction>,
}

/// Why the good direction of some metrics is `ambiguous` (`[[directions]]`, at the end of the file):
/// every metric whose catalog row says `good_direction = ambiguous` is named by exactly one entry, and an
/// entry names only such metrics.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Direction {
    /// Metric ids (`eg_fec_rnew_zs`).
    pub metrics: Vec<String>,
    /// Why a move either way is not plainly an improvement: shown wherever a frontier, leaders or a
    /// best-first order is refused.
    pub note: String,
}

/// What one metric resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// How the regional value is formed.
    pub aggregation: Aggregation,
    /// Which statistics apply.
    pub scale: Scale,
    /// Whether values compare across countries.
    pub comparable: bool,
    /// Why.
    pub reason: String,
    /// `overrides[i]`, `rules[i] (unit contains "…")` or `WDI series metadata: …`.
    pub declared_by: String,
    /// The weight's name, for a weighted mean (`population` for `population_weighted_mean`).
    pub weight: Option<String>,
    /// The publisher's documented aggregation method, when given.
    pub publisher_method: Option<String>,
}

/// The validated declarations.
#[derive(Debug, Clone, Default)]
pub struct AggregationRules {
    weights: BTreeMap<String, WeightDeclaration>,
    /// The publisher's documented aggregation method per metric id (WDI's `Aggregation method`).
    publisher_methods: BTreeMap<String, String>,
    rules: Vec<UnitRule>,
    overrides: Vec<Override>,
    /// Override index per metric id.
    by_metric: BTreeMap<String, usize>,
    /// Whether the file exists; without it nothing is declared and nothing is aggregated.
    declared: bool,
    /// The `[[directions]]` note of each ambiguous metric, by id.
    direction_notes: BTreeMap<String, String>,
}

impl UnitRule {
    /// The pattern of this rule that matches `unit`, if any (case-insensitive).
    fn matching(&self, unit: &str) -> Option<String> {
        let unit = unit.to_lowercase();
        self.unit_is
            .iter()
            .find(|whole| whole.to_lowercase() == unit)
            .map(|whole| format!("unit is {whole:?}"))
            .or_else(|| {
                self.unit_contains
                    .iter()
                    .find(|part| unit.contains(&part.to_lowercase()))
                    .map(|part| format!("unit contains {part:?}"))
            })
    }
}

impl AggregationRules {
    /// Why metric `id`'s good direction is ambiguous (its `[[directions]]` note), if it is.
    pub fn direction_note(&self, id: &str) -> Option<&str> {
        self.direction_notes.get(id).map(String::as_str)
    }

    /// The declared partial coverage of each metric that has one (`coverage` of its override): metric id
    /// → who the publisher covers.
    pub fn declared_coverage(&self) -> BTreeMap<String, String> {
        self.by_metric
            .iter()
            .filter_map(|(id, &override_idx)| {
                Some((id.clone(), self.overrides[override_idx].coverage.clone()?))
            })
            .collect()
    }

    /// The declaration of metric `id` with unit `unit`: its override (fields it leaves out from the
    /// first unit rule that matches), else the first unit rule that matches. `None` when nothing matches
    /// (a validated catalog has none such among its metrics). Without the file: `none`, `interval`.
    pub fn resolve(&self, id: &str, unit: &str) -> Option<Resolved> {
        let mut resolved = self.resolve_declared(id, unit)?;
        resolved.publisher_method = self.publisher_methods.get(id).cloned();
        if !self.declared
            || self.by_metric.contains_key(id)
            || resolved.aggregation == Aggregation::None
        {
            return Some(resolved);
        }
        let Some(method) = resolved.publisher_method.clone() else {
            return Some(resolved);
        };
        let by_publisher = |aggregation: Aggregation, weight: Option<(&str, String)>| {
            let (weight_name, pattern) = weight.unzip();
            Resolved {
                aggregation,
                weight: weight_name.map(str::to_string),
                declared_by: match (&weight_name, &pattern) {
                    (Some(name), Some(pattern)) => {
                        format!("WDI series metadata: {method} (weight: {name}; {pattern})")
                    }
                    (Some(name), None) => {
                        format!("WDI series metadata: {method} (weight: {name})")
                    }
                    _ => format!("WDI series metadata: {method}"),
                },
                reason: if aggregation == resolved.aggregation
                    && weight_name == resolved.weight.as_deref()
                {
                    resolved.reason.clone()
                } else {
                    format!(
                        "aggregated as the World Bank documents it for this series ({method}{}); by unit the rule would be: {}",
                        weight_name
                            .map(|name| format!(", weighted by {}", self.weights[name].description))
                            .unwrap_or_default(),
                        resolved.reason
                    )
                },
                ..resolved.clone()
            }
        };
        let decided = match method.trim().to_lowercase().as_str() {
            "weighted average" => match self.denominator_weight(id, unit) {
                Some((name, pattern)) if name == POPULATION_WEIGHT => Some(by_publisher(
                    Aggregation::PopulationWeightedMean,
                    Some((name, pattern)),
                )),
                Some((name, pattern)) => Some(by_publisher(
                    Aggregation::WeightedMean,
                    Some((name, pattern)),
                )),
                // The denominator is no declared weight: population where the unit rule weighs by
                // population too (rates per person), else the unit rule stands.
                None if resolved.aggregation == Aggregation::PopulationWeightedMean => {
                    Some(by_publisher(
                        Aggregation::PopulationWeightedMean,
                        Some((
                            POPULATION_WEIGHT,
                            "a rate per person or a share of a population group".into(),
                        )),
                    ))
                }
                None => None,
            },
            "sum" | "gap-filled total" if resolved.scale != Scale::Growth => {
                Some(by_publisher(Aggregation::Sum, None))
            }
            "median" => Some(by_publisher(Aggregation::Median, None)),
            "unweighted average" => Some(by_publisher(Aggregation::UnweightedMean, None)),
            _ => None,
        };
        Some(decided.unwrap_or(resolved))
    }

    /// The declared weight whose denominator pattern matches metric `id` with `unit` (its explicit
    /// `metrics` first), with the pattern.
    fn denominator_weight(&self, id: &str, unit: &str) -> Option<(&str, String)> {
        self.weights
            .iter()
            .find(|(_, weight)| weight.metrics.iter().any(|metric| metric == id))
            .or_else(|| {
                self.weights
                    .iter()
                    .find(|(_, weight)| weight.denominator_of(id, unit).is_some())
            })
            .and_then(|(name, weight)| Some((name.as_str(), weight.denominator_of(id, unit)?)))
    }

    /// The named weight, as the artifact contract carries it.
    pub fn weight(&self, name: &str) -> Option<Weight> {
        if name == POPULATION_WEIGHT && !self.weights.contains_key(name) {
            return Some(corpus::derived::population_weight());
        }
        self.weights.get(name).map(|declared| Weight {
            name: name.to_string(),
            indicator: declared.indicator.clone(),
            times: declared.times.clone(),
            factor: declared.factor.unwrap_or(1.0),
            description: declared.description.clone(),
        })
    }

    /// These rules with the publisher's documented aggregation method per metric id (WDI series
    /// metadata's `Aggregation method`: `Weighted average`, `Sum`, `Gap-filled total`, `Median`,
    /// `Unweighted average`), which then decides each metric's method and weight unless an override
    /// names it.
    pub fn with_publisher_methods(mut self, methods: BTreeMap<String, String>) -> Self {
        self.publisher_methods = methods;
        self
    }

    /// The declaration of `id` from the file alone (override or unit rule).
    fn resolve_declared(&self, id: &str, unit: &str) -> Option<Resolved> {
        if !self.declared {
            return Some(Resolved {
                aggregation: Aggregation::None,
                scale: Scale::Interval,
                comparable: true,
                reason: format!("the catalog has no {FILE}: no aggregation is declared"),
                declared_by: "default".into(),
                weight: None,
                publisher_method: None,
            });
        }
        let by_unit = self.rules.iter().enumerate().find_map(|(rule_idx, rule)| {
            rule.matching(unit)
                .map(|pattern| (rule, format!("rules[{rule_idx}] ({pattern})")))
        });
        // An override that only declares `coverage` leaves the derived-figure rule to the unit rule.
        let figure_override = self.by_metric.get(id).filter(|&&override_idx| {
            let entry = &self.overrides[override_idx];
            entry.aggregation.is_some() || entry.scale.is_some() || entry.comparable.is_some()
        });
        match figure_override {
            Some(&override_idx) => {
                let entry = &self.overrides[override_idx];
                let complete = entry.aggregation.is_some()
                    && entry.scale.is_some()
                    && entry.comparable.is_some();
                if by_unit.is_none() && !complete {
                    return None;
                }
                let base = by_unit.map(|(rule, _)| rule);
                let aggregation = entry.aggregation.or(base.map(|rule| rule.aggregation))?;
                let weight = if entry.aggregation.is_some() {
                    entry.weight.clone()
                } else {
                    entry
                        .weight
                        .clone()
                        .or(base.and_then(|rule| rule.weight.clone()))
                };
                Some(
                    Resolved {
                        aggregation,
                        scale: entry.scale.or(base.map(|rule| rule.scale))?,
                        comparable: entry.comparable.or(base.map(|rule| rule.comparable))?,
                        reason: entry.reason.clone(),
                        declared_by: format!("overrides[{override_idx}]"),
                        weight,
                        publisher_method: None,
                    }
                    .with_implied_weight(),
                )
            }
            None => by_unit.map(|(rule, declared_by)| {
                Resolved {
                    aggregation: rule.aggregation,
                    scale: rule.scale,
                    comparable: rule.comparable,
                    reason: rule.reason.clone(),
                    declared_by,
                    weight: rule.weight.clone(),
                    publisher_method: None,
                }
                .with_implied_weight()
            }),
        }
    }
}

impl Resolved {
    /// `population_weighted_mean` is weighted by population; only the weighted means keep a weight.
    fn with_implied_weight(mut self) -> Self {
        match self.aggregation {
            Aggregation::PopulationWeightedMean => self.weight = Some(POPULATION_WEIGHT.into()),
            Aggregation::WeightedMean => {}
            _ => self.weight = None,
        }
        self
    }
}

/// Reads `path` and checks it against every metric the catalog maps. An absent file declares nothing:
/// every metric then resolves to `none` and `interval` (no regional value, no relative change or CAGR).
///
/// # Errors
/// [`BakeError::Catalog`] naming the file and the field: unknown fields or values, a rule without a
/// pattern or a reason, an incoherent declaration, an override of an unknown or already overridden
/// metric, or a mapped metric that no declaration covers (with its unit and mapping file).
pub fn load(path: &Path, catalog: &Catalog) -> Result<AggregationRules, BakeError> {
    if !path.exists() {
        return Ok(AggregationRules::default());
    }
    let text = std::fs::read_to_string(path)
        .map_err(|error| BakeError::catalog(path, format!("cannot read: {error}")))?;
    let file: AggregationFile =
        toml::from_str(&text).map_err(|error| BakeError::catalog(path, error.to_string()))?;
    let invalid =
        |field: String, message: String| BakeError::catalog(path, format!("{field}: {message}"));
    let mapped_ids: std::collections::BTreeSet<String> = catalog
        .mappings
        .values()
        .flat_map(|mapping| mapping.rows.iter())
        .map(|row| Metric::id_for_code(&row.source_code))
        .collect();
    for (name, weight) in &file.weights {
        let field = format!("weights.{name}");
        for id in std::iter::once(&weight.indicator)
            .chain(&weight.times)
            .chain(&weight.metrics)
        {
            if !mapped_ids.contains(id) {
                return Err(invalid(
                    field.clone(),
                    format!("`{id}` is not a mapped metric id"),
                ));
            }
        }
        if weight
            .factor
            .is_some_and(|factor| factor.is_nan() || factor <= 0.0)
        {
            return Err(invalid(field, "`factor` must be positive".into()));
        }
        if weight.description.trim().is_empty() {
            return Err(invalid(field, "give a `description`".into()));
        }
    }
    let check_weight =
        |field: &str, aggregation: Option<Aggregation>, weight: &Option<String>| match (
            aggregation,
            weight,
        ) {
            (Some(Aggregation::WeightedMean), None) => Err(invalid(
                field.to_string(),
                "aggregation `weighted_mean` needs a `weight` (a [weights] name)".into(),
            )),
            (Some(aggregation), Some(_)) if aggregation != Aggregation::WeightedMean => {
                Err(invalid(
                    field.to_string(),
                    format!(
                        "`weight` is for aggregation `weighted_mean`, not `{}`",
                        aggregation.as_str()
                    ),
                ))
            }
            (_, Some(name)) if !file.weights.contains_key(name) => Err(invalid(
                field.to_string(),
                format!(
                    "weight `{name}` is not declared; declared: {:?}",
                    file.weights.keys().collect::<Vec<_>>()
                ),
            )),
            _ => Ok(()),
        };
    for (override_idx, entry) in file.overrides.iter().enumerate() {
        check_weight(
            &format!("overrides[{override_idx}]"),
            entry.aggregation,
            &entry.weight,
        )?;
    }
    for (rule_idx, rule) in file.rules.iter().enumerate() {
        check_weight(
            &format!("rules[{rule_idx}]"),
            Some(rule.aggregation),
            &rule.weight,
        )?;
    }
    for (rule_idx, rule) in file.rules.iter().enumerate() {
        let field = format!("rules[{rule_idx}]");
        if rule.unit_contains.is_empty() && rule.unit_is.is_empty() {
            return Err(invalid(
                field,
                "give `unit_contains` or `unit_is` (the units the rule covers)".into(),
            ));
        }
        if rule
            .unit_contains
            .iter()
            .chain(&rule.unit_is)
            .any(|pattern| pattern.trim().is_empty())
        {
            return Err(invalid(field, "a unit pattern is empty".into()));
        }
        check_declaration(
            &field,
            Some(rule.aggregation),
            Some(rule.scale),
            Some(rule.comparable),
            &rule.reason,
        )
        .map_err(|message| invalid(field.clone(), message))?;
    }
    // Metric id -> (unit, mapping file), every mapped metric.
    let mut mapped: BTreeMap<String, (String, String)> = BTreeMap::new();
    for mapping in catalog.mappings.values() {
        for row in &mapping.rows {
            mapped.insert(
                Metric::id_for_code(&row.source_code),
                (row.unit.clone(), mapping.file.display().to_string()),
            );
        }
    }
    let mut by_metric = BTreeMap::new();
    for (override_idx, entry) in file.overrides.iter().enumerate() {
        let field = format!("overrides[{override_idx}]");
        if entry.metrics.is_empty() {
            return Err(invalid(
                format!("{field}.metrics"),
                "name at least one metric id".into(),
            ));
        }
        if entry.aggregation.is_none()
            && entry.scale.is_none()
            && entry.comparable.is_none()
            && entry.coverage.is_none()
        {
            return Err(invalid(
                field,
                "give `aggregation`, `scale`, `comparable` or `coverage` (what the override changes)"
                    .into(),
            ));
        }
        if entry
            .coverage
            .as_deref()
            .is_some_and(|coverage| coverage.trim().is_empty())
        {
            return Err(invalid(
                format!("{field}.coverage"),
                "name who the publisher covers (`IDA-eligible countries only`)".into(),
            ));
        }
        check_declaration(
            &field,
            entry.aggregation,
            entry.scale,
            entry.comparable,
            &entry.reason,
        )
        .map_err(|message| invalid(field.clone(), message))?;
        for id in &entry.metrics {
            if !mapped.contains_key(id) {
                let mut close: Vec<&String> = mapped
                    .keys()
                    .filter(|candidate| {
                        candidate.contains(id.as_str()) || id.contains(candidate.as_str())
                    })
                    .collect();
                close.truncate(5);
                return Err(invalid(
                    format!("{field}.metrics"),
                    format!(
                        "`{id}` is not a mapped metric id{}",
                        if close.is_empty() {
                            String::new()
                        } else {
                            format!("; close: {close:?}")
                        }
                    ),
                ));
            }
            if let Some(earlier) = by_metric.insert(id.clone(), override_idx) {
                return Err(invalid(
                    format!("{field}.metrics"),
                    format!("`{id}` is already overridden by overrides[{earlier}]"),
                ));
            }
        }
    }
    let direction_notes = direction_notes(&file.directions, catalog)
        .map_err(|(field, message)| invalid(field, message))?;
    let rules = AggregationRules {
        weights: file.weights,
        publisher_methods: BTreeMap::new(),
        rules: file.rules,
        overrides: file.overrides,
        by_metric,
        declared: true,
        direction_notes,
    };
    for (id, (unit, mapping_file)) in &mapped {
        let Some(resolved) = rules.resolve(id, unit) else {
            return Err(invalid(
                "rules".into(),
                format!(
                    "metric `{id}` (unit {unit:?}, {mapping_file}) matches no rule: add a [[rules]] \
                     pattern for its unit or an [[overrides]] entry naming it"
                ),
            ));
        };
        check_declaration(
            id,
            Some(resolved.aggregation),
            Some(resolved.scale),
            Some(resolved.comparable),
            &resolved.reason,
        )
        .map_err(|message| {
            invalid(
                resolved.declared_by.clone(),
                format!("metric `{id}` resolves to an incoherent declaration: {message}"),
            )
        })?;
    }
    Ok(rules)
}

/// The `[[directions]]` notes by metric id, checked against the catalog: every metric mapped with
/// `good_direction = ambiguous` has one note, and a note names only such metrics.
fn direction_notes(
    directions: &[Direction],
    catalog: &Catalog,
) -> Result<BTreeMap<String, String>, (String, String)> {
    let mut ambiguous: BTreeMap<String, String> = BTreeMap::new();
    for mapping in catalog.mappings.values() {
        for row in &mapping.rows {
            if row.good_direction == corpus::GoodDirection::Ambiguous {
                ambiguous.insert(
                    Metric::id_for_code(&row.source_code),
                    mapping.file.display().to_string(),
                );
            }
        }
    }
    let mut notes = BTreeMap::new();
    for (entry_idx, entry) in directions.iter().enumerate() {
        let field = format!("directions[{entry_idx}]");
        if entry.note.trim().is_empty() {
            return Err((
                field,
                "give a `note`: why the direction is ambiguous".into(),
            ));
        }
        if entry.metrics.is_empty() {
            return Err((
                format!("{field}.metrics"),
                "name at least one metric id".into(),
            ));
        }
        for id in &entry.metrics {
            if !ambiguous.contains_key(id) {
                return Err((
                    format!("{field}.metrics"),
                    format!(
                        "`{id}` is not a mapped metric whose good_direction is `ambiguous`: set it in \
                         its metrics CSV or drop it here"
                    ),
                ));
            }
            if notes.insert(id.clone(), entry.note.clone()).is_some() {
                return Err((
                    format!("{field}.metrics"),
                    format!("`{id}` already has a direction note"),
                ));
            }
        }
    }
    if let Some((id, file)) = ambiguous.iter().find(|(id, _)| !notes.contains_key(*id)) {
        return Err((
            "directions".into(),
            format!(
                "metric `{id}` ({file}) has good_direction `ambiguous` but no [[directions]] note \
                 saying why"
            ),
        ));
    }
    Ok(notes)
}

/// The coherence of one declaration (fields left out are not checked).
fn check_declaration(
    field: &str,
    aggregation: Option<Aggregation>,
    scale: Option<Scale>,
    comparable: Option<bool>,
    reason: &str,
) -> Result<(), String> {
    if reason.trim().is_empty() {
        return Err(format!(
            "{field} needs a `reason` (shown with every refusal)"
        ));
    }
    if comparable == Some(false)
        && aggregation.is_some_and(|aggregation| aggregation != Aggregation::None)
    {
        return Err(format!(
            "values that do not compare across countries (`comparable = false`) have no regional value: \
             aggregation must be `none`, not `{}`",
            aggregation.map_or("", Aggregation::as_str)
        ));
    }
    if aggregation == Some(Aggregation::Sum) && scale == Some(Scale::Growth) {
        return Err(
            "growth rates do not add up across countries: aggregation `sum` needs a scale of `ratio` or `interval`"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> AggregationRules {
        let file: AggregationFile = toml::from_str(text).expect("parses");
        AggregationRules {
            weights: file.weights,
            publisher_methods: BTreeMap::new(),
            rules: file.rules,
            overrides: file.overrides,
            by_metric: BTreeMap::from([("ny_gdp_pcap_cd".to_string(), 0)]),
            declared: true,
            direction_notes: BTreeMap::new(),
        }
    }

    #[test]
    fn the_first_matching_rule_decides_and_an_override_wins() {
        let rules = rules(
            r#"
            [[rules]]
            unit_contains = ["LCU per"]
            aggregation = "none"
            comparable = false
            reason = "an exchange rate"
            [[rules]]
            unit_contains = ["US$", "%"]
            aggregation = "sum"
            reason = "a total"
            [[rules]]
            unit_contains = ["%"]
            aggregation = "median"
            reason = "never reached for %"
            [[overrides]]
            metrics = ["ny_gdp_pcap_cd"]
            aggregation = "population_weighted_mean"
            reason = "per person"
            "#,
        );
        let exchange = rules
            .resolve("pa_nus_fcrf", "LCU per US$, period average")
            .unwrap();
        assert_eq!(
            (
                exchange.aggregation,
                exchange.comparable,
                exchange.declared_by.as_str()
            ),
            (
                Aggregation::None,
                false,
                "rules[0] (unit contains \"LCU per\")"
            )
        );
        assert_eq!(
            rules.resolve("x", "% of GDP").unwrap().aggregation,
            Aggregation::Sum
        );
        let per_person = rules.resolve("ny_gdp_pcap_cd", "current US$").unwrap();
        assert_eq!(
            (
                per_person.aggregation,
                per_person.scale,
                per_person.declared_by.as_str()
            ),
            (
                Aggregation::PopulationWeightedMean,
                Scale::Ratio,
                "overrides[0]"
            )
        );
        assert!(rules.resolve("y", "tonnes").is_none());
    }

    #[test]
    fn unknown_fields_and_incoherent_declarations_are_refused() {
        let error = toml::from_str::<AggregationFile>(
            "[[rules]]\nunit_contains = [\"%\"]\naggregation = \"mean\"\nreason = \"x\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("unknown variant `mean`"), "{error}");
        let error = toml::from_str::<AggregationFile>(
            "[[rules]]\nunit_contains = [\"%\"]\naggregation = \"sum\"\nweights = \"gdp\"\nreason = \"x\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("unknown field `weights`"), "{error}");
        assert!(
            check_declaration(
                "rules[0]",
                Some(Aggregation::Median),
                None,
                Some(false),
                "x"
            )
            .unwrap_err()
            .contains("aggregation must be `none`")
        );
        assert!(
            check_declaration(
                "rules[0]",
                Some(Aggregation::Sum),
                Some(Scale::Growth),
                None,
                "x"
            )
            .is_err()
        );
    }
}
