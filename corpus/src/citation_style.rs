//! Citations ready to paste: one stored value ([`Citation`]) or curated record ([`RecordCitation`]) written
//! as CSL-JSON, BibTeX, APA 7, Chicago (bibliography) or one plain line, each naming the publisher, the
//! dataset, the indicator's title and code, the vintage, the URL, the retrieval date, the licence and the
//! publisher's attribution verbatim; a value's citation names its country and year (and the value).
//!
//! The publication year is the vintage's first four-digit year (`2026-07` → 2026; `n.d.` when it has
//! none); the retrieval date is the raw file's (`retrieved_at`). Text is written as given: BibTeX fields
//! escape its special characters (`&`, `%`, `$`, `#`, `_`); APA and Chicago italicise titles with
//! Markdown asterisks.

use serde_json::{Value, json};

use crate::{Citation, RecordCitation};

/// A format a citation is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CitationFormat {
    /// The corpus' own JSON record (the default).
    Json,
    /// CSL-JSON (Citation Style Language), what Zotero, Pandoc and Mendeley import.
    CslJson,
    /// A BibTeX `@misc` entry.
    Bibtex,
    /// APA 7th edition, data set reference.
    Apa,
    /// Chicago Manual of Style, bibliography entry.
    Chicago,
    /// One plain line.
    Text,
}

impl CitationFormat {
    /// Every format, in the order the docs list them.
    pub const ALL: [CitationFormat; 6] = [
        CitationFormat::Json,
        CitationFormat::CslJson,
        CitationFormat::Bibtex,
        CitationFormat::Apa,
        CitationFormat::Chicago,
        CitationFormat::Text,
    ];

    /// Its name on the wire (`csl-json`).
    pub fn name(self) -> &'static str {
        match self {
            CitationFormat::Json => "json",
            CitationFormat::CslJson => "csl-json",
            CitationFormat::Bibtex => "bibtex",
            CitationFormat::Apa => "apa",
            CitationFormat::Chicago => "chicago",
            CitationFormat::Text => "text",
        }
    }

    /// The format named `text` (case-insensitive; `csl`, `csljson` and `bib` too), if any.
    pub fn parse(text: &str) -> Option<CitationFormat> {
        let text = text.trim().to_ascii_lowercase();
        match text.as_str() {
            "csl" | "csljson" | "csl_json" => Some(CitationFormat::CslJson),
            "bib" => Some(CitationFormat::Bibtex),
            _ => CitationFormat::ALL
                .into_iter()
                .find(|format| format.name() == text),
        }
    }

    /// The media type of a citation written in it (HTTP `Content-Type`).
    pub fn media_type(self) -> &'static str {
        match self {
            CitationFormat::Json => "application/json",
            CitationFormat::CslJson => "application/vnd.citationstyles.csl+json",
            CitationFormat::Bibtex => "application/x-bibtex; charset=utf-8",
            CitationFormat::Apa | CitationFormat::Chicago | CitationFormat::Text => {
                "text/plain; charset=utf-8"
            }
        }
    }

    /// `json, csl-json, bibtex, apa, chicago, text`, for messages.
    pub fn names() -> String {
        CitationFormat::ALL
            .iter()
            .map(|format| format.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What a paste-ready citation says: the fields every format writes, from a value or a record.
#[derive(Debug, Clone)]
pub struct CitationParts<'a> {
    /// The citation id (a BibTeX key, a CSL `id`).
    pub id: &'a str,
    /// Publisher (`The World Bank`).
    pub publisher: &'a str,
    /// Dataset (`World Development Indicators`).
    pub dataset: &'a str,
    /// Title: the indicator's publisher title, or the record's.
    pub title: &'a str,
    /// The indicator's publisher code (`SP.DYN.LE00.IN`), empty for a record.
    pub code: &'a str,
    /// What is cited within it: `Mexico, 2024` for a value, empty for a record.
    pub point: String,
    /// The value and unit (`75.264 years`), empty for a record.
    pub value: String,
    /// Release (`2026-07`), empty when unknown.
    pub vintage: &'a str,
    /// Deep link.
    pub url: &'a str,
    /// Retrieval date, ISO 8601.
    pub retrieved_at: &'a str,
    /// Licence id (`CC-BY-4.0`).
    pub license: &'a str,
    /// The publisher's attribution, verbatim.
    pub attribution: &'a str,
    /// The value's flags (`projection`, `estimate`, `modelled`), empty when none or for a record.
    pub flags: &'a str,
}

impl<'a> CitationParts<'a> {
    /// The parts of a stored value's citation; `country_name` names its country (`Mexico`).
    pub fn of_value(citation: &'a Citation<'_>, country_name: &str) -> CitationParts<'a> {
        CitationParts {
            id: &citation.citation_id,
            publisher: &citation.publisher,
            dataset: &citation.dataset,
            title: &citation.title,
            code: &citation.indicator_code,
            point: format!("{country_name}, {}", citation.year),
            value: format!("{} {}", citation.value, citation.unit),
            vintage: &citation.vintage,
            url: &citation.url,
            retrieved_at: &citation.retrieved_at,
            license: &citation.license,
            attribution: &citation.attribution,
            flags: &citation.flags,
        }
    }

    /// The parts of a curated record's citation.
    pub fn of_record(record: &'a RecordCitation) -> CitationParts<'a> {
        CitationParts {
            id: &record.citation_id,
            publisher: &record.publisher,
            dataset: &record.source,
            title: &record.title,
            code: "",
            point: String::new(),
            value: String::new(),
            vintage: "",
            url: &record.url,
            retrieved_at: &record.retrieved_at,
            license: &record.license,
            attribution: &record.attribution,
            flags: "",
        }
    }

    /// The publication year: the vintage's first four-digit year, else the retrieval date's, else `n.d.`.
    pub fn year(&self) -> String {
        first_year(self.vintage)
            .or_else(|| first_year(self.retrieved_at))
            .map_or_else(|| "n.d.".to_string(), |year| year.to_string())
    }

    /// The title with the code and point (`Life expectancy at birth, total (years) [SP.DYN.LE00.IN],
    /// Mexico, 2024`).
    fn full_title(&self) -> String {
        let mut title = self.title.to_string();
        if !self.code.is_empty() {
            title.push_str(&format!(" [{}]", self.code));
        }
        if !self.point.is_empty() {
            title.push_str(&format!(", {}", self.point));
        }
        title
    }

    /// `Value: 75.264 years. Licence: CC-BY-4.0. {attribution}`.
    fn note(&self) -> String {
        let mut note = String::new();
        if !self.value.is_empty() {
            note.push_str(&format!("Value: {}. ", self.value));
        }
        if !self.flags.is_empty() {
            // `projection|vintage_projection` → `projection, vintage projection`.
            let flags: Vec<String> = self
                .flags
                .split('|')
                .map(|flag| flag.replace('_', " "))
                .collect();
            note.push_str(&format!(
                "Flags: {} (not an observation). ",
                flags.join(", ")
            ));
        }
        note.push_str(&format!("Licence: {}.", self.license));
        if !self.attribution.is_empty() {
            note.push_str(&format!(" {}", self.attribution));
        }
        note
    }

    fn release(&self) -> String {
        if self.vintage.is_empty() {
            String::new()
        } else {
            format!(", release {}", self.vintage)
        }
    }

    /// The citation as CSL-JSON (one item, `type: dataset`).
    pub fn csl_json(&self) -> Value {
        let mut item = json!({
            "id": self.id,
            "type": "dataset",
            "title": self.full_title(),
            "author": [{"literal": self.publisher}],
            "publisher": self.publisher,
            "container-title": self.dataset,
            "URL": self.url,
            "note": self.note(),
        });
        if !self.vintage.is_empty() {
            item["version"] = json!(self.vintage);
        }
        // The vintage's date, else its year (`HDR 2025`), else the retrieval year.
        let issued = date_parts(self.vintage).or_else(|| {
            first_year(self.vintage)
                .or_else(|| first_year(self.retrieved_at))
                .map(|year| vec![year])
        });
        if let Some(issued) = issued {
            item["issued"] = json!({"date-parts": [issued]});
        }
        if let Some(accessed) = date_parts(self.retrieved_at) {
            item["accessed"] = json!({"date-parts": [accessed]});
        }
        if !self.code.is_empty() {
            item["number"] = json!(self.code);
        }
        item
    }

    /// The citation written in `format`; [`CitationFormat::Json`] and [`CitationFormat::CslJson`] give
    /// the CSL-JSON item as text (the JSON record is the caller's own).
    pub fn render(&self, format: CitationFormat) -> String {
        match format {
            CitationFormat::Json | CitationFormat::CslJson => self.csl_json().to_string(),
            CitationFormat::Bibtex => self.bibtex(),
            CitationFormat::Apa => self.apa(),
            CitationFormat::Chicago => self.chicago(),
            CitationFormat::Text => self.text(),
        }
    }

    fn bibtex(&self) -> String {
        let mut fields = vec![
            ("author", format!("{{{}}}", bibtex_escape(self.publisher))),
            (
                "title",
                format!("{{{}}}", bibtex_escape(&self.full_title())),
            ),
            (
                "howpublished",
                bibtex_escape(&format!("{}{}", self.dataset, self.release())),
            ),
            ("year", self.year()),
            ("url", self.url.to_string()),
        ];
        if !self.retrieved_at.is_empty() {
            fields.push(("urldate", self.retrieved_at.to_string()));
        }
        fields.push(("note", bibtex_escape(&self.note())));
        let body: Vec<String> = fields
            .into_iter()
            .map(|(name, value)| format!("  {name:<12} = {{{value}}},"))
            .collect();
        format!("@misc{{{},\n{}\n}}", self.id, body.join("\n"))
    }

    fn apa(&self) -> String {
        let mut version = Vec::new();
        if !self.code.is_empty() {
            version.push(self.code.to_string());
        }
        if !self.point.is_empty() {
            version.push(self.point.clone());
        }
        if !self.vintage.is_empty() {
            version.push(format!("release {}", self.vintage));
        }
        let version = if version.is_empty() {
            String::new()
        } else {
            format!(" ({})", version.join("; "))
        };
        format!(
            "{}. ({}). *{}*{version} [Data set]. {}. Retrieved {}, from {}. {}",
            self.publisher.trim_end_matches('.'),
            self.year(),
            self.title,
            self.dataset,
            long_date(self.retrieved_at),
            self.url,
            self.note()
        )
    }

    fn chicago(&self) -> String {
        format!(
            "{}. \"{}.\" *{}*{}. Accessed {}. {}. {}",
            self.publisher.trim_end_matches('.'),
            self.full_title(),
            self.dataset,
            self.release(),
            long_date(self.retrieved_at),
            self.url,
            self.note()
        )
    }

    fn text(&self) -> String {
        let value = if self.value.is_empty() {
            String::new()
        } else {
            format!(": {}", self.value)
        };
        format!(
            "{}, {}{}: {}{value}. {} (retrieved {}). Licence: {}.{}",
            self.publisher,
            self.dataset,
            self.release(),
            self.full_title(),
            self.url,
            self.retrieved_at,
            self.license,
            if self.attribution.is_empty() {
                String::new()
            } else {
                format!(" {}", self.attribution)
            }
        )
    }
}

/// The first run of four digits in `text` read as a year from 1900 to 2100.
fn first_year(text: &str) -> Option<i32> {
    let digits: Vec<char> = text.chars().collect();
    digits.windows(4).enumerate().find_map(|(at, window)| {
        let bounded = (at == 0 || !digits[at - 1].is_ascii_digit())
            && digits.get(at + 4).is_none_or(|next| !next.is_ascii_digit());
        let year: String = window.iter().collect();
        year.parse::<i32>()
            .ok()
            .filter(|year| bounded && (1900..=2100).contains(year))
    })
}

/// `[2026, 7, 15]` of `2026-07-15` (or `[2026, 7]` of `2026-07`), if the text is such a date.
fn date_parts(text: &str) -> Option<Vec<i32>> {
    let parts: Vec<i32> = text
        .split('-')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    (!parts.is_empty() && parts.len() <= 3 && (1900..=2100).contains(&parts[0])).then_some(parts)
}

/// `July 15, 2026` of `2026-07-15` (`July 2026` of `2026-07`); the text itself when it is no such date.
fn long_date(text: &str) -> String {
    match date_parts(text).as_deref() {
        Some([year, month, day]) if (1..=12).contains(month) => crate::dates::long_date(
            i64::from(*year),
            *month as u32,
            *day as u32,
            crate::Lang::En,
        ),
        Some([year, month]) if (1..=12).contains(month) => {
            format!(
                "{} {year}",
                crate::dates::month_name(*month as u32, crate::Lang::En)
            )
        }
        _ => text.to_string(),
    }
}

/// `text` with BibTeX's special characters escaped.
fn bibtex_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        if matches!(character, '&' | '%' | '$' | '#' | '_' | '{' | '}') {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    escaped
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    fn life_expectancy() -> Citation<'static> {
        Citation {
            citation_id: Cow::Borrowed("wb-sp-dyn-le00-in-mex-2024"),
            source: Cow::Borrowed("wdi"),
            publisher: Cow::Borrowed("The World Bank"),
            dataset: Cow::Borrowed("World Development Indicators"),
            indicator: Cow::Borrowed("sp_dyn_le00_in"),
            indicator_code: Cow::Borrowed("SP.DYN.LE00.IN"),
            title: Cow::Borrowed("Life expectancy at birth, total (years)"),
            country: Cow::Borrowed("MEX"),
            year: 2024,
            value: 75.264,
            unit: Cow::Borrowed("years"),
            url: Cow::Borrowed("https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX"),
            vintage: Cow::Borrowed("2026-07"),
            retrieved_at: Cow::Borrowed("2026-07-15"),
            license: Cow::Borrowed("CC-BY-4.0"),
            attribution: Cow::Borrowed("Source: World Bank, World Development Indicators"),
            flags: Cow::Borrowed(""),
        }
    }

    #[test]
    fn each_format_names_the_point_the_release_the_licence_and_the_attribution() {
        let citation = life_expectancy();
        let parts = CitationParts::of_value(&citation, "Mexico");
        let apa = parts.render(CitationFormat::Apa);
        assert_eq!(
            apa,
            "The World Bank. (2026). *Life expectancy at birth, total (years)* (SP.DYN.LE00.IN; Mexico, 2024; release 2026-07) [Data set]. World Development Indicators. Retrieved July 15, 2026, from https://data.worldbank.org/indicator/SP.DYN.LE00.IN?locations=MX. Value: 75.264 years. Licence: CC-BY-4.0. Source: World Bank, World Development Indicators"
        );
        let bibtex = parts.render(CitationFormat::Bibtex);
        assert!(
            bibtex.starts_with("@misc{wb-sp-dyn-le00-in-mex-2024,\n"),
            "{bibtex}"
        );
        assert!(bibtex.contains("  year         = {2026},"), "{bibtex}");
        assert!(
            bibtex.contains("  urldate      = {2026-07-15},"),
            "{bibtex}"
        );
        let csl = parts.csl_json();
        assert_eq!(csl["type"], "dataset");
        assert_eq!(csl["issued"]["date-parts"], json!([[2026, 7]]));
        assert_eq!(csl["accessed"]["date-parts"], json!([[2026, 7, 15]]));
        assert_eq!(csl["number"], "SP.DYN.LE00.IN");
        let chicago = parts.render(CitationFormat::Chicago);
        assert!(chicago.contains("Accessed July 15, 2026."), "{chicago}");
        let text = parts.render(CitationFormat::Text);
        assert!(text.contains("Mexico, 2024: 75.264 years."), "{text}");
    }

    #[test]
    fn formats_parse_by_name_and_bibtex_escapes_its_specials() {
        assert_eq!(CitationFormat::parse("CSL"), Some(CitationFormat::CslJson));
        assert_eq!(
            CitationFormat::parse("bibtex"),
            Some(CitationFormat::Bibtex)
        );
        assert_eq!(CitationFormat::parse("mla"), None);
        assert_eq!(bibtex_escape("R&D 50% #1"), "R\\&D 50\\% \\#1");
        assert_eq!(first_year("UNODC 2025 (inferred)"), Some(2025));
        assert_eq!(first_year("HDR"), None);
    }
}
