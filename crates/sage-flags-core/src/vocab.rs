// The flag vocabularies: generated from spec/flags.toml by tools/generate.py (make generate); do not edit.
#![cfg_attr(rustfmt, rustfmt::skip)] // generated: rustfmt's layout would differ from the generator's

use crate::{ValueMode, Vocabulary};

/// Every vocabulary this build carries, the default (docs/SPEC.md B1) first.
pub static VOCABULARIES: [Vocabulary; 3] = [
    Vocabulary {
        name: "sage-1.1",
        modes: &[("quality_locked", "quality-locked"), ("autonomous", "autonomous")],
        value_modes: &[],
        supported_flags: "--quality-locked, --autonomous",
        e2_value_hint: "",
        suggest_limit: 22,
        workflows: &["build", "architect"],
    },
    Vocabulary {
        name: "sage-1.3",
        modes: &[("quality_locked", "quality-locked"), ("autonomous", "autonomous"), ("subagents", "subagents")],
        value_modes: &[],
        supported_flags: "--quality-locked, --autonomous, --subagents",
        e2_value_hint: "",
        suggest_limit: 22,
        workflows: &["build", "architect"],
    },
    Vocabulary {
        name: "sage-1.3.18",
        modes: &[("quality_locked", "quality-locked"), ("autonomous", "autonomous"), ("subagents", "subagents"), ("parallel", "parallel")],
        value_modes: &[
        ValueMode { mode: 3, field: "parallel_lanes", note_field: "parallel_note", name: "lane count", metavar: "N", default: 2, minimum: 1, cap: 4 },
    ],
        supported_flags: "--quality-locked, --autonomous, --subagents, --parallel[=N]",
        e2_value_hint: " Only --parallel=N takes a value.",
        suggest_limit: 22,
        workflows: &["build", "architect"],
    },
];
/// The most modes, and modes that take a value, of any of them (the size of a result's arrays).
pub const MAX_MODES: usize = 4;
pub const MAX_VALUES: usize = 1;
/// docs/SPEC.md B3: the one stderr line for a vocabulary name this build does not carry.
pub const UNKNOWN_VOCABULARY: &str = "sage-flags: unknown vocabulary (known: sage-1.1, sage-1.3, sage-1.3.18)";
/// docs/SPEC.md K5: the words every hook context starts with.
pub const HOOK_LABEL: &str = "sage-flags hook result";
