//! `resolve_citations`: case D3 of `../shared/cases/data.md`, non-canonical ids, a project record.

use serde_json::json;

use crate::support::{call_tool, citation_of, payload};

#[test]
fn d3_resolve_citations_resolves_stored_ids_and_explains_the_rest() {
    let answer = call_tool(
        "resolve_citations",
        json!({"ids": ["wb-sp-dyn-le00-in-mex-2024", "wb-sp-dyn-le00-in-mex-1066", "pulse-abc"]}),
    );
    let content = payload(&answer);
    assert_eq!(
        content["result"]["resolved"],
        json!([{"citation_id": "wb-sp-dyn-le00-in-mex-2024", "year": 2024, "value": 75.264}])
    );
    let citation = citation_of(&content, "wb-sp-dyn-le00-in-mex-2024").expect("its records");
    assert_eq!(citation["publisher"], json!("The World Bank"));
    assert_eq!(citation["dataset"], json!("World Development Indicators"));
    assert_eq!(
        citation["title"],
        json!("Life expectancy at birth, total (years)")
    );
    assert_eq!(
        citation["url"],
        json!("https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX")
    );
    assert_eq!(citation["retrieved_at"], json!("2026-07-01"));
    let unresolved = content["result"]["unresolved"].as_array().unwrap();
    assert_eq!(unresolved.len(), 2);
    assert_eq!(
        unresolved[0]["citation_id"],
        json!("wb-sp-dyn-le00-in-mex-1066")
    );
    assert!(
        unresolved[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no sp_dyn_le00_in value for MEX in 1066")
    );
    assert_eq!(unresolved[1]["citation_id"], json!("pulse-abc"));
    assert!(
        unresolved[1]["reason"]
            .as_str()
            .unwrap()
            .contains("per-response")
    );
}

#[test]
fn non_canonical_citation_ids_do_not_resolve() {
    let answer = call_tool(
        "resolve_citations",
        json!({"ids": ["wb-sp-dyn-le00-in-mex-+2024", "wb-sp-dyn-le00-in-MEX-2024", "wb-sp-dyn-le00-in-mex-02024"]}),
    );
    let content = payload(&answer);
    assert_eq!(content["result"]["resolved"], json!([]));
    for unresolved in content["result"]["unresolved"].as_array().unwrap() {
        assert!(
            unresolved["reason"]
                .as_str()
                .unwrap()
                .contains("wb-sp-dyn-le00-in-mex-2024"),
            "{unresolved}"
        );
    }
}

#[test]
fn resolve_citations_resolves_a_project_record() {
    let body = payload(&call_tool(
        "resolve_citations",
        json!({"ids": ["wbproj-p127837", "wb-si-pov-gini-ury-2024", "wbproj-p000000"]}),
    ));
    assert_eq!(body["result"]["records"], json!(["wbproj-p127837"]));
    assert_eq!(
        body["citations"]["records"]["wbproj-p127837"]["title"],
        "Access and Renewable Energy Project"
    );
    assert_eq!(body["result"]["resolved"][0]["value"], 40.0);
    assert_eq!(
        body["result"]["unresolved"][0]["citation_id"],
        "wbproj-p000000"
    );
}

#[test]
fn citations_come_ready_to_paste_in_each_format() {
    let ids = json!(["wb-sp-dyn-le00-in-mex-2024", "wbproj-p127837"]);
    let formatted = |format: &str| {
        let answer = call_tool("resolve_citations", json!({"ids": ids, "format": format}));
        payload(&answer)["result"]["formatted"].clone()
    };
    let apa = formatted("apa");
    assert_eq!(apa[0]["citation_id"], json!("wb-sp-dyn-le00-in-mex-2024"));
    assert_eq!(
        apa[0]["text"],
        json!(
            "The World Bank. (2026). *Life expectancy at birth, total (years)* (SP.DYN.LE00.IN; Mexico, 2024; release 2026-07) [Data set]. World Development Indicators. Retrieved July 1, 2026, from https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX. Value: 75.264 years. Licence: CC-BY-4.0. World Bank, World Development Indicators"
        )
    );
    assert!(
        apa[1]["text"]
            .as_str()
            .unwrap()
            .contains("*Access and Renewable Energy Project*")
    );
    let bibtex = formatted("bibtex")[0]["text"].as_str().unwrap().to_string();
    assert!(
        bibtex.starts_with("@misc{wb-sp-dyn-le00-in-mex-2024,"),
        "{bibtex}"
    );
    assert!(bibtex.contains("urldate      = {2026-07-01}"), "{bibtex}");
    let csl = &formatted("csl-json")[0]["csl"];
    assert_eq!(csl["type"], json!("dataset"));
    assert_eq!(csl["number"], json!("SP.DYN.LE00.IN"));
    assert_eq!(csl["version"], json!("2026-07"));
    for format in ["chicago", "text"] {
        let text = formatted(format)[0]["text"].as_str().unwrap().to_string();
        assert!(text.contains("Mexico, 2024"), "{format}: {text}");
        assert!(text.contains("CC-BY-4.0"), "{format}: {text}");
    }
    // The default answers JSON only.
    let answer = call_tool("resolve_citations", json!({"ids": ids}));
    assert!(payload(&answer)["result"].get("formatted").is_none());
    let answer = call_tool("resolve_citations", json!({"ids": ids, "format": "mla"}));
    assert_eq!(answer["isError"], json!(true));
}
