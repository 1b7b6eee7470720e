//! MCP resources over the analysts' files (`resources/list`, `resources/templates/list`, `resources/read`):
//! every listed download is a resource `corpus://indicator/{id}{suffix}`, `corpus://dataset/{id}{suffix}`,
//! `corpus://registry.xlsx` or `corpus://sdmx/structure.sdmx.xml`, with its media type and size.
//!
//! - `resources/list` pages [`PAGE_SIZE`] resources at a time; `nextCursor` is opaque (the offset). The
//!   first page starts with the Agent Skill [`SKILL_URI`] (the corpus' working rules for an agent, the
//!   repo's `plugins/lac-corpus/skills/lac-corpus/SKILL.md`); a client that negotiated MCP Apps finds the
//!   chart view `ui://lac-corpus/chart.html` before it ([`super::apps`]), which `resources/read` serves to
//!   anyone.
//! - `resources/read` answers `text` for CSV and XML, a base64 `blob` for XLSX, Parquet and gzip, up to
//!   [`MAX_INLINE_BYTES`]; a larger file is refused with its HTTP URL in the message and in `data.url`.
//! - An unknown URI is `-32002` (resource not found) with `data.uri`.

use base64::Engine as _;
use serde_json::{Value, json};

use super::rpc_error::{RpcError, codes};
use crate::{links, load::Corpus};

/// Resources per `resources/list` page.
pub const PAGE_SIZE: usize = 100;

/// The largest file `resources/read` inlines (2 MiB); larger ones are fetched over HTTP.
pub const MAX_INLINE_BYTES: u64 = 2 * 1024 * 1024;

/// The longest URI or cursor read (characters); longer ones are refused before any lookup.
pub const MAX_URI_CHARS: usize = 512;

/// The Agent Skill's resource URI: how an agent works with this corpus (resolve, then fetch; cite every
/// number; say when the corpus lacks it).
pub const SKILL_URI: &str = "corpus://skill/lac-corpus/SKILL.md";

/// The Agent Skill itself, as the Claude Code plugin of the repository ships it.
pub const SKILL: &str = include_str!("../../../plugins/lac-corpus/skills/lac-corpus/SKILL.md");

/// The Agent Skill's `resources/list` entry.
fn skill_listing() -> Value {
    json!({
        "uri": SKILL_URI,
        "name": "SKILL.md",
        "title": "Agent Skill: working with the lac-corpus server",
        "description": "The corpus' working rules for an agent: resolve, then fetch; cite every number; say when the corpus lacks it; common flows.",
        "mimeType": "text/markdown",
        "size": SKILL.len(),
    })
}

/// `resources/list`: one page of resources, from the offset in `params.cursor` (absent: the first page),
/// the chart view first on the first page for a client with `features.apps`.
///
/// # Errors
/// `-32602` for a cursor this server did not issue.
pub fn list(
    corpus: &Corpus,
    params: Option<&Value>,
    features: super::apps::ClientFeatures,
) -> Result<Value, RpcError> {
    let cursor = params.and_then(|params| params.get("cursor"));
    let offset = match cursor {
        None | Some(Value::Null) => 0,
        // Only the cursors this server issues: an offset in canonical decimal.
        Some(Value::String(text)) => text
            .parse::<usize>()
            .ok()
            .filter(|offset| text.len() <= 20 && offset.to_string() == *text)
            .ok_or_else(|| invalid_cursor(text))?,
        Some(other) => return Err(invalid_cursor(&other.to_string())),
    };
    let files = corpus.downloads().files();
    if offset > files.len() {
        return Err(invalid_cursor(&offset.to_string()));
    }
    // The chart view (for an Apps client) and the Agent Skill take the first page's first slots.
    let leading: Vec<Value> = if offset == 0 {
        (features.apps.then(super::apps::view_listing))
            .into_iter()
            .chain(std::iter::once(skill_listing()))
            .collect()
    } else {
        Vec::new()
    };
    let end = (offset + PAGE_SIZE - leading.len()).min(files.len());
    let resources: Vec<Value> = leading
        .into_iter()
        .chain(files[offset..end].iter().map(links::resource))
        .collect();
    let mut page = json!({ "resources": resources });
    if end < files.len() {
        page["nextCursor"] = Value::String(end.to_string());
    }
    Ok(page)
}

fn invalid_cursor(cursor: &str) -> RpcError {
    RpcError::new(
        codes::INVALID_PARAMS,
        format!(
            "invalid cursor `{}`: pass the nextCursor of the previous resources/list page, or none for the first",
            crate::text::snippet(cursor)
        ),
    )
}

/// `resources/templates/list`: the URI templates of indicator and dataset files, one per format.
pub fn templates() -> Value {
    use corpus::exports::{DATASET_FORMATS, Format, INDICATOR_FORMATS, Subject};
    let per = |subject: Subject, formats: &[Format], what: &str| -> Vec<Value> {
        formats
            .iter()
            .map(|format| {
                json!({
                    "uriTemplate": format!("{}{{id}}{}", subject.uri_prefix(), format.suffix()),
                    "name": format!("{}-{}", subject.as_str(), format.as_str()),
                    "title": format!("{what}, {}", format.as_str()),
                    "description": format!(
                        "{what} `{{id}}` as {} ({}); ids: search_corpus or {}",
                        format.as_str(), format.media_type(), links::catalog_url()
                    ),
                    "mimeType": format.media_type(),
                })
            })
            .collect()
    };
    let mut templates = per(
        Subject::Indicator,
        &INDICATOR_FORMATS,
        "Indicator (metric id, e.g. si_pov_gini), all countries and years",
    );
    templates.extend(per(
        Subject::Dataset,
        &DATASET_FORMATS,
        "Whole dataset (e.g. observations, series_stats)",
    ));
    json!({ "resourceTemplates": templates })
}

/// `resources/read`: the content of `params.uri`.
///
/// # Errors
/// `-32602` without a string `uri` or for a file over [`MAX_INLINE_BYTES`] (the message and `data.url`
/// give its HTTP URL); `-32002` with `data.uri` for an unknown URI; `-32603` if the file cannot be read.
pub fn read(corpus: &Corpus, params: Option<&Value>) -> Result<Value, RpcError> {
    let Some(uri) = params
        .and_then(|params| params.get("uri"))
        .and_then(Value::as_str)
    else {
        return Err(RpcError::new(
            codes::INVALID_PARAMS,
            "resources/read params.uri must be a string, e.g. corpus://indicator/si_pov_gini.csv"
                .into(),
        ));
    };
    if let Some(view) = super::apps::read(uri) {
        return Ok(view);
    }
    if uri == SKILL_URI {
        return Ok(
            json!({"contents": [{"uri": SKILL_URI, "mimeType": "text/markdown", "text": SKILL}]}),
        );
    }
    let shown = crate::text::snippet(uri);
    let file = (uri.len() <= MAX_URI_CHARS)
        .then(|| corpus.downloads().by_uri(uri))
        .flatten()
        .ok_or_else(|| RpcError {
            code: codes::RESOURCE_NOT_FOUND,
            message: if uri.get(..3).is_some_and(|scheme| scheme.eq_ignore_ascii_case("ui:")) {
                format!(
                    "resource not found: `{shown}`; the one UI resource is {}",
                    super::apps::CHART_VIEW_URI
                )
            } else {
                format!(
                    "resource not found: `{shown}`; resources/list and resources/templates/list give the valid URIs (e.g. corpus://indicator/si_pov_gini.csv)"
                )
            },
            data: Some(json!({ "uri": shown })),
        })?;
    let url = links::api_url(&file.download.path);
    if file.bytes > MAX_INLINE_BYTES {
        return Err(RpcError {
            code: codes::INVALID_PARAMS,
            message: format!(
                "resource `{shown}` has {} bytes, more than the {MAX_INLINE_BYTES} inlined: fetch it over HTTP at {url}",
                file.bytes
            ),
            data: Some(
                json!({ "uri": shown, "url": url, "bytes": file.bytes, "max_inline_bytes": MAX_INLINE_BYTES }),
            ),
        });
    }
    let content = file
        .content()
        .map_err(|message| RpcError::new(codes::INTERNAL_ERROR, message))?;
    let mut item = json!({
        "uri": file.download.resource_uri(),
        "mimeType": file.download.format.media_type(),
    });
    if file.download.format.is_text() {
        let text = std::str::from_utf8(&content).map_err(|_| {
            RpcError::new(
                codes::INTERNAL_ERROR,
                format!("resource `{shown}` is not UTF-8"),
            )
        })?;
        item["text"] = Value::String(text.to_string());
    } else {
        item["blob"] = Value::String(base64::engine::general_purpose::STANDARD.encode(&content));
    }
    Ok(json!({ "contents": [item] }))
}
