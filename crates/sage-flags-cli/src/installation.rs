//! The Python a native wheel's `sage-flags` was installed for (docs/IMPLEMENTATION.md D27.1): pip puts the
//! executable into an installation scheme's scripts directory and the package into that scheme's
//! site directory, whose `sage_flags-*.dist-info/RECORD` lists the executable. That RECORD proves
//! which site directory (and so which Python version) this executable belongs to, whatever the
//! scheme: a venv or pipx, `--user`, `--prefix`, `--root`, a system install.

use std::fs;
use std::path::{Path, PathBuf};

/// An interpreter to hand a subcommand to, and the site directory that holds this installation's
/// `sage_flags` (put first on its `sys.path`: `--user`, `--prefix` and `--root` installs are not on
/// it otherwise, and `-s` leaves the user site out).
pub struct Python {
    pub interpreter: PathBuf,
    pub site: Option<PathBuf>,
}

/// This installation's Python, or `None` when there is none to be found.
pub fn find() -> Option<Python> {
    let exe = std::env::current_exe().ok()?.canonicalize().ok()?;
    let scripts = exe.parent()?;
    let base = scripts.parent();
    let site = base.and_then(|base| installed_site(base, &exe));
    let in_venv = base.is_some_and(|base| base.join("pyvenv.cfg").is_file());
    let interpreter = match &site {
        Some((_, version)) if !in_venv => of_version(scripts, base?, version.as_deref()),
        // A venv (pipx's layout too) has one Python, its own; without a RECORD that lists this
        // executable (`cargo install`, a copy) only a Python beside it can be meant.
        _ => beside(scripts),
    }?;
    Some(Python { interpreter, site: site.map(|(dir, _)| dir) })
}

/// `python3` or `python` (`python.exe` on Windows) in the executable's own directory.
fn beside(scripts: &Path) -> Option<PathBuf> {
    let names: &[&str] = if cfg!(windows) { &["python.exe"] } else { &["python3", "python"] };
    names.iter().map(|name| scripts.join(name)).find(|path| is_executable(path))
}

/// The interpreter of a scheme outside a venv: on POSIX `python3.X` (the version of the site
/// directory) beside the executable, else the first on PATH; on Windows the prefix's `python.exe`.
fn of_version(scripts: &Path, base: &Path, version: Option<&str>) -> Option<PathBuf> {
    if cfg!(windows) {
        return beside(scripts).or_else(|| Some(base.join("python.exe")).filter(|path| is_executable(path)));
    }
    let name = format!("python{}", version?);
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::iter::once(scripts.to_path_buf())
        .chain(std::env::split_paths(&path).filter(|dir| dir.is_absolute()))
        .map(|dir| dir.join(&name))
        .find(|path| is_executable(path))
}

/// The site directory under `base` whose RECORD lists this executable, with the Python version its
/// path names (`lib/python3.11/site-packages` gives `3.11`; macOS's user scheme
/// `~/Library/Python/3.11/lib/python/site-packages` names it in `base`).
fn installed_site(base: &Path, exe: &Path) -> Option<(PathBuf, Option<String>)> {
    let size = fs::metadata(exe).ok()?.len();
    let mut candidates = vec![(base.join("Lib").join("site-packages"), None)]; // Windows
    for lib in ["lib", "lib64"] {
        let Ok(entries) = fs::read_dir(base.join(lib)) else { continue };
        let mut names: Vec<String> = entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect();
        names.sort();
        for name in names.iter().filter(|name| name.starts_with("python")) {
            let version = match &name["python".len()..] {
                "" => base.file_name().and_then(|n| n.to_str()).map(str::to_owned),
                version => Some(version.to_owned()),
            };
            for packages in ["site-packages", "dist-packages"] {
                candidates.push((base.join(lib).join(name).join(packages), version.clone()));
            }
        }
    }
    candidates.into_iter().find(|(site, _)| lists_executable(site, exe, size))
}

/// Whether a `sage_flags-*.dist-info/RECORD` in `site` lists `exe` (same file, same size).
fn lists_executable(site: &Path, exe: &Path, size: u64) -> bool {
    let Ok(entries) = fs::read_dir(site) else { return false };
    entries.filter_map(Result::ok).any(|entry| {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with("sage_flags-") && name.ends_with(".dist-info")) {
            return false;
        }
        let record = fs::read_to_string(entry.path().join("RECORD")).unwrap_or_default();
        record.lines().any(|line| {
            let mut fields = line.rsplitn(3, ',');
            let (recorded_size, _hash, path) = (fields.next(), fields.next(), fields.next());
            recorded_size == Some(size.to_string().as_str())
                && path.is_some_and(|path| site.join(path).canonicalize().is_ok_and(|found| found == exe))
        })
    })
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}
