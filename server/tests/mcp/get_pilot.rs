//! `get_pilot`: the full sheet of a project, every number cited.

use serde_json::json;

use crate::support::{call_tool, cited_ids, payload};

#[test]
fn get_pilot_gives_the_full_sheet_of_a_project_every_number_cited() {
    let answer = call_tool("get_pilot", json!({"slug": "p102479"}));
    assert_eq!(answer["isError"], false, "{answer}");
    let size = serde_json::to_string(&answer["structuredContent"])
        .unwrap()
        .len();
    assert!(size <= 16 * 1024, "{size} B");
    let body = payload(&answer);
    let sheet = &body["result"];
    assert_eq!(
        sheet["project"]["title"],
        "Bolivia Decentralized Electricity for Universal Access"
    );
    assert_eq!(sheet["project"]["country"], "BOL");
    // A pure grant: the newer export's total is the grant; no lending commitment.
    assert!(sheet["economics"]["commitment_usd"].is_null());
    assert_eq!(sheet["bankability"]["maturity"], "closed");
    assert!(
        sheet["decision_makers"]["implementing_agency"].is_string()
            || sheet["decision_makers"]["implementing_agency"].is_null()
    );
    // Similar projects are Bolivian and share a pillar; each is cited as a record.
    let similar = sheet["bankability"]["similar"].as_array().unwrap();
    assert!(!similar.is_empty());
    let cited = cited_ids(&body);
    for other in similar {
        assert!(cited.contains(&other["citation_id"]), "{other}");
    }
    assert!(cited.contains(&json!("wbproj-p102479")));
    // The cost is all the World Bank's grant: no other financing is made up.
    assert_eq!(sheet["economics"]["cost_usd"], 5_175_000.0);
    assert_eq!(sheet["economics"]["grant_usd"], 5_175_000.0);
    assert!(sheet["economics"]["other_financing_usd"].is_null());
    // P127837 cost 59.15 M US$ with a 50 M commitment: 9.15 M from others.
    let access = payload(&call_tool("get_pilot", json!({"slug": "P127837"})));
    let other = access["result"]["economics"]["other_financing_usd"]
        .as_f64()
        .unwrap();
    assert!((other - 9_150_000.0).abs() < 1.0, "{other}");

    let unknown = call_tool("get_pilot", json!({"slug": "p000000"}));
    assert_eq!(unknown["isError"], true);
    assert!(
        unknown["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("find_pilots lists them")
    );
}
