//! The downloads API, `GET`/`HEAD /api/v1/…`, and the catalog page `GET /`: public files of the corpus served, outside the MCP gate, body
//! cap and rate limit (they are static, cacheable files).
//!
//! - `/api/v1/catalog` (and `/api/v1/`): JSON, every indicator and dataset with its files (format, URL,
//!   media type, bytes, sha256), licence, and the corpus version.
//! - `/api/v1/{path}` for each listed path (`indicators/si_pov_gini.csv`, `datasets/observations.parquet`,
//!   `registry.xlsx`, `sdmx/structure.sdmx.xml`): the file, memory-mapped once and sent without a copy,
//!   with `Content-Type`, `Content-Disposition`, a strong `ETag` (its sha256), `Last-Modified` (when the
//!   corpus was published), `Cache-Control: no-cache` (revalidate: the corpus may be swapped), `Accept-Ranges`.
//!   `If-None-Match` (or, without it, `If-Modified-Since`) → 304; one `Range: bytes=…` → 206 (`If-Range`
//!   honoured; several ranges → the whole file); a range past the end → 416 with `Content-Range: bytes */len`.
//!   `?bom=1` on a CSV file: the same file after a UTF-8 byte order mark (for Excel), its own `ETag`
//!   (`"{sha256}-bom"`); on any other file, or another value, 400 naming it.
//! - Anything else is 404 with a JSON body naming the catalog URL and, for a known id in another format, the
//!   formats it has. Only listed paths resolve: no request input is ever joined to a file path.

use std::{collections::HashMap, sync::Arc, time::SystemTime};

use axum::{
    body::Body,
    extract::{Query, Request, State},
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
};
use bytes::Bytes;
use corpus::{
    Lang,
    exports::{Format, Subject},
};
use serde_json::{Value, json};

use super::http_state::HttpState;
use crate::{catalog, links, load::Corpus};

/// `GET`/`HEAD /api/v1/catalog`, `/api/v1/` and `/api/v1`: the JSON catalog, rendered once per corpus
/// (off the async workers), with an `ETag` of the corpus version.
pub async fn get_catalog(
    State(state): State<Arc<HttpState>>,
    method: Method,
    headers: HeaderMap,
) -> Response {
    let server = state.server();
    let built = tokio::task::spawn_blocking(move || {
        let corpus = server.plugin().corpus();
        let bytes = catalog::rendered(corpus, "catalog.json", || {
            Ok::<_, std::convert::Infallible>(Bytes::from(
                catalog::catalog_json(corpus).to_string(),
            ))
        });
        (
            bytes,
            corpus.baked.manifest().corpus_version.clone(),
            corpus.downloads().published,
        )
    })
    .await;
    let Ok((Ok(bytes), version, published)) = built else {
        return unavailable();
    };
    rendered_response(
        &method,
        &headers,
        bytes,
        &format!("\"catalog-{version}\""),
        published,
        "application/json",
    )
}

/// `GET`/`HEAD /`: the catalog page ([`catalog::page`]) for `?lang=` and `?q=` (cut to
/// [`catalog::page::MAX_QUERY_CHARS`] before any work), rendered off the async workers; the unfiltered page
/// of each language is rendered once per corpus and carries an `ETag`.
pub async fn get_page(
    State(state): State<Arc<HttpState>>,
    method: Method,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let lang = query
        .get("lang")
        .map_or(Lang::Es, |text| Lang::parse_or_default(text));
    let search: String = query
        .get("q")
        .map(|text| {
            text.trim()
                .chars()
                .take(catalog::page::MAX_QUERY_CHARS)
                .collect()
        })
        .unwrap_or_default();
    let server = state.server();
    let unfiltered = search.is_empty();
    let built = tokio::task::spawn_blocking(move || {
        let corpus = server.plugin().corpus();
        let render = || catalog::page::render(corpus, lang, &search).map(Bytes::from);
        let bytes = if unfiltered {
            catalog::rendered(corpus, &format!("page-{lang:?}"), render)
        } else {
            render()
        };
        (
            bytes,
            corpus.baked.manifest().corpus_version.clone(),
            corpus.downloads().published,
        )
    })
    .await;
    let (bytes, version, published) = match built {
        Ok((Ok(bytes), version, published)) => (bytes, version, published),
        Ok((Err(error), _, _)) => {
            tracing::error!(%error, "the catalog page did not render");
            return unavailable();
        }
        Err(_) => return unavailable(),
    };
    let content_type = "text/html; charset=utf-8";
    if !unfiltered {
        return rendered_response(&method, &HeaderMap::new(), bytes, "", None, content_type);
    }
    let etag = format!("\"page-{lang:?}-{version}\"").to_lowercase();
    rendered_response(&method, &headers, bytes, &etag, published, content_type)
}

/// The `Content-Security-Policy` of a chart page: its inline scripts and styles and the vendored
/// scripts from this server ([`get_asset`]), nothing else fetched, no `eval` (vega runs its expression
/// interpreter), no framing.
pub const CHART_PAGE_POLICY: &str = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `GET`/`HEAD /assets/{name}`: the chart pages' vendored scripts as one file
/// ([`super::apps::vendor_script`], at [`super::apps::vendor_script_path`]), immutable under its
/// content-hashed name (`Cache-Control: public, max-age=31536000, immutable`, an `ETag`, 304 on
/// revalidation), so a browser fetches it once for every chart page; an earlier hash (a page cached
/// before an upgrade) gets today's scripts with `no-cache`; any other name is 404.
pub async fn get_asset(
    method: Method,
    headers: HeaderMap,
    axum::extract::Path(name): axum::extract::Path<String>,
) -> Response {
    let path = super::apps::vendor_script_path();
    let current = path.strip_prefix("/assets/") == Some(name.as_str());
    // A page cached before an upgrade names the scripts of its day: it is served today's (the same
    // packages' API), revalidated each time rather than cached as immutable under that name.
    let earlier = !current
        && name
            .strip_prefix("chart-vendor-")
            .and_then(|rest| rest.strip_suffix(".js"))
            .is_some_and(|hash| {
                hash.len() == 16 && hash.bytes().all(|byte| byte.is_ascii_hexdigit())
            });
    if !current && !earlier {
        return problem(
            StatusCode::NOT_FOUND,
            json!({
                "error": "not_found",
                "message": format!("no asset `{}`; this server has {path}", crate::text::snippet(&name)),
            }),
        );
    }
    // The validator names the content served: today's scripts, whatever name asked for them.
    let etag = format!(
        "\"{}\"",
        path.trim_start_matches("/assets/").trim_end_matches(".js")
    );
    let mut response = if not_modified(&headers, &etag, None) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let gzip = accepts_gzip(&headers);
        let script = if gzip {
            vendor_script_gzip()
        } else {
            Bytes::from_static(super::apps::vendor_script().as_bytes())
        };
        let length = script.len() as u64;
        let mut response = body_response(&method, script, length);
        insert(
            &mut response,
            header::CONTENT_TYPE,
            "text/javascript; charset=utf-8",
        );
        if gzip {
            insert(&mut response, header::CONTENT_ENCODING, "gzip");
        }
        response
    };
    insert(&mut response, header::VARY, "Accept-Encoding");
    insert(
        &mut response,
        header::CACHE_CONTROL,
        if current {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        },
    );
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response
}

/// [`super::apps::vendor_script`] gzipped once (best compression), for every client that accepts gzip.
fn vendor_script_gzip() -> Bytes {
    static GZIP: std::sync::LazyLock<Bytes> = std::sync::LazyLock::new(|| {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        // Writing into a Vec cannot fail.
        let _ = encoder.write_all(super::apps::vendor_script().as_bytes());
        Bytes::from(encoder.finish().unwrap_or_default())
    });
    GZIP.clone()
}

/// Whether `Accept-Encoding` admits gzip (named, or `*`, without `q=0`).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or("").to_ascii_lowercase();
            let refused = parts.any(|parameter| {
                parameter
                    .strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            });
            (name == "gzip" || name == "*") && !refused
        })
}

/// `GET`/`HEAD /chart/{indicator}`: the indicator's chart page ([`catalog::chart`]) for `?lang=` and
/// `?countries=` (cut to [`catalog::chart::MAX_COUNTRIES_CHARS`] before any work), built off the async
/// workers, under [`CHART_PAGE_POLICY`], with an `ETag` of the corpus version and the request (so a
/// revalidation costs no work: 304); 404 for an unknown indicator and 400 for another bad parameter, each
/// naming what would be valid.
pub async fn get_chart_page(
    State(state): State<Arc<HttpState>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    axum::extract::Path(indicator): axum::extract::Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let lang = query
        .get("lang")
        .map_or(Lang::Es, |text| Lang::parse_or_default(text));
    let countries: Option<String> = query.get("countries").map(|text| {
        text.chars()
            .take(catalog::chart::MAX_COUNTRIES_CHARS)
            .collect()
    });
    // One character past the longest id the tools accept, so that a longer one is still refused by name.
    let indicator: String = indicator.chars().take(129).collect();
    let server = state.server();
    let etag = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        (&indicator, lang.as_str(), &countries).hash(&mut hasher);
        let version = &server.plugin().corpus().baked.manifest().corpus_version;
        format!("\"chart-{version}-{:016x}\"", hasher.finish())
    };
    let client = state.client(&headers, &extensions);
    chart_page_response(&state, client, &headers, &etag, "no-cache", move || {
        catalog::chart::page(server.plugin(), &indicator, countries.as_deref(), lang)
    })
    .await
}

/// `GET`/`HEAD /chart/answer/{corpus_version}/{tool}?lang=…&arguments=…`: the chart page of one answer
/// ([`catalog::chart::answer_page`], the link every charting answer carries), immutable under its
/// corpus version (`Cache-Control: public, max-age=31536000, immutable`, an `ETag`); another corpus'
/// version is 410 naming this corpus' URL of the same chart, an unknown tool 404, bad arguments 400.
pub async fn get_answer_chart_page(
    State(state): State<Arc<HttpState>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    axum::extract::Path((version, tool)): axum::extract::Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let lang = query
        .get("lang")
        .map_or(Lang::Es, |text| Lang::parse_or_default(text));
    // One character past the cap, so that a longer parameter is still refused by its length.
    let arguments: String = query.get("arguments").map_or_else(
        || "{}".to_string(),
        |text| {
            text.chars()
                .take(catalog::chart::MAX_ARGUMENTS_CHARS + 1)
                .collect()
        },
    );
    let server = state.server();
    let current = server
        .plugin()
        .corpus()
        .baked
        .manifest()
        .corpus_version
        .clone();
    if version != current {
        let arguments: Value = serde_json::from_str(&arguments).unwrap_or_else(|_| json!({}));
        let tool: String = tool.chars().take(64).collect();
        let path = crate::links::answer_chart_path(&current, &tool, &arguments, lang);
        return problem(
            StatusCode::GONE,
            json!({
                "error": "gone",
                "message": format!(
                    "this chart was drawn from corpus {}; the server now holds corpus {current}, whose chart of the same answer is at {path}",
                    crate::text::snippet(&version)
                ),
                "current": path,
            }),
        );
    }
    let etag = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        (&tool, lang.as_str(), &arguments).hash(&mut hasher);
        format!("\"answer-chart-{current}-{:016x}\"", hasher.finish())
    };
    let client = state.client(&headers, &extensions);
    chart_page_response(
        &state,
        client,
        &headers,
        &etag,
        "public, max-age=31536000, immutable",
        move || catalog::chart::answer_page(server.plugin(), &tool, &arguments, lang),
    )
    .await
}

/// A chart page's response: 304 when the client holds `etag`, else the page `build` makes off the async
/// workers (holding a slot of the cap on calls in flight, as a tool call does: a page runs
/// `get_chart_data`), under [`CHART_PAGE_POLICY`], with `nosniff`, `cache_control` and the `ETag`; the
/// page's errors as 404, 400 or 503 (a fault, logged; or the cap reached, with `Retry-After`).
async fn chart_page_response(
    state: &HttpState,
    client: Option<std::net::IpAddr>,
    headers: &HeaderMap,
    etag: &str,
    cache_control: &'static str,
    build: impl FnOnce() -> Result<[Bytes; 3], catalog::chart::ChartPageError> + Send + 'static,
) -> Response {
    if not_modified(headers, etag, None) {
        let mut response = StatusCode::NOT_MODIFIED.into_response();
        if let Ok(value) = HeaderValue::from_str(etag) {
            response.headers_mut().insert(header::ETAG, value);
        }
        return response;
    }
    let slot = match state
        .in_flight
        .acquire_waiting(client, super::in_flight::QUEUE_WAIT)
        .await
    {
        Ok(slot) => slot,
        Err(busy) => {
            let mut response = problem(
                StatusCode::SERVICE_UNAVAILABLE,
                json!({
                    "error": "busy",
                    "message": format!(
                        "server busy ({} cap on work in flight reached); retry after 1 s",
                        busy.label()
                    ),
                }),
            );
            insert(&mut response, header::RETRY_AFTER, "1");
            return response;
        }
    };
    let built = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        build()
    })
    .await;
    use catalog::chart::ChartPageError;
    match built {
        Ok(Ok(chunks)) => {
            let mut response = Response::new(Body::new(super::chunks::Chunks::new(chunks)));
            let headers = response.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            headers.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CHART_PAGE_POLICY),
            );
            headers.insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            headers.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static(cache_control),
            );
            if let Ok(value) = HeaderValue::from_str(etag) {
                headers.insert(header::ETAG, value);
            }
            response
        }
        Ok(Err(ChartPageError::UnknownIndicator(message))) => problem(
            StatusCode::NOT_FOUND,
            json!({"error": "not_found", "message": message}),
        ),
        Ok(Err(ChartPageError::Invalid(message))) => problem(
            StatusCode::BAD_REQUEST,
            json!({"error": "invalid", "message": message}),
        ),
        Ok(Err(ChartPageError::Internal(error))) => {
            tracing::error!(%error, "a chart page did not render");
            unavailable()
        }
        Err(_) => unavailable(),
    }
}

/// A rendered body (catalog or page): 304 when the client's copy is current, else the bytes (none for
/// `HEAD`), with `ETag` (when not empty), `Last-Modified` and `Cache-Control: no-cache`.
fn rendered_response(
    method: &Method,
    headers: &HeaderMap,
    bytes: Bytes,
    etag: &str,
    published: Option<SystemTime>,
    content_type: &'static str,
) -> Response {
    let length = bytes.len() as u64;
    let mut response = if !etag.is_empty() && not_modified(headers, etag, published) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = body_response(method, bytes, length);
        insert(&mut response, header::CONTENT_TYPE, content_type);
        response
    };
    if !etag.is_empty() {
        validators(&mut response, etag, published);
    }
    insert(&mut response, header::CACHE_CONTROL, "no-cache");
    response
}

/// The validators of a response: `ETag`, and `Last-Modified` when the publication time is known.
fn validators(response: &mut Response, etag: &str, published: Option<SystemTime>) {
    insert(response, header::ETAG, etag);
    if let Some(published) = published {
        insert(
            response,
            header::LAST_MODIFIED,
            &httpdate::fmt_http_date(published),
        );
    }
}

fn unavailable() -> Response {
    problem(
        StatusCode::SERVICE_UNAVAILABLE,
        json!({"error": "unavailable", "message": "this cannot be rendered now; try again"}),
    )
}

/// Bytes `start..stop` of a file served with `bom_bytes` of UTF-8 BOM before it (0 or 3): the BOM's
/// part of the range, then the file's, read from disk.
///
/// # Errors
/// As [`crate::load::downloads::DownloadFile::content_range`].
fn with_bom_range(
    file: &crate::load::downloads::DownloadFile,
    bom_bytes: u64,
    start: u64,
    stop: u64,
) -> Result<Bytes, String> {
    let mut bytes = Vec::with_capacity((stop - start) as usize);
    if start < bom_bytes {
        bytes.extend_from_slice(&UTF8_BOM[start as usize..stop.min(bom_bytes) as usize]);
    }
    let (file_start, file_stop) = (
        start.max(bom_bytes) - bom_bytes,
        stop.saturating_sub(bom_bytes),
    );
    if file_stop > file_start {
        bytes.extend_from_slice(&file.content_range(file_start, file_stop - 1)?);
    }
    Ok(Bytes::from(bytes))
}

/// `GET`/`HEAD /api/v1/{*path}`: a listed file, or 404.
pub async fn get_file(State(state): State<Arc<HttpState>>, request: Request) -> Response {
    let (method, headers) = (request.method().clone(), request.headers().clone());
    // The path as sent, not percent-decoded: listed paths are plain ASCII, so an encoded name
    // (`indicators%2fx.csv`, `%2e%2e`) is simply not one of them, and each file has one URL.
    let path = request
        .uri()
        .path()
        .strip_prefix(links::API_PREFIX)
        .unwrap_or_default();
    let server = state.server();
    let corpus = server.plugin().corpus();
    let Some(file) = corpus.downloads().by_path(path) else {
        return not_found(corpus, path);
    };
    let with_bom = match wants_bom(request.uri().query(), file.download.format) {
        Ok(with_bom) => with_bom,
        Err(message) => {
            return problem(
                StatusCode::BAD_REQUEST,
                json!({"error": "bad_request", "message": message}),
            );
        }
    };
    let etag = if with_bom {
        format!("\"{}-bom\"", file.sha256)
    } else {
        format!("\"{}\"", file.sha256)
    };
    let published = corpus.downloads().published;
    let bom_bytes = if with_bom { UTF8_BOM.len() as u64 } else { 0 };
    let total = file.bytes + bom_bytes;
    let range = requested_range(&headers, &etag, total);
    let unchanged = not_modified(&headers, &etag, published);
    // The bytes the answer sends, read off the async workers: the whole file (after the BOM), or only
    // the range asked for. HEAD and 304 read nothing.
    let read = match (&range, unchanged || method == Method::HEAD) {
        (_, true) | (RangeRequest::Unsatisfiable, _) => None,
        (RangeRequest::Whole, false) => Some((0, total)),
        (RangeRequest::Part(start, end), false) => Some((*start, *end + 1)),
    };
    let content = match read {
        None => Ok(Bytes::new()),
        Some((start, stop)) => {
            let server = server.clone();
            let path = path.to_string();
            tokio::task::spawn_blocking(move || {
                let corpus = server.plugin().corpus();
                let file = corpus
                    .downloads()
                    .by_path(&path)
                    .ok_or_else(|| format!("{path} is no longer listed"))?;
                with_bom_range(file, bom_bytes, start, stop)
            })
            .await
            .unwrap_or_else(|_| Err("the read of a download stopped".to_string()))
        }
    };
    let content = match content {
        Ok(content) => content,
        Err(message) => {
            tracing::error!(%message, "a listed download cannot be read");
            return unavailable();
        }
    };
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        match range {
            RangeRequest::Whole => {
                let mut response = body_response(&method, content, total);
                *response.status_mut() = StatusCode::OK;
                response
            }
            RangeRequest::Part(start, end) => {
                let mut response = body_response(&method, content, end - start + 1);
                *response.status_mut() = StatusCode::PARTIAL_CONTENT;
                insert(
                    &mut response,
                    header::CONTENT_RANGE,
                    &format!("bytes {start}-{end}/{total}"),
                );
                response
            }
            RangeRequest::Unsatisfiable => {
                let mut response = problem(
                    StatusCode::RANGE_NOT_SATISFIABLE,
                    json!({
                        "error": "range_not_satisfiable",
                        "message": format!("the file has {total} bytes: a range must start before byte {total}"),
                        "bytes": total,
                    }),
                );
                insert(
                    &mut response,
                    header::CONTENT_RANGE,
                    &format!("bytes */{total}"),
                );
                return response;
            }
        }
    };
    validators(&mut response, &etag, published);
    insert(&mut response, header::CACHE_CONTROL, "no-cache");
    insert(&mut response, header::ACCEPT_RANGES, "bytes");
    insert(
        &mut response,
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        EXPOSED_HEADERS,
    );
    if response.status() != StatusCode::NOT_MODIFIED {
        insert(
            &mut response,
            header::CONTENT_TYPE,
            file.download.format.media_type(),
        );
        insert(
            &mut response,
            header::CONTENT_DISPOSITION,
            &format!("attachment; filename=\"{}\"", file.download.file_name()),
        );
    }
    response
}

/// The UTF-8 byte order mark `?bom=1` puts before a CSV, so Excel opening the file by double-click reads
/// it as UTF-8 ("Curaçao", not "CuraÃ§ao") whatever the system's locale.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Whether the query asks for the file with a byte order mark (`bom=1` or `bom=true`; `bom=0`, `bom=false`
/// or no `bom` for the file as published). Only CSV files take one.
///
/// # Errors
/// A message naming the value or the format when `bom` is not one of those values or the file is not CSV.
fn wants_bom(query: Option<&str>, format: Format) -> Result<bool, String> {
    let Some(value) = query
        .into_iter()
        .flat_map(|query| query.split('&'))
        .find_map(|pair| pair.strip_prefix("bom=").or((pair == "bom").then_some("1")))
    else {
        return Ok(false);
    };
    let wanted = match value {
        "1" | "true" => true,
        "0" | "false" => false,
        other => {
            let shown: String = other.chars().take(40).collect();
            return Err(format!(
                "bom={shown} is not a valid value: use bom=1 (or true) for a CSV with a UTF-8 byte order mark, for Excel, or bom=0 (or false)"
            ));
        }
    };
    let csv = matches!(
        format,
        Format::Csv | Format::WideCsv | Format::SdmxCsv | Format::SdmxCsv1
    );
    if wanted && !csv {
        return Err(format!(
            "bom=1 applies to CSV files only (.csv, .wide.csv, .sdmx.csv, .sdmx1.csv); this file is {}",
            format.as_str()
        ));
    }
    Ok(wanted)
}

/// A response carrying `content` (or, for `HEAD`, only its length).
fn body_response(method: &Method, content: bytes::Bytes, length: u64) -> Response {
    let mut response = if method == Method::HEAD {
        Response::new(Body::empty())
    } else {
        Response::new(Body::from(content))
    };
    response
        .headers_mut()
        .insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    response
}

fn insert(response: &mut Response, name: header::HeaderName, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
}

/// Whether the client's copy is current: `If-None-Match` lists this ETag (or `*`); without that header,
/// `If-Modified-Since` is at or after the publication time.
fn not_modified(headers: &HeaderMap, etag: &str, published: Option<SystemTime>) -> bool {
    if let Some(value) = headers.get(header::IF_NONE_MATCH) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        return value
            .split(',')
            .map(str::trim)
            .any(|tag| tag == "*" || tag == etag || tag.strip_prefix("W/") == Some(etag));
    }
    let since = headers
        .get(header::IF_MODIFIED_SINCE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| httpdate::parse_http_date(value).ok());
    match (since, published) {
        // HTTP dates have whole seconds: compare at that precision.
        (Some(since), Some(published)) => httpdate::HttpDate::from(published) <= since.into(),
        _ => false,
    }
}

/// What a `Range` header asks of a file of `total` bytes.
#[derive(Debug, PartialEq, Eq)]
enum RangeRequest {
    /// No range, an unparseable one, several ranges, or an `If-Range` that does not match: the whole file.
    Whole,
    /// Bytes `start..=end`.
    Part(u64, u64),
    /// A range that starts at or past the end.
    Unsatisfiable,
}

/// Parses one `bytes=start-end`, `bytes=start-` or `bytes=-suffix` range (RFC 9110 §14.1.2). Anything
/// that is not exactly one such range (other units, several ranges, signs, stray characters, `end <
/// start`) is ignored (the whole file), as the RFC allows; numbers too large for 64 bits are as large
/// as can be (a start past any end, an end or suffix covering the whole file).
fn requested_range(headers: &HeaderMap, etag: &str, total: u64) -> RangeRequest {
    let Some(range) = headers
        .get(header::RANGE)
        .and_then(|value| value.to_str().ok())
    else {
        return RangeRequest::Whole;
    };
    if let Some(if_range) = headers.get(header::IF_RANGE)
        && if_range.to_str().ok().map(str::trim) != Some(etag)
    {
        return RangeRequest::Whole;
    }
    let Some(spec) = range.trim().strip_prefix("bytes=") else {
        return RangeRequest::Whole;
    };
    let Some((first, last)) = spec.trim().split_once('-') else {
        return RangeRequest::Whole;
    };
    let (first, last) = (first.trim(), last.trim());
    let number = |text: &str| -> Option<u64> {
        (!text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()))
            .then(|| text.parse::<u64>().unwrap_or(u64::MAX))
    };
    match (number(first), number(last)) {
        // `-suffix`: the last `suffix` bytes.
        (None, Some(suffix)) if first.is_empty() => {
            if suffix == 0 || total == 0 {
                RangeRequest::Unsatisfiable
            } else {
                RangeRequest::Part(total.saturating_sub(suffix), total - 1)
            }
        }
        (Some(start), end) if last.is_empty() || end.is_some() => match end {
            Some(end) if end < start => RangeRequest::Whole,
            _ if start >= total => RangeRequest::Unsatisfiable,
            Some(end) => RangeRequest::Part(start, end.min(total - 1)),
            None => RangeRequest::Part(start, total - 1),
        },
        _ => RangeRequest::Whole,
    }
}

/// 404 for a path that is not listed: names the catalog and, when the id is known in other formats, those.
fn not_found(corpus: &Corpus, path: &str) -> Response {
    let shown: String = path.chars().take(120).collect();
    let name = shown.split('/').next_back().unwrap_or("");
    // The id is the name less a known suffix (`SI.POV.GINI.csv` → `SI.POV.GINI`), else up to the first dot.
    let id = Format::ALL
        .iter()
        .filter_map(|format| name.strip_suffix(format.suffix()))
        .min_by_key(|id| id.len())
        .unwrap_or_else(|| name.split('.').next().unwrap_or(""));
    let subjects = [Subject::Indicator, Subject::Dataset];
    let available: Vec<String> = subjects
        .into_iter()
        .flat_map(|subject| corpus.downloads().of(subject, id))
        .map(|file| links::download_url(&file.download))
        .collect();
    let closest_of: Vec<(Subject, &str)> = if available.is_empty() {
        subjects
            .into_iter()
            .flat_map(|subject| {
                corpus
                    .downloads()
                    .closest_ids(subject, id, 3)
                    .into_iter()
                    .map(move |id| (subject, id))
            })
            .take(3)
            .collect()
    } else {
        Vec::new()
    };
    let closest: Vec<&str> = closest_of.iter().map(|(_, id)| *id).collect();
    // The first file of the closest id, under its own subject's path (`datasets/observations.csv.gz`).
    let example = closest_of.first().and_then(|(subject, id)| {
        corpus
            .downloads()
            .of(*subject, id)
            .next()
            .map(|file| file.download.path.clone())
    });
    let message = if !available.is_empty() {
        format!("no file `{shown}`: `{id}` is available as the files listed in `available`")
    } else if !closest.is_empty() {
        format!(
            "no file `{shown}`: no id `{id}`; closest ids: {} (e.g. {}); {} lists every file",
            closest.join(", "),
            example.unwrap_or_default(),
            links::catalog_url()
        )
    } else {
        format!(
            "no file `{shown}`: the files are indicators/{{id}}{{.csv|.wide.csv|.xlsx|.parquet|.sdmx.xml|.sdmx.csv|.sdmx1.csv|.zip}}, datasets/{{id}}{{.csv.gz|.parquet|.datapackage.json}}, registry.xlsx, sdmx/structure.sdmx.xml, datapackage.json and croissant.json; {} lists every one",
            links::catalog_url()
        )
    };
    problem(
        StatusCode::NOT_FOUND,
        json!({
            "error": "not_found",
            "message": message,
            "catalog": links::catalog_url(),
            "available": available,
            "closest_ids": closest,
        }),
    )
}

/// Headers a browser script may read from a download (CORS).
const EXPOSED_HEADERS: &str =
    "ETag, Last-Modified, Content-Range, Content-Disposition, Content-Length, Accept-Ranges";

/// `OPTIONS` on the downloads API: the CORS preflight of a browser script's GET with conditional or
/// range headers (the origin itself is answered by the router's CORS layer).
pub async fn preflight() -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    insert(&mut response, header::ALLOW, "GET, HEAD, OPTIONS");
    insert(
        &mut response,
        header::ACCESS_CONTROL_ALLOW_METHODS,
        "GET, HEAD",
    );
    insert(
        &mut response,
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        "Range, If-None-Match, If-Modified-Since, If-Range",
    );
    insert(&mut response, header::ACCESS_CONTROL_MAX_AGE, "86400");
    response
}

/// `405` for a method other than GET and HEAD on the downloads API, the catalog page and `/metrics`.
pub async fn method_not_allowed() -> Response {
    let mut response = problem(
        StatusCode::METHOD_NOT_ALLOWED,
        json!({"error": "method_not_allowed", "message": "the catalog page, the downloads API and /metrics are read-only: use GET or HEAD"}),
    );
    insert(&mut response, header::ALLOW, "GET, HEAD");
    response
}

/// 404 for a path outside every route, naming what exists.
pub async fn unknown_path() -> Response {
    problem(
        StatusCode::NOT_FOUND,
        json!({
            "error": "not_found",
            "message": format!(
                "no such path: the catalog page is /, an indicator's chart /chart/{{indicator}}, an answer's chart /chart/answer/{{corpus_version}}/{{tool}}, the downloads API {} (catalog at {}), MCP at /api/mcp",
                links::API_PREFIX, links::catalog_url()
            ),
        }),
    )
}

fn problem(status: StatusCode, body: Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(value: &str, total: u64) -> RangeRequest {
        let mut headers = HeaderMap::new();
        headers.insert(header::RANGE, HeaderValue::from_str(value).unwrap());
        requested_range(&headers, "\"abc\"", total)
    }

    #[test]
    fn ranges_follow_rfc_9110() {
        assert_eq!(range("bytes=0-9", 100), RangeRequest::Part(0, 9));
        assert_eq!(range("bytes=90-", 100), RangeRequest::Part(90, 99));
        assert_eq!(range("bytes=-10", 100), RangeRequest::Part(90, 99));
        assert_eq!(range("bytes=-500", 100), RangeRequest::Part(0, 99));
        assert_eq!(range("bytes=50-5000", 100), RangeRequest::Part(50, 99));
        assert_eq!(range("bytes=100-", 100), RangeRequest::Unsatisfiable);
        assert_eq!(range("bytes=-0", 100), RangeRequest::Unsatisfiable);
        assert_eq!(range("bytes=0-1,5-6", 100), RangeRequest::Whole);
        assert_eq!(range("bytes=9-3", 100), RangeRequest::Whole);
        assert_eq!(range("bytes=100000-5", 100), RangeRequest::Whole);
        assert_eq!(range("items=0-3", 100), RangeRequest::Whole);
        // Malformed ranges are ignored, not refused.
        for malformed in [
            "bytes=-5-3",
            "bytes=--5",
            "bytes=-",
            "bytes=+5-9",
            "bytes=5",
            "bytes=a-b",
        ] {
            assert_eq!(range(malformed, 100), RangeRequest::Whole, "{malformed}");
        }
        // Numbers past 64 bits are as large as can be.
        assert_eq!(
            range("bytes=-99999999999999999999", 100),
            RangeRequest::Part(0, 99)
        );
        assert_eq!(
            range("bytes=0-99999999999999999999", 100),
            RangeRequest::Part(0, 99)
        );
        assert_eq!(
            range("bytes=99999999999999999999-", 100),
            RangeRequest::Unsatisfiable
        );
    }

    #[test]
    fn if_range_with_another_etag_asks_for_the_whole_file() {
        let mut headers = HeaderMap::new();
        headers.insert(header::RANGE, HeaderValue::from_static("bytes=0-9"));
        headers.insert(header::IF_RANGE, HeaderValue::from_static("\"other\""));
        assert_eq!(
            requested_range(&headers, "\"abc\"", 100),
            RangeRequest::Whole
        );
    }
}
