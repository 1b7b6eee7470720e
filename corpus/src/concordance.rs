//! The source concordance table (`concordance.arrow`): for each declared pair of indicators that measure
//! the same quantity at two publishers (`data/concordance.toml`), both values per country and year, the
//! right one aligned to the left unit, the difference and whether it is within the pair's tolerance.
//! Rows beyond tolerance are the source contradictions of `discoveries.json`.
//!
//! Columns, in order (the pipeline writes them with polars; [`read_concordance`] checks them):
//!
//! | column | Arrow type | meaning |
//! |---|---|---|
//! | `pair` | LargeUtf8 | pair id (`gdp_growth_wdi_weo`) |
//! | `country` | LargeUtf8 | ISO3 |
//! | `year` | Int32 | calendar year |
//! | `left_indicator`, `right_indicator` | LargeUtf8 | metric ids |
//! | `left_value`, `right_value` | Float64 | the values as published, each in its metric's unit |
//! | `right_times_indicator` | LargeUtf8, null unless the pair has `right_times` | the metric the right value is multiplied by (population) |
//! | `right_times_value` | Float64, nullable | its value, same country and year |
//! | `right_times_citation_id` | LargeUtf8, nullable | its citation |
//! | `right_value_aligned` | Float64 | the right value (× the third value) in the left unit |
//! | `left_citation_id`, `right_citation_id` | LargeUtf8 | citations of both values |
//! | `difference` | Float64 | `right_value_aligned - left_value` |
//! | `within_tolerance` | Boolean | whether the difference is within the pair's tolerance |
//!
//! The table is small (thousands of rows), so it is read into memory rather than memory-mapped.

use std::{fs::File, path::Path};

use arrow::{
    array::{Array, AsArray, RecordBatch},
    datatypes::{DataType, Float64Type, Int32Type},
    ipc::reader::FileReader,
};
use serde::{Deserialize, Serialize};

use crate::{CorpusError, observation::schema_error};

/// One country-year of one concordance pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConcordanceRow {
    /// Pair id.
    pub pair: String,
    /// ISO3.
    pub country: String,
    /// Year.
    pub year: i32,
    /// Left metric id (the reference).
    pub left_indicator: String,
    /// Left value, in the left metric's unit.
    pub left_value: f64,
    /// Citation of the left value.
    pub left_citation_id: String,
    /// Right metric id.
    pub right_indicator: String,
    /// Right value as published, in the right metric's unit.
    pub right_value: f64,
    /// The metric the right value is multiplied by (population for a per-capita value), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_times_indicator: Option<String>,
    /// Its value, same country and year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_times_value: Option<f64>,
    /// Its citation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_times_citation_id: Option<String>,
    /// Right value (× the third value, if any) in the left unit.
    pub right_value_aligned: f64,
    /// Citation of the right value.
    pub right_citation_id: String,
    /// `right_value_aligned - left_value`, in the left unit.
    pub difference: f64,
    /// Whether the difference is within the pair's declared tolerance.
    pub within_tolerance: bool,
}

/// Reads every row of the concordance table at `path`, in file order (pair, country, year).
///
/// # Errors
/// [`CorpusError::Io`] if the file cannot be opened, [`CorpusError::Arrow`] if it is not an Arrow IPC
/// file, [`CorpusError::Schema`] if a column is missing or of another type.
pub fn read_concordance(path: &Path) -> Result<Vec<ConcordanceRow>, CorpusError> {
    let file = File::open(path).map_err(|error| CorpusError::io(path, error))?;
    let arrow_error = |error: arrow::error::ArrowError| CorpusError::Arrow {
        path: path.to_path_buf(),
        message: error.to_string(),
    };
    let reader = FileReader::try_new(file, None).map_err(arrow_error)?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(arrow_error)?;
        read_batch(path, &batch, &mut rows)?;
    }
    Ok(rows)
}

fn read_batch(
    path: &Path,
    batch: &RecordBatch,
    rows: &mut Vec<ConcordanceRow>,
) -> Result<(), CorpusError> {
    let column = |name: &'static str, expected: DataType| {
        let array = batch
            .column_by_name(name)
            .ok_or_else(|| schema_error(path, name, &expected, "missing"))?;
        if array.data_type() == &expected {
            Ok(array)
        } else {
            Err(schema_error(
                path,
                name,
                &expected,
                &array.data_type().to_string(),
            ))
        }
    };
    let string = |name| column(name, DataType::LargeUtf8).map(|array| array.as_string::<i64>());
    let float =
        |name| column(name, DataType::Float64).map(|array| array.as_primitive::<Float64Type>());
    let (pair, country, left_indicator, right_indicator) = (
        string("pair")?,
        string("country")?,
        string("left_indicator")?,
        string("right_indicator")?,
    );
    let (left_citation_id, right_citation_id) =
        (string("left_citation_id")?, string("right_citation_id")?);
    let year = column("year", DataType::Int32)?.as_primitive::<Int32Type>();
    let (left_value, right_value, right_value_aligned, difference) = (
        float("left_value")?,
        float("right_value")?,
        float("right_value_aligned")?,
        float("difference")?,
    );
    let within_tolerance = column("within_tolerance", DataType::Boolean)?.as_boolean();
    let (times_indicator, times_citation_id) = (
        string("right_times_indicator")?,
        string("right_times_citation_id")?,
    );
    let times_value = float("right_times_value")?;
    let text = |array: &arrow::array::LargeStringArray, row_idx: usize| {
        array
            .is_valid(row_idx)
            .then(|| array.value(row_idx).to_string())
    };
    for row_idx in 0..batch.num_rows() {
        rows.push(ConcordanceRow {
            pair: pair.value(row_idx).to_string(),
            country: country.value(row_idx).to_string(),
            year: year.value(row_idx),
            left_indicator: left_indicator.value(row_idx).to_string(),
            left_value: left_value.value(row_idx),
            left_citation_id: left_citation_id.value(row_idx).to_string(),
            right_indicator: right_indicator.value(row_idx).to_string(),
            right_value: right_value.value(row_idx),
            right_times_indicator: text(times_indicator, row_idx),
            right_times_value: times_value
                .is_valid(row_idx)
                .then(|| times_value.value(row_idx)),
            right_times_citation_id: text(times_citation_id, row_idx),
            right_value_aligned: right_value_aligned.value(row_idx),
            right_citation_id: right_citation_id.value(row_idx).to_string(),
            difference: difference.value(row_idx),
            within_tolerance: within_tolerance.value(row_idx),
        });
    }
    Ok(())
}
