//! Names in the corpus' three languages.

use serde::{Deserialize, Serialize};

/// A prose language of the corpus: Spanish (the source language, default), English or Portuguese.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// Spanish, the default.
    #[default]
    Es,
    /// English.
    En,
    /// Portuguese.
    Pt,
}

impl Lang {
    /// Parses `es`, `en` or `pt` (any case); anything else falls back to Spanish, as the tools do.
    pub fn parse_or_default(text: &str) -> Lang {
        match text.to_ascii_lowercase().as_str() {
            "en" => Lang::En,
            "pt" => Lang::Pt,
            _ => Lang::Es,
        }
    }

    /// The language's ISO 639-1 code: `es`, `en` or `pt`.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Es => "es",
            Lang::En => "en",
            Lang::Pt => "pt",
        }
    }
}

/// A name in English (always present) and, where written, Spanish and Portuguese.
///
/// Source files are mostly English-only; the Spanish and Portuguese names are catalog content. An absent
/// translation is `None`, never a copy of the English, so a reader can tell which names were written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Names {
    /// English name.
    pub en: String,
    /// Spanish name, if the catalog has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub es: Option<String>,
    /// Portuguese name, if the catalog has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pt: Option<String>,
}

impl Names {
    /// The name in `lang`, falling back to English when that translation is absent.
    pub fn get(&self, lang: Lang) -> &str {
        let translated = match lang {
            Lang::Es => self.es.as_deref(),
            Lang::Pt => self.pt.as_deref(),
            Lang::En => None,
        };
        translated.unwrap_or(&self.en)
    }

    /// Every name present, English first.
    pub fn all(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.en.as_str())
            .chain(self.es.as_deref())
            .chain(self.pt.as_deref())
    }
}
