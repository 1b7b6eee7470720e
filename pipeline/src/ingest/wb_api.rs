//! `wb_api_json`: World Bank Indicators API v2 responses, one JSON file per indicator, as the API serves
//! them from `https://api.worldbank.org/v2/country/all/indicator/<code>?format=json&per_page=20000&source=2`
//! (layout documented in `../shared/data/publisher-formats/wb_wdi_api/README.txt`; no real response
//! could be sampled, so the tests build responses in the documented layout).
//!
//! A response is a JSON array `[page_info, records]`: `page_info` holds `page`, `pages`, `per_page`,
//! `total` (numbers, or strings in older responses: both accepted), `sourceid` and `lastupdated`
//! (`2026-04-08`: the release, which becomes the series' vintage, [`Descriptor::vintage`]); each record
//! `{"indicator":{"id","value"},"country":{"id","value"},"countryiso3code","date","value",…}`.
//!
//! Traps handled: an error is HTTP 200 with a one-element array `[{"message":[{"id","key","value"}]}]`
//! (refused with the API's message); `records` is `null` when the indicator has no data (no rows); a
//! `value` of `null` is a year without data (no row, as the long layouts have none); `country.id` is not
//! ISO2 for aggregates, so the country is `countryiso3code` (`country.id` only where that is empty);
//! a response of several pages is refused naming `per_page` (one file must hold the whole series: the
//! refresh URL asks for `per_page=20000`, above the ~17,000 records of every economy × year); a record of
//! another indicator than the one the file is for is refused (a mis-served file). Records carry no line:
//! a raw row's `line` is the record's 1-based position in `records`.

use std::path::Path;

use serde_json::Value;

use super::{
    databank::expand,
    raw::{Descriptor, RawFile, RawRow, relative_display},
};
use crate::{
    BakeError,
    sources::{Connector, MetricMapping, SourceEntry},
};

/// Reads a `wb_api_json` source: one response file per mapped indicator, its rows and its descriptor
/// (title = `indicator.value`, vintage = `lastupdated`). `progress` advances by one per indicator.
///
/// # Errors
/// [`BakeError::RawFile`] if a file is missing or unreadable, is not a response of the API's layout, is
/// the API's error message, has more than one page, or holds another indicator.
pub fn read_source(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let Connector::WbApiJson { file, .. } = &entry.connector else {
        unreachable!(
            "wb_api::read_source called for connector `{}`",
            entry.connector.kind()
        );
    };
    let raw_dir = entry.raw_dir(sources_dir);
    let mut files = Vec::with_capacity(mapping.rows.len());
    let mut descriptors = Vec::with_capacity(mapping.rows.len());
    for (mapping_idx, row) in mapping.rows.iter().enumerate() {
        let code = entry.connector.publisher_code(&row.source_code);
        let path = raw_dir.join(expand(file, code));
        let bytes = std::fs::read(&path)
            .map_err(|error| BakeError::raw_file(&path, format!("cannot read: {error}")))?;
        let response =
            parse_response(&bytes, code).map_err(|message| BakeError::raw_file(&path, message))?;
        files.push(RawFile {
            file: relative_display(sources_dir, &path),
            rows: response
                .rows
                .into_iter()
                .map(|(line, country, year, value)| {
                    RawRow::new(mapping_idx, line, country, year, value)
                })
                .collect(),
        });
        descriptors.push(response.descriptor);
        progress.inc(1);
    }
    Ok((files, descriptors))
}

/// One indicator's response, read.
#[derive(Debug, PartialEq)]
struct Response {
    /// (record position, country code, date, value as written) of each record with a value.
    rows: Vec<(u64, String, String, String)>,
    /// Title and release.
    descriptor: Descriptor,
}

/// Parses one response for indicator `code`.
fn parse_response(bytes: &[u8], code: &str) -> Result<Response, String> {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let json: Value = serde_json::from_slice(bytes).map_err(|error| {
        format!("not JSON ({error}): expected the API's `[page_info, records]`")
    })?;
    let array = json
        .as_array()
        .ok_or("not a JSON array: expected the API's `[page_info, records]`")?;
    if let Some(messages) = array
        .first()
        .and_then(|first| first.get("message"))
        .and_then(Value::as_array)
    {
        let text: Vec<String> = messages
            .iter()
            .map(|message| {
                let field = |key: &str| {
                    message
                        .get(key)
                        .map(|value| value.as_str().map_or(value.to_string(), str::to_string))
                        .unwrap_or_default()
                };
                format!("{} {}: {}", field("id"), field("key"), field("value"))
            })
            .collect();
        return Err(format!(
            "the API answered an error instead of data: {}",
            text.join("; ")
        ));
    }
    let [page_info, records] = array.as_slice() else {
        return Err(format!(
            "an array of {} elements: expected the API's 2 elements `[page_info, records]`",
            array.len()
        ));
    };
    let number = |key: &str| {
        page_info.get(key).and_then(|value| {
            value
                .as_u64()
                .or_else(|| value.as_str().and_then(|text| text.parse().ok()))
        })
    };
    let pages = number("pages").ok_or("page_info has no `pages`")?;
    if pages > 1 {
        return Err(format!(
            "page {} of {pages} ({} records in all, {} per page): one file must hold the whole series; raise `per_page` in the refresh URL above `total`",
            number("page").unwrap_or(1),
            number("total").unwrap_or(0),
            number("per_page").unwrap_or(0),
        ));
    }
    let vintage = page_info
        .get("lastupdated")
        .and_then(Value::as_str)
        .filter(|date| !date.is_empty())
        .map(str::to_string);
    let records: &[Value] = match records {
        Value::Null => &[],
        Value::Array(records) => records,
        _ => return Err("the second element is neither an array of records nor null".into()),
    };
    fn text(value: Option<&Value>) -> &str {
        value.and_then(Value::as_str).unwrap_or_default().trim()
    }
    let mut title = None;
    let mut rows = Vec::with_capacity(records.len());
    for (position, record) in records.iter().enumerate() {
        let line = position as u64 + 1;
        let indicator = record.get("indicator");
        let id = text(indicator.and_then(|indicator| indicator.get("id")));
        if !id.eq_ignore_ascii_case(code) {
            return Err(format!(
                "record {line} is of indicator `{id}`, not `{code}`: the file is not this indicator's response"
            ));
        }
        if title.is_none() {
            title = Some(text(indicator.and_then(|indicator| indicator.get("value"))))
                .filter(|title| !title.is_empty())
                .map(str::to_string);
        }
        let value = match record.get("value") {
            None | Some(Value::Null) => continue,
            Some(Value::Number(number)) => number.to_string(),
            Some(Value::String(text)) => text.trim().to_string(),
            Some(other) => other.to_string(),
        };
        let iso3 = text(record.get("countryiso3code"));
        let country = if iso3.is_empty() {
            text(record.get("country").and_then(|country| country.get("id")))
        } else {
            iso3
        };
        rows.push((
            line,
            country.to_string(),
            text(record.get("date")).to_string(),
            value,
        ));
    }
    Ok(Response {
        rows,
        descriptor: Descriptor {
            title,
            vintage,
            ..Descriptor::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record of the live answer quoted in the wb_wdi_api README (MEX SP.POP.TOTL 2023), with its
    /// page_info, and a null year after it.
    const MEXICO: &str = r#"[{"page":1,"pages":1,"per_page":50,"total":2,"sourceid":"2","lastupdated":"2026-04-08"},[{"indicator":{"id":"SP.POP.TOTL","value":"Population, total"},"country":{"id":"MX","value":"Mexico"},"countryiso3code":"MEX","date":"2023","value":129739759,"unit":"","obs_status":"","decimal":0},{"indicator":{"id":"SP.POP.TOTL","value":"Population, total"},"country":{"id":"MX","value":"Mexico"},"countryiso3code":"MEX","date":"2024","value":null,"unit":"","obs_status":"","decimal":0}]]"#;

    #[test]
    fn a_record_becomes_a_row_and_lastupdated_the_vintage() {
        let response = parse_response(MEXICO.as_bytes(), "SP.POP.TOTL").unwrap();
        assert_eq!(
            response.rows,
            vec![(1, "MEX".into(), "2023".into(), "129739759".into())]
        );
        assert_eq!(response.descriptor.vintage.as_deref(), Some("2026-04-08"));
        assert_eq!(
            response.descriptor.title.as_deref(),
            Some("Population, total")
        );
    }

    #[test]
    fn the_api_error_array_is_refused_with_its_message() {
        let error = parse_response(
            br#"[{"message":[{"id":"120","key":"Invalid value","value":"The provided parameter value is not valid"}]}]"#,
            "SP.POP.TOTL",
        )
        .unwrap_err();
        assert!(
            error.contains("120 Invalid value: The provided parameter value is not valid"),
            "{error}"
        );
    }

    #[test]
    fn string_page_numbers_null_records_and_aggregates_keyed_on_iso3() {
        let empty = parse_response(
            br#"[{"page":"1","pages":"1","per_page":"50","total":"0","sourceid":"2","lastupdated":"2025-01-28"},null]"#,
            "EG.ELC.ACCS.RU.ZS",
        )
        .unwrap();
        assert!(empty.rows.is_empty());
        assert_eq!(empty.descriptor.vintage.as_deref(), Some("2025-01-28"));
        let aggregate = parse_response(
            br#"[{"page":1,"pages":1,"per_page":50,"total":1},[{"indicator":{"id":"SI.POV.LMIC","value":"x"},"country":{"id":"ZJ","value":"Latin America & Caribbean"},"countryiso3code":"LCN","date":"2022","value":10.5}]]"#,
            "si.pov.lmic",
        )
        .unwrap();
        assert_eq!(aggregate.rows[0].1, "LCN");
        assert_eq!(aggregate.rows[0].3, "10.5");
    }

    #[test]
    fn several_pages_or_another_indicator_are_refused() {
        let paged = MEXICO.replacen(r#""pages":1"#, r#""pages":3"#, 1);
        let error = parse_response(paged.as_bytes(), "SP.POP.TOTL").unwrap_err();
        assert!(error.contains("per_page"), "{error}");
        let error = parse_response(MEXICO.as_bytes(), "SP.DYN.LE00.IN").unwrap_err();
        assert!(error.contains("not `SP.DYN.LE00.IN`"), "{error}");
        assert!(
            parse_response(b"{}", "X")
                .unwrap_err()
                .contains("not a JSON array")
        );
    }
}
