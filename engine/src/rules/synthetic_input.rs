//! Synthetic keyboard and mouse input.
//!
//! **What it does:** running an input synthesiser — `xdotool`, `ydotool`, `xte`, `wtype`,
//! `dotool`, `xvkbd`, `cliclick`, AppleScript `System Events` clicks and keystrokes, PowerShell
//! `SendKeys` / `mouse_event`, or inline code using `pyautogui`, `pynput`, `robotjs`, `nut-js`
//! or the X test extension — is a hard BLOCK in every mode.
//! **Why:** an approval is only worth something if a human gave it. An agent that can move the
//! pointer and press keys can click **Approve** in Airlock's own popup (or any other consent
//! dialog) by itself.
//! **Example:** `xdotool search --name 'Airlock' windowactivate key Return` → `synthetic_input`.

use crate::verdict::{Finding, Reason};

use super::Ctx;

pub const SYNTHETIC_INPUT: Reason = Reason::new(
    "synthetic_input",
    "Fakes keyboard or mouse input, which could click an approval on your behalf.",
);

const SYNTHESISERS: &[&str] = &[
    "xdotool",
    "ydotool",
    "ydotoold",
    "xte",
    "wtype",
    "dotool",
    "dotoolc",
    "xvkbd",
    "cliclick",
    "xautomation",
    "autokey-run",
];

/// Libraries that drive the real pointer and keyboard from code.
const INPUT_LIBRARIES: &[&str] = &[
    "pyautogui",
    "pynput",
    "robotjs",
    "@nut-tree/nut-js",
    "nut-js",
    "xlib.ext.xtest",
    "xtestfakeinput",
    "keybd_event",
    "mouse_event",
    "sendinput",
    "sendkeys",
];

pub const TERMINAL_ANSWER: Reason = Reason::new(
    "terminal_answer",
    "Types an answer (y, a number, Enter) into another terminal, where a permission prompt may wait.",
);

/// Keys that answer a prompt rather than run a command.
fn answer_key(k: &str) -> bool {
    let k = k.trim_matches(['\'', '"']);
    matches!(
        k.to_ascii_lowercase().as_str(),
        "y" | "n"
            | "yes"
            | "no"
            | "enter"
            | "c-m"
            | "return"
            | "kenter"
            | "tab"
            | "up"
            | "down"
            | "\\n"
            | "\\r"
    ) || (k.len() == 1 && k.chars().all(|c| c.is_ascii_digit()))
}

/// `tmux send-keys -t other '2' Enter`, `screen -X stuff 'y\n'`: keystrokes typed into
/// another terminal that are only an answer — to another agent's permission prompt, say.
/// Typing a command there (`tmux send-keys -t dev 'npm run dev' Enter`) or `C-c` is not.
fn answers_another_terminal(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    let keys: Vec<&str> = match inv.program.as_str() {
        "tmux" if matches!(args.first(), Some(&("send-keys" | "send"))) => {
            let mut keys = Vec::new();
            let mut i = 1;
            while let Some(a) = args.get(i) {
                if matches!(*a, "-t" | "-N") {
                    i += 2;
                    continue;
                }
                if a.starts_with('-') && a.len() > 1 {
                    i += 1;
                    continue;
                }
                keys.push(*a);
                i += 1;
            }
            keys
        }
        "screen" => args
            .windows(2)
            .find(|w| w.first() == Some(&"stuff"))
            .and_then(|w| w.get(1).copied())
            .map(|t| {
                vec![
                    t.trim_end_matches("\\n")
                        .trim_end_matches("\\r")
                        .trim_end_matches('\n'),
                ]
            })
            .unwrap_or_default(),
        _ => return false,
    };
    !keys.is_empty() && keys.iter().all(|k| answer_key(k))
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(sa) = cx.shell else {
        return;
    };
    for inv in &sa.invocations {
        if answers_another_terminal(inv) {
            out.push(Finding::new(TERMINAL_ANSWER, crate::Verdict::Auth));
        }
        if SYNTHESISERS.contains(&inv.program.as_str()) {
            out.push(Finding::hard_block(SYNTHETIC_INPUT));
            return;
        }
        let text = inv
            .argv()
            .collect::<Vec<_>>()
            .join(" ")
            .to_ascii_lowercase();
        let osascript_ui = inv.program == "osascript"
            && text.contains("system events")
            && (text.contains("click") || text.contains("keystroke") || text.contains("key code"));
        let code_ui = matches!(
            inv.program.as_str(),
            "python"
                | "python3"
                | "node"
                | "deno"
                | "bun"
                | "ruby"
                | "perl"
                | "powershell"
                | "pwsh"
                | "osascript"
                | "uv"
                | "uvx"
                | "npx"
        ) && INPUT_LIBRARIES.iter().any(|l| text.contains(l));
        if osascript_ui || code_ui {
            out.push(Finding::hard_block(SYNTHETIC_INPUT));
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn synthetic_input_table() {
        for mode in [Mode::Light, Mode::Balanced, Mode::Paranoid] {
            table(
                mode,
                &[
                    (
                        "xdotool search --name Airlock windowactivate key Return",
                        Block,
                        "synthetic_input",
                    ),
                    (
                        "DISPLAY=:0 xdotool mousemove 640 400 click 1",
                        Block,
                        "synthetic_input",
                    ),
                    ("sh -c 'ydotool click 0xC0'", Block, "synthetic_input"),
                    ("echo key Return | xte", Block, "synthetic_input"),
                    ("wtype -k Return", Block, "synthetic_input"),
                    (
                        "osascript -e 'tell application \"System Events\" to click button \"Approve\" of window 1'",
                        Block,
                        "synthetic_input",
                    ),
                    (
                        "python3 -c 'import pyautogui; pyautogui.press(\"enter\")'",
                        Block,
                        "synthetic_input",
                    ),
                    (
                        "node -e \"require('robotjs').keyTap('enter')\"",
                        Block,
                        "synthetic_input",
                    ),
                    (
                        "pwsh -c '[System.Windows.Forms.SendKeys]::SendWait(\"{ENTER}\")'",
                        Block,
                        "synthetic_input",
                    ),
                    (
                        "tmux send-keys -t dev:1.0 '2' Enter",
                        Auth,
                        "terminal_answer",
                    ),
                    ("tmux send-keys -t agent y Enter", Auth, "terminal_answer"),
                    ("screen -S work -X stuff 'y\\n'", Auth, "terminal_answer"),
                    ("tmux send-keys -t dev 'npm run dev' Enter", Pass, ""),
                    ("tmux send-keys -t dev C-c", Pass, ""),
                    // Mentioning the tools is not using them.
                    ("grep -rn xdotool docs/", Pass, ""),
                    ("apt-cache show xdotool", Pass, ""),
                    ("osascript -e 'display notification \"done\"'", Pass, ""),
                    ("python3 -c 'print(1)'", Pass, ""),
                ],
            );
        }
    }
}
