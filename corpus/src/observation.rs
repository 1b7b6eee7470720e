//! The observation tables (`observations.arrow`, `aggregates.arrow`): one row per (indicator, entity,
//! year) with a value, sorted by (indicator, country, year), memory-mapped and read zero-copy.
//!
//! Columns, in order (the pipeline writes them with polars; [`ObservationTable::open`] checks them):
//!
//! | column | Arrow type | meaning |
//! |---|---|---|
//! | `indicator` | LargeUtf8 | metric id (`sp_dyn_le00_in`) |
//! | `country` | LargeUtf8 | ISO3, or aggregate code in `aggregates.arrow` |
//! | `year` | Int32 | calendar year |
//! | `value` | Float64 | the value in the metric's unit; never null (missing values are absent rows) |
//! | `source` | LargeUtf8 | source id (`wdi`) |
//! | `vintage` | LargeUtf8 | release of the value (`2026-07`) |
//! | `citation_id` | LargeUtf8 | `wb-sp-dyn-le00-in-mex-2024` |
//! | `flags` | LargeUtf8 | `|`-separated flags (`projection`), empty when none |
//! | `standard_error` | Float64, nullable | the publisher's standard error, where it gives one (WGI) |
//! | `source_count` | Int32, nullable | number of underlying data sources, where given (WGI) |
//!
//! # Invariants
//! The file is never modified after publishing (publishing swaps a pointer to a new directory), so the
//! memory map stays valid for the life of the process.

use std::{cmp::Ordering, fs::File, path::Path, sync::Arc};

use arrow::{
    array::{Array, AsArray, Float64Array, Int32Array, LargeStringArray, RecordBatch},
    buffer::Buffer,
    datatypes::{DataType, Float64Type, Int32Type},
    ipc::{
        convert::try_fb_to_schema, reader::FileDecoder, reader::read_footer_length, root_as_footer,
    },
};

use crate::CorpusError;

/// Column names, in file order.
pub const COLUMNS: [(&str, DataType); 10] = [
    ("indicator", DataType::LargeUtf8),
    ("country", DataType::LargeUtf8),
    ("year", DataType::Int32),
    ("value", DataType::Float64),
    ("source", DataType::LargeUtf8),
    ("vintage", DataType::LargeUtf8),
    ("citation_id", DataType::LargeUtf8),
    ("flags", DataType::LargeUtf8),
    ("standard_error", DataType::Float64),
    ("source_count", DataType::Int32),
];

/// The flag of a value that is a publisher's projection of a year not yet over when it published (IMF WEO:
/// years after "Estimates Start After" from the release year on), not an observation. Statistics that
/// stand for observed values leave these out; displays draw them dashed.
pub const PROJECTION_FLAG: &str = "projection";

/// The flag of a value the publisher marks as an estimate of a past year (IMF WEO: years after
/// "Estimates Start After" up to the year before the release). An estimate is an observation the
/// publisher will revise later: statistics keep it as observed, answers and displays say the flag
/// (drawn solid, labelled "estimate"/"estimación"), and SDMX writes it as `OBS_STATUS` `E`.
pub const ESTIMATE_FLAG: &str = "estimate";

/// The flag added beside [`PROJECTION_FLAG`] to a value of an older vintage for a year not over when that
/// vintage was published (WEO April 2019's values for 2019–2024) that the publisher's own
/// "Estimates Start After" did not mark (`0` or blank: Haiti's six per-capita and population series).
/// The value is a projection made at the vintage, not an observation.
pub const VINTAGE_PROJECTION_FLAG: &str = "vintage_projection";

/// What the `flags` column holds, as the analysts' files describe it.
pub const FLAGS_DESCRIPTION: &str = "|-separated flags: projection (a publisher's projection), vintage_projection (beside projection: a projection of an older vintage its publisher did not mark), estimate (an estimate of a past year, open to revision), modelled (modelled by the publisher where national data are missing), suspect_scale (a scale the bake found suspect); empty when the value is observed";

/// Whether `flags` (`|`-separated, as stored) hold `flag`.
pub fn has_flag(flags: &str, flag: &str) -> bool {
    flags.split('|').any(|present| present == flag)
}

/// Whether `flags` (`|`-separated, as stored) mark a projection (vintage projections included).
/// Estimates are not projections.
pub fn is_projection(flags: &str) -> bool {
    has_flag(flags, PROJECTION_FLAG)
}

/// Whether `flags` (`|`-separated, as stored) mark an estimate of a past year ([`ESTIMATE_FLAG`]).
pub fn is_estimate(flags: &str) -> bool {
    has_flag(flags, ESTIMATE_FLAG)
}

/// One row of an observation table, borrowed from the memory map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation<'a> {
    /// Metric id.
    pub indicator: &'a str,
    /// ISO3 or aggregate code.
    pub country: &'a str,
    /// Year.
    pub year: i32,
    /// Value in the metric's unit.
    pub value: f64,
    /// Source id.
    pub source: &'a str,
    /// Release of the value.
    pub vintage: &'a str,
    /// Citation id.
    pub citation_id: &'a str,
    /// `|`-separated flags, empty when none.
    pub flags: &'a str,
    /// Standard error, where the publisher gives one.
    pub standard_error: Option<f64>,
    /// Number of underlying sources, where the publisher gives it.
    pub source_count: Option<i32>,
}

/// A memory-mapped observation table.
#[derive(Debug, Clone)]
pub struct ObservationTable {
    batches: Vec<BatchColumns>,
    /// Row offset of each batch's first row; `batch_starts[i+1] - batch_starts[i]` rows in batch `i`.
    batch_starts: Vec<usize>,
}

#[derive(Debug, Clone)]
struct BatchColumns {
    indicator: LargeStringArray,
    country: LargeStringArray,
    year: Int32Array,
    value: Float64Array,
    source: LargeStringArray,
    vintage: LargeStringArray,
    citation_id: LargeStringArray,
    flags: LargeStringArray,
    standard_error: Float64Array,
    source_count: Int32Array,
}

/// A shared memory map, as the owner of the bytes arrow reads.
struct SharedMap(Arc<memmap2::Mmap>);

impl AsRef<[u8]> for SharedMap {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl ObservationTable {
    /// Memory-maps the Arrow IPC file at `path` and checks its columns against [`COLUMNS`].
    ///
    /// # Errors
    /// [`CorpusError::Io`] if the file cannot be opened, [`CorpusError::Arrow`] if it is not an Arrow IPC
    /// file, [`CorpusError::Schema`] if a column is missing or of another type.
    pub fn open(path: &Path) -> Result<Self, CorpusError> {
        let file = File::open(path).map_err(|error| CorpusError::io(path, error))?;
        // SAFETY: published artifacts are never modified in place (see the module's invariants).
        let mmap = Arc::new(
            unsafe { memmap2::Mmap::map(&file) }.map_err(|error| CorpusError::io(path, error))?,
        );
        let buffer = Buffer::from(bytes::Bytes::from_owner(SharedMap(mmap.clone())));
        let batches = decode_batches(path, &buffer)?;
        // Decoding validated every string column, which read the whole file into the process' resident
        // set. Queries touch a few pages each, so the pages go back to the page cache (the kernel
        // faults them in again from there on the next read): a 50 MB table then costs its reader only
        // what it reads.
        #[cfg(unix)]
        // SAFETY: a read-only mapping of a published, never modified file: the pages are read back from
        // the file as they were, and no Rust reference observes a change.
        let _ = unsafe { mmap.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        let mut columns = Vec::with_capacity(batches.len());
        let mut batch_starts = vec![0];
        for batch in &batches {
            columns.push(BatchColumns::new(path, batch)?);
            batch_starts.push(batch_starts.last().copied().unwrap_or(0) + batch.num_rows());
        }
        Ok(ObservationTable {
            batches: columns,
            batch_starts,
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.batch_starts.last().copied().unwrap_or(0)
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row at `row_idx`.
    ///
    /// # Panics
    /// If `row_idx >= self.len()`.
    pub fn row(&self, row_idx: usize) -> Observation<'_> {
        let (batch, local) = self.locate(row_idx);
        batch.row(local)
    }

    /// Every row, in table order.
    pub fn rows(&self) -> impl Iterator<Item = Observation<'_>> {
        (0..self.len()).map(|row_idx| self.row(row_idx))
    }

    /// The row range holding `indicator` for `country`, ordered by year (empty if none).
    pub fn series(&self, indicator: &str, country: &str) -> std::ops::Range<usize> {
        let key = (indicator, country);
        let start = self.partition_point(|row_idx| self.key(row_idx) < key);
        // A series is a few hundred rows at most: its end is found by galloping from its start (steps
        // of 1, 2, 4… rows, then a search within the last step), not by a second search of the table.
        let (mut low, mut step) = (start, 1);
        let high = loop {
            let probe = start + step - 1;
            if probe >= self.len() || self.key(probe) != key {
                break probe.min(self.len());
            }
            low = probe + 1;
            step *= 2;
        };
        // Rows `start..low` hold `key`; rows from `high` on do not.
        let (mut low, mut high) = (low, high);
        while low < high {
            let middle = low + (high - low) / 2;
            if self.key(middle) == key {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        start..low
    }

    /// The rows of `range` (a range of this table, such as [`ObservationTable::series`]), in order:
    /// the batch of each row is found by stepping along, not searched for again per row.
    ///
    /// # Panics
    /// If `range` ends past the table.
    pub fn rows_of(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = Observation<'_>> + Clone + '_ {
        assert!(
            range.end <= self.len() || range.is_empty(),
            "rows past the table"
        );
        let mut batch_idx = if range.is_empty() {
            0
        } else {
            self.batch_starts
                .partition_point(|&start| start <= range.start)
                - 1
        };
        range.map(move |row_idx| {
            while self.batch_starts[batch_idx + 1] <= row_idx {
                batch_idx += 1;
            }
            self.batches[batch_idx].row(row_idx - self.batch_starts[batch_idx])
        })
    }

    /// The row range holding `indicator`, ordered by (country, year).
    pub fn indicator_rows(&self, indicator: &str) -> std::ops::Range<usize> {
        let start = self.partition_point(|row_idx| self.key(row_idx).0 < indicator);
        let end = self.partition_point(|row_idx| self.key(row_idx).0 <= indicator);
        start..end
    }

    /// Every observation of `indicator` in `year`, by country code: one pass over the indicator's year
    /// column, no per-country search.
    pub fn cross_section(&self, indicator: &str, year: i32) -> Vec<Observation<'_>> {
        self.indicator_rows(indicator)
            .filter(|&row_idx| self.year(row_idx) == year)
            .map(|row_idx| self.row(row_idx))
            .collect()
    }

    /// The observation of `indicator` for `country` in `year`, if the corpus has one.
    pub fn find(&self, indicator: &str, country: &str, year: i32) -> Option<Observation<'_>> {
        let range = self.series(indicator, country);
        let (mut low, mut high) = (range.start, range.end);
        while low < high {
            let middle = low + (high - low) / 2;
            match self.year(middle).cmp(&year) {
                Ordering::Equal => return Some(self.row(middle)),
                Ordering::Less => low = middle + 1,
                Ordering::Greater => high = middle,
            }
        }
        None
    }

    /// The (indicator, country) of a row, read without materialising the rest of it (binary searches
    /// touch only these two columns).
    fn key(&self, row_idx: usize) -> (&str, &str) {
        let (batch, local) = self.locate(row_idx);
        (batch.indicator.value(local), batch.country.value(local))
    }

    /// The year of a row.
    fn year(&self, row_idx: usize) -> i32 {
        let (batch, local) = self.locate(row_idx);
        batch.year.value(local)
    }

    /// The batch holding `row_idx` and the row's index within it.
    fn locate(&self, row_idx: usize) -> (&BatchColumns, usize) {
        let batch_idx = self.batch_starts.partition_point(|&start| start <= row_idx) - 1;
        (
            &self.batches[batch_idx],
            row_idx - self.batch_starts[batch_idx],
        )
    }

    /// First row index for which `is_before` is false, assuming the table is partitioned by it.
    fn partition_point(&self, is_before: impl Fn(usize) -> bool) -> usize {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = low + (high - low) / 2;
            if is_before(middle) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        low
    }
}

impl BatchColumns {
    fn new(path: &Path, batch: &RecordBatch) -> Result<Self, CorpusError> {
        let column = |index: usize| -> Result<&Arc<dyn Array>, CorpusError> {
            let (name, expected) = &COLUMNS[index];
            let schema = batch.schema();
            let found = schema
                .field_with_name(name)
                .map(|field| field.data_type().clone());
            match found {
                Ok(found) if &found == expected => {
                    Ok(batch.column_by_name(name).expect("field exists"))
                }
                Ok(found) => Err(schema_error(path, name, expected, &found.to_string())),
                Err(_) => Err(schema_error(path, name, expected, "missing")),
            }
        };
        let string = |index| column(index).map(|array| array.as_string::<i64>().clone());
        Ok(BatchColumns {
            indicator: string(0)?,
            country: string(1)?,
            year: column(2)?.as_primitive::<Int32Type>().clone(),
            value: column(3)?.as_primitive::<Float64Type>().clone(),
            source: string(4)?,
            vintage: string(5)?,
            citation_id: string(6)?,
            flags: string(7)?,
            standard_error: column(8)?.as_primitive::<Float64Type>().clone(),
            source_count: column(9)?.as_primitive::<Int32Type>().clone(),
        })
    }

    fn row(&self, row_idx: usize) -> Observation<'_> {
        Observation {
            indicator: self.indicator.value(row_idx),
            country: self.country.value(row_idx),
            year: self.year.value(row_idx),
            value: self.value.value(row_idx),
            source: self.source.value(row_idx),
            vintage: self.vintage.value(row_idx),
            citation_id: self.citation_id.value(row_idx),
            flags: self.flags.value(row_idx),
            standard_error: self
                .standard_error
                .is_valid(row_idx)
                .then(|| self.standard_error.value(row_idx)),
            source_count: self
                .source_count
                .is_valid(row_idx)
                .then(|| self.source_count.value(row_idx)),
        }
    }
}

/// A [`CorpusError::Schema`] for `column` of the table at `path`.
pub(crate) fn schema_error(
    path: &Path,
    column: &'static str,
    expected: &DataType,
    found: &str,
) -> CorpusError {
    CorpusError::Schema {
        path: path.to_path_buf(),
        column,
        expected: expected.to_string(),
        found: found.into(),
    }
}

/// Decodes every record batch of an IPC file held in `buffer`, without copying column data.
fn decode_batches(path: &Path, buffer: &Buffer) -> Result<Vec<RecordBatch>, CorpusError> {
    let arrow_error = |message: String| CorpusError::Arrow {
        path: path.to_path_buf(),
        message,
    };
    if buffer.len() < 10 {
        return Err(arrow_error(format!(
            "{} bytes is too short for an IPC file",
            buffer.len()
        )));
    }
    let trailer_start = buffer.len() - 10;
    let trailer: [u8; 10] = buffer[trailer_start..].try_into().expect("10 bytes");
    let footer_len = read_footer_length(trailer).map_err(|error| arrow_error(error.to_string()))?;
    let footer_start = trailer_start
        .checked_sub(footer_len)
        .ok_or_else(|| arrow_error("footer longer than file".into()))?;
    let footer = root_as_footer(&buffer[footer_start..trailer_start])
        .map_err(|error| arrow_error(error.to_string()))?;
    let schema = try_fb_to_schema(
        footer
            .schema()
            .ok_or_else(|| arrow_error("footer has no schema".into()))?,
    )
    .map_err(|error| arrow_error(error.to_string()))?;
    let mut decoder =
        FileDecoder::new(Arc::new(schema), footer.version()).with_require_alignment(true);
    for block in footer.dictionaries().iter().flatten() {
        let block_len = block.bodyLength() as usize + block.metaDataLength() as usize;
        let data = buffer.slice_with_length(block.offset() as usize, block_len);
        decoder
            .read_dictionary(block, &data)
            .map_err(|error| arrow_error(error.to_string()))?;
    }
    let blocks: Vec<_> = footer.recordBatches().iter().flatten().collect();
    let decode = |blocks: &[&arrow::ipc::Block]| -> Result<Vec<RecordBatch>, CorpusError> {
        let mut batches = Vec::with_capacity(blocks.len());
        for block in blocks {
            let block_len = block.bodyLength() as usize + block.metaDataLength() as usize;
            let data = buffer.slice_with_length(block.offset() as usize, block_len);
            if let Some(batch) = decoder
                .read_record_batch(block, &data)
                .map_err(|error| arrow_error(error.to_string()))?
            {
                batches.push(batch);
            }
        }
        Ok(batches)
    };
    // Decoding validates every string column (offsets and UTF-8), which reads the whole file: the
    // batches are shared out among the cores in order, and put back together in that order.
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_DECODE_THREADS);
    if threads == 1 || blocks.len() < 2 * threads {
        return decode(&blocks);
    }
    let per_thread = blocks.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let parts: Vec<_> = blocks
            .chunks(per_thread)
            .map(|part| scope.spawn(move || decode(part)))
            .collect();
        let mut batches = Vec::with_capacity(blocks.len());
        for part in parts {
            // A decoder's panic (a damaged file) goes on in this thread, as it would without threads.
            batches.extend(
                part.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?,
            );
        }
        Ok(batches)
    })
}

/// The most threads that decode an observation table at once.
const MAX_DECODE_THREADS: usize = 4;
