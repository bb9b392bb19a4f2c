//! Every vector of the default vocabulary (parity/vectors/<name>.jsonl) that the native program runs
//! itself, in process through its one dispatcher, `program`, and each shipped vocabulary's own vectors
//! through `program` with `--vocabulary NAME` before the subcommand (docs/SPEC.md B2). A vector's own items before
//! the subcommand (`before`, B3's refusals) go there too, and its `stderr`, where it gives it, is checked exactly.
//! The format is parity/vectors.py's (parity/README.md): one JSON object per line.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use sage_flags_cli::{program, Exit};
use sage_flags_core::io::{UNAVAILABLE, USAGE_ERROR};
use sage_flags_core::{Vocabulary, DEFAULT_VOCABULARY, VOCABULARIES};
use serde_json::Value;

const CONFIG_PLACEHOLDER: &[u8] = b"{config}";

/// docs/SPEC.md B1: the vectors of vocabulary `vocab`, one JSON object per line.
fn vectors_of(vocab: &Vocabulary) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../parity/vectors/{}.jsonl", vocab.name));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("a vector line is JSON"))
        .collect()
}

/// A byte field: a JSON string (its UTF-8 bytes), `{"hex": "..."}`, or long bytes described:
/// `{"repeat": FIELD, "times": N}` and `{"join": [FIELD, ...]}`.
fn to_bytes(value: &Value) -> Vec<u8> {
    match value {
        Value::String(text) => text.as_bytes().to_vec(),
        Value::Object(map) if map.len() == 1 && map.contains_key("hex") => {
            let hex = map["hex"].as_str().expect("hex field");
            (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digit")).collect()
        }
        Value::Object(map) if map.len() == 2 && map.contains_key("repeat") => {
            let times = map["times"].as_u64().expect("times: a count") as usize;
            to_bytes(&map["repeat"]).repeat(times)
        }
        Value::Object(map) if map.len() == 1 && map.contains_key("join") => {
            map["join"].as_array().expect("join: a list").iter().flat_map(to_bytes).collect()
        }
        other => panic!("not a byte field: {other}"),
    }
}

fn mkfifo(path: &Path) {
    // The crate forbids unsafe code, so the FIFO comes from mkfifo(1), not libc.
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// parity/vectors.py make_config: the config file (or non-file) a vector describes.
fn make_config(spec: &Value, workdir: &Path) -> PathBuf {
    use std::os::unix::fs::symlink;
    let path = workdir.join("config.yaml");
    let field = |name: &str| spec.get(name).map(to_bytes).unwrap_or_default();
    let repeat = spec.get("repeat").and_then(Value::as_u64).unwrap_or(1) as usize;
    let mut content = field("content").repeat(repeat);
    content.extend(field("append"));
    match spec["type"].as_str().expect("config type") {
        "file" => fs::write(&path, content).unwrap(),
        "missing" => {}
        "directory" => fs::create_dir(&path).unwrap(),
        "fifo" => mkfifo(&path),
        "dangling-symlink" => symlink(workdir.join("no-such-target.yaml"), &path).unwrap(),
        "loop-symlink" => {
            symlink(workdir.join("loop.yaml"), &path).unwrap();
            symlink(&path, workdir.join("loop.yaml")).unwrap();
        }
        "symlink" => {
            fs::write(workdir.join("target.yaml"), content).unwrap();
            symlink(workdir.join("target.yaml"), &path).unwrap();
        }
        "symlink-to-fifo" => {
            mkfifo(&workdir.join("target.fifo"));
            symlink(workdir.join("target.fifo"), &path).unwrap();
        }
        other => panic!("unknown config type {other:?}"),
    }
    if let Some(size) = spec.get("size").and_then(Value::as_u64) {
        // Extended with a hole (sparse): a 4 GiB config costs nothing to make.
        fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(size).unwrap();
    }
    path
}

fn replace_placeholder(item: &[u8], path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(item.len() + path.len());
    let mut rest = item;
    while let Some(at) = rest.windows(CONFIG_PLACEHOLDER.len()).position(|w| w == CONFIG_PLACEHOLDER) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(path);
        rest = &rest[at + CONFIG_PLACEHOLDER.len()..];
    }
    out.extend_from_slice(rest);
    out
}

struct WorkDir(PathBuf);

impl WorkDir {
    fn new(name: &str) -> WorkDir {
        let path = std::env::temp_dir().join(format!("sage-flags-cli-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        WorkDir(path)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Runs one vector; returns a description of the difference, if any.
fn check(vocab: &'static Vocabulary, name: &str, data: &Value) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    let workdir = WorkDir::new(name);
    let config = data.get("config").filter(|c| !c.is_null()).map(|spec| make_config(spec, &workdir.0));
    let command = data.get("command").and_then(Value::as_str).unwrap_or("parse");
    let mut argv = vec![command.as_bytes().to_vec()];
    for item in data["argv"].as_array().expect("argv list") {
        let item = to_bytes(item);
        argv.push(match &config {
            Some(path) => replace_placeholder(&item, path.as_os_str().as_bytes()),
            None => item,
        });
    }
    let stdin = data.get("stdin").map(to_bytes).unwrap_or_default();
    // B2, B3: the items before the subcommand (`--vocabulary NAME` and its refusals), where the vector gives them.
    let before: Vec<Vec<u8>> =
        data.get("before").and_then(Value::as_array).into_iter().flatten().map(to_bytes).collect();
    argv.splice(0..0, before);
    if vocab.name != DEFAULT_VOCABULARY.name {
        argv.splice(0..0, [b"--vocabulary".to_vec(), vocab.name.as_bytes().to_vec()]);
    }
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let Exit::Status(status) = program(&argv, &mut &stdin[..], false, &mut stdout, &mut stderr) else {
        return Some(format!("{name}: handed to Python"));
    };
    let want_stdout = data["stdout"].as_str().expect("stdout");
    let want_status = data["status"].as_i64().expect("status") as i32;
    if stdout != want_stdout.as_bytes() {
        return Some(format!("{name}: stdout\n  got  {:?}\n  want {want_stdout:?}", String::from_utf8_lossy(&stdout)));
    }
    if status != want_status {
        return Some(format!("{name}: status {status} instead of {want_status}"));
    }
    let stderr_ok = if want_status == USAGE_ERROR || want_status == UNAVAILABLE {
        stderr.ends_with(b"\n") && stderr.iter().filter(|&&b| b == b'\n').count() == 1
    } else {
        stderr.is_empty()
    };
    let stderr_ok =
        stderr_ok && data.get("stderr").and_then(Value::as_str).is_none_or(|want| stderr == want.as_bytes());
    (!stderr_ok).then(|| format!("{name}: stderr {:?}", String::from_utf8_lossy(&stderr)))
}

/// Runs every parse, batch, announce and hook vector of `vocab`; the failures, and the count of each command.
/// `env` vectors run too: no environment variable reaches the in-process core, except the one the program reads,
/// `SAGE_FLAGS_VOCABULARY` (B2): a vector naming it runs through the executable only (parity/test_vectors.py's
/// `exe` layer), as setting it here would race the other tests' threads. persist and resume belong to the Python
/// package (the program hands them over).
fn run_vectors(
    vocab: &'static Vocabulary,
    lines: &[Value],
) -> (Vec<String>, std::collections::BTreeMap<String, usize>) {
    let mut failures = Vec::new();
    let mut commands = std::collections::BTreeMap::new();
    for data in lines {
        let name = data["name"].as_str().expect("a vector's name");
        let command = data.get("command").and_then(Value::as_str).unwrap_or("parse").to_owned();
        let names_a_vocabulary = data.get("env").and_then(|env| env.get("SAGE_FLAGS_VOCABULARY")).is_some();
        if matches!(command.as_str(), "parse" | "batch" | "announce" | "hook") && !names_a_vocabulary {
            failures.extend(check(vocab, name, data));
        }
        *commands.entry(command).or_insert(0) += 1;
    }
    (failures, commands)
}

#[test]
fn every_vocabulary_runs_its_own_vectors() {
    for vocab in VOCABULARIES.iter().filter(|vocab| vocab.name != DEFAULT_VOCABULARY.name) {
        let (failures, commands) = run_vectors(vocab, &vectors_of(vocab));
        assert!(commands.get("parse").copied().unwrap_or(0) >= 10, "{}: {commands:?}", vocab.name);
        assert!(failures.is_empty(), "{}: {} vectors fail:\n{}", vocab.name, failures.len(), failures.join("\n"));
    }
}

#[test]
fn every_vector_in_process() {
    let lines = vectors_of(DEFAULT_VOCABULARY);
    let (failures, commands) = run_vectors(DEFAULT_VOCABULARY, &lines);
    assert!(lines.len() >= 200, "only {} vectors found", lines.len());
    assert!(commands.get("parse").copied().unwrap_or(0) >= 150, "{commands:?}");
    assert!(["batch", "announce", "hook"].iter().all(|c| commands.contains_key(*c)), "{commands:?}");
    assert!(failures.is_empty(), "{} of {} vectors fail:\n{}", failures.len(), lines.len(), failures.join("\n"));
}
