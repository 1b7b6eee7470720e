//! The domain plugin: the corpus tools, one file each (`compute` a folder, one file per op), and the one
//! ordered table of them.
//!
//! A tool is a plain function from the corpus and a typed input to a typed answer
//! ([`ToolAnswer`]); it knows nothing of JSON-RPC or HTTP. [`ToolSpec::new`] derives the input and
//! output schemas from the types (schemars), so the schemas are never kept by hand.
//!
//! **The plugin interface.** The transport core ([`crate::transport`]) lists and calls tools only through
//! [`Plugin`] (the tool table, the instructions, argument preparation, running a tool), [`ToolSpec`] (a
//! tool's listed contract: name, title, description, input schema with `lang`, output schema, whether it
//! charts or is app-only, its argument caps), [`PreparedArguments`], [`ToolOutput`] and [`ToolError`];
//! it names no other item of this module (a test in `transport/mod.rs` holds it).

pub mod answer;
pub mod arguments;
pub mod cancel;
pub mod compare_countries;
pub mod compute;
pub mod display;
pub mod fetch;
pub mod find_pilots;
pub mod get_chart_data;
pub mod get_data_health;
pub mod get_dataset;
pub mod get_discoveries;
pub mod get_news;
pub mod get_parameter_data;
pub mod get_pilot;
pub mod get_regional_pulse;
pub mod get_series;
mod instructions;
pub mod limits;
pub mod paging;
pub mod projects;
pub mod prompts;
pub mod recommend_action;
pub mod resolve_citations;
pub mod resolve_metric;
pub mod rounding;
pub mod schema;
pub mod search;
pub mod search_corpus;
pub mod verify_claims;

use std::sync::Arc;

use corpus::Lang;
use schemars::JsonSchema;
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Map, Value};

pub use answer::{CitationRecord, Citations, ToolAnswer};
pub use display::{Display, SourceLink};

use crate::load::Corpus;

/// What went wrong in a tool call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The caller can fix it (unknown indicator, country not in the corpus, bad argument): an `isError`
    /// result whose message says what was wrong and what would be valid.
    #[error("{0}")]
    Invalid(String),
    /// A fault of ours: a `-32603` protocol error; the detail goes to the log only.
    #[error("internal error: {0}")]
    Internal(String),
    /// The transport stopped waiting for the call (its deadline passed) and the tool stopped at a
    /// [`cancel::checkpoint`]; nobody reads this answer.
    #[error("cancelled: the call's deadline passed")]
    Cancelled,
}

/// A successful call, serialized: `result` and `citations` (the text block) and `display` (only in
/// `structuredContent`, for a gateway to render without passing it through the model).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// `{"result": …, "citations": […]}`, serialized JSON object.
    pub payload: String,
    /// The display object, serialized, if the tool has one.
    pub display: Option<String>,
    /// A short message for the person (what the display shows and where it comes from), in the
    /// request's language, if the tool has a display.
    pub user_message: Option<String>,
    /// `resource_link` content items (serialized JSON objects): the chart page of the answer, when it
    /// charts and links point at an HTTP server, then the indicators the answer cites.
    pub resource_links: Vec<String>,
    /// Whether the display holds a chart ([`ToolOutput::link_chart`] then links its page).
    pub charted: bool,
    /// Where in `user_message` the sentence naming the chart page starts, once linked (the chart view,
    /// which is that chart, shows the message without it).
    pub chart_sentence_at: Option<usize>,
}

impl ToolOutput {
    /// The key of the result's `_meta` under which [`ToolOutput::display`] travels
    /// ([`answer::DISPLAY_META_KEY`]): hosts keep it out of the model's context.
    pub const DISPLAY_META_KEY: &'static str = answer::DISPLAY_META_KEY;

    /// The person's message without the sentence naming the chart page (what the chart view shows).
    pub fn message_without_chart_link(&self) -> Option<String> {
        self.user_message
            .as_deref()
            .map(|message| message[..self.chart_sentence_at.unwrap_or(message.len())].to_string())
    }

    /// The output of a caller's mistake ([`ToolError::Invalid`], answered as an `isError` result): the
    /// payload `{"result": {"error": message}, "citations": {…}}` with empty citation records, no display,
    /// no message for the person, no links.
    pub fn refusal(message: &str) -> ToolOutput {
        let payload = serde_json::json!({"result": {"error": message}, "citations": {"sources": {}, "indicators": {}, "series": {}}});
        ToolOutput {
            payload: payload.to_string(),
            display: None,
            user_message: None,
            resource_links: Vec::new(),
            charted: false,
            chart_sentence_at: None,
        }
    }

    /// Links the chart page that draws exactly this answer's chart (see [`crate::links::answer_chart_path`])
    /// when the display holds one: a sentence of the person's message names it ("Ábralos en {url}."; over
    /// stdio without `MCP_PUBLIC_URL`, the path `just serve` serves it at), and a `resource_link` to it
    /// comes first among the links when there is an HTTP URL. `arguments` are the tool's, as it ran.
    pub fn link_chart(&mut self, corpus: &Corpus, tool: &str, arguments: &Value, lang: Lang) {
        if !self.charted {
            return;
        }
        let version = &corpus.baked.manifest().corpus_version;
        let path = crate::links::answer_chart_path(version, tool, arguments, lang);
        let page_url = crate::links::page_url(&path);
        let sentence = match (&page_url, lang) {
            (Some(url), Lang::Es) => format!("Ábralos en {url}"),
            (Some(url), Lang::En) => format!("Open them at {url}"),
            (Some(url), Lang::Pt) => format!("Abra-os em {url}"),
            (None, Lang::Es) => format!("`just serve` los sirve en {path}"),
            (None, Lang::En) => format!("`just serve` serves them at {path}"),
            (None, Lang::Pt) => format!("`just serve` os serve em {path}"),
        };
        if let Some(message) = &mut self.user_message {
            self.chart_sentence_at = Some(message.len());
            message.push(' ');
            message.push_str(&sentence);
            message.push('.');
        }
        if let Some(url) = page_url {
            let title = match lang {
                Lang::Es => "Gráfico y tabla de esta respuesta",
                Lang::En => "This answer's chart and table",
                Lang::Pt => "Gráfico e tabela desta resposta",
            };
            let link = crate::links::ResourceLink {
                meta: crate::links::UrlMeta { url: &url },
                description: "the chart page of this answer: the same chart and table as the MCP App, each number's citation and source link",
                mime_type: "text/html",
                name: "chart.html",
                size: None,
                title,
                kind: crate::links::ResourceLinkType,
                uri: &url,
            };
            self.resource_links.insert(0, link.to_json());
        }
    }
}

/// One call's arguments as its tool takes them ([`Plugin::prepare_arguments`]): `lang` taken out of
/// them (default `es`), countries and pillars normalised, and what the normaliser read.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedArguments {
    arguments: Value,
    lang: Lang,
    /// Each place named otherwise than by its code, as given → the ISO3 it was read as (`Brasil` → `BRA`).
    read: std::collections::BTreeMap<String, String>,
}

impl PreparedArguments {
    /// The key equal calls of `tool` share: `{tool}\0{lang}\0{arguments as JSON}` (serde_json maps are
    /// ordered by key, so equal arguments give equal keys), then `\0{read}` when a place was named
    /// otherwise than by its code (the answer says how it was read).
    pub fn cache_key(&self, tool: &str) -> String {
        if self.read.is_empty() {
            format!("{tool}\0{:?}\0{}", self.lang, self.arguments)
        } else {
            format!(
                "{tool}\0{:?}\0{}\0{:?}",
                self.lang, self.arguments, self.read
            )
        }
    }
}

type Handler = dyn Fn(&Corpus, Value, Lang) -> Result<ToolOutput, ToolError> + Send + Sync;

/// One tool: its public contract and its handler.
#[derive(Clone)]
pub struct ToolSpec {
    /// Name, matching `^[A-Za-z0-9_./-]{1,64}$`.
    pub name: &'static str,
    /// Human title.
    pub title: &'static str,
    /// What the tool answers and when to call it.
    pub description: &'static str,
    /// Dataset ids of `datasets.json` the tool reads; checked at start-up.
    pub datasets: &'static [&'static str],
    /// JSON Schema of the arguments, as `tools/list` publishes it: the input type's, with the caps of
    /// [`limits`] and the optional `lang` argument every tool takes (`es`, `en`, `pt`; default `es`).
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`.
    pub output_schema: Value,
    /// Whether only an MCP App may call the tool (`_meta.ui.visibility: ["app"]`): it is listed only to
    /// clients that negotiated the extension, and hosts keep it from the model
    /// ([`crate::transport::apps`]).
    pub app_only: bool,
    /// Whether the tool's answers chart: a client with the MCP Apps extension sees the chart view on its
    /// listing, and [`get_chart_data`] serves its chart data (set by [`model_tools`] from
    /// [`get_chart_data::CHARTING_TOOLS`]).
    pub charts: bool,
    /// The default `limit` of a paged tool ([`ToolSpec::paged`]), whose default answer is held to
    /// [`DEFAULT_ANSWER_BYTES`].
    pub default_page: Option<usize>,
    caps: Arc<limits::ArgumentCaps>,
    handler: Arc<Handler>,
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ToolSpec")
            .field("name", &self.name)
            .field("datasets", &self.datasets)
            .finish_non_exhaustive()
    }
}

impl ToolSpec {
    /// A tool from a typed handler: arguments are held to the caps of `I`'s schema first
    /// ([`limits`]), then deserialized into `I` (a failure is an [`ToolError::Invalid`] naming the
    /// argument), the answer serialized from [`ToolAnswer<O>`].
    pub fn new<I, O>(
        name: &'static str,
        title: &'static str,
        description: &'static str,
        datasets: &'static [&'static str],
        handler: fn(&Corpus, I, Lang) -> Result<ToolAnswer<'_, O>, ToolError>,
    ) -> ToolSpec
    where
        I: DeserializeOwned + JsonSchema + 'static,
        O: Serialize + JsonSchema + 'static,
    {
        ToolSpec::serialized::<I, O>(
            name,
            title,
            description,
            datasets,
            move |corpus, input, lang| handler(corpus, input, lang)?.into_output(corpus, lang),
        )
    }

    /// As [`ToolSpec::new`], for a handler that serializes its own [`ToolOutput`] (whose payload's
    /// `result` is an `O`) and may hold state, such as other tools' specs ([`get_chart_data`]).
    pub fn serialized<I, O>(
        name: &'static str,
        title: &'static str,
        description: &'static str,
        datasets: &'static [&'static str],
        handler: impl Fn(&Corpus, I, Lang) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    ) -> ToolSpec
    where
        I: DeserializeOwned + JsonSchema + 'static,
        O: Serialize + JsonSchema + 'static,
    {
        let mut input_schema = schema_value::<I>();
        schema::tidy(&mut input_schema, schema::Side::Input);
        // An array of objects (`verify_claims`' claims) is published with its items' fields in place.
        schema::inline_refs(&mut input_schema);
        let caps = Arc::new(limits::ArgumentCaps::declared_in(&input_schema));
        let valid_arguments = describe_arguments(&input_schema);
        add_lang_argument(&mut input_schema);
        // Published compact: the caps were read above; an enum states its values in place of them.
        schema::inline_input(&mut input_schema);
        // The caps are checked once, by the caller, before any work ([`ToolSpec::check_arguments`]).
        let typed = move |corpus: &Corpus, arguments: Value, lang: Lang| {
            let input: I = serde_path_to_error::deserialize(arguments).map_err(|error| {
                let path = error.path().to_string();
                let at = if path == "." {
                    String::new()
                } else {
                    format!("argument `{path}`: ")
                };
                ToolError::Invalid(format!(
                    "invalid arguments for {name}: {at}{}; valid arguments: {valid_arguments}",
                    error.inner()
                ))
            })?;
            handler(corpus, input, lang)
        };
        ToolSpec {
            name,
            title,
            description,
            datasets,
            input_schema,
            output_schema: output_schema::<O>(),
            app_only: false,
            charts: false,
            default_page: None,
            caps,
            handler: Arc::new(typed),
        }
    }

    /// A tool whose `structuredContent` (and one text block) is its answer itself, in a shape a host
    /// prescribes (ChatGPT's `search` and `fetch`): no `result`/`citations` envelope, no display, no
    /// message for the person, no links. Its numbers carry their citation ids in its own text. A refusal
    /// is the usual `{"result": {"error"}}`, which its `outputSchema` also admits.
    pub fn document<I, O>(
        name: &'static str,
        title: &'static str,
        description: &'static str,
        datasets: &'static [&'static str],
        handler: fn(&Corpus, I, Lang) -> Result<O, ToolError>,
    ) -> ToolSpec
    where
        I: DeserializeOwned + JsonSchema + 'static,
        O: Serialize + JsonSchema + 'static,
    {
        let mut spec = ToolSpec::serialized::<I, O>(
            name,
            title,
            description,
            datasets,
            move |corpus, input, lang| {
                let answer = handler(corpus, input, lang)?;
                Ok(ToolOutput {
                    payload: serde_json::to_string(&answer)
                        .map_err(|error| ToolError::Internal(error.to_string()))?,
                    display: None,
                    user_message: None,
                    resource_links: Vec::new(),
                    charted: false,
                    chart_sentence_at: None,
                })
            },
        );
        spec.output_schema = document_schema::<O>();
        spec
    }

    /// The same tool, callable by an MCP App only ([`ToolSpec::app_only`]).
    pub fn for_apps_only(mut self) -> ToolSpec {
        self.app_only = true;
        self
    }

    /// Holds raw arguments (before [`Plugin::prepare_arguments`]) to the caps of the tool's input
    /// schema: lengths, characters and array sizes (see [`limits`]). Every caller runs it once, before
    /// any work; the handler does not check them again.
    ///
    /// # Errors
    /// [`ToolError::Invalid`] naming the first argument past its cap, its length and the cap.
    pub fn check_arguments(&self, arguments: &Map<String, Value>) -> Result<(), ToolError> {
        self.caps.check(self.name, arguments)
    }

    /// Runs the handler on arguments already held to the caps ([`ToolSpec::check_arguments`]) and
    /// normalised ([`normalize_arguments`]), `lang` taken out. A paged tool called without `limit`
    /// ([`ToolSpec::paged`]) answers within [`DEFAULT_ANSWER_BYTES`]: when its default page is larger,
    /// the page is taken again with a `limit` scaled to the budget (at least one item), so its
    /// `next_cursor` or `next_offset` gives what the page leaves; a caller that passes `limit` gets that
    /// many, up to the 40 KB cap. A charting tool's answer links its chart page ([`ToolOutput::link_chart`])
    /// with the arguments it ran with.
    pub fn call(
        &self,
        corpus: &Corpus,
        arguments: Value,
        lang: Lang,
    ) -> Result<ToolOutput, ToolError> {
        let (mut output, arguments) = self.fitted_call(corpus, arguments, lang)?;
        if self.charts {
            output.link_chart(corpus, self.name, &arguments, lang);
        }
        Ok(output)
    }

    /// The handler's output and the arguments it ran with: `arguments` themselves, or, for a paged tool
    /// called without `limit`, with the `limit` that fits [`DEFAULT_ANSWER_BYTES`].
    fn fitted_call(
        &self,
        corpus: &Corpus,
        arguments: Value,
        lang: Lang,
    ) -> Result<(ToolOutput, Value), ToolError> {
        let Some(mut limit) = self
            .default_page
            .filter(|_| arguments.get("limit").is_none_or(Value::is_null))
        else {
            let output = (self.handler)(corpus, arguments.clone(), lang)?;
            return Ok((output, arguments));
        };
        let mut output = (self.handler)(corpus, arguments.clone(), lang)?;
        let mut used = arguments.clone();
        // Each step scales the limit to the budget and takes at least a quarter off it (the default may
        // exceed the items there are), so a page fits in a few steps.
        while output.payload.len() > DEFAULT_ANSWER_BYTES && limit > 1 {
            cancel::checkpoint()?;
            let scaled = limit * DEFAULT_ANSWER_BYTES / output.payload.len();
            limit = scaled.min(limit * 3 / 4).clamp(1, limit - 1);
            used = arguments.clone();
            if let Some(object) = used.as_object_mut() {
                object.insert("limit".into(), Value::from(limit));
            }
            output = (self.handler)(corpus, used.clone(), lang)?;
        }
        Ok((output, used))
    }

    /// This tool pages its answer with a `limit` argument whose default is `default` items: called
    /// without `limit`, it answers within [`DEFAULT_ANSWER_BYTES`] (see [`ToolSpec::call`]).
    pub fn paged(mut self, default: usize) -> ToolSpec {
        self.default_page = Some(default);
        self
    }
}

/// The most bytes of `structuredContent` (compact JSON) a paged tool answers when called without
/// `limit`: GitHub Copilot CLI cuts a result at 10 KB, Codex at 10 KiB or 256 lines.
pub const DEFAULT_ANSWER_BYTES: usize = 10 * 1000;

/// The tools this server exposes, in `tools/list` order: the fifteen the model calls, the MCP-only
/// tools ([`mcp_only_tools`]), then the MCP App's `get_chart_data` (listed only to clients that
/// negotiated the extension). Every answer of the fifteen is at most 40 KB of compact JSON (answers are
/// paged; the tests hold each budget on the real corpus).
pub fn all() -> Vec<ToolSpec> {
    let mut tools = model_tools();
    let chart_data = get_chart_data::spec(&tools);
    tools.extend(mcp_only_tools());
    tools.push(chart_data);
    tools
}

/// The tools beside the seed's fifteen that exist for MCP hosts alone, in `tools/list` order:
/// [`verify_claims`] (a fact check of claims against the corpus), then ChatGPT's deep-research [`search`]
/// and [`fetch`] (the only tools its deep research and company-knowledge modes call, in the shapes OpenAI
/// prescribes).
pub fn mcp_only_tools() -> Vec<ToolSpec> {
    vec![verify_claims::spec(), search::spec(), fetch::spec()]
}

/// The fifteen tools the model calls, in `tools/list` order; those of
/// [`get_chart_data::CHARTING_TOOLS`] marked as charting ([`ToolSpec::charts`]).
pub fn model_tools() -> Vec<ToolSpec> {
    let mut tools = vec![
        resolve_metric::spec(),
        get_parameter_data::spec(),
        get_series::spec(),
        compare_countries::spec(),
        get_regional_pulse::spec(),
        compute::spec(),
        get_data_health::spec(),
        get_discoveries::spec(),
        find_pilots::spec(),
        get_pilot::spec(),
        recommend_action::spec(),
        get_news::spec(),
        search_corpus::spec(),
        get_dataset::spec(),
        resolve_citations::spec(),
    ];
    for tool in &mut tools {
        tool.charts = get_chart_data::CHARTING_TOOLS.contains(&tool.name);
    }
    tools
}

/// The domain plugin: the loaded corpus and its tools.
#[derive(Debug, Clone)]
pub struct Plugin {
    corpus: Arc<Corpus>,
    // Shared: a clone (one per uncached call) copies two pointers, not every schema.
    tools: Arc<[ToolSpec]>,
}

impl Plugin {
    /// A plugin over `corpus` exposing `tools`. Refuses tools that declare no dataset or one the
    /// corpus' dataset catalog does not have.
    ///
    /// # Errors
    /// A message naming the tool, the dataset and the valid dataset ids.
    pub fn new(corpus: Arc<Corpus>, tools: Vec<ToolSpec>) -> Result<Plugin, String> {
        let known: Vec<&str> = corpus
            .datasets
            .iter()
            .map(|dataset| dataset.dataset_id.as_str())
            .collect();
        for tool in &tools {
            if tool.datasets.is_empty() {
                return Err(format!(
                    "tool `{}` declares no dataset: every tool must declare the datasets it reads",
                    tool.name
                ));
            }
            if let Some(unknown) = tool
                .datasets
                .iter()
                .find(|dataset| !known.contains(dataset))
            {
                return Err(format!(
                    "tool `{}` declares dataset `{unknown}`, which the baked catalog does not have; datasets: {}",
                    tool.name,
                    known.join(", ")
                ));
            }
        }
        Ok(Plugin {
            corpus,
            tools: tools.into(),
        })
    }

    /// The loaded corpus.
    pub fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    /// Whether the corpus has been read ahead of the calls ([`Corpus::is_warm`]): before, a call may
    /// wait for the thread reading it, and its own cost says little.
    pub fn is_warm(&self) -> bool {
        self.corpus.is_warm()
    }

    /// The exposed tools, in order.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// The tool named `name`, if exposed.
    pub fn tool(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    /// Reconciles country and pillar arguments with the corpus before dispatch
    /// ([`normalize_arguments`]); the places read, as given → ISO3.
    pub fn normalize_arguments(
        &self,
        arguments: &mut Map<String, Value>,
    ) -> std::collections::BTreeMap<String, String> {
        normalize_arguments(&self.corpus, arguments)
    }

    /// A call's raw arguments (already held to the caps) as its tool takes them: `lang` taken out (a
    /// string read by [`Lang::parse_or_default`], anything else the default `es`), countries and
    /// pillars normalised.
    pub fn prepare_arguments(&self, mut arguments: Map<String, Value>) -> PreparedArguments {
        let lang = match arguments.remove("lang") {
            Some(Value::String(lang)) => Lang::parse_or_default(&lang),
            _ => Lang::default(),
        };
        let read = self.normalize_arguments(&mut arguments);
        PreparedArguments {
            arguments: Value::Object(arguments),
            lang,
            read,
        }
    }

    /// Runs the tool named `name` on prepared arguments (blocking: tools are CPU-bound). When a place
    /// was named otherwise than by its code, the answer's payload leads with `"read": {"Brasil": "BRA"}`
    /// (beside `result` and `citations`), so the reader sees how the server read it.
    ///
    /// # Errors
    /// The tool's [`ToolError`]; [`ToolError::Internal`] when no tool has that name.
    pub fn call(&self, name: &str, prepared: PreparedArguments) -> Result<ToolOutput, ToolError> {
        let tool = self
            .tool(name)
            .ok_or_else(|| ToolError::Internal(format!("no tool `{name}` in the table")))?;
        cancel::checkpoint()?;
        let mut output = tool.call(&self.corpus, prepared.arguments, prepared.lang)?;
        if !prepared.read.is_empty()
            && output.payload.starts_with("{\"result\"")
            && let Ok(read) = serde_json::to_string(&prepared.read)
        {
            output.payload.insert_str(1, &format!("\"read\":{read},"));
        }
        Ok(output)
    }

    /// The `prompts/list` result: the prompts of the common flows ([`prompts`]).
    pub fn prompts(&self) -> Value {
        prompts::list()
    }

    /// The `prompts/get` result of prompt `name` with its string `arguments` ([`prompts::get`]).
    ///
    /// # Errors
    /// [`ToolError::Invalid`] naming an unknown prompt, argument, country or pillar and what is valid.
    pub fn prompt(&self, name: &str, arguments: &Map<String, Value>) -> Result<Value, ToolError> {
        prompts::get(&self.corpus, name, arguments)
    }

    /// The server's instructions for the model (`initialize` and `server/discover`): what the corpus
    /// holds (version, counts), the flow of calls, the citation contract and the tool names.
    pub fn instructions(&self) -> String {
        instructions::text(self)
    }
}

/// Reconciles country and pillar arguments with `corpus` before a tool runs (`"Brasil"` → `BRA`,
/// `"educación"` → `educacion`) and returns each place read otherwise than by its code, as given → ISO3.
/// Purely corrective: values that do not resolve (an ambiguous name, a place outside the corpus, an
/// unknown one) pass untouched, so the tool can say what would be valid.
pub fn normalize_arguments(
    corpus: &Corpus,
    arguments: &mut Map<String, Value>,
) -> std::collections::BTreeMap<String, String> {
    let baked = &corpus.baked;
    let mut read = std::collections::BTreeMap::new();
    let mut country = |value: &mut Value| {
        if let Some(text) = value.as_str()
            && let Some(entity) = baked.countries().resolve(text)
        {
            if text != entity.iso3 {
                read.insert(crate::text::snippet(text), entity.iso3.clone());
            }
            *value = Value::String(entity.iso3.clone());
        }
    };
    for key in ["country"] {
        if let Some(value) = arguments.get_mut(key) {
            country(value);
        }
    }
    if let Some(Value::Array(values)) = arguments.get_mut("countries") {
        values.iter_mut().for_each(country);
    }
    for key in ["parameter", "pillar"] {
        if let Some(value) = arguments.get_mut(key)
            && let Some(text) = value.as_str()
            && let Some(pillar) = baked.pillars().resolve(text)
        {
            *value = Value::String(pillar.id.clone());
        }
    }
    read
}

/// Adds the optional `lang` argument (`es`, `en`, `pt`; default `es`, capped as [`limits`] caps its
/// kind) to an input schema, which is made `type: "object"`.
fn add_lang_argument(schema: &mut Value) {
    if let Some(object) = schema.as_object_mut() {
        object.insert("type".into(), serde_json::json!("object"));
        let properties = object
            .entry("properties")
            .or_insert_with(|| serde_json::json!({}));
        if let Some(properties) = properties.as_object_mut() {
            // Its name and values say what it is; the server's instructions say what it changes.
            let mut lang = serde_json::json!({"type": "string", "enum": ["es", "en", "pt"]});
            limits::cap_string(&mut lang, limits::LANG_KIND);
            properties.insert("lang".into(), lang);
        }
    }
}

/// The `outputSchema` of a tool answering `O`: `structuredContent` whose `result` is either `O` or, for
/// an `isError` result, `{"error": "…"}` (clients that validate every `structuredContent` accept both).
fn output_schema<O: JsonSchema>() -> Value {
    let mut schema = schema_value::<answer::StructuredContent<O>>();
    let result = &mut schema["properties"]["result"];
    let answer = result.take();
    *result = serde_json::json!({
        "anyOf": [
            answer,
            {
                "type": "object",
                "description": "A tool-level problem (isError: true): what was wrong and what would be valid.",
                "properties": {"error": {"type": "string"}},
                "required": ["error"],
                "additionalProperties": false
            }
        ]
    });
    schema::tidy(&mut schema, schema::Side::Output);
    schema::shallow_output(&mut schema);
    schema
}

/// The `outputSchema` of a [`ToolSpec::document`] tool answering `O`: `O`'s own schema (a list's records
/// inlined: hosts check their fields; a nested record typed `object`), or the refusal `{"result": {"error"}}`.
fn document_schema<O: JsonSchema>() -> Value {
    let mut answer = schema_value::<O>();
    schema::tidy(&mut answer, schema::Side::Output);
    schema::inline_refs(&mut answer);
    // A record inside the answer is typed `object`; a list of them keeps its records' fields (search's
    // results are what the host reads).
    if let Some(Value::Object(properties)) = answer.get_mut("properties") {
        for property in properties.values_mut() {
            if property.get("type") == Some(&Value::from("object")) {
                *property = serde_json::json!({"type": "object"});
            }
        }
    }
    serde_json::json!({
        "type": "object",
        "anyOf": [
            answer,
            {
                "type": "object",
                "properties": {"result": {
                    "type": "object",
                    "properties": {"error": {"type": "string"}},
                    "required": ["error"]
                }},
                "required": ["result"]
            }
        ]
    })
}

fn schema_value<T: JsonSchema>() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).expect("schemas serialize");
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
    }
    schema
}

/// `query (string, required), pillar (string), limit (integer), lang (es|en|pt)`: the arguments an input
/// schema accepts, for error messages.
fn describe_arguments(schema: &Value) -> String {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut described: Vec<String> = schema["properties"]
        .as_object()
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| {
                    let kind = match &property["type"] {
                        Value::String(kind) => kind.clone(),
                        Value::Array(kinds) => kinds
                            .iter()
                            .filter_map(Value::as_str)
                            .filter(|kind| *kind != "null")
                            .collect::<Vec<_>>()
                            .join("|"),
                        _ => "value".to_string(),
                    };
                    let required = if required.contains(&name.as_str()) {
                        ", required"
                    } else {
                        ""
                    };
                    format!("{name} ({kind}{required})")
                })
                .collect()
        })
        .unwrap_or_default();
    described.push("lang (es|en|pt)".to_string());
    described.join(", ")
}
