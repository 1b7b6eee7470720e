//! What a result shows a person: source and file links of a result, and the display payload that
//! travels in the result's `_meta` (tables, links, Vega-Lite v6 charts), with the chart builders and the
//! names a display writes in the request's language.

use corpus::{Country, Lang, Metric};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::load::Corpus;

mod line_spec;

pub use line_spec::{
    BAND_Z, Band, LEGEND_SAMPLE_COLOR, LineScale, LineSpec, YScale, value_range, y_scale,
    year_title,
};

/// A dataset a result was read from, with a link to its publisher.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SourceLink {
    /// Dataset id of the corpus catalog (`observations`).
    pub dataset_id: String,
    /// Dataset title.
    pub title: String,
    /// Publisher homepage of the underlying source, when the result comes from one source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// One file of an indicator or dataset that a person or a notebook opens (the downloads API; the same
/// file is the MCP resource `uri`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FileLink {
    /// Format: `csv` (tidy), `wide_csv`, `xlsx`, `parquet`, `sdmx_ml`, `sdmx_csv`, `csv_gz`.
    pub format: &'static str,
    /// HTTP URL (GET; pandas, Excel and SDMX clients read it directly).
    pub url: String,
    /// MCP resource URI (`resources/read`).
    pub uri: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// The files of an indicator (`Subject::Indicator`, metric id) or dataset, in format order; empty if none.
pub fn file_links(corpus: &Corpus, subject: corpus::exports::Subject, id: &str) -> Vec<FileLink> {
    corpus
        .downloads()
        .of(subject, id)
        .map(|file| FileLink {
            format: file.download.format.as_str(),
            url: crate::links::download_url(&file.download),
            uri: file.download.resource_uri(),
            bytes: file.bytes,
        })
        .collect()
}

/// A display payload: tables (columns and rows), links and charts for a person, serialized into the
/// result's `_meta` (never into `structuredContent`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Display {
    /// Tables to render.
    pub tables: Vec<DisplayTable>,
    /// Links to the sources.
    pub links: Vec<DisplayLink>,
    /// Charts as Vega-Lite v6 specifications, valid against the official Vega-Lite schema: data inline,
    /// or named `table:N` ([`table_line_chart`]) when the chart draws `tables[N]` of this display, each
    /// row an object keyed by the table's columns (the renderer binds it; nothing is sent twice).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charts: Vec<Chart>,
}

/// A Vega-Lite v6 specification whose top-level data values are typed rather than a JSON tree, so a
/// long series costs no map per point; serializes as one specification object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chart {
    /// The specification without its top-level inline `data` (`$schema`, `title`, `mark`,
    /// `encoding`, `layer`…).
    #[serde(flatten)]
    pub spec: ChartSpec,
    /// The top-level inline data, when the specification has it (a layered chart carries its data in
    /// its layers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<ChartData>,
}

/// A chart's specification: a line chart over wide rows, typed ([`LineSpec`]), or any other one as a
/// JSON object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ChartSpec {
    /// A line chart over wide rows.
    Line(LineSpec),
    /// Any other specification, as a JSON object.
    Object(serde_json::Map<String, Value>),
}

/// Vega-Lite inline data: `{"values": […]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChartData {
    /// The data points.
    pub values: Vec<ChartValue>,
}

/// One data point of a chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ChartValue {
    /// A year of several lines, wide: `{"year": 2020, "MEX": 70.4, "BRA": 74.5}` (a `fold` transform
    /// makes it long); a series without a value that year has no key.
    Year(YearRow),
    /// A bar: its label and value.
    Bar {
        /// Bar label.
        label: String,
        /// Value in the unit of the x axis.
        value: f64,
    },
}

/// One year of a wide chart table: the year and each series' value, by the series names of the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct YearRow {
    /// Year.
    pub year: i32,
    /// The series names, shared by every row of the chart.
    pub series: std::sync::Arc<[String]>,
    /// Each series' value that year, in `series` order.
    pub values: Vec<Option<f64>>,
}

impl Serialize for YearRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("year", &self.year)?;
        for (series, value) in self.series.iter().zip(&self.values) {
            if let Some(value) = value {
                map.serialize_entry(series, value)?;
            }
        }
        map.end()
    }
}

impl Chart {
    /// A chart from a whole specification whose data (if any) lives in its layers.
    pub fn from_spec(spec: Value) -> Chart {
        Chart {
            spec: ChartSpec::Object(match spec {
                Value::Object(spec) => spec,
                _ => serde_json::Map::new(),
            }),
            data: None,
        }
    }

    /// A chart of the specification `spec` (an object) with top-level inline `values`.
    fn with_values(spec: Value, values: Vec<ChartValue>) -> Chart {
        Chart {
            data: Some(ChartData { values }),
            ..Chart::from_spec(spec)
        }
    }
}

/// One table: a title, column headers and rows of cells (numbers, strings or null for no data).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DisplayTable {
    /// Table title.
    pub title: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows, each with one cell per column.
    pub rows: Vec<Vec<Value>>,
    /// The cells whose value is not an observation (a publisher's projection or estimate), one entry
    /// per column and kind; a renderer marks them and says what the mark means. Absent when every
    /// value is observed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<CellMarks>,
}

/// The cells of one column of a [`DisplayTable`] that hold values of one kind other than observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellMarks {
    /// What the values are: `projection` (a publisher's projection of a future year, IMF WEO's) or
    /// `estimate` (a publisher's estimate of a past year, which it will revise).
    pub kind: ValueKind,
    /// The column, an index into [`DisplayTable::columns`].
    pub column: usize,
    /// The rows, indices into [`DisplayTable::rows`], in order.
    pub rows: Vec<usize>,
}

/// What a charted value is when it is not an observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// A publisher's projection (drawn dashed).
    Projection,
    /// A publisher's estimate of a past year (drawn solid, labelled apart).
    Estimate,
}

/// A link for a person.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DisplayLink {
    /// Link text.
    pub title: String,
    /// URL.
    pub url: String,
}

/// The name of `country` in `lang`.
pub fn country_name(country: &Country, lang: Lang) -> String {
    country.names.get(lang).to_string()
}

/// The source link of a metric's source, for `sources` in results.
pub fn source_link(corpus: &Corpus, dataset_id: &str, metric: Option<&Metric>) -> SourceLink {
    let title = corpus
        .dataset(dataset_id)
        .map_or_else(|| dataset_id.to_string(), |dataset| dataset.title.clone());
    let url = metric
        .and_then(|metric| corpus.baked.source(&metric.source_id))
        .map(|source| source.homepage.clone());
    SourceLink {
        dataset_id: dataset_id.to_string(),
        title,
        url,
    }
}

/// The Vega-Lite schema the chart specifications follow.
pub const VEGA_LITE_SCHEMA: &str = "https://vega.github.io/schema/vega-lite/v6.json";

/// A Vega-Lite line chart of `(series, year, value)` points, one line per series, each named in the
/// legend by its entry in `names` (`(series, name)`: a country's name in `lang`; a series not listed
/// by itself). The data is one wide row per year (a third of the bytes of one row per point), folded
/// back to long by the specification.
pub fn line_chart(
    title: &str,
    unit: &str,
    points: &[(String, i32, f64)],
    names: &[(String, String)],
    lang: corpus::Lang,
) -> Chart {
    let mut series_names: Vec<String> = Vec::new();
    for (series, _, _) in points {
        if !series_names.contains(series) {
            series_names.push(series.clone());
        }
    }
    let mut years: std::collections::BTreeMap<i32, Vec<Option<f64>>> = Default::default();
    for (series, year, value) in points {
        let column = series_names
            .iter()
            .position(|name| name == series)
            .expect("named above");
        years
            .entry(*year)
            .or_insert_with(|| vec![None; series_names.len()])[column] = Some(*value);
    }
    let scale = LineScale {
        range: value_range(points.iter().map(|(_, _, value)| *value)),
        names: names.to_vec(),
        lang,
        ..LineScale::default()
    };
    let series: std::sync::Arc<[String]> = series_names.clone().into();
    let spec = LineSpec {
        title: title.to_string(),
        unit: unit.to_string(),
        series: series_names,
        scale,
        data_name: None,
    };
    let values = years
        .into_iter()
        .map(|(year, values)| {
            ChartValue::Year(YearRow {
                year,
                series: series.clone(),
                values,
            })
        })
        .collect();
    Chart {
        spec: ChartSpec::Line(spec),
        data: Some(ChartData { values }),
    }
}

/// The name of the place `iso3` in `lang` (a country's or an aggregate's), or the code itself when the
/// corpus does not know it.
pub fn place_name(corpus: &Corpus, iso3: &str, lang: Lang) -> String {
    corpus
        .baked
        .countries()
        .get(iso3)
        .map_or_else(|| iso3.to_string(), |country| country_name(country, lang))
}

/// The name a chart's data takes to draw `tables[table]` of the same display (see [`Display::charts`]).
pub fn table_data_name(table: usize) -> String {
    format!("table:{table}")
}

/// A Vega-Lite line chart of the display table `tables[table]`, whose columns are `year` and then one
/// column per series (`series`, in order; a `null` cell is no point): its data is named
/// [`table_data_name`], the rows are not repeated.
pub fn table_line_chart(
    title: &str,
    unit: &str,
    table: usize,
    series: &[String],
    scale: LineScale,
) -> Chart {
    Chart {
        spec: ChartSpec::Line(LineSpec {
            title: title.to_string(),
            unit: unit.to_string(),
            series: series.to_vec(),
            scale,
            data_name: Some(table_data_name(table)),
        }),
        data: None,
    }
}

/// A Vega-Lite horizontal bar chart of `(label, value)` items, in the given order.
pub fn bar_chart(title: &str, unit: &str, items: &[(String, f64)]) -> Chart {
    let order: Vec<&str> = items.iter().map(|(label, _)| label.as_str()).collect();
    let values = items
        .iter()
        .map(|(label, value)| ChartValue::Bar {
            label: label.clone(),
            value: *value,
        })
        .collect();
    let spec = serde_json::json!({
        "$schema": VEGA_LITE_SCHEMA,
        "title": title,
        "mark": "bar",
        "encoding": {
            "y": {"field": "label", "type": "nominal", "sort": order, "title": null},
            "x": {"field": "value", "type": "quantitative", "title": unit}
        }
    });
    Chart::with_values(spec, values)
}
