//! What every connector reads a raw file into: raw rows with cells as written ([`RawRow`], [`RawFile`]),
//! the publisher's own description of an indicator ([`Descriptor`]), and the file path as reports show it.

use std::path::Path;

/// One data row of a raw file, cells as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRow {
    /// Index of the indicator in the source's metric mapping.
    pub mapping_idx: usize,
    /// 1-based line in the raw file (header is line 1).
    pub line: u64,
    /// Country or aggregate code cell.
    pub country: String,
    /// Year cell.
    pub year: String,
    /// Value cell.
    pub value: String,
    /// Attribute cells, in `crate::sources::catalog::ATTRIBUTE_COLUMNS` order (`None` if not declared).
    pub attributes: [Option<String>; 2],
    /// `|`-separated flags the connector sets (`projection`), empty when none.
    pub flags: String,
}

impl RawRow {
    /// A row without attributes or flags.
    pub fn new(
        mapping_idx: usize,
        line: u64,
        country: String,
        year: String,
        value: String,
    ) -> RawRow {
        RawRow {
            mapping_idx,
            line,
            country,
            year,
            value,
            attributes: [None, None],
            flags: String::new(),
        }
    }
}

/// The raw rows read from one file.
#[derive(Debug, Clone)]
pub struct RawFile {
    /// Path relative to the sources directory, as shown in the bake report.
    pub file: String,
    /// Its data rows, in file order.
    pub rows: Vec<RawRow>,
}

/// The publisher's own description of one indicator, read from a descriptor file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Descriptor {
    /// Title, e.g. `Life expectancy at birth, total (years)`.
    pub title: Option<String>,
    /// Definition.
    pub description: Option<String>,
    /// The release this series' values are, when its file says so per series (the WDI API's
    /// `lastupdated`, an OWID metadata file's date, a release date in the file name): cited instead of
    /// the source's `vintage`.
    pub vintage: Option<String>,
    /// Retrieval date of this series' own file, ISO 8601, when it differs from the source's.
    pub retrieved_at: Option<String>,
}

/// `path` relative to `sources_dir` with forward slashes, for reports.
pub fn relative_display(sources_dir: &Path, path: &Path) -> String {
    path.strip_prefix(sources_dir)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}
