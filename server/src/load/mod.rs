//! Loading the published corpus: resolve `current`, check the format version, memory-map the
//! observation tables, read the registries and the dataset catalog, open the search index.

pub mod citations;
pub mod downloads;
pub mod records;

use std::{path::Path, sync::OnceLock};

use corpus::{
    BakedCorpus, CorpusError, Dataset, Discoveries, MetricIndex, PillarCorrelation, SeriesStats,
    YearStats,
    changes::Changes,
    concordance::{ConcordanceRow, read_concordance},
    health::{DataHealth, PillarCountryHealth},
    layout, read_json,
};

/// Everything the tools read: the baked corpus, its dataset catalog and its search index.
#[derive(Debug)]
pub struct Corpus {
    /// Registries, observation tables and citation resolver.
    pub baked: BakedCorpus,
    /// The dataset catalog (`datasets.json`).
    pub datasets: Vec<Dataset>,
    /// The full-text index over indicators and records, read on first use (or by [`Corpus::warm`]).
    pub index: MetricIndex,
    /// The analysts' files (`exports/downloads.json`), joined with the manifest on first use
    /// ([`Corpus::downloads`]).
    downloads: OnceLock<downloads::Downloads>,
    /// The downloads list being parsed on its own thread since the corpus was opened (taken by the first
    /// read of [`Corpus::downloads`]; `None` once taken, or if no thread could be started).
    listing: std::sync::Mutex<Option<std::thread::JoinHandle<DownloadList>>>,
    /// Precomputed per-series statistics, read on first use (kept out of start-up time and memory).
    series_stats: OnceLock<Result<Vec<SeriesStats>, String>>,
    /// Precomputed anomalies and contradictions, read on first use.
    discoveries: OnceLock<Result<Discoveries, String>>,
    /// Precomputed pillar correlations, read on first use.
    correlations: OnceLock<Result<Vec<PillarCorrelation>, String>>,
    /// Precomputed per indicator and year regional summaries, read on first use.
    year_stats: OnceLock<Result<Vec<YearStats>, String>>,
    /// Precomputed data health, read on first use.
    data_health: OnceLock<Result<DataHealth, String>>,
    /// What the corpus changed against the one it replaced (`exports/changes.json`), read on first use;
    /// `None` for a corpus published without it.
    changes: OnceLock<Result<Option<Changes>, String>>,
    /// Whether [`Corpus::warm`] has run to its end (whatever it found).
    warmed: std::sync::atomic::AtomicBool,
    /// The source concordance table, read on first use.
    concordance: OnceLock<Result<Vec<ConcordanceRow>, String>>,
    /// The curated projects, read on first use.
    projects: OnceLock<Result<Vec<corpus::Project>, String>>,
    /// The provenance of the curated records' sources (`record_sources.json`), read at start-up.
    record_sources: Vec<corpus::RecordSource>,
    /// The curated laws and policies, read on first use.
    laws: records::LazyTable<corpus::Law>,
    /// The curated public bodies, read on first use.
    institutions: records::LazyTable<corpus::Institution>,
    /// The curated financing records, read on first use.
    financing: records::LazyTable<corpus::FinancingRecord>,
    /// The curated events, newest first, read on first use.
    events: records::LazyTable<corpus::Event>,
    /// The derived-figure rules of each metric, read on first use.
    derived_rules: OnceLock<Result<Vec<corpus::derived::MetricRule>, String>>,
}

/// What parsing the downloads list gives ([`downloads::Downloads::parse`]).
type DownloadList = Result<Vec<corpus::exports::Download>, CorpusError>;

impl Corpus {
    /// The analysts' files (`exports/downloads.json`, each joined with its manifest entry), read on the
    /// first call (a start-up reads nothing it does not answer with). A list that cannot be read (damaged
    /// after publication: a reload verifies every checksum first) is logged and serves no file.
    pub fn downloads(&self) -> &downloads::Downloads {
        self.downloads.get_or_init(|| {
            self.read_downloads().unwrap_or_else(|error| {
                tracing::error!(%error, "the downloads list cannot be read; no file is served");
                downloads::Downloads::default()
            })
        })
    }

    /// The downloads list (from the thread parsing it since the corpus was opened, or parsed now),
    /// joined with the manifest.
    fn read_downloads(&self) -> Result<downloads::Downloads, CorpusError> {
        let parsing = self
            .listing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let listed = match parsing {
            Some(parsing) => parsing
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?,
            None => downloads::Downloads::parse(self.baked.dir())?,
        };
        downloads::Downloads::join(self.baked.dir(), self.baked.manifest(), listed)
    }

    /// Reads now what the first answers would otherwise read: the observation tables and, beside them
    /// on a second thread, the downloads list (a first `get_series` needs both: its resource links name
    /// the indicator's file), then the search index. A server calls it on a background thread at start,
    /// and before it swaps a reloaded corpus in. A request that needs the list or the index meanwhile
    /// waits for this read rather than reading it again.
    ///
    /// # Errors
    /// As [`corpus::BakedCorpus::warm`]; a downloads list that cannot be read or names a file the
    /// manifest does not list (the list then serves no file, as [`Corpus::downloads`] would); a search
    /// index that cannot be read ([`MetricIndex::warm`]; the searches then fail with its reason).
    pub fn warm(&self) -> Result<(), CorpusError> {
        let (listed, decoded) = corpus::threads::join(
            || {
                let mut failure = None;
                self.downloads.get_or_init(|| {
                    self.read_downloads().unwrap_or_else(|error| {
                        failure = Some(error);
                        downloads::Downloads::default()
                    })
                });
                // The search index after it: a first `get_series` needs the list, a search the index.
                let indexed = self.index.warm();
                failure.map_or(indexed, Err)
            },
            || self.baked.warm(),
        );
        self.warmed
            .store(true, std::sync::atomic::Ordering::Release);
        decoded.and(listed)
    }

    /// Whether [`Corpus::warm`] has run to its end: from then on no call waits for another thread to read
    /// what it needs (what a call's own cost may be measured by, `transport::call_costs`).
    pub fn is_warm(&self) -> bool {
        self.warmed.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The bake's precomputed per-series statistics (`series_stats.json`), sorted by (indicator, country).
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn series_stats(&self) -> Result<&[SeriesStats], String> {
        read_once(
            &self.series_stats,
            self.baked.dir(),
            layout::SERIES_STATS,
            "series statistics",
        )
        .map(Vec::as_slice)
    }

    /// The bake's anomalies and source contradictions (`discoveries.json`), largest first.
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn discoveries(&self) -> Result<&Discoveries, String> {
        read_once(
            &self.discoveries,
            self.baked.dir(),
            layout::DISCOVERIES,
            "discoveries",
        )
    }

    /// The bake's pairwise correlations of each pillar's headline indicators (`correlations.json`).
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn correlations(&self) -> Result<&[PillarCorrelation], String> {
        read_once(
            &self.correlations,
            self.baked.dir(),
            layout::CORRELATIONS,
            "pillar correlations",
        )
        .map(Vec::as_slice)
    }

    /// The bake's per indicator and year regional summaries (`year_stats.json`).
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn year_stats(&self) -> Result<&[YearStats], String> {
        read_once(
            &self.year_stats,
            self.baked.dir(),
            layout::YEAR_STATS,
            "year statistics",
        )
        .map(Vec::as_slice)
    }

    /// The precomputed year statistics of one indicator, oldest year first (empty when no year has
    /// values for [`corpus::derived::MIN_YEAR_COUNTRIES`] countries).
    ///
    /// # Errors
    /// As [`Corpus::year_stats`].
    pub fn year_stats_for(&self, indicator: &str) -> Result<&[YearStats], String> {
        let stats = self.year_stats()?;
        let start = stats.partition_point(|item| item.indicator.as_str() < indicator);
        let end = start + stats[start..].partition_point(|item| item.indicator == indicator);
        Ok(&stats[start..end])
    }

    /// The bake's data health view (`data_health.json`).
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn data_health(&self) -> Result<&DataHealth, String> {
        read_once(
            &self.data_health,
            self.baked.dir(),
            layout::DATA_HEALTH,
            "data health",
        )
    }

    /// What this corpus changed against the one it replaced (`exports/changes.json`); `None` when the
    /// corpus was published without the file (an optional artifact: older bakes of this format).
    ///
    /// # Errors
    /// The message of the read error, if the file exists but cannot be read.
    pub fn changes(&self) -> Result<Option<&Changes>, String> {
        self.changes
            .get_or_init(|| {
                let path = self.baked.dir().join(layout::CHANGES);
                if !path.is_file() {
                    return Ok(None);
                }
                read_json(&path, "corpus changes")
                    .map(Some)
                    .map_err(|error| error.to_string())
            })
            .as_ref()
            .map(Option::as_ref)
            .map_err(Clone::clone)
    }

    /// The precomputed health of pillar `pillar` in country `iso3`, if both are in the registries.
    ///
    /// # Errors
    /// As [`Corpus::data_health`].
    pub fn pillar_health(
        &self,
        pillar: &str,
        iso3: &str,
    ) -> Result<Option<&PillarCountryHealth>, String> {
        let entries = &self.data_health()?.pillar_countries;
        Ok(entries
            .binary_search_by(|entry| {
                (entry.parameter.as_str(), entry.country.as_str()).cmp(&(pillar, iso3))
            })
            .ok()
            .map(|entry_idx| &entries[entry_idx]))
    }

    /// The source concordance rows (`concordance.arrow`), by (pair, country, year).
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn concordance(&self) -> Result<&[ConcordanceRow], String> {
        self.concordance
            .get_or_init(|| {
                read_concordance(&self.baked.dir().join(layout::CONCORDANCE_ARROW))
                    .map_err(|error| error.to_string())
            })
            .as_deref()
            .map_err(Clone::clone)
    }

    /// The derived-figure rule of metric `indicator` (`derived_rules.json`: aggregation, scale,
    /// comparability, reason), `None` for an unknown metric.
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn metric_rule(
        &self,
        indicator: &str,
    ) -> Result<Option<&corpus::derived::MetricRule>, String> {
        let rules = read_once(
            &self.derived_rules,
            self.baked.dir(),
            corpus::derived::DERIVED_RULES,
            "derived-figure rules",
        )?;
        Ok(corpus::derived::rule_for(rules, indicator))
    }

    /// The curated projects (`projects.json`), sorted by id.
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn projects(&self) -> Result<&[corpus::Project], String> {
        self.projects
            .get_or_init(|| records::read_records(self.baked.dir(), &self.record_sources))
            .as_ref()
            .map(Vec::as_slice)
            .map_err(Clone::clone)
    }

    /// The project whose record citation id is exactly `citation_id` (`wbproj-p127837`), if the corpus
    /// holds it.
    pub fn project_by_citation(&self, citation_id: &str) -> Option<&corpus::Project> {
        // World Bank ids are stored as P-codes (`P127837`), GEF ids with their prefix (`GEF-10450`).
        let id = match citation_id.split_once('-')? {
            ("gef", _) => citation_id.to_ascii_uppercase(),
            (_, code) => code.to_ascii_uppercase(),
        };
        self.project(&id)
            .filter(|project| project.citation_id == citation_id)
    }

    /// The project a person or agent names: its P-code in any case (`p127837`, `P127837`), its digits alone
    /// (`127837`), or its citation id (`wbproj-p127837`, `gef-10450`); `None` if the corpus holds none.
    pub fn project_named(&self, text: &str) -> Option<&corpus::Project> {
        let text = text.trim();
        if let Some(project) = self.project_by_citation(&text.to_ascii_lowercase()) {
            return Some(project);
        }
        if !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()) {
            return self.project(&format!("P{text}"));
        }
        self.project(&text.to_ascii_uppercase())
    }

    /// The project with P-code `id` (`P127837`, as stored), if the corpus holds it (and its projects read).
    pub fn project(&self, id: &str) -> Option<&corpus::Project> {
        let projects = self.projects().ok()?;
        projects
            .binary_search_by(|project| project.id.as_str().cmp(id))
            .ok()
            .map(|at| &projects[at])
    }

    /// The curated laws and policies (`regulation.json`), by country, date and title.
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn laws(&self) -> Result<&records::RecordTable<corpus::Law>, String> {
        self.laws.get(self.baked.dir(), &self.record_sources)
    }

    /// The curated public bodies (`institutions.json`), by country and name.
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn institutions(&self) -> Result<&records::RecordTable<corpus::Institution>, String> {
        self.institutions
            .get(self.baked.dir(), &self.record_sources)
    }

    /// The curated financing records (`financing.json`), by citation id.
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn financing(&self) -> Result<&records::RecordTable<corpus::FinancingRecord>, String> {
        self.financing.get(self.baked.dir(), &self.record_sources)
    }

    /// The curated events (`events.json`), newest first.
    ///
    /// # Errors
    /// The message of the read error, if the artifact cannot be read.
    pub fn events(&self) -> Result<&records::RecordTable<corpus::Event>, String> {
        self.events.get(self.baked.dir(), &self.record_sources)
    }

    /// The citation of the curated record whose citation id is exactly `citation_id` (a project, law,
    /// institution, financing record or event), if the corpus holds it. Only the table its prefix names is
    /// read.
    pub fn record_citation(&self, citation_id: &str) -> Option<corpus::RecordCitation> {
        self.with_record(citation_id, |record| record.citation())
    }

    /// The curated record whose citation id is exactly `citation_id`, as its citation and its fields (the
    /// record serialized as its table stores it, provenance filled), if the corpus holds it.
    pub fn record(&self, citation_id: &str) -> Option<(corpus::RecordCitation, serde_json::Value)> {
        self.with_record(citation_id, |record| (record.citation(), record.fields()))
    }

    /// `read` applied to the curated record with this citation id, found in the one table its prefix names.
    fn with_record<T>(
        &self,
        citation_id: &str,
        read: impl FnOnce(&dyn records::AnyRecord) -> T,
    ) -> Option<T> {
        use corpus::RecordDataset;
        let (dataset, _) = RecordDataset::of_citation_id(citation_id)?;
        let record: &dyn records::AnyRecord = match dataset {
            RecordDataset::Projects => self.project_by_citation(citation_id)?,
            RecordDataset::Regulation => self.laws().ok()?.get(citation_id)?,
            RecordDataset::Institutions => self.institutions().ok()?.get(citation_id)?,
            RecordDataset::Financing => self.financing().ok()?.get(citation_id)?,
            RecordDataset::Events => self.events().ok()?.get(citation_id)?,
        };
        Some(read(record))
    }

    /// The dataset with this id.
    pub fn dataset(&self, dataset_id: &str) -> Option<&Dataset> {
        self.datasets
            .iter()
            .find(|dataset| dataset.dataset_id == dataset_id)
    }
}

/// The JSON artifact `name` of the corpus in `dir`, read and parsed on the first call, then shared; a read
/// error is kept and returned as its message on every call.
fn read_once<'a, T: serde::de::DeserializeOwned>(
    cell: &'a OnceLock<Result<T, String>>,
    dir: &Path,
    name: &str,
    what: &'static str,
) -> Result<&'a T, String> {
    cell.get_or_init(|| read_json(&dir.join(name), what).map_err(|error| error.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}

/// The artifacts the server reads on first use rather than at start-up, besides the curated record
/// datasets' ([`corpus::RecordDataset::artifact`]).
const LAZY_ARTIFACTS: [&str; 7] = [
    layout::CONCORDANCE_ARROW,
    layout::SERIES_STATS,
    layout::DISCOVERIES,
    layout::CORRELATIONS,
    layout::YEAR_STATS,
    layout::DATA_HEALTH,
    corpus::derived::DERIVED_RULES,
];

/// Opens the corpus that `out_dir/current` names. Checksums are not re-hashed at start-up (the corpus
/// directory is immutable once published); [`verify_corpus`] does that on demand.
///
/// # Errors
/// [`CorpusError::NotBaked`] if nothing is published; any other [`CorpusError`] naming the artifact that
/// could not be read or does not match this build's format.
pub fn load_corpus(out_dir: &Path) -> Result<Corpus, CorpusError> {
    let dir = corpus::manifest::current_dir(out_dir)?;
    // The downloads list (~0.9 MB, which a first `get_series` needs for its links) is parsed beside the
    // registries from the start.
    let listing = {
        let dir = dir.clone();
        std::thread::Builder::new()
            .name("downloads-list".into())
            .spawn(move || downloads::Downloads::parse(&dir))
            .ok()
    };
    let baked = BakedCorpus::open(&dir)?;
    // The derived views are read on first use; their absence is reported now, not on some later call.
    let records = corpus::RecordDataset::ALL.map(corpus::RecordDataset::artifact);
    for name in records.into_iter().chain(LAZY_ARTIFACTS) {
        let path = baked.dir().join(name);
        if !path.is_file() {
            return Err(CorpusError::MissingArtifact { path });
        }
    }
    let datasets = read_json(&baked.dir().join(layout::DATASETS), "dataset catalog")?;
    let record_sources = read_json(
        &baked.dir().join(layout::RECORD_SOURCES),
        "curated records' sources",
    )?;
    let index = MetricIndex::open(&baked.dir().join(layout::INDEX_DIR))?;
    let downloads_list = baked.dir().join(corpus::exports::DOWNLOADS);
    if !downloads_list.is_file() {
        return Err(CorpusError::MissingArtifact {
            path: downloads_list,
        });
    }
    Ok(Corpus {
        baked,
        datasets,
        index,
        downloads: OnceLock::new(),
        listing: std::sync::Mutex::new(listing),
        series_stats: OnceLock::new(),
        discoveries: OnceLock::new(),
        correlations: OnceLock::new(),
        year_stats: OnceLock::new(),
        data_health: OnceLock::new(),
        changes: OnceLock::new(),
        warmed: std::sync::atomic::AtomicBool::new(false),
        concordance: OnceLock::new(),
        projects: OnceLock::new(),
        record_sources,
        laws: Default::default(),
        institutions: Default::default(),
        financing: Default::default(),
        events: Default::default(),
        derived_rules: OnceLock::new(),
    })
}

/// Opens the published corpus and re-hashes every artifact against its manifest.
///
/// # Errors
/// As [`load_corpus`], plus [`CorpusError::Checksum`] naming a modified artifact.
pub fn verify_corpus(out_dir: &Path) -> Result<Corpus, CorpusError> {
    let corpus = load_corpus(out_dir)?;
    corpus.baked.manifest().verify(corpus.baked.dir())?;
    Ok(corpus)
}
