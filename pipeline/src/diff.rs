//! What a new corpus changed against an older one ([`corpus::changes::Changes`]): `pipeline diff [OLD]
//! [NEW]` and the `exports/changes.json` every bake writes against the corpus it replaces.
//!
//! Reads each corpus' own artifacts through the artifact contract: the observation table
//! (`observations.arrow`, memory-mapped, sorted by indicator, country and year), `metrics.json` and
//! `sources.json` (which source an indicator belongs to, its vintage and retrieval date) and the curated
//! record tables (`projects.json`, …, one JSON array each, compared record by record under their
//! `citation_id`). Comparison aggregates (LCN, WLD) are left out, as everywhere they are not countries.
//!
//! The two tables are merged in one pass (both are sorted by the same key), so a diff costs one read
//! of each. Traps handled: a value revised by a float's last digits is a revision (values are compared
//! exactly, as both bakes parse the same text the same way); a revision from 0 has no relative change
//! and sorts first; a source, indicator or record table only one corpus has is listed as added or
//! dropped, never compared; a corpus of another format version is refused with the reason, and the
//! bake then publishes a `changes.json` that says why it has no comparison.

use std::{
    cmp::Ordering,
    collections::{BTreeMap, BTreeSet, HashMap},
    path::{Path, PathBuf},
};

use corpus::{
    Manifest, Metric, Observation, ObservationTable, RecordDataset, SourceRecord,
    changes::{
        ChangeTotals, Changes, CitedValue, CorpusVersion, IndicatorChanges,
        REVISIONS_PER_INDICATOR, RecordChanges, Revision, SourceChanges, TOP_REVISIONS,
    },
    layout, read_json,
};

use crate::BakeError;

/// The artifacts of one corpus a diff reads.
#[derive(Debug)]
pub struct Snapshot {
    /// Its version, when known (a staging directory has none yet).
    pub version: Option<CorpusVersion>,
    metrics: Vec<Metric>,
    sources: Vec<SourceRecord>,
    observations: ObservationTable,
    /// Per curated dataset whose artifact exists, its records by citation id.
    records: Vec<(RecordDataset, BTreeMap<String, serde_json::Value>)>,
}

impl Snapshot {
    /// Opens the published corpus in `dir` (its manifest read and its format version checked).
    ///
    /// # Errors
    /// [`BakeError::Corpus`] naming the artifact that is missing, unreadable or of another format
    /// version.
    pub fn open(dir: &Path) -> Result<Snapshot, BakeError> {
        let manifest = Manifest::read(dir)?;
        Snapshot::read(
            dir,
            Some(CorpusVersion {
                version: manifest.corpus_version,
                format_version: manifest.format_version,
            }),
        )
    }

    /// Reads the artifacts of `dir` without a manifest (the bake's staging directory), as `version`.
    ///
    /// # Errors
    /// [`BakeError::Corpus`] naming the artifact that is missing or unreadable.
    pub fn read(dir: &Path, version: Option<CorpusVersion>) -> Result<Snapshot, BakeError> {
        let metrics: Vec<Metric> = read_json(&dir.join(layout::METRICS), "metric registry")?;
        let sources: Vec<SourceRecord> = read_json(&dir.join(layout::SOURCES), "source registry")?;
        let observations = ObservationTable::open(&dir.join(layout::OBSERVATIONS_ARROW))?;
        let mut records = Vec::new();
        for dataset in RecordDataset::ALL {
            let path = dir.join(dataset.artifact());
            if !path.is_file() {
                continue;
            }
            let rows: Vec<serde_json::Value> = read_json(&path, "curated records")?;
            let by_id = rows
                .into_iter()
                .map(|row| {
                    let id = row
                        .get("citation_id")
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    (id, row)
                })
                .collect();
            records.push((dataset, by_id));
        }
        Ok(Snapshot {
            version,
            metrics,
            sources,
            observations,
            records,
        })
    }
}

/// Which corpus directory an argument of `pipeline diff` names: an existing directory, else a name in
/// `out_dir` (a version, `current` or `previous`).
///
/// # Errors
/// [`BakeError::Diff`] saying what was looked for and what `out_dir` holds.
pub fn corpus_dir(out_dir: &Path, name: &str) -> Result<PathBuf, BakeError> {
    let direct = PathBuf::from(name);
    if direct.join(layout::MANIFEST).is_file() {
        return Ok(direct);
    }
    let inside = out_dir.join(name);
    if inside.join(layout::MANIFEST).is_file() {
        return Ok(inside);
    }
    let mut held: Vec<String> = std::fs::read_dir(out_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().join(layout::MANIFEST).is_file())
        .filter_map(|entry| entry.file_name().to_str().map(String::from))
        .collect();
    held.sort();
    Err(BakeError::Diff(format!(
        "`{name}` is neither a corpus directory nor a corpus in {}; it holds: {}",
        out_dir.display(),
        if held.is_empty() {
            "no corpus".to_string()
        } else {
            held.join(", ")
        }
    )))
}

/// The changes a bake publishes: against the corpus `current` of `out_dir` names, computed over the
/// staging directory `new_dir` that is to be published as `new_version`. Without a current corpus, or
/// with one that cannot be read (another format version), the changes say so in `note` and compare
/// nothing.
///
/// # Errors
/// [`BakeError::Corpus`] if the staging directory's own artifacts cannot be read.
pub fn against_current(
    out_dir: &Path,
    new_dir: &Path,
    new_version: CorpusVersion,
) -> Result<Changes, BakeError> {
    let Ok(current) = corpus::manifest::current_dir(out_dir) else {
        return Ok(Changes {
            to: Some(new_version),
            note: Some("first publication: no corpus was published before this one".into()),
            ..Changes::default()
        });
    };
    let old = match Snapshot::open(&current) {
        Ok(old) => old,
        Err(error) => {
            return Ok(Changes {
                to: Some(new_version),
                note: Some(format!(
                    "the corpus this one replaces ({}) could not be read, so nothing is compared: {error}",
                    current.display()
                )),
                ..Changes::default()
            });
        }
    };
    let new = Snapshot::read(new_dir, Some(new_version))?;
    Ok(diff(&old, &new))
}

/// The running counts of one indicator while the tables are merged.
#[derive(Debug, Default)]
struct IndicatorTally {
    values_revised: u64,
    flags_changed: u64,
    observations_added: u64,
    observations_removed: u64,
    old_years: BTreeSet<i32>,
    new_years: BTreeSet<i32>,
    old_countries: BTreeSet<String>,
    new_countries: BTreeSet<String>,
    /// The largest revisions so far, at most `2 × TOP_REVISIONS` between cuts.
    revisions: Vec<Revision>,
}

impl IndicatorTally {
    fn add_revision(&mut self, revision: Revision) {
        self.revisions.push(revision);
        if self.revisions.len() >= 2 * TOP_REVISIONS {
            self.cut(TOP_REVISIONS);
        }
    }

    fn cut(&mut self, keep: usize) {
        self.revisions.sort_by(Revision::largest_first);
        self.revisions.truncate(keep);
    }
}

/// Compares `old` with `new`: per source and indicator the revisions, additions and removals, per
/// curated dataset the records added, removed or changed. Deterministic: see [`corpus::changes`].
pub fn diff(old: &Snapshot, new: &Snapshot) -> Changes {
    let old_sources: HashMap<&str, &SourceRecord> = old
        .sources
        .iter()
        .map(|source| (source.id.as_str(), source))
        .collect();
    let new_sources: HashMap<&str, &SourceRecord> = new
        .sources
        .iter()
        .map(|source| (source.id.as_str(), source))
        .collect();
    // A series' own retrieval date (a file fetched for it) where it has one, else its source's.
    let series_retrieved = |snapshot: &Snapshot| -> HashMap<String, String> {
        snapshot
            .metrics
            .iter()
            .filter_map(|metric| Some((metric.id.clone(), metric.retrieved_at.clone()?)))
            .collect()
    };
    let (old_series, new_series) = (series_retrieved(old), series_retrieved(new));
    let retrieved = |series: &HashMap<String, String>,
                     sources: &HashMap<&str, &SourceRecord>,
                     observation: &Observation<'_>| {
        series
            .get(observation.indicator)
            .cloned()
            .or_else(|| {
                sources
                    .get(observation.source)
                    .map(|source| source.retrieved_at.clone())
            })
            .unwrap_or_default()
    };
    let cited = |observation: &Observation<'_>, is_old: bool| CitedValue {
        value: observation.value,
        citation_id: observation.citation_id.to_string(),
        vintage: observation.vintage.to_string(),
        retrieved_at: if is_old {
            retrieved(&old_series, &old_sources, observation)
        } else {
            retrieved(&new_series, &new_sources, observation)
        },
        flags: observation.flags.to_string(),
    };
    let mut tallies: BTreeMap<String, IndicatorTally> = BTreeMap::new();
    let (mut old_rows, mut new_rows) = (old.observations.rows(), new.observations.rows());
    let (mut left, mut right) = (old_rows.next(), new_rows.next());
    loop {
        let order =
            match (&left, &right) {
                (None, None) => break,
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some(before), Some(after)) => (before.indicator, before.country, before.year)
                    .cmp(&(after.indicator, after.country, after.year)),
            };
        match order {
            Ordering::Less => {
                let before = left.take().expect("an old row");
                let tally = tally_of(&mut tallies, before.indicator);
                tally.observations_removed += 1;
                note_row(tally, &before, true);
                left = old_rows.next();
            }
            Ordering::Greater => {
                let after = right.take().expect("a new row");
                let tally = tally_of(&mut tallies, after.indicator);
                tally.observations_added += 1;
                note_row(tally, &after, false);
                right = new_rows.next();
            }
            Ordering::Equal => {
                let (before, after) = (left.take().expect("old"), right.take().expect("new"));
                let tally = tally_of(&mut tallies, after.indicator);
                note_row(tally, &before, true);
                note_row(tally, &after, false);
                if before.flags != after.flags {
                    tally.flags_changed += 1;
                }
                if before.value != after.value {
                    tally.values_revised += 1;
                    tally.add_revision(Revision {
                        indicator: after.indicator.to_string(),
                        country: after.country.to_string(),
                        year: after.year,
                        relative_change: (before.value != 0.0)
                            .then(|| (after.value - before.value) / before.value.abs()),
                        old: cited(&before, true),
                        new: cited(&after, false),
                    });
                }
                left = old_rows.next();
                right = new_rows.next();
            }
        }
    }
    let source_of: HashMap<&str, &str> = old
        .metrics
        .iter()
        .chain(&new.metrics)
        .map(|metric| (metric.id.as_str(), metric.source_id.as_str()))
        .collect();
    let old_ids: BTreeSet<&str> = old
        .metrics
        .iter()
        .map(|metric| metric.id.as_str())
        .collect();
    let new_ids: BTreeSet<&str> = new
        .metrics
        .iter()
        .map(|metric| metric.id.as_str())
        .collect();
    let mut by_source: BTreeMap<String, SourceChanges> = BTreeMap::new();
    let all_source_ids: BTreeSet<&str> = old_sources
        .keys()
        .chain(new_sources.keys())
        .copied()
        .collect();
    for id in all_source_ids {
        let (before, after) = (old_sources.get(id), new_sources.get(id));
        by_source.insert(
            id.to_string(),
            SourceChanges {
                source: id.to_string(),
                old_vintage: before.map(|source| source.vintage.clone()),
                new_vintage: after.map(|source| source.vintage.clone()),
                old_retrieved_at: before.map(|source| source.retrieved_at.clone()),
                new_retrieved_at: after.map(|source| source.retrieved_at.clone()),
                values_revised: 0,
                observations_added: 0,
                observations_removed: 0,
                indicators_added: Vec::new(),
                indicators_dropped: Vec::new(),
                countries_added: Vec::new(),
                countries_dropped: Vec::new(),
                indicators: Vec::new(),
            },
        );
    }
    let mut source_countries: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> =
        BTreeMap::new();
    let mut top_revisions = Vec::new();
    let mut totals = ChangeTotals::default();
    let metric_ids: BTreeSet<&str> = old_ids.union(&new_ids).copied().collect();
    for id in metric_ids {
        // The new registry's source wins (chained last).
        let source_id = source_of[id].to_string();
        let tally = tallies.remove(id).unwrap_or_default();
        let Some(source) = by_source.get_mut(&source_id) else {
            continue;
        };
        let countries = source_countries.entry(source_id.clone()).or_default();
        countries.0.extend(tally.old_countries.iter().cloned());
        countries.1.extend(tally.new_countries.iter().cloned());
        source.values_revised += tally.values_revised;
        source.observations_added += tally.observations_added;
        source.observations_removed += tally.observations_removed;
        totals.values_revised += tally.values_revised;
        totals.flags_changed += tally.flags_changed;
        totals.observations_added += tally.observations_added;
        totals.observations_removed += tally.observations_removed;
        match (old_ids.contains(id), new_ids.contains(id)) {
            (false, true) => {
                source.indicators_added.push(id.to_string());
                totals.indicators_added += 1;
                continue;
            }
            (true, false) => {
                source.indicators_dropped.push(id.to_string());
                totals.indicators_dropped += 1;
                continue;
            }
            _ => {}
        }
        let mut tally = tally;
        tally.cut(TOP_REVISIONS);
        top_revisions.extend(tally.revisions.iter().cloned());
        let changes = IndicatorChanges {
            indicator: id.to_string(),
            values_revised: tally.values_revised,
            flags_changed: tally.flags_changed,
            observations_added: tally.observations_added,
            observations_removed: tally.observations_removed,
            years_added: tally
                .new_years
                .difference(&tally.old_years)
                .copied()
                .collect(),
            years_dropped: tally
                .old_years
                .difference(&tally.new_years)
                .copied()
                .collect(),
            series_added: tally
                .new_countries
                .difference(&tally.old_countries)
                .cloned()
                .collect(),
            series_dropped: tally
                .old_countries
                .difference(&tally.new_countries)
                .cloned()
                .collect(),
            largest_revisions: tally
                .revisions
                .into_iter()
                .take(REVISIONS_PER_INDICATOR)
                .collect(),
        };
        totals.series_added += changes.series_added.len() as u64;
        totals.series_dropped += changes.series_dropped.len() as u64;
        let changed = changes.values_revised
            + changes.flags_changed
            + changes.observations_added
            + changes.observations_removed
            > 0;
        if changed {
            source.indicators.push(changes);
        }
    }
    for (source_id, (before, after)) in source_countries {
        if let Some(source) = by_source.get_mut(&source_id) {
            source.countries_added = after.difference(&before).cloned().collect();
            source.countries_dropped = before.difference(&after).cloned().collect();
        }
    }
    let sources: Vec<SourceChanges> = by_source
        .into_values()
        .filter(|source| {
            source.old_vintage != source.new_vintage
                || source.old_retrieved_at != source.new_retrieved_at
                || !source.indicators.is_empty()
                || !source.indicators_added.is_empty()
                || !source.indicators_dropped.is_empty()
                || !source.countries_added.is_empty()
                || !source.countries_dropped.is_empty()
        })
        .collect();
    totals.sources_changed = sources.len() as u64;
    top_revisions.sort_by(Revision::largest_first);
    top_revisions.truncate(TOP_REVISIONS);
    let records = record_changes(old, new, &mut totals);
    Changes {
        from: old.version.clone(),
        to: new.version.clone(),
        note: None,
        totals,
        sources,
        top_revisions,
        records,
    }
}

fn tally_of<'a>(
    tallies: &'a mut BTreeMap<String, IndicatorTally>,
    indicator: &str,
) -> &'a mut IndicatorTally {
    if !tallies.contains_key(indicator) {
        tallies.insert(indicator.to_string(), IndicatorTally::default());
    }
    tallies.get_mut(indicator).expect("just inserted")
}

fn note_row(tally: &mut IndicatorTally, row: &Observation<'_>, old: bool) {
    let (years, countries) = if old {
        (&mut tally.old_years, &mut tally.old_countries)
    } else {
        (&mut tally.new_years, &mut tally.new_countries)
    };
    years.insert(row.year);
    if !countries.contains(row.country) {
        countries.insert(row.country.to_string());
    }
}

/// The curated records added, removed or changed, per dataset either corpus has.
fn record_changes(old: &Snapshot, new: &Snapshot, totals: &mut ChangeTotals) -> Vec<RecordChanges> {
    let empty = BTreeMap::new();
    fn of(
        snapshot: &Snapshot,
        dataset: RecordDataset,
    ) -> Option<&BTreeMap<String, serde_json::Value>> {
        snapshot
            .records
            .iter()
            .find(|(of, _)| *of == dataset)
            .map(|(_, records)| records)
    }
    let mut changes = Vec::new();
    for dataset in RecordDataset::ALL {
        let (before, after) = (of(old, dataset), of(new, dataset));
        if before.is_none() && after.is_none() {
            continue;
        }
        let (before, after) = (before.unwrap_or(&empty), after.unwrap_or(&empty));
        let added: Vec<String> = after
            .keys()
            .filter(|id| !before.contains_key(*id))
            .cloned()
            .collect();
        let removed: Vec<String> = before
            .keys()
            .filter(|id| !after.contains_key(*id))
            .cloned()
            .collect();
        let changed: Vec<String> = after
            .iter()
            .filter(|(id, record)| before.get(*id).is_some_and(|old| old != *record))
            .map(|(id, _)| id.clone())
            .collect();
        totals.records_added += added.len() as u64;
        totals.records_removed += removed.len() as u64;
        totals.records_changed += changed.len() as u64;
        if added.is_empty() && removed.is_empty() && changed.is_empty() {
            continue;
        }
        changes.push(RecordChanges {
            dataset: dataset.id().to_string(),
            old_records: before.len() as u64,
            new_records: after.len() as u64,
            added,
            removed,
            changed,
        });
    }
    changes
}
