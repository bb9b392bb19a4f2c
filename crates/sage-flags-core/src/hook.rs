//! `hook HARNESS [--config-path P] [--workflow NAME]...`: a harness's prompt hook (docs/SPEC.md
//! K1-K12), the same bytes and statuses as `python/sage_flags/hook.py`. It reads one event with a
//! small strict JSON reader (RFC 8259, exactly what Python's `json.loads` accepts with duplicate
//! keys and NaN refused) and answers in the harness's protocol; our own failures fail open (K8).

use std::collections::HashSet;
use std::io::{self, Read, Write};

use crate::announce::{is_workflow_name, render};
use crate::cli::{OK, WRITE_FAILED, WRITE_FAILED_MESSAGE};
use crate::vocab::HOOK_LABEL;
use crate::{load_defaults_in, parse_bytes, push_json_string, Defaults, ParseResult, Vocabulary};

/// K8 (D19): our own failure; the harness goes on without this hook.
pub const FAIL_OPEN: i32 = 3;
/// K2: the most bytes of one event.
pub const EVENT_LIMIT: usize = 1 << 20;
/// K2: the deepest nesting of arrays and objects.
pub const DEPTH_LIMIT: usize = 64;
/// K7: the harnesses' limit on one string, in UTF-16 code units, and what a cut string keeps.
pub const CAP: usize = 10_000;
const CUT_TO: usize = 9_000;

/// A JSON value as far as the hook needs it: strings are WTF-8 (a lone `\ud800` escape is kept as
/// its three-byte form, which is not UTF-8, so the parse reports E4 for it, D10.2).
#[derive(Debug, PartialEq)]
enum Json {
    Object(Vec<(Vec<u8>, Json)>),
    Text(Vec<u8>),
    Other,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

type Parsed<T> = Result<T, &'static str>;
const NOT_JSON: &str = "the event is not one JSON object in UTF-8";

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Parsed<()> {
        if self.peek() != Some(byte) {
            return Err(NOT_JSON);
        }
        self.at += 1;
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    fn value(&mut self, depth: usize) -> Parsed<Json> {
        match self.peek().ok_or(NOT_JSON)? {
            b'{' | b'[' if depth == DEPTH_LIMIT => Err("the event nests deeper than 64 levels"),
            b'{' => self.object(depth + 1),
            b'[' => {
                self.at += 1;
                self.skip_whitespace();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Ok(Json::Other);
                }
                loop {
                    self.skip_whitespace();
                    self.value(depth + 1)?;
                    self.skip_whitespace();
                    match self.peek() {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Other);
                        }
                        _ => return Err(NOT_JSON),
                    }
                }
            }
            b'"' => self.string().map(Json::Text),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => {
                // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, never converted
                if self.peek() == Some(b'-') {
                    self.at += 1;
                }
                match self.peek() {
                    Some(b'0') => self.at += 1,
                    Some(b'1'..=b'9') => {
                        self.digits();
                    }
                    _ => return Err(NOT_JSON),
                }
                if self.peek() == Some(b'.') {
                    self.at += 1;
                    if self.digits() == 0 {
                        return Err(NOT_JSON);
                    }
                }
                if matches!(self.peek(), Some(b'e' | b'E')) {
                    self.at += 1;
                    if matches!(self.peek(), Some(b'+' | b'-')) {
                        self.at += 1;
                    }
                    if self.digits() == 0 {
                        return Err(NOT_JSON);
                    }
                }
                Ok(Json::Other)
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Parsed<Json> {
        if !self.bytes[self.at..].starts_with(word) {
            return Err(NOT_JSON);
        }
        self.at += word.len();
        Ok(Json::Other)
    }

    fn object(&mut self, depth: usize) -> Parsed<Json> {
        self.at += 1;
        let mut members: Vec<(Vec<u8>, Json)> = Vec::new();
        let mut keys = HashSet::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(NOT_JSON);
            }
            let key = self.string()?;
            if !keys.insert(key.clone()) {
                return Err(NOT_JSON); // a duplicate key: which one would the harness mean?
            }
            self.skip_whitespace();
            self.expect(b':')?;
            self.skip_whitespace();
            let value = self.value(depth)?;
            members.push((key, value));
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(NOT_JSON),
            }
        }
    }

    fn hex4(&mut self) -> Parsed<u32> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or(NOT_JSON)?;
        let text = std::str::from_utf8(digits).map_err(|_| NOT_JSON)?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(NOT_JSON);
        }
        self.at += 4;
        u32::from_str_radix(text, 16).map_err(|_| NOT_JSON)
    }

    fn string(&mut self) -> Parsed<Vec<u8>> {
        self.at += 1; // the opening quote
        let mut out = Vec::new();
        loop {
            let byte = self.peek().ok_or(NOT_JSON)?;
            self.at += 1;
            match byte {
                b'"' => return Ok(out),
                0..=0x1f => return Err(NOT_JSON), // a raw control character
                b'\\' => {
                    let escaped = self.peek().ok_or(NOT_JSON)?;
                    self.at += 1;
                    let simple = match escaped {
                        b'"' => b'"',
                        b'\\' => b'\\',
                        b'/' => b'/',
                        b'b' => 0x08,
                        b'f' => 0x0c,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'u' => {
                            let mut code = self.hex4()?;
                            if (0xd800..0xdc00).contains(&code) && self.bytes[self.at..].starts_with(b"\\u") {
                                let after_high = self.at;
                                self.at += 2;
                                let low = self.hex4()?;
                                if (0xdc00..0xe000).contains(&low) {
                                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                                } else {
                                    self.at = after_high; // read again as an escape of its own
                                }
                            }
                            push_wtf8(&mut out, code);
                            continue;
                        }
                        _ => return Err(NOT_JSON),
                    };
                    out.push(simple);
                }
                _ => out.push(byte), // the event is valid UTF-8: copied as it is
            }
        }
    }
}

/// A code point as UTF-8, a surrogate in UTF-8's three-byte pattern (WTF-8).
fn push_wtf8(out: &mut Vec<u8>, code: u32) {
    match code {
        0..=0x7f => out.push(code as u8),
        0x80..=0x7ff => out.extend_from_slice(&[0xc0 | (code >> 6) as u8, 0x80 | (code & 0x3f) as u8]),
        0x800..=0xffff => out.extend_from_slice(&[
            0xe0 | (code >> 12) as u8,
            0x80 | ((code >> 6) & 0x3f) as u8,
            0x80 | (code & 0x3f) as u8,
        ]),
        _ => out.extend_from_slice(&[
            0xf0 | (code >> 18) as u8,
            0x80 | ((code >> 12) & 0x3f) as u8,
            0x80 | ((code >> 6) & 0x3f) as u8,
            0x80 | (code & 0x3f) as u8,
        ]),
    }
}

/// K2: the event's members: one JSON object in UTF-8, nothing after it but whitespace.
fn read_event(bytes: &[u8]) -> Parsed<Vec<(Vec<u8>, Json)>> {
    std::str::from_utf8(bytes).map_err(|_| NOT_JSON)?;
    let mut reader = Reader { bytes, at: 0 };
    reader.skip_whitespace();
    let value = reader.value(0)?;
    reader.skip_whitespace();
    if reader.at != bytes.len() {
        return Err(NOT_JSON);
    }
    match value {
        Json::Object(members) => Ok(members),
        _ => Err("the event is not a JSON object"),
    }
}

/// SHA-256 (FIPS 180-4) of `data`, as 64 lowercase hex digits (K5).
pub fn sha256_hex(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut state: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in message.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = state;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let choice = (e & f) ^ (!e & g);
            let t1 = h.wrapping_add(s1).wrapping_add(choice).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let majority = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(majority);
            (h, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
        }
        for (word, add) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *word = word.wrapping_add(add);
        }
    }
    state.iter().map(|word| format!("{word:08x}")).collect()
}

/// K7: the length the harnesses limit, in UTF-16 code units.
fn units(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// K7: `text` itself within the cap, else its longest prefix of at most 9,000 units and a note.
pub fn fit(text: &str) -> String {
    let total = units(text);
    if total <= CAP {
        return text.to_owned();
    }
    let (mut kept, mut end) = (0, 0);
    for (at, c) in text.char_indices() {
        if kept + c.len_utf16() > CUT_TO {
            break;
        }
        kept += c.len_utf16();
        end = at + c.len_utf8();
    }
    let tail = if text.ends_with('\n') { "\n" } else { "" };
    format!(
        "{}\u{2026}\n(sage-flags: the first {kept} of {total} characters; hook output is limited to {CAP}){tail}",
        &text[..end]
    )
}

/// K5-K7: the agent's context: the label, then parse's line (or K7's short form of it).
fn context(workflow: &str, arguments: &[u8], result: &ParseResult) -> String {
    let label = format!(
        "{HOOK_LABEL} for /{workflow} (ARGUMENTS: {} bytes, SHA-256 {}); ",
        arguments.len(),
        sha256_hex(arguments)
    );
    let line = result.to_json();
    let full = format!("{label}sage-flags parse printed:\n{line}\n");
    if units(&full) <= CAP {
        return full;
    }
    let digest = |key: &str, text: &str| {
        format!("\"{key}_bytes\": {}, \"{key}_sha256\": \"{}\"", text.len(), sha256_hex(text.as_bytes()))
    };
    let json_text = |text: Option<&str>| {
        text.map_or_else(
            || "null".to_owned(),
            |text| {
                let mut out = String::new();
                push_json_string(&mut out, text);
                out
            },
        )
    };
    let mut members: Vec<String> =
        result.vocabulary.modes.iter().zip(result.modes).map(|((key, _), on)| format!("\"{key}\": {on}")).collect();
    members.push(digest("goal", &result.goal));
    members.push("\"error\": null".to_owned()); // a clean parse
    for ((key, _), source) in result.vocabulary.modes.iter().zip(result.sources) {
        members.push(format!("\"{key}_source\": {}", json_text(source.as_str())));
    }
    for ((value, number), note) in result.vocabulary.value_modes.iter().zip(result.numbers).zip(&result.notes) {
        members.push(format!("\"{}\": {number}", value.field));
        members.push(match note {
            Some(note) => digest(value.note_field, note),
            None => format!("\"{}\": null", value.note_field),
        });
    }
    fit(&format!(
        "{label}sage-flags parse printed a line of {} characters, over the {CAP}-character limit of hook output; \
         here it is with each text replaced by its UTF-8 length and SHA-256 (the text is in the command's \
         arguments):\n{{{}}}\n",
        units(&line),
        members.join(", ")
    ))
}

/// K1: the harness, the config path and the workflows of the command line.
struct Options<'a> {
    vocab: &'static Vocabulary,
    codex: bool,
    config_path: Option<&'a [u8]>,
    workflows: Vec<&'a [u8]>,
}

fn options<'a, A: AsRef<[u8]>>(vocab: &'static Vocabulary, items: &'a [A]) -> Parsed<Options<'a>> {
    let mut iter = items.iter().map(AsRef::as_ref);
    let codex = match iter.next() {
        Some(b"claude-code") => false,
        Some(b"codex") => true,
        _ => return Err("the first item must be the harness: claude-code or codex"),
    };
    let mut found = Options { vocab, codex, config_path: None, workflows: Vec::new() };
    while let Some(item) = iter.next() {
        let (name, value) = match item.iter().position(|&b| b == b'=') {
            Some(at) => (&item[..at], Some(&item[at + 1..])),
            None => (item, None),
        };
        if name != b"--config-path" && name != b"--workflow" {
            return Err("unknown item in the command line (only --config-path P and --workflow NAME)");
        }
        let value = match value.or_else(|| iter.next()) {
            Some(value) => value,
            None if name == b"--config-path" => return Err("--config-path needs a value"),
            None => return Err("--workflow needs a value"),
        };
        if name == b"--config-path" {
            found.config_path = Some(value);
        } else if is_workflow_name(value) {
            found.workflows.push(value);
        } else {
            return Err("a --workflow name must match ^[a-z][a-z0-9-]*$");
        }
    }
    if found.workflows.is_empty() {
        found.workflows = vocab.workflows.iter().map(|name| name.as_bytes()).collect();
    }
    Ok(found)
}

fn text_field<'a>(members: &'a [(Vec<u8>, Json)], name: &str) -> Option<&'a [u8]> {
    members.iter().find(|(key, _)| key == name.as_bytes()).and_then(|(_, value)| match value {
        Json::Text(text) => Some(text.as_slice()),
        _ => None,
    })
}

/// C5 on bytes.
fn is_space(byte: &u8) -> bool {
    crate::is_whitespace(*byte)
}

/// K3: the workflow a command name calls (`build`, or `build` namespaced), or `None`.
fn workflow_of<'a>(command: &[u8], namespace: &[u8], workflows: &[&'a [u8]]) -> Option<&'a [u8]> {
    let name = command.strip_prefix(namespace).unwrap_or(command);
    workflows.iter().copied().find(|workflow| *workflow == name)
}

/// K2-K7: the whole stdout for one event (empty for a prompt that is no workflow).
fn answer(members: &[(Vec<u8>, Json)], options: &Options<'_>) -> Parsed<Vec<u8>> {
    let event = text_field(members, "hook_event_name");
    let expansion = match event {
        Some(b"UserPromptExpansion") if !options.codex => true,
        Some(b"UserPromptSubmit") => false,
        _ if options.codex => return Err("the event is not one this hook answers (UserPromptSubmit)"),
        _ => return Err("the event is not one this hook answers (UserPromptExpansion, UserPromptSubmit)"),
    };
    let namespace: &[u8] = if options.codex { b"prompts:" } else { b"sage:" };
    let (workflow, arguments) = if expansion {
        let command = text_field(members, "command_name").ok_or("the event's command_name is not a string")?;
        let arguments = text_field(members, "command_args").ok_or("the event's command_args is not a string")?;
        (workflow_of(command, namespace, &options.workflows), arguments)
    } else {
        let prompt = text_field(members, "prompt").ok_or("the event's prompt is not a string")?;
        match prompt.strip_prefix(b"/") {
            None => (None, &b""[..]),
            Some(rest) => {
                let end = rest.iter().position(is_space).unwrap_or(rest.len());
                let after = &rest[end..];
                let skip = after.iter().position(|b| !is_space(b)).unwrap_or(after.len());
                (workflow_of(&rest[..end], namespace, &options.workflows), &after[skip..])
            }
        }
    };
    let Some(workflow) = workflow else { return Ok(Vec::new()) };
    let workflow = String::from_utf8_lossy(workflow); // ASCII (A1)
    let defaults =
        options.config_path.map_or(Defaults::none(options.vocab), |path| load_defaults_in(options.vocab, path)); // C11, C20
                                                                                                                 // K6: NUL is E4 (as on standard input, I3); a lone surrogate is not UTF-8: E4 (D10.2).
    let result = if arguments.contains(&0) {
        ParseResult::from_error_in(options.vocab, crate::E4.to_owned())
    } else {
        parse_bytes(arguments, &defaults)
    };
    let (announcement, ok) = render(&workflow, &result);
    let mut out = String::new();
    if ok {
        out.push_str("{\"hookSpecificOutput\": {\"hookEventName\": ");
        push_json_string(&mut out, if expansion { "UserPromptExpansion" } else { "UserPromptSubmit" });
        out.push_str(", \"additionalContext\": ");
        push_json_string(&mut out, &context(&workflow, arguments, &result));
        out.push_str("}, \"systemMessage\": ");
        push_json_string(&mut out, &fit(&announcement));
    } else {
        out.push_str("{\"decision\": \"block\", \"reason\": ");
        push_json_string(&mut out, &fit(announcement.trim_end_matches('\n')));
    }
    out.push_str("}\n");
    Ok(out.into_bytes())
}

fn event_bytes(stdin: Option<&mut dyn Read>) -> Parsed<Vec<u8>> {
    let stdin = stdin.ok_or("standard input is a terminal, not a hook event")?;
    let mut data = Vec::new();
    let mut limited = stdin.take(EVENT_LIMIT as u64 + 1);
    loop {
        match limited.read_to_end(&mut data) {
            Ok(_) => break,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return Err("cannot read standard input"),
        }
    }
    if data.len() > EVENT_LIMIT {
        return Err("the event exceeds 1048576 bytes");
    }
    Ok(data)
}

/// `hook ARGV...` (K1-K12): `args` are the items after `hook`; `stdin` is `None` for a terminal; `vocab` the
/// vocabulary the dispatcher chose (docs/SPEC.md B2).
/// Returns the exit status: 0 answered (or nothing to answer), 3 failed open, 4 stdout failed.
pub fn run_hook<A: AsRef<[u8]>>(
    vocab: &'static Vocabulary,
    args: &[A],
    stdin: Option<&mut dyn Read>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    let answered = options(vocab, args)
        .and_then(|options| event_bytes(stdin).and_then(|bytes| answer(&read_event(&bytes)?, &options)));
    match answered {
        Ok(out) if out.is_empty() => OK,
        Ok(out) => match stdout.write_all(&out).and_then(|()| stdout.flush()) {
            Ok(()) => OK,
            Err(_) => {
                let _ = stderr.write_all(WRITE_FAILED_MESSAGE.as_bytes());
                WRITE_FAILED
            }
        },
        Err(message) => {
            let _ = writeln!(stderr, "sage-flags: hook: {message}; not answering (the prompt goes on without it)");
            FAIL_OPEN
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(args: &[&str], event: &str) -> (i32, String, String) {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let status = run_hook(crate::DEFAULT_VOCABULARY, args, Some(&mut event.as_bytes()), &mut stdout, &mut stderr);
        (status, String::from_utf8(stdout).unwrap(), String::from_utf8(stderr).unwrap())
    }

    #[test]
    fn sha256_of_known_texts() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let long = vec![b'a'; 1_000_000];
        assert_eq!(sha256_hex(&long), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }

    #[test]
    fn strict_json() {
        for bad in [
            "",
            "{",
            "[]",
            "{\"a\":1,}",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":NaN}",
            "{\"a\":\"\u{1}\"}",
            "{\"a\":1} x",
            "{\"a\":1,\"a\":2}",
            "\u{feff}{}",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12g4\"}",
            "{'a':1}",
        ] {
            assert!(read_event(bad.as_bytes()).is_err(), "{bad:?}");
        }
        for good in ["{}", " {\"a\" : [1, -0.5e+3, true, null, {\"b\": []}]} \n", "{\"a\":\"\\ud800\\u0041\"}"] {
            assert!(read_event(good.as_bytes()).is_ok(), "{good:?}");
        }
        let deep = |n: usize| format!("{{\"a\":{}1{}}}", "[".repeat(n), "]".repeat(n));
        assert!(read_event(deep(63).as_bytes()).is_ok());
        assert!(read_event(deep(64).as_bytes()).is_err());
        let members = read_event(br#"{"s":"\ud83d\ude00\ud800\"\/"}"#).unwrap();
        assert_eq!(members[0].1, Json::Text(b"\xf0\x9f\x98\x80\xed\xa0\x80\"/".to_vec()));
    }

    #[test]
    fn answers_and_fails_open() {
        let (status, out, err) =
            hook(&["codex"], r#"{"hook_event_name":"UserPromptSubmit","prompt":"/prompts:build  --autonomous go"}"#);
        assert_eq!((status, err.as_str()), (OK, ""));
        assert!(out.starts_with("{\"hookSpecificOutput\": {\"hookEventName\": \"UserPromptSubmit\""), "{out}");
        assert!(out.contains("(ARGUMENTS: 15 bytes, SHA-256 "), "{out}");
        let (status, out, _) = hook(&["codex"], r#"{"hook_event_name":"UserPromptSubmit","prompt":"/builder x"}"#);
        assert_eq!((status, out.as_str()), (OK, ""));
        let (status, out, _) = hook(
            &["claude-code", "--workflow=ship"],
            r#"{"hook_event_name":"UserPromptExpansion","command_name":"sage:ship","command_args":"--x"}"#,
        );
        assert_eq!(status, OK);
        assert!(out.starts_with("{\"decision\": \"block\", \"reason\": \"Sage: Unknown flag '--x'."), "{out}");
        for (args, event) in [
            (&["codex"][..], r#"{"hook_event_name":"UserPromptExpansion","command_name":"build","command_args":""}"#),
            (&["claude-code"], r#"{"hook_event_name":"UserPromptExpansion","command_name":"build"}"#),
            (&["nope"], r#"{"hook_event_name":"UserPromptSubmit","prompt":"/build"}"#),
            (&["codex", "--workflow"], r#"{"hook_event_name":"UserPromptSubmit","prompt":"/build"}"#),
            (&["codex"], "not json"),
        ] {
            let (status, out, err) = hook(args, event);
            assert_eq!((status, out.as_str(), err.matches('\n').count()), (FAIL_OPEN, "", 1), "{args:?} {event}");
        }
    }

    #[test]
    fn long_texts_are_cut() {
        let text = "\u{1f600}".repeat(6000);
        let cut = fit(&text);
        assert!(cut.starts_with(&"\u{1f600}".repeat(4500)));
        assert!(cut.ends_with("(sage-flags: the first 9000 of 12000 characters; hook output is limited to 10000)"));
        assert_eq!(fit("short\n"), "short\n");
    }
}
