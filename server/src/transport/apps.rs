//! The MCP Apps extension (`io.modelcontextprotocol/ui`, stable revision 2026-01-26): the chart view
//! `ui://lac-corpus/chart.html` and what a client that negotiated the extension sees besides.
//!
//! **Negotiation.** A client advertises the extension in `initialize`
//! (`capabilities.extensions["io.modelcontextprotocol/ui"]`, or under `experimental` as early hosts
//! did, with `mimeTypes` naming [`RESOURCE_MIME_TYPE`] or absent); the server then declares it back in its
//! own `capabilities.extensions`. Such a client ([`ClientFeatures::apps`]) gets:
//! - in `tools/list`: `_meta.ui.resourceUri` (and the older flat `_meta["ui/resourceUri"]`) on the charting
//!   tools (those whose [`ToolSpec::charts`] is set), and the app-only tools ([`ToolSpec::app_only`],
//!   `get_chart_data`) with `_meta.ui.visibility: ["app"]`, which hosts keep from the model;
//! - in `resources/list`: the chart view, first on the first page.
//!
//! A client that does not advertise it sees exactly what it saw before (`resources/read` of the view
//! works for anyone). The server keeps no session: over HTTP, the `initialize` answer of an Apps client
//! carries an `Mcp-Session-Id` that names the feature ([`ClientFeatures::session_id`]) and grants
//! nothing else, and later requests are read by it; over stdio the connection remembers it.
//!
//! **The view** is one self-contained page (no network, no CSP domains): vega, vega-lite and vega-embed
//! and vega's CSP-safe expression interpreter, inlined byte for byte from the npm versions pinned in
//! `server/ui/vendor.lock` with their BSD-3-Clause licences, and the view's own script
//! (`server/ui/chart.js`). The catalog's chart pages (`/chart/{indicator}`) serve the same page with the
//! chart data embedded ([`standalone_page`]).

use std::sync::LazyLock;

use bytes::Bytes;
use serde_json::{Value, json};

use crate::tools::ToolSpec;

/// The extension's identifier, the key in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";
/// The media type of an MCP App's HTML resource.
pub const RESOURCE_MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The chart view's URI.
pub const CHART_VIEW_URI: &str = "ui://lac-corpus/chart.html";
/// The prefix of the `Mcp-Session-Id` this server gives a client that negotiated the extension.
pub const SESSION_PREFIX: &str = "lac-apps-";

/// What a client negotiated beyond the core protocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientFeatures {
    /// The client renders MCP Apps (`io.modelcontextprotocol/ui` with `text/html;profile=mcp-app`).
    pub apps: bool,
}

impl ClientFeatures {
    /// What the `initialize` params `params` advertise: the extension under `extensions` or
    /// `experimental`, with `mimeTypes` naming [`RESOURCE_MIME_TYPE`] or absent, in either place.
    pub fn of_initialize(params: Option<&Value>) -> ClientFeatures {
        ClientFeatures::of_capabilities(params.map(|params| &params["capabilities"]))
    }

    /// What client capabilities advertise (an `initialize`'s `capabilities`, or a 2026-07-28
    /// request's `io.modelcontextprotocol/clientCapabilities`).
    pub fn of_capabilities(capabilities: Option<&Value>) -> ClientFeatures {
        let apps = capabilities.is_some_and(|capabilities| {
            [&capabilities["extensions"], &capabilities["experimental"]]
                .into_iter()
                .filter_map(|place| place.get(EXTENSION_ID))
                .any(|extension| match extension.get("mimeTypes") {
                    None => extension.is_object(),
                    Some(Value::Array(types)) => {
                        types.iter().any(|kind| kind == RESOURCE_MIME_TYPE)
                    }
                    Some(_) => false,
                })
        });
        ClientFeatures { apps }
    }

    /// What an `initialize` request in `body` advertises: a JSON-RPC 2.0 request with an id and no
    /// 2026-07-28 `_meta`, alone or the first `initialize` of a batch; `None` when the body holds none
    /// (a malformed or modern one negotiates nothing).
    pub fn of_body(body: &Value) -> Option<ClientFeatures> {
        let is_initialize = |message: &&Value| {
            // A 2026-07-28 `initialize` is refused, so it negotiates nothing.
            !super::era::is_modern(message.get("params"))
                && message.get("method").and_then(Value::as_str) == Some("initialize")
                && message.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
                && message
                    .get("id")
                    .is_some_and(|id| id.is_string() || id.is_number())
        };
        let initialize = match body {
            Value::Array(messages) => messages.iter().find(is_initialize),
            message => Some(message).filter(is_initialize),
        }?;
        Some(ClientFeatures::of_initialize(initialize.get("params")))
    }

    /// What an `Mcp-Session-Id` this server issued names (anything else names nothing).
    pub fn of_session_id(session_id: Option<&str>) -> ClientFeatures {
        ClientFeatures {
            apps: session_id.is_some_and(|id| id.starts_with(SESSION_PREFIX)),
        }
    }

    /// The `Mcp-Session-Id` to give a client with these features: `lac-apps-` and 32 random hex digits
    /// for an Apps client, none for another (it sees a session-less server, as before).
    pub fn session_id(self) -> Option<String> {
        if !self.apps {
            return None;
        }
        let mut random = [0u8; 16];
        // Uniqueness is all the id needs: it grants no access (the server is read-only and public).
        if getrandom::fill(&mut random).is_err() {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_nanos());
            random = (nanos ^ u128::from(std::process::id())).to_le_bytes();
        }
        Some(format!(
            "{SESSION_PREFIX}{}",
            corpus::manifest::hex(&random)
        ))
    }
}

/// `capabilities.extensions` of the server's `initialize` answer for a client with `features` (none
/// without the extension).
pub fn server_extensions(features: ClientFeatures) -> Option<Value> {
    features.apps.then(|| json!({ EXTENSION_ID: {} }))
}

/// Adds the Apps metadata to `listed`, the `tools/list` entry (an object) of `tool`: the view's URI on a
/// charting tool ([`ToolSpec::charts`]); the view's URI and `visibility: ["app"]` on an app-only one.
pub fn decorate_tool(listed: &mut Value, tool: &ToolSpec) {
    let ui = if tool.app_only {
        json!({"resourceUri": CHART_VIEW_URI, "visibility": ["app"]})
    } else if tool.charts {
        json!({"resourceUri": CHART_VIEW_URI})
    } else {
        return;
    };
    listed["_meta"] = json!({"ui": ui, "ui/resourceUri": CHART_VIEW_URI});
}

/// The view's `_meta.ui` (on its listing and its content): no network at all, and a border.
fn view_meta() -> Value {
    json!({"ui": {"csp": {}, "prefersBorder": true}})
}

/// The chart view's `resources/list` entry.
pub fn view_listing() -> Value {
    json!({
        "uri": CHART_VIEW_URI,
        "name": "chart.html",
        "title": "Chart view",
        "description": "The MCP App that draws a charting tool's answer for the person: chart, table, each number's citation and source link (self-contained; no network).",
        "mimeType": RESOURCE_MIME_TYPE,
        "size": chart_view().len(),
        "_meta": view_meta(),
    })
}

/// `resources/read` contents of `uri` when it is the chart view.
pub fn read(uri: &str) -> Option<Value> {
    (uri == CHART_VIEW_URI).then(|| {
        json!({"contents": [{
            "uri": CHART_VIEW_URI,
            "mimeType": RESOURCE_MIME_TYPE,
            "text": chart_view(),
            "_meta": view_meta(),
        }]})
    })
}

/// The page's text around its data scripts (`{{data}}`: the `#chart-data` script the view reads, and a
/// standalone page's JSON-LD): everything before (the vendored scripts inlined, as the MCP App's view
/// needs: it fetches nothing), and everything after.
struct Page {
    before_data: String,
    after_data: String,
    /// The template's head before `{{vendor}}` and between it and `{{data}}`: a standalone page puts a
    /// reference to [`vendor_script`] there instead of the inlined scripts.
    before_vendor: &'static str,
    between: &'static str,
}

/// The vendored scripts, in load order: file name, package and version (as `server/ui/vendor.lock`
/// pins them), text and licence.
const VENDORED: [(&str, &str, &str, &str); 4] = [
    (
        "vega.min.js",
        "vega 6.4.0",
        include_str!("../../ui/vendor/vega.min.js"),
        include_str!("../../ui/vendor/vega.LICENSE"),
    ),
    (
        "vega-lite.min.js",
        "vega-lite 6.4.3",
        include_str!("../../ui/vendor/vega-lite.min.js"),
        include_str!("../../ui/vendor/vega-lite.LICENSE"),
    ),
    (
        "vega-embed.min.js",
        "vega-embed 7.3.0",
        include_str!("../../ui/vendor/vega-embed.min.js"),
        include_str!("../../ui/vendor/vega-embed.LICENSE"),
    ),
    (
        "vega-interpreter.js",
        "vega-interpreter 2.3.2",
        include_str!("../../ui/vendor/vega-interpreter.js"),
        include_str!("../../ui/vendor/vega-interpreter.LICENSE"),
    ),
];

/// Each vendored script as it runs (licence comment first, no source map line), in load order.
static VENDORED_TEXTS: LazyLock<Vec<String>> = LazyLock::new(|| {
    VENDORED
        .iter()
        .map(|(file, package, text, licence)| {
            let text = if *file == "vega-interpreter.js" {
                classic_interpreter(text)
            } else {
                text.to_string()
            };
            format!(
                "/*! {package} ({file}), BSD-3-Clause:\n{}*/\n{}\n",
                licence.replace("*/", "* /"),
                without_source_map(&text)
            )
        })
        .collect()
});

static PAGE: LazyLock<Page> = LazyLock::new(|| {
    let template = include_str!("../../ui/chart.html");
    let view = include_str!("../../ui/chart.js");
    let mut vendor = String::with_capacity(900 * 1024);
    for text in VENDORED_TEXTS.iter() {
        vendor.push_str(&format!("<script>\n{text}</script>\n"));
    }
    let (before_vendor, rest) = template
        .split_once("{{vendor}}")
        .expect("chart.html has {{vendor}}");
    let (between, rest) = rest
        .split_once("{{data}}")
        .expect("chart.html has {{data}}");
    let (after_data, after_view) = rest
        .split_once("{{view}}")
        .expect("chart.html has {{view}}");
    Page {
        before_data: format!("{before_vendor}{vendor}{between}"),
        after_data: format!("{after_data}{view}{after_view}"),
        before_vendor,
        between,
    }
});

/// The vendored scripts as one classic script (each file's licence comment kept, one after the other,
/// in load order): what a standalone chart page loads from [`vendor_script_path`] instead of carrying
/// ~870 KB of inlined scripts on every page.
pub fn vendor_script() -> &'static str {
    static SCRIPT: LazyLock<String> = LazyLock::new(|| VENDORED_TEXTS.join(";\n"));
    &SCRIPT
}

/// The path the server serves [`vendor_script`] at: `/assets/chart-vendor-{16 hex digits of its
/// content hash}.js`, so the URL changes whenever the scripts do and the asset can be cached as
/// immutable.
pub fn vendor_script_path() -> &'static str {
    static PATH: LazyLock<String> = LazyLock::new(|| {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        vendor_script().hash(&mut hasher);
        format!("/assets/chart-vendor-{:016x}.js", hasher.finish())
    });
    &PATH
}

/// vega-interpreter's ES module as a classic script: its one import (of vega-util, which the vega
/// bundle exposes as `vega`) read from the global, its export set on `globalThis.vegaInterpreter`.
fn classic_interpreter(module: &str) -> String {
    let mut script = String::from("(function () {\n");
    for line in module.lines() {
        if let Some(names) = line
            .strip_prefix("import {")
            .and_then(|rest| rest.strip_suffix("} from 'vega-util';"))
        {
            script.push_str(&format!("const {{{names}}} = vega;\n"));
        } else if let Some(names) = line
            .strip_prefix("export {")
            .and_then(|rest| rest.strip_suffix("};"))
        {
            let exported: Vec<String> = names
                .split(',')
                .filter_map(|pair| {
                    let (local, public) = pair.trim().split_once(" as ")?;
                    Some(format!("{public}: {local}"))
                })
                .collect();
            script.push_str(&format!(
                "globalThis.vegaInterpreter = {{ {} }};\n",
                exported.join(", ")
            ));
        } else {
            script.push_str(line);
            script.push('\n');
        }
    }
    script.push_str("})();");
    script
}

fn without_source_map(text: &str) -> String {
    text.lines()
        .filter(|line| !line.starts_with("//# sourceMappingURL="))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The element the view reads its embedded chart data from, before the data; [`DATA_CLOSE`] after it.
const DATA_OPEN: &str = r#"<script type="application/json" id="chart-data">"#;
const DATA_CLOSE: &str = "</script>";

/// The chart view as `resources/read` serves it (in Spanish until the host or the tool says otherwise),
/// with no chart data embedded.
pub fn chart_view() -> &'static str {
    static VIEW: LazyLock<String> = LazyLock::new(|| {
        format!(
            "{}{DATA_OPEN}{DATA_CLOSE}{}",
            PAGE.before_data, PAGE.after_data
        )
        .replacen("{{lang}}", "es", 1)
    });
    &VIEW
}

/// A standalone page's text before its chart data, in each language's `<html lang>` (es, en, pt): the
/// vendored scripts referenced ([`vendor_script_path`], under the public URL's path), not inlined.
static BEFORE_DATA: LazyLock<[String; 3]> = LazyLock::new(|| {
    let prefix = crate::links::public_path();
    let linked = format!(
        "{}<script src=\"{prefix}{}\"></script>\n{}",
        PAGE.before_vendor,
        vendor_script_path(),
        PAGE.between
    );
    [corpus::Lang::Es, corpus::Lang::En, corpus::Lang::Pt]
        .map(|lang| linked.replacen("{{lang}}", lang.as_str(), 1))
});

/// The chart view with `data` (the page's own chart data: `{"lang": …, "chart": <get_chart_data
/// structuredContent>, …}`) embedded, for a browser to open without a host (the vendored scripts
/// loaded from [`vendor_script_path`] on this server), and `json_ld` (a
/// structured description of the page for search engines, schema.org JSON-LD; a data block, never
/// run) beside it when given: the body's chunks (the page's text is shared, never copied).
pub fn standalone_page(data: &Value, json_ld: Option<&Value>, lang: corpus::Lang) -> [Bytes; 3] {
    // `<` is escaped so that no text of the data can close a script element.
    let escaped = |value: &Value| value.to_string().replace('<', "\\u003c");
    let mut json = format!("{DATA_OPEN}{}{DATA_CLOSE}", escaped(data));
    if let Some(json_ld) = json_ld {
        json.push_str(&format!(
            "\n<script type=\"application/ld+json\">{}</script>",
            escaped(json_ld)
        ));
    }
    let before = match lang {
        corpus::Lang::Es => &BEFORE_DATA[0],
        corpus::Lang::En => &BEFORE_DATA[1],
        corpus::Lang::Pt => &BEFORE_DATA[2],
    };
    [
        Bytes::from_static(before.as_bytes()),
        Bytes::from(json),
        Bytes::from_static(PAGE.after_data.as_bytes()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_is_negotiated_from_either_capability_place_and_the_mime_type() {
        let advertised = |capabilities: Value| {
            ClientFeatures::of_initialize(Some(&json!({ "capabilities": capabilities }))).apps
        };
        assert!(advertised(
            json!({"extensions": {EXTENSION_ID: {"mimeTypes": [RESOURCE_MIME_TYPE]}}})
        ));
        assert!(advertised(json!({"experimental": {EXTENSION_ID: {}}})));
        // A wrong entry in one place does not hide a right one in the other.
        assert!(advertised(json!({
            "extensions": {EXTENSION_ID: {"mimeTypes": ["text/html"]}},
            "experimental": {EXTENSION_ID: {"mimeTypes": [RESOURCE_MIME_TYPE]}}
        })));
        assert!(!advertised(
            json!({"extensions": {EXTENSION_ID: {"mimeTypes": ["text/html"]}}})
        ));
        assert!(!advertised(json!({"extensions": {}})));
        assert!(!ClientFeatures::of_initialize(None).apps);
    }

    #[test]
    fn only_a_well_formed_initialize_request_negotiates() {
        let caps = json!({"extensions": {EXTENSION_ID: {}}});
        let apps = Some(ClientFeatures { apps: true });
        let message = |jsonrpc: &str, id: Value| json!({"jsonrpc": jsonrpc, "id": id, "method": "initialize", "params": {"capabilities": caps}});
        assert_eq!(ClientFeatures::of_body(&message("2.0", json!(1))), apps);
        assert_eq!(
            ClientFeatures::of_body(
                &json!([{"jsonrpc": "2.0", "method": "ping", "id": 0}, message("2.0", json!("a"))])
            ),
            apps
        );
        assert_eq!(ClientFeatures::of_body(&message("1.0", json!(1))), None);
        assert_eq!(ClientFeatures::of_body(&message("2.0", Value::Null)), None);
        assert_eq!(
            ClientFeatures::of_body(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
            None
        );
    }

    #[test]
    fn a_session_id_names_the_feature_and_nothing_else_does() {
        let apps = ClientFeatures { apps: true };
        let id = apps.session_id().unwrap();
        assert!(id.starts_with(SESSION_PREFIX) && id.len() == SESSION_PREFIX.len() + 32);
        assert_ne!(apps.session_id(), Some(id.clone()), "ids are unique");
        assert_eq!(ClientFeatures::of_session_id(Some(&id)), apps);
        assert_eq!(ClientFeatures::default().session_id(), None);
        assert!(!ClientFeatures::of_session_id(Some("another-server-session")).apps);
        assert!(!ClientFeatures::of_session_id(None).apps);
    }

    #[test]
    fn the_view_is_one_self_contained_page_under_two_megabytes() {
        let page = chart_view();
        assert!(page.len() < 2 * 1024 * 1024, "{} bytes", page.len());
        assert!(page.starts_with("<!doctype html>\n<html lang=\"es\">"));
        for needle in [
            "{{vendor}}",
            "{{data}}",
            "{{view}}",
            "{{lang}}",
            "sourceMappingURL",
        ] {
            assert!(!page.contains(needle), "{needle} left in the page");
        }
        // Every script is inline: nothing is fetched.
        assert!(!page.contains("<script src"));
        for (_, package, _, _) in VENDORED {
            assert!(
                page.contains(&format!("/*! {package} ")),
                "{package} and its licence"
            );
        }
        assert_eq!(
            page.matches("Redistribution and use in source and binary forms")
                .count(),
            4
        );
        // The interpreter is a classic script reading vega-util from the vega bundle.
        assert!(page.contains("const { ascending, isString, DisallowedObjectProperties } = vega;"));
        assert!(
            page.contains("globalThis.vegaInterpreter = { expressionInterpreter: expression };")
        );
        assert!(!page.contains("\nimport {") && !page.contains("\nexport {"));
    }

    #[test]
    fn a_standalone_page_embeds_its_data_where_no_text_can_close_the_script() {
        let data = json!({"lang": "en", "chart": {"result": {"tool": "</script><b>"}}});
        let described = json!({"@type": "Dataset", "name": "</script>"});
        let page: Vec<u8> = standalone_page(&data, Some(&described), corpus::Lang::En).concat();
        let page = String::from_utf8(page).unwrap();
        assert!(page.starts_with("<!doctype html>\n<html lang=\"en\">"));
        assert!(page.contains(r#"<script type="application/json" id="chart-data">{"chart":{"result":{"tool":"\u003c/script>\u003cb>"}},"lang":"en"}</script>"#));
        assert!(page.contains(r#"<script type="application/ld+json">{"@type":"Dataset","name":"\u003c/script>"}</script>"#));
        // The view as a resource has the element, empty.
        assert!(
            chart_view().contains(r#"<script type="application/json" id="chart-data"></script>"#)
        );
    }

    #[test]
    fn charting_tools_point_at_the_view_and_the_app_tool_is_for_apps_only() {
        let tools = crate::tools::all();
        let spec = |name: &str| {
            tools
                .iter()
                .find(|tool| tool.name == name)
                .expect("the tool is in the table")
        };
        let mut series = json!({"name": "get_series"});
        decorate_tool(&mut series, spec("get_series"));
        assert_eq!(
            series["_meta"]["ui"],
            json!({"resourceUri": CHART_VIEW_URI})
        );
        assert_eq!(series["_meta"]["ui/resourceUri"], CHART_VIEW_URI);
        let mut app = json!({"name": "get_chart_data"});
        decorate_tool(&mut app, spec("get_chart_data"));
        assert_eq!(app["_meta"]["ui"]["visibility"], json!(["app"]));
        let mut search = json!({"name": "search_corpus"});
        decorate_tool(&mut search, spec("search_corpus"));
        assert!(search.get("_meta").is_none());
    }
}
