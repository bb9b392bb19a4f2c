//! `sage-flags`, native: argv as bytes into `sage_flags_core::cli::program`, its exit status out.
//! The subcommands only the Python package has are handed to the Python beside this executable
//! (docs/SPEC.md D27).
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use sage_flags_core::cli::{program, Exit};

/// D19: this layer cannot run the command at all.
const UNAVAILABLE: u8 = 3;

/// Run by the Python beside the executable; exits 3 with one line when it has no sage_flags.
const HANDOFF: &str = "import sys
try:
    from sage_flags.cli import main
except ImportError as error:
    sys.stderr.write('sage-flags: cannot run %r: the Python beside this executable has no sage_flags (%s)\\n'
                     % (sys.argv[1], error))
    sys.exit(3)
sys.exit(main())
";

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().skip(1).collect();
    let items: Vec<Vec<u8>> = argv.iter().map(os_bytes).collect();
    let stdin = io::stdin();
    let is_terminal = stdin.is_terminal();
    match program(&items, &mut stdin.lock(), is_terminal, &mut io::stdout().lock(), &mut io::stderr().lock()) {
        Exit::Status(status) => ExitCode::from(u8::try_from(status).unwrap_or(1)),
        Exit::Python => hand_to_python(&argv),
    }
}

#[cfg(unix)]
fn os_bytes(arg: &OsString) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    arg.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(arg: &OsString) -> Vec<u8> {
    // Windows argv is UTF-16: a lone surrogate becomes invalid UTF-8, hence E4, as in Python.
    arg.as_encoded_bytes().to_vec()
}

/// The interpreter of this installation: `python3` or `python` in the executable's directory
/// (a venv's bin/ or Scripts\, a prefix's bin/), symlinks to the executable followed.
fn python_beside() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?.canonicalize().ok()?;
    let dir = exe.parent()?;
    let names: &[&str] = if cfg!(windows) { &["python.exe"] } else { &["python3", "python"] };
    names.iter().map(|name| dir.join(name)).find(|path| path.is_file())
}

fn hand_to_python(argv: &[OsString]) -> ExitCode {
    let command = argv[0].to_string_lossy();
    let Some(python) = python_beside() else {
        eprintln!(
            "sage-flags: '{command}' needs the sage-flags Python package, and there is no Python beside this \
             executable (pip install sage-flags, or run python -m sage_flags {command} ...)"
        );
        return ExitCode::from(UNAVAILABLE);
    };
    // -I: the installation's own package, never one from PYTHONPATH or the current directory.
    let mut child = Command::new(&python);
    child.arg("-I").arg("-c").arg(HANDOFF).args(argv);
    run(child, &python, &command)
}

#[cfg(unix)]
fn run(mut child: Command, python: &std::path::Path, command: &str) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let error = child.exec(); // returns only when the exec failed
    eprintln!("sage-flags: cannot run '{command}' through {}: {error}", python.display());
    ExitCode::from(UNAVAILABLE)
}

#[cfg(not(unix))]
fn run(mut child: Command, python: &std::path::Path, command: &str) -> ExitCode {
    match child.status() {
        Ok(status) => ExitCode::from(status.code().and_then(|code| u8::try_from(code).ok()).unwrap_or(1)),
        Err(error) => {
            eprintln!("sage-flags: cannot run '{command}' through {}: {error}", python.display());
            ExitCode::from(UNAVAILABLE)
        }
    }
}
