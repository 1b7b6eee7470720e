//! Argument caps, checked on the raw `arguments` object before any work: before the plugin normalises
//! countries and pillars, before deserialization, before any lookup, edit distance or search.
//!
//! The caps live in each tool's input JSON Schema, so a client sees what the server enforces (a string enum
//! is published with its values alone, which bound it more tightly than its cap), and each
//! input type declares them on its fields: `#[schemars(transform = limits::cap_identifier)]`
//! ([`cap_identifier`], [`cap_name`], [`cap_text`]) gives a string field (optional or not, a string
//! enum, or the string `items` of an array) the `maxLength` of its kind (table below) when it declares
//! none; an identifier also gets [`IDENTIFIER_PATTERN`]; an array without `maxItems` gets
//! [`DEFAULT_MAX_ITEMS`]. Caps the field already declares (`#[schemars(length(max = 8))]`) are kept and
//! enforced as written. A test holds every string argument of every tool to a declared cap, so a new
//! argument without one fails it rather than taking another kind's caps.
//! [`ArgumentCaps::declared_in`] reads the caps back from the schema (at [`super::ToolSpec::new`]);
//! [`ArgumentCaps::check`] then holds a call's arguments to those caps with plain character tests (no
//! regex) and refuses control characters in any string. A refusal is a [`ToolError::Invalid`] naming the
//! argument, its length and the cap or character set that would be valid; it echoes at most a
//! [`snippet`] of the value.
//!
//! | kind | declared with | `maxLength` | characters | arguments |
//! |---|---|---|---|---|
//! | identifier | [`cap_identifier`] | 128 | `^[A-Za-z0-9_.+-]*$` | `indicator`, `indicator_b`, `dataset_id`, `ids`, `datasets`, `op`, `method`, `kind`, `order`, `frontier` |
//! | name | [`cap_name`] | 128 | any but control characters | every other string: `country`, `countries`, `parameter`, `pillar`, `id` (a record key, which may be a country name), `cursor`, `slug`, `tool`, `indicators`; and the transport's `lang` |
//! | free text | [`cap_text`] | 500 | any but control characters | `query` |
//!
//! 128 characters is over four times the longest id, code or country name of the corpus (27 and 55);
//! 500 is a long search phrase. The identifier set admits `+` so that a malformed citation id such as
//! `…-mex-+2024` is still explained by `resolve_citations` rather than refused.

use std::collections::BTreeMap;

use schemars::Schema;
use serde_json::{Map, Value, json};

use super::{ToolError, arguments::snippet};

/// How a string argument is capped, as its input type declares it ([`cap_identifier`], [`cap_name`],
/// [`cap_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentKind {
    /// An id, code or enum value: [`IDENTIFIER_PATTERN`], at most 128 characters.
    Identifier,
    /// A name or an id (country or pillar names in es/en/pt): at most 128 characters.
    Name,
    /// Words to search for: at most 500 characters.
    Text,
}

impl ArgumentKind {
    /// The `maxLength` a string of this kind gets when its schema declares none.
    pub fn max_chars(self) -> usize {
        match self {
            ArgumentKind::Identifier | ArgumentKind::Name => 128,
            ArgumentKind::Text => 500,
        }
    }
}

/// The kind of the `lang` argument every tool takes (added to each input schema by `ToolSpec`): a name, held to a
/// name's length only, since any other value falls back to `es` (SPEC §4.3). A tool's own arguments take
/// their kind from its input type, never from their name.
pub const LANG_KIND: ArgumentKind = ArgumentKind::Name;

/// The character set of identifiers, as published in the schemas (checked by [`is_identifier_char`]).
pub const IDENTIFIER_PATTERN: &str = "^[A-Za-z0-9_.+-]*$";
/// The `maxItems` an array gets when its schema declares none (the corpus has 57 entities).
pub const DEFAULT_MAX_ITEMS: usize = 64;
/// The longest argument name accepted (an unknown one is then refused by name by the tool).
pub const MAX_ARGUMENT_NAME_CHARS: usize = 64;

/// Whether `character` belongs to [`IDENTIFIER_PATTERN`].
pub fn is_identifier_char(character: char) -> bool {
    character.is_ascii_alphanumeric() || matches!(character, '_' | '.' | '+' | '-')
}

/// Gives the string schema `schema` the caps of `kind` it lacks: a `maxLength` and, for an identifier, the
/// [`IDENTIFIER_PATTERN`]. Harmless on a `$ref` or `anyOf` to string enums (both keywords apply to strings only).
pub fn cap_string(schema: &mut Value, kind: ArgumentKind) {
    if let Some(object) = schema.as_object_mut() {
        cap_string_object(object, kind);
    }
}

/// [`cap_string`] on a schema object.
fn cap_string_object(object: &mut Map<String, Value>, kind: ArgumentKind) {
    object
        .entry("maxLength")
        .or_insert_with(|| json!(kind.max_chars()));
    if kind == ArgumentKind::Identifier {
        object
            .entry("pattern")
            .or_insert_with(|| json!(IDENTIFIER_PATTERN));
    }
}

/// Declares an identifier argument's caps on its field's schema (see the module doc):
/// `#[schemars(transform = limits::cap_identifier)]`.
pub fn cap_identifier(schema: &mut Schema) {
    cap_field(schema, ArgumentKind::Identifier);
}

/// Declares a name argument's caps on its field's schema (see the module doc):
/// `#[schemars(transform = limits::cap_name)]`.
pub fn cap_name(schema: &mut Schema) {
    cap_field(schema, ArgumentKind::Name);
}

/// Declares a free-text argument's caps on its field's schema (see the module doc):
/// `#[schemars(transform = limits::cap_text)]`.
pub fn cap_text(schema: &mut Schema) {
    cap_field(schema, ArgumentKind::Text);
}

/// Gives a field's schema the caps of `kind` it lacks: its string (a `$ref` or `anyOf` without `type`
/// is a string enum in these schemas) or, for an array, its `maxItems` and its string `items`.
fn cap_field(schema: &mut Schema, kind: ArgumentKind) {
    let Some(property) = schema.as_object_mut() else {
        return;
    };
    let types = types_of(property.get("type"));
    let (array, string) = (
        types.contains(&"array"),
        types.contains(&"string") || types.is_empty(),
    );
    if array {
        property
            .entry("maxItems")
            .or_insert_with(|| json!(DEFAULT_MAX_ITEMS));
        if let Some(Value::Object(items)) = property.get_mut("items")
            && holds_strings(items.get("type"), true)
        {
            cap_string_object(items, kind);
        }
    }
    if string {
        cap_string_object(property, kind);
    }
}

/// The JSON types a schema's `type` names (one, or an array of them); empty without `type`.
fn types_of(types: Option<&Value>) -> Vec<&str> {
    match types {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether `items` of an array with this `type` are strings: named so, or untyped (a string enum)
/// when `untyped_is_string`.
fn holds_strings(types: Option<&Value>, untyped_is_string: bool) -> bool {
    match types {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "string"),
        _ => untyped_is_string,
    }
}

/// The cap of one argument, as its schema states it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cap {
    /// Longest string, in characters (code points, as JSON Schema counts).
    max_chars: usize,
    /// Whether strings must match [`IDENTIFIER_PATTERN`].
    identifier: bool,
    /// Most items of an array.
    max_items: Option<usize>,
    /// The caps of the fields of an array's object items (`verify_claims`' claims).
    fields: Option<Box<ArgumentCaps>>,
}

impl Cap {
    fn of_kind(kind: ArgumentKind) -> Cap {
        Cap {
            max_chars: kind.max_chars(),
            identifier: kind == ArgumentKind::Identifier,
            max_items: None,
            fields: None,
        }
    }

    /// The cap a (capped) string schema states; `fallback` for what it does not.
    fn of_schema(schema: &Value, fallback: Cap) -> Cap {
        Cap {
            max_chars: schema["maxLength"]
                .as_u64()
                .map_or(fallback.max_chars, |max| max as usize),
            identifier: schema["pattern"].as_str() == Some(IDENTIFIER_PATTERN),
            max_items: fallback.max_items,
            fields: fallback.fields,
        }
    }
}

/// The caps of one tool's arguments, read back from its input schema.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgumentCaps {
    arguments: BTreeMap<String, Cap>,
}

impl ArgumentCaps {
    /// The caps the input schema `schema` declares (see the module doc), with the transport's `lang`
    /// argument besides.
    pub fn declared_in(schema: &Value) -> ArgumentCaps {
        let mut arguments = BTreeMap::new();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                arguments.insert(name.clone(), declared_cap(property));
            }
        }
        arguments.insert("lang".to_string(), Cap::of_kind(LANG_KIND));
        ArgumentCaps { arguments }
    }

    /// Checks the raw `arguments` of a call to `tool`: argument names, string lengths and characters, and
    /// array sizes. Values of arguments the schema does not have are left to the tool, which refuses
    /// them by name.
    ///
    /// # Errors
    /// [`ToolError::Invalid`] for the first argument past its cap, naming it, its length and the cap.
    pub fn check(&self, tool: &str, arguments: &Map<String, Value>) -> Result<(), ToolError> {
        let refuse = |problem: String| {
            Err(ToolError::Invalid(format!(
                "invalid arguments for {tool}: {problem}"
            )))
        };
        for (name, value) in arguments {
            let Some(cap) = self.arguments.get(name) else {
                let chars = name.chars().count();
                if chars > MAX_ARGUMENT_NAME_CHARS || name.chars().any(char::is_control) {
                    let valid: Vec<&str> = self.arguments.keys().map(String::as_str).collect();
                    return refuse(format!(
                        "an argument name of {chars} characters (`{}`); names are at most {MAX_ARGUMENT_NAME_CHARS} characters, without control characters; valid arguments: {}",
                        printable(name),
                        valid.join(", ")
                    ));
                }
                continue;
            };
            match value {
                Value::String(text) => {
                    if let Some(problem) = string_problem(name, text, cap) {
                        return refuse(problem);
                    }
                }
                Value::Array(items) => {
                    if let Some(max) = cap.max_items
                        && items.len() > max
                    {
                        return refuse(format!(
                            "argument `{name}` holds {} items; at most {max}",
                            items.len()
                        ));
                    }
                    for (index, item) in items.iter().enumerate() {
                        if let Value::String(text) = item
                            && let Some(problem) =
                                string_problem(&format!("{name}[{index}]"), text, cap)
                        {
                            return refuse(problem);
                        }
                        // An object item's string fields, each to its own cap.
                        if let (Value::Object(fields), Some(caps)) = (item, &cap.fields) {
                            for (field, value) in fields {
                                if let (Value::String(text), Some(field_cap)) =
                                    (value, caps.arguments.get(field))
                                    && let Some(problem) = string_problem(
                                        &format!("{name}[{index}].{field}"),
                                        text,
                                        field_cap,
                                    )
                                {
                                    return refuse(problem);
                                }
                            }
                        }
                    }
                }
                // Numbers, booleans, objects and null: the tool's deserializer reads (or refuses) them
                // without echoing them at length.
                _ => {}
            }
        }
        Ok(())
    }
}

/// The cap one property's schema states. A property without `type` is a `$ref` or `anyOf` to string
/// enums in these schemas, and is read as a string; what a schema leaves out is a name's.
fn declared_cap(property: &Value) -> Cap {
    let types = types_of(property.get("type"));
    let mut cap = Cap::of_kind(ArgumentKind::Name);
    if types.contains(&"array") {
        cap.max_items = Some(
            property["maxItems"]
                .as_u64()
                .map_or(DEFAULT_MAX_ITEMS, |max| max as usize),
        );
        let items = &property["items"];
        if items.get("type") == Some(&Value::from("object")) {
            let mut fields = BTreeMap::new();
            for (name, field) in items["properties"].as_object().into_iter().flatten() {
                fields.insert(name.clone(), declared_cap(field));
            }
            cap.fields = Some(Box::new(ArgumentCaps { arguments: fields }));
            return cap;
        }
        if holds_strings(items.get("type"), items.is_object()) {
            cap = Cap::of_schema(items, cap);
        }
    }
    if types.contains(&"string") || types.is_empty() {
        cap = Cap::of_schema(property, cap);
    }
    cap
}

/// What is wrong with the string `text` given for `argument`, if anything.
fn string_problem(argument: &str, text: &str, cap: &Cap) -> Option<String> {
    // Bytes bound characters from above: only a long value is counted.
    if text.len() > cap.max_chars {
        let chars = text.chars().count();
        if chars > cap.max_chars {
            return Some(format!(
                "argument `{argument}` is {chars} characters long (`{}`); at most {}{}",
                printable(text),
                cap.max_chars,
                if cap.identifier {
                    format!(", of {IDENTIFIER_CHARSET}")
                } else {
                    String::new()
                }
            ));
        }
    }
    let chars = || text.chars().count();
    if let Some((position, control)) = text
        .chars()
        .enumerate()
        .find(|(_, character)| character.is_control())
    {
        return Some(format!(
            "argument `{argument}` ({} characters) holds the control character U+{:04X} at character {}; control characters are not accepted",
            chars(),
            u32::from(control),
            position + 1
        ));
    }
    if cap.identifier
        && let Some((position, outside)) = text
            .chars()
            .enumerate()
            .find(|(_, character)| !is_identifier_char(*character))
    {
        return Some(format!(
            "argument `{argument}` (`{}`, {} characters) holds `{outside}` at character {}; an identifier is made of {IDENTIFIER_CHARSET}",
            printable(text),
            chars(),
            position + 1
        ));
    }
    None
}

/// The identifier character set in words, for messages.
const IDENTIFIER_CHARSET: &str =
    "ASCII letters, digits, `_`, `.`, `+` and `-` (pattern ^[A-Za-z0-9_.+-]*$)";

/// A [`snippet`] of `text` with control characters shown as `\u{…}` escapes.
fn printable(text: &str) -> String {
    snippet(text)
        .chars()
        .map(|character| {
            if character.is_control() {
                format!("\\u{{{:x}}}", u32::from(character))
            } else {
                character.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;

    use super::*;

    /// Arguments of every shape the tools have, each declaring its kind.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Arguments {
        #[schemars(transform = cap_identifier)]
        indicator: String,
        #[schemars(transform = cap_name)]
        country: Option<String>,
        #[schemars(length(max = 8), transform = cap_name)]
        countries: Vec<String>,
        #[schemars(transform = cap_identifier)]
        ids: Option<Vec<String>>,
        #[schemars(transform = cap_identifier)]
        op: Op,
        #[schemars(length(max = 40), transform = cap_text)]
        query: String,
        limit: Option<u32>,
    }

    /// A string enum argument.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    enum Op {
        Change,
        Cagr,
    }

    /// The input schema of `I` as `tools/list` publishes it.
    fn input_schema<I: JsonSchema>() -> Value {
        let mut schema = schemars::schema_for!(I).to_value();
        crate::tools::schema::tidy(&mut schema, crate::tools::schema::Side::Input);
        schema
    }

    fn caps() -> (Value, ArgumentCaps) {
        let schema = input_schema::<Arguments>();
        let caps = ArgumentCaps::declared_in(&schema);
        (schema, caps)
    }

    /// The string arguments of `schema` (or string items of array arguments, as `name[]`) without a
    /// `maxLength` or an `enum` of their values, and the array arguments without `maxItems`.
    fn uncapped(schema: &Value) -> Vec<String> {
        let mut missing = Vec::new();
        let Some(properties) = schema["properties"].as_object() else {
            return missing;
        };
        for (name, property) in properties {
            let types = types_of(property.get("type"));
            if types.contains(&"array") {
                if property.get("maxItems").is_none() {
                    missing.push(name.clone());
                }
                let items = &property["items"];
                if holds_strings(items.get("type"), items.is_object())
                    && items.get("maxLength").is_none()
                {
                    missing.push(format!("{name}[]"));
                }
            }
            // A string enum is published with its values alone (they bound it); its cap was read before.
            if (types.contains(&"string") || types.is_empty())
                && property.get("maxLength").is_none()
                && property.get("enum").is_none()
            {
                missing.push(name.clone());
            }
        }
        missing
    }

    #[test]
    fn every_string_argument_of_every_tool_declares_its_cap() {
        let missing: Vec<String> = crate::tools::all()
            .iter()
            .flat_map(|tool| {
                uncapped(&tool.input_schema)
                    .into_iter()
                    .map(move |argument| format!("{}.{argument}", tool.name))
            })
            .collect();
        assert!(
            missing.is_empty(),
            "declare these arguments' caps on their input types (#[schemars(transform = limits::cap_…)]): {missing:?}"
        );
    }

    #[test]
    fn an_argument_without_a_declared_cap_is_found() {
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Forgotten {
            #[schemars(transform = cap_identifier)]
            indicator: String,
            indicator_c: Option<String>,
            countries: Vec<String>,
            op: Option<Op>,
            limit: Option<u32>,
        }
        assert_eq!(
            uncapped(&input_schema::<Forgotten>()),
            ["countries", "countries[]", "indicator_c", "op"]
        );
    }

    fn check(arguments: Value) -> Result<(), ToolError> {
        caps().1.check("t", arguments.as_object().unwrap())
    }

    #[test]
    fn schemas_get_the_caps_they_lack_and_keep_their_own() {
        let (schema, _) = caps();
        let properties = &schema["properties"];
        assert_eq!(properties["indicator"]["maxLength"], json!(128));
        assert_eq!(
            properties["indicator"]["pattern"],
            json!(IDENTIFIER_PATTERN)
        );
        assert_eq!(properties["country"]["maxLength"], json!(128));
        assert!(properties["country"].get("pattern").is_none());
        assert_eq!(properties["countries"]["maxItems"], json!(8));
        assert_eq!(properties["countries"]["items"]["maxLength"], json!(128));
        assert_eq!(properties["ids"]["maxItems"], json!(DEFAULT_MAX_ITEMS));
        assert_eq!(
            properties["ids"]["items"]["pattern"],
            json!(IDENTIFIER_PATTERN)
        );
        assert_eq!(properties["op"]["maxLength"], json!(128));
        assert_eq!(properties["query"]["maxLength"], json!(40));
        assert!(properties["limit"].get("maxLength").is_none());
    }

    #[test]
    fn calls_are_held_to_the_caps() {
        assert_eq!(
            check(json!({"indicator": "sp_dyn_le00_in", "country": "México", "lang": "en"})),
            Ok(())
        );
        let Err(ToolError::Invalid(message)) = check(json!({"indicator": "x".repeat(129)})) else {
            panic!("a long id is refused")
        };
        assert!(
            message.contains("argument `indicator` is 129 characters long"),
            "{message}"
        );
        assert!(message.contains("at most 128"), "{message}");
        assert!(message.len() < 400, "{message}");
        let Err(ToolError::Invalid(message)) = check(json!({"query": "é".repeat(41)})) else {
            panic!("a long query is refused")
        };
        assert!(message.contains("41 characters long"), "{message}");
        assert_eq!(check(json!({"query": "é".repeat(40)})), Ok(()));
        let Err(ToolError::Invalid(message)) = check(json!({"country": "MEX\u{7}"})) else {
            panic!("a control character is refused")
        };
        assert!(message.contains("U+0007 at character 4"), "{message}");
        let Err(ToolError::Invalid(message)) = check(json!({"ids": ["ok-1", "nó"]})) else {
            panic!("a non-ASCII id is refused")
        };
        assert!(message.contains("argument `ids[1]`"), "{message}");
        assert!(message.contains("holds `ó` at character 2"), "{message}");
        let Err(ToolError::Invalid(message)) = check(json!({"countries": vec!["MEX"; 9]})) else {
            panic!("too many items are refused")
        };
        assert!(message.contains("holds 9 items; at most 8"), "{message}");
        let Err(ToolError::Invalid(message)) = check(json!({"op": "cambio total"})) else {
            panic!("an enum value outside the charset is refused")
        };
        assert!(message.contains("argument `op`"), "{message}");
        let long_name = "n".repeat(65);
        assert!(check(json!({ (long_name): 1 })).is_err());
        assert_eq!(check(json!({"unknown": "x".repeat(1000)})), Ok(()));
    }
}
