//! The data cases of `../shared/cases/data.md` that are no one tool's: D7, country normalisation (an
//! unknown country is refused with the valid ones). Each tool's own cases are in the file named after
//! it (D1, D2, D10, D11 in get_series; D3 in resolve_citations; D4, D5, D6 in compute; D9 in
//! resolve_metric).

use serde_json::json;

use crate::support::{call_tool, payload};

#[test]
fn d7_unknown_countries_list_the_valid_ones() {
    let answer = call_tool(
        "compare_countries",
        json!({"parameter": "salud", "countries": ["MEX", "Narnia"]}),
    );
    assert_eq!(answer["isError"], json!(true));
    let message = payload(&answer)["result"]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("`Narnia`") && message.contains("BRA") && message.contains("MEX"),
        "{message}"
    );
}
