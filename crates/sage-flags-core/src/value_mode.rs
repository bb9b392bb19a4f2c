//! V1's description of a mode that takes a value: a file of its own, so that the generated vocabulary
//! (vocab.rs) uses it without using the crate root, whose parse uses the vocabulary.

/// A mode's value, as the vocabulary declares it (V1): `--<name>=N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValueMode {
    /// The index of its mode in [`crate::MODES`].
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
