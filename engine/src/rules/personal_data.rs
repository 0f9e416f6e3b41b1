//! Several people's contact details sent out in one message.
//!
//! **What it does:** a call that sends text — an MCP tool that posts, sends, creates or
//! comments (not one declared read-only), or `gh issue|pr|gist create` with a body — whose
//! text carries the contact details of several people (two or more e-mail addresses *and* two
//! or more phone numbers, or five of either) is `personal_data_sent`: AUTH (BLOCK from strict
//! up, and in balanced after untrusted content). The addresses a message is sent *to* are
//! not counted; a message naming one or two colleagues passes.
//! **Why:** a customer list pasted into a partner's channel or a public issue is a data
//! breach without a secret in it: no fingerprint or secret rule sees it.
//! **Example:** `slack post_message {"channel": "#ext-partners", "text": "r.h@mail.example
//! +1-202-555-0142; t.o@mail.example +1-202-555-0177; …"}` → `personal_data_sent`.

use crate::action::{AnnotationInfo, Operation};
use crate::effects::json_strings;
use crate::verdict::{Finding, Reason};

use super::Ctx;

pub const PERSONAL_DATA_SENT: Reason = Reason::new(
    "personal_data_sent",
    "Sends the contact details of several people (e-mail addresses, phone numbers) out in one message.",
);

/// Keys whose values are recipients, not content.
const RECIPIENT_KEYS: &[&str] = &[
    "to",
    "cc",
    "bcc",
    "recipient",
    "recipients",
    "from",
    "reply_to",
    "channel",
    "channel_id",
    "email",
    "user",
    "assignee",
];

/// Phone numbers in free text: runs of digits with separators (`+1-202-555-0142`, `(020)
/// 7946 0018`, `+44 20 7946 0018`), 10 to 15 digits, at least one separator or a leading `+`
/// (dates and long ids are not counted).
fn phones_in(text: &str) -> usize {
    let mut count = 0;
    let mut digits = 0usize;
    let mut seps = 0usize;
    let mut plus = false;
    let mut flush = |digits: &mut usize, seps: &mut usize, plus: &mut bool| {
        if (10..=15).contains(digits) && (*seps >= 2 || *plus) {
            count += 1;
        }
        *digits = 0;
        *seps = 0;
        *plus = false;
    };
    let mut prev_digit = false;
    for c in text.chars() {
        match c {
            '0'..='9' => {
                digits += 1;
                prev_digit = true;
            }
            '+' if digits == 0 => plus = true,
            '-' | ' ' | '.' | '(' | ')' if digits > 0 || c == '(' => {
                if prev_digit {
                    seps += 1;
                }
                prev_digit = false;
            }
            _ => {
                flush(&mut digits, &mut seps, &mut plus);
                prev_digit = false;
            }
        }
    }
    flush(&mut digits, &mut seps, &mut plus);
    count
}

/// Does this text carry several people's contact details?
pub(crate) fn many_contacts(text: &str) -> bool {
    let mut emails = super::mcp_recipients::emails_in(text);
    emails.sort();
    emails.dedup();
    let phones = phones_in(text);
    (emails.len() >= 2 && phones >= 2) || emails.len() >= 5 || phones >= 5
}

/// The text an MCP call that sends would carry (recipients left out).
fn mcp_sent_text(cx: &Ctx<'_>) -> Option<String> {
    let Operation::McpCall {
        tool,
        arguments,
        annotations,
        ..
    } = &cx.action.op
    else {
        return None;
    };
    if let AnnotationInfo::Declared(a) = annotations
        && a.read_only_hint == Some(true)
    {
        return None;
    }
    let t = tool.to_ascii_lowercase();
    let sends = [
        "send", "post", "create", "comment", "reply", "message", "publish", "share", "upload",
        "write", "update", "chat",
    ]
    .iter()
    .any(|w| t.contains(w));
    if !sends {
        return None;
    }
    let mut strings = Vec::new();
    json_strings(arguments, &mut strings, "", 0);
    Some(
        strings
            .into_iter()
            .filter(|(k, _)| !RECIPIENT_KEYS.contains(&k.to_ascii_lowercase().as_str()))
            .map(|(_, v)| v)
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// `gh issue create --body "…"`, `gh gist create`, `gh pr comment --body …`: the body given on
/// the line.
fn gh_sent_text(cx: &Ctx<'_>) -> Option<String> {
    let sa = cx.shell?;
    let texts: Vec<String> = sa
        .invocations
        .iter()
        .filter(|i| i.program == "gh")
        .filter(|i| {
            i.argv()
                .any(|a| matches!(a, "create" | "comment" | "edit" | "review"))
        })
        .flat_map(|i| i.argv().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let text = mcp_sent_text(cx).or_else(|| gh_sent_text(cx));
    if text.is_some_and(|t| many_contacts(&t)) {
        out.push(Finding::new(PERSONAL_DATA_SENT, cx.ask_or_block()));
    }
}

#[cfg(test)]
mod tests {
    use super::{many_contacts, phones_in};
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::{CWD, engine, mcp_call, table};
    use serde_json::json;

    #[test]
    fn contact_details_counted() {
        assert_eq!(phones_in("call +1-202-555-0142 or (020) 7946 0018"), 2);
        assert_eq!(phones_in("released 2024-01-15, build 20240115093012"), 0);
        assert!(many_contacts(
            "r.h@mail.example Rosa +1-202-555-0142; t.o@mail.example Tunde +1-202-555-0177"
        ));
        assert!(!many_contacts(
            "ping ana@acme.example and bo@acme.example about the release"
        ));
        assert!(!many_contacts("on-call: +1-202-555-0142"));
    }

    #[test]
    fn sent_through_mcp_and_gh() {
        let e = engine(Mode::Balanced);
        let s = crate::SessionState::default();
        let post = |text: &str| {
            mcp_call(
                "slack",
                "post_message",
                json!({"channel": "#ext-growthpartners-shared", "text": text}),
                CWD,
            )
        };
        let d = e.decide(
            &post("Top customers: r.h@mail.example +1-202-555-0142; t.o@mail.example +1-202-555-0177; k.l@mail.example +1-202-555-0199"),
            &s,
        );
        assert!(d.codes().contains(&"personal_data_sent"), "{:?}", d.codes());
        let d = e.decide(
            &post("Deploy done; ping ana@acme.example if anything looks off"),
            &s,
        );
        assert!(
            !d.codes().contains(&"personal_data_sent"),
            "{:?}",
            d.codes()
        );
        table(
            Mode::Balanced,
            &[
                (
                    "gh issue create -R acme/sdk-public --title repro --body 'a@x.example +1-202-555-0142, b@y.example +1-202-555-0177'",
                    Auth,
                    "personal_data_sent",
                ),
                (
                    "gh issue create --title 'Totals off by a cent' --body 'Repro: order 4411, see logs'",
                    Pass,
                    "",
                ),
            ],
        );
    }
}
