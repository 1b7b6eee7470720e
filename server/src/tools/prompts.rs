//! MCP prompts for the common flows (`prompts/list`, `prompts/get`): a country brief and a comparison of
//! countries, each a user message that names the calls, in order, with their arguments resolved against
//! the corpus (a country's ISO3 code, a pillar's id), and the corpus' working rules (cite every number,
//! say when the corpus lacks it, never fill one in); and a fact check of a text's figures (`check_claims`:
//! its sentences with a number become the claims of one `verify_claims` call, written into the message).
//!
//! Arguments are strings (MCP prompts take string arguments): a country as an ISO3 code or a name in
//! es/en/pt, countries comma-separated, a pillar as its id or name, `lang` `es`/`en`/`pt` (default `es`).
//! An argument that does not resolve is refused with what would be valid.

use corpus::Lang;
use serde_json::{Map, Value, json};

use super::{ToolError, arguments};
use crate::load::Corpus;

/// One prompt's listing: name, title, description and its arguments (name, description, required).
struct PromptSpec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    arguments: &'static [(&'static str, &'static str, bool)],
}

const LANG_ARGUMENT: (&str, &str, bool) = (
    "lang",
    "es, en or pt: the language of the names and of the answer (default es)",
    false,
);

/// The longest text `check_claims` takes, in characters.
pub const MAX_CLAIMS_TEXT_CHARS: usize = 4_000;

const PROMPTS: [PromptSpec; 3] = [
    PromptSpec {
        name: "country_brief",
        title: "Country brief",
        description: "A cited brief on one country: a pillar's indicators (or every pillar's headline), their trends, the data's health and what the corpus lacks.",
        arguments: &[
            (
                "country",
                "The country: ISO3 code or name (Brasil, México)",
                true,
            ),
            (
                "pillar",
                "One pillar (salud, educacion…); every pillar when absent",
                false,
            ),
            LANG_ARGUMENT,
        ],
    },
    PromptSpec {
        name: "compare_countries",
        title: "Compare countries",
        description: "A cited comparison of 2-8 countries on one pillar: latest values with their years, ranks and gaps, and what each country lacks.",
        arguments: &[
            (
                "countries",
                "2-8 countries, comma-separated ISO3 codes or names",
                true,
            ),
            ("pillar", "The pillar (salud, educacion, economia…)", true),
            LANG_ARGUMENT,
        ],
    },
    PromptSpec {
        name: "check_claims",
        title: "Check a text's figures",
        description: "A fact check of the figures in a text (a paragraph, a report's summary): each sentence with a number is checked against the governed corpus with verify_claims, each verdict defended with the corpus value, its citation and the diagnosis.",
        arguments: &[
            (
                "text",
                "The text whose figures to check (es/en/pt, up to 4,000 characters)",
                true,
            ),
            LANG_ARGUMENT,
        ],
    },
];

/// The working rules every prompt ends with.
const RULES: &str = "Cite every number with its citation_id and its source (publisher, dataset, link); \
keep projections and estimates apart from observed values; where the corpus has no value, say so and \
never fill one in; a regional value is the one the answer gives, with its method.";

/// The `prompts/list` result: every prompt with its arguments.
pub fn list() -> Value {
    let prompts: Vec<Value> = PROMPTS
        .iter()
        .map(|prompt| {
            json!({
                "name": prompt.name,
                "title": prompt.title,
                "description": prompt.description,
                "arguments": prompt.arguments.iter().map(|(name, description, required)| {
                    json!({"name": name, "description": description, "required": required})
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "prompts": prompts })
}

/// The `prompts/get` result of prompt `name` with `arguments` (strings): its description and one user
/// message naming the calls to make.
///
/// # Errors
/// [`ToolError::Invalid`] for an unknown prompt (naming the prompts), a missing or unknown argument, or a
/// country or pillar the corpus does not have (naming what would be valid).
pub fn get(
    corpus: &Corpus,
    name: &str,
    arguments: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let prompt = PROMPTS
        .iter()
        .find(|prompt| prompt.name == name)
        .ok_or_else(|| {
            ToolError::Invalid(format!(
                "no prompt `{}`; prompts: {}",
                crate::text::snippet(name),
                PROMPTS.map(|prompt| prompt.name).join(", ")
            ))
        })?;
    let mut text_of = Map::new();
    for (key, value) in arguments {
        let known = prompt
            .arguments
            .iter()
            .any(|(argument, _, _)| argument == key);
        let Some(value) = value.as_str().filter(|_| known) else {
            return Err(ToolError::Invalid(format!(
                "prompt {name}: argument `{}` {}; arguments: {}",
                crate::text::snippet(key),
                if known {
                    "must be a string"
                } else {
                    "is not one of its arguments"
                },
                prompt
                    .arguments
                    .iter()
                    .map(|(argument, _, _)| *argument)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        text_of.insert(key.clone(), Value::from(value.trim()));
    }
    for (argument, _, required) in prompt.arguments {
        if *required
            && text_of
                .get(*argument)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
        {
            return Err(ToolError::Invalid(format!(
                "prompt {name}: argument `{argument}` is required"
            )));
        }
    }
    let text = |key: &str| {
        text_of
            .get(key)
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
    };
    let lang = text("lang").map_or(Lang::Es, Lang::parse_or_default);
    let language = match lang {
        Lang::Es => "Spanish",
        Lang::En => "English",
        Lang::Pt => "Portuguese",
    };
    let lang_code = lang.as_str();
    // A pillar's name in any language reads as its id, as the tools read it.
    let pillar_id = text("pillar").map(|text| {
        corpus
            .baked
            .pillars()
            .resolve(text)
            .map_or(text, |pillar| pillar.id.as_str())
    });
    let pillar = arguments::optional_pillar(corpus, pillar_id)?;
    // A country's name in any language reads as its ISO3 code, as the tools read it.
    let iso3_of = |text: &str| {
        corpus
            .baked
            .countries()
            .resolve(text)
            .map_or_else(|| text.to_string(), |country| country.iso3.clone())
    };
    let body = match prompt.name {
        "check_claims" => check_claims_body(text("text").unwrap_or_default(), language)?,
        "country_brief" => {
            let country =
                arguments::optional_country(corpus, text("country").map(iso3_of).as_deref())?
                    .expect("a required argument");
            let iso3 = &country.iso3;
            let place = country.names.get(lang);
            let reading = match pillar {
                Some(pillar) => format!(
                    "1. get_parameter_data {{\"parameter\": \"{id}\", \"country\": \"{iso3}\", \"lang\": \"{lang_code}\"}}: each indicator's latest value, trend and series tail (pass next_cursor as cursor for the rest).\n\
                     2. get_data_health {{\"parameter\": \"{id}\", \"country\": \"{iso3}\"}}: how far to trust them.\n\
                     3. get_regional_pulse {{\"parameter\": \"{id}\"}}: the region beside it.\n\
                     4. recommend_action {{\"country\": \"{iso3}\", \"pillar\": \"{id}\"}} if the person asks what to do.",
                    id = pillar.id
                ),
                None => {
                    let pillars: Vec<&str> = corpus
                        .baked
                        .pillars()
                        .pillars()
                        .iter()
                        .map(|pillar| pillar.id.as_str())
                        .collect();
                    format!(
                        "1. For each pillar ({}): get_parameter_data {{\"parameter\": …, \"country\": \"{iso3}\", \"lang\": \"{lang_code}\", \"limit\": 5}}: its headline indicators.\n\
                         2. get_data_health {{\"country\": \"{iso3}\", \"parameter\": …}} for the pillars you report.",
                        pillars.join(", ")
                    )
                }
            };
            format!(
                "Write a brief on {place} ({iso3}) from the governed corpus of Latin America and the Caribbean, in {language}.\n{reading}\n{RULES}"
            )
        }
        _ => {
            let pillar = pillar.expect("a required argument");
            let named: Vec<String> = text("countries")
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(iso3_of)
                .collect();
            let countries = arguments::countries(corpus, &named, 2, 8)?;
            let codes: Vec<String> = countries
                .iter()
                .map(|country| format!("\"{}\"", country.iso3))
                .collect();
            let codes = codes.join(", ");
            let id = &pillar.id;
            format!(
                "Compare {names} on {pillar_name} from the governed corpus of Latin America and the Caribbean, in {language}.\n\
                 1. compare_countries {{\"parameter\": \"{id}\", \"countries\": [{codes}], \"lang\": \"{lang_code}\"}}: each indicator's latest value and year (different years are labelled, not aligned; pass next_cursor as cursor for the rest).\n\
                 2. compute {{\"op\": \"rank\", \"indicator\": …, \"countries\": [{codes}]}} for the indicators that matter most, and compute gap_to_frontier where a gap is asked.\n\
                 3. get_series {{\"indicator\": …, \"countries\": [{codes}]}} where a trend matters.\n{RULES}",
                names = countries
                    .iter()
                    .map(|country| country.names.get(lang).to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                pillar_name = pillar.names.get(lang),
            )
        }
    };
    Ok(json!({
        "description": prompt.description,
        "messages": [{"role": "user", "content": {"type": "text", "text": body}}],
    }))
}

/// The message of `check_claims`: the text's sentences that hold a number (at most
/// [`super::verify_claims::MAX_CLAIMS`]) written as the claims of one `verify_claims` call, and how to
/// report each verdict.
///
/// # Errors
/// [`ToolError::Invalid`] for a text past [`MAX_CLAIMS_TEXT_CHARS`] or without a number.
fn check_claims_body(text: &str, language: &str) -> Result<String, ToolError> {
    let chars = text.chars().count();
    if chars > MAX_CLAIMS_TEXT_CHARS {
        return Err(ToolError::Invalid(format!(
            "prompt check_claims: `text` is {chars} characters; at most {MAX_CLAIMS_TEXT_CHARS} (split it)"
        )));
    }
    let claims = sentences_with_numbers(text);
    if claims.is_empty() {
        return Err(ToolError::Invalid(
            "prompt check_claims: `text` states no number to check".into(),
        ));
    }
    let max = super::verify_claims::MAX_CLAIMS;
    let left = claims.len().saturating_sub(max);
    let written: Vec<Value> = claims
        .iter()
        .take(max)
        .map(|claim| json!({"text": claim}))
        .collect();
    let call = json!({"claims": written});
    let more = if left > 0 {
        format!(" The text holds {left} more sentences with numbers: check them in a second call.")
    } else {
        String::new()
    };
    Ok(format!(
        "Check the figures of this text against the governed corpus of Latin America and the Caribbean, and report in {language}.\n\
         1. verify_claims {call} (pass next_offset as offset if the answer stops early).{more} If a sentence holds \
         several figures, check each as a claim of its own, with its country, indicator, year and value.\n\
         2. For each claim give the verdict (match, close, mismatch, cannot_verify), the corpus value with its year and \
         citation_id, and the diagnosis when there is one (another year, a scale, the sign, another publisher, an older \
         vintage, a regional figure); for cannot_verify say why (a place that fits several, one outside the corpus, no \
         governed indicator, no value that year) and supply no number of your own.\n\
         3. resolve_citations {{\"ids\": [the citation_ids you cite], \"format\": \"apa\"}} for the reference list.\n\
         {RULES}"
    ))
}

/// The sentences of `text` (split at `.`, `;`, `!`, `?` followed by a space or the end, and at line
/// breaks; a dot between digits is a decimal mark) that hold a digit, trimmed.
fn sentences_with_numbers(text: &str) -> Vec<String> {
    let characters: Vec<char> = text.chars().collect();
    let mut sentences = Vec::new();
    let mut current = String::new();
    for (at, character) in characters.iter().enumerate() {
        let next = characters.get(at + 1);
        let ends = matches!(character, '\n' | ';' | '!' | '?')
            || (*character == '.' && next.is_none_or(|next| next.is_whitespace()));
        if ends {
            if *character != '\n' {
                current.push(*character);
            }
            sentences.push(std::mem::take(&mut current));
        } else {
            current.push(*character);
        }
    }
    sentences.push(current);
    sentences
        .into_iter()
        .map(|sentence| sentence.trim().to_string())
        .filter(|sentence| sentence.chars().any(|character| character.is_ascii_digit()))
        .collect()
}
