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
    assert!(policy.contains("script-src 'self' 'unsafe-inline'") && !policy.contains("eval"));
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

    // The page links the catalog and the indicator's files.
    let page = &data["page"];
    assert_eq!(page["catalog"], json!("/?lang=en"));
    let downloads = page["downloads"].as_array().unwrap();
    let csv = downloads
        .iter()
        .find(|file| file["format"] == json!("csv"))
        .expect("the tidy CSV");
    let csv_url = csv["url"].as_str().unwrap();
    assert!(
        csv_url.ends_with("/api/v1/indicators/sp_dyn_le00_in.csv"),
        "{csv_url}"
    );
    let csv_path = csv_url.strip_prefix(server::links::public_url()).unwrap();
    let (file, _) = send(&state, get(csv_path)).await;
    assert_eq!(file.status(), 200, "{csv_path}");

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
    // The series is named in the person's language, then each point gets its kind.
    let name = chart["transform"][1]["calculate"].as_str().unwrap();
    assert!(name.contains(r#"{"ARG":"Argentina"}"#), "{name}");
    let calculate = chart["transform"][2]["calculate"].as_str().unwrap();
    assert!(
        calculate.contains(&format!("{{\"ARG\":{first_projected}}}")),
        "{calculate}"
    );
    // The lines, then the points: the line of each kind repeats the last point of the run before it
    // (so the dashed projection starts where the solid line ends), the points are each drawn once.
    let [lines, points] = [0, 1].map(|at| &chart["layer"][at]);
    let dash = &lines["encoding"]["strokeDash"];
    assert_eq!(
        dash["scale"]["domain"],
        json!(["observed", "estimate", "projection"])
    );
    assert_eq!(dash["field"], json!("segment"));
    assert_eq!(
        lines["transform"][2],
        json!({"flatten": ["segments"], "as": ["segment"]})
    );
    // The legend draws a stroked sample of each kind.
    assert_eq!(
        dash["legend"]["symbolStrokeColor"],
        json!(server::tools::display::LEGEND_SAMPLE_COLOR)
    );
    assert_eq!(lines["mark"]["invalid"], json!("break-paths-show-domains"));
    assert!(points.get("transform").is_none());
    assert_eq!(points["encoding"]["tooltip"][3]["field"], json!("kind"));
    assert_eq!(points["encoding"]["color"]["field"], json!("name"));
    // The year axis ends at the data.
    let x = &lines["encoding"]["x"];
    assert_eq!(x["title"], json!("year"));
    assert_eq!(x["scale"], json!({"nice": false, "zero": false}));
    // The table marks the projected and estimated cells, as the chart draws them.
    let table = &series["_meta"]["lac-corpus/display"]["tables"][0];
    let marks = table["marks"].as_array().unwrap();
    let projected = marks
        .iter()
        .find(|mark| mark["kind"] == json!("projection"))
        .unwrap();
    assert_eq!(projected["column"], json!(1));
    let first_row = projected["rows"][0].as_u64().unwrap() as usize;
    assert_eq!(table["rows"][first_row][0].as_i64(), Some(first_projected));
    assert_eq!(
        projected["rows"].as_array().unwrap().len(),
        payload(&series)["result"]["series"][0]["projection_years"]
            .as_array()
            .unwrap()
            .len()
    );
    assert!(marks.iter().any(|mark| mark["kind"] == json!("estimate")));

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
        charts[0].to_string().contains("Chile (20"),
        "bars are labelled with their country's name and year"
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

/// The JSON-LD data blocks of a page (`<script type="application/ld+json">`).
fn json_ld(html: &str) -> Vec<Value> {
    html.split(r#"<script type="application/ld+json">"#)
        .skip(1)
        .map(|block| serde_json::from_str(block.split_once("</script>").unwrap().0).unwrap())
        .collect()
}

#[tokio::test]
async fn an_indicator_chart_page_describes_its_dataset_in_schema_org_json_ld() {
    let state = http_state(true, 600);
    let get = |uri: &str| Request::get(uri).body(Body::empty()).unwrap();
    let (response, bytes) = send(&state, get("/chart/ngdp_rpch?lang=es")).await;
    assert_eq!(response.status(), 200);
    // A data block is never run: the policy that forbids eval still serves it.
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap();
    assert!(policy.contains("script-src 'self' 'unsafe-inline'") && !policy.contains("eval"));
    let html = String::from_utf8(bytes).unwrap();
    let blocks = json_ld(&html);
    assert_eq!(blocks.len(), 1, "one Dataset");
    let dataset = &blocks[0];
    let corpus = crate::support::server().plugin().corpus();
    let metric = corpus.baked.metric("ngdp_rpch").unwrap();
    assert_eq!(dataset["@context"], json!("https://schema.org"));
    assert_eq!(dataset["@type"], json!("Dataset"));
    assert_eq!(dataset["name"], json!("Crecimiento del PIB real (FMI WEO)"));
    assert_eq!(dataset["description"], json!(metric.description));
    assert!(metric.description.len() > 50);
    // IMF terms are not SPDX: the source's licence page.
    assert_eq!(
        dataset["license"],
        json!("https://www.imf.org/en/About/copyright-and-terms")
    );
    assert_eq!(
        dataset["creator"],
        json!({"@type": "Organization", "name": "International Monetary Fund", "url": corpus.baked.source("imf_weo").unwrap().homepage})
    );
    let (first, last) = (
        metric.coverage.first_year.unwrap(),
        metric.coverage.last_year.unwrap(),
    );
    assert_eq!(
        dataset["temporalCoverage"],
        json!(format!("{first}/{last}"))
    );
    assert_eq!(
        dataset["spatialCoverage"],
        json!({"@type": "Place", "name": "América Latina y el Caribe"})
    );
    assert_eq!(dataset["variableMeasured"]["@type"], json!("PropertyValue"));
    assert_eq!(dataset["variableMeasured"]["unitText"], json!(metric.unit));
    assert_eq!(dataset["isAccessibleForFree"], json!(true));
    let base = server::links::public_url();
    assert_eq!(
        dataset["url"],
        json!(format!("{base}/chart/ngdp_rpch?lang=es"))
    );
    // One DataDownload per file of the indicator, each fetchable where it says, in its media type.
    let distribution = dataset["distribution"].as_array().unwrap();
    let files: Vec<_> = corpus
        .downloads()
        .of(corpus::exports::Subject::Indicator, "ngdp_rpch")
        .collect();
    assert_eq!(distribution.len(), files.len());
    assert!(distribution.len() >= 5);
    for (download, file) in distribution.iter().zip(&files) {
        assert_eq!(download["@type"], json!("DataDownload"));
        assert_eq!(
            download["encodingFormat"],
            json!(file.download.format.media_type())
        );
        let url = download["contentUrl"].as_str().unwrap();
        let path = url.strip_prefix(base).expect("an absolute URL");
        let (fetched, _) = send(&state, get(path)).await;
        assert_eq!(fetched.status(), 200, "{path}");
    }
    assert!(
        distribution
            .iter()
            .any(|download| download["encodingFormat"] == json!("text/csv; charset=utf-8"))
    );

    // An SPDX licence is its deed; English names in an English page.
    let (_, bytes) = send(&state, get("/chart/ge_est?lang=en")).await;
    let blocks = json_ld(&String::from_utf8(bytes).unwrap());
    assert_eq!(
        blocks[0]["license"],
        json!("https://creativecommons.org/licenses/by/4.0/")
    );
    assert_eq!(
        blocks[0]["spatialCoverage"]["name"],
        json!("Latin America and the Caribbean")
    );
    // An answer's page describes no dataset; the MCP App's view has none either.
    let answer = call_tool(
        "get_series",
        json!({"indicator": "ngdp_rpch", "countries": ["ARG"], "lang": "en"}),
    );
    let url = answer["content"][2]["uri"].as_str().unwrap();
    let (_, bytes) = send(&state, get(url.strip_prefix(base).unwrap())).await;
    let html = String::from_utf8(bytes).unwrap();
    assert!(json_ld(&html).is_empty());
    // It still links the catalog and its indicator's files.
    let data = embedded_chart(&html);
    assert_eq!(data["page"]["catalog"], json!("/?lang=en"));
    assert!(!data["page"]["downloads"].as_array().unwrap().is_empty());
    assert!(json_ld(server::transport::apps::chart_view()).is_empty());
}

#[tokio::test]
async fn a_wgi_chart_page_draws_the_standard_error_band_with_a_legend_entry() {
    let state = http_state(true, 600);
    let request = Request::get("/chart/ge_est?lang=en&countries=MEX,BRA")
        .body(Body::empty())
        .unwrap();
    let (response, bytes) = send(&state, request).await;
    assert_eq!(response.status(), 200);
    let data = embedded_chart(&String::from_utf8(bytes).unwrap());
    let chart = &data["chart"]["result"]["charts"][0];
    let band = &chart["layer"][0];
    assert_eq!(band["mark"]["type"], json!("area"));
    let rows = band["data"]["values"].as_array().unwrap();
    assert!(rows.iter().any(|row| row["series"] == json!("MEX")));
    assert!(rows.iter().any(|row| row["series"] == json!("BRA")));
    // The band is named in the legend, and the lines by the countries' names.
    assert_eq!(
        band["encoding"]["opacity"]["scale"]["domain"],
        json!(["90 % interval (±1.64 standard errors)"])
    );
    assert!(
        chart["transform"][1]["calculate"]
            .as_str()
            .unwrap()
            .contains(r#""MEX":"Mexico""#)
    );
}
