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
    /// The World Bank's total commitment, current US$: IBRD, IDA and grant, as the export sums them in
    /// `total_ibrd_ida_commitment_usd` (`None`: not reported). The grant is also in `grant_usd`: never add
    /// the two.
    pub commitment_usd: Option<f64>,
    /// Grant amount, current US$ (`None`: not reported); for a GEF project the GEF grant.
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
}

crate::cited_record!(Project, Projects, title);
