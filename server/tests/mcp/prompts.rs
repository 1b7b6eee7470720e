//! `prompts/list` and `prompts/get`: the country-brief and compare-countries flows, their arguments
//! resolved against the corpus, refusals that name what is valid.

use serde_json::{Value, json};
use server::transport::jsonrpc::Reply;

use crate::support::server;

fn rpc(method: &str, params: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let Reply::One { response, .. } = server().handle_body(&request) else {
        panic!("one response");
    };
    serde_json::from_str(&response).unwrap()
}

#[test]
fn prompts_are_declared_and_listed_with_their_arguments() {
    let initialized = rpc(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(
        initialized["result"]["capabilities"]["prompts"],
        json!({"listChanged": false})
    );
    let listed = rpc("prompts/list", json!({}));
    let prompts = listed["result"]["prompts"].as_array().unwrap();
    let names: Vec<&str> = prompts
        .iter()
        .map(|prompt| prompt["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["country_brief", "compare_countries", "check_claims"]
    );
    assert_eq!(prompts[0]["arguments"][0]["name"], json!("country"));
    assert_eq!(prompts[0]["arguments"][0]["required"], json!(true));
}

#[test]
fn a_country_brief_names_the_calls_with_the_corpus_ids() {
    let got = rpc(
        "prompts/get",
        json!({"name": "country_brief", "arguments": {"country": "Brasil", "pillar": "educación", "lang": "pt"}}),
    );
    let message = &got["result"]["messages"][0];
    assert_eq!(message["role"], json!("user"));
    let text = message["content"]["text"].as_str().unwrap();
    assert!(text.starts_with("Write a brief on Brasil (BRA)"), "{text}");
    assert!(
        text.contains(
            r#"get_parameter_data {"parameter": "educacion", "country": "BRA", "lang": "pt"}"#
        ),
        "{text}"
    );
    assert!(
        text.contains("in Portuguese")
            && text.contains("citation_id")
            && text.contains("never fill one in")
    );
    let compared = rpc(
        "prompts/get",
        json!({"name": "compare_countries", "arguments": {"countries": "Chile, Perú,URY", "pillar": "salud"}}),
    );
    let text = compared["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.contains(r#""countries": ["CHL", "PER", "URY"]"#),
        "{text}"
    );
}

#[test]
fn prompts_refuse_what_does_not_resolve_and_say_what_would() {
    for (params, expected) in [
        (
            json!({"name": "nope"}),
            "no prompt `nope`; prompts: country_brief, compare_countries",
        ),
        (
            json!({"name": "country_brief", "arguments": {}}),
            "argument `country` is required",
        ),
        (
            json!({"name": "country_brief", "arguments": {"country": "Atlantis"}}),
            "Atlantis",
        ),
        (
            json!({"name": "country_brief", "arguments": {"country": "MEX", "colour": "x"}}),
            "`colour` is not one of its arguments",
        ),
        (
            json!({"name": "compare_countries", "arguments": {"countries": "MEX", "pillar": "salud"}}),
            "give 2 to 8 distinct countries",
        ),
        (json!({}), "needs params.name"),
    ] {
        let answer = rpc("prompts/get", params.clone());
        assert_eq!(answer["error"]["code"], json!(-32602), "{params}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{params}: {message}");
    }
}

#[test]
fn a_claim_check_writes_the_texts_figures_as_claims_of_one_call() {
    let text = "México tuvo una esperanza de vida de 75,3 años en 2024. El crecimiento del PIB de Brasil fue de 3.4 % en 2024; la región creció. Sin cifras aquí.";
    let got = rpc(
        "prompts/get",
        json!({"name": "check_claims", "arguments": {"text": text, "lang": "es"}}),
    );
    let message = got["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains(r#"verify_claims {"claims":[{"text":"México tuvo una esperanza de vida de 75,3 años en 2024."},{"text":"El crecimiento del PIB de Brasil fue de 3.4 % en 2024;"}]}"#), "{message}");
    assert!(message.contains("report in Spanish"), "{message}");
    assert!(message.contains("\"format\": \"apa\""), "{message}");
    // The message's call answers: the claims as written are checked.
    let claims: Value = serde_json::from_str(
        message
            .split("verify_claims ")
            .nth(1)
            .unwrap()
            .split(" (pass next_offset")
            .next()
            .unwrap(),
    )
    .unwrap();
    let answer = crate::support::call_tool("verify_claims", claims);
    let verdicts = &crate::support::payload(&answer)["result"]["verdicts"];
    assert_eq!(verdicts[0]["verdict"], json!("match"));
    assert_eq!(verdicts[1]["verdict"], json!("match"));
    let refused = rpc(
        "prompts/get",
        json!({"name": "check_claims", "arguments": {"text": "no figures at all"}}),
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("states no number"),
        "{refused}"
    );
}
