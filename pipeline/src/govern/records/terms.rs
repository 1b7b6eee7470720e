//! The reviewed glossary of record words (`data/curated/project_terms.csv`): English words as the World
//! Bank and CCLW publish them, with their Spanish and Portuguese words. The search index of a project or a
//! law gets the Spanish and Portuguese words of every English word its text holds, so a query in either
//! language finds records published in English. Search only: no record's text changes.

use std::path::Path;

use crate::BakeError;

/// The glossary file inside a catalog directory.
pub const FILE: &str = "curated/project_terms.csv";

/// English word (folded) → its Spanish and Portuguese words.
#[derive(Debug, Clone, Default)]
pub struct SearchTerms(Vec<(String, String)>);

impl SearchTerms {
    /// Reads the glossary in `catalog_dir`; empty when the catalog has none.
    ///
    /// # Errors
    /// [`BakeError::Catalog`] naming the row for a row without an English word or without both translations.
    pub fn read(catalog_dir: &Path) -> Result<SearchTerms, BakeError> {
        let path = catalog_dir.join(FILE);
        if !path.is_file() {
            return Ok(SearchTerms::default());
        }
        let mut reader = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .from_path(&path)
            .map_err(|error| BakeError::io(&path, error.into()))?;
        let mut terms = Vec::new();
        for (index, row) in reader.records().enumerate() {
            let row = row.map_err(|error| BakeError::catalog(&path, error.to_string()))?;
            let cell = |at: usize| row.get(at).unwrap_or("").trim();
            let (english, spanish, portuguese) = (cell(0), cell(1), cell(2));
            if english.is_empty() || spanish.is_empty() || portuguese.is_empty() {
                return Err(BakeError::catalog(
                    &path,
                    format!(
                        "row {}: give english, spanish and portuguese words",
                        index + 1
                    ),
                ));
            }
            terms.push((
                corpus::folding::fold(english),
                format!("{spanish} {portuguese}"),
            ));
        }
        Ok(SearchTerms(terms))
    }

    /// The Spanish and Portuguese words of the English words `text` holds as whole words (case and
    /// accents aside), space-separated.
    pub fn expand(&self, text: &str) -> String {
        let folded = format!(" {} ", corpus::folding::fold(text));
        self.0
            .iter()
            .filter(|(english, _)| folded.contains(&format!(" {english} ")))
            .map(|(_, words)| words.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::SearchTerms;

    #[test]
    fn english_words_bring_their_spanish_and_portuguese_words() {
        let terms = SearchTerms(vec![
            ("renewable".into(), "renovable renovável".into()),
            ("water".into(), "agua água".into()),
            (
                "social protection".into(),
                "protección social proteção social".into(),
            ),
        ]);
        assert_eq!(
            terms.expand("Access and Renewable Energy; Social Protection"),
            "renovable renovável protección social proteção social"
        );
        assert_eq!(terms.expand("Waterways"), "");
    }
}
