//! Coarse figures of a turn for near-duplicate and style-outlier checks. Never any text.

use super::normalize::{MAX_SCAN, capped, normalize};

/// The normalised form of a turn for near-duplicate matching: [`normalize`]d, lower-cased,
/// punctuation and digits dropped, spaces collapsed, word order kept. Callers fingerprint it
/// with a keyed hash; it is never stored as is.
pub fn turn_key(text: &str) -> String {
    let lower = normalize(text).text.to_lowercase();
    let kept: String = lower
        .chars()
        .map(|c| if c.is_alphabetic() { c } else { ' ' })
        .collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `[ln(1 + chars), mean word length, punctuation density, uppercase ratio, digit density,
/// non-ASCII-or-symbol density]` of `text` (first 256 KiB). All finite, all ≥ 0.
pub fn style_figures(text: &str) -> [f64; 6] {
    let t = capped(text, MAX_SCAN);
    let mut chars = 0usize;
    let (mut punct, mut upper, mut letters, mut digits, mut other) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    for c in t.chars() {
        chars += 1;
        if c.is_ascii_punctuation() {
            punct += 1;
        }
        if c.is_alphabetic() {
            letters += 1;
            if c.is_uppercase() {
                upper += 1;
            }
        }
        if c.is_ascii_digit() {
            digits += 1;
        }
        if !c.is_ascii() {
            other += 1;
        }
    }
    let words: Vec<usize> = t
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.chars().count())
        .collect();
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    [
        (1.0 + chars as f64).ln(),
        ratio(words.iter().sum(), words.len()),
        ratio(punct, chars),
        ratio(upper, letters),
        ratio(digits, chars),
        ratio(other, chars),
    ]
}
