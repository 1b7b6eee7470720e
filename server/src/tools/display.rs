//! What a result shows a person: source and file links of a result, and the display payload that
//! travels in the result's `_meta` (tables, links, Vega-Lite v6 charts), with the chart builders and the
//! names a display writes in the request's language.

use corpus::{Country, Lang, Metric};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::rounding::significant;
use crate::load::Corpus;

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
    /// The specification without its top-level `data` (`$schema`, `title`, `mark`, `encoding`,
    /// `layer`…).
    #[serde(flatten)]
    pub spec: serde_json::Map<String, Value>,
    /// The top-level inline data, when the specification has it (a layered chart carries its data in
    /// its layers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<ChartData>,
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
            spec: match spec {
                Value::Object(spec) => spec,
                _ => serde_json::Map::new(),
            },
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
    let spec = wide_line_spec(title, unit, &series_names, &scale);
    let series: std::sync::Arc<[String]> = series_names.into();
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
    Chart::with_values(spec, values)
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
    scale: &LineScale,
) -> Chart {
    let mut spec = wide_line_spec(title, unit, series, scale);
    spec["data"] = serde_json::json!({"name": table_data_name(table)});
    Chart::from_spec(spec)
}

/// What a line chart needs beyond its rows to draw them honestly.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineScale {
    /// The first projected year of each series that has projections (a publisher's projection, such
    /// as IMF WEO's, from that year on): those points are drawn dashed, with their own legend.
    pub projected_from: Vec<(String, i32)>,
    /// The first estimated year of each series that has estimates (a publisher's estimate of a past
    /// year, IMF WEO's after "Estimates Start After"): drawn solid like observations (an estimate is an
    /// observation the publisher will revise), labelled "estimate" in the legend and tooltip.
    pub estimated_from: Vec<(String, i32)>,
    /// The 90 % bands of series whose values carry standard errors (WGI): drawn as a shaded area
    /// around each line. Empty: no band.
    pub bands: Vec<Band>,
    /// The lowest and highest value charted ([`value_range`]), which sets the y scale ([`y_scale`]).
    pub range: Option<(f64, f64)>,
    /// The name each series is shown by in the legend and the tooltips, as `(series, name)` (a country's
    /// name in `lang`); a series not listed is shown by its column name.
    pub names: Vec<(String, String)>,
    /// The language of the axis titles, the legend and the tooltips.
    pub lang: corpus::Lang,
}

/// One year of a series' uncertainty band: value ± [`BAND_Z`] standard errors (90 %).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Band {
    /// The series (a column of the charted table).
    pub series: String,
    /// Year.
    pub year: i32,
    /// value − [`BAND_Z`] × standard error.
    pub low: f64,
    /// value + [`BAND_Z`] × standard error.
    pub high: f64,
}

/// Standard errors on either side of a value its band spans: 1.64, a two-sided 90 % interval.
pub const BAND_Z: f64 = 1.64;

impl Band {
    /// The 90 % band of `value` with standard error `standard_error` in `year` of `series`.
    pub fn of(series: &str, year: i32, value: f64, standard_error: f64) -> Band {
        let half = BAND_Z * standard_error;
        Band {
            series: series.to_string(),
            year,
            low: significant(value - half, 6),
            high: significant(value + half, 6),
        }
    }
}

/// The lowest and highest of `values`; `None` without any.
pub fn value_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |range, value| match range {
        None => Some((value, value)),
        Some((low, high)) => Some((low.min(value), high.max(value))),
    })
}

/// The y scale of a line chart over values spanning `range`: no forced zero, but a span of at least a
/// tenth of the values' largest magnitude, centred on them, so that small steps (7.5, 7.3, 7.4 deaths per 1,000) are not drawn as a collapse and a long flat
/// series is not drawn as noise; zero included when there are no values or all are zero.
pub fn y_scale(range: Option<(f64, f64)>) -> Value {
    let Some((low, high)) = range else {
        return serde_json::json!({"zero": true});
    };
    let magnitude = low.abs().max(high.abs());
    if magnitude == 0.0 || !magnitude.is_finite() {
        return serde_json::json!({"zero": true});
    }
    let span = 0.1 * magnitude;
    if high - low >= span {
        return serde_json::json!({"zero": false});
    }
    // The values lie within a tenth of their magnitude of each other, so a span of that size around
    // them never reaches zero.
    let middle = (low + high) / 2.0;
    let (from, to) = (middle - span / 2.0, middle + span / 2.0);
    // Rounded outwards to three significant digits of the span, so that the domain still holds the
    // values.
    let step = 10f64.powf(span.log10().floor() - 2.0);
    let (from, to) = ((from / step).floor() * step, (to / step).ceil() * step);
    let tidy = |bound: f64| significant(bound, 12);
    serde_json::json!({"zero": false, "domain": [tidy(from), tidy(to)]})
}

/// The title of a year axis in `lang`.
pub fn year_title(lang: corpus::Lang) -> &'static str {
    match lang {
        corpus::Lang::Es => "año",
        corpus::Lang::En => "year",
        corpus::Lang::Pt => "ano",
    }
}

/// The legend's words for observed, estimated and projected points in `lang`.
fn observed_estimated_projected(lang: corpus::Lang) -> [&'static str; 3] {
    match lang {
        corpus::Lang::Es => ["observado", "estimación", "proyección"],
        corpus::Lang::En => ["observed", "estimate", "projection"],
        corpus::Lang::Pt => ["observado", "estimativa", "projeção"],
    }
}

/// The tooltip's name of a band in `lang`.
fn band_title(lang: corpus::Lang) -> &'static str {
    match lang {
        corpus::Lang::Es => "intervalo de 90 % (±1,64 errores estándar)",
        corpus::Lang::En => "90 % interval (±1.64 standard errors)",
        corpus::Lang::Pt => "intervalo de 90 % (±1,64 erros-padrão)",
    }
}

/// The colour of the legend's line samples and band swatch, which stand for every series: a grey
/// that reads on light and dark backgrounds.
pub const LEGEND_SAMPLE_COLOR: &str = "#888888";

/// The year axis of a line chart: from the first year with data to the last (no rounding outwards
/// past the data, no zero), whole years, labels that do not touch (every other one dropped until they
/// do not).
fn year_axis(lang: corpus::Lang) -> Value {
    serde_json::json!({
        "field": "year", "type": "quantitative", "title": year_title(lang),
        "scale": {"nice": false, "zero": false},
        "axis": {"format": "d", "labelOverlap": true, "labelSeparation": 6, "tickMinStep": 1}
    })
}

/// `{"ARG": 2022, …}` as a Vega expression object literal.
fn expression_object<T: Clone + Into<Value>>(entries: &[(String, T)]) -> Value {
    Value::Object(
        entries
            .iter()
            .map(|(name, value)| (name.clone(), value.clone().into()))
            .collect(),
    )
}

/// The Vega-Lite specification (without data) of a line chart over wide rows: `year` and one column per
/// series, folded back to long (`series`, `value`), one line per series, coloured and named by
/// `name` ([`LineScale::names`]). The year axis ends at the data. A year without a value breaks its line (no line
/// is drawn across a gap).
///
/// With projected ([`LineScale::projected_from`]) or estimated ([`LineScale::estimated_from`]) years,
/// each point's `kind` is observed, estimate or projection, and the specification is layered: the lines
/// (dashed for projections, solid otherwise; the last point of a run is repeated at the start of the next
/// run, so the dashed projection starts where the solid line ends), then the points, each once with its
/// kind in the tooltip; the legend draws a grey line sample of each kind. With [`LineScale::bands`], the
/// bands (their own inline data, with a legend entry) are the first layer, under the lines.
fn wide_line_spec(title: &str, unit: &str, series: &[String], scale: &LineScale) -> Value {
    let mut transform = vec![
        serde_json::json!({"fold": series, "as": ["series", "value"]}),
        serde_json::json!({
            "calculate": format!("{}[datum.series] || datum.series", expression_object(&scale.names)),
            "as": "name"
        }),
    ];
    let x = year_axis(scale.lang);
    let y = serde_json::json!({"field": "value", "type": "quantitative", "title": unit, "scale": y_scale(scale.range)});
    let color = serde_json::json!({"field": "name", "type": "nominal", "title": null});
    let mark =
        serde_json::json!({"type": "line", "point": true, "invalid": "break-paths-show-domains"});
    let kinds = !scale.projected_from.is_empty() || !scale.estimated_from.is_empty();
    let mut lines =
        vec![serde_json::json!({"mark": mark, "encoding": {"x": x, "y": y, "color": color}})];
    if kinds {
        // `{"ARG": 2022, …}[datum.series]`: the series' first projected (estimated) year (undefined:
        // none, and `datum.year >= undefined` is false).
        let [observed, estimated, projected] = observed_estimated_projected(scale.lang);
        let mut kind = format!("'{observed}'");
        let (mut domain, mut range) = (vec![observed], vec![serde_json::json!([1, 0])]);
        if !scale.estimated_from.is_empty() {
            kind = format!(
                "datum.year >= {}[datum.series] ? '{estimated}' : {kind}",
                expression_object(&scale.estimated_from)
            );
            domain.push(estimated);
            range.push(serde_json::json!([1, 0]));
        }
        if !scale.projected_from.is_empty() {
            kind = format!(
                "datum.year >= {}[datum.series] ? '{projected}' : {kind}",
                expression_object(&scale.projected_from)
            );
            domain.push(projected);
            range.push(serde_json::json!([4, 3]));
        }
        transform.push(serde_json::json!({"calculate": kind, "as": "kind"}));
        // The lines: each point in the run of its kind (`segment`), and the last point of a run also in
        // the next run when the next year has a value, so the runs join.
        let joined = [
            serde_json::json!({
                "window": [
                    {"op": "lead", "field": "kind", "as": "next_kind"},
                    {"op": "lead", "field": "value", "as": "next_value"}
                ],
                "groupby": ["series"],
                "sort": [{"field": "year", "order": "ascending"}]
            }),
            serde_json::json!({
                "calculate": "isValid(datum.value) && isValid(datum.next_value) && datum.next_kind !== datum.kind ? [datum.kind, datum.next_kind] : [datum.kind]",
                "as": "segments"
            }),
            serde_json::json!({"flatten": ["segments"], "as": ["segment"]}),
        ];
        let line = serde_json::json!({
            "transform": joined,
            "mark": {"type": "line", "invalid": "break-paths-show-domains"},
            "encoding": {
                "x": x, "y": y, "color": color,
                "strokeDash": {
                    "field": "segment", "type": "nominal", "title": null,
                    "scale": {"domain": domain, "range": range},
                    "legend": {
                        "symbolType": "stroke", "symbolSize": 400, "symbolStrokeWidth": 2,
                        "symbolStrokeColor": LEGEND_SAMPLE_COLOR
                    }
                }
            }
        });
        // The points, each once, with its own kind.
        let points = serde_json::json!({
            "mark": {"type": "point", "filled": true, "opacity": 1},
            "encoding": {
                "x": x, "y": y, "color": color,
                "tooltip": [
                    {"field": "name", "type": "nominal", "title": null},
                    {"field": "year", "type": "quantitative", "title": year_title(scale.lang)},
                    {"field": "value", "type": "quantitative", "title": unit},
                    {"field": "kind", "type": "nominal", "title": null}
                ]
            }
        });
        lines = vec![line, points];
    }
    if scale.bands.is_empty() && !kinds {
        let [only] = <[Value; 1]>::try_from(lines).expect("one layer");
        let mut spec = serde_json::json!({
            "$schema": VEGA_LITE_SCHEMA,
            "title": title,
            "transform": transform
        });
        spec["mark"] = only["mark"].clone();
        spec["encoding"] = only["encoding"].clone();
        return spec;
    }
    let mut layers = Vec::new();
    let mut description = None;
    if !scale.bands.is_empty() {
        // The band layer has its own data, so the top-level transforms (over the rows) do not reach it;
        // it names its series as the lines do.
        let band_title = band_title(scale.lang);
        description = Some(band_title);
        layers.push(serde_json::json!({
            "data": {"values": scale.bands},
            "transform": [
                {
                    "calculate": format!("{}[datum.series] || datum.series", expression_object(&scale.names)),
                    "as": "name"
                },
                {"calculate": Value::from(band_title).to_string(), "as": "band"}
            ],
            "mark": {"type": "area"},
            "encoding": {
                "x": x,
                "y": {"field": "low", "type": "quantitative", "title": unit, "scale": y["scale"].clone()},
                "y2": {"field": "high"},
                "color": color,
                // One value (the band's name), for the band's own legend entry (a pale swatch, as the
                // band is drawn).
                "opacity": {
                    "field": "band", "type": "ordinal", "title": null,
                    "scale": {"type": "ordinal", "domain": [band_title], "range": [0.2]},
                    "legend": {
                        "symbolType": "square", "symbolFillColor": LEGEND_SAMPLE_COLOR,
                        "symbolSize": 200, "labelLimit": 360
                    }
                },
                "tooltip": [
                    {"field": "name", "type": "nominal", "title": null},
                    {"field": "year", "type": "quantitative", "title": year_title(scale.lang)},
                    {"field": "low", "type": "quantitative", "title": format!("{band_title}: min")},
                    {"field": "high", "type": "quantitative", "title": format!("{band_title}: max")}
                ]
            }
        }));
    }
    layers.extend(lines);
    let mut spec = serde_json::json!({
        "$schema": VEGA_LITE_SCHEMA,
        "title": title,
        "transform": transform,
        "layer": layers
    });
    if let Some(description) = description {
        spec["description"] = description.into();
    }
    spec
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_line_chart_spans_at_least_a_tenth_of_its_values_and_holds_them() {
        // Life expectancy 53.6 to 75.3: enough spread, no forced zero.
        assert_eq!(y_scale(Some((53.573, 75.264))), json!({"zero": false}));
        // Under-5 mortality 7.3 to 7.5: a span of 0.75 around 7.4, not a zoom on rounding steps.
        let small = y_scale(Some((7.3, 7.5)));
        let [from, to] = [0, 1].map(|at| small["domain"][at].as_f64().unwrap());
        assert!(from <= 7.3 && to >= 7.5, "{small}");
        assert!(((to - from) - 0.75).abs() < 0.02, "{small}");
        let negative = y_scale(Some((-4.0, -3.8)));
        let [from, to] = [0, 1].map(|at| negative["domain"][at].as_f64().unwrap());
        assert!(from <= -4.0 && (-3.8..=0.0).contains(&to), "{negative}");
        assert_eq!(y_scale(None), json!({"zero": true}));
        assert_eq!(y_scale(Some((0.0, 0.0))), json!({"zero": true}));
    }
}
