//! Where a person or a notebook fetches the corpus' files: the server's public base URL (configuration,
//! `MCP_PUBLIC_URL`, default the listen address; never read from request headers) and the URLs and MCP
//! resource URIs built from it.

use std::sync::OnceLock;

use corpus::exports::Download;
use serde::Serialize;
use serde_json::{Value, json};

use crate::load::downloads::DownloadFile;

/// The base URL used until [`set_public_url`] is called (the default listen address).
pub const DEFAULT_PUBLIC_URL: &str = "http://127.0.0.1:8080";

/// The path prefix of the downloads API.
pub const API_PREFIX: &str = "/api/v1/";

/// The base URL of this process' links: `Some` for an HTTP server or a configured `MCP_PUBLIC_URL`, `None`
/// for a stdio server without one (nothing listens at the default address: links are the files' MCP
/// resource URIs, which the host reads through `resources/read`).
static PUBLIC_URL: OnceLock<Option<String>> = OnceLock::new();

/// Sets the public base URL of this process (`https://corpus.example.org`, no trailing slash needed);
/// the first call wins. Returns the URL in force.
pub fn set_public_url(url: &str) -> &'static str {
    PUBLIC_URL
        .get_or_init(|| Some(url.trim_end_matches('/').to_string()))
        .as_deref()
        .unwrap_or(DEFAULT_PUBLIC_URL)
}

/// Says this process serves no HTTP (stdio without `MCP_PUBLIC_URL`): links become MCP resource URIs
/// and sentences naming `just serve`, never a dead address. The first call of either setter wins.
pub fn set_no_public_url() {
    PUBLIC_URL.get_or_init(|| None);
}

/// Whether links point at an HTTP server (see [`set_no_public_url`]).
pub fn serves_http() -> bool {
    !matches!(PUBLIC_URL.get(), Some(None))
}

/// Whether the public URL is settled ([`set_public_url`] or [`set_no_public_url`] was called): from then on
/// every URL this module builds stays the same for the life of the process.
pub fn public_url_settled() -> bool {
    PUBLIC_URL.get().is_some()
}

/// The public base URL in force (no trailing slash); the default listen address when none is set.
pub fn public_url() -> &'static str {
    PUBLIC_URL
        .get()
        .and_then(Option::as_deref)
        .unwrap_or(DEFAULT_PUBLIC_URL)
}

/// The path part of the public base URL (`/corpus` for `https://example.org/corpus`; empty at a host's
/// root or without HTTP): what root-relative links of this server's pages start with.
pub fn public_path() -> &'static str {
    let url = public_url();
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme
        .find('/')
        .map_or("", |slash| &after_scheme[slash..])
}

/// Where a download is fetched: its HTTP URL (`{base}/api/v1/indicators/si_pov_gini.csv`), or, from a
/// stdio server without `MCP_PUBLIC_URL`, its MCP resource URI (`corpus://indicators/si_pov_gini.csv`).
pub fn download_url(download: &Download) -> String {
    if serves_http() {
        format!("{}{API_PREFIX}{}", public_url(), download.path)
    } else {
        download.resource_uri()
    }
}

/// The URL of a path of the downloads API (`changes.json`), or, without HTTP, where `just serve` serves it.
pub fn api_url(path: &str) -> String {
    if serves_http() {
        format!("{}{API_PREFIX}{path}", public_url())
    } else {
        format!("{API_PREFIX}{path} of `just serve` (set MCP_PUBLIC_URL to link it)")
    }
}

/// One file as an MCP resource (`resources/list` entries): uri, name, title, mimeType, size.
pub fn resource(file: &DownloadFile) -> Value {
    json!({
        "uri": file.download.resource_uri(),
        "name": file.download.file_name(),
        "title": resource_title(file),
        "mimeType": file.download.format.media_type(),
        "size": file.bytes,
    })
}

/// A file's title as a resource: the download's title and its format (`Life expectancy (csv)`).
fn resource_title(file: &DownloadFile) -> String {
    format!(
        "{} ({})",
        file.download.title,
        file.download.format.as_str()
    )
}

/// One file as a `resource_link` content item of a tool result, serialized: the resource, plus its
/// HTTP URL in the description (what an agent hands a person) and in `_meta.url`.
pub fn resource_link(file: &DownloadFile) -> String {
    let url = download_url(&file.download);
    ResourceLink {
        meta: UrlMeta { url: &url },
        description: &format!(
            "every country and year of `{}`, cited per row; download: {url} (other formats: {})",
            file.download.id,
            catalog_url()
        ),
        mime_type: file.download.format.media_type(),
        name: &file.download.file_name(),
        size: Some(file.bytes),
        title: &resource_title(file),
        kind: ResourceLinkType,
        uri: &file.download.resource_uri(),
    }
    .to_json()
}

/// A `resource_link` content item of a tool result (MCP `ResourceLink`), written straight to JSON.
#[derive(Debug, Serialize)]
pub struct ResourceLink<'a> {
    /// `{"url": …}`: the HTTP URL a gateway opens.
    #[serde(rename = "_meta")]
    pub meta: UrlMeta<'a>,
    /// What the resource is, for the model and the person.
    pub description: &'a str,
    /// Media type of the resource.
    #[serde(rename = "mimeType")]
    pub mime_type: &'a str,
    /// File name.
    pub name: &'a str,
    /// Size in bytes, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Title for a person.
    pub title: &'a str,
    /// `"resource_link"`.
    #[serde(rename = "type")]
    pub kind: ResourceLinkType,
    /// The resource's URI (`corpus://…`, or the page's URL).
    pub uri: &'a str,
}

/// The `_meta` of a [`ResourceLink`].
#[derive(Debug, Serialize)]
pub struct UrlMeta<'a> {
    /// HTTP URL.
    pub url: &'a str,
}

impl ResourceLink<'_> {
    /// The item as JSON text, keys in alphabetical order.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("strings and numbers serialize")
    }
}

/// The `type` of a [`ResourceLink`]: always `"resource_link"`.
#[derive(Debug, Clone, Copy)]
pub struct ResourceLinkType;

impl Serialize for ResourceLinkType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("resource_link")
    }
}

/// The URL of the downloads catalog (`{base}/api/v1/catalog`; without HTTP, where `just serve` has it).
pub fn catalog_url() -> String {
    api_url("catalog")
}

/// The path of the chart page that draws exactly one answer's chart:
/// `/chart/answer/{corpus_version}/{tool}?lang={lang}&arguments={the tool's arguments as JSON}`, the
/// arguments percent-encoded. The page calls `get_chart_data` with that tool and those arguments, as the
/// MCP App does, so it draws the same chart; the corpus version makes the URL immutable (another
/// corpus answers 410 with the current URL).
pub fn answer_chart_path(
    corpus_version: &str,
    tool: &str,
    arguments: &Value,
    lang: corpus::Lang,
) -> String {
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("lang", lang.as_str())
        .append_pair("arguments", &arguments.to_string())
        .finish();
    format!("/chart/answer/{corpus_version}/{tool}?{query}")
}

/// The URL of a page of this server (`/chart/…`) when links point at an HTTP server, else `None`
/// ([`set_no_public_url`]).
pub fn page_url(path: &str) -> Option<String> {
    serves_http().then(|| format!("{}{path}", public_url()))
}
