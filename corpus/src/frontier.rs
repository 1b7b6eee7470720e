//! The frontier rule: which of a cross-section's values may be a frontier, a leader or a laggard, and
//! in which order. One implementation for the bake (`year_stats.json` leaders and laggards) and the
//! server (`compute` rank and gap_to_frontier, `get_regional_pulse`, `recommend_action`).
//!
//! - **Sovereign by default.** Rankings, frontiers, leaders and laggards use the 33 sovereign countries
//!   of Latin America and the Caribbean ([`Country::sovereign`]: `is_independent = Yes` in
//!   `country_names/latam_country_names.csv`, the UN member states) unless territories are asked for
//!   (Puerto Rico, the US Virgin Islands, the Cayman Islands… are otherwise the frontier of many gaps).
//! - **No suspect value.** A value the governance flagged as doubtful ([`SUSPECT_FLAGS`]:
//!   `suspect_scale`, a probable fraction stored as a percent, such as MEX's poverty gap of 0.442) is
//!   never a leader, a laggard or a frontier.
//! - **A plausible target.** A gross ratio ([`target_cap`]: a unit or publisher code saying gross,
//!   e.g. WDI `SE.SEC.ENRR`, `% gross`) counts over-age and repeating pupils, so values above 100 % are
//!   not a goal: the target is capped at 100 and values are ordered as capped.
//! - **A direction to aim at.** Only indicators whose good direction is `up` or `down` have a frontier,
//!   leaders and laggards ([`GoodDirection::has_goal`]); `ambiguous` ones (a renewables share counting
//!   traditional biomass, threatened-species counts, a share whose denominator moved) have none, and
//!   `neutral` ones are ordered highest first without a frontier.

use crate::{Country, CountryRegistry, GoodDirection, Metric};

/// Number of sovereign countries of the region (UN member states of M49 sub-region 419).
pub const SOVEREIGN_COUNTRIES: usize = 33;

/// Observation flags that make a value unfit to be a leader, laggard or frontier.
pub const SUSPECT_FLAGS: [&str; 1] = ["suspect_scale"];

/// The cap of a gross ratio's target, in percent.
pub const GROSS_CAP: f64 = 100.0;

/// Whether `flags` (`|`-separated, as stored) hold a [`SUSPECT_FLAGS`] flag.
pub fn is_suspect(flags: &str) -> bool {
    flags.split('|').any(|flag| SUSPECT_FLAGS.contains(&flag))
}

/// The most a frontier of `metric` can be as a target: [`GROSS_CAP`] for a gross ratio (its unit
/// contains `gross`, or its publisher code ends in `ENRR`, WDI's gross enrolment ratios), `None`
/// otherwise.
pub fn target_cap(metric: &Metric) -> Option<f64> {
    let gross = metric.unit.to_ascii_lowercase().contains("gross")
        || metric.source_code.to_ascii_uppercase().ends_with(".ENRR");
    gross.then_some(GROSS_CAP)
}

/// The note an answer carries when a gross ratio's target is capped.
pub fn cap_note(cap: f64) -> String {
    format!(
        "a gross ratio counts over-age and repeating pupils, so values above {cap} % are not a goal: the \
         target is capped at {cap} and values above it are ordered as {cap}"
    )
}

/// Whether `country` takes part in a frontier, ranking, leaders or laggards: a sovereign country, or
/// any country of the region when `include_territories`.
pub fn in_scope(country: Option<&Country>, include_territories: bool) -> bool {
    country.is_some_and(|country| include_territories || country.sovereign)
}

/// The territories (non-sovereign countries) among `codes` (ISO3), in their order.
pub fn territories<'a>(registry: &CountryRegistry, codes: &'a [String]) -> Vec<&'a str> {
    codes
        .iter()
        .filter(|code| registry.get(code).is_some_and(|country| !country.sovereign))
        .map(String::as_str)
        .collect()
}

/// One value of a cross-section, as the frontier rule reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate<'a> {
    /// ISO3.
    pub country: &'a str,
    /// The value, in the indicator's unit.
    pub value: f64,
    /// Its `|`-separated flags.
    pub flags: &'a str,
}

impl<'a> From<&crate::Observation<'a>> for Candidate<'a> {
    /// The candidate of one stored observation: its country, value and flags.
    fn from(row: &crate::Observation<'a>) -> Self {
        Candidate {
            country: row.country,
            value: row.value,
            flags: row.flags,
        }
    }
}

/// Indices of the `candidates` that may be leaders, laggards or the frontier — in scope
/// ([`in_scope`]), not suspect — ordered best first by `direction` (highest first for `up` and
/// `neutral`, lowest first for `down`), values above `cap` ordered as `cap`, ties by country code.
/// Empty for an `ambiguous` direction: it has no leaders, laggards or frontier.
pub fn ranked(
    registry: &CountryRegistry,
    direction: GoodDirection,
    cap: Option<f64>,
    candidates: &[Candidate<'_>],
    include_territories: bool,
) -> Vec<usize> {
    if direction == GoodDirection::Ambiguous {
        return Vec::new();
    }
    let capped = |value: f64| cap.map_or(value, |cap| value.min(cap));
    let mut order: Vec<usize> = (0..candidates.len())
        .filter(|&idx| {
            let candidate = &candidates[idx];
            in_scope(registry.get(candidate.country), include_territories)
                && !is_suspect(candidate.flags)
        })
        .collect();
    order.sort_by(|&left, &right| {
        let (left, right) = (&candidates[left], &candidates[right]);
        let by_value = capped(right.value).total_cmp(&capped(left.value));
        (if direction == GoodDirection::Down {
            by_value.reverse()
        } else {
            by_value
        })
        .then(left.country.cmp(right.country))
    });
    order
}

#[cfg(test)]
mod tests {
    use super::{Candidate, is_suspect, ranked};
    use crate::{Country, CountryRegistry, EntityKind, GoodDirection, Names};

    fn country(iso3: &str, sovereign: bool) -> Country {
        Country {
            iso3: iso3.into(),
            iso2: iso3[..2].into(),
            kind: EntityKind::Country,
            names: Names {
                en: iso3.into(),
                es: None,
                pt: None,
            },
            aliases: Vec::new(),
            intermediate_region: None,
            income_group: None,
            sovereign,
            observations: 1,
        }
    }

    #[test]
    fn territories_and_suspect_values_are_never_leaders() {
        let registry = CountryRegistry::new(vec![
            country("DOM", true),
            country("MEX", true),
            country("PRI", false),
            country("GTM", true),
        ]);
        let candidates = [
            Candidate {
                country: "DOM",
                value: 80.0,
                flags: "",
            },
            Candidate {
                country: "MEX",
                value: 0.442,
                flags: "suspect_scale",
            },
            Candidate {
                country: "PRI",
                value: 124.9,
                flags: "",
            },
            Candidate {
                country: "GTM",
                value: 104.0,
                flags: "modelled",
            },
        ];
        let up = ranked(
            &registry,
            GoodDirection::Up,
            Some(100.0),
            &candidates,
            false,
        );
        assert_eq!(up, vec![3, 0]);
        let down = ranked(&registry, GoodDirection::Down, None, &candidates, true);
        assert_eq!(down, vec![0, 3, 2]);
        assert!(ranked(&registry, GoodDirection::Ambiguous, None, &candidates, true).is_empty());
        assert!(is_suspect("modelled|suspect_scale"));
        assert!(!is_suspect("modelled"));
    }
}
