//! Reading the curated record tables ([`read_records`] serves every one, projects included), and the
//! lazily read, indexed tables other than projects (`regulation.json`, `institutions.json`,
//! `financing.json`, `events.json`), read on first use, completed with the provenance their sources declare
//! once (`record_sources.json`) and indexed by citation id. Which dataset a record
//! citation id names is [`corpus::RecordDataset::of_citation_id`]'s to say.

use std::{collections::HashMap, path::Path, sync::OnceLock};

use corpus::{CitedRecord, RecordSource, read_json};

/// Reads the records of `T`'s dataset in `dir` and fills each one's publisher, licence and attribution
/// from its source's entry of `record_sources.json` (`sources`).
///
/// # Errors
/// The read error's message, or one naming a record whose source `record_sources.json` lacks.
pub fn read_records<T: CitedRecord + serde::de::DeserializeOwned>(
    dir: &Path,
    sources: &[RecordSource],
) -> Result<Vec<T>, String> {
    let path = dir.join(T::DATASET.artifact());
    let mut records: Vec<T> =
        read_json(&path, T::DATASET.id()).map_err(|error| error.to_string())?;
    let by_id: HashMap<&str, &RecordSource> = sources
        .iter()
        .map(|source| (source.id.as_str(), source))
        .collect();
    for record in &mut records {
        let id = record.source_id();
        let source = by_id.get(id).copied().ok_or_else(|| {
            format!(
                "{}: record {} names source `{id}`, which {} does not declare",
                path.display(),
                record.citation_id(),
                corpus::layout::RECORD_SOURCES
            )
        })?;
        record.fill_provenance(source);
    }
    Ok(records)
}

/// One record table and its index by citation id.
#[derive(Debug)]
pub struct RecordTable<T> {
    /// The records in the bake's order.
    pub records: Vec<T>,
    by_id: HashMap<String, usize>,
}

impl<T: CitedRecord> RecordTable<T> {
    /// The record whose citation id is exactly `citation_id`.
    pub fn get(&self, citation_id: &str) -> Option<&T> {
        self.by_id.get(citation_id).map(|at| &self.records[*at])
    }
}

/// Any curated record, its type erased: its citation and its fields, for code that reads every dataset
/// alike (`Corpus::record`).
pub trait AnyRecord {
    /// What `citations.records[citation_id]` of an answer holds.
    fn citation(&self) -> corpus::RecordCitation;
    /// The record as its table stores it (provenance filled), a JSON object.
    fn fields(&self) -> serde_json::Value;
}

impl<T: CitedRecord + serde::Serialize> AnyRecord for T {
    fn citation(&self) -> corpus::RecordCitation {
        CitedRecord::citation(self)
    }

    fn fields(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// A lazily read record table.
#[derive(Debug)]
pub struct LazyTable<T>(OnceLock<Result<RecordTable<T>, String>>);

impl<T> Default for LazyTable<T> {
    fn default() -> Self {
        LazyTable(OnceLock::new())
    }
}

impl<T: CitedRecord + serde::de::DeserializeOwned> LazyTable<T> {
    /// The table of the corpus in `dir` (its dataset's artifact, [`corpus::RecordDataset::artifact`]),
    /// read, completed with its sources' provenance ([`read_records`]) and indexed on the first call.
    ///
    /// # Errors
    /// The read error's message, on every call.
    pub fn get(&self, dir: &Path, sources: &[RecordSource]) -> Result<&RecordTable<T>, String> {
        self.0
            .get_or_init(|| {
                let records: Vec<T> = read_records(dir, sources)?;
                let by_id = records
                    .iter()
                    .enumerate()
                    .map(|(at, record)| (record.citation_id().to_string(), at))
                    .collect();
                Ok(RecordTable { records, by_id })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}
