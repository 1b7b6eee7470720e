//! Citations written ready to paste ([`corpus::citation_style`]) from the loaded corpus: what
//! `resolve_citations` answers with `format` and `GET /api/v1/citations/{id}` serves.

use corpus::citation_style::{CitationFormat, CitationParts};
use schemars::JsonSchema;
use serde::Serialize;

use super::Corpus;

/// One citation written in the format asked for.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Formatted {
    /// The id.
    pub citation_id: String,
    /// The citation as text (bibtex, apa, chicago, text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The CSL-JSON item (csl-json).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csl: Option<serde_json::Value>,
}

impl Corpus {
    /// `id` written in `format`: a value's citation (its country named in English) or a record's (its
    /// dataset named by the catalog's title); `None` for an id that does not resolve.
    pub fn formatted_citation(&self, id: &str, format: CitationFormat) -> Option<Formatted> {
        let corpus = self;
        let write = |parts: CitationParts<'_>| match format {
            CitationFormat::Json | CitationFormat::CslJson => Formatted {
                citation_id: id.to_string(),
                text: None,
                csl: Some(parts.csl_json()),
            },
            _ => Formatted {
                citation_id: id.to_string(),
                text: Some(parts.render(format)),
                csl: None,
            },
        };
        if let Some(record) = corpus.record_citation(id) {
            // The catalog's title of the record's dataset names it better than its source id.
            let title = corpus
                .dataset(&record.dataset)
                .map(|dataset| dataset.title.clone());
            let mut parts = CitationParts::of_record(&record);
            if let Some(title) = &title {
                parts.dataset = title;
            }
            return Some(write(parts));
        }
        let citation = corpus.baked.resolve_citation(id).ok()?;
        let country = corpus.baked.countries().get(&citation.country).map_or_else(
            || citation.country.to_string(),
            |country| country.names.en.clone(),
        );
        Some(write(CitationParts::of_value(&citation, &country)))
    }
}
