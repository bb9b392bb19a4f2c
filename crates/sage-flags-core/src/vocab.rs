// The flag vocabulary: generated from spec/flags.toml by tools/generate.py (make generate); do not edit.
#![cfg_attr(rustfmt, rustfmt::skip)] // generated: rustfmt's layout would differ from the generator's

use crate::ValueMode;

/// (mode key, dashed flag name), in contract order.
pub const MODES: [(&str, &str); 2] = [
    ("quality_locked", "quality-locked"),
    ("autonomous", "autonomous"),
];
/// The modes that take a value (docs/SPEC.md V1-V8), in vocabulary order.
pub const VALUE_MODES: [ValueMode; 0] = [];
/// The list in the E1 message.
pub const SUPPORTED_FLAGS: &str = "--quality-locked, --autonomous";
/// E2's last sentence: the flags that take a value (empty when none does).
pub const E2_VALUE_HINT: &str = "";
/// docs/SPEC.md S7: a token part longer than this (code points) is near no flag form.
pub const SUGGEST_LIMIT: usize = 22;
/// docs/SPEC.md K3: the workflows `sage-flags hook` answers.
pub const WORKFLOWS: [&str; 2] = ["build", "architect"];
/// docs/SPEC.md K5: the words every hook context starts with.
pub const HOOK_LABEL: &str = "sage-flags hook result";
