//! The curated datasets on the real raw files: projects (World Bank exports merged), regulation (Climate
//! Change Laws of the World), institutions, financing (OECD CRS) and events (earthquakes, approvals, laws);
//! validated, mapped to pillars, and a steward's override file read the same way.

use corpus::{Event, FinancingRecord, Institution, Law, Project};

use crate::support::{project_catalog, real, real_sources};

fn read<T: serde::de::DeserializeOwned>(name: &'static str) -> Vec<T> {
    corpus::read_json(&real().corpus.dir().join(name), name).unwrap()
}

fn projects() -> Vec<Project> {
    corpus::read_json(
        &real().corpus.dir().join(corpus::layout::PROJECTS),
        "projects",
    )
    .unwrap()
}

fn project<'a>(projects: &'a [Project], id: &str) -> &'a Project {
    projects
        .iter()
        .find(|project| project.id == id)
        .unwrap_or_else(|| panic!("{id} is kept"))
}

#[test]
fn a_bolivian_energy_project_holds_the_raw_export_values() {
    let projects = projects();
    // wb_projects_lac_2025-03-31.csv, P127837: the newer export decides.
    let access = project(&projects, "P127837");
    assert_eq!(access.title, "Access and Renewable Energy Project");
    assert_eq!(access.country.as_deref(), Some("BOL"));
    assert_eq!(access.status, "Closed");
    assert_eq!(access.approval_date.as_deref(), Some("2014-05-27"));
    assert_eq!(access.commitment_usd, Some(50_000_000.0));
    assert_eq!(access.instrument_family.as_deref(), Some("IPF"));
    assert_eq!(access.citation_id, "wbproj-p127837");
    assert_eq!(
        access.url,
        "https://projects.worldbank.org/en/projects-operations/project-detail/P127837"
    );
    // The export's HTML entities are decoded.
    assert!(
        access.objective.contains("Bolivia’s unserved areas"),
        "{}",
        access.objective
    );
    assert_eq!(access.retrieved_at, "2025-03-31");

    // P102479: amounts from the newer export, sectors and themes from the older, mapped to pillars.
    let decentralized = project(&projects, "P102479");
    assert_eq!(
        decentralized.title,
        "Bolivia Decentralized Electricity for Universal Access"
    );
    // A pure grant: IBRD 0, IDA 0, grant 5,175,000; the export's total of 5,175,000 is the grant, not a loan.
    assert_eq!(decentralized.commitment_usd, None);
    assert_eq!(decentralized.grant_usd, Some(5_175_000.0));
    assert!(decentralized.inconsistencies.is_empty());
    assert_eq!(decentralized.sectors[..2], ["Power", "Renewable energy"]);
    assert_eq!(decentralized.themes[0], "Rural services and infrastructure");
    assert!(decentralized.pillars.contains(&"energia".to_string()));
    assert!(
        decentralized
            .pillars
            .contains(&"infraestructura".to_string())
    );
}

#[test]
fn multi_country_operations_stay_regional_and_older_only_projects_are_kept() {
    let projects = projects();
    let incubators = project(&projects, "P128038");
    assert_eq!(incubators.country, None);
    assert_eq!(incubators.location, "Caribbean");
    // Listed only in the older export (2024-08-29): kept, and said so.
    let reforestation = project(&projects, "P114888");
    assert_eq!(
        reforestation.title,
        "Credits for Reforestation in the Amazon Reserve"
    );
    assert_eq!(reforestation.retrieved_at, "2024-08-29");
    let report = &real().summary.report.curated[0];
    assert_eq!(report.from_older_export, 34);
    assert_eq!(report.kept as usize, projects.len());
    // 5,120 in the newer export plus the 34 only the older lists.
    assert_eq!(projects.len(), 5_154);
    assert!(report.unmapped.is_empty(), "{:?}", report.unmapped);
    // Ids are unique and sorted; every record is cited and linked.
    assert!(projects.windows(2).all(|pair| pair[0].id < pair[1].id));
    assert!(
        projects
            .iter()
            .all(|project| project.citation_id.starts_with("wbproj-p")
                && project.url.starts_with("https://projects.worldbank.org/"))
    );
}

#[test]
fn projects_are_catalogued_and_exported() {
    let corpus = &real().corpus;
    let datasets: Vec<corpus::Dataset> =
        corpus::read_json(&corpus.dir().join(corpus::layout::DATASETS), "datasets").unwrap();
    let projects = datasets
        .iter()
        .find(|dataset| dataset.dataset_id == "projects")
        .expect("projects is catalogued");
    assert_eq!(projects.rows, 5_154);
    assert!(
        corpus
            .dir()
            .join("exports/datasets/projects.parquet")
            .is_file()
    );
    assert!(
        corpus
            .dir()
            .join("exports/datasets/projects.csv.gz")
            .is_file()
    );
}

#[test]
fn laws_hold_the_cclw_export_values() {
    let laws: Vec<Law> = read(corpus::layout::REGULATION);
    assert_eq!(laws.len(), 366);
    // cclw_laws_policies_lac_2021-01-30.csv, line 8.
    let law = laws
        .iter()
        .find(|law| {
            law.title
                .starts_with("Law 26.190 Regime for the National Promotion")
        })
        .expect("Law 26.190 is kept");
    assert_eq!(law.country, "ARG");
    assert_eq!(law.kind, "legislative");
    assert_eq!(law.date.as_deref(), Some("2007-01-02"));
    assert_eq!(law.last_event_date.as_deref(), Some("2015-10-15"));
    assert_eq!(law.events.len(), 2);
    assert_eq!(law.events[1].label, "Amended by law 27191");
    assert_eq!(law.pillars, ["energia"]);
    assert_eq!(
        law.citation_id,
        "cclw-arg-law-26-190-regime-for-the-national-promotion"
    );
    let ids: std::collections::BTreeSet<&str> =
        laws.iter().map(|law| law.citation_id.as_str()).collect();
    assert_eq!(ids.len(), laws.len(), "citation ids are unique");
}

#[test]
fn earthquakes_become_dated_cited_events() {
    let events: Vec<Event> = read(corpus::layout::EVENTS);
    // ncei_significant_earthquakes_lac_to2023-06.csv: 2016-04-16, Ecuador, M7.8, 663 deaths, US$3,300 million.
    let ecuador = events
        .iter()
        .find(|event| event.citation_id == "ncei_eq-2016-04-16-ecu")
        .expect("the 2016 Ecuador earthquake is an event");
    assert_eq!(ecuador.kind, "earthquake");
    assert_eq!(ecuador.date, "2016-04-16");
    assert_eq!(ecuador.magnitude, Some(7.8));
    assert_eq!(ecuador.deaths, Some(663.0));
    assert_eq!(ecuador.damage_usd_mn, Some(3300.0));
    assert_eq!(ecuador.houses_destroyed, Some(6998.0));
    assert_eq!(
        ecuador.pillars,
        ["infraestructura", "medio_ambiente", "salud"]
    );
    assert!(ecuador.why.contains("663 deaths"), "{}", ecuador.why);
    // 2010-02-27: Chile's M8.8 and a M6.3 in Salta (Argentina) the same day are two events.
    let chile = events
        .iter()
        .find(|event| event.citation_id == "ncei_eq-2010-02-27-chl")
        .expect("Maule 2010");
    assert_eq!(chile.magnitude, Some(8.8));
    assert_eq!(chile.deaths, Some(558.0));
    assert!(
        events
            .iter()
            .any(|event| event.citation_id == "ncei_eq-2010-02-27-arg")
    );
    assert_eq!(
        events
            .iter()
            .filter(|event| event.kind == "earthquake")
            .count(),
        799
    );
    // Newest first, ids unique, every one linked.
    assert!(events.windows(2).all(|pair| pair[0].date >= pair[1].date));
    let ids: std::collections::BTreeSet<&str> = events
        .iter()
        .map(|event| event.citation_id.as_str())
        .collect();
    assert_eq!(ids.len(), events.len());
    assert!(events.iter().all(|event| event.url.starts_with("https://")));
}

#[test]
fn projects_and_laws_become_events_naming_their_record() {
    let events: Vec<Event> = read(corpus::layout::EVENTS);
    let approved = events
        .iter()
        .find(|event| event.citation_id == "event-wbproj-p127837-approved")
        .expect("P127837's approval is an event");
    assert_eq!(approved.date, "2014-05-27");
    assert_eq!(approved.countries, ["BOL"]);
    assert_eq!(approved.record_id.as_deref(), Some("wbproj-p127837"));
    assert_eq!(approved.amount_usd, Some(50_000_000.0));
    let passed = events
        .iter()
        .find(|event| {
            event.record_id.as_deref()
                == Some("cclw-arg-law-26-190-regime-for-the-national-promotion")
                && event.kind == "law_passed"
        })
        .expect("Law 26.190 passed is an event");
    assert_eq!(passed.date, "2007-01-02");
    // A release concerns the countries its source has observations of.
    let wdi = events
        .iter()
        .find(|event| event.kind == "data_release" && event.source == "wdi")
        .expect("the WDI release is an event");
    assert!(wdi.countries.contains(&"MEX".to_string()));
}

#[test]
fn crs_flows_sum_the_raw_rows_at_constant_prices() {
    let financing: Vec<FinancingRecord> = read(corpus::layout::FINANCING);
    let germany = financing
        .iter()
        .find(|record| record.citation_id == "crsflow-bol-germany-oda-grants-energy")
        .expect("Germany's ODA grants for energy in Bolivia");
    // oecd_crs_climate_related_disbursements_lac.csv: 2003 is 0 (not counted), 2008-2023 summed.
    let constant = [
        0.096246, 0.10843, 0.050355, 0.011638, 0.073099, 0.01355, 0.744962, 1.682539, 2.743474,
        2.411674, 2.340363, 3.502862, 2.39689, 2.416097,
    ];
    let total: f64 = constant.iter().sum();
    assert!((germany.total_constant_usd_mn.unwrap() - total).abs() < 1e-9);
    assert_eq!(
        (germany.first_year, germany.last_year),
        (Some(2008), Some(2023))
    );
    assert_eq!(germany.latest_usd_mn, Some(2.416097));
    assert_eq!(germany.pillars, ["energia"]);
    // The World Bank instruments Bolivia's energy projects used, with those projects (none dropped).
    let ipf = financing
        .iter()
        .find(|record| record.citation_id == "wbinstrument-bol-ipf-energia")
        .expect("IPF in Bolivia's energy projects");
    assert_eq!(ipf.pillars, ["energia"]);
    assert!(ipf.projects.contains(&"P102479".to_string()));
    let projects: Vec<Project> = read(corpus::layout::PROJECTS);
    let listed: Vec<&Project> = projects
        .iter()
        .filter(|project| ipf.projects.contains(&project.id))
        .collect();
    assert_eq!(listed.len(), ipf.projects.len());
    assert!(listed.iter().all(|project| project.is_approved()
        && project.country.as_deref() == Some("BOL")
        && project.pillars.contains(&"energia".to_string())));
    // Loans and grants summed apart, over approved projects only (the grant of P102479 is not a loan).
    let committed: f64 = listed
        .iter()
        .filter_map(|project| project.commitment_usd)
        .sum();
    let grants: f64 = listed.iter().filter_map(|project| project.grant_usd).sum();
    assert_eq!(ipf.committed_usd, Some(committed));
    assert_eq!(ipf.grant_usd, Some(grants));
    assert!(grants >= 5_175_000.0);
}

#[test]
fn institutions_are_bodies_with_roles_and_pillars() {
    let institutions: Vec<Institution> = read(corpus::layout::INSTITUTIONS);
    let indec = institutions
        .iter()
        .find(|body| body.citation_id == "nso-ar-nso-indec")
        .expect("INDEC");
    assert_eq!(indec.name, "National Institute of Statistics and Censuses");
    assert_eq!(indec.role, "national_statistical_office");
    assert_eq!(indec.website.as_deref(), Some("https://www.indec.gob.ar/"));
    assert_eq!(indec.url, "https://www.wikidata.org/wiki/Q1665219");
    assert_eq!(
        indec.pillars.len(),
        12,
        "a statistics office measures every pillar"
    );
    let environment = institutions
        .iter()
        .find(|body| body.name == "Ministry for the Environment (Chile)")
        .expect("Chile's environment ministry");
    assert_eq!(environment.pillars, ["medio_ambiente"]);
    assert!(
        environment
            .url
            .starts_with("https://www.govdirectory.org/chile/")
    );
    let health = institutions
        .iter()
        .find(|body| {
            body.role == "implementing_agency" && body.name == "National Ministry of Health"
        })
        .expect("Argentina's implementing agency");
    assert_eq!(health.country, "ARG");
    // Its other spelling in the table ("Ministry of Health", P133193 and P174913) is merged into it.
    assert_eq!(
        health.projects,
        ["P106735", "P163345", "P179595", "P133193", "P174913"]
    );
    assert_eq!(health.aliases, ["Ministry of Health"]);
    assert!(health.pillars.contains(&"salud".to_string()));
    // Institutions only: no field names a person.
    let report = &real().summary.report.curated;
    let registry = report
        .iter()
        .find(|report| report.source == "gov_nso_registry")
        .unwrap();
    assert_eq!(registry.refused.len(), 1, "{:?}", registry.refused);
    assert_eq!(registry.refused[0].field, "name_en");
    // The table's 730 (country, agency) rows are 661 bodies: 69 rows were another spelling of one.
    let agencies = report
        .iter()
        .find(|report| report.source == "wb_implementing_agencies")
        .unwrap();
    assert_eq!((agencies.kept, agencies.merged_spellings), (661, 69));
    // The publisher's contradictions, flagged and counted.
    let projects = report
        .iter()
        .find(|report| report.source == "wb_projects")
        .unwrap();
    let counted: Vec<(&str, u64)> = projects
        .inconsistencies
        .iter()
        .map(|(id, count)| (id.as_str(), *count))
        .collect();
    assert_eq!(
        counted,
        [
            ("active_past_closing", 14),
            ("closes_before_approval", 9),
            ("commitment_above_cost", 37)
        ]
    );
}

#[test]
fn a_stewards_override_file_replaces_and_adds_records_validated_the_same_way() {
    let header = "iso3,geography,title,type,document_types,first_event_date,first_event_year,last_event_date,events_parsed,frameworks,responses,instruments,sectors,keywords,natural_hazards,parent_legislation,description,documents_raw,events_raw";
    let (_scratch, catalog, settings) = catalog_with_override(
        "cclw_laws.csv",
        &format!(
            "{header}\n\
             ARG,Argentina,Law 27191 on Renewable Energy,legislative,Law,2015-10-16,2015,2015-10-16,2015-10-16 Law passed,,,,Energy,,,,Corrected date.,,\n\
             BOL,Bolivia,Ley 1 de prueba,executive,Decree,2020-01-01,2020,2020-01-01,2020-01-01 Approved,,,,Energy,,,,A steward's record.,,\n\
             XXX,Nowhere,Ley 2,executive,Decree,2020-01-01,2020,,,,,,Energy,,,,,,\n\
             BOL,Bolivia,Ley 3,judicial,Decree,2020-13-01,2020,,,,,,Energy,,,,,,\n"
        ),
    );
    let source = pipeline::sources::curated::RecordSource::load(
        &catalog,
        "curated/cclw_laws.toml",
        &settings,
    )
    .unwrap()
    .unwrap();
    let registry = baked_registry();
    let (laws, report) = pipeline::govern::records::regulation::laws(
        &source,
        &catalog,
        &real_sources(),
        &settings.pillar_id_list(),
        &registry,
    )
    .unwrap();
    assert_eq!(laws.len(), 367, "one replaced, one added");
    assert_eq!(report.overrides, 2);
    let corrected = laws
        .iter()
        .find(|law| law.title == "Law 27191 on Renewable Energy")
        .unwrap();
    assert_eq!(corrected.date.as_deref(), Some("2015-10-16"));
    let refused: Vec<(&str, u64, &str)> = report
        .refused
        .iter()
        .map(|refusal| (refusal.file.as_str(), refusal.line, refusal.field.as_str()))
        .collect();
    assert_eq!(
        refused,
        [
            ("curated/overrides/cclw_laws.csv", 4, "iso3"),
            ("curated/overrides/cclw_laws.csv", 5, "type"),
        ]
    );
    assert!(
        report.refused[1]
            .reason
            .contains("valid: legislative, executive")
    );
}

#[test]
fn a_stewards_project_rows_replace_and_add_projects_with_countries_by_name() {
    // The newer export's own header; a row of P127837 with a corrected cost, a new project whose country is
    // written as a name, and one with a bad P-code.
    let newer = real_sources().join("wb_projects/wb_projects_lac_2025-03-31.csv");
    let header = std::fs::read_to_string(&newer)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let columns: Vec<&str> = header.split(',').collect();
    let row = |cells: &[(&str, &str)]| {
        columns
            .iter()
            .map(|column| {
                cells
                    .iter()
                    .find(|(name, _)| name == column)
                    .map_or("", |(_, value)| value)
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let rows = [
        row(&[
            ("project_id", "P127837"),
            ("iso3", "BOL"),
            ("status", "Closed"),
            ("project_name", "Access and Renewable Energy Project"),
            ("board_approval_date", "2014-05-27"),
            ("project_cost_usd", "60000000"),
            ("total_ibrd_ida_commitment_usd", "50000000"),
        ]),
        row(&[
            ("project_id", "P999991"),
            ("iso3", "Bolivia"),
            ("status", "Pipeline"),
            ("project_name", "Rural Water Supply Pilot"),
            ("board_approval_date", "2021-02-31"),
        ]),
        row(&[
            ("project_id", "X1"),
            ("status", "Active"),
            ("project_name", "Not a project"),
        ]),
    ];
    let (_scratch, catalog, settings) = catalog_with_override(
        "wb_projects.csv",
        &format!("{header}\n{}\n", rows.join("\n")),
    );
    let source = pipeline::sources::curated::ProjectsSource::load(&catalog, &settings)
        .unwrap()
        .unwrap();
    let registry = baked_registry();
    let (projects, report) = pipeline::govern::records::projects::projects(
        &source,
        &catalog,
        &real_sources(),
        &settings.pillar_id_list(),
        &registry,
    )
    .unwrap();
    assert_eq!(report.overrides, 2);
    assert_eq!(projects.len(), 5155, "one replaced, one added");
    let corrected = projects
        .iter()
        .find(|project| project.id == "P127837")
        .unwrap();
    assert_eq!(corrected.cost_usd, Some(60_000_000.0));
    assert_eq!(corrected.pillars, ["energia"], "its title's words");
    let added = projects
        .iter()
        .find(|project| project.id == "P999991")
        .unwrap();
    assert_eq!(
        added.country.as_deref(),
        Some("BOL"),
        "a country by name, through the normaliser"
    );
    assert_eq!(added.approval_date, None, "2021-02-31 is no date");
    assert_eq!(added.pillars, ["infraestructura"]);
    let refused: Vec<(u64, &str)> = report
        .refused
        .iter()
        .filter(|refusal| refusal.file == "curated/overrides/wb_projects.csv")
        .map(|refusal| (refusal.line, refusal.field.as_str()))
        .collect();
    assert_eq!(refused, [(3, "board_approval_date"), (4, "project_id")]);
}

/// A scratch copy of the project's catalog with `text` as the steward's override file `name`
/// (`curated/overrides/{name}`), and its settings; the directory lives as long as the first value.
fn catalog_with_override(
    name: &str,
    text: &str,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    pipeline::sources::settings::CorpusSettings,
) {
    let scratch = tempfile::tempdir().unwrap();
    let catalog = scratch.path().join("data");
    copy_dir(&project_catalog(), &catalog);
    let overrides = catalog.join("curated/overrides");
    std::fs::create_dir_all(&overrides).unwrap();
    std::fs::write(overrides.join(name), text).unwrap();
    let settings =
        pipeline::sources::settings::CorpusSettings::load(&catalog.join("corpus.toml")).unwrap();
    (scratch, catalog, settings)
}

/// The country registry of the real bake.
fn baked_registry() -> corpus::CountryRegistry {
    let countries: Vec<corpus::Country> = corpus::read_json(
        &real().corpus.dir().join(corpus::layout::COUNTRIES),
        "countries",
    )
    .unwrap();
    corpus::CountryRegistry::new(countries)
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn gef_projects_are_read_but_stay_out_of_the_default_corpus() {
    // No open licence (GEF-terms is not redistributable): the default bake holds no GEF record.
    let projects: Vec<Project> = read(corpus::layout::PROJECTS);
    assert!(
        projects
            .iter()
            .all(|project| project.source == "wb_projects")
    );
    // Read directly, as a private bake (include_restricted_licenses = true) would.
    let catalog = project_catalog();
    let settings =
        pipeline::sources::settings::CorpusSettings::load(&catalog.join("corpus.toml")).unwrap();
    assert!(!settings.admits_license("GEF-terms"));
    let source = pipeline::sources::curated::RecordSource::load(
        &catalog,
        "curated/gef_projects.toml",
        &settings,
    )
    .unwrap()
    .unwrap();
    let countries: Vec<corpus::Country> = corpus::read_json(
        &real().corpus.dir().join(corpus::layout::COUNTRIES),
        "countries",
    )
    .unwrap();
    let (gef, report) = pipeline::govern::records::gef::projects(
        &source,
        &catalog,
        &real_sources(),
        &settings.pillar_id_list(),
        &corpus::CountryRegistry::new(countries),
    )
    .unwrap();
    // 1,117 rows; three have no status (lines 594, 596, 782) and are refused, naming the field.
    assert_eq!(gef.len(), 1_114, "{:?}", report.refused);
    let refused: Vec<(u64, &str)> = report
        .refused
        .iter()
        .map(|refusal| (refusal.line, refusal.field.as_str()))
        .collect();
    assert_eq!(refused, [(594, "status"), (596, "status"), (782, "status")]);
    assert!(report.unmapped.is_empty(), "{:?}", report.unmapped);
    // gef_projects_lac_2020-03-08.csv, line 2.
    let nicaragua = gef
        .iter()
        .find(|project| project.id == "GEF-10450")
        .unwrap();
    assert_eq!(nicaragua.country.as_deref(), Some("NIC"));
    assert_eq!(nicaragua.status, "Active");
    assert_eq!(
        nicaragua.stage.as_deref(),
        Some("Project Approved (GEF - 7)")
    );
    assert_eq!(nicaragua.grant_usd, Some(852_000.0));
    assert_eq!(nicaragua.cofinancing_usd, Some(443_400.0));
    assert_eq!(nicaragua.cost_usd, Some(1_295_400.0));
    assert_eq!(nicaragua.financing_type.as_deref(), Some("GEF Trust Fund"));
    assert_eq!(nicaragua.citation_id, "gef-10450");
    assert_eq!(
        nicaragua.url,
        "https://www.thegef.org/projects-operations/projects/10450"
    );
    assert_eq!(nicaragua.pillars, ["medio_ambiente"]);
    // A project naming several countries stays regional.
    assert!(
        gef.iter()
            .any(|project| project.country.is_none() && project.location.contains(','))
    );
}

#[test]
fn every_curated_record_has_a_unique_citation_id() {
    fn unique<T: corpus::CitedRecord>(name: &str, records: &[T]) {
        let mut ids: Vec<&str> = records.iter().map(|record| record.citation_id()).collect();
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), before, "{name}: repeated citation ids");
        // Every id fits the tools' argument cap (resolve_citations, get_dataset).
        let longest = ids.iter().map(|id| id.len()).max().unwrap_or(0);
        assert!(longest <= 128, "{name}: an id of {longest} characters");
    }
    unique::<Project>("projects", &read(corpus::layout::PROJECTS));
    unique::<Law>("regulation", &read(corpus::layout::REGULATION));
    unique::<Institution>("institutions", &read(corpus::layout::INSTITUTIONS));
    unique::<FinancingRecord>("financing", &read(corpus::layout::FINANCING));
    unique::<Event>("events", &read(corpus::layout::EVENTS));
}

#[test]
fn only_approved_projects_have_approval_events() {
    let projects: Vec<Project> = read(corpus::layout::PROJECTS);
    let events: Vec<Event> = read(corpus::layout::EVENTS);
    for event in events
        .iter()
        .filter(|event| event.kind == "project_approved")
    {
        let id = event.record_id.as_deref().unwrap();
        let project = projects
            .iter()
            .find(|project| project.citation_id == id)
            .unwrap();
        assert!(
            matches!(project.status.as_str(), "Active" | "Closed"),
            "{id} is {}",
            project.status
        );
    }
}
