//! The replacements an edit tool makes (`old_string` → `new_string`), read from any host's
//! payload, so the approval popup can show an edit as a diff. The [`Action`] carries only the
//! new text (what the engine judges); this is display data beside it.
//!
//! [`Action`]: airlock_engine::Action

use airlock_engine::TextEdit;
use serde_json::Value;

use crate::hosts::common::args_value;

/// Most edits read from one payload.
const MAX_EDITS: usize = 64;

/// (old, new) key pairs the hosts use.
const PAIRS: &[(&str, &str)] = &[
    ("old_string", "new_string"),
    ("old_str", "new_str"),
    ("oldString", "newString"),
];

fn pair(v: &Value) -> Option<TextEdit> {
    PAIRS.iter().find_map(|(o, n)| {
        let old = v.get(*o).and_then(Value::as_str)?;
        let new = v.get(*n).and_then(Value::as_str)?;
        Some(TextEdit {
            old: old.to_owned(),
            new: new.to_owned(),
        })
    })
}

/// The edits in a hook payload's tool input (`tool_input`, or Copilot's `toolArgs`): one
/// `old_string`/`new_string` pair, or an `edits` list of them. Empty when there are none or
/// the payload is not readable (the popup then shows the write without a diff).
pub fn text_edits(payload: &[u8]) -> Vec<TextEdit> {
    let Ok(v) = crate::read_payload(payload) else {
        return Vec::new();
    };
    let Some(ti) = args_value(v.get("tool_input").or_else(|| v.get("toolArgs"))) else {
        return Vec::new();
    };
    let mut out: Vec<TextEdit> = pair(&ti).into_iter().collect();
    if let Some(list) = ti.get("edits").and_then(Value::as_array) {
        out.extend(list.iter().filter_map(pair));
    }
    out.truncate(MAX_EDITS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_from_each_shape() {
        let cases: &[(&str, &[(&str, &str)])] = &[
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/a","old_string":"x","new_string":"y"}}"#,
                &[("x", "y")],
            ),
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"/a","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}}"#,
                &[("a", "b"), ("c", "d")],
            ),
            (
                r#"{"toolName":"edit","toolArgs":"{\"path\":\"/a\",\"old_str\":\"p\",\"new_str\":\"q\"}"}"#,
                &[("p", "q")],
            ),
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/a","content":"z"}}"#,
                &[],
            ),
            ("not json", &[]),
        ];
        for (payload, want) in cases {
            let got: Vec<(String, String)> = text_edits(payload.as_bytes())
                .into_iter()
                .map(|e| (e.old, e.new))
                .collect();
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(o, n)| ((*o).to_owned(), (*n).to_owned()))
                .collect();
            assert_eq!(got, want, "{payload}");
        }
    }
}
