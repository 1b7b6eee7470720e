//! A published corpus, loaded: registries, memory-mapped observation tables (decoded on first use) and
//! the citation resolver.

use std::{
    borrow::Cow,
    collections::HashMap,
    path::{Path, PathBuf},
    sync::OnceLock,
};

use crate::{
    Citation, CitationId, CorpusError, Country, CountryRegistry, Manifest, Metric, Observation,
    ObservationTable, Pillar, PillarRegistry, SourceRecord, UnresolvedCitation,
    citation::SYNTHETIC_PREFIXES, layout, manifest, read_json,
};

/// A baked corpus opened for reading. Cheap to share behind an `Arc`; never mutated.
#[derive(Debug)]
pub struct BakedCorpus {
    dir: PathBuf,
    manifest: Manifest,
    metrics: Vec<Metric>,
    metric_by_id: HashMap<String, usize>,
    /// (citation prefix, code slug) → metric index.
    metric_by_citation: HashMap<(String, String), usize>,
    sources: Vec<SourceRecord>,
    countries: CountryRegistry,
    pillars: PillarRegistry,
    observations: LazyTable,
    aggregates: LazyTable,
}

/// An observation table mapped on first use: opening a corpus reads its registries (a few MB); the first
/// call that reads observations maps the ~70 MB table and reads its outline, then decodes (and validates)
/// only the record batches it reads ([`ObservationTable::map`]); [`BakedCorpus::warm`] decodes the rest
/// in the background, so a server answers `initialize` at once and a first `get_series` decodes one batch
/// of five. Each batch is decoded once: a reader arriving during its decode waits for it.
#[derive(Debug)]
struct LazyTable {
    path: PathBuf,
    table: OnceLock<Result<ObservationTable, String>>,
}

impl LazyTable {
    /// A table at `path`, checked to exist and be a file now; decoded later.
    fn new(path: PathBuf) -> Result<LazyTable, CorpusError> {
        if !path.is_file() {
            return Err(CorpusError::MissingArtifact { path });
        }
        Ok(LazyTable {
            path,
            table: OnceLock::new(),
        })
    }

    /// The decoded table, or the message of why it cannot be decoded (kept: decoded once).
    fn try_get(&self) -> Result<&ObservationTable, &str> {
        self.table
            .get_or_init(|| ObservationTable::map(&self.path).map_err(|error| error.to_string()))
            .as_ref()
            .map_err(String::as_str)
    }

    /// The decoded table.
    ///
    /// # Panics
    /// If the published file cannot be decoded (damaged after publication: `server check` and every
    /// reload verify its checksum and decode it first); a tool call's panic is answered `-32603` and the
    /// server goes on.
    fn get(&self) -> &ObservationTable {
        self.try_get()
            .unwrap_or_else(|error| panic!("a published observation table: {error}"))
    }
}

impl BakedCorpus {
    /// Opens the corpus the `current` pointer of `out_dir` names (e.g. `data/baked`).
    ///
    /// # Errors
    /// [`CorpusError::NotBaked`] if nothing was published there, otherwise as [`BakedCorpus::open`].
    pub fn open_current(out_dir: &Path) -> Result<BakedCorpus, CorpusError> {
        BakedCorpus::open(&manifest::current_dir(out_dir)?)
    }

    /// Opens the corpus directory `dir`: reads the manifest (checking its format version), the registries,
    /// and memory-maps both observation tables. Checksums are not re-hashed here; see [`Manifest::verify`].
    ///
    /// # Errors
    /// Any [`CorpusError`] naming the artifact that could not be read or did not match the contract.
    pub fn open(dir: &Path) -> Result<BakedCorpus, CorpusError> {
        // The metric registry (the largest, ~1.4 MB) is parsed on a second thread beside the rest.
        let (metrics, rest) = crate::threads::join(
            || read_json::<Vec<Metric>>(&dir.join(layout::METRICS), "metric registry"),
            || {
                let manifest = Manifest::read(dir)?;
                let sources: Vec<SourceRecord> =
                    read_json(&dir.join(layout::SOURCES), "source registry")?;
                let countries: Vec<Country> =
                    read_json(&dir.join(layout::COUNTRIES), "country registry")?;
                let pillars: Vec<Pillar> =
                    read_json(&dir.join(layout::PILLARS), "pillar registry")?;
                let places_path = dir.join(layout::PLACES);
                let places: crate::Places = if places_path.exists() {
                    read_json(&places_path, "place names")?
                } else {
                    crate::Places::default()
                };
                Ok::<_, CorpusError>((manifest, sources, countries, pillars, places))
            },
        );
        // The manifest's error first: it says whether this is a corpus of this format at all.
        let (manifest, sources, countries, pillars, places) = rest?;
        let metrics = metrics?;
        let observations = LazyTable::new(dir.join(layout::OBSERVATIONS_ARROW))?;
        let aggregates = LazyTable::new(dir.join(layout::AGGREGATES_ARROW))?;
        let metric_by_id = metrics
            .iter()
            .enumerate()
            .map(|(metric_idx, metric)| (metric.id.clone(), metric_idx))
            .collect();
        let prefix_of: HashMap<&str, &str> = sources
            .iter()
            .map(|source| (source.id.as_str(), source.citation_prefix.as_str()))
            .collect();
        let metric_by_citation = metrics
            .iter()
            .enumerate()
            .filter_map(|(metric_idx, metric)| {
                let prefix = prefix_of.get(metric.source_id.as_str())?;
                Some((
                    (
                        prefix.to_string(),
                        CitationId::code_slug(&metric.source_code),
                    ),
                    metric_idx,
                ))
            })
            .collect();
        Ok(BakedCorpus {
            dir: dir.to_path_buf(),
            manifest,
            metrics,
            metric_by_id,
            metric_by_citation,
            sources,
            countries: CountryRegistry::with_places(countries, places),
            pillars: PillarRegistry::new(pillars),
            observations,
            aggregates,
        })
    }

    /// The corpus directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest; `manifest().corpus_version` identifies this corpus.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Every governed metric, sorted by id.
    pub fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    /// The metric with this id.
    pub fn metric(&self, id: &str) -> Option<&Metric> {
        self.metric_by_id
            .get(id)
            .map(|&metric_idx| &self.metrics[metric_idx])
    }

    /// Every source, sorted by id.
    pub fn sources(&self) -> &[SourceRecord] {
        &self.sources
    }

    /// The source with this id.
    pub fn source(&self, id: &str) -> Option<&SourceRecord> {
        self.sources.iter().find(|source| source.id == id)
    }

    /// Countries and comparison aggregates, with the normaliser.
    pub fn countries(&self) -> &CountryRegistry {
        &self.countries
    }

    /// Pillars, with the normaliser.
    pub fn pillars(&self) -> &PillarRegistry {
        &self.pillars
    }

    /// Country observations (aggregates are in [`BakedCorpus::aggregates`]), decoded on the first call.
    ///
    /// # Panics
    /// If the published table cannot be decoded (see [`BakedCorpus::warm`], which reports it instead).
    pub fn observations(&self) -> &ObservationTable {
        self.observations.get()
    }

    /// Comparison-aggregate observations (LCN, WLD, …), never counted as countries; decoded on the
    /// first call.
    ///
    /// # Panics
    /// As [`BakedCorpus::observations`].
    pub fn aggregates(&self) -> &ObservationTable {
        self.aggregates.get()
    }

    /// Decodes every batch of both observation tables now (a server calls it on a background thread at
    /// start, and before it swaps a reloaded corpus in).
    ///
    /// # Errors
    /// [`CorpusError`] naming the table that cannot be decoded.
    pub fn warm(&self) -> Result<(), CorpusError> {
        for table in [&self.observations, &self.aggregates] {
            table
                .try_get()
                .map_err(|message| CorpusError::Arrow {
                    path: table.path.clone(),
                    message: message.to_string(),
                })?
                .decode_all()?;
        }
        Ok(())
    }

    /// The observation of `indicator` for a country or aggregate `iso3` in `year`.
    pub fn observation(&self, indicator: &str, iso3: &str, year: i32) -> Option<Observation<'_>> {
        self.observations()
            .find(indicator, iso3, year)
            .or_else(|| self.aggregates().find(indicator, iso3, year))
    }

    /// Resolves a stored citation id to its full record.
    ///
    /// # Errors
    /// [`UnresolvedCitation`] with the reason: a per-response synthetic id, a malformed id, an unknown
    /// source prefix or indicator, a country not in the corpus, or no observation for that year (with the
    /// years that exist).
    pub fn resolve_citation(&self, citation_id: &str) -> Result<Citation<'_>, UnresolvedCitation> {
        let unresolved = |reason: String| UnresolvedCitation {
            citation_id: citation_id.to_string(),
            reason,
        };
        let parts = CitationId::parse(citation_id).map_err(unresolved)?;
        let Some(&metric_idx) = self
            .metric_by_citation
            .get(&(parts.prefix.clone(), parts.code_slug.clone()))
        else {
            let prefixes: Vec<&str> = self
                .sources
                .iter()
                .map(|source| source.citation_prefix.as_str())
                .collect();
            return Err(unresolved(if prefixes.contains(&parts.prefix.as_str()) {
                format!(
                    "no indicator `{}` in source prefix `{}`",
                    parts.code_slug, parts.prefix
                )
            } else {
                format!(
                    "unknown source prefix `{}`; valid prefixes: {}",
                    parts.prefix,
                    prefixes.join(", ")
                )
            }));
        };
        let metric = &self.metrics[metric_idx];
        let canonical =
            CitationId::format(&parts.prefix, &metric.source_code, &parts.iso3, parts.year);
        if canonical != citation_id {
            return Err(unresolved(format!(
                "not a stored id: citation ids are lower case with a 4-digit year; the canonical form is `{canonical}`"
            )));
        }
        let Some(entity) = self.countries.get(&parts.iso3) else {
            return Err(unresolved(format!(
                "`{}` is not a country or aggregate of the corpus",
                parts.iso3
            )));
        };
        let Some(observation) = self.observation(&metric.id, &entity.iso3, parts.year) else {
            let table = if self
                .observations()
                .series(&metric.id, &entity.iso3)
                .is_empty()
            {
                self.aggregates()
            } else {
                self.observations()
            };
            let years: Vec<i32> = table
                .series(&metric.id, &entity.iso3)
                .map(|row_idx| table.row(row_idx).year)
                .collect();
            let available = match (years.first(), years.last()) {
                (Some(first), Some(last)) => {
                    format!("years with values: {first}-{last} ({} values)", years.len())
                }
                _ => "the corpus holds no values of this indicator for this country".to_string(),
            };
            return Err(unresolved(format!(
                "no {} value for {} in {}; {available}",
                metric.id, entity.iso3, parts.year
            )));
        };
        Ok(self.citation_of(metric, entity, &observation))
    }

    /// The full citation record of an observation already in hand (no id parsing, no lookup): what
    /// [`BakedCorpus::resolve_citation`] returns for `observation.citation_id`.
    ///
    /// # Errors
    /// [`UnresolvedCitation`] if the observation's indicator or country is not in the registries, which
    /// only a corpus that fails [`Manifest::verify`] can produce.
    pub fn citation_for<'a>(
        &'a self,
        observation: &Observation<'a>,
    ) -> Result<Citation<'a>, UnresolvedCitation> {
        let unregistered = |what: &str| UnresolvedCitation {
            citation_id: observation.citation_id.to_string(),
            reason: format!("{what} of the observation is not in the corpus registries"),
        };
        let metric = self
            .metric(observation.indicator)
            .ok_or_else(|| unregistered("the indicator"))?;
        let entity = self
            .countries
            .get(observation.country)
            .ok_or_else(|| unregistered("the country"))?;
        Ok(self.citation_of(metric, entity, observation))
    }

    fn citation_of<'a>(
        &'a self,
        metric: &'a Metric,
        entity: &'a Country,
        observation: &Observation<'a>,
    ) -> Citation<'a> {
        let source = self
            .source(&metric.source_id)
            .expect("metric sources are in the source registry");
        Citation {
            citation_id: Cow::Borrowed(observation.citation_id),
            source: Cow::Borrowed(&source.id),
            publisher: Cow::Borrowed(&source.publisher),
            dataset: Cow::Borrowed(&source.name),
            indicator: Cow::Borrowed(&metric.id),
            indicator_code: Cow::Borrowed(&metric.source_code),
            title: Cow::Borrowed(&metric.source_title),
            country: Cow::Borrowed(&entity.iso3),
            year: observation.year,
            value: observation.value,
            unit: Cow::Borrowed(&metric.unit),
            url: Cow::Owned(source.deep_link_for(&metric.source_code, &entity.iso3, &entity.iso2)),
            vintage: Cow::Borrowed(observation.vintage),
            retrieved_at: Cow::Borrowed(
                metric
                    .retrieved_at
                    .as_deref()
                    .unwrap_or(&source.retrieved_at),
            ),
            license: Cow::Borrowed(&metric.license),
            attribution: Cow::Borrowed(&source.attribution),
            flags: Cow::Borrowed(observation.flags),
        }
    }

    /// The same indicator in the corpus' other vintages of its publisher, oldest first: the metrics with
    /// `metric`'s publisher code (or it with the vintage's suffix: `NGDP_RPCH_WEO2019`) whose source is superseded by `metric`'s source, or supersedes it
    /// (`ngdp_rpch` of WEO April 2025 and `ngdp_rpch_weo2019` of April 2019, linked by
    /// `superseded_by`). Empty when the corpus holds one vintage of it.
    pub fn vintages_of(&self, metric: &Metric) -> Vec<&Metric> {
        let linked = |older: &str, newer: &str| {
            self.source(older)
                .is_some_and(|source| source.superseded_by.as_deref() == Some(newer))
        };
        let mut others: Vec<&Metric> = self
            .metrics
            .iter()
            .filter(|other| {
                other.id != metric.id
                    && same_code(&other.source_code, &metric.source_code)
                    && (linked(&other.source_id, &metric.source_id)
                        || linked(&metric.source_id, &other.source_id))
            })
            .collect();
        others.sort_by(|left, right| left.vintage.cmp(&right.vintage));
        others
    }

    /// Whether `id` is a per-response synthetic id (`pulse-…`, `calc-…`), which never resolves here.
    pub fn is_synthetic_citation(id: &str) -> bool {
        SYNTHETIC_PREFIXES
            .iter()
            .any(|prefix| id.starts_with(prefix))
    }
}

/// Whether two publisher codes name one indicator in two vintages: equal ignoring case, or one is the
/// other with a vintage suffix (`NGDP_RPCH` and `NGDP_RPCH_WEO2019`).
fn same_code(left: &str, right: &str) -> bool {
    let (left, right) = (left.to_ascii_uppercase(), right.to_ascii_uppercase());
    let suffixed = |long: &str, short: &str| {
        long.strip_prefix(short)
            .and_then(|rest| rest.strip_prefix('_'))
            .is_some_and(|suffix| suffix.chars().any(|character| character.is_ascii_digit()))
    };
    left == right || suffixed(&left, &right) || suffixed(&right, &left)
}
