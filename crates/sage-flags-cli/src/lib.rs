//! The native `sage-flags` program (docs/IMPLEMENTATION.md D26): [`program`] is the one dispatcher
//! of the Rust command line; `parse`, `batch` and `announce` are the core's, `hook` is [`hook`]'s.
#![forbid(unsafe_code)]

use std::io::{Read, Write};

use sage_flags_core::cli::{run_announce, run_batch_streaming, run_parse, Output};
use sage_flags_core::io::{write_out, OK, USAGE_ERROR, WRITE_FAILED, WRITE_FAILED_MESSAGE};

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
pub fn program<A: AsRef<[u8]>>(
    argv: &[A],
    stdin: &mut dyn Read,
    stdin_is_terminal: bool,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Exit {
    let Some((command, args)) = argv.split_first() else {
        return usage(stderr, "a subcommand is required");
    };
    let output = match command.as_ref() {
        b"parse" => run_parse(args, (!stdin_is_terminal).then_some(stdin)),
        b"announce" => run_announce(args, (!stdin_is_terminal).then_some(stdin)),
        b"hook" => return Exit::Status(hook::run_hook(args, (!stdin_is_terminal).then_some(stdin), stdout, stderr)),
        b"--version" | b"-V" => Output { stdout: format!("sage-flags {VERSION}\n").into_bytes(), ..Output::default() },
        b"batch" => return batch(args, stdin, stdout, stderr),
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

fn batch<A: AsRef<[u8]>>(args: &[A], stdin: &mut dyn Read, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Exit {
    match run_batch_streaming(args, stdin, stdout) {
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
            (Exit::Status(OK), run_parse(&["--autonomous", "go"], None).stdout, true)
        );
        let (exit, stdout, _) = call(&["announce", "build", "--nope"], b"");
        assert_eq!(exit, Exit::Status(PARSE_ERROR));
        assert!(stdout.starts_with(b"Sage: Unknown flag '--nope'."));
        let (exit, stdout, _) = call(&["batch"], b"a\0--x\0");
        assert_eq!((exit, stdout.iter().filter(|&&b| b == b'\n').count()), (Exit::Status(PARSE_ERROR), 2));
        let (exit, stdout, _) = call(&["--version"], b"");
        assert_eq!((exit, stdout), (Exit::Status(OK), format!("sage-flags {VERSION}\n").into_bytes()));
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
