//! The Vega-Lite v6 specification of a line chart over wide rows (`year` and one column per series),
//! typed: it is written straight to the answer's bytes when the display is serialized, with no JSON
//! tree built per call. Its fixed parts (the year axis, the legends, the transforms that join runs of
//! observed and projected points) are serialized once per process and copied in as raw JSON.

use std::sync::LazyLock;

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use super::VEGA_LITE_SCHEMA;
use crate::tools::rounding::significant;

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

/// The y scale of a line chart: whether it is forced to include zero and, for values that lie close
/// together, its domain (serialized as Vega-Lite's `scale`: `{"zero": false, "domain": [7.0, 7.8]}`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct YScale {
    /// The lowest and highest value of the axis, when the values alone would not span enough of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<[f64; 2]>,
    /// Whether the axis includes zero.
    pub zero: bool,
}

/// The y scale of a line chart over values spanning `range`: no forced zero, but a span of at least a
/// tenth of the values' largest magnitude, centred on them, so that small steps (7.5, 7.3, 7.4 deaths
/// per 1,000) are not drawn as a collapse and a long flat series is not drawn as noise; zero included
/// when there are no values or all are zero.
pub fn y_scale(range: Option<(f64, f64)>) -> YScale {
    let with_zero = YScale {
        domain: None,
        zero: true,
    };
    let Some((low, high)) = range else {
        return with_zero;
    };
    let magnitude = low.abs().max(high.abs());
    if magnitude == 0.0 || !magnitude.is_finite() {
        return with_zero;
    }
    let span = 0.1 * magnitude;
    if high - low >= span {
        return YScale {
            domain: None,
            zero: false,
        };
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
    YScale {
        domain: Some([tidy(from), tidy(to)]),
        zero: false,
    }
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

/// A fixed part of a specification, serialized once.
fn raw(value: serde_json::Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(&value).expect("a JSON value serializes")
}

/// The year axis of a line chart in each language (`Lang` order: es, en, pt): from the first year with
/// data to the last (no rounding outwards past the data, no zero), whole years, labels that do not
/// touch (every other one dropped until they do not).
static YEAR_AXES: LazyLock<[Box<RawValue>; 3]> = LazyLock::new(|| {
    [corpus::Lang::Es, corpus::Lang::En, corpus::Lang::Pt].map(|lang| {
        raw(serde_json::json!({
            "field": "year", "type": "quantitative", "title": year_title(lang),
            "scale": {"nice": false, "zero": false},
            "axis": {"format": "d", "labelOverlap": true, "labelSeparation": 6, "tickMinStep": 1}
        }))
    })
});

fn year_axis(lang: corpus::Lang) -> &'static RawValue {
    let at = match lang {
        corpus::Lang::Es => 0,
        corpus::Lang::En => 1,
        corpus::Lang::Pt => 2,
    };
    &YEAR_AXES[at]
}

/// The transforms of the line layer of a chart with runs of kinds: each point in the run of its kind
/// (`segment`), and the last point of a run also in the next run when the next year has a value, so the
/// runs join.
static JOINED_RUNS: LazyLock<Box<RawValue>> = LazyLock::new(|| {
    raw(serde_json::json!([
        {
            "window": [
                {"op": "lead", "field": "kind", "as": "next_kind"},
                {"op": "lead", "field": "value", "as": "next_value"}
            ],
            "groupby": ["series"],
            "sort": [{"field": "year", "order": "ascending"}]
        },
        {
            "calculate": "isValid(datum.value) && isValid(datum.next_value) && datum.next_kind !== datum.kind ? [datum.kind, datum.next_kind] : [datum.kind]",
            "as": "segments"
        },
        {"flatten": ["segments"], "as": ["segment"]}
    ]))
});

/// The legend of the observed/estimated/projected line samples: grey strokes.
static KIND_LEGEND: LazyLock<Box<RawValue>> = LazyLock::new(|| {
    raw(serde_json::json!({
        "symbolType": "stroke", "symbolSize": 400, "symbolStrokeWidth": 2,
        "symbolStrokeColor": LEGEND_SAMPLE_COLOR
    }))
});

/// The band's own legend entry: a pale swatch, as the band is drawn.
static BAND_LEGEND: LazyLock<Box<RawValue>> = LazyLock::new(|| {
    raw(serde_json::json!({
        "symbolType": "square", "symbolFillColor": LEGEND_SAMPLE_COLOR,
        "symbolSize": 200, "labelLimit": 360
    }))
});

/// `{"ARG":2022,…}` as a Vega expression object literal (JSON text).
fn expression_object<T: Serialize>(entries: &[(String, T)]) -> String {
    struct Entries<'a, T>(&'a [(String, T)]);
    impl<T: Serialize> Serialize for Entries<'_, T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            // Sorted by name, each once (the last entry of a name wins), as a JSON object reads.
            let mut entries: Vec<&(String, T)> = self.0.iter().collect();
            entries.sort_by(|left, right| left.0.cmp(&right.0));
            entries.reverse();
            entries.dedup_by(|later, earlier| later.0 == earlier.0);
            entries.reverse();
            serializer.collect_map(entries.into_iter().map(|(name, value)| (name, value)))
        }
    }
    serde_json::to_string(&Entries(entries)).expect("names and numbers serialize")
}

/// The Vega-Lite specification of a line chart over wide rows: `year` and one column per series,
/// folded back to long (`series`, `value`), one line per series, coloured and named by its name
/// ([`LineScale::names`]). The year axis ends at the data. A year without a value breaks its line (no
/// line is drawn across a gap).
///
/// With projected ([`LineScale::projected_from`]) or estimated ([`LineScale::estimated_from`]) years,
/// each point's `kind` is observed, estimate or projection, and the specification is layered: the lines
/// (dashed for projections, solid otherwise; the last point of a run is repeated at the start of the next
/// run, so the dashed projection starts where the solid line ends), then the points, each once with its
/// kind in the tooltip; the legend draws a grey line sample of each kind. With [`LineScale::bands`], the
/// bands (their own inline data, with a legend entry) are the first layer, under the lines.
///
/// Serializes as one specification object without top-level inline data (the chart's `data`, or
/// `{"name": data_name}`).
#[derive(Debug, Clone, PartialEq)]
pub struct LineSpec {
    /// Chart title.
    pub title: String,
    /// Unit of the values (the y axis title).
    pub unit: String,
    /// The series, in legend order: the columns of the rows after `year`.
    pub series: Vec<String>,
    /// Kinds, bands, range, names and language.
    pub scale: LineScale,
    /// The named data the chart draws (`table:0`, a table of the same display), when its rows are not
    /// inline.
    pub data_name: Option<String>,
}

/// A channel of an encoding (`{"field": "value", "type": "quantitative", "title": "years"}`).
#[derive(Serialize)]
struct Channel<'a> {
    field: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    legend: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scale: Option<Scale<'a>>,
    /// Absent, `null` (no title) or the title.
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<Option<&'a str>>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
}

impl<'a> Channel<'a> {
    fn new(field: &'a str, kind: &'static str, title: Option<&'a str>) -> Channel<'a> {
        Channel {
            field,
            legend: None,
            scale: None,
            title: Some(title),
            kind: Some(kind),
        }
    }
}

/// A channel's scale.
#[derive(Serialize)]
#[serde(untagged)]
enum Scale<'a> {
    /// The y scale.
    Y(YScale),
    /// A nominal or ordinal scale: its domain and range.
    Mapped {
        domain: Vec<&'a str>,
        range: Vec<serde_json::Value>,
        #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
        kind: Option<&'static str>,
    },
}

/// An encoding (its channels; a channel not drawn is absent).
#[derive(Serialize, Default)]
struct Encoding<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    color: Option<Channel<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    opacity: Option<Channel<'a>>,
    #[serde(rename = "strokeDash", skip_serializing_if = "Option::is_none")]
    stroke_dash: Option<Channel<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tooltip: Option<Vec<Channel<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    x: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    y: Option<Channel<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    y2: Option<Channel<'a>>,
}

/// A mark with its properties.
#[derive(Serialize)]
struct Mark {
    #[serde(skip_serializing_if = "Option::is_none")]
    filled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    invalid: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    opacity: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    point: Option<bool>,
    #[serde(rename = "type")]
    kind: &'static str,
}

impl Mark {
    fn new(kind: &'static str) -> Mark {
        Mark {
            filled: None,
            invalid: None,
            opacity: None,
            point: None,
            kind,
        }
    }
}

/// A gap in a series breaks its line; the axes still span every value.
const BREAK_PATHS: &str = "break-paths-show-domains";

/// One transform.
#[derive(Serialize)]
#[serde(untagged)]
enum Transform<'a> {
    /// `{"as": [key, value], "fold": columns}`.
    Fold {
        #[serde(rename = "as")]
        into: [&'static str; 2],
        fold: &'a [String],
    },
    /// `{"as": field, "calculate": expression}`.
    Calculate {
        #[serde(rename = "as")]
        into: &'static str,
        calculate: &'a str,
    },
}

/// One layer of a layered specification.
#[derive(Serialize)]
struct Layer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<BandData<'a>>,
    encoding: Encoding<'a>,
    mark: Mark,
    #[serde(skip_serializing_if = "Option::is_none")]
    transform: Option<LayerTransform<'a>>,
}

/// A layer's own transforms.
#[derive(Serialize)]
#[serde(untagged)]
enum LayerTransform<'a> {
    Listed(Vec<Transform<'a>>),
    Fixed(&'a RawValue),
}

/// The band layer's inline data.
#[derive(Serialize)]
struct BandData<'a> {
    values: &'a [Band],
}

/// `{"name": …}`: data a renderer binds by name.
#[derive(Serialize)]
struct NamedData<'a> {
    name: &'a str,
}

/// The whole specification, keys in the order a JSON object of them reads.
#[derive(Serialize)]
struct Specification<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<NamedData<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<Encoding<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    layer: Option<Vec<Layer<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mark: Option<Mark>,
    title: &'a str,
    transform: Vec<Transform<'a>>,
}

impl Serialize for LineSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let scale = &self.scale;
        let lang = scale.lang;
        let unit = self.unit.as_str();
        let name_expression = format!(
            "{}[datum.series] || datum.series",
            expression_object(&scale.names)
        );
        let mut transform = vec![
            Transform::Fold {
                into: ["series", "value"],
                fold: &self.series,
            },
            Transform::Calculate {
                into: "name",
                calculate: &name_expression,
            },
        ];
        let x = year_axis(lang);
        let y_scale = y_scale(scale.range);
        let y = || Channel {
            scale: Some(Scale::Y(y_scale)),
            ..Channel::new("value", "quantitative", Some(unit))
        };
        let color = || Channel::new("name", "nominal", None);
        let line_mark = || Mark {
            invalid: Some(BREAK_PATHS),
            point: Some(true),
            ..Mark::new("line")
        };
        let kinds = !scale.projected_from.is_empty() || !scale.estimated_from.is_empty();
        let mut layers = Vec::new();
        let mut description = None;
        let band_title = band_title(lang);
        let band_bounds = [format!("{band_title}: min"), format!("{band_title}: max")];
        let band_name = serde_json::Value::from(band_title).to_string();
        if !scale.bands.is_empty() {
            // The band layer has its own data, so the top-level transforms (over the rows) do not
            // reach it; it names its series as the lines do.
            description = Some(band_title);
            layers.push(Layer {
                data: Some(BandData {
                    values: &scale.bands,
                }),
                encoding: Encoding {
                    color: Some(color()),
                    // One value (the band's name), for the band's own legend entry.
                    opacity: Some(Channel {
                        legend: Some(&BAND_LEGEND),
                        scale: Some(Scale::Mapped {
                            domain: vec![band_title],
                            range: vec![0.2.into()],
                            kind: Some("ordinal"),
                        }),
                        ..Channel::new("band", "ordinal", None)
                    }),
                    tooltip: Some(vec![
                        Channel::new("name", "nominal", None),
                        Channel::new("year", "quantitative", Some(year_title(lang))),
                        Channel::new("low", "quantitative", Some(&band_bounds[0])),
                        Channel::new("high", "quantitative", Some(&band_bounds[1])),
                    ]),
                    x: Some(x),
                    y: Some(Channel {
                        scale: Some(Scale::Y(y_scale)),
                        ..Channel::new("low", "quantitative", Some(unit))
                    }),
                    y2: Some(Channel {
                        field: "high",
                        legend: None,
                        scale: None,
                        title: None,
                        kind: None,
                    }),
                    ..Encoding::default()
                },
                mark: Mark::new("area"),
                transform: Some(LayerTransform::Listed(vec![
                    Transform::Calculate {
                        into: "name",
                        calculate: &name_expression,
                    },
                    Transform::Calculate {
                        into: "band",
                        calculate: &band_name,
                    },
                ])),
            });
        }
        let kind_expression;
        if kinds {
            // `{"ARG": 2022, …}[datum.series]`: the series' first projected (estimated) year
            // (undefined: none, and `datum.year >= undefined` is false).
            let [observed, estimated, projected] = observed_estimated_projected(lang);
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
            kind_expression = kind;
            transform.push(Transform::Calculate {
                into: "kind",
                calculate: &kind_expression,
            });
            layers.push(Layer {
                data: None,
                encoding: Encoding {
                    color: Some(color()),
                    stroke_dash: Some(Channel {
                        legend: Some(&KIND_LEGEND),
                        scale: Some(Scale::Mapped {
                            domain,
                            range,
                            kind: None,
                        }),
                        ..Channel::new("segment", "nominal", None)
                    }),
                    x: Some(x),
                    y: Some(y()),
                    ..Encoding::default()
                },
                mark: Mark {
                    invalid: Some(BREAK_PATHS),
                    ..Mark::new("line")
                },
                transform: Some(LayerTransform::Fixed(&JOINED_RUNS)),
            });
            // The points, each once, with its own kind.
            layers.push(Layer {
                data: None,
                encoding: Encoding {
                    color: Some(color()),
                    tooltip: Some(vec![
                        Channel::new("name", "nominal", None),
                        Channel::new("year", "quantitative", Some(year_title(lang))),
                        Channel::new("value", "quantitative", Some(unit)),
                        Channel::new("kind", "nominal", None),
                    ]),
                    x: Some(x),
                    y: Some(y()),
                    ..Encoding::default()
                },
                mark: Mark {
                    filled: Some(true),
                    opacity: Some(1),
                    ..Mark::new("point")
                },
                transform: None,
            });
        } else if !layers.is_empty() {
            layers.push(Layer {
                data: None,
                encoding: Encoding {
                    color: Some(color()),
                    x: Some(x),
                    y: Some(y()),
                    ..Encoding::default()
                },
                mark: line_mark(),
                transform: None,
            });
        }
        let layered = !layers.is_empty();
        Specification {
            schema: VEGA_LITE_SCHEMA,
            data: self.data_name.as_deref().map(|name| NamedData { name }),
            description,
            encoding: (!layered).then(|| Encoding {
                color: Some(color()),
                x: Some(x),
                y: Some(y()),
                ..Encoding::default()
            }),
            layer: layered.then_some(layers),
            mark: (!layered).then(line_mark),
            title: &self.title,
            transform,
        }
        .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_line_chart_spans_at_least_a_tenth_of_its_values_and_holds_them() {
        let y_scale = |range| serde_json::to_value(y_scale(range)).unwrap();
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
