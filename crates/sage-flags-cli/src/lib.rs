//! The native `sage-flags` program (docs/IMPLEMENTATION.md D26): [`program`] is the one dispatcher
//! of the Rust command line; `parse`, `batch` and `announce` are the core's, `hook` is [`hook`]'s.
#![forbid(unsafe_code)]

use std::io::{Read, Write};

use sage_flags_core::cli::{run_announce, run_batch_streaming, run_parse, Output};
use sage_flags_core::io::{write_out, OK, USAGE_ERROR, WRITE_FAILED, WRITE_FAILED_MESSAGE};
use sage_flags_core::vocab::{UNKNOWN_VOCABULARY, VOCABULARIES};
use sage_flags_core::Vocabulary;

pub mod hook;

/// The version every layer reports (`sage-flags --version`): the workspace's, equal to the Python package's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The subcommands only the Python package has: the native program hands them over (D26).
pub const PYTHON_ONLY: [&[u8]; 7] = [b"help", b"--help", b"-h", b"config", b"persist", b"resume", b"adopt"];

/// How the `sage-flags` program ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Done: exit with this status.
    Status(i32),
    /// A subcommand in [`PYTHON_ONLY`]: nothing was read or written; the caller hands the
    /// whole command line to the Python package of its installation.
    Python,
}

/// The native `sage-flags` program: `argv` is its command line without the program name.
/// `parse`, `batch` (streamed, C22), `announce`, `hook` and `--version` run here, with the same
/// bytes and statuses as the Python command line; a usage error is one `sage-flags: ...` line on
/// stderr and status 2. Like every layer, output that cannot be written (stdout closed, full,
/// or a reader gone) ends the program with status 4 and [`WRITE_FAILED_MESSAGE`] (H9).
/// `stdin_is_terminal`: `--stdin` and `hook` refuse to wait for a person to type (I5, K8).
/// The vocabulary is chosen first (docs/SPEC.md B2): `--vocabulary NAME` as the first item, else
/// SAGE_FLAGS_VOCABULARY, else the default; an unknown name is B3's one line and status 2, except under
/// `hook`, where it (and the option without its name) is K8's fail-open: status 3, never 2, which blocks a prompt.
pub fn program<A: AsRef<[u8]>>(
    argv: &[A],
    stdin: &mut dyn Read,
    stdin_is_terminal: bool,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Exit {
    let under_hook = subcommand(argv) == Some(b"hook".as_slice());
    let (vocab, argv) = match choose_vocabulary(argv) {
        Ok(chosen) => chosen,
        Err(VocabularyError::Unknown) if under_hook => {
            let why = UNKNOWN_VOCABULARY.strip_prefix("sage-flags: ").unwrap_or(UNKNOWN_VOCABULARY);
            return Exit::Status(hook::fail_open(stderr, why));
        }
        Err(VocabularyError::Unknown) => {
            let _ = writeln!(stderr, "{UNKNOWN_VOCABULARY}"); // B3: one line, status 2, no fallback
            return Exit::Status(USAGE_ERROR);
        }
        Err(VocabularyError::Usage(why)) if under_hook => return Exit::Status(hook::fail_open(stderr, why)),
        Err(VocabularyError::Usage(why)) => return usage(stderr, why),
    };
    let Some((command, args)) = argv.split_first() else {
        return usage(stderr, "a subcommand is required");
    };
    let output = match command.as_ref() {
        b"parse" => run_parse(vocab, args, (!stdin_is_terminal).then_some(stdin)),
        b"announce" => run_announce(vocab, args, (!stdin_is_terminal).then_some(stdin)),
        b"hook" => {
            let stdin = (!stdin_is_terminal).then_some(stdin);
            return Exit::Status(hook::run_hook(vocab, args, stdin, stdout, stderr));
        }
        b"--version" | b"-V" => Output { stdout: version_line().into_bytes(), ..Output::default() },
        b"batch" => return batch(vocab, args, stdin, stdout, stderr),
        name if PYTHON_ONLY.contains(&name) => return Exit::Python,
        name => return usage(stderr, &format!("unknown subcommand '{}'", String::from_utf8_lossy(name))),
    };
    if output.status == USAGE_ERROR {
        return usage(stderr, String::from_utf8_lossy(&output.stderr).trim_end_matches('\n'));
    }
    match write_out(stdout, stderr, &output.stdout) {
        OK => Exit::Status(output.status),
        failed => Exit::Status(failed),
    }
}

/// B4: `--version`'s line: the version and every vocabulary this build carries (the launcher reads it).
pub fn version_line() -> String {
    let names: Vec<&str> = VOCABULARIES.iter().map(|vocab| vocab.name).collect();
    format!("sage-flags {VERSION} (vocabularies: {})\n", names.join(", "))
}

enum VocabularyError {
    Unknown,
    Usage(&'static str),
}

/// B3: the usage errors of the option itself (the command line's shape, judged before the name).
const NO_VOCABULARY_NAME: &str = "--vocabulary needs a name";
const VOCABULARY_REPEATED: &str = "--vocabulary given more than once";

fn is_vocabulary_option(item: &[u8]) -> bool {
    item == b"--vocabulary" || item.starts_with(b"--vocabulary=")
}

/// B3: the item in the subcommand's place, past every option before it (`--vocabulary=NAME`, `--vocabulary` with
/// the item after it, unless that is `hook` or nothing: `--vocabulary hook` is the option without its name).
fn subcommand<A: AsRef<[u8]>>(argv: &[A]) -> Option<&[u8]> {
    let items: Vec<&[u8]> = argv.iter().map(AsRef::as_ref).collect();
    let mut place = 0;
    while let Some(item) = items.get(place) {
        place += match (*item, items.get(place + 1).copied()) {
            (b"--vocabulary", None | Some(b"hook")) => 1,
            (b"--vocabulary", Some(_)) => 2,
            (item, _) if item.starts_with(b"--vocabulary=") => 1,
            _ => break,
        };
    }
    items.get(place).copied()
}

/// B2: `--vocabulary NAME` (or `--vocabulary=NAME`) before the subcommand, else SAGE_FLAGS_VOCABULARY, else the
/// default; the rest of argv. Only the first item is looked at: after the subcommand it is an operand. B3, in this
/// order: no name after it, an empty one or `hook` (no vocabulary is named so) is the option without its name;
/// an option again right after it is the option given twice; then a name this build does not carry is unknown.
/// No trimming: a name is a vocabulary's only when it is exactly one, byte for byte.
fn choose_vocabulary<A: AsRef<[u8]>>(argv: &[A]) -> Result<(&'static Vocabulary, &[A]), VocabularyError> {
    let (name, rest) = match argv.first().map(AsRef::as_ref) {
        Some(b"--vocabulary") => match argv.get(1).map(AsRef::as_ref) {
            Some(b"" | b"hook") | None => return Err(VocabularyError::Usage(NO_VOCABULARY_NAME)),
            Some(name) if is_vocabulary_option(name) => return Err(VocabularyError::Usage(VOCABULARY_REPEATED)),
            Some(name) => (Some(name), &argv[2..]),
        },
        Some(b"--vocabulary=") => return Err(VocabularyError::Usage(NO_VOCABULARY_NAME)),
        Some(item) if item.starts_with(b"--vocabulary=") => (Some(&item[b"--vocabulary=".len()..]), &argv[1..]),
        _ => (None, argv),
    };
    if name.is_some() && rest.first().is_some_and(|item| is_vocabulary_option(item.as_ref())) {
        return Err(VocabularyError::Usage(VOCABULARY_REPEATED));
    }
    let vocab = match name {
        Some(name) => Vocabulary::named(name),
        None => Vocabulary::from_environment(),
    };
    vocab.map(|vocab| (vocab, rest)).ok_or(VocabularyError::Unknown)
}

fn batch<A: AsRef<[u8]>>(
    vocab: &'static Vocabulary,
    args: &[A],
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Exit {
    match run_batch_streaming(vocab, args, stdin, stdout) {
        Ok(Ok(status)) => Exit::Status(status),
        Ok(Err(message)) => usage(stderr, message),
        Err(_) => {
            let _ = stderr.write_all(WRITE_FAILED_MESSAGE.as_bytes()); // nothing more to do if stderr is gone
            Exit::Status(WRITE_FAILED)
        }
    }
}

fn usage(stderr: &mut dyn Write, message: &str) -> Exit {
    // Nothing more can be done when stderr itself is gone.
    let _ = writeln!(stderr, "sage-flags: {message} (try 'sage-flags --help')");
    Exit::Status(USAGE_ERROR)
}
#[cfg(test)]
mod program_tests {
    use super::*;
    use sage_flags_core::io::PARSE_ERROR;
    use sage_flags_core::DEFAULT_VOCABULARY;
    use std::io;

    /// (exit, stdout, stderr) of the program on `argv` and `stdin`.
    fn call(argv: &[&str], stdin: &[u8]) -> (Exit, Vec<u8>, Vec<u8>) {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let exit = program(argv, &mut &stdin[..], false, &mut stdout, &mut stderr);
        (exit, stdout, stderr)
    }

    #[test]
    fn native_subcommands_match_run() {
        let (exit, stdout, stderr) = call(&["parse", "--autonomous", "go"], b"");
        assert_eq!(
            (exit, stdout, stderr.is_empty()),
            (Exit::Status(OK), run_parse(DEFAULT_VOCABULARY, &["--autonomous", "go"], None).stdout, true)
        );
        let (exit, stdout, _) = call(&["announce", "build", "--nope"], b"");
        assert_eq!(exit, Exit::Status(PARSE_ERROR));
        assert!(stdout.starts_with(b"Sage: Unknown flag '--nope'."));
        let (exit, stdout, _) = call(&["batch"], b"a\0--x\0");
        assert_eq!((exit, stdout.iter().filter(|&&b| b == b'\n').count()), (Exit::Status(PARSE_ERROR), 2));
        let (exit, stdout, _) = call(&["--version"], b"");
        let want = format!("sage-flags {VERSION} (vocabularies: sage-1.1, sage-1.3, sage-1.3.18)\n");
        assert_eq!((exit, stdout), (Exit::Status(OK), want.into_bytes()));
    }

    #[test]
    fn the_vocabulary_is_chosen_before_the_subcommand_only() {
        // B2: the option names it; after the subcommand the same items are ARGUMENTS (an E1 here, a goal there).
        let (exit, stdout, _) = call(&["--vocabulary", "sage-1.3", "parse", "--subagents", "go"], b"");
        assert_eq!(exit, Exit::Status(OK));
        assert!(stdout.starts_with(b"{\"quality_locked\": false, \"autonomous\": false, \"subagents\": true"));
        let (exit, stdout, _) = call(&["--vocabulary=sage-1.3.18", "parse", "--parallel=3"], b"");
        assert_eq!(exit, Exit::Status(OK));
        assert!(String::from_utf8(stdout).unwrap().contains("\"parallel_lanes\": 3"));
        let (exit, stdout, _) = call(&["parse", "--vocabulary", "sage-1.3", "--subagents"], b"");
        assert_eq!(exit, Exit::Status(PARSE_ERROR));
        let holds = |text: &[u8], part: &[u8]| text.windows(part.len()).any(|w| w == part);
        assert!(holds(&stdout, b"Unknown flag '--vocabulary'."));
        let (exit, stdout, _) = call(&["parse", "go", "--vocabulary", "sage-1.3"], b"");
        assert_eq!(exit, Exit::Status(OK));
        assert!(holds(&stdout, b"\"goal\": \"go --vocabulary sage-1.3\""));
        for argv in [&["--vocabulary", "sage-9", "parse", "x"][..], &["--vocabulary=", "parse", "x"], &["--vocabulary"]]
        {
            let (exit, stdout, stderr) = call(argv, b"");
            assert_eq!((exit, stdout.is_empty()), (Exit::Status(USAGE_ERROR), true), "{argv:?}");
            assert_eq!(stderr.iter().filter(|&&b| b == b'\n').count(), 1, "{argv:?}");
        }
        let (_, _, stderr) = call(&["--vocabulary", "sage-9", "parse", "x"], b"");
        assert_eq!(stderr, format!("{UNKNOWN_VOCABULARY}\n").into_bytes());
    }

    #[test]
    fn one_reading_of_the_vocabulary_name() {
        // B3's table: the option's shape first (no name, given twice), then the name, exactly (nothing trimmed).
        let line = |why: &str| format!("sage-flags: {why} (try 'sage-flags --help')\n").into_bytes();
        let unknown = format!("{UNKNOWN_VOCABULARY}\n").into_bytes();
        for (argv, want) in [
            (&["--vocabulary", "sage-1.3", "--vocabulary", "sage-1.3", "parse"][..], line(VOCABULARY_REPEATED)),
            (&["--vocabulary=sage-1.3", "--vocabulary=sage-1.1", "parse"], line(VOCABULARY_REPEATED)),
            (&["--vocabulary", "--vocabulary=sage-1.1", "parse"], line(VOCABULARY_REPEATED)),
            (&["--vocabulary", "sage-9", "--vocabulary", "sage-1.1", "parse"], line(VOCABULARY_REPEATED)),
            (&["--vocabulary=", "--vocabulary", "sage-1.1", "parse"], line(NO_VOCABULARY_NAME)),
            (&["--vocabulary"], line(NO_VOCABULARY_NAME)),
            (&["--vocabulary", "sage-1.3\r", "parse"], unknown.clone()),
            (&["--vocabulary", "sage-1.3 ", "parse"], unknown.clone()),
            (&["--vocabulary", " sage-1.3", "parse"], unknown.clone()),
            (&["--vocabulary=sage-1.3\n", "parse"], unknown.clone()),
        ] {
            let (exit, stdout, stderr) = call(argv, b"");
            assert_eq!((exit, stdout, stderr), (Exit::Status(USAGE_ERROR), vec![], want), "{argv:?}");
        }
        assert_eq!(subcommand(&["--vocabulary", "a", "--vocabulary=b", "hook"]), Some(&b"hook"[..]));
        assert_eq!(subcommand(&["--vocabulary=a", "--vocabulary", "hook", "codex"]), Some(&b"hook"[..]));
        let (exit, _, stderr) = call(&["--vocabulary=sage-1.3", "--vocabulary", "sage-1.1", "hook", "codex"], b"{}");
        let k8 = format!("sage-flags: hook: {VOCABULARY_REPEATED}; not answering (the prompt goes on without it)\n");
        assert_eq!((exit, stderr), (Exit::Status(3), k8.into_bytes()));
    }

    #[test]
    fn under_hook_our_own_refusals_fail_open() {
        // B3's table, K8: status 3 and K8's line under hook (status 2 would block the prompt); 2 elsewhere.
        let event = br#"{"hook_event_name": "UserPromptSubmit", "prompt": "/build --autonomous go"}"#;
        let k8 = |why: &str| format!("sage-flags: hook: {why}; not answering (the prompt goes on without it)\n");
        let unknown = UNKNOWN_VOCABULARY.strip_prefix("sage-flags: ").unwrap();
        for (argv, why) in [
            (&["--vocabulary", "sage-9", "hook", "codex"][..], unknown),
            (&["--vocabulary=sage-9", "hook", "codex"], unknown),
            (&["--vocabulary=", "hook", "codex"], NO_VOCABULARY_NAME),
            (&["--vocabulary", "", "hook", "codex"], NO_VOCABULARY_NAME),
            (&["--vocabulary", "hook", "codex"], NO_VOCABULARY_NAME),
        ] {
            let (exit, stdout, stderr) = call(argv, event);
            assert_eq!(
                (exit, stdout, String::from_utf8(stderr).unwrap()),
                (Exit::Status(3), vec![], k8(why)),
                "{argv:?}"
            );
        }
        for argv in [&["--vocabulary", "sage-9", "parse", "x"][..], &["--vocabulary=", "parse", "x"], &["--vocabulary"]]
        {
            assert_eq!(call(argv, b"").0, Exit::Status(USAGE_ERROR), "{argv:?}");
        }
        assert_eq!(subcommand(&["--vocabulary", "hook", "codex"]), Some(&b"hook"[..]));
        assert_eq!(subcommand(&["--vocabulary", "x", "hook"]), Some(&b"hook"[..]));
        assert_eq!(subcommand(&["--vocabulary=x", "hook"]), Some(&b"hook"[..]));
        assert_eq!(subcommand(&["--vocabulary"]), None);
        assert_eq!(subcommand(&["parse", "hook"]), Some(&b"parse"[..]));
    }

    #[test]
    fn usage_errors_are_one_prefixed_line() {
        for argv in
            [&[][..], &["nope"], &["parse", "--config-path"], &["batch", "x"], &["announce"], &["announce", "Build"]]
        {
            let (exit, stdout, stderr) = call(argv, b"");
            assert_eq!(exit, Exit::Status(USAGE_ERROR), "{argv:?}");
            assert!(stdout.is_empty(), "{argv:?}");
            assert!(
                stderr.starts_with(b"sage-flags: ") && stderr.ends_with(b"(try 'sage-flags --help')\n"),
                "{argv:?}"
            );
            assert_eq!(stderr.iter().filter(|&&b| b == b'\n').count(), 1, "{argv:?}");
        }
    }

    #[test]
    fn python_only_subcommands_touch_nothing() {
        for command in PYTHON_ONLY {
            let name = std::str::from_utf8(command).unwrap();
            let (exit, stdout, stderr) = call(&[name, "x"], b"unread");
            assert_eq!((exit, stdout.is_empty(), stderr.is_empty()), (Exit::Python, true, true), "{name}");
        }
    }

    /// A writer whose reader has gone away.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_stdout_is_status_4_and_one_line() {
        for argv in [&["parse", "go"][..], &["batch"], &["announce", "build", "x"], &["--version"]] {
            let mut stderr = Vec::new();
            let exit = program(argv, &mut &b"a\0"[..], false, &mut Closed, &mut stderr);
            assert_eq!((exit, stderr), (Exit::Status(WRITE_FAILED), WRITE_FAILED_MESSAGE.as_bytes().to_vec()));
        }
    }
}
