//! The `parse`, `batch` and `announce` commands on argv bytes (C1-C3, C10, C19, C22, A1-A4). The
//! one dispatcher over them, with `hook` and `--version`, is the native executable's
//! (`crates/sage-flags-cli`, docs/IMPLEMENTATION.md D26).

use std::io::{self, Read, Write};

use crate::announce::{is_workflow_name, render};
use crate::io::{read_bounded, OK, PARSE_ERROR, USAGE_ERROR};
use crate::{load_defaults_in, parse_bytes, Defaults, Vocabulary};

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
    // A read error ends the input, as in batch (no stdin at all: no bytes).
    let data = read_bounded(stdin, STDIN_LIMIT).unwrap_or_default();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DEFAULT_VOCABULARY;

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
        let output = run_batch(DEFAULT_VOCABULARY, &[] as &[&str], &mut input);
        assert_eq!(output.status, PARSE_ERROR);
        let text = String::from_utf8(output.stdout).unwrap();
        assert_eq!(text.lines().count(), 4);
        assert!(text.lines().nth(3).unwrap().contains("\"goal\": \"tail\""));
        let mut nothing: &[u8] = b"";
        assert_eq!(run_batch(DEFAULT_VOCABULARY, &[] as &[&str], &mut nothing), Output::default());
        let mut input: &[u8] = b"x\0";
        assert_eq!(run_batch(DEFAULT_VOCABULARY, &["x"], &mut input).status, USAGE_ERROR);
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
        let whole = run_batch(DEFAULT_VOCABULARY, &[] as &[&str], &mut &stdin[..]);
        let trickled = run_batch(DEFAULT_VOCABULARY, &[] as &[&str], &mut Trickle(stdin));
        assert_eq!(whole, trickled);
        assert_eq!(whole.stdout.iter().filter(|&&b| b == b'\n').count(), 2);
    }
}
