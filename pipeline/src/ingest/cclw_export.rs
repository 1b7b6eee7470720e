//! Connector `cclw_export`: the "laws and policies" CSV export of Climate Change Laws of the World
//! (`laws_and_policies_DDMMYYYY.csv`, the legacy climate-laws.org site's "download CSV" of a search,
//! <https://climate-laws.org>), read into the columns of the staged LAC extract
//! (`cclw_climate_laws/cclw_laws_policies_lac_2021-01-30.csv`), so the `regulation` dataset reads either.
//!
//! Layout (`../shared/data/publisher-formats/cclw/README.txt`): 15 columns, read by name (`Title`, `Type`,
//! `Geography`, `Geography ISO`, `Frameworks`, `Responses`, `Instruments`, `Document Types`,
//! `Natural Hazards`, `Keywords`, `Sectors`, `Events`, `Documents`, `Parent Legislation`, `Description`).
//! The traps it handles:
//! - a record spans several physical lines (newlines inside quoted `Description` cells): the CSV reader
//!   is quote-aware, and each record's line is the line it starts on;
//! - empty cells written both as `""` and bare (`,,`): both are empty;
//! - `Events` is `DD/MM/YYYY|label` items separated by `;`, day first, with an optional trailing `||`:
//!   they become `events_parsed` (`YYYY-MM-DD label; …`), `first_event_date` / `first_event_year` (the
//!   earliest) and `last_event_date` (the latest); an item whose date is not `DD/MM/YYYY` is kept as
//!   written in `events_parsed` (governance skips it) and dates nothing;
//! - `Description` is an HTML fragment (`<br />`, `<div>`, `&nbsp;`): tags become spaces, entities are
//!   decoded, runs of white space (newlines and no-break spaces too) become one space, as the staged
//!   extract has it;
//! - LF or CRLF line ends, and a UTF-8 BOM, are accepted.
//!
//! The export covers every geography (2,094 records in the 2021 export); governance refuses those
//! outside the LAC registry. The current climate-laws.org (Climate Policy Radar, since 2023) exports a
//! different family/document schema, not documented anywhere this project could read: a file without
//! these columns fails naming the columns it has.

use std::path::Path;

use super::table::Table;
use crate::BakeError;

/// The staged extract's columns, which this reader fills, in its order.
pub const STAGED_COLUMNS: [&str; 19] = [
    "iso3",
    "geography",
    "title",
    "type",
    "document_types",
    "first_event_date",
    "first_event_year",
    "last_event_date",
    "events_parsed",
    "frameworks",
    "responses",
    "instruments",
    "sectors",
    "keywords",
    "natural_hazards",
    "parent_legislation",
    "description",
    "documents_raw",
    "events_raw",
];

/// Staged column ← export column, for the cells copied as written.
const COPIED: [(&str, &str); 13] = [
    ("iso3", "Geography ISO"),
    ("geography", "Geography"),
    ("title", "Title"),
    ("type", "Type"),
    ("document_types", "Document Types"),
    ("frameworks", "Frameworks"),
    ("responses", "Responses"),
    ("instruments", "Instruments"),
    ("sectors", "Sectors"),
    ("keywords", "Keywords"),
    ("natural_hazards", "Natural Hazards"),
    ("parent_legislation", "Parent Legislation"),
    ("documents_raw", "Documents"),
];

/// Reads the export at `path` into a table of [`STAGED_COLUMNS`], one record per export record (line:
/// the physical line the record starts on).
///
/// # Errors
/// [`BakeError::RawFile`] naming the file: unreadable, not CSV (with the line), or without one of the
/// export's columns (naming it and the columns the file has).
pub(crate) fn read(path: &Path) -> Result<Table, BakeError> {
    let bytes = std::fs::read(path)
        .map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
    let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    let mut reader = csv::ReaderBuilder::new().from_reader(text);
    let headers: Vec<String> = reader
        .headers()
        .map_err(|error| BakeError::raw_file(path, error))?
        .iter()
        .map(|header| header.trim().to_string())
        .collect();
    let column = |name: &str| {
        headers.iter().position(|header| header == name).ok_or_else(|| {
            BakeError::raw_file(
                path,
                format!(
                    "no column `{name}`: not a Climate Change Laws of the World \"laws and policies\" export \
                     (columns: {})",
                    headers.join(", ")
                ),
            )
        })
    };
    let copied: Vec<(usize, usize)> = COPIED
        .iter()
        .map(|(staged, export)| Ok((staged_index(staged), column(export)?)))
        .collect::<Result<_, BakeError>>()?;
    let (events, description) = (column("Events")?, column("Description")?);
    let mut records = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| BakeError::raw_file(path, error))?;
        let line = record.position().map_or(0, |position| position.line());
        let cell = |index: usize| record.get(index).unwrap_or("").trim();
        let mut cells = vec![String::new(); STAGED_COLUMNS.len()];
        for (staged, export) in &copied {
            cells[*staged] = cell(*export).to_string();
        }
        let parsed = Events::parse(cell(events));
        cells[staged_index("first_event_date")] = parsed.first.clone().unwrap_or_default();
        cells[staged_index("first_event_year")] = parsed
            .first
            .as_deref()
            .map_or(String::new(), |date| date[..4].to_string());
        cells[staged_index("last_event_date")] = parsed.last.unwrap_or_default();
        cells[staged_index("events_parsed")] = parsed.items.join("; ");
        cells[staged_index("events_raw")] = cell(events).to_string();
        cells[staged_index("description")] = plain_text(cell(description));
        records.push((line, cells));
    }
    let headers = STAGED_COLUMNS.iter().map(|name| name.to_string()).collect();
    Ok(Table::from_parts(path, headers, records))
}

/// The position of `name` in [`STAGED_COLUMNS`].
fn staged_index(name: &str) -> usize {
    STAGED_COLUMNS
        .iter()
        .position(|column| *column == name)
        .expect("a staged column")
}

/// The `Events` cell of one record, parsed.
#[derive(Debug, Default, PartialEq, Eq)]
struct Events {
    /// Each item as `YYYY-MM-DD label` (an undatable item as written).
    items: Vec<String>,
    /// The earliest date, `YYYY-MM-DD`.
    first: Option<String>,
    /// The latest date, `YYYY-MM-DD`.
    last: Option<String>,
}

impl Events {
    /// Parses `13/01/2014|Law passed;11/04/2018|Law amended||`.
    fn parse(cell: &str) -> Events {
        let mut events = Events::default();
        let mut dates = Vec::new();
        for item in cell
            .split(';')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            let mut parts = item.split('|');
            let date = parts.next().unwrap_or("").trim();
            let label = parts.next().unwrap_or("").trim();
            match day_first_date(date) {
                Some(iso) => {
                    events
                        .items
                        .push(format!("{iso} {label}").trim_end().to_string());
                    dates.push(iso);
                }
                None => events.items.push(item.to_string()),
            }
        }
        events.first = dates.iter().min().cloned();
        events.last = dates.iter().max().cloned();
        events
    }
}

/// `DD/MM/YYYY` as `YYYY-MM-DD` (digits only; governance checks it is a calendar date).
fn day_first_date(text: &str) -> Option<String> {
    let mut parts = text.split('/');
    let (day, month, year) = (parts.next()?, parts.next()?, parts.next()?);
    let digits =
        |part: &str, len: usize| part.len() == len && part.bytes().all(|b| b.is_ascii_digit());
    (parts.next().is_none() && digits(day, 2) && digits(month, 2) && digits(year, 4))
        .then(|| format!("{year}-{month}-{day}"))
}

/// An HTML fragment as plain text: tags become spaces, entities are decoded, runs of white space (a
/// no-break space too) become one space, and the ends are trimmed.
pub fn plain_text(html: &str) -> String {
    let mut untagged = String::with_capacity(html.len());
    let mut in_tag = false;
    for character in html.chars() {
        match character {
            '<' => {
                in_tag = true;
                untagged.push(' ');
            }
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            _ => untagged.push(character),
        }
    }
    let decoded = super::super::govern::records::decoded(untagged);
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// The real export sample (`../shared/data/publisher-formats/cclw/`): header and 15 whole records.
    fn sample() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/publisher-formats/cclw/laws_and_policies_30012021.csv")
    }

    fn cell<'a>(table: &'a Table, cells: &'a [String], name: &str) -> &'a str {
        &cells[table.column(name).expect("a staged column")]
    }

    #[test]
    fn multi_line_quoted_records_are_one_record_each() {
        let table = read(&sample()).expect("the sample reads");
        // 15 records over many more physical lines (Description cells hold newlines).
        assert_eq!(table.records.len(), 15);
        let (line, cells) = &table.records[1];
        assert_eq!(
            cell(&table, cells, "title"),
            "Decree 140/2007: Presidential decree declaring rational and efficient energy use a national priority"
        );
        assert_eq!(cell(&table, cells, "iso3"), "ARG");
        assert_eq!(cell(&table, cells, "type"), "executive");
        // The first record's description spans lines 2-3, so the second record starts on line 4.
        assert_eq!(*line, 4);
        let description = cell(&table, cells, "description");
        assert!(description.starts_with(
            "This decree has far-reaching and ambitious goals to reduce energy consumption"
        ));
        assert!(!description.contains('\n') && !description.contains("<br"));
        assert!(description.contains("private residencies. The decree's main purpose"));
    }

    #[test]
    fn events_are_day_first_and_give_the_first_and_last_dates() {
        let table = read(&sample()).expect("the sample reads");
        let (_, cells) = table
            .records
            .iter()
            .find(|(_, cells)| {
                cells[table.column("title").unwrap()].starts_with("General Law on Climate Change")
            })
            .expect("Mexico's General Law on Climate Change is in the sample");
        assert_eq!(cell(&table, cells, "iso3"), "MEX");
        assert_eq!(
            cell(&table, cells, "events_raw"),
            "06/06/2012|Law passed||;13/07/2018|Last amendment||"
        );
        assert_eq!(
            cell(&table, cells, "events_parsed"),
            "2012-06-06 Law passed; 2018-07-13 Last amendment"
        );
        assert_eq!(cell(&table, cells, "first_event_date"), "2012-06-06");
        assert_eq!(cell(&table, cells, "first_event_year"), "2012");
        assert_eq!(cell(&table, cells, "last_event_date"), "2018-07-13");
        assert_eq!(
            Events::parse("2012|Law passed").items,
            ["2012|Law passed"],
            "an undatable item is kept as written"
        );
        assert_eq!(Events::parse("2012|Law passed").first, None);
    }

    #[test]
    fn quoted_and_bare_empty_cells_are_both_empty() {
        let table = read(&sample()).expect("the sample reads");
        // ARG Law 26473: Frameworks `""`, Documents bare empty.
        let (_, cells) = &table.records[0];
        assert_eq!(
            cell(&table, cells, "title"),
            "Law 26473 Prohibiting commercialisation of incandescent light bulbs"
        );
        assert_eq!(cell(&table, cells, "frameworks"), "");
        assert_eq!(cell(&table, cells, "documents_raw"), "");
        assert_eq!(cell(&table, cells, "first_event_date"), "2010-12-31");
        assert_eq!(
            cell(&table, cells, "description"),
            "Prohibits the importation and commercialisation of incandescent light bulbs for residential use throughout the country."
        );
    }

    #[test]
    fn html_descriptions_become_the_staged_plain_text() {
        assert_eq!(
            plain_text("<div>NFCC resources.<br>&nbsp;<br>&nbsp;Resources may</div>"),
            "NFCC resources. Resources may"
        );
        assert_eq!(
            plain_text("The <a href=\"http://x\">Law 1715/2014</a> aims"),
            "The Law 1715/2014 aims"
        );
    }

    #[test]
    fn crlf_a_bom_and_a_missing_column_are_handled() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("export.csv");
        let original = std::fs::read(sample()).unwrap();
        let text = String::from_utf8(original).unwrap();
        let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
        std::fs::write(&path, crlf).unwrap();
        let table = read(&path).expect("CRLF with a BOM reads");
        assert_eq!(table.records.len(), 15);
        assert_eq!(table.records[0].1[0], "ARG");
        std::fs::write(&path, "Title,Type\nA,legislative\n").unwrap();
        let error = read(&path).unwrap_err().to_string();
        assert!(
            error.contains("no column `Geography ISO`") && error.contains("export.csv"),
            "{error}"
        );
    }
}
