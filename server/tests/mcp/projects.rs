//! The curated projects across tools, on the real corpus: a full portfolio under its budgets in
//! find_pilots and get_dataset with only canonical ids resolving, and the blanks of the newer World Bank
//! export read from the older one as get_pilot, recommend_action and find_pilots see them. Each tool's
//! own tests over the projects are in the file named after it.

use serde_json::json;

use crate::support::{call_tool, cited_ids, payload};

#[test]
fn a_full_portfolio_stays_under_its_budget_and_queries_are_words() {
    for arguments in [
        json!({"limit": 25}),
        json!({"parameter": "medio_ambiente", "limit": 25}),
        json!({"country": "ARG", "limit": 25}),
    ] {
        let answer = call_tool("find_pilots", arguments.clone());
        let size = serde_json::to_string(&answer["structuredContent"])
            .unwrap()
            .len();
        assert!(size <= 24 * 1024, "{arguments}: {size} B");
        let body = payload(&answer);
        assert_eq!(body["result"]["truncated"], true, "{arguments}");
        cited_ids(&body);
    }
    // NOT is a word, not an operator that would match every project without the next word.
    let not = payload(&call_tool("find_pilots", json!({"query": "NOT water"})));
    let water = payload(&call_tool("find_pilots", json!({"query": "water"})));
    assert!(not["result"]["total"].as_u64() <= water["result"]["total"].as_u64());
    // A page of projects counts its records against the page budget.
    let page = call_tool(
        "get_dataset",
        json!({"dataset_id": "projects", "limit": 500}),
    );
    let size = serde_json::to_string(&page["structuredContent"])
        .unwrap()
        .len();
    assert!(size <= 40 * 1024, "{size} B");
    // Only the canonical record id resolves.
    let body = payload(&call_tool(
        "resolve_citations",
        json!({"ids": ["wb-p127837", "wbproj-p000000"]}),
    ));
    assert_eq!(body["result"]["records"], json!([]));
    assert!(
        body["result"]["unresolved"][1]["reason"]
            .as_str()
            .unwrap()
            .contains("no projects record `wbproj-p000000`")
    );
}

#[test]
fn blanks_of_the_newer_export_are_read_from_the_older_and_projects_without_sectors_take_title_pillars()
 {
    // wb_projects_lac_2025-03-31.csv leaves P006110 (ENDE POWER I, Bolivia, closed) at cost 0.0 and no
    // commitment; wb_projects_lac_2024-08-29.csv reports 10,000,000 for both, closing 10/31/1970.
    let ende = payload(&call_tool("get_pilot", json!({"slug": "006110"})));
    assert_eq!(ende["result"]["economics"]["commitment_usd"], 10_000_000.0);
    assert_eq!(ende["result"]["economics"]["cost_usd"], 10_000_000.0);
    assert_eq!(ende["result"]["bankability"]["closing_date"], "1970-10-31");
    let notes = ende["result"]["notes"].to_string();
    assert!(
        notes.contains("cost_usd, commitment_usd, closing_date read from the older export"),
        "{notes}"
    );
    // P180027 (IDTR III, active, US$125 million): no sector in either export; "Electricity" in its title
    // places it in energia, and the sheet says so. The newer export's stage is "BANK APPROVED".
    let idtr = payload(&call_tool("get_pilot", json!({"slug": "wbproj-p180027"})));
    assert_eq!(idtr["result"]["project"]["pillars"], json!(["energia"]));
    assert_eq!(idtr["result"]["project"]["pillars_from"], "title");
    assert_eq!(idtr["result"]["bankability"]["stage"], "BANK APPROVED");
    assert_eq!(idtr["result"]["bankability"]["status_as_of"], "2025-03-31");
    assert_eq!(idtr["result"]["risks"]["environmental_risk"], "Substantial");
    assert!(
        idtr["result"]["notes"]
            .to_string()
            .contains("reviewed words of its title")
    );
    // So the Bolivian energy chain finds it at home, and a Spanish query finds it by its agency's name.
    let chain = payload(&call_tool(
        "recommend_action",
        json!({"country": "BOL", "pillar": "energia"}),
    ));
    assert_eq!(chain["result"]["projects"][0]["slug"], "p180027");
    let pilots = payload(&call_tool(
        "find_pilots",
        json!({"query": "energía renovable", "country": "BOL", "limit": 5}),
    ));
    let slugs: Vec<&str> = pilots["result"]["pilots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pilot| pilot["slug"].as_str().unwrap())
        .collect();
    assert!(
        slugs.contains(&"p180027") && slugs.contains(&"p127837"),
        "{slugs:?}"
    );
}
