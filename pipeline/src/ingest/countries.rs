//! The country list (`country_names/latam_country_names.csv`): ISO codes and es/en/pt names of the 52
//! LAC countries and territories, and the catalog's comparison aggregates.

use std::path::Path;

use corpus::{Country, EntityKind, Names};
use serde::Deserialize;

use crate::{
    BakeError,
    sources::{Connector, CorpusSettings, SourceEntry},
};

#[derive(Debug, Deserialize)]
struct CountryRow {
    iso3: String,
    iso2: String,
    un_intermediate_region: String,
    wb_income_group: String,
    /// `Yes` for a sovereign state; otherwise its status (`Part of FR`, `Territory of GB`).
    is_independent: String,
    name_en: String,
    name_es: String,
    name_pt: String,
    name_es_formal: String,
    name_en_formal: String,
    wdi_name: String,
    wgi_name: String,
    aliases: String,
}

/// Reads the countries of `entry` (a `country_names` source) and appends the aggregates of `settings`.
///
/// # Errors
/// [`BakeError::RawFile`] if the file is missing, unreadable or lacks a column.
pub fn read(
    entry: &SourceEntry,
    settings: &CorpusSettings,
    sources_dir: &Path,
) -> Result<Vec<Country>, BakeError> {
    let Connector::CountryNames { file } = &entry.connector else {
        unreachable!(
            "countries::read called for connector `{}`",
            entry.connector.kind()
        );
    };
    let path = entry.raw_dir(sources_dir).join(file);
    let mut reader = csv::Reader::from_path(&path)
        .map_err(|error| BakeError::raw_file(&path, format!("cannot read: {error}")))?;
    let mut entities = Vec::new();
    for record in reader.deserialize::<CountryRow>() {
        let row = record.map_err(|error| BakeError::raw_file(&path, error))?;
        let non_empty = |text: &str| (!text.is_empty()).then(|| text.to_string());
        let mut aliases: Vec<String> = [
            &row.name_es_formal,
            &row.name_en_formal,
            &row.wdi_name,
            &row.wgi_name,
        ]
        .into_iter()
        .filter(|alias| !alias.is_empty())
        .cloned()
        .chain(
            row.aliases
                .split('|')
                .map(str::trim)
                .filter(|alias| !alias.is_empty())
                .map(String::from),
        )
        .collect();
        aliases.sort();
        aliases.dedup();
        entities.push(Country {
            iso3: row.iso3,
            iso2: row.iso2,
            kind: EntityKind::Country,
            names: Names {
                en: row.name_en,
                es: non_empty(&row.name_es),
                pt: non_empty(&row.name_pt),
            },
            aliases,
            intermediate_region: non_empty(&row.un_intermediate_region),
            income_group: non_empty(&row.wb_income_group),
            sovereign: row.is_independent == "Yes",
            observations: 0,
        });
    }
    entities.extend(settings.aggregates.iter().map(|aggregate| Country {
        iso3: aggregate.code.clone(),
        iso2: aggregate.iso2.clone(),
        kind: EntityKind::Aggregate,
        names: aggregate.names.clone(),
        aliases: aggregate.aliases.clone(),
        intermediate_region: None,
        income_group: None,
        sovereign: false,
        observations: 0,
    }));
    Ok(entities)
}
