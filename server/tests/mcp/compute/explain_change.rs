//! `compute` op `explain_change`: the associated changes beside the change.

use serde_json::json;

use super::compute;
use crate::support::cited_ids;

#[test]
fn explain_change_sets_associated_changes_beside_the_change() {
    let (result, citations) = compute(
        json!({"op": "explain_change", "parameter": "salud", "indicator": "sp_dyn_le00_in", "country": "MEX", "from_year": 2010, "to_year": 2024}),
    );
    assert!((result["absolute_change"].as_f64().unwrap() - 1.546).abs() < 1e-9);
    let associated = result["associated"].as_array().unwrap();
    assert!(
        !associated.is_empty(),
        "life expectancy correlates with other health indicators"
    );
    for item in associated {
        assert!(item["p_value"].as_f64().unwrap() < 0.05);
        for id in item["citation_ids"].as_array().unwrap() {
            assert!(cited_ids(&citations).contains(id), "{id} cited");
        }
    }
    assert!(
        result["calculation"]["method"]
            .as_str()
            .unwrap()
            .contains("not causes")
    );
}
