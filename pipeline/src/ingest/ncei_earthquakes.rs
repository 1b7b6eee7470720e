//! Connectors `ncei_tsv` and `ncei_hazel_json`: the NOAA NCEI/WDS Global Significant Earthquake Database
//! as its publisher serves it, read into the columns of the staged LAC extract
//! (`noaa_significant_earthquakes/ncei_significant_earthquakes_lac_to2023-06.csv`: `iso3`, then the
//! NCEI columns `Year` … `Total Houses Damaged Description`), so the `events` dataset reads any of them.
//!
//! - **TSV** ("Download TSV" of <https://www.ngdc.noaa.gov/hazel/view/hazards/earthquake/search>,
//!   `NCEI-WDS-Earthquakes.tsv`): tab-separated, CRLF on every line but the last (which has no line
//!   end), header cells quoted, text cells quoted with `""` inside. Line 2 is not an event but the search
//!   parameters (`"[""0 <= Earthquake Magnitude >= 9.9""]"` and 38 empty cells): skipped. Column 1,
//!   `Search Parameters`, is empty on every event. Columns are read by name.
//! - **hazel JSON** (`https://www.ngdc.noaa.gov/hazel/hazard-service/api/v1/earthquakes`): an object
//!   `{"items":[…], "page", "totalPages", …}` whose items name the TSV's columns in camelCase (`year`,
//!   `locationName`, `eqMagnitude`, `deathsTotal`, `deathsAmountOrderTotal` …; [`JSON_FIELDS`]); an absent
//!   key is an empty cell. A file holding one page of several fails (`page 1 of 3`): a partial list is
//!   never read as the whole.
//!
//! The publisher's files are global; an event's LAC countries come from its `Location Name` through the
//! reviewed mapping `data/curated/ncei_location_countries.csv` ([`LocationCountries`], the staged
//! extract's own assignment): the whole name first, else its country prefix (the text before the first
//! `:`, followed by one or two spaces). An event of no listed name or prefix gets an empty `iso3`, which
//! governance refuses as outside LAC. In the TSV, `Year` may be negative (BCE), and month, day and time
//! are often empty for old events; both readers pass the cells on as written.

use std::{collections::HashMap, path::Path};

use super::table::Table;
use crate::BakeError;

/// The staged extract's columns, which these readers fill, in its order.
pub const STAGED_COLUMNS: [&str; 39] = [
    "iso3",
    "Year",
    "Mo",
    "Dy",
    "Hr",
    "Mn",
    "Sec",
    "Tsu",
    "Vol",
    "Location Name",
    "Latitude",
    "Longitude",
    "Focal Depth (km)",
    "Mag",
    "MMI Int",
    "Deaths",
    "Death Description",
    "Missing",
    "Missing Description",
    "Injuries",
    "Injuries Description",
    "Damage ($Mil)",
    "Damage Description",
    "Houses Destroyed",
    "Houses Destroyed Description",
    "Houses Damaged",
    "Houses Damaged Description",
    "Total Deaths",
    "Total Death Description",
    "Total Missing",
    "Total Missing Description",
    "Total Injuries",
    "Total Injuries Description",
    "Total Damage ($Mil)",
    "Total Damage Description",
    "Total Houses Destroyed",
    "Total Houses Destroyed Description",
    "Total Houses Damaged",
    "Total Houses Damaged Description",
];

/// The hazel API's item key of each TSV column (the staged columns after `iso3`), as documented in
/// `../shared/data/publisher-formats/noaa_ncei_earthquakes/README.txt`.
pub const JSON_FIELDS: [(&str, &str); 38] = [
    ("Year", "year"),
    ("Mo", "month"),
    ("Dy", "day"),
    ("Hr", "hour"),
    ("Mn", "minute"),
    ("Sec", "second"),
    ("Tsu", "tsunamiEventId"),
    ("Vol", "volcanoEventId"),
    ("Location Name", "locationName"),
    ("Latitude", "latitude"),
    ("Longitude", "longitude"),
    ("Focal Depth (km)", "eqDepth"),
    ("Mag", "eqMagnitude"),
    ("MMI Int", "intensity"),
    ("Deaths", "deaths"),
    ("Death Description", "deathsAmountOrder"),
    ("Missing", "missing"),
    ("Missing Description", "missingAmountOrder"),
    ("Injuries", "injuries"),
    ("Injuries Description", "injuriesAmountOrder"),
    ("Damage ($Mil)", "damageMillionsDollars"),
    ("Damage Description", "damageAmountOrder"),
    ("Houses Destroyed", "housesDestroyed"),
    ("Houses Destroyed Description", "housesDestroyedAmountOrder"),
    ("Houses Damaged", "housesDamaged"),
    ("Houses Damaged Description", "housesDamagedAmountOrder"),
    ("Total Deaths", "deathsTotal"),
    ("Total Death Description", "deathsAmountOrderTotal"),
    ("Total Missing", "missingTotal"),
    ("Total Missing Description", "missingAmountOrderTotal"),
    ("Total Injuries", "injuriesTotal"),
    ("Total Injuries Description", "injuriesAmountOrderTotal"),
    ("Total Damage ($Mil)", "damageMillionsDollarsTotal"),
    ("Total Damage Description", "damageAmountOrderTotal"),
    ("Total Houses Destroyed", "housesDestroyedTotal"),
    (
        "Total Houses Destroyed Description",
        "housesDestroyedAmountOrderTotal",
    ),
    ("Total Houses Damaged", "housesDamagedTotal"),
    (
        "Total Houses Damaged Description",
        "housesDamagedAmountOrderTotal",
    ),
];

/// The reviewed mapping of `Location Name` to LAC ISO3 codes (`|`-joined): `kind,name,iso3` rows, kind
/// `prefix` (the country prefix) or `location` (the whole name), `#` comments.
#[derive(Debug, Clone, Default)]
pub struct LocationCountries {
    prefixes: HashMap<String, String>,
    locations: HashMap<String, String>,
}

impl LocationCountries {
    /// Reads the mapping at `path`.
    ///
    /// # Errors
    /// [`BakeError::Catalog`] naming the file and row: unreadable, a kind other than `prefix` or
    /// `location`, an empty name or code list.
    pub fn read(path: &Path) -> Result<LocationCountries, BakeError> {
        let mut reader = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .from_path(path)
            .map_err(|error| BakeError::catalog(path, error.to_string()))?;
        let mut mapping = LocationCountries::default();
        for (index, row) in reader.records().enumerate() {
            let row = row.map_err(|error| BakeError::catalog(path, error.to_string()))?;
            let (kind, name, codes) = (
                row.get(0).unwrap_or("").trim(),
                row.get(1).unwrap_or("").trim(),
                row.get(2).unwrap_or("").trim(),
            );
            let at =
                |message: String| BakeError::catalog(path, format!("row {}: {message}", index + 1));
            if name.is_empty() || codes.is_empty() {
                return Err(at("a name and `|`-joined ISO3 codes are required".into()));
            }
            let table = match kind {
                "prefix" => &mut mapping.prefixes,
                "location" => &mut mapping.locations,
                other => return Err(at(format!("kind `{other}`; valid: prefix, location"))),
            };
            table.insert(name.to_string(), codes.to_string());
        }
        Ok(mapping)
    }

    /// The `|`-joined ISO3 codes of `location` (empty: not LAC): the whole name, else its prefix.
    pub fn countries(&self, location: &str) -> String {
        let location = location.trim();
        let prefix = location.split(':').next().unwrap_or("").trim();
        self.locations
            .get(location)
            .or_else(|| self.prefixes.get(prefix))
            .cloned()
            .unwrap_or_default()
    }
}

/// The index of `name` in [`STAGED_COLUMNS`].
fn staged_index(name: &str) -> usize {
    STAGED_COLUMNS
        .iter()
        .position(|column| *column == name)
        .expect("a staged column")
}

/// Reads the TSV export at `path` into a table of [`STAGED_COLUMNS`] (line: the file's line).
///
/// # Errors
/// [`BakeError::RawFile`] naming the file: unreadable, a malformed line (with its number), or a column
/// of the export missing (naming it and the columns the file has).
pub(crate) fn read_tsv(path: &Path, locations: &LocationCountries) -> Result<Table, BakeError> {
    let bytes = std::fs::read(path)
        .map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
    let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .flexible(true)
        .from_reader(text);
    let headers: Vec<String> = reader
        .headers()
        .map_err(|error| BakeError::raw_file(path, error))?
        .iter()
        .map(|header| header.trim().to_string())
        .collect();
    let columns: Vec<usize> = STAGED_COLUMNS[1..]
        .iter()
        .map(|name| {
            headers.iter().position(|header| header == name).ok_or_else(|| {
                BakeError::raw_file(
                    path,
                    format!(
                        "no column `{name}`: not an NCEI significant-earthquake TSV export (columns: {})",
                        headers.join(", ")
                    ),
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let parameters = headers
        .iter()
        .position(|header| header == "Search Parameters");
    let location = columns[staged_index("Location Name") - 1];
    let mut records = Vec::new();
    // One record a line (no cell of the export holds a line end): line = position + 2 (the header is 1).
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(|error| BakeError::raw_file(path, error))?;
        let line = index as u64 + 2;
        // The search-parameter line: its first cell is filled, which no event's is.
        if parameters.is_some_and(|column| !record.get(column).unwrap_or("").trim().is_empty()) {
            continue;
        }
        let cell = |index: usize| record.get(index).unwrap_or("").trim().to_string();
        let mut cells = Vec::with_capacity(STAGED_COLUMNS.len());
        cells.push(locations.countries(&cell(location)));
        cells.extend(columns.iter().map(|column| cell(*column)));
        records.push((line, cells));
    }
    let headers = STAGED_COLUMNS.iter().map(|name| name.to_string()).collect();
    Ok(Table::from_parts(path, headers, records))
}

/// Reads a hazel API response at `path` into a table of [`STAGED_COLUMNS`] (line: the item's 1-based
/// position in `items`).
///
/// # Errors
/// [`BakeError::RawFile`] naming the file: unreadable, not JSON, no `items` array, an item that is not
/// an object, or one page of several (`page` below `totalPages`).
pub(crate) fn read_hazel_json(
    path: &Path,
    locations: &LocationCountries,
) -> Result<Table, BakeError> {
    let bytes = std::fs::read(path)
        .map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
    let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    let response: serde_json::Value = serde_json::from_slice(text)
        .map_err(|error| BakeError::raw_file(path, format!("not JSON: {error}")))?;
    let number = |key: &str| response.get(key).and_then(json_integer);
    if let (Some(page), Some(pages)) = (number("page"), number("totalPages"))
        && page < pages
    {
        return Err(BakeError::raw_file(
            path,
            format!(
                "page {page} of {pages}: the hazel API pages its answer, and this file is not the whole list"
            ),
        ));
    }
    let items = response
        .get("items")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| {
            BakeError::raw_file(
                path,
                "no `items` array: not a hazel earthquake API response ({\"items\": [...], \"page\", \"totalPages\"})",
            )
        })?;
    let mut records = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let item = item
            .as_object()
            .ok_or_else(|| BakeError::raw_file(path, format!("items[{index}] is not an object")))?;
        let mut cells = Vec::with_capacity(STAGED_COLUMNS.len());
        let cell = |key: &str| item.get(key).map(json_cell).unwrap_or_default();
        cells.push(locations.countries(&cell("locationName")));
        cells.extend(JSON_FIELDS.iter().map(|(_, key)| cell(key)));
        records.push((index as u64 + 1, cells));
    }
    let headers = STAGED_COLUMNS.iter().map(|name| name.to_string()).collect();
    Ok(Table::from_parts(path, headers, records))
}

/// A JSON value as a cell: numbers as written (`9.5`, `-73.407`, `1960`), strings trimmed, `null` empty.
fn json_cell(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.trim().to_string(),
        serde_json::Value::Number(number) => number.to_string(),
        serde_json::Value::Bool(flag) => flag.to_string(),
        _ => String::new(),
    }
}

/// A counter of the response, written as a number or as text (`"1"`).
fn json_integer(value: &serde_json::Value) -> Option<i64> {
    value
        .as_i64()
        .or_else(|| value.as_str().and_then(|text| text.trim().parse().ok()))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// The real TSV sample (`../shared/data/publisher-formats/noaa_ncei_earthquakes/`).
    fn sample() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
            "../../shared/data/publisher-formats/noaa_ncei_earthquakes/NCEI-WDS-Earthquakes.tsv",
        )
    }

    fn locations() -> LocationCountries {
        LocationCountries::read(
            &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../data/curated/ncei_location_countries.csv"),
        )
        .expect("the reviewed mapping reads")
    }

    fn cell<'a>(cells: &'a [String], name: &str) -> &'a str {
        &cells[staged_index(name)]
    }

    #[test]
    fn the_search_parameter_line_is_skipped_and_crlf_and_the_unterminated_last_line_read() {
        let bytes = std::fs::read(sample()).unwrap();
        assert!(bytes.windows(2).any(|pair| pair == b"\r\n") && !bytes.ends_with(b"\n"));
        let table = read_tsv(&sample(), &locations()).expect("the sample reads");
        // 12 lines: the header, the parameter line, 10 events (the last one without a line end).
        assert_eq!(table.records.len(), 10);
        assert_eq!(table.records[0].0, 3, "the first event is on line 3");
        assert_eq!(cell(&table.records[0].1, "Year"), "-2150");
        let last = &table.records[9].1;
        assert_eq!(cell(last, "Year"), "2023");
        assert!(cell(last, "Location Name").starts_with("FRANCE"));
        assert_eq!(cell(last, "iso3"), "", "France is not LAC");
        assert!(!cell(last, "Total Houses Damaged Description").contains('\r'));
    }

    #[test]
    fn a_known_earthquake_has_its_magnitude_deaths_and_countries() {
        let table = read_tsv(&sample(), &locations()).expect("the sample reads");
        let valdivia = table
            .records
            .iter()
            .map(|(_, cells)| cells)
            .find(|cells| cell(cells, "Year") == "1960")
            .expect("the 1960 Valdivia earthquake is in the sample");
        assert_eq!(
            cell(valdivia, "Location Name"),
            "CHILE:  PUERTO MONTT, VALDIVIA"
        );
        assert_eq!(cell(valdivia, "iso3"), "CHL");
        assert_eq!(cell(valdivia, "Mag"), "9.5");
        assert_eq!((cell(valdivia, "Mo"), cell(valdivia, "Dy")), ("5", "22"));
        assert_eq!(cell(valdivia, "Deaths"), "2000");
        assert_eq!(cell(valdivia, "Damage ($Mil)"), "1000");
        assert_eq!(cell(valdivia, "Houses Damaged"), "");
        assert_eq!(cell(valdivia, "Total Deaths"), "2226");
        // A count empty while its description code is filled: San Juan 2021, damage "limited" (2).
        let san_juan = table
            .records
            .iter()
            .map(|(_, cells)| cells)
            .find(|cells| cell(cells, "Year") == "2021")
            .expect("the 2021 San Juan earthquake is in the sample");
        assert_eq!(cell(san_juan, "iso3"), "ARG");
        assert_eq!(cell(san_juan, "Damage ($Mil)"), "");
        assert_eq!(cell(san_juan, "Damage Description"), "2");
        let haiti = table
            .records
            .iter()
            .map(|(_, cells)| cells)
            .find(|cells| cell(cells, "Year") == "2010" && cell(cells, "Mo") == "1")
            .expect("the 2010 Haiti earthquake is in the sample");
        assert_eq!(cell(haiti, "iso3"), "HTI");
        assert_eq!(cell(haiti, "Mag"), "7");
    }

    #[test]
    fn the_tsv_needs_its_columns_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("quakes.tsv");
        std::fs::write(&path, "\"Year\"\t\"Mag\"\r\n1960\t9.5").unwrap();
        let error = read_tsv(&path, &locations()).unwrap_err().to_string();
        assert!(
            error.contains("no column `Mo`") && error.contains("quakes.tsv"),
            "{error}"
        );
    }

    #[test]
    fn hazel_json_items_map_to_the_tsv_columns_and_a_partial_page_fails() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("earthquakes.json");
        // The 1960 Valdivia event of the TSV sample, in the API's documented item keys; absent keys are
        // empty cells.
        std::fs::write(
            &path,
            r#"{"items":[{"id":1,"year":1960,"month":5,"day":22,"hour":19,"minute":11,"second":17,
            "tsunamiEventId":1902,"volcanoEventId":4153,"locationName":"CHILE:  PUERTO MONTT, VALDIVIA",
            "latitude":-38.143,"longitude":-73.407,"eqDepth":33,"eqMagnitude":9.5,"intensity":12,
            "deaths":2000,"deathsAmountOrder":4,"injuries":3000,"injuriesAmountOrder":4,
            "damageMillionsDollars":1000,"damageAmountOrder":4,"deathsTotal":2226,"publish":true}],
            "page":1,"totalPages":1,"itemsPerPage":200,"totalItems":1}"#,
        )
        .unwrap();
        let table = read_hazel_json(&path, &locations()).expect("the response reads");
        let cells = &table.records[0].1;
        assert_eq!(cell(cells, "iso3"), "CHL");
        assert_eq!(cell(cells, "Mag"), "9.5");
        assert_eq!(cell(cells, "Longitude"), "-73.407");
        assert_eq!(cell(cells, "Total Deaths"), "2226");
        assert_eq!(cell(cells, "Missing"), "");
        std::fs::write(&path, r#"{"items":[],"page":1,"totalPages":3}"#).unwrap();
        let error = read_hazel_json(&path, &locations())
            .unwrap_err()
            .to_string();
        assert!(error.contains("page 1 of 3"), "{error}");
    }

    #[test]
    fn names_map_whole_first_then_by_prefix() {
        let locations = locations();
        assert_eq!(locations.countries("PERU-ECUADOR:  TUMBES"), "PER|ECU");
        assert_eq!(
            locations.countries("MEXICO:  MICHOACAN:  MEXICO CITY"),
            "MEX"
        );
        assert_eq!(
            locations.countries("CALIFORNIA:  SAN FRANCISCO"),
            "",
            "US California is not LAC"
        );
        assert_eq!(locations.countries("CALIFORNIA; MEXICO"), "MEX");
    }
}
