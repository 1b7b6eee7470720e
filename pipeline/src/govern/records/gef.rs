//! GEF projects (`data/curated/gef_projects.toml`) as records of the `projects` dataset
//! ([`corpus::Project`]), beside the World Bank's. Only in a bake that admits the GEF's terms.
//!
//! - **Id**: `GEF-` and the GEF id (`GEF-10450`), cited as `gef-10450`; a second row of an id is refused.
//! - **Country**: the one LAC country a single-country project names; a multi-country or regional project
//!   keeps the countries as listed in `location` and no country.
//! - **Status**: the GEF stage mapped (Project Approved → Active, Completed → Closed, Concept Approved or
//!   Proposed and Received by GEF Secretariat → Pipeline, Cancelled → Dropped), the stage itself kept with
//!   the GEF period in `stage`; another stage is refused.
//! - **Amounts**: the GEF grant and the co-financing (US$, not split by country); the cost is their sum.
//! - **Financing**: the fund (`GEF Trust Fund`, `Special Climate Change Fund`…) as the financing type, the
//!   GEF agency (UNDP, World Bank, IDB…) as the implementing agency.
//! - **Pillars**: each focal area through the reviewed mapping (`data/curated/gef_focal_area_pillars.csv`).
//!   The export has no dates and no objective: those stay empty.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

use corpus::{CountryRegistry, CuratedReport, Project};
use serde::Deserialize;

use super::{
    finish, lac_country, list, projects::checked_amount, read_rows, refuse, report, source_mapping,
    text,
};
use crate::{BakeError, sources::curated::RecordSource};

/// GEF stages and the status each maps to.
pub const STAGES: [(&str, &str); 6] = [
    ("Project Approved", "Active"),
    ("Completed", "Closed"),
    ("Concept Approved", "Pipeline"),
    ("Concept Proposed", "Pipeline"),
    ("Received by GEF Secretariat", "Pipeline"),
    ("Cancelled", "Dropped"),
];

/// One row of the export (the columns read).
#[derive(Debug, Clone, Deserialize)]
struct RawGefProject {
    gef_id: String,
    title: Option<String>,
    countries: Option<String>,
    lac_iso3: Option<String>,
    lac_regional_label: Option<String>,
    focal_areas: Option<String>,
    implementing_agencies: Option<String>,
    fund_source: Option<String>,
    gef_period: Option<String>,
    status: Option<String>,
    gef_grant_usd: Option<String>,
    cofinancing_usd: Option<String>,
    url: Option<String>,
}

/// Reads and validates the GEF projects of `source`, sorted by id.
///
/// # Errors
/// [`BakeError::Io`] if the table or the mapping cannot be read; [`BakeError::Catalog`] for a bad mapping.
pub fn projects(
    source: &RecordSource,
    catalog_dir: &Path,
    sources_dir: &Path,
    pillar_ids: &[&str],
    countries: &CountryRegistry,
) -> Result<(Vec<Project>, CuratedReport), BakeError> {
    let mapping = source_mapping(source, catalog_dir, &["focal_area"], pillar_ids)?;
    let mut report = report(corpus::RecordDataset::Projects, &source.id);
    let raw_label = source.file_label();
    let mut unmapped = BTreeSet::new();
    let mut by_id: BTreeMap<String, Project> = BTreeMap::new();
    for (file, line, row) in
        read_rows::<RawGefProject>(source, catalog_dir, sources_dir, &mut report)?
    {
        let gef_id = row.gef_id.trim().to_string();
        let drop = |report: &mut CuratedReport, field: &str, reason: String| {
            refuse(
                report,
                &file,
                line,
                field,
                format!("record dropped: {reason}"),
            );
        };
        if gef_id.is_empty() || !gef_id.bytes().all(|byte| byte.is_ascii_digit()) {
            drop(
                &mut report,
                "gef_id",
                format!("`{gef_id}` is not a GEF id (digits)"),
            );
            continue;
        }
        let Some(title) = text(&row.title) else {
            drop(&mut report, "title", "no title".into());
            continue;
        };
        let stage = text(&row.status).unwrap_or_default();
        let Some((_, status)) = STAGES.iter().find(|(name, _)| *name == stage) else {
            let valid: Vec<&str> = STAGES.iter().map(|(name, _)| *name).collect();
            drop(
                &mut report,
                "status",
                format!("status `{stage}`; valid: {}", valid.join(", ")),
            );
            continue;
        };
        let id = format!("GEF-{gef_id}");
        if by_id.contains_key(&id) && file == raw_label {
            drop(
                &mut report,
                "gef_id",
                format!("a second row of {gef_id} (the first is kept)"),
            );
            continue;
        }
        if file != raw_label {
            report.overrides += 1;
        }
        let codes = list(&row.lac_iso3, '|');
        let country = match codes.as_slice() {
            [one]
                if row
                    .lac_regional_label
                    .as_deref()
                    .is_none_or(|label| label.trim().is_empty()) =>
            {
                match lac_country(countries, one) {
                    Ok(iso3) => Some(iso3),
                    Err(reason) => {
                        let reason = format!("field left empty: {reason}");
                        refuse(&mut report, &file, line, "lac_iso3", reason);
                        None
                    }
                }
            }
            _ => None,
        };
        let mut amount = |field: &'static str, cell: &Option<String>| {
            checked_amount(cell).unwrap_or_else(|reason| {
                refuse(
                    &mut report,
                    &file,
                    line,
                    field,
                    format!("field left empty: {reason}"),
                );
                None
            })
        };
        let grant_usd = amount("gef_grant_usd", &row.gef_grant_usd);
        let cofinancing_usd = amount("cofinancing_usd", &row.cofinancing_usd);
        let sectors = list(&row.focal_areas, ',');
        let pillars = super::pillars_of(&mapping, "focal_area", &sectors, &mut unmapped);
        let main_pillar = sectors.iter().find_map(|area| {
            mapping
                .get(&("focal_area".to_string(), area.clone()))
                .cloned()
                .flatten()
        });
        let canonical = format!("https://www.thegef.org/projects-operations/projects/{gef_id}");
        by_id.insert(
            id.clone(),
            Project {
                citation_id: format!("{}-{gef_id}", source.citation_prefix),
                id,
                source: source.id.clone(),
                publisher: source.publisher.clone(),
                license: source.license.clone(),
                attribution: source.attribution.clone(),
                title,
                country,
                location: text(&row.countries)
                    .or_else(|| text(&row.lac_regional_label))
                    .unwrap_or_default(),
                status: status.to_string(),
                stage: Some(match text(&row.gef_period) {
                    Some(period) => format!("{stage} ({period})"),
                    None => stage.clone(),
                }),
                approval_date: None,
                closing_date: None,
                cost_usd: grant_usd.map(|grant| grant + cofinancing_usd.unwrap_or(0.0)),
                commitment_usd: None,
                grant_usd,
                cofinancing_usd,
                financing_type: text(&row.fund_source),
                lending_instrument: None,
                instrument_family: None,
                implementing_agency: text(&row.implementing_agencies),
                borrower: None,
                environmental_category: None,
                environmental_risk: None,
                sectors,
                themes: Vec::new(),
                pillar_basis: (!pillars.is_empty()).then(|| "sectors".to_string()),
                pillars: pillars.into_iter().collect(),
                main_pillar,
                objective: String::new(),
                url: text(&row.url)
                    .filter(|url| *url == canonical)
                    .unwrap_or(canonical),
                retrieved_at: source.retrieved_at.clone(),
                from_older_export: Vec::new(),
                inconsistencies: Vec::new(),
            },
        );
    }
    let records: Vec<Project> = by_id.into_values().collect();
    finish(&mut report, records.len(), unmapped);
    Ok((records, report))
}
