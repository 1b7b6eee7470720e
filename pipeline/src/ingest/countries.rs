//! The country list (`country_names/latam_country_names.csv`): ISO codes and es/en/pt names of the 52
//! LAC countries and territories, and the catalog's comparison aggregates.

use std::path::Path;

use std::collections::HashSet;

use corpus::{AmbiguousPlace, Country, EntityKind, Names, OutsidePlace, Places};
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
    let Connector::CountryNames { file, .. } = &entry.connector else {
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

/// The places of `entry` and `settings` that are not one entity of `entities`: the catalog's ambiguous
/// names (each candidate checked to be a country of `entities`) and, when the connector names
/// `world_names`, every ISO 3166-1 entry of i18n-iso-countries (`codes.json`, `{en,es,pt}.json`, a value
/// either a name or a list whose first is preferred) whose alpha-3 is not a country of `entities`.
///
/// # Errors
/// [`BakeError::Catalog`] for a candidate that is not a country of the list; [`BakeError::RawFile`] if a
/// world-names file is missing or not in i18n-iso-countries' layout.
pub fn read_places(
    entry: &SourceEntry,
    settings: &CorpusSettings,
    sources_dir: &Path,
    entities: &[Country],
) -> Result<Places, BakeError> {
    let countries: HashSet<&str> = entities
        .iter()
        .filter(|entity| entity.kind == EntityKind::Country)
        .map(|entity| entity.iso3.as_str())
        .collect();
    let mut ambiguous: Vec<AmbiguousPlace> = Vec::new();
    for place in &settings.ambiguous_places {
        if let Some(unknown) = place
            .candidates
            .iter()
            .find(|iso3| !countries.contains(iso3.as_str()))
        {
            return Err(BakeError::catalog(
                Path::new("data/corpus.toml"),
                format!(
                    "ambiguous_places `{}`: candidate `{unknown}` is not a country of the country list",
                    place.name
                ),
            ));
        }
        ambiguous.push(place.clone());
    }
    let Connector::CountryNames {
        world_names: Some(folder),
        ..
    } = &entry.connector
    else {
        return Ok(Places {
            ambiguous,
            outside: Vec::new(),
        });
    };
    let folder = entry.raw_dir(sources_dir).join(folder);
    let read = |name: &str| -> Result<serde_json::Value, BakeError> {
        let path = folder.join(name);
        let text = std::fs::read_to_string(&path)
            .map_err(|error| BakeError::raw_file(&path, format!("cannot read: {error}")))?;
        serde_json::from_str(&text).map_err(|error| BakeError::raw_file(&path, error))
    };
    let codes = read("codes.json")?;
    let languages: Vec<serde_json::Value> = ["en.json", "es.json", "pt.json"]
        .iter()
        .map(|name| read(name))
        .collect::<Result<_, _>>()?;
    let mut outside = Vec::new();
    for code in codes.as_array().into_iter().flatten() {
        let (Some(alpha2), Some(alpha3)) = (code[0].as_str(), code[1].as_str()) else {
            return Err(BakeError::raw_file(
                folder.join("codes.json"),
                format!("an entry is not [alpha2, alpha3, …]: {code}"),
            ));
        };
        if countries.contains(alpha3) {
            continue;
        }
        let by_language: Vec<Vec<String>> = languages
            .iter()
            .map(|language| match &language["countries"][alpha2] {
                serde_json::Value::String(name) => vec![name.clone()],
                serde_json::Value::Array(all) => all
                    .iter()
                    .filter_map(|name| name.as_str().map(String::from))
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        let Some(en) = by_language[0].first().cloned() else {
            continue;
        };
        let first = |language: usize| by_language[language].first().cloned();
        let mut aliases: Vec<String> = by_language
            .iter()
            .flat_map(|all| all.iter().skip(1).cloned())
            .collect();
        aliases.sort();
        aliases.dedup();
        outside.push(OutsidePlace {
            iso3: alpha3.to_string(),
            names: Names {
                en,
                es: first(1),
                pt: first(2),
            },
            aliases,
        });
    }
    outside.sort_by(|left, right| left.iso3.cmp(&right.iso3));
    Ok(Places { ambiguous, outside })
}
