//! `search_corpus`: full-text search over the whole corpus — indicators, the dataset catalog, countries
//! and pillars — returning hits with the `dataset_id` and keys to fetch each one with `get_dataset`.
//!
//! Reads the tantivy index the bake builds (`metrics`, `catalog`, `countries`, `pillars` documents);
//! case-, accent- and stop-word-insensitive, es/en/pt. `limit` 1 to 50 (default 10).

use corpus::{CitedRecord, RecordDataset};
use corpus::{Lang, exports::Subject};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    ToolAnswer, ToolError, ToolSpec, arguments,
    display::{self, SourceLink},
};
use crate::load::Corpus;

/// Datasets the index covers: the indicators, the dataset catalog, countries, pillars and every curated
/// record dataset.
pub const SEARCHABLE: [&str; 9] = [
    "metrics",
    "catalog",
    "countries",
    "pillars",
    RecordDataset::Projects.id(),
    RecordDataset::Regulation.id(),
    RecordDataset::Institutions.id(),
    RecordDataset::Financing.id(),
    RecordDataset::Events.id(),
];

/// The datasets it reads (and `search`, which reads its hits).
pub const DATASETS: [&str; 8] = [
    "metrics",
    "countries",
    "pillars",
    RecordDataset::Projects.id(),
    RecordDataset::Regulation.id(),
    RecordDataset::Institutions.id(),
    RecordDataset::Financing.id(),
    RecordDataset::Events.id(),
];

/// Bytes of hits and their cited records an answer stays under: hits stop being added before it (the
/// first always fits), and `truncated` says so.
pub const ANSWER_BYTES: usize = 20 * 1024;

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "search_corpus",
        "Full-text search over the corpus",
        "Searches indicators, datasets, countries, pillars and curated records (projects, regulation, \
         institutions, financing, events) by words in es/en/pt. Each hit names its dataset_id and the \
         keys for get_dataset (an indicator also goes to get_series or compute); dated hits carry \
         `date`.",
        &DATASETS,
        handle,
    )
    .paged(10)
}

/// Arguments of `search_corpus`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchCorpusInput {
    /// Words to search for (es/en/pt).
    #[schemars(transform = super::limits::cap_text)]
    pub query: String,
    /// Only these: metrics, catalog, countries, pillars or a curated dataset.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_identifier)]
    pub datasets: Option<Vec<String>>,
    /// Indicators with data for it, records of it.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    pub country: Option<String>,
    /// Only this pillar.
    #[serde(default)]
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub parameter: Option<String>,
    /// Dated records from this year on.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub from_year: Option<i32>,
    /// Dated records up to this year.
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1900, max = 2100))]
    pub to_year: Option<i32>,
    /// Hits, 1-50 (default 10).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 50), extend("default" = 10))]
    #[schemars(description = "")]
    pub limit: Option<u32>,
}

/// The hits.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchCorpusResult {
    /// The query as received.
    pub query: String,
    /// Hits, best first.
    pub hits: Vec<Hit>,
    /// Whether hits were left out to stay under 24 KB.
    pub truncated: bool,
    /// When nothing matches: what to try.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// One hit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Hit {
    /// Dataset of the record.
    pub dataset_id: String,
    /// Keys that fetch it with get_dataset (e.g. `{"dataset_id": "metrics", "id": "sp_dyn_le00_in"}`).
    pub keys: Value,
    /// Its name in the requested language.
    pub title: String,
    /// The first words of its description.
    pub snippet: String,
    /// A dated record's date, `YYYY-MM-DD` (or `YYYY-MM`, `YYYY`): a law's first event, a project's
    /// approval, an event's day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Relevance (higher is better), comparable within this answer only.
    pub score: f32,
    /// For an indicator or a dataset: the URL of its tidy CSV (a dataset's is gzip). The indicator's other
    /// formats are the same URL ending in `.wide.csv`, `.xlsx`, `.parquet`, `.sdmx.xml`, `.sdmx.csv` (a
    /// dataset's: `.parquet`); get_dataset lists each with its size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download: Option<String>,
}

/// The hits of a search, best first, as `search_corpus` answers them (for `search`).
///
/// # Errors
/// As `search_corpus`: an empty query, a limit out of 1-50, an unknown country, dataset or pillar.
pub(crate) fn search(
    corpus: &Corpus,
    input: SearchCorpusInput,
    lang: Lang,
) -> Result<Vec<Hit>, ToolError> {
    handle(corpus, input, lang).map(|answer| answer.result.hits)
}

fn handle(
    corpus: &Corpus,
    input: SearchCorpusInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, SearchCorpusResult>, ToolError> {
    let limit = input.limit.unwrap_or(10);
    if !(1..=50).contains(&limit) {
        return Err(ToolError::Invalid(format!("limit {limit}: give 1 to 50")));
    }
    if input.query.trim().is_empty() {
        return Err(ToolError::Invalid(
            "query is empty: give words to search for".into(),
        ));
    }
    let datasets: Vec<&str> = match &input.datasets {
        Some(datasets) => datasets
            .iter()
            .map(|dataset| {
                let folded = dataset.trim().to_ascii_lowercase();
                SEARCHABLE
                    .iter()
                    .copied()
                    .find(|known| *known == folded)
                    .ok_or_else(|| {
                        ToolError::Invalid(format!(
                            "datasets: `{}` is not searchable; valid: {}",
                            arguments::snippet(dataset),
                            SEARCHABLE.join(", ")
                        ))
                    })
            })
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let window = arguments::YearWindow::of(input.from_year, input.to_year)?;
    let pillar = arguments::optional_pillar(corpus, input.parameter.as_deref())?;
    let country = arguments::optional_country(corpus, input.country.as_deref())?;
    // Ask for more than `limit` when a country filter will drop hits: indicators without data for it and,
    // above all, the projects of every other country.
    let projects_searched = datasets.is_empty()
        || datasets
            .iter()
            .any(|dataset| RecordDataset::from_id(dataset).is_some());
    let fetch = match (country.is_some() || window.is_some(), projects_searched) {
        (true, true) => (limit as usize * 8).max(500),
        (true, false) => limit as usize * 8,
        (false, _) => limit as usize,
    };
    let mut found = corpus
        .index
        .search_datasets(
            &input.query,
            &datasets,
            pillar.map(|pillar| pillar.id.as_str()),
            fetch,
        )
        .map_err(|error| ToolError::Internal(error.to_string()))?;
    // Of the indicators named alike, the reviewed default of its quantity first (other records keep
    // their place).
    corpus::index::defaults_first_among_best_named(&mut found, |hit| {
        hit.dataset_id != "metrics"
            || corpus
                .baked
                .metric(&hit.id)
                .is_some_and(|metric| metric.headline)
    });
    let baked = &corpus.baked;
    // An unreadable projects artifact is a fault, not "no hits".
    corpus.projects().map_err(ToolError::Internal)?;
    let mut hits = Vec::new();
    // A curated record a hit names is cited.
    let mut records = Vec::new();
    let (mut bytes, mut truncated) = (0, false);
    for hit in found {
        super::cancel::checkpoint()?;
        let entry = if let Some(dataset) = RecordDataset::from_id(&hit.dataset_id) {
            record_hit(
                corpus,
                (dataset, &hit.id),
                country.map(|country| country.iso3.as_str()),
                window,
                lang,
            )?
        } else {
            let other = match hit.dataset_id.as_str() {
                "metrics" => baked.metric(&hit.id).and_then(|metric| {
                    let has_data = country.is_none_or(|country| {
                        !baked
                            .observations()
                            .series(&metric.id, &country.iso3)
                            .is_empty()
                    });
                    has_data.then(|| {
                        (
                            metric.names.get(lang).to_string(),
                            metric.description.clone(),
                            json!({"dataset_id": "metrics", "id": metric.id}),
                        )
                    })
                }),
                "catalog" => corpus.dataset(&hit.id).map(|dataset| {
                    (
                        dataset.title.clone(),
                        dataset.description.clone(),
                        json!({"dataset_id": dataset.dataset_id}),
                    )
                }),
                "countries" => baked.countries().get(&hit.id).map(|entity| {
                    (
                        entity.names.get(lang).to_string(),
                        format!("{:?}, {} observations", entity.kind, entity.observations)
                            .to_lowercase(),
                        json!({"dataset_id": "countries", "id": entity.iso3}),
                    )
                }),
                "pillars" => baked.pillars().get(&hit.id).map(|pillar| {
                    (
                        pillar.names.get(lang).to_string(),
                        String::new(),
                        json!({"dataset_id": "pillars", "id": pillar.id}),
                    )
                }),
                _ => None,
            };
            other.map(|(title, description, keys)| (title, description, keys, None))
        };
        if let Some((title, description, keys, date)) = entry {
            let download = match hit.dataset_id.as_str() {
                "metrics" => display::file_links(corpus, Subject::Indicator, &hit.id),
                "catalog" => display::file_links(corpus, Subject::Dataset, &hit.id),
                _ => Vec::new(),
            }
            .into_iter()
            .next()
            .map(|file| file.url);
            let hit = Hit {
                download,
                dataset_id: hit.dataset_id,
                keys,
                title,
                snippet: snippet(&description),
                date,
                score: hit.score,
            };
            let record = hit_record(corpus, &hit);
            let size = serde_json::to_string(&hit).map_or(0, |text| text.len())
                + record
                    .as_ref()
                    .and_then(|record| serde_json::to_string(record).ok())
                    .map_or(0, |text| text.len());
            if !hits.is_empty() && bytes + size > ANSWER_BYTES {
                truncated = true;
                break;
            }
            bytes += size;
            hits.push(hit);
            records.extend(record);
        }
        if hits.len() == limit as usize {
            break;
        }
    }
    let note = hits.is_empty().then(|| {
        format!(
            "nothing in the corpus matches `{}` with these filters: say the corpus holds none; or try other words \
             in Spanish, English or Portuguese, or fewer filters",
            arguments::snippet(&input.query)
        )
    });
    // The datasets the hits come from are the sources.
    let mut datasets: Vec<&str> = hits.iter().map(|hit| hit.dataset_id.as_str()).collect();
    datasets.sort_unstable();
    datasets.dedup();
    let sources = datasets
        .into_iter()
        .map(|dataset| {
            display::source_link(
                corpus,
                if dataset == "catalog" {
                    "metrics"
                } else {
                    dataset
                },
                None,
            )
        })
        .collect();
    let result = SearchCorpusResult {
        query: input.query,
        hits,
        truncated,
        note,
        sources,
    };
    Ok(ToolAnswer {
        result,
        citations: Vec::new(),
        display: None,
        records,
    })
}

/// The citation of a hit on a curated record (projects, laws, institutions, flows, events).
pub(crate) fn hit_record(corpus: &Corpus, hit: &Hit) -> Option<corpus::RecordCitation> {
    let dataset = RecordDataset::from_id(&hit.dataset_id)?;
    let id = hit.keys["id"].as_str()?;
    match dataset {
        RecordDataset::Projects => corpus.project(id).map(CitedRecord::citation),
        RecordDataset::Regulation
        | RecordDataset::Institutions
        | RecordDataset::Financing
        | RecordDataset::Events => corpus.record_citation(id),
    }
}

/// A hit on a curated record: a project, law, institution, CRS flow or event (an event's title and why in
/// `lang`) (title, description, keys), unless `country` filters it out.
///
/// # Errors
/// [`ToolError::Internal`] if the record table cannot be read.
fn record_hit(
    corpus: &Corpus,
    (dataset, id): (RecordDataset, &str),
    country: Option<&str>,
    window: Option<arguments::YearWindow>,
    lang: Lang,
) -> Result<Option<RecordHit>, ToolError> {
    let keep = |of: &str| country.is_none_or(|country| country == of);
    // A dated record is kept when its year is in the window (an undated one is not, once one is asked).
    let dated = |date: Option<&str>| window.is_none_or(|window| window.holds_date(date));
    let keys = json!({"dataset_id": dataset.id(), "id": id});
    Ok(match dataset {
        RecordDataset::Projects => corpus
            .project(id)
            .filter(|project| {
                country.is_none_or(|country| project.country.as_deref() == Some(country))
                    && dated(project.approval_date.as_deref())
            })
            .map(|project| {
                (
                    project.title.clone(),
                    project.objective.clone(),
                    keys,
                    project.approval_date.clone(),
                )
            }),
        RecordDataset::Regulation => corpus
            .laws()
            .map_err(ToolError::Internal)?
            .get(id)
            .filter(|law| keep(&law.country) && dated(law.date.as_deref()))
            .map(|law| {
                (
                    law.title.clone(),
                    law.description.clone(),
                    keys,
                    law.date.clone(),
                )
            }),
        RecordDataset::Events => corpus
            .events()
            .map_err(ToolError::Internal)?
            .get(id)
            .filter(|event| {
                country.is_none_or(|country| event.countries.iter().any(|of| of == country))
                    && dated(Some(&event.date))
            })
            .map(|event| {
                (
                    event.title_in(lang).to_string(),
                    event.why_in(lang).to_string(),
                    keys,
                    Some(event.date.clone()),
                )
            }),
        RecordDataset::Institutions => corpus
            .institutions()
            .map_err(ToolError::Internal)?
            .get(id)
            .filter(|body| keep(&body.country))
            .map(|body| {
                let role = body.role.replace('_', " ");
                (
                    body.name.clone(),
                    format!("{role}, {}", body.country),
                    keys,
                    None,
                )
            }),
        RecordDataset::Financing => {
            let table = corpus.financing().map_err(ToolError::Internal)?;
            let record = table.get(id).filter(|record| keep(&record.country));
            record.and_then(|record| {
                let snippet = match window {
                    Some(window) if !record.years.is_empty() => {
                        let (current, constant) = record.disbursed_in(window.from, window.to)?;
                        // The years reported within the window, not its open ends.
                        let reported: Vec<i32> = record
                            .disbursing_years(window.from, window.to)
                            .map(|flow| flow.year)
                            .collect();
                        let (first, last) = (reported[0], reported[reported.len() - 1]);
                        format!(
                            "US${current:.2} million disbursed {first}-{last} at current prices (US${constant:.2} million at constant prices)"
                        )
                    }
                    // An instrument of projects has no disbursement years: a window leaves it out.
                    Some(_) => return None,
                    None => {
                        let total = record.total_constant_usd_mn.unwrap_or(0.0);
                        let years = record
                            .first_year
                            .zip(record.last_year)
                            .map_or_else(String::new, |(first, last)| format!(", {first}-{last}"));
                        format!("US${total:.2} million at constant prices{years}")
                    }
                };
                Some((record.title.clone(), snippet, keys, None))
            })
        }
    })
}

/// A curated record's hit: title, description, keys and date.
type RecordHit = (String, String, serde_json::Value, Option<String>);

fn snippet(description: &str) -> String {
    let mut characters = description.chars();
    let head: String = characters.by_ref().take(200).collect();
    if characters.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}
