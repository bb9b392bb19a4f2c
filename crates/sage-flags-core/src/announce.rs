//! `announce WORKFLOW ARGV...`: the text a workflow shows its user (docs/SPEC.md A1-A5),
//! the same bytes as `python/sage_flags/announce.py`.

use crate::{ParseResult, Source};

/// A1: `^[a-z][a-z0-9-]*$` on bytes (ASCII only, no trailing newline).
pub fn is_workflow_name(name: &[u8]) -> bool {
    match name.split_first() {
        Some((first, rest)) => {
            first.is_ascii_lowercase()
                && rest.iter().all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        }
        None => false,
    }
}

/// A5: what a goal's LF is followed by: its later lines are indented under `Goal: `.
pub const GOAL_INDENT: &str = "      ";

/// A5: the bidi controls and the line and paragraph separators, written `\uxxxx`.
fn is_bidi_or_separator(code: u32) -> bool {
    matches!(code, 0x061c | 0x200e | 0x200f | 0x2028 | 0x2029 | 0x202a..=0x202e | 0x2066..=0x2069)
}

/// A4: U+0000-U+001F except TAB and LF, U+007F and U+0080-U+009F are written `\u00xx`;
/// A5: bidi controls and U+2028/U+2029 `\uxxxx`, and LF is followed by [`GOAL_INDENT`].
pub fn push_terminal_safe(out: &mut String, text: &str) {
    for c in text.chars() {
        let code = c as u32;
        let unsafe_char =
            (code < 0x20 && c != '\t' && c != '\n') || (0x7f..0xa0).contains(&code) || is_bidi_or_separator(code);
        if c == '\n' {
            out.push('\n');
            out.push_str(GOAL_INDENT);
        } else if unsafe_char {
            out.push_str(&format!("\\u{code:04x}"));
        } else {
            out.push(c);
        }
    }
}

/// A2/A3: the announcement of one parse result, and its exit status (0 clean, 1 error).
pub fn render(workflow: &str, result: &ParseResult) -> (String, bool) {
    let mut text = String::new();
    if let Some(message) = &result.error {
        text.push_str("Sage: ");
        push_terminal_safe(&mut text, message);
        text.push('\n');
        return (text, false);
    }
    text.push_str("Sage \u{2192} ");
    text.push_str(workflow);
    text.push_str(" workflow.");
    let mut separator = " Modes: ";
    for (index, ((_, name), (on, source))) in
        result.vocabulary.modes.iter().zip(result.modes.iter().zip(result.sources.iter())).enumerate()
    {
        if *on {
            text.push_str(separator);
            text.push_str("--");
            text.push_str(name);
            // A2: a mode that takes a value is written with its number.
            if let Some(slot) = result.vocabulary.value_modes.iter().position(|value| value.mode == index) {
                text.push_str(&format!("={}", result.numbers[slot]));
            }
            if *source == Source::Config {
                text.push_str(" (config)");
            }
            separator = ", ";
        }
    }
    text.push('\n');
    for note in result.notes.iter().flatten() {
        text.push_str("Note: ");
        push_terminal_safe(&mut text, note);
        text.push('\n');
    }
    if !result.goal.is_empty() {
        text.push_str("Goal: ");
        push_terminal_safe(&mut text, &result.goal); // TAB raw; LF raw, then the indent (A5)
        text.push('\n');
    }
    (text, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse, Defaults};

    #[test]
    fn workflow_names() {
        for good in ["build", "a", "re-run2", "x-"] {
            assert!(is_workflow_name(good.as_bytes()), "{good}");
        }
        for bad in ["", "Build", "2go", "-x", "build\n", "bu ild", "bu_ild", "\u{e9}t\u{e9}"] {
            assert!(!is_workflow_name(bad.as_bytes()), "{bad:?}");
        }
    }

    #[test]
    fn escapes_exactly_the_terminal_controls() {
        let mut out = String::new();
        push_terminal_safe(&mut out, "a\tb\nc\u{1b}[31m\u{7f}\u{9b}\u{a0}\u{2028}\u{202e}\u{2069}\u{2065}\0");
        assert_eq!(out, "a\tb\n      c\\u001b[31m\\u007f\\u009b\u{a0}\\u2028\\u202e\\u2069\u{2065}\\u0000");
    }

    #[test]
    fn modes_goal_and_errors() {
        let mut defaults = Defaults::NONE;
        defaults.set(1);
        let (text, ok) = render("build", &parse("--quality-locked Ship it", &defaults));
        assert!(ok);
        assert_eq!(
            text,
            "Sage \u{2192} build workflow. Modes: --quality-locked, --autonomous (config)\nGoal: Ship it\n"
        );
        let (text, ok) = render("architect", &parse("", &Defaults::NONE));
        assert!(ok);
        assert_eq!(text, "Sage \u{2192} architect workflow.\n");
        let (text, ok) = render("build", &parse("--nope\u{1b}", &Defaults::NONE));
        assert!(!ok);
        assert!(text.starts_with("Sage: Unknown flag '--nope\\u001b'.") && text.ends_with(".\n"), "{text}");
    }
}
