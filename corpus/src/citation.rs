//! Citation ids and their resolution.
//!
//! An observation's citation id is `{citation_prefix}-{source code, lower case, dots→dashes}-{iso3 lower}-{year}`,
//! e.g. `wb-sp-dyn-le00-in-mex-2024`. No row is stored per citation: the id is resolved from the source
//! registry, the metric registry and the observation table ([`crate::BakedCorpus::resolve_citation`]).
//! Per-response synthetic ids (`pulse-…`, `calc-…`, `news-…`) never resolve here: their record travels
//! inline in the response that minted them.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// Prefixes of per-response synthetic ids, which exist only inside the response that minted them.
pub const SYNTHETIC_PREFIXES: &[&str] = &["pulse-", "calc-", "news-", "compute-", "forecast-"];

/// The parts of an observation citation id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CitationId {
    /// Source citation prefix (`wb`).
    pub prefix: String,
    /// Source code in citation form: lower case, dots as dashes (`sp-dyn-le00-in`).
    pub code_slug: String,
    /// Upper-case ISO3 or aggregate code (`MEX`).
    pub iso3: String,
    /// Year.
    pub year: i32,
}

impl CitationId {
    /// Formats the citation id of one observation.
    pub fn format(prefix: &str, source_code: &str, iso3: &str, year: i32) -> String {
        format!(
            "{prefix}-{}-{}-{year}",
            Self::code_slug(source_code),
            iso3.to_ascii_lowercase()
        )
    }

    /// The citation form of a source code: lower case, dots and underscores as dashes.
    pub fn code_slug(source_code: &str) -> String {
        source_code.to_ascii_lowercase().replace(['.', '_'], "-")
    }

    /// Splits an id into prefix, code, country and year. The prefix is everything before the first dash,
    /// so prefixes themselves contain no dash.
    ///
    /// # Errors
    /// The reason the id is not an observation citation id.
    pub fn parse(id: &str) -> Result<CitationId, String> {
        if let Some(prefix) = SYNTHETIC_PREFIXES
            .iter()
            .find(|prefix| id.starts_with(*prefix))
        {
            return Err(format!(
                "`{prefix}…` ids are per-response: their record is inline in the response that minted them, not stored in the corpus"
            ));
        }
        let malformed = || {
            "not a citation id of the form {source}-{indicator}-{iso3}-{year}, e.g. wb-sp-dyn-le00-in-mex-2024".to_string()
        };
        let mut parts = id.rsplitn(3, '-');
        let (Some(year), Some(iso3), Some(rest)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(malformed());
        };
        let Some((prefix, code_slug)) = rest.split_once('-') else {
            return Err(malformed());
        };
        let year: i32 = year.parse().map_err(|_| malformed())?;
        if iso3.len() != 3 || prefix.is_empty() || code_slug.is_empty() {
            return Err(malformed());
        }
        Ok(CitationId {
            prefix: prefix.into(),
            code_slug: code_slug.into(),
            iso3: iso3.to_ascii_uppercase(),
            year,
        })
    }
}

/// A resolved citation: everything a reader needs to find and credit one number. Its text borrows from
/// the loaded corpus (registries and the memory-mapped table) where it can, so building one allocates
/// only the deep link; deserialized citations own their text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Citation<'a> {
    /// The id that was resolved.
    pub citation_id: Cow<'a, str>,
    /// Source id (`wdi`).
    pub source: Cow<'a, str>,
    /// Publisher (`The World Bank`).
    pub publisher: Cow<'a, str>,
    /// Dataset (`World Development Indicators`).
    pub dataset: Cow<'a, str>,
    /// Metric id (`sp_dyn_le00_in`).
    pub indicator: Cow<'a, str>,
    /// Publisher's indicator code (`SP.DYN.LE00.IN`).
    pub indicator_code: Cow<'a, str>,
    /// Publisher's indicator title (`Life expectancy at birth, total (years)`).
    pub title: Cow<'a, str>,
    /// ISO3 (or aggregate code).
    pub country: Cow<'a, str>,
    /// Year of the observation.
    pub year: i32,
    /// The cited value, in `unit`.
    pub value: f64,
    /// Unit of `value`.
    pub unit: Cow<'a, str>,
    /// Deep link to the indicator for that country on the publisher's site.
    pub url: Cow<'a, str>,
    /// Release the value comes from.
    pub vintage: Cow<'a, str>,
    /// When the raw file was retrieved (ISO 8601 date).
    pub retrieved_at: Cow<'a, str>,
    /// Licence of the series.
    pub license: Cow<'a, str>,
    /// Attribution text the publisher asks for.
    pub attribution: Cow<'a, str>,
    /// Flags of the value (`projection`: an estimate or projection, not an observation); empty when none.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub flags: Cow<'a, str>,
}

/// A citation id that did not resolve, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{citation_id}: {reason}")]
pub struct UnresolvedCitation {
    /// The id as given.
    pub citation_id: String,
    /// Why it did not resolve, and what would.
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::CitationId;

    #[test]
    fn formats_and_parses_round_trip() {
        let id = CitationId::format("wb", "SP.DYN.LE00.IN", "MEX", 2024);
        assert_eq!(id, "wb-sp-dyn-le00-in-mex-2024");
        let parsed = CitationId::parse(&id).unwrap();
        assert_eq!(parsed.prefix, "wb");
        assert_eq!(parsed.code_slug, "sp-dyn-le00-in");
        assert_eq!(parsed.iso3, "MEX");
        assert_eq!(parsed.year, 2024);
    }

    #[test]
    fn rejects_synthetic_and_malformed_ids() {
        assert!(
            CitationId::parse("pulse-abc")
                .unwrap_err()
                .contains("per-response")
        );
        for id in ["", "wb", "wb-mex-2024", "wb-x-mexico-2024", "wb-x-mex-year"] {
            assert!(
                CitationId::parse(id)
                    .unwrap_err()
                    .contains("not a citation id"),
                "{id}"
            );
        }
    }
}

/// A curated record that is its own citation (a project, law, institution, financing record or event).
pub trait CitedRecord {
    /// The curated dataset it belongs to.
    const DATASET: crate::curated::RecordDataset;
    /// The record's citation id (`wbproj-p127837`).
    fn citation_id(&self) -> &str;
    /// The id of the source it comes from (`wb_projects`).
    fn source_id(&self) -> &str;
    /// What `citations.records[citation_id]` of an answer holds.
    fn citation(&self) -> RecordCitation;
    /// The source id it names and how that source asks to be credited (publisher, licence,
    /// attribution): what `record_sources.json` declares once per source.
    fn provenance(&self) -> crate::curated::RecordSource;
    /// Leaves the record with its source id and its own fields only (publisher, licence and attribution
    /// emptied, so its artifact row omits them), as the bake writes it.
    fn strip_provenance(&mut self);
    /// Fills publisher, licence and attribution from its source's declaration, as the server reads it.
    fn fill_provenance(&mut self, source: &crate::curated::RecordSource);
}

/// Implements [`CitedRecord`] for a record type whose fields `citation_id`, `source`, `publisher`, `url`,
/// `license`, `attribution` and `retrieved_at` are its provenance (`publisher`, `license` and
/// `attribution` are its source's, declared once in `record_sources.json`), with `$title` its title field and
/// `$dataset` its [`crate::curated::RecordDataset`] variant.
#[macro_export]
macro_rules! cited_record {
    ($type:ty, $dataset:ident, $title:ident) => {
        impl $crate::citation::CitedRecord for $type {
            const DATASET: $crate::curated::RecordDataset =
                $crate::curated::RecordDataset::$dataset;

            fn citation_id(&self) -> &str {
                &self.citation_id
            }

            fn source_id(&self) -> &str {
                &self.source
            }

            fn citation(&self) -> $crate::citation::RecordCitation {
                $crate::citation::RecordCitation {
                    citation_id: self.citation_id.clone(),
                    dataset: Self::DATASET.id().into(),
                    source: self.source.clone(),
                    publisher: self.publisher.clone(),
                    title: self.$title.clone(),
                    url: self.url.clone(),
                    license: self.license.clone(),
                    attribution: self.attribution.clone(),
                    retrieved_at: self.retrieved_at.clone(),
                }
            }

            fn provenance(&self) -> $crate::curated::RecordSource {
                $crate::curated::RecordSource {
                    id: self.source.clone(),
                    publisher: self.publisher.clone(),
                    license: self.license.clone(),
                    attribution: self.attribution.clone(),
                }
            }

            fn strip_provenance(&mut self) {
                self.publisher = String::new();
                self.license = String::new();
                self.attribution = String::new();
            }

            fn fill_provenance(&mut self, source: &$crate::curated::RecordSource) {
                self.publisher = source.publisher.clone();
                self.license = source.license.clone();
                self.attribution = source.attribution.clone();
            }
        }
    };
}

/// The citation of a curated record (a project), which is its own source: where it comes from, its
/// page, and how to credit it. Record citation ids carry the source's prefix (`wbproj-p127837`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RecordCitation {
    /// The record's citation id.
    pub citation_id: String,
    /// Curated dataset id (`projects`).
    pub dataset: String,
    /// Source id (`wb_projects`).
    pub source: String,
    /// Publisher (`The World Bank`).
    pub publisher: String,
    /// The record's title as published.
    pub title: String,
    /// The publisher's page for the record.
    pub url: String,
    /// Licence id (`CC-BY-4.0`).
    pub license: String,
    /// Attribution text the publisher asks for.
    pub attribution: String,
    /// When the record was retrieved (ISO 8601 date).
    pub retrieved_at: String,
}
