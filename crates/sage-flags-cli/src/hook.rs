//! `hook HARNESS [--config-path P] [--workflow NAME]...`: a harness's prompt hook (docs/SPEC.md
//! K1-K12), the same bytes and statuses as `python/sage_flags/hook.py`. serde_json reads the event
//! (only the fields the hook reads are deserialized; every other value is checked as JSON and
//! skipped), sha2 hashes ARGUMENTS; our own failures fail open (K8).

use serde::Deserialize;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use std::io::{Read, Write};

use sage_flags_core::announce::{is_workflow_name, render};
use sage_flags_core::io::{read_bounded, write_out, OK, UNAVAILABLE};
use sage_flags_core::vocab::HOOK_LABEL;
use sage_flags_core::{load_defaults_in, parse_bytes, push_json_string, Defaults, ParseResult, Vocabulary};

/// K8 (D19): our own failure; the harness goes on without this hook.
pub const FAIL_OPEN: i32 = UNAVAILABLE;
/// K2: the most bytes of one event.
pub const EVENT_LIMIT: usize = 1 << 20;
/// K2: the deepest nesting of arrays and objects, the event's own object included.
pub const DEPTH_LIMIT: usize = 128;
/// K7: the harnesses' limit on one string, in UTF-16 code units, and what a cut string keeps.
pub const CAP: usize = 10_000;
const CUT_TO: usize = 9_000;

type Parsed<T> = Result<T, String>;
/// K2/K8: the one reason for every event that is not K2's JSON (python/sage_flags/hook.py says the same).
const NOT_JSON: &str =
    "the event is not one JSON object (RFC 8259 in UTF-8, at most 128 levels deep, no field the hook reads twice)";

/// K2: the fields the hook reads, each still as JSON; serde refuses one given twice.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow)]
    hook_event_name: Option<&'a RawValue>,
    #[serde(borrow)]
    prompt: Option<&'a RawValue>,
    #[serde(borrow)]
    command_name: Option<&'a RawValue>,
    #[serde(borrow)]
    command_args: Option<&'a RawValue>,
}

/// K2: how deep arrays and objects nest (strings skipped); serde_json skips unread values
/// without a depth limit, so the bound is checked here, before they are read.
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for byte in text.bytes() {
        match (in_string, byte) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') | (false, b'"') => in_string = !in_string,
            (false, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// K2: the event: one JSON object in UTF-8 (no BOM), nothing after it but whitespace.
fn read_event(bytes: &[u8]) -> Parsed<Event<'_>> {
    let text = std::str::from_utf8(bytes).map_err(|_| NOT_JSON)?;
    // serde would read an array as a struct's fields in order: only an object is an event.
    if !text.trim_start_matches([' ', '\t', '\n', '\r']).starts_with('{') || nesting(text) > DEPTH_LIMIT {
        return Err(NOT_JSON.to_owned());
    }
    serde_json::from_str(text).map_err(|_| NOT_JSON.to_owned())
}

/// K2: a field's text; `Err` says why it has none (absent or not a string, or a lone surrogate
/// escape, which is no Unicode text).
fn text_of(field: Option<&RawValue>, name: &str) -> Parsed<String> {
    let json = field.map_or("null", RawValue::get);
    serde_json::from_str::<String>(json).map_err(|_| match json.starts_with('"') {
        true => format!("the event's {name} holds a lone surrogate escape"),
        false => format!("the event's {name} is not a string"),
    })
}

/// SHA-256 of `data`, as 64 lowercase hex digits (K5).
fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|byte| format!("{byte:02x}")).collect()
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

fn options<'a, A: AsRef<[u8]>>(vocab: &'static Vocabulary, items: &'a [A]) -> Result<Options<'a>, &'static str> {
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

/// C5 on bytes.
fn is_space(byte: &u8) -> bool {
    sage_flags_core::is_whitespace(*byte)
}

/// K3: the workflow a command name calls (`build`, or `build` namespaced), or `None`.
fn workflow_of<'a>(command: &[u8], namespace: &[u8], workflows: &[&'a [u8]]) -> Option<&'a [u8]> {
    let name = command.strip_prefix(namespace).unwrap_or(command);
    workflows.iter().copied().find(|workflow| *workflow == name)
}

/// K2-K7: the whole stdout for one event (empty for a prompt that is no workflow).
fn answer(event: &Event<'_>, options: &Options<'_>) -> Parsed<Vec<u8>> {
    let expansion = match text_of(event.hook_event_name, "hook_event_name").as_deref() {
        Ok("UserPromptExpansion") if !options.codex => true,
        Ok("UserPromptSubmit") => false,
        _ if options.codex => return Err("the event is not one this hook answers (UserPromptSubmit)".into()),
        _ => return Err("the event is not one this hook answers (UserPromptExpansion, UserPromptSubmit)".into()),
    };
    let namespace: &[u8] = if options.codex { b"prompts:" } else { b"sage:" };
    let (command, arguments);
    let (workflow, arguments) = if expansion {
        command = text_of(event.command_name, "command_name")?;
        arguments = text_of(event.command_args, "command_args")?;
        (workflow_of(command.as_bytes(), namespace, &options.workflows), arguments.as_bytes())
    } else {
        command = text_of(event.prompt, "prompt")?;
        match command.as_bytes().strip_prefix(b"/") {
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
    let defaults = // C11, C20
        options.config_path.map_or(Defaults::none(options.vocab), |path| load_defaults_in(options.vocab, path));
    // K6: a NUL is E4, as on standard input (I3).
    let result = if arguments.contains(&0) {
        ParseResult::from_error_in(options.vocab, sage_flags_core::E4.to_owned())
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

/// K2: standard input's bytes, at most [`EVENT_LIMIT`]; `None` is a terminal (never read).
fn event_bytes(stdin: Option<&mut dyn Read>) -> Parsed<Vec<u8>> {
    let stdin = stdin.ok_or("standard input is a terminal, not a hook event")?;
    let data = read_bounded(stdin, EVENT_LIMIT).map_err(|_| "cannot read standard input")?;
    if data.len() > EVENT_LIMIT {
        return Err(format!("the event exceeds {EVENT_LIMIT} bytes"));
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
        .map_err(String::from)
        .and_then(|options| event_bytes(stdin).and_then(|bytes| answer(&read_event(&bytes)?, &options)));
    match answered {
        Ok(out) if out.is_empty() => OK,
        Ok(out) => write_out(stdout, stderr, &out),
        Err(message) => fail_open(stderr, &message),
    }
}

/// K8: the hook's own failure: one stderr line and [`FAIL_OPEN`] (never 2, which blocks the person's prompt).
pub fn fail_open(stderr: &mut dyn Write, why: &str) -> i32 {
    // The status says it even when stderr is closed.
    let _ = writeln!(stderr, "sage-flags: hook: {why}; not answering (the prompt goes on without it)");
    FAIL_OPEN
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(args: &[&str], event: &str) -> (i32, String, String) {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let status =
            run_hook(sage_flags_core::DEFAULT_VOCABULARY, args, Some(&mut event.as_bytes()), &mut stdout, &mut stderr);
        (status, String::from_utf8(stdout).unwrap(), String::from_utf8(stderr).unwrap())
    }

    #[test]
    fn sha256_of_known_texts() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn strict_json() {
        for bad in [
            "",
            "{",
            "[]",
            "[\"UserPromptSubmit\", \"/build\"]",
            "{\"a\":1,}",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":NaN}",
            "{\"a\":\"\u{1}\"}",
            "{\"a\":1} x",
            "{\"prompt\":\"a\",\"prompt\":\"b\"}",
            "{\"pro\\ud800\":1}",
            "\u{feff}{}",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12g4\"}",
            "{'a':1}",
        ] {
            assert!(read_event(bad.as_bytes()).is_err(), "{bad:?}");
        }
        // Unread values: any JSON, a key twice, a lone surrogate, a number out of f64's range.
        for good in ["{}", " {\"a\" : [1, -0.5e+3, true, null, {\"b\": [], \"b\": 1e999}]} \n", "{\"a\":\"\\ud800\"}"] {
            assert!(read_event(good.as_bytes()).is_ok(), "{good:?}");
        }
        let deep = |n: usize| format!("{{\"a\":{}\"[{{\\\"\"{}}}", "[".repeat(n), "]".repeat(n));
        assert!(read_event(deep(DEPTH_LIMIT - 1).as_bytes()).is_ok());
        assert_eq!(read_event(deep(DEPTH_LIMIT).as_bytes()).err().as_deref(), Some(NOT_JSON));
        assert!(NOT_JSON.contains(&format!("at most {DEPTH_LIMIT} levels")));
        let event = read_event(br#"{"prompt":"\ud83d\ude00\"\/","command_args":"\udc00","command_name":7}"#).unwrap();
        assert_eq!(text_of(event.prompt, "prompt").unwrap(), "\u{1f600}\"/");
        assert_eq!(text_of(event.command_args, "c").unwrap_err(), "the event's c holds a lone surrogate escape");
        assert_eq!(text_of(event.command_name, "c").unwrap_err(), "the event's c is not a string");
        assert_eq!(text_of(event.hook_event_name, "c").unwrap_err(), "the event's c is not a string");
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
            (&["codex"], r#"{"hook_event_name":"UserPromptSubmit","prompt":"/build \ud800"}"#),
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
