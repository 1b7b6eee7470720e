//! Argument checks and resolution shared by the tools: raw strings and numbers of a call turned into
//! corpus entities (metric, pillar, countries, years), each refusal an [`ToolError::Invalid`] that names
//! the value and what would be valid; and [`snippet`], the cut every message echoes a value with.
//! [`Territories`] is what an answer that ranks or picks a frontier says about the territories its
//! `include_territories` argument left in or out (`corpus::frontier`: sovereign by default).

use corpus::{Country, Metric, Pillar};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::ToolError;
use crate::load::Corpus;

/// Deserializes an optional whole number the way JSON Schema's `integer` reads it: `2010` and `2010.0`
/// are the same year, and so is `"2010"` (some clients send a typed-in number as a string); `2010.5`,
/// other text or a value out of the field's range are refused, naming what was found. For
/// `#[serde(default, deserialize_with = "arguments::whole_number")]` on `Option<i32>` and `Option<u32>`
/// arguments.
///
/// # Errors
/// The deserializer's error for anything but a whole number within `T`'s range, or null.
pub fn whole_number<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<i64>,
{
    use serde::{Deserialize, de::Error};
    let number = match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(number)) => number,
        Some(Value::String(text)) => text.trim().parse::<serde_json::Number>().map_err(|_| {
            D::Error::custom(format!(
                "expected a whole number, found the text \"{}\"",
                snippet(&text)
            ))
        })?,
        Some(other) => {
            let kind = match other {
                Value::Bool(_) => "a boolean",
                Value::Array(_) => "an array",
                _ => "an object",
            };
            return Err(D::Error::custom(format!(
                "expected a whole number, found {kind}"
            )));
        }
    };
    let whole = number.as_i64().or_else(|| {
        number
            .as_f64()
            .filter(|value| value.fract() == 0.0 && value.abs() < 9.0e15)
            .map(|value| value as i64)
    });
    whole
        .and_then(|whole| T::try_from(whole).ok())
        .map(Some)
        .ok_or_else(|| {
            D::Error::custom(format!("expected a whole number in range, found {number}"))
        })
}

/// The metric an optional argument names, as [`metric`] reads it.
///
/// # Errors
/// As [`metric`].
pub fn optional_metric<'a>(
    corpus: &'a Corpus,
    id: Option<&str>,
) -> Result<Option<&'a Metric>, ToolError> {
    id.map(|id| metric(corpus, id)).transpose()
}

/// The pillar an optional argument names, as [`pillar`] reads it.
///
/// # Errors
/// As [`pillar`].
pub fn optional_pillar<'a>(
    corpus: &'a Corpus,
    id: Option<&str>,
) -> Result<Option<&'a Pillar>, ToolError> {
    id.map(|id| pillar(corpus, id)).transpose()
}

/// The country an optional argument names, as [`countries`] reads one.
///
/// # Errors
/// As [`countries`].
pub fn optional_country<'a>(
    corpus: &'a Corpus,
    text: Option<&str>,
) -> Result<Option<&'a Country>, ToolError> {
    text.map(|text| countries(corpus, &[text.to_string()], 1, 1).map(|found| found[0]))
        .transpose()
}

/// The metric with id `id`, or an error naming it with the closest valid ids.
///
/// # Errors
/// [`ToolError::Invalid`] listing up to five close ids (by edit distance and by search).
pub fn metric<'a>(corpus: &'a Corpus, id: &str) -> Result<&'a Metric, ToolError> {
    if let Some(metric) = corpus
        .baked
        .metric(id)
        .or_else(|| corpus.baked.metric(&Metric::id_for_code(id)))
    {
        return Ok(metric);
    }
    let mut by_distance: Vec<(usize, &str)> = corpus
        .baked
        .metrics()
        .iter()
        .map(|metric| (strsim::levenshtein(id, &metric.id), metric.id.as_str()))
        .collect();
    by_distance.sort();
    let mut closest: Vec<String> = by_distance
        .iter()
        .take(3)
        .map(|(_, id)| id.to_string())
        .collect();
    for hit in corpus
        .index
        .search(&id.replace('_', " "), None, 3)
        .unwrap_or_default()
    {
        if !closest.contains(&hit.id) {
            closest.push(hit.id);
        }
    }
    closest.truncate(5);
    Err(ToolError::Invalid(format!(
        "unknown indicator `{}`; closest valid ids: {}. Call resolve_metric to find an indicator by name",
        snippet(id),
        closest.join(", ")
    )))
}

/// The metric `id`, checked to belong to the pillar `parameter` when one is given (the indicator fixes
/// its pillar, so an agent may leave it out).
///
/// # Errors
/// As [`pillar`] and [`metric`], or [`ToolError::Invalid`] naming the indicator's own pillar.
pub fn metric_in_pillar<'a>(
    corpus: &'a Corpus,
    parameter: Option<&str>,
    id: &str,
) -> Result<&'a Metric, ToolError> {
    let pillar = optional_pillar(corpus, parameter)?;
    let metric = metric(corpus, id)?;
    if let Some(pillar) = pillar
        && metric.pillar != pillar.id
    {
        return Err(ToolError::Invalid(format!(
            "indicator `{}` belongs to pillar `{}`, not `{}`; call again with parameter `{}` or without it",
            metric.id, metric.pillar, pillar.id, metric.pillar
        )));
    }
    Ok(metric)
}

/// The pillar `id` (already normalised by the plugin), or an error listing the valid pillars.
///
/// # Errors
/// [`ToolError::Invalid`] naming the value and the valid pillar ids.
pub fn pillar<'a>(corpus: &'a Corpus, id: &str) -> Result<&'a Pillar, ToolError> {
    corpus.baked.pillars().get(id).ok_or_else(|| {
        let valid: Vec<&str> = corpus
            .baked
            .pillars()
            .pillars()
            .iter()
            .map(|pillar| pillar.id.as_str())
            .collect();
        ToolError::Invalid(format!(
            "unknown parameter (pillar) `{}`; valid: {}",
            snippet(id),
            valid.join(", ")
        ))
    })
}

/// The countries named in `codes` (already normalised), in order and without repeats, checking
/// `min..=max` of them.
///
/// # Errors
/// [`ToolError::Invalid`] for a count out of range, or naming each value that is not a country of the
/// corpus, with the valid ISO3 codes.
pub fn countries<'a>(
    corpus: &'a Corpus,
    codes: &[String],
    min: usize,
    max: usize,
) -> Result<Vec<&'a Country>, ToolError> {
    if codes.len() > max {
        return Err(ToolError::Invalid(format!(
            "countries: give {min} to {max} countries, got {}",
            codes.len()
        )));
    }
    let mut found: Vec<&Country> = Vec::new();
    let mut unknown = Vec::new();
    for code in codes {
        match corpus
            .baked
            .countries()
            .get(code)
            .filter(|entity| entity.kind == corpus::EntityKind::Country)
        {
            Some(country) if !found.iter().any(|seen| seen.iso3 == country.iso3) => {
                found.push(country)
            }
            Some(_) => {}
            None => match corpus.baked.countries().lookup(code) {
                corpus::PlaceMatch::Unknown | corpus::PlaceMatch::Country(_) => {
                    unknown.push(format!("`{}`", snippet(code)))
                }
                place => return Err(ToolError::Invalid(place_refusal(code, &place))),
            },
        }
    }
    if !unknown.is_empty() {
        let valid: Vec<&str> = corpus
            .baked
            .countries()
            .countries()
            .map(|country| country.iso3.as_str())
            .collect();
        return Err(ToolError::Invalid(format!(
            "not a country of the corpus: {}; valid: ISO3 codes or names of Latin America and the Caribbean: {}",
            unknown.join(", "),
            valid.join(", ")
        )));
    }
    if found.len() < min || found.len() > max {
        return Err(ToolError::Invalid(format!(
            "countries: give {min} to {max} distinct countries, got {}",
            found.len()
        )));
    }
    Ok(found)
}

/// Why `text`, which names `place`, is not one country of the corpus: the candidates of an ambiguous
/// name (`Virgin Islands` fits VIR (U.S. Virgin Islands) and VGB (British Virgin Islands)), a place outside
/// the corpus named as such (`Spain` is ESP, outside Latin America and the Caribbean), an aggregate named
/// as one; empty for a country or an unknown text (the caller lists the valid codes).
pub fn place_refusal(text: &str, place: &corpus::PlaceMatch<'_>) -> String {
    let text = snippet(text);
    match place {
        corpus::PlaceMatch::Ambiguous { candidates, note } => {
            let named: Vec<String> = candidates
                .iter()
                .map(|country| format!("{} ({})", country.iso3, country.names.en))
                .collect();
            let why = note.map(|note| format!(" ({note})")).unwrap_or_default();
            format!(
                "`{text}` fits more than one place of the corpus: {}{why}; give the ISO3 code of the one meant",
                named.join(", ")
            )
        }
        corpus::PlaceMatch::Outside(outside) => format!(
            "`{text}` is {} ({}), outside the corpus: it holds the 52 countries and territories of Latin America and the Caribbean (UN M49 419) only",
            outside.names.en, outside.iso3
        ),
        corpus::PlaceMatch::Aggregate(aggregate) => format!(
            "`{text}` is the comparison aggregate {} ({}): not a country of the corpus; aggregates are kept beside the countries for comparison only",
            aggregate.iso3, aggregate.names.en
        ),
        corpus::PlaceMatch::Country(_) | corpus::PlaceMatch::Unknown => String::new(),
    }
}

/// `text` cut for echoing in a message ([`crate::text::snippet`]).
pub use crate::text::snippet;

/// A window of years asked for (`from_year`/`to_year`, either end open), for the dated curated records.
#[derive(Debug, Clone, Copy)]
pub struct YearWindow {
    /// First year, inclusive.
    pub from: Option<i32>,
    /// Last year, inclusive.
    pub to: Option<i32>,
}

impl YearWindow {
    /// The window of `from_year`/`to_year`, `None` when neither is given.
    ///
    /// # Errors
    /// [`ToolError::Invalid`] for a year outside 1900-2100 or `from_year` after `to_year`.
    pub fn of(
        from_year: Option<i32>,
        to_year: Option<i32>,
    ) -> Result<Option<YearWindow>, ToolError> {
        if from_year.is_none() && to_year.is_none() {
            return Ok(None);
        }
        year_range(from_year, to_year)?;
        Ok(Some(YearWindow {
            from: from_year,
            to: to_year,
        }))
    }

    /// Whether a `YYYY-MM-DD` (or `YYYY-MM`, `YYYY`) date falls in the window; an undated record does not.
    pub fn holds_date(&self, date: Option<&str>) -> bool {
        date.and_then(|date| date.get(..4)?.parse::<i32>().ok())
            .is_some_and(|year| {
                self.from.is_none_or(|from| year >= from) && self.to.is_none_or(|to| year <= to)
            })
    }
}

/// Checks an optional year range.
///
/// # Errors
/// [`ToolError::Invalid`] if a year is outside 1900–2100 or `from_year > to_year`.
pub fn year_range(from_year: Option<i32>, to_year: Option<i32>) -> Result<(i32, i32), ToolError> {
    let from = from_year.unwrap_or(1900);
    let to = to_year.unwrap_or(2100);
    for (name, year) in [("from_year", from), ("to_year", to)] {
        if !(1900..=2100).contains(&year) {
            return Err(ToolError::Invalid(format!(
                "{name} {year}: give a year between 1900 and 2100"
            )));
        }
    }
    if from > to {
        return Err(ToolError::Invalid(format!(
            "from_year {from} is after to_year {to}"
        )));
    }
    Ok((from, to))
}

/// The territories behind an answer that ranks countries or picks a frontier or leaders: by default the
/// 33 sovereign countries are compared and the territories with values (Puerto Rico, the US Virgin
/// Islands, the Cayman Islands…) are left out; with `include_territories` (or territories named in
/// `countries`) they are compared and named here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct Territories {
    /// `sovereign` (the 33 sovereign countries only) or `with_territories` (territories compared too).
    pub scope: String,
    /// Territories (ISO3) compared in this answer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub included: Vec<String>,
    /// Territories (ISO3) with values that were left out; pass `include_territories: true` to compare them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
}

impl Territories {
    /// What an answer over `compared` (ISO3) says of the territories among `with_values` (ISO3 of every
    /// country with a value), in registry order.
    pub fn of<'a>(
        corpus: &Corpus,
        compared: impl IntoIterator<Item = &'a str>,
        with_values: impl IntoIterator<Item = &'a str>,
    ) -> Territories {
        let registry = corpus.baked.countries();
        let territory = |code: &&str| registry.get(code).is_some_and(|country| !country.sovereign);
        let mut included: Vec<String> = compared
            .into_iter()
            .filter(territory)
            .map(str::to_string)
            .collect();
        included.sort_unstable();
        included.dedup();
        let mut left_out: Vec<String> = with_values
            .into_iter()
            .filter(territory)
            .filter(|code| {
                included
                    .binary_search_by(|seen| seen.as_str().cmp(code))
                    .is_err()
            })
            .map(str::to_string)
            .collect();
        left_out.sort_unstable();
        left_out.dedup();
        Territories {
            scope: if included.is_empty() {
                "sovereign".into()
            } else {
                "with_territories".into()
            },
            included,
            left_out,
        }
    }
}
