//! Screening a tool result: everything in it was fetched, so any instruction issued to the
//! agent counts; text that is itself *about* injection gets tier 1 at most.

use super::detect::is_meta;
use super::normalize::{clean_text, decode_runs};
use super::{Normalized, Scope, Screening, judge, judge_hidden, judge_hiding};

/// Screen a tool result (fetched page, file read, shell output, MCP result).
pub fn screen_content(text: &str) -> Screening {
    screen_content_with(text, true)
}

/// [`screen_content`], optionally without the shell-command export family.
pub(crate) fn screen_content_with(text: &str, commands: bool) -> Screening {
    let mut n = Normalized::default();
    n.text = clean_text(text, &mut n.hiding, &mut n.decoded, &mut n.comments);
    decode_runs(&n.text, &mut n.hiding, &mut n.decoded, 0);
    let lower = n.text.to_lowercase();
    let scope = Scope {
        meta: is_meta(&lower),
        drop_meta: false,
        in_pasted: true,
        top_level: false,
        commands,
    };
    let mut out = Screening {
        signals: Vec::new(),
        hiding: n.hiding.clone(),
    };
    judge(&lower, &scope, &n.hiding, &mut out);
    judge_hidden(&n.decoded, &scope, &mut out);
    judge_hiding(&n, true, &mut out);
    out
}
