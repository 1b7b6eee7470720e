//! `compare_countries`: every latest value of a pillar, cited.

use serde_json::json;

use crate::support::{call_tool, payload};

#[test]
fn compare_countries_cites_every_latest_value() {
    let answer = call_tool(
        "compare_countries",
        json!({"parameter": "security", "countries": ["México", "Brasil", "COL"], "lang": "pt"}),
    );
    assert_eq!(answer["isError"], json!(false));
    let content = payload(&answer);
    let result = &content["result"];
    assert_eq!(result["parameter"], json!("seguridad"));
    assert_eq!(result["parameter_name"], json!("Segurança"));
    let homicides = result["indicators"]
        .as_array()
        .unwrap()
        .iter()
        .find(|indicator| indicator["id"] == json!("vc_ihr_psrc_p5"))
        .unwrap();
    assert_eq!(homicides["name"], json!("Homicídios intencionais"));
    let brazil = homicides["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|value| value["country"] == json!("BRA"))
        .unwrap();
    assert_eq!(brazil["year"], json!(2023));
    assert_eq!(brazil["citation_id"], json!("wb-vc-ihr-psrc-p5-bra-2023"));
    let cited = crate::support::cited_ids(&content);
    for indicator in result["indicators"].as_array().unwrap() {
        for value in indicator["values"].as_array().unwrap() {
            assert!(
                cited.contains(&value["citation_id"]),
                "{} is cited",
                value["citation_id"]
            );
        }
    }
}
