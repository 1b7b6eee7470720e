//! Reading the place a claim names: the longest run of words (up to five) that the normaliser knows,
//! as [`corpus::CountryRegistry::lookup`] reads it: one country, an aggregate (`Latin America`), several
//! countries (`Virgin Islands`) or a place outside the corpus (`Spain`). A word of fewer than four letters
//! counts only as a capitalised ISO3 code (`MEX`), so `do` or `co` are never a country.

use corpus::PlaceMatch;

use crate::load::Corpus;

/// The place a text names, and the words that name it as written (`Mexico`, possessive taken off).
#[derive(Debug, Clone)]
pub struct ReadPlace<'a> {
    /// The words as written.
    pub words: String,
    /// What they name.
    pub place: PlaceMatch<'a>,
}

/// The place `text` names, if any words of it name one; the longest phrase first, then the earliest.
pub fn read<'a>(corpus: &'a Corpus, text: &str) -> Option<ReadPlace<'a>> {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|word| {
            let bare = word.trim_matches(|character: char| !character.is_alphanumeric());
            bare.strip_suffix("'s")
                .or_else(|| bare.strip_suffix("’s"))
                .unwrap_or(bare)
                .to_string()
        })
        .collect();
    let registry = corpus.baked.countries();
    for length in (1..=5.min(words.len())).rev() {
        for start in 0..=words.len() - length {
            let phrase = words[start..start + length].join(" ");
            let readable = phrase
                .chars()
                .filter(|character| character.is_alphabetic())
                .count()
                >= 4
                || (phrase.len() == 3
                    && phrase
                        .chars()
                        .all(|character| character.is_ascii_uppercase()));
            if !readable || phrase.chars().any(|character| character.is_ascii_digit()) {
                continue;
            }
            match registry.lookup(&phrase) {
                PlaceMatch::Unknown => {}
                place => {
                    return Some(ReadPlace {
                        words: phrase,
                        place,
                    });
                }
            }
        }
    }
    None
}
