//! Folding free text into lookup keys: case-, accent- and punctuation-insensitive.

/// Folds `text` into a lookup key: transliterated to ASCII (`México` → `Mexico`), lower-cased, every run
/// of characters other than letters and digits turned into one space, trimmed.
///
/// `"República Dominicana"` and `"republica-dominicana"` both fold to `"republica dominicana"`; an input
/// with no letters or digits folds to the empty string.
pub fn fold(text: &str) -> String {
    let ascii = deunicode::deunicode(text);
    let mut key = String::with_capacity(ascii.len());
    let mut pending_space = false;
    for character in ascii.chars() {
        if character.is_ascii_alphanumeric() {
            if pending_space && !key.is_empty() {
                key.push(' ');
            }
            pending_space = false;
            key.push(character.to_ascii_lowercase());
        } else {
            pending_space = true;
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::fold;

    fn check(input: &str, expected: &str) {
        assert_eq!(fold(input), expected, "fold({input:?})");
    }

    #[test]
    fn folds_case_accents_and_punctuation() {
        check("México", "mexico");
        check("  República   Dominicana ", "republica dominicana");
        check("Bahamas, The", "bahamas the");
        check("educação", "educacao");
        check("Curaçao", "curacao");
        check("--", "");
    }
}
