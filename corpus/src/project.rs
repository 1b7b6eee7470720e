//! The curated `projects` dataset (`projects.json`): one record per development project, read from the
//! publishers' project records (World Bank Projects & Operations; the GEF project database in a bake that
//! admits the GEF's terms), validated and mapped to pillars by the bake. A record is its own citation:
//! `citation_id` (`wbproj-p127837`, `gef-10450`) and `url` (the publisher's page).

use serde::{Deserialize, Serialize};

/// One project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Project {
    /// The publisher's id (`P127837`; `GEF-10450` for a GEF project).
    pub id: String,
    /// Source id of the catalog (`wb_projects`).
    pub source: String,
    /// Publisher (`The World Bank`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub publisher: String,
    /// Licence id of the record (`CC-BY-4.0`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub license: String,
    /// How the publisher asks to be credited.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub attribution: String,
    /// Project name as published.
    pub title: String,
    /// ISO 3166-1 alpha-3 of the one country it is in; `None` for a multi-country operation.
    pub country: Option<String>,
    /// The publisher's country or region label (`Plurinational State of Bolivia`, `Central America`).
    pub location: String,
    /// Status: `Active`, `Pipeline`, `Closed`, `Dropped` (the World Bank's, or a GEF stage mapped to them:
    /// Project Approved → Active, Completed → Closed, Concept Approved or Proposed and Received by the GEF
    /// Secretariat → Pipeline, Cancelled → Dropped).
    pub status: String,
    /// The publisher's own stage when it has one (World Bank: the last stage reached, `BANK APPROVED`;
    /// GEF: `Concept Approved`, with the replenishment period, `GEF - 7`).
    #[serde(default)]
    pub stage: Option<String>,
    /// Board approval date, `YYYY-MM-DD`, when published.
    pub approval_date: Option<String>,
    /// Closing date, `YYYY-MM-DD`, when published.
    pub closing_date: Option<String>,
    /// Total project cost, current US$ (`None`: not reported).
    pub cost_usd: Option<f64>,
    /// The World Bank's lending commitment, current US$: the IBRD loan plus the IDA credit (the exports'
    /// `ibrd_commitment_usd` + `ida_commitment_usd`; `None`: neither reported). Grants are never in it (the
    /// newer export's `total_ibrd_ida_commitment_usd` adds them; 610 pure-grant projects would otherwise
    /// count as loans): the money of a project is `commitment_usd` + `grant_usd`.
    pub commitment_usd: Option<f64>,
    /// Grant amount, current US$ (`None`: not reported): a World Bank (trust-fund) grant, or for a GEF
    /// project the GEF grant. Never part of `commitment_usd`.
    pub grant_usd: Option<f64>,
    /// Co-financing pledged by others, current US$ (GEF projects; `None`: not reported).
    #[serde(default)]
    pub cofinancing_usd: Option<f64>,
    /// Financing type (`IBRD`, `IDA`, `Grants`, `Other`), when published.
    pub financing_type: Option<String>,
    /// Lending instrument as published (`Investment Project Financing`).
    pub lending_instrument: Option<String>,
    /// Instrument family: `IPF`, `DPF` or `PforR` (`None`: unidentified).
    pub instrument_family: Option<String>,
    /// Implementing agency (free text; often several agencies), when published.
    pub implementing_agency: Option<String>,
    /// Borrower, when published.
    pub borrower: Option<String>,
    /// Environmental assessment category (`A`, `B`, `C`, `F`), when published.
    pub environmental_category: Option<String>,
    /// Environmental and social risk rating (`Low` … `High`), when published.
    pub environmental_risk: Option<String>,
    /// Sectors as published (from the export that has them).
    pub sectors: Vec<String>,
    /// Themes as published.
    pub themes: Vec<String>,
    /// Pillar ids the sectors and themes map to (reviewed mapping), sorted, unique; for a project the
    /// exports list without sector or theme, the pillars of the reviewed title words
    /// (`data/curated/wb_title_pillars.csv`; [`Project::pillar_basis`] says which).
    pub pillars: Vec<String>,
    /// What the pillars were read from: `sectors` (the sectors and themes, through the reviewed mapping),
    /// `title` (words of the title, the record having no sector or theme), `None` when nothing maps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pillar_basis: Option<String>,
    /// The main pillar: that of the first sector the mapping places (the export lists the main sector
    /// first), else of the first theme; `None` when nothing maps.
    #[serde(default)]
    pub main_pillar: Option<String>,
    /// Project development objective (the pitch), as published.
    pub objective: String,
    /// The publisher's page for the project.
    pub url: String,
    /// Citation id of the record (`wbproj-p127837`).
    pub citation_id: String,
    /// Which export the record was read from (`2025-03-31`), and for sectors and themes, the older one
    /// when only it has them.
    pub retrieved_at: String,
    /// Fields the newer export leaves blank (or 0, "not reported") that the older export of the same
    /// project reports, hence read from the older one (`commitment_usd`, `cost_usd`, `borrower`…);
    /// empty for most records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from_older_export: Vec<String>,
    /// What the publisher's own fields contradict, kept as published and flagged (ids of
    /// [`PROJECT_INCONSISTENCIES`]): `active_past_closing` (status Active, closing date before the
    /// export's date), `closes_before_approval`, `commitment_above_cost` (IBRD + IDA above the total
    /// cost); empty for most records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inconsistencies: Vec<String>,
}

/// The publisher inconsistencies a project record can be flagged with: id and definition.
pub const PROJECT_INCONSISTENCIES: [(&str, &str); 3] = [
    (
        "active_past_closing",
        "status Active, but the closing date is before the date of the export",
    ),
    (
        "closes_before_approval",
        "the closing date is before the board approval date",
    ),
    (
        "commitment_above_cost",
        "the IBRD + IDA commitment is above the total project cost",
    ),
];

impl Project {
    /// The World Bank's (or GEF's) money in the project, current US$: the commitment plus the grant;
    /// `None` when neither is reported.
    pub fn financed_usd(&self) -> Option<f64> {
        match (self.commitment_usd, self.grant_usd) {
            (None, None) => None,
            (commitment, grant) => Some(commitment.unwrap_or(0.0) + grant.unwrap_or(0.0)),
        }
    }

    /// Whether the project was approved (Active or Closed): only those count in totals; a Pipeline
    /// project is not yet approved, a Dropped one never was.
    pub fn is_approved(&self) -> bool {
        matches!(self.status.as_str(), "Active" | "Closed")
    }
}

crate::cited_record!(Project, Projects, title);
