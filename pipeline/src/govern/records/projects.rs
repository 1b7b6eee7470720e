//! The `projects` dataset: reads the two World Bank project exports declared in
//! `data/curated/wb_projects.toml`, merges them and validates every record ([`corpus::Project`]).
//!
//! - **Merge**: the newer export decides every field it reports; a field it leaves blank (or 0, "not
//!   reported") that the older export of the same project reports is read from the older one and named in
//!   the record's `from_older_export` (1,143 costs and commitments of closed projects, taken together only
//!   when the newer reports no amount, so a record never mixes the exports' amounts; 903 borrowers).
//!   The older export also gives sectors and themes (the newer has none) and the projects only it lists
//!   (kept, `retrieved_at` the older date).
//! - **Records refused** (listed in the bake report with file, line, field and reason): an id that is not
//!   a P-code, a second row of the same id, no title, a status other than Active, Pipeline, Closed, Dropped.
//! - **Text**: HTML entities of the publisher's export (`&rsquo;`, `&amp;`) decoded in titles and objectives.
//! - **Dates**: `YYYY-MM-DD`, or the export's occasional `M/D/YYYY`, rewritten as `YYYY-MM-DD`.
//! - **Fields left empty** (also listed): a date in neither form, an amount that is not a finite
//!   number ≥ 0, an ISO3 that is not a LAC country of the registry. An amount of 0 is "not reported"
//!   (the publisher's convention) and is left empty without a refusal.
//! - **Countries**: a multi-country operation (`Caribbean`, `Central America`) keeps `country` empty and
//!   its label in `location`; it is never assigned to one country.
//! - **Pillars**: each sector and theme through the reviewed mapping (`data/curated/wb_sector_pillars.csv`);
//!   names the mapping lacks are reported, never guessed. A project neither export lists with a sector
//!   or theme takes the pillars of the reviewed words of its title (`data/curated/wb_title_pillars.csv`),
//!   and says so (`pillar_basis: "title"`).
//! - **Stage**: the export's last stage reached (`BANK APPROVED`, `CONCEPT REVIEW`).
//! - **Steward's rows** (`data/curated/overrides/wb_projects.csv`, the exports' columns): a row replaces
//!   the project of its P-code in both exports, or adds one, validated the same way.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

use corpus::{CountryRegistry, CuratedRefusal, CuratedReport, Project};
use serde::Deserialize;

use super::{PillarMapping, decoded, keyword_pillars, lac_country, read_mapping, text};
use crate::{
    BakeError,
    sources::curated::{ProjectsSource, is_iso_date},
};

/// The statuses the publisher uses.
pub const STATUSES: [&str; 4] = ["Active", "Pipeline", "Closed", "Dropped"];

/// One row of either export (the older has sectors and themes, the newer extra dates, unused here).
#[derive(Debug, Clone, Deserialize)]
struct RawProject {
    project_id: String,
    country: Option<String>,
    iso3: Option<String>,
    status: Option<String>,
    project_name: Option<String>,
    project_development_objective: Option<String>,
    implementing_agency: Option<String>,
    board_approval_date: Option<String>,
    closing_date: Option<String>,
    project_cost_usd: Option<String>,
    #[serde(default)]
    ibrd_commitment_usd: Option<String>,
    #[serde(default)]
    ida_commitment_usd: Option<String>,
    total_ibrd_ida_commitment_usd: Option<String>,
    grant_amount_usd: Option<String>,
    borrower: Option<String>,
    lending_instrument: Option<String>,
    env_assessment_category: Option<String>,
    env_social_risk_rating: Option<String>,
    financing_type: Option<String>,
    lending_instrument_family: Option<String>,
    #[serde(default)]
    last_stage_reached: Option<String>,
    url: Option<String>,
    #[serde(default)]
    sector1: Option<String>,
    #[serde(default)]
    sector2: Option<String>,
    #[serde(default)]
    sector3: Option<String>,
    #[serde(default)]
    theme1: Option<String>,
    #[serde(default)]
    theme2: Option<String>,
}

impl RawProject {
    /// This row with each field it leaves blank (an amount of 0 counts as blank, the publisher's "not
    /// reported") taken from `older`, the same project in the older export; the names of the fields so
    /// taken, as the record calls them. The amounts (cost, commitment, grant) go together: they are taken
    /// only when this row reports none of them, so a record never mixes the two exports' amounts (a cost
    /// of one below a commitment of the other).
    fn filled_from(&self, older: &RawProject) -> (RawProject, Vec<String>) {
        let mut merged = self.clone();
        let mut taken = Vec::new();
        let blank = |value: &Option<String>, amount: bool| match text(value) {
            None => true,
            Some(value) => amount && value.parse::<f64>().is_ok_and(|number| number == 0.0),
        };
        let mut fill = |field: &mut Option<String>, from: &Option<String>, name: &str, amount| {
            if blank(field, amount) && !blank(from, amount) {
                *field = from.clone();
                taken.push(name.to_string());
            }
        };
        let no_amount = [
            &self.project_cost_usd,
            &self.ibrd_commitment_usd,
            &self.ida_commitment_usd,
            &self.total_ibrd_ida_commitment_usd,
            &self.grant_amount_usd,
        ]
        .into_iter()
        .all(|amount| blank(amount, true));
        if no_amount {
            fill(
                &mut merged.project_cost_usd,
                &older.project_cost_usd,
                "cost_usd",
                true,
            );
            for (field, from) in [
                (&mut merged.ibrd_commitment_usd, &older.ibrd_commitment_usd),
                (&mut merged.ida_commitment_usd, &older.ida_commitment_usd),
                (
                    &mut merged.total_ibrd_ida_commitment_usd,
                    &older.total_ibrd_ida_commitment_usd,
                ),
            ] {
                fill(field, from, "commitment_usd", true);
            }
            fill(
                &mut merged.grant_amount_usd,
                &older.grant_amount_usd,
                "grant_usd",
                true,
            );
        }
        fill(
            &mut merged.board_approval_date,
            &older.board_approval_date,
            "approval_date",
            false,
        );
        fill(
            &mut merged.closing_date,
            &older.closing_date,
            "closing_date",
            false,
        );
        fill(&mut merged.borrower, &older.borrower, "borrower", false);
        fill(
            &mut merged.implementing_agency,
            &older.implementing_agency,
            "implementing_agency",
            false,
        );
        fill(
            &mut merged.env_assessment_category,
            &older.env_assessment_category,
            "environmental_category",
            false,
        );
        fill(
            &mut merged.env_social_risk_rating,
            &older.env_social_risk_rating,
            "environmental_risk",
            false,
        );
        fill(
            &mut merged.lending_instrument,
            &older.lending_instrument,
            "lending_instrument",
            false,
        );
        fill(
            &mut merged.lending_instrument_family,
            &older.lending_instrument_family,
            "instrument_family",
            false,
        );
        fill(
            &mut merged.financing_type,
            &older.financing_type,
            "financing_type",
            false,
        );
        fill(
            &mut merged.project_development_objective,
            &older.project_development_objective,
            "objective",
            false,
        );
        // One name for the commitment, however many of its columns were taken.
        taken.dedup();
        (merged, taken)
    }
}

/// Reads, merges and validates the projects of `source`; the records sorted by id, and what was kept and
/// refused.
///
/// # Errors
/// [`BakeError::Io`] if an export or the mapping cannot be read; [`BakeError::Catalog`] for a mapping row
/// naming an unknown pillar or kind, or an export without a required column.
pub fn projects(
    source: &ProjectsSource,
    catalog_dir: &Path,
    sources_dir: &Path,
    pillar_ids: &[&str],
    countries: &CountryRegistry,
) -> Result<(Vec<Project>, CuratedReport), BakeError> {
    let mapping = read_mapping(
        &catalog_dir.join(&source.sector_pillars),
        &["sector", "theme"],
        pillar_ids,
    )?;
    let title_words = match &source.title_pillars {
        Some(file) => read_mapping(&catalog_dir.join(file), &["title_word"], pillar_ids)?,
        None => PillarMapping::new(),
    };
    let mapping = Mappings {
        sectors: &mapping,
        title_words: &title_words,
    };
    let mut report = CuratedReport {
        dataset: corpus::RecordDataset::Projects.id().into(),
        source: source.id.clone(),
        ..CuratedReport::default()
    };
    let newer_file = format!("{}/{}", source.raw_path, source.newer_file);
    let older_file = format!("{}/{}", source.raw_path, source.older_file);
    // The newer export, or the API pages a fetch brought (`[refresh]`, connector `wb_projects_api`).
    let raw_dir = sources_dir.join(&source.raw_path);
    let (newer_file, newer_records) =
        match crate::sources::curated::refreshed_connector(source.refresh.as_ref(), &raw_dir) {
            Some(connector) => {
                let table =
                    super::publisher_table(connector, catalog_dir, &raw_dir, Some(countries))?;
                let label = format!(
                    "{}/{}",
                    source.raw_path,
                    table
                        .path()
                        .strip_prefix(&raw_dir)
                        .unwrap_or(table.path())
                        .display()
                );
                (label, super::table_records(&table))
            }
            None => (
                newer_file,
                super::csv_records(&source.newer_path(sources_dir))?,
            ),
        };
    let newer = read_export(newer_records, &newer_file, &mut report);
    let older = read_export(
        super::csv_records(&source.older_path(sources_dir))?,
        &older_file,
        &mut report,
    );
    let overrides = match super::overrides::path(catalog_dir, &source.id) {
        Some((path, label)) => {
            let rows = read_export(super::csv_records(&path)?, &label, &mut report);
            Some((label, rows))
        }
        None => None,
    };
    let overridden = |id: &String| {
        overrides
            .as_ref()
            .is_some_and(|(_, rows)| rows.contains_key(id))
    };
    let mut unmapped = BTreeSet::new();
    let mut records = Vec::with_capacity(newer.len() + older.len());
    if let Some((label, rows)) = &overrides {
        // The steward's row decides every field it has; sectors and themes come from it, else from the
        // older export.
        for (id, (line, row)) in rows {
            let sectors_from = if row.sector1.is_some() {
                row
            } else {
                older.get(id).map_or(row, |(_, older_row)| older_row)
            };
            report.overrides += 1;
            records.push(build(
                source,
                row,
                sectors_from,
                (label, *line),
                &source.newer_retrieved_at,
                (&mapping, &mut unmapped),
                countries,
                &mut report,
            ));
        }
    }
    for (id, (line, row)) in newer.iter().filter(|(id, _)| !overridden(id)) {
        let sectors_from = older.get(id).map_or(row, |(_, older_row)| older_row);
        let (row, taken) = match older.get(id) {
            Some((_, older_row)) => row.filled_from(older_row),
            None => (row.clone(), Vec::new()),
        };
        let mut record = build(
            source,
            &row,
            sectors_from,
            (&newer_file, *line),
            &source.newer_retrieved_at,
            (&mapping, &mut unmapped),
            countries,
            &mut report,
        );
        // A field taken but refused (an older date such as `5/1/1979 1`) was not read from anywhere.
        let taken: Vec<String> = taken
            .into_iter()
            .filter(|field| record_has(&record, field))
            .collect();
        if !taken.is_empty() {
            report.filled_from_older_export += 1;
        }
        record.from_older_export = taken;
        records.push(record);
    }
    for (id, (line, row)) in &older {
        if newer.contains_key(id) || overridden(id) {
            continue;
        }
        report.from_older_export += 1;
        records.push(build(
            source,
            row,
            row,
            (&older_file, *line),
            &source.older_retrieved_at,
            (&mapping, &mut unmapped),
            countries,
            &mut report,
        ));
    }
    records.sort_by(|left, right| left.id.cmp(&right.id));
    report.pillars_from_title = records
        .iter()
        .filter(|record| record.pillar_basis.as_deref() == Some("title"))
        .count() as u64;
    report.refused.sort_by(|left, right| {
        (&left.file, left.line, &left.field).cmp(&(&right.file, right.line, &right.field))
    });
    report.kept = records.len() as u64;
    report.unmapped = unmapped.into_iter().collect();
    Ok((records, report))
}

/// The valid rows of one export by id, each with its line; refused rows go to `report`.
fn read_export(
    (headers, records): super::Records,
    file: &str,
    report: &mut CuratedReport,
) -> BTreeMap<String, (u64, RawProject)> {
    let mut rows = BTreeMap::new();
    for (line, record) in records {
        let row = record.and_then(|record| {
            record
                .deserialize::<RawProject>(Some(&headers))
                .map_err(|error| error.to_string())
        });
        let mut refuse = |field: &str, reason: String| {
            report.refused.push(CuratedRefusal {
                file: file.to_string(),
                line,
                field: field.to_string(),
                reason,
            });
        };
        let row = match row {
            Ok(row) => row,
            Err(error) => {
                refuse("(row)", format!("record dropped: unreadable row: {error}"));
                continue;
            }
        };
        let id = row.project_id.trim();
        if !is_p_code(id) {
            refuse(
                "project_id",
                format!("record dropped: `{id}` is not a P-code (P and 6 digits)"),
            );
            continue;
        }
        if row
            .project_name
            .as_deref()
            .is_none_or(|name| name.trim().is_empty())
        {
            refuse("project_name", "record dropped: no title".into());
            continue;
        }
        match row.status.as_deref() {
            Some(status) if STATUSES.contains(&status) => {}
            other => {
                refuse(
                    "status",
                    format!(
                        "record dropped: status `{}`; valid: {}",
                        other.unwrap_or(""),
                        STATUSES.join(", ")
                    ),
                );
                continue;
            }
        }
        if rows.contains_key(id) {
            refuse(
                "project_id",
                format!("record dropped: a second row of {id} (the first is kept)"),
            );
            continue;
        }
        rows.insert(id.to_string(), (line, row));
    }
    rows
}

/// One record from `row` (sectors and themes from `sectors_from`), fields checked.
#[allow(clippy::too_many_arguments)]
fn build(
    source: &ProjectsSource,
    row: &RawProject,
    sectors_from: &RawProject,
    (file, line): (&str, u64),
    retrieved_at: &str,
    (mapping, unmapped): (&Mappings, &mut BTreeSet<String>),
    countries: &CountryRegistry,
    report: &mut CuratedReport,
) -> Project {
    let mut refusals: Vec<(&str, String)> = Vec::new();
    let mut left_empty = |field: &'static str, reason: String| refusals.push((field, reason));
    let approval_date = checked_date(&row.board_approval_date).unwrap_or_else(|reason| {
        left_empty("board_approval_date", reason);
        None
    });
    let closing_date = checked_date(&row.closing_date).unwrap_or_else(|reason| {
        left_empty("closing_date", reason);
        None
    });
    let cost_usd = checked_amount(&row.project_cost_usd).unwrap_or_else(|reason| {
        left_empty("project_cost_usd", reason);
        None
    });
    let grant_usd = checked_amount(&row.grant_amount_usd).unwrap_or_else(|reason| {
        left_empty("grant_amount_usd", reason);
        None
    });
    let commitment_usd = lending_commitment(row, grant_usd, &mut left_empty);
    let country = text(&row.iso3).and_then(|iso3| {
        lac_country(countries, &iso3)
            .map_err(|reason| left_empty("iso3", reason))
            .ok()
    });
    for (field, reason) in refusals {
        report.refused.push(CuratedRefusal {
            file: file.to_string(),
            line,
            field: field.to_string(),
            reason: format!("field left empty: {reason}"),
        });
    }
    let id = row.project_id.trim().to_string();
    let inconsistencies = inconsistencies(
        text(&row.status).as_deref(),
        (approval_date.as_deref(), closing_date.as_deref()),
        (commitment_usd, cost_usd),
        retrieved_at,
    );
    for inconsistency in &inconsistencies {
        *report
            .inconsistencies
            .entry(inconsistency.clone())
            .or_default() += 1;
    }
    let canonical_url =
        format!("https://projects.worldbank.org/en/projects-operations/project-detail/{id}");
    let url = text(&row.url)
        .filter(|url| url.starts_with("https://projects.worldbank.org/"))
        .unwrap_or(canonical_url);
    let named = |values: [&Option<String>; 3]| -> Vec<String> {
        let mut names: Vec<String> = values.iter().filter_map(|value| text(value)).collect();
        names.dedup();
        names
    };
    let sectors = named([
        &sectors_from.sector1,
        &sectors_from.sector2,
        &sectors_from.sector3,
    ]);
    let themes = named([&sectors_from.theme1, &sectors_from.theme2, &None]);
    let mut pillars = BTreeSet::new();
    // The main pillar: the first sector's (the export lists the main sector first), else the first theme's.
    let mut main_pillar = None;
    for (kind, names) in [("sector", &sectors), ("theme", &themes)] {
        for name in names {
            match mapping.sectors.get(&(kind.to_string(), name.clone())) {
                Some(Some(pillar)) => {
                    main_pillar.get_or_insert_with(|| pillar.clone());
                    pillars.insert(pillar.clone());
                }
                Some(None) => {}
                None => {
                    unmapped.insert(format!("{kind}: {name}"));
                }
            }
        }
    }
    let title = decoded(text(&row.project_name).unwrap_or_default());
    let mut pillar_basis = (!pillars.is_empty()).then(|| "sectors".to_string());
    let mut pillars: Vec<String> = pillars.into_iter().collect();
    if sectors.is_empty() && themes.is_empty() {
        pillars = keyword_pillars(&title, mapping.title_words);
        main_pillar = pillars.first().cloned();
        if !pillars.is_empty() {
            pillar_basis = Some("title".into());
        }
        pillars.sort();
    }
    Project {
        citation_id: format!("{}-{}", source.citation_prefix, id.to_lowercase()),
        id,
        source: source.id.clone(),
        publisher: source.publisher.clone(),
        license: source.license.clone(),
        attribution: source.attribution.clone(),
        title,
        country,
        location: text(&row.country).unwrap_or_default(),
        status: text(&row.status).unwrap_or_default(),
        stage: text(&row.last_stage_reached),
        approval_date,
        closing_date,
        cost_usd,
        commitment_usd,
        grant_usd,
        cofinancing_usd: None,
        financing_type: text(&row.financing_type),
        lending_instrument: text(&row.lending_instrument),
        instrument_family: text(&row.lending_instrument_family),
        implementing_agency: text(&row.implementing_agency),
        borrower: text(&row.borrower),
        environmental_category: text(&row.env_assessment_category),
        environmental_risk: text(&row.env_social_risk_rating),
        sectors,
        themes,
        pillars,
        pillar_basis,
        main_pillar,
        objective: decoded(text(&row.project_development_objective).unwrap_or_default()),
        url,
        retrieved_at: retrieved_at.to_string(),
        from_older_export: Vec::new(),
        inconsistencies,
    }
}

/// The World Bank's lending commitment of `row`, current US$: the IBRD loan plus the IDA credit when the
/// row has those columns (both exports and the API's pages do); else (a steward's row without them) the
/// export's `total_ibrd_ida_commitment_usd` less the grant, which that total includes in the newer export.
/// `None` when nothing is reported; a bad cell is left empty through `left_empty`.
fn lending_commitment(
    row: &RawProject,
    grant_usd: Option<f64>,
    left_empty: &mut impl FnMut(&'static str, String),
) -> Option<f64> {
    let mut read = |field: &'static str, cell: &Option<String>| {
        checked_amount(cell).unwrap_or_else(|reason| {
            left_empty(field, reason);
            None
        })
    };
    if row.ibrd_commitment_usd.is_some() || row.ida_commitment_usd.is_some() {
        let ibrd = read("ibrd_commitment_usd", &row.ibrd_commitment_usd);
        let ida = read("ida_commitment_usd", &row.ida_commitment_usd);
        return match (ibrd, ida) {
            (None, None) => None,
            (ibrd, ida) => Some(ibrd.unwrap_or(0.0) + ida.unwrap_or(0.0)),
        };
    }
    let total = read(
        "total_ibrd_ida_commitment_usd",
        &row.total_ibrd_ida_commitment_usd,
    )?;
    let lending = total - grant_usd.unwrap_or(0.0);
    (lending > 0.5).then_some(lending)
}

/// The [`corpus::PROJECT_INCONSISTENCIES`] a record's own fields show: `status`, `(approval, closing)`
/// dates, `(commitment, cost)` in US$, and the date of the export it was read from (`YYYY-MM-DD`).
fn inconsistencies(
    status: Option<&str>,
    (approval, closing): (Option<&str>, Option<&str>),
    (commitment, cost): (Option<f64>, Option<f64>),
    exported: &str,
) -> Vec<String> {
    let mut found = Vec::new();
    if status == Some("Active") && closing.is_some_and(|closing| closing < exported) {
        found.push("active_past_closing");
    }
    if let (Some(approval), Some(closing)) = (approval, closing)
        && closing < approval
    {
        found.push("closes_before_approval");
    }
    // A dollar of rounding is not a contradiction.
    if let (Some(commitment), Some(cost)) = (commitment, cost)
        && commitment > cost + 1.0
    {
        found.push("commitment_above_cost");
    }
    found.into_iter().map(String::from).collect()
}

/// Whether `record` holds a value in the field `name` (as [`RawProject::filled_from`] names them).
fn record_has(record: &Project, name: &str) -> bool {
    match name {
        "cost_usd" => record.cost_usd.is_some(),
        "commitment_usd" => record.commitment_usd.is_some(),
        "grant_usd" => record.grant_usd.is_some(),
        "approval_date" => record.approval_date.is_some(),
        "closing_date" => record.closing_date.is_some(),
        "borrower" => record.borrower.is_some(),
        "implementing_agency" => record.implementing_agency.is_some(),
        "environmental_category" => record.environmental_category.is_some(),
        "environmental_risk" => record.environmental_risk.is_some(),
        "lending_instrument" => record.lending_instrument.is_some(),
        "instrument_family" => record.instrument_family.is_some(),
        "financing_type" => record.financing_type.is_some(),
        "objective" => !record.objective.is_empty(),
        _ => false,
    }
}

/// The reviewed mappings a project's pillars are read through.
struct Mappings<'a> {
    /// (`sector` | `theme`, name) → pillar.
    sectors: &'a PillarMapping,
    /// (`title_word`, folded word) → pillar, for projects without sector or theme.
    title_words: &'a PillarMapping,
}

/// A date cell: empty, or `YYYY-MM-DD` (or `M/D/YYYY`, rewritten); else the reason.
fn checked_date(value: &Option<String>) -> Result<Option<String>, String> {
    match text(value) {
        None => Ok(None),
        Some(date) if is_iso_date(&date) => Ok(Some(date)),
        Some(other) => us_date(&other)
            .map(Some)
            .ok_or_else(|| format!("`{other}` is not a date YYYY-MM-DD (or M/D/YYYY)")),
    }
}

/// `M/D/YYYY` (`10/1/2011`) as `YYYY-MM-DD`, if it is a calendar date.
fn us_date(text: &str) -> Option<String> {
    let mut parts = text.split('/');
    let (month, day, year) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || year.len() != 4 {
        return None;
    }
    let (month, day): (u32, u32) = (month.parse().ok()?, day.parse().ok()?);
    let iso = format!("{year}-{month:02}-{day:02}");
    is_iso_date(&iso).then_some(iso)
}

/// An amount cell in US$: empty or 0 (not reported) is `None`; else a finite number > 0, or the reason.
pub(super) fn checked_amount(value: &Option<String>) -> Result<Option<f64>, String> {
    let Some(cell) = text(value) else {
        return Ok(None);
    };
    match cell.parse::<f64>() {
        Ok(0.0) => Ok(None),
        Ok(number) if number.is_finite() && number > 0.0 => Ok(Some(number)),
        _ => Err(format!("`{cell}` is not an amount in US$ (a number ≥ 0)")),
    }
}

/// Whether `id` is a World Bank P-code (`P` and six digits).
fn is_p_code(id: &str) -> bool {
    id.len() == 7 && id.starts_with('P') && id[1..].bytes().all(|byte| byte.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::is_p_code;

    #[test]
    fn us_dates_become_iso_dates_and_entities_are_decoded() {
        assert_eq!(super::us_date("10/1/2011").as_deref(), Some("2011-10-01"));
        assert_eq!(super::us_date("13/1/2011"), None);
        assert_eq!(super::us_date("1/2011"), None);
        assert_eq!(
            super::super::decoded("Bolivia&rsquo;s &amp; Peru".into()),
            "Bolivia’s & Peru"
        );
    }

    #[test]
    fn a_record_contradicting_itself_is_flagged_by_name() {
        let flagged = super::inconsistencies(
            Some("Active"),
            (Some("2020-05-01"), Some("2019-12-31")),
            (Some(100.0), Some(80.0)),
            "2025-03-31",
        );
        assert_eq!(
            flagged,
            [
                "active_past_closing",
                "closes_before_approval",
                "commitment_above_cost"
            ]
        );
        let sound = super::inconsistencies(
            Some("Closed"),
            (Some("2015-05-01"), Some("2019-12-31")),
            (Some(80.0), Some(80.5)),
            "2025-03-31",
        );
        assert!(sound.is_empty(), "{sound:?}");
    }

    #[test]
    fn p_codes_are_p_and_six_digits() {
        assert!(is_p_code("P127837"));
        for bad in ["P12783", "p127837", "P12783X", "127837", ""] {
            assert!(!is_p_code(bad), "{bad}");
        }
    }
}
