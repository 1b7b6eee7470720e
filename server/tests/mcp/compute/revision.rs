//! `compute` op `revision`: one cell in WEO April 2019 and April 2025, both cited.

use serde_json::json;

use crate::support::{call_tool, cited_ids, payload};

#[test]
fn a_revision_cites_both_vintages_and_says_the_earlier_value_was_a_projection() {
    let answer = call_tool(
        "compute",
        json!({"op": "revision", "indicator": "ngdp_rpch", "country": "Brasil", "year": 2019}),
    );
    let content = payload(&answer);
    let revision = &content["result"]["revision"];
    assert_eq!(revision["earlier"]["indicator"], json!("ngdp_rpch_weo2019"));
    assert_eq!(revision["earlier"]["vintage"], json!("2019-04"));
    assert_eq!(revision["earlier"]["value"], json!(2.055));
    assert_eq!(
        revision["earlier"]["citation_id"],
        json!("imf2019-ngdp-rpch-weo2019-bra-2019")
    );
    assert_eq!(revision["earlier"]["projection"], json!(true));
    assert_eq!(revision["later"]["value"], json!(1.221));
    assert_eq!(
        revision["later"]["citation_id"],
        json!("imf-ngdp-rpch-bra-2019")
    );
    assert_eq!(revision["revision"], json!(-0.834));
    // A relative change of a growth rate means nothing: left out, with the note.
    assert!(revision.get("revision_percent").is_none());
    let notes = content["result"]["notes"].to_string();
    assert!(
        notes.contains("was a projection when that vintage was published"),
        "{notes}"
    );
    assert!(notes.contains("percentage points"), "{notes}");
    assert_eq!(content["read"], json!({"Brasil": "BRA"}));
    let cited = cited_ids(&content);
    assert!(cited.contains(&json!("imf2019-ngdp-rpch-weo2019-bra-2019")));
    // A level gets its revision in percent; the default year is the latest both vintages hold.
    let answer = call_tool(
        "compute",
        json!({"op": "revision", "indicator": "ngdpd", "country": "MEX", "year": 2018}),
    );
    let revision = &payload(&answer)["result"]["revision"];
    assert_eq!(revision["earlier"]["value"], json!(1223.36));
    assert_eq!(revision["later"]["value"], json!(1256.3));
    assert_eq!(revision["revision_percent"], json!(2.69258));
    let answer = call_tool(
        "compute",
        json!({"op": "revision", "indicator": "ngdp_rpch_weo2019", "country": "ARG"}),
    );
    let revision = &payload(&answer)["result"]["revision"];
    assert_eq!(revision["earlier"]["year"], json!(2024));
    assert_eq!(revision["earlier"]["value"], json!(3.562));
    assert_eq!(revision["later"]["value"], json!(-1.719));
}

#[test]
fn a_revision_of_an_indicator_held_in_one_vintage_names_those_held_in_two() {
    let answer = call_tool(
        "compute",
        json!({"op": "revision", "indicator": "sp_dyn_le00_in", "country": "MEX"}),
    );
    assert_eq!(answer["isError"], json!(true));
    let error = payload(&answer)["result"]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("sp_dyn_le00_in is held in one vintage only (2026-07)"),
        "{error}"
    );
    assert!(error.contains("bca"), "{error}");
}
