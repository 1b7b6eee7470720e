//! A raw CSV file read whole, as every CSV connector reads it: headers, and records with their line
//! numbers (BOM stripped, cells trimmed, short records padded; CRLF and LF line ends give the same lines).
//! [`Table::parse`] reads text a connector has decoded itself (Latin-1, UTF-16LE: `super::text`), comma-
//! or tab-separated.

use std::path::Path;

use crate::BakeError;

/// How a delimited text file separates and quotes its cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delimited {
    /// RFC 4180 CSV: commas, double quotes around cells that need them.
    Csv,
    /// Tab-separated, quotes are plain characters (the IMF WEO text files: notes hold `"` unpaired);
    /// records may be shorter than the header (padded) or longer (extra cells ignored).
    TabUnquoted,
}

/// A CSV read whole: headers and records with their 1-based line numbers.
#[derive(Debug)]
pub(crate) struct Table {
    /// The file read, for error messages.
    path: std::path::PathBuf,
    /// Header cells, as written.
    pub(crate) headers: Vec<String>,
    /// Records in file order: 1-based line and cells (trimmed; one per header).
    pub(crate) records: Vec<(u64, Vec<String>)>,
}

impl Table {
    /// Reads the CSV at `path` whole.
    ///
    /// # Errors
    /// [`BakeError::RawFile`] if the file is unreadable or is not CSV.
    pub(crate) fn read(path: &Path) -> Result<Table, BakeError> {
        let bytes = std::fs::read(path)
            .map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
        let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
        Table::parse_bytes(path, text, Delimited::Csv)
    }

    /// Parses `text`, already decoded by the connector, as read from `path` (named in errors). A leading
    /// BOM is dropped; LF and CRLF both end a record.
    ///
    /// # Errors
    /// [`BakeError::RawFile`] naming `path` and the line of a malformed record.
    pub(crate) fn parse(path: &Path, text: &str, layout: Delimited) -> Result<Table, BakeError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Table::parse_bytes(path, text.as_bytes(), layout)
    }

    /// Parses `bytes`, the CSV of `path` (named in errors), whole: a UTF-8 BOM is stripped (tests build
    /// tables from publishers' bytes in memory).
    #[cfg(test)]
    pub(crate) fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Table, BakeError> {
        let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        Table::parse_bytes(path, text, Delimited::Csv)
    }

    fn parse_bytes(path: &Path, text: &[u8], layout: Delimited) -> Result<Table, BakeError> {
        let mut builder = csv::ReaderBuilder::new();
        if layout == Delimited::TabUnquoted {
            builder.delimiter(b'\t').quoting(false).flexible(true);
        }
        let mut reader = builder.from_reader(text);
        let headers: Vec<String> = reader
            .headers()
            .map_err(|error| BakeError::raw_file(path, error))?
            .iter()
            .map(str::to_string)
            .collect();
        let mut records = Vec::new();
        // The csv crate counts a CRLF record's line from its `\r`, one short; the line is counted here
        // from the record's first byte instead: 1 + the newlines before it (the terminator it starts on
        // skipped).
        let (mut counted_to, mut newlines) = (0usize, 0u64);
        for record in reader.records() {
            let record = record.map_err(|error| BakeError::raw_file(path, error))?;
            let mut start = record
                .position()
                .map_or(0, |position| position.byte() as usize)
                .min(text.len());
            while start < text.len() && matches!(text[start], b'\r' | b'\n') {
                start += 1;
            }
            if start > counted_to {
                newlines += text[counted_to..start]
                    .iter()
                    .filter(|&&byte| byte == b'\n')
                    .count() as u64;
                counted_to = start;
            }
            let line = newlines + 1;
            let mut cells: Vec<String> =
                record.iter().map(|cell| cell.trim().to_string()).collect();
            cells.resize(headers.len(), String::new());
            records.push((line, cells));
        }
        Ok(Table {
            path: path.to_path_buf(),
            headers,
            records,
        })
    }

    /// A table made by a reader of a publisher's own layout: `headers` (the staged extract's column
    /// names) and `records` (1-based line in `path`, one cell per header), so the code that reads the
    /// staged extract reads the publisher's file the same way.
    pub(crate) fn from_parts(
        path: &Path,
        headers: Vec<String>,
        records: Vec<(u64, Vec<String>)>,
    ) -> Table {
        Table {
            path: path.to_path_buf(),
            headers,
            records,
        }
    }

    /// The file the table was read from.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The index of the column headed `name`.
    ///
    /// # Errors
    /// [`BakeError::RawFile`] naming the missing column and the file's columns.
    pub(crate) fn column(&self, name: &str) -> Result<usize, BakeError> {
        self.headers
            .iter()
            .position(|header| header == name)
            .ok_or_else(|| {
                BakeError::raw_file(
                    &self.path,
                    format!("no column `{name}`; columns: {}", self.headers.join(", ")),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_carry_their_file_line_with_lf_and_crlf() {
        for (text, layout) in [
            ("a,b\nx,1\ny,2\n", Delimited::Csv),
            ("a,b\r\nx,1\r\ny,2\r\n", Delimited::Csv),
            ("a\tb\r\nx\t1\r\ny\t2", Delimited::TabUnquoted),
        ] {
            let table = Table::parse(Path::new("t.csv"), text, layout).unwrap();
            let lines: Vec<u64> = table.records.iter().map(|(line, _)| *line).collect();
            assert_eq!(lines, [2, 3], "{text:?}");
            assert_eq!(table.records[1].1, ["y", "2"], "{text:?}");
        }
    }
}
