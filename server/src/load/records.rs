//! The curated record tables other than projects (`regulation.json`, `institutions.json`,
//! `financing.json`, `events.json`), read on first use and indexed by citation id. Which dataset a record
//! citation id names is [`corpus::RecordDataset::of_citation_id`]'s to say.

use std::{collections::HashMap, path::Path, sync::OnceLock};

use corpus::{CitedRecord, read_json};

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
    /// read and indexed on the first call.
    ///
    /// # Errors
    /// The read error's message, on every call.
    pub fn get(&self, dir: &Path) -> Result<&RecordTable<T>, String> {
        self.0
            .get_or_init(|| {
                let path = dir.join(T::DATASET.artifact());
                let records: Vec<T> =
                    read_json(&path, T::DATASET.id()).map_err(|error| error.to_string())?;
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
