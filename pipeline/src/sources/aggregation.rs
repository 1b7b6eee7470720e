//! `data/aggregation.toml`: how each metric's values form a regional value (`population_weighted_mean`,
//! `sum`, `median` or `none`), which statistics apply to them (`scale`: `ratio`, `interval`, `growth`)
//! and whether they compare across countries — declared by unit pattern (`[[rules]]`, the first whose
//! pattern matches a metric's unit decides) with per-metric `[[overrides]]` on top.
//!
//! Validated on load: unknown fields are refused; every mapped metric resolves to exactly one
//! declaration (its override, else the first matching rule) or the file is refused naming the metric;
//! an override names mapped metrics only, once each; and a declaration is coherent (a value that does
//! not compare across countries has no regional value; a growth rate is never summed).

use std::{collections::BTreeMap, path::Path};

use corpus::{
    Metric,
    analytics::{Aggregation, Scale},
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AggregationFile {
    #[serde(default)]
    rules: Vec<UnitRule>,
    #[serde(default)]
    overrides: Vec<Override>,
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
    /// `overrides[i]` or `rules[i] (unit contains "…")`.
    pub declared_by: String,
}

/// The validated declarations.
#[derive(Debug, Clone, Default)]
pub struct AggregationRules {
    rules: Vec<UnitRule>,
    overrides: Vec<Override>,
    /// Override index per metric id.
    by_metric: BTreeMap<String, usize>,
    /// Whether the file exists; without it nothing is declared and nothing is aggregated.
    declared: bool,
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
        if !self.declared {
            return Some(Resolved {
                aggregation: Aggregation::None,
                scale: Scale::Interval,
                comparable: true,
                reason: format!("the catalog has no {FILE}: no aggregation is declared"),
                declared_by: "default".into(),
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
                Some(Resolved {
                    aggregation: entry.aggregation.or(base.map(|rule| rule.aggregation))?,
                    scale: entry.scale.or(base.map(|rule| rule.scale))?,
                    comparable: entry.comparable.or(base.map(|rule| rule.comparable))?,
                    reason: entry.reason.clone(),
                    declared_by: format!("overrides[{override_idx}]"),
                })
            }
            None => by_unit.map(|(rule, declared_by)| Resolved {
                aggregation: rule.aggregation,
                scale: rule.scale,
                comparable: rule.comparable,
                reason: rule.reason.clone(),
                declared_by,
            }),
        }
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
    let rules = AggregationRules {
        rules: file.rules,
        overrides: file.overrides,
        by_metric,
        declared: true,
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
            rules: file.rules,
            overrides: file.overrides,
            by_metric: BTreeMap::from([("ny_gdp_pcap_cd".to_string(), 0)]),
            declared: true,
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
