//! The curated `projects` dataset on the real World Bank exports: merged, validated, mapped to pillars.

use corpus::Project;

use crate::support::real;

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
    assert_eq!(decentralized.commitment_usd, Some(5_175_000.0));
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
