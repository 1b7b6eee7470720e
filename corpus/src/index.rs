//! The full-text index over the corpus' records (`index/` in a corpus directory, tantivy): indicators (ids,
//! source codes, names and descriptions in es/en/pt, synonyms, pillars), datasets and countries, with case-, accent- and
//! stop-word-insensitive matching, so `homicidios`, `homicides` and `homicídios` find the same indicator.
//!
//! The writer ([`build_index`]) and the reader ([`MetricIndex`]) sit side by side so the bake and the
//! server agree on the schema and the analyzer.
//!
//! # Determinism
//! tantivy names segments with random UUIDs. The writer builds one segment with one thread, then renames
//! that segment to an id derived from the indexed content and rewrites `meta.json` and `.managed.json`
//! accordingly, so the same metrics give the same index bytes.

use std::path::Path;

use sha2::{Digest, Sha256};
use tantivy::{
    Index, IndexReader, IndexWriter, TantivyDocument, Term,
    collector::{DocSetCollector, TopDocs},
    doc,
    query::{BooleanQuery, Occur, Query, QueryParser, TermQuery},
    schema::{
        Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
    },
    tokenizer::TokenStream,
    tokenizer::{
        AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
        StopWordFilter, TextAnalyzer,
    },
};

use crate::{CorpusError, Metric, Pillar};

/// Name of the analyzer registered on every index: simple tokens, lower case, ASCII folding, es/en/pt stop words.
pub const FOLDED_ANALYZER: &str = "folded";

/// One document of the index: a record of some dataset, with the text it is found by.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexDocument {
    /// Dataset of the record (`metrics`, `countries`, `catalog`, …).
    pub dataset_id: String,
    /// The record's key in that dataset (metric id, ISO3, dataset id).
    pub id: String,
    /// Pillar ids of records that belong to pillars (a project or law may act on several); a `pillar`
    /// filter matches any of them.
    pub pillars: Vec<String>,
    /// Codes (source code, id), matched with a high boost.
    pub code: String,
    /// Names in es/en/pt.
    pub names: Vec<String>,
    /// The publisher's title.
    pub title: String,
    /// Other words that name it.
    pub synonyms: Vec<String>,
    /// Definition or description.
    pub description: String,
    /// Surrounding words (pillar names, topic, unit), matched with a low boost.
    pub context: String,
}

/// One search hit: the record's dataset, its key and its BM25 score.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricHit {
    /// Dataset of the record.
    pub dataset_id: String,
    /// The record's key (metric id for `metrics`).
    pub id: String,
    /// Relevance score (higher is better); comparable within one query only.
    pub score: f32,
    /// Share of the query's content words (after case and accent folding and stemming, stop words
    /// out, and the measure words of [`MEASURE_WORDS`] out when other words remain) found in the
    /// record's names, title, synonyms or code, 0 to 1: 1 when the record is named by every word asked
    /// for, low when only its description or pillar matched. Comparable across queries, unlike `score`.
    pub match_share: f32,
}

/// Orders `hits` (best first) so that, among the hits named by the largest share of the query's words,
/// those `is_default` holds for come first, each group in relevance order; the other hits follow as they
/// were. Two publishers' series of one quantity (WDI's homicide rate and UNODC's via OWID) are named alike;
/// the reviewed default (a metric's `headline`) answers first, the other stays beside it.
pub fn defaults_first_among_best_named(
    hits: &mut Vec<MetricHit>,
    is_default: impl Fn(&MetricHit) -> bool,
) {
    let Some(best) = hits.iter().map(|hit| hit.match_share).reduce(f32::max) else {
        return;
    };
    let (mut first, rest): (Vec<MetricHit>, Vec<MetricHit>) = std::mem::take(hits)
        .into_iter()
        .partition(|hit| hit.match_share >= best);
    first.sort_by_key(|hit| !is_default(hit));
    first.extend(rest);
    *hits = first;
}

/// The index opened from its files, ready to search.
#[derive(Clone)]
struct OpenedIndex {
    reader: IndexReader,
    parser: QueryParser,
    /// The same parser requiring every word (`energía renovable`: both).
    parser_every_word: QueryParser,
    fields: Fields,
    analyzer: TextAnalyzer,
}

/// The full-text index of a baked corpus, opened on first use: [`MetricIndex::open`] only finds its
/// directory, the first search (or [`MetricIndex::warm`], which a server calls on a background thread at
/// start) reads its files into memory. A start-up thus answers its first request without waiting for
/// the index, and a corpus whose index cannot be read fails the searches with the reason.
#[derive(Clone)]
pub struct MetricIndex {
    dir: std::path::PathBuf,
    opened: std::sync::Arc<std::sync::OnceLock<Result<OpenedIndex, String>>>,
}

impl std::fmt::Debug for MetricIndex {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("MetricIndex")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl MetricIndex {
    /// The index in `dir` (written by [`build_index`]), to be read on first use.
    ///
    /// # Errors
    /// [`CorpusError::Index`] if `dir` holds no index (no `meta.json`).
    pub fn open(dir: &Path) -> Result<MetricIndex, CorpusError> {
        if !dir.join("meta.json").is_file() {
            return Err(CorpusError::Index {
                path: dir.to_path_buf(),
                message: "no index here (meta.json is missing)".into(),
            });
        }
        Ok(MetricIndex {
            dir: dir.to_path_buf(),
            opened: Default::default(),
        })
    }

    /// Reads the index now, if no search has yet.
    ///
    /// # Errors
    /// [`CorpusError::Index`] if the index cannot be read or does not match this build's schema.
    pub fn warm(&self) -> Result<(), CorpusError> {
        self.opened().map(|_| ())
    }

    fn opened(&self) -> Result<&OpenedIndex, CorpusError> {
        self.opened
            .get_or_init(|| {
                OpenedIndex::open(&self.dir).map_err(|error| match error {
                    CorpusError::Index { message, .. } => message,
                    other => other.to_string(),
                })
            })
            .as_ref()
            .map_err(|message| CorpusError::Index {
                path: self.dir.clone(),
                message: message.clone(),
            })
    }

    /// The best `limit` metrics for free text `query`, optionally within one pillar, best first.
    /// Query syntax errors are forgiven (lenient parsing); an empty query or `limit` 0 gives no hits.
    ///
    /// # Errors
    /// [`CorpusError::Index`] if the index cannot be read.
    pub fn search(
        &self,
        query: &str,
        pillar: Option<&str>,
        limit: usize,
    ) -> Result<Vec<MetricHit>, CorpusError> {
        self.opened()?
            .hits(query, &["metrics"], pillar, limit, (true, false))
    }

    /// The best `limit` records of the given datasets (all when `datasets` is empty) for free text
    /// `query`, optionally within one pillar, best first, each with its [`MetricHit::match_share`].
    /// Only the first [`MAX_QUERY_WORDS`] words of `query` are read; a query of stop words alone
    /// (`de la`, `of the`) gives no hits.
    ///
    /// # Errors
    /// [`CorpusError::Index`] if the index cannot be read.
    pub fn search_datasets(
        &self,
        query: &str,
        datasets: &[&str],
        pillar: Option<&str>,
        limit: usize,
    ) -> Result<Vec<MetricHit>, CorpusError> {
        self.opened()?
            .hits(query, datasets, pillar, limit, (true, false))
    }

    /// As [`MetricIndex::search_datasets`], without judging each hit's `match_share` (0 in every hit):
    /// for callers that rank by relevance alone and read many hits. With `every_word`, a record matches
    /// only if each word of the query (or its glossary word) is in one of its fields.
    ///
    /// # Errors
    /// [`CorpusError::Index`] if the index cannot be read.
    pub fn search_ranked(
        &self,
        query: &str,
        datasets: &[&str],
        pillar: Option<&str>,
        limit: usize,
        every_word: bool,
    ) -> Result<Vec<MetricHit>, CorpusError> {
        self.opened()?
            .hits(query, datasets, pillar, limit, (false, every_word))
    }

    /// As [`MetricIndex::search_ranked`], each hit's `match_share` judged (the share of the query's
    /// content words its names, title, synonyms or code hold: for a project, its title and the title's
    /// glossary words).
    ///
    /// # Errors
    /// [`CorpusError::Index`] if the index cannot be read.
    pub fn search_ranked_judged(
        &self,
        query: &str,
        datasets: &[&str],
        limit: usize,
        every_word: bool,
    ) -> Result<Vec<MetricHit>, CorpusError> {
        self.opened()?
            .hits(query, datasets, None, limit, (true, every_word))
    }
}

#[derive(Debug, Clone, Copy)]
struct Fields {
    dataset: Field,
    id: Field,
    pillar: Field,
    code: Field,
    names: Field,
    title: Field,
    synonyms: Field,
    description: Field,
    context: Field,
}

/// The index documents of the metric registry: names, codes, definitions, synonyms, and the names of
/// each metric's pillar as context.
pub fn metric_documents(metrics: &[Metric], pillars: &[Pillar]) -> Vec<IndexDocument> {
    metrics
        .iter()
        .map(|metric| {
            let pillar_names: Vec<&str> = pillars
                .iter()
                .find(|pillar| pillar.id == metric.pillar)
                .map(|pillar| pillar.names.all().collect())
                .unwrap_or_default();
            IndexDocument {
                dataset_id: "metrics".into(),
                id: metric.id.clone(),
                pillars: vec![metric.pillar.clone()],
                code: format!("{} {}", metric.source_code, metric.id),
                names: metric.names.all().map(String::from).collect(),
                title: metric.source_title.clone(),
                synonyms: metric.synonyms.clone(),
                description: metric.description.clone(),
                context: format!(
                    "{} {} {}",
                    pillar_names.join(" "),
                    metric.topic.as_deref().unwrap_or_default(),
                    metric.unit
                ),
            }
        })
        .collect()
}

/// Builds the index of `documents` in the empty directory `dir`.
///
/// # Errors
/// [`CorpusError::Index`] if tantivy fails; [`CorpusError::Io`] if the segment files cannot be renamed.
pub fn build_index(dir: &Path, documents: &[IndexDocument]) -> Result<(), CorpusError> {
    let index_error = |error: tantivy::TantivyError| CorpusError::Index {
        path: dir.to_path_buf(),
        message: error.to_string(),
    };
    let (schema, fields) = schema();
    let index = Index::create_in_dir(dir, schema).map_err(index_error)?;
    register_analyzer(&index);
    // One thread and a memory budget that holds every document give one segment (deterministic bytes):
    // tantivy's minimum of 15 MB is ample for the real corpus' few thousand documents; a larger corpus
    // (bench/scale.sh's synthetic ones) gets some 64 bytes of budget per byte of text.
    let text_bytes: usize = documents
        .iter()
        .map(|document| {
            document.names.iter().map(String::len).sum::<usize>()
                + document.synonyms.iter().map(String::len).sum::<usize>()
                + document.title.len()
                + document.description.len()
                + document.context.len()
                + document.code.len()
                + document.id.len()
        })
        .sum();
    let budget = (text_bytes.saturating_mul(64)).clamp(15_000_000, 2_000_000_000);
    let mut writer: IndexWriter = index
        .writer_with_num_threads(1, budget)
        .map_err(index_error)?;
    let mut content_hash = Sha256::new();
    for document in documents {
        let names = document.names.join(" | ");
        let mut tantivy_document = doc!(
            fields.dataset => document.dataset_id.as_str(),
            fields.id => document.id.as_str(),
            fields.code => document.code.as_str(),
            fields.names => names.as_str(),
            fields.title => document.title.as_str(),
            fields.synonyms => document.synonyms.join(" | "),
            fields.description => document.description.as_str(),
            fields.context => document.context.as_str(),
        );
        for pillar in &document.pillars {
            tantivy_document.add_text(fields.pillar, pillar);
        }
        for part in [
            &document.dataset_id,
            &document.id,
            &names,
            &document.description,
            &document.context,
        ] {
            content_hash.update(part.as_bytes());
            content_hash.update(b"\0");
        }
        writer.add_document(tantivy_document).map_err(index_error)?;
    }
    writer.commit().map_err(index_error)?;
    writer.wait_merging_threads().map_err(index_error)?;
    let digest = content_hash.finalize();
    let segment_name: String = digest
        .iter()
        .take(16)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    normalize_segment_names(dir, &segment_name)
}

impl OpenedIndex {
    /// Opens the index in `dir`, its files read into memory (a few MB): a file changed in place under a
    /// running server cannot reach a search (a memory map of it would raise SIGBUS on truncation).
    ///
    /// # Errors
    /// [`CorpusError::Index`] if the directory does not hold a readable index of this schema.
    fn open(dir: &Path) -> Result<OpenedIndex, CorpusError> {
        let index_error = |error: tantivy::TantivyError| CorpusError::Index {
            path: dir.to_path_buf(),
            message: error.to_string(),
        };
        let io_error = |error: std::io::Error| CorpusError::Index {
            path: dir.to_path_buf(),
            message: error.to_string(),
        };
        let in_memory = tantivy::directory::RamDirectory::create();
        for entry in std::fs::read_dir(dir).map_err(io_error)? {
            let entry = entry.map_err(io_error)?;
            let name = entry.file_name();
            let lock = name
                .to_str()
                .is_some_and(|name| name.starts_with(".tantivy-") && name.ends_with(".lock"));
            // A lock file another process left (an older server's reader, a writer) is not part of
            // the index: copied, it would hold the in-memory index's own lock.
            if lock || !entry.file_type().map_err(io_error)?.is_file() {
                continue;
            }
            let bytes = std::fs::read(entry.path()).map_err(io_error)?;
            tantivy::Directory::atomic_write(&in_memory, Path::new(&name), &bytes)
                .map_err(io_error)?;
        }
        let index = Index::open(in_memory).map_err(index_error)?;
        register_analyzer(&index);
        let (_, fields) = schema();
        let schema = index.schema();
        for (name, field) in [
            ("id", fields.id),
            ("names", fields.names),
            ("description", fields.description),
        ] {
            if schema.get_field(name).ok() != Some(field) {
                return Err(CorpusError::Index {
                    path: dir.to_path_buf(),
                    message: format!("field `{name}` differs from this build's schema"),
                });
            }
        }
        let reader = index.reader().map_err(index_error)?;
        let mut parser = QueryParser::for_index(
            &index,
            vec![
                fields.code,
                fields.names,
                fields.title,
                fields.synonyms,
                fields.description,
                fields.context,
            ],
        );
        parser.set_field_boost(fields.names, 4.0);
        parser.set_field_boost(fields.synonyms, 3.0);
        parser.set_field_boost(fields.title, 2.0);
        parser.set_field_boost(fields.code, 2.0);
        parser.set_field_boost(fields.description, 0.5);
        parser.set_field_boost(fields.context, 0.5);
        let analyzer = index
            .tokenizers()
            .get(FOLDED_ANALYZER)
            .expect("the analyzer is registered above");
        let mut parser_every_word = parser.clone();
        parser_every_word.set_conjunction_by_default();
        Ok(OpenedIndex {
            reader,
            parser,
            parser_every_word,
            fields,
            analyzer,
        })
    }

    fn hits(
        &self,
        query: &str,
        datasets: &[&str],
        pillar: Option<&str>,
        limit: usize,
        (judge_matches, every_word): (bool, bool),
    ) -> Result<Vec<MetricHit>, CorpusError> {
        let query = query
            .split_whitespace()
            .take(MAX_QUERY_WORDS)
            .collect::<Vec<_>>()
            .join(" ");
        if limit == 0 || self.words(&escape(&query)).is_empty() {
            return Ok(Vec::new());
        }
        let query = query.as_str();
        let index_error = |error: tantivy::TantivyError| CorpusError::Index {
            path: "index".into(),
            message: error.to_string(),
        };
        let words = self.content_words(query);
        let parser = if every_word {
            &self.parser_every_word
        } else {
            &self.parser
        };
        let (text_query, _) = parser.parse_query_lenient(&escape(query));
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, text_query)];
        if let Some(pillar) = pillar {
            let term = Term::from_field_text(self.fields.pillar, pillar);
            clauses.push((
                Occur::Must,
                Box::new(TermQuery::new(term, IndexRecordOption::Basic)),
            ));
        }
        if !datasets.is_empty() {
            let any_dataset: Vec<(Occur, Box<dyn Query>)> = datasets
                .iter()
                .map(|dataset| {
                    let term = Term::from_field_text(self.fields.dataset, dataset);
                    (
                        Occur::Should,
                        Box::new(TermQuery::new(term, IndexRecordOption::Basic)) as Box<dyn Query>,
                    )
                })
                .collect();
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(any_dataset))));
        }
        let query = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        let top = searcher
            .search(&query, &TopDocs::with_limit(limit).order_by_score())
            .map_err(index_error)?;
        // Which documents each content word names (in their names, title, synonyms or code): one
        // search per word, so judging N hits costs the words' postings, not N × words × fields
        // explanations.
        let named_by: Vec<std::collections::HashSet<tantivy::DocAddress>> =
            if words.is_empty() || !judge_matches {
                Vec::new()
            } else {
                words
                    .iter()
                    .map(|word| {
                        let any_field: Vec<(Occur, Box<dyn Query>)> = [
                            self.fields.names,
                            self.fields.title,
                            self.fields.synonyms,
                            self.fields.code,
                        ]
                        .into_iter()
                        .map(|field| {
                            let term = TermQuery::new(
                                Term::from_field_text(field, word),
                                IndexRecordOption::Basic,
                            );
                            (Occur::Should, Box::new(term) as Box<dyn Query>)
                        })
                        .collect();
                        searcher.search(&BooleanQuery::new(any_field), &DocSetCollector)
                    })
                    .collect::<Result<_, _>>()
                    .map_err(index_error)?
            };
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let match_share = if named_by.is_empty() {
                0.0
            } else {
                named_by
                    .iter()
                    .filter(|named| named.contains(&address))
                    .count() as f32
                    / words.len() as f32
            };
            let document: TantivyDocument = searcher.doc(address).map_err(index_error)?;
            let text = |field| {
                document
                    .get_first(field)
                    .and_then(|value| value.as_str())
                    .map(str::to_string)
            };
            if let (Some(dataset_id), Some(id)) = (text(self.fields.dataset), text(self.fields.id))
            {
                hits.push(MetricHit {
                    dataset_id,
                    id,
                    score,
                    match_share,
                });
            }
        }
        // Ties broken by id, so equal scores always come back in the same order.
        hits.sort_by(|left, right| {
            right
                .score
                .total_cmp(&left.score)
                .then_with(|| left.id.cmp(&right.id))
        });
        Ok(hits)
    }
}

/// Words of a query read by a search; the rest are ignored, so a pasted paragraph costs what a query
/// does.
pub const MAX_QUERY_WORDS: usize = 16;

/// Words that say how a quantity is measured, not what it is (`homicide rate`, `GDP per capita`,
/// `tasa de desempleo`): a record is not named by them, so they count toward a match only when the query
/// holds nothing else.
pub const MEASURE_WORDS: &str = "rate rates tasa taxa ratio per capita cápita percent percentage porcentaje \
     percentual porcentagem share proporción proporção index índice total number número level nivel nível \
     annual anual value valor";

impl OpenedIndex {
    /// The words of `text` a match is judged on: its words less the measure words, or all of them when
    /// nothing else remains.
    fn content_words(&self, text: &str) -> Vec<String> {
        let words = self.words(text);
        let measure = self.words(MEASURE_WORDS);
        let content: Vec<String> = words
            .iter()
            .filter(|word| !measure.contains(word))
            .cloned()
            .collect();
        if content.is_empty() { words } else { content }
    }

    /// The distinct words of `text` as the index reads them (folded, stop words out, stemmed).
    fn words(&self, text: &str) -> Vec<String> {
        let mut analyzer = self.analyzer.clone();
        let mut stream = analyzer.token_stream(text);
        let mut words = Vec::new();
        while let Some(token) = stream.next() {
            if !words.contains(&token.text) {
                words.push(token.text.clone());
            }
        }
        words
    }
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let folded = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(FOLDED_ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        dataset: builder.add_text_field("dataset", STRING | STORED),
        id: builder.add_text_field("id", STRING | STORED),
        pillar: builder.add_text_field("pillar", STRING),
        code: builder.add_text_field("code", folded.clone()),
        names: builder.add_text_field("names", folded.clone()),
        title: builder.add_text_field("title", folded.clone()),
        synonyms: builder.add_text_field("synonyms", folded.clone()),
        description: builder.add_text_field("description", folded.clone()),
        context: builder.add_text_field("context", folded),
    };
    (builder.build(), fields)
}

fn register_analyzer(index: &Index) {
    let mut builder = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .dynamic();
    for language in [Language::Spanish, Language::English, Language::Portuguese] {
        if let Some(filter) = StopWordFilter::new(language) {
            builder = builder.filter_dynamic(filter);
        }
    }
    // One stemmer for the three languages, the same at index and query time: it folds plurals and
    // endings (`homicides`/`homicide`, `homicidios`/`homicidio`, `tasas`/`tasa`) consistently.
    builder = builder.filter_dynamic(Stemmer::new(Language::English));
    index
        .tokenizers()
        .register(FOLDED_ANALYZER, builder.build());
}

/// Characters of tantivy's query syntax, escaped so free text is searched as words.
fn escape(query: &str) -> String {
    let plain: String = query
        .chars()
        .map(|character| {
            if "+-&|!(){}[]^\"~*?:\\/'".contains(character) {
                ' '
            } else {
                character
            }
        })
        .collect();
    // The parser reads upper-case AND, OR, NOT as operators (`NOT water` would match everything without
    // water): words are words, so they are lower-cased.
    plain
        .split_whitespace()
        .map(|word| match word {
            "AND" | "OR" | "NOT" => word.to_ascii_lowercase(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Renames the index's single segment to `segment_name` and rewrites `meta.json` and `.managed.json`.
fn normalize_segment_names(dir: &Path, segment_name: &str) -> Result<(), CorpusError> {
    let meta_path = dir.join("meta.json");
    let meta =
        std::fs::read_to_string(&meta_path).map_err(|error| CorpusError::io(&meta_path, error))?;
    let parsed: serde_json::Value =
        serde_json::from_str(&meta).map_err(|error| CorpusError::Index {
            path: meta_path.clone(),
            message: error.to_string(),
        })?;
    let segment_ids: Vec<String> = parsed["segments"]
        .as_array()
        .map(|segments| {
            segments
                .iter()
                .filter_map(|segment| segment["segment_id"].as_str().map(|id| id.replace('-', "")))
                .collect()
        })
        .unwrap_or_default();
    let [random_id] = segment_ids.as_slice() else {
        return Err(CorpusError::Index {
            path: meta_path,
            message: format!("expected one segment, found {}", segment_ids.len()),
        });
    };
    let hyphenated = |id: &str| {
        format!(
            "{}-{}-{}-{}-{}",
            &id[0..8],
            &id[8..12],
            &id[12..16],
            &id[16..20],
            &id[20..32]
        )
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|error| CorpusError::io(dir, error))? {
        let path = entry.map_err(|error| CorpusError::io(dir, error))?.path();
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default()
            .to_string();
        if let Some(rest) = name.strip_prefix(random_id.as_str()) {
            let renamed = format!("{segment_name}{rest}");
            std::fs::rename(&path, dir.join(&renamed))
                .map_err(|error| CorpusError::io(&path, error))?;
            files.push(renamed);
        } else if name.ends_with(".lock") {
            std::fs::remove_file(&path).map_err(|error| CorpusError::io(&path, error))?;
        }
    }
    let meta = meta
        .replace(&hyphenated(random_id), &hyphenated(segment_name))
        .replace(random_id.as_str(), segment_name);
    std::fs::write(&meta_path, meta).map_err(|error| CorpusError::io(&meta_path, error))?;
    files.push("meta.json".into());
    files.sort();
    let managed_path = dir.join(".managed.json");
    let managed = format!(
        "{}\n",
        serde_json::to_string(&files).expect("strings serialize")
    );
    std::fs::write(&managed_path, managed).map_err(|error| CorpusError::io(&managed_path, error))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(dataset_id: &str, id: &str, name: &str) -> IndexDocument {
        IndexDocument {
            dataset_id: dataset_id.into(),
            id: id.into(),
            pillars: vec!["salud".into()],
            code: id.into(),
            names: vec![name.into()],
            title: name.into(),
            synonyms: Vec::new(),
            description: String::new(),
            context: String::new(),
        }
    }

    #[test]
    fn an_index_opens_in_memory_whatever_lock_files_another_process_left() {
        let dir = tempfile::tempdir().unwrap();
        build_index(
            dir.path(),
            &[
                document("metrics", "sp_dyn_le00_in", "Life expectancy at birth"),
                document("metrics", "sh_sta_mmrt", "Maternal mortality ratio"),
            ],
        )
        .unwrap();
        // What an older server's memory-mapped reader, or a writer, leaves behind.
        std::fs::write(dir.path().join(".tantivy-meta.lock"), "").unwrap();
        std::fs::write(dir.path().join(".tantivy-writer.lock"), "").unwrap();
        let index = MetricIndex::open(dir.path()).unwrap();
        let hits = index
            .search_datasets("life expectancy", &[], None, 5)
            .unwrap();
        assert_eq!(hits[0].id, "sp_dyn_le00_in");
        // Opening it wrote nothing into the published directory.
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.ends_with(".lock"))
            .collect();
        names.sort();
        assert_eq!(names, [".tantivy-meta.lock", ".tantivy-writer.lock"]);
    }

    #[test]
    fn an_index_is_read_on_its_first_search_and_an_unreadable_one_fails_the_searches_with_the_reason()
     {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            MetricIndex::open(dir.path()).is_err(),
            "no index in an empty directory"
        );
        build_index(
            dir.path(),
            &[document(
                "metrics",
                "sp_dyn_le00_in",
                "Life expectancy at birth",
            )],
        )
        .unwrap();
        let index = MetricIndex::open(dir.path()).unwrap();
        assert!(index.opened.get().is_none(), "opening reads no index file");
        index.warm().unwrap();
        assert_eq!(
            index.search("life expectancy", None, 5).unwrap()[0].id,
            "sp_dyn_le00_in"
        );
        // A segment file lost after opening: the first search says what cannot be read, and so does
        // every later one; nothing panics.
        let damaged = tempfile::tempdir().unwrap();
        build_index(
            damaged.path(),
            &[document(
                "metrics",
                "sp_dyn_le00_in",
                "Life expectancy at birth",
            )],
        )
        .unwrap();
        let index = MetricIndex::open(damaged.path()).unwrap();
        for entry in std::fs::read_dir(damaged.path()).unwrap() {
            let path = entry.unwrap().path();
            if path
                .extension()
                .is_some_and(|extension| extension == "term")
            {
                std::fs::remove_file(path).unwrap();
            }
        }
        for _ in 0..2 {
            let error = index.search("life expectancy", None, 5).unwrap_err();
            assert!(
                error
                    .to_string()
                    .contains(&damaged.path().display().to_string()),
                "{error}"
            );
        }
    }
}
