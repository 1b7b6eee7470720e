//! The search index's documents (`index/`, [`corpus::index::build_index`]): the metrics, the dataset
//! catalog, the countries, the pillars and every curated record dataset, so that `search_corpus`,
//! `find_pilots` and `resolve_metric` find them by words in es/en/pt. The documents' order is the index's
//! (ties in score fall to the earlier document), so it is fixed here: metrics, catalog, countries, pillars,
//! then the curated datasets in the order of [`RecordDataset::ALL`].

use corpus::{CountryRegistry, IndexDocument, RecordDataset};

use crate::govern::records::{Curated, terms::SearchTerms};

/// Every document of the search index, in the index's order.
pub fn search_documents(
    metrics: &[corpus::Metric],
    datasets: &[corpus::Dataset],
    countries: &CountryRegistry,
    pillars: &[corpus::Pillar],
    curated: &Curated,
) -> Vec<IndexDocument> {
    let mut documents = corpus::index::metric_documents(metrics, pillars);
    documents.extend(catalog_documents(datasets, countries, pillars));
    let terms = &curated.search_terms;
    for dataset in RecordDataset::ALL {
        match dataset {
            RecordDataset::Projects => {
                documents.extend(project_documents(&curated.projects, pillars, terms));
            }
            RecordDataset::Regulation => documents.extend(law_documents(&curated.laws, terms)),
            RecordDataset::Institutions => {
                documents.extend(institution_documents(&curated.institutions));
            }
            RecordDataset::Financing => documents.extend(flow_documents(&curated.financing)),
            RecordDataset::Events => documents.extend(event_documents(&curated.events, pillars)),
        }
    }
    documents
}

/// Index documents for the curated projects (`dataset_id` `projects`): title, objective, sectors and
/// themes, the implementing agency (often named in Spanish or Portuguese: "Viceministerio de Electricidad
/// y Energías Renovables"), the country or region label, and its pillars' names in es/en/pt (the records
/// are in English), the title's glossary words as its synonyms,
/// so `search_corpus` and `find_pilots` find a project by what it does and where.
fn project_documents(
    projects: &[corpus::Project],
    pillars: &[corpus::Pillar],
    terms: &SearchTerms,
) -> Vec<IndexDocument> {
    let pillar_words = |ids: &[String]| -> String {
        pillars
            .iter()
            .filter(|pillar| ids.contains(&pillar.id))
            .map(|pillar| {
                format!(
                    "{} {} {}",
                    pillar.names.get(corpus::Lang::Es),
                    pillar.names.get(corpus::Lang::En),
                    pillar.names.get(corpus::Lang::Pt)
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    projects
        .iter()
        .map(|project| IndexDocument {
            dataset_id: RecordDataset::Projects.id().into(),
            id: project.id.clone(),
            pillars: project.pillars.clone(),
            code: project.id.clone(),
            title: project.title.clone(),
            // The title's words in Spanish and Portuguese (the reviewed glossary), so a query in either
            // language is judged named by the title as an English one is (`find_pilots` ranks title
            // matches first).
            synonyms: vec![terms.expand(&project.title)],
            description: project.objective.clone(),
            context: format!(
                "{} {} {} {} {} {} {}",
                project.location,
                project.country.as_deref().unwrap_or(""),
                project.sectors.join(" "),
                project.themes.join(" "),
                project.implementing_agency.as_deref().unwrap_or(""),
                pillar_words(&project.pillars),
                terms.expand(&format!(
                    "{} {} {} {}",
                    project.title,
                    project.objective,
                    project.sectors.join(" "),
                    project.themes.join(" ")
                ))
            ),
            ..Default::default()
        })
        .collect()
}

/// Index documents for the curated laws (`regulation`, by citation id): title, summary, sectors.
fn law_documents(laws: &[corpus::Law], terms: &SearchTerms) -> Vec<IndexDocument> {
    laws.iter()
        .map(|law| IndexDocument {
            dataset_id: RecordDataset::Regulation.id().into(),
            id: law.citation_id.clone(),
            pillars: law.pillars.clone(),
            code: law.citation_id.clone(),
            title: law.title.clone(),
            description: law.description.clone(),
            context: format!(
                "{} {} {} {} {}",
                law.country,
                law.document_types.join(" "),
                law.sectors.join(" "),
                law.responses.join(" "),
                terms.expand(&format!(
                    "{} {} {}",
                    law.title,
                    law.description,
                    law.sectors.join(" ")
                ))
            ),
            ..Default::default()
        })
        .collect()
}

/// Index documents for the curated institutions (by citation id): names in en/es/pt, kind, role.
fn institution_documents(institutions: &[corpus::Institution]) -> Vec<IndexDocument> {
    institutions
        .iter()
        .map(|body| IndexDocument {
            dataset_id: RecordDataset::Institutions.id().into(),
            id: body.citation_id.clone(),
            pillars: body.pillars.clone(),
            code: body.citation_id.clone(),
            title: body.name.clone(),
            description: format!(
                "{} {}",
                body.name_es.as_deref().unwrap_or(""),
                body.name_pt.as_deref().unwrap_or("")
            ),
            context: format!(
                "{} {} {}",
                body.country,
                body.kind.as_deref().unwrap_or(""),
                body.role.replace('_', " ")
            ),
            ..Default::default()
        })
        .collect()
}

/// Index documents for the curated CRS flows of `financing` (by citation id): donor, flow type, sector.
fn flow_documents(financing: &[corpus::FinancingRecord]) -> Vec<IndexDocument> {
    financing
        .iter()
        .filter(|record| record.kind == "crs_flow")
        .map(|record| IndexDocument {
            dataset_id: RecordDataset::Financing.id().into(),
            id: record.citation_id.clone(),
            pillars: record.pillars.clone(),
            code: record.citation_id.clone(),
            title: record.title.clone(),
            description: String::new(),
            context: record.country.clone(),
            ..Default::default()
        })
        .collect()
}

/// Index documents for the curated events (`dataset_id` `events`, by citation id): title and why in
/// en/es/pt, kind, countries and pillar names, so `search_corpus` finds "earthquake deaths Ecuador".
fn event_documents(events: &[corpus::Event], pillars: &[corpus::Pillar]) -> Vec<IndexDocument> {
    events
        .iter()
        .map(|event| IndexDocument {
            dataset_id: RecordDataset::Events.id().into(),
            id: event.citation_id.clone(),
            pillars: event.pillars.clone(),
            code: event.citation_id.clone(),
            title: event.title.clone(),
            description: event.why.clone(),
            // The title in Spanish and Portuguese, and the words of its kind, name the event as its
            // title does.
            synonyms: [
                event.title_es.clone().unwrap_or_default(),
                event.title_pt.clone().unwrap_or_default(),
                match event.kind.as_str() {
                    "earthquake" => "sismo terremoto quake deaths muertes mortes",
                    "law_passed" | "law_amended" | "policy_adopted" => {
                        "ley lei law policy política"
                    }
                    "project_approved" | "project_closed" => "proyecto projeto project",
                    _ => "publicación publicação release datos dados data",
                }
                .to_string(),
            ]
            .into(),
            context: format!(
                "{} {} {}",
                event.kind.replace('_', " "),
                event.countries.join(" "),
                pillars
                    .iter()
                    .filter(|pillar| event.pillars.contains(&pillar.id))
                    .flat_map(|pillar| pillar.names.all())
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            ..Default::default()
        })
        .collect()
}

/// Index documents for the dataset catalog, the countries and the pillars, so `search_corpus` finds them.
fn catalog_documents(
    datasets: &[corpus::Dataset],
    countries: &CountryRegistry,
    pillars: &[corpus::Pillar],
) -> Vec<IndexDocument> {
    let mut documents: Vec<IndexDocument> = datasets
        .iter()
        .map(|dataset| IndexDocument {
            dataset_id: "catalog".into(),
            id: dataset.dataset_id.clone(),
            code: dataset.dataset_id.replace('_', " "),
            title: dataset.title.clone(),
            description: dataset.description.clone(),
            context: dataset
                .columns
                .iter()
                .map(|column| column.name.replace('_', " "))
                .collect::<Vec<_>>()
                .join(" "),
            ..Default::default()
        })
        .collect();
    documents.extend(countries.entities().iter().map(|entity| IndexDocument {
        dataset_id: "countries".into(),
        id: entity.iso3.clone(),
        code: format!("{} {}", entity.iso3, entity.iso2),
        names: entity.names.all().map(String::from).collect(),
        synonyms: entity.aliases.clone(),
        context: entity.intermediate_region.clone().unwrap_or_default(),
        ..Default::default()
    }));
    documents.extend(pillars.iter().map(|pillar| IndexDocument {
        dataset_id: "pillars".into(),
        id: pillar.id.clone(),
        pillars: vec![pillar.id.clone()],
        code: pillar.id.replace('_', " "),
        names: pillar.names.all().map(String::from).collect(),
        synonyms: pillar.aliases.clone(),
        ..Default::default()
    }));
    documents
}
