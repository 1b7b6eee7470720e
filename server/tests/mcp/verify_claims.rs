//! `verify_claims`: the checks on real values, what the rules read, the bands, the diagnoses,
//! places refused honestly, the 10 KB page of 20 claims, and the claim evaluation
//! (`server/tests/data/claims.json`) with its confusion table and null-probe rate.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::support::{call_tool, cited_ids, payload, structured_size};

/// The verdicts of `claims`, checked against the citation contract.
fn verdicts(claims: Value) -> Vec<Value> {
    let answer = call_tool("verify_claims", json!({"claims": claims, "lang": "en"}));
    assert_eq!(answer["isError"], json!(false), "{answer}");
    let content = payload(&answer);
    cited_ids(&content);
    content["result"]["verdicts"].as_array().unwrap().clone()
}

fn one(claim: Value) -> Value {
    verdicts(json!([claim])).remove(0)
}

fn kinds(verdict: &Value) -> Vec<String> {
    verdict["diagnosis"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|diagnosis| diagnosis["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_true_claim_matches_at_its_own_rounding_and_says_what_it_read() {
    let verdict = one(json!({"text": "Mexico's life expectancy was 75.3 years in 2024"}));
    assert_eq!(verdict["verdict"], json!("match"));
    assert_eq!(
        verdict["read"],
        json!({"place": {"Mexico": "MEX"}, "indicator": {"life expectancy": "sp_dyn_le00_in"}, "year": 2024, "value": 75.3, "unit": "years"})
    );
    assert_eq!(
        verdict["corpus"],
        json!({"value": 75.264, "year": 2024, "citation_id": "wb-sp-dyn-le00-in-mex-2024"})
    );
    assert_eq!(verdict["difference"], json!(0.036));
    // Another year: close, and the year that matches named and cited.
    let verdict = one(json!({"text": "Mexico's life expectancy was 75.3 years in 2023"}));
    assert_eq!(verdict["verdict"], json!("close"));
    assert_eq!(verdict["corpus"]["value"], json!(75.069));
    assert_eq!(verdict["diagnosis"][0]["kind"], json!("year"));
    assert_eq!(verdict["diagnosis"][0]["says"], json!("2024 matches"));
    assert_eq!(
        verdict["diagnosis"][0]["citation_id"],
        json!("wb-sp-dyn-le00-in-mex-2024")
    );
    assert_eq!(verdict["tolerance"]["match"], json!(0.05));
}

#[test]
fn a_growth_claim_is_judged_against_wdi_and_the_weo_with_both_cited() {
    let verdict = one(json!({"text": "Brazil's GDP growth was 3.4 % in 2024"}));
    assert_eq!(verdict["verdict"], json!("match"));
    assert_eq!(
        verdict["corpus"]["citation_id"],
        json!("wb-ny-gdp-mktp-kd-zg-bra-2024")
    );
    assert_eq!(verdict["also"][0]["indicator"], json!("ngdp_rpch"));
    assert_eq!(verdict["also"][0]["vintage"], json!("2025-04"));
    assert_eq!(verdict["also"][0]["value"], json!(3.396));
    assert_eq!(
        verdict["also"][0]["citation_id"],
        json!("imf-ngdp-rpch-bra-2024")
    );
    assert_eq!(verdict["also"][0]["verdict"], json!("match"));
    // A figure the WEO projected in April 2019, since revised: the older vintage names it, never a match.
    let verdict = one(json!({"text": "Argentina's GDP growth was 3.6% in 2024"}));
    assert_eq!(verdict["verdict"], json!("mismatch"));
    let vintage = verdict["diagnosis"]
        .as_array()
        .unwrap()
        .iter()
        .find(|diagnosis| diagnosis["kind"] == json!("vintage"))
        .expect("the older vintage explains it");
    assert_eq!(vintage["value"], json!(3.562));
    assert_eq!(
        vintage["citation_id"],
        json!("imf2019-ngdp-rpch-weo2019-arg-2024")
    );
}

#[test]
fn scale_and_sign_errors_are_diagnosed_not_matched() {
    let verdict = one(json!({"text": "Argentina's Gini is 0.40"}));
    assert_eq!(verdict["verdict"], json!("mismatch"));
    assert_eq!(verdict["read"]["year_assumed"], json!(true));
    assert_eq!(verdict["corpus"]["value"], json!(42.4));
    assert_eq!(verdict["diagnosis"][0]["kind"], json!("scale"));
    assert!(
        verdict["diagnosis"][0]["says"]
            .as_str()
            .unwrap()
            .starts_with("×100")
    );
    let verdict = one(json!({"text": "homicides in Colombia fell to 2.5 per 100,000"}));
    assert_eq!(verdict["verdict"], json!("mismatch"));
    assert_eq!(verdict["read"]["unit"], json!("per 100,000"));
    assert_eq!(
        verdict["corpus"]["citation_id"],
        json!("wb-vc-ihr-psrc-p5-col-2023")
    );
    assert_eq!(kinds(&verdict), ["scale"]);
    let verdict = one(json!({"text": "Brazil's GDP growth was 3.3% in 2020"}));
    assert_eq!(kinds(&verdict), ["sign"]);
}

#[test]
fn places_are_refused_honestly_and_unknown_figures_never_match() {
    for (text, expected) in [
        ("the poverty rate of Atlantis", "no place read"),
        (
            "Spain's GDP growth was 3.2% in 2024",
            "`Spain` is Spain (ESP), outside the corpus",
        ),
        (
            "American Samoa's life expectancy was 72 in 2020",
            "American Samoa (ASM), outside the corpus",
        ),
        (
            "life expectancy in the Virgin Islands was 80 in 2020",
            "VIR (Virgin Islands, U.S.), VGB (Virgin Islands, British)",
        ),
        (
            "Guiana's GDP growth was 40% in 2023",
            "GUY (Guyana), GUF (French Guiana)",
        ),
        (
            "Peru's number of registered dentists was 12,000 in 2020",
            "no governed indicator is named by `number of registered dentists`",
        ),
    ] {
        let verdict = one(json!({"text": text}));
        assert_eq!(verdict["verdict"], json!("cannot_verify"), "{text}");
        let reason = verdict["reason"].as_str().unwrap();
        assert!(reason.contains(expected), "{text}: {reason}");
    }
    // A claim without a number gets the number the corpus holds, cited.
    let verdict = one(json!({"text": "Mexico's life expectancy"}));
    assert_eq!(verdict["verdict"], json!("cannot_verify"));
    assert_eq!(
        verdict["corpus"]["citation_id"],
        json!("wb-sp-dyn-le00-in-mex-2024")
    );
    // Structured fields: a Spanish name and a publisher code.
    let verdict = one(
        json!({"indicator": "SP.DYN.LE00.IN", "country": "Brasil", "year": 2023, "value": 75.8}),
    );
    assert_eq!(verdict["verdict"], json!("match"));
    assert_eq!(verdict["read"]["place"], json!({"Brasil": "BRA"}));
}

#[test]
fn a_wgi_claim_is_close_within_its_standard_error() {
    let verdict = one(
        json!({"query": "control of corruption", "country": "URY", "year": 2023, "value": 1.45}),
    );
    assert_eq!(verdict["verdict"], json!("close"));
    assert_eq!(verdict["corpus"]["value"], json!(1.57));
    assert_eq!(verdict["tolerance"]["basis"], json!("standard_error"));
}

#[test]
fn twenty_claims_answer_within_10_kb_and_say_where_to_go_on() {
    let claims: Vec<Value> = (0..20)
        .map(|claim_idx| {
            let (country, year) = [
                ("MEX", 2024),
                ("BRA", 2023),
                ("ARG", 2022),
                ("CHL", 2021),
                ("COL", 2020),
            ][claim_idx % 5];
            let (indicator, value) = [
                ("sp_dyn_le00_in", 75.0),
                ("ny_gdp_mktp_kd_zg", 3.0),
                ("vc_ihr_psrc_p5", 20.0),
                ("si_pov_gini", 45.0),
            ][claim_idx / 5];
            json!({"indicator": indicator, "country": country, "year": year, "value": value})
        })
        .collect();
    let mut judged = 0;
    let mut offset = 0;
    loop {
        let answer = call_tool("verify_claims", json!({"claims": claims, "offset": offset}));
        assert_eq!(answer["isError"], json!(false), "{answer}");
        let bytes = structured_size(&answer);
        assert!(bytes <= 10_000, "{bytes} B from offset {offset}");
        let content = payload(&answer);
        cited_ids(&content);
        let verdicts = content["result"]["verdicts"].as_array().unwrap();
        assert_eq!(verdicts[0]["claim"], json!(offset + 1));
        judged += verdicts.len();
        match content["result"]["next_offset"].as_u64() {
            Some(next) => offset = next,
            None => break,
        }
    }
    assert_eq!(judged, 20);
    // 21 claims are refused by name.
    let answer = call_tool(
        "verify_claims",
        json!({"claims": vec![json!({"text": "x"}); 21]}),
    );
    assert_eq!(answer["isError"], json!(true));
}

#[test]
fn the_claim_evaluation_holds_its_confusion_table() {
    let file: Value = serde_json::from_str(include_str!("../data/claims.json")).unwrap();
    let cases = file["claims"].as_array().unwrap();
    const VERDICTS: [&str; 4] = ["match", "close", "mismatch", "cannot_verify"];
    let mut table: BTreeMap<(&str, String), usize> = BTreeMap::new();
    let mut wrong = Vec::new();
    let (mut probes, mut probe_matches) = (0, 0);
    for case in cases {
        let verdict = one(case["claim"].clone());
        let expected = case["expected"].as_str().unwrap();
        let got = verdict["verdict"].as_str().unwrap().to_string();
        let diagnosed = case["diagnosis"]
            .as_str()
            .is_none_or(|kind| kinds(&verdict).iter().any(|found| found == kind));
        if got != expected || !diagnosed {
            wrong.push(format!(
                "{}: expected {expected} {:?}, got {got} {:?}",
                case["claim"],
                case["diagnosis"],
                kinds(&verdict)
            ));
        }
        if case["null_probe"] == json!(true) {
            probes += 1;
            probe_matches += usize::from(got == "match");
        }
        *table
            .entry((
                VERDICTS.iter().find(|name| **name == expected).unwrap(),
                got,
            ))
            .or_default() += 1;
    }
    let mut text = format!(
        "claim evaluation: {} claims, {} null probes, null-probe match rate {probe_matches}/{probes}\nexpected \\ got  {}\n",
        cases.len(),
        probes,
        VERDICTS.join("  ")
    );
    for expected in VERDICTS {
        let row: Vec<String> = VERDICTS
            .iter()
            .map(|got| {
                table
                    .get(&(expected, got.to_string()))
                    .copied()
                    .unwrap_or(0)
                    .to_string()
            })
            .collect();
        text.push_str(&format!("{expected:<15} {}\n", row.join("  ")));
    }
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("claims-confusion.txt");
    std::fs::write(&out, &text).unwrap();
    println!("{text}(written to {})", out.display());
    assert_eq!(probe_matches, 0, "a null probe came back match");
    assert!(wrong.is_empty(), "{}\n{text}", wrong.join("\n"));
}

#[test]
fn a_country_argument_is_read_aloud_and_refused_when_it_fits_two_places() {
    let answer = call_tool(
        "get_series",
        json!({"indicator": "sp_dyn_le00_in", "countries": ["Brasil", "méxico"]}),
    );
    let content = payload(&answer);
    assert_eq!(content["read"], json!({"Brasil": "BRA", "méxico": "MEX"}));
    for (country, expected) in [
        (
            "Virgin Islands",
            "fits more than one place of the corpus: VIR",
        ),
        (
            "São Martinho",
            "MAF (Saint Martin (French part)), SXM (Sint Maarten (Dutch part))",
        ),
        ("Spain", "`Spain` is Spain (ESP), outside the corpus"),
        ("American Samoa", "American Samoa (ASM), outside the corpus"),
    ] {
        let answer = call_tool(
            "get_series",
            json!({"indicator": "sp_dyn_le00_in", "countries": [country]}),
        );
        assert_eq!(answer["isError"], json!(true), "{country}");
        let error = payload(&answer)["result"]["error"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(error.contains(expected), "{country}: {error}");
    }
    // Dominica is Dominica, the Dominican Republic its own.
    let answer = call_tool(
        "get_series",
        json!({"indicator": "sp_dyn_le00_in", "countries": ["Dominica", "República Dominicana"]}),
    );
    assert_eq!(
        payload(&answer)["read"],
        json!({"Dominica": "DMA", "República Dominicana": "DOM"})
    );
}
