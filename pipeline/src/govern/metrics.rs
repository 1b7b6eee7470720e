//! The metric registry: each governed source's kept observations become rows of the observation tables,
//! each of its indicators with rows a registry entry ([`corpus::Metric`]: names, unit, texts, coverage,
//! attributes), and its drops and counts entries of the bake report. The bake adds its sources one by one
//! ([`add_source`]) after governing each.

use std::collections::{BTreeSet, HashMap};

use corpus::{BakeReport, CitationId, CountryRegistry, Coverage, Metric, Names, SourceRecord};

use super::{
    observation::SourceOutcome,
    table::{Interner, ObservationColumns, SharedStr},
};
use crate::{
    ingest::{raw::Descriptor, wdi_metadata::SeriesMetadata},
    sources::{Connector, MetricMapping, SourceEntry},
};

/// Everything the bake ingested and governed, before writing: the metric registry, the observation
/// tables and the source records, and the report so far, filled source by source by [`add_source`].
#[derive(Debug, Default)]
pub struct Governed {
    /// The metric registry: one entry per mapped indicator with at least one kept row (sorted by id once
    /// every source is added).
    pub metrics: Vec<Metric>,
    /// The country observations.
    pub observations: ObservationColumns,
    /// The comparison-aggregate observations.
    pub aggregates: ObservationColumns,
    /// One citation record per observation source, in the order added.
    pub sources: Vec<SourceRecord>,
    /// The bake report: dropped rows, excluded series, per-source counts, stale texts.
    pub report: BakeReport,
    /// The one copy of each string the observation rows share.
    pub strings: Interner,
}

/// Turns one governed source (or one batch of its indicators: called again, it adds to the source's
/// counts) into metrics, table rows and report entries: each kept observation becomes a
/// row of `governed.observations` (or `governed.aggregates`) with its citation id, each indicator with
/// rows a [`Metric`] with its coverage, texts and attributes, and the source's drops, exclusions and
/// counts go to the report.
///
/// # Panics
/// If `source` lacks the citation fields the catalog validates observation sources to have.
pub fn add_source(
    governed: &mut Governed,
    source: &SourceEntry,
    mapping: &MetricMapping,
    descriptors: &[Descriptor],
    metadata: &HashMap<String, SeriesMetadata>,
    mut outcome: SourceOutcome,
    countries: &CountryRegistry,
) {
    let record = source
        .record()
        .expect("observation sources are validated to have citation fields");
    let mut coverage = vec![CoverageCounter::default(); mapping.rows.len()];
    let mut has_attributes = vec![false; mapping.rows.len()];
    let strings = &mut governed.strings;
    let source_id = strings.get(&source.id);
    let metric_ids: Vec<SharedStr> = mapping
        .rows
        .iter()
        .map(|row| strings.get(&Metric::id_for_code(&row.source_code)))
        .collect();
    let vintages: Vec<SharedStr> = descriptors
        .iter()
        .map(|descriptor| strings.get(descriptor.vintage.as_deref().unwrap_or(&source.vintage)))
        .collect();
    for observation in &outcome.kept {
        let row = &mapping.rows[observation.mapping_idx];
        let table = if observation.is_aggregate {
            &mut governed.aggregates
        } else {
            &mut governed.observations
        };
        table
            .indicator
            .push(metric_ids[observation.mapping_idx].clone());
        table.country.push(strings.get(&observation.country));
        table.year.push(observation.year);
        table.value.push(observation.value);
        table.source.push(source_id.clone());
        table
            .vintage
            .push(vintages[observation.mapping_idx].clone());
        table.citation_id.push(
            CitationId::format(
                &record.citation_prefix,
                &row.source_code,
                &observation.country,
                observation.year,
            )
            .into_boxed_str(),
        );
        table.flags.push(strings.get(&observation.flags));
        table.standard_error.push(observation.standard_error);
        table.source_count.push(observation.source_count);
        has_attributes[observation.mapping_idx] |=
            observation.standard_error.is_some() || observation.source_count.is_some();
        if observation.is_aggregate {
            *governed
                .report
                .aggregates_kept
                .entry(observation.country.clone())
                .or_default() += 1;
            coverage[observation.mapping_idx].aggregate_rows += 1;
        } else {
            coverage[observation.mapping_idx].add(&observation.country, observation.year);
        }
    }
    let attribute_names: Vec<String> = match &source.connector {
        Connector::LongCsv { attributes, .. } => attributes.keys().cloned().collect(),
        _ => Vec::new(),
    };
    for (mapping_idx, row) in mapping.rows.iter().enumerate() {
        let counter = &coverage[mapping_idx];
        if counter.rows == 0 && counter.aggregate_rows == 0 {
            continue;
        }
        let descriptor = &descriptors[mapping_idx];
        let text = super::text::metric_text(
            &Metric::id_for_code(&row.source_code),
            row,
            descriptor,
            metadata.get(&row.source_code),
            &source.vintage,
        );
        if let Some(stale) = text.stale {
            governed.report.stale_texts.push(stale);
        }
        let series_metadata = metadata.get(&row.source_code).cloned().unwrap_or_default();
        let source_title = descriptor
            .title
            .clone()
            .or_else(|| row.name_en.clone())
            .unwrap_or_else(|| row.source_code.clone());
        let mut country_notes = series_metadata.country_notes;
        country_notes.retain(|iso3, _| countries.get(iso3).is_some());
        governed.metrics.push(Metric {
            id: Metric::id_for_code(&row.source_code),
            source_code: row.source_code.clone(),
            source_id: source.id.clone(),
            pillar: row.pillar.clone(),
            names: Names {
                en: row.name_en.clone().unwrap_or_else(|| source_title.clone()),
                es: row.name_es.clone(),
                pt: row.name_pt.clone(),
            },
            source_title,
            description: text.description,
            unit: row.unit.clone(),
            good_direction: row.good_direction,
            valid_range: row.valid_range(),
            license: row.license.clone(),
            vintage: descriptor
                .vintage
                .clone()
                .unwrap_or_else(|| source.vintage.clone()),
            retrieved_at: descriptor.retrieved_at.clone(),
            primary_source: series_metadata.primary_source,
            methodology: text.methodology,
            topic: row.wdi_topic.clone(),
            synonyms: row.synonym_list(),
            headline: row.headline,
            attributes: if has_attributes[mapping_idx] {
                attribute_names.clone()
            } else {
                Vec::new()
            },
            country_notes,
            coverage: counter.coverage(),
        });
    }
    outcome.counts.indicators = coverage
        .iter()
        .filter(|counter| counter.rows > 0 || counter.aggregate_rows > 0)
        .count() as u32;
    let report = &mut governed.report;
    for dropped in &outcome.dropped {
        *report.dropped_by_reason.entry(dropped.reason).or_default() += 1;
    }
    report.dropped.append(&mut outcome.dropped);
    report.excluded_series.append(&mut outcome.excluded);
    report.record_source(&source.id, outcome.counts);
    // A source governed in batches of indicators has one record.
    if !governed.sources.iter().any(|known| known.id == record.id) {
        governed.sources.push(record);
    }
}

/// Counts coverage of one indicator over countries.
#[derive(Debug, Clone, Default)]
struct CoverageCounter {
    rows: u64,
    aggregate_rows: u64,
    countries: BTreeSet<String>,
    first_year: Option<i32>,
    last_year: Option<i32>,
}

impl CoverageCounter {
    fn add(&mut self, country: &str, year: i32) {
        self.rows += 1;
        if !self.countries.contains(country) {
            self.countries.insert(country.to_string());
        }
        self.first_year = Some(self.first_year.map_or(year, |first| first.min(year)));
        self.last_year = Some(self.last_year.map_or(year, |last| last.max(year)));
    }

    fn coverage(&self) -> Coverage {
        Coverage {
            observations: self.rows,
            countries: self.countries.len() as u32,
            first_year: self.first_year,
            last_year: self.last_year,
        }
    }
}
