//! `search` and `fetch`, the MCP-only tools in ChatGPT's deep-research shapes: one text block that is the
//! JSON of `structuredContent`, `results` of `{id, title, url}`, documents whose every number carries its
//! citation id, publishers' URLs, refusals that name the valid forms.

use serde_json::{Value, json};

use crate::support::{call_tool, server, structured_size};

/// The answer's only content item, parsed: ChatGPT reads exactly one text item holding the JSON.
fn only_text(answer: &Value) -> Value {
    let content = answer["content"].as_array().unwrap();
    assert_eq!(content.len(), 1, "{answer}");
    assert_eq!(content[0]["type"], json!("text"));
    let text: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, answer["structuredContent"]);
    text
}

#[test]
fn search_reads_the_country_out_of_the_query_and_lists_its_series_with_the_publishers_page() {
    let answer = call_tool("search", json!({"query": "esperanza de vida México"}));
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let results = only_text(&answer)["results"].as_array().unwrap().clone();
    assert!(results.len() <= server::tools::search::RESULTS);
    assert_eq!(
        results[0],
        json!({
            "id": "series:sp_dyn_le00_in:MEX",
            "title": "Esperanza de vida al nacer — México",
            "url": "https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX"
        })
    );
    for result in &results {
        assert!(
            result["url"].as_str().unwrap().starts_with("https://"),
            "{result}"
        );
        let object = result.as_object().unwrap();
        assert_eq!(object.len(), 3, "{result}");
    }
    // In English, without a country: the indicator itself.
    let answer = call_tool("search", json!({"query": "life expectancy", "lang": "en"}));
    let results = &answer["structuredContent"]["results"];
    assert_eq!(results[0]["id"], json!("indicator:sp_dyn_le00_in"));
    assert_eq!(results[0]["title"], json!("Life expectancy at birth"));
}

#[test]
fn search_lists_curated_records_by_their_citation_ids() {
    let answer = call_tool("search", json!({"query": "energía renovable Bolivia"}));
    let results = answer["structuredContent"]["results"].as_array().unwrap();
    let project = results
        .iter()
        .find(|result| result["id"] == json!("wbproj-p127837"))
        .expect("Bolivia's Access and Renewable Energy Project");
    assert_eq!(
        project["url"],
        json!("https://projects.worldbank.org/en/projects-operations/project-detail/P127837")
    );
    // Nothing matches: no results, not an error.
    let answer = call_tool("search", json!({"query": "zzqx vwkj"}));
    assert_eq!(answer["isError"], json!(false));
    assert_eq!(answer["structuredContent"], json!({"results": []}));
}

#[test]
fn a_fetched_series_cites_every_value_where_it_stands() {
    let answer = call_tool("fetch", json!({"id": "series:sp_dyn_le00_in:MEX"}));
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let document = only_text(&answer);
    assert_eq!(document["id"], json!("series:sp_dyn_le00_in:MEX"));
    assert_eq!(
        document["url"],
        json!("https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX")
    );
    let text = document["text"].as_str().unwrap();
    assert!(
        text.contains("\n2024: 75.264 [wb-sp-dyn-le00-in-mex-2024]\n"),
        "{text}"
    );
    assert!(text.contains("(SP.DYN.LE00.IN)"));
    // Every line that states a year's value carries that value's stored citation id.
    let corpus = &server().plugin().corpus().baked;
    let mut values = 0;
    for line in text
        .lines()
        .filter(|line| line.starts_with(char::is_numeric))
    {
        let (head, rest) = line.split_once(" [").unwrap();
        let (year, value) = head.split_once(": ").unwrap();
        let id = rest.split(']').next().unwrap();
        let citation = corpus.resolve_citation(id).unwrap();
        assert_eq!(citation.year.to_string(), year);
        assert_eq!(citation.value.to_string(), value);
        values += 1;
    }
    assert!(values >= 60, "{values} values");
    assert_eq!(document["metadata"]["publisher"], json!("The World Bank"));
    assert_eq!(document["metadata"]["license"], json!("CC-BY-4.0"));
    // A value's citation id fetches its series.
    let by_value = call_tool("fetch", json!({"id": "wb-sp-dyn-le00-in-mex-2024"}));
    assert_eq!(by_value["structuredContent"]["id"], document["id"]);
}

#[test]
fn a_fetched_indicator_gives_each_countrys_latest_value_and_names_the_rest() {
    let answer = call_tool(
        "fetch",
        json!({"id": "indicator:sp_dyn_le00_in", "lang": "en"}),
    );
    let text = answer["structuredContent"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("MEX Mexico, 2024: 75.264 [wb-sp-dyn-le00-in-mex-2024]"),
        "{text}"
    );
    assert!(
        text.contains("ABW Aruba (territory), "),
        "territories are marked"
    );
    assert!(structured_size(&answer) <= server::tools::DEFAULT_ANSWER_BYTES);
}

#[test]
fn a_fetched_record_is_its_own_citation() {
    let answer = call_tool("fetch", json!({"id": "wbproj-p127837"}));
    let document = only_text(&answer);
    assert_eq!(
        document["title"],
        json!("Access and Renewable Energy Project")
    );
    let text = document["text"].as_str().unwrap();
    assert!(text.contains("Every number below is cited as [wbproj-p127837]."));
    assert!(text.contains("commitment_usd: 50000000"), "{text}");
    assert!(text.contains("approval_date: 2014-05-27"));
    assert_eq!(document["metadata"]["dataset_id"], json!("projects"));
}

#[test]
fn fetch_refuses_what_names_no_document_and_says_what_would() {
    for (id, expected) in [
        ("nope", "is not a document id: give one from search"),
        (
            "indicator:no_such_indicator",
            "no indicator `no_such_indicator` in the corpus",
        ),
        (
            "series:sp_dyn_le00_in:ESP",
            "`ESP` is not a country of the corpus",
        ),
        ("wbproj-p000000", "no curated record `wbproj-p000000`"),
        ("dataset:nothing", "no dataset `nothing` in the catalog"),
    ] {
        let answer = call_tool("fetch", json!({"id": id}));
        assert_eq!(answer["isError"], json!(true), "{id}");
        let error = answer["structuredContent"]["result"]["error"]
            .as_str()
            .unwrap();
        assert!(error.contains(expected), "{id}: {error}");
        // The error's text stands alone (Claude Code drops structuredContent on errors).
        assert!(
            answer["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains(expected)
        );
    }
}

#[test]
fn search_and_fetch_are_listed_as_mcp_only_beside_the_fifteen() {
    let listed = crate::support::real_tools_list();
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 18);
    assert_eq!(&names[15..], ["verify_claims", "search", "fetch"]);
    for tool in &listed["tools"].as_array().unwrap()[16..] {
        assert!(
            tool["description"]
                .as_str()
                .unwrap()
                .starts_with("MCP-only")
        );
        let required = &tool["inputSchema"]["required"];
        assert_eq!(required.as_array().unwrap().len(), 1, "one string argument");
    }
}
