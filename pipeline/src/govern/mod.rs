//! Governance: decide what every raw row becomes — a country observation, a comparison-aggregate
//! observation, or a dropped row with its reason — and which series stay out for licence reasons.
//!
//! Checks, in order: licence of the series, entity code (a LAC country or a declared aggregate, through
//! the shared normaliser), year, value (missing marker, non-numeric), range for the unit, duplicate
//! (indicator, country, year). Then the series rules, which look at a whole series or indicator:
//! placeholder zeros are dropped ([`placeholder`]), probable fractions stored as percents are flagged
//! `suspect_scale` ([`scale`]), and series the publisher calls modelled estimates are flagged `modelled`
//! ([`text`]). Nothing is dropped without a [`DroppedRow`] in the report; every flag is counted.

pub mod metrics;
pub mod observation;
pub mod placeholder;
pub mod records;
pub mod scale;
pub mod table;
pub mod text;

use std::collections::HashMap;

use corpus::{CountryRegistry, DropReason, DroppedRow, EntityKind, ExcludedSeries};

use observation::{GovernedObservation, SourceOutcome};

use crate::{
    BakeError,
    ingest::{
        missing_markers,
        raw::{Descriptor, RawFile, RawRow},
        wdi_metadata::SeriesMetadata,
    },
    sources::{Connector, CorpusSettings, MetricMapping, SourceEntry, catalog::EntityNaming},
};

/// Years a value can be recorded for.
const YEARS: std::ops::RangeInclusive<i32> = 1900..=2100;

/// Governs every raw row of one observation source. `descriptors` (one per mapping row, or none) and
/// `metadata` (by source code) are the publisher's titles, read for the `modelled` flag.
///
/// # Errors
/// [`BakeError::UnmappedEntities`] when a source that names countries by name has names the shared
/// normaliser cannot map (and the catalog does not list under `ignore_entities`): never dropped silently.
pub fn govern_source(
    source: &SourceEntry,
    mapping: &MetricMapping,
    files: &[RawFile],
    descriptors: &[Descriptor],
    metadata: &HashMap<String, SeriesMetadata>,
    entities: &CountryRegistry,
    settings: &CorpusSettings,
) -> Result<SourceOutcome, BakeError> {
    let (naming, ignored): (EntityNaming, &[String]) = match &source.connector {
        Connector::ColumnsCsv {
            entities: naming,
            ignore_entities,
            ..
        } => (*naming, ignore_entities),
        _ => (EntityNaming::Codes, &[]),
    };
    let mut unmapped = std::collections::BTreeSet::new();
    let markers = missing_markers(&source.connector);
    let admitted: Vec<bool> = mapping
        .rows
        .iter()
        .map(|row| settings.admits_license(&row.license))
        .collect();
    let mut excluded_rows = vec![0u64; mapping.rows.len()];
    let mut first_line: HashMap<(usize, String, i32), u64> = HashMap::new();
    let mut outcome = SourceOutcome::default();
    let dropped_row =
        |raw_file: &RawFile, raw: &RawRow, reason: DropReason, detail: String| DroppedRow {
            source: source.id.clone(),
            file: raw_file.file.clone(),
            line: raw.line,
            indicator: corpus::Metric::id_for_code(&mapping.rows[raw.mapping_idx].source_code),
            country: raw.country.clone(),
            year: raw.year.clone(),
            value: raw.value.clone(),
            reason,
            detail,
        };
    // (file, row) of each kept observation, for the report of rows the series rules drop.
    let mut origins: Vec<(usize, usize)> = Vec::new();
    for (file_idx, raw_file) in files.iter().enumerate() {
        for (row_idx, raw) in raw_file.rows.iter().enumerate() {
            outcome.counts.rows_read += 1;
            if !admitted[raw.mapping_idx] {
                excluded_rows[raw.mapping_idx] += 1;
                continue;
            }
            match check_row(raw, mapping, markers, entities, &mut first_line) {
                Ok(observation) => {
                    outcome.kept.push(observation);
                    origins.push((file_idx, row_idx));
                }
                Err((DropReason::UnknownCountry, _))
                    if naming == EntityNaming::Names && !ignored.contains(&raw.country) =>
                {
                    unmapped.insert(raw.country.clone());
                }
                Err((reason, detail)) => outcome
                    .dropped
                    .push(dropped_row(raw_file, raw, reason, detail)),
            }
        }
    }
    let placeholders = placeholder::placeholders(&outcome.kept, mapping);
    if !placeholders.is_empty() {
        let mut keep = vec![true; outcome.kept.len()];
        for (idx, detail) in placeholders {
            keep[idx] = false;
            let (file_idx, row_idx) = origins[idx];
            let raw_file = &files[file_idx];
            outcome.dropped.push(dropped_row(
                raw_file,
                &raw_file.rows[row_idx],
                DropReason::PlaceholderZero,
                detail,
            ));
        }
        let mut position = 0;
        outcome.kept.retain(|_| {
            position += 1;
            keep[position - 1]
        });
    }
    for idx in scale::suspects(&outcome.kept, mapping) {
        outcome.kept[idx].add_flag(scale::FLAG);
    }
    let modelled: Vec<bool> = mapping
        .rows
        .iter()
        .enumerate()
        .map(|(mapping_idx, row)| {
            let titles = descriptors
                .get(mapping_idx)
                .and_then(|descriptor| descriptor.title.as_deref())
                .into_iter()
                .chain(
                    metadata
                        .get(&row.source_code)
                        .and_then(|metadata| metadata.title.as_deref()),
                );
            text::is_modelled(titles)
        })
        .collect();
    for observation in &mut outcome.kept {
        if modelled[observation.mapping_idx] {
            observation.add_flag(text::MODELLED_FLAG);
        }
        for flag in observation.flags.split('|').filter(|flag| !flag.is_empty()) {
            *outcome.counts.flagged.entry(flag.to_string()).or_default() += 1;
        }
    }
    outcome.counts.link_kind = source.link_kind().as_str().to_string();
    for (mapping_idx, row) in mapping
        .rows
        .iter()
        .enumerate()
        .filter(|(mapping_idx, _)| !admitted[*mapping_idx])
    {
        outcome.excluded.push(ExcludedSeries {
            source: source.id.clone(),
            code: row.source_code.clone(),
            license: row.license.clone(),
            rows: excluded_rows[mapping_idx],
            reason: format!(
                "licence {} is not redistributable in the default corpus",
                row.license
            ),
        });
    }
    outcome.counts.observations = outcome
        .kept
        .iter()
        .filter(|observation| !observation.is_aggregate)
        .count() as u64;
    outcome.counts.aggregate_observations = outcome.kept.len() as u64 - outcome.counts.observations;
    outcome.counts.dropped = outcome.dropped.len() as u64;
    outcome.counts.excluded = excluded_rows.iter().sum();
    if !unmapped.is_empty() {
        return Err(BakeError::UnmappedEntities {
            source_id: source.id.clone(),
            names: unmapped.into_iter().collect(),
        });
    }
    Ok(outcome)
}

/// Checks one row; `first_line` remembers the line of each (indicator, country, year) already kept.
fn check_row(
    raw: &RawRow,
    mapping: &MetricMapping,
    markers: &[String],
    entities: &CountryRegistry,
    first_line: &mut HashMap<(usize, String, i32), u64>,
) -> Result<GovernedObservation, (DropReason, String)> {
    let row = &mapping.rows[raw.mapping_idx];
    let entity = entities.resolve_entity(&raw.country).ok_or_else(|| {
        (
            DropReason::UnknownCountry,
            format!(
                "`{}` is neither a LAC country of the catalog nor a declared comparison aggregate",
                raw.country
            ),
        )
    })?;
    let year: i32 = raw
        .year
        .parse()
        .ok()
        .filter(|year| YEARS.contains(year))
        .ok_or_else(|| {
            (
                DropReason::InvalidYear,
                format!(
                    "`{}` is not a year in {}-{}",
                    raw.year,
                    YEARS.start(),
                    YEARS.end()
                ),
            )
        })?;
    if raw.value.is_empty() || markers.contains(&raw.value) {
        return Err((
            DropReason::MissingMarker,
            format!("`{}` marks a missing value", raw.value),
        ));
    }
    let value: f64 = raw
        .value
        .parse()
        .ok()
        .filter(|value: &f64| value.is_finite())
        .ok_or_else(|| {
            (
                DropReason::NonNumericValue,
                format!("`{}` is not a finite number", raw.value),
            )
        })?;
    let range = row.valid_range();
    if !range.contains(value) {
        let bound =
            |bound: Option<f64>| bound.map_or("unbounded".to_string(), |bound| bound.to_string());
        return Err((
            DropReason::ImpossibleValue,
            format!(
                "{value} is outside [{}, {}] for unit `{}`",
                bound(range.min),
                bound(range.max),
                row.unit
            ),
        ));
    }
    let key = (raw.mapping_idx, entity.iso3.clone(), year);
    if let Some(line) = first_line.get(&key) {
        return Err((
            DropReason::Duplicate,
            format!("duplicates line {line}, which is kept"),
        ));
    }
    first_line.insert(key, raw.line);
    let [standard_error, source_count] = &raw.attributes;
    Ok(GovernedObservation {
        mapping_idx: raw.mapping_idx,
        country: entity.iso3.clone(),
        is_aggregate: entity.kind == EntityKind::Aggregate,
        year,
        value,
        standard_error: standard_error
            .as_deref()
            .and_then(|cell| cell.parse::<f64>().ok())
            .filter(|value| value.is_finite()),
        source_count: source_count
            .as_deref()
            .and_then(|cell| cell.parse::<f64>().ok())
            .filter(|count| count.fract() == 0.0 && *count >= 0.0)
            .map(|count| count as i32),
        flags: raw.flags.clone(),
    })
}
