//! `GET /api/v1/citations/{id}` (and `HEAD`): one citation id resolved without MCP, for a person or a
//! notebook, in the format asked for (`?format=`, default `json`; [`CitationFormat`]).
//!
//! - `json`: a value's full citation record (publisher, dataset, indicator code and title, country,
//!   year, value, unit, deep link, vintage, retrieval date, licence, attribution, flags) or a curated
//!   record's (title, page, publisher, licence), as `resolve_citations` gives it;
//! - `csl-json` (`application/vnd.citationstyles.csl+json`, an array of one item), `bibtex`
//!   (`application/x-bibtex`), `apa`, `chicago`, `text` (`text/plain`): the same, ready to paste.
//!
//! An id the corpus does not hold is 404 with the reason; an unknown format 400 naming the valid ones.
//! Answers are cacheable under the corpus version (an `ETag` of version, id and format).

use std::{collections::HashMap, sync::Arc};

use axum::{
    body::Body,
    extract::{Query, State},
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use corpus::citation_style::CitationFormat;
use serde_json::json;

use super::http_state::HttpState;

/// The most characters of an id read (one past the longest the tools accept, so a longer one is still
/// refused by name).
const MAX_ID_CHARS: usize = 129;

/// See the module documentation.
pub async fn get_citation(
    State(state): State<Arc<HttpState>>,
    headers: HeaderMap,
    axum::extract::Path(id): axum::extract::Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let id: String = id.chars().take(MAX_ID_CHARS).collect();
    let requested = query.get("format").map_or("json", String::as_str);
    let Some(format) = CitationFormat::parse(requested) else {
        return problem(
            StatusCode::BAD_REQUEST,
            format!(
                "unknown format `{}`: give one of {}",
                crate::text::snippet(requested),
                CitationFormat::names()
            ),
        );
    };
    let server = state.server();
    let corpus = server.plugin().corpus();
    let etag = format!(
        "\"citation-{}-{:016x}\"",
        corpus.baked.manifest().corpus_version,
        {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::hash::DefaultHasher::new();
            (&id, format.name()).hash(&mut hasher);
            hasher.finish()
        }
    );
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value.split(',').any(|tag| {
                let tag = tag.trim();
                tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag
            })
        })
    {
        let mut response = StatusCode::NOT_MODIFIED.into_response();
        set(&mut response, header::ETAG, &etag);
        return response;
    }
    let body = match format {
        CitationFormat::Json => {
            if let Some(record) = corpus.record_citation(&id) {
                serde_json::to_string(&record).ok()
            } else {
                match corpus.baked.resolve_citation(&id) {
                    Ok(citation) => serde_json::to_string(&citation).ok(),
                    Err(_) => None,
                }
            }
        }
        CitationFormat::CslJson => corpus
            .formatted_citation(&id, format)
            .and_then(|written| written.csl)
            .map(|item| json!([item]).to_string()),
        _ => corpus
            .formatted_citation(&id, format)
            .and_then(|written| written.text),
    };
    let Some(body) = body else {
        // An id written in another case: name the one stored.
        let canonical = id.trim().to_ascii_lowercase();
        let reason = if canonical != id
            && (corpus.record_citation(&canonical).is_some()
                || corpus.baked.resolve_citation(&canonical).is_ok())
        {
            format!("not a stored id as written; its canonical form is {canonical}")
        } else {
            corpus.baked.resolve_citation(&id).err().map_or_else(
                || "no such citation id".to_string(),
                |unresolved| unresolved.reason,
            )
        };
        return problem(StatusCode::NOT_FOUND, reason);
    };
    let mut response = Response::new(Body::from(body));
    set(&mut response, header::CONTENT_TYPE, format.media_type());
    set(&mut response, header::ETAG, &etag);
    set(&mut response, header::CACHE_CONTROL, "public, max-age=3600");
    set(&mut response, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    response
}

fn set(response: &mut Response, name: header::HeaderName, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
}

fn problem(status: StatusCode, message: String) -> Response {
    let error = if status == StatusCode::NOT_FOUND {
        "not_found"
    } else {
        "bad_request"
    };
    let mut response = Response::new(Body::from(
        json!({"error": error, "message": message}).to_string(),
    ));
    *response.status_mut() = status;
    set(&mut response, header::CONTENT_TYPE, "application/json");
    set(&mut response, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    response
}
