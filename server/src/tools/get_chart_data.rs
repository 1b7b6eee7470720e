//! `get_chart_data`: the MCP App's own tool (`_meta.ui.visibility: ["app"]`, listed only to clients that
//! negotiated the extension, see [`crate::transport::apps`]): the full chart data of one answer of a
//! charting tool, for the chart view (`ui://lac-corpus/chart.html`) to draw without the model seeing it.
//!
//! It runs the named tool on the arguments the model gave it (the same caps, normalisation and deadline
//! as a direct call; `lang` among them, else this call's) and answers that answer's display:
//! - `charts`: Vega-Lite v6 specifications made self-contained: a chart that draws `tables[N]` of the
//!   display (data named `table:N`) gets the table's rows as top-level `datasets`;
//! - `tables`, `links` and the person's `message`, as the display has them;
//! - `cited`: every number of the answer with its citation id, depth first through the answer: a series
//!   (`series_id`, its first and last year and its number of points; each point's id is
//!   `{series_id}-{year}`) or a single number (its id, value, and series record when it has one);
//!
//! and, as `citations`, the answer's own source, indicator and series records, so every id resolves
//! without another call.

use corpus::Lang;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{ToolError, ToolOutput, ToolSpec, answer::series_id};
use crate::load::Corpus;

/// The tools whose answers chart, whose chart data this tool serves (`compute` charts `rank` and
/// `forecast`).
pub const CHARTING_TOOLS: [&str; 5] = [
    "get_series",
    "compare_countries",
    "get_parameter_data",
    "get_regional_pulse",
    "compute",
];

/// The most entries of `cited` (a year-by-country answer cites each series once, whatever its length).
pub const MAX_CITED: usize = 2_000;

/// The tool's contract, over the charting tools among `tools` (clones of their specs: the handler runs
/// them directly).
pub fn spec(tools: &[ToolSpec]) -> ToolSpec {
    let charting: Vec<ToolSpec> = tools
        .iter()
        .filter(|tool| CHARTING_TOOLS.contains(&tool.name))
        .cloned()
        .collect();
    ToolSpec::serialized::<GetChartDataInput, ChartDataResult>(
        "get_chart_data",
        "Chart data for the chart view",
        "For the chart view (an MCP App) only; hosts keep it from the model. The chart data of \
         one answer of a charting tool, given its name and arguments: Vega-Lite charts, tables, \
         source links, citations.",
        &["observations", "metrics", "sources"],
        move |corpus, input, lang| handle(corpus, &charting, input, lang),
    )
    .for_apps_only()
}

/// Arguments of `get_chart_data`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetChartDataInput {
    /// The charting tool whose answer to draw.
    #[schemars(transform = super::limits::cap_name)]
    pub tool: ChartingTool,
    /// That tool's arguments, as it was called (`lang` among them or not).
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// A tool whose answer charts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChartingTool {
    /// `get_series`.
    GetSeries,
    /// `compare_countries`.
    CompareCountries,
    /// `get_parameter_data`.
    GetParameterData,
    /// `get_regional_pulse`.
    GetRegionalPulse,
    /// `compute` (`rank` and `forecast` chart).
    Compute,
}

impl ChartingTool {
    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            ChartingTool::GetSeries => "get_series",
            ChartingTool::CompareCountries => "compare_countries",
            ChartingTool::GetParameterData => "get_parameter_data",
            ChartingTool::GetRegionalPulse => "get_regional_pulse",
            ChartingTool::Compute => "compute",
        }
    }
}

/// The chart data of one answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChartDataResult {
    /// The tool drawn.
    pub tool: String,
    /// What the display shows and whose data it is, in the request's language (none without a table).
    pub message: Option<String>,
    /// Vega-Lite v6 specifications, each self-contained (data inline or in top-level `datasets`).
    pub charts: Vec<Value>,
    /// Tables: `{title, columns, rows, marks}`, one cell per column (null for no data); `marks` (absent
    /// when every value is observed) lists the projected and estimated cells
    /// ([`super::display::CellMarks`]).
    pub tables: Vec<Value>,
    /// Links to the sources: `{title, url}`.
    pub links: Vec<Value>,
    /// Every number of the answer with its citation, depth first through the answer (at most
    /// [`MAX_CITED`]).
    pub cited: Vec<CitedNumber>,
    /// Whether `cited` stops at [`MAX_CITED`] entries.
    pub cited_truncated: bool,
}

/// One cited number, or one cited series of yearly points.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CitedNumber {
    /// Citation id: a number's (`wb-si-pov-gini-dom-2022`) or a series' (`wb-sp-dyn-le00-in-mex`, whose
    /// points are `{id}-{year}`).
    pub id: String,
    /// The record of `citations.series` the id belongs to, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series_id: Option<String>,
    /// A single number's value, in the indicator's unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// A series' first and last year.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub years: Option<[i64; 2]>,
    /// A series' number of points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<usize>,
}

fn handle(
    corpus: &Corpus,
    charting: &[ToolSpec],
    input: GetChartDataInput,
    lang: Lang,
) -> Result<ToolOutput, ToolError> {
    let name = input.tool.name();
    let tool = charting
        .iter()
        .find(|tool| tool.name == name)
        .ok_or_else(|| ToolError::Invalid(format!("tool `{name}` is not served here")))?;
    let mut arguments = input.arguments;
    tool.check_arguments(&arguments)?;
    let lang = match arguments.remove("lang") {
        Some(Value::String(lang)) => Lang::parse_or_default(&lang),
        _ => lang,
    };
    super::normalize_arguments(corpus, &mut arguments);
    let answer = tool.call(corpus, Value::Object(arguments), lang)?;
    let internal =
        |error: serde_json::Error| ToolError::Internal(format!("reading {name}'s answer: {error}"));
    let mut payload: Value = serde_json::from_str(&answer.payload).map_err(internal)?;
    let display: Value = match &answer.display {
        Some(display) => serde_json::from_str(display).map_err(internal)?,
        None => json!({}),
    };
    let citations = payload["citations"].take();
    let (cited, cited_truncated) = cited_numbers(&payload["result"], &citations);
    let list = |key: &str| display[key].as_array().cloned().unwrap_or_default();
    let tables = list("tables");
    let charts = list("charts")
        .into_iter()
        .map(|chart| self_contained(chart, &tables))
        .collect();
    let result = ChartDataResult {
        tool: name.to_string(),
        message: answer.message_without_chart_link(),
        charts,
        tables,
        links: list("links"),
        cited,
        cited_truncated,
    };
    let payload = serde_json::to_string(&json!({"result": result, "citations": citations}))
        .map_err(internal)?;
    Ok(ToolOutput {
        payload,
        display: None,
        user_message: None,
        resource_links: answer.resource_links,
        charted: false,
        chart_sentence_at: None,
    })
}

/// `chart` with the rows of the display table its named data (`table:N`) draws as top-level
/// `datasets` (each row an object keyed by the table's columns, cells without data left out).
fn self_contained(mut chart: Value, tables: &[Value]) -> Value {
    let Some(name) = chart["data"]["name"].as_str().map(str::to_string) else {
        return chart;
    };
    let Some(table) = name
        .strip_prefix("table:")
        .and_then(|index| index.parse::<usize>().ok())
        .and_then(|index| tables.get(index))
    else {
        return chart;
    };
    let columns: Vec<&str> = table["columns"]
        .as_array()
        .map(|columns| columns.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let rows: Vec<Value> = table["rows"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .filter_map(Value::as_array)
                .map(|cells| {
                    let row: Map<String, Value> = columns
                        .iter()
                        .zip(cells)
                        .filter(|(_, cell)| !cell.is_null())
                        .map(|(column, cell)| (column.to_string(), cell.clone()))
                        .collect();
                    Value::Object(row)
                })
                .collect()
        })
        .unwrap_or_default();
    chart["datasets"] = json!({ name: rows });
    chart
}

/// Every cited number of `result`, depth first (an object's fields in key order): objects with a `citation_id` (and
/// a numeric `value`, when they have one) and series objects with a `series_id` and `[year, value]`
/// `points`; each id once. The flag is true when [`MAX_CITED`] cut the list.
fn cited_numbers(result: &Value, citations: &Value) -> (Vec<CitedNumber>, bool) {
    let series = &citations["series"];
    let mut cited = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut truncated = false;
    let mut stack = vec![result];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                let entry = if let Some(id) = object.get("citation_id").and_then(Value::as_str) {
                    let parent = series_id(id);
                    Some(CitedNumber {
                        id: id.to_string(),
                        series_id: series
                            .get(parent)
                            .map(|_| parent.to_string())
                            .or_else(|| series.get(id).map(|_| id.to_string())),
                        value: object.get("value").and_then(Value::as_f64),
                        years: None,
                        points: None,
                    })
                } else if let (Some(id), Some(points)) = (
                    object.get("series_id").and_then(Value::as_str),
                    object.get("points").and_then(Value::as_array),
                ) {
                    let year = |point: Option<&Value>| point.and_then(|point| point[0].as_i64());
                    Some(CitedNumber {
                        id: id.to_string(),
                        series_id: Some(id.to_string()),
                        value: None,
                        years: year(points.first())
                            .zip(year(points.last()))
                            .map(|(a, b)| [a, b]),
                        points: Some(points.len()),
                    })
                } else {
                    None
                };
                if let Some(entry) = entry
                    && seen.insert(entry.id.clone())
                {
                    if cited.len() == MAX_CITED {
                        truncated = true;
                        break;
                    }
                    cited.push(entry);
                }
                // Children in reverse, so that the stack pops them in order.
                stack.extend(object.values().rev());
            }
            Value::Array(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    (cited, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_of_a_named_table_carries_its_rows_as_datasets() {
        let tables = vec![json!({
            "title": "Life expectancy",
            "columns": ["year", "MEX", "BRA"],
            "rows": [[2023, 75.069, 75.848], [2024, 75.264, null]]
        })];
        let chart = self_contained(
            json!({"data": {"name": "table:0"}, "mark": "line"}),
            &tables,
        );
        assert_eq!(
            chart["datasets"]["table:0"],
            json!([{"year": 2023, "MEX": 75.069, "BRA": 75.848}, {"year": 2024, "MEX": 75.264}])
        );
        let inline = json!({"data": {"values": [{"label": "DOM", "value": 37.0}]}});
        assert_eq!(self_contained(inline.clone(), &tables), inline);
    }

    #[test]
    fn cited_numbers_name_series_once_and_single_numbers_with_their_values() {
        let citations = json!({"series": {"wb-si-pov-gini-dom": {}, "wb-sp-dyn-le00-in-mex": {}}});
        let result = json!({
            "series": [{"series_id": "wb-sp-dyn-le00-in-mex", "points": [[1960, 53.573], [2024, 75.264]]}],
            "values": [
                {"citation_id": "wb-si-pov-gini-dom-2022", "value": 37.0},
                {"citation_id": "wb-si-pov-gini-dom-2022", "value": 37.0},
                {"citation_id": "calc-3f2a"}
            ]
        });
        let (cited, truncated) = cited_numbers(&result, &citations);
        assert!(!truncated);
        assert_eq!(
            cited,
            vec![
                CitedNumber {
                    id: "wb-sp-dyn-le00-in-mex".into(),
                    series_id: Some("wb-sp-dyn-le00-in-mex".into()),
                    value: None,
                    years: Some([1960, 2024]),
                    points: Some(2),
                },
                CitedNumber {
                    id: "wb-si-pov-gini-dom-2022".into(),
                    series_id: Some("wb-si-pov-gini-dom".into()),
                    value: Some(37.0),
                    years: None,
                    points: None,
                },
                CitedNumber {
                    id: "calc-3f2a".into(),
                    series_id: None,
                    value: None,
                    years: None,
                    points: None,
                },
            ]
        );
    }
}
