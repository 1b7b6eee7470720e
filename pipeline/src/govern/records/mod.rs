//! The curated record-level datasets: project, law, institution, financing and event records read from
//! the tables declared in `data/curated/`, validated row by row and mapped to pillars through reviewed
//! mapping files. Every refusal names the file, the line, the field and the reason
//! ([`corpus::CuratedRefusal`]); a name a mapping lacks is reported, never guessed.
//!
//! - [`projects`]: World Bank projects (two exports merged), and [`gef`] projects in a bake that admits
//!   the GEF's terms.
//! - [`regulation`]: climate laws and policies (Climate Change Laws of the World).
//! - [`institutions`]: statistics offices, public bodies, World Bank implementing agencies.
//! - [`financing`]: OECD CRS flows, and the instruments the projects used.
//! - [`events`]: dated items made from the records above, earthquakes and data releases.
//! - [`overrides`]: the steward's own records and corrections (`data/curated/overrides/`).

pub mod events;
pub mod financing;
pub mod gef;
pub mod institutions;
pub mod overrides;
pub mod projects;
pub mod regulation;
pub mod terms;

use std::{
    collections::{BTreeSet, HashMap},
    path::Path,
};

use corpus::{CuratedRefusal, CuratedReport};

use crate::{BakeError, sources::curated::RecordSource};

/// A reviewed mapping: (kind, name) → pillar id (`None`: reviewed, no pillar).
pub type PillarMapping = HashMap<(String, String), Option<String>>;

/// The ISO3 of a LAC country of the registry (not an aggregate) that `iso3` names: the code, or any name,
/// alias or code the shared normaliser reads (`bol`, `Bolivia`, `Estado Plurinacional de Bolivia`, as a
/// steward's override row may write it); else the reason, for a refusal.
pub fn lac_country(countries: &corpus::CountryRegistry, iso3: &str) -> Result<String, String> {
    match countries.get(iso3).or_else(|| countries.resolve(iso3)) {
        Some(entity) if entity.kind == corpus::EntityKind::Country => Ok(entity.iso3.clone()),
        _ => Err(format!("`{iso3}` is not a LAC country of the registry")),
    }
}

/// A trimmed, non-empty cell.
pub fn text(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .map(str::to_string)
}

/// Text with HTML entities decoded (`&rsquo;` → `’`); the text as is if it does not decode.
pub fn decoded(text: String) -> String {
    if text.contains('&') {
        htmlescape::decode_html(&text).unwrap_or(text)
    } else {
        text
    }
}

/// The cells of a list cell split on `separator`, trimmed, empty ones dropped, first occurrence kept.
pub fn list(value: &Option<String>, separator: char) -> Vec<String> {
    let mut seen = BTreeSet::new();
    value
        .as_deref()
        .unwrap_or("")
        .split(separator)
        .map(str::trim)
        .filter(|item| !item.is_empty() && seen.insert(item.to_string()))
        .map(str::to_string)
        .collect()
}

/// A citation-id slug of `text`: folded to lower-case ASCII words joined by `-`, at most `max_words`
/// words (`Law 25.019 Declaring…` → `law-25-019-declaring`).
pub fn slug(text: &str, max_words: usize) -> String {
    corpus::folding::fold(text)
        .split(' ')
        .filter(|word| !word.is_empty())
        .take(max_words)
        .collect::<Vec<_>>()
        .join("-")
}

/// The pillars `names` map to under `kind`; names the mapping lacks go to `unmapped` as `kind: name`.
pub fn pillars_of(
    mapping: &PillarMapping,
    kind: &str,
    names: &[String],
    unmapped: &mut BTreeSet<String>,
) -> BTreeSet<String> {
    let mut pillars = BTreeSet::new();
    for name in names {
        match mapping.get(&(kind.to_string(), name.clone())) {
            Some(Some(pillar)) => {
                pillars.insert(pillar.clone());
            }
            Some(None) => {}
            None => {
                unmapped.insert(format!("{kind}: {name}"));
            }
        }
    }
    pillars
}

/// The pillars whose keywords (folded words of a reviewed mapping) occur as whole words in `text`, case,
/// accents and punctuation aside, unique, in the order their first keyword appears in `text` (so the
/// first is the main pillar). A keyword inside a longer one that also matches there gives nothing: the
/// longer decides ("investment climate" → economia, not "climate" → medio_ambiente), and a longer one
/// mapped to no pillar silences the words in it ("covid 19 crisis").
pub fn keyword_pillars(text: &str, keywords: &PillarMapping) -> Vec<String> {
    let folded = format!(" {} ", corpus::folding::fold(text));
    let found: Vec<(usize, usize, Option<&String>)> = keywords
        .iter()
        .filter_map(|((_, keyword), pillar)| {
            let at = folded.find(&format!(" {keyword} "))?;
            Some((at, at + keyword.len() + 2, pillar.as_ref()))
        })
        .collect();
    let mut kept: Vec<(usize, &String)> = found
        .iter()
        .filter(|(start, end, _)| {
            !found.iter().any(|(other_start, other_end, _)| {
                other_start <= start && end <= other_end && other_end - other_start > end - start
            })
        })
        .filter_map(|(start, _, pillar)| Some((*start, (*pillar)?)))
        .collect();
    kept.sort();
    let mut pillars: Vec<String> = Vec::new();
    for (_, pillar) in kept {
        if !pillars.contains(pillar) {
            pillars.push(pillar.clone());
        }
    }
    pillars
}

/// Reads a reviewed mapping (`kind,name,pillar`, `#` comments) whose kinds are among `kinds`.
///
/// # Errors
/// [`BakeError::Io`] if it cannot be read; [`BakeError::Catalog`] naming the row for an unknown kind or
/// pillar.
pub fn read_mapping(
    path: &Path,
    kinds: &[&str],
    pillar_ids: &[&str],
) -> Result<PillarMapping, BakeError> {
    let mut reader = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_path(path)
        .map_err(|error| BakeError::io(path, error.into()))?;
    let mut mapping = PillarMapping::new();
    for (index, row) in reader.records().enumerate() {
        let row = row.map_err(|error| BakeError::catalog(path, error.to_string()))?;
        let at =
            |message: String| BakeError::catalog(path, format!("row {}: {message}", index + 1));
        let (kind, name, pillar) = (
            row.get(0).unwrap_or(""),
            row.get(1).unwrap_or("").trim(),
            row.get(2).unwrap_or("").trim(),
        );
        if !kinds.contains(&kind) {
            return Err(at(format!("kind `{kind}`; valid: {}", kinds.join(", "))));
        }
        if !pillar.is_empty() && !pillar_ids.contains(&pillar) {
            return Err(at(format!(
                "pillar `{pillar}` of `{name}`; valid: {} (or empty: no pillar)",
                pillar_ids.join(", ")
            )));
        }
        mapping.insert(
            (kind.to_string(), name.to_string()),
            (!pillar.is_empty()).then(|| pillar.to_string()),
        );
    }
    Ok(mapping)
}

/// The mapping a record source declares, read from the catalog directory.
///
/// # Errors
/// [`BakeError::Catalog`] when the source needs a mapping and declares none, or as [`read_mapping`].
pub fn source_mapping(
    source: &RecordSource,
    catalog_dir: &Path,
    kinds: &[&str],
    pillar_ids: &[&str],
) -> Result<PillarMapping, BakeError> {
    let Some(file) = &source.pillar_mapping else {
        return Err(BakeError::catalog(
            catalog_dir.join(format!("curated/{}.toml", source.id)),
            "pillar_mapping: this table needs a reviewed mapping to pillars".to_string(),
        ));
    };
    read_mapping(&catalog_dir.join(file), kinds, pillar_ids)
}

/// A new report for `dataset` read from `source`.
pub fn report(dataset: corpus::RecordDataset, source: &str) -> CuratedReport {
    CuratedReport {
        dataset: dataset.id().into(),
        source: source.into(),
        ..CuratedReport::default()
    }
}

/// Records a refusal of `field` at `line` of `file`.
pub fn refuse(report: &mut CuratedReport, file: &str, line: u64, field: &str, reason: String) {
    report.refused.push(CuratedRefusal {
        file: file.to_string(),
        line,
        field: field.to_string(),
        reason,
    });
}

/// Sorts the refusals by file, line and field, and sets the count kept.
pub fn finish(report: &mut CuratedReport, kept: usize, unmapped: BTreeSet<String>) {
    report.refused.sort_by(|left, right| {
        (&left.file, left.line, &left.field).cmp(&(&right.file, right.line, &right.field))
    });
    report.kept = kept as u64;
    report.unmapped = unmapped.into_iter().collect();
}

/// Ids unique within a table: the first `id` as is, the next ones `id-2`, `id-3`.
#[derive(Debug, Default)]
pub struct UniqueIds(HashMap<String, u32>);

impl UniqueIds {
    /// `id`, or `id-N` when it was taken `N - 1` times before.
    pub fn next(&mut self, id: String) -> String {
        let count = self.0.entry(id.clone()).or_default();
        *count += 1;
        if *count == 1 {
            id
        } else {
            format!("{id}-{count}")
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn slugs_are_folded_words() {
        assert_eq!(
            super::slug("Law 25.019 Declaring a national interest", 4),
            "law-25-019-declaring"
        );
        assert_eq!(super::slug("Ley de Energía ", 8), "ley-de-energia");
        let mut ids = super::UniqueIds::default();
        assert_eq!(ids.next("a".into()), "a");
        assert_eq!(ids.next("a".into()), "a-2");
    }

    #[test]
    fn lists_split_trim_and_deduplicate() {
        assert_eq!(
            super::list(&Some("Energy, LULUCF,,Energy".into()), ','),
            ["Energy", "LULUCF"]
        );
    }
}

/// The rows of a raw table, then of the steward's override file for the same source when there is one
/// ([`overrides::path`]), each with its file label and line; unreadable rows are refused in `report`.
/// The raw table is the staged CSV, or, when a fetch left the publisher's files of the source's
/// `[refresh]` in its raw folder, those files read by the refresh connector into the staged columns
/// ([`publisher_table`]).
///
/// # Errors
/// [`BakeError::Io`] if a file cannot be opened; [`BakeError::RawFile`] if a publisher's file does not
/// read; [`BakeError::Catalog`] for a bad mapping the reader needs.
pub fn read_rows<Row: serde::de::DeserializeOwned>(
    source: &RecordSource,
    catalog_dir: &Path,
    sources_dir: &Path,
    report: &mut CuratedReport,
) -> Result<Vec<(String, u64, Row)>, BakeError> {
    let raw_dir = sources_dir.join(&source.raw_path);
    let mut tables = Vec::new();
    match crate::sources::curated::refreshed_connector(source.refresh.as_ref(), &raw_dir) {
        Some(connector) => {
            let table = publisher_table(connector, catalog_dir, &raw_dir, None)?;
            let label = format!(
                "{}/{}",
                source.raw_path,
                table
                    .path()
                    .strip_prefix(&raw_dir)
                    .unwrap_or(table.path())
                    .display()
            );
            tables.push((label, table_records(&table)));
        }
        None => tables.push((source.file_label(), csv_records(&source.path(sources_dir))?)),
    }
    if let Some((path, label)) = overrides::path(catalog_dir, &source.id) {
        tables.push((label, csv_records(&path)?));
    }
    let mut rows = Vec::new();
    for (label, (headers, records)) in tables {
        for (line, record) in records {
            match record.and_then(|record| {
                record
                    .deserialize::<Row>(Some(&headers))
                    .map_err(|error| error.to_string())
            }) {
                Ok(row) => rows.push((label.clone(), line, row)),
                Err(error) => refuse(
                    report,
                    &label,
                    line,
                    "(row)",
                    format!("record dropped: unreadable row: {error}"),
                ),
            }
        }
    }
    Ok(rows)
}

/// A header and records with their lines, ready to deserialize.
pub(crate) type Records = (
    csv::StringRecord,
    Vec<(u64, Result<csv::StringRecord, String>)>,
);

/// The records of the CSV at `path` (line: the record's 1-based position after the header, plus one,
/// as the bake report has always counted them).
pub(crate) fn csv_records(path: &Path) -> Result<Records, BakeError> {
    let mut reader =
        csv::Reader::from_path(path).map_err(|error| BakeError::io(path, error.into()))?;
    let headers = reader
        .headers()
        .map_err(|error| BakeError::raw_file(path, error))?
        .clone();
    let records = reader
        .records()
        .enumerate()
        .map(|(index, record)| (index as u64 + 2, record.map_err(|error| error.to_string())))
        .collect();
    Ok((headers, records))
}

/// The records of a publisher's table read into the staged columns.
pub(crate) fn table_records(table: &crate::ingest::table::Table) -> Records {
    let headers = csv::StringRecord::from(table.headers.clone());
    let records = table
        .records
        .iter()
        .map(|(line, cells)| (*line, Ok(csv::StringRecord::from(cells.clone()))))
        .collect();
    (headers, records)
}

/// The publisher's files of a curated source read by its refresh `connector` into a table of the staged
/// extract's columns. `countries` is needed by the World Bank projects API reader (ISO3 of a
/// single-country project).
///
/// # Errors
/// [`BakeError::RawFile`] naming the publisher's file; [`BakeError::Catalog`] for the reviewed mapping
/// a reader needs; [`BakeError::Catalog`] for a connector that reads no records, or the projects reader
/// without the registry.
pub(crate) fn publisher_table(
    connector: &crate::sources::Connector,
    catalog_dir: &Path,
    raw_dir: &Path,
    countries: Option<&corpus::CountryRegistry>,
) -> Result<crate::ingest::table::Table, BakeError> {
    use crate::{ingest, sources::Connector};
    match connector {
        Connector::CclwExport { file } => ingest::cclw_export::read(&raw_dir.join(file)),
        Connector::NceiTsv { file, locations } => ingest::ncei_earthquakes::read_tsv(
            &raw_dir.join(file),
            &ingest::ncei_earthquakes::LocationCountries::read(&catalog_dir.join(locations))?,
        ),
        Connector::NceiHazelJson { file, locations } => ingest::ncei_earthquakes::read_hazel_json(
            &raw_dir.join(file),
            &ingest::ncei_earthquakes::LocationCountries::read(&catalog_dir.join(locations))?,
        ),
        Connector::WbProjectsApi { pages } => {
            let Some(countries) = countries else {
                return Err(BakeError::catalog(
                    catalog_dir,
                    "refresh.connector `wb_projects_api` reads the World Bank projects list only (data/curated/wb_projects.toml)",
                ));
            };
            let pages: Vec<std::path::PathBuf> =
                pages.iter().map(|page| raw_dir.join(page)).collect();
            ingest::wb_projects_api::read(&pages, countries)
        }
        other => Err(BakeError::catalog(
            catalog_dir,
            format!(
                "refresh.connector `{}` reads no curated records; valid: cclw_export, ncei_tsv, ncei_hazel_json, wb_projects_api",
                other.kind()
            ),
        )),
    }
}

/// The curated record-level datasets of a bake, each sorted, with what their validation kept and refused.
#[derive(Debug, Default)]
pub struct Curated {
    /// `projects`.
    pub projects: Vec<corpus::Project>,
    /// `regulation`.
    pub laws: Vec<corpus::Law>,
    /// `institutions`.
    pub institutions: Vec<corpus::Institution>,
    /// `financing`.
    pub financing: Vec<corpus::FinancingRecord>,
    /// `events`, newest first.
    pub events: Vec<corpus::Event>,
    /// One report per curated source read.
    pub reports: Vec<CuratedReport>,
    /// The reviewed glossary that lets Spanish and Portuguese queries find English records.
    pub search_terms: terms::SearchTerms,
}

impl Curated {
    /// How many records the curated dataset `dataset` holds.
    pub fn count(&self, dataset: corpus::RecordDataset) -> u64 {
        use corpus::RecordDataset;
        let count = match dataset {
            RecordDataset::Projects => self.projects.len(),
            RecordDataset::Regulation => self.laws.len(),
            RecordDataset::Institutions => self.institutions.len(),
            RecordDataset::Financing => self.financing.len(),
            RecordDataset::Events => self.events.len(),
        };
        count as u64
    }
}

/// What the curated datasets are read with.
pub struct Inputs<'a> {
    /// The catalog directory (`data/`).
    pub catalog_dir: &'a Path,
    /// The raw sources directory.
    pub sources_dir: &'a Path,
    /// The corpus settings (licences, pillars).
    pub settings: &'a crate::sources::settings::CorpusSettings,
    /// The LAC registry.
    pub countries: &'a corpus::CountryRegistry,
    /// The governed indicators (for data-release events).
    pub metrics: &'a [corpus::Metric],
    /// The sources of the indicators.
    pub sources: &'a [corpus::SourceRecord],
    /// The countries each source has observations of, by source id.
    pub source_countries: &'a std::collections::BTreeMap<String, BTreeSet<String>>,
}

/// Reads every curated source the catalog declares whose licence the bake admits; a catalog without
/// `data/curated/` gives empty datasets.
///
/// # Errors
/// Any [`BakeError`] of a declaration, a raw table or a mapping.
pub fn read_all(inputs: &Inputs) -> Result<Curated, BakeError> {
    use crate::sources::curated::{ProjectsSource, RECORD_SOURCES};
    use corpus::RecordDataset;
    let pillar_ids = inputs.settings.pillar_id_list();
    let mut curated = Curated {
        search_terms: terms::SearchTerms::read(inputs.catalog_dir)?,
        ..Curated::default()
    };
    let mut homepages = std::collections::BTreeMap::new();
    if let Some(source) = ProjectsSource::load(inputs.catalog_dir, inputs.settings)?
        .filter(|source| inputs.settings.admits_license(&source.license))
    {
        let (projects, report) = projects::projects(
            &source,
            inputs.catalog_dir,
            inputs.sources_dir,
            &pillar_ids,
            inputs.countries,
        )?;
        homepages.insert(source.id.clone(), source.homepage.clone());
        curated.projects = projects;
        curated.reports.push(report);
    }
    let mut earthquakes = Vec::new();
    for (file, dataset) in RECORD_SOURCES {
        let Some(source) = RecordSource::load(inputs.catalog_dir, file, inputs.settings)? else {
            continue;
        };
        if !inputs.settings.admits_license(&source.license) {
            curated.reports.push(CuratedReport {
                dataset: dataset.id().to_string(),
                source: source.id.clone(),
                excluded: Some(format!(
                    "licence {} is not redistributable in the default corpus (`include_restricted_licenses = true` \
                     reads it, for a private bake)",
                    source.license
                )),
                ..CuratedReport::default()
            });
            continue;
        }
        let (dir, raw) = (inputs.catalog_dir, inputs.sources_dir);
        let report = match dataset {
            RecordDataset::Projects => {
                let (projects, report) =
                    gef::projects(&source, dir, raw, &pillar_ids, inputs.countries)?;
                homepages.insert(source.id.clone(), source.homepage.clone());
                curated.projects.extend(projects);
                curated
                    .projects
                    .sort_by(|left, right| left.id.cmp(&right.id));
                report
            }
            RecordDataset::Regulation => {
                let (laws, report) =
                    regulation::laws(&source, dir, raw, &pillar_ids, inputs.countries)?;
                curated.laws.extend(laws);
                report
            }
            RecordDataset::Institutions => {
                let context = institutions::Context {
                    countries: inputs.countries,
                    pillar_ids: &pillar_ids,
                    projects: &curated.projects,
                };
                let (records, report) = institutions::institutions(&source, dir, raw, &context)?;
                curated.institutions.extend(records);
                report
            }
            RecordDataset::Financing => {
                let (records, report) =
                    financing::crs_flows(&source, dir, raw, &pillar_ids, inputs.countries)?;
                curated.financing.extend(records);
                report
            }
            RecordDataset::Events => {
                let (records, report) = events::earthquakes(&source, dir, raw, inputs.countries)?;
                earthquakes = records;
                report
            }
        };
        curated.reports.push(report);
    }
    curated.institutions.sort_by(|left, right| {
        (&left.country, &left.name, &left.citation_id).cmp(&(
            &right.country,
            &right.name,
            &right.citation_id,
        ))
    });
    curated.financing.extend(financing::project_instruments(
        &curated.projects,
        &homepages,
    ));
    curated
        .financing
        .sort_by(|left, right| left.citation_id.cmp(&right.citation_id));
    let pillars = &inputs.settings.pillars;
    let mut all_events = events::project_events(&curated.projects, pillars, inputs.countries);
    all_events.extend(events::law_events(&curated.laws, pillars));
    all_events.extend(earthquakes);
    all_events.extend(events::release_events(
        inputs.sources,
        inputs.metrics,
        inputs.source_countries,
        pillars,
    ));
    all_events.sort_by(|left, right| {
        right
            .date
            .cmp(&left.date)
            .then_with(|| left.citation_id.cmp(&right.citation_id))
    });
    curated.events = all_events;
    Ok(curated)
}
