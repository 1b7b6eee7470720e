//! `search`: ChatGPT's deep-research search over the corpus (an MCP-only tool beside the seed's fifteen).
//!
//! ChatGPT's deep research and company-knowledge modes call only tools named `search` and `fetch`: `search`
//! takes one `query` string and answers `{"results": [{"id", "title", "url"}]}` (OpenAI's MCP guide);
//! [`super::fetch`] takes one of those ids and answers the document. The hits are `search_corpus`'s
//! (the tantivy index of indicators, the dataset catalog and the curated records), read as documents:
//!
//! - an indicator: `indicator:{metric_id}` (every country's latest value, cited), or
//!   `series:{metric_id}:{ISO3}` when the query names a country (`"esperanza de vida México"`: the
//!   country's words are read out of the query, in es/en/pt, and filter the hits);
//! - a dataset of the catalog: `dataset:{dataset_id}`;
//! - a curated record (project, law, institution, financing flow, event): its own citation id
//!   (`wbproj-p127837`).
//!
//! `url` is the publisher's page (the deep link of the indicator in that country where the publisher has
//! one, the record's page), so ChatGPT's citation opens the primary source. Countries and pillars are not
//! documents: they filter. At most [`RESULTS`] results; none when nothing matches (`results: []`).

use corpus::Lang;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ToolError, ToolSpec, fetch::DocumentId, search_corpus};
use crate::load::Corpus;

/// The most results one search answers.
pub const RESULTS: usize = 10;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::document(
        "search",
        "Search the corpus (ChatGPT deep research)",
        "MCP-only, ChatGPT's search: indicators, datasets and curated records by words \
         (es/en/pt); a country in the query filters (`life expectancy Mexico`). Up to 10 \
         `results` {id, title, url} for fetch.",
        &search_corpus::DATASETS,
        handle,
    )
}

/// Arguments of `search`: one query, as ChatGPT sends it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchInput {
    /// Words (es/en/pt); may name a country.
    #[schemars(transform = super::limits::cap_text)]
    pub query: String,
}

/// `structuredContent` of `search` (and its one text block): the results, best first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchResults {
    /// Up to ten documents, best first; empty when nothing in the corpus matches.
    pub results: Vec<SearchResult>,
}

/// One document found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchResult {
    /// What `fetch` takes: `indicator:sp_dyn_le00_in`, `series:sp_dyn_le00_in:MEX`, `dataset:projects` or a
    /// record's citation id (`wbproj-p127837`).
    pub id: String,
    /// Its name in the request's language (an indicator in a country: `… — México`).
    pub title: String,
    /// The publisher's page of it, for the citation.
    pub url: String,
}

fn handle(corpus: &Corpus, input: SearchInput, lang: Lang) -> Result<SearchResults, ToolError> {
    if input.query.trim().is_empty() {
        return Err(ToolError::Invalid(
            "query is empty: give words to search for (an indicator, a topic, a project), in Spanish, English or Portuguese".into(),
        ));
    }
    let (words, country) = read_country(corpus, &input.query);
    let found = search_corpus::search(
        corpus,
        search_corpus::SearchCorpusInput {
            query: words,
            datasets: None,
            country: country.map(str::to_string),
            parameter: None,
            from_year: None,
            to_year: None,
            // Countries and pillars are dropped below: ask for more than ten.
            limit: Some(2 * RESULTS as u32),
        },
        lang,
    )?;
    let mut results: Vec<SearchResult> = Vec::new();
    for hit in &found {
        let id = match hit.dataset_id.as_str() {
            "metrics" => hit.keys["id"].as_str().map(|metric| match country {
                Some(iso3) => DocumentId::Series(metric.to_string(), iso3.to_string()),
                None => DocumentId::Indicator(metric.to_string()),
            }),
            "catalog" => hit.keys["dataset_id"]
                .as_str()
                .map(|dataset| DocumentId::Dataset(dataset.to_string())),
            _ => search_corpus::hit_record(corpus, hit)
                .map(|record| DocumentId::Record(record.citation_id)),
        };
        let Some(document) = id.and_then(|id| super::fetch::heading(corpus, &id, lang)) else {
            continue;
        };
        if results.iter().all(|result| result.id != document.id) {
            results.push(SearchResult {
                id: document.id,
                title: document.title,
                url: document.url,
            });
        }
        if results.len() == RESULTS {
            break;
        }
    }
    Ok(SearchResults { results })
}

/// The query without the words that name a country of the corpus (es/en/pt names, `Brasil`, `República
/// Dominicana`; an ISO3 code only in capitals, `MEX`), and that country's ISO3. The longest name wins
/// (`República Dominicana` before `Dominica`); only one country is read; words of fewer than four letters
/// are read only as a capitalised ISO3 code (so `do` or `co` are never a country). When the query is
/// nothing but the country, it is kept whole.
pub fn read_country<'a>(corpus: &'a Corpus, query: &str) -> (String, Option<&'a str>) {
    let words: Vec<&str> = query.split_whitespace().collect();
    let countries = corpus.baked.countries();
    for length in (1..=4.min(words.len())).rev() {
        for start in 0..=words.len() - length {
            let phrase = words[start..start + length].join(" ");
            let bare = phrase.trim_matches(|character: char| !character.is_alphanumeric());
            let readable = bare.chars().count() >= 4
                || (bare.len() == 3
                    && bare.chars().all(|character| character.is_ascii_uppercase()));
            if !readable {
                continue;
            }
            if let Some(country) = countries.resolve(bare) {
                let rest: Vec<&str> = words[..start]
                    .iter()
                    .chain(&words[start + length..])
                    .copied()
                    .filter(|word| !CONNECTORS.contains(&word.to_lowercase().as_str()))
                    .collect();
                if rest.is_empty() {
                    return (query.to_string(), Some(country.iso3.as_str()));
                }
                return (rest.join(" "), Some(country.iso3.as_str()));
            }
        }
    }
    (query.to_string(), None)
}

/// Words left dangling when a country is read out of a query (`… in Mexico`, `… de México`).
const CONNECTORS: [&str; 8] = ["in", "of", "for", "de", "en", "do", "da", "no"];
