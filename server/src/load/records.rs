//! The curated record tables other than projects (`regulation.json`, `institutions.json`,
//! `financing.json`, `events.json`), read on first use and indexed by citation id, and the lookup of any
//! curated record's citation by its id's prefix.

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
    /// The table of artifact `name` in `dir`, read and indexed on the first call.
    ///
    /// # Errors
    /// The read error's message, on every call.
    pub fn get(&self, dir: &Path, name: &str) -> Result<&RecordTable<T>, String> {
        self.0
            .get_or_init(|| {
                let records: Vec<T> =
                    read_json(&dir.join(name), T::DATASET).map_err(|error| error.to_string())?;
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

/// The curated datasets and the citation-id prefixes of their records, with an example id each.
pub const RECORD_PREFIXES: [(&str, &str, &str); 11] = [
    ("wbproj-", "projects", "wbproj-p127837"),
    ("gef-", "projects", "gef-10450"),
    (
        "cclw-",
        "regulation",
        "cclw-arg-law-25-019-declaring-a-national-interest-to",
    ),
    ("nso-", "institutions", "nso-ar-nso-indec"),
    ("govdir-", "institutions", "govdir-q9149472"),
    (
        "wbagency-",
        "institutions",
        "wbagency-arg-national-ministry-of-health",
    ),
    (
        "crsflow-",
        "financing",
        "crsflow-bol-germany-oda-grants-energy",
    ),
    ("wbinstrument-", "financing", "wbinstrument-bol-ipf-energia"),
    (
        "geffund-",
        "financing",
        "geffund-bol-gef-trust-fund-medio-ambiente",
    ),
    ("event-", "events", "event-wbproj-p127837-approved"),
    ("ncei_eq-", "events", "ncei_eq-2016-04-16-ecu"),
];

/// The dataset and example id of a record citation id's prefix, if it has a record prefix.
pub fn record_prefix(citation_id: &str) -> Option<(&'static str, &'static str, &'static str)> {
    RECORD_PREFIXES
        .into_iter()
        .find(|(prefix, _, _)| citation_id.starts_with(prefix))
}
