//! The `institutions` dataset: public bodies and their roles, from the three tables of
//! `gov_institutions/` ([`corpus::Institution`]).
//!
//! - `gov_nso_registry`: national statistics offices (every pillar: they measure them all) and open-data
//!   portals (`gobernanza`).
//! - `govdirectory`: ministries, undersecretariats, provinces, embassies; pillars from the reviewed name
//!   keywords (`data/curated/institution_pillars.csv`); a body matching none has none.
//! - `wb_implementing_agencies`: the bodies implementing World Bank projects; pillars, activity, the link
//!   and the amounts from their projects in the `projects` dataset (the sums of their approved projects,
//!   not the table's totals); the spellings of one body in one country (`Ministry of Public Finance`,
//!   `Ministerio de Finanzas Públicas, Guatemala`, `… (MINFIN)`) merged into one record with `aliases`
//!   ([`corpus::BodyKey`]; counted in the report's `merged_spellings`).
//!
//! Records refused: a country that is not a LAC country of the registry, no name, a repeated id (the
//! steward's override file may replace a record by its id).

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

use corpus::{CountryRegistry, CuratedReport, Institution, Project};
use serde::Deserialize;

use super::{
    PillarMapping, UniqueIds, finish, keyword_pillars, lac_country, list, read_rows, refuse,
    report, slug, text,
};
use crate::{BakeError, sources::curated::RecordSource};

/// The roles of the agency registry.
pub const REGISTRY_ROLES: [&str; 2] = ["national_statistical_office", "open_data_portal"];

/// One row of any of the three tables (each has a subset of the columns).
#[derive(Debug, Clone, Deserialize)]
struct RawInstitution {
    iso3: String,
    #[serde(default)]
    registry_id: Option<String>,
    #[serde(default)]
    institution_role: Option<String>,
    #[serde(default)]
    name_en: Option<String>,
    #[serde(default)]
    name_es: Option<String>,
    #[serde(default)]
    name_pt: Option<String>,
    #[serde(default)]
    wikidata_qid: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    org_type: Option<String>,
    #[serde(default)]
    official_website: Option<String>,
    #[serde(default)]
    govdirectory_url: Option<String>,
    #[serde(default)]
    implementing_agency: Option<String>,
    #[serde(default)]
    project_ids: Option<String>,
}

/// What the institutions are read against.
pub struct Context<'a> {
    /// The LAC registry.
    pub countries: &'a CountryRegistry,
    /// Every pillar id.
    pub pillar_ids: &'a [&'a str],
    /// The `projects` dataset, sorted by id.
    pub projects: &'a [Project],
}

/// Reads the institutions of one `source` (one of the three tables), sorted by country and name.
///
/// # Errors
/// [`BakeError::Io`] if a table or the mapping cannot be read; [`BakeError::Catalog`] for a bad mapping or
/// an unknown source id.
pub fn institutions(
    source: &RecordSource,
    catalog_dir: &Path,
    sources_dir: &Path,
    context: &Context,
) -> Result<(Vec<Institution>, CuratedReport), BakeError> {
    let keywords = match source.id.as_str() {
        "govdirectory" => Some(super::source_mapping(
            source,
            catalog_dir,
            &["keyword"],
            context.pillar_ids,
        )?),
        "gov_nso_registry" | "wb_implementing_agencies" => None,
        other => {
            return Err(BakeError::catalog(
                catalog_dir.join(format!("curated/{other}.toml")),
                format!(
                    "id `{other}`: institutions are read from gov_nso_registry, govdirectory or wb_implementing_agencies"
                ),
            ));
        }
    };
    let mut report = report(corpus::RecordDataset::Institutions, &source.id);
    let raw_label = source.file_label();
    let mut agency_ids = UniqueIds::default();
    let mut by_id: BTreeMap<String, Institution> = BTreeMap::new();
    for (file, line, row) in
        read_rows::<RawInstitution>(source, catalog_dir, sources_dir, &mut report)?
    {
        let iso3 = row.iso3.trim().to_string();
        if let Err(reason) = lac_country(context.countries, &iso3) {
            let reason = format!("record dropped: {reason}");
            refuse(&mut report, &file, line, "iso3", reason);
            continue;
        }
        let built = match source.id.as_str() {
            "gov_nso_registry" => registry_body(source, &row, context.pillar_ids),
            "govdirectory" => directory_body(source, &row, keywords.as_ref().expect("read above")),
            _ => agency(source, &row, context.projects, &mut agency_ids),
        };
        let mut institution = match built {
            Ok(institution) => institution,
            Err((field, reason)) => {
                refuse(
                    &mut report,
                    &file,
                    line,
                    field,
                    format!("record dropped: {reason}"),
                );
                continue;
            }
        };
        institution.country = iso3;
        if by_id.contains_key(&institution.citation_id) && file == raw_label {
            refuse(
                &mut report,
                &file,
                line,
                "(id)",
                format!(
                    "record dropped: a second row of {} (the first is kept)",
                    institution.citation_id
                ),
            );
            continue;
        }
        if file != raw_label {
            report.overrides += 1;
        }
        by_id.insert(institution.citation_id.clone(), institution);
    }
    let mut records: Vec<Institution> = by_id.into_values().collect();
    if source.id == "wb_implementing_agencies" {
        let before = records.len();
        records = one_record_per_body(records, context);
        report.merged_spellings = (before - records.len()) as u64;
    }
    records.sort_by(|left, right| (&left.country, &left.name).cmp(&(&right.country, &right.name)));
    finish(&mut report, records.len(), BTreeSet::new());
    Ok((records, report))
}

/// A record of `source` with what every table shares, the rest empty.
fn record(
    source: &RecordSource,
    citation_id: String,
    name: String,
    role: &str,
    url: String,
) -> Institution {
    Institution {
        citation_id,
        source: source.id.clone(),
        publisher: source.publisher.clone(),
        license: source.license.clone(),
        attribution: source.attribution.clone(),
        name,
        name_es: None,
        name_pt: None,
        country: String::new(),
        role: role.into(),
        kind: None,
        website: None,
        pillars: Vec::new(),
        projects: Vec::new(),
        active_projects: 0,
        commitment_usd: None,
        grant_usd: None,
        aliases: Vec::new(),
        url,
        retrieved_at: source.retrieved_at.clone(),
    }
}

type Refusal = (&'static str, String);

/// A statistics office or open-data portal of the agency registry.
fn registry_body(
    source: &RecordSource,
    row: &RawInstitution,
    pillar_ids: &[&str],
) -> Result<Institution, Refusal> {
    let registry_id =
        text(&row.registry_id).ok_or(("registry_id", "no registry id".to_string()))?;
    let name = text(&row.name_en).ok_or(("name_en", "no English name".to_string()))?;
    let role = text(&row.institution_role).unwrap_or_default();
    if !REGISTRY_ROLES.contains(&role.as_str()) {
        return Err((
            "institution_role",
            format!("role `{role}`; valid: {}", REGISTRY_ROLES.join(", ")),
        ));
    }
    let url = wikidata_url(&row.wikidata_qid).unwrap_or_else(|| source.homepage.clone());
    let mut body = record(
        source,
        format!("{}-{}", source.citation_prefix, slug(&registry_id, 12)),
        name,
        &role,
        url,
    );
    body.name_es = text(&row.name_es);
    body.name_pt = text(&row.name_pt);
    body.website = first_https_or_http(&row.official_website);
    body.pillars = if role == "national_statistical_office" {
        let mut all: Vec<String> = pillar_ids.iter().map(|id| id.to_string()).collect();
        all.sort();
        all
    } else {
        vec!["gobernanza".into()]
    };
    Ok(body)
}

/// A public body of Govdirectory.
fn directory_body(
    source: &RecordSource,
    row: &RawInstitution,
    keywords: &PillarMapping,
) -> Result<Institution, Refusal> {
    let qid = text(&row.wikidata_qid)
        .filter(|qid| {
            qid.starts_with('Q')
                && qid[1..].bytes().all(|byte| byte.is_ascii_digit())
                && qid.len() > 1
        })
        .ok_or(("wikidata_qid", "no Wikidata id (Q and digits)".to_string()))?;
    let name = text(&row.name).ok_or(("name", "no name".to_string()))?;
    let url = text(&row.govdirectory_url)
        .filter(|url| url.starts_with("https://www.govdirectory.org/"))
        .unwrap_or_else(|| source.homepage.clone());
    let mut body = record(
        source,
        format!("{}-{}", source.citation_prefix, qid.to_lowercase()),
        name,
        "public_body",
        url,
    );
    body.kind = text(&row.org_type);
    body.website = first_https_or_http(&row.official_website);
    body.pillars = keyword_pillars(&body.name, keywords)
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    Ok(body)
}

/// An implementing agency of World Bank projects, with its projects' pillars and activity.
fn agency(
    source: &RecordSource,
    row: &RawInstitution,
    projects: &[Project],
    ids: &mut UniqueIds,
) -> Result<Institution, Refusal> {
    let name =
        text(&row.implementing_agency).ok_or(("implementing_agency", "no agency".to_string()))?;
    let codes = list(&row.project_ids, '|');
    let iso3 = row.iso3.trim().to_lowercase();
    let id = ids.next(format!(
        "{}-{iso3}-{}",
        source.citation_prefix,
        slug(&name, 6)
    ));
    let mut body = record(
        source,
        id,
        name,
        "implementing_agency",
        source.homepage.clone(),
    );
    body.projects = codes;
    from_projects(&mut body, projects);
    Ok(body)
}

/// An implementing agency's pillars, activity, amounts and page, from the `projects` records of its
/// P-codes (`projects` sorted by id): the amounts are the sums of its approved projects' (Active, Closed),
/// so the agency's total is the sum of its projects, Pipeline and Dropped ones in none.
fn from_projects(body: &mut Institution, projects: &[Project]) {
    let known: Vec<&Project> = body
        .projects
        .iter()
        .filter_map(|code| {
            projects
                .binary_search_by(|project| project.id.as_str().cmp(code))
                .ok()
                .map(|at| &projects[at])
        })
        .collect();
    if let Some(latest) = known
        .iter()
        .max_by(|left, right| left.approval_date.cmp(&right.approval_date))
    {
        body.url = latest.url.clone();
    }
    body.pillars = known
        .iter()
        .flat_map(|project| project.pillars.iter().cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    body.active_projects = known
        .iter()
        .filter(|project| project.status == "Active")
        .count() as u32;
    let sum = |amount: fn(&Project) -> Option<f64>| -> Option<f64> {
        let amounts: Vec<f64> = known
            .iter()
            .filter(|project| project.is_approved())
            .filter_map(|project| amount(project))
            .collect();
        (!amounts.is_empty()).then(|| amounts.iter().sum())
    };
    body.commitment_usd = sum(|project| project.commitment_usd);
    body.grant_usd = sum(|project| project.grant_usd);
}

/// The implementing agencies with each body's spellings merged into one record ([`corpus::BodyKey`]: the
/// same words in English, Spanish or Portuguese, or the same acronym, within one country). The record kept
/// is the spelling with the most projects (then the first by citation id); the others become its
/// `aliases`, their projects join its own and its sums are worked out again from the projects.
fn one_record_per_body(records: Vec<Institution>, context: &Context) -> Vec<Institution> {
    let keys: Vec<corpus::BodyKey> = records
        .iter()
        .map(|body| {
            let names: Vec<&str> = context
                .countries
                .get(&body.country)
                .map(|country| country.names.all().collect())
                .unwrap_or_default();
            corpus::BodyKey::of(&body.name, &names)
        })
        .collect();
    // Union-find over the records of one country.
    let mut parent: Vec<usize> = (0..records.len()).collect();
    fn root(parent: &mut [usize], mut at: usize) -> usize {
        while parent[at] != at {
            parent[at] = parent[parent[at]];
            at = parent[at];
        }
        at
    }
    for left in 0..records.len() {
        for right in left + 1..records.len() {
            if records[left].country == records[right].country && keys[left].same_body(&keys[right])
            {
                let (left_root, right_root) = (root(&mut parent, left), root(&mut parent, right));
                parent[right_root.max(left_root)] = right_root.min(left_root);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<Institution>> = BTreeMap::new();
    for (at, body) in records.into_iter().enumerate() {
        let group = root(&mut parent, at);
        groups.entry(group).or_default().push(body);
    }
    groups
        .into_values()
        .map(|mut members| {
            members.sort_by(|left, right| {
                right
                    .projects
                    .len()
                    .cmp(&left.projects.len())
                    .then(left.citation_id.cmp(&right.citation_id))
            });
            let mut kept = members.remove(0);
            if members.is_empty() {
                return kept;
            }
            for other in members {
                if !kept.aliases.contains(&other.name) && other.name != kept.name {
                    kept.aliases.push(other.name);
                }
                for code in other.projects {
                    if !kept.projects.contains(&code) {
                        kept.projects.push(code);
                    }
                }
            }
            kept.aliases.sort();
            from_projects(&mut kept, context.projects);
            kept
        })
        .collect()
}

/// The Wikidata page of a `Q…` id.
fn wikidata_url(qid: &Option<String>) -> Option<String> {
    text(qid)
        .filter(|qid| qid.starts_with('Q'))
        .map(|qid| format!("https://www.wikidata.org/wiki/{qid}"))
}

/// The first web address of a `|`-joined cell.
fn first_https_or_http(cell: &Option<String>) -> Option<String> {
    list(cell, '|')
        .into_iter()
        .find(|url| url.starts_with("https://") || url.starts_with("http://"))
}

#[cfg(test)]
mod tests {
    use super::super::{PillarMapping, keyword_pillars};

    #[test]
    fn keywords_match_whole_folded_words() {
        let mut keywords = PillarMapping::new();
        keywords.insert(
            ("keyword".into(), "vivienda".into()),
            Some("infraestructura".into()),
        );
        keywords.insert(
            ("keyword".into(), "medio ambiente".into()),
            Some("medio_ambiente".into()),
        );
        keywords.insert(("keyword".into(), "labor".into()), Some("empleo".into()));
        assert_eq!(
            keyword_pillars("Subsecretaría de Vivienda de Chile", &keywords)
                .into_iter()
                .collect::<Vec<_>>(),
            ["infraestructura"]
        );
        assert_eq!(
            keyword_pillars("Subsecretaría del Medio Ambiente", &keywords)
                .into_iter()
                .collect::<Vec<_>>(),
            ["medio_ambiente"]
        );
        assert!(keyword_pillars("Laboratory of Chile", &keywords).is_empty());
    }
}
