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

/// Words before a place's name that make it a place within a country (`Estado de México`, `New Mexico`,
/// `Nuevo León`): such a text names no country of the corpus.
const SUBNATIONAL: [&str; 14] = [
    "estado",
    "state",
    "new",
    "nuevo",
    "nueva",
    "provincia",
    "province",
    "ciudad",
    "city",
    "departamento",
    "department",
    "region",
    "municipio",
    "cidade",
];

/// The place `text` names, if any words of it name one: the earliest run of words (at each word, the
/// longest first, up to five) the normaliser knows, a country before an aggregate (`World Bank` names
/// no place); a capitalised three-letter word counts as an ISO3 code only for a country of the corpus and
/// only in a text that is not all capitals (`GDP PER CAPITA` is no Peru); a place right after another,
/// as its qualifier (`Granada, España`), is the one named; a name after a word like `Estado de` or `New`
/// names a place within a country, answered as [`PlaceMatch::Unknown`] with those words.
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
    let shouting = !text.chars().any(char::is_lowercase);
    let registry = corpus.baked.countries();
    let lookup = |start: usize| -> Option<(usize, PlaceMatch<'a>)> {
        for length in (1..=5.min(words.len() - start)).rev() {
            let phrase = words[start..start + length].join(" ");
            let letters = phrase
                .chars()
                .filter(|character| character.is_alphabetic())
                .count();
            let code = phrase.len() == 3
                && phrase
                    .chars()
                    .all(|character| character.is_ascii_uppercase());
            if (letters < 4 && !code) || phrase.chars().any(|character| character.is_ascii_digit())
            {
                continue;
            }
            let place = registry.lookup(&phrase);
            if code && (shouting || !matches!(place, PlaceMatch::Country(_))) {
                continue;
            }
            if !matches!(place, PlaceMatch::Unknown) {
                return Some((length, place));
            }
        }
        None
    };
    let mut aggregate: Option<ReadPlace<'a>> = None;
    for start in 0..words.len() {
        let Some((length, place)) = lookup(start) else {
            continue;
        };
        let named = words[start..start + length].join(" ");
        if matches!(place, PlaceMatch::Aggregate(_)) {
            aggregate.get_or_insert(ReadPlace {
                words: named,
                place,
            });
            continue;
        }
        let from = start.saturating_sub(2);
        if words[from..start]
            .iter()
            .any(|word| SUBNATIONAL.contains(&corpus::folding::fold(word).as_str()))
        {
            return Some(ReadPlace {
                words: format!("{} {named}", words[from..start].join(" ")),
                place: PlaceMatch::Unknown,
            });
        }
        // `Granada, España`: the place after the comma qualifies the first.
        let comma = text
            .split_whitespace()
            .nth(start + length - 1)
            .is_some_and(|word| word.ends_with(','));
        if comma
            && start + length < words.len()
            && let Some((qualifier_length, qualifier @ PlaceMatch::Outside(_))) =
                lookup(start + length)
        {
            return Some(ReadPlace {
                words: words[start + length..start + length + qualifier_length].join(" "),
                place: qualifier,
            });
        }
        return Some(ReadPlace {
            words: named,
            place,
        });
    }
    aggregate
}
