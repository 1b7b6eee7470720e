//! A raw CSV file read whole, as every CSV connector reads it: headers, and records with their line
//! numbers (BOM stripped, cells trimmed, short records padded; CRLF and LF line ends give the same lines).

use std::path::Path;

use crate::BakeError;

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
        Table::from_bytes(path, &bytes)
    }

    /// Parses `bytes`, the CSV of `path` (named in errors), whole: a UTF-8 BOM is stripped, LF and CRLF
    /// are both line ends.
    ///
    /// # Errors
    /// [`BakeError::RawFile`] if the bytes are not CSV.
    pub(crate) fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Table, BakeError> {
        let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        let mut reader = csv::ReaderBuilder::new().from_reader(text);
        let headers: Vec<String> = reader
            .headers()
            .map_err(|error| BakeError::raw_file(path, error))?
            .iter()
            .map(str::to_string)
            .collect();
        let mut records = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|error| BakeError::raw_file(path, error))?;
            // After a CRLF line end the reader places a record's start on the `\n` that ends the line
            // before it, one line too early: the record's own line is the next.
            let line = record.position().map_or(0, |position| {
                let on_line_end = usize::try_from(position.byte())
                    .ok()
                    .and_then(|byte| text.get(byte))
                    == Some(&b'\n');
                position.line() + u64::from(on_line_end)
            });
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
