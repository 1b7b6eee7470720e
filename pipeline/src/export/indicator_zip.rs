//! One indicator as a zip (`exports/indicators/{id}.zip`), laid out as OWID's chart downloads are: the
//! data, its metadata and a README, plus a Frictionless descriptor, so the folder it unzips to is
//! self-describing:
//!
//! - `{id}.csv`: the tidy CSV, byte-identical to `indicators/{id}.csv`;
//! - `{id}.metadata.json`: [`metadata_fields`] as an object, with the names in es/en/pt, the coverage
//!   and the columns (name, type, description);
//! - `datapackage.json`: a Data Package of the CSV ([`super::datapackage::indicator_resource`]);
//! - `README.md`: what the numbers are, their unit, source, licence and how to cite them, in English.
//!
//! Entries are deflated with a fixed timestamp (1980-01-01, zip's epoch) and mode 0644, so the bytes
//! are the same across bakes of the same inputs.

use std::{
    fs::File,
    io::{BufWriter, Write},
    path::Path,
};

use serde_json::{Value, json};
use zip::{CompressionMethod, DateTime, ZipWriter, write::SimpleFileOptions};

use super::{
    datapackage::{PROFILE, indicator_resource, indicator_schema},
    indicators::{IndicatorExport, metadata_fields},
};
use crate::BakeError;

/// The metadata object of `{id}.metadata.json`.
pub fn metadata_json(export: &IndicatorExport<'_>) -> Value {
    let metric = export.metric;
    let mut object: serde_json::Map<String, Value> = metadata_fields(export)
        .into_iter()
        .map(|(field, value)| (field.to_string(), value.into()))
        .collect();
    object.insert(
        "names".into(),
        serde_json::to_value(&metric.names).unwrap_or_default(),
    );
    object.insert(
        "coverage".into(),
        serde_json::to_value(metric.coverage).unwrap_or_default(),
    );
    object.insert("columns".into(), indicator_schema(export)["fields"].clone());
    Value::Object(object)
}

/// The README of the zip: title, definition, unit, source, coverage, the files, the columns, how to cite.
pub fn readme(export: &IndicatorExport<'_>) -> String {
    let metric = export.metric;
    let fields = metadata_fields(export);
    let field = |name: &str| {
        fields
            .iter()
            .find(|(field, _)| *field == name)
            .map_or("", |(_, value)| value.as_str())
    };
    let id = metric.id.as_str();
    let mut text = format!(
        "# {} ({})\n\n{}\n\n",
        metric.names.en,
        metric.source_code,
        metric.description.trim()
    );
    let coverage = &metric.coverage;
    let years = match (coverage.first_year, coverage.last_year) {
        (Some(first), Some(last)) => format!("{first}–{last}"),
        _ => "none".into(),
    };
    for (label, value) in [
        ("Unit", field("unit").to_string()),
        (
            "Source",
            format!(
                "{}, {} (vintage {})",
                field("publisher"),
                field("dataset"),
                field("vintage")
            ),
        ),
        ("Primary source", field("primary_source").to_string()),
        ("Retrieved", field("retrieved_at").to_string()),
        (
            "Licence",
            format!("{} {}", field("licence"), field("licence_url"))
                .trim()
                .to_string(),
        ),
        (
            "Coverage",
            format!(
                "{} observations, {} countries and territories, {years}",
                coverage.observations, coverage.countries
            ),
        ),
    ] {
        if !value.trim().is_empty() {
            text.push_str(&format!("- **{label}**: {value}\n"));
        }
    }
    text.push_str(&format!(
        "\n## Files\n\n- `{id}.csv`: one row per country and year with a value (tidy; UTF-8, CRLF).\n- `{id}.metadata.json`: the fields above, names in Spanish and Portuguese, the columns.\n- `datapackage.json`: the CSV as a Frictionless Data Package (types, primary key, sha256).\n\n## Columns\n\n| column | type | description |\n|---|---|---|\n"
    ));
    for column in indicator_schema(export)["fields"]
        .as_array()
        .into_iter()
        .flatten()
    {
        text.push_str(&format!(
            "| `{}` | {} | {} |\n",
            column["name"].as_str().unwrap_or(""),
            column["type"].as_str().unwrap_or(""),
            column["description"]
                .as_str()
                .unwrap_or("")
                .replace('|', "\\|")
        ));
    }
    text.push_str(&format!(
        "\nProjections, estimates and modelled values are marked in `flags`; they are never mixed with observations silently.\n\n## How to cite\n\n{}. {}\n",
        field("attribution"),
        field("citation")
    ));
    let methodology = field("methodology");
    if !methodology.is_empty() {
        text.push_str(&format!("\n## Methodology\n\n{}\n", methodology.trim()));
    }
    text
}

/// Writes `{id}.zip` at `path` from the indicator's tidy CSV bytes `csv`.
///
/// # Errors
/// [`BakeError::Io`] naming `path` if the file cannot be written.
pub fn write_indicator_zip(
    path: &Path,
    export: &IndicatorExport<'_>,
    csv: &[u8],
) -> Result<(), BakeError> {
    let id = export.metric.id.as_str();
    let io_error = |error: std::io::Error| BakeError::io(path, error);
    let zip_error =
        |error: zip::result::ZipError| BakeError::io(path, std::io::Error::other(error));
    let file = File::create(path).map_err(io_error)?;
    let mut zip = ZipWriter::new(BufWriter::new(file));
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .last_modified_time(DateTime::default())
        .unix_permissions(0o644);
    let package = json!({
        "$schema": PROFILE,
        "name": id.replace('_', "-"),
        "title": export.metric.names.en,
        "resources": [indicator_resource(export, &format!("{id}.csv"), csv)],
    });
    let entries: [(String, Vec<u8>); 4] = [
        ("README.md".into(), readme(export).into_bytes()),
        (format!("{id}.csv"), csv.to_vec()),
        (
            format!("{id}.metadata.json"),
            serde_json::to_vec_pretty(&metadata_json(export)).unwrap_or_default(),
        ),
        (
            "datapackage.json".into(),
            serde_json::to_vec_pretty(&package).unwrap_or_default(),
        ),
    ];
    for (name, bytes) in entries {
        zip.start_file(name, options).map_err(zip_error)?;
        zip.write_all(&bytes).map_err(io_error)?;
    }
    zip.finish().map_err(zip_error)?.flush().map_err(io_error)
}
