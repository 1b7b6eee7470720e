//! The answer contract every tool follows: a compact `result`, one citation record per source and per
//! series, and a display payload that stays out of the model's context.
//!
//! **The citation rule.** Every stored number in `result` either carries its `citation_id` beside it
//! (`wb-sp-dyn-le00-in-mex-2024`) or sits as a `[year, value]` point in an object whose `series_id` is the
//! citation id without its year (`wb-sp-dyn-le00-in-mex`): its citation id is then `{series_id}-{year}`.
//! Either way the id's series record is `citations.series[series_id]` (country, deep link), its
//! indicator record `citations.indicators[series.indicator]` (code, title, unit) and its source record
//! `citations.sources[indicator.source]` (publisher, dataset, licence, vintage, retrieval date,
//! attribution): each appears once per answer however many numbers rest on it, and
//! `resolve_citations` resolves every such id. Derived numbers carry an inline
//! per-response `calc-…`/`pulse-…` record naming their stored inputs.
//!
//! A tool gets the citation records of what it cites with [`citation_records`] (by id) or
//! [`citation_records_for`] (observations already read).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

pub use super::rounding::significant;
use corpus::Observation;

use super::{ToolError, ToolOutput, display::Display};
use crate::load::Corpus;

/// The `_meta` key of a result that carries its display payload (tables, links, Vega-Lite charts) for a
/// gateway or an MCP App to render; hosts do not hand `_meta` to the model.
pub const DISPLAY_META_KEY: &str = "lac-corpus/display";

/// What a tool handler returns: its typed result, the citations of every number in it, and an optional
/// display payload and message for the person.
#[derive(Debug, Clone)]
pub struct ToolAnswer<'a, O> {
    /// The tool's answer.
    pub result: O,
    /// The full citation of every stored number in `result` (repeats allowed); the answer keeps one
    /// record per source and per series of them ([`Citations`]).
    pub citations: Vec<CitationRecord<'a>>,
    /// Tables, links and charts for a person, rendered by a gateway without passing through the model
    /// (the result's `_meta`, key [`DISPLAY_META_KEY`]).
    pub display: Option<Display>,
    /// The citation of every curated record (project) `result` names by its `citation_id`.
    pub records: Vec<corpus::RecordCitation>,
}

/// A resolved citation of one number (publisher, dataset, title, value, deep link, vintage, retrieval
/// date, licence, attribution); the corpus' own type, so the wire cannot drift from it.
pub type CitationRecord<'a> = corpus::Citation<'a>;

/// `structuredContent` (and the text block) of a successful call; its JSON Schema is the tool's
/// `outputSchema`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StructuredContent<O> {
    /// The tool's answer.
    pub result: O,
    /// The source, indicator and series records of every stored number in `result`.
    #[schemars(schema_with = "citations_schema")]
    pub citations: Citations,
}

/// The schema of [`Citations`] in `tools/list`: maps (`sources`, `indicators`, `series`, and `records`
/// when the answer cites curated records) of records keyed by id, each record's every field a string;
/// written once as a map of maps, so each tool's `outputSchema` stays small. The fields are those of
/// [`SourceCitation`], [`IndicatorCitation`], [`SeriesCitation`] and [`corpus::RecordCitation`] (the
/// server instructions name them).
fn citations_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let record = serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}});
    schemars::json_schema!({
        "type": "object",
        "additionalProperties": {"type": "object", "additionalProperties": record}
    })
}

/// The citations of an answer: one record per source, per indicator and per series (indicator ×
/// country), each once, keyed by id. A number's `citation_id` is `{series_id}-{year}`; its series record
/// is `series[series_id]` (country, deep link), whose `indicator` keys `indicators` (code, title, unit),
/// whose `source` keys `sources` (publisher, dataset, licence, vintage, attribution).
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct Citations {
    /// Source records by source id (`wdi`).
    pub sources: BTreeMap<String, SourceCitation>,
    /// Indicator records by metric id (`sp_dyn_le00_in`).
    pub indicators: BTreeMap<String, IndicatorCitation>,
    /// Series records by series id: a citation id without its `-{year}` (`wb-sp-dyn-le00-in-mex`).
    pub series: BTreeMap<String, SeriesCitation>,
    /// Curated records (projects) by their citation id (`wbproj-p127837`), each its own source; absent
    /// when the answer cites none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub records: BTreeMap<String, corpus::RecordCitation>,
}

/// Where a source's numbers come from and how to credit them.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SourceCitation {
    /// Publisher (`The World Bank`).
    pub publisher: String,
    /// Dataset (`World Development Indicators`).
    pub dataset: String,
    /// Licence id of the source's series (`CC-BY-4.0`); an indicator under other terms says so itself.
    pub license: String,
    /// Release the values come from (`2025-07`); an indicator of another release says so itself.
    pub vintage: String,
    /// When the raw files were retrieved (ISO 8601 date).
    pub retrieved_at: String,
    /// Attribution text the publisher asks for.
    pub attribution: String,
    /// Dataset homepage.
    pub homepage: String,
    /// What a series `url` of this source opens: `indicator_country` (the indicator for that country),
    /// `country`, `indicator`, or `dataset` (the publisher has no documented per-indicator page: the link
    /// is the dataset's, not a deep link).
    pub link_kind: &'static str,
}

/// One indicator of one source.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct IndicatorCitation {
    /// Source id, a key of `citations.sources`.
    pub source: String,
    /// Publisher's indicator code (`SP.DYN.LE00.IN`).
    pub code: String,
    /// Publisher's indicator title (`Life expectancy at birth, total (years)`).
    pub title: String,
    /// Unit of the values.
    pub unit: String,
    /// Licence of this indicator, when it differs from its source's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Release of this indicator's cited values, when it differs from its source's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vintage: Option<String>,
    /// Retrieval date of this indicator's own file, when not its source's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retrieved_at: Option<String>,
}

/// One indicator in one country (or aggregate).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SeriesCitation {
    /// Metric id, a key of `citations.indicators`.
    pub indicator: String,
    /// ISO3 or aggregate code.
    pub country: String,
    /// Deep link to the indicator for that country on the publisher's site.
    pub url: String,
}

/// The citation records of `ids`, in order, skipping none: every id a tool cites comes from the table.
///
/// # Errors
/// [`ToolError::Internal`] if an id taken from the observation table does not resolve (a bake bug).
pub fn citation_records<'c, 'a>(
    corpus: &'c Corpus,
    ids: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<CitationRecord<'c>>, ToolError> {
    ids.into_iter()
        .map(|id| {
            corpus
                .baked
                .resolve_citation(id)
                .map_err(|unresolved| ToolError::Internal(unresolved.to_string()))
        })
        .collect()
}

/// The citation records of observations already read (no id parsing or lookup), in the given order.
///
/// # Errors
/// [`ToolError::Internal`] if an observation is not in the registries (a corpus that fails verification).
pub fn citation_records_for<'c: 'o, 'o>(
    corpus: &'c Corpus,
    observations: impl IntoIterator<Item = &'o Observation<'c>>,
) -> Result<Vec<CitationRecord<'c>>, ToolError> {
    observations
        .into_iter()
        .map(|observation| {
            corpus
                .baked
                .citation_for(observation)
                .map_err(|unresolved| ToolError::Internal(unresolved.to_string()))
        })
        .collect()
}

/// A stored value as `[year, value]`, in its indicator's unit; its citation id is `{series_id}-{year}`
/// of the object that holds it.
pub type YearValue = (i32, f64);

/// The series id of a stored citation id: the id without its `-{year}` (`wb-sp-dyn-le00-in-mex-2024`
/// → `wb-sp-dyn-le00-in-mex`).
pub fn series_id(citation_id: &str) -> &str {
    citation_id
        .rsplit_once('-')
        .map_or(citation_id, |(series, _)| series)
}

/// The cells a derived number rests on, without listing each id: the citation id of the input of country
/// `c` is `pattern` with `{iso3}` replaced by `c` in lower case (`wb-sl-uem-totl-zs-{iso3}-2024` →
/// `wb-sl-uem-totl-zs-mex-2024`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct InputCells {
    /// Citation id pattern of the values, with `{iso3}` for the lower-case country code.
    pub pattern: String,
    /// Citation id pattern of the weights (population, same year), when the number is weighted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
    /// The countries (ISO3), in the order the inputs were combined.
    pub countries: Vec<String>,
}

impl InputCells {
    /// The inputs `cells` (every one of the same indicator and year) and, when weighted, `weights` (one per
    /// cell, of one indicator and year).
    pub fn of(
        cells: &[corpus::Observation<'_>],
        weights: Option<&[corpus::Observation<'_>]>,
    ) -> InputCells {
        InputCells {
            pattern: cells.first().map(id_pattern).unwrap_or_default(),
            weights: weights.and_then(|weights| weights.first()).map(id_pattern),
            countries: cells.iter().map(|cell| cell.country.to_string()).collect(),
        }
    }

    /// Every input citation id, values then weights.
    pub fn ids(&self) -> Vec<String> {
        let expand = |pattern: &str| {
            self.countries
                .iter()
                .map(|country| pattern.replace("{iso3}", &country.to_ascii_lowercase()))
                .collect::<Vec<_>>()
        };
        let mut ids = expand(&self.pattern);
        if let Some(weights) = &self.weights {
            ids.extend(expand(weights));
        }
        ids
    }
}

/// `wb-sp-pop-totl-mex-2024` → `wb-sp-pop-totl-{iso3}-2024`.
fn id_pattern(cell: &corpus::Observation<'_>) -> String {
    let country = format!("-{}-", cell.country.to_ascii_lowercase());
    match cell.citation_id.rfind(&country) {
        Some(at) => format!(
            "{}-{{iso3}}-{}",
            &cell.citation_id[..at],
            &cell.citation_id[at + country.len()..]
        ),
        None => cell.citation_id.to_string(),
    }
}

impl Citations {
    /// The source, indicator and series records of `records`, each once.
    ///
    /// # Errors
    /// [`ToolError::Internal`] if a record names a source the registry lacks (a corpus that fails
    /// verification).
    pub fn from_records(
        corpus: &Corpus,
        records: &[CitationRecord<'_>],
    ) -> Result<Citations, ToolError> {
        let mut citations = Citations::default();
        for record in records {
            let series = series_id(&record.citation_id);
            if citations.series.contains_key(series) {
                continue;
            }
            citations.series.insert(
                series.to_string(),
                SeriesCitation {
                    indicator: record.indicator.to_string(),
                    country: record.country.to_string(),
                    url: record.url.to_string(),
                },
            );
            if citations.indicators.contains_key(record.indicator.as_ref()) {
                continue;
            }
            let source = corpus.baked.source(&record.source).ok_or_else(|| {
                ToolError::Internal(format!(
                    "citation {} names unknown source `{}`",
                    record.citation_id, record.source
                ))
            })?;
            let differs = |own: &str, of_source: &str| (own != of_source).then(|| own.to_string());
            citations.indicators.insert(
                record.indicator.to_string(),
                IndicatorCitation {
                    source: source.id.clone(),
                    code: record.indicator_code.to_string(),
                    title: record.title.to_string(),
                    unit: record.unit.to_string(),
                    license: differs(&record.license, &source.license),
                    vintage: differs(&record.vintage, &source.vintage),
                    retrieved_at: differs(&record.retrieved_at, &source.retrieved_at),
                },
            );
            citations
                .sources
                .entry(source.id.clone())
                .or_insert_with(|| SourceCitation {
                    publisher: source.publisher.clone(),
                    dataset: source.name.clone(),
                    license: source.license.clone(),
                    vintage: source.vintage.clone(),
                    retrieved_at: source.retrieved_at.clone(),
                    attribution: source.attribution.clone(),
                    homepage: source.homepage.clone(),
                    link_kind: source.deep_link_kind.as_str(),
                });
        }
        Ok(citations)
    }
}

impl<O: Serialize> ToolAnswer<'_, O> {
    /// Serializes the answer: the compact payload (text block and `structuredContent`) and the display
    /// object (for `_meta`).
    ///
    /// # Errors
    /// [`ToolError::Internal`] if the result does not serialize (a bug) or a citation names a source
    /// the registry lacks.
    pub fn into_output(self, corpus: &Corpus, lang: corpus::Lang) -> Result<ToolOutput, ToolError> {
        let internal = |error: serde_json::Error| {
            ToolError::Internal(format!("serializing the result: {error}"))
        };
        let resource_links = resource_links(corpus, &self.citations);
        let mut citations = Citations::from_records(corpus, &self.citations)?;
        citations.records = self
            .records
            .into_iter()
            .map(|record| (record.citation_id.clone(), record))
            .collect();
        let user_message = self
            .display
            .as_ref()
            .and_then(|display| user_message(display, &citations, lang));
        let charted = self
            .display
            .as_ref()
            .is_some_and(|display| !display.charts.is_empty());
        // Most payloads hold a few kilobytes: one buffer of that size spares the early doublings.
        let mut payload = Vec::with_capacity(4096);
        serde_json::to_writer(
            &mut payload,
            &StructuredContent {
                result: self.result,
                citations,
            },
        )
        .map_err(internal)?;
        let payload = String::from_utf8(payload).expect("serde_json writes UTF-8");
        // The display is for people: floating-point noise (2.9450000000000003) is trimmed there, never
        // in the cited result.
        let display = self
            .display
            .map(|display| {
                let mut bytes = Vec::with_capacity(8192);
                display
                    .serialize(&mut serde_json::Serializer::with_formatter(
                        &mut bytes, TrimFloats,
                    ))
                    .map(|()| String::from_utf8(bytes).expect("serde_json writes UTF-8"))
            })
            .transpose()
            .map_err(internal)?;
        Ok(ToolOutput {
            payload,
            display,
            user_message,
            resource_links,
            charted,
            chart_sentence_at: None,
        })
    }
}

/// The most `resource_link` items one answer carries (the first indicators it cites).
pub const MAX_RESOURCE_LINKS: usize = 4;

/// `resource_link` content items to the tidy CSV of each indicator `citations` cite, in order of first
/// citation, at most [`MAX_RESOURCE_LINKS`]: a person (or a notebook) carries on from the whole series.
fn resource_links(corpus: &Corpus, citations: &[CitationRecord<'_>]) -> Vec<String> {
    let mut indicators: Vec<&str> = Vec::new();
    for citation in citations {
        if indicators.len() == MAX_RESOURCE_LINKS {
            break;
        }
        if !indicators.contains(&citation.indicator.as_ref()) {
            indicators.push(&citation.indicator);
        }
    }
    indicators
        .into_iter()
        .filter_map(|indicator| {
            corpus
                .downloads()
                .of(corpus::exports::Subject::Indicator, indicator)
                .next()
        })
        .map(crate::load::downloads::DownloadFile::resource_link)
        .collect()
}

/// The person's short message about a display (seed 001's direct message): what it shows and whose
/// data it is, e.g. `Esperanza de vida al nacer (years): tabla y gráfico. Fuente: The World Bank, World
/// Development Indicators (CC-BY-4.0).`; `None` for a display without a table.
fn user_message(display: &Display, citations: &Citations, lang: corpus::Lang) -> Option<String> {
    use corpus::Lang;
    let title = &display.tables.first()?.title;
    let shown = match (lang, display.charts.is_empty()) {
        (Lang::Es, true) => "tabla",
        (Lang::Es, false) => "tabla y gráfico",
        (Lang::En, true) => "table",
        (Lang::En, false) => "table and chart",
        (Lang::Pt, true) => "tabela",
        (Lang::Pt, false) => "tabela e gráfico",
    };
    let sources: Vec<String> = citations
        .sources
        .values()
        .map(|source| {
            format!(
                "{}, {} ({})",
                source.publisher, source.dataset, source.license
            )
        })
        .collect();
    let mut message = format!("{title}: {shown}.");
    if !sources.is_empty() {
        let label = match (lang, sources.len()) {
            (Lang::Es, 1) => "Fuente",
            (Lang::Es, _) => "Fuentes",
            (Lang::En, 1) => "Source",
            (Lang::En, _) => "Sources",
            (Lang::Pt, 1) => "Fonte",
            (Lang::Pt, _) => "Fontes",
        };
        message.push_str(&format!(" {label}: {}.", sources.join("; ")));
    }
    Some(message)
}

/// A compact JSON formatter that writes every float at 12 significant digits, which keeps every digit
/// a publisher prints and drops the noise of binary arithmetic (`7.8999999999999915` → `7.9`). For
/// displays only: cited results keep every bit.
struct TrimFloats;

impl serde_json::ser::Formatter for TrimFloats {
    fn write_f64<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        value: f64,
    ) -> std::io::Result<()> {
        // Most values print in 12 significant digits or fewer already (`75.264`): then rounding to 12
        // digits gives the same double back, and its shortest printing is written as it is.
        // serde_json hands a formatter finite values only (it writes `null` for the others), and prints
        // them with zmij as this does.
        let mut buffer = zmij::Buffer::new();
        let printed = buffer.format_finite(value).as_bytes();
        if at_most_twelve_digits(printed) {
            return writer.write_all(printed);
        }
        serde_json::ser::CompactFormatter.write_f64(writer, significant(value, 12))
    }
}

/// Whether the printed number `printed` (`-0.000123`, `324800000.0`, `1.5e-7`) has at most 12 digits
/// in its mantissa once its leading zeros are dropped (trailing zeros are counted: an overcount only
/// sends a number to the slower rounding, which prints the same).
fn at_most_twelve_digits(printed: &[u8]) -> bool {
    // Twelve bytes or fewer hold twelve digits or fewer: most values (`75.264`) stop here.
    if printed.len() <= 12 {
        return true;
    }
    let mantissa = printed
        .iter()
        .position(|&byte| byte == b'e' || byte == b'E')
        .map_or(printed, |at| &printed[..at]);
    mantissa
        .iter()
        .filter(|byte| byte.is_ascii_digit())
        .skip_while(|&&byte| byte == b'0')
        .count()
        <= 12
}

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde_json::json;

    use super::{TrimFloats, series_id};

    #[test]
    fn display_numbers_lose_binary_noise_not_digits() {
        let value = json!({"rows": [[2.9450000000000003, 7.8999999999999915, 324800000.0, 75.264, 2024, 0.000123456789012345, 1.5459999999999923, -3.0000000000000004, 1.5e-7, 98765432109.87654, 123456789012.0]]});
        let mut bytes = Vec::new();
        value
            .serialize(&mut serde_json::Serializer::with_formatter(
                &mut bytes, TrimFloats,
            ))
            .unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            r#"{"rows":[[2.945,7.9,324800000.0,75.264,2024,0.000123456789012,1.546,-3.0,1.5e-7,98765432109.9,123456789012.0]]}"#
        );
    }

    #[test]
    fn series_id_is_the_citation_id_without_its_year() {
        assert_eq!(
            series_id("wb-sp-dyn-le00-in-mex-2024"),
            "wb-sp-dyn-le00-in-mex"
        );
    }
}
