//! The catalog page (served at `GET /`): server-rendered HTML (minijinja template `server/templates/catalog.html`,
//! auto-escaped), no JavaScript. It lists the pillars and their indicators (names in the chosen language,
//! each linking to its chart page `/chart/{id}` ([`super::chart`]), coverage, latest year, licence, every
//! download link), the datasets and the sources.
//!
//! Query parameters: `lang` (`es` default, `en`, `pt`) and `q`, a search over indicator names (every
//! language), ids, source codes and descriptions, accent- and case-insensitive, at most [`MAX_QUERY_CHARS`]
//! characters (longer queries are cut before any work).

use std::{collections::HashMap, sync::LazyLock};

use corpus::{
    Lang, Metric,
    exports::{Format, Subject},
    folding::fold,
};
use minijinja::Environment;
use serde::Serialize;

use crate::{links, load::Corpus, load::downloads::DownloadFile};

/// The longest search query read, in characters.
pub const MAX_QUERY_CHARS: usize = 100;

static TEMPLATES: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut environment = Environment::new();
    environment
        .add_template("catalog.html", include_str!("../../templates/catalog.html"))
        .expect("the catalog template parses");
    environment
});

#[derive(Serialize)]
struct FileView {
    label: &'static str,
    url: String,
    media_type: &'static str,
    title: String,
}

#[derive(Serialize)]
struct IndicatorView<'a> {
    id: &'a str,
    name: &'a str,
    source_code: &'a str,
    unit: &'a str,
    countries: u32,
    first_year: Option<i32>,
    last_year: Option<i32>,
    license: &'a str,
    files: Vec<FileView>,
}

#[derive(Serialize)]
struct DatasetView<'a> {
    id: &'a str,
    title: &'a str,
    rows: u64,
    license: &'a str,
    files: Vec<FileView>,
}

#[derive(Serialize)]
struct LanguageView {
    code: &'static str,
    name: &'static str,
}

/// Everything the template reads.
#[derive(Serialize)]
struct PageView<'a> {
    lang: &'static str,
    text: HashMap<&'static str, &'static str>,
    languages: [LanguageView; 3],
    corpus_version: &'a str,
    published: Option<String>,
    catalog_url: String,
    mcp_url: String,
    query: &'a str,
    max_query: usize,
    matches: usize,
    pillars: Vec<PillarView<'a>>,
    datasets: Vec<DatasetView<'a>>,
    singles: Vec<FileView>,
    sources: &'a [corpus::SourceRecord],
    /// `/api/v1/citations/{id}?format=apa` of the first listed indicator's latest stored value: where any
    /// value's citation id resolves over HTTP.
    citation_example: Option<String>,
    /// The corpus as a schema.org `Dataset` ([`corpus_json_ld`]), JSON text with `<` escaped, for the
    /// unfiltered page.
    json_ld: Option<String>,
}

/// The schema.org `Dataset` description (JSON-LD) of the whole corpus, as the catalog page in `lang`
/// carries it for dataset search engines: name and description in `lang`, the page's URL, every licence
/// (URLs), the publishers as creators (`Organization`), temporal coverage (first/last year of any
/// indicator), spatial coverage (Latin America and the Caribbean), every indicator as a variable measured
/// (`PropertyValue`: name in `lang`, publisher code, unit), and one `DataDownload` per dataset file,
/// the registry, the SDMX structure and the Data Package and Croissant descriptions.
pub fn corpus_json_ld(corpus: &Corpus, lang: Lang) -> serde_json::Value {
    use serde_json::json;
    let baked = &corpus.baked;
    let exported: Vec<&Metric> = baked
        .metrics()
        .iter()
        .filter(|metric| {
            corpus
                .downloads()
                .of(Subject::Indicator, &metric.id)
                .next()
                .is_some()
        })
        .collect();
    let mut licences: Vec<String> = exported
        .iter()
        .map(|metric| super::chart::license_url(corpus, metric))
        .collect();
    licences.sort();
    licences.dedup();
    // One creator per publisher, with the homepage of its current release (an older vintage's page last).
    let mut creators: Vec<(&str, bool, &str)> = exported
        .iter()
        .filter_map(|metric| baked.source(&metric.source_id))
        .map(|source| {
            (
                source.publisher.as_str(),
                source.superseded_by.is_some(),
                source.homepage.as_str(),
            )
        })
        .collect();
    creators.sort();
    creators.dedup_by(|left, right| left.0 == right.0);
    let first = exported
        .iter()
        .filter_map(|metric| metric.coverage.first_year)
        .min();
    let last = exported
        .iter()
        .filter_map(|metric| metric.coverage.last_year)
        .max();
    let distribution: Vec<serde_json::Value> = corpus
        .downloads()
        .files()
        .iter()
        .filter(|file| file.download.subject != Subject::Indicator)
        .map(|file| {
            json!({
                "@type": "DataDownload",
                "name": file.download.file_name(),
                "description": file.download.title,
                "encodingFormat": file.download.format.media_type(),
                "contentUrl": links::download_url(&file.download),
                "contentSize": format!("{} B", file.bytes),
            })
        })
        .collect();
    let text = texts(lang);
    let mut dataset = json!({
        "@context": "https://schema.org",
        "@type": "Dataset",
        "name": text["title"],
        "description": text["footer"],
        "url": super::chart::server_url(&super::chart::catalog_page_path(lang)),
        "inLanguage": lang.as_str(),
        "license": licences,
        "isAccessibleForFree": true,
        "version": baked.manifest().corpus_version,
        "creator": creators.iter().map(|(name, _, url)| json!({"@type": "Organization", "name": name, "url": url})).collect::<Vec<_>>(),
        "spatialCoverage": {"@type": "Place", "name": super::chart::region_name(lang)},
        "variableMeasured": exported.iter().map(|metric| json!({
            "@type": "PropertyValue",
            "name": metric.names.get(lang),
            "propertyID": metric.source_code,
            "unitText": metric.unit,
        })).collect::<Vec<_>>(),
        "distribution": distribution,
    });
    if let (Some(first), Some(last)) = (first, last) {
        dataset["temporalCoverage"] = json!(format!("{first}/{last}"));
    }
    dataset
}

#[derive(Serialize)]
struct PillarView<'a> {
    id: &'a str,
    name: &'a str,
    indicators: Vec<IndicatorView<'a>>,
}

fn label(format: Format) -> &'static str {
    match format {
        Format::Csv => "CSV",
        Format::WideCsv => "CSV (wide)",
        Format::CsvGz => "CSV.gz",
        Format::Xlsx => "XLSX",
        Format::Parquet => "Parquet",
        Format::SdmxMl => "SDMX-ML",
        Format::SdmxCsv => "SDMX-CSV 2.0",
        Format::SdmxCsv1 => "SDMX-CSV 1.0",
        Format::Zip => "ZIP (CSV + metadata + README)",
        Format::DataPackage => "Data Package",
        Format::Json => "JSON",
    }
}

fn file_view(file: &DownloadFile) -> FileView {
    FileView {
        label: label(file.download.format),
        url: links::download_url(&file.download),
        media_type: file.download.format.media_type(),
        title: file.download.title.clone(),
    }
}

/// Whether `metric` matches the folded query words (every word somewhere in its text).
fn matches(metric: &Metric, words: &[String]) -> bool {
    if words.is_empty() {
        return true;
    }
    let names = &metric.names;
    let text = fold(&format!(
        "{} {} {} {} {} {} {}",
        metric.id,
        metric.source_code,
        names.en,
        names.es.as_deref().unwrap_or(""),
        names.pt.as_deref().unwrap_or(""),
        metric.description,
        metric.synonyms.join(" ")
    ));
    words.iter().all(|word| text.contains(word.as_str()))
}

/// The page for `lang` and the search `query` (empty: everything).
///
/// # Errors
/// The template engine's error, if rendering fails.
pub fn render(corpus: &Corpus, lang: Lang, query: &str) -> Result<String, minijinja::Error> {
    let baked = &corpus.baked;
    // Words are runs of letters and digits; a query without any (`---`) matches nothing.
    let words: Vec<String> = fold(query)
        .split(|character: char| !character.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_string)
        .collect();
    let searchable = query.is_empty() || !words.is_empty();
    let mut matched = 0;
    let pillars: Vec<PillarView<'_>> = baked
        .pillars()
        .pillars()
        .iter()
        .map(|pillar| PillarView {
            id: &pillar.id,
            name: pillar.names.get(lang),
            indicators: baked
                .metrics()
                .iter()
                .filter(|metric| {
                    searchable && metric.pillar == pillar.id && matches(metric, &words)
                })
                .filter_map(|metric| {
                    let files: Vec<FileView> = corpus
                        .downloads()
                        .of(Subject::Indicator, &metric.id)
                        .map(file_view)
                        .collect();
                    (!files.is_empty()).then(|| IndicatorView {
                        id: &metric.id,
                        name: metric.names.get(lang),
                        source_code: &metric.source_code,
                        unit: &metric.unit,
                        countries: metric.coverage.countries,
                        first_year: metric.coverage.first_year,
                        last_year: metric.coverage.last_year,
                        license: &metric.license,
                        files,
                    })
                })
                .inspect(|_| matched += 1)
                .collect(),
        })
        .filter(|pillar| !pillar.indicators.is_empty())
        .collect();
    let datasets: Vec<_> = corpus
        .datasets
        .iter()
        .filter_map(|dataset| {
            let files: Vec<FileView> = corpus
                .downloads()
                .of(Subject::Dataset, &dataset.dataset_id)
                .map(file_view)
                .collect();
            (!files.is_empty()).then(|| DatasetView {
                id: &dataset.dataset_id,
                title: &dataset.title,
                rows: dataset.rows,
                license: &dataset.license,
                files,
            })
        })
        .collect();
    let singles: Vec<FileView> = corpus
        .downloads()
        .files()
        .iter()
        .filter(|file| {
            matches!(
                file.download.subject,
                Subject::Registry | Subject::Structure | Subject::Changes | Subject::Metadata
            )
        })
        .map(file_view)
        .collect();
    let published = corpus.downloads().published.map(|published| {
        let (year, month, day) = corpus::dates::civil_from_time(published);
        corpus::dates::long_date(year, month, day, lang)
    });
    let citation_example = pillars
        .iter()
        .flat_map(|pillar| &pillar.indicators)
        .find_map(|indicator| {
            let rows = baked.observations().indicator_rows(indicator.id);
            (!rows.is_empty()).then(|| baked.observations().row(rows.end - 1).citation_id)
        })
        .map(|id| links::api_url(&format!("citations/{id}?format=apa")));
    let page = PageView {
        lang: lang.as_str(),
        text: texts(lang),
        languages: [("es", "Español"), ("en", "English"), ("pt", "Português")]
            .map(|(code, name)| LanguageView { code, name }),
        corpus_version: &baked.manifest().corpus_version,
        published,
        catalog_url: links::catalog_url(),
        mcp_url: format!("{}/api/mcp", links::public_url()),
        query,
        max_query: MAX_QUERY_CHARS,
        matches: matched,
        pillars,
        datasets,
        singles,
        sources: baked.sources(),
        citation_example,
        json_ld: query.is_empty().then(|| {
            corpus_json_ld(corpus, lang)
                .to_string()
                .replace('<', "\\u003c")
        }),
    };
    TEMPLATES
        .get_template("catalog.html")?
        .render(minijinja::value::Serde(&page))
}

/// The page's words in `lang`.
fn texts(lang: Lang) -> HashMap<&'static str, &'static str> {
    let rows: [(&str, [&str; 3]); 28] = [
        (
            "chart",
            [
                "Gráfico y tabla de la serie, con sus citas",
                "Chart and table of the series, with their citations",
                "Gráfico e tabela da série, com suas citações",
            ],
        ),
        (
            "title",
            [
                "Corpus de datos gobernados de América Latina y el Caribe",
                "Latin America and the Caribbean governed-data corpus",
                "Corpus de dados governados da América Latina e do Caribe",
            ],
        ),
        (
            "version",
            ["Versión del corpus", "Corpus version", "Versão do corpus"],
        ),
        ("published", ["publicado", "published", "publicado"]),
        (
            "catalog_json",
            ["catálogo JSON", "JSON catalog", "catálogo JSON"],
        ),
        (
            "search",
            [
                "Buscar indicadores",
                "Search indicators",
                "Buscar indicadores",
            ],
        ),
        ("search_button", ["Buscar", "Search", "Buscar"]),
        (
            "matches",
            ["indicadores para", "indicators for", "indicadores para"],
        ),
        (
            "match",
            ["indicador para", "indicator for", "indicador para"],
        ),
        ("clear", ["ver todo", "show all", "ver tudo"]),
        ("indicator", ["Indicador", "Indicator", "Indicador"]),
        ("code", ["Código", "Code", "Código"]),
        ("unit", ["Unidad", "Unit", "Unidade"]),
        ("coverage", ["Cobertura", "Coverage", "Cobertura"]),
        ("countries", ["países", "countries", "países"]),
        ("latest", ["Último año", "Latest year", "Último ano"]),
        ("licence", ["Licencia", "Licence", "Licença"]),
        ("files", ["Descargas", "Downloads", "Downloads"]),
        (
            "datasets",
            [
                "Conjuntos de datos y registros",
                "Datasets and registries",
                "Conjuntos de dados e registros",
            ],
        ),
        ("dataset", ["Conjunto", "Dataset", "Conjunto"]),
        ("rows", ["Filas", "Rows", "Linhas"]),
        ("sources", ["Fuentes", "Sources", "Fontes"]),
        ("source", ["Fuente", "Source", "Fonte"]),
        ("publisher", ["Editor", "Publisher", "Editor"]),
        ("vintage", ["Edición", "Vintage", "Edição"]),
        ("retrieved", ["Descargado", "Retrieved", "Obtido"]),
        (
            "cite",
            [
                "Cualquier citation_id se resuelve en /api/v1/citations/{id}, lista para pegar con ?format=bibtex, apa, chicago, csl-json o text; por ejemplo",
                "Any citation_id resolves at /api/v1/citations/{id}, ready to paste with ?format=bibtex, apa, chicago, csl-json or text; for example",
                "Qualquer citation_id se resolve em /api/v1/citations/{id}, pronta para colar com ?format=bibtex, apa, chicago, csl-json ou text; por exemplo",
            ],
        ),
        (
            "footer",
            [
                "Cada valor lleva su citation_id; solo se publican series redistribuibles. Los mismos archivos son recursos MCP (corpus://…).",
                "Every value carries its citation_id; only redistributable series are published. The same files are MCP resources (corpus://…).",
                "Cada valor traz seu citation_id; só séries redistribuíveis são publicadas. Os mesmos arquivos são recursos MCP (corpus://…).",
            ],
        ),
    ];
    let column = match lang {
        Lang::Es => 0,
        Lang::En => 1,
        Lang::Pt => 2,
    };
    rows.iter()
        .map(|(key, words)| (*key, words[column]))
        .collect()
}
