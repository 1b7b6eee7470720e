//! The text of an indicator: the definition that ships with its values, the older series metadata only
//! where it still describes the same thing, and the publisher's word that a series is modelled.
//!
//! WDI values and titles are the 2026-07 release (each indicator's `datapackage.json`), while the only
//! series metadata (`WDISeries.csv`, definitions and methodology) is the 2022 release. The definition
//! shown is the one shipped with the values. The older methodology note is kept only when it agrees with
//! the values' release: same title (case and spacing aside) and no poverty line (`$1.90`), PPP round
//! (`2011 PPP`) or base year (`2000 = 100`, `constant 2015`) that the values' text does not state. When
//! it disagrees the note is withheld and the methodology says that the available note is of an older
//! definition; the bake report lists each such indicator ([`corpus::report::StaleText`]).

use std::collections::BTreeSet;

use corpus::report::StaleText;

use crate::{
    ingest::{raw::Descriptor, wdi_metadata::SeriesMetadata},
    sources::MetricMappingRow,
};

/// The flag set on every observation of a series its publisher calls a modelled estimate.
pub const MODELLED_FLAG: &str = "modelled";

/// Whether any of `titles` calls the series a modelled estimate (WDI's "(modeled ILO estimate)",
/// "(modeled estimate, per 100,000 live births)").
pub fn is_modelled<'a>(titles: impl IntoIterator<Item = &'a str>) -> bool {
    titles.into_iter().any(|title| {
        let lower = title.to_lowercase();
        ["modeled", "modelled"].iter().any(|word| {
            lower.match_indices(word).any(|(at, _)| {
                lower[at..]
                    .char_indices()
                    .take_while(|(offset, _)| *offset <= 24)
                    .any(|(offset, _)| lower[at + offset..].starts_with("estimate"))
            })
        })
    })
}

/// An indicator's definition and methodology as published, and whether older metadata was withheld.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricText {
    /// The definition.
    pub description: String,
    /// The methodology note, or what stands in for a withheld one.
    pub methodology: Option<String>,
    /// The withheld older metadata, if any.
    pub stale: Option<StaleText>,
}

/// The text of indicator `indicator` (metric id) of `row`, from its descriptor (title and definition
/// shipped with the values of release `vintage`), its series metadata (possibly of another release) and
/// the catalog row.
pub fn metric_text(
    indicator: &str,
    row: &MetricMappingRow,
    descriptor: &Descriptor,
    metadata: Option<&SeriesMetadata>,
    vintage: &str,
) -> MetricText {
    let stale = metadata.and_then(|metadata| stale_text(indicator, descriptor, metadata));
    let shipped = descriptor
        .description
        .clone()
        .or_else(|| row.description.clone());
    let Some(metadata) = metadata else {
        return MetricText {
            description: shipped.unwrap_or_default(),
            methodology: row.methodology.clone(),
            stale: None,
        };
    };
    if let Some(stale) = stale {
        let differences: Vec<&str> = stale
            .differences
            .iter()
            .map(|difference| {
                if difference.starts_with("title ") {
                    "another title"
                } else {
                    difference.as_str()
                }
            })
            .collect();
        let note = format!(
            "The only methodology note available is in the {} series metadata, which describes an older definition of this indicator ({}); it is not shown. The definition above is the one published with the values ({vintage} release).",
            stale.metadata_vintage,
            differences.join("; ")
        );
        return MetricText {
            description: shipped.unwrap_or_default(),
            methodology: Some(match &row.methodology {
                Some(own) => format!("{own}\n\n{note}"),
                None => note,
            }),
            stale: Some(stale),
        };
    }
    let methodology = metadata.methodology.clone().map(|note| {
        if metadata.vintage.is_empty() || metadata.vintage == vintage {
            note
        } else {
            format!(
                "{note}\n\n(From the {} series metadata; its title, lines and base years match the values' {vintage} release.)",
                metadata.vintage
            )
        }
    });
    MetricText {
        description: shipped
            .or_else(|| metadata.definition.clone())
            .unwrap_or_default(),
        methodology: methodology.or_else(|| row.methodology.clone()),
        stale: None,
    }
}

/// The older metadata's differences from the values' text, if any.
fn stale_text(
    indicator: &str,
    descriptor: &Descriptor,
    metadata: &SeriesMetadata,
) -> Option<StaleText> {
    let title = descriptor.title.as_deref()?;
    let old_title = metadata.title.as_deref()?;
    let mut differences = Vec::new();
    let normal = |text: &str| {
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    if normal(title) != normal(old_title) {
        differences.push(format!("title `{old_title}` → `{title}`"));
    }
    let new_text = format!(
        "{title} {}",
        descriptor.description.as_deref().unwrap_or_default()
    );
    let old_text = [
        Some(old_title),
        metadata.definition.as_deref(),
        metadata.methodology.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    let new = Markers::of(&new_text);
    let mut old = Markers::of(&old_text);
    if let Some(base) = metadata.base_period.as_deref().and_then(year_of) {
        old.base.insert(base);
    }
    for (what, old, new) in [
        ("poverty line", &old.lines, &new.lines),
        ("PPP round", &old.ppp, &new.ppp),
        ("base year", &old.base, &new.base),
    ] {
        let unmatched: Vec<&String> = old.difference(new).collect();
        if unmatched.is_empty() {
            continue;
        }
        let list = |set: Vec<&String>| {
            set.iter()
                .map(|item| item.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        differences.push(if new.is_empty() {
            format!(
                "{what} {} in the older note, not stated with the values",
                list(unmatched)
            )
        } else {
            format!(
                "{what} {} → {}",
                list(unmatched),
                list(new.iter().collect())
            )
        });
    }
    (!differences.is_empty()).then(|| StaleText {
        indicator: indicator.to_string(),
        metadata_vintage: metadata.vintage.clone(),
        metadata_title: old_title.to_string(),
        title: title.to_string(),
        differences,
    })
}

/// A four-digit year 1900–2099 that is the whole of `text` (trimmed).
fn year_of(text: &str) -> Option<String> {
    let text = text.trim();
    (text.len() == 4 && is_year(text.as_bytes(), 0)).then(|| text.to_string())
}

/// Whether `bytes[at..at + 4]` is a year 1900–2099 not part of a longer number.
fn is_year(bytes: &[u8], at: usize) -> bool {
    let Some(digits) = bytes.get(at..at + 4) else {
        return false;
    };
    digits.iter().all(u8::is_ascii_digit)
        && (digits.starts_with(b"19") || digits.starts_with(b"20"))
        && !bytes.get(at + 4).is_some_and(u8::is_ascii_digit)
        && !(at > 0 && bytes[at - 1].is_ascii_digit())
}

/// The vintage markers of a text: poverty lines, PPP rounds and base years.
#[derive(Debug, Default, PartialEq, Eq)]
struct Markers {
    /// `$1.90`, `$3.00`.
    lines: BTreeSet<String>,
    /// `2011 PPP`.
    ppp: BTreeSet<String>,
    /// `2015`, `2014-2016`.
    base: BTreeSet<String>,
}

impl Markers {
    fn of(text: &str) -> Markers {
        let bytes = text.as_bytes();
        let lower = text.to_ascii_lowercase();
        let lower = lower.as_bytes();
        let mut markers = Markers::default();
        for at in 0..bytes.len() {
            if bytes[at] == b'$' {
                let digits = bytes[at + 1..]
                    .iter()
                    .take_while(|byte| byte.is_ascii_digit())
                    .count();
                let decimals = if bytes.get(at + 1 + digits) == Some(&b'.') {
                    bytes[at + 2 + digits..]
                        .iter()
                        .take_while(|byte| byte.is_ascii_digit())
                        .count()
                } else {
                    0
                };
                if (1..=3).contains(&digits) && decimals > 0 {
                    markers
                        .lines
                        .insert(text[at..at + 2 + digits + decimals].to_string());
                }
            }
            if !is_year(bytes, at) {
                continue;
            }
            let year = &text[at..at + 4];
            let rest = skip_spaces(lower, at + 4);
            if lower[rest..].starts_with(b"ppp") {
                markers.ppp.insert(format!("{year} PPP"));
            }
            // The second year of a range (`2014-2016`) was read with the first.
            if at > 0 && bytes[at - 1] == b'-' && at >= 5 && is_year(bytes, at - 5) {
                continue;
            }
            let after_range = (lower.get(rest) == Some(&b'-')
                && is_year(bytes, skip_spaces(lower, rest + 1)))
            .then(|| skip_spaces(lower, rest + 1));
            let period = after_range.map_or(year.to_string(), |start| {
                format!("{year}-{}", &text[start..start + 4])
            });
            let end_of_period = after_range.map_or(rest, |start| skip_spaces(lower, start + 4));
            let equals_100 = lower.get(end_of_period) == Some(&b'=')
                && lower[skip_spaces(lower, end_of_period + 1)..].starts_with(b"100");
            let trimmed = lower[..at].trim_ascii_end();
            let named_base = ["constant", "base year", "base year of", "base period"]
                .iter()
                .any(|word| trimmed.ends_with(word.as_bytes()));
            if equals_100 || named_base {
                markers.base.insert(period);
            }
        }
        markers
    }
}

fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|byte| *byte == b' ') {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_read_lines_ppp_rounds_and_base_years() {
        let markers = Markers::of(
            "Poverty headcount ratio at $1.90 a day (2011 PPP), MJ/$2017 PPP GDP, index (2000 = 100), (2014-2016 = 100), constant 2015 US$, current US$",
        );
        assert_eq!(markers.lines.into_iter().collect::<Vec<_>>(), vec!["$1.90"]);
        assert_eq!(
            markers.ppp.into_iter().collect::<Vec<_>>(),
            vec!["2011 PPP", "2017 PPP"]
        );
        assert_eq!(
            markers.base.into_iter().collect::<Vec<_>>(),
            vec!["2000", "2014-2016", "2015"]
        );
    }

    #[test]
    fn a_named_base_period_keeps_its_range() {
        let markers =
            Markers::of("values relative to the base period 2014-2016, and base year 2015");
        assert_eq!(
            markers.base.into_iter().collect::<Vec<_>>(),
            vec!["2014-2016", "2015"]
        );
    }

    #[test]
    fn modelled_estimates_are_read_from_titles() {
        assert!(is_modelled([
            "Unemployment, total (% of total labor force) (modeled ILO estimate)"
        ]));
        assert!(is_modelled([
            "Maternal mortality ratio (modeled estimate, per 100,000 live births)"
        ]));
        assert!(!is_modelled([
            "Unemployment, total (% of total labor force)"
        ]));
    }
}
