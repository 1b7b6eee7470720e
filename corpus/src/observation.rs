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

use std::{
    cmp::Ordering,
    fs::File,
    path::Path,
    sync::{Arc, OnceLock},
};

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
    // Most values carry no flag: their empty text is answered without splitting it.
    !flags.is_empty() && flags.split('|').any(|present| present == flag)
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

/// A memory-mapped observation table whose record batches are decoded (and their strings validated) on
/// first use, each on its own: opening one reads only the file's footer and, per batch, its row count and
/// the keys of its first and last rows, so a lookup decodes the one batch (of ~5) that holds its key.
/// [`ObservationTable::decode_all`] decodes the rest ahead of need.
#[derive(Debug)]
pub struct ObservationTable {
    path: std::path::PathBuf,
    map: Arc<memmap2::Mmap>,
    buffer: Buffer,
    decoder: FileDecoder,
    /// Each non-empty batch's block in the file, in file order.
    blocks: Vec<arrow::ipc::Block>,
    /// Each batch's columns, or why they cannot be decoded (kept: decoded once).
    batches: Vec<OnceLock<Result<BatchColumns, String>>>,
    /// Row offset of each batch's first row; `batch_starts[i+1] - batch_starts[i]` rows in batch `i`.
    batch_starts: Vec<usize>,
    /// The (indicator, country) of each batch's first and last row.
    bounds: Vec<[(Box<str>, Box<str>); 2]>,
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

/// The (indicator, country) of a batch's first and last rows.
type BatchBounds = [(Box<str>, Box<str>); 2];

/// A shared memory map, as the owner of the bytes arrow reads.
struct SharedMap(Arc<memmap2::Mmap>);

impl AsRef<[u8]> for SharedMap {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl ObservationTable {
    /// Memory-maps the Arrow IPC file at `path`, checks its columns against [`COLUMNS`] and decodes every
    /// batch now (what a one-off reader such as the vintage diff wants: every error at once).
    ///
    /// # Errors
    /// As [`ObservationTable::map`] and [`ObservationTable::decode_all`].
    pub fn open(path: &Path) -> Result<Self, CorpusError> {
        let table = ObservationTable::map(path)?;
        table.decode_all()?;
        Ok(table)
    }

    /// Memory-maps the Arrow IPC file at `path` and reads its footer, its schema (checked against
    /// [`COLUMNS`]) and each batch's outline (its row count and the keys of its first and last rows, read
    /// from the batch's metadata and two string columns' first and last values); the batches themselves
    /// are decoded on first use.
    ///
    /// # Errors
    /// [`CorpusError::Io`] if the file cannot be opened, [`CorpusError::Arrow`] if it is not an Arrow IPC
    /// file or a batch's outline cannot be read, [`CorpusError::Schema`] if a column is missing or of
    /// another type.
    pub fn map(path: &Path) -> Result<Self, CorpusError> {
        let arrow_error = |message: String| CorpusError::Arrow {
            path: path.to_path_buf(),
            message,
        };
        let file = File::open(path).map_err(|error| CorpusError::io(path, error))?;
        // SAFETY: published artifacts are never modified in place (see the module's invariants).
        let map = Arc::new(
            unsafe { memmap2::Mmap::map(&file) }.map_err(|error| CorpusError::io(path, error))?,
        );
        let buffer = Buffer::from(bytes::Bytes::from_owner(SharedMap(map.clone())));
        if buffer.len() < 10 {
            return Err(arrow_error(format!(
                "{} bytes is too short for an IPC file",
                buffer.len()
            )));
        }
        let trailer_start = buffer.len() - 10;
        let trailer: [u8; 10] = buffer[trailer_start..].try_into().expect("10 bytes");
        let footer_len =
            read_footer_length(trailer).map_err(|error| arrow_error(error.to_string()))?;
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
        for (name, expected) in &COLUMNS {
            match schema.field_with_name(name) {
                Ok(field) if field.data_type() == expected => {}
                Ok(field) => {
                    return Err(schema_error(
                        path,
                        name,
                        expected,
                        &field.data_type().to_string(),
                    ));
                }
                Err(_) => return Err(schema_error(path, name, expected, "missing")),
            }
        }
        let key_buffers = KeyBuffers::of(&schema);
        let mut decoder =
            FileDecoder::new(Arc::new(schema), footer.version()).with_require_alignment(true);
        let within = |block: &arrow::ipc::Block| {
            let end = (block.offset() as u64)
                .checked_add(block.metaDataLength() as u64)
                .and_then(|end| end.checked_add(block.bodyLength() as u64));
            // A block's metadata holds at least its length (and, since Arrow 0.15, a marker before it).
            if block.offset() >= 0
                && block.metaDataLength() >= 8
                && block.bodyLength() >= 0
                && end.is_some_and(|end| end <= footer_start as u64)
            {
                Ok(())
            } else {
                Err(arrow_error("a block past the file's end".into()))
            }
        };
        for block in footer.dictionaries().iter().flatten() {
            within(block)?;
            decoder
                .read_dictionary(block, &block_data(&buffer, block))
                .map_err(|error| arrow_error(error.to_string()))?;
        }
        let mut table = ObservationTable {
            path: path.to_path_buf(),
            map,
            // The footer borrows `buffer`; the table holds another handle on the same bytes.
            buffer: buffer.clone(),
            decoder,
            blocks: Vec::new(),
            batches: Vec::new(),
            batch_starts: vec![0],
            bounds: Vec::new(),
        };
        for block in footer.recordBatches().iter().flatten() {
            within(block)?;
            let data = block_data(&table.buffer, block);
            let outline = key_buffers
                .as_ref()
                .ok_or(OutlineError::Unsupported)
                .and_then(|keys| outline(&data, block.metaDataLength() as usize, keys));
            let (rows, bounds, decoded) = match outline {
                Ok(Some((rows, bounds))) => (rows, bounds, None),
                Ok(None) => continue,
                // A layout the outline does not read (a compressed body): the batch is decoded now.
                Err(OutlineError::Unsupported) => {
                    let columns = table.decode_block(block).map_err(arrow_error)?;
                    let Some(bounds) = columns.bounds() else {
                        continue;
                    };
                    (columns.indicator.len(), bounds, Some(columns))
                }
                Err(OutlineError::Damaged(message)) => {
                    return Err(arrow_error(format!(
                        "record batch {}: {message}",
                        table.blocks.len()
                    )));
                }
            };
            table.blocks.push(*block);
            let cell = OnceLock::new();
            if let Some(columns) = decoded {
                let _ = cell.set(Ok(columns));
            }
            table.batches.push(cell);
            let end = table
                .len()
                .checked_add(rows)
                .ok_or_else(|| arrow_error("more rows than an index can count".into()))?;
            table.batch_starts.push(end);
            table.bounds.push(bounds);
        }
        Ok(table)
    }

    /// Decodes every batch not decoded yet, in order (a reader that needs a batch meanwhile decodes it,
    /// or waits for the decode under way): ~11 ms on one core for the default corpus' two tables.
    ///
    /// # Errors
    /// [`CorpusError::Arrow`] naming the first batch that cannot be decoded.
    pub fn decode_all(&self) -> Result<(), CorpusError> {
        (0..self.batches.len()).try_for_each(|batch_idx| self.try_batch(batch_idx).map(|_| ()))
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
    /// If `row_idx >= self.len()`, or its batch cannot be decoded (see [`ObservationTable::batch`]).
    pub fn row(&self, row_idx: usize) -> Observation<'_> {
        let (batch, local) = self.locate(row_idx);
        batch.row(local)
    }

    /// Every row, in table order.
    pub fn rows(&self) -> impl Iterator<Item = Observation<'_>> {
        self.rows_of(0..self.len())
    }

    /// The row range holding `indicator` for `country`, ordered by year (empty if none).
    pub fn series(&self, indicator: &str, country: &str) -> std::ops::Range<usize> {
        let key = (indicator, country);
        let start = self.partition_point(|row_key| row_key < key);
        // A series is a few hundred rows at most: its end is found by galloping from its start (steps
        // of 1, 2, 4… rows, then a search within the last step), not by a second search of the table.
        // Each batch is galloped through on its own: a series that ends where its batch ends is told
        // from the next batch's first key (known without decoding it).
        let mut end = start;
        while end < self.len() && self.key(end) == key {
            let batch_end = self.batch_starts[self.batch_idx(end) + 1];
            // Rows before `low` hold `key`; rows from `high` on, within the batch, do not.
            let (mut low, mut high, mut step) = (end + 1, batch_end, 1);
            while end + step < batch_end {
                if self.key(end + step) != key {
                    high = end + step;
                    break;
                }
                low = end + step + 1;
                step *= 2;
            }
            while low < high {
                let middle = low + (high - low) / 2;
                if self.key(middle) == key {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            end = low;
            if end < batch_end {
                break;
            }
        }
        start..end
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
            self.batch(batch_idx)
                .row(row_idx - self.batch_starts[batch_idx])
        })
    }

    /// The row range holding `indicator`, ordered by (country, year).
    pub fn indicator_rows(&self, indicator: &str) -> std::ops::Range<usize> {
        let start = self.partition_point(|(row_indicator, _)| row_indicator < indicator);
        let end = self.partition_point(|(row_indicator, _)| row_indicator <= indicator);
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
        let batch_idx = self.batch_idx(row_idx);
        let [first, last] = &self.bounds[batch_idx];
        // A batch's first and last keys are known without decoding it.
        if row_idx == self.batch_starts[batch_idx] {
            return (&first.0, &first.1);
        }
        if row_idx + 1 == self.batch_starts[batch_idx + 1] {
            return (&last.0, &last.1);
        }
        self.batch(batch_idx)
            .key(row_idx - self.batch_starts[batch_idx])
    }

    /// The year of a row.
    fn year(&self, row_idx: usize) -> i32 {
        let (batch, local) = self.locate(row_idx);
        batch.year.value(local)
    }

    /// The batch holding `row_idx` and the row's index within it.
    fn locate(&self, row_idx: usize) -> (&BatchColumns, usize) {
        let batch_idx = self.batch_idx(row_idx);
        (
            self.batch(batch_idx),
            row_idx - self.batch_starts[batch_idx],
        )
    }

    /// The batch holding `row_idx`.
    fn batch_idx(&self, row_idx: usize) -> usize {
        self.batch_starts.partition_point(|&start| start <= row_idx) - 1
    }

    /// The first row whose key `is_before` does not hold for, the table being partitioned by it (sorted
    /// by key). The batch holding that row is found from the batches' bounds, and only it is decoded.
    fn partition_point(&self, is_before: impl Fn((&str, &str)) -> bool) -> usize {
        let as_key = |(indicator, country): &(Box<str>, Box<str>)| is_before((indicator, country));
        let batch_idx = self.bounds.partition_point(|[_, last]| as_key(last));
        let Some([first, _]) = self.bounds.get(batch_idx) else {
            return self.len();
        };
        if !as_key(first) {
            return self.batch_starts[batch_idx];
        }
        let batch = self.batch(batch_idx);
        let (mut low, mut high) = (0, batch.indicator.len());
        while low < high {
            let middle = low + (high - low) / 2;
            if is_before(batch.key(middle)) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        self.batch_starts[batch_idx] + low
    }

    /// Batch `batch_idx`'s columns, decoded now if no one has yet.
    ///
    /// # Panics
    /// If the batch cannot be decoded (a file damaged after publication: `server check` and every
    /// reload decode each batch first); a tool call's panic is answered `-32603` and the server goes on.
    fn batch(&self, batch_idx: usize) -> &BatchColumns {
        self.try_batch(batch_idx)
            .unwrap_or_else(|error| panic!("a published observation table: {error}"))
    }

    /// Batch `batch_idx`'s columns, decoded now if no one has yet, or why they cannot be.
    fn try_batch(&self, batch_idx: usize) -> Result<&BatchColumns, CorpusError> {
        self.batches[batch_idx]
            .get_or_init(|| {
                let block = &self.blocks[batch_idx];
                let decoded = self.decode_block(block);
                // Decoding validated the batch's strings, which read its bytes into the process' resident
                // set. Queries touch a few pages each, so the pages go back to the page cache (the kernel
                // faults them in again from there on the next read): a 70 MB table then costs its
                // reader only what it reads.
                #[cfg(unix)]
                // SAFETY: a read-only mapping of a published, never modified file: the pages are read
                // back from the file as they were, and no Rust reference observes a change.
                let _ = unsafe {
                    self.map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        block.offset() as usize,
                        block.metaDataLength() as usize + block.bodyLength() as usize,
                    )
                };
                decoded
            })
            .as_ref()
            .map_err(|message| CorpusError::Arrow {
                path: self.path.clone(),
                message: format!("record batch {batch_idx}: {message}"),
            })
    }

    /// Decodes the batch at `block` (validating its strings: offsets and UTF-8).
    fn decode_block(&self, block: &arrow::ipc::Block) -> Result<BatchColumns, String> {
        let batch = self
            .decoder
            .read_record_batch(block, &block_data(&self.buffer, block))
            .map_err(|error| error.to_string())?
            .ok_or_else(|| "the block holds no record batch".to_string())?;
        BatchColumns::new(&self.path, &batch).map_err(|error| error.to_string())
    }
}

/// Where the key columns' (indicator, country) offsets and values are among a batch's buffers.
#[derive(Debug, Clone, Copy)]
struct KeyBuffers {
    /// The indices of the indicator's offsets and values buffers.
    indicator: [usize; 2],
    /// The indices of the country's offsets and values buffers.
    country: [usize; 2],
}

impl KeyBuffers {
    /// The key columns' buffers in a batch of `schema`, or `None` when a column before them is of a
    /// type whose buffer count this does not know.
    fn of(schema: &arrow::datatypes::Schema) -> Option<KeyBuffers> {
        let mut first_buffer = Vec::with_capacity(schema.fields().len());
        let mut next = 0;
        for field in schema.fields() {
            first_buffer.push(next);
            next += match field.data_type() {
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary => {
                    3
                }
                data_type if data_type.is_primitive() => 2,
                _ => break,
            };
        }
        // A string column's buffers: validity, offsets, values.
        let strings = |name: &str| {
            let start = *first_buffer.get(schema.index_of(name).ok()?)?;
            Some([start + 1, start + 2])
        };
        Some(KeyBuffers {
            indicator: strings("indicator")?,
            country: strings("country")?,
        })
    }
}

/// Why a batch's outline could not be read.
enum OutlineError {
    /// The batch is laid out in a way the outline does not read (a compressed body).
    Unsupported,
    /// The batch's metadata or key columns are damaged.
    Damaged(String),
}

/// A batch's row count and the keys of its first and last rows (`None` for an empty batch), read from
/// the IPC message in `data` (its metadata, `metadata_len` bytes, then its body) without decoding it:
/// four offsets and four short strings of the key columns, bounds- and UTF-8-checked.
fn outline(
    data: &[u8],
    metadata_len: usize,
    keys: &KeyBuffers,
) -> Result<Option<(usize, BatchBounds)>, OutlineError> {
    let damaged = |what: &str| OutlineError::Damaged(what.to_string());
    let metadata = data
        .get(..metadata_len)
        .ok_or_else(|| damaged("shorter than its metadata"))?;
    // The message's flatbuffer follows the continuation marker and its length (or, in files of before
    // Arrow 0.15, the length alone).
    let message = if metadata.starts_with(&[0xff; 4]) {
        metadata.get(8..)
    } else {
        metadata.get(4..)
    }
    .ok_or_else(|| damaged("metadata too short"))?;
    let message = arrow::ipc::root_as_message(message)
        .map_err(|error| OutlineError::Damaged(error.to_string()))?;
    // A message without a header holds no rows (arrow's decoder skips it too).
    if message.header_type() == arrow::ipc::MessageHeader::NONE {
        return Ok(None);
    }
    let batch = message
        .header_as_record_batch()
        .ok_or_else(|| damaged("not a record batch"))?;
    if batch.compression().is_some() {
        return Err(OutlineError::Unsupported);
    }
    let rows = usize::try_from(batch.length()).map_err(|_| damaged("a negative row count"))?;
    if rows == 0 {
        return Ok(None);
    }
    let buffers = batch.buffers().ok_or_else(|| damaged("no buffers"))?;
    let body = &data[metadata_len..];
    let buffer = |buffer_idx: usize| -> Result<&[u8], OutlineError> {
        if buffer_idx >= buffers.len() {
            return Err(damaged("fewer buffers than columns"));
        }
        let buffer = buffers.get(buffer_idx);
        let start = usize::try_from(buffer.offset()).ok();
        let len = usize::try_from(buffer.length()).ok();
        start
            .zip(len)
            .and_then(|(start, len)| body.get(start..start.checked_add(len)?))
            .ok_or_else(|| damaged("a buffer past the batch"))
    };
    let string =
        |[offsets, values]: [usize; 2], row_idx: usize| -> Result<Box<str>, OutlineError> {
            let (offsets, values) = (buffer(offsets)?, buffer(values)?);
            let offset = |idx: usize| {
                let at = idx.checked_mul(8)?;
                let bytes = offsets.get(at..at.checked_add(8)?)?;
                usize::try_from(i64::from_le_bytes(bytes.try_into().ok()?)).ok()
            };
            let text = offset(row_idx)
                .zip(offset(row_idx + 1))
                .and_then(|(start, end)| values.get(start..end))
                .ok_or_else(|| damaged("a key past its column"))?;
            std::str::from_utf8(text)
                .map(Box::from)
                .map_err(|_| damaged("a key that is not UTF-8"))
        };
    let key = |row_idx| {
        Ok((
            string(keys.indicator, row_idx)?,
            string(keys.country, row_idx)?,
        ))
    };
    Ok(Some((rows, [key(0)?, key(rows - 1)?])))
}

/// The bytes of an IPC block (its metadata, then its body) in `buffer`, shared, not copied.
fn block_data(buffer: &Buffer, block: &arrow::ipc::Block) -> Buffer {
    let block_len = block.bodyLength() as usize + block.metaDataLength() as usize;
    buffer.slice_with_length(block.offset() as usize, block_len)
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

    /// The (indicator, country) of a row.
    fn key(&self, row_idx: usize) -> (&str, &str) {
        (self.indicator.value(row_idx), self.country.value(row_idx))
    }

    /// The keys of the first and last rows, `None` when there is no row.
    fn bounds(&self) -> Option<BatchBounds> {
        let last = self.indicator.len().checked_sub(1)?;
        let owned = |(indicator, country): (&str, &str)| (Box::from(indicator), Box::from(country));
        Some([owned(self.key(0)), owned(self.key(last))])
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

#[cfg(test)]
mod tests {
    use arrow::{
        array::{ArrayRef, Float64Array, Int32Array, LargeStringArray},
        datatypes::{Field, Schema},
        ipc::writer::FileWriter,
    };

    use super::*;

    /// World Bank WDI life expectancy at birth (`SP.DYN.LE00.IN`, vintage 2026-07), 2022–2024.
    const LIFE_EXPECTANCY: [(&str, i32, f64); 9] = [
        ("ARG", 2022, 75.806),
        ("ARG", 2023, 77.395),
        ("ARG", 2024, 77.543),
        ("BRA", 2022, 74.872),
        ("BRA", 2023, 75.848),
        ("BRA", 2024, 76.023),
        ("MEX", 2022, 73.973),
        ("MEX", 2023, 75.069),
        ("MEX", 2024, 75.264),
    ];

    /// A record batch of `rows` of [`LIFE_EXPECTANCY`], with `citation_tail` appended to the last row's
    /// citation id.
    fn batch(rows: &[(&str, i32, f64)], citation_tail: &str) -> RecordBatch {
        let schema = Arc::new(Schema::new(
            COLUMNS
                .iter()
                .map(|(name, data_type)| Field::new(*name, data_type.clone(), true))
                .collect::<Vec<_>>(),
        ));
        let strings = |text: &dyn Fn(usize) -> String| -> ArrayRef {
            Arc::new(LargeStringArray::from_iter_values(
                (0..rows.len()).map(text),
            ))
        };
        let columns: Vec<ArrayRef> = vec![
            strings(&|_| "sp_dyn_le00_in".into()),
            strings(&|row| rows[row].0.into()),
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|row| row.1))),
            Arc::new(Float64Array::from_iter_values(rows.iter().map(|row| row.2))),
            strings(&|_| "wdi".into()),
            strings(&|_| "2026-07".into()),
            strings(&|row| {
                let (country, year, _) = rows[row];
                let tail = if row == rows.len() - 1 {
                    citation_tail
                } else {
                    ""
                };
                format!("wb-sp-dyn-le00-in-{}-{year}{tail}", country.to_lowercase())
            }),
            strings(&|_| String::new()),
            Arc::new(Float64Array::from(vec![None; rows.len()])),
            Arc::new(Int32Array::from(vec![None; rows.len()])),
        ];
        RecordBatch::try_new(schema, columns).unwrap()
    }

    /// Writes Argentina, then Brazil's first two years, then Brazil's last year and Mexico as three
    /// record batches (Brazil's series spans two), the last citation id of the last batch ending in
    /// `tail`.
    fn write_table(path: &Path, tail: &str) {
        let batches = [
            batch(&LIFE_EXPECTANCY[..3], ""),
            batch(&LIFE_EXPECTANCY[3..5], ""),
            batch(&LIFE_EXPECTANCY[5..], tail),
        ];
        let file = File::create(path).unwrap();
        let mut writer = FileWriter::try_new(file, &batches[0].schema()).unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
        }
        writer.finish().unwrap();
    }

    fn decoded(table: &ObservationTable) -> Vec<bool> {
        table
            .batches
            .iter()
            .map(|batch| batch.get().is_some())
            .collect()
    }

    #[test]
    fn a_lookup_decodes_only_the_batches_that_hold_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("observations.arrow");
        write_table(&path, "");
        // Argentina's series ends where the first batch ends: the second is not decoded to see that.
        let table = ObservationTable::map(&path).unwrap();
        assert_eq!(table.series("sp_dyn_le00_in", "ARG"), 0..3);
        assert_eq!(decoded(&table), [true, false, false]);

        let table = ObservationTable::map(&path).unwrap();
        assert_eq!(table.len(), 9);
        assert_eq!(
            decoded(&table),
            [false, false, false],
            "mapping decodes nothing"
        );

        let mexico = table.series("sp_dyn_le00_in", "MEX");
        assert_eq!(mexico, 6..9);
        assert_eq!(decoded(&table), [false, false, true]);
        let last = table.rows_of(mexico).last().unwrap();
        assert_eq!((last.year, last.value), (2024, 75.264));
        assert_eq!(last.citation_id, "wb-sp-dyn-le00-in-mex-2024");

        // Brazil's series runs from the second batch into the third.
        let brazil: Vec<_> = table
            .rows_of(table.series("sp_dyn_le00_in", "BRA"))
            .map(|row| (row.year, row.value))
            .collect();
        assert_eq!(brazil, [(2022, 74.872), (2023, 75.848), (2024, 76.023)]);
        assert_eq!(decoded(&table), [false, true, true]);

        // A key before, between or after the batches' bounds decodes nothing more.
        assert!(table.series("sp_dyn_le00_in", "ABW").is_empty());
        assert!(table.series("sp_dyn_le00_in", "BHS").is_empty());
        assert!(table.series("zz_indicator", "MEX").is_empty());
        assert_eq!(decoded(&table), [false, true, true]);

        assert_eq!(table.indicator_rows("sp_dyn_le00_in"), 0..9);
        assert_eq!(
            table
                .find("sp_dyn_le00_in", "ARG", 2023)
                .map(|row| row.value),
            Some(77.395)
        );
        table.decode_all().unwrap();
        assert_eq!(decoded(&table), [true, true, true]);
        let every: Vec<_> = table
            .rows()
            .map(|row| (row.country, row.year, row.value))
            .collect();
        assert_eq!(every, LIFE_EXPECTANCY);
    }

    #[test]
    fn a_damaged_batch_is_named_by_its_decode_and_the_other_batches_still_answer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("observations.arrow");
        // The last citation id of the last batch ends in a marker of the same length as the bytes
        // written over it: "\u{00e9}" (two bytes) becomes 0xff 0xff, which is not UTF-8.
        write_table(&path, "\u{00e9}");
        let mut bytes = std::fs::read(&path).unwrap();
        let marker = "\u{00e9}".as_bytes();
        let at = bytes
            .windows(marker.len())
            .rposition(|window| window == marker)
            .unwrap();
        bytes[at..at + marker.len()].fill(0xff);
        std::fs::write(&path, &bytes).unwrap();

        let table = ObservationTable::map(&path).unwrap();
        assert_eq!(
            table
                .find("sp_dyn_le00_in", "ARG", 2024)
                .map(|row| row.value),
            Some(77.543)
        );
        let error = table.decode_all().unwrap_err().to_string();
        assert!(
            error.contains("record batch 2") && error.contains("observations.arrow"),
            "{error}"
        );
        let error = ObservationTable::open(&path).unwrap_err().to_string();
        assert!(error.contains("record batch 2"), "{error}");
        // The damaged batch stays refused; the others keep answering.
        assert!(table.try_batch(2).is_err());
        assert_eq!(table.series("sp_dyn_le00_in", "ARG"), 0..3);
    }

    #[test]
    fn a_file_that_is_not_an_observation_table_is_refused_when_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("observations.arrow");
        std::fs::write(&path, b"not an arrow file at all").unwrap();
        let error = ObservationTable::map(&path).unwrap_err().to_string();
        assert!(error.contains("observations.arrow"), "{error}");
        // A batch whose block points past the file is refused too, not read out of bounds.
        write_table(&path, "");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[bytes.len() / 2..]).unwrap();
        assert!(ObservationTable::map(&path).is_err());
    }
}
