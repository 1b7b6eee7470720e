//! Argument caps, checked on the raw `arguments` object before any work: before the plugin normalises
//! countries and pillars, before deserialization, before any lookup, edit distance or search.
//!
//! The caps live in each tool's input JSON Schema, so a client sees what the server enforces.
//! [`ArgumentCaps::inject`] runs once per tool (at [`super::ToolSpec::new`]): every string property, and
//! the string `items` of every array, that lacks a `maxLength` gets the one of its kind (table below); an
//! identifier also gets [`IDENTIFIER_PATTERN`]; an array without `maxItems` gets [`DEFAULT_MAX_ITEMS`].
//! Caps the types already declare (`#[schemars(length(max = 8))]`) are kept and enforced as written.
//! [`ArgumentCaps::check`] then holds a call's arguments to those caps with plain character tests (no
//! regex) and refuses control characters in any string. A refusal is a [`ToolError::Invalid`] naming the
//! argument, its length and the cap or character set that would be valid; it echoes at most a
//! [`snippet`] of the value.
//!
//! | kind | `maxLength` | characters | arguments |
//! |---|---|---|---|
//! | identifier | 128 | `^[A-Za-z0-9_.+-]*$` | `indicator`, `indicator_b`, `dataset_id`, `ids`, `datasets`, `op`, `method`, `kind`, `order`, `frontier`, `lang` |
//! | name | 128 | any but control characters | every other string: `country`, `countries`, `parameter`, `pillar`, `id` (a record key, which may be a country name) |
//! | free text | 500 | any but control characters | `query` |
//!
//! 128 characters is over four times the longest id, code or country name of the corpus (27 and 55);
//! 500 is a long search phrase. The identifier set admits `+` so that a malformed citation id such as
//! `…-mex-+2024` is still explained by `resolve_citations` rather than refused.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{ToolError, arguments::snippet};

/// How a string argument is capped, chosen by its property name ([`ArgumentKind::of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentKind {
    /// An id, code or enum value: [`IDENTIFIER_PATTERN`], at most 128 characters.
    Identifier,
    /// A name or an id (country or pillar names in es/en/pt): at most 128 characters.
    Name,
    /// Words to search for: at most 500 characters.
    Text,
}

/// The kind of each argument that is not a [`ArgumentKind::Name`].
pub const ARGUMENT_KINDS: &[(&str, ArgumentKind)] = &[
    ("indicator", ArgumentKind::Identifier),
    ("indicator_b", ArgumentKind::Identifier),
    ("dataset_id", ArgumentKind::Identifier),
    ("ids", ArgumentKind::Identifier),
    ("datasets", ArgumentKind::Identifier),
    ("op", ArgumentKind::Identifier),
    ("method", ArgumentKind::Identifier),
    ("kind", ArgumentKind::Identifier),
    ("order", ArgumentKind::Identifier),
    ("frontier", ArgumentKind::Identifier),
    // `lang` is held to a name's length only: any other value falls back to `es` (SPEC §4.3).
    ("query", ArgumentKind::Text),
];

impl ArgumentKind {
    /// The kind of the argument `name`: its row of [`ARGUMENT_KINDS`], else [`ArgumentKind::Name`].
    pub fn of(name: &str) -> ArgumentKind {
        ARGUMENT_KINDS
            .iter()
            .find(|(argument, _)| *argument == name)
            .map_or(ArgumentKind::Name, |(_, kind)| *kind)
    }

    /// The `maxLength` a string of this kind gets when its schema declares none.
    pub fn max_chars(self) -> usize {
        match self {
            ArgumentKind::Identifier | ArgumentKind::Name => 128,
            ArgumentKind::Text => 500,
        }
    }
}

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
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    object
        .entry("maxLength")
        .or_insert_with(|| json!(kind.max_chars()));
    if kind == ArgumentKind::Identifier {
        object
            .entry("pattern")
            .or_insert_with(|| json!(IDENTIFIER_PATTERN));
    }
}

/// The cap of one argument, as its schema states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cap {
    /// Longest string, in characters (code points, as JSON Schema counts).
    max_chars: usize,
    /// Whether strings must match [`IDENTIFIER_PATTERN`].
    identifier: bool,
    /// Most items of an array.
    max_items: Option<usize>,
}

impl Cap {
    fn of_kind(kind: ArgumentKind) -> Cap {
        Cap {
            max_chars: kind.max_chars(),
            identifier: kind == ArgumentKind::Identifier,
            max_items: None,
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
        }
    }
}

/// The caps of one tool's arguments, read back from its input schema.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgumentCaps {
    arguments: BTreeMap<String, Cap>,
}

impl ArgumentCaps {
    /// Injects the missing caps into the input schema `schema` (see the module doc) and returns them to
    /// check calls against, with the transport's `lang` argument besides.
    pub fn inject(schema: &mut Value) -> ArgumentCaps {
        let mut arguments = BTreeMap::new();
        if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            for (name, property) in properties.iter_mut() {
                arguments.insert(name.clone(), cap_property(name, property));
            }
        }
        arguments.insert("lang".to_string(), Cap::of_kind(ArgumentKind::of("lang")));
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

/// Caps one property's schema and returns its cap. A property without `type` is a `$ref` or `anyOf` to
/// string enums in these schemas, and is capped as a string.
fn cap_property(name: &str, property: &mut Value) -> Cap {
    let kind = ArgumentKind::of(name);
    let types: Vec<String> = match &property["type"] {
        Value::String(kind) => vec![kind.clone()],
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let has = |wanted: &str| types.iter().any(|kind| kind == wanted);
    let mut cap = Cap::of_kind(kind);
    if has("array") {
        let max_items = property["maxItems"]
            .as_u64()
            .map_or(DEFAULT_MAX_ITEMS, |max| max as usize);
        if let Some(object) = property.as_object_mut() {
            object
                .entry("maxItems")
                .or_insert_with(|| json!(DEFAULT_MAX_ITEMS));
        }
        cap.max_items = Some(max_items);
        let items = &mut property["items"];
        let item_is_string = match &items["type"] {
            Value::String(kind) => kind == "string",
            Value::Array(kinds) => kinds.iter().any(|kind| kind == "string"),
            _ => items.is_object(),
        };
        if item_is_string {
            cap_string(items, kind);
            cap = Cap::of_schema(items, cap);
        }
    }
    if has("string") || types.is_empty() {
        cap_string(property, kind);
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
    use super::*;

    fn caps() -> (Value, ArgumentCaps) {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "indicator": {"type": "string"},
                "country": {"type": ["string", "null"]},
                "countries": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
                "ids": {"type": ["array", "null"], "items": {"type": "string"}},
                "op": {"$ref": "#/$defs/Op"},
                "query": {"type": "string", "maxLength": 40},
                "limit": {"type": ["integer", "null"]}
            }
        });
        let caps = ArgumentCaps::inject(&mut schema);
        (schema, caps)
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
