//! A JSON value that keeps the user's key order, and a printer in the hosts' usual style.
//!
//! Why not `serde_json::Value` with `preserve_order`: that Cargo feature is unified across
//! the whole workspace and would change key order (and so output and fingerprints) in every
//! other crate that serializes a `Value`. This type is local: parsed through serde_json's
//! deserializer (its error positions and its nesting limit of 128, so hostile input cannot
//! overflow the stack) into a vector of entries.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

/// An order-preserving JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Json>),
    /// Entries in file order. A key given twice keeps its first position and its last value
    /// (serde_json's own rule for duplicates).
    Object(Vec<(String, Json)>),
}

impl Json {
    pub(crate) fn str(s: &str) -> Json {
        Json::String(s.to_owned())
    }

    pub(crate) fn num(n: u64) -> Json {
        Json::Number(Number::from(n))
    }

    pub(crate) fn obj(entries: Vec<(&str, Json)>) -> Json {
        Json::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        )
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_object(&self) -> Option<&Vec<(String, Json)>> {
        match self {
            Json::Object(entries) => Some(entries),
            _ => None,
        }
    }

    /// The value under `key`, when `self` is an object that has it.
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        self.as_object()?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Semantic equality: object key order does not matter, everything else does.
    pub(crate) fn same(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Object(a), Json::Object(b)) => {
                a.len() == b.len()
                    && a.iter().all(|(k, v)| {
                        b.iter()
                            .find(|(k2, _)| k2 == k)
                            .is_some_and(|(_, v2)| v.same(v2))
                    })
            }
            (Json::Array(a), Json::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
            }
            _ => self == other,
        }
    }
}

/// Mutable access to an object's entries by key.
pub(crate) fn entry_mut<'a>(entries: &'a mut [(String, Json)], key: &str) -> Option<&'a mut Json> {
    entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Parses text as one JSON document (trailing garbage is an error).
pub(crate) fn parse(text: &str) -> Result<Json, String> {
    serde_json::from_str::<Json>(text).map_err(|e| e.to_string())
}

/// Prints `value` with two-space indentation (serde_json's pretty style) and a final newline.
pub(crate) fn render(value: &Json) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out.push('\n');
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_value(out: &mut String, value: &Json, level: usize) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(&n.to_string()),
        Json::String(s) => write_string(out, s),
        Json::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                indent(out, level + 1);
                write_value(out, item, level + 1);
            }
            out.push('\n');
            indent(out, level);
            out.push(']');
        }
        Json::Object(entries) => {
            if entries.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (key, item)) in entries.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                indent(out, level + 1);
                write_string(out, key);
                out.push_str(": ");
                write_value(out, item, level + 1);
            }
            out.push('\n');
            indent(out, level);
            out.push('}');
        }
    }
}

/// JSON string escaping as serde_json does it: `"`, `\` and control characters only.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(Number::from(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(Number::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom("number is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Json>()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries: Vec<(String, Json)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            match entry_mut(&mut entries, &key) {
                Some(slot) => *slot = value,
                None => entries.push((key, value)),
            }
        }
        Ok(Json::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_key_order_and_round_trips_pretty_text() {
        let text = "{\n  \"z\": 1,\n  \"a\": [\n    true,\n    null,\n    -2.5\n  ],\n  \"m\": {},\n  \"e\": []\n}\n";
        let v = parse(text).unwrap();
        assert_eq!(render(&v), text);
    }

    #[test]
    fn matches_serde_json_pretty_output_byte_for_byte() {
        // Keys already sorted, so serde_json (without preserve_order) keeps the same order.
        let text = r#"{"a":{"w":1.0e3,"x":[1,{"y":2}]},"b":"q\"uo\\te\n\u0001\u001fé/","e":[],"m":{},"n":18446744073709551615,"z":[-1,0.5,true,null]}"#;
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let expected = serde_json::to_string_pretty(&v).unwrap() + "\n";
        assert_eq!(render(&parse(text).unwrap()), expected);
    }

    #[test]
    fn duplicate_keys_keep_first_position_last_value() {
        let v = parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(render(&v), "{\n  \"a\": 3,\n  \"b\": 2\n}\n");
    }

    #[test]
    fn rejects_malformed_and_deep_input_without_panicking() {
        assert!(parse("{").is_err());
        assert!(parse("{} x").is_err());
        assert!(parse("").is_err());
        let deep = "[".repeat(100_000);
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn semantic_equality_ignores_key_order_only() {
        let a = parse(r#"{"a":1,"b":[1,2]}"#).unwrap();
        let b = parse(r#"{"b":[1,2],"a":1}"#).unwrap();
        let c = parse(r#"{"b":[2,1],"a":1}"#).unwrap();
        assert!(a.same(&b));
        assert!(!a.same(&c));
    }
}
