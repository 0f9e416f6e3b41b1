//! Screening a user's turn: the user's own words versus content they pasted into it.
//!
//! Pasted content is found by shape: code fences (no exemption: a fence is only a
//! container), block quotes, whatever follows "here is the email:" and the like, HTML, and a
//! long multi-line block after a short request.

use super::detect::is_meta;
use super::lexicon::lexicon;
use super::normalize::{clean_text, decode_runs};
use super::{Normalized, Scope, Screening, judge, judge_hidden, judge_hiding};

/// Pieces of the normalised turn: `(text, pasted)`.
pub(crate) fn segments(text: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let push = |out: &mut Vec<(String, bool)>, s: &str, pasted: bool| {
        if let Some(last) = out.last_mut()
            && last.1 == pasted
        {
            last.0.push('\n');
            last.0.push_str(s);
            return;
        }
        out.push((s.to_owned(), pasted));
    };
    let intro = lexicon().intro.as_ref();
    let mut fence: Option<&str> = None;
    let mut rest_pasted = false;
    for line in text.split('\n') {
        let t = line.trim_start();
        let tl = t.to_lowercase();
        if let Some(f) = fence {
            push(&mut out, line, true);
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(if t.starts_with("```") { "```" } else { "~~~" });
            push(&mut out, line, true);
            continue;
        }
        if rest_pasted {
            push(&mut out, line, true);
            continue;
        }
        if let Some(q) = t.strip_prefix('>') {
            push(&mut out, q.trim_start_matches('>').trim_start(), true);
            continue;
        }
        if [
            "<html",
            "<!doctype",
            "<body",
            "<div",
            "<p>",
            "<head",
            "<article",
            "<meta",
        ]
        .iter()
        .any(|p| tl.starts_with(p))
        {
            rest_pasted = true;
            push(&mut out, line, true);
            continue;
        }
        if let Some(c) = intro.and_then(|r| r.captures(line))
            && let Some(g) = c.get(1)
        {
            push(&mut out, line.get(..g.start()).unwrap_or(""), false);
            if !g.as_str().trim().is_empty() {
                push(&mut out, g.as_str(), true);
            }
            rest_pasted = true;
            continue;
        }
        push(&mut out, line, false);
    }
    if out.iter().all(|(_, p)| !p) {
        // A short request, a blank line, then a long multi-line block: the block was pasted.
        let nonempty = text.lines().filter(|l| !l.trim().is_empty()).count();
        if nonempty >= 6
            && let Some((head, rest)) = text.split_once("\n\n")
            && head.len() < 300
            && rest.lines().count() >= 4
        {
            return vec![(head.to_owned(), false), (rest.to_owned(), true)];
        }
    }
    out
}

/// Screen a user's turn.
pub fn screen_prompt(text: &str) -> Screening {
    let mut n = Normalized::default();
    n.text = clean_text(text, &mut n.hiding, &mut n.decoded, &mut n.comments);
    let lower = n.text.to_lowercase();
    let segs = segments(&n.text);
    let any_pasted = segs.iter().any(|(_, p)| *p);
    let request: String = segs
        .iter()
        .filter(|(_, p)| !p)
        .map(|(s, _)| s.as_str())
        .collect::<Vec<_>>()
        .join("\n")
        .to_lowercase();
    let request_meta = is_meta(&request) || is_meta(&lower);
    let reads = lexicon()
        .meta_request
        .as_ref()
        .is_some_and(|r| r.is_match(&request));
    let mut out = Screening::default();
    for (seg, pasted) in &segs {
        let seg_lower = seg.to_lowercase();
        let seg_meta = is_meta(&seg_lower);
        let scope = if *pasted {
            Scope {
                meta: seg_meta || request_meta,
                drop_meta: reads,
                in_pasted: true,
                top_level: false,
                commands: true,
            }
        } else {
            Scope {
                meta: request_meta,
                drop_meta: false,
                in_pasted: false,
                top_level: true,
                commands: true,
            }
        };
        judge(&seg_lower, &scope, &n.hiding, &mut out);
        let mut seg_hiding = Vec::new();
        let mut seg_decoded = Vec::new();
        decode_runs(seg, &mut seg_hiding, &mut seg_decoded, 0);
        judge_hidden(&seg_decoded, &scope, &mut out);
        for h in seg_hiding {
            if !n.hiding.contains(&h) {
                n.hiding.push(h);
            }
        }
    }
    // Tag text, the zero-width reading and comment bodies: attributed to pasted content
    // when there is any.
    let scope = Scope {
        meta: is_meta(&lower),
        drop_meta: reads && any_pasted,
        in_pasted: any_pasted,
        top_level: false,
        commands: true,
    };
    judge_hidden(&n.decoded, &scope, &mut out);
    judge_hiding(&n, any_pasted, &mut out);
    out.hiding = n.hiding;
    out
}
