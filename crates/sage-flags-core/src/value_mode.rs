//! What a vocabulary is (B1) and V1's description of a mode that takes a value: a file of their own, so that
//! the generated vocabularies (vocab.rs) use them without using the crate root, whose parse uses vocab.rs.

/// A mode's value, as the vocabulary declares it (V1): `--<name>=N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValueMode {
    /// The index of its mode in its vocabulary's [`Vocabulary::modes`].
    pub mode: usize,
    /// The JSON key of the number.
    pub field: &'static str,
    /// The JSON key of the note.
    pub note_field: &'static str,
    /// The words for E5 (what a number of this mode counts).
    pub name: &'static str,
    /// The placeholder in the flag lists (`N`).
    pub metavar: &'static str,
    /// The number when the mode is on and no token gave one (V4).
    pub default: u32,
    /// The smallest number a token may give (V2).
    pub minimum: u32,
    /// The largest number; above it, clamped with a note (V5).
    pub cap: u32,
}

/// One flag vocabulary (docs/SPEC.md B1): its modes and everything derived from them (tools/generate.py).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Vocabulary {
    /// How a call names it: `sage-1.1`, `sage-1.3`, `sage-1.3.18`.
    pub name: &'static str,
    /// (mode key, dashed flag name), in contract order.
    pub modes: &'static [(&'static str, &'static str)],
    /// The modes that take a value (V1-V8), in vocabulary order.
    pub value_modes: &'static [ValueMode],
    /// The list in the E1 message.
    pub supported_flags: &'static str,
    /// E2's last sentence: the flags that take a value (empty when none does).
    pub e2_value_hint: &'static str,
    /// S7: a token part longer than this (code points) is near no flag form.
    pub suggest_limit: usize,
    /// K3: the workflows `sage-flags hook` answers.
    pub workflows: &'static [&'static str],
}
