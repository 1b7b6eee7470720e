//! The observation tables, sorted (as row numbers), built with polars and written as Arrow IPC (uncompressed, for the
//! server's zero-copy memory map) and Parquet (zstd, for analysts). Column contract: `corpus::observation`.

use std::{
    fs::File,
    io::{BufWriter, Write},
    path::Path,
};

use flate2::{Compression, write::GzEncoder};

use polars::prelude::*;
use rayon::slice::ParallelSliceMut;

use super::parquet::ParquetMetadata;
use crate::{
    BakeError,
    derive::concordance::ConcordanceColumns,
    govern::table::{ObservationColumns, SharedStr},
};

/// Sorts `columns` by (indicator, country, year) and writes `{stem}.arrow` into `dir`, and the dataset
/// files `exports/datasets/{stem}.csv.gz` and `.parquet` (`metadata` as the Parquet key-value metadata,
/// one row group per run of indicators, [`super::parquet`]). Returns the number of rows written.
///
/// The table is written a slice at a time (at most [`ROWS_PER_BATCH`] rows, whole row groups): the
/// columns are sorted as row numbers and each slice is built, written to the three files and dropped, so
/// the memory it takes does not grow with the table. `{stem}.arrow` holds one record batch per slice.
///
/// # Errors
/// [`BakeError::Table`] if polars cannot build or write the table; [`BakeError::Io`] if a file
/// cannot be created.
pub fn write_observations(
    columns: &ObservationColumns,
    dir: &Path,
    stem: &str,
    metadata: &ParquetMetadata,
) -> Result<usize, BakeError> {
    let sizes = SliceSizes {
        rows_per_batch: ROWS_PER_BATCH,
        rows_per_group: super::parquet::MAX_ROW_GROUP_ROWS,
    };
    write_observations_in_slices(columns, dir, stem, metadata, sizes)
}

/// The most rows of a slice (whole row groups, at least one) and of a Parquet row group.
#[derive(Debug, Clone, Copy)]
struct SliceSizes {
    rows_per_batch: usize,
    rows_per_group: usize,
}

/// [`write_observations`] in slices of `sizes`.
fn write_observations_in_slices(
    columns: &ObservationColumns,
    dir: &Path,
    stem: &str,
    metadata: &ParquetMetadata,
    sizes: SliceSizes,
) -> Result<usize, BakeError> {
    let table_error = |error: PolarsError| BakeError::Table {
        artifact: stem.to_string(),
        message: error.to_string(),
    };
    let height = columns.len();
    // (indicator, country, year) is unique after governance, so the order is total and the output
    // deterministic whatever the thread count.
    let mut order: Vec<usize> = (0..height).collect();
    order.par_sort_unstable_by(|&left, &right| {
        (
            &columns.indicator[left],
            &columns.country[left],
            columns.year[left],
        )
            .cmp(&(
                &columns.indicator[right],
                &columns.country[right],
                columns.year[right],
            ))
    });
    let groups = {
        let keys: Vec<&str> = order
            .iter()
            .map(|&row| columns.indicator[row].as_str())
            .collect();
        super::parquet::row_groups(height, Some(&keys), sizes.rows_per_group)
    };
    let schema = observation_slice(columns, &[])
        .map_err(table_error)?
        .schema()
        .as_ref()
        .clone();

    let arrow_path = dir.join(format!("{stem}.arrow"));
    let mut arrow_file = BufWriter::new(
        File::create(&arrow_path).map_err(|error| BakeError::io(&arrow_path, error))?,
    );
    let ipc_fields = schema
        .iter_fields()
        .map(|_| polars_arrow::io::ipc::IpcField {
            fields: Vec::new(),
            dictionary_id: None,
        })
        .collect();
    // The oldest compat level writes LargeUtf8 strings (no view types), which arrow-rs reads zero-copy.
    let mut arrow = IpcWriter::new(&mut arrow_file)
        .with_compat_level(CompatLevel::oldest())
        .with_compression(None)
        .batched(&schema, ipc_fields)
        .map_err(table_error)?;
    let csv_path = super::dataset_files::dataset_path(dir, stem, corpus::exports::Format::CsvGz);
    let csv_file = File::create(&csv_path).map_err(|error| BakeError::io(&csv_path, error))?;
    let mut gzip = GzEncoder::new(
        BufWriter::with_capacity(1 << 16, csv_file),
        Compression::new(6),
    );
    let mut csv = CsvWriter::new(&mut gzip)
        .include_header(true)
        .with_line_terminator("\r\n".into())
        .batched(&schema)
        .map_err(table_error)?;
    let parquet_path =
        super::dataset_files::dataset_path(dir, stem, corpus::exports::Format::Parquet);
    let mut parquet = super::parquet::batched_writer(&parquet_path, &schema, metadata)?;

    let mut groups = groups.as_slice();
    while !groups.is_empty() {
        // Whole row groups, at least one, up to rows_per_batch rows.
        let mut taken = 1;
        let mut rows = groups[0].1;
        while taken < groups.len() && rows + groups[taken].1 <= sizes.rows_per_batch {
            rows += groups[taken].1;
            taken += 1;
        }
        let start = groups[0].0;
        let slice = observation_slice(columns, &order[start..start + rows]).map_err(table_error)?;
        arrow.write_batch(&slice).map_err(table_error)?;
        csv.write_batch(&slice).map_err(table_error)?;
        for &(offset, length) in &groups[..taken] {
            parquet
                .write_batch(&slice.slice((offset - start) as i64, length))
                .map_err(table_error)?;
        }
        groups = &groups[taken..];
    }
    arrow.finish().map_err(table_error)?;
    arrow_file
        .flush()
        .map_err(|error| BakeError::io(&arrow_path, error))?;
    csv.finish().map_err(table_error)?;
    drop(csv);
    gzip.finish()
        .and_then(|mut inner| inner.flush())
        .map_err(|error| BakeError::io(&csv_path, error))?;
    parquet.finish().map_err(table_error)?;
    Ok(height)
}

/// The most rows of an observation table built at once (and of a record batch of `{stem}.arrow`).
pub const ROWS_PER_BATCH: usize = 1 << 17;

/// The rows `rows` of `columns`, in that order, as a frame of the observation table's columns.
fn observation_slice(columns: &ObservationColumns, rows: &[usize]) -> PolarsResult<DataFrame> {
    fn strings<T: AsRef<str>>(name: &str, rows: &[usize], column: &[T]) -> Column {
        Column::new(
            name.into(),
            rows.iter()
                .map(|&row| column[row].as_ref())
                .collect::<Vec<&str>>(),
        )
    }
    fn values<T: Copy>(rows: &[usize], column: &[T]) -> Vec<T> {
        rows.iter().map(|&row| column[row]).collect()
    }
    DataFrame::new(
        rows.len(),
        vec![
            strings("indicator", rows, &columns.indicator),
            strings("country", rows, &columns.country),
            Column::new("year".into(), values(rows, &columns.year)),
            Column::new("value".into(), values(rows, &columns.value)),
            strings("source", rows, &columns.source),
            strings("vintage", rows, &columns.vintage),
            strings("citation_id", rows, &columns.citation_id),
            strings("flags", rows, &columns.flags),
            Column::new(
                "standard_error".into(),
                values(rows, &columns.standard_error),
            ),
            Column::new("source_count".into(), values(rows, &columns.source_count)),
        ],
    )
}

/// Writes the concordance table as `concordance.arrow` and its dataset files in `dir`, in (pair,
/// country, year) order as built, one Parquet row group per run of pairs.
///
/// # Errors
/// As [`write_observations`].
pub fn write_concordance(
    columns: ConcordanceColumns,
    dir: &Path,
    metadata: &ParquetMetadata,
) -> Result<usize, BakeError> {
    let table_error = |error: PolarsError| BakeError::Table {
        artifact: "concordance".into(),
        message: error.to_string(),
    };
    let height = columns.len();
    let mut frame = DataFrame::new(
        height,
        vec![
            Column::new("pair".into(), columns.pair),
            Column::new("country".into(), columns.country),
            Column::new("year".into(), columns.year),
            Column::new("left_indicator".into(), columns.left_indicator),
            Column::new("left_value".into(), columns.left_value),
            Column::new("left_citation_id".into(), columns.left_citation_id),
            Column::new("right_indicator".into(), columns.right_indicator),
            Column::new("right_value".into(), columns.right_value),
            Column::new(
                "right_times_indicator".into(),
                columns.right_times_indicator,
            ),
            Column::new("right_times_value".into(), columns.right_times_value),
            Column::new(
                "right_times_citation_id".into(),
                columns.right_times_citation_id,
            ),
            Column::new("right_value_aligned".into(), columns.right_value_aligned),
            Column::new("right_citation_id".into(), columns.right_citation_id),
            Column::new("difference".into(), columns.difference),
            Column::new("within_tolerance".into(), columns.within_tolerance),
        ],
    )
    .map_err(table_error)?;
    write_frame(&mut frame, dir, "concordance", metadata).map_err(|error| match error {
        BakeError::Table { message, .. } => BakeError::Table {
            artifact: "concordance".into(),
            message,
        },
        other => other,
    })?;
    Ok(height)
}

/// Writes `frame` as `{stem}.arrow` (uncompressed, LargeUtf8 strings) and, for analysts,
/// `exports/datasets/{stem}.parquet` and `.csv.gz`.
fn write_frame(
    frame: &mut DataFrame,
    dir: &Path,
    stem: &str,
    metadata: &ParquetMetadata,
) -> Result<(), BakeError> {
    let table_error = |error: PolarsError| BakeError::Table {
        artifact: stem.to_string(),
        message: error.to_string(),
    };
    let arrow_path = dir.join(format!("{stem}.arrow"));
    let arrow_file =
        File::create(&arrow_path).map_err(|error| BakeError::io(&arrow_path, error))?;
    // The oldest compat level writes LargeUtf8 strings (no view types), which arrow-rs reads zero-copy.
    IpcWriter::new(arrow_file)
        .with_compat_level(CompatLevel::oldest())
        .with_compression(None)
        .with_parallel(false)
        .finish(frame)
        .map_err(table_error)?;
    super::dataset_files::write_dataset_files(dir, stem, frame, metadata)
}

/// The key-value metadata of an observation table's Parquet file (`observations`, `aggregates`): the
/// dataset's ([`super::dataset_files::dataset_metadata`]), with `units` (JSON object: metric id → unit)
/// and `source_records` (JSON object: source id → publisher, dataset name, licence, vintage) for the
/// metrics and sources the table holds.
pub fn observation_metadata(
    datasets: &[corpus::Dataset],
    id: &str,
    columns: &ObservationColumns,
    metrics: &[corpus::Metric],
    sources: &[corpus::SourceRecord],
) -> ParquetMetadata {
    let held: std::collections::BTreeSet<&str> =
        columns.indicator.iter().map(SharedStr::as_str).collect();
    let held_sources: std::collections::BTreeSet<&str> =
        columns.source.iter().map(SharedStr::as_str).collect();
    let units: serde_json::Map<String, serde_json::Value> = metrics
        .iter()
        .filter(|metric| held.contains(metric.id.as_str()))
        .map(|metric| (metric.id.clone(), metric.unit.clone().into()))
        .collect();
    let source_records: serde_json::Map<String, serde_json::Value> = sources
        .iter()
        .filter(|source| held_sources.contains(source.id.as_str()))
        .map(|source| {
            (
                source.id.clone(),
                serde_json::json!({
                    "publisher": source.publisher,
                    "dataset": source.name,
                    "licence": source.license,
                    "vintage": source.vintage,
                }),
            )
        })
        .collect();
    super::dataset_files::dataset_metadata(datasets, id)
        .with("units", &serde_json::Value::Object(units).to_string())
        .with(
            "source_records",
            &serde_json::Value::Object(source_records).to_string(),
        )
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;
    use crate::govern::table::Interner;

    /// The first `count` rows of a raw WDI extract with a value, as governed rows of `indicator`.
    fn wdi_rows(
        columns: &mut ObservationColumns,
        strings: &mut Interner,
        code: &str,
        count: usize,
    ) {
        let path = crate::paths::default_sources_dir()
            .join("wdi/indicators")
            .join(code.to_ascii_lowercase())
            .join("data.csv");
        let mut reader = csv::Reader::from_path(&path).expect("the raw WDI extract");
        let indicator = strings.get(&corpus::Metric::id_for_code(code));
        for record in reader
            .records()
            .map(|record| record.expect("a CSV record"))
            .filter(|record| !record[3].is_empty())
            .take(count)
        {
            columns.indicator.push(indicator.clone());
            columns.country.push(strings.get(&record[1]));
            columns.year.push(record[2].parse().expect("a year"));
            columns.value.push(record[3].parse().expect("a value"));
            columns.source.push(strings.get("wdi"));
            columns.vintage.push(strings.get("2026-07"));
            columns.citation_id.push(
                corpus::CitationId::format("wb", code, &record[1], record[2].parse().unwrap())
                    .into_boxed_str(),
            );
            columns.flags.push(strings.get(""));
            columns.standard_error.push(None);
            columns.source_count.push(None);
        }
    }

    fn gunzip(path: &Path) -> String {
        let mut text = String::new();
        flate2::read::GzDecoder::new(File::open(path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        text
    }

    #[test]
    fn a_table_written_in_slices_reads_back_as_the_whole_table_sorted() {
        let (mut columns, mut strings) = (ObservationColumns::default(), Interner::default());
        // Two indicators, the second first and its rows reversed: the writer sorts.
        wdi_rows(&mut columns, &mut strings, "SP.DYN.LE00.IN", 2_000);
        wdi_rows(&mut columns, &mut strings, "NY.GDP.PCAP.CD", 2_000);
        columns.indicator.reverse();
        columns.country.reverse();
        columns.year.reverse();
        columns.value.reverse();
        columns.citation_id.reverse();
        let metadata = ParquetMetadata::new();
        let (sliced, whole) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for dir in [sliced.path(), whole.path()] {
            std::fs::create_dir_all(dir.join("exports/datasets")).unwrap();
        }
        // Two runs of 2,000 rows in row groups of at most 1,500: groups of 1,500 and 500 rows per
        // indicator; slices of at most 2,000 rows are then one indicator each.
        let write = |dir: &Path, rows_per_batch| {
            let sizes = SliceSizes {
                rows_per_batch,
                rows_per_group: 1_500,
            };
            write_observations_in_slices(&columns, dir, "observations", &metadata, sizes).unwrap()
        };
        assert_eq!(write(sliced.path(), 2_000), 4_000);
        write(whole.path(), 1 << 20);

        let read = |dir: &Path| {
            IpcReader::new(File::open(dir.join("observations.arrow")).unwrap())
                .set_rechunk(false)
                .finish()
                .unwrap()
        };
        let (sliced_table, whole_table) = (read(sliced.path()), read(whole.path()));
        let batches = |dir: &Path| {
            let mut file = File::open(dir.join("observations.arrow")).unwrap();
            polars_arrow::io::ipc::read::read_file_metadata(&mut file)
                .unwrap()
                .blocks
                .len()
        };
        assert_eq!((batches(sliced.path()), batches(whole.path())), (2, 1));
        assert!(sliced_table.equals_missing(&whole_table));
        let first = sliced_table.get(0).unwrap();
        // ny_gdp_pcap_cd sorts first, Aruba first among the countries.
        assert_eq!(first[0].get_str(), Some("ny_gdp_pcap_cd"));
        assert_eq!(first[1].get_str(), Some("ABW"));
        let life = sliced_table
            .column("indicator")
            .unwrap()
            .str()
            .unwrap()
            .iter()
            .position(|indicator| indicator == Some("sp_dyn_le00_in"))
            .unwrap();
        assert_eq!(life, 2_000);
        // Aruba's life expectancy at birth in 1960, as the raw WDI extract gives it.
        let row = sliced_table.get(life).unwrap();
        assert_eq!(
            (row[2].clone(), row[3].clone()),
            (AnyValue::Int32(1960), AnyValue::Float64(64.049))
        );

        let csv = |dir: &Path| gunzip(&dir.join("exports/datasets/observations.csv.gz"));
        assert_eq!(csv(sliced.path()), csv(whole.path()));
        assert!(csv(sliced.path()).starts_with("indicator,country,year,value,"));
        let parquet =
            |dir: &Path| std::fs::read(dir.join("exports/datasets/observations.parquet")).unwrap();
        assert_eq!(parquet(sliced.path()), parquet(whole.path()));
    }
}
