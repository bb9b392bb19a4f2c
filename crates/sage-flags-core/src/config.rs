//! C11-C14: which modes a config file turns on by default. Bytes in, never an error out.

use std::fs::File;
use std::path::Path;

use crate::io::read_bounded;
use crate::{Defaults, Vocabulary, DEFAULT_VOCABULARY};

/// O_NONBLOCK for this target, so that opening a FIFO returns at once (C12).
/// The value is per platform (the core has no libc dependency to ask); None where it is not known.
const O_NONBLOCK: Option<i32> = if cfg!(any(target_os = "linux", target_os = "android")) {
    if cfg!(any(target_arch = "mips", target_arch = "mips64")) {
        Some(0x80)
    } else if cfg!(any(target_arch = "sparc", target_arch = "sparc64")) {
        Some(0x4000)
    } else {
        Some(0o4000)
    }
} else if cfg!(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
)) {
    Some(0x4)
} else {
    None
};

#[cfg(unix)]
fn bytes_to_path(path: &[u8]) -> Option<&Path> {
    use std::os::unix::ffi::OsStrExt;
    Some(Path::new(std::ffi::OsStr::from_bytes(path)))
}

#[cfg(not(unix))]
fn bytes_to_path(path: &[u8]) -> Option<&Path> {
    std::str::from_utf8(path).ok().map(Path::new)
}

fn open_without_blocking(path: &Path) -> Option<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    match O_NONBLOCK {
        #[cfg(unix)]
        Some(flag) => {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(flag);
        }
        _ => {
            // No known O_NONBLOCK: only open what is a regular file right now.
            if !std::fs::metadata(path).ok()?.is_file() {
                return None;
            }
        }
    }
    options.open(path).ok()
}

/// H1 (docs/SPEC.md section 15): the largest config honored, in bytes. A real `.sage/config.yaml` is a few
/// KB; the bound keeps a huge or sparse file from costing time or memory. The same number as the Python
/// reference's `CONFIG_LIMIT` and the bash port's `SAGE_FLAGS_CONFIG_LIMIT`.
pub const CONFIG_LIMIT: u64 = 64 * 1024;

/// The bytes of the regular file at `path` (symlinks followed) of at most [`CONFIG_LIMIT`] bytes,
/// or `None` (C12, H1).
fn read_regular_file(path: &[u8]) -> Option<Vec<u8>> {
    if path.is_empty() || path.contains(&0) {
        return None; // C11; a NUL cannot be in a path
    }
    let mut file = open_without_blocking(bytes_to_path(path)?)?;
    // fstat on the open descriptor: a FIFO, device or directory is rejected here, and so is
    // a file too large (H1), before a byte of it is read.
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.len() > CONFIG_LIMIT {
        return None;
    }
    // At most one byte past the bound, whatever fstat said (a file growing meanwhile).
    let data = read_bounded(&mut file, CONFIG_LIMIT as usize).ok()?;
    if data.len() as u64 > CONFIG_LIMIT {
        return None;
    }
    Some(data)
}

/// C13-C14 on the file's bytes (the default vocabulary's keys).
pub fn parse_defaults(data: &[u8]) -> Defaults {
    parse_defaults_in(DEFAULT_VOCABULARY, data)
}

/// [`parse_defaults`] with `vocab`'s keys.
pub fn parse_defaults_in(vocab: &'static Vocabulary, data: &[u8]) -> Defaults {
    let mut defaults = Defaults::none(vocab);
    if data.contains(&0) {
        return defaults; // C12
    }
    let data = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data); // C13: a BOM
    for line in data.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // C14: exactly `<key>: true`.
        let Some(key) = line.strip_suffix(b": true") else {
            continue;
        };
        if let Some(index) = vocab.modes.iter().position(|(k, _)| k.as_bytes() == key) {
            defaults.set(index);
        }
    }
    defaults
}

/// Modes that the config at `path` turns on by default (C11-C14). Never blocks,
/// never fails: anything but a readable regular file without NUL gives no defaults.
pub fn load_defaults(path: &[u8]) -> Defaults {
    load_defaults_in(DEFAULT_VOCABULARY, path)
}

/// [`load_defaults`] with `vocab`'s keys: a parse against the result uses `vocab` (B1).
pub fn load_defaults_in(vocab: &'static Vocabulary, path: &[u8]) -> Defaults {
    read_regular_file(path).map_or(Defaults::none(vocab), |data| parse_defaults_in(vocab, &data))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(data: &[u8]) -> Vec<&'static str> {
        parse_defaults(data).keys().collect()
    }

    #[test]
    fn exact_lines_only() {
        assert_eq!(on(b"quality_locked: true\n"), ["quality_locked"]);
        assert_eq!(on(b"x: 1\r\nautonomous: true\r\nquality_locked: true"), ["quality_locked", "autonomous"]);
        for rejected in [
            &b"quality_locked: True"[..],
            b"quality_locked:true",
            b"quality_locked:  true",
            b"quality_locked: true ",
            b" quality_locked: true",
            b"quality_locked: true\r\r",
            b"my_quality_locked: true",
            b"quality_locked: false",
            b"\"quality_locked\": true",
        ] {
            assert!(on(rejected).is_empty(), "{:?}", String::from_utf8_lossy(rejected));
        }
    }

    #[test]
    fn bom_only_at_the_start_and_nul_rejects_all() {
        assert_eq!(on(b"\xef\xbb\xbfautonomous: true"), ["autonomous"]);
        assert!(on(b"\xef\xbb\xbf\xef\xbb\xbfautonomous: true").is_empty());
        assert!(on(b"autonomous: true\n\0").is_empty());
        assert_eq!(on(b"\xff\xfe\nautonomous: true\n"), ["autonomous"]);
    }

    #[test]
    fn unreadable_paths_give_no_defaults() {
        assert_eq!(load_defaults(b""), Defaults::NONE);
        assert_eq!(load_defaults(b"/nonexistent/sage-flags/config.yaml"), Defaults::NONE);
        assert_eq!(load_defaults(b"/"), Defaults::NONE);
        assert_eq!(load_defaults(b"/dev/zero"), Defaults::NONE);
        assert_eq!(load_defaults(b"a\0b"), Defaults::NONE);
    }

    #[test]
    fn a_config_over_the_bound_gives_no_defaults() {
        let dir = std::env::temp_dir().join(format!("sage-flags-config-limit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("config.yaml");
        let limit = usize::try_from(CONFIG_LIMIT).unwrap();
        let mut data = b"autonomous: true\n".to_vec();
        data.resize(limit, b'#');
        std::fs::write(&path, &data).unwrap();
        let path_bytes = path.to_str().unwrap().as_bytes().to_vec();
        assert_eq!(load_defaults(&path_bytes).keys().collect::<Vec<_>>(), ["autonomous"]);
        data.push(b'#');
        std::fs::write(&path, &data).unwrap();
        assert_eq!(load_defaults(&path_bytes), Defaults::NONE);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
