//! Reading a claim written in words, by rules (no model): the numbers with their scale and unit words, the
//! year, and the words left for the indicator. The place is read by [`super::place`], which needs the
//! corpus.
//!
//! Numbers: `75.3`, `3,4` (a decimal comma), `2,500` and `12.000` (a thousands separator: one comma or,
//! in a Spanish or Portuguese sentence, one dot before exactly three digits; several separators of one
//! kind; both kinds: the last is the decimal mark), a sign (`-0.5`, `−0.5`, `minus`/`menos`). A number
//! of four digits from 1900 to 2100 with no decimals is a year, unless a unit or scale word follows it;
//! the claimed value is the first other number, except the `100,000` of `per 100,000`. Scale words
//! multiply it (`thousand`/`mil`, `million`/`millones`/`milhões`, `billion`/`mil millones`/`bilhões`,
//! `trillion`/`billones`), unit words name its unit (`%`, `percent`, `por ciento`, `per 100,000`,
//! `years`, `US$`).

/// What the rules read in a claim's text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadText {
    /// The claimed value, its scale word applied (`1.2 billion` → 1.2e9).
    pub value: Option<f64>,
    /// Half a unit of the value's last written digit, scale applied (`75.3` → 0.05): what rounding
    /// alone can explain.
    pub rounding: Option<f64>,
    /// The year named.
    pub year: Option<i32>,
    /// The unit words read (`%`, `per 100,000`, `years`, `US$`).
    pub unit: Option<String>,
    /// The scale word read (`billion`), if any.
    pub scale: Option<String>,
    /// The text without the numbers, years, unit, scale and claim words: what names the indicator.
    pub words: String,
}

/// Words that say a claim is being made, or whose source it is, and name nothing measured (es/en/pt).
const CLAIM_WORDS: [&str; 109] = [
    "was",
    "were",
    "is",
    "are",
    "be",
    "been",
    "fell",
    "rose",
    "reached",
    "stood",
    "hit",
    "dropped",
    "increased",
    "decreased",
    "declined",
    "climbed",
    "amounted",
    "totaled",
    "totalled",
    "about",
    "around",
    "nearly",
    "almost",
    "roughly",
    "approximately",
    "just",
    "over",
    "under",
    "above",
    "below",
    "some",
    "its",
    "has",
    "had",
    "have",
    "only",
    "scored",
    "score",
    "recorded",
    "emitted",
    "according",
    "will",
    "would",
    "projected",
    "expected",
    "estimated",
    "fue",
    "era",
    "es",
    "son",
    "fueron",
    "cayo",
    "subio",
    "alcanzo",
    "llego",
    "bajo",
    "aumento",
    "disminuyo",
    "situo",
    "registro",
    "tuvo",
    "tiene",
    "casi",
    "alrededor",
    "aproximadamente",
    "unos",
    "segun",
    "solo",
    "afecto",
    "foi",
    "eram",
    "caiu",
    "subiu",
    "atingiu",
    "chegou",
    "aumentou",
    "diminuiu",
    "ficou",
    "registrou",
    "teve",
    "tem",
    "tinha",
    "quase",
    "cerca",
    "segundo",
    "apenas",
    "se",
    "ha",
    "sido",
    "world",
    "bank",
    "imf",
    "fmi",
    "banco",
    "mundial",
    "cepal",
    "eclac",
    "undp",
    "pnud",
    "ocde",
    "oecd",
    "unodc",
    "menos",
    "mais",
    "mas",
    "more",
    "less",
    "than",
    "que",
];

/// Verbs of growth: read as the word `growth` (`the economy grew 3.4 %` → `gdp growth`); those of a
/// contraction also turn a positive value negative (`contracted 1.6 %` → -1.6).
const GROWTH_VERBS: [(&str, bool); 17] = [
    ("grew", false),
    ("expanded", false),
    ("crecio", false),
    ("cresceu", false),
    ("growing", false),
    ("creciendo", false),
    ("crescendo", false),
    ("contracted", true),
    ("shrank", true),
    ("contrajo", true),
    ("contraiu", true),
    ("encolheu", true),
    ("decrecio", true),
    ("retrocedio", true),
    ("recuo", true),
    ("recuou", true),
    ("shrunk", true),
];

/// Words for the whole economy, read as GDP (`la economía creció` → `pib crecimiento`).
const ECONOMY_WORDS: [(&str, &str); 3] = [
    ("economy", "gdp"),
    ("economia", "pib"),
    ("economies", "gdp"),
];

/// Phrases for a rate per person, read as `per capita`.
const PER_PERSON: [&str; 6] = [
    "person",
    "persona",
    "pessoa",
    "habitant",
    "inhabitant",
    "head",
];

/// Scale words and their factor; matched on folded words, the longest phrase first.
const SCALES: [(&str, f64, &str); 17] = [
    ("mil millones", 1e9, "billion"),
    ("miles de millones", 1e9, "billion"),
    ("trillion", 1e12, "trillion"),
    ("trillions", 1e12, "trillion"),
    ("billones", 1e12, "trillion"),
    ("trilhoes", 1e12, "trillion"),
    ("billion", 1e9, "billion"),
    ("billions", 1e9, "billion"),
    ("bn", 1e9, "billion"),
    ("bilhoes", 1e9, "billion"),
    ("bilhao", 1e9, "billion"),
    ("million", 1e6, "million"),
    ("millions", 1e6, "million"),
    ("millones", 1e6, "million"),
    ("millon", 1e6, "million"),
    ("milhoes", 1e6, "million"),
    ("milhao", 1e6, "million"),
];

/// Words of a thousand (`mil` is a thousand unless `millones` follows it, read above).
const THOUSANDS: [&str; 5] = ["thousand", "thousands", "mil", "miles", "milhares"];

/// Unit phrases (folded words, a number as its integer digits) and the unit they name, the longest first.
const UNITS: [(&str, &str); 30] = [
    ("per 100000 people", "per 100,000"),
    ("per 100000 inhabitants", "per 100,000"),
    ("por cada 100000 habitantes", "per 100,000"),
    ("por 100000 habitantes", "per 100,000"),
    ("por cada 100000", "per 100,000"),
    ("por cada 100 mil", "per 100,000"),
    ("por 100 mil", "per 100,000"),
    ("por 100000", "per 100,000"),
    ("per 100000", "per 100,000"),
    ("per 100 k", "per 100,000"),
    ("por ciento", "%"),
    ("por cento", "%"),
    ("per cent", "%"),
    ("percent", "%"),
    ("percentage points", "percentage points"),
    ("puntos porcentuales", "percentage points"),
    ("years", "years"),
    ("anos", "years"),
    ("usd", "US$"),
    ("dollars", "US$"),
    ("dolares", "US$"),
    ("tonnes", "tonnes"),
    ("tons", "tonnes"),
    ("toneladas", "tonnes"),
    ("people", "people"),
    ("persons", "people"),
    ("personas", "people"),
    ("pessoas", "people"),
    ("inhabitants", "people"),
    ("habitantes", "people"),
];

/// A token of the text: a number (as written) or a word (folded).
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number {
        value: f64,
        decimals: u32,
        negative: bool,
        /// Whether it has a decimal mark or separators (so it is no year).
        plain_integer: bool,
        /// As written, separators kept (spaces out).
        written: String,
        /// Whether a dash joins it to a number before it (`2015-2020`).
        after_dash: bool,
    },
    Percent,
    Dollar,
    Word(String),
}

/// Reads `text` by the rules of this module.
pub fn read(text: &str) -> ReadText {
    let romance = looks_spanish_or_portuguese(text);
    let tokens = tokenize(text, romance);
    let mut used = vec![false; tokens.len()];
    let mut read = ReadText::default();
    // Unit phrases first, so `100,000` of `per 100,000` is no value.
    let words: Vec<String> = tokens.iter().map(token_text).collect();
    let mut unit_at: Option<usize> = None;
    for (phrase, unit) in UNITS {
        let phrase_words: Vec<&str> = phrase.split(' ').collect();
        if let Some(start) = find_phrase(&words, &phrase_words, &used) {
            for slot in &mut used[start..start + phrase_words.len()] {
                *slot = true;
            }
            read.unit.get_or_insert_with(|| unit.to_string());
            unit_at.get_or_insert(start);
        }
    }
    for (token_idx, token) in tokens.iter().enumerate() {
        match token {
            Token::Percent => {
                used[token_idx] = true;
                read.unit.get_or_insert_with(|| "%".into());
            }
            Token::Dollar => {
                used[token_idx] = true;
                read.unit.get_or_insert_with(|| "US$".into());
            }
            _ => {}
        }
    }
    // The year: a plain four-digit number in range with no unit or scale after it; the last one named.
    let is_unit_or_scale = |token_idx: usize| {
        tokens.get(token_idx + 1).is_some_and(|next| {
            matches!(next, Token::Percent | Token::Dollar)
                || matches!(next, Token::Word(word) if SCALES.iter().any(|(scale, _, _)| scale.split(' ').next() == Some(word.as_str()))
                    || THOUSANDS.contains(&word.as_str())
                    || UNITS.iter().any(|(phrase, _)| phrase.split(' ').next() == Some(word.as_str()) && !phrase.starts_with("per") && !phrase.starts_with("por")))
        })
    };
    // A range of years (`2015-2020`): both are years, neither the value; the later one is the year.
    let year_of = |token: &Token| match token {
        Token::Number {
            value,
            plain_integer: true,
            ..
        } if (1900.0..=2100.0).contains(value) => Some(*value),
        _ => None,
    };
    for token_idx in 1..tokens.len() {
        if year_of(&tokens[token_idx - 1]).is_some()
            && year_of(&tokens[token_idx]).is_some()
            && matches!(
                &tokens[token_idx],
                Token::Number {
                    after_dash: true,
                    ..
                }
            )
        {
            used[token_idx - 1] = true;
        }
    }
    for (token_idx, token) in tokens.iter().enumerate().rev() {
        let after_range =
            token_idx > 0 && used[token_idx - 1] && year_of(&tokens[token_idx - 1]).is_some();
        if let Token::Number {
            value,
            plain_integer: true,
            negative,
            ..
        } = token
            && (!negative || after_range)
            && !used[token_idx]
            && (1900.0..=2100.0).contains(value)
            && !is_unit_or_scale(token_idx)
        {
            read.year = Some(*value as i32);
            used[token_idx] = true;
            break;
        }
    }
    // The value: the first number left, with the scale word after it.
    for token_idx in 0..tokens.len() {
        let Token::Number {
            value,
            decimals,
            negative,
            written,
            ..
        } = &tokens[token_idx]
        else {
            continue;
        };
        if used[token_idx] {
            continue;
        }
        let (mut value, mut decimals) = (*value, *decimals);
        used[token_idx] = true;
        let sign = if *negative { -1.0 } else { 1.0 };
        let mut factor = 1.0;
        let rest: Vec<&str> = words[token_idx + 1..]
            .iter()
            .take(3)
            .map(String::as_str)
            .collect();
        for (scale, scale_factor, name) in SCALES {
            let scale_words: Vec<&str> = scale.split(' ').collect();
            if rest.len() >= scale_words.len() && rest[..scale_words.len()] == scale_words[..] {
                factor = scale_factor;
                read.scale = Some(name.to_string());
                for slot in &mut used[token_idx + 1..token_idx + 1 + scale_words.len()] {
                    *slot = true;
                }
                break;
            }
        }
        if read.scale.is_none() && rest.first().is_some_and(|word| THOUSANDS.contains(word)) {
            factor = 1e3;
            read.scale = Some("thousand".into());
            used[token_idx + 1] = true;
        }
        // Before a scale word one separator is a decimal mark (`129,739 millones`, `6.314 million`):
        // nobody writes thousands of millions that way.
        if factor != 1.0
            && let Some((whole, fraction)) = written
                .split_once(['.', ','])
                .filter(|(_, fraction)| !fraction.contains(['.', ',']))
        {
            value = format!("{whole}.{fraction}").parse().unwrap_or(value);
            decimals = fraction.chars().count() as u32;
        }
        if !(sign * value * factor).is_finite() {
            break;
        }
        read.value = Some(sign * value * factor);
        read.rounding = Some(0.5 * 10f64.powi(-(decimals as i32)) * factor);
        break;
    }
    let mut left: Vec<String> = Vec::new();
    let mut contraction = false;
    for (token_idx, token) in tokens.iter().enumerate() {
        let Token::Word(word) = token else { continue };
        if used[token_idx] || CLAIM_WORDS.contains(&word.as_str()) {
            continue;
        }
        if let Some((_, shrinks)) = GROWTH_VERBS.iter().find(|(verb, _)| verb == word) {
            contraction |= *shrinks;
            left.push("growth".into());
            continue;
        }
        if let Some((_, gdp)) = ECONOMY_WORDS.iter().find(|(economy, _)| economy == word) {
            left.push((*gdp).into());
            continue;
        }
        // `per person`, `por habitante`: per capita.
        if left
            .last()
            .is_some_and(|previous| matches!(previous.as_str(), "per" | "por"))
            && PER_PERSON.iter().any(|person| word.starts_with(person))
        {
            left.push("capita".into());
            continue;
        }
        left.push(word.clone());
    }
    if contraction && let Some(value) = read.value.filter(|value| *value > 0.0) {
        read.value = Some(-value);
    }
    read.words = left.join(" ");
    read
}

fn token_text(token: &Token) -> String {
    match token {
        // A number as its integer digits (`100,000` → `100000`), as the unit phrases write it.
        Token::Number { value, .. } => format!("{}", value.trunc()),
        Token::Percent => "%".into(),
        Token::Dollar => "$".into(),
        Token::Word(word) => word.clone(),
    }
}

/// Where the tokens of `phrase` (token texts separated by spaces) start in `words`, none of them used.
fn find_phrase(words: &[String], phrase: &[&str], used: &[bool]) -> Option<usize> {
    if phrase.is_empty() || phrase.len() > words.len() {
        return None;
    }
    (0..=words.len() - phrase.len()).find(|&start| {
        (0..phrase.len())
            .all(|offset| !used[start + offset] && words[start + offset] == phrase[offset])
    })
}

/// Whether `text` reads as Spanish or Portuguese (for a dot before three digits: `12.000` is twelve
/// thousand there, twelve in English).
fn looks_spanish_or_portuguese(text: &str) -> bool {
    let folded = corpus::folding::fold(text);
    folded.split(' ').any(|word| {
        // Not `el` or `e`, which English sentences hold too (`El Salvador's…`).
        [
            "de", "del", "la", "en", "em", "do", "da", "los", "las", "fue", "foi", "por", "que",
            "con", "com", "y",
        ]
        .contains(&word)
    })
}

/// Splits `text` into numbers, `%`, `$` and folded words.
fn tokenize(text: &str, romance: bool) -> Vec<Token> {
    let characters: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut at = 0;
    let mut pending_minus = false;
    while at < characters.len() {
        let character = characters[at];
        if character.is_ascii_digit() {
            let start = at;
            let group_of_three = |from: usize| {
                (from..from + 3).all(|at| characters.get(at).is_some_and(char::is_ascii_digit))
                    && characters
                        .get(from + 3)
                        .is_none_or(|next| !next.is_ascii_digit())
            };
            while at < characters.len()
                && (characters[at].is_ascii_digit()
                    || ((characters[at] == '.' || characters[at] == ',')
                        && characters.get(at + 1).is_some_and(char::is_ascii_digit))
                    // `129 739 759`: thousands grouped by spaces (the SI, Spanish and Portuguese style).
                    || (matches!(characters[at], ' ' | '\u{a0}' | '\u{202f}')
                        && at > start
                        && characters[at - 1].is_ascii_digit()
                        && group_of_three(at + 1)))
            {
                at += 1;
            }
            let written: String = characters[start..at]
                .iter()
                .filter(|character| !matches!(character, ' ' | '\u{a0}' | '\u{202f}'))
                .collect();
            let dash = start > 0 && matches!(characters[start - 1], '-' | '−' | '–');
            let after_dash = dash && start > 1 && characters[start - 2].is_ascii_digit();
            let negative = pending_minus
                || (dash
                    && characters[start - 1] != '–'
                    && (start == 1 || !characters[start - 2].is_alphanumeric()));
            pending_minus = false;
            let (value, decimals, plain_integer) = number(&written, romance);
            tokens.push(Token::Number {
                value,
                decimals,
                negative,
                plain_integer,
                written,
                after_dash,
            });
            continue;
        }
        if character == '%' {
            tokens.push(Token::Percent);
            at += 1;
            continue;
        }
        if character == '$' {
            tokens.push(Token::Dollar);
            at += 1;
            continue;
        }
        if character.is_alphabetic() {
            let start = at;
            while at < characters.len() && (characters[at].is_alphanumeric()) {
                at += 1;
            }
            let word: String = characters[start..at].iter().collect();
            // `Mexico's`: the possessive is no word.
            if at + 1 < characters.len()
                && matches!(characters[at], '\'' | '’')
                && characters[at + 1] == 's'
                && characters
                    .get(at + 2)
                    .is_none_or(|next| !next.is_alphanumeric())
            {
                at += 2;
            }
            let folded = corpus::folding::fold(&word);
            // `menos de 80` is less than 80, not -80.
            let next_word: String = characters[at..]
                .iter()
                .skip_while(|character| character.is_whitespace())
                .take_while(|character| character.is_alphabetic())
                .collect();
            if folded == "minus"
                || (folded == "menos" && !matches!(next_word.as_str(), "de" | "del" | "que"))
            {
                pending_minus = true;
                continue;
            }
            if folded == "us" && characters.get(at) == Some(&'$') {
                continue;
            }
            if !folded.is_empty() {
                tokens.push(Token::Word(folded));
            }
            continue;
        }
        at += 1;
    }
    tokens
}

/// The value of a written number, its decimals and whether it is a plain integer (no separator).
fn number(written: &str, romance: bool) -> (f64, u32, bool) {
    let dots = written.matches('.').count();
    let commas = written.matches(',').count();
    let digits_after = |mark: char| {
        written
            .rsplit(mark)
            .next()
            .map_or(0, |tail| tail.chars().count())
    };
    // Which mark is the decimal one, if any.
    let decimal_mark = match (dots, commas) {
        (0, 0) => None,
        (_, 0) if dots > 1 => None,
        (0, _) if commas > 1 => None,
        (1, 0) if digits_after('.') == 3 && romance => None,
        (1, 0) => Some('.'),
        (0, 1) if digits_after(',') == 3 => None,
        (0, 1) => Some(','),
        _ => {
            let last_dot = written.rfind('.');
            let last_comma = written.rfind(',');
            if last_dot > last_comma {
                Some('.')
            } else {
                Some(',')
            }
        }
    };
    let (whole, fraction) = match decimal_mark {
        Some(mark) => {
            let (whole, fraction) = written.rsplit_once(mark).unwrap_or((written, ""));
            (whole.replace(['.', ','], ""), fraction.to_string())
        }
        None => (written.replace(['.', ','], ""), String::new()),
    };
    let value: f64 = format!("{whole}.{fraction}0").parse().unwrap_or(0.0);
    (
        value,
        fraction.chars().count() as u32,
        dots == 0 && commas == 0,
    )
}

#[cfg(test)]
mod tests {

    #[test]
    fn reads_value_year_unit_and_words() {
        let read = super::read("Mexico's life expectancy was 75.3 years in 2024");
        assert_eq!(read.value, Some(75.3));
        assert_eq!(read.year, Some(2024));
        assert_eq!(read.unit.as_deref(), Some("years"));
        assert!((read.rounding.unwrap() - 0.05).abs() < 1e-12);
        assert_eq!(read.words, "mexico life expectancy in");
    }

    #[test]
    fn reads_rates_per_100000_scales_and_decimal_commas() {
        let read = super::read("homicides in Colombia fell to 2.5 per 100,000");
        assert_eq!(read.value, Some(2.5));
        assert_eq!(read.unit.as_deref(), Some("per 100,000"));
        assert_eq!(read.year, None);
        assert_eq!(read.words, "homicides in colombia to");
        let read = super::read("El crecimiento del PIB de Brasil fue de 3,4 % en 2024");
        assert_eq!((read.value, read.year), (Some(3.4), Some(2024)));
        assert_eq!(read.unit.as_deref(), Some("%"));
        let read = super::read("Brazil's GDP was US$ 2.17 trillion in 2023");
        assert_eq!(read.value, Some(2.17e12));
        assert_eq!(read.scale.as_deref(), Some("trillion"));
        let read = super::read("México registró 12.000 homicidios en 2020");
        assert_eq!(read.value, Some(12_000.0));
        let read = super::read("inflation was -0.5 % in 2015");
        assert_eq!(read.value, Some(-0.5));
        let read = super::read("Chile emitted 80 million tonnes in 2019");
        assert_eq!(read.value, Some(80e6));
        let read = super::read("PIB de 1,5 mil millones");
        assert_eq!(read.value, Some(1.5e9));
    }

    #[test]
    fn ranges_less_than_spaced_thousands_and_decimals_before_a_scale() {
        let read = super::read("Mexico GDP growth 2015-2020: 0.5%");
        assert_eq!((read.value, read.year), (Some(0.5), Some(2020)));
        let read = super::read("Honduras's GDP per capita in 2019 was 2000 dollars");
        assert_eq!((read.value, read.year), (Some(2000.0), Some(2019)));
        let read = super::read("La esperanza de vida en México fue menos de 80 años en 2020");
        assert_eq!(read.value, Some(80.0));
        let read = super::read("El Salvador's GDP growth was 3.512% in 2023");
        assert_eq!(read.value, Some(3.512));
        let read = super::read("La población de México fue de 129 739 759 habitantes en 2023");
        assert_eq!(read.value, Some(129_739_759.0));
        let read = super::read("La población de México fue de 129,739 millones en 2023");
        assert_eq!(read.value, Some(129_739_000.0));
        let read = super::read("Mexico's economy contracted 0.4% in 2019");
        assert_eq!(read.value, Some(-0.4));
        assert_eq!(read.words, "mexico gdp growth in");
    }

    #[test]
    fn a_claim_without_a_number_reads_no_value() {
        let read = super::read("the poverty rate of Atlantis");
        assert_eq!(read.value, None);
        assert_eq!(read.year, None);
        assert_eq!(read.words, "the poverty rate of atlantis");
    }
}
