//! Parquet for readers that fetch by byte range (DuckDB's httpfs, polars' `scan_parquet`, pyarrow over
//! HTTP): every file the bake writes in Parquet goes through [`write_parquet`].
//!
//! - **Bounded row groups, aligned to the sort key**: rows stay in the frame's order (the tables are
//!   sorted by indicator, country and year before they get here); consecutive runs of the grouping column
//!   (`indicator`, `pair`) are packed into row groups of at most [`MAX_ROW_GROUP_ROWS`] rows, a run never
//!   split unless it alone is longer. A reader filtering one indicator reads the footer and the one or two
//!   row groups whose statistics admit it.
//! - **Statistics and the page index**: min, max, null and distinct counts per column chunk, and the
//!   column and offset indexes (polars writes both with statistics on).
//! - **Dictionary-encoded keys**: string and integer columns are dictionary-encoded wherever the
//!   dictionary is smaller (polars decides per chunk; `indicator`, `country`, `year`, `source`, `flags`
//!   always are).
//! - **Key-value metadata**: what a reader needs to use the numbers without a call, as file-level
//!   key-value pairs ([`ParquetMetadata`]): `title`, `description`, `license`, `source`, `unit`,
//!   `citation` (how to cite a value) and more, each a UTF-8 string (JSON text where the value is a map).
//! - zstd compression; deterministic bytes for the same frame and metadata.

use std::{fs::File, io::BufWriter, path::Path};

use polars::io::parquet::write::BatchedWriter;
use polars::prelude::{
    CompatLevel, DataFrame, KeyValueMetadata, ParquetCompression, ParquetWriter, PolarsError,
    Schema, SchemaExt, StatisticsOptions,
};
use polars_parquet::parquet::metadata::KeyValue;

use crate::BakeError;

/// The most rows a row group holds: about 50 KB of compressed observations, so a one-indicator range
/// read of `observations.parquet` fetches a few percent of it.
pub const MAX_ROW_GROUP_ROWS: usize = 8_192;

/// How a citation of the corpus is resolved, written into every file's metadata under `citation`.
pub const CITATION_RULE: &str = "Cite each value by its citation_id: GET /api/v1/citations/{citation_id} on the server that published this file resolves it (publisher, dataset, deep link, vintage, retrieval date, licence; ?format=apa, chicago, bibtex, csl-json or text), as does the MCP tool resolve_citations.";

/// File-level key-value metadata of a Parquet file, in the order written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParquetMetadata(Vec<(String, String)>);

impl ParquetMetadata {
    /// Metadata holding only the [`CITATION_RULE`].
    pub fn new() -> ParquetMetadata {
        ParquetMetadata(vec![("citation".into(), CITATION_RULE.into())])
    }

    /// Adds `key` = `value`; an empty value is left out (a reader finds the key absent, not blank).
    pub fn with(mut self, key: &str, value: &str) -> ParquetMetadata {
        if !value.is_empty() {
            self.0.push((key.to_string(), value.to_string()));
        }
        self
    }

    /// The pairs, in the order added.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }
}

/// The row ranges (offset, length) of the row groups of a frame whose `keys` (one per row, in order)
/// group its rows: consecutive equal keys form runs, packed greedily into groups of at most `max_rows`;
/// a run longer than `max_rows` gets groups of its own, cut every `max_rows` rows. Without keys the rows
/// are cut every `max_rows`.
pub fn row_groups<K: PartialEq>(
    rows: usize,
    keys: Option<&[K]>,
    max_rows: usize,
) -> Vec<(usize, usize)> {
    let max_rows = max_rows.max(1);
    let Some(keys) = keys else {
        return (0..rows)
            .step_by(max_rows)
            .map(|start| (start, max_rows.min(rows - start)))
            .collect();
    };
    let mut groups = Vec::new();
    let (mut group_start, mut run_start) = (0, 0);
    for row in 1..=rows {
        if row < rows && keys[row] == keys[row - 1] {
            continue;
        }
        // [run_start, row) is one run of equal keys.
        if row - group_start > max_rows {
            if run_start > group_start {
                groups.push((group_start, run_start - group_start));
                group_start = run_start;
            }
            while row - group_start > max_rows {
                groups.push((group_start, max_rows));
                group_start += max_rows;
            }
        }
        run_start = row;
    }
    if rows > group_start {
        groups.push((group_start, rows - group_start));
    }
    groups
}

/// Writes `frame` as Parquet at `path`: row groups from [`row_groups`] over the string column
/// `group_by` (or every [`MAX_ROW_GROUP_ROWS`] rows when `None` or absent), zstd, full statistics and
/// the page index, `metadata` as file-level key-value pairs (after the `ARROW:schema` polars writes).
///
/// # Errors
/// [`BakeError::Io`] if the file cannot be created; [`BakeError::Table`] naming it if polars cannot encode
/// the frame.
pub fn write_parquet(
    path: &Path,
    frame: &mut DataFrame,
    group_by: Option<&str>,
    metadata: &ParquetMetadata,
) -> Result<(), BakeError> {
    let table_error = |error: PolarsError| BakeError::Table {
        artifact: path.display().to_string(),
        message: error.to_string(),
    };
    frame.rechunk_mut();
    let keys: Option<Vec<Option<&str>>> = group_by
        .and_then(|name| frame.column(name).ok())
        .and_then(|column| column.str().ok())
        .map(|strings| strings.iter().collect());
    let groups = row_groups(frame.height(), keys.as_deref(), MAX_ROW_GROUP_ROWS);
    let mut batched = batched_writer(path, frame.schema(), metadata)?;
    for (offset, length) in groups {
        batched
            .write_batch(&frame.slice(offset as i64, length))
            .map_err(table_error)?;
    }
    batched.finish().map_err(table_error)?;
    Ok(())
}

/// A Parquet writer of [`write_parquet`]'s settings (zstd, full statistics, `metadata` and the Arrow
/// schema key) for a table written a row group at a time: each `write_batch` is one row group.
///
/// # Errors
/// [`BakeError::Io`] if the file cannot be created, [`BakeError::Table`] if polars refuses the schema.
pub fn batched_writer(
    path: &Path,
    schema: &Schema,
    metadata: &ParquetMetadata,
) -> Result<BatchedWriter<BufWriter<File>>, BakeError> {
    let file = File::create(path).map_err(|error| BakeError::io(path, error))?;
    ParquetWriter::new(BufWriter::new(file))
        .with_compression(ParquetCompression::Zstd(None))
        .with_statistics(StatisticsOptions::full())
        .with_key_value_metadata(Some(KeyValueMetadata::Static(
            std::iter::once(arrow_schema_key(schema))
                .chain(metadata.pairs().iter().map(|(key, value)| KeyValue {
                    key: key.clone(),
                    value: Some(value.clone()),
                }))
                .collect(),
        )))
        .batched(schema)
        .map_err(|error| BakeError::Table {
            artifact: path.display().to_string(),
            message: error.to_string(),
        })
}

/// The `ARROW:schema` key of a frame's `schema` at the oldest compat level: strings as `large_string`, not the
/// `string_view` polars' own key would declare, which pyarrow cannot compare with a plain string in a
/// filter (`filters=[("indicator", "=", "sp_dyn_le00_in")]` fails on `string_view`).
fn arrow_schema_key(schema: &Schema) -> KeyValue {
    polars_parquet::arrow::write::schema_to_metadata_key(&schema.to_arrow(CompatLevel::oldest()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_packed_whole_and_long_runs_cut() {
        let keys = ["a", "a", "b", "c", "c", "c", "d"];
        assert_eq!(
            row_groups(keys.len(), Some(&keys[..]), 3),
            vec![(0, 3), (3, 3), (6, 1)]
        );
        // "a" is longer than a group: cut; "b" starts its own group after it.
        let keys = ["a", "a", "a", "a", "a", "b", "b"];
        assert_eq!(
            row_groups(keys.len(), Some(&keys[..]), 2),
            vec![(0, 2), (2, 2), (4, 1), (5, 2)]
        );
        assert_eq!(row_groups::<&str>(7, None, 3), vec![(0, 3), (3, 3), (6, 1)]);
        assert!(row_groups::<&str>(0, Some(&[]), 3).is_empty());
    }
}
