//! The hosts' documented limits, played on the real corpus: each test reads an answer the way one host
//! hands it to its model and checks that the numbers and their citation ids survive.
//!
//! - Claude Code (and ChatGPT with a widget) hand the model `structuredContent` only;
//! - Claude Code drops `structuredContent` on an error, so the error's text must stand alone;
//! - GitHub Copilot CLI cuts a result at 10 KB, Codex at 10 KiB or 256 lines;
//! - ChatGPT refuses a connector whose tools pass 16,000 tokens;
//! - Claude Code cuts a tool description at 2,048 characters.

use serde_json::{Value, json};

use crate::support::{call_tool, cited_ids};

/// Typical first calls of an agent, at their defaults.
fn default_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("resolve_metric", json!({"query": "esperanza de vida"})),
        (
            "get_parameter_data",
            json!({"parameter": "economia", "country": "MEX"}),
        ),
        (
            "get_series",
            json!({"indicator": "sp_dyn_le00_in", "countries": ["MEX", "BRA", "ARG"]}),
        ),
        (
            "compare_countries",
            json!({"parameter": "salud", "countries": ["ARG", "BRA", "CHL", "COL", "MEX", "PER", "URY", "BOL"]}),
        ),
        ("get_regional_pulse", json!({"parameter": "empleo"})),
        (
            "compute",
            json!({"op": "rank_change", "indicator": "sp_dyn_le00_in"}),
        ),
        (
            "get_data_health",
            json!({"parameter": "economia", "country": "HTI"}),
        ),
        ("get_discoveries", json!({})),
        (
            "find_pilots",
            json!({"country": "BOL", "query": "energía renovable"}),
        ),
        ("get_pilot", json!({"slug": "p127837"})),
        (
            "recommend_action",
            json!({"country": "GTM", "pillar": "educacion"}),
        ),
        (
            "get_news",
            json!({"parameter": "energia", "country": "MEX"}),
        ),
        (
            "search_corpus",
            json!({"query": "cambio climático", "country": "COL"}),
        ),
        (
            "get_dataset",
            json!({"dataset_id": "financing", "country": "HND", "from_year": 2015}),
        ),
        (
            "resolve_citations",
            json!({"ids": ["wb-sp-dyn-le00-in-mex-2024"]}),
        ),
    ]
}

#[test]
fn structured_content_alone_carries_every_number_and_its_citation() {
    for (tool, arguments) in default_calls() {
        let answer = call_tool(tool, arguments.clone());
        assert_eq!(answer["isError"], json!(false), "{tool} {arguments}");
        // What the host keeps: structuredContent, nothing of the text blocks or `_meta`.
        let kept = answer["structuredContent"].clone();
        assert!(
            kept["result"].is_object() && kept["citations"].is_object(),
            "{tool}"
        );
        // Every cited number resolves within what was kept.
        cited_ids(&kept);
    }
}

#[test]
fn an_error_read_as_text_alone_names_the_input_and_what_is_valid() {
    for (tool, arguments, named, valid) in [
        (
            "get_series",
            json!({"indicator": "no_such_indicator", "countries": ["MEX"]}),
            "no_such_indicator",
            "resolve_metric",
        ),
        (
            "get_parameter_data",
            json!({"parameter": "salud", "country": "Atlantis"}),
            "Atlantis",
            "ISO3",
        ),
        (
            "compute",
            json!({"op": "cagr", "indicator": "rl_est", "country": "MEX"}),
            "cagr",
            "change",
        ),
        (
            "get_dataset",
            json!({"dataset_id": "regulation", "id": "cclw-col-no-such-law"}),
            "cclw-col-no-such-law",
            "cclw-",
        ),
    ] {
        let answer = call_tool(tool, arguments.clone());
        assert_eq!(answer["isError"], json!(true), "{tool} {arguments}");
        // What the host keeps of an error: the text blocks only.
        let text: String = answer["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(text.contains(named), "{tool}: {text}");
        assert!(text.contains(valid), "{tool}: {text}");
    }
}

#[test]
fn a_result_cut_at_10_kb_or_256_lines_loses_nothing_of_a_default_answer() {
    for (tool, arguments) in default_calls() {
        let answer = call_tool(tool, arguments.clone());
        let text = answer["content"][0]["text"].as_str().unwrap();
        // Copilot CLI keeps 10,000 bytes, Codex 10,240 bytes or 256 lines: the whole answer is within both.
        let kept: String = text.lines().take(256).collect::<Vec<_>>().join("\n");
        let kept = &kept[..kept.len().min(10_000)];
        assert_eq!(kept, text, "{tool} {arguments}: {} bytes cut", text.len());
        let parsed: Value = serde_json::from_str(kept).unwrap();
        cited_ids(&parsed);
    }
}

#[test]
fn the_tool_list_fits_chatgpts_16000_tokens_and_claude_codes_2048_characters() {
    let listed = crate::support::real_tools_list();
    let tools = listed["tools"].as_array().unwrap();
    // About four bytes a token of JSON: the whole list well within 16,000 tokens.
    let bytes = serde_json::to_string(&listed).unwrap().len();
    assert!(bytes <= crate::budgets::TOOLS_LIST_BUDGET, "{bytes} B");
    assert!(bytes / 4 <= 8_500, "{bytes} B");
    for tool in tools {
        let description = tool["description"].as_str().unwrap();
        // Cut where Claude Code cuts: nothing is lost, and it names what the tool returns.
        let cut: String = description.chars().take(2048).collect();
        assert_eq!(cut, description, "{}", tool["name"]);
        assert!(description.len() > 150, "{}: {description}", tool["name"]);
    }
}
