//! The `parse`, `batch` and `announce` commands on argv bytes, shared by every Rust front end
//! and by the vector tests (C1-C3, C10, C19, C22, A1-A4), and [`program`]: the whole `sage-flags`
//! command line of the native executable (docs/IMPLEMENTATION.md D26).

use std::io::{self, Read, Write};

use crate::announce::{is_workflow_name, render};
use crate::vocab::{UNKNOWN_VOCABULARY, VOCABULARIES};
use crate::{load_defaults_in, parse_bytes, Defaults, Vocabulary, DEFAULT_VOCABULARY};

/// C19: exit statuses.
pub const OK: i32 = 0;
/// At least one ARGUMENTS was an error (E1-E4); the JSON is still printed.
pub const PARSE_ERROR: i32 = 1;
/// A command line the command refuses (C3): nothing on stdout.
pub const USAGE_ERROR: i32 = 2;
/// stdout is closed, full or a broken pipe (H9): [`WRITE_FAILED_MESSAGE`] on stderr.
pub const WRITE_FAILED: i32 = 4;
/// H9: the one stderr line of every layer when the output could not be written.
pub const WRITE_FAILED_MESSAGE: &str =
    "sage-flags: cannot write the output to stdout (closed, full or a broken pipe)\n";

/// What a command printed and its exit status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub stdout: Vec<u8>,
    /// Empty unless the status is [`USAGE_ERROR`]; then one line, without a program-name prefix.
    pub stderr: Vec<u8>,
    pub status: i32,
}

impl Output {
    fn usage(message: &str) -> Output {
        Output { stdout: Vec::new(), stderr: format!("{message}\n").into_bytes(), status: USAGE_ERROR }
    }
}

/// A command line split by C1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitArgv<'a> {
    /// The items that make up ARGUMENTS (C2).
    pub operands: Vec<&'a [u8]>,
    /// The config path; `None` when not given.
    pub config_path: Option<&'a [u8]>,
}

/// I1: the item that makes `parse`, `announce` and `resume` read ARGUMENTS from standard input.
pub const STDIN_SWITCH: &[u8] = b"--stdin";
/// I4: the most bytes ARGUMENTS on standard input may have.
pub const STDIN_LIMIT: usize = 262_144;

/// C1 (and I1 when `stdin_switch`): operands, config path, whether `--stdin` was given.
fn scan<A: AsRef<[u8]>>(items: &[A], stdin_switch: bool) -> Result<(SplitArgv<'_>, bool), &'static str> {
    let mut operands = Vec::with_capacity(items.len());
    let mut config_path = None;
    let mut from_stdin = false;
    let mut iter = items.iter().map(AsRef::as_ref);
    while let Some(item) = iter.next() {
        if item == b"--" {
            operands.extend(iter);
            break;
        }
        if item == b"--config-path" {
            config_path = Some(iter.next().ok_or("--config-path needs a value")?);
        // C3
        } else if let Some(path) = item.strip_prefix(b"--config-path=") {
            config_path = Some(path);
        } else if stdin_switch && item == STDIN_SWITCH {
            from_stdin = true;
        } else {
            operands.push(item);
        }
    }
    Ok((SplitArgv { operands, config_path }, from_stdin))
}

/// C1: the operands and the config path of a command line, or the usage error (C3).
/// `batch` reads it so: `--stdin` is an operand there.
pub fn split_argv<A: AsRef<[u8]>>(items: &[A]) -> Result<SplitArgv<'_>, &'static str> {
    scan(items, false).map(|(split, _)| split)
}

/// I2-I5: standard input's bytes as ARGUMENTS; `None` for a terminal (never read: I5).
fn read_stdin_arguments(stdin: Option<&mut dyn Read>) -> Result<Vec<u8>, &'static str> {
    let Some(stdin) = stdin else {
        return Err("--stdin: standard input is a terminal");
    };
    let mut data = Vec::new();
    let mut limited = stdin.take(STDIN_LIMIT as u64 + 1);
    // A read error ends the input, as in batch (no stdin at all: no bytes).
    while let Err(error) = limited.read_to_end(&mut data) {
        if error.kind() != io::ErrorKind::Interrupted {
            break;
        }
    }
    if data.contains(&0) {
        return Ok(vec![0xff]); // I3: a NUL is E4, exactly as invalid UTF-8 (checked before the size, as bash)
    }
    if data.len() > STDIN_LIMIT {
        return Err("--stdin: ARGUMENTS on standard input exceed 262144 bytes");
    }
    Ok(data)
}

/// C1-C3 and I1: ARGUMENTS (operands joined, or standard input) and the config path.
pub fn read_arguments<'a, A: AsRef<[u8]>>(
    items: &'a [A],
    stdin: Option<&mut dyn Read>,
) -> Result<(Vec<u8>, Option<&'a [u8]>), &'static str> {
    let (SplitArgv { operands, config_path }, from_stdin) = scan(items, true)?;
    if !from_stdin {
        return Ok((operands.join(&b' '), config_path)); // C2
    }
    if !operands.is_empty() {
        return Err("--stdin takes ARGUMENTS from standard input only: no operand beside it");
    }
    Ok((read_stdin_arguments(stdin)?, config_path))
}

fn defaults_for(vocab: &'static Vocabulary, config_path: Option<&[u8]>) -> Defaults {
    config_path.map_or(Defaults::none(vocab), |path| load_defaults_in(vocab, path))
    // C11: an empty path gives none too
}

fn json_line(arguments: &[u8], defaults: &Defaults, out: &mut Vec<u8>) -> bool {
    let result = parse_bytes(arguments, defaults);
    out.extend_from_slice(result.to_json().as_bytes());
    out.push(b'\n');
    result.is_ok()
}

/// `parse ARGV...`: `args` are the items after `parse`; `stdin` is read only for `--stdin`
/// (`None`: standard input is a terminal, I5).
pub fn run_parse<A: AsRef<[u8]>>(vocab: &'static Vocabulary, args: &[A], stdin: Option<&mut dyn Read>) -> Output {
    let (arguments, config_path) = match read_arguments(args, stdin) {
        Ok(read) => read,
        Err(message) => return Output::usage(message),
    };
    let defaults = defaults_for(vocab, config_path);
    let mut stdout = Vec::with_capacity(arguments.len() + 160);
    let ok = json_line(&arguments, &defaults, &mut stdout);
    Output { stdout, stderr: Vec::new(), status: if ok { OK } else { PARSE_ERROR } }
}

/// `batch [--config-path P]`: one line per NUL-terminated record of `input`, each
/// written and flushed before the next read (C22). Returns the exit status, or the
/// usage message. A read error ends the input; a write error is returned.
pub fn run_batch_streaming<A: AsRef<[u8]>>(
    vocab: &'static Vocabulary,
    args: &[A],
    input: &mut dyn Read,
    output: &mut dyn Write,
) -> io::Result<Result<i32, &'static str>> {
    let SplitArgv { operands, config_path } = match split_argv(args) {
        Ok(split) => split,
        Err(message) => return Ok(Err(message)),
    };
    if !operands.is_empty() {
        return Ok(Err("batch takes no operands (records come on stdin)"));
    }
    let defaults = defaults_for(vocab, config_path); // read once
    let mut status = OK;
    let mut pending: Vec<u8> = Vec::new(); // the record not yet terminated
    let mut chunk = vec![0u8; 1 << 16];
    let mut lines = Vec::new();
    loop {
        let read = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break, // no stdin at all: no more records
        };
        let mut rest = &chunk[..read];
        lines.clear();
        while let Some(nul) = rest.iter().position(|&b| b == 0) {
            let record: &[u8] = if pending.is_empty() {
                &rest[..nul]
            } else {
                pending.extend_from_slice(&rest[..nul]);
                &pending
            };
            if !json_line(record, &defaults, &mut lines) {
                status = PARSE_ERROR;
            }
            pending.clear();
            rest = &rest[nul + 1..];
        }
        pending.extend_from_slice(rest);
        if !lines.is_empty() {
            output.write_all(&lines)?;
            output.flush()?;
        }
    }
    if !pending.is_empty() {
        // A final unterminated record counts if non-empty.
        lines.clear();
        if !json_line(&pending, &defaults, &mut lines) {
            status = PARSE_ERROR;
        }
        output.write_all(&lines)?;
        output.flush()?;
    }
    Ok(Ok(status))
}

/// `batch` with stdout collected in memory.
pub fn run_batch<A: AsRef<[u8]>>(vocab: &'static Vocabulary, args: &[A], input: &mut dyn Read) -> Output {
    let mut stdout = Vec::new();
    match run_batch_streaming(vocab, args, input, &mut stdout) {
        Ok(Ok(status)) => Output { stdout, stderr: Vec::new(), status },
        Ok(Err(message)) => Output::usage(message),
        Err(error) => Output::usage(&error.to_string()),
    }
}

/// `announce WORKFLOW ARGV...`: `args` are the items after `announce` (A1-A5); `stdin` as for
/// [`run_parse`].
pub fn run_announce<A: AsRef<[u8]>>(vocab: &'static Vocabulary, args: &[A], stdin: Option<&mut dyn Read>) -> Output {
    let Some((workflow, rest)) = args.split_first() else {
        return Output::usage("announce needs a WORKFLOW name");
    };
    let workflow = workflow.as_ref();
    if !is_workflow_name(workflow) {
        return Output::usage("the WORKFLOW name must match ^[a-z][a-z0-9-]*$");
    }
    let (arguments, config_path) = match read_arguments(rest, stdin) {
        Ok(read) => read,
        Err(message) => return Output::usage(message),
    };
    let result = parse_bytes(&arguments, &defaults_for(vocab, config_path));
    let (text, ok) = render(&String::from_utf8_lossy(workflow), &result); // ASCII: checked above
    Output { stdout: text.into_bytes(), stderr: Vec::new(), status: if ok { OK } else { PARSE_ERROR } }
}

/// A whole command line: `argv[0]` is the command (`parse`, `batch` or `announce`), the rest its items.
/// `stdin` is not a terminal.
pub fn run<A: AsRef<[u8]>>(argv: &[A], stdin: &mut dyn Read) -> Output {
    run_in(DEFAULT_VOCABULARY, argv, stdin)
}

/// [`run`] with the vocabulary `vocab` (docs/SPEC.md B1).
pub fn run_in<A: AsRef<[u8]>>(vocab: &'static Vocabulary, argv: &[A], stdin: &mut dyn Read) -> Output {
    match argv.split_first() {
        Some((command, args)) if command.as_ref() == b"parse" => run_parse(vocab, args, Some(stdin)),
        Some((command, args)) if command.as_ref() == b"batch" => run_batch(vocab, args, stdin),
        Some((command, args)) if command.as_ref() == b"announce" => run_announce(vocab, args, Some(stdin)),
        Some((command, _)) => {
            Output::usage(&format!("unknown command '{}'", String::from_utf8_lossy(command.as_ref())))
        }
        None => Output::usage("a command is required"),
    }
}

/// The version every layer reports (`sage-flags --version`): the workspace's, equal to the Python package's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The subcommands only the Python package has: the native program hands them over (D26).
pub const PYTHON_ONLY: [&[u8]; 6] = [b"help", b"--help", b"-h", b"config", b"persist", b"resume"];

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
/// `parse`, `batch` (streamed, C22), `announce` and `--version` run here, with the same bytes
/// and statuses as the Python command line; a usage error is one `sage-flags: ...` line on
/// stderr and status 2. Like every layer, output that cannot be written (stdout closed, full,
/// or a reader gone) ends the program with status 4 and [`WRITE_FAILED_MESSAGE`] (H9).
/// `stdin_is_terminal`: `--stdin` refuses to wait for a person to type (I5).
pub fn program<A: AsRef<[u8]>>(
    argv: &[A],
    stdin: &mut dyn Read,
    stdin_is_terminal: bool,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Exit {
    let (vocab, argv) = match choose_vocabulary(argv) {
        Ok(chosen) => chosen,
        Err(VocabularyError::Unknown) => {
            let _ = writeln!(stderr, "{UNKNOWN_VOCABULARY}"); // B3: one line, status 2, no fallback
            return Exit::Status(USAGE_ERROR);
        }
        Err(VocabularyError::NoName) => return usage(stderr, "--vocabulary needs a name"),
    };
    let Some((command, args)) = argv.split_first() else {
        return usage(stderr, "a subcommand is required");
    };
    let output = match command.as_ref() {
        b"parse" => run_parse(vocab, args, (!stdin_is_terminal).then_some(stdin)),
        b"announce" => run_announce(vocab, args, (!stdin_is_terminal).then_some(stdin)),
        b"hook" => {
            let stdin = (!stdin_is_terminal).then_some(stdin);
            return Exit::Status(crate::hook::run_hook(vocab, args, stdin, stdout, stderr));
        }
        b"--version" | b"-V" => Output { stdout: version_line().into_bytes(), ..Output::default() },
        b"batch" => {
            return match run_batch_streaming(vocab, args, stdin, stdout) {
                Ok(Ok(status)) => Exit::Status(status),
                Ok(Err(message)) => usage(stderr, message),
                Err(error) => write_failed(stderr, &error),
            }
        }
        name if PYTHON_ONLY.contains(&name) => return Exit::Python,
        name => return usage(stderr, &format!("unknown subcommand '{}'", String::from_utf8_lossy(name))),
    };
    if output.status == USAGE_ERROR {
        return usage(stderr, String::from_utf8_lossy(&output.stderr).trim_end_matches('\n'));
    }
    match stdout.write_all(&output.stdout).and_then(|()| stdout.flush()) {
        Ok(()) => Exit::Status(output.status),
        Err(error) => write_failed(stderr, &error),
    }
}

/// B4: `--version`'s line: the version and every vocabulary this build carries (the launcher reads it).
pub fn version_line() -> String {
    let names: Vec<&str> = VOCABULARIES.iter().map(|vocab| vocab.name).collect();
    format!("sage-flags {VERSION} (vocabularies: {})\n", names.join(", "))
}

enum VocabularyError {
    Unknown,
    NoName,
}

/// B2: `--vocabulary NAME` (or `--vocabulary=NAME`) before the subcommand, else SAGE_FLAGS_VOCABULARY, else the
/// default; the rest of argv. Only the first item is looked at: after the subcommand it is an operand.
fn choose_vocabulary<A: AsRef<[u8]>>(argv: &[A]) -> Result<(&'static Vocabulary, &[A]), VocabularyError> {
    let first = argv.first().map(AsRef::as_ref);
    let (name, rest) = match first {
        Some(b"--vocabulary") => match argv.get(1) {
            Some(name) => (Some(name.as_ref()), &argv[2..]),
            None => return Err(VocabularyError::NoName),
        },
        Some(item) if item.starts_with(b"--vocabulary=") => (Some(&item[b"--vocabulary=".len()..]), &argv[1..]),
        _ => (None, argv),
    };
    let vocab = match name {
        Some(name) => Vocabulary::named(name),
        None => Vocabulary::from_environment(),
    };
    vocab.map(|vocab| (vocab, rest)).ok_or(VocabularyError::Unknown)
}

fn usage(stderr: &mut dyn Write, message: &str) -> Exit {
    // Nothing more can be done when stderr itself is gone.
    let _ = writeln!(stderr, "sage-flags: {message} (try 'sage-flags --help')");
    Exit::Status(USAGE_ERROR)
}

fn write_failed(stderr: &mut dyn Write, _error: &io::Error) -> Exit {
    // Nothing more can be done when stderr is gone too.
    let _ = stderr.write_all(WRITE_FAILED_MESSAGE.as_bytes());
    Exit::Status(WRITE_FAILED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_argv(items: &[&str]) -> Output {
        run_parse(DEFAULT_VOCABULARY, &items.iter().map(|s| s.as_bytes()).collect::<Vec<_>>(), None)
    }

    #[test]
    fn config_path_forms() {
        let split =
            |operands: Vec<&'static [u8]>, config_path: Option<&'static [u8]>| SplitArgv { operands, config_path };
        assert_eq!(split_argv(&["a", "--config-path", "p", "b"]), Ok(split(vec![b"a", b"b"], Some(b"p"))));
        assert_eq!(split_argv(&["--config-path=q", "--config-path", "r"]), Ok(split(vec![], Some(b"r"))));
        assert_eq!(split_argv(&["--", "--config-path"]), Ok(split(vec![b"--config-path"], None)));
        assert_eq!(split_argv(&["--config-path", "--"]), Ok(split(vec![], Some(b"--"))));
        assert_eq!(split_argv(&["--config-path=", "x"]), Ok(split(vec![b"x"], Some(b""))));
    }

    #[test]
    fn stdin_switch_bound_nul_and_terminal() {
        let run_stdin = |args: &[&str], input: &[u8]| run_parse(DEFAULT_VOCABULARY, args, Some(&mut &input[..]));
        let ok = run_stdin(&["--config-path", "--stdin", "--stdin"], b" --autonomous go \n");
        assert_eq!(ok.status, OK);
        assert!(String::from_utf8(ok.stdout).unwrap().contains("\"goal\": \"go\""));
        assert_eq!(run_stdin(&["--stdin", "x"], b"go").status, USAGE_ERROR); // I1
        assert_eq!(run_stdin(&["--", "--stdin"], b"go").status, PARSE_ERROR); // an operand after --: E1
        let exactly = vec![b'x'; STDIN_LIMIT];
        assert_eq!(run_stdin(&["--stdin"], &exactly).status, OK);
        let over = vec![b'x'; STDIN_LIMIT + 1];
        assert_eq!(run_stdin(&["--stdin"], &over).status, USAGE_ERROR); // I4
        let mut nul_then_over = b"a\0".to_vec();
        nul_then_over.extend_from_slice(&over);
        let nul = run_stdin(&["--stdin"], &nul_then_over); // I3: E4, before the size
        assert_eq!(nul.status, PARSE_ERROR);
        assert!(String::from_utf8(nul.stdout).unwrap().contains("not valid UTF-8"));
        assert_eq!(run_parse(DEFAULT_VOCABULARY, &["--stdin"], None).status, USAGE_ERROR);
        // I5: a terminal
    }

    #[test]
    fn trailing_config_path_is_a_usage_error() {
        let output = parse_argv(&["go", "--config-path"]);
        assert_eq!(output.status, USAGE_ERROR);
        assert!(output.stdout.is_empty());
        assert_eq!(output.stderr.iter().filter(|&&b| b == b'\n').count(), 1);
    }

    #[test]
    fn operands_are_joined_with_one_space() {
        let output = parse_argv(&["", "--autonomous", "a", "", "b"]);
        assert_eq!(output.status, OK);
        assert!(String::from_utf8(output.stdout).unwrap().contains("\"goal\": \"a  b\""));
    }

    #[test]
    fn batch_records_and_status() {
        let mut input: &[u8] = b"go\0--bad\0\0--autonomous tail";
        let output = run(&["batch"], &mut input);
        assert_eq!(output.status, PARSE_ERROR);
        let text = String::from_utf8(output.stdout).unwrap();
        assert_eq!(text.lines().count(), 4);
        assert!(text.lines().nth(3).unwrap().contains("\"goal\": \"tail\""));
        let mut nothing: &[u8] = b"";
        assert_eq!(run(&["batch"], &mut nothing), Output::default());
        let mut input: &[u8] = b"x\0";
        assert_eq!(run(&["batch", "x"], &mut input).status, USAGE_ERROR);
    }

    /// A reader that hands out one byte at a time: records cross chunk boundaries.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.split_first() {
                Some((first, rest)) if !buf.is_empty() => {
                    buf[0] = *first;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn batch_records_split_across_reads() {
        let stdin = b"--quality-locked a b\0c\0";
        let whole = run(&["batch"], &mut &stdin[..]);
        let trickled = run(&["batch"], &mut Trickle(stdin));
        assert_eq!(whole, trickled);
        assert_eq!(whole.stdout.iter().filter(|&&b| b == b'\n').count(), 2);
    }
}

#[cfg(test)]
mod program_tests {
    use super::*;

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
            (Exit::Status(OK), run(&["parse", "--autonomous", "go"], &mut &b""[..]).stdout, true)
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
