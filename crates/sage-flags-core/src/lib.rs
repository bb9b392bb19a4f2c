//! The sage-flags contract in Rust: the same bytes as the pure-Python reference
//! (`python/sage_flags/reference.py`). docs/SPEC.md is the rule book; comments
//! cite its rule numbers (C1..C22, E1..E4).
//!
//! - [`parse`] turns ARGUMENTS into a [`ParseResult`] (C5-C10, C15, C18);
//! - [`load_defaults`] reads a config file into [`Defaults`] (C11-C14);
//! - [`ParseResult::to_json`] gives the one output line (C16, C17);
//! - [`cli`] holds the `parse`, `batch` and `announce` commands on argv bytes (C1-C3, C22),
//!   [`announce`] the text a workflow shows its user (A1-A4), [`io`] the exit statuses (C19) and
//!   the one bounded read.
#![forbid(unsafe_code)]

pub mod announce;
pub mod cli;
mod config;
pub mod io;
pub mod suggest;
mod value_mode;
pub mod vocab;

pub use config::{load_defaults, load_defaults_in, parse_defaults, parse_defaults_in, CONFIG_LIMIT};
pub use value_mode::{ValueMode, Vocabulary};
pub use vocab::{MAX_MODES, MAX_VALUES, VOCABULARIES};

/// A result's arrays hold room for the largest vocabulary; only the first `vocabulary.modes.len()` count.
pub const MODE_COUNT: usize = MAX_MODES;
/// The same for the modes that take a value (docs/SPEC.md V1).
pub const VALUE_COUNT: usize = MAX_VALUES;

/// B1: the vocabulary of every call that names none (spec/flags.toml's).
pub static DEFAULT_VOCABULARY: &Vocabulary = &VOCABULARIES[0];

impl Vocabulary {
    /// B2: the vocabulary this build carries under `name`, if any.
    pub fn named(name: &[u8]) -> Option<&'static Vocabulary> {
        VOCABULARIES.iter().find(|vocab| vocab.name.as_bytes() == name)
    }

    /// B2: the vocabulary SAGE_FLAGS_VOCABULARY names (unset or empty: the default); None for an unknown name.
    pub fn from_environment() -> Option<&'static Vocabulary> {
        match std::env::var_os("SAGE_FLAGS_VOCABULARY") {
            Some(name) if !name.is_empty() => Vocabulary::named(name.as_encoded_bytes()),
            _ => Some(DEFAULT_VOCABULARY),
        }
    }

    /// The index in `modes` of the mode with this JSON key.
    pub fn mode_index(&self, key: &str) -> Option<usize> {
        self.modes.iter().position(|(k, _)| *k == key)
    }
}

/// E4, the message for text that is not valid UTF-8 (C10).
pub const E4: &str = "Arguments are not valid UTF-8.";

/// C5: exactly these six bytes are whitespace (`u8::is_ascii_whitespace` lacks U+000B).
#[inline]
pub const fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Where a mode's value came from (C15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Neither a flag nor the config: the JSON `null`.
    Unset,
    /// `--name` or `--no-name` was passed.
    Flag,
    /// The config made the mode default-on.
    Config,
}

impl Source {
    /// The JSON/Python value: `None` for [`Source::Unset`].
    pub const fn as_str(self) -> Option<&'static str> {
        match self {
            Source::Unset => None,
            Source::Flag => Some("flag"),
            Source::Config => Some("config"),
        }
    }
}

/// Which modes a config turns on by default, indexed like its vocabulary's modes (C14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Defaults {
    vocabulary: &'static Vocabulary,
    on: [bool; MODE_COUNT],
}

impl Default for Defaults {
    fn default() -> Defaults {
        Defaults::NONE
    }
}

impl Defaults {
    /// No mode of the default vocabulary is default-on (C11, C12).
    pub const NONE: Defaults = Defaults { vocabulary: &VOCABULARIES[0], on: [false; MODE_COUNT] };

    /// No mode of `vocabulary` is default-on; a parse against these uses `vocabulary` (B1).
    pub const fn none(vocabulary: &'static Vocabulary) -> Defaults {
        Defaults { vocabulary, on: [false; MODE_COUNT] }
    }

    /// The vocabulary these defaults, and a parse against them, belong to.
    pub fn vocabulary(&self) -> &'static Vocabulary {
        self.vocabulary
    }

    /// Whether mode `index` (in [`MODES`] order) is default-on.
    pub fn is_on(&self, index: usize) -> bool {
        self.on.get(index).copied().unwrap_or(false)
    }

    /// Whether the mode with this JSON key is default-on.
    pub fn is_on_key(&self, key: &str) -> bool {
        self.vocabulary.mode_index(key).is_some_and(|index| self.on[index])
    }

    /// Turns mode `index` on.
    pub fn set(&mut self, index: usize) {
        if let Some(slot) = self.on.get_mut(index) {
            *slot = true;
        }
    }

    /// The keys of the default-on modes, in vocabulary order.
    pub fn keys(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.vocabulary.modes.iter().zip(self.on.iter()).filter(|(_, on)| **on).map(|((key, _), _)| *key)
    }
}

/// The outcome of one parse: the modes, their sources, the goal or an error (C16).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParseResult {
    /// The vocabulary it was parsed with: its modes are the first entries of the arrays below.
    pub vocabulary: &'static Vocabulary,
    /// Each mode's value, in [`MODES`] order.
    pub modes: [bool; MODE_COUNT],
    /// Each mode's source, in [`MODES`] order.
    pub sources: [Source; MODE_COUNT],
    /// The text after the flags (C9); empty on error (C18).
    pub goal: String,
    /// The error message (E1-E5), or `None` for a clean parse.
    pub error: Option<String>,
    /// The number of each mode that takes a value, in [`VALUE_MODES`] order (V4).
    pub numbers: [u32; VALUE_COUNT],
    /// The note of each mode that takes a value, in [`VALUE_MODES`] order (V5).
    pub notes: [Option<String>; VALUE_COUNT],
}

impl ParseResult {
    /// A clean result of the default vocabulary with every mode off, no goal, every number 0 and no note.
    pub fn empty() -> ParseResult {
        ParseResult::empty_in(DEFAULT_VOCABULARY)
    }

    /// [`ParseResult::empty`] in `vocabulary`.
    pub fn empty_in(vocabulary: &'static Vocabulary) -> ParseResult {
        ParseResult {
            vocabulary,
            modes: [false; MODE_COUNT],
            sources: [Source::Unset; MODE_COUNT],
            goal: String::new(),
            error: None,
            numbers: [0; VALUE_COUNT],
            notes: [const { None }; VALUE_COUNT],
        }
    }

    /// C18, V6: every mode false, goal empty, sources null, numbers 0, notes null, and the message.
    pub fn from_error(message: String) -> ParseResult {
        ParseResult::from_error_in(DEFAULT_VOCABULARY, message)
    }

    /// [`ParseResult::from_error`] in `vocabulary`.
    pub fn from_error_in(vocabulary: &'static Vocabulary, message: String) -> ParseResult {
        ParseResult { error: Some(message), ..ParseResult::empty_in(vocabulary) }
    }

    /// Whether the parse was clean (no error).
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }

    /// The value of the mode with this JSON key, if the key is a mode.
    pub fn mode(&self, key: &str) -> Option<bool> {
        self.vocabulary.mode_index(key).map(|index| self.modes[index])
    }

    /// The source of the mode with this JSON key, if the key is a mode.
    pub fn source(&self, key: &str) -> Option<Source> {
        self.vocabulary.mode_index(key).map(|index| self.sources[index])
    }

    /// The exact C16/C17 line, without the trailing LF.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(self.json_capacity());
        self.write_json(&mut out);
        out
    }

    fn json_capacity(&self) -> usize {
        // Fixed parts (keys, literals) plus the strings, most of which need no escape.
        let notes: usize = self.notes.iter().map(|note| note.as_ref().map_or(0, String::len)).sum();
        64 * MODE_COUNT + 64 * VALUE_COUNT + 32 + self.goal.len() + self.error.as_ref().map_or(0, String::len) + notes
    }

    /// Appends the C16/C17 line (without LF) to `out`.
    pub fn write_json(&self, out: &mut String) {
        out.push('{');
        for ((key, _), value) in self.vocabulary.modes.iter().zip(self.modes.iter()) {
            push_json_string(out, key);
            out.push_str(if *value { ": true, " } else { ": false, " });
        }
        out.push_str("\"goal\": ");
        push_json_string(out, &self.goal);
        out.push_str(", \"error\": ");
        match &self.error {
            Some(message) => push_json_string(out, message),
            None => out.push_str("null"),
        }
        for ((key, _), source) in self.vocabulary.modes.iter().zip(self.sources.iter()) {
            out.push_str(", \"");
            out.push_str(key);
            out.push_str("_source\": ");
            match source.as_str() {
                Some(text) => push_json_string(out, text),
                None => out.push_str("null"),
            }
        }
        for ((spec, number), note) in self.vocabulary.value_modes.iter().zip(self.numbers.iter()).zip(self.notes.iter())
        {
            // V7
            out.push_str(", \"");
            out.push_str(spec.field);
            out.push_str("\": ");
            out.push_str(&number.to_string());
            out.push_str(", \"");
            out.push_str(spec.note_field);
            out.push_str("\": ");
            match note {
                Some(text) => push_json_string(out, text),
                None => out.push_str("null"),
            }
        }
        out.push('}');
    }

    /// The number of the mode that takes a value whose field is `field` (V7).
    pub fn number(&self, field: &str) -> Option<u32> {
        self.vocabulary.value_modes.iter().position(|spec| spec.field == field).map(|index| self.numbers[index])
    }

    /// The note of the mode that takes a value whose note field is `note_field` (V7).
    pub fn note(&self, note_field: &str) -> Option<Option<&str>> {
        let specs = self.vocabulary.value_modes.iter();
        specs.clone().position(|spec| spec.note_field == note_field).map(|index| self.notes[index].as_deref())
    }
}

#[inline]
const fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The index of the first byte from `from` on that C17 escapes, if any.
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    const CHUNK: usize = 32;
    let mut pos = from;
    // Whole chunks without an escape are skipped by a branch-free test the compiler vectorises.
    while pos + CHUNK <= bytes.len() {
        let chunk = &bytes[pos..pos + CHUNK];
        if chunk.iter().fold(false, |any, &b| any | needs_escape(b)) {
            break;
        }
        pos += CHUNK;
    }
    bytes[pos..].iter().position(|&b| needs_escape(b)).map(|n| pos + n)
}

/// C17: `json.dumps(ensure_ascii=False)`'s string form.
pub fn push_json_string(out: &mut String, value: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(value.len() + 2);
    out.push('"');
    let bytes = value.as_bytes();
    let mut start = 0;
    while let Some(i) = next_escape(bytes, start) {
        // Only ASCII bytes are escaped, so every cut is at a char boundary.
        out.push_str(&value[start..i]);
        let byte = bytes[i];
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0c => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            _ => {
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(byte >> 4)]));
                out.push(char::from(HEX[usize::from(byte & 0x0f)]));
            }
        }
        start = i + 1;
    }
    out.push_str(&value[start..]);
    out.push('"');
}

/// The mode index and value a token sets: `--name` is on, `--no-name` is off (C7).
fn lookup_flag(vocab: &Vocabulary, token: &str) -> Option<(usize, bool)> {
    let name = token.strip_prefix("--")?;
    let (name, value) = match name.strip_prefix("no-") {
        Some(rest) => (rest, false),
        None => (name, true),
    };
    // A mode's dashed name never starts with "no-" (tools/generate.py checks), so this is unambiguous.
    vocab.modes.iter().position(|(_, n)| *n == name).map(|index| (index, value))
}

fn unknown_flag(vocab: &Vocabulary, token: &str) -> String {
    let message = format!("Unknown flag '{token}'. Supported flags: {}.", vocab.supported_flags);
    match suggest::suggestion_in(vocab, token) {
        Some(flag) => format!("{message} Did you mean '{flag}'?"), // S6
        None => message,
    }
}

fn flag_with_value(vocab: &Vocabulary, flag: &str, token: &str) -> String {
    format!("Flag '{flag}' takes no value (got '{token}').{}", vocab.e2_value_hint)
}

/// V2: the index in [`VALUE_MODES`] and VALUE of a `--<name>=VALUE` token of a mode that takes a value.
fn value_flag<'a>(vocab: &Vocabulary, token: &'a str) -> Option<(usize, &'a str)> {
    let (flag, value) = token.split_once('=')?;
    let name = flag.strip_prefix("--")?;
    vocab.value_modes.iter().position(|spec| vocab.modes[spec.mode].1 == name).map(|index| (index, value))
}

/// Whether the number `a` is less than `b`, both digit strings without leading zeros (V2: never an integer).
fn below(a: &str, b: &str) -> bool {
    (a.len(), a) < (b.len(), b)
}

/// V2: VALUE's digits without leading zeros, or E5 when it is not ASCII digits worth at least the minimum.
fn number_of<'a>(vocab: &Vocabulary, spec: &ValueMode, value: &'a str) -> Result<&'a str, String> {
    let digits = value.trim_start_matches('0');
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) || below(digits, &spec.minimum.to_string()) {
        let name = vocab.modes[spec.mode].1;
        return Err(format!("--{name} takes a {} of {} or more (got '{value}').", spec.name, spec.minimum));
    }
    Ok(digits)
}

fn conflict(vocab: &Vocabulary, index: usize) -> String {
    let (key, name) = vocab.modes[index];
    format!("Conflicting flags for {key}: both --{name} and --no-{name} passed.")
}

/// C6: `text` without leading and trailing whitespace.
pub fn trim_whitespace(text: &str) -> &str {
    // Whitespace is ASCII, so the cut points are char boundaries.
    text.trim_matches(|c: char| c.is_ascii() && is_whitespace(c as u8))
}

/// Parses ARGUMENTS (C5-C9) and resolves each mode against `defaults` (C15).
pub fn parse(arguments: &str, defaults: &Defaults) -> ParseResult {
    match parse_with(defaults.vocabulary, arguments, |index| {
        Ok::<bool, std::convert::Infallible>(defaults.is_on(index))
    }) {
        Ok(result) => result,
        Err(never) => match never {},
    }
}

/// [`parse`] with the defaults asked lazily: `default_on(index)` is called only
/// for a mode that no flag set, after a clean parse, in [`MODES`] order (the
/// reference asks its Mapping the same way; a front end may pass its errors on).
pub fn parse_with<E>(
    vocab: &'static Vocabulary,
    arguments: &str,
    mut default_on: impl FnMut(usize) -> Result<bool, E>,
) -> Result<ParseResult, E> {
    let text = trim_whitespace(arguments);
    let bytes = text.as_bytes();
    let mut flags: [Option<bool>; MODE_COUNT] = [None; MODE_COUNT];
    let mut given: [Option<&str>; VALUE_COUNT] = [None; VALUE_COUNT]; // V4: the first --name=N's digits
    let mut pos = 0;
    while bytes[pos..].starts_with(b"--") {
        // C7: the token is the longest prefix without whitespace.
        let end = bytes[pos..].iter().position(|&b| is_whitespace(b)).map_or(bytes.len(), |n| pos + n);
        let token = &text[pos..end];
        pos = end;
        while pos < bytes.len() && is_whitespace(bytes[pos]) {
            pos += 1;
        }
        if token == "--" {
            break; // end of options: the rest is the goal
        }
        let (index, value) = match lookup_flag(vocab, token) {
            Some(flag) => flag,
            None => match value_flag(vocab, token) {
                Some((which, value)) => match number_of(vocab, &vocab.value_modes[which], value) {
                    Ok(digits) => {
                        given[which].get_or_insert(digits);
                        (vocab.value_modes[which].mode, true)
                    }
                    Err(message) => return Ok(ParseResult::from_error_in(vocab, message)), // E5
                },
                None => {
                    let message = match token.find('=') {
                        Some(equals) if lookup_flag(vocab, &token[..equals]).is_some() => {
                            flag_with_value(vocab, &token[..equals], token) // E2
                        }
                        _ => unknown_flag(vocab, token), // E1
                    };
                    return Ok(ParseResult::from_error_in(vocab, message));
                }
            },
        };
        if flags[index].is_some_and(|seen| seen != value) {
            return Ok(ParseResult::from_error_in(vocab, conflict(vocab, index)));
            // E3
        }
        flags[index] = Some(value);
    }

    let mut result = ParseResult { goal: text[pos..].to_owned(), ..ParseResult::empty_in(vocab) };
    for (index, flag) in flags.iter().enumerate().take(vocab.modes.len()) {
        // C15
        if let Some(value) = flag {
            result.modes[index] = *value;
            result.sources[index] = Source::Flag;
        } else if default_on(index)? {
            result.modes[index] = true;
            result.sources[index] = Source::Config;
        }
    }
    for (which, spec) in vocab.value_modes.iter().enumerate() {
        // V4, V5
        if !result.modes[spec.mode] {
            continue;
        }
        let cap = spec.cap.to_string();
        result.numbers[which] = match given[which] {
            None => spec.default,
            Some(digits) if below(&cap, digits) => {
                let name = vocab.modes[spec.mode].1;
                result.notes[which] = Some(format!("--{name}={digits} exceeds the hard cap; clamped to {cap}."));
                spec.cap
            }
            Some(digits) => digits.parse().unwrap_or(spec.cap), // at most the cap's digits: always parses
        };
    }
    Ok(result)
}

/// [`parse`] on bytes: text that is not valid UTF-8 (RFC 3629) is E4 (C10).
pub fn parse_bytes(arguments: &[u8], defaults: &Defaults) -> ParseResult {
    match std::str::from_utf8(arguments) {
        Ok(text) => parse(text, defaults),
        Err(_) => ParseResult::from_error_in(defaults.vocabulary, E4.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(arguments: &str) -> String {
        parse(arguments, &Defaults::NONE).to_json()
    }

    #[test]
    fn whitespace_is_exactly_six_bytes() {
        let ws: Vec<u8> = (0..=255u8).filter(|b| is_whitespace(*b)).collect();
        assert_eq!(ws, b"\t\n\x0b\x0c\r ");
    }

    #[test]
    fn vertical_tab_separates_and_trims() {
        let result = parse("\x0b--autonomous\x0bgo\x0b", &Defaults::NONE);
        assert_eq!(result.goal, "go");
        assert_eq!(result.mode("autonomous"), Some(true));
    }

    #[test]
    fn unicode_spaces_are_not_whitespace() {
        let result = parse("--autonomous\u{a0}x", &Defaults::NONE);
        assert_eq!(result.error.as_deref(), Some(unknown_flag(DEFAULT_VOCABULARY, "--autonomous\u{a0}x").as_str()));
        assert_eq!(parse("\u{3000}go\u{2028}", &Defaults::NONE).goal, "\u{3000}go\u{2028}");
    }

    #[test]
    fn first_error_wins() {
        let e1 = parse("--foo --autonomous=1", &Defaults::NONE);
        assert_eq!(e1.error.unwrap(), unknown_flag(DEFAULT_VOCABULARY, "--foo"));
        let e2 = parse("--autonomous=1 --foo", &Defaults::NONE);
        assert_eq!(e2.error.unwrap(), flag_with_value(DEFAULT_VOCABULARY, "--autonomous", "--autonomous=1"));
        let e3 = parse("--autonomous --no-autonomous --foo", &Defaults::NONE);
        assert_eq!(
            e3.error.unwrap(),
            "Conflicting flags for autonomous: both --autonomous and --no-autonomous passed."
        );
    }

    #[test]
    fn e2_uses_the_text_before_the_first_equals() {
        let result = parse("--no-quality-locked=a=b", &Defaults::NONE);
        assert_eq!(result.error.unwrap(), "Flag '--no-quality-locked' takes no value (got '--no-quality-locked=a=b').");
        assert_eq!(parse("--=x", &Defaults::NONE).error.unwrap(), unknown_flag(DEFAULT_VOCABULARY, "--=x"));
    }

    #[test]
    fn resolution_against_defaults() {
        let mut defaults = Defaults::NONE;
        defaults.set(0);
        let result = parse("--no-autonomous go", &defaults);
        assert_eq!(result.modes[..2], [true, false]);
        assert_eq!(result.sources[..2], [Source::Config, Source::Flag]);
        let negative = parse("--no-quality-locked go", &defaults);
        assert_eq!((negative.modes[0], negative.sources[0]), (false, Source::Flag));
        let error = parse("--bad", &defaults);
        assert_eq!(error.sources, [Source::Unset; MODE_COUNT], "C18 hides the config");
    }

    #[test]
    fn defaults_are_asked_only_for_unflagged_modes() {
        let mut asked = Vec::new();
        let result = parse_with(DEFAULT_VOCABULARY, "--quality-locked go", |index| {
            asked.push(index);
            Ok::<bool, ()>(true)
        });
        assert_eq!(asked, [1]);
        assert_eq!(result.unwrap().sources[..2], [Source::Flag, Source::Config]);
        let mut asked_on_error = 0;
        let _ = parse_with(DEFAULT_VOCABULARY, "--nope", |_| {
            asked_on_error += 1;
            Ok::<bool, ()>(true)
        });
        assert_eq!(asked_on_error, 0);
    }

    #[test]
    fn end_of_options_keeps_the_rest() {
        let result = parse("--autonomous -- --quality-locked  x ", &Defaults::NONE);
        assert_eq!(result.goal, "--quality-locked  x");
        assert_eq!(result.modes[..2], [false, true]);
        assert_eq!(parse("--", &Defaults::NONE).goal, "");
        assert_eq!(
            parse("---", &Defaults::NONE).error.unwrap(),
            "Unknown flag '---'. Supported flags: --quality-locked, --autonomous."
        );
    }

    #[test]
    fn json_line_matches_the_contract_example() {
        assert_eq!(
            json("--autonomous Ship dark mode"),
            "{\"quality_locked\": false, \"autonomous\": true, \"goal\": \"Ship dark mode\", \"error\": null, \
             \"quality_locked_source\": null, \"autonomous_source\": \"flag\"}"
        );
    }

    #[test]
    fn json_escapes_are_exactly_c17() {
        let mut out = String::new();
        push_json_string(&mut out, "\"\\\u{8}\t\n\u{c}\r\u{0}\u{1f}\u{7f}\u{2028}\u{1f600}é/");
        assert_eq!(out, "\"\\\"\\\\\\b\\t\\n\\f\\r\\u0000\\u001f\u{7f}\u{2028}\u{1f600}é/\"");
    }

    /// The escape rule per character, written plainly (the fast path skips 32-byte chunks).
    fn escaped_plainly(value: &str) -> String {
        let mut out = String::from("\"");
        for c in value.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\u{8}' => out.push_str("\\b"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\u{c}' => out.push_str("\\f"),
                '\r' => out.push_str("\\r"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn escapes_at_every_position_around_chunk_edges() {
        for special in ['"', '\\', '\u{0}', '\u{1f}', '\n', '\u{7f}', 'é', '\u{1f600}'] {
            for len in [0, 1, 31, 32, 33, 63, 64, 65, 100] {
                for at in 0..len {
                    let value: String = (0..len).map(|i| if i == at || i == len - 1 { special } else { 'a' }).collect();
                    let mut out = String::new();
                    push_json_string(&mut out, &value);
                    assert_eq!(out, escaped_plainly(&value), "{special:?} at {at} of {len}");
                }
            }
        }
    }

    #[test]
    fn invalid_utf8_bytes_are_e4() {
        for bad in [&b"\xc0\xaf"[..], b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"go \xe9", b"\xe2\x82"] {
            assert_eq!(parse_bytes(bad, &Defaults::NONE).error.as_deref(), Some(E4));
        }
        assert_eq!(parse_bytes("\u{10ffff}".as_bytes(), &Defaults::NONE).goal, "\u{10ffff}");
    }

    #[test]
    fn nul_is_an_ordinary_character_in_the_library() {
        let result = parse("--autonomous a\0b", &Defaults::NONE);
        assert_eq!(result.goal, "a\0b");
        assert!(result.to_json().contains("a\\u0000b"));
    }

    #[test]
    fn every_vocabulary_parses_with_its_own_modes() {
        let sage_1_3 = Vocabulary::named(b"sage-1.3").unwrap();
        let result = parse("--subagents go", &Defaults::none(sage_1_3));
        assert_eq!(
            result.to_json(),
            "{\"quality_locked\": false, \"autonomous\": false, \"subagents\": true, \"goal\": \"go\", \"error\": null, \
             \"quality_locked_source\": null, \"autonomous_source\": null, \"subagents_source\": \"flag\"}"
        );
        let error = parse("--parallel go", &Defaults::none(sage_1_3)).error.unwrap();
        assert_eq!(error, "Unknown flag '--parallel'. Supported flags: --quality-locked, --autonomous, --subagents.");
        let newest = Defaults::none(Vocabulary::named(b"sage-1.3.18").unwrap());
        assert_eq!(parse("--parallel=9 go", &newest).number("parallel_lanes"), Some(4));
        assert!(parse("--subagents go", &Defaults::NONE).error.unwrap().starts_with("Unknown flag '--subagents'."));
        assert_eq!(Vocabulary::named(b"sage-9"), None);
        assert_eq!(DEFAULT_VOCABULARY.name, "sage-1.1");
    }

    #[test]
    fn ten_thousand_flags_parse_in_linear_time() {
        // C21: a 128 KiB ARGUMENTS; a quadratic scan would take seconds.
        let mut text = "--autonomous ".repeat(10_000);
        text.push_str("goal");
        let start = std::time::Instant::now();
        for _ in 0..10 {
            assert_eq!(parse(&text, &Defaults::NONE).goal, "goal");
        }
        assert!(start.elapsed().as_secs() < 10);
    }
}
