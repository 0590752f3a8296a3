//! Argument validation against a tool's advertised input schema, reporting in the wording
//! clients of ptc-fs-mcp already parse (`data/limit must be >= 1`, comma-joined).
//!
//! Only the schema keywords fsmcp's tools use are understood: `type`, `properties`,
//! `required`, `additionalProperties: false`, `minLength`, `minimum`, `maximum`, `items`,
//! `minItems`, `maxItems`, `enum`.

use serde_json::{Map, Value};

/// How violations are worded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wording {
    /// The reference toolkit's words, which its clients parse (the `ptc` tools).
    Reference,
    /// For a model (the fs tools): an unknown argument is named, with the nearest valid one
    /// or the list of all; an `enum` lists its values.
    Model,
}

/// Every violation of `schema` by `data`, in schema order; empty when valid.
pub fn violations(schema: &Value, data: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, data, "data", Wording::Reference, &mut errors);
    errors
}

/// [`violations`] of an object, as if the keys in `skipped` were absent (without copying it).
pub fn object_violations(
    schema: &Value,
    data: &Map<String, Value>,
    skipped: &[&str],
    wording: Wording,
) -> Vec<String> {
    let mut errors = Vec::new();
    if let Some(kind) = schema.get("type").and_then(Value::as_str)
        && kind != "object"
    {
        errors.push(format!("data must be {kind}"));
        return errors;
    }
    check_object(schema, data, "data", skipped, wording, &mut errors);
    errors
}

fn is_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

fn has_type(kind: &str, value: &Value) -> bool {
    match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => is_integer(value),
        "number" => value.is_number(),
        _ => true,
    }
}

fn check(schema: &Value, data: &Value, path: &str, wording: Wording, errors: &mut Vec<String>) {
    if let Some(kind) = schema.get("type").and_then(Value::as_str)
        && !has_type(kind, data)
    {
        errors.push(format!("{path} must be {kind}"));
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(data)
    {
        errors.push(match wording {
            Wording::Reference => format!("{path} must be equal to one of the allowed values"),
            Wording::Model => format!(
                "{path} must be one of {}",
                allowed
                    .iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
        return;
    }
    match data {
        Value::Object(map) => check_object(schema, map, path, &[], wording, errors),
        Value::String(text) => {
            if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
                && (text.chars().count() as u64) < min
            {
                errors.push(format!("{path} must NOT have fewer than {min} characters"));
            }
        }
        Value::Number(n) => {
            let value = n.as_f64().unwrap_or(f64::NAN);
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && value > max
            {
                errors.push(format!("{path} must be <= {}", schema["maximum"]));
            }
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && value < min
            {
                errors.push(format!("{path} must be >= {}", schema["minimum"]));
            }
        }
        Value::Array(items) => {
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
                && items.len() as u64 > max
            {
                errors.push(format!("{path} must NOT have more than {max} items"));
            }
            if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
                && (items.len() as u64) < min
            {
                errors.push(format!("{path} must NOT have fewer than {min} items"));
            }
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(item_schema, item, &format!("{path}/{i}"), wording, errors);
                }
            }
        }
        _ => {}
    }
}

fn check_object(
    schema: &Value,
    map: &Map<String, Value>,
    path: &str,
    skipped: &[&str],
    wording: Wording,
    errors: &mut Vec<String>,
) {
    let present = |key: &str| map.contains_key(key) && !skipped.contains(&key);
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(name) = name.as_str()
            && !present(name)
        {
            errors.push(format!("{path} must have required property '{name}'"));
        }
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        for key in map.keys().filter(|key| !skipped.contains(&key.as_str())) {
            if !properties.is_some_and(|p| p.contains_key(key)) {
                errors.push(match wording {
                    Wording::Reference => format!("{path} must NOT have additional properties"),
                    Wording::Model => unknown_argument(key, properties),
                });
            }
        }
    }
    for (name, sub) in properties.into_iter().flatten() {
        if let Some(value) = map.get(name).filter(|_| present(name)) {
            check(sub, value, &format!("{path}/{name}"), wording, errors);
        }
    }
}

/// The model's refusal of an argument the schema does not have: its nearest valid name when
/// one is near (a typo, a prefix), else every valid name.
fn unknown_argument(key: &str, properties: Option<&Map<String, Value>>) -> String {
    let names: Vec<&str> = properties
        .into_iter()
        .flat_map(|p| p.keys())
        .map(String::as_str)
        .collect();
    let wanted = kebab(key);
    let nearest = names
        .iter()
        .map(|name| (crate::spelling::edit_distance(&wanted, name), *name))
        .filter(|(distance, name)| {
            *distance <= 2.max(name.len() / 4)
                || name.starts_with(&wanted)
                || wanted.starts_with(*name)
        })
        .min();
    match nearest {
        Some((_, name)) => {
            format!("'{key}' is not an argument of this tool; did you mean '{name}'?")
        }
        None => format!(
            "'{key}' is not an argument of this tool; its arguments are {}",
            names
                .iter()
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// How the fs tools spell an argument another tool writes in snake or camel case
/// (`old_string`, `maxResults` → `old-string`, `max-results`).
#[must_use]
fn kebab(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 2);
    for (i, c) in key.chars().enumerate() {
        if c == '_' {
            out.push('-');
        } else if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('-') {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The arguments respelled as the schema names them, when some are written in another
/// tool's case (`old_string` for `old-string`), in the objects of a list too (`edits`):
/// `Ok(None)` when none is, the respelled copy otherwise, and a refusal naming both when one
/// argument is given twice in two spellings.
pub fn respelled(
    schema: &Value,
    data: &Map<String, Value>,
) -> Result<Option<Map<String, Value>>, String> {
    // Checked before anything is copied: arguments can be megabytes.
    if !needs_respelling(schema, data) {
        return Ok(None);
    }
    respell(schema, data).map(Some)
}

/// The schema's name for `key` when `key` is another spelling of one of `properties`.
fn alias(properties: &Map<String, Value>, key: &str) -> Option<String> {
    if properties.contains_key(key) {
        return None;
    }
    let spelled = kebab(key);
    properties.contains_key(&spelled).then_some(spelled)
}

/// The schema of the objects a property's list holds, if it holds objects.
fn item_schema<'a>(properties: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    properties
        .get(name)
        .and_then(|p| p.get("items"))
        .filter(|items| items.get("properties").is_some())
}

fn needs_respelling(schema: &Value, data: &Map<String, Value>) -> bool {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return false;
    };
    data.iter().any(|(key, value)| {
        alias(properties, key).is_some()
            || item_schema(properties, key).is_some_and(|items| {
                value.as_array().is_some_and(|list| {
                    list.iter()
                        .filter_map(Value::as_object)
                        .any(|item| needs_respelling(items, item))
                })
            })
    })
}

fn respell(schema: &Value, data: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(data.clone());
    };
    let mut respelled = Map::new();
    for (key, value) in data {
        let name = alias(properties, key).unwrap_or_else(|| key.clone());
        if respelled.contains_key(&name) {
            let other = data
                .keys()
                .find(|k| {
                    *k != key && (**k == name || alias(properties, k).as_deref() == Some(&name))
                })
                .cloned()
                .unwrap_or_default();
            return Err(format!(
                "'{other}' and '{key}' are one argument, '{name}': give it once"
            ));
        }
        let value = match (item_schema(properties, &name), value) {
            (Some(items), Value::Array(list)) => Value::Array(
                list.iter()
                    .map(|item| match item {
                        Value::Object(object) => respell(items, object).map(Value::Object),
                        other => Ok(other.clone()),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            _ => value.clone(),
        };
        respelled.insert(name, value);
    }
    Ok(respelled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_like_the_reference() {
        let schema = json!({"type":"object","properties":{
            "path":{"type":"string","minLength":1},
            "any_of":{"type":"array","items":{"type":"string","minLength":1},"minItems":1,"maxItems":16},
            "limit":{"type":"integer","minimum":1,"maximum":8}},
            "required":["path"],"additionalProperties":false});
        let cases = [
            (json!({"path":"a","limit":0}), "data/limit must be >= 1"),
            (json!({"path":"a","limit":9}), "data/limit must be <= 8"),
            (
                json!({"path":"a","limit":1.5}),
                "data/limit must be integer",
            ),
            (
                json!({"path":"a","limit":"many"}),
                "data/limit must be integer",
            ),
            (
                json!({"path":"a","limit":null}),
                "data/limit must be integer",
            ),
            (
                json!({"path":"a","limit":true}),
                "data/limit must be integer",
            ),
            (
                json!({"path":""}),
                "data/path must NOT have fewer than 1 characters",
            ),
            (json!({"path":7}), "data/path must be string"),
            (json!({}), "data must have required property 'path'"),
            (
                json!({"path":"a","x":1,"limit":0}),
                "data must NOT have additional properties, data/limit must be >= 1",
            ),
            (
                json!({"path":"a","any_of":[]}),
                "data/any_of must NOT have fewer than 1 items",
            ),
            (
                json!({"path":"a","any_of":["a",2]}),
                "data/any_of/1 must be string",
            ),
            (
                json!({"path":"a","any_of":["a",""]}),
                "data/any_of/1 must NOT have fewer than 1 characters",
            ),
        ];
        for (data, expected) in cases {
            assert_eq!(violations(&schema, &data).join(", "), expected, "{data}");
        }
        // An integral float is an integer, as JSON has only numbers; the maximum still applies.
        assert_eq!(
            violations(&schema, &json!({"path":"a","limit":1e20})),
            ["data/limit must be <= 8"]
        );
        assert!(violations(&schema, &json!({"path":"a","limit":2.0})).is_empty());
    }

    #[test]
    fn skipped_keys_count_as_absent() {
        let schema = json!({"type":"object","properties":{"path":{"type":"string"}},
            "required":["path"],"additionalProperties":false});
        for data in [
            json!({"path":"a","_reserved":1}),
            json!({"_reserved":1}),
            json!({"path":7,"x":1}),
            json!({}),
        ] {
            let map = data.as_object().unwrap();
            let mut copy = map.clone();
            copy.remove("_reserved");
            assert_eq!(
                object_violations(&schema, map, &["_reserved"], Wording::Reference),
                violations(&schema, &Value::Object(copy)),
                "{data}"
            );
        }
        // A skipped key the schema requires is missing.
        assert_eq!(
            object_violations(
                &schema,
                json!({"path":"a"}).as_object().unwrap(),
                &["path"],
                Wording::Reference
            ),
            ["data must have required property 'path'"]
        );
    }

    #[test]
    fn a_model_is_told_which_argument_and_what_it_may_be() {
        let schema = json!({"type":"object","properties":{
            "path":{"type":"string"},
            "old-string":{"type":"string"},
            "new-string":{"type":"string"},
            "replace-all":{"type":"boolean"},
            "output":{"type":"string","enum":["lines","files","count"]}},
            "required":["path"],"additionalProperties":false});
        let model = |data: Value| {
            object_violations(&schema, data.as_object().unwrap(), &[], Wording::Model).join(", ")
        };
        assert_eq!(
            model(json!({"path":"a","old_str":"x"})),
            "'old_str' is not an argument of this tool; did you mean 'old-string'?"
        );
        assert_eq!(
            model(json!({"path":"a","text":"x","pth":"y"})),
            "'text' is not an argument of this tool; its arguments are 'path', 'old-string', \
             'new-string', 'replace-all', 'output', \
             'pth' is not an argument of this tool; did you mean 'path'?"
        );
        assert_eq!(
            model(json!({"path":"a","output":"all"})),
            r#"data/output must be one of "lines", "files", "count""#
        );
        // The reference wording is unchanged.
        assert_eq!(
            object_violations(
                &schema,
                json!({"path":"a","old_str":"x"}).as_object().unwrap(),
                &[],
                Wording::Reference
            ),
            ["data must NOT have additional properties"]
        );
    }

    #[test]
    fn snake_and_camel_spellings_are_the_schemas_arguments() {
        let schema = json!({"type":"object","properties":{
            "old-string":{"type":"string"},"max-results":{"type":"integer"},"path":{"type":"string"}}});
        let respelled = |data: Value| respelled(&schema, data.as_object().unwrap());
        assert_eq!(respelled(json!({"path":"a","old-string":"x"})), Ok(None));
        assert_eq!(
            respelled(json!({"old_string":"x","maxResults":3}))
                .unwrap()
                .map(Value::Object),
            Some(json!({"old-string":"x","max-results":3}))
        );
        assert_eq!(
            respelled(json!({"old_string":"x","old-string":"y"})),
            Err(
                "'old_string' and 'old-string' are one argument, 'old-string': give it once"
                    .to_owned()
            )
        );
        let listed = json!({"type":"object","properties":{
            "edits":{"type":"array","items":{"type":"object","properties":{
                "old-string":{"type":"string"},"replace-all":{"type":"boolean"}}}}}});
        assert_eq!(
            super::respelled(
                &listed,
                json!({"edits":[{"old_string":"a","replaceAll":true}]})
                    .as_object()
                    .unwrap()
            )
            .unwrap()
            .map(Value::Object),
            Some(json!({"edits":[{"old-string":"a","replace-all":true}]}))
        );
        assert_eq!(kebab("replaceAll"), "replace-all");
        assert_eq!(kebab("dry_run"), "dry-run");
    }
}
