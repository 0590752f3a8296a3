//! Argument validation against a tool's advertised input schema, reporting in the wording
//! clients of ptc-fs-mcp already parse (`data/limit must be >= 1`, comma-joined).
//!
//! Only the schema keywords fsmcp's tools use are understood: `type`, `properties`,
//! `required`, `additionalProperties: false`, `minLength`, `minimum`, `maximum`, `items`,
//! `minItems`, `maxItems`, `enum`.

use serde_json::{Map, Value};

/// Every violation of `schema` by `data`, in schema order; empty when valid.
pub fn violations(schema: &Value, data: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, data, "data", &mut errors);
    errors
}

/// [`violations`] of an object, as if the keys in `skipped` were absent (without copying it).
pub fn object_violations(
    schema: &Value,
    data: &Map<String, Value>,
    skipped: &[&str],
) -> Vec<String> {
    let mut errors = Vec::new();
    if let Some(kind) = schema.get("type").and_then(Value::as_str)
        && kind != "object"
    {
        errors.push(format!("data must be {kind}"));
        return errors;
    }
    check_object(schema, data, "data", skipped, &mut errors);
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

fn check(schema: &Value, data: &Value, path: &str, errors: &mut Vec<String>) {
    if let Some(kind) = schema.get("type").and_then(Value::as_str)
        && !has_type(kind, data)
    {
        errors.push(format!("{path} must be {kind}"));
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(data)
    {
        errors.push(format!("{path} must be equal to one of the allowed values"));
        return;
    }
    match data {
        Value::Object(map) => check_object(schema, map, path, &[], errors),
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
                    check(item_schema, item, &format!("{path}/{i}"), errors);
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
                errors.push(format!("{path} must NOT have additional properties"));
            }
        }
    }
    for (name, sub) in properties.into_iter().flatten() {
        if let Some(value) = map.get(name).filter(|_| present(name)) {
            check(sub, value, &format!("{path}/{name}"), errors);
        }
    }
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
                object_violations(&schema, map, &["_reserved"]),
                violations(&schema, &Value::Object(copy)),
                "{data}"
            );
        }
        // A skipped key the schema requires is missing.
        assert_eq!(
            object_violations(&schema, json!({"path":"a"}).as_object().unwrap(), &["path"]),
            ["data must have required property 'path'"]
        );
    }
}
