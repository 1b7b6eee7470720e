//! The analysts' files (`exports/`): what the bake writes for pandas, Excel, Arrow and SDMX clients, and the
//! list of them (`exports/downloads.json`) that the server turns into its downloads API, MCP resources
//! and catalog page.
//!
//! Every file lives under [`EXPORTS_DIR`] of the published corpus, so it is hashed in the manifest and swapped
//! with the corpus. A [`Download`] names one file by its path inside `exports/` (`indicators/si_pov_gini.csv`);
//! its size and sha256 are the manifest's entry for `exports/{path}`. Paths are `{subject dir}/{id}{suffix}`:
//!
//! | subject | files |
//! |---|---|
//! | indicator | `indicators/{metric_id}` + `.csv`, `.wide.csv`, `.xlsx`, `.parquet`, `.sdmx.xml`, `.sdmx.csv`, `.sdmx1.csv`, `.zip` |
//! | dataset | `datasets/{dataset_id}` + `.csv.gz`, `.parquet`, `.datapackage.json` |
//! | registry | `registry.xlsx` (metrics, sources, countries, pillars) |
//! | structure | `sdmx/structure.sdmx.xml` (SDMX-ML 2.1 structure message for every `.sdmx.*` file) |
//! | changes | `changes.json` (what this corpus changed against the one it replaced, [`crate::changes`]) |
//! | metadata | `datapackage.json` (Frictionless Data Package of every CSV and Parquet file), `croissant.json` (Croissant 1.1) |
//!
//! Only redistributable series reach these files: they are written from the governed observations, which the
//! licence gate has already filtered.

use serde::{Deserialize, Serialize};

/// The exports directory inside a corpus directory.
pub const EXPORTS_DIR: &str = "exports";

/// The list of downloads, inside a corpus directory.
pub const DOWNLOADS: &str = "exports/downloads.json";

/// The corpus' Frictionless Data Package descriptor, inside `exports/` (id `datapackage`, subject
/// [`Subject::Metadata`]).
pub const DATAPACKAGE: &str = "datapackage.json";
/// The corpus' Croissant 1.1 description, inside `exports/` (id `croissant`, [`Subject::Metadata`]).
pub const CROISSANT: &str = "croissant.json";

/// What a download is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subject {
    /// One indicator (metric id), all countries and years.
    Indicator,
    /// One dataset of `datasets.json` (dataset id).
    Dataset,
    /// The registries: metrics, sources, countries, pillars.
    Registry,
    /// The SDMX structure message.
    Structure,
    /// What this corpus changed against the one it replaced (`changes.json`, [`crate::layout::CHANGES`]).
    Changes,
    /// The corpus described in the metadata standards: `datapackage` (Frictionless) and `croissant`.
    Metadata,
}

impl Subject {
    /// Every subject, in declaration order.
    pub const ALL: [Subject; 6] = [
        Subject::Indicator,
        Subject::Dataset,
        Subject::Registry,
        Subject::Structure,
        Subject::Changes,
        Subject::Metadata,
    ];

    /// The directory of the subject's files inside `exports/` (`""` for single files).
    pub fn dir(self) -> &'static str {
        match self {
            Subject::Indicator => "indicators/",
            Subject::Dataset => "datasets/",
            Subject::Registry => "",
            Subject::Structure => "sdmx/",
            Subject::Changes | Subject::Metadata => "",
        }
    }

    /// The prefix of the subject's MCP resource URIs: `corpus://indicator/`, `corpus://dataset/`,
    /// `corpus://` (registry), `corpus://sdmx/`.
    pub fn uri_prefix(self) -> &'static str {
        match self {
            Subject::Indicator => "corpus://indicator/",
            Subject::Dataset => "corpus://dataset/",
            Subject::Registry => "corpus://",
            Subject::Structure => "corpus://sdmx/",
            Subject::Changes | Subject::Metadata => "corpus://",
        }
    }

    /// The subject's name in the catalog JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Subject::Indicator => "indicator",
            Subject::Dataset => "dataset",
            Subject::Registry => "registry",
            Subject::Structure => "structure",
            Subject::Changes => "changes",
            Subject::Metadata => "metadata",
        }
    }
}

/// A file format of the exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Tidy long CSV (RFC 4180, UTF-8, CRLF, one header row).
    Csv,
    /// Wide CSV: one row per country, one column per year.
    WideCsv,
    /// Gzip-compressed tidy CSV.
    CsvGz,
    /// Office Open XML workbook.
    Xlsx,
    /// Apache Parquet (zstd).
    Parquet,
    /// SDMX-ML 2.1: StructureSpecificData for data, a Structure message for `sdmx/structure.sdmx.xml`.
    SdmxMl,
    /// SDMX-CSV 2.0.
    SdmxCsv,
    /// SDMX-CSV 1.0 (the `DATAFLOW` column; what .Stat Suite serves for systems that lack 2.0).
    SdmxCsv1,
    /// Zip of one indicator: its tidy CSV, `{id}.metadata.json`, `datapackage.json` and `README.md`.
    Zip,
    /// A Frictionless Data Package descriptor (JSON) of one dataset's files.
    DataPackage,
    /// JSON (UTF-8).
    Json,
}

impl Format {
    /// Every format, in catalog order.
    pub const ALL: [Format; 11] = [
        Format::Csv,
        Format::WideCsv,
        Format::CsvGz,
        Format::Xlsx,
        Format::Parquet,
        Format::SdmxMl,
        Format::SdmxCsv,
        Format::SdmxCsv1,
        Format::Zip,
        Format::DataPackage,
        Format::Json,
    ];

    /// The file-name suffix, dot included (`.wide.csv`).
    pub fn suffix(self) -> &'static str {
        match self {
            Format::Csv => ".csv",
            Format::WideCsv => ".wide.csv",
            Format::CsvGz => ".csv.gz",
            Format::Xlsx => ".xlsx",
            Format::Parquet => ".parquet",
            Format::SdmxMl => ".sdmx.xml",
            Format::SdmxCsv => ".sdmx.csv",
            Format::SdmxCsv1 => ".sdmx1.csv",
            Format::Zip => ".zip",
            Format::DataPackage => ".datapackage.json",
            Format::Json => ".json",
        }
    }

    /// The HTTP and MCP media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Csv | Format::WideCsv => "text/csv; charset=utf-8",
            Format::CsvGz => "application/gzip",
            Format::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            Format::Parquet => "application/vnd.apache.parquet",
            Format::SdmxMl => "application/xml; charset=utf-8",
            Format::SdmxCsv => "application/vnd.sdmx.data+csv; version=2.0.0; charset=utf-8",
            Format::SdmxCsv1 => "application/vnd.sdmx.data+csv; version=1.0.0; charset=utf-8",
            Format::Zip => "application/zip",
            Format::DataPackage | Format::Json => "application/json",
        }
    }

    /// Whether the file is UTF-8 text (MCP `resources/read` answers `text`, else a base64 `blob`).
    pub fn is_text(self) -> bool {
        matches!(
            self,
            Format::Csv
                | Format::WideCsv
                | Format::SdmxMl
                | Format::SdmxCsv
                | Format::SdmxCsv1
                | Format::DataPackage
                | Format::Json
        )
    }

    /// The short name used in the catalog JSON (`wide_csv`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::WideCsv => "wide_csv",
            Format::CsvGz => "csv_gz",
            Format::Xlsx => "xlsx",
            Format::Parquet => "parquet",
            Format::SdmxMl => "sdmx_ml",
            Format::SdmxCsv => "sdmx_csv",
            Format::SdmxCsv1 => "sdmx_csv_1",
            Format::Zip => "zip",
            Format::DataPackage => "datapackage",
            Format::Json => "json",
        }
    }
}

/// The formats every indicator is exported in, in catalog order.
pub const INDICATOR_FORMATS: [Format; 8] = [
    Format::Csv,
    Format::WideCsv,
    Format::Xlsx,
    Format::Parquet,
    Format::SdmxMl,
    Format::SdmxCsv,
    Format::SdmxCsv1,
    Format::Zip,
];

/// The formats every exported dataset has.
pub const DATASET_FORMATS: [Format; 3] = [Format::CsvGz, Format::Parquet, Format::DataPackage];

/// One downloadable file of `exports/downloads.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Download {
    /// Path inside `exports/` (`indicators/si_pov_gini.csv`); the manifest entry is `exports/{path}`.
    pub path: String,
    /// What the file is about.
    pub subject: Subject,
    /// Metric id or dataset id; `registry` or `structure` for the single files.
    pub id: String,
    /// File format.
    pub format: Format,
    /// Human title (English): the metric's or dataset's title.
    pub title: String,
    /// Licence of the data in the file (SPDX id or the publisher's terms, as in `metrics.json`).
    pub license: String,
}

impl Download {
    /// A download of `subject` `id` in `format`, at the conventional path.
    pub fn new(subject: Subject, id: &str, format: Format, title: &str, license: &str) -> Download {
        Download {
            path: format!("{}{id}{}", subject.dir(), format.suffix()),
            subject,
            id: id.to_string(),
            format,
            title: title.to_string(),
            license: license.to_string(),
        }
    }

    /// Its MCP resource URI (`corpus://indicator/si_pov_gini.csv`).
    pub fn resource_uri(&self) -> String {
        format!(
            "{}{}{}",
            self.subject.uri_prefix(),
            self.id,
            self.format.suffix()
        )
    }

    /// The file name a person saves it under (`si_pov_gini.wide.csv`).
    pub fn file_name(&self) -> String {
        format!("{}{}", self.id, self.format.suffix())
    }

    /// Its name in the manifest (`exports/indicators/si_pov_gini.csv`).
    pub fn artifact_name(&self) -> String {
        format!("{EXPORTS_DIR}/{}", self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_the_convention() {
        let csv = Download::new(
            Subject::Indicator,
            "si_pov_gini",
            Format::WideCsv,
            "Gini",
            "CC-BY-4.0",
        );
        assert_eq!(csv.path, "indicators/si_pov_gini.wide.csv");
        assert_eq!(
            csv.artifact_name(),
            "exports/indicators/si_pov_gini.wide.csv"
        );
        let registry = Download::new(
            Subject::Registry,
            "registry",
            Format::Xlsx,
            "Registry",
            "mixed",
        );
        assert_eq!(registry.path, "registry.xlsx");
        assert_eq!(registry.resource_uri(), "corpus://registry.xlsx");
        assert_eq!(
            csv.resource_uri(),
            "corpus://indicator/si_pov_gini.wide.csv"
        );
    }
}
