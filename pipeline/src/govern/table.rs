//! The governed observation table, column by column ([`ObservationColumns`]): filled from each governed
//! source by the metric registry ([`super::metrics`]), read by every derived table (`crate::derive`) and
//! written by `crate::export::tables`. Column contract: `corpus::observation`.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    fmt,
    ops::Deref,
    sync::Arc,
};

/// A string many rows share (a metric id, a country code, a source id, a vintage, a flag set): 16 bytes a
/// row and one allocation for all of them, where a `String` is 24 bytes and an allocation of its own.
/// Reads as a `&str` (`Deref`, [`SharedStr::as_str`]).
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedStr(Arc<str>);

impl SharedStr {
    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for SharedStr {
    fn from(text: &str) -> Self {
        Self(Arc::from(text))
    }
}

impl From<String> for SharedStr {
    fn from(text: String) -> Self {
        Self(Arc::from(text))
    }
}

impl PartialEq<str> for SharedStr {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for SharedStr {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for SharedStr {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, formatter)
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, formatter)
    }
}

/// Hands out one [`SharedStr`] per distinct string.
#[derive(Debug, Default)]
pub struct Interner(HashMap<SharedStr, ()>);

impl Interner {
    /// The shared copy of `text`, made on first sight.
    pub fn get(&mut self, text: &str) -> SharedStr {
        if let Some((shared, ())) = self.0.get_key_value(text) {
            return shared.clone();
        }
        let shared = SharedStr::from(text);
        self.0.insert(shared.clone(), ());
        shared
    }
}

/// The columns of an observation table, row-aligned, in any order (sorted on write). The strings rows
/// repeat are shared ([`SharedStr`]): about 120 bytes a row, where owned strings took about 370.
#[derive(Debug, Clone, Default)]
pub struct ObservationColumns {
    /// Metric ids.
    pub indicator: Vec<SharedStr>,
    /// ISO3 or aggregate codes.
    pub country: Vec<SharedStr>,
    /// Years.
    pub year: Vec<i32>,
    /// Values.
    pub value: Vec<f64>,
    /// Source ids.
    pub source: Vec<SharedStr>,
    /// Vintages.
    pub vintage: Vec<SharedStr>,
    /// Citation ids, one allocation of their exact length each.
    pub citation_id: Vec<Box<str>>,
    /// `|`-separated flags.
    pub flags: Vec<SharedStr>,
    /// Standard errors.
    pub standard_error: Vec<Option<f64>>,
    /// Source counts.
    pub source_count: Vec<Option<i32>>,
}

impl ObservationColumns {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.indicator.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.indicator.is_empty()
    }

    /// The countries each source has observations of, by source id.
    pub fn countries_by_source(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut countries: BTreeMap<String, BTreeSet<String>> = Default::default();
        for (source, country) in self.source.iter().zip(&self.country) {
            if !countries
                .get(source.as_str())
                .is_some_and(|known| known.contains(country.as_str()))
            {
                countries
                    .entry(source.to_string())
                    .or_default()
                    .insert(country.to_string());
            }
        }
        countries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interner_hands_out_one_shared_copy_per_string() {
        let mut strings = Interner::default();
        let first = strings.get("URY");
        let again = strings.get(&String::from("URY"));
        assert!(Arc::ptr_eq(&first.0, &again.0));
        assert!(!Arc::ptr_eq(&first.0, &strings.get("ARG").0));
        assert_eq!(first, "URY");
        assert_eq!(first.as_str(), "URY");
        assert_eq!(format!("{first}/{first:?}"), "URY/\"URY\"");
        assert!(strings.get("ARG") < first);
    }

    #[test]
    fn countries_by_source_reads_the_shared_columns() {
        let mut strings = Interner::default();
        let mut columns = ObservationColumns::default();
        for (source, country) in [
            ("wdi", "URY"),
            ("wdi", "ARG"),
            ("wdi", "URY"),
            ("wgi", "URY"),
        ] {
            columns.source.push(strings.get(source));
            columns.country.push(strings.get(country));
        }
        let by_source = columns.countries_by_source();
        assert_eq!(
            by_source["wdi"]
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            ["ARG", "URY"]
        );
        assert_eq!(by_source["wgi"].len(), 1);
    }
}
