//! The proxy's own tools, appended to every `tools/list` and answered without the server.
//!
//! The `airlock__` prefix is reserved: a server tool with that prefix is hidden, so a server
//! cannot impersonate Airlock.

use serde_json::{Value, json};

pub const PREFIX: &str = "airlock__";
pub const STATUS: &str = "airlock__status";
pub const RECENT: &str = "airlock__recent_decisions";

pub fn is_reserved(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// The tool definitions, as listed to the client.
pub fn definitions() -> Vec<Value> {
    let ro = json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false});
    vec![
        json!({
            "name": STATUS,
            "title": "Airlock status",
            "description": "Airlock's view of this MCP server: strictness mode, enforcement, whether this session has read secrets or untrusted content, and which tools Airlock hides (changed or poisoned definitions).",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": ro,
        }),
        json!({
            "name": RECENT,
            "title": "Airlock recent decisions",
            "description": "The latest decisions Airlock made on this session's tool calls: tool, verdict, outcome and reason codes (never arguments).",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many decisions (default 20)."}
                }
            },
            "annotations": ro,
        }),
    ]
}

/// A successful text result carrying JSON.
pub fn text_result(v: &Value) -> Value {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    json!({"content": [{"type": "text", "text": text}], "structuredContent": v_wrap(v), "isError": false})
}

fn v_wrap(v: &Value) -> Value {
    // structuredContent must be an object.
    if v.is_object() {
        v.clone()
    } else {
        json!({"items": v})
    }
}

/// An error result (`isError: true`) with one text item.
pub fn error_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_reserved_and_well_formed() {
        for d in definitions() {
            let name = d["name"].as_str().unwrap();
            assert!(is_reserved(name));
            assert_eq!(d["inputSchema"]["type"], "object");
            assert!(crate::pins::poisoning(&d).is_empty(), "{name}");
        }
        assert!(!is_reserved("read_file"));
        assert_eq!(
            text_result(&json!([1]))["structuredContent"]["items"],
            json!([1])
        );
    }
}
