//! The downloads API (`/api/v1/`) and MCP resources over the analysts' files of the real corpus.

use axum::{body::Body, http::Request};
use serde_json::{Value, json};
use server::transport::jsonrpc::Reply;

use crate::support::{http_state, send, server};

fn get(path: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut builder = Request::get(path);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(Body::empty()).unwrap()
}

fn rpc(method: &str, params: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    match server().handle_body(&request) {
        Reply::One { response, .. } => serde_json::from_str(&response).unwrap(),
        other => panic!("expected one response, got {other:?}"),
    }
}

#[tokio::test]
async fn the_gini_csv_downloads_with_its_headers_even_when_mcp_is_disabled() {
    // The MCP gate is closed (enabled = false): public files are served anyway.
    let state = http_state(false, 60);
    let (response, body) = send(&state, get("/api/v1/indicators/si_pov_gini.csv", &[])).await;
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    assert_eq!(
        headers["content-disposition"],
        "attachment; filename=\"si_pov_gini.csv\""
    );
    assert_eq!(headers["accept-ranges"], "bytes");
    assert!(headers.contains_key("last-modified"));
    let text = String::from_utf8(body.clone()).unwrap();
    assert!(text.contains(
        "si_pov_gini,URY,Uruguay,2024,40,index (0-100),,wb-si-pov-gini-ury-2024,https://data.worldbank.org/indicator/SI.POV.GINI?locations=UY\r\n"
    ));
    // The ETag is the content hash of the manifest.
    let manifest = server().plugin().corpus().baked.manifest();
    let entry = manifest
        .artifact("exports/indicators/si_pov_gini.csv")
        .unwrap();
    assert_eq!(headers["etag"], format!("\"{}\"", entry.sha256).as_str());
    assert_eq!(body.len() as u64, entry.bytes);

    let etag = headers["etag"].to_str().unwrap().to_string();
    let (response, body) = send(
        &state,
        get(
            "/api/v1/indicators/si_pov_gini.csv",
            &[("if-none-match", &etag)],
        ),
    )
    .await;
    assert_eq!(response.status(), 304);
    assert!(body.is_empty());

    let (response, part) = send(
        &state,
        get(
            "/api/v1/indicators/si_pov_gini.csv",
            &[("range", "bytes=0-8")],
        ),
    )
    .await;
    assert_eq!(response.status(), 206);
    assert_eq!(part, b"indicator");
    assert_eq!(
        response.headers()["content-range"],
        format!("bytes 0-8/{}", entry.bytes).as_str()
    );

    let beyond = format!("bytes={}-", entry.bytes);
    let (response, body) = send(
        &state,
        get("/api/v1/indicators/si_pov_gini.csv", &[("range", &beyond)]),
    )
    .await;
    assert_eq!(response.status(), 416);
    assert_eq!(
        response.headers()["content-range"],
        format!("bytes */{}", entry.bytes).as_str()
    );
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["bytes"], entry.bytes);

    let head = Request::head("/api/v1/indicators/si_pov_gini.csv")
        .body(Body::empty())
        .unwrap();
    let (response, body) = send(&state, head).await;
    assert_eq!(response.status(), 200);
    assert!(body.is_empty());
    assert_eq!(
        response.headers()["content-length"],
        entry.bytes.to_string().as_str()
    );
}

#[tokio::test]
async fn a_csv_with_a_byte_order_mark_for_excel_and_a_bad_bom_named() {
    let state = http_state(true, 60);
    let (plain_response, plain) =
        send(&state, get("/api/v1/indicators/si_pov_gini.csv", &[])).await;
    let (response, body) = send(&state, get("/api/v1/indicators/si_pov_gini.csv?bom=1", &[])).await;
    assert_eq!(response.status(), 200);
    assert_eq!(&body[..3], b"\xEF\xBB\xBF");
    assert_eq!(&body[3..], &plain[..]);
    let etag = response.headers()["etag"].to_str().unwrap().to_string();
    let plain_etag = plain_response.headers()["etag"].to_str().unwrap();
    assert_eq!(etag, format!("{}-bom\"", plain_etag.trim_end_matches('"')));
    // Its own validator: a conditional request with it is a 304; a range counts the mark.
    let (response, _) = send(
        &state,
        get(
            "/api/v1/indicators/si_pov_gini.csv?bom=1",
            &[("if-none-match", &etag)],
        ),
    )
    .await;
    assert_eq!(response.status(), 304);
    let (response, part) = send(
        &state,
        get(
            "/api/v1/indicators/si_pov_gini.csv?bom=true",
            &[("range", "bytes=0-8")],
        ),
    )
    .await;
    assert_eq!(response.status(), 206);
    assert_eq!(&part[..], &body[..9]);
    for (path, named) in [
        (
            "/api/v1/indicators/si_pov_gini.parquet?bom=1",
            "CSV files only",
        ),
        (
            "/api/v1/indicators/si_pov_gini.csv?bom=2",
            "bom=2 is not a valid value",
        ),
    ] {
        let (response, body) = send(&state, get(path, &[])).await;
        assert_eq!(response.status(), 400, "{path}");
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert!(body["message"].as_str().unwrap().contains(named), "{body}");
    }
}

#[tokio::test]
async fn only_listed_paths_resolve_and_a_miss_says_what_is_valid() {
    let state = http_state(true, 60);
    for path in [
        "/api/v1/indicators/../manifest.json",
        "/api/v1/indicators/%2e%2e%2fmanifest.json",
        "/api/v1/indicators/..%2F..%2Fetc%2Fpasswd",
        "/api/v1/../../etc/passwd",
        "/api/v1/manifest.json",
        "/api/v1/indicators/not_an_indicator.csv",
        "/api/v1/indicators/si_pov_gini.json",
    ] {
        let (response, body) = send(&state, get(path, &[])).await;
        assert_eq!(response.status(), 404, "{path}");
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"], "not_found", "{path}");
        assert!(
            body["catalog"]
                .as_str()
                .unwrap()
                .ends_with("/api/v1/catalog")
        );
    }
    // A known id in a format it lacks: the formats it has are named.
    let (_, body) = send(&state, get("/api/v1/indicators/si_pov_gini.json", &[])).await;
    let body: Value = serde_json::from_slice(&body).unwrap();
    let available = body["available"].as_array().unwrap();
    assert_eq!(available.len(), 8);
    assert!(
        available[0]
            .as_str()
            .unwrap()
            .ends_with("/api/v1/indicators/si_pov_gini.csv")
    );

    // A typo or the publisher's code: the closest ids are named.
    for typo in [
        "/api/v1/indicators/si_pov_gin.csv",
        "/api/v1/indicators/SI.POV.GINI.csv",
    ] {
        let (_, body) = send(&state, get(typo, &[])).await;
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["closest_ids"][0], "si_pov_gini", "{typo}: {body}");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("closest ids: si_pov_gini")
        );
    }

    let post = Request::post("/api/v1/indicators/si_pov_gini.csv")
        .body(Body::empty())
        .unwrap();
    let (response, _) = send(&state, post).await;
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "GET, HEAD");

    let (response, body) = send(&state, get("/no/such/page", &[])).await;
    assert_eq!(response.status(), 404);
    assert!(String::from_utf8(body).unwrap().contains("/api/v1/"));
}

#[tokio::test]
async fn the_catalog_lists_every_indicator_with_its_files() {
    let state = http_state(true, 60);
    let (response, body) = send(&state, get("/api/v1/catalog", &[])).await;
    assert_eq!(response.status(), 200);
    let catalog: Value = serde_json::from_slice(&body).unwrap();
    let corpus = server().plugin().corpus();
    assert_eq!(
        catalog["corpus_version"],
        corpus.baked.manifest().corpus_version
    );
    let gini = catalog["indicators"]
        .as_array()
        .unwrap()
        .iter()
        .find(|indicator| indicator["id"] == "si_pov_gini")
        .expect("Gini is catalogued");
    assert_eq!(gini["source_code"], "SI.POV.GINI");
    assert_eq!(gini["license"], "CC-BY-4.0");
    let formats: Vec<&str> = gini["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["format"].as_str().unwrap())
        .collect();
    assert_eq!(
        formats,
        [
            "csv",
            "wide_csv",
            "xlsx",
            "parquet",
            "sdmx_ml",
            "sdmx_csv",
            "sdmx_csv_1",
            "zip"
        ]
    );
    let csv = &gini["files"][0];
    assert_eq!(csv["uri"], "corpus://indicator/si_pov_gini.csv");
    assert_eq!(csv["sha256"].as_str().unwrap().len(), 64);
    let datasets: Vec<&str> = catalog["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|dataset| dataset["id"].as_str().unwrap())
        .collect();
    assert!(datasets.contains(&"observations") && datasets.contains(&"series_stats"));
    assert_eq!(
        catalog["registry"][0]["url"]
            .as_str()
            .map(|url| url.ends_with("/api/v1/registry.xlsx")),
        Some(true)
    );
}

#[test]
fn resources_are_listed_in_pages_and_read_as_text_or_blob() {
    let initialized = rpc(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(
        initialized["result"]["capabilities"]["resources"]["listChanged"],
        false
    );

    let mut uris = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = cursor
            .as_ref()
            .map_or(json!({}), |cursor| json!({"cursor": cursor}));
        let page = rpc("resources/list", params);
        let result = &page["result"];
        for resource in result["resources"].as_array().unwrap() {
            uris.push(resource["uri"].as_str().unwrap().to_string());
        }
        pages += 1;
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    // Every file once, after the Agent Skill, which opens the first page.
    let files = server().plugin().corpus().downloads().files().len();
    assert_eq!(uris[0], server::transport::resources::SKILL_URI);
    assert_eq!(uris.len(), files + 1);
    assert_eq!(
        pages,
        (files + 1).div_ceil(server::transport::resources::PAGE_SIZE)
    );
    assert!(uris.contains(&"corpus://indicator/si_pov_gini.csv".to_string()));

    let templates = rpc("resources/templates/list", json!({}));
    let templates: Vec<&str> = templates["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|template| template["uriTemplate"].as_str().unwrap())
        .collect();
    assert!(templates.contains(&"corpus://indicator/{id}.csv"));
    assert!(templates.contains(&"corpus://dataset/{id}.parquet"));

    let read = rpc(
        "resources/read",
        json!({"uri": "corpus://indicator/si_pov_gini.csv"}),
    );
    let content = &read["result"]["contents"][0];
    assert_eq!(content["mimeType"], "text/csv; charset=utf-8");
    assert!(
        content["text"]
            .as_str()
            .unwrap()
            .contains(",URY,Uruguay,2024,40,")
    );

    let read = rpc(
        "resources/read",
        json!({"uri": "corpus://indicator/si_pov_gini.xlsx"}),
    );
    let blob = read["result"]["contents"][0]["blob"].as_str().unwrap();
    // An XLSX is a zip: base64 of "PK\x03\x04".
    assert!(blob.starts_with("UEsDB"));

    let missing = rpc(
        "resources/read",
        json!({"uri": "corpus://indicator/nope.csv"}),
    );
    assert_eq!(missing["error"]["code"], -32002);
    assert_eq!(
        missing["error"]["data"]["uri"],
        "corpus://indicator/nope.csv"
    );

    // The whole observations table is too large to inline: the error gives its URL.
    let large = rpc(
        "resources/read",
        json!({"uri": "corpus://dataset/observations.csv.gz"}),
    );
    assert_eq!(large["error"]["code"], -32602);
    assert!(
        large["error"]["data"]["url"]
            .as_str()
            .unwrap()
            .ends_with("/api/v1/datasets/observations.csv.gz")
    );

    let bad_cursor = rpc("resources/list", json!({"cursor": "not-a-cursor"}));
    assert_eq!(bad_cursor["error"]["code"], -32602);
}

#[tokio::test]
async fn the_catalog_and_the_page_are_conditional_and_read_only() {
    let state = http_state(true, 60);
    for path in ["/api/v1", "/api/v1/", "/api/v1/catalog"] {
        let (response, body) = send(&state, get(path, &[])).await;
        assert_eq!(response.status(), 200, "{path}");
        assert!(serde_json::from_slice::<Value>(&body).unwrap()["indicators"].is_array());
        let etag = response.headers()["etag"].to_str().unwrap().to_string();
        let (response, body) = send(&state, get(path, &[("if-none-match", &etag)])).await;
        assert_eq!(response.status(), 304, "{path}");
        assert!(body.is_empty());
    }
    let (response, page) = send(&state, get("/?lang=en", &[])).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/html; charset=utf-8"
    );
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains("Life expectancy at birth"));
    assert!(page.contains("si_pov_gini.csv"));
    let etag = response.headers()["etag"].to_str().unwrap().to_string();
    let (response, _) = send(&state, get("/?lang=en", &[("if-none-match", &etag)])).await;
    assert_eq!(response.status(), 304);
    // The other languages are other pages.
    let (_, spanish) = send(&state, get("/?lang=es", &[])).await;
    assert!(
        String::from_utf8(spanish)
            .unwrap()
            .contains("Esperanza de vida al nacer")
    );

    for path in ["/", "/metrics", "/api/v1/catalog"] {
        let request = Request::put(path).body(Body::empty()).unwrap();
        let (response, body) = send(&state, request).await;
        assert_eq!(response.status(), 405, "{path}");
        assert_eq!(response.headers()["allow"], "GET, HEAD", "{path}");
        assert!(String::from_utf8(body).unwrap().contains("GET or HEAD"));
    }
}

#[tokio::test]
async fn a_search_is_escaped_and_a_query_without_words_matches_nothing() {
    let state = http_state(true, 60);
    let (_, page) = send(
        &state,
        get("/?lang=en&q=%3Cscript%3Ealert(1)%3C/script%3E", &[]),
    )
    .await;
    let page = String::from_utf8(page).unwrap();
    assert!(!page.contains("<script>"));
    assert!(page.contains("&lt;script&gt;"));
    let (_, page) = send(&state, get("/?lang=en&q=---", &[])).await;
    assert!(
        String::from_utf8(page)
            .unwrap()
            .contains(">0 indicators for")
    );
    // One match is singular; the publication date is written in the page's language.
    let (_, page) = send(&state, get("/?lang=es&q=femicid", &[])).await;
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains(">1 indicador para “femicid”"), "singular");
    assert!(!page.contains(" GMT"), "no HTTP date on the page");
    let (_, page) = send(&state, get("/?lang=en&q=gini", &[])).await;
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains("si_pov_gini.csv"));
    assert!(!page.contains("sp_dyn_le00_in.csv"));
}

#[tokio::test]
async fn an_encoded_path_is_not_a_second_url_and_browsers_may_preflight() {
    let state = http_state(true, 60);
    let (response, _) = send(&state, get("/api/v1/indicators%2fsi_pov_gini.csv", &[])).await;
    assert_eq!(response.status(), 404);
    let (response, _) = send(&state, get("/api/v1/%ff", &[])).await;
    assert_eq!(response.status(), 404);
    let preflight = Request::options("/api/v1/indicators/si_pov_gini.csv")
        .header("origin", "http://localhost:3000")
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "range")
        .body(Body::empty())
        .unwrap();
    let (response, _) = send(&state, preflight).await;
    assert_eq!(response.status(), 204);
    assert!(
        response.headers()["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .contains("Range")
    );
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        "http://localhost:3000"
    );
    let (response, _) = send(&state, get("/api/v1/indicators/si_pov_gini.csv", &[])).await;
    assert!(
        response.headers()["access-control-expose-headers"]
            .to_str()
            .unwrap()
            .contains("ETag")
    );
}

#[test]
fn a_batch_may_not_inline_files() {
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "corpus://indicator/si_pov_gini.csv"}},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]);
    match server().handle_body(&batch) {
        Reply::Many(responses) => {
            let first: Value = serde_json::from_str(&responses[0]).unwrap();
            assert_eq!(first["error"]["code"], -32600);
            assert!(
                first["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("alone")
            );
            let second: Value = serde_json::from_str(&responses[1]).unwrap();
            assert_eq!(second["result"], json!({}));
        }
        other => panic!("expected a batch answer, got {other:?}"),
    }
}

#[test]
fn the_agent_skill_is_a_resource_with_the_corpus_working_rules() {
    let read = crate::support::stdio_exchange(&[json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "corpus://skill/lac-corpus/SKILL.md"}}).to_string()]);
    let content = &read[0]["result"]["contents"][0];
    assert_eq!(content["mimeType"], "text/markdown");
    let text = content["text"].as_str().unwrap();
    // The repository's Claude Code plugin ships the same file.
    let shipped = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../plugins/lac-corpus/skills/lac-corpus/SKILL.md"),
    )
    .unwrap();
    assert_eq!(text, shipped);
    // Agent Skills front matter: a lower-case name and a description within 1,024 characters.
    let front = text
        .strip_prefix("---\n")
        .unwrap()
        .split("\n---\n")
        .next()
        .unwrap();
    assert!(
        front.lines().any(|line| line == "name: lac-corpus"),
        "{front}"
    );
    let description = front
        .lines()
        .find_map(|line| line.strip_prefix("description: "))
        .unwrap();
    assert!(description.len() <= 1024 && description.contains("cit"));
    for rule in [
        "resolve_metric",
        "citation_id",
        "matched: false",
        "resolve_citations",
    ] {
        assert!(text.contains(rule), "{rule}");
    }
    // The plugin's manifest names it and its server.
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../plugins/lac-corpus/.claude-plugin/plugin.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["name"], "lac-corpus");
}

#[tokio::test]
async fn a_citation_id_resolves_over_http_in_each_format() {
    let state = http_state(false, 60);
    let (response, body) = send(
        &state,
        get("/api/v1/citations/wb-sp-dyn-le00-in-mex-2024", &[]),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let citation: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(citation["value"], json!(75.264));
    assert_eq!(citation["license"], json!("CC-BY-4.0"));
    let etag = response.headers()["etag"].to_str().unwrap().to_string();
    let (response, _) = send(
        &state,
        get(
            "/api/v1/citations/wb-sp-dyn-le00-in-mex-2024",
            &[("if-none-match", &etag)],
        ),
    )
    .await;
    assert_eq!(response.status(), 304);
    let (response, body) = send(
        &state,
        get(
            "/api/v1/citations/wb-sp-dyn-le00-in-mex-2024?format=bibtex",
            &[],
        ),
    )
    .await;
    assert_eq!(
        response.headers()["content-type"],
        "application/x-bibtex; charset=utf-8"
    );
    assert!(
        String::from_utf8(body)
            .unwrap()
            .starts_with("@misc{wb-sp-dyn-le00-in-mex-2024,")
    );
    let (response, body) = send(
        &state,
        get("/api/v1/citations/wbproj-p127837?format=csl-json", &[]),
    )
    .await;
    assert_eq!(
        response.headers()["content-type"],
        "application/vnd.citationstyles.csl+json"
    );
    let items: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(items[0]["id"], json!("wbproj-p127837"));
    let (response, body) = send(
        &state,
        get("/api/v1/citations/wb-sp-dyn-le00-in-mex-1066", &[]),
    )
    .await;
    assert_eq!(response.status(), 404);
    assert!(
        String::from_utf8(body)
            .unwrap()
            .contains("no sp_dyn_le00_in value for MEX in 1066")
    );
    let (response, body) = send(&state, get("/api/v1/citations/wbproj-P127837", &[])).await;
    assert_eq!(response.status(), 404);
    assert!(
        String::from_utf8(body)
            .unwrap()
            .contains("its canonical form is wbproj-p127837")
    );
    let (response, body) = send(
        &state,
        get(
            "/api/v1/citations/wb-sp-dyn-le00-in-mex-2024?format=mla",
            &[],
        ),
    )
    .await;
    assert_eq!(response.status(), 400);
    assert!(
        String::from_utf8(body)
            .unwrap()
            .contains("json, csl-json, bibtex, apa, chicago, text")
    );
    // The catalog JSON says where ids resolve; the catalog page links the resolver.
    let (_, body) = send(&state, get("/api/v1/catalog", &[])).await;
    let catalog: Value = serde_json::from_slice(&body).unwrap();
    assert!(
        catalog["citations"]["url_template"]
            .as_str()
            .unwrap()
            .ends_with("/api/v1/citations/{citation_id}")
    );
    assert_eq!(catalog["citations"]["formats"][2], json!("bibtex"));
    let (_, body) = send(&state, get("/?lang=en", &[])).await;
    let page = String::from_utf8(body).unwrap();
    assert!(
        page.contains("Any citation_id resolves at"),
        "the catalog names the resolver"
    );
}

#[tokio::test]
async fn every_answer_is_nosniff_pages_refuse_framing_and_a_repeated_host_or_origin_is_refused() {
    let state = http_state(true, 60);
    for path in [
        "/api/v1/catalog",
        "/api/v1/indicators/nope.csv",
        "/api/v1/indicators/si_pov_gini.csv",
    ] {
        let (response, _) = send(&state, get(path, &[])).await;
        assert_eq!(
            response.headers()["x-content-type-options"],
            "nosniff",
            "{path}"
        );
    }
    let (response, _) = send(&state, get("/?lang=en", &[])).await;
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap();
    assert!(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"));
    assert_eq!(response.headers()["x-frame-options"], "DENY");
    let (response, _) = send(&state, get("/chart/sp_dyn_le00_in?lang=en", &[])).await;
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap();
    assert!(policy.contains("script-src") && policy.contains("frame-ancestors 'none'"));

    for name in ["host", "origin"] {
        let value = if name == "host" {
            "127.0.0.1"
        } else {
            "http://localhost:3000"
        };
        let request = Request::get("/api/v1/catalog")
            .header(name, value)
            .header(name, value)
            .body(Body::empty())
            .unwrap();
        let (response, body) = send(&state, request).await;
        assert_eq!(response.status(), 400, "{name}");
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains(&format!("repeats the `{name}` header")),
            "{body}"
        );
    }
}

#[tokio::test]
async fn a_transfer_coding_other_than_chunked_is_501_and_a_head_over_64_kib_is_431() {
    let state = http_state(true, 60);
    for (coding, status) in [
        ("gzip, chunked", 501),
        ("chunked, chunked", 501),
        ("chunked", 200),
    ] {
        let request = Request::get("/api/v1/catalog")
            .header("transfer-encoding", coding)
            .body(Body::empty())
            .unwrap();
        let (response, body) = send(&state, request).await;
        assert_eq!(response.status(), status, "{coding}");
        if status == 501 {
            let body: Value = serde_json::from_slice(&body).unwrap();
            assert!(body["message"].as_str().unwrap().contains("is not served"));
        }
    }
    let mut request = Request::get("/api/v1/catalog");
    for index in 0..70 {
        request = request.header(format!("x-pad-{index}"), "p".repeat(1000));
    }
    let (response, body) = send(&state, request.body(Body::empty()).unwrap()).await;
    assert_eq!(response.status(), 431);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert!(
        body["message"].as_str().unwrap().contains("at most 65536"),
        "{body}"
    );
}

#[test]
fn every_listed_file_is_found_by_its_path_its_resource_uri_and_its_subject() {
    let downloads = server().plugin().corpus().downloads();
    assert!(
        downloads.files().len() > 3000,
        "{} files",
        downloads.files().len()
    );
    for file in downloads.files() {
        let download = &file.download;
        let uri = download.resource_uri();
        let by_uri = downloads.by_uri(&uri).expect(&uri);
        assert_eq!(by_uri.download.path, download.path, "{uri}");
        let by_path = downloads.by_path(&download.path).expect(&download.path);
        assert_eq!(by_path.download.path, download.path);
        assert!(
            downloads
                .of(download.subject, &download.id)
                .any(|listed| listed.download.path == download.path),
            "{} among the files of {:?} {}",
            download.path,
            download.subject,
            download.id
        );
    }
    // The Gini index's files, in format order, the CSV first; its size and sha256 are the manifest's.
    let gini: Vec<&str> = downloads
        .of(corpus::exports::Subject::Indicator, "si_pov_gini")
        .map(|file| file.download.path.as_str())
        .collect();
    assert_eq!(gini[0], "indicators/si_pov_gini.csv");
    assert_eq!(gini[1], "indicators/si_pov_gini.wide.csv");
    let csv = downloads
        .by_uri("corpus://indicator/si_pov_gini.csv")
        .unwrap();
    let manifest = server().plugin().corpus().baked.manifest();
    let entry = manifest
        .artifact("exports/indicators/si_pov_gini.csv")
        .unwrap();
    assert_eq!(
        (csv.bytes, csv.sha256.as_str()),
        (entry.bytes, entry.sha256.as_str())
    );
    assert!(
        downloads
            .by_uri("corpus://indicator/si_pov_gini.txt")
            .is_none()
    );
    assert!(
        downloads
            .by_uri("corpus://indicators/si_pov_gini.csv")
            .is_none()
    );
    assert!(downloads.by_path("../manifest.json").is_none());
}
