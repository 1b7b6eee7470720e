//! The MCP Apps extension (`io.modelcontextprotocol/ui`): negotiation over HTTP and stdio, the chart view
//! resource, the charting tools' `_meta.ui` and their charts, and the catalog's chart page. A client
//! without the extension sees what it saw before. The app-only `get_chart_data` has its own file.

use axum::{body::Body, http::Request};
use serde_json::{Value, json};
use server::transport::{
    apps::{CHART_VIEW_URI, EXTENSION_ID, RESOURCE_MIME_TYPE},
    jsonrpc::Reply,
};

use crate::support::{call_tool, corpus_dir, http_state, payload, post, send};

fn initialize(capabilities: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "apps-test", "version": "1"}}})
    .to_string()
}

fn apps_capabilities() -> Value {
    json!({"extensions": {EXTENSION_ID: {"mimeTypes": [RESOURCE_MIME_TYPE]}}})
}

fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

async fn post_json(
    state: &std::sync::Arc<server::transport::http::HttpState>,
    body: String,
    headers: &[(&str, &str)],
) -> (axum::http::Response<Body>, Value) {
    let (response, bytes) = send(state, post(body, headers)).await;
    (
        response,
        serde_json::from_slice(&bytes).expect("a JSON body"),
    )
}

#[tokio::test]
async fn an_apps_client_over_http_negotiates_the_extension_and_names_it_by_its_session() {
    let state = http_state(true, 600);
    let (response, initialized) = post_json(&state, initialize(apps_capabilities()), &[]).await;
    assert_eq!(
        initialized["result"]["capabilities"]["extensions"],
        json!({EXTENSION_ID: {}})
    );
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(session.starts_with("lac-apps-"), "{session}");
    assert_eq!(
        response.headers()["access-control-expose-headers"],
        "Mcp-Session-Id"
    );

    let with_session = [("mcp-session-id", session.as_str())];
    let (_, listed) = post_json(&state, request(1, "tools/list", json!({})), &with_session).await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    let meta = |name: &str| {
        tools
            .iter()
            .find(|tool| tool["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed"))["_meta"]
            .clone()
    };
    for name in server::tools::get_chart_data::CHARTING_TOOLS {
        assert_eq!(
            meta(name)["ui"],
            json!({"resourceUri": CHART_VIEW_URI}),
            "{name}"
        );
        assert_eq!(meta(name)["ui/resourceUri"], json!(CHART_VIEW_URI));
    }
    assert_eq!(meta("get_chart_data")["ui"]["visibility"], json!(["app"]));
    // The view's own call validates against the listed input schema.
    let schema = &tools
        .iter()
        .find(|tool| tool["name"] == "get_chart_data")
        .unwrap()["inputSchema"];
    let call = json!({"tool": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["MEX", "BRA"]}, "lang": "pt"});
    let validator = jsonschema::validator_for(schema).unwrap();
    assert!(validator.is_valid(&call), "{schema}");
    assert!(!validator.is_valid(&json!({"tool": "search_corpus", "arguments": {}})));
    assert_eq!(meta("search_corpus"), Value::Null);

    let (_, resources) = post_json(
        &state,
        request(2, "resources/list", json!({})),
        &with_session,
    )
    .await;
    // The view takes the first page's first slot: still a page of 100.
    assert_eq!(
        resources["result"]["resources"].as_array().unwrap().len(),
        100
    );
    let first = &resources["result"]["resources"][0];
    assert_eq!(first["uri"], json!(CHART_VIEW_URI));
    assert_eq!(first["mimeType"], json!(RESOURCE_MIME_TYPE));
    assert_eq!(first["_meta"]["ui"]["csp"], json!({}), "no network at all");
}

#[tokio::test]
async fn a_client_without_the_extension_sees_what_it_saw_before() {
    let state = http_state(true, 600);
    let (response, initialized) = post_json(&state, initialize(json!({})), &[]).await;
    assert!(
        initialized["result"]["capabilities"]
            .get("extensions")
            .is_none()
    );
    assert!(response.headers().get("mcp-session-id").is_none());

    let (_, listed) = post_json(&state, request(1, "tools/list", json!({})), &[]).await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().all(|tool| tool.get("_meta").is_none()));
    assert!(tools.iter().all(|tool| tool["name"] != "get_chart_data"));
    // Another server's session id names nothing here.
    let foreign = [("mcp-session-id", "1868a90c-another-server")];
    let (_, again) = post_json(&state, request(1, "tools/list", json!({})), &foreign).await;
    assert_eq!(again, listed);

    let (_, resources) = post_json(&state, request(2, "resources/list", json!({})), &[]).await;
    let uris: Vec<&str> = resources["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|resource| resource["uri"].as_str().unwrap())
        .collect();
    assert!(!uris.contains(&CHART_VIEW_URI));
    assert!(uris[0].starts_with("corpus://"));
}

#[test]
fn the_apps_tools_list_adds_only_metadata_and_the_app_only_tool() {
    let real = server::build_with_tools(corpus_dir(), server::tools::all()).unwrap();
    let list = |server: &server::transport::jsonrpc::McpServer| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let Reply::One { response, .. } = server.handle_body(&body) else {
            panic!("one response");
        };
        serde_json::from_str::<Value>(&response).unwrap()["result"]["tools"]
            .as_array()
            .unwrap()
            .clone()
    };
    let plain = list(&real);
    let apps = list(&real.for_client(server::transport::apps::ClientFeatures { apps: true }));
    // The seed's fifteen and the MCP-only verify_claims, search and fetch; Apps clients also get
    // get_chart_data.
    assert_eq!(plain.len(), 18);
    assert_eq!(apps.len(), 19);
    // Within the same budget as the plain list.
    let apps_bytes = serde_json::to_string(&json!({ "tools": apps }))
        .unwrap()
        .len();
    assert!(
        apps_bytes <= crate::budgets::TOOLS_LIST_BUDGET,
        "tools/list for Apps clients: {apps_bytes} B"
    );
    // What the model is shown (every tool but the app-only one) is the plain list, `_meta` aside.
    let model_facing: Vec<Value> = apps
        .iter()
        .filter(|tool| tool["_meta"]["ui"]["visibility"] != json!(["app"]))
        .map(|tool| {
            let mut tool = tool.clone();
            tool.as_object_mut().unwrap().remove("_meta");
            tool
        })
        .collect();
    assert_eq!(model_facing, plain);
}

#[test]
fn the_chart_view_is_one_self_contained_page_any_client_can_read() {
    let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": CHART_VIEW_URI}});
    let Reply::One { response, .. } = crate::support::server().handle_body(&read) else {
        panic!("one response");
    };
    let answer: Value = serde_json::from_str(&response).unwrap();
    let content = &answer["result"]["contents"][0];
    assert_eq!(content["mimeType"], json!(RESOURCE_MIME_TYPE));
    assert_eq!(content["_meta"]["ui"]["prefersBorder"], json!(true));
    let html = content["text"].as_str().unwrap();
    assert!(html.len() < 2 * 1024 * 1024, "{} bytes", html.len());
    // The pinned npm versions, each with its licence, and no script fetched from anywhere.
    for banner in [
        "t.version=\"6.4.0\"",
        "var n=\"6.4.3\"",
        "/*! vega-embed 7.3.0 ",
        "/*! vega-interpreter 2.3.2 ",
    ] {
        assert!(html.contains(banner), "{banner}");
    }
    assert!(!html.contains("<script src") && !html.contains("<link"));
    assert!(html.contains("ui/notifications/tool-result") && html.contains("ui/initialize"));
}

#[test]
fn over_stdio_the_connection_remembers_what_initialize_negotiated() {
    let lines = crate::support::stdio_exchange(&[
        request(1, "tools/list", json!({})),
        initialize(apps_capabilities()),
        request(2, "tools/list", json!({})),
    ]);
    let count = |line: &Value| line["result"]["tools"].as_array().unwrap().len();
    assert_eq!(count(&lines[0]), 18, "before initialize: the defaults");
    assert_eq!(
        lines[1]["result"]["capabilities"]["extensions"],
        json!({EXTENSION_ID: {}})
    );
    assert_eq!(count(&lines[2]), 19, "after it: the Apps list");
}

#[tokio::test]
async fn the_catalog_chart_page_embeds_the_chart_data_under_a_policy_without_eval() {
    let state = http_state(true, 600);
    let get = |uri: &str| Request::get(uri).body(Body::empty()).unwrap();
    let (response, bytes) = send(&state, get("/chart/sp_dyn_le00_in?lang=en")).await;
    assert_eq!(response.status(), 200);
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap();
    assert!(policy.contains("script-src 'unsafe-inline'") && !policy.contains("eval"));
    let html = String::from_utf8(bytes).unwrap();
    assert!(html.starts_with("<!doctype html>\n<html lang=\"en\">"));
    let (_, data) = html
        .split_once(r#"<script type="application/json" id="chart-data">"#)
        .unwrap();
    let (data, _) = data.split_once("</script>").unwrap();
    let data: Value = serde_json::from_str(data).unwrap();
    // The most populous countries with the indicator, by WDI population: Brazil, then Mexico.
    let cited: Vec<&str> = data["chart"]["result"]["cited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["id"].as_str().unwrap())
        .collect();
    assert_eq!(cited.len(), 8);
    assert_eq!(
        &cited[..2],
        ["wb-sp-dyn-le00-in-bra", "wb-sp-dyn-le00-in-mex"]
    );

    let (chosen, bytes) = send(&state, get("/chart/sp_dyn_le00_in?countries=URY,Chile")).await;
    assert_eq!(chosen.status(), 200);
    let html = String::from_utf8(bytes).unwrap();
    assert!(html.contains("wb-sp-dyn-le00-in-ury") && html.contains("wb-sp-dyn-le00-in-chl"));
    assert!(!html.contains("wb-sp-dyn-le00-in-bra"));

    // The publisher's code, in any case, draws the same default countries.
    let (coded, bytes) = send(&state, get("/chart/SP.DYN.LE00.IN?lang=en")).await;
    assert_eq!(coded.status(), 200);
    let html = String::from_utf8(bytes).unwrap();
    assert!(html.contains("wb-sp-dyn-le00-in-bra") && html.contains("wb-sp-dyn-le00-in-gtm"));
    // Revalidation costs no work; a bad country is a 400 naming it.
    let etag = response.headers()["etag"].to_str().unwrap().to_string();
    let revalidate = Request::get("/chart/sp_dyn_le00_in?lang=en")
        .header("if-none-match", &etag)
        .body(Body::empty())
        .unwrap();
    let (unchanged, bytes) = send(&state, revalidate).await;
    assert_eq!(unchanged.status(), 304);
    assert!(bytes.is_empty());
    assert_eq!(response.headers()["x-content-type-options"], "nosniff");
    let (bad_country, bytes) = send(&state, get("/chart/sp_dyn_le00_in?countries=Atlantis")).await;
    assert_eq!(bad_country.status(), 400);
    assert!(String::from_utf8(bytes).unwrap().contains("Atlantis"));

    let (missing, bytes) = send(&state, get("/chart/no_such_indicator")).await;
    assert_eq!(missing.status(), 404);
    let problem: Value = serde_json::from_slice(&bytes).unwrap();
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("no_such_indicator")
    );

    // The catalog page links each indicator to its chart.
    let (_, page) = send(&state, get("/?lang=en")).await;
    assert!(
        String::from_utf8(page)
            .unwrap()
            .contains(r#"<a href="/chart/sp_dyn_le00_in?lang=en""#)
    );
}

#[test]
fn charts_dash_projections_break_at_gaps_and_draw_a_forecasts_trend() {
    // IMF WEO projects Argentina's GDP per capita past its last actual year: those years are dashed; the
    // years after "Estimates Start After" but before the release are estimates, drawn solid apart.
    let series = call_tool(
        "get_series",
        json!({"indicator": "ngdpdpc", "countries": ["ARG"], "lang": "en"}),
    );
    let first_projected = payload(&series)["result"]["series"][0]["projection_years"][0]
        .as_i64()
        .expect("WEO projections");
    let chart = &series["_meta"]["lac-corpus/display"]["charts"][0];
    let calculate = chart["transform"][1]["calculate"].as_str().unwrap();
    assert!(
        calculate.contains(&format!("{{\"ARG\":{first_projected}}}")),
        "{calculate}"
    );
    assert_eq!(
        chart["encoding"]["strokeDash"]["scale"]["domain"],
        json!(["observed", "estimate", "projection"])
    );
    assert_eq!(chart["mark"]["invalid"], json!("break-paths-show-domains"));
    assert_eq!(chart["encoding"]["x"]["title"], json!("year"));

    // A forecast: the fitted trend, the observed series, the interval and the point, on one y axis whose
    // title is the unit in every layer (so the titles merge) and whose span holds the interval.
    let forecast = call_tool(
        "compute",
        json!({"op": "forecast", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "URY", "to_year": 2030, "lang": "es"}),
    );
    let chart = &forecast["_meta"]["lac-corpus/display"]["charts"][0];
    let layers = chart["layer"].as_array().unwrap();
    assert_eq!(layers.len(), 4);
    for layer in layers {
        assert_eq!(layer["encoding"]["y"]["title"], json!("years"), "{layer}");
        assert_eq!(layer["encoding"]["x"]["title"], json!("año"));
    }
    let result = &payload(&forecast)["result"]["forecast"];
    let domain = &layers[0]["encoding"]["y"]["scale"]["domain"];
    if let Some(domain) = domain.as_array() {
        assert!(domain[0].as_f64().unwrap() <= result["lower"].as_f64().unwrap());
        assert!(domain[1].as_f64().unwrap() >= result["upper"].as_f64().unwrap());
    }
    assert!(chart["title"].as_str().unwrap().contains("pronóstico 2030"));
}

/// The `chart-data` JSON a chart page embeds.
fn embedded_chart(html: &str) -> Value {
    let (_, data) = html
        .split_once(r#"<script type="application/json" id="chart-data">"#)
        .unwrap();
    let (data, _) = data.split_once("</script>").unwrap();
    serde_json::from_str(data).unwrap()
}

#[tokio::test]
async fn every_charting_answer_links_a_page_that_draws_exactly_its_chart() {
    let state = http_state(true, 6000);
    let version = crate::support::server()
        .plugin()
        .corpus()
        .baked
        .manifest()
        .corpus_version
        .clone();
    for (tool, arguments, lang) in [
        (
            "get_series",
            json!({"indicator": "sp_dyn_le00_in", "countries": ["MEX", "BRA"]}),
            "es",
        ),
        (
            "compare_countries",
            json!({"parameter": "salud", "countries": ["CHL", "PER", "URY"]}),
            "en",
        ),
        (
            "compute",
            json!({"op": "rank", "indicator": "sp_dyn_le00_in"}),
            "pt",
        ),
        (
            "get_regional_pulse",
            json!({"parameter": "educacion"}),
            "es",
        ),
    ] {
        let mut called = arguments.clone();
        called["lang"] = json!(lang);
        let answer = call_tool(tool, called.clone());
        // The person's line names where the chart opens; the link comes first among the resources.
        let message = answer["content"][1]["text"].as_str().unwrap();
        let link = &answer["content"][2];
        assert_eq!(link["type"], json!("resource_link"), "{tool}");
        assert_eq!(link["mimeType"], json!("text/html"));
        let url = link["uri"].as_str().unwrap();
        assert!(message.contains(url), "{tool}: {message}");
        let path = url.strip_prefix(server::links::public_url()).unwrap();
        assert!(
            path.starts_with(&format!(
                "/chart/answer/{version}/{tool}?lang={lang}&arguments="
            )),
            "{path}"
        );
        let (response, bytes) = send(&state, Request::get(path).body(Body::empty()).unwrap()).await;
        assert_eq!(response.status(), 200, "{tool}");
        assert_eq!(
            response.headers()["cache-control"],
            "public, max-age=31536000, immutable"
        );
        let page = embedded_chart(&String::from_utf8(bytes).unwrap());
        // The MCP App asks get_chart_data for the same tool and arguments: the very same chart data.
        let app = call_tool("get_chart_data", json!({"tool": tool, "arguments": called}));
        assert_eq!(page["chart"], app["structuredContent"], "{tool}");
        assert!(
            !page["chart"]["result"]["charts"]
                .as_array()
                .unwrap()
                .is_empty()
        );
    }
    // compare_countries draws each indicator of its page, bars labelled with their year.
    let compared = call_tool(
        "get_chart_data",
        json!({"tool": "compare_countries", "arguments": {"parameter": "salud", "countries": ["CHL", "PER"]}}),
    );
    let charts = compared["structuredContent"]["result"]["charts"]
        .as_array()
        .unwrap();
    let indicators = call_tool(
        "compare_countries",
        json!({"parameter": "salud", "countries": ["CHL", "PER"]}),
    );
    let with_values = payload(&indicators)["result"]["indicators"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|indicator| !indicator["values"].as_array().unwrap().is_empty())
        .count();
    assert!(with_values > 1);
    assert_eq!(charts.len(), with_values);
    assert!(
        charts[0].to_string().contains("CHL (20"),
        "bars are labelled with their year"
    );

    // Another corpus' link is 410 and names this corpus' URL of the same chart; an unknown tool 404;
    // arguments that are not an object 400.
    let get = |uri: &str| Request::get(uri).body(Body::empty()).unwrap();
    let (gone, bytes) = send(
        &state,
        get("/chart/answer/0123456789abcdef/get_series?arguments=%7B%7D"),
    )
    .await;
    assert_eq!(gone.status(), 410);
    let problem: Value = serde_json::from_slice(&bytes).unwrap();
    assert!(
        problem["current"]
            .as_str()
            .unwrap()
            .starts_with(&format!("/chart/answer/{version}/get_series"))
    );
    let (unknown, _) = send(&state, get(&format!("/chart/answer/{version}/get_pilot"))).await;
    assert_eq!(unknown.status(), 404);
    let (bad, _) = send(
        &state,
        get(&format!(
            "/chart/answer/{version}/get_series?arguments=%5B1%5D"
        )),
    )
    .await;
    assert_eq!(bad.status(), 400);
}
