//! The answer syntax, parsed strictly: `approve <request-id> <code>` or `deny <request-id>`.
//!
//! Anything else is not an answer: extra words, a sign, leading zeros, a non-ASCII digit or
//! space, an id that does not fit, a code that is not exactly six ASCII digits. A message that
//! is not an answer is ignored (it may be the relay's own announcement on a shared topic, or
//! chatter).

/// Longest message text considered at all (bytes).
pub const MAX_ANSWER_LEN: usize = 64;
/// A request id has at most this many digits (ids are SQLite row ids; far below `i64::MAX`).
const MAX_ID_DIGITS: usize = 15;
/// TOTP codes are six digits.
const CODE_DIGITS: usize = 6;

/// A well-formed answer. Whether it counts is for the relay to decide.
#[derive(Clone, PartialEq, Eq)]
pub enum Answer {
    /// Approve request `id` once, proven with a TOTP `code`.
    Approve {
        /// The request it names.
        id: i64,
        /// The TOTP code (six ASCII digits).
        code: String,
    },
    /// Deny request `id` (no factor: a raise).
    Deny {
        /// The request it names.
        id: i64,
    },
}

impl Answer {
    /// The request the answer names.
    pub fn id(&self) -> i64 {
        match self {
            Answer::Approve { id, .. } | Answer::Deny { id } => *id,
        }
    }
}

/// Never prints the code.
impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Approve { id, .. } => write!(f, "Approve {{ id: {id}, code: <hidden> }}"),
            Answer::Deny { id } => write!(f, "Deny {{ id: {id} }}"),
        }
    }
}

fn id(token: &str) -> Option<i64> {
    if token.is_empty()
        || token.len() > MAX_ID_DIGITS
        || token.starts_with('0')
        || !token.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    token.parse::<i64>().ok().filter(|n| *n > 0)
}

fn code(token: &str) -> Option<String> {
    (token.len() == CODE_DIGITS && token.bytes().all(|b| b.is_ascii_digit()))
        .then(|| token.to_owned())
}

/// Parses one message's text. Surrounding ASCII whitespace is ignored, the verb's case too;
/// nothing else is forgiven.
pub fn parse(text: &str) -> Option<Answer> {
    if text.len() > MAX_ANSWER_LEN || !text.is_ascii() {
        return None;
    }
    let mut words = text.split_ascii_whitespace();
    let verb = words.next()?.to_ascii_lowercase();
    match (verb.as_str(), words.next(), words.next(), words.next()) {
        ("approve", Some(i), Some(c), None) => Some(Answer::Approve {
            id: id(i)?,
            code: code(c)?,
        }),
        ("deny", Some(i), None, None) => Some(Answer::Deny { id: id(i)? }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approve(id: i64, code: &str) -> Option<Answer> {
        Some(Answer::Approve {
            id,
            code: code.to_owned(),
        })
    }

    #[test]
    fn answers_table() {
        let cases: &[(&str, Option<Answer>)] = &[
            // well-formed
            ("approve 7 123456", approve(7, "123456")),
            ("  APPROVE   42\t000001 \n", approve(42, "000001")),
            (
                "Approve 999999999999999 654321",
                approve(999_999_999_999_999, "654321"),
            ),
            ("deny 7", Some(Answer::Deny { id: 7 })),
            ("DENY 12 ", Some(Answer::Deny { id: 12 })),
            // extra or missing words
            ("approve 7 123456 please", None),
            ("approve 7 123456 123456", None),
            ("please approve 7 123456", None),
            ("approve 7", None),
            ("approve", None),
            ("deny", None),
            ("deny 7 123456", None),
            ("deny 7 now", None),
            ("", None),
            ("   ", None),
            ("approve7 123456", None),
            ("approve 7,123456", None),
            // ids: negative, signed, zero, leading zeros, huge, not digits
            ("approve -7 123456", None),
            ("approve +7 123456", None),
            ("approve 0 123456", None),
            ("approve 007 123456", None),
            ("deny -1", None),
            ("deny 9223372036854775807", None),
            ("deny 99999999999999999999999", None),
            ("approve 1000000000000000 123456", None),
            ("approve 7.0 123456", None),
            ("approve 0x7 123456", None),
            ("approve 1e3 123456", None),
            ("deny #7", None),
            // codes: length, signs, not ASCII digits
            ("approve 7 12345", None),
            ("approve 7 1234567", None),
            ("approve 7 -12345", None),
            ("approve 7 12 3456", None),
            ("approve 7 abcdef", None),
            ("approve 7 12345a", None),
            // unicode digits and spaces, look-alike letters
            ("approve 7 １２３４５６", None),
            ("approve ７ 123456", None),
            ("approve 7 ١٢٣٤٥٦", None),
            ("approve\u{a0}7 123456", None),
            ("approve 7\u{2003}123456", None),
            ("аpprove 7 123456", None), // Cyrillic а
            ("deny\u{200b} 7", None),
            // the relay's own announcement on a shared topic is not an answer
            (
                "Airlock asks: approve request 7? Reply: approve 7 <code> or deny 7",
                None,
            ),
            ("approve 7 <code>", None),
        ];
        for (text, want) in cases {
            assert_eq!(&parse(text), want, "{text:?}");
        }
    }

    #[test]
    fn long_messages_are_not_read() {
        let padded = format!("approve 7 123456{}", " ".repeat(MAX_ANSWER_LEN));
        assert_eq!(parse(&padded), None);
    }

    #[test]
    fn debug_hides_the_code() {
        let a = approve(7, "123456");
        let shown = format!("{a:?}");
        assert!(!shown.contains("123456"), "{shown}");
        assert!(shown.contains('7'));
    }
}
