//! E1's suggestion (docs/SPEC.md S1-S7): the flag form near an unknown token, if exactly one is closest.

use crate::Vocabulary;

/// S3: the optimal string alignment distance of `a` and `b`, or `most + 1` when it exceeds `most`.
pub fn osa_distance(a: &[char], b: &[char], most: usize) -> usize {
    if a.len().abs_diff(b.len()) > most {
        return most + 1; // S7: each code point of length difference costs an edit
    }
    let mut before: Vec<usize> = Vec::new();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = Vec::with_capacity(b.len() + 1);
    for i in 1..=a.len() {
        current.clear();
        current.push(i);
        for j in 1..=b.len() {
            let substitution = previous[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut value = (previous[j] + 1).min(current[j - 1] + 1).min(substitution);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                value = value.min(before[j - 2] + 1); // a transposition
            }
            current.push(value);
        }
        if current.iter().min().is_some_and(|&low| low > most) {
            return most + 1; // a row's minimum never decreases
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()].min(most + 1)
}

/// S4-S5: the candidate near `word` (ASCII letters lowered, S2) at the smallest distance; `None` on a tie.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word: Vec<char> = word.chars().map(|c| c.to_ascii_lowercase()).collect();
    let mut best: Option<(&str, usize)> = None;
    let mut tied = false;
    for candidate in candidates {
        let form: Vec<char> = candidate.chars().collect();
        let most = form.len() / 3; // S4
        let distance = osa_distance(&word, &form, most);
        if distance > most {
            continue;
        }
        match best {
            Some((_, low)) if distance == low => tied = true,
            Some((_, low)) if distance > low => {}
            _ => {
                best = Some((candidate, distance));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(candidate, _)| candidate)
}

/// S1: every flag form without its leading `--`, in vocabulary order.
fn forms(vocab: &Vocabulary) -> impl Iterator<Item = String> + '_ {
    vocab.modes.iter().flat_map(|(_, name)| [(*name).to_owned(), format!("no-{name}")])
}

/// S2, S6: the suggested flag (`--` and the form) for an unknown `token`, if any, among `vocab`'s flag forms.
pub fn suggestion_in(vocab: &Vocabulary, token: &str) -> Option<String> {
    let part = token.split('=').next().unwrap_or_default();
    let part = part.strip_prefix("--").unwrap_or(part);
    if part.chars().nth(vocab.suggest_limit).is_some() {
        return None; // S7: longer than every form allows
    }
    let forms: Vec<String> = forms(vocab).collect();
    nearest(part, forms.iter().map(String::as_str)).map(|form| format!("--{form}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The suggestion in the default vocabulary (B1).
    fn suggestion(token: &str) -> Option<String> {
        suggestion_in(crate::DEFAULT_VOCABULARY, token)
    }

    fn distance(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        osa_distance(&a, &b, 100)
    }

    #[test]
    fn optimal_string_alignment_not_levenshtein_nor_damerau() {
        assert_eq!(distance("autonomuos", "autonomous"), 1); // one swap (Levenshtein: 2)
        assert_eq!(distance("ca", "abc"), 3); // OSA edits no substring twice (Damerau-Levenshtein: 2)
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("ąutönomoüs", "autonomous"), 3); // code points, not bytes
        assert_eq!(osa_distance(&['x'; 30], &['y'; 10], 3), 4);
    }

    #[test]
    fn the_closest_form_or_none() {
        assert_eq!(suggestion("--Autonomus=1").as_deref(), Some("--autonomous"));
        assert_eq!(suggestion("--no-quality-lockd").as_deref(), Some("--no-quality-locked"));
        assert_eq!(suggestion("--x"), None);
        assert_eq!(suggestion("--autono"), None); // 4 edits: one more than autonomous allows
        assert_eq!(suggestion("--x-autonomous"), None); // 2 from --autonomous and from --no-autonomous
        assert_eq!(suggestion(&format!("--{}", "a".repeat(10_000))), None);
    }
}
