//! Codec layer: one frame ↔ one JSON-RPC 2.0 message.
//!
//! Messages are kept as `serde_json::Value`, so every field the proxy does not inspect (and
//! every method it does not know) passes through unchanged in meaning. Decoding only checks the
//! JSON-RPC envelope; what a method's params mean is the policy layer's business.
//!
//! Batches (JSON arrays) are refused: MCP removed them (2025-06-18), and a batch could carry a
//! `tools/call` past a proxy that only looks at single messages.

use serde_json::{Map, Value, json};

/// JSON-RPC error codes the proxy answers with.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// A request Airlock refused (a blocked or unapproved `resources/read`); in the
    /// implementation-defined server-error range.
    pub const BLOCKED: i64 = -32001;
}

/// A decoded message. `raw` is the whole object as received.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: Value,
        method: String,
        raw: Value,
    },
    Notification {
        method: String,
        raw: Value,
    },
    Response {
        id: Value,
        raw: Value,
    },
}

/// Why a frame is not a usable JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum DecodeError {
    /// Not JSON (or not UTF-8).
    Parse,
    /// JSON, but not a valid JSON-RPC 2.0 message; `id` when one could be read.
    Invalid {
        id: Option<Value>,
        why: &'static str,
    },
}

impl DecodeError {
    /// The JSON-RPC error to send back to whoever sent the frame.
    pub fn to_error(&self) -> Value {
        match self {
            DecodeError::Parse => error(&Value::Null, code::PARSE_ERROR, "Parse error: not JSON"),
            DecodeError::Invalid { id, why } => error(
                id.as_ref().unwrap_or(&Value::Null),
                code::INVALID_REQUEST,
                &format!("Invalid Request: {why}"),
            ),
        }
    }
}

fn valid_id(v: &Value) -> bool {
    match v {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

/// Decode one frame.
pub fn decode(bytes: &[u8]) -> Result<Message, DecodeError> {
    let v: Value = serde_json::from_slice(bytes).map_err(|_| DecodeError::Parse)?;
    classify(v)
}

/// Classify an already parsed value.
pub fn classify(v: Value) -> Result<Message, DecodeError> {
    let obj = match &v {
        Value::Object(o) => o,
        Value::Array(_) => {
            return Err(DecodeError::Invalid {
                id: None,
                why: "batches are not supported",
            });
        }
        _ => {
            return Err(DecodeError::Invalid {
                id: None,
                why: "a message must be a JSON object",
            });
        }
    };
    let id = obj.get("id").cloned();
    let usable_id = id.clone().filter(valid_id);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(DecodeError::Invalid {
            id: usable_id,
            why: "`jsonrpc` must be \"2.0\"",
        });
    }
    match obj.get("method") {
        Some(Value::String(method)) => {
            let method = method.clone();
            if let Some(p) = obj.get("params")
                && !(p.is_object() || p.is_array())
            {
                return Err(DecodeError::Invalid {
                    id: usable_id,
                    why: "`params` must be an object or an array",
                });
            }
            match id {
                None => Ok(Message::Notification { method, raw: v }),
                Some(id) if valid_id(&id) => Ok(Message::Request { id, method, raw: v }),
                Some(_) => Err(DecodeError::Invalid {
                    id: None,
                    why: "`id` must be a string or an integer",
                }),
            }
        }
        Some(_) => Err(DecodeError::Invalid {
            id: usable_id,
            why: "`method` must be a string",
        }),
        None => {
            let has_result = obj.contains_key("result");
            let has_error = obj.contains_key("error");
            match (id, has_result, has_error) {
                (Some(id), true, false) | (Some(id), false, true)
                    if valid_id(&id) || (id.is_null() && has_error) =>
                {
                    Ok(Message::Response { id, raw: v })
                }
                _ => Err(DecodeError::Invalid {
                    id: usable_id,
                    why: "neither a request, a notification nor a response",
                }),
            }
        }
    }
}

/// Map key for an id: its JSON text (`1` and `"1"` stay distinct, as JSON-RPC requires).
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

/// A JSON-RPC error response.
pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A JSON-RPC success response.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A request from the proxy itself.
pub fn request(id: &Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A notification from the proxy itself.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// `params` of a message as an object (empty when absent or not an object).
pub fn params(raw: &Value) -> Map<String, Value> {
    raw.get("params")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// Serialise a message as one frame (compact JSON never contains a raw newline).
pub fn encode(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_else(|_| b"{}".to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_messages() {
        let cases: &[(&str, &str)] = &[
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
                "request",
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"x/y","params":{"k":[1]},"extra":true}"#,
                "request",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "notification",
            ),
            (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, "response"),
            (
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
                "response",
            ),
        ];
        for (text, want) in cases {
            let got = match decode(text.as_bytes()).unwrap() {
                Message::Request { .. } => "request",
                Message::Notification { .. } => "notification",
                Message::Response { .. } => "response",
            };
            assert_eq!(got, *want, "{text}");
        }
    }

    #[test]
    fn unknown_fields_survive() {
        let text = r#"{"jsonrpc":"2.0","id":7,"method":"vendor/thing","params":{"a":{"b":[1,2,{"c":null}]}},"x-extra":"kept"}"#;
        let Message::Request { raw, .. } = decode(text.as_bytes()).unwrap() else {
            panic!("not a request")
        };
        let original: Value = serde_json::from_str(text).unwrap();
        assert_eq!(raw, original);
        assert_eq!(
            serde_json::from_slice::<Value>(&encode(&raw)).unwrap(),
            original
        );
    }

    #[test]
    fn refuses_bad_envelopes_with_the_id_when_known() {
        let cases: &[(&[u8], Option<Value>)] = &[
            (b"not json", None),
            (b"\xff\xfe", None),
            (br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call"}]"#, None),
            (br#"{"id":3,"method":"tools/list"}"#, Some(json!(3))),
            (
                br#"{"jsonrpc":"1.0","id":"q","method":"m"}"#,
                Some(json!("q")),
            ),
            (br#"{"jsonrpc":"2.0","id":4,"method":5}"#, Some(json!(4))),
            (br#"{"jsonrpc":"2.0","id":{"x":1},"method":"m"}"#, None),
            (br#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#, None),
            (
                br#"{"jsonrpc":"2.0","id":5,"method":"m","params":"s"}"#,
                Some(json!(5)),
            ),
            (br#"{"jsonrpc":"2.0","id":6}"#, Some(json!(6))),
            (
                br#"{"jsonrpc":"2.0","id":6,"result":1,"error":{}}"#,
                Some(json!(6)),
            ),
            (b"42", None),
        ];
        for (bytes, want_id) in cases {
            let err = decode(bytes).unwrap_err();
            let e = err.to_error();
            assert_eq!(
                e.get("id").cloned().unwrap_or(Value::Null),
                want_id.clone().unwrap_or(Value::Null),
                "{}",
                String::from_utf8_lossy(bytes)
            );
            let code = e["error"]["code"].as_i64().unwrap();
            assert!(code == code::PARSE_ERROR || code == code::INVALID_REQUEST);
        }
    }

    #[test]
    fn id_keys_keep_types_apart() {
        assert_ne!(id_key(&json!(1)), id_key(&json!("1")));
        assert_eq!(id_key(&json!("a")), id_key(&json!("a")));
    }
}
