//! Shell text Airlock could not see through.
//!
//! **What it does:** turns the walker's [`ShellIssue`]s into verdicts: unparseable or
//! oversized commands and computed command names are AUTH; code decoded from base64/hex and
//! run is AUTH when we could decode and inspect it, BLOCK when we could not.
//! **Why:** a command that cannot be understood is never PASS; obfuscation is an attack tell.
//! **Example:** `echo cm0gLXJmIC8K | base64 -d | sh` → `obfuscated_exec` (and the decoded
//! `rm -rf /` is judged too).

use crate::shell::ShellIssue;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const UNPARSEABLE_COMMAND: Reason = Reason::new(
    "unparseable_command",
    "The shell command could not be parsed, so it cannot be judged safe.",
);
pub const OVERSIZED_INPUT: Reason = Reason::new(
    "oversized_input",
    "The command is too large or too deeply nested to analyse.",
);
pub const DYNAMIC_COMMAND: Reason = Reason::new(
    "dynamic_command",
    "The program to run is computed at run time, so it cannot be checked.",
);
pub const DYNAMIC_EVAL: Reason = Reason::new(
    "dynamic_eval",
    "Text computed at run time is executed as code.",
);
pub const OBFUSCATED_EXEC: Reason = Reason::new(
    "obfuscated_exec",
    "Encoded or obfuscated text is decoded and executed.",
);
pub const PIPE_TO_SHELL: Reason = Reason::new(
    "pipe_to_shell",
    "Another program's output is executed as a script.",
);
pub const OPAQUE_INLINE_CODE: Reason = Reason::new(
    "opaque_inline_code",
    "Inline interpreter code computes what it runs or where it connects.",
);

pub const UNSEEN_EXECUTED_FILE: Reason = Reason::new(
    "unseen_executed_file",
    "Runs a file (script, Makefile, package script, git hook) whose content Airlock could not see.",
);
pub const INTERACTIVE_SHELL: Reason = Reason::new(
    "interactive_shell",
    "Starts an interactive shell through another program.",
);

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(sa) = cx.shell else {
        return;
    };
    for issue in &sa.issues {
        let f = match issue {
            ShellIssue::Unparseable => Finding::new(UNPARSEABLE_COMMAND, Verdict::Auth),
            ShellIssue::TooLarge | ShellIssue::TooDeep => {
                Finding::new(OVERSIZED_INPUT, Verdict::Auth)
            }
            ShellIssue::DynamicCommand => Finding::new(DYNAMIC_COMMAND, Verdict::Auth),
            ShellIssue::DynamicEval => Finding::new(DYNAMIC_EVAL, Verdict::Auth),
            ShellIssue::DecodedToShell { decoded: true } => {
                Finding::new(OBFUSCATED_EXEC, Verdict::Auth)
            }
            ShellIssue::DecodedToShell { decoded: false } => {
                Finding::new(OBFUSCATED_EXEC, Verdict::Block)
            }
            ShellIssue::PipeToShell => Finding::new(PIPE_TO_SHELL, Verdict::Auth),
            ShellIssue::OpaqueInlineCode => Finding::new(OPAQUE_INLINE_CODE, Verdict::Auth),
            ShellIssue::UnseenFile => Finding::new(UNSEEN_EXECUTED_FILE, Verdict::Auth),
            ShellIssue::InteractiveShell => Finding::new(INTERACTIVE_SHELL, Verdict::Auth),
            // Judged by the supply-chain rule.
            ShellIssue::NetworkToShell => continue,
        };
        out.push(f);
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn issues() {
        table(
            Mode::Balanced,
            &[
                ("echo 'unterminated", Auth, "unparseable_command"),
                ("$CMD -rf build", Auth, "dynamic_command"),
                ("eval \"$PAYLOAD\"", Auth, "dynamic_eval"),
                (
                    "echo cm0gLXJmIC8K | base64 -d | sh",
                    Block,
                    "destructive_rm",
                ),
                (
                    "echo ZWNobyBoaQ== | base64 -d | sh",
                    Auth,
                    "obfuscated_exec",
                ),
                ("cat blob | base64 -d | bash", Block, "obfuscated_exec"),
                ("cat install.sh | bash", Auth, "pipe_to_shell"),
                (
                    "python3 -c \"import base64;exec(base64.b64decode('cHJpbnQoMSk='))\"",
                    Auth,
                    "opaque_inline_code",
                ),
                ("echo hello | tr a-z A-Z", Pass, ""),
                ("python3 -c 'print(1+1)'", Pass, ""),
                // Decoded to a file from what Airlock cannot read, then run: the same as
                // piping the decoder into a shell.
                (
                    "base64 -d assets/banner.txt > /tmp/b && chmod +x /tmp/b && /tmp/b",
                    Block,
                    "obfuscated_exec",
                ),
                (
                    "openssl enc -d -base64 -in notes.txt -out /tmp/x; bash /tmp/x",
                    Block,
                    "obfuscated_exec",
                ),
                (
                    "xxd -r -p blob.hex run.py && python3 run.py",
                    Block,
                    "obfuscated_exec",
                ),
                (
                    "base64 -D -i a.b64 -o t.sh && source t.sh",
                    Block,
                    "obfuscated_exec",
                ),
                // Decoded and only read or shown.
                (
                    "base64 -d cert.b64 > cert.pem && openssl x509 -in cert.pem -noout -text",
                    Pass,
                    "",
                ),
                ("xxd -r -p blob.hex out.bin && sha256sum out.bin", Pass, ""),
                ("echo aGVsbG8K | base64 -d > x.txt && cat x.txt", Pass, ""),
            ],
        );
    }

    #[test]
    fn huge_and_deep_inputs_are_not_pass() {
        let big = format!("echo {}", "a".repeat(100_000));
        let deep = format!("echo {}x{}", "$(".repeat(200), ")".repeat(200));
        for cmd in [big, deep] {
            let d = crate::rules::testutil::decide_shell(Mode::Balanced, &cmd);
            assert!(d.verdict >= Auth, "{:?}", d.codes());
        }
    }
}
