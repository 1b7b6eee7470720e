//! `pipeline sources`: one status line per catalog source — present on disk, rows, indicators, newest
//! year, licence, and what the default corpus takes from it.

use std::path::Path;

use indicatif::ProgressBar;

use crate::{
    BakeError, govern, ingest,
    sources::{Catalog, Connector, MetricMapping, SourceEntry},
};

/// The status of one source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceStatus {
    /// Source id.
    pub id: String,
    /// Connector kind.
    pub kind: &'static str,
    /// Whether the raw folder exists.
    pub present: bool,
    /// Raw data rows (observation sources), if readable.
    pub rows: Option<u64>,
    /// Indicators mapped, and of those admitted by licence into the default corpus.
    pub indicators: Option<(usize, usize)>,
    /// Newest year in the raw rows, if any.
    pub newest_year: Option<i32>,
    /// Licence id.
    pub license: String,
    /// What the source's citation links open (`indicator_country` … `dataset`); empty for metadata sources.
    pub link_kind: &'static str,
    /// What the default corpus takes, or why not (`unreadable: …`).
    pub note: String,
}

/// Reads every source's raw files and reports its status, with what governance would drop as placeholder
/// zeros and flag as suspect scale. Never fails on a missing or unreadable source: that is what the
/// status says.
pub fn statuses(catalog: &Catalog, sources_dir: &Path) -> Vec<SourceStatus> {
    let countries = countries(catalog, sources_dir);
    catalog
        .sources
        .iter()
        .map(|source| status(catalog, source, sources_dir, countries.as_ref()))
        .collect()
}

/// The status of one source (see [`statuses`]), reading only its raw files and the country list.
pub fn status_of(catalog: &Catalog, source: &SourceEntry, sources_dir: &Path) -> SourceStatus {
    status(
        catalog,
        source,
        sources_dir,
        countries(catalog, sources_dir).as_ref(),
    )
}

/// The country registry of the catalog's country list, when it reads.
pub(crate) fn country_registry(
    catalog: &Catalog,
    sources_dir: &Path,
) -> Option<corpus::CountryRegistry> {
    countries(catalog, sources_dir)
}

/// The country registry of the catalog's country list, when it reads.
fn countries(catalog: &Catalog, sources_dir: &Path) -> Option<corpus::CountryRegistry> {
    catalog
        .sources
        .iter()
        .find(|source| matches!(source.connector, Connector::CountryNames { .. }))
        .and_then(|entry| ingest::countries::read(entry, &catalog.settings, sources_dir).ok())
        .map(corpus::CountryRegistry::new)
}

/// What governance drops and flags in one source (placeholder zeros, suspect scale), for the note.
fn governance_note(
    catalog: &Catalog,
    source: &SourceEntry,
    mapping: &MetricMapping,
    files: &[ingest::raw::RawFile],
    descriptors: &[ingest::raw::Descriptor],
    countries: &corpus::CountryRegistry,
) -> String {
    let no_metadata = std::collections::HashMap::new();
    match govern::govern_source(
        source,
        mapping,
        files,
        descriptors,
        &no_metadata,
        countries,
        &catalog.settings,
    ) {
        Ok(outcome) => {
            let placeholders = outcome
                .dropped
                .iter()
                .filter(|row| row.reason == corpus::DropReason::PlaceholderZero)
                .count();
            let suspect = outcome
                .counts
                .flagged
                .get(govern::scale::FLAG)
                .copied()
                .unwrap_or(0);
            format!(
                "; {} dropped ({placeholders} placeholder zeros), {suspect} flagged suspect_scale",
                outcome.dropped.len()
            )
        }
        Err(error) => format!("; governance fails: {}", short(&error)),
    }
}

/// The statuses as an aligned text table.
pub fn table(statuses: &[SourceStatus]) -> String {
    let mut lines = vec![format!(
        "{:<17} {:<23} {:<7} {:>8} {:>11} {:>6} {:<24} {:<17} {}",
        "source",
        "connector",
        "present",
        "rows",
        "indicators",
        "newest",
        "licence",
        "links",
        "default corpus"
    )];
    let mut rows_by_link: std::collections::BTreeMap<&str, u64> = Default::default();
    for status in statuses {
        let rows = status.rows.map_or("-".into(), |rows| rows.to_string());
        let indicators = status.indicators.map_or("-".into(), |(mapped, admitted)| {
            format!("{admitted}/{mapped}")
        });
        let newest = status
            .newest_year
            .map_or("-".into(), |year| year.to_string());
        lines.push(format!(
            "{:<17} {:<23} {:<7} {:>8} {:>11} {:>6} {:<24} {:<17} {}",
            status.id,
            status.kind,
            if status.present { "yes" } else { "NO" },
            rows,
            indicators,
            newest,
            status.license,
            if status.link_kind.is_empty() {
                "-"
            } else {
                status.link_kind
            },
            status.note
        ));
        if let (false, Some(rows)) = (status.link_kind.is_empty(), status.rows) {
            *rows_by_link.entry(status.link_kind).or_default() += rows;
        }
    }
    lines.push(format!(
        "raw rows by citation link kind ({}): {}",
        "`dataset` links open the dataset's page only, not the indicator for the country",
        rows_by_link
            .iter()
            .map(|(kind, rows)| format!("{kind} {rows}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    lines.join("\n") + "\n"
}

fn status(
    catalog: &Catalog,
    source: &SourceEntry,
    sources_dir: &Path,
    countries: Option<&corpus::CountryRegistry>,
) -> SourceStatus {
    let mut status = SourceStatus {
        id: source.id.clone(),
        kind: source.connector.kind(),
        present: source.raw_dir(sources_dir).is_dir(),
        rows: None,
        indicators: None,
        newest_year: None,
        license: source.license.clone(),
        link_kind: if source.connector.yields_observations() {
            source.link_kind().as_str()
        } else {
            ""
        },
        note: String::new(),
    };
    match (&source.connector, catalog.mappings.get(&source.id)) {
        (Connector::CountryNames { .. }, _) => status.note = "country list and names".into(),
        (Connector::WdiSeriesMetadata { .. }, _) => {
            status.note = format!(
                "definitions and notes for `{}`",
                source.describes.as_deref().unwrap_or_default()
            )
        }
        (_, Some(mapping)) => {
            match ingest::read_source(source, mapping, sources_dir, &ProgressBar::hidden()) {
                Ok((files, descriptors)) => {
                    let rows = files.iter().flat_map(|file| &file.rows);
                    status.rows = Some(rows.clone().count() as u64);
                    status.newest_year = rows.filter_map(|row| row.year.parse::<i32>().ok()).max();
                    let admitted = mapping
                        .rows
                        .iter()
                        .filter(|row| catalog.settings.admits_license(&row.license))
                        .count();
                    status.indicators = Some((mapping.rows.len(), admitted));
                    let excluded = mapping.rows.len() - admitted;
                    status.note = if excluded == 0 {
                        "all indicators".into()
                    } else {
                        format!("{admitted} indicators; {excluded} excluded by licence")
                    };
                    if let Some(countries) = countries {
                        status.note.push_str(&governance_note(
                            catalog,
                            source,
                            mapping,
                            &files,
                            &descriptors,
                            countries,
                        ));
                    }
                }
                Err(error) => status.note = format!("unreadable: {}", short(&error)),
            }
        }
        (_, None) => status.note = "no metric mapping".into(),
    }
    status
}

/// Whether the source's connector reads its raw files (the sources whose rows it maps; the country list
/// and metadata sources pass).
///
/// # Errors
/// The connector's complaint, shortened.
pub fn readable(catalog: &Catalog, source: &SourceEntry, sources_dir: &Path) -> Result<(), String> {
    let Some(mapping) = catalog.mappings.get(&source.id) else {
        return Ok(());
    };
    ingest::read_source(source, mapping, sources_dir, &ProgressBar::hidden())
        .map(|_| ())
        .map_err(|error| short(&error))
}

fn short(error: &BakeError) -> String {
    let text = error.to_string();
    text.chars().take(120).collect()
}
