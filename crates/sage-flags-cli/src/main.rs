//! `sage-flags`, native: argv as bytes into `sage_flags_cli::program`, its exit status out.
//! The subcommands only the Python package has are handed to the Python this executable was
//! installed for (docs/IMPLEMENTATION.md D27, D27.1).
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use sage_flags_cli::{program, Exit};

mod installation;

/// D19: this layer cannot run the command at all.
const UNAVAILABLE: u8 = 3;

/// Run by this installation's Python as `-c HANDOFF SITE ARGV...`: SITE (may be empty) goes first on
/// sys.path; status 3 and one line when it cannot run the package.
/// Python 2 syntax on purpose: an old interpreter must reach STATUS, not a SyntaxError.
const HANDOFF: &str = "import sys
if sys.path and sys.path[0] == '':
    del sys.path[0]
site = sys.argv[1]
del sys.argv[1:2]
def cannot(why):
    sys.stderr.write('sage-flags: cannot run %r: %s\\n' % (sys.argv[1], why))
    sys.exit(3)
if sys.version_info < (3, 8):
    cannot('this installation\\'s Python, %s, is %d.%d; sage_flags needs 3.8 or newer'
           % ((sys.executable,) + tuple(sys.version_info[:2])))
if site:
    sys.path.insert(0, site)
try:
    from sage_flags.cli import main
except ImportError as error:
    cannot('this installation\\'s Python, %s, has no sage_flags (%s)' % (sys.executable, error))
sys.exit(main())
";

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().skip(1).collect();
    let items: Vec<Vec<u8>> = argv.iter().map(os_bytes).collect();
    let stdin = io::stdin();
    let is_terminal = stdin.is_terminal();
    // A stdout closed at start is not seen here: Rust's runtime has put /dev/null there (SPEC H9).
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

fn hand_to_python(argv: &[OsString]) -> ExitCode {
    // The subcommand, after a `--vocabulary NAME` (docs/SPEC.md B2), which Python reads again from argv.
    let skip =
        if argv[0] == "--vocabulary" { 2 } else { usize::from(argv[0].to_string_lossy().starts_with("--vocabulary=")) };
    let command = argv.get(skip).unwrap_or(&argv[0]).to_string_lossy();
    let Some(python) = installation::find() else {
        eprintln!(
            "sage-flags: '{command}' needs the sage-flags Python package, and no Python of this \
             installation was found (pip install sage-flags, or run python -m sage_flags {command} ...)"
        );
        return ExitCode::from(UNAVAILABLE);
    };
    // The installation's own package, never one from PYTHONPATH (-E), the user site (-s) or the current
    // directory (HANDOFF drops it): -I's effect, in options that Python 2.7 knows too.
    let mut child = Command::new(&python.interpreter);
    child.arg("-E").arg("-s").arg("-c").arg(HANDOFF);
    child.arg(python.site.map(PathBuf::into_os_string).unwrap_or_default()).args(argv);
    run(child, &python.interpreter, &command)
}

#[cfg(unix)]
fn run(mut child: Command, python: &Path, command: &str) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let error = child.exec(); // returns only when the exec failed
    eprintln!("sage-flags: cannot run '{command}' through {}: {error}", python.display());
    ExitCode::from(UNAVAILABLE)
}

#[cfg(not(unix))]
fn run(mut child: Command, python: &Path, command: &str) -> ExitCode {
    match child.status() {
        Ok(status) => ExitCode::from(status.code().and_then(|code| u8::try_from(code).ok()).unwrap_or(1)),
        Err(error) => {
            eprintln!("sage-flags: cannot run '{command}' through {}: {error}", python.display());
            ExitCode::from(UNAVAILABLE)
        }
    }
}
