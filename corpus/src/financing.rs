//! The curated `financing` dataset (`financing.json`): the financing behind the LAC projects and flows.
//!
//! - `crs_flow`: OECD CRS climate-related disbursements (Rio markers significant or principal; an upper
//!   bound, the full disbursement counted) by donor × flow type × sector group per recipient, 1995-2023.
//! - `lending_instrument`: the World Bank instrument families (IPF, DPF, PforR) used in a country for a
//!   pillar, with the projects that used them (read from the `projects` dataset, which cites each).
//! - `trust_fund`: the GEF trust funds (GEF Trust Fund, SCCF, LDCF, CBIT, Nagoya Protocol fund) used in a
//!   country for a pillar, with their projects (only in a bake that admits the GEF's terms).

use serde::{Deserialize, Serialize};

/// One financier's instrument for one recipient (and, for a CRS flow, one sector group).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FinancingRecord {
    /// Citation id: `crsflow-` with recipient, donor, flow and sector
    /// (`crsflow-bol-germany-oda-grants-energy`),
    /// `wbinstrument-` with country, family and pillar (`wbinstrument-bol-ipf-energia`), `geffund-` with
    /// country, fund and pillar.
    pub citation_id: String,
    /// `crs_flow`, `lending_instrument` or `trust_fund`.
    pub kind: String,
    /// Who finances: the CRS donor (`Germany`, `Green Climate Fund`), `World Bank` or `GEF`.
    pub financier: String,
    /// The instrument: CRS flow type (`ODA Grants`, `ODA Loans`), World Bank family (`IPF`, `DPF`,
    /// `PforR`) or GEF fund (`Special Climate Change Fund`).
    pub instrument: String,
    /// ISO 3166-1 alpha-3 of the recipient.
    pub country: String,
    /// CRS sector group (`Energy`), for a CRS flow.
    pub sector: Option<String>,
    /// Pillar ids it finances, sorted: the sector group's pillar (reviewed mapping), or the pillars of the
    /// projects.
    pub pillars: Vec<String>,
    /// First and last year with a disbursement (CRS) or an approval (projects).
    pub first_year: Option<i32>,
    /// See `first_year`.
    pub last_year: Option<i32>,
    /// CRS: disbursements of the last year, US$ million at current prices.
    pub latest_usd_mn: Option<f64>,
    /// CRS: disbursements summed over every year, US$ million at constant prices (CRS base year), so years
    /// add up without inflation.
    pub total_constant_usd_mn: Option<f64>,
    /// CRS: the disbursements of each year the extract reports (zeros included), oldest first, so a window
    /// of years (`get_dataset` `from_year`/`to_year`) sums what it holds; empty for projects' instruments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub years: Vec<FlowYear>,
    /// Projects: the World Bank IBRD + IDA commitments of its approved (Active, Closed) projects summed,
    /// current US$ (nominal, over approval years); grants are in `grant_usd`, Pipeline projects in
    /// neither.
    pub committed_usd: Option<f64>,
    /// Projects: the grants of its approved projects summed (World Bank grants, GEF grants), current US$.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_usd: Option<f64>,
    /// Projects: the ids of its approved projects (P-codes, GEF ids), newest approval first; what the
    /// sums are over.
    pub projects: Vec<String>,
    /// Projects: those in the Pipeline (not yet approved), newest first; in no sum.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pipeline_projects: Vec<String>,
    /// A title: `Germany → Bolivia: ODA Grants, Energy (OECD CRS, climate-related)`.
    pub title: String,
    /// Source id of the catalog.
    pub source: String,
    /// Publisher.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub publisher: String,
    /// Licence id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub license: String,
    /// How the publisher asks to be credited.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub attribution: String,
    /// The publisher's page for the data.
    pub url: String,
    /// When the data were retrieved.
    pub retrieved_at: String,
}

/// One year of a CRS flow, as the extract reports it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FlowYear {
    /// The year of the disbursements.
    pub year: i32,
    /// Disbursed that year, US$ million at current prices.
    pub current_usd_mn: f64,
    /// Disbursed that year, US$ million at constant prices (CRS base year).
    pub constant_usd_mn: f64,
}

impl FinancingRecord {
    /// The years of `from..=to` (either end open when `None`) with a disbursement (a reported 0 is
    /// none), oldest first.
    pub fn disbursing_years(
        &self,
        from: Option<i32>,
        to: Option<i32>,
    ) -> impl Iterator<Item = &FlowYear> + '_ {
        self.years.iter().filter(move |flow| {
            (flow.current_usd_mn != 0.0 || flow.constant_usd_mn != 0.0)
                && from.is_none_or(|from| flow.year >= from)
                && to.is_none_or(|to| flow.year <= to)
        })
    }

    /// The disbursements of the years `from..=to` (either end open when `None`), US$ million
    /// `(current, constant)`; `None` when the record disbursed nothing in the window (a projects'
    /// instrument has no years).
    pub fn disbursed_in(&self, from: Option<i32>, to: Option<i32>) -> Option<(f64, f64)> {
        let mut years = self.disbursing_years(from, to).peekable();
        years.peek()?;
        Some(years.fold((0.0, 0.0), |(current, constant), flow| {
            (
                current + flow.current_usd_mn,
                constant + flow.constant_usd_mn,
            )
        }))
    }
}

crate::cited_record!(FinancingRecord, Financing, title);
