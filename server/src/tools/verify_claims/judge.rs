//! Judging one claim against the governed value: the bands of `match` and `close`, the other publishers
//! and vintages of the same quantity, and the diagnoses (see the module above for the rules).

use std::collections::HashMap;

use corpus::{Lang, Metric, Observation, PlaceMatch, is_projection};
use schemars::JsonSchema;
use serde::Serialize;

use super::{Claim, CorpusValue, Read, Verdict, VerdictKind, parse, place};
use crate::{
    load::Corpus,
    tools::{ToolError, arguments, resolve_metric::MATCH_SHARE},
};

/// The bands a claim is judged with, in the indicator's unit.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct Tolerance {
    /// Largest difference read as `match`: half a unit of the claim's last digit.
    #[serde(rename = "match")]
    pub matched: f64,
    /// Largest difference read as `close`.
    pub close: f64,
    /// `standard_error` when `close` is the publisher's standard error (WGI); absent when it is 2 % of
    /// the value (or twice the rounding).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basis: Option<&'static str>,
}

/// What kind of transformation explains a difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosisKind {
    /// Another year's value matches.
    Year,
    /// The claim × a power of ten (×100, thousands, millions…) is close.
    Scale,
    /// The claim with the other sign is close.
    Sign,
    /// Another publisher's value of the same quantity matches.
    Publisher,
    /// An older vintage's value matches (the figure was revised since).
    Vintage,
    /// A regional aggregate's value is close (a regional figure given as the country's).
    Aggregate,
}

/// One explanation of a difference, cited.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Diagnosis {
    /// Which transformation.
    pub kind: DiagnosisKind,
    /// What it says, in words.
    pub says: String,
    /// The value that matches, in its own unit, when one is cited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Its citation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation_id: Option<String>,
}

/// The same quantity at another publisher or vintage, judged against the claim.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OtherValue {
    /// Its indicator id (`ngdp_rpch`).
    pub indicator: String,
    /// Its release (`2025-04`).
    pub vintage: String,
    /// True for a vintage the corpus keeps beside the current one (never makes a match).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub older_vintage: bool,
    /// Its value, in its own unit.
    pub value: f64,
    /// The value in the claim's indicator's unit, when the units differ (a 0-1 Gini × 100).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aligned: Option<f64>,
    /// Its citation.
    pub citation_id: String,
    /// True when the value is the publisher's projection (or an estimate), not an observation.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub projection: bool,
    /// The claim against it.
    pub verdict: VerdictKind,
}

/// The concordance pairs (`concordance.arrow`) by metric: each other publisher's indicator of the same
/// quantity and the factor that puts its values in this metric's unit. Pairs whose right value is
/// multiplied by a third series (a per-capita value × population) are left out.
pub struct Pairs {
    by_metric: HashMap<String, Vec<(String, f64)>>,
}

impl Pairs {
    /// The pairs of the corpus.
    ///
    /// # Errors
    /// [`ToolError::Internal`] if the concordance table cannot be read.
    pub fn of(corpus: &Corpus) -> Result<Pairs, ToolError> {
        let rows = corpus.concordance().map_err(ToolError::Internal)?;
        let mut by_metric: HashMap<String, Vec<(String, f64)>> = HashMap::new();
        for row in rows {
            if row.right_times_indicator.is_some() || row.right_value == 0.0 {
                continue;
            }
            let known = by_metric.get(&row.left_indicator).is_some_and(|others| {
                others
                    .iter()
                    .any(|(other, _)| *other == row.right_indicator)
            });
            if known {
                continue;
            }
            // The declared factors are powers of ten (× 100 for a 0-1 scale): the rounded ratio.
            let factor = (row.right_value_aligned / row.right_value).log10().round();
            let factor = 10f64.powf(factor);
            by_metric
                .entry(row.left_indicator.clone())
                .or_default()
                .push((row.right_indicator.clone(), factor));
            by_metric
                .entry(row.right_indicator.clone())
                .or_default()
                .push((row.left_indicator.clone(), 1.0 / factor));
        }
        Ok(Pairs { by_metric })
    }

    fn of_metric(&self, metric: &str) -> &[(String, f64)] {
        self.by_metric.get(metric).map_or(&[], Vec::as_slice)
    }
}

/// The scale factors a diagnosis tries, most plausible first, with what each means.
const SCALES: [(f64, &str); 10] = [
    (
        100.0,
        "×100 (a 0-1 fraction for a percentage or 0-100 score)",
    ),
    (0.01, "÷100 (a percentage for a fraction)"),
    (1e3, "×1,000 (in thousands)"),
    (1e-3, "÷1,000"),
    (1e6, "×1,000,000 (in millions)"),
    (1e-6, "÷1,000,000"),
    (1e9, "×1,000,000,000 (in billions)"),
    (1e-9, "÷1,000,000,000"),
    (
        10.0,
        "×10 (an order of magnitude: per 10,000 for per 100,000, a slipped decimal)",
    ),
    (0.1, "÷10 (an order of magnitude)"),
];

/// Judges `claim` (position `number`); the citation ids its verdict cites.
///
/// # Errors
/// [`ToolError::Internal`] if a stored table cannot be read; a claim's own problem is a `cannot_verify`
/// verdict, never an error.
pub(super) fn judge(
    corpus: &Corpus,
    pairs: &Pairs,
    claim: &Claim,
    number: usize,
    lang: Lang,
) -> Result<(Verdict, Vec<String>), ToolError> {
    let text = claim.text.as_deref().unwrap_or_default();
    let from_text = parse::read(text);
    let mut read = Read::default();
    let refuse = |read: Read, reason: String| Verdict {
        claim: number,
        verdict: VerdictKind::CannotVerify,
        read,
        corpus: None,
        difference: None,
        tolerance: None,
        diagnosis: Vec::new(),
        also: Vec::new(),
        reason: Some(reason),
    };
    // The place.
    let named = match &claim.country {
        Some(country) => Some(place::ReadPlace {
            words: country.clone(),
            place: corpus.baked.countries().lookup(country),
        }),
        None => place::read(corpus, text),
    };
    let Some(named) = named else {
        return Ok((
            refuse(
                read,
                "no place read: name a country or territory of Latin America and the Caribbean (its name in es/en/pt or its ISO3 code), or `country`".into(),
            ),
            Vec::new(),
        ));
    };
    let (entity, is_aggregate) = match &named.place {
        PlaceMatch::Country(country) => (*country, false),
        PlaceMatch::Aggregate(aggregate) => (*aggregate, true),
        PlaceMatch::Unknown => {
            let reason = format!(
                "`{}` is no place of the corpus: name a country or territory of Latin America and the Caribbean (its name in es/en/pt or its ISO3 code)",
                arguments::snippet(&named.words)
            );
            return Ok((refuse(read, reason), Vec::new()));
        }
        place => {
            let reason = arguments::place_refusal(&named.words, place);
            return Ok((refuse(read, reason), Vec::new()));
        }
    };
    // Named by its code: nothing to say about how it was read.
    if named.words != entity.iso3 {
        read.place
            .insert(arguments::snippet(&named.words), entity.iso3.clone());
    }
    // The indicator.
    let metric = match (&claim.indicator, &claim.query) {
        (Some(id), _) => match arguments::metric(corpus, id) {
            Ok(metric) => {
                if *id != metric.id {
                    read.indicator
                        .insert(arguments::snippet(id), metric.id.clone());
                }
                metric
            }
            Err(ToolError::Invalid(message)) => return Ok((refuse(read, message), Vec::new())),
            Err(error) => return Err(error),
        },
        (None, query) => {
            let words = match query {
                Some(query) => query.clone(),
                None => without_place(&from_text.words, &named.words),
            };
            let unit = claim.unit.as_deref().or(from_text.unit.as_deref());
            match metric_named(corpus, &words, &entity.iso3, is_aggregate, unit)? {
                Some((metric, note)) => {
                    read.indicator.insert(
                        arguments::snippet(&trim_connectors(&words)),
                        metric.id.clone(),
                    );
                    read.indicator_note = note;
                    metric
                }
                None => {
                    let reason = if words.trim().is_empty() {
                        "no indicator read: say what the number measures (`life expectancy`), or give `indicator` (an id from resolve_metric)".to_string()
                    } else {
                        format!(
                            "no governed indicator is named by `{}`: the corpus holds no such figure, or call resolve_metric and give `indicator`",
                            arguments::snippet(&trim_connectors(&words))
                        )
                    };
                    return Ok((refuse(read, reason), Vec::new()));
                }
            }
        }
    };
    // A claim in a unit the indicator is not in is no claim about it (`70.4 %` of a life expectancy in
    // years, `0 billion` years, a count of homicides against a rate per 100,000).
    let claimed_unit = claim.unit.as_deref().or(from_text.unit.as_deref());
    let scale_word = from_text.scale.as_deref().or(claim
        .unit
        .as_deref()
        .filter(|unit| scale_of_unit(unit) != 1.0));
    let unfit = match (claimed_unit, scale_word) {
        (_, Some(scale)) if !counts(&metric.unit) => Some(format!("`{scale}`")),
        (Some(unit), _) if !unit_fits(unit, &metric.unit) => Some(format!("`{unit}`")),
        (None, None)
            if claim.text.is_some()
                && claim.query.is_none()
                && claim.indicator.is_none()
                && is_rate(&metric.unit)
                && !RATE_WORDS.iter().any(|word| {
                    from_text
                        .words
                        .split(' ')
                        .any(|asked| asked.starts_with(word))
                }) =>
        {
            Some("a count (no rate named)".to_string())
        }
        _ => None,
    };
    if let Some(unfit) = unfit {
        let reason = format!(
            "the claim's unit, {unfit}, does not fit {} ({name}), in {}: the corpus holds no such figure",
            metric.id,
            metric.unit,
            name = metric.names.get(lang)
        );
        return Ok((refuse(read, reason), Vec::new()));
    }
    let table = if is_aggregate {
        corpus.baked.aggregates()
    } else {
        corpus.baked.observations()
    };
    let series: Vec<Observation<'_>> = table
        .series(&metric.id, &entity.iso3)
        .map(|row_idx| table.row(row_idx))
        .collect();
    // The year: the claim's, or the latest observed.
    let year = claim.year.or(from_text.year);
    read.year = year.or_else(|| {
        read.year_assumed = true;
        series
            .iter()
            .rev()
            .find(|observation| !is_projection(observation.flags))
            .map(|observation| observation.year)
    });
    // The value.
    let unit_factor = claim.unit.as_deref().map_or(1.0, scale_of_unit);
    let value = claim
        .value
        .map(|value| value * unit_factor)
        .or(from_text.value);
    let rounding = claim
        .value
        .map(|value| rounding_of(value) * unit_factor)
        .or(from_text.rounding)
        .unwrap_or(0.0);
    // A claim with a scale word (`483 million tonnes`) against an indicator counted in millions (`Mt`):
    // both in the indicator's unit.
    let scaled = from_text.scale.is_some() || unit_factor != 1.0;
    let in_unit = if scaled {
        scale_of_unit_name(&metric.unit)
    } else {
        1.0
    };
    let value = value.map(|value| value / in_unit);
    let rounding = rounding / in_unit;
    // `1 trillion` is not read to half a trillion: a scale word's rounding is at most 5 % of the value.
    let rounding = match value.filter(|_| scaled) {
        Some(value) => rounding.min(0.05 * value.abs()),
        None => rounding,
    };
    // JSON writes 1.0 as 1: a structured whole number is not read to the unit past 0.5 % of its size.
    let rounding = match (claim.value, value) {
        (Some(given), Some(value)) if given.fract() == 0.0 => {
            rounding.min(0.005 * value.abs()).max(f64::MIN_POSITIVE)
        }
        _ => rounding,
    };
    read.value = value;
    read.unit = claim
        .unit
        .clone()
        .or(from_text.unit.clone())
        .or(from_text.scale.clone());
    let name = metric.names.get(lang);
    let Some(year) = read.year else {
        let reason = format!(
            "the corpus holds no value of {} ({name}) for {}",
            metric.id, entity.iso3
        );
        return Ok((refuse(read, reason), Vec::new()));
    };
    let mut cited = Vec::new();
    let at_year = series.iter().find(|observation| observation.year == year);
    let Some(value) = value else {
        let held = at_year.or(series.last());
        let mut verdict = refuse(
            read,
            match held {
                Some(held) => format!(
                    "the claim states no number; the corpus holds {} {} for {} in {}",
                    held.value, metric.unit, entity.iso3, held.year
                ),
                None => format!(
                    "the claim states no number, and the corpus holds no value of {} for {}",
                    metric.id, entity.iso3
                ),
            },
        );
        if let Some(held) = held {
            verdict.corpus = Some(corpus_value(held));
            cited.push(held.citation_id.to_string());
        }
        return Ok((verdict, cited));
    };
    // The other publishers (current) and vintages (older) of the quantity, that year.
    let mut also = Vec::new();
    // The indicator's other publishers (current), then the older vintages of it and of each of them.
    let publishers: Vec<(&Metric, f64)> = std::iter::once((metric, 1.0))
        .chain(
            pairs
                .of_metric(&metric.id)
                .iter()
                .filter_map(|(other, factor)| {
                    corpus.baked.metric(other).map(|other| (other, *factor))
                }),
        )
        .collect();
    let mut others: Vec<(&Metric, f64, bool)> = publishers
        .iter()
        .skip(1)
        .map(|(other, factor)| (*other, *factor, false))
        .collect();
    for (publisher, factor) in &publishers {
        for vintage in corpus.baked.vintages_of(publisher) {
            // A newer vintage of the indicator asked for is current; an older one is kept apart.
            if vintage.id != metric.id && others.iter().all(|(seen, _, _)| seen.id != vintage.id) {
                others.push((vintage, *factor, vintage.vintage < publisher.vintage));
            }
        }
    }
    for (other, factor, older) in others {
        let Some(observation) = table.find(&other.id, &entity.iso3, year) else {
            continue;
        };
        let aligned = observation.value * factor;
        let tolerance = band(
            aligned,
            rounding,
            observation.standard_error.map(|error| error * factor),
        );
        let judged = verdict_of(value - aligned, &tolerance);
        // An older vintage is listed when it explains the claim; a current publisher always is (the
        // claim is judged against it too).
        if older && judged == VerdictKind::Mismatch {
            continue;
        }
        also.push(OtherValue {
            indicator: other.id.clone(),
            vintage: other.vintage.clone(),
            older_vintage: older,
            value: observation.value,
            aligned: (factor != 1.0).then_some(aligned),
            citation_id: observation.citation_id.to_string(),
            projection: is_projection(observation.flags),
            verdict: judged,
        });
    }
    let own_at_year = at_year.map(|observation| {
        verdict_of(
            value - observation.value,
            &band(observation.value, rounding, observation.standard_error),
        )
    });
    // Listed: the current publishers that judge the claim at least as well as the indicator (or all,
    // when the indicator holds no value that year); older vintages only when they explain a claim the
    // indicator does not match.
    also.retain(|other| {
        if other.older_vintage {
            own_at_year != Some(VerdictKind::Match)
        } else {
            own_at_year.is_none_or(|own| other.verdict <= own)
        }
    });
    cited.extend(also.iter().map(|other| other.citation_id.clone()));
    let best_other = also
        .iter()
        .filter(|other| !other.older_vintage)
        .map(|other| other.verdict)
        .min();
    let Some(observation) = at_year else {
        let first_last = series
            .first()
            .zip(series.last())
            .map(|(first, last)| format!("{}-{}", first.year, last.year))
            .unwrap_or_else(|| "no year".into());
        let mut verdict = refuse(
            read,
            format!(
                "no value of {} ({name}) for {} in {year}: the corpus holds {first_last}",
                metric.id, entity.iso3
            ),
        );
        verdict
            .diagnosis
            .extend(year_diagnosis(&series, year, value, rounding));
        if let Some(best) = best_other.filter(|best| *best != VerdictKind::Mismatch) {
            verdict.verdict = best;
            verdict.reason = Some(format!(
                "no value of {} for {} in {year}; judged against another publisher of the same quantity (`also`)",
                metric.id, entity.iso3
            ));
        }
        cited.extend(
            verdict
                .diagnosis
                .iter()
                .filter_map(|diagnosis| diagnosis.citation_id.clone()),
        );
        verdict.also = also;
        return Ok((verdict, cited));
    };
    cited.push(observation.citation_id.to_string());
    let tolerance = band(observation.value, rounding, observation.standard_error);
    let difference = value - observation.value;
    let own = verdict_of(difference, &tolerance);
    let verdict_kind = best_other.map_or(own, |other| own.min(other));
    let mut diagnosis = Vec::new();
    if own != VerdictKind::Match {
        if let Some(other) = also
            .iter()
            .find(|other| !other.older_vintage && other.verdict == VerdictKind::Match)
        {
            diagnosis.push(Diagnosis {
                kind: DiagnosisKind::Publisher,
                says: format!("another publisher's {} matches", other.indicator),
                value: Some(other.value),
                citation_id: Some(other.citation_id.clone()),
            });
        }
        if let Some(other) = also
            .iter()
            .find(|other| other.older_vintage && other.verdict <= VerdictKind::Close)
        {
            diagnosis.push(Diagnosis {
                kind: DiagnosisKind::Vintage,
                says: format!(
                    "the older vintage {} ({}) {}; since revised",
                    other.vintage,
                    other.indicator,
                    if other.verdict == VerdictKind::Match {
                        "matches"
                    } else {
                        "is close"
                    },
                ),
                value: Some(other.value),
                citation_id: Some(other.citation_id.clone()),
            });
        }
        diagnosis.extend(year_diagnosis(&series, year, value, rounding));
        diagnosis.extend(scale_diagnosis(value, rounding, observation));
        if value != 0.0 && verdict_of(-value - observation.value, &tolerance) <= VerdictKind::Close
        {
            diagnosis.push(Diagnosis {
                kind: DiagnosisKind::Sign,
                says: format!("the other sign ({}) matches", -value),
                value: Some(observation.value),
                citation_id: Some(observation.citation_id.to_string()),
            });
        }
        // A regional figure: the claim matches the region's value (or, when nothing else explains a
        // claim that is off, is close to it).
        if !is_aggregate {
            let needed = if own == VerdictKind::Mismatch && diagnosis.is_empty() {
                VerdictKind::Close
            } else {
                VerdictKind::Match
            };
            diagnosis.extend(aggregate_diagnosis(
                corpus,
                metric,
                year,
                value,
                rounding,
                &entity.iso3,
                needed,
            ));
        }
    }
    cited.extend(
        diagnosis
            .iter()
            .filter_map(|diagnosis| diagnosis.citation_id.clone()),
    );
    Ok((
        Verdict {
            claim: number,
            verdict: verdict_kind,
            read,
            corpus: Some(corpus_value(observation)),
            difference: Some(super::super::answer::significant(difference, 6)),
            // A match's band is the claim's own rounding: said only for close and mismatch.
            tolerance: (verdict_kind != VerdictKind::Match).then_some(tolerance),
            diagnosis,
            also,
            reason: None,
        },
        cited,
    ))
}

/// The bands of a claim with rounding `rounding` against `value` (standard error `standard_error`).
fn band(value: f64, rounding: f64, standard_error: Option<f64>) -> Tolerance {
    let matched = rounding;
    match standard_error.filter(|error| *error > 0.0) {
        Some(error) => Tolerance {
            matched: clean(matched),
            close: clean(error.max(matched)),
            basis: Some("standard_error"),
        },
        None => Tolerance {
            matched: clean(matched),
            close: clean((0.02 * value.abs()).max(2.0 * rounding).max(matched)),
            basis: None,
        },
    }
}

/// A band as the answer shows it (six significant digits).
fn clean(value: f64) -> f64 {
    super::super::answer::significant(value, 6)
}

fn verdict_of(difference: f64, tolerance: &Tolerance) -> VerdictKind {
    // Binary fractions: 75.3 - 75.25 is a hair above 0.05.
    let difference = difference.abs() * (1.0 - 1e-9);
    if difference <= tolerance.matched {
        VerdictKind::Match
    } else if difference <= tolerance.close {
        VerdictKind::Close
    } else {
        VerdictKind::Mismatch
    }
}

fn corpus_value(observation: &Observation<'_>) -> CorpusValue {
    CorpusValue {
        value: observation.value,
        year: observation.year,
        citation_id: observation.citation_id.to_string(),
        flags: (!observation.flags.is_empty()).then(|| observation.flags.to_string()),
    }
}

/// How far from the claim's year another year's value may explain it.
const YEARS_AWAY: i32 = 5;

/// The nearest other year, at most [`YEARS_AWAY`] from the claim's, whose value the claim matches.
fn year_diagnosis(
    series: &[Observation<'_>],
    year: i32,
    value: f64,
    rounding: f64,
) -> Option<Diagnosis> {
    series
        .iter()
        .filter(|observation| {
            observation.year != year && (observation.year - year).abs() <= YEARS_AWAY
        })
        .filter(|observation| {
            verdict_of(
                value - observation.value,
                &band(observation.value, rounding, None),
            ) == VerdictKind::Match
        })
        .min_by_key(|observation| ((observation.year - year).abs(), observation.year))
        .map(|observation| Diagnosis {
            kind: DiagnosisKind::Year,
            says: format!(
                "{} matches{}",
                observation.year,
                if is_projection(observation.flags) {
                    " (a projection)"
                } else {
                    ""
                }
            ),
            value: Some(observation.value),
            citation_id: Some(observation.citation_id.to_string()),
        })
}

/// The first power of ten that brings the claim within the band of the value (or within 10 % of it).
fn scale_diagnosis(value: f64, rounding: f64, observation: &Observation<'_>) -> Option<Diagnosis> {
    if value == 0.0 {
        return None;
    }
    SCALES.iter().find_map(|(factor, meaning)| {
        let scaled = value * factor;
        // The claim's own rounding scaled with it, or a tenth of the value: a band of the value's
        // magnitude, not the claim's.
        let allowed = (rounding * factor).max(0.1 * observation.value.abs());
        ((scaled - observation.value).abs() <= allowed).then(|| Diagnosis {
            kind: DiagnosisKind::Scale,
            says: format!("{meaning}: {}", clean(scaled)),
            value: Some(observation.value),
            citation_id: Some(observation.citation_id.to_string()),
        })
    })
}

/// The World Bank's aggregate of Latin America and the Caribbean.
const REGION: &str = "LCN";

/// A regional aggregate whose value that year the claim is within `needed` of (LCN first).
fn aggregate_diagnosis(
    corpus: &Corpus,
    metric: &Metric,
    year: i32,
    value: f64,
    rounding: f64,
    country: &str,
    needed: VerdictKind,
) -> Option<Diagnosis> {
    // The World Bank's whole-region aggregate first, then the others.
    let mut aggregates: Vec<&corpus::Country> = corpus.baked.countries().aggregates().collect();
    aggregates.sort_by_key(|aggregate| aggregate.iso3 != REGION);
    aggregates.into_iter().find_map(|aggregate| {
        let observation = corpus
            .baked
            .aggregates()
            .find(&metric.id, &aggregate.iso3, year)?;
        let tolerance = band(observation.value, rounding, None);
        let verdict = verdict_of(value - observation.value, &tolerance);
        (verdict <= needed).then(|| Diagnosis {
            kind: DiagnosisKind::Aggregate,
            says: format!(
                "{} {} ({}): a regional figure, not {country}'s",
                if verdict == VerdictKind::Match {
                    "matches"
                } else {
                    "close to"
                },
                aggregate.names.en,
                aggregate.iso3
            ),
            value: Some(observation.value),
            citation_id: Some(observation.citation_id.to_string()),
        })
    })
}

/// The indicator the words name, and a note when it is not the one best named: the index's hits named
/// by at least [`MATCH_SHARE`] of the words, the reviewed default of a quantity first; a breakdown by sex
/// only when the words name one; for a claim in `%`, a hit in a percentage unit before a level; one with
/// data for the place before one without (the note names the one passed over).
fn metric_named<'a>(
    corpus: &'a Corpus,
    words: &str,
    iso3: &str,
    is_aggregate: bool,
    unit: Option<&str>,
) -> Result<Option<(&'a Metric, Option<String>)>, ToolError> {
    if words.trim().is_empty() {
        return Ok(None);
    }
    let mut hits = corpus
        .index
        .search(words, None, 10)
        .map_err(|error| ToolError::Internal(error.to_string()))?;
    corpus::index::defaults_first_among_best_named(&mut hits, |hit| {
        corpus
            .baked
            .metric(&hit.id)
            .is_some_and(|metric| metric.headline)
    });
    let table = if is_aggregate {
        corpus.baked.aggregates()
    } else {
        corpus.baked.observations()
    };
    let folded = corpus::folding::fold(words);
    let names_sex = SEX_WORDS
        .iter()
        .any(|word| folded.split(' ').any(|asked| asked.starts_with(word)));
    let mut named: Vec<&Metric> = hits
        .iter()
        .filter(|hit| hit.match_share >= MATCH_SHARE)
        .filter_map(|hit| corpus.baked.metric(&hit.id))
        .filter(|metric| names_sex || !is_by_sex(metric))
        .collect();
    if let Some(unit) = unit {
        // Stable: among the named, those in a unit the claim's fits first.
        named.sort_by_key(|metric| !unit_fits(unit, &metric.unit));
    }
    let Some(best) = named.first().copied() else {
        return Ok(None);
    };
    if !table.series(&best.id, iso3).is_empty() {
        return Ok(Some((best, None)));
    }
    Ok(Some(
        match named
            .iter()
            .find(|metric| !table.series(&metric.id, iso3).is_empty())
        {
            Some(held) => (
                *held,
                Some(format!(
                    "the indicator best named, {} ({}), holds no value for {iso3}: read as {} ({})",
                    best.id, best.source_title, held.id, held.source_title
                )),
            ),
            None => (best, None),
        },
    ))
}

/// Words that name a sex (es/en/pt, folded prefixes).
const SEX_WORDS: [&str; 10] = [
    "female", "male", "women", "men", "mujer", "hombre", "femen", "mascul", "girl", "boy",
];

/// Whether `metric` is a breakdown by sex (its publisher title says female or male).
fn is_by_sex(metric: &Metric) -> bool {
    let title = corpus::folding::fold(&metric.source_title);
    title
        .split(' ')
        .any(|word| matches!(word, "female" | "male" | "women" | "men"))
}

/// Whether a claim's unit, as the rules read it (`%`, `years`, `per 100,000`, `US$`, `tonnes`, `people`),
/// fits an indicator's unit; a unit the rules do not know fits any.
fn unit_fits(claim: &str, metric: &str) -> bool {
    let folded = corpus::folding::fold(metric);
    let words: Vec<&str> = folded.split(' ').collect();
    match claim {
        "%" | "percentage points" => is_percentage(metric) || folded.contains("0 100"),
        "years" => words.iter().any(|word| word.starts_with("year")),
        "per 100,000" => folded.contains("100 000") || folded.contains("100000"),
        "US$" => metric.contains('$') || folded.contains("dollar") || folded.contains("usd"),
        "tonnes" => words.iter().any(|word| {
            matches!(
                *word,
                "t" | "mt" | "kt" | "gt" | "tonnes" | "tons" | "tonne"
            )
        }),
        "people" => words
            .iter()
            .any(|word| matches!(*word, "people" | "persons" | "person" | "number")),
        _ => true,
    }
}

/// Whether an indicator's values are a level a scale word can count (people, tonnes, dollars), not a
/// rate, share, score or length of time.
fn counts(metric: &str) -> bool {
    let folded = corpus::folding::fold(metric);
    !(is_percentage(metric)
        || folded.contains("per ")
        || ["index", "year", "score", "estimate", "ratio", "rank"]
            .iter()
            .any(|word| folded.contains(word)))
}

/// Words that name a rate in a claim (es/en/pt, folded prefixes).
const RATE_WORDS: [&str; 8] = [
    "rate", "tasa", "taxa", "per", "por", "ratio", "indice", "index",
];

/// Whether a unit is a rate per so many people (`per 100,000 people`, `per 1,000 live births`).
fn is_rate(unit: &str) -> bool {
    let folded = corpus::folding::fold(unit);
    folded.starts_with("per ") || folded.contains(" per 1") || folded.starts_with("por ")
}

/// Whether a unit is a percentage (`%`, `annual %`, `Percent change`, `% of GDP`).
fn is_percentage(unit: &str) -> bool {
    unit.contains('%') || corpus::folding::fold(unit).contains("percent")
}

/// `words` without the connectors at either end (`life expectancy in` → `life expectancy`).
fn trim_connectors(words: &str) -> String {
    const CONNECTORS: [&str; 20] = [
        "in", "of", "the", "for", "to", "de", "del", "la", "el", "en", "em", "do", "da", "a", "o",
        "y", "no", "na", "nos", "nas",
    ];
    let words: Vec<&str> = words.split_whitespace().collect();
    let start = words
        .iter()
        .position(|word| !CONNECTORS.contains(word))
        .unwrap_or(words.len());
    let end = words
        .iter()
        .rposition(|word| !CONNECTORS.contains(word))
        .map_or(start, |end| end + 1);
    words[start..end.max(start)].join(" ")
}

/// `words` without those of the place (`mexico life expectancy in` → `life expectancy in`).
fn without_place(words: &str, place: &str) -> String {
    let place: Vec<String> = corpus::folding::fold(place)
        .split(' ')
        .map(String::from)
        .collect();
    let words: Vec<&str> = words.split(' ').collect();
    let mut kept = Vec::new();
    let mut at = 0;
    while at < words.len() {
        if words.len() - at >= place.len() && words[at..at + place.len()] == place[..] {
            at += place.len();
            continue;
        }
        kept.push(words[at]);
        at += 1;
    }
    kept.join(" ")
}

/// The factor a structured claim's `unit` applies to its value (`million` → 1e6); 1 for a unit that
/// names no scale (`%`, `years`).
fn scale_of_unit(unit: &str) -> f64 {
    match corpus::folding::fold(unit).as_str() {
        "thousand" | "thousands" | "mil" | "miles" | "milhares" => 1e3,
        "million" | "millions" | "millones" | "milhoes" => 1e6,
        "billion" | "billions" | "mil millones" | "bilhoes" => 1e9,
        "trillion" | "trillions" | "billones" | "trilhoes" => 1e12,
        _ => 1.0,
    }
}

/// The scale an indicator's unit counts in (`Mt CO2`, `million tonnes`, `Persons, millions` → 1e6;
/// `billions` → 1e9; `thousands` → 1e3), 1 for a unit of single things.
fn scale_of_unit_name(unit: &str) -> f64 {
    let folded = corpus::folding::fold(unit);
    let words: Vec<&str> = folded.split(' ').collect();
    let has = |word: &str| words.contains(&word);
    if has("billion") || has("billions") || has("bn") {
        1e9
    } else if has("million") || has("millions") || has("mt") || folded.starts_with("mt") {
        1e6
    } else if has("thousand") || has("thousands") {
        1e3
    } else {
        1.0
    }
}

/// Half a unit of the last digit of `value` as JSON writes it (`75.3` → 0.05, `40` → 0.5).
fn rounding_of(value: f64) -> f64 {
    let written = format!("{value}");
    let decimals = written
        .split_once('.')
        .map_or(0, |(_, fraction)| fraction.chars().count() as i32);
    0.5 * 10f64.powi(-decimals)
}
