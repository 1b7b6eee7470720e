//! The curated layer answers as an analyst would (issue 26), on the real corpus: Honduras' climate
//! finance since 2015 by donor, Colombia's climate laws since 2015 newest first, and what CRS climate
//! finance cannot say (adaptation apart from mitigation).

use serde_json::{Value, json};

use crate::support::{call_tool, cited_ids, payload, structured_size};

fn read(arguments: Value) -> Value {
    let answer = call_tool("get_dataset", arguments.clone());
    assert_eq!(answer["isError"], json!(false), "{arguments}: {answer}");
    payload(&answer)
}

#[test]
fn honduras_climate_finance_since_2015_ranks_japan_the_eu_and_the_us_first() {
    let arguments =
        json!({"dataset_id": "financing", "country": "HND", "from_year": 2015, "limit": 5});
    let answer = call_tool("get_dataset", arguments.clone());
    // One call answers the question within 6k tokens.
    assert!(
        structured_size(&answer) <= 24 * 1024,
        "{}",
        structured_size(&answer)
    );
    let body = payload(&answer);
    let totals = &body["result"]["financing_totals"];
    assert_eq!(
        (totals["from_year"].as_i64(), totals["to_year"].as_i64()),
        (Some(2015), Some(2023))
    );
    let financiers = totals["financiers"].as_array().unwrap();
    // The raw CRS extract summed since 2015 (US$ million, current prices): Japan 154.230645, EU
    // Institutions 148.676924, United States 140.197782.
    let first: Vec<(&str, f64)> = financiers
        .iter()
        .take(3)
        .map(|row| {
            (
                row["financier"].as_str().unwrap(),
                row["current_usd_mn"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        first,
        [
            ("Japan", 154.231),
            ("EU Institutions", 148.677),
            ("United States", 140.198)
        ]
    );
    assert_eq!(financiers[1]["constant_usd_mn"], json!(165.686));
    // Each sum is its inputs' yearly disbursements from 2015 on, read back record by record.
    let japan = &financiers[0]["calc"];
    assert!(
        japan["citation_id"]
            .as_str()
            .unwrap()
            .starts_with("calc-financing-hnd-japan-2015-2023")
    );
    let mut sum = 0.0;
    for id in japan["inputs"].as_array().unwrap() {
        let row = &read(json!({"dataset_id": "financing", "id": id}))["result"]["rows"][0];
        assert_eq!(row["financier"], "Japan");
        sum += row["years"]
            .as_array()
            .expect("a row read by id is full: its yearly amounts")
            .iter()
            .filter(|year| year["year"].as_i64().unwrap() >= 2015)
            .map(|year| year["current_usd_mn"].as_f64().unwrap())
            .sum::<f64>();
    }
    assert!((sum - 154.230645).abs() < 1e-6, "{sum}");
    // The rows carry the window's amounts, largest first, and no provenance (it is in their citation).
    let rows = body["result"]["rows"].as_array().unwrap();
    let window: Vec<f64> = rows
        .iter()
        .filter(|row| row["kind"] == "crs_flow")
        .map(|row| row["window"]["current_usd_mn"].as_f64().unwrap())
        .collect();
    assert!(
        window.windows(2).all(|pair| pair[0] >= pair[1]),
        "{window:?}"
    );
    for row in rows {
        assert!(
            row.get("publisher").is_none() && row.get("years").is_none(),
            "{row}"
        );
        let id = row["citation_id"].as_str().unwrap();
        assert_eq!(
            body["citations"]["records"][id]["publisher"],
            "OECD, Creditor Reporting System (CRS)"
        );
    }
    cited_ids(&body);
    // The CRS caveats travel with the answer.
    let notes = body["result"]["notes"].as_array().unwrap();
    assert!(notes.iter().any(|note| {
        note.as_str()
            .unwrap()
            .contains("adaptation cannot be separated from mitigation")
    }));
    assert!(
        notes
            .iter()
            .any(|note| note.as_str().unwrap().contains("China"))
    );
}

#[test]
fn colombias_climate_laws_since_2015_come_newest_first_with_law_1931() {
    let answer = call_tool(
        "get_dataset",
        json!({"dataset_id": "regulation", "country": "COL", "from_year": 2015}),
    );
    assert!(
        structured_size(&answer) <= 24 * 1024,
        "{}",
        structured_size(&answer)
    );
    let body = payload(&answer);
    let rows = body["result"]["rows"].as_array().unwrap();
    // The CCLW export of 2021-01-30 holds 16 Colombian laws and policies first dated 2015-2020.
    assert_eq!(body["result"]["total"], 16);
    let dates: Vec<&str> = rows
        .iter()
        .map(|row| row["date"].as_str().unwrap())
        .collect();
    assert_eq!(dates.first(), Some(&"2020-12-31"));
    assert!(dates.windows(2).all(|pair| pair[0] >= pair[1]), "{dates:?}");
    assert!(dates.iter().all(|date| *date >= "2015-01-01"));
    let law_1931 = rows
        .iter()
        .find(|row| row["title"].as_str().unwrap().starts_with("Law no 1931"))
        .expect("Law 1931 of 2018, the climate-change law");
    assert_eq!(
        (law_1931["date"].as_str(), law_1931["kind"].as_str()),
        (Some("2018-07-27"), Some("legislative"))
    );
    // Compact rows: one line of summary; the full description by id.
    let summary = law_1931["summary"].as_str().unwrap();
    assert!(
        summary.chars().count() <= 201 && law_1931.get("description").is_none(),
        "{summary}"
    );
    let full = read(json!({"dataset_id": "regulation", "id": law_1931["citation_id"]}));
    let description = full["result"]["rows"][0]["description"].as_str().unwrap();
    assert!(description.len() > summary.len());
    cited_ids(&body);
}

#[test]
fn a_window_of_years_is_for_curated_records_and_must_be_a_window() {
    for (arguments, expected) in [
        (
            json!({"dataset_id": "observations", "from_year": 2015}),
            "from_year, to_year and full read the curated records",
        ),
        (
            json!({"dataset_id": "metrics", "to_year": 2015}),
            "`metrics` is not filtered by year",
        ),
        (
            json!({"dataset_id": "institutions", "from_year": 2015}),
            "institutions carry no dates",
        ),
        (
            json!({"dataset_id": "bogus", "from_year": 2015}),
            "unknown dataset_id `bogus`",
        ),
        (
            json!({"dataset_id": "financing", "from_year": 2020, "to_year": 2015}),
            "from_year 2020 is after to_year 2015",
        ),
    ] {
        let answer = call_tool("get_dataset", arguments.clone());
        assert_eq!(answer["isError"], json!(true), "{arguments}");
        let text = answer["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(expected), "{text}");
    }
}

#[test]
fn adaptation_finance_alone_is_only_partly_measured() {
    let body = payload(&call_tool(
        "resolve_metric",
        json!({"query": "climate adaptation finance received"}),
    ));
    let result = &body["result"];
    assert_eq!(
        (result["matched"].as_bool(), result["partly"].as_bool()),
        (Some(false), Some(true))
    );
    assert_eq!(result["candidates"][0]["id"], "crs_climate_total");
    assert!(
        result["note"]
            .as_str()
            .unwrap()
            .contains("adaptation cannot be separated from mitigation")
    );
    // Asked with fewer words, in Spanish too: the CRS indicators come first, partly (ND-GAIN's index is
    // readiness, not finance).
    for query in ["adaptation finance", "financiamiento para la adaptación"] {
        let body = payload(&call_tool("resolve_metric", json!({"query": query})));
        assert_eq!(body["result"]["partly"], json!(true), "{query}");
        let first = &body["result"]["candidates"][0];
        assert!(
            first["id"].as_str().unwrap().starts_with("crs_climate"),
            "{query}: {first}"
        );
        assert!(first["partly"].is_string());
    }
    // Climate finance as a whole is a match.
    let body = payload(&call_tool(
        "resolve_metric",
        json!({"query": "climate-related finance received"}),
    ));
    assert_eq!(body["result"]["matched"], json!(true));
    assert!(body["result"].get("partly").is_none());
}

#[test]
fn asked_for_laws_get_news_lists_every_law_of_the_country_titled_by_its_kind() {
    // Law 1931 of 2018 (climate change) maps to economia and infraestructura, yet it is Colombia's
    // climate law: asked for laws, the pillar does not hide it.
    let body = payload(&call_tool(
        "get_news",
        json!({"parameter": "medio_ambiente", "country": "COL", "kind": "law_passed", "limit": 20}),
    ));
    let items = body["result"]["items"].as_array().unwrap();
    let law_1931 = items
        .iter()
        .find(|item| item["title"].as_str().unwrap().contains("Law no 1931"))
        .expect("Law 1931 among Colombia's laws");
    assert_eq!(law_1931["date"], "2018-07-27");
    assert!(
        law_1931["title"]
            .as_str()
            .unwrap()
            .starts_with("Ley aprobada: ")
    );
    // An executive act is titled by its document type, not the export's "Law passed".
    let body = payload(&call_tool(
        "get_news",
        json!({"parameter": "medio_ambiente", "country": "COL", "kind": "policy_adopted", "limit": 20, "lang": "en"}),
    ));
    let strategy = body["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| {
            item["title"]
                .as_str()
                .unwrap()
                .contains("Low-Carbon Development Strategy")
        })
        .expect("the low-carbon strategy");
    assert_eq!(
        strategy["title"],
        "Strategy adopted: Colombian Low-Carbon Development Strategy (COL)"
    );
}

#[test]
fn a_countrys_own_events_come_before_the_corpus_data_releases_one_per_release() {
    let body = payload(&call_tool(
        "get_news",
        json!({"parameter": "medio_ambiente", "country": "ECU", "limit": 20}),
    ));
    let items = body["result"]["items"].as_array().unwrap();
    let kinds: Vec<&str> = items
        .iter()
        .map(|item| item["kind"].as_str().unwrap())
        .collect();
    let first_release = kinds.iter().position(|kind| *kind == "data_release");
    if let Some(first) = first_release {
        assert!(
            kinds[first..].iter().all(|kind| *kind == "data_release"),
            "{kinds:?}"
        );
    }
    assert_ne!(kinds.first(), Some(&"data_release"));
    // The OECD released three CRS extracts on 2025-08-08: one item, the others named in `also`.
    let body = payload(&call_tool(
        "get_news",
        json!({"parameter": "medio_ambiente", "country": "COL", "kind": "data_release", "limit": 20}),
    ));
    let oecd: Vec<&Value> = body["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["date"] == "2025-08-08")
        .collect();
    assert_eq!(oecd.len(), 1, "{oecd:?}");
    assert!(!oecd[0]["also"].as_array().unwrap().is_empty());
    let records = crate::support::record_ids(&body);
    for id in oecd[0]["also"].as_array().unwrap() {
        assert!(records.contains(&id.as_str().unwrap().to_string()), "{id}");
    }
}

#[test]
fn renewable_energy_in_bolivia_never_leads_with_a_mining_project() {
    for query in ["energía renovable", "renewable energy"] {
        let body = payload(&call_tool(
            "find_pilots",
            json!({"query": query, "country": "BOL"}),
        ));
        let pilots = body["result"]["pilots"].as_array().unwrap();
        // The Access and Renewable Energy Project names the words in its title: it leads.
        assert_eq!(pilots[0]["slug"], "p127837", "{query}");
        assert!(pilots[0].get("matched_by").is_none());
        // "MINING SCTR" (1989) is found only by its export's "Renewable Energy Biomass" sector: ranked
        // after every title match, marked, its sectors shown so the agent sees why.
        let first_label_match = pilots
            .iter()
            .position(|pilot| pilot.get("matched_by").is_some())
            .expect("a label-only match");
        assert!(
            pilots[first_label_match..]
                .iter()
                .all(|pilot| pilot["matched_by"] == "sectors_or_objective")
        );
        let mining = pilots
            .iter()
            .find(|pilot| pilot["slug"] == "p006161")
            .expect("MINING SCTR is listed");
        assert_eq!(mining["matched_by"], "sectors_or_objective");
        assert!(
            mining["sectors"]
                .as_array()
                .unwrap()
                .contains(&json!("Renewable Energy Biomass"))
        );
    }
}

#[test]
fn search_hits_carry_their_dates_and_a_window_keeps_those_in_it() {
    let body = payload(&call_tool(
        "search_corpus",
        json!({"query": "cambio climático", "country": "COL", "datasets": ["regulation"], "from_year": 2015}),
    ));
    let hits = body["result"]["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    for hit in hits {
        let date = hit["date"].as_str().expect("a law's hit is dated");
        assert!(date >= "2015", "{hit}");
    }
    let law_1931 = hits
        .iter()
        .find(|hit| hit["title"].as_str().unwrap().starts_with("Law no 1931"))
        .expect("Law 1931 is found since 2015");
    assert_eq!(law_1931["date"], "2018-07-27");
    // CRS flows: the window's disbursements, over the years reported in it.
    let body = payload(&call_tool(
        "search_corpus",
        json!({"query": "climate", "country": "HND", "datasets": ["financing"], "from_year": 2015}),
    ));
    for hit in body["result"]["hits"].as_array().unwrap() {
        let snippet = hit["snippet"].as_str().unwrap();
        assert!(
            snippet.contains("disbursed 20") && !snippet.contains("2100"),
            "{snippet}"
        );
    }
}

#[test]
fn guatemala_education_never_leads_with_a_crisis_budget_support_loan() {
    let answer = call_tool(
        "recommend_action",
        json!({"country": "GTM", "pillar": "educacion"}),
    );
    assert!(
        structured_size(&answer) <= 24 * 1024,
        "{}",
        structured_size(&answer)
    );
    let body = payload(&answer);
    let result = &body["result"];
    let projects = result["projects"].as_array().unwrap();
    // P175979, the US$250 M Second Crisis Response and Recovery DPL tagged "Primary Education", finances
    // the budget: it is named as budget support, after the investment projects, never first.
    assert_ne!(projects[0]["slug"], "p175979", "{projects:?}");
    assert!(projects[0].get("operation").is_none());
    if let Some(dpl) = projects.iter().find(|project| project["slug"] == "p175979") {
        assert_eq!(dpl["operation"], "budget_support");
    }
    assert!(
        result["notes"].as_array().unwrap().iter().any(|note| note
            .as_str()
            .unwrap()
            .contains("P175979")
            && note.as_str().unwrap().contains("budget support"))
    );
    // The gross-enrolment frontier is a plausible target: at most 100 %.
    for gap in result["gaps"].as_array().unwrap() {
        if gap["unit"].as_str().unwrap().contains("gross") {
            assert!(gap["frontier_value"].as_f64().unwrap() <= 100.0, "{gap}");
        }
    }
    cited_ids(&body);
}

#[test]
fn a_flow_that_disbursed_nothing_in_the_window_is_not_in_it() {
    // Brazil 1998-1999: the CRS extract reports rows for five donors, but only Germany and Austria
    // disbursed (the others' rows are 0).
    let body = read(
        json!({"dataset_id": "financing", "country": "BRA", "from_year": 1998, "to_year": 1999}),
    );
    let totals = &body["result"]["financing_totals"];
    assert_eq!(totals["financiers_total"], 2, "{totals}");
    for row in body["result"]["rows"].as_array().unwrap() {
        if row["kind"] == "crs_flow" {
            assert!(
                row["window"]["current_usd_mn"].as_f64().unwrap() != 0.0,
                "{row}"
            );
        }
    }
}

/// The error message of a refused call.
fn refusal(arguments: Value) -> String {
    let answer = call_tool("get_dataset", arguments.clone());
    assert_eq!(answer["isError"], json!(true), "{arguments}: {answer}");
    payload(&answer)["result"]["error"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The one record of `dataset` with citation id (or P-code) `id`.
fn record(dataset: &str, id: &str) -> Value {
    let body = read(json!({"dataset_id": dataset, "id": id}));
    let rows = body["result"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{dataset} {id}: {rows:?}");
    rows[0].clone()
}

#[test]
fn guatemalas_finance_ministry_is_one_body_and_each_body_is_asked_its_own_thing() {
    for lang in ["en", "es", "pt"] {
        let body = payload(&call_tool(
            "recommend_action",
            json!({"country": "GTM", "pillar": "educacion", "lang": lang}),
        ));
        let institutions = body["result"]["institutions"].as_array().unwrap();
        // The export spells the ministry four ways (Ministry of Public Finance, … Guatemala (MINFIN),
        // Ministry of Finance Guatemala (MINFIN), Ministerio de Finanzas Públicas, Guatemala): one entry.
        let finance: Vec<&Value> = institutions
            .iter()
            .filter(|body| {
                let name = body["name"].as_str().unwrap();
                name.contains("Finance") || name.contains("Finanzas")
            })
            .collect();
        assert_eq!(finance.len(), 1, "{lang}: {institutions:?}");
        assert_eq!(
            finance[0]["citation_id"],
            "wbagency-gtm-ministry-of-public-finance"
        );
        let asks: Vec<&str> = institutions
            .iter()
            .map(|body| body["ask"].as_str().unwrap())
            .collect();
        for (at, ask) in asks.iter().enumerate() {
            assert!(
                !asks[..at].contains(ask),
                "{lang}: the same ask twice: {ask}"
            );
        }
        // The finance ministry is asked about the budget, the implementer about its project's results.
        let budget = match lang {
            "en" => "budget",
            "es" => "presupuesto",
            _ => "orçamento",
        };
        assert!(
            finance[0]["ask"].as_str().unwrap().contains(budget),
            "{lang}: {finance:?}"
        );
        cited_ids(&body);
    }
    // The merged record keeps the other spellings and sums its own approved projects.
    let ministry = record("institutions", "wbagency-gtm-ministry-of-public-finance");
    let aliases = ministry["aliases"].as_array().unwrap();
    for spelling in [
        "Ministerio de Finanzas Públicas, Guatemala",
        "Ministry of Finance Guatemala (MINFIN)",
        "Ministry of Public Finance Guatemala (MINFIN)",
    ] {
        assert!(aliases.contains(&json!(spelling)), "{aliases:?}");
    }
}

#[test]
fn an_agencys_and_an_instruments_totals_are_the_sums_of_their_approved_projects() {
    // Guatemala's Ministry of Public Finance: the table says US$755 M over four projects (a Dropped
    // US$215 M loan and a grant counted as commitment among them); its seven projects under four spellings,
    // approved ones only, sum to 340 + 200 + 250 + 500 + 250 = US$1,540 M of IBRD loans and US$52.5 M of
    // grants (P167132).
    let ministry = record("institutions", "wbagency-gtm-ministry-of-public-finance");
    let (mut committed, mut grants) = (0.0, 0.0);
    for code in ministry["projects"].as_array().unwrap() {
        let project = record("projects", code.as_str().unwrap());
        if matches!(project["status"].as_str(), Some("Active" | "Closed")) {
            committed += project["commitment_usd"].as_f64().unwrap_or(0.0);
            grants += project["grant_usd"].as_f64().unwrap_or(0.0);
        }
    }
    assert_eq!(ministry["commitment_usd"].as_f64(), Some(committed));
    assert_eq!(committed, 1_540_000_000.0);
    assert_eq!(ministry["grant_usd"].as_f64(), Some(grants));
    assert_eq!(grants, 52_500_000.0);
    // Argentina's IPF education instrument: 22 approved projects summed, the Pipeline P505771
    // (US$230 M, not yet approved) listed apart and in no sum.
    let instrument = record("financing", "wbinstrument-arg-ipf-educacion");
    assert_eq!(instrument["pipeline_projects"], json!(["P505771"]));
    let projects = instrument["projects"].as_array().unwrap();
    assert_eq!(projects.len(), 22);
    assert!(!projects.contains(&json!("P505771")));
    let sum: f64 = projects
        .iter()
        .map(|code| {
            record("projects", code.as_str().unwrap())["commitment_usd"]
                .as_f64()
                .unwrap_or(0.0)
        })
        .sum();
    assert!((instrument["committed_usd"].as_f64().unwrap() - sum).abs() < 1.0);
    assert!((sum - 3_378_490_000.0).abs() < 1.0, "{sum}");
}

#[test]
fn a_grant_is_never_a_commitment_and_contradictions_are_flagged() {
    // P006108 (Bolivia, Biodiversity Conservation, GEF): the newer export's total of US$4.5 M is its grant.
    let grant = record("projects", "P006108");
    assert!(
        grant.get("commitment_usd").is_none_or(Value::is_null),
        "{grant}"
    );
    assert_eq!(grant["grant_usd"], json!(4_500_000.0));
    // P160667: a US$250 M IBRD loan, no grant.
    let loan = record("projects", "P160667");
    assert_eq!(loan["commitment_usd"], json!(250_000_000.0));
    // P170025 is Active in the export of 2025-03-31, its closing date 2024-12-31 already past.
    let stale = record("projects", "P170025");
    assert_eq!(stale["status"], "Active");
    assert_eq!(stale["inconsistencies"], json!(["active_past_closing"]));
    let pilot = payload(&call_tool("get_pilot", json!({"slug": "p170025"})));
    assert!(
        pilot["result"]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|note| note.as_str().unwrap().contains("active_past_closing")),
        "{pilot}"
    );
    // P068292 closes (2002-06-30) before its approval (2003-05-27).
    assert_eq!(
        record("projects", "P068292")["inconsistencies"],
        json!(["closes_before_approval"])
    );
}

#[test]
fn an_id_no_record_has_is_refused_naming_what_ids_look_like() {
    let message = refusal(json!({"dataset_id": "regulation", "id": "cclw-col-no-such-law"}));
    assert!(message.contains("cclw-col-no-such-law"), "{message}");
    assert!(message.contains("cclw-"), "{message}");
    let message = refusal(json!({"dataset_id": "regulation", "id": "wbproj-p127837"}));
    assert!(message.contains("`projects`"), "{message}");
    // A known id filtered out by the window is an empty page, not an error.
    let body = read(json!({"dataset_id": "projects", "id": "P127837", "to_year": 1990}));
    assert_eq!(body["result"]["rows"], json!([]));
}

#[test]
fn a_window_before_the_crs_extract_says_it_is_unrecorded_not_zero() {
    let body = read(
        json!({"dataset_id": "financing", "country": "HND", "from_year": 1990, "to_year": 2000}),
    );
    let notes = body["result"]["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|note| note.as_str().unwrap().contains("covers 1995–2023")),
        "{notes:?}"
    );
    let inside = read(json!({"dataset_id": "financing", "country": "HND", "from_year": 2015}));
    assert!(
        !inside["result"]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|note| note.as_str().unwrap().contains("covers"))
    );
}
