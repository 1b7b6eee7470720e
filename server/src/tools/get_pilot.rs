//! `get_pilot`: the full sheet of one project of the curated `projects` dataset (a `find_pilots` slug):
//! economics, evidence of bankability, risks, financing and decision makers, each part from the records
//! or from the corpus' cited indicators, never invented.
//!
//! - **Economics**: cost, World Bank commitment (IBRD, IDA and grant), grant (a GEF project: the GEF grant and the co-financing),
//!   and the other financing the record implies (cost less the World Bank's or the GEF's share, only when
//!   the cost exceeds it).
//! - **Bankability**: status, approval and closing dates, and up to [`SIMILAR`] similar projects (same
//!   country, a shared pillar; the most shared sectors and pillars first, then closed ones: their status is
//!   the outcome the records state).
//! - **Risks**: environmental category and risk rating; the country's data health in the project's pillar;
//!   up to [`WORSENING`] of its indicators whose 10-year trend runs against their good direction by at
//!   least 1 % of the latest observed (never projected) value over the decade ([`is_worsening`]).
//! - **Financing**: the instrument, the OECD CRS flows to the country in the pillar (latest, cited) and up
//!   to [`FINANCIERS`] of their largest donors (the `financing` records).
//! - **Decision makers**: implementing agency and borrower as published, and up to [`INSTITUTIONS`]
//!   institutions of the pillar in the country (the `institutions` records: this project's implementers,
//!   public bodies acting on the pillar, the statistics office);
//!   institutions, never people.

use corpus::CitedRecord;
use corpus::{Lang, Project, RecordDataset};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ToolAnswer, ToolError, ToolSpec, answer, arguments,
    display::{self, SourceLink},
    projects::{IndicatorValue, is_worsening, largest_crs_flows, latest_value, maturity},
};
use crate::load::Corpus;

/// Similar projects listed.
pub const SIMILAR: usize = 5;

/// Worsening indicators listed.
pub const WORSENING: usize = 3;

/// CRS financiers shown.
pub const FINANCIERS: usize = 3;

/// Institutions of the pillar shown.
pub const INSTITUTIONS: usize = 4;

/// The datasets it reads.
const DATASETS: [&str; 6] = [
    RecordDataset::Projects.id(),
    "series_stats",
    "data_health",
    "metrics",
    RecordDataset::Financing.id(),
    RecordDataset::Institutions.id(),
];

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "get_pilot",
        "The full sheet of one pilot project",
        "One project by `slug` (its P-code, from find_pilots): economics (cost, IBRD + IDA \
         commitment, grant, other financing), bankability (status, dates, similar projects), risks \
         (environmental category, the pillar's data health, worsening indicators), financing \
         (instrument; OECD CRS flows and donors there) and decision makers. Notes name the \
         publisher's inconsistencies. Everything cited.",
        &DATASETS,
        handle,
    )
}

/// Arguments of `get_pilot`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetPilotInput {
    /// P-code: `p102479`, `102479` or `wbproj-p102479`.
    #[schemars(transform = super::limits::cap_name)]
    pub slug: String,
}

/// The sheet.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GetPilotResult {
    /// Slug, title, country, pillars, objective, link and citation_id of the project.
    pub project: ProjectSummary,
    /// What it costs and who pays.
    pub economics: Economics,
    /// What the records say of its standing.
    pub bankability: Bankability,
    /// What could go wrong.
    pub risks: Risks,
    /// How it is financed.
    pub financing: Financing,
    /// Who decides and implements (institutions as published).
    pub decision_makers: DecisionMakers,
    /// What the sheet rests on and leaves out.
    pub notes: Vec<String>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// The project itself.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProjectSummary {
    /// P-code in lower case.
    pub slug: String,
    /// Name.
    pub title: String,
    /// ISO3, or `None` for a multi-country operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// The publisher's country or region label.
    pub location: String,
    /// Pillars its sectors and themes (or title words) map to.
    pub pillars: Vec<String>,
    /// `sectors` or `title`: what the pillars were read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pillars_from: Option<String>,
    /// The main pillar, in which risks, flows and institutions are read; `None`: those parts are empty.
    pub main_pillar: Option<String>,
    /// Sectors as published.
    pub sectors: Vec<String>,
    /// Development objective, whole.
    pub objective: String,
    /// The project's page.
    pub url: String,
    /// The record's citation id.
    pub citation_id: String,
}

/// Amounts in current US$, from the record (`None`: not reported).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Economics {
    /// Total project cost.
    pub cost_usd: Option<f64>,
    /// The World Bank's lending commitment: IBRD loan + IDA credit (grants apart, in `grant_usd`).
    pub commitment_usd: Option<f64>,
    /// Grant amount (a World Bank grant; for a GEF project, the GEF grant); never part of the commitment.
    pub grant_usd: Option<f64>,
    /// Co-financing pledged by others, when the record reports it (GEF).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cofinancing_usd: Option<f64>,
    /// Cost less the World Bank's share (commitment + grant), when the cost exceeds it: financing from
    /// others (co-financing, the borrower's own), as the record implies.
    pub other_financing_usd: Option<f64>,
}

/// Standing.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Bankability {
    /// Status as published, as of `status_as_of`.
    pub status: String,
    /// Date of the export the status is from.
    pub status_as_of: String,
    /// `active`, `pipeline`, `closed`, or `dropped`.
    pub maturity: &'static str,
    /// The publisher's own stage, when it has one (GEF: `Concept Approved (GEF - 7)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    /// Board approval date.
    pub approval_date: Option<String>,
    /// Closing date.
    pub closing_date: Option<String>,
    /// Other projects in the same country sharing a pillar, closed first, then newest.
    pub similar: Vec<SimilarProject>,
}

/// A similar project.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SimilarProject {
    /// Its slug.
    pub slug: String,
    /// Name.
    pub title: String,
    /// Status as published (for a closed or dropped project, the outcome the records state).
    pub status: String,
    /// Board approval date.
    pub approval_date: Option<String>,
    /// The record's citation id.
    pub citation_id: String,
}

/// Risks.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Risks {
    /// Environmental assessment category (A highest).
    pub environmental_category: Option<String>,
    /// Environmental and social risk rating.
    pub environmental_risk: Option<String>,
    /// The country's data confidence score (0-100) in the project's first pillar, when the corpus has it.
    pub data_confidence: Option<f64>,
    /// Indicators of that pillar in the country whose 10-year trend runs against their good direction.
    pub worsening: Vec<IndicatorValue>,
}

/// Financing.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Financing {
    /// `IBRD`, `IDA`, `Grants`, `Other`.
    pub financing_type: Option<String>,
    /// Lending instrument as published.
    pub lending_instrument: Option<String>,
    /// `IPF`, `DPF`, `PforR`.
    pub instrument_family: Option<String>,
    /// OECD CRS flows to the country in the pillar (US$ million), latest values.
    pub crs_flows: Vec<IndicatorValue>,
    /// The largest financiers of those flows (OECD CRS climate-related, donor × flow type × sector group),
    /// cited by their `financing` records.
    pub financiers: Vec<Financier>,
}

/// One donor's climate-related flow to the country in a sector of the pillar.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Financier {
    /// CRS donor.
    pub donor: String,
    /// CRS flow type (`ODA Grants`).
    pub flow: String,
    /// CRS sector group.
    pub sector: String,
    /// Disbursements summed over `years`, US$ million at constant prices (an upper bound).
    pub total_constant_usd_mn: f64,
    /// First and last year with disbursements.
    pub years: (i32, i32),
    /// The `financing` record.
    pub citation_id: String,
}

/// An institution acting on the project's pillar in its country.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PillarInstitution {
    /// Name as published.
    pub name: String,
    /// `implementing_agency`, `public_body`, `national_statistical_office`.
    pub role: String,
    /// Whether it implements this project (by the World Bank's list of its projects).
    pub implements_this: bool,
    /// The `institutions` record.
    pub citation_id: String,
}

/// Decision makers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DecisionMakers {
    /// Implementing agency as published.
    pub implementing_agency: Option<String>,
    /// Borrower as published.
    pub borrower: Option<String>,
    /// The institutions of the pillar in the country: this project's implementers (one record per body,
    /// the export's other spellings merged into it), then public bodies acting on the pillar, then the statistics office.
    pub institutions: Vec<PillarInstitution>,
}

/// The sheet's notes: the export the status is as of, the publisher inconsistencies the record is flagged
/// with (an Active project past its closing date…), fields read from the older export, and why the
/// pillar's parts are empty.
fn sheet_notes(project: &Project) -> Vec<String> {
    let mut notes = vec![format!(
        "status {} as of the publisher's export of {}; the project's page has the current one",
        project.status, project.retrieved_at
    )];
    // The publisher's own fields that contradict each other, flagged by the bake.
    for flag in &project.inconsistencies {
        let definition = corpus::PROJECT_INCONSISTENCIES
            .iter()
            .find(|(id, _)| id == flag)
            .map_or("", |(_, definition)| definition);
        notes.push(format!(
            "publisher inconsistency `{flag}`: {definition} (closing {}, approval {}); kept as published",
            project.closing_date.as_deref().unwrap_or("—"),
            project.approval_date.as_deref().unwrap_or("—")
        ));
    }
    if !project.from_older_export.is_empty() {
        notes.push(format!(
            "{} read from the older export (the newer leaves them blank)",
            project.from_older_export.join(", ")
        ));
    }
    if project.pillar_basis.as_deref() == Some("title") {
        notes.push(
            "the exports list no sector for it: its pillars come from reviewed words of its title"
                .into(),
        );
    }
    match (project.country.as_deref(), project.main_pillar.as_deref()) {
        (None, _) => notes.push(format!(
            "a multi-country operation ({}): no country's indicators, flows or institutions are read",
            project.location
        )),
        (Some(_), None) => notes.push(
            "no sector or title word maps it to a pillar: risks in the pillar, CRS flows and the pillar's \
             institutions are not read"
                .into(),
        ),
        _ => {}
    }
    notes
}

fn handle(
    corpus: &Corpus,
    input: GetPilotInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, GetPilotResult>, ToolError> {
    let projects = corpus.projects().map_err(ToolError::Internal)?;
    let project = corpus.project_named(&input.slug).ok_or_else(|| {
        ToolError::Invalid(format!(
            "slug `{}`: no project with this P-code in the corpus (a slug is P and 6 digits, e.g. p102479); \
             find_pilots lists them",
            arguments::snippet(&input.slug)
        ))
    })?;
    // The main pillar: the first sector's (risks, flows and institutions are read in it).
    let pillar = project.main_pillar.as_deref();
    let similar: Vec<&Project> = similar(projects, project);
    let (worsening, crs_flows, data_confidence) = match (project.country.as_deref(), pillar) {
        (Some(iso3), Some(pillar)) => (
            worsening(corpus, iso3, pillar, lang)?,
            crs_flows(corpus, iso3, pillar, lang)?,
            corpus
                .pillar_health(pillar, iso3)
                .map_err(ToolError::Internal)?
                .map(|health| health.confidence_score),
        ),
        _ => (Vec::new(), Vec::new(), None),
    };
    let (financiers, financier_records) = match (project.country.as_deref(), pillar) {
        (Some(iso3), Some(pillar)) => financiers(corpus, iso3, pillar)?,
        _ => (Vec::new(), Vec::new()),
    };
    let (institutions, institution_records) = match (project.country.as_deref(), pillar) {
        (Some(iso3), Some(pillar)) => pillar_institutions(corpus, projects, project, iso3, pillar)?,
        _ => (Vec::new(), Vec::new()),
    };
    let cited: Vec<String> = worsening
        .iter()
        .chain(&crs_flows)
        .map(|value| value.citation_id.clone())
        .collect();
    let citations = answer::citation_records(corpus, cited.iter().map(String::as_str))?;
    let mut records: Vec<corpus::RecordCitation> = std::iter::once(project)
        .chain(similar.iter().copied())
        .map(Project::citation)
        .collect();
    records.extend(financier_records);
    records.extend(institution_records);
    // The World Bank's share: its loan or credit and its grant (the record keeps them apart).
    let world_bank = project.financed_usd();
    let notes = sheet_notes(project);
    let other_financing_usd = project
        .cost_usd
        .zip(world_bank)
        .and_then(|(cost, world_bank)| (cost > world_bank).then_some(cost - world_bank));
    Ok(ToolAnswer {
        result: GetPilotResult {
            project: ProjectSummary {
                slug: project.id.to_ascii_lowercase(),
                title: project.title.clone(),
                country: project.country.clone(),
                location: project.location.clone(),
                pillars: project.pillars.clone(),
                pillars_from: project.pillar_basis.clone(),
                main_pillar: project.main_pillar.clone(),
                sectors: project.sectors.clone(),
                objective: project
                    .objective
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
                url: project.url.clone(),
                citation_id: project.citation_id.clone(),
            },
            economics: Economics {
                cost_usd: project.cost_usd,
                commitment_usd: project.commitment_usd,
                grant_usd: project.grant_usd,
                cofinancing_usd: project.cofinancing_usd,
                other_financing_usd,
            },
            bankability: Bankability {
                status: project.status.clone(),
                status_as_of: project.retrieved_at.clone(),
                maturity: maturity(&project.status).unwrap_or("dropped"),
                stage: project.stage.clone(),
                approval_date: project.approval_date.clone(),
                closing_date: project.closing_date.clone(),
                similar: similar
                    .iter()
                    .map(|other| SimilarProject {
                        slug: other.id.to_ascii_lowercase(),
                        title: other.title.clone(),
                        status: other.status.clone(),
                        approval_date: other.approval_date.clone(),
                        citation_id: other.citation_id.clone(),
                    })
                    .collect(),
            },
            risks: Risks {
                environmental_category: project.environmental_category.clone(),
                environmental_risk: project.environmental_risk.clone(),
                data_confidence,
                worsening,
            },
            financing: Financing {
                financing_type: project.financing_type.clone(),
                lending_instrument: project.lending_instrument.clone(),
                instrument_family: project.instrument_family.clone(),
                crs_flows,
                financiers,
            },
            decision_makers: DecisionMakers {
                implementing_agency: project.implementing_agency.clone(),
                borrower: project.borrower.clone(),
                institutions,
            },
            notes,
            sources: vec![
                display::source_link(corpus, RecordDataset::Projects.id(), None),
                display::source_link(corpus, "series_stats", None),
                display::source_link(corpus, "data_health", None),
            ],
        },
        citations,
        display: None,
        records,
    })
}

/// Other projects in the same country sharing a pillar: those sharing the most sectors and pillars first,
/// then closed ones (their outcome is on record), then the newest approval.
fn similar<'a>(projects: &'a [Project], project: &Project) -> Vec<&'a Project> {
    let Some(country) = project.country.as_deref() else {
        return Vec::new();
    };
    let mut similar: Vec<&Project> = projects
        .iter()
        .filter(|other| {
            other.id != project.id
                && other.country.as_deref() == Some(country)
                && other
                    .pillars
                    .iter()
                    .any(|pillar| project.pillars.contains(pillar))
        })
        .collect();
    let shared = |other: &Project| {
        other
            .sectors
            .iter()
            .filter(|sector| project.sectors.contains(sector))
            .count()
            + other
                .pillars
                .iter()
                .filter(|pillar| project.pillars.contains(pillar))
                .count()
    };
    similar.sort_by(|left, right| {
        shared(right)
            .cmp(&shared(left))
            .then((left.status != "Closed").cmp(&(right.status != "Closed")))
            .then(right.approval_date.cmp(&left.approval_date))
            .then(left.id.cmp(&right.id))
    });
    similar.truncate(SIMILAR);
    similar
}

/// The pillar's indicators in `iso3` whose trend runs against their good direction, the steepest
/// (relative to the latest value) first.
fn worsening(
    corpus: &Corpus,
    iso3: &str,
    pillar: &str,
    lang: Lang,
) -> Result<Vec<IndicatorValue>, ToolError> {
    let mut found = Vec::new();
    for metric in corpus
        .baked
        .metrics()
        .iter()
        .filter(|metric| metric.pillar == pillar)
    {
        let Some(value) = latest_value(corpus, metric, iso3, lang)? else {
            continue;
        };
        if is_worsening(metric.good_direction, value.trend_slope, value.value) {
            found.push(value);
        }
    }
    let steepness = |value: &IndicatorValue| {
        value.trend_slope.unwrap_or(0.0).abs() / value.value.abs().max(f64::MIN_POSITIVE)
    };
    found.sort_by(|left, right| {
        steepness(right)
            .total_cmp(&steepness(left))
            .then(left.indicator.cmp(&right.indicator))
    });
    found.truncate(WORSENING);
    Ok(found)
}

/// The OECD CRS flow indicators of the pillar (and the country's total), latest values in `iso3`.
fn crs_flows(
    corpus: &Corpus,
    iso3: &str,
    pillar: &str,
    lang: Lang,
) -> Result<Vec<IndicatorValue>, ToolError> {
    let mut flows = Vec::new();
    for metric in corpus.baked.metrics().iter().filter(|metric| {
        metric.id.starts_with("crs_") && (metric.pillar == pillar || metric.id == "crs_all_total")
    }) {
        if let Some(value) = latest_value(corpus, metric, iso3, lang)? {
            flows.push(value);
        }
    }
    Ok(flows)
}

/// The largest OECD CRS climate-related flows to `iso3` in the pillar's sectors, and their records.
fn financiers(
    corpus: &Corpus,
    iso3: &str,
    pillar: &str,
) -> Result<(Vec<Financier>, Vec<corpus::RecordCitation>), ToolError> {
    let table = corpus.financing().map_err(ToolError::Internal)?;
    let flows = largest_crs_flows(table, iso3, pillar, FINANCIERS);
    let items = flows
        .iter()
        .map(|flow| Financier {
            donor: flow.financier.clone(),
            flow: flow.instrument.clone(),
            sector: flow.sector.clone().unwrap_or_default(),
            total_constant_usd_mn: super::answer::significant(
                flow.total_constant_usd_mn.unwrap_or(0.0),
                4,
            ),
            years: (
                flow.first_year.unwrap_or_default(),
                flow.last_year.unwrap_or_default(),
            ),
            citation_id: flow.citation_id.clone(),
        })
        .collect();
    Ok((items, flows.iter().map(|flow| flow.citation()).collect()))
}

/// The institutions of the pillar in `iso3`, ranked, and their records.
fn pillar_institutions(
    corpus: &Corpus,
    projects: &[Project],
    project: &Project,
    iso3: &str,
    pillar: &str,
) -> Result<(Vec<PillarInstitution>, Vec<corpus::RecordCitation>), ToolError> {
    let table = corpus.institutions().map_err(ToolError::Internal)?;
    let of_pillar = |code: &String| {
        *code == project.id
            || projects
                .binary_search_by(|other| other.id.as_str().cmp(code))
                .ok()
                .is_some_and(|at| projects[at].pillars.iter().any(|of| of == pillar))
    };
    let mut ranked: Vec<(u8, usize, &corpus::Institution)> = table
        .records
        .iter()
        .filter(|body| body.country == iso3)
        .filter_map(|body| {
            let implemented = body.projects.iter().filter(|code| of_pillar(code)).count();
            let tier = match body.role.as_str() {
                "implementing_agency" if body.projects.contains(&project.id) => 0,
                "public_body" if body.pillars.iter().any(|of| of == pillar) => 2,
                "national_statistical_office" => 3,
                _ => return None,
            };
            Some((tier, implemented, body))
        })
        .collect();
    ranked.sort_by(|left, right| {
        left.0
            .cmp(&right.0)
            .then(right.1.cmp(&left.1))
            .then(left.2.name.cmp(&right.2.name))
    });
    ranked.truncate(INSTITUTIONS);
    let items = ranked
        .iter()
        .map(|(tier, _, body)| PillarInstitution {
            name: body.name.clone(),
            role: body.role.clone(),
            implements_this: *tier == 0,
            citation_id: body.citation_id.clone(),
        })
        .collect();
    Ok((
        items,
        ranked.iter().map(|(_, _, body)| body.citation()).collect(),
    ))
}
