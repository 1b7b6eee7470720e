//! SDMX files of the indicators, for SDMX clients (Python `sdmx1`, R `rsdmx`, .Stat): one SDMX-ML 2.1
//! structure message for the whole corpus and, per indicator, its data as SDMX-ML 2.1 StructureSpecificData
//! and as SDMX-CSV 2.0 and 1.0 (.Stat Suite's download format for systems without 2.0). Byte-identical across bakes of the same inputs: codes are sorted, and the only
//! time in them is the `prepared` string the caller passes (no clock, no random ids).
//!
//! Every artefact is maintained by agency [`AGENCY`] (`LAC_CORPUS`), version [`VERSION`] (`1.0`):
//!
//! | artefact | id | contents |
//! |---|---|---|
//! | codelist | `CL_AREA` | every entity passed to [`write_structure`]: code = ISO3 (aggregates: publisher code) |
//! | codelist | `CL_INDICATOR` | every metric: code = metric id (`si_pov_gini`), name, description |
//! | codelist | `CL_UNIT` | one code per distinct unit text: code = [`unit_code`], name = the unit text |
//! | codelist | `CL_OBS_STATUS` | the SDMX cross-domain codes ([`OBS_STATUS_CODES`]): `A` normal value, `E` estimated value (flag `estimate`), `F` forecast value (flag `projection`), `I` imputed value (flag `modelled`: a value modelled by the international publisher where national data are missing, as the ILO's modelled estimates), `U` low reliability (flag `suspect_scale`) |
//! | concept scheme | `CS_LAC` | `INDICATOR`, `REF_AREA`, `TIME_PERIOD`, `OBS_VALUE`, `UNIT_MEASURE`, `OBS_STATUS`, `CITATION_ID`, `STANDARD_ERROR` |
//! | data structure | [`DSD_ID`] | dimensions `INDICATOR` (1), `REF_AREA` (2), time dimension `TIME_PERIOD`; attributes `UNIT_MEASURE` (series: `INDICATOR` + `REF_AREA`), `OBS_STATUS`, `CITATION_ID` (observation; the citation id is free text) and `STANDARD_ERROR` (observation, conditional, double: the publisher's standard error in the value's unit, given by WGI); primary measure `OBS_VALUE` (double) |
//! | dataflow | [`DATAFLOW_ID`] | references the data structure |
//!
//! The data files carry one observation per governed row: `TIME_PERIOD` is the year, `OBS_VALUE` the value
//! as the shortest decimal that round-trips (Rust's `Display` for `f64`; `NaN`, `INF`, `-INF` for non-finite
//! values), `OBS_STATUS` is [`obs_status`] of the flags, `CITATION_ID` the citation id (omitted in SDMX-ML
//! when empty), `STANDARD_ERROR` the publisher's standard error where it gives one (omitted otherwise).
//! No modelled value, estimate or projection goes out as `A`.
//!
//! Reading them with `sdmx1`:
//!
//! ```python
//! import sdmx
//! structure = sdmx.read_sdmx("exports/sdmx/structure.sdmx.xml")
//! dsd = structure.structure["DSD_LAC"]
//! flow = structure.dataflow["DF_LAC"]
//! ml = sdmx.read_sdmx("exports/indicators/si_pov_gini.sdmx.xml", structure=dsd)
//! csv = sdmx.read_sdmx("exports/indicators/si_pov_gini.sdmx.csv", structure=flow)
//! csv1 = sdmx.read_sdmx("exports/indicators/si_pov_gini.sdmx1.csv", structure=flow)
//! sdmx.to_pandas(ml)  # pandas.Series indexed by INDICATOR, REF_AREA, TIME_PERIOD
//! ```

use std::{
    borrow::Cow,
    collections::BTreeMap,
    fs::File,
    io::{self, BufWriter, Write},
    path::Path,
};

use corpus::{Country, Metric, Names};
use quick_xml::{
    Writer,
    events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event},
};

use super::indicators::{IndicatorExport, NumberText, csv_error, csv_writer, finish_csv};
use crate::BakeError;

/// The maintenance agency of every artefact.
pub const AGENCY: &str = "LAC_CORPUS";
/// The version of every artefact.
pub const VERSION: &str = "1.0";
/// The data structure definition's id.
pub const DSD_ID: &str = "DSD_LAC";
/// The dataflow's id.
pub const DATAFLOW_ID: &str = "DF_LAC";
/// The dataflow as SDMX-CSV's `STRUCTURE_ID` writes it (`AGENCY:ID(VERSION)`).
pub const DATAFLOW_REF: &str = "LAC_CORPUS:DF_LAC(1.0)";
/// The message-local id of the data structure in the data messages' header (`structureID`).
pub const STRUCTURE_ID: &str = "LAC_CORPUS_DSD_LAC_1_0";
/// The structure-specific namespace of the data messages (time at the observation level).
pub const STRUCTURE_NAMESPACE: &str = "urn:sdmx:org.sdmx.infomodel.datastructure.DataStructure=LAC_CORPUS:DSD_LAC(1.0):ObsLevelDim:TIME_PERIOD";
/// The SDMX-CSV 2.0 header.
pub const SDMX_CSV_HEADER: [&str; 10] = [
    "STRUCTURE",
    "STRUCTURE_ID",
    "ACTION",
    "INDICATOR",
    "REF_AREA",
    "TIME_PERIOD",
    "OBS_VALUE",
    "UNIT_MEASURE",
    "OBS_STATUS",
    "CITATION_ID",
];
/// The SDMX-CSV 1.0 header: `DATAFLOW` ([`DATAFLOW_REF`]), the dimensions, the measure, the attributes.
pub const SDMX_CSV_1_HEADER: [&str; 8] = [
    "DATAFLOW",
    "INDICATOR",
    "REF_AREA",
    "TIME_PERIOD",
    "OBS_VALUE",
    "UNIT_MEASURE",
    "OBS_STATUS",
    "CITATION_ID",
];
/// `OBS_STATUS` of an observed value.
pub const OBS_STATUS_NORMAL: &str = "A";
/// `OBS_STATUS` of a projection (flag `projection`).
pub const OBS_STATUS_FORECAST: &str = "F";
/// `OBS_STATUS` of a publisher's estimate of a past year (flag `estimate`; SDMX's code list `E`).
pub const OBS_STATUS_ESTIMATED: &str = "E";
/// `OBS_STATUS` of a modelled value (flag `modelled`): SDMX's `I`, "imputed value (CCSA definition)",
/// a value an international organisation models to fill a gap in national data.
pub const OBS_STATUS_IMPUTED: &str = "I";
/// `OBS_STATUS` of a value whose scale the bake found suspect (flag `suspect_scale`): SDMX's `U`, "low
/// reliability".
pub const OBS_STATUS_LOW_RELIABILITY: &str = "U";
/// `CL_OBS_STATUS`: (code, name, description) in the SDMX cross-domain code list's words.
pub const OBS_STATUS_CODES: [(&str, &str, &str); 5] = [
    (
        OBS_STATUS_NORMAL,
        "Normal value",
        "An observed value as the publisher gives it.",
    ),
    (
        OBS_STATUS_ESTIMATED,
        "Estimated value",
        "The publisher's estimate of a past year, open to revision (flag estimate).",
    ),
    (
        OBS_STATUS_FORECAST,
        "Forecast value",
        "A projection of the publisher (flag projection), e.g. IMF WEO years after its last actual.",
    ),
    (
        OBS_STATUS_IMPUTED,
        "Imputed value (CCSA definition)",
        "A value modelled by the international publisher where national data are missing (flag modelled), e.g. ILO modelled estimates.",
    ),
    (
        OBS_STATUS_LOW_RELIABILITY,
        "Low reliability",
        "A value whose scale the bake found suspect against the series (flag suspect_scale).",
    ),
];

const NS_MESSAGE: &str = "http://www.sdmx.org/resources/sdmxml/schemas/v2_1/message";
const NS_STRUCTURE: &str = "http://www.sdmx.org/resources/sdmxml/schemas/v2_1/structure";
const NS_COMMON: &str = "http://www.sdmx.org/resources/sdmxml/schemas/v2_1/common";
const NS_STRUCTURE_SPECIFIC: &str =
    "http://www.sdmx.org/resources/sdmxml/schemas/v2_1/data/structurespecific";
const NS_XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";
const CONCEPT_SCHEME: &str = "CS_LAC";

/// The concepts of `CS_LAC`, in scheme order, with their English names.
const CONCEPTS: [(&str, &str); 8] = [
    ("INDICATOR", "Indicator"),
    ("REF_AREA", "Reference area"),
    ("TIME_PERIOD", "Time period"),
    ("OBS_VALUE", "Observation value"),
    ("UNIT_MEASURE", "Unit of measure"),
    ("OBS_STATUS", "Observation status"),
    ("CITATION_ID", "Citation id"),
    ("STANDARD_ERROR", "Standard error of the value, in its unit"),
];

/// The `CL_UNIT` code of a unit text: ASCII letters and digits upper-cased, `_ @ $ -` kept, `%` as `PCT`,
/// every other run of characters (spaces, punctuation, non-ASCII) as one `_`, no `_` at either end; `NONE`
/// when nothing is left. Depends on the text only (`% of GDP` → `PCT_OF_GDP`, `current US$` →
/// `CURRENT_US$`, `index (0-100)` → `INDEX_0-100`), so the structure and the data files agree without
/// sharing state; [`write_structure`] rejects two unit texts with the same code.
pub fn unit_code(unit: &str) -> String {
    let mut code = String::with_capacity(unit.len() + 4);
    let mut pending_gap = false;
    for character in unit.chars() {
        let piece: Option<&str> = match character {
            '%' => Some("PCT"),
            _ => None,
        };
        if character.is_ascii_alphanumeric()
            || matches!(character, '@' | '$' | '-')
            || piece.is_some()
        {
            if pending_gap && !code.is_empty() {
                code.push('_');
            }
            pending_gap = false;
            match piece {
                Some(piece) => code.push_str(piece),
                None => code.push(character.to_ascii_uppercase()),
            }
        } else {
            pending_gap = true;
        }
    }
    if code.is_empty() {
        code.push_str("NONE");
    }
    code
}

/// The `OBS_STATUS` of an observation with these `|`-separated flags, the first that applies:
/// [`OBS_STATUS_FORECAST`] for a projection, [`OBS_STATUS_LOW_RELIABILITY`] for a suspect scale,
/// [`OBS_STATUS_IMPUTED`] for a modelled value, [`OBS_STATUS_ESTIMATED`] for an estimate,
/// [`OBS_STATUS_NORMAL`] otherwise.
pub fn obs_status(flags: &str) -> &'static str {
    let has = |flag: &str| flags.split('|').any(|part| part == flag);
    if corpus::is_projection(flags) {
        OBS_STATUS_FORECAST
    } else if corpus::frontier::SUSPECT_FLAGS.iter().any(|flag| has(flag)) {
        OBS_STATUS_LOW_RELIABILITY
    } else if has(corpus::health::MODELLED_FLAG) {
        OBS_STATUS_IMPUTED
    } else if corpus::is_estimate(flags) {
        OBS_STATUS_ESTIMATED
    } else {
        OBS_STATUS_NORMAL
    }
}

/// Whether `text` is a valid SDMX id (`[A-Za-z0-9_@$-]+`).
pub fn is_sdmx_id(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'@' | b'$' | b'-'))
}

/// Writes the SDMX-ML 2.1 structure message (`mes:Structure`) at `path`: header (ID
/// `LAC_CORPUS_STRUCTURE`, Test `false`, Prepared = `prepared`, an ISO 8601 date-time such as
/// `2025-07-01T00:00:00`, Sender `LAC_CORPUS`), then the codelists (codes sorted by id; `CL_AREA` from
/// `countries`, `CL_INDICATOR` and `CL_UNIT` from `metrics`, names in every language the registry has), the
/// concept scheme, the data structure and the dataflow described in the [module docs](self). The order of
/// `metrics` and `countries` does not matter; a repeated id is written once.
///
/// # Errors
/// [`BakeError::Table`] naming `path` if a metric id or country code is not a valid SDMX id
/// ([`is_sdmx_id`]) or two unit texts share a [`unit_code`]; [`BakeError::Io`] if the file cannot be
/// written.
pub fn write_structure(
    path: &Path,
    metrics: &[&Metric],
    countries: &[Country],
    prepared: &str,
) -> Result<(), BakeError> {
    let invalid = |message: String| BakeError::Table {
        artifact: path.display().to_string(),
        message,
    };
    let mut areas: BTreeMap<&str, &Names> = BTreeMap::new();
    for country in countries {
        if !is_sdmx_id(&country.iso3) {
            return Err(invalid(format!(
                "country code `{}` is not a valid SDMX id ([A-Za-z0-9_@$-]+)",
                country.iso3
            )));
        }
        areas.entry(country.iso3.as_str()).or_insert(&country.names);
    }
    let mut indicators: BTreeMap<&str, &Metric> = BTreeMap::new();
    let mut units: BTreeMap<String, &str> = BTreeMap::new();
    for metric in metrics {
        if !is_sdmx_id(&metric.id) {
            return Err(invalid(format!(
                "metric id `{}` is not a valid SDMX id ([A-Za-z0-9_@$-]+)",
                metric.id
            )));
        }
        indicators.entry(metric.id.as_str()).or_insert(metric);
        let unit = metric.unit.as_str();
        let code = unit_code(unit);
        match units.get(&code) {
            Some(&other) if other != unit => {
                let (first, second) = if other < unit {
                    (other, unit)
                } else {
                    (unit, other)
                };
                return Err(invalid(format!(
                    "units `{first}` and `{second}` both map to the CL_UNIT code `{code}`; make the unit texts differ in letters or digits"
                )));
            }
            Some(_) => {}
            None => {
                units.insert(code, unit);
            }
        }
    }
    let file = File::create(path).map_err(|error| BakeError::io(path, error))?;
    let out = BufWriter::with_capacity(1 << 16, file);
    write_structure_xml(out, &areas, &indicators, &units, prepared)
        .and_then(|mut out| out.flush())
        .map_err(|error| BakeError::io(path, error))
}

/// Writes the SDMX-ML 2.1 StructureSpecificData message of one indicator at `path`: header (ID
/// `LAC_CORPUS_{metric id}`, Test `false`, Prepared = `prepared`, Sender `LAC_CORPUS`, `mes:Structure` with
/// `structureID` [`STRUCTURE_ID`], `namespace` [`STRUCTURE_NAMESPACE`], `dimensionAtObservation`
/// `TIME_PERIOD` and a `com:Structure` reference to [`DSD_ID`]), then one `mes:DataSet` with one `Series`
/// (`INDICATOR`, `REF_AREA`, `UNIT_MEASURE`) per run of rows of the same country, each with its `Obs`
/// (`TIME_PERIOD`, `OBS_VALUE`, `OBS_STATUS`, `CITATION_ID`). Rows are expected in (country, year) order,
/// as [`super::indicators::group_by_indicator`] gives them. An export without rows gives an empty data set.
///
/// # Errors
/// [`BakeError::Table`] naming `path` if the metric id or a country code is not a valid SDMX id;
/// [`BakeError::Io`] if the file cannot be written.
pub fn write_structure_specific(
    path: &Path,
    export: &IndicatorExport<'_>,
    prepared: &str,
) -> Result<(), BakeError> {
    check_ids(path, export)?;
    let file = File::create(path).map_err(|error| BakeError::io(path, error))?;
    let out = BufWriter::with_capacity(1 << 16, file);
    write_data_xml(out, export, prepared)
        .and_then(|mut out| out.flush())
        .map_err(|error| BakeError::io(path, error))
}

/// Which SDMX-CSV: 2.0 (`STRUCTURE`, `STRUCTURE_ID`, `ACTION` columns) or 1.0 (one `DATAFLOW` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SdmxCsvVersion {
    /// SDMX-CSV 2.0: header [`SDMX_CSV_HEADER`].
    V2,
    /// SDMX-CSV 1.0: header [`SDMX_CSV_1_HEADER`].
    V1,
}

/// Writes the SDMX-CSV file of one indicator at `path` (RFC 4180, UTF-8, CRLF) in `version`: the
/// version's header and, for an indicator with standard errors, `STANDARD_ERROR`; one row per observation in the export's order: (2.0:
/// `dataflow`, [`DATAFLOW_REF`], `I` for information; 1.0: [`DATAFLOW_REF`]), metric id, country, year,
/// value, [`unit_code`] of the unit, [`obs_status`], citation id, standard error (empty where none).
///
/// # Errors
/// [`BakeError::Table`] naming `path` if the metric id or a country code is not a valid SDMX id;
/// [`BakeError::Io`] if the file cannot be written.
pub fn write_sdmx_csv(
    path: &Path,
    export: &IndicatorExport<'_>,
    version: SdmxCsvVersion,
) -> Result<(), BakeError> {
    check_ids(path, export)?;
    let mut writer = csv_writer(path)?;
    let error = csv_error(path);
    let with_errors = export.has_standard_errors();
    let mut header: Vec<&str> = match version {
        SdmxCsvVersion::V2 => SDMX_CSV_HEADER.to_vec(),
        SdmxCsvVersion::V1 => SDMX_CSV_1_HEADER.to_vec(),
    };
    if with_errors {
        header.push("STANDARD_ERROR");
    }
    writer.write_record(&header).map_err(&error)?;
    let indicator = export.metric.id.as_str();
    let unit = unit_code(&export.metric.unit);
    let mut year = NumberText::default();
    let mut value = NumberText::default();
    let mut standard_error = NumberText::default();
    for row in &export.rows {
        let mut record: Vec<&str> = match version {
            SdmxCsvVersion::V2 => vec!["dataflow", DATAFLOW_REF, "I"],
            SdmxCsvVersion::V1 => vec![DATAFLOW_REF],
        };
        record.extend([
            indicator,
            row.country,
            year.format(row.year),
            obs_value(&mut value, row.value),
            unit.as_str(),
            obs_status(row.flags),
            row.citation_id,
        ]);
        if with_errors {
            record.push(
                row.standard_error
                    .map_or("", |se| obs_value(&mut standard_error, se)),
            );
        }
        writer.write_record(&record).map_err(&error)?;
    }
    finish_csv(path, writer)?
        .flush()
        .map_err(|error| BakeError::io(path, error))
}

/// Rejects an export whose metric id or country codes are not SDMX ids.
fn check_ids(path: &Path, export: &IndicatorExport<'_>) -> Result<(), BakeError> {
    let invalid = |what: &str, id: &str| BakeError::Table {
        artifact: path.display().to_string(),
        message: format!("{what} `{id}` is not a valid SDMX id ([A-Za-z0-9_@$-]+)"),
    };
    if !is_sdmx_id(&export.metric.id) {
        return Err(invalid("metric id", &export.metric.id));
    }
    let mut previous = None;
    for row in &export.rows {
        if previous != Some(row.country) {
            if !is_sdmx_id(row.country) {
                return Err(invalid("country code", row.country));
            }
            previous = Some(row.country);
        }
    }
    Ok(())
}

/// `OBS_VALUE` text: the shortest round-trip decimal, or the xs:double spellings of non-finite values.
fn obs_value(text: &mut NumberText, value: f64) -> &str {
    if value.is_finite() {
        text.format(value)
    } else if value.is_nan() {
        "NaN"
    } else if value > 0.0 {
        "INF"
    } else {
        "-INF"
    }
}

/// `text` without the characters XML 1.0 cannot carry (C0 controls but tab, newline and carriage return;
/// U+FFFE, U+FFFF).
fn xml_text(text: &str) -> Cow<'_, str> {
    let allowed = |c: char| !matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}');
    if text.chars().all(allowed) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.chars().filter(|&c| allowed(c)).collect())
    }
}

type Xml<W> = Writer<W>;

fn start<W: Write>(xml: &mut Xml<W>, tag: &str, attributes: &[(&str, &str)]) -> io::Result<()> {
    xml.write_event(Event::Start(
        BytesStart::new(tag).with_attributes(attributes.iter().copied()),
    ))
}

fn end<W: Write>(xml: &mut Xml<W>, tag: &str) -> io::Result<()> {
    xml.write_event(Event::End(BytesEnd::new(tag)))
}

fn empty<W: Write>(xml: &mut Xml<W>, tag: &str, attributes: &[(&str, &str)]) -> io::Result<()> {
    xml.write_event(Event::Empty(
        BytesStart::new(tag).with_attributes(attributes.iter().copied()),
    ))
}

fn text_element<W: Write>(xml: &mut Xml<W>, tag: &str, text: &str) -> io::Result<()> {
    xml.create_element(tag)
        .write_text_content(BytesText::new(&xml_text(text)))?;
    Ok(())
}

/// `<com:Name xml:lang="{lang}">` (or another localised element) with `text`.
fn localised<W: Write>(xml: &mut Xml<W>, tag: &str, lang: &str, text: &str) -> io::Result<()> {
    xml.create_element(tag)
        .with_attribute(("xml:lang", lang))
        .write_text_content(BytesText::new(&xml_text(text)))?;
    Ok(())
}

/// The names of `names` in English, Spanish and Portuguese (those present and non-empty); `fallback` in
/// English when the English name is empty.
fn write_names<W: Write>(xml: &mut Xml<W>, names: &Names, fallback: &str) -> io::Result<()> {
    let en = if names.en.is_empty() {
        fallback
    } else {
        names.en.as_str()
    };
    localised(xml, "com:Name", "en", en)?;
    for (lang, name) in [("es", &names.es), ("pt", &names.pt)] {
        if let Some(name) = name.as_deref().filter(|name| !name.is_empty()) {
            localised(xml, "com:Name", lang, name)?;
        }
    }
    Ok(())
}

/// Opens a maintainable artefact of [`AGENCY`], version [`VERSION`], and writes its English name.
fn open_maintainable<W: Write>(
    xml: &mut Xml<W>,
    tag: &str,
    id: &str,
    name: &str,
) -> io::Result<()> {
    start(
        xml,
        tag,
        &[
            ("id", id),
            ("agencyID", AGENCY),
            ("version", VERSION),
            ("isFinal", "true"),
        ],
    )?;
    localised(xml, "com:Name", "en", name)
}

/// `<{tag}><Ref .../></{tag}>`.
fn reference<W: Write>(xml: &mut Xml<W>, tag: &str, attributes: &[(&str, &str)]) -> io::Result<()> {
    start(xml, tag, &[])?;
    empty(xml, "Ref", attributes)?;
    end(xml, tag)
}

fn concept_identity<W: Write>(xml: &mut Xml<W>, concept: &str) -> io::Result<()> {
    reference(
        xml,
        "str:ConceptIdentity",
        &[
            ("id", concept),
            ("maintainableParentID", CONCEPT_SCHEME),
            ("maintainableParentVersion", VERSION),
            ("agencyID", AGENCY),
            ("package", "conceptscheme"),
            ("class", "Concept"),
        ],
    )
}

fn enumerated<W: Write>(xml: &mut Xml<W>, codelist: &str) -> io::Result<()> {
    start(xml, "str:LocalRepresentation", &[])?;
    reference(
        xml,
        "str:Enumeration",
        &[
            ("id", codelist),
            ("version", VERSION),
            ("agencyID", AGENCY),
            ("package", "codelist"),
            ("class", "Codelist"),
        ],
    )?;
    end(xml, "str:LocalRepresentation")
}

fn text_format<W: Write>(xml: &mut Xml<W>, text_type: &str) -> io::Result<()> {
    start(xml, "str:LocalRepresentation", &[])?;
    empty(xml, "str:TextFormat", &[("textType", text_type)])?;
    end(xml, "str:LocalRepresentation")
}

/// `mes:ID`, `mes:Test`, `mes:Prepared` and `mes:Sender` of a header.
fn header_start<W: Write>(xml: &mut Xml<W>, id: &str, prepared: &str) -> io::Result<()> {
    start(xml, "mes:Header", &[])?;
    text_element(xml, "mes:ID", id)?;
    text_element(xml, "mes:Test", "false")?;
    text_element(xml, "mes:Prepared", prepared)?;
    empty(xml, "mes:Sender", &[("id", AGENCY)])
}

fn finish_xml<W: Write>(xml: Xml<W>) -> io::Result<W> {
    let mut out = xml.into_inner();
    out.write_all(b"\n")?;
    Ok(out)
}

fn write_structure_xml<W: Write>(
    out: W,
    areas: &BTreeMap<&str, &Names>,
    indicators: &BTreeMap<&str, &Metric>,
    units: &BTreeMap<String, &str>,
    prepared: &str,
) -> io::Result<W> {
    let mut xml = Writer::new_with_indent(out, b' ', 2);
    xml.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    start(
        &mut xml,
        "mes:Structure",
        &[
            ("xmlns:mes", NS_MESSAGE),
            ("xmlns:str", NS_STRUCTURE),
            ("xmlns:com", NS_COMMON),
        ],
    )?;
    header_start(&mut xml, "LAC_CORPUS_STRUCTURE", prepared)?;
    end(&mut xml, "mes:Header")?;
    start(&mut xml, "mes:Structures", &[])?;

    // The order of the SDMX-ML 2.1 StructuresType: Dataflows, Codelists, Concepts, DataStructures.
    start(&mut xml, "str:Dataflows", &[])?;
    open_maintainable(
        &mut xml,
        "str:Dataflow",
        DATAFLOW_ID,
        "LAC corpus indicators",
    )?;
    reference(
        &mut xml,
        "str:Structure",
        &[
            ("id", DSD_ID),
            ("version", VERSION),
            ("agencyID", AGENCY),
            ("package", "datastructure"),
            ("class", "DataStructure"),
        ],
    )?;
    end(&mut xml, "str:Dataflow")?;
    end(&mut xml, "str:Dataflows")?;

    start(&mut xml, "str:Codelists", &[])?;
    open_maintainable(&mut xml, "str:Codelist", "CL_AREA", "Reference areas")?;
    for (&code, &area_names) in areas {
        start(&mut xml, "str:Code", &[("id", code)])?;
        write_names(&mut xml, area_names, code)?;
        end(&mut xml, "str:Code")?;
    }
    end(&mut xml, "str:Codelist")?;
    open_maintainable(&mut xml, "str:Codelist", "CL_INDICATOR", "Indicators")?;
    for (&code, metric) in indicators {
        start(&mut xml, "str:Code", &[("id", code)])?;
        write_names(&mut xml, &metric.names, code)?;
        if !metric.description.is_empty() {
            localised(&mut xml, "com:Description", "en", &metric.description)?;
        }
        end(&mut xml, "str:Code")?;
    }
    end(&mut xml, "str:Codelist")?;
    open_maintainable(
        &mut xml,
        "str:Codelist",
        "CL_OBS_STATUS",
        "Observation status",
    )?;
    for (code, name, description) in OBS_STATUS_CODES {
        start(&mut xml, "str:Code", &[("id", code)])?;
        localised(&mut xml, "com:Name", "en", name)?;
        localised(&mut xml, "com:Description", "en", description)?;
        end(&mut xml, "str:Code")?;
    }
    end(&mut xml, "str:Codelist")?;
    open_maintainable(&mut xml, "str:Codelist", "CL_UNIT", "Units of measure")?;
    for (code, &unit) in units {
        start(&mut xml, "str:Code", &[("id", code)])?;
        localised(
            &mut xml,
            "com:Name",
            "en",
            if unit.is_empty() { "none" } else { unit },
        )?;
        end(&mut xml, "str:Code")?;
    }
    end(&mut xml, "str:Codelist")?;
    end(&mut xml, "str:Codelists")?;

    start(&mut xml, "str:Concepts", &[])?;
    open_maintainable(
        &mut xml,
        "str:ConceptScheme",
        CONCEPT_SCHEME,
        "Concepts of the LAC corpus",
    )?;
    for (id, name) in CONCEPTS {
        start(&mut xml, "str:Concept", &[("id", id)])?;
        localised(&mut xml, "com:Name", "en", name)?;
        end(&mut xml, "str:Concept")?;
    }
    end(&mut xml, "str:ConceptScheme")?;
    end(&mut xml, "str:Concepts")?;

    start(&mut xml, "str:DataStructures", &[])?;
    open_maintainable(
        &mut xml,
        "str:DataStructure",
        DSD_ID,
        "LAC corpus indicators",
    )?;
    start(&mut xml, "str:DataStructureComponents", &[])?;

    start(
        &mut xml,
        "str:DimensionList",
        &[("id", "DimensionDescriptor")],
    )?;
    for (id, position, codelist) in [
        ("INDICATOR", "1", "CL_INDICATOR"),
        ("REF_AREA", "2", "CL_AREA"),
    ] {
        start(
            &mut xml,
            "str:Dimension",
            &[("id", id), ("position", position)],
        )?;
        concept_identity(&mut xml, id)?;
        enumerated(&mut xml, codelist)?;
        end(&mut xml, "str:Dimension")?;
    }
    start(
        &mut xml,
        "str:TimeDimension",
        &[("id", "TIME_PERIOD"), ("position", "3")],
    )?;
    concept_identity(&mut xml, "TIME_PERIOD")?;
    text_format(&mut xml, "ObservationalTimePeriod")?;
    end(&mut xml, "str:TimeDimension")?;
    end(&mut xml, "str:DimensionList")?;

    start(
        &mut xml,
        "str:AttributeList",
        &[("id", "AttributeDescriptor")],
    )?;
    start(
        &mut xml,
        "str:Attribute",
        &[("id", "UNIT_MEASURE"), ("assignmentStatus", "Mandatory")],
    )?;
    concept_identity(&mut xml, "UNIT_MEASURE")?;
    enumerated(&mut xml, "CL_UNIT")?;
    start(&mut xml, "str:AttributeRelationship", &[])?;
    for dimension in ["INDICATOR", "REF_AREA"] {
        reference(&mut xml, "str:Dimension", &[("id", dimension)])?;
    }
    end(&mut xml, "str:AttributeRelationship")?;
    end(&mut xml, "str:Attribute")?;
    for (id, status) in [
        ("OBS_STATUS", "Mandatory"),
        ("CITATION_ID", "Conditional"),
        ("STANDARD_ERROR", "Conditional"),
    ] {
        start(
            &mut xml,
            "str:Attribute",
            &[("id", id), ("assignmentStatus", status)],
        )?;
        concept_identity(&mut xml, id)?;
        match id {
            "OBS_STATUS" => enumerated(&mut xml, "CL_OBS_STATUS")?,
            "STANDARD_ERROR" => text_format(&mut xml, "Double")?,
            _ => text_format(&mut xml, "String")?,
        }
        start(&mut xml, "str:AttributeRelationship", &[])?;
        reference(&mut xml, "str:PrimaryMeasure", &[("id", "OBS_VALUE")])?;
        end(&mut xml, "str:AttributeRelationship")?;
        end(&mut xml, "str:Attribute")?;
    }
    end(&mut xml, "str:AttributeList")?;

    start(&mut xml, "str:MeasureList", &[("id", "MeasureDescriptor")])?;
    start(&mut xml, "str:PrimaryMeasure", &[("id", "OBS_VALUE")])?;
    concept_identity(&mut xml, "OBS_VALUE")?;
    text_format(&mut xml, "Double")?;
    end(&mut xml, "str:PrimaryMeasure")?;
    end(&mut xml, "str:MeasureList")?;

    end(&mut xml, "str:DataStructureComponents")?;
    end(&mut xml, "str:DataStructure")?;
    end(&mut xml, "str:DataStructures")?;

    end(&mut xml, "mes:Structures")?;
    end(&mut xml, "mes:Structure")?;
    finish_xml(xml)
}

fn write_data_xml<W: Write>(out: W, export: &IndicatorExport<'_>, prepared: &str) -> io::Result<W> {
    let metric = export.metric;
    let indicator = metric.id.as_str();
    let unit = unit_code(&metric.unit);
    let mut xml = Writer::new_with_indent(out, b' ', 2);
    xml.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    start(
        &mut xml,
        "mes:StructureSpecificData",
        &[
            ("xmlns:mes", NS_MESSAGE),
            ("xmlns:com", NS_COMMON),
            ("xmlns:ss", NS_STRUCTURE_SPECIFIC),
            ("xmlns:ns1", STRUCTURE_NAMESPACE),
            ("xmlns:xsi", NS_XSI),
        ],
    )?;
    header_start(&mut xml, &format!("{AGENCY}_{indicator}"), prepared)?;
    start(
        &mut xml,
        "mes:Structure",
        &[
            ("structureID", STRUCTURE_ID),
            ("namespace", STRUCTURE_NAMESPACE),
            ("dimensionAtObservation", "TIME_PERIOD"),
        ],
    )?;
    reference(
        &mut xml,
        "com:Structure",
        &[("agencyID", AGENCY), ("id", DSD_ID), ("version", VERSION)],
    )?;
    end(&mut xml, "mes:Structure")?;
    end(&mut xml, "mes:Header")?;

    start(
        &mut xml,
        "mes:DataSet",
        &[
            ("ss:structureRef", STRUCTURE_ID),
            ("ss:dataScope", "DataStructure"),
            ("xsi:type", "ns1:DataSetType"),
        ],
    )?;
    // One element buffer for every observation: its attributes are cleared and refilled, so the rows
    // cost no allocation.
    let mut obs = BytesStart::new("Obs");
    let mut year = NumberText::default();
    let mut value = NumberText::default();
    let mut error_text = NumberText::default();
    let mut series: Option<&str> = None;
    for row in &export.rows {
        if series != Some(row.country) {
            if series.is_some() {
                end(&mut xml, "Series")?;
            }
            start(
                &mut xml,
                "Series",
                &[
                    ("INDICATOR", indicator),
                    ("REF_AREA", row.country),
                    ("UNIT_MEASURE", unit.as_str()),
                ],
            )?;
            series = Some(row.country);
        }
        obs.clear_attributes();
        obs.push_attribute(("TIME_PERIOD", year.format(row.year)));
        obs.push_attribute(("OBS_VALUE", obs_value(&mut value, row.value)));
        obs.push_attribute(("OBS_STATUS", obs_status(row.flags)));
        if !row.citation_id.is_empty() {
            obs.push_attribute(("CITATION_ID", &*xml_text(row.citation_id)));
        }
        if let Some(standard_error) = row.standard_error {
            obs.push_attribute(("STANDARD_ERROR", obs_value(&mut error_text, standard_error)));
        }
        xml.write_event(Event::Empty(obs.borrow()))?;
    }
    if series.is_some() {
        end(&mut xml, "Series")?;
    }
    end(&mut xml, "mes:DataSet")?;
    end(&mut xml, "mes:StructureSpecificData")?;
    finish_xml(xml)
}

#[cfg(test)]
mod tests {
    use corpus::{Coverage, EntityKind, GoodDirection, ValidRange};
    use quick_xml::Reader;

    use super::super::indicators::IndicatorRow;
    use super::*;

    fn metric(id: &str, unit: &str) -> Metric {
        Metric {
            id: id.into(),
            source_code: id.to_ascii_uppercase().replace('_', "."),
            source_id: "wdi".into(),
            pillar: "social".into(),
            names: Names {
                en: format!("Indicator {id}"),
                es: Some(format!("Indicador {id}")),
                pt: None,
            },
            source_title: format!("Indicator {id}"),
            description: "A description with <markup> & \"quotes\".".into(),
            unit: unit.into(),
            good_direction: GoodDirection::Down,
            valid_range: ValidRange::default(),
            license: "CC-BY-4.0".into(),
            vintage: "2026-07".into(),
            retrieved_at: None,
            primary_source: None,
            methodology: None,
            topic: None,
            synonyms: Vec::new(),
            headline: false,
            attributes: Vec::new(),
            country_notes: BTreeMap::new(),
            coverage: Coverage::default(),
        }
    }

    fn country(iso3: &str, en: &str, es: &str, kind: EntityKind) -> Country {
        Country {
            iso3: iso3.into(),
            iso2: iso3[..2].into(),
            kind,
            names: Names {
                en: en.into(),
                es: Some(es.into()),
                pt: None,
            },
            aliases: Vec::new(),
            intermediate_region: None,
            income_group: None,
            sovereign: kind == EntityKind::Country,
            observations: 0,
        }
    }

    fn countries() -> Vec<Country> {
        vec![
            country("URY", "Uruguay", "Uruguay", EntityKind::Country),
            country("ARG", "Argentina", "Argentina", EntityKind::Country),
            country(
                "LCN",
                "Latin America & Caribbean",
                "América Latina y el Caribe",
                EntityKind::Aggregate,
            ),
        ]
    }

    fn row<'a>(
        country: &'a str,
        year: i32,
        value: f64,
        flags: &'a str,
        citation_id: &'a str,
    ) -> IndicatorRow<'a> {
        IndicatorRow {
            country,
            country_name: "",
            year,
            value,
            flags,
            citation_id,
            standard_error: None,
            url: String::new(),
        }
    }

    fn export(metric: &Metric) -> IndicatorExport<'_> {
        IndicatorExport {
            metric,
            source: None,
            rows: vec![
                row("ARG", 2022, 40.7, "", "wb-si-pov-gini-arg-2022"),
                row("ARG", 2023, 42.4, "", "wb-si-pov-gini-arg-2023"),
                row("URY", 2023, 40.6, "", "wb-si-pov-gini-ury-2023"),
                row(
                    "URY",
                    2030,
                    0.1 + 0.2,
                    "projection",
                    "wb-si-pov-gini-ury-2030",
                ),
            ],
        }
    }

    /// Parses `text` as XML (names matched, attributes well-formed and unique) and returns the
    /// elements' names in document order.
    fn parse(text: &str) -> Vec<String> {
        let mut reader = Reader::from_str(text);
        let mut elements = Vec::new();
        loop {
            match reader.read_event().expect("well-formed XML") {
                Event::Start(element) | Event::Empty(element) => {
                    for attribute in element.attributes() {
                        attribute.expect("well-formed attribute");
                    }
                    elements.push(String::from_utf8(element.name().as_ref().to_vec()).unwrap());
                }
                Event::Eof => break,
                _ => {}
            }
        }
        elements
    }

    const PREPARED: &str = "2025-07-01T00:00:00";

    /// Writes the three files of a small corpus into `dir`.
    fn write_all(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
        let gini = metric("si_pov_gini", "% of income (gini, 0-100)");
        let life = metric("sp_dyn_le00_in", "years");
        let structure = dir.join("structure.sdmx.xml");
        let data = dir.join("si_pov_gini.sdmx.xml");
        let csv = dir.join("si_pov_gini.sdmx.csv");
        write_structure(&structure, &[&life, &gini], &countries(), PREPARED).unwrap();
        let export = export(&gini);
        write_structure_specific(&data, &export, PREPARED).unwrap();
        write_sdmx_csv(&csv, &export, SdmxCsvVersion::V2).unwrap();
        (structure, data, csv)
    }

    #[test]
    fn estimates_are_e_projections_f_and_the_rest_a() {
        assert_eq!(obs_status(""), OBS_STATUS_NORMAL);
        assert_eq!(obs_status("modelled"), OBS_STATUS_IMPUTED);
        assert_eq!(obs_status("suspect_scale"), OBS_STATUS_LOW_RELIABILITY);
        assert_eq!(
            obs_status("modelled|suspect_scale"),
            OBS_STATUS_LOW_RELIABILITY
        );
        assert_eq!(obs_status("vintage_projection"), OBS_STATUS_NORMAL);
        assert_eq!(obs_status("estimate"), OBS_STATUS_ESTIMATED);
        assert_eq!(obs_status("projection"), OBS_STATUS_FORECAST);
        assert_eq!(
            obs_status("projection|vintage_projection"),
            OBS_STATUS_FORECAST
        );
    }

    #[test]
    fn unit_codes_are_valid_ids_and_depend_on_the_text_only() {
        assert_eq!(unit_code("% of GDP"), "PCT_OF_GDP");
        assert_eq!(unit_code("%"), "PCT");
        assert_eq!(unit_code("current US$"), "CURRENT_US$");
        assert_eq!(unit_code("index (0-100)"), "INDEX_0-100");
        assert_eq!(unit_code("per 100,000 people"), "PER_100_000_PEOPLE");
        assert_eq!(unit_code("  kWh per capita "), "KWH_PER_CAPITA");
        assert_eq!(unit_code(""), "NONE");
        assert_eq!(unit_code("²"), "NONE");
        for unit in [
            "% of GDP",
            "MJ/$2021 PPP GDP",
            "ratio (female/male)",
            "µg/m³",
            "—",
        ] {
            assert!(is_sdmx_id(&unit_code(unit)), "{unit}");
        }
    }

    #[test]
    fn writes_the_structure_and_the_data_files() {
        let dir = tempfile::tempdir().unwrap();
        let (structure_path, data_path, csv_path) = write_all(dir.path());

        let structure = std::fs::read_to_string(&structure_path).unwrap();
        let elements = parse(&structure);
        assert_eq!(elements[0], "mes:Structure");
        for element in [
            "str:Dataflow",
            "str:Codelist",
            "str:ConceptScheme",
            "str:DataStructure",
            "str:TimeDimension",
            "str:PrimaryMeasure",
        ] {
            assert!(elements.iter().any(|name| name == element), "{element}");
        }
        for needle in [
            r#"<str:Codelist id="CL_AREA" agencyID="LAC_CORPUS" version="1.0" isFinal="true">"#,
            r#"<str:Code id="ARG">"#,
            r#"<str:Code id="LCN">"#,
            r#"<com:Name xml:lang="es">América Latina y el Caribe</com:Name>"#,
            r#"<str:Code id="si_pov_gini">"#,
            r#"<str:Code id="PCT_OF_INCOME_GINI_0-100">"#,
            r#"<com:Name xml:lang="en">% of income (gini, 0-100)</com:Name>"#,
            "A description with &lt;markup&gt; &amp; &quot;quotes&quot;.",
            r#"<mes:Prepared>2025-07-01T00:00:00</mes:Prepared>"#,
        ] {
            assert!(structure.contains(needle), "{needle}");
        }
        assert!(
            structure.find(r#"<str:Code id="ARG">"#) < structure.find(r#"<str:Code id="LCN">"#)
        );
        assert!(
            structure.find(r#"<str:Code id="LCN">"#) < structure.find(r#"<str:Code id="URY">"#)
        );

        let data = std::fs::read_to_string(&data_path).unwrap();
        let elements = parse(&data);
        assert_eq!(elements[0], "mes:StructureSpecificData");
        assert_eq!(elements.iter().filter(|name| *name == "Series").count(), 2);
        assert_eq!(elements.iter().filter(|name| *name == "Obs").count(), 4);
        assert!(data.contains(r#"dimensionAtObservation="TIME_PERIOD""#));
        assert!(data.contains(&format!(r#"namespace="{STRUCTURE_NAMESPACE}""#)));
        assert!(data.contains(r#"<Series INDICATOR="si_pov_gini" REF_AREA="URY" UNIT_MEASURE="PCT_OF_INCOME_GINI_0-100">"#));
        assert!(data.contains(r#"<Obs TIME_PERIOD="2030" OBS_VALUE="0.30000000000000004" OBS_STATUS="F" CITATION_ID="wb-si-pov-gini-ury-2030"/>"#));
        assert!(data.contains(r#"<Obs TIME_PERIOD="2022" OBS_VALUE="40.7" OBS_STATUS="A""#));

        let csv = std::fs::read_to_string(&csv_path).unwrap();
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines[0], SDMX_CSV_HEADER.join(","));
        assert_eq!(
            lines[1],
            "dataflow,LAC_CORPUS:DF_LAC(1.0),I,si_pov_gini,ARG,2022,40.7,PCT_OF_INCOME_GINI_0-100,A,wb-si-pov-gini-arg-2022"
        );
        assert_eq!(
            lines[4],
            "dataflow,LAC_CORPUS:DF_LAC(1.0),I,si_pov_gini,URY,2030,0.30000000000000004,PCT_OF_INCOME_GINI_0-100,F,wb-si-pov-gini-ury-2030"
        );
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[5], "");
    }

    #[test]
    fn the_structure_is_byte_identical_whatever_the_input_order() {
        let dir = tempfile::tempdir().unwrap();
        let gini = metric("si_pov_gini", "%");
        let life = metric("sp_dyn_le00_in", "years");
        let mut reversed = countries();
        reversed.reverse();
        let first = dir.path().join("first.xml");
        let second = dir.path().join("second.xml");
        write_structure(&first, &[&gini, &life, &gini], &countries(), PREPARED).unwrap();
        write_structure(&second, &[&life, &gini], &reversed, PREPARED).unwrap();
        assert_eq!(
            std::fs::read(&first).unwrap(),
            std::fs::read(&second).unwrap()
        );
    }

    #[test]
    fn rejects_invalid_ids_and_unit_collisions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("structure.xml");
        let percent = metric("a", "% of GDP");
        let also_percent = metric("b", "%, of GDP");
        let error =
            write_structure(&path, &[&percent, &also_percent], &countries(), PREPARED).unwrap_err();
        assert!(error.to_string().contains("PCT_OF_GDP"), "{error}");
        let dotted = metric("si.pov.gini", "%");
        let error = write_structure(&path, &[&dotted], &countries(), PREPARED).unwrap_err();
        assert!(error.to_string().contains("si.pov.gini"), "{error}");
        let export = IndicatorExport {
            metric: &percent,
            source: None,
            rows: vec![row("A B", 2020, 1.0, "", "c")],
        };
        assert!(write_sdmx_csv(&dir.path().join("x.csv"), &export, SdmxCsvVersion::V1).is_err());
        assert!(write_structure_specific(&dir.path().join("x.xml"), &export, PREPARED).is_err());
    }

    #[test]
    fn an_export_without_rows_gives_an_empty_data_set() {
        let dir = tempfile::tempdir().unwrap();
        let gini = metric("si_pov_gini", "%");
        let export = IndicatorExport {
            metric: &gini,
            source: None,
            rows: Vec::new(),
        };
        let path = dir.path().join("empty.xml");
        write_structure_specific(&path, &export, PREPARED).unwrap();
        let elements = parse(&std::fs::read_to_string(&path).unwrap());
        assert!(elements.iter().any(|name| name == "mes:DataSet"));
        assert!(!elements.iter().any(|name| name == "Series"));
    }
}
