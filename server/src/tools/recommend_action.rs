//! `recommend_action`: the seed's action chain for a country and a pillar, deterministic and cited at each
//! link. No model call and no invented fact: every sentence is assembled from cited values and records.
//!
//! 1. **Gaps**: the pillar's indicators with a good direction that compare across countries and are not
//!    additive counts or amounts (whose level measures a country's size, not its standing), at the
//!    country's latest observed (not projected) year, against the regional frontier (the best LAC country
//!    that year, by the good direction), when at least 10 countries report that year. Ranked: worsening ones
//!    first (10-year trend against the good direction by at least 1 % of the value over the decade), then by the country's position among the countries
//!    reporting that year (competition ranking: ties share a rank; last = weakest). Both cells cited. The
//!    asks are written in `lang` with the indicators' names in it (units as the publisher gives them).
//! 2. **Projects**: the country's active and pipeline investment projects acting on the pillar, those whose
//!    title or sectors name a gap's indicator first (`addresses`), then active, then the
//!    newest approval; when there are none, comparable investment projects elsewhere in the region (same
//!    pillar, active or closed, sovereign countries), marked `elsewhere`. Budget support and emergency operations (`operation`)
//!    come after them, named in the notes, never as a gap's fit.
//! 3. **Financing**: the instruments that funded the pillar's projects in the country (World Bank IPF, DPF,
//!    PforR; GEF funds; dropped projects aside), each the `financing` record of that country and pillar
//!    (its projects and their commitments summed, current US$, nominal), and the
//!    largest OECD CRS climate-related flows to the country in the pillar's sectors (constant US$ million,
//!    summed over years; an upper bound). Each cited by its record.
//! 4. **Institutions**: the implementing agencies of the pillar's projects in the country (most of those
//!    projects first), then public bodies acting on the pillar, then the national statistics office; each
//!    with an ask written from the data above: the gap whose indicator's names share a word stem with the
//!    body's names (an implementer's: or its project's title and sectors; `Ministerio de Energía` and
//!    energy intensity), else the pillar's weakest.

use corpus::{
    CitedRecord, GoodDirection, Institution, Lang, Metric, Project, RecordDataset, frontier,
    is_projection,
};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    ToolAnswer, ToolError, ToolSpec, answer,
    answer::significant,
    arguments,
    display::{self, SourceLink},
    projects,
};
use crate::load::Corpus;

/// Items shown in each list (gaps, projects, instruments, CRS flows, institutions) without `limit`; fewer
/// when the answer would pass the default 10 KB ([`super::ToolSpec::paged`]).
pub const SHOWN: usize = 3;
/// Items shown in each list at most (`limit`).
pub const MAX_SHOWN: usize = 5;
/// Projects listed per instrument (its record lists them all).
pub const LISTED_PROJECTS: usize = 5;

/// The datasets it reads.
const DATASETS: [&str; 5] = [
    "observations",
    RecordDataset::Projects.id(),
    RecordDataset::Financing.id(),
    RecordDataset::Institutions.id(),
    "series_stats",
];

/// The tool's contract.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "recommend_action",
        "Action chain for a country and pillar, cited",
        "The action chain for a `country` and `pillar`, cited at each link: its weakest or \
         worsening indicators (value, rank, regional frontier, trend) → projects that address \
         them (there, else comparable ones; budget support and emergency operations named apart) \
         → the instruments and CRS flows that funded such work → the institutions to approach, \
         one per body, each with its own ask (in `lang`).",
        &DATASETS,
        handle,
    )
    .paged(SHOWN)
}

/// Arguments of `recommend_action`.
#[derive(Debug, Clone, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecommendActionInput {
    /// Country (ISO3 or name).
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub country: String,
    /// Pillar (id or name).
    #[schemars(transform = super::limits::cap_name)]
    #[schemars(description = "")]
    pub pillar: String,
    /// Items in each list, 1-5 (default 3, fewer within 10 KB).
    #[serde(default, deserialize_with = "arguments::whole_number")]
    #[schemars(range(min = 1, max = 5))]
    pub limit: Option<u32>,
}

/// The chain.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RecommendActionResult {
    /// ISO3.
    pub country: String,
    /// Pillar id.
    pub pillar: String,
    /// 1. The weakest or worsening indicators, weakest first.
    pub gaps: Vec<IndicatorGap>,
    /// 2. The best-fit projects.
    pub projects: Vec<ProjectFit>,
    /// 3. The instruments and flows that funded such work there.
    pub financing: Vec<FinancingItem>,
    /// 4. The institutions to approach, ranked, each with its ask.
    pub institutions: Vec<InstitutionAsk>,
    /// What is missing from the chain and why (no indicator, no project, no institution in the corpus).
    pub notes: Vec<String>,
    /// Datasets read.
    pub sources: Vec<SourceLink>,
}

/// An indicator of the pillar against the regional frontier.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct IndicatorGap {
    /// Metric id.
    pub indicator: String,
    /// Name in the requested language.
    pub name: String,
    /// Unit.
    pub unit: String,
    /// `up` or `down`: which way is better.
    pub good_direction: &'static str,
    /// The country's latest observed year.
    pub year: i32,
    /// The country's value that year.
    pub value: f64,
    /// The best of the 33 sovereign LAC countries that year (`corpus::frontier`: never a territory or a
    /// value flagged suspect).
    pub frontier_country: String,
    /// Its value, the target: a gross ratio's capped at 100 (values above 100 % are not a goal).
    pub frontier_value: f64,
    /// The country's position that year, 1 = the frontier.
    pub rank: usize,
    /// Sovereign countries reporting that year (and the country itself, when it is a territory).
    pub of: usize,
    /// Word stems of its names in es/en/pt, to pair it with an institution or project that names them.
    #[serde(skip)]
    pub stems: Vec<String>,
    /// 10-year least-squares slope per year, when the series has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trend_slope: Option<f64>,
    /// Whether that trend runs against the good direction.
    pub worsening: bool,
    /// Citations of the country's and the frontier's values.
    pub citation_ids: [String; 2],
}

/// A project that addresses the pillar.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProjectFit {
    /// Slug for `get_pilot`.
    pub slug: String,
    /// Name.
    pub title: String,
    /// ISO3 (another country's when `elsewhere`).
    pub country: String,
    /// Status as published.
    pub status: String,
    /// Board approval date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_date: Option<String>,
    /// The World Bank's lending commitment (IBRD + IDA), current US$.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment_usd: Option<f64>,
    /// Its grant (World Bank or GEF), current US$; never part of the commitment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant_usd: Option<f64>,
    /// Whether it is in another country of the region (none in the country).
    pub elsewhere: bool,
    /// `budget_support` (a development policy operation: it finances the budget against policy reforms)
    /// or `emergency` (a crisis response): listed after the projects aimed at the gaps, never as their fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<&'static str>,
    /// The gaps' indicators whose names share a word stem with its title or sector labels.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<String>,
    /// The record's citation id.
    pub citation_id: String,
}

/// An instrument or a flow.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FinancingItem {
    /// `lending_instrument`, `trust_fund` or `crs_flow`.
    pub kind: String,
    /// World Bank, GEF or the CRS donor.
    pub financier: String,
    /// IPF, DPF, PforR; a GEF fund; a CRS flow type.
    pub instrument: String,
    /// CRS sector group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sector: Option<String>,
    /// The newest of the pillar's projects in the country that used it (all of them in its record).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub projects: Vec<String>,
    /// How many projects of the pillar in the country used it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projects_total: Option<usize>,
    /// The IBRD + IDA commitments of its approved projects summed, current US$ (nominal), as the record
    /// (`citation_id`) holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed_usd: Option<f64>,
    /// Their grants summed, current US$ (GEF: its grants).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant_usd: Option<f64>,
    /// CRS: disbursements summed over `years`, US$ million, constant prices (an upper bound).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_constant_usd_mn: Option<f64>,
    /// CRS: first and last year with disbursements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub years: Option<(i32, i32)>,
    /// The record's citation id (for an instrument, the country's instrument record).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation_id: Option<String>,
}

/// An institution and what to ask of it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct InstitutionAsk {
    /// Name as published.
    pub name: String,
    /// `implementing_agency`, `public_body`, `national_statistical_office`, `open_data_portal`.
    pub role: String,
    /// Projects of the pillar in the country it implements.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub projects: Vec<String>,
    /// The ask, written from the cited numbers and records above.
    pub ask: String,
    /// The record's citation id.
    pub citation_id: String,
}

fn handle(
    corpus: &Corpus,
    input: RecommendActionInput,
    lang: Lang,
) -> Result<ToolAnswer<'_, RecommendActionResult>, ToolError> {
    let pillar = arguments::pillar(corpus, &input.pillar)?;
    let country = arguments::optional_country(corpus, Some(&input.country))?
        .expect("a given country resolves or errs");
    let (iso3, pillar_id) = (country.iso3.as_str(), pillar.id.as_str());
    let mut notes = Vec::new();

    let shown = input.limit.map_or(SHOWN, |limit| limit as usize);
    if !(1..=MAX_SHOWN).contains(&shown) {
        return Err(ToolError::Invalid(format!(
            "limit {shown}: give 1 to {MAX_SHOWN} items a list"
        )));
    }
    let (gaps, cells) = gaps(corpus, (iso3, pillar_id), lang, shown)?;
    if gaps.is_empty() {
        let observations = corpus.baked.observations();
        let has_data = corpus
            .baked
            .metrics()
            .iter()
            .filter(|metric| metric.pillar == pillar_id)
            .any(|metric| !observations.series(&metric.id, iso3).is_empty());
        notes.push(if has_data {
            format!(
                "No indicator of {pillar_id} that compares across countries has a value for {iso3} below the \
                 frontier or worsening; get_parameter_data lists the pillar's values."
            )
        } else {
            format!(
                "The corpus holds no value of any {pillar_id} indicator for {iso3}, so no gap can be measured; \
                 get_data_health shows what is missing."
            )
        });
    }

    let projects = corpus.projects().map_err(ToolError::Internal)?;
    let of_pillar = |project: &&Project| project.pillars.iter().any(|of| of == pillar_id);
    let here: Vec<&Project> = projects
        .iter()
        .filter(|project| project.country.as_deref() == Some(iso3))
        .filter(of_pillar)
        .collect();
    // The country's active and pipeline operations of the pillar: investment operations fit a sector's
    // gap; budget support and emergency operations finance the budget or a crisis, so they come after and
    // are named as such.
    let current: Vec<&Project> = here
        .iter()
        .copied()
        .filter(|project| matches!(project.status.as_str(), "Active" | "Pipeline"))
        .collect();
    let (mut fits, general): (Vec<&Project>, Vec<&Project>) = current
        .into_iter()
        .partition(|project| operation(project).is_none());
    let elsewhere = fits.is_empty();
    if elsewhere {
        fits = projects
            .iter()
            .filter(|project| project.country.is_some() && project.country.as_deref() != Some(iso3))
            // Comparable work in the sovereign countries (a territory is not a country's peer).
            .filter(|project| {
                project
                    .country
                    .as_deref()
                    .and_then(|code| corpus.baked.countries().get(code))
                    .is_some_and(|country| country.sovereign)
            })
            .filter(of_pillar)
            .filter(|project| matches!(project.status.as_str(), "Active" | "Closed"))
            .filter(|project| operation(project).is_none())
            .collect();
        notes.push(format!(
            "No active or pipeline investment project of {pillar_id} in {iso3} in the corpus: the projects shown are \
             comparable ones elsewhere in the region (those addressing the gaps' indicators first, then active)."
        ));
        if let Some(note) = projects::unclassified_note(projects, Some(iso3), pillar_id) {
            notes.push(note);
        }
    }
    // A project addresses a gap when its title or sector labels share a word stem with the gap
    // indicator's names (its objective's prose and its theme list pair too loosely: a highway project's
    // theme "non-communicable diseases" is no fit for communicable ones); those addressing most gaps first.
    let gaps_addressed = |project: &Project| -> Vec<String> {
        let words = stems(
            std::iter::once(project.title.as_str())
                .chain(project.sectors.iter().map(String::as_str)),
        );
        gaps.iter()
            .filter(|gap| gap.stems.iter().any(|stem| words.contains(stem)))
            .map(|gap| gap.indicator.clone())
            .collect()
    };
    // Each candidate's gaps found once, not at every comparison of the sort.
    let mut ranked: Vec<(&Project, Vec<String>)> = fits
        .into_iter()
        .map(|project| (project, gaps_addressed(project)))
        .collect();
    ranked.sort_by(|(left, left_gaps), (right, right_gaps)| {
        right_gaps
            .len()
            .cmp(&left_gaps.len())
            .then((left.status != "Active").cmp(&(right.status != "Active")))
            .then(right.approval_date.cmp(&left.approval_date))
            .then(left.id.cmp(&right.id))
    });
    ranked.truncate(shown);
    if ranked.iter().all(|(_, addressed)| addressed.is_empty())
        && !ranked.is_empty()
        && !gaps.is_empty()
    {
        notes.push(
            "None of the projects shown names a gap's indicator in its title or sectors: they \
             are the nearest of the pillar, not a fit to the gap."
                .to_string(),
        );
    }
    // The country's budget support and emergency operations of the pillar, after the fits, named.
    for project in general
        .iter()
        .take(shown.saturating_sub(ranked.len()).max(1))
    {
        notes.push(format!(
            "{} ({}) is a {} operation: it finances {}, not a project aimed at the gap.",
            project.id,
            project.title,
            operation(project).unwrap_or_default().replace('_', " "),
            match operation(project) {
                Some(EMERGENCY) => "a crisis response",
                _ => "the government's budget against policy reforms",
            }
        ));
        ranked.push((project, gaps_addressed(project)));
    }
    let (fits, addresses): (Vec<&Project>, Vec<Vec<String>>) = ranked.into_iter().unzip();

    let financing_table = corpus.financing().map_err(ToolError::Internal)?;
    let mut financing_records = Vec::new();
    let mut financing = instruments(
        (iso3, pillar_id),
        financing_table,
        &mut financing_records,
        shown,
    );
    let flows = projects::largest_crs_flows(financing_table, iso3, pillar_id, shown);
    for flow in flows {
        financing_records.push(flow.citation());
        financing.push(FinancingItem {
            kind: flow.kind.clone(),
            financier: flow.financier.clone(),
            instrument: flow.instrument.clone(),
            sector: flow.sector.clone(),
            projects: Vec::new(),
            projects_total: None,
            committed_usd: None,
            grant_usd: None,
            total_constant_usd_mn: flow
                .total_constant_usd_mn
                .map(|value| significant(value, 4)),
            years: flow.first_year.zip(flow.last_year),
            citation_id: Some(flow.citation_id.clone()),
        });
    }
    if financing.is_empty() {
        notes.push(format!(
            "The corpus records no instrument or OECD CRS climate-related flow of {pillar_id} in {iso3}."
        ));
    }

    let institutions = corpus.institutions().map_err(ToolError::Internal)?;
    let country_names: Vec<&str> = country.names.all().collect();
    let asks = institution_asks(
        (lang, iso3, pillar_id),
        &country_names,
        &institutions.records,
        &here,
        &fits,
        &gaps,
        (elsewhere, shown),
    );
    if asks.is_empty() {
        notes.push(format!(
            "The corpus names no institution of {iso3} acting on {pillar_id}."
        ));
    }

    let citations = answer::citation_records(corpus, cells.iter().map(String::as_str))?;
    let mut records: Vec<corpus::RecordCitation> =
        fits.iter().map(|project| project.citation()).collect();
    records.extend(financing_records);
    records.extend(
        asks.iter()
            .filter_map(|ask| institutions.get(&ask.citation_id))
            .map(Institution::citation),
    );
    let project_fits: Vec<ProjectFit> = fits
        .iter()
        .zip(addresses)
        .map(|(project, addresses)| ProjectFit {
            slug: project.id.to_ascii_lowercase(),
            title: project.title.clone(),
            country: project.country.clone().unwrap_or_default(),
            status: project.status.clone(),
            approval_date: project.approval_date.clone(),
            commitment_usd: project.commitment_usd,
            grant_usd: project.grant_usd,
            elsewhere: project.country.as_deref() != Some(iso3),
            operation: operation(project),
            addresses,
            citation_id: project.citation_id.clone(),
        })
        .collect();
    Ok(ToolAnswer {
        result: RecommendActionResult {
            country: iso3.to_string(),
            pillar: pillar_id.to_string(),
            gaps,
            projects: project_fits,
            financing,
            institutions: asks,
            notes,
            sources: vec![
                display::source_link(corpus, "observations", None),
                display::source_link(corpus, RecordDataset::Projects.id(), None),
                display::source_link(corpus, RecordDataset::Financing.id(), None),
                display::source_link(corpus, RecordDataset::Institutions.id(), None),
            ],
        },
        citations,
        display: None,
        records,
    })
}

/// The pillar's comparable indicators with a good direction, against the frontier, weakest first; and the
/// citation ids of their cells.
fn gaps(
    corpus: &Corpus,
    (iso3, pillar): (&str, &str),
    lang: Lang,
    shown: usize,
) -> Result<(Vec<IndicatorGap>, Vec<String>), ToolError> {
    let observations = corpus.baked.observations();
    let stats = corpus.series_stats().map_err(ToolError::Internal)?;
    let mut found = Vec::new();
    for metric in corpus
        .baked
        .metrics()
        .iter()
        .filter(|metric| metric.pillar == pillar)
    {
        super::cancel::checkpoint()?;
        let up = match metric.good_direction {
            GoodDirection::Up => true,
            GoodDirection::Down => false,
            _ => continue,
        };
        // Only intensive quantities (rates, shares, per-person values) have a frontier: an additive count or
        // amount (forest area, femicides, emissions) measures the country's size, not its standing.
        let intensive = corpus
            .metric_rule(&metric.id)
            .map_err(ToolError::Internal)?
            .is_some_and(|rule| {
                rule.comparable && rule.aggregation != corpus::analytics::Aggregation::Sum
            });
        if !intensive {
            continue;
        }
        let range = observations.series(&metric.id, iso3);
        let Some(own) = range
            .rev()
            .map(|row| observations.row(row))
            .find(|row| !is_projection(row.flags))
        else {
            continue;
        };
        // The frontier and the rank among the sovereign countries' observed values (`corpus::frontier`:
        // no territory, no suspect value, a gross ratio ordered as capped at 100), with the country
        // itself counted when it is a territory.
        let observed: Vec<_> = observations
            .cross_section(&metric.id, own.year)
            .into_iter()
            .filter(|row| !is_projection(row.flags))
            .collect();
        let candidates: Vec<frontier::Candidate<'_>> =
            observed.iter().map(frontier::Candidate::from).collect();
        let cap = frontier::target_cap(metric);
        let section: Vec<_> = frontier::ranked(
            corpus.baked.countries(),
            metric.good_direction,
            cap,
            &candidates,
            false,
        )
        .into_iter()
        .map(|idx| observed[idx])
        .collect();
        if section.len() < corpus::derived::MIN_YEAR_COUNTRIES {
            continue;
        }
        let Some(frontier) = section.first() else {
            continue;
        };
        // Competition ranking: 1 + the countries strictly better, so ties share a rank.
        let capped = |value: f64| cap.map_or(value, |cap| value.min(cap));
        let better = |row: &corpus::Observation| {
            if up {
                capped(row.value) > capped(own.value)
            } else {
                capped(row.value) < capped(own.value)
            }
        };
        let rank = section
            .iter()
            .filter(|row| row.country != own.country && better(row))
            .count();
        let of = section.len() + usize::from(!section.iter().any(|row| row.country == own.country));
        let trend_slope = stats
            .binary_search_by(|row| {
                (row.indicator.as_str(), row.country.as_str()).cmp(&(metric.id.as_str(), iso3))
            })
            .ok()
            .and_then(|at| stats[at].trend_slope);
        let worsening = projects::is_worsening(metric.good_direction, trend_slope, own.value);
        if rank == 0 && !worsening {
            continue;
        }
        found.push(IndicatorGap {
            indicator: metric.id.clone(),
            name: metric.names.get(lang).to_string(),
            stems: stems(metric.names.all()),
            unit: metric.unit.clone(),
            good_direction: if up { "up" } else { "down" },
            year: own.year,
            value: own.value,
            frontier_country: frontier.country.to_string(),
            frontier_value: capped(frontier.value),
            rank: rank + 1,
            of,
            trend_slope: trend_slope.map(|slope| significant(slope, 4)),
            worsening,
            citation_ids: [
                own.citation_id.to_string(),
                frontier.citation_id.to_string(),
            ],
        });
    }
    // Worsening first, then the weakest position (rank among those reporting), then a headline first.
    let headline = |id: &str| {
        corpus
            .baked
            .metric(id)
            .is_some_and(|metric: &Metric| metric.headline)
    };
    found.sort_by(|left, right| {
        right
            .worsening
            .cmp(&left.worsening)
            .then(
                (right.rank as f64 / right.of as f64)
                    .total_cmp(&(left.rank as f64 / left.of as f64)),
            )
            .then(headline(&right.indicator).cmp(&headline(&left.indicator)))
            .then(left.indicator.cmp(&right.indicator))
    });
    found.truncate(shown);
    let cells = found
        .iter()
        .flat_map(|gap| gap.citation_ids.iter().cloned())
        .collect();
    Ok((found, cells))
}

/// The instruments that funded the pillar's projects in the country (the `financing` records of that
/// country and pillar), most projects first, each with its record.
fn instruments(
    (iso3, pillar): (&str, &str),
    table: &crate::load::records::RecordTable<corpus::FinancingRecord>,
    records: &mut Vec<corpus::RecordCitation>,
    shown: usize,
) -> Vec<FinancingItem> {
    let mut found: Vec<&corpus::FinancingRecord> = table
        .records
        .iter()
        .filter(|record| {
            matches!(record.kind.as_str(), "lending_instrument" | "trust_fund")
                && record.country == iso3
                && record.pillars.iter().any(|of| of == pillar)
        })
        .collect();
    found.sort_by(|left, right| {
        right
            .projects
            .len()
            .cmp(&left.projects.len())
            .then(left.citation_id.cmp(&right.citation_id))
    });
    found.truncate(shown);
    found
        .into_iter()
        .map(|record| {
            records.push(record.citation());
            FinancingItem {
                kind: record.kind.clone(),
                financier: record.financier.clone(),
                instrument: record.instrument.clone(),
                sector: None,
                projects_total: Some(record.projects.len()),
                projects: record
                    .projects
                    .iter()
                    .take(LISTED_PROJECTS)
                    .cloned()
                    .collect(),
                committed_usd: record.committed_usd,
                grant_usd: record.grant_usd,
                total_constant_usd_mn: None,
                years: record.first_year.zip(record.last_year),
                citation_id: Some(record.citation_id.clone()),
            }
        })
        .collect()
}

/// A budget support operation (World Bank development policy financing).
const BUDGET_SUPPORT: &str = "budget_support";
/// A crisis response operation.
const EMERGENCY: &str = "emergency";

/// What kind of general operation `project` is, when it is not an investment in a sector: a
/// development policy operation (instrument family DPF, or a structural or sector adjustment loan) is
/// budget support; an emergency recovery loan is a crisis response.
fn operation(project: &Project) -> Option<&'static str> {
    let instrument = project.lending_instrument.as_deref().unwrap_or_default();
    if instrument.contains("Emergency") {
        Some(EMERGENCY)
    } else if project.instrument_family.as_deref() == Some("DPF")
        || instrument.contains("Development Policy")
        || instrument.contains("Adjustment")
        || instrument.contains("Poverty Reduction Support")
    {
        Some(BUDGET_SUPPORT)
    } else {
        None
    }
}

/// The stems of the words of `texts` that carry meaning: folded (case and accents aside), at least 4
/// letters, cut to 6, so cognates meet (`electricity`, `electricidad`: `electr`) and prefixes alone do not
/// (`transport`, `transmisibles`).
fn stems<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut stems: Vec<String> = texts
        .into_iter()
        .flat_map(|text| {
            corpus::folding::fold(text)
                .split(' ')
                .filter(|word| word.len() >= 4 && !STEM_STOP_WORDS.contains(word))
                .map(|word| word.chars().take(6).collect::<String>())
                .collect::<Vec<_>>()
        })
        .collect();
    stems.sort();
    stems.dedup();
    stems
}

/// Words of names and titles that pair nothing: the kind of body or project, not what it works on
/// (`ministry`, `development`, `public`, `improvement`).
const STEM_STOP_WORDS: [&str; 48] = [
    "national",
    "nacional",
    "ministry",
    "ministerio",
    "secretaria",
    "secretariat",
    "project",
    "proyecto",
    "projeto",
    "program",
    "programa",
    "programme",
    "total",
    "rate",
    "tasa",
    "taxa",
    "population",
    "poblacion",
    "populacao",
    "with",
    "from",
    "para",
    "public",
    "publico",
    "publica",
    "development",
    "desarrollo",
    "desenvolvimento",
    "sector",
    "sectoral",
    "services",
    "servicios",
    "servicos",
    "management",
    "gestion",
    "gestao",
    "improvement",
    "improving",
    "support",
    "strengthening",
    "fortalecimiento",
    "fortalecimento",
    "investment",
    "inversion",
    "investimento",
    "general",
    "institute",
    "instituto",
];

/// The first gap as a sentence in `lang`: the value, its rank and the regional frontier (or that the
/// country is the frontier), and whether it is worsening.
fn gap_sentence(lang: Lang, gap: &IndicatorGap, iso3: &str) -> String {
    // in, is, rank, of, "vs the frontier", "the frontier", and worsening, but worsening.
    let [
        inside,
        is,
        rank_word,
        of_word,
        versus,
        frontier_itself,
        and_worse,
        but_worse,
    ] = match lang {
        Lang::En => [
            "in",
            "is",
            "rank",
            "of",
            "vs the regional frontier",
            "the regional frontier",
            " and worsening",
            ", but worsening",
        ],
        Lang::Es => [
            "en",
            "es",
            "puesto",
            "de",
            "frente a la frontera regional",
            "la frontera regional",
            " y empeora",
            ", pero empeora",
        ],
        Lang::Pt => [
            "em",
            "é",
            "posição",
            "de",
            "ante a fronteira regional",
            "a fronteira regional",
            " e piora",
            ", mas piora",
        ],
    };
    let best = gap.frontier_country == iso3;
    let frontier = if best {
        frontier_itself.to_string()
    } else {
        format!(
            "{versus} {} ({})",
            significant(gap.frontier_value, 4),
            gap.frontier_country
        )
    };
    let worsening = match (gap.worsening, best) {
        (false, _) => "",
        (true, true) => but_worse,
        (true, false) => and_worse,
    };
    format!(
        "{} {inside} {iso3} {is} {} {} ({}), {rank_word} {} {of_word} {}, {frontier}{worsening}",
        gap.name,
        significant(gap.value, 4),
        gap.unit,
        gap.year,
        gap.rank,
        gap.of
    )
}

/// What a body can do about a gap, by what it is: the ministry of finance (or economy and finance) holds
/// the budget and borrows; an implementer runs a project; another public body of the pillar sets its
/// sector's targets; the statistics office measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    /// A ministry or directorate of finance, the treasury or the tax administration.
    Finance,
    /// The implementer of a project of the pillar in the country.
    Implementer,
    /// A public body acting on the pillar.
    PublicBody,
    /// The national statistics office.
    Statistics,
}

impl BodyKind {
    /// The kind of a body of `tier` (0 an implementer, 1 a public body of the pillar, 2 the statistics
    /// office) whose name's words (a [`corpus::BodyKey`]'s) are `words`.
    fn of(tier: u8, words: &str) -> BodyKind {
        let finance = words
            .split(' ')
            .any(|word| matches!(word, "finance" | "treasury" | "tributaria" | "tax"));
        match tier {
            2 => BodyKind::Statistics,
            _ if finance => BodyKind::Finance,
            0 => BodyKind::Implementer,
            _ => BodyKind::PublicBody,
        }
    }
}

/// A body's ask in `lang`: the gap sentence (its numbers), the project it would act on, and what a body of
/// its `kind` can do about it; `iso3` and `pillar` when there is no gap to name.
fn ask(
    lang: Lang,
    kind: BodyKind,
    gap: Option<&str>,
    project: Option<&str>,
    (iso3, pillar): (&str, &str),
) -> String {
    use BodyKind::{Finance, Implementer, PublicBody, Statistics};
    match (lang, kind, gap, project) {
        (Lang::En, Statistics, Some(gap), _) => format!(
            "{gap}: publish newer and more complete figures for the pillar, so progress can be measured."
        ),
        (Lang::Es, Statistics, Some(gap), _) => format!(
            "{gap}: publique cifras más recientes y completas del pilar, para poder medir el avance."
        ),
        (Lang::Pt, Statistics, Some(gap), _) => format!(
            "{gap}: publique números mais recentes e completos do pilar, para que o avanço possa ser medido."
        ),
        (Lang::En, Statistics, None, _) => format!(
            "Publish the pillar's indicators for {iso3}: the corpus holds too little to compare it."
        ),
        (Lang::Es, Statistics, None, _) => format!(
            "Publique los indicadores del pilar para {iso3}: el corpus tiene demasiado poco para compararlo."
        ),
        (Lang::Pt, Statistics, None, _) => format!(
            "Publique os indicadores do pilar para {iso3}: o corpus tem pouco demais para compará-lo."
        ),
        (Lang::En, Finance, Some(gap), Some(project)) => format!(
            "{gap}; as the finance body behind {project}: fund in the budget the programmes that move that \
             indicator, and tie the next operation's results to it."
        ),
        (Lang::Es, Finance, Some(gap), Some(project)) => format!(
            "{gap}; como órgano de finanzas detrás de {project}: financie en el presupuesto los programas que \
             mueven ese indicador y ate a él los resultados de la próxima operación."
        ),
        (Lang::Pt, Finance, Some(gap), Some(project)) => format!(
            "{gap}; como órgão de finanças por trás de {project}: financie no orçamento os programas que movem \
             esse indicador e vincule a ele os resultados da próxima operação."
        ),
        (Lang::En, Finance, Some(gap), None) => format!(
            "{gap}: fund in the budget the programmes that move that indicator, and seek financing tied to it."
        ),
        (Lang::Es, Finance, Some(gap), None) => format!(
            "{gap}: financie en el presupuesto los programas que mueven ese indicador y busque financiamiento \
             atado a él."
        ),
        (Lang::Pt, Finance, Some(gap), None) => format!(
            "{gap}: financie no orçamento os programas que movem esse indicador e busque financiamento \
             vinculado a ele."
        ),
        (Lang::En, Implementer, Some(gap), Some(project)) => format!(
            "{gap}; as implementer of {project}: make that indicator one of the project's results and report \
             it each year."
        ),
        (Lang::Es, Implementer, Some(gap), Some(project)) => format!(
            "{gap}; como ejecutor de {project}: haga de ese indicador un resultado del proyecto e infórmelo \
             cada año."
        ),
        (Lang::Pt, Implementer, Some(gap), Some(project)) => format!(
            "{gap}; como executor de {project}: faça desse indicador um resultado do projeto e informe-o a \
             cada ano."
        ),
        (Lang::En, Implementer | Finance, None, Some(project)) => format!(
            "As implementer of {project}, which addresses the pillar (no gap's indicator names its work): \
             state its results in the pillar's indicators."
        ),
        (Lang::Es, Implementer | Finance, None, Some(project)) => format!(
            "Como ejecutor de {project}, que actúa sobre el pilar (ningún indicador de las brechas nombra su \
             labor): informe sus resultados en los indicadores del pilar."
        ),
        (Lang::Pt, Implementer | Finance, None, Some(project)) => format!(
            "Como executor de {project}, que atua sobre o pilar (nenhum indicador das lacunas nomeia seu \
             trabalho): informe seus resultados nos indicadores do pilar."
        ),
        (Lang::En, PublicBody, None, Some(project)) => format!(
            "{project} addresses the pillar, though no gap's indicator names this body's work: set targets for \
             the pillar's indicators in the sector plan and take part in it or in a like one."
        ),
        (Lang::Es, PublicBody, None, Some(project)) => format!(
            "{project} actúa sobre el pilar, aunque ningún indicador de las brechas nombra la labor de este \
             organismo: fije metas para los indicadores del pilar en el plan sectorial y participe en él o en \
             uno similar."
        ),
        (Lang::Pt, PublicBody, None, Some(project)) => format!(
            "{project} atua sobre o pilar, embora nenhum indicador das lacunas nomeie o trabalho deste órgão: \
             fixe metas para os indicadores do pilar no plano setorial e participe dele ou de um semelhante."
        ),
        (Lang::En, PublicBody, Some(gap), Some(project)) => format!(
            "{gap}; as a public body of the sector: set a target for that indicator in the sector plan, and \
             take part in {project} or a like one."
        ),
        (Lang::Es, PublicBody, Some(gap), Some(project)) => format!(
            "{gap}; como organismo público del sector: fije una meta para ese indicador en el plan sectorial y \
             participe en {project} o en uno similar."
        ),
        (Lang::Pt, PublicBody, Some(gap), Some(project)) => format!(
            "{gap}; como órgão público do setor: fixe uma meta para esse indicador no plano setorial e \
             participe de {project} ou de um semelhante."
        ),
        (Lang::En, _, Some(gap), None) => format!(
            "{gap}: no project of the pillar is active there; set a target for it in the sector plan and \
             propose one."
        ),
        (Lang::Es, _, Some(gap), None) => format!(
            "{gap}: no hay ningún proyecto activo del pilar allí; fije una meta en el plan sectorial y \
             proponga uno."
        ),
        (Lang::Pt, _, Some(gap), None) => format!(
            "{gap}: não há nenhum projeto ativo do pilar ali; fixe uma meta no plano setorial e proponha um."
        ),
        (Lang::En, _, None, _) => format!(
            "Act on {pillar} in {iso3}, where the corpus finds no comparable indicator gap."
        ),
        (Lang::Es, _, None, _) => format!(
            "Actúe sobre {pillar} en {iso3}, donde el corpus no encuentra una brecha comparable de indicadores."
        ),
        (Lang::Pt, _, None, _) => format!(
            "Atue sobre {pillar} em {iso3}, onde o corpus não encontra uma lacuna comparável de indicadores."
        ),
    }
}

/// The institutions to approach, ranked, each with its ask: one entry per body (a public body that is an
/// implementer already listed under another spelling is not listed again, [`corpus::BodyKey`]), each
/// asked about the gap its names share most words with, a gap no earlier body was asked about first.
/// `(lang, iso3, pillar)` is what was asked; `country_names` the country's names (left out of the keys).
#[allow(clippy::too_many_arguments)]
fn institution_asks(
    (lang, iso3, pillar): (Lang, &str, &str),
    country_names: &[&str],
    institutions: &[Institution],
    here: &[&Project],
    fits: &[&Project],
    gaps: &[IndicatorGap],
    (elsewhere, shown): (bool, usize),
) -> Vec<InstitutionAsk> {
    let here_codes: Vec<&str> = here.iter().map(|project| project.id.as_str()).collect();
    let mut ranked: Vec<(u8, usize, &Institution, Vec<String>)> = institutions
        .iter()
        .filter(|institution| institution.country == iso3)
        .filter_map(|institution| {
            let of_pillar: Vec<String> = institution
                .projects
                .iter()
                .filter(|code| here_codes.contains(&code.as_str()))
                .cloned()
                .collect();
            let tier = match institution.role.as_str() {
                "implementing_agency" if !of_pillar.is_empty() => 0,
                "public_body" if institution.pillars.iter().any(|of| of == pillar) => 1,
                "national_statistical_office" => 2,
                _ => return None,
            };
            Some((tier, of_pillar.len(), institution, of_pillar))
        })
        .collect();
    ranked.sort_by(|left, right| {
        left.0
            .cmp(&right.0)
            .then(right.1.cmp(&left.1))
            .then(right.2.active_projects.cmp(&left.2.active_projects))
            .then(left.2.name.cmp(&right.2.name))
    });
    // One statistics office at most: it comes last, for the measurement.
    let mut asks = Vec::new();
    let mut offices = 0;
    let mut listed: Vec<corpus::BodyKey> = Vec::new();
    let mut asked_gaps: Vec<usize> = Vec::new();
    for (tier, _, institution, projects) in ranked {
        // `shown` bodies to approach, then the statistics office, which measures the gaps, always.
        if tier != 2 && asks.len() >= shown {
            continue;
        }
        let key = corpus::BodyKey::of(&institution.name, country_names);
        if listed.iter().any(|other| other.same_body(&key)) {
            continue;
        }
        if tier == 2 {
            offices += 1;
            if offices > 1 {
                continue;
            }
        }
        let project = projects
            .first()
            .and_then(|code| here.iter().find(|project| &project.id == code))
            .or_else(|| fits.first().filter(|_| !elsewhere));
        let addressed = project.map(|project| format!("{} ({})", project.id, project.title));
        // The gap this body's names (an implementer's: and its project's title and sectors) name, by the
        // stem of a word in both; else the first, the pillar's weakest.
        let implemented = project.filter(|_| tier == 0);
        let own = stems(
            [institution.name.as_str()]
                .into_iter()
                .chain(institution.name_es.as_deref())
                .chain(institution.name_pt.as_deref())
                .chain(implemented.map(|project| project.title.as_str()))
                .chain(
                    implemented
                        .into_iter()
                        .flat_map(|project| project.sectors.iter().map(String::as_str)),
                ),
        );
        let kind = BodyKind::of(tier, &key.words);
        let shared =
            |gap: &IndicatorGap| gap.stems.iter().filter(|stem| own.contains(stem)).count();
        let chosen = gaps
            .iter()
            .enumerate()
            .max_by_key(|(index, gap)| {
                (
                    shared(gap),
                    !asked_gaps.contains(index),
                    std::cmp::Reverse(*index),
                )
            })
            // The finance body and the statistics office answer for every gap; an implementer or a sector
            // body only for one its names or its project's words name (none named: its project alone).
            .filter(|(_, gap)| {
                matches!(kind, BodyKind::Finance | BodyKind::Statistics) || shared(gap) > 0
            })
            .map(|(index, gap)| (index, gap_sentence(lang, gap, iso3)));
        let gap = chosen.map(|(index, sentence)| {
            asked_gaps.push(index);
            sentence
        });
        let ask = ask(
            lang,
            kind,
            gap.as_deref(),
            addressed.as_deref(),
            (iso3, pillar),
        );
        listed.push(key);
        asks.push(InstitutionAsk {
            name: institution.name.clone(),
            role: institution.role.clone(),
            projects,
            ask,
            citation_id: institution.citation_id.clone(),
        });
    }
    asks
}
