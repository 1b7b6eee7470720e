//! Per-indicator files for analysts, written into the published corpus (`exports/indicators/`), so they
//! are versioned, hashed in the manifest and swapped with it; byte-identical across bakes of the same
//! inputs. For every metric with observations (see [`corpus::exports`] for the paths):
//!
//! - `{id}.csv`: tidy long form, RFC 4180, UTF-8, CRLF, header [`TIDY_HEADER`]: `indicator` (metric id),
//!   `country` (ISO 3166-1 alpha-3), `country_name` (English), `year`, `value` (as stored, shortest
//!   round-trip decimal), `unit`, `flags` (`|`-separated, empty when none), `citation_id`, `url` (the
//!   publisher's page for the series). Rows in (country, year) order. An indicator whose publisher gives
//!   standard errors (the six WGI estimates) has one more column, [`STANDARD_ERROR_COLUMN`], last: the
//!   value's standard error in the metric's unit, empty where the publisher gives none.
//! - `{id}.wide.csv`: `country`, `country_name`, then one column per year (ascending); empty cells where the
//!   corpus has no value.
//! - `{id}.parquet`: the tidy columns, typed (year int32, value float64, standard_error float64
//!   nullable where the indicator has one), zstd, with [`metadata_fields`] as key-value metadata
//!   ([`super::parquet`]).
//! - `{id}.xlsx`: sheets `data` ([`XLSX_DATA_HEADER`]: country, country_name, year, value, flags,
//!   citation_id, and standard_error for an indicator with standard errors), `metadata` (field, value:
//!   [`metadata_fields`]: definition, unit, source, publisher, primary source, licence, vintage,
//!   retrieval date, methodology, attribution, how to cite) and `citations` (citation_id, url: the publisher's
//!   page for the series); numbers are numbers, the header row is bold and frozen.
//! - `{id}.sdmx.xml` and `{id}.sdmx.csv`: see [`super::sdmx`].
//!
//! Only the governed observations are written, so only redistributable series (the licence gate already
//! decided) and no comparison aggregates.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    fs::File,
    io::{BufWriter, Write},
    path::{Path, PathBuf},
};

use corpus::{Country, Metric, SourceRecord};
use polars::prelude::{Column, DataFrame};
use rust_xlsxwriter::{Format as CellFormat, Workbook, Worksheet, XlsxError};

use super::parquet::{CITATION_RULE, ParquetMetadata, write_parquet};
use crate::{BakeError, govern::table::ObservationColumns};

/// The directory of the per-indicator files, inside a corpus directory.
pub const INDICATOR_DIR: &str = "exports/indicators";

/// The columns of a workbook's `data` sheet: the tidy columns less those the `metadata` sheet holds once
/// (indicator, unit) and the url (in the `citations` sheet).
pub const XLSX_DATA_HEADER: [&str; 6] = [
    "country",
    "country_name",
    "year",
    "value",
    "flags",
    "citation_id",
];

/// The tidy CSV's header.
pub const TIDY_HEADER: [&str; 9] = [
    "indicator",
    "country",
    "country_name",
    "year",
    "value",
    "unit",
    "flags",
    "citation_id",
    "url",
];

/// The column an indicator with standard errors adds, last, to its tidy CSV, Parquet and workbook.
pub const STANDARD_ERROR_COLUMN: &str = "standard_error";

/// One observation of an indicator, as the exports write it.
#[derive(Debug, Clone)]
pub struct IndicatorRow<'a> {
    /// ISO 3166-1 alpha-3 code.
    pub country: &'a str,
    /// English country name (empty if the registry lacks the code).
    pub country_name: &'a str,
    /// Calendar year.
    pub year: i32,
    /// Value in the metric's unit.
    pub value: f64,
    /// `|`-separated flags (`projection`), empty when none.
    pub flags: &'a str,
    /// Citation id (`wb-si-pov-gini-ury-2024`).
    pub citation_id: &'a str,
    /// The publisher's standard error of the value, in the metric's unit (WGI), if it gives one.
    pub standard_error: Option<f64>,
    /// The publisher's page for the series (the source's deep link for the country).
    pub url: String,
}

/// Everything the files of one indicator are written from.
#[derive(Debug, Clone)]
pub struct IndicatorExport<'a> {
    /// The governed metric.
    pub metric: &'a Metric,
    /// Its source record (publisher, licence, vintage, retrieval date).
    pub source: Option<&'a SourceRecord>,
    /// Its observations in (country, year) order.
    pub rows: Vec<IndicatorRow<'a>>,
}

impl IndicatorExport<'_> {
    /// The years with at least one value, ascending.
    pub fn years(&self) -> Vec<i32> {
        let years: BTreeSet<i32> = self.rows.iter().map(|row| row.year).collect();
        years.into_iter().collect()
    }

    /// Whether any value carries a standard error: the files then have a [`STANDARD_ERROR_COLUMN`].
    pub fn has_standard_errors(&self) -> bool {
        self.rows.iter().any(|row| row.standard_error.is_some())
    }
}

/// The rows of one metric in the governed observations, before they are turned into an
/// [`IndicatorExport`]: row numbers only (4 bytes a row), so a bake holds the export rows (with their
/// deep links) of the indicators being written, not of all of them at once.
#[derive(Debug, Clone)]
pub struct IndicatorRows<'a> {
    /// The governed metric.
    pub metric: &'a Metric,
    /// Its source record.
    pub source: Option<&'a SourceRecord>,
    /// Row numbers in the observation columns, in (country, year) order.
    rows: Vec<u32>,
}

/// Groups the governed observations by metric: one [`IndicatorRows`] per metric with observations, in
/// metric id order, rows in (country, year) order; [`IndicatorGroups::export`] turns one into its
/// [`IndicatorExport`].
pub struct IndicatorGroups<'a> {
    observations: &'a ObservationColumns,
    country_by_code: HashMap<&'a str, &'a Country>,
    /// The groups, in metric id order.
    pub groups: Vec<IndicatorRows<'a>>,
}

impl<'a> IndicatorGroups<'a> {
    /// The observations of one group, as the files are written from them.
    pub fn export(&self, group: &IndicatorRows<'a>) -> IndicatorExport<'a> {
        let observations = self.observations;
        let rows = group
            .rows
            .iter()
            .map(|&row_idx| {
                let row_idx = row_idx as usize;
                let iso3 = observations.country[row_idx].as_str();
                let country = self.country_by_code.get(iso3);
                IndicatorRow {
                    country: iso3,
                    country_name: country.map_or("", |country| country.names.en.as_str()),
                    year: observations.year[row_idx],
                    value: observations.value[row_idx],
                    flags: observations.flags[row_idx].as_str(),
                    citation_id: &observations.citation_id[row_idx],
                    standard_error: observations.standard_error[row_idx],
                    url: match (group.source, country) {
                        (Some(source), Some(country)) => {
                            source.deep_link_for(&group.metric.source_code, iso3, &country.iso2)
                        }
                        _ => String::new(),
                    },
                }
            })
            .collect();
        IndicatorExport {
            metric: group.metric,
            source: group.source,
            rows,
        }
    }
}

/// See [`IndicatorGroups`].
///
/// # Panics
/// If the table holds 2^32 rows or more.
pub fn group_by_indicator<'a>(
    observations: &'a ObservationColumns,
    metrics: &'a [Metric],
    sources: &'a [SourceRecord],
    countries: &'a [Country],
) -> IndicatorGroups<'a> {
    assert!(
        u32::try_from(observations.len()).is_ok(),
        "an observation table of {} rows is past the 2^32 rows the exports index",
        observations.len()
    );
    let source_by_id: HashMap<&str, &SourceRecord> = sources
        .iter()
        .map(|source| (source.id.as_str(), source))
        .collect();
    let country_by_code: HashMap<&str, &Country> = countries
        .iter()
        .map(|country| (country.iso3.as_str(), country))
        .collect();
    let mut rows_by_metric: HashMap<&str, Vec<u32>> = HashMap::new();
    for (row_idx, indicator) in observations.indicator.iter().enumerate() {
        rows_by_metric
            .entry(indicator.as_str())
            .or_default()
            .push(row_idx as u32);
    }
    let mut groups: Vec<IndicatorRows<'a>> = metrics
        .iter()
        .filter_map(|metric| {
            let mut rows = rows_by_metric.remove(metric.id.as_str())?;
            rows.sort_by(|&left, &right| {
                let (left, right) = (left as usize, right as usize);
                (&observations.country[left], observations.year[left])
                    .cmp(&(&observations.country[right], observations.year[right]))
            });
            Some(IndicatorRows {
                metric,
                source: source_by_id.get(metric.source_id.as_str()).copied(),
                rows,
            })
        })
        .collect();
    groups.sort_by(|left, right| left.metric.id.cmp(&right.metric.id));
    IndicatorGroups {
        observations,
        country_by_code,
        groups,
    }
}

/// The path of `{id}{suffix}` in the indicator directory of `dir`.
pub fn indicator_path(dir: &Path, id: &str, format: corpus::exports::Format) -> PathBuf {
    dir.join(INDICATOR_DIR)
        .join(format!("{id}{}", format.suffix()))
}

/// Writes the tidy CSV, wide CSV, Parquet and XLSX of `export` into the indicator directory of `dir`
/// (which must exist).
///
/// # Errors
/// [`BakeError::Io`] naming the file that could not be written; [`BakeError::Table`] if Parquet or XLSX
/// encoding fails.
pub fn write_indicator_files(dir: &Path, export: &IndicatorExport<'_>) -> Result<(), BakeError> {
    use corpus::exports::Format;
    let id = export.metric.id.as_str();
    write_tidy_csv(&indicator_path(dir, id, Format::Csv), export)?;
    write_wide_csv(&indicator_path(dir, id, Format::WideCsv), export)?;
    write_indicator_parquet(&indicator_path(dir, id, Format::Parquet), export)?;
    write_xlsx(&indicator_path(dir, id, Format::Xlsx), export)?;
    Ok(())
}

/// A CSV writer with the exports' dialect (RFC 4180, CRLF) over a buffered file.
pub(crate) fn csv_writer(path: &Path) -> Result<csv::Writer<BufWriter<File>>, BakeError> {
    let file = File::create(path).map_err(|error| BakeError::io(path, error))?;
    Ok(csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(BufWriter::with_capacity(1 << 16, file)))
}

/// Maps a CSV error at `path` to a [`BakeError::Io`].
pub(crate) fn csv_error(path: &Path) -> impl Fn(csv::Error) -> BakeError + '_ {
    move |error| BakeError::io(path, error.into())
}

/// Flushes a CSV writer and its file.
pub(crate) fn finish_csv<W: Write>(path: &Path, writer: csv::Writer<W>) -> Result<W, BakeError> {
    writer
        .into_inner()
        .map_err(|error| BakeError::io(path, error.into_error()))
}

fn write_tidy_csv(path: &Path, export: &IndicatorExport<'_>) -> Result<(), BakeError> {
    let mut writer = csv_writer(path)?;
    let error = csv_error(path);
    let with_errors = export.has_standard_errors();
    let mut header = TIDY_HEADER.to_vec();
    if with_errors {
        header.push(STANDARD_ERROR_COLUMN);
    }
    writer.write_record(&header).map_err(&error)?;
    let metric = export.metric;
    let mut year = NumberText::default();
    let mut value = NumberText::default();
    let mut standard_error = NumberText::default();
    for row in &export.rows {
        let mut record = vec![
            metric.id.as_str(),
            row.country,
            row.country_name,
            year.format(row.year),
            value.format(row.value),
            metric.unit.as_str(),
            row.flags,
            row.citation_id,
            row.url.as_str(),
        ];
        if with_errors {
            record.push(
                row.standard_error
                    .map_or("", |se| standard_error.format(se)),
            );
        }
        writer.write_record(&record).map_err(&error)?;
    }
    finish_csv(path, writer)?
        .flush()
        .map_err(|error| BakeError::io(path, error))
}

fn write_wide_csv(path: &Path, export: &IndicatorExport<'_>) -> Result<(), BakeError> {
    let years = export.years();
    let column_of: HashMap<i32, usize> = years
        .iter()
        .enumerate()
        .map(|(column, &year)| (year, column))
        .collect();
    let mut by_country: BTreeMap<&str, (&str, Vec<Option<f64>>)> = BTreeMap::new();
    for row in &export.rows {
        let entry = by_country
            .entry(row.country)
            .or_insert_with(|| (row.country_name, vec![None; years.len()]));
        entry.1[column_of[&row.year]] = Some(row.value);
    }
    let mut writer = csv_writer(path)?;
    let error = csv_error(path);
    let mut header = vec!["country".to_string(), "country_name".to_string()];
    header.extend(years.iter().map(i32::to_string));
    writer.write_record(&header).map_err(&error)?;
    let mut value = NumberText::default();
    for (country, (name, values)) in &by_country {
        let mut record: Vec<String> = vec![(*country).to_string(), (*name).to_string()];
        record.extend(
            values
                .iter()
                .map(|cell| cell.map_or_else(String::new, |v| value.format(v).to_string())),
        );
        writer.write_record(&record).map_err(&error)?;
    }
    finish_csv(path, writer)?
        .flush()
        .map_err(|error| BakeError::io(path, error))
}

fn write_indicator_parquet(path: &Path, export: &IndicatorExport<'_>) -> Result<(), BakeError> {
    let table_error = |error: polars::prelude::PolarsError| BakeError::Table {
        artifact: path.display().to_string(),
        message: error.to_string(),
    };
    let rows = &export.rows;
    let repeat = |text: &str| vec![text.to_string(); rows.len()];
    let mut frame = DataFrame::new(
        rows.len(),
        vec![
            Column::new("indicator".into(), repeat(&export.metric.id)),
            Column::new(
                "country".into(),
                rows.iter().map(|row| row.country).collect::<Vec<_>>(),
            ),
            Column::new(
                "country_name".into(),
                rows.iter().map(|row| row.country_name).collect::<Vec<_>>(),
            ),
            Column::new(
                "year".into(),
                rows.iter().map(|row| row.year).collect::<Vec<_>>(),
            ),
            Column::new(
                "value".into(),
                rows.iter().map(|row| row.value).collect::<Vec<_>>(),
            ),
            Column::new("unit".into(), repeat(&export.metric.unit)),
            Column::new(
                "flags".into(),
                rows.iter().map(|row| row.flags).collect::<Vec<_>>(),
            ),
            Column::new(
                "citation_id".into(),
                rows.iter().map(|row| row.citation_id).collect::<Vec<_>>(),
            ),
            Column::new(
                "url".into(),
                rows.iter().map(|row| row.url.as_str()).collect::<Vec<_>>(),
            ),
        ],
    )
    .map_err(table_error)?;
    if export.has_standard_errors() {
        frame
            .with_column(Column::new(
                STANDARD_ERROR_COLUMN.into(),
                rows.iter()
                    .map(|row| row.standard_error)
                    .collect::<Vec<_>>(),
            ))
            .map_err(table_error)?;
    }
    write_parquet(path, &mut frame, None, &indicator_metadata(export))
}

/// What every file of an indicator says about it, as (field, value): indicator, source_code, name,
/// definition, unit, pillar, source (id), publisher, dataset (the source's name), primary_source (the
/// original publisher behind a distributor's series, e.g. UNODC for WDI's homicides), licence,
/// licence_url, vintage, retrieved_at, methodology, attribution and citation (how to cite a value,
/// [`CITATION_RULE`]); empty values are kept as empty strings. The workbook's `metadata` sheet, the
/// Parquet file's key-value metadata and the zip's `metadata.json` are this list.
pub fn metadata_fields(export: &IndicatorExport<'_>) -> Vec<(&'static str, String)> {
    let metric = export.metric;
    let source = export.source;
    let of_source = |field: fn(&SourceRecord) -> &str| source.map_or("", field).to_string();
    vec![
        ("indicator", metric.id.clone()),
        ("source_code", metric.source_code.clone()),
        ("name", metric.names.en.clone()),
        ("definition", metric.description.clone()),
        ("unit", metric.unit.clone()),
        ("pillar", metric.pillar.clone()),
        ("source", metric.source_id.clone()),
        ("publisher", of_source(|source| &source.publisher)),
        ("dataset", of_source(|source| &source.name)),
        (
            "primary_source",
            metric.primary_source.clone().unwrap_or_default(),
        ),
        ("licence", metric.license.clone()),
        ("licence_url", of_source(|source| &source.license_url)),
        ("vintage", metric.vintage.clone()),
        (
            "retrieved_at",
            metric
                .retrieved_at
                .clone()
                .unwrap_or_else(|| of_source(|source| &source.retrieved_at)),
        ),
        (
            "methodology",
            metric.methodology.clone().unwrap_or_default(),
        ),
        ("attribution", of_source(|source| &source.attribution)),
        ("citation", CITATION_RULE.to_string()),
    ]
}

/// The key-value metadata of an indicator's Parquet file: [`metadata_fields`] less the empty ones.
pub fn indicator_metadata(export: &IndicatorExport<'_>) -> ParquetMetadata {
    metadata_fields(export)
        .iter()
        .filter(|(field, _)| *field != "citation")
        .fold(ParquetMetadata::new(), |metadata, (field, value)| {
            metadata.with(field, value)
        })
}

fn write_xlsx(path: &Path, export: &IndicatorExport<'_>) -> Result<(), BakeError> {
    let xlsx_error = |error: XlsxError| BakeError::Table {
        artifact: path.display().to_string(),
        message: error.to_string(),
    };
    let mut workbook = new_workbook();
    let bold = CellFormat::new().set_bold();

    let data = workbook
        .add_worksheet()
        .set_name("data")
        .map_err(xlsx_error)?;
    let with_errors = export.has_standard_errors();
    let mut header = XLSX_DATA_HEADER.to_vec();
    if with_errors {
        header.push(STANDARD_ERROR_COLUMN);
    }
    write_header(data, &header, &bold).map_err(xlsx_error)?;
    for (line, row) in export.rows.iter().enumerate() {
        let r = line as u32 + 1;
        data.write_string(r, 0, row.country).map_err(xlsx_error)?;
        data.write_string(r, 1, row.country_name)
            .map_err(xlsx_error)?;
        data.write_number(r, 2, row.year).map_err(xlsx_error)?;
        data.write_number(r, 3, row.value).map_err(xlsx_error)?;
        // Most rows have no flag: an empty cell is not written at all.
        if !row.flags.is_empty() {
            data.write_string(r, 4, row.flags).map_err(xlsx_error)?;
        }
        data.write_string(r, 5, row.citation_id)
            .map_err(xlsx_error)?;
        if let Some(standard_error) = row.standard_error.filter(|_| with_errors) {
            data.write_number(r, 6, standard_error)
                .map_err(xlsx_error)?;
        }
    }
    data.set_freeze_panes(1, 0).map_err(xlsx_error)?;

    let metadata = workbook
        .add_worksheet()
        .set_name("metadata")
        .map_err(xlsx_error)?;
    write_header(metadata, &["field", "value"], &bold).map_err(xlsx_error)?;
    let fields = metadata_fields(export);
    for (line, (field, value)) in fields.iter().enumerate() {
        metadata
            .write_string(line as u32 + 1, 0, *field)
            .map_err(xlsx_error)?;
        metadata
            .write_string(line as u32 + 1, 1, value)
            .map_err(xlsx_error)?;
    }

    let citations = workbook
        .add_worksheet()
        .set_name("citations")
        .map_err(xlsx_error)?;
    write_header(citations, &["citation_id", "url"], &bold).map_err(xlsx_error)?;
    for (line, row) in export.rows.iter().enumerate() {
        let r = line as u32 + 1;
        citations
            .write_string(r, 0, row.citation_id)
            .map_err(xlsx_error)?;
        citations.write_string(r, 1, &row.url).map_err(xlsx_error)?;
    }
    workbook.save(path).map_err(xlsx_error)
}

/// A workbook whose document properties are fixed, so the file is byte-identical across bakes (the
/// creation time is otherwise the current time), compressed at zip level 1.
pub(crate) fn new_workbook() -> Workbook {
    let mut workbook = Workbook::new();
    let properties = rust_xlsxwriter::DocProperties::new()
        .set_author("lac-corpus bake")
        .set_creation_datetime(
            &rust_xlsxwriter::ExcelDateTime::from_ymd(2000, 1, 1).expect("valid date"),
        );
    workbook.set_properties(&properties);
    // Deflate dominated the bake at the default level 6; level 1 writes workbooks ~15 % larger in a
    // fraction of the time.
    workbook.set_zip_compression_level(1);
    workbook
}

/// Writes a bold header row.
pub(crate) fn write_header(
    sheet: &mut Worksheet,
    names: &[&str],
    bold: &CellFormat,
) -> Result<(), XlsxError> {
    for (column, name) in names.iter().enumerate() {
        sheet.write_string_with_format(0, column as u16, *name, bold)?;
    }
    Ok(())
}

/// A reusable buffer for number text: years, and values as the shortest decimal that round-trips (Rust's
/// `Display` for `f64`: `40`, `73.718`).
#[derive(Default)]
pub(crate) struct NumberText(String);

impl NumberText {
    pub(crate) fn format(&mut self, value: impl std::fmt::Display) -> &str {
        use std::fmt::Write as _;
        self.0.clear();
        let _ = write!(self.0, "{value}");
        &self.0
    }
}
