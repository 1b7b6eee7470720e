//! `data/sources/*.toml`: one declarative file per source, and the whole loaded catalog.

use std::{
    collections::BTreeMap,
    path::{Component, Path, PathBuf},
};

use corpus::SourceRecord;
use serde::Deserialize;

use super::{
    metric_map::MetricMapping,
    settings::{CorpusSettings, check_https, is_snake_id},
};
use crate::BakeError;

/// The attribute columns an observation can carry beside its value (see `corpus::observation`).
pub const ATTRIBUTE_COLUMNS: [&str; 2] = ["standard_error", "source_count"];

/// One source file of the catalog.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceEntry {
    /// Filename-safe id, lower snake case; must equal the file's stem (`wdi` in `wdi.toml`).
    pub id: String,
    /// Dataset name.
    pub name: String,
    /// Publisher.
    pub publisher: String,
    /// Licence id, one of `data/corpus.toml`'s `licenses`.
    pub license: String,
    /// Licence text URL (https).
    pub license_url: String,
    /// Dataset homepage (https).
    pub homepage: String,
    /// Folder of the raw files, relative to the sources directory.
    pub raw_path: String,
    /// Release the values come from.
    pub vintage: String,
    /// Retrieval date of the raw files, ISO 8601 (`2026-07-01`).
    pub retrieved_at: String,
    /// Citation id prefix of this source's observations; lower-case letters and digits, no dash.
    /// Required for observation sources.
    #[serde(default)]
    pub citation_prefix: Option<String>,
    /// Deep-link pattern (https), with optional `{code}`, `{iso2}`, `{iso3}` template fields; the most specific
    /// page the publisher offers. Required for observation sources.
    #[serde(default)]
    pub deep_link: Option<String>,
    /// What `deep_link` opens (`indicator_country`, `country`, `indicator`, `dataset`); defaults to what its
    /// template fields allow. A link without template fields is `dataset` unless declared `indicator`
    /// (the page of a single-indicator source).
    #[serde(default)]
    pub deep_link_kind: Option<corpus::LinkKind>,
    /// Attribution text. Required for observation sources.
    #[serde(default)]
    pub attribution: Option<String>,
    /// Indicator mapping CSV, relative to the catalog directory. Required for observation sources.
    #[serde(default)]
    pub metrics: Option<String>,
    /// For metadata sources: the id of the observation source it describes.
    #[serde(default)]
    pub describes: Option<String>,
    /// For an older vintage kept citable beside a newer one (WEO April 2019 beside April 2025): the id of
    /// the observation source of the newer vintage, which answers by default. Data health and the
    /// catalog mark this source as superseded; its values stay baked and cited.
    #[serde(default)]
    pub superseded_by: Option<String>,
    /// The year the publisher released this vintage (IMF WEO April 2025: `2025`). Values the connector
    /// flags `projection` (after "Estimates Start After") of a year before it are estimates of past
    /// years (`estimate`); unflagged values of a year from it on are projections made at the vintage
    /// (`projection|vintage_projection`). See `crate::ingest::projection::split_by_release`.
    /// Absent: the connector's flags stand as read. Must be a year in 1900–2100 and, where `vintage`
    /// starts with a year, that year.
    #[serde(default)]
    pub release_year: Option<i32>,
    /// How to read the raw files.
    pub connector: Connector,
    /// Where `pipeline fetch` refreshes the raw files from (the publisher's bulk download or API),
    /// checked on load ([`super::refresh`]); absent: refreshed by hand.
    #[serde(default)]
    pub refresh: Option<super::refresh::Refresh>,
    /// Why the source has no `[refresh]`: what its publisher does not serve (no documented download of
    /// the layout, a request form), so a steward refreshes it by hand. Never beside a `[refresh]`; every
    /// observation source of the default catalog declares one of the two (a test holds it).
    #[serde(default)]
    pub refresh_by_hand: Option<String>,
    /// Where the bake reads the values from: the staged extract, or the publisher's files a fetch brought
    /// (set by [`Catalog::refreshed`]; never in a catalog file).
    #[serde(skip)]
    pub read_from: super::lock::ReadFrom,
}

/// How a connector's raw files name countries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntityNaming {
    /// ISO3 or publisher codes (`MEX`, `mex`, `LCN`): an unknown code is dropped and reported.
    #[default]
    Codes,
    /// Names (`Bolivia`, `Saint Lucia`), mapped with the shared normaliser: a name that does not map fails
    /// the bake with the list of unmapped names, unless listed in `ignore_entities`.
    Names,
}

/// Per-country, per-indicator years after which values are projections (IMF WEO `estimates_start_after`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectionNotes {
    /// The notes CSV, relative to the source's raw folder.
    pub file: String,
    /// Column holding the country code.
    pub country_column: String,
    /// Column holding the indicator key (the mapping's `raw_key`).
    pub indicator_column: String,
    /// Column holding the last year of actual data; later years are flagged `projection`.
    pub after_column: String,
}

/// One Our World in Data download read by the `owid_grapher_csv` connector: the CSV and, where the
/// publisher ships one, its `.metadata.json` (grapher charts; the co2-data CSV has none).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwidFile {
    /// The CSV (`Entity,Code,Year,<value columns>` or `country,year,iso_code,…`), relative to the raw folder.
    pub csv: String,
    /// The chart's `.metadata.json` (titles, descriptions, short names, `lastUpdated`), if any.
    #[serde(default)]
    pub metadata: Option<String>,
}

/// How a source's raw files are laid out. Paths are relative to the source's `raw_path`. Patterns may use
/// `{code_lower}` (the indicator code in lower case) and `{raw_key}` (the mapping's `raw_key`).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Connector {
    /// Country codes and es/en/pt names (`latam_country_names.csv`).
    CountryNames {
        /// The CSV file.
        file: String,
        /// The folder of i18n-iso-countries' `codes.json` and `{en,es,pt}.json` (every ISO 3166-1 entry):
        /// the places outside the corpus ([`corpus::Places::outside`]); none when absent.
        #[serde(default)]
        world_names: Option<String>,
    },
    /// One long CSV per indicator (WDI, IMF WEO in DDF layout).
    LongCsvPerIndicator {
        /// Path pattern of each indicator's data CSV.
        file: String,
        /// Path pattern of each indicator's datapackage.json (title, definition), if any.
        #[serde(default)]
        descriptor: Option<String>,
        /// Column holding the country code.
        country_column: String,
        /// Column holding the year.
        year_column: String,
        /// Column holding the value (may be a pattern, e.g. `{raw_key}`).
        value_column: String,
        /// Value cells meaning "no data" (kept out as absent rows, counted in the report).
        #[serde(default)]
        missing_markers: Vec<String>,
        /// Years after which values are projections, per country and indicator.
        #[serde(default)]
        projections: Option<ProjectionNotes>,
    },
    /// One long CSV holding every indicator, named in `indicator_column` by the mapping's `raw_key` (WGI).
    LongCsv {
        /// The CSV file.
        file: String,
        /// Column naming the indicator.
        indicator_column: String,
        /// Column holding the country code.
        country_column: String,
        /// Column holding the year.
        year_column: String,
        /// Column holding the value.
        value_column: String,
        /// Value cells meaning "no data".
        #[serde(default)]
        missing_markers: Vec<String>,
        /// Attribute columns kept beside the value: observation column → raw column.
        #[serde(default)]
        attributes: BTreeMap<String, String>,
    },
    /// One CSV with a country and a year column and one value column per indicator (the mapping's
    /// `raw_key` names the column): ND-GAIN, WBL, CEPAL, OWID.
    ColumnsCsv {
        /// The CSV file.
        file: String,
        /// Column holding the country code or name.
        country_column: String,
        /// Column holding the year.
        year_column: String,
        /// Whether countries are codes or names.
        #[serde(default)]
        entities: EntityNaming,
        /// Entity names known not to be countries of the corpus (dropped and reported, never failing).
        #[serde(default)]
        ignore_entities: Vec<String>,
        /// Value cells meaning "no data".
        #[serde(default)]
        missing_markers: Vec<String>,
    },
    /// One CSV per indicator with a country column and one column per year (UNDP HDI extract; the
    /// ND-GAIN download's `resources/…` files, header `"ISO3","Name","1995",…`).
    YearColumnsCsv {
        /// Path pattern of the CSV (`{raw_key}`, `{code_lower}`), for every indicator not in `files`.
        #[serde(default)]
        file: Option<String>,
        /// Each indicator's own file by the mapping's `raw_key`, where the publisher's file names follow
        /// no one pattern (ND-GAIN: `vuln_exposure` is `resources/vulnerability/exposure.csv`).
        #[serde(default)]
        files: BTreeMap<String, String>,
        /// Column holding the country code.
        country_column: String,
        /// Value cells meaning "no data".
        #[serde(default)]
        missing_markers: Vec<String>,
    },
    /// Record-level rows summed per country and year; each indicator is the sum over the rows whose
    /// `filter_column` equals its `raw_key` (`*` sums every row). OECD CRS disbursements.
    SumCsv {
        /// Path pattern of the CSV (`{raw_key}` is not allowed here: one file per source entry).
        file: String,
        /// Column holding the country code.
        country_column: String,
        /// Column holding the year.
        year_column: String,
        /// Column holding the amount.
        value_column: String,
        /// Column whose value selects an indicator's rows.
        filter_column: String,
    },
    /// One CSV with a row per country and indicator and a column per year (`1980` … `2030`; IMF WEO by
    /// country, April 2025). The mapping's `raw_key` is matched against `indicator_column`. With
    /// `after_column`, each row's own "Estimates Start After" year: later years are flagged `projection`;
    /// `0`, blank or not a year means unknown and flags nothing (see `crate::ingest::wide_years`).
    WideYearsCsv {
        /// The CSV file.
        file: String,
        /// Column naming the indicator (the mapping's `raw_key`).
        indicator_column: String,
        /// Column holding the country code.
        country_column: String,
        /// Column holding the last year of actual data of the row, if any.
        #[serde(default)]
        after_column: Option<String>,
        /// Column holding the publisher's title of the indicator (the first row's cell is used).
        #[serde(default)]
        title_column: Option<String>,
        /// Column holding the unit, appended to the title in parentheses.
        #[serde(default)]
        units_column: Option<String>,
        /// Column holding the publisher's definition of the indicator (the first row's cell is used).
        #[serde(default)]
        description_column: Option<String>,
        /// Value cells meaning "no data".
        #[serde(default)]
        missing_markers: Vec<String>,
    },
    /// The IMF WEO database as the IMF serves it: the "By Countries" file `WEO<Mon><YYYY>all.xls` (and the
    /// query tool's `WEO_Data.xls`), which is tab-separated text despite its name, UTF-16LE (October 2020
    /// on, BOM optional) or Latin-1 (earlier), CRLF, with a blank line and a footer line after the data.
    /// Columns as [`Connector::WideYearsCsv`] (read by name; the mapping's `raw_key` is matched against
    /// `indicator_column` ignoring ASCII case), `n/a` and `--` missing by default, thousands separators
    /// removed (see `crate::ingest::imf_weo_text`). The Data Portal's xlsx (October 2025 on) is not read.
    ImfWeoText {
        /// The text file.
        file: String,
        /// Column naming the indicator (`WEO Subject Code`).
        indicator_column: String,
        /// Column holding the country code (`ISO`).
        country_column: String,
        /// Column holding the last year of actual data of the row (`Estimates Start After`), if any.
        #[serde(default)]
        after_column: Option<String>,
        /// Column holding the publisher's title of the indicator (`Subject Descriptor`).
        #[serde(default)]
        title_column: Option<String>,
        /// Column holding the unit (`Units`), appended to the title in parentheses.
        #[serde(default)]
        units_column: Option<String>,
        /// Column holding the publisher's definition (`Subject Notes`).
        #[serde(default)]
        description_column: Option<String>,
        /// Value cells meaning "no data"; the WEO's own `n/a` and `--` unless declared.
        #[serde(default = "weo_missing_markers")]
        missing_markers: Vec<String>,
    },
    /// UNDP's "Composite indices complete time series" CSV as the HDR Office serves it
    /// (`HDR25_Composite_indices_complete_time_series.csv`): Latin-1, CRLF, one row per country or
    /// aggregate, columns `iso3`, `country`, …, then `<indicator>_<year>` (`hdi_1990`, `gni_pc_f_2023`).
    /// The mapping's `raw_key` is the indicator prefix (`hdi`, `le`, `gnipc`, `ihdi`, `gii`, `phdi`, …);
    /// the single-year rank and group columns are refused as indicators (see `crate::ingest::undp_hdr`).
    UndpHdrCsv {
        /// The CSV file.
        file: String,
        /// Column holding the ISO3 code (`iso3`).
        country_column: String,
        /// Value cells meaning "no data" besides empty ones; the file's one literal `NaN` unless declared.
        #[serde(default = "hdr_missing_markers")]
        missing_markers: Vec<String>,
    },
    /// One CSV whose numeric values are multiplied by a declared unit factor `scale` (GCB MtC × 3.664 =
    /// Mt CO2; OWID tonnes × 1e-6 = Mt). Long layout when `indicator_column` and `value_column` are given
    /// (the mapping's `raw_key` is matched against the indicator column), else one value column per
    /// indicator named by its `raw_key`. Cells that are not numbers are passed on as written.
    ScaledCsv {
        /// The CSV file.
        file: String,
        /// Column holding the country code.
        country_column: String,
        /// Column holding the year.
        year_column: String,
        /// Column naming the indicator (long layout).
        #[serde(default)]
        indicator_column: Option<String>,
        /// Column holding the value (long layout).
        #[serde(default)]
        value_column: Option<String>,
        /// Factor every numeric value is multiplied by, into the mapping's unit.
        scale: f64,
        /// Value cells meaning "no data".
        #[serde(default)]
        missing_markers: Vec<String>,
    },
    /// The World Bank's wide CSV as it serves it (`crate::ingest::databank`): DataBank bulk `WDICSV.csv` /
    /// `WGIData.csv`, the `API_<code>_DS2` download with its preamble, DataBank exports. One row per
    /// economy × indicator, one column per year; rows matched on `indicator_column` against the mapping's
    /// `source_code`.
    DatabankCsv {
        /// The CSV; with `{code}` or `{code_lower}`, one file per mapped indicator.
        file: String,
        /// Column holding the country code (`Country Code`); also how the header line is found.
        country_column: String,
        /// Column holding the indicator code (`Indicator Code`).
        indicator_column: String,
        /// Column holding the publisher's title (`Indicator Name`), if any.
        #[serde(default)]
        title_column: Option<String>,
        /// Value cells meaning "no data" besides the empty cell (`..` in DataBank exports).
        #[serde(default)]
        missing_markers: Vec<String>,
        /// Attributes kept beside the value: observation column → indicator-code pattern of the row holding
        /// it, `{stem}` = the mapped code without its last part (`{stem}.STD.ERR`: `CC.EST` → `CC.STD.ERR`).
        #[serde(default)]
        attributes: BTreeMap<String, String>,
    },
    /// World Bank Indicators API v2 JSON (`[page_info, records]`), one response file per mapped indicator
    /// (`crate::ingest::wb_api`).
    WbApiJson {
        /// Path pattern of each indicator's response, with `{code}` or `{code_lower}` (the API code).
        file: String,
        /// The API's indicator code per mapped `source_code`, where they differ (`WBL.INDEX` =
        /// `SG.LAW.INDX`); absent: the `source_code` is the API's code.
        #[serde(default)]
        api_codes: BTreeMap<String, String>,
    },
    /// Curated records: the Climate Change Laws of the World "laws and policies" CSV export
    /// (`crate::ingest::cclw_export`), read into the staged extract's columns. `data/curated/` only.
    CclwExport {
        /// The export, relative to the raw folder.
        file: String,
    },
    /// Curated records: the NOAA NCEI significant-earthquake TSV export (`crate::ingest::ncei_earthquakes`).
    /// `data/curated/` only.
    NceiTsv {
        /// The TSV, relative to the raw folder.
        file: String,
        /// The reviewed `Location Name` → ISO3 mapping, relative to the catalog directory.
        locations: String,
    },
    /// Curated records: an NCEI hazel API response (`{"items": [...]}`, `crate::ingest::ncei_earthquakes`).
    /// `data/curated/` only.
    NceiHazelJson {
        /// The JSON, relative to the raw folder.
        file: String,
        /// The reviewed `Location Name` → ISO3 mapping, relative to the catalog directory.
        locations: String,
    },
    /// Curated records: pages of the World Bank projects search API v2 (`crate::ingest::wb_projects_api`),
    /// read in order, the last one empty; they stand for the newer export. `data/curated/` only.
    WbProjectsApi {
        /// The pages, relative to the raw folder.
        pages: Vec<String>,
    },
    /// Our World in Data tables, long by entity and year, wide by variable, read by column NAME
    /// (`crate::ingest::owid_grapher`): grapher chart CSVs (`Entity,Code,Year,…`, long titles or, with
    /// `useColumnShortNames=true`, `entity,code,year` and short names) with their `.metadata.json`, and
    /// the owid-co2-data CSV (`iso_code`, `country`, `year`). Each mapping row's `raw_key` (or its entry in
    /// `columns`) names one value column of one of the files, by title, short name or metadata key.
    OwidGrapherCsv {
        /// The downloads, each a CSV and its optional metadata JSON.
        files: Vec<OwidFile>,
        /// `raw_key` → the column that holds it in these files, where the name differs (a co2-data
        /// variable such as `co2_per_capita` for the grapher title `Annual CO₂ emissions (per capita)`).
        #[serde(default)]
        columns: BTreeMap<String, String>,
        /// Factor every numeric value is multiplied by, into the mapping's unit (OWID tonnes × 1e-6 =
        /// million tonnes); absent: values as published.
        #[serde(default)]
        scale: Option<f64>,
        /// Value cells meaning "no data" (OWID writes none: an empty cell).
        #[serde(default)]
        missing_markers: Vec<String>,
    },
    /// The Global Carbon Project's national fossil CO2 flat CSV (`GCB<release>_MtCO2_flat.csv`, Zenodo):
    /// long by country and year, one column per emission type, in million tonnes of CO2 (the national
    /// xlsx is in million tonnes of CARBON), read by column name (`crate::ingest::gcb_flat`).
    GcbFlatCsv {
        /// The flat CSV, relative to the raw folder; its name must say `MtCO2` (the unit it is in).
        file: String,
        /// `raw_key` → the flat file's column (`territorial` → `Total`).
        columns: BTreeMap<String, String>,
        /// `raw_key`s of the mapping the flat file does not carry (consumption-based emissions and
        /// transfers are published in the xlsx only): read as no rows.
        #[serde(default)]
        not_in_file: Vec<String>,
    },
    /// World Bank WDI series metadata (`WDISeries.csv`, `WDICountry-Series.csv`).
    WdiSeriesMetadata {
        /// Series metadata CSV.
        series_file: String,
        /// Country-series notes CSV.
        country_series_file: String,
    },
}

/// The WEO's missing-value markers (`n/a`, `--`).
fn weo_missing_markers() -> Vec<String> {
    vec!["n/a".to_string(), "--".to_string()]
}

/// The HDR file's missing-value marker besides empty cells: one literal `NaN` (RWA `diff_hdi_phdi_1994`).
fn hdr_missing_markers() -> Vec<String> {
    vec!["NaN".to_string()]
}

impl Connector {
    /// Whether this connector yields observations (and so needs citations and a metric mapping).
    pub fn yields_observations(&self) -> bool {
        !matches!(
            self,
            Connector::CountryNames { .. } | Connector::WdiSeriesMetadata { .. }
        ) && !self.reads_records()
    }

    /// Whether this connector reads a curated source's records (a publisher's layout of
    /// `data/curated/`), not observations.
    pub fn reads_records(&self) -> bool {
        matches!(
            self,
            Connector::CclwExport { .. }
                | Connector::NceiTsv { .. }
                | Connector::NceiHazelJson { .. }
                | Connector::WbProjectsApi { .. }
        )
    }

    /// The publisher's code of the mapped indicator `source_code` as this connector's files name it: the
    /// `api_codes` entry of a `wb_api_json` connector, else `source_code` itself.
    pub fn publisher_code<'a>(&'a self, source_code: &'a str) -> &'a str {
        match self {
            Connector::WbApiJson { api_codes, .. } => api_codes
                .get(source_code)
                .map_or(source_code, String::as_str),
            _ => source_code,
        }
    }

    /// Whether the connector reads one file per mapped indicator (`long_csv_per_indicator`,
    /// `wb_api_json`), so a batch of indicators can be read without the others.
    pub fn reads_a_file_per_indicator(&self) -> bool {
        matches!(
            self,
            Connector::LongCsvPerIndicator { .. } | Connector::WbApiJson { .. }
        )
    }

    /// The connector's kind as written in the catalog.
    pub fn kind(&self) -> &'static str {
        match self {
            Connector::CountryNames { .. } => "country_names",
            Connector::LongCsvPerIndicator { .. } => "long_csv_per_indicator",
            Connector::LongCsv { .. } => "long_csv",
            Connector::ColumnsCsv { .. } => "columns_csv",
            Connector::YearColumnsCsv { .. } => "year_columns_csv",
            Connector::SumCsv { .. } => "sum_csv",
            Connector::WideYearsCsv { .. } => "wide_years_csv",
            Connector::ImfWeoText { .. } => "imf_weo_text",
            Connector::UndpHdrCsv { .. } => "undp_hdr_csv",
            Connector::ScaledCsv { .. } => "scaled_csv",
            Connector::DatabankCsv { .. } => "databank_csv",
            Connector::WbApiJson { .. } => "wb_api_json",
            Connector::OwidGrapherCsv { .. } => "owid_grapher_csv",
            Connector::GcbFlatCsv { .. } => "gcb_flat_csv",
            Connector::WdiSeriesMetadata { .. } => "wdi_series_metadata",
            Connector::CclwExport { .. } => "cclw_export",
            Connector::NceiTsv { .. } => "ncei_tsv",
            Connector::NceiHazelJson { .. } => "ncei_hazel_json",
            Connector::WbProjectsApi { .. } => "wb_projects_api",
        }
    }
}

/// The whole catalog, loaded and validated.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// The catalog directory (`data/`).
    pub dir: PathBuf,
    /// `corpus.toml`.
    pub settings: CorpusSettings,
    /// Every source, sorted by id.
    pub sources: Vec<SourceEntry>,
    /// The metric mapping of each observation source, by source id.
    pub mappings: BTreeMap<String, MetricMapping>,
    /// Declared concordance pairs (`concordance.toml`).
    pub concordance: Vec<super::concordance::ConcordancePair>,
}

impl Catalog {
    /// Loads `corpus.toml`, every `sources/*.toml` and the mapping files they name, validating each.
    ///
    /// # Errors
    /// [`BakeError::Catalog`] naming the first invalid file and field.
    pub fn load(dir: &Path) -> Result<Catalog, BakeError> {
        let settings = CorpusSettings::load(&dir.join("corpus.toml"))?;
        let sources_dir = dir.join("sources");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&sources_dir)
            .map_err(|error| {
                BakeError::catalog(
                    &sources_dir,
                    format!("cannot list source catalog files: {error}"),
                )
            })?
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                path.extension()
                    .is_some_and(|extension| extension == "toml")
            })
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(BakeError::catalog(
                &sources_dir,
                "no source catalog files (*.toml)",
            ));
        }
        let policy = super::refresh::FetchPolicy::checked(settings.fetch.as_ref())
            .map_err(|message| BakeError::catalog(dir.join("corpus.toml"), message))?;
        let mut sources = Vec::with_capacity(files.len());
        for file in &files {
            let text = std::fs::read_to_string(file)
                .map_err(|error| BakeError::catalog(file, format!("cannot read: {error}")))?;
            let entry: SourceEntry = toml::from_str(&text)
                .map_err(|error| BakeError::catalog(file, error.to_string()))?;
            entry
                .validate(file, &settings)
                .map_err(|message| BakeError::catalog(file, message))?;
            if let Some(refresh) = &entry.refresh {
                refresh
                    .validate(&policy)
                    .map_err(|message| BakeError::catalog(file, message))?;
            }
            match (
                &entry.refresh,
                entry.refresh_by_hand.as_deref().map(str::trim),
            ) {
                (Some(_), Some(_)) => {
                    return Err(BakeError::catalog(
                        file,
                        "refresh_by_hand: a source with a [refresh] is not refreshed by hand; keep one",
                    ));
                }
                (None, Some("")) => {
                    return Err(BakeError::catalog(
                        file,
                        "refresh_by_hand: say why the publisher's files cannot be fetched",
                    ));
                }
                _ => {}
            }
            sources.push(entry);
        }
        sources.sort_by(|left, right| left.id.cmp(&right.id));
        let mut mappings = BTreeMap::new();
        for source in sources
            .iter()
            .filter(|source| source.connector.yields_observations())
        {
            let mapping_file = dir.join(source.metrics.as_deref().expect("validated"));
            mappings.insert(
                source.id.clone(),
                MetricMapping::load(&mapping_file, &settings)?,
            );
        }
        check_cross_source(dir, &sources, &mappings)?;
        let metric_ids: Vec<String> = mappings
            .values()
            .flat_map(|mapping| {
                mapping
                    .rows
                    .iter()
                    .map(|row| corpus::Metric::id_for_code(&row.source_code))
            })
            .collect();
        let concordance = super::concordance::load(&dir.join("concordance.toml"), &metric_ids)?;
        Ok(Catalog {
            dir: dir.to_path_buf(),
            settings,
            sources,
            mappings,
            concordance,
        })
    }

    /// The source with this id.
    pub fn source(&self, id: &str) -> Option<&SourceEntry> {
        self.sources.iter().find(|source| source.id == id)
    }
}

impl SourceEntry {
    /// The source-registry record of an observation source (`None` for metadata sources).
    pub fn record(&self) -> Option<SourceRecord> {
        Some(SourceRecord {
            id: self.id.clone(),
            citation_prefix: self.citation_prefix.clone()?,
            name: self.name.clone(),
            publisher: self.publisher.clone(),
            license: self.license.clone(),
            license_url: self.license_url.clone(),
            homepage: self.homepage.clone(),
            vintage: self.vintage.clone(),
            retrieved_at: self.retrieved_at.clone(),
            deep_link: self.deep_link.clone()?,
            deep_link_kind: self.link_kind(),
            attribution: self.attribution.clone()?,
            superseded_by: self.superseded_by.clone(),
        })
    }

    /// What the source's citation link opens: as declared, else what its template fields allow.
    pub fn link_kind(&self) -> corpus::LinkKind {
        let inferred = corpus::LinkKind::of_pattern(self.deep_link.as_deref().unwrap_or_default());
        self.deep_link_kind.unwrap_or(inferred)
    }

    /// The source's raw folder inside `sources_dir`.
    pub fn raw_dir(&self, sources_dir: &Path) -> PathBuf {
        sources_dir.join(&self.raw_path)
    }

    fn validate(&self, file: &Path, settings: &CorpusSettings) -> Result<(), String> {
        let stem = file
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or_default();
        if !is_snake_id(&self.id) {
            return Err(format!(
                "id `{}`: use a filename-safe lower snake case id, e.g. `wdi`",
                self.id
            ));
        }
        if self.id != stem {
            return Err(format!(
                "id `{}`: must equal the file name `{stem}`",
                self.id
            ));
        }
        if settings.license(&self.license).is_none() {
            return Err(format!(
                "license `{}`: not declared in corpus.toml; valid: {}",
                self.license,
                settings.license_ids()
            ));
        }
        check_https("license_url", &self.license_url)?;
        check_https("homepage", &self.homepage)?;
        check_relative("raw_path", &self.raw_path)?;
        check_iso_date("retrieved_at", &self.retrieved_at)?;
        if self.connector.yields_observations() {
            let prefix = self
                .citation_prefix
                .as_deref()
                .ok_or("citation_prefix: required for an observation source, e.g. `wb`")?;
            if prefix.is_empty()
                || !prefix
                    .chars()
                    .all(|character| character.is_ascii_lowercase() || character.is_ascii_digit())
            {
                return Err(format!(
                    "citation_prefix `{prefix}`: use lower-case letters and digits only (no dash), e.g. `wb`"
                ));
            }
            let deep_link = self
                .deep_link
                .as_deref()
                .ok_or("deep_link: required for an observation source")?;
            check_https("deep_link", deep_link)?;
            check_link_kind(deep_link, self.deep_link_kind)?;
            self.attribution
                .as_deref()
                .ok_or("attribution: required for an observation source")?;
            let metrics = self
                .metrics
                .as_deref()
                .ok_or("metrics: required for an observation source, e.g. `metrics/wdi.csv`")?;
            check_relative("metrics", metrics)?;
        }
        if let Some(refresh_connector) = self
            .refresh
            .as_ref()
            .and_then(|refresh| refresh.connector.as_ref())
        {
            let reads = |connector: &Connector| match connector {
                Connector::CountryNames { .. } => "the country list",
                Connector::WdiSeriesMetadata { .. } => "series metadata",
                _ => "observations",
            };
            if reads(refresh_connector) != reads(&self.connector) {
                return Err(format!(
                    "refresh.connector: `{}` reads {}, but this source's `{}` reads {}; a refresh connector reads the publisher's files of the same content",
                    refresh_connector.kind(),
                    reads(refresh_connector),
                    self.connector.kind(),
                    reads(&self.connector)
                ));
            }
            let mut checked = self.clone();
            checked.connector = refresh_connector.clone();
            checked.refresh = None;
            checked
                .validate(file, settings)
                .map_err(|message| message.replacen("connector", "refresh.connector", 1))?;
        }
        match &self.connector {
            Connector::CountryNames { file, world_names } => {
                check_relative("connector.file", file)?;
                match world_names {
                    Some(folder) => check_relative("connector.world_names", folder),
                    None => Ok(()),
                }
            }
            Connector::LongCsvPerIndicator {
                file,
                descriptor,
                projections,
                ..
            } => {
                check_relative("connector.file", file)?;
                if !file.contains("{code_lower}") && !file.contains("{raw_key}") {
                    return Err(format!(
                        "connector.file `{file}`: must contain a `{{code_lower}}` or `{{raw_key}}` template field"
                    ));
                }
                if let Some(projections) = projections {
                    check_relative("connector.projections.file", &projections.file)?;
                }
                descriptor.as_deref().map_or(Ok(()), |descriptor| {
                    check_relative("connector.descriptor", descriptor)
                })
            }
            Connector::ColumnsCsv { file, .. }
            | Connector::SumCsv { file, .. }
            | Connector::WideYearsCsv { file, .. }
            | Connector::ImfWeoText { file, .. }
            | Connector::UndpHdrCsv { file, .. } => check_relative("connector.file", file),
            Connector::YearColumnsCsv { file, files, .. } => {
                if file.is_none() && files.is_empty() {
                    return Err("connector.file or connector.files: give the file pattern, or each indicator's file by raw_key".into());
                }
                if let Some(file) = file {
                    check_relative("connector.file", file)?;
                }
                for (raw_key, file) in files {
                    check_relative(&format!("connector.files.{raw_key}"), file)?;
                }
                Ok(())
            }
            Connector::ScaledCsv {
                file,
                indicator_column,
                value_column,
                scale,
                ..
            } => {
                check_relative("connector.file", file)?;
                if !(scale.is_finite() && *scale > 0.0) {
                    return Err(format!(
                        "connector.scale {scale}: must be a positive number (the unit factor, e.g. 3.664)"
                    ));
                }
                if indicator_column.is_some() != value_column.is_some() {
                    return Err("connector.indicator_column and connector.value_column: give both (long layout) or neither (one value column per indicator)".into());
                }
                Ok(())
            }
            Connector::OwidGrapherCsv { files, scale, .. } => {
                if files.is_empty() {
                    return Err("connector.files: list at least one download, e.g. `[{ csv = \"electoral-democracy-index.csv\" }]`".into());
                }
                for owid_file in files {
                    check_relative("connector.files.csv", &owid_file.csv)?;
                    if let Some(metadata) = &owid_file.metadata {
                        check_relative("connector.files.metadata", metadata)?;
                    }
                }
                match scale {
                    Some(scale) if !(scale.is_finite() && *scale > 0.0) => Err(format!(
                        "connector.scale {scale}: must be a positive number (the unit factor, e.g. 0.000001)"
                    )),
                    _ => Ok(()),
                }
            }
            Connector::GcbFlatCsv { file, .. } => check_relative("connector.file", file),
            Connector::LongCsv {
                file, attributes, ..
            } => {
                check_relative("connector.file", file)?;
                match attributes
                    .keys()
                    .find(|name| !ATTRIBUTE_COLUMNS.contains(&name.as_str()))
                {
                    Some(name) => Err(format!(
                        "connector.attributes.{name}: unknown attribute; valid: {}",
                        ATTRIBUTE_COLUMNS.join(", ")
                    )),
                    None => Ok(()),
                }
            }
            Connector::DatabankCsv {
                file, attributes, ..
            } => {
                check_relative("connector.file", file)?;
                match attributes
                    .keys()
                    .find(|name| !ATTRIBUTE_COLUMNS.contains(&name.as_str()))
                {
                    Some(name) => Err(format!(
                        "connector.attributes.{name}: unknown attribute; valid: {}",
                        ATTRIBUTE_COLUMNS.join(", ")
                    )),
                    None => Ok(()),
                }
            }
            Connector::WbApiJson { file, .. } => {
                check_relative("connector.file", file)?;
                if !file.contains("{code}") && !file.contains("{code_lower}") {
                    return Err(format!(
                        "connector.file `{file}`: must contain a `{{code}}` or `{{code_lower}}` template field (one API response per indicator)"
                    ));
                }
                Ok(())
            }
            other @ (Connector::CclwExport { .. }
            | Connector::NceiTsv { .. }
            | Connector::NceiHazelJson { .. }
            | Connector::WbProjectsApi { .. }) => Err(format!(
                "connector.kind `{}` reads curated records: declare it in a data/curated/ file's [refresh.connector]",
                other.kind()
            )),
            Connector::WdiSeriesMetadata {
                series_file,
                country_series_file,
            } => {
                check_relative("connector.series_file", series_file)?;
                check_relative("connector.country_series_file", country_series_file)?;
                self.describes.as_deref().ok_or(
                    "describes: required for a metadata source (the id of the source it describes)",
                )?;
                Ok(())
            }
        }
    }
}

/// A declared link kind must be what the pattern's template fields give; a pattern without fields may be
/// declared `indicator` (the page of a single-indicator source) or `dataset`.
fn check_link_kind(pattern: &str, declared: Option<corpus::LinkKind>) -> Result<(), String> {
    use corpus::LinkKind;
    let inferred = LinkKind::of_pattern(pattern);
    match declared {
        None => Ok(()),
        Some(kind) if kind == inferred => Ok(()),
        Some(LinkKind::Indicator) if inferred == LinkKind::Dataset => Ok(()),
        Some(kind) => Err(format!(
            "deep_link_kind `{}`: the pattern `{pattern}` opens `{}` (from its template fields {{code}}, {{iso2}}, {{iso3}}); valid: {}",
            kind.as_str(),
            inferred.as_str(),
            if inferred == LinkKind::Dataset {
                "dataset, indicator".to_string()
            } else {
                inferred.as_str().to_string()
            }
        )),
    }
}

fn check_cross_source(
    dir: &Path,
    sources: &[SourceEntry],
    mappings: &BTreeMap<String, MetricMapping>,
) -> Result<(), BakeError> {
    // A prefix may be shared by sources of one publisher (WDI's releases all cite as `wb`): a citation id
    // is `{prefix}-{code}-{iso3}-{year}` and metric ids are unique across sources (checked below), so the
    // ids stay unique and each resolves to its own source.
    let mut prefixes: BTreeMap<String, &SourceEntry> = BTreeMap::new();
    for source in sources {
        let file = dir.join("sources").join(format!("{}.toml", source.id));
        if let Some(prefix) = &source.citation_prefix
            && let Some(other) = prefixes.insert(prefix.clone(), source)
            && other.publisher != source.publisher
        {
            return Err(BakeError::catalog(
                file,
                format!(
                    "citation_prefix `{prefix}`: already used by source `{}` of another publisher (`{}`); sources of one publisher may share a prefix",
                    other.id, other.publisher
                ),
            ));
        }
        if let Some(described) = &source.describes
            && !sources.iter().any(|candidate| {
                &candidate.id == described && candidate.connector.yields_observations()
            })
        {
            return Err(BakeError::catalog(
                file,
                format!("describes `{described}`: no observation source with that id"),
            ));
        }
        if let Some(release_year) = source.release_year {
            let vintage_year = source
                .vintage
                .get(..4)
                .and_then(|year| year.parse::<i32>().ok());
            if !(1900..=2100).contains(&release_year)
                || vintage_year.is_some_and(|year| year != release_year)
            {
                return Err(BakeError::catalog(
                    file,
                    format!(
                        "release_year {release_year}: the year the vintage `{}` was released (1900-2100, the vintage's own year)",
                        source.vintage
                    ),
                ));
            }
        }
        if let Some(newer) = &source.superseded_by
            && (newer == &source.id
                || !sources.iter().any(|candidate| {
                    &candidate.id == newer && candidate.connector.yields_observations()
                }))
        {
            let valid: Vec<&str> = sources
                .iter()
                .filter(|candidate| {
                    candidate.id != source.id && candidate.connector.yields_observations()
                })
                .map(|candidate| candidate.id.as_str())
                .collect();
            return Err(BakeError::catalog(
                file,
                format!(
                    "superseded_by `{newer}`: the id of another observation source (the newer vintage); valid: {}",
                    valid.join(", ")
                ),
            ));
        }
    }
    if !sources
        .iter()
        .any(|source| matches!(source.connector, Connector::CountryNames { .. }))
    {
        return Err(BakeError::catalog(
            dir.join("sources"),
            "no source with connector kind `country_names`: the bake needs the country list",
        ));
    }
    let mut metric_ids: BTreeMap<String, &str> = BTreeMap::new();
    for (source_id, mapping) in mappings {
        for row in &mapping.rows {
            let metric_id = corpus::Metric::id_for_code(&row.source_code);
            if let Some(other) = metric_ids.insert(metric_id.clone(), source_id) {
                return Err(BakeError::catalog(
                    &mapping.file,
                    format!(
                        "source_code `{}`: metric id `{metric_id}` is already used by source `{other}`",
                        row.source_code
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn check_relative(field: &str, value: &str) -> Result<(), String> {
    let path = Path::new(value);
    if value.is_empty()
        || path.is_absolute()
        || path
            .components()
            .any(|component| matches!(component, Component::ParentDir))
    {
        return Err(format!(
            "{field} `{value}`: must be a relative path inside its directory (no `..`, not absolute)"
        ));
    }
    Ok(())
}

fn check_iso_date(field: &str, value: &str) -> Result<(), String> {
    let bytes = value.as_bytes();
    let shape_ok = bytes.len() == 10
        && bytes.iter().enumerate().all(|(index, byte)| {
            if index == 4 || index == 7 {
                *byte == b'-'
            } else {
                byte.is_ascii_digit()
            }
        });
    if shape_ok {
        Ok(())
    } else {
        Err(format!(
            "{field} `{value}`: must be an ISO 8601 date, e.g. `2026-07-01`"
        ))
    }
}
