//! The JSON Schemas of `tools/list`, derived from the tool types (schemars) and tidied so that every
//! client reads them without warnings: only JSON Schema's own `format` values (`uint32` and `double`
//! are OpenAPI's; TypeScript clients log each one), no bare `true` schemas and no type arrays (MCP
//! Inspector `--strict` and Claude Code reject both), optional arguments typed by their value alone so
//! that clients coerce them (an optional argument is omitted, not sent as null), and output schemas
//! without field prose or nested `required` lists, and whose nested records are typed `object` without
//! their fields ([`shallow_output`]: the Rust docs and the tool description carry them), so that
//! `tools/list` stays under 32 KiB, its model-facing part (names, descriptions, input schemas) under
//! 16 KiB; [`inline_input`] publishes input schemas compact once their caps are read.

use serde_json::{Map, Value, json};

/// `format` values of the JSON Schema 2020-12 vocabulary, which are the only ones kept.
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uuid",
];

/// Which side of a tool a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Arguments: an optional argument's schema is its value's (omit it for none).
    Input,
    /// `structuredContent`: a value that may be null says so with `anyOf`; no field prose.
    Output,
}

/// Tidies a tool's root `schema` in place for `side` (see the module doc); the root loses its Rust
/// type name and doc (`title`, `description`), which the tool's own name and description replace.
pub fn tidy(schema: &mut Value, side: Side) {
    if let Value::Object(object) = schema {
        object.remove("title");
        object.remove("description");
    }
    tidy_schema(schema, side);
}

fn tidy_schema(schema: &mut Value, side: Side) {
    match schema {
        Value::Object(object) => {
            if object
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|format| !STANDARD_FORMATS.contains(&format))
            {
                object.remove("format");
            }
            nullable_type(object, side);
            string_enum(object);
            // An omitted optional argument is its absence, not a null default.
            if object.get("default") == Some(&Value::Null) {
                object.remove("default");
            }
            // A map of any values (`additionalProperties: true`) is an object of any fields: the key
            // goes rather than becoming a schema of its own (which would make every value an object).
            if object.get("additionalProperties") == Some(&Value::Bool(true)) {
                object.remove("additionalProperties");
            }
            for (key, child) in object.iter_mut() {
                match key.as_str() {
                    // Maps of subschemas.
                    "properties" | "$defs" | "definitions" | "patternProperties" => {
                        if let Value::Object(children) = child {
                            children
                                .values_mut()
                                .for_each(|subschema| tidy_subschema(subschema, side));
                        }
                    }
                    // One subschema.
                    "items" | "additionalProperties" | "not" | "contains" | "propertyNames" => {
                        tidy_subschema(child, side)
                    }
                    // Lists of subschemas.
                    "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                        if let Value::Array(subschemas) = child {
                            subschemas
                                .iter_mut()
                                .for_each(|subschema| tidy_subschema(subschema, side));
                        }
                    }
                    _ => {}
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| tidy_schema(item, side)),
        _ => {}
    }
}

/// Publishes an input schema compact, once its caps are read ([`super::limits::ArgumentCaps`]): each
/// `$ref` to a definition is replaced by the definition (the property's own description kept), an
/// optional one's `anyOf` with null becomes the value's schema (an optional argument is omitted, not
/// null), `$defs` goes, a string enum drops the `maxLength` and `pattern` its values already bound, and
/// a description wrapped over doc lines becomes one line. (`limit`, `offset` and `cursor` fields whose
/// tool description says how they page declare `#[schemars(description = "")]`: their name, range and
/// default say the rest.)
pub fn inline_input(schema: &mut Value) {
    let defs = schema
        .as_object_mut()
        .and_then(|object| object.remove("$defs"))
        .and_then(|defs| defs.as_object().cloned())
        .unwrap_or_default();
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    for property in properties.values_mut() {
        let Value::Object(object) = property else {
            continue;
        };
        if let Some(Value::Array(branches)) = object.get("anyOf") {
            let values: Vec<Value> = branches
                .iter()
                .filter(|branch| branch.get("type") != Some(&json!("null")))
                .cloned()
                .collect();
            if let [value] = values.as_slice() {
                let value = value.clone();
                object.remove("anyOf");
                if let Value::Object(fields) = value {
                    for (key, field) in fields {
                        object.entry(key).or_insert(field);
                    }
                }
            }
        }
        if let Some(reference) = object.remove("$ref") {
            let definition = reference
                .as_str()
                .and_then(|reference| reference.strip_prefix("#/$defs/"))
                .and_then(|name| defs.get(name));
            match definition {
                Some(Value::Object(fields)) => {
                    for (key, field) in fields {
                        object.entry(key.clone()).or_insert(field.clone());
                    }
                }
                _ => {
                    object.insert("$ref".into(), reference);
                }
            }
        }
        // Doc comments wrapped over lines read as one sentence.
        if let Some(Value::String(description)) = object.get_mut("description") {
            *description = description.split_whitespace().collect::<Vec<_>>().join(" ");
        }
        if object
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().all(Value::is_string))
        {
            object.remove("maxLength");
            object.remove("pattern");
        }
    }
}

/// Keeps an output schema to what a client validates against: the root (`result` and `citations` with
/// its four maps of records), the answer's own top-level fields with their types, and the error
/// shape. A nested record is typed `object` (an array of them `array` of `object`) without restating
/// its fields, which the tool description and the Rust docs carry; string enums stay. Schemas of
/// about 37 KB in all become a fraction of that, and `tools/list` fits hosts' tool-list limits.
pub fn shallow_output(schema: &mut Value) {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if let Some(result) = schema.pointer_mut("/properties/result/anyOf/0") {
        let mut answer = resolve(result, &defs).clone();
        for branch in ["anyOf", "oneOf"] {
            if let Some(Value::Array(variants)) = answer.get_mut(branch) {
                for variant in variants.iter_mut() {
                    *variant = resolve(variant, &defs).clone();
                    flatten_fields(variant, &defs);
                }
            }
        }
        flatten_fields(&mut answer, &defs);
        *result = answer;
    }
    // Every definition was inlined or typed away.
    if let Value::Object(root) = schema {
        root.remove("$defs");
    }
}

/// Replaces every `$ref` to `#/$defs/…` with the schema it names and drops `$defs` (for schemas whose
/// records are small and not recursive).
pub fn inline_refs(schema: &mut Value) {
    let defs = match schema.as_object_mut().and_then(|root| root.remove("$defs")) {
        Some(Value::Object(defs)) => defs,
        _ => return,
    };
    fn inline(schema: &mut Value, defs: &Map<String, Value>) {
        let named = resolve(schema, defs);
        if !std::ptr::eq(named, schema) {
            *schema = named.clone();
        }
        match schema {
            Value::Object(object) => object.values_mut().for_each(|child| inline(child, defs)),
            Value::Array(items) => items.iter_mut().for_each(|child| inline(child, defs)),
            _ => {}
        }
    }
    inline(schema, &defs);
}

/// The schema a `$ref` names in `defs`, else the schema itself.
fn resolve<'a>(schema: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("#/$defs/"))
        .and_then(|name| defs.get(name))
        .unwrap_or(schema)
}

/// Each property of `object_schema` keeps its type; a nested record becomes `{"type": "object"}`; a field
/// that may be null is left unconstrained (not listed): it is never required, and its type is the Rust
/// docs' business.
fn flatten_fields(object_schema: &mut Value, defs: &Map<String, Value>) {
    if let Some(Value::Object(properties)) = object_schema.get_mut("properties") {
        for property in properties.values_mut() {
            *property = shallow_field(property, defs);
        }
        properties.retain(|_, property| {
            !property
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.contains(&json!({"type": "null"})))
        });
    }
}

/// One field's schema with nested records typed `object` (see [`shallow_output`]).
fn shallow_field(schema: &Value, defs: &Map<String, Value>) -> Value {
    let target = resolve(schema, defs);
    if target.get("enum").is_some() {
        return json!({"type": "string", "enum": target["enum"]});
    }
    if let Some(Value::Array(branches)) = target.get("anyOf") {
        return json!({"anyOf": branches.iter().map(|branch| shallow_field(branch, defs)).collect::<Vec<_>>()});
    }
    match target.get("type").and_then(Value::as_str) {
        Some("object") => json!({"type": "object"}),
        Some("array") => match target.get("items") {
            Some(items) if target.get("prefixItems").is_none() => {
                json!({"type": "array", "items": shallow_field(items, defs)})
            }
            _ => target.clone(),
        },
        Some(_) => target.clone(),
        // A reference to a union of records, or anything else: a JSON value of that union.
        None => json!({}),
    }
}

/// A subschema: `true` (anything) becomes an explicit schema, then it is tidied; in an output schema
/// its prose goes.
fn tidy_subschema(schema: &mut Value, side: Side) {
    if schema == &Value::Bool(true) {
        // Every untyped value of the tools is a JSON object (a dataset row).
        *schema = json!({"type": "object"});
    }
    if side == Side::Output
        && let Value::Object(object) = schema
    {
        object.remove("description");
        object.remove("title");
        // Every property and type stays; which nested fields are always present is the Rust types'
        // business (the root keeps `result` and `citations` required).
        object.remove("required");
        if object.get("minimum") == Some(&json!(0)) {
            object.remove("minimum");
        }
    }
    tidy_schema(schema, side);
}

/// `oneOf` of string constants (a Rust enum) → `"enum"` of them: what every client renders as a choice
/// (the tool description says what each means).
fn string_enum(object: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = object.get("oneOf") else {
        return;
    };
    let constants: Option<Vec<Value>> = branches
        .iter()
        .map(|branch| {
            branch
                .get("const")
                .filter(|constant| constant.is_string())
                .cloned()
        })
        .collect();
    if let Some(constants) = constants {
        object.remove("oneOf");
        object.insert("type".into(), json!("string"));
        object.insert("enum".into(), Value::Array(constants));
    }
}

/// `"type": ["integer", "null"]` → the value's type alone (input), or `anyOf` of it and null (output).
fn nullable_type(object: &mut Map<String, Value>, side: Side) {
    let Some(Value::Array(types)) = object.get("type") else {
        return;
    };
    let kinds: Vec<Value> = types
        .iter()
        .filter(|kind| kind.as_str() != Some("null"))
        .cloned()
        .collect();
    let nullable = kinds.len() < types.len();
    let single = match kinds.as_slice() {
        [kind] => kind.clone(),
        _ => return,
    };
    if side == Side::Input || !nullable {
        object.insert("type".into(), single);
        return;
    }
    // Output: the value's own keywords move into the non-null branch.
    object.remove("type");
    let mut value_schema = Map::new();
    value_schema.insert("type".into(), single);
    for keyword in [
        "format",
        "minimum",
        "maximum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "additionalProperties",
        "enum",
        "prefixItems",
        "minLength",
        "maxLength",
        "pattern",
    ] {
        if let Some(value) = object.remove(keyword) {
            value_schema.insert(keyword.into(), value);
        }
    }
    object.insert(
        "anyOf".into(),
        json!([Value::Object(value_schema), {"type": "null"}]),
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Side, tidy};

    #[test]
    fn optional_integers_are_plain_integers_in_inputs_and_any_of_null_in_outputs() {
        let mut input = json!({"type": "object", "properties": {"limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 1}}});
        tidy(&mut input, Side::Input);
        assert_eq!(
            input["properties"]["limit"],
            json!({"type": "integer", "minimum": 1})
        );
        let mut output = json!({"type": "object", "properties": {"year": {"description": "Year.", "type": ["integer", "null"], "format": "int32"}}});
        tidy(&mut output, Side::Output);
        assert_eq!(
            output["properties"]["year"],
            json!({"anyOf": [{"type": "integer"}, {"type": "null"}]})
        );
    }

    #[test]
    fn published_inputs_inline_their_enums_without_caps_the_values_bound() {
        let mut input = json!({
            "$defs": {"Op": {"description": "Which.", "enum": ["change", "cagr"], "type": "string"}},
            "properties": {
                "op": {"$ref": "#/$defs/Op", "description": "The calculation.", "maxLength": 128, "pattern": "^[a-z]*$"},
                "order": {"anyOf": [{"$ref": "#/$defs/Op"}, {"type": "null"}], "description": "Order.", "maxLength": 128},
                "country": {"type": "string", "maxLength": 128}
            }
        });
        super::inline_input(&mut input);
        assert!(input.get("$defs").is_none());
        assert_eq!(
            input["properties"]["op"],
            json!({"description": "The calculation.", "enum": ["change", "cagr"], "type": "string"})
        );
        assert_eq!(
            input["properties"]["order"]["enum"],
            json!(["change", "cagr"])
        );
        assert!(input["properties"]["order"].get("anyOf").is_none());
        assert_eq!(input["properties"]["country"]["maxLength"], json!(128));
    }

    #[test]
    fn rust_enums_become_string_enums() {
        let mut schema = json!({"oneOf": [{"const": "asc", "type": "string", "description": "Smallest first."}, {"const": "desc", "type": "string"}]});
        tidy(&mut schema, Side::Input);
        assert_eq!(schema, json!({"type": "string", "enum": ["asc", "desc"]}));
    }

    #[test]
    fn bare_true_becomes_an_object_schema_and_standard_formats_stay() {
        let mut schema = json!({"type": "array", "items": true, "properties": {"at": {"type": "string", "format": "date"}}});
        tidy(&mut schema, Side::Input);
        assert_eq!(schema["items"], json!({"type": "object"}));
        assert_eq!(schema["properties"]["at"]["format"], json!("date"));
    }
}
