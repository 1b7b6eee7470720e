//! Connector `wb_projects_api`: the World Bank's Projects & Operations search API v2 as JSON
//! (`https://search.worldbank.org/api/v2/projects?format=json&rows=…&os=…&regionname=…&fl=…`), read page
//! by page into the columns of the staged newer export (`wb_projects/wb_projects_lac_2025-03-31.csv`), so
//! the `projects` dataset reads either.
//!
//! Layout (`../shared/data/publisher-formats/wb_projects/README.txt`; no response sample exists): a JSON
//! object `{"rows", "os", "page", "total", "projects": {…}}` whose `projects` is an OBJECT KEYED BY
//! PROJECT ID (`{"P118177": {…}, …}`): its values are read, in key order. An empty `projects` object is
//! past the last page, and the last declared page must be one, so a list that grew past the declared
//! pages fails rather than being read short. The traps it handles:
//! - counters written as strings (`"rows":"25"`);
//! - `countryname` / `countrycode` / `countryshortname` as a string or an ARRAY (multi-country
//!   operations): a project of one LAC country of the registry gets its ISO3 (from its short name, else
//!   its name), any other is multi-country with no ISO3, as in the staged export;
//! - `boardapprovaldate` ISO with a time (`2009-07-09T00:00:00Z`) and `closingdate` month first with a
//!   time (`3/30/2017 12:00:00 AM`): both cut to `YYYY-MM-DD` (a date that does not parse is passed on as
//!   written, for governance to refuse);
//! - amounts as text with thousands separators (`"21,000,000"`, US$): separators dropped;
//! - `projectfinancialtype` an array (`["IDA"]`): joined with `, `;
//! - fields not requested or empty are absent: empty cells.
//!
//! `lending_instrument_family` is derived from the instrument's name as the staged export derives it
//! (README of `../shared/data/sources/wb_projects/`): IPF, DPF or PforR ([`instrument_family`]).

use std::path::{Path, PathBuf};

use corpus::CountryRegistry;

use super::table::Table;
use crate::BakeError;

/// The staged newer export's columns, which this reader fills, in its order.
pub const STAGED_COLUMNS: [&str; 28] = [
    "project_id",
    "region",
    "country",
    "iso3",
    "status",
    "last_stage_reached",
    "project_name",
    "project_development_objective",
    "implementing_agency",
    "public_disclosure_date",
    "board_approval_date",
    "loan_effective_date",
    "closing_date",
    "project_cost_usd",
    "ibrd_commitment_usd",
    "ida_commitment_usd",
    "grant_amount_usd",
    "total_ibrd_ida_commitment_usd",
    "borrower",
    "lending_instrument",
    "env_assessment_category",
    "env_social_risk_rating",
    "supplement_project_flag",
    "consultant_services_required",
    "financing_type",
    "is_multicountry",
    "lending_instrument_family",
    "url",
];

/// Staged column ← API field, for the text cells copied as served.
const COPIED: [(&str, &str); 7] = [
    ("project_id", "id"),
    ("region", "regionname"),
    ("project_name", "project_name"),
    ("implementing_agency", "impagency"),
    ("borrower", "borrower"),
    ("lending_instrument", "lendinginstr"),
    ("env_assessment_category", "envassesmentcategorycode"),
];

/// Staged amount column ← API field (US$, text with thousands separators).
const AMOUNTS: [(&str, &str); 5] = [
    ("project_cost_usd", "lendprojectcost"),
    ("ibrd_commitment_usd", "ibrdcommamt"),
    ("ida_commitment_usd", "idacommamt"),
    ("grant_amount_usd", "grantamt"),
    ("total_ibrd_ida_commitment_usd", "totalamt"),
];

/// The instrument names of each family, as the staged export groups them.
const FAMILIES: [(&str, &[&str]); 3] = [
    (
        "IPF",
        &[
            "Investment Project Financing",
            "Specific Investment Loan",
            "Sector Investment and Maintenance Loan",
            "Technical Assistance Loan",
            "Financial Intermediary Loan",
            "Adaptable Program Loan",
            "Emergency Recovery Loan",
            "Learning and Innovation Loan",
        ],
    ),
    (
        "DPF",
        &[
            "Development Policy Lending",
            "Structural Adjustment Loan",
            "Sector Adjustment Loan",
            "Programmatic Structural Adjustment Loan",
            "Special Structural Adjustment Loan",
            "Poverty Reduction Support Credit",
            "Debt and Debt Service Reduction Loan",
        ],
    ),
    ("PforR", &["Program-for-Results Financing"]),
];

/// The family (`IPF`, `DPF`, `PforR`) of a World Bank lending instrument's name; empty for another
/// (`UNIDENTIFIED`, none).
pub fn instrument_family(instrument: &str) -> &'static str {
    FAMILIES
        .iter()
        .find(|(_, names)| names.contains(&instrument.trim()))
        .map_or("", |(family, _)| family)
}

/// Reads the API pages at `pages` (in order; the last must be empty) into one table of
/// [`STAGED_COLUMNS`] (line: the project's 1-based position across the pages); `countries` gives the
/// ISO3 of a single-country project.
///
/// # Errors
/// [`BakeError::RawFile`] naming the page: unreadable, not JSON, no `projects` object, a project that is
/// not an object or has no `id`, the last page not empty, or a project id on two pages.
pub(crate) fn read(pages: &[PathBuf], countries: &CountryRegistry) -> Result<Table, BakeError> {
    let first = pages.first().ok_or_else(|| {
        BakeError::raw_file(Path::new("wb_projects_api"), "no API page is declared")
    })?;
    let mut records = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (index, path) in pages.iter().enumerate() {
        let projects = read_page(path)?;
        if index + 1 == pages.len() && !projects.is_empty() {
            return Err(BakeError::raw_file(
                path,
                format!(
                    "the last declared page still lists {} projects: the list has grown past the declared \
                     pages, so declare another page (`os` one `rows` further) in [refresh].files",
                    projects.len()
                ),
            ));
        }
        for (id, project) in projects {
            if !seen.insert(id.clone()) {
                return Err(BakeError::raw_file(
                    path,
                    format!("project {id} is on two pages (the list changed while it was fetched)"),
                ));
            }
            records.push((records.len() as u64 + 1, cells(&id, &project, countries)));
        }
    }
    let headers = STAGED_COLUMNS.iter().map(|name| name.to_string()).collect();
    Ok(Table::from_parts(first, headers, records))
}

/// One project of a page: its P-id and its fields.
type ApiProject = (String, serde_json::Map<String, serde_json::Value>);

/// The projects of one page, by id.
fn read_page(path: &Path) -> Result<Vec<ApiProject>, BakeError> {
    let bytes = std::fs::read(path)
        .map_err(|error| BakeError::raw_file(path, format!("cannot read: {error}")))?;
    let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    let page: serde_json::Value = serde_json::from_slice(text)
        .map_err(|error| BakeError::raw_file(path, format!("not JSON: {error}")))?;
    let projects = page.get("projects").and_then(serde_json::Value::as_object).ok_or_else(|| {
        BakeError::raw_file(
            path,
            "no `projects` object: not a World Bank projects API v2 page ({\"rows\", \"os\", \"total\", \"projects\": {\"P…\": {…}}})",
        )
    })?;
    projects
        .iter()
        .map(|(key, project)| {
            let project = project.as_object().ok_or_else(|| {
                BakeError::raw_file(path, format!("projects.{key} is not an object"))
            })?;
            let id = project
                .get("id")
                .and_then(serde_json::Value::as_str)
                .unwrap_or(key)
                .trim()
                .to_string();
            Ok((id, project.clone()))
        })
        .collect()
}

/// One project's cells.
fn cells(
    id: &str,
    project: &serde_json::Map<String, serde_json::Value>,
    countries: &CountryRegistry,
) -> Vec<String> {
    let text = |key: &str| project.get(key).map(joined).unwrap_or_default();
    let mut cells = vec![String::new(); STAGED_COLUMNS.len()];
    let mut set = |column: &str, value: String| {
        let at = STAGED_COLUMNS
            .iter()
            .position(|name| *name == column)
            .expect("a staged column");
        cells[at] = value;
    };
    for (column, key) in COPIED {
        set(column, text(key));
    }
    set("project_id", id.to_string());
    let status = match text("projectstatusdisplay") {
        status if status.is_empty() => text("status"),
        status => status,
    };
    set("status", status);
    for (column, key) in AMOUNTS {
        set(column, text(key).replace(',', ""));
    }
    set("board_approval_date", iso_date(&text("boardapprovaldate")));
    set("closing_date", iso_date(&text("closingdate")));
    set("financing_type", text("projectfinancialtype"));
    let instrument = text("lendinginstr");
    set(
        "lending_instrument_family",
        instrument_family(&instrument).to_string(),
    );
    set("url", text("url"));
    // One country of the registry: its ISO3; several, or a region: multi-country, no ISO3.
    let names: Vec<String> = ["countryshortname", "countryname"]
        .iter()
        .find_map(|key| {
            let names = project.get(*key).map(values).unwrap_or_default();
            (!names.is_empty()).then_some(names)
        })
        .unwrap_or_default();
    let single = match names.as_slice() {
        [name] => countries
            .resolve(name)
            .filter(|entity| entity.kind == corpus::EntityKind::Country)
            .map(|entity| entity.iso3.clone()),
        _ => None,
    };
    set("country", names.join(", "));
    set(
        "is_multicountry",
        if single.is_some() { "0" } else { "1" }.to_string(),
    );
    set("iso3", single.unwrap_or_default());
    cells
}

/// A field's values: a string, a number, or an array of them.
fn values(value: &serde_json::Value) -> Vec<String> {
    match value {
        serde_json::Value::Array(items) => items.iter().flat_map(values).collect(),
        serde_json::Value::String(text) if !text.trim().is_empty() => vec![text.trim().to_string()],
        serde_json::Value::Number(number) => vec![number.to_string()],
        _ => Vec::new(),
    }
}

/// A field as one cell (array items joined with `, `).
fn joined(value: &serde_json::Value) -> String {
    values(value).join(", ")
}

/// `2009-07-09T00:00:00Z` or `3/30/2017 12:00:00 AM` as `YYYY-MM-DD`; anything else as written.
fn iso_date(text: &str) -> String {
    let date = text.split(['T', ' ']).next().unwrap_or("");
    let bytes = date.as_bytes();
    if bytes.len() == 10 && bytes[4] == b'-' && bytes[7] == b'-' {
        return date.to_string();
    }
    let parts: Vec<&str> = date.split('/').collect();
    if let [month, day, year] = parts.as_slice()
        && let (Ok(month), Ok(day), Ok(year)) = (
            month.parse::<u32>(),
            day.parse::<u32>(),
            year.parse::<u32>(),
        )
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && year >= 1900
    {
        return format!("{year:04}-{month:02}-{day:02}");
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell<'a>(cells: &'a [String], name: &str) -> &'a str {
        &cells[STAGED_COLUMNS
            .iter()
            .position(|column| *column == name)
            .unwrap()]
    }

    /// The LAC registry of the project's country list.
    fn registry() -> CountryRegistry {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let catalog =
            crate::sources::Catalog::load(&root.join("../data")).expect("the catalog loads");
        let entry = catalog
            .sources
            .iter()
            .find(|source| {
                matches!(
                    source.connector,
                    crate::sources::Connector::CountryNames { .. }
                )
            })
            .expect("a country list");
        let sources = root.join("../../shared/data/sources");
        CountryRegistry::new(
            crate::ingest::countries::read(entry, &catalog.settings, &sources)
                .expect("the list reads"),
        )
    }

    /// A page in the API's layout holding two real projects of the staged newer export (P127837, Bolivia;
    /// P159653, OECS countries), with the API's own forms: counters as text, a keyed object, amounts with
    /// thousands separators, an array country, M/D/YYYY closing dates.
    const PAGE: &str = r#"{"rows":"1000","os":"0","page":"1","total":"2","projects":{
      "P127837":{"id":"P127837","regionname":"Latin America and Caribbean","countryname":["Plurinational State of Bolivia"],
        "countryshortname":"Bolivia","countrycode":["BO"],"projectstatusdisplay":"Closed","project_name":"Access and Renewable Energy Project",
        "impagency":"Ministerio de Energia, Vice Ministerio de Electricidad y Energias Alternativas VMEEA",
        "boardapprovaldate":"2014-05-27T00:00:00Z","closingdate":"4/30/2019 12:00:00 AM","lendprojectcost":"59,150,000",
        "idacommamt":"50,000,000","totalamt":"50,000,000","lendinginstr":"Investment Project Financing",
        "envassesmentcategorycode":"B","projectfinancialtype":["Other"],
        "url":"https://projects.worldbank.org/en/projects-operations/project-detail/P127837"},
      "P159653":{"id":"P159653","regionname":"Latin America and Caribbean","countryshortname":"OECS Countries",
        "projectstatusdisplay":"Closed","project_name":"Caribbean Regional Oceanscape Project","impagency":"OECS Commission",
        "boardapprovaldate":"2017-09-25T00:00:00Z","closingdate":"12/31/2021 12:00:00 AM","lendprojectcost":"108,300,000",
        "grantamt":"6,300,000","totalamt":"6,300,000","lendinginstr":"Investment Project Financing"}}}"#;

    #[test]
    fn projects_keyed_by_p_id_become_export_rows() {
        let dir = tempfile::tempdir().unwrap();
        let (first, last) = (
            dir.path().join("page-0.json"),
            dir.path().join("page-1000.json"),
        );
        std::fs::write(&first, PAGE).unwrap();
        std::fs::write(
            &last,
            r#"{"rows":"1000","os":"1000","page":"2","total":"2","projects":{}}"#,
        )
        .unwrap();
        let table = read(&[first.clone(), last.clone()], &registry()).expect("the pages read");
        assert_eq!(table.records.len(), 2);
        let bolivia = &table.records[0].1;
        assert_eq!(cell(bolivia, "project_id"), "P127837");
        assert_eq!(cell(bolivia, "iso3"), "BOL");
        assert_eq!(cell(bolivia, "is_multicountry"), "0");
        assert_eq!(cell(bolivia, "status"), "Closed");
        assert_eq!(cell(bolivia, "board_approval_date"), "2014-05-27");
        assert_eq!(cell(bolivia, "closing_date"), "2019-04-30");
        assert_eq!(cell(bolivia, "project_cost_usd"), "59150000");
        assert_eq!(cell(bolivia, "total_ibrd_ida_commitment_usd"), "50000000");
        assert_eq!(cell(bolivia, "financing_type"), "Other");
        assert_eq!(cell(bolivia, "lending_instrument_family"), "IPF");
        let oecs = &table.records[1].1;
        assert_eq!(
            (cell(oecs, "iso3"), cell(oecs, "is_multicountry")),
            ("", "1")
        );
        assert_eq!(cell(oecs, "grant_amount_usd"), "6300000");
        // A last page that still lists projects: the list grew past the declared pages.
        let error = read(&[first.clone(), first], &registry())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("project P127837 is on two pages")
                || error.contains("last declared page"),
            "{error}"
        );
        let error = read(&[last.clone(), dir.path().join("page-0.json")], &registry())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("the last declared page still lists 2 projects"),
            "{error}"
        );
        std::fs::write(&last, r#"{"projects":["P1"]}"#).unwrap();
        let error = read(&[last], &registry()).unwrap_err().to_string();
        assert!(error.contains("no `projects` object"), "{error}");
    }

    #[test]
    fn the_dates_and_amounts_of_the_api_become_the_exports() {
        assert_eq!(iso_date("2009-07-09T00:00:00Z"), "2009-07-09");
        assert_eq!(iso_date("3/30/2017 12:00:00 AM"), "2017-03-30");
        assert_eq!(iso_date("soon"), "soon");
        assert_eq!(instrument_family("Specific Investment Loan"), "IPF");
        assert_eq!(instrument_family("Program-for-Results Financing"), "PforR");
        assert_eq!(instrument_family("UNIDENTIFIED"), "");
    }
}
