//! Input the entry point could not understand.
//!
//! **What it does:** an action that could not be normalised (empty, truncated, non-UTF-8,
//! unknown-shaped input) is BLOCK; a tool the entry point does not know is AUTH.
//! **Why:** fail closed — what we cannot read, we cannot judge, so it never passes.
//! **Example:** a hook receives `{"tool_name": 5}` → `unparseable_input`.

use crate::action::Operation;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const UNPARSEABLE_INPUT: Reason = Reason::new(
    "unparseable_input",
    "The tool call could not be read, so it cannot be judged safe.",
);
pub const UNKNOWN_TOOL: Reason = Reason::new(
    "unknown_tool",
    "This tool is not one Airlock knows how to judge; a human must look.",
);

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    match &cx.action.op {
        Operation::Unparseable { .. } => out.push(Finding::hard_block(UNPARSEABLE_INPUT)),
        Operation::UnknownTool { .. } => out.push(Finding::new(UNKNOWN_TOOL, Verdict::Auth)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::action::{Action, Host, Operation, Provenance};
    use crate::policy::Mode;
    use crate::rules::testutil::engine;
    use crate::{SessionState, Verdict};

    #[test]
    fn table() {
        let cases = [
            (
                Operation::Unparseable { reason: "x".into() },
                Verdict::Block,
                "unparseable_input",
            ),
            (
                Operation::UnknownTool {
                    tool: "Frobnicate".into(),
                },
                Verdict::Auth,
                "unknown_tool",
            ),
            (
                Operation::Internal {
                    tool: "TodoWrite".into(),
                },
                Verdict::Pass,
                "",
            ),
        ];
        for mode in Mode::ALL {
            for (op, want, code) in &cases {
                let a = Action {
                    host: Host::ClaudeCode,
                    tool: "t".into(),
                    op: op.clone(),
                    cwd: None,
                    provenance: Provenance::User,
                    session_id: None,
                };
                let d = engine(mode).decide(&a, &SessionState::default());
                assert_eq!(d.verdict, *want, "{op:?} {mode}");
                if !code.is_empty() {
                    assert_eq!(d.codes(), vec![*code]);
                }
            }
        }
    }
}
