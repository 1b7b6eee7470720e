//! The `financing` dataset ([`corpus::FinancingRecord`]): who finances what, per recipient.
//!
//! - **CRS flows** (`data/curated/oecd_crs_flows.toml`): the yearly rows summed per recipient × donor ×
//!   flow type × sector group, each year kept (`years`, current and constant prices) so a window of years
//!   sums what it holds. The total is in constant prices, so years add up without inflation; the
//!   latest year is given at current prices. A group whose every year is 0 is not a flow and makes no
//!   record. Rows refused: a recipient that is not a LAC country, a year outside 1950-2100, an amount that
//!   is not a finite number, a second row of the same group and year.
//! - **Instruments** of the `projects` dataset: per country, pillar and World Bank instrument family (IPF,
//!   DPF, PforR) or GEF trust fund, the approved projects (Active, Closed) that used it, newest approval
//!   first (a project without a mapped pillar is in none), their IBRD + IDA commitments and their grants
//!   summed apart, current US$ (a nominal sum over approval years). Pipeline projects are listed apart
//!   (`pipeline_projects`) and in no sum; dropped ones are left out.

use std::{
    collections::{BTreeMap, BTreeSet, HashSet},
    path::Path,
};

use corpus::{CountryRegistry, CuratedReport, FinancingRecord, Project};
use serde::Deserialize;

use super::{
    UniqueIds, finish, lac_country, read_rows, refuse, report, slug, source_mapping, text,
};
use crate::{BakeError, sources::curated::RecordSource};

/// One yearly row of the CRS extract.
#[derive(Debug, Clone, Deserialize)]
struct RawFlow {
    iso3: String,
    country: Option<String>,
    donor_name: Option<String>,
    flow_name: Option<String>,
    sector_group: Option<String>,
    year: String,
    usd_disbursement_mn_current: String,
    usd_disbursement_mn_constant: String,
}

/// The yearly amounts of one group: year → (current, constant), US$ million.
#[derive(Debug, Default)]
struct Flow {
    recipient: String,
    years: BTreeMap<i32, (f64, f64)>,
}

/// Reads the CRS flows of `source`, sorted by citation id.
///
/// # Errors
/// [`BakeError::Io`] if the table or the mapping cannot be read; [`BakeError::Catalog`] for a bad mapping.
pub fn crs_flows(
    source: &RecordSource,
    catalog_dir: &Path,
    sources_dir: &Path,
    pillar_ids: &[&str],
    countries: &CountryRegistry,
) -> Result<(Vec<FinancingRecord>, CuratedReport), BakeError> {
    let mapping = source_mapping(source, catalog_dir, &["sector"], pillar_ids)?;
    let mut report = report(corpus::RecordDataset::Financing, &source.id);
    let mut flows: BTreeMap<(String, String, String, String), Flow> = BTreeMap::new();
    let mut seen = HashSet::new();
    for (file, line, row) in read_rows::<RawFlow>(source, catalog_dir, sources_dir, &mut report)? {
        let iso3 = row.iso3.trim().to_string();
        let mut drop = |field: &str, reason: String| {
            refuse(
                &mut report,
                &file,
                line,
                field,
                format!("record dropped: {reason}"),
            );
        };
        if let Err(reason) = lac_country(countries, &iso3) {
            drop("iso3", reason);
            continue;
        }
        let (Some(donor), Some(flow), Some(sector)) = (
            text(&row.donor_name),
            text(&row.flow_name),
            text(&row.sector_group),
        ) else {
            drop(
                "donor_name",
                "a donor, flow_name and sector_group are required".into(),
            );
            continue;
        };
        let Some(year) = row
            .year
            .trim()
            .parse::<i32>()
            .ok()
            .filter(|year| (1950..=2100).contains(year))
        else {
            drop("year", format!("`{}` is not a year 1950-2100", row.year));
            continue;
        };
        let amount = |cell: &str| {
            cell.trim()
                .parse::<f64>()
                .ok()
                .filter(|value| value.is_finite())
        };
        let (Some(current), Some(constant)) = (
            amount(&row.usd_disbursement_mn_current),
            amount(&row.usd_disbursement_mn_constant),
        ) else {
            drop(
                "usd_disbursement_mn_current",
                "the amounts must be numbers (US$ million)".into(),
            );
            continue;
        };
        let key = (iso3.clone(), donor, flow, sector);
        if !seen.insert((key.clone(), year)) {
            drop(
                "year",
                format!(
                    "a second row of {} {} {} {} {year}",
                    key.0, key.1, key.2, key.3
                ),
            );
            continue;
        }
        let entry = flows.entry(key).or_default();
        entry.recipient = text(&row.country).unwrap_or(iso3);
        entry.years.insert(year, (current, constant));
    }
    let mut unmapped = BTreeSet::new();
    let mut records = Vec::new();
    // Words are cut so ids stay short (an IBRD "Other Official Flows (non Export Credit)" id would pass 128
    // characters); a cut that makes two ids equal numbers the second.
    let mut ids = UniqueIds::default();
    for ((iso3, donor, flow, sector), Flow { recipient, years }) in flows {
        let active: Vec<(&i32, &(f64, f64))> = years
            .iter()
            .filter(|(_, (current, constant))| *current != 0.0 || *constant != 0.0)
            .collect();
        let (Some(first), Some(last)) = (active.first(), active.last()) else {
            continue;
        };
        let pillars = super::pillars_of(
            &mapping,
            "sector",
            std::slice::from_ref(&sector),
            &mut unmapped,
        );
        records.push(FinancingRecord {
            citation_id: ids.next(format!(
                "{}-{}-{}-{}-{}",
                source.citation_prefix,
                iso3.to_lowercase(),
                slug(&donor, 5),
                slug(&flow, 4),
                slug(&sector, 4)
            )),
            kind: "crs_flow".into(),
            title: format!("{donor} → {recipient}: {flow}, {sector} (OECD CRS, climate-related)"),
            financier: donor,
            instrument: flow,
            country: iso3,
            sector: Some(sector),
            pillars: pillars.into_iter().collect(),
            first_year: Some(*first.0),
            last_year: Some(*last.0),
            latest_usd_mn: Some(last.1.0),
            total_constant_usd_mn: Some(active.iter().map(|(_, (_, constant))| constant).sum()),
            years: years
                .iter()
                .map(|(year, (current, constant))| corpus::FlowYear {
                    year: *year,
                    current_usd_mn: *current,
                    constant_usd_mn: *constant,
                })
                .collect(),
            committed_usd: None,
            grant_usd: None,
            pipeline_projects: Vec::new(),
            projects: Vec::new(),
            source: source.id.clone(),
            publisher: source.publisher.clone(),
            license: source.license.clone(),
            attribution: source.attribution.clone(),
            url: source.homepage.clone(),
            retrieved_at: source.retrieved_at.clone(),
        });
    }
    records.sort_by(|left, right| left.citation_id.cmp(&right.citation_id));
    finish(&mut report, records.len(), unmapped);
    Ok((records, report))
}

/// The instruments the projects used, per country and pillar: World Bank families and GEF trust funds,
/// sorted by citation id. `homepage` is each source's list page (by source id).
pub fn project_instruments(
    projects: &[Project],
    homepages: &BTreeMap<String, String>,
) -> Vec<FinancingRecord> {
    let mut groups: BTreeMap<(String, String, String, String), Vec<&Project>> = BTreeMap::new();
    // A dropped project financed nothing.
    for project in projects
        .iter()
        .filter(|project| project.status != "Dropped")
    {
        let Some(country) = &project.country else {
            continue;
        };
        let (kind, instrument) = if project.source == "gef_projects" {
            ("trust_fund", project.financing_type.clone())
        } else {
            ("lending_instrument", project.instrument_family.clone())
        };
        let Some(instrument) = instrument else {
            continue;
        };
        for pillar in &project.pillars {
            let key = (
                country.clone(),
                kind.to_string(),
                instrument.clone(),
                pillar.clone(),
            );
            groups.entry(key).or_default().push(project);
        }
    }
    let mut records: Vec<FinancingRecord> = groups
        .into_iter()
        .map(|((country, kind, instrument, pillar), mut members)| {
            members.sort_by(|left, right| {
                right
                    .approval_date
                    .cmp(&left.approval_date)
                    .then(left.id.cmp(&right.id))
            });
            let first = members[0];
            let (prefix, financier) = if kind == "trust_fund" {
                ("geffund", "GEF")
            } else {
                ("wbinstrument", "World Bank")
            };
            // Sums over approved projects; those in the Pipeline are listed apart, in no sum.
            let (approved, pipeline): (Vec<&Project>, Vec<&Project>) =
                members.iter().partition(|project| project.is_approved());
            let years: Vec<i32> = approved
                .iter()
                .filter_map(|project| project.approval_date.as_deref()?.get(..4)?.parse().ok())
                .collect();
            let sum = |amount: fn(&Project) -> Option<f64>| -> Option<f64> {
                let amounts: Vec<f64> = approved.iter().filter_map(|project| amount(project)).collect();
                (!amounts.is_empty()).then(|| amounts.iter().sum())
            };
            let in_pipeline = if pipeline.is_empty() {
                String::new()
            } else {
                format!(" ({} in the pipeline)", pipeline.len())
            };
            FinancingRecord {
                citation_id: format!(
                    "{prefix}-{}-{}-{}",
                    country.to_lowercase(),
                    slug(&instrument, 8),
                    pillar.replace('_', "-")
                ),
                title: format!(
                    "{financier} {instrument} in {country}, pillar {pillar}: {} approved projects{in_pipeline}",
                    approved.len()
                ),
                financier: financier.into(),
                instrument,
                country,
                sector: None,
                pillars: vec![pillar],
                first_year: years.iter().min().copied(),
                last_year: years.iter().max().copied(),
                latest_usd_mn: None,
                total_constant_usd_mn: None,
                years: Vec::new(),
                committed_usd: sum(|project| project.commitment_usd),
                grant_usd: sum(|project| project.grant_usd),
                projects: approved.iter().map(|project| project.id.clone()).collect(),
                pipeline_projects: pipeline.iter().map(|project| project.id.clone()).collect(),
                kind,
                source: first.source.clone(),
                publisher: first.publisher.clone(),
                license: first.license.clone(),
                attribution: first.attribution.clone(),
                url: homepages
                    .get(&first.source)
                    .cloned()
                    .unwrap_or_else(|| first.url.clone()),
                retrieved_at: members
                    .iter()
                    .map(|project| project.retrieved_at.as_str())
                    .max()
                    .unwrap_or("")
                    .to_string(),
            }
        })
        .collect();
    records.sort_by(|left, right| left.citation_id.cmp(&right.citation_id));
    records
}
