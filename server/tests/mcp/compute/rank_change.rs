//! `compute` op `rank_change`: every country ranked by its change, cited to both cells.

use serde_json::json;

use super::compute;
use crate::support::{call_tool, cited_ids, payload};

#[test]
fn rank_change_ranks_every_country_by_its_change_cited_to_both_cells() {
    // "Which country improved its control of corruption the most in 10 years" in one call.
    let answer = call_tool(
        "compute",
        json!({"op": "rank_change", "indicator": "cc_est", "from_year": 2013, "to_year": 2023, "limit": 64}),
    );
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let bytes = serde_json::to_string(&answer["structuredContent"])
        .unwrap()
        .len();
    assert!(bytes <= 40 * 1024, "{bytes} B");
    let content = payload(&answer);
    let cited = cited_ids(&content);
    let ranking = &content["result"]["change_ranking"];
    assert_eq!(
        (ranking["from_year"].clone(), ranking["to_year"].clone()),
        (json!(2013), json!(2023))
    );
    let ranked = ranking["ranked"].as_array().unwrap();
    assert!(ranked.len() >= 25, "{} countries", ranked.len());
    let corpus = crate::support::server().plugin().corpus();
    let mut previous = f64::INFINITY;
    for entry in ranked {
        let change = entry["change"].as_f64().unwrap();
        assert!(change <= previous, "best (largest rise) first");
        previous = change;
        let (from, to) = (&entry["from"], &entry["to"]);
        assert_eq!(
            change,
            to["value"].as_f64().unwrap() - from["value"].as_f64().unwrap()
        );
        assert!(
            entry.get("relative_change").is_none(),
            "an index crossing zero"
        );
        for cell in [from, to] {
            assert!(cited.contains(&cell["citation_id"]), "{cell} cited");
            let stored = corpus
                .baked
                .resolve_citation(cell["citation_id"].as_str().unwrap())
                .unwrap();
            assert_eq!(stored.value, cell["value"].as_f64().unwrap());
        }
    }
    // The first country's change equals op change for it.
    let first = &ranked[0];
    let (result, _) = compute(
        json!({"op": "change", "indicator": "cc_est", "country": first["country"], "from_year": 2013, "to_year": 2023}),
    );
    assert_eq!(result["absolute_change"], first["change"]);
    assert_eq!(
        content["result"]["calculation"]["inputs"]
            .as_array()
            .unwrap()
            .len(),
        2 * ranked.len()
    );
    // Lower is better for homicides: the largest fall comes first; defaults are the 10 years to the
    // regional year.
    let (result, _) = compute(json!({"op": "rank_change", "indicator": "vc_ihr_psrc_p5"}));
    let ranking = &result["change_ranking"];
    assert_eq!(
        ranking["to_year"].as_i64().unwrap() - ranking["from_year"].as_i64().unwrap(),
        10
    );
    let changes: Vec<f64> = ranking["ranked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["change"].as_f64().unwrap())
        .collect();
    assert!(
        changes.windows(2).all(|pair| pair[0] <= pair[1]),
        "{changes:?}"
    );
}

#[test]
fn rank_change_says_which_changes_exceed_their_combined_standard_error() {
    // WGI control of corruption, Mexico: 2013 -0.59 (SE 0.14), 2023 -1.02 (SE 0.16). The fall of 0.43
    // is beyond 1.64 × √(0.14² + 0.16²) = 0.349: significant at 90 %.
    let (result, _) = compute(
        json!({"op": "rank_change", "indicator": "cc_est", "from_year": 2013, "to_year": 2023, "limit": 64}),
    );
    let ranking = &result["change_ranking"];
    let ranked = ranking["ranked"].as_array().unwrap();
    let mexico = ranked
        .iter()
        .find(|entry| entry["country"] == json!("MEX"))
        .expect("MEX ranked");
    assert_eq!(mexico["from"]["value"], json!(-0.59));
    assert_eq!(mexico["from"]["standard_error"], json!(0.14));
    assert_eq!(mexico["to"]["value"], json!(-1.02));
    assert_eq!(mexico["to"]["standard_error"], json!(0.16));
    assert_eq!(mexico["standard_error"], json!(0.2126));
    assert_eq!(mexico["significant_90"], json!(true));
    // Every change is judged against its own cells' errors, and the summary counts them.
    let mut significant = 0;
    for entry in ranked {
        let se = entry["from"]["standard_error"]
            .as_f64()
            .unwrap()
            .hypot(entry["to"]["standard_error"].as_f64().unwrap());
        let beyond = entry["change"].as_f64().unwrap().abs() > 1.64 * se;
        assert_eq!(entry["significant_90"], json!(beyond), "{entry}");
        significant += usize::from(beyond);
    }
    let summary = &ranking["significance"];
    assert_eq!(summary["with_standard_error"], json!(ranked.len()));
    assert_eq!(summary["significant_90"], json!(significant));
    assert_eq!(summary["within_noise"], json!(ranked.len() - significant));
    assert!(
        significant > 0 && significant < ranked.len(),
        "{significant} of {}",
        ranked.len()
    );
    // An indicator without standard errors has no significance.
    let (result, _) = compute(
        json!({"op": "rank_change", "indicator": "sp_dyn_le00_in", "from_year": 2013, "to_year": 2023}),
    );
    assert!(result["change_ranking"].get("significance").is_none());
    assert!(
        result["change_ranking"]["ranked"][0]
            .get("significant_90")
            .is_none()
    );
}
