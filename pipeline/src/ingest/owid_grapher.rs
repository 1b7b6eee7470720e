//! The `owid_grapher_csv` connector: Our World in Data's own downloads, read as published.
//!
//! What it reads:
//! - a grapher chart's "full data" CSV, `https://ourworldindata.org/grapher/<slug>.csv?v=1&csvType=full`
//!   (`&useColumnShortNames=true` for short column names), and its
//!   `https://ourworldindata.org/grapher/<slug>.metadata.json` (per column: titles, `descriptionShort`,
//!   `unit`, `shortName`, `lastUpdated`, `citationShort`; `dateDownloaded`);
//! - OWID's CO2 and greenhouse-gas dataset, `https://owid-public.owid.io/data/co2/owid-co2-data.csv`
//!   (`country,year,iso_code,…` since 2021, `iso_code,country,year,…` before; no metadata file).
//!
//! Both are long by entity and year and wide by variable. Each mapping row's `raw_key` (or its entry in
//! the connector's `columns`) names one value column of one of the files; every column is found by NAME.
//!
//! Traps handled (documented in `shared/data/publisher-formats/owid_grapher/README.txt` and
//! `owid_co2_data/README.txt`):
//! - columns are reordered between releases and downloads: key and value columns are looked up by name;
//! - `useColumnShortNames=true` renames the key columns `entity,code,year` and each value column to its
//!   metadata `shortName` (`emissions_total_per_capita` for `Annual CO₂ emissions (per capita)`): key
//!   columns match case-insensitively, and a value column answers to its header, its metadata key, its
//!   short name and its titles;
//! - entities without a code (OWID regions and income groups: `South America`, `Argentina (urban)`) are
//!   not countries: the row's country cell is the entity's name, so governance drops it as an unknown
//!   country and the bake report names it; `OWID_WRL` (OWID's World) is the corpus' `WLD` aggregate, and
//!   other `OWID_*` codes are reported as unknown;
//! - annotation columns (`<variableId>-annotations`, metadata type `SeriesAnnotation`) and region-label
//!   columns (`World region(s) according to OWID`, `owid_region`, type `Continent`) are never values; the
//!   extra rows that carry only a region label have empty values, which governance reports as missing;
//! - a UTF-8 BOM is stripped and LF and CRLF line ends are both read ([`Table`]); a daily chart (`Day`
//!   instead of `Year`) is refused, naming the file;
//! - metadata descriptions carry OWID glossary links (`[fossil fuels](#dod:fossilemissions)`): the link
//!   text is kept, the target dropped.
//!
//! Per series, the metadata's `lastUpdated` and producer citation become the [`Descriptor`]'s vintage and
//! `dateDownloaded` its retrieval date; `titleLong`/`titleShort` its title, `descriptionShort` its
//! definition.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use super::{
    raw::{Descriptor, RawFile, RawRow, relative_display},
    scaled::scaled_cell,
    table::Table,
};
use crate::{
    BakeError,
    sources::{Connector, MetricMapping, SourceEntry},
};

/// Names (case-insensitive) of the entity-name column: grapher `Entity`, short-name `entity`, co2-data
/// `country`.
const ENTITY_COLUMNS: [&str; 2] = ["entity", "country"];
/// Names (case-insensitive) of the code column: grapher `Code`, short-name `code`, co2-data `iso_code`.
const CODE_COLUMNS: [&str; 2] = ["code", "iso_code"];
/// Names (case-insensitive) of the year column.
const YEAR_COLUMNS: [&str; 1] = ["year"];
/// OWID's code of the World entity, read as the corpus' `WLD` aggregate.
const OWID_WORLD: &str = "OWID_WRL";

/// Reads an `owid_grapher_csv` source: one [`RawFile`] per download with the rows of the indicators
/// found in it (cells as written, values multiplied by the connector's `scale` if any), and one
/// [`Descriptor`] per mapped indicator from its metadata (empty without one). `progress` advances by
/// one per mapped indicator.
///
/// # Errors
/// [`BakeError::RawFile`] if a file is missing or unreadable, lacks a key column, is a daily chart, or if
/// an indicator's column is in none of the files, in more than one, or is an annotation column; also if a
/// download holds none of the mapped indicators.
pub fn read_source(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let Connector::OwidGrapherCsv {
        files,
        columns,
        scale,
        missing_markers,
    } = &entry.connector
    else {
        unreachable!(
            "owid_grapher::read_source called for `{}`",
            entry.connector.kind()
        );
    };
    let raw_dir = entry.raw_dir(sources_dir);
    let downloads = files
        .iter()
        .map(|file| {
            let path = raw_dir.join(&file.csv);
            let table = Table::read(&path)?;
            let metadata = file
                .metadata
                .as_ref()
                .map(|metadata| {
                    let metadata_path = raw_dir.join(metadata);
                    let bytes = std::fs::read(&metadata_path).map_err(|error| {
                        BakeError::raw_file(&metadata_path, format!("cannot read: {error}"))
                    })?;
                    ChartMetadata::parse(&metadata_path, &bytes)
                })
                .transpose()?;
            Download::new(path, table, metadata)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (raw_files, descriptors) = read_downloads(
        &downloads,
        mapping,
        &Options {
            columns,
            scale: *scale,
            missing_markers,
        },
        sources_dir,
    )?;
    progress.inc(mapping.rows.len() as u64);
    Ok((raw_files, descriptors))
}

/// The connector's settings besides its files.
pub(crate) struct Options<'a> {
    /// `raw_key` → column name where they differ.
    pub(crate) columns: &'a BTreeMap<String, String>,
    /// Unit factor, if any.
    pub(crate) scale: Option<f64>,
    /// Declared missing markers (passed on unscaled).
    pub(crate) missing_markers: &'a [String],
}

/// One download: its CSV, key columns and metadata.
pub(crate) struct Download {
    /// The CSV's path, for errors and the report.
    path: PathBuf,
    /// The CSV.
    table: Table,
    /// Index of the entity-name column.
    entity: usize,
    /// Index of the code column.
    code: usize,
    /// Index of the year column.
    year: usize,
    /// The chart's metadata, if shipped.
    metadata: Option<ChartMetadata>,
}

impl Download {
    /// Finds the key columns of `table` by name.
    ///
    /// # Errors
    /// [`BakeError::RawFile`] naming the missing key column and the file's columns, or a daily chart.
    pub(crate) fn new(
        path: PathBuf,
        table: Table,
        metadata: Option<ChartMetadata>,
    ) -> Result<Download, BakeError> {
        let find = |names: &[&str], what: &str| {
            table
                .headers
                .iter()
                .position(|header| names.iter().any(|name| header.eq_ignore_ascii_case(name)))
                .ok_or_else(|| {
                    let daily = table
                        .headers
                        .iter()
                        .any(|header| header.eq_ignore_ascii_case("day"));
                    BakeError::raw_file(
                        &path,
                        if daily && what == "year" {
                            "a daily chart (`Day` column, YYYY-MM-DD): the corpus holds annual series; download the chart's yearly variant".to_string()
                        } else {
                            format!(
                                "no {what} column (one of {}, any case); columns: {}",
                                names.join(", "),
                                table.headers.join(", ")
                            )
                        },
                    )
                })
        };
        let entity = find(&ENTITY_COLUMNS, "entity")?;
        let code = find(&CODE_COLUMNS, "code")?;
        let year = find(&YEAR_COLUMNS, "year")?;
        Ok(Download {
            path,
            table,
            entity,
            code,
            year,
            metadata,
        })
    }

    /// Whether column `column` is a key, annotation or region-label column (never a value).
    fn is_value_column(&self, column: usize) -> bool {
        if [self.entity, self.code, self.year].contains(&column) {
            return false;
        }
        let header = &self.table.headers[column];
        let lower = header.to_ascii_lowercase();
        let labelled = lower.ends_with("-annotations")
            || lower.starts_with("world region")
            || lower == "owid_region";
        let typed = self
            .column_metadata(header)
            .and_then(|(_, column)| column.kind.as_deref())
            .is_some_and(|kind| kind == "SeriesAnnotation" || kind == "Continent");
        !(labelled || typed)
    }

    /// The metadata entry of the column headed `header`: keyed by it, or whose `shortName` it is.
    fn column_metadata(&self, header: &str) -> Option<(&str, &ColumnMetadata)> {
        let metadata = self.metadata.as_ref()?;
        metadata
            .columns
            .get_key_value(header)
            .or_else(|| {
                metadata
                    .columns
                    .iter()
                    .find(|(_, column)| column.short_name.as_deref() == Some(header))
            })
            .map(|(key, column)| (key.as_str(), column))
    }

    /// Whether the column headed `header` answers to `name`: its header, or its metadata key, short name
    /// or titles.
    fn answers_to(&self, header: &str, name: &str) -> bool {
        header == name
            || self.column_metadata(header).is_some_and(|(key, column)| {
                key == name
                    || [&column.short_name, &column.title_short, &column.title_long]
                        .iter()
                        .any(|candidate| candidate.as_deref() == Some(name))
            })
    }

    /// The value columns, for error messages.
    fn value_headers(&self) -> Vec<&str> {
        (0..self.table.headers.len())
            .filter(|column| self.is_value_column(*column))
            .map(|column| self.table.headers[column].as_str())
            .collect()
    }

    /// The country cell of a record: its code, `WLD` for OWID's World, the entity's name when the code
    /// is empty (a region, reported by name).
    fn country_cell(&self, cells: &[String]) -> String {
        match cells[self.code].as_str() {
            "" => cells[self.entity].clone(),
            OWID_WORLD => "WLD".to_string(),
            code => code.to_string(),
        }
    }
}

/// Reads the mapped indicators out of `downloads` (see [`read_source`]).
pub(crate) fn read_downloads(
    downloads: &[Download],
    mapping: &MetricMapping,
    options: &Options<'_>,
    sources_dir: &Path,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let mut rows_by_download: Vec<Vec<RawRow>> = downloads.iter().map(|_| Vec::new()).collect();
    let mut descriptors = Vec::with_capacity(mapping.rows.len());
    for (mapping_idx, row) in mapping.rows.iter().enumerate() {
        let raw_key = row.raw_key();
        let alias = options.columns.get(raw_key).map(String::as_str);
        let names: Vec<&str> = std::iter::once(raw_key).chain(alias).collect();
        let names = names.as_slice();
        let found: Vec<(usize, usize)> = downloads
            .iter()
            .enumerate()
            .flat_map(|(download_idx, download)| {
                (0..download.table.headers.len())
                    .filter(move |column| download.is_value_column(*column))
                    .filter(move |column| {
                        names
                            .iter()
                            .any(|name| download.answers_to(&download.table.headers[*column], name))
                    })
                    .map(move |column| (download_idx, column))
            })
            .collect();
        let (download_idx, column) = match found.as_slice() {
            [one] => *one,
            [] => {
                let listed: Vec<String> = downloads
                    .iter()
                    .map(|download| {
                        format!(
                            "{} (value columns: {})",
                            relative_display(sources_dir, &download.path),
                            download.value_headers().join(", ")
                        )
                    })
                    .collect();
                return Err(BakeError::raw_file(
                    &downloads[0].path,
                    format!(
                        "no value column for indicator `{}` (raw_key `{raw_key}`{}) in {}; a column is found by its header, or by the metadata key, shortName or title of its metadata entry",
                        row.source_code,
                        alias.map_or(String::new(), |alias| format!(", column `{alias}`")),
                        listed.join("; ")
                    ),
                ));
            }
            many => {
                let listed: Vec<String> = many
                    .iter()
                    .map(|(download_idx, column)| {
                        format!(
                            "`{}` of {}",
                            downloads[*download_idx].table.headers[*column],
                            relative_display(sources_dir, &downloads[*download_idx].path)
                        )
                    })
                    .collect();
                return Err(BakeError::raw_file(
                    &downloads[many[0].0].path,
                    format!(
                        "indicator `{}` (raw_key `{raw_key}`) matches more than one column: {}; name one in the connector's `columns`",
                        row.source_code,
                        listed.join(", ")
                    ),
                ));
            }
        };
        let download = &downloads[download_idx];
        let rows = &mut rows_by_download[download_idx];
        rows.reserve(download.table.records.len());
        for (line, cells) in &download.table.records {
            let value = match options.scale {
                Some(scale) => scaled_cell(&cells[column], scale, options.missing_markers),
                None => cells[column].clone(),
            };
            rows.push(RawRow::new(
                mapping_idx,
                *line,
                download.country_cell(cells),
                cells[download.year].clone(),
                value,
            ));
        }
        let header = &download.table.headers[column];
        descriptors.push(
            download
                .column_metadata(header)
                .map(|(key, column)| {
                    column.descriptor(key, download.metadata.as_ref().expect("has metadata"))
                })
                .unwrap_or_default(),
        );
    }
    if let Some(unused) = rows_by_download.iter().position(Vec::is_empty) {
        return Err(BakeError::raw_file(
            &downloads[unused].path,
            format!(
                "this download holds none of the mapped indicators (value columns: {})",
                downloads[unused].value_headers().join(", ")
            ),
        ));
    }
    Ok((
        downloads
            .iter()
            .zip(rows_by_download)
            .map(|(download, rows)| RawFile {
                file: relative_display(sources_dir, &download.path),
                rows,
            })
            .collect(),
        descriptors,
    ))
}

/// A grapher chart's `.metadata.json`, the parts the connector uses.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChartMetadata {
    /// Per CSV column title (or short name): its metadata.
    columns: BTreeMap<String, ColumnMetadata>,
    /// `dateDownloaded`, `YYYY-MM-DD`.
    date_downloaded: Option<String>,
}

/// One column's metadata entry.
#[derive(Debug, Clone, Default)]
struct ColumnMetadata {
    /// `titleShort`.
    title_short: Option<String>,
    /// `titleLong`.
    title_long: Option<String>,
    /// `descriptionShort`.
    description_short: Option<String>,
    /// `shortName`, the column's header with `useColumnShortNames=true`.
    short_name: Option<String>,
    /// `lastUpdated`, `YYYY-MM-DD`.
    last_updated: Option<String>,
    /// `citationShort` (`Producer (year) – with major processing by Our World in Data`).
    citation_short: Option<String>,
    /// `type` (`Numeric`, `SeriesAnnotation`, `Continent`…).
    kind: Option<String>,
}

impl ChartMetadata {
    /// Parses the metadata JSON of `path`.
    ///
    /// # Errors
    /// [`BakeError::RawFile`] if it is not JSON or has no `columns` object.
    pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<ChartMetadata, BakeError> {
        let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        let json: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|error| BakeError::raw_file(path, error))?;
        let columns = json
            .get("columns")
            .and_then(serde_json::Value::as_object)
            .ok_or_else(|| {
                BakeError::raw_file(
                    path,
                    "no `columns` object: not an OWID grapher .metadata.json (keys: chart, columns, dateDownloaded)",
                )
            })?;
        let text = |value: &serde_json::Value, key: &str| {
            value
                .get(key)
                .and_then(serde_json::Value::as_str)
                .map(str::trim)
                .filter(|text| !text.is_empty())
                .map(str::to_string)
        };
        Ok(ChartMetadata {
            columns: columns
                .iter()
                .map(|(key, column)| {
                    (
                        key.clone(),
                        ColumnMetadata {
                            title_short: text(column, "titleShort"),
                            title_long: text(column, "titleLong"),
                            description_short: text(column, "descriptionShort"),
                            short_name: text(column, "shortName"),
                            last_updated: text(column, "lastUpdated"),
                            citation_short: text(column, "citationShort"),
                            kind: text(column, "type"),
                        },
                    )
                })
                .collect(),
            date_downloaded: text(&json, "dateDownloaded"),
        })
    }
}

impl ColumnMetadata {
    /// The descriptor of the column keyed `key` in `chart`.
    fn descriptor(&self, key: &str, chart: &ChartMetadata) -> Descriptor {
        let producer = self
            .citation_short
            .as_deref()
            .and_then(|citation| citation.split(" – ").next())
            .map(str::trim)
            .filter(|producer| !producer.is_empty());
        Descriptor {
            title: self
                .title_long
                .clone()
                .or_else(|| self.title_short.clone())
                .or_else(|| Some(key.to_string())),
            description: self
                .description_short
                .as_deref()
                .map(without_glossary_links),
            vintage: self.last_updated.as_ref().map(|updated| match producer {
                Some(producer) => format!("{producer}, OWID {updated}"),
                None => format!("OWID {updated}"),
            }),
            retrieved_at: chart.date_downloaded.clone(),
        }
    }
}

/// `text` with OWID's glossary links `[words](#dod:key)` replaced by their words.
fn without_glossary_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        match after.find("](#dod:") {
            Some(close) if !after[..close].contains('[') => {
                let target = &after[close + 2..];
                match target.find(')') {
                    Some(end) => {
                        out.push_str(&rest[..open]);
                        out.push_str(&after[..close]);
                        rest = &target[end + 1..];
                    }
                    None => break,
                }
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use std::{collections::BTreeMap, path::PathBuf};

    use super::{ChartMetadata, Download, Options, read_downloads, without_glossary_links};
    use crate::{
        ingest::{raw::RawFile, table::Table},
        sources::{MetricMapping, metric_map::MetricMappingRow},
    };

    /// The real publisher samples (`shared/data/publisher-formats/`).
    fn samples() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/publisher-formats")
    }

    fn sample(path: &str) -> Vec<u8> {
        std::fs::read(samples().join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
    }

    /// A mapping of `(source_code, raw_key)` rows.
    fn mapping(rows: &[(&str, &str)]) -> MetricMapping {
        let mut text =
            String::from("source_code,raw_key,pillar,unit,good_direction,license,headline\n");
        for (code, raw_key) in rows {
            text.push_str(&format!(
                "{code},\"{raw_key}\",salud,x,up,CC-BY-4.0,false\n"
            ));
        }
        MetricMapping {
            file: PathBuf::from("test.csv"),
            rows: csv::Reader::from_reader(text.as_bytes())
                .deserialize::<MetricMappingRow>()
                .collect::<Result<_, _>>()
                .unwrap(),
        }
    }

    /// A download of `csv` bytes (named `name`) with the metadata bytes, if any.
    fn download(name: &str, csv: &[u8], metadata: Option<&[u8]>) -> Download {
        let path = samples().join(name);
        let metadata = metadata.map(|bytes| ChartMetadata::parse(&path, bytes).unwrap());
        Download::new(
            path.clone(),
            Table::from_bytes(&path, csv).unwrap(),
            metadata,
        )
        .unwrap()
    }

    fn read(
        downloads: &[Download],
        rows: &[(&str, &str)],
        columns: &[(&str, &str)],
    ) -> Result<(Vec<RawFile>, Vec<crate::ingest::Descriptor>), crate::BakeError> {
        let columns: BTreeMap<String, String> = columns
            .iter()
            .map(|(key, column)| (key.to_string(), column.to_string()))
            .collect();
        read_downloads(
            downloads,
            &mapping(rows),
            &Options {
                columns: &columns,
                scale: None,
                missing_markers: &[],
            },
            &samples(),
        )
    }

    /// (country, year, value) of every row of the first file.
    fn cells(files: &[RawFile]) -> Vec<(String, String, String)> {
        files[0]
            .rows
            .iter()
            .map(|row| (row.country.clone(), row.year.clone(), row.value.clone()))
            .collect()
    }

    fn cell<'a>(
        cells: &'a [(String, String, String)],
        country: &str,
        year: &str,
    ) -> Option<&'a str> {
        cells
            .iter()
            .find(|(c, y, _)| c == country && y == year)
            .map(|(_, _, value)| value.as_str())
    }

    const MMR: &str = "owid_grapher/maternal-mortality/maternal-mortality";
    const CO2: &str = "owid_grapher/co-emissions-per-capita/co-emissions-per-capita";

    fn mmr() -> Download {
        download(
            "maternal-mortality.csv",
            &sample(&format!("{MMR}.csv")),
            Some(&sample(&format!("{MMR}.metadata.json"))),
        )
    }

    /// Rewrites a CSV with its columns in `order` (names of the original header), cells unchanged.
    fn reorder(bytes: &[u8], order: &[&str]) -> Vec<u8> {
        let mut reader = csv::Reader::from_reader(bytes);
        let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
        let index: Vec<usize> = order
            .iter()
            .map(|name| headers.iter().position(|header| header == name).unwrap())
            .collect();
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.write_record(order).unwrap();
        for record in reader.records() {
            let record = record.unwrap();
            writer
                .write_record(index.iter().map(|column| &record[*column]))
                .unwrap();
        }
        writer.into_inner().unwrap()
    }

    #[test]
    fn the_long_title_sample_is_read_with_its_metadata_as_the_series_descriptor() {
        let (files, descriptors) =
            read(&[mmr()], &[("MMR", "Maternal mortality ratio")], &[]).unwrap();
        let cells = cells(&files);
        // maternal-mortality.csv line 2: Argentina,ARG,1985,97.925995,,
        assert_eq!(cell(&cells, "ARG", "1985"), Some("97.925995"));
        assert_eq!(files[0].rows[0].line, 2);
        // The region-label row carries no value: governance reports it as missing.
        assert_eq!(cell(&cells, "ARG", "2023"), Some(""));
        let descriptor = &descriptors[0];
        assert_eq!(
            descriptor.title.as_deref(),
            Some("Maternal mortality ratio")
        );
        assert_eq!(
            descriptor.vintage.as_deref(),
            Some("UN MMEIG (2023) and other sources, OWID 2024-07-08")
        );
        assert_eq!(descriptor.retrieved_at.as_deref(), Some("2025-08-07"));
        assert!(
            descriptor
                .description
                .as_deref()
                .unwrap()
                .starts_with("The estimated number of women who die from maternal conditions per 100,000 live births"),
            "{descriptor:?}"
        );
    }

    #[test]
    fn annotation_and_region_columns_are_never_values() {
        let (files, _) = read(&[mmr()], &[("MMR", "Maternal mortality ratio")], &[]).unwrap();
        // United States,USA,1900,850,Values from 2003–2017 affected by measurement change,
        assert_eq!(cell(&cells(&files), "USA", "1900"), Some("850"));
        for label in [
            "959831-annotations",
            "World regions according to OWID",
            "owid_region",
        ] {
            let error = read(&[mmr()], &[("NOTE", label)], &[])
                .unwrap_err()
                .to_string();
            assert!(
                error.contains("no value column for indicator `NOTE`")
                    && error.contains("value columns: Maternal mortality ratio)"),
                "{label}: {error}"
            );
        }
    }

    #[test]
    fn reordered_columns_are_read_by_name() {
        let bytes = sample(&format!("{MMR}.csv"));
        let reordered = reorder(
            &bytes,
            &[
                "959831-annotations",
                "Year",
                "Maternal mortality ratio",
                "World regions according to OWID",
                "Code",
                "Entity",
            ],
        );
        let metadata = sample(&format!("{MMR}.metadata.json"));
        let moved = download("maternal-mortality.csv", &reordered, Some(&metadata));
        let rows = [("MMR", "Maternal mortality ratio")];
        let (expected, _) = read(&[mmr()], &rows, &[]).unwrap();
        let (files, _) = read(&[moved], &rows, &[]).unwrap();
        assert_eq!(cells(&files), cells(&expected));
        assert_eq!(cells(&files).len(), 115);
    }

    #[test]
    fn short_column_names_and_lower_case_keys_are_matched_through_the_metadata() {
        let bytes = sample(&format!("{CO2}.csv"));
        let metadata = sample(&format!("{CO2}.metadata.json"));
        let long = download("co-emissions-per-capita.csv", &bytes, Some(&metadata));
        // The useColumnShortNames=true header: key columns lower case, the value column its shortName.
        let header_end = bytes.iter().position(|byte| *byte == b'\n').unwrap();
        assert_eq!(
            std::str::from_utf8(&bytes[..header_end]).unwrap(),
            "Entity,Code,Year,Annual CO₂ emissions (per capita)"
        );
        let mut short_bytes = b"entity,code,year,emissions_total_per_capita".to_vec();
        short_bytes.extend_from_slice(&bytes[header_end..]);
        let short = download("co-emissions-per-capita.csv", &short_bytes, Some(&metadata));
        let rows = [("CO2_PER_CAPITA", "Annual CO₂ emissions (per capita)")];
        let (expected, expected_descriptors) = read(&[long], &rows, &[]).unwrap();
        let (files, descriptors) = read(&[short], &rows, &[]).unwrap();
        assert_eq!(cells(&files), cells(&expected));
        // co-emissions-per-capita.csv: Argentina,ARG,2019,3.969191
        assert_eq!(cell(&cells(&files), "ARG", "2019"), Some("3.969191"));
        assert_eq!(descriptors, expected_descriptors);
        assert_eq!(
            descriptors[0].vintage.as_deref(),
            Some(
                "Global Carbon Budget (2024); Population based on various sources (2024), OWID 2024-11-21"
            )
        );
        // Without the metadata a short name is unknown, and the error names the columns there are.
        let bare = download("co-emissions-per-capita.csv", &short_bytes, None);
        let error = read(&[bare], &rows, &[]).unwrap_err().to_string();
        assert!(
            error.contains("value columns: emissions_total_per_capita"),
            "{error}"
        );
    }

    #[test]
    fn entities_without_a_code_are_named_and_owid_world_is_the_world_aggregate() {
        let bytes = sample(&format!("{CO2}.csv"));
        let (files, _) = read(
            &[download("co-emissions-per-capita.csv", &bytes, None)],
            &[("CO2_PER_CAPITA", "Annual CO₂ emissions (per capita)")],
            &[],
        )
        .unwrap();
        let cells = cells(&files);
        // South America,,2019,2.5625608 and World,OWID_WRL,2019,4.7500806
        assert_eq!(cell(&cells, "South America", "2019"), Some("2.5625608"));
        assert_eq!(cell(&cells, "WLD", "2019"), Some("4.7500806"));
        assert!(
            cells
                .iter()
                .all(|(country, _, _)| country != "OWID_WRL" && !country.is_empty())
        );
    }

    #[test]
    fn crlf_line_ends_and_a_bom_read_as_the_lf_file() {
        let bytes = sample(&format!("{MMR}.csv"));
        let mut crlf = "\u{feff}".as_bytes().to_vec();
        for byte in &bytes {
            if *byte == b'\n' {
                crlf.push(b'\r');
            }
            crlf.push(*byte);
        }
        let metadata = sample(&format!("{MMR}.metadata.json"));
        let rows = [("MMR", "Maternal mortality ratio")];
        let (expected, _) = read(&[mmr()], &rows, &[]).unwrap();
        let (files, _) = read(
            &[download("maternal-mortality.csv", &crlf, Some(&metadata))],
            &rows,
            &[],
        )
        .unwrap();
        assert_eq!(cells(&files), cells(&expected));
        let lines: Vec<u64> = files[0].rows.iter().map(|row| row.line).collect();
        let expected_lines: Vec<u64> = expected[0].rows.iter().map(|row| row.line).collect();
        assert_eq!(lines, expected_lines);
    }

    #[test]
    fn the_co2_data_file_is_read_by_iso_code_in_either_column_order() {
        let path = "owid_co2_data/2020-12-09/owid-co2-data.csv";
        let bytes = sample(path);
        let rows = [("CO2_PER_CAPITA", "Annual CO₂ emissions (per capita)")];
        let alias = [("Annual CO₂ emissions (per capita)", "co2_per_capita")];
        let (files, descriptors) = read(&[download(path, &bytes, None)], &rows, &alias).unwrap();
        let cells_2020 = cells(&files);
        // ARG,Argentina,2018,195.531,…,co2_per_capita 4.408; ,South America,2018 2.629; OWID_WRL 4.793
        assert_eq!(cell(&cells_2020, "ARG", "2018"), Some("4.408"));
        assert_eq!(cell(&cells_2020, "South America", "2018"), Some("2.629"));
        assert_eq!(cell(&cells_2020, "WLD", "2018"), Some("4.793"));
        assert_eq!(descriptors[0], Default::default());
        // The 2024 codebook order: country, year, iso_code first, variables alphabetical.
        let reordered = reorder(
            &bytes,
            &["country", "year", "iso_code", "co2", "co2_per_capita"],
        );
        let (files, _) = read(&[download(path, &reordered, None)], &rows, &alias).unwrap();
        assert_eq!(cells(&files), cells_2020);
    }

    #[test]
    fn a_daily_chart_and_a_column_in_two_files_are_refused_with_the_file_named() {
        let path = samples().join("daily.csv");
        let table =
            Table::from_bytes(&path, b"Entity,Code,Day,Cases\nChile,CHL,2020-03-01,1\n").unwrap();
        let error = Download::new(path, table, None).err().unwrap().to_string();
        assert!(
            error.contains("daily.csv") && error.contains("daily chart"),
            "{error}"
        );
        let twice = [mmr(), mmr()];
        let error = read(&twice, &[("MMR", "Maternal mortality ratio")], &[])
            .unwrap_err()
            .to_string();
        assert!(error.contains("matches more than one column"), "{error}");
    }

    #[test]
    fn glossary_links_keep_their_words() {
        assert_eq!(
            without_glossary_links(
                "Carbon dioxide (CO₂) emissions from [burning fossil fuels and industrial processes](#dod:fossilemissions). Not [land-use change](#dod:land-use-change-emissions)."
            ),
            "Carbon dioxide (CO₂) emissions from burning fossil fuels and industrial processes. Not land-use change."
        );
        assert_eq!(without_glossary_links("a [b] c (d)"), "a [b] c (d)");
    }
}
